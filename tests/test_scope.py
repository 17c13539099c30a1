"""Scope: host + owner/name from the origin remote, credentials stripped; local scopes; worktrees."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pygit2
import pytest

from gitstore import InvalidInput
from gitstore.scope import remote_scope, repository_scope, scope_from_url, worktree_key

from .conftest import git


@pytest.mark.parametrize(
    ("url", "scope"),
    [
        ("https://token:secret@github.com/acme/widgets.git", "github.com/acme/widgets"),
        ("git@github.com:acme/widgets.git", "github.com/acme/widgets"),
        ("ssh://git@GitHub.com:22/acme/widgets", "github.com/acme/widgets"),
        ("https://gitlab.example.com:8443/group/sub/proj.git", "gitlab.example.com/group/sub/proj"),
        ("https://ghe.example.com/acme/widgets", "ghe.example.com/acme/widgets"),
    ],
)
def test_scope_from_remote_urls(url: str, scope: str) -> None:
    assert scope_from_url(url) == scope


def test_same_owner_name_on_two_hosts_are_two_scopes() -> None:
    assert scope_from_url("https://github.com/acme/widgets") != scope_from_url("https://ghe.example.com/acme/widgets")


@pytest.mark.parametrize("url", ["https://github.com/acme", "not a url at all", "https://github.com/acme/../x"])
def test_unusable_urls_are_refused_without_leaking_credentials(url: str) -> None:
    with pytest.raises(InvalidInput) as info:
        scope_from_url(url.replace("https://", "https://user:hunter2@"))
    assert "hunter2" not in str(info.value)


def test_no_remote_gives_a_local_scope_and_clones_share_their_origin_scope(tmp_path: Path) -> None:
    a = tmp_path / "a"
    git(tmp_path, "init", "-q", str(a))
    git(a, "commit", "-q", "--allow-empty", "-m", "root")
    local = repository_scope(pygit2.Repository(str(a)))
    assert local.startswith("local/") and len(local) == len("local/") + 16
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(a), str(b))
    assert repository_scope(pygit2.Repository(str(b))) == local


def test_a_remote_stands_for_the_scope_its_clones_take_from_it(tmp_path: Path) -> None:
    """Any remote, as origin does: the scope a clone whose origin it is would have."""
    a, b = tmp_path / "a", tmp_path / "b"
    git(tmp_path, "init", "-q", str(a))
    git(a, "commit", "-q", "--allow-empty", "-m", "root")
    git(tmp_path, "clone", "-q", "-o", "upstream", str(a), str(b))
    repo = pygit2.Repository(str(b))
    assert remote_scope(repo, "upstream") == repository_scope(pygit2.Repository(str(a)))
    assert repository_scope(repo) != remote_scope(repo, "upstream"), "without origin, a scope of its own"
    git(b, "remote", "add", "hosted", "git@GitHub.com:acme/widgets.git")
    assert remote_scope(repo, "hosted") == "github.com/acme/widgets"
    assert remote_scope(repo, "none") is None


def test_clones_whose_origins_lead_back_to_one_another_are_named_a_loop(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    git(tmp_path, "init", "-q", str(a))
    git(tmp_path, "clone", "-q", str(a), str(b))
    git(a, "remote", "add", "origin", str(b))
    with pytest.raises(InvalidInput, match="back to itself"):
        repository_scope(pygit2.Repository(str(a)))


def test_worktree_key(tmp_path: Path, repo: Path) -> None:
    assert worktree_key(pygit2.Repository(str(repo))) is None
    linked = tmp_path / "linked"
    subprocess.run(["git", "worktree", "add", "-q", str(linked)], cwd=repo, check=True, capture_output=True)
    key = worktree_key(pygit2.Repository(str(linked)))
    assert key is not None and len(key) == 16
    assert repository_scope(pygit2.Repository(str(linked))) == repository_scope(pygit2.Repository(str(repo)))
    latin = tmp_path / os.fsdecode(b"l\xe9")  # a folder whose name is not UTF-8: keyed by its bytes
    subprocess.run(["git", "worktree", "add", "-q", str(latin)], cwd=repo, check=True, capture_output=True)
    assert worktree_key(pygit2.Repository(str(latin))) not in (None, key)


def test_a_linked_worktree_without_remote_shares_the_local_scope(tmp_path: Path) -> None:
    main = tmp_path / "main"
    git(tmp_path, "init", "-q", str(main))
    git(main, "commit", "-q", "--allow-empty", "-m", "root")
    linked = tmp_path / "linked"
    subprocess.run(["git", "worktree", "add", "-q", str(linked)], cwd=main, check=True, capture_output=True)
    assert repository_scope(pygit2.Repository(str(linked))) == repository_scope(pygit2.Repository(str(main)))


def test_a_clone_whose_git_folder_is_elsewhere_is_set_up_and_used_in_its_own_work_tree(tmp_path: Path) -> None:
    """``git clone --separate-git-dir`` leaves a ``.git`` file in the work tree naming the git
    folder, which names no work tree back: opened from the git folder, the work tree would be
    guessed as the folder above it. gitstore opens the repository from where it was started."""
    from . import cli

    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", f"--separate-git-dir={tmp_path / 'elsewhere.git'}", str(bare), str(work))
    git(work, "commit", "-q", "--allow-empty", "-m", "root")
    done = cli.gitstore("init", cwd=work)
    assert done.returncode == 0, done.stderr
    assert (work / "okf" / ".memory" / "config.json").is_file()
    assert not (tmp_path / "okf").exists(), "nothing written beside the git folder"
    assert cli.gitstore("grant", "--purpose", "review", "--source", "review-thread", "--from", "2026-01-01",
                        cwd=work / "okf").returncode == 0
    assert cli.gitstore("verify", cwd=work).returncode == 0


def test_a_clone_whose_origin_moved_goes_on_under_its_kept_scope_and_says_what_to_do(tmp_path: Path) -> None:
    """A clone of a repository on this machine, once that repository is moved: origin names a
    path where no repository is, so it gives no scope. The scope kept when memory was set up is
    the one memory is pinned to: reads and writes go on under it, every command warns in one line
    naming the to-do, doctor fails an origin check with it and status shows it (neither warns as
    well), sync cannot reach origin and says so, and the context hook still answers. The to-do
    followed (the repository there had no origin, so its path gave the scope: kept there too),
    the clone is whole again."""
    import json
    import sys

    from . import cli

    a, b, fresh = tmp_path / "a", tmp_path / "b", tmp_path / "fresh"
    git(tmp_path, "init", "-q", str(a))
    git(a, "commit", "-q", "--allow-empty", "-m", "root")
    git(tmp_path, "clone", "-q", str(a), str(b))
    git(tmp_path, "clone", "-q", str(a), str(fresh))
    cli.ok("init", cwd=b)
    scope = git(b, "config", "gitstore.scope").strip()
    grant = ("grant", "--purpose", "review", "--source", "review-thread", "--from", "2026-01-01")
    cli.ok(*grant, cwd=b)
    (tmp_path / "a").rename(tmp_path / "a-moved")
    todo = f"git remote set-url origin NEW-PATH && git -C NEW-PATH config gitstore.scope {scope}"

    for args in (("learnings",), ("context", "--prompt", "x"), ("verify",), ("records", "list"), ("init",), grant):
        done = cli.gitstore(*args, cwd=b)
        assert done.returncode == 0, (args, done.stderr)
        [warning] = [line for line in done.stderr.splitlines() if line.startswith("gitstore: warning:")]
        assert warning.startswith("gitstore: warning: origin ") and todo in warning and scope in warning, warning
    assert len(json.loads(cli.ok("records", "list", "--kind", "grant", "--json", cwd=b))) == 2, \
        "the grant stored before the move is read, and the one after it written"
    assert json.loads(cli.ok("status", "--json", cwd=b))["scope"] == scope

    doctor = cli.gitstore("doctor", cwd=b)
    assert doctor.returncode == 1 and doctor.stderr == "", doctor.stderr
    assert f"ok   repository: {b.resolve()} (scope {scope})" in doctor.stdout
    assert "FAIL origin: origin " in doctor.stdout and f"     to do: {todo}\n" in doctor.stdout, doctor.stdout
    status = cli.gitstore("status", cwd=b)
    assert status.returncode == 0 and status.stderr == "", status.stderr
    assert f"scope     {scope}\norigin    origin " in status.stdout and todo in status.stdout, status.stdout
    assert json.loads(cli.ok("status", "--json", cwd=b))["movedOrigin"]["todo"] == todo
    said = cli.fails(1, "sync", cwd=b)
    assert "nothing to fetch from or push to" in said and todo in said, said

    hook = subprocess.run([sys.executable, "-P", "-m", "gitstore.deliver.hook", "claude-code"], cwd=b,
                          input=json.dumps({"session_id": "s1", "cwd": str(b), "hook_event_name": "UserPromptSubmit",
                                            "prompt": "x", "transcript_path": "/tmp/s1.jsonl"}).encode(),
                          capture_output=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if not k.startswith("GITSTORE_")})
    assert hook.returncode == 0 and (hook.stdout == b"" or json.loads(hook.stdout)), hook
    log = b / "okf" / ".memory" / "logs" / "hooks.log"
    assert not log.exists() or "not a git repository" not in log.read_text(), log.read_text()

    # never set up here: no scope kept to go on with, so one line naming the to-do
    said = cli.fails(1, "init", cwd=fresh)
    assert "is a path but not a git repository" in said and "`git remote set-url origin NEW-PATH`" in said, said
    doctor = cli.gitstore("doctor", cwd=fresh)
    assert doctor.returncode == 1 and "FAIL repository: " in doctor.stdout \
        and "     to do: git remote set-url origin NEW-PATH\n" in doctor.stdout, doctor.stdout

    (tmp_path / "a-moved").rename(tmp_path / "a2")
    for command in todo.replace("NEW-PATH", str(tmp_path / "a2")).split(" && "):
        git(b, *command.split()[1:])
    done = cli.gitstore("records", "list", cwd=b)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    doctor = cli.gitstore("doctor", cwd=b)
    assert f"(scope {scope})" in doctor.stdout and "FAIL origin" not in doctor.stdout \
        and "warn scope" not in doctor.stdout, doctor.stdout
    cli.ok("sync", cwd=b)


def test_origin_named_after_memory_was_stored_then_init_makes_what_follows_reach_the_remote(tmp_path: Path) -> None:
    """The README's path: memory stored before origin is named stays under the old scope, and
    after `gitstore init` what is stored reaches the team. init gives the clone a new writer
    id when it changes the kept scope: the old id's history holds records of the old scope, of
    which a sync pushes nothing (the remote's clones refuse them), so what follows under it
    would never be pushed. doctor's push check makes sync's scope check, before init and after."""
    import json

    from . import cli

    bare, work = tmp_path / "remote.git", tmp_path / "work"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(bare, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    git(tmp_path, "init", "-q", str(work))
    git(work, "commit", "-q", "--allow-empty", "-m", "root")
    cli.ok("init", cwd=work)
    old = json.loads(cli.ok("status", "--json", cwd=work))["writer"]
    grant = ("grant", "--purpose", "review", "--source", "review-thread", "--from", "2026-01-01")
    cli.ok(*grant, cwd=work)
    git(work, "remote", "add", "origin", str(bare))
    git(work, "push", "-q", "origin", "HEAD")

    doctor = cli.gitstore("doctor", cwd=work)
    assert doctor.returncode == 1 and "warn scope: origin was named" in doctor.stdout, doctor.stdout
    assert f"FAIL push: refs/memory/v1/records/shared/{old} holds records of scope local/" in doctor.stdout, \
        doctor.stdout
    assert cli.gitstore("sync", cwd=work).returncode == 1, "sync refuses what doctor fails"
    said = cli.fails(1, "init", "--writer", old, cwd=work)
    assert "name another id" in said, said

    done = json.loads(cli.ok("init", "--json", cwd=work))
    new = done["writer"]
    assert new != old and done["scope"] == "github.com/acme/widgets", done
    assert any(line.startswith(f"writer {new} for this clone from now on") for line in done["created"]), done
    cli.ok(*grant, cwd=work)
    synced = cli.gitstore("sync", cwd=work)
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert f"shared/{old} holds records of scope local/" in synced.stdout, "the old id's appends stay, named"
    on_remote = git(bare, "for-each-ref", "--format=%(refname) %(objectname)", "refs/memory/").split("\n")
    tip = git(work, "rev-parse", f"refs/memory/v1/records/shared/{new}").strip()
    assert f"refs/memory/v1/records/shared/{new} {tip}" in on_remote, on_remote
    assert not any(f"/{old}" in line for line in on_remote), on_remote
    doctor = cli.gitstore("doctor", cwd=work)
    assert f"ok   push: a push of memory sends refs/memory/v1/records/shared/{new}" in doctor.stdout, doctor.stdout
    assert "FAIL" not in doctor.stdout and "warn scope" not in doctor.stdout, doctor.stdout
