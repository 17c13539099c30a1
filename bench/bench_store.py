"""The store on git, against plain git doing the same work, measured in the same run.

The issue asks for four things, each a ratio against a baseline measured alongside it:

1. bulk: ``gitstore records add FILE`` of 100,000 sealed events with payloads (``--records``)
   as JSON Lines, timed from process start to exit on a fresh repository with the git
   provider, against ``git fast-import`` writing the same canonical blobs at the same tree
   paths: the record blobs at ``event/<aa>/<bb>/<hex>.json`` in one commit and the payload
   blobs at ``<aa>/<bb>/<hex>.json`` in a second, with compression and delta search off
   (``core.compression=0``, ``--depth=0``: the same uncompressed work as ours, the fastest
   fast-import a user could run). Goal: ours >= 1.0x fast-import's records per
   second. Also against fast-import writing the record blobs alone (a baseline with less to
   do), and ``Store.append`` of the same events in this process, with their payloads and
   without, reported. Each fast-import stream is built before its clock starts and fed
   through a pipe from this process; its time runs from starting the process until it exits.
2. single: one record (an audit entry: ``records add`` adds no grant) appended through ``Store.append`` (and, reported too, through
   ``GitProvider.append`` with the entry prepared beforehand) on the 100,000-record store built
   by (1) and on a fresh store of 1,000 events, alternating. Goal: median at 100k <= 1.5x the
   median at 1k. Against a naive git append in the same 100k repository, four git processes
   per record: ``git hash-object -w --stdin``, ``git mktree`` of ONE flat entry (``<hex>.json``:
   not the four nested levels, nor the records already stored: strictly less work than ours,
   so the comparison favours the baseline), ``git commit-tree -p <tip>`` and
   ``git update-ref <ref> <new> <old>``. Goal: ours <= 0.5x the naive median. That compares a
   process-free append with four process starts; users and hooks append through the CLI, so
   ``gitstore records add FILE`` of one such record (process start to exit, up to 30 of them; 2 with ``--quick``) is
   compared with the same naive loop too. Goal: <= 1.0x. Store.append on a third store of 1,000
   events, in a repository with 25,000 refs of its own (tags and remote branches, packed as
   ``git gc`` leaves them), against the small store. Goal: <= 1.2x (the store looks only at its
   own refs). Measured (100 of each, 2026-12-02): 8.07 ms against 7.57 ms, 1.07x; before the
   store stopped listing every ref of the repository, 105.10 ms against 13.86 ms, 7.58x.
3. verify: ``GitProvider.verify()`` over the store built by (1) against a bare loop that reads
   every blob verify reads (the records and their payloads) from the object database with
   ``repo.odb.read``, parses each with ``json.loads`` and hashes it with sha256; the list of
   blob ids is made before its clock starts. Goal: verify >= 0.3x the bare loop's records per
   second. Then (not with ``--quick``, and not with ``--no-million``) a store of 1,000,000
   events with payloads, built by bulk appends of 100,000 each, is verified in a child process
   whose peak resident set size is read with ``os.wait4``. Goal: < 500 MB (10^6 bytes).
4. providers: the same 2,000 single appends (``--provider-appends``; grants and events with
   payloads, alternating) on git, sqlite and jsonl, the providers taking turns record by
   record, then a full read (``Store.items(payloads=True)``) of each, repeated. Reported side
   by side: appends/s from the median append, and records read per second.

Timing: the machine is shared and noisy, so runs of a measurement and its baseline alternate
(their order rotating) ``--repeat`` times and the report takes medians. Nothing is asserted
about time: exit code 0 whatever the ratios; the report says whether each goal is met.
``python -m bench store --quick`` is a smoke test with small sizes.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import pygit2

from gitstore.conformance import _records as R
from gitstore.conformance import entries_for
from gitstore.providers import Batch
from gitstore.providers.git import GitProvider, payload_path, payloads_ref, record_path, records_ref
from gitstore.providers.jsonl import JsonlProvider
from gitstore.providers.sqlite import SqliteProvider
from gitstore.store import Store

NAME = "store"
WRITER = "wbench"
GOAL_BULK = 1.0
GOAL_SCALE = 1.5
GOAL_NAIVE = 0.5
GOAL_CLI_NAIVE = 1.0
GOAL_REFS = 1.2
OTHER_REFS = 25_000  # tags and remote branches of a big repository, packed as ``git gc`` packs them
CLI_SINGLES = 30  # single appends through the CLI timed (each a process start)
# the strongest fast-import a user could pick for this work: no zlib compression and no delta
# search, as gitstore's bulk writer (records stored, larger blobs at level 1, no deltas)
FAST_IMPORT = ["git", "-c", "core.compression=0", "-c", "pack.compression=0", "fast-import", "--quiet", "--depth=0"]
FAST = "git fast-import (compression and deltas off: the same uncompressed work)"
GOAL_VERIFY = 0.3
GOAL_RSS_MB = 500.0
ROOT = Path(__file__).resolve().parent.parent
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost",
}
_WORDS = (
    "retry loop backoff jitter review thread comment agent session learning evidence scope "
    "commit branch cache timeout request handler parser schema record digest contract test "
    "fixture config deploy rollback migration index query lock queue worker module function "
    "class method return error exception logging metric alert path file the a of to in and "
    "with for on uses must should never always every before after when because"
).split()


# -- input ------------------------------------------------------------------------------------

def events(count: int, seed: int, tag: str, per_episode: int = 100) -> list[dict[str, Any]]:
    """``count`` sealed comment events with payloads of 4 to 120 words, 100 per episode."""
    rng = random.Random(f"{seed}:{tag}")
    found = []
    for i in range(count):
        text = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(4, 120)))
        found.append(R.event(f"{tag}-{i}", episode=f"{tag}-{i // per_episode}",
                             seq=i % per_episode, text=text.capitalize() + "."))
    return found


def without_payload(record: dict[str, Any]) -> dict[str, Any]:
    """The event as stored once its payload is removed: same digest, same record blob."""
    return {k: v for k, v in record.items() if k != "payload"}


def fast_import_stream(entries: Sequence[Any], payloads: bool = False, onto: bool = False) -> bytes:
    """One commit adding every record blob at its store path, as git fast-import reads it;
    with ``payloads``, a second commit on another branch adding every payload blob at its
    payload path: then it writes exactly the blobs ``records add`` writes. With ``onto`` each
    commit continues its branch (``from <branch>^0``): its tree is the last one's with these
    blobs added, as a growing store's."""
    message = b"bulk fast-import\n"
    head = b"committer bench <bench@localhost> 1700000000 +0000\ndata %d\n%s" % (len(message), message)
    parts = [b"commit refs/heads/bench\n" + head + (b"from refs/heads/bench^0\n" if onto else b"")]
    for e in entries:
        path = record_path(e.kind, e.digest).encode()
        parts.append(b"M 100644 inline %s\ndata %d\n%s\n" % (path, len(e.data), e.data))
    parts.append(b"\n")
    if payloads:
        parts.append(b"commit refs/heads/bench-payloads\n" + head
                     + (b"from refs/heads/bench-payloads^0\n" if onto else b""))
        for e in entries:
            if e.payload is not None and e.payload_digest:
                path = payload_path(e.payload_digest).encode()
                parts.append(b"M 100644 inline %s\ndata %d\n%s\n" % (path, len(e.payload), e.payload))
        parts.append(b"\n")
    return b"".join(parts)


# -- helpers ----------------------------------------------------------------------------------

class Work:
    """A scratch folder for this run's repositories, removed at the end unless kept."""

    def __init__(self, parent: str | None, keep: bool) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="gitstore-bench-store-", dir=parent))
        self.keep = keep
        self._count = 0

    def fresh(self, name: str) -> Path:
        self._count += 1
        return self.path / f"{self._count:03d}-{name}"

    def close(self) -> None:
        if not self.keep:
            shutil.rmtree(self.path, ignore_errors=True)


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_ENV)
    return env


def git(cwd: Path, *args: str, data: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True, env=git_env())
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout.decode().strip()


def new_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    return path


def wait_child(process: subprocess.Popen[bytes]) -> tuple[int, Any]:
    """Wait for one child and return its exit status and its own resource usage."""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def rotated(items: list[Any], turn: int) -> list[Any]:
    turn %= len(items)
    return items[turn:] + items[:turn]


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    """Wall-clock seconds of ``action()`` (after a collection, so none is left over) and its result."""
    gc.collect()
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def objects_bytes(repo: Path) -> int:
    """Bytes in the repository's object database (packs, indexes and loose objects)."""
    return sum(f.stat().st_size for f in (repo / ".git" / "objects").rglob("*") if f.is_file())


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def verdict(met: bool) -> str:
    return "goal met" if met else "GOAL NOT MET"


def short(ratio: float, baseline: str, higher_is_better: bool = True) -> str:
    """What a line adds when gitstore falls short of its baseline (1.0x)."""
    behind = ratio < 1.0 if higher_is_better else ratio > 1.0
    return f"; gitstore is slower than {baseline}" if behind else ""


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


# -- 1. bulk ----------------------------------------------------------------------------------

def bulk(work: Work, records: list[dict[str, Any]], repeat: int) -> dict[str, Any]:
    """Time the library, fast-import and the CLI writing the same records; keep one store."""
    prepared = entries_for(records)
    streams = {"fast-import": fast_import_stream(prepared),
               "fast-import-payloads": fast_import_stream(prepared, payloads=True)}
    del prepared
    jsonl = work.path / "records.jsonl"
    jsonl.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    count = len(records)
    times: dict[str, list[float]] = {"payloads": [], "bare": [], "fast-import": [],
                                     "fast-import-payloads": [], "cli": []}
    cpu: dict[str, list[float]] = {k: [] for k in times}
    sizes: dict[str, int] = {}
    peak: dict[str, list[float]] = {"cli": [], "fast-import": [], "fast-import-payloads": []}
    kept: Path | None = None

    def ours(which: str) -> None:
        nonlocal kept
        # the records as a caller holds them; the copies without payloads only for their run
        batch = records if which == "payloads" else [without_payload(r) for r in records]
        path = new_repo(work.fresh(f"bulk-{which}"))
        store = Store(GitProvider(path, WRITER), R.SCOPE)
        gc.collect()
        started, cpu_started = time.perf_counter(), time.process_time()
        result = store.append(batch)
        times[which].append(time.perf_counter() - started)
        cpu[which].append(time.process_time() - cpu_started)
        del batch
        if len(result.added) != count:
            raise AssertionError(f"bulk append stored {len(result.added)} of {count} records")
        sizes[which] = objects_bytes(path)
        if which == "payloads":
            if kept is not None:
                shutil.rmtree(kept, ignore_errors=True)
            kept = path
        else:
            shutil.rmtree(path, ignore_errors=True)

    def fast_import(which: str) -> None:
        path = new_repo(work.fresh(which))
        gc.collect()
        started = time.perf_counter()
        process = subprocess.Popen([*peak_timer(), *FAST_IMPORT], cwd=path,
                                   env=git_env(), stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdin is not None and process.stderr is not None
        process.stdin.write(streams[which])
        process.stdin.close()
        code, usage = wait_child(process)
        times[which].append(time.perf_counter() - started)
        cpu[which].append(usage.ru_utime + usage.ru_stime)
        peak[which] += peak_mb(process.stderr.read())
        if code != 0:
            raise RuntimeError(f"git fast-import exited with {code}")
        sizes[which] = objects_bytes(path)
        shutil.rmtree(path, ignore_errors=True)

    def command_line() -> None:
        path = new_repo(work.fresh("cli"))
        git(path, "remote", "add", "origin", "https://github.com/acme/widgets.git")
        run_cli(path, "init")
        gc.collect()
        started = time.perf_counter()
        process = subprocess.Popen([*peak_timer(), *gitstore_command(), "records", "add", str(jsonl)],
                                   cwd=path, env=git_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        code, usage = wait_child(process)
        times["cli"].append(time.perf_counter() - started)
        cpu["cli"].append(usage.ru_utime + usage.ru_stime)
        assert process.stderr is not None
        errors = process.stderr.read()
        peak["cli"] += peak_mb(errors)
        if code != 0:
            raise RuntimeError(f"gitstore records add exited with {code}: {errors.decode()[-500:]}")
        shutil.rmtree(path, ignore_errors=True)

    runs: list[Callable[[], None]] = [
        lambda: ours("payloads"), lambda: ours("bare"), lambda: fast_import("fast-import"),
        lambda: fast_import("fast-import-payloads"), command_line,
    ]
    for turn in range(repeat):
        for run in rotated(runs, turn):
            run()
    assert kept is not None
    return {"records": count, "times": times, "cpu": cpu, "kept": kept, "sizes": sizes, "peak_mb": peak,
            "stream_bytes": len(streams["fast-import"]), "jsonl_bytes": jsonl.stat().st_size}


def peak_timer() -> list[str]:
    """GNU time, when there is one, to prefix a command with: it forks the command from its
    own small image, so its %M is the command's own peak (a child forked from this process
    would count this process's pages until it execs)."""
    timer = shutil.which("time", path="/usr/bin:/bin")
    return [timer, "-f", "maxrss-kb %M"] if timer else []


def peak_mb(stderr: bytes) -> list[float]:
    """The peak RSS ``peak_timer`` printed, in MB (10^6 bytes); empty without GNU time."""
    found = [line.split()[1] for line in stderr.decode(errors="replace").splitlines()
             if line.startswith("maxrss-kb ")]
    return [int(found[-1]) * 1024 / 1e6] if found else []


def gitstore_command() -> list[str]:
    script = Path(sys.executable).with_name("gitstore")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gitstore"]


def run_cli(cwd: Path, *args: str) -> str:
    done = subprocess.run([*gitstore_command(), *args], cwd=cwd, capture_output=True, env=git_env())
    if done.returncode != 0:
        raise RuntimeError(f"gitstore {' '.join(args)}: {done.stderr.decode(errors='replace')[-500:]}")
    return done.stdout.decode()


# -- 2. single appends ------------------------------------------------------------------------

class Naive:
    """Appending one record with git commands: blob, one-entry tree, commit, ref swap."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.ref = "refs/bench/naive"
        self.tip: str | None = None

    def append(self, entry: Any) -> None:
        blob = git(self.repo, "hash-object", "-w", "--stdin", data=entry.data)
        name = record_path(entry.kind, entry.digest).rsplit("/", 1)[1]
        tree = git(self.repo, "mktree", data=f"100644 blob {blob}\t{name}\n".encode())
        message = f"append 1 record\n\n{entry.digest} {entry.kind} {entry.stream}\n".encode()
        parents = ["-p", self.tip] if self.tip else []
        commit = git(self.repo, "commit-tree", tree, *parents, data=message)
        git(self.repo, "update-ref", self.ref, commit, self.tip or "0" * 40)
        self.tip = commit


def other_ref_names(count: int) -> list[str]:
    """``count`` names of a big repository's own refs, sorted: half tags, half remote branches."""
    return sorted([f"refs/tags/v{n}" for n in range(count // 2)]
                  + [f"refs/remotes/origin/branch-{n}" for n in range(count - count // 2)])


def with_other_refs(path: Path, count: int) -> None:
    """Give the repository ``count`` refs of its own (``other_ref_names``), packed as ``git gc``
    leaves them, all on its one commit."""
    git(path, "commit", "-q", "--allow-empty", "-m", "root")
    head = git(path, "rev-parse", "HEAD")
    lines = "".join(f"{head} {name}\n" for name in other_ref_names(count))
    (path / ".git" / "packed-refs").write_text("# pack-refs with: peeled fully-peeled sorted \n" + lines)


def singles(work: Work, big: Path, count: int, seed: int, small_size: int,
            cli_count: int = CLI_SINGLES, warmup: int = 5) -> dict[str, Any]:
    """Alternate single appends on the big store, a small store, a small store in a repository
    with many refs of its own, and the naive git loop."""
    small = new_repo(work.fresh("small"))
    Store(GitProvider(small, WRITER), R.SCOPE).append(events(small_size, seed, "small"))
    refs = new_repo(work.fresh("refs"))
    with_other_refs(refs, OTHER_REFS)
    Store(GitProvider(refs, WRITER), R.SCOPE).append(events(small_size, seed, "small"))
    stores = {"big": Store(GitProvider(big, WRITER), R.SCOPE),
              "small": Store(GitProvider(small, WRITER), R.SCOPE),
              "refs": Store(GitProvider(refs, WRITER), R.SCOPE)}
    providers = {"big": GitProvider(big, WRITER), "small": GitProvider(small, WRITER)}
    naive = Naive(big)
    one = work.fresh("single.jsonl")
    grants = [R.audit(f"single-{seed}-{i}", []) for i in range((count + warmup) * 7)]
    entries = entries_for(grants)
    times: dict[str, list[float]] = {
        "store-big": [], "store-small": [], "store-refs": [], "provider-big": [], "provider-small": [], "naive": [],
        "cli": [],
    }
    used = iter(range(len(grants)))

    def store_append(which: str) -> Callable[[], None]:
        def run() -> None:
            record = grants[next(used)]
            started = time.perf_counter()
            stores[which].append([record])
            times[f"store-{which}"].append(time.perf_counter() - started)
        return run

    def provider_append(which: str) -> Callable[[], None]:
        def run() -> None:
            batch = Batch("shared", (entries[next(used)],))
            started = time.perf_counter()
            providers[which].append(batch)
            times[f"provider-{which}"].append(time.perf_counter() - started)
        return run

    def naive_append() -> None:
        entry = entries[next(used)]
        started = time.perf_counter()
        naive.append(entry)
        times["naive"].append(time.perf_counter() - started)

    cli_runs = min(count, cli_count)
    cli_warmup = max(1, cli_runs // 6)  # 5 of 30; a process each, so few when few are timed
    if "origin" not in pygit2.Repository(str(big)).remotes.names():
        git(big, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    run_cli(big, "init")  # the CLI appends as its own writer, beside the library's

    def cli_append() -> None:
        if len(times["cli"]) >= (cli_warmup if warming else cli_runs):  # a process each: fewer of them
            return
        one.write_bytes(orjson.dumps(grants[next(used)]) + b"\n")
        started = time.perf_counter()
        done = subprocess.run([*gitstore_command(), "records", "add", str(one)], cwd=big, env=git_env(),
                              capture_output=True)
        times["cli"].append(time.perf_counter() - started)
        if done.returncode != 0:
            raise RuntimeError(f"gitstore records add: {done.stderr.decode(errors='replace')[-300:]}")

    runs = [store_append("big"), store_append("small"), store_append("refs"), provider_append("big"),
            provider_append("small"), naive_append, cli_append]
    for turn in range(warmup + count):
        warming = turn < warmup
        for run in rotated(runs, turn):
            run()
        if turn == warmup - 1:
            for values in times.values():
                values.clear()
    return {"count": count, "small_size": small_size, "other_refs": OTHER_REFS, "times": times}


# -- 3. verify --------------------------------------------------------------------------------

def blob_ids(repo: pygit2.Repository) -> list[pygit2.Oid]:
    """Every blob under the writer's records and payloads refs: what verify reads."""
    found: list[pygit2.Oid] = []

    def walk(tree: pygit2.Tree) -> None:
        for entry in tree:
            if entry.filemode == pygit2.GIT_FILEMODE_TREE:
                walk(entry)  # type: ignore[arg-type]
            else:
                found.append(entry.id)

    for ref in (records_ref("shared", WRITER), payloads_ref("shared", WRITER)):
        walk(repo.references[ref].peel(pygit2.Tree))
    return found


def bare_loop(odb: pygit2.Odb, oids: list[pygit2.Oid]) -> int:
    for oid in oids:
        _, data = odb.read(oid)
        json.loads(data)
        hashlib.sha256(data).hexdigest()
    return len(oids)


def verify(path: Path, records: int, repeat: int) -> dict[str, Any]:
    repo = pygit2.Repository(str(path))
    listed, oids = timed(lambda: blob_ids(repo))
    times: dict[str, list[float]] = {"verify": [], "bare": []}

    def ours() -> None:
        seconds, report = timed(lambda: GitProvider(path, WRITER).verify())
        if not report.ok or report.records != records:
            raise AssertionError(f"verify: {report.records} records, problems {report.problems[:3]}")
        times["verify"].append(seconds)

    def bare() -> None:
        odb = pygit2.Repository(str(path)).odb
        seconds, _ = timed(lambda: bare_loop(odb, oids))
        times["bare"].append(seconds)

    for turn in range(repeat):
        for run in rotated([ours, bare], turn):
            run()
    return {"records": records, "blobs": len(oids), "list_s": listed, "times": times}


# The child's peak resident set (anonymous and file-backed pages, mapped packs included) is
# read twice: the child reports its VmHWM, and GNU time reports its ru_maxrss. Not this
# process's wait4: Linux carries a process's peak across exec, so a child started from this
# (large) process would begin with this process's peak.
_VERIFY_CHILD = textwrap.dedent("""
    import json, sys, time
    from gitstore.providers.git import GitProvider
    started = time.perf_counter()
    report = GitProvider(sys.argv[1], sys.argv[2]).verify()
    seconds = time.perf_counter() - started
    peak = None
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) * 1024
    except OSError:
        pass
    print(json.dumps({"records": report.records, "refs": report.refs, "ok": report.ok,
                      "seconds": seconds, "peak_bytes": peak,
                      "problems": [str(p) for p in report.problems[:3]]}))
""")


def million(work: Work, total: int, chunk: int, seed: int) -> dict[str, Any]:
    """Build a store of ``total`` events by bulk appends of ``chunk``; verify it in a child."""
    path = new_repo(work.fresh("million"))
    store = Store(GitProvider(path, WRITER), R.SCOPE)
    started = time.perf_counter()
    appended = 0
    appending = 0.0
    while appended < total:
        size = min(chunk, total - appended)
        batch = events(size, seed, f"m{appended}")
        seconds, _ = timed(partial(store.append, batch))
        appending += seconds
        appended += size
        del batch
        print(f"  {total}-record store: {appended} records, last chunk of {size} appended in {seconds:.1f}s",
              flush=True)
    built = time.perf_counter() - started
    del store
    gc.collect()
    started = time.perf_counter()
    command = [*peak_timer(), sys.executable, "-c", _VERIFY_CHILD, str(path), WRITER]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=git_env(), cwd=ROOT)
    out, err = child.communicate()
    wall = time.perf_counter() - started
    if child.returncode != 0:
        raise RuntimeError(f"verify child exited with {child.returncode}: {err.decode()[-500:]}")
    report = json.loads(out)
    timer_peak = peak_mb(err)
    if not report["ok"] or report["records"] != total:
        raise AssertionError(f"1M verify: {report}")
    objects = objects_bytes(path)
    if not work.keep:
        shutil.rmtree(path, ignore_errors=True)
    peaks = {"VmHWM reported by the child": report["peak_bytes"],
             "/usr/bin/time %M": timer_peak[0] * 1e6 if timer_peak else None}
    found = {k: v for k, v in peaks.items() if v is not None}
    if not found:
        raise RuntimeError("no peak memory figure: neither /proc/self/status nor /usr/bin/time")
    return {"records": total, "chunk": chunk, "build_s": built, "append_s": appending,
            "verify_s": report["seconds"], "child_s": wall, "objects_bytes": objects,
            "rss_mb": max(found.values()) / 1e6,
            "rss_source": ", ".join(f"{k} {v / 1e6:.0f} MB" for k, v in found.items())}


# -- 4. providers side by side ----------------------------------------------------------------

def providers(work: Work, count: int, repeat: int, seed: int) -> dict[str, Any]:
    folder = work.fresh("providers")
    git_repo = new_repo(folder / "git")
    made = {
        "git": GitProvider(git_repo, WRITER),
        "sqlite": SqliteProvider(folder / "store.sqlite", WRITER),
        "jsonl": JsonlProvider(folder / "jsonl", WRITER),
    }
    stores = {name: Store(p, R.SCOPE) for name, p in made.items()}
    texts = events(count, seed, "providers")
    records = [texts[i] if i % 2 else R.grant(f"providers-{seed}-{i}") for i in range(count)]
    appends: dict[str, list[float]] = {name: [] for name in stores}
    reads: dict[str, list[float]] = {name: [] for name in stores}
    names = list(stores)
    gc.collect()
    for i, record in enumerate(records):
        for name in rotated(names, i):
            started = time.perf_counter()
            stores[name].append([record])
            appends[name].append(time.perf_counter() - started)
    for turn in range(repeat):
        for name in rotated(names, turn):
            seconds, items = timed(lambda: sum(1 for _ in stores[name].items(payloads=True)))
            if items != count:
                raise AssertionError(f"{name} read {items} of {count} records")
            reads[name].append(seconds)
    return {"count": count, "appends": appends, "reads": reads}


# -- report -----------------------------------------------------------------------------------

def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def report_bulk(r: dict[str, Any], repeat: int) -> tuple[list[str], list[str]]:
    n = r["records"]
    t = {k: median(v) for k, v in r["times"].items() if v}
    c = {k: median(v) for k, v in r["cpu"].items() if v}
    fast, both = rate(n, t["fast-import"]), rate(n, t["fast-import-payloads"])
    lines = [f"1. bulk append of {n} events in one batch, fresh repository, median of {repeat}"
             f" (runs alternate); ratios against fast-import writing the record blobs only:"]
    labels = {
        "cli": "gitstore records add FILE (process start to exit)",
        "payloads": "Store.append, events with payloads",
        "bare": "Store.append, events without payloads",
        "fast-import": "git fast-import, uncompressed, same record blobs and paths",
        "fast-import-payloads": "git fast-import, uncompressed, record and payload blobs",
    }
    for key, label in labels.items():
        if key in t:
            size = f"; objects {r['sizes'][key] / 1e6:.0f} MB" if key in r["sizes"] else ""
            rss = f"; peak RSS {median(r['peak_mb'][key]):.0f} MB" if r["peak_mb"].get(key) else ""
            lines.append(
                f"   {label:<58} {t[key]:7.2f}s {rate(n, t[key]):9.0f} rec/s"
                f" ({rate(n, t[key]) / fast:.2f}x; cpu {c[key]:.2f}s{size}{rss};"
                f" runs {', '.join(f'{s:.2f}' for s in r['times'][key])})"
            )
    cli = rate(n, t["cli"])
    summary = [
        f"{NAME}: bulk records add of {n} events (with payloads) {cli:.0f} rec/s, {FAST}"
        f" writing the same record and payload blobs {both:.0f} rec/s, ratio {cli / both:.2f}x"
        f" (goal >= {GOAL_BULK:.1f}x): {verdict(cli / both >= GOAL_BULK)}{short(cli / both, 'fast-import')}",
        f"{NAME}: bulk records add of {n} events (with payloads) {cli:.0f} rec/s, {FAST}"
        f" writing the record blobs only {fast:.0f} rec/s, ratio {cli / fast:.2f}x"
        f" (goal >= {GOAL_BULK:.1f}x): {verdict(cli / fast >= GOAL_BULK)}{short(cli / fast, 'fast-import')}",
        f"{NAME}: bulk Store.append of {n} events with payloads {rate(n, t['payloads']):.0f} rec/s,"
        f" {rate(n, t['payloads']) / both:.2f}x fast-import writing the same blobs (reported, no goal)",
        f"{NAME}: bulk Store.append of {n} events without payloads {rate(n, t['bare']):.0f} rec/s,"
        f" {rate(n, t['bare']) / fast:.2f}x fast-import writing the same blobs (reported, no goal)",
    ]
    return lines, summary


def report_singles(r: dict[str, Any], big: int) -> tuple[list[str], list[str]]:
    t = {k: median(v) for k, v in r["times"].items()}
    p90 = {k: statistics.quantiles(v, n=10)[-1] if len(v) > 1 else v[0] for k, v in r["times"].items()}
    small = r["small_size"]
    lines = [f"2. single appends of one record, {r['count']} of each kind, alternating; median (p90):"]
    labels = {
        "store-small": f"Store.append at {small} stored records",
        "store-big": f"Store.append at {big} stored records",
        "store-refs": f"Store.append at {small}, among {r['other_refs']} other refs",
        "provider-small": f"GitProvider.append at {small} stored records",
        "provider-big": f"GitProvider.append at {big} stored records",
        "naive": f"naive git (4 processes, flat one-entry tree) at {big}",
        "cli": f"gitstore records add FILE of one grant (a process) at {big}",
    }
    for key, label in labels.items():
        lines.append(f"   {label:<58} {ms(t[key]):>10} ({ms(p90[key])})")
    scale = t["store-big"] / t["store-small"]
    naive = t["store-big"] / t["naive"]
    cli = t["cli"] / t["naive"]
    refs = t["store-refs"] / t["store-small"]
    summary = [
        f"{NAME}: single append median at {big} records {ms(t['store-big'])}, at {small} records"
        f" {ms(t['store-small'])}, ratio {scale:.2f}x (goal <= {GOAL_SCALE:.1f}x): {verdict(scale <= GOAL_SCALE)}",
        f"{NAME}: single append median {ms(t['store-big'])}, naive git {ms(t['naive'])},"
        f" ratio {naive:.2f}x (goal <= {GOAL_NAIVE:.1f}x): {verdict(naive <= GOAL_NAIVE)}"
        f"{short(naive, 'naive git', higher_is_better=False)} (in-process: no start-up counted)",
        f"{NAME}: single append through the CLI (gitstore records add, process start to exit) median"
        f" {ms(t['cli'])}, naive git (4 git processes) {ms(t['naive'])}, ratio {cli:.2f}x"
        f" (goal <= {GOAL_CLI_NAIVE:.1f}x): {verdict(cli <= GOAL_CLI_NAIVE)}"
        f"{short(cli, 'naive git', higher_is_better=False)}",
        f"{NAME}: single append median in a repository with {r['other_refs']} refs of its own (packed, as git gc"
        f" leaves them) {ms(t['store-refs'])}, in one with none {ms(t['store-small'])}, ratio {refs:.2f}x"
        f" (goal <= {GOAL_REFS:.1f}x): {verdict(refs <= GOAL_REFS)}",
    ]
    return lines, summary


def report_verify(r: dict[str, Any], repeat: int) -> tuple[list[str], list[str]]:
    n = r["records"]
    t = {k: median(v) for k, v in r["times"].items()}
    ratio = t["bare"] / t["verify"]
    lines = [
        f"3. verify of the {n}-record store (records and payload snapshot: {r['blobs']} blobs),"
        f" median of {repeat}:",
        f"   {'GitProvider.verify()':<58} {t['verify']:7.2f}s {rate(n, t['verify']):9.0f} rec/s"
        f" (runs {', '.join(f'{s:.2f}' for s in r['times']['verify'])})",
        f"   {'bare loop: odb.read + json.loads + sha256 per blob':<58} {t['bare']:7.2f}s"
        f" {rate(n, t['bare']):9.0f} rec/s (runs {', '.join(f'{s:.2f}' for s in r['times']['bare'])};"
        f" listing the blob ids first took {r['list_s']:.2f}s, not counted)",
    ]
    summary = [
        f"{NAME}: verify {n} records {rate(n, t['verify']):.0f} rec/s, bare loop"
        f" {rate(n, t['bare']):.0f} rec/s, ratio {ratio:.2f}x (goal >= {GOAL_VERIFY:.1f}x):"
        f" {verdict(ratio >= GOAL_VERIFY)}",
    ]
    return lines, summary


def report_million(r: dict[str, Any] | None, why: str) -> tuple[list[str], list[str]]:
    if r is None:
        return ([f"3b. verify peak memory over 1,000,000 records: skipped ({why})"],
                [f"{NAME}: verify peak memory over 1000000 records: skipped ({why})"])
    lines = [
        f"3b. {r['records']} events with payloads built by bulk appends of {r['chunk']} in"
        f" {r['build_s']:.0f}s ({r['append_s']:.0f}s appending, {rate(r['records'], r['append_s']):.0f} rec/s;"
        f" objects {r['objects_bytes'] / 1e6:.0f} MB)",
        f"   verify in a child process: {r['verify_s']:.1f}s ({rate(r['records'], r['verify_s']):.0f} rec/s),"
        f" peak RSS {r['rss_mb']:.0f} MB ({r['rss_source']})",
    ]
    ok = r["rss_mb"] < GOAL_RSS_MB
    summary = [f"{NAME}: verify peak memory over {r['records']} records {r['rss_mb']:.0f} MB"
               f" (goal < {GOAL_RSS_MB:.0f} MB): {verdict(ok)}"]
    return lines, summary


def report_providers(r: dict[str, Any], repeat: int) -> tuple[list[str], list[str]]:
    n = r["count"]
    lines = [
        f"4. {n} single appends (grants and events with payloads, alternating; providers take turns)"
        f" then a full read with payloads, median of {repeat}:",
        f"   {'provider':<10} {'append median':>14} {'append p90':>11} {'appends/s':>10}"
        f" {'all appends':>12} {'read all':>9} {'reads/s':>10}",
    ]
    summary = []
    for name in r["appends"]:
        a = r["appends"][name]
        read = median(r["reads"][name])
        p90 = statistics.quantiles(a, n=10)[-1] if len(a) > 1 else a[0]
        lines.append(
            f"   {name:<10} {ms(median(a)):>14} {ms(p90):>11} {rate(1, median(a)):10.0f}"
            f" {sum(a):11.2f}s {read:8.2f}s {rate(n, read):10.0f}"
        )
        summary.append(f"{NAME}: provider {name}: {rate(1, median(a)):.0f} appends/s (median),"
                       f" {rate(n, read):.0f} reads/s")
    return lines, summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench store", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument("--records", type=int, help="events per bulk append (default 100000; quick 500)")
    parser.add_argument("--repeat", type=int, help="runs of each bulk, verify and read (default 3)")
    parser.add_argument("--singles", type=int, help="timed single appends of each kind (default 200; quick 5)")
    parser.add_argument("--cli-singles", type=int,
                        help=f"timed single appends through the CLI (default {CLI_SINGLES}; quick 2)")
    parser.add_argument("--small", type=int, default=1000, help="records in the small store (1000)")
    parser.add_argument("--provider-appends", type=int, help="appends per provider (default 2000; quick 30)")
    parser.add_argument("--million", type=int, default=1_000_000, help="records for the memory test")
    parser.add_argument("--chunk", type=int, default=100_000, help="bulk append size building it")
    parser.add_argument("--no-million", action="store_true", help="skip the 1M-record memory test")
    parser.add_argument("--only", action="append", choices=["bulk", "single", "verify", "million", "providers"],
                        help="run only these parts (bulk runs whenever single or verify does)")
    parser.add_argument("--seed", type=int, default=20260715, help="generator seed (default 20260715)")
    parser.add_argument("--workdir", help="where scratch repositories go (default: system temp)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch repositories")
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    o = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    records = o.records or (500 if o.quick else 100_000)
    repeat = o.repeat or (1 if o.quick else 3)
    count = o.singles or (5 if o.quick else 200)
    cli_count = o.cli_singles or (2 if o.quick else CLI_SINGLES)
    appends = o.provider_appends or (30 if o.quick else 2000)
    warmup = 1 if o.quick else 5  # rounds of single appends before the timed ones
    small = min(o.small, max(1, records // 2))
    parts = set(o.only or ["bulk", "single", "verify", "million", "providers"])
    if parts & {"single", "verify"}:
        parts.add("bulk")
    if min(records, repeat, count, cli_count, appends, small, o.chunk) < 1:
        parser.error("sizes and counts must be at least 1")
    if o.workdir is not None and not os.path.isdir(o.workdir):
        parser.error(f"--workdir {o.workdir} is not a folder")

    work = Work(o.workdir, o.keep)
    results: dict[str, Any] = {}
    lines: list[str] = []
    summary: list[str] = []
    started = time.perf_counter()
    try:
        print(f"store benchmark: python {sys.version.split()[0]}, {git(ROOT, 'version')},"
              f" libgit2 {pygit2.LIBGIT2_VERSION}, {os.cpu_count()} cpus,"
              f" load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, scratch {work.path}",
              flush=True)
        if "bulk" in parts:
            made, input_events = timed(lambda: events(records, o.seed, "bulk"))
            print(f"input: {records} sealed events with payloads (4 to 120 words), 100 per episode,"
                  f" made in {made:.1f}s", flush=True)
            r = results["bulk"] = bulk(work, input_events, repeat)
            print(f"   (fast-import stream {r['stream_bytes'] / 1e6:.1f} MB; JSON Lines file"
                  f" {r['jsonl_bytes'] / 1e6:.1f} MB)", flush=True)
            del input_events
            part, sums = report_bulk(r, repeat)
            print("\n".join(part), flush=True)
            lines += part
            summary += sums
            big = r["kept"]
            if "verify" in parts:
                r = results["verify"] = verify(big, records, repeat)
                part, sums = report_verify(r, repeat)
                print("\n".join(part), flush=True)
                lines += part
                summary += sums
            if "single" in parts:
                r = results["single"] = singles(work, big, count, o.seed, small, cli_count, warmup)
                part, sums = report_singles(r, records)
                print("\n".join(part), flush=True)
                lines += part
                summary += sums
        if "million" in parts:
            why = "--quick" if o.quick else "--no-million" if o.no_million else ""
            m = None if why else million(work, o.million, o.chunk, o.seed)
            results["million"] = m
            part, sums = report_million(m, why)
            print("\n".join(part), flush=True)
            lines += part
            summary += sums
        if "providers" in parts:
            r = results["providers"] = providers(work, appends, repeat, o.seed)
            part, sums = report_providers(r, repeat)
            print("\n".join(part), flush=True)
            lines += part
            summary += sums
    finally:
        work.close()
    print(f"peak RSS of this process {peak_rss_mb():.0f} MB; total {time.perf_counter() - started:.0f}s")
    print("\n".join(summary), flush=True)
    if o.json:
        results.get("bulk", {}).pop("kept", None)
        print(json.dumps(results, sort_keys=True, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
