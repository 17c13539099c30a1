"""Review import: GitHub pull-request review comments become episodes and events.

Input is webhook deliveries (``pull_request_review_comment``, ``pull_request_review``,
``pull_request_review_thread``, ``issue_comment``) and REST snapshots: one of them, a JSON array of
them, or a folder of such ``*.json`` files. Each snapshot is an import of its own, with its own
record of its pages; the deliveries are one more. A REST snapshot::

    {"format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": 42,
     "head": {"ref": "feature/retry", "sha": "<40 hex>"}, "takenAt": "2026-03-02T10:00:00Z",
     "responses": [{"collection": "pull-comments", "page": 1,
                    "link": "<...&page=2>; rel=\\"next\\", <...&page=3>; rel=\\"last\\"",
                    "body": [<comment>, ...]}, ...]}

``takenAt`` (optional: ``import github`` writes it) is when its pages were first requested; a
snapshot without one is as old as the latest time among its items. ``responses`` holds each list response of ``pulls/N/comments`` (``pull-comments``),
``pulls/N/reviews`` (``reviews``) and ``issues/N/comments`` (``issue-comments``) with its
``Link`` header (``""`` on a single page). Every page must carry its link header; contradictory
pagination (a page claiming a different last page, a next link that skips, the same page twice
with different bodies) is refused. Missing pages make the import incomplete, naming the spans.

Each review thread (a root comment and its replies) becomes one episode pinned to repository,
pull request, branch and commit; comments, edits, status changes and deletions become
append-only events (an edit supersedes the version before it, a deletion retracts the comment,
also one delivered before the comment, which is then never stored).
Reviewer names and avatars are dropped; people are ``github:<user id>``. Texts are screened by
the safety scanner: quarantined comments are skipped and counted, secrets are redacted, and a
text over ``TEXT_CHARS`` is cut at a word, noted at its end and named by the report. Events
already stored are skipped (counted apart from what is withheld: they are no loss), so
re-importing an old snapshot never restores removed text, and a comment whose text was removed
gets no later version (an edit on GitHub brings none back).
"""

from __future__ import annotations

import re
import shlex
import urllib.parse
from datetime import datetime, timedelta, timezone
from collections import ChainMap
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from gitstore.capture.saved import FORMAT, MAX_SNAPSHOT_BYTES, exclusive
from gitstore.capture.bounds import bounded
from gitstore.capture.screening import clean_name, clean_path, scanner
from gitstore.records.canonical import canonicalize, parse_json, sha256_digest
from gitstore.records.times import normalize_time
from gitstore.records.contracts import seal
from gitstore.errors import InvalidInput, Refused
from gitstore.records.ids import episode_id, event_id
from gitstore.records.inputs import read_file
from gitstore.context import Context
from gitstore.records.times import format_time, now, parse_time

COLLECTIONS = ("pull-comments", "reviews", "issue-comments")
TEXT_CHARS = 20000  # of a comment's text, the most an event holds (its contract's bound)
# what the audit entry of one append names at most (its contract): the imports stored
# together (``subjects``) and the records written with them (``records``)
MAX_IMPORTS, MAX_RECORDS = 1000, 10000
THREAD = "review-thread"  # the source kind of the episodes an import writes: one per thread
SEQ_MAX = 2**53 - 1  # the contracts' bound on an event's ``seq``
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
CLOCK_SKEW = timedelta(days=1)  # how far a snapshot's times may run ahead of this clock
# the REST API's own hosts, whose web host is the name after ``api.``: github.com's and GitHub
# Enterprise Cloud's (``TENANT.ghe.com``); GitHub Enterprise Server serves it at ``HOST/api/v3``
API_HOST = re.compile(r"api\.(?:github\.com|[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.ghe\.com)")
_LINK = re.compile(r'<[^>]*[?&]page=(\d+)[^>]*>;\s*rel="(next|last|prev|first)"')


@dataclass
class ImportReport:
    """What an import stored and whether its window is complete."""

    record: dict[str, Any]
    episodes: int = 0
    events: int = 0
    skipped: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)
    already: int = 0  # items delivered that the store (or this import) holds already: nothing new, none withheld

    @property
    def todo(self) -> str | None:
        """What completes an incomplete import: a REST snapshot of every page of its pull
        request (webhook deliveries never prove that every comment was delivered), or of every
        pull request updated since a time when the deliveries named none."""
        if self.record["complete"]:
            return None
        pr = self.record["pullRequest"]
        which = f"--pr {pr}" if pr is not None else "--since TIME (covering the deliveries)"
        return f"gitstore import github --repo {self.record['repository']} {which}"

    def to_json(self) -> dict[str, Any]:
        return {"import": self.record["digest"], "pullRequest": self.record["pullRequest"],
                "complete": self.record["complete"],
                "missing": self.record["missing"], "counts": self.record["counts"], "todo": self.todo,
                "episodes": self.episodes, "events": self.events, "alreadyStored": self.already, "removedText": self.removed,
                "cutText": self.cut}


def load_snapshot(path: Path) -> tuple[str, list[dict[str, Any]] | dict[str, Any], bytes]:
    """``("github-webhook", [payloads])`` or ``("github-rest", snapshot)``, with canonical bytes:
    the one import a file or folder holds (``load_material`` reads several snapshots)."""
    [loaded, *more] = load_material(path)
    if more:
        raise InvalidInput(f"{path}: holds {len(more) + 1} imports (REST snapshots each import alone); "
                           "`gitstore import reviews` imports them together")
    return loaded


def load_material(path: Path) -> list[tuple[str, Any, bytes]]:
    """The imports a file or folder holds, each ``(source, data, canonical bytes)`` as
    ``load_snapshot`` gives one: every REST snapshot (``gitstore.github-snapshot/1``) is an
    import of its own, with its own record of the pages it holds, and the webhook deliveries
    among them one more, in the order things happened. A file holds a snapshot, a delivery, or
    a JSON array of either; a folder, such files (``*.json``, in name order)."""
    if path.is_dir():
        files = sorted(path.rglob("*.json"))
        if not files:
            raise InvalidInput(f"{path}: no *.json GitHub snapshots or webhook deliveries in this folder")
    else:
        files = [path]
    snapshots: list[dict[str, Any]] = []
    payloads: list[dict[str, Any]] = []
    for file in files:
        data = _read_json(file)
        items = data if isinstance(data, list) else [data]
        if not items:
            raise InvalidInput(f"{file}: an empty array, neither a gitstore GitHub snapshot ({FORMAT}) nor webhook deliveries")
        for n, item in enumerate(items):
            if isinstance(item, dict) and item.get("format") == FORMAT:
                check_snapshot(Path(_where(file, data, n)), item)
                snapshots.append(item)
            elif isinstance(item, dict) and "action" in item and "repository" in item:
                _check_delivery(Path(_where(file, data, n)), item)
                payloads.append(item)
            elif not isinstance(data, list) or _rest_comments(items):
                raise InvalidInput(f"{file}: neither a gitstore GitHub snapshot ({FORMAT}) nor webhook deliveries"
                                   + (_REST_LIST if _rest_comments(items) else ""))
            else:
                raise InvalidInput(f"{_where(file, data, n)} is neither a gitstore GitHub snapshot ({FORMAT}) nor a webhook delivery")
    loaded: list[tuple[str, Any, bytes]] = [("github-rest", s, canonicalize(s)) for s in in_taken_order(snapshots)]
    if payloads:
        payloads = in_time_order(payloads)
        loaded.append(("github-webhook", payloads, canonicalize(payloads)))
    if len(loaded) > MAX_IMPORTS:
        raise InvalidInput(f"{path}: holds {len(loaded)} imports (each REST snapshot one, the deliveries one more); "
                           f"one run stores at most {MAX_IMPORTS} in its one append: import them in folders or "
                           f"arrays of at most {MAX_IMPORTS} snapshots")
    return loaded


def snapshot_time(snapshot: dict[str, Any]) -> str | None:
    """When a REST snapshot was taken, at the latest: its ``takenAt``, else the latest time among
    the items it lists (a comment's ``updated_at`` or ``created_at``, a review's
    ``submitted_at``), since it was taken after each of them; None when it gives no time."""
    taken = _time_or_none(snapshot.get("takenAt"))
    if taken is not None:
        return taken
    times = [_time_or_none(item.get(key)) for response in snapshot.get("responses", [])
             for item in response.get("body", []) if isinstance(item, dict)
             for key in ("updated_at", "created_at", "submitted_at")]
    return max((t for t in times if t is not None), default=None)


def snapshot_digest(source: str, data: Any, canonical: bytes) -> str:
    """What an import's record names its material by: the digest of its canonical bytes, a REST
    snapshot's without its ``takenAt``, so the same pages fetched again are the same snapshot
    (stored already, not imported again) whenever they were fetched."""
    if source == "github-rest" and isinstance(data, dict) and "takenAt" in data:
        canonical = canonicalize({k: v for k, v in data.items() if k != "takenAt"})
    return sha256_digest(canonical)


def in_taken_order(snapshots: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """REST snapshots with those of one pull request in the order they were taken (oldest first,
    one giving no time before the others), whatever order files or arrays gave them in: an
    older one read after a newer one would show the comments written between them deleted.
    Pull requests keep the order of their first snapshot."""
    first: dict[Any, int] = {}
    for n, snapshot in enumerate(snapshots):
        first.setdefault(snapshot.get("pullRequest"), n)
    return sorted(snapshots, key=lambda s: (first[s.get("pullRequest")], snapshot_time(s) or ""))


def _where(file: Path, data: Any, n: int) -> str:
    """The file, or its array's item N (from 0), an error names."""
    return f"{file}: item {n + 1} of its array" if isinstance(data, list) else str(file)


# what to do with what `gh api repos/O/R/pulls/N/comments` prints: one page of a pull
# request's review comments, which says nothing of the pages, reviews and threads it left out
_REST_LIST = ("; it reads as GitHub REST review comments, one page of them: `gitstore import github --pr N` "
              "fetches every page of a pull request and imports them")


def _rest_comments(payloads: list[Any]) -> bool:
    """Whether PAYLOADS is a list of GitHub REST review comments (each with its pull request's
    address and the diff it comments on)."""
    return bool(payloads) and all(isinstance(p, dict) and "pull_request_url" in p and "diff_hunk" in p
                                  for p in payloads)


def check_snapshot(path: Path, data: dict[str, Any]) -> None:
    """Refuse, in one line, a snapshot whose parts are not of the JSON types its format gives
    them (a file written by hand, or damaged): the importer reads the rest trusting them."""
    pr = data.get("pullRequest")
    if not _number(pr) or pr < 1:
        raise InvalidInput(f"{path}: pullRequest is not a pull request number ("
                           f"{'missing' if pr is None and 'pullRequest' not in data else _json_kind(pr) if not _number(pr) else pr})")
    if "takenAt" in data and _time_or_none(data["takenAt"]) is None:
        raise InvalidInput(f"{path}: takenAt is not a time (an RFC 3339 timestamp)")
    # a snapshot's time says which comments missing from it were deleted: one from the future
    # would show every comment written until then deleted, and have its text removed
    latest = format_time(datetime.now(timezone.utc) + CLOCK_SKEW)
    _not_later(path, "takenAt", data.get("takenAt"), latest)
    responses = data.get("responses", [])
    if not isinstance(responses, list):
        raise InvalidInput(f"{path}: responses is not a list of list responses (a {type(responses).__name__})")
    for n, response in enumerate(responses):
        if not isinstance(response, dict) or not isinstance(response.get("collection"), str):
            raise InvalidInput(f"{path}: responses[{n}] is not a list response (an object naming its collection)")
        if not _number(response.get("page")) or not isinstance(response.get("body"), list):
            raise InvalidInput(f"{path}: responses[{n}] needs a page number and a list body")
        for m, item in enumerate(response["body"]):
            for key in ("updated_at", "created_at", "submitted_at") if isinstance(item, dict) else ():
                _not_later(path, f"responses[{n}].body[{m}].{key}", item.get(key), latest)


# the times a delivery's import reads, by where they are (a thread's comments: each of them)
_DELIVERY_TIMES = (("comment", ("created_at", "updated_at")), ("review", ("submitted_at",)),
                   ("pull_request", ("updated_at",)))


def _check_delivery(path: Path, payload: dict[str, Any]) -> None:
    """Refuse, in one line, a webhook delivery giving a time the importer reads later than now
    by more than ``CLOCK_SKEW``: a comment stored as written in 2099 is never older than a
    snapshot that leaves it out, so no snapshot would ever show it deleted and remove its text."""
    latest = format_time(datetime.now(timezone.utc) + CLOCK_SKEW)
    why = "a delivery from the future would keep its comments from ever being found deleted"
    for part, keys in _DELIVERY_TIMES:
        for key in keys:
            _not_later(path, f"{part}.{key}", _object(payload.get(part)).get(key), latest, why)
    listed = _object(payload.get("thread")).get("comments")
    for n, comment in enumerate(listed if isinstance(listed, list) else []):
        for key in ("created_at", "updated_at"):
            _not_later(path, f"thread.comments[{n}].{key}", _object(comment).get(key), latest, why)


class FromTheFuture(InvalidInput):
    """A snapshot or delivery giving a time later than now by more than ``CLOCK_SKEW``: refused
    the same way on every pass until the clock passes it, so a folder's pass names it once."""


def _not_later(path: Path, name: str, value: Any, latest: str,
               why: str = "a snapshot from the future would show comments deleted") -> None:
    """Refuse a snapshot's (or delivery's) time later than ``latest`` (now and the clock skew allowed)."""
    at = _time_or_none(value)
    if at is not None and at > latest:
        raise FromTheFuture(f"{path}: {name} is {at}, in the future (later than now by more than "
                           f"{CLOCK_SKEW.days} day): {why}")


def _number(value: Any) -> TypeGuard[int]:
    """Whether a JSON value is a whole number (``true`` is not one, though Python counts it an int)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _github_id(value: Any) -> TypeGuard[int]:
    """Whether a JSON value is an id GitHub gives (an object's, a user's): a whole number from 1."""
    return _number(value) and value >= 1


def _pull(value: Any) -> int | None:
    """A pull request's (or issue's) number as a delivery gives it, None when it is none (not a
    whole number from 1, ``true`` included): an episode's pin holds nothing else."""
    return value if _github_id(value) else None


_STEP = {"created": 0, "submitted": 0, "edited": 1, "resolved": 1, "unresolved": 1, "dismissed": 2, "deleted": 3}


def _delivery_time(payload: dict[str, Any]) -> str:
    """When what a delivery reports happened: a comment's creation, or its last edit (an edit's
    or deletion's ``updated_at``), a review's submission, a thread's pull request update."""
    comment, review = payload.get("comment"), payload.get("review")
    if isinstance(comment, dict):
        value = comment.get("created_at") if payload.get("action") == "created" else \
            comment.get("updated_at") or comment.get("created_at")
    elif isinstance(review, dict):
        value = review.get("submitted_at")
    else:
        value = (payload.get("pull_request") or {}).get("updated_at") if isinstance(payload.get("pull_request"), dict) else None
    try:
        return normalize_time(value) if isinstance(value, str) else ""
    except InvalidInput:
        return ""


def in_time_order(payloads: list[Any]) -> list[Any]:
    """Webhook deliveries in the order things happened (by time, then created before edited
    before deleted), whatever order files or arrays gave them in: a deletion read before the
    edit it follows would lose the edit. Deliveries at the same step keep their order."""
    return sorted(payloads, key=lambda p: (_delivery_time(p), _STEP.get(str(p.get("action")), 1))
                  if isinstance(p, dict) else ("", 0))


def _read_json(path: Path) -> Any:
    try:
        return parse_json(read_file(path, MAX_SNAPSHOT_BYTES))
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read ({exc.strerror})") from None
    except InvalidInput as exc:
        if str(exc).startswith(str(path)):
            raise
        raise InvalidInput(f"{path}: {exc}") from None


# -- pagination ---------------------------------------------------------------------------------

def check_pages(responses: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Pages seen and missing spans; refuses contradictory pagination."""
    pages: list[dict[str, Any]] = []
    missing: list[dict[str, Any]] = []
    for collection in COLLECTIONS:
        mine = [r for r in responses if r.get("collection") == collection]
        if not mine:
            missing.append({"collection": collection, "from": 1, "to": None})
            continue
        last, seen = _collection_pages(collection, mine)
        pages.extend({"collection": collection, "page": n, "count": len(seen[n]["body"]), "last": n == last}
                     for n in sorted(seen))
        missing.extend(_spans(collection, seen, last))
    unknown = {r.get("collection") for r in responses} - set(COLLECTIONS)
    if unknown:
        raise Refused(f"snapshot names unknown collections: {', '.join(sorted(map(str, unknown)))}")
    return pages, missing


def _collection_pages(collection: str, responses: list[dict[str, Any]]) -> tuple[int, dict[int, dict[str, Any]]]:
    seen: dict[int, dict[str, Any]] = {}
    lasts: set[int] = set()
    for response in responses:
        page, link, body = response.get("page"), response.get("link"), response.get("body")
        if not _number(page) or page < 1 or not isinstance(body, list):
            raise Refused(f"{collection}: every response needs a page number and a list body")
        if not isinstance(link, str):
            raise Refused(f"{collection} page {page} has no link header; completeness cannot be judged")
        rels = {rel: int(n) for n, rel in _LINK.findall(link)}
        if "next" in rels and rels["next"] != page + 1:
            raise Refused(f"{collection} page {page} links next to page {rels['next']}: contradictory pagination")
        lasts.add(rels.get("last", page) if "next" in rels else page)
        if "next" not in rels and "last" in rels and rels["last"] != page:
            raise Refused(f"{collection} page {page} has no next page but names last page {rels['last']}")
        if page in seen and seen[page]["body"] != body:
            raise Refused(f"{collection} page {page} appears twice with different items")
        seen[page] = response
    if len(lasts) != 1:
        raise Refused(f"{collection} pages disagree on the last page ({sorted(lasts)}): contradictory pagination")
    last = lasts.pop()
    if max(seen) > last:
        raise Refused(f"{collection} has page {max(seen)} beyond its last page {last}")
    return last, seen


def _spans(collection: str, seen: dict[int, Any], last: int) -> list[dict[str, Any]]:
    spans, start = [], None
    for n in range(1, last + 1):
        if n not in seen and start is None:
            start = n
        if n in seen and start is not None:
            spans.append({"collection": collection, "from": start, "to": n - 1})
            start = None
    if start is not None:
        spans.append({"collection": collection, "from": start, "to": last})
    return spans


# -- building records ---------------------------------------------------------------------------

class KnownReviews:
    """What an import builds on: the episodes, events and grants stored, each review
    comment's latest stored version, the comments retracted and those whose text was
    removed (``redact``: their source ids, to import without text). Loaded once for a run of
    imports (``import github`` imports a snapshot per pull request) and told each import's
    records once they are stored (``stored``), instead of the store read again per import."""

    def __init__(self, episodes: dict[str, dict[str, Any]], events: dict[str, dict[str, Any]],
                 grants: dict[str, dict[str, Any]]) -> None:
        self.episodes, self.events, self.grants = episodes, events, grants
        self.versions: dict[str, dict[str, Any]] = {}
        self.retracted: set[str] = set()
        self.redacted: set[str] = set()
        self.threads: dict[tuple[Any, ...], str] = {}  # a thread's source -> the episode stored for it
        self._learn(events.values())
        self._thread_episodes(episodes.values())

    @classmethod
    def load(cls, ctx: Context) -> KnownReviews:
        """What the store holds of review threads: their episodes' events are read, with their
        payloads (where comment ids are); agent sessions' events, most of a store, are not.
        Only a removal honoured here marks a comment redacted: a note without authority
        removes nothing (what it names is a claim anyone who can push may make), so a comment
        such a note names is imported with its text, as if the note were not there."""
        view = ctx.view(payloads=False, kinds=("episode", "grant"))
        threads = {eid for eid, episode in view.episodes.items() if episode["source"]["kind"] == THREAD}
        if threads:
            view.add(ctx.store.items(["event"], streams=threads, payloads=True))
        return cls(view.episodes, view.events, view.grants)

    def stored(self, records: Iterable[dict[str, Any]]) -> None:
        """Take in an import's records, now stored (the first of an id stands, as in a view)."""
        events = []
        for record in records:
            schema, rid = record.get("schema"), record.get("id")
            if schema == "gitstore.episode/v1" and rid not in self.episodes:
                self.episodes[rid] = record
            elif schema == "gitstore.event/v1" and rid not in self.events:
                self.events[rid] = record
                events.append(record)
        self._learn(events)
        self._thread_episodes(r for r in records if r.get("schema") == "gitstore.episode/v1")

    def _thread_episodes(self, episodes: Iterable[dict[str, Any]]) -> None:
        """Note each thread's episode by its source. One stored under an id another spelling of
        this repository's scope gave (``spelled_episode_id``: before ids read the scope's key), or
        under a scope this repository had before (``Scope.formerly``), is the thread's: an
        import adds to it rather than starting a second episode of the same thread. Of several,
        the least id, so every clone holding them picks the same."""
        for episode in episodes:
            source = episode.get("source")
            if isinstance(source, dict) and source.get("kind") == THREAD:
                key = (source.get("kind"), source.get("origin"), source.get("ref"))
                known = self.threads.get(key)
                if known is None or episode["id"] < known:
                    self.threads[key] = episode["id"]

    def _learn(self, events: Iterable[dict[str, Any]]) -> None:
        for event in events:
            source = (event.get("payload") or event.get("redaction") or {}).get("sourceId")
            if not source:
                continue
            if "redaction" in event:
                self.redacted.add(source)
            if event["type"] == "retraction":
                self.retracted.add(source)
            elif event["type"] in ("comment", "edit"):
                known = self.versions.get(source)
                if known is None or (event["at"], event["id"]) > (known["at"], known["id"]):
                    self.versions[source] = event


def place(at: str) -> int:
    """A review event's place in its thread (``seq``): the microseconds from 1970 to its time.
    It comes from the event alone, never from what else an import saw: two clones importing
    the same comment (one a whole folder of deliveries, one a single file) write the same
    record, which the store keeps once. Events of one time share a place."""
    moment = parse_time(at) - _EPOCH
    return min(max((moment.days * 86400 + moment.seconds) * 1_000_000 + moment.microseconds, 0), SEQ_MAX)


class _Builder:
    """Turns GitHub objects into episodes and events, skipping what is stored already (what
    it learns while building stays its own until the import is stored)."""

    def __init__(self, ctx: Context, known: KnownReviews, repository: str) -> None:
        self.ctx, self.known, self.repository = ctx, known, repository
        self.records: dict[str, dict[str, Any]] = {}
        self.counts = dict.fromkeys(("comments", "edits", "deletions", "reviews", "episodes", "events", "skipped"), 0)
        # ``counts["skipped"]``: items withheld (no GitHub id, no text, quarantined, deleted or
        # removed at their source); ``already``: items the store holds already, which are no loss
        self.already = 0
        self.deleted: list[str] = []
        self.cut: list[str] = []  # the comments a version stored was cut short of (source ids)
        self.versions: ChainMap[str, dict[str, Any]] = ChainMap({}, known.versions)
        self.retracted = set(known.retracted)

    def episode(self, ref: str, pr: int | None, head: dict[str, Any] | None, commit: str | None,
                at: str) -> str:
        """The thread's episode id, writing the episode if it is new. Its title stays null: text
        taken from a comment lives only in the comment's payload, which redaction removes. The
        pin is outside that payload: a head ref the scanner would change is no branch at all."""
        source = {"kind": THREAD, "origin": "github", "ref": ref}
        eid = episode_id(self.ctx.scope, source)
        if eid not in self.known.episodes:
            eid = self.known.threads.get((THREAD, "github", ref), eid)
        if eid not in self.known.episodes and eid not in self.records:
            self.records[eid] = seal({
                "schema": "gitstore.episode/v1", "scope": self.ctx.scope, "id": eid, "source": source,
                "pin": {"repository": self.ctx.scope, "pullRequest": pr,
                        "branch": clean_name((head or {}).get("ref")), "commit": _sha(commit or (head or {}).get("sha"))},
                "title": None, "startedAt": at, "capture": "complete",
                "mode": "review", "grants": self._grants(at),
            })
            self.counts["episodes"] += 1
        return eid

    def drop_empty_episodes(self) -> None:
        """Leave out the episodes this import wrote that none of its events went into: every
        item of the thread was withheld (quarantined, no text, no GitHub id). Stored, such an
        episode would be an empty thread said to be completely captured, counted as new."""
        filled = {r["episode"] for r in self.records.values() if r["schema"] == "gitstore.event/v1"}
        for rid in [rid for rid, r in self.records.items() if r["schema"] == "gitstore.episode/v1"
                    and rid not in filled]:
            del self.records[rid]
            self.counts["episodes"] -= 1

    def event(self, episode: str, type_: str, key: str, at: str, author: str, parent: str | None,
              payload: dict[str, Any]) -> dict[str, Any] | None:
        eid = event_id(episode, key)
        if eid in self.known.events:
            return self.known.events[eid]
        if eid in self.records:
            return self.records[eid]
        record = seal({
            "schema": "gitstore.event/v1", "scope": self.ctx.scope, "id": eid, "episode": episode,
            "type": type_, "seq": place(at),
            "at": at, "author": author, "parentEventId": parent, "payload": payload,
        })
        self.records[eid] = record
        self.counts["events"] += 1
        return record

    def comment(self, comment: dict[str, Any], pr: int | None, head: dict[str, Any] | None,
                previous_body: str | None = None, thread_key: str = "github:comment") -> dict[str, Any] | None:
        source_id = f"github:comment:{comment['id']}"
        if source_id in self.retracted:  # deleted at its source: later deliveries add no text
            stored, at = self.versions.get(source_id), _time_or_none(comment.get("updated_at") or comment.get("created_at"))
            if stored is not None and at is not None and stored["at"] >= at:  # this version is stored already
                self.already += 1
            else:  # never stored: its author deleted it first
                self.counts["skipped"] += 1
            return None
        created, updated = _at(comment.get("created_at"), "comment", comment), _at(comment.get("updated_at") or comment.get("created_at"), "comment", comment)
        episode = self._thread(comment, pr, head, thread_key, created)
        known = self.versions.get(source_id)
        # GitHub keeps a comment's author on an edit: a later version naming someone else is
        # still the first author's comment
        author = known["author"] if known is not None else _person(comment)
        if known is None and previous_body is not None and updated != created:
            known = self._version(episode, comment, previous_body, created, None, author)
        if known is not None and known["at"] >= updated:
            self.already += 1
            return known
        if source_id in self.known.redacted:  # its text was removed: no later version brings it back
            self.counts["skipped"] += 1
            return None
        # the text is as written at updated_at: that is the time consent is judged by
        return self._version(episode, comment, comment.get("body", ""), updated,
                             known["id"] if known else None, author)

    def _version(self, episode: str, comment: dict[str, Any], body: Any, at: str, parent: str | None,
                 author: str) -> dict[str, Any] | None:
        if body is not None and not isinstance(body, str):  # no text GitHub writes: nothing to keep
            self.counts["skipped"] += 1
            return None
        screened = self._screen(body)
        if screened is None:
            self.counts["skipped"] += 1
            return None
        text, left_out = bounded(screened, TEXT_CHARS)
        payload: dict[str, Any] = {"text": text, "sourceId": f"github:comment:{comment['id']}"}
        if path := clean_path(comment.get("path")):  # a path the scanner would change, or no relative one, names nothing
            payload["path"] = path
        if _number(comment.get("line")) and comment["line"] > 0:  # ``true`` is no line
            payload["line"] = comment["line"]
        type_ = "edit" if parent else "comment"
        built = self.counts["events"]
        record = self.event(episode, type_, f"comment:{comment['id']}:{at}", at, author, parent, payload)
        if record is not None:
            if self.counts["events"] > built:  # a version stored already is not counted again
                self.counts["edits" if parent else "comments"] += 1
                if left_out and payload["sourceId"] not in self.cut:
                    self.cut.append(payload["sourceId"])
            self.versions[payload["sourceId"]] = record
        return record

    def delete(self, comment: dict[str, Any], pr: int | None = None, head: dict[str, Any] | None = None,
               thread_key: str = "github:comment", *, delivered: bool = True) -> None:
        """Store a comment's deletion, once. A comment not stored yet gets its deletion too (GitHub
        does not promise the order of deliveries, and redelivers a failed one later): the comment
        delivered after it is then skipped, never stored with the text its author deleted."""
        source_id = f"github:comment:{comment['id']}"
        known = self.versions.get(source_id)
        if source_id not in self.retracted:  # its deletion is stored once
            at = _at(comment.get("updated_at") or comment.get("created_at"), "comment", comment)
            episode, parent = (known["episode"], known["id"]) if known else self._unseen(comment, pr, head, thread_key, at)
            self.event(episode, "retraction", f"delete:{comment['id']}", at, _person(comment), parent,
                       {"text": "", "sourceId": source_id})
            self.counts["deletions"] += 1
            self.retracted.add(source_id)
        elif delivered:  # a deletion delivered again
            self.already += 1
        # shown deleted, its text still stored (an earlier import stored the deletion without
        # --remove-deleted): --remove-deleted removes it now
        if known is not None and source_id not in self.known.redacted and source_id not in self.deleted:
            self.deleted.append(source_id)

    def _unseen(self, comment: dict[str, Any], pr: int | None, head: dict[str, Any] | None, thread_key: str,
                at: str) -> tuple[str, str]:
        """The thread a comment not stored belongs to, and the id its version written at ``at``
        (a deletion's ``updated_at``: its last) is stored as, which its retraction names: a clone
        that stored the comment from its own deliveries finds it retracted once the two meet."""
        episode = self._thread(comment, pr, head, thread_key, _at(comment.get("created_at") or at, "comment", comment))
        return episode, event_id(episode, f"comment:{comment['id']}:{at}")

    def status(self, episode: str, key: str, at: str, author: str, state: str, parent: str | None) -> None:
        self.event(episode, "status", key, at, author, parent, {"state": state})

    def _thread(self, comment: dict[str, Any], pr: int | None, head: dict[str, Any] | None, thread_key: str,
                created: str) -> str:
        """The episode of a comment's thread: its root's, written when new."""
        root = comment.get("in_reply_to_id") or comment["id"]
        return self._episode_of(f"github:comment:{root}") or self.episode(
            f"{thread_key}:{root}", pr, head, comment.get("commit_id"), created)

    def _episode_of(self, root_source: str) -> str | None:
        known = self.versions.get(root_source)
        return known["episode"] if known else None

    def _screen(self, text: str | None) -> str | None:
        """TEXT screened whole, None when quarantined: a comment is read whole already, so a
        quarantine anywhere in it withholds it, and its secrets are redacted before it is cut
        to its bound (``bounded``, at a word: no redaction is split). A harness's wrapper tag
        is quarantined in any form here (``harness_wrappers``): the scanner lets the form a
        harness writes pass, as captured sessions hold it, and no harness writes a review."""
        from gitstore.safety.injection import harness_wrappers

        result = scanner().scan(text or "")
        return None if result.quarantined or harness_wrappers(text or "") else result.text

    def _grants(self, at: str) -> list[str]:
        return [d for d, g in self.known.grants.items()
                if "review-thread" in g["sources"] and g["from"] <= at and (g["until"] is None or at <= g["until"])][:64]


def _person(obj: dict[str, Any]) -> str:
    """Who wrote a GitHub object: ``github:<id>``, or ``bot:github:<id>`` for an account GitHub
    types as a bot (or an app's ``name[bot]`` login), which counts as nobody."""
    user = _object(obj.get("user"))
    if not _github_id(user.get("id")):
        return "github:unknown"
    login = user.get("login")
    bot = user.get("type") == "Bot" or (isinstance(login, str) and login.endswith("[bot]"))
    return f"bot:github:{user['id']}" if bot else f"github:{user['id']}"


def _object(value: Any) -> dict[str, Any]:
    """A field that holds a JSON object in GitHub's payloads; an empty one for anything else
    (a delivery or snapshot written by hand, or cut short), which then names nothing."""
    return value if isinstance(value, dict) else {}


def _previous_body(payload: dict[str, Any]) -> str | None:
    """An edit delivery's body before the edit (``changes.body.from``), when it says one."""
    found = _object(_object(payload.get("changes")).get("body")).get("from")
    return found if isinstance(found, str) else None


def _numbered(obj: Any) -> TypeGuard[dict[str, Any]]:
    """Whether a GitHub object carries GitHub's ids, which are numbers from 1: a thread's root id is
    kept outside the payload redaction removes (its episode's source), where any other text
    could never be taken back."""
    return isinstance(obj, dict) and _github_id(obj.get("id")) and (
        obj.get("in_reply_to_id") is None or _github_id(obj.get("in_reply_to_id")))


def _time_or_none(value: Any) -> str | None:
    """A GitHub object's time normalized, None when it has no usable one."""
    try:
        return normalize_time(value) if isinstance(value, str) else None
    except InvalidInput:
        return None


def _at(value: Any, what: str, obj: Any) -> str:
    """The time VALUE of the GitHub WHAT (``comment``, ``review``) OBJ, normalized; refused,
    naming the object, when it has none."""
    if not isinstance(value, str):
        ident = obj.get("id") if isinstance(obj, dict) else None
        named = f"{what} {ident}" if isinstance(ident, (int, str)) and not isinstance(ident, bool) else what
        field = {"review": "submitted_at", "pull request": "updated_at"}.get(what, "created_at")
        raise InvalidInput(f"GitHub {named} has no usable time (its {field} is "
                           f"{'missing' if value is None else f'a {_json_kind(value)}'})")
    return normalize_time(value)


def _json_kind(value: Any) -> str:
    """What a JSON value is, as JSON names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {dict: "object", list: "array", str: "string", int: "number", float: "number"}.get(type(value), "value")


def _sha(value: Any) -> str | None:
    return value if isinstance(value, str) and re.fullmatch(r"[0-9a-f]{40}", value) else None


# -- the two sources ------------------------------------------------------------------------------

def _from_webhook(builder: _Builder, payload: dict[str, Any]) -> None:
    action = payload.get("action")
    pr_obj = _object(payload.get("pull_request"))
    pr = _pull(pr_obj.get("number"))
    head = _object(pr_obj.get("head")) or None
    if "thread" in payload:
        listed = _object(payload["thread"]).get("comments")
        comments = [c for c in listed if isinstance(c, dict)] if isinstance(listed, list) else []
        roots = [c for c in comments if not c.get("in_reply_to_id")] or comments[:1]
        if roots and not _numbered(roots[0]):
            builder.counts["skipped"] += 1
        elif roots:
            episode = builder._episode_of(f"github:comment:{roots[0]['id']}") or builder.episode(
                f"github:comment:{roots[0]['id']}", pr, head, roots[0].get("commit_id"), _at(roots[0].get("created_at"), "comment", roots[0]))
            state = "resolved" if action == "resolved" else "open"
            at = _at(pr_obj.get("updated_at") or roots[0].get("updated_at"), "pull request", pr_obj)
            built = builder.counts["events"]
            builder.status(episode, f"thread:{roots[0]['id']}:{action}:{at}", at, _person(_object(payload.get("sender"))),
                           state, None)
            if builder.counts["events"] == built:
                builder.already += 1
        return
    if "review" in payload:
        review = payload["review"]
        if not _numbered(review):
            builder.counts["skipped"] += 1
            return
        at = _at(review.get("submitted_at"), "review", review)
        episode = builder.episode(f"github:review:{review['id']}", pr, head, review.get("commit_id"), at)
        built, already = builder.counts["events"], builder.already
        body = None
        if review.get("body"):
            body = builder.comment({**review, "id": f"review-{review['id']}", "created_at": at, "updated_at": at},
                                   pr, head, thread_key="github:review-body")
        state = "dismissed" if action == "dismissed" else str(review.get("state", "commented")).lower().replace("_", "-")
        if state not in ("approved", "changes-requested", "commented", "dismissed"):
            state = "commented"
        builder.status(episode, f"review:{review['id']}:{state}", at, _person(review), state,
                       body["id"] if body else None)
        if builder.counts["events"] > built:  # a review stored already is not counted again
            builder.counts["reviews"] += 1
        # the review is one item, its body's version none of its own
        builder.already = already + (builder.counts["events"] == built)
        return
    comment = payload.get("comment")
    if not _numbered(comment):
        builder.counts["skipped"] += 1
        return
    if "issue" in payload:
        issue = _object(payload["issue"])
        pr = _pull(issue.get("number")) if issue.get("pull_request") is not None or pr is None else pr
        if action == "deleted":
            builder.delete(comment, pr, head, thread_key="github:issue-comment")
        else:
            builder.comment(comment, pr, head, _previous_body(payload), thread_key="github:issue-comment")
        return
    if action == "deleted":
        builder.delete(comment, pr, head)
    else:
        builder.comment(comment, pr, head, _previous_body(payload))


def _from_rest(builder: _Builder, snapshot: dict[str, Any], remove_deleted: bool, complete: bool) -> None:
    pr = snapshot.get("pullRequest")
    head = _object(snapshot.get("head")) or None
    responses = snapshot.get("responses", [])
    for collection in COLLECTIONS:
        for response in sorted((r for r in responses if r.get("collection") == collection), key=lambda r: r["page"]):
            for item in response["body"]:
                if not _numbered(item):
                    builder.counts["skipped"] += 1
                    continue
                if collection == "pull-comments":
                    builder.comment(item, pr, head)
                elif collection == "issue-comments":
                    builder.comment(item, pr, head, thread_key="github:issue-comment")
                else:
                    _from_webhook(builder, {"action": "submitted", "review": item,
                                            "pull_request": {"number": pr, "head": head}})
    present = _listed(responses) if remove_deleted and complete else None
    taken = snapshot_time(snapshot)
    if present is not None:
        for source_id, version in list(builder.versions.items()):
            episode = builder.known.episodes.get(version["episode"]) or builder.records.get(version["episode"])
            # a comment whose newest version (stored, or of this run) is not older than the
            # snapshot may have been written after it was taken: its absence says nothing
            if source_id.startswith("github:comment:") and source_id[15:].isdigit() and source_id not in present \
                    and episode and episode["pin"]["pullRequest"] == pr and (taken is None or version["at"] < taken):
                builder.delete({"id": int(source_id[15:]), "updated_at": version["at"], "user": {}}, delivered=False)


def removes_deleted(known: KnownReviews, snapshot: dict[str, Any]) -> bool:
    """Whether importing a REST snapshot with ``remove_deleted`` would remove text: a comment of
    its pull request stored with its text, older than the snapshot and not listed in it (the
    deletion pass of ``_from_rest``). A snapshot already stored is imported again when it would:
    the same pages fetched later show a comment written and deleted between the fetches deleted."""
    responses = snapshot.get("responses", [])
    if check_pages(responses)[1]:
        return False  # an incomplete snapshot shows nothing deleted
    present = _listed(responses)
    if present is None:
        return False
    pr, taken = snapshot.get("pullRequest"), snapshot_time(snapshot)
    for source_id, version in known.versions.items():
        if source_id.startswith("github:comment:") and source_id[15:].isdigit() and source_id not in present \
                and source_id not in known.redacted and (taken is None or version["at"] < taken):
            episode = known.episodes.get(version["episode"])
            if episode and episode["pin"]["pullRequest"] == pr:
                return True
    return False


def _listed(responses: list[dict[str, Any]]) -> set[str] | None:
    """The source ids of the comments a snapshot lists: review comments and the conversation's
    (issue) comments alike, which share ``github:comment:<id>`` and the pull request's pin, so
    a comment listed in either collection is not deleted at its source. None when an item
    listed has no id of GitHub's (a number): it could be any comment, so none shows deleted."""
    items = [c for r in responses if r.get("collection") in ("pull-comments", "issue-comments") for c in r["body"]]
    if not all(isinstance(c, dict) and _github_id(c.get("id")) for c in items):
        return None
    return {f"github:comment:{c['id']}" for c in items}


def import_reviews(ctx: Context, path: Path, by: str, *, remove_deleted: bool = False) -> ImportReport:
    """Import a snapshot as one atomic append (episodes, events, the import record, audit),
    holding the snapshots' lock: an import run at the same time builds on this one's records
    (and counts none of them again) instead of on the store as it was before either. PATH holds
    one import (``load_snapshot``); ``import_all`` imports several."""
    with exclusive(ctx.workspace.state):
        source, data, canonical = load_snapshot(path)
        return import_loaded(ctx, source, data, canonical, by, remove_deleted=remove_deleted)


def import_all(ctx: Context, path: Path, by: str, *, remove_deleted: bool = False) -> list[ImportReport]:
    """Import what PATH holds (``load_material``: each REST snapshot an import with its own
    record of the pages it holds, the webhook deliveries one more) in one atomic append, holding
    the snapshots' lock: every import is built, each on the ones before it, before anything is
    stored, so a snapshot that cannot be imported stores none of them."""
    with exclusive(ctx.workspace.state):
        material = load_material(path)
        if len(material) == 1:
            return [import_loaded(ctx, *material[0], by, remove_deleted=remove_deleted)]
        known = KnownReviews.load(ctx)
        built = []
        for n, (source, data, canonical) in enumerate(material):
            try:
                one = build_import(ctx, source, data, canonical, by, remove_deleted=remove_deleted, known=known)
            except (InvalidInput, Refused) as exc:
                what = f"snapshot of pull request {data.get('pullRequest')}" if source == "github-rest" else "deliveries"
                raise (Refused if isinstance(exc, Refused) else InvalidInput)(
                    f"{path}: the {what} ({n + 1} of {len(material)}): {exc}; nothing imported") from None
            known.stored(one.builder.records.values())  # the next builds on it, as if stored
            built.append(one)
        return store_imports(built)


def import_loaded(ctx: Context, source: str, data: Any, canonical: bytes, by: str, *,
                  remove_deleted: bool = False, known: KnownReviews | None = None) -> ImportReport:
    """``import_reviews`` for a snapshot already read (``load_snapshot``'s three values).
    ``known``: what the store holds, as of the run's earlier imports (see ``KnownReviews``);
    read from the store when not given. A stored import is told to it."""
    return store_import(build_import(ctx, source, data, canonical, by, remove_deleted=remove_deleted, known=known))


@dataclass
class BuiltImport:
    """An import's records, built and not stored yet (``store_import`` stores them)."""

    ctx: Context
    known: KnownReviews
    builder: _Builder
    record: dict[str, Any]
    remove_deleted: bool


def build_import(ctx: Context, source: str, data: Any, canonical: bytes, by: str, *,
                 remove_deleted: bool = False, known: KnownReviews | None = None) -> BuiltImport:
    """What ``import_loaded`` would store, or the error it would stop at, with nothing stored:
    a folder's pass tries its deliveries this way to tell which file a failure comes from."""
    repository = _repository(source, data)
    check_repository(ctx, repository, "snapshot is for", material_host(source, data))
    if known is None:
        known = KnownReviews.load(ctx)
    builder = _Builder(ctx, known, repository)
    if source == "github-rest":
        assert isinstance(data, dict)
        pages, missing = check_pages(data.get("responses", []))
        _from_rest(builder, data, remove_deleted, not missing)
        pr = data.get("pullRequest") if _number(data.get("pullRequest")) else None
    else:
        assert isinstance(data, list)
        data = in_time_order(data)
        for payload in data:
            _from_webhook(builder, payload)
        pages = [{"collection": "webhook", "page": n + 1, "count": 1, "last": n + 1 == len(data)} for n in range(len(data))]
        missing = [{"collection": "pull-comments", "from": 1, "to": None}]  # deliveries never prove a window
        pr = _only_pull_request(data)
    builder.drop_empty_episodes()
    record = seal({
        "schema": "gitstore.import/v1", "scope": ctx.scope, "source": source, "repository": repository,
        "pullRequest": pr, "snapshot": snapshot_digest(source, data, canonical), "pages": pages[:10000],
        "complete": not missing, "missing": missing, "counts": builder.counts,
        "removeDeleted": remove_deleted, "by": by, "at": now(),
    })
    return BuiltImport(ctx, known, builder, record, remove_deleted)


def store_import(built: BuiltImport) -> ImportReport:
    """Store a built import as one atomic append (episodes, events, the import record, audit),
    then remove the text of the comments it found deleted when asked to."""
    return store_imports([built])[0]


def store_imports(built: list[BuiltImport]) -> list[ImportReport]:
    """Store built imports (of one context, each built on the ones before it) as one atomic
    append, then remove the text of the comments they found deleted when asked to."""
    ctx, by = built[0].ctx, built[0].record["by"]
    records = {rid: r for one in built for rid, r in one.builder.records.items()}
    if len(records) + len(built) > MAX_RECORDS:
        raise InvalidInput(f"{len(built)} import(s) would write {len(records) + len(built)} records, and one append "
                           f"stores at most {MAX_RECORDS}; nothing imported: import fewer snapshots at a time")
    ctx.write([*records.values(), *(one.record for one in built)], "import", by, [one.record["digest"] for one in built])
    reports = []
    for one in built:
        builder, record = one.builder, one.record
        one.known.stored(builder.records.values())
        report = ImportReport(record, builder.counts["episodes"], builder.counts["events"], cut=builder.cut,
                              already=builder.already)
        if one.remove_deleted and builder.deleted:
            from gitstore.ops.redact import redact_each

            redact_each(ctx, builder.deleted, by, "deleted at its source")
            one.known.redacted.update(builder.deleted)  # the run's next imports find the text gone
            report.removed.extend(builder.deleted)
        reports.append(report)
    return reports


def check_repository(ctx: Context, repository: str, what: str, host: str | None = None) -> None:
    """Refuse review material of another repository than this checkout's scope, or a scope its
    default branch declares it had before a rename or move (``scope.formerly``: the repository
    under its old name), saying where the scope comes from (origin) and how it comes to name the
    material's repository. The material's repository is ``host``/``repository`` (``host``: the
    GitHub it came from, ``material_host``), one scope with this checkout's (or a former one)
    when ``same_scope`` says so, owner/name compared without regard to case as GitHub names them
    on every host; the same owner/name on another host is another repository. Material naming no
    host (no URL in it) matches a scope ending in its owner/name, on any host. The declaration is
    read only when the current scope does not match."""
    from gitstore.scope import formerly, origin_of, scope_kept_gone

    if _names(ctx.scope, repository, host) or any(_names(old, repository, host)
                                                  for old in formerly(ctx.workspace.scope)):
        return

    url, end = origin_of(ctx.workspace.repo)
    github = f"https://{host or 'github.com'}/{repository}.git"
    gone = scope_kept_gone(ctx.workspace.repo)[2] if url is not None else None
    if url is None:
        why = "it has no origin remote: `git remote add origin <its GitHub address>` names it"
    elif gone is not None:
        why = f"{gone}; until then the scope is the one this clone's memory was set up under"
    elif end is not None:
        why = (f"origin is {url}, a repository on this machine: a clone of one takes the scope its origin names, "
               f"and {end} has no origin, so the scope is local; review imports need the scope to name the "
               f"material's repository ({host or 'github.com'}/{repository}): give {end} that origin, for every "
               f"clone of it, with `git -C {shlex.quote(str(end))} remote add origin {github}`")
    elif ctx.scope.startswith("local/"):
        why = f"origin is {url}, which names no GitHub repository"
    elif host is not None:
        elsewhere = (": the same owner/name on another host is another repository"
                     if _names(ctx.scope, repository, None) else "")
        why = f"from origin {url}; import the reviews of {repository} in a clone of {host}/{repository}{elsewhere}"
    else:
        hosted = "" if ctx.scope.startswith("github.com/") else \
            f", or of a self-hosted origin whose scope is HOST/{repository} (the scope must end in owner/name)"
        why = f"from origin {url}; import the reviews of {repository} in a clone of github.com/{repository}{hosted}"
    on = "" if host is None else f" on {host}"
    raise Refused(f"{what} {repository}{on}, this repository's scope is {ctx.scope} ({why}){_rescoped(ctx.scope)}")


def _names(scope: str, repository: str, host: str | None) -> bool:
    """Whether ``scope`` is the repository ``repository`` (owner/name) on ``host`` (None: on any)."""
    from gitstore.scope import scope_key

    if host is None:
        return scope.lower().endswith("/" + repository.lower())
    ours, _, path = scope.partition("/")
    return scope_key(f"{ours}/{path.lower()}") == scope_key(f"{host}/{repository.lower()}")


def material_host(source: str, data: Any) -> str | None:
    """The host of the GitHub review material comes from, read from the addresses its objects
    carry (``web_host``): a webhook delivery's repository, a REST snapshot's comments and
    reviews; None when it carries none (a snapshot written by hand). Refused, naming them, when
    they name several hosts: no one repository is the material's."""
    if source == "github-rest":
        objects = [item for response in data.get("responses", []) if isinstance(response, dict)
                   and isinstance(response.get("body"), list) for item in response["body"]]
    else:
        objects = [payload.get("repository") for payload in data]
    hosts = sorted({found for obj in objects if isinstance(obj, dict) for name in ("html_url", "url")
                    if (found := web_host(obj.get(name))) is not None})
    if len(hosts) > 1:
        raise Refused(f"the material's addresses name {len(hosts)} hosts ({', '.join(hosts[:5])}); the reviews "
                      "of one repository are on one host: import each host's material apart")
    return hosts[0] if hosts else None


def web_host(url: Any) -> str | None:
    """The host of the GitHub an address of its names, in lower case without a port: a web
    address's own (``html_url``: ``https://github.com/acme/widgets/pull/2``), an API
    address's web host (``url``: ``https://api.github.com/repos/...`` is github.com's,
    ``https://HOST/api/v3/repos/...`` GitHub Enterprise Server's HOST,
    ``https://api.TENANT.ghe.com/repos/...`` TENANT.ghe.com's); None for anything else."""
    if not isinstance(url, str) or len(url) > 2000:
        return None
    try:
        parts = urllib.parse.urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    host = host.rstrip(".")
    if API_HOST.fullmatch(host) and parts.path.startswith("/repos/"):
        return host[4:]
    return host or None


def _rescoped(scope: str) -> str:
    """What naming (or changing) origin costs a clone with a local ``scope``: the scope comes from
    origin's URL and records keep the scope they were stored under, so what was captured so far is
    no longer read once origin names another repository."""
    if not scope.startswith("local/"):
        return ""
    return (f"; that origin changes this repository's scope: what this clone stored under {scope} (sessions, "
            "grants, decisions) stays but is no longer read, and `gitstore init` then makes the new scope its "
            "own; a session can be captured again under it with `gitstore import transcript FILE`, grants and "
            "decisions made again")


def _only_pull_request(payloads: list[Any]) -> int | None:
    """The pull request an import of webhook deliveries is about: the one they all name, or
    None when they name none or several. Its record says which pull request to read whole; one
    naming the first of several would be closed by a complete import of that one alone, and a
    dream would call its window complete though the others were never read whole. One naming
    none stands while any pull request the window holds evidence of lacks a complete import."""
    named = {n for n in map(_pull_request_of, payloads) if n is not None}
    return named.pop() if len(named) == 1 else None


def _pull_request_of(payload: Any) -> int | None:
    """The pull request a delivery's episodes are pinned to: its ``pull_request``, or for an
    ``issue_comment`` delivery its issue's number, as ``_from_webhook`` pins them."""
    for key in ("pull_request", "issue"):
        number = _pull(_object(payload.get(key)).get("number")) if isinstance(payload, dict) else None
        if number is not None:
            return number
    return None


def _repository(source: str, data: Any) -> str:
    if source == "github-rest":
        name = data.get("repository")
    else:
        named = sorted({p["repository"].get("full_name") for p in data if isinstance(p.get("repository"), dict)}, key=str)
        if not named:
            raise InvalidInput("the deliveries name no repository (no repository object with a full_name)")
        # GitHub names repositories without regard to case: deliveries from before and after
        # an owner respelled one name it in both cases
        names = list({str(n).lower(): n for n in reversed(named)}.values())[::-1]
        if len(names) != 1:
            raise Refused(f"deliveries name {len(names)} repositories ({', '.join(map(str, names[:5]))}); "
                          "import one repository at a time")
        name = names[0]
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9._-]+/[A-Za-z0-9._-]+", name):
        raise InvalidInput(f"snapshot names no owner/name repository ({name!r})")
    return name


