"""Home folders in absolute paths: the user's name goes, the rest of the path stays.

``/home/alice/src`` and ``/Users/alice/src`` become ``~/src``, ``C:\\Users\\alice\\proj`` becomes
``~\\proj`` (kind ``home-path``, redacted). So do the other common layouts: ``/usr/home/alice``
(FreeBSD), ``/export/home/alice`` (Solaris, NFS), ``/var/home/alice`` (Fedora Silverblue and
other image-based systems), ``/home2/alice`` and its numbered kin (shared hosting), and
``/root``, the superuser's home, whole. A home elsewhere (``/var/lib/jenkins``, a service's) has
no layout to know it by: a scanner told of it (``own_home_hits``, the capture's scanner of the
capturing user's home, ``own_homes``) redacts it as ``~`` too. Project-relative paths
(``src/home/user.py``, ``./home/x``, ``~/already/relative``) are left alone: they name no one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

from gitstore.safety import lazy
from gitstore.safety.spans import Hit, Text, starts_word

_HOME_POSIX = lazy.Pattern(
    r"/(?:(?:Users|home\d{0,3}|usr/home|export/home|var/home)/[A-Za-z0-9._-]{1,64}|root)(?![A-Za-z0-9._-])"
)
_HOME_WINDOWS = lazy.Pattern(
    r":(?P<sep>\\\\|\\|/)(?:users|documents and settings)(?P=sep)[^\\/\s\"'<>|:*?]{1,64}"
    r"(?![^\\/\s\"'<>|:*?])"
)
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def home_hits(text: Text) -> Iterator[Hit]:
    """Absolute home paths: the user part becomes ``~``, the rest of the path stays."""
    raw = text.raw
    for m in _HOME_POSIX.finditer(raw):
        i = m.start()
        if _starts_path(raw, i):
            yield Hit(i, m.end(), "home-path", 5, replacement="~")
    for m in _HOME_WINDOWS.finditer(text.low):
        i = m.start() - 1
        if i >= 0 and raw[i].isascii() and raw[i].isalpha() and starts_word(raw, i):
            yield Hit(i, m.end(), "home-path", 5, replacement="~")


def own_home_hits(raw: str, homes: Sequence[str]) -> Iterator[Hit]:
    """Each of HOMES (absolute paths, see ``own_homes``) in RAW where a path starts and a name
    ends, wherever the home lies: it becomes ``~``, the rest of the path stays."""
    for home in homes:
        at = raw.find(home)
        while at >= 0:
            end = at + len(home)
            if (end == len(raw) or raw[end] not in _NAME_CHARS) and _starts_path(raw, at):
                yield Hit(at, end, "home-path", 5, replacement="~")
            at = raw.find(home, at + 1)


def _starts_path(raw: str, i: int) -> bool:
    """Whether an absolute path starts at I: no word, name or path goes on into it, but for a
    URL's ``//`` (``file:///home/alice``)."""
    return starts_word(raw, i, ".~/-") or raw[i - 2 : i] == "//"


_OWN: dict[str | None, tuple[str, ...]] = {}


def own_homes() -> tuple[str, ...]:
    """This user's home folder (``Path.home()``, which ``$HOME`` sets) as written and resolved,
    each once, for a scanner to redact wherever it lies (``own_home_hits``). None where it
    cannot be found, nor one of fewer than two folders below the root (``/``, ``/tmp``, ``/root``,
    which the home layouts cover): redacting it would take every path of the machine with it."""
    key = os.environ.get("HOME")
    if key not in _OWN:
        from pathlib import Path

        found: list[str] = []
        try:
            home = Path.home()
            for path in (home, home.resolve()):
                if path.is_absolute() and len(path.parts) >= 3 and str(path) not in found:
                    found.append(str(path))
        except (RuntimeError, KeyError, OSError):  # no home to be found, a loop of links
            pass
        _OWN[key] = tuple(found)
    return _OWN[key]


__all__ = ["home_hits", "own_home_hits", "own_homes"]
