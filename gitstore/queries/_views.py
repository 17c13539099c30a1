"""Views that hold what a read's answer needs, and no more.

Judging learnings needs every learning version (histories and supersession), the grants and
withdrawals (consent), and, for the learnings being judged, the episodes their current versions
cite with all their events (edits, labels and retractions live in the episode of the comment
they concern) and the payloads of the cited events (a removed payload means redacted evidence).
Everything else (audit entries, captures, the events of episodes nobody cites) is left unread,
so listing learnings costs what the learnings cost, not what the whole store costs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Set as AbstractSet
from sys import intern
from typing import Any

from gitstore._collector import collector_paused
from gitstore._memory import give_back
from gitstore.errors import IntegrityError
from gitstore.rules.lifecycle import USABLE, History
from gitstore.rules.view import View, interned
from gitstore.store import Item, Store

POLICY_KINDS = ("learning", "grant", "withdrawal")
EVIDENCE_KINDS = ("episode", "event")
FOLLOWED = frozenset({"edit", "retraction"})  # children that say what became of an event
# events read from which a graph let go of gives the C heap's free pages back (``gitstore._memory``):
# a smaller one's pages are few, and asking costs a few milliseconds (ctypes loaded, glibc's lists walked)
GIVE_BACK_FROM = 20_000
# events a graph holds every record of as read, so that none is read again (``Evidence.kept``)
HOLD_EVERY_UPTO = 5_000


def may_be_in_force(history: History) -> bool:
    """Whether the rules look at a learning's evidence at all: only a version in a usable state
    can be in force (the others are judged by their state alone). Evidence left unread could
    only ever make a learning not in force, never the reverse."""
    return history.valid and history.current["state"] in USABLE


def in_force_view(store: Store) -> tuple[View, dict[str, History]]:
    """A view that says which learnings are in force, for any purpose, as a view of the whole
    store would: ``learning_view`` of the learnings that may be."""
    return learning_view(store, may_be_in_force)


def learning_view(store: Store, judged: Callable[[History], bool] | None = None, *,
                  learnings: Collection[str] | None = None) -> tuple[View, dict[str, History]]:
    """A view to judge the learnings whose history ``judged`` accepts (None: all) with, and
    every learning's history (built with the cyclic collector held off: ``gitstore._collector``).
    With ``learnings``, only those learnings are read (and their histories returned): enough
    to judge the ones among them whose claims they settle (``gitstore.rules.view.claim_reach``)."""
    with collector_paused():
        return _learning_view(store, judged, learnings)


def _learning_view(store: Store, judged: Callable[[History], bool] | None,
                   learnings: Collection[str] | None = None) -> tuple[View, dict[str, History]]:
    if learnings is None:
        view = View.load(store, payloads=False, kinds=POLICY_KINDS)
    else:
        view = View.of_learnings(store, learnings)
        view.add(store.items([kind for kind in POLICY_KINDS if kind != "learning"]))
    cut = store.cut_short()
    if cut is not None:  # a retirement or withdrawal there is missing: nothing is judged in force from the rest
        raise IntegrityError(f"{cut}; until then no learning is judged in force here")
    view.forget_audits()  # they vouched for the decisions loaded; no more learnings come
    all_histories = view.histories()
    refs = [ref for history in all_histories.values() if judged is None or judged(history)
            for ref in _cited(history)]
    episodes = {ref["episode"] for ref in refs}
    view.episodes_read = frozenset(episodes)
    if episodes:
        events = {event for ref in refs for event in ref["events"]}
        graph = Evidence(events)
        view.add(graph.read(store.items(EVIDENCE_KINDS, streams=episodes)))
        if graph.judged_elsewhere(events):  # a label judging an event of another episode
            episodes |= _others(store, episodes)
            view.episodes_read = None  # every episode stored: one captured later would be read too
            view.add(graph.read(store.items(EVIDENCE_KINDS, streams=episodes - view.episodes.keys())))
            graph.let_go()  # two passes: their orders are not one store order
        keep = graph.closure(events)
        digests = graph.digests(keep)
        view.add(graph.kept(digests, episodes,
                            lambda streams, wanted: store.items(["event"], streams=streams, digests=wanted)))
        big = graph.count >= GIVE_BACK_FROM
        del graph  # used up (``kept``): what the second read made and let go of is given back for the payloads
        if big:
            give_back()
        parents = {view.events[e]["parentEventId"] for e in events if e in view.events
                   and view.events[e]["type"] == "label" and view.events[e].get("parentEventId")}
        store.attach_payloads(view.events[e] for e in events | parents if e in view.events)
    return view, all_histories


class Evidence:
    """How the events of the cited episodes link to each other, read once, so that a view
    keeps only the events the rules can look at when judging the cited ones.

    Judging an event reads the event, its episode, the event a label judges (and so on up),
    every version of a comment (edits link them both ways) and the retractions of any of those.
    So the events kept (``closure``) are the cited ones and, again and again, the event each kept
    one names as its parent and every edit or retraction of a kept one. Rules asked only about
    cited events answer the same from these as from every event of the episodes; the other
    events are read, checked and let go."""

    def __init__(self, cited: AbstractSet[str] = frozenset()) -> None:
        # id -> (type, parent, digest of the record read first): one entry an event, however many
        # are read (a hundred thousand for a big store's learnings), its type and stream shared
        self._events: dict[str, tuple[str, str | None, str]] = {}
        self._again: dict[str, list[str]] = {}  # id -> digests of other records of the same id
        self._children: dict[str, list[str]] = {}  # parent id -> ids of its edits and retractions
        self._cited = cited  # events whose records (and their edits' and retractions') are held as read
        self._held: dict[str, tuple[int, Item]] | None = {}  # digest -> (place in the read, item)
        # the other events' records while fewer than HOLD_EVERY_UPTO are read (None after), as read:
        # the few a small store's closure adds (a label's comment and its edits) are then never read again
        self._spare: dict[str, tuple[int, Item]] | None = {}
        self._values: dict[tuple[Any, ...], Any] = {}  # equal plain values among those held, kept once
        self._places: dict[str, int] = {}  # digest -> place in the read
        self._streams: list[str] = []  # place in the read -> stream
        self.count = 0  # events read (``GIVE_BACK_FROM``)

    def read(self, items: Iterable[Item]) -> Iterator[Item]:
        """The episodes among ``items``; the links of the events among them are noted, and the
        records of the cited events and of their edits and retractions held as they are read
        (checked already: ``kept`` does not read them again; they are kept whatever else is read)."""
        for item in items:
            if item.kind != "event":
                yield item
                continue
            self.count += 1
            record = item.record
            event_id, parent, kind = record["id"], record.get("parentEventId"), intern(record["type"])
            if self._held is not None:
                if item.digest in self._places:  # a provider that returns a record twice
                    self.let_go()
                else:
                    place = len(self._streams)
                    self._places[item.digest] = place
                    self._streams.append(intern(item.stored.stream))
                    if event_id in self._cited or (parent in self._cited and kind in FOLLOWED):
                        # kept (see ``closure``), its values kept once as the view will keep them
                        # (a record's names, people and times are those of thousands of others)
                        self._held[item.digest] = (place, interned(item.lean(), self._values))
                    elif self._spare is not None:
                        if place < HOLD_EVERY_UPTO:
                            self._spare[item.digest] = (place, item.lean())
                        else:
                            self._spare = None
            first = self._events.get(event_id)
            if first is None:
                self._events[event_id] = (kind, parent, item.digest)
                if parent and kind in FOLLOWED:
                    self._children.setdefault(parent, []).append(event_id)
            elif item.digest != first[2]:
                self._again.setdefault(event_id, []).append(item.digest)

    def let_go(self) -> None:
        """Hold nothing more: ``kept`` reads every record it returns again, in store order."""
        self._held = self._spare = None
        self._values = {}
        self._places = {}
        self._streams = []

    def kept(self, digests: set[str], streams: set[str],
             read: Callable[[set[str], set[str]], Iterable[Item]]) -> Iterable[Item]:
        """The records of these digests, read before from ``streams``, in store order: those
        held, and the others read again (``read(streams, digests)``, which checks each again)
        from their own streams alone (none, when the read was of fewer than ``HOLD_EVERY_UPTO``
        events: every record was held). After ``let_go``, every one is read again.

        The graph is used up: the links and places of every event read, and the records held
        that are not kept, are let go of (their pages given back, after ``GIVE_BACK_FROM``
        events read: ``gitstore._memory``) before the second read, whose records the view then
        holds beside everything it held."""
        held, spare, places, read_from = self._held, self._spare, self._places, self._streams
        self.let_go()
        self._events, self._again, self._children = {}, {}, {}
        big = self.count >= GIVE_BACK_FROM
        if held is None:
            if big:
                give_back()
            return read(streams, digests)
        found = [held[d] for d in digests & held.keys()]
        missing = digests - held.keys()
        if spare:
            found.extend(spare[d] for d in missing & spare.keys())
            missing -= spare.keys()
        at = {d: places[d] for d in missing}  # place in the first read: the order kept
        where = {read_from[place] for place in at.values()}
        del held, spare, places, read_from
        if big:
            give_back()
        if missing:
            found.extend((at[item.digest], item.lean()) for item in read(where, missing))
        found.sort(key=lambda pair: pair[0])
        return [item for _, item in found]

    def judged_elsewhere(self, cited: set[str]) -> bool:
        """Whether a cited label judges an event not read yet."""
        return any(self._events[e][1] not in self._events for e in cited
                   if e in self._events and self._events[e][0] == "label" and self._events[e][1])

    def digests(self, events: Iterable[str]) -> set[str]:
        """The digests of every record read of these events (read before: see ``closure``)."""
        found = {self._events[e][2] for e in events}
        for event in self._again.keys() & set(events):
            found.update(self._again[event])
        return found

    def closure(self, cited: set[str]) -> set[str]:
        """The ids of the events the rules can look at when judging the cited ones."""
        keep: set[str] = set()
        todo = list(cited)
        while todo:
            event = todo.pop()
            if event in keep or event not in self._events:
                continue
            keep.add(event)
            parent = self._events[event][1]
            if parent:
                todo.append(parent)
            todo.extend(self._children.get(event, ()))
        return keep


def _cited(history: History) -> Iterable[dict[str, Any]]:
    """The evidence references the current version of a usable history stands on."""
    if not history.intact:
        return ()
    current = history.current
    return [*current["evidence"], *current["counterevidence"]]


def _others(store: Store, loaded: set[str]) -> set[str]:
    """Every episode stream not loaded yet."""
    return {item.record["id"] for item in store.items(["episode"])} - loaded
