"""A remote that fetches from the team's repository and pushes elsewhere (``remote.NAME.pushurl``
or ``url.X.pushInsteadOf``, the way a contributor fetches upstream and pushes to a fork): sync
fetches memory from it as ever and pushes none there, saying so with the fix, and doctor warns
of such a remote; a push URL naming the team's repository under another spelling pushes. A
remote with several URLs (git fetches from the first and pushes to each) naming different
repositories stands for none."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import cli
from .conftest import git


def _clone(tmp: Path) -> tuple[Path, Path, Path]:
    """The team's remote, a fork of it, and a clone of the team's with a grant stored."""
    team, fork, work = tmp / "team.git", tmp / "fork.git", tmp / "work"
    for bare, url in ((team, "https://github.com/acme/widgets.git"), (fork, "https://github.com/bob/widgets.git")):
        git(tmp, "init", "-q", "--bare", "-b", "main", str(bare))
        git(bare, "remote", "add", "origin", url)
    git(tmp, "init", "-q", "-b", "main", str(work))
    git(work, "remote", "add", "origin", str(team))
    git(work, "commit", "-q", "--allow-empty", "-m", "root")
    git(work, "push", "-q", "origin", "main")
    cli.ok("init", cwd=work)
    cli.ok("grant", "--purpose", "review", "--source", "review-thread", "--from", "2026-01-01", cwd=work)
    return team, fork, work


@pytest.mark.parametrize("how", ["pushurl", "pushInsteadOf"])
def test_memory_is_never_pushed_to_a_push_url_naming_another_repository(tmp_path: Path, how: str) -> None:
    team, fork, work = _clone(tmp_path)
    if how == "pushurl":
        git(work, "remote", "set-url", "--push", "origin", str(fork))
    else:
        git(work, "config", f"url.{fork}.pushInsteadOf", str(team))
    synced = cli.gitstore("sync", cwd=work)
    assert synced.returncode == 1, synced.stdout + synced.stderr
    assert "a push to origin goes to github.com/bob/widgets, another repository than the one origin fetches " \
        "from, github.com/acme/widgets" in synced.stdout, synced.stdout
    assert not git(fork, "for-each-ref", "refs/memory/").strip(), "nothing of memory reached the fork"
    doctor = cli.gitstore("doctor", cwd=work)
    assert "warn remote origin push: a push to origin goes to github.com/bob/widgets" in doctor.stdout, doctor.stdout


def test_a_push_url_naming_the_team_otherwise_pushes(tmp_path: Path) -> None:
    team, _, work = _clone(tmp_path)
    git(work, "remote", "set-url", "--push", "origin", "git@github.com:Acme/Widgets.git")
    git(work, "config", f"url.{team}.insteadOf", "git@github.com:Acme/Widgets.git")  # the team, here
    synced = cli.gitstore("sync", cwd=work)
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert git(team, "for-each-ref", "refs/memory/").strip()


def test_a_push_url_into_another_users_home_folder_is_another_repository(tmp_path: Path) -> None:
    import pygit2

    from gitstore.sync.remote import pushes_elsewhere

    work = tmp_path / "work"
    git(tmp_path, "init", "-q", str(work))
    git(work, "remote", "add", "origin", "git@server.example:acme/widgets.git")
    repo = pygit2.Repository(str(work))
    assert pushes_elsewhere(repo, "origin", "server.example/acme/widgets") is None
    git(work, "remote", "set-url", "--push", "origin", "bob@server.example:acme/widgets.git")
    found = pushes_elsewhere(repo, "origin", "server.example/acme/widgets")
    assert found is not None and found[0].startswith(
        "a push to origin goes to server.example/acme/widgets in the home folder of bob, another repository"), found


def test_a_remote_whose_urls_name_two_repositories_stands_for_neither(tmp_path: Path) -> None:
    """git fetches from a remote's first URL and pushes to each, while the scope was read from
    the last: origin naming a fork first and the team's repository after fetched the fork's
    memory as the team's and pushed the clone's to both. Every command now names the URLs."""
    team, fork, work = _clone(tmp_path)
    git(work, "remote", "add", "mirror", str(fork))
    git(work, "remote", "set-url", "--add", "mirror", str(team))
    cli.ok("init", cwd=work)
    assert "refs/memory/" not in git(work, "config", "--get-all", "remote.mirror.fetch")
    said = cli.fails(1, "sync", "mirror", cwd=work)
    assert f"mirror has 2 URLs naming different repositories ({fork}, {team})" in said, said
    git(work, "remote", "set-url", "origin", str(fork))
    git(work, "remote", "set-url", "--add", "origin", str(team))
    said = cli.fails(1, "sync", cwd=work)
    assert f"origin has 2 URLs naming different repositories ({fork}, {team})" in said, said
    assert not git(fork, "for-each-ref", "refs/memory/").strip(), "nothing of memory reached the fork"


def test_a_relative_remote_path_names_the_repository_from_the_work_tree(tmp_path: Path) -> None:
    """origin ``../team.git``, and sync run in a folder of the work tree where ``../team.git``
    is another repository (one anyone could place in the work tree, holding memory refs of this
    scope): sync fetches from and pushes to the team's, as git does and as the scope is read."""
    import shutil

    team, fork, work = _clone(tmp_path)
    git(work, "remote", "set-url", "origin", "../team.git")
    other = tmp_path / "mallory"
    git(tmp_path, "clone", "-q", str(team), str(other))
    cli.ok("init", cwd=other)
    cli.ok("grant", "--purpose", "instruction", "--source", "review-thread", "--from", "2026-01-01", cwd=other)
    decoy = work / "team.git"
    shutil.copytree(fork, decoy)
    git(other, "push", "-q", str(decoy), "refs/memory/v1/records/shared/*:refs/memory/v1/records/shared/*")
    (work / "sub").mkdir()
    synced = cli.gitstore("sync", cwd=work / "sub")
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert git(team, "for-each-ref", "refs/memory/").strip(), "pushed to the team's"
    grants = cli.ok("grants", "--json", cwd=work)
    assert "instruction" not in grants, "nothing of the decoy's was read"
