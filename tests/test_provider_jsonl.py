"""The jsonl provider: its file format, torn writes, atomic redaction, locking, verify.

Generic provider semantics are the conformance suite's (gitstore.conformance); this file
checks only what is particular to the JSON Lines files.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bench._process import copy_as_moved
from gitstore import ConflictError, IntegrityError, UsageError, canonicalize
from gitstore.providers import _acks
from gitstore.providers._base import Batch, Entry
from gitstore.providers.jsonl import JsonlProvider, format_append

from .conftest import ROOT
from .provider_records import StepWriter, at_first_call, batch, entry, event, examples, grant, remove, run_writers

WRITER = "w1"


def _note(reason: str) -> bytes:
    return canonicalize({"at": "2026-08-01T00:00:00.000000Z", "by": "github:583231",
                         "reason": reason, "sourceId": None})


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "jsonl"


def _lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n")
    return data.split(b"\n")[:-1]


def test_smoke_append_read_head_and_compare_and_swap(folder: Path) -> None:
    provider = JsonlProvider(folder, WRITER)
    first, second = grant("one"), grant("two")
    assert provider.append(batch(first)).added == (first["digest"],)
    assert provider.append(batch(first)).existing == (first["digest"],)
    assert provider.head("consent") == first["digest"]
    with pytest.raises(ConflictError, match="stream consent moved"):
        provider.append_if_head(batch(second), "consent", None)
    provider.append_if_head(batch(second), "consent", first["digest"])
    assert [(s.digest, s.clock, s.position) for s in provider.read()] == [
        (first["digest"], 1, 0), (second["digest"], 2, 0)]
    assert provider.manifest().name == "jsonl"
    assert "redact-payload" in provider.manifest().capabilities


def test_records_file_has_one_readable_line_per_append(folder: Path) -> None:
    provider = JsonlProvider(folder, WRITER)
    records = examples()
    text = "Bitte Jitter hinzufügen — 重试"
    provider.append(batch(*records))
    provider.append(batch(event("unicode", text), namespace="local"))
    first, second = (json.loads(line) for line in _lines(folder / "records.jsonl"))
    assert list(first) == ["clock", "writer", "namespace", "records"]
    assert (first["clock"], first["writer"], first["namespace"]) == (1, WRITER, "shared")
    assert (second["clock"], second["namespace"]) == (2, "local")
    for item, expected in zip(first["records"], batch(*records).entries, strict=True):
        assert list(item) == ["digest", "kind", "scope", "stream", "record"]
        assert (item["digest"], item["kind"], item["scope"]) == (
            expected.digest, expected.kind, expected.scope)
        assert canonicalize(item["record"]) == expected.data
    stored = list(JsonlProvider(folder, WRITER).read())
    expected_data = [e.data for e in batch(*records).entries] + [entry(event("unicode", text)).data]
    assert [s.data for s in stored] == expected_data
    assert text.encode() not in (folder / "records.jsonl").read_bytes()
    assert text.encode() in (folder / "payloads.jsonl").read_bytes()  # UTF-8, not \u escapes
    (payload_line,) = [json.loads(line) for line in _lines(folder / "payloads.jsonl")
                       if b"payload_digest" in line and text.encode() in line]
    assert list(payload_line) == ["payload_digest", "payload"]


def test_bytes_that_are_not_canonical_json_are_kept_exactly(folder: Path) -> None:
    provider = JsonlProvider(folder, WRITER)
    odd = Entry("sha256:" + "1" * 64, "grant", "github.com/acme/widgets", "consent", b'{"b":1, "a":2}')
    provider.append(Batch("shared", (odd,)))
    (line,) = _lines(folder / "records.jsonl")
    assert "record_base64" in json.loads(line)["records"][0]
    assert [s.data for s in JsonlProvider(folder, WRITER).read()] == [odd.data]
    assert not JsonlProvider(folder, WRITER).verify().ok  # not canonical, so not a sound record


TORN_TAILS = [b'{"clock":2,"writer":"w1","namesp', b"\x00\x00\x00\x00\n", b'{"clock":2,"wr\n']


@pytest.mark.parametrize("tail", TORN_TAILS, ids=["no-newline", "zero-filled", "unparsable-line"])
def test_a_torn_last_line_is_ignored_then_truncated_by_the_next_writer(folder: Path, tail: bytes) -> None:
    provider = JsonlProvider(folder, WRITER)
    first, later = grant("before"), grant("after")
    provider.append(batch(first))
    with open(folder / "records.jsonl", "ab") as f:
        f.write(tail)
    reader = JsonlProvider(folder, WRITER)
    assert [s.digest for s in reader.read()] == [first["digest"]]
    report = reader.verify()
    assert report.ok and report.records == 1
    result = JsonlProvider(folder, "w2").append(batch(later))
    assert result.added == (later["digest"],)
    lines = _lines(folder / "records.jsonl")
    assert [json.loads(line)["writer"] for line in lines] == [WRITER, "w2"]
    assert [(s.digest, s.clock) for s in reader.read()] == [(first["digest"], 1), (later["digest"], 2)]


def test_a_damaged_line_before_the_last_fails_closed(folder: Path) -> None:
    provider = JsonlProvider(folder, WRITER)
    provider.append(batch(grant("a")))
    with open(folder / "records.jsonl", "ab") as f:
        f.write(b"not json at all\n")
        f.write(format_append(2, WRITER, "shared", [entry(grant("b"))]))
    fresh = JsonlProvider(folder, WRITER)
    with pytest.raises(IntegrityError, match="records.jsonl line 2"):
        list(fresh.read())
    with pytest.raises(IntegrityError, match="line 2"):
        fresh.append(batch(grant("c")))
    problems = [str(p) for p in fresh.verify().problems]
    assert len(problems) == 1 and "records.jsonl line 2" in problems[0]


def test_a_parsable_but_malformed_last_line_is_damage_not_a_torn_write(folder: Path) -> None:
    provider = JsonlProvider(folder, WRITER)
    provider.append(batch(grant("a")))
    with open(folder / "records.jsonl", "ab") as f:
        f.write(b'{"clock":"two"}\n')
    with pytest.raises(IntegrityError, match="bad clock"):
        JsonlProvider(folder, WRITER).append(batch(grant("b")))
    assert b'"two"' in (folder / "records.jsonl").read_bytes()  # evidence kept, never truncated


_KILLED_WRITER = """
import os, sys, time
import gitstore.providers.jsonl as J
from tests.provider_records import batch, event, grant
real = J._write_at
def torn(fd, offset, data):
    if data.startswith(b'{"clock"'):
        os.pwrite(fd, data[: len(data) // 2], offset)
        print("torn", flush=True)
        time.sleep(120)
    return real(fd, offset, data)
J._write_at = torn
J.JsonlProvider(sys.argv[1], "killed").append(batch(event("doomed", "doomed text"), grant("doomed")))
"""


def test_an_append_killed_mid_write_is_never_acknowledged(folder: Path) -> None:
    JsonlProvider(folder, WRITER).append(batch(grant("kept")))
    child = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(folder)], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"torn\n"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    assert not (folder / "records.jsonl").read_bytes().endswith(b"\n")
    provider = JsonlProvider(folder, WRITER)
    assert [s.digest for s in provider.read()] == [grant("kept")["digest"]]
    assert provider.verify().ok
    provider.append(batch(grant("next")))  # the dead writer's lock is gone; the tail is cut
    assert [s.clock for s in provider.read()] == [1, 2]
    assert len(_lines(folder / "records.jsonl")) == 2
    assert grant("doomed")["digest"] not in {s.digest for s in provider.read()}


def test_a_removal_rewrites_the_payload_file_atomically_and_keeps_the_note_with_its_audit(folder: Path) -> None:
    provider = JsonlProvider(folder, WRITER)
    secret, other = event("secret", "remove this sentence"), event("other", "keep this one")
    provider.append(batch(secret, other))
    reader = JsonlProvider(folder, WRITER)
    assert reader.payload(other["payloadDigest"]) is not None  # caches the payload index
    inode = (folder / "payloads.jsonl").stat().st_ino
    before = _lines(folder / "payloads.jsonl")
    remove(provider, secret["payloadDigest"], _note("first"), "first")
    assert (folder / "payloads.jsonl").stat().st_ino != inode
    other_writer = JsonlProvider(folder, "w2")
    with pytest.raises(ConflictError, match="already removed"):
        remove(other_writer, secret["payloadDigest"], _note("second"), "second")
    after = _lines(folder / "payloads.jsonl")
    assert after == before[1:]  # the payload's line went; the note is in the removal's records line
    last = json.loads(_lines(folder / "records.jsonl")[-1])
    assert [r["kind"] for r in last["records"]] == ["audit"]
    assert last["removals"] == [{"payload_digest": secret["payloadDigest"], "note": json.loads(_note("first"))}]
    assert reader.redaction_note(secret["payloadDigest"]) == _note("first")
    assert reader.redaction_note(other["payloadDigest"]) is None
    assert b"remove this sentence" not in (folder / "payloads.jsonl").read_bytes()
    assert b"remove this sentence" not in (folder / "records.jsonl").read_bytes()
    assert sorted(p.name for p in folder.iterdir()) == ["lock", "payloads.jsonl", "records.jsonl", "records.jsonl.acks"]
    assert reader.payload(secret["payloadDigest"]) is None
    assert b"keep this one" in (reader.payload(other["payloadDigest"]) or b"")
    assert len(list(reader.read())) == 3 and reader.verify().ok


def test_a_removed_payload_is_never_written_again(folder: Path) -> None:
    provider = JsonlProvider(folder, WRITER)
    record = event("gone", "gone for good")
    provider.append(batch(record))
    remove(provider, record["payloadDigest"], _note("asked"))
    twin = event("gone-twin", "gone for good")  # another event with the same payload
    assert twin["payloadDigest"] == record["payloadDigest"]
    provider.append(batch(twin))
    assert b"gone for good" not in (folder / "payloads.jsonl").read_bytes()
    assert JsonlProvider(folder, WRITER).payload(record["payloadDigest"]) is None
    assert provider.verify().ok


def test_gc_drops_a_stray_payload_line_beside_a_note_and_lines_no_record_names(folder: Path) -> None:
    provider = JsonlProvider(folder, WRITER)
    record, kept = event("stray", "stray text"), event("kept", "kept text")
    provider.append(batch(record, kept))
    line = _lines(folder / "payloads.jsonl")[0]
    remove(provider, record["payloadDigest"], _note("first"))
    orphan = entry(event("orphan", "text of a killed append"))
    with open(folder / "payloads.jsonl", "ab") as f:  # copied back in; left by a killed append
        f.write(line + b"\n")
        f.write(json.dumps({"payload_digest": orphan.payload_digest,
                            "payload": json.loads(orphan.payload or b"")}).encode() + b"\n")
    reader = JsonlProvider(folder, WRITER)
    assert reader.payload(record["payloadDigest"]) is None
    assert any("beside its redaction note" in str(p) for p in reader.verify().problems)
    assert provider.gc().payloads == 2
    data = (folder / "payloads.jsonl").read_bytes()
    assert b"stray text" not in data and b"killed append" not in data and b"kept text" in data
    assert reader.verify().ok and provider.gc().payloads == 0


def test_verify_checks_redaction_notes(folder: Path) -> None:
    provider = JsonlProvider(folder, WRITER)
    provider.append(batch(event("n", "noted")))
    lines = [
        {"payload_digest": "sha256:" + "a" * 64, "note": {"at": "x", "by": "y", "reason": "z"}},
        {"payload_digest": "sha256:" + "b" * 64,
         "note_base64": base64.b64encode(b'{"by":"y","at":"x","reason":"z","sourceId":null}').decode()},
        {"payload_digest": "sha256:" + "c" * 64, "note": {"at": "x"}, "payload": {"text": "both"}},
    ]
    with open(folder / "payloads.jsonl", "ab") as f:
        f.write(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    problems = [str(p) for p in provider.verify().problems]
    assert any("a" * 64 in p and "not a redaction object" in p for p in problems)
    assert any("b" * 64 in p and "canonical" in p for p in problems)
    assert any("c" * 64 in p and "both" in p for p in problems)
    assert sum("no removal vouches for it" in p for p in problems) == 2  # a and b: no removal's audit entry
    assert len(problems) == 5


def test_verify_names_a_note_line_no_removal_vouches_for(folder: Path) -> None:
    """Older versions kept a note in payloads.jsonl and its audit entry (a redact entry naming
    the event) in an append of its own. A note line no such entry vouches for, written in
    place of a payload line, would make the payload read as removed by nobody: verify names it."""
    from gitstore.providers.jsonl import format_note
    from gitstore.records.contracts import seal

    from .provider_records import audit

    provider = JsonlProvider(folder, WRITER)
    kept, forged = event("kept", "removed the old way"), event("forged", "hidden by hand")
    provider.append(batch(kept, forged))
    old_audit = seal({**audit("old way"), "subjects": [kept["id"], kept["digest"]]})
    provider.append(batch(old_audit))
    lines = _lines(folder / "payloads.jsonl")
    by_digest = {json.loads(line)["payload_digest"]: line for line in lines}
    notes = {kept["payloadDigest"]: format_note(kept["payloadDigest"], _note("old way")),
             forged["payloadDigest"]: format_note(forged["payloadDigest"], _note("forged"))}
    (folder / "payloads.jsonl").write_bytes(b"".join(notes.get(d, line).rstrip(b"\n") + b"\n"
                                                     for d, line in by_digest.items()))
    reader = JsonlProvider(folder, WRITER)
    assert reader.payload(forged["payloadDigest"]) is None
    problems = [str(p) for p in reader.verify().problems]
    assert len(problems) == 1 and problems[0].startswith(f"redaction note {forged['payloadDigest']}: no "), problems
    held = (folder / "payloads.jsonl").read_bytes()
    with pytest.raises(IntegrityError, match="gc erases no payload on its word"):
        reader.gc()  # a folder no clone vouches for: gc itself refuses to act on the note
    assert (folder / "payloads.jsonl").read_bytes() == held


def test_verify_names_tampered_records_and_payloads(folder: Path) -> None:
    provider = JsonlProvider(folder, WRITER)
    good, bad, ev = grant("good"), grant("bad"), event("ev", "payload text")
    provider.append(batch(good, bad, ev))
    assert provider.verify().ok and provider.verify().records == 3
    for name, old, new in (("records.jsonl", b"grant bad", b"grant BAD"),
                           ("payloads.jsonl", b"payload text", b"PAYLOAD text")):
        path = folder / name
        path.write_bytes(path.read_bytes().replace(old, new))
    problems = [str(p) for p in provider.verify().problems]
    assert any(bad["digest"] in p for p in problems)
    assert not any(good["digest"] in p for p in problems)
    assert any(ev["payloadDigest"] in p and "does not match" in p for p in problems)
    with pytest.raises(IntegrityError, match="does not match its digest"):
        JsonlProvider(folder, WRITER).payload(ev["payloadDigest"])


def test_verify_names_a_payload_lost_under_a_copy_of_another(folder: Path) -> None:
    provider = JsonlProvider(folder, WRITER)
    lost, copied = event("lost", "the text that goes"), event("copied", "the text copied over it")
    provider.append(batch(lost, copied))
    path = folder / "payloads.jsonl"
    first, second = _lines(path)
    path.write_bytes(second + b"\n" + second + b"\n")  # as many lines as acknowledged
    problems = [str(p) for p in JsonlProvider(folder, WRITER).verify().problems]
    assert any(lost["digest"] in p and lost["payloadDigest"] in p and "neither" in p for p in problems), problems
    assert any(copied["payloadDigest"] in p and "twice" in p for p in problems), problems
    assert JsonlProvider(folder, WRITER).payload(lost["payloadDigest"]) is None  # it reads as removed


def test_processes_serialize_on_the_lock_file(folder: Path) -> None:
    JsonlProvider(folder, WRITER)
    run_writers("gitstore.providers.jsonl", "JsonlProvider", folder, processes=8, count=10)
    provider = JsonlProvider(folder, WRITER)
    stored = list(provider.read())
    assert len(stored) == 8 * 10 * 2
    assert [json.loads(line)["clock"] for line in _lines(folder / "records.jsonl")] == list(range(1, 81))
    assert provider.verify().ok


# -- reads and verify while another process appends ----------------------------------------------

JSONL = ("gitstore.providers.jsonl", "JsonlProvider")

# Pauses a removal after its records line, before payloads.jsonl is written again (the lock held).
_PAUSED_REWRITE = """
import gitstore.providers.jsonl as J
real = J.JsonlProvider._rewrite_payloads
def paused(self, *args):
    print("paused", flush=True)
    sys.stdin.readline()
    return real(self, *args)
J.JsonlProvider._rewrite_payloads = paused
"""


def test_a_read_sees_an_append_acknowledged_while_it_reads(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    JsonlProvider(folder, WRITER).append(batch(grant("first")))
    reader = JsonlProvider(folder, "reader")
    with StepWriter(*JSONL, folder) as writer:  # the append lands as the reader looks at the log
        fired = at_first_call(monkeypatch, _acks, "acked", lambda: writer.do("grant", "meanwhile"))
        digests = [s.digest for s in reader.read()]
    assert fired and digests[0] == grant("first")["digest"]
    assert JsonlProvider(folder, "reader").verify().ok


def test_a_payload_read_across_a_removal_and_appends_is_not_damage(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = JsonlProvider(folder, WRITER)
    for tag in ("gone", "kept"):
        provider.append(batch(event(tag, f"text of {tag}")))
    reader = JsonlProvider(folder, "reader")
    list(reader.read())  # the records are read: what follows reads the payloads
    with StepWriter(*JSONL, folder) as writer:
        def meanwhile() -> None:  # payloads.jsonl is written again, then grows past what it held
            for command, tag in (("remove", "gone"), ("event", "new1"), ("event", "new2")):
                writer.do(command, tag)
        fired = at_first_call(monkeypatch, _acks, "acked", meanwhile)
        kept = reader.payload(event("kept", "text of kept")["payloadDigest"])
    assert fired and kept is not None and b"text of kept" in kept
    assert reader.payload(event("gone", "text of gone")["payloadDigest"]) is None


def test_verify_across_a_removal_that_shrinks_the_payloads(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    JsonlProvider(folder, WRITER).append(batch(event("secret", "text of secret")))
    reader = JsonlProvider(folder, "reader")
    with StepWriter(*JSONL, folder) as writer:  # payloads.jsonl loses its line once verify read the log
        fired = at_first_call(monkeypatch, _acks, "acked", lambda: writer.do("remove", "secret"), after=True)
        report = reader.verify()
    assert fired and report.ok, [str(p) for p in report.problems]


def test_verify_waits_out_a_removal_under_way(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    JsonlProvider(folder, WRITER).append(batch(event("secret", "text of secret")))
    with StepWriter(*JSONL, folder, prelude=_PAUSED_REWRITE) as writer:
        writer.send("remove secret")
        assert writer.answer() == "paused"  # its records line names the removal; the payload is still there
        fired = at_first_call(monkeypatch, JsonlProvider, "_exclusive", lambda: writer.send("go"))
        report = JsonlProvider(folder, "reader").verify()
        if not fired:
            writer.send("go")  # verify never waited for it
        assert writer.answer() == "ok"
    assert report.ok, [str(p) for p in report.problems]


def test_refuses_a_bad_writer_and_an_unusable_folder(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="writer id"):
        JsonlProvider(tmp_path / "store", "Bad Writer")
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="cannot use"):
        JsonlProvider(tmp_path / "file", WRITER)


# -- damage a read must refuse as verify does ---------------------------------------------------

@pytest.fixture(scope="module")
def jsonl_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    from .world import small_store

    ctx, learning = small_store(tmp_path_factory.mktemp("jsonl") / "w", provider="jsonl")
    return ctx.workspace.root, learning


@pytest.fixture
def damaged(jsonl_store: tuple[Path, str], tmp_path: Path) -> tuple[Path, str, Path]:
    root, learning = jsonl_store
    copy = tmp_path / "copy"
    copy_as_moved(root, copy)
    return copy, learning, copy / "okf" / ".memory" / "jsonl"


@pytest.mark.parametrize("how", ["middle-line", "last-line", "cut-mid-line", "payloads-file", "records-file"])
def test_lost_lines_and_files_fail_verify_and_reads(damaged: tuple[Path, str, Path], how: str) -> None:
    from .world import reads_fail_closed

    root, learning, folder = damaged
    records = folder / "records.jsonl"
    lines = records.read_bytes().split(b"\n")[:-1]
    assert len(lines) >= 4
    if how == "middle-line":
        records.write_bytes(b"".join(line + b"\n" for i, line in enumerate(lines) if i != 1))
    elif how == "last-line":
        records.write_bytes(b"".join(line + b"\n" for line in lines[:-1]))
    elif how == "cut-mid-line":  # everything after the middle of line 2 is gone: not a torn write
        records.write_bytes(lines[0] + b"\n" + lines[1][: len(lines[1]) // 2])
    elif how == "payloads-file":
        (folder / "payloads.jsonl").unlink()
    else:
        records.unlink()
    reads_fail_closed(root, learning, "acknowledged")


def _misfile(records: Path, kind: str, field: str, value: str) -> str:
    """File the last record of ``kind`` in records.jsonl under another scope or stream, its
    bytes untouched, as a one-line edit would; returns its digest."""
    lines = records.read_bytes().split(b"\n")[:-1]
    for number in reversed(range(len(lines))):
        line = json.loads(lines[number])
        items = [item for item in line["records"] if item["kind"] == kind]
        if items:
            items[-1][field] = value
            lines[number] = json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode()
            records.write_bytes(b"".join(line + b"\n" for line in lines))
            return str(items[-1]["digest"])
    raise AssertionError(f"no {kind} record in {records}")


def test_a_withdrawal_filed_under_another_scope_fails_reads_closed(damaged: tuple[Path, str, Path]) -> None:
    from . import cli
    from .world import reads_fail_closed

    root, learning, folder = damaged
    cli.ok("withdraw", json.loads(cli.ok("grants", "--json", cwd=root))[0]["digest"], cwd=root)
    withdrawal = _misfile(folder / "records.jsonl", "withdrawal", "scope", "github.com/other/repo")
    reads_fail_closed(root, learning, withdrawal)  # dropped, it would give the permission back


def test_a_learning_version_filed_under_another_stream_fails_reads_closed(damaged: tuple[Path, str, Path]) -> None:
    from . import cli
    from .world import reads_fail_closed

    root, learning, folder = damaged
    accepted = _misfile(folder / "records.jsonl", "learning", "stream", "lrn_elsewhere")
    reads_fail_closed(root, learning, accepted)
    assert accepted in cli.fails(3, "history", learning, cwd=root)  # not a history of its first version


def test_a_cut_store_is_never_truncated_by_the_next_writer(damaged: tuple[Path, str, Path]) -> None:
    root, _, folder = damaged
    records = folder / "records.jsonl"
    data = records.read_bytes()
    records.write_bytes(data[: len(data) // 2])
    with pytest.raises(IntegrityError, match="acknowledged"):
        JsonlProvider(folder, WRITER).append(batch(grant("after the cut")))
    assert records.read_bytes() == data[: len(data) // 2]  # the evidence stays as it was
    assert root.is_dir()


def test_an_intact_jsonl_copy_reads(damaged: tuple[Path, str, Path]) -> None:
    from . import cli

    root, learning, _ = damaged
    cli.ok("verify", cwd=root)
    cli.ok("show", learning, cwd=root)


def test_a_link_put_in_the_folder_after_opening_is_never_written_through(tmp_path: Path) -> None:
    from gitstore.errors import GitstoreError

    provider = JsonlProvider(tmp_path / "store", WRITER)
    target = tmp_path / "notes.jsonl"
    target.write_bytes(b"")
    (tmp_path / "store" / "payloads.jsonl").unlink()
    (tmp_path / "store" / "payloads.jsonl").symlink_to(target)
    with pytest.raises(GitstoreError):
        provider.append(batch(event("one", "some text")))
    assert target.read_bytes() == b""


def test_payload_lines_overwritten_with_damage_fail_reads_closed(tmp_path: Path) -> None:
    """A damaged line is no acknowledged payload line: a payloads.jsonl whose lines were
    overwritten (as many as there were) reads as lost lines, never as payloads that are gone."""
    folder = tmp_path / "store"
    provider = JsonlProvider(folder, WRITER)
    record = event("one", "some text")
    provider.append(batch(record))
    (folder / "payloads.jsonl").write_bytes(b'{"note":"not a payload line"}\n')
    with pytest.raises(IntegrityError, match="acknowledged"):
        JsonlProvider(folder, WRITER).payload(record["payloadDigest"])
    assert any("sound line(s) but 1 were acknowledged" in p.message for p in JsonlProvider(folder, WRITER).verify().problems)
