"""Active learnings for one purpose against listing the same records.

The issue: "computing the active learnings for one purpose over 10,000 learnings and 100,000
events costs at most 3x listing the same records".

Input, built once per run (deterministic for a seed: the same records and digests every time)
in a temporary git repository with the default ``git`` provider:

- one grant (``review``, ``instruction``, ``analytics`` for review threads from 2025-01-01) and,
  at the end, a withdrawal of ``analytics`` from it (a purpose the target does not ask about);
- 100,000 events (``--events``) over review-thread episodes of 3 to 9 events: comments and
  replies by a pool of reviewers, edits of earlier comments, labels judging comments, status
  changes and a few retractions (deleted comments), pinned to pull requests with their branch
  and commit; the first weeks of threads predate the grant;
- 10,000 learnings (``--learnings``), each citing 1 to 3 evidence references (a comment, a
  comment and its edit, or a label; refs rebuilt exactly as storage says), 15% with
  counterevidence. Most are accepted (some revised first, some edited on accept, a few taken by
  the auto-safe gate), some stay proposed, are rejected or retired; some cite a deleted comment
  or evidence written before the grant, a few are expired or not yet valid; 3% are
  replacements (``replaces`` then ``supersedes``), a few added later by an accepted -> accepted
  step, a few retired afterwards (what they replaced stays replaced), and a few lose a race for
  a learning already claimed (written in an append of their own, made having seen the claim they
  lose to, as a second accept through the operations would be).

Records are sealed with ``gitstore.seal`` and written with ``Store.append`` in large batches
(going through ``ops.propose``/``accept`` one by one would reload the view every step), with
one audit entry per learning step, as the operations write. Every history is checked with
``gitstore.rules.lifecycle.build`` after writing: all must be intact.

The answer is checked against an independent model kept while building (which learnings must
be in force: usable state, not replaced or beaten, valid now, every cited event covered by the
grant and not deleted); the run fails if the ids differ.

Timing, in this process, interleaved, ``--repeat`` runs of each (a fresh ``Store`` every run,
the garbage collector left on as in the CLI, medians reported):

- baseline "listing the same records": ``list(store.items())``, what ``gitstore records list``
  does (every record re-checked, in store order);
- target: what ``gitstore learnings --active`` computes: ``in_force_view(store)`` (the
  decisions, and only the episodes and events the learnings that may be in force cite) and
  ``evaluate`` for ``instruction``, the reads included;
- beside them (no goal): ``active(View.load(store), "instruction")``, the rules over a view
  of the whole store with every payload, as a dream or an export reads it.

and, in fresh processes, ``gitstore records list --json`` against ``gitstore learnings
--active --purpose instruction --json`` (output to /dev/null), each process's own CPU time
(``os.wait4``) and peak resident set (GNU time) recorded. Goals: listing <= 30 us of CPU per
record, active learnings <= 3x the listing's CPU, peak memory < 300 MB. Those reads find
the store's memory of checked bytes filled by the appends that built it, and the kind folder
maps the read before kept; a listing after dropping both (every record checked again, every
folder walked) is reported beside them. A breakdown shows where the
target spends its time (reading with payloads, indexing, histories, evidence).

Measured (2026-12-07, 2 shared cores, the store of 159,000 records in 177 packs, kept with
``--keep``): `learnings --active` peaked at 276 MB before headers were read by the store, 341-350
MB once they were (every pack mapped for them, their pages never given back, a 16 MiB table of
which pack holds which ids) and 289 MB (297 MB in a bench run) once bounded reads took whole
packed objects from those packs, which count a touch as a page fault maps it and keep that map
sorted. Listing: 27.6 us of CPU per record in one run, 35.5-35.6 us in two others beside other
work; the same binary, alternated with the code before the headers change, measured the same.
Then (2026-12-07, the same store, nine runs alternated with the code before, GNU time): 268-270
MB where that code peaked at 297 MB, with the same CPU (12.9 s on average each, beside other
work), once the second read of the cited events loaded no kind map for its last few records,
held records were interned as held, the evidence graph was let go of and glibc's free pages given
back before that read, and the rows were printed 256 at a time.

Exit code 0 whatever the ratio (benchmark machines are noisy), 1 when the answer is wrong.
``python -m bench rules --quick`` is a smoke test with 1,000 learnings and 10,000 events.
"""

from __future__ import annotations

import argparse
import copy
import gc
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import gitstore
from gitstore.records.identity import AUTO_SAFE
from gitstore.records.ids import episode_id, event_id
from gitstore.records.vocabulary import CATEGORIES
from gitstore.context import Context
from gitstore.providers._base import Namespace
from gitstore.rules import active as active_rules
from gitstore.rules.consent import decide
from gitstore.rules.evidence import refs_serve
from gitstore.rules.lifecycle import histories
from gitstore.rules.view import View
from gitstore.ops.setup import init
from gitstore.queries._views import in_force_view

NAME = "rules"
GOAL = 3.0
LIST_GOAL_US = 30.0  # CPU per record of `gitstore records list` in a fresh process
PEAK_GOAL_MB = 300.0  # peak resident set of `gitstore learnings --active`, 10^6 bytes
PURPOSE = "instruction"
ORIGIN = "https://github.com/acme/widgets.git"
EPOCH = datetime(2024, 12, 1, tzinfo=UTC)
GRANT_FROM = "2025-01-01T00:00:00.000000Z"
SPAN_DAYS = 520  # threads from 2024-12-01 to early May 2026
DECIDED_AT = datetime(2026, 5, 20, tzinfo=UTC)  # learnings are proposed and decided after that
GRANTOR = "github:9"
LABELER = "bot:labeler"
THEMES = ("retry-jitter", "naming", "error-handling", "test-fixtures", "logging", "timeouts",
          "migrations", "docs", "locking", "config")
PATHS = ("src/retry.py", "src/api/handlers.py", "src/db/migrations.py", "src/cache.py",
         "tests/test_api.py", "src/config.py", "src/queue/worker.py", "docs/deploy.md")
WORDS = ("retry loop backoff jitter review thread comment handler parser schema record digest "
         "timeout request cache lock queue worker config module function return error logging "
         "metric path file uses must should never always before after when because test").split()
BATCH = 20_000  # records per append


def _time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _origins(refs: list[dict[str, Any]]) -> int:
    """Independent origins, as ``ops.learning`` counts them: distinct author and pull request."""
    return len({(r["author"], r["pin"]["pullRequest"]) for r in refs})


def _words(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


# -- the input --------------------------------------------------------------------------------

@dataclass
class Unit:
    """Something a learning can cite: events by one author in one episode, and whether they
    may serve the purpose according to the builder's own model of the rules."""

    episode: str
    events: list[dict[str, Any]]
    serves: bool
    why: str  # "ok", "deleted", "before-grant"

    def ref(self, pin: dict[str, Any]) -> dict[str, Any]:
        return {"episode": self.episode, "events": [e["id"] for e in self.events],
                "at": min(e["at"] for e in self.events), "author": self.events[0]["author"],
                "pin": pin}


@dataclass
class Built:
    root: Path
    scope: str
    counts: Counter[str] = field(default_factory=Counter)
    plans: Counter[str] = field(default_factory=Counter)
    expected: set[str] = field(default_factory=set)
    records: int = 0
    digest: str = ""
    built_s: float = 0.0
    written_s: float = 0.0


class Builder:
    """Writes the benchmark's records directly (sealed, appended in big batches)."""

    def __init__(self, root: Path, learnings: int, events: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.ctx = ready_repo(root)
        self.scope = self.ctx.scope
        self.n_learnings = learnings
        self.n_events = events
        self.pending: list[dict[str, Any]] = []
        self.namespace: Namespace | None = None  # where the next append goes (None: where the store places it)
        self.hasher = hashlib.sha256()
        self.built = Built(root, self.scope)
        self.pins: dict[int, dict[str, Any]] = {}
        self.good: list[tuple[Unit, dict[str, Any]]] = []
        self.bad: dict[str, list[tuple[Unit, dict[str, Any]]]] = {"deleted": [], "before-grant": []}
        self.people = [f"github:{n}" for n in self.rng.sample(range(1000, 9_999_999), 150)]
        self.deciders = self.people[:12]
        self.comment_ids = iter(range(2_000_000, 90_000_000, 7))
        self.clock = DECIDED_AT

    # writing ---------------------------------------------------------------------------------

    def add(self, record: dict[str, Any]) -> dict[str, Any]:
        gitstore.seal(record)
        if len(self.pending) >= BATCH and record["schema"] != "gitstore.audit/v1":
            self.flush()  # an audit entry goes in the append of the records it records
        self.pending.append(record)
        self.built.counts[record["schema"].split(".")[1].split("/")[0]] += 1
        return record

    def flush(self) -> None:
        if not self.pending:
            return
        started = time.perf_counter()
        self.ctx.store.append(self.pending, namespace=self.namespace, decided=True)  # as the operations write decisions
        self.built.written_s += time.perf_counter() - started
        for record in self.pending:
            self.hasher.update(record["digest"].encode())
        self.built.records += len(self.pending)
        self.pending = []

    def tick(self) -> str:
        self.clock += timedelta(seconds=self.rng.randint(5, 600))
        return _time(self.clock)

    def audit(self, action: str, by: str, subjects: list[str], records: list[dict[str, Any]],
              reason: str | None = None) -> None:
        self.add(self.ctx.audit(action, by, subjects, records, reason, at=records[-1]["at"]))

    # consent ---------------------------------------------------------------------------------

    def grant(self) -> dict[str, Any]:
        record = self.add({
            "schema": "gitstore.grant/v1", "scope": self.scope,
            "purposes": ["review", "instruction", "analytics"], "sources": ["review-thread"],
            "from": GRANT_FROM, "until": None, "by": GRANTOR, "at": "2025-01-02T09:00:00.000000Z",
            "note": "Review threads may teach agents.",
        })
        self.audit("grant", GRANTOR, [record["digest"]], [record], record["note"])
        return record

    def withdraw(self, grant: dict[str, Any]) -> None:
        record = self.add({
            "schema": "gitstore.withdrawal/v1", "scope": self.scope, "grant": grant["digest"],
            "purposes": ["analytics"], "by": GRANTOR, "at": self.tick(),
            "reason": "Analytics paused while the team revisits consent.", "exports": [],
        })
        self.audit("withdraw", GRANTOR, [grant["digest"]], [record], record["reason"])

    # review threads --------------------------------------------------------------------------

    def pin(self, pr: int) -> dict[str, Any]:
        found = self.pins.get(pr)
        if found is None:
            found = self.pins[pr] = {
                "repository": self.scope, "pullRequest": pr,
                "branch": f"feature/{pr}-{self.rng.choice(THEMES)}",
                "commit": f"{self.rng.getrandbits(160):040x}",
            }
        return found

    def threads(self) -> None:
        rng = self.rng
        made = 0
        # Threads spread evenly over the span, in time order, a few hours each.
        expected_threads = max(1, self.n_events // 6)
        step = timedelta(days=SPAN_DAYS) / expected_threads
        start = EPOCH
        while made < self.n_events:
            size = min(rng.randint(3, 9), self.n_events - made)
            made += self.thread(start, size)
            start += step

    def thread(self, start: datetime, size: int) -> int:
        rng = self.rng
        pr = rng.randint(1, max(10, self.n_events // 60))
        pin = self.pin(pr)
        root = next(self.comment_ids)
        source = {"kind": "review-thread", "origin": "github", "ref": f"github:comment:{root}"}
        ep = episode_id(self.scope, source)
        self.add({
            "schema": "gitstore.episode/v1", "scope": self.scope, "id": ep, "source": source,
            "pin": pin, "title": _words(rng, 3, 8).capitalize(), "startedAt": _time(start),
            "capture": "complete", "mode": "review", "grants": [],
        })
        at = start
        seq = 0
        comments: list[dict[str, Any]] = []  # {"versions": [...], "deleted": bool, "labels": [...]}
        participants = rng.sample(self.people, rng.randint(1, 4))

        def event(type_: str, key: str, author: str, parent: str | None, payload: dict[str, Any]) -> dict[str, Any]:
            nonlocal seq, at
            at += timedelta(seconds=rng.randint(30, 5400))
            record = self.add({
                "schema": "gitstore.event/v1", "scope": self.scope, "id": event_id(ep, key),
                "episode": ep, "type": type_, "seq": seq, "at": _time(at), "author": author,
                "parentEventId": parent, "payload": payload,
            })
            seq += 1
            return record

        def comment(author: str) -> None:
            cid = next(self.comment_ids) if comments else root
            record = event("comment", f"comment:{cid}:{seq}", author, None, {
                "text": _words(rng, 6, 60), "sourceId": f"github:comment:{cid}",
                "path": rng.choice(PATHS), "line": rng.randint(1, 900)})
            comments.append({"id": cid, "versions": [record], "deleted": False, "labels": []})

        comment(participants[0])
        for _ in range(size - 1):
            roll = rng.random()
            live = [c for c in comments if not c["deleted"]]
            if roll < 0.60 or not live:
                comment(rng.choice(participants))
            elif roll < 0.72:
                c = rng.choice(live)
                last = c["versions"][-1]
                c["versions"].append(event("edit", f"comment:{c['id']}:{seq}", last["author"], last["id"], {
                    "text": _words(rng, 6, 60), "sourceId": f"github:comment:{c['id']}"}))
            elif roll < 0.87:
                c = rng.choice(live)
                judged = c["versions"][-1]
                c["labels"].append(event("label", f"label:{judged['id']}:{seq}", LABELER, judged["id"], {
                    "label": {"theme": rng.choice(THEMES), "polarity": rng.choice(("problem", "praise")),
                              "category": rng.choice(CATEGORIES)}}))
            elif roll < 0.97:
                event("status", f"status:{seq}", rng.choice(participants), None,
                      {"state": rng.choice(("resolved", "outdated", "open"))})
            else:
                c = rng.choice(live)
                c["deleted"] = True
                first = c["versions"][0]
                event("retraction", f"retract:{first['id']}", first["author"], first["id"],
                      {"text": "", "sourceId": f"github:comment:{c['id']}"})

        for c in comments:
            versions = c["versions"]
            units = [Unit(ep, [versions[0]], True, "ok")]
            if len(versions) > 1:
                units.append(Unit(ep, versions[:2], True, "ok"))
                units.append(Unit(ep, [versions[-1]], True, "ok"))
            units.extend(Unit(ep, [label], True, "ok") for label in c["labels"])
            for unit in units:
                # The model: a deleted comment takes every version and label with it; a label
                # counts from its comment's time; the grant covers what was written from its start.
                written = [self._judged_at(e, versions) for e in unit.events]
                if c["deleted"]:
                    unit.serves, unit.why = False, "deleted"
                elif min(written) < GRANT_FROM:
                    unit.serves, unit.why = False, "before-grant"
                (self.good if unit.serves else self.bad[unit.why]).append((unit, pin))
        return seq

    @staticmethod
    def _judged_at(event: dict[str, Any], versions: list[dict[str, Any]]) -> str:
        if event["type"] == "label":
            return str(next(v["at"] for v in versions if v["id"] == event["parentEventId"]))
        return str(event["at"])

    # learnings -------------------------------------------------------------------------------

    def refs(self, count: int, flaw: str | None = None) -> list[dict[str, Any]]:
        picked: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}
        while len(picked) < count:
            unit, pin = self.rng.choice(self.good)
            ref = unit.ref(pin)
            picked[(ref["episode"], tuple(ref["events"]))] = ref
        refs = list(picked.values())
        if flaw is not None:
            unit, pin = self.rng.choice(self.bad[flaw])
            refs[self.rng.randrange(len(refs))] = unit.ref(pin)
        return refs

    def proposal(self, index: int, *, evidence: list[dict[str, Any]], counter: list[dict[str, Any]],
                 replaces: Sequence[str] = (), valid_from: str | None = None,
                 valid_until: str | None = None, category: str | None = None) -> dict[str, Any]:
        rng = self.rng
        record: dict[str, Any] = {
            "schema": "gitstore.learning/v1", "scope": self.scope, "version": 1, "previous": None,
            "state": "proposed", "category": category or rng.choice(CATEGORIES),
            "memory": rng.choice(("semantic", "semantic", "procedural")), "audience": "project",
            "audienceRationale": "Evidence comes from this repository's own review threads.",
            "content": {"title": f"{_words(rng, 2, 6).capitalize()} #{index}",
                        "text": f"{_words(rng, 10, 80).capitalize()}. (learning {index})"},
            "targets": sorted(set(rng.sample(PATHS, rng.randint(0, 2)))),
            "replaces": list(replaces), "evidence": evidence, "counterevidence": counter,
            "validFrom": valid_from, "validUntil": valid_until,
            "support": _origins(evidence), "dissent": _origins(counter),
            "confidence": rng.choice(("low", "medium", "medium", "high")),
            "rationale": f"Raised in {len(evidence)} review thread(s).",
            "proposer": {"kind": "consolidator", "id": "recurrence"}, "at": self.tick(),
        }
        record["id"] = "lrn_" + gitstore.content_digest(record)[7:39]
        self.add(record)
        self.audit("propose", GRANTOR, [record["id"]], [record])
        return record

    def step(self, current: dict[str, Any], state: str, by: str | None = None, *,
             reason: str | None = None, edit: str | None = None,
             supersedes: Sequence[str] = (), action: str, **changes: Any) -> dict[str, Any]:
        """The next version, as ``ops.learning`` builds it."""
        record = copy.deepcopy(current)
        for key in ("digest", "decision", "supersedes"):
            record.pop(key, None)
        record.update(version=current["version"] + 1, previous=current["digest"], at=self.tick(),
                      state=state, **changes)
        if edit is not None:
            record["content"] = {**current["content"], "text": edit}
        if by is not None:
            record["decision"] = {"by": by, "reviewDigest": current["reviewDigest"],
                                  "edited": record["content"] != current["content"], "reason": reason}
        if supersedes:
            record["supersedes"] = list(supersedes)
        self.add(record)
        self.audit(action, by or GRANTOR, [record["id"], *supersedes], [record], reason)
        return record

    def learnings(self) -> None:
        rng = self.rng
        n = self.n_learnings
        replacements = max(3, n * 3 // 100)
        accepted_plain: list[str] = []  # accepted, in force, free to be replaced
        for index in range(n - replacements):
            roll = rng.random()
            plan = ("accepted" if roll < 0.80 else "auto" if roll < 0.82 else "proposed" if roll < 0.89
                    else "rejected" if roll < 0.94 else "retired")
            flaw = None
            valid_from = valid_until = None
            if plan in ("accepted", "auto"):
                sub = rng.random()
                if sub < 0.03:
                    flaw = "deleted"
                elif sub < 0.045:
                    flaw = "before-grant"
                elif sub < 0.052:
                    valid_until = "2025-09-30T00:00:00.000000Z"
                elif sub < 0.055:
                    valid_from = "2099-01-01T00:00:00.000000Z"
            # A flaw sits in the evidence, or (30%) in the counterevidence the reviewer saw.
            flaw_in_counter = flaw is not None and rng.random() < 0.3
            evidence = self.refs(rng.randint(1, 3), None if flaw_in_counter else flaw)
            counter: list[dict[str, Any]] = []
            if flaw_in_counter:
                counter = self.refs(1, flaw)
            elif rng.random() < 0.15:
                counter = self.refs(1)
            if plan == "auto":  # the gate steps only on a learning kept on this machine, as it writes them
                self.flush()
                self.namespace = "local"
            record = self.proposal(index, evidence=evidence, counter=counter, valid_from=valid_from,
                                   valid_until=valid_until,
                                   category="convention" if plan == "auto" else None)
            if plan != "auto" and rng.random() < 0.10:  # new support: a revised proposal
                record = self.step(record, "proposed", action="propose", confidence="high",
                                   rationale="Raised again in a later review thread.")
            by = rng.choice(self.deciders)
            label = plan
            if plan == "accepted":
                edit = f"{record['content']['text']} Edited on review." if rng.random() < 0.10 else None
                record = self.step(record, "accepted", by, edit=edit, action="accept")
                if flaw or valid_from or valid_until:
                    label = f"accepted-{flaw or 'not-valid-now'}"
                else:
                    self.built.expected.add(record["id"])
                    accepted_plain.append(record["id"])
            elif plan == "auto":
                for state in ("auto-accepted", "auto-active"):
                    record = self.step(record, state, AUTO_SAFE, action="auto-accept",
                                       reason="auto-safe: low-risk kind with verified-command evidence")
                if rng.random() < 0.3:
                    record = self.step(record, "accepted", by, action="accept")
                if flaw or valid_from or valid_until:
                    label = f"auto-{flaw or 'not-valid-now'}"
                else:
                    self.built.expected.add(record["id"])
                self.flush()
                self.namespace = None
            elif plan == "rejected":
                self.step(record, "rejected", by, reason="Too specific to one pull request.", action="reject")
            elif plan == "retired":
                record = self.step(record, "accepted", by, action="accept")
                self.step(record, "retired", by, reason="The code it describes is gone.", action="retire")
            self.built.plans[label] += 1

        # Replacements, in store order after what they replace.
        rng.shuffle(accepted_plain)
        claimed: list[str] = []
        for k in range(replacements):
            index = n - replacements + k
            by = rng.choice(self.deciders)
            if k % 40 == 20:  # loses: names a learning an earlier replacement already took
                targets, label = [rng.choice(claimed)], "replacement-lost"
                self.flush()  # in an append of its own, made having seen that claim (as a second accept is)
            else:
                targets = [accepted_plain.pop() for _ in range(rng.randint(1, 2))]
                label = ("replacement-added-later" if k % 20 == 5
                         else "replacement-retired" if k % 40 == 30 else "replacement")
            record = self.proposal(index, evidence=self.refs(rng.randint(1, 3)), counter=[],
                                   replaces=targets)
            if label == "replacement-added-later":
                record = self.step(record, "accepted", by, action="accept")  # accepted without it
            record = self.step(record, "accepted", by, supersedes=targets, action="accept")
            if label == "replacement-retired":  # its claim stays: what it replaced stays replaced
                record = self.step(record, "retired", by, reason="Superseded in turn.", action="retire")
            if label != "replacement-lost":
                claimed.extend(targets)
                self.built.expected.difference_update(targets)
            if label in ("replacement", "replacement-added-later"):
                self.built.expected.add(record["id"])
            self.built.plans[label] += 1

    def build(self) -> Built:
        started = time.perf_counter()
        grant = self.grant()
        self.threads()
        self.flush()
        self.learnings()
        self.withdraw(grant)
        self.flush()
        self.built.digest = self.hasher.hexdigest()
        self.built.built_s = time.perf_counter() - started
        return self.built


def ready_repo(path: Path) -> Context:
    path.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True, env=env)
    subprocess.run(["git", "remote", "add", "origin", ORIGIN], cwd=path, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "root"], cwd=path, check=True, env=env)
    init(path)
    return Context.open(str(path))


# -- checking and timing ----------------------------------------------------------------------

def open_store(root: Path) -> gitstore.Store:
    """A fresh store on the repository, as a new command would open it."""
    return Context.open(str(root)).store


def target(root: Path) -> set[str]:
    """The ids of the learnings in force, as ``gitstore learnings --active`` finds them."""
    view, all_histories = in_force_view(open_store(root))
    statuses = active_rules.evaluate(view, PURPOSE, all_histories=all_histories)
    return {learning for learning, status in statuses.items() if status.usable}


def whole_view(root: Path) -> list[tuple[active_rules.Status, dict[str, Any]]]:
    return active_rules.active(View.load(open_store(root)), PURPOSE)


def baseline(root: Path) -> list[gitstore.Item]:
    return list(open_store(root).items())


def check(built: Built, runs: dict[str, list[tuple[float, float]]] | None = None) -> dict[str, Any]:
    """Every history intact, and the rules' answer equal to the builder's model. With ``runs``,
    what ``whole_view`` and ``target`` compute is timed here, into ``runs["whole"]`` and
    ``runs["active"]``: a run that counts as the first timed one, with no warm-up before it."""
    views: list[View] = []
    statuses: list[tuple[active_rules.Status, dict[str, Any]]] = []
    answers: list[set[str]] = []
    loaded = _timed(lambda: views.append(View.load(open_store(built.root))))
    view = views[0]
    judged = _timed(lambda: statuses.extend(active_rules.active(view, PURPOSE)))  # before any history is read
    found = {status.id for status, _ in statuses}
    all_histories = histories(view.learnings)
    broken = [h.id for h in all_histories.values()
              if not h.valid or h.intact != len(h.chain) or h.ignored]
    narrow = _timed(lambda: answers.append(target(built.root)))  # the command's narrower view answers the same
    answered = answers[0]
    if runs is not None:
        runs["whole"].append((loaded[0] + judged[0], loaded[1] + judged[1]))
        runs["active"].append(narrow)
    states = Counter(h.current["state"] for h in all_histories.values())
    return {
        "records": len(view.items),
        "learnings": len(all_histories),
        "events": len(view.events),
        "episodes": len(view.episodes),
        "broken_histories": broken,
        "states": dict(sorted(states.items())),
        "active": len(found),
        "expected": len(built.expected),
        "missing": sorted(built.expected - found)[:5],
        "unexpected": sorted(found - built.expected)[:5],
        "narrow_view_agrees": answered == found,
        "ok": not broken and found == built.expected and answered == found,
    }


def _timed(fn: Callable[[], Any]) -> tuple[float, float]:
    gc.collect()
    started, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - started, time.process_time() - cpu


def _cli(root: Path, *args: str) -> float:
    return _cli_costs(root, *args)[0]


def _cli_costs(root: Path, *args: str) -> tuple[float, float, float]:
    """A command in a fresh process: wall seconds, its own CPU seconds (user + system) and its
    peak resident set in MB (GNU time's, when there is one: a child forked from this process
    would count this process's pages until it execs)."""
    exe = Path(sys.executable).with_name("gitstore")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "gitstore"]
    timer = shutil.which("time", path="/usr/bin:/bin")
    prefix = [timer, "-f", "maxrss-kb %M"] if timer else []
    started = time.perf_counter()
    with open(os.devnull, "wb") as sink, tempfile.TemporaryFile() as err:
        process = subprocess.Popen([*prefix, *command, *args], cwd=root, stdout=sink, stderr=err, env=_same_code())
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        err.seek(0)
        errors = err.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"gitstore {' '.join(args)}: {errors[-400:]}")
    peaks = [int(line.split()[1]) * 1024 / 1e6 for line in errors.splitlines() if line.startswith("maxrss-kb ")]
    return wall, usage.ru_utime + usage.ru_stime, peaks[-1] if peaks else usage.ru_maxrss * 1024 / 1e6


def _same_code() -> dict[str, str]:
    """The environment of a fresh process that imports the ``gitstore`` this process imported
    (a checkout measured, not whatever the environment's script was installed from)."""
    root = str(Path(gitstore.__file__).resolve().parent.parent)
    paths = [root, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def _forget_checked(root: Path) -> None:
    """Drop what reads remember: the memory of checked bytes (the next read checks every record
    again) and the kind folder maps (it walks every folder again)."""
    for path in (root / ".git" / "gitstore" / "verified").glob("records-*"):
        path.unlink()
    for path in (root / ".git" / "gitstore" / "maps").glob("*.map"):
        path.unlink()


def breakdown(root: Path) -> dict[str, float]:
    """Where the target's time goes, step by step (one run each)."""
    store = open_store(root)
    out: dict[str, float] = {}
    out["read_no_payloads"] = _timed(lambda: list(store.items()))[0]
    items: list[gitstore.Item] = []
    out["read_with_payloads"] = _timed(lambda: items.extend(store.items(payloads=True)))[0]

    def index() -> None:
        view = View(scope=store.scope)
        for item in items:
            view._add(item)
        holder.append(view)

    holder: list[View] = []
    out["index_view"] = _timed(index)[0]
    view = holder[0]
    found: dict[str, Any] = {}
    out["histories"] = _timed(lambda: found.update(histories(view.learnings)))[0]
    out["settle"] = _timed(lambda: active_rules.settle(view, found))[0]
    refs = [h.current["evidence"] + h.current["counterevidence"] for h in found.values() if h.valid]
    out["evidence_all_learnings"] = _timed(lambda: [refs_serve(view, r, PURPOSE) for r in refs])[0]
    cited = [e for r in refs for ref in r for e in ref["events"]]
    out["decide_cited_events"] = _timed(lambda: [decide(view, e, PURPOSE) for e in cited])[0]
    out["evaluate"] = _timed(lambda: active_rules.evaluate(view, PURPOSE))[0]
    out["active"] = _timed(lambda: active_rules.active(view, PURPOSE))[0]
    return out


def measure(learnings: int, events: int, repeat: int, cli_repeat: int, seed: int,
            keep: Path | None, warm: bool = True) -> dict[str, Any]:
    """Build, check and time. Unless ``warm``, the check is not a warm-up but the first timed run
    of the target and of the whole view (a smoke test's figures are not judged)."""
    work = Path(tempfile.mkdtemp(prefix="gitstore-bench-rules-")) if keep is None else keep
    try:
        built = Builder(work / "repo", learnings, events, seed).build()
        answering: list[tuple[float, float]] = []
        whole: list[tuple[float, float]] = []
        # also the warm-up (imports, compiled validators, caches); with --quick, the first timed run
        checked = check(built, None if warm else {"active": answering, "whole": whole})
        results: dict[str, Any] = {
            "learnings": learnings, "events": events, "seed": seed, "repeat": repeat,
            "records": built.records, "kinds": dict(sorted(built.counts.items())),
            "plans": dict(sorted(built.plans.items())), "input_sha256": built.digest,
            "built_s": built.built_s, "written_s": built.written_s, "check": checked,
        }
        listing: list[tuple[float, float]] = []
        for turn in range(repeat):
            listing.append(_timed(lambda: baseline(built.root)))
            if warm or turn:
                answering.append(_timed(lambda: target(built.root)))
                whole.append(_timed(lambda: whole_view(built.root)))
        results["whole_view_s"] = [w for w, _ in whole]
        results["list_s"] = [w for w, _ in listing]
        results["active_s"] = [w for w, _ in answering]
        results["list_cpu_s"] = [c for _, c in listing]
        results["active_cpu_s"] = [c for _, c in answering]
        results["ratio"] = statistics.median(results["active_s"]) / statistics.median(results["list_s"])
        results["ratio_cpu"] = (statistics.median(results["active_cpu_s"])
                                / statistics.median(results["list_cpu_s"]))
        cli_list: list[tuple[float, float, float]] = []
        cli_active: list[tuple[float, float, float]] = []
        cold: list[tuple[float, float, float]] = []
        for _ in range(cli_repeat):
            _forget_checked(built.root)
            cold.append(_cli_costs(built.root, "records", "list", "--json"))
            cli_list.append(_cli_costs(built.root, "records", "list", "--json"))
            cli_active.append(_cli_costs(built.root, "learnings", "--active", "--purpose", PURPOSE, "--json"))
        results["cli_list_s"] = [w for w, _, _ in cli_list]
        results["cli_active_s"] = [w for w, _, _ in cli_active]
        results["cli_list_cpu_s"] = [c for _, c, _ in cli_list]
        results["cli_active_cpu_s"] = [c for _, c, _ in cli_active]
        results["cli_cold_cpu_s"] = [c for _, c, _ in cold]
        results["cli_active_peak_mb"] = [m for _, _, m in cli_active]
        results["cli_list_peak_mb"] = [m for _, _, m in cli_list]
        if cli_repeat:
            results["cli_ratio"] = statistics.median(results["cli_active_s"]) / statistics.median(results["cli_list_s"])
        results["breakdown"] = breakdown(built.root)
        results["goal"] = GOAL
        return results
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def report(r: dict[str, Any]) -> str:
    c = r["check"]
    med = statistics.median
    kinds = " ".join(f"{k}={n}" for k, n in r["kinds"].items())
    plans = " ".join(f"{k}={n}" for k, n in r["plans"].items())
    states = " ".join(f"{k}={n}" for k, n in c["states"].items())
    lines = [
        f"input: {r['records']} records ({kinds}), seed {r['seed']}, sha256 of digests"
        f" {r['input_sha256'][:16]}, built in {r['built_s']:.1f}s ({r['written_s']:.1f}s in Store.append)",
        f"learnings as built: {plans}",
        f"learnings as read: {c['learnings']} histories ({states}),"
        f" {len(c['broken_histories'])} broken; {c['events']} events in {c['episodes']} episodes",
        f"answer: {c['active']} active for {PURPOSE}, {c['expected']} expected: "
        + ("correct" if c["ok"] else f"WRONG (missing {c['missing']}, unexpected {c['unexpected']},"
                                     f" broken {c['broken_histories'][:5]},"
                                     f" learnings --active's view agrees: {c['narrow_view_agrees']})"),
        f"baseline list(store.items()): median {med(r['list_s']):.3f}s"
        f" (runs {', '.join(f'{t:.3f}' for t in r['list_s'])}; cpu median {med(r['list_cpu_s']):.3f}s)",
        f"target in_force_view(store) + evaluate({PURPOSE!r}) (what `learnings --active` computes):"
        f" median {med(r['active_s']):.3f}s"
        f" (runs {', '.join(f'{t:.3f}' for t in r['active_s'])}; cpu median {med(r['active_cpu_s']):.3f}s)",
        f"beside them (no goal): active(View.load(store), {PURPOSE!r}), the whole store's view with every"
        f" payload: median {med(r['whole_view_s']):.3f}s,"
        f" {med(r['whole_view_s']) / med(r['list_s']):.2f}x the listing",
    ]
    if r.get("cli_list_s"):
        lines.append(
            f"fresh processes: `gitstore records list --json` median {med(r['cli_list_s']):.2f}s,"
            f" `gitstore learnings --active --purpose {PURPOSE} --json` median"
            f" {med(r['cli_active_s']):.2f}s: {r['cli_ratio']:.2f}x")
    if r.get("cli_list_s"):
        n = r["records"]
        per = med(r["cli_list_cpu_s"]) / n * 1e6
        cold = med(r["cli_cold_cpu_s"]) / n * 1e6
        cpu_ratio = med(r["cli_active_cpu_s"]) / med(r["cli_list_cpu_s"])
        peak = max(r["cli_active_peak_mb"])
        lines += [
            f"{NAME}: records list --json (a fresh process) over {n} records: cpu {med(r['cli_list_cpu_s']):.2f}s,"
            f" {per:.1f} us per record (goal <= {LIST_GOAL_US:.0f} us): "
            + ("goal met" if per <= LIST_GOAL_US else "GOAL NOT MET")
            + f"; checking every record again and walking every folder (memory of checked bytes and"
            f" kept folder maps dropped) {cold:.1f} us per record",
            f"{NAME}: learnings --active --purpose {PURPOSE} --json (a fresh process) cpu"
            f" {med(r['cli_active_cpu_s']):.2f}s, records list cpu {med(r['cli_list_cpu_s']):.2f}s, ratio"
            f" {cpu_ratio:.2f}x (goal <= {r['goal']:.0f}x): " + ("goal met" if cpu_ratio <= r["goal"] else "GOAL NOT MET"),
            f"{NAME}: learnings --active peak memory over {n} records {peak:.0f} MB (records list"
            f" {max(r['cli_list_peak_mb']):.0f} MB) (goal < {PEAK_GOAL_MB:.0f} MB): "
            + ("goal met" if peak < PEAK_GOAL_MB else "GOAL NOT MET"),
        ]
    b = r["breakdown"]
    lines.append(
        "breakdown (one run each): "
        + ", ".join(f"{k} {v:.3f}s" for k, v in b.items()))
    lines.append(
        f"{NAME}: active {med(r['active_s']):.3f}s, listing {med(r['list_s']):.3f}s,"
        f" ratio {r['ratio']:.2f}x (cpu {r['ratio_cpu']:.2f}x; goal <= {r['goal']:.0f}x): "
        + ("goal met" if r["ratio"] <= r["goal"] else "GOAL NOT MET"))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench rules", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    parser.add_argument("--learnings", type=int, help="learnings (default 10000; quick 1000)")
    parser.add_argument("--events", type=int, help="events (default 100000; quick 10000)")
    parser.add_argument("--repeat", type=int, help="in-process runs of each (default 5; quick 3)")
    parser.add_argument("--cli-repeat", type=int, help="fresh-process runs of each (default 3; quick 1)")
    parser.add_argument("--seed", type=int, default=20260801, help="generator seed (default 20260801)")
    parser.add_argument("--keep", type=Path, help="build in this folder and keep it")
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    options = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    learnings = options.learnings or (1000 if options.quick else 10_000)
    events = options.events or (10_000 if options.quick else 100_000)
    repeat = options.repeat or (3 if options.quick else 5)
    cli_repeat = options.cli_repeat if options.cli_repeat is not None else (1 if options.quick else 3)
    if min(learnings, events, repeat) < 1 or cli_repeat < 0 or learnings * 3 > events:
        parser.error("--learnings, --events, --repeat must be positive, with 3 events per learning at least")
    if options.keep is not None and options.keep.exists():
        parser.error(f"--keep {options.keep}: already exists")
    results = measure(learnings, events, repeat, cli_repeat, options.seed, options.keep, warm=not options.quick)
    print(report(results), flush=True)
    if options.json:
        print(json.dumps(results, sort_keys=True))
    return 0 if results["check"]["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
