"""Smoke test of the benchmarks: ``python -m bench contracts --quick`` runs and reports a ratio.

Timings are never asserted: benchmark machines are noisy, and the goal is reported, not enforced.
"""

from __future__ import annotations

import re
import subprocess
import sys

from .conftest import ROOT

RATIO_LINE = re.compile(
    r"^contracts: fast \d+ rec/s, reference \d+ rec/s, ratio \d+(\.\d+)?x \(goal >= 10x\): "
    r"(goal met|GOAL NOT MET)$",
    re.MULTILINE,
)


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_contracts_quick_prints_a_ratio_line() -> None:
    done = bench("contracts", "--quick")
    assert done.returncode == 0, done.stdout + done.stderr
    assert RATIO_LINE.search(done.stdout), done.stdout


def test_runner_lists_benchmarks_and_refuses_unknown_names() -> None:
    listed = bench("--list")
    assert listed.returncode == 0, listed.stderr
    assert "contracts" in listed.stdout.split()
    unknown = bench("no-such-benchmark")
    assert unknown.returncode == 2
    assert "unknown benchmark no-such-benchmark" in unknown.stderr
