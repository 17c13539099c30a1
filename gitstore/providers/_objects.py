"""Writing git objects directly: loose through libgit2 for small appends, one pack for bulk.

A bulk append of 100,000 records creates some 170,000 objects (blobs and fan-out trees).
Loose objects cost a file each; a pack costs one file. The pack and its version-2 index are
written here from the documented formats, to a temporary name, and renamed into place index
last, so a process killed part way leaves nothing a reader can see.

Objects under ``DEFLATE_FROM`` bytes (records, most payloads, trees) are packed in stored
zlib blocks: deflating a small object costs about 10 us however little it saves, several
times all the rest of packing it; records are mostly hex digests, which deflate shrinks by a
fifth. Any git reads such a pack, and ``git gc`` may recompress it.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import struct
import tempfile
import zlib
from pathlib import Path

import pygit2

BLOB, TREE, COMMIT = pygit2.GIT_OBJECT_BLOB, pygit2.GIT_OBJECT_TREE, pygit2.GIT_OBJECT_COMMIT
_NAMES = {BLOB: b"blob", TREE: b"tree", COMMIT: b"commit"}
TREE_MODE = b"40000"
BLOB_MODE = b"100644"
PACK_THRESHOLD = 256
DEFLATE_FROM = 1024  # bytes; smaller objects go into bulk packs stored (see above)
_U16X2 = struct.Struct("<HH").pack
_U32 = struct.Struct(">I").pack


def object_id(kind: int, data: bytes) -> bytes:
    """The raw 20-byte SHA-1 object id git gives ``data`` of that kind."""
    return hashlib.sha1(b"%s %d\0%s" % (_NAMES[kind], len(data), data)).digest()


def tree_bytes(entries: dict[str, tuple[bytes, bytes]]) -> bytes:
    """A tree object's body from name -> (mode, raw oid), in git's order: by name, a folder's
    name compared as if it ended in ``/`` (code point order is UTF-8 byte order)."""
    rows = sorted(
        (name + "/" if mode == TREE_MODE else name, mode, name, oid) for name, (mode, oid) in entries.items()
    )
    return b"".join([b"%s %s\0%s" % (mode, name.encode(), oid) for _, mode, name, oid in rows])


class ObjectWriter:
    """Collects new objects and writes them all at once."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self._objects: dict[bytes, tuple[int, bytes]] = {}

    def add(self, kind: int, data: bytes) -> bytes:
        oid = hashlib.sha1(b"%s %d\0%s" % (_NAMES[kind], len(data), data)).digest()  # object_id
        if oid not in self._objects:
            self._objects[oid] = (kind, data)
        return oid

    def __len__(self) -> int:
        return len(self._objects)

    def flush(self) -> None:
        """Write every collected object that the repository does not have yet."""
        objects, self._objects = self._objects, {}
        if len(objects) < PACK_THRESHOLD:
            odb = self.repo.odb
            for oid, (kind, data) in objects.items():
                if pygit2.Oid(raw=oid) not in odb:
                    odb.write(kind, data)
        else:  # an object also present elsewhere costs a few bytes, not a lookup each
            write_pack(Path(self.repo.path) / "objects" / "pack", objects)


def _deflate(data: bytes, level: int) -> bytes:
    # A small window makes each stream cheaper to set up than the defaults; any zlib reader
    # inflates it. The default memory level: at 1 the compressor emits a block every 128
    # symbols and costs twice as much per record as it saves in setup.
    compressor = zlib.compressobj(level, zlib.DEFLATED, 10, 8)
    return compressor.compress(data) + compressor.flush()


def _stored(data: bytes) -> bytes:
    """A zlib stream holding ``data`` in stored (uncompressed) deflate blocks, built directly:
    several times cheaper than a compressor object for the small objects of a store."""
    size = len(data)
    if size <= 0xFFFF:
        return b"".join((b"\x78\x01\x01", _U16X2(size, size ^ 0xFFFF), data, _U32(zlib.adler32(data))))
    parts = [b"\x78\x01"]
    for start in range(0, size, 0xFFFF):
        block = data[start:start + 0xFFFF]
        final = start + 0xFFFF >= size
        parts += (b"\x01" if final else b"\x00", _U16X2(len(block), len(block) ^ 0xFFFF), block)
    parts.append(_U32(zlib.adler32(data)))
    return b"".join(parts)


def _pack_header(kind: int, size: int) -> bytes:
    if size < 16:
        return bytes(((kind << 4) | size,))
    out = bytearray()
    byte = (kind << 4) | (size & 0x0F)
    size >>= 4
    while size:
        out.append(byte | 0x80)
        byte = size & 0x7F
        size >>= 7
    out.append(byte)
    return bytes(out)


def _entry_prefix(kind: int, size: int) -> bytes:
    """Pack entry header, zlib header and stored-block header of a small object."""
    return _pack_header(kind, size) + b"\x78\x01\x01" + _U16X2(size, size ^ 0xFFFF)


def write_pack(folder: Path, objects: dict[bytes, tuple[int, bytes]]) -> str:
    """Write ``objects`` (raw oid -> (kind, data)) as one pack with its index; return its name."""
    folder.mkdir(parents=True, exist_ok=True)
    pack_fd, pack_tmp = tempfile.mkstemp(prefix="tmp_pack_", dir=folder)
    oids: list[bytes] = []
    offsets: list[int] = []
    crcs: list[int] = []
    checksum = hashlib.sha1()
    crc32, adler32, u32 = zlib.crc32, zlib.adler32, _U32
    prefixes: dict[int, bytes] = {}
    with os.fdopen(pack_fd, "wb") as pack:
        chunk = [b"PACK" + struct.pack(">II", 2, len(objects))]
        offset = pending = 12
        for oid, (kind, data) in objects.items():
            size = len(data)
            if size < DEFLATE_FROM or (kind == TREE and size <= 0xFFFF):
                # the common case, in line: stored, with its headers cached per kind and size
                key = kind << 32 | size
                prefix = prefixes.get(key)
                if prefix is None:
                    prefix = prefixes[key] = _entry_prefix(kind, size)
                packed = b"%s%s%s" % (prefix, data, u32(adler32(data)))
            elif kind == TREE:  # trees are mostly random object ids: deflate saves nothing
                packed = _pack_header(kind, size) + _stored(data)
            else:
                packed = _pack_header(kind, size) + _deflate(data, 1)
            oids.append(oid)
            offsets.append(offset)
            crcs.append(crc32(packed))
            chunk.append(packed)
            offset += len(packed)
            pending += len(packed)
            if pending >= 1 << 20:  # hash and write a megabyte at a time, not object by object
                joined = b"".join(chunk)
                checksum.update(joined)
                pack.write(joined)
                chunk, pending = [], 0
        joined = b"".join(chunk)
        checksum.update(joined)
        pack.write(joined)
        if offset >= 2**31:
            raise OSError("a single append may not exceed 2 GiB of objects")
        trailer = checksum.digest()
        pack.write(trailer)
        pack.flush()
        os.fsync(pack.fileno())
    name = "pack-" + trailer.hex()
    index = _index_bytes(oids, offsets, crcs, trailer)
    idx_fd, idx_tmp = tempfile.mkstemp(prefix="tmp_idx_", dir=folder)
    with os.fdopen(idx_fd, "wb") as idx:
        idx.write(index)
        idx.flush()
        os.fsync(idx.fileno())
    os.chmod(pack_tmp, 0o444)
    os.chmod(idx_tmp, 0o444)
    os.replace(pack_tmp, folder / f"{name}.pack")
    os.replace(idx_tmp, folder / f"{name}.idx")
    return name


def _index_bytes(oids: list[bytes], offsets: list[int], crcs: list[int], pack_checksum: bytes) -> bytes:
    """A version-2 pack index: objects sorted by id, with their CRC-32 and pack offset."""
    order = sorted(range(len(oids)), key=oids.__getitem__)
    ordered = [oids[i] for i in order]
    # fanout[b]: how many ids start with a byte <= b (ids are 20 bytes, so none sorts after
    # b followed by nineteen 0xff)
    fanout = [bisect.bisect_right(ordered, bytes((b,)) + b"\xff" * 19) for b in range(256)]
    count = len(oids)
    body = b"".join([
        b"\xfftOc", struct.pack(">I", 2), struct.pack(">256I", *fanout),
        b"".join(ordered),
        struct.pack(f">{count}I", *map(crcs.__getitem__, order)),
        struct.pack(f">{count}I", *map(offsets.__getitem__, order)),
        pack_checksum,
    ])
    return body + hashlib.sha1(body).digest()
