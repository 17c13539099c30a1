"""``gitstore grants``: which grants are in force, for which purposes, and what was withdrawn."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gitstore.context import Context
from gitstore.rules.consent import withdrawn


@dataclass(frozen=True)
class GrantShown:
    """A grant with the purposes it still permits and the withdrawals that took the others."""

    grant: dict[str, Any]
    withdrawals: tuple[dict[str, Any], ...]
    gone: frozenset[str]  # purposes withdrawn from it, as the consent rule reads them

    @property
    def in_force(self) -> list[str]:
        return [p for p in self.grant["purposes"] if p not in self.gone]

    @property
    def withdrawn(self) -> list[str]:
        return [p for p in self.grant["purposes"] if p in self.gone]

    def to_json(self) -> dict[str, Any]:
        return {"digest": self.grant["digest"], "inForce": self.in_force, "withdrawn": self.withdrawn,
                "purposes": self.grant["purposes"], "sources": self.grant["sources"],
                "from": self.grant["from"], "until": self.grant["until"], "by": self.grant["by"],
                "at": self.grant["at"], "note": self.grant["note"],
                "withdrawals": [{"digest": w["digest"], "purposes": w["purposes"], "by": w["by"], "at": w["at"],
                                 "reason": w["reason"]} for w in self.withdrawals]}


def grants(ctx: Context, *, in_force: bool = False) -> list[GrantShown]:
    """Every grant of this scope in store order (only those still permitting something when
    ``in_force``), each with its withdrawals."""
    view = ctx.view(payloads=False, kinds=("grant", "withdrawal"))
    gone = withdrawn(view)
    shown = [GrantShown(g, tuple(w for w in view.withdrawals if w["grant"] == d), frozenset(gone.get(d, ())))
             for d, g in view.grants.items()]
    return [g for g in shown if g.in_force or not in_force]


__all__ = ["GrantShown", "grants"]
