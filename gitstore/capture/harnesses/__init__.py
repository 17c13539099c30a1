"""Harness adapters: where each coding agent keeps its hook configuration, and how gitstore's
entry is merged into it and taken out again.

One module per harness; its docstring records the documented schema it follows. Every adapter
works on text (the configuration file's content, or None when there is none) and never writes:
``gitstore.capture.install`` reads, writes and reports.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from gitstore.capture.harnesses import claude_code, codex, gemini_cli, opencode
from gitstore.capture.harnesses._command import HookCommand, python_of


class Harness(Protocol):
    name: str  # what `gitstore hooks install --harness` calls the adapter
    harness: str  # the coding agent whose sessions it captures (gitstore.records.vocabulary.HARNESSES)
    refusals: dict[str, str]  # scope -> why it is not offered
    # what the harness asks of the user before it runs hooks it did not write, which gitstore
    # cannot see (why, what to do); None when it runs them as they are
    review: tuple[str, str] | None

    @property
    def scopes(self) -> tuple[str, ...]: ...

    def path(self, scope: str, repo_root: Path | None, home: Path) -> Path:
        """The file gitstore's entry lives in."""

    def merged(self, current: str | None, hook: HookCommand) -> str:
        """The file's text with gitstore's entry for ``hook`` in it (unchanged if already there)."""

    def stripped(self, current: str) -> str | None:
        """The file's text without gitstore's entry; None only when the whole file is gitstore's."""

    def commands(self, current: str) -> list[str] | list[list[str]]:
        """The commands of gitstore's entries in the file."""

    def notes(self, current: str) -> list[str]:
        """What in the file keeps a hook from running (hooks switched off, ...)."""

    def altered(self, current: str) -> str | None:
        """Why gitstore's entry in the file runs other code than ``gitstore hooks install``
        writes, beyond the commands it names (a plugin whose code was changed); None when it
        does not, or when its commands are all it holds."""

    def switched_off(self, repo_root: Path | None, home: Path) -> str | None:
        """Why the harness's settings, read in its own order, keep every hook from running (None
        when they do not)."""

    def unloaded(self, scope: str, repo_root: Path | None, home: Path) -> tuple[str, str] | None:
        """Why the harness would not load the file of ``scope`` here at all (a project it does
        not trust, ...), and what to do about it; None when it loads it."""


HARNESSES: dict[str, Harness] = {
    h.name: h for h in (claude_code.HARNESS, codex.HOOKS, codex.NOTIFY, gemini_cli.HARNESS, opencode.HARNESS)
}

__all__ = ["HARNESSES", "Harness", "HookCommand", "python_of"]
