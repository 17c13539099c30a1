"""Real repositories with review threads and sessions to dream over, built through the library."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

from gitstore.capture.sessions import import_transcript
from gitstore.dream.report import DreamReport
from gitstore.dream.run import Request, dream
from gitstore.ops import consent
from gitstore.context import Context

from .world import Thread, grant_all, ready_repo

BY = "github:9"
JITTER = [
    ("github:101", 11, "Retries need jittered backoff, otherwise every client hammers the API at once."),
    ("github:102", 12, "Back off with jitter before retrying; a fixed delay caused the thundering herd."),
    ("github:103", 13, "Please add random jitter to the retry backoff in this loop."),
]


def at(minute: int, day: int = 2) -> str:
    return f"2026-03-{day:02d}T{10 + minute // 60:02d}:{minute % 60:02d}:00.000000Z"


def repo(tmp_path: Path, name: str = "widgets", grant: bool = True) -> Context:
    ctx = ready_repo(tmp_path / name)
    if grant:
        grant_all(ctx)
    return ctx


def comment(ctx: Context, pr: int, author: str, text: str, minute: int, key: str | None = None,
            path: str = "src/retry.py", replies: list[tuple[str, str]] = ()) -> list[dict[str, Any]]:
    """One review thread on ``pr``: a comment and its replies, saved; returns their events."""
    root = key or f"{pr}{minute:04d}{zlib.crc32(text.encode()) % 1000}"
    thread = Thread(ctx, pr, root, at(minute))
    first = thread.event("comment", f"comment:{root}", at(minute), author, text=text,
                         sourceId=f"github:comment:{root}", path=path)
    made = [first]
    for n, (who, reply) in enumerate(replies, 1):
        made.append(thread.event("comment", f"comment:{root}-{n}", at(minute + n), who, text=reply,
                                 sourceId=f"github:comment:{root}{n}", path=path))
    thread.save()
    return made


def edit(ctx: Context, event: dict[str, Any], text: str, minute: int) -> dict[str, Any]:
    """A later version of the comment ``event`` is, stored as an import stores an edit (a typo
    fixed on GitHub): a new event of its thread superseding it, with its ``sourceId``."""
    view = ctx.view()
    episode = view.episodes[event["episode"]]
    root = event["payload"]["sourceId"].rsplit(":", 1)[1]
    thread = Thread(ctx, episode["pin"]["pullRequest"], root, episode["startedAt"])
    thread.pending = []  # the thread is stored already
    thread.seq = 1 + max(e["seq"] for e in view.events.values() if e["episode"] == thread.id)
    made = thread.edit(event, root, text, at(minute))
    thread.save()
    return made


def jitter_theme(ctx: Context, start: int = 0) -> list[dict[str, Any]]:
    """The paraphrased retry rule: three people, three pull requests, three threads."""
    return [comment(ctx, pr, who, text, start + 10 * n)[0] for n, (who, pr, text) in enumerate(JITTER)]


def run(ctx: Context, notes: list[str] | None = None, **options: Any) -> DreamReport:
    return dream(ctx.workspace.root, Request(by=BY, **options),
                 notify=(notes.append if notes is not None else lambda _: None))


def session(ctx: Context, folder: Path, stem: str, text: str, with_id: bool = True, day: int = 5,
            branch: str | None = None, mode: str = "transcript") -> None:
    """A Claude Code session of this clone's owner, imported in transcript mode (or MODE)."""
    lines = []
    for n, (role, content) in enumerate([("user", text), ("assistant", "Done, the tests pass.")]):
        line: dict[str, Any] = {"type": role, "uuid": f"{stem}-{n}", "parentUuid": f"{stem}-{n - 1}" if n else None,
                                "timestamp": f"2026-03-{day:02d}T09:0{n}:00Z", "cwd": "/work/widgets",
                                "version": "1.0.98", "gitBranch": branch or f"dev/{stem}",
                                "message": {"role": role, "content": content}}
        if with_id:
            line["sessionId"] = f"{stem}-session"
        lines.append(json.dumps(line))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    import_transcript(ctx, path, mode=mode)


def grant_sessions(ctx: Context) -> None:
    consent.grant(ctx, BY, ["instruction", "review"], ["agent-session"], "2026-01-01T00:00:00.000000Z", None, None)


def themes(report: DreamReport) -> dict[str, str]:
    """Theme key -> outcome, for every theme the report names."""
    found = {p["theme"]: "proposed" for p in report.proposed}
    for section, name in ((report.held_back, "held-back"), (report.rejected, "rejected"), (report.known, "known")):
        found.update({v["theme"]: name for v in section})
    return found
