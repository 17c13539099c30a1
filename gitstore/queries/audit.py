"""``gitstore audit``: the audit trail, in store order.

An entry is what a writer said it did; anyone who can push can store one. An entry naming a
decision, grant or withdrawal the rules never use (no authority, no audit entry of its own
append: ``gitstore.rules.view``) carries ``notUsed``, why, so the trail never shows a forged
acceptance as one that counts."""

from __future__ import annotations

from typing import Any

from gitstore.context import Context


def audit(ctx: Context) -> list[dict[str, Any]]:
    """Every audit entry of this scope: grants, withdrawals, decisions, exports, redactions..."""
    from gitstore.rules.view import View

    view = View.load(ctx.store, payloads=False, kinds=["learning", "grant", "withdrawal", "audit"])
    entries = []
    for item in view.items:
        if item.kind != "audit":
            continue
        entry = item.record
        unused = [view.ignored[d] for d in entry.get("records", ()) if d in view.ignored]
        entries.append({**entry, "notUsed": unused[0]} if unused else entry)
    return entries


__all__ = ["audit"]
