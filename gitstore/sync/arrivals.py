"""What a fetch brought, checked before anything reads it.

``gitstore sync`` fetches every writer's refs from a remote into names of its own, then asks
here, ref by ref, whether what arrived may be admitted:

- a writer's records ref must extend the tip admitted before (a ref moved back, or to a history
  that no longer holds it, is refused: records already stored are never given up), and every
  commit that arrived must verify as ``gitstore verify`` checks it (a linear history of append
  commits, each adding exactly the records it lists, canonical, within their contract, hashing
  to their digest, no larger than a record may be), each record of this repository's scope;
- a payload snapshot must be a parentless commit whose every new payload hashes to its name,
  holding no redaction notes (a removal travels in an append, with its audit entry), and
  dropping no payload that no stored append removed.

Each check returns the first problem found, in words a person can act on, or None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pygit2

from gitstore.providers._objects import (
    BLOB_MODE, MAX_PAYLOAD_BYTES, Oversized, Unreadable, descends, load_commit, read_blob,
)
from gitstore.providers._verify_git import _PAYLOAD, changes, verify_arrived
from gitstore.records.canonical import sha256_digest


@dataclass(frozen=True)
class Checked:
    """What a check found: the records (or payloads) that arrived, and the first problem."""

    count: int
    problem: str | None = None


def _object(repo: pygit2.Repository, oid: pygit2.Oid) -> pygit2.Object | str:
    """The object at ``oid``, or what is wrong with it."""
    try:
        return load_commit(repo, oid)
    except KeyError:
        return f"{oid} is missing"
    except Oversized as exc:
        return str(exc)
    except (pygit2.GitError, ValueError) as exc:
        return f"{oid} cannot be read ({exc})"


def check_records(repo: pygit2.Repository, ref: str, before: pygit2.Oid | None, tip: pygit2.Oid,
                  verified: pygit2.Oid | None, scope: str) -> Checked:
    """Whether a fetched writer's records ref may move from ``before`` (None: new) to ``tip``;
    ``verified`` is the ancestor of ``tip`` already verified (None: verify all of it)."""
    found = _object(repo, tip)
    if isinstance(found, str):
        return Checked(0, found)
    if not isinstance(found, pygit2.Commit):
        return Checked(0, f"points at a {found.type_str}, not a commit")
    if before is not None and before != tip and not extends(repo, tip, before):
        lost = "moved back" if extends(repo, before, tip) else "rewritten"
        return Checked(0, f"history {lost}: it no longer holds {str(before)[:12]}, admitted before; "
                          "records already stored are never given up")
    report = verify_arrived(repo, ref, tip, verified, scope)
    if not report.problems:
        return Checked(report.records)
    first = report.problems[0]
    where = first.where[len(ref):].strip()  # "commit <id>" when it names one
    return Checked(report.records, f"{where}: {first.message}" if where else first.message)


def extends(repo: pygit2.Repository, tip: pygit2.Oid, base: pygit2.Oid) -> bool:
    """Whether ``tip`` descends from ``base`` (False when either is not here), every commit
    between read bounded (``descends``)."""
    return descends(repo, tip, base)


def check_snapshot(repo: pygit2.Repository, before: pygit2.Oid | None, tip: pygit2.Oid,
                   removed: Callable[[set[str]], set[str]]) -> Checked:
    """Whether a fetched payload snapshot may replace ``before`` (None: new). ``removed`` is
    given the payload digests it drops and returns those no stored append removed (or named)."""
    found = _object(repo, tip)
    if isinstance(found, str):
        return Checked(0, found)
    if not isinstance(found, pygit2.Commit) or found.parent_ids:
        return Checked(0, "a payload snapshot must be a parentless commit" if isinstance(found, pygit2.Commit)
                       else f"points at a {found.type_str}, not a commit")
    old = _tree_of(repo, before)
    count, dropped = 0, set()
    try:
        for status, path, mode, oid in changes(repo.odb, old, found.tree_id.raw):
            match = _PAYLOAD.match(path)
            if not match or match.group(2) + match.group(3) != match.group(4)[:4]:
                return Checked(count, f"{path} is at the wrong path")
            if match.group(1):
                return Checked(count, f"holds the redaction note {path}: a removal travels in an append, "
                                      "with its audit entry, never in a payload snapshot")
            if status == "D":
                dropped.add("sha256:" + match.group(4))
                continue
            if mode != BLOB_MODE:
                return Checked(count, f"{path} is not a regular file")
            if sha256_digest(read_blob(repo.odb, oid, MAX_PAYLOAD_BYTES)) != "sha256:" + match.group(4):
                return Checked(count, f"payload {path} does not match its digest")
            count += 1
    except Unreadable as exc:
        return Checked(count, str(exc))
    unexplained = removed(dropped) if dropped else set()
    if unexplained:
        return Checked(count, f"drops {len(unexplained)} payload(s) no stored append removed "
                              f"(first {sorted(unexplained)[0]}); text leaves memory only through a redaction")
    return Checked(count)


def _tree_of(repo: pygit2.Repository, commit: pygit2.Oid | None) -> bytes | None:
    """The raw tree id of an admitted snapshot (None when there is none to compare with)."""
    if commit is None:
        return None
    found = _object(repo, commit)
    return found.tree_id.raw if isinstance(found, pygit2.Commit) else None


__all__ = ["Checked", "check_records", "check_snapshot", "extends"]
