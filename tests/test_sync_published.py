"""The files ``gitstore publish`` wrote, after a sync brings a teammate's retirement: agents
read AGENTS.md and CLAUDE.md at session start, so the learning leaves them on this clone too,
as a local ``retire`` takes it out; where they must not be written, the sync names them."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstore.context import Context
from gitstore.deliver.publish import publish
from gitstore.ops import learning as ops
from gitstore.sync.remote import sync

from .conftest import git, made_once
from .team import two_reviewers
from .world import Thread, accepted, grant_all, propose, ref

ALICE, BOB = "github:9", "github:10"


@made_once
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


def test_a_retirement_a_plain_fetch_brought_is_named_by_doctor(tmp_path: Path) -> None:
    """A plain fetch brings the retirement without a sync: reads take it out of force (the
    hooks give agents no more of it), doctor names the published files, and publish rewrites
    them."""
    from gitstore.queries.doctor import doctor

    bob, learning = _published_then_retired(tmp_path)
    git(bob, "fetch", "-q", "origin")  # the refspecs init adds: memory arrives without a sync
    failed = [c for c in doctor(bob).checks if c.name == "published files" and c.state == "fail"]
    assert failed and learning in failed[0].detail, [c.detail for c in failed]
    publish(str(bob), claude=True)
    assert learning not in (bob / "AGENTS.md").read_text()


def test_a_sync_in_a_clone_where_a_listed_learning_was_never_in_force_leaves_the_files(tmp_path: Path) -> None:
    """Without a policy, alice's acceptance counts on her clone only: the AGENTS.md she
    published and committed lists a learning never in force on bob's clone. His sync brings
    no change of verdict that takes anything out of force, and leaves the file as it is."""
    from .team import first_clone, shared_remote
    from .test_sync_remote import clone

    bare = shared_remote(tmp_path)
    alice = Context.open(first_clone(tmp_path, bare))
    grant_all(alice, ("review", "instruction", "publication"))
    thread = Thread(alice, 7, "100")
    comment = thread.comment("100", "keep retries bounded", "2026-03-01T10:00:00.000000Z")
    thread.save()
    learning = accepted(alice, propose(alice, [ref(comment)], title="Bounded", text="Keep retries bounded."))
    root = alice.workspace.root
    publish(str(root))
    git(root, "add", "AGENTS.md")
    git(root, "commit", "-q", "-m", "publish learnings")
    git(root, "push", "-q", "origin", "main")
    sync(str(root))
    bob = clone(tmp_path, bare, "bob").workspace.root
    listed = (bob / "AGENTS.md").read_bytes()
    assert learning["id"].encode() in listed  # as committed on main
    got = sync(str(bob))
    assert got.published == [] and got.published_stale is None, got.render()
    assert (bob / "AGENTS.md").read_bytes() == listed and git(bob, "status", "--short").strip() == ""
def test_during_a_merge_the_sync_names_the_stale_files_and_writes_none(tmp_path: Path) -> None:
    bob, learning = _published_then_retired(tmp_path)
    before = (bob / "AGENTS.md").read_bytes()
    (bob / ".git" / "MERGE_HEAD").write_text(git(bob, "rev-parse", "HEAD"))  # a merge waiting for its commit
    got = sync(str(bob))
    assert (bob / "AGENTS.md").read_bytes() == before and got.published == []
    assert got.published_stale is not None and got.published_stale in got.render(), got.render()
    assert "AGENTS.md, CLAUDE.md" in got.published_stale and learning in got.published_stale, got.published_stale
    assert "merge is in progress" in got.published_stale and "gitstore publish" in got.published_stale


EXAMPLE = "\n## About the section above\n\n```markdown\n<!-- gitstore:learnings:end -->\n```\n"


def test_a_marker_shown_in_a_code_block_outside_the_section_does_not_keep_a_retired_learning(
        tmp_path: Path) -> None:
    """A team documents the section's format in a fenced code block after it: an example,
    not a marker. The retirement a sync brings takes the learning out all the same, and the
    example stays byte for byte."""
    bob, learning = _published_then_retired(tmp_path)
    (bob / "AGENTS.md").write_text((bob / "AGENTS.md").read_text() + EXAMPLE)
    got = sync(str(bob))
    agents = (bob / "AGENTS.md").read_text()
    assert learning not in agents and agents.endswith(EXAMPLE), agents
    assert "AGENTS.md" in got.published and got.published_stale is None, got.render()


def test_a_repeated_marker_that_keeps_a_retired_learning_is_named_by_sync_and_fails_doctor(tmp_path: Path) -> None:
    """A marker line outside any code block breaks the section: no sync or publish may rewrite
    it, so the sync says in one line that the file still gives agents the retired learning,
    and doctor fails naming it (agents read the whole file, the section or not)."""
    from gitstore.queries.doctor import doctor

    bob, learning = _published_then_retired(tmp_path)
    before = (bob / "AGENTS.md").read_text() + "\n## About\n\n<!-- gitstore:learnings:end -->\n"
    (bob / "AGENTS.md").write_text(before)
    got = sync(str(bob))
    assert (bob / "AGENTS.md").read_text() == before and "AGENTS.md" not in got.published
    stale = got.published_stale
    assert stale is not None and stale in got.render() and "\n" not in stale, got.render()
    assert stale.startswith("published files are stale: AGENTS.md still give agents") and learning in stale, stale
    assert "markers are broken or repeated" in stale and got.to_json()["publishedStale"] == stale
    failed = [c for c in doctor(bob).checks if c.name == "published files" and c.state == "fail"]
    assert len(failed) == 1 and failed[0].detail.startswith("AGENTS.md give agents 1 learning(s)"), failed
    assert learning in failed[0].detail and "AGENTS.md" in (failed[0].todo or ""), failed


HIDING = {  # lines this reader once took for a fence around the section, which CommonMark does not
    "a fence line in an HTML comment": ("<!-- editor note\n```\n-->\n", "\n<!-- end note\n```\n-->\n"),
    "a fence in a list item": ("- Format of code samples:\n  ```\n", "\n- more:\n  ```\n"),
    "a fence left open before the section": ("## Build\n\n```bash\nmake test\n\n", "\n## Deploy\n\n```\nmake deploy\n```\n"),
}


@pytest.mark.parametrize("case", sorted(HIDING))
def test_a_section_between_two_fence_lines_is_still_the_section_a_sync_rewrites(tmp_path: Path, case: str) -> None:
    """Its begin marker carries a digest, which only gitstore writes: the section it wrote, whatever
    surrounds it, so the retirement a sync brings takes the learning out and the rest stays."""
    from gitstore.queries.doctor import doctor

    bob, learning = _published_then_retired(tmp_path)
    pre, post = HIDING[case]
    text = (bob / "AGENTS.md").read_text()
    at = text.index("<!-- gitstore:learnings:begin")
    (bob / "AGENTS.md").write_text(text[:at] + pre + text[at:] + post)
    got = sync(str(bob))
    agents = (bob / "AGENTS.md").read_text()
    assert learning not in agents and "AGENTS.md" in got.published, (got.render(), agents)
    assert agents.startswith(text[:at] + pre) and agents.endswith(post) and agents.count("learnings:begin") == 1
    assert not [c for c in doctor(bob).checks if c.name == "published files" and c.state == "fail"]


def test_a_retired_learning_named_outside_the_section_is_named_by_sync_and_fails_doctor(tmp_path: Path) -> None:
    """Agents read the whole file: a retired learning's line copied above the section stays
    after the sync rewrites the section, so the sync says so and doctor fails naming it."""
    from gitstore.queries.doctor import doctor

    bob, learning = _published_then_retired(tmp_path)
    text = (bob / "AGENTS.md").read_text()
    copied = next(line for line in text.splitlines() if learning in line)
    (bob / "AGENTS.md").write_text(f"# Notes\n\n{copied}\n\n{text}")
    got = sync(str(bob))
    agents = (bob / "AGENTS.md").read_text()
    assert agents.count(learning) == 1 and agents.startswith(f"# Notes\n\n{copied}\n"), agents
    stale = got.published_stale
    assert stale is not None and learning in stale and "outside the section" in stale, got.render()
    failed = [c for c in doctor(bob).checks if c.name == "published files" and c.state == "fail"]
    assert len(failed) == 1 and learning in failed[0].detail and "outside the section" in failed[0].detail, failed
    assert "by hand" in (failed[0].todo or ""), failed


def test_a_checkout_with_crlf_endings_keeps_the_section_gitstores(tmp_path: Path) -> None:
    """With core.autocrlf (Git for Windows' default) the checkout gives the committed file CRLF
    endings: the section is still the one gitstore wrote, a sync rewrites it in those endings."""
    from gitstore.queries.doctor import doctor

    bob, learning = _published_then_retired(tmp_path)
    git(bob, "add", "AGENTS.md", "CLAUDE.md")
    git(bob, "commit", "-q", "-m", "publish learnings")
    git(bob, "config", "core.autocrlf", "true")
    (bob / "AGENTS.md").unlink()
    git(bob, "checkout", "--", "AGENTS.md")
    assert b"\r\n" in (bob / "AGENTS.md").read_bytes()
    got = sync(str(bob))
    agents = (bob / "AGENTS.md").read_bytes()
    assert learning.encode() not in agents and "AGENTS.md" in got.published, got.render()
    assert b"\n" not in agents.replace(b"\r\n", b""), agents
    assert not [c for c in doctor(bob).checks if c.name == "published files" and c.state == "fail"]
    assert publish(str(bob)).status != "conflict"
