"""`gitstore episodes` over many review threads answers as reading every event per episode would."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from gitstore.context import Context
from gitstore.queries import evidence
from gitstore.queries._text import event_text


@pytest.fixture(scope="module")
def threads(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Review threads with replies, edits, labels and deletions (the rules benchmark's store, small)."""
    from bench.bench_rules import Builder

    return Builder(tmp_path_factory.mktemp("episodes") / "repo", 60, 1500, 5).build()


@pytest.mark.parametrize("grep", [None, "retr", "jitter|cache", "no such words"])
def test_each_episode_shows_its_count_first_text_and_matches_in_store_order(threads: Any, grep: str | None) -> None:
    ctx = Context.open(str(threads.root))
    items = list(ctx.store.items(["episode", "event"], payloads=True))
    events = [i.record for i in items if i.kind == "event"]
    heads: dict[str, dict[str, Any]] = {}
    for item in items:
        if item.kind == "episode":
            heads.setdefault(item.record["id"], item.record)
    pattern = re.compile(grep, re.IGNORECASE) if grep else None
    expected = []
    for episode_id, episode in heads.items():  # every event read again for each episode
        mine = [e for e in events if e["episode"] == episode_id]
        hits = [e["id"] for e in mine if pattern and pattern.search(event_text(e) or "")]
        if pattern and not hits and not pattern.search(episode["title"] or ""):
            continue
        texts = [e for e in mine if e["type"] not in ("label", "status", "retraction")]
        first = min(texts, key=lambda e: e["seq"])["id"] if texts else None
        expected.append((episode_id, len(mine), first, hits))
    shown = evidence.episodes(ctx, grep=grep)
    assert [(e.episode["id"], e.count, e.first["id"] if e.first else None, [h.event["id"] for h in e.events])
            for e in shown] == expected
    assert sum(Counter(e.episode["id"] for e in shown).values()) == len(shown)
    if grep in (None, "retr"):
        assert shown and (grep is None or any(e.events for e in shown))


@pytest.mark.parametrize("words", [
    "Task: The retry test is flaky; fix it. My key is [REDACTED:aws-access-key], don't share it.",
    "x" * 60 + " [REDACTED:github-token] and more words after it to be cut away",
    "y" * 80,
    "short [REDACTED:aws-access-key] text",
])
def test_a_heading_is_cut_before_a_redaction_marker_never_inside_it(words: str) -> None:
    from gitstore.queries._text import HEADING_CHARS, heading

    shown = heading({"type": "comment", "payload": {"text": words}})
    assert shown is not None and len(shown) <= HEADING_CHARS
    if len(words) <= HEADING_CHARS:
        assert shown == words
        return
    assert shown.endswith("…") and words.startswith(shown[:-1])
    kept = shown[:-1]
    assert kept.count("[REDACTED:") == kept.count("]"), shown  # each marker whole, or not there
