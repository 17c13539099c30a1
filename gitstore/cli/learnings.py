"""``gitstore learnings``: every learning with its standing for a purpose."""

from __future__ import annotations

import typer

from gitstore.cli._io import JSON_OPTION, PURPOSE_OPTION, echo, emit_json_array
from gitstore.cli._learnings import print_rows
from gitstore.context import Context
from gitstore.queries.learnings import learnings as query

ROWS_CHUNK = 256  # rows encoded at a time: a row is hundreds of bytes of JSON, a listed record a few dozen


def learnings(
    active: bool = typer.Option(False, "--active", help="Only learnings in force for the purpose."),
    purpose: str = PURPOSE_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """List learnings with their standing for a purpose (default: instruction)."""
    rows = query(Context.open(), purpose, active=active)
    if as_json:
        emit_json_array((r.to_json() for r in rows), ROWS_CHUNK)
    elif not rows:
        echo(f"no learning is in force for {purpose}" if active else
             "no learnings yet: `gitstore dream` proposes them, a person accepts them (`gitstore proposals`)")
    else:
        print_rows(rows)


def register(app: typer.Typer) -> None:
    app.command()(learnings)
