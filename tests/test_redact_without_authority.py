"""A redaction whose removal carries no authority where it is read: one made before the team
adopted a policy (unsigned), or a teammate's in a repository without a policy. Its text is gone
from the clone all the same; the removal can be made again, with authority, found by the source
comment id its note keeps; readers are told which removal took the text; verify names each such
note once. Real clones of one bare remote, real ``gitstore sync``, real ssh-keygen keys."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gitstore.capture.reviews import import_reviews
from gitstore.context import Context
from gitstore.errors import Refused
from gitstore.ops.redact import redact
from gitstore.providers._names import payload_path, records_ref
from gitstore.records.canonical import canonicalize
from gitstore.records.contracts import seal
from gitstore.queries.evidence import evidence
from gitstore.queries.verify import verify

from .cli import gitstore
from .conftest import git, made_once
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


def _team_without_policy(tmp_path: Path, redacted: bool = True) -> tuple[Context, Context, dict, dict]:
    """Alice and bob cloning one remote without a policy; alice stores a review comment (and a
    label on it) and proposes a learning citing it, both sync, then alice redacts it, unsigned
    (unless not ``redacted``), and both sync again. Returns the clones, the comment and its label."""
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
    if not redacted:
        return alice, bob, comment, label
    report = redact(alice, "github:comment:100", ALICE, "leaked a token")
    assert sorted(report.removed) == sorted([comment["id"], label["id"]])
    alice, bob = _synced(alice, bob)
    return alice, bob, comment, label


@made_once
def _policy_adopted(tmp_path: Path, redacted: bool = True) -> tuple[Context, Context, dict, dict]:
    """``_team_without_policy``, then alice commits a policy letting both of them do
    everything, pushes it, and each clone signs with their key: the redaction alice made
    before it is unsigned, so it stops counting."""
    alice, bob, comment, label = _team_without_policy(tmp_path, redacted)
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


def test_a_redaction_made_before_the_policy_is_not_made_again_on_its_claim_alone(tmp_path: Path) -> None:
    """The removal's text is gone, and only its note, which no longer counts, links the event
    to comment 100: that is a claim anyone who can push may make (a forced payload snapshot
    can drop anyone's text), so redact removes nothing on it: it exits as for an unknown
    comment, naming the claimed event, and writes nothing."""
    alice, bob, comment, label = _policy_adopted(tmp_path)
    assert _note_notices(alice), "the unsigned redaction does not count under the policy"
    assert "redaction" not in alice.view().events[comment["id"]]
    ref = records_ref("shared", alice.workspace.config.writer)
    before = git(alice.workspace.root, "rev-parse", ref).strip()
    refused = gitstore("redact", "--comment", "github:comment:100", "--by", ALICE, "--reason", "x",
                       cwd=alice.workspace.root)
    assert refused.returncode != 0 and "no comment with source id github:comment:100" in refused.stderr, refused
    assert f"{comment['episode']}:{comment['id']}: writer " in refused.stderr, refused.stderr
    assert "nothing was done to it" in refused.stderr and label["id"] not in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert git(alice.workspace.root, "rev-parse", ref).strip() == before
    assert len(_note_notices(Context.open(alice.workspace.root))) == 2


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


def test_a_teammates_redaction_without_a_policy_is_named_as_a_claim_that_removed_nothing(tmp_path: Path) -> None:
    """Without a policy bob's clone honours only its own removals: alice's text is gone there
    (her snapshot dropped it), and evidence says her note, which carries no authority there,
    claims comment 100 and removed nothing; its by and reason (anyone's to write) are not told
    as what happened, and no command is suggested. Bob may make the removal himself, and then
    it counts there."""
    alice, bob, comment, label = _team_without_policy(tmp_path)
    event = bob.view().events[comment["id"]]
    assert "payload" not in event and "redaction" not in event
    shown = {e.event["id"]: e for e in evidence(bob, comment["episode"]).events}
    removed = shown[comment["id"]].removed or ""
    writer = alice.workspace.config.writer
    assert f"writer {writer}'s redaction note" in removed and "claims it held comment github:comment:100" in removed
    assert "nothing was removed by it" in removed and "carries no authority" in removed, removed
    assert "leaked a token" not in removed and "gitstore redact" not in removed and "has not arrived yet" not in removed
    assert "names no comment" in (shown[label["id"]].removed or "")
    printed = gitstore("evidence", comment["episode"], cwd=bob.workspace.root).stdout
    assert "nothing was removed by it" in printed and "leaked a token" not in printed, printed
    [lid] = bob.view().learnings
    shown = gitstore("show", lid, cwd=bob.workspace.root).stdout
    assert "carries no authority" in shown and "no removal took it" not in shown, shown
    with pytest.raises(Refused, match="claims it held github:comment:100; nothing was done to it"):
        redact(bob, "github:comment:100", BOB, "leaked a token")
    assert "redaction" not in Context.open(bob.workspace.root).view().events[comment["id"]]


def test_the_policy_names_the_redaction_made_before_it_as_the_removal_that_took_the_text(tmp_path: Path) -> None:
    """On alice's own clone, once the policy stops her unsigned redaction counting, evidence
    says her note names the comment and removed nothing, without its by or reason (a runner's
    "own" history may hold anyone's note). While no version of the comment holds text here no
    command is suggested (redact would refuse: only the note links the event to it); once a
    later version is imported, evidence says which command makes the removal again, without
    --by."""
    alice, _, comment, _ = _policy_adopted(tmp_path)
    shown = {e.event["id"]: e for e in evidence(alice, comment["episode"]).events}
    removed = shown[comment["id"]].removed or ""
    assert "nothing was removed by it" in removed and "claims it held comment github:comment:100" in removed
    assert "leaked a token" not in removed and "--by" not in removed, removed
    assert "gitstore redact" not in removed and "has not arrived yet" not in removed, removed
    import_reviews(alice, _later(tmp_path, "Retries: the ZORBLAX VENTRIQUE words, edited.", "2026-03-05T10:00:00Z"),
                   ALICE)
    alice = Context.open(alice.workspace.root)
    shown = {e.event["id"]: e for e in evidence(alice, comment["episode"]).events}
    removed = shown[comment["id"]].removed or ""
    assert "if it is a removal you made before the team's policy, make it again with " \
           "`gitstore redact --comment github:comment:100 --reason ...`" in removed, removed
    assert "--by" not in removed, removed


def _later(tmp_path: Path, text: str, updated: str) -> Path:
    """A GitHub snapshot of pull request 7 holding a later version (an edit) of comment 100."""
    body = {"id": 100, "user": {"id": 1001}, "body": text, "created_at": "2026-03-01T10:00:00Z",
            "updated_at": updated, "path": "src/retry.py", "line": 3, "commit_id": "a" * 40}
    snapshot = tmp_path / f"later-{updated[:10]}.json"
    snapshot.write_text(json.dumps({
        "format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": 7,
        "head": {"ref": "feature/7", "sha": "a" * 40},
        "responses": [{"collection": "pull-comments", "page": 1, "link": "", "body": [body]},
                      {"collection": "reviews", "page": 1, "link": "", "body": []},
                      {"collection": "issue-comments", "page": 1, "link": "", "body": []}]}))
    return snapshot


def test_a_removal_made_before_the_policy_keeps_nothing_out_of_an_import_until_made_again(tmp_path: Path) -> None:
    """Once the policy stops alice's unsigned redaction counting, it removes nothing: GitHub's
    later version of the comment (an edit) is imported with its text. Verify says a note
    without authority names the comment and which command makes a removal again, without the
    note's ``by``; made again, it removes the version imported since (the earlier one, with no
    text here, is left alone: only a note without authority links it to the comment), and from
    then on an import withholds the comment. Before that import no version of the comment
    holds text here, and verify suggests no command (redact would refuse)."""
    alice, _, comment, label = _policy_adopted(tmp_path)
    before = gitstore("verify", cwd=alice.workspace.root)
    told = [line for line in before.stderr.splitlines() if comment["payloadDigest"] in line]
    assert before.returncode == 0 and len(told) == 1 and "nothing was removed by it" in told[0], before
    assert "gitstore redact" not in told[0] and "make it again" not in told[0], told
    import_reviews(alice, _later(tmp_path, "Retries: the ZORBLAX VENTRIQUE words, edited.", "2026-03-05T10:00:00Z"),
                   ALICE)
    alice = Context.open(alice.workspace.root)
    [edit] = [e for e in alice.view().events.values() if "ZORBLAX VENTRIQUE" in (e.get("payload") or {}).get("text", "")]
    assert edit["payload"]["sourceId"] == "github:comment:100", "a note without authority withholds nothing"
    done = gitstore("verify", cwd=alice.workspace.root)
    told = [line for line in done.stderr.splitlines() if comment["payloadDigest"] in line]
    assert done.returncode == 0 and len(told) == 1, done
    assert "the payload is not treated as removed" in told[0] and "nothing was removed by it" in told[0], told
    assert "`gitstore redact --comment github:comment:100 --reason ...`" in told[0] and "--by" not in told[0], told
    again = gitstore("redact", "--comment", "github:comment:100", "--by", ALICE, "--reason", "leaked a token",
                     cwd=alice.workspace.root)
    assert again.returncode == 0 and "removed the text of 1 event(s)" in again.stdout, again
    assert f"left alone {comment['episode']}:{comment['id']}" in again.stdout, again.stdout
    alice = Context.open(alice.workspace.root)
    events = alice.view().events
    assert "payload" not in events[edit["id"]] and "redaction" in events[edit["id"]]
    for event in (comment, label):
        assert "payload" not in events[event["id"]] and "redaction" not in events[event["id"]], event["id"]
    before = set(events)
    report = import_reviews(alice, _later(tmp_path, "Retries: QWERTZUIOP MEMBRANE words.", "2026-03-09T10:00:00Z"),
                            ALICE)
    after = Context.open(alice.workspace.root).view().events
    assert not any("QWERTZUIOP" in (e.get("payload") or {}).get("text", "") for e in after.values()), report
    assert all("payload" not in after[e] for e in set(after) - before)


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


def _hostile_append(bare: Path, writer: str, scope: str, payload_digest: str, note: bytes | None,
                    text: bytes) -> str:
    """Someone with push access fast-forwards ``writer``'s records ref in ``bare`` with an
    unsigned append (one audit entry) whose ``Removes`` lists ``payload_digest``: its tree
    holds ``note`` at the note's path instead of the note stored there (None: the note as
    stored, listed again), and ``writer``'s payload snapshot is pushed holding the removed
    payload's bytes, ``text``, again (seen before the removal). Returns the commit."""
    import pygit2

    from gitstore.conformance import batch
    from gitstore.providers.git import GitProvider, format_message, note_path, parse_message, payloads_ref

    audit = seal({"schema": "gitstore.audit/v1", "scope": scope, "action": "redact", "by": ALICE,
                  "at": "2026-09-01T00:00:00.000000Z", "subjects": [payload_digest], "records": [], "reason": "tidy"})
    GitProvider(bare, writer).append(batch(audit))
    repo = pygit2.Repository(str(bare))
    ref = records_ref("shared", writer)
    made = repo[repo.references[ref].target]
    index = pygit2.Index()
    index.read_tree(made.tree)
    if note is not None:
        index.add(pygit2.IndexEntry(note_path(payload_digest), repo.create_blob(note), pygit2.GIT_FILEMODE_BLOB))
    header = parse_message(made.message)
    lines = [type("Line", (), {"digest": d, "kind": k, "stream": s})() for d, k, s in header.lines]
    message = format_message(header.clock, writer, "shared", lines, [payload_digest], header.seen)
    commit = repo.create_commit(None, made.author, made.committer, message, index.write_tree(repo), made.parent_ids)
    repo.references.create(ref, commit, force=True)
    snapshot = payloads_ref("shared", writer)
    index = pygit2.Index()
    index.read_tree(repo[repo.references[snapshot].target].tree)
    index.add(pygit2.IndexEntry(payload_path(payload_digest), repo.create_blob(text),
                                pygit2.GIT_FILEMODE_BLOB))
    signature = pygit2.Signature("gitstore", "gitstore@localhost")
    repo.references.create(snapshot, repo.create_commit(None, signature, signature, "gitstore: payloads\n",
                                                        index.write_tree(repo), []), force=True)
    return str(commit)


@pytest.mark.parametrize("rewrite", [True, False], ids=["note-rewritten", "note-listed-again-unsigned"])
def test_an_unsigned_append_on_a_writers_ref_brings_no_removed_text_back(tmp_path: Path, rewrite: bool) -> None:
    """Alice's removal, signed under the policy, counts. Then someone with push
    access fast-forwards her records ref with an unsigned append listing the payload in its
    ``Removes`` (its note's bytes rewritten, or as they were) and pushes her payload snapshot
    holding the text again. A rewritten note is damage: verify names it, sync holds the ref
    back. The note listed again unsigned is accepted, and lowers nothing: the signed append
    that listed it still makes it count. Either way bob's clone never reads the text again."""
    alice, bob, comment, label = _policy_adopted(tmp_path, redacted=False)
    redact(alice, "github:comment:100", ALICE, "leaked a token")
    alice, bob = _synced(Context.open(alice.workspace.root), bob)
    assert _note_notices(bob) == [] and "redaction" in bob.view().events[comment["id"]]
    payload = canonicalize(comment["payload"])
    assert "sha256:" + hashlib.sha256(payload).hexdigest() == comment["payloadDigest"]
    bare = Path(git(bob.workspace.root, "remote", "get-url", "origin").strip())
    forged = {"at": AT, "by": BOB, "reason": "rewritten", "sourceId": "github:comment:100"}
    _hostile_append(bare, alice.workspace.config.writer, alice.scope, comment["payloadDigest"],
                    canonicalize(forged) if rewrite else None, payload)
    from gitstore.sync.remote import sync as gitstore_sync

    git(bob.workspace.root, "fetch", "-q", "origin")  # a plain fetch first: verify judges what it brought
    checked = gitstore("verify", cwd=bob.workspace.root)
    if rewrite:
        assert checked.returncode == 3 and "was M: records are only ever added" in checked.stderr, checked
    else:
        assert checked.returncode == 0 and "redaction note" not in checked.stdout + checked.stderr, checked
    done = gitstore_sync(str(bob.workspace.root))
    if rewrite:  # held back, her ref read where it was admitted
        assert done.status == "degraded", done.line
        assert any("was M: records are only ever added" in q.line for q in done.quarantined), done.line
    else:
        assert done.status in ("ok", "no-update"), done.line
    bob = Context.open(bob.workspace.root)
    event = bob.view().events[comment["id"]]
    assert "payload" not in event and event["redaction"]["reason"] == "leaked a token", event
    printed = gitstore("evidence", comment["episode"], cwd=bob.workspace.root).stdout
    assert "QUIBBLETON" not in printed and "removed" in printed, printed
    assert verify(bob.store).ok and _note_notices(bob) == []
