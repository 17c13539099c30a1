"""Racing steps are settled as the rules state them, by ways that stay fast: steps naming one
version in one pass over what each had seen, exactly as judging each again within every set of
steps it had seen would settle them; replacements among the claims on a common learning only,
exactly as comparing every claim with every other would settle them."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from gitstore.rules.active import Claims, _claims, settle
from gitstore.rules.lifecycle import Settled, _intent, settle_steps


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


def _as_stated(steps: list[Any], seen: Any) -> Settled:
    """The settlement of steps naming one version as the lifecycle rule states it (``seen``:
    whether one step was made having seen another): a step that saw others counts only if they
    settle as a contest, and of the steps that count, those no other counting step saw stand.
    Each step is judged again within every set of steps it had seen: exponential, fine here."""
    known = {id(s): [o for o in steps if o is not s and seen(s, o)] for s in steps}
    live = [s for s in steps if not known[id(s)] or _as_stated(known[id(s)], seen).contenders]
    top = [s for s in live if not any(o is not s and id(s) in map(id, known[id(o)]) for o in live)]
    if not top:
        return Settled(None)
    decided = [s for s in top if "decision" in s.record]
    top = decided or top
    if len(top) == 1 or len({_intent(s.record) for s in top}) == 1:
        return Settled(min(top, key=lambda s: s.digest))
    return Settled(None, tuple(sorted(top, key=lambda s: s.digest)))


def _step(rng: random.Random, append: int) -> Any:
    state = rng.choice(("proposed", "proposed", "accepted", "rejected"))
    record: dict[str, Any] = {"state": state, "content": {"text": rng.choice(("a", "b"))}}
    if state != "proposed":
        record["decision"] = {"by": "github:9"}
    return SimpleNamespace(record=record, stored=SimpleNamespace(append=append),
                           digest=f"sha256:{rng.getrandbits(64):016x}")


@pytest.mark.parametrize("seed", range(300))
def test_steps_on_one_version_settle_as_the_rule_states(seed: int) -> None:
    """Appends in a causal order (each saw some earlier ones and all they saw), one or more
    steps in each. An append has seen itself, but steps of one append were made together:
    none was made having seen another."""
    rng = random.Random(seed)
    appends = rng.randint(1, 6)
    before: list[set[int]] = []
    for n in range(appends):
        direct = {m for m in range(n) if rng.random() < 0.4}
        before.append(direct.union(*(before[m] for m in direct)))
    steps = [_step(rng, rng.randrange(appends)) for _ in range(rng.randint(1, 7))]

    def saw(later: Any, earlier: Any) -> bool:
        return later.append == earlier.append or earlier.append in before[later.append]

    def seen(later: Any, earlier: Any) -> bool:
        return later.stored.append != earlier.stored.append and saw(later.stored, earlier.stored)

    assert settle_steps(steps, saw) == _as_stated(steps, seen)


class _Store:
    """The learnings of ``histories`` as a store hands them over: by stream, and which of them
    name some learnings (``Store.claimants``, here by reading every one)."""

    def __init__(self, histories: dict[str, Any]) -> None:
        self.histories = histories
        self.streams_read: list[set[str]] = []

    def items(self, kinds: list[str], *, streams: set[str]) -> Any:
        assert kinds == ["learning"]
        self.streams_read.append(set(streams))
        for learning in streams:
            if learning in self.histories:
                yield from self.histories[learning].chain

    def claimants(self, learnings: set[str]) -> set[str]:
        return {lid for lid, history in self.histories.items() for item in history.chain
                if set(learnings) & {*item.record["replaces"], *item.record.get("supersedes", ())}}


def _outcome(claims: Claims, learning: str) -> tuple[Any, ...]:
    return (claims.replaced_by.get(learning), claims.conflicted.get(learning),
            learning in claims.lost_with_acceptance, claims.contested.get(learning))


@pytest.mark.parametrize("seed", range(16))
def test_claims_settle_among_their_reach_as_among_every_learning(seed: int) -> None:
    """``claim_reach``: the claims a learning makes and those made on it (and, for accepting a
    replacement, those on what it names) settle among the learnings it reaches as among every
    learning, whatever chains of claims, races and learnings kept on this machine there are."""
    from gitstore.rules.view import claim_reach

    rng = random.Random(seed)
    ids = [f"lrn_{n:02d}" for n in range(rng.choice((20, 40, 60)))]
    histories: dict[str, Any] = {}
    for n, lid in enumerate(ids):
        namespace = "local" if rng.random() < 0.15 else "shared"
        others = [o for o in ids if o != lid]
        replaces = rng.sample(others, rng.randint(1, 3)) if rng.random() < 0.6 else []
        chain = [_item("proposed", [], n, f"sha256:{rng.getrandbits(64):016x}")]
        if replaces and rng.random() < 0.8:
            if rng.random() < 0.2:
                chain.append(_item("accepted", [], n, f"sha256:{rng.getrandbits(64):016x}"))
            chain.append(_item("accepted", replaces, n, f"sha256:{rng.getrandbits(64):016x}"))
        elif rng.random() < 0.5:
            chain.append(_item("accepted", [], n, f"sha256:{rng.getrandbits(64):016x}"))
        if chain[-1].record["state"] == "accepted" and rng.random() < 0.2:
            chain.append(_item("retired", [], n, f"sha256:{rng.getrandbits(64):016x}"))
        for item in chain:
            item.record.update(id=lid, replaces=replaces)
            item.stored = SimpleNamespace(order=n, namespace=namespace)
        histories[lid] = SimpleNamespace(id=lid, chain=chain, intact=len(chain))
    seen = {(a, b) for a in range(len(ids)) for b in range(a) if rng.random() < 0.5}
    seen |= {(a, b) for a in range(len(ids)) for b in range(len(ids)) if rng.random() < 0.05}
    view = SimpleNamespace(saw=lambda later, earlier: (later.order, earlier.order) in seen)
    whole = settle(view, histories)  # type: ignore[arg-type]
    assert whole.replaced_by and whole.conflicted  # there was something to settle
    store = _Store(histories)
    for lid in ids:
        named = histories[lid].chain[-1].record["replaces"]
        for asked, judged in (([lid], [lid]), ([lid, *named], [lid, *named])):
            reach = claim_reach(store, asked)  # type: ignore[arg-type]
            some = settle(view, {k: h for k, h in histories.items() if k in reach})  # type: ignore[arg-type]
            for learning in judged:
                assert _outcome(some, learning) == _outcome(whole, learning), (seed, lid, learning)
