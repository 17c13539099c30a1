"""Decisions and the audit entries that vouch for them.

A learning version carrying a ``decision`` (accepted, rejected, retired, and the auto-safe
gate's auto-accepted and auto-active) is authority: it counts only when the operation that
checked it wrote it together with its audit entry, in the same append. An audit entry vouches
for a decision when its action is the one the new state needs, it names the same person (or
the gate), the learning's id among its subjects and the version's digest among its records.
The store refuses to write a decision without one; readers ignore a decision that arrived
without one (``records add`` of a sealed version, a remote writing one bare), and ``gitstore
verify`` names it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gitstore.scope import same_scope

ACTIONS = {
    "accepted": "accept",
    "rejected": "reject",
    "retired": "retire",
    "auto-accepted": "auto-accept",
    "auto-active": "auto-accept",
}


def is_decision(record: Mapping[str, Any]) -> bool:
    """True for a learning version that carries a decision."""
    return record.get("schema") == "gitstore.learning/v1" and "decision" in record


def vouches(audit: Mapping[str, Any], decision: Mapping[str, Any]) -> bool:
    """Whether ``audit`` is the entry of the operation that wrote ``decision``."""
    return (
        audit.get("action") == ACTIONS.get(decision["state"])
        and audit.get("by") == decision["decision"]["by"]
        and decision["id"] in audit.get("subjects", ())
        and decision["digest"] in audit.get("records", ())
        and same_scope(audit.get("scope"), decision["scope"])
    )


def unvouched(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The decisions among ``records`` (one append's) that no audit entry among them vouches for.

    Each decision is compared only with the audit entries naming its digest among their
    records: an append of many decisions costs what it holds, not its square."""
    records = list(records)
    naming: dict[Any, list[Mapping[str, Any]]] = {}
    for audit in records:
        if audit.get("schema") == "gitstore.audit/v1":
            for digest in audit.get("records", ()):
                if isinstance(digest, str):
                    found = naming.setdefault(digest, [])
                    if not found or found[-1] is not audit:
                        found.append(audit)
    return [r for r in records
            if is_decision(r) and not any(vouches(a, r) for a in naming.get(r["digest"], ()))]


def why_bare(decision: Mapping[str, Any]) -> str:
    """What is wrong with a decision written without its audit entry (the caller says what
    follows: refused, or never used)."""
    action = ACTIONS.get(decision["state"], "?")
    return (f"learning {decision['id']} version {decision['version']} ({decision['digest']}) is a "
            f"{decision['state']} decision written without its {action} audit entry in the same append")


__all__ = ["ACTIONS", "is_decision", "unvouched", "vouches", "why_bare"]
