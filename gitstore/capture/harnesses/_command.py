"""The command every harness adapter installs: ``<python> -P -m gitstore.capture.agent_hook <harness>``."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

MODULE = "gitstore.capture.agent_hook"


@dataclass(frozen=True)
class HookCommand:
    """The interpreter that has gitstore installed, and the harness name the hook is told."""

    python: str
    harness: str

    @property
    def argv(self) -> list[str]:
        # -P: never put the working directory (the agent's repository) on sys.path, so a
        # repository cannot plant its own gitstore/capture/agent_hook.py for the hook to run
        return [self.python, "-P", "-m", MODULE, self.harness]

    @property
    def shell(self) -> str:
        """The same command as one POSIX shell string (harnesses run hook commands in a shell)."""
        return shlex.join(self.argv)


def python_of(command: str | list[str]) -> str | None:
    """The interpreter an installed command starts, or None when it cannot be read."""
    try:
        argv = shlex.split(command) if isinstance(command, str) else command
    except ValueError:
        return None
    return argv[0] if argv else None
