"""``gitstore doctor``'s advice, read and followed as a person would: from a folder below the
repository's root, pasting each command into a shell as it stands.

A to-do is one command, or words with each command set off in backticks. Each command must be
valid shell (``bash -n``), and no command may hide in the words unmarked, where a person could
not tell where it ends. Following one runs it from the folder below the root: ``gitstore``
in-process, anything else (git, rm) as a program, each step of ``a && b`` or ``a; b`` in turn.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

from gitstore.cli import COMMANDS

from . import cli

MARKED = re.compile(r"`([^`]*)`")
PROGRAMS = ("gitstore", "git", "rm")
GIT_COMMANDS = ("add", "branch", "commit", "config", "fetch", "push", "remote", "rm", "update-ref")
UNMARKED = re.compile(r"\b(?:gitstore (?:%s)|git (?:%s))\b|(?:^|[\s(])rm /" % (
    "|".join(map(re.escape, COMMANDS)), "|".join(GIT_COMMANDS)))


def below(root: Path) -> Path:
    """A folder two levels below the work tree's root (empty, so git does not see it)."""
    folder = root / "src" / "deep"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def checks(root: Path, name: str) -> list[dict[str, Any]]:
    """doctor's checks of one name, as ``gitstore doctor --json`` prints them run below the root;
    the advice of each is checked to be pasteable."""
    report = json.loads(cli.gitstore("doctor", "--json", cwd=below(root)).stdout)
    found = [c for c in report["checks"] if c["check"] == name]
    for check in found:
        commands(check["todo"] or "")
    return found


def commands(todo: str) -> list[str]:
    """The commands a to-do gives, each checked with ``bash -n``: those set off in backticks, or
    the whole to-do when it holds none and starts with a program; the words around them name
    no command unmarked."""
    marked = MARKED.findall(todo)
    found = marked or ([todo] if todo.split(" ", 1)[0] in PROGRAMS else [])
    words = MARKED.sub("", todo) if marked else "" if found else todo
    assert not UNMARKED.search(words), f"a command not set off from the words around it: {todo!r}"
    for command in found:
        done = subprocess.run(["bash", "-n"], input=command, text=True, capture_output=True)
        assert done.returncode == 0, (command, done.stderr)
    return found


def command(todo: str, index: int = 0) -> str:
    """One command of a to-do (the first, unless told)."""
    return commands(todo)[index]


def follow(root: Path, line: str) -> str:
    """Run one command line below the root, as a shell would; each step must succeed. What the
    gitstore steps printed."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    steps: list[list[str]] = [[]]
    for token in lexer:
        steps.append([]) if token in ("&&", ";") else steps[-1].append(token)
    printed = ""
    for argv in steps:
        assert argv and argv[0] in PROGRAMS, line
        if argv[0] == "gitstore":
            printed += cli.ok(*argv[1:], cwd=below(root))
        else:
            subprocess.run(argv, cwd=below(root), check=True, capture_output=True)
    return printed
