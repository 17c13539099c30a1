"""JSON nested too deeply to read (``[`` 100,000 times) in a file a commit can supply, or on a
hook's input: one line naming the file and an exit code, never a traceback (the standard
library's parser recurses once per level and raises ``RecursionError``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from . import cli
from .conftest import git

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def root(repo: Path) -> Path:
    cli.ok("init", cwd=repo)
    return repo


@pytest.mark.parametrize(("path", "argv", "named"), [
    (".gitstore/policy.json", ("status",), "policy.json"),
    (".gitstore/policy.json", ("policy", "show"), "policy.json"),
    (".continual-learning/index.json", ("publish", "--dry-run"), "index.json"),
    ("okf/.memory/config.json", ("status",), "config.json"),
    (".claude/settings.local.json", ("hooks", "install", "--harness", "claude-code"), "settings.local.json"),
    (".claude/settings.json", ("hooks", "status"), "settings.json"),
    (".gemini/settings.json", ("hooks", "status"), "settings.json"),
])
def test_a_file_nested_too_deeply_is_named_in_one_line(root: Path, path: str, argv: tuple[str, ...],
                                                        named: str) -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(DEEP)
    if path.startswith(".gitstore"):
        (root / ".gitstore" / "allowed_signers").write_text("")
        git(root, "add", "-A", ".gitstore")
        git(root, "commit", "-q", "-m", "policy")
    done = cli.gitstore(*argv, cwd=root)
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr, done.stderr[-2000:]
    if done.returncode:
        assert named in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    else:
        assert named in done.stdout + done.stderr, (done.stdout, done.stderr)


def test_a_hook_input_nested_too_deeply_is_refused_in_one_line(root: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "gitstore", "capture", "--harness", "claude-code"], cwd=root,
                          input=DEEP, capture_output=True, text=True)
    assert done.returncode == 1 and done.stderr.strip() == "gitstore: error: hook input on standard input is not JSON"


DEEP_TOML = "a = " + "[" * 600 + "]" * 600 + "\n"  # Python's TOML reader recurses once or twice per level


@pytest.mark.parametrize("argv", [("hooks", "install", "--harness", "codex"), ("hooks", "uninstall", "--harness", "codex"),
                                  ("hooks", "status"), ("doctor",)])
def test_a_codex_config_nested_too_deeply_is_named_not_a_traceback(root: Path, argv: tuple[str, ...]) -> None:
    """A commit can supply .codex/config.toml; one nested a few hundred levels deep is not
    valid TOML to gitstore, named like any other, and left untouched."""
    config = root / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(DEEP_TOML)
    done = cli.gitstore(*argv, cwd=root)
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr, done.stderr[-2000:]
    assert "nested too deeply to read" in done.stdout + done.stderr, (done.stdout, done.stderr)
    assert len(done.stderr.strip().splitlines()) <= 1, done.stderr
    assert config.read_text() == DEEP_TOML


@pytest.mark.parametrize("argv", [("status",), ("learnings",), ("init",), ("init", "--accept-changes")])
def test_a_kept_copy_of_the_config_nested_too_deeply_is_taken_for_damaged(root: Path, argv: tuple[str, ...]) -> None:
    """The copy of okf/.memory/config.json that init keeps in .git/gitstore/ is compared with
    the file on every command: one nested too deeply to read (damage) raised RecursionError
    in each of them; it is read as the damaged copy it is."""
    (root / ".git" / "gitstore" / "config.json").write_text(DEEP)
    done = cli.gitstore(*argv, cwd=root)
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr, done.stderr[-2000:]
    assert len(done.stderr.strip().splitlines()) <= 1, done.stderr
