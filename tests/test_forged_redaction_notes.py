"""A redaction note without authority stored by another writer removes nothing. Anyone who can
push may store, in their own writer's records, an unsigned removal of a comment of theirs (its
text gone from their snapshot) whose note names any comment of the team's repository; the
name is only a claim. It must not keep that comment from being imported with its text, keep it
from being redacted, or get it scrubbed from a saved GitHub snapshot. Real clones of one bare
remote under a policy, real ``gitstore sync``, real ssh-keygen keys."""

from __future__ import annotations

import json
from pathlib import Path

from gitstore.capture.reviews import import_reviews
from gitstore.conformance import R, batch
from gitstore.context import Context
from gitstore.ops.redact import redact
from gitstore.providers.git import GitProvider
from gitstore.queries.verify import verify
from gitstore.records.canonical import canonicalize

from .cli import gitstore
from .conftest import git
from .team import team_clone, two_reviewers
from .world import Thread, grant_all

ALICE, BOB = "github:9", "github:10"
TARGET = "github:comment:555"
KEPT = "Retries must back off with full jitter."


def _comment(number: int, body: str, at: str) -> dict:
    return {"id": number, "user": {"id": 77, "login": "carol"}, "body": body, "created_at": at, "updated_at": at,
            "path": "README.md", "line": 1, "commit_id": "e" * 40}


def _snapshot(path: Path, *comments: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": 12,
        "head": {"ref": "feature/12", "sha": "e" * 40},
        "responses": [{"collection": "pull-comments", "page": 1, "link": "", "body": list(comments)},
                      {"collection": "reviews", "page": 1, "link": "", "body": []},
                      {"collection": "issue-comments", "page": 1, "link": "", "body": []}]}))
    return path


def _synced(ctx: Context) -> Context:
    done = gitstore("sync", cwd=ctx.workspace.root)
    assert done.returncode == 0, done.stderr
    return Context.open(ctx.workspace.root)


def _mallorys_note(tmp_path: Path, bare: Path, names: str) -> dict:
    """Mallory (push access, not in the policy, no key) stores a comment of her own in thread
    999, then removes its text, unsigned, keeping a note that names ``names``, and pushes.
    Returns her comment."""
    mallory = team_clone(tmp_path, bare, "mallory")
    thread = Thread(mallory, 9, "999")
    decoy = thread.comment("999", "decoy text", "2026-03-02T10:00:00.000000Z")
    thread.save()
    note = {"at": "2026-03-02T11:00:00.000000Z", "by": ALICE, "reason": "tidy", "sourceId": names}
    GitProvider(mallory.workspace.root, mallory.workspace.config.writer).append(
        batch(R.audit("r", [], scope=mallory.scope, action="redact"),
              removals=[(decoy["payloadDigest"], canonicalize(note))]))
    git(mallory.workspace.root, "push", "-q", "origin")
    return decoy


def _not_counted(ctx: Context, decoy: dict) -> None:
    """Verify names mallory's note as carrying no authority, and her comment has no text here."""
    notices = [n.message for n in verify(ctx.store).notices if n.where == f"redaction note {decoy['payloadDigest']}"]
    assert notices and "the payload is not treated as removed" in notices[0], notices
    event = ctx.view().events[decoy["id"]]
    assert "payload" not in event and "redaction" not in event, event


def _versions(ctx: Context, source_id: str) -> list[dict]:
    return [e for e in ctx.view().events.values() if e["type"] in ("comment", "edit")
            and (e.get("payload") or e.get("redaction") or {}).get("sourceId") == source_id]


def test_another_writers_note_keeps_no_comment_from_being_imported(tmp_path: Path) -> None:
    """Mallory's note names comment 555 before anyone imported it: alice's import stores it with
    its text, withholding nothing."""
    alice, _ = two_reviewers(tmp_path)
    grant_all(alice)
    decoy = _mallorys_note(tmp_path, tmp_path / "remote.git", TARGET)
    alice = _synced(alice)
    _not_counted(alice, decoy)
    report = import_reviews(alice, _snapshot(tmp_path / "pr-12.json", _comment(555, KEPT, "2026-03-03T10:00:00Z")),
                            ALICE)
    versions = _versions(Context.open(alice.workspace.root), TARGET)
    assert report.skipped == [] and [v.get("payload", {}).get("text") for v in versions] == [KEPT], versions


def test_another_writers_note_keeps_no_comment_from_being_redacted(tmp_path: Path) -> None:
    """Comment 555 holds a leaked token; mallory's note names it from her thread 999: alice's
    redact removes the text of 555's own version, and counts mallory's comment as no version
    of it (no "appears in 2 threads")."""
    alice, _ = two_reviewers(tmp_path)
    grant_all(alice)
    import_reviews(alice, _snapshot(tmp_path / "pr-12.json", _comment(555, "oops AKIA token here",
                                                                        "2026-03-03T10:00:00Z")), ALICE)
    alice = _synced(alice)
    decoy = _mallorys_note(tmp_path, tmp_path / "remote.git", TARGET)
    alice = _synced(alice)
    _not_counted(alice, decoy)
    [version] = _versions(alice, TARGET)
    done = gitstore("redact", "--comment", TARGET, "--by", ALICE, "--reason", "leaked a token", cwd=alice.workspace.root)
    assert done.returncode == 0 and "removed the text of 1 event(s)" in done.stdout, done
    alice = Context.open(alice.workspace.root)
    events = alice.view().events
    assert "payload" not in events[version["id"]] and events[version["id"]]["redaction"]["sourceId"] == TARGET
    assert "redaction" not in events[decoy["id"]], "mallory's comment is none of 555's versions"


def test_another_writers_note_scrubs_no_saved_snapshot(tmp_path: Path) -> None:
    """Alice imported comments 555 and 600 from a snapshot saved in her inbox; mallory's note
    names 555; bob redacts 600, signed. Alice's sync scrubs 600 from the saved snapshot and
    leaves 555's text."""
    alice, bob = two_reviewers(tmp_path)
    grant_all(alice)
    saved = _snapshot(alice.workspace.root / "okf/.memory/inbox/github/acme--widgets--pr-12.json",
                      _comment(555, KEPT, "2026-03-03T10:00:00Z"),
                      _comment(600, "oops a leaked thing", "2026-03-03T11:00:00Z"))
    import_reviews(alice, saved, ALICE)
    alice, bob = _synced(alice), _synced(bob)
    decoy = _mallorys_note(tmp_path, tmp_path / "remote.git", TARGET)
    alice = _synced(alice)
    _not_counted(alice, decoy)
    bob = _synced(bob)
    redact(bob, "github:comment:600", BOB, "leaked")
    _synced(bob)
    done = gitstore("sync", cwd=alice.workspace.root)
    assert done.returncode == 0 and "1 saved GitHub snapshot(s) scrubbed" in done.stdout + done.stderr, done
    bodies = {c["id"]: c["body"] for c in json.loads(saved.read_text())["responses"][0]["body"]}
    assert bodies == {555: KEPT, 600: ""}, bodies
