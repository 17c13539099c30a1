"""The shared shape of harnesses whose settings file holds ``hooks -> event -> [group]``.

Claude Code and Gemini CLI document the same layout: a ``hooks`` object maps an event name to
a list of groups, each group ``{"matcher"?: str, "hooks": [handler, ...]}`` and each handler
``{"type": "command", "command": str, "timeout"?: number, ...}``. gitstore adds one group per
capture event holding one handler that runs ``python -m gitstore.capture.agent_hook <harness>``,
and one group per context event holding one handler that runs ``python -m gitstore.deliver.hook
<harness>`` (an event with both gets both groups, capture first). A group is gitstore's when
every handler in it runs one of those modules, and only such groups are ever removed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from gitstore.errors import InvalidInput
from gitstore.capture.harnesses._command import HookCommand
from gitstore.capture.harnesses._jsonedit import JsonEditError, Node, append, parse, remove, remove_all
from gitstore.capture.harnesses._switch import Verdict, switched_off

# the capture hook's module (``gitstore.hook`` before it moved into the capture package)
OUR_COMMAND = re.compile(r"(?:^|\s)-m\s+gitstore\.(?:capture\.agent_hook|deliver\.hook|hook)(?:\s|$)")
NEW_DOCUMENT = "{\n}\n"


def is_our_handler(handler: Any) -> bool:
    return isinstance(handler, dict) and isinstance(handler.get("command"), str) \
        and bool(OUR_COMMAND.search(handler["command"]))


def is_our_group(group: Any) -> bool:
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(handlers, list) and bool(handlers) and all(map(is_our_handler, handlers))


class JsonHooksHarness(NamedTuple):
    """A harness configured through a JSON settings file with a ``hooks`` object."""

    name: str
    events: tuple[str, ...]
    paths: dict[str, Callable[[Path | None, Path], Path]]
    handler: Callable[[HookCommand], dict[str, Any]]
    comments: bool = False
    refusals: dict[str, str] = {}  # read only
    review: tuple[str, str] | None = None
    context_events: tuple[str, ...] = ()
    # every settings file the harness reads, lowest precedence first
    settings: Callable[[Path | None, Path], list[Path]] = lambda repo_root, home: []

    @property
    def harness(self) -> str:
        return self.name

    @property
    def scopes(self) -> tuple[str, ...]:
        return tuple(self.paths)

    def path(self, scope: str, repo_root: Path | None, home: Path) -> Path:
        return self.paths[scope](repo_root, home)

    def groups(self, hook: HookCommand) -> dict[str, list[dict[str, Any]]]:
        """gitstore's groups for each event: capture first, then context."""
        wanted: dict[str, list[dict[str, Any]]] = {}
        for event in self.events:
            wanted.setdefault(event, []).append({"hooks": [self.handler(hook)]})
        for event in self.context_events:
            wanted.setdefault(event, []).append({"hooks": [self.handler(hook.context())]})
        return wanted

    def merged(self, current: str | None, hook: HookCommand) -> str:
        text = NEW_DOCUMENT if current is None else current
        for event, groups in self.groups(hook).items():
            text = self._ensure(text, event, groups)
        return text

    def stripped(self, current: str) -> str | None:
        text = current
        while (found := self._find_ours(text)) is not None:
            text = self._remove_group(text, *found)
        return text

    def commands(self, current: str) -> list[str]:
        hooks = self._parse(current).value.get("hooks")
        if not isinstance(hooks, dict):
            return []
        return [h["command"] for groups in hooks.values() if isinstance(groups, list)
                for g in groups if is_our_group(g) for h in g["hooks"]]

    def notes(self, current: str) -> list[str]:
        verdict = self.says(current)
        return [f"hooks are switched off here ({verdict[1]})"] if verdict and not verdict[0] else []

    def says(self, current: str) -> Verdict:
        """What this settings file says about running hooks (nothing, by default)."""
        return None

    def altered(self, current: str) -> str | None:
        return None  # gitstore's entries are their commands, which are checked as they are

    def switched_off(self, repo_root: Path | None, home: Path) -> str | None:
        return switched_off(self.settings(repo_root, home), self.says)

    def unloaded(self, scope: str, repo_root: Path | None, home: Path) -> tuple[str, str] | None:
        return None  # the documented settings files load wherever the harness starts

    # -- editing -------------------------------------------------------------------------

    def _parse(self, text: str) -> Node:
        try:
            root = parse(text, comments=self.comments)
        except JsonEditError as exc:
            raise InvalidInput(f"not valid JSON: {exc}") from None
        if root.members is None:
            raise InvalidInput("the settings are not a JSON object")
        return root

    def _hooks(self, root: Node) -> Node | None:
        member = root.member("hooks")
        if member is None:
            return None
        if member.node.members is None:
            raise InvalidInput("'hooks' is not a JSON object")
        return member.node

    def _ensure(self, text: str, event: str, wanted: list[dict[str, Any]]) -> str:
        root = self._parse(text)
        hooks = self._hooks(root)
        if hooks is None:
            return append(text, root, root, {event: wanted}, key="hooks")
        member = hooks.member(event)
        if member is None:
            return append(text, root, hooks, wanted, key=event)
        groups = member.node
        if groups.items is None:
            raise InvalidInput(f"'hooks.{event}' is not a JSON array")
        ours = [n.value for n in groups.items if is_our_group(n.value)]
        if ours == wanted:
            return text
        if ours:  # every one at once, from this parse: a file can hold thousands
            text = remove_all(text, groups, [i for i, n in enumerate(groups.items) if is_our_group(n.value)])
            root = self._parse(text)
            groups = self._event_groups(root, event)
        for group in wanted:
            text = append(text, root, groups, group)
            root = self._parse(text)
            groups = self._event_groups(root, event)
        return text

    def _event_groups(self, root: Node, event: str) -> Node:
        hooks = self._hooks(root)
        member = hooks.member(event) if hooks else None
        assert member is not None
        return member.node

    def _find_ours(self, text: str) -> tuple[str, int] | None:
        hooks = self._hooks(self._parse(text))
        for member in hooks.members or [] if hooks else []:
            for index, node in enumerate(member.node.items or []):
                if is_our_group(node.value):
                    return member.key, index
        return None

    def _remove_group(self, text: str, event: str, index: int) -> str:
        text = remove(text, self._event_groups(self._parse(text), event), index)
        root = self._parse(text)
        hooks = self._hooks(root)
        assert hooks is not None and hooks.members is not None
        position = next(i for i, m in enumerate(hooks.members) if m.key == event)
        if hooks.members[position].node.items == []:
            text = remove(text, hooks, position)
            root = self._parse(text)
            hooks = self._hooks(root)
            assert hooks is not None and root.members is not None
            if not hooks.members:
                text = remove(text, root, next(i for i, m in enumerate(root.members) if m.key == "hooks"))
        return text
