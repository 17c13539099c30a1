"""Purge: remove this clone's local memory (refs and state). High friction: the person types
the repository's name. Nothing is pushed; other clones keep their copies."""

from __future__ import annotations

import shutil

import pygit2

from gitstore.config import Workspace
from gitstore.errors import Refused
from gitstore.providers._gitdirs import common_dir
from gitstore.providers.git import PREFIX

MEMORY = PREFIX.rsplit("/", 2)[0] + "/"  # refs/memory/: the store's refs and those sync keeps aside


def purge_names(workspace: Workspace) -> tuple[str, ...]:
    """The answers accepted as confirmation: the scope, or its owner/name."""
    parts = workspace.scope.split("/")
    return (workspace.scope, "/".join(parts[-2:]))


def purge(workspace: Workspace, typed: str) -> dict[str, object]:
    """Delete every memory ref and the local state folder, if ``typed`` names the repository."""
    if typed.strip() not in purge_names(workspace):
        raise Refused(f"purge not confirmed: type the repository name ({purge_names(workspace)[1]}) exactly")
    repo: pygit2.Repository = workspace.repo
    refs = [name for name in repo.references if name.startswith(MEMORY)]  # sync's held refs with them
    for name in refs:
        repo.references.delete(name)
    internal = common_dir(repo) / "gitstore"  # the local namespace's repository with it
    if internal.exists():
        shutil.rmtree(internal)
    state_removed = workspace.state.exists()
    if state_removed:
        shutil.rmtree(workspace.state)
    return {"refsRemoved": len(refs), "stateRemoved": state_removed, "state": str(workspace.state)}
