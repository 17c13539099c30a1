"""``gitstore status``: what gitstore knows about this repository, without reading any record."""

from __future__ import annotations

import os
from typing import Any

from gitstore.config import CONFIG_FILE, Config, Workspace, git_ignores
from gitstore.errors import InvalidInput
from gitstore.providers._names import shown_ref, shown_writer
from gitstore.providers.git import discover_refs
from gitstore.queries.trust import trust
from gitstore.rules import autosafe


def status(workspace: Workspace) -> dict[str, Any]:
    """Scope, writer, provider, memory refs, the state folder, who may decide (the trust mode)
    and the effective configuration. A ref's name and writer are shown escaped and cut
    (``shown_ref``) for text and JSON alike: whoever could push chose them."""
    refs = []
    for info in discover_refs(workspace.repo):
        target = info.repo.references[info.name].target
        where = "repository" if info.repo.path == workspace.repo.path else ".git/gitstore/local"
        refs.append({"ref": shown_ref(info.name), "namespace": info.namespace,  # names whoever could push chose
                     "writer": shown_writer(info.writer), "tip": str(target), "in": where})
    config = workspace.config
    return {
        "root": str(workspace.root),
        "scope": workspace.scope,
        "writer": config.writer,
        "provider": config.provider,
        "state": os.path.relpath(workspace.state, workspace.root),
        "stateIgnored": git_ignores(workspace.root, workspace.state),
        "refs": refs,
        "trust": trust(workspace).to_json(),
        "config": {
            "writer": {"value": config.writer, "from": CONFIG_FILE},
            "provider": {"value": config.provider, "from": CONFIG_FILE},
            "capture": {"value": config.capture_mode,
                        "from": CONFIG_FILE if "capture" in config.to_json() else "default"},
            "automation": autosafe.settings(config).to_json(),
            "dream": _dream(config),
        },
        "loop": _loop(workspace),
    }


def _loop(workspace: Workspace) -> dict[str, Any]:
    from gitstore.sync.tick import loop_status

    return loop_status(workspace)


def _dream(config: Config) -> dict[str, Any]:
    """The dream settings in effect, or why they cannot be read."""
    from gitstore.dream.settings import settings

    try:
        return {**settings(config).to_json(), "problem": None}
    except InvalidInput as exc:
        return {"problem": str(exc)}


__all__ = ["status"]
