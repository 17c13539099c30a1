"""Run ``gitstore`` killed by SIGKILL at a chosen step, for the tests of interrupted commands.

    python tests/kill_at.py WHEN:MODULE:NAME[#N][~PATTERN] gitstore-argument...

replaces the function ``NAME`` of ``MODULE`` (``Class.method`` for a method) in this process
only, then runs the command line: the process kills itself with SIGKILL right before
(``WHEN`` = ``before``) or right after (``after``) the ``N``-th call (default 1), counting only
the calls whose first argument's text matches the regular expression ``PATTERN`` when given. Nothing runs
after the kill, no ``finally`` and no exit handler, as when the machine loses power or a
person kills the command. The product is unchanged: only this test process is patched.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import signal
import sys
from typing import Any


def _die() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def install(spec: str) -> None:
    when, module_name, name = spec.split(":", 2)
    name, _, pattern = name.partition("~")
    name, _, nth = name.partition("#")
    count = int(nth or "1")
    matching = re.compile(pattern) if pattern else None
    owner: Any = importlib.import_module(module_name)
    *path, attribute = name.split(".")
    for part in path:
        owner = getattr(owner, part)
    real = getattr(owner, attribute)
    calls = 0

    @functools.wraps(real)
    def killing(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        if matching is not None and not (args and matching.search(str(args[0]))):
            return real(*args, **kwargs)
        calls += 1
        if when == "before" and calls == count:
            _die()
        result = real(*args, **kwargs)
        if when == "after" and calls == count:
            _die()
        return result

    setattr(owner, attribute, killing)


def main(argv: list[str]) -> int:
    install(argv[0])
    from gitstore.cli import main as gitstore

    return gitstore(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
