"""Where memory lives in git: the refs it is kept under, named by namespace and writer, and the
paths of records, payloads and redaction notes in their trees (``okf/wiki/store.md``)."""

from __future__ import annotations

import re

PREFIX = "refs/memory/v1/"
QUARANTINE = "refs/memory/quarantine/"  # where sync holds a fetched ref it refused: never read
WRITER_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


def records_ref(namespace: str, writer: str) -> str:
    return f"{PREFIX}records/{namespace}/{writer}"


def payloads_ref(namespace: str, writer: str) -> str:
    return f"{PREFIX}payloads/{namespace}/{writer}"


def record_path(kind: str, digest: str) -> str:
    """Where a record lives in a records tree."""
    hexd = digest.removeprefix("sha256:")
    return f"{kind}/{hexd[:2]}/{hexd[2:4]}/{hexd}.json"


def payload_path(payload_digest: str) -> str:
    hexd = payload_digest.removeprefix("sha256:")
    return f"{hexd[:2]}/{hexd[2:4]}/{hexd}.json"


def note_path(payload_digest: str) -> str:
    """Where a removed payload's redaction note is kept: in the records tree of the append that
    removed it (older stores kept it at the same path in a payload snapshot)."""
    return "notes/" + payload_path(payload_digest)
