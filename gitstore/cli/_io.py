"""Input and output helpers shared by commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from ..errors import InvalidInput


def read_input(path: str) -> bytes:
    """The bytes of FILE, or of standard input for ``-``."""
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise InvalidInput(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InvalidInput(f"{path}: is a directory") from None
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read ({exc.strerror})") from None


def emit_json(value: Any) -> None:
    """Print machine-readable output."""
    typer.echo(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True))


JSON_OPTION = typer.Option(False, "--json", help="Print machine-readable JSON.")
