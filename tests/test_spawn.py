"""``gitstore._spawn``: a program started without ``subprocess`` gives its exit code and output,
reads nothing and writes no error where the caller sees it, and a missing one fails at once."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from gitstore._spawn import spawn


def test_the_answer_is_the_exit_code_and_what_the_program_printed() -> None:
    program = "import sys; print(sys.stdin.read() == ''); sys.stderr.write('hidden'); sys.exit(3)"
    answer = spawn([sys.executable, "-c", program], os.environ)
    assert answer() == (3, b"True\n")


def test_the_environment_given_is_the_programs_own() -> None:
    answer = spawn([sys.executable, "-c", "import os; print(os.environ.get('ONLY_HERE'), os.environ.get('HOME'))"],
                   {"ONLY_HERE": "yes", "PATH": os.environ.get("PATH", "")})
    assert answer() == (0, b"yes None\n")


def test_a_program_that_is_not_there_fails_at_once_and_leaves_no_descriptor_open() -> None:
    before = set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    with pytest.raises(OSError):
        spawn(["gitstore-no-such-program"], os.environ)
    if before is not None:
        assert set(os.listdir("/proc/self/fd")) <= before


def test_git_is_asked_whether_it_ignores_a_path_as_before(tmp_path: Path) -> None:
    import subprocess

    from gitstore.config import git_ignores

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("ignored/\n")
    (tmp_path / "ignored").mkdir()
    (tmp_path / "kept").mkdir()
    assert git_ignores(tmp_path, tmp_path / "ignored")
    assert not git_ignores(tmp_path, tmp_path / "kept")
    assert not git_ignores(tmp_path, tmp_path / "missing")
