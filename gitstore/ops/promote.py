"""Promote an accepted learning: verify it, store its packet with the audit entry, land its route.

Everything that can fail is checked before anything is written: the packet's checks, the
branch being free, the overlay file being free. Then the packet and its audit entry are stored
in one append, and the route lands: a commit on ``memory/promote/<id>`` (direct edit, skill), a
page of the local overlay, or a staged brief under ``okf/.memory/staged/<id>/``. Pushing and
opening a pull request come last and only report what they did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygit2

from gitstore.config import ensure_ignored
from gitstore.errors import Refused
from gitstore.context import Context
from gitstore.records.times import now
from gitstore.promote import branch as branches
from gitstore.promote import pr
from gitstore.promote.packet import Plan, branch_for, plan, staged_files
from gitstore.promote.routes import overlay, staged
from gitstore.promote.rubric import route_name
from gitstore.promote.snapshot import head_snapshot
from gitstore.queries._views import in_force_view


@dataclass
class Promotion:
    """What a promotion did."""

    packet: dict[str, Any]
    branch: str | None = None
    commit: str | None = None
    written: list[str] = field(default_factory=list)  # local files written (overlay page, brief)
    push: pr.Outcome | None = None
    pull_request: pr.Outcome | None = None


def promote(ctx: Context, learning_id: str, by: str, *, route: str | None = None, push: bool = False,
            pull_request: bool = False, remote: str = "origin") -> Promotion:
    """Promote ``learning_id`` by the rubric's route (or a stricter ``route``)."""
    repo = ctx.workspace.repo
    snapshot = head_snapshot(repo)
    requested = route_name(route) if route is not None else None
    result = plan(in_force_view(ctx.store)[0], snapshot, learning_id, requested, now())
    commit = _prepare(ctx, result, snapshot) if result.commits else None
    local = _local_files(ctx, result)
    ctx.write([result.packet], "promote", by, [learning_id, result.packet["digest"]])
    outcome = Promotion(result.packet)
    if commit is not None:
        outcome.branch = branch_for(learning_id)
        branches.create_branch(repo, outcome.branch, commit)
        outcome.commit = str(commit)
    if result.route == "overlay":
        ensure_ignored(repo, ctx.workspace.root, ctx.workspace.root / overlay.FOLDER)
    for path, text in local.items():
        _write(path, text)
        outcome.written.append(path.relative_to(ctx.workspace.root).as_posix())
    if push or pull_request:
        _publish(ctx, result, outcome, remote, pull_request, _current_branch(repo))
    return outcome


def _prepare(ctx: Context, result: Plan, snapshot: Any) -> pygit2.Oid:
    branch = branch_for(result.learning["id"])
    found = branches.existing(ctx.workspace.repo, branch)
    if found is not None:
        raise Refused(f"branch {branch} already exists (at {str(found.id)[:12]}): the learning was promoted; "
                      "delete the branch to promote it again")
    blocking = branches.in_the_way(ctx.workspace.repo, branch)
    if blocking is not None:
        raise Refused(f"cannot create branch {branch}: the ref {blocking} is in the way")
    text = branches.message(result.packet, result.learning["content"]["title"])
    return branches.build_commit(snapshot, result.files, text)


def _local_files(ctx: Context, result: Plan) -> dict[Path, str]:
    """The files a route writes on this machine, checked before anything is written."""
    root = ctx.workspace.root
    if result.route == "overlay":
        path = root / result.packet["target"]
        if path.exists():
            raise Refused(f"{result.packet['target']} already exists; remove it to promote the learning again")
        return {path: result.files[result.packet["target"]]}
    if result.route == "staged-update":
        folder = ctx.workspace.state / staged.FOLDER / result.learning["id"]
        return {folder / name: text for name, text in staged_files(result).items()}
    return {}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def _current_branch(repo: pygit2.Repository) -> str | None:
    return None if repo.head_is_detached or repo.head_is_unborn else repo.head.shorthand


def _publish(ctx: Context, result: Plan, outcome: Promotion, remote: str, pull_request: bool,
             base: str | None) -> None:
    if outcome.branch is None:
        nothing = pr.Outcome(False, f"nothing to push: route {result.route} commits nothing")
        outcome.push = nothing
        outcome.pull_request = nothing if pull_request else None
        return
    outcome.push = pr.push(ctx.workspace.root, outcome.branch, remote)
    if not pull_request:
        return
    if not outcome.push.done:
        outcome.pull_request = pr.Outcome(False, "no pull request: the branch was not pushed")
        return
    title = f"Promote: {' '.join(result.learning['content']['title'].split())}"
    outcome.pull_request = pr.open_pull_request(ctx.workspace.root, outcome.branch, base, title,
                                                pr.body(result.packet, result.learning))
