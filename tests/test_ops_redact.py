"""Redaction leaves no text behind, on every provider: after ``redact`` and ``gc`` no run of 8
characters of the removed comment is left in the provider's files, the object databases
(packs decompressed), the records (no title copies it) or the exports (written again with the
note in the text's place). The removal and its audit entry are one append."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gitstore.capture.reviews import import_reviews
from gitstore.conformance import _records as R
from gitstore.context import Context
from gitstore.ops.export import export
from gitstore.ops.labels import LabelSpec, store_labels
from gitstore.ops.gc import collect, gc
from gitstore.errors import Refused
from gitstore.ops.redact import redact, redact_each
from gitstore.providers.git import GitProvider, parse_message
from gitstore.queries.evidence import episodes
from gitstore.rules.consent import decide

from .conftest import all_objects, git
from .team import sync, team_clone, two_reviewers
from .world import Thread, accepted, grant_all, propose, ready_repo

REMOVED = "Flumox grobnitz quibbleton zarkwell vintrop, asap."
KEPT = "Unrelated words stay."


def _snapshot(path: Path) -> Path:
    """A pull request's review comments as a REST snapshot: the thread's root says REMOVED."""
    def comment(cid: int, body: str, reply_to: int | None = None) -> dict[str, object]:
        return {"id": cid, "user": {"id": 1001}, "body": body, "created_at": "2026-03-01T10:00:00Z",
                "updated_at": "2026-03-01T10:00:00Z", "path": "src/retry.py", "line": 3,
                "commit_id": "a" * 40, **({"in_reply_to_id": reply_to} if reply_to else {})}
    snapshot = {
        "format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": 42,
        "head": {"ref": "feature/retry", "sha": "a" * 40},
        "responses": [
            {"collection": "pull-comments", "page": 1, "link": "",
             "body": [comment(100, REMOVED), comment(101, KEPT, reply_to=100)]},
            {"collection": "reviews", "page": 1, "link": "", "body": []},
            {"collection": "issue-comments", "page": 1, "link": "", "body": []},
        ],
    }
    path.write_text(json.dumps(snapshot))
    return path


def _windows(text: str) -> list[bytes]:
    return [text[i:i + 8].encode() for i in range(len(text) - 7)]


def _everything(ctx: Context, provider: str) -> bytes:
    """Every byte the provider keeps, and every byte of the state folder and the repository."""
    root = ctx.workspace.root
    found = [p.read_bytes() for p in sorted((root / ".git").rglob("*")) if p.is_file()]
    found += [p.read_bytes() for p in sorted(ctx.workspace.state.rglob("*")) if p.is_file()]
    found.append(all_objects(root))
    if provider == "memory":
        kept = ctx.store.provider
        found += [s.data for s in kept._records] + list(kept._payloads.values())  # type: ignore[attr-defined]
    return b"\n".join(found)


@pytest.mark.parametrize("provider", ["git", "sqlite", "jsonl", "memory"])
def test_redact_then_gc_leaves_no_run_of_the_text_anywhere(tmp_path: Path, provider: str) -> None:
    ctx = ready_repo(tmp_path / "repo", provider=provider)
    grant_all(ctx, purposes=("review", "instruction", "evaluation"))
    import_reviews(ctx, _snapshot(tmp_path / "snapshot.json"), "github:9")
    event = next(e for e in ctx.view().events.values() if e["payload"].get("text") == REMOVED)
    learning = accepted(ctx, propose(ctx, [{"episode": event["episode"], "events": [event["id"]]}]))
    records, path = export(ctx, "evaluation", "github:9", with_evidence=True)
    record = records["shared"]
    assert REMOVED.encode() in _everything(ctx, provider)
    if provider != "memory":  # recall's index: rows built from the evidence, kept on disk
        from gitstore.cli import main

        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(ctx.workspace.root)
            assert main(["recall", "retry backoff", "--json"]) == 0
        assert (ctx.workspace.state / "cache").is_dir()
    report = redact(ctx, "github:comment:100", "github:9", "asked by the author")
    assert report.removed == [event["id"]] and report.learnings == [learning["id"]]
    assert report.exports == [record["digest"]] and report.rewritten == [record["path"]]
    assert report.titles == []
    gc(ctx.store, ctx.workspace.state)
    assert not (ctx.workspace.state / "cache").exists(), "gc drops the index built before the redaction"
    everything = _everything(ctx, provider)
    leaks = [w for w in _windows(REMOVED) if w in everything]
    assert not leaks, f"{provider} keeps {leaks[:3]}"
    assert KEPT.encode() in everything
    exported = [json.loads(line) for line in path.read_text().splitlines()]
    [copy] = [r for r in exported if r.get("id") == event["id"]]
    assert "payload" not in copy and copy["redaction"]["reason"] == "asked by the author"
    assert copy["digest"] == event["digest"]  # the exported event still verifies
    assert ctx.store.verify().ok


def test_a_removal_and_its_audit_entry_are_one_records_commit(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "repo")
    grant_all(ctx)
    import_reviews(ctx, _snapshot(tmp_path / "snapshot.json"), "github:9")
    event = next(e for e in ctx.view().events.values() if e["payload"].get("text") == REMOVED)
    redact(ctx, "github:comment:100", "github:9", "asked")
    provider = ctx.store.provider
    assert isinstance(provider, GitProvider)
    [audit] = [i for i in ctx.store.items(["audit"]) if i.record["action"] == "redact"]
    commit = provider.repo[audit.stored.append]
    header = parse_message(commit.message)
    assert header.removes == (event["payloadDigest"],)
    assert audit.digest in {digest for digest, _, _ in header.lines}
    assert ctx.view().events[event["id"]]["redaction"]["at"] == audit.record["at"]


def test_removing_several_comments_in_one_run_reports_each_as_one_removal_would(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "repo")
    grant_all(ctx, purposes=("review", "instruction", "evaluation"))
    import_reviews(ctx, _snapshot(tmp_path / "snapshot.json"), "github:9")
    events = {e["payload"]["text"]: e for e in ctx.view().events.values()}
    removed, kept = events[REMOVED], events[KEPT]
    learning = accepted(ctx, propose(ctx, [{"episode": kept["episode"], "events": [kept["id"]]}]))
    first, second, again = redact_each(
        ctx, ["github:comment:100", "github:comment:101", "github:comment:100"], "github:9", "asked")
    assert first.removed == [removed["id"]] and first.learnings == []
    assert second.removed == [kept["id"]] and second.learnings == [learning["id"]]
    assert again is first  # the same comment named twice is removed once
    [repeat] = redact_each(ctx, ["github:comment:101"], "github:9", "asked")  # found by its redaction note
    assert repeat.events == [kept["id"]] and repeat.already == [kept["id"]] and repeat.removed == []
    assert repeat.learnings == [learning["id"]]
    with pytest.raises(Refused, match="no comment with source id github:comment:7"):
        redact_each(ctx, ["github:comment:7"], "github:9", "asked")


def test_an_import_builds_on_review_threads_only(tmp_path: Path) -> None:
    """What an import knows of a comment comes from review threads: an event elsewhere (a
    session, or one planted by anyone who can append) naming the same comment id is neither
    its stored version nor a reason to skip it."""
    ctx = ready_repo(tmp_path / "repo")
    grant_all(ctx)
    planted = R.event("100", episode="a-session", text="not what the reviewer wrote")
    assert planted["payload"]["sourceId"] == "github:comment:100"
    ctx.store.append([planted])
    import_reviews(ctx, _snapshot(tmp_path / "snapshot.json"), "github:9")
    [comment] = [e for e in ctx.view().events.values() if e["payload"].get("text") == REMOVED]
    assert comment["type"] == "comment" and comment["parentEventId"] is None
    assert comment["episode"] != planted["episode"]


ALICE = "github:9"  # two_reviewers' alice
PERSONAL = "Quaffle drindlewort mispoke the zorbent, mine only."


def _labelled_twice(tmp_path: Path) -> tuple[Context, Context, dict, dict, dict]:
    """Alice and bob (a team under a policy, one bare remote); alice labels a review comment
    and a comment of a personal session of hers with the same theme, so both labels carry the
    same text (one payload digest), and both clones sync. Returns them, the shared label, the
    personal comment and its label."""
    alice, bob = two_reviewers(tmp_path)
    grant_all(alice)
    team = Thread(alice, 7, "100")
    shared_label = team.label(team.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z"),
                              "retries", "2026-03-01T10:00:00.000000Z")
    team.save()
    session = Thread(alice, None, "s1", kind="agent-session")
    personal = session.comment("900", PERSONAL, "2026-03-01T11:00:00.000000Z")
    personal_label = session.label(personal, "retries", "2026-03-01T11:00:00.000000Z")
    session.save()
    assert shared_label["payloadDigest"] == personal_label["payloadDigest"]
    alice, bob = sync(alice, bob)
    return alice, bob, shared_label, personal, personal_label


def _synced(*clones: Context) -> list[Context]:
    """Each clone runs ``gitstore sync`` in turn (the last one first again, so each has every
    other's memory); fresh contexts. A sync that quarantines a snapshot fails the test."""
    from gitstore.sync.remote import sync as gitstore_sync

    for ctx in (*clones, clones[0]):
        done = gitstore_sync(str(ctx.workspace.root))
        assert done.status in ("ok", "no-update"), done.line
    return [Context.open(ctx.workspace.root) for ctx in clones]


def _snapshot_holds(ctx: Context, namespace: str, payload_digest: str) -> bool:
    """Whether this writer's own payload snapshot of ``namespace`` holds the payload."""
    from gitstore.providers._names import payload_path, payloads_ref

    provider = ctx.store.provider
    assert isinstance(provider, GitProvider)
    repo = provider.repository(namespace)  # type: ignore[arg-type]
    ref = payloads_ref(namespace, provider.writer)
    return ref in repo.references and payload_path(payload_digest) in repo.references[ref].peel().tree


def test_a_personal_redaction_leaves_the_same_text_in_shared_memory(tmp_path: Path) -> None:
    """A personal (local) redaction governs personal memory only: a shared label whose text is
    the same bytes as a removed personal label keeps its text for the team, in the snapshot
    already pushed and in later shared appends; the personal text is gone from this clone, and
    later personal appends do not store it again."""
    alice, bob, shared_label, personal, personal_label = _labelled_twice(tmp_path)
    report = redact(alice, "github:comment:900", ALICE, "not for the team")
    assert sorted(report.removed) == sorted([personal["id"], personal_label["id"]])
    later = Thread(Context.open(alice.workspace.root), 8, "200")
    later_label = later.label(later.comment("200", "Back off between retries.", "2026-03-02T10:00:00.000000Z"),
                              "retries", "2026-03-02T10:00:00.000000Z")
    later.save()
    session = Thread(Context.open(alice.workspace.root), None, "s2", kind="agent-session")
    later_personal = session.label(session.comment("901", "Mine again.", "2026-03-02T11:00:00.000000Z"),
                                   "retries", "2026-03-02T11:00:00.000000Z")
    session.save()
    digest = shared_label["payloadDigest"]
    assert later_personal["payloadDigest"] == digest and not _snapshot_holds(alice, "local", digest)
    gc(alice.store, alice.workspace.state)
    assert _snapshot_holds(alice, "shared", digest) and not _snapshot_holds(alice, "local", digest)
    alice, bob = _synced(alice, bob)
    carol = _synced(team_clone(tmp_path, tmp_path / "remote.git", "carol"))[0]
    for ctx in (bob, carol):
        events = ctx.view().events
        for label in (shared_label, later_label):
            assert events[label["id"]].get("payload") == shared_label["payload"], ctx.workspace.root.name
            assert "redaction" not in events[label["id"]]
        assert personal["id"] not in events, "personal memory never leaves alice's clone"
        assert ctx.store.verify().ok
    events = alice.view().events
    for event in (personal, personal_label, later_personal):
        assert "payload" not in events[event["id"]] and events[event["id"]]["redaction"]["reason"] == "not for the team"
    held = all_objects(alice.workspace.root)
    assert not [w for w in _windows(PERSONAL) if w in held], "gc erased the personal text"
    assert alice.store.verify().ok


def test_a_team_redaction_after_a_personal_one_removes_the_shared_copy(tmp_path: Path) -> None:
    """A payload a personal note removed is still removed for the team when the shared comment
    is redacted on the same clone: the shared label is not counted as removed already."""
    alice, bob, shared_label, _, _ = _labelled_twice(tmp_path)
    redact(alice, "github:comment:900", ALICE, "not for the team")
    report = redact(Context.open(alice.workspace.root), "github:comment:100", ALICE, "asked by the author")
    assert shared_label["id"] in report.removed and report.already == []
    alice, bob = _synced(alice, bob)
    label = bob.view().events[shared_label["id"]]
    assert "payload" not in label and label["redaction"]["reason"] == "asked by the author"
    assert not _snapshot_holds(alice, "shared", shared_label["payloadDigest"])


def test_a_shared_redaction_keeps_the_text_out_of_both_namespaces_later_appends(tmp_path: Path) -> None:
    """A shared note governs personal memory too: the same text, labelled later in a personal
    session or in a review thread, is stored in neither payload snapshot."""
    ctx = ready_repo(tmp_path / "repo")
    grant_all(ctx)
    team = Thread(ctx, 7, "100")
    first = team.label(team.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z"),
                       "retries", "2026-03-01T10:00:00.000000Z")
    team.save()
    redact(ctx, "github:comment:100", "github:9", "asked by the author")
    session = Thread(ctx, None, "s1", kind="agent-session")
    personal = session.label(session.comment("900", PERSONAL, "2026-03-01T11:00:00.000000Z"),
                             "retries", "2026-03-01T11:00:00.000000Z")
    session.save()
    later = Thread(ctx, 8, "200")
    shared = later.label(later.comment("200", "Back off between retries.", "2026-03-02T10:00:00.000000Z"),
                         "retries", "2026-03-02T10:00:00.000000Z")
    later.save()
    for namespace in ("shared", "local"):
        assert not _snapshot_holds(ctx, namespace, first["payloadDigest"]), namespace
    events = ctx.view().events
    for label in (personal, shared):
        assert "payload" not in events[label["id"]] and events[label["id"]]["redaction"]["reason"] == "asked by the author"
    assert ctx.store.verify().ok


def test_a_redaction_with_authority_from_another_clone_keeps_the_text_out_of_later_appends(tmp_path: Path) -> None:
    """A shared redaction bob may make (the policy lets him redact, his append is signed)
    counts on alice's clone as it does on his: the same text, labelled later on her clone, is
    stored in neither of her payload snapshots and reads as removed."""
    alice, bob = two_reviewers(tmp_path)
    grant_all(alice)
    alice, bob = _synced(alice, bob)
    team = Thread(bob, 7, "100")
    first = team.label(team.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z"),
                       "retries", "2026-03-01T10:00:00.000000Z")
    team.save()
    redact(bob, "github:comment:100", "github:10", "asked by the author")
    bob, alice = _synced(bob, alice)
    later = Thread(alice, 8, "200")
    shared = later.label(later.comment("200", "Back off between retries.", "2026-03-02T10:00:00.000000Z"),
                         "retries", "2026-03-02T10:00:00.000000Z")
    later.save()
    session = Thread(alice, None, "s1", kind="agent-session")
    personal = session.label(session.comment("900", PERSONAL, "2026-03-01T11:00:00.000000Z"),
                             "retries", "2026-03-01T11:00:00.000000Z")
    session.save()
    assert shared["payloadDigest"] == personal["payloadDigest"] == first["payloadDigest"]
    for namespace in ("shared", "local"):
        assert not _snapshot_holds(alice, namespace, first["payloadDigest"]), namespace
    events = Context.open(alice.workspace.root).view().events
    for label in (shared, personal):
        assert "payload" not in events[label["id"]] and events[label["id"]]["redaction"]["reason"] == "asked by the author"


FIRST_VERSION = "Retries use jitter, say the FLORBIX words."
LATER_VERSION = "Retries use jitter, say the QUENTAVEL words."


def _comment_500(path: Path, body: str, updated: str) -> Path:
    """A snapshot of one review comment, 500, as GitHub serves it when last ``updated``."""
    comment = {"id": 500, "user": {"id": 1001}, "body": body, "created_at": "2026-03-01T10:00:00Z",
               "updated_at": updated, "path": "src/retry.py", "line": 3, "commit_id": "a" * 40}
    path.write_text(json.dumps({
        "format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": 42,
        "head": {"ref": "feature/retry", "sha": "a" * 40},
        "responses": [{"collection": "pull-comments", "page": 1, "link": "", "body": [comment]},
                      {"collection": "reviews", "page": 1, "link": "", "body": []},
                      {"collection": "issue-comments", "page": 1, "link": "", "body": []}]}))
    return path


def _edited_while_redacted(tmp_path: Path) -> tuple[Context, Context, dict, dict]:
    """Alice imports comment 500 and both clones sync; alice redacts it and syncs; bob, who
    has not fetched the redaction, imports GitHub's later version of it (an edit) and labels
    that. Returns alice, bob, bob's edit and his label on it."""
    alice, bob = two_reviewers(tmp_path)
    grant_all(alice)
    import_reviews(alice, _comment_500(tmp_path / "v1.json", FIRST_VERSION, "2026-03-01T10:00:00Z"), "github:9")
    alice, bob = _synced(alice, bob)
    redact(alice, "github:comment:500", "github:9", "author asked")
    [alice] = _synced(alice)
    import_reviews(bob, _comment_500(tmp_path / "v2.json", LATER_VERSION, "2026-03-05T10:00:00Z"), "github:10")
    view = bob.view()
    [edit] = [e for e in view.events.values() if e.get("payload", {}).get("text") == LATER_VERSION]
    store_labels(bob, view, [LabelSpec(edit["id"], "jitter-words", "convention", "asks-for", (), "lexical")], "github:10")
    [label] = [e for e in bob.view().events.values() if e["type"] == "label"]
    return alice, bob, edit, label


def test_a_later_version_of_a_redacted_comment_serves_no_purpose(tmp_path: Path) -> None:
    """An edit a clone imported before the redaction of its comment reached it is a version of
    that comment: once the redaction arrives (a plain fetch), neither it nor a label on it is
    evidence, as its earlier versions are not."""
    alice, bob, edit, label = _edited_while_redacted(tmp_path)
    assert decide(bob.view(), edit["id"], "review").ok  # the redaction has not reached bob yet
    git(bob.workspace.root, "fetch", "-q", "origin")
    view = Context.open(bob.workspace.root).view()
    for event in (edit, label):
        verdict = decide(view, event["id"], "review")
        assert not verdict.ok and verdict.cause == "redacted", verdict


def test_a_later_version_of_a_redacted_comment_leaves_storage_once_its_writer_syncs(tmp_path: Path) -> None:
    """The clone that stored the later version removes its text (and its label's) at its next
    sync, with an audit entry for each, and pushes its payload snapshot without it: after gc
    on both clones and on the remote, no object holds it, and no clone shows it."""
    alice, bob, edit, label = _edited_while_redacted(tmp_path)
    bob, alice = _synced(bob, alice)
    for ctx in (alice, bob):
        gc(ctx.store, ctx.workspace.state)
        view = Context.open(ctx.workspace.root).view()
        for event in (edit, label):
            assert "payload" not in view.events[event["id"]] and "redaction" in view.events[event["id"]]
        assert not episodes(ctx, "QUENTAVEL")
        assert LATER_VERSION.encode() not in all_objects(ctx.workspace.root)
    remote = tmp_path / "remote.git"
    git(remote, "gc", "-q", "--prune=now")
    held = subprocess.run(["git", "--git-dir", str(remote), "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout
    assert LATER_VERSION.encode() not in held and b"QUENTAVEL" not in held
    audits = [a for a in bob.view().audits if a["action"] == "redact" and a["by"] == "github:10"]
    assert {a["subjects"][0] for a in audits} == {edit["id"], label["id"]}


def test_gc_removes_a_later_version_of_a_comment_a_plain_fetch_found_redacted(tmp_path: Path) -> None:
    """A redaction a plain ``git fetch`` brought runs no sync: ``gitstore gc`` removes the later
    version stored here (with its audit entry), so its text leaves this clone's storage."""
    _, bob, edit, _ = _edited_while_redacted(tmp_path)
    git(bob.workspace.root, "fetch", "-q", "origin")
    followed = collect(Context.open(bob.workspace.root))[3]
    assert followed == ["removed the text of 2 event(s) stored here of github:comment:500, redacted meanwhile"]
    assert LATER_VERSION.encode() not in all_objects(bob.workspace.root)
    assert "redaction" in Context.open(bob.workspace.root).view().events[edit["id"]]
    assert collect(Context.open(bob.workspace.root))[3] == [], "nothing left to remove"


def test_a_comment_edited_back_to_an_earlier_text_is_removed_and_the_store_stays_readable(tmp_path: Path) -> None:
    """Its first and last versions hold the same payload: one removal takes it from both, and
    no append lists one payload twice (which every later read would take for damage)."""
    ctx = ready_repo(tmp_path / "widgets")
    thread = Thread(ctx, 7, "100")
    first = thread.comment("100", REMOVED, "2026-03-01T10:00:00.000000Z")
    second = thread.edit(first, "100", KEPT, "2026-03-01T11:00:00.000000Z")
    third = thread.edit(second, "100", REMOVED, "2026-03-01T12:00:00.000000Z")
    thread.save()
    assert first["payloadDigest"] == third["payloadDigest"]
    report = redact(ctx, "github:comment:100", "github:9", "asked to")
    assert sorted(report.removed) == sorted(e["id"] for e in (first, second, third))
    events = Context.open(ctx.workspace.root).view().events
    assert all("payload" not in events[e["id"]] for e in (first, second, third))
    assert ctx.store.verify().ok


def test_an_append_listing_one_payload_twice_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    from gitstore.providers import Removal

    ctx = ready_repo(tmp_path / "widgets")
    digest, note = "sha256:" + "1" * 64, b'{"reason":"x"}'
    before = git(ctx.workspace.root, "for-each-ref", "refs/memory/")
    with pytest.raises(Refused, match=r"\Aan append removes one payload twice: list each payload once; nothing was written\Z"):
        ctx.store.append([], removals=[Removal(digest, note), Removal(digest, note)])
    assert git(ctx.workspace.root, "for-each-ref", "refs/memory/") == before


def test_a_comment_whose_versions_carry_the_same_label_is_removed_and_the_store_stays_readable(
        tmp_path: Path) -> None:
    """A label names its theme, not the version it judges (that is its parent): the same theme
    on two versions is one payload, taken by one removal."""
    ctx = ready_repo(tmp_path / "widgets")
    thread = Thread(ctx, 7, "100")
    first = thread.comment("100", REMOVED, "2026-03-01T10:00:00.000000Z")
    second = thread.edit(first, "100", KEPT, "2026-03-01T11:00:00.000000Z")
    labels = [thread.label(version, "retry-jitter", "2026-03-01T12:00:00.000000Z") for version in (first, second)]
    thread.save()
    assert labels[0]["payloadDigest"] == labels[1]["payloadDigest"]
    report = redact(ctx, "github:comment:100", "github:9", "asked to")
    assert sorted(report.removed) == sorted(e["id"] for e in (first, second, *labels))
    events = Context.open(ctx.workspace.root).view().events
    assert all("payload" not in events[e["id"]] for e in (first, second, *labels))


def _exported_both(tmp_path: Path) -> tuple[Context, Path]:
    """A store whose one export file copies both comments of the snapshot's thread."""
    ctx = ready_repo(tmp_path / "repo")
    grant_all(ctx, purposes=("review", "instruction", "evaluation"))
    import_reviews(ctx, _snapshot(tmp_path / "snapshot.json"), "github:9")
    cited = [{"episode": e["episode"], "events": [e["id"]]} for e in ctx.view().events.values()]
    accepted(ctx, propose(ctx, cited))
    return ctx, export(ctx, "evaluation", "github:9", with_evidence=True)[1]


def _texts(path: Path) -> list[str]:
    return [r["payload"]["text"] for r in map(json.loads, path.read_text().splitlines()) if "payload" in r]


def test_two_removals_writing_one_export_file_again_at_once_both_take_their_text_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each removal reads an export file that copied its comment, then writes it again without
    the text: a second removal writing the same file in between had its work undone by the
    first's write, and its comment's text stayed in the file, noted as taken out everywhere."""
    from gitstore.capture import saved
    from gitstore.ops import redact as redacting

    from .beside import Beside

    ctx, path = _exported_both(tmp_path)
    assert sorted(_texts(path)) == sorted([REMOVED, KEPT])
    write = redacting.replace_file
    second: list[Beside] = []
    started: list[bool] = []

    def removed_meanwhile(target: Path, data: str) -> None:
        if not started:  # the first removal has read the file, and writes it now
            started.append(True)
            second.append(Beside(lambda: redact(Context.open(ctx.workspace.root), "github:comment:101", "github:9",
                                                "asked"), monkeypatch, saved))
        write(target, data)

    monkeypatch.setattr(redacting, "replace_file", removed_meanwhile)
    redact(ctx, "github:comment:100", "github:9", "asked by the author")
    assert second[0].result().rewritten
    assert _texts(path) == []


def test_an_export_written_while_a_removal_runs_does_not_keep_the_removed_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An export reads the evidence, then writes its file and records it: a removal stored in
    between found no export of the comment to write again (its record was not stored yet), and
    the file kept the text, noted as taken out everywhere."""
    from gitstore.capture import saved
    from gitstore.ops import export as exporting
    from gitstore.ops.snapshots import exports_held

    from .beside import Beside

    ctx, _ = _exported_both(tmp_path)
    staged = exporting.staged
    second: list[Beside] = []

    def removed_meanwhile(target: Path, data: str) -> object:
        second.append(Beside(lambda: redact(Context.open(ctx.workspace.root), "github:comment:100", "github:9",
                                            "asked by the author"), monkeypatch, saved))
        return staged(target, data)

    monkeypatch.setattr(exporting, "staged", removed_meanwhile)
    _, path = export(ctx, "evaluation", "github:9", with_evidence=True)
    second[0].result()
    monkeypatch.undo()
    assert _texts(path) == [KEPT]
    assert not exports_held(Context.open(ctx.workspace.root))
