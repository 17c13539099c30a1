"""Remotes reached over ssh: gitstore's git runs ssh as the person's own git does
(``GIT_SSH_COMMAND`` and the like reach it), and a clone whose origin names a forge through an
ssh host alias (``Host github-work`` / ``HostName github.com`` in ssh's configuration, for a
second account) shares the team's scope, while an alias of any other host stays as written.

The team's remote is a folder standing in for a server: a program named ``ssh`` first on
``PATH`` runs the command git gives it there, whatever the host, and hands ``ssh -G`` (which
connects nowhere) to the real ssh, given its configuration with ``-F`` (ssh reads the password
database's home, never ``$HOME``)."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest

from gitstore.context import Context
from gitstore.ops.setup import init

from . import cli
from .conftest import git
from .team import EVERYTHING, commit_all, keypair, sign_as, write_policy
from .world import Thread, grant_all

SSH = shutil.which("ssh", path="/usr/bin:/bin:/usr/local/bin")
pytestmark = pytest.mark.skipif(SSH is None, reason="no ssh to resolve host aliases with")

FORGE = "git@github.com:acme/widgets.git"
ALIAS = "git@github-work:acme/widgets.git"


def ssh_config(folder: Path, text: str = "Host github-work\n  HostName github.com\n"
               "Host teamgit\n  HostName git.internal.example\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ssh_config"
    path.write_text(text)
    return path


def served(tmp: Path, monkeypatch: pytest.MonkeyPatch, name: str = "ssh") -> tuple[Path, Path]:
    """The server's folder, holding ``acme/widgets.git``, and the program standing in for ssh
    (``name``, first on ``PATH`` when it is ``ssh``), which logs each ``-G`` it is asked."""
    server, bin_dir = tmp / "server", tmp / "bin"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(server / "acme" / "widgets.git"))
    bin_dir.mkdir()
    program = bin_dir / name
    program.write_text("#!/bin/sh\n"
                       f'if [ "$1" = "-G" ]; then echo "$@" >> {shlex.quote(str(tmp / "asked"))}; '
                       f'exec {SSH} "$@"; fi\n'
                       'while [ $# -gt 1 ]; do shift; done\n'
                       f'cd {shlex.quote(str(server))} && exec sh -c "$1"\n')
    program.chmod(0o755)
    if name == "ssh":
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return server, program


def asked(tmp: Path) -> int:
    """How often ``ssh -G`` ran."""
    return len((tmp / "asked").read_text().splitlines()) if (tmp / "asked").exists() else 0


def _first(tmp: Path, origin: str, keys: dict[str, tuple[Path, str]]) -> Context:
    root = tmp / "alice"
    git(tmp, "init", "-q", "-b", "main", str(root))
    git(root, "remote", "add", "origin", origin)
    write_policy(root, {who: EVERYTHING for who in keys}, {who: public for who, (_, public) in keys.items()})
    commit_all(root, "Who may decide")
    git(root, "push", "-q", "-u", "origin", "main")
    init(root)
    sign_as(root, keys["github:9"][0])
    return Context.open(root)


def _clone(tmp: Path, origin: str, name: str, key: Path, ssh_command: str | None = None) -> Context:
    root = tmp / name
    git(tmp, "clone", "-q", origin, str(root))
    if ssh_command is not None:
        git(root, "config", "core.sshCommand", ssh_command)
    init(root)
    sign_as(root, key)
    return Context.open(root)


def _events(root: Path) -> list[str]:
    return [item.record["payload"]["text"] for item in Context.open(root).store.items(["event"], payloads=True)]


def test_sync_runs_ssh_as_the_persons_git_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``GIT_SSH_COMMAND`` (a person's key for the team's remote) reaches the git that sync runs:
    the ``ssh`` on ``PATH`` here reaches nothing."""
    _, program = served(tmp_path, monkeypatch, name="team-ssh")
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    (nowhere / "ssh").write_text("#!/bin/sh\necho 'ssh: no route to host' >&2\nexit 255\n")
    (nowhere / "ssh").chmod(0o755)
    monkeypatch.setenv("PATH", f"{nowhere}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GIT_SSH_COMMAND", str(program))
    keys = {"github:9": keypair(tmp_path / "keys", "github:9")}
    alice = _first(tmp_path, FORGE, keys)
    grant_all(alice)
    synced = cli.gitstore("sync", cwd=alice.workspace.root)
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert git(tmp_path / "server" / "acme" / "widgets.git", "for-each-ref", "refs/memory/").strip(), "pushed"
