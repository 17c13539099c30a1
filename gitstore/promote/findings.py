"""What a gate, or promote before it writes, finds wrong with a file: one problem on one line."""

from __future__ import annotations

from collections import namedtuple

from gitstore._shown import one_line, shown, visible


class Finding(namedtuple("Finding", "path line message")):
    """One problem (a ``path``, a 1-based ``line``, a ``message``), printed as ``path:line: message``."""

    __slots__ = ()

    def __str__(self) -> str:
        # a file's name, a line of it or a record may hold escape sequences: shown, never obeyed;
        # a name may hold a line break: pictured, so that each finding stays one line; and
        # characters no one sees (a zero-width space, a bidirectional mark): written as codes
        return shown(f"{visible(one_line(self.path))}:{self.line}: {' '.join(visible(self.message).split())}")


def line_of(text: str, needle: str, default: int = 1) -> int:
    """The 1-based line where ``needle`` first occurs in ``text``."""
    at = text.find(needle) if needle else -1
    return text.count("\n", 0, at) + 1 if at >= 0 else default


__all__ = ["Finding", "line_of"]
