"""A redaction whose removal carries no authority where it is read: one made before the team
adopted a policy (unsigned), or a teammate's in a repository without a policy. Its text is gone
from the clone all the same; the removal can be made again, with authority, found by the source
comment id its note keeps; readers are told which removal took the text; verify names each such
note once. Real clones of one bare remote, real ``gitstore sync``, real ssh-keygen keys."""

from __future__ import annotations

import json
from pathlib import Path

from gitstore.capture.reviews import import_reviews
from gitstore.context import Context
from gitstore.ops.redact import redact
from gitstore.queries.evidence import evidence
from gitstore.queries.verify import verify

from .cli import gitstore
from .conftest import all_objects, git
from .team import EVERYTHING, commit_all, first_clone, keypair, shared_remote, sign_as, team_clone, write_policy
from .world import Thread, grant_all, propose, ref

ALICE, BOB = "github:9", "github:10"
SECRET = "Flumox QUIBBLETON token zarkwell leaked here."
AT = "2026-03-01T10:00:00.000000Z"


def _synced(*clones: Context) -> list[Context]:
    """Each clone runs ``gitstore sync`` in turn (the first again last, so each has every
    other's memory); fresh contexts."""
    from gitstore.sync.remote import sync as gitstore_sync

    for ctx in (*clones, clones[0]):
        done = gitstore_sync(str(ctx.workspace.root))
        assert done.status in ("ok", "no-update"), done.line
    return [Context.open(ctx.workspace.root) for ctx in clones]


def _team_without_policy(tmp_path: Path) -> tuple[Context, Context, dict, dict]:
    """Alice and bob cloning one remote without a policy; alice stores a review comment (and a
    label on it) and proposes a learning citing it, both sync, then alice redacts it, unsigned, and both sync again. Returns the
    clones, the comment and its label."""
    bare = shared_remote(tmp_path)
    alice = Context.open(first_clone(tmp_path, bare))
    grant_all(alice)
    thread = Thread(alice, 7, "100")
    comment = thread.comment("100", SECRET, AT)
    label = thread.label(comment, "retries", AT)
    thread.save()
    propose(alice, [ref(comment)])
    bob = team_clone(tmp_path, bare, "bob")
    alice, bob = _synced(alice, bob)
    report = redact(alice, "github:comment:100", ALICE, "leaked a token")
    assert sorted(report.removed) == sorted([comment["id"], label["id"]])
    alice, bob = _synced(alice, bob)
    return alice, bob, comment, label


def _policy_adopted(tmp_path: Path) -> tuple[Context, Context, dict, dict]:
    """``_team_without_policy``, then alice commits a policy letting both of them do
    everything, pushes it, and each clone signs with their key: the redaction alice made
    before it is unsigned, so it stops counting."""
    alice, bob, comment, label = _team_without_policy(tmp_path)
    keys = {who: keypair(tmp_path / "keys", who) for who in (ALICE, BOB)}
    root = alice.workspace.root
    write_policy(root, {ALICE: EVERYTHING, BOB: EVERYTHING}, {who: key for who, (_, key) in keys.items()})
    commit_all(root, "Who may decide")
    git(root, "push", "-q", "origin", "main")
    sign_as(root, keys[ALICE][0])
    git(bob.workspace.root, "pull", "-q", "origin", "main")
    sign_as(bob.workspace.root, keys[BOB][0])
    alice, bob = _synced(Context.open(root), Context.open(bob.workspace.root))
    return alice, bob, comment, label


def _note_notices(ctx: Context) -> list[str]:
    return [f"{n.where}: {n.message}" for n in verify(ctx.store).notices if n.where.startswith("redaction note ")]


def test_a_redaction_made_before_the_policy_can_be_made_again_signed_and_then_counts(tmp_path: Path) -> None:
    """The removal's text is gone, so the comment is found by the source id its note keeps:
    the redaction made again is signed and counts, on alice's clone and on bob's after a sync,
    and verify names no note as not counted any more."""
    alice, bob, comment, label = _policy_adopted(tmp_path)
    assert _note_notices(alice), "the unsigned redaction does not count under the policy"
    assert "redaction" not in alice.view().events[comment["id"]]
    report = redact(alice, "github:comment:100", ALICE, "leaked a token, signed")
    assert sorted(report.removed) == sorted([comment["id"], label["id"]]) and report.already == []
    alice, bob = _synced(Context.open(alice.workspace.root), bob)
    for ctx in (alice, bob):
        events = ctx.view().events
        for event in (comment, label):
            assert events[event["id"]]["redaction"]["reason"] == "leaked a token, signed", ctx.workspace.root.name
        assert events[comment["id"]]["redaction"]["sourceId"] == "github:comment:100"
        assert _note_notices(ctx) == [] and verify(ctx.store).ok, ctx.workspace.root.name
    again = redact(alice, "github:comment:100", ALICE, "once more")
    assert again.removed == [] and sorted(again.already) == sorted([comment["id"], label["id"]])


def test_verify_names_each_note_without_authority_once(tmp_path: Path) -> None:
    """A note kept in alice's records tip and in the copy of it sync fetched is one removal:
    verify names each of the two notes (the comment's, the label's) once, and counts them once
    each beside the grant made before the policy."""
    alice, bob, comment, label = _policy_adopted(tmp_path)
    for ctx in (alice, bob):
        notices = _note_notices(ctx)
        assert len(notices) == 2 and len(set(notices)) == 2, (ctx.workspace.root.name, notices)
        assert len(verify(ctx.store).notices) == 3
    done = gitstore("verify", cwd=alice.workspace.root)
    assert "3 record(s) not counted" in done.stdout and done.stderr.count("not counted: redaction note") == 2, done


def test_a_teammates_redaction_without_a_policy_is_named_as_the_removal_that_took_the_text(tmp_path: Path) -> None:
    """Without a policy bob's clone honours only its own removals: alice's text is gone there,
    and evidence says her removal took it, that it carries no authority there, and which
    command makes it count; bob makes it, and then it counts there."""
    alice, bob, comment, label = _team_without_policy(tmp_path)
    event = bob.view().events[comment["id"]]
    assert "payload" not in event and "redaction" not in event
    shown = {e.event["id"]: e for e in evidence(bob, comment["episode"]).events}
    removed = shown[comment["id"]].removed or ""
    assert "leaked a token" in removed and "carries no authority" in removed, removed
    assert "has not arrived yet" not in removed and "gitstore redact --comment github:comment:100" in removed
    assert "carries no authority" in (shown[label["id"]].removed or "")
    printed = gitstore("evidence", comment["episode"], cwd=bob.workspace.root).stdout
    assert "removed at" in printed and "has not arrived yet" not in printed, printed
    [lid] = bob.view().learnings
    shown = gitstore("show", lid, cwd=bob.workspace.root).stdout
    assert "carries no authority" in shown and "no removal took it" not in shown, shown
    report = redact(bob, "github:comment:100", BOB, "leaked a token")
    assert sorted(report.removed) == sorted([comment["id"], label["id"]])
    event = Context.open(bob.workspace.root).view().events[comment["id"]]
    assert event["redaction"]["by"] == BOB and verify(Context.open(bob.workspace.root).store).ok


def test_the_policy_names_the_redaction_made_before_it_as_the_removal_that_took_the_text(tmp_path: Path) -> None:
    """On alice's own clone, once the policy stops her unsigned redaction counting, evidence
    names that removal and says it counts once made again, signed."""
    alice, _, comment, _ = _policy_adopted(tmp_path)
    shown = {e.event["id"]: e for e in evidence(alice, comment["episode"]).events}
    removed = shown[comment["id"]].removed or ""
    assert "leaked a token" in removed and "is not signed" in removed and "gitstore redact --comment" in removed
    assert "has not arrived yet" not in removed


def test_an_import_brings_back_no_version_of_a_comment_a_removal_without_authority_took(tmp_path: Path) -> None:
    """Once the policy stops alice's unsigned redaction counting, GitHub's later version of the
    comment (an edit) is not imported: the text is gone from her clone all the same, and an
    import brings no version of that comment back, nor writes its text anywhere in storage."""
    alice, _, comment, _ = _policy_adopted(tmp_path)
    later = "Retries: the ZORBLAX VENTRIQUE words, edited."
    body = {"id": 100, "user": {"id": 1001}, "body": later, "created_at": "2026-03-01T10:00:00Z",
            "updated_at": "2026-03-05T10:00:00Z", "path": "src/retry.py", "line": 3, "commit_id": "a" * 40}
    snapshot = tmp_path / "later.json"
    snapshot.write_text(json.dumps({
        "format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": 7,
        "head": {"ref": "feature/7", "sha": "a" * 40},
        "responses": [{"collection": "pull-comments", "page": 1, "link": "", "body": [body]},
                      {"collection": "reviews", "page": 1, "link": "", "body": []},
                      {"collection": "issue-comments", "page": 1, "link": "", "body": []}]}))
    before = set(alice.view().events)
    import_reviews(alice, snapshot, ALICE)
    assert set(Context.open(alice.workspace.root).view().events) == before
    assert b"ZORBLAX VENTRIQUE" not in all_objects(alice.workspace.root)


def test_redact_says_what_to_do_with_a_learning_citing_the_comment(tmp_path: Path) -> None:
    """A learning citing the removed comment is named with the commands that deal with it."""
    from .world import ready_repo

    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    one = thread.comment("100", "Add jitter to every retry.", AT)
    thread.save()
    lid = propose(ctx, [ref(one)])["id"]
    done = gitstore("redact", "--comment", "github:comment:100", "--reason", "asked", "--by", ALICE,
                    cwd=ctx.workspace.root)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if lid in line)
    assert f"gitstore retire {lid}" in line and f"gitstore show {lid}" in line, line
    assert json.loads(gitstore("redact", "--comment", "github:comment:100", "--reason", "asked", "--by", ALICE,
                               "--json", cwd=ctx.workspace.root).stdout)["learningsToRebuild"] == [lid]
