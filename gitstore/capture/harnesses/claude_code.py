"""Claude Code: command hooks in a ``settings.json`` file: capture on ``SessionEnd`` and
``PreCompact``, context on ``SessionStart`` and ``UserPromptSubmit``.

What the documentation says, and what this adapter follows (sources: the Claude Code hooks
reference at docs.claude.com/docs/claude-code/hooks, read in its Japanese and German editions,
and the ``CHANGELOG.md`` of anthropics/claude-code):

- Hooks live in settings files: ``~/.claude/settings.json`` (user), ``.claude/settings.json``
  (project, shared through git) and ``.claude/settings.local.json`` (project, not committed).
  The project scope here writes ``settings.local.json``: the command names this machine's Python.
- Layout: ``"hooks"`` maps an event name to a list of matcher groups; a group has ``matcher``
  (optional; left out, it matches everything) and ``hooks``, a list of handlers
  ``{"type": "command", "command": <shell command>, "timeout": <seconds>}``.
- Events: ``SessionEnd`` (added in a 1.0 release, per the changelog) and ``PreCompact``. A
  ``PreCompact`` hook that exits with code 2 blocks compaction; ``gitstore.capture.agent_hook`` always exits 0.
- Input: a JSON object on standard input with ``session_id``, ``transcript_path``, ``cwd`` and
  ``hook_event_name``, plus fields of the event (``PreCompact`` adds ``trigger``: manual or auto).
- Output: on exit 0 the standard output of some events reaches the transcript or the model, so
  the capture hook writes nothing there. Older releases cut ``SessionEnd`` hooks off after 1.5 s
  on exit; the changelog records the fix and the ``CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS``
  variable.
- Context (``gitstore.deliver.hook``): ``SessionStart`` (``source``: startup, resume, clear or
  compact) and ``UserPromptSubmit`` (``prompt``) add ``hookSpecificOutput.additionalContext``
  from a JSON object on standard output to the model's context. The handler's ``timeout`` is
  10 s; the hook answers within 5 s or prints nothing.
- ``"disableAllHooks": true`` in a settings file switches every hook off; the local project file
  overrides the shared one, which overrides the user's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gitstore.errors import UsageError
from gitstore.capture.harnesses._command import MODULE, HookCommand
from gitstore.capture.harnesses._jsonhooks import JsonHooksHarness
from gitstore.capture.harnesses._switch import Verdict

TIMEOUT_SECONDS = 30
CONTEXT_TIMEOUT_SECONDS = 10


def _project(repo_root: Path | None, home: Path) -> Path:
    if repo_root is None:
        raise UsageError("the project scope needs a git repository")
    return repo_root / ".claude" / "settings.local.json"


def _user(repo_root: Path | None, home: Path) -> Path:
    return home / ".claude" / "settings.json"


def _settings(repo_root: Path | None, home: Path) -> list[Path]:
    project = [repo_root / ".claude" / name for name in ("settings.json", "settings.local.json")] if repo_root else []
    return [_user(repo_root, home), *project]


def _handler(hook: HookCommand) -> dict[str, Any]:
    timeout = TIMEOUT_SECONDS if hook.module == MODULE else CONTEXT_TIMEOUT_SECONDS
    return {"type": "command", "command": hook.shell, "timeout": timeout}


class _ClaudeCode(JsonHooksHarness):
    def says(self, current: str) -> Verdict:
        switch = self._parse(current).value.get("disableAllHooks")
        return (not switch, f"disableAllHooks is {str(switch).lower()}") if isinstance(switch, bool) else None


HARNESS = _ClaudeCode(
    name="claude-code",
    events=("SessionEnd", "PreCompact"),
    paths={"project": _project, "user": _user},
    handler=_handler,
    context_events=("SessionStart", "UserPromptSubmit"),
    settings=_settings,
)
