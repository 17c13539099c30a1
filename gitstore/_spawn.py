"""Starting a program without the ``subprocess`` module.

``subprocess`` loads ``locale``, ``selectors`` and its helpers on import, about 3 ms, which a
capture hook and a pre-commit gate pay at every run for one short-lived git command each.
``spawn`` starts the program through ``os.posix_spawnp``: standard input and error on the null
device, standard output into a pipe; the function it returns waits for the program and gives
its exit code and what it printed. Standard library only.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence


def spawn(argv: Sequence[str], env: Mapping[str, str]) -> Callable[[], tuple[int, bytes]]:
    """Start ``argv`` (its first word looked up on ``PATH``) with ``env``; the function returned
    waits for it and gives its exit code and standard output. ``OSError`` (a program that is not
    there) is raised here, as ``subprocess`` raises it."""
    read_end, write_end = os.pipe()
    actions = [(os.POSIX_SPAWN_DUP2, write_end, 1), (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
               (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
    try:
        pid = os.posix_spawnp(argv[0], list(argv), dict(env), file_actions=actions)
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)

    def answer() -> tuple[int, bytes]:
        with os.fdopen(read_end, "rb") as pipe:
            out = pipe.read()
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status), out

    return answer
