"""Objects' types and sizes read from the headers git wrote (a loose file's, a pack entry's
through its chain of deltas), checked against git's own answers, and damage to a delta's
base refused with a plain error: libgit2's ``read_header`` fails part way through such a chain
holding the size it read, and pygit2 then wrote past its buffer (a crash, or a stack
overwritten, and an error text with whatever bytes followed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from gitstore.providers._packs import read_header

from .conftest import git

KINDS = {"commit": pygit2.GIT_OBJECT_COMMIT, "tree": pygit2.GIT_OBJECT_TREE, "blob": pygit2.GIT_OBJECT_BLOB,
         "tag": pygit2.GIT_OBJECT_TAG}


@pytest.fixture(autouse=True)
def _fixed_dates(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same commits, so the same ids and the same packing, on every run."""
    for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(name, "1767225600 +0000")


def _history(root: Path, offsets: bool) -> Path:
    """A repository whose files grew by a line and had one more changed in each of a dozen
    commits, repacked so that most of its blobs and trees are deltas in chains (their bases
    named by offset, or by id), then given a commit and an annotated tag left loose."""
    git(root.parent, "init", "-q", root.name)
    for step in range(12):
        for folder in ("a", "a/b", "c"):
            (root / folder).mkdir(parents=True, exist_ok=True)
            lines = [f"line {n} of {folder}" for n in range(60 + step)]
            for earlier in range(step + 1):  # each version nearest the one before it: chains
                lines[earlier * 5] = f"changed in step {earlier}"
            (root / folder / "notes.txt").write_text("\n".join(lines) + "\n")
        git(root, "add", "-A")
        git(root, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", f"step {step}")
    git(root, "-c", f"repack.useDeltaBaseOffset={str(offsets).lower()}", "repack", "-a", "-d", "-f", "-q",
        "--window=50", "--depth=8")
    (root / "late.txt").write_text("written after the repack\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "late")
    git(root, "-c", "user.name=t", "-c", "user.email=t@x", "tag", "-a", "-m", "a tag", "v1")
    return root


def _deltas(root: Path) -> list[tuple[str, int]]:
    """(id, offset in its pack) of every delta in the repository's one pack."""
    listing = git(root, "verify-pack", "-v", *map(str, (root / ".git/objects/pack").glob("*.idx")))
    return [(fields[0], int(fields[4])) for line in listing.splitlines() if len(fields := line.split()) == 7]


@pytest.mark.parametrize("offsets", [True, False], ids=["by-offset", "by-id"])
def test_every_objects_type_and_size_are_what_git_says(tmp_path: Path, offsets: bool) -> None:
    root = _history(tmp_path / "r", offsets)
    deltas = _deltas(root)
    assert len(deltas) > 20 and max(depth for depth in _depths(root)) > 1  # chains, not single deltas
    assert (root / ".git/objects" / git(root, "rev-parse", "v1")[:2]).is_dir()  # a loose tag
    repo = pygit2.Repository(str(root))
    listed = git(root, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype) %(objectsize)")
    for line in listed.splitlines():
        name, kind, size = line.split()
        assert read_header(repo, pygit2.Oid(hex=name))[:2] == (KINDS[kind], int(size)), line
    with pytest.raises(KeyError):
        read_header(repo, pygit2.Oid(hex="13" * 20))


def _depths(root: Path) -> list[int]:
    listing = git(root, "verify-pack", "-v", *map(str, (root / ".git/objects/pack").glob("*.idx")))
    return [int(fields[5]) for line in listing.splitlines() if len(fields := line.split()) == 7]


def _base_field(data: bytes, at: int) -> int:
    """Where the base of the delta entry at ``at`` is named: past its type-and-size header."""
    i = at
    while data[i] & 0x80:
        i += 1
    return i + 1


@pytest.mark.parametrize("offsets", [True, False], ids=["by-offset", "by-id"])
def test_a_delta_whose_base_is_not_in_the_pack_is_damage(tmp_path: Path, offsets: bool) -> None:
    """Each delta's base, named by id, replaced by an id the pack lacks; or, named by offset,
    by the farthest distance back its bytes can say: before the pack's start, for the deltas
    near it, refused as such (a distance that stays inside lands on anything)."""
    root = _history(tmp_path / "r", offsets)
    pack = next((root / ".git/objects/pack").glob("*.pack"))
    data = bytearray(pack.read_bytes())
    deltas = _deltas(root)
    outside = set()
    for name, at in deltas:
        field = _base_field(data, at)
        if offsets:
            end, back = field, 0x7F
            while data[end] & 0x80:
                data[end] = 0xFF
                end += 1
                back = ((back + 1) << 7) | 0x7F
            data[end] = 0x7F
            if back > at - 12:
                outside.add(name)
        else:
            data[field:field + 20] = b"\x13" * 20
    pack.chmod(0o644)
    pack.write_bytes(bytes(data))
    repo = pygit2.Repository(str(root))
    for name, _ in deltas:
        try:
            read_header(repo, pygit2.Oid(hex=name))
        except ValueError as exc:  # a distance that stays inside the pack lands anywhere: damage of any kind
            if offsets and name not in outside:
                continue
            assert ("outside the pack" if offsets else "names a base that is not here") in str(exc)
        else:
            assert offsets and name not in outside, name
    assert not offsets or outside


def test_verify_of_a_store_whose_tree_delta_lost_its_base_exits_3_naming_it_in_plain_text(tmp_path: Path) -> None:
    """A store repacked with its bases named by id, each delta's base then replaced by an id
    the pack lacks: verify, in processes of different hash seeds (which change the order it
    reads in), names the damage and exits 3, every character of what it prints printable."""
    from .world import small_store

    ctx, _ = small_store(tmp_path / "w")
    root = ctx.workspace.root
    git(root, "-c", "repack.useDeltaBaseOffset=false", "repack", "-a", "-d", "-f", "-q", "--window=250", "--depth=50")
    git(root, "prune-packed")
    pack = next((root / ".git/objects/pack").glob("*.pack"))
    data = bytearray(pack.read_bytes())
    deltas = _deltas(root)
    assert deltas
    for _, at in deltas:
        field = _base_field(data, at)
        data[field:field + 20] = b"\x13" * 20
    pack.chmod(0o644)
    pack.write_bytes(bytes(data))
    for seed in ("1", "2", "3"):
        done = subprocess.run([sys.executable, "-m", "gitstore", "verify"], cwd=root, capture_output=True, text=True,
                              errors="replace", env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 3, (done.returncode, done.stderr[-2000:])
        said = done.stdout + done.stderr
        assert "names a base that is not here" in said and "Traceback" not in said, said
        assert all(c.isprintable() for line in said.splitlines() for c in line), said


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _entry(kind: int, delta: bytes, base: bytes) -> bytes:
    """A pack entry of ``kind`` (6, a delta on a base named by distance back; 7, by id)."""
    import zlib

    size = len(delta)
    head = bytearray([(0x80 if size >> 4 else 0) | kind << 4 | size & 0x0F])
    size >>= 4
    while size:
        head.append((0x80 if size >> 7 else 0) | size & 0x7F)
        size >>= 7
    return bytes(head) + base + zlib.compress(delta)


def _distance(back: int) -> bytes:
    """``back`` in git's encoding of an offset delta's distance to its base."""
    out = [back & 0x7F]
    back >>= 7
    while back:
        back -= 1
        out.insert(0, 0x80 | back & 0x7F)
        back >>= 7
    return bytes(out)


def _write_pack(folder: Path, entries: list[tuple[bytes, bytes]], version: int = 2, large: bool = False,
                name: str = "") -> None:
    """A pack of ``entries`` (id, entry bytes), in that order, and its index: version 2 (with
    ``large``, its last row's offset given through the table of offsets past 2 GiB, as git may
    write any), or git's first version; named ``pack-<trailer>`` unless ``name`` is given."""
    import hashlib
    import struct
    import zlib

    body = b"PACK" + struct.pack(">II", 2, len(entries))
    rows = []
    for oid, data in entries:
        rows.append((oid, data, len(body)))
        body += data
    trailer = hashlib.sha1(body).digest()
    rows.sort()
    fanout = b"".join(struct.pack(">I", sum(row[0][0] <= byte for row in rows)) for byte in range(256))
    if version == 1:
        index = fanout + b"".join(struct.pack(">I", row[2]) + row[0] for row in rows) + trailer
    else:
        offsets = [struct.pack(">I", row[2]) for row in rows]
        table = b""
        if large:
            offsets[-1], table = struct.pack(">I", 0x80000000), struct.pack(">Q", rows[-1][2])
        index = (b"\xfftOc" + struct.pack(">I", 2) + fanout + b"".join(row[0] for row in rows)
                 + b"".join(struct.pack(">I", zlib.crc32(row[1])) for row in rows) + b"".join(offsets) + table
                 + trailer)
    index += hashlib.sha1(index).digest()
    folder.mkdir(parents=True, exist_ok=True)
    stem = name or f"pack-{trailer.hex()}"
    (folder / f"{stem}.pack").write_bytes(body + trailer)
    (folder / f"{stem}.idx").write_bytes(index)


def _broken_chain(claimed: bytes, result_size: int) -> list[tuple[bytes, bytes]]:
    """Two entries: object ``claimed``, a delta whose result would be ``result_size`` bytes, on
    a base that is itself a delta on a base named by an id no pack holds."""
    inner = _entry(7, _varint(10) + _varint(10) + b"\x01x", b"\x13" * 20)
    outer = _entry(6, _varint(10) + _varint(result_size) + b"\x01x", _distance(len(inner)))
    return [(b"\x11" * 20, inner), (claimed, outer)]


@pytest.mark.parametrize("layout", ["v2", "v1", "large", "named", "alternate"])
def test_a_commit_whose_delta_chain_breaks_is_refused_in_a_process_that_goes_on(tmp_path: Path, layout: str) -> None:
    """A pack entry claiming a commit's id, a delta of 1 GiB whose chain of bases breaks a
    step on: reading the commit's header (as every walk of a writer's history does, before the
    commit is parsed) is a plain error, and the process goes on to say so, wherever libgit2
    would find the pack: indexed in git's first version or through the table of offsets past
    2 GiB, named otherwise than ``pack-*``, or in an object folder the alternates name."""
    git(tmp_path, "init", "-q", "r")
    root = tmp_path / "r"
    claimed = bytes.fromhex("5a" * 20)
    folder = root / ".git" / "objects" / "pack"
    if layout == "alternate":
        folder = tmp_path / "elsewhere" / "pack"
        (root / ".git" / "objects" / "info" / "alternates").write_text("../../../elsewhere\n")  # from .git/objects
    _write_pack(folder, _broken_chain(claimed, 1 << 30), version=1 if layout == "v1" else 2,
                large=layout == "large", name="x" if layout == "named" else "")
    script = ("import sys, pygit2\n"
              "from gitstore.providers._objects import load_commit\n"
              f"repo = pygit2.Repository({str(root)!r})\n"
              "try:\n"
              f"    load_commit(repo, pygit2.Oid(hex={claimed.hex()!r}))\n"
              "except ValueError as exc:\n"
              "    print('refused:', exc)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, errors="replace")
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.startswith("refused: the delta at offset 12 of ") and "not here" in done.stdout, done.stdout


def test_a_small_delta_on_a_huge_base_is_held_to_the_base_s_size(tmp_path: Path) -> None:
    """A tree of a few bytes stored as a delta on a base of 20 MiB: its header says what
    reading it would inflate, so a bounded read refuses it before inflating anything."""
    import hashlib
    import zlib

    from gitstore.providers._objects import MAX_TREE_BYTES, Oversized, read_tree_bytes
    from gitstore.providers._packs import Database

    git(tmp_path, "init", "-q", "r")
    root = tmp_path / "r"
    big = 20 << 20
    base = bytes(_whole_header(2, big)) + zlib.compress(b"\0" * big, 1)
    small = b"40000 a\0" + b"\x11" * 20
    delta = _entry(6, _varint(big) + _varint(len(small)) + bytes([len(small)]) + small, _distance(len(base)))
    claimed = hashlib.sha1(b"tree %d\0%s" % (len(small), small)).digest()
    _write_pack(root / ".git" / "objects" / "pack", [(b"\x22" * 20, base), (claimed, delta)])
    repo = pygit2.Repository(str(root))
    assert read_header(repo, pygit2.Oid(raw=claimed)) == (pygit2.GIT_OBJECT_TREE, len(small), big)
    with pytest.raises(Oversized, match=f"is {big} bytes, over the 16 MiB"):
        read_tree_bytes(Database(repo), claimed)
    assert big > MAX_TREE_BYTES


def _whole_header(kind: int, size: int) -> bytearray:
    head = bytearray([(0x80 if size >> 4 else 0) | kind << 4 | size & 0x0F])
    size >>= 4
    while size:
        head.append((0x80 if size >> 7 else 0) | size & 0x7F)
        size >>= 7
    return head


def test_deltas_naming_each_other_are_refused_at_once(tmp_path: Path) -> None:
    """Two deltas, each on the other by id: a loop, named as such on its first repeat."""
    git(tmp_path, "init", "-q", "r")
    root = tmp_path / "r"
    one, other = b"\x31" * 20, b"\x32" * 20
    delta = _varint(10) + _varint(10) + b"\x01x"
    _write_pack(root / ".git" / "objects" / "pack", [(one, _entry(7, delta, other)), (other, _entry(7, delta, one))])
    with pytest.raises(ValueError, match="loops back"):
        read_header(pygit2.Repository(str(root)), pygit2.Oid(raw=one))


def test_loose_objects_git_wrote_at_every_compression_read_as_git_reads_them(tmp_path: Path) -> None:
    """This package's own sources written loose (at git's default compression and at its
    strongest, where a first block's own header can run past a hundred bytes): each header as
    ``git cat-file`` gives it; a folder where a loose file should be is damage, not a crash."""
    sources = sorted(str(path) for path in Path(__file__).resolve().parent.parent.joinpath("gitstore").rglob("*.py"))
    for level in ("-1", "9"):
        root = tmp_path / f"r{level}"
        git(tmp_path, "init", "-q", root.name)
        names = subprocess.run(["git", "-c", f"core.compression={level}", "hash-object", "-w", "--stdin-paths"],
                               cwd=root, input="\n".join(sources) + "\n", capture_output=True, text=True,
                               check=True).stdout.split()
        repo = pygit2.Repository(str(root))
        for name, path in zip(names, sources):
            assert read_header(repo, pygit2.Oid(hex=name)) == (pygit2.GIT_OBJECT_BLOB,) + (Path(path).stat().st_size,) * 2
    loose = root / ".git" / "objects" / names[0][:2] / names[0][2:]
    loose.chmod(0o644)
    loose.unlink()
    loose.mkdir()
    with pytest.raises(ValueError, match="cannot be read"):
        read_header(pygit2.Repository(str(root)), pygit2.Oid(hex=names[0]))


@pytest.mark.parametrize("where", ["same folder", "alternate"])
def test_a_copy_that_is_a_delta_on_a_huge_base_bounds_the_object_wherever_it_is(tmp_path: Path, where: str) -> None:
    """A small tree held twice, whole in one pack and, in another (of the same object folder,
    or of one the alternates name, as a fetch or a reference clone brings), as a delta on a
    base of 20 MiB: libgit2 may read either copy, so the header is held to the bigger."""
    import hashlib
    import zlib

    git(tmp_path, "init", "-q", "r")
    root = tmp_path / "r"
    big = 20 << 20
    small = b"40000 a\0" + b"\x11" * 20
    claimed = hashlib.sha1(b"tree %d\0%s" % (len(small), small)).digest()
    base = bytes(_whole_header(2, big)) + zlib.compress(b"\0" * big, 1)
    delta = _entry(6, _varint(big) + _varint(len(small)) + bytes([len(small)]) + small, _distance(len(base)))
    whole = bytes(_whole_header(2, len(small))) + zlib.compress(small)
    own = root / ".git" / "objects" / "pack"
    _write_pack(own, [(claimed, whole)], name="pack-whole")
    if where == "alternate":
        (root / ".git" / "objects" / "info" / "alternates").write_text(f"# a reference clone\n{tmp_path / 'ref'}\n")
        _write_pack(tmp_path / "ref" / "pack", [(b"\x22" * 20, base), (claimed, delta)], name="pack-delta")
    else:
        _write_pack(own, [(b"\x22" * 20, base), (claimed, delta)], name="pack-delta")
    later = (own / "pack-whole.idx").stat().st_mtime + 100
    os.utime(own / "pack-whole.idx", (later, later))  # the whole copy's pack the newest: asked first
    assert read_header(pygit2.Repository(str(root)), pygit2.Oid(raw=claimed)) == (pygit2.GIT_OBJECT_TREE, len(small), big)


def test_alternates_six_folders_deep_are_read_as_git_reads_them(tmp_path: Path) -> None:
    """A clone of a clone of ... (each ``--shared``), its objects six folders away: found, as
    git finds them; a line holding a NUL names no folder and is passed over."""
    git(tmp_path, "init", "-q", "origin")
    origin = tmp_path / "origin"
    (origin / "f").write_text("text\n")
    git(origin, "add", "f")
    git(origin, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "one")
    source = origin
    for depth in range(6):
        git(tmp_path, "clone", "-q", "--shared", str(source), f"c{depth}")
        source = tmp_path / f"c{depth}"
    alternates = source / ".git" / "objects" / "info" / "alternates"
    alternates.write_text(alternates.read_text() + "/nowhere\0/x\n")
    head = git(source, "rev-parse", "HEAD").strip()
    assert git(source, "cat-file", "-t", head).strip() == "commit"
    assert read_header(pygit2.Repository(str(source)), pygit2.Oid(hex=head))[0] == pygit2.GIT_OBJECT_COMMIT


def test_the_packs_a_process_reads_headers_from_follow_the_folder_while_lookups_find(tmp_path: Path) -> None:
    """A long-running process (the MCP server) whose lookups all find what they ask: once the
    pack folder changed (``git gc`` wrote one pack and deleted the others) its next lookup
    reads the new packs and lets go of the old; an alternate added meanwhile is read too."""
    from gitstore.providers import _packs

    root = _history(tmp_path / "r", True)
    repo = pygit2.Repository(str(root))
    head = pygit2.Oid(hex=git(root, "rev-parse", "HEAD~1").strip())  # packed before and after
    objects = str(root / ".git" / "objects")
    read_header(repo, head)
    before = _packs.headers_of(objects)
    assert _packs.headers_of(objects) is before  # nothing changed: the same packs
    git(root, "gc", "-q", "--aggressive", "--prune=now")
    read_header(repo, head)
    assert _packs.headers_of(objects) is not before
    other = _history(tmp_path / "other", True)
    git(other, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "--allow-empty", "-m", "only there")
    elsewhere = pygit2.Oid(hex=git(other, "rev-parse", "HEAD").strip())
    with pytest.raises(KeyError):
        read_header(repo, elsewhere)
    (root / ".git" / "objects" / "info" / "alternates").write_text(f"{other / '.git' / 'objects'}\n")
    assert read_header(pygit2.Repository(str(root)), elsewhere)[0] == pygit2.GIT_OBJECT_COMMIT


def test_a_base_named_by_id_is_the_one_in_the_delta_s_own_pack(tmp_path: Path) -> None:
    """A tree stored as a delta on a base named by id, that base in the same pack a delta on
    20 MiB, and whole (small) in a newer pack: libgit2 takes the base from the delta's own
    pack, so the header is held to the 20 MiB."""
    import hashlib
    import zlib

    git(tmp_path, "init", "-q", "r")
    root = tmp_path / "r"
    big = 20 << 20
    small = b"40000 a\0" + b"\x11" * 20
    base_id = hashlib.sha1(b"tree %d\0%s" % (len(small), small)).digest()
    tree = b"40000 b\0" + b"\x11" * 20
    claimed = hashlib.sha1(b"tree %d\0%s" % (len(tree), tree)).digest()
    huge = bytes(_whole_header(2, big)) + zlib.compress(b"\0" * big, 1)
    base = _entry(6, _varint(big) + _varint(len(small)) + bytes([len(small)]) + small, _distance(len(huge)))
    on_base = _entry(7, _varint(len(small)) + _varint(len(tree)) + bytes([len(tree)]) + tree, base_id)
    own = root / ".git" / "objects" / "pack"
    _write_pack(own, [(b"\x22" * 20, huge), (base_id, base), (claimed, on_base)], name="pack-chain")
    _write_pack(own, [(base_id, bytes(_whole_header(2, len(small))) + zlib.compress(small))], name="pack-whole")
    later = (own / "pack-chain.idx").stat().st_mtime + 100
    os.utime(own / "pack-whole.idx", (later, later))  # the whole base's pack the newest: asked first
    repo = pygit2.Repository(str(root))
    read_header(repo, pygit2.Oid(raw=base_id))  # the last pack a lookup found something in: the whole one
    assert read_header(repo, pygit2.Oid(raw=claimed)) == (pygit2.GIT_OBJECT_TREE, len(tree), big)
