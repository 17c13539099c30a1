"""The gitstore command line: parse, call one library function, render.

Every command lives in its own module and is registered here. ``main`` is the only place
errors become exit codes: 0 ok, 1 refused or invalid input, 2 usage, 3 integrity failure.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer

from .._version import __version__
from ..errors import GitstoreError
from . import (
    audit, canonical, capture, consent, digest, export, gc, hooks, init, learnings, purge, records, redact,
    scan, status, validate, verify,
)

app = typer.Typer(
    name="gitstore",
    help="A git-native memory for coding agents and the people who review them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gitstore {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """A git-native memory for coding agents and the people who review them."""


for _module in (init, status, hooks, capture, scan, consent, learnings, export, redact, audit, purge,
                records, verify, gc, canonical, digest, validate):
    _module.register(app)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code instead of raising."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        app(args=args, prog_name="gitstore", standalone_mode=True)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except GitstoreError as exc:
        typer.echo(f"gitstore: error: {exc}", err=True)
        return exc.exit_code
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the disk filled, a file vanished: say so; nothing half-written shows
        where = f" ({exc.filename})" if exc.filename else ""
        typer.echo(f"gitstore: error: {exc.strerror or exc}{where}", err=True)
        return 1
    return 0


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
