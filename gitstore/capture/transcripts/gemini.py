"""Gemini CLI sessions (``~/.gemini/tmp/<project hash>/chats/session-*.json[l]``).

Two shapes:

- one JSON document ``{sessionId, projectHash, startTime, lastUpdated, messages: [...]}``;
  each message is one record. Garbage after the document is one malformed record; a
  document cut short keeps the messages before the cut and counts the cut as malformed. A
  large document (``Limits.stream_json_bytes``) is read message by message (``_document``),
  never whole: reading it holds a chunk of the file's text and a message.
- JSONL: a header line ``{sessionId, projectHash, startTime, lastUpdated, kind}``, message
  lines, and ``{"$set": {...}}`` lines updating the header. A message written again with
  the same id replaces the earlier copy in place. A ``$set`` of ``messages`` (a compression,
  a cancelled prompt rolled back) replaces the session's messages with those, and a
  ``{"$rewindTo": id}`` line (the person's ``/rewind``) takes back the message of that id and
  every one after it, as Gemini CLI reads its file. A file is read as JSONL when its first line
  is a JSON object, and when it is read as a document in vain (nothing of a session found): a
  header line cut or garbled is then one malformed record, and the lines after it are read.

A message that cannot be decoded though it is delimited (nested deeper than the decoder goes,
or a bare bad literal such as ``nul``, read up to the ``,`` or ``]`` after it) is one malformed
record, and the messages after it are read, in a document as on JSONL lines.

A checkpoint (``/chat save TAG`` writes ``checkpoint-TAG.json`` beside the chats, and every
version before the chats were recorded, 0.1.x, kept a conversation only so) holds the model's
own history: ``{"history": [...], "authType": ...}`` (0.16 and later), before it a bare array, of contents
``{role, parts}``: role user or model, parts of text (a ``thought`` part left out), a
``functionCall`` (a tool call) or a ``functionResponse`` (its result, in the user content after
it, matched by its id, else by its name in order). It names no session and no time: the session
is its file's name. Another role of a content is unknown.

The context Gemini CLI gives the model first (``This is the Gemini CLI. We are setting up the
context...``, from 0.45 inside ``<session_context>``), in a user content of a checkpoint or a
user message of a session (from 0.45 a ``$set`` of ``messages`` records it when a session
starts), is a system turn: no word of the person's, and never the session's task.

Message ``type`` user is a user turn; gemini (and model) an assistant turn; info, error and
warning are system turns; other types are unknown, and a message neither typed nor a content,
without ``content`` (or ``parts``),
or, on a JSONL line, without its id is malformed: another harness's transcript (Claude Code's
lines are typed user, assistant and system too) is thus no Gemini CLI session, and refused. An assistant
message's ``toolCalls`` become its tool calls (status success / error / cancelled, the exit
code from the shell tool's ``Exit Code: N``), and their outputs one ``tool`` turn after it.
Thoughts are left out of the text. Turn keys are the message ids. Gemini CLI rewrites the
file as the session goes on: streamed text is appended to a message it wrote, and the tool calls
it makes next are pushed into the same message, so the transcript is marked ``rewritten`` (a
later read may find a message of the same id holding more); a tool call's time widens the
session's span, as its message's does.
"""

from __future__ import annotations

import io
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from gitstore.capture.transcripts._builder import Builder, Call
from gitstore.capture.transcripts._document import SKIPPED, Text
from gitstore.capture.transcripts._model import Limits, Transcript
from gitstore.capture.bounds import cut
from gitstore.capture.transcripts._read import (
    BAD, iso_time, lines, loads, open_binary, read_bytes, read_head, text_of, too_large,
)

HARNESS = "gemini-cli"
_CONTENT_ROLES = {"user": "user", "model": "assistant"}
_ROLES = {"user": "user", "gemini": "assistant", "model": "assistant", "assistant": "assistant",
          "info": "system", "error": "system", "warning": "system", "system": "system"}
_HEADER_KEYS = ("sessionId", "projectHash", "startTime", "lastUpdated")
_EXIT = re.compile(r"Exit Code: (-?\d{1,4})")
_MESSAGES = re.compile(r'"(?:messages|history)"\s*:\s*\[')
_SEPARATORS = re.compile(r"[ \t\r\n,]*")
_SETUP = "This is the Gemini CLI. We are setting up the context for our chat."
_CONTEXT_TAG = "<session_context>"
_BLANKS = re.compile(r"[ \t\r\n]*")
_HEADER_TEXT = re.compile(r'"(sessionId|startTime|lastUpdated)"\s*:\s*"([^"\\]{1,200})"')


@dataclass
class _Call:
    name: Any
    args: Any
    status: Any
    output: str
    call_id: Any
    at: str | None = None


@dataclass
class _Message:
    role: str
    text: str
    overflow: int
    at: str | None
    key: str
    calls: list[_Call] = field(default_factory=list)


class _Session:
    """Messages by id, in first-seen order, until they are handed to the builder."""

    def __init__(self, builder: Builder) -> None:
        self.builder = builder
        self.messages: dict[str, _Message] = {}
        self.dropped = 0
        self.waiting: list[_Call] = []  # a checkpoint's model content's calls, awaiting their responses

    def header(self, record: dict[str, Any]) -> None:
        builder = self.builder
        builder.set("session", record.get("sessionId"))
        builder.time(record.get("startTime", record.get("start_time")))
        builder.time(record.get("lastUpdated"))

    def message(self, record: Any, index: int, count: bool = True, named: bool = False) -> None:
        """Keep one message record, counting it unless it is part of a larger record; NAMED: it
        is one only when it carries its id (a JSONL line)."""
        builder = self.builder
        content = not named and is_content(record)
        kind = record.get("type" if not content else "role") if isinstance(record, dict) else None
        role = (_CONTENT_ROLES if content else _ROLES).get(kind) if isinstance(kind, str) else None
        reduced = None
        if role is not None and (not named or _named(record)):
            try:
                if content:
                    reduced = _reduce_content(record, role, index, builder.limits.max_text, self.waiting)
                else:
                    reduced = _reduce(record, role, index, builder.limits.max_text)
            except (TypeError, ValueError, AttributeError, KeyError, IndexError):
                reduced = None
        if count:
            if reduced is not None:
                builder.parsed()
            elif isinstance(kind, str) and role is None:
                builder.unknown(kind)
            else:
                builder.malformed()
        if reduced is None:
            return
        builder.recognized = True
        builder.span(reduced.at)
        for call in reduced.calls:
            builder.span(call.at)
        if reduced.key in self.messages or len(self.messages) < builder.limits.max_turns:
            self.messages[reduced.key] = reduced
        else:
            self.dropped += 1

    def rewind(self, message_id: str) -> None:
        """``/rewind``: the message of MESSAGE_ID and every one after it are taken back, none
        of the session's any more (all of them when no message has the id, as the CLI reads it).
        Past the turns kept (``max_turns``) the message is one of those left out, counted only:
        the kept ones stay, and so does the count, which can then only say more was left out."""
        if message_id not in self.messages:
            if not self.dropped:
                self.messages.clear()
            return
        while self.messages.popitem()[0] != message_id:  # the last first: each message is taken once
            pass
        self.dropped = 0  # those left out came after the kept ones: taken back with them

    def replace(self, messages: list[Any]) -> None:
        """A ``$set`` of ``messages``: the conversation from now on is MESSAGES."""
        self.messages.clear()
        self.dropped = 0
        _messages(self, messages, count=False, named=True)

    def finish(self) -> Transcript:
        builder = self.builder
        for message in self.messages.values():
            _emit(builder, message)
        builder.dropped += self.dropped
        return builder.finish()._replace(rewritten=True)


def parse(path: Path, limits: Limits) -> Transcript:
    lined = _first_line_is_json(path, limits)
    session = _Session(Builder(HARNESS, path, limits))
    (_parse_lines if lined else _parse_document)(path, session)
    if not lined and not session.builder.recognized:
        # no session document: JSONL whose header line is cut or garbled still has its messages
        again = _Session(Builder(HARNESS, path, limits))
        _parse_lines(path, again)
        if again.builder.recognized:
            session = again
    return session.finish()


def _first_line_is_json(path: Path, limits: Limits) -> bool:
    head = read_head(path, 1 << 16).lstrip()
    end = head.find(b"\n")
    if end < 0:
        return False  # one line, or a first line longer than the sample: read it as a document
    return isinstance(loads(head[:end]), dict)


def _parse_lines(path: Path, session: _Session) -> None:
    builder = session.builder
    for number, raw in lines(path, builder.limits.max_line_bytes):
        record = BAD if raw is None else loads(raw)
        try:
            _line(session, record, number)
        except (TypeError, ValueError, AttributeError, KeyError, IndexError):
            builder.malformed()


def _line(session: _Session, record: Any, number: int) -> None:
    builder = session.builder
    if not isinstance(record, dict):
        builder.malformed()
    elif "$set" in record:
        update = record["$set"]
        if isinstance(update, dict):
            builder.parsed()
            session.header(update)
            if isinstance(update.get("messages"), list):  # the conversation as the CLI holds it now
                session.replace(update["messages"])
        else:
            builder.malformed()
    elif "$rewindTo" in record and len(record) == 1:
        if isinstance(record["$rewindTo"], str):
            builder.parsed()
            session.rewind(record["$rewindTo"])
        else:
            builder.malformed()
    elif isinstance(record.get("type"), str):
        session.message(record, number, named=True)
    elif isinstance(conversation := record.get("messages", record.get("history")), list):
        builder.parsed()  # a session document (or a checkpoint) written on one line
        session.header(record)
        _messages(session, conversation, count=False)
    elif any(key in record for key in _HEADER_KEYS):
        builder.parsed()
        session.header(record)
    elif len(record) == 1 and next(iter(record)).startswith("$"):
        builder.unknown(next(iter(record)))
    else:
        builder.malformed()


def _messages(session: _Session, messages: list[Any], count: bool = True, named: bool = False) -> None:
    for index, message in enumerate(messages):
        session.message(message, index, count, named)


def _parse_document(path: Path, session: _Session) -> None:
    """A session document: decoded whole when it is small, else (or when it is cut short) read
    message by message, holding a message's text at a time rather than the file's."""
    limits = session.builder.limits
    with open_binary(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limits.max_json_bytes:
            raise too_large(path, limits.max_json_bytes)
        if size > limits.stream_json_bytes:
            _stream(session, Text(path, handle, limits.max_json_bytes))
            return
    data = read_bytes(path, limits.max_json_bytes)
    if len(data) <= limits.stream_json_bytes:
        try:
            document, rest = orjson.loads(data), ""
        except orjson.JSONDecodeError:
            document, rest = _decode_prefix(data)
        if document is not BAD:
            _whole(session, document, rest)
            return
    _stream(session, Text(path, io.BytesIO(data), limits.max_json_bytes))


def _whole(session: _Session, document: Any, rest: str) -> None:
    if isinstance(document, list):  # a checkpoint of the oldest versions: an array of contents
        conversation = document if document and is_content(document[0]) else None
    else:
        conversation = document.get("messages", document.get("history")) if isinstance(document, dict) else None
    if not isinstance(conversation, list):
        return  # not a session document: refused when nothing was recognized
    session.builder.recognized = True
    if isinstance(document, dict):
        session.header(document)
    _messages(session, conversation)
    if rest.strip():
        session.builder.malformed()


def _decode_prefix(data: bytes) -> tuple[Any, str]:
    """The JSON value at the start of ``data`` and the text after it, or ``BAD``."""
    text = data.decode("utf-8", errors="replace")
    start = len(text) - len(text.lstrip())
    try:
        value, end = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError):
        return BAD, ""
    return value, text[end:]


def _stream(session: _Session, text: Text) -> None:
    """Read a document message by message: a large one without building it whole, or one cut
    short (every complete message before the cut is kept; the cut is one malformed record)."""
    builder = session.builder
    bare = text.skip(_BLANKS) == "["  # a checkpoint of the oldest versions: an array of contents
    before = None if bare else text.find(_MESSAGES)
    if bare:
        text.step()
    elif before is None:
        return
    else:
        builder.recognized = True
        session.header(_members_before(before))
    index = 0
    while (following := text.skip(_SEPARATORS)) != "]":
        message = BAD if following is None else text.value(skip=True)
        if bare and index == 0:
            if not is_content(message):
                return  # an array of something else: no session
            builder.recognized = True
        if message is BAD:
            builder.malformed()
            return
        if message is SKIPPED:  # one message that cannot be decoded: the rest are still read
            builder.malformed()
        else:
            session.message(message, index)
        index += 1
    text.step()
    if bare:
        if not text.blank():
            builder.malformed()
        return
    _members_after(session, text)


def _members_before(prefix: str) -> dict[str, Any]:
    """The header members written before the messages: ``{"a": 1, `` closed and parsed."""
    value = loads(prefix.rstrip().rstrip(",") + "}")
    if isinstance(value, dict):
        return value
    return {key: found for key, found in _HEADER_TEXT.findall(prefix)}


def _members_after(session: _Session, text: Text) -> None:
    """Header members after the messages, and anything after the document (malformed)."""
    text.prepend('{"":0')
    value = text.value()
    if value is BAD:
        session.builder.malformed()
        return
    if isinstance(value, dict):
        session.header(value)
    if not text.blank():
        session.builder.malformed()


def _named(record: dict[str, Any]) -> bool:
    """Whether a message line carries its id, as Gemini CLI writes every one (a Claude Code
    line, whose ``type`` is user, assistant or system too, names itself by ``uuid``)."""
    message_id = record.get("id")
    return isinstance(message_id, str) and bool(message_id)


def _reduce(record: dict[str, Any], role: str, index: int, limit: int) -> _Message:
    """What gitstore keeps of a message: role, capped text, time, key and tool calls. A message
    holds its text in ``content`` (or ``parts``), empty as it may be: one without either is no
    Gemini CLI message (a Claude Code line keeps its text under ``message``)."""
    if "content" not in record and "parts" not in record:
        raise ValueError("a message without content")
    content = record.get("content", record.get("parts"))
    text = text_of(content, limit)
    message_id = record.get("id")
    key = message_id if isinstance(message_id, str) and message_id else f"message:{index}"
    listed = record.get("toolCalls")
    calls = [_reduce_call(c, limit) for c in listed if isinstance(c, dict)] if isinstance(listed, list) else []
    kept = cut(text, limit)
    return _Message(_role(role, text), kept, len(text) - len(kept), iso_time(record.get("timestamp")), key, calls)


def is_content(record: Any) -> bool:
    """Whether RECORD is a content of the model's history (a checkpoint's): a role and parts,
    no type."""
    return (isinstance(record, dict) and "type" not in record and isinstance(record.get("role"), str)
            and isinstance(record.get("parts"), list))


def _reduce_content(record: dict[str, Any], role: str, index: int, limit: int, waiting: list[_Call]) -> _Message:
    """What gitstore keeps of a checkpoint's content: its text parts (no thought), its function
    calls, and, for the calls of the model content before it (WAITING, taken from the list as
    they are answered), the results its function responses carry."""
    parts = [part for part in record["parts"] if isinstance(part, dict)]
    text = text_of([part for part in parts if "text" in part and not part.get("thought")], limit)
    calls: list[_Call] = []
    for part in parts:
        asked, answer = part.get("functionCall"), part.get("functionResponse")
        if isinstance(asked, dict):
            calls.append(_reduce_call({"name": asked.get("name"), "args": asked.get("args"), "id": asked.get("id")},
                                      limit))
        elif isinstance(answer, dict) and (call := _answered(waiting, answer)) is not None:
            response = answer.get("response")
            failed = isinstance(response, dict) and "error" in response and "output" not in response
            done = _reduce_call({"result": [part]}, limit)
            call.output, call.status = done.output, "error" if failed else "success"
    if role == "assistant":
        waiting[:] = calls
    kept = cut(text, limit)
    return _Message(_role(role, text), kept, len(text) - len(kept), None, f"message:{index}", calls)


def _role(role: str, text: str) -> str:
    """ROLE, or system for the context Gemini CLI gives the model first in a user message (the
    date, the folders, the project's memory; from 0.45 inside ``<session_context>``), which holds
    no word of the person's and is no session's task."""
    if role != "user":
        return role
    text = text.lstrip()
    if text.startswith(_CONTEXT_TAG):
        text = text[len(_CONTEXT_TAG):].lstrip()
    return "system" if text.startswith(_SETUP) else role


def _answered(waiting: list[_Call], answer: dict[str, Any]) -> _Call | None:
    """The waiting call ANSWER (a function response) answers, taken from WAITING: the one of its
    id, else the first of its name, else None."""
    answer_id, name = answer.get("id"), answer.get("name")
    for match in ((lambda c: c.call_id == answer_id) if isinstance(answer_id, str) and answer_id else None,
                  lambda c: c.name == name):
        if match is None:
            continue
        for position, call in enumerate(waiting):
            if match(call):
                return waiting.pop(position)
    return None


def _reduce_call(call: dict[str, Any], limit: int) -> _Call:
    output = ""
    results = call.get("result")
    for item in results if isinstance(results, list) else ():
        inner = item.get("functionResponse") if isinstance(item, dict) else None
        response = inner.get("response") if isinstance(inner, dict) else None
        if isinstance(response, dict):
            output = text_of(response.get("output"), limit) or text_of(response.get("error"), limit)
            if output:
                break
    if not output:
        output = text_of(call.get("error"), limit) or text_of(call.get("resultDisplay"), limit)
    return _Call(call.get("name"), call.get("args"), call.get("status"), output[: limit + 1], call.get("id"),
                 iso_time(call.get("timestamp")))


def _emit(builder: Builder, message: _Message) -> None:
    draft = builder.turn(message.role, message.at, message.key)
    builder.add_text(draft, message.text, overflow=message.overflow)
    outputs: list[tuple[Call | None, str]] = []
    for reduced in message.calls:
        call = builder.call(draft, reduced.name, reduced.args, reduced.call_id)
        exit_code = _exit_code(reduced.output) if call is not None and call.command else None
        status = reduced.status
        ok = None if status not in ("success", "error") else status == "success"
        if ok and exit_code is not None:
            ok = exit_code == 0
        builder.result(call, ok=ok, exit_code=exit_code, output=reduced.output, rejected=status == "cancelled")
        if reduced.output:
            outputs.append((call, reduced.output))
    builder.drop_if_empty(draft)
    if outputs:
        tool = builder.turn("tool", message.at, f"{message.key}:tools")
        for made, output in outputs:
            builder.add_output(tool, made, output)


def _exit_code(output: str) -> int | None:
    found = _EXIT.findall(output[-2000:])
    return int(found[-1]) if found else None
