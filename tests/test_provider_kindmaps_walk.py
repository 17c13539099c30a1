"""A read of some streams that looks up a large share of a kind folder no map is kept of walks
the folder and keeps its map, answering what the lookups answer; a read of a few looks up
paths and keeps nothing. Real git objects and files throughout."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from gitstore import IntegrityError
from gitstore.conformance import _records as R
from gitstore.providers import _kindmaps
from gitstore.providers._kindmaps import FOLDER, kept_rows, map_path
from gitstore.providers.git import GitProvider, record_path, records_ref
from gitstore.store import Store, stream_of

from .conftest import git

WRITER = "w1"
REF = records_ref("shared", WRITER)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(_kindmaps, "KEEP_FROM", 8)  # small folders kept too
    monkeypatch.setattr("gitstore.providers.git.WALK_FROM", 4)
    path = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(path))
    return path


def store(repo: Path) -> Store:
    return Store(GitProvider(repo, WRITER), R.SCOPE)


def kept(repo: Path, kind: str) -> Path:
    return map_path(repo / ".git" / "gitstore" / FOLDER, str(pygit2.Repository(str(repo)).path), REF, kind)


def events(n: int, episodes: int) -> list[dict]:
    return [R.event(f"e{i}", episode=f"ep{i % episodes}", seq=i // episodes) for i in range(n)]


def read(repo: Path, streams: set[str]) -> list[tuple[str, dict]]:
    return [(i.digest, i.record) for i in store(repo).items(["event"], streams=streams)]


def test_a_read_of_a_large_share_walks_the_folder_keeps_its_map_and_reads_the_same(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stored = events(40, 2)
    store(repo).append(stored)
    streams = {stream_of(stored[0], "event")}
    monkeypatch.setattr("gitstore.providers.git.WALK_FROM", 1 << 30)  # path lookups only
    by_path = read(repo, streams)
    assert len(by_path) == 20 and not kept(repo, "event").exists()
    monkeypatch.setattr("gitstore.providers.git.WALK_FROM", 4)
    assert read(repo, streams) == by_path  # half the folder looked up: walked, and kept
    assert kept_rows(kept(repo, "event")) == len(stored)
    monkeypatch.setattr("gitstore.providers.git.ROWS_PER_LOOKUP", 1000)  # the kept map at the first lookup
    assert read(repo, streams) == by_path


def test_a_read_of_a_small_share_looks_paths_up_and_keeps_nothing(repo: Path) -> None:
    stored = events(60, 20)
    store(repo).append(stored)
    assert len(read(repo, {stream_of(stored[0], "event")})) == 3
    assert len(read(repo, {stream_of(stored[i], "event") for i in range(4)})) == 12  # under a quarter of 60 leaves
    assert not kept(repo, "event").exists()


def test_a_record_the_walk_finds_damaged_is_refused(repo: Path) -> None:
    stored = events(40, 2)
    store(repo).append(stored)
    bad = stored[5]
    repository = pygit2.Repository(str(repo))
    tip = repository.revparse_single(REF)
    path = record_path("event", bad["digest"])
    blob = repository.create_blob(repository[tip.tree[path].id].data.replace(b'"e5"', b'"eX"'))
    builder_tree = _replace(repository, tip.tree, path.split("/"), blob)
    commit = repository.create_commit(None, tip.author, tip.committer, tip.message, builder_tree, [tip.id])
    repository.references[REF].set_target(commit)
    with pytest.raises(IntegrityError):
        read(repo, {stream_of(bad, "event")})
    assert not kept(repo, "event").exists() or kept_rows(kept(repo, "event")) == len(stored)


def _replace(repository: pygit2.Repository, tree: pygit2.Tree, parts: list[str], blob: pygit2.Oid) -> pygit2.Oid:
    builder = repository.TreeBuilder(tree)
    if len(parts) == 1:
        builder.insert(parts[0], blob, pygit2.GIT_FILEMODE_BLOB)
    else:
        sub = repository[tree[parts[0]].id]
        builder.insert(parts[0], _replace(repository, sub, parts[1:], blob), pygit2.GIT_FILEMODE_TREE)
    return builder.write()
