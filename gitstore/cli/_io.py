"""Input and output helpers shared by commands."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

import typer

from gitstore.errors import InvalidInput


def read_input(path: str) -> bytes:
    """The bytes of FILE, or of standard input for ``-``."""
    with open_input(path) as source:
        return source.read()


@contextmanager
def open_input(path: str) -> Iterator[BinaryIO]:
    """FILE (or standard input for ``-``) opened for reading bytes."""
    if path == "-":
        yield sys.stdin.buffer
        return
    try:
        source = open(path, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        raise InvalidInput(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InvalidInput(f"{path}: is a directory") from None
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read ({exc.strerror})") from None
    with source:
        yield source


def read_lines(source: BinaryIO, block: int = 1 << 20) -> Iterator[bytes]:
    """The lines of ``source`` without their ``\\n``, read a block at a time (several times
    faster than a file's own line iterator); a last line without its newline counts too."""
    rest: list[bytes] = []  # the start of a line that began in an earlier block
    while data := source.read(block):
        if b"\n" not in data:
            rest.append(data)
            continue
        lines = data.split(b"\n")
        if rest:
            rest.append(lines[0])
            lines[0] = b"".join(rest)
        rest = [lines.pop()]
        yield from lines
    if rest and rest != [b""]:
        yield b"".join(rest)


def emit_json(value: Any) -> None:
    """Print machine-readable output."""
    typer.echo(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True))


JSON_OPTION = typer.Option(False, "--json", help="Print machine-readable JSON.")
