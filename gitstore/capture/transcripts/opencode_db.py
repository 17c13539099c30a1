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
(``immutable``). One in WAL mode without a log beside it (OpenCode is not running) is read as
it stands too: opened with its log, SQLite would leave an empty log and its index (``-shm``)
in the agent's folder. A log left without its index (OpenCode stopped short) is read, and
SQLite leaves the index it makes for it, which a read-only reader cannot remove. A database
a writer keeps locked past ``BUSY_SECONDS``, a file that is no SQLite database, and one
without the tables and columns read here are each refused in one line. So is one whose
``session``, ``message`` or ``part`` is no table (a view can be any query, one that never ends),
and one whose reading takes longer than ``READ_SECONDS`` (every query is interrupted at that
deadline, through SQLite's progress handler). A session id the database does not hold is
``SessionAbsent``.

A row is read only up to the size of the file the JSON reader reads (``opencode.PART_LIMIT``):
each unbounded column is fetched only when its length is within bounds, so a message or
part row over it (SQLite allows rows of a GiB) is one malformed record, as a file
over it is, and the source digest covers its ids and length rather than its bytes; a session
row over it is refused, as the JSON reader refuses such a session file. An id over
``ID_LIMIT`` characters is no OpenCode id: its row is malformed.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from gitstore.capture.transcripts import opencode
from gitstore.capture.transcripts._builder import Builder
from gitstore.capture.transcripts._model import Limits, Transcript
from gitstore.capture.transcripts._read import BAD, SQLITE_HEADER, SessionAbsent, loads, read_head
from gitstore.errors import InvalidInput

BUSY_SECONDS = 2.0
READ_SECONDS = 60.0  # the longest a connection's queries take in all: then they are interrupted
PROGRESS_STEPS = 10000  # SQLite's virtual machine instructions between two looks at the deadline
ID_LIMIT = 1024  # characters of an id read (OpenCode's have about 30)
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
    if _unlogged(path):  # nothing to read from a log, and nothing left beside the file
        try:
            return _read(_connect(path, immutable=True), path, session, limits)
        except sqlite3.Error as exc:
            raise _refusal(path, exc) from None
    try:
        return _read(_connect(path, immutable=False), path, session, limits)
    except sqlite3.OperationalError as exc:
        if not _cannot_open(exc):
            raise _refusal(path, exc) from None
    try:  # the write-ahead log's index cannot be opened beside it: read the file as it stands
        return _read(_connect(path, immutable=True), path, session, limits)
    except sqlite3.Error as exc:
        raise _refusal(path, exc) from None


def holds(path: Path, session: str) -> bool:
    """Whether the database at PATH holds session SESSION, read as ``parse`` reads it; False
    when it cannot be read (its reader says why, when it is the one read)."""
    for immutable in (True,) if _unlogged(path) else (False, True):
        try:
            db = _connect(path, immutable)
            try:
                _tables(db, path)
                return db.execute("select 1 from session where id = ?", (session,)).fetchone() is not None
            except InvalidInput:
                return False
            finally:
                db.close()
        except sqlite3.Error as exc:
            if immutable or not _cannot_open(exc):
                return False
    return False


def _unlogged(path: Path) -> bool:
    """Whether PATH is a database in WAL mode with no write-ahead log beside it: no one has it
    open (OpenCode is not running), and reading it with its log would leave an empty log and
    its index (``-shm``) behind in the agent's folder, which a read-only reader cannot remove."""
    try:
        head = read_head(path, 20)
        return head[18:20] == b"\2\2" and not Path(f"{path}-wal").exists()
    except (InvalidInput, OSError):
        return False


def _connect(path: Path, immutable: bool) -> sqlite3.Connection:
    uri = f"file:{quote(str(path.resolve()))}?{'immutable=1' if immutable else 'mode=ro'}"
    db = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None)
    deadline = time.monotonic() + READ_SECONDS
    db.set_progress_handler(lambda: time.monotonic() > deadline, PROGRESS_STEPS)  # true: interrupted
    try:
        db.execute("pragma query_only = on")
    except sqlite3.Error:
        db.close()
        raise
    return db


def _tables(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a database whose ``session``, ``message`` or ``part`` is no table: a view is a
    query, which may read anything or never end."""
    names = ", ".join("?" * len(_COLUMNS))
    for name, kind in db.execute(f"select name, type from sqlite_master where name in ({names}) and type != 'table'",
                                 tuple(_COLUMNS)):
        raise InvalidInput(f"{path}: not an OpenCode database (its {name} is a {kind}, not a table)")


def _cannot_open(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "unable to open" in text or "readonly" in text or "read-only" in text


def _refusal(path: Path, exc: sqlite3.Error) -> InvalidInput:
    text = str(exc).lower()
    if "interrupted" in text:
        return InvalidInput(f"{path}: reading the OpenCode database took longer than {READ_SECONDS:g} s; not read")
    if "locked" in text or "busy" in text:
        return InvalidInput(f"{path}: the OpenCode database stayed locked by a writer for over {BUSY_SECONDS:g} s; "
                            "capture it again later")
    if "not a database" in text or "malformed" in text or "encrypted" in text:
        return InvalidInput(f"{path}: not a readable SQLite database ({str(exc)[:200]})")
    return InvalidInput(f"{path}: cannot read the OpenCode database ({str(exc)[:200]})")


def _read(db: sqlite3.Connection, path: Path, session: str | None, limits: Limits) -> Transcript:
    try:
        db.execute("begin")  # one snapshot: a session the agent writes meanwhile is read as it stood
        _tables(db, path)
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


# The length of a column's value in bytes, all of them: a cast to a blob (no copy of the value
# loaded) that ``length`` counts whole, where a text's ``length`` stops at its first NUL.
_BYTES = "length(cast({} as blob))"


def _bounded(column: str, limit: int) -> str:
    """COLUMN's type, and its value when its length is within LIMIT (NULL otherwise): a value
    over it is never fetched, copied or hashed, and SQLite loads it once (``typeof`` reads no
    content; a second ``length`` would load it again beside the first). The length is of its
    bytes (``_BYTES``): of a text, ``length`` counts characters up to the first NUL, so a row of
    a few characters, a NUL and a gigabyte after it would be "short"."""
    return f"typeof({column}), case when {_BYTES.format(column)} <= {limit} then {column} end"


def _over(kind: str, value: Any) -> bool:
    """Whether a value selected by ``_bounded`` was left out for its length."""
    return value is None and kind != "null"


def _session(db: sqlite3.Connection, columns: dict[str, set[str]], path: Path, session: str | None,
             limits: Limits) -> Transcript:
    wanted = [name for name in _COLUMNS["session"] if name in columns["session"]]
    if session is None:
        session = _only_session(db, path)
    selected = ", ".join(_bounded(name, opencode.PART_LIMIT) for name in wanted)
    found = db.execute(f"select {selected} from session where id = ?", (session,)).fetchone()
    if found is None:
        raise SessionAbsent(f"{path}: no OpenCode session {session!r} in this database")
    kinds, row = found[0::2], found[1::2]
    if any(_over(kind, value) for kind, value in zip(kinds, row)):
        raise InvalidInput(f"{path}: the row of OpenCode session {session!r} is larger than "
                           f"{opencode.PART_LIMIT} bytes, too large to read")
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
    for id_kind, message_id, kind, data in db.execute(
            f"select {_bounded('id', ID_LIMIT)}, {_bounded('data', opencode.PART_LIMIT)} from message "
            f"where session_id = ? order by {order} limit ?", (session, limits.max_files)):
        if _over(id_kind, message_id) or _over(kind, data):  # over its bounds: never read
            length = _length(db, "message", "id = ?", (message_id,)) if message_id is not None else None
            read("message over", message_id, length)
            records.append(BAD)
            continue
        read("message", message_id, data)
        records.append(_record(message_id, data, {}))
    messages = opencode.in_order(builder, records)
    parts: dict[str, list[Any]] = {m["id"]: [] for m in messages}
    owner = f"case when {_BYTES.format('message_id')} <= {ID_LIMIT} then message_id end"
    for message_id, id_kind, part_id, kind, data in db.execute(
            f"select {owner}, {_bounded('id', ID_LIMIT)}, {_bounded('data', opencode.PART_LIMIT)} from part "
            "where session_id = ? order by message_id, id", (session,)):
        kept = parts.get(message_id)  # a kept message's id is a short one (``opencode.in_order``)
        if kept is None or len(kept) >= limits.max_files:
            continue
        if _over(id_kind, part_id) or _over(kind, data):
            where = ("session_id = ? and message_id = ? and id = ?", (session, message_id, part_id))
            read("part over", message_id, part_id, _length(db, "part", *where) if part_id is not None else None)
            kept.append(BAD)
            continue
        read("part", message_id, part_id, data)
        kept.append(_record(part_id, data, {"messageID": message_id, "sessionID": session}))
    db.execute("commit")
    for message in messages:
        opencode.emit(builder, message, parts[message["id"]])
    return opencode.finish(builder)._replace(source=("sha256:" + digest.hexdigest(), size))


def _length(db: sqlite3.Connection, table: str, where: str, values: tuple[Any, ...]) -> Any:
    """The length of the ``data`` of the row of TABLE that WHERE finds, one left out for it."""
    found = db.execute(f"select {_BYTES.format('data')} from {table} where {where}", values).fetchone()
    return None if found is None else found[0]


def _record(row_id: Any, data: Any, ids: dict[str, Any]) -> Any:
    """A row as the JSON file it was made from: its ``data`` with its ids put back; ``BAD``
    when the data is no JSON object or over the size of a file the JSON reader reads."""
    if not isinstance(data, str | bytes):
        return BAD
    if len(data) * (4 if isinstance(data, str) else 1) > opencode.PART_LIMIT:
        size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
        if size > opencode.PART_LIMIT:
            return BAD
    record = loads(data)
    if not isinstance(record, dict):
        return BAD
    return {**record, **ids, "id": row_id}


def _only_session(db: sqlite3.Connection, path: Path) -> str:
    """The id of the database's only session; a refusal that asks for one when it holds more."""
    order = "time_updated desc, id desc" if _has(db, "session", "time_updated") else "id desc"
    rows = db.execute(f"select case when {_BYTES.format('id')} <= {ID_LIMIT} then id end from session "
                      f"order by {order} limit 2").fetchall()
    if len(rows) == 1 and rows[0][0] is not None:
        return str(rows[0][0])
    if len(rows) == 1:
        raise InvalidInput(f"{path}: an OpenCode database whose one session has an id over {ID_LIMIT} characters")
    if not rows:
        raise SessionAbsent(f"{path}: an OpenCode database holding no session")
    count = db.execute("select count(*) from session").fetchone()[0]
    raise InvalidInput(f"{path}: an OpenCode database of {count} sessions; name one with --session ID "
                       f"(the latest: {rows[0][0]})")


def _has(db: sqlite3.Connection, table: str, column: str) -> bool:
    return any(row[1] == column for row in db.execute(f"pragma table_info({table})"))
