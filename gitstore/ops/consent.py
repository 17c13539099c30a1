"""Grants and withdrawals: a person says which purposes evidence may serve, and takes it back."""

from __future__ import annotations

import hashlib
import re
import shlex
from typing import Any

from gitstore.ops import unfinished
from gitstore.records.times import user_time
from gitstore.records.contracts import seal

from gitstore.errors import AlreadyDone, Refused, UsageError
from gitstore.records.vocabulary import PURPOSES, SOURCES
from gitstore.context import Context
from gitstore.safety.gate import without_secrets
from gitstore.rules.consent import withdrawn
from gitstore.records.times import now


def grant(ctx: Context, by: str, purposes: list[str], sources: list[str], start: str,
          until: str | None, note: str | None) -> dict[str, Any]:
    """Record a grant (with its audit entry); returns the grant. ``start`` and ``until`` may be
    dates or times as a person types them; they are stored in gitstore's form. A grant naming
    only personal sessions is kept on this machine (``store.Sides``)."""
    for purpose in purposes:
        if purpose not in PURPOSES:
            raise UsageError(f"unknown purpose {purpose!r} (one of {', '.join(PURPOSES)})")
    for source in sources:
        if source not in SOURCES:
            raise UsageError(f"unknown source {source!r} (one of {', '.join(SOURCES)})")
    start = user_time(start)
    until = user_time(until) if until is not None else None
    note = without_secrets(note) if note is not None else None  # shared records keep it for good
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
             reason: str | None, *, note: unfinished.Note | None = None) -> dict[str, Any]:
    """Withdraw a grant (all its purposes still in force, or some); lists the exports it had
    allowed. Of the purposes asked, those already withdrawn are left as they are and the others
    withdrawn (the record names only these: the caller says which were withdrawn before); when
    none is left, the request is refused (``AlreadyDone``, naming the withdrawals that took
    them): a withdrawal always changes something. ``note`` (``withdraw_note``) stands around
    the append (``unfinished.recording``)."""
    reason = without_secrets(reason) if reason is not None else None  # shared records keep it for good
    view = ctx.view(payloads=False)
    matches = [d for d in view.grants if d.startswith(_digest(grant_digest))]
    if len(matches) != 1:
        raise Refused(f"no single grant {grant_digest} in this scope" + (" (ambiguous)" if matches else ""))
    target = view.grants[matches[0]]
    gone = withdrawn(view).get(matches[0], set())
    asked = list(dict.fromkeys(purposes or target["purposes"]))
    unknown = [p for p in asked if p not in target["purposes"]]
    if unknown:
        raise Refused(f"grant {matches[0]} does not permit {', '.join(unknown)}")
    chosen = [p for p in asked if p not in gone]
    if not chosen:
        again = asked
        raise AlreadyDone(f"grant {matches[0]} is already withdrawn for {', '.join(dict.fromkeys(again))}",
                          [w for w in view.withdrawals if w["grant"] == matches[0] and set(w["purposes"]) & set(again)])
    exports = [
        e["digest"] for e in view.exports
        if any(matches[0] in item["grants"] for item in e["items"]) and e["purpose"] in chosen
    ]
    record = seal({
        "schema": "gitstore.withdrawal/v1", "scope": ctx.scope, "grant": matches[0],
        "purposes": list(dict.fromkeys(chosen)), "by": by, "at": now(), "reason": reason,
        "exports": exports,
    })
    # a grant kept on this machine (personal sessions only) is withdrawn there too
    local = any(i.kind == "grant" and i.digest == matches[0] and i.stored.namespace == "local" for i in view.items)
    with unfinished.recording(ctx.workspace.state, note, record):
        ctx.write([record], "withdraw", by, [matches[0], *exports], reason, namespace="local" if local else None)
    return record


def withdraw_note(grant_digest: str, purposes: list[str] | None) -> unfinished.Note:
    """What ``gitstore withdraw`` stopped after its append leaves: the published files and the
    promoted blocks it goes on to. Named after the request (the grant as typed, the purposes),
    so the same command run again finds it."""
    asked = list(dict.fromkeys(purposes or ()))
    key = hashlib.sha256("\0".join([grant_digest, *sorted(asked)]).encode()).hexdigest()[:16]
    command = " ".join(["gitstore withdraw", shlex.quote(grant_digest),
                        *(f"--purpose {shlex.quote(purpose)}" for purpose in asked)])
    return unfinished.Note(f"withdraw-{key}", f"withdrawing grant {grant_digest} was stopped midway: it may be "
                           "recorded while the published files still give agents what it took out of force", command)


_PREFIX = re.compile(r"[0-9a-f]{8,64}")


def _digest(text: str) -> str:
    """The digest prefix a person typed, with ``sha256:``; at least 8 hex digits, so an empty or
    unset argument never picks a grant."""
    if not _PREFIX.fullmatch(text.removeprefix("sha256:")):
        raise UsageError(f"{text!r} is not a grant digest or a prefix of at least 8 lowercase hex digits")
    return text if text.startswith("sha256:") else "sha256:" + text
