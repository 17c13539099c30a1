"""``gitstore mcp``: a read-only MCP server (tools recall and show) on standard input and output."""

from __future__ import annotations

import os
import sys
from typing import NoReturn

import typer

from gitstore.deliver.mcp import serve


def mcp() -> None:
    """Serve recall and show over MCP on standard input and output (read-only; needs gitstore[mcp])."""
    try:
        serve()
    except KeyboardInterrupt:
        _interrupted()


def _interrupted() -> NoReturn:
    """Ctrl-C ends the server now. The SDK writes standard output from worker threads of its own,
    which the interpreter waits for at exit, and an interrupted run can leave one waiting for
    work that never comes: every answer is already written, so nothing is left to wait for."""
    sys.stderr.write("gitstore: error: interrupted\n")
    sys.stderr.flush()
    os._exit(130)


def register(app: typer.Typer) -> None:
    app.command()(mcp)
