"""OpenCode storage (``~/.local/share/opencode/storage``), read from a session file's path.

Layout: ``session/<project>/<session>.json``; its messages in ``message/<session id>/*.json``;
each message's parts in ``part/<message id>/*.json``, or (older storage) in a flat ``part/``
folder of files naming their ``messageID``, or under ``session/message`` and
``session/part``. Messages are ordered by creation time then id; parts by file name.

Records are the session file, each message file and each part file of the session.
OpenCode 1.2 and later keeps the same records in one SQLite database instead
(``gitstore.capture.transcripts.opencode_db``), read through this module's functions. Message
roles user and assistant are kept (others are unknown). Part types: text becomes the turn's
text; tool becomes a tool call (``state.status`` completed / error, ``state.metadata.exit``
for the exit code) with its output in a ``tool`` turn after the message; patch parts name
touched files; reasoning, step-start, step-finish, snapshot, file, compaction, agent,
subtask and retry parts are read and skipped; other part types are unknown. Turn keys are
message ids. OpenCode updates a part in place as it streams (text grows, a tool call
completes), so the transcript is marked ``rewritten``, as Gemini CLI's is. Malformed files
in a shared flat ``part/`` folder cannot be attributed to a session and are not counted.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gitstore.capture.transcripts._builder import Builder, Call, Draft
from gitstore.capture.transcripts._model import Limits, Transcript
from gitstore.capture.transcripts._read import BAD, epoch_ms_time, loads, read_bytes, text_of

HARNESS = "opencode"
_ROLES = frozenset({"user", "assistant"})
_SKIPPED_PARTS = frozenset({
    "reasoning", "step-start", "step-finish", "snapshot", "file", "compaction", "agent", "subtask", "retry",
})
PART_LIMIT = 4 * 1024 * 1024


def is_session(record: Any) -> bool:
    """Whether a JSON value looks like an OpenCode session file."""
    return (
        isinstance(record, dict)
        and _segment(record.get("id"))
        and isinstance(record.get("time"), dict)
        and ("projectID" in record or "directory" in record)
        and "role" not in record
        and "messageID" not in record
    )


def parse(path: Path, limits: Limits) -> Transcript:
    builder = Builder(HARNESS, path, limits)
    session = loads(read_bytes(path, PART_LIMIT))
    if not is_session(session):
        return builder.finish()  # refuses: nothing recognized
    builder.parsed()
    session_meta(builder, session)
    root = _storage_root(path)
    messages = _messages(builder, root, session["id"])
    flat = _flat_parts(root, {m["id"] for m in messages}, limits) if root is not None else {}
    for message in messages:
        parts = _parts(builder, root, message["id"], flat)
        emit(builder, message, parts)
    return finish(builder)


def _segment(name: Any) -> bool:
    """Whether ``name`` can name a folder inside the storage (no separators, no dot names)."""
    return (
        isinstance(name, str)
        and 0 < len(name) <= 200
        and name not in (".", "..")
        and not any(c in name for c in "/\\\0")
    )


def session_meta(builder: Builder, session: dict[str, Any]) -> None:
    builder.set("session", session.get("id"))
    builder.set("cwd", session.get("directory"))
    builder.version(session.get("version"))
    times = session.get("time")
    if isinstance(times, dict):
        builder.span(epoch_ms_time(times.get("created")))
        builder.span(epoch_ms_time(times.get("updated")))


def _storage_root(path: Path) -> Path | None:
    """The storage folder: the parent of the ``session`` folder holding this file."""
    for parent in path.resolve().parents:
        if parent.name == "session":
            return parent.parent
    return None


def _json_files(folder: Path, limits: Limits) -> list[Path]:
    try:
        if not folder.is_dir():
            return []
        found = sorted(p for p in folder.iterdir() if p.suffix == ".json" and p.is_file())
    except OSError:
        return []
    return found[: limits.max_files]


def _load(path: Path) -> Any:
    try:
        return loads(read_bytes(path, PART_LIMIT))
    except Exception:  # noqa: BLE001 - an unreadable file is a malformed record, never a crash
        return BAD


def _messages(builder: Builder, root: Path | None, session_id: str) -> list[dict[str, Any]]:
    """The session's messages, counted, in creation order."""
    if root is None:
        return []
    limits = builder.limits
    files = _json_files(root / "message" / session_id, limits) or _json_files(
        root / "session" / "message" / session_id, limits
    )
    return in_order(builder, (_load(file) for file in files))


def in_order(builder: Builder, records: Iterable[Any]) -> list[dict[str, Any]]:
    """The messages among RECORDS, each counted, in creation order (then by id)."""
    kept: list[tuple[float, str, dict[str, Any]]] = []
    for record in records:
        if not isinstance(record, dict) or not _segment(record.get("id")):
            builder.malformed()
        elif not isinstance(record.get("role"), str):
            builder.malformed()
        elif record["role"] not in _ROLES:
            builder.unknown(f"message:{record['role']}")
        else:
            builder.parsed()
            kept.append((_created(record), record["id"], record))
    kept.sort(key=lambda item: (item[0], item[1]))
    return [record for _, _, record in kept]


def _created(record: dict[str, Any]) -> float:
    times = record.get("time")
    value = times.get("created") if isinstance(times, dict) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _flat_parts(root: Path, message_ids: set[str], limits: Limits) -> dict[str, list[tuple[str, Any]]]:
    """Parts of a flat (older) ``part/`` folder, by message id, for this session's messages."""
    by_message: dict[str, list[tuple[str, Any]]] = {}
    for file in _json_files(root / "part", limits):
        record = _load(file)
        owner = record.get("messageID") if isinstance(record, dict) else None
        if isinstance(owner, str) and owner in message_ids:
            by_message.setdefault(owner, []).append((file.name, record))
    return by_message


def _parts(builder: Builder, root: Path | None, message_id: str, flat: dict[str, list[tuple[str, Any]]]) -> list[Any]:
    if root is None:
        return []
    limits = builder.limits
    files = _json_files(root / "part" / message_id, limits) or _json_files(
        root / "session" / "part" / message_id, limits
    )
    if files:
        return [_load(f) for f in files]
    return [record for _, record in sorted(flat.get(message_id, []), key=lambda item: item[0])]


def finish(builder: Builder) -> Transcript:
    """The transcript read, marked ``rewritten``: OpenCode updates a part in place while it
    streams (its text grows, a tool's state goes from running to completed), so a later read
    may find a message of the same id holding more."""
    return builder.finish()._replace(rewritten=True)


def emit(builder: Builder, message: dict[str, Any], parts: list[Any]) -> None:
    times = message.get("time")
    at = epoch_ms_time(times.get("created")) if isinstance(times, dict) else None
    builder.span(at)
    draft = builder.turn("user" if message["role"] == "user" else "assistant", at, message["id"])
    outputs: list[tuple[Call | None, str]] = []
    for part in parts:
        try:
            _part(builder, draft, part, outputs)
        except (TypeError, ValueError, AttributeError, KeyError, IndexError):
            builder.malformed()
    builder.drop_if_empty(draft)
    if outputs:
        tool = builder.turn("tool", at, f"{message['id']}:tools")
        for call, output in outputs:
            builder.add_output(tool, call, output)


def _part(builder: Builder, draft: Draft, part: Any, outputs: list[tuple[Call | None, str]]) -> None:
    kind = part.get("type") if isinstance(part, dict) else None
    if not isinstance(kind, str):
        builder.malformed()
    elif kind == "text":
        builder.parsed()
        builder.add_text(draft, text_of(part.get("text"), builder.limits.max_text))
    elif kind == "tool":
        builder.parsed()
        call, output = _tool(builder, draft, part)
        if output:
            outputs.append((call, output))
    elif kind == "patch":
        builder.parsed()
        files = part.get("files")
        for path in files if isinstance(files, list) else ():
            builder.touch(path)
    elif kind in _SKIPPED_PARTS:
        builder.parsed()
    else:
        builder.unknown(f"part:{kind}")


def _tool(builder: Builder, draft: Draft, part: dict[str, Any]) -> tuple[Call | None, str]:
    """A tool part's call, its result applied, and its output."""
    state = part.get("state")
    state = state if isinstance(state, dict) else {}
    call = builder.call(draft, part.get("tool"), state.get("input"), part.get("callID"))
    status = state.get("status")
    metadata = state.get("metadata")
    code = metadata.get("exit") if isinstance(metadata, dict) else None
    exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
    output = text_of(state.get("output"), builder.limits.max_text) or text_of(state.get("error"), builder.limits.max_text)
    if status in ("completed", "success", "error"):
        ok = status != "error" and (exit_code is None or exit_code == 0)
        rejected = status == "error" and "rejected" in output.lower()[:200]
        builder.result(call, ok=ok, exit_code=exit_code, output=output, rejected=rejected)
    return call, output
