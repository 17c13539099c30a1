"""The learning lifecycle: proposals, digest-bound decisions, stale reviews, edits, rejections,
retirements, and histories that break a rule (forged approvals planted straight into the ref)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from gitstore import Refused
from gitstore.records.contracts import seal
from gitstore.ops import learning as ops
from gitstore.rules.active import active, evaluate
from gitstore.rules.lifecycle import build

from .cli import gitstore
from .world import Thread, accepted, grant_all, propose, ready_repo, ref


@pytest.fixture
def world(tmp_path: Path):  # type: ignore[no-untyped-def]
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    first = thread.comment("100", "Add jitter to retries.", "2026-03-01T10:00:00.000000Z")
    second = thread.comment("101", "Jitter here too please.", "2026-03-02T10:00:00.000000Z", author="github:1002")
    thread.save()
    return ctx, first, second


def test_proposal_then_digest_bound_acceptance(world) -> None:  # type: ignore[no-untyped-def]
    ctx, first, _ = world
    proposal = propose(ctx, [ref(first)])
    assert proposal["state"] == "proposed" and proposal["version"] == 1
    assert proposal["id"] == "lrn_" + proposal["contentDigest"][7:39]
    assert active(ctx.view(), "instruction") == []
    done = accepted(ctx, proposal)
    assert done["decision"] == {"by": "github:9", "reviewDigest": proposal["reviewDigest"], "edited": False, "reason": None}
    assert [s.id for s, _ in active(ctx.view(), "instruction")] == [proposal["id"]]


def test_stale_review_digest_is_refused(world) -> None:  # type: ignore[no-untyped-def]
    ctx, first, second = world
    proposal = propose(ctx, [ref(first)])
    ops.revise(ctx, proposal["id"], [ref(first), ref(second)], [], "github:9")
    with pytest.raises(Refused, match="stale review"):
        ops.accept(ctx, proposal["id"], proposal["reviewDigest"], "github:9")
    with pytest.raises(Refused, match="stale review"):
        ops.reject(ctx, proposal["id"], "sha256:" + "0" * 64, "github:9", None)


def test_new_support_changes_the_review_digest(world) -> None:  # type: ignore[no-untyped-def]
    ctx, first, second = world
    proposal = propose(ctx, [ref(first)])
    revised = ops.revise(ctx, proposal["id"], [ref(first), ref(second)], [], "github:9")
    assert revised["support"] == 2 and revised["reviewDigest"] != proposal["reviewDigest"]
    done = ops.accept(ctx, proposal["id"], revised["reviewDigest"], "github:9")
    assert done["state"] == "accepted"


def test_edit_on_accept(world) -> None:  # type: ignore[no-untyped-def]
    ctx, first, _ = world
    proposal = propose(ctx, [ref(first)])
    done = ops.accept(ctx, proposal["id"], proposal["reviewDigest"], "github:9", edit="Use full jitter.")
    assert done["decision"]["edited"] is True and done["content"]["text"] == "Use full jitter."
    assert done["contentDigest"] != proposal["contentDigest"]
    [(status, current)] = active(ctx.view(), "instruction")
    assert current["content"]["text"] == "Use full jitter."


def test_reject_and_retire(world) -> None:  # type: ignore[no-untyped-def]
    ctx, first, second = world
    proposal = propose(ctx, [ref(first)])
    rejected = ops.reject(ctx, proposal["id"], proposal["reviewDigest"], "github:9", "too vague")
    assert rejected["state"] == "rejected"
    with pytest.raises(Refused, match="is rejected"):
        ops.accept(ctx, rejected["id"], rejected["reviewDigest"], "github:9")
    other = accepted(ctx, propose(ctx, [ref(second)], title="Other", text="Another rule."))
    ops.retire(ctx, other["id"], "github:9", "no longer true")
    assert active(ctx.view(), "instruction") == []
    with pytest.raises(Refused, match="needs a reason"):
        ops.retire(ctx, other["id"], "github:9", "")


def _plant_version(ctx, record) -> None:  # type: ignore[no-untyped-def]
    """Write a version straight into the store, as a forger with write access to the ref would:
    with an audit entry that vouches for it, so only the lifecycle rules can catch it."""
    record = seal(record)
    ctx.write([record], "accept", record["decision"]["by"], [record["id"]], decided=True)


def test_forged_approval_is_never_used_and_shows_no_content(world) -> None:  # type: ignore[no-untyped-def]
    ctx, first, _ = world
    proposal = propose(ctx, [ref(first)], title="Secret plan", text="Forged text must never show.")
    forged = copy.deepcopy(proposal)
    for key in ("digest",):
        forged.pop(key)
    forged.update(version=2, previous=proposal["digest"], state="accepted",
                  decision={"by": "github:666", "reviewDigest": "sha256:" + "5" * 64, "edited": False, "reason": None})
    _plant_version(ctx, forged)
    status = evaluate(ctx.view(), "instruction")[proposal["id"]]
    assert not status.usable and "never shown" in " ".join(status.reasons)
    done = gitstore("show", proposal["id"], cwd=ctx.workspace.root)
    assert done.returncode == 0, done.stderr
    assert "Forged text" not in done.stdout and "Secret plan" not in done.stdout
    assert proposal["digest"] in done.stdout and "never shown" in done.stdout
    listing = gitstore("learnings", "--json", cwd=ctx.workspace.root)
    row = json.loads(listing.stdout)[0]
    assert "title" not in row and "problem" in row


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"category": "decision"}, "may not change category"),
        ({"content": {"title": "t", "text": "changed"}}, "edited must be true"),
        ({"supersedes": ["lrn_" + "7" * 32]}, "did not offer to replace"),
    ],
)
def test_each_step_changes_only_its_own_fields(world, change, message) -> None:  # type: ignore[no-untyped-def]
    ctx, first, _ = world
    proposal = propose(ctx, [ref(first)])
    forged = {k: v for k, v in copy.deepcopy(proposal).items() if k != "digest"}
    forged.update(version=2, previous=proposal["digest"], state="accepted",
                  decision={"by": "github:9", "reviewDigest": proposal["reviewDigest"], "edited": False, "reason": None})
    forged.update(change)
    _plant_version(ctx, forged)
    history = build(proposal["id"], ctx.view().learnings[proposal["id"]])
    assert not history.valid and message in (history.problem or "")
    assert history.intact == 1


def test_a_history_must_start_as_a_proposal(world) -> None:  # type: ignore[no-untyped-def]
    ctx, first, _ = world
    proposal = propose(ctx, [ref(first)], title="Base")
    orphan = {k: v for k, v in copy.deepcopy(proposal).items() if k != "digest"}
    orphan.update(id="lrn_" + "3" * 32, version=2, previous="sha256:" + "4" * 64, state="accepted",
                  decision={"by": "github:9", "reviewDigest": proposal["reviewDigest"], "edited": False, "reason": None})
    _plant_version(ctx, orphan)
    status = evaluate(ctx.view(), "instruction")["lrn_" + "3" * 32]
    assert not status.usable and "no proposal" in " ".join(status.reasons)


def test_bots_cannot_decide(world) -> None:  # type: ignore[no-untyped-def]
    ctx, first, _ = world
    proposal = propose(ctx, [ref(first)])
    forged = {k: v for k, v in copy.deepcopy(proposal).items() if k != "digest"}
    forged.update(version=2, previous=proposal["digest"], state="accepted",
                  decision={"by": "bot:sneaky", "reviewDigest": proposal["reviewDigest"], "edited": False, "reason": None})
    _plant_version(ctx, forged)
    assert "is not a person" in (build(proposal["id"], ctx.view().learnings[proposal["id"]]).problem or "")
