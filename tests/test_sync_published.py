"""The files ``gitstore publish`` wrote, after a sync brings a teammate's retirement: agents
read AGENTS.md and CLAUDE.md at session start, so the learning leaves them on this clone too,
as a local ``retire`` takes it out; where they must not be written, the sync names them."""

from __future__ import annotations

from pathlib import Path

from gitstore.context import Context
from gitstore.deliver.publish import publish
from gitstore.ops import learning as ops
from gitstore.sync.remote import sync

from .conftest import git
from .team import two_reviewers
from .world import Thread, accepted, grant_all, propose, ref

ALICE, BOB = "github:9", "github:10"


def _published_then_retired(tmp_path: Path) -> tuple[Path, str]:
    """Bob's clone with AGENTS.md and CLAUDE.md published holding alice's accepted learning,
    which alice has retired and pushed since. Returns bob's root and the learning's id."""
    alice, bob = two_reviewers(tmp_path)
    grant_all(alice, ("review", "instruction", "publication"))
    thread = Thread(alice, 7, "100")
    comment = thread.comment("100", "keep retries bounded", "2026-03-01T10:00:00.000000Z")
    thread.save()
    learning = accepted(alice, propose(alice, [ref(comment)], title="Bounded", text="Keep retries bounded."))
    sync(str(alice.workspace.root))
    bob_root = bob.workspace.root
    sync(str(bob_root))
    publish(str(bob_root), claude=True)
    assert learning["id"] in (bob_root / "AGENTS.md").read_text(), "published on bob's clone"
    ops.retire(Context.open(alice.workspace.root), learning["id"], ALICE, "no longer holds")
    sync(str(alice.workspace.root))
    return bob_root, learning["id"]


def test_a_retirement_that_arrives_by_sync_leaves_the_published_files(tmp_path: Path) -> None:
    bob, learning = _published_then_retired(tmp_path)
    got = sync(str(bob))
    assert [c.id for c in got.changed] == [learning], got.render()
    for name in ("AGENTS.md", "CLAUDE.md"):
        assert learning not in (bob / name).read_text(), name
    assert got.published[:2] == ["AGENTS.md", "CLAUDE.md"], got.render()
    assert any(line.startswith("rewrote the published AGENTS.md, CLAUDE.md") for line in got.render())
    assert got.to_json()["published"] == got.published
    again = sync(str(bob))
    assert again.published == [] and again.published_stale is None and again.status == "no-update", again.render()


def test_a_retirement_a_plain_fetch_brought_leaves_them_at_the_next_sync(tmp_path: Path) -> None:
    bob, learning = _published_then_retired(tmp_path)
    git(bob, "fetch", "-q", "origin")  # the refspecs init adds: memory arrives without a sync
    got = sync(str(bob))
    assert learning not in (bob / "AGENTS.md").read_text() and "AGENTS.md" in got.published, got.render()


def test_during_a_merge_the_sync_names_the_stale_files_and_writes_none(tmp_path: Path) -> None:
    bob, learning = _published_then_retired(tmp_path)
    before = (bob / "AGENTS.md").read_bytes()
    (bob / ".git" / "MERGE_HEAD").write_text(git(bob, "rev-parse", "HEAD"))  # a merge waiting for its commit
    got = sync(str(bob))
    assert (bob / "AGENTS.md").read_bytes() == before and got.published == []
    assert got.published_stale is not None and got.published_stale in got.render(), got.render()
    assert "AGENTS.md, CLAUDE.md" in got.published_stale and learning in got.published_stale, got.published_stale
    assert "merge is in progress" in got.published_stale and "gitstore publish" in got.published_stale
