"""``gitstore scope``: this repository's scope and the former ones its default branch declares
(show), and declaring one (formerly) after a rename or move."""

from __future__ import annotations

import typer

from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._values import checked, filled, scope_name
from gitstore.config import Workspace

scope_app = typer.Typer(help="This repository's scope: show it and the former scopes declared; declare one after a "
                             "rename or move (formerly).", no_args_is_help=True)


@scope_app.command("show")
def show(as_json: bool = JSON_OPTION) -> None:
    """Show this repository's scope, where it comes from, and the former scopes the default branch declares."""
    from gitstore.ops.scope import branch_name, show as report
    from gitstore.scope import FORMER_FILE

    found = report(Workspace.find("."))
    if as_json:
        emit_json(found.to_json())
        return
    typer.echo(f"scope     {found.scope}" + (f" (origin {found.origin})" if found.origin else " (no origin)"))
    where = f"{FORMER_FILE} on {branch_name(found.branch)}" if found.branch else "no default branch to read them from"
    if found.problem:
        typer.echo(f"formerly  none read: {found.problem}")
    elif found.stale:  # the file names this clone's own scope: origin names the repository as it was
        own = [old for old in found.declared if old not in found.formerly]
        meaning = ("this clone's own scope, which the repository had before: origin names the repository as it "
                   "was, so what the team stores under its current scope is not read here (see the warning below)")
        if found.formerly:
            meaning = f"{', '.join(own)} is {meaning}; what was stored under {', '.join(found.formerly)} is read here"
        typer.echo(f"formerly  {', '.join(found.declared)} ({where}): {meaning}")
    else:
        typer.echo(f"formerly  {', '.join(found.formerly) or 'none declared'} ({where})")
    if found.stale:
        typer.echo(f"  warning: {found.stale}")
    if found.pending:
        typer.echo(f"  {FORMER_FILE} in the work tree differs from the default branch's: it counts once merged there")


@scope_app.command("formerly")
def formerly(old: str = typer.Argument(..., metavar="OLD_SCOPE",
                                       help="The scope this repository had (host/owner/name), or its remote URL then.",
                                       callback=checked(filled, scope_name)),
             as_json: bool = JSON_OPTION) -> None:
    """Declare a scope this repository had before a rename or move, in .gitstore/scope.json; it counts once committed and merged into the default branch."""
    from gitstore.ops.scope import declare
    from gitstore.scope import FORMER_FILE

    change = declare(Workspace.find("."), old)
    if as_json:
        emit_json(change.to_json())
        return
    if change.written:
        typer.echo(f"wrote {FORMER_FILE}: {change.scope} was formerly {', '.join(change.named)}")
    else:
        typer.echo(f"{FORMER_FILE} names {change.formerly} already: nothing written")
    typer.echo(f"next: {change.next}")


def register(app: typer.Typer) -> None:
    app.add_typer(scope_app, name="scope")
