"""Where each record of a kind's folder is, remembered by the folder's tree id.

A read of every record of a kind finds each record's blob through the ref's tip tree:
``<kind>/<aa>/<bb>/<digest>.json``. The two fan-out levels hold some 65,000 folders per kind
once a store is large, and a record is about alone in its folder at a few hundred thousand
records, so the walk reads nearly one tree per record: about a third of what a full read costs.

The answer is a function of the kind folder's tree id: a tree id names its whole content. So the
map (digest -> blob id) is kept, under that id, in a file of the provider's state folder
(``.git/gitstore/maps/``), and a later read whose folder has that id loads it in place of the
walk. A folder that changed since (an append adds a few records) is brought up to date by
comparing the two trees: only the folders whose ids differ are read, a few per record added.

A payload snapshot is laid out the same way (``<aa>/<bb>/<digest>.json`` at its root), and a
reader of every payload keeps its snapshots' maps the same way.

The file is a convenience, never an authority: records read through it are checked as any
record is (their bytes against the digest they are filed under; a payload against its own), so
a wrong map fails closed, and a file that fails its checksum or its format, or a remembered tree
that can no longer be read (pruned), is ignored and the folder walked again. Only folders laid out exactly as the
store writes them are remembered (every entry a record file under the folders its digest names);
anything else is walked every time, and reported by the checks that walk it (``verify``).

Layout of ``<name>.map``: a header (``GSKMAP01``, the folder's raw tree id, the row count,
CRC-32 of the rows), then one row per record: its 32-byte digest and its 20-byte blob id.
Writes go to a temporary file renamed into place; two readers saving at once each write a
whole, correct file.
"""

from __future__ import annotations

import hashlib
import os
import re
import struct
import zlib
from pathlib import Path

from gitstore._files import new_file
from gitstore.providers._objects import BLOB_MODE, TREE_MODE, Source, Unreadable, read_tree, uncached_trees

FOLDER = "maps"
KEEP_FROM = 256  # records in a folder before its map is worth a file: smaller ones walk fast (~5 ms; a map loads in ~0.2)
ROWS_PER_LOOKUP = 32  # rows a kept map loads in the time one record's path lookup takes
_HEAD = struct.Struct(">8s20sII")  # magic, folder tree id, rows, CRC-32 of the rows
_MAGIC = b"GSKMAP01"
TEMPORARY = ".map-"  # how a map being written is named until it is renamed into place
_ROW = 52  # 32-byte digest + 20-byte blob id
_FAN = re.compile(rb"[0-9a-f]{2}")
_NAME = re.compile(rb"[0-9a-f]{64}\.json")
_PATH = re.compile(r"([0-9a-f]{2})/([0-9a-f]{2})/(\1\2[0-9a-f]{60})\.json")  # its digest: group 3

Map = dict[str, bytes]
"""Digest hex -> raw blob id of each entry (or, for an entry that is not a regular file, its
mode, which is never 20 bytes long)."""


def map_path(folder: Path, repo_path: str, ref: str, kind: str) -> Path:
    """The file a ref's kind folder map is kept in (one per repository, ref and kind)."""
    name = hashlib.sha256(f"{repo_path}\0{ref}\0{kind}".encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return folder / f"{name}.map"


def folder_map(odb: Source, tree: bytes, path: Path | None) -> Map:
    """Digest hex -> blob id of every entry under the kind folder ``tree`` (a raw id): loaded
    from ``path`` when it holds this tree's map, brought up to date when it holds an earlier
    tree's, else found by walking the folder (and kept there when it is laid out as the store
    writes it and big enough to be worth it). ``path`` None walks, keeping nothing."""
    saved = None if path is None else _load(path)
    if saved is not None:
        known, found = saved
        if known == tree:
            return found
        try:
            with uncached_trees():
                updated = _update(odb, found, known, tree)
        except Unreadable:  # the remembered tree is gone (pruned): walk
            updated = False
        if updated:
            _save(path, tree, found)  # type: ignore[arg-type]
            return found
    found, laid_out = _walk(odb, tree)
    if path is not None and laid_out and len(found) >= KEEP_FROM:
        _save(path, tree, found)
    return found


def _walk(odb: Source, tree: bytes) -> tuple[Map, bool]:
    """Every entry under the folder, and whether the folder is laid out as the store writes it."""
    found: Map = {}
    laid_out = True
    with uncached_trees():  # each folder is read once
        for mode, first_name, first in read_tree(odb, tree):
            if mode != TREE_MODE:
                laid_out = False
                continue
            laid_out = laid_out and _FAN.fullmatch(first_name) is not None
            for mode2, second_name, second in read_tree(odb, first):
                if mode2 != TREE_MODE:
                    laid_out = False
                    continue
                laid_out = laid_out and _FAN.fullmatch(second_name) is not None
                for mode3, name, oid in read_tree(odb, second):
                    key = name[:-5].decode("utf-8", "surrogateescape")
                    if laid_out and not (mode3 == BLOB_MODE and _placed(name, first_name, second_name)
                                         and key not in found):
                        laid_out = False
                    found[key] = oid if mode3 == BLOB_MODE else mode3
    return found, laid_out


def _placed(name: bytes, first: bytes, second: bytes) -> bool:
    return _NAME.fullmatch(name) is not None and name[:2] == first and name[2:4] == second


def _update(odb: Source, found: Map, old: bytes, new: bytes) -> bool:
    """Bring ``found`` (the map of folder ``old``, laid out as the store writes it) to that of
    ``new``, reading only the folders whose ids differ; False (``found`` then half changed)
    when a changed entry is not laid out as the store writes it."""
    from gitstore.providers._verify_git import changes  # verify's tree diff, loaded when needed

    for status, path, mode, oid in changes(odb, old, new):
        placed = _PATH.fullmatch(path)
        if placed is None or (status != "D" and mode != BLOB_MODE):
            return False
        if status == "D":
            found.pop(placed[3], None)
        else:
            found[placed[3]] = oid
    return True


def kept_rows(path: Path) -> int | None:
    """How many records the map kept at ``path`` holds (its header says), or None when none is."""
    try:
        with open(path, "rb") as kept:
            head = kept.read(_HEAD.size)
    except OSError:
        return None
    if len(head) < _HEAD.size:
        return None
    magic, _, rows, _ = _HEAD.unpack(head)
    return rows if magic == _MAGIC else None


def _load(path: Path) -> tuple[bytes, Map] | None:
    """(tree id, map) from a map file; None when there is none or it is damaged."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < _HEAD.size:
        return None
    magic, tree, rows, crc = _HEAD.unpack_from(data)
    body = memoryview(data)[_HEAD.size:]
    if magic != _MAGIC or len(body) != rows * _ROW or zlib.crc32(body) != crc:
        return None
    return tree, {body[i:i + 32].hex(): bytes(body[i + 32:i + _ROW]) for i in range(0, len(body), _ROW)}


def _save(path: Path, tree: bytes, found: Map) -> None:
    """Keep a laid-out folder's map (a failed write keeps nothing: the next read walks)."""
    body = b"".join([bytes.fromhex(key) + oid for key, oid in found.items()])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = new_file(str(path.parent), TEMPORARY, "")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(_HEAD.pack(_MAGIC, tree, len(found), zlib.crc32(body)))
                out.write(body)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass
