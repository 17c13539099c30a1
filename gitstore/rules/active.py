"""Which learnings are in force, for which purpose, and what each one replaced.

Supersession settles at read time the same way on every clone, by what each claim's append
had seen, never by claimed clocks. Claims are the ``supersedes`` of accepted versions in the
intact part of a history. A claim made having seen another claim on one of the learnings it
names loses (the store refuses to write one; a race between clones or a forger can still
store it). Claims made without seeing each other that name a learning in common are
**contested**: the one with the smallest digest takes what it names, the others lose, and the
winner is never used while a contender that lost is not retired; a person settles it by
retiring the one they do not want. A claim takes all the learnings it names or none. A claim
that loses replaces nothing and is marked conflicted: if it came with the acceptance, that
learning is not used; if it was added later, the learning stays as it was. A claim keeps
effect when its learning is later retired or damaged, so nothing quietly comes back. A claim of
a learning kept on this machine (local) replaces no shared learning: every other clone keeps
that one in force, so this clone does too (and a publish here never drops it), and the claim is
marked conflicted (``gitstore.ops.learning`` refuses to write one; an older version could).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from gitstore.records.times import format_time
from gitstore.rules.consent import Verdict
from gitstore.rules.evidence import refs_serve
from gitstore.rules.lifecycle import AUTO, USABLE, History
from gitstore.rules.namespaces import misplaced
from gitstore.rules.view import View
from gitstore.store import Item


@dataclass
class Claims:
    """The settled supersession: who replaced whom, which claims lost, which are contested."""

    replaced_by: dict[str, str] = field(default_factory=dict)
    conflicted: dict[str, str] = field(default_factory=dict)  # learning id -> why
    lost_with_acceptance: set[str] = field(default_factory=set)
    contested: dict[str, str] = field(default_factory=dict)  # winning learning id -> why it waits


@dataclass(frozen=True)
class _Claim:
    learning: str
    item: Item
    targets: tuple[str, ...]
    with_acceptance: bool
    retired: bool


def settle(view: View, all_histories: dict[str, History]) -> Claims:
    """Settle racing replacements by what each claim had seen (see the module)."""
    claims = Claims()
    found = []
    for claim in _claims(all_histories):
        shared = [t for t in claim.targets if t in all_histories and all_histories[t].chain
                  and _namespace(all_histories[t].chain[0]) == "shared"]
        if _namespace(claim.item) == "local" and shared:  # no other clone sees it: it replaces nothing
            claims.conflicted[claim.learning] = (
                f"its replacement of {', '.join(shared)} does not stand: a learning kept on this machine (its "
                "evidence or history is personal) replaces no shared one, which every other clone keeps in force")
            continue
        found.append(claim)
    lost: dict[str, set[str]] = {}  # claimant -> learnings whose claims it lost to
    rivals: dict[str, set[str]] = {}  # claimant -> contenders it settled over
    by_target: dict[str, list[int]] = {}  # only claims on a common learning race each other
    for number, claim in enumerate(found):
        for target in claim.targets:
            by_target.setdefault(target, []).append(number)
    for number, a in enumerate(found):
        for other in sorted({n for target in a.targets for n in by_target[target]} - {number}):
            b = found[other]
            a_saw_b, b_saw_a = view.saw(a.item.stored, b.item.stored), view.saw(b.item.stored, a.item.stored)
            if a_saw_b and not b_saw_a:
                lost.setdefault(a.learning, set()).add(b.learning)  # a claimed knowing b's claim
            elif a_saw_b == b_saw_a and b.item.digest < a.item.digest:
                lost.setdefault(a.learning, set()).add(b.learning)  # neither knew: the smaller digest
                if not a_saw_b:
                    rivals.setdefault(b.learning, set()).add(a.learning)
    retired = {c.learning for c in found if c.retired}
    for claim in found:
        if claim.learning in lost:
            winners = sorted(lost[claim.learning])
            claims.conflicted[claim.learning] = (
                f"its replacement of {', '.join(claim.targets)} lost to {', '.join(winners)}")
            if claim.with_acceptance:
                claims.lost_with_acceptance.add(claim.learning)
            continue
        for target in claim.targets:
            claims.replaced_by[target] = claim.learning
        waiting = sorted(r for r in rivals.get(claim.learning, ()) if r not in retired)
        if waiting:
            claims.contested[claim.learning] = (
                f"contested: {', '.join(waiting)} claimed the same learnings without seeing this claim; "
                "retire the one that should not stand")
    return claims


def _namespace(item: Item) -> str:
    """Where a version is kept (a store order without namespaces, as in a model of one: shared)."""
    return getattr(item.stored, "namespace", "shared")


def _claims(all_histories: dict[str, History]) -> list[_Claim]:
    """Every claim: the first accepted version carrying ``supersedes`` in a history's intact part."""
    found = []
    for history in all_histories.values():
        intact = history.chain[: history.intact]
        for index, item in enumerate(intact):
            if item.record["state"] == "accepted" and item.record.get("supersedes"):
                with_acceptance = index == 0 or intact[index - 1].record["state"] != "accepted"
                retired = intact[-1].record["state"] == "retired"
                found.append(_Claim(history.id, item, tuple(item.record["supersedes"]), with_acceptance, retired))
                break
    return found


@dataclass(frozen=True)
class Status:
    """A learning's standing for one purpose."""

    id: str
    state: str
    usable: bool
    trust: str
    reasons: tuple[str, ...]
    grants: tuple[str, ...]
    replaced_by: str | None
    conflicted: str | None
    evidence: Verdict | None = None  # the evidence's verdict, when it was judged
    contested: str | None = None  # why a person must decide again before it is used


def evaluate(view: View, purpose: str, now: str | None = None,
             all_histories: dict[str, History] | None = None) -> dict[str, Status]:
    """The standing of every learning of the view for ``purpose`` at ``now`` (``all_histories``:
    the view's histories, when the caller has built them already)."""
    return _evaluate(view, all_histories if all_histories is not None else view.histories(), purpose, now)


def _evaluate(view: View, all_histories: dict[str, History], purpose: str, now: str | None,
              upcoming: bool = False) -> dict[str, Status]:
    now = now or format_time(datetime.now(timezone.utc))
    claims = settle(view, all_histories)
    return {lid: _status(view, h, claims, purpose, now, upcoming) for lid, h in sorted(all_histories.items())}


def _status(view: View, history: History, claims: Claims, purpose: str, now: str, upcoming: bool = False) -> Status:
    reasons: list[str] = []
    state = history.current["state"] if history.intact else "invalid"
    contested = history.contested or claims.contested.get(history.id)
    if not history.valid:
        reasons.append(f"history breaks a rule: {history.problem}")
    elif history.contested:
        reasons.append(f"contested: {history.contested}; decide again on version {history.current['version']}")
    elif state not in USABLE:
        reasons.append(f"state is {state}")
    if history.id in claims.contested:
        reasons.append(claims.contested[history.id])
    record: dict[str, Any] = history.current if history.intact else {}
    replaced_by = claims.replaced_by.get(history.id)
    if replaced_by:
        reasons.append(f"replaced by {replaced_by}")
    conflicted = claims.conflicted.get(history.id)
    if history.id in claims.lost_with_acceptance:
        reasons.append(f"conflicted: {conflicted}")
    if record:
        if record["validFrom"] and now < record["validFrom"] and not upcoming:
            reasons.append(f"valid only from {record['validFrom']}")
        if record["validUntil"] and now > record["validUntil"]:
            reasons.append(f"expired at {record['validUntil']}")
    placed = misplaced(view, history) if record else None
    if placed:
        reasons.append(placed)
    grants: tuple[str, ...] = ()
    verdict = None
    if record and not reasons:
        verdict = refs_serve(view, record["evidence"] + record["counterevidence"], purpose)
        if verdict.ok:
            grants = verdict.grants
        else:
            reasons.append(f"evidence does not serve {purpose}: {verdict.reason}")
    trust = "auto-safe" if state in AUTO else "human"
    return Status(history.id, state, not reasons, trust, tuple(reasons), grants, replaced_by, conflicted, verdict,
                  contested)


def active(view: View, purpose: str, now: str | None = None,
           upcoming: bool = False) -> list[tuple[Status, dict[str, Any]]]:
    """Learnings in force for ``purpose``, with their current version, in id order. With
    ``upcoming``, also those that will be once their ``validFrom`` comes (nothing else bars
    them): recall's index holds them, and compares their dates with the clock when it is read,
    since time moves nothing its fingerprint is made of."""
    all_histories = view.histories()
    statuses = _evaluate(view, all_histories, purpose, now, upcoming)
    return [(s, all_histories[lid].current) for lid, s in statuses.items() if s.usable]
