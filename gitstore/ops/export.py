"""Exports: copies of memory for one purpose, written only under the git-ignored local folder,
recording every exported id and digest and the grants that permitted each piece."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from gitstore._files import staged
from gitstore.capture.saved import exclusive
from gitstore.config import git_ignores
from gitstore.records.contracts import seal
from gitstore.errors import Refused, UsageError
from gitstore.queries._views import in_force_view
from gitstore.rules.active import evaluate
from gitstore.rules.consent import active_grants, decide
from gitstore.rules.view import View
from gitstore.providers._base import Namespace
from gitstore.context import Context
from gitstore.records.times import now
from gitstore.records.vocabulary import PURPOSES, unknown

FOLDER = "exports"  # under the state folder: where this clone writes its exports, and only they are


def export(ctx: Context, purpose: str, by: str, *,
           with_evidence: bool = False) -> tuple[dict[Namespace, dict[str, Any]], Path]:
    """Export the learnings in force for ``purpose`` (and, if asked, the evidence they cite).

    Returns the export records by namespace, and the file. What the export copied of this
    machine's own memory (local learnings, events of personal sessions) is listed in a record
    kept local; the rest in a shared one, so the team's audit names what was copied of shared
    memory and no clone learns the ids of another's personal records."""
    if (wrong := unknown("purpose", purpose, PURPOSES)) is not None:
        raise UsageError(wrong)
    # from reading the evidence to recording the file, under the lock a removal writes exports again
    # under: one stored meanwhile finds this export's record, or this export reads the removal
    with exclusive(ctx.workspace.state):
        return _export(ctx, purpose, by, with_evidence)


def _export(ctx: Context, purpose: str, by: str,
            with_evidence: bool) -> tuple[dict[Namespace, dict[str, Any]], Path]:
    view, all_histories = in_force_view(ctx.store)  # the learnings in force and the events they cite
    if not active_grants(view, purpose):
        raise Refused(f"no active grant permits {purpose}: nothing may be exported for it")
    statuses = evaluate(view, purpose, all_histories=all_histories)
    items: list[dict[str, Any]] = []
    lines: list[dict[str, Any]] = []
    for lid, status in statuses.items():
        if not status.usable:
            continue
        current = all_histories[lid].current
        items.append({"kind": "learning", "id": lid, "digest": current["digest"], "grants": list(status.grants)})
        lines.append(current)
        if with_evidence:
            for ref in current["evidence"] + current["counterevidence"]:
                for event_id in ref["events"]:
                    event = view.events[event_id]
                    verdict = decide(view, event_id, purpose)
                    items.append({"kind": "event", "id": event_id, "digest": event["digest"],
                                  "grants": list(verdict.grants)})
                    lines.append(event)
    stamp = now()
    path = _destination(ctx, purpose, stamp)
    kept = _kept_here(view, items)
    split: tuple[tuple[Namespace, list[dict[str, Any]]], ...] = (
        ("shared", [i for i in items if not kept(i)]), ("local", [i for i in items if kept(i)]))
    parts = [(side, part) for side, part in split if part]
    records: dict[Namespace, dict[str, Any]] = {side: seal({
        "schema": "gitstore.export/v1", "scope": ctx.scope, "purpose": purpose, "by": by, "at": stamp,
        "path": path.relative_to(ctx.workspace.root).as_posix(), "items": _dedupe(part),
    }) for side, part in parts or [("shared", [])]}
    # the file is written aside first: a disk that refuses it refuses the export before it is recorded,
    # and an export that is recorded is shown (the rename after the append)
    with staged(path, "".join(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n" for line in _dedupe(lines))):
        for side, record in records.items():
            ctx.write([record], "export", by, [record["digest"], purpose], namespace=side)
    return records, path


def _kept_here(view: View, items: list[dict[str, Any]]) -> Callable[[dict[str, Any]], bool]:
    """Whether an exported item is this machine's own: a learning stored locally, or an event of a
    personal session (kept locally)."""
    local = {lid for lid in {i["id"] for i in items if i["kind"] == "learning"}
             if any(version.stored.namespace == "local" for version in view.learnings.get(lid, ()))}
    return lambda item: item["id"] in local if item["kind"] == "learning" \
        else view.events[item["id"]]["episode"] in view.local_episodes


def _dedupe(values: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for value in values:
        seen.setdefault(value["digest"], value)
    return list(seen.values())


def _destination(ctx: Context, purpose: str, stamp: str) -> Path:
    folder = ctx.workspace.state / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    real = folder.resolve()
    root = ctx.workspace.root.resolve()
    if root not in real.parents:
        raise Refused(f"{folder} leads outside the repository ({real}); exports stay inside it")
    if not git_ignores(root, real):
        raise Refused(f"git does not ignore {real}; exports are written only where git ignores them")
    name = stamp.replace(":", "").replace("-", "").replace(".", "")
    return real / f"{name}-{purpose}.jsonl"
