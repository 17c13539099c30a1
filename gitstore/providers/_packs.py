"""Reading whole objects straight out of packs: a slice of a mapped pack, checked by its id.

Bulk appends pack small objects (records, most payloads, every folder) in stored zlib blocks
(see ``_objects``), so such an object's bytes lie in its pack as they are. Verify and bulk
appends read hundreds of thousands of them; libgit2 reads each through its pack windows,
its object cache and a collision-detecting SHA-1 (several microseconds an object, most of a
big append's or verify's time). Here an object is found through the pack's version-2 index,
sliced out of the pack, and accepted only when everything git itself would check holds: a
whole (not delta) object of the kind asked for, one stored block of exactly its size, the
zlib checksum, and the SHA-1 of its header and bytes equal to its id. A deflated whole
object (a big payload, or any object of a pack git wrote) is inflated to exactly its size,
zlib checking its checksum, and held to its id the same way: reads that hop about the
packs (every payload, in event order) then never go through libgit2's bounded windows,
which mapped a window and unmapped another for nearly every such read. Anything else (an
object in a loose file, in a pack opened later or not indexed here, a delta, a large offset,
a flipped byte, a malformed index) gets ``None``, and the caller reads it through the object
database, which reports damage as it always did.

Finding an id: the index's fan-out narrows to the ids starting with its first byte; among
them (sorted), the id's next two bytes, read once per index into an array of 16-bit numbers,
are found by bisection in C, and the few ids sharing those three bytes compared in full. An
index is read at the first lookup in it, not when it is opened: the repository's own packs
(its code's history) are opened with memory's, and a read that memory's packs serve never
reads theirs. Verify of a 1,000-record store beside a pack of 1,000,000 ids of the
repository's own peaked at 62.6 MB when it read that pack's index at opening, and at 46.9 MB,
as in a repository without it, once it did not.

Which pack: the one the last object came from, then the others, newest first. Reads that
keep missing (a payload snapshot read in path order holds payloads of every append, each in
its own pack) map once which pack holds the ids starting with each three bytes (16 MiB, a
pass over every id, about 0.09 us an id, what a miss costs, 0.5 us, for every six ids: so
only once they missed as often). Then a read asks the one pack holding ids starting so, or
none (a loose object); where two packs do, it asks those two (with up to 15 packs, a byte
names the pair), the one the last object came from first; where more do, every pack. At
1,000,000 records in ten packs, 16% of ids share their first three bytes with another
pack's; naming pairs took the misses after the map from 572,000 to 106,000. Asking the last
pack first matters for memory too: a miss on ids sharing three bytes compares whole ids in
the other pack's index, a page that stays resident until the next release.

Headers: an object's type, size and the most reading it inflates (a delta's base may be far
bigger than it), which a bounded read asks before it inflates anything, are read here too
(``object_header``), from its pack entry (through its chain of deltas) or its loose file, in
every pack and object folder libgit2 reads, never through libgit2's ``read_header``: that fails
part way through a chain whose base is damaged holding the size it read, and pygit2 then
writes the end of its error's text that many bytes past a 41-byte buffer.

Memory: a mapped page a read touched stays in the process's resident set until unmapped, so
every ``RESIDENT`` bytes read (a page counted for each object) the maps (packs and indexes)
of the packs touched since are told to drop their pages (the page cache keeps them; the next
read of one maps it again), as libgit2's bounded windows do. The packs a process reads headers
from (``headers_of``), which also serve its bounded reads of whole packed objects, count a
touch as what a fault maps (``FAULT``: a kernel may map a large folio around the page), drop
pages every ``HEADERS_RESIDENT``, and keep their map of which pack holds which ids sorted
(``_SortedOwners``): a reader of a few thousand objects beside libgit2's own windows.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import struct
import sys
import time
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import pygit2

from gitstore.providers._gitdirs import alternates_of, common_dir

RESIDENT = 16 << 20
KEYS_AFTER = 64  # lookups a pack answers by searching its index before it reads every id's key
INFLATE_BLOCK = 64 << 10  # bytes of a deflated object's stream fed to zlib at a time
NO_LIMIT = sys.maxsize  # what a read takes unless its caller bounds it (see ``_objects.Oversized``)
OWNERS_AFTER = 6  # packs' ids per miss (a read asking a pack that lacks it) before mapping which has which
_SHARED = 255
_PAIRS = 16  # owner values from here name two packs (see _map_owners)
_PAIRED = 15  # with at most this many packs
_NAMES = {pygit2.GIT_OBJECT_COMMIT: b"commit", pygit2.GIT_OBJECT_TREE: b"tree", pygit2.GIT_OBJECT_BLOB: b"blob"}
_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")
_U16X2 = struct.Struct("<HH").pack
_FANOUT = struct.Struct(">256I")
_WHOLE = frozenset(_NAMES) | {pygit2.GIT_OBJECT_TAG}
_KINDS = {b"commit": pygit2.GIT_OBJECT_COMMIT, b"tree": pygit2.GIT_OBJECT_TREE, b"blob": pygit2.GIT_OBJECT_BLOB,
          b"tag": pygit2.GIT_OBJECT_TAG}
_OFS_DELTA, _REF_DELTA = 6, 7
MAX_DELTA_CHAIN = 10_000  # git writes chains of 50 by default and of at most 4,095
MAX_ENDS = 1 << 16  # deltas a pack remembers the end of (see _resolved)
MAX_ALTERNATES = 5  # the deepest object folder whose own alternates are followed, as git and libgit2 do
LOOSE_HEAD = 64 << 10  # bytes of a loose file's stream inflated, at most, to find its header's end


class _Pack:
    """One pack and its index (version 2, or git's first version), mapped."""

    def __init__(self, index: Path) -> None:
        self.name = index.name
        with open(index, "rb") as idx_file:
            self._idx = mmap.mmap(idx_file.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            with open(index.with_suffix(".pack"), "rb") as pack_file:
                self.pack = mmap.mmap(pack_file.fileno(), 0, access=mmap.ACCESS_READ)
        except BaseException:
            self._idx.close()
            raise
        idx = self._idx
        version = 2 if idx[:4] == b"\xfftOc" else 1
        if version == 2 and idx[4:8] != b"\x00\x00\x00\x02":
            self.close()
            raise ValueError(f"{index}: a pack index of a version this store does not read")
        fanout_at = 8 if version == 2 else 0
        if len(idx) < fanout_at + 1024:
            self.close()
            raise ValueError(f"{index}: truncated")
        self._fanout = _FANOUT.unpack_from(idx, fanout_at)
        self.count = count = self._fanout[255]
        if any(a > b for a, b in zip(self._fanout, self._fanout[1:])):
            self.close()
            raise ValueError(f"{index}: fan-out table out of order")
        if version == 2:  # ids, their CRC-32s, 4-byte offsets, then the 8-byte ones past 2 GiB
            self._ids, self._stride = 8 + 1024, 20
            self._offsets = self._ids + 24 * count
            self._large = self._offsets + 4 * count
            self._end = len(idx) - 40
            if self._end < self._large:
                self.close()
                raise ValueError(f"{index}: truncated")
        else:  # each entry its 4-byte offset then its id
            self._ids, self._stride = 1024 + 4, 24
            self._offsets = self._large = self._end = 0
            if len(idx) < 1024 + 24 * count + 40:
                self.close()
                raise ValueError(f"{index}: truncated")
        self._keys: array[int] | None = None  # read once the pack was searched KEYS_AFTER times (see _read_keys)
        self._searches = 0
        # a delta's offset -> the type its chain of bases ends at, and the most reading it inflates
        self.ends: dict[int, tuple[int, int]] = {}
        self._starts = (0, *self._fanout[:255])

    def _read_keys(self) -> array[int]:
        """Each id's second and third bytes, as one big-endian number, read from the index once
        the pack was asked ``KEYS_AFTER`` times, not at opening nor at the first lookup: a
        repository's own packs (its code's history, millions of ids: 5 ms of CPU for 300,000)
        are opened with memory's, and a process that asks them a few times (a header asks every
        pack for its copies) searches their indexes instead."""
        idx, stride = self._idx, self._stride
        end = self._ids + stride * self.count
        pairs = bytearray(2 * self.count)
        pairs[0::2] = idx[self._ids + 1:end:stride]
        pairs[1::2] = idx[self._ids + 2:end:stride]
        keys = array("H", pairs)
        if sys.byteorder == "little":
            keys.byteswap()
        self._keys = keys
        self.release()  # the index was just read in full: lookups touch a few of its pages
        return keys

    def offset(self, oid: bytes) -> int | None:
        """Where object ``oid`` starts in the pack, or None (absent, or an offset the index
        cannot give)."""
        first = oid[0]
        hi = self._fanout[first]
        keys, idx, ids, stride = self._keys, self._idx, self._ids, self._stride
        if keys is None:
            self._searches += 1
            if self._searches <= KEYS_AFTER:
                return self._searched(oid)
            keys = self._read_keys()
        key = oid[1] << 8 | oid[2]
        i = bisect_left(keys, key, self._starts[first], hi)
        while i < hi and keys[i] == key:
            at = ids + stride * i
            if idx[at:at + 20] == oid:
                return self._offset_at(i, at)
            i += 1
        return None

    def _searched(self, oid: bytes) -> int | None:
        """``offset`` by a binary search of the index's ids (a few of its pages touched)."""
        first = oid[0]
        lo, hi = self._starts[first], self._fanout[first]
        idx, ids, stride = self._idx, self._ids, self._stride
        while lo < hi:
            mid = (lo + hi) >> 1
            at = ids + stride * mid
            found = idx[at:at + 20]
            if found < oid:
                lo = mid + 1
            elif found > oid:
                hi = mid
            else:
                return self._offset_at(mid, at)
        return None

    def _offset_at(self, i: int, at: int) -> int | None:
        """The offset the index gives its ``i``th id (at ``at``), or None when it cannot."""
        idx = self._idx
        if self._stride == 24:
            return int(_U32.unpack_from(idx, at - 4)[0])
        found: int = _U32.unpack_from(idx, self._offsets + 4 * i)[0]
        if not found & 0x80000000:
            return found
        large = self._large + 8 * (found & 0x7FFFFFFF)
        return int(_U64.unpack_from(idx, large)[0]) if large + 8 <= self._end else None

    def prefixes(self) -> Iterator[int]:
        """The first three bytes of each id, as a number."""
        keys, fanout = self._keys, self._fanout
        if keys is None:
            keys = self._read_keys()
        for first in range(256):
            high = first << 16
            for i in range(self._starts[first], fanout[first]):
                yield high | keys[i]

    def release(self) -> None:
        """Drop the pages of the pack and its index from the resident set."""
        for mapped in (self.pack, self._idx):
            try:
                mapped.madvise(mmap.MADV_DONTNEED)
            except (OSError, ValueError):
                pass

    def close(self) -> None:
        self._idx.close()
        if hasattr(self, "pack"):
            self.pack.close()


def _whole(pack: mmap.mmap, at: int, kind: int, oid: bytes, limit: int = NO_LIMIT) -> bytes | None:
    """The object of ``kind`` at offset ``at`` when it is whole (not a delta), at most ``limit``
    bytes, and its zlib stream, its size and its id hold; else None. An object in one stored
    block (the zlib header ``78 01`` then a final stored block of its size, as bulk appends and
    ``core.compression=0`` write it) is sliced out; any other is inflated, to its size and no
    further (a bigger one is not inflated at all: the caller asks its header elsewhere)."""
    head = pack[at:at + 12]  # a whole object and the pack's trailer after it are longer
    if len(head) < 12:
        return None
    byte = head[0]
    if (byte >> 4) & 7 != kind:
        return None
    size, shift, i = byte & 0x0F, 4, 1
    while byte & 0x80 and i < 5:
        byte = head[i]
        size |= (byte & 0x7F) << shift
        shift += 7
        i += 1
    if byte & 0x80 or size > limit:
        return None
    if size <= 0xFFFF and head[i:i + 7] == b"\x78\x01\x01" + _U16X2(size, size ^ 0xFFFF):
        start = at + i + 7
        data = pack[start:start + size]
        check = pack[start + size:start + size + 4]
        if len(check) != 4 or _U32.unpack(check)[0] != zlib.adler32(data):
            return None
    else:
        found = _inflated(pack, at + i, size)
        if found is None:
            return None
        data = found
    hashed = hashlib.sha1(b"%s %d\0" % (_NAMES[kind], size))  # the bytes hashed where they are, not copied
    hashed.update(data)
    if hashed.digest() != oid:
        return None
    return data


def _inflated(pack: mmap.mmap, start: int, size: int) -> bytes | None:
    """The ``size`` bytes of the zlib stream at ``start`` when it holds exactly that many and
    ends within deflate's bound for them (zlib checks its checksum), else None. The stream is
    fed a block at a time, straight from the map, and no more than ``size + 1`` bytes are ever
    inflated: a size that lies (a flipped bit) costs a block, not a copy of the rest of the pack."""
    inflater = zlib.decompressobj()
    end = min(len(pack), start + size + (size >> 10) + 64)
    parts: list[bytes] = []
    got, at = 0, start
    view = memoryview(pack)
    try:
        while not inflater.eof and at < end and got <= size:
            with view[at:min(end, at + INFLATE_BLOCK)] as block:
                at += len(block)
                part = inflater.decompress(block, size + 1 - got)
            parts.append(part)
            got += len(part)
    except zlib.error:
        return None
    finally:
        view.release()  # the pack can be unmapped
    return b"".join(parts) if got == size and inflater.eof else None


def _entry(pack: mmap.mmap, at: int) -> tuple[int, int, int]:
    """(type, size, length of the header) of the pack entry at offset ``at``; ValueError when
    the offset or the header runs outside the pack's entries."""
    head = pack[at:min(at + 11, len(pack) - 20)] if 12 <= at else b""
    if not head:
        raise ValueError(f"an entry at offset {at} lies outside the pack")
    byte = head[0]
    size, shift, i = byte & 0x0F, 4, 1
    while byte & 0x80:
        if i == len(head):
            raise ValueError(f"the entry at offset {at} has no end to its size")
        byte = head[i]
        size |= (byte & 0x7F) << shift
        shift += 7
        i += 1
    return (head[0] >> 4) & 7, size, i


def _delta_size(pack: mmap.mmap, start: int) -> int:
    """The size of the object a delta whose zlib stream starts at ``start`` makes: the second
    of the two numbers the delta begins with (its base's size, then its result's)."""
    inflater = zlib.decompressobj()
    try:  # 64 bytes hold the two numbers unless a block's own header is long
        head = inflater.decompress(pack[start:start + 64], 20)
        if len(head) < 20 and not inflater.eof:
            head += inflater.decompress(inflater.unconsumed_tail + pack[start + 64:start + 1024], 20 - len(head))
    except zlib.error as exc:
        raise ValueError(f"the delta at offset {start} cannot be inflated ({exc})") from None
    at = value = 0
    for _ in range(2):
        value = shift = 0
        while True:
            if at == len(head):
                raise ValueError(f"the delta at offset {start} is cut short")
            byte = head[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
    return value


def _base_offset(pack: mmap.mmap, at: int, start: int) -> tuple[int, int]:
    """(where the base of the offset delta at ``at`` starts, how many bytes from ``start`` said
    so), in git's encoding of the distance back."""
    data = pack[start:start + 10]
    if not data:
        raise ValueError(f"the delta at offset {at} is cut short")
    byte = data[0]
    back, i = byte & 0x7F, 1
    while byte & 0x80:
        if i == len(data):
            raise ValueError(f"the delta at offset {at} names no base")
        byte = data[i]
        i += 1
        back = ((back + 1) << 7) | (byte & 0x7F)
    if not 0 < back <= at - 12:
        raise ValueError(f"the delta at offset {at} names a base outside the pack")
    return at - back, i


def _resolved(pack: _Pack, at: int) -> tuple[int, int, int]:
    """(type, size, the most bytes reading it inflates at once) of the object whose entry is at
    ``at`` in ``pack``: a whole object's own header; for a delta, its result's size, the type
    of the whole object its chain of bases ends at (a base named by id is the one in the same
    pack, as libgit2 takes it), and the largest of that base, each delta's data and each result
    on the way (a small delta on a base of gigabytes inflates the base). ValueError when any of
    it is damaged."""
    kind, size, used = _entry(pack.pack, at)
    if kind in _WHOLE:
        return kind, size, size
    result = below = 0
    passed: list[tuple[_Pack, int, int]] = []  # each delta on the way, and the most it inflates itself
    seen: set[tuple[int, int]] = set()
    for step in range(MAX_DELTA_CHAIN):
        known = pack.ends.get(at) if step else None  # the first delta's own result size is read first
        if known is not None:
            kind, below = known
            break
        if (id(pack), at) in seen:
            raise ValueError(f"a delta chain in {pack.name} loops back to offset {at}")
        seen.add((id(pack), at))
        if kind == _OFS_DELTA:
            (base, named), base_pack = _base_offset(pack.pack, at, at + used), pack
        elif kind == _REF_DELTA:  # its base in its own pack, as libgit2 takes it (another may hold another copy)
            base_id = pack.pack[at + used:at + used + 20]
            found = pack.offset(base_id) if len(base_id) == 20 else None
            if found is None:
                raise ValueError(f"the delta at offset {at} of {pack.name} names a base that is not here, in its pack")
            base_pack, base, named = pack, found, 20
        else:
            raise ValueError(f"the entry at offset {at} of {pack.name} has no object type ({kind})")
        made = _delta_size(pack.pack, at + used + named)
        if not step:
            result = made
        passed.append((pack, at, max(size, made)))
        pack, at = base_pack, base
        kind, size, used = _entry(pack.pack, at)
        if kind in _WHOLE:
            below = size
            break
    else:
        raise ValueError(f"a delta chain in {pack.name} is longer than {MAX_DELTA_CHAIN}")
    for held, where, own in reversed(passed):  # deltas share their bases: a later read stops at one
        below = max(below, own)
        if len(held.ends) >= MAX_ENDS:
            held.ends.clear()
        held.ends[where] = kind, below
    return kind, result, below


def loose_header(folder: str, oid: bytes) -> tuple[int, int, int] | None:
    """(type, size, size) of object ``oid`` from the header of its loose file in object folder
    ``folder``, only as much of it inflated as holds the header; None when there is no such
    file; ValueError when it cannot be read or is damaged."""
    name = oid.hex()
    try:
        file = open(f"{folder}/{name[:2]}/{name[2:]}", "rb")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ValueError(f"loose object {name} cannot be read ({exc.strerror or exc})") from None
    inflater = zlib.decompressobj()
    head = b""
    with file:
        try:
            while b"\0" not in head and len(head) < 40 and not inflater.eof:
                chunk = inflater.unconsumed_tail or file.read(1024)
                if not chunk or file.tell() > LOOSE_HEAD:
                    break
                head += inflater.decompress(chunk, 40 - len(head))
        except zlib.error as exc:
            raise ValueError(f"loose object {name} cannot be inflated ({exc})") from None
        except OSError as exc:
            raise ValueError(f"loose object {name} cannot be read ({exc.strerror or exc})") from None
    kind, space, rest = head.partition(b" ")
    size, end, _ = rest.partition(b"\0")
    if not space or not end or kind not in _KINDS or not size.isdigit() or len(size) > 20:
        raise ValueError(f"loose object {name} has no header")
    return _KINDS[kind], int(size), int(size)


def object_folders(objects: Path) -> list[Path]:
    """``objects`` and the object folders its alternates name (``info/alternates``: a path a
    line, relative to the folder naming it), and theirs, ``MAX_ALTERNATES`` deep, each once."""
    folders, todo, seen = [objects], [(objects, 0)], {str(objects)}
    while todo:
        folder, depth = todo.pop(0)
        if depth > MAX_ALTERNATES:
            continue
        for other in alternates_of(folder):
            if other not in seen:
                seen.add(other)
                folders.append(Path(other))
                todo.append((Path(other), depth + 1))
    return folders


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_mtime_ns, found.st_ino


class _SortedOwners:
    """``PackSlices._map_owners``'s answer for the prefixes the packs hold, and only those,
    sorted: five bytes a prefix instead of a table of every prefix there could be (16 MiB,
    nearly all of it touched once a few hundred thousand ids are written into it), a lookup
    a binary search (about 0.7 us instead of 0.05): for a reader that asks thousands, not
    millions."""

    __slots__ = ("_prefixes", "_codes")

    def __init__(self, packs: list[_Pack], paired: bool) -> None:
        entries = array("I")
        for number, pack in enumerate(packs, start=1):  # fewer than 255 packs: a number fits in a byte
            entries.extend(prefix << 8 | number for prefix in pack.prefixes())
        prefixes, codes = array("I"), bytearray()
        last = previous = -1
        for value in sorted(entries):  # one sorted run a pack: merged in C
            if value == previous:  # a prefix a pack holds twice
                continue
            previous = value
            prefix, number = value >> 8, value & 0xFF
            if prefix != last:
                last = prefix
                prefixes.append(prefix)
                codes.append(number)
            elif paired and codes[-1] <= len(packs):  # as ``_map_owners`` writes a second holder
                codes[-1] = _PAIRS + 16 * (codes[-1] - 1) + number - 1
            else:
                codes[-1] = _SHARED
        self._prefixes, self._codes = prefixes, codes

    def __getitem__(self, prefix: int) -> int:
        prefixes = self._prefixes
        at = bisect_left(prefixes, prefix)
        return self._codes[at] if at < len(prefixes) and prefixes[at] == prefix else 0


class PackSlices:
    """The packs of one object folder as they were when opened: ``read`` finds an object in
    them, or answers None (then ask the object database)."""

    def __init__(self, objects: Path, *, resident: int | None = None, touch: int = mmap.PAGESIZE,
                 sorted_owners: bool = False) -> None:
        self._packs: list[_Pack] = []
        self.objects = str(objects)
        self._resident = RESIDENT if resident is None else resident  # bytes touched (as counted) before the pages are dropped
        self._touch = touch  # what one read counts for besides its bytes: the pages a fault maps
        self._sorted_owners = sorted_owners  # the owners map as ``_SortedOwners``, not a table of 16 MiB
        self._touched: dict[_Pack, None] = {}  # the packs whose pages were touched since
        self.folders = [str(folder) for folder in object_folders(objects)]
        self._watched = [f"{folder}/{part}" for folder in self.folders for part in ("pack", "info/alternates")]
        self._stamps = self._stamped()
        indexes: list[tuple[float, Path]] = []
        for folder in self.folders:  # as libgit2 does: every index beside its pack, whatever its name
            try:
                indexes.extend((index.stat().st_mtime, index) for index in Path(folder, "pack").glob("*.idx"))
            except OSError:
                continue
        indexes.sort(key=lambda found: found[0], reverse=True)
        for _, index in indexes:  # newest first: a store's recent folders are in its recent packs
            try:
                self._packs.append(_Pack(index))
            except (OSError, ValueError):
                continue
        self._last = 0
        self._read = 0
        self._misses = 0
        self._owners: bytearray | _SortedOwners | None = None
        self._owners_after = max(4096, sum(pack.count for pack in self._packs) // OWNERS_AFTER)

    def read(self, oid: bytes, kind: int, limit: int = NO_LIMIT) -> bytes | None:
        """Object ``oid``'s bytes when it is a whole object of ``kind`` of at most ``limit``
        bytes in one of these packs (stored or deflated), checked; else None."""
        found = self._find(oid)
        if found is None:
            return None
        pack, at = found
        data = _whole(pack.pack, at, kind, oid, limit)
        if data is not None:
            self._read += len(data) + self._touch  # reads in no order touch a page each
            self._touched[pack] = None
            if self._read >= self._resident:
                self.release()
        return data

    def header(self, oid: bytes) -> tuple[int, int, int] | None:
        """``_resolved``'s answer for object ``oid`` over every copy these packs and object
        folders hold (libgit2 may read any: it asks first the pack its last read found something
        in, and a fetched pack may hold an object this clone holds too, as a delta on a base of
        gigabytes), the most any copy inflates; nothing of it inflated but its deltas' first
        bytes. None when none holds it; ValueError when a copy is damaged or two disagree. A
        loose copy is read only when no pack holds one: it inflates its size alone, which no
        packed copy's figure is under."""
        found = None
        for pack in self._holders(oid):
            at = pack.offset(oid)
            if at is None:
                self._misses += 1
                continue
            copy = _resolved(pack, at)
            self._read += 2 * self._touch  # its index entry and its pack entry: see RESIDENT
            self._touched[pack] = None
            if found is not None and copy[:2] != found[:2]:
                raise ValueError(f"two copies of object {oid.hex()} disagree on what it is ({pack.name} has one)")
            if found is None or copy[2] > found[2]:
                found = copy
        if self._read >= self._resident:
            self.release()
        return self.loose(oid) if found is None else found

    def _holders(self, oid: bytes) -> list[_Pack] | tuple[_Pack, ...]:
        """The packs that may hold ``oid``: every one, until enough of them were asked in vain
        to map which holds which ids (``_map_owners``), then those the map names."""
        packs, owners = self._packs, self._owners
        if owners is None:
            if self._misses >= self._owners_after:
                self._owners = owners = self._map_owners()
                self._owners_after = 1 << 62  # mapped, or too many packs to map: never again
            if owners is None:
                return packs
        owner = owners[oid[0] << 16 | oid[1] << 8 | oid[2]]
        if owner == _SHARED:
            return packs
        if owner <= len(packs):
            return () if owner == 0 else (packs[owner - 1],)
        first, second = divmod(owner - _PAIRS, 16)
        return packs[first], packs[second]

    def _find(self, oid: bytes) -> tuple[_Pack, int] | None:
        """The pack holding ``oid`` and where in it, or None."""
        packs = self._packs
        if not packs:
            return None
        owners = self._owners
        owner = _SHARED if owners is None else owners[oid[0] << 16 | oid[1] << 8 | oid[2]]
        if owner == _SHARED:  # not mapped, or several packs hold ids starting so
            pack = packs[self._last]
            at = pack.offset(oid)
            if at is None:
                found = self._search(oid)
                if found is None:
                    return None
                pack, at = found
        elif owner == 0:
            return None
        elif owner <= len(packs):  # one pack holds ids starting so
            self._last = owner - 1
            pack = packs[owner - 1]
            at = pack.offset(oid)
            if at is None:
                return None
        else:  # two packs do: the one the last object came from first (reads in a pack's order stay in it)
            first, second = divmod(owner - _PAIRS, 16)
            if second == self._last:
                first, second = second, first
            pack = packs[first]
            at = pack.offset(oid)
            if at is None:
                pack, first = packs[second], second
                at = pack.offset(oid)
                if at is None:
                    return None
            self._last = first
        return pack, at

    def _search(self, oid: bytes) -> tuple[_Pack, int] | None:
        """The pack holding ``oid`` (the last one an object came from lacks it) and where: the
        others are asked in turn. Counts the packs asked in vain, and maps which pack holds
        which ids once they are as many as ``OWNERS_AFTER`` says."""
        last, found, missed = self._last, None, 1
        for i, pack in enumerate(self._packs):
            if i != last:
                at = pack.offset(oid)
                if at is not None:
                    self._last, found = i, (pack, at)
                    break
                missed += 1
        self._misses += missed
        if self._owners is None and self._misses >= self._owners_after:
            self._owners = self._map_owners()
            self._owners_after = 1 << 62  # mapped, or too many packs to map: never again
        return found

    def _map_owners(self) -> bytearray | _SortedOwners | None:
        """Which pack holds the ids starting with each three bytes: 0 none; 1 + its place
        when one pack does; when two do and there are at most ``_PAIRED`` packs, ``_PAIRS``
        + 16 x the first's place + the second's; else ``_SHARED`` (two or more). None when
        there are too many packs to say so in a byte."""
        packs = self._packs
        if len(packs) >= _SHARED:
            return None
        paired = len(packs) <= _PAIRED
        if self._sorted_owners:
            return _SortedOwners(packs, paired)
        owners = bytearray(1 << 24)
        for place, pack in enumerate(packs):
            number = place + 1
            previous = -1
            for prefix in pack.prefixes():  # in order: a prefix this pack holds twice comes twice in a row
                if prefix == previous:
                    continue
                previous = prefix
                found = owners[prefix]
                if found == 0:
                    owners[prefix] = number
                elif paired and found <= len(packs):
                    owners[prefix] = _PAIRS + 16 * (found - 1) + place
                else:
                    owners[prefix] = _SHARED
        return owners

    def _stamped(self) -> list[tuple[int, int] | None]:
        """Each object folder's pack folder and alternates file, as they stand."""
        return [_stamp(path) for path in self._watched]

    def stale(self) -> bool:
        """Whether a pack folder or an alternates file changed since these packs were opened."""
        return self._stamped() != self._stamps

    def loose(self, oid: bytes) -> tuple[int, int, int] | None:
        """``loose_header`` of ``oid`` in the first of these object folders holding it."""
        for folder in self.folders:
            found = loose_header(folder, oid)
            if found is not None:
                return found
        return None

    def release(self) -> None:
        """Drop the pages reads touched from the resident set (they stay in the page cache): of
        the packs touched since the last time (a pack's index read whole drops its own pages)."""
        self._read = 0
        touched, self._touched = self._touched, {}
        for pack in touched:
            pack.release()

    def close(self) -> None:
        packs, self._packs = self._packs, []
        for pack in packs:
            pack.close()


class Reader(Protocol):
    """What reads an object by id: (its type, its bytes); KeyError when absent."""

    def read(self, oid: pygit2.Oid) -> tuple[int, bytes]: ...


class Objects:
    """A repository's object database, with whole packed objects read out of the mapped packs:
    what ``_objects``'s readers take wherever they take an ``Odb``. What the packs do not hold
    so (a loose object, a delta, a pack written since) is read through ``odb``: the
    repository's, or another reader of it (``_objects.PackFirst``). The packs are opened at
    the first read."""

    def __init__(self, repo: pygit2.Repository, odb: Reader | None = None) -> None:
        self.odb = repo.odb if odb is None else odb
        self._headers = Database(repo)  # headers as every reader of the repository reads them
        self._folder = common_dir(repo) / "objects"
        self._slices: PackSlices | None = None

    @property
    def slices(self) -> PackSlices:
        if self._slices is None:
            self._slices = PackSlices(self._folder)
        return self._slices

    def read(self, oid: pygit2.Oid) -> tuple[int, bytes]:
        return self.odb.read(oid)

    def read_header(self, oid: pygit2.Oid) -> tuple[int, int, int]:
        return self._headers.read_header(oid)

    def close(self) -> None:
        if self._slices is not None:
            self._slices.close()


def object_header(slices: PackSlices, odb: pygit2.Odb, oid: pygit2.Oid) -> tuple[int, int, int]:
    """(type, size, the most bytes reading it inflates at once: what a bound is held to) of
    object ``oid``, from the headers git wrote: its pack entries' (through their delta chains)
    and its loose file's, in the object folders ``slices`` read (``PackSlices.header``);
    KeyError when it is nowhere; ValueError when what is there is damaged, or is where libgit2
    would read it and this reader does not. Never libgit2's ``read_header``: that fails part way through a damaged
    delta chain holding the size it had read, and pygit2 then ends the error's text that far
    past its buffer (a crash, or the stack overwritten)."""
    raw = oid.raw
    found = slices.header(raw)
    if found is None:
        if oid in odb:
            raise ValueError(f"object {oid} is in a pack this store does not read")
        raise KeyError(str(oid))
    return found


_HEADERS: dict[str, PackSlices] = {}
# The header packs serve a few thousand lookups beside libgit2's windows: what they touched is
# dropped every HEADERS_RESIDENT, a touch counted as FAULT (one byte read maps 150-512 KiB
# where the page cache holds large folios)
HEADERS_RESIDENT = 4 << 20
FAULT = 256 << 10
PACKED_LOOK = 1.0  # seconds between looks at the pack folders of ``Database.packed``
_LOOKED: dict[str, float] = {}  # object folder -> when ``Database.packed`` last looked


def headers_of(objects: str) -> PackSlices:
    """The packs of object folder ``objects`` (and its alternates') that this process reads
    headers from: opened at the first read, and again whenever a pack folder or an alternates
    file changed since, looked at on every read (a stat a folder: a pack a fetch just brought
    may hold a copy libgit2 reads first; a long-running process, the MCP server, so lets go of
    the packs ``git gc`` deleted; the packs a reader still uses are never closed under it:
    dropped, they are unmapped once no one holds them)."""
    slices = _HEADERS.get(objects)
    if slices is None or slices.stale():
        slices = _HEADERS[objects] = PackSlices(Path(objects), resident=HEADERS_RESIDENT, touch=FAULT,
                                                sorted_owners=True)
    return slices


def read_header(repo: pygit2.Repository, oid: pygit2.Oid) -> tuple[int, int, int]:
    """``object_header`` of ``oid`` in ``repo``."""
    return Database(repo).read_header(oid)


class Database:
    """A repository's object database as libgit2 reads it, but for headers, read as
    ``object_header`` reads them: what ``_objects``'s readers take in place of ``repo.odb``."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.odb = repo.odb
        self._folder = str(common_dir(repo) / "objects")

    def read(self, oid: pygit2.Oid) -> tuple[int, bytes]:
        return self.odb.read(oid)

    def read_header(self, oid: pygit2.Oid) -> tuple[int, int, int]:
        return object_header(headers_of(self._folder), self.odb, oid)

    def packed(self, oid: bytes, kind: int, limit: int) -> bytes | None:
        """``PackSlices.read`` in the packs headers are read from: a bounded read maps them for
        the header anyway, and a whole packed copy read there, checked and never inflated past
        its size, needs no header and no second lookup by libgit2. Whether the packs changed
        is looked at here once every ``PACKED_LOOK`` seconds, not at every read (two stats a
        read: 13,000 of them in a ``gitstore learnings`` of 10,000 records): a copy read here
        is checked against its id, so a pack written since can only make a read miss, and a
        miss reads through libgit2, whose header read (``read_header``) always looks."""
        folder, now = self._folder, time.monotonic()
        slices = _HEADERS.get(folder)
        if slices is None or now - _LOOKED.get(folder, -PACKED_LOOK) >= PACKED_LOOK:
            slices = headers_of(folder)
            _LOOKED[folder] = now
        return slices.read(oid, kind, limit)


@contextmanager
def opened(repo: pygit2.Repository) -> Iterator[Objects]:
    """``Objects`` of ``repo`` for a while, its packs unmapped after."""
    objects = Objects(repo)
    try:
        yield objects
    finally:
        objects.close()
