"""Text printed for a person is shown to them, never obeyed by their terminal.

What gitstore prints may quote memory (a record fetched from another clone, which no capture
screened), a file's name or a line of it. An escape sequence there could conceal what a reviewer
reads (``ESC[8m``), rewrite a line, or set their clipboard (``ESC]52``). So each C0 control
character but tab and newline is printed as its Unicode picture (``U+2400`` on: ESC as ``␛``),
and DEL as ``␡``; a CR that ends a line goes with it. A C1 control (U+0080 to U+009F: U+009B is
a CSI to terminals that read them) and a bidirectional embedding, override or isolate (U+202A to
U+202E, U+2066 to U+2069), which would show a reviewer the words of a line in another order than
the one they are stored in, are printed as their code (``<U+202E>``). JSON output holds every
one of them escaped (``\\u202e``: :func:`json_escaped`), so what programs read never changes.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs a pre-commit gate's start-up milliseconds
if TYPE_CHECKING:
    from typing import Any

PICTURES: dict[int, int | str] = {code: 0x2400 + code for code in range(0x20) if code not in (0x09, 0x0A)}
PICTURES[0x7F] = 0x2421
PICTURES.update({code: f"<U+{code:04X}>" for code in (*range(0x80, 0xA0), 0x061C, 0x200E, 0x200F,
                                                      *range(0x202A, 0x202F), *range(0x2066, 0x206A))})
_compiled: list[Any] = []


def shown(text: str) -> str:
    """``text`` with its control characters as their pictures (itself when it has none)."""
    if not _controls().search(text):
        return text
    return text.replace("\r\n", "\n").translate(PICTURES)


_BREAKS = str.maketrans({"\n": "\u2424", "\r": "\u2424", "\u2028": "\u2424", "\u2029": "\u2424",
                         "\x85": "\u2424", "\x0b": "\u2424", "\x0c": "\u2424"})


def one_line(text: str) -> str:
    """``text`` for a field a listing prints on one line: each line break as ``␤``, so stored
    text (a title, a note, a reason) can never print a row of its own in a listing."""
    return text.translate(_BREAKS)


_PLAIN = frozenset(map(chr, range(0x21, 0x7F))) - {"\\"}  # printable ASCII but space and backslash
KEEP = 24  # characters of a name that is not plain kept, escaped, before its hash
_HASHED = 8  # hex digits of that hash: ``...#`` and these follow what is kept


def bounded(name: str, keep: int = KEEP, whole: int | None = None) -> str:
    """A name someone else chose (a ref's last part, a writer id read from refs) for one line
    of output: itself when it is plain ASCII no longer than its cut form would be (or than
    ``whole``, when given); else each other character escaped (a no-break space that looks
    like a space as ``\\u00a0``), cut to ``keep`` characters and told apart by the hash of the
    whole. So whoever could push cannot make a name read as a sentence, nor as long as they
    like."""
    if len(name) <= (keep + 4 + _HASHED if whole is None else whole) and _PLAIN.issuperset(name):
        return name
    escaped = [c if c in _PLAIN else f"\\u{ord(c):04x}" for c in name]
    if sum(map(len, escaped)) <= keep:
        return "".join(escaped)
    import hashlib
    from itertools import accumulate

    kept = sum(1 for length in accumulate(map(len, escaped)) if length <= keep)  # whole escapes only
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{''.join(escaped[:kept])}...#{digest[:_HASHED]}"


_INVISIBLE_CATEGORIES = frozenset(("Cc", "Cf", "Cn", "Co", "Cs", "Zl", "Zp", "Zs"))
_BLANK_LETTERS = frozenset((0x034F, 0x115F, 0x1160, 0x2800, 0x3164, 0xFFA0))  # fillers and a blank, drawn as nothing


def visible(text: str) -> str:
    """``text`` with each character a reader cannot see, or would take for another, written as
    its code (``<U+200B>``): a control, a format character (a zero-width space or joiner, a
    bidirectional mark, a soft hyphen, a byte order mark, a tag character), a space other than
    the ASCII one, a line or paragraph separator, a private-use or unassigned code point, a
    variation selector, a Hangul filler; a byte that is not UTF-8 (a name read with
    ``surrogateescape``) as ``\\xNN``. So a file's name printed in a finding is the name git
    holds, each character of it seen. Plain ASCII is itself (its C0 controls are ``shown``'s)."""
    if text.isascii():
        return text
    import unicodedata

    out = []
    for char in text:
        code = ord(char)
        if code < 0x80:
            out.append(char)
        elif 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif (unicodedata.category(char) in _INVISIBLE_CATEGORIES or code in _BLANK_LETTERS
              or 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF or 0x180B <= code <= 0x180F):
            out.append(f"<U+{code:04X}>")
        else:
            out.append(char)
    return "".join(out)


def json_escaped(text: str) -> str:
    """JSON text with each character ``shown`` would change escaped as ``\\uXXXX``: the same
    values to a program, and nothing for a terminal to obey (encoders escape C0 controls only)."""
    if not _controls().search(text):
        return text
    escaped: str = _controls().sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return escaped


def _controls() -> Any:
    """The pattern of a character ``shown`` pictures, compiled once: a search runs in C, and a
    listing of a big store prints megabytes."""
    if not _compiled:
        import re

        _compiled.append(re.compile("[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]"))
    return _compiled[0]


__all__ = ["KEEP", "PICTURES", "bounded", "json_escaped", "one_line", "shown", "visible"]
