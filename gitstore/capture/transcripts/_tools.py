"""What a tool call did, across harnesses: shell commands, edited files, test runs, outcomes."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from gitstore.capture.bounds import cut

SHELL_TOOLS = frozenset({
    "bash", "shell", "exec_command", "shell_command", "container.exec", "local_shell",
    "run_shell_command", "execute_command", "run_terminal_cmd", "terminal",
})
EDIT_TOOLS = frozenset({
    "edit", "multiedit", "multi_edit", "write", "notebookedit", "write_file", "replace",
    "edit_file", "create_file", "apply_patch", "patch",
})
_PATH_KEYS = ("file_path", "filePath", "notebook_path", "absolute_path", "path", "target_file", "filename")
_PATCH_KEYS = ("input", "patch", "patchText", "patch_text")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "fish", "ksh", "pwsh", "powershell", "cmd"})
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M)

_EXIT_HEAD = re.compile(
    r"^\s*(?:error:\s*)?(?:exit code:?|process exited with code)\s*(-?\d{1,4})\b", re.I | re.M
)
_FAILED = re.compile(
    r"\b[1-9]\d* (?:failed|errors?)\b|^FAIL\b|\bFAILED\b|test result: FAILED|^Tests:.*\bfailed\b"
    r"|^ERRORS?\b|npm ERR!|^error: test failed",
    re.M,
)
_PASSED = re.compile(
    r"\b[1-9]\d* passed\b|test result: ok\.|^ok\s+\S|^PASS\b|^Tests:\s+\d+ passed|^OK(?: \(|$)",
    re.M,
)

# Test runners, by the first word of a command segment (after wrappers and VAR=value).
_RUNNERS = frozenset({
    "pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "rspec", "phpunit", "ctest",
    "ava", "karma", "behave", "trial", "nosetests", "playwright",
})
_SUBCOMMAND_TEST = frozenset({"go", "cargo", "dotnet", "swift", "deno", "mix", "bazel", "zig", "bun", "flutter"})
_PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn"})
_WRAPPERS = frozenset({"time", "env", "sudo", "nice", "exec", "command", "xvfb-run", "npx", "bunx", "pnpx"})
_RUN_WRAPPERS = frozenset({"uv", "poetry", "pipenv", "hatch", "pdm", "rye", "pixi"})
_ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SEGMENTS = re.compile(r"&&|\|\||[;|\n()]")
_PYTHON = re.compile(r"^python[0-9.]*\Z")


def shell_command(args: Mapping[str, Any], limit: int) -> str | None:
    """The shell command in a tool call's arguments (``command`` or ``cmd``, string or argv),
    at most LIMIT characters (``cut``: never part of a word)."""
    value = args.get("command", args.get("cmd"))
    if isinstance(value, str):
        text = value.strip()
    elif isinstance(value, list) and value and all(isinstance(word, str) for word in value):
        text = _argv_text(value)
    else:
        return None
    return (cut(text, limit) or None) if text else None


def _argv_text(argv: list[str]) -> str:
    if len(argv) >= 3 and argv[0].rsplit("/", 1)[-1] in _SHELLS and argv[1] in ("-c", "-lc", "-ic", "-Command"):
        return argv[2].strip()
    return shlex.join(argv)


def is_shell(name: str) -> bool:
    return name.lower() in SHELL_TOOLS


def is_edit(name: str) -> bool:
    return name.lower() in EDIT_TOOLS


def edit_paths(args: Mapping[str, Any]) -> list[str]:
    """The files an edit or write call names: a path argument, or the files of a patch."""
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return [value.strip()]
    for key in _PATCH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and "*** " in value:
            return patch_paths(value)
    return []


def patch_paths(patch: str) -> list[str]:
    """Files named by an ``*** Begin Patch`` envelope (Add, Update, Delete, Move to)."""
    found: list[str] = []
    for match in _PATCH_FILE.finditer(patch):
        path = match.group(1) or match.group(2)
        if path and path not in found:
            found.append(path)
    return found


def shell_patch(command: str) -> str | None:
    """The patch text when a shell command is ``apply_patch`` (argv form or heredoc), else None."""
    stripped = command.lstrip()
    if not stripped.startswith("apply_patch"):
        return None
    return stripped if "*** Begin Patch" in stripped else None


def exit_code_in(text: str) -> int | None:
    """An exit code stated at the start of a tool's output (``Exit code: 1``, ``Process exited
    with code 0``), else None."""
    match = _EXIT_HEAD.search(text[:600])
    return int(match.group(1)) if match else None


def outcome_in_output(text: str) -> bool | None:
    """Whether a test run's output reports failure (False) or success (True); None if unclear."""
    tail = text[-6000:]
    if _FAILED.search(tail):
        return False
    if _PASSED.search(tail):
        return True
    return None


def is_test_command(command: str) -> bool:
    """Whether any segment of a shell command runs a test suite."""
    for segment in _SEGMENTS.split(command[:4000]):
        words = _strip_wrappers(segment.split())
        if words and _runs_tests(words):
            return True
    return False


def _strip_wrappers(words: list[str]) -> list[str]:
    index = 0
    while index < len(words):
        word = words[index]
        if _ENV.match(word) or word in _WRAPPERS or (word.startswith("-") and index > 0):
            index += 1
        elif word == "timeout":
            index += 2
        elif word in _RUN_WRAPPERS and index + 1 < len(words) and words[index + 1] == "run":
            index += 2
        else:
            break
    return words[index:]


def _runs_tests(words: list[str]) -> bool:
    head = words[0].rsplit("/", 1)[-1]
    rest = [w for w in words[1:] if not w.startswith("-")]
    if head in _RUNNERS:
        return True
    if _PYTHON.match(head):
        module = _module_after_m(words[1:])
        return module in ("pytest", "unittest", "tox", "nox", "nose2")
    if head in _PACKAGE_MANAGERS:
        return bool(rest) and (rest[0] in ("test", "t") or (rest[0] == "run" and len(rest) > 1 and rest[1].startswith("test")))
    if head in _SUBCOMMAND_TEST:
        return bool(rest) and rest[0] in ("test", "nextest")
    if head in ("make", "gmake"):
        return any(w in ("test", "tests", "check") for w in rest)
    if head in ("mvn", "mvnw", "gradle", "gradlew"):
        return any(w in ("test", "verify", "check") or w.endswith(":test") for w in rest)
    if head == "bundle":
        return rest[:2] == ["exec", "rspec"]
    return False


def _module_after_m(words: list[str]) -> str | None:
    for index, word in enumerate(words[:-1]):
        if word == "-m":
            return words[index + 1]
    return None
