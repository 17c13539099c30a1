"""``gitstore grant`` and ``gitstore withdraw``: consent, decided at read time."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.ops import consent as ops
from gitstore.ops._context import Context
from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._people import BY_OPTION, actor


def grant(
    purpose: list[str] = typer.Option(..., "--purpose", help="review, instruction, evaluation, analytics, training, publication (repeat)."),
    source: list[str] = typer.Option(["review-thread"], "--source", help="review-thread, agent-session, manual (repeat)."),
    start: str = typer.Option("1970-01-01T00:00:00.000000Z", "--from", help="Covers evidence written from this time."),
    until: Optional[str] = typer.Option(None, "--until", help="Covers evidence written until this time (default: open)."),
    note: Optional[str] = typer.Option(None, "--note", help="Why."),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Grant: evidence from these sources, written in this range, may serve these purposes."""
    ctx = Context.open()
    record = ops.grant(ctx, actor(ctx, by), purpose, source, start, until, note)
    emit_json(record) if as_json else typer.echo(f"granted {record['digest']}")


def withdraw(
    grant_digest: str = typer.Argument(..., help="The grant's digest (or a unique prefix)."),
    purpose: Optional[list[str]] = typer.Option(None, "--purpose", help="Withdraw only these purposes (repeat)."),
    reason: Optional[str] = typer.Option(None, "--reason", help="Why."),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Withdraw a grant at once; lists the exports it had allowed."""
    ctx = Context.open()
    record = ops.withdraw(ctx, actor(ctx, by), grant_digest, purpose or None, reason)
    if as_json:
        emit_json(record)
        return
    typer.echo(f"withdrew {', '.join(record['purposes'])} from {record['grant']}")
    for export in record["exports"]:
        typer.echo(f"  export {export} had copied evidence under it")


def register(app: typer.Typer) -> None:
    app.command()(grant)
    app.command()(withdraw)
