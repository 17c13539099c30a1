"""What an event says, in one line of text, for a person browsing evidence."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from gitstore.rules.trust import NO_AUTHORITY


def event_text(event: dict[str, Any]) -> str | None:
    """The event's words (a comment's text, a command and its result, a label's theme, a review
    state); None when its text was removed or it has none."""
    payload = event.get("payload")
    if payload is None:
        return None
    if event["type"] == "label":
        label = payload.get("label", {})
        return f"label {label.get('theme')} ({label.get('polarity')}, {label.get('category')})"
    if event["type"] == "status":
        return f"status {payload.get('state')}"
    parts = []
    if payload.get("command"):
        exit_code = payload.get("exitCode")
        parts.append(f"$ {payload['command']}" + (f"  (exit {exit_code})" if exit_code is not None else ""))
    if payload.get("text"):
        parts.append(str(payload["text"]))
    return "\n".join(parts) if parts else None


HEADING_CHARS = 72


def heading(event: dict[str, Any] | None) -> str | None:
    """An episode's heading for a listing: the first line of its first event's text, read from
    the removable payload (so a redaction takes it away), shortened to one line."""
    return first_line(event_text(event) if event is not None else None)


def first_line(text: str | None) -> str | None:
    """The first line of ``text`` as a listing's heading, shortened to one line (never half a
    redaction's marker); None when there is no text."""
    if not text:
        return None
    line = " ".join(text.strip().splitlines()[0].split())
    if len(line) <= HEADING_CHARS:
        return line
    cut = HEADING_CHARS - 1
    marker = line.rfind("[REDACTED:", 0, cut)
    if marker > 0 and line.find("]", marker, cut) < 0:  # never half a redaction's marker
        cut = marker
    return line[:cut].rstrip() + "…"


NO_TEXT = ("text not in this clone, and no removal took it (its writer's payload snapshot holding it was "
           "held back or has not arrived yet)")
"""Why an event has no text when no removal took it: the payload snapshot holding it was held
back (quarantined) or has not arrived. Calling that removed would tell of a redaction that
never happened."""


def why_no_text(event: dict[str, Any], held: Mapping[str, tuple[dict[str, Any], str]] | None = None) -> str | None:
    """Why an event's text is gone, when it is: the removal that took it; a removal stored
    without authority here (``held``: ``Store.held_notes``), which took the text from this
    clone all the same, and what makes it count; or ``NO_TEXT``."""
    note = event.get("redaction")
    if note is not None:
        return f"text removed at {note.get('at')} by {note.get('by')}: {note.get('reason')}"
    if "payload" not in event and event["type"] != "retraction":
        kept = (held or {}).get(event.get("payloadDigest", ""))
        return NO_TEXT if kept is None else held_removal(*kept)
    return None


def held_removal(note: dict[str, Any], why: str) -> str:
    """Why an event's text is gone when the removal that took it carries no authority here:
    the text is not in this clone, so no sync is waited for; the removal counts once made here,
    with authority, by ``gitstore redact`` (the note names the comment, a label's none)."""
    source = note.get("sourceId")
    again = (f"`gitstore redact --comment {shlex.quote(source)} --reason ...` makes it count"
             if isinstance(source, str) else "redacting its comment again here makes it count")
    return (f"text removed at {note.get('at')} by {note.get('by')}: {note.get('reason')}; that removal "
            f"{NO_AUTHORITY}{why}; the text is not in this clone all the same: {again}")


def matches(pattern: Any, *texts: str | None) -> bool:
    """Whether a compiled pattern is found in any of the texts."""
    return any(text and pattern.search(text) for text in texts)
