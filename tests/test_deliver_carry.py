"""A capture that adds nothing recall's rows depend on keeps the index current (it gets the new
fingerprint) and the index then holds exactly what a rebuild would; anything else, or any other
change slipping in, lets the index go stale as before."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gitstore.capture.hookinput import HookInput
from gitstore.capture.sessions import RECALL_INDEX, capture
from gitstore.context import Context
from gitstore.deliver import build, carry, heads
from gitstore.deliver import index as idx
from gitstore.deliver.place import locate

from .delivery_world import World, shared_world  # noqa: F401 - the fixture
from .world import claude_transcript, grant_all

Capture = Callable[[str], list[dict[str, Any]]]


@pytest.fixture
def world(shared_world: World, tmp_path: Path) -> World:  # noqa: F811
    copy = shared_world.copy(tmp_path / "widgets")
    build.ensure(locate(str(copy.root)))
    return copy


def session(world: World, tmp_path: Path) -> Capture:
    """Capture a Claude Code session as its SessionEnd hook does; its records."""
    def run(name: str) -> list[dict[str, Any]]:
        transcript = claude_transcript(tmp_path / f"{name}.jsonl", [("user", f"Fix {name}."), ("assistant", "Done.")],
                                       session=name)
        payload = {"session_id": name, "transcript_path": str(transcript), "hook_event_name": "SessionEnd",
                   "cwd": str(world.root)}
        return capture(world.ctx, HookInput.from_payload("claude-code", payload, str(world.root))).records()
    return run


def current(world: World) -> bool:
    place = locate(str(world.root))
    found = idx.open_index(place, heads.fingerprint(place))
    if found is None:
        return False
    found.close()
    return True


def carrying(world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
             meanwhile: Callable[[], None] = lambda: None, extra: tuple[dict[str, Any], ...] = ()) -> list[bool]:
    """Capture a session, doing ``meanwhile`` right before the capture reads the refs again
    and judging ``extra`` records as if the append had held them too; what the carry answered."""
    real = carry.after
    answers: list[bool] = []

    def after(start: carry.Before | None, records: list[dict[str, Any]]) -> bool:
        meanwhile()
        answers.append(real(start, [*records, *extra]))
        return answers[-1]

    monkeypatch.setattr(carry, "after", after)
    session(world, tmp_path)("sess-new")
    return answers


def contents(world: World) -> list[Any]:
    db = sqlite3.connect(idx.path(locate(str(world.root))))
    try:
        return [sorted(db.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
                for table in ("learning", "doc", "dropped", "evidence")]
    finally:
        db.close()


def test_a_new_session_keeps_the_index_current_and_as_a_rebuild_makes_it(world: World, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    before = contents(world)
    assert carrying(world, tmp_path, monkeypatch) == [True]
    assert current(world), "the capture carried the index to the new state"
    assert contents(world) == before
    place = locate(str(world.root))
    build.build(place)  # what a rebuild from the store makes of the same state
    assert contents(world) == before


def test_the_index_lists_the_episodes_its_rows_depend_on(world: World) -> None:
    place = locate(str(world.root))
    found = idx.open_index(place, heads.fingerprint(place))
    assert found is not None
    evidence = found.evidence()
    found.close()
    view = world.ctx.view()
    cited = {ref["episode"] for versions in view.learnings.values() for item in versions
             for ref in item.record["evidence"]}
    assert evidence and evidence <= cited


def test_an_index_that_lists_no_evidence_is_never_carried(world: World, tmp_path: Path) -> None:
    place = locate(str(world.root))
    build.write_index(idx.path(place), [], heads.fingerprint(place) or "")  # a build that read every episode
    assert current(world)
    session(world, tmp_path)("sess-new")
    assert not current(world)


@pytest.mark.parametrize("extra", ["cited-event", "learning"])
def test_records_a_row_may_depend_on_let_the_index_go_stale(world: World, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch, extra: str) -> None:
    place = locate(str(world.root))
    found = idx.open_index(place, heads.fingerprint(place))
    assert found is not None
    cited = sorted(found.evidence() or ())[0]
    found.close()
    if extra == "cited-event":  # an event added to an episode a learning in force cites
        record = {"schema": "gitstore.event/v1", "id": "sha256:" + "0" * 64, "episode": cited, "parentEventId": None}
    else:
        record = {"schema": "gitstore.learning/v1", "id": "l-1"}
    assert carrying(world, tmp_path, monkeypatch, extra=(record,)) == [False] and not current(world)


def test_another_change_slipping_in_lets_the_index_go_stale(world: World, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def another_command() -> None:  # its append lands between the capture's two readings
        grant_all(Context.open(str(world.root)))

    assert carrying(world, tmp_path, monkeypatch, another_command) == [False] and not current(world)


def test_a_second_local_append_slipping_in_lets_the_index_go_stale(world: World, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    theirs = session(world.copy(tmp_path / "other"), tmp_path)("sess-theirs")

    def another_capture() -> None:  # appended to the same local records ref, done first
        Context.open(str(world.root)).store.append(theirs, namespace="local")

    assert carrying(world, tmp_path, monkeypatch, another_capture) == [False] and not current(world)


def test_a_capture_looks_for_the_index_where_it_is(world: World) -> None:
    place = locate(str(world.root))
    assert Path(idx.path(place)) == world.ctx.workspace.state / RECALL_INDEX


def test_packed_refs_are_read_as_git_reads_them() -> None:
    lines = ["f", "v", "s", "c", "policy none", "/repo/.git\npacked aaa refs/memory/v1/records/shared/w\n"
             "packed bbb refs/memory/v1/records/shared/x\nrefs/memory/v1/records/shared/w ccc"]
    assert heads.git_refs(lines) == {("/repo/.git", "refs/memory/v1/records/shared/w"): "ccc",
                                     ("/repo/.git", "refs/memory/v1/records/shared/x"): "bbb"}
