"""``gitstore context``: exactly what a harness's agent would receive now, and why."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from gitstore._shown import shown as pictured
from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.deliver.here import preview
from gitstore.deliver.surfaces import SURFACES
from gitstore.errors import UsageError


def context(
    harness: str = typer.Option("claude-code", "--harness", help=f"The coding agent: {', '.join(SURFACES)}."),
    prompt: Optional[str] = typer.Option(None, "--prompt", help="The user's prompt (default: a session start)."),
    session: Optional[str] = typer.Option(None, "--session", help="A session id: leave out what it was already given."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Print exactly what an agent would receive now (byte for byte), with the limits that applied."""
    if session is not None and not session.strip():
        raise UsageError("--session names no session (an empty id); leave it out for a fresh session")
    shown = preview(harness, prompt, session)
    if as_json:
        emit_json(shown.to_json())
        return
    # The hook's own bytes, UTF-8 whatever this terminal's encoding (control characters still
    # shown as their pictures: no delivered text holds one, the scanner quarantines them).
    sys.stdout.flush()
    sys.stdout.buffer.write(pictured(shown.output).encode("utf-8"))
    sys.stdout.buffer.flush()
    found = shown.answer.recall
    typer.echo(f"-- {harness} {shown.event}: {shown.answer.reason}", err=True)
    if found is not None:
        typer.echo(f"-- {found.usage()}", err=True)
        if found.left_out:
            typer.echo(f"-- left out by the limits: {', '.join(found.left_out)}", err=True)
        if found.unsafe:
            typer.echo(f"-- left out, failing the safety scan as it would be sent: {', '.join(found.unsafe)}",
                       err=True)
    if shown.answer.context is not None:
        typer.echo(f"-- injected text: {len(shown.answer.context)} characters (harness limit 10000)", err=True)


def register(app: typer.Typer) -> None:
    app.command()(context)
