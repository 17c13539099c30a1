"""Which harness wrote a file, from its first records (never from its name alone)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from gitstore.errors import InvalidInput
from gitstore.capture.transcripts import codex, gemini, opencode
from gitstore.capture.transcripts._model import Limits
from gitstore.capture.transcripts._read import BAD, SQLITE_HEADER, loads, open_binary, read_bytes, read_head, require_file

_SAMPLE_BYTES = 1 << 20
_SAMPLE_LINES = 64
_PRIORITY = ("codex", "claude-code", "gemini-cli", "pi")
_GEMINI_HEADER = ("projectHash", "startTime", "lastUpdated")
_GEMINI_LOG_ENTRY = {"sessionId", "messageId", "type", "message"}
_GEMINI_CHECKPOINT = re.compile(rb'\A\s*(?:\{\s*"history"\s*:\s*)?\[\s*\{\s*"role"\s*:')


def detect(path: Path, limits: Limits) -> str:
    """The harness of the transcript at ``path``; InvalidInput when it is none we read."""
    require_file(path)
    head = read_head(path, _SAMPLE_BYTES)
    if head.startswith(SQLITE_HEADER):
        return "opencode"  # the only harness gitstore reads that keeps its sessions in SQLite
    if not head.strip():
        raise InvalidInput(f"{path}: empty, not a transcript")
    votes = _votes(head, cut=len(head) == _SAMPLE_BYTES)
    if not votes and len(head) == _SAMPLE_BYTES and not _gemini_session(head) and not _gemini_checkpoint(head):
        votes = _votes(_cut_line(path, head.rfind(b"\n") + 1, limits))
    if votes:
        best = max(votes.items(), key=lambda item: (item[1], -_PRIORITY.index(item[0])))[0]
        if best == "pi":
            raise InvalidInput(f"{path}: a pi session; gitstore reads claude-code, codex, gemini-cli and opencode transcripts")
        return best
    return _document(path, head, limits)


def _votes(head: bytes, cut: bool = False) -> Counter[str]:
    """How many of the first lines of HEAD look written by each harness; CUT says its last
    line may be cut short."""
    votes: Counter[str] = Counter()
    sample = head.split(b"\n")
    if cut:
        sample = sample[:-1]  # the last line may be cut
    for raw in [line for line in sample if line.strip()][:_SAMPLE_LINES]:
        record = loads(raw)
        if isinstance(record, dict):
            harness = _line_harness(record)
            if harness:
                votes[harness] += 1
    return votes


def _cut_line(path: Path, start: int, limits: Limits) -> bytes:
    """The line the sample cut, from START (where it opens in the file) to its end: a session
    whose first prompt holds a pasted log opens with a line longer than the sample, and is no
    less a transcript. A line longer than ``max_line_bytes`` tells nothing: the refusal says so."""
    with open_binary(path) as handle:
        try:
            handle.seek(start)
            line: bytes = handle.readline(limits.max_line_bytes + 1)
        except OSError as exc:
            raise InvalidInput(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(line) > limits.max_line_bytes:
        raise InvalidInput(f"{path}: a line of over {limits.max_line_bytes} bytes before any record tells which"
                           " harness wrote it; name it with --harness")
    return line


def _line_harness(record: dict[str, Any]) -> str | None:
    kind = record.get("type")
    if isinstance(kind, str) and isinstance(record.get("payload"), dict):
        return "codex"
    legacy = isinstance(kind, str) and kind in codex.LEGACY_ITEMS and "payload" not in record
    if legacy and any(key in record for key in ("role", "call_id", "summary")):
        return "codex"
    if kind is None and (("instructions" in record and isinstance(record.get("id"), str)) or "record_type" in record):
        return "codex"
    if "$set" in record or kind == "gemini":
        return "gemini-cli"
    if kind is None and any(key in record for key in _GEMINI_HEADER) and "messages" not in record:
        return "gemini-cli"
    if kind is None and isinstance(record.get("messages"), list) and "sessionId" in record:
        return "gemini-cli"
    if not isinstance(kind, str):
        return None
    if "id" in record and ("content" in record or "parts" in record) and "uuid" not in record and "message" not in record:
        return "gemini-cli"
    if kind == "session" and "cwd" in record and "uuid" not in record and "sessionId" not in record:
        return "pi"
    if any(key in record for key in ("uuid", "leafUuid", "sessionId")):
        return "claude-code"
    if kind in ("user", "assistant") and isinstance(record.get("message"), dict):
        return "claude-code"
    return None


def _document(path: Path, head: bytes, limits: Limits) -> str:
    """A whole-file JSON document: a Gemini CLI session or an OpenCode session file. One
    larger than the sample whose sample shows a Gemini CLI session is one, unread further:
    decoding it whole to tell cost five times its size in memory, which its parser, reading it
    a message at a time, never spends (OpenCode's session files are a few lines)."""
    if len(head) == _SAMPLE_BYTES and (_gemini_session(head) or _gemini_checkpoint(head)):
        return "gemini-cli"
    data = read_bytes(path, limits.max_json_bytes)
    record = loads(data)
    if record is BAD:
        if _gemini_session(head) or _gemini_checkpoint(head):
            return "gemini-cli"  # a session document or checkpoint cut short
        raise InvalidInput(f"{path}: not a transcript (no JSON records gitstore recognizes)")
    if isinstance(record, list) and record and isinstance(record[0], dict):
        if _GEMINI_LOG_ENTRY <= record[0].keys():
            raise InvalidInput(f"{path}: Gemini CLI's log of the prompts typed (logs.json), not a session;"
                               " import a session under chats/ or a checkpoint-*.json")
        if gemini.is_content(record[0]):
            return "gemini-cli"  # a checkpoint of the oldest versions: an array of contents
    if isinstance(record, dict):
        conversation = record.get("messages", record.get("history"))
        if isinstance(conversation, list) and any(k in record for k in ("sessionId", *_GEMINI_HEADER, "start_time")):
            return "gemini-cli"
        if isinstance(conversation, list) and conversation and gemini.is_content(conversation[0]):
            return "gemini-cli"  # a checkpoint: {"history": [contents], "authType": ...}
        if opencode.is_session(record):
            return "opencode"
        if (isinstance(record.get("sessionID"), str) or isinstance(record.get("messageID"), str)
                or _in_opencode_storage(path)):
            raise InvalidInput(f"{path}: an OpenCode message or part file; pass the session file (storage/session/...)")
    raise InvalidInput(f"{path}: not a transcript of a harness gitstore reads")


def _in_opencode_storage(path: Path) -> bool:
    """Whether PATH lies in the message or part folder of an OpenCode storage, a session folder
    beside it: newer part files name neither their message nor their session inside, only by
    where they are (``part/<message id>/001.json``)."""
    for parent in list(path.absolute().parents)[:3]:
        if parent.name in ("message", "part") and (parent.parent / "session").is_dir():
            return True
    return False


def _gemini_session(head: bytes) -> bool:
    """Whether the start of a JSON document shows a Gemini CLI session: its messages array and
    its session's id or project hash, as keys (a key's quotes are never escaped; one inside a
    string's text is)."""
    return bool(re.search(rb'"messages"\s*:\s*\[', head) and re.search(rb'"(sessionId|projectHash)"\s*:', head))


def _gemini_checkpoint(head: bytes) -> bool:
    """Whether the start of a JSON document shows a Gemini CLI checkpoint: its history's first
    content, as ``JSON.stringify`` writes it (the role first)."""
    return bool(_GEMINI_CHECKPOINT.match(head))
