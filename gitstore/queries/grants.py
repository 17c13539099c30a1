"""``gitstore grants``: which grants are in force, for which purposes, and what was withdrawn.

A grant or withdrawal that carries no authority (a teammate's fetched into a clone without a
policy, one signed by nobody the policy lets grant, every one under a policy that cannot be
used) is listed too, saying why it is not used, as ``gitstore audit`` says it: a clone whose
grants all go unused is told so, never that it has none.

A grant's note and a withdrawal's reason are whatever their writer typed, perhaps in a clone
that runs no scanner: they are shown screened as ``gitstore show`` screens a learning's texts
(``queries.learnings.screened``), quarantined text replaced by a note and named under
``withheld``, secrets and home paths redacted. Digests stay the stored records'.

A grant naming personal sessions serves this machine's only when this clone made it
(``rules.consent``): one another clone made is listed saying so (``thisClone`` false)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gitstore.context import Context
from gitstore.store import LOCAL_SOURCES
from gitstore.rules.consent import withdrawn


@dataclass(frozen=True)
class GrantShown:
    """A grant with the purposes it still permits and the withdrawals that took the others;
    ``not_used`` says why it permits nothing, when it carries no authority."""

    grant: dict[str, Any]
    withdrawals: tuple[dict[str, Any], ...]
    gone: frozenset[str]  # purposes withdrawn from it, as the consent rule reads them
    not_used: str | None = None
    unused_withdrawals: tuple[tuple[dict[str, Any], str], ...] = ()  # withdrawals of it that carry no authority
    own: bool = True  # this clone made it: only then does it serve this machine's personal sessions
    local: bool = False  # kept on this machine (it names personal sessions only)

    @property
    def elsewhere(self) -> str | None:
        """Why the grant never serves this machine's personal sessions though it names them
        (another clone made it), or None."""
        if self.own or not set(self.grant["sources"]) & LOCAL_SOURCES:
            return None
        return "another clone's grant: it never lets this machine's personal sessions serve anything"

    @property
    def in_force(self) -> list[str]:
        return [] if self.not_used else [p for p in self.grant["purposes"] if p not in self.gone]

    @property
    def withdrawn(self) -> list[str]:
        return [p for p in self.grant["purposes"] if p in self.gone]

    @property
    def withheld(self) -> list[dict[str, Any]]:
        """What the scanner withheld: the note of the grant, the reason of each withdrawal of it
        (naming the withdrawal)."""
        found = list(self.grant.get("withheld", ()))
        for record in (*self.withdrawals, *(w for w, _ in self.unused_withdrawals)):
            found += [{**w, "withdrawal": record["digest"]} for w in record.get("withheld", ())]
        return found

    def to_json(self) -> dict[str, Any]:
        return {"digest": self.grant["digest"], "inForce": self.in_force, "withdrawn": self.withdrawn,
                "purposes": self.grant["purposes"], "sources": self.grant["sources"],
                "from": self.grant["from"], "until": self.grant["until"], "by": self.grant["by"],
                "at": self.grant["at"], "note": self.grant["note"], "notUsed": self.not_used,
                "thisClone": self.own, "keptLocal": self.local,
                "withdrawals": [_withdrawal(w) for w in self.withdrawals]
                + [_withdrawal(w, why) for w, why in self.unused_withdrawals],
                "withheld": self.withheld}


def _withdrawal(record: dict[str, Any], not_used: str | None = None) -> dict[str, Any]:
    return {"digest": record["digest"], "purposes": record["purposes"], "by": record["by"], "at": record["at"],
            "reason": record["reason"], "notUsed": not_used}


def grants(ctx: Context, *, in_force: bool = False) -> list[GrantShown]:
    """Every grant of this scope in store order (only those still permitting something when
    ``in_force``), each with its withdrawals, those that carry no authority with why."""
    from gitstore.queries.learnings import screened_record
    from gitstore.rules.view import View

    items = list(ctx.store.items(["grant", "withdrawal"]))
    view = View.of(ctx.store.scope, items, ctx.store)
    gone = withdrawn(view)
    unused = [(screened_record(i.record, "reason"), view.ignored[i.digest]) for i in items
              if i.kind == "withdrawal" and i.digest in view.ignored]
    shown, seen = [], set()
    for item in items:
        if item.kind != "grant" or item.digest in seen:
            continue
        seen.add(item.digest)
        d = item.digest
        shown.append(GrantShown(screened_record(item.record, "note"),
                                tuple(screened_record(w, "reason") for w in view.withdrawals if w["grant"] == d),
                                frozenset(gone.get(d, ())), view.ignored.get(d),
                                tuple((w, why) for w, why in unused if w["grant"] == d),
                                ctx.store.own(item), item.stored.namespace == "local"))
    return [g for g in shown if g.in_force or not in_force]


def broken_policy(ctx: Context) -> str | None:
    """Why the policy cannot be used, when it cannot (then no grant counts), or None."""
    mode = ctx.store.trust_mode()
    if mode.mode != "broken":
        return None
    return (f"the policy on {mode.branch} cannot be used ({mode.problem}): no grant counts until it is fixed and "
            "merged (`gitstore policy show`)")


__all__ = ["GrantShown", "broken_policy", "grants"]
