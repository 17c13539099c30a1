"""``gitstore export``: copy memory for one purpose into the git-ignored local folder."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.cli._complete import words
from gitstore.records.vocabulary import PURPOSES
from gitstore.context import Context
from gitstore.ops.export import export as do_export
from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._people import BY_OPTION, actor
from gitstore.cli._values import checked, one_of


def export(
    purpose: str = typer.Option(..., "--purpose", metavar="PURPOSE", autocompletion=words(PURPOSES), help="The purpose the export serves.",
                                 callback=checked(one_of("purpose", PURPOSES))),
    with_evidence: bool = typer.Option(False, "--with-evidence", help="Also copy the cited events."),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Export learnings in force for a purpose; records every item and the grants behind it."""
    ctx = Context.open()
    records, path = do_export(ctx, purpose, actor(ctx, by), with_evidence=with_evidence)
    if as_json:
        emit_json({"exports": records, "file": str(path)})
        return
    typer.echo(f"exported {sum(len(r['items']) for r in records.values())} item(s) for {purpose} to {path}")
    for side, record in records.items():
        kept = " (kept on this machine: it lists this machine's own memory)" if side == "local" else ""
        typer.echo(f"  recorded as {record['digest']}{kept}")


def register(app: typer.Typer) -> None:
    app.command()(export)
