"""Writing git objects directly: loose through libgit2 for small appends, one pack for bulk.

A bulk append of 100,000 events creates some 300,000 objects (record and payload blobs and
their fan-out trees). Loose objects cost a file each; a pack costs one file. The pack and its
version-2 index are written here from the documented formats, streamed to a temporary name (in
a folder of gitstore's own, so a killed append's leftovers are known to be memory's) as objects
arrive and renamed into the repository they are for, index last, so a process killed part way
leaves nothing a reader can see, and memory holds object ids, not object data. Which repository
is decided at flush: a streamed append learns its namespace after its last record.

Objects under ``DEFLATE_FROM`` bytes (records, most payloads, trees) are packed in stored
zlib blocks: deflating a small object costs about 10 us however little it saves, several
times all the rest of packing it; records are mostly hex digests, which deflate shrinks by a
fifth. Any git reads such a pack, and ``git gc`` may recompress it.
"""

from __future__ import annotations

import bisect
import hashlib
import mmap
import os
import re
import struct
import threading
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import pygit2

from gitstore._files import new_file
from gitstore.providers._gitdirs import common_dir
from gitstore.providers._packs import NO_LIMIT, Database, Objects, read_header

BLOB, TREE, COMMIT = pygit2.GIT_OBJECT_BLOB, pygit2.GIT_OBJECT_TREE, pygit2.GIT_OBJECT_COMMIT
_NAMES = {BLOB: b"blob", TREE: b"tree", COMMIT: b"commit"}
TREE_MODE = b"40000"
MAX_TAG_DEPTH = 4  # tags of tags ``peeled`` follows
MAX_TAG_BYTES = 64 << 10  # a tag ``peeled`` reads: its header and message
BLOB_MODE = b"100644"
PACK_THRESHOLD = 256
# From this many objects an append's objects go into one pack at flush rather than a file each:
# a capture of a session writes a few hundred, which loose cost 0.1-0.5 ms apiece and a pack
# about 10 ms in all. Git keeps a fetched pack of 100 objects or more (``fetch.unpackLimit``).
LOOSE_LIMIT = 100
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
    # names read from a stored tree that are not UTF-8 come back as they were (surrogateescape)
    return b"".join([b"%s %s\0%s" % (mode, name.encode("utf-8", "surrogateescape"), oid)
                     for _, mode, name, oid in rows])


# libgit2 maps packs in windows of up to 1 GiB and keeps up to 8 GiB of them mapped: every page
# a read touches stays in the process's resident set until the pack is closed, so reading a
# store would cost memory in proportion to the store's packs, not to the answer. Reads go
# through a pack about in order (bulk packs hold records in append order), so a few small
# windows serve them nearly as fast.
READ_WINDOW = 4 << 20
READ_MAPPED = 16 << 20


def bound_pack_windows() -> None:
    """Lower libgit2's pack windows (process-wide) to ``READ_WINDOW`` each and ``READ_MAPPED``
    in all, never raising a lower setting."""
    settings = pygit2.settings
    settings.mwindow_size = min(settings.mwindow_size, READ_WINDOW)
    settings.mwindow_mapped_limit = min(settings.mwindow_mapped_limit, READ_MAPPED)


# libgit2 also keeps every small tree it reads (up to 4 KiB each) in its object cache until the
# repository closes, up to 256 MiB: worth it for folders read again, not for folders a read
# passes once (a walk of a kind's folders, payloads looked up one by one), which would hold
# memory in proportion to the store, not the answer.
TREE_CACHE_LIMIT = 4096  # libgit2's own limit for a cached tree
_uncached = 0
_uncached_lock = threading.Lock()


@contextmanager
def uncached_trees() -> Iterator[None]:
    """Trees read for a while are not kept in libgit2's object cache (a process-wide setting,
    restored when the last of the uses under way, nested or in other threads, ends)."""
    global _uncached
    with _uncached_lock:
        if _uncached == 0:
            pygit2.settings.cache_object_limit(pygit2.GIT_OBJECT_TREE, 0)
        _uncached += 1
    try:
        yield
    finally:
        with _uncached_lock:
            _uncached -= 1
            if _uncached == 0:
                pygit2.settings.cache_object_limit(pygit2.GIT_OBJECT_TREE, TREE_CACHE_LIMIT)


# -- reading trees raw ---------------------------------------------------------------------------
#
# Reading a tree through the odb and one regular expression costs a fraction of what pygit2's
# tree objects cost, which make a Python object per entry; verify and bulk appends read tens
# of thousands of folders.

_ENTRY = re.compile(rb"([0-7]{5,6}) ([^\0]+)\0(.{20})", re.DOTALL)
_ENTRIES = re.compile(rb"(?:[0-7]{5,6} [^\0]+\0.{20})*", re.DOTALL)

TreeEntry = tuple[bytes, bytes, bytes]  # mode, name, raw id, as a tree object holds them


class Unreadable(Exception):
    """A tree or blob that is missing or malformed; the message names it."""


class Oversized(Unreadable):
    """An object bigger than its reader takes, found so from its header: nothing of it was
    inflated (a few kilobytes of zeros pushed inflate to gigabytes)."""

    def __init__(self, what: str, oid: bytes, size: int, limit: int) -> None:
        super().__init__(f"{what} {oid.hex()} is {size} bytes, over the {limit >> 20} MiB a {what} may take here")
        self.size = size


# A folder of memory's trees holds at most 256 folders, or a few dozen record files even in a
# store of millions: no tree it reads is anywhere near this. An append's commit message lists
# its records, about 100 bytes each: a million of them in one append is about 100 MB.
MAX_TREE_BYTES = 16 << 20
MAX_COMMIT_BYTES = 256 << 20
# A capture's payload holds at most 2,000 turns of 4,000 characters: tens of megabytes at worst.
MAX_PAYLOAD_BYTES = 64 << 20


def load_commit(repo: pygit2.Repository, oid: pygit2.Oid) -> pygit2.Object:
    """``repo[oid]`` (a commit, or whatever else is there) once its header shows it is no
    bigger than an append's commit can be; ``Oversized`` otherwise, nothing of it inflated.
    KeyError when it is missing."""
    kind, _, inflated = read_header(repo, oid)
    if inflated > MAX_COMMIT_BYTES:
        raise Oversized(_NAMES.get(kind, b"object").decode(), oid.raw, inflated, MAX_COMMIT_BYTES)
    return repo[oid]


def descends(repo: pygit2.Repository, tip: pygit2.Oid, base: pygit2.Oid) -> bool:
    """Whether ``base`` is an ancestor of ``tip`` (not ``tip`` itself) along first parents, as
    writer histories are linear: each commit read through ``load_commit``, so a pushed commit of
    gigabytes on the way is never inflated (libgit2's ``descendant_of`` parses every commit it
    meets whole). False when the walk meets something it cannot read, or a root."""
    try:
        commit = load_commit(repo, tip)
        while isinstance(commit, pygit2.Commit) and commit.parent_ids:
            parent = commit.parent_ids[0]
            if parent == base:
                return True
            commit = load_commit(repo, parent)
    except (KeyError, ValueError, pygit2.GitError, Oversized):
        pass
    return False


def peeled(repo: pygit2.Repository, oid: pygit2.Oid) -> pygit2.Oid:
    """The commit an annotated tag at ``oid`` names (through tags of tags, a few deep), else
    ``oid`` itself: a ref someone pushed as a tag of a commit holds that commit's history, and
    whether it extends another is that commit's answer. Only a tag's header and its few bytes
    are read; anything else, or a tag that names no commit, is left to the checks that name it."""
    found = oid
    for _ in range(MAX_TAG_DEPTH):
        try:
            kind, _, inflated = read_header(repo, found)
            if kind != pygit2.GIT_OBJECT_TAG or inflated > MAX_TAG_BYTES:
                break
            tag = repo[found]
            if not isinstance(tag, pygit2.Tag):
                return oid
            found = tag.target  # its id only: the object it names is not read
        except (KeyError, ValueError, pygit2.GitError):
            return oid
    return found if found == oid or _is_commit(repo, found) else oid


def _is_commit(repo: pygit2.Repository, oid: pygit2.Oid) -> bool:
    try:
        return read_header(repo, oid)[0] == pygit2.GIT_OBJECT_COMMIT
    except (KeyError, ValueError, pygit2.GitError):
        return False


def first_parents(repo: pygit2.Repository, tip: pygit2.Oid) -> Iterator[pygit2.Oid]:
    """``tip`` and its ancestors along first parents, newest first, each read through
    ``load_commit`` (bounded, as ``descends``); the walk ends at a root or at what it cannot read."""
    oid: pygit2.Oid | None = tip
    while oid is not None:
        try:
            commit = load_commit(repo, oid)
        except (KeyError, ValueError, pygit2.GitError, Oversized):
            return
        if not isinstance(commit, pygit2.Commit):
            return
        yield oid
        oid = commit.parent_ids[0] if commit.parent_ids else None


def common_base(repo: pygit2.Repository, one: pygit2.Oid, other: pygit2.Oid) -> pygit2.Oid | None:
    """The newest commit both linear histories hold (``one`` itself when ``other`` holds it);
    None when they share none."""
    held = set(first_parents(repo, other))
    return next((oid for oid in first_parents(repo, one) if oid in held), None)


PACK_MISSES = 16  # objects a pack-first read finds elsewhere before it asks the whole database first


class PackFirst(Database):
    """A repository's objects, read from its packs alone while they hold what is asked.

    libgit2 reads an object by id as it reads an abbreviated one, asking every backend so as to
    rule out ambiguity: each read of a packed object also looks for a loose file of that name
    (a failed ``access``, about a quarter of the read). A store's records are nearly all packed.
    An object found outside the packs (loose, or in an alternate) is read from the whole
    database; after ``PACK_MISSES`` of those, each of which also made libgit2 list the pack
    folder again, every read asks the whole database."""

    def __init__(self, repo: pygit2.Repository) -> None:
        super().__init__(repo)
        self._packs: pygit2.Odb | None = None  # opened at the first read
        self.misses = 0

    def read(self, oid: pygit2.Oid) -> tuple[int, bytes]:
        if self.misses < PACK_MISSES:
            if self._packs is None:
                self._packs = pygit2.Odb()
                self._packs.add_backend(pygit2.OdbBackendPack(self._folder), 1)
            try:
                return self._packs.read(oid)
            except KeyError:
                self.misses += 1
        return self.odb.read(oid)


Source = Database | Objects | PackFirst  # the object database, it and pack slices, or it packs first


def _read(odb: Source, oid: bytes, kind: int, what: str, limit: int = NO_LIMIT) -> bytes:
    """Object ``oid`` of ``kind``; ``Oversized`` when it is bigger than ``limit``, before any
    of it is inflated."""
    if type(odb) is Objects:
        data = odb.slices.read(oid, kind, limit)
        if data is not None:
            return data
    elif limit != NO_LIMIT and isinstance(odb, Database):
        data = odb.packed(oid, kind, limit)
        if data is not None:
            return data
    try:
        if limit != NO_LIMIT:  # the header alone (what reading it inflates): see ``object_header``
            inflated = odb.read_header(pygit2.Oid(raw=oid))[2]
            if inflated > limit:
                raise Oversized(what, oid, inflated, limit)
        found, data = odb.read(pygit2.Oid(raw=oid))
    except KeyError:
        raise Unreadable(f"{what} {oid.hex()} is missing") from None
    except (pygit2.GitError, ValueError) as exc:  # a corrupt loose object, flipped pack bytes
        raise Unreadable(f"{what} {oid.hex()} cannot be read ({exc})") from None
    if found != kind:
        raise Unreadable(f"{oid.hex()} is not a {what}")
    return data


def read_tree(odb: Source, oid: bytes) -> list[TreeEntry]:
    """A tree's entries in the tree's order."""
    return parse_tree(_read(odb, oid, TREE, "tree", MAX_TREE_BYTES), oid)


def read_tree_bytes(odb: Source, oid: bytes) -> bytes:
    """A tree's bytes, unchecked (``parse_tree`` or ``take_records`` check them)."""
    return _read(odb, oid, TREE, "tree", MAX_TREE_BYTES)


def parse_tree(data: bytes, oid: bytes) -> list[TreeEntry]:
    """The entries of tree ``oid``, from its bytes, in the tree's order."""
    if not _ENTRIES.fullmatch(data):  # then findall's matches are the entries, one after another
        raise Unreadable(f"tree {oid.hex()} is malformed")
    return _ENTRY.findall(data)


def take_records(data: bytes, names: Iterable[str],
                 rest_checked: bool = False) -> tuple[bytes, list[tuple[str, bytes]]] | None:
    """When a folder (``data``, its tree bytes) holds well-formed record files only, some of
    ``names`` among them: the id git gives the folder without their rows, and those names with
    their raw ids, found by searching (in C), not by going through the rows. None when it holds
    none of them, or anything else, or a name's row is not where a row starts, or is there
    twice, or is out of git's order with the rows beside it (the rows left are in order when
    they are a folder that was checked). The rows left are hashed where they are, not copied
    out first: what the caller compares is their id.

    ``names``: record file names as an append's message lists them (64 lowercase hex digits
    and ``.json``: ``parse_message`` refuses a message naming any other), not checked again.

    ``rest_checked``: the caller checks that the bytes left are those of a folder known to
    hold well-formed record files only, each after the one before (by its id); then only the
    rows taken are checked here, and every row is one, being either taken or one of that
    folder's. Nor is a name looked for twice: rows each after the one before (those left) with
    each row taken after the row before it and before the row after it are all in order, and
    rows in order hold no name twice (a verify of 1,000,000 records takes 900,000 rows out
    of the folders of its later appends: the second search cost about 1 us a row)."""
    size = len(data)
    if size % _RECORD_ENTRY or not (rest_checked or _RECORD_ENTRIES.fullmatch(data)):
        return None
    rfind = data.rfind  # from the end: about a third cheaper than from the start on rows of hex names
    found = []
    for name in names:
        own = name.encode()
        key = b"100644 %s\0" % own
        at = rfind(key)
        if at < 0:
            continue
        # no other row of that name before it (one starting before ``at`` ends by ``at + 76``)
        if at % _RECORD_ENTRY or len(key) != _RECORD_ENTRY - 20 or not (rest_checked or rfind(key, 0, at + 76) < 0):
            return None
        # git's order of rows of one mode and one name length is their names' byte order (with
        # their ``.json``, as compared here: the same order)
        end = at + _RECORD_ENTRY
        if (at and data[at - 90:at - 21] >= own) or (end < size and own >= data[end + 7:end + 76]):
            return None
        found.append((at, name))
    if not found:
        return None
    rest = hashlib.sha1(b"tree %d\0" % (size - _RECORD_ENTRY * len(found)))
    view = memoryview(data)
    if len(found) > 1:
        found.sort()
    taken, start = [], 0
    for at, name in found:
        rest.update(view[start:at])
        start = at + _RECORD_ENTRY
        taken.append((name, data[start - 20:start]))
    rest.update(view[start:])
    return rest.digest(), taken


def read_blob(odb: Source, oid: bytes, limit: int = NO_LIMIT) -> bytes:
    """A blob's bytes; ``Oversized`` when it is bigger than ``limit`` (what another clone
    wrote is read bounded)."""
    return _read(odb, oid, BLOB, "blob", limit)


_MODES = (b"100644", b"100755", b"120000", b"160000")  # six-digit modes; a folder's is 40000
_RECORD_ENTRY = 97  # "100644 " + 64 hex digits + ".json" + NUL + a 20-byte id
_RECORD_ENTRIES = re.compile(rb"(?:100644 [0-9a-f]{64}\.json\0.{20})*", re.DOTALL)
_RECORD_ROW = re.compile(rb"100644 [^\0]{64}\.json\0.{20}", re.DOTALL)  # see add_records


def find_entry(data: bytes, name: str) -> tuple[bytes, bytes] | None:
    """(mode, raw id) of the entry ``name`` in a tree's bytes (already checked with
    ``read_tree``'s pattern), found without parsing the other entries: in a tree only a mode
    is followed by a space, so a space, the name and a NUL start exactly at an entry's name."""
    if " " in name or "\0" in name:
        return _parsed_entry(data, name)
    key = b" %s\0" % name.encode("utf-8", "surrogateescape")
    at = data.find(key)
    if at < 0:
        return None
    oid = data[at + len(key):at + len(key) + 20]
    if data[at - 6:at] in _MODES:
        return data[at - 6:at], oid
    if data[at - 5:at] == TREE_MODE:
        return TREE_MODE, oid
    return _parsed_entry(data, name)


def _parsed_entry(data: bytes, name: str) -> tuple[bytes, bytes] | None:
    entries = {n.decode("utf-8", "surrogateescape"): (m, i) for m, n, i in _ENTRY.findall(data)}
    return entries.get(name)


def add_records(data: bytes, added: dict[str, bytes]) -> bytes | None:
    """A folder's tree bytes with blobs added (name -> raw id), when the folder (``data``,
    unchecked) holds rows of a record file's shape only (mode ``100644``, a name of 64 bytes
    and ``.json``, no NUL in it) and none of the added names: its entries sorted as raw rows,
    in C, instead of parsed and written again one by one (a leaf of a big store holds dozens).
    Such rows sort as git sorts entries (one mode, one name length), whatever the names hold,
    so the bytes need no closer check here; ``verify`` names a file that is not a record.
    None otherwise."""
    rows = _RECORD_ROW.findall(data)  # each match is one row; they tile the folder when they add up to it
    if len(rows) * _RECORD_ENTRY != len(data):
        return None
    for name, oid in added.items():
        row = b"100644 %s\0%s" % (name.encode(), oid)
        if len(row) != _RECORD_ENTRY or data.find(b" %s\0" % name.encode()) >= 0:
            return None
        rows.append(row)
    rows.sort()  # one mode and one name length: git's order is the rows' byte order
    return b"".join(rows)


class TreeReader:
    """Folders read raw and kept for the length of one append or read: each is parsed once,
    however many lookups and merges pass through it. The last folder of a path (a few
    records each, and as many folders as there are records) is searched, not parsed, and only
    the last few are kept (lookups in path order find theirs there)."""

    def __init__(self, odb: Source) -> None:
        self.odb = odb
        self._listings: dict[bytes, dict[str, tuple[bytes, bytes]]] = {}
        self._folders: dict[bytes, bytes] = {}  # folders above a path's last, raw and checked
        self._recent: dict[bytes, bytes] = {}  # the last few last folders: lookups in path order

    def listing(self, oid: bytes) -> dict[str, tuple[bytes, bytes]]:
        """A folder's entries: name -> (mode, raw id). Raises ``Unreadable``."""
        found = self._listings.get(oid)
        if found is None:
            found = self._listings[oid] = {
                name.decode("utf-8", "surrogateescape"): (mode, sub) for mode, name, sub in read_tree(self.odb, oid)
            }
        return found

    def raw(self, oid: bytes, *, checked: bool = True) -> bytes:
        """A folder's tree bytes, not kept; checked unless the caller checks them itself.
        Raises ``Unreadable``."""
        data = _read(self.odb, oid, TREE, "tree", MAX_TREE_BYTES)
        if checked and not _ENTRIES.fullmatch(data):
            raise Unreadable(f"tree {oid.hex()} is malformed")
        return data

    def entry(self, root: bytes, path: str) -> tuple[bytes, bytes] | None:
        """(mode, raw id) of the entry at ``path`` (``a/b/c``) under tree ``root``, or None."""
        *folders, name = path.split("/")
        node = root
        for depth, folder in enumerate(folders, start=1 - len(folders)):
            if depth < 0:  # the root, a kind's folder: one of each, parsed
                found = self.listing(node).get(folder)
            else:  # the many folders holding the leaves' folders (256 entries each): kept raw, 7 KB not 40
                data = self._folders.get(node)
                if data is None:
                    data = self._folders[node] = self.raw(node)
                found = find_entry(data, folder)
            if found is None or found[0] != TREE_MODE:
                return None
            node = found[1]
        data = self._recent.get(node)
        if data is None:
            if len(self._recent) >= 8:
                self._recent.clear()
            data = self._recent[node] = self.raw(node)
        return find_entry(data, name)

    def holds(self, root: bytes, path: str) -> bool:
        """Whether tree ``root`` has an entry at ``path`` (``a/b/c``)."""
        return self.entry(root, path) is not None


class ObjectWriter:
    """Collects new objects: a few are written loose, many are streamed into one pack.

    Objects are held in memory until there are ``PACK_THRESHOLD`` of them; from then on each
    one is packed as it arrives (a :class:`PackWriter` under ``scratch``), so a bulk append of
    any size holds only object ids, not object data. ``flush(repo)`` makes everything visible
    in ``repo`` at once (fewer than ``LOOSE_LIMIT`` objects loose, more in one pack); ``abort``
    (or a killed process) leaves nothing a reader can see.
    """

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self._pending: dict[bytes, tuple[int, bytes, bytes | None]] = {}
        self._pack: PackWriter | None = None

    def add(self, kind: int, data: bytes, order: bytes | None = None) -> bytes:
        """Collect an object; return its raw id. Objects of a bulk append given an ``order``
        are packed together in that order (see ``PackWriter.add_sorted``), and can be dropped
        (``drop``) until the flush, unless they were also added without one."""
        oid = hashlib.sha1(b"%s %d\0%s" % (_NAMES[kind], len(data), data)).digest()  # object_id
        pack = self._pack
        if pack is not None:
            if order is None:
                pack.add(oid, kind, data)
            else:
                pack.add_sorted(oid, kind, data, order)
        else:
            found = self._pending.get(oid)
            if found is None:
                self._pending[oid] = (kind, data, order)
                if len(self._pending) >= PACK_THRESHOLD:
                    self._start_pack()
            elif order is None and found[2] is not None:
                self._pending[oid] = (kind, data, None)
        return oid

    def drop(self, oids: set[bytes]) -> None:
        """Forget objects added with an order (and only with one) since the last flush: they
        will not be written."""
        if self._pack is not None:
            self._pack.drop(oids)
            return
        for oid in oids:
            found = self._pending.get(oid)
            if found is not None and found[2] is not None:
                del self._pending[oid]

    def _start_pack(self) -> None:
        pack = self._pack = PackWriter(self.scratch)
        for oid, (kind, data, order) in self._pending.items():
            if order is None:
                pack.add(oid, kind, data)
            else:
                pack.add_sorted(oid, kind, data, order)
        self._pending = {}

    def flush(self, repo: pygit2.Repository) -> None:
        """Write every collected object that is not visible yet into ``repo``; the writer can
        go on after."""
        if self._pack is None and len(self._pending) >= LOOSE_LIMIT:
            self._start_pack()
        if self._pack is not None:
            pack, self._pack = self._pack, None
            pack.finish(common_dir(repo) / "objects" / "pack")
            return
        objects, self._pending = self._pending, {}
        odb = repo.odb
        for oid, (kind, data, _) in objects.items():
            if pygit2.Oid(raw=oid) not in odb:
                odb.write(kind, data)

    def abort(self) -> None:
        """Drop everything collected since the last flush."""
        self._pending = {}
        if self._pack is not None:
            pack, self._pack = self._pack, None
            pack.abort()


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


class PackWriter:
    """One pack written as its objects arrive, with its version-2 index.

    Objects go to a temporary file in ``scratch`` under a zero object count; ``finish`` writes
    the count, hashes the file for the trailer (which covers the header, so the file is read
    back once, from the page cache), fsyncs both files and renames them into a pack folder,
    index last. Until then, and after ``abort`` or a kill, no reader can see any of it.
    """

    def __init__(self, scratch: Path) -> None:
        scratch.mkdir(parents=True, exist_ok=True)
        self.scratch = scratch
        fd, self._path = new_file(str(scratch), "tmp_pack_", "", read=True)
        self._file = os.fdopen(fd, "w+b")
        self._seen: set[bytes] = set()
        self._droppable: set[bytes] = set()  # spilled by add_sorted and by nothing else
        self._oids: list[bytes] = []
        self._offsets: list[int] = []
        self._crcs: list[int] = []
        self._prefixes: dict[int, bytes] = {}
        self._chunk = [b"PACK" + struct.pack(">II", 2, 0)]
        self._offset = self._pending = 12
        self._later: list[tuple[bytes, int, int, bytes]] = []  # (key, spill offset, size, id)
        self._spill: BinaryIO | None = None
        self._spilled = 0  # bytes in the spill file (asking the file is a system call per object)
        self._spill_path = ""

    def add(self, oid: bytes, kind: int, data: bytes) -> None:
        """Pack one object (``oid`` is its id); an id already in this pack is skipped."""
        if oid in self._seen:
            self._droppable.discard(oid)
            return
        self._seen.add(oid)
        self._place(oid, self._packed(kind, data))

    def add_sorted(self, oid: bytes, kind: int, data: bytes, key: bytes) -> None:
        """Pack one object among the others given a ``key``: they go at the end of the pack in
        key order (a payload snapshot's order), not in the order they came, so reading them in
        that order reads the pack front to back. They wait in a spill file, not in memory."""
        if oid in self._seen:
            return
        self._seen.add(oid)
        self._droppable.add(oid)
        packed = self._packed(kind, data)
        if self._spill is None:
            fd, self._spill_path = new_file(str(self.scratch), "tmp_spill_", "", read=True)
            self._spill = os.fdopen(fd, "w+b")
        self._later.append((key, self._spilled, len(packed), oid))
        self._spill.write(packed)
        self._spilled += len(packed)

    def drop(self, oids: set[bytes]) -> None:
        """Leave out objects spilled by ``add_sorted`` (and not also added by ``add``)."""
        gone = oids & self._droppable
        if gone:
            self._droppable -= gone
            self._seen -= gone
            self._later = [row for row in self._later if row[3] not in gone]

    def _packed(self, kind: int, data: bytes) -> bytes:
        """An object as a pack entry: its header and its zlib stream."""
        size = len(data)
        if size < DEFLATE_FROM or (kind == TREE and size <= 0xFFFF):
            # the common case, in line: stored, with its headers cached per kind and size
            key = kind << 32 | size
            prefix = self._prefixes.get(key)
            if prefix is None:
                prefix = self._prefixes[key] = _entry_prefix(kind, size)
            return b"%s%s%s" % (prefix, data, _U32(zlib.adler32(data)))
        if kind == TREE:  # trees are mostly random object ids: deflate saves nothing
            return _pack_header(kind, size) + _stored(data)
        return _pack_header(kind, size) + _deflate(data, 1)

    def _place(self, oid: bytes, packed: bytes) -> None:
        self._oids.append(oid)
        self._offsets.append(self._offset)
        self._crcs.append(zlib.crc32(packed))
        self._chunk.append(packed)
        self._offset += len(packed)
        self._pending += len(packed)
        if self._offset >= 2**31:  # version-2 index offsets without the large-offset table
            self.abort()
            raise OSError("a single append may not exceed 2 GiB of objects")
        if self._pending >= 1 << 20:  # write a megabyte at a time, not object by object
            self._write()

    def _place_sorted(self) -> None:
        """Move the spilled objects into the pack, in key order."""
        if self._spill is None:
            return
        self._spill.flush()
        later, self._later = sorted(self._later), []
        with mmap.mmap(self._spill.fileno(), 0, access=mmap.ACCESS_READ) as spilled:
            for _, start, size, oid in later:
                self._place(oid, spilled[start:start + size])
        self._drop_spill()

    def _drop_spill(self) -> None:
        if self._spill is not None:
            self._spill.close()
            self._spill, self._spilled = None, 0
            _unlink(self._spill_path)

    def _write(self) -> None:
        self._file.write(b"".join(self._chunk))
        self._chunk, self._pending = [], 0

    def finish(self, folder: Path) -> str:
        """Make the pack visible in ``folder`` (a repository's ``objects/pack``); return its
        name (``pack-<checksum>``)."""
        try:
            self._place_sorted()
            self._write()
            pack = self._file
            pack.seek(8)
            pack.write(struct.pack(">I", len(self._oids)))
            pack.flush()
            pack.seek(0)
            checksum = hashlib.sha1()
            while block := pack.read(1 << 20):
                checksum.update(block)
            trailer = checksum.digest()
            pack.seek(0, os.SEEK_END)
            pack.write(trailer)
            pack.flush()
            os.fsync(pack.fileno())
            pack.close()
            name = "pack-" + trailer.hex()
            index = _index_bytes(self._oids, self._offsets, self._crcs, trailer)
            idx_fd, idx_tmp = new_file(str(self.scratch), "tmp_idx_", "")
            try:
                with os.fdopen(idx_fd, "wb") as idx:
                    idx.write(index)
                    idx.flush()
                    os.fsync(idx.fileno())
                os.chmod(self._path, 0o444)
                os.chmod(idx_tmp, 0o444)
                folder.mkdir(parents=True, exist_ok=True)
                os.replace(self._path, folder / f"{name}.pack")
                os.replace(idx_tmp, folder / f"{name}.idx")
            except BaseException:
                _unlink(idx_tmp)
                raise
        except BaseException:
            self.abort()
            raise
        return name

    def abort(self) -> None:
        """Remove the temporary pack."""
        self._drop_spill()
        self._file.close()
        _unlink(self._path)


def _unlink(path: str | Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


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


def pack_ids(index: Path) -> list[bytes]:
    """The raw ids of the objects in a pack, read from its version-2 index (or version 1)."""
    data = index.read_bytes()
    if data[:4] == b"\xfftOc":
        if struct.unpack(">I", data[4:8])[0] != 2:
            raise Unreadable(f"{index}: unknown pack index version")
        count = struct.unpack(">I", data[8 + 255 * 4:8 + 256 * 4])[0]
        start = 8 + 256 * 4
        return [data[start + 20 * i:start + 20 * (i + 1)] for i in range(count)]
    count = struct.unpack(">I", data[255 * 4:256 * 4])[0]  # version 1: (offset, id) rows
    start = 256 * 4
    return [data[start + 24 * i + 4:start + 24 * (i + 1)] for i in range(count)]
