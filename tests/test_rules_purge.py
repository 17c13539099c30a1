"""Purge: high friction, removes this clone's memory refs and state only."""

from __future__ import annotations

import subprocess
from pathlib import Path

from .cli import gitstore
from .world import Thread, grant_all, ready_repo


def test_purge_needs_the_repository_name(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    Thread(ctx, 1, "1").save()
    root = ctx.workspace.root
    run = lambda *a, stdin=None: gitstore(*a, cwd=root, stdin=stdin)  # noqa: E731
    assert run("purge").returncode == 2  # no terminal: asks for --confirm
    wrong = run("purge", "--confirm", "acme/other")
    assert wrong.returncode == 1 and "not confirmed" in wrong.stderr
    assert subprocess.run(["git", "for-each-ref", "refs/memory/"], cwd=root, capture_output=True, text=True).stdout
    done = run("purge", "--confirm", "acme/widgets")
    assert done.returncode == 0, done.stderr
    assert subprocess.run(["git", "for-each-ref", "refs/memory/"], cwd=root, capture_output=True, text=True).stdout == ""
    assert not (root / "okf" / ".memory").exists()
    assert subprocess.run(["git", "fsck"], cwd=root, capture_output=True).returncode == 0
