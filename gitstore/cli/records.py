"""``gitstore records``: add, list and show raw records."""

from __future__ import annotations

from typing import Any, Optional

import typer

from .._canonical import parse_json
from ..contracts import KINDS, seal
from ..errors import InvalidInput, UsageError
from ._context import open_store
from ._io import JSON_OPTION, emit_json, read_input

records_app = typer.Typer(help="Add, list and show records.", no_args_is_help=True)


def _parse_lines(data: bytes, name: str, do_seal: bool) -> list[dict[str, Any]]:
    records = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = parse_json(line, allow_floats=False)
        except InvalidInput as exc:
            raise InvalidInput(f"{name}:{number}: {exc}") from None
        if not isinstance(value, dict):
            raise InvalidInput(f"{name}:{number}: a record must be a JSON object")
        if do_seal:
            value.pop("digest", None)
            try:
                seal(value)
            except InvalidInput as exc:
                raise InvalidInput(f"{name}:{number}: {exc}") from None
        records.append(value)
    if not records:
        raise InvalidInput(f"{name}: no records")
    return records


@records_app.command("add")
def add(
    file: str = typer.Argument("-", help="JSON Lines file of records, or - for standard input."),
    do_seal: bool = typer.Option(False, "--seal", help="Compute each record's digests first."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Add records as one atomic append; print each digest."""
    _, store = open_store()
    records = _parse_lines(read_input(file), file, do_seal)
    result = store.append(records)
    if as_json:
        emit_json({"added": list(result.added), "existing": list(result.existing)})
        return
    added = set(result.added)
    for record in records:
        typer.echo(f"{record['digest']} {'added' if record['digest'] in added else 'exists'}")


@records_app.command("list")
def list_(
    kind: Optional[str] = typer.Option(None, "--kind", help=f"Only this kind ({', '.join(KINDS)})."),
    as_json: bool = JSON_OPTION,
) -> None:
    """List stored records in store order."""
    if kind is not None and kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r} (one of {', '.join(KINDS)})")
    _, store = open_store()
    items = store.items([kind] if kind else None)
    if as_json:
        emit_json([{"digest": i.digest, "kind": i.kind, "stream": i.stored.stream,
                    "namespace": i.stored.namespace, "writer": i.stored.writer,
                    "clock": i.stored.clock, "position": i.stored.position} for i in items])
        return
    for item in items:
        typer.echo(f"{item.digest} {item.kind:<10} {item.stored.namespace:<6} {item.stored.stream}")


@records_app.command("show")
def show(
    digest: str = typer.Argument(..., help="A record digest (or a prefix of at least 8 hex digits)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Show one record (with its payload, unless redacted)."""
    hexpart = digest.removeprefix("sha256:")
    if len(hexpart) < 8 or any(c not in "0123456789abcdef" for c in hexpart):
        raise UsageError(f"{digest!r} is not a digest or a prefix of at least 8 hex digits")
    _, store = open_store()
    item = store.get(digest)
    if item is None:
        raise InvalidInput(f"no record {digest} in this repository")
    emit_json(item.record) if as_json else typer.echo(_pretty(item.record))


def _pretty(record: dict[str, Any]) -> str:
    import json

    return json.dumps(record, indent=2, ensure_ascii=False)


def register(app: typer.Typer) -> None:
    app.add_typer(records_app, name="records")
