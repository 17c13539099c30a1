"""The commands every harness adapter installs: ``<python> -P -m <module> <harness>``, where the
module is ``gitstore.capture.agent_hook`` (capture) or ``gitstore.deliver.hook`` (context)."""

from __future__ import annotations

import shlex
from typing import NamedTuple

MODULE = "gitstore.capture.agent_hook"
CONTEXT_MODULE = "gitstore.deliver.hook"


class HookCommand(NamedTuple):
    """The interpreter that has gitstore installed, the harness name the hook is told, and the
    hook's module."""

    python: str
    harness: str
    module: str = MODULE

    @property
    def argv(self) -> list[str]:
        # -P: never put the working directory (the agent's repository) on sys.path, so a
        # repository cannot plant its own gitstore/capture/agent_hook.py for the hook to run
        return [self.python, "-P", "-m", self.module, self.harness]

    @property
    def shell(self) -> str:
        """The same command as one POSIX shell string (harnesses run hook commands in a shell)."""
        return shlex.join(self.argv)

    def context(self) -> HookCommand:
        """The context hook's command for the same interpreter and harness."""
        return HookCommand(self.python, self.harness, CONTEXT_MODULE)


def python_of(command: str | list[str]) -> str | None:
    """The interpreter an installed command starts, or None when it cannot be read."""
    try:
        argv = shlex.split(command) if isinstance(command, str) else command
    except ValueError:
        return None
    return argv[0] if argv else None


def module_of(command: str | list[str]) -> str | None:
    """The module an installed command runs (``-m MODULE``), or None."""
    try:
        argv = shlex.split(command) if isinstance(command, str) else command
    except ValueError:
        return None
    return argv[argv.index("-m") + 1] if "-m" in argv[:-1] else None
