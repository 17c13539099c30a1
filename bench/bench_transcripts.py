"""Transcript parsing throughput in MB/s, against bare JSON decoding of the same bytes.

Input: for each harness, the largest real samples under ``../shared/testdata/transcripts``
concatenated and replicated to about ``--size`` MB (20 by default) in a temporary folder:

- claude-code: the claude-code-viewer sessions and the agent-sessions / agent-history Claude
  files, each copy with its uuids made unique (so no turn key collides);
- codex: the agent-sessions and agent-history rollouts;
- gemini-cli: one JSON session document whose messages are those of every Gemini sample,
  repeated with fresh ids, and the same messages as a JSONL session (header, messages,
  ``$set`` lines).

OpenCode storage is many small files per session, not a stream, and is left out.

Both paths read the file from disk (warm page cache) in the same run:

- parse: ``gitstore.capture.transcripts.parse_transcript(path, harness)``, everything it does
  (decoding, turns, tool calls, caps, aggregates, the frozen Transcript);
- baseline: read the same file and ``orjson.loads`` every line (or the whole document),
  the least any parser must do.

An untimed first parse of each input reports its peak allocated memory (tracemalloc): JSONL
is read line by line and a large JSON document message by message, so it stays well below
the input size.

Passes alternate between the two, ``--repeat`` of each; the report takes the best pass of
each (MB is 10^6 bytes) and the ratio parse/baseline. Exit code 0 whatever the numbers.
``python -m bench transcripts --quick`` is a smoke test with about 2 MB per harness.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from gitstore.capture.transcripts import parse_transcript
from tools.testdata import MISSING, available, testdata_root

NAME = "transcripts"
DATA = testdata_root() / "transcripts"

CLAUDE = [
    "claude-code/claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
    "claude-code/claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
    "claude-code/claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl",
    "agent-sessions/claude/small.jsonl",
    "agent-history/rejections/claude_with_rejection.jsonl",
    "agent-history/forks/claude_forked_session.jsonl",
]
CODEX = [
    "agent-sessions/codex/small.jsonl",
    "agent-sessions/codex/large.jsonl",
    "agent-history/compaction/codex/session_with_compaction.jsonl",
    "agent-history/rejections/codex_with_escalation.jsonl",
    "agent-history/v1/codex_golden.jsonl",
]
GEMINI_DOCUMENTS = ["agent-sessions/gemini/large.json", "agent-history/v1/gemini_golden.json", "agent-sessions/gemini/small.json"]
GEMINI_LINES = ["agent-history/rejections/gemini_with_tool_error.jsonl", "agent-sessions/gemini/jsonl_v040.jsonl"]


# -- input ------------------------------------------------------------------------------------

def _read(relative: str) -> bytes:
    path = DATA / relative
    if not path.is_file():
        raise SystemExit(f"{NAME}: sample missing: {path}")
    return path.read_bytes()


def _replicate(chunks: list[bytes], size: int, fresh: Callable[[bytes, int], bytes]) -> bytes:
    out: list[bytes] = []
    total = copy = 0
    while total < size:
        for chunk in chunks:
            piece = fresh(chunk, copy)
            out.append(piece if piece.endswith(b"\n") else piece + b"\n")
            total += len(out[-1])
        copy += 1
    return b"".join(out)


def _claude_copy(chunk: bytes, copy: int) -> bytes:
    tag = f"c{copy}-".encode()
    return chunk.replace(b'"uuid":"', b'"uuid":"' + tag).replace(b'"parentUuid":"', b'"parentUuid":"' + tag)


def _gemini_messages() -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for relative in GEMINI_DOCUMENTS:
        messages += json.loads(_read(relative))["messages"]
    for relative in GEMINI_LINES:
        for line in _read(relative).splitlines():
            record = json.loads(line)
            if isinstance(record.get("type"), str):
                messages.append(record)
    return messages


def _gemini_inputs(size: int) -> tuple[bytes, bytes]:
    messages = _gemini_messages()
    header = {"sessionId": "bench-gemini", "projectHash": "0" * 64, "startTime": "2025-01-01T00:00:00.000Z",
              "lastUpdated": "2025-01-01T00:00:00.000Z"}
    lines = [orjson.dumps(header)]
    listed: list[dict[str, Any]] = []
    total = copy = 0
    while total < size:
        for message in messages:
            fresh = dict(message, id=f"{message.get('id')}-{copy}")
            listed.append(fresh)
            lines.append(orjson.dumps(fresh))
            total += len(lines[-1]) + 1
        lines.append(orjson.dumps({"$set": {"lastUpdated": "2025-01-01T00:00:01.000Z"}}))
        copy += 1
    document = orjson.dumps(dict(header, messages=listed), option=orjson.OPT_INDENT_2)
    return document, b"\n".join(lines) + b"\n"


def build_inputs(folder: Path, size: int) -> list[tuple[str, str, Path]]:
    """``(label, harness, path)`` for every input file, written under ``folder``."""
    gemini_document, gemini_lines = _gemini_inputs(size)
    contents = [
        ("claude-code", "claude-code", "claude.jsonl", _replicate([_read(r) for r in CLAUDE], size, _claude_copy)),
        ("codex", "codex", "rollout.jsonl", _replicate([_read(r) for r in CODEX], size, lambda c, _n: c)),
        ("gemini-cli json", "gemini-cli", "session.json", gemini_document),
        ("gemini-cli jsonl", "gemini-cli", "session.jsonl", gemini_lines),
    ]
    inputs = []
    for label, harness, name, data in contents:
        path = folder / name
        path.write_bytes(data)
        inputs.append((label, harness, path))
    return inputs


# -- the two paths ----------------------------------------------------------------------------

def baseline(path: Path) -> int:
    """Read the file and decode its JSON: per line, or the whole document when it is one."""
    data = path.read_bytes()
    if path.suffix == ".json":
        orjson.loads(data)
        return 1
    count = 0
    for line in data.split(b"\n"):
        if line.strip():
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError:
                pass
            count += 1
    return count


def time_pass(run: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one call of ``run``."""
    gc.collect()
    started, cpu_started = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - started, time.process_time() - cpu_started


def peak_rss_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def measure(size_mb: float, repeat: int) -> dict[str, Any]:
    size = int(size_mb * 1_000_000)
    results: dict[str, Any] = {"size_mb": size_mb, "repeat": repeat, "inputs": []}
    with tempfile.TemporaryDirectory(prefix="gitstore-bench-") as tmp:
        inputs = build_inputs(Path(tmp), size)
        for label, harness, path in inputs:
            megabytes = path.stat().st_size / 1e6
            tracemalloc.start()  # an untimed pass: warm up, describe, and peak memory of a parse
            transcript = parse_transcript(path, harness)
            parse_peak = tracemalloc.get_traced_memory()[1] / (1024 * 1024)
            tracemalloc.stop()
            parse_passes = []
            base_passes = []
            for _ in range(repeat):  # alternate, so a busy spell on the machine hits both
                parse_passes.append(time_pass(lambda: parse_transcript(path, harness)))
                base_passes.append(time_pass(lambda: baseline(path)))
            results["inputs"].append({
                "label": label,
                "mb": megabytes,
                "records": transcript.counts.total,
                "turns": len(transcript.turns),
                "turns_dropped": transcript.turns_dropped,
                "parse_peak_mib": parse_peak,
                "parse_s": [wall for wall, _ in parse_passes],
                "baseline_s": [wall for wall, _ in base_passes],
                "parse_cpu_s": [cpu for _, cpu in parse_passes],
                "baseline_cpu_s": [cpu for _, cpu in base_passes],
                "parse_mb_s": megabytes / min(wall for wall, _ in parse_passes),
                "baseline_mb_s": megabytes / min(wall for wall, _ in base_passes),
                "parse_cpu_mb_s": megabytes / max(1e-9, min(cpu for _, cpu in parse_passes)),
            })
    rows = results["inputs"]
    total_mb = sum(r["mb"] for r in rows)
    results["overall_mb_s"] = total_mb / sum(min(r["parse_s"]) for r in rows)
    results["overall_cpu_mb_s"] = total_mb / max(1e-9, sum(min(r["parse_cpu_s"]) for r in rows))
    results["baseline_overall_mb_s"] = total_mb / sum(min(r["baseline_s"]) for r in rows)
    results["baseline_overall_cpu_mb_s"] = total_mb / max(1e-9, sum(min(r["baseline_cpu_s"]) for r in rows))
    results["ratio"] = results["overall_mb_s"] / results["baseline_overall_mb_s"]
    results["peak_rss_mib"] = peak_rss_mib()
    return results


def report(r: dict[str, Any]) -> str:
    lines = [f"input: real samples replicated to about {r['size_mb']:g} MB per file; best of {r['repeat']} passes"]
    for row in r["inputs"]:
        lines.append(
            f"  {row['label']:17} {row['mb']:6.1f} MB, {row['records']:7d} records, {row['turns']:6d} turns"
            + (f" (+{row['turns_dropped']} over the cap)" if row["turns_dropped"] else "")
            + f": parse {row['parse_mb_s']:6.1f} MB/s ({row['parse_cpu_mb_s']:.1f} per CPU second),"
            f" baseline {row['baseline_mb_s']:6.1f} MB/s, ratio {row['parse_mb_s'] / row['baseline_mb_s']:.2f},"
            f" parse peak {row['parse_peak_mib']:.0f} MiB"
        )
    lines += [
        f"memory: a parse allocates at most the peak shown (tracemalloc); the process peaked at"
        f" {r['peak_rss_mib']:.0f} MiB RSS, mostly building the inputs",
        f"cpu time (less disturbed by other processes): parse {r['overall_cpu_mb_s']:.1f} MB/s,"
        f" baseline {r['baseline_overall_cpu_mb_s']:.1f} MB/s",
        f"{NAME}: parse {r['overall_mb_s']:.1f} MB/s, baseline (orjson decode only) "
        f"{r['baseline_overall_mb_s']:.1f} MB/s, ratio {r['ratio']:.2f}",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench transcripts", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    parser.add_argument("--quick", action="store_true", help="about 2 MB per harness, one pass")
    parser.add_argument("--size", type=float, help="MB per input file (default 20)")
    parser.add_argument("--repeat", type=int, help="timed passes per path (default 3)")
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    options = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    size = options.size or (2.0 if options.quick else 20.0)
    repeat = options.repeat or (1 if options.quick else 3)
    if size <= 0 or repeat < 1:
        parser.error("--size must be positive and --repeat at least 1")
    if not available():
        print(f"{NAME}: skipped: {MISSING}")
        return 0
    results = measure(size, repeat)
    print(report(results), flush=True)
    if options.json:
        print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
