"""Which refs a push sends besides the one pre-commit hands the gates (``_pushed``): the
``git push`` command line read as git reads it, its refs found in a real repository, and the
range each is judged over. The pushes themselves, through pre-commit, are in
test_gates_precommit.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstore.promote.gates import _pushed
from gitstore.promote.gates._pushed import Push, pushed_refs, read_push

from .promotion_world import git


@pytest.mark.parametrize(("argv", "read"), [
    (["git", "push"], Push([])),
    (["git", "-C", "src", "-c", "push.default=current", "push", "-u", "origin", "a", "b"], Push(["a", "b"])),
    (["/usr/bin/git", "push", "--all", "origin"], Push([], all=True)),
    (["git", "push", "--branches", "--tags", "origin"], Push([], all=True, tags=True)),
    (["git", "push", "--tag", "origin", "a"], Push(["a"], tags=True)),  # git takes an option's beginning
    (["git", "push", "--mirror"], Push([], mirror=True)),
    (["git", "push", "-o", "ci.skip", "origin", "a", "b"], Push(["a", "b"])),
    (["git", "push", "-uoci.skip", "origin", "a"], Push(["a"])),
    (["git", "push", "--push-option", "x", "--recurse-submodules", "check", "origin", "a"], Push(["a"])),
    (["git", "push", "--force-with-lease=a:abc", "--signed", "origin", "+a", "b:c"], Push(["+a", "b:c"])),
    (["git", "push", "origin", "tag", "v1", "b"], Push(["refs/tags/v1", "b"])),
    (["git", "push", "-d", "origin", "a", "b"], Push(["a", "b"], delete=True)),
    (["git", "push", "origin", "--", "-odd"], Push(["-odd"])),
    (["git", "commit", "-m", "push"], None),
])
def test_a_push_command_line_is_read_as_git_reads_it(argv: list[str], read: Push | None) -> None:
    assert read_push(argv) == read


def test_a_push_command_line_with_an_option_unknown_here_is_not_understood() -> None:
    assert not isinstance(read_push(["git", "push", "--frobnicate", "origin", "a"]), Push)
    assert not isinstance(read_push(["git", "push", "-z", "origin", "a"]), Push)
    assert not isinstance(read_push(["git", "push", "--f", "origin"]), Push)  # --force, --follow-tags...


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """main on the remote; a and b a commit ahead of it each; an annotated tag on b; a memory ref."""
    root = tmp_path / "work"
    git(tmp_path, "init", "-q", "--bare", "remote.git")
    git(tmp_path, "init", "-q", "-b", "main", str(root))
    git(root, "config", "user.name", "T")
    git(root, "config", "user.email", "t@example.com")
    git(root, "commit", "-q", "--allow-empty", "-m", "start")
    git(root, "remote", "add", "origin", str(tmp_path / "remote.git"))
    git(root, "push", "-q", "origin", "main")
    for branch in ("a", "b"):
        git(root, "checkout", "-q", "-b", branch, "main")
        git(root, "commit", "-q", "--allow-empty", "-m", branch)
    git(root, "tag", "-a", "-m", "one", "v1", "b")
    git(root, "update-ref", "refs/memory/v1/records/shared/x", "main")
    git(root, "checkout", "-q", "main")
    monkeypatch.chdir(root)
    return root


def _names(found: list[_pushed.Pushed]) -> set[str]:
    return {ref.name for ref in found}


def test_the_refs_a_push_sends_are_found_in_the_repository(repo: Path) -> None:
    a, b = (git(repo, "rev-parse", name).strip() for name in ("a", "b"))
    assert pushed_refs(repo, Push(["a", "+b:other", ":gone", "^refs/heads/x"]), "origin") == [
        _pushed.Pushed("a", a), _pushed.Pushed("b", b)]
    assert pushed_refs(repo, Push(["a"]), "origin") == []  # one ref: pre-commit's own
    assert pushed_refs(repo, Push(["a", "b"], delete=True), "origin") == []
    assert _names(pushed_refs(repo, Push(["refs/heads/*:refs/heads/*"]), "origin")) == {
        "refs/heads/main", "refs/heads/a", "refs/heads/b"}
    assert _names(pushed_refs(repo, Push([], all=True), "origin")) == {"refs/heads/main", "refs/heads/a", "refs/heads/b"}
    assert pushed_refs(repo, Push([], tags=True), "origin") == [_pushed.Pushed("refs/tags/v1", b)]  # peeled
    mirrored = _names(pushed_refs(repo, Push([], mirror=True), "origin"))
    assert "refs/remotes/origin/main" in mirrored and not any(n.startswith("refs/memory/") for n in mirrored)
    assert pushed_refs(repo, Push([]), "origin") == []  # push.default: the current branch alone
    git(repo, "config", "--add", "remote.origin.push", "refs/heads/a")
    git(repo, "config", "--add", "remote.origin.push", "refs/tags/*")
    assert _names(pushed_refs(repo, Push([]), "origin")) == {"refs/heads/a", "refs/tags/v1"}
    unknown = read_push(["git", "push", "--frobnicate"])
    assert _names(pushed_refs(repo, unknown, "origin")) == {"refs/heads/main", "refs/heads/a", "refs/heads/b",
                                                            "refs/tags/v1"}


def test_each_other_ref_is_judged_over_the_range_pre_commit_would_give(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``git push origin a b main --tags`` where pre-commit judged a: b over its commits the
    remote lacks, its tag at the same commit once, main not at all (the remote holds it)."""
    a, b, main = (git(repo, "rev-parse", name).strip() for name in ("a", "b", "main"))
    monkeypatch.setattr(_pushed, "_git_push", lambda: ["git", "push", "origin", "a", "b", "main", "--tags"])
    monkeypatch.setenv("PRE_COMMIT_REMOTE_NAME", "origin")
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", main)
    monkeypatch.setenv("PRE_COMMIT_TO_REF", a)
    [(name, env)] = _pushed.others(repo)
    assert (name, env["PRE_COMMIT_FROM_REF"], env["PRE_COMMIT_TO_REF"], env[_pushed.AGAIN]) == ("b", main, b, "b")
    monkeypatch.setenv(_pushed.AGAIN, "b")
    assert _pushed.others(repo) == []  # a gate run again for a ref looks no further
    monkeypatch.delenv(_pushed.AGAIN)
    # a first push to a remote that holds nothing: each ref's whole history, no range
    monkeypatch.setenv("PRE_COMMIT_REMOTE_NAME", str(repo.parent / "empty.git"))
    for name in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("PRE_COMMIT_LOCAL_BRANCH", "refs/heads/a")
    found = dict(_pushed.others(repo))
    assert set(found) == {"b", "main"}
    assert all("PRE_COMMIT_FROM_REF" not in env and "PRE_COMMIT_TO_REF" not in env for env in found.values())
    assert found["b"]["PRE_COMMIT_LOCAL_BRANCH"] == b


def test_a_push_by_the_url_of_a_configured_remote_judges_only_what_it_lacks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``git push https://host/team/repo topic`` names the remote by its URL, and ``--remotes=URL``
    names no ref: the scan took the push for the first of a whole history, read every blob of it
    (minutes over a long one) and refused the push for a token a commit removed long ago, which
    the remote holds already and git never sends again. The remotes configured with that URL say
    what it holds."""
    from gitstore.promote.gates import scan

    root = tmp_path / "work"
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(tmp_path, "init", "-q", "-b", "main", str(root))
    git(root, "config", "user.name", "T")
    git(root, "config", "user.email", "t@example.com")
    (root / "old.txt").write_text("token = ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + "\n")
    git(root, "add", "old.txt")
    git(root, "commit", "-q", "-m", "old")
    git(root, "rm", "-q", "old.txt")
    git(root, "commit", "-q", "-m", "drop old")
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "origin", "main")
    git(root, "checkout", "-q", "-b", "topic")
    (root / "notes.txt").write_text("Retries back off.\n")
    git(root, "add", "notes.txt")
    git(root, "commit", "-q", "-m", "notes")
    monkeypatch.chdir(root)
    for name, value in (("PRE_COMMIT_REMOTE_NAME", str(remote)), ("PRE_COMMIT_REMOTE_URL", str(remote)),
                        ("PRE_COMMIT_LOCAL_BRANCH", "refs/heads/topic"), ("PRE_COMMIT_REMOTE_BRANCH", "refs/heads/topic")):
        monkeypatch.setenv(name, value)  # pre-commit's whole push: no range
    monkeypatch.setattr(_pushed, "_git_push", lambda: None)
    assert scan.main(["--", "notes.txt"]) == 0, capsys.readouterr().out
    git(root, "remote", "set-url", "origin", str(tmp_path / "elsewhere.git"))  # no remote known by that URL
    assert scan.main(["--", "notes.txt"]) == 1
    assert "old.txt:1: in commit " in capsys.readouterr().out
