"""``gitstore audit``: the audit trail, in store order.

An entry is what a writer said it did, and anyone who can push can store one. An entry of an
action that needs authority (accept, reject, retire, the auto-safe gate, grant, withdraw)
counts only beside what it vouches for: a decision, grant or withdrawal stored in the same
append that the rules use (``gitstore.rules.view``). Any other such entry carries
``notUsed``, why, so the trail never shows a forged acceptance, or one naming a record that
does not exist, as one that counts.

An entry's ``reason`` (a grant's note, a withdrawal's, rejection's or retirement's reason) is
whatever its writer typed, and a clone that runs no scanner may have written it: it is screened
as ``gitstore show`` screens a learning's texts (``queries.learnings.screened``), quarantined
text replaced by a note and named under ``withheld``, secrets and home paths redacted. So are its
``by`` (a person id: up to 160 characters of anything but whitespace) and its ``subjects``
(up to 100 characters each, of anything: the ids and digests an honest writer puts there)."""

from __future__ import annotations

from typing import Any

from gitstore.context import Context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitstore.rules.view import View

AUTHORITY = frozenset({"accept", "reject", "retire", "auto-accept", "grant", "withdraw"})


def audit(ctx: Context) -> list[dict[str, Any]]:
    """Every audit entry of this scope: grants, withdrawals, decisions, exports, redactions..."""
    from gitstore.queries.learnings import screened_record
    from gitstore.rules.view import View

    view = View.load(ctx.store, payloads=False, kinds=["learning", "grant", "withdrawal", "audit"])
    counted = {i.digest: i for i in view.items if i.kind in ("learning", "grant", "withdrawal")}
    entries = []
    for item in view.items:
        if item.kind != "audit":
            continue
        entry = screened_record(item.record, "reason", "subjects")
        why = _unused(ctx, view, counted, item) if entry.get("action") in AUTHORITY else None
        entries.append({**entry, "notUsed": why} if why else entry)
    return entries


def _unused(ctx: Context, view: View, counted: dict[str, Any], item: Any) -> str | None:
    """Why an entry of an action needing authority is not used (None: it vouches for a record
    that counts, stored with it)."""
    named = [d for d in item.record.get("records", ()) if isinstance(d, str)]
    ignored: list[str] = [view.ignored[d] for d in named if d in view.ignored]
    if ignored:
        return ignored[0]
    appends = {placed.stored.append for placed in (item, *ctx.store.copies(item))}
    if any(d in counted and counted[d].stored.append in appends for d in named):
        return None
    return "it names no decision, grant or withdrawal stored with it that counts; it is never used"


__all__ = ["audit"]
