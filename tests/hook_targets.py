"""Stand-ins for ``gitstore.capture.sessions.capture_from_hook``, named by GITSTORE_HOOK_TARGET in tests."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any


def record(harness: str, payload: dict[str, Any], cwd: str) -> None:
    """Append the call to the file GITSTORE_TEST_RECORD names, and make noise the hook must hide."""
    with open(os.environ["GITSTORE_TEST_RECORD"], "a", encoding="utf-8") as out:
        out.write(json.dumps({"harness": harness, "payload": payload, "cwd": cwd}) + "\n")
    print("capture chatter that must not reach the harness")
    sys.stdout.flush()
    os.write(1, b"raw chatter\n")


def explode(harness: str, payload: dict[str, Any], cwd: str) -> None:
    raise RuntimeError("capture exploded\nacross two lines")


def hang(harness: str, payload: dict[str, Any], cwd: str) -> None:
    time.sleep(60)


NOT_CALLABLE = 42


def hang_once(harness: str, payload: dict[str, Any], cwd: str) -> None:
    """Hang on the first call (marked by the file GITSTORE_TEST_HUNG names), then capture for real."""
    marker = os.environ["GITSTORE_TEST_HUNG"]
    if not os.path.exists(marker):
        open(marker, "w").close()
        time.sleep(60)
    from gitstore.capture.sessions import capture_from_hook

    capture_from_hook(harness, payload, cwd)


def pack_locally(harness: str, payload: dict[str, Any], cwd: str) -> None:
    """Store a capture-sized append (one pack) in the local namespace, and let two packs be
    the most the worker leaves."""
    from gitstore.conformance import _records as R
    from gitstore.conformance import entries_for
    from gitstore.providers import Stream, _maintain
    from gitstore.providers.git import GitProvider

    session = payload["session_id"]
    records = [R.event(f"{session}-{i}", episode=session, seq=i) for i in range(60)]
    GitProvider(cwd, "w1").append_stream(Stream(iter(entries_for(records)), lambda: "local"))
    _maintain.PACK_LIMIT = 2


def record_then_hang(harness: str, payload: dict[str, Any], cwd: str) -> None:
    """Record the call, then hang when its session is one GITSTORE_TEST_HANG names (a comma list)."""
    with open(os.environ["GITSTORE_TEST_RECORD"], "a", encoding="utf-8") as out:
        out.write(json.dumps({"harness": harness, "payload": payload, "cwd": cwd}) + "\n")
    if payload.get("session_id") in os.environ.get("GITSTORE_TEST_HANG", "").split(","):
        time.sleep(60)


def quote_input(harness: str, payload: dict[str, Any], cwd: str) -> None:
    """Fail as a capture can, with messages that quote what it read: a file named in the
    payload, a record value that fails its contract."""
    if payload.get("hook_event_name") == "Stop":
        from gitstore.errors import ContractError

        raise ContractError(f"episode record fails its contract: {payload['session_id']!r} is too long")
    raise PermissionError(13, "Permission denied", payload["transcript_path"])
