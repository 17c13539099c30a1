"""Storing labels as label events: ids from what they judge, local beside local evidence,
nothing stored twice, and only stored evidence can be judged."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstore.errors import Refused
from gitstore.ops.labels import LabelSpec, build, labeler_id, store_labels

from . import dream_world as w


def test_labels_are_events_naming_their_parent_and_stored_once(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    [event] = w.comment(ctx, 1, "github:1", "Retries need jittered backoff.", 0)
    spec = LabelSpec(event["id"], "retry-jitter", "convention", "asks-for", ((0, 7),), "lexical")
    stored = store_labels(ctx, ctx.view(), [spec], w.BY)
    [label] = [e for e in ctx.view().events.values() if e["type"] == "label"]
    assert stored.added == [label["id"]] and label["parentEventId"] == event["id"]
    assert label["at"] == event["at"] and label["episode"] == event["episode"] and label["author"] == "bot:gitstore-lexical"
    assert label["payload"]["label"] == {"theme": "retry-jitter", "polarity": "asks-for", "category": "convention",
                                         "labeler": "lexical", "spans": [{"start": 0, "end": 7}]}
    again = store_labels(ctx, ctx.view(), [spec], w.BY)
    assert again.added == [] and again.existing == 1
    assert [a for a in ctx.view().audits if a["action"] == "label"][0]["subjects"] == ["1 labels by lexical"]


def test_labels_of_personal_session_evidence_stay_local(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    w.grant_sessions(ctx)
    w.session(ctx, tmp_path / "s", "one", "Retries need jittered backoff.")
    view = ctx.view()
    turn = next(e for e in view.events.values() if e["payload"].get("role") == "user")
    store_labels(ctx, view, [LabelSpec(turn["id"], "retry-jitter", "convention", "asks-for", (), "lexical")], w.BY)
    [item] = [i for i in ctx.store.items() if i.kind == "event" and i.record["type"] == "label"]
    assert item.stored.namespace == "local"


def test_only_stored_evidence_is_labelled(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    with pytest.raises(Refused, match="a label must judge a stored comment or session text"):
        build(ctx.view(), LabelSpec("ev_" + "0" * 32, "x", "convention", "asks-for", (), "lexical"))
    assert labeler_id("My Labeler!") == "bot:gitstore-my-labeler"
