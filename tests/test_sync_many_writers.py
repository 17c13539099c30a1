"""Among many writers, a first sync and the first read after a plain fetch read the redaction
notes (every records ref's tip and its admission) once for their pass over the payload
snapshots, not once for each writer's snapshot: that made a first sync among 400 writers cost
ten times one among 100."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygit2
import pytest

from gitstore.conformance import _records as R
from gitstore.conformance import entries_for
from gitstore.context import Context
from gitstore.ops.setup import init
from gitstore.providers import Batch, _gitdirs
from gitstore.providers.git import GitProvider
from gitstore.sync import remote as remote_sync
from gitstore.sync.remote import sync

from .conftest import build_once, git

PUSH = ("refs/memory/v1/records/shared/*:refs/memory/v1/records/shared/*",
        "+refs/memory/v1/payloads/shared/*:refs/memory/v1/payloads/shared/*")
TEAMS = (3, 9)


@pytest.fixture(scope="module")
def remotes(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    return build_once(tmp_path_factory, "writers", _teams)[1]


def _teams(tmp: Path) -> dict[int, Path]:
    """A bare remote for each team size, each writer's one append holding an event with its text."""
    found = {}
    for writers in TEAMS:
        bare = tmp / f"team-{writers}.git"
        git(tmp, "init", "-q", "--bare", "-b", "main", str(bare))
        git(bare, "remote", "add", "origin", f"https://{R.SCOPE}.git")  # every clone's scope: the records'
        maker = tmp / f"maker-{writers}"
        git(tmp, "clone", "-q", str(bare), str(maker))
        git(maker, "commit", "-q", "--allow-empty", "-m", "root")
        init(maker)
        for writer in range(writers):
            records = [R.event(f"w{writers}-{writer}", episode=f"e{writer}")]
            GitProvider(maker, f"team{writer:05d}").append(Batch("shared", tuple(entries_for(records))))
        git(maker, "push", "-q", str(bare), "main", *PUSH)
        found[writers] = bare
    return found


def _clone(bare: Path, where: Path) -> Path:
    git(where.parent, "clone", "-q", str(bare), str(where))
    init(where)
    return where


def _texts(clone: Path) -> int:
    return sum("payload" in item.record for item in Context.open(clone).store.items(["event"], payloads=True))


def _reads_of_every_tip(remotes: dict[int, Path], tmp: Path, monkeypatch: pytest.MonkeyPatch,
                        before: Callable[[Path], None], run: Callable[[Path], object]) -> dict[int, int]:
    """For each team: how often ``run`` (on a fresh clone, after ``before``) read every records
    ref's tip (``GitProvider._tips``); every writer's text is admitted after it."""
    calls = [0]
    tips = GitProvider._tips

    def counted(self: GitProvider) -> object:
        calls[0] += 1
        return tips(self)

    monkeypatch.setattr(GitProvider, "_tips", counted)
    found = {}
    for writers, bare in remotes.items():
        clone = _clone(bare, tmp / f"clone-{writers}")
        before(clone)
        calls[0] = 0
        run(clone)
        found[writers] = calls[0]
        assert _texts(clone) == writers
    return found


def _synced(clone: Path) -> None:
    report = sync(str(clone))
    assert report.status == "ok", report.line


def test_a_first_sync_reads_every_tip_as_often_among_three_writers_as_among_nine(
        remotes: dict[int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counted = _reads_of_every_tip(remotes, tmp_path, monkeypatch, lambda clone: None, _synced)
    assert counted[3] == counted[9], counted


def test_the_first_read_after_a_plain_fetch_reads_every_tip_as_often_among_three_writers_as_among_nine(
        remotes: dict[int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fetched(clone: Path) -> None:  # the refspecs init wrote: every writer's memory, unchecked
        git(clone, "fetch", "-q", "origin")

    counted = _reads_of_every_tip(remotes, tmp_path, monkeypatch, fetched, _texts)
    assert counted[3] == counted[9], counted


def _settled_clone(bare: Path, where: Path) -> Path:
    """A clone synced once, whose refs' folders changed long enough ago for a listing of them
    to be handed on (``_gitdirs.listings_kept``)."""
    _synced(_clone(bare, where))
    time.sleep(_gitdirs.SETTLED_NS / 1e9 + 0.05)
    return where


def _idle_counts(remotes: dict[int, Path], tmp: Path, count: list[int]) -> dict[int, int]:
    """For each team: what ``count`` (a counter a test patched in) reached in an idle sync of a
    settled clone."""
    found = {}
    for writers, bare in remotes.items():
        clone = _settled_clone(bare, tmp / f"clone-{writers}")
        count[0] = 0
        assert sync(str(clone)).status == "no-update"
        found[writers] = count[0]
    return found


def test_an_idle_sync_reads_each_ref_file_a_few_times_not_once_a_pass(
        remotes: dict[int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An idle sync passes over every writer's refs some ten times (what to drop, what to admit,
    what the notes say, what is unheld...); each pass read every loose ref file again, some 39
    reads a writer. One listing of every memory ref is handed on while nothing it read changed."""
    reads = [0]
    walk = _gitdirs.loose_refs

    def counted(*args: Any, **kwargs: Any) -> Iterator[tuple[str, bytes | None]]:
        for found in walk(*args, **kwargs):
            reads[0] += 1
            yield found

    monkeypatch.setattr(_gitdirs, "loose_refs", counted)
    writers = max(TEAMS)
    clone = _settled_clone(remotes[writers], tmp_path / "clone")
    reads[0] = 0
    report = sync(str(clone))
    assert report.status == "no-update", report.line
    # 6 reads a writer: its records and payload refs fetched, held by the fetch, and anchored
    assert reads[0] <= 8 * writers, reads[0]


def test_a_writer_appending_while_a_sync_runs_is_seen_by_what_the_sync_reads_after(
        remotes: dict[int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another work tree of the clone appends as a writer of its own while a sync runs, after
    the sync listed memory's refs: the push that sync makes sends it, as it sends every id of
    the clone's whose records the remote lacks."""
    bare = tmp_path / "remote.git"
    shutil.copytree(remotes[min(TEAMS)], bare)
    clone = _settled_clone(bare, tmp_path / "clone")
    carry = remote_sync._carry

    def appended_first(*args: Any) -> Any:
        GitProvider(clone, "wother").append(Batch("shared", tuple(entries_for([R.event("mid-sync", episode="m")]))))
        return carry(*args)

    monkeypatch.setattr(remote_sync, "_carry", appended_first)
    report = sync(str(clone))
    assert report.status == "ok", report.line
    ref = "refs/memory/v1/records/shared/wother"
    assert git(bare, "rev-parse", ref) == git(clone, "rev-parse", ref), report.line


def test_an_idle_sync_asks_whether_history_was_cut_once_a_pass_not_once_a_writer(
        remotes: dict[int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether a shallow fetch cut a writer's history short is read once for each pass over the
    refs (after they were listed), not once for each writer's ref admitted."""
    from gitstore.providers import git as provider_git

    asked = [0]
    state = provider_git.shallow_state

    def counted(*args: Any) -> Any:
        asked[0] += 1
        return state(*args)

    monkeypatch.setattr(provider_git, "shallow_state", counted)
    found = _idle_counts(remotes, tmp_path, asked)
    assert found[min(TEAMS)] == found[max(TEAMS)], found


def test_an_idle_sync_looks_refs_up_one_by_one_as_often_among_three_writers_as_among_nine(
        remotes: dict[int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the fetched refs stand against the tips admitted last, which anchors hold those
    tips, and whether a ref arrived as it was admitted is held in quarantine are each read from
    one listing of the refs, not asked of git ref by ref (each lookup reads the ref's file)."""
    looked = [0]
    lookup = pygit2.references.References.__getitem__

    def counted(self: Any, name: str) -> Any:
        looked[0] += 1
        return lookup(self, name)

    monkeypatch.setattr(pygit2.references.References, "__getitem__", counted)
    found = _idle_counts(remotes, tmp_path, looked)
    assert found[min(TEAMS)] == found[max(TEAMS)], found


def test_an_idle_sync_parses_the_admissions_file_once(
        remotes: dict[int, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each store and pass a sync opens reads every ref's admission; the file holding them,
    one entry a ref, is parsed once while nothing writes it, not once for each of them."""
    from gitstore import _jsontext

    parsed = [0]
    loads = _jsontext.loads

    def counted(text: Any, **options: Any) -> Any:
        parsed[0] += '"checks"' in (text if isinstance(text, str) else text.decode("ascii", "replace"))
        return loads(text, **options)

    monkeypatch.setattr(_jsontext, "loads", counted)
    clone = _settled_clone(remotes[max(TEAMS)], tmp_path / "clone")
    parsed[0] = 0
    assert sync(str(clone)).status == "no-update"
    assert parsed[0] == 1, parsed
