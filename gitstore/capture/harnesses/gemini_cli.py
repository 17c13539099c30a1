"""Gemini CLI: command hooks in ``settings.json``: capture on ``SessionEnd`` and ``PreCompress``,
context on ``SessionStart``, ``BeforeAgent`` and ``PreCompress``.

What the documentation says, and what this adapter follows (sources: google-gemini/gemini-cli
``docs/hooks/index.md``, ``docs/hooks/reference.md`` and ``schemas/settings.schema.json``):

- Hooks live in ``settings.json``: ``.gemini/settings.json`` in the project, ``~/.gemini/
  settings.json`` for the user (``$GEMINI_CLI_HOME/.gemini/settings.json`` when that is set,
  where the user scope installs too), and system files under ``/etc/gemini-cli/``, not touched
  here.
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

Trusted folders (``docs/cli/trusted-folders.md``, ``docs/reference/configuration.md``,
``packages/core/src/utils/trust.ts``):

- With folder trust on, the CLI ignores a project's ``.gemini/settings.json`` (and with it the
  project hooks) in a folder that is not trusted. ``security.folderTrust.enabled`` switches it,
  read from the system defaults, the user's settings and the system settings, the later
  overriding the earlier (never from the project's). The reference gives its default as true,
  as the code has since v0.29.0; the trusted-folders page still says it is off by default.
  Status follows the code: no setting means on.
- The rules are ``~/.gemini/trustedFolders.json`` (``$GEMINI_CLI_TRUSTED_FOLDERS_PATH`` when
  set; ``~/.gemini`` is ``$GEMINI_CLI_HOME/.gemini`` when that is set): an object mapping a path
  to ``TRUST_FOLDER`` (that folder and everything in it), ``TRUST_PARENT`` (the path's parent
  and everything in it) or ``DO_NOT_TRUST``; the rule with the longest path that holds the
  folder decides, and a folder no rule holds is not trusted. The CLI writes a rule when the user
  answers its trust dialog (or ``/permissions``). An invalid rules file stops the CLI at start
  while folder trust is on. An IDE's trust signal, ``--skip-trust`` and
  ``GEMINI_CLI_TRUST_WORKSPACE`` decide per session and are not seen here. Status calls a
  project hook in an untrusted folder not working and says how to trust it; gitstore never
  trusts a folder for the user.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from gitstore.errors import InvalidInput, UsageError
from gitstore.capture.harnesses._command import MODULE, HookCommand
from gitstore.capture.harnesses._jsonedit import JsonEditError, parse
from gitstore.capture.harnesses._jsonhooks import JsonHooksHarness
from gitstore.capture.harnesses._switch import Verdict

HOOK_NAME = "gitstore-capture"
CONTEXT_NAME = "gitstore-context"
TIMEOUT_MS = 30_000
CONTEXT_TIMEOUT_MS = 10_000
TRUST_LEVELS = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")
_SYSTEM_SETTINGS = {"darwin": "/Library/Application Support/GeminiCli/settings.json",
                    "win32": "C:\\ProgramData\\gemini-cli\\settings.json"}


def _project(repo_root: Path | None, home: Path) -> Path:
    if repo_root is None:
        raise UsageError("the project scope needs a git repository")
    return repo_root / ".gemini" / "settings.json"


def _user(repo_root: Path | None, home: Path) -> Path:
    """The user's settings the CLI reads: in ``$GEMINI_CLI_HOME/.gemini`` when that is set."""
    return _gemini_home(home) / "settings.json"


def _handler(hook: HookCommand) -> dict[str, Any]:
    if hook.module == MODULE:
        return {"name": HOOK_NAME, "type": "command", "command": hook.shell, "timeout": TIMEOUT_MS}
    return {"name": CONTEXT_NAME, "type": "command", "command": hook.shell, "timeout": CONTEXT_TIMEOUT_MS}


def _settings(repo_root: Path | None, home: Path) -> list[Path]:
    """The user's settings, then the project's, which override them."""
    return [_user(repo_root, home), *([_project(repo_root, home)] if repo_root else [])]


def _gemini_home(home: Path) -> Path:
    """The CLI's own folder for the user: ``$GEMINI_CLI_HOME/.gemini``, else ``~/.gemini``."""
    return Path(os.environ.get("GEMINI_CLI_HOME") or home) / ".gemini"


def _trust_file(home: Path) -> Path:
    return Path(os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or _gemini_home(home) / "trustedFolders.json")


def _trust_settings(home: Path) -> list[Path]:
    """Where the CLI reads whether folder trust is on, lowest precedence first."""
    system = Path(os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
                  or _SYSTEM_SETTINGS.get(sys.platform, "/etc/gemini-cli/settings.json"))
    defaults = Path(os.environ.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or system.parent / "system-defaults.json")
    return [defaults, _gemini_home(home) / "settings.json", system]


def _json_object(path: Path) -> dict[str, Any]:
    """The JSON object in PATH (comments allowed); InvalidInput when it is not one."""
    try:
        value = parse(path.read_text(encoding="utf-8"), comments=True).value
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read it ({getattr(exc, 'strerror', None) or exc})") from None
    except JsonEditError as exc:
        raise InvalidInput(f"not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise InvalidInput("not a JSON object")
    return value


def _setting(data: Any, *keys: str) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def folder_trust(home: Path) -> str | None:
    """Why folder trust is on (None when it is off): the last settings file that sets
    ``security.folderTrust.enabled``, else the default."""
    said = (True, "folder trust is on by default")
    for path in _trust_settings(home):
        try:
            trust = _setting(_json_object(path), "security", "folderTrust", "enabled")
        except InvalidInput:
            continue
        if isinstance(trust, bool):
            said = (trust, f"security.folderTrust.enabled is {str(trust).lower()} in {path}")
    return said[1] if said[0] else None


def _rules(path: Path) -> dict[str, str]:
    """The trust rules, as the CLI loads them; InvalidInput where it refuses the file."""
    if not path.exists():
        return {}
    rules = _json_object(path)
    for folder, level in rules.items():
        if level not in TRUST_LEVELS:
            raise InvalidInput(f"{level!r} for {folder!r} is not one of {', '.join(TRUST_LEVELS)}")
    return rules


def _holds(folder: str, inside: str) -> bool:
    try:
        return os.path.commonpath([folder, inside]) == folder
    except ValueError:  # on different drives
        return False


def rule_for(rules: dict[str, str], folder: Path) -> tuple[str, str] | None:
    """The rule that decides for FOLDER: of those whose folder holds it (the parent, for
    ``TRUST_PARENT``), the one with the longest path; None when none does."""
    here, found = os.path.realpath(folder), None
    for path, level in rules.items():
        scope = os.path.realpath(os.path.dirname(path) if level == "TRUST_PARENT" else path)
        if _holds(scope, here) and (found is None or len(path) > len(found[0])):
            found = (path, level)
    return found


def untrusted(scope: str, repo_root: Path | None, home: Path) -> tuple[str, str] | None:
    """Why the CLI would not load the settings of SCOPE here (folder trust is on and the folder
    is not trusted, or the rules cannot be read), and what to do; None when it loads them."""
    on = folder_trust(home)
    if on is None:
        return None
    rules_file = _trust_file(home)
    try:
        rules = _rules(rules_file)
    except InvalidInput as exc:
        return (f"Gemini CLI does not start while folder trust is on ({on}) and {rules_file} is invalid: {exc}",
                f"repair {rules_file} by hand, or remove it and answer Gemini CLI's trust dialog again")
    if scope != "project" or repo_root is None:
        return None
    rule = rule_for(rules, repo_root)
    if rule is not None and rule[1] != "DO_NOT_TRUST":
        return None
    said = f'marks it untrusted ("{rule[0]}": "DO_NOT_TRUST")' if rule else "does not trust it"
    return (f"Gemini CLI loads {_project(repo_root, home)} only in a trusted folder ({on}), "
            f"and {rules_file} {said}",
            f'trust this folder in Gemini CLI: choose "Trust folder" in the dialog it shows when it starts '
            f'here (or in /permissions), or set "{repo_root}": "TRUST_FOLDER" in {rules_file}')


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

    def unloaded(self, scope: str, repo_root: Path | None, home: Path) -> tuple[str, str] | None:
        return untrusted(scope, repo_root, home)


HARNESS = _Gemini(
    name="gemini-cli",
    events=("SessionEnd", "PreCompress"),
    paths={"project": _project, "user": _user},
    handler=_handler,
    comments=True,
    context_events=("SessionStart", "BeforeAgent", "PreCompress"),
    settings=_settings,
)
