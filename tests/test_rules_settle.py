"""Racing replacements are settled among the claims on a common learning only, exactly as
comparing every claim with every other would settle them."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from gitstore.rules.active import Claims, _claims, settle


def _every_pair(view: Any, all_histories: dict[str, Any]) -> Claims:
    """The settlement by comparing every claim with every other (the rule as the module states it)."""
    found = _claims(all_histories)
    claims = Claims()
    lost: dict[str, set[str]] = {}
    rivals: dict[str, set[str]] = {}
    for a in found:
        for b in found:
            if a is b or not set(a.targets) & set(b.targets):
                continue
            a_saw_b, b_saw_a = view.saw(a.item.stored, b.item.stored), view.saw(b.item.stored, a.item.stored)
            if a_saw_b and not b_saw_a:
                lost.setdefault(a.learning, set()).add(b.learning)
            elif a_saw_b == b_saw_a and b.item.digest < a.item.digest:
                lost.setdefault(a.learning, set()).add(b.learning)
                if not a_saw_b:
                    rivals.setdefault(b.learning, set()).add(a.learning)
    for claim in found:
        if claim.learning in lost:
            claims.conflicted[claim.learning] = (
                f"its replacement of {', '.join(claim.targets)} lost to {', '.join(sorted(lost[claim.learning]))}")
            if claim.with_acceptance:
                claims.lost_with_acceptance.add(claim.learning)
            continue
        for target in claim.targets:
            claims.replaced_by[target] = claim.learning
        waiting = sorted(r for r in rivals.get(claim.learning, ())
                         if not any(c.learning == r and c.retired for c in found))
        if waiting:
            claims.contested[claim.learning] = (
                f"contested: {', '.join(waiting)} claimed the same learnings without seeing this claim; "
                "retire the one that should not stand")
    return claims


def _item(state: str, supersedes: list[str], stored: int, digest: str) -> Any:
    return SimpleNamespace(record={"state": state, "supersedes": supersedes}, stored=stored, digest=digest)


@pytest.mark.parametrize("seed", range(12))
def test_claims_settle_as_every_pair_compared_would_settle_them(seed: int) -> None:
    rng = random.Random(seed)
    targets = [f"lrn_t{n}" for n in range(rng.choice((3, 12, 40)))]
    histories: dict[str, Any] = {}
    for n in range(rng.choice((2, 20, 80))):
        chain = []
        if rng.random() < 0.5:
            chain.append(_item("proposed", [], n, f"sha256:{rng.getrandbits(64):016x}"))
        if rng.random() < 0.3:
            chain.append(_item("accepted", [], n, f"sha256:{rng.getrandbits(64):016x}"))
        chain.append(_item("accepted", rng.sample(targets, rng.randint(1, min(3, len(targets)))), n,
                           f"sha256:{rng.getrandbits(64):016x}"))
        if rng.random() < 0.3:
            chain.append(_item("retired", [], n, f"sha256:{rng.getrandbits(64):016x}"))
        histories[f"lrn_c{n}"] = SimpleNamespace(id=f"lrn_c{n}", chain=chain, intact=len(chain))
    seen = {(a, b) for a in range(len(histories)) for b in range(len(histories)) if rng.random() < 0.4}
    view = SimpleNamespace(saw=lambda later, earlier: (later, earlier) in seen)
    settled = settle(view, histories)  # type: ignore[arg-type]
    assert settled == _every_pair(view, histories)
    assert settled.replaced_by or settled.conflicted  # there was something to settle
