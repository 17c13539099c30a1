"""The ``memory`` provider: everything in one process's memory, for tests and examples."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator

from gitstore.errors import ConflictError, Refused
from gitstore.providers._base import (
    CONTRACT_VERSIONS,
    OPTIONAL_CAPABILITIES,
    REQUIRED_CAPABILITIES,
    AppendResult,
    Batch,
    GcReport,
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
        self._named: set[str] = set()  # payload digests the stored events name
        self._notes: dict[str, bytes] = {}
        self._clock = 0
        self._lock = threading.Lock()

    def manifest(self) -> Manifest:
        return Manifest(
            name="memory",
            contracts=CONTRACT_VERSIONS,
            capabilities=REQUIRED_CAPABILITIES | {"redact-payload", "gc"},
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
        for removal in batch.removals:
            if removal.payload_digest in self._notes:
                raise ConflictError(f"payload {removal.payload_digest} was already removed")
        entries = dedupe(batch.entries)
        new = [e for e in entries if e.digest not in self._digests]
        existing = tuple(e.digest for e in entries if e.digest in self._digests)
        if not new:
            if batch.removals:
                raise Refused("an append that removes payloads adds the audit entries of the removals")
            return AppendResult(existing=existing)
        self._clock += 1
        append = f"{self.writer}@{self._clock}"
        for position, entry in enumerate(new):
            self._records.append(Stored(
                digest=entry.digest, kind=entry.kind, stream=entry.stream, data=entry.data,
                namespace=batch.namespace, writer=self.writer, clock=self._clock, position=position,
                append=append,
            ))
            self._digests.add(entry.digest)
            if entry.payload_digest:
                self._named.add(entry.payload_digest)
                if entry.payload is not None and entry.payload_digest not in self._notes:
                    self._payloads[entry.payload_digest] = entry.payload
        for removal in batch.removals:
            self._payloads.pop(removal.payload_digest, None)
            self._notes[removal.payload_digest] = bytes(removal.note)
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

    def redaction_note(self, payload_digest: str) -> bytes | None:
        return self._notes.get(payload_digest)

    def gc(self) -> GcReport:
        """Forget payloads no stored event names (none can be left here; kept for symmetry)."""
        with self._lock:
            gone = [d for d in self._payloads if d not in self._named or d in self._notes]
            for digest in gone:
                del self._payloads[digest]
            return GcReport(payloads=len(gone))

    def verify(self) -> VerifyReport:
        from gitstore.records.contracts import verify_stored
        from gitstore.errors import GitstoreError
        from gitstore.providers._base import Problem
        from gitstore.providers._common import filing_problem

        report = VerifyReport(records=len(self._records), refs=0)
        for stored in list(self._records):
            try:
                record = verify_stored(stored.data, stored.digest, stored.kind)
            except GitstoreError as exc:
                report.problems.append(Problem(stored.digest, str(exc)))
                continue
            misfiled = filing_problem(record, stored.kind, None, stored.stream)
            if misfiled is not None:
                report.problems.append(Problem(stored.digest, misfiled))
        return report


assert "redact-payload" in OPTIONAL_CAPABILITIES and "gc" in OPTIONAL_CAPABILITIES
