"""A capture's records, normalized: a SessionEnvelope, a CaptureReceipt, and an episode with its
events when the session's transcript could be read.

The receipt says what was observed and what was unavailable; a degraded capture says why and
its episode is marked degraded, never equivalent evidence. Every text is screened with the
safety scanner (quarantined text is never stored, secrets are redacted) and bounded, and the
episode is pinned to scope, branch and commit. Ids and content come only from the session's
own events, never from the time of capture, so replaying the same events (live, after a
disconnect, after a restart) yields the same episode and events, which the store then keeps
once. Nothing here writes: ``gitstore.capture.sessions`` appends what ``build`` returns.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from datetime import timedelta
from pathlib import Path
from typing import Any, NamedTuple

import pygit2

from gitstore.records.times import now as now_time
from gitstore.records.times import format_time, normalize_time, parse_time
from gitstore.config import Workspace, git_ignores
from gitstore.records.contracts import seal
from gitstore.scope import worktree_key
from gitstore.errors import GitstoreError, InvalidInput, Unignored
from gitstore.records.ids import AGREED, episode_id, event_id, spelled_episode_id, versioned_key
from gitstore.records.vocabulary import CAPTURE_MODES, SUMMARY_SEQ
from gitstore.context import Context
from gitstore.capture.hookinput import HookInput, regular_file
from gitstore.capture.transcripts._tools import is_test_command
from gitstore.capture.screening import Scan, Screen, across_turns, file_name, file_names, summary_left_out, summary_texts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from gitstore.capture.transcripts import Transcript

SUMMARY_CHARS = 2000
TURN_CHARS = 4000
MAX_TURNS = 2000
FILE_BLOCK = 1 << 20  # bytes of the transcript read at a time to hash it
# the most of a transcript file hashed: the largest document a reader reads (``Limits.max_json_bytes``); past it
# the envelope's sha256 is of this prefix, which its ``bytes``, the whole size, being larger says
HASHED_BYTES = 256 * 1024 * 1024
EPOCH = "1970-01-01T00:00:00.000000Z"
# A hook event as the envelope's contract has one: ASCII letters, digits and ``._-``, starting
# with a letter (its length is bounded apart).
EVENT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9._-]*")


class Capture(NamedTuple):
    """The records one capture writes, and what it counted; with the captures of the subagents
    the session spawned, each an episode of its own (``gitstore.capture.sessions``), and how
    many subagents' transcripts were past what one capture takes and left out."""

    envelope: dict[str, Any]
    receipt: dict[str, Any]
    episode: dict[str, Any] | None
    events: list[dict[str, Any]]
    subagents: tuple[Capture, ...] = ()
    subagents_left_out: int = 0
    left_out: int = 0  # turns, commands and files of the session past what one capture keeps

    def records(self) -> list[dict[str, Any]]:
        own = [self.envelope, *([self.episode] if self.episode else []), *self.events, self.receipt]
        return own + [record for subagent in self.subagents for record in subagent.records()]


def refuse_unignored(workspace: Workspace, ignored: bool | None = None) -> None:
    """Capture writes into okf/.memory only where git ignores it (after following links);
    IGNORED is git's answer when it was asked already."""
    if not (git_ignores(workspace.root, workspace.state) if ignored is None else ignored):
        raise Unignored(f"{workspace.state} is not ignored by git (after following links); capture writes nothing there")


def build(ctx: Context, hook: HookInput, transcript: Transcript | None, problem: str | None,
          mode: str, scanned: Mapping[str, Scan] | None = None) -> Capture:
    """The records of one capture (not yet written); SCANNED holds texts of the transcript
    scanned already (``gitstore.capture.screening``)."""
    if mode not in CAPTURE_MODES:
        raise InvalidInput(f"unknown capture mode {mode!r} (one of {', '.join(CAPTURE_MODES)})")
    captured_at = now_time()
    screen = Screen(scanned or {})
    envelope = _envelope(ctx, hook, transcript, mode, captured_at, screen)
    reasons: list[str] = [problem] if problem else []
    episode, events, cut = None, [], 0
    if transcript is not None:
        cut = _left_out(transcript, mode)
        if cut:
            reasons.append("truncated")
        episode, events = _episode(ctx, hook, transcript, mode, screen, reasons)
    left_out = transcript.subagents_left_out if transcript is not None else 0
    return Capture(envelope, _receipt(ctx, envelope, episode, transcript, screen, reasons), episode, events,
                   subagents_left_out=left_out, left_out=cut)


def _left_out(transcript: Transcript, mode: str) -> int:
    """How many turns (past ``MAX_TURNS``), commands and files (past the summary's bounds) of
    the session MODE keeps none of: a capture that leaves any out is ``truncated``."""
    cut = max(0, len(transcript.turns) - MAX_TURNS) if mode in ("transcript", "hybrid") else 0
    return cut + (summary_left_out(transcript) if mode in ("summary", "hybrid") else 0)


def _envelope(ctx: Context, hook: HookInput, transcript: Transcript | None, mode: str, at: str,
              screen: Screen) -> dict[str, Any]:
    """The envelope; its names come from outside (the harness, the checkout) into a record no
    redaction reaches, so each is screened whole (``Screen.name``, ``Screen.key``): a hook
    event the scanner would change is ``withheld`` (``_event_name``)."""
    head = _head(ctx.workspace.repo)
    # only a file the reader found the session's records in: any other (/etc/shadow, a timed-out
    # capture's, never read) is accounted for by the receipt's reason, not by its size and digest
    info = _transcript_file(hook.transcript, screen, transcript.source) \
        if transcript is not None and transcript.counts.parsed > 0 else None
    available = ["transcript"] if info else []
    if head is not None:
        available.append("revision")
    session = hook.session or (transcript.session if transcript else None)
    version = hook.version or (transcript.version if transcript else None)
    return seal({
        "schema": "gitstore.envelope/v1", "scope": ctx.scope, "harness": hook.harness,
        "harnessVersion": screen.name(version, 64), "event": _event_name(hook.event, screen),
        "session": screen.key(session),
        "worktree": worktree_key(ctx.workspace.repo), "branch": screen.name(_branch(ctx.workspace.repo), 255),
        "revision": head, "transcript": info, "available": available, "mode": mode, "capturedAt": at,
    })


def _event_name(event: str, screen: Screen) -> str:
    """The hook's EVENT as the envelope keeps it: as the hook sent it when the scanner finds
    nothing in it, it has at most 64 characters and it is a name as the contract has one
    (``EVENT_NAME``); ``withheld`` otherwise. It is screened as it came, never cut or rewritten
    first: a cut leaves too little of a token for the scanner to know it, and rewriting a
    URL's ``://`` and ``@`` hides the password between them, which would then be kept."""
    name = screen.name(event, 64)
    return name if name is not None and EVENT_NAME.fullmatch(name) else "withheld"


def _transcript_file(path: Path | None, screen: Screen, rows: tuple[str, int] | None = None) -> dict[str, Any] | None:
    """The envelope's account of the transcript file: its name (``_`` when the scanner would
    change it, ``_kept_file_name``), and the sha256 and size of the bytes read from it (read a
    block at a time, so memory stays bounded); None when there is no regular file to read. Asked
    only of a file the reader found records of the session in (``_envelope``). At
    most ``HASHED_BYTES`` are read, however large the file (a capture that ran out of time on
    one of gigabytes writes its receipt in time too): past that the sha256 is of that prefix and
    the size is the file's, larger than it, which says so.
    Of a file holding many sessions (OpenCode's database), the session's own rows as the
    reader read them (ROWS: their sha256 and size), never the whole file: the rest is other sessions', and it
    changes whenever they do; None when the session could not be read from it."""
    if path is None or not regular_file(path):
        return None
    if rows is not None:
        return {"name": _kept_file_name(path.name, screen), "sha256": rows[0], "bytes": rows[1]}
    from gitstore.capture.transcripts._read import SQLITE_HEADER

    try:
        with path.open("rb") as head:
            if head.read(len(SQLITE_HEADER)) == SQLITE_HEADER:
                return None
    except OSError:
        return None
    digest, size = hashlib.sha256(), 0
    try:
        with path.open("rb") as source:
            while size < HASHED_BYTES and (block := source.read(min(FILE_BLOCK, HASHED_BYTES - size))):
                digest.update(block)
                size += len(block)
            if size >= HASHED_BYTES:  # a prefix hashed: the size is the file's, larger when it holds more
                size = max(size, os.fstat(source.fileno()).st_size)
    except OSError:
        return None
    return {"name": _kept_file_name(path.name, screen), "sha256": "sha256:" + digest.hexdigest(), "bytes": size}


def _kept_file_name(name: str, screen: Screen) -> str:
    """NAME as the envelope keeps it (``file_name``: a backslash ``_``), or ``_`` when the
    scanner would change it as a record holds it or as it came: the ``_`` a backslash becomes
    joins a token to the letters beside it, and the scanner no longer reads it as one."""
    kept = screen.name(file_name(name), 255)
    if kept is None:
        return "_"
    as_text = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return kept if as_text == kept or screen.name(as_text) == as_text else "_"


def _episode(ctx: Context, hook: HookInput, transcript: Transcript, mode: str, screen: Screen,
             reasons: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    session = transcript.session or hook.session or transcript_key(hook)
    source = {"kind": "agent-session", "origin": hook.harness, "ref": screen.key(session)}
    eid, held = _episode_held(ctx, source)
    started = _time(transcript.started_at) or _first_turn_time(transcript) or EPOCH
    ended = _time(transcript.ended_at) or started
    commit = _commit_at(ctx.workspace.repo, ended)
    if commit is None:
        reasons.append("revision-unknown")
    agent = f"agent:{hook.harness}"
    events: list[dict[str, Any]] = []

    def add(key: str, seq: int, at: str | None, author: str, payload: dict[str, Any]) -> None:
        event = seal({
            "schema": "gitstore.event/v1", "scope": ctx.scope, "id": event_id(eid, key), "episode": eid,
            "type": "observation", "seq": seq, "at": at or started, "author": author,
            "parentEventId": None, "payload": payload,
        })
        stored = held.get(event["id"])
        if (stored is None or stored["digest"] != event["digest"]) if transcript.rewritten else \
                (stored is not None and any(stored.get(name) != event.get(name) for name in AGREED)):
            # keyed by its version: where the harness rewrites its transcript, but for the very
            # event stored under its key alone (by a version of gitstore that did not know it
            # does); elsewhere, where an event stored under its key says otherwise (the session
            # file was edited since: another time, other text), which kept under that one key
            # would leave two records disputing one event, neither of them standing for it
            key = versioned_key(key, {"seq": seq, "at": at or started, "author": author, "payload": payload})
            event["id"] = event_id(eid, key)
            event = seal(event)
        events.append(event)

    task_text, outcome_text, commands = summary_texts(transcript)
    task = screen.text(task_text, SUMMARY_CHARS // 2) if task_text is not None else None
    outcome = screen.text(outcome_text, SUMMARY_CHARS // 2) if outcome_text is not None else None
    if mode in ("summary", "hybrid"):
        files = [f for f in map(screen.name, file_names(transcript)) if f]
        summary = {"role": "summary", "text": f"Task: {task or '[not captured]'}\nOutcome: {outcome or '[not captured]'}"}
        if files:
            summary["files"] = files
        last = transcript.turns[-1].key if transcript.turns else "none"
        add(f"summary:{len(transcript.turns)}:{last}", SUMMARY_SEQ, _summary_time(ended, _told(transcript)),
            agent, summary)
        tests: dict[str, bool] = {}
        for command, passed in transcript.tests:
            tests.setdefault(command, passed)  # the first run's: the event is of the first run
        places = _command_places(transcript)
        for index, command in enumerate(commands):
            if command not in tests and is_test_command(command):
                # its first run is still going (a harness rewriting its transcript, a command
                # left running in the background): the capture that finds its result writes it,
                # where the run written now would stay beside the finished one, an event apart
                continue
            text = screen.text(command, 2000)
            if text is None:
                continue
            payload: dict[str, Any] = {"role": "tool", "command": text}
            if command in tests:
                payload["exitCode"] = 0 if tests[command] else 1
                payload["text"] = "test run passed" if tests[command] else "test run failed"
            place, at = places.get(command, (len(transcript.turns) + index, None))
            add(f"command:{index}:{command[:200]}", place + 1, _time(at), agent, payload)
    if mode in ("transcript", "hybrid"):
        kept = transcript.turns[:MAX_TURNS]
        joined, split_tokens = across_turns(kept)
        screen.redactions += split_tokens
        for index, (turn, (raw, answers)) in enumerate(zip(kept, joined)):
            text = screen.outputs(raw, answers, TURN_CHARS, turn.role == "tool") if raw.strip() else None
            if text is None:
                continue
            author = agent if turn.role != "user" else "user:local"
            add(f"turn:{turn.key}", index + 1, _time(turn.at), author, {"role": turn.role, "text": text})
    degraded = _degradation(transcript, screen, reasons)
    episode = seal({
        "schema": "gitstore.episode/v1", "scope": ctx.scope, "id": eid, "source": source,
        "pin": {"repository": ctx.scope, "pullRequest": None, "branch": screen.name(transcript.branch, 255),
                "commit": commit},
        # no title: the task's words live only in the summary event's payload, which redaction
        # removes; the pin is outside it, so a branch the scanner would change is none
        "title": None, "startedAt": started, "capture": "degraded" if degraded else "complete",
        "mode": mode, "grants": _grants(ctx, started),
    })
    return episode, events


def _episode_held(ctx: Context, source: dict[str, str]) -> tuple[str, dict[str, dict[str, Any]]]:
    """The session's episode id and the events the store holds of it: ``episode_id``'s, or the
    one it was stored under before ids read the scope's key (``spelled_episode_id``), where the
    scope is spelled otherwise and that one holds events while the other holds none, so a
    session captured again adds to the episode it has."""
    eid = episode_id(ctx.scope, source)
    held = _held_events(ctx, eid)
    spelled = spelled_episode_id(ctx.scope, source)
    if not held and spelled != eid and (before := _held_events(ctx, spelled)):
        return spelled, before
    return eid, held


def _held_events(ctx: Context, episode: str) -> dict[str, dict[str, Any]]:
    """The events the store holds of EPISODE: id -> record, read once per capture (one stream)."""
    return {item.record["id"]: item.record for item in ctx.store.stream(episode) if item.kind == "event"}


def _summary_time(ended: str, told: int) -> str:
    """A summary's time: its session's end, one microsecond later for each turn it summarizes
    (``_told``: for a session its harness rewrites in place, its tool calls and text too, within
    a millisecond). The latest summary of a session stands for it (``gitstore.rules.summaries``),
    and a session's end is the latest of its turns' times, which stands still where later turns
    carry no newer time (a clock stepped back, turns without one): a longer session's summary is
    then still the later, and the same capture writes the same time again."""
    try:
        return format_time(parse_time(ended) + timedelta(microseconds=told))
    except (OverflowError, InvalidInput):  # the last instant there is: nothing is later
        return ended


TOLD_CALLS = 200  # tool calls a rewritten session's summary time counts, at most
TOLD_TEXT = 799  # microseconds its text adds, at most: with its calls, under a millisecond


def _told(transcript: Transcript) -> int:
    """How much of the session a summary tells, which orders its summaries: its turns; where the
    harness rewrites messages in place (a message grows, a session keeps its length), its tool
    calls (up to ``TOLD_CALLS``) and a measure of its text too (``_text_measure``), so the
    summary of the grown session is the later, and no later than a millisecond past its end
    for what the harness rewrote."""
    told = len(transcript.turns)
    if transcript.rewritten:
        calls = sum(len(turn.tools) for turn in transcript.turns)
        told += min(calls, TOLD_CALLS) + _text_measure(sum(len(turn.text) for turn in transcript.turns))
    return told


def _text_measure(chars: int) -> int:
    """CHARS as a number of microseconds that never falls as it grows: each character up to
    256, then 32 for each doubling, up to ``TOLD_TEXT`` (reached past 33 million characters).
    Text that grows by more than about 2 % of it moves it on."""
    if chars <= 256:
        return chars
    return min(256 + int(32 * math.log2(chars / 256)), TOLD_TEXT)


def _command_places(transcript: Transcript) -> dict[str, tuple[int, str | None]]:
    """Each command's place in the session: the index and time of the turn that first ran it.
    A command event takes both from there, never from the capture or the session's end, so a
    capture of the session after a later turn writes the event a capture of it then wrote."""
    places: dict[str, tuple[int, str | None]] = {}
    for index, turn in enumerate(transcript.turns):
        for call in turn.tools:
            if call.command and not call.rejected:
                places.setdefault(call.command, (index, turn.at))
    return places


def transcript_key(hook: HookInput) -> str:
    """A session key for a transcript without a session id: its file name."""
    return "file:" + (hook.transcript.name if hook.transcript else "unknown")


def _degradation(transcript: Transcript, screen: Screen, reasons: list[str]) -> bool:
    if transcript.counts.unknown or transcript.counts.malformed:
        reasons.append("lines-skipped")
    if transcript.turns_dropped or transcript.subagents_left_out or any(t.truncated for t in transcript.turns):
        reasons.append("truncated")
    if screen.quarantined:
        reasons.append("quarantined")
    return bool(reasons)


def _receipt(ctx: Context, envelope: dict[str, Any], episode: dict[str, Any] | None,
             transcript: Transcript | None, screen: Screen, reasons: list[str]) -> dict[str, Any]:
    counts = transcript.counts if transcript else None
    observed, unavailable = [], []
    for name, present in (("transcript", transcript is not None),
                          ("revision", bool(episode and episode["pin"]["commit"])),
                          ("branch", bool(episode and episode["pin"]["branch"])),
                          ("files-touched", bool(transcript and transcript.files_touched)),
                          ("commands", bool(transcript and transcript.commands)),
                          ("test-results", bool(transcript and transcript.tests))):
        if present:
            observed.append(name)
        elif name in ("transcript", "revision"):
            unavailable.append(name)
    reasons = list(dict.fromkeys(reasons))
    if unavailable and not reasons:
        reasons.append("transcript-missing" if "transcript" in unavailable else "revision-unknown")
    quarantined = min(screen.quarantined, counts.parsed) if counts else 0
    return seal({
        "schema": "gitstore.receipt/v1", "scope": ctx.scope, "envelope": envelope["digest"],
        "episode": episode["id"] if episode else None,
        "status": "degraded" if reasons else "complete", "reasons": reasons,
        "observed": observed, "unavailable": unavailable,
        "lines": {"total": counts.total if counts else 0, "parsed": (counts.parsed - quarantined) if counts else 0,
                  "unknown": counts.unknown if counts else 0, "malformed": counts.malformed if counts else 0,
                  "quarantined": quarantined},
        "redactions": screen.redactions, "writtenAt": now_time(),
    })


def _grants(ctx: Context, at: str) -> list[str]:
    """Grants covering agent-session evidence at ``at`` when collected (provenance only)."""
    found = []
    try:
        items = list(ctx.store.items(["grant"]))
    except GitstoreError:
        return []
    for item in items:
        grant = item.record
        if "agent-session" in grant["sources"] and grant["from"] <= at and (grant["until"] is None or at <= grant["until"]):
            found.append(item.digest)
    return found[:64]


def _time(value: str | None) -> str | None:
    if not value:
        return None
    try:
        parse_time(value)
        return value
    except InvalidInput:
        try:
            return normalize_time(value)
        except InvalidInput:
            return None


def _first_turn_time(transcript: Transcript) -> str | None:
    times = [t.at for t in transcript.turns if t.at]
    return _time(min(times)) if times else None


def _head(repo: pygit2.Repository) -> str | None:
    try:
        return str(repo.head.target)
    except (pygit2.GitError, KeyError):
        return None


def _branch(repo: pygit2.Repository) -> str | None:
    try:
        return None if repo.head_is_detached else repo.head.shorthand
    except (pygit2.GitError, KeyError):
        return None


def _commit_at(repo: pygit2.Repository, at: str) -> str | None:
    """The commit HEAD's history had at ``at``: the same on every replay, whatever HEAD is now."""
    head = _head(repo)
    if head is None:
        return None
    limit = int(parse_time(at).timestamp())
    commit = repo[head]
    for _ in range(5000):
        if commit.commit_time <= limit:
            return str(commit.id)
        if not commit.parents:
            return None
        commit = commit.parents[0]
    return None
