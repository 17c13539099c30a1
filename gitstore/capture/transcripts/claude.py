"""Claude Code session JSONL (``~/.claude/projects/<project>/<session>.jsonl``).

One JSON object per line with ``type``: user, assistant, system and summary lines carry the
conversation; file-history-snapshot, queue-operation, progress, attachment and a few other
bookkeeping types are read and skipped; any other type is counted as unknown.

- An assistant message streamed over several lines (same ``message.id``, one content block
  each) becomes one assistant turn keyed by its first line's uuid.
- A user line holding only ``tool_result`` blocks becomes a ``tool`` turn; its results set
  the matching calls' ``ok`` (from ``is_error``), exit code (an ``Exit code N`` head) and
  rejection (the harness's "doesn't want to proceed" text or ``toolDenialKind``).
- ``isMeta`` user lines and API error messages are ``system`` turns; ``isCompactSummary``
  user lines and ``summary`` lines are ``summary`` turns; system lines with text content
  (compaction boundaries, refusals) are ``system`` turns.
- An output is read with the command that printed it (``Turn.answers``) where the two stand
  apart: what the person's shell mode (``!``) printed (``<bash-stdout>``, ``<bash-stderr>``)
  with the ``<bash-input>`` before it, and what ``BashOutput``/``TaskOutput`` (by id) or a
  ``Read`` of its output file reads of a ``run_in_background`` command with that command. That
  command's own result says only that it started: the exit code a ``BashOutput`` or
  ``TaskOutput`` naming its id reports of its end is its result.
- Thinking blocks are left out of the text; a user line with both text and tool results
  keeps the text (the results still update their calls).
- A transcript in ``<session>/subagents/`` whose lines name that session is a subagent's too,
  keyed the same way, even when its lines are not marked sidechains.
- Subagent transcripts beside the session (``<session>/subagents/*.jsonl``) are listed in
  ``Transcript.subagents`` (the first ``max_items`` by name; how many more there are is
  ``Transcript.subagents_left_out``); each parses on its own, its session
  ``<session>/agent-<id>`` (``Sidechain``), since its lines carry the parent's session id.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gitstore.capture.transcripts._builder import Builder, Call, Draft
from gitstore.capture.transcripts._model import Limits, Transcript
from gitstore.capture.transcripts._read import BAD, iso_time, lines, loads, text_of
from gitstore.capture.transcripts._tools import exit_code_in

HARNESS = "claude-code"
BOOKKEEPING = frozenset({
    "file-history-snapshot", "queue-operation", "progress", "attachment", "permission-mode",
    "mode", "custom-title", "ai-title", "agent-name", "last-prompt", "pr-link",
})
_REJECTED = ("The user doesn't want to proceed", "[Request interrupted by user")
_TOOL_USE = frozenset({"tool_use", "server_tool_use"})
# Tools that read a background command's output, and the arguments naming its process.
_BACKGROUND_READERS = {"bashoutput": ("bash_id", "shell_id", "task_id"), "taskoutput": ("task_id", "bash_id", "shell_id")}
_BACKGROUND_EXIT = re.compile(r"<exit_code>\s*(-?\d{1,4})\s*</exit_code>")
_BACKGROUND_ID = re.compile(r"background with ID: ?([\w-]+)")
_BACKGROUND_FILE = re.compile(r"Output is being written to: ?(\S+)")
_SHELL_INPUT, _SHELL_INPUT_END = "<bash-input>", "</bash-input>"
_SHELL_OUTPUTS = ("<bash-stdout>", "<bash-stderr>")
_STDOUT = "<stdout>"


def parse(path: Path, limits: Limits) -> Transcript:
    builder = Builder(HARNESS, path, limits)
    sidechain = Sidechain()
    for number, raw in lines(path, limits.max_line_bytes):
        record = BAD if raw is None else loads(raw)
        if not isinstance(record, dict):
            builder.malformed()
            continue
        sidechain.see(record)
        try:
            _record(builder, record, number)
        except (TypeError, ValueError, AttributeError, KeyError, IndexError):
            builder.malformed()
    session = builder.meta.get("session")
    if isinstance(session, str) and (sidechain.only or _beside_its_session(path, session)):
        builder.meta["session"] = sidechain.session(session, path)
    kept, left_out = _subagents(path, limits)
    return builder.finish(subagents=kept, subagents_left_out=left_out)


def _beside_its_session(path: Path, session: str) -> bool:
    """Whether PATH lies in ``<session>/subagents/`` of the SESSION its lines name: a subagent's
    transcript, even where its lines do not mark themselves sidechains."""
    return path.parent.name == "subagents" and path.parent.parent.name == session


class Sidechain:
    """Whether a file is a subagent's transcript: every line of the session is a sidechain.
    Such a file carries its parent's ``sessionId``, so it is keyed ``<session>/agent-<id>`` (the
    line's ``agentId``, else the file's name): the parent's episode stays the parent's."""

    __slots__ = ("agent", "main", "side")

    def __init__(self) -> None:
        self.agent: str | None = None
        self.main = self.side = False

    def see(self, record: dict[str, Any]) -> None:
        if not isinstance(record.get("sessionId"), str):
            return
        if record.get("isSidechain") is not True:
            self.main = True
        else:
            self.side = True
            agent = record.get("agentId")
            if self.agent is None and isinstance(agent, str) and agent.strip():
                self.agent = agent.strip()

    @property
    def only(self) -> bool:
        return self.side and not self.main

    def session(self, session: str, path: Path) -> str:
        """The subagent's key; SESSION as it is when it names the agent already."""
        stem = path.stem
        name = f"agent-{self.agent}" if self.agent else stem if stem.startswith("agent-") else f"agent-{stem}"
        return session if session == name or session.endswith("/" + name) else f"{session}/{name}"


def _record(builder: Builder, record: dict[str, Any], number: int) -> None:
    kind = record.get("type")
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    at = iso_time(record.get("timestamp"))
    if not isinstance(kind, str):
        builder.malformed()
    elif handler is None:
        if kind in BOOKKEEPING:
            _parsed(builder, record, at)
        else:
            builder.unknown(kind)
    elif handler(builder, record, number, at):
        _parsed(builder, record, at)
    else:
        builder.malformed()


def _parsed(builder: Builder, record: dict[str, Any], at: str | None) -> None:
    builder.parsed()
    builder.span(at)
    builder.set("session", record.get("sessionId"))
    builder.set("cwd", record.get("cwd"))
    builder.set("branch", record.get("gitBranch"))
    builder.version(record.get("version"))


def _key(record: dict[str, Any], number: int) -> str:
    uuid = record.get("uuid")
    return uuid if isinstance(uuid, str) and uuid else f"line:{number}"


def _assistant(builder: Builder, record: dict[str, Any], number: int, at: str | None) -> bool:
    message = record.get("message")
    if not isinstance(message, dict):
        return False
    content = message.get("content")
    if not isinstance(content, str | list):
        return False
    message_id = message.get("id")
    merge = ("assistant-message", message_id) if isinstance(message_id, str) and message_id else None
    role = "system" if record.get("isApiErrorMessage") is True else "assistant"
    draft = builder.turn(role, at, _key(record, number), merge)
    if isinstance(content, str):
        builder.add_text(draft, content)
    else:
        for block in content:
            if isinstance(block, dict):
                _assistant_block(builder, draft, block)
    builder.drop_if_empty(draft)
    return True


def _assistant_block(builder: Builder, draft: Draft, block: dict[str, Any]) -> None:
    kind = block.get("type")
    if kind == "text":
        builder.add_text(draft, text_of(block, builder.limits.max_text))
    elif isinstance(kind, str) and kind in _TOOL_USE:
        call = builder.call(draft, block.get("name"), block.get("input"), block.get("id"))
        _background(builder, call, block.get("name"), block.get("input"))


def _background(builder: Builder, call: Call | None, name: Any, args: Any) -> None:
    """Link CALL to a background command: a Bash call ``run_in_background`` starts one (its
    result names it, see ``_started``); ``BashOutput`` or ``TaskOutput`` with its id, or a
    ``Read`` of the file its output is written to, reads that command's output."""
    if call is None or not isinstance(args, dict) or not isinstance(name, str):
        return
    if args.get("run_in_background") is True:
        builder.started(call)
    keys = _BACKGROUND_READERS.get(name.lower())
    if keys is not None:
        builder.reading(call, next((args[key] for key in keys if key in args), None))
    elif name.lower() == "read":
        builder.reading(call, args.get("file_path"), guess=False)


def _started(builder: Builder, call: Call, side: Any, output: str) -> None:
    """The background process a shell call's result names (``toolUseResult.backgroundTaskId``,
    ``Command running in background with ID: ...``) and the file its output is written to."""
    if isinstance(side, dict) and side.get("backgroundTaskId") is not None:
        builder.started(call, side.get("backgroundTaskId"))
    head = output[:1000]
    for pattern in (_BACKGROUND_ID, _BACKGROUND_FILE):
        found = pattern.search(head)
        if found:
            builder.started(call, found.group(1))


def _user(builder: Builder, record: dict[str, Any], number: int, at: str | None) -> bool:
    message = record.get("message")
    if not isinstance(message, dict):
        return False
    content = message.get("content")
    texts: list[str]
    outputs: list[tuple[Call | None, str]]
    if isinstance(content, str):
        texts, outputs = [content], []
    elif isinstance(content, list):
        texts, outputs = _user_blocks(builder, record, content)
    else:
        return False
    if any(t.strip() for t in texts):
        draft = builder.turn(_user_role(record), at, _key(record, number))
        for text in texts:
            _user_text(builder, draft, text)
    else:
        draft = builder.turn("tool", at, _key(record, number))
        for call, output in outputs:
            _output(builder, draft, call, output)
    builder.drop_if_empty(draft)
    return True


def _output(builder: Builder, draft: Draft, call: Call | None, output: str) -> None:
    """A tool's OUTPUT on DRAFT. What ``BashOutput`` reads of a background command comes
    wrapped (``<status>``, ``<exit_code>``, blank lines, then ``<stdout>``): its ``<stdout>``
    is read with the command as a shell call's output is, the wrapping before it with none."""
    at = output.find(_STDOUT) if call is not None and call.reads else -1
    if at < 0:
        builder.add_output(draft, call, output)
        return
    at += len(_STDOUT) + (output[at + len(_STDOUT):at + len(_STDOUT) + 1] == "\n")
    builder.add_output(draft, None, output[:at])
    builder.add_output(draft, call, output[at:], "")


def _user_text(builder: Builder, draft: Draft, text: str) -> None:
    """A user text; what the person's shell mode (``!``) printed (``<bash-stdout>``,
    ``<bash-stderr>``, the line after the ``<bash-input>`` one) is an output read with the
    command typed last: the two stand in separate turns, and what a command prints may tell
    what it is only beside the command."""
    start = text.find(_SHELL_INPUT)
    end = text.find(_SHELL_INPUT_END, start) if start >= 0 else -1
    if end >= 0:
        builder.typed = text[start + len(_SHELL_INPUT):end].strip()[: builder.limits.max_command] or None
    printed = min((at for at in map(text.find, _SHELL_OUTPUTS) if at >= 0), default=-1)
    if printed < 0 or not builder.typed:
        builder.add_text(draft, text)
        return
    before = text[:printed]
    builder.add_text(draft, before)
    builder.add_output(draft, None, text[printed:], "" if before else "\n\n", command=builder.typed)


def _user_role(record: dict[str, Any]) -> str:
    if record.get("isCompactSummary") is True:
        return "summary"
    return "system" if record.get("isMeta") is True else "user"


def _user_blocks(builder: Builder, record: dict[str, Any],
                 content: list[Any]) -> tuple[list[str], list[tuple[Call | None, str]]]:
    texts: list[str] = []
    outputs: list[tuple[Call | None, str]] = []
    limit = builder.limits.max_text
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            texts.append(text_of(block, limit))
        elif kind == "tool_result":
            outputs.append(_tool_result(builder, record, block))
    return texts, outputs


def _tool_result(builder: Builder, record: dict[str, Any], block: dict[str, Any]) -> tuple[Call | None, str]:
    """A tool result applied to its call: the call and the output."""
    limit = builder.limits.max_text
    output = text_of(block.get("content"), limit) or text_of(block.get("text"), limit)
    side = record.get("toolUseResult")
    error = block.get("is_error")
    if not isinstance(error, bool) and isinstance(side, dict) and isinstance(side.get("is_error"), bool):
        error = side["is_error"]
    rejected = bool(error) and (output.startswith(_REJECTED) or "toolDenialKind" in record)
    call = builder.find(block.get("tool_use_id"))
    exit_code = exit_code_in(output)
    if call is not None and call.reads is not None and exit_code is None:
        exit_code = _background_exit(side, output)
    builder.result(call, ok=error is not True, exit_code=exit_code, output=output, rejected=rejected)
    if call is not None and call.command:
        _started(builder, call, side, output)
    return call, output


def _background_exit(side: Any, output: str) -> int | None:
    """The exit code a ``BashOutput`` or ``TaskOutput`` result reports of the background command
    it reads, once that has ended (``toolUseResult.exitCode``, ``<exit_code>N</exit_code>``);
    None while it runs."""
    code = side.get("exitCode") if isinstance(side, dict) else None
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    found = _BACKGROUND_EXIT.search(output[:2000])
    return int(found.group(1)) if found else None


def _system(builder: Builder, record: dict[str, Any], number: int, at: str | None) -> bool:
    content = record.get("content")
    if isinstance(content, str) and content.strip():
        draft = builder.turn("system", at, _key(record, number))
        builder.add_text(draft, content)
    return True


def _summary(builder: Builder, record: dict[str, Any], number: int, at: str | None) -> bool:
    text = record.get("summary")
    if not isinstance(text, str):
        message = record.get("message")
        text = text_of(message.get("content"), builder.limits.max_text) if isinstance(message, dict) else None
    if not isinstance(text, str):
        return False
    key = record.get("uuid")
    leaf = record.get("leafUuid")
    if not (isinstance(key, str) and key):
        key = f"summary:{leaf}" if isinstance(leaf, str) and leaf else f"line:{number}"
    draft = builder.turn("summary", at, key)
    builder.add_text(draft, text)
    builder.drop_if_empty(draft)
    return True


_HANDLERS = {"assistant": _assistant, "user": _user, "system": _system, "summary": _summary}


def _subagents(path: Path, limits: Limits) -> tuple[list[str], int]:
    """Transcripts of subagents this session spawned (``<session>/subagents/*.jsonl`` beside
    it), the first ``max_items`` by name, and how many more there are: those are left out, and
    a capture has to say so, or the work handed to them would be lost without a word."""
    folder = path.parent / path.stem / "subagents"
    try:
        if not folder.is_dir():
            return [], 0
        found = sorted(str(p) for p in folder.iterdir() if p.suffix == ".jsonl" and p.is_file())
    except OSError:
        return [], 0
    return found[: limits.max_items], max(0, len(found) - limits.max_items)
