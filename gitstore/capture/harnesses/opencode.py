"""OpenCode: a local plugin file that hands ``session.idle`` and ``session.compacted`` to capture,
and asks the context hook on ``chat.message``.

What the documentation says, and what this adapter follows (source: the OpenCode "Plugins" page,
opencode.ai/docs/plugins, ``packages/web/src/content/docs/plugins.mdx`` in sst/opencode):

- JavaScript or TypeScript files in ``.opencode/plugins/`` (project) and
  ``~/.config/opencode/plugins/`` (global) are loaded at startup; older releases documented the
  singular ``plugin/`` folders. gitstore writes ``gitstore.js`` into the plural folder.
- A plugin module exports async functions that receive ``{ project, client, $, directory,
  worktree }`` and return hooks; the ``event`` hook receives ``{ event }`` for every event, whose
  ``type`` names it. The session events include ``session.idle`` and ``session.compacted``.
- The plugin (``hooks/opencode/gitstore.js``, shipped in the package as ``gitstore/_hooks``)
  spawns ``<python> -m gitstore.capture.agent_hook opencode`` detached, writes ``{hook_event_name, session_id,
  cwd, worktree, event}`` to its standard input (the event verbatim, and beside it its type, its
  ``properties.sessionID`` and the plugin's ``directory``), and does not wait. Two things here
  are not on the OpenCode page: that session events carry ``properties.sessionID`` (the SDK's
  event types), and that its runtime (Bun) honours ``node:child_process`` with ``detached`` and
  ``unref`` (Bun's Node compatibility).

- Context: the ``chat.message`` hook, ``(input: {sessionID, messageID?, ...}, output: {message,
  parts})`` in ``@opencode-ai/plugin``'s ``Hooks`` type, runs ``<python> -m gitstore.deliver.hook
  opencode`` with ``{hook_event_name: "chat.message", session_id, cwd, prompt}`` (the message's
  own text parts), waits at most 8 s, and pushes the answer onto ``output.parts`` as a text part
  shaped as the SDK's ``TextPart`` (``id``, ``sessionID``, ``messageID``, ``type: "text"``,
  ``text``, ``synthetic: true``). ``session.compacted`` is also handed to the context hook.
  That a part pushed there reaches the model is what OpenCode's memory plugins rely on; the
  OpenCode page documents the hook list, not this effect.

The whole file is gitstore's: it is written only where no file or gitstore's own stands, and
removed whole.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from gitstore import _jsontext
from gitstore.errors import InvalidInput, Refused, UsageError
from gitstore.capture.harnesses._command import HookCommand

MARKER = "gitstore:managed"
_PYTHON_LINE = re.compile(r'^const PYTHON = (".*") // gitstore:python$', re.M)


def template() -> str:
    """The plugin as shipped: in the installed package, else in the source tree's hooks/."""
    from importlib import resources  # installing only: every capture imports this module

    packaged = resources.files("gitstore") / "_hooks" / "opencode" / "gitstore.js"
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    return (Path(__file__).resolve().parents[3] / "hooks" / "opencode" / "gitstore.js").read_text(encoding="utf-8")


class OpenCode:
    name = "opencode"
    harness = "opencode"
    refusals: dict[str, str] = {}
    review: tuple[str, str] | None = None

    @property
    def scopes(self) -> tuple[str, ...]:
        return ("project", "user")

    def path(self, scope: str, repo_root: Path | None, home: Path) -> Path:
        if scope == "user":
            return home / ".config" / "opencode" / "plugins" / "gitstore.js"
        if repo_root is None:
            raise UsageError("the project scope needs a git repository")
        return repo_root / ".opencode" / "plugins" / "gitstore.js"

    def merged(self, current: str | None, hook: HookCommand) -> str:
        if current is not None and MARKER not in current:
            raise Refused("a plugin that is not gitstore's stands at this path")
        text, count = _PYTHON_LINE.subn(lambda _: f"const PYTHON = {json.dumps(hook.python)} // gitstore:python",
                                        template(), count=1)
        if count != 1:
            raise InvalidInput("the shipped OpenCode plugin has no `// gitstore:python` line")
        return text

    def stripped(self, current: str) -> str | None:
        return None if MARKER in current else current

    def commands(self, current: str) -> list[list[str]]:
        match = _PYTHON_LINE.search(current) if MARKER in current else None
        if not match:
            return []
        hook = HookCommand(_jsontext.loads(match.group(1)), self.name)
        return [hook.argv, hook.context().argv]

    def notes(self, current: str) -> list[str]:
        return []

    def altered(self, current: str) -> str | None:
        """Why the plugin is not the one ``merged`` writes for the Python it names: its code runs
        at every session of OpenCode, and a commit adding the file (git checks a tracked file out
        over an ignored one without a word) or a hand edit can make it run anything, keeping the
        lines ``commands`` reads."""
        match = _PYTHON_LINE.search(current) if MARKER in current else None
        if match is None:
            return None
        try:
            shipped = self.merged(None, HookCommand(_jsontext.loads(match.group(1)), self.name))
        except (ValueError, InvalidInput):
            return None
        if current == shipped:
            return None
        return ("its code is not the plugin this gitstore ships (changed by hand or by a commit, or written by "
                "another version of gitstore): read what it runs")

    def switched_off(self, repo_root: Path | None, home: Path) -> str | None:
        return None  # a plugin file is loaded whenever it is there

    def unloaded(self, scope: str, repo_root: Path | None, home: Path) -> tuple[str, str] | None:
        return None


HARNESS = OpenCode()
