"""A hook that runs and exits 0 yet stores no session (its transcript missing or unreadable) is
not said to work: `gitstore hooks status` and `gitstore doctor` read the harness's latest
capture and say it stored none, and why, until a capture stores one."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from gitstore.capture.hookinput import HookInput
from gitstore.capture.sessions import capture
from gitstore.context import Context

from . import cli
from .advice import checks
from .world import ready_repo


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return ready_repo(tmp_path / "widgets")


def _opencode_status(root: Path) -> dict:
    done = cli.gitstore("hooks", "status", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    [row] = [r for r in json.loads(done.stdout)["hooks"] if r["harness"] == "opencode" and r["scope"] == "project"]
    return row


def _idle(ctx: Context, session: str) -> dict:
    root = str(ctx.workspace.root)
    payload = {"hook_event_name": "session.idle", "session_id": session, "cwd": root}
    return capture(Context.open(root), HookInput.from_payload("opencode", payload, root)).receipt


def test_a_hook_whose_latest_capture_stored_no_session_is_not_said_to_work(
        ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = ctx.workspace.root
    data = tmp_path / "xdg"
    (data / "opencode").mkdir(parents=True)
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    assert cli.gitstore("hooks", "install", "--harness", "opencode", cwd=root).returncode == 0
    assert _opencode_status(root)["storedNothing"] is None
    assert [c["state"] for c in checks(root, "hook opencode (project)")] == ["ok"]

    assert _idle(ctx, "ses_nowhere")["reasons"] == ["transcript-missing"]  # OpenCode 1.2 kept it elsewhere
    row = _opencode_status(root)
    assert "stored no session: transcript-missing" in row["storedNothing"], row
    text = cli.gitstore("hooks", "status", cwd=root).stdout
    assert "stores nothing" in text and "stored no session: transcript-missing" in text, text
    [check] = checks(root, "hook opencode (project)")
    assert check["state"] == "warn" and "stored no session: transcript-missing" in check["detail"], check
    assert "captures now" not in check["detail"]

    (data / "opencode" / "opencode.db").write_bytes(b"SQLite format 3\x00" + bytes(4080))  # no database at all
    assert _idle(ctx, "ses_abc")["reasons"] == ["transcript-unreadable"]
    [check] = checks(root, "hook opencode (project)")
    assert check["state"] == "warn" and "stored no session: transcript-unreadable" in check["detail"], check

    (data / "opencode" / "opencode.db").unlink()
    db = sqlite3.connect(data / "opencode" / "opencode.db")
    db.executescript("""create table session (id text primary key, directory text, version text,
        time_created integer, time_updated integer);
        create table message (id text primary key, session_id text, time_created integer, data text);
        create table part (id text primary key, message_id text, session_id text, time_created integer, data text);""")
    db.execute("insert into session values ('ses_abc', '/w', '1.2.10', 1765000000000, 1765000005000)")
    db.execute("insert into message values ('msg_1', 'ses_abc', 1765000001000, ?)",
               (json.dumps({"role": "user", "time": {"created": 1765000001000}}),))
    db.execute("insert into part values ('prt_1', 'msg_1', 'ses_abc', 1765000001000, ?)",
               (json.dumps({"type": "text", "text": "make the retry loop back off"}),))
    db.commit()
    db.close()
    assert "transcript" in _idle(ctx, "ses_abc")["observed"]
    assert _opencode_status(root)["storedNothing"] is None
    assert [c["state"] for c in checks(root, "hook opencode (project)")] == ["ok"]
