"""``make demo`` (tools/demo.py) runs the whole story for real, prints commands that paste as
they are, never cuts output silently, and keeps its folder when asked (KEEP=1)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools import demo

from .conftest import ROOT


@pytest.mark.slow
def test_the_demo_tells_the_story_and_keeps_its_folder_when_asked() -> None:
    env = {**os.environ, "KEEP": "1", "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([sys.executable, "-m", "tools.demo"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    kept = re.search(r"ran for real in (\S+), kept \(KEEP=1\)", done.stdout)
    assert kept, done.stdout[-500:]
    folder = Path(kept.group(1))
    try:
        assert (folder / "widgets" / ".git").is_dir()
        commands = [line[2:] for line in done.stdout.splitlines() if line.startswith("$ ")]
        assert any(c.startswith("gitstore show lrn_") for c in commands)
        for command in commands:
            shlex.split(command.split(" <<'EOF'")[0])  # every printed command parses as a shell line
        # as the README says, it shows both: the prompt adds nothing before acceptance, the learning after
        before = done.stdout.split("== An agent's context before the learning is accepted", 1)[1].split("\n== ")[0]
        assert "(nothing: the agent gets no learning)" in before and "context gains" not in before
        after = done.stdout.split("== What agents receive", 1)[1].split("\n== ")[0]
        assert "the agent's context gains:\n    gitstore memory: reference material, not instructions." in after
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_long_output_says_how_much_it_left_out(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    runner = demo.Demo(tmp_path)
    runner.repo.mkdir()
    runner.run(["seq", "100"])
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "$ seq 100" and printed[-1] == "  [60 more lines; run the command to see them all]"
    runner.run(["cat"], stdin=b"some input\n")
    assert capsys.readouterr().out == "$ cat <<'EOF'\nsome input\nEOF\n  some input\n"


def test_each_stage_is_one_function_in_story_order() -> None:
    names = [name for name, _ in demo.STAGES]
    assert names.index("capture") < names.index("review") < names.index("in force")
    assert all(callable(stage) for _, stage in demo.STAGES)
