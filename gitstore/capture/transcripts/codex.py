"""Codex CLI rollout JSONL (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Every line is ``{timestamp, type, payload}`` with type session_meta, turn_context,
response_item, event_msg or compacted; other types are counted as unknown. Older rollouts
(a bare ``{id, timestamp, instructions}`` header, then bare response items and
``record_type`` lines) are read the same way.

- ``response_item`` payloads are the conversation: ``message`` (user, assistant; developer
  messages and injected context such as ``<environment_context>`` become ``system`` turns),
  tool calls (function_call, custom_tool_call, local_shell_call, ...) attached to the
  current assistant turn, and their outputs as ``tool`` turns. Reasoning is left out. A
  payload type not listed here is counted as unknown (``response_item:<type>``).
- ``event_msg`` lines are read for what they add: exit codes (exec_command_end), applied
  patches (patch_apply_end), MCP results, and aborted turns (turn_aborted marks the calls
  still waiting for output as rejected). Their copies of user and agent messages are not
  turns, since the response items already carry them.
- ``compacted`` lines become ``summary`` turns.
- A call that asked for escalated permissions and never got output was declined: rejected.
- A command ``exec_command`` leaves running (``Process running with session ID N``) prints on
  in the outputs of the ``write_stdin`` calls naming that ``session_id``: each is read with
  the command, as the first output is (``Turn.answers``); the exit code one reports
  (``Process exited with code N``) is the command's result, which its first output is not.
- Turn keys are ``line:N``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gitstore.capture.transcripts._builder import Builder
from gitstore.capture.transcripts._model import Limits, Transcript
from gitstore.capture.transcripts._read import BAD, iso_time, lines, loads, text_of
from gitstore.capture.transcripts._tools import exit_code_in

HARNESS = "codex"
_CALLS = {
    "function_call": None,
    "custom_tool_call": None,
    "local_shell_call": "local_shell",
    "tool_call": None,
    "web_search_call": "web_search",
    "tool_search_call": "tool_search",
    "image_generation_call": "image_generation",
}
_OUTPUTS = frozenset({
    "function_call_output", "custom_tool_call_output", "local_shell_call_output", "tool_result",
    "tool_search_output",
})
_SELF_CONTAINED = frozenset({"web_search_call", "image_generation_call"})
_DECLINED = ("exec command rejected by user", "aborted by user", "patch rejected by user")
_SKIPPED_ITEMS = frozenset({"reasoning", "ghost_snapshot", "agent_message", "compaction", "compaction_summary"})
LEGACY_ITEMS = frozenset({
    "message", "reasoning", "function_call", "function_call_output", "local_shell_call", "custom_tool_call",
    "custom_tool_call_output",
})
# A command ``exec_command`` left running (unified exec): ``write_stdin`` calls with its
# ``session_id`` read what it prints next.
_RUNNING = re.compile(r"^Process running with session ID (\d+)", re.M)
_READERS = frozenset({"write_stdin"})
_OUTPUT_HEAD = "\nOutput:\n"
_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions instructions>")


def parse(path: Path, limits: Limits) -> Transcript:
    builder = Builder(HARNESS, path, limits)
    for number, raw in lines(path, limits.max_line_bytes):
        record = BAD if raw is None else loads(raw)
        kind, payload = _envelope(record)
        if kind is None or payload is None:
            builder.malformed()
            continue
        try:
            _record(builder, kind, payload, number, iso_time(record.get("timestamp")))
        except (TypeError, ValueError, AttributeError, KeyError, IndexError):
            builder.malformed()
    _escalations_declined(builder)
    return builder.finish()


def _envelope(record: Any) -> tuple[str | None, dict[str, Any] | None]:
    """``(type, payload)`` of a rollout line; older rollouts wrote a bare session header
    (``{id, timestamp, instructions}``), bare response items and ``{"record_type": ...}``."""
    if not isinstance(record, dict):
        return None, None
    kind, payload = record.get("type"), record.get("payload")
    if isinstance(kind, str) and isinstance(payload, dict):
        return kind, payload
    if "payload" in record:
        return None, None
    if isinstance(kind, str) and kind in LEGACY_ITEMS:
        return "response_item", record
    if kind is None and "record_type" in record:
        return "turn_context", {}
    if kind is None and isinstance(record.get("id"), str) and "instructions" in record:
        return "session_meta", record
    return None, None


def _record(builder: Builder, kind: str, payload: dict[str, Any], number: int, at: str | None) -> None:
    handler = _HANDLERS.get(kind)
    if handler is None:
        builder.unknown(kind, recognized=True)
        return
    outcome = handler(builder, payload, number, at)
    if outcome is True:
        builder.parsed()
        builder.span(at)
    elif outcome is False:
        builder.malformed()
    else:
        builder.unknown(f"{kind}:{outcome}", recognized=True)


def _session_meta(builder: Builder, payload: dict[str, Any], number: int, at: str | None) -> bool:
    builder.set("session", payload.get("id"))
    builder.set("cwd", payload.get("cwd"))
    builder.version(payload.get("cli_version"))
    git = payload.get("git")
    if isinstance(git, dict):
        builder.set("branch", git.get("branch"))
    builder.time(payload.get("timestamp"))
    return True


def _turn_context(builder: Builder, payload: dict[str, Any], number: int, at: str | None) -> bool:
    builder.set("cwd", payload.get("cwd"))
    return True


def _compacted(builder: Builder, payload: dict[str, Any], number: int, at: str | None) -> bool:
    message = payload.get("message")
    if isinstance(message, str) and message.strip():
        builder.add_text(builder.turn("summary", at, f"line:{number}"), message)
    return True


def _response_item(builder: Builder, payload: dict[str, Any], number: int, at: str | None) -> bool | str:
    kind = payload.get("type")
    if not isinstance(kind, str):
        return False
    if kind == "message":
        return _message(builder, payload, number, at)
    if kind in _CALLS:
        return _call(builder, payload, kind, number, at)
    if kind in _OUTPUTS:
        return _output(builder, payload, number, at)
    return True if kind in _SKIPPED_ITEMS else kind


def _message(builder: Builder, payload: dict[str, Any], number: int, at: str | None) -> bool | str:
    role = payload.get("role")
    content = payload.get("content")
    if not isinstance(role, str) or not isinstance(content, str | list):
        return False
    if role not in ("user", "assistant", "developer", "system"):
        return f"message/{role[:32]}"
    text = text_of(content, builder.limits.max_text)
    if role != "assistant" and (role != "user" or text.lstrip().startswith(_INJECTED)):
        role = "system"
    if role == "user":
        builder.mark = len(builder.calls)
    if text.strip():
        builder.add_text(builder.turn(role, at, f"line:{number}"), text)
    return True


def _call(builder: Builder, payload: dict[str, Any], kind: str, number: int, at: str | None) -> bool:
    name = payload.get("name")
    function = payload.get("function")
    if not isinstance(name, str) and isinstance(function, dict):
        name = function.get("name")
    if not isinstance(name, str):
        name = _CALLS[kind] or kind
    last = builder.last
    draft = last if last is not None and last.role == "assistant" else builder.turn("assistant", at, f"line:{number}")
    args = _arguments(payload, name)
    call = builder.call(draft, name, args, payload.get("call_id") or payload.get("id"))
    if call is None:
        return True
    if name.lower() in _READERS:
        builder.reading(call, args.get("session_id"))
    if args.get("sandbox_permissions") == "require_escalated" or args.get("with_escalated_permissions") is True:
        call.escalated = True
    status = payload.get("status")
    if kind in _SELF_CONTAINED and status in ("completed", "failed"):
        builder.result(call, ok=status == "completed")
    return True


def _arguments(payload: dict[str, Any], name: str) -> dict[str, Any]:
    for key in ("arguments", "input", "action"):
        value = payload.get(key)
        if isinstance(value, dict):
            return value
        if isinstance(value, str):
            if name == "apply_patch":
                return {"input": value}
            decoded = loads(value) if value.lstrip().startswith("{") else BAD
            return decoded if isinstance(decoded, dict) else {"input": value}
    return {}


def _output(builder: Builder, payload: dict[str, Any], number: int, at: str | None) -> bool:
    text, exit_code, success = _output_parts(payload.get("output", payload.get("result")), builder.limits.max_text)
    call = builder.find(payload.get("call_id"))
    rejected = text.lstrip().lower().startswith(_DECLINED)
    builder.result(call, ok=success, exit_code=exit_code, output=text, rejected=rejected)
    if call is not None and call.ok is None:
        call.ok = True
    running = _RUNNING.search(text[:2000]) if call is not None and call.command else None
    if running:
        builder.started(call, running.group(1))
    draft = builder.turn("tool", at, f"line:{number}")
    head = _head(text) if call is not None and (call.command or call.reads) else 0
    if head:  # the process's report alone, then what the command printed, read with it
        builder.add_output(draft, None, text[:head], "\n\n")
        builder.add_output(draft, call, text[head:], "")
    else:
        builder.add_output(draft, call, text, "\n\n")
    builder.drop_if_empty(draft)
    return True


def _head(text: str) -> int:
    """Where what a unified exec process printed starts in its output (after ``Chunk ID``,
    ``Wall time``, its state and ``Output:``), or 0 when the output has no such head."""
    if not text.startswith("Chunk ID:"):
        return 0
    at = text.find(_OUTPUT_HEAD, 0, 1000)
    return at + len(_OUTPUT_HEAD) if at >= 0 else 0


def _output_parts(output: Any, limit: int) -> tuple[str, int | None, bool | None]:
    """Text, exit code and success flag of a tool output in any of its shapes."""
    if isinstance(output, str) and output.startswith("{") and '"output"' in output[:200]:
        decoded = loads(output)
        if isinstance(decoded, dict):
            output = decoded
    if isinstance(output, dict):
        metadata = output.get("metadata")
        code = metadata.get("exit_code") if isinstance(metadata, dict) else output.get("exitCode", output.get("exit_code"))
        text = _dict_text(output, limit)
        success = output.get("success") if isinstance(output.get("success"), bool) else None
        exit_code = code if isinstance(code, int) and not isinstance(code, bool) else exit_code_in(text)
        return text, exit_code, success
    text = text_of(output, limit)
    return text, exit_code_in(text), None


def _dict_text(output: dict[str, Any], limit: int) -> str:
    for key in ("output", "text", "content", "stdout"):
        text = text_of(output.get(key), limit)
        if text:
            stderr = output.get("stderr") if key == "stdout" else None
            return text + ("\n" + stderr if isinstance(stderr, str) and stderr else "")
    return ""


def _event(builder: Builder, payload: dict[str, Any], number: int, at: str | None) -> bool:
    kind = payload.get("type")
    if not isinstance(kind, str):
        return False
    handler = _EVENTS.get(kind)
    if handler is not None:
        handler(builder, payload)
    return True


def _exec_end(builder: Builder, payload: dict[str, Any]) -> None:
    code = payload.get("exit_code")
    call = builder.pending_call(payload.get("call_id"))
    if call is not None and isinstance(code, int) and not isinstance(code, bool):
        call.exit_code = code
        call.ok = code == 0


def _patch_end(builder: Builder, payload: dict[str, Any]) -> None:
    success = payload.get("success")
    call = builder.pending_call(payload.get("call_id"))
    if call is not None and isinstance(success, bool):
        call.ok = success
    changes = payload.get("changes")
    if success is not False and isinstance(changes, dict):
        for path in changes:
            builder.touch(path)


def _mcp_end(builder: Builder, payload: dict[str, Any]) -> None:
    result = payload.get("result")
    call = builder.pending_call(payload.get("call_id"))
    if call is not None and isinstance(result, dict):
        inner = result.get("Ok")
        failed = "Err" in result or (isinstance(inner, dict) and inner.get("isError") is True)
        call.ok = not failed


def _aborted(builder: Builder, payload: dict[str, Any]) -> None:
    for call in builder.unanswered(since=builder.mark):
        builder.result(call, rejected=True)


def _escalations_declined(builder: Builder) -> None:
    for call in builder.unanswered():
        if call.escalated:
            builder.result(call, rejected=True)


_HANDLERS = {
    "session_meta": _session_meta,
    "turn_context": _turn_context,
    "response_item": _response_item,
    "event_msg": _event,
    "compacted": _compacted,
}
_EVENTS = {
    "exec_command_end": _exec_end,
    "patch_apply_end": _patch_end,
    "mcp_tool_call_end": _mcp_end,
    "turn_aborted": _aborted,
}
