"""gc: ``gitstore gc`` against what it used to run, ``git reflog expire --all`` and ``git gc
--prune=now``, on copies of one repository, in the same run.

The repository: a user's history (``--commits`` commits of a few files, default 2,000; two
stashes, a reset-away commit, a dangling blob), then a memory store of ``--events`` comment
events with payloads (default 20,000, in appends of 500), packed once by the user's own
``git gc``, then ``--removed`` payloads removed (default 50, each with its audit entry). Each
round copies it twice and times, in rotating order:

- ours: ``GitProvider.gc()`` (what ``gitstore gc`` runs), from a fresh handle;
- before: ``git reflog expire --expire=now --expire-unreachable=now --all`` then ``git gc
  --prune=now --quiet``, the previous ``gitstore gc``;
- again: ``GitProvider.gc()`` once more on ours' copy (nothing left to erase).

Reported: medians, the ratio ours/before, and what each left of the user's stashes (the
previous gc kept none of the two in ``git stash list``). Also one append of a grant through
``Store.append`` (which first checks the policy records: all of them on a store never checked,
only what arrived since the last clean check otherwise, nothing more on a handle that checked)
against ``GitProvider.append`` of a prepared entry, which checks nothing. Nothing is asserted
about time; exit code 0. ``--quick`` is a smoke test with small sizes.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gitstore.conformance import _records as R
from gitstore.conformance import batch
from gitstore.providers.git import GitProvider
from gitstore.store import Store

NAME = "gc"
WRITER = "wbench"
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost", "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd: Path, *args: str, data: bytes | None = None) -> str:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | GIT_ENV
    done = subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout.decode().strip()


def build(path: Path, commits: int, events: int, removed: int) -> Path:
    """The repository described in the module docstring."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    stream = []
    for n in range(commits):
        body = f"line {n}\n".encode() * (1 + n % 7)
        stream.append(b"commit refs/heads/main\ncommitter bench <bench@localhost> %d +0000\ndata 7\ncommit\n"
                      b"M 100644 inline src/file%d.txt\ndata %d\n%s\n" % (1_700_000_000 + n, n % 50, len(body), body))
    git(path, "fast-import", "--quiet", data=b"".join(stream))
    git(path, "reset", "-q", "--hard", "main")
    for n in (1, 2):
        (path / "src" / "file1.txt").write_text(f"stash {n}\n")
        git(path, "stash", "-q")
    (path / "gone.txt").write_text("reset away\n")
    git(path, "add", "gone.txt")
    git(path, "commit", "-q", "-m", "reset away")
    git(path, "reset", "-q", "--hard", "HEAD~1")
    git(path, "hash-object", "-w", "--stdin", data=b"a dangling blob\n")
    provider = GitProvider(path, WRITER)
    records = [R.event(f"gc-{i}", episode=f"gc-{i // 100}", seq=i % 100, text=f"comment {i} " * 20)
               for i in range(events)]
    for start in range(0, events, 500):
        provider.append(batch(*records[start:start + 500]))
    git(path, "gc", "-q")
    note = b'{"at":"2026-08-01T00:00:00.000000Z","by":"github:1","reason":"asked","sourceId":null}'
    for record in records[:removed]:
        provider.append(batch(R.audit(record["id"], [], action="redact"), removals=[(record["payloadDigest"], note)]))
    return path


def timed(action: Callable[[], Any]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def before(path: Path) -> None:
    git(path, "reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
    git(path, "gc", "--prune=now", "--quiet")


def stashes(path: Path) -> int:
    return len(git(path, "stash", "list").splitlines())


def measure(work: Path, original: Path, repeat: int) -> dict[str, list[float] | int]:
    times: dict[str, list[float]] = {"ours": [], "before": [], "again": []}
    kept = {"ours": 0, "before": 0}
    for turn in range(repeat):
        order = ["ours", "before"] if turn % 2 == 0 else ["before", "ours"]
        for name in order:
            copy = work / f"{name}-{turn}"
            shutil.copytree(original, copy, symlinks=True)
            if name == "ours":
                times["ours"].append(timed(lambda: GitProvider(copy, WRITER).gc()))
                times["again"].append(timed(lambda: GitProvider(copy, WRITER).gc()))
            else:
                times["before"].append(timed(lambda: before(copy)))
            kept[name] = stashes(copy)
            shutil.rmtree(copy)
    return {**times, "kept_ours": kept["ours"], "kept_before": kept["before"]}


def appends(original: Path, work: Path, count: int) -> dict[str, float]:
    """Median seconds of one grant appended through ``Store.append``: on a fresh store handle
    with nothing checked yet (every policy record is read), on a fresh handle after a clean
    check (only what arrived since), on a handle that checked already; and through
    ``GitProvider.append`` with the entry prepared, which checks nothing."""
    copy = work / "appends"
    shutil.copytree(original, copy, symlinks=True)
    cold, warm, later, raw = [], [], [], []
    for n in range(count):
        for mark in (copy / ".git" / "gitstore").glob("checked-*"):
            mark.unlink()
        store = Store(GitProvider(copy, WRITER), R.SCOPE)
        cold.append(timed(lambda: store.append([R.grant(f"cold-{n}")])))
        later.append(timed(lambda: store.append([R.grant(f"later-{n}")])))
        again = Store(GitProvider(copy, WRITER), R.SCOPE)
        warm.append(timed(lambda: again.append([R.grant(f"warm-{n}")])))
        prepared = batch(R.grant(f"raw-{n}"))
        provider = GitProvider(copy, WRITER)
        raw.append(timed(lambda: provider.append(prepared)))
    shutil.rmtree(copy)
    return {name: statistics.median(values) for name, values in
            (("cold", cold), ("warm", warm), ("later", later), ("raw", raw))}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench gc", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument("--commits", type=int, help="commits of the user's history (default 2000)")
    parser.add_argument("--events", type=int, help="events in the memory store (default 20000)")
    parser.add_argument("--removed", type=int, help="payloads removed (default 50; quick 10)")
    parser.add_argument("--repeat", type=int, help="rounds (default 5)")
    o = parser.parse_args(list(argv or []))
    commits = o.commits or (30 if o.quick else 2000)
    events = o.events or (300 if o.quick else 20_000)
    removed = o.removed if o.removed is not None else (10 if o.quick else 50)  # one append each
    repeat = o.repeat or (1 if o.quick else 5)
    work = Path(tempfile.mkdtemp(prefix="gitstore-bench-gc-"))
    try:
        started = time.perf_counter()
        original = build(work / "original", commits, events, min(removed, events))
        print(f"input: {commits} commits, 2 stashes, {events} events, {min(removed, events)} payloads removed;"
              f" built in {time.perf_counter() - started:.1f}s", flush=True)
        r = measure(work, original, repeat)
        a = appends(original, work, 1 if o.quick else 9)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ours, old, again = (statistics.median(r[k]) for k in ("ours", "before", "again"))  # type: ignore[arg-type]
    print(f"gitstore gc: median {ours:.2f}s; again (nothing to erase) {again:.2f}s;"
          f" stashes kept {r['kept_ours']} of 2")
    print(f"before (reflog expire --all, gc --prune=now): median {old:.2f}s; stashes kept {r['kept_before']} of 2")
    print(f"gc: ours {ours:.2f}s, before {old:.2f}s, ratio {ours / old:.2f}x (lower is faster)")
    print(f"append: fresh handle, nothing checked yet {a['cold'] * 1e3:.1f}ms; fresh handle after a clean check"
          f" {a['warm'] * 1e3:.1f}ms; same handle {a['later'] * 1e3:.1f}ms; provider alone {a['raw'] * 1e3:.1f}ms:"
          f" cold/provider {a['cold'] / a['raw']:.2f}x, warm/provider {a['warm'] / a['raw']:.2f}x,"
          f" later/provider {a['later'] / a['raw']:.2f}x")
    return 0
