"""Text printed for a person is shown to them, never obeyed by their terminal.

What gitstore prints may quote memory (a record fetched from another clone, which no capture
screened), a file's name or a line of it. An escape sequence there could conceal what a reviewer
reads (``ESC[8m``), rewrite a line, or set their clipboard (``ESC]52``). So each C0 control
character but tab and newline is printed as its Unicode picture (``U+2400`` on: ESC as ``␛``);
a CR that ends a line goes with it. JSON escapes every one of them, so it never changes.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs a pre-commit gate's start-up milliseconds
if TYPE_CHECKING:
    from typing import Any

PICTURES = {code: 0x2400 + code for code in range(0x20) if code not in (0x09, 0x0A)}
_compiled: list[Any] = []


def shown(text: str) -> str:
    """``text`` with its control characters as their pictures (itself when it has none)."""
    if not _controls().search(text):
        return text
    return text.replace("\r\n", "\n").translate(PICTURES)


def _controls() -> Any:
    """The pattern of a character ``shown`` pictures, compiled once: a search runs in C, and a
    listing of a big store prints megabytes."""
    if not _compiled:
        import re

        _compiled.append(re.compile("[\\x00-\\x08\\x0b-\\x1f]"))
    return _compiled[0]


__all__ = ["PICTURES", "shown"]
