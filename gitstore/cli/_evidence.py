"""Rendering evidence events as text."""

from __future__ import annotations

from gitstore.cli._io import echo
from gitstore.queries.evidence import EventShown


def print_event(shown: EventShown, indent: str) -> None:
    """An event's citable id, who wrote it when, and its text (or why the text is gone)."""
    event = shown.event
    echo(f"{indent}{shown.paste}")
    echo(f"{indent}  {event['type']} by {shown.author} at {event['at']}")
    text = shown.text if shown.text is not None else f"[{shown.removed or 'no text'}]"
    for line in text.splitlines() or [""]:
        echo(f"{indent}  | {line}")
