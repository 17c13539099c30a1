"""``gitstore mcp``: a read-only MCP server (tools recall and show) on standard input and output."""

from __future__ import annotations

import typer

from gitstore.deliver.mcp import serve


def mcp() -> None:
    """Serve recall and show over MCP on standard input and output (read-only; needs gitstore[mcp])."""
    serve()


def register(app: typer.Typer) -> None:
    app.command()(mcp)
