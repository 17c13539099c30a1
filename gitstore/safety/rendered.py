"""A text's inline markup read as a renderer shows it, for the finders of injected instructions.

GitHub, and any agent reading a comment, a skill or an instructions file, take in
``Ig<b></b>nore all previous instructions`` or ``Disregard&nbsp;all&nbsp;prior&nbsp;instructions``
as the plain sentence, where a pattern matched on the text as written sees neither. So the
injection finder reads a second copy of a text holding markup (:func:`renderings`), in which:

- HTML comments and inline tags are left out, with nothing in their place (``Ig<!---->nore``
  reads ``Ignore``), and a tag that breaks a line or a block (``<br>``, ``<p>``, ``<td>``) is
  read as a space. Where a tag or a comment stands between two letters, which a renderer joins
  and an agent reading the raw text may take as two words (``previous<!---->instructions``),
  a third copy reads every one of them as a space;
- a link or an image is read as its text (``[previous](#x)``, ``![alt](x.png)``, ``[text][ref]``);
- a quote's ``>`` marks opening a line are left out (its lines read as one paragraph), a table's
  ``|`` between cells read as spaces (a row reads as one line; the bar closing it stays, so it
  does not run on into the next row), and a word split by a hyphen at a line's end is joined
  (``pre-\\nvious``);
- HTML entities are decoded (``&nbsp;`` a no-break space, ``&shy;`` a soft hyphen the reading
  then leaves out, ``&#73;`` an ``I``), after the tags, as a renderer does: ``&lt;b&gt;`` is text.

What the copy leaves out (a comment, a tag's attributes, a link's destination and title, a
fence's info string, which a renderer reads and shows nothing of) an agent reading the raw text
still takes in, and takes ``&#105;gnore`` there for ``ignore``: so a text holding an entity and
a tag, a comment or a link, or an entity in a fence's info string, has one more copy, the text
with those entities decoded and its markup kept (``[x](u "&#105;gnore all ...")``,
``<img alt="...">``, ``<!-- ig&#110;ore ... -->``, ````` ```sh &#105;gnore ... `````); what
shows as code stays as written there too.

What shows as code (fenced and indented blocks, code spans, :mod:`~gitstore.safety.code`) is
kept as written: markup there is shown, not rendered, and a snippet explaining an attack is no
attack. A copy is built only for a text holding one of ``<``, ``&``, ``[``, ``|``, ``-`` at a
line's end or ``>`` opening a line; prose without them pays a few substring tests.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from gitstore.safety import lazy
from gitstore.safety.code import code_stretches

_QUOTED = r"\"[^\"]*+\"|'[^']*+'"
_TAG = lazy.Pattern(
    rf"</?([A-Za-z][A-Za-z0-9-]*+)(?:\s++[A-Za-z_:][\w.:-]*+(?:\s*+=\s*+(?:{_QUOTED}|[^\s\"'=<>`]++))?)*+\s*+/?>"
)
# Tags a renderer breaks a line or a block at: read as a space, the words either side apart.
_BLOCK_TAGS = frozenset(
    "address article aside blockquote br caption dd details dialog div dl dt fieldset figcaption figure footer "
    "form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody td tfoot th thead tr ul"
    .split()
)
# A link or an image, inline (its destination and title) or by reference (``[text][label]``),
# its text with no bracket in it: an image inside a link's text is read first, the link then.
_DESTINATION = r"(?:<[^<>\n]{0,500}+>|(?:[^\s()]++|\([^\s()]{0,200}+\)){0,500}+)"
_TITLE = r"(?:\s++(?:\"[^\"\n]{0,300}+\"|'[^'\n]{0,300}+'|\([^()\n]{0,300}+\)))?+"
_LINK = lazy.Pattern(rf"!?\[([^\[\]\n]{{0,300}}+)\](?:\(\s*+{_DESTINATION}{_TITLE}\s*+\)|\[[^\[\]\n]{{0,100}}+\])")
_QUOTE_MARKS = lazy.Pattern(r"^[ \t]{0,3}(?:>[ \t]?)+", re.M)
# A table's bar between cells (or opening a row) reads as a space; the one closing a row (a bar
# ending its line) stays, so a row does not run on into the next one, which a renderer shows apart.
_ROW_END = "\x01"  # a control character: a text holding one is quarantined
_LINE_END_HYPHEN = lazy.Pattern(r"-(?<=[^\W\d_]-)[ \t]*\r?\n[ \t]*(?=[^\W\d_])")
_MASK = "\x00"  # where a stretch of code stands while the rest is read (a text holding one is quarantined)


def renderings(text: str) -> tuple[str, ...]:
    """TEXT as a renderer shows its inline markup (the module's documentation says how): none
    when it holds no markup, or its markup changes nothing; two when a tag or a comment stands
    between letters (joined in the first, a space in the second)."""
    if not _marked(text) or _MASK in text:
        return ()
    masked, code = _masked(text)
    joined, between_letters = _render(masked, "")
    found = [joined] if joined != masked else []
    if between_letters:
        found.append(_render(masked, " ")[0])
    copies = [_unmasked(copy, code) for copy in found]
    if "&" in text:
        # what the rendering leaves out (a comment, a tag's attributes, a link's destination and
        # title, a fence's info string) as an agent reading the raw text takes it in: its
        # entities decoded
        infos = [_info_decoded(piece) for piece in code]
        if ("&" in masked and ("<" in masked or "](" in masked)) or infos != code:
            decoded = _unmasked(html.unescape(masked) if "&" in masked else masked, infos)
            if decoded != text and decoded not in copies:
                copies.append(decoded)
    return tuple(copies)


_FENCE_OPENING = lazy.Pattern(r"[ \t]{0,3}(?:`{3,}+|~{3,}+)[^\n]*+")


def _info_decoded(code: str) -> str:
    """CODE, a stretch shown as code, with the entities of its fence's info string decoded: a
    renderer reads them (CommonMark), and shows none of the info string, which an agent reads."""
    if "&" not in code or "\n" not in code or not code.lstrip(" \t").startswith(("```", "~~~")):
        return code
    opening = _FENCE_OPENING.match(code)
    if opening is None or "&" not in opening.group():
        return code
    return html.unescape(opening.group()) + code[opening.end():]


def rendered(text: str) -> str | None:
    """The first of :func:`renderings`, or None: tags and comments between letters joined."""
    copies = renderings(text)
    return copies[0] if copies else None


def _marked(text: str) -> bool:
    if "<" in text or "&" in text or "[" in text or "|" in text or "-\n" in text or "-\r\n" in text:
        return True
    return ">" in text and _QUOTE_MARKS.search(text) is not None


def _masked(text: str) -> tuple[str, list[str]]:
    """TEXT with each stretch shown as code replaced by ``_MASK``, and those stretches."""
    spans = code_stretches(text)
    if not spans:
        return text, []
    parts, code, at = [], [], 0
    for start, end in spans:
        parts += [text[at:start], _MASK]
        code.append(text[start:end])
        at = end
    parts.append(text[at:])
    return "".join(parts), code


def _unmasked(text: str, code: list[str]) -> str:
    if not code:
        return text
    pieces = text.split(_MASK)
    return "".join(piece + (code[i] if i < len(code) else "") for i, piece in enumerate(pieces))


def _render(text: str, gap: str) -> tuple[str, bool]:
    """TEXT rendered, inline tags and comments read as GAP; and whether one stood between letters."""
    between = False

    def left_out(before: str, after: str) -> str:
        nonlocal between
        if before.isalnum() and after.isalnum():
            between = True
        return gap

    if "<" in text:
        text = _without_comments(text, left_out)
        if "<" in text:
            def tag(m: re.Match[str]) -> str:
                if m.group(1).lower() in _BLOCK_TAGS:
                    return " "
                s, e = m.start(), m.end()
                return left_out(m.string[s - 1:s], m.string[e:e + 1])

            text = _TAG.sub(tag, text)
    if "[" in text:
        for _ in range(2):  # an image inside a link's text, then the link
            linked = _LINK.sub(r"\1", text)
            if linked == text:
                break
            text = linked
    if ">" in text:
        text = _QUOTE_MARKS.sub("", text)
    if "|" in text:
        # the bar closing a row kept (marked, every other bar a space, the mark a bar again):
        # four replacements take about a tenth of one substitution looking ahead of each bar
        text = text.replace("|\n", _ROW_END + "\n").replace("|\r", _ROW_END + "\r")
        text = text.replace("|", " ").replace(_ROW_END, "|")
    if "-\n" in text or "-\r\n" in text:
        text = _LINE_END_HYPHEN.sub("", text)
    if "&" in text:
        text = html.unescape(text)
    return text, between


def _without_comments(text: str, left_out: Callable[[str, str], str]) -> str:
    """TEXT without its HTML comments (``<!-- ... -->``, ``<!-->``, ``<!--->``); an unclosed one
    is text. Each is replaced by what LEFT_OUT gives for the characters either side of it."""
    if "<!--" not in text:
        return text
    parts, at = [], 0
    while (start := text.find("<!--", at)) >= 0:
        end = text.find("-->", start + 2)
        if end < 0:
            break
        end += 3
        parts += [text[at:start], left_out(text[start - 1:start], text[end:end + 1])]
        at = end
    parts.append(text[at:])
    return "".join(parts)


__all__ = ["rendered", "renderings"]
