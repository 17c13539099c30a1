"""``gitstore verify``: check every record and every ref; exit 3 on damage."""

from __future__ import annotations

import typer

from gitstore.context import Context
from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.queries.verify import verify as check


def verify(as_json: bool = JSON_OPTION) -> None:
    """Check every record and ref (layout, order, bytes, contracts, digests), then decisions and namespaces."""
    report = check(Context.open().store)
    if as_json:
        emit_json(report.to_json())
    else:
        for problem in report.problems:
            typer.echo(f"damaged: {problem}", err=True)
        for notice in report.notices:
            typer.echo(f"not counted: {notice}", err=True)
        state = "ok" if report.ok else f"{len(report.problems)} problem(s)"
        if report.notices:
            state += f"; {len(report.notices)} record(s) not counted (intact, but they carry no authority here)"
        typer.echo(f"verify: {report.records} records, {report.refs} refs: {state}")
    if not report.ok:
        raise typer.Exit(3)


def register(app: typer.Typer) -> None:
    app.command()(verify)
