"""The conformance suite against the git provider, in real repositories; git fsck after each."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitstore.conformance import ProviderConformance
from gitstore.providers.git import GitProvider


class TestGitConformance(ProviderConformance):
    def make(self, location: Path, writer: str = "w1") -> GitProvider:
        repo = location / "repo"
        if not (repo / ".git").exists():
            subprocess.run(["git", "init", "-q", str(repo)], check=True)
        return GitProvider(repo, writer)

    @pytest.fixture(autouse=True)
    def _fsck_after(self, location: Path) -> Iterator[None]:
        yield
        repo = location / "repo"
        if (repo / ".git").exists():
            done = subprocess.run(["git", "fsck", "--strict", "--no-dangling"], cwd=repo,
                                  capture_output=True, text=True)
            assert done.returncode == 0, done.stdout + done.stderr
