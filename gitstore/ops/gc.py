"""Housekeeping: garbage collection so removed payloads leave the object database."""

from __future__ import annotations

import os
import subprocess
from contextlib import nullcontext
from typing import cast

from gitstore.config import Workspace
from gitstore.errors import IntegrityError
from gitstore.providers import CollectingProvider, PausingProvider
from gitstore.store import Store


def _git(workspace: Workspace, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k.startswith("GIT_CONFIG")}
    done = subprocess.run(["git", *args], cwd=workspace.root, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise IntegrityError(f"git {' '.join(args)} failed: {done.stderr.strip().splitlines()[-1:]}")


def gc(workspace: Workspace, store: Store) -> str:
    """Expire every reflog now and prune unreachable objects (and what killed appends left);
    vacuum other providers. This clone's appends wait meanwhile: an object it is writing is
    unreachable until its append commits, and pruning it then would tear the append."""
    capabilities = store.manifest.capabilities
    pausing = "pause-writes" in capabilities
    with cast(PausingProvider, store.provider).paused() if pausing else nullcontext():
        _git(workspace, "reflog", "expire", "--expire=now", "--expire-unreachable=now", "--all")
        _git(workspace, "gc", "--prune=now", "--quiet")
    if "gc" in capabilities:
        cast(CollectingProvider, store.provider).gc()
    return "gc: reflogs expired, unreachable objects pruned"
