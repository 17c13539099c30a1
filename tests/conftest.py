"""Shared fixtures: paths to contracts and third-party test material, real git repositories."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = ROOT / ".memory-schema" / "v1"
SHARED = ROOT.parent / "shared" / "testdata"

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Person",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test Person",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def shared(*parts: str) -> Path:
    """A path under ../shared/testdata, skipping the test only if the material is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"third-party test material missing: {path}")
    return path


@pytest.fixture(autouse=True)
def _pinned_git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in list(os.environ):
        if key.startswith("GIT_") and key not in GIT_ENV:
            monkeypatch.delenv(key)


def git(cwd: Path, *args: str) -> str:
    """Run real git in cwd and return its output."""
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fresh git repository with one commit and an origin remote."""
    path = tmp_path / "widgets"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "remote", "add", "origin", "https://token:secret@github.com/acme/widgets.git")
    (path / "README.md").write_text("# widgets\n")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "initial")
    return path


def all_objects(root: Path) -> bytes:
    """The content of every object in a work tree's repository and in its local namespace's own
    repository (``.git/gitstore/local``), packed ones decompressed."""
    found = []
    for git_dir in (root / ".git", root / ".git" / "gitstore" / "local"):
        if (git_dir / "HEAD").exists():
            found.append(subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "--batch-all-objects", "--batch"],
                                        capture_output=True, check=True).stdout)
    return b"".join(found)
