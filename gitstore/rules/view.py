"""A consistent, re-checked snapshot of one scope's records, indexed for the rules.

A decision that arrived without the audit entry that vouches for it in the same append (see
``gitstore.records.authority``), a decision, grant or withdrawal that carries no authority
(``gitstore.rules.trust``: fetched without a policy, unsigned or signed by someone the policy
does not allow), and a personal session's episode found in the shared namespace
(``gitstore.rules.namespaces.stray_session``) is left out, on every clone, and kept in
``ignored`` with the reason.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gitstore._collector import collector_paused
from gitstore.providers import Stored
from gitstore.records.authority import is_decision, unvouched, vouches, why_bare
from gitstore.store import Item, Store, store_order_saw
from gitstore.rules.namespaces import stray_session
from gitstore.rules.trust import NO_AUTHORITY

T = TypeVar("T")
SHARE_FROM = 20_000  # records a view reads before it keeps equal values once (``View._shared``)


@dataclass
class View:
    """Everything the rules need, loaded once; loading fails closed on any damaged record."""

    scope: str
    items: list[Item] = field(default_factory=list)
    # the store's scope with the former scopes its default branch declares (``scope.Scope``, read
    # when first asked for): whose records are this repository's (``scope.admits``); the scope alone
    # when the view has no store
    home: str | None = field(default=None, repr=False, compare=False)
    grants: dict[str, dict[str, Any]] = field(default_factory=dict)
    withdrawals: list[dict[str, Any]] = field(default_factory=list)
    episodes: dict[str, dict[str, Any]] = field(default_factory=dict)
    events: dict[str, dict[str, Any]] = field(default_factory=dict)
    # event or episode id -> the other records claiming that id (a digest of their own), in store
    # order: anyone who can push can write one, and store order is a clock its writer claims
    rivals: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    children: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    learnings: dict[str, list[Item]] = field(default_factory=lambda: defaultdict(list))
    exports: list[dict[str, Any]] = field(default_factory=list)
    audits: list[dict[str, Any]] = field(default_factory=list)
    local_episodes: set[str] = field(default_factory=set)  # episode ids kept in the local namespace
    # digests of the grants this clone made (kept local, or appended by it): the only ones that
    # let evidence kept in the local namespace serve a purpose (``rules.consent``)
    own_grants: set[str] = field(default_factory=set)
    ignored: dict[str, str] = field(default_factory=dict)  # digest -> why the rules ignore it
    strays: dict[str, str] = field(default_factory=dict)  # episode id -> digest of one left out (``stray_session``)
    heads: dict[str, str] = field(default_factory=dict)  # learning id -> its stream's last record
    # the only episodes whose records were read (a view of some evidence: ``queries._views``);
    # None when every episode asked for was
    episodes_read: frozenset[str] | None = None
    # the only learnings whose records were read (``of_learnings``); None when every one was
    learnings_read: frozenset[str] | None = None
    saw: Callable[[Stored, Stored], bool] = field(default=store_order_saw, repr=False, compare=False)
    judge: Callable[[Item, bool], str | None] | None = field(default=None, repr=False, compare=False)
    copies: Callable[[Item], list[Item]] | None = field(default=None, repr=False, compare=False)
    own: Callable[[Item], bool] | None = field(default=None, repr=False, compare=False)
    _states: dict[str, str] = field(default_factory=dict, repr=False, compare=False)  # version -> state
    _memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    # records added before the view held SHARE_FROM of them, their values not interned yet; None after
    _unshared: list[Item] | None = field(default_factory=list, repr=False, compare=False)

    @classmethod
    def load(cls, store: Store, *, payloads: bool = True, kinds: Iterable[str] | None = None) -> View:
        """The store's records (only ``kinds``, when given) in store order. A view holding
        learnings reads the audit entries too: they are what vouches for a decision."""
        if kinds is not None:
            kinds = list(kinds)
            if "learning" in kinds and "audit" not in kinds:
                kinds.append("audit")
        return cls.of(str(store.scope), store.items(kinds, payloads=payloads), store)

    @classmethod
    def of(cls, scope: str, items: Iterable[Item], store: Store | None = None) -> View:
        """A view of items in store order (each already re-checked). With ``store``, it asks the
        store whether one append was made having seen another (``Store.saw``), whether each
        decision, grant and withdrawal carries authority (``Store.authority_problem``) and
        whether a grant is this clone's own (``Store.own``); without one, store order stands
        for the first and every record is the clone's own."""
        view = cls(scope=scope) if store is None else cls(scope=scope, saw=store.saw, judge=store.authority_problem,
                                                          copies=store.copies, own=store.own, home=store.scope)
        view.add(items)
        return view

    @classmethod
    def of_learnings(cls, store: Store, ids: Collection[str]) -> View:
        """A view of only these learnings, with the audit entries that can vouch for their
        decisions: each one's history and head as a view of the whole store finds them, read at
        the cost of what they hold (``learning_items``), not of every learning stored."""
        view = cls.of(str(store.scope), (), store)
        view.add(learning_items(store, ids))
        view.learnings_read = frozenset(ids)
        return view

    def histories(self) -> dict[str, Any]:
        """Every learning's history, checked and settled (``rules.lifecycle``), built once."""
        from gitstore.rules.lifecycle import histories

        return self.memo("lifecycle.histories", lambda: histories(self.learnings, self.saw, self.copies))

    def add(self, items: Iterable[Item]) -> None:
        """Index more records, read in store order after those already here (a view loaded
        a kind at a time; the rules compare positions only among records of one kind). A
        decision without the audit entry of its own append among ``items`` is ignored."""
        with collector_paused():  # records hold no cycles: the collector would go over them again and again
            self._add_all(items)

    def _add_all(self, items: Iterable[Item]) -> None:
        # equal plain values among these records, each kept once; the keys go when this add
        # ends (a key per distinct value would outweigh what records added later could share)
        values: dict[tuple[Any, ...], Any] = {}
        items = [self._shared(item.lean(), values) for item in items]  # as they come: the list holds them all
        bare = {item.digest: f"{why_bare(item.record)}; it is never used" for item in bare_decisions(items)}
        if self.judge is not None:
            self._judge(items, bare)
        self.ignored.update(bare)
        self._set_aside_strays(items)
        for item in items:
            if item.kind == "learning":
                self.heads[item.record["id"]] = item.digest
            if item.digest not in self.ignored:
                self._add(item)

    def _shared(self, item: Item, values: dict[tuple[Any, ...], Any]) -> Item:
        """``item``, its values kept once (``interned``) when the view has read ``SHARE_FROM``
        records, and at that point those of every record it read before: sharing keeps the view
        of a big store small, and would cost a small one's read about a tenth of its time for
        memory nobody misses."""
        unshared = self._unshared
        if unshared is None:
            return interned(item, values)
        unshared.append(item)
        if len(unshared) >= SHARE_FROM:
            self._unshared = None
            for earlier in unshared:
                interned(earlier, values)
        return item

    def _judge(self, items: list[Item], bare: dict[str, str]) -> None:
        """Leave out decisions, grants and withdrawals that carry no authority, with why (in
        ``bare``, beside the decisions no audit entry vouches for).

        Where a record was read from is the first append in store order that holds it, and a
        writer claims its own clock: anyone who can push can copy a signed decision into an
        unsigned append placed first. So a record that does not count where it was read from
        is placed in the first other append holding it where it does, if any (with the audit
        entry of that append, for a decision): a copy never takes a decision's force away."""
        assert self.judge is not None
        self._states.update((i.digest, i.record["state"]) for i in items if i.kind == "learning")
        vouching: dict[str, list[dict[str, Any]]] | None = None  # append -> its audit entries, made when needed
        for index, item in enumerate(items):
            if item.digest in self.ignored or item.kind not in ("learning", "grant", "withdrawal"):
                continue
            if item.kind == "learning" and not is_decision(item.record):
                continue
            extends = self._states.get(item.record.get("previous") or "") == "accepted"
            problem = None if item.digest in bare else self.judge(item, extends)
            if problem is None and item.digest not in bare:
                continue
            for copy in self.copies(item) if self.copies is not None else ():
                if item.kind == "learning":
                    vouching = self._audits_by_append(items) if vouching is None else vouching
                    if not any(vouches(a, item.record) for a in vouching.get(copy.stored.append, ())):
                        continue
                if self.judge(copy, extends) is None:
                    items[index] = copy
                    bare.pop(item.digest, None)
                    break
            else:
                if problem is not None:
                    self.ignored[item.digest] = f"{_what(item)} {NO_AUTHORITY}{problem}; it is never used"

    def _set_aside_strays(self, items: list[Item]) -> None:
        """Leave out each personal session's episode read from the shared namespace, with why
        (``stray_session``); one this clone keeps in its local namespace as well (the same
        bytes) is read from there instead."""
        for index, item in enumerate(items):
            why = stray_session(item) if item.kind == "episode" else None
            if why is None:
                continue
            local = next((c for c in (self.copies(item) if self.copies is not None else ())
                          if c.stored.namespace == "local"), None)
            if local is not None:
                items[index] = local
            else:
                self.ignored[item.digest] = why
                self.strays.setdefault(item.record["id"], item.digest)

    def _audits_by_append(self, items: list[Item]) -> dict[str, list[dict[str, Any]]]:
        """The audit entries among ``items`` by each append that holds them, copies included."""
        assert self.copies is not None
        found: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for item in items:
            if item.kind == "audit":
                for placed in (item, *self.copies(item)):
                    found[placed.stored.append].append(item.record)
        return found

    def forget_audits(self) -> None:
        """Let go of the audit entries once the decisions they vouch for are settled (a view
        that reads no more learnings): the rules read nothing else from them."""
        self.audits = []
        self.items = [item for item in self.items if item.kind != "audit"]

    def head(self, learning_id: str) -> str | None:
        """The last version stored for a learning, in store order, even one the rules ignore (a
        bare decision, the loser of a race): what a compare-and-swap on its stream expects."""
        return self.heads.get(learning_id)

    def _add(self, item: Item) -> None:
        if self._memo:
            self._memo.clear()
        record = item.record
        self.items.append(item)
        kind = item.kind
        if kind == "grant":
            self.grants[item.digest] = record
            if self.own is None or self.own(item):
                self.own_grants.add(item.digest)
        elif kind == "withdrawal":
            self.withdrawals.append(record)
        elif kind == "episode":
            if item.stored.namespace == "local":
                self.local_episodes.add(record["id"])
            known = self.episodes.get(record["id"])
            # one session captured twice (degraded, then complete) is one episode: the complete
            # capture stands for it; otherwise the first in store order does
            if known is None or (known["capture"] == "degraded" and record["capture"] == "complete"):
                self.episodes[record["id"]] = record
            if known is not None and known["digest"] != record["digest"]:
                self.rivals[record["id"]].append(known if self.episodes[record["id"]] is record else record)
        elif kind == "event":
            known = self.events.get(record["id"])
            if known is None:
                self.events[record["id"]] = record
                if record.get("parentEventId"):
                    self.children[record["parentEventId"]].append(record)
            elif known["digest"] != record["digest"]:
                self.rivals[record["id"]].append(record)
        elif kind == "learning":
            versions = self.learnings[record["id"]]
            if versions:
                _share(versions[-1].record, record)
            versions.append(item)
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


def _what(item: Item) -> str:
    record = item.record
    if item.kind == "learning":
        return f"learning {record['id']} version {record['version']} ({record['state']}, {item.digest})"
    return f"{item.kind} {item.digest}"


_SHARED_KINDS = frozenset({"episode", "event", "learning", "audit"})


def interned(item: Item, values: dict[tuple[Any, ...], Any]) -> Item:
    """``item``, its record holding values kept once (``_intern``) when it is of a kind a view
    keeps many of."""
    if item.kind in _SHARED_KINDS:  # not an event's payload: its text is its own, and long
        _intern(item.record, values, "payload" if item.kind == "event" else None)
    return item


def _intern(value: dict[str, Any] | list[Any], values: dict[tuple[Any, ...], Any], skip: str | None = None) -> bool:
    """Make a record hold each of its strings, and each object or array of plain values in
    it, once (strings per process, the others per ``values``), in place; True when ``value``
    holds plain values only.

    A view holds tens of thousands of records naming the same ids, digests, people, times,
    pull requests (a pin per episode and per evidence reference), proposers and empty lists:
    equal strings are interned, and an equal object or array of plain values is replaced by
    the first one met (``values``, keyed by its contents, a boolean told from the
    number it equals). Records are read-only to the rules; equal values stay equal. Objects
    holding objects (evidence references, mostly distinct) are left as they are: keying them
    would cost about what sharing saves."""
    plain = True
    pairs = value.items() if type(value) is dict else enumerate(value)
    for key, item in pairs:
        if key == skip:
            plain = False
            continue
        kind = type(item)
        if kind is str:
            value[key] = sys.intern(item)  # type: ignore[index]
        elif kind is dict or kind is list:
            plain = False
            if _intern(item, values):
                value[key] = _once(item, values)  # type: ignore[index]
    return plain


def _once(value: dict[str, Any] | list[Any], values: dict[tuple[Any, ...], Any]) -> Any:
    """The first value equal to ``value`` (an object or array of plain values) met so far."""
    if type(value) is dict:
        key = (0, *value.keys(), *map(_plain_key, value.values()))
    else:
        key = (1, *map(_plain_key, value))
    return values.setdefault(key, value)


def _plain_key(value: Any) -> Any:
    """A plain value as a key: ``True`` equals ``1`` in Python, not in JSON."""
    return (value,) if type(value) is bool else value


def _share(prior: dict[str, Any], record: dict[str, Any]) -> None:
    """Let a learning version hold its earlier version's values where they are equal (its
    evidence, mostly): the same values, kept once. Records are read-only to the rules."""
    for key, value in record.items():
        before = prior.get(key)
        if before is not None and before is not value and type(value) in (dict, list, str) and before == value:
            record[key] = before


def learning_items(store: Store, ids: Collection[str]) -> list[Item]:
    """Every version stored for the learnings ``ids`` and every audit entry held by an append
    that holds one of their decisions (where the decision was read from, or a copy), each as a
    read of the whole store places it, learnings first, each kind in store order: all that
    ``View`` reads to judge these learnings' versions (a decision counts only with the audit
    entry of its own append; an entry names the learning and the version, so no other
    learning's records and no other append's entries change the verdict). One learning's
    stream and those appends' record lines are read, not every learning's records."""
    streams = set(ids)
    if not streams:
        return []
    versions = list(store.items(["learning"], streams=streams))
    decided = {held.stored.append for item in versions if is_decision(item.record)
               for held in (item, *store.copies(item))}
    if not decided:
        return versions
    return [*versions, *store.items(["audit"], streams=["audit"], appends=decided)]


def claim_reach(store: Store, ids: Collection[str]) -> set[str]:
    """The learnings whose histories settle, as among every learning's claims
    (``gitstore.rules.active.settle``), the claims these learnings make and those made on
    them: ``ids``; the learnings claiming one of them (``Store.claimants``); what any of
    those names; the learnings claiming one of those (their rivals); and what the rivals
    name (whether a claim counts depends on where what it names is kept). A claim's outcome
    rests on these alone: the claim, what it names, and the other claims on any of that, so a
    view of them (``View.of_learnings``) settles them as a view of every learning does."""
    reached: dict[str, set[str]] = {}  # learning -> what its stored versions name

    def read(more: Iterable[str]) -> set[str]:
        fresh = set(more) - reached.keys()
        for learning in fresh:
            reached[learning] = set()
        if fresh:
            for item in store.items(["learning"], streams=fresh):
                reached[item.record["id"]].update([*item.record["replaces"], *item.record.get("supersedes", ())])
        return fresh

    claims = set(ids)
    read(claims)
    claims |= store.claimants(claims)
    read(claims)
    named = {target for claim in claims for target in reached[claim]}
    read(named)
    rivals = store.claimants(named)
    read(rivals)
    read({target for rival in rivals for target in reached[rival]})
    return set(reached)


def bare_decisions(items: Iterable[Item]) -> list[Item]:
    """Decisions among ``items`` that no audit entry of their own append vouches for."""
    by_append: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        if item.kind == "audit" or is_decision(item.record):
            by_append[item.stored.append].append(item)
    bare: list[Item] = []
    for group in by_append.values():
        found = {id(r) for r in unvouched([i.record for i in group])}
        bare.extend(i for i in group if id(i.record) in found)
    return bare
