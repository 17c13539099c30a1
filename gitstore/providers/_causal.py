"""What an append had seen when it was made: the causal order of a git store's appends.

A writer can claim any clock, so clocks cannot tell whether one append was made knowing
another. Each records commit says instead: its parent (the writer's previous append) and one
``Seen: <writer> <commit>`` header for each other writer's tip it had seen that its earlier
appends had not named (the writer's own history carries the rest). An append had seen another
when that one is reachable from it through parents and ``Seen`` headers. Every clone holding
both commits computes the same answer, whatever clocks they claim; a ``Seen`` naming a commit
this clone does not hold adds nothing here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol


class _Header(Protocol):
    @property
    def seen(self) -> tuple[tuple[str, str], ...]: ...


class Causality:
    """Reachability over the appends of every records ref read (``histories``: ref name ->
    its appends oldest first, as (header, commit id))."""

    def __init__(self, histories: Iterable[tuple[str, Sequence[tuple[_Header, object]]]]) -> None:
        self._chains: dict[str, list[tuple[str, ...]]] = {}  # ref -> Seen commits of each append
        self._index: dict[str, dict[str, int]] = {}  # ref -> commit -> position
        self._where: dict[str, tuple[str, int]] = {}  # commit -> (a ref holding it, position)
        for ref, history in histories:
            self._chains[ref] = [tuple(commit for _, commit in header.seen) for header, _ in history]
            positions = self._index[ref] = {}
            for position, (_, oid) in enumerate(history):
                positions[str(oid)] = position
                self._where.setdefault(str(oid), (ref, position))
        self._memo: dict[tuple[str, str], bool] = {}

    def knows(self, append: str) -> bool:
        """Whether ``append`` is one of the appends this was built from."""
        return append in self._where

    def saw(self, later: str, earlier: str) -> bool:
        """Whether append ``later`` was made having seen append ``earlier`` (an append has seen
        itself). False when either is unknown here."""
        if later == earlier:
            return True
        key = (later, earlier)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._reach(later, earlier)
        return found

    def _reach(self, later: str, earlier: str) -> bool:
        start = self._where.get(later)
        if start is None or earlier not in self._where:
            return False
        reached: dict[str, int] = {}  # ref -> the furthest position reached in it
        todo = [start]
        while todo:
            ref, position = todo.pop()
            if reached.get(ref, -1) >= position:
                continue
            done = reached.get(ref, -1)
            reached[ref] = position
            if self._index[ref].get(earlier, position + 1) <= position:
                return True
            # the Seen headers of every append up to this one, latest first, not yet followed
            for seen in reversed(self._chains[ref][done + 1: position + 1]):
                for commit in seen:
                    found = self._where.get(commit)
                    if found is not None:
                        if self._index[found[0]].get(earlier, found[1] + 1) <= found[1]:
                            return True
                        todo.append(found)
        return False


__all__ = ["Causality"]
