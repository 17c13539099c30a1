"""Keeping recall's index current across a capture that cannot change what it holds.

Every append moves a ref, so the index's fingerprint (``gitstore.deliver.heads``) no longer
matches and the next prompt starts a rebuild, which reads every learning and the evidence they
cite: seconds on a big store, longer than the context hook may take, so prompts after a capture
would get nothing until the rebuild ends. A capture appends to this clone's local records only
records no row can depend on, so the index it found current stays right; it is given the new
fingerprint instead (a copy renamed over it, as a build writes it).

That is done only when all of this holds, and otherwise the index is left to go stale as before:

- the index was current for the state read just before the append (``before``);
- the append wrote envelopes, receipts, episodes and events only, of episodes the index's rows
  do not depend on (the build lists the episodes it read: the ones the learnings that may be in
  force cite; an index whose build read every episode lists none and is never carried), and no
  event names a parent (a retraction or edit of an event elsewhere);
- between the two readings of the state nothing moved but this writer's local records ref and
  its payload snapshot ref, and the records ref moved by exactly one commit, from the target
  read before: no other append (of this process or another) slipped in between.

Anything that fails or cannot be read leaves the index as it is: a capture never fails for it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gitstore.deliver import db as sqlite_db
from gitstore.deliver import heads
from gitstore.deliver import index as idx
from gitstore.deliver.limits import Inert
from gitstore.deliver.place import Place, locate

HARMLESS = frozenset({"gitstore.envelope/v1", "gitstore.receipt/v1"})  # never read by the rules


@dataclass(frozen=True)
class Before:
    """The state an index was current for, read before an append."""

    place: Place
    lines: list[str]
    fingerprint: str
    evidence: frozenset[str]


def before(root: str) -> Before | None:
    """The current index's state, when the index is current and lists its evidence; else None."""
    try:
        place = locate(root)
        if place.provider != "git" or not os.path.exists(idx.path(place)):
            return None
        lines = heads.state(place)
        fingerprint = heads.digest(lines)
        found = idx.open_index(place, fingerprint)
        if found is None or lines is None or fingerprint is None:
            return None
        try:
            evidence = found.evidence()
        finally:
            found.close()
    except (Inert, OSError, sqlite_db.Error):
        return None
    if evidence is None:
        return None
    return Before(place, lines, fingerprint, evidence)


def after(start: Before | None, records: Iterable[dict[str, Any]]) -> bool:
    """Give the index the state this append left, when the append cannot change it (see the
    module's docstring); True when it did."""
    if start is None or not _harmless(records, start.evidence):
        return False
    try:
        return _rekey(start)
    except (Inert, OSError, sqlite_db.Error, ValueError):
        return False


def _harmless(records: Iterable[dict[str, Any]], evidence: frozenset[str]) -> bool:
    for record in records:
        schema = record.get("schema")
        if schema in HARMLESS:
            continue
        if schema == "gitstore.episode/v1":
            episode = record.get("id")
        elif schema == "gitstore.event/v1":
            if record.get("parentEventId") is not None:
                return False
            episode = record.get("episode")
        else:
            return False
        if not isinstance(episode, str) or episode in evidence:
            return False
    return True


def _rekey(start: Before) -> bool:
    from gitstore.deliver.build import build_lock

    place = start.place
    writer = place.config.get("writer")
    lines = heads.state(place)
    fingerprint = heads.digest(lines)
    if not isinstance(writer, str) or lines is None or fingerprint is None or lines[:heads.HEAD_LINES] != start.lines[:heads.HEAD_LINES]:
        return False
    records_ref = f"{heads.REFS}v1/records/local/{writer}"
    payloads_ref = f"{heads.REFS}v1/payloads/local/{writer}"
    old, new = heads.git_refs(start.lines), heads.git_refs(lines)
    moved = {key for key in old.keys() | new.keys() if old.get(key) != new.get(key)}
    if not moved or any(name not in (records_ref, payloads_ref) for _, name in moved):
        return False
    records = [key for key in moved if key[1] == records_ref]
    if len(records) != 1 or any(folder != records[0][0] for folder, _ in moved) or records[0][0] == place.common:
        return False  # both refs move in the local store, a git folder of its own
    if not _one_commit(records[0][0], old.get(records[0]), new.get(records[0])):
        return False
    with build_lock(place, wait=False) as held:
        if not held or heads.fingerprint(place) != fingerprint:
            return False
        return _rename_with(place, start.fingerprint, fingerprint)


def _one_commit(folder: str, old: str | None, new: str | None) -> bool:
    """Whether ``new`` is a commit whose only parent is ``old`` (none when ``old`` is None)."""
    import pygit2

    if new is None:
        return False
    try:
        commit = pygit2.Repository(folder)[new]
    except (KeyError, ValueError, pygit2.GitError):
        return False
    if not isinstance(commit, pygit2.Commit):
        return False
    return [str(p) for p in commit.parent_ids] == ([old] if old is not None else [])


def _rename_with(place: Place, old: str, new: str) -> bool:
    """A copy of the index holding ``new`` for ``old``, renamed over it."""
    path = idx.path(place)
    temp = f"{path}.{os.getpid()}.carry"
    try:
        shutil.copyfile(path, temp)
        db = sqlite_db.connect(temp)
        try:
            changed = db.execute("UPDATE meta SET value = ? WHERE name = 'fingerprint' AND value = ?",
                                 (new, old)).rowcount
        finally:
            db.close()
        if changed != 1:
            return False
        os.replace(temp, path)
        return True
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
