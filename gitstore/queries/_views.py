"""Views that hold what a read's answer needs, and no more.

Judging learnings needs every learning version (histories and supersession), the grants and
withdrawals (consent), and, for the learnings being judged, the episodes their current versions
cite with all their events (edits, labels and retractions live in the episode of the comment
they concern) and the payloads of the cited events (a removed payload means redacted evidence).
Everything else (audit entries, captures, the events of episodes nobody cites) is left unread,
so listing learnings costs what the learnings cost, not what the whole store costs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from gitstore.rules.lifecycle import History
from gitstore.rules.view import View
from gitstore.store import Store

POLICY_KINDS = ("learning", "grant", "withdrawal")
EVIDENCE_KINDS = ("episode", "event")


def learning_view(store: Store, judged: Callable[[History], bool] | None = None) -> tuple[View, dict[str, History]]:
    """A view to judge the learnings whose history ``judged`` accepts (None: all) with, and
    every learning's history."""
    view = View.load(store, payloads=False, kinds=POLICY_KINDS)
    all_histories = view.histories()
    refs = [ref for history in all_histories.values() if judged is None or judged(history)
            for ref in _cited(history)]
    episodes = {ref["episode"] for ref in refs}
    if episodes:
        view.add(store.items(EVIDENCE_KINDS, streams=episodes))
        events = {event for ref in refs for event in ref["events"]}
        parents = {view.events[e]["parentEventId"] for e in events if e in view.events
                   and view.events[e]["type"] == "label" and view.events[e].get("parentEventId")}
        if parents - view.events.keys():  # a label judging an event of another episode
            view.add(store.items(EVIDENCE_KINDS, streams=_others(store, episodes)))
        store.attach_payloads(view.events[e] for e in events | parents if e in view.events)
    return view, all_histories


def _cited(history: History) -> Iterable[dict[str, Any]]:
    """The evidence references the current version of a usable history stands on."""
    if not history.intact:
        return ()
    current = history.current
    return [*current["evidence"], *current["counterevidence"]]


def _others(store: Store, loaded: set[str]) -> set[str]:
    """Every episode stream not loaded yet."""
    return {item.record["id"] for item in store.items(["episode"])} - loaded
