"""Promises of the README that belong to no one module: how the test suite itself behaves on a
machine without the third-party material, and what every command does alike."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .cli import gitstore
from .conftest import ROOT
from .test_cli import ON_A_REPOSITORY


def test_without_the_third_party_material_its_tests_skip_for_that_one_reason_and_the_rest_run(tmp_path: Path) -> None:
    absent = tmp_path / "absent"
    env = {**os.environ, "GITSTORE_TESTDATA": str(absent)}
    # a file that asks for the material as tests are collected (shared_params) and as they run (shared)
    # its own --basetemp: a run given none makes the next numbered folder under the user's and
    # removes all but the last three of them, which may be another run's gigabytes (a minute here)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                           "--basetemp", str(tmp_path / "inner"), "tests/test_reviews.py"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    reasons = {line.split(": ", 1)[1] for line in done.stdout.splitlines() if line.startswith("SKIPPED")}
    assert reasons == {f"third-party test material not found in {absent} "
                       "(set GITSTORE_TESTDATA to its folder to run these tests)"}, reasons
    assert re.search(r"\b[1-9]\d* passed, [1-9]\d* skipped in ", done.stdout), done.stdout[-500:]


def test_the_virtual_environment_the_make_targets_create_is_never_committed() -> None:
    """``make test`` and ``make demo`` create ``.venv/`` and use it when it is there: a committed
    one (a folder, or a link to another checkout's) would make a fresh clone use what it names.
    It is ignored as a folder and as a link, and the repository holds none."""
    if not (ROOT / ".git").exists():
        return  # a copy of the tree, not a clone: nothing is tracked
    tracked = subprocess.run(["git", "ls-files", "--", ".venv", ".venv/*"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout
    assert tracked == ""
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "-q", ".venv"], cwd=ROOT)
    assert ignored.returncode == 0


OLD_PYTHON = "#!/bin/sh\n[ \"$1\" = -V ] && echo 'Python 3.9.2' && exit 0\nexit 1\n"  # what 3.9 answers the check


def test_a_python_older_than_the_package_needs_is_named_before_make_makes_or_reuses_a_venv(tmp_path: Path) -> None:
    """The setup command on a machine whose ``python3`` is too old fails in one line naming the
    version and the way out, before a venv is made of it; a venv made of one before is named too,
    not reused by every later run (``make`` keeps a venv it finds)."""
    if subprocess.run(["make", "--version"], capture_output=True).returncode != 0:
        pytest.skip("make is not installed")
    for name in ("Makefile", "pyproject.toml"):
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    old = tmp_path / "python-old"
    old.write_text(OLD_PYTHON)
    old.chmod(0o755)
    done = subprocess.run(["make", f"PYTHON={old}", ".venv/.installed-stamp"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode != 0 and not (tmp_path / ".venv").exists()
    assert "needs Python 3.11 or newer" in done.stderr and "Python 3.9.2" in done.stderr, done.stderr
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").write_bytes(old.read_bytes())
    (tmp_path / ".venv" / "bin" / "python").chmod(0o755)
    done = subprocess.run(["make", ".venv/.installed-stamp"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode != 0 and "make clean" in done.stderr and "Python 3.9.2" in done.stderr, done.stderr


def test_every_read_command_takes_json() -> None:
    """The README: "read commands take --json". Every command takes it but those whose output is
    a format of its own: the MCP protocol, a pull request's Markdown, canonical JSON, a digest,
    a shell script."""
    from gitstore.cli._app import click_command
    from tools.cli_reference import command_lines

    own_format = {("mcp",), ("ci", "report"), ("canonical",), ("digest",), ("completion",)}
    root = click_command()
    without = set()
    for line in command_lines():
        command = root.commands[line[0]]
        command = command.commands[line[1]] if len(line) > 1 else command
        if not hasattr(command, "commands") and "--json" not in {o for p in command.params for o in p.opts}:
            without.add(line)
    assert without == own_format


# every command line that works on a repository but needs `gitstore init` to have run there
NEEDS_INIT = sorted(set(ON_A_REPOSITORY) - {
    ("init",),  # sets it up
    ("hooks", "install"),  # sets it up as init does, and says so
    ("hooks", "uninstall"), ("wiki", "init"), ("wiki", "index"), ("provenance",), ("ci", "init"),  # work tree and commits
    ("purge",),  # removes what is there, set up or not
})


@pytest.mark.parametrize("line", NEEDS_INIT, ids=" ".join)
def test_before_init_every_command_says_to_run_init_in_one_line_with_exit_2(line: tuple[str, ...], repo: Path) -> None:
    """The README's exit code 2 for a repository where `gitstore init` never ran: one line naming
    what to do, and nothing written (no okf/.memory/, no memory ref)."""
    done = gitstore(*line, *ON_A_REPOSITORY[line], cwd=repo)
    assert done.returncode == 2 and done.stdout == "", (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("gitstore: error: "), done.stderr
    assert done.stderr.endswith(f"gitstore is not set up in {repo}: run `gitstore init` first\n"), done.stderr
    assert not (repo / "okf").exists()
    assert subprocess.run(["git", "for-each-ref", "refs/memory/"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout == ""


def _exit_codes(page: Path) -> dict[str, str]:
    """The rows of a page's "Exit codes" table: code -> meaning."""
    section = page.read_text(encoding="utf-8").split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = (line.split(" | ", 1) for line in section.splitlines() if re.match(r"\| \d+ \| ", line))
    return {code.strip("| "): meaning.rstrip(" |") for code, meaning in rows}


def test_the_readme_and_the_quickstart_give_one_table_of_exit_codes() -> None:
    """The two pages a newcomer reads each list the exit codes (the command-line reference points
    at the quickstart's); they had drifted apart, each naming usage errors the other left out."""
    readme, quickstart = _exit_codes(ROOT / "README.md"), _exit_codes(ROOT / "okf" / "wiki" / "quickstart.md")
    assert set(readme) == {"0", "1", "2", "3", "130"}, readme
    assert readme == quickstart
