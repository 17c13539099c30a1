"""The store's acceptance under load, on the default git provider: 10,000 appends from 8
processes, and 200 appends killed with SIGKILL at random moments. Real processes, real git."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from gitstore.conformance import KILL_BATCH, _killed_child, _run_children
from gitstore.providers.git import GitProvider


class _Git:
    def make(self, location: Path, writer: str = "w1") -> GitProvider:
        repo = location / "repo"
        if not (repo / ".git").exists():
            subprocess.run(["git", "init", "-q", str(repo)], check=True)
        return GitProvider(repo, writer)


@pytest.mark.slow
def test_ten_thousand_appends_from_eight_processes(tmp_path: Path) -> None:
    suite = _Git()
    suite.make(tmp_path)
    acked = _run_children(suite, tmp_path, 8, 1250)  # type: ignore[arg-type]
    assert len(acked) == 8 * 1250
    provider = suite.make(tmp_path)
    digests = [s.digest for s in provider.read()]
    assert len(digests) == len(set(digests)) == len(acked)
    assert set(digests) == set(acked)
    clocks = [s.clock for s in provider.read()]
    assert clocks == sorted(clocks) and len(set(clocks)) == 8 * 1250
    report = provider.verify()
    assert report.ok, [str(p) for p in report.problems[:5]]
    done = subprocess.run(["git", "fsck", "--strict"], cwd=tmp_path / "repo", capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_two_hundred_appends_killed_at_random_moments(tmp_path: Path) -> None:
    suite = _Git()
    suite.make(tmp_path)
    rng = random.Random(20261129)
    acked: list[str] = []
    for round_ in range(200):
        acked.extend(_killed_child(suite, tmp_path, round_, rng.uniform(0.0, 0.04)))  # type: ignore[arg-type]
    provider = suite.make(tmp_path)
    stored = list(provider.read())
    assert set(acked) <= {s.digest for s in stored}, "an acknowledged append was lost"
    per_batch: dict[str, int] = {}
    for s in stored:
        per_batch[s.stream] = per_batch.get(s.stream, 0) + 1
    assert all(count == KILL_BATCH for count in per_batch.values()), "a torn batch is visible"
    report = provider.verify()
    assert report.ok, [str(p) for p in report.problems[:5]]
