"""The README's exit codes for values typed on the command line, through the real CLI.

A value typed as an argument or option that is empty or malformed is a usage error (2), one line
naming the option or argument and the value; a well-formed value the store refuses stays 1.
Each command runs through ``gitstore.cli.main`` in one real repository set up once, as the
process runs it; a sample runs as its own process too, where a traceback would show.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any
from pathlib import Path

import pytest

from gitstore.cli import main

from .conftest import GIT_ENV, ROOT

LEARNING, DIGEST = "lrn_" + "0" * 32, "sha256:" + "0" * 64
CITE = f"ep_{'0' * 32}:ev_{'0' * 32}"
PROPOSE = ("propose", "--title", "T", "--text", "X", "--category", "decision", "--evidence", CITE)
GITHUB = ("import", "github", "--repo", "acme/widgets")

# (command line before the value, the option or argument it fills, empty value, malformed value,
#  whether the command takes --json, command line after the value)
TYPED: list[tuple[tuple[str, ...], str, str, str, bool, tuple[str, ...]]] = [
    (("show",), "LEARNING_ID", "", "lrn_1", True, ()),
    (("show", LEARNING, "--purpose"), "--purpose", "", "gossip", True, ()),
    (("history",), "LEARNING_ID", "", "bad", True, ()),
    (("accept",), "LEARNING_ID", "", "lrn_XYZ", True, ("--review-digest", DIGEST)),
    (("accept", LEARNING, "--review-digest", DIGEST, "--edit"), "--edit", "", " ", True, ()),
    (("accept", LEARNING, "--review-digest"), "--review-digest", "", "sha256:xyz", True, ()),
    (("reject",), "LEARNING_ID", "", "bad", True, ("--review-digest", DIGEST)),
    (("retire",), "LEARNING_ID", "", "bad", True, ("--reason", "stale")),
    (("retire", LEARNING, "--reason"), "--reason", "", " ", True, ()),
    (("merge", LEARNING), "LEARNING_ID", "", "bad", True, ("--title", "T", "--text", "X")),
    (("merge", LEARNING, LEARNING, "--text", "X", "--title"), "--title", "", " ", True, ()),
    (("promote",), "LEARNING_ID", "", "bad", True, ()),
    (("promote", LEARNING, "--route"), "--route", "", "9", True, ()),
    (("learnings", "--purpose"), "--purpose", "", "gossip", True, ()),
    (("grant", "--purpose"), "--purpose", "", "gossip", True, ()),
    (("grant", "--purpose", "review", "--source"), "--source", "", "email", True, ()),
    (("grant", "--purpose", "review", "--from"), "--from", "", "yesterday", True, ()),
    (("grant", "--purpose", "review", "--until"), "--until", "", "2026-13-01", True, ()),
    (("withdraw", "0" * 8, "--purpose"), "--purpose", "", "gossip", True, ()),
    (("export", "--purpose"), "--purpose", "", "gossip", True, ()),
    (("dream", "--since"), "--since", "", "yesterday", True, ()),
    (("dream", "--purpose"), "--purpose", "", "gossip", True, ()),
    (("dream", "--labeler"), "--labeler", "", " ", True, ()),
    (("dream", "--consolidator"), "--consolidator", "", " ", True, ()),
    (("dream", "--explain"), "--explain", "", " ", True, ()),
    (("propose", "--title", "T", "--text", "X", "--category", "decision", "--evidence"), "--evidence", "", "ep_1:ev_1",
     True, ()),
    ((*PROPOSE, "--counter"), "--counter", "", "ep_1", True, ()),
    ((*PROPOSE[:5], "--category"), "--category", "", "folklore", True, ("--evidence", CITE)),
    ((*PROPOSE, "--memory"), "--memory", "", "dream", True, ()),
    ((*PROPOSE, "--audience"), "--audience", "", "world", True, ()),
    ((*PROPOSE, "--replaces"), "--replaces", "", "lrn_1", True, ()),
    ((*PROPOSE[:1], "--title"), "--title", "", " ", True, PROPOSE[3:]),
    ((*PROPOSE, "--target"), "--target", "", " ", True, ()),
    ((*PROPOSE, "--target"), "--target", "", "../../x", True, ()),
    ((*PROPOSE[:1], "--title"), "--title", "", "t" * 201, True, PROPOSE[3:]),
    ((*PROPOSE, "--rationale"), "--rationale", "", "r" * 2001, True, ()),
    (("grant", "--purpose", "review", "--note"), "--note", "", "n" * 501, True, ()),
    (("withdraw", "0" * 8, "--reason"), "--reason", "", "r" * 501, True, ()),
    (("reject", LEARNING, "--review-digest", DIGEST, "--reason"), "--reason", "", "r" * 1001, True, ()),
    (("redact", "--reason", "r", "--comment"), "--comment", "", " ", True, ()),
    (("redact", "--reason", "r", "--comment"), "--comment", "", "github:comment:1 2", True, ()),
    (("redact", "--reason", "r", "--comment"), "--comment", "", "c" * 201, True, ()),
    (("redact", "--comment", "github:comment:1", "--reason"), "--reason", "", " ", True, ()),
    (("redact", "--comment", "github:comment:1", "--reason"), "--reason", "", "r" * 1001, True, ()),
    (("purge", "--confirm"), "--confirm", "", " ", True, ()),
    (("provenance",), "BASE..HEAD", "", " ", True, ()),
    (("ci", "init", "--install", "git+https://github.com/acme/gitstore@v1", "--since"), "--since", "", "yesterday",
     True, ()),
    (("ci", "init", "--install", "git+https://github.com/acme/gitstore@v1", "--cron"), "--cron", "", "daily", True,
     ()),
    (("ci", "report"), "DREAM_JSON", "", None, False, ()),
    (("init", "--provider"), "--provider", "", "s3", True, ()),
    (("capture", "--harness"), "--harness", "", "vim", True, ()),
    (("capture", "--harness", "codex", "--mode"), "--mode", "", "everything", True, ()),
    (("import", "transcript"), "FILE", "", None, True, ()),
    (("import", "transcript", "s.jsonl", "--harness"), "--harness", "", "vim", True, ()),
    (("import", "transcript", "s.jsonl", "--mode"), "--mode", "", "everything", True, ()),
    (("import", "reviews"), "SNAPSHOT", "", None, True, ()),
    (("import", "github", "--repo"), "--repo", "", "widgets", True, ()),
    ((*GITHUB, "--since"), "--since", "", "yesterday", True, ()),
    ((*GITHUB, "--pr"), "--pr", "", "x", True, ()),
    ((*GITHUB, "--api-url"), "--api-url", "", "ftp://example.com", True, ()),
    ((*GITHUB, "--out"), "--out", "", None, True, ()),
    (("hooks", "install", "--harness"), "--harness", "", "vim", True, ()),
    (("hooks", "install", "--harness", "codex", "--scope"), "--scope", "", "team", True, ()),
    (("policy", "add", "github:9", "--may"), "--may", "", "rule", True, ()),
    (("policy", "init", "--key"), "--key", "", None, True, ()),
    (("records", "list", "--kind"), "--kind", "", "blob", True, ()),
    (("records", "add"), "FILE", "", None, True, ()),
    (("canonical",), "FILE", "", None, False, ()),
    (("digest",), "FILE", "", None, False, ()),
    (("validate",), "FILE", "", None, True, ()),
    (("scan",), "FILE", "", None, True, ()),
    (("episodes", "--source"), "--source", "", "email", True, ()),
    (("context", "--session"), "--session", "", " ", True, ()),
    (("deliveries", "--session"), "--session", "", " ", True, ()),
    (("scope", "formerly"), "OLD_SCOPE", "", "widgets", True, ()),
]
# well-formed values but for a newline at the end (a value read from a file or a CI variable):
# each pattern a value must match ends with the string, as the contracts' do, never before a final
# newline, so no option lets through an id a record or a ref name then refuses
FINAL_NEWLINE: list[tuple[tuple[str, ...], str]] = [
    (("init", "--writer", "abc\n"), "--writer"),
    (("ci", "init", "--install", "git+https://github.com/acme/gitstore@v0.1.0", "--writer", "ci\n"), "--writer"),
    (("grant", "--purpose", "review", "--by", "github:9\n"), "--by"),
    (("policy", "add", "git:carol@example.com\n"), "PERSON"),
    (("accept", LEARNING, "--review-digest", DIGEST, "--by", "git:carol@example.com\n"), "--by"),
    (("sync", "origin\n"), "origin"),
    (("import", "github", "--repo", "acme/widgets\n"), "--repo"),
]
# values the library names with their option (or that stand alone): value named, option not asked
VALUE_ONLY: list[tuple[str, ...]] = [
    ("evidence", ""), ("evidence", "bad"), ("evidence", "ep_zz"), ("evidence", "ep_" + "0" * 33),
    ("records", "show", "1" * 200), ("withdraw", ""), ("withdraw", "zz"), ("records", "show", ""),
    ("records", "show", "xyz"), ("sync", ""), ("sync", "x y"), ("tick", ""), ("tick", "often"),
    ("completion", ""), ("completion", "tcsh"), ("context", "--harness", "vim"),
]
# well-formed values the store refuses (or files that are not there): a refusal, 1
REFUSED: list[tuple[str, ...]] = [
    ("show", LEARNING), ("history", LEARNING), ("retire", LEARNING, "--reason", "stale"),
    ("accept", LEARNING, "--review-digest", DIGEST), ("promote", LEARNING), ("evidence", "ep_" + "0" * 32),
    ("withdraw", "0" * 8), ("records", "show", "0" * 8), ("propose", *PROPOSE[1:]), ("purge", "--confirm", "acme/other"),
    ("import", "github", "--repo", "acme/other"), ("canonical", "missing.json"), ("provenance", "no-such-branch"),
    ("grant", "--purpose", "review", "--from", "2026-02-01", "--until", "2026-01-01"),
    ("redact", "--comment", "bogus", "--reason", "r"),  # a source id any origin may use: none held here
]
# command lines whose arguments do not go together: wrong arguments, 2
WRONG: list[tuple[str, ...]] = [
    ("merge", LEARNING, "--title", "T", "--text", "X"), ("merge", LEARNING, LEARNING, "--title", "T", "--text", "X"),
    ("publish", "--rollback", "--claude"), ("publish", "--rollback", "--copilot", "--dry-run"),
]


def _cases() -> list[object]:
    cases = []
    for before, name, empty, malformed, takes_json, after in TYPED:
        for value in (empty, malformed):
            if value is not None:
                line = (*before, value, *after)
                as_json = takes_json and (value == malformed or malformed is None)  # once a command line
                cases.append(pytest.param(line, name, value, as_json, id=" ".join(map(repr, line))))
    return cases


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """One initialised repository, and the environment the CLI runs in there (this checkout's code)."""
    home = tmp_path_factory.mktemp("home")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GIT_", "GITHUB_"))}
    env.update(GIT_ENV, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), PYTHONPATH=str(ROOT))
    root = tmp_path_factory.mktemp("exit-codes") / "widgets"
    root.mkdir()
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "i"],
                 ["remote", "add", "origin", "https://github.com/acme/widgets.git"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)
    assert _process(root, env, "init").returncode == 0
    return root, env


Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def place(repository: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch,
          capsys: pytest.CaptureFixture[str]) -> tuple[Run]:
    """How a test runs a command line in the repository: through ``main``, in this process,
    with the process's environment, working folder and standard input."""
    root, env = repository
    monkeypatch.chdir(root)
    for key in [k for k in os.environ if k.startswith(("GIT_", "GITHUB_"))]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()
        code = main(list(args))
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["gitstore", *args], code, out, err)
    return (run,)


def _process(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gitstore", *args], cwd=root, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)


def _run(run: Run, *args: str) -> subprocess.CompletedProcess[str]:
    return run(*args)


def _usage_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.args, done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr and done.stdout == "", done.stderr
    assert done.stderr.startswith("gitstore: error: "), done.stderr
    return done.stderr


@pytest.mark.parametrize(("line", "name", "value", "takes_json"), _cases())
def test_an_empty_or_malformed_typed_value_is_a_usage_error(
        place: tuple[Run], line: tuple[str, ...], name: str, value: str, takes_json: bool) -> None:
    err = _usage_error(_run(*place, *line))
    assert name in err and (_shown(value) in err or "(an empty id)" in err), err
    if takes_json:
        done = _run(*place, *line, "--json")
        assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
        error = json.loads(done.stderr)
        assert error["code"] == 2 and name in error["error"], error


@pytest.mark.parametrize("line", VALUE_ONLY, ids=lambda line: " ".join(map(repr, line)))
def test_a_malformed_value_the_library_names_is_a_usage_error_too(
        place: tuple[Run], line: tuple[str, ...]) -> None:
    assert _shown(line[-1]) in _usage_error(_run(*place, *line))


@pytest.mark.parametrize(("line", "name"), FINAL_NEWLINE, ids=lambda x: " ".join(map(repr, x)) if isinstance(x, tuple) else x)
def test_a_value_with_a_final_newline_is_a_usage_error_and_changes_nothing(
        place: tuple[Run], repository: tuple[Path, dict[str, str]], line: tuple[str, ...], name: str) -> None:
    root = repository[0]
    before = subprocess.run(["git", "for-each-ref"], cwd=root, capture_output=True, text=True).stdout
    files = sorted(p.relative_to(root) for p in root.rglob("*") if ".git" not in p.parts)
    err = _usage_error(_run(*place, *line))
    assert name in err and _shown(line[-1]) in err, err
    assert subprocess.run(["git", "for-each-ref"], cwd=root, capture_output=True, text=True).stdout == before
    assert sorted(p.relative_to(root) for p in root.rglob("*") if ".git" not in p.parts) == files


def _shown(value: str) -> str:
    """How an error names a value given on the command line: a long one by its start."""
    return repr(value) if len(value) <= 80 else repr(value[:40])[:-1] + "..."


@pytest.mark.parametrize("line", WRONG, ids=" ".join)
def test_arguments_that_do_not_go_together_are_a_usage_error(place: tuple[Run], line: tuple[str, ...]) -> None:
    _usage_error(_run(*place, *line))
    done = _run(*place, *line, "--json")
    assert done.returncode == 2 and json.loads(done.stderr)["code"] == 2, done.stderr


@pytest.mark.parametrize("line", REFUSED, ids=" ".join)
def test_a_well_formed_value_the_store_refuses_stays_1(place: tuple[Run], line: tuple[str, ...]) -> None:
    done = _run(*place, *line, "--json") if line[0] not in ("canonical",) else _run(*place, *line)
    assert done.returncode == 1, (line, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


SAMPLE = [("show", ""), ("ci", "init", "--install", "git+https://github.com/acme/gitstore@v1", "--since", "yesterday"),
          ("import", "github", "--repo", "acme/widgets", "--pr", "x"), ("dream", "--labeler", " ", "--json"),
          ("records", "add", "")]


@pytest.mark.parametrize("line", SAMPLE, ids=lambda line: " ".join(map(repr, line)))
def test_as_its_own_process_too(repository: tuple[Path, dict[str, str]], line: tuple[str, ...]) -> None:
    """The same through ``python -m gitstore``: what a user's shell sees (one line, no traceback)."""
    done = _process(*repository, *line)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr


def _text_parameters() -> list[object]:
    """Every text argument and option of every command, read from the command framework (a
    parameter added later is in the list), and whether it names a file."""
    from gitstore.cli._app import _plain, click_command
    from gitstore.cli._values import names_files

    found = []

    def walk(command: Any, words: tuple[str, ...]) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*words, name))
        for param in command.params:
            descriptor = getattr(param, "type_descriptor", None)
            if descriptor is None or _plain(descriptor.annotation) is not str:
                continue
            spelled = param.opts[0] if param.param_type_name == "option" else None
            files = names_files(descriptor.parameter_info.callback)
            found.append(pytest.param(words, spelled, spelled or param.metavar, files,
                                      id=" ".join((*words, spelled or param.metavar))))

    walk(click_command(), ())
    return found


TEXT_PARAMETERS = _text_parameters()


def test_every_text_parameter_is_listed() -> None:
    """The list below is read from the framework: the options the audit named are in it."""
    ids = {case.id for case in TEXT_PARAMETERS}  # type: ignore[attr-defined]
    assert {"grant --note", "propose --title", "propose --text", "retire --reason", "redact --reason",
            "dream --explain", "recall QUERY"} <= ids, sorted(ids)


@pytest.mark.parametrize(("words", "option", "name", "files"), TEXT_PARAMETERS)
def test_text_that_is_not_utf8_is_a_usage_error_naming_it(
        place: tuple[Run], repository: tuple[Path, dict[str, str]],
        words: tuple[str, ...], option: str | None, name: str, files: bool) -> None:
    """A byte that is not UTF-8 (the shell passes it on; Python reads it as a lone surrogate) in
    any text option or argument is exit 2 naming it, before anything is read or written; only a
    file name may hold any bytes."""
    value = "n\udcff"
    line = (*words, option, value) if option else (*words, value)
    root = repository[0]
    before = subprocess.run(["git", "for-each-ref"], cwd=root, capture_output=True, text=True).stdout
    if files:  # as its own process: the file's name is printed as the bytes it is
        done = subprocess.run([sys.executable, "-m", "gitstore", *line], cwd=root, env=repository[1],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=60,
                              encoding="utf-8", errors="surrogateescape")
        assert "not UTF-8" not in done.stderr and "Traceback" not in done.stderr, done.stderr
        return
    err = _usage_error(_run(*place, *line))
    assert name in err and "'n\\xff' is not UTF-8 text" in err, err
    assert subprocess.run(["git", "for-each-ref"], cwd=root, capture_output=True, text=True).stdout == before


def test_text_that_is_not_utf8_as_its_own_process(repository: tuple[Path, dict[str, str]]) -> None:
    """Through the shell, as a user types it: the byte reaches the option, not a record's check."""
    root, env = repository
    for line in ((b"grant", b"--purpose", b"review", b"--note", b"n\xff"), (b"dream", b"--dry-run", b"--explain", b"\xff")):
        done = subprocess.run([sys.executable.encode(), b"-m", b"gitstore", *line], cwd=root, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
        assert done.returncode == 2 and done.stdout == b"", done.stderr
        assert done.stderr.count(b"\n") == 1 and line[-2].decode() in done.stderr.decode(), done.stderr
