"""Kind folder maps kept between reads: a read loads the map of a folder it saw before, or
brings it up to date by reading only the folders that changed, and always answers what a walk of
the folder answers. A map is never an authority: a damaged, stale or forged map file never gets
other bytes served as a record. Real git objects and files throughout."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pygit2
import pytest

from gitstore.providers._packs import Database
from gitstore import IntegrityError, kind_of
from gitstore.conformance import _records as R
from gitstore.conformance import batch
from gitstore.providers import _kindmaps, _objects
from gitstore.providers._kindmaps import FOLDER, _load, _save, _walk, folder_map, kept_rows, map_path
from gitstore.providers._objects import read_tree
from gitstore.providers.git import GitProvider, record_path, records_ref
from gitstore.store import Store, stream_of

from .conftest import git

WRITER = "w1"
REF = records_ref("shared", WRITER)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(_kindmaps, "KEEP_FROM", 8)  # small folders kept too
    path = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(path))
    return path


def store(repo: Path) -> Store:
    return Store(GitProvider(repo, WRITER), R.SCOPE)


def kept(repo: Path, kind: str = "grant") -> Path:
    return map_path(repo / ".git" / "gitstore" / FOLDER, str(pygit2.Repository(str(repo)).path), REF, kind)


def folder(repo: Path, kind: str = "grant") -> bytes:
    return pygit2.Repository(str(repo)).revparse_single(f"{REF}:{kind}").id.raw  # type: ignore[no-any-return]


def tip_tree(repo: Path) -> bytes:
    return pygit2.Repository(str(repo)).revparse_single(f"{REF}^{{tree}}").id.raw  # type: ignore[no-any-return]


def walked(repo: Path, kind: str = "grant") -> dict[str, bytes]:
    return _walk(Database(pygit2.Repository(str(repo))), folder(repo, kind))[0]


def grants(tag: str, n: int) -> list[dict]:
    return [R.grant(f"{tag}{i}") for i in range(n)]


@pytest.fixture
def trees_read(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """The trees read (by anyone), in order."""
    read: list[bytes] = []
    real = _objects._read

    def counted(odb: pygit2.Odb, oid: bytes, kind: int, what: str, limit: int = _objects.NO_LIMIT) -> bytes:
        if kind == _objects.TREE:
            read.append(oid)
        return real(odb, oid, kind, what, limit)

    monkeypatch.setattr(_objects, "_read", counted)
    yield read


def test_a_full_read_keeps_the_map_and_the_next_read_loads_it(repo: Path, trees_read: list[bytes]) -> None:
    records = grants("g", 40)
    store(repo).append(records)
    assert [i.record for i in store(repo).items(["grant"])] == records
    saved = _load(kept(repo))
    assert saved is not None and saved[0] == folder(repo) and saved[1] == walked(repo)
    trees_read.clear()
    assert [i.record for i in store(repo).items(["grant"])] == records
    assert trees_read == [tip_tree(repo)]  # the tip's folder, to find the kind's: the map loaded, not walked


def test_after_appends_only_the_changed_folders_are_read(repo: Path, trees_read: list[bytes]) -> None:
    store(repo).append(grants("g", 300))
    list(store(repo).items(["grant"]))
    walk = len(trees_read)
    more = grants("more", 3)
    store(repo).append(more)
    trees_read.clear()
    read = [i.record for i in store(repo).items(["grant"])]
    assert read[-3:] == more and len(read) == 303
    # the tip's folder, the old and new kind folder, and at most the old and new of two levels
    # per record added
    assert 3 < len(trees_read) <= 1 + 2 + 2 * 2 * 3 < walk
    saved = _load(kept(repo))
    assert saved is not None and saved == (folder(repo), walked(repo))


def test_records_read_through_kept_maps_are_what_a_walk_reads(repo: Path) -> None:
    for n in range(4):
        store(repo).append(grants(f"round{n}-", 20) + [R.event(f"e{n}-{i}") for i in range(10)])
        with_maps = [(i.digest, i.record) for i in store(repo).items()]
        for path in (repo / ".git" / "gitstore" / FOLDER).glob("*.map"):
            path.unlink()
        assert [(i.digest, i.record) for i in store(repo).items()] == with_maps


def test_a_map_pointing_a_record_at_other_bytes_fails_closed(repo: Path) -> None:
    first, second = R.grant("first"), R.grant("second")
    store(repo).append([first, second] + grants("g", 10))
    list(store(repo).items(["grant"]))
    found = walked(repo)
    one, other = first["digest"][7:], second["digest"][7:]
    found[one] = found[other]  # a forged map with a sound checksum: first's entry at second's bytes
    _save(kept(repo), folder(repo), found)
    with pytest.raises(IntegrityError, match=first["digest"]):
        list(store(repo).items(["grant"]))


def test_a_map_that_lacks_a_record_fails_closed(repo: Path) -> None:
    records = grants("g", 12)
    store(repo).append(records)
    list(store(repo).items(["grant"]))
    found = walked(repo)
    del found[records[3]["digest"][7:]]
    _save(kept(repo), folder(repo), found)
    with pytest.raises(IntegrityError, match="lacks it"):
        list(store(repo).items(["grant"]))


@pytest.mark.parametrize("damage", ["flip", "cut", "magic", "empty"])
def test_a_damaged_map_file_is_ignored_and_written_again(repo: Path, damage: str) -> None:
    records = grants("g", 20)
    store(repo).append(records)
    list(store(repo).items(["grant"]))
    path = kept(repo)
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[-5] ^= 0x01
    elif damage == "cut":
        data = data[:-7]
    elif damage == "magic":
        data[0:8] = b"GSKMAP99"
    else:
        data = bytearray()
    path.write_bytes(bytes(data))
    assert _load(path) is None
    assert [i.record for i in store(repo).items(["grant"])] == records
    assert _load(path) == (folder(repo), walked(repo))


def test_a_map_of_a_folder_that_can_no_longer_be_read_is_walked_again(repo: Path) -> None:
    records = grants("g", 20)
    store(repo).append(records)
    list(store(repo).items(["grant"]))
    found = walked(repo)
    _save(kept(repo), b"\x42" * 20, found)  # a folder that is not in the repository (pruned)
    more = R.grant("more")
    store(repo).append([more])
    assert [i.record for i in store(repo).items(["grant"])] == records + [more]
    assert _load(kept(repo)) == (folder(repo), walked(repo))


def test_stream_reads_switch_to_a_kept_map_and_read_the_same(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events = [R.event(f"e{i}", episode="one" if i % 2 else "two", seq=i // 2) for i in range(40)]
    store(repo).append(events)
    streams = {stream_of(events[1], "event")}
    by_path = [(i.digest, i.record) for i in store(repo).items(["event"], streams=streams)]
    assert len(by_path) == 20
    assert not kept(repo, "event").exists()  # no full read yet: nothing kept, lookups by path
    list(store(repo).items(["event"]))
    assert kept_rows(kept(repo, "event")) == len(events)
    monkeypatch.setattr("gitstore.providers.git.ROWS_PER_LOOKUP", 1000)  # the map at the first lookup
    assert [(i.digest, i.record) for i in store(repo).items(["event"], streams=streams)] == by_path


def test_a_second_read_of_the_same_streams_looks_no_path_up_again(repo: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A read of some learnings' evidence reads the events it keeps a second time: what the
    handle found at a path under a tip tree stands while the tip does not move."""
    events = [R.event(f"e{i}", episode="one" if i % 2 else "two", seq=i // 2) for i in range(40)]
    handle = store(repo)
    handle.append(events)
    streams = {stream_of(events[1], "event")}
    first = [(i.digest, i.record) for i in handle.items(["event"], streams=streams)]
    lookups: list[str] = []
    entry = _objects.TreeReader.entry
    monkeypatch.setattr(_objects.TreeReader, "entry",
                        lambda self, root, path: lookups.append(path) or entry(self, root, path))
    some = {digest for digest, _ in first[:3]}
    assert [(i.digest, i.record) for i in handle.items(["event"], streams=streams, digests=some)] == first[:3]
    assert lookups == []
    more = R.event("e99", episode="one", seq=99)
    handle.append([more])  # a new tip tree: every path looked up again
    lookups.clear()
    read = [i.record for i in handle.items(["event"], streams=streams)]
    assert read[:-1] == [r for _, r in first] and read[-1]["id"] == more["id"]
    assert len(lookups) == len(first) + 1



def test_a_read_of_some_digests_loads_no_map_for_fewer_records_than_its_load_costs(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read told which records it wants (a second pass over a learning's evidence) looks up
    as many paths as its load costs, then loads the kept map only when the records still to
    read would cost more looked up: the last few are looked up too, and no map is held."""
    events = [R.event(f"e{i}", episode="one" if i % 2 else "two", seq=i // 2) for i in range(40)]
    store(repo).append(events)
    list(store(repo).items(["event"]))
    assert kept_rows(kept(repo, "event")) == len(events)
    monkeypatch.setattr("gitstore.providers.git.ROWS_PER_LOOKUP", 8)  # a load costs 5 lookups
    streams = {stream_of(events[1], "event")}
    by_path = [(i.digest, i.record) for i in store(repo).items(["event"], streams=streams)]
    lookups: list[str] = []
    loads: list[bytes] = []
    entry, load = _objects.TreeReader.entry, _kindmaps.folder_map
    monkeypatch.setattr(_objects.TreeReader, "entry",
                        lambda self, root, path: lookups.append(path) or entry(self, root, path))
    monkeypatch.setattr("gitstore.providers.git.folder_map",
                        lambda odb, tree, path: loads.append(tree) or load(odb, tree, path))
    some = {digest for digest, _ in by_path[:7]}
    assert [(i.digest, i.record) for i in store(repo).items(["event"], streams=streams, digests=some)] == by_path[:7]
    assert len(lookups) == 7 and loads == []  # the map's load costs more than the 2 left
    lookups.clear()
    assert [(i.digest, i.record) for i in store(repo).items(["event"], streams=streams)] == by_path
    assert len(lookups) == 5 and len(loads) == 1  # a read of every record of its streams: 5 lookups, then the map

# -- the maps module on folders built by hand ---------------------------------------------------


def _folder(repo: pygit2.Repository, files: dict[str, pygit2.Oid]) -> bytes:
    """A kind folder holding ``files`` (``aa/bb/<name>`` -> blob id), written with libgit2."""
    nested: dict = {}
    for path, oid in files.items():
        node = nested
        *parts, name = path.split("/")
        for part in parts:
            node = node.setdefault(part, {})
        node[name] = oid

    def write(node: dict) -> pygit2.Oid:
        builder = repo.TreeBuilder()
        for name, value in node.items():
            if isinstance(value, dict):
                builder.insert(name, write(value), pygit2.GIT_FILEMODE_TREE)
            else:
                builder.insert(name, value, pygit2.GIT_FILEMODE_BLOB)
        return builder.write()

    return write(nested).raw


def _records(repo: pygit2.Repository, tags: list[str]) -> dict[str, pygit2.Oid]:
    files = {}
    for tag in tags:
        record = R.grant(tag)
        files[record_path(kind_of(record), record["digest"]).partition("/")[2]] = repo.create_blob(
            repr(record).encode())
    return files


@pytest.fixture
def bare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> pygit2.Repository:
    monkeypatch.setattr(_kindmaps, "KEEP_FROM", 8)
    return pygit2.init_repository(str(tmp_path / "bare.git"), bare=True)


def test_a_folder_rewritten_to_other_records_is_brought_up_to_date(bare: pygit2.Repository, tmp_path: Path) -> None:
    files = _records(bare, [f"r{i}" for i in range(30)])
    before = dict(list(files.items())[:20])
    after = dict(list(files.items())[10:])  # ten gone, ten kept, ten new: a history rewritten
    path = tmp_path / "one.map"
    old, new = _folder(bare, before), _folder(bare, after)
    assert folder_map(Database(bare), old, path) == _walk(Database(bare), old)[0]
    assert _load(path) is not None
    assert folder_map(Database(bare), new, path) == _walk(Database(bare), new)[0]
    assert len(_walk(Database(bare), new)[0]) == 20
    assert _load(path) == (new, _walk(Database(bare), new)[0])
    assert folder_map(Database(bare), old, path) == _walk(Database(bare), old)[0]  # and back


@pytest.mark.parametrize("stray", ["misplaced", "not-a-record-name", "a-file-among-folders", "folder-name"])
def test_a_folder_not_laid_out_as_the_store_writes_it_is_walked_every_time(
        bare: pygit2.Repository, tmp_path: Path, stray: str) -> None:
    files = _records(bare, [f"r{i}" for i in range(10)])
    blob = bare.create_blob(b"{}")
    name = next(iter(files))
    if stray == "misplaced":
        files["00/00/" + name.rpartition("/")[2]] = blob
    elif stray == "not-a-record-name":
        files[name.rpartition("/")[0] + "/notes.txt"] = blob
    elif stray == "a-file-among-folders":
        files["README"] = blob
    else:
        files["zz/00/" + "0" * 64 + ".json"] = blob
    tree = _folder(bare, files)
    path = tmp_path / "one.map"
    assert folder_map(Database(bare), tree, path) == _walk(Database(bare), tree)[0]
    assert not path.exists()


def test_an_update_meeting_a_stray_entry_walks_and_keeps_nothing(bare: pygit2.Repository, tmp_path: Path) -> None:
    files = _records(bare, [f"r{i}" for i in range(10)])
    path = tmp_path / "one.map"
    first = _folder(bare, files)
    folder_map(Database(bare), first, path)
    assert _load(path) is not None
    name = next(iter(files))
    strayed = _folder(bare, {**files, "00/00/" + name.rpartition("/")[2]: bare.create_blob(b"{}")})
    assert folder_map(Database(bare), strayed, path) == _walk(Database(bare), strayed)[0]
    saved = _load(path)
    assert saved is not None and saved[0] == first  # the stray folder's map was not kept


def test_a_map_file_that_cannot_be_written_leaves_the_read_as_it_was(bare: pygit2.Repository, tmp_path: Path) -> None:
    files = _records(bare, [f"r{i}" for i in range(10)])
    tree = _folder(bare, files)
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert folder_map(Database(bare), tree, blocked / "one.map") == _walk(Database(bare), tree)[0]
    assert list(tmp_path.glob(".map-*")) == [] and blocked.read_text() == "not a folder"


def test_a_small_folder_keeps_no_map(bare: pygit2.Repository, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_kindmaps, "KEEP_FROM", 11)
    tree = _folder(bare, _records(bare, [f"r{i}" for i in range(10)]))
    path = tmp_path / "one.map"
    assert len(folder_map(Database(bare), tree, path)) == 10
    assert not path.exists()


def test_a_walk_of_a_real_store_folder_finds_every_record(repo: Path) -> None:
    records = grants("g", 25)
    store(repo).append(records)
    found = walked(repo)
    assert sorted(found) == sorted(r["digest"][7:] for r in records)


def test_a_reader_of_every_payload_keeps_the_snapshots_map_and_follows_it(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gitstore.providers.git as git_provider

    monkeypatch.setattr(git_provider, "PAYLOAD_PATHS", 0)  # index the snapshots at once
    first = [R.event(f"p{i}", seq=i) for i in range(20)]
    store(repo).append(first)
    provider = GitProvider(repo, WRITER)
    reader = provider.payload_reader()
    assert all(reader(e["payloadDigest"]) == provider.payload(e["payloadDigest"]) is not None for e in first)
    handle = pygit2.Repository(str(repo))
    snapshot = git_provider.payloads_ref("shared", WRITER)
    kept_at = map_path(repo / ".git" / "gitstore" / FOLDER, handle.path, snapshot, "payloads")
    root = handle.revparse_single(f"{snapshot}^{{tree}}").id.raw
    assert _load(kept_at) == (root, _walk(Database(handle), root)[0])
    more = [R.event(f"q{i}", seq=20 + i) for i in range(5)]
    store(repo).append(more)
    reader = GitProvider(repo, WRITER).payload_reader()
    assert all(reader(e["payloadDigest"]) == provider.payload(e["payloadDigest"]) is not None for e in first + more)
    root = pygit2.Repository(str(repo)).revparse_single(f"{snapshot}^{{tree}}").id.raw
    assert _load(kept_at) == (root, _walk(Database(handle), root)[0])
    assert reader("sha256:" + "ab" * 32) is None
    gone = first[3]["payloadDigest"]  # removed: the next snapshot lacks it, and its map too
    provider.append(batch(R.audit("asked", [], action="redact"), removals=[(
        gone, b'{"at":"2026-08-01T00:00:00.000000Z","by":"github:1","reason":"asked","sourceId":null}')]))
    monkeypatch.setattr(GitProvider, "noted", lambda self: set())  # as if no note said so: the map must not
    reader = GitProvider(repo, WRITER).payload_reader()
    assert reader(gone) is None and reader(first[4]["payloadDigest"]) is not None
    saved = _load(kept_at)
    assert saved is not None and gone[7:] not in saved[1] and len(saved[1]) == len(first + more) - 1


def test_gc_removes_a_map_left_half_written_and_keeps_the_maps(repo: Path) -> None:
    store(repo).append(grants("g", 20))
    list(store(repo).items(["grant"]))
    maps = repo / ".git" / "gitstore" / FOLDER
    left = maps / ".map-k1ll3d"  # as a read killed between writing a map and renaming it leaves it
    left.write_bytes(b"GSKMAP01 half")
    GitProvider(repo, WRITER).gc()
    assert not left.exists() and _load(kept(repo)) is not None
