"""Giving the C heap's free pages back to the system once a read lets go of a big structure.

Python keeps objects bigger than 512 bytes (the tables of big dicts and sets, long strings) in
the C library's heap. Freed, they leave holes there that glibc keeps resident until something
of a fitting size fills them, or for good: the smaller objects a read goes on to make are kept
in Python's own arenas, not in those holes. Judging the learnings in force on a store of
159,000 records lets go of the graph of every event of the cited episodes (the tables of some
65,000 ids and digests) before it reads their records again and their payloads: unless the
pages are given back then, the peak holds both.

``give_back()`` asks glibc to return every whole free page of its heap (``malloc_trim``), which
costs a pass over its free lists (a millisecond or two); it does nothing on another C library.
"""

from __future__ import annotations

import functools
from collections.abc import Callable


def give_back() -> None:
    """Return the C heap's free pages to the system, where the C library can (glibc)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, looked up once; None where the C library has none."""
    try:
        import ctypes

        return ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):  # not glibc (macOS, musl, Windows): nothing to ask
        return None
