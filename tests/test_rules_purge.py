"""Purge: high friction, removes this clone's memory refs and state only."""

from __future__ import annotations

import subprocess
from pathlib import Path

from .cli import gitstore
from .world import Thread, grant_all, ready_repo


def test_purge_needs_the_repository_name(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    Thread(ctx, 1, "1").save()
    root = ctx.workspace.root
    run = lambda *a, stdin=None: gitstore(*a, cwd=root, stdin=stdin)  # noqa: E731
    assert run("purge").returncode == 2  # no terminal: asks for --confirm
    wrong = run("purge", "--confirm", "acme/other")
    assert wrong.returncode == 1 and "not confirmed" in wrong.stderr
    assert subprocess.run(["git", "for-each-ref", "refs/memory/"], cwd=root, capture_output=True, text=True).stdout
    held = root / ".git" / "refs" / "memory" / "v1" / "remotes" / "origin" / "records" / "shared" / "wcut"
    held.parent.mkdir(parents=True, exist_ok=True)
    held.write_text("cut sh")  # a ref file a crash cut short: git lists it nowhere and will not delete it
    done = run("purge", "--confirm", "acme/widgets")
    assert done.returncode == 0, done.stderr
    assert subprocess.run(["git", "for-each-ref", "refs/memory/"], cwd=root, capture_output=True, text=True).stdout == ""
    assert not held.exists() and not (root / "okf" / ".memory").exists()
    assert subprocess.run(["git", "config", "--local", "gitstore.scope"], cwd=root).returncode == 1  # forgotten
    assert subprocess.run(["git", "fsck"], cwd=root, capture_output=True).returncode == 0


def _purge_at_a_terminal(root: Path, typed: str, *options: str) -> subprocess.CompletedProcess[str]:
    """``gitstore purge`` run with a terminal on standard input, where a person types ``typed``;
    its standard output goes to a pipe, as with ``gitstore purge > file``."""
    import os
    import pty
    import sys

    main, terminal = pty.openpty()
    try:
        os.write(main, typed.encode() + b"\n")
        return subprocess.run([sys.executable, "-m", "gitstore", "purge", *options], cwd=root, stdin=terminal,
                              capture_output=True, text=True, timeout=60)
    finally:
        os.close(main)
        os.close(terminal)


def test_purge_asks_for_the_name_at_a_terminal_and_takes_the_local_namespace_too(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    Thread(ctx, 1, "1").save()
    Thread(ctx, None, "s1", kind="agent-session").save()  # a personal session: kept in .git/gitstore/
    root = ctx.workspace.root
    assert (root / ".git" / "gitstore").is_dir()
    refused = _purge_at_a_terminal(root, "acme/other")
    assert refused.returncode == 1 and "Type acme/widgets to confirm" in refused.stderr and refused.stdout == ""
    assert "not confirmed" in refused.stderr and (root / ".git" / "gitstore").is_dir()
    done = _purge_at_a_terminal(root, "acme/widgets")
    assert done.returncode == 0, done.stderr
    assert subprocess.run(["git", "for-each-ref", "refs/memory/"], cwd=root, capture_output=True, text=True).stdout == ""
    assert not (root / ".git" / "gitstore").exists() and not (root / "okf" / ".memory").exists()


def test_purge_asks_on_standard_error_so_its_json_output_stays_one_document(tmp_path: Path) -> None:
    import json

    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    Thread(ctx, 1, "1").save()
    done = _purge_at_a_terminal(ctx.workspace.root, "acme/widgets", "--json")
    assert done.returncode == 0 and "Type acme/widgets to confirm" in done.stderr
    assert json.loads(done.stdout)["stateRemoved"] is True


def test_purge_needs_only_the_repository_not_the_set_up(tmp_path: Path) -> None:
    """A clone whose okf/.memory/ was deleted by hand (or whose configuration is damaged) still
    holds its memory refs and personal sessions: purge removes them all the same."""
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    Thread(ctx, 1, "1").save()
    Thread(ctx, None, "s1", kind="agent-session").save()
    root = ctx.workspace.root
    import shutil

    shutil.rmtree(root / "okf" / ".memory")
    done = gitstore("purge", "--confirm", "acme/widgets", cwd=root)
    assert done.returncode == 0, done.stderr
    assert subprocess.run(["git", "for-each-ref", "refs/memory/"], cwd=root, capture_output=True, text=True).stdout == ""
    assert not (root / ".git" / "gitstore").exists()

    again = gitstore("purge", "--confirm", "acme/widgets", cwd=root)
    assert again.returncode == 2 and again.stderr == f"gitstore: error: gitstore has nothing to purge in {root}\n"


def test_purge_goes_past_a_damaged_configuration(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "widgets")
    Thread(ctx, None, "s1", kind="agent-session").save()
    root = ctx.workspace.root
    (root / "okf" / ".memory" / "config.json").write_text("{not json")
    done = gitstore("purge", "--confirm", "acme/widgets", cwd=root)
    assert done.returncode == 0, done.stderr
    assert not (root / ".git" / "gitstore").exists() and not (root / "okf" / ".memory").exists()


def test_purge_erases_what_only_memory_reached_and_keeps_everything_else(tmp_path: Path) -> None:
    """Deleting the refs left every record and payload in the object database until git's own
    expiry (two weeks), and gitstore gc refused to run on the purged clone: text purged to be
    rid of it stayed readable. Purge erases memory's objects; the user's own stay."""
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    thread = Thread(ctx, 1, "1")
    thread.comment("1", "the ssn is 078-05-1120", "2026-03-01T10:00:00.000000Z")
    thread.save()
    root = ctx.workspace.root
    subprocess.run(["git", "gc", "-q"], cwd=root, check=True)  # packed, as a long-used clone is

    def everything() -> bytes:
        return subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch", "--unordered"], cwd=root,
                              capture_output=True, check=True).stdout

    assert b"078-05-1120" in everything()
    git = ["git", "-c", "user.name=u", "-c", "user.email=u@example.com"]
    (root / "draft.txt").write_text("my own draft\n")
    subprocess.run(["git", "add", "draft.txt"], cwd=root, check=True)
    subprocess.run([*git, "stash", "-q"], cwd=root, check=True)  # the user's own, reachable from the stash
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input=b"a dangling blob of mine\n",
                          capture_output=True, check=True).stdout.decode().strip()
    done = gitstore("purge", "--confirm", "acme/widgets", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    import json

    assert json.loads(done.stdout)["objectsErased"] > 0
    left = everything()
    assert b"078-05-1120" not in left and b"gitstore <gitstore@localhost>" not in left
    assert b"my own draft" in left and b"a dangling blob of mine" in left
    assert subprocess.run(["git", "cat-file", "-e", blob], cwd=root).returncode == 0
    assert subprocess.run(["git", "fsck", "--no-dangling"], cwd=root, capture_output=True).returncode == 0
    assert subprocess.run(["git", "stash", "pop", "-q"], cwd=root).returncode == 0


def test_purge_leaves_the_git_configuration_as_init_found_it(tmp_path: Path) -> None:
    """What init added to git's own files goes with the purge: the fetch refspecs that made a
    plain ``git fetch`` bring memory back, and the ignore rule; the remote's own refspec and a
    person's lines in the exclude file stay."""
    from .conftest import git

    root = tmp_path / "widgets"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    git(root, "commit", "-q", "--allow-empty", "-m", "first")
    exclude = root / ".git" / "info" / "exclude"
    exclude.write_text("# mine\n*.swp\n")
    settings = lambda: git(root, "config", "--local", "--list")  # noqa: E731
    config_before = settings()
    assert gitstore("init", cwd=root).returncode == 0
    fetch = lambda: git(root, "config", "--get-all", "remote.origin.fetch").split()  # noqa: E731
    assert len(fetch()) == 3 and "/okf/.memory/" in exclude.read_text()
    done = gitstore("purge", "--confirm", "acme/widgets", cwd=root)
    assert done.returncode == 0, done.stderr
    assert fetch() == ["+refs/heads/*:refs/remotes/origin/*"]
    assert exclude.read_text() == "# mine\n*.swp\n"
    assert settings() == config_before


def _widgets(root: Path) -> None:
    """A repository with one commit whose origin names acme/widgets (not set up)."""
    from .conftest import git

    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    git(root, "commit", "-q", "--allow-empty", "-m", "first")


def test_purge_in_one_worktree_keeps_the_ignore_rule_another_still_needs(tmp_path: Path) -> None:
    """The exclude file is every work tree's: purged in a linked worktree, the rule stays while
    the main one still holds its okf/.memory/ (its config.json never shows in `git status`);
    purged there too, the rule goes."""
    from .conftest import git

    root, other = tmp_path / "widgets", tmp_path / "side"
    _widgets(root)
    assert gitstore("init", cwd=root).returncode == 0
    git(root, "worktree", "add", "-q", "-b", "side", str(other))
    assert gitstore("init", cwd=other).returncode == 0
    exclude = root / ".git" / "info" / "exclude"
    before = exclude.read_bytes()
    assert b"/okf/.memory/" in before
    done = gitstore("purge", "--confirm", "acme/widgets", cwd=other)
    assert done.returncode == 0, done.stderr
    assert not (other / "okf" / ".memory").exists() and (root / "okf" / ".memory" / "config.json").exists()
    assert exclude.read_bytes() == before
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    done = gitstore("purge", "--confirm", "acme/widgets", cwd=root)
    assert done.returncode == 0, done.stderr
    assert b"/okf/.memory/" not in exclude.read_bytes() and b"gitstore" not in exclude.read_bytes()


def test_purge_takes_only_the_rule_init_wrote_and_leaves_every_other_byte(tmp_path: Path) -> None:
    """A person's own rule for okf/.memory/ (init then adds none) stays after purge, and so do
    the CRLF endings of their exclude file; where init did add its rule, purge takes that rule
    and its comment and nothing else."""
    own, plain = tmp_path / "own", tmp_path / "plain"
    for root, text in ((own, b"# my rules\r\n*.log\r\n/okf/.memory/"), (plain, b"# mine\r\n*.swp\r\n")):
        _widgets(root)
        exclude = root / ".git" / "info" / "exclude"
        exclude.write_bytes(text)
        assert gitstore("init", cwd=root).returncode == 0
        assert (exclude.read_bytes() == text) == (root == own)
        done = gitstore("purge", "--confirm", "acme/widgets", cwd=root)
        assert done.returncode == 0, done.stderr
        assert exclude.read_bytes() == text


def test_purge_deletes_the_copies_git_s_prefetch_made_of_memory_s_refs(tmp_path: Path) -> None:
    """``git maintenance run --task=prefetch`` (hourly under ``git maintenance start``) copies
    every ref a remote's refspecs fetch, memory's included, into ``refs/prefetch/``: those copies
    kept every record and payload reachable after a purge, which erased nothing. They go with
    memory's refs; the prefetched copies of the user's branches stay."""
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    thread = Thread(ctx, 1, "1")
    thread.comment("1", "words to purge away", "2026-03-01T10:00:00.000000Z")
    thread.save()
    root = ctx.workspace.root
    writer = ctx.workspace.config.writer

    def run(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout

    for kind in ("records", "payloads"):  # as the prefetch of a remote memory was synced to names them
        run("update-ref", f"refs/prefetch/memory/v1/remotes/origin/{kind}/shared/{writer}",
            f"refs/memory/v1/{kind}/shared/{writer}")
    run("update-ref", "refs/prefetch/remotes/origin/main", "HEAD")
    done = gitstore("purge", "--confirm", "acme/widgets", cwd=root)
    assert done.returncode == 0, done.stderr
    assert run("for-each-ref", "--format=%(refname)", "refs/prefetch/") == "refs/prefetch/remotes/origin/main\n"
    left = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=root, capture_output=True,
                          check=True).stdout
    assert b"words to purge away" not in left


def test_purge_removes_nothing_through_a_link_a_commit_put_on_the_way(tmp_path: Path) -> None:
    """A commit can make ``okf`` (or ``okf/.memory``) a link: purge removed ``okf/.memory``
    wherever the link led, so a purge deleted a folder outside the repository (another
    clone's state, say), and a link as ``okf/.memory`` itself stopped purge midway with
    "Cannot call rmtree on a symbolic link". The memory refs and the local namespace go; what
    lies through the link is left as it is, and purge says so."""
    import json

    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    Thread(ctx, 1, "1").save()
    root = ctx.workspace.root
    elsewhere = tmp_path / "another-clone" / "okf"
    (elsewhere / ".memory").mkdir(parents=True)
    (elsewhere / ".memory" / "config.json").write_text("another clone's own\n")
    subprocess.run(["rm", "-rf", str(root / "okf")], check=True)
    (root / "okf").symlink_to(elsewhere)
    subprocess.run(["git", "add", "okf"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=u", "-c", "user.email=u@example.com", "commit", "-q", "-m", "okf moved"],
                   cwd=root, check=True)
    done = gitstore("purge", "--confirm", "acme/widgets", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["stateRemoved"] is False and "link" in result["stateLeft"] and str(elsewhere) in result["stateLeft"]
    assert (elsewhere / ".memory" / "config.json").read_text() == "another clone's own\n"
    assert subprocess.run(["git", "for-each-ref", "refs/memory/"], cwd=root, capture_output=True, text=True).stdout == ""
    assert not (root / ".git" / "gitstore").exists()
    (root / "okf").unlink()
    (root / "okf").mkdir()
    assert gitstore("init", cwd=root).returncode == 0
    granted = gitstore("grant", "--purpose", "review", "--source", "review-thread", "--from", "2026-01-01",
                       "--by", "github:9", cwd=root)
    assert granted.returncode == 0, granted.stderr
    subprocess.run(["rm", "-rf", str(root / "okf" / ".memory")], check=True)
    (root / "okf" / ".memory").symlink_to(elsewhere / ".memory")  # the state folder itself a link
    done = gitstore("purge", "--confirm", "acme/widgets", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "okf/.memory is a link" in done.stdout and (elsewhere / ".memory" / "config.json").exists()
