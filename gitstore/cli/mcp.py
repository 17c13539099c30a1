"""``gitstore mcp``: a read-only MCP server (tools recall and show) on standard input and output."""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

import typer

from gitstore.deliver.mcp import serve


def mcp() -> None:
    """Serve recall and show over MCP on standard input and output (read-only; needs gitstore[mcp])."""
    signal.signal(signal.SIGINT, _interrupted)
    serve()


def _interrupted(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C ends the server at once. Left to the event loop, it only cancels the main task,
    which the SDK's tasks can take for a cancellation of their own and go on serving (until
    input ends), and at exit the interpreter waits for the SDK's worker threads. The server
    writes nothing but whole answers, each flushed as it is written, and holds nothing to put
    away: it ends here, with the line and exit code of any interrupted command."""
    sys.stderr.write("gitstore: error: interrupted\n")
    sys.stderr.flush()
    os._exit(130)


def register(app: typer.Typer) -> None:
    app.command()(mcp)
