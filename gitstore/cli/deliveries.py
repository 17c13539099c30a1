"""``gitstore deliveries``: what each agent session was given, and what was captured of it."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore._shown import one_line
from gitstore.cli import json_safe
from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.errors import UsageError
from gitstore.deliver.receipts import deliveries as report


def deliveries(
    session: Optional[str] = typer.Option(None, "--session", help="Only this session id."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Show which learnings each agent session received, with the session's captures."""
    if session is not None and not session.strip():
        raise UsageError("--session names no session (an empty id); leave it out for every session")
    rows = report(session=session)
    if as_json:
        emit_json(rows)
        return
    if not rows:
        typer.echo("no deliveries recorded")
    for row in rows:
        # an id a harness sent may hold half a UTF-16 pair: printed as its escape, as --json writes it;
        # and line breaks, printed as ␤: no id prints a row of its own
        name = one_line(json_safe(row["session"]))
        typer.echo(f"{row['harness']} session {name}: {len(row['learnings'])} learning(s), "
                   f"{len(row['deliveries'])} delivery(ies), {len(row['compactions'])} compaction(s)")
        for given in row["deliveries"]:
            ids = ", ".join(f"{i['id']} ({i['trust']})" for i in given["items"])
            typer.echo(f"  {given['at']} {given['event']} epoch {given['epoch']}: {ids}")
        for capture in row["captures"]:
            typer.echo(f"  captured {capture['capturedAt']} {capture['event']}: {capture['status'] or 'no receipt'}"
                       f"{' ' + capture['episode'] if capture['episode'] else ''}")
        if not row["captures"]:
            typer.echo("  not captured (yet)")


def register(app: typer.Typer) -> None:
    app.command()(deliveries)
