"""``ops.unfinished``: a command's note around its append, and telling a run of its own that was
stopped past its append from a second request (``once``). The commands themselves, killed for
real between their steps, are in ``test_killed_commands``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gitstore.errors import AlreadyDone
from gitstore.ops import unfinished

NOTE = unfinished.Note("retire-lrn_1", "retiring lrn_1 was stopped midway", "gitstore retire lrn_1 --reason x")
MINE = {"digest": "sha256:" + "1" * 64, "state": "retired"}
OTHER = {"digest": "sha256:" + "2" * 64, "state": "retired"}


def _refused(*recorded: dict[str, Any]) -> Any:
    def decide() -> dict[str, Any]:
        raise AlreadyDone("lrn_1 is already retired", recorded)
    return decide


def test_the_note_names_the_record_while_it_is_appended_and_goes_with_a_write_that_fails(tmp_path: Path) -> None:
    with unfinished.recording(tmp_path, NOTE, MINE):
        noted = unfinished.read(tmp_path, NOTE.name)
        assert noted is not None and noted.data == {"record": MINE["digest"]}
    with pytest.raises(OSError), unfinished.recording(tmp_path, replace(NOTE, name="other"), OTHER):
        raise OSError("the disk filled")
    assert unfinished.read(tmp_path, "other") is None
    with unfinished.recording(tmp_path, None, MINE):
        pass
    assert [note.name for note in unfinished.notes(tmp_path)] == [NOTE.name]


def test_a_run_stopped_past_its_append_is_finished_and_a_second_request_refused(tmp_path: Path) -> None:
    assert unfinished.once(tmp_path, NOTE, lambda: MINE) == (MINE, False)
    with pytest.raises(AlreadyDone):  # no note: a second request
        unfinished.once(tmp_path, NOTE, _refused(MINE))

    unfinished.begin(tmp_path, replace(NOTE, data={"record": MINE["digest"]}))
    assert unfinished.once(tmp_path, NOTE, _refused(OTHER, MINE)) == (MINE, True)
    assert unfinished.read(tmp_path, NOTE.name) is not None, "the caller ends it after its last step"


def test_a_note_of_a_run_stopped_before_its_append_does_not_claim_another_record(tmp_path: Path) -> None:
    unfinished.begin(tmp_path, replace(NOTE, data={"record": MINE["digest"]}))
    with pytest.raises(AlreadyDone):
        unfinished.once(tmp_path, NOTE, _refused(OTHER))
    assert unfinished.read(tmp_path, NOTE.name) is None, "nothing of that run stands"
