"""Which learnings are in force, for which purpose, and what each one replaced.

Supersession settles at read time the same way on every clone: claims (the ``supersedes`` of
accepted versions in the intact part of a history) are taken in store order; a claim takes
effect only if none of the learnings it names was already claimed, and then it takes them all.
A claim that loses replaces nothing and is marked conflicted: if it came with the acceptance,
that learning is not used; if it was added later, the learning stays as it was. A claim keeps
effect when its learning is later retired or damaged, so nothing quietly comes back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from gitstore.records.times import format_time
from gitstore.rules.consent import Verdict
from gitstore.rules.evidence import refs_serve
from gitstore.rules.lifecycle import AUTO, USABLE, History, histories
from gitstore.rules.namespaces import misplaced
from gitstore.rules.view import View


@dataclass
class Claims:
    """The settled supersession: who replaced whom, and which claims lost."""

    replaced_by: dict[str, str] = field(default_factory=dict)
    conflicted: dict[str, str] = field(default_factory=dict)  # learning id -> why
    lost_with_acceptance: set[str] = field(default_factory=set)


def settle(view: View, all_histories: dict[str, History]) -> Claims:
    """Settle racing replacements in store order."""
    found = []
    for history in all_histories.values():
        for index, item in enumerate(history.chain[: history.intact]):
            if item.record["state"] == "accepted" and item.record.get("supersedes"):
                with_acceptance = index == 0 or history.chain[index - 1].record["state"] != "accepted"
                found.append((view.order_of(item.digest), history.id, item.record["supersedes"], with_acceptance))
                break
    claims = Claims()
    for _, claimant, targets, with_acceptance in sorted(found):
        taken = [t for t in targets if t in claims.replaced_by]
        if taken:
            claims.conflicted[claimant] = (
                f"its replacement of {', '.join(taken)} lost to "
                f"{', '.join(sorted({claims.replaced_by[t] for t in taken}))}"
            )
            if with_acceptance:
                claims.lost_with_acceptance.add(claimant)
            continue
        for target in targets:
            claims.replaced_by[target] = claimant
    return claims


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


def evaluate(view: View, purpose: str, now: str | None = None,
             all_histories: dict[str, History] | None = None) -> dict[str, Status]:
    """The standing of every learning of the view for ``purpose`` at ``now`` (``all_histories``:
    the view's histories, when the caller has built them already)."""
    return _evaluate(view, all_histories if all_histories is not None else histories(view.learnings), purpose, now)


def _evaluate(view: View, all_histories: dict[str, History], purpose: str, now: str | None) -> dict[str, Status]:
    now = now or format_time(datetime.now(timezone.utc))
    claims = settle(view, all_histories)
    return {lid: _status(view, h, claims, purpose, now) for lid, h in sorted(all_histories.items())}


def _status(view: View, history: History, claims: Claims, purpose: str, now: str) -> Status:
    reasons: list[str] = []
    state = history.current["state"] if history.intact else "invalid"
    if not history.valid:
        reasons.append(f"history breaks a rule: {history.problem}")
    elif state not in USABLE:
        reasons.append(f"state is {state}")
    record: dict[str, Any] = history.current if history.intact else {}
    replaced_by = claims.replaced_by.get(history.id)
    if replaced_by:
        reasons.append(f"replaced by {replaced_by}")
    conflicted = claims.conflicted.get(history.id)
    if history.id in claims.lost_with_acceptance:
        reasons.append(f"conflicted: {conflicted}")
    if record:
        if record["validFrom"] and now < record["validFrom"]:
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
    return Status(history.id, state, not reasons, trust, tuple(reasons), grants, replaced_by, conflicted, verdict)


def active(view: View, purpose: str, now: str | None = None) -> list[tuple[Status, dict[str, Any]]]:
    """Learnings in force for ``purpose``, with their current version, in id order."""
    all_histories = histories(view.learnings)
    statuses = _evaluate(view, all_histories, purpose, now)
    return [(s, all_histories[lid].current) for lid, s in statuses.items() if s.usable]
