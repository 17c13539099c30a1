"""A sqlite or jsonl store's files that came through git are never opened.

Both stores live in the work tree, under the ignored ``okf/.memory/``; but a commit made with
``git add -f`` is checked out over a clone's ignored files without a word. Whoever can push
could then replace a clone's whole memory: commit a database (or jsonl files) with its log, or,
leaving no trace, a WAL file that sqlite replays into the clone's own database on open and then
deletes. Opening the store refuses any store file the commit checked out holds, and a WAL or
journal whose bytes git has as an object."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest

from gitstore.config import STATE_DIR
from gitstore.errors import Refused
from gitstore.ops.setup import init
from gitstore.providers import open_provider

from . import cli
from .conftest import git
from .provider_records import batch, grant
from .team import commit_all, seeded_remote


def _clone(tmp: Path, bare: Path, name: str, provider: str) -> Path:
    root = tmp / name
    git(tmp, "clone", "-q", str(bare), str(root))
    init(root, provider)
    return root


def _store(root: Path, provider: str):  # type: ignore[no-untyped-def]
    return open_provider(provider, root, root / STATE_DIR, "w-" + root.name)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return seeded_remote(tmp_path)


def _push_forced(root: Path, *paths: str) -> None:
    git(root, "add", "-f", *paths)
    git(root, "commit", "-q", "-m", "share the memory")
    git(root, "push", "-q", "origin", "main")


@pytest.mark.parametrize("provider, files", [
    ("sqlite", ("store.sqlite", "store.sqlite.acks")),
    ("jsonl", ("jsonl/records.jsonl", "jsonl/payloads.jsonl", "jsonl/records.jsonl.acks")),
])
def test_a_store_a_commit_brings_is_refused(tmp_path: Path, remote: Path, provider: str, files: tuple[str, ...]) -> None:
    alice, mallory = (_clone(tmp_path, remote, name, provider) for name in ("alice", "mallory"))
    _store(alice, provider).append(batch(grant("alice's own")))
    store = _store(mallory, provider)
    store.append(batch(grant("mallory's")))
    getattr(store, "close", lambda: None)()
    _push_forced(mallory, *(f"{STATE_DIR.as_posix()}/{f}" for f in files))
    git(alice, "pull", "-q", "--no-rebase", "origin", "main")
    with pytest.raises(Refused, match=f"{STATE_DIR.as_posix()}/.* came through git"):
        _store(alice, provider)
    done = cli.gitstore("verify", cwd=alice)
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "came through git" in done.stderr, done


def _wal_of_a_fresh_database(folder: Path) -> bytes:
    """The WAL of another database, every page of it in the WAL (never checkpointed)."""
    folder.mkdir()
    conn = sqlite3.connect(folder / "other.sqlite", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("INSERT INTO meta VALUES ('format', '1')")
    data = (folder / "other.sqlite-wal").read_bytes()
    conn.close()
    return data


def test_a_wal_file_a_commit_brings_is_refused_before_sqlite_replays_it(tmp_path: Path, remote: Path) -> None:
    alice, mallory = (_clone(tmp_path, remote, name, "sqlite") for name in ("alice", "mallory"))
    own = _store(alice, "sqlite")
    own.append(batch(grant("alice's own")))
    own.close()  # as every command's connection is, at its end
    wal = mallory / STATE_DIR / "store.sqlite-wal"
    wal.write_bytes(_wal_of_a_fresh_database(tmp_path / "scratch"))
    _push_forced(mallory, wal.relative_to(mallory).as_posix())
    git(alice, "pull", "-q", "--no-rebase", "origin", "main")
    before = (alice / STATE_DIR / "store.sqlite").read_bytes()
    with pytest.raises(Refused, match="store.sqlite-wal came through git"):
        _store(alice, "sqlite")
    assert (alice / STATE_DIR / "store.sqlite-wal").exists()  # not replayed, not deleted
    assert (alice / STATE_DIR / "store.sqlite").read_bytes() == before

    # the commit that stops tracking it takes the file away with it, never replayed: alice's own opens
    git(mallory, "rm", "-q", "--cached", wal.relative_to(mallory).as_posix())
    git(mallory, "commit", "-q", "-m", "stop sharing it")
    git(mallory, "push", "-q", "origin", "main")
    git(alice, "pull", "-q", "--no-rebase", "origin", "main")
    assert not (alice / STATE_DIR / "store.sqlite-wal").exists()
    done = cli.gitstore("records", "list", cwd=alice)  # a command of its own, as a person runs one
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 1, done


@pytest.mark.parametrize("provider, files", [
    ("sqlite", ("store.sqlite", "store.sqlite.acks")),
    ("jsonl", ("jsonl/records.jsonl", "jsonl/payloads.jsonl", "jsonl/records.jsonl.acks")),
])
def test_a_store_a_merge_stopped_by_a_conflict_brings_is_refused(tmp_path: Path, remote: Path, provider: str,
                                                                 files: tuple[str, ...]) -> None:
    """A merge that stops on a conflict elsewhere has written the incoming store into the work
    tree and the index; no commit holds it yet, and it is refused all the same."""
    alice, mallory = (_clone(tmp_path, remote, name, provider) for name in ("alice", "mallory"))
    _store(alice, provider).append(batch(grant("alice's own")))
    store = _store(mallory, provider)
    store.append(batch(grant("mallory's")))
    getattr(store, "close", lambda: None)()
    (mallory / "README.md").write_text("# widgets, mallory's\n")
    git(mallory, "add", "-f", "README.md", *(f"{STATE_DIR.as_posix()}/{f}" for f in files))
    git(mallory, "commit", "-q", "-m", "docs")
    git(mallory, "push", "-q", "origin", "main:feature")
    (alice / "README.md").write_text("# widgets, alice's\n")
    commit_all(alice, "docs")
    git(alice, "fetch", "-q", "origin")
    merged = subprocess.run(["git", "merge", "-q", "origin/feature"], cwd=alice, capture_output=True, text=True)
    assert merged.returncode != 0, "the merge stops on README.md"
    with pytest.raises(Refused, match="the index holds it"):
        _store(alice, provider)


def test_a_stash_of_the_clone_s_own_store_files_refuses_nothing(tmp_path: Path, remote: Path) -> None:
    """git stash --all stores the clone's own ignored files, its WAL among them, as objects:
    git having the bytes proves nothing about where they came from."""
    alice = _clone(tmp_path, remote, "alice", "sqlite")
    first = _store(alice, "sqlite")
    first.append(batch(grant("one")))
    assert (alice / STATE_DIR / "store.sqlite-wal").exists()
    (alice / "work.txt").write_text("wip\n")
    git(alice, "stash", "--all", "-q")
    git(alice, "stash", "pop", "-q")
    assert len(list(_store(alice, "sqlite").read())) == 1


def test_a_wal_this_clone_left_opens(tmp_path: Path, remote: Path) -> None:
    alice = _clone(tmp_path, remote, "alice", "sqlite")
    first = _store(alice, "sqlite")
    first.append(batch(grant("one")))
    assert (alice / STATE_DIR / "store.sqlite-wal").exists()  # the first connection is still open
    second = _store(alice, "sqlite")
    assert len(list(second.read())) == 1


@pytest.mark.parametrize("provider, file", [("jsonl", "jsonl/payloads.jsonl"), ("sqlite", "store.sqlite"),
                                            ("sqlite", "store.sqlite.acks")])
def test_a_store_file_that_is_a_symbolic_link_is_refused(tmp_path: Path, remote: Path, provider: str, file: str) -> None:
    """A commit can put a link in the state folder (and one that stops tracking it leaves it):
    the store never writes through it, into a file of the person's."""
    alice = _clone(tmp_path, remote, "alice", provider)
    notes = alice / "docs" / "notes.jsonl"
    notes.parent.mkdir()
    notes.write_bytes(b"")
    link = alice / STATE_DIR / file
    link.parent.mkdir(parents=True, exist_ok=True)
    link.unlink(missing_ok=True)
    link.symlink_to(notes)
    with pytest.raises(Refused, match="is a symbolic link; gitstore never writes through one"):
        _store(alice, provider).append(batch(grant("one")))
    assert notes.read_bytes() == b""


def test_the_state_folder_reached_through_a_link_is_refused(tmp_path: Path, remote: Path) -> None:
    alice = _clone(tmp_path, remote, "alice", "jsonl")
    elsewhere = tmp_path / "elsewhere"
    (alice / STATE_DIR / "jsonl").rename(elsewhere)
    (alice / STATE_DIR / "jsonl").symlink_to(elsewhere)
    with pytest.raises(Refused, match="jsonl is a symbolic link"):
        _store(alice, "jsonl")


@pytest.mark.parametrize("folds_case", [True, False])
@pytest.mark.parametrize("file", ["store.sqlite", "jsonl/records.jsonl"])
def test_a_store_file_the_index_holds_in_another_case_is_refused_where_the_file_system_folds_case(
        repo: Path, folds_case: bool, file: str) -> None:
    """A merge that stops on a conflict writes the incoming ``okf/.MEMORY/store.sqlite`` into the
    index and the work tree: a file system that ignores case (macOS's and Windows' by default)
    puts it in the clone's own ``okf/.memory/``, where the store opens it. Where case counts, it
    is another folder, and nothing is refused."""
    from gitstore.providers import refuse_foreign_store

    state = repo / STATE_DIR
    state.mkdir(parents=True)
    other = state.parent / state.name.upper()
    (other / file).parent.mkdir(parents=True)
    (other / file).write_bytes(b"a store of the repository's")
    git(repo, "add", "-f", (other / file).relative_to(repo).as_posix())
    if folds_case:  # what the checkout is where case is folded: one folder, under either name
        (state / file).parent.mkdir(parents=True, exist_ok=True)
        (other / file).rename(state / file)
        for leftover in sorted(other.rglob("*"), reverse=True):
            leftover.rmdir()
        other.rmdir()
        other.symlink_to(state.name)
    provider = "sqlite" if file.startswith("store") else "jsonl"
    if folds_case:
        with pytest.raises(Refused, match="the index holds it"):
            refuse_foreign_store(repo, state, provider)
    else:
        assert refuse_foreign_store(repo, state, provider) is not None
