"""Building real memory in real repositories for the rules tests: review threads, comments,
labels, grants and learnings, written through the library like any user would."""

from __future__ import annotations

import hashlib
import json
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from gitstore.records.contracts import seal
from gitstore.records.ids import episode_id, event_id
from gitstore.ops import consent
from gitstore.ops import learning as ops
from gitstore.context import Context
from gitstore.ops.setup import init

T0 = "2026-03-01T10:00:00.000000Z"
REVIEWER = "github:1001"


def ready_repo(path: Path, origin: str = "https://github.com/acme/widgets.git", provider: str = "git") -> Context:
    """A repository with one empty commit, ``origin`` as its remote, set up for gitstore with
    ``provider``: a copy of one built once (``templates``) when the origin is a URL and
    ``path`` is free. ``memory`` keeps records in this process only, so no clone's config.json
    may name it: the clone is set up with git, and the context opened on a memory store."""
    from .templates import copy

    kept = "git" if provider == "memory" else provider
    if origin.startswith("https://") and not (path.exists() and any(path.iterdir())):
        if path.exists():
            path.rmdir()
        copy(("ready", origin, kept), path, lambda there: _ready(there, origin, kept))
    else:
        _ready(path, origin, kept)
    if provider == "memory":
        return in_memory(path)
    return Context.open(str(path))


def in_memory(path: Path) -> Context:
    """The clone at ``path`` with its context opened on an empty memory store, for as long as
    this process keeps it."""
    from gitstore.config import Workspace
    from gitstore.providers.memory import MemoryProvider
    from gitstore.store import Store

    workspace = Workspace.find(str(path))
    return Context(workspace, Store(MemoryProvider(workspace.config.writer), workspace.scope))


def _ready(path: Path, origin: str, provider: str) -> None:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    if origin:
        subprocess.run(["git", "remote", "add", "origin", origin], cwd=path, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "root"], cwd=path, check=True)
    init(path, provider)


def head_commit(pr: int | None) -> str:
    """The commit a review of pull request PR saw: each pull request's own (pull requests sharing
    one are one change to a dream)."""
    return hashlib.sha1(f"pull-{pr}".encode()).hexdigest() if pr else "a" * 40


class Thread:
    """One review thread: an episode plus comment, edit, label and retraction events (with
    ``kind="agent-session"``, a personal session's episode instead, kept local)."""

    def __init__(self, ctx: Context, pr: int | None, root: str, at: str = T0, kind: str = "review-thread",
                 branch: str | None = None) -> None:
        self.ctx = ctx
        origin = "github" if kind == "review-thread" else "claude-code"
        source = {"kind": kind, "origin": origin, "ref": f"github:comment:{root}" if pr else f"session-{root}"}
        self.id = episode_id(ctx.scope, source)
        self.episode = seal({
            "schema": "gitstore.episode/v1", "scope": ctx.scope, "id": self.id, "source": source,
            "pin": {"repository": ctx.scope, "pullRequest": pr, "branch": branch or f"feature/{pr or root}",
                    "commit": head_commit(pr)},
            "title": None, "startedAt": at, "capture": "complete",
            "mode": "review" if kind == "review-thread" else "transcript", "grants": [],
        })
        self.seq = 0
        self.pending: list[dict[str, Any]] = [self.episode]

    def event(self, type_: str, key: str, at: str, author: str = REVIEWER, parent: str | None = None,
              **payload: Any) -> dict[str, Any]:
        record = seal({
            "schema": "gitstore.event/v1", "scope": self.ctx.scope, "id": event_id(self.id, key),
            "episode": self.id, "type": type_, "seq": self.seq, "at": at, "author": author,
            "parentEventId": parent, "payload": payload,
        })
        self.seq += 1
        self.pending.append(record)
        return record

    def comment(self, comment_id: str, text: str, at: str, author: str = REVIEWER) -> dict[str, Any]:
        return self.event("comment", f"comment:{comment_id}:{at}", at, author,
                          text=text, sourceId=f"github:comment:{comment_id}")

    def edit(self, previous: dict[str, Any], comment_id: str, text: str, at: str) -> dict[str, Any]:
        return self.event("edit", f"comment:{comment_id}:{at}", at, previous["author"],
                          parent=previous["id"], text=text, sourceId=f"github:comment:{comment_id}")

    def label(self, judged: dict[str, Any], theme: str, at: str) -> dict[str, Any]:
        return self.event("label", f"label:{judged['id']}:{theme}", at, "bot:labeler", parent=judged["id"],
                          label={"theme": theme, "polarity": "problem", "category": "convention"})

    def retract(self, judged: dict[str, Any], at: str) -> dict[str, Any]:
        return self.event("retraction", f"retract:{judged['id']}", at, judged["author"], parent=judged["id"],
                          text="", sourceId=judged["payload"]["sourceId"])

    def save(self) -> None:
        self.ctx.store.append(self.pending)
        self.pending = []


def ref(event: dict[str, Any]) -> dict[str, Any]:
    return {"episode": event["episode"], "events": [event["id"]]}


def grant_all(ctx: Context, purposes: tuple[str, ...] = ("review", "instruction"),
              start: str = "2026-01-01T00:00:00.000000Z", until: str | None = None,
              sources: tuple[str, ...] = ("review-thread",)) -> dict[str, Any]:
    return consent.grant(ctx, "github:9", list(purposes), list(sources), start, until, None)


def propose(ctx: Context, evidence: list[dict[str, Any]], title: str = "Retries use jitter",
            text: str = "Every retry loop uses exponential backoff with full jitter.",
            replaces: tuple[str, ...] = (), counter: list[dict[str, Any]] | None = None,
            category: str = "convention") -> dict[str, Any]:
    draft = ops.Draft(title=title, text=text, category=category, evidence=evidence,
                      counterevidence=counter or [], replaces=replaces, proposer=("person", "github:9"))
    return ops.propose(ctx, draft, "github:9")


def accepted(ctx: Context, record: dict[str, Any], by: str = "github:9") -> dict[str, Any]:
    return ops.accept(ctx, record["id"], record["reviewDigest"], by)


def claude_transcript(path: Path, texts: list[tuple[str, str]], session: str = "sess-1") -> Path:
    """A Claude Code session written after the repository's first commit, as real ones are."""
    start = datetime.now(timezone.utc) + timedelta(seconds=5)
    lines = []
    for n, (role, text) in enumerate(texts):
        lines.append(json.dumps({
            "type": role, "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n else None, "sessionId": session,
            "timestamp": (start + timedelta(seconds=n)).isoformat(), "cwd": "/work/widgets", "version": "1.0.98",
            "message": {"role": role, "content": text},
        }))
    path.write_text("\n".join(lines) + "\n")
    return path


def small_store(path: Path, provider: str = "git") -> tuple[Context, str]:
    """A store with a grant, one review thread with a comment, and an accepted learning citing
    it (every read command has something to read); returns it and the learning's id."""
    ctx = ready_repo(path, provider=provider)
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    learning = accepted(ctx, propose(ctx, [ref(comment)]))
    return ctx, learning["id"]


def reads_fail_closed(root: Path, learning: str, needle: str = "") -> None:
    """``verify`` and the read commands (records list, learnings, show) all exit 3, in one line,
    naming ``needle``."""
    from . import cli

    done = cli.gitstore("verify", cwd=root)
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and needle in done.stdout + done.stderr, done.stderr
    for args in (("records", "list"), ("learnings",), ("show", learning)):
        failed = cli.fails(3, *args, cwd=root)
        assert needle in failed, (args, failed)
