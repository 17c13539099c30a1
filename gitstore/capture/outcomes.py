"""What the latest capture of each harness stored: a session, or nothing and why.

A hook that runs and exits 0 can still store no session: its transcript was not where the
harness said (``transcript-missing``) or could not be read (``transcript-unreadable``), as
every session of OpenCode 1.2 once was. The receipt says so, but ``gitstore hooks status``
and ``gitstore doctor`` judge a hook by its configuration, and read no records: they said the
hook "works" and "captures now". So each capture (``gitstore.capture.sessions.capture``: a
hook's, or ``gitstore capture``) notes its receipt here, by harness, in
``okf/.memory/captures.json`` (``{harness: {"at", "receipt", "stored", "reason"}}``), the
latest one winning; both commands read it and say, for a harness whose latest capture stored
no session, that it stored none and why. Nothing else depends on the file: a damaged or
removed one says nothing.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitstore.capture.install import HookStatus

NAME = "captures.json"
NOTHING_STORED = ("transcript-missing", "transcript-unreadable")
TODO = ("import the session with `gitstore import transcript FILE` (OpenCode's database: with --session ID), "
        "and upgrade gitstore if the harness keeps its sessions elsewhere now; the next capture that stores a "
        "session clears this")


def record(state: Path, harness: str, envelope: dict[str, Any], receipt: dict[str, Any]) -> None:
    """Note RECEIPT, of a capture of HARNESS, as its latest; never fails the capture."""
    reason = next((r for r in receipt.get("reasons", ()) if r in NOTHING_STORED), None)
    entry = {"at": envelope.get("capturedAt"), "receipt": receipt.get("digest"),
             "stored": receipt.get("episode") is not None, "reason": None if receipt.get("episode") else reason}
    path = state / NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError:
        return
    with os.fdopen(fd, "r+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX)
            known = _parse(handle.read())
            known[harness] = entry
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps(known, sort_keys=True).encode("utf-8"))
        except OSError:
            return


def latest(state: Path | None) -> dict[str, dict[str, Any]]:
    """The latest capture of each harness, as ``record`` noted it ({} when none was)."""
    if state is None:
        return {}
    try:
        with open(state / NAME, "rb") as handle:
            return _parse(handle.read())
    except OSError:
        return {}


def stored_nothing(state: Path | None, harness: str) -> str | None:
    """A line saying that HARNESS's latest capture stored no session, and why; None when it
    stored one, or none was noted."""
    from gitstore.records.vocabulary import REASON_WORDS

    entry = latest(state).get(harness)
    if not entry or entry.get("stored") or entry.get("reason") not in NOTHING_STORED:
        return None
    reason = str(entry["reason"])
    return (f"its latest capture ({entry.get('at') or 'time unknown'}) stored no session: {reason} "
            f"({REASON_WORDS.get(reason, reason)})")


def marked(rows: list[HookStatus], state: Path | None) -> list[HookStatus]:
    """ROWS, each installed harness's hook whose latest capture stored no session saying so
    (``HookStatus.stored_nothing``)."""
    found = {harness: stored_nothing(state, harness) for harness in {r.harness for r in rows if r.installed}}
    return [r._replace(stored_nothing=found[r.harness]) if r.installed and found.get(r.harness) else r
            for r in rows]


def _parse(raw: bytes) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(raw or b"{}")
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, dict)}
