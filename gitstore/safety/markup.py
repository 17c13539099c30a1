"""Markup that hides words from a person reading a text rendered, while an agent reads them all.

GitHub, like every Markdown renderer, shows nothing of an HTML comment: the words of a review
comment's ``<!-- ... -->`` are invisible to the reviewers who read the thread, yet they are in the
raw text gitstore captures, and would reach a learning, a published file, an agent. The same
holds for the other raw HTML a renderer passes on and a browser hides: a processing instruction
(``<? ... ?>``), a CDATA section and a declaration (``<!DOCTYPE ...>``). One holding words is
quarantined (``hidden-markup``), unless it is code: a code span or a fenced block shows it as it
is. An empty comment hides nothing. gitstore's own markers (a promoted block's
``<!-- gitstore:promoted ... -->``, the published section's ``<!-- gitstore:learnings:begin -->``
and ``<!-- gitstore:learnings:end -->``) are no exception: in a file gitstore writes they are
its own, and a file's content is not judged here; in free text (a learning, a review comment, a
session) one is words hidden like any other, and one that reached a published section would
close it early for an agent reading the file raw.

Markdown has its own comment, shown as nothing just as well: a link reference definition no
link uses (``[//]: # (words)``, ``[comment]: <> (words)``, ``[//]: # "words"``). A renderer
shows no definition; its title shows (as a tooltip) only on a link that names its label, and a
label written in code names nothing. So a definition outside code whose title holds words, or
whose destination does (``[//]: <words>``), and whose label no link or image of the text uses
(``[text][label]``, ``[label][]``, ``[label]``; labels matched in any case, runs of spaces read
as one, as CommonMark matches them) is counted too. A bracket escaped (``\\[label]``), or inside
a link's destination or title, an autolink or an HTML tag, is text and names no label; so is
one in an HTML block (raw HTML up to a blank line, or a ``<pre>`` or ``<textarea>`` up to the
line closing it: no Markdown read in it), one in an indented code block, and one in the text
of an image, which shows only as its alt text (``![diagram [//] here](d.png)``). A definition's
line in an HTML block is no definition either: it shows as text. A bare
destination can hold words too: a fragment or a name of five words or more joined by dashes or
underscores (``[//]: #when-you-summarize-this-review-...``) is a sentence with its spaces
replaced, not an address; a heading's anchor of a few words, a path with folders, a file name
or a URL is none. A definition is read as CommonMark reads one: at the start of a line (up to
three spaces in, or inside a quote or a list item), the title in quotes or parentheses, on the
line of the destination or the next, over lines but not across a blank one, and nothing after
it on its line. A line that continues a paragraph is no
definition for CommonMark, yet is counted: telling needs the whole block structure, and prose
does not look like this. A footnote (``[^1]: ...``) is shown at the bottom, and is not one.

Three more places hold words a reader of the rendered text does not see: an inline link's or
image's title (``[docs](https://example.com "words")``: a tooltip, as a definition's title is),
an image's alt text (``![words](d.png)``: GitHub shows the image, its alt text only when it
fails to load; ``<img alt="words">`` too) and a collapsed ``<details>`` element's body (shown on
a click only; its ``<summary>`` shows, and all of a ``<details open>``). Each is counted when
what it hides outside code reads as a sentence: five words or more (runs between spaces holding
a letter), or words joined by dashes or underscores as a bare destination's are. A label is
shorter: a tooltip's name, a caption, a file name (``Screen Shot 2020-01-01 at 1.00.00 PM``),
a ``<details>`` holding a fenced log and nothing else; an order takes a sentence.

Only free text is judged here: a repository file's comments (``scan(text, path=...)``) are its
authors' own. What shows as code is found by :mod:`~gitstore.safety.code`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator

from gitstore.safety import lazy
from gitstore.safety.active import link_label
from gitstore.safety.code import Code, indented_code
from gitstore.safety.injection import _VERB as _IMPERATIVE  # the verbs of the orders given to agents

# What a renderer passes on as raw HTML that a browser shows nothing of: a comment, a
# processing instruction, a CDATA section and a declaration (CommonMark's kinds of raw HTML
# besides tags); each opener, and what closes it.
_OPEN = re.compile(r"<!--|<\?|<!\[CDATA\[|<![A-Za-z]")
_CLOSES = {"<!--": "-->", "<?": "?>", "<![CDATA[": "]]>"}

# a link reference definition, from the start of its line: the label (no bracket unless
# escaped; not a footnote's ``^name``), the destination (``<...>`` or a run without spaces), then
# a title in quotes or parentheses (over lines, never across a blank one) ending its line
_LABEL_TEXT = r"(?:[^\[\]\\]|\\[\s\S])"
_CONTAINERS = r"(?:(?:>|[-+*](?=[ \t])|\d{1,9}[.)](?=[ \t]))[ \t]*)*+"  # a quote's ``>``, a list item's marker
_BREAK = r"\n(?![ \t]*\r?\n)"  # a line break that is not a blank line
_TITLE = (rf"\"((?:[^\"\\\n]|\\[\s\S]|{_BREAK})*+)\""
          rf"|'((?:[^'\\\n]|\\[\s\S]|{_BREAK})*+)'"
          rf"|\(((?:[^()\\\n]|\\[\s\S]|{_BREAK})*+)\)")
_DEFINITION = lazy.Pattern(
    rf"^ {{0,3}}{_CONTAINERS}\[(?!\^[^\s\[\]]+\])({_LABEL_TEXT}{{1,999}}+)\]:"
    rf"[ \t]*+(?:\r?\n[ \t]*+{_CONTAINERS})?(<(?:[^<>\n\\]|\\.)*+>|[^\s<]\S*+)"
    rf"(?:(?:[ \t]++|[ \t]*+\r?\n[ \t]*+{_CONTAINERS})(?:{_TITLE}))?[ \t]*+$", re.M)
# a bare destination that is a sentence, not an address: a fragment or a name of five words or
# more joined by dashes or underscores, with no folder, scheme or file extension to it
_WORD = r"[^\W_]++[,;:!?'.]?"
_WORDY_DESTINATION = lazy.Pattern(rf"<?#?{_WORD}(?:[-_]++{_WORD}){{4,}}>?")
# where a bracket is no link: escaped (``\[``), or inside an autolink, an HTML tag, or a link's
# destination and title ``(...)``; read past those as a reader's Markdown does
_QUOTED = rf"\"(?:[^\"\\\n]|\\[\s\S]|{_BREAK})*+\"|'(?:[^'\\\n]|\\[\s\S]|{_BREAK})*+'"
_INLINE_TAIL = (r"\([ \t]*+\n?[ \t]*+(?:<(?:[^<>\n\\]|\\.)*+>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*+\))*+)"
                rf"(?:[ \t]*+\n?[ \t]*+(?:{_QUOTED}|\((?:[^()\\\n]|\\[\s\S]|{_BREAK})*+\)))?[ \t]*+\n?[ \t]*+\)")
_AUTOLINK = r"<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*+>"
_TAG = rf"</?[A-Za-z][A-Za-z0-9-]*+(?:\s++[A-Za-z_:][\w.:-]*+(?:\s*+=\s*+(?:{_QUOTED}|[^\s\"'=<>`]++))?)*+\s*+/?>"
# what a link or an image names a definition by: ``[label]``, or the second label of
# ``[text][label]`` (whose first then names nothing); ``[text](...)`` names none
# an image whose text holds brackets, followed by its destination or its label: a renderer
# shows the text only as the image's alt text, so no label inside it is a link
_NESTED_IMAGE = (rf"!\[(?={_LABEL_TEXT}*+\[)(?:{_LABEL_TEXT}|\[{_LABEL_TEXT}*+\])*+\]"
                 rf"(?:{_INLINE_TAIL}|\[(?P<image_label>{_LABEL_TEXT}{{1,999}}+)\])")
_USE = lazy.Pattern(
    rf"\\[\s\S]|{_AUTOLINK}|{_TAG}|{_NESTED_IMAGE}"
    rf"|\[(?P<text>{_LABEL_TEXT}{{1,999}}+)\](?:\[(?P<label>{_LABEL_TEXT}{{1,999}}+)\]|(?P<inline>{_INLINE_TAIL}))?"
)

# CommonMark's HTML blocks: one opening with ``script``, ``pre``, ``style`` or ``textarea``
# (condition 1), which runs to the line holding a closing tag of any of them, or to the end;
# those that end at a blank line: a line opening with a block-level tag (condition 6), or made
# of one whole open or closing tag after a blank line (condition 7, which continues no paragraph)
_RAW = "script|pre|style|textarea"
_BLOCK_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details"
    "|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head"
    "|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p"
    "|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul"
)
_BLANK_BEFORE = r"(?:\A|(?<=\n\n)|(?<=\n\r\n))"
_HTML_BLOCK = lazy.Pattern(
    rf"^ {{0,3}}{_CONTAINERS}(?:"
    rf"<(?i:{_RAW})(?=[ \t>]|\r?$)(?:(?!</(?i:{_RAW})>)[\s\S])*+(?:</(?i:{_RAW})>[^\n]*+)?"
    rf"|(?:</?(?i:{_BLOCK_TAGS})(?=[ \t>]|/>|\r?$)"
    rf"|{_BLANK_BEFORE}(?!</?(?i:{_RAW})\b){_TAG}[ \t]*\r?$)"
    r"[^\n]*+(?:\n(?![ \t>]*+(?:\r?\n|$))[^\n]*+)*+)", re.M)


def hidden_markup_count(text: str) -> int:
    """How many HTML comments, processing instructions, CDATA sections, declarations and
    unused link reference definitions outside code in ``text`` hold words, and how many inline
    link or image titles, images' alt texts and collapsed ``<details>`` bodies hold a sentence
    (see the module's docstring)."""
    code: list[Code] = []  # worked out once, by the first finder that needs it

    def the_code() -> Code:
        if not code:
            code.append(Code(text))
        return code[0]

    return (_raw_html_count(text, the_code) + _unused_definition_count(text, the_code)
            + _inline_hidden_count(text, the_code) + _details_count(text, the_code))


def _raw_html_count(text: str, the_code: Callable[[], Code]) -> int:
    """How many HTML comments, processing instructions, CDATA sections and declarations
    outside code in ``text`` hold words."""
    if "<!" not in text and "<?" not in text:
        return 0
    code = the_code()
    count, found, unclosed = 0, _OPEN.search(text), set()
    while found is not None:
        at = found.start()
        if (past := code.end_around(at)) is not None:  # shown as code: look past it
            found = _OPEN.search(text, past)
            continue
        opener = found.group()
        close = _CLOSES.get(opener, ">")
        inner_start = found.end() if opener in _CLOSES else at + 2  # a declaration's name is a word of it
        end = -1 if close in unclosed else text.find(close, inner_start)
        if end < 0 and opener != "<!--":  # only a comment left open hides the rest; the others are text then
            unclosed.add(close)  # nothing later closes one either: never looked for again
            found = _OPEN.search(text, found.end())
            continue
        inner = text[inner_start:end if end >= 0 else len(text)]
        if inner.strip():
            count += 1
        if end < 0:
            break
        found = _OPEN.search(text, end + len(close))
    return count


def _unused_definition_count(text: str, the_code: Callable[[], Code]) -> int:
    """How many link reference definitions outside code in ``text`` hold words in their title
    or destination while no link or image outside code uses their label. Each definition is
    read once, and so is the text between them, for the labels links use."""
    if "]:" not in text:
        return 0
    wordy: list[str] = []
    spans: list[tuple[int, int]] = []
    blocks: list[_Stretches] = []  # the HTML blocks, worked out for the first definition holding words

    def the_blocks() -> _Stretches:
        if not blocks:
            blocks.append(_Stretches(_html_blocks(text, the_code)))
        return blocks[0]

    ends: dict[int, int] = {}  # where each HTML block holding a definition really ends (``_container_end``)
    for m in _DEFINITION.finditer(text):
        if the_code().end_around(m.start(1) - 1) is not None:
            continue
        holds_words = _holds_words(m.group(2), m.group(3) or m.group(4) or m.group(5) or "")
        if holds_words and (block := the_blocks().around(m.start())) is not None:
            if block[0] not in ends:
                ends[block[0]] = _container_end(text, block)
            if m.start() < ends[block[0]]:
                continue  # a line of raw HTML: shown as it is, no definition
        spans.append(m.span())
        if holds_words:
            wordy.append(link_label(m.group(1)))
    if not wordy:
        return 0
    used: set[str] = set()
    no_links = _Stretches(_merged(the_blocks().spans + indented_code(text)))
    starts = [0] + [end for _, end in spans]
    ends = [start for start, _ in spans] + [len(text)]
    for start, end in zip(starts, ends):
        used.update(_labels_used(text, start, end, the_code, no_links))
    return sum(label not in used for label in wordy)


# an inline link or image: its text (brackets nested once: a badge's image inside a link), then
# its destination and an optional title; the alt text of an image is its text
_NESTED_TEXT = rf"(?:{_LABEL_TEXT}|\[{_LABEL_TEXT}*+\])*+"
_INLINE = lazy.Pattern(
    rf"(?P<bang>!?)\[(?P<alt>{_NESTED_TEXT})\]"
    r"(?:\([ \t]*+\n?[ \t]*+(?:<(?:[^<>\n\\]|\\.)*+>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*+\))*+)"
    rf"(?:[ \t]*+\n?[ \t]*+(?:{_TITLE}))?[ \t]*+\n?[ \t]*+\)"
    rf"|(?P<reference>\[{_LABEL_TEXT}*+\]))")
# an ``<img>`` tag's alt text or a tag's title: the same words, written in HTML
_ATTRIBUTE = lazy.Pattern(rf"<(?P<tag>[A-Za-z][A-Za-z0-9-]*+)"
                          rf"(?:\s++[A-Za-z_:][\w.:-]*+(?:\s*+=\s*+(?:{_QUOTED}|[^\s\"'=<>`]++))?)*+\s*+/?>")
_HIDING_ATTRIBUTE = lazy.Pattern(
    r"""\s(?P<name>alt|title)\s*=\s*(?:"(?P<d>[^"]*)"|'(?P<s>[^']*)'|(?P<u>[^\s"'=<>`]+))""", re.I)
_DETAILS = lazy.Pattern(r"(?<!\\)<(/?)details(?=[\s/>])([^>]*)>", re.I)
_SUMMARY_OPEN = lazy.Pattern(r"\s*<summary(?=[\s>])[^>]*>", re.I)
_SUMMARY_CLOSE = lazy.Pattern(r"</summary(?=[\s>])", re.I)
_ANY_TAG = lazy.Pattern(rf"{_TAG}")
_OPEN_ATTRIBUTE = lazy.Pattern(r"\sopen(?:\s|=|/|$)", re.I)
SENTENCE_WORDS = 5  # words a collapsed ``<details>`` body holds to read as a sentence
ORDER_WORDS = 3  # words a title or an alt text holds to read as an order, with a modal in it
COMMAND_WORDS = 4  # words it holds to read as one opening with a verb ("Download Count Total" is a label)
# what makes a title or an alt text an order rather than a description: a modal, a reader spoken
# to, "always", "never", "do not", "please"; or a sentence opening with the verb of an order
_MODAL = lazy.Pattern(
    r"\b(?:you|your|yours|yourself|must|should|shall|may|ought|needs?\s+to|ha(?:ve|s)\s+to|required|"
    r"allowed|permitted|mandatory|always|never|do\s+not|does\s+not|don'?t|please|instead)\b")
# a word or two that only lead into an order ("also commit ...", "then just skip ...")
_LEAD_IN = r"(?:(?:also|and|then|now|just|simply|first|next|finally|quickly|so|please)\s+){0,3}"
_COMMAND = lazy.Pattern(rf"(?:^|[.!?;:]\s)[\s\"'*_(>-]*{_LEAD_IN}{_IMPERATIVE}\b")


def _words(hidden: str) -> list[str]:
    """The words of ``hidden``: runs between spaces holding a letter."""
    return [word for word in hidden.split() if any(c.isalpha() for c in word)]


def reads_as_sentence(hidden: str) -> bool:
    """Whether ``hidden`` (a ``<details>`` body) holds a sentence: five words or more, or one
    that is five joined by dashes or underscores. A caption, a file name or a date is shorter."""
    words = _words(hidden)
    return len(words) >= SENTENCE_WORDS or any(_WORDY_DESTINATION.fullmatch(word) for word in words)


def reads_as_order(hidden: str) -> bool:
    """Whether ``hidden`` (a title, an alt text) reads as an order: three words or more, one of
    them a modal or a reader spoken to ("may", "must", "you", "always", "do not"); four or more,
    a sentence among them opening with the verb of an order ("skip", "push", "run"), after a word
    or two that only lead into it ("also commit ...", "then just skip ..."); or five
    words joined by dashes or underscores. A description ("screenshot of the CVE form", "a tree
    with the word ARBORIST superimposed on it") or a label ("Build status") is no order, however
    long."""
    words = _words(hidden)
    if any(_WORDY_DESTINATION.fullmatch(word) for word in words):
        return True
    read = " ".join(words).lower()
    return ((len(words) >= ORDER_WORDS and _MODAL.search(read) is not None)
            or (len(words) >= COMMAND_WORDS and _COMMAND.search(read) is not None))


def _inline_hidden_count(text: str, the_code: Callable[[], Code]) -> int:
    """How many inline links' or images' titles and images' alt texts (``![...](...)``,
    ``![...][label]``, ``<img alt="...">``, a tag's ``title="..."``) outside code read as an
    order."""
    count = 0
    if "](" in text or "][" in text:
        for m in _INLINE.finditer(text):
            if the_code().end_around(m.start()) is not None:
                continue
            title = next((g for g in m.group(3, 4, 5) if g), "")
            alt = m.group("alt") if m.group("bang") else ""
            if reads_as_order(title) or reads_as_order(_ANY_TAG.sub(" ", alt)):
                count += 1
    if "=" in text and "<" in text:
        for m in _ATTRIBUTE.finditer(text):
            if the_code().end_around(m.start()) is not None:
                continue
            for attribute in _HIDING_ATTRIBUTE.finditer(m.group()):
                if attribute.group("name").lower() == "alt" and m.group("tag").lower() != "img":
                    continue
                if reads_as_order(attribute.group("d") or attribute.group("s") or attribute.group("u") or ""):
                    count += 1
                    break
    return count


def _details_count(text: str, the_code: Callable[[], Code]) -> int:
    """How many collapsed ``<details>`` elements outside code hide a sentence: their body, the
    ``<summary>`` opening it aside, without the code in it (a fenced log) and without tags. One
    never closed hides the rest of the text, as a browser closes it at the end. One inside a
    collapsed one is read with it, not again: its words are the outer one's too, so each
    character is read once."""
    if "<details" not in text.lower():
        return 0
    tags = [m for m in _DETAILS.finditer(text) if the_code().end_around(m.start()) is None]
    ends, opened = [len(text)] * len(tags), []  # where each opening's element ends
    for i, tag in enumerate(tags):
        if not tag.group(1):
            opened.append(i)
        elif opened:
            ends[opened.pop()] = tag.start()
    count, hidden_to = 0, 0
    for i, opening in enumerate(tags):
        if opening.group(1) or opening.start() < hidden_to or _OPEN_ATTRIBUTE.search(opening.group(2) + " "):
            continue
        start, end = opening.end(), ends[i]
        hidden_to = end
        if (summary := _SUMMARY_OPEN.match(text, start, end)) is not None:
            closing = _SUMMARY_CLOSE.search(text, summary.end(), end)
            start = end if closing is None else text.find(">", closing.end(), end) + 1 or end
        if reads_as_sentence(_ANY_TAG.sub(" ", _prose(text, start, end, the_code()))):
            count += 1
    return count


def _prose(text: str, start: int, end: int, code: Code) -> str:
    """``text`` from START to END without the stretches of code in it."""
    parts, at = [], start
    for index in range(max(bisect.bisect_right(code.spans, (start, len(text) + 1)) - 1, 0), len(code.spans)):
        span_start, span_end = code.spans[index]
        if span_start >= end:
            break
        if span_end <= at:
            continue
        parts.append(text[at:max(span_start, at)])
        at = max(at, span_end)
    parts.append(text[at:end] if at < end else "")
    return " ".join(parts)


def _html_blocks(text: str, the_code: Callable[[], Code]) -> list[tuple[int, int]]:
    """Where HTML blocks outside code stand in TEXT, in order: raw HTML, where no bracket is a
    link (CommonMark's HTML blocks: ``<pre>``, ``<script>``, ``<style>`` and ``<textarea>`` to
    the line closing one; one opened by a block-level tag, or by a line of a lone tag after a
    blank line or at the start, to the next blank line)."""
    if "<" not in text:
        return []
    return [m.span() for m in _HTML_BLOCK.finditer(text) if the_code().end_around(m.start()) is None]


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """SPANS in order, those that overlap made one (an indented block inside a ``<pre>`` one)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


class _Stretches:
    """Stretches of a text where no bracket is a link (HTML blocks, indented code), in order,
    none overlapping."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = spans
        self._starts = [start for start, _ in spans]

    def end_around(self, at: int) -> int | None:
        """Where the stretch holding AT ends, or None when none holds it."""
        around = self.around(at)
        return around[1] if around is not None else None

    def around(self, at: int) -> tuple[int, int] | None:
        """The stretch holding AT, or None when none holds it."""
        index = bisect.bisect_right(self._starts, at) - 1
        if index >= 0 and at < self.spans[index][1]:
            return self.spans[index]
        return None


_LIST_MARKER = lazy.Pattern(r"[-+*]|\d{1,9}[.)]")


def _container_end(text: str, block: tuple[int, int]) -> int:
    """Where the HTML BLOCK as found really ends: one opened in a quote or a list item ends with
    it (CommonMark continues no HTML block lazily), at the first line lacking the quote's ``>``
    or the item's indent, so a line after it is no line of the block (``> <div>`` then
    ``[x]: # (words)`` is a definition, hidden); one opened at the margin where it was found."""
    start, end = block
    prefix = text[start:text.find("<", start, end)]
    if not prefix.strip():
        return end
    continued = _LIST_MARKER.sub(lambda marker: " " * len(marker.group()), prefix)
    needed = continued.rstrip() if ">" in continued else continued
    at = text.find("\n", start, end)
    while at != -1 and at + 1 < end:
        if not text.startswith(needed, at + 1):
            return at + 1
        at = text.find("\n", at + 1, end)
    return end


def _labels_used(text: str, start: int, end: int, the_code: Callable[[], Code],
                 no_links: _Stretches) -> Iterator[str]:
    """The labels links and images name between START and END, outside code and the spans
    NO_LINKS (HTML blocks, indented code blocks). An escape, an autolink, a tag, an inline
    link's ``(...)`` or an image's text holding brackets is read past as one piece, so no
    bracket in it names one; one of those starting in code is no such piece, and the code is
    read past."""
    use = _USE.search(text, start, end)
    while use is not None:
        if (past := the_code().end_around(use.start())) is not None:
            use = _USE.search(text, past, end) if past < end else None
            continue
        if (past := no_links.end_around(use.start())) is not None:  # raw HTML or code: read past it
            use = _USE.search(text, past, end) if past < end else None
            continue
        if use.group("image_label") is not None:
            yield link_label(use.group("image_label"))
        elif use.group("text") is not None and use.group("inline") is None:
            yield link_label(use.group("label") or use.group("text"))
        use = _USE.search(text, use.end(), end)


def _holds_words(destination: str, title: str) -> bool:
    """Whether a definition's title or destination holds words: any title, a ``<...>``
    destination holding any, a bare one that is a sentence with dashes or underscores for
    spaces (``#when-you-summarize-this-...``)."""
    if title.strip() or (destination.startswith("<") and destination[1:-1].strip()):
        return True
    return _WORDY_DESTINATION.fullmatch(destination) is not None


__all__ = ["hidden_markup_count"]
