"""``gitstore audit``: the audit trail, in store order.

An entry is what a writer said it did, and anyone who can push can store one. An entry of an
action that needs authority (accept, reject, retire, the auto-safe gate, grant, withdraw)
counts only beside what it vouches for: a decision, grant or withdrawal stored in the same
append that the rules use (``gitstore.rules.view``). So do the entries of what happened to
evidence: an export counts beside the export record stored in the same append, and a removal
(``redact``) beside the removal it reports: a redaction note that counts here, by the same
person at the same time, for the payload of the event it names (``gitstore.ops.redact`` builds
the entry from that note). A proposal's, an import's, a promotion's and labels' entry counts
beside the records it names, stored in the same append (it is written with them), a
disclosure's only in this machine's local namespace (where it is written), and an entry of an
action no command writes (``merge``, ``capture``, ``purge``) never. Any other such entry carries
``notUsed``, why, so the trail never shows a forged acceptance, removal, export or proposal, or
one naming a record that does not exist, as one that counts. Each entry names the writer's ref it was read from (``storedIn``) and whether
this clone stored it (``thisClone``): an entry in a person's name is only what that writer said.

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
VOUCHING = AUTHORITY | {"export"}  # counts only beside the record it names, stored in the same append
BESIDE = {"propose": "learning", "import": "import", "promote": "packet", "label": "event"}
"""The entries written in the append of the records they name, and the kind of the last of those."""
LOCAL = frozenset({"disclose"})  # written only in this machine's local namespace, naming no record


def audit(ctx: Context) -> list[dict[str, Any]]:
    """Every audit entry of this scope: grants, withdrawals, decisions, exports, redactions..."""
    from gitstore.providers._names import shown_writer
    from gitstore.queries.learnings import screened_record
    from gitstore.rules.view import View

    view = View.load(ctx.store, payloads=False, kinds=["learning", "grant", "withdrawal", "export", "audit"])
    counted = {i.digest: i for i in view.items if i.kind in ("learning", "grant", "withdrawal", "export")}
    removed = _removed(ctx, [i for i in view.items if i.kind == "audit" and i.record.get("action") == "redact"])
    beside = _beside(ctx, view, [i for i in view.items if i.kind == "audit" and i.record.get("action") in BESIDE])
    entries = []
    for item in view.items:
        if item.kind != "audit":
            continue
        entry = screened_record(item.record, "reason", "subjects")
        action = entry.get("action")
        if action in VOUCHING:
            why = _unused(ctx, view, counted, item)
        elif action in BESIDE:
            why = None if item.digest in beside else "it names no record stored with it; it is never used"
        elif action in LOCAL:
            why = None if item.stored.namespace == "local" else \
                "gitstore writes it only in this machine's local memory; it is never used"
        elif action == "redact":
            why = None if item.digest in removed else \
                "it names no removal of the event's text by this person at this time that counts here; it is never used"
        else:  # merge, capture, purge: in the contract's list, written by no command
            why = "gitstore writes no entry of this action; it is never used"
        stored = item.stored
        entry = {**entry, "storedIn": f"records/{stored.namespace}/{shown_writer(stored.writer, cut=True)}",
                 "thisClone": ctx.store.own(item)}
        entries.append({**entry, "notUsed": why} if why else entry)
    return entries


def _unused(ctx: Context, view: View, counted: dict[str, Any], item: Any) -> str | None:
    """Why an entry of an action needing authority, or of an export, is not used (None: it
    vouches for a record that counts, stored with it)."""
    named = [d for d in item.record.get("records", ()) if isinstance(d, str)]
    ignored: list[str] = [view.ignored[d] for d in named if d in view.ignored]
    if ignored:
        return ignored[0]
    appends = {placed.stored.append for placed in (item, *ctx.store.copies(item))}
    wanted = ("export",) if item.record.get("action") == "export" else ("learning", "grant", "withdrawal")
    if any(d in counted and counted[d].kind in wanted and counted[d].stored.append in appends for d in named):
        return None
    if item.record.get("action") == "export":
        return "it names no export record stored with it; it is never used"
    return "it names no decision, grant or withdrawal stored with it that counts; it is never used"


def _beside(ctx: Context, view: View, entries: list[Any]) -> set[str]:
    """The digests of the entries of a proposal, an import, a promotion or labels stored in the
    same append as the last record they name (a learning version, the import record, the
    packet, a label): gitstore writes each with its records, so one without them (anyone who
    can push can store one, in anyone's name) says nothing happened."""
    last = {item.digest: named[-1] for item in entries
            if isinstance(named := item.record.get("records"), list) and named and isinstance(named[-1], str)}
    if not last:
        return set()
    held = {i.digest: i for i in view.items if i.digest in set(last.values())}  # learnings: read already
    rest = set(last.values()) - held.keys()
    kinds = {BESIDE[item.record["action"]] for item in entries} - {"learning"}  # no event read for imports alone
    if rest and kinds:
        for found in ctx.store.items(sorted(kinds), digests=rest):
            held.setdefault(found.digest, found)

    def appends(item: Any) -> set[str]:
        return {placed.stored.append for placed in (item, *ctx.store.copies(item))}

    return {item.digest for item in entries
            if item.digest in last and (record := held.get(last[item.digest])) is not None
            and last[item.digest] not in view.ignored and appends(item) & appends(record)}


def _removed(ctx: Context, entries: list[Any]) -> set[str]:
    """The digests of the removal entries a removal that counts here stands behind: the event
    they name (``[id, digest]``) is stored, and a redaction note honoured here removes its
    payload, written by the entry's person at the entry's time."""
    from gitstore.errors import GitstoreError
    from gitstore.records.canonical import parse_json

    named = {item.record["subjects"][1] for item in entries if len(item.record.get("subjects", ())) > 1}
    if not named:
        return set()
    events = {i.digest: i for i in ctx.store.items(["event"], digests=named)}
    found = set()
    for item in entries:
        subjects = item.record["subjects"]
        event = events.get(subjects[1]) if len(subjects) > 1 else None
        payload = None if event is None or event.record["id"] != subjects[0] else event.record.get("payloadDigest")
        note = None if payload is None else ctx.store.removal_note(payload, item.stored.namespace)
        try:
            parsed = None if note is None else parse_json(note, allow_floats=False)
        except GitstoreError:
            parsed = None
        if isinstance(parsed, dict) and parsed.get("by") == item.record["by"] and parsed.get("at") == item.record["at"]:
            found.add(item.digest)
    return found


__all__ = ["audit"]
