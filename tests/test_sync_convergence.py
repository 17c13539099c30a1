"""Convergence: three clones of one bare remote, under a policy letting each of their three
people decide, each writing and syncing in a random order (comments, proposals, acceptances,
rejections, supersessions, retirements, grants and withdrawals, redactions). After a final sync
of all three, every clone computes the same verdict for every learning and the same
``gitstore learnings --json``; text redacted on one clone is gone from every clone's objects
after their next sync and gc.

A default run plays ``SEEDS_DEFAULT`` seed of ``OPERATIONS_DEFAULT`` operations, every kind of
operation among them; ``GITSTORE_CONVERGENCE_SEEDS=20`` plays the acceptance run (3 clones x 200
operations x 20 seeds)."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from bench._process import copy_as_moved
from gitstore.context import Context
from gitstore.errors import GitstoreError
from gitstore.ops import consent, gc, redact
from gitstore.ops import learning as ops
from gitstore.queries.learnings import learnings
from gitstore.rules.consent import withdrawn
from gitstore.sync.remote import sync

from .conftest import all_objects, git
from .team import EVERYTHING, commit_all, first_clone, keypair, shared_remote, sign_as, team_clone, write_policy
from .world import Thread, ref

PEOPLE = ("github:9", "github:10", "github:11")
OPERATIONS_DEFAULT = 140
SEEDS_DEFAULT = 1
SEEDS = int(os.environ.get("GITSTORE_CONVERGENCE_SEEDS", SEEDS_DEFAULT))
OPERATIONS = 200 if "GITSTORE_CONVERGENCE_SEEDS" in os.environ else OPERATIONS_DEFAULT


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """Keys for the three people, and a policy on the default branch; made once (each seed
    starts from a copy)."""
    tmp = tmp_path_factory.mktemp("team")
    keys = {who: keypair(tmp / "keys", who) for who in PEOPLE}
    bare = shared_remote(tmp)
    root = first_clone(tmp, bare, "c0")
    write_policy(root, {who: EVERYTHING for who in PEOPLE}, {who: key for who, (_, key) in keys.items()})
    commit_all(root, "Who may decide")
    git(root, "push", "-q", "origin", "main")
    sign_as(root, keys[PEOPLE[0]][0])
    roots = [root] + [team_clone(tmp, bare, f"c{n}", keys[PEOPLE[n]][0]).workspace.root for n in (1, 2)]
    return tmp, roots


class Clone:
    """One clone and the person working in it."""

    def __init__(self, root: Path, person: str, n: int) -> None:
        self.root, self.person, self.n = root, person, n
        self.ctx = Context.open(root)
        self.comments = 0

    def reopen(self) -> None:
        self.ctx = Context.open(self.root)

    def rows(self) -> list[Any]:
        return learnings(self.ctx)


def _copy(team: tuple[Path, list[Path]], tmp: Path) -> list[Path]:
    import shutil

    source, roots = team
    shutil.copytree(source / "remote.git", tmp / "remote.git")
    copies = []
    for root in roots:
        copy_as_moved(root, tmp / root.name)
        git(tmp / root.name, "remote", "set-url", "origin", str(tmp / "remote.git"))
        copies.append(tmp / root.name)
    return copies


# -- the operations: each may be refused (what the clone knows makes it invalid); that is fine --

def comment(rng: random.Random, c: Clone, world: dict[str, Any]) -> bool:
    c.comments += 1
    key = f"{c.n}-{c.comments}"
    thread = Thread(c.ctx, 1 + c.n, f"root-{c.n}")
    thread.seq = c.comments
    event = thread.comment(key, f"secret-{world['seed']}-{key} keep retries bounded", "2026-03-01T10:00:00.000000Z")
    thread.pending = [thread.episode, event] if c.comments == 1 else [event]
    thread.save()
    world["comments"].append(event)
    return True


def propose(rng: random.Random, c: Clone, world: dict[str, Any], replaces: tuple[str, ...] = ()) -> bool:
    if not world["comments"]:
        return comment(rng, c, world)
    cited = rng.sample(world["comments"], k=min(2, len(world["comments"])))
    n = len(world["proposed"])
    draft = ops.Draft(title=f"Learning {n}", text=f"Learning {n} says something.", category="convention",
                      evidence=[ref(e) for e in cited], counterevidence=[], replaces=replaces,
                      proposer=("person", c.person))
    world["proposed"].append(ops.propose(c.ctx, draft, c.person)["id"])
    return True


def _pick(rng: random.Random, c: Clone, states: tuple[str, ...]) -> Any:
    rows = [r for r in c.rows() if r.status.state in states and r.history.valid]
    return rng.choice(rows) if rows else None


def decide(rng: random.Random, c: Clone, world: dict[str, Any]) -> bool:
    row = _pick(rng, c, ("proposed",))
    if row is None:
        return propose(rng, c, world)
    review = row.history.current["reviewDigest"]
    if rng.random() < 0.75:
        ops.accept(c.ctx, row.status.id, review, c.person)
    else:
        ops.reject(c.ctx, row.status.id, review, c.person, "not now")
    return True


def supersede(rng: random.Random, c: Clone, world: dict[str, Any]) -> bool:
    row = _pick(rng, c, ("accepted",))
    return row is not None and propose(rng, c, world, replaces=(row.status.id,))


def retire(rng: random.Random, c: Clone, world: dict[str, Any]) -> bool:
    row = _pick(rng, c, ("accepted",))
    if row is None:
        return False
    ops.retire(c.ctx, row.status.id, c.person, "outdated")
    return True


def consent_step(rng: random.Random, c: Clone, world: dict[str, Any]) -> bool:
    view = c.ctx.view(payloads=False, kinds=["grant", "withdrawal"])
    gone = withdrawn(view)
    grants = sorted(d for d in view.grants if "review" not in gone.get(d, set()))
    if grants and rng.random() < 0.4:
        consent.withdraw(c.ctx, c.person, rng.choice(grants), ["review"], "narrowing")
    else:
        consent.grant(c.ctx, c.person, ["review", "instruction"], ["review-thread"], "2026-01-01", None, None)
    return True


def redaction(rng: random.Random, c: Clone, world: dict[str, Any]) -> bool:
    if world["comments"]:
        event = rng.choice(world["comments"])
        redact.redact(c.ctx, event["payload"]["sourceId"], c.person, "personal data")
        world["redacted"].add(event["payload"]["text"])
    return bool(world["comments"])


def sync_step(rng: random.Random, c: Clone, world: dict[str, Any]) -> bool:
    report = sync(str(c.root))
    assert report.status in ("ok", "no-update"), report.render()
    c.reopen()
    return True


STEPS = [(comment, 3), (propose, 4), (decide, 5), (supersede, 1), (retire, 1), (consent_step, 1),
         (redaction, 1), (sync_step, 4)]


def _play(seed: int, clones: list[Clone]) -> dict[str, Any]:
    rng = random.Random(seed)
    world: dict[str, Any] = {"seed": seed, "comments": [], "proposed": [], "redacted": set()}
    choices, weights = zip(*STEPS)
    for c in clones:  # every person grants first, so learnings can be in force
        consent.grant(c.ctx, c.person, ["review", "instruction"], ["review-thread"], "2026-01-01", None, None)
    done: dict[str, int] = {}
    for _ in range(OPERATIONS):
        step = rng.choices(choices, weights)[0]
        c = rng.choice(clones)
        try:
            acted = step(rng, c, world)
        except GitstoreError:
            continue  # refused for what this clone knows (a decision another clone made first...)
        if acted:
            done[step.__name__] = done.get(step.__name__, 0) + 1
    world["done"] = done
    return world


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(SEEDS))
def test_three_clones_converge(team: tuple[Path, list[Path]], tmp_path: Path, seed: int) -> None:
    roots = _copy(team, tmp_path)
    clones = [Clone(root, PEOPLE[n], n) for n, root in enumerate(roots)]
    world = _play(seed, clones)
    assert set(world["done"]) == {step.__name__ for step, _ in STEPS}, world["done"]  # every kind ran
    for _ in range(2):  # the first round brings everything to the remote, the second to everyone
        for c in clones:
            sync_step(random.Random(), c, world)
    answers = [[r.to_json() for r in learnings(Context.open(c.root))] for c in clones]
    assert answers[0] == answers[1] == answers[2]
    assert len(answers[0]) >= 1
    # redaction travels: every clone's sweep drops what was removed, the next sync carries it
    for c in clones:
        gc.gc(Context.open(c.root).store)
    for c in clones:
        sync_step(random.Random(), c, world)
    for c in clones:
        gc.gc(Context.open(c.root).store)
        held = all_objects(c.root)
        leaked = [text for text in world["redacted"] if text.encode() in held]
        assert not leaked, (c.root.name, leaked)
    assert [[r.to_json() for r in learnings(Context.open(c.root))] for c in clones] == [answers[0]] * 3
