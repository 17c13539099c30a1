"""git's configuration as git itself reads it, and git's rule on repositories another user owns.

Each test writes real git configuration files in a temporary home and checks what gitstore
does with them against what git does: the variables that point git at other files for a run
(``GIT_CONFIG_GLOBAL``, ``GIT_CONFIG_COUNT``, ...) and ``safe.directory``. libgit2 finds the
user's files once per process, where ``HOME`` was when it loaded; the ``home`` fixture has it
look in the test's home, as a fresh ``gitstore`` process would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pygit2
import pytest
from pygit2.enums import ConfigLevel

from gitstore import _gitconfig
from gitstore.ops.setup import init
from gitstore.scope import owner_refusal

from . import cli
from .advice import checks, follow
from .conftest import git
from .team import keypair

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")


@pytest.fixture
def home() -> Iterator[Path]:
    """The test's home, where libgit2 looks for the user's configuration during the test."""
    folder = Path(os.environ["HOME"])
    kept = {level: pygit2.settings.search_path[level] for level in (ConfigLevel.GLOBAL, ConfigLevel.XDG)}
    pygit2.settings.search_path[ConfigLevel.GLOBAL] = str(folder)
    pygit2.settings.search_path[ConfigLevel.XDG] = str(folder / ".config" / "git")
    yield folder
    for level, path in kept.items():
        pygit2.settings.search_path[level] = path


def _config(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _given_away(root: Path) -> None:
    """Every file of the work tree and its git folder now another user's."""
    subprocess.run(["chown", "-R", "nobody", str(root)], check=True)


# -- another user's repository -------------------------------------------------------------------

@as_root
def test_another_users_repository_listed_in_safe_directory_is_used_with_its_local_memory(
        repo: Path, home: Path) -> None:
    init(repo)
    _given_away(repo)
    _config(home / ".gitconfig", f"[safe]\n\tdirectory = {repo}\n")
    git(repo, "status")  # git works in it
    cli.ok("status", cwd=repo)
    cli.ok("verify", cwd=repo)  # which opens the local namespace's own repository too
    [check] = checks(repo, "repository")
    assert check["state"] == "ok", check


@as_root
def test_another_users_repository_git_refuses_is_a_usage_error_with_gits_own_fix(repo: Path, home: Path) -> None:
    init(repo)
    _given_away(repo)
    add = f"git config --global --add safe.directory {repo}"
    said = cli.fails(2, "status", cwd=repo)
    assert "another user" in said and f"`{add}`" in said, said
    [check] = checks(repo, "repository")
    assert check["state"] == "fail" and check["todo"] == add, check
    follow(repo, check["todo"])
    assert checks(repo, "repository")[0]["state"] == "ok"
    cli.ok("status", cwd=repo)


@as_root
def test_safe_directory_given_through_git_config_global_is_honoured(
        repo: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    init(repo)
    _given_away(repo)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(_config(tmp_path / "global.cfg", f"[safe]\n\tdirectory = {repo}\n")))
    git(repo, "status")
    cli.ok("status", cwd=repo)
    cli.ok("verify", cwd=repo)


def test_a_refusal_met_where_no_check_expected_it_names_gits_fix_not_damage() -> None:
    refused = owner_refusal(pygit2.GitError("/srv/a b/.git/: repository path '/srv/a b' is not owned by current user"))
    assert refused is not None and refused.exit_code == 2
    assert refused.todo == "git config --global --add safe.directory '/srv/a b'"
    assert owner_refusal(pygit2.GitError("object not found - no match for id (0123)")) is None


# -- the variables that point git at other configuration -----------------------------------------

def _signing_config(tmp_path: Path, email: str) -> Path:
    key, _ = keypair(tmp_path / "keys", "alice")
    return _config(tmp_path / "global.cfg", f"[user]\n\temail = {email}\n[gpg]\n\tformat = ssh\n"
                                            f"[user]\n\tsigningkey = {key}.pub\n")


def test_identity_and_signing_key_come_from_the_file_git_config_global_names(
        repo: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GIT_AUTHOR_EMAIL")
    _config(home / ".gitconfig", "[user]\n\temail = home@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(_signing_config(tmp_path, "globalenv@example.com")))
    assert git(repo, "config", "--get", "user.email").strip() == "globalenv@example.com"
    init(repo)
    cli.ok("policy", "init", cwd=repo)
    people = json.loads((repo / ".gitstore" / "policy.json").read_text())["people"]
    assert list(people) == ["git:globalenv@example.com"], people
    [trust] = checks(repo, "trust")
    assert "user.signingkey" not in trust["todo"], trust


def test_a_grant_is_made_by_the_email_git_config_count_gives(
        repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GIT_AUTHOR_EMAIL")
    for name, value in {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "User.Email",
                        "GIT_CONFIG_VALUE_0": "counted@example.com"}.items():
        monkeypatch.setenv(name, value)
    init(repo)
    grant = json.loads(cli.ok("grant", "--purpose", "review", "--json", cwd=repo))
    assert grant["by"] == "git:counted@example.com", grant


def test_a_global_file_git_refuses_stops_gitstore_as_it_stops_git(
        repo: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read as if the variable were unset, the file git refused let gitstore act as the person
    the default files name, whom the user had pointed git away from."""
    monkeypatch.delenv("GIT_AUTHOR_EMAIL")
    _config(home / ".gitconfig", "[user]\n\temail = home@example.com\n")
    init(repo)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(_config(tmp_path / "broken", "[user]\n\temail = bot@ci\n[broken\n")))
    assert subprocess.run(["git", "-C", str(repo), "config", "--get", "user.email"],
                          capture_output=True).returncode != 0  # git refuses to run at all
    done = cli.gitstore("grant", "--purpose", "review", cwd=repo)
    assert done.returncode == 2 and "home@example.com" not in done.stdout, (done.stdout, done.stderr)
    line = done.stderr.strip()
    assert line.startswith("gitstore: error: git cannot read its configuration (") and "\n" not in line, line
    assert str(tmp_path / "broken") in line, line  # git's own words name the file


def test_the_repositorys_own_configuration_still_wins_over_the_global_file(
        repo: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(_config(tmp_path / "g.cfg", "[init]\n\tdefaultBranch = trunk\n"
                                                                            "[user]\n\temail = g@example.com\n")))
    git(repo, "config", "user.email", "local@example.com")
    opened = pygit2.Repository(str(repo))
    assert _gitconfig.value(opened, "user.email") == "local@example.com"
    assert _gitconfig.value(opened, "init.defaultBranch") == "trunk"
    assert _gitconfig.value(opened, "gpg.format") is None


def test_git_config_nosystem_leaves_the_system_file_out(
        repo: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(_config(tmp_path / "system.cfg", "[commit]\n\tgpgsign\n")))
    opened = pygit2.Repository(str(repo))
    assert _gitconfig.flag(opened, "commit.gpgsign") is False  # the conftest sets GIT_CONFIG_NOSYSTEM
    monkeypatch.delenv("GIT_CONFIG_NOSYSTEM")
    assert _gitconfig.flag(pygit2.Repository(str(repo)), "commit.gpgsign") is True


def test_without_those_variables_no_program_is_asked(
        repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _config(home / ".gitconfig", "[user]\n\temail = home@example.com\n")
    opened = pygit2.Repository(str(repo))
    monkeypatch.setenv("PATH", str(Path(shutil.which("git") or "/").parent / "no-programs-here"))
    assert _gitconfig.value(opened, "user.email") == "home@example.com"  # libgit2's own reading


@pytest.mark.parametrize("asked", ["library", "git"])
@pytest.mark.parametrize(("setting", "command"), [("user.email", ("grant", "--purpose", "review")),
                                                  ("init.defaultBranch", ("policy", "show")),
                                                  ("user.signingkey", ("policy", "init"))])
def test_a_setting_that_is_not_utf8_is_a_usage_error_naming_it(
        repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch, asked: str, setting: str,
        command: tuple[str, ...]) -> None:
    """git keeps any bytes a setting is given; gitstore cannot use them as text, and says which
    setting it is, read by libgit2 or by git when a variable has git asked."""
    monkeypatch.delenv("GIT_AUTHOR_EMAIL")
    if asked == "library":
        monkeypatch.delenv("GIT_CONFIG_NOSYSTEM")
        assert not _gitconfig.overridden()
    init(repo)
    git(repo, "config", "user.email", "alice@example.com")
    subprocess.run([b"git", b"-C", bytes(repo), b"config", setting.encode(), b"x\xffy"], check=True)
    refs = git(repo, "for-each-ref", "refs/memory")
    for args in (command, (*command, "--json")):
        done = cli.gitstore(*args, cwd=repo)
        assert done.returncode == 2 and "Traceback" not in done.stderr, (args, done.stdout, done.stderr)
        said = done.stderr if "--json" not in args else json.loads(done.stdout or done.stderr)["error"]
        assert f"setting {setting} is not UTF-8" in said and said.count("\n") <= 1, said
    assert git(repo, "for-each-ref", "refs/memory") == refs
