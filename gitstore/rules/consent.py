"""Consent: may this piece of evidence serve this purpose, now?

Decided at read time. An event serves a purpose only while some grant in its scope permits the
purpose, names the event's source, covers the time the event was written, and has not been
withdrawn for that purpose. A label's time is the time of the comment it judges, and it counts
only while that comment does. Retracted (deleted) comments, every version of them and every
label on them serve no purpose; neither does a redacted event, nor any other version of a
redacted comment (an edit a clone imported before the redaction reached it) and any label on one.

Evidence kept in the local namespace (a personal session of this machine) is one person's:
only a grant this clone made serves it, kept local or appended by this clone itself
(``View.own_grants``). A teammate's grant, however well signed, decides for their own sessions
and for shared evidence, never for another person's machine. Shared evidence is judged from
shared records alone, so every clone reaches the same verdict on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gitstore.records.ids import AGREED
from gitstore.rules.view import View

LABEL_LIKE = frozenset({"label"})


@dataclass(frozen=True)
class Verdict:
    """Whether an event may serve a purpose, which grants permit it, and if not, why: ``reason``
    in words, ``cause`` as one of ``CAUSES`` and ``event`` the event it concerns."""

    ok: bool
    grants: tuple[str, ...] = ()
    reason: str = ""
    cause: str = ""
    event: str = ""


CAUSES = ("missing", "redacted", "no-text", "retracted", "no-grant", "label", "contested")
"""Why evidence serves no purpose: not stored (or no longer what a reference says), its text
removed, its text not in this clone though no removal took it (the payload snapshot holding
it was held back or has not arrived), deleted at its source, no grant in force covers it, a
label judging nothing, or two records claiming its id (or its episode's) that disagree on
what it says."""

_TEXT = frozenset({"comment", "edit"})


def withdrawn(view: View) -> dict[str, set[str]]:
    """Grant digest -> purposes withdrawn from it (effective at once)."""
    out: dict[str, set[str]] = {}
    for record in view.withdrawals:
        out.setdefault(record["grant"], set()).update(record["purposes"])
    return out


def _candidates(view: View, purpose: str, source: str,
                local: bool = False) -> tuple[tuple[str, str, str | None], ...]:
    """(digest, from, until) of the grants, in view order, that permit ``purpose`` for
    ``source`` and were not withdrawn for it (``local``: for evidence kept in the local
    namespace, only the grants this clone made): what ``decide`` then checks times against.
    Computed once per view, purpose, source and side."""
    def build() -> tuple[tuple[str, str, str | None], ...]:
        gone = withdrawn(view)
        return tuple(
            (digest, grant["from"], grant["until"]) for digest, grant in view.grants.items()
            if purpose in grant["purposes"]
            and purpose not in gone.get(digest, set())
            and source in grant["sources"]
            and (not local or digest in view.own_grants)
        )
    return view.memo(("consent.candidates", purpose, source, local), build)


def others_grants(view: View, purpose: str, source: str, at: str) -> list[str]:
    """Grants in force for ``purpose`` and ``source`` at ``at`` that another clone made: they
    never let this machine's personal sessions serve anything (a hint for why one does not)."""
    mine = {digest for digest, _, _ in _candidates(view, purpose, source, local=True)}
    return [digest for digest, start, until in _candidates(view, purpose, source)
            if digest not in mine and start <= at and (until is None or at <= until)]


def active_grants(view: View, purpose: str) -> list[str]:
    """Digests of grants that still permit ``purpose`` for anything."""
    gone = withdrawn(view)
    return [d for d, g in view.grants.items() if purpose in g["purposes"] and purpose not in gone.get(d, set())]


def comment_versions(view: View, event_id: str, continued: bool = False) -> list[dict[str, Any]]:
    """Every version of the comment an event belongs to (linked by edits, both ways); with
    ``continued``, linked only by edits that may be later versions of what they name
    (``continues``: the same thread, author and source comment)."""
    seen: dict[str, dict[str, Any]] = {}
    todo = [event_id]
    while todo:
        current = view.events.get(todo.pop())
        if current is None or current["id"] in seen or current["type"] not in ("comment", "edit"):
            continue
        seen[current["id"]] = current
        parent = view.events.get(current.get("parentEventId") or "") if current["type"] == "edit" else None
        if parent is not None and (not continued or continues(current, parent)):
            todo.append(parent["id"])
        todo.extend(c["id"] for c in view.children.get(current["id"], [])
                    if c["type"] == "edit" and (not continued or continues(c, current)))
    return list(seen.values())


def continues(edit: dict[str, Any], parent: dict[str, Any]) -> bool:
    """Whether an edit may be a later version of the comment its parent is: written in the same
    thread, by the same author, of the same source comment (its ``sourceId``, where both name
    one). Anyone who can push can store an edit naming any parent; what speaks of one version (a
    learning citing it) speaks of another only when this holds and its words still say the same,
    which the reader judges."""
    if edit["type"] != "edit" or parent["type"] not in _TEXT:
        return False
    sources = [(e.get("payload") or e.get("redaction") or {}).get("sourceId") for e in (edit, parent)]
    return (edit["episode"] == parent["episode"] and edit["author"] == parent["author"]
            and (None in sources or sources[0] == sources[1]))


def retracted(view: View, event: dict[str, Any]) -> bool:
    """True when a retraction removed the comment this event is a version of."""
    return event["id"] in view.memo("consent.retracted", lambda: _retracted_ids(view))


def _retracted_ids(view: View) -> frozenset[str]:
    """Ids of every event a retraction removed: every version of each retracted comment
    (versions link both ways, so the versions of any one of them are the same set: an edit that
    ``continues`` what it names, never one of another thread, author or source comment, which is
    a comment of its own), or the retracted event alone when it is not a comment or an edit. A
    retraction counts in the
    episode of the event it names (``_in_its_episode``), where capture stores one, as an edit
    continues a comment only in its thread (``continues``): every read judges a comment from
    its own episode, so a view of the cited episodes and one of the whole store agree."""
    found: set[str] = set()
    for parent, children in view.children.items():
        if any(c["type"] == "retraction" and _in_its_episode(view, c, parent) and disagreeing(view, c) is None
               for c in children):  # one that stands
            versions = comment_versions(view, parent, continued=True)
            if versions:
                found.update(v["id"] for v in versions)
            else:
                found.add(parent)
    return frozenset(found)


def _in_its_episode(view: View, retraction: dict[str, Any], parent: str) -> bool:
    """Whether ``retraction`` is stored in the episode of the event it names (``parent``), as
    capture stores a deletion: one stored elsewhere removes nothing. Evidence records are
    unsigned, and anyone who can push can store a retraction in the named event's own episode
    as easily, so counting one elsewhere would stop no one; it would only make the reads that
    look at the cited episodes alone (``learnings``, ``recall``, ``export``) disagree with those
    that read every episode (``dream``), or cost every read the whole store."""
    target = view.events.get(parent)
    return target is None or target["episode"] == retraction["episode"]


def of_redacted_comment(view: View, event: dict[str, Any]) -> bool:
    """True when the event is a version of a comment whose text a redaction removed, though it
    carries no note of its own (a later version, imported by a clone the redaction had not
    reached yet), or a label on such a version: the redaction speaks for the comment, every
    version of it, as ``redact`` removes every version it finds."""
    event_id = event["id"]
    if event["type"] in LABEL_LIKE:
        event_id = event.get("parentEventId") or ""
    return event_id in view.memo("consent.of-redacted", lambda: _of_redacted_ids(view))


def _of_redacted_ids(view: View) -> frozenset[str]:
    """Ids of every comment version that belongs to a redacted comment: linked by edits to a
    version whose text was removed, or naming the source comment a removal's note names."""
    found: set[str] = set()
    sources: set[str] = set()
    for event in view.events.values():
        note = event.get("redaction")
        if note is None or event["type"] not in _TEXT:
            continue
        found.update(v["id"] for v in comment_versions(view, event["id"]))
        if isinstance(note.get("sourceId"), str):
            sources.add(note["sourceId"])
    found.update(e["id"] for e in view.events.values()
                 if e["type"] in _TEXT and (e.get("payload") or {}).get("sourceId") in sources)
    return frozenset(found)


def disagreeing(view: View, event: dict[str, Any]) -> dict[str, Any] | None:
    """A record claiming ``event``'s id whose text, time, author, episode or kind differ from it
    (or whose text was removed): whichever of them store order puts first, neither stands for
    the event (nor retracts what it names), so a record pushed under a redacted event's id never
    brings text back."""
    for rival in view.rivals.get(event["id"], ()):
        if "redaction" in rival or any(rival.get(name) != event.get(name) for name in AGREED) \
                or _what(rival) != _what(event):
            return rival
    return None


def disputed(view: View, episode: dict[str, Any]) -> dict[str, Any] | None:
    """A record claiming ``episode``'s id with another source (what grants cover, and what its
    id is made from): whichever of them stands, its events serve no purpose. Two captures of
    one session (degraded, then complete) name the same source."""
    for rival in view.rivals.get(episode["id"], ()):
        if rival["source"] != episode["source"]:
            return rival
    return None


def _what(event: dict[str, Any]) -> str:
    """The kind of event, a comment and an edit of one counting as the same."""
    return "text" if event["type"] in _TEXT else event["type"]


def decide(view: View, event_id: str, purpose: str, _depth: int = 0) -> Verdict:
    """May the event serve ``purpose``?"""
    event = view.events.get(event_id)
    if event is None:
        return Verdict(False, reason=f"event {event_id} is not stored", cause="missing", event=event_id)
    episode = view.episodes.get(event["episode"])
    if episode is None:
        stray = view.strays.get(event["episode"])
        what = "is not stored" if stray is None else \
            f"is a personal session kept shared ({stray}), which gitstore never writes: it is never used"
        return Verdict(False, reason=f"episode {event['episode']} of event {event_id} {what}",
                       cause="missing", event=event_id)
    if "redaction" in event:
        return Verdict(False, reason=f"event {event_id} was redacted", cause="redacted", event=event_id)
    if of_redacted_comment(view, event):
        return Verdict(False, reason=f"event {event_id} belongs to a redacted comment",
                       cause="redacted", event=event_id)
    if "payload" not in event and event["type"] != "retraction":
        return Verdict(False, reason=f"the text of event {event_id} is not in this clone, and no removal took it",
                       cause="no-text", event=event_id)
    other = disputed(view, episode)
    if other is not None:
        return Verdict(False, reason=f"episode {episode['id']} of event {event_id} is claimed by another record "
                                     f"({other['digest']}) with another source", cause="contested", event=event_id)
    rival = disagreeing(view, event)
    if rival is not None:
        return Verdict(False, reason=f"event {event_id} is claimed by another record ({rival['digest']}) that "
                                     "disagrees on what it says", cause="contested", event=event_id)
    at = event["at"]
    if event["type"] in LABEL_LIKE:
        parent = event.get("parentEventId")
        if not parent or _depth > 8:
            return Verdict(False, reason=f"label {event_id} judges nothing", cause="label", event=event_id)
        judged = decide(view, parent, purpose, _depth + 1)
        if not judged.ok:
            return Verdict(False, reason=f"label {event_id} judges a comment that does not count: {judged.reason}",
                           cause=judged.cause, event=judged.event)
        at = view.events[parent]["at"]
    if retracted(view, event):
        return Verdict(False, reason=f"event {event_id} belongs to a deleted comment", cause="retracted",
                       event=event_id)
    source = episode["source"]["kind"]
    local = episode["id"] in view.local_episodes
    permitting = tuple(
        digest for digest, start, until in _candidates(view, purpose, source, local)
        if start <= at and (until is None or at <= until)
    )
    if not permitting:
        mine = " (kept on this machine: only a grant this clone made serves it)" if local else ""
        return Verdict(False, reason=f"no active grant permits {purpose} for {source} evidence written at {at}{mine}",
                       cause="no-grant", event=event_id)
    return Verdict(True, permitting)
