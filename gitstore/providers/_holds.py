"""Which streams a big append may hold, remembered by its commit id, so a read of a few streams
skips the appends that hold none of them without loading their commits.

A bulk append's commit lists every record it stored, one line each (``_message``): a read of
one learning's stream searches every append's lines for that stream, and a store grown by bulk
pushes is mostly such lines (a commit of 100,000 records is 11 MB to load and inflate). A
commit never changes (its id is its bytes' hash), so the streams its lines name never change
either: a Bloom filter of them, and of the digests of its records of the kinds a decision's
authority rests on (learnings, grants, withdrawals, audit entries, whose copies are looked for
by digest; not events, which bulk imports store by the hundred thousand), with ``PROBES`` bits
set per name and ``BITS_PER_NAME`` bits per distinct name (about one false positive in a
hundred), is kept, under the commit's id, beside the
headers ``_remembered_order`` keeps (``Verified``, ``.git/gitstore/verified/appends.json``),
made the first time a read loads the commit. A filter made from a commit's lines can only
say "maybe" wrongly, never "no": a read it answers "maybe" loads the commit as before, and a
filter lost or unreadable costs a load, never a record. The file is trusted as the headers
beside it are (the clone's own state, as its refs are).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, Collection, Iterable
from functools import lru_cache
from typing import Any

PROBES = 7
BITS_PER_NAME = 10
CONTEXT = f"names-bloom-{PROBES}-{BITS_PER_NAME}"  # what a kept filter means: streams and authority digests


def _words(name: str) -> tuple[int, ...]:
    """The name's ``PROBES`` hash words."""
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).digest()
    return tuple(int.from_bytes(digest[4 * i:4 * i + 4], "big") for i in range(PROBES))


_asked = lru_cache(maxsize=4096)(_words)  # a name a read asks every big append's filter about: hashed once


def _probes(name: str, bits: int, words: Callable[[str], tuple[int, ...]] = _words) -> list[int]:
    return [word % bits for word in words(name)]


def made(streams: Iterable[str]) -> dict[str, Any]:
    """The filter of these stream names, as it is kept (JSON)."""
    names = set(streams)
    bits = max(64, BITS_PER_NAME * len(names))
    field = bytearray((bits + 7) // 8)
    for name in names:
        for at in _probes(name, bits):
            field[at >> 3] |= 1 << (at & 7)
    return {"bits": bits, "field": base64.b64encode(bytes(field)).decode("ascii")}


class Filter:
    """A kept filter, read back: ``may_hold`` is False only for names it was not made of."""

    def __init__(self, bits: int, field: bytes) -> None:
        self.bits, self.field = bits, field

    @classmethod
    def read(cls, kept: Any) -> Filter | None:
        """The filter kept, or None when it is not one (then the commit is loaded as before)."""
        if not isinstance(kept, dict) or type(kept.get("bits")) is not int or not isinstance(kept.get("field"), str):
            return None
        try:
            field = base64.b64decode(kept["field"], validate=True)
        except (binascii.Error, ValueError):
            return None
        bits = kept["bits"]
        if bits < 64 or len(field) != (bits + 7) // 8:
            return None
        return cls(bits, field)

    def may_hold(self, streams: Collection[str]) -> bool:
        field, bits = self.field, self.bits
        return any(all(field[at >> 3] >> (at & 7) & 1 for at in _probes(name, bits, _asked)) for name in streams)


__all__ = ["CONTEXT", "Filter", "made"]
