"""Promote an accepted learning: verify it, store its packet with the audit entry, land its route.

Everything that can fail is checked before anything is written: the packet's checks, the
branch being free, the overlay file being free. Then the packet and its audit entry are stored
in one append, and the route lands: a commit on ``memory/promote/<id>`` (direct edit, skill), a
page of the local overlay, or a staged brief under ``okf/.memory/staged/<id>/``. Pushing and
opening a pull request come last and only report what they did; the branch is pushed only after
this clone's memory, which holds the packet its commit names (``share``).

A note (``ops.unfinished``) stands from before the packet's append until the command ends, so
a promotion killed between its steps is named by ``gitstore doctor``. Run again, it finds its
packet stored and, when the packet it plans again on the same base at the same time is that
one, lands it without storing it twice: it creates the branch (or finds it made, its commit
naming the packet), writes the files, pushes. Anything else (the learning changed since, a
route that differs) is a promotion of its own.

A promotion made without ``--push`` is shared later by the same command with ``--push`` (or
``--pr``): when the branch's commit names a packet of the learning the store holds, on that
packet's base, and promote plans that packet again, the memory and then the branch are pushed
as they are, nothing stored or committed again. A branch holding anything else is refused.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygit2

from gitstore._files import first_link, replace_file
from gitstore.config import ensure_ignored, git_ignores, unignoring_rule
from gitstore.errors import ConflictError, Refused
from gitstore.context import Context
from gitstore.ops import unfinished
from gitstore.records.times import now
from gitstore.promote import branch as branches
from gitstore.promote import pr
from gitstore.promote.packet import Plan, plan, staged_files
from gitstore.promote.routes import overlay, staged
from gitstore.promote.rubric import route_name
from gitstore.promote.snapshot import Snapshot, head_snapshot
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
    earlier: bool = False  # promoted by an earlier run, its branch only shared now
    warnings: dict[str, str] = field(default_factory=dict)  # check -> what it warns of (it passed)
    next: str | None = None  # what would let the next promotion edit the wiki (see ``wiki_setup``)


Share = Callable[[Context, str, str], pr.Outcome]  # (ctx, branch, remote): memory shared before the branch


def promote(ctx: Context, learning_id: str, by: str, *, route: str | None = None, push: bool = False,
            pull_request: bool = False, remote: str = "origin", share: Share | None = None) -> Promotion:
    """Promote ``learning_id`` by the rubric's route (or a stricter ``route``); one killed after
    its packet was stored is finished. ``share`` (``gitstore promote`` passes sync's) pushes
    this clone's memory, which holds the packet the branch's commit names, before the branch
    goes: the branch goes only when it did."""
    repo = ctx.workspace.repo
    requested = route_name(route) if route is not None else None
    resumed = _resumed(ctx, learning_id, requested)
    earlier = _made(ctx, learning_id, requested) if resumed is None and (push or pull_request) else None
    if earlier is not None:  # promoted before without --push: share that promotion, as it is
        return _share(ctx, *earlier, remote, pull_request, share)
    head: str | None = None
    if resumed is not None:
        result, snapshot = resumed
    else:
        snapshot = head_snapshot(repo)
        view = in_force_view(ctx.store)[0]
        result = plan(view, snapshot, learning_id, requested, now())
        head = view.head(learning_id)
    commit, made = (_prepare(ctx, result, snapshot, resumed is not None, push or pull_request) if result.commits
                    else (None, False))
    local = _local_files(ctx, result, resumed is not None)
    if result.route == "overlay":  # a rule un-ignoring the overlay stops it before the packet is stored
        ensure_ignored(repo, ctx.workspace.root, ctx.workspace.root / overlay.FOLDER)
    if resumed is None:
        with unfinished.noting(ctx.workspace.state, _note(result, route, push, pull_request)):
            _store_packet(ctx, result, by, head)
            _still_in_force(ctx, result, requested)
    outcome = Promotion(result.packet, warnings=result.warnings, next=wiki_setup(ctx.workspace.root, result))
    if commit is not None:
        outcome.branch = branches.branch_for(learning_id)
        if not made:
            branches.create_branch(repo, outcome.branch, commit)
        outcome.commit = str(commit)
    for path, text in local.items():
        if not path.is_file() or path.read_bytes() != text.encode("utf-8"):
            _write(path, text)
        outcome.written.append(path.relative_to(ctx.workspace.root).as_posix())
    if push or pull_request:
        _publish(ctx, result, outcome, remote, pull_request, _current_branch(repo), share)
    unfinished.finish(ctx.workspace.state, _note_name(learning_id))
    return outcome


def _store_packet(ctx: Context, result: Plan, by: str, head: str | None) -> None:
    """Store the packet with its audit entry, by compare-and-swap on the learning's stream,
    whose last record was ``head`` when the packet was planned: a retirement, replacement or
    edit stored since (another command, run meanwhile) refuses it, and nothing lands."""
    learning_id = result.learning["id"]
    try:
        ctx.write([result.packet], "promote", by, [learning_id, result.packet["digest"]], if_head=(learning_id, head))
    except ConflictError:
        raise Refused(f"{learning_id} changed while it was being promoted (retired, replaced or edited meanwhile); "
                      f"see `gitstore show {learning_id}`, and promote it again if it is still in force") from None


def _still_in_force(ctx: Context, result: Plan, requested: str | None) -> None:
    """Plan the stored packet again, now that it is stored: a withdrawal of the consent the
    learning stands on (or anything else that takes it out of force without a version of its
    own, which the compare-and-swap sees) stored while it was planned refuses the promotion
    before its route lands. The packet stays stored, landing nowhere: the promotion gate
    refuses any commit naming a learning not in force."""
    learning_id = result.learning["id"]
    try:
        _planned_again(ctx, result.packet, learning_id, requested)
    except Refused as exc:
        why = str(exc).removesuffix("; nothing was written")  # the packet was
        raise Refused(f"{learning_id} was taken out of force while it was being promoted ({why}); its packet "
                      f"{result.packet['digest']} is stored and lands nowhere") from None


def wiki_setup(root: Path, result: Plan) -> str | None:
    """What to do so that a learning staged for want of a wiki can be a direct edit: start the
    wiki, give it a page, commit it (promote routes through the wiki at HEAD, never the work
    tree). None when the wiki was no reason, or the learning is not the wiki's."""
    routing = result.routing
    if result.route != "staged-update" or routing is None or routing.missing is None:
        return None
    if result.learning["memory"] != "semantic" or result.learning["audience"] != "project":
        return None
    from gitstore.ops.wiki import NEXT_PAGES
    from gitstore.promote.routing import NO_INDEX, WIKI

    index = f"{WIKI}/index.md"
    if routing.missing == NO_INDEX and (root / index).is_file():
        return f"{index} is in the work tree but not in HEAD, which promote routes through: commit {WIKI}/, then promote again"
    if routing.missing == NO_INDEX:
        return (f"this repository has no wiki for promote to edit: run `gitstore wiki init`, then {NEXT_PAGES}; "
                f"run `gitstore wiki index`, commit {WIKI}/ and promote again")
    return (f"{index} lists no page promote may edit: {NEXT_PAGES}; run `gitstore wiki index`, commit {WIKI}/ "
            "and promote again")


def _note_name(learning_id: str) -> str:
    return f"promote-{learning_id}"


def _note(result: Plan, route: str | None, push: bool, pull_request: bool) -> unfinished.Note:
    learning_id = result.learning["id"]
    command = " ".join(["gitstore promote", learning_id, *(["--route", shlex.quote(route)] if route else []),
                        *(["--push"] if push else []), *(["--pr"] if pull_request else [])])
    return unfinished.Note(_note_name(learning_id), f"promoting {learning_id} was stopped midway: its packet "
                           f"{result.packet['digest']} may be stored without its {_landing(result)}", command,
                           data={"packet": result.packet})


def _landing(result: Plan) -> str:
    if result.commits:
        return f"branch {branches.branch_for(result.learning['id'])}"
    return "overlay page" if result.route == "overlay" else "staged brief"


def _resumed(ctx: Context, learning_id: str, requested: str | None) -> tuple[Plan, Snapshot] | None:
    """The plan of a promotion of ``learning_id`` killed after its packet was stored, and the
    snapshot of its base: the packet planned again on that base at that time, when it is the
    stored one. A plan that stops now (the learning changed since) ends the note: that
    promotion cannot be finished."""
    note = unfinished.read(ctx.workspace.state, _note_name(learning_id))
    packet = note.data.get("packet") if note is not None else None
    if not isinstance(packet, dict) or not isinstance(packet.get("digest"), str):
        return None
    if not any(item.digest == packet["digest"] for item in ctx.store.stream("packets")):
        return None  # killed before its append: nothing of it stands
    try:
        return _planned_again(ctx, packet, learning_id, requested)
    except Refused:
        unfinished.finish(ctx.workspace.state, _note_name(learning_id))
        raise


def _planned_again(ctx: Context, packet: dict[str, Any], learning_id: str,
                   requested: str | None) -> tuple[Plan, Snapshot] | None:
    """The plan of ``learning_id`` on the base of a stored ``packet`` at its time, and the
    snapshot of that base, when that plan is the packet; None when it differs or the base is
    gone. Raises ``Refused`` when the learning can no longer be promoted."""
    try:
        snapshot = Snapshot(ctx.workspace.repo, ctx.workspace.repo[packet["base"]].peel(pygit2.Commit))
    except (KeyError, ValueError, TypeError, pygit2.GitError):
        return None
    result = plan(in_force_view(ctx.store)[0], snapshot, learning_id, requested, packet["at"])
    return (result, snapshot) if result.packet["digest"] == packet["digest"] else None


def _made(ctx: Context, learning_id: str, requested: str | None) -> tuple[Plan, pygit2.Commit] | None:
    """The promotion of ``learning_id`` its branch already holds, to share: the branch's commit
    names a packet of this learning the store holds, and promote plans that packet again on its
    base at its time (the learning still accepted and in force, the route the one asked for or,
    when none is, the packet's). None for no branch, or one holding anything else, which
    ``_prepare`` refuses."""
    found = branches.existing(ctx.workspace.repo, branches.branch_for(learning_id))
    named = [value for _, value in branches.trailers(found.message).get("Gitstore-Packet", [])] if found else []
    if found is None or len(named) != 1:
        return None
    packet = next((item.record for item in ctx.store.stream("packets") if item.digest == named[0]), None)
    if packet is None or packet.get("learning") != learning_id:
        return None
    if [str(parent) for parent in found.parent_ids] != [packet.get("base")]:
        return None
    again = _planned_again(ctx, packet, learning_id, requested or packet.get("route"))
    return (again[0], found) if again is not None else None


def _share(ctx: Context, result: Plan, commit: pygit2.Commit, remote: str, pull_request: bool,
           share: Share | None) -> Promotion:
    """Share a promotion made before: its memory, then its branch (and a pull request), with
    nothing stored or committed again."""
    outcome = Promotion(result.packet, branches.branch_for(result.learning["id"]), str(commit.id), earlier=True,
                        warnings=result.warnings)
    _publish(ctx, result, outcome, remote, pull_request, _current_branch(ctx.workspace.repo), share)
    return outcome


def _prepare(ctx: Context, result: Plan, snapshot: Any, resumed: bool, sharing: bool) -> tuple[pygit2.Oid, bool]:
    """The promotion's commit, and whether its branch points at it already (a promotion run
    again after a kill that came after the branch). ``sharing``: the run asked to push, so a
    branch that exists holds no promotion it could share (``_made``)."""
    branch = branches.branch_for(result.learning["id"])
    found = branches.existing(ctx.workspace.repo, branch)
    if found is not None and resumed and _names_packet(found, result.packet["digest"]):
        return found.id, True
    if found is not None:
        shares = ("its commit is no promotion of the learning as promote plans it now (another packet, or none)"
                  if sharing else
                  f"`gitstore promote {result.learning['id']} --push` shares a promotion promote made there")
        raise Refused(f"branch {branch} already exists (at {str(found.id)[:12]}): the learning was promoted; "
                      f"{shares}; delete the branch to promote it again")
    blocking = branches.in_the_way(ctx.workspace.repo, branch)
    if blocking is not None:
        raise Refused(f"cannot create branch {branch}: the ref {blocking} is in the way")
    text = branches.message(result.packet, result.name, result.warnings)
    return branches.build_commit(snapshot, result.files, text), False


def _names_packet(commit: pygit2.Commit, digest: str) -> bool:
    return [value for _, value in branches.trailers(commit.message).get("Gitstore-Packet", [])] == [digest]


def _local_files(ctx: Context, result: Plan, resumed: bool) -> dict[Path, str]:
    """The files a route writes on this machine, checked before anything is written (a
    promotion run again after a kill finds its own overlay page as it wrote it)."""
    root = ctx.workspace.root
    files = _route_files(ctx, result)
    if result.route == "staged-update" and not git_ignores(root, ctx.workspace.state):
        # as a capture refuses to write there: the brief holds the learning's evidence, a
        # personal session's words too, which would go into the next ``git add -A``
        rule = unignoring_rule(root, ctx.workspace.state)
        fix = f"{rule} un-ignores it: remove that line" if rule else "make git ignore it"
        raise Refused(f"{ctx.workspace.state.relative_to(root).as_posix()}/ is not ignored by git, so the staged brief "
                      f"(the statement and its evidence) would go into the next `git add -A`; {fix} (`gitstore "
                      "doctor` says how), then promote again; nothing was written")
    for path, text in files.items():
        _no_link(root, path, _landing(result))
        if result.route == "overlay" and path.exists() and not (
                resumed and path.is_file() and path.read_bytes() == text.encode("utf-8")):
            raise Refused(f"{result.packet['target']} already exists; remove it to promote the learning again")
    return files


def _route_files(ctx: Context, result: Plan) -> dict[Path, str]:
    """The files the route writes on this machine, by path, and their text."""
    if result.route == "overlay":
        return {ctx.workspace.root / result.packet["target"]: result.files[result.packet["target"]]}
    if result.route == "staged-update":
        folder = ctx.workspace.state / staged.FOLDER / result.learning["id"]
        return {folder / name: text for name, text in staged_files(result).items()}
    return {}


def _no_link(root: Path, path: Path, what: str) -> None:
    """Refuse a file promote writes, or a folder on its way, that is a symbolic link: a commit
    can put one in the overlay or the state folder, and a write through it would land among the
    sources (which git would then be told to ignore) or in a file elsewhere."""
    link = first_link(root, path.relative_to(root).as_posix())
    if link is not None:
        raise Refused(f"{link.relative_to(root).as_posix()} is a link (to {os.readlink(link)}); promote writes "
                      f"the {what} into the work tree's own folders, never through a link: make it a file (or "
                      "folder) of its own; nothing was written")


def _write(path: Path, text: str) -> None:
    """Write a file promote checked (no link on its way) under a name of this process's own,
    then rename it into place: a fixed temporary name could be a link a commit put there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, text)


def _current_branch(repo: pygit2.Repository) -> str | None:
    return None if repo.head_is_detached or repo.head_is_unborn else repo.head.shorthand


def _publish(ctx: Context, result: Plan, outcome: Promotion, remote: str, pull_request: bool,
             base: str | None, share: Share | None) -> None:
    if outcome.branch is None:
        nothing = pr.Outcome(False, f"nothing to push: route {result.route} commits nothing")
        outcome.push = nothing
        outcome.pull_request = nothing if pull_request else None
        return
    shared = share(ctx, outcome.branch, remote) if share is not None else None
    outcome.push = pr.push(ctx.workspace.root, outcome.branch, remote, shared) \
        if shared is None or shared.done else shared
    if not pull_request:
        return
    if not outcome.push.done:
        outcome.pull_request = pr.Outcome(False, "no pull request: the branch was not pushed")
        return
    outcome.pull_request = pr.open_pull_request(ctx.workspace.root, outcome.branch, base, pr.title(result.name),
                                                pr.body(result.packet, result.learning, result.warnings, result.name))
