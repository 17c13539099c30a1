"""Small pieces the file-based providers (``sqlite``, ``jsonl``) share.

The ``git`` provider keeps its own copies of the writer rule and the conflict message; these
match them word for word so every provider refuses and reports the same way.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TypeVar

from gitstore.records.canonical import canonicalize, parse_json, sha256_digest
from gitstore.records.contracts import verify_stored
from gitstore.errors import ConflictError, GitstoreError, UsageError
from gitstore.providers._base import Problem

WRITER_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
DIGEST_PATTERN = re.compile(r"^sha256:[0-9a-f]{64}$")

T = TypeVar("T")


def check_writer(writer: str) -> str:
    """Return ``writer`` if it is a valid writer id, else raise ``UsageError``."""
    if not isinstance(writer, str) or not WRITER_PATTERN.match(writer):
        raise UsageError(f"writer id {writer!r} must be lowercase letters, digits and dashes")
    return writer


def head_moved(stream: str, current: str | None, expected: str | None) -> ConflictError:
    """The error a compare-and-swap append raises when the stream's head is not ``expected``."""
    return ConflictError(f"stream {stream} moved: head is {current}, expected {expected}")


def record_problem(data: object, digest: str, kind: str) -> Problem | None:
    """Re-check one stored record's bytes; a Problem naming the digest, or None when sound."""
    if not isinstance(data, bytes):
        return Problem(f"record {digest}", f"stored data is {type(data).__name__}, not bytes")
    try:
        verify_stored(data, digest, kind)
    except GitstoreError as exc:
        return Problem(f"record {digest}", str(exc))
    return None


def payload_problem(data: object, payload_digest: str) -> Problem | None:
    """Check one stored payload hashes to its key; a Problem naming it, or None when sound."""
    if not isinstance(data, bytes):
        return Problem(f"payload {payload_digest}", f"stored data is {type(data).__name__}, not bytes")
    if sha256_digest(data) != payload_digest:
        return Problem(f"payload {payload_digest}", "does not match its digest")
    return None


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
    except GitstoreError as exc:
        return str(exc)
    return None
