"""The command line itself: the COMMANDS table, start-up, help, one-line errors (JSON under
--json), interruption, and shell completion (run through a real bash)."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gitstore.cli import COMMANDS, main, top_help
from gitstore.cli._app import click_command

from .cli import gitstore

BIN = Path(sys.executable).parent


def every_command() -> list[tuple[str, ...]]:
    """Every command line that names a command: each command, and each subcommand of a group."""
    found: list[tuple[str, ...]] = []
    root = click_command()
    for name in COMMANDS:
        command = root.commands[name]
        found.append((name,))
        found.extend((name, sub) for sub in getattr(command, "commands", {}))
    return found


COMMAND_LINES = every_command()
PLACEHOLDER = re.compile(r"<[a-z_]+(\[[a-z_]+\])?>|\{[a-z_]+\}")


def test_every_row_names_a_module_whose_command_has_its_summary() -> None:
    root = click_command()
    assert sorted(root.commands) == sorted(COMMANDS), "every row registers exactly its command"
    for name, (_, summary) in COMMANDS.items():
        assert root.commands[name].help.split("\n\n")[0].replace("\n", " ") == summary, name


def test_top_help_lists_every_command() -> None:
    done = gitstore("--help")
    assert done.returncode == 0 and done.stdout.strip() == top_help()
    for name in COMMANDS:
        assert f"\n  {name} " in done.stdout


def test_version_and_help_never_load_the_command_framework() -> None:
    for args in (["--version"], ["--help"], ["-h"], []):
        code = ("import sys\nfrom gitstore.cli import main\nmain(%r)\n"
                "assert not [m for m in sys.modules if m.split('.')[0] in ('typer', 'pygit2')], sorted(sys.modules)")
        done = subprocess.run([sys.executable, "-c", code % args], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("line", COMMAND_LINES, ids=" ".join)
def test_every_usage_error_is_one_line_with_exit_2(line: tuple[str, ...], tmp_path: Path) -> None:
    done = gitstore(*line, "--no-such-option", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("gitstore: error: "), done.stderr
    assert "--no-such-option" in done.stderr and done.stdout == ""
    as_json = gitstore(*line, "--no-such-option", "--json", cwd=tmp_path)
    assert as_json.returncode == 2 and as_json.stderr.count("\n") == 1
    assert json.loads(as_json.stderr) == {"error": done.stderr.removeprefix("gitstore: error: ").strip(), "code": 2}


@pytest.mark.parametrize("line", COMMAND_LINES, ids=" ".join)
def test_help_reads_like_a_unix_tool(line: tuple[str, ...], tmp_path: Path) -> None:
    done = gitstore(*line, "--help", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith(f"Usage: gitstore {' '.join(line)} ")
    assert not PLACEHOLDER.search(done.stdout), PLACEHOLDER.search(done.stdout)
    usage = done.stdout.splitlines()[0]
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", usage), usage  # arguments are named in capitals
    assert not re.search(r"\[\[|\]\]|\.\.\.\.", usage), usage  # each bracket and ellipsis once


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_asked_before_the_command_is_the_command_s_help(flag: str, tmp_path: Path) -> None:
    """`gitstore --help status`, as `git --help status` answers: the command's help. It printed
    a help of gitstore listing that one command as if it were the only one, without --version."""
    for line in COMMAND_LINES:
        before, after = gitstore(flag, *line, cwd=tmp_path), gitstore(*line, "--help", cwd=tmp_path)
        assert (before.returncode, before.stdout, before.stderr) == (0, after.stdout, ""), line


@pytest.mark.parametrize("line", [("--version", "status"), ("--version", "records", "add"), ("--version", "nope")])
def test_version_asked_before_a_command_says_it_takes_none(line: tuple[str, ...], tmp_path: Path) -> None:
    """`gitstore --version status` said `No such option: --version`, an option gitstore --help lists."""
    done = gitstore(*line, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", "gitstore: error: --version takes no command: run `gitstore --version` alone\n")


def test_missing_arguments_are_named_as_help_shows_them(tmp_path: Path) -> None:
    done = gitstore("show", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr == "gitstore: error: show: Missing argument 'LEARNING_ID'.\n"


def test_an_unknown_command_is_one_line(tmp_path: Path) -> None:
    done = gitstore("frobnicate", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no such command 'frobnicate'" in done.stderr
    assert json.loads(gitstore("frobnicate", "--json", cwd=tmp_path).stderr)["code"] == 2


def test_errors_outside_a_repository_are_one_line_and_json_under_json(tmp_path: Path) -> None:
    done = gitstore("learnings", "--json", cwd=tmp_path)
    assert done.returncode == 2 and json.loads(done.stderr)["error"].endswith("is not inside a git repository")


LEARNING, DIGEST = "lrn_" + "0" * 32, "sha256:" + "0" * 64
# every command line that works on a repository, with the arguments it needs to get that far
ON_A_REPOSITORY: dict[tuple[str, ...], tuple[str, ...]] = {
    ("init",): (), ("status",): (), ("policy", "show"): (), ("policy", "init"): (), ("policy", "add"): ("github:9",),
    ("scope", "show"): (), ("scope", "formerly"): ("github.com/acme/old",),
    ("hooks", "install"): ("--harness", "claude-code"), ("hooks", "uninstall"): ("--harness", "claude-code"),
    ("capture",): ("--harness", "claude-code"), ("import", "transcript"): ("s.jsonl",),
    ("import", "reviews"): ("r.json",), ("import", "github"): ("--repo", "acme/widgets"), ("episodes",): (),
    ("evidence",): ("ep_0",), ("grant",): ("--purpose", "review"), ("withdraw",): (DIGEST,), ("grants",): (),
    ("dream",): (), ("propose",): ("--title", "T", "--text", "X", "--category", "convention",
                   "--evidence", f"ep_{'0' * 32}:ev_{'0' * 32}"),
    ("proposals",): (), ("show",): (LEARNING,), ("accept",): (LEARNING, "--review-digest", DIGEST),
    ("reject",): (LEARNING, "--review-digest", DIGEST), ("retire",): (LEARNING, "--reason", "r"),
    ("merge",): (LEARNING, LEARNING, "--title", "T", "--text", "X"), ("learnings",): (), ("history",): (LEARNING,),
    ("recall",): ("retry",), ("context",): (), ("deliveries",): (), ("publish",): (),
    ("promote",): (LEARNING,), ("wiki", "init"): (), ("wiki", "index"): (), ("provenance",): ("main..HEAD",), ("sync",): (), ("tick",): (),
    ("ci", "init"): ("--install", "git+https://github.com/acme/gitstore@v0.1.0"),
    ("export",): ("--purpose", "instruction"), ("redact",): ("--comment", "github:comment:1", "--reason", "r"),
    ("audit",): (), ("purge",): ("--confirm", "acme/widgets"), ("records", "add"): ("r.jsonl",),
    ("records", "list"): (), ("records", "show"): (DIGEST,), ("verify",): (), ("gc",): (),
}
# reports and file tools that answer anywhere; the MCP server starts anywhere, its tools saying why
# they cannot answer there (tests/test_deliver_mcp.py)
ANYWHERE = {("hooks", "status"), ("doctor",), ("scan",), ("ci", "report"), ("canonical",), ("digest",),
            ("validate",), ("completion",), ("hooks",), ("policy",), ("import",), ("ci",), ("records",),
            ("wiki",), ("mcp",), ("scope",)}


def test_every_command_line_is_known_to_work_on_a_repository_or_anywhere() -> None:
    assert set(COMMAND_LINES) == set(ON_A_REPOSITORY) | ANYWHERE and not set(ON_A_REPOSITORY) & ANYWHERE


@pytest.mark.parametrize("line", sorted(ON_A_REPOSITORY), ids=" ".join)
def test_outside_a_repository_every_command_is_a_one_line_usage_error(line: tuple[str, ...], tmp_path: Path) -> None:
    """The README's exit code 2: "not inside a git repository"."""
    done = gitstore(*line, *ON_A_REPOSITORY[line], cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("gitstore: error: ") and done.stdout == ""
    assert "not inside a git " in done.stderr, done.stderr


@pytest.mark.parametrize("line", sorted(ON_A_REPOSITORY), ids=" ".join)
def test_in_a_folder_deleted_under_the_shell_every_command_says_so_in_one_line(
        line: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A shell still in a folder someone deleted: the operating system's "No such file or
    directory", naming no file, was all a command said (exit 1); it is a usage error (2) saying
    which folder is gone and what to do."""
    from gitstore.scope import FOLDER_GONE

    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{}")))
    code = main([*line, *ON_A_REPOSITORY[line]])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1, (code, out, err)
    assert err.startswith("gitstore: error: ") and err.endswith(f"{FOLDER_GONE}\n"), err


def test_in_a_bare_repository_hooks_status_says_it_is_bare(tmp_path: Path) -> None:
    """Not "not in a git repository": the folder is one, but without a work tree."""
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "shared.git")], check=True)
    done = gitstore("hooks", "status", cwd=tmp_path / "shared.git")
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first == f"({tmp_path / 'shared.git'}/ is a bare repository; gitstore needs a work tree: project scopes not shown)"
    assert gitstore("hooks", "status", cwd=tmp_path).stdout.startswith("(not in a git repository: project scopes")


@pytest.fixture(scope="module")
def sha256_repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository with SHA-256 object ids and one commit, which libgit2 cannot open."""
    root = tmp_path_factory.mktemp("sha256") / "widgets"
    subprocess.run(["git", "init", "-q", "--object-format=sha256", str(root)], check=True)
    (root / "README.md").write_text("# widgets\n")
    subprocess.run(["git", "add", "README.md"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-qm", "first"],
                   cwd=root, check=True)
    return root


def _git_folder(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("line", sorted(set(ON_A_REPOSITORY) - {("provenance",)}), ids=" ".join)
def test_in_a_sha256_repository_every_command_says_so_in_one_line(
    line: tuple[str, ...], sha256_repository: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Not "run gitstore verify" (exit 3, as if memory were damaged): the repository's format is
    named, with exit 2, and nothing in it is written. (``provenance`` reads commits through git
    itself and finds no promotion commit in such a repository.)"""
    before = _git_folder(sha256_repository)
    monkeypatch.chdir(sha256_repository)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert main([*line, *ON_A_REPOSITORY[line]]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1, captured
    assert captured.err.endswith("uses SHA-256 object ids; gitstore works in repositories with SHA-1 ids "
                                 "(git's default)\n"), captured.err
    assert _git_folder(sha256_repository) == before


def test_in_a_sha256_repository_doctor_names_the_format_and_scan_still_scans(
    sha256_repository: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(sha256_repository)
    assert main(["doctor"]) == 1
    said = capsys.readouterr().out
    assert "FAIL repository: " in said and "uses SHA-256 object ids" in said
    assert "to do: use gitstore in a repository git made with its default format" in said
    (sha256_repository / "notes.md").write_text("access = 'user\u202e \u2066// admin\u2069 \u2066'\n")
    try:
        assert main(["scan", "notes.md", "README.md"]) == 1
    finally:
        (sha256_repository / "notes.md").unlink()
    said = capsys.readouterr().out
    assert "README.md: clean" in said and "notes.md: quarantine bidi-control" in said, said
    assert main(["hooks", "status"]) == 0
    assert capsys.readouterr().out.startswith(f"({sha256_repository}/.git/ uses SHA-256 object ids; gitstore works "
                                              "in repositories with SHA-1 ids (git's default): project scopes not shown)\n")


def test_the_records_gate_names_a_sha256_repository_too(sha256_repository: Path) -> None:
    done = subprocess.run([sys.executable, "-c", "from gitstore.promote.gates.records import main; raise SystemExit(main([]))"], cwd=sha256_repository,
                          capture_output=True, text=True)
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "uses SHA-256 object ids" in done.stderr, done.stderr


def test_a_repository_whose_path_is_not_utf8_is_set_up_and_used(tmp_path: Path) -> None:
    """A folder named in Latin-1 (bytes that are no UTF-8) holds a repository like any other: its
    local scope is the hash of the path's bytes, and each command answers as it does elsewhere,
    the path printed as its own bytes."""
    import hashlib

    root = tmp_path / os.fsdecode(b"r\xe9po")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    said = {}
    for line in (["init"], ["status"], ["doctor"], ["verify"], ["learnings"], ["episodes"], ["dream"]):
        done = gitstore(*line, cwd=root, text=False)
        assert done.returncode == 0 and done.stderr == b"", (line, done.stdout, done.stderr)
        said[line[0]] = done.stdout
    assert said["init"].startswith(b"gitstore ready in " + os.fsencode(root) + b"\n")
    scope = json.loads(gitstore("status", "--json", cwd=root).stdout)["scope"]
    assert scope == "local/" + hashlib.sha256(os.fsencode(root / ".git")).hexdigest()[:16]


def test_a_bad_value_is_a_usage_error(repo: Path) -> None:
    gitstore("init", cwd=repo)
    done = gitstore("episodes", "--grep", "(", cwd=repo)
    assert done.returncode == 2 and "is not a regular expression" in done.stderr


@pytest.mark.parametrize("grep", ["(" * 2000 + ")" * 2000, "a{4294967296}"])
@pytest.mark.parametrize("command", [("episodes",), ("evidence", "ep_0000")])
def test_a_grep_python_cannot_compile_is_a_usage_error(repo: Path, grep: str, command: tuple[str, ...]) -> None:
    """Groups nested past what Python's parser recurses through, or a repeat count past its
    engine's limit, raised RecursionError or OverflowError: a traceback, not a usage error."""
    gitstore("init", cwd=repo)
    done = gitstore(*command, "--grep", grep, cwd=repo)
    assert done.returncode == 2 and "is not a regular expression" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_an_option_taking_one_value_given_twice_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """The command framework keeps the last of an option given twice and drops the rest without
    a word: `redact --comment A --comment B` redacted B alone, leaving A's text for agents. It
    is refused, naming the option; one that takes several may be repeated, a flag twice changes
    nothing, and a value that looks like an option is a value."""
    from gitstore.cli._app import given_once

    assert main(["redact", "--comment", "github:comment:1", "--comment=github:comment:2", "--reason", "x"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == (
        "gitstore: error: redact: --comment given twice; it takes one value (run the command once for each)\n")
    assert main(["records", "list", "--kind", "event", "--kind", "learning"]) == 2
    assert "records list: --kind given twice" in capsys.readouterr().err
    given_once(click_command("grant"), ["grant", "--purpose", "review", "--purpose", "instruction", "--json", "--json"])
    given_once(click_command("redact"), ["redact", "--reason", "--comment", "--comment", "github:comment:1"])
    given_once(click_command("redact"), ["redact", "--comment", "a", "--", "--comment"])


def test_main_returns_the_code_and_prints_nothing_on_stdout_for_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1


def test_interrupting_a_command_exits_130_with_one_line(repo: Path) -> None:
    assert gitstore("init", cwd=repo).returncode == 0
    # Ctrl-C as a terminal delivers it: a shell's background job would start with SIGINT ignored
    process = subprocess.Popen([str(BIN / "gitstore"), "capture", "--harness", "claude-code"], cwd=repo,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    _wait_until_reading_stdin(process.pid)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert err == b"gitstore: error: interrupted\n" and out == b""


CTRL_C_WHILE_LOADING = """
import os, signal, sys, time, types

class Loading(types.ModuleType):
    def __getattr__(self, name):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the command framework loads
        time.sleep(30)

sys.modules["typer._click.exceptions"] = Loading("typer._click.exceptions")
sys.argv[1:] = ["learnings", *sys.argv[1:]]
from gitstore.cli import run
run()
"""


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_ctrl_c_while_the_command_framework_loads_exits_130_with_one_line(repo: Path, json_flag: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", CTRL_C_WHILE_LOADING, *json_flag], cwd=repo, capture_output=True,
                          text=True, timeout=60, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    expected = '{"error": "interrupted", "code": 130}\n' if json_flag else "gitstore: error: interrupted\n"
    assert (done.returncode, done.stderr, done.stdout) == (130, expected, "")


def _wait_until_reading_stdin(pid: int) -> None:
    """Wait until the process blocks reading its input pipe (its imports done, its handlers set),
    as the kernel reports it; where /proc says nothing, a fixed while."""
    wchan = Path(f"/proc/{pid}/wchan")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if "pipe" in wchan.read_text():
                return
        except OSError:
            break
        time.sleep(0.02)
    time.sleep(1.5)


# -- shell completion ----------------------------------------------------------------------------

def complete(*words: str) -> list[str]:
    """What bash offers after ``words`` (the last one being completed), through the real script."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    quoted = " ".join(f"'{w}'" for w in words)
    script = (f'source <(gitstore completion bash)\nCOMP_WORDS=({quoted})\nCOMP_CWORD={len(words) - 1}\n'
              '_gitstore_complete\nprintf "%s\\n" "${COMPREPLY[@]}"\n')
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line]


def test_bash_completes_commands_subcommands_options_and_values() -> None:
    assert complete("gitstore", "lea") == ["learnings"]
    assert complete("gitstore", "records", "") == ["add", "list", "show"]
    assert "--purpose" in complete("gitstore", "learnings", "--")
    assert complete("gitstore", "learnings", "--purpose", "in") == ["instruction"]
    assert complete("gitstore", "hooks", "install", "--harness", "codex") == ["codex", "codex-notify"]
    assert complete("gitstore", "completion", "") == ["bash", "zsh", "fish"]


def test_command_names_complete_without_the_command_framework() -> None:
    code = ("import sys\nfrom gitstore.cli import main\nmain(['__complete', '1', 'gitstore', 'gr'])\n"
            "assert 'typer' not in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.split() == ["grant", "grants"], done.stderr


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_every_script_is_valid_for_its_shell(shell: str) -> None:
    script = gitstore("completion", shell)
    assert script.returncode == 0 and "gitstore __complete" in script.stdout
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    done = subprocess.run([shell, "-n"], input=script.stdout, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_zsh_script_works_in_a_plain_zsh_without_compinit() -> None:
    """As the README says: eval'd from ~/.zshrc, with or without compinit run before it."""
    if shutil.which("zsh") is None:
        pytest.skip("zsh is not installed")
    env = {**os.environ, "SCRIPT": gitstore("completion", "zsh").stdout}
    for before in ("", "autoload -Uz compinit && compinit -i; "):
        done = subprocess.run(["zsh", "-f", "-c", before + 'eval "$SCRIPT" && print -r -- $_comps[gitstore]'],
                              capture_output=True, text=True, env=env, timeout=60)
        assert (done.returncode, done.stdout, done.stderr) == (0, "_gitstore\n", ""), before


def test_the_fish_script_works_when_evaluated() -> None:
    """As the README says for every shell: eval "$(gitstore completion fish)"."""
    if shutil.which("fish") is None:
        pytest.skip("fish is not installed")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    script = 'eval "$(gitstore completion fish)"; complete -C "gitstore lea"; complete -C "gitstore records "'
    done = subprocess.run(["fish", "--no-config", "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert (done.returncode, done.stdout.split(), done.stderr) == (0, ["learnings", "add", "list", "show"], "")


def test_mcp_without_its_extra_says_how_to_install_it(repo: Path) -> None:
    assert gitstore("init", cwd=repo).returncode == 0
    code = ("import sys\nsys.modules['mcp'] = None  # the optional extra, not installed\n"
            "from gitstore.cli import main\nsys.exit(main(['mcp']))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    # the pip of the environment gitstore runs in, naming the SDK itself: `pip install 'gitstore[mcp]'`
    # resolves the PyPI name gitstore, another project's, wherever gitstore is not installed (the pip
    # of another environment), as `ci init --install` refuses it
    assert done.stderr == ("gitstore: error: the MCP server needs the mcp package: "
                           f"{shlex.quote(sys.executable)} -m pip install 'mcp>=2.0,<3'\n")


def test_the_mcp_package_it_asks_for_is_the_extra_the_package_declares() -> None:
    import tomllib

    from gitstore.deliver.mcp import SDK

    declared = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    assert declared["project"]["optional-dependencies"]["mcp"] == [SDK]
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert "install 'gitstore[mcp]'" not in readme


def test_an_unknown_shell_is_refused() -> None:
    done = gitstore("completion", "tcsh")
    assert done.returncode == 2 and "no completion for 'tcsh'" in done.stderr


def test_the_readme_names_every_command() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    for name in COMMANDS:
        assert re.search(rf"gitstore [^\n]*\b{re.escape(name)}\b", readme), f"README.md never mentions {name}"


README = Path(__file__).resolve().parent.parent / "README.md"


def readme_command_lines() -> list[list[str]]:
    """Each command line of the README's block of commands, its alternatives spelled out
    (``policy init | add PERSON``, ``records add/list/show``), optional options in and optional
    arguments out (``publish [--claude]``, ``sync [REMOTE]``)."""
    block = README.read_text(encoding="utf-8").split("```sh\n")[2].split("```")[0]
    found: list[list[str]] = []
    for line in block.splitlines():
        words = shlex.split(line.split("  #", 1)[0])
        assert words[0] == "gitstore", line
        pieces = [shlex.split(p) for p in " ".join(shlex.quote(w) for w in words[1:]).split(" '|' ")]
        for piece in pieces:
            if piece[0] not in COMMANDS:  # a subcommand of the first piece's group
                piece = [pieces[0][0], *piece]
            piece = [w.strip("[]") for w in piece if not (w.startswith("[") and not w.startswith("[-"))]
            if len(piece) > 1 and re.fullmatch(r"[a-z]+(/[a-z]+)+", piece[1]):
                found += [[piece[0], sub, *piece[2:]] for sub in piece[1].split("/")]
            else:
                found.append(piece)
    return found


def readme_prose_options() -> list[tuple[list[str], str]]:
    """Each option the README's prose names (`--dry-run`), with the command it last named in
    that paragraph (`gitstore dream`)."""
    found: list[tuple[list[str], str]] = []
    for paragraph in README.read_text(encoding="utf-8").split("\n\n"):
        command: list[str] = []
        for span in re.findall(r"`([^`]+)`", paragraph.replace("\n", " ")):
            if span.startswith("gitstore "):
                command = shlex.split(span)[1:]
            elif span.startswith("--") and command:
                found.append((command, span.split()[0]))
    return found


def test_every_command_and_option_the_readme_shows_exists(tmp_path: Path) -> None:
    lines = readme_command_lines()
    assert ["records", "show"] in lines and ["publish", "--claude", "--copilot"] in lines and ["sync"] in lines
    for line in lines:
        done = gitstore(*line, "--help", cwd=tmp_path)  # options are parsed before --help answers
        assert done.returncode == 0 and done.stdout.startswith("Usage: gitstore "), (line, done.stderr)
    options = readme_prose_options()
    assert (["dream"], "--dry-run") in options and (["promote"], "--pr") in options
    for command, option in options:
        shown = gitstore(*command, "--help", cwd=tmp_path).stdout
        assert re.search(rf"^  (-\w, )?{option}\b", shown, re.M), (command, option)


CI_INSTALL = "git+https://github.com/acme/gitstore@v0.1.0"


@pytest.mark.parametrize(("fifo", "line", "code", "said"), [
    (".claude/settings.local.json", ("hooks", "install", "--harness", "claude-code"), 1,
     "settings.local.json: cannot read (not a regular file)"),
    (".claude/settings.local.json", ("hooks", "status"), 0, ""),
    (".codex/config.toml", ("hooks", "uninstall", "--harness", "codex"), 1, "config.toml: cannot read (not a regular file)"),
    (".gitstore/policy.json", ("policy", "show"), 0, ""),
    (".github/workflows/gitstore-memory.yml", ("ci", "init", "--install", CI_INSTALL), 1,
     "gitstore-memory.yml differ from what gitstore would write (edited?); --force replaces them"),
    ("okf/.memory/loop/state.json", ("tick",), 0, ""),
], ids=lambda value: " ".join(value) if isinstance(value, tuple) else str(value))
def test_a_fifo_in_a_file_s_place_never_hangs_a_command(tmp_path: Path, fifo: str, line: tuple[str, ...], code: int,
                                                        said: str) -> None:
    """A FIFO opens only once something writes to it: a command refuses it in one line or
    passes over it, at once."""
    from .world import ready_repo

    root = ready_repo(tmp_path / "widgets").workspace.root
    (root / fifo).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(root / fifo)
    done = subprocess.run([sys.executable, "-m", "gitstore", *line], cwd=root, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60, env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == code, done.stderr
    assert (said in done.stderr and done.stderr.count("\n") == 1) if said else done.stderr == ""


def test_ci_init_reads_a_workflow_that_is_not_utf8_as_one_that_differs(tmp_path: Path) -> None:
    from .world import ready_repo

    root = ready_repo(tmp_path / "widgets").workspace.root
    memory = root / ".github" / "workflows" / "gitstore-memory.yml"
    memory.parent.mkdir(parents=True)
    memory.write_bytes(b"\xff\xfe")
    refused = gitstore("ci", "init", "--install", CI_INSTALL, cwd=root)
    assert refused.returncode == 1 and "gitstore-memory.yml differ from what gitstore" in refused.stderr
    assert memory.read_bytes() == b"\xff\xfe"
    assert gitstore("ci", "init", "--install", CI_INSTALL, "--force", cwd=root).returncode == 0
    assert memory.read_text(encoding="utf-8").startswith("#")


@pytest.mark.parametrize(("command", "closed", "says"), [
    ("records add -", "<&-", "standard input is closed"),
    ("canonical -", "<&-", "standard input is closed"),
    ("capture --harness claude-code", "<&-", "standard input is closed"),
    ("purge", "<&-", "pass --confirm"),
    ("learnings", ">&-", ""),
    ("grant --purpose analytics", ">&-", ""),
    ("status", ">&- 2>&-", ""),
])
def test_a_closed_standard_stream_is_one_line_never_a_traceback(command: str, closed: str, says: str,
                                                                tmp_path: Path) -> None:
    """A caller may close standard input or output (``<&-``, ``>&-``): a command that reads a
    closed input says so in one line; output to a closed stream goes nowhere, and the command
    does what it was asked once (a grant is stored, and not reported as a failure)."""
    from .world import ready_repo

    root = ready_repo(tmp_path / "repo").workspace.root
    done = subprocess.run(["bash", "-c", f'"$0" -m gitstore {command} {closed}', sys.executable], cwd=root,
                          capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    if says:
        assert done.returncode in (1, 2) and says in done.stderr and done.stderr.count("\n") == 1, done.stderr
    else:
        assert done.returncode == 0 and done.stderr == "", done.stderr
    if command.startswith("grant"):
        grants = json.loads(gitstore("grants", "--json", cwd=root).stdout)
        assert [g["purposes"] for g in grants] == [["analytics"]], "stored once"


COLLECTOR_AT_START = """
import atexit, gc, sys
import gitstore._collector as collector
collections = []
gc.callbacks.append(lambda phase, info: collections.append(phase) if phase == "start" else None)
before = []
real_starting, real_started = collector.starting, collector.started
def starting():
    real_starting()
    collections.clear()
def started():
    before.append((len(collections), gc.isenabled()))
    real_started()
collector.starting, collector.started = starting, started
atexit.register(lambda: print(before, gc.isenabled(), gc.get_freeze_count(), file=sys.stderr))
sys.argv[1:] = ["init"]
from gitstore.cli import run
run()
"""


def test_a_command_starts_without_collections_then_runs_with_the_collector_on(repo: Path) -> None:
    """Start-up (the command framework, pygit2, the store's modules) runs no cyclic collection
    (they went over the same long-lived objects some 55 times, 10-12 ms of a small command);
    the command itself runs with the collector on, start-up's objects frozen out of its way."""
    done = subprocess.run([sys.executable, "-c", COLLECTOR_AT_START], cwd=repo, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    before, enabled, frozen = done.stderr.strip().splitlines()[-1].rsplit(" ", 2)
    assert before == "[(0, False)]" and enabled == "True" and int(frozen) > 10_000, done.stderr


def test_a_command_run_in_process_leaves_the_collector_as_it_found_it(repo: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    monkeypatch.chdir(repo)
    frozen = gc.get_freeze_count()
    assert main(["init"]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen


@pytest.mark.parametrize("args", [["show", "lrn_" + "a" * 131_000], ["grant", "--purpose", "instruction", "--source",
                                                                       "review-thread", "--from", "2" * 131_000]])
def test_an_error_about_a_huge_value_repeats_its_start_and_end_only(repo: Path, args: list[str]) -> None:
    for flag in ([], ["--json"]):
        done = subprocess.run([sys.executable, "-m", "gitstore", *args, *flag], cwd=repo, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode in (1, 2) and done.stderr.count("\n") == 1 and len(done.stderr) < 600, done.stderr[:300]
        assert "…" in done.stderr
