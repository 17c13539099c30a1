"""Supersession by single-record compare-and-swap, settled at read time the same way on every
clone: in the order made, a loser replaces nothing and is marked conflicted, and a replacement
that is later retired keeps its claims."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstore import Refused
from gitstore.ops import learning as ops
from gitstore.context import Context
from gitstore.rules.active import active, evaluate

from .team import sync, two_reviewers
from .world import Thread, accepted, grant_all, propose, ready_repo, ref


def _world(ctx: Context):  # type: ignore[no-untyped-def]
    thread = Thread(ctx, 7, "100")
    comments = [thread.comment(str(100 + i), f"point {i}", f"2026-03-0{i + 1}T10:00:00.000000Z") for i in range(4)]
    thread.save()
    return comments


def test_an_accepted_replacement_supersedes(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "w")
    grant_all(ctx)
    c = _world(ctx)
    old = accepted(ctx, propose(ctx, [ref(c[0])], title="Old rule", text="Old."))
    new = accepted(ctx, propose(ctx, [ref(c[1])], title="New rule", text="New.", replaces=(old["id"],)))
    assert new["supersedes"] == [old["id"]]
    statuses = evaluate(ctx.view(), "instruction")
    assert statuses[old["id"]].replaced_by == new["id"] and not statuses[old["id"]].usable
    assert [s.id for s, _ in active(ctx.view(), "instruction")] == [new["id"]]
    third = propose(ctx, [ref(c[2])], title="Third", text="Third.", replaces=(old["id"],))
    with pytest.raises(Refused, match="already replaced"):
        ops.accept(ctx, third["id"], third["reviewDigest"], "github:9")


def test_a_learning_kept_on_this_machine_replaces_no_shared_one(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A replacement citing a personal session is kept local, and no other clone sees it: had it
    replaced the team's learning here, a publish here would drop that learning from the files
    every clone commits, while every other clone keeps it in force. The store refuses to write
    one; one written anyway (by an older version, or by hand) replaces nothing when read."""
    from gitstore.deliver.publish import select

    ctx = ready_repo(tmp_path / "w")
    grant_all(ctx, sources=("review-thread", "agent-session"))
    c = _world(ctx)
    team = accepted(ctx, propose(ctx, [ref(c[0])], title="Team rule", text="Retries use jitter."))
    session = Thread(ctx, None, "s1", kind="agent-session")
    said = session.comment("s1", "Retries use jitter and a cap.", "2026-03-05T10:00:00.000000Z")
    session.save()
    with pytest.raises(Refused, match=f"kept on this machine .it cites a personal session.*{team['id']}"):
        propose(ctx, [ref(said)], title="My rule", text="Retries use jitter and a cap.", replaces=(team["id"],))
    monkeypatch.setattr(ops, "refuse_unhonoured", lambda ctx, record: None)  # as an older version wrote
    mine = accepted(ctx, propose(ctx, [ref(said)], title="My rule", text="Retries use jitter and a cap.",
                                 replaces=(team["id"],)))
    monkeypatch.undo()
    assert [i.stored.namespace for i in ctx.view().learnings[mine["id"]]][-1] == "local"
    statuses = evaluate(ctx.view(), "instruction")
    assert statuses[team["id"]].usable and statuses[team["id"]].replaced_by is None
    assert statuses[mine["id"]].usable and "replaces no shared one" in (statuses[mine["id"]].conflicted or "")
    assert any(f.learning == team["id"] for f in select(ctx.view()).facts), "still published"


def test_a_retired_replacement_keeps_its_claims(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "w")
    grant_all(ctx)
    c = _world(ctx)
    old = accepted(ctx, propose(ctx, [ref(c[0])], title="Old rule", text="Old."))
    new = accepted(ctx, propose(ctx, [ref(c[1])], title="New rule", text="New.", replaces=(old["id"],)))
    ops.retire(ctx, new["id"], "github:9", "obsolete")
    assert active(ctx.view(), "instruction") == [], "retiring the replacement does not restore the old one"


def test_racing_replacements_settle_identically_on_every_clone(tmp_path: Path) -> None:
    a, b = two_reviewers(tmp_path)
    grant_all(a)
    c = _world(a)
    old = accepted(a, propose(a, [ref(c[0])], title="Old rule", text="Old."))
    first = propose(a, [ref(c[1])], title="Replacement A", text="A.", replaces=(old["id"],))
    second = propose(a, [ref(c[2])], title="Replacement B", text="B.", replaces=(old["id"],))
    a, b = sync(a, b)
    # each clone accepts a different replacement of the same learning, unaware of the other
    accepted(a, first)
    accepted(b, second, by="github:10")
    a, b = sync(a, b)
    verdict_a = {k: (s.usable, s.replaced_by, s.conflicted, s.contested)
                 for k, s in evaluate(a.view(), "instruction").items()}
    verdict_b = {k: (s.usable, s.replaced_by, s.conflicted, s.contested)
                 for k, s in evaluate(b.view(), "instruction").items()}
    assert verdict_a == verdict_b
    # neither clone saw the other's claim: a contest for a person, and nothing of it is used
    assert not any(v[0] for v in verdict_a.values())
    winner = min((first, second), key=lambda r: _claim_digest(a, r["id"]))["id"]
    loser = second["id"] if winner == first["id"] else first["id"]
    assert verdict_a[old["id"]][1] == winner
    assert verdict_a[loser][2] is not None and loser in str(verdict_a[winner][3])
    # retiring the one that should not stand settles it, on every clone
    ops.retire(a, loser, "github:9", "the other replacement stands")
    for ctx in sync(a, b):
        assert [s.id for s, _ in active(ctx.view(), "instruction")] == [winner]


def _claim_digest(ctx: Context, learning: str) -> str:
    return next(i.digest for i in ctx.view().learnings[learning] if i.record.get("supersedes"))


def test_two_clones_reach_identical_verdicts_on_shared_learnings(tmp_path: Path) -> None:
    a, b = two_reviewers(tmp_path)
    grant = grant_all(a)
    c = _world(a)
    l1 = accepted(a, propose(a, [ref(c[0])], title="One", text="One."))
    propose(a, [ref(c[1])], title="Two", text="Two.")
    a, b = sync(a, b)
    accepted(b, propose(b, [ref(c[2])], title="Three", text="Three."), by="github:10")
    from gitstore.ops import consent

    consent.withdraw(b, "github:10", grant["digest"], ["review"], None)
    ops.retire(a, l1["id"], "github:9", "done")
    a, b = sync(a, b)
    for purpose in ("instruction", "review", "training"):
        assert evaluate(a.view(), purpose) == evaluate(b.view(), purpose)
    assert [s.id for s, _ in active(a.view(), "instruction")]  # the accepted one on b counts on a
    assert not active(a.view(), "review")  # b's withdrawal counts on a
