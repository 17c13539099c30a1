"""``gitstore proposals``: what waits for a person."""

from __future__ import annotations

import typer

from gitstore.cli._io import JSON_OPTION, echo, emit_json
from gitstore.cli._learnings import print_rows
from gitstore.context import Context
from gitstore.queries.learnings import proposals as query


def proposals(as_json: bool = JSON_OPTION) -> None:
    """List proposals waiting for a person."""
    rows = query(Context.open())
    if as_json:
        emit_json([r.to_json() for r in rows])
    elif not rows:
        echo("no proposals wait for a person: `gitstore dream` proposes learnings from evidence that recurs,"
             " `gitstore propose` takes one by hand")
    else:
        print_rows(rows)


def register(app: typer.Typer) -> None:
    app.command()(proposals)
