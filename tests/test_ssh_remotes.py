"""Remotes reached over ssh: gitstore's git runs ssh as the person's own git does
(``GIT_SSH_COMMAND`` and the like reach it), and a clone whose origin names a forge through an
ssh host alias (``Host github-work`` / ``HostName github.com`` in ssh's configuration, for a
second account) shares the team's scope, while an alias of any other host stays as written.

The team's remote is a folder standing in for a server: a program named ``ssh`` first on
``PATH`` runs the command git gives it there, whatever the host, and hands ``ssh -G`` (which
connects nowhere) to the real ssh, given its configuration with ``-F`` (ssh reads the password
database's home, never ``$HOME``)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path

import pygit2
import pytest

from gitstore.context import Context
from gitstore.ops import consent
from gitstore.ops.setup import init
from gitstore.scope import repository_scope
from gitstore.sync.remote import sync

from . import cli
from .conftest import git
from .team import commit_all, keypair, policy_clone, sign_as
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


def _clone(tmp: Path, origin: str, name: str, key: Path, ssh_command: str | None = None) -> Context:
    root = tmp / name
    git(tmp, "clone", "-q", origin, str(root))
    if ssh_command is not None:
        git(root, "config", "core.sshCommand", ssh_command)
    init(root)
    sign_as(root, key)
    return Context.open(root)


def _grant_as_bob(ctx: Context) -> None:
    consent.grant(ctx, "github:10", ["review"], ["review-thread"], "2026-01-01T00:00:00.000000Z", None, None)


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
    alice = policy_clone(tmp_path, FORGE, keys)
    grant_all(alice)
    synced = cli.gitstore("sync", cwd=alice.workspace.root)
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert git(tmp_path / "server" / "acme" / "widgets.git", "for-each-ref", "refs/memory/").strip(), "pushed"


@pytest.mark.parametrize("runner", ["store", "promote"])
def test_git_asks_for_a_password_through_the_persons_askpass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             runner: str) -> None:
    """``GIT_ASKPASS`` (an editor's terminal sets its own: how the person's https remote gets
    their password) and the other variables of how git reaches a remote reach the git gitstore
    runs, as its hook variables do not: git asks the program for a password it needs."""
    import subprocess

    from gitstore.promote._git import git_env as promote_env
    from gitstore.providers._gitdirs import git_env as store_env

    asker = tmp_path / "askpass"
    asker.write_text("#!/bin/sh\necho from-askpass\n")
    asker.chmod(0o755)
    monkeypatch.setenv("GIT_ASKPASS", str(asker))
    monkeypatch.setenv("GIT_SSL_CAINFO", str(tmp_path / "company-ca.pem"))
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))  # a hook's: never passed on
    env = store_env() if runner == "store" else promote_env()
    assert env["GIT_SSL_CAINFO"] == str(tmp_path / "company-ca.pem") and "GIT_DIR" not in env
    done = subprocess.run(["git", "-c", "credential.helper=", "credential", "fill"], cwd=tmp_path, env=env,
                          input="protocol=https\nhost=git.example.com\n\n", capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "password=from-askpass" in done.stdout.splitlines()


def _scope_of(tmp: Path, origin: str, ssh_command: str | None = None, set_up: bool = False) -> str:
    root = tmp / "clone"
    if not root.exists():
        git(tmp, "init", "-q", "-b", "main", str(root))
        git(root, "remote", "add", "origin", origin)
    git(root, "remote", "set-url", "origin", origin)
    if ssh_command is not None:
        git(root, "config", "core.sshCommand", ssh_command)
    if set_up:
        (root / ".git" / "gitstore").mkdir(exist_ok=True)
    return repository_scope(pygit2.Repository(str(root)))


@pytest.mark.parametrize(("origin", "scope"), [
    (ALIAS, "github.com/acme/widgets"),
    ("ssh://git@github-work:22/Acme/Widgets.git", "github.com/Acme/Widgets"),
    ("git@teamgit:acme/widgets.git", "teamgit/acme/widgets"),  # a self-hosted server's alias: as written
    ("https://github-work/acme/widgets.git", "github-work/acme/widgets"),  # not ssh: no alias of ssh's
    ("git@elsewhere:acme/widgets.git", "elsewhere/acme/widgets"),  # ssh names it no other host
])
def test_an_ssh_alias_of_a_forge_is_the_forge(tmp_path: Path, origin: str, scope: str) -> None:
    config = ssh_config(tmp_path / "ssh")
    assert _scope_of(tmp_path, origin, f"{SSH} -F {config}") == scope


def test_ssh_is_run_as_git_runs_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GIT_SSH_COMMAND before core.sshCommand, as git reads them; a command that is not plain
    ssh (a wrapper, shell syntax, an option ssh -G would not take) resolves nothing."""
    config = ssh_config(tmp_path / "ssh")
    other = ssh_config(tmp_path / "other", "Host github-work\n  HostName gitlab.com\n")
    assert _scope_of(tmp_path, ALIAS, f"ssh -F {config}") == "github.com/acme/widgets"
    monkeypatch.setenv("GIT_SSH_COMMAND", f"ssh -o IdentitiesOnly=yes -F{other}")
    assert _scope_of(tmp_path, ALIAS) == "gitlab.com/acme/widgets"
    for command in (f"/opt/wrapper -F {config}", f"ssh -F {config} -V", "ssh -F $HOME/cfg",
                    f"ssh -F {config}; true"):
        monkeypatch.setenv("GIT_SSH_COMMAND", command)
        assert _scope_of(tmp_path, ALIAS) == "github-work/acme/widgets", command


def test_without_ssh_or_with_a_slow_one_the_host_stays_as_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gitstore import _sshhost

    config = ssh_config(tmp_path / "ssh")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _scope_of(tmp_path, "git@teamgit:acme/widgets.git", f"ssh -F {config}", set_up=True)
    git(tmp_path / "clone", "remote", "set-url", "origin", ALIAS)
    with monkeypatch.context() as bare:
        bare.setenv("PATH", str(empty))  # no ssh
        assert repository_scope(pygit2.Repository(str(tmp_path / "clone"))) == "github-work/acme/widgets"
    assert ALIAS.split(":")[0] not in (tmp_path / "clone" / ".git" / "gitstore" / _sshhost.CACHE).read_text(), \
        "not kept: asked again next time"
    slow = empty / "ssh"
    slow.write_text("#!/bin/sh\nsleep 5\n")
    slow.chmod(0o755)
    monkeypatch.setattr(_sshhost, "TIMEOUT", 0.2)
    monkeypatch.setenv("PATH", f"{empty}{os.pathsep}{os.environ['PATH']}")
    assert _scope_of(tmp_path, ALIAS, f"ssh -F {config}") == "github-work/acme/widgets"
    assert _scope_of(tmp_path, ALIAS, f"{SSH} -F {config}") == "github.com/acme/widgets"


def test_the_answer_is_kept_until_ssh_configuration_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gitstore import _sshhost

    served(tmp_path, monkeypatch)
    config = ssh_config(tmp_path / "ssh")
    command = f"ssh -F {config}"
    assert _scope_of(tmp_path, FORGE, command, set_up=True) == "github.com/acme/widgets"
    assert asked(tmp_path) == 0, "a forge's own name is never resolved"
    for _ in range(3):
        assert _scope_of(tmp_path, ALIAS, command) == "github.com/acme/widgets"
        assert _scope_of(tmp_path, "git@teamgit:acme/widgets.git", command) == "teamgit/acme/widgets"
    assert asked(tmp_path) == 2, "each host asked once"
    ssh_config(tmp_path / "ssh", "Host github-work\n  HostName bitbucket.org\n")
    assert _scope_of(tmp_path, ALIAS, command) == "bitbucket.org/acme/widgets"
    assert asked(tmp_path) == 3
    cache = tmp_path / "clone" / ".git" / "gitstore" / _sshhost.CACHE
    cache.write_text('{"schema": ')
    assert _scope_of(tmp_path, ALIAS, command) == "bitbucket.org/acme/widgets"
    assert asked(tmp_path) == 4 and json.loads(cache.read_text())["hosts"], "a damaged cache is written again"
    ssh_config(tmp_path / "ssh", "Host github-work\n  HostName bitbucket.org\n  NoSuchOption yes\n")
    assert _scope_of(tmp_path, ALIAS, command) == "bitbucket.org/acme/widgets", "a failing ssh: its last answer"
    assert asked(tmp_path) == 5


def test_clones_through_an_alias_and_the_forges_name_share_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One person's second account (an ssh alias of github.com), another's plain clone: one
    scope, and each sync admits the other's records."""
    served(tmp_path, monkeypatch)
    config = ssh_config(tmp_path / "ssh")
    keys = {who: keypair(tmp_path / "keys", who) for who in ("github:9", "github:10")}
    alice = policy_clone(tmp_path, FORGE, keys)
    bob = _clone(tmp_path, ALIAS, "bob", keys["github:10"][0], f"ssh -F {config}")
    assert (alice.scope, bob.scope) == ("github.com/acme/widgets", "github.com/acme/widgets")
    grant_all(alice)
    thread = Thread(alice, 7, "100")
    thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    assert not sync(str(alice.workspace.root)).quarantined
    report = sync(str(bob.workspace.root))
    assert not report.quarantined and not report.not_pushed, (report.quarantined, report.not_pushed)
    assert _events(bob.workspace.root) == ["Use jitter on retries."], "bob reads alice's memory"
    _grant_as_bob(Context.open(bob.workspace.root))
    assert not sync(str(bob.workspace.root)).quarantined
    synced = cli.gitstore("sync", cwd=alice.workspace.root)
    assert synced.returncode == 0 and "formerly" not in synced.stdout + synced.stderr, synced.stdout + synced.stderr


def test_a_clone_set_up_under_its_alias_is_told_how_the_team_reads_what_it_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Set up while ssh's configuration was not read (an older gitstore, here an ssh that could
    not be asked), bob's memory is under ``github-work/acme/widgets``, which every clone's sync
    holds quarantined: alice's sync names the cause, doctor in bob's clone says the same, and
    once the alias scope is declared a former one and bob runs init, both sync cleanly."""
    served(tmp_path, monkeypatch)
    config = ssh_config(tmp_path / "ssh")
    keys = {who: keypair(tmp_path / "keys", who) for who in ("github:9", "github:10")}
    alice = policy_clone(tmp_path, FORGE, keys)
    bob = _clone(tmp_path, ALIAS, "bob", keys["github:10"][0], f"ssh -F {tmp_path / 'not-yet'}")
    assert bob.scope == "github-work/acme/widgets"
    _grant_as_bob(bob)
    assert not sync(str(bob.workspace.root)).not_pushed
    synced = cli.gitstore("sync", cwd=alice.workspace.root)
    said = synced.stdout + synced.stderr
    assert synced.returncode == 3 and "ssh host alias (github-work," in said and "renamed or moved" not in said, said
    root = bob.workspace.root
    git(root, "config", "core.sshCommand", f"ssh -F {config}")
    doctor = cli.gitstore("doctor", cwd=root).stdout
    assert "ssh alias of github.com" in doctor and "renamed or moved" not in doctor, doctor
    assert "gitstore scope formerly github-work/acme/widgets" in doctor, doctor
    cli.ok("scope", "formerly", "github-work/acme/widgets", cwd=alice.workspace.root)
    commit_all(alice.workspace.root, "Declare the former scope github-work/acme/widgets")
    git(alice.workspace.root, "push", "-q", "origin", "main")
    git(root, "pull", "-q", "origin", "main")
    done = json.loads(cli.ok("init", "--json", cwd=root))
    assert done["scope"] == "github.com/acme/widgets", done
    for clone in (root, alice.workspace.root, root):
        synced = cli.gitstore("sync", cwd=clone)
        assert synced.returncode == 0, synced.stdout + synced.stderr
    grants = [item.record["by"] for item in Context.open(alice.workspace.root).store.items(["grant"])]
    assert "github:10" in grants, grants


@pytest.mark.parametrize("option", ["", "-y "])  # -y: ssh would log to syslog, saying nothing of what it read
def test_a_file_ssh_includes_is_watched_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str) -> None:
    """An edit to a file ssh's configuration ``Include``s (nested, through a glob, relative to
    ``~/.ssh``, or one that is not there yet) is seen at the next command, as an edit to the main
    file is; nothing edited, ssh is not asked again."""
    served(tmp_path, monkeypatch)
    home, folder = tmp_path / "home", tmp_path / "ssh"
    monkeypatch.setenv("HOME", str(home))  # where ssh's glob finds ``~/.ssh``
    (folder / "config.d").mkdir(parents=True)
    config = ssh_config(folder, f"Include mine\nInclude {folder}/later/*.conf\nInclude {folder}/config.d/*\n")
    (folder / "config.d" / "work").write_text(f"Include {folder}/deeper\n")
    deeper = folder / "deeper"
    deeper.write_text("Host github-work\n  HostName github.com\n")
    command = f"ssh {option}-F {config}"

    def scope_after(asks: int) -> str:
        found = {_scope_of(tmp_path, ALIAS, command, set_up=True) for _ in range(2)}
        assert asked(tmp_path) == asks, "asked once after each edit, and only then"
        assert len(found) == 1, found
        return found.pop()

    assert scope_after(1) == "github.com/acme/widgets"
    deeper.write_text("Host github-work\n  HostName gitlab.com\n")
    assert scope_after(2) == "gitlab.com/acme/widgets", "a file included by an included one"
    (folder / "config.d" / "00-first").write_text("Host github-work\n  HostName bitbucket.org\n")
    assert scope_after(3) == "bitbucket.org/acme/widgets", "a new file the glob matches"
    (folder / "later").mkdir()
    (folder / "later" / "a.conf").write_text("Host github-work\n  HostName github.com\n")
    assert scope_after(4) == "github.com/acme/widgets", "a glob that matched nothing before"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "mine").write_text("Host github-work\n  HostName gitlab.com\n")
    assert scope_after(5) == "gitlab.com/acme/widgets", "a relative path, in ~/.ssh, once it is there"


def test_a_local_origin_not_set_up_has_its_answer_kept_in_the_clone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A clone of a local repository that gitstore is not set up in, whose own origin is an
    ssh alias: the answer is kept in this clone's folder (every command and hook derives the
    scope), and nothing is written in the other repository."""
    served(tmp_path, monkeypatch)
    config = ssh_config(tmp_path / "ssh")
    upstream, root = tmp_path / "upstream", tmp_path / "clone"
    git(tmp_path, "init", "-q", "-b", "main", str(upstream))
    git(upstream, "remote", "add", "origin", ALIAS)
    git(upstream, "config", "core.sshCommand", f"ssh -F {config}")
    git(tmp_path, "init", "-q", "-b", "main", str(root))
    git(root, "remote", "add", "origin", str(upstream))
    (root / ".git" / "gitstore").mkdir()
    for _ in range(3):
        assert repository_scope(pygit2.Repository(str(root))) == "github.com/acme/widgets"
    assert asked(tmp_path) == 1, "asked once, then kept"
    assert not (upstream / ".git" / "gitstore").exists(), "nothing written in the other repository"


def test_init_asks_ssh_once_and_keeps_the_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``gitstore init`` derives the scope before it makes the folder answers are kept in: it
    asks ssh once all the same, and keeps that answer once the folder is there, so the next
    command does not ask again."""
    from gitstore import _sshhost

    served(tmp_path, monkeypatch)
    config = ssh_config(tmp_path / "ssh")
    root = tmp_path / "clone"
    git(tmp_path, "init", "-q", "-b", "main", str(root))
    git(root, "remote", "add", "origin", ALIAS)
    git(root, "config", "core.sshCommand", f"ssh -F {config}")
    monkeypatch.setattr(_sshhost, "_HELD", {})
    assert init(root).scope == "github.com/acme/widgets"
    assert asked(tmp_path) == 1
    assert "github-work" in (root / ".git" / "gitstore" / _sshhost.CACHE).read_text()
    monkeypatch.setattr(_sshhost, "_HELD", {})  # another process: what the folder keeps
    assert repository_scope(pygit2.Repository(str(root))) == "github.com/acme/widgets"
    assert asked(tmp_path) == 1


def test_a_file_ssh_refused_for_its_permissions_is_asked_again_once_they_are_mended(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ssh refuses a configuration file others may write (its ``Include``d ones, and
    ``~/.ssh/config``), and the host stays as written; ``chmod`` mends it without touching its
    contents or its time, and the next command asks ssh again."""
    served(tmp_path, monkeypatch)
    folder = tmp_path / "ssh"
    folder.mkdir()
    included = folder / "work"
    included.write_text("Host github-work\n  HostName github.com\n")
    included.chmod(0o666)
    command = f"ssh -F {ssh_config(folder, f'Include {included}' + chr(10))}"
    for _ in range(2):
        assert _scope_of(tmp_path, ALIAS, command, set_up=True) == "github-work/acme/widgets"
    assert asked(tmp_path) == 1, "ssh's refusal is kept"
    included.chmod(0o644)
    assert _scope_of(tmp_path, ALIAS, command) == "github.com/acme/widgets"
    assert asked(tmp_path) == 2


def test_an_included_file_whose_path_ssh_logs_cut_short_keeps_no_answer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ssh's log names a file it read by its first 200 characters: past them, what the answer
    was read from is not known, and ssh is asked again each time rather than an edit missed."""
    served(tmp_path, monkeypatch)
    deep = tmp_path / ("d" * 100) / ("e" * 100)
    deep.mkdir(parents=True)
    included = deep / "work"
    included.write_text("Host github-work\n  HostName github.com\n")
    command = f"ssh -F {ssh_config(tmp_path / 'ssh', f'Include {included}' + chr(10))}"
    for times in (1, 2):
        assert _scope_of(tmp_path, ALIAS, command, set_up=True) == "github.com/acme/widgets"
        assert asked(tmp_path) == times
