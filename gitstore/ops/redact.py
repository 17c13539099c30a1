"""Removing a comment's text: every version and every label on it, by its source comment id.

The events stay, with the same id and digest; each payload is replaced by a redaction note, and
each removal gets one audit entry built from the stored note, so a retry or a racing call writes
the same entry. The report names the learnings to rebuild and the exports that copied the text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from gitstore.records.canonical import canonicalize, parse_json
from gitstore.records.contracts import seal
from gitstore.errors import Refused
from gitstore.providers import RedactingProvider
from gitstore.rules.lifecycle import histories
from gitstore.rules.view import View
from gitstore.context import Context
from gitstore.records.times import now


@dataclass
class RedactionReport:
    source_id: str
    events: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    learnings: list[str] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"sourceId": self.source_id, "events": self.events, "removed": self.removed,
                "alreadyRemoved": self.already, "learningsToRebuild": self.learnings,
                "exportsThatCopiedIt": self.exports}


def versions_of(view: View, source_id: str) -> list[dict[str, Any]]:
    """Every version of one comment, refusing a history that links two comments or threads."""
    found = [e for e in view.events.values()
             if e.get("payload", {}).get("sourceId") == source_id
             or e.get("redaction", {}).get("sourceId") == source_id]
    if not found:
        return []
    episodes = {e["episode"] for e in found}
    if len(episodes) > 1:
        raise Refused(f"comment {source_id} appears in {len(episodes)} threads; refusing to guess whose words to remove")
    ids = {e["id"] for e in found}
    for event in found:
        parent = event.get("parentEventId")
        if event["type"] == "edit" and parent not in ids:
            raise Refused(f"edit {event['id']} of {source_id} links to another comment ({parent}); refusing")
    return sorted(found, key=lambda e: (e["at"], e["id"]))


def redact(ctx: Context, source_id: str, by: str, reason: str) -> RedactionReport:
    """Remove the text of every version of a comment and every label on them."""
    if "redact-payload" not in ctx.store.manifest.capabilities:
        raise Refused(f"provider {ctx.store.manifest.name} cannot remove payloads")
    if not reason:
        raise Refused("removing text needs a reason (--reason)")
    view = ctx.view()
    versions = versions_of(view, source_id)
    if not versions:
        raise Refused(f"no comment with source id {source_id} in this scope")
    targets = list(versions)
    for version in versions:
        targets.extend(c for c in view.children.get(version["id"], []) if c["type"] == "label")
    report = RedactionReport(source_id, events=[t["id"] for t in targets])
    audits = []
    for event in targets:
        note = canonicalize({"at": now(), "by": by, "reason": reason,
                             "sourceId": source_id if event in versions else None})
        had_payload = "payload" in event
        kept = cast(RedactingProvider, ctx.store.provider).redact_payload(event["payloadDigest"], note)
        if kept is None:
            continue
        (report.removed if had_payload else report.already).append(event["id"])
        audits.append(_audit(ctx, event, parse_json(kept)))
    if audits:
        ctx.store.append(audits)
    _follow_ups(view, {t["id"] for t in targets}, report)
    return report


def _audit(ctx: Context, event: dict[str, Any], note: dict[str, Any]) -> dict[str, Any]:
    return seal({
        "schema": "gitstore.audit/v1", "scope": ctx.scope, "action": "redact", "by": note["by"],
        "at": note["at"], "subjects": [event["id"], event["digest"]], "records": [],
        "reason": note["reason"],
    })


def _follow_ups(view: View, event_ids: set[str], report: RedactionReport) -> None:
    citing = set()
    for lid, history in histories(view.learnings).items():
        for item in history.chain:
            refs = item.record["evidence"] + item.record["counterevidence"]
            if any(set(r["events"]) & event_ids for r in refs):
                citing.add(lid)
    report.learnings = sorted(citing)
    report.exports = sorted(
        e["digest"] for e in view.exports
        if any(i["id"] in event_ids or i["id"] in citing for i in e["items"])
    )
