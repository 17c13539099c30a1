"""Delivery: the context hook's cost to the agent, recall against listing, and recall quality.

The issue: "the context hook's wall time with 10,000 active learnings against ``python3 -c pass``
(goal <= 4x), and ``gitstore recall`` against ``records list`` of the same store", and the recall
quality figure on the labelled set.

Input, built once per run in a temporary git repository with the default ``git`` provider
(deterministic for a seed): one grant (review and instruction for review threads), 1,000
review-thread episodes (``--learnings`` / 10) of 10 comments each, and 10,000 learnings
(``--learnings``), each citing one comment, proposed and accepted (two versions, each with its
audit entry, sealed with ``gitstore.seal`` and appended in large batches: going through
``ops.propose``/``accept`` one by one would reload the view every step). Titles and texts are
are a few topic words (English, Chinese, Japanese, Korean and Vietnamese, about 90 of them)
among words drawn by Zipf's law from a long tail of 3,000 made-up ones, so each topic word
appears in a few percent of the learnings, as words do in a real project's memory; every
learning is in force. The index is built once (its build time is reported) and every run then
reads it, as the hook does between store changes.

Timing, interleaved, ``--repeat`` rounds after one warm-up (which also fills the bytecode
cache: the children cache .pyc files in a folder of this run, as an installed package has
them, even where this environment sets ``PYTHONDONTWRITEBYTECODE``), medians (best, worst),
from process start to exit, with the children's CPU time (``RUSAGE_CHILDREN``):

- bare: ``python -c pass`` (the interpreter the hook runs in);
- hook: ``python -P -m gitstore.deliver.hook claude-code`` fed a ``UserPromptSubmit`` payload
  whose prompt matches many learnings, a new session each run (so it delivers and writes its
  ledger line), output to a pipe as a harness reads it;
- the hook again with 25,000 refs of the repository's own beside memory's (tags and remote
  branches, packed as ``git gc`` leaves a big repository's; written into ``packed-refs`` just
  before the run and taken out after it): the hook fingerprints memory's refs at every prompt,
  and must not pay for the others (goal: the same <= 4x). Measured (2026-12-02, 10,000
  learnings, 15 rounds): 79.7 ms against 73.6 ms without them (1.08x), 2.77x bare. With 300
  learnings and 20 rounds: 69.4 ms against 67.1 ms (1.03x); before the hook stopped splitting
  ``packed-refs`` into lines, 85.8 ms against 67.1 ms (1.28x);
- recall: ``gitstore recall QUERY --json``; listing: ``gitstore records list --json`` (both to
  the null device).

Goal ratios: hook / bare <= 4, and recall / listing (reported; recall reads three items from an
index, listing re-checks every record). Exit code 0 whatever the numbers (benchmark machines
are noisy); 1 only when the hook printed nothing (the measurement would be meaningless).
``python -m bench recall --quick`` is a smoke test with 100 learnings, no warm-up round.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import gitstore
from bench._process import child_env, gitstore_argv
from bench.bench_store import other_ref_names
from bench.recall_quality import evaluate
from gitstore.deliver.build import build as build_index
from gitstore.deliver.place import locate
from gitstore.context import Context
from gitstore.ops.setup import init
from gitstore.records.ids import episode_id, event_id

ORIGIN = "https://github.com/acme/widgets.git"
BATCH = 4_000
WORDS = (
    "retry backoff jitter cache tenant migration rollback flag release logging fields request timeout "
    "database schema endpoint version client server queue worker deploy config secret token session "
    "test fixture mock snapshot parser index search limit page cursor commit branch review merge "
    "重试 退避 缓存 租户 迁移 回滚 日志 接口 版本 测试 部署 配置 "
    "リトライ キャッシュ テスト ログ 設定 デプロイ "
    "재시도 캐시 로그 테스트 배포 설정 "
    "thử lại bộ nhớ đệm nhật ký kiểm thử triển khai cấu hình"
).split()
OTHER_REFS = 25_000  # tags and remote branches of a big repository (see other_refs)
PROMPT = "Add a retry with backoff and jitter around the flaky client request, and log the timeout"
SYLLABLES = "ka lo mi nu pe ra si to vu ze bar cor dun fen gil hom jat kel mor nip".split()


def pseudo_words(count: int, rng: random.Random) -> list[str]:
    """Distinct made-up words: the long tail of a real project's vocabulary."""
    found: dict[str, None] = {}
    while len(found) < count:
        found["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))] = None
    return list(found)


def _time(day: int, second: int) -> str:
    return f"2026-03-{1 + day % 28:02d}T{(second // 3600) % 24:02d}:{(second // 60) % 60:02d}:{second % 60:02d}.000000Z"


def _words(rng: random.Random, low: int, high: int, tail: list[str] | None = None) -> str:
    """A few topic words, and (with ``tail``) the rest from a long tail drawn by Zipf's law, as
    words are in text: each topic word then appears in a few percent of learnings."""
    topics = [rng.choice(WORDS) for _ in range(rng.randint(2, 4))]
    if not tail:
        return " ".join(topics + [rng.choice(WORDS) for _ in range(rng.randint(low, high))])
    rest = [tail[min(int(rng.paretovariate(1.0)) - 1, len(tail) - 1)] for _ in range(rng.randint(low, high))]
    words = topics + rest
    rng.shuffle(words)
    return " ".join(words)


def ready_repo(path: Path) -> Context:
    path.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True, env=env)
    subprocess.run(["git", "remote", "add", "origin", ORIGIN], cwd=path, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "root"], cwd=path, check=True, env=env)
    init(path)
    return Context.open(str(path))


class Builder:
    """Writes the store directly: sealed records appended in big batches."""

    def __init__(self, root: Path, seed: int) -> None:
        self.rng = random.Random(seed)
        self.tail = pseudo_words(3_000, self.rng)
        self.ctx = ready_repo(root)
        self.scope = self.ctx.scope
        self.pending: list[dict[str, Any]] = []

    def add(self, record: dict[str, Any]) -> dict[str, Any]:
        gitstore.seal(record)
        if len(self.pending) >= BATCH and record["schema"] != "gitstore.audit/v1":
            self.flush()  # an audit entry goes in the append of the records it records
        self.pending.append(record)
        return record

    def flush(self) -> None:
        if self.pending:
            self.ctx.store.append(self.pending, decided=True)  # as the operations write decisions
            self.pending = []

    def audit(self, action: str, subject: str, record: dict[str, Any]) -> None:
        self.add(self.ctx.audit(action, "github:9", [subject], [record], at=record["at"]))

    def grant(self) -> None:
        record = self.add({"schema": "gitstore.grant/v1", "scope": self.scope, "purposes": ["review", "instruction"],
                           "sources": ["review-thread"], "from": "2026-01-01T00:00:00.000000Z", "until": None,
                           "by": "github:9", "at": "2026-01-01T00:00:00.000000Z", "note": None})
        self.audit("grant", record["digest"], record)

    def thread(self, number: int) -> list[dict[str, Any]]:
        """One review thread of 10 comments; returns the evidence references."""
        source = {"kind": "review-thread", "origin": "github", "ref": f"github:comment:{number * 100}"}
        episode = episode_id(self.scope, source)
        pin = {"repository": self.scope, "pullRequest": 1000 + number, "branch": f"feature/{number}", "commit": "a" * 40}
        self.add({"schema": "gitstore.episode/v1", "scope": self.scope, "id": episode, "source": source, "pin": pin,
                  "title": f"thread {number}", "startedAt": _time(number, 0), "capture": "complete",
                  "mode": "review", "grants": []})
        refs = []
        for seq in range(10):
            at = _time(number, 60 * (seq + 1))
            author = f"github:{2000 + (number + seq) % 97}"
            event = self.add({"schema": "gitstore.event/v1", "scope": self.scope,
                              "id": event_id(episode, f"comment:{number}:{seq}"), "episode": episode,
                              "type": "comment", "seq": seq, "at": at, "author": author, "parentEventId": None,
                              "payload": {"text": _words(self.rng, 6, 16, self.tail), "sourceId": f"github:comment:{number * 100 + seq}"}})
            refs.append({"episode": episode, "events": [event["id"]], "at": at, "author": author, "pin": pin})
        return refs

    def learning(self, ref: dict[str, Any], number: int) -> None:
        at = _time(number, 3000 + number % 500)
        proposal: dict[str, Any] = {
            "schema": "gitstore.learning/v1", "scope": self.scope, "version": 1, "previous": None,
            "state": "proposed", "category": "convention", "memory": "semantic", "audience": "project",
            "audienceRationale": "Evidence comes from this repository's own reviews.",
            "content": {"title": _words(self.rng, 1, 3, self.tail), "text": _words(self.rng, 8, 25, self.tail)},
            "targets": [], "replaces": [], "evidence": [ref], "counterevidence": [], "validFrom": None,
            "validUntil": None, "support": 1, "dissent": 0, "confidence": "medium", "rationale": "bench",
            "proposer": {"kind": "person", "id": "github:9"}, "at": at,
        }
        proposal["id"] = "lrn_" + gitstore.content_digest(proposal)[7:39]
        self.add(proposal)
        self.audit("propose", proposal["id"], proposal)
        accepted = {k: v for k, v in proposal.items() if k != "digest"}
        accepted.update(version=2, previous=proposal["digest"], state="accepted",
                        decision={"by": "github:9", "reviewDigest": proposal["reviewDigest"], "edited": False,
                                  "reason": None})
        self.add(accepted)
        self.audit("accept", proposal["id"], accepted)

    def build(self, learnings: int) -> None:
        self.grant()
        refs: list[dict[str, Any]] = []
        for number in range(max(1, learnings // 10)):
            refs += self.thread(number)
        for number in range(learnings):
            self.learning(refs[number % len(refs)], number)
        self.flush()


# -- timing -------------------------------------------------------------------------------------------

def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None = None,
         capture: bool = False) -> tuple[float, float, bytes]:
    """Wall seconds (process start to exit), CPU seconds of the child, and its output."""
    cpu = _children_cpu()
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                               stdout=subprocess.PIPE if capture else subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out, _ = process.communicate(stdin)
    wall = time.perf_counter() - started
    return wall, _children_cpu() - cpu, out or b""


def _summary(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "best": min(values), "worst": max(values)}


@contextmanager
def other_refs(root: Path, count: int) -> Iterator[None]:
    """For a while, ``count`` refs of the repository's own beside memory's
    (``bench_store.other_ref_names``, on HEAD), packed as ``git gc`` leaves a big repository's:
    memory's refs and the recall index stay as they are, so the hook delivers from the same
    index."""
    packed = root / ".git" / "packed-refs"
    before = packed.read_bytes() if packed.exists() else None
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                          check=True).stdout.strip()
    kept = [line for line in (before or b"").decode().splitlines() if not line.startswith("#")]
    kept += [f"{head} {name}" for name in other_ref_names(count)]
    # without the ``sorted`` trait git sorts the lines itself; a peeled line stays after its tag
    packed.write_text("# pack-refs with: peeled fully-peeled \n" + "".join(line + "\n" for line in kept))
    try:
        yield
    finally:
        if before is None:
            packed.unlink()
        else:
            packed.write_bytes(before)


def measure(root: Path, repeat: int, env: dict[str, str], warm: bool = True) -> dict[str, Any]:
    bare = [sys.executable, "-c", "pass"]
    hook = [sys.executable, "-P", "-m", "gitstore.deliver.hook", "claude-code"]
    runs: dict[str, list[tuple[float, float]]] = {"bare": [], "hook": [], "hook-refs": [], "recall": [], "list": []}
    printed = 0
    for round_ in range(repeat + 1 if warm else repeat):
        order = ["bare", "hook", "hook-refs", "recall", "list"]
        order = order[round_ % 5:] + order[:round_ % 5]
        for name in order:
            if name == "bare":
                wall, cpu, _ = _run(bare, root, env)
            elif name in ("hook", "hook-refs"):
                payload = {"session_id": f"bench-{name}-{round_}", "transcript_path": "/tmp/bench.jsonl",
                           "cwd": str(root), "permission_mode": "default", "hook_event_name": "UserPromptSubmit",
                           "prompt": PROMPT}
                with other_refs(root, OTHER_REFS) if name == "hook-refs" else nullcontext():
                    wall, cpu, out = _run(hook, root, env, json.dumps(payload).encode(), capture=True)
                printed += bool(out.strip())
            elif name == "recall":
                wall, cpu, _ = _run([*gitstore_argv(), "recall", PROMPT, "--json"], root, env)
            else:
                wall, cpu, _ = _run([*gitstore_argv(), "records", "list", "--json"], root, env)
            if round_ or not warm:  # the first round warms caches
                runs[name].append((wall, cpu))
    result = {name: {"wall": _summary([w for w, _ in values]), "cpu": _summary([c for _, c in values])}
              for name, values in runs.items()}
    result["printed"] = printed
    return result


def report(learnings: int, built_s: float, index_s: float, timing: dict[str, Any], quality: Any) -> str:
    def ms(name: str, kind: str = "wall") -> str:
        s = timing[name][kind]
        return f"{s['median'] * 1000:7.1f} ms (best {s['best'] * 1000:.1f}, worst {s['worst'] * 1000:.1f})"

    hook_ratio = timing["hook"]["wall"]["median"] / timing["bare"]["wall"]["median"]
    hook_best = timing["hook"]["wall"]["best"] / timing["bare"]["wall"]["best"]
    hook_cpu = timing["hook"]["cpu"]["median"] / timing["bare"]["cpu"]["median"]
    recall_ratio = timing["recall"]["wall"]["median"] / timing["list"]["wall"]["median"]
    refs_ratio = timing["hook-refs"]["wall"]["median"] / timing["bare"]["wall"]["median"]
    refs_hook = timing["hook-refs"]["wall"]["median"] / timing["hook"]["wall"]["median"]
    lines = [
        f"store: {learnings} active learnings (built in {built_s:.1f} s); recall index built in {index_s:.2f} s",
        f"bare python -c pass      {ms('bare')}",
        f"context hook             {ms('hook')}",
        f"gitstore recall          {ms('recall')}",
        f"gitstore records list    {ms('list')}",
        f"hook / bare: {hook_ratio:.2f}x median, {hook_best:.2f}x best, {hook_cpu:.2f}x CPU "
        f"(goal <= 4x: {'met' if hook_ratio <= 4 else 'NOT met'})",
        f"context hook among {OTHER_REFS} refs of the repository's own (packed) {ms('hook-refs')}",
        f"hook among {OTHER_REFS} refs / bare: {refs_ratio:.2f}x median, {refs_hook:.2f}x the hook without them"
        f" (goal <= 4x: {'met' if refs_ratio <= 4 else 'NOT met'})",
        f"recall / records list: {recall_ratio:.3f}x",
        f"recall quality: {quality.hits}/{quality.total} = {quality.rate:.1%} of labelled queries have their "
        f"learning in the top 3 (goal >= 90%: {'met' if quality.rate >= 0.9 else 'NOT met'}); by language: "
        + ", ".join(f"{lang} {hit}/{total}" for lang, (hit, total) in quality.by_language.items()),
    ]
    lines += [f"  missed: {m['query']!r} expected {m['expect']}, got {m['got']}" for m in quality.misses]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench recall", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100 learnings, at most 3 rounds, no warm-up round")
    parser.add_argument("--learnings", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--seed", type=int, default=7)
    options = parser.parse_args(argv)
    learnings = 100 if options.quick else options.learnings
    repeat = min(options.repeat, 3) if options.quick else options.repeat
    folder = Path(tempfile.mkdtemp(prefix="gitstore-bench-recall-"))
    try:
        root = folder / "widgets"
        started = time.perf_counter()
        Builder(root, options.seed).build(learnings)
        built_s = time.perf_counter() - started
        place = locate(str(root))
        index = build_index(place)
        timing = measure(root, repeat, child_env(folder), warm=not options.quick)
        quality = evaluate(folder)
        print(report(index.count, built_s, index.seconds, timing, quality))
        if not timing["printed"]:
            print("the hook printed nothing: the measurement does not show a delivery", file=sys.stderr)
            return 1
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
