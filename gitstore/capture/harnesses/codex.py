"""Codex CLI: lifecycle hooks in ``config.toml`` (``codex``), or the legacy ``notify`` program
(``codex-notify``).

What the documentation says, and what these adapters follow (sources: the Codex docs pages
"Hooks" and "Advanced configuration" at developers.openai.com/codex, in their dated copies,
openai/codex ``docs/config.md`` and the generated input schemas in
``codex-rs/hooks/schema/generated/``):

Hooks (``codex``)

- Codex reads hooks from ``hooks.json`` or from inline ``[hooks]`` tables in ``config.toml``, in
  every active config layer: ``$CODEX_HOME/`` for the user (``~/.codex/`` when it is not set),
  where the user scope installs too, and ``<repo>/.codex/`` for a project.
  Project layers load only when the project is trusted: the user's config (``$CODEX_HOME/
  config.toml``, ``~/.codex/config.toml`` by default) has ``[projects."<absolute path>"]`` with
  ``trust_level = "trusted"`` for the folder Codex starts in or for the root of its git project
  (the main work tree, so linked worktrees inherit it); Codex writes that table when the user
  answers its trust prompt. Status calls a project hook in an untrusted folder not working, and
  says how to trust it; gitstore never trusts a folder for the user.
- Hooks that are not managed by an admin must also be reviewed and trusted in Codex (its
  ``/hooks``) before they run, in either scope. Codex keeps that trust per hook, keyed on a hash
  of the hook, so a changed hook (installed again with another Python) needs trusting again.
  Codex records that trust in its own ``[hooks.state]`` table of the user's config, keyed and
  hashed in a way its documentation does not give (and that changed between releases), so
  gitstore does not compute the hash and cannot tell a trusted hook from an untrusted one:
  install says to trust the hooks in ``/hooks``, and status says what it knows, installed and
  trust not readable, never that they work nor that they still need trusting.
- A layer with both forms loads both and warns, so gitstore writes the TOML form only.
- Inline layout, the same as ``hooks.json``: ``[[hooks.<Event>]]`` is a group with an optional
  ``matcher``; ``[[hooks.<Event>.hooks]]`` is a handler with ``type = "command"``, ``command``,
  ``timeout`` and ``statusMessage``. The command runs in a shell.
- Events used: ``Stop`` (turn scope: input ``session_id``, ``turn_id``, ``transcript_path``,
  ``cwd``, ``hook_event_name``, ``model``, ``permission_mode``, ``stop_hook_active``,
  ``last_assistant_message``) and ``PreCompact`` (input ``session_id``, ``turn_id``,
  ``transcript_path``, ``cwd``, ``hook_event_name``, ``model``, ``trigger``: manual or auto).
  Codex has no session-end event. Each goes to the command as JSON on standard input.
- Context (``gitstore.deliver.hook``): ``SessionStart`` (input ``source``: startup, resume,
  clear, and compact in later releases) and ``UserPromptSubmit`` (input ``prompt``) read a JSON
  object on standard output, ``{"hookSpecificOutput": {"hookEventName", "additionalContext"}}``,
  checked against the generated output schemas in ``codex-rs/hooks/schema/generated/``, which
  refuse unknown keys. ``PreCompact`` also runs the context hook, which only notes that the
  conversation is being compacted. Handlers have ``timeout = 10`` and a ``statusMessage``.
- Hooks were first behind ``[features] codex_hooks = true`` and are on by default in later
  releases (``hooks = false`` turns them off; a project layer overrides the user's). gitstore
  does not change ``[features]``; status says when the settings switch hooks off.

Notify (``codex-notify``)

- ``notify`` is a root key of ``$CODEX_HOME/config.toml`` (``~/.codex`` by default): an array, the
  program and its arguments. Codex runs it once per finished turn, fire and forget, with one more
  argument: a JSON object with ``type`` (always ``agent-turn-complete``), ``thread-id``,
  ``turn-id``, ``cwd``, ``input-messages`` and ``last-assistant-message``.
- The documentation places ``notify`` in the user's config only, so the project scope is refused.
  A ``notify`` that already names another program is never replaced.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from gitstore.errors import InvalidInput, Refused, UsageError
from gitstore.capture.harnesses import _tomlblock as block
from gitstore.capture.harnesses._command import HookCommand
from gitstore.capture.harnesses._jsonhooks import OUR_COMMAND
from gitstore.capture.harnesses._switch import Verdict, switched_off

EVENTS = ("Stop", "PreCompact")
CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact")
TIMEOUT_SECONDS = 30
CONTEXT_TIMEOUT_SECONDS = 10
CONTEXT_STATUS = "gitstore: recalling accepted learnings"
_HOOKS_LABEL = "codex hooks"
REVIEW = ("Codex runs a hook no admin manages only once it is trusted in Codex's /hooks, and gitstore "
          "cannot read whether these are (Codex keeps trust per hook, under a hash of the hook it does not "
          "document: a changed hook needs trusting again)",
          "in Codex, open /hooks and trust gitstore's hooks unless it lists them as trusted (again after an install "
          "that changes them)")
_NOTIFY_LABEL = "codex notify"


def _project(repo_root: Path | None, home: Path) -> Path:
    if repo_root is None:
        raise UsageError("the project scope needs a git repository")
    return repo_root / ".codex" / "config.toml"


def _user(repo_root: Path | None, home: Path) -> Path:
    """The configuration Codex itself reads for the user: ``$CODEX_HOME/config.toml``, else
    ``~/.codex/config.toml``."""
    codex_home = os.environ.get("CODEX_HOME")
    return (Path(codex_home) if codex_home else home / ".codex") / "config.toml"


def _main_work_tree(repo_root: Path) -> Path:
    """The root Codex checks trust for besides the folder itself: for a linked worktree (``.git``
    is a file naming its git dir), the main work tree, the parent of the common git dir."""
    dot_git = repo_root / ".git"
    try:
        gitdir = Path(dot_git.read_text(encoding="utf-8").removeprefix("gitdir:").strip())
        gitdir = gitdir if gitdir.is_absolute() else repo_root / gitdir
        common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
        return common.parent
    except (OSError, UnicodeDecodeError):
        return repo_root


def _trust_level(projects: Any, folder: Path) -> Any:
    for key, table in projects.items() if isinstance(projects, dict) else ():
        if isinstance(table, dict) and os.path.realpath(key) == os.path.realpath(folder):
            return table.get("trust_level")
    return None


def untrusted(repo_root: Path, home: Path) -> tuple[str, str] | None:
    """Why Codex would not load the repository's ``.codex/`` layer (it is not a trusted project),
    and what to do; None when the user's config trusts it."""
    config = _user(repo_root, home)
    try:
        projects = block.load(config.read_text(encoding="utf-8")).get("projects")
    except (OSError, UnicodeDecodeError, InvalidInput):
        projects = None
    folders = dict.fromkeys([repo_root, _main_work_tree(repo_root)])
    levels = [_trust_level(projects, folder) for folder in folders]
    if "trusted" in levels:
        return None
    said = "marks it untrusted" if "untrusted" in levels else "does not trust it"
    return (f"Codex loads {repo_root / '.codex'}/ only in a trusted project, and {config} {said}",
            f'trust this folder in Codex: answer yes to its trust prompt when it starts here, or add '
            f'[projects."{_main_work_tree(repo_root)}"] with trust_level = "trusted" to {config}')


def _toml(value: Any) -> str:
    """A TOML value for a string or a list of strings (JSON's escapes are TOML's)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _newline(text: str | None) -> str:
    return "\r\n" if text and "\r\n" in text else "\n"


def _our_commands(data: dict[str, Any]) -> list[str]:
    hooks = data.get("hooks")
    found = []
    for event, groups in (hooks.items() if isinstance(hooks, dict) else []):
        for group in groups if event != "state" and isinstance(groups, list) else []:
            for handler in group.get("hooks", []) if isinstance(group, dict) else []:
                command = handler.get("command") if isinstance(handler, dict) else None
                if isinstance(command, str) and OUR_COMMAND.search(command):
                    found.append(command)
    return found


def _features_note(data: dict[str, Any]) -> list[str]:
    verdict = _features(data)
    return [f"hooks are switched off here ({verdict[1]})"] if verdict and not verdict[0] else []


def _features(data: dict[str, Any]) -> Verdict:
    """What ``[features]`` says about hooks: ``hooks`` (or the older ``codex_hooks``)."""
    features = data.get("features")
    if not isinstance(features, dict):
        return None
    for key in ("hooks", "codex_hooks"):
        if isinstance(features.get(key), bool):
            return features[key], f"[features] {key} is {str(features[key]).lower()}"
    return None


def _tables(event: str, lines: list[str]) -> list[str]:
    return ["", f"[[hooks.{event}]]", "", f"[[hooks.{event}.hooks]]", 'type = "command"', *lines]


def _hook_tables(hook: HookCommand) -> list[str]:
    """gitstore's inline hook tables: capture on each capture event, context on each context event."""
    body: list[str] = []
    for event in EVENTS:
        body += _tables(event, [f"command = {_toml(hook.shell)}", f"timeout = {TIMEOUT_SECONDS}"])
    for event in CONTEXT_EVENTS:
        body += _tables(event, [f"command = {_toml(hook.context().shell)}", f"timeout = {CONTEXT_TIMEOUT_SECONDS}",
                                f"statusMessage = {_toml(CONTEXT_STATUS)}"])
    return body


class CodexHooks:
    """Capture (``Stop``, ``PreCompact``) and context (``SessionStart``, ``UserPromptSubmit``,
    ``PreCompact``) command hooks as inline tables at the end of config.toml."""

    name = "codex"
    harness = "codex"
    refusals: dict[str, str] = {}
    review: tuple[str, str] | None = REVIEW

    @property
    def scopes(self) -> tuple[str, ...]:
        return ("project", "user")

    def path(self, scope: str, repo_root: Path | None, home: Path) -> Path:
        return _project(repo_root, home) if scope == "project" else _user(repo_root, home)

    def merged(self, current: str | None, hook: HookCommand) -> str:
        text = current or ""
        block.load(text)
        body = _hook_tables(hook)
        context = hook.context().shell
        nl = _newline(current)
        result = block.put(text, _HOOKS_LABEL, block.render(_HOOKS_LABEL, body, nl), top=False)
        try:
            data = block.load(result)
        except InvalidInput as exc:
            raise InvalidInput(f"adding the gitstore hooks would break the file: {exc}") from None
        found = _our_commands(data)
        if found.count(hook.shell) != len(EVENTS) or found.count(context) != len(CONTEXT_EVENTS):
            raise InvalidInput("adding the gitstore hooks would not give each of their events its hook")
        return result

    def stripped(self, current: str) -> str | None:
        block.load(current)
        text = block.take(current, _HOOKS_LABEL, top=False)
        if _our_commands(block.load(text)):
            raise Refused("gitstore hooks stand outside the gitstore block; remove them by hand")
        return text

    def commands(self, current: str) -> list[str]:
        return _our_commands(block.load(current))

    def notes(self, current: str) -> list[str]:
        return _features_note(block.load(current))

    def altered(self, current: str) -> str | None:
        return None  # gitstore's tables are their commands, which are checked as they are

    def switched_off(self, repo_root: Path | None, home: Path) -> str | None:
        files = [_user(repo_root, home), *([_project(repo_root, home)] if repo_root else [])]
        return switched_off(files, lambda text: _features(block.load(text)))

    def unloaded(self, scope: str, repo_root: Path | None, home: Path) -> tuple[str, str] | None:
        return untrusted(repo_root, home) if scope == "project" and repo_root is not None else None


class CodexNotify:
    """The legacy ``notify`` program, a root key at the top of the user's config.toml."""

    name = "codex-notify"
    harness = "codex"
    refusals: dict[str, str] = {"project": "Codex documents `notify` in the user's config.toml only; use --scope user"}
    review: tuple[str, str] | None = None  # a program Codex runs, not a hook it asks to trust

    @property
    def scopes(self) -> tuple[str, ...]:
        return ("user",)

    def path(self, scope: str, repo_root: Path | None, home: Path) -> Path:
        return _user(repo_root, home)

    def merged(self, current: str | None, hook: HookCommand) -> str:
        text = current or ""
        data = block.load(text)
        if block.find(text, _NOTIFY_LABEL) is None and "notify" in data:
            raise Refused(f"notify already runs {data['notify']!r}; gitstore will not replace it "
                          "(remove it, or use --harness codex)")
        argv = HookCommand(hook.python, self.harness).argv
        rendered = block.render(_NOTIFY_LABEL, [f"notify = {_toml(argv)}"], _newline(current))
        result = block.put(text, _NOTIFY_LABEL, rendered, top=True)
        if block.load(result).get("notify") != argv:
            raise InvalidInput("adding notify would not set it: the gitstore block is not at the top level")
        return result

    def stripped(self, current: str) -> str | None:
        block.load(current)
        text = block.take(current, _NOTIFY_LABEL, top=True)
        return text

    def commands(self, current: str) -> list[list[str]]:
        notify = block.load(current).get("notify")
        if block.find(current, _NOTIFY_LABEL) is None or not isinstance(notify, list):
            return []
        ours = OUR_COMMAND.search(" ".join(str(part) for part in notify[1:4]))
        return [notify] if ours else []

    def notes(self, current: str) -> list[str]:
        return []

    def altered(self, current: str) -> str | None:
        return None  # the notify command is all gitstore's entry holds, and it is checked as it is

    def switched_off(self, repo_root: Path | None, home: Path) -> str | None:
        return None  # notify is a program Codex runs, not a hook it can switch off

    def unloaded(self, scope: str, repo_root: Path | None, home: Path) -> tuple[str, str] | None:
        return None  # the user's config.toml is always loaded


HOOKS = CodexHooks()
NOTIFY = CodexNotify()
