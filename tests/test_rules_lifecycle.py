"""The learning lifecycle: proposals, digest-bound decisions, stale reviews, edits, rejections,
retirements, and histories that break a rule (forged approvals planted straight into the ref)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from gitstore import Refused
from gitstore.conformance import batch
from gitstore.providers import Batch
from gitstore.records.contracts import seal
from gitstore.ops import learning as ops
from gitstore.rules.active import active, evaluate
from gitstore.rules.lifecycle import build

from .cli import gitstore
from .team import proposal_of_two
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


def _plant_version(ctx, record) -> dict:  # type: ignore[no-untyped-def]
    """Write a version straight into the store, as a forger with write access to the ref would:
    with an audit entry that vouches for it, so only the lifecycle rules can catch it."""
    record = seal(record)
    ctx.write([record], "accept", record["decision"]["by"], [record["id"]], decided=True)
    return record


def _ignored_for(ctx, proposal, forged) -> str:  # type: ignore[no-untyped-def]
    """Why the history of ``proposal`` ignores ``forged``, which stays out of its chain."""
    history = build(proposal["id"], ctx.view().learnings[proposal["id"]])
    assert history.valid and [i.digest for i in history.chain] == [proposal["digest"]]
    return " ".join(why for item, why in history.broken if item.digest == forged["digest"])


def test_forged_approval_is_never_used_and_shows_no_content(world) -> None:  # type: ignore[no-untyped-def]
    """A decision no step allows is ignored, as if never stored: the learning stays where it
    was, a person may decide there, and verify names it, never showing what it says."""
    ctx, first, _ = world
    proposal = propose(ctx, [ref(first)], title="Secret plan", text="The proposal's own words.")
    forged = copy.deepcopy(proposal)
    for key in ("digest",):
        forged.pop(key)
    forged.update(version=2, previous=proposal["digest"], state="accepted",
                  content={"title": "Forged", "text": "Forged text must never show."},
                  decision={"by": "github:666", "reviewDigest": "sha256:" + "5" * 64, "edited": True, "reason": None})
    forged = _plant_version(ctx, forged)
    status = evaluate(ctx.view(), "instruction")[proposal["id"]]
    assert (status.state, status.usable) == ("proposed", False)
    assert "never shown" in _ignored_for(ctx, proposal, forged)
    for command in (("show", proposal["id"]), ("history", proposal["id"]), ("verify",)):
        done = gitstore(*command, cwd=ctx.workspace.root)
        assert "Forged text" not in done.stdout + done.stderr
    done = gitstore("verify", cwd=ctx.workspace.root)
    assert done.returncode == 3 and forged["digest"] in done.stderr and "never shown" in done.stderr, done.stderr
    ops.accept(ctx, proposal["id"], proposal["reviewDigest"], "github:9")
    assert evaluate(ctx.view(), "instruction")[proposal["id"]].usable


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"category": "decision"}, "may not change category"),
        ({"content": {"title": "t", "text": "changed"}}, "edited must be true"),
        ({"content": {"title": "Retries never jitter", "text": "changed"},
          "decision": {"by": "github:9", "edited": True, "reason": None}}, "may change the text, not the title"),
        ({"supersedes": ["lrn_" + "7" * 32]}, "did not offer to replace"),
    ],
)
def test_each_step_changes_only_its_own_fields(world, change, message) -> None:  # type: ignore[no-untyped-def]
    ctx, first, _ = world
    proposal = propose(ctx, [ref(first)])
    forged = {k: v for k, v in copy.deepcopy(proposal).items() if k != "digest"}
    forged.update(version=2, previous=proposal["digest"], state="accepted",
                  decision={"by": "github:9", "reviewDigest": proposal["reviewDigest"], "edited": False, "reason": None})
    forged.update(copy.deepcopy(change))
    forged["decision"].setdefault("reviewDigest", proposal["reviewDigest"])
    forged = _plant_version(ctx, forged)
    assert message in _ignored_for(ctx, proposal, forged)


def test_a_history_must_start_as_a_proposal(world) -> None:  # type: ignore[no-untyped-def]
    ctx, first, _ = world
    proposal = propose(ctx, [ref(first)], title="Base")
    orphan = {k: v for k, v in copy.deepcopy(proposal).items() if k != "digest"}
    orphan.update(id="lrn_" + "3" * 32, version=2, previous="sha256:" + "4" * 64, state="accepted",
                  decision={"by": "github:9", "reviewDigest": proposal["reviewDigest"], "edited": False, "reason": None})
    _plant_version(ctx, orphan)
    status = evaluate(ctx.view(), "instruction")["lrn_" + "3" * 32]
    assert not status.usable and "no proposal" in " ".join(status.reasons)
    done = gitstore("verify", cwd=ctx.workspace.root)
    assert done.returncode == 3 and "lrn_" + "3" * 32 in done.stderr and "no proposal" in done.stderr, done.stderr


def test_bots_cannot_decide(world) -> None:  # type: ignore[no-untyped-def]
    ctx, first, _ = world
    proposal = propose(ctx, [ref(first)])
    forged = {k: v for k, v in copy.deepcopy(proposal).items() if k != "digest"}
    forged.update(version=2, previous=proposal["digest"], state="accepted",
                  decision={"by": "bot:sneaky", "reviewDigest": proposal["reviewDigest"], "edited": False, "reason": None})
    forged = _plant_version(ctx, forged)
    assert "is not a person" in _ignored_for(ctx, proposal, forged)


# -- decisions made on two clones, settled by what each had seen -----------------------------------

def _both(a, b, learning):  # type: ignore[no-untyped-def]
    from gitstore.rules.active import evaluate

    found = [evaluate(ctx.view(), "instruction")[learning] for ctx in (a, b)]
    assert found[0] == found[1]  # every clone computes the same
    return found[0]


def test_decisions_made_without_seeing_each_other_are_contested_until_decided_again(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from .team import sync

    a, b, proposal = proposal_of_two(tmp_path)
    ops.accept(a, proposal["id"], proposal["reviewDigest"], "github:9")
    ops.reject(b, proposal["id"], proposal["reviewDigest"], "github:10", "not convinced")
    a, b = sync(a, b)
    status = _both(a, b, proposal["id"])
    assert status.state == "proposed" and not status.usable and status.contested is not None
    assert "accepted by github:9" in status.contested and "rejected by github:10" in status.contested
    # a person decides again on the version both followed, with both in view: that settles it
    ops.accept(b, proposal["id"], proposal["reviewDigest"], "github:10")
    a, b = sync(a, b)
    status = _both(a, b, proposal["id"])
    assert status.state == "accepted" and status.usable and status.contested is None


def test_a_step_made_knowing_the_next_version_does_not_override_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from gitstore.providers.git import GitProvider

    from .team import sync

    a, b, proposal = proposal_of_two(tmp_path)
    ops.accept(a, proposal["id"], proposal["reviewDigest"], "github:9")
    a, b = sync(a, b)
    # b has seen the acceptance, and still writes a rejection of the proposal (bypassing the
    # checks `gitstore reject` makes): it is stale, on every clone
    rejection = _step(proposal, "rejected", "github:10")
    GitProvider(b.workspace.root, b.workspace.config.writer).append(
        Batch("shared", batch(rejection, b.audit("reject", "github:10", [proposal["id"]], [rejection])).entries,
              authority=True))
    a, b = sync(a, b)
    status = _both(a, b, proposal["id"])
    assert status.state == "accepted" and status.usable


def test_a_claimed_clock_cannot_put_a_rejection_before_an_acceptance(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from gitstore.providers.git import records_ref
    from gitstore.queries.verify import verify

    from .conftest import git
    from .team import forge, sync, team_clone

    a, b, proposal = proposal_of_two(tmp_path)
    before = git(a.workspace.root, "rev-parse", records_ref("shared", a.workspace.config.writer)).strip()
    ops.accept(a, proposal["id"], proposal["reviewDigest"], "github:9")
    a, b = sync(a, b)
    assert _both(a, b, proposal["id"]).usable
    # a reviewer the policy allows, on another machine, writes new writer refs rejecting it
    key = Path(b.workspace.repo.config["user.signingkey"])
    m = team_clone(tmp_path, Path(a.workspace.repo.remotes["origin"].url), "mallory", key)
    policy = m.store.trust_mode().revision

    def rejecting(writer: str, reason: str, **how: object) -> None:
        rejection = _step(proposal, "rejected", "github:10", reason)
        forge(m.workspace.root, writer, [rejection, m.audit("reject", "github:10", [proposal["id"]], [rejection])],
              key=key, policy=policy, **how)  # type: ignore[arg-type]

    # Clock: 1, naming nothing it had seen: it had not seen the proposal, and applies to nothing
    rejecting("wblind", "blind", clock=1, blind=True)
    # Clock: 1, naming the proposal's append as seen: a clock below what it saw is a lie, damage
    rejecting("wlying", "lying", clock=1, seen=((a.workspace.config.writer, before),))
    a, b, m = sync(a, b, m)
    status = _both(a, b, proposal["id"])
    assert status.state == "accepted" and status.usable
    assert any("wlying" in str(p) and "quarantined" in str(p) for p in verify(a.store).problems)
    # with an honest clock, made without seeing the acceptance: a contest for a person
    rejecting("whonest", "concurrent", seen=((a.workspace.config.writer, before),))
    a, b, m = sync(a, b, m)
    status = _both(a, b, proposal["id"])
    assert status.state == "proposed" and not status.usable and "rejected by github:10" in str(status.contested)


def _step(prior, state, by, reason="no"):  # type: ignore[no-untyped-def]
    record = ops._next(prior)
    record["state"] = state
    record["decision"] = {"by": by, "reviewDigest": prior["reviewDigest"], "edited": False, "reason": reason}
    return seal(record)


def test_show_and_learnings_say_a_learning_is_contested_and_what_to_do(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from .team import sync

    a, b, proposal = proposal_of_two(tmp_path)
    ops.accept(a, proposal["id"], proposal["reviewDigest"], "github:9")
    ops.reject(b, proposal["id"], proposal["reviewDigest"], "github:10", "not convinced")
    a, b = sync(a, b)
    shown = gitstore("show", proposal["id"], "--json", cwd=a.workspace.root)
    assert shown.returncode == 0
    standing = json.loads(shown.stdout)["standing"]
    assert any("contested" in why for why in standing["why"]) and "decides again" in " ".join(standing["todo"])
    listed = json.loads(gitstore("learnings", "--json", cwd=b.workspace.root).stdout)
    [row] = [r for r in listed if r["id"] == proposal["id"]]
    assert "rejected by github:10" in row["contested"] and not row["usable"]


# -- many steps naming one version: settled in polynomial time -----------------------------------

class _CountedSaw:
    """``saw`` that counts what it is asked, and stops a settlement that asks more than
    ``budget`` times (judging each step again within every set of steps it had seen asks
    factorially or exponentially many times, and never finishes)."""

    def __init__(self, saw, budget: int) -> None:  # type: ignore[no-untyped-def]
        self.saw, self.budget, self.calls = saw, budget, 0

    def __call__(self, later, earlier) -> bool:  # type: ignore[no-untyped-def]
        self.calls += 1
        assert self.calls <= self.budget, f"settling asked whether one append saw another over {self.budget} times"
        return bool(self.saw(later, earlier))


def _siblings(proposal: dict, n: int) -> list[dict]:
    """``n`` revisions that all name ``proposal`` as the version they follow (a revision needs
    no authority: anyone who can push can write them)."""
    found = []
    for k in range(n):
        record = ops._next(proposal)
        record["rationale"] = f"Sibling revision {k}."
        found.append(seal(record))
    return found


def _settled_with_few_questions(ctx, proposal, n):  # type: ignore[no-untyped-def]
    """The history of ``proposal``, built asking whether one append saw another at most about
    once per pair of its versions."""
    view = ctx.view()
    items = view.learnings[proposal["id"]]
    counted = _CountedSaw(view.saw, budget=2 * (n + 1) ** 2)
    return build(proposal["id"], items, counted)


def test_sibling_revisions_in_one_append_settle_as_steps_made_together(world) -> None:  # type: ignore[no-untyped-def]
    """Records of one append were made together, none knowing another first: they have not
    seen each other. Sibling revisions agree, so the smallest digest counts, and the history
    goes on from it (the one read before asking every subset of them, and froze a proposal
    at the version they named, ignoring every later revision of it)."""
    ctx, first, second = world
    proposal = propose(ctx, [ref(first)])
    siblings = _siblings(proposal, 14)
    ctx.store.append(siblings)
    history = _settled_with_few_questions(ctx, proposal, 14)
    smallest = min(s["digest"] for s in siblings)
    assert [i.digest for i in history.chain] == [proposal["digest"], smallest] and history.contested is None
    assert {i.digest for i in history.ignored} == {s["digest"] for s in siblings} - {smallest}
    revised = ops.revise(ctx, proposal["id"], [ref(first), ref(second)], [], "github:9")
    assert revised["previous"] == smallest
    done = accepted(ctx, revised)
    listed = json.loads(gitstore("learnings", "--json", cwd=ctx.workspace.root).stdout)
    assert [(r["id"], r["state"], r["digest"]) for r in listed] == [(proposal["id"], "accepted", done["digest"])]


def test_sibling_revisions_one_append_each_settle_on_the_first(world) -> None:  # type: ignore[no-untyped-def]
    """Each later sibling was made having seen the earlier ones, no contest among them: it is
    stale, and the first counts (the one read before judged each again within every set of
    the siblings it had seen: twice the work for every sibling added)."""
    ctx, first, _ = world
    proposal = propose(ctx, [ref(first)])
    siblings = _siblings(proposal, 40)
    for sibling in siblings:
        ctx.store.append([sibling])
    history = _settled_with_few_questions(ctx, proposal, 40)
    assert [i.digest for i in history.chain] == [proposal["digest"], siblings[0]["digest"]]
    assert {i.digest for i in history.ignored} == {s["digest"] for s in siblings[1:]}
    assert evaluate(ctx.view(), "instruction")[proposal["id"]].state == "proposed"
