"""settle: what many steps naming one learning version cost a read of the learnings.

Anyone who can push can store revisions that all name the same version (a revision needs no
authority). A git store holds a proposal citing one event and ``--siblings`` revisions of it
(default 1, 10, 20, 40), stored in one append, or in one append each (every later one made
having seen the earlier ones). Timed, medians of ``--rounds`` (default 5), from a fresh
handle: reading every learning's history (``View.load`` then ``histories``, what
``gitstore learnings`` and every rules read do first), against the same read with one sibling.

Settling judges each step once, from the steps it had seen, so the read grows with the records
read and the pairs of appends among the steps (what each had seen), never exponentially: 10
sibling revisions in one append used to take half a minute, 12 never finished. Reported, no
goal. Exit code 0 when every history settles as the rules say (one append: the smallest
digest counts; one append each: the first), 1 otherwise. ``--quick``: 1 round.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gitstore.conformance import _records as R
from gitstore.conformance import batch
from gitstore.providers.git import GitProvider
from gitstore.records.contracts import seal
from gitstore.rules.lifecycle import histories
from gitstore.rules.view import View
from gitstore.store import Store

NAME = "settle"
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost", "GIT_CONFIG_NOSYSTEM": "1"}


def _revision(proposal: dict[str, Any], n: int) -> dict[str, Any]:
    """A revision of ``proposal`` naming it as the version it follows (only the rationale differs)."""
    record = {k: v for k, v in proposal.items() if k != "digest"}
    record.update(version=2, previous=proposal["digest"], rationale=f"Sibling revision {n}.")
    return seal(record)


def build(repo: Path, siblings: int, apart: bool) -> tuple[str, str]:
    """A store in ``repo`` with a proposal and ``siblings`` revisions of it: (learning id,
    digest of the revision that must count)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | GIT_ENV
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    provider = GitProvider(repo, "wmine")
    cited = R.event("cited")
    provider.append(batch(R.episode("main"), cited))
    proposal = R.proposal("settle", cited)
    provider.append(batch(proposal))
    revisions = [_revision(proposal, n) for n in range(siblings)]
    if apart:
        for revision in revisions:
            provider.append(batch(revision))
    else:
        provider.append(batch(*revisions))
    counts = revisions[0]["digest"] if apart else min(r["digest"] for r in revisions)
    return proposal["id"], counts


def read(repo: Path, learning: str) -> str:
    """Every learning's history from a fresh handle; the digest of ``learning``'s current version."""
    view = View.load(Store(GitProvider(repo, "wmine"), R.SCOPE))
    return histories(view.learnings, view.saw)[learning].current["digest"]


def timed(repo: Path, learning: str, rounds: int) -> tuple[float, str]:
    """The median seconds of ``read`` and what it found."""
    spent, found = [], ""
    for _ in range(rounds):
        gc.collect()
        start = time.perf_counter()
        found = read(repo, learning)
        spent.append(time.perf_counter() - start)
    return statistics.median(spent), found


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m bench {NAME}", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--siblings", type=int, nargs="+", default=[10, 20, 40])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(list(argv))
    rounds = 1 if args.quick else args.rounds
    wrong = 0
    with tempfile.TemporaryDirectory(prefix="gitstore-bench-settle-") as folder:
        for apart, how in ((False, "in one append"), (True, "one append each")):
            costs: dict[int, float] = {}
            missed = []
            for siblings in [1, *args.siblings]:
                repo = Path(folder) / f"{'apart' if apart else 'together'}-{siblings}"
                learning, counts = build(repo, siblings, apart)
                costs[siblings], found = timed(repo, learning, rounds)
                if found != counts:
                    missed.append(str(siblings))
            ratios = ", ".join(f"{n} {costs[n] / costs[1]:.2f}x" for n in args.siblings)
            print(f"{NAME}: learning histories with sibling revisions {how}: 1 sibling {costs[1] * 1000:.0f} ms;"
                  f" {ratios} (reported, no goal)" + (f"; settled WRONG with {', '.join(missed)}" if missed else ""))
            wrong += len(missed)
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main(os.sys.argv[1:]))
