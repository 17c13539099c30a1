"""`gitstore episodes` and `gitstore evidence` say why a capture is degraded, in plain words, and
say parts of the session were not kept only when a reason stored says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitstore.context import Context

from .cli import gitstore
from .conftest import shared
from .world import ready_repo


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return ready_repo(tmp_path / "repo")


def _shown(ctx: Context, transcript: Path) -> tuple[str, str, dict]:
    done = gitstore("import", "transcript", str(transcript), "--json", cwd=ctx.workspace.root)
    assert done.returncode == 0, done.stderr
    episode = json.loads(done.stdout)["episode"]
    listed = gitstore("episodes", cwd=ctx.workspace.root)
    shown = gitstore("evidence", episode, cwd=ctx.workspace.root)
    data = json.loads(gitstore("evidence", episode, "--json", cwd=ctx.workspace.root).stdout)
    assert listed.returncode == shown.returncode == 0, listed.stderr + shown.stderr
    [line] = [line for line in listed.stdout.splitlines() if line.startswith(episode)]
    return line, shown.stdout, data


def test_a_session_with_no_commit_at_its_time_lost_nothing(ctx: Context) -> None:
    """A real transcript from before the repository's first commit: its only reason is
    revision-unknown, and nothing of the session was dropped."""
    line, shown, data = _shown(ctx, shared("transcripts", "agent-history", "v1", "claude_golden.jsonl"))
    assert data["capture"] == "degraded" and data["captureReasons"] == ["revision-unknown"]
    for text in (line, shown):
        assert "no commit was found for the session's time" in text and "nothing was left out" in text, text
        assert "not kept" not in text and "revision-unknown" not in text


def test_a_session_with_lines_skipped_says_parts_were_not_kept(ctx: Context) -> None:
    line, shown, data = _shown(ctx, shared("transcripts", "agent-sessions", "claude", "schema_drift.jsonl"))
    assert "lines-skipped" in data["captureReasons"]
    for text in (line, shown):
        assert "lines of kinds gitstore does not read were skipped" in text and "parts were not kept" in text, text


def test_a_complete_capture_names_no_reason(ctx: Context, tmp_path: Path) -> None:
    from .world import claude_transcript

    path = claude_transcript(tmp_path / "s.jsonl", [("user", "Fix the flaky retry test."), ("assistant", "Done.")])
    line, shown, data = _shown(ctx, path)
    assert data["capture"] == "complete" and data["captureReasons"] == []
    assert "degraded" not in line and "degraded" not in shown


def test_every_reason_has_plain_words() -> None:
    from gitstore.records.vocabulary import KEEPS_ALL, REASON_WORDS, RECEIPT_REASONS

    assert set(REASON_WORDS) == set(RECEIPT_REASONS) and KEEPS_ALL <= set(RECEIPT_REASONS)
