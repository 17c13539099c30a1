"""The sqlite provider: its file format, WAL mode, locking across processes, redaction, verify.

Generic provider semantics are the conformance suite's (gitstore.conformance); this file
checks only what is particular to the sqlite file.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from bench._process import copy_as_moved
from gitstore import ConflictError, IntegrityError, UsageError, canonicalize
from gitstore.providers import _acks
from gitstore.providers import sqlite as sqlite_provider
from gitstore.providers.sqlite import SqliteProvider

from .provider_records import StepWriter, at_first_call, batch, entry, event, examples, grant, remove, run_writers

WRITER = "w1"


def _note(reason: str) -> bytes:
    return canonicalize({"at": "2026-08-01T00:00:00.000000Z", "by": "github:583231",
                         "reason": reason, "sourceId": None})


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
    assert provider.append(batch(first)).added == (first["digest"],)
    assert provider.append(batch(first)).added == ()
    assert provider.head("consent") == first["digest"]
    with pytest.raises(ConflictError, match="stream consent moved"):
        provider.append_if_head(batch(second), "consent", None)
    provider.append_if_head(batch(second), "consent", first["digest"])
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
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"meta", "appends", "records", "payloads", "notes"} <= tables
    assert [row[1] for row in conn.execute("PRAGMA table_info(notes)")] == ["payload_digest", "data"]
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
    remove(provider, record["payloadDigest"], _note("asked"))
    assert provider.redaction_note(record["payloadDigest"]) == _note("asked")
    assert provider.gc().payloads == 0  # the removal deleted the row already
    assert secret.encode() not in _file_bytes(db)
    assert secret[:20].encode() not in _file_bytes(db)
    assert provider.payload(record["payloadDigest"]) is None
    assert record["digest"] in {s.digest for s in provider.read()}
    assert provider.verify().ok


def test_gc_deletes_payload_rows_no_record_names_and_nothing_else(db: Path) -> None:
    provider = SqliteProvider(db, WRITER)
    kept = event("kept", "kept text")
    provider.append(batch(kept, grant("g")))
    orphan = event("orphan", "text no record names")
    _raw(db).execute("INSERT INTO payloads (payload_digest, data) VALUES (?, ?)",
                     (orphan["payloadDigest"], canonicalize(orphan["payload"])))
    assert provider.gc().payloads == 1
    assert b"text no record names" not in _file_bytes(db)
    assert provider.payload(kept["payloadDigest"]) is not None and len(list(provider.read())) == 2
    assert provider.gc().payloads == 0 and provider.verify().ok


def test_secure_delete_overwrites_the_text_even_before_vacuum(db: Path) -> None:
    provider = SqliteProvider(db, WRITER)
    secret = "correct-horse-battery-staple"
    record = event("secure", secret)
    provider.append(batch(record))
    remove(provider, record["payloadDigest"], _note("asked"))
    busy = _raw(db).execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    assert busy == 0
    assert secret.encode() not in _file_bytes(db)


def test_a_removal_keeps_its_note_and_audit_entry_in_one_transaction(db: Path) -> None:
    provider = SqliteProvider(db, WRITER)
    record = event("noted", "text to remove")
    provider.append(batch(record))
    digest = record["payloadDigest"]
    conn = _raw(db)
    conn.execute("BEGIN IMMEDIATE")  # another connection holds the write lock: nothing changes yet
    release = threading.Timer(0.3, lambda: conn.execute("COMMIT"))
    release.start()
    remove(provider, digest, _note("first"))
    release.join()
    assert conn.execute("SELECT payload_digest, data FROM notes").fetchall() == [(digest, _note("first"))]
    assert conn.execute("SELECT COUNT(*) FROM payloads").fetchone()[0] == 0
    again = SqliteProvider(db, "w2")
    with pytest.raises(ConflictError, match="already removed"):
        remove(again, digest, _note("second"))
    assert again.redaction_note(digest) == _note("first")
    twin = event("noted-twin", "text to remove")  # another event with the same payload
    assert twin["payloadDigest"] == digest and twin["digest"] != record["digest"]
    again.append(batch(twin))
    assert again.payload(digest) is None
    assert conn.execute("SELECT COUNT(*) FROM payloads").fetchone()[0] == 0
    assert again.verify().ok


def test_an_older_file_without_a_notes_table_gains_one(db: Path) -> None:
    SqliteProvider(db, WRITER).close()
    _raw(db).execute("DROP TABLE notes")
    provider = SqliteProvider(db, WRITER)
    record = event("old", "old text")
    provider.append(batch(record))
    remove(provider, record["payloadDigest"], _note("x"))
    assert provider.redaction_note(record["payloadDigest"]) == _note("x")
    assert provider.verify().ok


def test_verify_checks_redaction_notes(db: Path) -> None:
    provider = SqliteProvider(db, WRITER)
    kept, leaked = event("kept", "kept text"), event("leaked", "leaked text")
    provider.append(batch(kept, leaked))
    remove(provider, kept["payloadDigest"], _note("ok"))
    conn = _raw(db)
    bad = [("sha256:" + "a" * 64, b'{"at":"x","by":"y","reason":"z"}'),
           ("sha256:" + "b" * 64, b'{"by":"y","at":"x","reason":"z","sourceId":null}'),
           ("sha256:" + "c" * 64, b"not json"),
           (leaked["payloadDigest"], _note("beside"))]
    conn.executemany("INSERT INTO notes (payload_digest, data) VALUES (?, ?)", bad)
    problems = [str(p) for p in provider.verify().problems]
    assert any("a" * 64 in p and "not a redaction object" in p for p in problems)
    assert any("b" * 64 in p and "canonical" in p for p in problems)
    assert any("c" * 64 in p for p in problems)
    assert any(leaked["payloadDigest"] in p and "beside its redaction note" in p for p in problems)
    assert not any(kept["payloadDigest"] in p for p in problems)
    assert len(problems) == 4
    assert provider.payload(leaked["payloadDigest"]) is None  # a note hides the payload


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


def test_verify_names_an_event_whose_payload_is_neither_stored_nor_removed(db: Path) -> None:
    provider = SqliteProvider(db, WRITER)
    lost, other = event("lost", "the text that goes"), event("other", "another text")
    provider.append(batch(lost))
    stranger = entry(other)  # a sound payload no event names takes its row: the counts stay
    conn = _raw(db)
    conn.execute("UPDATE payloads SET payload_digest = ?, data = ?", (stranger.payload_digest, stranger.payload))
    conn.close()
    problems = [str(p) for p in provider.verify().problems]
    assert any(lost["digest"] in p and lost["payloadDigest"] in p and "neither" in p for p in problems), problems


def test_an_append_waits_for_another_connection_holding_the_write_lock(db: Path) -> None:
    provider = SqliteProvider(db, WRITER)
    other = _raw(db)
    other.execute("BEGIN IMMEDIATE")
    released = threading.Event()

    def commit() -> None:
        released.set()
        other.execute("COMMIT")

    release = threading.Timer(0.5, commit)
    release.start()
    provider.append(batch(grant("waited")))
    assert released.is_set(), "the append went ahead while the other connection held the lock"
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


# -- reads and verify while another process appends ----------------------------------------------

SQLITE = ("gitstore.providers.sqlite", "SqliteProvider")


def test_a_read_counts_rows_in_one_snapshot_while_a_removal_commits(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    SqliteProvider(db, WRITER).append(batch(event("gone", "text of gone")))
    reader = SqliteProvider(db, "reader")
    with StepWriter(*SQLITE, db) as writer:  # the row goes between reading the counts and counting rows
        fired = at_first_call(monkeypatch, sqlite_provider, "_counts", lambda: writer.do("remove", "gone"),
                              after=True)
        digests = [s.digest for s in reader.read()]
    assert fired and digests[0] == event("gone", "text of gone")["digest"]


def test_verify_counts_an_append_acknowledged_as_it_starts(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    SqliteProvider(db, WRITER).append(batch(grant("first")))
    reader = SqliteProvider(db, "reader")
    with StepWriter(*SQLITE, db) as writer:  # the append lands as verify looks at the log
        fired = at_first_call(monkeypatch, _acks, "acked", lambda: writer.do("grant", "meanwhile"))
        report = reader.verify()
    assert fired and report.ok, [str(p) for p in report.problems]


def test_refuses_a_file_that_is_not_a_database_and_a_bad_writer(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not an sqlite database" * 100)
    with pytest.raises(UsageError, match="junk.sqlite"):
        SqliteProvider(junk, WRITER)
    with pytest.raises(UsageError, match="writer id"):
        SqliteProvider(tmp_path / "ok.sqlite", "Not A Writer")


# -- damage a read must refuse as verify does ---------------------------------------------------

@pytest.fixture(scope="module")
def sqlite_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    from .world import small_store

    ctx, learning = small_store(tmp_path_factory.mktemp("sqlite") / "w", provider="sqlite")
    return ctx.workspace.root, learning


@pytest.fixture
def damaged(sqlite_store: tuple[Path, str], tmp_path: Path) -> tuple[Path, str, Path]:
    root, learning = sqlite_store
    copy = tmp_path / "copy"
    copy_as_moved(root, copy)
    return copy, learning, copy / "okf" / ".memory" / "store.sqlite"


@pytest.mark.parametrize("table", ["records", "payloads"])
def test_a_deleted_row_fails_verify_and_reads(damaged: tuple[Path, str, Path], table: str) -> None:
    from .world import reads_fail_closed

    root, learning, path = damaged
    conn = _raw(path)
    key = "digest" if table == "records" else "payload_digest"
    conn.execute(f"DELETE FROM {table} WHERE {key} = (SELECT MIN({key}) FROM {table})")
    conn.close()
    reads_fail_closed(root, learning, table)


@pytest.mark.parametrize("how", ["deleted", "truncated", "emptied"])
def test_a_lost_database_file_fails_verify_and_reads(damaged: tuple[Path, str, Path], how: str) -> None:
    from .world import reads_fail_closed

    root, learning, path = damaged
    conn = _raw(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        extra.unlink(missing_ok=True)
    if how == "deleted":
        path.unlink()
    else:
        size = path.stat().st_size // 2 if how == "truncated" else 0
        with open(path, "r+b") as f:
            f.truncate(size)
    reads_fail_closed(root, learning, "acknowledged")


def test_a_withdrawal_filed_under_another_scope_fails_reads_closed(damaged: tuple[Path, str, Path]) -> None:
    from . import cli
    from .world import reads_fail_closed

    root, learning, path = damaged
    cli.ok("withdraw", json.loads(cli.ok("grants", "--json", cwd=root))[0]["digest"], cwd=root)
    conn = _raw(path)
    conn.execute("UPDATE records SET scope = 'github.com/other/repo' WHERE kind = 'withdrawal'")
    (withdrawal,) = conn.execute("SELECT digest FROM records WHERE kind = 'withdrawal'").fetchone()
    conn.close()
    reads_fail_closed(root, learning, withdrawal)  # dropped, it would give the permission back


def test_a_learning_version_filed_under_another_stream_fails_reads_closed(damaged: tuple[Path, str, Path]) -> None:
    from . import cli
    from .world import reads_fail_closed

    root, learning, path = damaged
    conn = _raw(path)
    (accepted,) = conn.execute("SELECT digest FROM records WHERE kind = 'learning'"
                               " ORDER BY clock DESC, position DESC LIMIT 1").fetchone()
    conn.execute("UPDATE records SET stream = 'lrn_elsewhere' WHERE digest = ?", (accepted,))
    conn.close()
    reads_fail_closed(root, learning, accepted)
    assert accepted in cli.fails(3, "history", learning, cwd=root)  # not a history of its first version


def test_an_intact_copy_reads(damaged: tuple[Path, str, Path]) -> None:
    from . import cli

    root, learning, _ = damaged
    cli.ok("verify", cwd=root)
    cli.ok("show", learning, cwd=root)


@pytest.mark.parametrize("added", [
    "CREATE TRIGGER keep_payload BEFORE DELETE ON payloads BEGIN SELECT RAISE(IGNORE); END",
    "CREATE VIEW everything AS SELECT * FROM records",
    "CREATE TABLE extra (x)",
])
def test_a_schema_object_gitstore_never_creates_is_refused(db: Path, added: str) -> None:
    """sqlite runs what the file's schema says: a trigger that keeps a payload row on delete
    would let a removal report success while the text stays served."""
    provider = SqliteProvider(db, WRITER)
    provider.append(batch(event("one", "Disable TLS verification")))
    raw = _raw(db)
    raw.execute(added)
    raw.close()
    assert any("which gitstore never creates" in p.message for p in provider.verify().problems)
    provider.close()
    with pytest.raises(IntegrityError, match=r"holds (trigger keep_payload|view everything|table extra), which gitstore never creates"):
        SqliteProvider(db, WRITER)


def test_a_database_swapped_for_another_store_is_named(tmp_path: Path) -> None:
    """Each file has a random store id, logged with every acknowledged append: another
    store's database put in its place (holding as many appends or more) is refused by name."""
    ours, theirs = tmp_path / "ours" / "store.sqlite", tmp_path / "theirs" / "store.sqlite"
    for path, count in ((ours, 1), (theirs, 2)):
        path.parent.mkdir()
        with SqliteProvider(path, WRITER) as provider:
            for n in range(count):
                provider.append(batch(grant(f"{path.parent.name} {n}")))
    ours.write_bytes(theirs.read_bytes())
    with pytest.raises(IntegrityError, match="but this clone acknowledged appends in store [0-9a-f]{32}: the file was replaced"):
        SqliteProvider(ours, WRITER)
