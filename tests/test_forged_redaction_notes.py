"""A redaction note without authority stored by another writer removes nothing. Anyone who can
push may store, in their own writer's records, an unsigned removal of a comment of theirs (its
text gone from their snapshot) whose note names any comment of the team's repository; the
name is only a claim. It must not keep that comment from being imported with its text, keep it
from being redacted, or get it scrubbed from a saved GitHub snapshot. Real clones of one bare
remote under a policy, real ``gitstore sync``, real ssh-keygen keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gitstore.capture.reviews import import_reviews
from gitstore.conformance import R, batch
from gitstore.context import Context
from gitstore.ops.redact import redact
from gitstore.providers.git import GitProvider
from gitstore.queries.verify import verify
from gitstore.records.canonical import canonicalize

from .cli import gitstore
from .conftest import git
from .team import MEMORY_PUSH, team_clone, two_reviewers
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
    redact removes the text of 555's own version and is not refused for two threads: mallory's
    comment, whose only link to 555 is her note's claim, is left alone and named."""
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
    mallory = Context.open(tmp_path / "mallory").workspace.config.writer
    assert f"left alone {decoy['episode']}:{decoy['id']}: writer {mallory}'s redaction note without authority " \
           f"claims it held {TARGET}; nothing was done to it" in done.stdout, done.stdout
    alice = Context.open(alice.workspace.root)
    events = alice.view().events
    assert "payload" not in events[version["id"]] and events[version["id"]]["redaction"]["sourceId"] == TARGET
    assert "payload" not in events[decoy["id"]] and "redaction" not in events[decoy["id"]]


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


def _as_writer(tmp_path: Path, bare: Path, name: str, writer: str, fetch: bool = True) -> Context:
    """A clone set up with ``init --writer``, as a CI runner is (mallory needs only push access
    to write as the workflow's named writer)."""
    root = tmp_path / name
    git(tmp_path, "clone", "-q", str(bare), str(root))
    done = gitstore("init", "--writer", writer, cwd=root)
    assert done.returncode == 0, done.stderr
    for spec in MEMORY_PUSH:
        git(root, "config", "--add", "remote.origin.push", spec)
    if fetch:
        git(root, "fetch", "-q", "origin")
    return Context.open(root)


def _texts(ctx: Context, source_id: str) -> list[str | None]:
    return [(e.get("payload") or {}).get("text") for e in _versions(Context.open(ctx.workspace.root), source_id)]


def test_a_ci_runner_taking_up_its_writers_history_withholds_no_comment_a_note_there_names(tmp_path: Path) -> None:
    """Mallory appends to the CI writer's history on the remote an unsigned removal whose note
    names comment 555. A fresh runner (``init --writer ci-bot``, sync) takes that history up as
    its own; its import stores 555 with its text all the same, and every clone reads it so."""
    alice, ci, _ = _runner_took_up_a_note(tmp_path, "x")
    done = gitstore("import", "reviews", str(_snapshot(tmp_path / "pr-12.json", _comment(555, KEPT, "2026-03-03T10:00:00Z"))),
                    cwd=ci.workspace.root)
    assert done.returncode == 0 and "imported 1 comment(s)" in done.stdout, done
    assert _texts(ci, TARGET) == [KEPT]
    _synced(ci)
    assert _texts(_synced(alice), TARGET) == [KEPT]


def _mallorys_decoy(tmp_path: Path) -> tuple[Context, Path, Context, dict]:
    """Alice's team (a policy, synced); mallory, with push access and no key, set up as the CI
    writer, stores a decoy comment of her own in thread 999. (alice, the remote, mallory, the
    decoy event.)"""
    alice, _ = two_reviewers(tmp_path)
    grant_all(alice)
    bare = tmp_path / "remote.git"
    alice = _synced(alice)
    mallory = _as_writer(tmp_path, bare, "mallory", "ci-bot")
    thread = Thread(mallory, 9, "999")
    decoy = thread.comment("999", "decoy text", "2026-03-02T10:00:00.000000Z")
    thread.save()
    return alice, bare, mallory, decoy


def _malformed_ci_snapshot(tmp_path: Path) -> tuple[Context, Path, str]:
    """Alice's team; mallory replaces the CI writer's payload snapshot on the remote with a
    parentless commit holding only a ``notes/`` folder (where older versions kept own notes)
    whose note names comment 555. Returns alice, the remote and the note's path."""
    import pygit2

    from gitstore.providers._names import note_path

    alice, bare, mallory, decoy = _mallorys_decoy(tmp_path)
    repo = pygit2.Repository(str(mallory.workspace.root))
    note = {"at": "2026-03-02T11:00:00.000000Z", "by": ALICE, "reason": "x", "sourceId": TARGET}
    index = pygit2.Index()
    path = note_path(decoy["payloadDigest"])
    index.add(pygit2.IndexEntry(path, repo.create_blob(canonicalize(note)), pygit2.GIT_FILEMODE_BLOB))
    who = pygit2.Signature("m", "m@example.invalid")
    snapshot = repo.create_commit(None, who, who, "gitstore: payloads", index.write_tree(repo), [])
    repo.references.create("refs/memory/v1/payloads/shared/ci-bot", snapshot, force=True)
    git(mallory.workspace.root, "push", "-q", "origin")
    return alice, bare, path


def _import_and_push(tmp_path: Path, ci: Context, alice: Context) -> None:
    """The runner imports comment 555 and pushes; its text reaches alice's clone too."""
    done = gitstore("import", "reviews", str(_snapshot(tmp_path / "pr-12.json", _comment(555, KEPT, "2026-03-03T10:00:00Z"))),
                    cwd=ci.workspace.root)
    assert done.returncode == 0 and "imported 1 comment(s)" in done.stdout, done
    assert _texts(ci, TARGET) == [KEPT]
    own = git(ci.workspace.root, "ls-tree", "-r", "--name-only", "refs/memory/v1/payloads/shared/ci-bot")
    assert "notes/" not in own, own
    gitstore("sync", cwd=ci.workspace.root)
    gitstore("sync", cwd=alice.workspace.root)
    assert _texts(alice, TARGET) == [KEPT]


def test_sync_takes_up_no_malformed_payload_snapshot_of_the_runners_writer(tmp_path: Path) -> None:
    """A runner that fetched (plain git) before its first sync: sync quarantines mallory's
    snapshot and does not take it up as the runner's own, so no note in it counts and the
    snapshot the runner pushes holds 555's text, which alice reads."""
    alice, bare, path = _malformed_ci_snapshot(tmp_path)
    ci = _as_writer(tmp_path, bare, "ci", "ci-bot")
    done = gitstore("sync", cwd=ci.workspace.root)
    assert "left writer ci-bot's payload snapshot on origin out" in done.stdout + done.stderr, done
    _import_and_push(tmp_path, ci, alice)


def _workflow_setup() -> str:
    """The shell of the memory workflow's setup step that takes the writer's refs up."""
    from gitstore.sync.ci import _SETUP

    lines = _SETUP.split("run: |\n", 1)[1].splitlines()
    body = [line.strip() for line in lines[2:]]
    return "\n".join(body[:body.index('gitstore init --writer "$GITSTORE_WRITER"')])


def _workflow_runner(tmp_path: Path, bare: Path, name: str = "ci") -> tuple[Path, Any]:
    """A fresh runner of the CI writer, set up as the memory workflow's setup step does: a
    clone, memory's refspecs fetched, the step's shell, ``init --writer ci-bot``, and memory's
    push refspecs. (Its root; what init said.)"""
    import os
    import subprocess

    from gitstore.providers._names import fetch_refspecs

    root = tmp_path / name
    git(tmp_path, "clone", "-q", str(bare), str(root))
    git(root, "fetch", "-q", "--no-tags", "--no-filter", "origin", *fetch_refspecs("origin"))
    subprocess.run(["bash", "-c", _workflow_setup()], cwd=root, env={**os.environ, "GITSTORE_WRITER": "ci-bot"},
                   check=True, capture_output=True)
    done = gitstore("init", "--writer", "ci-bot", cwd=root)
    for spec in MEMORY_PUSH:
        git(root, "config", "--add", "remote.origin.push", spec)
    return root, done


def test_the_memory_workflow_takes_up_no_malformed_payload_snapshot(tmp_path: Path) -> None:
    """The workflow's setup step moves the fetched refs of its writer to its own before any
    gitstore command runs: it leaves a snapshot with a parent or a notes/ folder where the
    fetch put it, for sync to quarantine; the import stores 555 with its text."""
    alice, bare, _ = _malformed_ci_snapshot(tmp_path)
    root, done = _workflow_runner(tmp_path, bare)
    assert done.returncode == 0, done
    assert gitstore("verify", cwd=root).returncode == 0
    _import_and_push(tmp_path, Context.open(root), alice)


def test_a_note_in_the_own_payload_snapshot_counts_for_nothing_under_a_policy(tmp_path: Path) -> None:
    """The snapshot taken up by hand (as an older workflow did): verify names its note as
    counting for nothing, and the import stores 555 with its text."""
    alice, bare, _ = _malformed_ci_snapshot(tmp_path)
    ci = _as_writer(tmp_path, bare, "ci", "ci-bot")
    git(ci.workspace.root, "update-ref", "refs/memory/v1/payloads/shared/ci-bot",
        "refs/memory/v1/remotes/origin/payloads/shared/ci-bot")
    done = gitstore("verify", cwd=ci.workspace.root)  # the fetched copy is named damaged as well
    assert "not counted under the policy: it is kept in this clone's payload snapshot" in done.stderr, done
    done = gitstore("import", "reviews", str(_snapshot(tmp_path / "pr-12.json", _comment(555, KEPT, "2026-03-03T10:00:00Z"))),
                    cwd=ci.workspace.root)
    assert done.returncode == 0 and _texts(ci, TARGET) == [KEPT], done


def test_a_decoy_note_keeps_no_teammates_removal_from_being_made_again(tmp_path: Path) -> None:
    """Bob removed comment 555 unsigned (it counts nowhere under the policy; his snapshot
    dropped its text); mallory's note names 555 from her thread 999. Neither event holds text
    here and each is linked to 555 only by a note without authority: alice's redact of 555
    removes nothing, exits non-zero as for an unknown comment, naming both claims, and
    leaves the text of comment 600 alone."""
    alice, bob = two_reviewers(tmp_path)
    grant_all(alice)
    import_reviews(bob, _snapshot(tmp_path / "pr-12.json", _comment(555, "oops AKIA token here", "2026-03-03T10:00:00Z"),
                                  _comment(600, KEPT, "2026-03-03T11:00:00Z")), BOB)
    bob = Context.open(bob.workspace.root)
    [version] = _versions(bob, TARGET)
    note = {"at": "2026-03-03T12:00:00.000000Z", "by": BOB, "reason": "leaked token", "sourceId": TARGET}
    GitProvider(bob.workspace.root, bob.workspace.config.writer).append(
        batch(R.audit("b", [], scope=bob.scope, action="redact"), removals=[(version["payloadDigest"], canonicalize(note))]))
    git(bob.workspace.root, "push", "-q", "origin")
    decoy = _mallorys_note(tmp_path, tmp_path / "remote.git", TARGET)
    alice = _synced(alice)
    _not_counted(alice, decoy)
    assert "payload" not in alice.view().events[version["id"]]
    ref = f"refs/memory/v1/records/shared/{alice.workspace.config.writer}"
    before = git(alice.workspace.root, "rev-parse", ref)
    done = gitstore("redact", "--comment", TARGET, "--by", ALICE, "--reason", "leaked a token", cwd=alice.workspace.root)
    assert done.returncode != 0 and "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done
    assert f"no comment with source id {TARGET}" in done.stderr, done.stderr
    for event in (version, decoy):
        assert f"{event['episode']}:{event['id']}: writer " in done.stderr, done.stderr
    assert done.stderr.count("nothing was done to it") == 2, done.stderr
    assert git(alice.workspace.root, "rev-parse", ref) == before
    events = Context.open(alice.workspace.root).view().events
    assert "redaction" not in events[version["id"]] and "redaction" not in events[decoy["id"]]
    assert _texts(alice, "github:comment:600") == [KEPT]


def test_evidence_tells_another_writers_note_as_a_claim_and_suggests_no_removal(tmp_path: Path) -> None:
    """Carol's comment 555 is stored with its text; mallory's note names it from her thread.
    Evidence of mallory's thread says her note claims 555 and removed nothing, without her
    reason or any command to run, and 555 keeps its text."""
    alice, _ = two_reviewers(tmp_path)
    grant_all(alice)
    import_reviews(alice, _snapshot(tmp_path / "pr-12.json", _comment(555, KEPT, "2026-03-03T10:00:00Z")), ALICE)
    alice = _synced(alice)
    decoy = _mallorys_note(tmp_path, tmp_path / "remote.git", TARGET)
    alice = _synced(alice)
    printed = gitstore("evidence", decoy["episode"], cwd=alice.workspace.root)
    assert printed.returncode == 0, printed
    assert f"claims it held comment {TARGET}" in printed.stdout and "nothing was removed by it" in printed.stdout, printed
    assert "gitstore redact" not in printed.stdout and "tidy" not in printed.stdout, printed.stdout
    assert _texts(alice, TARGET) == [KEPT]


def test_a_claim_on_an_honest_comment_whose_text_a_forced_snapshot_dropped_is_never_redacted(tmp_path: Path) -> None:
    """Bob stored comments 555 (a leaked token) and 700 (carol's honest words). Mallory
    force-pushes bob's payload snapshot without 700's text, so alice's clone has none of it,
    and appends an unsigned removal of 700's payload whose note claims 555. Alice's redact of
    555 removes 555's own version only, names 700's event as left alone, and 700 keeps its
    text on bob's clone, and on alice's once bob pushes his snapshot again."""
    import pygit2

    from gitstore.providers._names import payload_path, payloads_ref

    alice, bob = two_reviewers(tmp_path)
    grant_all(alice)
    bare = tmp_path / "remote.git"
    import_reviews(bob, _snapshot(tmp_path / "pr-12.json", _comment(555, "oops AKIA token here", "2026-03-03T10:00:00Z"),
                                  _comment(700, KEPT, "2026-03-03T11:00:00Z")), BOB)
    bob = _synced(bob)
    [honest] = _versions(bob, "github:comment:700")
    mallory = team_clone(tmp_path, bare, "mallory")
    repo = pygit2.Repository(str(mallory.workspace.root))
    writer = bob.workspace.config.writer
    fetched = repo.references[f"refs/memory/v1/remotes/origin/payloads/shared/{writer}"].peel(pygit2.Commit)

    def without(tree: pygit2.Tree, parts: list[str]) -> pygit2.Oid:
        built = repo.TreeBuilder(tree)
        if len(parts) == 1:
            built.remove(parts[0])
        else:
            built.insert(parts[0], without(repo[tree[parts[0]].id], parts[1:]), pygit2.GIT_FILEMODE_TREE)
        return built.write()

    who = pygit2.Signature("bob", "bob@example.invalid")
    forced = repo.create_commit(None, who, who, "gitstore: payloads",
                                without(fetched.tree, payload_path(honest["payloadDigest"]).split("/")), [])
    repo.references.create("refs/heads/forced", forced, force=True)
    git(mallory.workspace.root, "push", "-q", "-f", "origin", f"refs/heads/forced:{payloads_ref('shared', writer)}")
    note = {"at": "2026-03-04T11:00:00.000000Z", "by": ALICE, "reason": "x", "sourceId": TARGET}
    GitProvider(mallory.workspace.root, mallory.workspace.config.writer).append(
        batch(R.audit("m", [], scope=mallory.scope, action="redact"),
              removals=[(honest["payloadDigest"], canonicalize(note))]))
    git(mallory.workspace.root, "push", "-q", "origin")
    alice = _synced(alice)
    assert "payload" not in alice.view().events[honest["id"]]
    [leaked] = _versions(alice, TARGET)
    done = gitstore("redact", "--comment", TARGET, "--by", ALICE, "--reason", "leaked a token", "--json",
                    cwd=alice.workspace.root)
    assert done.returncode == 0, done
    report = json.loads(done.stdout)
    assert report["removed"] == [leaked["id"]], report
    assert [c["event"] for c in report["claimsLeftAlone"]] == [honest["id"]], report
    assert "redaction" not in Context.open(alice.workspace.root).view().events[honest["id"]]
    _synced(alice)
    gitstore("sync", cwd=bob.workspace.root)  # quarantines the forced snapshot: it drops a payload
    assert _texts(bob, "github:comment:700") == [KEPT]
    _synced(bob)
    assert _texts(_synced(alice), "github:comment:700") == [KEPT]


def test_a_runner_tells_no_note_in_the_history_it_took_up_as_what_happened(tmp_path: Path) -> None:
    """Mallory appends to the CI writer's history on the remote an unsigned removal of her own
    comment whose note names comment 555, by alice, "tidy". A runner (``init --writer ci-bot``,
    sync) takes that history up as its own: its evidence and verify (which CI logs keep) say
    a note without authority names 555 and removed nothing, never mallory's by or reason as a
    removal that happened, and, no version of 555 holding text here, name no command."""
    _, ci, decoy = _runner_took_up_a_note(tmp_path, "tidy")
    printed = gitstore("evidence", decoy["episode"], cwd=ci.workspace.root)
    assert printed.returncode == 0 and f"claims it held comment {TARGET}: nothing was removed by it" in printed.stdout
    assert "tidy" not in printed.stdout and "text removed at" not in printed.stdout, printed.stdout
    assert "--by" not in printed.stdout, printed.stdout
    checked = gitstore("verify", cwd=ci.workspace.root)
    [told] = [line for line in checked.stderr.splitlines() if decoy["payloadDigest"] in line]
    assert f"names comment {TARGET}: nothing was removed by it" in told, told
    assert "gitstore redact" not in told and "--by" not in told, told  # no version of 555 here: redact would refuse
    assert "tidy" not in checked.stdout + checked.stderr


def test_the_memory_workflow_takes_up_no_payload_snapshot_whose_payload_does_not_match_its_digest(
        tmp_path: Path) -> None:
    """Mallory replaces the CI writer's payload snapshot on the remote with a parentless commit
    holding, at her comment's payload path, other bytes. The workflow's setup step (its shell,
    then ``init --writer``) leaves that snapshot out and says so, so the runner's import runs
    and stores 555 with its text, instead of dying on every run reading a payload that is not
    what its digest says."""
    import pygit2

    from gitstore.providers._names import payload_path

    _, bare, mallory, decoy = _mallorys_decoy(tmp_path)
    repo = pygit2.Repository(str(mallory.workspace.root))
    index = pygit2.Index()
    index.add(pygit2.IndexEntry(payload_path(decoy["payloadDigest"]), repo.create_blob(b'{"text": "Never retry."}'),
                                pygit2.GIT_FILEMODE_BLOB))
    who = pygit2.Signature("m", "m@example.invalid")
    snapshot = repo.create_commit(None, who, who, "gitstore: payloads", index.write_tree(repo), [])
    repo.references.create("refs/memory/v1/payloads/shared/ci-bot", snapshot, force=True)
    git(mallory.workspace.root, "push", "-q", "-f", "origin", "refs/memory/v1/records/shared/ci-bot",
        "+refs/memory/v1/payloads/shared/ci-bot")
    root, done = _workflow_runner(tmp_path, bare)
    assert done.returncode == 0 and "payload snapshot on origin out" in done.stdout, done
    assert "does not match its digest" in done.stdout, done.stdout
    assert git(root, "for-each-ref", "refs/memory/v1/payloads/shared/ci-bot").strip() == ""
    assert git(root, "for-each-ref", "refs/memory/v1/records/shared/ci-bot").strip() != ""
    imported = gitstore("import", "reviews", str(_snapshot(tmp_path / "pr-12.json", _comment(555, KEPT, "2026-03-03T10:00:00Z"))),
                        cwd=root)
    assert imported.returncode == 0 and "imported 1 comment(s)" in imported.stdout, imported
    assert _texts(Context.open(root), TARGET) == [KEPT]


def test_a_decoy_version_in_another_thread_is_left_alone_once_the_thread_is_chosen(tmp_path: Path) -> None:
    """Bob imported comment 555, which leaked a token; mallory (push access, no key) stores,
    unsigned, a comment of her own in another thread naming 555 ("LGTM"). Alice's redact is
    refused, naming both threads' episodes and --episode; --episode naming a thread holding no
    version of 555 is a one-line error; --episode naming bob's removes the leaked text and
    leaves mallory's decoy alone."""
    alice, bob = two_reviewers(tmp_path)
    grant_all(alice)
    alice, bob = _synced(alice), _synced(bob)
    import_reviews(bob, _snapshot(tmp_path / "pr-12.json", _comment(555, "oops AKIA1234SECRET token here",
                                                                      "2026-03-03T10:00:00Z")), BOB)
    bob = _synced(bob)
    mallory = team_clone(tmp_path, tmp_path / "remote.git", "mallory")
    thread = Thread(mallory, 9, "999")
    decoy = thread.comment("555", "LGTM", "2026-03-04T10:00:00.000000Z")
    thread.save()
    git(mallory.workspace.root, "push", "-q", "origin")
    alice = _synced(alice)
    [leak] = [v for v in _versions(alice, TARGET) if v["id"] != decoy["id"]]
    assert decoy["id"] in alice.view().events and leak["episode"] != decoy["episode"]
    redacting = ("redact", "--comment", TARGET, "--by", ALICE, "--reason", "leaked a token")
    refused = gitstore(*redacting, cwd=alice.workspace.root)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr, refused
    assert "appears in 2 threads" in refused.stderr and "--episode" in refused.stderr, refused.stderr
    assert leak["episode"] in refused.stderr and decoy["episode"] in refused.stderr, refused.stderr
    wrong = gitstore(*redacting, "--episode", "ep_" + "0" * 32, cwd=alice.workspace.root)
    assert wrong.returncode != 0 and len(wrong.stderr.strip().splitlines()) == 1, wrong
    assert "holds no version of comment github:comment:555" in wrong.stderr, wrong.stderr
    done = gitstore(*redacting, "--episode", leak["episode"], cwd=alice.workspace.root)
    assert done.returncode == 0 and "removed the text of 1 event(s)" in done.stdout, done
    events = Context.open(alice.workspace.root).view().events
    assert "payload" not in events[leak["id"]] and events[leak["id"]]["redaction"]["sourceId"] == TARGET
    assert events[decoy["id"]]["payload"]["text"] == "LGTM" and "redaction" not in events[decoy["id"]]


def _runner_took_up_a_note(tmp_path: Path, reason: str) -> tuple[Any, Any, dict[str, Any]]:
    """Mallory, with push access and no key, appends to the CI writer's history on the remote a
    decoy comment and an unsigned removal of it whose note names comment 555 (``reason`` its
    reason); a fresh runner (``init --writer ci-bot``) syncs and takes that history up as its
    own. (alice, synced before; the runner; the decoy event)."""
    alice, bare, mallory, decoy = _mallorys_decoy(tmp_path)
    note = {"at": "2026-03-02T11:00:00.000000Z", "by": ALICE, "reason": reason, "sourceId": TARGET}
    GitProvider(mallory.workspace.root, "ci-bot").append(
        batch(R.audit("r", [], scope=mallory.scope, action="redact"), removals=[(decoy["payloadDigest"], canonicalize(note))]))
    git(mallory.workspace.root, "push", "-q", "origin")
    ci = _as_writer(tmp_path, bare, "ci", "ci-bot")
    done = gitstore("sync", cwd=ci.workspace.root)
    assert done.returncode == 0 and "took up writer ci-bot's history" in done.stdout + done.stderr, done
    return alice, ci, decoy


def _run_imports(tmp_path: Path, bare: Path, name: str, number: int, body: str) -> Context:
    """A fresh runner of the CI writer (``_workflow_runner``) imports one comment and syncs."""
    root, done = _workflow_runner(tmp_path, bare, name)
    assert done.returncode == 0, done
    ci = Context.open(root)
    saved = _snapshot(tmp_path / f"pr-{number}.json", _comment(number, body, f"2026-03-0{number % 7 + 1}T10:00:00Z"))
    done = gitstore("import", "reviews", str(saved), cwd=ci.workspace.root)
    assert done.returncode == 0 and "imported 1 comment(s)" in done.stdout, done
    return _synced(ci)


def _forced_without(tmp_path: Path, bare: Path, digest: str) -> None:
    """Mallory forces the CI writer's payload snapshot on the remote to one without ``digest``."""
    import pygit2

    from gitstore.providers._names import payload_path

    mallory = tmp_path / "mallory-forces"
    git(tmp_path, "clone", "-q", str(bare), str(mallory))
    git(mallory, "fetch", "-q", "origin", "+refs/memory/v1/payloads/shared/ci-bot:refs/m/ci")
    repo = pygit2.Repository(str(mallory))
    index = pygit2.Index()
    index.read_tree(repo.revparse_single("refs/m/ci").peel(pygit2.Tree))
    index.remove(payload_path(digest))
    who = pygit2.Signature("m", "m@example.invalid")
    forced = repo.create_commit(None, who, who, "gitstore: payloads", index.write_tree(repo), [])
    repo.references.create("refs/m/forced", forced, force=True)
    git(mallory, "push", "-q", "-f", "origin", "refs/m/forced:refs/memory/v1/payloads/shared/ci-bot")


def _read_700(tmp_path: Path) -> tuple[Context, Path, str]:
    """Alice's team (a policy); the CI writer imports comment 700; alice reads its text."""
    alice, _ = two_reviewers(tmp_path)
    grant_all(alice)
    bare = tmp_path / "remote.git"
    alice = _synced(alice)
    _run_imports(tmp_path, bare, "run1", 700, "Retries must back off with full jitter.")
    alice = _synced(alice)
    assert _texts(alice, "github:comment:700") == ["Retries must back off with full jitter."]
    return alice, bare, _versions(alice, "github:comment:700")[0]["payloadDigest"]


def test_a_forced_snapshot_without_a_comments_text_cuts_no_later_text_off(tmp_path: Path) -> None:
    """Mallory forces the CI writer's payload snapshot on the remote to one without comment
    700's text. The next runner takes it up as its own, imports 800 and pushes. Alice, who
    read 700's text, refused every later snapshot of that writer for dropping it: 800's and
    each later comment's text never reached her, and verify said ok; runners and new clones
    never had 700's again. Alice's sync now reads the runner's snapshot with 700's text kept,
    names it, and, asked to, puts the text back on the remote, where the next runner and a new
    clone find it."""
    alice, bare, digest = _read_700(tmp_path)
    _forced_without(tmp_path, bare, digest)
    _run_imports(tmp_path, bare, "run2", 800, "Log the request id on every error.")
    done = gitstore("sync", "--json", cwd=alice.workspace.root)
    report = json.loads(done.stdout)
    assert done.returncode == 3 and report["status"] == "degraded" and not report["quarantined"], report
    assert [line.split(";")[0] for line in report["keptText"]] == [
        f"writer ci-bot: its payload snapshot on origin lacks 1 payload(s) no stored append removed (first {digest})"]
    assert "`gitstore sync --put-back` puts it back" in report["keptText"][0] and report["restored"] == []
    assert _texts(alice, "github:comment:800") == ["Log the request id on every error."]
    report = json.loads(gitstore("sync", "--json", "--put-back", cwd=alice.workspace.root).stdout)  # asked
    assert report["restored"] == ["writer ci-bot: put the 1 payload(s) its snapshot on origin lacked back there, "
                                  "from the text read here"], report
    assert _texts(alice, "github:comment:800") == ["Log the request id on every error."]
    run3 = _run_imports(tmp_path, bare, "run3", 900, "Rule 900.")
    assert _texts(run3, "github:comment:700") == ["Retries must back off with full jitter."]
    report = json.loads(gitstore("sync", "--json", cwd=alice.workspace.root).stdout)
    assert report["status"] == "ok" and not report["keptText"] and not report["restored"], report
    assert _texts(alice, "github:comment:900") == ["Rule 900."]
    assert gitstore("gc", cwd=alice.workspace.root).returncode == 0
    for ctx in (alice, _as_writer(tmp_path, bare, "dave", "dave")):
        _synced(ctx)
        assert _texts(ctx, "github:comment:700") == ["Retries must back off with full jitter."]
        assert _texts(ctx, "github:comment:800") == ["Log the request id on every error."]
        checked = gitstore("verify", cwd=ctx.workspace.root)
        assert checked.returncode == 0, (checked.stdout, checked.stderr)


def test_text_a_note_names_is_kept_but_never_put_back(tmp_path: Path) -> None:
    """The same forced snapshot, after mallory stored a removal of 700 that nobody the policy
    lets redact signed: alice does not honour it and keeps reading 700's text, but puts
    nothing back on the remote (a removal this clone does not honour may be one the team
    does)."""
    alice, bare, digest = _read_700(tmp_path)
    mallory = team_clone(tmp_path, bare, "mallory")
    note = {"at": "2026-03-02T11:00:00.000000Z", "by": ALICE, "reason": "tidy", "sourceId": "github:comment:700"}
    GitProvider(mallory.workspace.root, mallory.workspace.config.writer).append(
        batch(R.audit("r", [], scope=mallory.scope, action="redact"), removals=[(digest, canonicalize(note))]))
    git(mallory.workspace.root, "push", "-q", "origin")
    _forced_without(tmp_path, bare, digest)
    report = json.loads(gitstore("sync", "--json", "--put-back", cwd=alice.workspace.root).stdout)
    assert len(report["keptText"]) == 1 and report["restored"] == [], report
    assert _texts(alice, "github:comment:700") == ["Retries must back off with full jitter."]
    assert git(bare, "ls-tree", "-r", "--name-only", "refs/memory/v1/payloads/shared/ci-bot").count(digest[7:]) == 0


def test_doctor_names_a_snapshot_read_with_text_kept(tmp_path: Path) -> None:
    """After the sync that named it, doctor still says which writer's snapshot lacks text read
    here, and what puts it back; once it is put back, doctor says nothing of it."""
    from gitstore.queries.doctor import doctor

    alice, bare, digest = _read_700(tmp_path)
    _forced_without(tmp_path, bare, digest)
    assert gitstore("sync", cwd=alice.workspace.root).returncode == 3
    said = [c for c in doctor(alice.workspace.root).checks if c.name == "fetched memory"]
    assert [c.detail.split(":")[0] for c in said] == ["refs/memory/v1/remotes/origin/payloads/shared/ci-bot"], said
    assert "`gitstore sync --put-back`" in said[0].todo
    assert gitstore("sync", "--put-back", cwd=alice.workspace.root).returncode == 3  # named, and put back
    assert gitstore("sync", cwd=alice.workspace.root).returncode == 0
    assert not [c for c in doctor(alice.workspace.root).checks if c.name == "fetched memory"]
