"""Storing labels: each one a label event naming the evidence it judges in ``parentEventId``.

A label event lives in the episode of the event it judges, takes that event's time (consent
judges a label by the time of the comment it judges) and sequence number, and is written by
``bot:gitstore-<labeler>``. Its id comes from the judged event, the labeler and the theme, so
labelling the same evidence again stores nothing new, on any clone. Labels of personal session
evidence stay in the local namespace with it; the others are shared. Each append carries its
audit entry.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gitstore.errors import Refused
from gitstore.context import Context
from gitstore.records.contracts import seal
from gitstore.records.ids import event_id
from gitstore.rules.view import View

LABELLED = frozenset({"comment", "edit", "observation"})
CHUNK = 5000  # labels per append: an audit entry names at most 10,000 records


@dataclass(frozen=True)
class LabelSpec:
    """One label to store: the judged event and what the labeler said."""

    event: str
    theme: str
    category: str
    polarity: str
    spans: tuple[tuple[int, int], ...]
    labeler: str


@dataclass
class Stored:
    """What storing labels wrote."""

    added: list[str] = field(default_factory=list)
    existing: int = 0


def labeler_id(labeler: str) -> str:
    """The bot id a labeler writes as."""
    return "bot:gitstore-" + (re.sub(r"[^a-z0-9-]+", "-", labeler.lower()).strip("-")[:40] or "labeler")


def label_id(view: View, spec: LabelSpec) -> str:
    """The id of the label event for one label; refuses a label on anything but stored evidence."""
    parent = view.events.get(spec.event)
    if parent is None or parent["type"] not in LABELLED:
        raise Refused(f"a label must judge a stored comment or session text; {spec.event} is not one")
    return event_id(parent["episode"], f"label:{parent['id']}:{spec.labeler}:{spec.theme}")


def build(view: View, spec: LabelSpec) -> dict[str, Any]:
    """The sealed label event for one label; refuses a label on anything but stored evidence."""
    lid = label_id(view, spec)
    parent = view.events[spec.event]
    label: dict[str, Any] = {"theme": spec.theme, "polarity": spec.polarity, "category": spec.category,
                             "labeler": spec.labeler}
    if spec.spans:
        label["spans"] = [{"start": a, "end": b} for a, b in spec.spans]
    return seal({
        "schema": "gitstore.event/v1", "scope": view.scope,
        "id": lid,
        "episode": parent["episode"], "type": "label", "seq": parent["seq"], "at": parent["at"],
        "author": labeler_id(spec.labeler), "parentEventId": parent["id"], "payload": {"label": label},
    })


def store_labels(ctx: Context, view: View, specs: Sequence[LabelSpec], by: str) -> Stored:
    """Write the labels not stored yet, local beside local evidence and shared otherwise."""
    fresh = [spec for spec in specs if label_id(view, spec) not in view.events]
    stored = Stored(existing=len(specs) - len(fresh))
    namespaces = {i.record["id"]: i.stored.namespace for i in view.items if i.kind == "event"} if fresh else {}
    groups: dict[str, dict[str, dict[str, Any]]] = {"local": {}, "shared": {}}
    for spec in fresh:
        record = build(view, spec)
        groups[namespaces.get(spec.event, "shared")][record["id"]] = record
    for namespace, records in groups.items():
        batch = list(records.values())
        for start in range(0, len(batch), CHUNK):
            chunk = batch[start:start + CHUNK]
            labelers = sorted({r["payload"]["label"]["labeler"] for r in chunk})
            ctx.write(chunk, "label", by, [f"{len(chunk)} labels by {', '.join(labelers)}"[:100]],
                      namespace=namespace)
            stored.added.extend(r["id"] for r in chunk)
    return stored
