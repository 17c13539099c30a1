"""``gitstore status``: what gitstore knows about this repository, without reading any record."""

from __future__ import annotations

import os
from typing import Any

from gitstore.config import (ACCEPT, CONFIG_FILE, CONFIG_NAME, Config, Workspace, damaged_copy, git_ignores, guarded_by,
                             unaccepted)
from gitstore.errors import InvalidInput
from gitstore.providers._names import shown_ref, shown_writer
from gitstore.providers.git import discover_refs
from gitstore.queries.trust import trust
from gitstore.rules import autosafe


# The fields of config.json each section status shows is judged by: a change to them since init
# last took the file runs nothing they name (``config.refuse_unaccepted``) until ``ACCEPT``.
DREAM = ("dream.labeler", "dream.labelers", "dream.consolidator", "dream.consolidators")


def status(workspace: Workspace) -> dict[str, Any]:
    """Scope, writer, provider, memory refs, the state folder, who may decide (the trust mode)
    and the configuration in force. A ref's name and writer are shown escaped and cut
    (``shown_ref``) for text and JSON alike: whoever could push chose them. ``unaccepted``
    lists the fields that choose what runs unasked (``gitstore.ops.setup.GUARDED``) changed
    since init last took config.json (a person's edit, or a patch): they wait for ``ACCEPT``,
    and the sections they lie in show what is in force meanwhile (nothing of theirs runs), never
    the values that wait. ``damagedCopy`` names the copy init took when it cannot be read
    (``config.damaged_copy``): every field then waits."""
    from gitstore.ops.setup import GUARDED

    refs = []
    for info in discover_refs(workspace.repo):
        target = info.repo.references[info.name].target
        where = "repository" if info.repo.path == workspace.repo.path else ".git/gitstore/local"
        refs.append({"ref": shown_ref(info.name), "namespace": info.namespace,  # names whoever could push chose
                     "writer": shown_writer(info.writer), "tip": str(target), "in": where})
    config = workspace.config
    moved = _moved_origin(workspace)
    waiting = unaccepted(workspace.repo, workspace.state / CONFIG_NAME, GUARDED)
    return {
        "root": str(workspace.root),
        "scope": workspace.scope,
        "movedOrigin": moved,
        "writer": config.writer,
        "provider": config.provider,
        "state": os.path.relpath(workspace.state, workspace.root),
        "stateIgnored": git_ignores(workspace.root, workspace.state),
        "refs": refs,
        "trust": trust(workspace).to_json(),
        "unaccepted": waiting,
        "damagedCopy": str(damaged) if (damaged := damaged_copy(workspace.repo)) is not None else None,
        "config": {
            "writer": {"value": config.writer, "from": CONFIG_FILE},
            "provider": {"value": config.provider, "from": CONFIG_FILE},
            "capture": _capture(config, _within(waiting, ("capture",))),
            "automation": _automation(config, _within(waiting, ("automation",))),
            "dream": _dream(config, _within(waiting, DREAM)),
        },
        "loop": _loop(workspace, _within(waiting, ("loop",))),
    }


def _moved_origin(workspace: Workspace) -> dict[str, str] | None:
    """Origin a path where its repository is no longer (moved or deleted), whose scope cannot be
    read: what it is and the command that points it at where the repository is now (the scope
    shown is the one kept, that memory goes on under; ``scope.scope_kept_gone``). Said here, so
    the warning every other command ends with is not said twice."""
    from gitstore import notices
    from gitstore.config import GONE_NOTE
    from gitstore.scope import scope_kept_gone

    gone = scope_kept_gone(workspace.repo)[2]
    if gone is None:
        return None
    notices.forget(GONE_NOTE)
    return {"problem": f"{gone.about}: memory goes on under scope {workspace.scope}, the one this clone's memory "
                       "was set up under, and `gitstore sync` cannot reach origin", "todo": gone.todo}


def _within(waiting: list[str], fields: tuple[str, ...]) -> list[str]:
    return [name for name in waiting if guarded_by(name, fields)]


def waits(fields: list[str], meanwhile: str) -> str:
    """Why a section is not in force: its ``fields`` wait for ``ACCEPT``, and what runs ``meanwhile``."""
    return (f"{', '.join(fields)} changed since this clone's `gitstore init` last took {CONFIG_FILE}, and "
            f"{'wait' if len(fields) > 1 else 'waits'} for `{ACCEPT}`; until then {meanwhile}")


def _capture(config: Config, waiting: list[str]) -> dict[str, Any]:
    """The capture mode a hook captures in, or none while a change to it waits (a hook's
    capture is refused: ``config.capture_mode``; ``--mode`` still chooses one)."""
    given = CONFIG_FILE if "capture" in config.to_json() else "default"
    if waiting:
        return {"value": None, "from": given, "problem": waits(waiting, "a hook's capture is refused (`gitstore "
                                                                      "capture --mode` still captures)")}
    return {"value": config.capture_mode, "from": given, "problem": None}


def _automation(config: Config, waiting: list[str]) -> dict[str, Any]:
    """The automation in force: off while a change to it waits (``ops.learning._automation``)."""
    if waiting:
        return autosafe.Automation(source=CONFIG_FILE, problems=(waits(waiting, "nothing is accepted automatically"),)
                                   ).to_json()
    return autosafe.settings(config).to_json()


def _loop(workspace: Workspace, waiting: list[str]) -> dict[str, Any]:
    from gitstore.sync.tick import loop_status, running

    if waiting:  # a tick refuses to run any step (``tick.tick``)
        return {"problem": waits(waiting, "a tick runs no step"), "steps": [], "running": running(workspace)}
    return loop_status(workspace)


def _dream(config: Config, waiting: list[str]) -> dict[str, Any]:
    """The dream settings in effect, or why they cannot be read, or what waits (a dream
    refuses to run: ``dream.run.dream``)."""
    from gitstore.dream.settings import settings

    if waiting:
        return {"problem": waits(waiting, "a dream refuses to run")}
    try:
        return {**settings(config).to_json(), "problem": None}
    except InvalidInput as exc:
        return {"problem": str(exc)}


__all__ = ["status"]
