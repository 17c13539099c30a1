"""``gitstore gc``: erase removed text and what killed appends left, and nothing else."""

from __future__ import annotations

import typer

from gitstore.ops.gc import gc as do_gc
from gitstore.context import Context
from gitstore.cli._io import JSON_OPTION, emit_json


def gc(as_json: bool = JSON_OPTION) -> None:
    """Erase removed payloads and what killed appends left (never the user's reflogs or objects)."""
    ctx = Context.open()
    report = do_gc(ctx.store, ctx.workspace.state)
    if as_json:
        emit_json({"payloads": report.payloads, "objects": report.objects})
        return
    typer.echo(f"gc: {report}")


def register(app: typer.Typer) -> None:
    app.command()(gc)
