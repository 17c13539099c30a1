"""OpenCode's SQLite database (``$XDG_DATA_HOME/opencode/opencode.db``, OpenCode 1.2 and later).

OpenCode moved its sessions out of ``storage/{session,message,part}/*.json`` into one SQLite
database: a ``session`` table (``id``, ``directory``, ``version``, ``time_created``,
``time_updated``, ...), a ``message`` table (``id``, ``session_id``, ``time_created``, ``data``:
the message file's JSON without its ``id`` and ``sessionID``) and a ``part`` table (``id``,
``message_id``, ``session_id``, ``data``: the part file's JSON without its ids). One session of
it is read as the JSON reader reads a session's files (``gitstore.capture.transcripts.opencode``):
the same records, counted alike, give the same transcript. Rows are the records: the session's
row, each message row and each part row.

The database is the agent's, open while it runs: it is opened read-only (``mode=ro``,
``query_only``), read in one short transaction and closed, so nothing of it is written or left
locked. A database in WAL mode is read with its log, so what the agent wrote last is seen;
where the log cannot be opened (the folder is read-only), the file is read as it stands
(``immutable``). A database a writer keeps locked past ``BUSY_SECONDS``, a file that is no
SQLite database, and one without the tables and columns read here are each refused in one
line. A session id the database does not hold is ``SessionAbsent``.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

from gitstore.capture.transcripts import opencode
from gitstore.capture.transcripts._builder import Builder
from gitstore.capture.transcripts._model import Limits, Transcript
from gitstore.capture.transcripts._read import BAD, SQLITE_HEADER, SessionAbsent, loads, read_head
from gitstore.errors import InvalidInput

BUSY_SECONDS = 2.0
# the columns read, by table; those marked False may be missing (older or newer schemas)
_COLUMNS = {
    "session": {"id": True, "directory": False, "version": False, "time_created": False, "time_updated": False},
    "message": {"id": True, "session_id": True, "time_created": False, "data": True},
    "part": {"id": True, "message_id": True, "session_id": True, "data": True},
}


def is_database(path: Path) -> bool:
    """Whether the file at PATH begins as an SQLite database does."""
    try:
        return read_head(path, len(SQLITE_HEADER)) == SQLITE_HEADER
    except InvalidInput:
        return False


def parse(path: Path, session: str | None, limits: Limits) -> Transcript:
    """Session SESSION of the database at PATH (the only one it holds when SESSION is None)."""
    try:
        return _read(_connect(path, immutable=False), path, session, limits)
    except sqlite3.OperationalError as exc:
        if not _cannot_open(exc):
            raise _refusal(path, exc) from None
    try:  # the write-ahead log's index cannot be opened beside it: read the file as it stands
        return _read(_connect(path, immutable=True), path, session, limits)
    except sqlite3.Error as exc:
        raise _refusal(path, exc) from None


def _connect(path: Path, immutable: bool) -> sqlite3.Connection:
    uri = f"file:{quote(str(path.resolve()))}?{'immutable=1' if immutable else 'mode=ro'}"
    db = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None)
    try:
        db.execute("pragma query_only = on")
    except sqlite3.Error:
        db.close()
        raise
    return db


def _cannot_open(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "unable to open" in text or "readonly" in text or "read-only" in text


def _refusal(path: Path, exc: sqlite3.Error) -> InvalidInput:
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return InvalidInput(f"{path}: the OpenCode database stayed locked by a writer for over {BUSY_SECONDS:g} s; "
                            "capture it again later")
    if "not a database" in text or "malformed" in text or "encrypted" in text:
        return InvalidInput(f"{path}: not a readable SQLite database ({str(exc)[:200]})")
    return InvalidInput(f"{path}: cannot read the OpenCode database ({str(exc)[:200]})")


def _read(db: sqlite3.Connection, path: Path, session: str | None, limits: Limits) -> Transcript:
    try:
        db.execute("begin")  # one snapshot: a session the agent writes meanwhile is read as it stood
        columns = _columns(db, path)
        return _session(db, columns, path, session, limits)
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError) and _cannot_open(exc):
            raise
        raise _refusal(path, exc) from None
    finally:
        db.close()


def _columns(db: sqlite3.Connection, path: Path) -> dict[str, set[str]]:
    """The columns of each table read; a refusal naming the first table or column missing."""
    found: dict[str, set[str]] = {}
    for table, wanted in _COLUMNS.items():
        have = {str(row[1]) for row in db.execute(f"pragma table_info({table})")}
        if not have:
            raise InvalidInput(f"{path}: not an OpenCode database (no {table} table)")
        missing = [name for name, needed in wanted.items() if needed and name not in have]
        if missing:
            raise InvalidInput(f"{path}: an OpenCode database of a schema gitstore does not read "
                               f"(its {table} table has no {missing[0]} column)")
        found[table] = have
    return found


def _session(db: sqlite3.Connection, columns: dict[str, set[str]], path: Path, session: str | None,
             limits: Limits) -> Transcript:
    wanted = [name for name in _COLUMNS["session"] if name in columns["session"]]
    if session is None:
        session = _only_session(db, path)
    row = db.execute(f"select {', '.join(wanted)} from session where id = ?", (session,)).fetchone()
    if row is None:
        raise SessionAbsent(f"{path}: no OpenCode session {session!r} in this database")
    values = dict(zip(wanted, row))
    digest, size = hashlib.sha256(), 0

    def read(*parts: Any) -> None:
        nonlocal size
        for part in parts:
            data = b"\0" if part is None else str(part).encode("utf-8", "surrogatepass")
            digest.update(len(data).to_bytes(8, "big") + data)
            size += len(data)

    read("session", *row)
    builder = Builder(opencode.HARNESS, path, limits)
    builder.parsed()
    opencode.session_meta(builder, {
        "id": values["id"], "directory": values.get("directory"), "version": values.get("version"),
        "time": {"created": values.get("time_created"), "updated": values.get("time_updated")},
    })
    order = "time_created, id" if "time_created" in columns["message"] else "id"
    records = []
    for message_id, data in db.execute(
            f"select id, data from message where session_id = ? order by {order} limit ?", (session, limits.max_files)):
        read("message", message_id, data)
        records.append(_record(message_id, data, {}))
    messages = opencode.in_order(builder, records)
    parts: dict[str, list[Any]] = {m["id"]: [] for m in messages}
    for message_id, part_id, data in db.execute(
            "select message_id, id, data from part where session_id = ? order by message_id, id", (session,)):
        kept = parts.get(message_id)
        if kept is not None and len(kept) < limits.max_files:
            read("part", message_id, part_id, data)
            kept.append(_record(part_id, data, {"messageID": message_id, "sessionID": session}))
    db.execute("commit")
    for message in messages:
        opencode.emit(builder, message, parts[message["id"]])
    return opencode.finish(builder)._replace(source=("sha256:" + digest.hexdigest(), size))


def _record(row_id: Any, data: Any, ids: dict[str, Any]) -> Any:
    """A row as the JSON file it was made from: its ``data`` with its ids put back; ``BAD``
    when the data is no JSON object or over the size of a file the JSON reader reads."""
    if not isinstance(data, str | bytes) or len(data) > opencode.PART_LIMIT:
        return BAD
    record = loads(data)
    if not isinstance(record, dict):
        return BAD
    return {**record, **ids, "id": row_id}


def _only_session(db: sqlite3.Connection, path: Path) -> str:
    """The id of the database's only session; a refusal that asks for one when it holds more."""
    order = "time_updated desc, id desc" if _has(db, "session", "time_updated") else "id desc"
    rows = db.execute(f"select id from session order by {order} limit 2").fetchall()
    if len(rows) == 1:
        return str(rows[0][0])
    if not rows:
        raise SessionAbsent(f"{path}: an OpenCode database holding no session")
    count = db.execute("select count(*) from session").fetchone()[0]
    raise InvalidInput(f"{path}: an OpenCode database of {count} sessions; name one with --session ID "
                       f"(the latest: {rows[0][0]})")


def _has(db: sqlite3.Connection, table: str, column: str) -> bool:
    return any(row[1] == column for row in db.execute(f"pragma table_info({table})"))
