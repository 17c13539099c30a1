"""The folders ``gitstore import github`` saved snapshots into, as ``redact`` finds them again."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstore.capture.saved import FOLDERS, inbox, remember, remembered


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
