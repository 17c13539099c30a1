"""decisions: what one person's decision on a learning costs as others push proposals.

Two stores are built in the same run, the same way: a grant, one review thread, and ``--small``
(200) or ``--large`` (20,000) proposals pushed in appends of 1,000 with their audit entries,
as a teammate's or a consolidator's bulk push leaves them (each cites the stored thread). In
each, after one untimed decision (the first write after a push checks what arrived, once),
``--repeat`` rounds (default 5) of: accept a pushed proposal, retire it, reject another one,
and propose a new learning by hand citing the thread, each through ``gitstore.ops.learning``
on a freshly opened context (what a command does), its CPU time (``time.process_time``)
taken alone. The median of each is compared between the two stores.

Goal: a decision at 20,000 learnings costs at most 2x the same decision at 200: a decision
reads the learning it decides (its versions, and the audit entries of the appends holding its
decisions), not the others (``okf/wiki/rules.md``, what a decision reads), and a read of a few
streams skips the big appends that hold none of them (``gitstore/providers/_holds.py``).

Measured (2026-12-07, 2 shared cores, one run each, medians of 5): before, accept 2,728 ms at
20,000 against 55.7 ms at 200 (48.9x), retire 2,227 ms (42.7x), reject 2,261 ms (42.8x),
propose 2,316 ms (43.7x); with the decision reading only its learning, accept 109 ms (5.8x),
retire 145 ms (6.3x), reject 109 ms (5.7x), propose 80 ms (3.9x), the rest being every read of
one stream loading each bulk append's commit (a list of its 2,000 record lines); with the
filters, accept 21.5 ms against 12.4 ms (1.72x), retire 25.6 ms (1.60x), reject 22.5 ms
(1.84x), propose 19.4 ms (1.39x). What is left grows with the number of appends (20 here
against 1), as every command's walk of the writers' histories does, not with the records.

Three lines time what the commands run around the decision: ``accept+check`` (``gitstore
accept``: the accept, then whether the learning is in force), ``propose+check`` (``gitstore
propose``: the proposal, then what would keep it out of force once accepted) and ``accept
replacing`` (``gitstore accept`` of a proposal replacing a pushed one, then what it took).
Measured the same way: before, each read every learning to settle the claims on it, 2,409 ms
against 56.1 ms (43.0x), 2,284 ms (42.1x) and 6,964 ms (55.0x); reading only the learnings
whose claims settle it (``claim_reach``), over four runs, 53.0 to 64.1 ms against 30.4 to
34.6 ms (1.5x to 2.1x), 35.1 to 39.0 ms (1.2x to 1.5x) and 77.4 to 103.9 ms (1.25x to 1.65x).
The command itself (``gitstore accept``, wall clock with the interpreter's start): 3.79 s
against 0.77 s before, 0.54 s against 0.55 s since.

Nothing is asserted; exit code 0. ``--quick``: 50 against 500, 2 rounds.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gitstore.context import Context
from gitstore.ops import learning as ops
from gitstore.ops import consent
from gitstore.ops.setup import init
from gitstore.queries.learnings import barred_beyond_review
from gitstore.records.contracts import content_digest, seal
from gitstore.records.ids import episode_id, event_id

NAME = "decisions"
PER_APPEND = 1000
GOAL = 2.0
BY = "github:9"
ORIGIN = "https://github.com/acme/widgets.git"
ACTIONS = ("accept", "retire", "reject", "propose", "accept+check", "propose+check", "accept replacing")


def _ready(path: Path) -> Context:
    path.mkdir(parents=True)
    env = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", ORIGIN],
                 ["commit", "-q", "--allow-empty", "-m", "root"]):
        subprocess.run(["git", *args], cwd=path, check=True, env={**os.environ, **env})
    init(path)
    return Context.open(str(path))


def build(path: Path, learnings: int, seed: int) -> tuple[list[str], dict[str, Any]]:
    """The store at ``path``: the pushed proposals' ids, and a reference to the stored comment."""
    ctx = _ready(path)
    consent.grant(ctx, BY, ["review", "instruction"], ["review-thread"], "2026-01-01T00:00:00.000000Z", None, None)
    source = {"kind": "review-thread", "origin": "github", "ref": "github:comment:100"}
    episode = seal({
        "schema": "gitstore.episode/v1", "scope": ctx.scope, "id": episode_id(ctx.scope, source), "source": source,
        "pin": {"repository": ctx.scope, "pullRequest": 7, "branch": "feature/7", "commit": "a" * 40},
        "title": None, "startedAt": "2026-03-01T10:00:00.000000Z", "capture": "complete", "mode": "review",
        "grants": [],
    })
    comment = seal({
        "schema": "gitstore.event/v1", "scope": ctx.scope, "id": event_id(episode["id"], "comment:100"),
        "episode": episode["id"], "type": "comment", "seq": 0, "at": "2026-03-01T10:00:00.000000Z",
        "author": "github:1001", "parentEventId": None,
        "payload": {"text": "Use jitter on retries.", "sourceId": "github:comment:100"},
    })
    ctx.store.append([episode, comment])
    stated = {"episode": episode["id"], "events": [comment["id"]]}
    cited = ops._refs(ctx.view(), [stated])
    rng = random.Random(seed)
    ids, pending = [], []
    for n in range(learnings):
        record: dict[str, Any] = {
            "schema": "gitstore.learning/v1", "scope": ctx.scope, "version": 1, "previous": None,
            "state": "proposed", "category": "convention", "memory": "semantic", "audience": "project",
            "audienceRationale": "From this repository's reviews.",
            "content": {"title": f"Pushed theme {n}", "text": f"Pushed statement {n}, {rng.getrandbits(64):x}."},
            "targets": [], "replaces": [], "evidence": cited, "counterevidence": [],
            "validFrom": None, "validUntil": None, "support": 1, "dissent": 0, "confidence": "low",
            "rationale": "Pushed.", "proposer": {"kind": "consolidator", "id": "recurrence"},
            "at": "2026-03-02T10:00:00.000000Z",
        }
        record["id"] = "lrn_" + content_digest(record)[7:39]
        seal(record)
        ids.append(record["id"])
        pending += [record, ctx.audit("propose", BY, [record["id"]], [record])]
        if len(pending) >= 2 * PER_APPEND:
            ctx.store.append(pending)
            pending = []
    if pending:
        ctx.store.append(pending)
    return ids, stated


def _cpu(action: Callable[[], Any]) -> float:
    started = time.process_time()
    action()
    return time.process_time() - started


def decide(root: Path, ids: list[str], stated: dict[str, Any], repeat: int) -> dict[str, float]:
    """Median CPU seconds of each decision over ``repeat`` rounds (one untimed round first)."""
    times: dict[str, list[float]] = {action: [] for action in ACTIONS}

    def current(learning: str) -> dict[str, Any]:
        return Context.open(str(root)).view(payloads=False, kinds=("learning",)).learnings[learning][-1].record

    def accept_checked(learning: str, review_digest: str) -> None:  # what `gitstore accept` runs
        ctx = Context.open(str(root))
        record = ops.accept_and_check(ctx, learning, review_digest, BY)[0]
        if record.get("supersedes"):
            ops.settled_replacement(ctx, learning)

    def propose_checked(draft: ops.Draft) -> None:  # what `gitstore propose` runs
        ctx = Context.open(str(root))
        barred_beyond_review(ctx, ops.propose(ctx, draft, BY)["id"])

    for n in range(repeat + 1):
        accepted, rejected, checked, replaced = ids[4 * n:4 * n + 4]
        proposal, other, third = current(accepted), current(rejected), current(checked)
        draft = ops.Draft(title=f"Retries use jitter, round {n}", text=f"Every retry loop waits with jitter ({n}).",
                          category="convention", evidence=[stated], counterevidence=[], proposer=("person", BY))
        again = ops.Draft(title=f"Timeouts are per call, round {n}", text=f"Every call sets a timeout ({n}).",
                          category="convention", evidence=[stated], counterevidence=[], proposer=("person", BY))
        replacement = ops.propose(Context.open(str(root)), ops.Draft(
            title=f"Retries back off, round {n}", text=f"Every retry waits longer than the last ({n}).",
            category="convention", evidence=[stated], counterevidence=[], replaces=(replaced,),
            proposer=("person", BY)), BY)
        spent = {
            "accept": _cpu(lambda: ops.accept(Context.open(str(root)), accepted, proposal["reviewDigest"], BY)),
            "retire": _cpu(lambda: ops.retire(Context.open(str(root)), accepted, BY, "The code it names is gone.")),
            "reject": _cpu(lambda: ops.reject(Context.open(str(root)), rejected, other["reviewDigest"], BY, None)),
            "propose": _cpu(lambda: ops.propose(Context.open(str(root)), draft, BY)),
            "accept+check": _cpu(lambda: accept_checked(checked, third["reviewDigest"])),
            "propose+check": _cpu(lambda: propose_checked(again)),
            "accept replacing": _cpu(lambda: accept_checked(replacement["id"], replacement["reviewDigest"])),
        }
        if n:  # the first round's write checks what the push brought: once, whatever the decision
            for action, seconds in spent.items():
                times[action].append(seconds)
    return {action: statistics.median(found) for action, found in times.items()}


def verdict(ok: bool) -> str:
    return "goal met" if ok else "GOAL NOT MET"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m bench {NAME}", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 against 500 learnings, 2 rounds")
    parser.add_argument("--small", type=int, default=200)
    parser.add_argument("--large", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", help="build the stores under this folder and keep them")
    args = parser.parse_args(list(argv or []))
    if args.quick:
        args.small, args.large, args.repeat = 50, 500, 2
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="gitstore-bench-decisions-"))
    try:
        found = {}
        for size in (args.small, args.large):
            root = work / f"store-{size}"
            ids, stated = build(root, size, args.seed)
            found[size] = decide(root, ids, stated, args.repeat)
        for action in ACTIONS:
            small, large = found[args.small][action], found[args.large][action]
            ratio = large / small if small else float("inf")
            print(f"{NAME}: {action} at {args.large} learnings cpu {large * 1000:.1f} ms, at {args.small} "
                  f"{small * 1000:.1f} ms, ratio {ratio:.2f}x (goal <= {GOAL:g}x): {verdict(ratio <= GOAL)}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
