"""Small pieces the file-based providers (``sqlite``, ``jsonl``) share.

The ``git`` provider keeps its own copies of the writer rule and the conflict message; these
match them word for word so every provider refuses and reports the same way.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from collections.abc import Callable
from typing import TypeVar

import orjson

from gitstore.records.canonical import canonicalize, parse_json, sha256_digest
from gitstore.records.contracts import stream_of, verify_stored
from gitstore.records.identity import PERSON
from gitstore.errors import ConflictError, GitstoreError, Refused, UsageError
from gitstore.providers._base import Problem

WRITER_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}\Z")
DIGEST_PATTERN = re.compile(r"^sha256:[0-9a-f]{64}\Z")

T = TypeVar("T")


def refuse_links(*paths: Path) -> None:
    """Refuse a store whose folder or files are symbolic links: a commit can put one in the
    state folder (and a commit that stops tracking it leaves it there), and a write through it
    lands wherever it points, a file of the user's or another folder."""
    for path in paths:
        if os.path.islink(path):
            raise Refused(f"{path} is a symbolic link; gitstore never writes through one: delete it (`rm`), "
                          "then run the command again")


def check_writer(writer: str) -> str:
    """Return ``writer`` if it is a valid writer id, else raise ``UsageError``."""
    if not isinstance(writer, str) or not WRITER_PATTERN.match(writer):
        raise UsageError(f"writer id {writer!r} must be lowercase letters, digits and dashes")
    return writer


def head_moved(stream: str, current: str | None, expected: str | None) -> ConflictError:
    """The error a compare-and-swap append raises when the stream's head is not ``expected``."""
    return ConflictError(f"stream {stream} moved: head is {current}, expected {expected}")


def record_problem(data: object, digest: str, kind: str, scope: str | None = None,
                   stream: str | None = None) -> Problem | None:
    """Re-check one stored record's bytes, and the scope and stream it is filed under when
    given; a Problem naming the digest, or None when sound."""
    if not isinstance(data, bytes):
        return Problem(f"record {digest}", f"stored data is {type(data).__name__}, not bytes")
    try:
        record = verify_stored(data, digest, kind)
    except GitstoreError as exc:
        return Problem(f"record {digest}", str(exc))
    misfiled = filing_problem(record, kind, scope, stream)
    return None if misfiled is None else Problem(f"record {digest}", misfiled)


def filing_problem(record: object, kind: str, scope: str | None, stream: str | None) -> str | None:
    """What the scope and stream a provider files a record under (and reads it by) say that the
    record itself does not, or None. ``record`` is the record, or its stored bytes; ``None``
    for either name skips it. Filed apart from its bytes, a record would vanish from the reads
    of its own scope or stream (a withdrawal hidden, a learning version left out of its
    history) while its bytes stay sound. Bytes that are no record are left to their own check."""
    if isinstance(record, bytes):
        try:
            record = orjson.loads(record)  # leniently: the bytes' own check is strict
        except orjson.JSONDecodeError:
            return None
    if not isinstance(record, dict):
        return None
    own_scope = record.get("scope")
    if scope is not None and isinstance(own_scope, str) and own_scope != scope:
        return f"is filed under scope {scope!r}, but the record is of scope {own_scope!r}"
    try:
        own = stream_of(record, kind)
    except (KeyError, TypeError):  # not a record of that kind: its own check says so
        return None
    if stream is not None and own != stream:
        return f"is filed under stream {stream!r}, but the record belongs to stream {own!r}"
    return None


def payload_problem(data: object, payload_digest: str) -> Problem | None:
    """Check one stored payload hashes to its key; a Problem naming it, or None when sound."""
    if not isinstance(data, bytes):
        return Problem(f"payload {payload_digest}", f"stored data is {type(data).__name__}, not bytes")
    if sha256_digest(data) != payload_digest:
        return Problem(f"payload {payload_digest}", "does not match its digest")
    return None


def payload_missing(event_digest: str, payload_digest: str) -> Problem:
    """An event whose payload is neither stored nor removed: reads show its text as removed,
    though no removal says who removed it or why (a payload lost, or overwritten by another)."""
    return Problem(f"record {event_digest}", f"its payload {payload_digest} is neither stored nor removed "
                                             "(no redaction note): reads show it removed though nobody removed it")


def retry_until(deadline: float, attempt: Callable[[], T | None], what: str) -> T:
    """Call ``attempt`` until it returns a value, backing off; ``ConflictError`` past the deadline."""
    delay = 0.001
    end = time.monotonic() + deadline
    while True:
        result = attempt()
        if result is not None:
            return result
        if time.monotonic() >= end:
            raise ConflictError(f"{what}: still busy after {deadline:g} seconds")
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


NOTE_FIELDS = frozenset({"at", "by", "reason", "sourceId"})


def note_problem(data: object) -> str | None:
    """What is wrong with a stored redaction note, or None when it is a canonical redaction object."""
    if not isinstance(data, bytes):
        return f"stored data is {type(data).__name__}, not bytes"
    try:
        note = parse_json(data, allow_floats=False)
        if not isinstance(note, dict) or set(note) != NOTE_FIELDS:
            return "is not a redaction object (at, by, reason, sourceId)"
        if canonicalize(note) != data:
            return "is not in canonical form"
        if not isinstance(note["by"], str) or not PERSON.match(note["by"]):
            return "names no person as the one who redacted (by)"
    except GitstoreError as exc:
        return str(exc)
    return None
