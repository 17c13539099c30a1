"""``gitstore promote``: verify an accepted learning and land it by its route."""

from __future__ import annotations

from typing import Any, Optional

import typer

from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._people import BY_OPTION, actor
from gitstore.cli._values import checked, learning_argument
from gitstore.context import Context
from gitstore.errors import GitstoreError, Incomplete
from gitstore.ops.promote import Promotion, promote as run_promote
from gitstore.promote.pr import Outcome

_ROUTES = "0 (overlay), 1 (direct-edit), 2 (staged-update) or procedural (skill)"


def share_memory(ctx: Context, branch: str, remote: str) -> Outcome:
    """Push this clone's shared memory to ``remote`` as ``gitstore sync`` does (fetching and
    verifying what others pushed first): the promotion commit names its packet, and a pull
    request's gates read that packet from the remote's store. So the branch goes out only
    after its packet did; when the packet cannot, the outcome says why and what to run."""
    from gitstore.sync.remote import sync

    try:
        report = sync(str(ctx.workspace.root), remote)
    except GitstoreError as exc:
        return _not_shared(branch, remote, str(exc))
    if report.not_pushed:
        return _not_shared(branch, remote, "; ".join(report.not_pushed))
    return Outcome(True, report.line)


def _not_shared(branch: str, remote: str, why: str) -> Outcome:
    return Outcome(False, f"{branch} not pushed: the packet its commit names could not be shared with {remote} "
                          f"({' '.join(why.split())[:300]}), and a pull request's gates read it there; run "
                          f"`gitstore sync {remote}`, then `git push {remote} {branch}`")


def _report(result: Promotion) -> dict[str, Any]:
    packet = result.packet
    return {
        "learning": packet["learning"], "route": packet["route"], "rubric": packet["rubric"],
        "target": packet["target"], "packet": packet["digest"], "base": packet["base"],
        "branch": result.branch, "commit": result.commit, "earlier": result.earlier, "written": result.written,
        "checks": [c["name"] for c in packet["checks"]], "warnings": result.warnings, "next": result.next,
        "push": None if result.push is None else {"done": result.push.done, "message": result.push.message},
        "pullRequest": None if result.pull_request is None else {
            "done": result.pull_request.done, "message": result.pull_request.message, "url": result.pull_request.url},
    }


def _print(report: dict[str, Any]) -> None:
    typer.echo(f"{'promoted earlier:' if report['earlier'] else 'promoted'} {report['learning']} by route "
               f"{report['route']}"
               + ("" if report["route"] == report["rubric"]["route"] else f" (the rubric chose {report['rubric']['route']})"))
    for reason in report["rubric"]["reasons"]:
        typer.echo(f"  rubric: {reason}")
    passed = [name for name in report["checks"] if name not in report["warnings"]]
    typer.echo(f"  checks passed: {', '.join(passed)}")
    for name, what in report["warnings"].items():
        typer.echo(f"  check warned: {name}: {what}")
    typer.echo(f"  packet {report['packet']}")
    if report["branch"]:
        typer.echo(f"  branch {report['branch']}: one commit {report['commit'][:12]} onto {report['base'][:12]}, "
                   f"changing {report['target']}")
    for path in report["written"]:
        typer.echo(f"  wrote {path} (local, not committed)")
    if report["next"]:
        typer.echo(f"  next: {report['next']}")
    for key, label in (("push", "push"), ("pullRequest", "pull request")):
        if report[key] is not None:
            typer.echo(f"  {label}: {report[key]['message']}")
    if report["branch"] and report["push"] is None:  # the packet goes before the branch: the gates read it
        typer.echo(f"  review it: git show {report['branch']}; share it: gitstore promote {report['learning']} --push, "
                   f"or gitstore sync origin && git push origin {report['branch']}")


def _route(value: str) -> str | None:
    from gitstore.promote.rubric import NUMBERS, ROUTES

    return None if NUMBERS.get(value, value) in ROUTES else f"unknown route {value!r}: one of {_ROUTES}"


def promote(
    learning_id: str = learning_argument("The accepted learning to promote."),
    route: Optional[str] = typer.Option(None, "--route", help=f"A stricter route than the rubric's: {_ROUTES}.",
                                        callback=checked(_route)),
    push: bool = typer.Option(False, "--push", help="Sync memory with origin (the packet the commit names), then "
                              "push the promotion branch (one promoted earlier without --push too)."),
    pr: bool = typer.Option(False, "--pr", help="Push, then open a pull request with the GitHub CLI (gh)."),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Promote an accepted learning into the wiki or skills, as one reviewable commit on its own branch.

    Exit 1 when a push or pull request asked for was not made (the promotion stands). With no
    okf/wiki/index.md at HEAD (or one listing no page) a wiki learning is only a staged brief:
    a next: line says how to start the wiki (gitstore wiki init).
    """
    ctx = Context.open()
    result = run_promote(ctx, learning_id, actor(ctx, by), route=route, push=push, pull_request=pr,
                         share=share_memory)
    report = _report(result)
    emit_json(report) if as_json else _print(report)
    missed = _not_done(report)
    if missed is not None:  # a script must not take the promotion for shared
        raise Incomplete(missed)


def _not_done(report: dict[str, Any]) -> str | None:
    """What the command was asked to do and did not: the push's sentence, else the pull
    request's (each says what to run). None when all was done, or when the route commits
    nothing (an overlay page has no branch to push)."""
    if report["branch"] is None:
        return None
    for key in ("push", "pullRequest"):
        if report[key] is not None and not report[key]["done"]:
            return str(report[key]["message"])
    return None


def register(app: typer.Typer) -> None:
    app.command()(promote)
