"""The sqlite provider: its file format, WAL mode, locking across processes, redaction, verify.

Generic provider semantics are the conformance suite's (gitstore.conformance); this file
checks only what is particular to the sqlite file.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from gitstore import ConflictError, IntegrityError, UsageError
from gitstore.providers.sqlite import SqliteProvider

from .provider_records import batch, event, examples, grant, run_writers

WRITER = "w1"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "store.sqlite"


def _raw(path: Path) -> sqlite3.Connection:
    """A plain connection on the provider's file, as another program would open it."""
    return sqlite3.connect(path, isolation_level=None, check_same_thread=False)


def _file_bytes(path: Path) -> bytes:
    """The database file and its WAL, everything a reader of the disk could see."""
    wal = path.with_name(path.name + "-wal")
    return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def test_smoke_append_read_head_and_compare_and_swap(db: Path) -> None:
    provider = SqliteProvider(db, WRITER)
    first, second = grant("one"), grant("two")
    assert provider.append(batch(first, stream="s")).added == (first["digest"],)
    assert provider.append(batch(first, stream="s")).added == ()
    assert provider.head("s") == first["digest"]
    with pytest.raises(ConflictError, match="stream s moved"):
        provider.append_if_head(batch(second, stream="s"), "s", None)
    provider.append_if_head(batch(second, stream="s"), "s", first["digest"])
    assert [(s.digest, s.clock, s.position) for s in provider.read()] == [
        (first["digest"], 1, 0), (second["digest"], 2, 0)]
    assert provider.manifest().name == "sqlite"
    assert "redact-payload" in provider.manifest().capabilities


def test_the_file_is_in_wal_mode_with_the_documented_tables(db: Path) -> None:
    provider = SqliteProvider(db, WRITER)
    records = examples()
    provider.append(batch(*records))
    conn = _raw(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()[0] == "1"
    columns = [row[1] for row in conn.execute("PRAGMA table_info(records)")]
    assert columns == ["digest", "kind", "scope", "stream", "data", "namespace", "writer", "clock",
                       "position"]
    rows = conn.execute(
        "SELECT digest, typeof(data), data, clock, position FROM records ORDER BY position").fetchall()
    expected = batch(*records).entries
    assert [(r[0], r[1], r[2], r[3], r[4]) for r in rows] == [
        (e.digest, "blob", e.data, 1, n) for n, e in enumerate(expected)]
    assert conn.execute("SELECT clock, writer, namespace, records FROM appends").fetchall() == [
        (1, WRITER, "shared", len(records))]
    (payload_row,) = conn.execute("SELECT payload_digest, data FROM payloads").fetchall()
    event_entry = next(e for e in expected if e.payload is not None)
    assert payload_row == (event_entry.payload_digest, event_entry.payload)


def test_redacted_payload_text_is_gone_from_the_files_after_gc(db: Path) -> None:
    provider = SqliteProvider(db, WRITER)
    secret = "hunter2-sqlite-secret-marker " * 20
    record = event("secret", secret)
    provider.append(batch(record, grant("kept")))
    assert secret.encode() in _file_bytes(db)
    assert provider.redact_payload(record["payloadDigest"]) is True
    provider.gc()
    assert secret.encode() not in _file_bytes(db)
    assert secret[:20].encode() not in _file_bytes(db)
    assert provider.payload(record["payloadDigest"]) is None
    assert record["digest"] in {s.digest for s in provider.read()}
    assert provider.verify().ok


def test_secure_delete_overwrites_the_text_even_before_vacuum(db: Path) -> None:
    provider = SqliteProvider(db, WRITER)
    secret = "correct-horse-battery-staple"
    record = event("secure", secret)
    provider.append(batch(record))
    provider.redact_payload(record["payloadDigest"])
    busy = _raw(db).execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    assert busy == 0
    assert secret.encode() not in _file_bytes(db)


def test_verify_reports_damaged_rows_by_digest(db: Path) -> None:
    provider = SqliteProvider(db, WRITER)
    good, bad, ev = grant("good"), grant("bad"), event("ev", "payload text")
    provider.append(batch(good, bad, ev))
    clean = provider.verify()
    assert clean.ok and clean.records == 3 and clean.refs == 0
    conn = _raw(db)
    conn.execute("UPDATE records SET data = CAST(replace(data, 'grant bad', 'grant BAD') AS BLOB)"
                 " WHERE digest = ?", (bad["digest"],))
    conn.execute("UPDATE payloads SET data = CAST(replace(data, 'payload', 'PAYLOAD') AS BLOB)")
    conn.execute("INSERT INTO appends (clock, writer, namespace, records)"
                 " VALUES (1, ?, 'shared', 3)", (WRITER,))
    problems = [str(p) for p in provider.verify().problems]
    assert any(bad["digest"] in p for p in problems)
    assert not any(good["digest"] in p for p in problems)
    assert any(ev["payloadDigest"] in p and "does not match" in p for p in problems)
    assert any("2 appends share this clock" in p for p in problems)
    with pytest.raises(IntegrityError, match="does not match its digest"):
        provider.payload(ev["payloadDigest"])


def test_an_append_waits_for_another_connection_holding_the_write_lock(db: Path) -> None:
    provider = SqliteProvider(db, WRITER)
    other = _raw(db)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.5, lambda: other.execute("COMMIT"))
    release.start()
    started = time.monotonic()
    provider.append(batch(grant("waited")))
    assert time.monotonic() - started >= 0.4
    release.join()
    assert [s.digest for s in provider.read()] == [grant("waited")["digest"]]


def test_eight_processes_append_without_database_is_locked(db: Path) -> None:
    SqliteProvider(db, WRITER).close()
    run_writers("gitstore.providers.sqlite", "SqliteProvider", db, processes=8, count=15)
    provider = SqliteProvider(db, WRITER)
    stored = list(provider.read())
    assert len(stored) == 8 * 15 * 2
    assert sorted({s.clock for s in stored}) == list(range(1, 8 * 15 + 1))
    assert {s.writer for s in stored} == {f"p{n}" for n in range(8)}
    assert provider.verify().ok


def test_refuses_a_file_that_is_not_a_database_and_a_bad_writer(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not an sqlite database" * 100)
    with pytest.raises(UsageError, match="junk.sqlite"):
        SqliteProvider(junk, WRITER)
    with pytest.raises(UsageError, match="writer id"):
        SqliteProvider(tmp_path / "ok.sqlite", "Not A Writer")
