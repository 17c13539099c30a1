"""The ``sqlite`` provider: every record in one SQLite file (stdlib ``sqlite3``, WAL mode).

Layout (format 1; ``meta`` holds ``format = 1``):

- ``appends(seq, clock, writer, namespace, records)``: one row per append that stored at least
  one new record. ``seq`` is the insertion order; ``records`` how many records it added.
- ``records(digest PRIMARY KEY, kind, scope, stream, data BLOB, namespace, writer, clock,
  position)``: one row per record; ``data`` is the record's canonical bytes without payload.
- ``payloads(payload_digest PRIMARY KEY, data BLOB)``: event payloads (canonical bytes), kept
  apart so redaction can delete them. ``secure_delete`` is on, so deleted text is overwritten
  in place; ``gc`` (VACUUM, then a truncating WAL checkpoint) leaves no copy in the files.
- ``notes(payload_digest PRIMARY KEY, data BLOB)``: one row per removed payload, holding its
  redaction note (the canonical JSON of the event's redaction object: at, by, reason,
  sourceId). An append with removals deletes the payload rows and inserts the note rows in
  the transaction that stores its records (the removals' audit entries); a removal of a
  payload that already has a note refuses the whole append. A payload with a note is never
  stored again nor returned. The table is created when missing, so older format 1 files gain
  it on open.

A record's append is ``<writer>@<clock>`` (one row of ``appends``). The file vouches for
nothing about its own rows: anyone can rewrite a clock or a writer in place. So a store that is
a clone's keeps, in the work tree's git folder (``gitstore/sqlite.acked``, beside the anchor,
where no patch and no ``git clean`` reaches), how many appends this clone's appends acknowledged
and a running digest of them in append order (``_chain``: each append's clock, writer,
namespace and record digests in position order), written after each append commits and only
ever extended. A read checks the rows against it (hashing the appends once per process, then
only new ones), and that clocks rise 1, 2, .. n in append order, as appends give them; ``verify``
re-hashes every row. A file holding fewer appends than it counts, or none (deleted), is damage,
never a new store. ``gc`` deletes payload
rows that have a note or that no stored event names, then vacuums.

Order rule (the same as every provider): each append that adds at least one new record takes
clock = (largest clock stored) + 1 and numbers its new records 0.. in batch order, after
dropping repeats within the batch and digests already stored. Store order is (clock, writer,
position). Every append is one ``BEGIN IMMEDIATE`` transaction, so appends from many processes
serialize on the file's write lock; a busy database is waited for, then retried.
"""

from __future__ import annotations

import fcntl
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from gitstore.records.canonical import canonicalize, sha256_digest
from gitstore.errors import ConflictError, GitstoreError, IntegrityError, Refused, UsageError
from gitstore.providers._base import (
    CONTRACT_VERSIONS,
    REQUIRED_CAPABILITIES,
    AppendResult,
    Batch,
    Entry,
    GcReport,
    Manifest,
    Problem,
    Stored,
    VerifyReport,
    dedupe,
)
from gitstore.providers import _acks
from gitstore.providers._common import (
    DIGEST_PATTERN, check_writer, filing_problem, head_moved, note_problem, payload_missing, payload_problem,
    record_problem,
    refuse_links, retry_until,
)

FORMAT = "1"
BUSY_SECONDS = 10.0     # sqlite's own busy handler waits this long for a lock
RETRY_SECONDS = 60.0    # then whole transactions are retried until this deadline
PAGE = 512              # rows fetched per query while streaming
_BUSY_CODES = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
_DAMAGE_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
_COLUMNS = "digest, kind, stream, data, namespace, writer, clock, position, writer || '@' || clock"
_PAYLOAD_DIGEST = re.compile(rb'"payloadDigest":"(sha256:[0-9a-f]{64})"')

T = TypeVar("T")
SIDE_FILES = ("", "-wal", "-shm", "-journal", ".acks")  # the database and the files sqlite and gitstore keep beside it

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS appends (seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    " clock INTEGER NOT NULL, writer TEXT NOT NULL, namespace TEXT NOT NULL,"
    " records INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS appends_order ON appends (clock, writer)",
    "CREATE TABLE IF NOT EXISTS records (digest TEXT PRIMARY KEY, kind TEXT NOT NULL,"
    " scope TEXT NOT NULL, stream TEXT NOT NULL, data BLOB NOT NULL, namespace TEXT NOT NULL,"
    " writer TEXT NOT NULL, clock INTEGER NOT NULL, position INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS records_order ON records (clock, writer, position)",
    "CREATE INDEX IF NOT EXISTS records_stream ON records (stream, clock, writer, position)",
    "CREATE INDEX IF NOT EXISTS records_scope ON records (scope, clock, writer, position)",
    "CREATE TABLE IF NOT EXISTS payloads (payload_digest TEXT PRIMARY KEY, data BLOB NOT NULL)",
    "CREATE TABLE IF NOT EXISTS notes (payload_digest TEXT PRIMARY KEY, data BLOB NOT NULL)",
    "INSERT OR IGNORE INTO meta (key, value) VALUES ('format', '1')",
    # the store's own random id, logged with each acknowledged append: a swapped file is named
    "INSERT OR IGNORE INTO meta (key, value) VALUES ('store', lower(hex(randomblob(16))))",
)
_CREATED = re.compile(r"CREATE (TABLE|INDEX) IF NOT EXISTS (\w+)(?: ON (\w+))?")


def _created(statement: str) -> tuple[str, str, str]:
    """The kind, name and table of an object a ``CREATE`` statement of ``SCHEMA`` makes."""
    made = _CREATED.match(statement)
    if made is None:
        raise ValueError(f"not a CREATE statement of the schema: {statement}")
    kind, name, table = made.groups()
    return kind.lower(), name, table or name


# Every schema object a gitstore file holds, as sqlite_master lists it: sqlite runs whatever the
# file's schema says (a trigger, a view, a column default), so anything else is refused.
KNOWN_SCHEMA = frozenset(
    {("table", "sqlite_sequence", "sqlite_sequence", "CREATE TABLE sqlite_sequence(name,seq)")}
    | {(*_created(statement), statement.replace(" IF NOT EXISTS", "", 1))
       for statement in SCHEMA if statement.startswith("CREATE")}
    | {("index", f"sqlite_autoindex_{table}_1", table, None) for table in ("meta", "records", "payloads", "notes")}
)


class UnknownSchema(IntegrityError):
    """The file holds a schema object gitstore never creates (a trigger, a view, a table
    defined otherwise): sqlite would run it on every write."""


# How many rows each table holds, kept in ``meta`` by every transaction that changes them, so a
# read notices a row deleted behind the store's back (older files gain them, counted once).
COUNTED = ("appends", "records", "payloads")


def _busy(exc: sqlite3.Error) -> bool:
    """Whether an sqlite error only means another connection holds the lock."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    text = str(exc)
    return "locked" in text or "busy" in text


class SqliteProvider:
    """Stores records in one SQLite file; safe for many threads and many processes."""

    def __init__(self, path: str | Path, writer: str, vouching: Path | None = None) -> None:
        self.writer = check_writer(writer)
        self.path = Path(path)
        # in the clone's git folder: how many appends this clone acknowledged and their running
        # digest (``_chain``); None: the store is no clone's, nothing outside the file vouches
        self._vouching = vouching
        self._lock = threading.RLock()
        self._appends = 0  # appends the file held after this handle's last one
        self._chains: list[str] = []  # the running digest of the appends hashed so far, in append order
        self._chained = 0  # the seq of the last append hashed
        self._pending: tuple[int, list[str]] | None = None  # what the append under way makes them
        self._proven: tuple[int, tuple[int, str] | None] | None = None  # (data_version, record) last checked
        refuse_links(self.path.parent, *(self.path.with_name(self.path.name + end) for end in SIDE_FILES))
        acknowledged = _acks.acked(self.path).appends
        if acknowledged and not self.path.exists():
            raise IntegrityError(f"{self.path}: {_acks.lost('the database (deleted)', 0, acknowledged)}")
        vouched = self.vouched_appends()
        if vouched and not self.path.exists():  # sqlite would make an empty file: never a new store
            raise IntegrityError(f"{self.path} (deleted): {self._missing(0, vouched)}")
        try:
            self._conn = sqlite3.connect(
                str(self.path), timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise UsageError(f"{self.path}: cannot open as an sqlite database: {exc}") from None
        try:
            self._setup()
            self.identity = self._identity()
        except GitstoreError:
            self._conn.close()
            raise

    def _identity(self) -> str:
        """The file's store id, once it is the store the log acknowledged appends in."""
        with self._lock, self._errors():
            (identity,) = self._conn.execute("SELECT value FROM meta WHERE key = 'store'").fetchone()
        problem = _swapped(identity, _acks.acked(self.path))
        if problem:
            raise IntegrityError(f"{self.path}: {problem}")
        return str(identity)

    def store_id(self) -> str:
        """The file's random id: the one the clone's git folder anchors, in a store gitstore
        made for this clone."""
        return self.identity

    def writers(self) -> frozenset[str]:
        """The writer ids of the appends the file holds."""
        with self._lock, self._errors():
            return frozenset(row[0] for row in self._conn.execute("SELECT DISTINCT writer FROM appends"))

    def unvouched_writers(self) -> frozenset[str]:
        """None: the store id is in the database itself, so whatever it holds is that store's."""
        return frozenset()

    def vouched_appends(self) -> int:
        """How many appends the git folder's record says this clone's appends acknowledged."""
        return (self._vouched() or (0, ""))[0]

    def _vouched(self) -> tuple[int, str] | None:
        """What the clone's git folder says this clone's appends acknowledged: their count and
        running digest (``_chain``); None when it says nothing (no record, or no git folder);
        ``(0, "")`` for a record that cannot be read, which vouches for nothing."""
        return None if self._vouching is None else _acked_record(self._vouching)

    def _missing(self, held: int, count: int) -> str:
        """The message for a file holding fewer appends than the git folder's record counts."""
        return (f"holds {held} append(s) but this clone's appends acknowledged {count} ({self._vouching}): "
                f"{count - held} acknowledged append(s) are missing (the file deleted, emptied or replaced, as "
                "`rm` or `git clean -fdX` do); this is damage: restore the file (with its -wal file) from a copy, "
                "or run `gitstore purge` to start afresh")

    def vouch_store(self) -> None:
        """Once the store was taken as this clone's, record in the git folder what vouches for
        its appends, when nothing there does yet (a store made before that record existed is
        taken as it stands, this once)."""
        if self._vouching is None or self._vouched() is not None:
            return
        with self._lock, self._errors(), self._snapshot():
            problem = self._extend_chains()
            if problem is None:
                self._vouch(len(self._chains), self._chains[-1] if self._chains else "")

    def _extend_chains(self) -> str | None:
        """Hash the appends past those hashed so far (``_chain``), in append order; what is
        wrong with their clocks (they rise 1, 2, .. n in append order), or None. Run in a
        transaction."""
        chains, last, problem = _chains(self._conn, self._chained, self._chains)
        self._chains, self._chained = chains, last
        return problem

    def _vouch(self, count: int, chain: str) -> None:
        """Record in the git folder that this clone's appends acknowledged ``count`` appends
        whose running digest is ``chain``; only ever extended, never past what this handle
        proved (a record the file no longer proves stays, for verify to report). Quietly left
        when the git folder cannot be written: the next append records it."""
        if self._vouching is None:
            return
        try:
            self._vouching.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self._vouching.with_name(self._vouching.name + ".lock"),
                         os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # processes recording one after another: the larger count stays
            standing = self._vouched()
            if standing is not None and (standing[0] >= count or standing[0] and (
                    standing[0] > len(self._chains) or self._chains[standing[0] - 1] != standing[1])):
                return  # as far already, or the file no longer proves what it counts: never lowered
            _record(self._vouching, (f"{count} {chain}" if count else "0").encode("ascii") + b"\n")
        except OSError:
            pass
        finally:
            os.close(fd)

    def _setup(self) -> None:
        """Turn on WAL, secure delete and full sync; create the tables; check the format."""
        try:
            with self._errors():
                self._refuse_unknown_schema()
                self._conn.execute("PRAGMA secure_delete=ON")
                self._conn.execute("PRAGMA synchronous=FULL")
                mode = self._retry(lambda: self._conn.execute("PRAGMA journal_mode=WAL").fetchone())
                if str(mode[0]).lower() != "wal":
                    raise UsageError(f"{self.path}: cannot switch the database to WAL mode")
                self._write(self._create)
        except IntegrityError as exc:
            acknowledged = _acks.acked(self.path).appends
            if acknowledged:  # it was our store: a damaged file, not a wrong path
                raise IntegrityError(f"{self.path}: {_acks.lost('the database', 0, acknowledged)} ({exc})") from None
            raise UsageError(f"{self.path}: not a gitstore sqlite database ({exc})") from None
        except (ConflictError, UsageError, UnknownSchema):
            raise
        except GitstoreError as exc:
            raise UsageError(f"cannot open the sqlite store: {exc}") from None

    def _refuse_unknown_schema(self) -> None:
        """Refuse a file whose schema holds anything gitstore does not create, before any
        statement could run it (older files may lack objects: those are created)."""
        unknown = _unknown_schema(self._conn)
        if unknown:
            raise UnknownSchema(f"{self.path}: holds {unknown[0]}, which gitstore never creates; sqlite would run "
                                "it on every write, so the store is not opened: it was changed behind the store's back")

    def _create(self, conn: sqlite3.Connection) -> None:
        """Create the tables if missing and refuse a file of another format."""
        for statement in SCHEMA:
            conn.execute(statement)
        row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        if row[0] != FORMAT:
            raise UsageError(f"{self.path}: unknown gitstore sqlite format {row[0]!r}")
        for table in COUNTED:
            conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, (SELECT COUNT(*) FROM "
                         f"{table}))", (f"count:{table}",))

    def manifest(self) -> Manifest:
        return Manifest(
            name="sqlite",
            contracts=CONTRACT_VERSIONS,
            capabilities=REQUIRED_CAPABILITIES | {"redact-payload", "gc"},
            storage=f"sqlite file {self.path}",
        )

    def close(self) -> None:
        """Close the connection; the provider is unusable afterwards."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SqliteProvider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions and errors ---------------------------------------------------------------

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn sqlite errors into gitstore errors naming the file."""
        try:
            yield
        except sqlite3.Error as exc:
            code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
            if isinstance(exc, sqlite3.OperationalError) and _busy(exc):
                raise ConflictError(f"{self.path}: database stayed locked: {exc}") from None
            if code in _DAMAGE_CODES or type(exc) is sqlite3.DatabaseError:
                raise IntegrityError(f"{self.path}: {exc}") from None
            raise GitstoreError(f"{self.path}: {exc}") from None

    def _retry(self, step: Callable[[], T]) -> T:
        """Run ``step`` until it stops failing with a busy database."""
        def attempt() -> tuple[T] | None:
            try:
                return (step(),)
            except sqlite3.OperationalError as exc:
                if _busy(exc):
                    return None
                raise
        return retry_until(RETRY_SECONDS, attempt, f"{self.path}: database is locked")[0]

    def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` in one BEGIN IMMEDIATE transaction, retried while the database is busy."""
        def once() -> T:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                result = work(self._conn)
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            return result
        with self._lock, self._errors():
            return self._retry(once)

    # -- writing -------------------------------------------------------------------------------

    def append(self, batch: Batch) -> AppendResult:
        with self._lock:
            return self._acknowledged(self._write(lambda conn: self._store(conn, batch)))

    def append_if_head(self, batch: Batch, stream: str, expected: str | None) -> AppendResult:
        def guarded(conn: sqlite3.Connection) -> AppendResult:
            current = _head(conn, stream)
            if current != expected:
                raise head_moved(stream, current, expected)
            return self._store(conn, batch)
        with self._lock:
            return self._acknowledged(self._write(guarded))

    def _acknowledged(self, result: AppendResult) -> AppendResult:
        """Log the append once it is durable (committed), so losing it later is damage."""
        if result.added:
            _acks.note(self.path, self._appends, identity=self.identity)
            if self._pending is not None:
                self._chained, self._chains = self._pending
                self._pending = None
                self._vouch(len(self._chains), self._chains[-1])
        return result

    def _store(self, conn: sqlite3.Connection, batch: Batch) -> AppendResult:
        """Insert a batch's new records (and make its removals) as one append; the caller holds
        the write transaction."""
        for removal in batch.removals:
            if _note(conn, removal.payload_digest) is not None:
                raise ConflictError(f"payload {removal.payload_digest} was already removed")
        self._pending = None
        entries = dedupe(batch.entries)
        stored = _known(conn, [e.digest for e in entries])
        new = [e for e in entries if e.digest not in stored]
        existing = tuple(e.digest for e in entries if e.digest in stored)
        if not new:
            if batch.removals:
                raise Refused("an append that removes payloads adds the audit entries of the removals")
            return AppendResult(existing=existing)
        clock = _max_clock(conn) + 1
        conn.execute(
            "INSERT INTO appends (clock, writer, namespace, records) VALUES (?, ?, ?, ?)",
            (clock, self.writer, batch.namespace, len(new)),
        )
        conn.executemany(
            "INSERT INTO records (digest, kind, scope, stream, data, namespace, writer, clock,"
            " position) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [_record_row(e, batch.namespace, self.writer, clock, n) for n, e in enumerate(new)],
        )
        removed = {r.payload_digest for r in batch.removals}
        payloads = conn.executemany(  # a payload removed once (it has a note) is never stored again
            "INSERT OR IGNORE INTO payloads (payload_digest, data) SELECT ?, ?"
            " WHERE NOT EXISTS (SELECT 1 FROM notes WHERE payload_digest = ?)",
            [(e.payload_digest, bytes(e.payload), e.payload_digest)
             for e in new if e.payload is not None and e.payload_digest and e.payload_digest not in removed],
        ).rowcount
        for removal in batch.removals:
            payloads -= conn.execute("DELETE FROM payloads WHERE payload_digest = ?",
                                     (removal.payload_digest,)).rowcount
            conn.execute("INSERT INTO notes (payload_digest, data) VALUES (?, ?)",
                         (removal.payload_digest, bytes(removal.note)))
        _count(conn, appends=1, records=len(new), payloads=payloads)
        self._appends = _counts(conn)["appends"]
        # kept once the append commits; never one that would vouch for rows this clone did not write
        chains, last, problem = _chains(conn, self._chained, self._chains)
        found = [problem] if problem else _against(chains, self._vouched(), self._missing)
        if found:
            self._chains, self._chained = [], 0
            raise IntegrityError(f"{self.path}: {found[0]}; nothing was appended, run `gitstore verify`")
        self._pending = (last, chains)
        return AppendResult(added=tuple(e.digest for e in new), existing=existing)

    def redaction_note(self, payload_digest: str) -> bytes | None:
        """The note kept in place of a removed payload, or None."""
        with self._lock, self._errors():
            return _note(self._conn, payload_digest)

    def gc(self) -> GcReport:
        """Delete payloads that have a note or that no stored event names (nothing else), then
        rebuild the file (VACUUM) and empty the WAL, so no deleted text survives in either."""
        def sweep(conn: sqlite3.Connection) -> int:
            named: set[str] = set()
            query = ("SELECT digest, data FROM records WHERE kind = 'event' AND digest > ?"
                     " ORDER BY digest LIMIT ?")
            for _, data in _pages(conn, query):
                found = _PAYLOAD_DIGEST.search(bytes(data))
                if found:
                    named.add(found.group(1).decode())
            stale = [d for (d,) in conn.execute("SELECT payload_digest FROM payloads").fetchall()
                     if d not in named]
            stale += [d for (d,) in conn.execute(_NOTED_PAYLOADS).fetchall() if d in named]
            conn.executemany("DELETE FROM payloads WHERE payload_digest = ?", [(d,) for d in stale])
            conn.execute("UPDATE meta SET value = (SELECT COUNT(*) FROM payloads) WHERE key = 'count:payloads'")
            return len(stale)

        erased = self._write(sweep)
        with self._lock, self._errors():
            self._retry(lambda: self._conn.execute("VACUUM"))
            self._retry(lambda: self._checkpoint())
        return GcReport(payloads=erased)

    def _checkpoint(self) -> None:
        """Copy the WAL into the file and truncate it; busy if a reader still needs it."""
        busy = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if busy:
            raise sqlite3.OperationalError("database is locked (checkpoint blocked by a reader)")

    # -- reading -------------------------------------------------------------------------------

    def read(self, scope: str | None = None, kinds: Iterable[str] | None = None) -> Iterator[Stored]:
        self._check_whole()
        where: list[str] = []
        params: list[Any] = []
        if scope is not None:  # by the bytes too: a row filed under another scope is found, and refused
            where.append("(scope = ? OR instr(data, ?) > 0)")
            params.extend([scope, b'"scope":' + canonicalize(scope)])
        if kinds is not None:
            wanted = sorted(set(kinds))
            if not wanted:
                return iter(())
            where.append(f"kind IN ({', '.join('?' * len(wanted))})")
            params.extend(wanted)
        return self._ordered(" AND ".join(where) or "1", params)

    def read_stream(self, stream: str) -> Iterator[Stored]:
        self._check_whole()
        return self._ordered("stream = ?", [stream])

    def _check_whole(self) -> None:
        """Refuse a file that lost rows or acknowledged appends, or whose appends are not the
        ones this clone's appends wrote (IntegrityError naming what)."""
        acknowledged = _acks.acked(self.path)  # before the tables: an append it counts is in them
        vouched = self._vouched()
        with self._lock, self._errors(), self._snapshot():
            problems = _whole(self._conn, acknowledged)
            if not problems:
                problems = self._unlike(vouched)
        if problems:
            raise IntegrityError(f"{self.path}: {problems[0]}; run `gitstore verify`")

    def _unlike(self, vouched: tuple[int, str] | None) -> list[str]:
        """What the appends hold that this clone's appends did not write: clocks out of order,
        fewer appends than the git folder's record (``vouched``, read before the file) counts,
        or not the ones it names. Hashes only appends not hashed before (once per process, then
        the new ones), and nothing when the file did not change since the last check. Run in a
        read transaction."""
        (version,) = self._conn.execute("PRAGMA data_version").fetchone()
        if self._proven == (version, vouched):
            return []
        problem = self._extend_chains()
        if problem is not None:
            self._chains, self._chained = [], 0  # hashed again from the start next time
            return [problem]
        found = _against(self._chains, vouched, self._missing)
        if found:
            self._chains, self._chained = [], 0
            return found
        self._proven = (version, vouched)
        return []

    @contextmanager
    def _snapshot(self) -> Iterator[None]:
        """One read transaction: every statement inside sees the same state of the file, so
        counts kept in ``meta`` and the rows they count agree whatever commits meanwhile."""
        self._conn.execute("BEGIN")
        try:
            yield
        finally:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")

    def _ordered(self, where: str, params: Sequence[Any]) -> Iterator[Stored]:
        """Matching records in store order, fetched a page at a time (keyset pagination).

        A new append always sorts after every stored record, so paging never skips one.
        """
        last: tuple[int, str, int] = (-1, "", -1)
        query = (
            f"SELECT {_COLUMNS}, scope FROM records WHERE ({where}) AND (clock, writer, position) > (?, ?, ?)"
            " ORDER BY clock, writer, position LIMIT ?"
        )
        while True:
            with self._lock, self._errors():
                rows = self._conn.execute(query, (*params, *last, PAGE)).fetchall()
            for row in rows:
                yield self._filed(Stored(*row[:-1]), row[-1])
            if len(rows) < PAGE:
                return
            last = (rows[-1][6], rows[-1][5], rows[-1][7])

    def _filed(self, stored: Stored, scope: str) -> Stored:
        """A row, once its scope and stream are the record's own: reads find rows by them, so a
        row filed apart from its bytes is damage (IntegrityError naming it), not a record that
        quietly leaves the reads of its scope or stream."""
        misfiled = filing_problem(stored.data, stored.kind, scope, stored.stream)
        if misfiled is not None:
            raise IntegrityError(f"{self.path}: record {stored.digest} {misfiled}; run `gitstore verify`")
        return stored

    def head(self, stream: str) -> str | None:
        with self._lock, self._errors():
            return _head(self._conn, stream)

    def payload(self, payload_digest: str) -> bytes | None:
        with self._lock, self._errors():
            row = self._conn.execute(
                "SELECT data FROM payloads WHERE payload_digest = ?"
                " AND NOT EXISTS (SELECT 1 FROM notes WHERE payload_digest = ?)",
                (payload_digest, payload_digest),
            ).fetchone()
        if row is None:
            return None
        data = row[0]
        if not isinstance(data, bytes) or sha256_digest(data) != payload_digest:
            raise IntegrityError(f"payload {payload_digest} in {self.path} does not match its digest")
        return data

    # -- verifying -----------------------------------------------------------------------------

    def verify(self) -> VerifyReport:
        """Re-read every row and check it; run sqlite's own integrity check. Never repairs."""
        report = VerifyReport()
        acknowledged = _acks.acked(self.path)  # before the snapshot: an append it counts is in it
        vouched = self._vouched()
        checks = (self._verify_file, lambda r: self._verify_whole(r, acknowledged),
                  lambda r: self._verify_chain(r, vouched), self._verify_records,
                  self._verify_payloads, self._verify_notes, self._verify_cited, self._verify_appends)
        with self._lock:
            snapshot = self._begin_read()
            try:
                for check in checks:
                    try:
                        check(report)
                    except sqlite3.Error as exc:
                        report.problems.append(Problem(str(self.path), f"cannot read: {exc}"))
            finally:
                if snapshot and self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
        return report

    def _begin_read(self) -> bool:
        """Open a read transaction so every check sees one snapshot; False if that failed."""
        try:
            self._conn.execute("BEGIN")
        except sqlite3.Error:
            return False
        return True

    def _verify_file(self, report: VerifyReport) -> None:
        """sqlite's own check of pages, indexes and constraints; no schema object gitstore
        does not create."""
        report.problems.extend(Problem(str(self.path), f"holds {what}, which gitstore never creates")
                               for what in _unknown_schema(self._conn))
        for (line,) in self._conn.execute("PRAGMA integrity_check").fetchall():
            if line != "ok":
                report.problems.append(Problem(str(self.path), f"integrity_check: {line}"))

    def _verify_whole(self, report: VerifyReport, acknowledged: _acks.Acked) -> None:
        """Rows deleted behind the store's back, appends lost since they were acknowledged."""
        report.problems.extend(Problem(str(self.path), problem) for problem in _whole(self._conn, acknowledged))

    def _verify_chain(self, report: VerifyReport, vouched: tuple[int, str] | None) -> None:
        """Every append hashed again from the first: clocks rise 1, 2, .. n in append order,
        and the appends this clone's appends acknowledged are the ones they wrote."""
        chains, _, problem = _chains(self._conn, 0, [])
        found = ([problem] if problem else []) + _against(chains, vouched, self._missing)
        report.problems.extend(Problem(str(self.path), text) for text in found)

    def _verify_records(self, report: VerifyReport) -> None:
        """Every record row: a known namespace, bytes that satisfy the record's contract, filed
        under the record's own scope and stream."""
        query = ("SELECT digest, kind, data, namespace, scope, stream FROM records WHERE digest > ?"
                 " ORDER BY digest LIMIT ?")
        for digest, kind, data, namespace, scope, stream in _pages(self._conn, query):
            report.records += 1
            if namespace not in ("local", "shared"):
                report.problems.append(Problem(f"record {digest}", f"unknown namespace {namespace!r}"))
            problem = record_problem(data, digest, kind, scope, stream)
            if problem is not None:
                report.problems.append(problem)

    def _verify_payloads(self, report: VerifyReport) -> None:
        """Every payload row hashes to its key."""
        query = ("SELECT payload_digest, data FROM payloads WHERE payload_digest > ?"
                 " ORDER BY payload_digest LIMIT ?")
        for payload_digest, data in _pages(self._conn, query):
            problem = payload_problem(data, payload_digest)
            if problem is not None:
                report.problems.append(problem)

    def _verify_notes(self, report: VerifyReport) -> None:
        """Every note row is a canonical redaction object; no payload is kept beside its note."""
        query = ("SELECT payload_digest, data FROM notes WHERE payload_digest > ?"
                 " ORDER BY payload_digest LIMIT ?")
        for payload_digest, data in _pages(self._conn, query):
            problem = note_problem(data)
            if problem is not None:
                report.problems.append(Problem(f"redaction note {payload_digest}", problem))
        for (payload_digest,) in self._conn.execute(_NOTED_PAYLOADS):
            report.problems.append(
                Problem(f"payload {payload_digest}", "is still stored beside its redaction note"))

    def _verify_cited(self, report: VerifyReport) -> None:
        """Every event's payload is kept or removed: a payload row replaced by another sound one
        leaves every count as it was, and the event would read as removed by nobody."""
        kept = {d for (d,) in self._conn.execute("SELECT payload_digest FROM payloads")}
        kept.update(d for (d,) in self._conn.execute("SELECT payload_digest FROM notes"))
        query = ("SELECT digest, data FROM records WHERE kind = 'event' AND digest > ?"
                 " ORDER BY digest LIMIT ?")
        for digest, data in _pages(self._conn, query):
            found = _PAYLOAD_DIGEST.search(bytes(data))
            if found and found.group(1).decode() not in kept:
                report.problems.append(payload_missing(digest, found.group(1).decode()))

    def _verify_appends(self, report: VerifyReport) -> None:
        """No writer reuses a clock; each append's rows are positions 0..n-1; no row is orphaned."""
        for writer, clock, count in self._conn.execute(_SHARED_CLOCKS).fetchall():
            report.problems.append(Problem(f"append {writer}@{clock}", f"{count} appends share this clock"))
        for writer, clock, size, found, low, high, distinct, foreign in self._conn.execute(_SHAPES):
            if not (found == distinct == size and low == 0 and high == size - 1 and not foreign):
                report.problems.append(Problem(
                    f"append {writer}@{clock}",
                    f"lists {size} records but holds {found} at positions {low}..{high}"
                    f"{f' ({foreign} in another namespace)' if foreign else ''}",
                ))
        for (digest,) in self._conn.execute(_ORPHANS):
            report.problems.append(Problem(f"record {digest}", "belongs to no append"))


_SHARED_CLOCKS = (
    "SELECT writer, clock, COUNT(*) FROM appends GROUP BY writer, clock HAVING COUNT(*) > 1"
)
_SHAPES = (
    "SELECT a.writer, a.clock, a.records, COUNT(r.digest), MIN(r.position), MAX(r.position),"
    " COUNT(DISTINCT r.position), COALESCE(SUM(r.namespace != a.namespace), 0)"
    " FROM appends a LEFT JOIN records r ON r.clock = a.clock AND r.writer = a.writer"
    " GROUP BY a.seq ORDER BY a.seq"
)
_NOTED_PAYLOADS = (
    "SELECT p.payload_digest FROM payloads p JOIN notes n ON n.payload_digest = p.payload_digest"
    " ORDER BY p.payload_digest"
)
_ORPHANS = (
    "SELECT digest FROM records r WHERE NOT EXISTS"
    " (SELECT 1 FROM appends a WHERE a.clock = r.clock AND a.writer = r.writer) ORDER BY digest"
)


def _whole(conn: sqlite3.Connection, acked: _acks.Acked) -> list[str]:
    """What is missing from the file: appends the log acknowledged (``acked``, read before
    this transaction began), rows of any counted table; or the file is another store's. Run in
    one read transaction."""
    identity = conn.execute("SELECT value FROM meta WHERE key = 'store'").fetchone()
    swapped = _swapped(identity[0] if identity else None, acked)
    found = [swapped] if swapped else []
    acknowledged = acked.appends
    counts = _counts(conn)
    for table in COUNTED:
        (held,) = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
        if held < counts[table]:
            found.append(f"table {table} holds {held} rows, but its appends stored {counts[table]}: rows were deleted")
    (appends,) = conn.execute("SELECT COUNT(*) FROM appends").fetchone()
    if appends < acknowledged:
        found.append(_acks.lost("the database", appends, acknowledged))
    return found


_CHAIN_ROWS = (
    "SELECT a.seq, a.clock, a.writer, a.namespace, a.records, r.digest FROM appends a"
    " LEFT JOIN records r ON r.clock = a.clock AND r.writer = a.writer"
    " WHERE a.seq > ? ORDER BY a.seq, r.position"
)


def _chain(previous: str, clock: int, writer: str, namespace: str, records: int, digests: list[str]) -> str:
    """The running digest of the appends up to this one, from the one of the appends before it
    ("" before the first): its clock, writer, namespace, record count and the digests of its
    records in position order (the digest is the hash of a record's bytes, which reads and
    verify check), so a clock, a writer or a record moved, swapped or rewritten changes it."""
    line = f"{clock} {writer} {namespace} {records} {','.join(digests)}\n"
    return sha256_digest(previous.encode("ascii") + line.encode("utf-8"))


def _chains(conn: sqlite3.Connection, after: int, chains: list[str]) -> tuple[list[str], int, str | None]:
    """``chains`` extended with the running digest of each append past seq ``after``, in
    append order; the seq of the last; what is wrong with their clocks, or None: each append
    takes the largest clock stored + 1, so the n-th holds clock n."""
    chains = list(chains)
    last, problem = after, None
    current: list[Any] | None = None

    def close() -> None:
        nonlocal problem
        assert current is not None
        seq, clock, writer, namespace, records, digests = current
        if clock != len(chains) + 1 and problem is None:
            problem = (f"append {len(chains) + 1} in append order ({writer}) has clock {clock}, but each append "
                       f"takes the next clock ({len(chains) + 1}): clocks were moved or swapped behind the store's "
                       "back, which changes store order")
        chains.append(_chain(chains[-1] if chains else "", clock, writer, namespace, records, digests))

    for seq, clock, writer, namespace, records, digest in conn.execute(_CHAIN_ROWS, (after,)):
        if current is None or current[0] != seq:
            if current is not None:
                close()
            current = [seq, clock, writer, namespace, records, []]
            last = seq
        if digest is not None:
            current[5].append(digest)
    if current is not None:
        close()
    return chains, last, problem


def _against(chains: list[str], vouched: tuple[int, str] | None,
             missing: Callable[[int, int], str]) -> list[str]:
    """What the appends hashed (``chains``) say against the git folder's record (``vouched``)."""
    if not vouched or not vouched[0]:
        return []
    count, chain = vouched
    if len(chains) < count:
        return [missing(len(chains), count)]
    if chains[count - 1] != chain:
        return [f"the first {count} append(s) are not the ones this clone's appends wrote (a clock, a writer, "
                "a namespace or a record changed, or appends swapped or put before them): damage or a patch"]
    return []


_RECORD_TAIL = 4096  # bytes of the record read from its end: many more than one line
_RECORD_LIMIT = 65536  # past this size, the record is written again holding its last line only


def _acked_record(path: Path) -> tuple[int, str] | None:
    """The git folder's record of the appends acknowledged, as its last complete line that
    parses says: None when there is none; (count, running digest); ``(0, "")`` for "0", or a
    record that cannot be read or holds no such line (a line cut short by a crash, or one
    being written, is skipped: the one before it counts fewer appends, never wrongly)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError:
        return (0, "")
    try:
        size = os.fstat(fd).st_size
        tail = os.pread(fd, min(size, _RECORD_TAIL), max(0, size - _RECORD_TAIL))
    except OSError:
        return (0, "")
    finally:
        os.close(fd)
    lines = tail.split(b"\n")[1 if size > _RECORD_TAIL else 0:-1]
    for line in reversed(lines):
        parts = line.decode("ascii", "replace").split()
        if len(parts) == 2 and parts[0].isdigit() and DIGEST_PATTERN.match(parts[1]):
            return int(parts[0]), parts[1]
        if parts == ["0"]:
            return (0, "")
    return (0, "")


def _record(path: Path, line: bytes) -> None:
    """Add ``line`` at the end of the record (its lock is held): an append to a file, which
    costs an append far less than writing a file again; once the record grows past
    ``_RECORD_LIMIT``, it is written again holding that line alone (temporary file, rename).
    Not fsynced: the append it counts committed durably before (``synchronous`` is FULL), so a
    line a crash loses or cuts short only has the record count fewer appends, never more."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
                 | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        size = os.fstat(fd).st_size
        if size < _RECORD_LIMIT:
            cut = size and os.pread(fd, 1, size - 1) != b"\n"  # a line a crash cut short ends here
            os.write(fd, b"\n" + line if cut else line)
            return
    finally:
        os.close(fd)
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
                 | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
    os.replace(temporary, path)


def _swapped(identity: str | None, acked: _acks.Acked) -> str | None:
    """Why the file is not the store the log acknowledged appends in, or None."""
    if not acked.store or identity == acked.store:
        return None
    return (f"the database is store {identity or '(without an id)'}, but this clone acknowledged appends in store "
            f"{acked.store}: the file was replaced (by a copy, a checkout or a WAL file replayed into it)")


def _unknown_schema(conn: sqlite3.Connection) -> list[str]:
    """The schema objects of the file other than gitstore's own, as ``<type> <name>``."""
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid").fetchall()
    return [f"{kind} {name}" for kind, name, table, sql in rows if (kind, name, table, sql) not in KNOWN_SCHEMA]


def _record_row(entry: Entry, namespace: str, writer: str, clock: int, position: int) -> tuple[Any, ...]:
    """The records-table row for one new entry."""
    return (entry.digest, entry.kind, entry.scope, entry.stream, bytes(entry.data), namespace,
            writer, clock, position)


def _known(conn: sqlite3.Connection, digests: list[str]) -> set[str]:
    """Which of ``digests`` are stored."""
    found: set[str] = set()
    for start in range(0, len(digests), PAGE):
        chunk = digests[start:start + PAGE]
        marks = ", ".join("?" * len(chunk))
        rows = conn.execute(f"SELECT digest FROM records WHERE digest IN ({marks})", chunk)
        found.update(row[0] for row in rows)
    return found




def _count(conn: sqlite3.Connection, **changes: int) -> None:
    """Move the row counts kept in ``meta`` by ``changes`` (table -> rows added, or removed)."""
    for table, change in changes.items():
        if change:
            conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = ?",
                         (change, f"count:{table}"))


def _counts(conn: sqlite3.Connection) -> dict[str, int]:
    """The row counts ``meta`` keeps."""
    rows = conn.execute("SELECT key, value FROM meta WHERE key LIKE 'count:%'").fetchall()
    return {key[len("count:"):]: int(value) for key, value in rows}


def _note(conn: sqlite3.Connection, payload_digest: str) -> bytes | None:
    """The note kept for a payload digest, or None."""
    row = conn.execute("SELECT data FROM notes WHERE payload_digest = ?", (payload_digest,)).fetchone()
    return None if row is None else bytes(row[0])


def _max_clock(conn: sqlite3.Connection) -> int:
    """The largest clock stored (0 for an empty store)."""
    row = conn.execute(
        "SELECT MAX(COALESCE((SELECT MAX(clock) FROM appends), 0),"
        " COALESCE((SELECT MAX(clock) FROM records), 0))"
    ).fetchone()
    return int(row[0])


def _head(conn: sqlite3.Connection, stream: str) -> str | None:
    """The digest of a stream's last record in store order, or None."""
    row = conn.execute(
        "SELECT digest FROM records WHERE stream = ?"
        " ORDER BY clock DESC, writer DESC, position DESC LIMIT 1",
        (stream,),
    ).fetchone()
    return None if row is None else str(row[0])


def _pages(conn: sqlite3.Connection, query: str) -> Iterator[tuple[Any, ...]]:
    """Rows of ``query`` (keyed on its first column, with ``> ?`` and ``LIMIT ?``), page by page."""
    last = ""
    while True:
        rows = conn.execute(query, (last, PAGE)).fetchall()
        yield from rows
        if len(rows) < PAGE:
            return
        last = rows[-1][0]
