"""Reading transcript files tolerantly: bounded lines, JSON that may be broken, loose times."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date, datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from gitstore.records.times import format_time, normalize_time
from gitstore.errors import InvalidInput


class _Bad:
    """The marker for a record that is not JSON."""

    def __repr__(self) -> str:
        return "BAD"


BAD: Any = _Bad()
_CHUNK = 1 << 20
_SURROGATE = re.compile("[\ud800-\udfff]")


class SessionAbsent(InvalidInput):
    """A file that holds many sessions (OpenCode's database) holds none by the id asked for:
    the session's transcript is missing, not unreadable."""


SQLITE_HEADER = b"SQLite format 3\x00"


def require_file(path: Path) -> None:
    """Refuse a path that is not a readable regular file, in one line naming it."""
    try:
        if path.is_file():
            return
        exists = path.exists()
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read ({exc.strerror or exc})") from None
    raise InvalidInput(f"{path}: not a file" if exists else f"{path}: no such file")


def loads(data: bytes | str) -> Any:
    """The JSON value of ``data``, or ``BAD``; big integers and NaN still parse."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return BAD
    return _well_formed(value)


def _well_formed(value: Any) -> Any:
    """``value`` with each lone UTF-16 surrogate in its strings (``"\\ud83d"``: Claude Code cut
    an emoji in two when it truncated a tool's output) as U+FFFD, which orjson refused and no
    record can hold: one such character lost the whole session."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace") if _SURROGATE.search(value) \
            else value
    if isinstance(value, list):
        return [_well_formed(v) for v in value]
    if isinstance(value, dict):
        return {_well_formed(k): _well_formed(v) for k, v in value.items()}
    return value


def lines(path: Path, max_bytes: int) -> Iterator[tuple[int, bytes | None]]:
    """``(line number, bytes)`` for every non-blank line; ``None`` for a line over ``max_bytes``.

    Line numbers count every line, blank ones too, so they stay stable keys. A line with no line
    break after it is the file's end as it stood (the harness may be writing it as it is read):
    the read stops there, since the rest of that line, appended meanwhile, would be read as a
    line of its own and every line after it numbered one too far.
    """
    with open_binary(path) as handle:
        number = 0
        while True:
            try:
                line = handle.readline(max_bytes + 1)
            except OSError as exc:
                raise InvalidInput(f"{path}: cannot read ({exc.strerror or exc})") from None
            if not line:
                return
            number += 1
            ended = line.endswith(b"\n")
            if len(line) > max_bytes and not ended:
                ended = _skip_rest(handle)
                yield number, None
            elif line.strip():
                yield number, line
            if not ended:
                return


def _skip_rest(handle: Any) -> bool:
    """Read past the rest of a line; whether a line break ended it (else the file did)."""
    while True:
        chunk = handle.readline(_CHUNK)
        if not chunk:
            return False
        if chunk.endswith(b"\n"):
            return True


def open_binary(path: Path) -> Any:
    """Open ``path`` for reading bytes, turning any OS error into InvalidInput."""
    try:
        return open(path, "rb")  # noqa: SIM115 - the caller closes it
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read ({exc.strerror or exc})") from None


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """The whole file, refusing one over ``max_bytes`` (read in chunks, never allocating more)."""
    chunks: list[bytes] = []
    size = 0
    with open_binary(path) as handle:
        while size <= max_bytes:
            try:
                chunk: bytes = handle.read(min(_CHUNK, max_bytes + 1 - size))
            except OSError as exc:
                raise InvalidInput(f"{path}: cannot read ({exc.strerror or exc})") from None
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    if size > max_bytes:
        raise too_large(path, max_bytes)
    return b"".join(chunks)


def too_large(path: Path, max_bytes: int) -> InvalidInput:
    """The refusal of a document over ``max_bytes``."""
    return InvalidInput(f"{path}: larger than {max_bytes} bytes, too large to read as one document")


def read_head(path: Path, size: int) -> bytes:
    """The first ``size`` bytes of ``path``."""
    with open_binary(path) as handle:
        try:
            head: bytes = handle.read(size)
        except OSError as exc:
            raise InvalidInput(f"{path}: cannot read ({exc.strerror or exc})") from None
    return head


_UTC_TIME = re.compile(
    r"(\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))T((?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d)"
    r"(?:\.(\d{1,6}))?(?:Z|\+00:00)\Z"
)


@lru_cache(maxsize=4096)
def _calendar_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def iso_time(value: Any) -> str | None:
    """A gitstore time from an ISO 8601 string with a zone, else None.

    UTC times (the usual case) are rewritten directly; any other goes through
    ``normalize_time``, which gives the same result for them.
    """
    if not isinstance(value, str) or not 10 <= len(value) <= 64:
        return None
    match = _UTC_TIME.match(value)
    if match is not None and _calendar_date(match.group(1)):
        return f"{match.group(1)}T{match.group(2)}.{(match.group(3) or '').ljust(6, '0')}Z"
    try:
        return normalize_time(value)
    except InvalidInput:
        return None


def epoch_ms_time(value: Any) -> str | None:
    """A gitstore time from milliseconds since the epoch, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return format_time(datetime.fromtimestamp(value / 1000, tz=timezone.utc))
    except (OverflowError, OSError, ValueError):
        return None


def text_of(value: Any, limit: int) -> str:
    """The text in a content value: a string, a ``{"text": ...}`` block, or a list of them.

    Stops collecting once ``limit`` characters are gathered (the caller truncates).
    """
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        inner = value.get("text")
        return inner if isinstance(inner, str) else ""
    if not isinstance(value, list):
        return ""
    pieces: list[str] = []
    size = 0
    for item in value:
        piece = text_of(item, limit) if isinstance(item, str | dict) else ""
        if piece:
            pieces.append(piece)
            size += len(piece)
            if size > limit:
                break
    return "\n".join(pieces)


def short(value: Any, limit: int) -> str | None:
    """A non-empty string cut to ``limit`` characters, else None."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value[:limit] if value else None
