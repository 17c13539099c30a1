"""Memory's refs found as git finds them, by the store and by the delivery hook's fingerprint:
loose or packed (a user's ``git gc`` packs them), in a linked worktree, beside many refs of the
repository's own, and never a broken file or a ref being written. ``git for-each-ref`` is the
judge."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any

import pygit2
import pytest

from gitstore._gitrefs import packed_under
from gitstore.conformance import _records as R
from gitstore.conformance import batch
from gitstore.deliver import heads
from gitstore.providers import _gitdirs
from gitstore.providers._gitdirs import ref_names, ref_targets, state_dir
from gitstore.providers.git import PREFIX, GitProvider, misplaced_refs, stray_local_refs, tips_log

from .conftest import git


def git_lists(repo: Path, prefix: str) -> list[str]:
    """What git itself lists under ``prefix`` (it warns about a broken ref and leaves it out)."""
    return sorted(git(repo, "for-each-ref", "--format=%(refname)", prefix).split())


def mixed(tmp_path: Path) -> Path:
    """A repository with memory refs loose, packed, both, and refs of its own beside them."""
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    git(repo, "commit", "-q", "--allow-empty", "-m", "one")
    first = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "commit", "-q", "--allow-empty", "-m", "two")
    for name in ("records/shared/w1", "payloads/shared/w1", "remotes/origin/records/shared/w2",
                 "remotes/origin/payloads/shared/w2", "records/shared/gone"):
        git(repo, "update-ref", PREFIX + name, first)
    for n in range(50):
        git(repo, "tag", f"v{n}")
    git(repo, "update-ref", "refs/memory/sync/origin/records/shared/w3", first)
    git(repo, "pack-refs", "--all")  # as ``git gc`` does
    git(repo, "update-ref", PREFIX + "records/shared/w1", "HEAD")  # loose, over its packed self
    git(repo, "update-ref", PREFIX + "records/local/w9", "HEAD")  # loose only
    git(repo, "update-ref", "-d", PREFIX + "records/shared/gone")  # packed-refs written again without it
    return repo


def test_names_are_what_git_lists_loose_packed_and_both(tmp_path: Path) -> None:
    repo = mixed(tmp_path)
    opened = pygit2.Repository(str(repo))
    expected = git_lists(repo, PREFIX)
    assert PREFIX + "records/shared/gone" not in expected and len(expected) == 5
    assert ref_names(opened, PREFIX) == expected
    assert ref_names(opened, PREFIX) == sorted(n for n in opened.references if n.startswith(PREFIX))
    assert ref_names(opened, PREFIX + "remotes/") == git_lists(repo, PREFIX + "remotes/")
    assert ref_names(opened, "refs/memory/") == git_lists(repo, "refs/memory/")
    assert ref_names(opened, PREFIX + "records/nowhere/") == []
    local = PREFIX + "records/local/w9"
    assert misplaced_refs(opened) == [] and stray_local_refs(opened) == [local], "a ref this clone never logged"
    state_dir(opened).mkdir(exist_ok=True)
    tips_log(state_dir(opened), local).write_text(git(repo, "rev-parse", local).strip() + "\n")
    assert misplaced_refs(opened) == [local] and stray_local_refs(opened) == []


def test_a_broken_file_a_ref_being_written_and_a_name_git_refuses_are_left_out(tmp_path: Path) -> None:
    repo = mixed(tmp_path)
    folder = repo / ".git" / PREFIX / "records" / "shared"
    (folder / "broken").write_text("not an object id\n")
    (folder / "w5.lock").write_text(git(repo, "rev-parse", "HEAD"))  # git renames it into place when done
    (folder / "bad..name").write_text(git(repo, "rev-parse", "HEAD"))
    (folder / "empty").write_bytes(b"")
    (folder / "nested").mkdir()
    (folder / "nested" / "w6").write_text(git(repo, "rev-parse", "HEAD"))
    expected = git_lists(repo, PREFIX)
    assert PREFIX + "records/shared/nested/w6" in expected
    assert not any(name.endswith(("/broken", ".lock", "..name", "/empty")) for name in expected)
    assert ref_names(pygit2.Repository(str(repo)), PREFIX) == expected


def test_packed_refs_read_again_whenever_git_writes_them_again(tmp_path: Path) -> None:
    repo = mixed(tmp_path)
    opened = pygit2.Repository(str(repo))
    before = ref_names(opened, PREFIX)
    git(repo, "update-ref", PREFIX + "records/shared/w4", "HEAD")
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / PREFIX / "records" / "shared" / "w4").exists()
    assert ref_names(opened, PREFIX) == git_lists(repo, PREFIX) == sorted([*before, PREFIX + "records/shared/w4"])
    git(repo, "update-ref", "-d", PREFIX + "records/shared/w4")
    assert ref_names(opened, PREFIX) == git_lists(repo, PREFIX) == before


def test_a_linked_worktree_finds_the_refs_of_the_repository(tmp_path: Path) -> None:
    repo = mixed(tmp_path)
    git(repo, "worktree", "add", "-q", str(tmp_path / "other"))
    assert ref_names(pygit2.Repository(str(tmp_path / "other")), PREFIX) == git_lists(repo, PREFIX)


def test_the_store_reads_and_appends_on_refs_git_gc_packed_among_thousands(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    git(repo, "commit", "-q", "--allow-empty", "-m", "root")
    head = git(repo, "rev-parse", "HEAD").strip()
    others = sorted([f"refs/tags/t{n}" for n in range(3000)] + [f"refs/remotes/origin/b{n}" for n in range(3000)])
    (repo / ".git" / "packed-refs").write_text(  # as git writes them, without 6,000 loose files first
        "# pack-refs with: peeled fully-peeled sorted \n" + "".join(f"{head} {name}\n" for name in others))
    assert len(git(repo, "for-each-ref").splitlines()) == 6001
    provider = GitProvider(repo, "w1")
    first = provider.append(batch(R.grant("before-gc"), R.event("e1", text="kept")))
    git(repo, "gc", "-q")  # packs every ref, memory's with the rest
    assert not (repo / ".git" / PREFIX / "records" / "shared" / "w1").exists()
    again = GitProvider(repo, "w1")
    assert {s.digest for s in again.read()} == set(first.added)
    second = again.append(batch(R.grant("after-gc")))
    assert (repo / ".git" / PREFIX / "records" / "shared" / "w1").exists()  # loose again, over the packed one
    clocks = [s.clock for s in GitProvider(repo, "w1").read()]
    assert {s.digest for s in GitProvider(repo, "w1").read()} == {*first.added, *second.added}
    assert clocks == sorted(clocks) and clocks[-1] > clocks[0]
    assert GitProvider(repo, "w1").verify().ok
    assert os.path.getsize(repo / ".git" / "packed-refs") > 6000 * 40


def test_a_ref_git_packs_while_the_names_are_read_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``git pack-refs`` writes packed-refs, then deletes the loose files: run between the two
    halves of a listing, whichever comes first, it must not hide the ref it moves."""
    repo = mixed(tmp_path)
    opened = pygit2.Repository(str(repo))
    expected = git_lists(repo, PREFIX)
    assert (repo / ".git" / PREFIX / "records" / "shared" / "w1").exists()
    halves = {name: getattr(_gitdirs, name) for name in ("_loose_ids", "_packed_refs")}
    done: list[str] = []

    def then_pack(name: str) -> Any:
        def half(*args: Any) -> Any:
            found = halves[name](*args)
            if not done:
                done.append(name)
                git(repo, "pack-refs", "--all")
            return found
        return half

    for name in halves:
        monkeypatch.setattr(_gitdirs, name, then_pack(name))
    assert ref_names(opened, PREFIX) == expected
    assert done and not (repo / ".git" / PREFIX / "records" / "shared" / "w1").exists()


def test_ref_targets_are_what_git_says_each_ref_names(tmp_path: Path) -> None:
    """Loose over packed, as git reads them; a symbolic ref is left out (it names no object)."""
    repo = mixed(tmp_path)
    git(repo, "symbolic-ref", PREFIX + "records/shared/alias", "refs/heads/master")
    said = git(repo, "for-each-ref", "--format=%(refname) %(objectname) %(symref)", PREFIX).splitlines()
    expected = {name: oid for name, oid, *symbolic in (line.split(" ") for line in said) if symbolic == [""]}
    found = ref_targets(pygit2.Repository(str(repo)), PREFIX)
    assert {name: str(oid) for name, oid in found.items()} == expected and list(found) == sorted(expected)
    assert PREFIX + "records/shared/w1" in found and PREFIX + "records/shared/alias" not in found
    (repo / ".git" / "reftable").mkdir()  # refs in another format: asked of libgit2
    assert {n: str(o) for n, o in ref_targets(pygit2.Repository(str(repo)), PREFIX).items()} == expected


def test_packed_ref_lines_are_found_by_their_prefix_only() -> None:
    one, two = "a" * 40, "b" * 64
    data = (f"# pack-refs with: peeled fully-peeled sorted \n{one} refs/heads/main\n"
            f"{one} refs/memory/v1/records/shared/w1\n^{two[:40]}\n"  # a peeled line follows a tag's
            f"{one} refs/tags/refs/memory/v1/not-memory\n"  # the prefix inside another ref's name
            f"xyz refs/memory/v1/records/shared/damaged\n"
            f"{two} refs/memory/v1/records/shared/sha256\r\n"
            f"{one} refs/memory/v1/remotes/o/records/shared/w2").encode()  # no newline at the end
    assert packed_under(data, PREFIX) == [
        (one.encode(), b"refs/memory/v1/records/shared/w1"), (two.encode(), b"refs/memory/v1/records/shared/sha256"),
        (one.encode(), b"refs/memory/v1/remotes/o/records/shared/w2")]
    assert packed_under(data, PREFIX + "remotes/") == [(one.encode(), b"refs/memory/v1/remotes/o/records/shared/w2")]
    assert packed_under(b"", PREFIX) == []


def test_the_recall_fingerprint_sees_the_refs_git_sees(tmp_path: Path) -> None:
    """The delivery hook reads memory's refs without git bindings: loose over packed, as git
    (those a sync keeps aside, which are not memory, left out)."""
    repo = mixed(tmp_path)
    gitdir = str(repo / ".git")
    listed = heads.git_refs(["f", "v", "s", "c", "policy none", f"{gitdir}\n" + "\n".join(heads._git_refs(gitdir))])
    said = git(repo, "for-each-ref", "--format=%(refname) %(objectname)", "refs/memory/").split("\n")
    assert {name: target for (_, name), target in listed.items()} == dict(
        line.split(" ") for line in said if line and not line.startswith("refs/memory/sync/"))


def test_refs_in_another_format_are_listed_by_libgit2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A repository whose refs are in a reftable (git 2.45 on) has no ``refs/`` files to walk:
    the names come from libgit2, which opens such a repository once it reads the format."""
    repo = mixed(tmp_path)
    expected = git_lists(repo, PREFIX)
    (repo / ".git" / "reftable").mkdir()

    def no_walk(*args: Any) -> Any:
        raise AssertionError("the files were walked")

    monkeypatch.setattr(_gitdirs, "_loose_ids", no_walk)
    monkeypatch.setattr(_gitdirs, "_packed_refs", no_walk)
    assert ref_names(pygit2.Repository(str(repo)), PREFIX) == expected


def test_the_recall_fingerprint_moves_with_a_reftable(tmp_path: Path) -> None:
    """Refs in a reftable have no files of their own: the fingerprint holds the list of its
    tables, which git writes again whenever a ref moves, so the recall index is rebuilt."""
    repo = mixed(tmp_path)
    gitdir = str(repo / ".git")
    before = heads._git_refs(gitdir)
    (repo / ".git" / "reftable").mkdir()
    tables = repo / ".git" / "reftable" / "tables.list"
    tables.write_text("0x000000000001-0x000000000004-0b2c3d4e.ref\n")
    first = heads._git_refs(gitdir)
    tables.write_text("0x000000000001-0x000000000004-0b2c3d4e.ref\n0x000000000005-0x000000000005-9f8e7d6c.ref\n")
    second = heads._git_refs(gitdir)
    assert before != first != second and set(before) < set(first)
    moved = heads.git_refs(["f", "v", "s", "c", "policy none", f"{gitdir}\n" + "\n".join(first)])
    assert moved != heads.git_refs(["f", "v", "s", "c", "policy none", f"{gitdir}\n" + "\n".join(second)])


def _settle() -> None:
    """Wait until the refs' folders changed long enough ago for a listing of them to be kept."""
    time.sleep(_gitdirs.SETTLED_NS / 1e9 + 0.05)


def _walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The prefixes whose loose ref files are walked and read from now on."""
    walked: list[str] = []
    loose = _gitdirs._loose_ids

    def counted(folder: str, prefix: str, *args: Any) -> Any:
        walked.append(prefix)
        return loose(folder, prefix, *args)

    monkeypatch.setattr(_gitdirs, "_loose_ids", counted)
    return walked


def _as_git_says(repo: Path, opened: pygit2.Repository, prefix: str) -> None:
    said = git(repo, "for-each-ref", "--format=%(refname) %(objectname)", prefix).split("\n")
    assert {name: str(oid) for name, oid in ref_targets(opened, prefix).items()} == \
        dict(line.split(" ") for line in said if line)
    assert ref_names(opened, prefix) == git_lists(repo, prefix)


def test_a_listing_kept_is_handed_on_until_a_ref_moves_is_added_deleted_or_packed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While ``listings_kept`` holds (a sync), memory's refs are listed once and handed on, a
    narrower prefix taken from a wider one's listing; any ref written since (git renames a
    lock into place), deleted or packed is seen by the next listing, as without it."""
    repo = mixed(tmp_path)
    opened = pygit2.Repository(str(repo))
    head, first = (git(repo, "rev-parse", rev).strip() for rev in ("HEAD", "HEAD~1"))
    _settle()
    walked = _walks(monkeypatch)
    with _gitdirs.listings_kept():
        _as_git_says(repo, opened, PREFIX)
        assert walked == [PREFIX]
        _as_git_says(repo, opened, PREFIX)
        _as_git_says(repo, opened, PREFIX + "remotes/")
        _as_git_says(repo, opened, PREFIX + "records/shared/")
        assert walked == [PREFIX], "listed again though nothing moved"
        changes = [("update-ref", PREFIX + "records/shared/w1", first),  # moved
                   ("update-ref", PREFIX + "remotes/origin/records/shared/w7", head),  # added in a folder of its own
                   ("update-ref", PREFIX + "records/shared/w8", head),  # added beside others
                   ("update-ref", "-d", PREFIX + "records/local/w9"),  # a loose one deleted
                   ("update-ref", "-d", PREFIX + "payloads/shared/w1"),  # a packed one deleted
                   ("pack-refs", "--all")]
        for change in changes:
            _settle()  # the listing before it was kept
            git(repo, *change)
            _as_git_says(repo, opened, PREFIX + "remotes/")
            _as_git_says(repo, opened, PREFIX)
            _as_git_says(repo, opened, PREFIX + "records/shared/")
        assert PREFIX + "records/shared/w8" in ref_names(opened, PREFIX)
    assert _gitdirs._kept is None
    walked.clear()
    ref_names(opened, PREFIX)
    ref_names(opened, PREFIX)
    assert walked == [PREFIX, PREFIX], "kept outside a sync"


def test_a_listing_taken_just_after_a_ref_moved_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file system's clock moves in ticks: a ref moved in the tick a listing saw may leave its
    folder's times as they were, so a listing of a folder changed that recently is taken again."""
    repo = mixed(tmp_path)
    opened = pygit2.Repository(str(repo))
    walked = _walks(monkeypatch)
    with _gitdirs.listings_kept():
        git(repo, "update-ref", PREFIX + "records/shared/w8", "HEAD")
        expected = git_lists(repo, PREFIX)
        assert ref_names(opened, PREFIX) == ref_names(opened, PREFIX) == expected
        assert walked == [PREFIX, PREFIX]
        _settle()
        assert ref_names(opened, PREFIX) == ref_names(opened, PREFIX) == expected
        assert walked == [PREFIX, PREFIX, PREFIX]


def test_a_store_reading_again_reads_each_ref_where_it_is_now(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store hands the refs it found in one pass on to the next while the listing reads the
    same refs at the same tips (``GitProvider._refs``): another writer's append in the same
    repository between two reads is read, in a sync's kept listings as outside them."""
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    git(repo, "commit", "-q", "--allow-empty", "-m", "root")
    reader, other = GitProvider(repo, "w1"), GitProvider(repo, "w2")
    first = other.append(batch(R.event("e1", text="one")))
    for kept in (False, True):
        with _gitdirs.listings_kept() if kept else contextlib.nullcontext():
            _settle()
            before = {s.digest for s in reader.read()}
            assert set(first.added) <= before
            more = other.append(batch(R.event(f"e2-{kept}", text="two")))
            assert {s.digest for s in reader.read()} == before | set(more.added)
            _settle()
            assert {s.digest for s in reader.read()} == before | set(more.added)


def test_a_state_file_parsed_while_listings_are_kept_is_parsed_again_once_written(tmp_path: Path) -> None:
    """What ``kept_parse`` made of a file is handed on while the file is as it was: written
    again by renaming another over it, or in place (same size), it is read again; one written
    just before it was read is not kept (its stamp could stay the same through another write)."""
    path = tmp_path / "admitted.json"
    parsed: list[bytes] = []

    def parse(raw: bytes) -> bytes:
        parsed.append(raw)
        return raw

    path.write_bytes(b'{"a": 1}')
    with _gitdirs.listings_kept():
        assert _gitdirs.kept_parse(str(path), parse) == b'{"a": 1}'
        assert _gitdirs.kept_parse(str(path), parse) == b'{"a": 1}' and len(parsed) == 2, "kept though just written"
        _settle()
        assert _gitdirs.kept_parse(str(path), parse) == _gitdirs.kept_parse(str(path), parse) and len(parsed) == 3
        other = tmp_path / "next"
        other.write_bytes(b'{"b": 2}')
        os.replace(other, path)
        assert _gitdirs.kept_parse(str(path), parse) == b'{"b": 2}'
        _settle()
        assert _gitdirs.kept_parse(str(path), parse) == b'{"b": 2}' and len(parsed) == 5
        path.write_bytes(b'{"c": 3}')  # in place, the same size
        assert _gitdirs.kept_parse(str(path), parse) == b'{"c": 3}'
        path.unlink()
        with pytest.raises(OSError):
            _gitdirs.kept_parse(str(path), parse)
    path.write_bytes(b"{}")
    assert _gitdirs.kept_parse(str(path), parse) == _gitdirs.kept_parse(str(path), parse) == b"{}"
    assert len(parsed) == 8, "kept outside a sync"
