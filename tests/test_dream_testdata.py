"""``gitstore dream`` over real third-party material: the octokit webhook payloads of one
reviewer (whose two comments were deleted at their source) and real Claude Code, Codex and
Gemini sessions of this clone's owner. Nothing may be proposed from one person's sessions; the
report says so theme by theme, and names what the webhook imports could not prove."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gitstore.capture.reviews import import_reviews
from gitstore.capture.sessions import import_transcript
from gitstore.errors import InvalidInput

from . import dream_world as w
from .conftest import shared

SESSIONS = [
    "transcripts/claude-code/claude-code-viewer",
    "transcripts/agent-history/v1",
    "transcripts/agent-sessions/codex",
    "transcripts/agent-sessions/claude",
    "transcripts/agent-history/rejections",
]


@pytest.fixture(scope="module")
def dreamt(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    reviews = shared("reviews", "octokit-webhooks")
    folders = [shared(*s.split("/")) for s in SESSIONS]
    from .world import ready_repo

    ctx = ready_repo(tmp_path_factory.mktemp("hello") / "Hello-World", "https://github.com/Codertocat/Hello-World.git")
    for path in sorted(reviews.rglob("*.json")):
        import_reviews(ctx, path, w.BY)
    for folder in folders:
        for path in sorted(folder.glob("*.jsonl")) + sorted(folder.glob("*.json")):
            try:
                import_transcript(ctx, path, mode="hybrid")
            except InvalidInput:  # the fixtures' expected values beside the sessions
                pass
    from gitstore.ops import consent

    consent.grant(ctx, w.BY, ["instruction"], ["review-thread", "agent-session"], "2019-01-01T00:00:00.000000Z",
                  None, None)
    return ctx, w.run(ctx)


def test_the_report_names_the_spans_webhook_imports_cannot_prove(dreamt: tuple[Any, Any]) -> None:
    _, report = dreamt
    assert report.status == "incomplete" and report.result == "no-update"
    assert "PR #2: pull-comments pages 1-? missing (webhook import)" in report.completeness["missing"]
    assert report.view["excluded"]["deleted (retracted)"] == 2
    assert "window: incomplete" in report.render()


def test_nothing_is_proposed_and_every_theme_says_why(dreamt: tuple[Any, Any]) -> None:
    _, report = dreamt
    assert report.proposed == [] and report.held_back == [] and len(report.rejected) >= 10
    for verdict in report.rejected:
        assert verdict["audience"] == "personal", verdict
        assert verdict["reasons"][0].startswith(("one person: every origin is by the local user",
                                                 "one origin: 2 copies of one text by the local user")), verdict
    by_key = {v["theme"]: v for v in report.rejected}
    todo = [v for k, v in by_key.items() if "todos" in k]
    # many texts of its own, none a copy, yet one person's in one session: one independent origin
    signals = todo[0]["signals"] if todo else {}
    assert signals["evidence"] >= 10 and signals["copies"] == 0, signals
    assert signals["origins"] == signals["threads"] == signals["people"] == 1, signals
    assert any("port" in k or "host" in k for k in by_key)  # the Gemini session that edits a config


def test_the_deleted_review_comments_are_absent(dreamt: tuple[Any, Any]) -> None:
    ctx, _ = dreamt
    explained = w.run(ctx, explain="emoji").explain  # "Maybe you should use more emoji", deleted at its source
    assert explained == {"asked": "emoji", "themes": [], "note": "no evidence in the view mentions 'emoji'"}
    explained = w.run(ctx, explain="port").explain
    assert explained["themes"] and explained["themes"][0]["labels"]  # type: ignore[index]


def test_labels_of_the_real_sessions_stay_on_this_clone(dreamt: tuple[Any, Any]) -> None:
    ctx, report = dreamt
    labels = [i for i in ctx.store.items() if i.kind == "event" and i.record["type"] == "label"]
    assert labels and report.labeler["new"] == len(labels)
    assert {i.stored.namespace for i in labels} == {"local"}
