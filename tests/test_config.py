"""okf/.memory/config.json has one owner (gitstore.config): every documented field is read,
anything else is refused naming the file, and what it says reaches every command."""

from __future__ import annotations

import json
from pathlib import Path

import pygit2
import pytest

from gitstore.config import Config, read_config, write_config
from gitstore.errors import InvalidInput
from gitstore.rules.autosafe import settings

from .cli import fails, ok
from .conftest import git


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_every_documented_field_is_read(tmp_path: Path) -> None:
    automation = {"autoSafe": True, "kinds": ["convention"]}
    config = read_config(write(tmp_path / "config.json", {
        "writer": "w1", "provider": "sqlite", "capture": {"mode": "hybrid"}, "automation": automation}))
    assert config == Config("w1", "sqlite", "hybrid", automation)
    assert settings(config).enabled is True


def test_defaults(tmp_path: Path) -> None:
    config = read_config(write(tmp_path / "config.json", {"writer": "w1"}))
    assert (config.provider, config.capture_mode, settings(config).enabled) == ("git", "summary", False)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"writer": "w1", "captur": {}}, "unknown field 'captur'"),
        ({"writer": "w1", "capture": {"mode": "everything"}}, "unknown capture mode 'everything'"),
        ({"writer": "w1", "capture": {"mode": "summary", "extra": 1}}, 'capture must look like {"mode": "summary"}'),
        ({"writer": "w1", "capture": "summary"}, 'capture must look like'),
        ({"writer": "w1", "provider": "s3"}, "unknown provider 's3'"),
        ({"provider": "git"}, "no writer id"),
        ({"writer": "W X"}, "writer id 'W X' must be 1 to 64 lowercase letters, digits and dashes"),
        ({"writer": "w" * 100}, "writer id 'w{40}\\.\\.\\. must be 1 to 64"),
        ({"writer": "w1\n"}, "writer id 'w1\\\\n' must be"),
        ([], "must be a JSON object"),
    ],
)
def test_anything_else_is_refused_naming_the_file(tmp_path: Path, data: object, problem: str) -> None:
    path = write(tmp_path / "config.json", data)
    with pytest.raises(InvalidInput, match=problem) as caught:
        read_config(path)
    assert str(path) in str(caught.value)


def test_writing_keeps_every_section(repo: Path) -> None:
    config = Config("w1", "jsonl", "transcript", {"autoSafe": False})
    write_config(pygit2.Repository(str(repo)), repo / "config.json", config)
    assert read_config(repo / "config.json") == config


def test_the_documented_capture_section_works_with_every_command(repo: Path) -> None:
    ok("init", cwd=repo)
    path = repo / "okf" / ".memory" / "config.json"
    data = json.loads(path.read_text())
    write(path, {**data, "capture": {"mode": "transcript"}})
    ok("init", "--accept-changes", cwd=repo)  # the person's edit, taken: until then it waits
    status = json.loads(ok("status", "--json", cwd=repo))
    assert status["config"]["capture"] == {"value": "transcript", "from": "okf/.memory/config.json", "problem": None}
    ok("learnings", cwd=repo)
    write(path, {**data, "capture": {"mode": "verbose"}})
    assert "unknown capture mode 'verbose'" in fails(1, "status", cwd=repo)
    git(repo, "status")  # the repository itself is untouched


def test_a_config_that_lost_its_writer_names_the_writer_its_records_are_under(tmp_path: Path) -> None:
    """An emptied config.json blocks every command, init too: the error names the writer id
    this clone's records are under, and the command that gives it back."""
    from . import cli
    from .world import grant_all, ready_repo

    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    writer, root = ctx.workspace.config.writer, ctx.workspace.root
    (root / "okf" / ".memory" / "config.json").write_bytes(b"")
    for args in (("status",), ("init",)):
        err = cli.fails(1, *args, cwd=root)
        assert f"this clone's records are under writer {writer}: remove the file and run `gitstore init --writer " \
               f"{writer}` to go on writing as it" in err, err
    (root / "okf" / ".memory" / "config.json").unlink()
    cli.ok("init", "--writer", writer, cwd=root)
    assert cli.ok("grants", cwd=root).startswith("sha256:")  # its grant is its own again


def test_a_malformed_writer_id_stops_every_command_and_a_refused_init_takes_none_of_the_file(repo: Path) -> None:
    """A writer id no store takes, edited into config.json, is named by every command that
    reads the file; `init --accept-changes` refuses it too, and takes nothing of the file: it
    used to record the file as taken before the store refused the id, after which `status`
    and `tick` went on as a writer no store can write as."""
    ok("init", cwd=repo)
    path = repo / "okf" / ".memory" / "config.json"
    data = json.loads(path.read_text())
    write(path, {**data, "writer": "W X", "capture": {"mode": "transcript"}})
    for args in (("init", "--accept-changes"), ("status",), ("tick",), ("status", "--json")):
        said = fails(1, *args, cwd=repo)
        assert f"{path}: writer id 'W X' must be 1 to 64 lowercase letters, digits and dashes" in said, said
    write(path, {**data, "capture": {"mode": "transcript"}})  # the writer put back: the capture change still waits
    assert "capture.mode changed since this clone's `gitstore init` last took the file" in \
        fails(1, "init", cwd=repo)


@pytest.mark.parametrize(("given", "refusal"), [
    (("--provider", "sqlite"), "this clone already uses the git provider"),
    (("--writer", "w0ther"), "this clone already writes as "),
])
def test_an_init_refused_for_its_options_takes_none_of_the_changed_file(
        repo: Path, given: tuple[str, ...], refusal: str) -> None:
    """`init --accept-changes` with an option it refuses (another provider, another writer id)
    took the changed file before refusing: the capture change below then counted, though the
    command had failed."""
    ok("init", cwd=repo)
    path = repo / "okf" / ".memory" / "config.json"
    write(path, {**json.loads(path.read_text()), "capture": {"mode": "transcript"}})
    assert refusal in fails(1, "init", "--accept-changes", *given, cwd=repo)
    assert "capture.mode changed since this clone's `gitstore init` last took the file" in fails(1, "init", cwd=repo)


@pytest.mark.parametrize("broken", ["fifo", "big"])
def test_init_reads_the_settings_as_every_command_does_never_waiting_nor_whole(repo: Path, broken: str) -> None:
    """`gitstore init`, which every refusal sends a person to, read config.json with a plain
    read: a FIFO in its place held it for ever (every other command refused it at once), and a
    file of any size was read whole."""
    import os
    import subprocess
    import sys

    from .conftest import ROOT

    ok("init", cwd=repo)
    path = repo / "okf" / ".memory" / "config.json"
    path.unlink()
    if broken == "fifo":
        os.mkfifo(path)
    else:
        path.write_text(json.dumps({"writer": "w" * (2 << 20)}))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "gitstore", "init"], cwd=repo, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=30)
    said = "is not a file: gitstore's settings are a file" if broken == "fifo" else "over 1 MiB"
    assert done.returncode == 1 and said in done.stderr and done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize("broken", ["folder", "loop"])
def test_settings_that_are_no_file_are_named_not_taken_for_no_set_up(repo: Path, broken: str) -> None:
    """A settings path holding a folder or a link loop was reported as a repository never set
    up, and `gitstore init`, which the message named, then failed on it."""
    import shutil

    ok("init", cwd=repo)
    path = repo / "okf" / ".memory" / "config.json"
    shutil.move(path, repo / "config.json.kept")
    if broken == "folder":
        path.mkdir()
    else:
        path.symlink_to(path.name)
    said = fails(1, "status", cwd=repo)
    what = "a folder" if broken == "folder" else "a link to no file"
    assert said == f"gitstore: error: {path} is {what}: gitstore's settings are a file; move it away and run " \
                   "`gitstore init`\n", said


def test_a_settings_file_grown_past_a_mebibyte_is_refused_not_read_whole(repo: Path) -> None:
    """Every command reads config.json first: a pull that brings a big file there (a commit
    tracking it) is refused in one line, naming the file and what mends it, not read whole."""
    ok("init", cwd=repo)
    path = repo / "okf" / ".memory" / "config.json"
    settings = json.loads(path.read_text())
    path.write_text(json.dumps({**settings, "capture": {"mode": "summary"}}) + " " * (2 << 20))
    said = fails(1, "status", cwd=repo)
    assert said.startswith(f"gitstore: error: {path}: cannot read configuration (over 1 MiB"), said
    assert said.endswith("move it away and run `gitstore init`\n"), said
