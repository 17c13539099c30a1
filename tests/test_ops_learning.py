"""The learning operations check each version with the same lifecycle rule every read applies,
before writing it: a step the read side would refuse is never stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstore.errors import Refused
from gitstore.ops import learning as ops
from gitstore.rules.lifecycle import build

from .world import Thread, grant_all, propose, ready_repo, ref


def test_a_step_the_lifecycle_refuses_is_never_written(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Add jitter to every retry.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    proposal = propose(ctx, [ref(comment)])
    stored = len(list(ctx.store.items()))
    with pytest.raises(Refused, match="would break the lifecycle: bot:labeler is not a person"):
        ops.accept(ctx, proposal["id"], proposal["reviewDigest"], "bot:labeler")
    assert len(list(ctx.store.items())) == stored
    history = build(proposal["id"], ctx.view().learnings[proposal["id"]])
    assert history.valid and history.current["state"] == "proposed"
    accepted = ops.accept(ctx, proposal["id"], proposal["reviewDigest"], "github:9")
    assert accepted["state"] == "accepted"


def test_accepting_reports_when_the_learning_is_not_in_force(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "widgets")
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Add jitter to every retry.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    grant = grant_all(ctx, ("review",))
    proposal = propose(ctx, [ref(comment)])
    record, standing, again = ops.accept_and_check(ctx, proposal["id"], proposal["reviewDigest"], "github:9")
    assert record["state"] == "accepted" and not standing.in_force and not again
    assert any("no grant in force lets review-thread evidence" in why for why in standing.why), standing
    assert any("gitstore grant --purpose instruction --source review-thread --from 2026-03-01" in t
               for t in standing.todo), standing
    assert grant["purposes"] == ["review"]
