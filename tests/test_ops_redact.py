"""Redaction leaves no text behind, on every provider: after ``redact`` and ``gc`` no run of 8
characters of the removed comment is left in the provider's files, the object databases
(packs decompressed), the records (no title copies it) or the exports (written again with the
note in the text's place). The removal and its audit entry are one append."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitstore.capture.reviews import import_reviews
from gitstore.conformance import _records as R
from gitstore.context import Context
from gitstore.ops.export import export
from gitstore.ops.gc import gc
from gitstore.errors import Refused
from gitstore.ops.redact import redact, redact_each
from gitstore.providers.git import GitProvider, parse_message

from .conftest import all_objects
from .world import accepted, grant_all, propose, ready_repo

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
