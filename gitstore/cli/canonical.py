"""``gitstore canonical``: print RFC 8785 canonical bytes."""

from __future__ import annotations

import sys

import typer

from gitstore.records.canonical import canonicalize, parse_json
from gitstore.cli._io import about, read_input
from gitstore.cli._values import checked, path


def canonical(
    file: str = typer.Argument("-", metavar="FILE", help="A JSON file, or - for standard input.", callback=checked(path)),
) -> None:
    """Print the RFC 8785 canonical form of one JSON text (no trailing newline)."""
    given = read_input(file)
    with about(file):
        data = canonicalize(parse_json(given))
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def register(app: typer.Typer) -> None:
    app.command()(canonical)
