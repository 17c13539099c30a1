"""What an event says, in one line of text, for a person browsing evidence."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gitstore.rules.trust import NO_AUTHORITY
from gitstore.store import makes_again

if TYPE_CHECKING:
    from gitstore.context import Context
    from gitstore.store import HeldNote


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


def why_no_text(event: dict[str, Any], held: Mapping[str, HeldNote] | None = None) -> str | None:
    """Why an event's text is gone, when it is: the removal that took it; a note stored without
    authority here (``held``: ``Store.held_notes``), which removed nothing, and what it claims;
    or ``NO_TEXT``."""
    note = event.get("redaction")
    if note is not None:
        return f"text removed at {note.get('at')} by {note.get('by')}: {note.get('reason')}"
    if "payload" not in event and event["type"] != "retraction":
        kept = (held or {}).get(event.get("payloadDigest", ""))
        return NO_TEXT if kept is None else held_removal(kept.note, kept)
    return None


def held_removal(note: dict[str, Any], held: HeldNote) -> str:
    """Why an event's text is gone when the only note naming its removal carries no authority
    here (``note``: that note as it may be shown). Such a note removes nothing, and its ``by``
    and ``reason`` are whatever its writer chose, so they are never told as what happened, this
    clone's own included (a runner, ``init --writer``, takes up as its own a history anyone who
    can push may have extended): it only claims the comment. For this clone's own, once a
    version of its comment holds text here (``held.own`` is cleared before, ``redactable``),
    it adds the command that makes a removal made before the team's policy again, without the
    note's ``by``."""
    source = note.get("sourceId")
    who = f"writer {held.writer}'s" if held.writer else "a"
    claim = f"claims it held comment {source}" if isinstance(source, str) else "names no comment"
    again = (f"; if it is a removal you made before the team's policy, make it again with "
             f"`gitstore redact --comment {shlex.quote(source)} --reason ...`"
             if held.own and isinstance(source, str) else "")
    return (f"text not in this clone (its writer's payload snapshot no longer holds it); {who} redaction note, "
            f"which {NO_AUTHORITY.rstrip(': ')} here, {claim}: nothing was removed by it{again}")


def redactable(ctx: Context, held: dict[str, HeldNote]) -> dict[str, HeldNote]:
    """``held`` with ``own`` cleared on each note whose comment has no version holding text
    here: ``redact`` removes only versions that name the comment themselves, never one a note
    without authority alone links to it, so a hint to make such a removal again would be
    refused (a later version imported since is what it removes)."""
    if not any(h.own for h in held.values()):
        return held
    texted = ctx.store.comment_threads()
    return {digest: h._replace(own=False) if h.own and not makes_again(texted, h.note.get("sourceId")) else h
            for digest, h in held.items()}


def matches(pattern: Any, *texts: str | None) -> bool:
    """Whether a compiled pattern is found in any of the texts."""
    return any(text and pattern.search(text) for text in texts)
