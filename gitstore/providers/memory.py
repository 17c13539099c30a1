"""The ``memory`` provider: everything in one process's memory, for tests and examples."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator

from gitstore.errors import ConflictError
from gitstore.providers._base import (
    CONTRACT_VERSIONS,
    OPTIONAL_CAPABILITIES,
    REQUIRED_CAPABILITIES,
    AppendResult,
    Batch,
    Manifest,
    Stored,
    VerifyReport,
    dedupe,
)


class MemoryProvider:
    """Keeps records in a list in store order; same semantics as the durable providers."""

    def __init__(self, writer: str = "memory") -> None:
        self.writer = writer
        self._records: list[Stored] = []
        self._digests: set[str] = set()
        self._payloads: dict[str, bytes] = {}
        self._notes: dict[str, bytes] = {}
        self._clock = 0
        self._lock = threading.Lock()

    def manifest(self) -> Manifest:
        return Manifest(
            name="memory",
            contracts=CONTRACT_VERSIONS,
            capabilities=REQUIRED_CAPABILITIES | {"redact-payload"},
            storage="process memory",
        )

    def append(self, batch: Batch) -> AppendResult:
        with self._lock:
            return self._append(batch)

    def append_if_head(self, batch: Batch, stream: str, expected: str | None) -> AppendResult:
        with self._lock:
            current = self._head(stream)
            if current != expected:
                raise ConflictError(f"stream {stream} moved: head is {current}, expected {expected}")
            return self._append(batch)

    def _append(self, batch: Batch) -> AppendResult:
        entries = dedupe(batch.entries)
        new = [e for e in entries if e.digest not in self._digests]
        existing = tuple(e.digest for e in entries if e.digest in self._digests)
        if not new:
            return AppendResult(existing=existing)
        self._clock += 1
        for position, entry in enumerate(new):
            self._records.append(Stored(
                digest=entry.digest, kind=entry.kind, stream=entry.stream, data=entry.data,
                namespace=batch.namespace, writer=self.writer, clock=self._clock, position=position,
            ))
            self._digests.add(entry.digest)
            if entry.payload is not None and entry.payload_digest:
                self._payloads[entry.payload_digest] = entry.payload
        return AppendResult(added=tuple(e.digest for e in new), existing=existing)

    def read(self, scope: str | None = None, kinds: Iterable[str] | None = None) -> Iterator[Stored]:
        wanted = set(kinds) if kinds is not None else None
        needle = None if scope is None else f'"scope":"{scope}"'.encode()
        for stored in list(self._records):
            if wanted is not None and stored.kind not in wanted:
                continue
            if needle is not None and needle not in stored.data:
                continue
            yield stored

    def read_stream(self, stream: str) -> Iterator[Stored]:
        return iter([s for s in list(self._records) if s.stream == stream])

    def head(self, stream: str) -> str | None:
        with self._lock:
            return self._head(stream)

    def _head(self, stream: str) -> str | None:
        for stored in reversed(self._records):
            if stored.stream == stream:
                return stored.digest
        return None

    def payload(self, payload_digest: str) -> bytes | None:
        return self._payloads.get(payload_digest)

    def redact_payload(self, payload_digest: str, note: bytes) -> bytes | None:
        """Forget a payload and keep the note (the first one kept wins)."""
        with self._lock:
            had = self._payloads.pop(payload_digest, None) is not None
            if payload_digest in self._notes:
                return self._notes[payload_digest]
            if not had:
                return None
            self._notes[payload_digest] = note
            return note

    def redaction_note(self, payload_digest: str) -> bytes | None:
        return self._notes.get(payload_digest)

    def verify(self) -> VerifyReport:
        from gitstore.records.contracts import verify_stored
        from gitstore.errors import GitstoreError
        from gitstore.providers._base import Problem

        report = VerifyReport(records=len(self._records), refs=0)
        for stored in list(self._records):
            try:
                verify_stored(stored.data, stored.digest, stored.kind)
            except GitstoreError as exc:
                report.problems.append(Problem(stored.digest, str(exc)))
        return report


assert "redact-payload" in OPTIONAL_CAPABILITIES
