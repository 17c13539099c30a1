"""OpenCode 1.2 and later keep sessions in one SQLite database (``opencode.db``), not in
``storage/{session,message,part}/*.json``: a session of it reads as its JSON files did, the
hook finds it there, ``import transcript`` takes it by id, the agent's database is never
written or left locked, and no planted secret reaches the store.

The databases are real SQLite files made here with the tables OpenCode's schema declares
(``session``, ``message``, ``part``; ``data`` holding each message's and part's JSON without its
ids), filled from the OpenCode sessions of the third-party test material."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gitstore.capture.hookinput import HookInput
from gitstore.capture.sessions import capture, import_transcript
from gitstore.capture.transcripts import opencode_db, parse_transcript
from gitstore.context import Context
from gitstore.errors import InvalidInput

from . import cli
from .conftest import all_objects, shared
from .world import ready_repo

# OpenCode's tables, as its schema declares them (the columns read here, and others beside them)
DDL = """
create table project (id text primary key, worktree text not null, vcs text, name text,
    time_created integer not null, time_updated integer not null, sandboxes text not null default '[]');
create table session (id text primary key, project_id text not null references project(id) on delete cascade,
    workspace_id text, parent_id text, slug text not null, directory text not null, path text,
    title text not null, version text not null, share_url text, summary_additions integer,
    summary_deletions integer, summary_files integer, summary_diffs text, cost real not null default 0,
    tokens_input integer not null default 0, tokens_output integer not null default 0,
    revert text, permission text, agent text, model text,
    time_created integer not null, time_updated integer not null, time_compacting integer, time_archived integer);
create index session_project_idx on session (project_id);
create table message (id text primary key, session_id text not null references session(id) on delete cascade,
    time_created integer not null, time_updated integer not null, data text not null);
create index message_session_time_created_id_idx on message (session_id, time_created, id);
create table part (id text primary key, message_id text not null references message(id) on delete cascade,
    session_id text not null, time_created integer not null, time_updated integer not null, data text not null);
create index part_message_id_id_idx on part (message_id, id);
create index part_session_idx on part (session_id);
"""

STORAGE = ("transcripts", "agent-sessions", "opencode")
SESSIONS = {"s_stage0_small": "storage_v2", "s_stage0_large": "storage_v2", "s_stage0_drift": "storage_legacy"}


def _json_file(storage: Path, session: str) -> Path:
    return next((storage / "session").glob(f"*/*{session}.json"))


def database(path: Path, storages: list[Path], wal: bool = False, planted: dict[str, Any] | None = None) -> Path:
    """An OpenCode database at PATH holding every session of the JSON STORAGES, as OpenCode's
    migration from JSON moves them (each message's and part's JSON, its ids taken out, in
    ``data``). Part ids keep the order of the part files. PLANTED overrides fields of the
    first session's row."""
    db = sqlite3.connect(path)
    if wal:
        db.execute("pragma journal_mode = wal")
    db.executescript(DDL)
    for storage in storages:
        db.execute("insert or ignore into project values ('proj_test', '/tmp', 'git', null, 1, 1, '[]')")
        for file in sorted((storage / "session").glob("*/*.json")):
            s = json.loads(file.read_text())
            row = {"id": s["id"], "project_id": "proj_test", "slug": s.get("slug", ""), "directory": s["directory"],
                   "title": s.get("title", ""), "version": s.get("version", ""),
                   "time_created": s["time"]["created"], "time_updated": s["time"]["updated"]}
            row.update(planted or {})
            planted = None
            db.execute(f"insert into session ({', '.join(row)}) values ({', '.join('?' * len(row))})", list(row.values()))
            for message_file in sorted((storage / "message" / s["id"]).glob("*.json")):
                m = json.loads(message_file.read_text())
                data = {k: v for k, v in m.items() if k not in ("id", "sessionID")}
                created = m.get("time", {}).get("created", 0)
                db.execute("insert into message values (?, ?, ?, ?, ?)", (m["id"], s["id"], created, created,
                                                                           json.dumps(data)))
                parts = sorted((storage / "part" / m["id"]).glob("*.json"))
                flat = [p for p in sorted((storage / "part").glob("*.json"))
                        if json.loads(p.read_text()).get("messageID") == m["id"]]
                for part_file in parts or flat:
                    p = json.loads(part_file.read_text())
                    data = {k: v for k, v in p.items() if k not in ("id", "sessionID", "messageID")}
                    db.execute("insert into part values (?, ?, ?, ?, ?, ?)",
                               (f"prt_{m['id']}_{part_file.stem}", m["id"], s["id"], created, created, json.dumps(data)))
    db.commit()
    db.close()
    return path


@pytest.fixture
def storages() -> list[Path]:
    return [shared(*STORAGE, "storage_v2"), shared(*STORAGE, "storage_legacy")]


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return ready_repo(tmp_path / "widgets")


@pytest.mark.parametrize("session", sorted(SESSIONS))
def test_a_session_of_the_database_reads_as_its_json_files_do(tmp_path: Path, storages: list[Path],
                                                                session: str) -> None:
    db = database(tmp_path / "opencode.db", storages)
    from_json = parse_transcript(_json_file(shared(*STORAGE, SESSIONS[session]), session), "opencode")
    from_db = parse_transcript(db, "opencode", session=session)
    assert from_db.source is not None and from_db.source[0].startswith("sha256:")
    assert from_db._replace(source=None) == from_json
    assert parse_transcript(db, session=session) == from_db  # detected as OpenCode's by its content


def test_the_hook_finds_the_session_in_the_database(ctx: Context, tmp_path: Path, storages: list[Path],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The payload gitstore's OpenCode plugin sends at ``session.idle`` names the session only;
    with no JSON storage the hook stored an envelope and a ``transcript-missing`` receipt."""
    data = tmp_path / "xdg"
    (data / "opencode").mkdir(parents=True)
    db = database(data / "opencode" / "opencode.db", storages)
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    root = str(ctx.workspace.root)
    payload = {"hook_event_name": "session.idle", "session_id": "s_stage0_small", "cwd": root,
               "event": {"type": "session.idle", "properties": {"sessionID": "s_stage0_small"}}}
    hook = HookInput.from_payload("opencode", payload, root)
    assert hook.transcript == db
    result = capture(ctx, hook)
    assert "transcript" in result.receipt["observed"], result.receipt["reasons"]
    assert result.receipt["lines"]["total"] == 6  # the session's row, 2 messages, 3 parts
    assert result.episode is not None and result.events
    source = parse_transcript(db, "opencode", session="s_stage0_small").source
    assert source is not None
    assert result.envelope["transcript"] == {"name": "opencode.db", "sha256": source[0], "bytes": source[1]}
    again = capture(Context.open(root), HookInput.from_payload("opencode", payload, root))
    assert again.episode == result.episode and again.events == result.events
    gone = capture(ctx, HookInput.from_payload("opencode", {**payload, "session_id": "ses_gone"}, root))
    assert gone.episode is None and gone.receipt["reasons"] == ["transcript-missing"]
    assert gone.envelope["transcript"] is None  # never the digest of other sessions' rows


def test_import_takes_a_session_of_the_database_by_id(ctx: Context, tmp_path: Path, storages: list[Path]) -> None:
    db = database(tmp_path / "opencode.db", storages)
    root = ctx.workspace.root
    done = cli.gitstore("import", "transcript", str(db), "--session", "s_stage0_large", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["lines"]["total"] == parse_transcript(db, session="s_stage0_large").counts.total
    said = cli.fails(1, "import", "transcript", str(db), cwd=root)
    assert "an OpenCode database of 3 sessions; name one with --session ID" in said, said
    said = cli.fails(1, "import", "transcript", str(db), "--session", "ses_none", cwd=root)
    assert "no OpenCode session 'ses_none' in this database" in said, said
    transcript = _json_file(shared(*STORAGE, "storage_v2"), "s_stage0_small")
    said = cli.fails(2, "import", "transcript", str(transcript), "--session", "s_stage0_small", cwd=root)
    assert "--session names a session of OpenCode's database" in said
    one = tmp_path / "one.db"
    database(one, [shared(*STORAGE, "storage_legacy")])
    assert import_transcript(ctx, one).episode is not None  # a database of one session needs no id


def test_the_agents_database_is_never_written_and_its_log_is_read(tmp_path: Path, storages: list[Path]) -> None:
    """OpenCode keeps its database in WAL mode and open: what it wrote last is in the log, not
    yet in the file. Reading sees it and leaves the file's bytes as they were."""
    db = database(tmp_path / "opencode.db", storages, wal=True)
    agent = sqlite3.connect(db)
    agent.execute("pragma wal_autocheckpoint = 0")
    agent.execute("update session set title = 'renamed', version = '1.2.99' where id = 's_stage0_small'")
    agent.commit()
    before = db.read_bytes()
    assert Path(f"{db}-wal").stat().st_size > 0
    transcript = parse_transcript(db, "opencode", session="s_stage0_small")
    assert transcript.version == "1.2.99"  # read with the write-ahead log
    assert db.read_bytes() == before
    agent.execute("update session set title = 'again' where id = 's_stage0_small'")  # no lock was left
    agent.commit()
    agent.close()


def test_a_database_a_writer_keeps_locked_is_refused_in_one_line(tmp_path: Path, storages: list[Path],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    db = database(tmp_path / "opencode.db", storages)
    monkeypatch.setattr(opencode_db, "BUSY_SECONDS", 0.05)
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("begin exclusive")
    try:
        with pytest.raises(InvalidInput, match="stayed locked by a writer") as refused:
            parse_transcript(db, "opencode", session="s_stage0_small")
        assert "\n" not in str(refused.value)
    finally:
        writer.execute("rollback")
        writer.close()


@pytest.mark.parametrize(("change", "problem"), [
    ("drop table part", "not an OpenCode database (no part table)"),
    ("alter table message drop column data", "its message table has no data column"),
    ("alter table session drop column directory", None),  # a column the reader can do without
])
def test_a_database_of_another_schema_is_refused_in_one_line(ctx: Context, tmp_path: Path, storages: list[Path],
                                                            change: str, problem: str | None) -> None:
    db = database(tmp_path / "opencode.db", storages)
    with sqlite3.connect(db) as edit:
        edit.execute("drop index message_session_time_created_id_idx") if "message" in change else None
        edit.execute(change)
    edit.close()
    if problem is None:
        assert parse_transcript(db, "opencode", session="s_stage0_small").cwd is None
        return
    said = cli.fails(1, "import", "transcript", str(db), "--session", "s_stage0_small", cwd=ctx.workspace.root)
    assert problem in said, said
    assert list(ctx.store.items()) == []


def test_a_damaged_database_is_refused_in_one_line(ctx: Context, tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    db.write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    said = cli.fails(1, "import", "transcript", str(db), cwd=ctx.workspace.root)
    assert str(db) in said and "Traceback" not in said


ENDLESS_VIEW = """
create view session as with recursive r(n) as (select 1 union all select n + 1 from r)
  select 'ses_' || n as id, '/tmp' as directory, '1.2.0' as version, n as time_created, n as time_updated from r;
create table message (id text, session_id text, time_created int, data text);
create table part (id text, message_id text, session_id text, data text);
"""


@pytest.mark.parametrize("named", [(), ("--session", "ses_1")])
def test_a_database_whose_session_is_a_view_is_refused_in_one_line(ctx: Context, tmp_path: Path,
                                                                   named: tuple[str, ...]) -> None:
    """A view is a query, one that may never end (a recursive one): the import refuses the
    database, whether it asks for the only session or names one, rather than run it."""
    db = tmp_path / "opencode.db"
    with sqlite3.connect(db) as made:
        made.executescript(ENDLESS_VIEW)
    made.close()
    done = subprocess.run([sys.executable, "-m", "gitstore", "import", "transcript", *named, str(db)],
                          cwd=ctx.workspace.root, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert done.returncode == 1, done
    assert "not an OpenCode database (its session is a view, not a table)" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not opencode_db.holds(db, "ses_1")
    assert list(ctx.store.items()) == []


def test_reading_a_database_stops_at_its_deadline_in_one_line(tmp_path: Path, storages: list[Path],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Every query of a reading is bounded in time (SQLite's progress handler): past the
    deadline it is interrupted and the database refused, whatever query ran."""
    db = database(tmp_path / "opencode.db", storages)
    monkeypatch.setattr(opencode_db, "READ_SECONDS", 0.0)
    monkeypatch.setattr(opencode_db, "PROGRESS_STEPS", 1)
    with pytest.raises(InvalidInput, match="reading the OpenCode database took longer than 0 s") as refused:
        parse_transcript(db, "opencode", session="s_stage0_small")
    assert "\n" not in str(refused.value)


SECRETS = {
    "aws": "AKIAIOSFODNN7EXAMPLQ",
    "github": "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "slack": "xoxb-" + "8273645190-5521093847261-Qm7Zt2LkWp9Xv4Rb8Hn3Jd6F",
}


def test_no_secret_planted_in_any_field_of_the_database_reaches_the_store(ctx: Context, tmp_path: Path,
                                                                         storages: list[Path]) -> None:
    aws, github, slack = SECRETS["aws"], SECRETS["github"], SECRETS["slack"]
    db = database(tmp_path / "opencode.db", storages[:1],
                  planted={"directory": f"/srv/{aws}/repo", "version": github, "title": slack})
    with sqlite3.connect(db) as edit:
        for (row_id, data) in edit.execute("select id, data from part where session_id = 's_stage0_small'").fetchall():
            part = json.loads(data)
            if part["type"] == "text":
                part["text"] += f" token={github} key {aws}"
            if part["type"] == "tool":
                part["state"]["input"] = {"command": f"curl -H 'Authorization: Bearer {github}' https://x/{slack}"}
                part["state"]["output"] = f"AWS_ACCESS_KEY_ID={aws}"
                part["state"]["metadata"] = {"exit": 0, "note": slack}
            edit.execute("update part set data = ? where id = ?", (json.dumps(part), row_id))
        edit.execute("insert into part values ('prt_zz_patch', 'm_assistant_small', 's_stage0_small', 1, 1, ?)",
                     (json.dumps({"type": "patch", "hash": "h", "files": [f"/home/a/{github}.py"]}),))
    edit.close()
    result = import_transcript(ctx, db, session="s_stage0_small", mode="hybrid")
    assert result.receipt["redactions"] >= 3, result.receipt
    subprocess.run(["git", "gc", "-q"], cwd=ctx.workspace.root, check=True)
    objects = all_objects(ctx.workspace.root)
    for secret in SECRETS.values():
        assert secret.encode() not in objects


def _grow_text(storage: Path | None, db: Path | None, session: str, more: str) -> None:
    """OpenCode streaming a reply: each of the session's text parts, updated in place, holds MORE."""
    if db is not None:
        with sqlite3.connect(db) as edit:
            for row_id, data in edit.execute("select id, data from part where session_id = ?", (session,)).fetchall():
                part = json.loads(data)
                if part["type"] == "text":
                    part["text"] += more
                    edit.execute("update part set data = ? where id = ?", (json.dumps(part), row_id))
        edit.close()
    if storage is not None:
        for file in (storage / "part").glob("*/*.json"):
            part = json.loads(file.read_text())
            if part.get("type") == "text" and part.get("sessionID", session) == session:
                part["text"] += more
                file.write_text(json.dumps(part))


@pytest.mark.parametrize("mode", ["summary", "hybrid", "transcript"])
@pytest.mark.parametrize("kept", ["database", "json"])
def test_a_part_updated_in_place_and_captured_again_is_never_a_second_event_under_one_id(
        ctx: Context, tmp_path: Path, storages: list[Path], monkeypatch: pytest.MonkeyPatch, mode: str,
        kept: str) -> None:
    """OpenCode updates a part in place while it streams: a capture (an import) while the reply
    is being written, then the plugin's ``session.idle`` capture of the grown session, stored
    two other events under one id, which `gitstore verify` called damage. Each version is an
    event of its own, and the same session read again gives the same events."""
    import shutil

    data = tmp_path / "xdg"
    (data / "opencode").mkdir(parents=True)
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    storage = db = None
    if kept == "database":
        db = database(data / "opencode" / "opencode.db", storages)
    else:
        storage = Path(shutil.copytree(storages[0], data / "opencode" / "storage"))
        for copied in (storage, *storage.rglob("*")):
            copied.chmod(0o755 if copied.is_dir() else 0o644)
        kept_as = _json_file(storage, "s_stage0_small")
        kept_as.rename(kept_as.with_name("s_stage0_small.json"))  # where OpenCode keeps it, by its id
    root = str(ctx.workspace.root)
    payload = {"hook_event_name": "session.idle", "session_id": "s_stage0_small", "cwd": root}
    first = capture(ctx, HookInput.from_payload("opencode", payload, root), mode)
    _grow_text(storage, db, "s_stage0_small", " (and more streamed text)")
    second = capture(ctx, HookInput.from_payload("opencode", payload, root), mode)
    assert first.episode is not None and second.episode is not None and first.episode["id"] == second.episode["id"]
    assert first.events != second.events
    checked = cli.gitstore("verify", cwd=ctx.workspace.root)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    again = capture(Context.open(root), HookInput.from_payload("opencode", payload, root), mode)
    assert again.events == second.events, "the same session read again is the same events"
    shown = cli.gitstore("evidence", second.episode["id"], cwd=ctx.workspace.root)
    assert shown.returncode == 0 and "and more streamed text" in shown.stdout, shown.stdout + shown.stderr


def test_a_row_over_the_size_of_a_part_file_is_counted_as_such_a_file_and_never_read(
        tmp_path: Path, storages: list[Path]) -> None:
    """A part row holding more than the JSON reader reads of a part file (SQLite allows rows of
    a GiB) is one malformed record, as such a file is; it is never fetched, so the session's
    digest covers its ids and length, not its bytes."""
    import shutil

    from gitstore.capture.transcripts import opencode

    huge = '{"type": "text", "text": "' + "A" * (opencode.PART_LIMIT + 10) + '"}'
    storage = Path(shutil.copytree(storages[0], tmp_path / "storage"))
    for copied in (storage, *storage.rglob("*")):
        copied.chmod(0o755 if copied.is_dir() else 0o644)
    (storage / "part" / "m_assistant_small" / "zz.json").write_text(huge)
    db = database(tmp_path / "opencode.db", [storage])
    from_json = parse_transcript(_json_file(storage, "s_stage0_small"), "opencode")
    from_db = parse_transcript(db, "opencode", session="s_stage0_small")
    assert from_db.counts.malformed == from_json.counts.malformed == 1
    assert from_db._replace(source=None) == from_json
    assert from_db.source is not None and from_db.source[1] < 10_000
    with sqlite3.connect(db) as edit:
        edit.execute("update part set data = ? where id = 'prt_m_assistant_small_zz'", (huge.replace("A", "B"),))
    edit.close()
    assert parse_transcript(db, "opencode", session="s_stage0_small").source == from_db.source
    with sqlite3.connect(db) as edit:
        edit.execute("update part set data = ? where id = 'prt_m_assistant_small_zz'", (huge + " ",))
    edit.close()
    assert parse_transcript(db, "opencode", session="s_stage0_small").source != from_db.source
    with sqlite3.connect(db) as edit:
        edit.execute("update session set directory = ? where id = 's_stage0_small'", ("/" * (opencode.PART_LIMIT + 1),))
    edit.close()
    with pytest.raises(InvalidInput, match="is larger than 4194304 bytes, too large to read") as refused:
        parse_transcript(db, "opencode", session="s_stage0_small")  # as the JSON reader refuses such a file
    assert "\n" not in str(refused.value)


def test_a_row_whose_text_holds_a_nul_is_bounded_by_all_its_bytes(tmp_path: Path, storages: list[Path]) -> None:
    """SQLite's ``length`` of a text counts its characters up to the first NUL: a row of a few
    characters, a NUL and megabytes after it is over the bound all the same, never read."""
    from gitstore.capture.transcripts import opencode

    db = database(tmp_path / "opencode.db", storages)
    read = parse_transcript(db, "opencode", session="s_stage0_small")
    with sqlite3.connect(db) as edit:
        edit.execute("update part set data = ? where id = (select min(id) from part where session_id = 's_stage0_small')",
                     ('{"x":1}\0' + "A" * (opencode.PART_LIMIT + 10),))
        edit.execute("update message set data = ? where id = (select min(id) from message "
                     "where session_id = 's_stage0_small')", ('{"x":1}\0' + "A" * (opencode.PART_LIMIT + 10),))
    edit.close()
    nul = parse_transcript(db, "opencode", session="s_stage0_small")
    assert nul.source is not None and read.source is not None and nul.source[1] < read.source[1] + 1000, nul.source
    assert nul.counts.malformed >= 1


def test_reading_a_database_opencode_left_closed_leaves_nothing_beside_it(tmp_path: Path, storages: list[Path]) -> None:
    """OpenCode keeps its database in WAL mode; when it is not running, no log is beside the
    file. Reading a session left an empty ``-wal`` and a ``-shm`` in the agent's folder."""
    folder = tmp_path / "opencode"
    folder.mkdir()
    db = database(folder / "opencode.db", storages, wal=True)
    assert sorted(p.name for p in folder.iterdir()) == ["opencode.db"]
    before = db.read_bytes()
    transcript = parse_transcript(db, "opencode", session="s_stage0_small")
    assert transcript.counts.total == 6
    assert sorted(p.name for p in folder.iterdir()) == ["opencode.db"]
    assert db.read_bytes() == before
    agent = sqlite3.connect(db)  # OpenCode running: its log is read, and nothing more is left
    agent.execute("pragma wal_autocheckpoint = 0")
    agent.execute("update session set version = '1.2.99' where id = 's_stage0_small'")
    agent.commit()
    there = sorted(p.name for p in folder.iterdir())
    assert parse_transcript(db, "opencode", session="s_stage0_small").version == "1.2.99"
    assert sorted(p.name for p in folder.iterdir()) == there
    agent.close()


def test_the_hook_finds_the_session_in_the_database_of_another_channel(
        ctx: Context, tmp_path: Path, storages: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Where ``opencode.db`` was, the hook took it even when the session was in the database a
    build of another channel writes (``opencode-beta.db``), and recorded it missing."""
    data = tmp_path / "xdg"
    folder = data / "opencode"
    folder.mkdir(parents=True)
    beta = database(folder / "opencode-beta.db", storages)
    stable = database(folder / "opencode.db", [])  # other sessions, changed later
    os.utime(beta, (1_700_000_000, 1_700_000_000))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    root = str(ctx.workspace.root)
    payload = {"hook_event_name": "session.idle", "session_id": "s_stage0_small", "cwd": root}
    hook = HookInput.from_payload("opencode", payload, root)
    assert hook.transcript == beta
    result = capture(ctx, hook)
    assert result.episode is not None and "transcript" in result.receipt["observed"], result.receipt
    gone = HookInput.from_payload("opencode", {**payload, "session_id": "ses_gone"}, root)
    assert gone.transcript == stable  # held by none: the latest changed, whose reader finds it missing
    assert capture(ctx, gone).receipt["reasons"] == ["transcript-missing"]
    assert sorted(p.name for p in folder.iterdir()) == ["opencode-beta.db", "opencode.db"]
    beta.unlink()
    alone = subprocess.run(
        [sys.executable, "-c", "import sys; from gitstore.capture.hookinput import HookInput; "
         "hook = HookInput.from_payload('opencode', {'session_id': 's_stage0_small'}, '/'); "
         "print(hook.transcript, 'sqlite3' in sys.modules)"],
        capture_output=True, text=True, env={**os.environ, "XDG_DATA_HOME": str(data)}, check=True)
    assert alone.stdout.split() == [str(stable), "False"]  # one database: left to the reader to open


@pytest.mark.parametrize("mode", ["summary", "hybrid", "transcript"])
def test_a_session_captured_before_events_were_keyed_by_version_is_not_stored_twice(
        ctx: Context, tmp_path: Path, storages: list[Path], monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """A session captured while OpenCode's events were keyed by message alone, then captured
    again unchanged once they are keyed by version: the events stored already are the same
    events, not a copy of each beside them."""
    from gitstore.capture.transcripts import opencode

    data = tmp_path / "xdg"
    (data / "opencode").mkdir(parents=True)
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    database(data / "opencode" / "opencode.db", storages)
    root = str(ctx.workspace.root)
    payload = {"hook_event_name": "session.idle", "session_id": "s_stage0_small", "cwd": root}
    with monkeypatch.context() as before:  # the reader as it was: the transcript not marked rewritten
        before.setattr(opencode, "finish", lambda builder: builder.finish())
        first = capture(ctx, HookInput.from_payload("opencode", payload, root), mode)
    again = capture(Context.open(root), HookInput.from_payload("opencode", payload, root), mode)
    assert first.episode is not None and again.episode is not None
    def content(event: dict[str, Any]) -> tuple[Any, ...]:
        return event["seq"], event["at"], event["author"], json.dumps(event["payload"], sort_keys=True)

    ids = {content(event): event["id"] for event in first.events}
    same = [event for event in again.events if content(event) in ids]
    assert same and all(event["id"] == ids[content(event)] for event in same)
    # a summary counts the session's tool calls in its time now (a new version of it), the rest is as it was
    assert len(same) >= len(again.events) - (mode != "transcript")
    stored = [item for item in Context.open(root).store.stream(first.episode["id"]) if item.kind == "event"]
    assert len(stored) == len({e["id"] for e in (*first.events, *again.events)}), [i.record["id"] for i in stored]
    checked = cli.gitstore("verify", cwd=root)
    assert checked.returncode == 0, checked.stdout + checked.stderr
