"""Admitting fetched writer refs: records another clone wrote are used only once verified.

A plain ``git fetch`` moves ``refs/memory/v1/remotes/<remote>/records/shared/<writer>``
without asking gitstore. Before the store reads a fetched ref's records it verifies every
commit that arrived since the tip it last admitted (all of them the first time): the history
is linear, every message parses, clocks grow, and each commit adds exactly the records it
lists, each in canonical form, satisfying its contract and hashing to its digest. A ref that
passes is admitted at that tip; one that fails is quarantined whole, with the first problem
as its reason, until its tip moves again. A store reads one repository's memory: a record of
another scope (another repository's) is a problem too, as it is to ``gitstore sync``, so a plain
fetch and a sync admit the same refs. Both are remembered in ``.git/gitstore/admitted.json``
(``{ref: {"tip": ..., "problem": null | "...", "scope": ...}}``), so a read after a fetch of N
new commits verifies those N and nothing else, and a read without a fetch verifies nothing; a
verdict reached for another scope (or none) is reached again.

This clone's own refs are never admitted this way: they fail closed (see ``git.py``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import NamedTuple

import pygit2

from gitstore import _jsontext
from gitstore.providers._objects import descends

ADMITTED = "admitted.json"


class Admission(NamedTuple):
    """Where a fetched ref stands: admitted at ``tip``, or quarantined at ``tip`` because of
    ``problem``."""

    ref: str
    tip: str
    problem: str | None = None

    @property
    def admitted(self) -> bool:
        return self.problem is None

    def __str__(self) -> str:
        if self.admitted:
            return f"{self.ref}: admitted at {self.tip[:12]}"
        return f"{self.ref}: quarantined, not read ({self.problem})"


class Admissions:
    """The admission of every fetched ref, read from and saved to ``.git/gitstore``."""

    def __init__(self, state: Path) -> None:
        self.path = state / ADMITTED
        self._known = self._load()
        self._changed = False

    def _load(self) -> dict[str, dict[str, str | None]]:
        try:
            data = _jsontext.loads(self.path.read_text(encoding="ascii"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def check(self, repo: pygit2.Repository, ref: str, tip: pygit2.Oid, scope: str | None = None) -> Admission:
        """The ref's admission at ``tip``, verifying what arrived since it was last admitted;
        with ``scope``, its records must all be of that scope."""
        known = self._known.get(ref)
        if isinstance(known, dict) and known.get("tip") == str(tip) and known.get("scope") == scope:
            return Admission(ref, str(tip), known.get("problem"))
        since = self._admitted_ancestor(repo, known, tip, scope)
        from gitstore.providers._verify_git import verify_arrived

        problems = verify_arrived(repo, ref, tip, since, scope).problems
        found = Admission(ref, str(tip), str(problems[0]) if problems else None)
        self._known[ref] = {"tip": found.tip, "problem": found.problem, "scope": scope}
        self._changed = True
        return found

    def verified_until(self, repo: pygit2.Repository, ref: str, tip: pygit2.Oid, scope: str) -> pygit2.Oid | None:
        """The tip ``ref`` was admitted at for ``scope``, when ``tip`` extends it: what a check
        of ``tip`` need not verify again (None: all of it)."""
        return self._admitted_ancestor(repo, self._known.get(ref), tip, scope)

    def admitted(self, ref: str, tip: pygit2.Oid, scope: str | None) -> None:
        """Record that ``ref`` at ``tip`` was verified for ``scope`` and passed (by ``gitstore
        sync``, before it moved the ref there)."""
        self._known[ref] = {"tip": str(tip), "problem": None, "scope": scope}
        self._changed = True

    @staticmethod
    def _admitted_ancestor(repo: pygit2.Repository, known: object, tip: pygit2.Oid,
                           scope: str | None) -> pygit2.Oid | None:
        """The tip admitted before for ``scope``, when it is still in the ref's history (what to
        verify from)."""
        if not isinstance(known, dict) or known.get("problem") is not None or known.get("scope") != scope:
            return None
        try:
            before = pygit2.Oid(hex=str(known.get("tip")))
            return before if before in repo and descends(repo, tip, before) else None
        except (ValueError, pygit2.GitError):
            return None

    def forget(self, present: set[str]) -> None:
        """Drop refs that no longer exist (a remote removed, a writer pruned)."""
        for ref in [r for r in self._known if r not in present]:
            del self._known[ref]
            self._changed = True

    def save(self) -> None:
        """Write what changed (atomically; a lost race only means verifying again)."""
        if not self._changed:
            return
        temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}")
        try:
            temporary.write_text(json.dumps(self._known, sort_keys=True, indent=0), encoding="ascii")
            os.replace(temporary, self.path)
        except OSError:
            temporary.unlink(missing_ok=True)  # a read-only state folder: verify again next time
        self._changed = False


__all__ = ["ADMITTED", "Admission", "Admissions"]
