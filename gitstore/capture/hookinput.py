"""What a harness hook reported: its event, session and transcript, whatever the harness calls
the fields. Light on purpose: the hook's worker reads it before the capture library loads."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

from gitstore.capture.hookfields import EVENT, FOLDER, SESSION, TRANSCRIPT, VERSION, first
from gitstore.errors import InvalidInput
from gitstore.records.vocabulary import HARNESSES


class HookInput(NamedTuple):
    """What a harness hook reported, whatever its harness calls the fields. Each is as the hook
    sent it: what of it a record keeps is screened whole where the record is made
    (``gitstore.capture.normalize``), since a cut or rewritten name can hide a secret."""

    harness: str
    event: str
    session: str | None
    transcript: Path | None
    cwd: Path
    version: str | None = None

    @classmethod
    def from_payload(cls, harness: str, payload: dict[str, Any], cwd: str) -> HookInput:
        if harness not in HARNESSES:
            raise InvalidInput(f"unknown harness {harness!r} (one of {', '.join(HARNESSES)})")
        session = first(payload, SESSION)
        event = first(payload, EVENT) or "notify"
        path = first(payload, TRANSCRIPT)
        where = Path(_folder(first(payload, FOLDER), cwd))
        transcript = _transcript_path(path) if path else None
        if transcript is None and harness == "codex" and session:
            transcript = _codex_rollout(session)
        if transcript is None and harness == "opencode" and session:
            transcript = _opencode_session(session)
        version = first(payload, VERSION)
        return cls(harness, event, session, transcript, where, version)


def _folder(named: str | None, cwd: str) -> str:
    """The folder the session ran in: the one the payload names while it is a folder, else
    CWD, the folder the hook runs in, as the hook chose where to spool the job. A session that
    removed the folder it worked in (a build folder it made and deleted) names one that is gone:
    taken as named, the repository was not found there and the session was dropped unsaid."""
    try:
        return named if named is not None and os.path.isdir(named) else cwd
    except (OSError, ValueError):
        return cwd


def _transcript_path(path: str) -> Path | None:
    """The transcript file the hook named, its ``~`` expanded; None when the name leads
    nowhere (``~user`` of a user who does not exist): then no transcript was named."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        return None


def regular_file(path: Path | None) -> bool:
    """Whether PATH is a regular file; False also for a path no file can have (a name longer
    than the file system allows), which names no transcript either."""
    try:
        return path is not None and path.is_file()
    except (OSError, ValueError):
        return False


def _opencode_session(session: str) -> Path | None:
    """OpenCode's session, which its plugin event does not name: ``<id>.json`` under a
    project's folder of ``$XDG_DATA_HOME/opencode/storage/session/`` (``~/.local/share`` by
    default), where OpenCode before 1.2 kept it; else OpenCode's database beside that folder
    (``opencode.db``; a build of another channel writes ``opencode-<channel>.db``), where 1.2
    and later keep every session, and the transcript reader finds the session by its id. Of
    several databases, the one holding the session, the latest changed first; when none holds
    it, the latest changed, whose reader then finds it missing. A database is opened here only
    when there are several (one alone is left to the reader)."""
    if not session.replace("_", "").replace("-", "").isalnum():  # an id, never a path
        return None
    data = Path(os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share"), "opencode")
    found = sorted((data / "storage" / "session").glob(f"*/{session}.json"))
    if found:
        return found[-1]
    candidates = []
    for path in [data / "opencode.db", *sorted(data.glob("opencode-*.db"))]:
        try:
            if regular_file(path):
                candidates.append((path.stat().st_mtime, path))
        except OSError:
            continue
    databases = [path for _, path in sorted(candidates, key=lambda item: item[0], reverse=True)]
    if len(databases) < 2:
        return databases[0] if databases else None
    from gitstore.capture.transcripts.opencode_db import holds

    return next((path for path in databases if holds(path, session)), databases[0])


def _codex_rollout(thread: str) -> Path | None:
    home = Path(os.environ.get("CODEX_HOME", Path.home() / ".codex")) / "sessions"
    if not home.is_dir():
        return None
    import glob

    matches = sorted(home.rglob(f"rollout-*{glob.escape(thread)}*.jsonl"))  # an id is no pattern
    return matches[-1] if matches else None

