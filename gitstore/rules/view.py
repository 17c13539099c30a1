"""A consistent, re-checked snapshot of one scope's records, indexed for the rules."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gitstore.store import Item, Store

T = TypeVar("T")


@dataclass
class View:
    """Everything the rules need, loaded once; loading fails closed on any damaged record."""

    scope: str
    items: list[Item] = field(default_factory=list)
    grants: dict[str, dict[str, Any]] = field(default_factory=dict)
    withdrawals: list[dict[str, Any]] = field(default_factory=list)
    episodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    events: dict[str, dict[str, Any]] = field(default_factory=dict)
    children: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    learnings: dict[str, list[Item]] = field(default_factory=lambda: defaultdict(list))
    exports: list[dict[str, Any]] = field(default_factory=list)
    audits: list[dict[str, Any]] = field(default_factory=list)
    position: dict[str, int] = field(default_factory=dict)
    _memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def load(cls, store: Store, *, payloads: bool = True, kinds: Iterable[str] | None = None) -> View:
        """The store's records (only ``kinds``, when given) in store order."""
        view = cls(scope=store.scope)
        view.add(store.items(kinds, payloads=payloads))
        return view

    def add(self, items: Iterable[Item]) -> None:
        """Index more records, read in store order after those already here (a view loaded
        a kind at a time; the rules compare positions only among records of one kind)."""
        for index, item in enumerate(items, start=len(self.items)):
            self._add(item, index)

    def _add(self, item: Item, index: int) -> None:
        if self._memo:
            self._memo.clear()
        record = item.record
        self.items.append(item)
        self.position[item.digest] = index
        kind = item.kind
        if kind == "grant":
            self.grants[item.digest] = record
        elif kind == "withdrawal":
            self.withdrawals.append(record)
        elif kind == "episode":
            known = self.episodes.get(record["id"])
            # one session captured twice (degraded, then complete) is one episode: the complete
            # capture stands for it; otherwise the first in store order does
            if known is None or (known["capture"] == "degraded" and record["capture"] == "complete"):
                self.episodes[record["id"]] = record
        elif kind == "event":
            if record["id"] not in self.events:
                self.events[record["id"]] = record
                if record.get("parentEventId"):
                    self.children[record["parentEventId"]].append(record)
        elif kind == "learning":
            self.learnings[record["id"]].append(item)
        elif kind == "export":
            self.exports.append(record)
        elif kind == "audit":
            self.audits.append(record)

    def memo(self, key: Any, build: Callable[[], T]) -> T:
        """A value the rules derive from the loaded records, built once per view (adding a
        record forgets it). Callers treat what it returns as read-only."""
        try:
            value: T = self._memo[key]
        except KeyError:
            value = self._memo[key] = build()
        return value

    def order_of(self, digest: str) -> int:
        """Position of a record in store order (every clone computes the same)."""
        return self.position[digest]
