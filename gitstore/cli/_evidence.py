"""Rendering evidence events as text."""

from __future__ import annotations

from gitstore.cli._io import echo
from gitstore.queries.evidence import EpisodeShown, EventShown
from gitstore.records.vocabulary import REASON_WORDS


def degraded_note(shown: EpisodeShown, *, listing: bool = True) -> str | None:
    """Why an episode's capture is degraded, in plain words, and whether parts of the session
    were not kept (only when a reason says so: a capture that found no commit for the
    session's time kept all it read); None for a complete capture. A ``listing`` points to
    ``gitstore evidence`` for what was kept."""
    if shown.episode["capture"] != "degraded":
        return None
    if not shown.reasons:  # a teammate's capture: its receipt stays in their clone
        return "degraded capture: why is not stored in this clone"
    why = "; ".join(REASON_WORDS.get(reason, reason) for reason in shown.reasons)
    lost = "parts were not kept" + (", `gitstore evidence` shows what was" if listing else "")
    kept = lost if shown.parts_lost else "nothing was left out"
    return f"degraded capture: {why} ({kept})"


def print_event(shown: EventShown, indent: str) -> None:
    """An event's citable id, who wrote it when, and its text (or why the text is gone)."""
    event = shown.event
    echo(f"{indent}{shown.paste}")
    echo(f"{indent}  {event['type']} by {shown.author} at {event['at']}")
    text = shown.text if shown.text is not None else f"[{shown.removed or 'no text'}]"
    for line in text.splitlines() or [""]:
        echo(f"{indent}  | {line}")
