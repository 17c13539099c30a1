"""``gitstore gc``: erase removed text and what killed appends left, and nothing else."""

from __future__ import annotations

import typer

from gitstore.ops.gc import collect
from gitstore.context import Context
from gitstore.cli._io import JSON_OPTION, emit_json


def gc(as_json: bool = JSON_OPTION) -> None:
    """Erase removed payloads and what killed appends left (never the user's reflogs or objects).

    Text memory removed is also taken out of the GitHub snapshots and export files saved here,
    and the dream reports that cite it are dropped. What this clone stored of a comment redacted
    before the redaction reached it (a later version, a label) is removed first, as redact does."""
    report, applied, dropped, followed = collect(Context.open())
    if as_json:
        emit_json({"payloads": report.payloads, "objects": report.objects, "alternates": report.alternates,
                   **applied.to_json(),
                   "dreamReportsDropped": dropped, "laterVersionsRemoved": followed})
        return
    for line in followed:
        typer.echo(line)
    typer.echo(f"gc: {report}")
    for line in applied.lines("the next gc or sync tries again"):
        typer.echo(line)
    for path in dropped:
        typer.echo(f"dropped the dream report {path}: it cites text memory removed")


def register(app: typer.Typer) -> None:
    app.command()(gc)
