"""Gemini CLI: command hooks in ``settings.json``, on ``SessionEnd`` and ``PreCompress``.

What the documentation says, and what this adapter follows (sources: google-gemini/gemini-cli
``docs/hooks/index.md``, ``docs/hooks/reference.md`` and ``schemas/settings.schema.json``):

- Hooks live in ``settings.json``: ``.gemini/settings.json`` in the project, ``~/.gemini/
  settings.json`` for the user (and system files under ``/etc/gemini-cli/``, not touched here).
- Layout: ``"hooks"`` maps an event name to a list of hook definitions ``{"matcher"?: str,
  "sequential"?: bool, "hooks": [...]}``; each hook is ``{"type": "command", "command": str,
  "name"?: str, "timeout"?: milliseconds (default 60000), "description"?: str}``. Lifecycle
  events match their matcher as an exact string; no matcher runs the hook every time.
- Events: ``SessionEnd`` (input ``reason``: exit, clear, logout, prompt_input_exit or other; best
  effort, the CLI does not wait for it) and ``PreCompress`` (input ``trigger``: auto or manual;
  advisory, fired asynchronously). Every hook gets ``session_id``, ``transcript_path``, ``cwd``,
  ``hook_event_name`` and ``timestamp`` as JSON on standard input.
- Output: standard output must hold nothing but the final JSON, so the hook writes nothing.
- ``hooksConfig.enabled`` (default true) switches every hook off; ``hooksConfig.disabled`` lists
  hook names not to run. Project hooks are fingerprinted by name and command: a change makes the
  CLI warn before running them. The handler is named ``gitstore-capture``.
- The CLI's settings loader strips comments before parsing (``packages/cli/src/config/
  settings.ts``; a code fact, not a documented one), so comments are accepted and kept here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gitstore.errors import UsageError
from gitstore.capture.harnesses._command import HookCommand
from gitstore.capture.harnesses._jsonhooks import JsonHooksHarness

HOOK_NAME = "gitstore-capture"
TIMEOUT_MS = 30_000


def _project(repo_root: Path | None, home: Path) -> Path:
    if repo_root is None:
        raise UsageError("the project scope needs a git repository")
    return repo_root / ".gemini" / "settings.json"


def _user(repo_root: Path | None, home: Path) -> Path:
    return home / ".gemini" / "settings.json"


def _handler(hook: HookCommand) -> dict[str, Any]:
    return {"name": HOOK_NAME, "type": "command", "command": hook.shell, "timeout": TIMEOUT_MS}


class _Gemini(JsonHooksHarness):
    def notes(self, current: str) -> list[str]:
        config = self._parse(current).value.get("hooksConfig")
        if not isinstance(config, dict):
            return []
        notes = []
        if config.get("enabled") is False:
            notes.append("hooks are switched off here (hooksConfig.enabled is false)")
        if HOOK_NAME in (config.get("disabled") or []):
            notes.append(f"{HOOK_NAME} is listed in hooksConfig.disabled")
        return notes


HARNESS = _Gemini(
    name="gemini-cli",
    events=("SessionEnd", "PreCompress"),
    paths={"project": _project, "user": _user},
    handler=_handler,
    comments=True,
)
