"""``gitstore publish``: accepted project learnings into AGENTS.md's managed section (and
CLAUDE.md's, Copilot's instructions') and the continual-learning index; ``--rollback`` undoes
the last publish."""

from __future__ import annotations

import typer

from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._published import settle_taken_out
from gitstore.context import Context
from gitstore.deliver.publish import Result, publish as do_publish, rollback as do_rollback
from gitstore.errors import Refused, UsageError


def _show(result: Result, as_json: bool) -> None:
    if as_json:
        emit_json(result.to_json())
    else:
        typer.echo(f"{result.status}: {result.reason}")
        for entry in result.files:
            typer.echo(f"  {entry['action'].replace('-', ' '):<9} {entry['path']}")
        if result.snapshot:
            typer.echo(f"  prior state saved in {result.snapshot} (`gitstore publish --rollback` restores it)")
        for why in result.left_out.get("not published", []):
            typer.echo(f"  not published: {why}")
    for warning in result.warnings:
        typer.echo(f"WARNING: {warning}", err=True)


def publish(
    claude: bool = typer.Option(False, "--claude", help="Also write CLAUDE.md (written anyway when it exists)."),
    copilot: bool = typer.Option(False, "--copilot",
                                 help="Also write .github/copilot-instructions.md (written anyway when it exists)."),
    rollback: bool = typer.Option(False, "--rollback", help="Restore the files of the last publish, byte for byte."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would change; write nothing."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Write accepted project learnings into AGENTS.md's managed section and the continual-learning index."""
    if rollback and (claude or copilot):  # a rollback restores what the last publish wrote, whatever it was
        raise UsageError(f"--rollback restores the files of the last publish; {'--claude' if claude else '--copilot'} "
                         "chooses what a publish writes: give one or the other")
    if rollback:
        restored = do_rollback(dry_run=dry_run)
        if as_json:
            emit_json({"status": "dry-run" if dry_run else "rolled-back", "files": restored})
        else:
            for entry in restored:
                typer.echo(f"{entry['action'].replace('-', ' ')} {entry['path']}")
        return
    result = do_publish(claude=claude, copilot=copilot, dry_run=dry_run)
    if result.status == "blocked":
        raise Refused(result.reason)
    _show(result, as_json)
    if result.conflicts:  # a publish that left something unpublished did not succeed
        raise Refused(f"conflict: {'; '.join(result.conflicts)}")
    if not dry_run:
        settle_taken_out(Context.open(), as_json)


def register(app: typer.Typer) -> None:
    app.command()(publish)
