"""``gitstore tick``: run the background loop's due steps once, under a lock."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.sync.tick import tick as run_tick


def tick(
    steps: Optional[list[str]] = typer.Argument(None, metavar="STEP", help="Run only these configured steps, due or not."),
    force: bool = typer.Option(False, "--force", help="Run every configured step now, due or not."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Run the loop's configured steps that are due (reviews, github, dream, publish, sync), each bounded in time."""
    report = run_tick(".", force=force, only=steps or None)
    if as_json:
        emit_json(report.to_json())
    else:
        for line in report.render():
            typer.echo(line)
    if report.exit_code:
        raise typer.Exit(report.exit_code)


def register(app: typer.Typer) -> None:
    app.command()(tick)
