"""``gitstore gc``: expire reflogs and prune, so unreachable payloads are gone."""

from __future__ import annotations

import typer

from gitstore.ops.gc import gc as do_gc
from gitstore.context import Context


def gc() -> None:
    """Expire reflogs and prune unreachable objects (redacted text leaves the object database)."""
    ctx = Context.open()
    workspace, store = ctx.workspace, ctx.store
    typer.echo(do_gc(workspace, store))


def register(app: typer.Typer) -> None:
    app.command()(gc)
