"""Opening gitstore in a repository: its workspace and its store, the one way every command,
query and operation does it.

``Context.open(start)`` finds the repository around ``start``, reads this clone's configuration
(``gitstore.config``), opens the configured provider and wraps it in the store that checks every
record. Read commands then ask ``gitstore.queries`` and write commands ``gitstore.ops``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from gitstore.config import Workspace
from gitstore.providers import AppendResult, open_provider
from gitstore.records.contracts import seal
from gitstore.records.times import now
from gitstore.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitstore.rules.view import View


class Context:
    """A workspace with its store opened."""

    __slots__ = ("workspace", "store")

    def __init__(self, workspace: Workspace, store: Store) -> None:
        self.workspace = workspace
        self.store = store

    @classmethod
    def open(cls, start: str | Path = ".") -> Context:
        workspace = Workspace.find(start)
        provider = open_provider(workspace.config.provider, workspace.root, workspace.state,
                                 workspace.config.writer)
        return cls(workspace, Store(provider, workspace.scope))

    @property
    def scope(self) -> str:
        return str(self.workspace.scope)  # what records are written with: the scope alone, never a former one

    def view(self, *, payloads: bool = True, kinds: Iterable[str] | None = None) -> View:
        """The records of this scope (only ``kinds``, when given), indexed for the rules."""
        from gitstore.rules.view import View  # the rules' index: a capture, which writes only, goes without

        return View.load(self.store, payloads=payloads, kinds=kinds)

    def person(self, by: str | None) -> str:
        """Who acts, for ``--by``: by default, under a policy, the person this clone signs as (a
        decision counts only as theirs), else ``git:<user.email>``."""
        from gitstore.records.identity import person  # a capture, which names nobody, goes without

        if by is None and (signs_as := self.store.signing_as()):
            return signs_as[0]
        return person(by, self.workspace.repo)

    def audit(self, action: str, by: str, subjects: Sequence[str], records: Sequence[dict[str, Any]],
              reason: str | None = None, at: str | None = None) -> dict[str, Any]:
        """The audit entry for an action, naming the records written with it."""
        scopes = {r.get("scope") for r in records}  # a step on a learning of a former scope names its scope
        alone = next(iter(scopes)) if len(scopes) == 1 else None  # (the store writes it only for a declared one)
        return seal({
            "schema": "gitstore.audit/v1",
            "scope": alone if isinstance(alone, str) else self.scope,
            "action": action,
            "by": by,
            "at": at or now(),
            "subjects": [s[:100] for s in subjects] or ["-"],
            "records": list(dict.fromkeys(r["digest"] for r in records)),
            "reason": reason,
        })

    def write(self, records: Sequence[dict[str, Any]], action: str, by: str, subjects: Sequence[str],
              reason: str | None = None, *, if_head: tuple[str, str | None] | None = None,
              namespace: str | None = None, decided: bool = False) -> AppendResult:
        """Append records with their audit entry, all or nothing (``decided``: the caller is the
        operation that checked the decisions among them)."""
        entry = self.audit(action, by, subjects, records, reason)
        return self.store.append([*records, entry], if_head=if_head, namespace=namespace,  # type: ignore[arg-type]
                                 decided=decided)


__all__ = ["Context"]
