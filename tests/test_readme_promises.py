"""Promises of the README that belong to no one module: how the test suite itself behaves on a
machine without the third-party material."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT


def test_without_the_third_party_material_its_tests_skip_for_that_one_reason_and_the_rest_run(tmp_path: Path) -> None:
    absent = tmp_path / "absent"
    env = {**os.environ, "GITSTORE_TESTDATA": str(absent)}
    # a file that asks for the material as tests are collected (shared_params) and as they run (shared)
    # its own --basetemp: a run given none makes the next numbered folder under the user's and
    # removes all but the last three of them, which may be another run's gigabytes (a minute here)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                           "--basetemp", str(tmp_path / "inner"), "tests/test_reviews.py"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    reasons = {line.split(": ", 1)[1] for line in done.stdout.splitlines() if line.startswith("SKIPPED")}
    assert reasons == {f"third-party test material not found in {absent} "
                       "(set GITSTORE_TESTDATA to its folder to run these tests)"}, reasons
    assert re.search(r"\b[1-9]\d* passed, [1-9]\d* skipped in ", done.stdout), done.stdout[-500:]


def test_the_virtual_environment_the_make_targets_create_is_never_committed() -> None:
    """``make test`` and ``make demo`` create ``.venv/`` and use it when it is there: a committed
    one (a folder, or a link to another checkout's) would make a fresh clone use what it names.
    It is ignored as a folder and as a link, and the repository holds none."""
    if not (ROOT / ".git").exists():
        return  # a copy of the tree, not a clone: nothing is tracked
    tracked = subprocess.run(["git", "ls-files", "--", ".venv", ".venv/*"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout
    assert tracked == ""
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "-q", ".venv"], cwd=ROOT)
    assert ignored.returncode == 0
