"""sync: what ``gitstore sync`` costs against plain git doing the same transfer, in the same run.

A peer stores ``--records`` events with their payloads (default 100,000, in appends of 1,000)
and pushes them to a bare remote. Each round starts from a fresh copy of one clone of that
remote, set up with ``gitstore init`` and holding none of the memory yet. Timed:

- **sync**: ``gitstore sync`` in this process (fetch, verify every arrived commit and payload,
  admit, compare the learnings' verdicts before and after, push nothing);
- **baseline**: plain ``git fetch`` of the same refs (the refspecs ``gitstore init`` configures)
  plus ``gitstore verify`` in this process (every record and payload checked, then the rules);
- **no-op sync** against **no-op fetch**: the same again once both clones are up to date.

Goals: sync <= 1.5x the fetch plus verify; a no-op sync <= 2x a no-op fetch. Wall-clock time
(the fetch is a child process), medians of ``--rounds`` rotated rounds; processor time (this
process and its children) is printed beside. Nothing is asserted; exit code 0. ``--quick``:
small sizes.
"""

from __future__ import annotations

import argparse
import gc
import resource
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.bench_trust import git
from gitstore.conformance import _records as R
from gitstore.providers.git import GitProvider
from gitstore.store import Store

NAME = "sync"
PUSH = ("refs/memory/v1/records/shared/*:refs/memory/v1/records/shared/*",
        "+refs/memory/v1/payloads/shared/*:refs/memory/v1/payloads/shared/*")
PER_APPEND = 1000


def timed(step: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, processor seconds of this process and its children) of one step."""
    gc.collect()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu, wall = time.process_time(), time.perf_counter()
    step()
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
    return wall, time.process_time() - cpu + child


def remote(tmp: Path, records: int) -> Path:
    """A bare remote holding one peer's ``records`` events with payloads."""
    bare, peer = tmp / "remote.git", tmp / "peer"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(bare))
    git(bare, "remote", "add", "origin", f"https://{R.SCOPE}.git")  # every clone's scope: the records'
    git(tmp, "init", "-q", "-b", "main", str(peer))
    git(peer, "commit", "-q", "--allow-empty", "-m", "root")
    git(peer, "push", "-q", str(bare), "main")
    store = Store(GitProvider(peer, "wpeer"), R.SCOPE)
    for start in range(0, records, PER_APPEND):
        count = min(PER_APPEND, records - start)
        store.append([R.event(f"e{n}", episode=f"ep{n // 100}", seq=n % 100) for n in range(start, start + count)])
    git(peer, "push", "-q", str(bare), *PUSH)
    return bare


def template(tmp: Path, bare: Path) -> Path:
    """A clone of the remote set up for gitstore, none of its memory fetched."""
    from gitstore.ops.setup import init

    root = tmp / "template"
    git(tmp, "clone", "-q", str(bare), str(root))
    init(root)
    return root


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m bench {NAME}", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(list(argv))
    if args.quick:
        args.records, args.rounds = 2000, 1
    from gitstore.context import Context
    from gitstore.queries.verify import verify
    from gitstore.sync.remote import sync

    with tempfile.TemporaryDirectory(prefix="gitstore-bench-sync-") as folder:
        tmp = Path(folder)
        bare = remote(tmp, args.records)
        base = template(tmp, bare)
        times: dict[str, list[tuple[float, float]]] = {"sync": [], "baseline": [], "noop-sync": [], "noop-fetch": []}
        for turn in range(args.rounds):
            ours, theirs = tmp / f"sync-{turn}", tmp / f"plain-{turn}"
            shutil.copytree(base, ours, symlinks=True)
            shutil.copytree(base, theirs, symlinks=True)

            def synced() -> None:
                report = sync(str(ours))
                arrived = sum(m.count for m in report.came_in if m.kind == "records")
                if report.status != "ok" or arrived != args.records:
                    raise AssertionError(f"sync: {report.line}")

            def fetched_and_verified() -> None:
                git(theirs, "fetch", "-q", "origin")
                report = verify(Context.open(theirs).store)
                if not report.ok or report.records != args.records:
                    raise AssertionError(f"verify: {report.records} records, {report.problems[:3]}")

            def noop_sync() -> None:
                if sync(str(ours)).status != "no-update":
                    raise AssertionError("a second sync found something to do")

            steps = [("sync", synced), ("baseline", fetched_and_verified)]
            for name, step in steps if turn % 2 == 0 else steps[::-1]:
                times[name].append(timed(step))
            noops = [("noop-sync", noop_sync), ("noop-fetch", lambda: git(theirs, "fetch", "-q", "origin"))]
            for _ in range(3):
                for name, step in noops if turn % 2 == 0 else noops[::-1]:
                    times[name].append(timed(step))
            shutil.rmtree(ours)
            shutil.rmtree(theirs)
    wall = {k: statistics.median(t for t, _ in v) for k, v in times.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in times.items()}
    first, noop = wall["sync"] / wall["baseline"], wall["noop-sync"] / wall["noop-fetch"]
    print(f"{NAME}: sync of {args.records} new records {wall['sync']:.2f}s, git fetch + gitstore verify "
          f"{wall['baseline']:.2f}s, ratio {first:.2f}x (cpu {cpu['sync'] / cpu['baseline']:.2f}x; goal <= 1.5x): "
          f"{verdict(first <= 1.5)}")
    print(f"{NAME}: no-op sync {wall['noop-sync'] * 1000:.0f} ms, no-op git fetch {wall['noop-fetch'] * 1000:.0f} ms, "
          f"ratio {noop:.2f}x (cpu {cpu['noop-sync'] / max(cpu['noop-fetch'], 1e-9):.2f}x; goal <= 2x): "
          f"{verdict(noop <= 2)}")
    return 0


def verdict(ok: bool) -> str:
    return "goal met" if ok else "GOAL NOT MET"


if __name__ == "__main__":
    raise SystemExit(main())
