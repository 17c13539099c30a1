"""Grants and withdrawals: a person says which purposes evidence may serve, and takes it back."""

from __future__ import annotations

from typing import Any

from gitstore.records.times import user_time
from gitstore.records.contracts import seal
from gitstore.errors import Refused
from gitstore.records.vocabulary import PURPOSES, SOURCES
from gitstore.context import Context
from gitstore.records.times import now


def grant(ctx: Context, by: str, purposes: list[str], sources: list[str], start: str,
          until: str | None, note: str | None) -> dict[str, Any]:
    """Record a grant (with its audit entry); returns the grant. ``start`` and ``until`` may be
    dates or times as a person types them; they are stored in gitstore's form."""
    for purpose in purposes:
        if purpose not in PURPOSES:
            raise Refused(f"unknown purpose {purpose!r} (one of {', '.join(PURPOSES)})")
    for source in sources:
        if source not in SOURCES:
            raise Refused(f"unknown source {source!r} (one of {', '.join(SOURCES)})")
    start = user_time(start)
    until = user_time(until) if until is not None else None
    if until is not None and until < start:
        raise Refused(f"grant ends ({until}) before it starts ({start})")
    record = seal({
        "schema": "gitstore.grant/v1", "scope": ctx.scope,
        "purposes": list(dict.fromkeys(purposes)), "sources": list(dict.fromkeys(sources)),
        "from": start, "until": until, "by": by, "at": now(), "note": note,
    })
    ctx.write([record], "grant", by, [record["digest"]], note)
    return record


def withdraw(ctx: Context, by: str, grant_digest: str, purposes: list[str] | None,
             reason: str | None) -> dict[str, Any]:
    """Withdraw a grant (all its purposes, or some); lists the exports it had allowed."""
    view = ctx.view(payloads=False)
    matches = [d for d in view.grants if d.startswith(_digest(grant_digest))]
    if len(matches) != 1:
        raise Refused(f"no single grant {grant_digest} in this scope" + (" (ambiguous)" if matches else ""))
    target = view.grants[matches[0]]
    chosen = purposes or target["purposes"]
    unknown = [p for p in chosen if p not in target["purposes"]]
    if unknown:
        raise Refused(f"grant {matches[0]} does not permit {', '.join(unknown)}")
    exports = [
        e["digest"] for e in view.exports
        if any(matches[0] in item["grants"] for item in e["items"]) and e["purpose"] in chosen
    ]
    record = seal({
        "schema": "gitstore.withdrawal/v1", "scope": ctx.scope, "grant": matches[0],
        "purposes": list(dict.fromkeys(chosen)), "by": by, "at": now(), "reason": reason,
        "exports": exports,
    })
    ctx.write([record], "withdraw", by, [matches[0], *exports], reason)
    return record


def _digest(text: str) -> str:
    return text if text.startswith("sha256:") else "sha256:" + text
