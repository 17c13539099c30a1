"""Pack slices: whole packed objects read straight from the pack (stored ones sliced out,
deflated ones inflated), anything else through the object database, and damage found either
way."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pygit2
import pytest

from gitstore.conformance import _records as R
from gitstore.conformance import entries_for
from gitstore.providers import Stream
from gitstore.providers._objects import (
    BLOB, PACK_MISSES, TREE, Oversized, PackFirst, PackWriter, Unreadable, object_id, read_blob, read_tree_bytes,
)
from gitstore.providers._packs import NO_LIMIT, Database, Objects, PackSlices, _Pack
from gitstore.providers.git import GitProvider, records_ref

from .conftest import git

BIG = "long words " * 200  # over the size bulk packs deflate


@pytest.fixture(scope="module")
def bulk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository holding one bulk append (one pack): 300 events, one with a big payload."""
    path = tmp_path_factory.mktemp("packs") / "repo"
    git(path.parent, "init", "-q", str(path))
    records = [R.event(f"p{i}", episode="p", seq=i) for i in range(299)] + [R.event("big", text=BIG)]
    GitProvider(path, "w1").append_stream(Stream(iter(entries_for(records)), lambda: "shared"))
    return path


def _copy(src: Path, dst: Path) -> Path:
    subprocess.run(["cp", "-a", str(src), str(dst)], check=True)
    return dst


def _objects_in(repo: pygit2.Repository) -> list[tuple[bytes, int, bytes]]:
    """(raw id, kind, bytes) of every object, read through libgit2."""
    found = []
    for oid in repo.odb:
        kind, data = repo.odb.read(oid)
        found.append((oid.raw, kind, data))
    return found


def test_every_object_reads_the_same_and_small_ones_come_from_the_pack(bulk: Path) -> None:
    repo = pygit2.Repository(str(bulk))
    objects = Objects(repo)
    sliced = 0
    for oid, kind, data in _objects_in(repo):
        if kind == pygit2.GIT_OBJECT_COMMIT:
            continue
        direct = objects.slices.read(oid, kind)
        assert direct is None or direct == data
        sliced += direct is not None
        assert (read_blob(objects, oid) if kind == BLOB else read_tree_bytes(objects, oid)) == data
    assert sliced > 600  # records, small payloads and folders
    objects.close()


def _deflated(repo: pygit2.Repository) -> tuple[bytes, bytes]:
    """The raw id and bytes of the bulk pack's deflated object (the big payload)."""
    payloads = [(oid, data) for oid, kind, data in _objects_in(repo) if kind == BLOB and len(data) > 1024]
    assert len(payloads) == 1
    return payloads[0]


def test_a_deflated_object_is_inflated_from_the_pack_a_loose_one_and_the_wrong_kind_are_not(bulk: Path) -> None:
    repo = pygit2.Repository(str(bulk))
    objects = Objects(repo)
    oid, data = _deflated(repo)
    assert objects.slices.read(oid, BLOB) == data and read_blob(objects, oid) == data
    assert objects.slices.read(oid, TREE) is None
    loose = repo.odb.write(BLOB, b"written loose after the pack")
    assert objects.slices.read(loose.raw, BLOB) is None
    assert read_blob(objects, loose.raw) == b"written loose after the pack"
    small = next(oid for oid, kind, data in _objects_in(repo) if kind == BLOB and len(data) < 200)
    assert objects.slices.read(small, TREE) is None
    with pytest.raises(Unreadable, match="is not a tree"):
        read_tree_bytes(objects, small)
    objects.close()


def test_a_bounded_read_refuses_a_bigger_object_from_its_header_packed_or_loose(bulk: Path) -> None:
    """What another clone wrote is read with a limit: an object over it is refused from the
    size its header gives, by the pack slices and through libgit2 alike, never inflated."""
    repo = pygit2.Repository(str(bulk))
    objects = Objects(repo)
    packed = _deflated(repo)
    loose = (repo.odb.write(BLOB, b"written loose, read bounded").raw, b"written loose, read bounded")
    for source, (oid, data) in ((objects, packed), (objects, loose), (Database(repo), packed), (PackFirst(repo), packed)):
        with pytest.raises(Oversized, match=f"blob {oid.hex()} is {len(data)} bytes") as refused:
            read_blob(source, oid, len(data) - 1)
        assert refused.value.size == len(data)
        assert read_blob(source, oid, len(data)) == data
    objects.close()


@pytest.mark.parametrize("compression", ["0", "9"])
def test_packs_git_wrote_read_the_same(bulk: Path, tmp_path: Path, compression: str) -> None:
    """A repack by git (deltas; stored blocks or deflated) reads the same, through whichever path."""
    path = _copy(bulk, tmp_path / "repo")
    git(path, "-c", f"core.compression={compression}", "-c", f"pack.compression={compression}",
        "repack", "-adf", "-q", "--window=50", "--depth=50")
    repo = pygit2.Repository(str(path))
    objects = Objects(repo)
    for oid, kind, data in _objects_in(repo):
        if kind != pygit2.GIT_OBJECT_COMMIT:
            assert objects.slices.read(oid, kind) in (None, data)
    objects.close()
    assert GitProvider(path, "w1").verify().ok


def test_an_index_it_cannot_read_is_passed_over(bulk: Path, tmp_path: Path) -> None:
    path = _copy(bulk, tmp_path / "repo")
    index = next((path / ".git" / "objects" / "pack").glob("*.idx"))
    with pytest.raises(ValueError):
        index.chmod(0o644)
        index.write_bytes(index.read_bytes()[:2000])  # truncated
        _Pack(index)
    data = bytearray(next((bulk / ".git" / "objects" / "pack").glob("*.idx")).read_bytes())
    data[8 + 4 * 10:8 + 4 * 11] = (1 << 30).to_bytes(4, "big")  # a fan-out entry past the count
    index.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="out of order"):
        _Pack(index)
    slices = PackSlices(path / ".git" / "objects")
    repo = pygit2.Repository(str(path))
    tip = repo.references[records_ref("shared", "w1")].target
    assert slices.read(repo[tip].tree_id.raw, TREE) is None
    slices.close()


def test_a_pack_no_read_asks_is_never_indexed(bulk: Path, tmp_path: Path) -> None:
    """The repository's own packs (its code's history: millions of ids) are opened with
    memory's; reading memory's objects out of memory's pack never reads their indexes."""
    path = _copy(bulk, tmp_path / "repo")
    stream = "".join(f"blob\ndata {len(f'code {n}')}\ncode {n}\n" for n in range(500)).encode()
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, input=stream, check=True)
    folder = path / ".git" / "objects" / "pack"
    ours = {index.name for index in (bulk / ".git" / "objects" / "pack").glob("*.idx")}
    code = next(index for index in folder.glob("*.idx") if index.name not in ours)
    os.utime(code, (1_000_000_000, 1_000_000_000))  # older than memory's pack, as a clone's history is
    repo = pygit2.Repository(str(path))
    slices = PackSlices(path / ".git" / "objects")
    packs = {pack.name: pack for pack in slices._packs}
    memory = next(pack for name, pack in packs.items() if name != code.name)
    mine = [(oid, kind, data) for oid, kind, data in _objects_in(repo)
            if kind != pygit2.GIT_OBJECT_COMMIT and memory.offset(oid) is not None]
    assert len(mine) > 600  # a loose object would be looked for in every pack
    assert all(slices.read(oid, kind) == data for oid, kind, data in mine)
    assert packs[code.name]._keys is None and packs[code.name].count == 500
    theirs = pygit2.hash(b"code 7").raw
    assert slices.read(theirs, BLOB) == b"code 7" == repo.odb.read(pygit2.Oid(raw=theirs))[1]
    assert packs[code.name]._keys is None  # asked once: its index searched, its ids' keys not read
    for n in range(100):
        assert slices.read(pygit2.hash(f"code {n}".encode()).raw, BLOB) == f"code {n}".encode()
    assert packs[code.name]._keys is not None  # asked often: read
    slices.close()


def _flip(pack: Path, at: int) -> None:
    pack.chmod(0o644)
    with open(pack, "r+b") as f:
        f.seek(at)
        byte = f.read(1)[0]
        f.seek(at)
        f.write(bytes((byte ^ 0x01,)))


def _damage_a_record(path: Path, where: str) -> tuple[bytes, bytes]:
    """Flip a bit of a packed record's bytes (``bytes``) or of its zlib checksum (``checksum``);
    the record's raw id and its bytes as they were."""
    repo = pygit2.Repository(str(path))
    record = next(data for _, kind, data in _objects_in(repo) if kind == BLOB and b'"schema"' in data)
    oid = pygit2.hash(record).raw
    index = next((path / ".git" / "objects" / "pack").glob("*.idx"))
    pack = _Pack(index)
    at = pack.offset(oid)
    pack.close()
    assert at is not None
    head = 2 if len(record) >= 16 else 1
    start = at + head + 7  # past the object header, the zlib header and the stored block's
    _flip(index.with_suffix(".pack"), start + 10 if where == "bytes" else start + len(record) + 1)
    return oid, record


@pytest.mark.parametrize("where", ["bytes", "checksum"])
def test_a_flipped_byte_in_a_record_is_not_read_from_the_slice_and_verify_names_it(
        bulk: Path, tmp_path: Path, where: str) -> None:
    path = _copy(bulk, tmp_path / "repo")
    oid, _ = _damage_a_record(path, where)
    slices = PackSlices(path / ".git" / "objects")
    assert slices.read(oid, BLOB) is None
    slices.close()
    report = GitProvider(path, "w1").verify()
    assert not report.ok
    assert any(oid.hex() in str(p) for p in report.problems), report.problems


@pytest.mark.parametrize("offset", [0, 40, -6, -1], ids=["header", "stream", "checksum", "last"])
def test_a_flipped_byte_in_a_deflated_object_is_not_read_from_the_pack_and_verify_names_it(
        bulk: Path, tmp_path: Path, offset: int) -> None:
    """Damage anywhere in a deflated object's zlib stream (the stream's header, its blocks, its
    checksum) fails the inflate or the id: the read goes to libgit2, which reports it."""
    path = _copy(bulk, tmp_path / "repo")
    repo = pygit2.Repository(str(path))
    oid, data = _deflated(repo)
    index = next((path / ".git" / "objects" / "pack").glob("*.idx"))
    pack = _Pack(index)
    at = pack.offset(oid)
    ends = sorted(o for o in (pack.offset(i) for i, _, _ in _objects_in(repo)) if o is not None and o > at)
    end = ends[0] if ends else pack.pack.size() - 20
    pack.close()
    assert at is not None
    start = at + 3  # past the object's type and size (2000 bytes: three bytes)
    _flip(index.with_suffix(".pack"), start + offset if offset >= 0 else end + offset)
    objects = Objects(pygit2.Repository(str(path)))
    assert objects.slices.read(oid, BLOB) is None
    with pytest.raises(Unreadable):
        read_blob(objects, oid)
    objects.close()
    assert not GitProvider(path, "w1").verify().ok


def test_an_object_inflates_only_to_the_size_its_header_gives(tmp_path: Path) -> None:
    """A pack entry whose zlib stream holds more bytes, or fewer, than its header says is not
    read from the pack, and no more than that size plus one byte is ever inflated."""
    import zlib

    from gitstore.providers._packs import _inflated, _whole

    body = b"x" * 5000
    stream = zlib.compress(body)
    padded = tmp_path / "pack"
    padded.write_bytes(b"\0" * 8 + stream + b"\0" * 64)
    import mmap

    with open(padded, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert _inflated(mapped, 8, 5000) == body
        assert _inflated(mapped, 8, 4999) is None  # the stream holds more
        assert _inflated(mapped, 8, 5001) is None  # the stream ends first
        assert _inflated(mapped, 9, 5000) is None  # not where a stream starts
        entry = bytes((0x30 | (5000 & 0x0F) | 0x80, (5000 >> 4) & 0x7F | 0x80, 5000 >> 11)) + stream + b"\0" * 20
        padded.write_bytes(entry)
    with open(padded, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert _whole(mapped, 0, BLOB, pygit2.hash(body).raw) == body
    with open(padded, "r+b") as f:
        f.truncate(48 << 20)  # a big pack, mostly holes
    big = b"y" * 300_000  # several blocks of input
    with open(padded, "r+b") as f:
        f.seek(1 << 20)
        f.write(zlib.compress(big, 0))
    import tracemalloc

    with open(padded, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert _inflated(mapped, 1 << 20, len(big)) == big
        tracemalloc.start()
        try:
            assert _inflated(mapped, 3, 40 << 20) is None  # a size that lies: a stream of 5,000
            assert tracemalloc.get_traced_memory()[1] < 1 << 20  # a block at a time, no copy of the rest
        finally:
            tracemalloc.stop()
        assert _whole(mapped, 0, BLOB, pygit2.hash(body + b"!").raw) is None  # another id
        assert _whole(mapped, 0, TREE, pygit2.hash(body).raw) is None  # another kind


def test_pages_read_are_given_back(bulk: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``RESIDENT`` bytes read, the maps drop their pages; reads go on the same."""
    import gitstore.providers._packs as packs

    monkeypatch.setattr(packs, "RESIDENT", 1000)
    repo = pygit2.Repository(str(bulk))
    objects = Objects(repo)
    released = []
    monkeypatch.setattr(objects.slices, "release", lambda: released.append(1) or PackSlices.release(objects.slices))
    for oid, kind, data in _objects_in(repo):
        if kind == BLOB:
            assert read_blob(objects, oid) == data
    assert released
    objects.close()


def test_once_reads_keep_missing_each_asks_the_one_pack_holding_it(bulk: Path, tmp_path: Path) -> None:
    path = _copy(bulk, tmp_path / "repo")
    more = [R.event(f"q{i}", episode="q", seq=i) for i in range(300)]
    GitProvider(path, "w1").append_stream(Stream(iter(entries_for(more)), lambda: "shared"))
    repo = pygit2.Repository(str(path))
    objects = Objects(repo)
    assert len(objects.slices._packs) == 2
    objects.slices._owners_after = 1  # map at the first miss
    everything = [(oid, kind, data) for oid, kind, data in _objects_in(repo) if kind != pygit2.GIT_OBJECT_COMMIT]
    for oid, kind, data in everything + everything[::-1]:
        assert (read_blob(objects, oid) if kind == BLOB else read_tree_bytes(objects, oid)) == data
    assert objects.slices._owners is not None
    loose = repo.odb.write(BLOB, b"loose, in no pack")
    assert objects.slices.read(loose.raw, BLOB) is None and read_blob(objects, loose.raw) == b"loose, in no pack"
    objects.close()


def _blob(number: int) -> tuple[bytes, bytes]:
    data = b"prefix %d\n" % number
    return object_id(BLOB, data), data


def test_the_map_of_which_pack_holds_which_ids_names_one_pack_two_or_several(tmp_path: Path) -> None:
    """Ids that share their first three bytes: in one pack twice (that pack), in two packs
    (both, asked in turn), in three (every pack asked); every object reads the same, and one
    in none of the packs (loose, or absent) is left to the object database."""
    import gitstore.providers._packs as packs

    three, loose_pair, one_pack = (93, 243499, 368415), (1922, 130045, 431877), (26, 542657)
    for numbers in (three, loose_pair, one_pack):
        assert len({_blob(n)[0][:3] for n in numbers}) == 1  # the same first three bytes
    contents = [
        [*three[:1], *loose_pair[:1], *one_pack, 62],  # the oldest pack
        [three[1], loose_pair[1], 7],
        [three[2], 8],  # the newest
    ]
    repo = pygit2.init_repository(str(tmp_path / "repo"), bare=True)
    folder = tmp_path / "repo" / "objects" / "pack"
    for age, numbers in enumerate(contents):
        writer = PackWriter(tmp_path / "scratch")
        for number in numbers:
            oid, data = _blob(number)
            writer.add(oid, BLOB, data)
        name = writer.finish(folder)
        for suffix in (".pack", ".idx"):
            os.utime(folder / f"{name}{suffix}", (1_000_000 + age, 1_000_000 + age))
    loose, loose_data = _blob(loose_pair[2])
    assert repo.odb.write(BLOB, loose_data).raw == loose
    objects = Objects(repo)
    slices = objects.slices
    slices._owners = owners = slices._map_owners()  # newest first: the places are 0, 1, 2
    assert owners is not None

    def owner(number: int) -> int:
        oid = _blob(number)[0]
        return owners[oid[0] << 16 | oid[1] << 8 | oid[2]]

    assert owner(8) == 1 and owner(7) == 2 and owner(62) == 3 and owner(one_pack[0]) == 3
    assert owner(loose_pair[0]) == packs._PAIRS + 16 * 1 + 2  # the packs at places 1 and 2
    assert owner(three[0]) == packs._SHARED
    assert owner(5) == 0 and slices.read(_blob(5)[0], BLOB) is None  # no pack holds ids starting so
    for numbers in contents:
        for number in numbers:
            oid, data = _blob(number)
            assert slices.read(oid, BLOB) == data
            assert read_blob(objects, oid) == data
    assert slices.read(loose, BLOB) is None and read_blob(objects, loose) == loose_data
    objects.close()


def test_appends_that_read_folders_as_slices_store_what_they_would_through_libgit2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same appends (a bulk one, then one of stored and new entries) with folders read as
    pack slices and through libgit2: the same trees, the same answer, and both verify."""
    import gitstore.providers._packs as packs_module
    import gitstore.providers.git as provider_module

    first = [R.event(f"s{i}", episode="s", seq=i) for i in range(300)]
    second = first[::3] + [R.event(f"n{i}", episode="n", seq=i) for i in range(300)]
    trees, sliced = [], []
    real_read = PackSlices.read

    def counted(self: PackSlices, oid: bytes, kind: int, limit: int = NO_LIMIT) -> bytes | None:
        found = real_read(self, oid, kind, limit)
        if all(self is not headers for headers in packs_module._HEADERS.values()):  # the append's own slices
            sliced.append(found is not None)
        return found

    monkeypatch.setattr(PackSlices, "read", counted)
    for threshold in (1, 1 << 30):
        monkeypatch.setattr(provider_module, "SLICES_FROM", threshold)
        path = tmp_path / f"repo{threshold}"
        git(tmp_path, "init", "-q", str(path))
        provider = GitProvider(path, "w1")
        provider.append_stream(Stream(iter(entries_for(first)), lambda: "shared"))
        sliced.clear()
        result = provider.append_stream(Stream(iter(entries_for(second)), lambda: "shared"))
        assert len(result.existing) == 100 and len(result.added) == 300
        assert any(sliced) == (threshold == 1)  # the first's folders read from its pack, or not
        repo = pygit2.Repository(str(path))
        trees.append(repo[repo.references[records_ref("shared", "w1")].target].tree_id)
        assert GitProvider(path, "w1").verify().ok
    assert trees[0] == trees[1]


def test_a_reader_of_every_payload_reads_them_from_the_packs_the_same(
        bulk: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every payload, the deflated one too, reads the same out of the mapped packs as through
    libgit2; a reader of payloads its caller picked reads through libgit2."""
    sliced: list[bool] = []
    real_read = PackSlices.read

    def counted(self: PackSlices, oid: bytes, kind: int, limit: int = NO_LIMIT) -> bytes | None:
        found = real_read(self, oid, kind, limit)
        if kind == BLOB:
            sliced.append(found is not None)
        return found

    monkeypatch.setattr(PackSlices, "read", counted)
    provider = GitProvider(bulk, "w1")
    digests = [e.data.split(b'"payloadDigest":"')[1].split(b'"')[0].decode() for e in provider.read()
               if e.kind == "event"]
    assert len(digests) == 300
    through_libgit2 = [provider.payload(d) for d in digests]
    assert not sliced
    for selective in (False, True):
        sliced.clear()
        reader = GitProvider(bulk, "w1").payload_reader(selective=selective)
        found = [reader(d) for d in digests]
        assert found == through_libgit2 and all(found)
        assert any(len(f or b"") > 1024 for f in found)
        assert sliced == ([] if selective else [True] * 300)


# -- reading packs first --------------------------------------------------------------------------


def test_packs_first_reads_every_object_as_the_object_database_does(bulk: Path) -> None:
    repo = pygit2.Repository(str(bulk))
    first = PackFirst(repo)
    for oid, kind, data in _objects_in(repo):
        if kind != pygit2.GIT_OBJECT_COMMIT:
            assert (read_blob(first, oid) if kind == BLOB else read_tree_bytes(first, oid)) == data
    loose = [pygit2.Oid(hex=f.parent.name + f.name) for f in (bulk / ".git" / "objects").glob("??/*")]
    read = [oid for oid in loose if repo.odb.read(oid)[0] != pygit2.GIT_OBJECT_COMMIT]  # tests before wrote some
    assert first.misses == len(read) < PACK_MISSES


def test_packs_first_finds_loose_objects_and_stops_asking_the_packs_first(bulk: Path, tmp_path: Path) -> None:
    repo = pygit2.Repository(str(_copy(bulk, tmp_path / "repo")))
    first = PackFirst(repo)
    loose = [repo.odb.write(BLOB, b"loose %d" % n).raw for n in range(PACK_MISSES + 3)]
    packed = next(oid for oid, kind, _ in _objects_in(repo) if kind == BLOB)
    for n, oid in enumerate(loose):
        assert read_blob(first, oid) == b"loose %d" % n
        assert first.misses == min(n + 1, PACK_MISSES)
    assert read_blob(first, packed) == repo.odb.read(pygit2.Oid(raw=packed))[1]
    with pytest.raises(Unreadable, match="is missing"):
        read_blob(PackFirst(repo), b"\x01" * 20)
    with pytest.raises(Unreadable, match="is not a tree"):
        read_tree_bytes(PackFirst(repo), packed)


@pytest.mark.parametrize("where", ["bytes", "checksum"])
def test_packs_first_never_reads_a_damaged_packed_record(bulk: Path, tmp_path: Path, where: str) -> None:
    path = _copy(bulk, tmp_path / "repo")
    oid, record = _damage_a_record(path, where)
    try:
        data = read_blob(PackFirst(pygit2.Repository(str(path))), oid)
    except Unreadable as exc:
        assert oid.hex() in str(exc)
    else:
        assert data == record  # a flipped byte libgit2 passes over (an Adler-32 it does not check)


def _packs_sharing_objects(root: Path, packs: int) -> Path:
    """A repository of ``packs`` packs of 40 blobs each, every pack also holding a few blobs of
    the one before it (ids two packs share), and a few loose blobs in none."""
    git(root.parent, "init", "-q", root.name)
    repo = pygit2.Repository(str(root))
    written = [[repo.create_blob(f"pack {p} blob {i}\n".encode()) for i in range(40)] for p in range(packs)]
    for p, blobs in enumerate(written):
        shared = written[p - 1][:5] if p else []
        listing = "".join(f"{oid}\n" for oid in [*blobs, *shared])
        subprocess.run(["git", "pack-objects", "-q", str(root / ".git/objects/pack/pack")], cwd=root,
                       input=listing.encode(), check=True, capture_output=True)
    git(root, "prune-packed")
    for i in range(5):
        repo.create_blob(f"loose blob {i}\n".encode())
    return root


@pytest.mark.parametrize("packs", [3, 20], ids=["pairs named", "shared"])
def test_the_sorted_owners_map_answers_as_the_table_does(tmp_path: Path, packs: int) -> None:
    """``_SortedOwners`` (the header reader's map: bytes for the prefixes held, not a table of
    every prefix) says for every prefix what the table says: one pack, a pair, shared, none."""
    root = _packs_sharing_objects(tmp_path / "repo", packs)
    folder = root / ".git/objects"
    table = PackSlices(folder)._map_owners()
    sorted_owners = PackSlices(folder, sorted_owners=True)._map_owners()
    assert table is not None and sorted_owners is not None
    held = [prefix for prefix in range(1 << 24) if table[prefix]]
    assert len(held) >= packs * 40  # every id of every pack
    codes = {table[prefix] for prefix in held}
    assert (any(16 <= code < 255 for code in codes) if packs <= 15 else 255 in codes)  # ids two packs hold
    for prefix in held:
        assert sorted_owners[prefix] == table[prefix], hex(prefix)
    for prefix in (0, 1, (1 << 24) - 1, *(p + 1 for p in held[:50]), *(p - 1 for p in held[:50])):
        assert sorted_owners[prefix] == table[prefix], hex(prefix)


def test_bounded_reads_through_the_database_come_from_the_header_packs_and_give_pages_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bounded read of a whole packed object is read out of the packs headers are read from
    (checked, no second lookup by libgit2); loose objects still read through libgit2; the pages
    those packs touched are dropped as they pass the header reader's budget, and only the packs
    touched are told to."""
    import gitstore.providers._packs as packs_module
    from gitstore.providers._objects import read_blob as bounded_blob

    root = _packs_sharing_objects(tmp_path / "repo", 6)
    monkeypatch.setattr(packs_module, "HEADERS_RESIDENT", 3 * packs_module.FAULT)
    packs_module._HEADERS.clear()
    repo = pygit2.Repository(str(root))
    asked: list[bytes] = []
    real_read = Database.read
    monkeypatch.setattr(Database, "read", lambda self, oid: asked.append(oid.raw) or real_read(self, oid))
    released: list[set[str]] = []
    real_release = _Pack.release
    told: set[str] = set()
    monkeypatch.setattr(_Pack, "release", lambda self: told.add(self.name) or real_release(self))
    real_slices_release = PackSlices.release

    def counted(self: PackSlices) -> None:
        told.clear()
        real_slices_release(self)
        released.append(set(told))

    monkeypatch.setattr(PackSlices, "release", counted)
    database = Database(repo)
    loose = set()
    for oid, kind, data in _objects_in(repo):
        assert bounded_blob(database, oid, 1 << 20) == data
        if (root / ".git/objects" / oid.hex()[:2] / oid.hex()[2:]).exists():
            loose.add(oid)
    assert set(asked) == loose and len(loose) == 5  # libgit2 read only what no pack holds
    assert released and all(0 < len(names) < 6 for names in released)  # a few packs a time, not all six


@pytest.mark.parametrize("version", ["1", "2", "2,16"], ids=["index v1", "index v2", "v2, large offsets"])
def test_a_pack_answers_the_same_searched_and_from_its_keys(tmp_path: Path, version: str) -> None:
    """A pack asked a few times searches its index (a process asking a repository's big code
    pack for a header's copies reads none of its ids' keys); from ``KEYS_AFTER`` lookups on it
    reads the keys: both give git's offsets for every id, and None for ids it lacks."""
    from gitstore.providers import _packs as packs_module

    root = _packs_sharing_objects(tmp_path / "repo", 1)
    pack = next((root / ".git/objects/pack").glob("*.pack"))
    again = tmp_path / "again.pack"
    subprocess.run(["cp", str(pack), str(again)], check=True)
    git(root, "index-pack", f"--index-version={version}", "-o", str(tmp_path / "again.idx"), str(again))
    listing = git(root, "verify-pack", "-v", str(tmp_path / "again.idx"))
    truth = {bytes.fromhex(f[0]): int(f[4]) for line in listing.splitlines() if len(f := line.split()) >= 5
             and len(f[0]) == 40}
    assert len(truth) == 40
    near = [bytes([*oid[:19], oid[19] ^ 1]) for oid in truth] + [bytes(20), b"\xff" * 20]
    searched = _Pack(tmp_path / "again.idx")
    for oid, at in truth.items():
        assert searched.offset(oid) == at
    assert all(searched.offset(oid) is None for oid in near[:20] if oid not in truth)
    assert searched._keys is None  # fewer lookups than KEYS_AFTER: searched
    keyed = _Pack(tmp_path / "again.idx")
    for _ in range(packs_module.KEYS_AFTER // len(truth) + 1):
        for oid, at in truth.items():
            assert keyed.offset(oid) == at
    assert keyed._keys is not None
    assert all(keyed.offset(oid) is None for oid in near if oid not in truth)
    for oid, at in truth.items():
        assert keyed.offset(oid) == at


def test_bounded_reads_just_after_a_repack_read_every_object_old_and_new(tmp_path: Path) -> None:
    """The packs a bounded read slices are looked at again once a second, not at every read: a
    repack that deletes them and writes a pack holding a new object too, just after a read, must
    still give every object's bytes, old ones (the deleted packs stay mapped) and the new one
    (missed there, read through libgit2)."""
    import gitstore.providers._packs as packs_module

    root = _packs_sharing_objects(tmp_path / "repo", 2)
    repo = pygit2.Repository(str(root))
    before = {oid: (kind, data) for oid, kind, data in _objects_in(repo)}
    packs_module._HEADERS.clear()
    database = Database(repo)
    first = next(oid for oid, (kind, _) in before.items() if kind == BLOB)
    assert read_blob(database, first) == before[first][1]  # the packs mapped, and looked at just now
    new = repo.create_blob(b"written after the packs were mapped\n")
    old_packs = list((root / ".git/objects/pack").glob("pack-*"))
    listing = "".join(f"{pygit2.Oid(raw=oid)}\n" for oid in [*before, new.raw])
    subprocess.run(["git", "pack-objects", "-q", str(root / ".git/objects/pack/pack")], cwd=root,
                   input=listing.encode(), check=True, capture_output=True)  # one pack of every object
    for path in old_packs:  # as a repack deletes them
        path.unlink()
    git(root, "prune-packed")
    assert len(list((root / ".git/objects/pack").glob("*.pack"))) == 1
    assert read_blob(Database(repo), new.raw) == b"written after the packs were mapped\n"
    for oid, (kind, data) in before.items():
        if kind == BLOB:
            assert read_blob(Database(repo), oid) == data
