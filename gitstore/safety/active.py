"""Active markup: what acts by itself when a text is rendered, or when an agent copies it into a
published Markdown file.

Review comments, session transcripts and labelers' proposals are free text that a person reads
rendered and an agent may carry into the wiki or a skill file. A few of its shapes are not text
at all but actions, and are quarantined (``active-markup``):

- a link or image whose target is a script URL (``javascript:``, ``vbscript:``,
  ``livescript:``, or a ``data:`` URL of HTML, SVG, XML or script): Markdown links and images
  (``[docs](javascript:...)``), reference definitions (``[docs]: javascript:...``), autolinks
  (``<javascript:...>``), and an HTML attribute holding one (``href``, ``src``, ``action``,
  ``xlink:href``...; not the text of ``alt`` or ``title``). The target is read as a browser reads
  it: character references decoded (``&#106;``, ``&colon;``, ``java&#x09;script:``), tabs and
  line breaks dropped, leading spaces and control characters skipped, in any case;
- an HTML element that runs code (``<script>``, ``<iframe>``, ``<frame>``, ``<frameset>``,
  ``<object>``, ``<embed>``, ``<applet>``), and any tag with an event handler (``onerror=``,
  ``onload=``...), quoted or not, however its attributes are separated (``<svg/onload=...>``);
- a stylesheet: a ``<style>`` element, whatever it holds, and a ``<link rel="stylesheet">``.
  GitHub strips both from a comment, but the text travels further: an agent copies it into the
  wiki or a skill file, which other renderers show (a documentation site, an editor's preview),
  and many keep raw HTML. There a stylesheet rules the whole page, not the comment: it hides
  words from the person reading (``display: none``, as an HTML comment does), paints over the
  page, and fetches addresses unasked (``url(...)``, ``@import``); it needs no placeholder to
  leak, since ``input[value^="a"] { background: url(...) }`` reads the page a character at a
  time. So its addresses are not enough to judge it by. Nothing in ordinary review material is
  a stylesheet outside code;
- a ``style`` attribute whose CSS, read as a browser reads it (references decoded, comments
  dropped, CSS escapes such as ``\\75 rl(`` decoded), fetches a script URL or an address that
  asks for data (``url(...)``, any address an ``image-set(...)`` names), or runs code
  (``expression(...)``, ``-moz-binding``). Ordinary colours, alignment and plain background
  images stay, and so does JSX (``style={{...}}``), source code a session read;
- an image whose URL carries a placeholder for data to fill in (``{SECRET}``, ``${...}``,
  ``$GITHUB_TOKEN``, ``<base64 of the env>``, ``%s``), in Markdown (``![](...)``) or in an HTML
  attribute a browser fetches by itself (``src``, ``srcset``, ``poster``, ``background``,
  ``data``): a renderer fetches an image unasked, so this is an order to leak, not a picture.
  Its alt text is read as CommonMark reads link text: brackets in it balance at any depth
  (``![see [1]](...)``), and escaped ones or those in code spans are text.
  A reference image (``![alt][r]``, ``![r][]``, ``![r]``) is judged by the URL of the
  definition it names (``[r]: <https://...{SECRET}> "title"``, the URL on the label's line or
  the next), wherever in the text that stands; the definition alone is no image, and a link
  that names it is followed only when clicked. An SVG ``<image>`` or ``<use>``, or a
  ``<link>`` (a preload, an icon), whose ``href`` asks for data is judged as an image is;
- what sends the reader, or every link of the page, elsewhere unasked: a ``<meta
  http-equiv="refresh">`` whose content names an address (a script URL, one that asks for
  data, or any other: a redirect is no text), read as a browser reads it (``0; URL='...'``,
  attributes in any order, references decoded); a ``<base>`` with an ``href``, which moves
  every relative link and image of the page. A ``<form>`` sends its ``action`` only when
  someone submits it, and is judged as a link.

Ordinary review material stays: screenshots (``![image](https://github.com/user-attachments/
...)``, ``<img width="..." src="https://...">``), badges, https links, ``<details>``, ``<br>``,
"on error, retry", and JSX a session read (``onClick={() => close(id)}`` runs nothing in a
browser; ``onerror={alert(1)}`` does, and is counted). What shows as code (a code span, a fenced block; see
:mod:`~gitstore.safety.code`) is shown, not acted on, and is not judged; nor is a repository
file's own markup (``scan(text, path=...)``), which is its authors'.

Linear in the text: each pattern starts with a literal (``<``, ``]``, ``!``, ``[``), none can
match in two ways (a tag's attributes are atomic groups; a label stops at the next bracket), and
the search goes on after each match; a tag's attributes are looked at one by one only when they
hold what an acting one needs; reference images are looked for only when a definition asks for
data, and each is looked up, not compared with every definition.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from urllib.parse import unquote

from gitstore.safety import lazy
from gitstore.safety.code import Code

_SCRIPT_URL = lazy.Pattern(
    r"(?:java|vb|live)script:"
    r"|data:(?:text/html|application/xhtml\+xml|image/svg\+xml|(?:text|application)/xml"
    r"|(?:text|application)/(?:x-)?(?:java|ecma)script)"
)
_LINE_BREAKS = str.maketrans("", "", "\t\n\r")  # a browser drops them anywhere in a URL
_LEADING = "".join(map(chr, range(0x21)))  # and skips spaces and controls before it
_PLACEHOLDER = lazy.Pattern(r"[{}<>]|\$[a-z_({]|%s")

# a Markdown link's or image's destination (``](``) or a reference definition's (``]:``): what
# an obfuscated scheme may be spelt with, up to the first character that ends it
_DESTINATION = lazy.Pattern(r"\][(:]\s*<?([\w&#;:/+.\-\s]*)")
# what opens or ends a Markdown image's alt text, as CommonMark reads link text: an escaped
# character (text), an opening bracket (``![`` an image's), a closing one, and a blank line
# (brackets never match across one); then what follows an alt text's ``]``
_BRACKET = lazy.Pattern(r"\\[\s\S]|!?\[|\]|\n[ \t]*\n")
_TARGET = lazy.Pattern(r"\]\([ \t]*(?:<([^>)\n]*)|([^\s)]*))")  # a URL ends at a space, its ``)`` or ``>``
_LABEL_TEXT = r"(?:[^\[\]\\]|\\[\s\S])"  # a label's character: no bracket unless escaped
# a reference definition (``[r]: <url> "title"``, the URL on the line of the label or the next);
# an image takes its URL from one as ``![alt][r]``, ``![r][]`` or ``![r]`` (not ``![r](``)
# A link label holds at most 999 characters: an image's alt text longer than that names no
# definition (read as a label anyway, images nested thousands deep, each holding all those
# inside it, were read in time quadratic in their depth).
_LONGEST_LABEL = 999
_DEFINITION = lazy.Pattern(rf"\[({_LABEL_TEXT}{{1,999}})\]:[ \t]*(?:\r?\n[ \t]*)?(?:<([^<>\n]*)>|(\S+))")
_REFERENCE = lazy.Pattern(rf"\[({_LABEL_TEXT}*+)\]|(?!\()")

# an HTML tag as a browser reads it, each attribute taken whole (atomic groups: a value without
# quotes holding a ``/`` is never split again into more attributes), to the first thing that
# cannot go on with it: its ``>``, a ``<``, the end
_VALUE = r"""(?>"[^"]*"|'[^']*'|[^\s>]*)"""
_ATTRIBUTE = rf"[\s/]*([^\s/>=<]+)(?>\s*=\s*({_VALUE}))?"
_TAG = lazy.Pattern(rf"<([A-Za-z][A-Za-z0-9-]*)(?=[\s/>]|$)((?>{_ATTRIBUTE})*+)")
_ATTRIBUTES = lazy.Pattern(_ATTRIBUTE)
_MAY_ACT = lazy.Pattern(r"on|[:&{}<>$%]", re.I)  # what an attribute that acts cannot do without
_AUTOLINK = lazy.Pattern(r"<(?:(?:java|vb|live)script|data):", re.I)
_HANDLER = lazy.Pattern(r"on[a-z]+")
_JSX_REFERENCE = lazy.Pattern(r"\{[\w$.]+\}")

# elements that act whatever they hold: those that run code, and a stylesheet
_ACT_ALONE = frozenset({"script", "iframe", "frame", "frameset", "object", "embed", "applet", "style"})
_TEXT_ATTRIBUTES = frozenset({"alt", "title", "aria-label", "aria-description", "placeholder", "label"})
_FETCHED = frozenset({"src", "srcset", "poster", "background", "data", "lowsrc", "dynsrc"})
_FETCHED_HREF = frozenset({"link", "image", "use", "feimage"})  # whose ``href`` is fetched unasked
_BY_ATTRIBUTES = frozenset({"base", "meta", "link"})  # tags that act by what their attributes say together

# CSS as a browser reads it: comments dropped (one never closed runs to the end), escapes
# decoded (``\75 rl(``, ``java\73 cript:``); then what it fetches (``url(...)``, and every
# address an ``image-set(...)`` names as a string) and what runs code (``expression(...)``,
# ``-moz-binding``)
_CSS_ESCAPE = lazy.Pattern(r"\\(?:([0-9a-fA-F]{1,6})[ \t\r\n\f]?|(.))", re.S)
_CSS_URL = lazy.Pattern(r"url\(\s*(?:\"([^\"]*)\"|'([^']*)'|([^)\s\"']*))", re.I)
_CSS_IMAGE_SET = lazy.Pattern(r"image-set\(", re.I)
_CSS_ARGUMENT = lazy.Pattern(r"\"([^\"]*)\"|'([^']*)'|[()]")  # a string, or a parenthesis
_CSS_RUNS = lazy.Pattern(r"expression\s*\(|-moz-binding", re.I)

_InCode = Callable[[int], int | None]  # the end of the code a position is in, or None


def active_markup_count(text: str) -> int:
    """How many links, elements and images outside code in ``text`` act when it is rendered
    (see the module's docstring)."""
    if "<" not in text and "](" not in text and "]:" not in text:
        return 0
    code: list[Code] = []  # worked out once, at the first place that needs it

    def the_code() -> Code:
        if not code:
            code.append(Code(text))
        return code[0]

    def in_code(at: int) -> int | None:
        return the_code().end_around(at)

    images: list[list[tuple[int, int]]] = []  # likewise

    def image_ends() -> list[tuple[int, int]]:
        if not images:
            images.append(_image_ends(text, the_code))
        return images[0]

    found = _tags(text, the_code) | _destinations(text, in_code) | _images(text, image_ends)
    return len(found | _referenced_images(text, in_code, image_ends))


def _destinations(text: str, in_code: _InCode) -> set[int]:
    """Where a Markdown link, image or reference definition outside code targets a script URL."""
    return {m.start() for m in _DESTINATION.finditer(text)
            if is_script_url(m.group(1)) and in_code(m.start()) is None}


def _image_ends(text: str, the_code: Callable[[], Code]) -> list[tuple[int, int]]:
    """(where its ``![`` is, where the ``]`` ending its alt text is) of each Markdown image
    outside code, in one pass over the brackets: matched as CommonMark matches link text, an
    escaped bracket or one in code is text, nested ones balance (``![a [b] c](...)``), and
    none matches across a blank line. Brackets are met in order, so the stretch of code one
    may be in is found by walking the stretches along with them, not by a search each (three
    calls a bracket were most of what a text of brackets cost)."""
    openers: list[tuple[int, bool]] = []
    ends = []
    spans: list[tuple[int, int]] | None = None  # the stretches of code, read at the first bracket
    i = 0  # the first stretch not ending before the bracket at hand
    for m in _BRACKET.finditer(text):
        token = m.group()
        if token[0] == "\\":
            continue
        if token[0] == "\n":
            openers.clear()
            continue
        at = m.start()
        if spans is None:
            spans = the_code().spans
        while i < len(spans) and spans[i][1] <= at:
            i += 1
        if i < len(spans) and spans[i][0] <= at:
            continue  # in code
        if token == "]":
            if openers:
                start, image = openers.pop()
                if image:
                    ends.append((start, at))
        else:
            openers.append((at, token == "!["))
    return ends


def _images(text: str, image_ends: Callable[[], list[tuple[int, int]]]) -> set[int]:
    """Where a Markdown image outside code asks for data to be filled into its URL (the
    images are found only when some ``](`` is followed by such a URL)."""
    if "![" not in text:
        return set()
    asking = {m.start() for m in _TARGET.finditer(text) if asks_for_data(m.group(1) or m.group(2))}
    if not asking:
        return set()
    return {close for _, close in image_ends() if close in asking}


def _referenced_images(text: str, in_code: _InCode, image_ends: Callable[[], list[tuple[int, int]]]) -> set[int]:
    """Where a Markdown image outside code takes its URL from a reference definition outside
    code whose URL asks for data to be filled in. Labels match as CommonMark matches them: in
    any case, runs of spaces and line breaks read as one space."""
    if "![" not in text:
        return set()
    leaking = {link_label(m.group(1)) for m in _DEFINITION.finditer(text)
               if asks_for_data(m.group(2) or m.group(3) or "") and in_code(m.start()) is None}
    if not leaking:
        return set()
    found = set()
    for start, close in image_ends():
        after = _REFERENCE.match(text, close + 1)
        if after is None:
            continue
        label = after.group(1) or (text[start + 2:close] if close - start - 2 <= _LONGEST_LABEL else "")
        if label and link_label(label) in leaking:
            found.add(start)
    return found


def link_label(label: str) -> str:
    """A link label as CommonMark matches it: in any case, runs of spaces and line breaks read
    as one space."""
    return " ".join(label.split()).casefold()


def _tags(text: str, the_code: Callable[[], Code]) -> set[int]:
    """Where an HTML tag or an autolink outside code acts. A tag is read once; the search goes
    on after it, or after the code it starts in. Tags are met in order, so the stretch of code
    one may start in is found by walking the stretches along with them, not by a search each."""
    found = {m.start() for m in _AUTOLINK.finditer(text)  # an autolink is taken as it is written
             if _SCRIPT_URL.match(text[m.start() + 1:m.end() + 40].lower())
             and the_code().end_around(m.start()) is None}
    search, at = _TAG.search, 0
    spans: list[tuple[int, int]] | None = None
    i = count = 0
    while (m := search(text, at)) is not None:
        tag = m.group()
        # a tag holding the start of a run of backticks or of a fence may run past code it is
        # in, and one that acts must not be in code: either is looked for in the code
        acts = None if "`" in tag or "~" in tag else _acting(m)
        if acts is not False:
            start = m.start()
            if spans is None:
                spans = the_code().spans
                count = len(spans)
            while i < count and spans[i][1] <= start:
                i += 1
            if i < count and spans[i][0] <= start:
                at = spans[i][1]  # shown as code: go on after the code
                continue
        at = m.end()  # never the tag's start: a tag holds at least its ``<`` and a letter
        if acts or (acts is None and _acting(m)):
            found.add(m.start())
    return found


def _acting(m: re.Match[str]) -> bool:
    """Whether the tag ``_TAG`` matched acts, by its name or its attributes."""
    name = m.group(1).lower()
    return name in _ACT_ALONE or bool((name in _BY_ATTRIBUTES or _MAY_ACT.search(m.group(2)))
                                      and _any_acts(name, m.group(2)))


def _any_acts(tag: str, attributes: str) -> bool:
    """Whether any of the ATTRIBUTES of a TAG acts, or the tag by what they say together (names
    lowercased, values as written; a quote never closed is taken as opening the value that
    follows it)."""
    together: dict[str, str] = {}
    for m in _ATTRIBUTES.finditer(attributes):
        name, value, quoted = m.group(1).lower(), m.group(2), False
        if value and value[0] in "\"'":
            value, quoted = value[1:-1] if len(value) > 1 and value[-1] == value[0] else value[1:], True
        if _acts(tag, name, value, quoted):
            return True
        if tag in _BY_ATTRIBUTES and value is not None:
            together.setdefault(name, html.unescape(value).strip())
    return bool(together) and _tag_acts(tag, together)


def _tag_acts(tag: str, attributes: dict[str, str]) -> bool:
    """Whether a ``<base>`` or a ``<meta>`` acts by its ATTRIBUTES (names lowercased, values
    decoded): a base with an address moves every relative link and image of the page; a meta
    refresh that names an address sends the reader there unasked (see :func:`_refresh_url`)."""
    if tag == "base":
        return bool(attributes.get("href"))
    if tag == "link":
        return bool({"stylesheet", "import"} & set(attributes.get("rel", "").lower().split()))
    return (attributes.get("http-equiv", "").lower() == "refresh"
            and bool(_refresh_url(attributes.get("content", ""))))


def _refresh_url(content: str) -> str:
    """The address a meta refresh's CONTENT (``0; url='...'``) sends the reader to, read as a
    browser reads it: the delay, a ``;`` or ``,``, ``url =`` and one opening quote skipped."""
    rest = content.lstrip(" \t\n\r\f0123456789.")
    rest = (rest[1:] if rest[:1] in (";", ",") else rest).lstrip()
    if rest[:3].lower() == "url" and (after := rest[3:].lstrip())[:1] == "=":
        rest = after[1:].lstrip()
    return (rest[1:] if rest[:1] in ("'", '"') else rest).strip()


def _acts(tag: str, name: str, value: str | None, quoted: bool) -> bool:
    """Whether an attribute runs code or leaks: an event handler with a value, a script URL in
    anything but a text attribute, a placeholder in a URL the browser fetches. A value in
    braces without quotes is JSX (``onClick={() => close(id)}``, ``src={logo}``), source code a
    session read or wrote, and is judged as a browser would run it (see :func:`_jsx_runs`)."""
    if value is None:
        return False
    jsx = not quoted and value.startswith("{")
    if _HANDLER.fullmatch(name):
        return bool(value.strip()) and (not jsx or _jsx_runs(value))
    if name not in _TEXT_ATTRIBUTES and is_script_url(value):
        return True
    if name == "style" and not jsx:
        return css_acts(html.unescape(value))
    fetched = name in _FETCHED or (name == "href" and tag in _FETCHED_HREF)
    return fetched and not jsx and asks_for_data(value.strip().split(None, 1)[0] if value.strip() else "")


def _jsx_runs(value: str) -> bool:
    """Whether a handler written as JSX would run something in a browser. HTML ends a value
    without quotes at a space or a ``>``: ``{() => close(id)}`` arrives as ``{()``, a syntax
    error that runs nothing; ``{handleClick}`` or ``{props.onClose}`` only names a function.
    Anything else in braces (``{alert(1)}``) is a statement the browser runs."""
    return value.endswith("}") and not _JSX_REFERENCE.fullmatch(value)


def css_acts(css: str) -> bool:
    """Whether CSS, read as a browser reads it, fetches a script URL or an address that asks for
    data (``background:url(https://...{SECRET})``), or runs code."""
    read = _CSS_ESCAPE.sub(_css_character, _without_comments(css))
    if _CSS_RUNS.search(read):
        return True
    urls = [next((g for g in m.groups() if g), "") for m in _CSS_URL.finditer(read)]
    done = 0  # where the last image-set's arguments ended: one inside it was read with it
    for m in _CSS_IMAGE_SET.finditer(read):
        if m.start() >= done:
            done = _image_set_strings(read, m.end(), urls)
    return any(is_script_url(url) or asks_for_data(url) for url in urls)


def _image_set_strings(css: str, start: int, found: list[str]) -> int:
    """Add the strings among an ``image-set(`` 's arguments (from ``start``, just after its
    parenthesis, to the one closing it) to ``found``: each an address the browser may fetch,
    whichever resolution it picks. Where the arguments end (the end of ``css`` when nothing
    closes them)."""
    depth = 1
    for m in _CSS_ARGUMENT.finditer(css, start):
        if m.group(0) == "(":
            depth += 1
        elif m.group(0) == ")":
            depth -= 1
            if not depth:
                end: int = m.end()
                return end
        else:
            found.append(m.group(1) if m.group(1) is not None else m.group(2))
    return len(css)


def _without_comments(css: str) -> str:
    kept, at = [], 0
    while (start := css.find("/*", at)) >= 0:
        kept.append(css[at:start])
        end = css.find("*/", start + 2)
        if end < 0:
            return "".join(kept)
        at = end + 2
    kept.append(css[at:])
    return "".join(kept)


def _css_character(escape: re.Match[str]) -> str:
    if escape.group(1) is None:
        return escape.group(2)
    code = int(escape.group(1), 16)
    return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"


def is_script_url(url: str) -> bool:
    """Whether URL, as a browser reads it (references decoded, tabs and line breaks dropped,
    leading spaces and controls skipped, any case), runs script."""
    if not url:
        return False
    read = html.unescape(url).translate(_LINE_BREAKS).lstrip(_LEADING).lower()
    return _SCRIPT_URL.match(read) is not None


def asks_for_data(url: str) -> bool:
    """Whether URL holds a placeholder for something to be filled in (``{...}``, ``$NAME``,
    ``<...>``, ``%s``), written plainly, as references or percent-encoded."""
    return bool(url) and _PLACEHOLDER.search(unquote(html.unescape(url)).lower()) is not None


__all__ = ["active_markup_count", "asks_for_data", "css_acts", "is_script_url", "link_label"]
