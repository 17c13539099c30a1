"""Browsing evidence: the episodes stored (review threads, agent sessions) and the events of one,
with their text and the ``EPISODE:EVENT`` form ``gitstore propose --evidence`` takes."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from gitstore.context import Context
from gitstore.errors import Refused, UsageError
from gitstore.records.vocabulary import KEEPS_ALL, RECEIPT_REASONS, SOURCES, unknown
from gitstore.queries._text import event_text, first_line, matches, redactable
from gitstore.queries.learnings import Withheld, pin_where, removal_shown, screened, screened_name, screened_pin
from gitstore.rules.summaries import is_summary, standing, superseded
from gitstore.store import HeldNote, Item


def pattern(grep: str | None) -> re.Pattern[str] | None:
    """``--grep``: a regular expression, matched without regard to case."""
    if grep is None:
        return None
    try:
        return re.compile(grep, re.IGNORECASE)
    except re.error as exc:
        raise UsageError(f"--grep {grep!r} is not a regular expression: {exc}") from None
    except RecursionError:  # Python's parser recurses once per group: a few hundred nested ones
        raise UsageError(f"--grep {grep!r} is not a regular expression: groups nested too deeply") from None
    except OverflowError as exc:  # a repeat count past what Python's engine takes (a{4294967296})
        raise UsageError(f"--grep {grep!r} is not a regular expression: {exc}") from None


@dataclass(frozen=True)
class EventShown:
    """One event of an episode with its text as it may be shown (``screened``: capture screens
    what it stores, but a clone with push access may write events no capture saw). ``held``:
    the removals stored without authority here (``Store.held_notes``), which may have taken
    its text all the same."""

    event: dict[str, Any]
    held: Mapping[str, HeldNote] = field(default_factory=dict, repr=False, compare=False)

    @functools.cached_property
    def _screened(self) -> tuple[str | None, Withheld | None]:
        text = event_text(self.event)
        return screened("evidence", text, self.event["id"]) if text is not None else (None, None)

    @property
    def text(self) -> str | None:
        """Its text, secrets redacted; a note in its place when the scanner quarantines it."""
        return self._screened[0]

    @property
    def withheld(self) -> Withheld | None:
        """Why its text is withheld, when it is."""
        return self._screened[1]

    @functools.cached_property
    def _author(self) -> tuple[str, Withheld | None]:
        return screened_name("author", self.event["author"], self.event["id"])

    @property
    def author(self) -> str:
        """Who wrote it: a person id any clone that can push chose, screened (:func:`screened_name`)."""
        return self._author[0]

    @functools.cached_property
    def _removed(self) -> tuple[str | None, tuple[Withheld, ...]]:
        return removal_shown(self.event, self.held)

    @property
    def removed(self) -> str | None:
        """Why its text is gone, when it is, the removal's by and reason screened."""
        return self._removed[0]

    @property
    def others(self) -> tuple[Withheld, ...]:
        """What else of it the scanner quarantines: its author, its removal's by or reason."""
        return tuple(w for w in (self._author[1], *self._removed[1]) if w is not None)

    @property
    def paste(self) -> str:
        return f"{self.event['episode']}:{self.event['id']}"

    def to_json(self) -> dict[str, Any]:
        event = self.event
        return {"id": event["id"], "episode": event["episode"], "type": event["type"], "seq": event["seq"],
                "at": event["at"], "author": self.author, "parentEventId": event["parentEventId"],
                "text": self.text, "removed": self.removed, "evidence": self.paste,
                "withheld": self.withheld.to_json() if self.withheld is not None else None}


@dataclass(frozen=True)
class EpisodeShown:
    """One episode: where it comes from, what it is pinned to, and its events (all of them, or
    those a ``--grep`` matched)."""

    episode: dict[str, Any]
    namespace: str
    count: int
    events: tuple[EventShown, ...] = ()
    first: dict[str, Any] | None = None  # its first event, with its payload when it still has one
    # why its capture is degraded: the reasons of this clone's receipts naming it, in the
    # contracts' order (none for a complete one, or a teammate's whose receipts stay local to them)
    reasons: tuple[str, ...] = ()

    @property
    def parts_lost(self) -> bool:
        """Whether a reason stored says the capture left part of the session out."""
        return any(reason not in KEEPS_ALL for reason in self.reasons)

    @property
    def title(self) -> str | None:
        """The episode's title when an older capture stored one, else its first event's text
        (taken from the payload at read time, so it never outlives a redaction), screened as
        ``screened`` screens it: the whole text, before it is cut to a heading."""
        return self._title[0]

    @property
    def withheld(self) -> tuple[Withheld, ...]:
        """What the scanner quarantines of what is shown of the episode: the text its title
        comes from, its branch (``pin.branch``), its source's ref (``source.ref``), and of the
        events shown, each one's author and removal (naming the event)."""
        return tuple(w for w in (self._title[1], self._pin[1], self._source[1],
                                 *(w for e in self.events for w in e.others)) if w is not None)

    @functools.cached_property
    def _source(self) -> tuple[dict[str, Any], Withheld | None]:
        source = self.episode["source"]
        ref = source.get("ref")
        if not isinstance(ref, str):
            return source, None
        shown, withheld = screened_name("source.ref", ref, episode=self.episode["id"])
        return ({**source, "ref": shown} if shown != ref else source), withheld

    @property
    def source(self) -> dict[str, Any]:
        """Where it comes from, its ref (the origin's own id, opaque: any clone that can push
        chose it) screened."""
        return self._source[0]

    @functools.cached_property
    def _pin(self) -> tuple[dict[str, Any], Withheld | None]:
        return screened_pin(self.episode["pin"], self.episode["id"])

    @property
    def pin(self) -> dict[str, Any]:
        """What it is pinned to, its branch screened (a name any clone that can push chose)."""
        return self._pin[0]

    @functools.cached_property
    def _title(self) -> tuple[str | None, Withheld | None]:
        if self.episode["title"]:
            return screened("episode title", self.episode["title"])
        text = event_text(self.first) if self.first is not None else None
        if not text:
            return None, None
        shown, withheld = screened("evidence", text, self.first["id"] if self.first is not None else None)
        return (withheld.note if withheld is not None else first_line(shown),
                withheld)

    @property
    def where(self) -> str:
        return pin_where(self.pin)

    def to_json(self) -> dict[str, Any]:
        episode = self.episode
        return {"id": episode["id"], "source": self.source, "title": self.title,
                "startedAt": episode["startedAt"], "capture": episode["capture"], "mode": episode["mode"],
                "pin": self.pin, "where": self.where, "namespace": self.namespace, "events": self.count,
                "captureReasons": list(self.reasons),
                "matches": [e.to_json() for e in self.events],
                "withheld": [w.to_json() for w in self.withheld]}


def episodes(ctx: Context, grep: str | None = None, source: str | None = None) -> list[EpisodeShown]:
    """Every episode in store order, with its number of events; with ``grep``, only episodes
    whose title or some event's text matches, with the events that do."""
    if source is not None and (wrong := unknown("source", source, SOURCES)) is not None:
        raise UsageError(wrong)
    found = pattern(grep)
    counts: Counter[str] = Counter()
    firsts: dict[str, dict[str, Any]] = {}
    chosen: dict[str, Item] = {}
    hits: dict[str, list[EventShown]] = {}
    # one pass, keeping per episode what the answer shows: memory holds the episodes and the event
    # ids, not every event
    summaries: list[dict[str, Any]] = []
    seen: set[str] = set()  # event ids: the first record of an id stands for the event (``_first_of_each``)
    for item in ctx.store.items(["episode", "event"], payloads=found is not None):
        if item.kind == "episode":
            _note_head(chosen, item)
            continue
        event = item.record
        if event["id"] in seen:
            continue
        seen.add(event["id"])
        if is_summary(event):  # counted once the one that stands is known
            summaries.append(event)
            continue
        counts[event["episode"]] += 1
        _note_first(firsts, event)
        if found is not None and matches(found, event_text(event)):
            hits.setdefault(event["episode"], []).append(EventShown(event))
    stands = standing(summaries)
    for event in summaries:
        if superseded(event, stands):
            continue
        counts[event["episode"]] += 1
        _note_first(firsts, event)
        if found is not None and matches(found, event_text(event)):
            hits.setdefault(event["episode"], []).append(EventShown(event))
    ctx.store.attach_payloads(firsts.values())
    shown = []
    for item in chosen.values():
        episode = item.record
        if source is not None and episode["source"]["kind"] != source:
            continue
        matched = tuple(hits.get(episode["id"], ()))
        if found is not None and not matched and not matches(found, episode["title"]):
            continue
        shown.append(EpisodeShown(episode, item.stored.namespace, counts[episode["id"]], matched,
                                  firsts.get(episode["id"])))
    if any(e.episode["capture"] == "degraded" for e in shown):
        reasons = _degraded_because(ctx)
        shown = [replace(e, reasons=reasons.get(e.episode["id"], ())) if e.episode["capture"] == "degraded" else e
                 for e in shown]
    return shown


def _degraded_because(ctx: Context) -> dict[str, tuple[str, ...]]:
    """Episode id -> the reasons the receipts naming it give, in the contracts' order. Receipts
    are few (one a capture) and read only when an episode shown is degraded."""
    found: dict[str, set[str]] = {}
    for item in ctx.store.items(["receipt"], streams={"captures"}):
        receipt = item.record
        if receipt["episode"] is not None and receipt["status"] == "degraded":
            found.setdefault(receipt["episode"], set()).update(receipt["reasons"])
    return {episode: tuple(r for r in RECEIPT_REASONS if r in reasons) for episode, reasons in found.items()}


def _first_of_each(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per event id, the first in store order, as the rules read events: two clones
    that stored one comment from different deliveries may have written it with different places
    (``seq``, before a review event's place came from its time), so two records, and it is one
    event all the same, listed and counted once, the same one on every clone."""
    first: dict[str, dict[str, Any]] = {}
    for event in events:
        first.setdefault(event["id"], event)
    return list(first.values())


def _note_first(firsts: dict[str, dict[str, Any]], event: dict[str, Any]) -> None:
    """Keep ``event`` as its episode's first event with text when it is (lowest seq, the one
    seen first of equals; labels and statuses say nothing of it)."""
    if event["type"] in ("label", "status", "retraction"):
        return
    known = firsts.get(event["episode"])
    if known is None or event["seq"] < known["seq"]:
        firsts[event["episode"]] = event


def _note_head(chosen: dict[str, Item], item: Item) -> None:
    """Keep one episode item per id: the complete capture when a session was captured twice,
    else the first in store order (as the rules read episodes)."""
    known = chosen.get(item.record["id"])
    if known is None or (known.record["capture"] == "degraded" and item.record["capture"] == "complete"):
        chosen[item.record["id"]] = item


def evidence(ctx: Context, episode_id: str, grep: str | None = None) -> EpisodeShown:
    """One episode and its events in order, with their text (only those ``grep`` matches)."""
    found = pattern(grep)
    wanted = _episode_named(ctx, episode_id)
    items = list(ctx.store.stream(wanted))
    events = _first_of_each(i.record for i in items if i.kind == "event")
    stands = standing(events)
    events = [e for e in events if not superseded(e, stands)]  # a later capture's summary replaced it
    ctx.store.attach_payloads(events)
    chosen: dict[str, Item] = {}
    for item in items:
        if item.kind == "episode":
            _note_head(chosen, item)
    heads = list(chosen.values())
    if not heads:
        raise Refused(f"no episode {episode_id} in this scope (`gitstore episodes` lists them)")
    head = heads[0]
    gone = any("payload" not in e and "redaction" not in e for e in events)  # a removal without authority may explain it
    held = redactable(ctx, ctx.store.held_notes()) if gone else {}
    shown = tuple(EventShown(e, held) for e in events if found is None or matches(found, event_text(e)))
    firsts: dict[str, dict[str, Any]] = {}
    for event in events:
        _note_first(firsts, event)
    reasons = _degraded_because(ctx).get(head.record["id"], ()) if head.record["capture"] == "degraded" else ()
    return EpisodeShown(head.record, head.stored.namespace, len(events), shown, firsts.get(head.record["id"]),
                        reasons)


_EPISODE_PREFIX = re.compile(r"ep_[0-9a-f]{0,32}")  # an episode id, or a prefix of one


def _episode_named(ctx: Context, text: str) -> str:
    """The episode id ``text`` names: the id itself, or a unique prefix of one."""
    if not _EPISODE_PREFIX.fullmatch(text):
        raise UsageError(f"{text!r} is not an episode id (they look like ep_<hex>; `gitstore episodes` lists them)")
    if len(text) == 35:  # ep_ + 32 hex digits
        return text
    ids = {str(i.record["id"]) for i in ctx.store.items(["episode"]) if i.record["id"].startswith(text)}
    if len(ids) != 1:
        raise Refused(f"{text} names {'no' if not ids else len(ids)} episode{'s' if len(ids) != 1 else ''} in this scope"
                      + ("; give more digits" if ids else " (`gitstore episodes` lists them)"))
    return ids.pop()


__all__ = ["EpisodeShown", "EventShown", "episodes", "evidence", "pattern"]
