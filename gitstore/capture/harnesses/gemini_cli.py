"""Gemini CLI: command hooks in ``settings.json``: capture on ``SessionEnd`` and ``PreCompress``,
context on ``SessionStart``, ``BeforeAgent`` and ``PreCompress``.

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
  hook names not to run; the project's settings override the user's. Project hooks are
  fingerprinted by name and command: a change makes the CLI warn before running them. The
  handler is named ``gitstore-capture``.
- Context (``gitstore.deliver.hook``, handler ``gitstore-context``, timeout 10,000 ms):
  ``SessionStart`` (``source``: startup, resume, clear) and ``BeforeAgent`` (``prompt``) read
  ``hookSpecificOutput.additionalContext`` from the JSON on standard output (the first as the
  first turn, or before the prompt when not interactive; the second appended to the prompt for
  that turn); ``PreCompress`` is advisory and only tells the hook that the history is being
  compressed.
- The CLI's settings loader strips comments before parsing (``packages/cli/src/config/
  settings.ts``; a code fact, not a documented one), so comments are accepted and kept here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gitstore.errors import UsageError
from gitstore.capture.harnesses._command import MODULE, HookCommand
from gitstore.capture.harnesses._jsonhooks import JsonHooksHarness
from gitstore.capture.harnesses._switch import Verdict

HOOK_NAME = "gitstore-capture"
CONTEXT_NAME = "gitstore-context"
TIMEOUT_MS = 30_000
CONTEXT_TIMEOUT_MS = 10_000


def _project(repo_root: Path | None, home: Path) -> Path:
    if repo_root is None:
        raise UsageError("the project scope needs a git repository")
    return repo_root / ".gemini" / "settings.json"


def _user(repo_root: Path | None, home: Path) -> Path:
    return home / ".gemini" / "settings.json"


def _handler(hook: HookCommand) -> dict[str, Any]:
    if hook.module == MODULE:
        return {"name": HOOK_NAME, "type": "command", "command": hook.shell, "timeout": TIMEOUT_MS}
    return {"name": CONTEXT_NAME, "type": "command", "command": hook.shell, "timeout": CONTEXT_TIMEOUT_MS}


def _settings(repo_root: Path | None, home: Path) -> list[Path]:
    """The user's settings, then the project's, which override them."""
    return [_user(repo_root, home), *([_project(repo_root, home)] if repo_root else [])]


class _Gemini(JsonHooksHarness):
    def notes(self, current: str) -> list[str]:
        config = self._parse(current).value.get("hooksConfig")
        if not isinstance(config, dict):
            return []
        notes = []
        if config.get("enabled") is False:
            notes.append("hooks are switched off here (hooksConfig.enabled is false)")
        for name in (HOOK_NAME, CONTEXT_NAME):
            if name in (config.get("disabled") or []):
                notes.append(f"{name} is listed in hooksConfig.disabled")
        return notes

    def says(self, current: str) -> Verdict:
        config = self._parse(current).value.get("hooksConfig")
        if not isinstance(config, dict):
            return None
        if HOOK_NAME in (config.get("disabled") or []):
            return False, f"{HOOK_NAME} is listed in hooksConfig.disabled"
        enabled = config.get("enabled")
        return (enabled, f"hooksConfig.enabled is {str(enabled).lower()}") if isinstance(enabled, bool) else None


HARNESS = _Gemini(
    name="gemini-cli",
    events=("SessionEnd", "PreCompress"),
    paths={"project": _project, "user": _user},
    handler=_handler,
    comments=True,
    context_events=("SessionStart", "BeforeAgent", "PreCompress"),
    settings=_settings,
)
