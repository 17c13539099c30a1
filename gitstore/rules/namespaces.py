"""A learning's namespace follows its evidence, and its audience.

Every clone must reach the same verdict on a shared learning using only shared records. A
learning that cites a personal (local) session, follows a local version or replaces a local
learning is therefore kept local by the store; so is one whose audience is ``personal`` (one
person's machine or tools: no teammate's agent gets it). One found shared anyway (written by an
older version, or by hand) is never used, on this clone either, and ``gitstore verify`` names
it. Of a personal learning, only a shared version that puts it in force (accepted, or
auto-active) is: no agent gets a proposal, and a person accepting one here keeps the acceptance
on this machine.

The same holds of evidence: a personal session's episode is kept local, always
(``gitstore.store.LOCAL_SOURCES``), so one found shared was pushed by someone, and no clone
can tell whose session it was, nor whether anyone ran it. Every read leaves it out
(``stray_session``, applied by ``View``), so nothing citing it has that evidence, and
``gitstore verify`` names it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitstore.rules.lifecycle import USABLE, History
from gitstore.store import LOCAL_SOURCES, Item

if TYPE_CHECKING:
    from gitstore.rules.view import View


def stray_session(item: Item) -> str | None:
    """Why an episode read back is never used: a personal session's, found in the shared
    namespace, where the store never writes one (None for any other record)."""
    if item.kind != "episode" or item.stored.namespace != "shared" \
            or item.record["source"]["kind"] not in LOCAL_SOURCES:
        return None
    return (f"episode {item.digest} ({item.record['id']}) is a personal {item.record['source']['kind']} kept in "
            "the shared namespace, where gitstore never writes one (personal sessions stay on their machine): "
            "someone who can push wrote it, so no clone can tell whose session it was; it is never used, "
            "and nothing citing it has that evidence")


def misplaced(view: View, history: History) -> str | None:
    """Why a learning's shared versions cannot be judged from shared records, or None."""
    local_seen = False
    for item in history.chain:
        record = item.record
        if item.stored.namespace == "local":
            local_seen = True
            continue
        cited = [r["episode"] for r in [*record["evidence"], *record["counterevidence"]]]
        personal = sorted({e for e in cited if e in view.local_episodes})
        where = f"shared version {record['version']} ({item.digest})"
        if personal:
            return f"{where} cites a personal session ({personal[0]}) other clones never receive"
        if record["audience"] == "personal" and record["state"] in USABLE:
            return (f"{where} is {record['state']} with audience personal, which stays on its author's machine: "
                    "shared, every teammate's agent would get it (propose it again, and it is kept local)")
        if local_seen:
            return f"{where} follows a local version other clones never receive"
        replaced = sorted(r for r in record["replaces"] if _is_local(view, r))
        if replaced:
            return f"{where} replaces {replaced[0]}, a local learning other clones never receive"
    return None


def _is_local(view: View, learning_id: str) -> bool:
    return any(item.stored.namespace == "local" for item in view.learnings.get(learning_id, ()))
