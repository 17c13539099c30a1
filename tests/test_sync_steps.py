"""The loop's steps: what each needs, where the GitHub import resumes, one JSON line from a child."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from gitstore.records.times import parse_time

from gitstore.sync.steps import STEPS, Call, _since


def test_every_step_names_the_stage_it_needs() -> None:
    assert list(STEPS) == ["reviews", "github", "dream", "publish", "sync"], "the order of the flow"
    assert STEPS["reviews"].available() and STEPS["github"].available() and STEPS["publish"].available()
    for step in STEPS.values():
        assert step.available() == (step.needs in sys.modules or _importable(step.needs))


def _importable(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:
        return False


def test_the_github_import_resumes_an_hour_before_its_last_success(tmp_path: Path) -> None:
    assert _since(Call(tmp_path, {}, None, "2026-03-02T09:00:00.000000Z")) == "2026-03-02T08:00:00.000000Z"
    assert _since(Call(tmp_path, {"since": "2026-01-01"}, None, "2026-03-02T09:00:00.000000Z")) == (
        "2026-01-01T00:00:00.000000Z"), "a configured window wins"
    week = datetime.now(timezone.utc) - parse_time(_since(Call(tmp_path, {}, None, None)))
    assert timedelta(days=7, minutes=-1) <= week < timedelta(days=7, minutes=5), "a first run reads the last week"


def test_a_step_child_answers_one_json_line_even_when_its_stage_fails(tmp_path: Path) -> None:
    request = {"step": "reviews", **Call(tmp_path, {"folder": "inbox"}).to_json()}
    done = subprocess.run([sys.executable, "-m", "gitstore.sync.steps"], input=json.dumps(request), text=True,
                          capture_output=True, cwd=tmp_path)
    assert done.returncode == 0
    answer = json.loads(done.stdout)
    assert answer["status"] == "failed" and "is not inside a git repository" in answer["line"]
