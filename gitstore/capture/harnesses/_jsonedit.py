"""Edit a JSON document as text, so that only the inserted or removed span changes.

Harness settings files are written by people and by the harnesses themselves, in their own
layout. Parsing and re-serialising would reflow them; instead this module parses with offsets
and splices text. An insertion is laid out like its neighbours (indentation, line breaks); removing
what was inserted gives back the original bytes. Comments (``//`` and ``/* */``) are skipped
when asked, for files whose harness reads them (JSON with comments); they are kept, never moved.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring
from typing import Any, NamedTuple

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
MAX_DEPTH = 128  # objects and arrays inside each other: a settings file nests a few; two frames of stack each
_INDENTED_LINE = re.compile(r"\n([ \t]+)\S")


class JsonEditError(ValueError):
    """The text is not a JSON document this module can edit."""


class Node(NamedTuple):
    """A JSON value and where it lies in the text: ``text[start:end]``."""

    start: int
    end: int
    value: Any
    members: list[Member] | None = None  # objects
    items: list[Node] | None = None  # arrays

    @property
    def entries(self) -> list[tuple[int, Node]]:
        """(start of the entry, its value) for each member or item, in order."""
        if self.members is not None:
            return [(m.start, m.node) for m in self.members]
        return [(n.start, n) for n in self.items or []]

    def member(self, key: str) -> Member | None:
        return next((m for m in self.members or [] if m.key == key), None)


class Member(NamedTuple):
    """One ``"key": value`` of an object; ``start`` is the key's opening quote."""

    key: str
    start: int
    node: Node


BOM = "\ufeff"
# the harnesses' own readers are not known to skip one, so the file is not taken as it is
BOM_REFUSED = "the file starts with a UTF-8 byte order mark (BOM), which gitstore does not read: save it without one"


def parse(text: str, *, comments: bool = False) -> Node:
    """Parse a whole document, refusing duplicate keys and trailing data."""
    parser = _Parser(text, comments)
    if text.startswith(BOM):
        raise parser.error(0, BOM_REFUSED)
    node = parser.value(parser.skip(0))
    end = parser.skip(node.end)
    if end != len(text):
        raise parser.error(end, "extra data after the document")
    return node


class _Parser:
    def __init__(self, text: str, comments: bool) -> None:
        self.text = text
        self.comments = comments
        self.depth = 0

    def error(self, pos: int, message: str) -> JsonEditError:
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return JsonEditError(f"line {line} column {column}: {message}")

    def skip(self, i: int) -> int:
        text = self.text
        while i < len(text):
            if text[i] in " \t\r\n":
                i += 1
            elif self.comments and text.startswith("//", i):
                j = text.find("\n", i)
                i = len(text) if j < 0 else j + 1
            elif self.comments and text.startswith("/*", i):
                j = text.find("*/", i + 2)
                if j < 0:
                    raise self.error(i, "unterminated comment")
                i = j + 2
            else:
                break
        return i

    def value(self, i: int) -> Node:
        if i >= len(self.text):
            raise self.error(i, "expected a value")
        char = self.text[i]
        if char in "{[":
            if self.depth >= MAX_DEPTH:
                raise self.error(i, f"nested more than {MAX_DEPTH} levels deep")
            self.depth += 1
            try:
                return self.object(i) if char == "{" else self.array(i)
            finally:
                self.depth -= 1
        if char == '"':
            value, end = self.string(i)
            return Node(i, end, value)
        for word, literal in _LITERALS.items():
            if self.text.startswith(word, i):
                return Node(i, i + len(word), literal)
        match = _NUMBER.match(self.text, i)
        if match:
            return Node(i, match.end(), json.loads(match.group()))
        raise self.error(i, "expected a value")

    def string(self, i: int) -> tuple[str, int]:
        try:
            return scanstring(self.text, i + 1, True)
        except json.JSONDecodeError as exc:
            raise self.error(exc.pos, exc.msg) from None

    def object(self, start: int) -> Node:
        members: list[Member] = []
        i = self.skip(start + 1)
        if self.text.startswith("}", i):
            return Node(start, i + 1, {}, members=members)
        while True:
            if not self.text.startswith('"', i):
                raise self.error(i, "expected a member name in double quotes")
            key, i_after = self.string(i)
            if any(m.key == key for m in members):
                raise self.error(i, f"duplicate member name {key!r}")
            colon = self.skip(i_after)
            if not self.text.startswith(":", colon):
                raise self.error(colon, "expected ':'")
            node = self.value(self.skip(colon + 1))
            members.append(Member(key, i, node))
            i = self.skip(node.end)
            if self.text.startswith("}", i):
                return Node(start, i + 1, {m.key: m.node.value for m in members}, members=members)
            if not self.text.startswith(",", i):
                raise self.error(i, "expected ',' or '}'")
            i = self.skip(i + 1)

    def array(self, start: int) -> Node:
        items: list[Node] = []
        i = self.skip(start + 1)
        if self.text.startswith("]", i):
            return Node(start, i + 1, [], items=items)
        while True:
            node = self.value(i)
            items.append(node)
            i = self.skip(node.end)
            if self.text.startswith("]", i):
                return Node(start, i + 1, [n.value for n in items], items=items)
            if not self.text.startswith(",", i):
                raise self.error(i, "expected ',' or ']'")
            i = self.skip(i + 1)


def newline_of(text: str) -> str:
    """The line ending the text already uses."""
    return "\r\n" if "\r\n" in text else "\n"


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    line = text[start:pos]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _starts_line(text: str, pos: int) -> bool:
    start = text.rfind("\n", 0, pos) + 1
    return not text[start:pos].strip(" \t")


def _indent_unit(text: str) -> str:
    match = _INDENTED_LINE.search(text)
    return match.group(1) if match else "  "


def _render(value: Any, unit: str, indent: str, nl: str, multiline: bool) -> str:
    if not multiline:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return json.dumps(value, ensure_ascii=False, indent=unit).replace("\n", nl + indent)


def append(text: str, root: Node, container: Node, value: Any, key: str | None = None) -> str:
    """Append an item (or, with ``key``, a member) at the end of ``container``."""
    nl = newline_of(text)
    unit = _indent_unit(text)
    multiline = "\n" in text[root.start:root.end]
    prefix = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
    entries = container.entries
    if entries:
        first_start, _ = entries[0]
        last = entries[-1][1]
        spans_lines = "\n" in text[container.start:container.end]
        if spans_lines and _starts_line(text, first_start):
            indent = _line_indent(text, first_start)
            joint = "," + nl + indent
        elif spans_lines:
            indent = _line_indent(text, container.start) + unit
            joint = "," + nl + indent
        else:
            indent, joint = "", ", "
        rendered = _render(value, unit, indent, nl, spans_lines)
        return text[: last.end] + joint + prefix + rendered + text[last.end :]
    close = container.end - 1
    inner = text[container.start + 1 : close]
    if not multiline:
        return text[: container.start + 1] + prefix + _render(value, unit, "", nl, False) + text[close:]
    outer = _line_indent(text, container.start)
    indent = outer + unit
    rendered = prefix + _render(value, unit, indent, nl, True)
    if inner.strip():  # only comments inside: put the entry first and keep them after it
        return text[: container.start + 1] + nl + indent + rendered + inner + text[close:]
    return text[: container.start + 1] + nl + indent + rendered + nl + outer + text[close:]


def remove(text: str, container: Node, index: int) -> str:
    """Remove entry ``index`` of ``container`` with the separator that joined it."""
    cut, end = _removed_span(text, container, index)
    return text[:cut] + text[end:]


def remove_all(text: str, container: Node, indices: list[int]) -> str:
    """Remove the entries ``indices`` of ``container``, each as ``remove`` would one after
    another, from one parse: each removal deletes one span, so the entries after it (and the
    container's end) move back by its length. Parsing the file again after each would cost its
    size for every entry removed (a settings file can hold thousands)."""
    for index in sorted(set(indices), reverse=True):
        cut, end = _removed_span(text, container, index)
        text = text[:cut] + text[end:]
        container = _shifted(container, index, end, end - cut)
    return text


def _removed_span(text: str, container: Node, index: int) -> tuple[int, int]:
    """The span ``remove`` deletes: the entry with the separator that joined it."""
    entries = container.entries
    start, node = entries[index]
    if len(entries) == 1:
        inner_start, inner_end = container.start + 1, container.end - 1
        if not (text[inner_start:start] + text[node.end : inner_end]).strip():
            return inner_start, inner_end
        if not text[inner_start:start].strip():  # comments follow it: keep them, drop its line
            return inner_start, node.end
        return start, node.end
    if index == len(entries) - 1:
        return entries[index - 1][1].end, node.end
    return start, entries[index + 1][0]


def _shifted(container: Node, index: int, after: int, by: int) -> Node:
    """``container`` without entry ``index``, once ``by`` characters ending at ``after`` were
    deleted: what lay from ``after`` on moves back (only the positions ``_removed_span`` reads)."""
    def at(pos: int) -> int:
        return pos - by if pos >= after else pos

    def moved(node: Node) -> Node:
        return node._replace(start=at(node.start), end=at(node.end))

    if container.members is not None:
        members = [m._replace(start=at(m.start), node=moved(m.node))
                   for i, m in enumerate(container.members) if i != index]
        return container._replace(end=at(container.end), members=members)
    items = [moved(n) for i, n in enumerate(container.items or []) if i != index]
    return container._replace(end=at(container.end), items=items)
