"""A marked block of TOML that gitstore owns inside someone else's file.

Python reads TOML (``tomllib``) but has no writer in the standard library, and a round-trip
through an editing library can still reflow a hand-kept file. So gitstore never rewrites the
file: it adds one block between two comment markers, at the top (for root keys, which must come
before the first table) or at the end (for tables), joined to the rest by exactly one newline.
Removing the block and that newline gives back the original bytes. Every result is parsed with
``tomllib`` before it is written, so a merge that would break the file is refused instead.
"""

from __future__ import annotations

from typing import Any

from gitstore.errors import InvalidInput


def markers(label: str) -> tuple[str, str]:
    return f"# >>> gitstore {label} >>>", f"# <<< gitstore {label} <<<"


def load(text: str) -> dict[str, Any]:
    import tomllib  # only where a Codex configuration is read: every capture checks for one

    from gitstore.capture.harnesses._jsonedit import BOM, BOM_REFUSED

    if text.startswith(BOM):
        raise InvalidInput(f"not valid TOML: {BOM_REFUSED}")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"not valid TOML: {exc}") from None
    except RecursionError:  # tomllib recurses once per array or inline table: a few hundred levels
        raise InvalidInput("not valid TOML: nested too deeply to read") from None


def find(text: str, label: str) -> tuple[int, int] | None:
    """Start and end (after the end marker's line break) of the block, or None."""
    begin, end = markers(label)
    start = _line_at(text, begin)
    if start is None:
        return None
    stop = _line_at(text, end, start)
    if stop is None:
        raise InvalidInput(f"the gitstore {label} block has a start marker but no end marker")
    line_end = text.find("\n", stop)
    return start, len(text) if line_end < 0 else line_end + 1


def _line_at(text: str, marker: str, start: int = 0) -> int | None:
    at = start
    while (at := text.find(marker, at)) >= 0:
        if at == 0 or text[at - 1] == "\n":
            return at
        at += 1
    return None


def render(label: str, body: list[str], nl: str) -> str:
    begin, end = markers(label)
    lines = [begin, "# Managed by `gitstore hooks install`; `gitstore hooks uninstall` removes it.", *body, end]
    return nl.join(lines) + nl


def put(text: str, label: str, block: str, *, top: bool) -> str:
    """The text with the block in place: replaced where it is, else added at the top or end."""
    span = find(text, label)
    if span is not None:
        return text[: span[0]] + block + text[span[1] :]
    nl = "\r\n" if "\r\n" in text else "\n"
    if not text:
        return block
    return block + nl + text if top else text + nl + block


def take(text: str, label: str, *, top: bool) -> str:
    """The text without the block and the one line break that joined it to the rest."""
    span = find(text, label)
    if span is None:
        return text
    start, stop = span
    if top:
        joint = 2 if text.startswith("\r\n", stop) else 1 if text.startswith("\n", stop) else 0
        return text[:start] + text[stop + joint :]
    joint = 2 if text[max(start - 2, 0) : start] == "\r\n" else 1 if start else 0
    return text[: start - joint] + text[stop:]
