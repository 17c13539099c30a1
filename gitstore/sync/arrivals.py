"""What a fetch brought, checked before anything reads it.

``gitstore sync`` fetches every writer's refs from a remote into names of its own, then asks
here, ref by ref, whether what arrived may be admitted:

- a writer's records ref must extend the tip admitted before (a ref moved back, or to a history
  that no longer holds it, is refused: records already stored are never given up; sync first
  asks whether a history of another writer parts from it, ``Admissions.fork``, and checks such
  a fork from the commit both hold, the history it parts from kept beside it), and every
  commit that arrived must verify as ``gitstore verify`` checks it (a linear history of append
  commits, each adding exactly the records it lists, canonical, within their contract, hashing
  to their digest, no larger than a record may be), each record of this repository's scope;
- a payload snapshot must be a parentless commit whose every new payload hashes to its name,
  holding no redaction notes (a removal travels in an append, with its audit entry), and
  dropping no payload that no stored append removed.

Each check returns the first problem found, in words a person can act on, or None; a records
ref that fails also says how far it verifies (``Checked.verified``: the newest commit before the
first that fails), which sync moves the fetched ref to while the rest stays held in quarantine.
"""

from __future__ import annotations

import pygit2

from gitstore.providers._admit import Checked, check_snapshot, object_at
from gitstore.providers._objects import descends
from gitstore.providers._verify_git import arrived


def check_records(repo: pygit2.Repository, ref: str, before: pygit2.Oid | None, tip: pygit2.Oid,
                  verified: pygit2.Oid | None, scope: str) -> Checked:
    """Whether a fetched writer's records ref may move from ``before`` (None: new) to ``tip``;
    ``verified`` is the ancestor of ``tip`` already verified (None: verify all of it). When it
    fails, the commits after ``verified`` before the first that fails are its verified prefix
    (``Checked.verified``, the newest of them, and ``arrived``, the records they add)."""
    found = object_at(repo, tip)
    if isinstance(found, str):
        return Checked(0, found)
    if not isinstance(found, pygit2.Commit):
        return Checked(0, f"points at a {found.type_str}, not a commit")
    if before is not None and before != tip and not extends(repo, tip, before):
        lost = "moved back" if extends(repo, before, tip) else "rewritten"
        return Checked(0, f"history {lost}: it no longer holds {str(before)[:12]}, admitted before; "
                          "records already stored are never given up")
    found = arrived(repo, ref, tip, verified, scope)
    report = found.report
    if not report.problems:
        return Checked(report.records)
    first = report.problems[0]
    where = first.where[len(ref):].strip()  # "commit <id>" when it names one
    return Checked(found.records, f"{where}: {first.message}" if where else first.message, verified=found.verified)


def extends(repo: pygit2.Repository, tip: pygit2.Oid, base: pygit2.Oid) -> bool:
    """Whether ``tip`` descends from ``base`` (False when either is not here), every commit
    between read bounded (``descends``)."""
    return descends(repo, tip, base)


__all__ = ["Checked", "check_records", "check_snapshot", "extends"]
