"""A session's summaries: which one stands for the session.

A capture in summary or hybrid mode keeps one summary of the session as it stood then, at place
0 of its episode (``gitstore.capture.normalize``). A session captured as it grows (Codex runs
its hook after every turn, a retry comes after more turns) thus has one summary per length,
each an event of its own. The latest stands for the session; the earlier ones are superseded
by it, so what reads evidence (``gitstore episodes``, a dream) counts a session's summary once.
Told without the payload (it may be removed, or not read): an observation an agent wrote at
place 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gitstore.records.vocabulary import SUMMARY_SEQ


def is_summary(event: dict[str, Any]) -> bool:
    """Whether EVENT is a session's summary as a capture writes it."""
    return bool(event["type"] == "observation" and event["seq"] == SUMMARY_SEQ and event["author"].startswith("agent:"))


def standing(events: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Episode id -> the id of its summary that stands: the latest (by time; of equal times
    the greatest id, so every reader picks the same)."""
    latest: dict[str, dict[str, Any]] = {}
    for event in events:
        if not is_summary(event):
            continue
        known = latest.get(event["episode"])
        if known is None or (event["at"], event["id"]) > (known["at"], known["id"]):
            latest[event["episode"]] = event
    return {episode: event["id"] for episode, event in latest.items()}


def superseded(event: dict[str, Any], stands: dict[str, str]) -> bool:
    """Whether EVENT is a summary a later one of its session supersedes (STANDS: ``standing``)."""
    return is_summary(event) and stands.get(event["episode"], event["id"]) != event["id"]


__all__ = ["is_summary", "standing", "superseded"]
