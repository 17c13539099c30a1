"""Exports (purpose-checked, recorded, only under the ignored local folder) and redaction (every
version and label of a comment, idempotent, gone from the object database after gc)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from gitstore import Refused
from gitstore.ops.gc import gc
from gitstore.ops import consent
from gitstore.ops.export import export
from gitstore.ops.redact import redact
from gitstore.rules.active import active
from gitstore.store import Store

from .world import Thread, accepted, grant_all, propose, ready_repo, ref


@pytest.fixture
def world(tmp_path: Path):  # type: ignore[no-untyped-def]
    ctx = ready_repo(tmp_path / "widgets")
    grant = grant_all(ctx, purposes=("review", "instruction", "evaluation"))
    thread = Thread(ctx, 7, "100")
    first = thread.comment("100", "Use the-secret-retry-advice now.", "2026-03-01T10:00:00.000000Z")
    edit = thread.edit(first, "100", "Use the-edited-secret-advice now.", "2026-03-01T11:00:00.000000Z")
    label = thread.label(edit, "retry-jitter", "2026-03-01T12:00:00.000000Z")
    other = thread.comment("101", "Unrelated words stay.", "2026-03-02T10:00:00.000000Z", author="github:1002")
    thread.save()
    learning = accepted(ctx, propose(ctx, [ref(edit)]))
    return ctx, grant, first, edit, label, other, learning


def test_export_refuses_a_purpose_no_grant_permits(world) -> None:  # type: ignore[no-untyped-def]
    ctx, *_ = world
    with pytest.raises(Refused, match="no active grant permits training"):
        export(ctx, "training", "github:9")


def test_export_records_items_and_grants_and_withdrawal_lists_it(world) -> None:  # type: ignore[no-untyped-def]
    ctx, grant, first, edit, label, other, learning = world
    records, path = export(ctx, "evaluation", "github:9", with_evidence=True)
    [record] = records.values()  # nothing of this machine's own memory: one shared record
    assert list(records) == ["shared"] and path.parent == (ctx.workspace.state / "exports").resolve()
    assert subprocess.run(["git", "check-ignore", "-q", str(path)], cwd=ctx.workspace.root).returncode == 0
    kinds = {(i["kind"], i["id"]) for i in record["items"]}
    assert ("learning", learning["id"]) in kinds and ("event", edit["id"]) in kinds
    assert all(i["grants"] == [grant["digest"]] for i in record["items"])
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert {line["digest"] for line in lines} == {i["digest"] for i in record["items"]}
    audit = ctx.view().audits[-1]
    assert audit["action"] == "export" and record["digest"] in audit["records"]
    withdrawal = consent.withdraw(ctx, "github:9", grant["digest"], ["evaluation"], "stop")
    assert withdrawal["exports"] == [record["digest"]]


def test_export_refuses_a_state_folder_leading_outside(world, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    ctx, *_ = world
    outside = tmp_path / "outside"
    outside.mkdir()
    exports = ctx.workspace.state / "exports"
    exports.rmdir()
    os.symlink(outside, exports)
    with pytest.raises(Refused, match="outside the repository"):
        export(ctx, "evaluation", "github:9")
    assert list(outside.iterdir()) == []


def test_redaction_removes_every_version_and_label_keeping_digests(world) -> None:  # type: ignore[no-untyped-def]
    ctx, grant, first, edit, label, other, learning = world
    record = export(ctx, "evaluation", "github:9", with_evidence=True)[0]["shared"]
    report = redact(ctx, "github:comment:100", "github:9", "asked by author")
    assert sorted(report.removed) == sorted([first["id"], edit["id"], label["id"]])
    assert report.learnings == [learning["id"]] and report.exports == [record["digest"]]
    assert report.rewritten == [record["path"]]  # the export keeps the note, not the text
    exported = (ctx.workspace.root / record["path"]).read_text()
    assert "the-secret-retry-advice" not in exported and "asked by author" in exported
    view = ctx.view()
    assert "payload" not in view.events[first["id"]] and view.events[first["id"]]["redaction"]["reason"] == "asked by author"
    assert view.events[other["id"]]["payload"]["text"] == "Unrelated words stay."
    assert active(view, "instruction") == [], "a redacted event is never evidence"
    audits = [a for a in view.audits if a["action"] == "redact"]
    assert len(audits) == 3
    again = redact(ctx, "github:comment:100", "github:9", "asked again")
    assert again.removed == [] and sorted(again.already) == sorted(report.removed)
    assert len([a for a in ctx.view().audits if a["action"] == "redact"]) == 3, "a retry writes the same entries"
    gc(ctx.store)
    objects = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=ctx.workspace.root,
                             capture_output=True).stdout
    assert b"the-secret-retry-advice" not in objects and b"the-edited-secret-advice" not in objects
    assert b"Unrelated words stay." in objects
    assert Store(ctx.store.provider, ctx.scope).verify().ok
    history_ok = [i for i in ctx.view().learnings[learning["id"]]]
    assert len(history_ok) == 2  # approvals still verify: the store re-checked every digest on load


def test_redaction_refuses_unknown_comments(world) -> None:  # type: ignore[no-untyped-def]
    ctx, *_ = world
    with pytest.raises(Refused, match="no comment with source id"):
        redact(ctx, "github:comment:999", "github:9", "x")


def test_reimporting_after_redaction_does_not_restore_text(world) -> None:  # type: ignore[no-untyped-def]
    ctx, grant, first, *_ = world
    redact(ctx, "github:comment:100", "github:9", "asked")
    ctx.store.append([first])  # the old snapshot brings the same event, payload and all
    assert "payload" not in ctx.view().events[first["id"]]


def test_every_action_writes_its_audit_entry_in_the_same_append(world) -> None:  # type: ignore[no-untyped-def]
    ctx, grant, *_, learning = world
    by_digest = {i.digest: i for i in ctx.store.items()}
    actions = {a["action"] for a in ctx.view().audits}
    assert {"grant", "propose", "accept"} <= actions
    for audit in ctx.view().audits:
        for digest in audit["records"]:
            assert by_digest[digest].stored.clock == by_digest[audit["digest"]].stored.clock


def test_an_export_whose_file_cannot_be_written_is_not_recorded(world, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The file is written aside before the export is recorded: one the disk refuses (here a
    folder in the way of its temporary name) records nothing and leaves nothing, so the audit
    never names an export no one can read."""
    from gitstore._files import temporary_name
    from gitstore.ops.export import _destination

    ctx, *_ = world
    stamp = "2026-03-05T10:00:00.000000Z"
    monkeypatch.setattr("gitstore.ops.export.now", lambda: stamp)
    path = _destination(ctx, "evaluation", stamp)
    blocker = Path(temporary_name(path))
    blocker.mkdir()
    records = len(list(ctx.store.items()))
    with pytest.raises(OSError) as refused:
        export(ctx, "evaluation", "github:9")
    assert refused.value.filename == str(path)
    assert len(list(ctx.store.items())) == records, "no export and no audit entry recorded"
    assert not path.exists()
    blocker.rmdir()
    records, written = export(ctx, "evaluation", "github:9")
    record = records["shared"]
    assert written == path and path.is_file() and record["path"].endswith(path.name)
    assert [p.name for p in path.parent.iterdir()] == [path.name], "no temporary file left"


def test_redaction_rewrites_only_this_clones_export_files(world) -> None:  # type: ignore[no-untyped-def]
    """An export record is anyone's to store (`records add`, or a sync), naming any path: a file
    of the repository it names is not an export this clone wrote. Redaction leaves such files as
    they are and finishes (a README that is no JSON stopped it midway, with a traceback), and an
    export file of this clone with a line that is not JSON still loses the text."""
    from gitstore.ops import unfinished
    from gitstore.ops.gc import collect
    from gitstore.records.contracts import seal

    ctx, grant, first, edit, label, other, learning = world
    root = ctx.workspace.root
    (root / "README.md").write_text("# Widgets\n\nA library.\n")
    (root / "data").mkdir()
    tracked = json.dumps(first) + "\n"  # a copy of the event, text and all, that no export of this clone wrote
    (root / "data" / "copy.jsonl").write_text(tracked)
    record = export(ctx, "evaluation", "github:9", with_evidence=True)[0]["shared"]
    own = root / record["path"]
    own.write_text("not json, added by hand\n" + own.read_text())
    item = {"kind": "event", "id": first["id"], "digest": first["digest"], "grants": []}
    for path in ("README.md", "data/copy.jsonl"):
        ctx.store.append([seal({"schema": "gitstore.export/v1", "scope": ctx.scope, "purpose": "evaluation",
                                "by": "github:666", "at": "2026-03-05T10:00:00.000000Z", "path": path,
                                "items": [item]})])
    report = redact(ctx, "github:comment:100", "github:9", "asked by author")
    assert report.rewritten == [record["path"]]
    assert (root / "README.md").read_text() == "# Widgets\n\nA library.\n"
    assert (root / "data" / "copy.jsonl").read_text() == tracked
    assert "the-secret-retry-advice" not in own.read_text() and own.read_text().startswith("not json")
    assert unfinished.notes(ctx.workspace.state) == []
    _, applied, _, _ = collect(ctx)
    assert applied.failed == []


def test_a_reason_or_note_is_stored_without_secrets(world) -> None:  # type: ignore[no-untyped-def]
    """A redaction's reason, a withdrawal's and a grant's note were stored as typed, in shared
    records every clone fetches and no removal can take back: a person asking to remove a
    token from a comment may well quote it there. The secrets in them are redacted before
    anything is stored, as in a proposal's texts (the rest is screened where it is shown)."""
    ctx, grant, first, edit, label, other, learning = world
    token = "ghp_" + "0fAGST5ohwj3Aio6ul2ncFNgdncvat1udBt1"
    redact(ctx, "github:comment:100", "github:9", f"it held {token}")
    withdrawal = consent.withdraw(ctx, "github:9", grant["digest"], ["evaluation"], f"leaked {token}")
    given = consent.grant(ctx, "github:9", ["review"], ["review-thread"], "2026-01-01", None, f"see {token}")
    assert withdrawal["reason"] == "leaked [REDACTED:github-token]" and given["note"] == "see [REDACTED:github-token]"
    assert ctx.view().events[first["id"]]["redaction"]["reason"] == "it held [REDACTED:github-token]"
    objects = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=ctx.workspace.root,
                             capture_output=True).stdout
    assert token.encode() not in objects
