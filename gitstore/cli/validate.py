"""``gitstore validate``: check record files against the v1 contracts."""

from __future__ import annotations

from typing import Any

import typer

from gitstore._shown import one_line
from gitstore.records.contracts import validate_lines, validate_text
from gitstore.errors import GitstoreError
from gitstore.cli._io import JSON_OPTION, emit_json, open_input, read_input, read_lines
from gitstore.cli._values import checked, path


def validate(
    files: list[str] = typer.Argument(..., metavar="FILE", help="Record files (.json, or .jsonl with one per line).", callback=checked(path)),
    as_json: bool = JSON_OPTION,
    reference: bool = typer.Option(
        False, "--reference", help="Use the reference validator (jsonschema) instead of the compiled one."
    ),
) -> None:
    """Check records against their contracts: schema, version, I-JSON and digests."""
    report: list[dict[str, Any]] = []
    for name in files:
        try:
            report.extend({"file": name, **r} for r in _validate(name, reference))
        except GitstoreError as exc:
            report.append({"file": name, "line": None, "ok": False, "error": str(exc)})
    if as_json:
        emit_json({"ok": all(r["ok"] for r in report), "records": report})
    else:
        for r in report:  # one line each, whatever line breaks a file's name holds (as ␤)
            where = r["file"] if r["line"] is None else f"{r['file']}:{r['line']}"
            if r["ok"]:
                typer.echo(one_line(f"ok {where} {r['kind']} {r['digest']}"))
            else:
                typer.echo(one_line(f"invalid {where}: {r['error']}"))
    if not all(r["ok"] for r in report):
        raise typer.Exit(1)


def _validate(name: str, reference: bool) -> list[dict[str, Any]]:
    if not name.endswith(".jsonl"):
        return validate_text(read_input(name), name, reference=reference)
    with open_input(name) as source:  # JSON Lines: one record in memory at a time
        return validate_lines(read_lines(source, name), name, reference=reference)


def register(app: typer.Typer) -> None:
    app.command()(validate)
