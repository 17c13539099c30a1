"""The promotion gate on merge commits: what a merge brings that none of its parents has is
judged like an ordinary commit's change, over a range and at commit-msg while the merge is made;
a promoted block carried from one parent is not blamed on the merge."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gitstore.context import Context
from gitstore.ops.promote import promote
from gitstore.promote.gates import promotion as promotion_gate
from gitstore.promote.provenance import provenance

from .conftest import ROOT, made_once
from .promotion_world import PERSON, accepted_learning, git, wiki_repo

PAGE = "okf/wiki/reliability.md"
UNKNOWN = "lrn_" + "cd" * 16
MADE_UP = f"<!-- gitstore:promoted {UNKNOWN} sha256:{'6' * 64} -->\nRetries never need jitter.\n" \
          f"Cited: `{UNKNOWN}@sha256:{'6' * 64}`.\n"


@pytest.fixture(scope="module")
def promoted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Context, dict[str, Any], Any]:
    ctx = wiki_repo(tmp_path_factory.mktemp("merges") / "widgets")
    learning = accepted_learning(ctx)
    return ctx, learning, promote(ctx, learning["id"], PERSON)


def _edit(root: Path, branch: str, base: str, old: str, new: str) -> str:
    """An ordinary commit on a new ``branch`` from ``base`` that replaces ``old`` with ``new`` on the page."""
    git(root, "checkout", "-q", "-B", branch, base)
    page = root / PAGE
    page.write_text(page.read_text().replace(old, new, 1))
    git(root, "commit", "-q", "-am", f"Say {new!r}")
    git(root, "checkout", "-q", "main")
    return git(root, "rev-parse", branch).strip()


def _merge(root: Path, branch: str, other: str, resolve: Callable[[str], str] | None = None,
           *options: str) -> subprocess.CompletedProcess[str]:
    """Merge ``other`` into ``branch``; with ``resolve``, write the page it returns (given the
    page as the merge left it) and commit the merge. ``main`` is checked out again unless the
    merge is left unfinished."""
    git(root, "checkout", "-q", branch)
    done = subprocess.run(["git", *options, "merge", "--no-ff", "--no-edit", *(["--no-commit"] if resolve else []),
                           other], cwd=root, capture_output=True, text=True)
    if resolve is not None:
        page = root / PAGE
        page.write_text(resolve(page.read_text()))
        git(root, "add", PAGE)
        done = subprocess.run(["git", *options, "commit", "--no-edit"], cwd=root, capture_output=True, text=True)
    if done.returncode == 0:
        git(root, "checkout", "-q", "main")
    return done


def _conflict_settled_as(resolved: str) -> Callable[[str], str]:
    def resolve(page: str) -> str:
        assert "<<<<<<<" in page  # git could not merge the two sides
        return resolved
    return resolve


def _line(text: str, needle: str) -> int:
    return text[:text.index(needle)].count("\n") + 1


def _gate(root: Path, start: str, end: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = promotion_gate.main(["--from-ref", start, "--to-ref", end])
    return code, capsys.readouterr().out.splitlines()


def test_a_merge_that_resolves_a_conflict_with_a_promoted_block_fails(
        promoted: tuple[Context, dict[str, Any], Any], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    root = promoted[0].workspace.root
    _edit(root, "five-seconds", "main", "a timeout.", "a timeout of 5 s.")
    _edit(root, "ten-seconds", "main", "a timeout.", "a timeout of 10 s.")
    resolved = (root / PAGE).read_text().replace("a timeout.", "a timeout of 5 s.") + "\n" + MADE_UP
    merged = _merge(root, "five-seconds", "ten-seconds", _conflict_settled_as(resolved))
    assert merged.returncode == 0, merged.stderr
    merge = git(root, "rev-parse", "five-seconds").strip()
    monkeypatch.chdir(root)
    expected = f"{PAGE}:{_line(resolved, '<!-- gitstore:promoted')}: a promoted block names {UNKNOWN}, which is " \
               "not a learning of this repository's store; it is in none of the parents of merge commit " \
               f"{merge[:12]}, which is not the promotion commit of {UNKNOWN}"
    assert _gate(root, "main", "five-seconds", capsys) == (1, [expected])
    judged = provenance(root, "main..five-seconds")
    assert [(c.commit, c.problems) for c in judged.commits] == [(merge, [expected])]


def test_a_merge_that_rewrites_a_promoted_block_fails(promoted: tuple[Context, dict[str, Any], Any],
                                                      capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, learning, result = promoted
    root = ctx.workspace.root
    _edit(root, "reworded-timeouts", result.branch, "a timeout.", "a timeout of 5 s.")
    _edit(root, "reworded-retries", result.branch, "The client retries", "The client retries idempotent")
    text = learning["content"]["text"]
    merged = _merge(root, "reworded-timeouts", "reworded-retries", lambda page: page.replace(text, "Retry at once."))
    assert merged.returncode == 0, merged.stderr
    merge = git(root, "rev-parse", "reworded-timeouts").strip()
    line = _line(git(root, "show", f"{merge}:{PAGE}"), "<!-- gitstore:promoted")
    monkeypatch.chdir(root)
    assert _gate(root, result.branch, "reworded-timeouts", capsys) == (1, [
        f"{PAGE}:{line}: the promoted text of {learning['id']} differs from the accepted learning; it is in none "
        f"of the parents of merge commit {merge[:12]}, which is not the promotion commit of {learning['id']}"])


def test_a_merge_carries_the_blocks_of_its_parents(promoted: tuple[Context, dict[str, Any], Any],
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, learning, result = promoted
    root = ctx.workspace.root
    _edit(root, "trunk", "main", "The client retries", "The client retries idempotent")
    ours = git(root, "show", f"trunk:{PAGE}")
    theirs = git(root, "show", f"{result.branch}:{PAGE}")
    both = theirs.replace("The client retries", "The client retries idempotent")
    assert both not in (ours, theirs)  # the merge's page is in neither parent; its block is in one
    merged = _merge(root, "trunk", result.branch)
    assert merged.returncode == 0 and git(root, "show", f"trunk:{PAGE}") == both, merged.stderr
    monkeypatch.chdir(root)
    assert _gate(root, "main", "trunk", capsys) == (0, [])
    assert [c.commit for c in provenance(root, "main..trunk").commits] == [result.commit]
    assert _gate(root, result.branch, "trunk", capsys) == (0, [])  # nor is it blamed when the block came before


def test_a_merge_is_never_a_promotion_commit(promoted: tuple[Context, dict[str, Any], Any],
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, learning, result = promoted
    root = ctx.workspace.root
    git(root, "checkout", "-q", "-B", "claiming-merge", "main")
    message = git(root, "log", "-1", "--format=%B", result.branch)
    git(root, "merge", "-q", "--no-ff", "-m", message, result.branch)
    git(root, "checkout", "-q", "main")
    merge = git(root, "rev-parse", "claiming-merge").strip()
    monkeypatch.chdir(root)
    assert _gate(root, "main", "claiming-merge", capsys) == (1, [
        f"{merge[:12]}:{_line(message, 'Gitstore-')}: merge commit {merge[:12]} carries Gitstore trailers, but a "
        "promotion commit is never a merge: promote writes it on one parent"])


def test_the_merge_being_made_is_judged_at_commit_msg(promoted: tuple[Context, dict[str, Any], Any],
                                                      tmp_path: Path) -> None:
    ctx, learning, result = promoted
    root = ctx.workspace.root
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    gate = "import sys; from gitstore.promote.gates.promotion import main; sys.exit(main(sys.argv[1:]))"
    (hooks / "commit-msg").write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} {sys.executable} -c '{gate}' \"$@\"\n"
                                      "code=$?\necho \"gate ran on $1: $code\"\nexit $code\n")
    (hooks / "commit-msg").chmod(0o755)
    hooked = ("-c", f"core.hooksPath={hooks}")
    _edit(root, "pending-left", "main", "a timeout.", "a timeout of 5 s.")
    _edit(root, "pending-right", "main", "a timeout.", "a timeout of 10 s.")
    resolved = (root / PAGE).read_text().replace("a timeout.", "a timeout of 5 s.") + "\n" + MADE_UP
    refused = _merge(root, "pending-left", "pending-right", _conflict_settled_as(resolved), *hooked)
    assert refused.returncode == 1 and "gate ran on .git/COMMIT_EDITMSG: 1" in refused.stderr, refused.stderr
    assert refused.stderr.splitlines()[0] == (
        f"{PAGE}:{_line(resolved, '<!-- gitstore:promoted')}: a promoted block names {UNKNOWN}, which is not a "
        "learning of this repository's store; it is in none of the parents of the merge being made, which is not "
        f"the promotion commit of {UNKNOWN}")
    assert (root / ".git" / "MERGE_HEAD").is_file()  # nothing was committed
    git(root, "merge", "--abort")
    git(root, "checkout", "-q", "main")
    _edit(root, "pending-trunk", "main", "a timeout.", "a timeout of 5 s.")
    carried = _merge(root, "pending-trunk", result.branch, None, *hooked)  # git merge runs commit-msg itself
    assert carried.returncode == 0 and "gate ran on .git/MERGE_MSG: 0" in carried.stderr, carried.stderr
    assert git(root, "rev-parse", "pending-trunk^2").strip() == result.commit


@made_once
def _retired_after_merging(tmp_path: Path) -> tuple[Path, dict[str, Any], str]:
    """A repository whose main merged a promotion, then, its learning retired, removed the block
    in a commit; and the commit of main that still held the block."""
    from gitstore.ops import learning as ops

    ctx = wiki_repo(tmp_path / "widgets")
    root = ctx.workspace.root
    learning = accepted_learning(ctx)
    result = promote(ctx, learning["id"], PERSON)
    before = git(root, "rev-parse", "main").strip()
    git(root, "merge", "-q", "--no-ff", "-m", "Merge the promotion", result.branch)
    held = git(root, "rev-parse", "main").strip()
    ops.retire(ctx, learning["id"], PERSON, "obsolete")
    git(root, "checkout", "-q", before, "--", PAGE)
    git(root, "commit", "-q", "-m", "Remove the retired block")
    return root, learning, held


def test_a_merge_that_brings_back_a_retired_block_from_an_older_commit_fails(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A merge whose other parent is an older commit of main carries that commit's page, block
    and all: the file is the same as one parent's, yet the block is at the tip and not at the
    base, and its learning is no longer in force."""
    root, learning, held = _retired_after_merging(tmp_path)
    git(root, "checkout", "-q", "-B", "docs-sync", "main")
    git(root, "checkout", "-q", held, "--", PAGE)
    tree = git(root, "write-tree").strip()
    merge = git(root, "commit-tree", "-p", "HEAD", "-p", held, "-m", "Merge branch 'docs-sync'", tree).strip()
    git(root, "reset", "-q", "--hard", merge)
    git(root, "checkout", "-q", "main")
    line = _line(git(root, "show", f"{merge}:{PAGE}"), "<!-- gitstore:promoted")
    monkeypatch.chdir(root)
    code, out = _gate(root, "main", "docs-sync", capsys)
    main = git(root, "rev-parse", "main").strip()
    assert (code, out) == (1, [
        f"{PAGE}:{line}: a promoted block names {learning['id']}, which is not an accepted learning in force; it is "
        f"at {merge[:12]} and not at the range's base {main[:12]}, and no commit of the range adds it (a merge "
        "carried it from an older version of the file): remove the block in a commit"])
    assert [(c.commit, c.problems) for c in provenance(root, "main..docs-sync").commits] == [(merge, out)]


def test_a_branch_that_moves_a_block_main_removed_into_a_new_page_fails(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A branch forked while a block was in force removes it from its page as main did and adds
    a page holding it (a page split): each commit keeps the block, and the branch's fork point
    holds it too, yet merging the branch into main, a clean merge, brings the block of a learning
    retired since back onto main."""
    root, learning, held = _retired_after_merging(tmp_path)
    git(root, "checkout", "-q", "-B", "docs-split", held)
    block = git(root, "show", f"{held}:{PAGE}")
    block = block[block.index("<!-- gitstore:promoted"):block.index("`.\n", block.index("Cited:")) + 3]
    git(root, "checkout", "-q", f"{held}^1", "--", PAGE)
    (root / "okf/wiki/retries.md").write_text("---\ntype: Guide\ntitle: Retries\ndescription: How the client "
                                              f"retries.\n---\n\n# Retries\n\n{block}")
    git(root, "add", "okf/wiki/retries.md")
    git(root, "commit", "-q", "-m", "Split retries into a page of its own")
    tip = git(root, "rev-parse", "docs-split").strip()
    git(root, "checkout", "-q", "main")
    main = git(root, "rev-parse", "main").strip()
    merged = git(root, "merge-tree", "--write-tree", main, tip).split()[0]
    assert learning["id"] in git(root, "show", f"{merged}:okf/wiki/retries.md")
    monkeypatch.chdir(root)
    code, out = _gate(root, main, tip, capsys)
    assert (code, out) == (1, [
        f"okf/wiki/retries.md:9: a promoted block names {learning['id']}, which is not an accepted learning in "
        f"force; it is in what merging {tip[:12]} into {main[:12]} gives and not at {main[:12]}, and no commit of "
        "the range adds it (a block the range keeps, moved or carried from an older version of a file): remove "
        "the block in a commit"])


def test_a_branch_forked_before_a_block_was_removed_passes_when_the_merge_removes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A branch forked while a block was in force still holds it, unchanged, after main retired
    it and removed it; merging the branch keeps main's removal, so the range passes."""
    root, _, held = _retired_after_merging(tmp_path)
    tip = _edit(root, "old-topic", held, "a timeout.", "a timeout of 5 s.")
    monkeypatch.chdir(root)
    assert _gate(root, "main", tip, capsys) == (0, [])


def test_a_branch_whose_merge_conflicts_is_judged_by_its_tip(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """When the branch does not merge cleanly into main, git cannot say what the merge keeps: a
    block of a learning no longer in force that the tip holds and main does not is refused until
    the branch merges main (and so drops the block)."""
    root, learning, held = _retired_after_merging(tmp_path)
    tip = _edit(root, "old-topic", held, "a timeout.", "a timeout of 10 s.")
    page = root / PAGE
    page.write_text(page.read_text().replace("a timeout.", "a timeout of 5 s.", 1))
    git(root, "commit", "-q", "-am", "Say 5 s")
    main = git(root, "rev-parse", "main").strip()
    line = _line(git(root, "show", f"{tip}:{PAGE}"), "<!-- gitstore:promoted")
    monkeypatch.chdir(root)
    assert _gate(root, main, tip, capsys) == (1, [
        f"{PAGE}:{line}: a promoted block names {learning['id']}, which is not an accepted learning in force; it is "
        f"at {tip[:12]} and not at {main[:12]}, and no commit of the range adds it (git could not merge the two to "
        "tell whether the merge keeps it: a conflict, or git older than 2.38; merge the base into the branch): "
        "remove the block in a commit"])


def test_merging_main_with_a_promotion_into_a_branch_passes(
        promoted: tuple[Context, dict[str, Any], Any], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A branch that merges main after main merged a promotion carries the block in force as it
    is: judged from the branch's earlier tip, the block is new, and stands."""
    ctx, learning, result = promoted
    root = ctx.workspace.root
    _edit(root, "topic", "main", "a timeout.", "a timeout of 5 s.")
    pushed = git(root, "rev-parse", "topic").strip()
    _edit(root, "trunk-with-promotion", "main", "The client retries", "The client retries idempotent")
    assert _merge(root, "trunk-with-promotion", result.branch).returncode == 0
    assert _merge(root, "topic", "trunk-with-promotion").returncode == 0
    monkeypatch.chdir(root)
    assert _gate(root, pushed, "topic", capsys) == (0, [])
    assert _gate(root, "trunk-with-promotion", "topic", capsys) == (0, [])
