"""How each harness asks for context, and the exact form of the answer it reads.

One entry per harness, written from its documentation (sources in ``okf/wiki/delivery.md``):

- ``claude-code``: command hooks on ``SessionStart`` (input ``source``: startup, resume, clear or
  compact) and ``UserPromptSubmit`` (input ``prompt``). On exit 0 a JSON object on standard
  output with ``hookSpecificOutput: {hookEventName, additionalContext}`` adds the string to the
  model's context; a string over 10,000 characters is cut to a preview, so answers stay far
  below it.
- ``codex``: the same events and the same object; Codex validates it against its generated
  output schemas, which refuse unknown keys, so nothing else is printed. ``PreCompact`` only
  marks a compaction.
- ``gemini-cli``: ``SessionStart`` (``source``: startup, resume, clear) and ``BeforeAgent``
  (``prompt``), with ``hookSpecificOutput: {hookEventName, additionalContext}``; standard output
  must hold nothing but that JSON. Gemini CLI escapes ``<`` and ``>`` in the string, so the
  framing uses neither. ``PreCompress`` only marks a compaction.
- ``opencode``: the plugin's ``chat.message`` hook asks with the message's text and adds the
  answer to the message as a synthetic text part (``{"additionalContext"}`` here is the
  plugin's own contract with this hook); ``session.compacted`` marks a compaction.

An event not listed is answered with nothing.
"""

from __future__ import annotations

from gitstore.deliver.jsonlite import dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

START = "start"
PROMPT = "prompt"
COMPACTION = "compaction"


class Surface:
    """One harness: which events mean what, and how the answer is written."""

    __slots__ = ("name", "events", "resets", "envelope")

    def __init__(self, name: str, events: dict[str, str], resets: frozenset[str], envelope: str) -> None:
        self.name = name
        self.events = events  # hook_event_name -> START | PROMPT | COMPACTION
        self.resets = resets  # SessionStart sources after which the context is gone
        self.envelope = envelope  # "hook-specific" or "plugin"

    def kind(self, payload: dict[str, Any]) -> str | None:
        event = payload.get("hook_event_name")
        return self.events.get(event) if isinstance(event, str) else None

    def resets_context(self, payload: dict[str, Any]) -> bool:
        return self.kind(payload) == COMPACTION or (
            self.kind(payload) == START and payload.get("source") in self.resets)

    def event_of(self, kind: str) -> str:
        """The harness's name for an event of this kind (the first listed)."""
        return next(event for event, k in self.events.items() if k == kind)

    def render(self, event: str, context: str) -> str:
        """The exact standard output the harness reads: one line of JSON."""
        if self.envelope == "plugin":
            answer: dict[str, Any] = {"additionalContext": context}
        else:
            answer = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
        return dumps(answer) + "\n"


SURFACES: dict[str, Surface] = {
    s.name: s for s in (
        Surface("claude-code", {"SessionStart": START, "UserPromptSubmit": PROMPT},
                frozenset({"compact", "clear"}), "hook-specific"),
        Surface("codex", {"SessionStart": START, "UserPromptSubmit": PROMPT, "PreCompact": COMPACTION},
                frozenset({"compact", "clear"}), "hook-specific"),
        Surface("gemini-cli", {"SessionStart": START, "BeforeAgent": PROMPT, "PreCompress": COMPACTION},
                frozenset({"clear"}), "hook-specific"),
        Surface("opencode", {"chat.message": PROMPT, "session.compacted": COMPACTION},
                frozenset(), "plugin"),
    )
}
