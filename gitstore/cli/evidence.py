"""``gitstore evidence``: one episode's events with their text, ready to cite."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.cli._evidence import degraded_note, print_event
from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.context import Context
from gitstore.queries.evidence import evidence as query


def evidence(
    episode: str = typer.Argument(..., metavar="EPISODE", help="The episode (ep_..., or a unique prefix)."),
    grep: Optional[str] = typer.Option(None, "--grep", metavar="REGEX", help="Only events whose text matches (case ignored)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Show one episode's events with their text and the EPISODE:EVENT ids propose takes."""
    shown = query(Context.open(), episode, grep)
    if as_json:
        emit_json(shown.to_json())
        return
    head = shown.episode
    source = shown.source
    echo(f"{head['id']} {source['kind']} {source['origin']} {source['ref']}")
    echo(f"  {shown.title or '(no text)'}")
    echo(f"  {shown.where}, started {head['startedAt']}, {head['capture']} capture ({head['mode']}), "
         f"{shown.namespace}, {shown.count} event(s)")
    note = degraded_note(shown, listing=False)
    if note:
        echo(f"  {note}")
    for event in shown.events:
        print_event(event, "  ")
    if shown.events:
        echo("\ncite one: gitstore propose --evidence EPISODE:EVENT[,EVENT] ... (EPISODE:EVENT as printed above)")


def register(app: typer.Typer) -> None:
    app.command()(evidence)
