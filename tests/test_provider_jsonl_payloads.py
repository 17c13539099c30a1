"""A jsonl store's payload log that lost or changed acknowledged lines is refused, never read as is.

payloads.jsonl is ignored, in the work tree, like records.jsonl beside it: a checkout of a commit
holding its name overwrites it and the checkout back deletes it (with the log beside it,
``records.jsonl.acks``), and a copy over it can cut it or swap a line. Event texts would then
vanish without a word. The clone's git folder record (``gitstore/jsonl.acked``) vouches for the
payload log too: its line count and the running digest of its lines, which redaction and ``gc``
(the only ways a payload line legitimately goes) carry to the file they write. Reads and appends
refuse (exit 3, one line naming the file and what is wrong) anything else.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gitstore.capture.reviews import import_reviews
from gitstore.context import Context
from gitstore.providers.jsonl import JsonlProvider, _dump, _embed
from gitstore.records.canonical import sha256_digest

from . import cli
from .conftest import git
from .provider_records import StepWriter, at_first_call, batch, event
from .test_ops_redact import KEPT, REMOVED, _snapshot
from .world import grant_all, ready_repo

GRANT = ("grant", "--purpose", "review", "--source", "manual", "--note", "later")


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    """A jsonl clone holding two review comments: two payload lines, two records lines."""
    ctx = ready_repo(tmp_path / "repo", provider="jsonl")
    grant_all(ctx, purposes=("review", "instruction", "evaluation"))
    import_reviews(ctx, _snapshot(tmp_path / "snapshot.json"), "github:9")
    return ctx


def _files(ctx: Context) -> tuple[Path, Path, Path]:
    """payloads.jsonl, the log beside the files, and the git folder's record."""
    folder = ctx.workspace.state / "jsonl"
    git_dir = Path(git(ctx.workspace.root, "rev-parse", "--absolute-git-dir").strip())
    return folder / "payloads.jsonl", folder / "records.jsonl.acks", git_dir / "gitstore" / "jsonl.acked"


def _refused(ctx: Context, *args: str) -> str:
    failed = cli.fails(3, *args, cwd=ctx.workspace.root)
    assert failed.count("\n") == 1 and "Traceback" not in failed, failed
    return failed


def _texts_read(ctx: Context) -> str:
    return cli.ok("evidence", "ep_", cwd=ctx.workspace.root)


def _log_from_before_the_payloads(log: Path) -> None:
    """The log beside the files as an older copy of it holds it: it counts no payload line (it
    is in the work tree, where a copy or a checkout reaches it as it reaches the files)."""
    log.write_bytes(b"".join(line for line in log.read_bytes().splitlines(keepends=True)
                             if line.split()[1] == b"0"))


def test_a_payload_log_a_checkout_deletes_is_refused_and_never_made_again(ctx: Context) -> None:
    payloads, log, record = _files(ctx)
    assert REMOVED in _texts_read(ctx)
    vouched = record.read_text()
    payloads.unlink()
    _log_from_before_the_payloads(log)
    for command in (("episodes",), GRANT, ("verify",)):
        failed = _refused(ctx, *command)
        assert str(payloads) in failed and "2 payload line(s)" in failed, failed
    assert not payloads.exists() and record.read_text() == vouched


def test_a_payload_log_cut_short_is_refused(ctx: Context) -> None:
    payloads, log, _ = _files(ctx)
    first, _second = payloads.read_bytes().splitlines(keepends=True)
    payloads.write_bytes(first)
    _log_from_before_the_payloads(log)
    for command in (("episodes",), GRANT):
        failed = _refused(ctx, *command)
        assert f"{payloads}: holds 1 line(s) but this clone's appends acknowledged 2" in failed, failed
    assert payloads.read_bytes() == first


def test_a_payload_line_swapped_is_refused_naming_the_line_without_its_text(ctx: Context) -> None:
    """Same count of sound lines, as the log beside the files counts them: a copy of the
    second line over the first makes the first comment's text vanish."""
    payloads, _, _ = _files(ctx)
    first, second = payloads.read_bytes().splitlines(keepends=True)
    payloads.write_bytes(second + second)
    for command in (("episodes",), GRANT):
        failed = _refused(ctx, *command)
        assert f"{payloads}: line 1 is not the one this clone's appends wrote" in failed, failed
        assert REMOVED not in failed and KEPT not in failed
    assert payloads.read_bytes() == second + second
    payloads.write_bytes(first + first)
    assert f"{payloads}: line 2 is not the one" in _refused(ctx, "episodes")
    done = cli.gitstore("verify", cwd=ctx.workspace.root)
    assert done.returncode == 3 and "but line 2 is not the one they wrote" in done.stdout + done.stderr, done
    assert f"{payloads}: this clone's appends acknowledged 2 payload line(s)" in done.stdout + done.stderr, done


def test_redaction_and_gc_rewrite_the_payload_log_and_the_record_follows(ctx: Context) -> None:
    payloads, _, record = _files(ctx)
    assert record.read_text().split()[3] == "2"
    cli.ok("redact", "--comment", "github:comment:100", "--reason", "asked", "--by", "github:9",
           cwd=ctx.workspace.root)
    assert REMOVED.encode() not in payloads.read_bytes() and len(payloads.read_bytes().splitlines()) == 1
    assert record.read_text().split()[3] == "1" and len(record.read_text().split()) == 5
    assert KEPT in _texts_read(ctx)
    cli.ok("gc", cwd=ctx.workspace.root)
    cli.ok(*GRANT, cwd=ctx.workspace.root)
    assert "ok" in cli.ok("verify", cwd=ctx.workspace.root)
    payloads.unlink()
    assert "1 payload line(s)" in _refused(ctx, "episodes")


def test_a_record_without_the_payload_log_is_taken_and_given_it_on_the_next_append(ctx: Context) -> None:
    payloads, _, record = _files(ctx)
    record.write_text(" ".join(record.read_text().split()[:3]) + "\n")  # as written before it vouched for them
    assert REMOVED in _texts_read(ctx)
    cli.ok(*GRANT, cwd=ctx.workspace.root)
    assert len(record.read_text().split()) == 5 and record.read_text().split()[3] == "2"
    first, second = payloads.read_bytes().splitlines(keepends=True)
    payloads.write_bytes(second + second)
    assert f"{payloads}: line 1 is not the one" in _refused(ctx, "episodes")


def test_a_rewrite_cut_short_leaves_a_record_naming_the_states_before_and_after(ctx: Context) -> None:
    """A removal names the state it makes beside the one before it, then writes the file: a
    kill between the two leaves either file, and both read; anything else is refused."""
    from gitstore.providers.jsonl import _payload_state

    payloads, log, record = _files(ctx)
    before = payloads.read_bytes()
    first, second = before.splitlines(keepends=True)
    after = second
    fields = record.read_text().split()[:3]
    states = [f"{count} {chain}" for count, chain in (_payload_state(before), _payload_state(after))]
    record.write_text(" ".join(fields + states) + "\n")
    appends, _, store = log.read_text().splitlines()[-1].split()
    with log.open("a") as more:  # a rewrite logs the smaller count before the file shrinks
        more.write(f"{appends} 1 {store}\n")
    assert REMOVED in _texts_read(ctx)
    payloads.write_bytes(after)
    assert KEPT in _texts_read(ctx)
    payloads.write_bytes(first)
    assert f"{payloads}: line 1 is not the one" in _refused(ctx, "episodes")
    payloads.write_bytes(after)
    cli.ok(*GRANT, cwd=ctx.workspace.root)  # the next append settles on the state the file holds
    assert record.read_text().split()[3:] == states[1].split()


def test_purge_starts_afresh_with_payloads(ctx: Context) -> None:
    payloads, _, record = _files(ctx)
    cli.ok("purge", "--confirm", "acme/widgets", cwd=ctx.workspace.root)
    assert not record.exists()
    cli.ok("init", "--provider", "jsonl", cwd=ctx.workspace.root)
    cli.ok(*GRANT, cwd=ctx.workspace.root)
    assert "ok" in cli.ok("verify", cwd=ctx.workspace.root)
    assert record.read_text().split()[3:5] == ["0", "sha256:" + subprocess.run(
        ["sha256sum"], input=b"", capture_output=True, check=True).stdout.decode().split()[0]]


class VouchedJsonl(JsonlProvider):
    """A jsonl store at ``<repo>/okf/.memory/jsonl`` whose record is in the repository's git
    folder, as a clone's is (the writer processes of StepWriter open it by folder alone)."""

    def __init__(self, folder: str | Path, writer: str) -> None:
        gitstore = Path(folder).parents[2] / ".git" / "gitstore"
        gitstore.mkdir(exist_ok=True)
        super().__init__(folder, writer, identity="ab" * 16, inflight=gitstore / "jsonl.inflight")


def test_a_payload_read_across_a_removal_the_record_follows_is_not_damage(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader opens the file, then takes the record: a removal landing in between writes
    the file again shorter and the record with it, so the record names a state the file it
    opened is not in (the log beside the files, counting as many lines, sees nothing); it
    reads again holding the lock, and finds the payload, before that counts as damage."""
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)
    folder = tmp_path / "repo" / "okf" / ".memory" / "jsonl"
    provider = VouchedJsonl(folder, "w1")
    for tag in ("gone", "kept"):
        provider.append(batch(event(tag, f"text of {tag}")))
    reader = VouchedJsonl(folder, "reader")
    list(reader.read())  # the records are read: what follows reads the payloads
    with StepWriter("tests.test_provider_jsonl_payloads", "VouchedJsonl", folder) as writer:
        fired = at_first_call(monkeypatch, reader, "_vouched_payloads", lambda: writer.do("remove", "gone"))
        kept = reader.payload(event("kept", "text of kept")["payloadDigest"])
    assert fired and kept is not None and b"text of kept" in kept
    assert reader.payload(event("gone", "text of gone")["payloadDigest"]) is None
    assert reader.verify().ok, [str(p) for p in reader.verify().problems]


def _digest_of(payloads: Path, text: str) -> str:
    """The payload digest of the line holding ``text``."""
    for line in payloads.read_bytes().splitlines():
        if text in json.dumps(json.loads(line)):
            return str(json.loads(line)["payload_digest"])
    raise AssertionError(f"no payload line holds {text!r}")


def test_a_redaction_note_appended_past_the_acknowledged_lines_is_refused(ctx: Context) -> None:
    """A zero-context hunk (or a hand) appends a note line for a stored comment without reading
    the file: appends keep their notes in records.jsonl, so nothing of this clone writes one
    there. Reading it would take the comment's text away under a reason nobody gave, and the
    next append would vouch for it; both refuse, naming the line, until it is taken out."""
    payloads, _, record = _files(ctx)
    held, vouched = payloads.read_bytes(), record.read_text()
    note = {"at": "2026-03-01T10:00:00.000000Z", "by": "github:9", "reason": "slipped in", "sourceId": None}
    payloads.write_bytes(held + json.dumps({"payload_digest": _digest_of(payloads, REMOVED), "note": note},
                                           separators=(",", ":")).encode() + b"\n")
    for command in (("evidence", "ep_"), GRANT,
                    ("redact", "--comment", "github:comment:100", "--reason", "asked", "--by", "github:9")):
        failed = _refused(ctx, *command)
        assert f"{payloads} line 3: a redaction note past the 2 line(s)" in failed, (command, failed)
        assert "slipped in" not in failed and REMOVED not in failed
    assert record.read_text() == vouched and "slipped in" in payloads.read_text()
    assert cli.gitstore("verify", cwd=ctx.workspace.root).returncode == 3
    # taken out, the store reads and appends again; a payload line a killed append left, and
    # half a line, past the acknowledged ones, are still taken (and the torn tail dropped)
    orphan = b"text an append killed before its records line left"
    line = _dump({"payload_digest": sha256_digest(orphan), **_embed(orphan, "payload")})
    payloads.write_bytes(held + line + line[:20])
    assert REMOVED in _texts_read(ctx)
    cli.ok(*GRANT, cwd=ctx.workspace.root)
    assert payloads.read_bytes() == held + line and record.read_text().split()[3] == "3"
    assert "ok" in cli.ok("verify", cwd=ctx.workspace.root)


def test_a_payload_line_appended_under_another_digest_is_refused(ctx: Context) -> None:
    """A payload line past the acknowledged ones whose text does not hash to the digest it
    names would stand in for that payload when an append stores it (a payload already held is
    never written again): no append writes such a line, so reads and appends refuse it."""
    payloads, _, record = _files(ctx)
    held, vouched = payloads.read_bytes(), record.read_text()
    coming = sha256_digest(b"a comment not imported yet")
    payloads.write_bytes(held + json.dumps({"payload_digest": coming, "payload": "forged"}).encode() + b"\n")
    for command in (("evidence", "ep_"), GRANT):
        failed = _refused(ctx, *command)
        assert f"{payloads} line 3: a payload that does not match its digest past the 2 line(s)" in failed, failed
        assert "forged" not in failed
    assert record.read_text() == vouched
    payloads.write_bytes(held)
    cli.ok(*GRANT, cwd=ctx.workspace.root)


NOTE = {"at": "2026-03-01T10:00:00.000000Z", "by": "github:9", "reason": "slipped in", "sourceId": None}


def _legacy_record_with_a_note(ctx: Context) -> tuple[Path, Path, Path]:
    """The git folder's record as a version before it vouched for payloads.jsonl wrote it (the
    records log's count, last line's digest and running digest alone), and a note line for a
    stored comment appended to payloads.jsonl, as a zero-context hunk or a hand does."""
    payloads, log, record = _files(ctx)
    record.write_text(" ".join(record.read_text().split()[:3]) + "\n")
    assert REMOVED in _texts_read(ctx)  # such a record is still taken
    payloads.write_bytes(payloads.read_bytes() + json.dumps(
        {"payload_digest": _digest_of(payloads, REMOVED), "note": NOTE}, separators=(",", ":")).encode() + b"\n")
    return payloads, log, record


def test_a_note_past_the_logged_lines_is_refused_under_a_record_from_before_payload_vouching(ctx: Context) -> None:
    """With no payload state in the git folder's record, the log beside the files still counts
    the payload lines acknowledged: a note line past them is refused as it is under a current
    record, so reads never hide the comment under the forged reason and no append vouches for it."""
    payloads, log, record = _legacy_record_with_a_note(ctx)
    legacy = record.read_text()
    for command in (("evidence", "ep_"), GRANT, ("gc",)):
        failed = _refused(ctx, *command)
        assert f"{payloads} line 3: a redaction note past the 2 line(s) the log beside the files counts" in failed, \
            (command, failed)
        assert str(log) in failed and "slipped in" not in failed and REMOVED not in failed
    assert record.read_text() == legacy and REMOVED in payloads.read_text()
    payloads.write_bytes(b"".join(payloads.read_bytes().splitlines(keepends=True)[:2]))  # taken out
    assert REMOVED in _texts_read(ctx) and "slipped in" not in _texts_read(ctx)
    cli.ok(*GRANT, cwd=ctx.workspace.root)
    assert "ok" in cli.ok("verify", cwd=ctx.workspace.root)


def test_gc_never_erases_a_payload_on_the_word_of_a_note_nobody_vouches_for(ctx: Context) -> None:
    """Should the log beside the files count the note line too (it is in the work tree, where a
    copy reaches it), no records line's removal and no audit entry of one vouches for the note:
    verify names the note as the damage and never advises `gitstore gc`, and gc refuses rather
    than erase the comment's text for good."""
    payloads, log, _ = _legacy_record_with_a_note(ctx)
    *before, last = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(before) + last.replace(b" 2 ", b" 3 ", 1))  # "2 appends, 3 payload lines"
    verified = cli.gitstore("verify", cwd=ctx.workspace.root)
    said = verified.stdout + verified.stderr
    assert verified.returncode == 3 and "no removal vouches for it" in said, said
    assert "gitstore gc" not in said and "take that note line out by hand" in said, said
    failed = _refused(ctx, "gc")  # the note line itself is refused before gc reads a payload
    assert f"{payloads} line 3: a redaction note that no removal vouches for" in failed, failed
    assert REMOVED in payloads.read_text() and payloads.read_text().count("\n") == 3


def test_a_note_put_before_the_logged_lines_is_refused_under_a_record_from_before_payload_vouching(
        ctx: Context) -> None:
    """The log beside the files counts payload lines, not which they are: a note line put first
    (before the counted lines) moves nothing it checks. No records line's removal and no audit
    entry of one vouches for that note, so wherever it sits reads, appends and gc refuse it,
    naming the line without its text, and no append writes the record whole over it (which
    would vouch for it for good)."""
    payloads, _, record = _files(ctx)
    record.write_text(" ".join(record.read_text().split()[:3]) + "\n")
    held, legacy = payloads.read_bytes(), record.read_text()
    note = json.dumps({"payload_digest": _digest_of(payloads, REMOVED), "note": NOTE},
                      separators=(",", ":")).encode() + b"\n"
    payloads.write_bytes(note + held)
    for command in (("evidence", "ep_"), GRANT, ("gc",)):
        failed = _refused(ctx, *command)
        assert f"{payloads} line 1: a redaction note that no removal vouches for" in failed, (command, failed)
        assert "slipped in" not in failed and REMOVED not in failed
    assert record.read_text() == legacy and payloads.read_bytes() == note + held
    payloads.write_bytes(held)  # taken out
    assert REMOVED in _texts_read(ctx)
    cli.ok(*GRANT, cwd=ctx.workspace.root)
    assert len(record.read_text().split()) == 5
    assert "ok" in cli.ok("verify", cwd=ctx.workspace.root)


def test_an_older_stores_note_its_audit_entry_vouches_for_is_taken_under_a_record_from_before_payload_vouching(
        ctx: Context) -> None:
    """Older versions kept a redaction's note in payloads.jsonl, in place of the payload line,
    and its audit entry (naming the event and its digest) in an append of its own: such a note
    is vouched for, so the comment reads as removed and the next append writes the record whole."""
    payloads, _, record = _files(ctx)
    removed = _digest_of(payloads, REMOVED)
    [(event_id, event)] = [(i, e) for i, e in ctx.view().events.items() if e.get("payloadDigest") == removed]
    ctx.write([], "redact", "github:9", [event_id, event["digest"]], "asked the old way")
    record.write_text(" ".join(record.read_text().split()[:3]) + "\n")
    note = json.dumps({"payload_digest": removed, "note": {**NOTE, "reason": "asked the old way"}},
                      separators=(",", ":")).encode()
    payloads.write_bytes(b"".join((note if _payload_digest(line) == removed else line) + b"\n"
                                  for line in payloads.read_bytes().splitlines()))
    assert REMOVED not in _texts_read(ctx)
    cli.ok(*GRANT, cwd=ctx.workspace.root)
    assert len(record.read_text().split()) == 5 and note in payloads.read_bytes()
    assert REMOVED not in _texts_read(ctx)
    assert "ok" in cli.ok("verify", cwd=ctx.workspace.root)


def _payload_digest(line: bytes) -> str:
    return str(json.loads(line)["payload_digest"])
