"""``gitstore grants``: the grants and what each still permits."""

from __future__ import annotations

import typer

from gitstore._shown import one_line
from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.context import Context
from gitstore.queries.grants import grants as query


def grants(
    in_force: bool = typer.Option(False, "--in-force", help="Only grants that still permit some purpose."),
    as_json: bool = JSON_OPTION,
) -> None:
    """List the grants, the purposes each still permits, and their withdrawals."""
    found = query(Context.open(), in_force=in_force)
    if as_json:
        emit_json([g.to_json() for g in found])
        return
    if not found:
        echo("no grants: no evidence may serve any purpose yet (`gitstore grant --help` says how to give one)")
    for shown in found:
        grant = shown.grant
        until = grant["until"] or "open"
        allowed = ", ".join(shown.in_force) or "nothing (all withdrawn)"
        echo(f"{grant['digest']}")
        echo(f"  permits {allowed} for {', '.join(grant['sources'])} evidence written {grant['from']} .. {until}")
        echo(f"  granted by {grant['by']} at {grant['at']}" + (f": {one_line(grant['note'])}" if grant["note"] else ""))
        for withdrawal in shown.withdrawals:
            why = f": {one_line(withdrawal['reason'])}" if withdrawal["reason"] else ""
            echo(f"  withdrawn {', '.join(withdrawal['purposes'])} by {withdrawal['by']} at {withdrawal['at']}{why}")


def register(app: typer.Typer) -> None:
    app.command()(grants)
