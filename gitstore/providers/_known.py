"""A memory of the record bytes the store has checked, so a read checks each content once.

The store re-checks every record a provider returns (canonical form, contract, digest). Stored
bytes that passed once pass again under the same contracts, so the store remembers them: a
record whose bytes are known is parsed, not checked again. Bytes are known by their own
SHA-256 (``content_key``), computed from the bytes read each time, never by a name the storage
gives them (git's SHA-1 object id): bytes that changed in any way are new bytes, checked in
full. ``gitstore verify`` never consults this memory.

Doubt drops it. Each save records a *witness* of the storage it was made against (for git: the
tip of every records ref, this clone's tips logs and the contracts); the next open hands the
provider the last witness, and anything the provider cannot explain as ordinary progress (a
ref moved back or rewritten, a tips log cut or changed, other contracts) empties the memory.
So does a file that fails its checksum or its format: the memory is rebuilt as records are
checked again.

This is the bulk form of the remembered checks of ``_verified``: those keep a result per git
object under a context, as JSON (a few thousand signed commits); this keeps one bit per record
content (millions), as sorted keys a lookup maps rather than loads, and its context (the
contracts and the checks, in ``<name>``) changes its name. Both live in the same folder.

Layout, in the folder the provider gives (git: ``.git/gitstore/verified/``), ``<name>``
(``records-<hash>``) naming the contracts and checks:

- ``<name>.keys``: a header (``GSVKEYS1``, fan-out bits, key count, CRC-32 of the rest), the
  witness (length-prefixed JSON), a fan-out table of cumulative key counts per bucket (a
  bucket is the first ``bits`` bits of a key), then the 32-byte keys grouped by bucket. It is
  mapped, not loaded: memory holds the pages lookups touch.
- ``<name>.log``: blocks appended since, each a header (witness length, key count, CRC-32),
  its witness and its keys. It is folded into ``.keys`` once it holds an eighth as many keys.

Writes go to a temporary file renamed into place, or append one block in one write, under an
exclusive ``flock`` on ``<name>.lock``; readers need no lock (a half-written block fails its
checksum, and then the whole memory is dropped).
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import mmap
import os
import struct
import zlib
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from itertools import islice
from pathlib import Path

from gitstore import _jsontext
from gitstore._files import replace_file

KEY = 32
_BASE = struct.Struct(">8sIII")  # magic, bits, count, crc32 of everything after the header
_BLOCK = struct.Struct(">III")  # witness length, key count, crc32 of witness + keys
_U32 = struct.Struct(">I")
_MAGIC = b"GSVKEYS1"
COMPACT_FROM = 4096  # keys in the log before it may be folded into the base

Witness = Mapping[str, str]
Trusts = Callable[[Witness], bool]


def content_key(data: bytes) -> bytes:
    """What the memory knows bytes by: their SHA-256."""
    return hashlib.sha256(data).digest()


class Corrupt(ValueError):
    """A memory file that fails its checksum or its format."""


class KnownBytes:
    """Keys of record bytes found sound, as of a witness (see the module's docstring)."""

    def __init__(self, folder: Path, name: str, witness: Witness) -> None:
        self.folder = folder
        self.name = name
        self.witness = dict(witness)
        self._base: mmap.mmap | bytes = b""
        self._bits = 0
        self._fanout = 0  # offset of the fan-out table in the base
        self._keys = 0    # offset of the keys in the base
        self._count = 0   # keys in the base
        self._logged: set[bytes] = set()  # keys in the log
        self._fresh: set[bytes] = set()   # keys added here, not saved yet

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def open(cls, folder: Path, name: str, witness: Witness, trusts: Trusts) -> KnownBytes:
        """The memory kept in ``folder`` under ``name``, or an empty one when there is none or
        any doubt: a file that fails its checks, or a last witness ``trusts`` refuses."""
        memory = cls(folder, name, witness)
        try:
            last = memory._load()
        except (OSError, ValueError):
            last = None
            memory.forget()
        if last is not None and not trusts(last):
            memory.forget()
        return memory

    @property
    def keys_path(self) -> Path:
        return self.folder / f"{self.name}.keys"

    @property
    def log_path(self) -> Path:
        return self.folder / f"{self.name}.log"

    def _load(self) -> Witness | None:
        """Map the base and read the log; the last witness saved (None: nothing saved)."""
        last = self._load_base()
        try:
            data = self.log_path.read_bytes()
        except FileNotFoundError:
            return last
        for witness, keys in _blocks(data):
            self._logged.update(keys)
            last = witness
        return last

    def _load_base(self) -> Witness | None:
        try:
            with open(self.keys_path, "rb") as file:
                size = os.fstat(file.fileno()).st_size
                if size == 0:
                    raise Corrupt("empty")
                base = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        except FileNotFoundError:
            return None
        if size < _BASE.size + 4:
            raise Corrupt("short")
        magic, bits, count, crc = _BASE.unpack_from(base, 0)
        if magic != _MAGIC or bits > 24 or zlib.crc32(memoryview(base)[_BASE.size:]) != crc:
            raise Corrupt("checksum")
        length = _U32.unpack_from(base, _BASE.size)[0]
        fanout = _BASE.size + 4 + length
        keys = fanout + 4 * (1 << bits)
        if keys + KEY * count != size:
            raise Corrupt("size")
        witness = _witness(bytes(base[_BASE.size + 4:fanout]))
        self._base, self._bits, self._count, self._fanout, self._keys = base, bits, count, fanout, keys
        return witness

    # -- asking and adding ---------------------------------------------------------------------

    def __contains__(self, key: bytes) -> bool:
        return key in self._fresh or key in self._logged or self._in_base(key)

    def _in_base(self, key: bytes) -> bool:
        if not self._count:
            return False
        start, end = self._bucket(int.from_bytes(key[:3], "big") >> (24 - self._bits))
        return _holds(self._base, key, start, end)

    def add(self, key: bytes) -> None:
        """Remember bytes (by ``content_key``) the store found sound. The base is not searched
        (a read adds only keys it just failed to find, an append the keys of records it is
        storing): a key it holds already is dropped when the log is folded in."""
        if key not in self._logged:
            self._fresh.add(key)

    def forget(self) -> None:
        """Drop everything, on disk too."""
        with self._locked():
            for path in (self.keys_path, self.log_path):
                path.unlink(missing_ok=True)
        self._base, self._count, self._bits = b"", 0, 0
        self._logged.clear()
        self._fresh.clear()

    def observe(self, witness: Witness, trusts: Trusts) -> None:
        """Move on to a newer witness of the same storage, or forget everything when ``trusts``
        refuses the one this memory holds (the storage changed in a way progress does not)."""
        if witness == self.witness:
            return
        if not trusts(self.witness):
            self.forget()
        self.witness = dict(witness)

    # -- saving --------------------------------------------------------------------------------

    def save(self) -> None:
        """Append what was added to the log (one block, one write); fold the log into the base
        once it is big enough. A save the disk refuses (full, read-only) is given up: the
        memory only saves work, and what it lacks is checked again, so no command fails for it."""
        if not self._fresh:
            return
        try:
            self._save()
        except OSError:
            pass

    def _save(self) -> None:
        fresh = sorted(self._fresh)
        with self._locked():
            _append(self.log_path, _block(self.witness, fresh))
            ordered = fresh if not self._logged else None  # the log's keys in order, when they are these
            self._logged.update(fresh)
            self._fresh.clear()
            if len(self._logged) >= max(COMPACT_FROM, self._count // 8):
                self._compact(ordered)

    def _compact(self, ordered: list[bytes] | None = None) -> None:
        """Write the base again with the log's keys in it, then drop the log (the caller holds
        the lock). A bulk append folds a log an eighth as big as the base or more each time,
        and the base grows with the store, so folding goes bucket by bucket, not key by key:
        each bucket is the old bucket's bytes, one slice, and the log's keys falling in it
        (found by a search in the sorted log). Only when the fan-out grows (the keys doubled)
        is every key placed again (``_placed``). ``ordered``: the log's keys in order, if the
        caller has them."""
        bits = max(self._bits, _bits_for(self._count + len(self._logged)))
        fresh = ordered if ordered is not None else sorted(self._logged)
        if bits == self._bits and self._count:
            parts, fanout = self._folded(fresh)
        else:
            parts, fanout = self._placed(bits, fresh)
        witness = json.dumps(self.witness, sort_keys=True).encode()
        body = b"".join((_U32.pack(len(witness)), witness, struct.pack(f">{len(fanout)}I", *fanout), *parts))
        data = _BASE.pack(_MAGIC, bits, fanout[-1], zlib.crc32(body)) + body
        replace_file(self.keys_path, data)
        self.log_path.unlink(missing_ok=True)
        self._base, self._bits, self._count = data, bits, fanout[-1]
        self._fanout = _BASE.size + 4 + len(witness)
        self._keys = self._fanout + 4 * len(fanout)
        self._logged.clear()

    def _folded(self, fresh: list[bytes]) -> tuple[list[bytes], list[int]]:
        """The keys' bytes and the fan-out, the base's buckets kept as they are and the log's
        keys (``fresh``, in order) added to theirs, those the base holds already dropped."""
        base, first, shift, buckets = self._base, self._keys, 24 - self._bits, 1 << self._bits
        ends = struct.unpack_from(f">{buckets}I", base, self._fanout)
        parts: list[bytes] = []
        fanout: list[int] = []
        start = taken = added = 0
        for bucket, end in enumerate(ends):
            upto = bisect_left(fresh, ((bucket + 1) << shift).to_bytes(3, "big"), taken) if bucket + 1 < buckets \
                else len(fresh)
            old = base[first + KEY * start:first + KEY * end]
            parts.append(old)
            if upto > taken:
                for key in fresh[taken:upto]:
                    if old.find(key) == -1 or not _holds(old, key):  # found only across two keys
                        parts.append(key)
                        added += 1
                taken = upto
            fanout.append(end + added)
            start = end
        return parts, fanout

    def _placed(self, bits: int, fresh: list[bytes]) -> tuple[list[bytes], list[int]]:
        """The keys (the base's and the log's, ``fresh`` in order, each key once) in order, and
        the fan-out for ``bits``. The base's buckets are in order, so sorting each bucket puts
        the base in order; then the log's keys are merged in (two sorted runs)."""
        base, first = self._base, self._keys
        keys = [base[offset:offset + KEY] for offset in range(first, first + KEY * self._count, KEY)]
        if self._count:
            start = 0
            for end in struct.unpack_from(f">{1 << self._bits}I", base, self._fanout):
                if end - start > 1:
                    keys[start:end] = sorted(keys[start:end])
                start = end
        keys += fresh
        keys.sort()
        if any(map(bytes.__eq__, keys, islice(keys, 1, None))):  # a key of the log the base holds
            keys = list(dict.fromkeys(keys))
        shift = 24 - bits
        fanout = [bisect_left(keys, ((bucket + 1) << shift).to_bytes(3, "big")) for bucket in range((1 << bits) - 1)]
        fanout.append(len(keys))
        return keys, fanout

    def _bucket(self, bucket: int) -> tuple[int, int]:
        """Where a bucket's keys are in the base (byte offsets)."""
        base, fanout = self._base, self._fanout
        start = _U32.unpack_from(base, fanout + 4 * bucket - 4)[0] if bucket else 0
        end = _U32.unpack_from(base, fanout + 4 * bucket)[0]
        return self._keys + KEY * start, self._keys + KEY * end

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.folder.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.folder / f"{self.name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            yield
        finally:
            os.close(descriptor)


def _append(path: Path, block: bytes) -> None:
    """Append ``block`` to ``path`` whole, or leave the file as it was (a torn block would drop
    the whole memory at the next read)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        end = os.lseek(descriptor, 0, os.SEEK_END)
        try:
            if os.write(descriptor, block) != len(block):  # the disk filled part way
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        except OSError:
            os.ftruncate(descriptor, end)
            raise
    finally:
        os.close(descriptor)


def _holds(keys: mmap.mmap | bytes, key: bytes, start: int = 0, end: int | None = None) -> bool:
    """Whether ``key`` is one of the keys laid end to end in ``keys[start:end]`` (``start`` at
    a key's first byte), not a match across two of them."""
    end = len(keys) if end is None else end
    found = keys.find(key, start, end)
    while found != -1 and (found - start) % KEY:
        found = keys.find(key, found + 1, end)
    return found != -1


def _bits_for(count: int) -> int:
    """Fan-out bits for ``count`` keys: about 32 keys a bucket, 8 to 20 bits."""
    return max(8, min(20, (count // 32).bit_length()))


def _witness(data: bytes) -> Witness:
    found = _jsontext.loads(data)
    if not isinstance(found, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in found.items()):
        raise Corrupt("witness")
    return found


def _block(witness: Witness, keys: Iterable[bytes]) -> bytes:
    encoded = json.dumps(dict(witness), sort_keys=True).encode()
    body = encoded + b"".join(keys)
    count = (len(body) - len(encoded)) // KEY
    return _BLOCK.pack(len(encoded), count, zlib.crc32(body)) + body


def _blocks(data: bytes) -> Iterator[tuple[Witness, list[bytes]]]:
    """The log's blocks, each checked; Corrupt at the first that fails."""
    offset = 0
    while offset < len(data):
        if offset + _BLOCK.size > len(data):
            raise Corrupt("torn block")
        length, count, crc = _BLOCK.unpack_from(data, offset)
        start = offset + _BLOCK.size
        end = start + length + KEY * count
        if end > len(data) or zlib.crc32(memoryview(data)[start:end]) != crc:
            raise Corrupt("block checksum")
        keys_at = start + length
        yield _witness(data[start:keys_at]), [data[i:i + KEY] for i in range(keys_at, end, KEY)]
        offset = end


__all__ = ["Corrupt", "KnownBytes", "Witness", "content_key"]
