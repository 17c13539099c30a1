"""``gitstore deliveries``: what each agent session was given, beside what was captured of it.

The delivery ledger (``gitstore.deliver.ledger``) says which learnings each session received,
when, for which event, in which compaction epoch, with the digest of the exact text. The store
holds the capture side: a session's envelopes (harness and session id) and their receipts
(complete or degraded, and the episode they wrote). Putting the two together is the
correlated receipt: the same learning identity from injection to the captured outcome of the
session that received it.
"""

from __future__ import annotations

from typing import Any

from gitstore.deliver.ledger import sessions


def _captures(start: str) -> dict[tuple[str, str], list[dict[str, Any]]]:
    from gitstore.context import Context

    store = Context.open(start).store
    envelopes: dict[str, dict[str, Any]] = {}
    receipts: dict[str, dict[str, Any]] = {}
    for item in store.items(["envelope", "receipt"]):
        if item.kind == "envelope":
            envelopes[item.digest] = item.record
        else:
            receipts[item.record["envelope"]] = item.record
    found: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for digest, envelope in envelopes.items():
        receipt = receipts.get(digest, {})
        found.setdefault((envelope["harness"], envelope["session"]), []).append({
            "envelope": digest, "event": envelope["event"], "capturedAt": envelope["capturedAt"],
            "status": receipt.get("status"), "episode": receipt.get("episode"),
        })
    return found


def deliveries(start: str = ".", session: str | None = None) -> list[dict[str, Any]]:
    """Each session in the ledger (or the one named), newest first, with its captures."""
    from gitstore.config import Workspace

    state = str(Workspace.find(start).state)
    captured = _captures(start)
    report = []
    for entries in sessions(state):
        first = entries[0]
        if session is not None and first.get("session") != session:
            continue
        harness, name = str(first.get("harness")), str(first.get("session"))
        given = [e for e in entries if e.get("kind") == "delivery"]
        report.append({
            "harness": harness, "session": name,
            "epoch": sum(1 for e in entries if e.get("kind") == "compaction"),
            "deliveries": [{k: e.get(k) for k in ("at", "event", "epoch", "chars", "context", "items")} for e in given],
            "compactions": [e.get("at") for e in entries if e.get("kind") == "compaction"],
            "learnings": sorted({i["id"] for e in given for i in e.get("items", [])}),
            "captures": sorted(captured.get((harness, name), []), key=lambda c: c["capturedAt"]),
        })
    return report
