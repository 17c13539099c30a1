"""The strings of a file's YAML front matter as a YAML reader decodes them, where they differ
from what the file says verbatim.

A skill loader or ``gitstore wiki index`` hands an agent a ``SKILL.md``'s description or a
page's title as YAML reads them, not as their bytes spell them: ``"ign\\x6Fre all previous
instructions"``, ``"\\u202E"``, a token split by a ``\\`` line break in a double-quoted string,
a folded (``>``) or multi-line scalar whose lines are joined into one sentence each reach the
reader as text the file does not hold. The scanner, reading the file, sees only its bytes;
:func:`decoded_strings` gives it the decoded text too, with the line it starts on.

Front matter is the text between a first line of three or more dashes (``---``) and the next
such line (or ``...``), after a byte order mark if the file has one (readers strip it): YAML.
Readers such as python-frontmatter also take TOML between ``+++`` lines and a JSON object
between a first line ``{`` and the next line ``{`` or ``}``; these are decoded with the
standard library's ``tomllib`` and ``json`` when they hold a backslash (else every string reads
as written), and each of their strings is given with the lines of the whole block (they have
no source positions), for the scan to judge what the block's own lines do not already show.
Most front matter is written verbatim (``key: value`` lines, quoted values without a backslash,
one-line flow lists), and then nothing is parsed: YAML is loaded only when a line is not of
that kind (a backslash, a doubled quote in a single-quoted string, a tag, a block scalar, a
line continuing a scalar, a line break YAML knows and Python's lines do not), so a wiki of a
thousand plain pages costs a line-by-line match and no YAML at all. A front matter YAML cannot
read yields nothing: no reader decodes it either, and the gates that read it refuse it. One
that only nests deeper than the reader here goes (libyaml stops at 1,000 levels, Python's JSON
and TOML readers at their recursion limit; other readers, a rule file's among them, take it
whole) raises :class:`TooDeep` where it has strings to decode: they cannot be judged as they
are decoded, and the scan gate refuses it.

:func:`document_strings` does the same for a whole JSON, YAML or TOML file, as its loader reads
it whatever its layout: JSON strings with the line each is written on (the string tokens, in
order, are the parsed strings in order), YAML's every document with its nodes' lines, TOML's
with the lines of the string in the text that decodes to it (``tomllib`` keeps no positions);
a file that does not parse raises
:class:`NotParsed`, naming the line.
"""

from __future__ import annotations

import re

from gitstore.safety import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_CLOSING = lazy.Pattern(r"^(?:-{3,}|\.\.\.)[ \t\r\f\v]*$", re.M)
_OPENING = lazy.Pattern(r"-{3,}[ \t\r\f\v]*")
_TOML_FENCE = lazy.Pattern(r"^\+{3,}[ \t\r\f\v]*$", re.M)
_JSON_FENCE = lazy.Pattern(r"^[{}]\r?$", re.M)
# a line of front matter whose strings read as written: list markers, then `key:` and a value,
# or a list item's value (the value's kinds: _VERBATIM)
_ENTRY = lazy.Pattern(
    r"(?P<dashes>(?:-(?: +|$))*)"
    r"(?:(?P<key>[^\s#'\"\\:!&*|>{}\[\],%@`?-][^:\\]*|\"[^\"\\]*\"|'[^']*'):(?: +(?P<value>.*))?|(?P<item>.+))?")
# a value YAML reads as it is written: double-quoted with no escape, single-quoted with no doubled
# quote, plain with no backslash (nor an indicator that makes it a tag, an anchor or alias, a block
# scalar, a quoted or flow value), or a one-line flow list or mapping with no quote or backslash
# (nor a tag, an anchor or an alias: ``[!!binary ...]`` is decoded);
# then a comment, if any
_VERBATIM = lazy.Pattern(
    r"(?:\"[^\"\\]*\"|'[^']*'|[^\s!&*|>'\"%@`#{}\[\],\\?:-][^\\]*|[\[{][^\"'\\!&*]*[\]}])(?: +#.*)?")
# the same, for the most common front matter at once: a whole block of such lines, list markers
# written "- ", where no line after one holding a value is indented past the value's key or marker
_BLANK = r"(?:[ \t]*(?:#[^\n]*)?\n)"
_KEY = r"(?:[^\s#'\"\\:!&*|>{}\[\],%@`?-][^:\\\n]*|\"[^\"\\\n]*\"|'[^'\n]*')"
_VALUE = (r"(?:(?:\"[^\"\\\n]*\"|'[^'\n]*')(?: +#[^\n]*)?|[^\s!&*|>'\"%@`#{}\[\],\\?:-][^\\\n]*"
          r"|[\[{][^\"'\\\n\[\]{}!&*]*[\]}](?: +#[^\n]*)?)[ \t]*\n")
_PLAIN_BLOCK = lazy.Pattern(
    rf"(?:(?P<i> *){_KEY}: +{_VALUE}(?!{_BLANK}*(?P=i) )|(?P<j> *)- {_KEY}: +{_VALUE}(?!{_BLANK}*(?P=j)   )"
    rf"|(?P<k> *)- {_VALUE}(?!{_BLANK}*(?P=k) )| *(?:- )?{_KEY}:[ \t]*\n| *-[ \t]*\n|{_BLANK})*")
_ODD_BREAKS = ("\r", "\x85", "\u2028", "\u2029")  # line breaks to YAML that are none to str.split("\n")


def front_matter(text: str) -> tuple[int, str] | None:
    """(the 0-based line after the opening ``---``, the text up to the closing line) of the
    YAML front matter TEXT starts with (after a byte order mark), or None when it has none."""
    text = text.removeprefix("\ufeff")
    if not text.startswith("---"):
        return None
    first = text.find("\n")
    if first < 0 or not _OPENING.fullmatch(text[:first]):
        return None
    closing = _CLOSING.search(text, first + 1)
    return None if closing is None else (1, text[first + 1:closing.start()])


def verbatim(block: str) -> bool:
    """Whether every string of the front matter BLOCK reads as it is written (the module's
    documentation): then YAML need not be loaded to know what a reader gets."""
    if "\r" in block:
        block = block.replace("\r\n", "\n")
    if any(mark in block for mark in _ODD_BREAKS):
        return False
    if _PLAIN_BLOCK.fullmatch(block if block.endswith("\n") or not block else block + "\n"):
        return True
    owner = -1  # a line indented past this continues the scalar of the line before
    for line in block.split("\n"):
        body = line.lstrip(" ")
        if not body.strip() or body.startswith("#"):
            continue
        indent = len(line) - len(body)
        if 0 <= owner < indent:
            return False
        match = _ENTRY.fullmatch(body.rstrip())
        if match is None:
            return False
        dashes, value = match["dashes"], match["value"] or match["item"]
        if match["item"] is not None and not dashes:
            return False  # a bare value: a scalar's next line
        if value is not None:
            if not _VERBATIM.fullmatch(value) or (value[0] in "[{" and not _balanced(value)):
                return False
            owner = indent + (len(dashes) if match["key"] is not None else dashes.rstrip().rfind("-"))
        else:
            owner = -1
    return True


def _balanced(flow: str) -> bool:
    return flow.count("[") + flow.count("{") == flow.count("]") + flow.count("}")


def decoded_strings(text: str) -> list[tuple[int, int, str, str]]:
    """(1-based lines of the file it is written on, first and last; where in the front matter;
    its decoded text) for each string
    (key or value) of TEXT's front matter whose decoded text is not written verbatim on its
    lines; empty when TEXT has no front matter, when it is all verbatim (:func:`verbatim`), or
    when YAML cannot read it. Raises :class:`TooDeep` when YAML's reader here cannot go as deep
    as it nests."""
    found = front_matter(text)
    if found is None:
        return _other_strings(text)
    if verbatim(found[1]):
        return []
    offset, block = found
    return _yaml_strings(block, offset) or []


def _yaml_strings(block: str, offset: int, *, whole: bool = False) -> list[tuple[int, int, str, str]] | None:
    """:func:`decoded_strings` for the YAML text BLOCK, its first line the file's line OFFSET + 1:
    its first document (front matter) or, WHOLE, every document of it; None when YAML cannot
    read it; :class:`TooDeep` when it nests deeper than the reader here goes."""
    import yaml  # type: ignore[import-untyped,unused-ignore]  # only front matter YAML transforms pays for it

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        nodes = list(yaml.compose_all(block, Loader=loader)) if whole else [yaml.compose(block, Loader=loader)]
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        if isinstance(exc, RecursionError) or "maximum nesting depth" in str(exc):
            mark = getattr(exc, "problem_mark", None)
            raise TooDeep(offset + 1 + (mark.line if mark else 0),
                          "nested deeper than the scan reads YAML (libyaml's 1,000 levels)") from None
        return None
    strings: list[tuple[int, int, str, str]] = []
    # which document a string is in, when there are several (an empty one after a closing ``---`` is none)
    named = sum(node is not None and not (isinstance(node, yaml.ScalarNode) and not node.value)
                for node in nodes) > 1
    stack: list[tuple[Any, str]] = [(node, f"(document {n}) " if named else "")
                                    for n, node in reversed(list(enumerate(nodes, start=1))) if node is not None]
    seen: set[int] = set()
    while stack:
        item, where = stack.pop()
        if id(item) in seen:  # an alias is its anchor's node again
            continue
        seen.add(id(item))
        if isinstance(item, yaml.ScalarNode):
            value = _text_of(item)
            first, last = item.start_mark.line, item.end_mark.line
            # the scalar's own source (quotes included, no comment beside it): a comment on its
            # line saying the same words is no string a reader gets, and proves nothing
            if value and value not in block[item.start_mark.index:item.end_mark.index]:
                strings.append((offset + first + 1, offset + last + 1, where.strip() or "(top)", value))
        elif isinstance(item, yaml.SequenceNode):
            stack.extend((child, f"{where}[{n}]") for n, child in reversed(list(enumerate(item.value))))
        elif isinstance(item, yaml.MappingNode):
            for key, child in reversed(item.value):
                name = key.value if isinstance(key, yaml.ScalarNode) else "?"
                path = f"{where}.{name}" if where and not where.endswith(" ") else f"{where}{name}"
                stack.append((child, path))
                stack.append((key, f"{path} (key)"))
    strings.sort(key=lambda row: row[:2])
    return strings


def _other_strings(text: str) -> list[tuple[int, int, str, str]]:
    """:func:`decoded_strings` for TOML (``+++``) or JSON (``{``) front matter: each string
    (key or value) of a block that holds a backslash whose decoded text is not what its source
    says, with the lines it is written on (as :func:`document_strings` finds them)."""
    text = text.removeprefix("\ufeff")
    toml = text.startswith("+++")
    if not toml and not text.startswith("{"):
        return []
    first = text.find("\n")
    if first < 0 or not (_TOML_FENCE if toml else _JSON_FENCE).fullmatch(text[:first]):
        return []
    closing = (_TOML_FENCE if toml else _JSON_FENCE).search(text, first + 1)
    if closing is None:
        return []
    block = text[first + 1:closing.start()]
    if "\\" not in block:  # no escape: every string reads as written
        return []
    try:
        found = _toml_lines(block, _walk(_toml(block))) if toml else _json_document("{" + block + "}")
    except TooDeep:
        raise
    except RecursionError:  # the block holds a backslash: strings a reader that goes deeper decodes
        raise TooDeep(2, "nested deeper than the scan reads TOML") from None  # the block's first line
    except ValueError:
        return []  # no reader decodes it
    return [(start + 1, end + 1, where, value) for start, end, where, value in found]


class NotParsed(ValueError):
    """The text is no document of the kind its name says (:func:`document_strings`): the line
    the reader stopped at and why."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line


class TooDeep(NotParsed):
    """YAML nested deeper than the reader here goes, which other readers may take whole: what
    they decode of its strings cannot be judged."""


DOCUMENTS = {".json": "JSON", ".yaml": "YAML", ".yml": "YAML", ".toml": "TOML"}  # a file's extension, in any case
_JSON_STRING = lazy.Pattern(r'"(?:[^"\\]|\\.)*"', re.S)


def document_kind(path: str) -> str | None:
    """"JSON", "YAML" or "TOML" when PATH's extension says the file is such a document, else None."""
    dot = path.rfind(".")
    return DOCUMENTS.get(path[dot:].lower()) if dot > path.rfind("/") else None


def document_strings(text: str, kind: str) -> list[tuple[int, int, str, str]]:
    """:func:`decoded_strings` for TEXT read whole as a KIND document (``document_kind``), as its
    loader reads it whatever its layout (one line, a brace at a line's start, YAML with or
    without ``---`` lines, several YAML documents): each string (key or value) whose decoded
    text is not what its source says, with its lines (a JSON, YAML or TOML string's own: TOML's
    found in the text, ``tomllib`` keeping no positions) and its key path.
    Raises :class:`NotParsed` when TEXT is no such document."""
    text = text.removeprefix("\ufeff")  # readers that take a byte order mark strip it
    if kind == "JSON":
        return _json_document(text)
    if kind == "YAML":
        if verbatim(text):  # every string reads as written: nothing to decode, no YAML to load
            return []
        found = _yaml_strings(text, 0, whole=True)
        if found is None:
            import yaml  # type: ignore[import-untyped,unused-ignore]

            try:
                list(yaml.compose_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
            except yaml.MarkedYAMLError as exc:
                mark = exc.problem_mark or exc.context_mark
                raise NotParsed(1 + (mark.line if mark else 0), str(exc).split("\n", 1)[0]) from None
            except (yaml.YAMLError, ValueError, RecursionError) as exc:
                raise NotParsed(1, str(exc).split("\n", 1)[0] or type(exc).__name__) from None
            raise NotParsed(1, "YAML cannot read it")
        return found
    try:
        data = _toml(text)
    except RecursionError:
        if "\\" in text:  # strings a reader that goes deeper decodes
            raise TooDeep(1, "nested deeper than the scan reads TOML") from None
        raise NotParsed(1, "nested too deeply to read") from None
    except ValueError as exc:
        raise NotParsed(getattr(exc, "lineno", None) or 1, str(exc) or type(exc).__name__) from None
    if "\\" not in text:  # no escape: every string reads as written
        return []
    return _toml_lines(text, _walk(data))


# a TOML comment, or a string: multi-line basic (up to two quotes before its closing three),
# multi-line literal, basic, literal; in the file's order, so a quote in a comment opens nothing
_TOML_TOKEN = lazy.Pattern(r'#[^\n]*|"""(?:[^"\\]|\\.|"(?!""))*"""(?:"{1,2}(?!"))?'
                           r"|'''(?:[^']|'(?!''))*'''(?:'{1,2}(?!'))?"
                           r'|"(?:[^"\\\n]|\\.)*"' r"|'[^'\n]*'", re.S)


def _toml_lines(text: str, strings: list[tuple[str, str]]) -> list[tuple[int, int, str, str]]:
    """Each of STRINGS (key path, decoded string) of TEXT, a TOML document, that is not what
    its source says, with the lines it is written on: ``tomllib`` keeps no positions, so the
    file's basic strings holding an escape are found in its text and decoded one by one, and
    a decoded string takes the first such string's lines that decodes to it (keys and values
    alike, in any table order). A string none decodes to, which its text does not hold
    verbatim either, keeps the whole file's lines: never passed over."""
    import tomllib

    from collections import deque

    escaped: dict[str, deque[tuple[int, int]]] = {}
    counted, line = 0, 1  # the lines before position COUNTED, counted once over the file
    for match in _TOML_TOKEN.finditer(text):
        token = match.group()
        if not token.startswith('"') or "\\" not in token:
            continue
        try:
            decoded = tomllib.loads(f"v = {token}")["v"]
        except (ValueError, KeyError):
            continue
        line += text.count("\n", counted, match.start())
        counted = match.start()
        first = line
        escaped.setdefault(decoded, deque()).append((first, first + token.count("\n")))
    last = max(1, text.count("\n") + (not text.endswith("\n")))
    found = []
    for where, value in strings:
        places = escaped.get(value)
        if places:
            first, end = places.popleft() if len(places) > 1 else places[0]
            found.append((first, end, where, value))
        elif value not in text:
            found.append((1, last, where, value))
    return found


class _Pairs(list):  # type: ignore[type-arg]
    """A JSON object's members in the file's order, a name written twice kept twice."""


def _json_document(text: str) -> list[tuple[int, int, str, str]]:
    import json

    try:
        data = json.loads(text, object_pairs_hook=_Pairs)
    except json.JSONDecodeError as exc:
        raise NotParsed(exc.lineno, f"{exc.msg}: line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        if "\\" in text:  # strings a reader that goes deeper decodes
            raise TooDeep(1, "nested deeper than the scan reads JSON") from None
        raise NotParsed(1, "nested too deeply to read") from None
    except ValueError as exc:
        raise NotParsed(1, str(exc) or type(exc).__name__) from None
    if "\\" not in text:  # no escape: every string reads as written
        return []
    # a JSON string holds no quote unescaped, and nothing outside strings holds one: the string
    # tokens, in the file's order, are the strings of the walk below, in the same order
    tokens = [(match.start(), match.group()) for match in _JSON_STRING.finditer(text)]
    strings = list(_walk(data, ordered=True))
    if len(tokens) != len(strings):  # never, for text json reads; the whole file's lines then
        last = text.count("\n") + (not text.endswith("\n"))
        return [(1, max(1, last), where, value) for where, value in strings if value]
    found = []
    counted, line = 0, 1  # the lines before position COUNTED, counted once over the file
    for (start, token), (where, value) in zip(tokens, strings):
        if "\\" in token and value:
            line += text.count("\n", counted, start)
            counted = start
            found.append((line, line, where, value))
    return found


def _walk(data: Any, *, ordered: bool = False) -> list[tuple[str, str]]:
    """(key path, string) for each string (key or value) of DATA, a JSON or TOML document, in
    the order they are written (a JSON object's members read as :class:`_Pairs`); an empty one too
    when ORDERED (the positions of JSON's strings are counted)."""
    out: list[tuple[str, str]] = []
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if item or ordered:
                out.append((where or "(top)", item))
        elif isinstance(item, _Pairs) or isinstance(item, dict):
            members = list(item) if isinstance(item, _Pairs) else list(item.items())
            for key, child in reversed(members):
                path = f"{where}.{key}" if where else str(key)
                stack.append((child, path))
                stack.append((key, f"{path} (key)"))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{n}]") for n, child in reversed(list(enumerate(item))))
    return out


def _toml(block: str) -> Any:
    import tomllib

    return tomllib.loads(block)


def _text_of(node: Any) -> str:
    """A scalar's text as a reader gets it: its decoded value; a ``!!binary`` one's bytes read
    as UTF-8."""
    if node.tag == "tag:yaml.org,2002:binary":
        import base64
        import binascii

        try:
            return base64.decodebytes(node.value.encode("ascii", "replace")).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return str(node.value)
    return str(node.value)


__all__ = ["NotParsed", "TooDeep", "decoded_strings", "document_kind", "document_strings", "front_matter", "verbatim"]
