"""``gitstore digest``: validate a record and print its digest."""

from __future__ import annotations

import typer

from gitstore.records.contracts import digest_of, load_record
from gitstore.cli._io import about, read_input
from gitstore.cli._values import checked, path


def digest(
    file: str = typer.Argument("-", metavar="FILE", help="A record file, or - for standard input.", callback=checked(path)),
) -> None:
    """Validate one record and print its sha256: digest per its kind's rules."""
    data = read_input(file)
    with about(file):
        found = digest_of(load_record(data))
    typer.echo(found)


def register(app: typer.Typer) -> None:
    app.command()(digest)
