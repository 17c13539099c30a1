"""Removing a comment's text: every version and every label on it, by its source comment id.

The events stay, with the same id and digest; each payload is removed and a redaction note
kept in its place, and each removal's audit entry (built from the same note) is written in the
same append as the removal, so neither is ever kept without the other. A payload removed
already (by a retry, or a racing call) is reported as such and gets no second entry. Exports
that copied the text are written again with the note in its place, and the GitHub snapshots
``import github`` saved lose the comment's text, in memory's inbox and in every folder ``--out``
named that is still there (one that is gone is forgotten); the report names them, the folders
forgotten, a snapshot that could not be rewritten (the next sync tries again), the
learnings to rebuild, and those of them whose title or text quotes the comment's words (which
stay in their records: records cannot change).

The removals are recorded first, then the files are rewritten: a note (``ops.unfinished``)
stands from before the append until the snapshots are scrubbed, so a call killed in between
is named by ``gitstore doctor``, and the same removal run again finds the text removed already
(no second entry) and rewrites the files.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterator, Mapping
from typing import Any, cast

from gitstore import _jsontext
from gitstore._files import replace_file
from gitstore.errors import ConflictError, GitstoreError, Refused, UsageError
from gitstore.ops import unfinished
from gitstore.providers import AttestingProvider, Removal
from gitstore.records.canonical import canonicalize, parse_json
from gitstore.records.contracts import seal
from gitstore.rules.view import View
from gitstore.safety.gate import without_secrets
from gitstore.context import Context
from gitstore.records.times import now
from gitstore.store import HeldNote

ATTEMPTS = 5


@dataclass
class RedactionReport:
    source_id: str
    events: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    learnings: list[str] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    scrubbed: list[str] = field(default_factory=list)
    forgotten: list[str] = field(default_factory=list)
    not_scrubbed: list[tuple[str, str]] = field(default_factory=list)  # (snapshot, why): it keeps the text
    claims: list[Claim] = field(default_factory=list)  # claimed events left alone (``claims_of``)
    quoting: list[tuple[str, list[str]]] = field(default_factory=list)  # (learning, "title"/"text") quoting the text
    episode: str | None = None  # the thread chosen (``versions_of``), as given; None: the only one

    def to_json(self) -> dict[str, Any]:
        return {"sourceId": self.source_id, "events": self.events, "removed": self.removed,
                "alreadyRemoved": self.already, "learningsToRebuild": self.learnings,
                "exportsThatCopiedIt": self.exports, "exportFilesRewritten": self.rewritten,
                "episodesWithOldTitles": self.titles, "snapshotsScrubbed": self.scrubbed,
                "snapshotFoldersGone": self.forgotten,
                "snapshotsNotScrubbed": [{"path": p, "problem": why} for p, why in self.not_scrubbed],
                "claimsLeftAlone": [claim.to_json() for claim in self.claims],
                "learningsQuoting": [{"id": lid, "in": fields} for lid, fields in self.quoting]}


def versions_of(ctx: Context, view: View, source_id: str, episode: str | None = None) -> list[dict[str, Any]]:
    """Every version of one comment: those whose payload or honoured redaction names it. An
    event with no text here whose only link to it is a note without authority (a claim:
    ``claims_of``) is none of them: anyone who can push may make a claim, for any comment, and
    "no text here" can be made too (a forced payload snapshot dropping an honest comment's
    text), so removing a claimed event could take someone's words on no one's authority.
    Refuses a history that links two comments, and versions in several threads unless
    ``episode`` (an episode id, or a unique prefix of one) chooses the thread: review and issue
    comments share one namespace of ids, and anyone who can push may store an event naming any
    comment, so which thread holds the words to remove is a person's choice, never a guess.
    Episodes of one source are one thread (``_one_thread``): the versions in each go."""
    named, _ = _sources(ctx, view)
    found = named.get(source_id, [])
    episodes = sorted({str(e["episode"]) for e in found})
    if episode is not None and found:
        chosen = [e for e in episodes if e.startswith(episode)]
        if len(chosen) != 1:
            what = "holds no version" if not chosen else f"names {len(chosen)} threads holding versions"
            raise Refused(f"episode {_episode_shown(episode)} {what} of comment {source_id}; "
                          f"its versions are in {', '.join(_episode_shown(e) for e in episodes)}")
        found, episodes = [e for e in found if e["episode"] == chosen[0]], chosen
    if len(episodes) > 1 and not _one_thread(view, episodes):
        raise Refused(f"comment {source_id} appears in {len(episodes)} threads "
                      f"({', '.join(_episode_shown(e) for e in episodes)}); refusing to guess whose words to remove: "
                      "choose one with --episode")
    ids = {e["id"] for e in found}
    for event in found:
        parent = event.get("parentEventId")
        if event["type"] == "edit" and parent not in ids:
            raise Refused(f"edit {event['id']} of {source_id} links to another comment ({parent}); refusing")
    return sorted(found, key=lambda e: (e["at"], e["id"]))


def _one_thread(view: View, episodes: list[str]) -> bool:
    """Whether ``episodes`` are one thread stored under several ids: episodes of one source (the
    same review thread), as clones spelling the repository's scope apart stored them before
    episode ids were keyed by the scope's key (``gitstore.records.ids.episode_id``). Which of
    them holds the comment's words is no choice to make: each holds a copy of the same versions."""
    sources = [view.episodes.get(e, {}).get("source") for e in episodes]
    return all(isinstance(source, dict) and source == sources[0] for source in sources)


def _episode_shown(episode: str) -> str:
    """An episode id as a message may show it: anyone who can push chose it."""
    from gitstore._shown import one_line, shown
    from gitstore.queries.learnings import screened_name

    return one_line(shown(screened_name("episode", episode)[0]))


@dataclass(frozen=True)
class Claim:
    """An event with no text here that a note without authority claims held a comment:
    ``redact`` leaves it alone and names it (episode as it may be shown, event id, the writer
    whose records stored the note, as it may be shown; None: a payload snapshot's)."""

    episode: str
    event: str
    writer: str | None

    def line(self, source_id: str) -> str:
        who = f"writer {self.writer}'s" if self.writer else "a"
        return (f"{self.episode}:{self.event}: {who} redaction note without authority claims it held {source_id}; "
                "nothing was done to it")

    def to_json(self) -> dict[str, Any]:
        return {"episode": self.episode, "event": self.event, "writer": self.writer}


def claims_of(ctx: Context, view: View, source_id: str) -> list[Claim]:
    """The events with no text here whose only link to a comment is a note without authority
    naming it (``_by_source``), as ``redact`` names them when it leaves them alone."""
    _, claimed = _sources(ctx, view)
    return [Claim(_episode_shown(str(event["episode"])), event["id"], held.writer)
            for event, held in sorted(claimed.get(source_id, []), key=lambda c: (c[0]["at"], c[0]["id"]))]


Sources = tuple[dict[str, list[dict[str, Any]]], dict[str, list[tuple[dict[str, Any], HeldNote]]]]


def _sources(ctx: Context, view: View) -> Sources:
    """``_by_source`` of the view, built once, with the notes stored here without authority."""
    store = ctx.store
    return view.memo("redact.by-source", lambda: _by_source(view, store.held_notes()))


def _by_source(view: View, held: Mapping[str, HeldNote]) -> Sources:
    """The events of a view by the source comment id their payload or redaction note names, and
    apart, by the one a note stored without authority here names (``held``), the events that
    have neither, each with that note, found in one pass (a run of removals looks up each
    comment in it). Such a note removes nothing, and what it names is only a claim anyone who
    can push may make, for any comment: ``redact`` names claimed events and never removes them."""
    found: dict[str, list[dict[str, Any]]] = {}
    claimed: dict[str, list[tuple[dict[str, Any], HeldNote]]] = {}
    for event in view.events.values():
        named = [event.get("payload", {}).get("sourceId"), event.get("redaction", {}).get("sourceId")]
        if "payload" not in event and "redaction" not in event:
            kept = held.get(event.get("payloadDigest", ""))
            if kept is not None and type(source_id := kept.note.get("sourceId")) is str:
                claimed.setdefault(source_id, []).append((event, kept))
        for source_id in dict.fromkeys(named):
            if type(source_id) is str:
                found.setdefault(source_id, []).append(event)
    return found, claimed


def redact(ctx: Context, source_id: str, by: str, reason: str, episode: str | None = None) -> RedactionReport:
    """Remove the text of every version of a comment and every label on them (those in the
    thread ``episode`` names, where versions name the comment from several: ``versions_of``)."""
    return redact_each(ctx, [source_id], by, reason, episode)[0]


def redact_each(ctx: Context, source_ids: list[str], by: str, reason: str,
                episode: str | None = None) -> list[RedactionReport]:
    """``redact`` of several comments, one after another, the store read once (and again after
    a conflict) rather than once per comment: removing one comment's text changes nothing
    another's removal reads (its events, their labels, the exports and learnings citing them)."""
    if "redact-payload" not in ctx.store.manifest.capabilities:
        raise Refused(f"provider {ctx.store.manifest.name} cannot remove payloads")
    if not reason:
        raise Refused("removing text needs a reason (--reason)")
    # kept in the shared records for good, where a person may quote what they ask to remove
    reason = without_secrets(reason)
    reports: dict[str, RedactionReport] = {}
    left = list(dict.fromkeys(source_ids))
    for _ in range(ATTEMPTS):
        view = ctx.view()
        try:
            while left:
                report = _targets(ctx, view, left[0], episode)
                _apply(ctx, view, report, by, reason)
                reports[left.pop(0)] = report
        except ConflictError:
            continue  # another call removed one meanwhile: look again
        return [reports[source_id] for source_id in source_ids]
    raise Refused(f"the text of {left[0]} kept being removed by another call; run the command again")


def _apply(ctx: Context, view: View, report: RedactionReport, by: str, reason: str) -> None:
    """Remove the payloads of the report's events, then rewrite the files that copied them.
    The texts are read first: once removed, no learning can be told to quote them."""
    from gitstore.capture.saved import exclusive

    texts = [text for e in report.events if isinstance(text := view.events[e].get("payload", {}).get("text"), str)]
    _remove(ctx, view, report, by, reason)
    # the files are written under the lock an export, an import and another removal write them
    # under: one of those read before it, and written meanwhile, would have undone what it writes
    with exclusive(ctx.workspace.state):
        _rewrite_exports(ctx, report)
        _scrub_snapshots(ctx, view, report)
    unfinished.finish(ctx.workspace.state, _note_name(report.source_id))
    _follow_ups(view, set(report.events), report)
    report.quoting = _quoting(view, report.learnings, texts)


def remove_later_versions(ctx: Context) -> list[RedactionReport]:
    """Remove the text this writer stored of a comment another clone redacted before the
    redaction reached it: a later version (an edit imported meanwhile) and the labels on it,
    or on an earlier version. Reads refuse them already (``consent.of_redacted_comment``);
    this takes the text out of this writer's payload snapshot, which only it writes, so the
    next push takes it off the remote, each removal with its audit entry as ``redact`` writes
    it, under the reason the redaction gave. Run by sync and gc; refused (``Refused``) where
    this clone may not redact, as ``redact`` is. The removals it last found nothing left of
    are noted (``FOLLOWED``): with no new one, no record is read."""
    marker = ctx.workspace.state / FOLLOWED
    key = _removals_key(ctx)
    if key is not None and key in (_key(ctx.workspace.config.writer, []), _read_marker(marker)):
        return []  # no removal honoured here (a fresh clone's first sync reads nothing), or none new
    view = ctx.view(kinds=["event", "export"])
    found = _stray(ctx, view)
    reports = []
    if found:
        by = ctx.person(None)
        for source_id, (reason, event_ids) in found.items():
            report = RedactionReport(source_id, events=event_ids)
            _apply(ctx, view, report, by, reason)
            reports.append(report)
    if reports:  # its own removals are honoured removals too: the key is read again, afresh
        key = _removals_key(Context.open(ctx.workspace.root))
    if key is not None:
        with suppress(OSError):  # not noted: the next run only looks again
            replace_file(marker, json.dumps(key) + "\n")
    return reports


FOLLOWED = "redactions-followed.json"
"""Under the state folder: a digest of the removals this store honoured when
``remove_later_versions`` last found no text of theirs left in this writer's storage."""


def _removals_key(ctx: Context) -> str | None:
    """A digest of this writer's id and the payloads an honoured removal took (None where the
    store cannot list them without reading every record)."""
    if "attest" not in ctx.store.manifest.capabilities:
        return None
    noted = sorted(cast(AttestingProvider, ctx.store.provider).noted())
    return _key(ctx.workspace.config.writer, noted)


def _key(writer: str, noted: list[str]) -> str:
    return "sha256:" + hashlib.sha256("\n".join([writer, *noted]).encode()).hexdigest()


def _read_marker(path: Path) -> str | None:
    """The key ``FOLLOWED`` holds (None when it is missing or unreadable, and when git has its
    bytes: a commit put it there, and would keep text a removal took in this clone)."""
    from gitstore.config import git_has

    try:
        raw = path.read_bytes()
        key = None if git_has(path.parent)(path, raw) else _jsontext.loads(raw)
    except (OSError, ValueError):
        return None
    return key if isinstance(key, str) else None


def follow_redactions(ctx: Context) -> list[str]:
    """``remove_later_versions`` as sync and gc run it, in the lines their reports show: what
    it removed, or why it could not. Never their failure: reads refuse the text already, and
    the next sync or gc tries again. ``ctx`` is opened as the caller's last step left the
    store (a sync: after what it admitted)."""
    try:
        reports = remove_later_versions(ctx)
    except (Refused, UsageError, ConflictError, OSError) as exc:  # no one to sign as, no right to redact
        return [f"could not remove the text stored here of a comment redacted meanwhile: {exc} "
                "(reads refuse it; the next sync or gc tries again)"]
    return [f"removed the text of {len(r.removed)} event(s) stored here of {r.source_id}, redacted meanwhile"
            for r in reports if r.removed]


def _stray(ctx: Context, view: View) -> dict[str, tuple[str, list[str]]]:
    """Source comment id -> (the reason its redaction gave, the events this writer stored of it
    that still hold their text)."""
    from gitstore.rules.consent import comment_versions, of_redacted_comment

    writer = ctx.workspace.config.writer
    own = {item.record["id"] for item in view.items if item.kind == "event" and item.stored.writer == writer}
    found: dict[str, tuple[str, list[str]]] = {}
    for event_id in sorted(own):
        event = view.events.get(event_id)
        if event is None or "payload" not in event or not of_redacted_comment(view, event):
            continue
        version = view.events[event["parentEventId"]] if event["type"] == "label" else event
        source_id = (version.get("payload") or version.get("redaction") or {}).get("sourceId")
        if not isinstance(source_id, str):
            continue
        kin = comment_versions(view, version["id"]) + _sources(ctx, view)[0].get(source_id, [])
        reason = next((v["redaction"]["reason"] for v in kin if "redaction" in v), "its comment's text was removed")
        found.setdefault(source_id, (reason, []))[1].append(event_id)
    return found


def _targets(ctx: Context, view: View, source_id: str, episode: str | None) -> RedactionReport:
    versions = versions_of(ctx, view, source_id, episode)
    claims = claims_of(ctx, view, source_id)
    if not versions:
        named = "".join(f"; {claim.line(source_id)}" for claim in claims)
        raise Refused(f"no comment with source id {source_id} in this scope{named}")
    targets = list(versions)
    for version in versions:
        targets.extend(c for c in view.children.get(version["id"], []) if c["type"] == "label")
    return RedactionReport(source_id, events=[t["id"] for t in targets], claims=claims, episode=episode)


def _remove(ctx: Context, view: View, report: RedactionReport, by: str, reason: str) -> None:
    """One append per namespace: the removals and their audit entries together."""
    versions = {e["id"] for e in versions_of(ctx, view, report.source_id, report.episode)}
    places = view.memo("redact.places", lambda: {item.record["id"]: item.stored.namespace
                                                 for item in view.items if item.kind == "event"})
    groups: dict[str, tuple[list[dict[str, Any]], list[Removal]]] = {}
    at = now()
    for event_id in report.events:
        event = view.events[event_id]
        if ctx.store.removal_note(event["payloadDigest"], places[event_id]) is not None:
            report.already.append(event_id)
            continue
        note = {"at": at, "by": by, "reason": reason, "sourceId": report.source_id if event_id in versions else None}
        audits, removals = groups.setdefault(places[event_id], ([], []))
        audits.append(_audit(ctx, event, note))
        if any(r.payload_digest == event["payloadDigest"] for r in removals):
            # another event holding the same payload (a comment edited back to an earlier text,
            # one thread stored under two ids): one removal takes it from both
            report.removed.append(event_id)
            continue
        stored = _own_note(ctx, event["payloadDigest"], places[event_id])
        if stored is not None:  # made again here: the note as stored, listed again by an append with authority
            _check_again(ctx, stored, by, report.source_id)
        removals.append(Removal(event["payloadDigest"], canonicalize(note) if stored is None else stored))
        report.removed.append(event_id)
    for namespace, (audits, removals) in sorted(groups.items()):
        with unfinished.noting(ctx.workspace.state, _note(report.source_id, reason, report.episode)):
            ctx.store.append(audits, namespace=namespace, removals=removals)  # type: ignore[arg-type]


def _own_note(ctx: Context, payload_digest: str, namespace: str) -> bytes | None:
    """The note this writer's own records hold for a payload whose removal counts nowhere
    here (made before the team's policy, say), or None."""
    if "attest" not in ctx.store.manifest.capabilities:
        return None
    return cast(AttestingProvider, ctx.store.provider).own_note(payload_digest, namespace)  # type: ignore[arg-type]


def _check_again(ctx: Context, stored: bytes, by: str, source_id: str) -> None:
    """A removal this writer made, made again, keeps its note's bytes (records are only ever
    added: the append that lists it again changes nothing in its tree), so under a policy it is
    made by the person the note names; anyone else is refused before anything is written."""
    try:
        named = parse_json(stored, allow_floats=False).get("by")
    except (GitstoreError, AttributeError):
        raise Refused(f"the redaction note this clone stored for {source_id} cannot be read: "
                      "run `gitstore verify`") from None
    if named != by and ctx.store.trust_mode().mode == "policy":
        raise Refused(f"{source_id} was removed here by {named}, and that removal counts once {named} makes it "
                      f"again, signed, as it was stored (--by {named})")


def _note_name(source_id: str) -> str:
    return "redact-" + hashlib.sha256(source_id.encode()).hexdigest()[:16]


def _note(source_id: str, reason: str, episode: str | None = None) -> unfinished.Note:
    """What a removal killed after its append leaves: files that may still hold the text."""
    chosen = "" if episode is None else f" --episode {shlex.quote(episode)}"
    return unfinished.Note(
        _note_name(source_id), f"removing the text of {source_id} was stopped midway: export files and "
        "saved GitHub snapshots may still hold it",
        f"gitstore redact --comment {shlex.quote(source_id)}{chosen} --reason {shlex.quote(reason)} && gitstore gc",
        "fail")


def _audit(ctx: Context, event: dict[str, Any], note: dict[str, Any]) -> dict[str, Any]:
    return seal({
        "schema": "gitstore.audit/v1", "scope": ctx.scope, "action": "redact", "by": note["by"],
        "at": note["at"], "subjects": [event["id"], event["digest"]], "records": [],
        "reason": note["reason"],
    })


def _rewrite_exports(ctx: Context, report: RedactionReport) -> None:
    """Write every export file that copied a removed event again, the note in its payload's
    place: the exports as stored now (the caller holds the files' lock), one an export stored
    since the removal read the store included."""
    gone = set(report.events)
    for name, path in export_files(ctx, ctx.view(kinds=["export"], payloads=False), gone):
        if rewrite_export(ctx, path, gone):
            report.rewritten.append(name)


def export_files(ctx: Context, view: View, gone: set[str]) -> Iterator[tuple[str, Path]]:
    """(path as the export record names it, the file) of each export file on this clone that
    copied one of the events ``gone``: those in its exports folder only. An export record is
    anyone's to store (``records add``, a teammate's sync), naming any path of the repository,
    and a file there (a README, a data file) is no export this clone wrote."""
    from gitstore.ops.export import FOLDER

    folder = (ctx.workspace.state / FOLDER).resolve()
    for export in view.exports:
        path = ctx.workspace.root / export["path"]
        if any(item["id"] in gone for item in export["items"]) and path.is_file() \
                and path.resolve().parent == folder:
            yield export["path"], path


def holds_payload(path: Path, gone: set[str]) -> set[str]:
    """The events of ``gone`` the export file ``path`` still holds with their payload (a file
    that cannot be read holds none that can be told)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return set()
    held = set()
    for line in lines:
        try:
            record = _jsontext.loads(line) if line.strip() else None
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("id") in gone and "payload" in record:
            held.add(record["id"])
    return held


def rewrite_export(ctx: Context, path: Path, gone: set[str]) -> bool:
    """Write the export file ``path`` again with each event of ``gone`` it holds with a payload
    given the payload's redaction note instead; whether it changed."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out, changed = [], False
    for line in lines:
        try:
            record = _jsontext.loads(line) if line.strip() else None
        except ValueError:  # not a record gitstore wrote (an edit by hand): it stays as it is
            record = None
        if isinstance(record, dict) and record.get("id") in gone and "payload" in record:
            record.pop("payload")
            note = ctx.store.provider.redaction_note(record["payloadDigest"])  # type: ignore[attr-defined]
            if note is not None:
                record["redaction"] = parse_json(note, allow_floats=False)
            line, changed = json.dumps(record, ensure_ascii=False, sort_keys=True), True
        out.append(line)
    if changed:
        replace_file(path, "".join(f"{line}\n" for line in out))
    return changed


def _scrub_snapshots(ctx: Context, view: View, report: RedactionReport) -> None:
    """Empty the comment's text in the GitHub snapshots ``import github`` saved, wherever it saved
    them: gc erases it from storage, and these files are memory's own copies. A file that cannot
    be rewritten is named; once none is left, the removals count as applied to the snapshots
    (a sync does not scrub for them again)."""
    from gitstore.capture.saved import Applied, exclusive, mark_applied, scrub_everywhere

    with exclusive(ctx.workspace.state):  # an import under way saves first: its files are scrubbed too
        done = scrub_everywhere(ctx.workspace.state, {report.source_id})
        if not done.failed:
            with suppress(OSError):  # not noted: the next sync only scrubs again
                mark_applied(ctx.workspace.state, {view.events[e]["payloadDigest"] for e in report.events})
    shown = Applied.of(done, ctx.workspace.root)
    report.scrubbed.extend(shown.scrubbed)
    report.forgotten.extend(shown.forgotten)
    report.not_scrubbed.extend(shown.failed)


def _follow_ups(view: View, event_ids: set[str], report: RedactionReport) -> None:
    cited = view.memo("redact.citing", lambda: _citing(view))
    citing = {lid for event in event_ids for lid in cited.get(event, ())}
    report.learnings = sorted(citing)
    report.exports = sorted(
        e["digest"] for e in view.exports
        if any(i["id"] in event_ids or i["id"] in citing for i in e["items"])
    )
    episodes = {view.events[e]["episode"] for e in event_ids}
    report.titles = sorted(e for e in episodes if view.episodes.get(e, {}).get("title"))


def _quoting(view: View, learnings: list[str], texts: list[str]) -> list[tuple[str, list[str]]]:
    """Each of ``learnings`` (those citing the removed events) a version of which quotes one of
    ``texts`` in its title or its text (``recurrence.quotes``: a sentence of it, or words cut
    from one, as the dream words a learning), with where. A learning's title and text are its
    own record, which a consolidator may word from a comment: records cannot change, so the
    words stay in every version, on every clone that fetched it, whatever the removal takes."""
    if not learnings or not texts:
        return []
    from gitstore.dream.consolidators.recurrence import quotes

    histories = view.histories()
    found = []
    for lid in learnings:
        history = histories.get(lid)
        versions = [*history.chain, *history.ignored] if history is not None else []
        fields = [name for name in ("title", "text")
                  if any(isinstance(said := (item.record.get("content") or {}).get(name), str)
                         and any(quotes(said, text) for text in texts) for item in versions)]
        if fields:
            found.append((lid, fields))
    return found


def _citing(view: View) -> dict[str, set[str]]:
    """Event id -> the learnings any version of which cites it (as evidence or counterevidence)."""
    found: dict[str, set[str]] = {}
    for lid, history in view.histories().items():
        for item in history.chain:
            for ref in item.record["evidence"] + item.record["counterevidence"]:
                for event in ref["events"]:
                    found.setdefault(event, set()).add(lid)
    return found
