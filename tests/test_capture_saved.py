"""The folders ``gitstore import github`` saved snapshots into, as ``redact`` finds them again."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstore.capture.saved import FOLDERS, FORMAT, file_name, inbox, remember, remembered, save, scrub_everywhere
from gitstore.records.canonical import canonicalize


def test_each_folder_is_remembered_once_and_a_torn_line_is_passed_over(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "repo" / "okf" / ".memory"
    monkeypatch.chdir(tmp_path)
    remember(state, inbox(state))  # always searched: nothing to remember
    assert not (state / FOLDERS).exists()
    remember(state, Path("out"))
    remember(state, tmp_path / "out")
    with open(state / FOLDERS, "a", encoding="utf-8") as ledger:
        ledger.write('"/cut/sh')  # an append a crash cut short
    remember(state, tmp_path / "other")
    assert remembered(state) == [tmp_path / "out", tmp_path / "other"]


def _snapshot(folder: Path, text: str) -> Path:
    """A snapshot as ``import github`` saves it: pull request 2 of acme/widgets, one comment."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / file_name("acme/widgets", 2)
    data = {"format": FORMAT, "repository": "acme/widgets", "pullRequest": 2,
            "responses": [{"collection": "pull-comments", "page": 1, "body": [{"id": 1, "body": text}]}]}
    save(path, canonicalize(data))
    return path


def test_a_snapshot_that_cannot_be_rewritten_is_named_and_the_others_are_scrubbed(tmp_path: Path) -> None:
    state = tmp_path / "repo" / "okf" / ".memory"
    blocked, other = _snapshot(inbox(state), "a leaked token"), _snapshot(tmp_path / "out", "a leaked token")
    remember(state, tmp_path / "out")
    blocked.with_name("." + blocked.name + ".tmp").mkdir()  # where its rewrite goes first

    done = scrub_everywhere(state, {"github:comment:1"})
    assert done.files == [other] and b"a leaked token" not in other.read_bytes()
    assert [path for path, _ in done.failed] == [blocked] and done.failed[0][1] == "Is a directory"
    assert b"a leaked token" in blocked.read_bytes()
