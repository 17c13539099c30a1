"""Running the CLI in-process through ``gitstore.cli.main(argv)``, as a user would run it.

The command runs in ``cwd`` with the given standard input, and its exit code, standard output
and standard error come back as a ``subprocess.CompletedProcess``, so a test reads the same
fields whichever way it ran the command. Starting a Python process per command costs more than
most commands do; the few tests that need the real console script (start-up, signals, the
installed entry point) run it as a subprocess themselves.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gitstore.cli import main


class _Output(io.TextIOWrapper):
    """A text stream over bytes, as standard output is (``.buffer`` included)."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", errors="surrogateescape", write_through=True)

    def value(self) -> bytes:
        self.flush()
        return self.buffer.getvalue()  # type: ignore[attr-defined, no-any-return]


@contextmanager
def _redirected(cwd: Path | None, stdin: bytes) -> Iterator[tuple[_Output, _Output]]:
    saved = sys.stdin, sys.stdout, sys.stderr, os.getcwd()
    out, err = _Output(), _Output()
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    try:
        if cwd is not None:
            os.chdir(cwd)
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved[:3]
        os.chdir(saved[3])


def gitstore(*args: str, cwd: Path | str | None = None, stdin: bytes | str | None = None,
             text: bool = True) -> subprocess.CompletedProcess[Any]:
    """Run ``gitstore ARGS`` in-process; output is text unless ``text`` is False."""
    data = stdin.encode() if isinstance(stdin, str) else (stdin or b"")
    with _redirected(Path(cwd) if cwd is not None else None, data) as (out, err):
        code = main(list(args))
    stdout, stderr = out.value(), err.value()
    if text:
        return subprocess.CompletedProcess(["gitstore", *args], code, stdout.decode(), stderr.decode())
    return subprocess.CompletedProcess(["gitstore", *args], code, stdout, stderr)


def ok(*args: str, cwd: Path | str | None = None, stdin: bytes | str | None = None) -> str:
    """The standard output of a command that must succeed."""
    done = gitstore(*args, cwd=cwd, stdin=stdin)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return str(done.stdout)


def fails(code: int, *args: str, cwd: Path | str | None = None, stdin: bytes | str | None = None) -> str:
    """The one-line error of a command that must fail with ``code``."""
    done = gitstore(*args, cwd=cwd, stdin=stdin)
    assert done.returncode == code, (args, done.returncode, done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    return str(done.stderr)
