"""Home folders in absolute paths: the user's name goes, the rest of the path stays.

``/home/alice/src`` and ``/Users/alice/src`` become ``~/src``, ``C:\\Users\\alice\\proj`` becomes
``~\\proj`` (kind ``home-path``, redacted). Project-relative paths (``src/home/user.py``,
``./home/x``, ``~/already/relative``) are left alone: they name no one.
"""

from __future__ import annotations

from collections.abc import Iterator

from gitstore.safety import lazy
from gitstore.safety.spans import Hit, Text, starts_word

_HOME_POSIX = lazy.Pattern(r"/(?:Users|home)/[A-Za-z0-9._-]{1,64}(?![A-Za-z0-9._-])")
_HOME_WINDOWS = lazy.Pattern(
    r":(?P<sep>\\\\|\\|/)(?:users|documents and settings)(?P=sep)[^\\/\s\"'<>|:*?]{1,64}"
    r"(?![^\\/\s\"'<>|:*?])"
)


def home_hits(text: Text) -> Iterator[Hit]:
    """Absolute home paths: the user part becomes ``~``, the rest of the path stays."""
    raw = text.raw
    for m in _HOME_POSIX.finditer(raw):
        i = m.start()
        if starts_word(raw, i, ".~/-") or raw[i - 2 : i] == "//":
            yield Hit(i, m.end(), "home-path", 5, replacement="~")
    for m in _HOME_WINDOWS.finditer(text.low):
        i = m.start() - 1
        if i >= 0 and raw[i].isascii() and raw[i].isalpha() and starts_word(raw, i):
            yield Hit(i, m.end(), "home-path", 5, replacement="~")


__all__ = ["home_hits"]
