"""An independent gitstore provider, written only from the documentation.

Sources: ``okf/wiki/store.md`` (the provider contract ``gitstore.provider/v1`` and the order
rule) and ``okf/wiki/contracts.md`` (records, canonical form, digests). This module uses the
standard library only and imports nothing from ``gitstore``: it exists to show that the
documented contract is enough to write a provider. Values are duck-typed: the store and the
conformance suite read attributes, so the small dataclasses below carry the documented names.

Storage, in one folder:

``log``
    One append-only file of frames. A frame is ``MAGIC | type (1 byte) | body length (u32,
    big-endian) | body | checksum``. Type ``A`` is one append; its body is a JSON header (clock,
    writer, namespace, per entry digest, kind, scope, stream, data size, payload digest and
    size, and the batch's removals: payload digest and redaction note, the canonical JSON of the
    event's redaction object as text), the entries' canonical bytes, then their payloads'
    canonical bytes. The checksum is sha256 over type, length, header and record bytes; payload
    bytes are left out of it because each payload is checked against its own digest and may
    later be blanked. Each append is one ``write`` and one ``fsync`` before it is acknowledged:
    a killed append leaves a short or unchecked frame at the end of the file, which readers
    ignore and the next writer cuts off. An append's removals become durable with its records
    (the removals' audit entries); then the removed payloads' bytes are overwritten in place
    with zeros and fsynced, so the text leaves the disk while the records and digests stay. A
    removal of a payload that already has a note refuses the whole append (the conflict
    error); a later append never writes a payload that has a note again; gc blanks whatever a
    removal cut short left. A record's append is ``<writer>@<clock>``.
``lock``
    ``fcntl.flock``: appends and removals take it exclusively, reads take it shared, so
    processes never see a frame half-written and two appends never interleave. The operating
    system drops the lock of a killed process.

Store order is ``(clock, writer, position)``; every append gets one more than the largest clock
in the log (every writer sharing this folder has seen every record in it).
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import os
import re
import struct
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "AppendResult",
    "ConflictError",
    "IndependentProvider",
    "Manifest",
    "Problem",
    "StoredRecord",
    "VerifyReport",
    "canonical",
    "record_digest",
]

PROVIDER_CONTRACT = "gitstore.provider/v1"
CAPABILITIES = frozenset(
    {"append", "append-if-head", "read", "read-stream", "head", "payload", "verify", "redact-payload", "gc"}
)
NAMESPACES = ("local", "shared")
WRITER_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
SCHEMA_RE = re.compile(r"^gitstore\.([a-z]+)/v([0-9]+)$")
DIGEST_RE = re.compile(r"^sha256:[0-9a-f]{64}$")
MAX_INT = 2**53 - 1

# kind -> top-level members its record digest leaves out (contracts.md, "Digests")
DIGEST_EXCLUDES: dict[str, tuple[str, ...]] = {
    "envelope": ("digest",),
    "receipt": ("digest",),
    "episode": ("digest",),
    "event": ("digest", "payload", "redaction"),
    "grant": ("digest",),
    "withdrawal": ("digest",),
    "learning": ("digest",),
    "export": ("digest",),
    "audit": ("digest",),
    "packet": ("digest",),
    "import": ("digest",),
}

MAGIC = b"IGS1"
FRAME_HEAD = struct.Struct(">4scI")  # magic, type, body length
CHECKSUM_SIZE = 32
APPEND = b"A"
DIGEST_SIZE = len("sha256:") + 64
NOTE_FIELDS = frozenset({"at", "by", "reason", "sourceId"})


# -- values --------------------------------------------------------------------------------------


class ConflictError(Exception):
    """Default conflict raised by ``append_if_head``; callers may inject their own class."""


class Refused(Exception):
    """Default refusal (an append that removes payloads but records nothing new); callers may
    inject their own class."""


class StorageDamaged(Exception):
    """The log holds damage that an append must not write past."""


@dataclasses.dataclass(frozen=True)
class Manifest:
    name: str
    contracts: tuple[str, ...]
    capabilities: frozenset[str]
    storage: str
    sends_to: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class StoredRecord:
    digest: str
    kind: str
    stream: str
    data: bytes
    namespace: str
    writer: str
    clock: int
    position: int
    append: str

    @property
    def order(self) -> tuple[int, str, int]:
        return (self.clock, self.writer, self.position)


@dataclasses.dataclass(frozen=True)
class AppendResult:
    added: tuple[str, ...]
    existing: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Problem:
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclasses.dataclass
class GcReport:
    payloads: int = 0
    objects: int = 0


@dataclasses.dataclass
class VerifyReport:
    records: int = 0
    refs: int = 0
    problems: list[Problem] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, where: str, message: str) -> None:
        self.problems.append(Problem(where, message))


@dataclasses.dataclass(frozen=True)
class _Row:
    """One stored record as the log holds it, with what the store needs to filter it."""

    record: StoredRecord
    scope: str
    payload_digest: str | None
    payload_at: int | None  # offset of the payload's bytes in the log, when one was stored
    payload_size: int


# -- canonical form (RFC 8785 for records, which carry no floats) -------------------------------


class NotCanonicalizable(ValueError):
    pass


_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _string(text: str) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            raise NotCanonicalizable("lone surrogate in a string")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _utf16_key(name: str) -> bytes:
    return name.encode("utf-16-be", "surrogatepass")


def _canonical(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        if abs(value) > MAX_INT:
            raise NotCanonicalizable("integer beyond 2^53-1")
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_canonical(v) for v in value) + "]"
    if isinstance(value, dict):
        names = sorted(value, key=_utf16_key)
        return "{" + ",".join(_string(n) + ":" + _canonical(value[n]) for n in names) + "}"
    raise NotCanonicalizable(f"records carry no {type(value).__name__} values")


def canonical(value: Any) -> bytes:
    """RFC 8785 bytes of a JSON value without floats."""
    return _canonical(value).encode("utf-8")


def sha256_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def record_digest(record: dict[str, Any], kind: str) -> str:
    """The record digest: canonical bytes minus the kind's excluded top-level members."""
    excluded = DIGEST_EXCLUDES[kind]
    return sha256_digest(canonical({k: v for k, v in record.items() if k not in excluded}))


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _refuse_float(text: str) -> Any:
    raise ValueError(f"records carry no floats ({text})")


def _checked_int(text: str) -> int:
    value = int(text)
    if abs(value) > MAX_INT:
        raise ValueError(f"integer beyond 2^53-1 ({text})")
    return value


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, value in pairs:
        if name in result:
            raise ValueError(f"duplicate member name {name!r}")
        result[name] = value
    return result


def strict_json(data: bytes) -> Any:
    """Parse I-JSON strictly, as contracts.md "Reading a record" step 1 asks."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise ValueError("byte order mark")
    text = data.decode("utf-8")  # strict: refuses bytes that are not UTF-8
    value = json.loads(
        text,
        object_pairs_hook=_no_duplicates,
        parse_float=_refuse_float,
        parse_int=_checked_int,
        parse_constant=_refuse_constant,
    )
    _check_surrogates(value)
    return value


def _check_surrogates(value: Any) -> None:
    if isinstance(value, str):
        if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
            raise ValueError("lone surrogate in a string")
    elif isinstance(value, list):
        for v in value:
            _check_surrogates(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_surrogates(k)
            _check_surrogates(v)


# -- the log ------------------------------------------------------------------------------------


def _frame(kind: bytes, checked: bytes, unchecked: bytes = b"") -> bytes:
    """A frame whose checksum covers ``checked`` but not ``unchecked`` (payload bytes)."""
    body = struct.pack(">I", len(checked)) + checked + unchecked
    head = FRAME_HEAD.pack(MAGIC, kind, len(body))
    return head + body + hashlib.sha256(head[4:] + body[: 4 + len(checked)]).digest()


def _parse_frame(buf: bytes, pos: int) -> tuple[bytes, bytes, int, int] | None:
    """(type, checked part, offset of the unchecked part, next offset) of an intact frame, or None."""
    if len(buf) - pos < FRAME_HEAD.size:
        return None
    magic, kind, length = FRAME_HEAD.unpack_from(buf, pos)
    if magic != MAGIC or length < 4:
        return None
    start = pos + FRAME_HEAD.size
    stop = start + length + CHECKSUM_SIZE
    if stop > len(buf):
        return None
    (checked_len,) = struct.unpack_from(">I", buf, start)
    if checked_len > length - 4:
        return None
    checked_end = start + 4 + checked_len
    if hashlib.sha256(buf[pos + 4 : checked_end]).digest() != buf[start + length : stop]:
        return None
    return kind, buf[start + 4 : checked_end], checked_end, stop


@dataclasses.dataclass
class _Scan:
    """What a scan of the log found after the last intact frame."""

    end: int  # offset just after the last intact frame
    tail: int  # bytes after it (a torn append, or damage)
    damage: str | None  # set when intact frames follow a bad one: then it is not a torn tail


class _Index:
    """Everything read from the log so far; refreshed incrementally from ``end``."""

    def __init__(self) -> None:
        self.end = 0
        self.rows: list[_Row] = []
        self.by_digest: dict[str, _Row] = {}
        self.by_stream: dict[str, list[_Row]] = {}
        self.payloads: dict[str, list[tuple[int, int]]] = {}  # payload digest -> (offset, size)
        self.notes: dict[str, bytes] = {}  # payload digest removed -> its redaction note
        self.max_clock = 0
        self.problems: list[Problem] = []  # frame-level findings (bad headers, repeats)
        self.scan = _Scan(0, 0, None)

    def load(self, buf: bytes, base: int) -> None:
        """Parse frames from ``buf``, the log from offset ``base`` on."""
        pos = 0
        while pos < len(buf):
            parsed = _parse_frame(buf, pos)
            if parsed is None:
                break
            kind, checked, unchecked_at, nxt = parsed
            self._apply(kind, checked, base + pos, base + unchecked_at, nxt - pos)
            pos = nxt
        self.end = base + pos
        tail = len(buf) - pos
        damage = None
        if tail:
            # a torn append is the last thing in the file; an intact frame after it means damage
            nxt = buf.find(MAGIC, pos + 1)
            while nxt != -1:
                if _parse_frame(buf, nxt) is not None:
                    damage = f"bad frame at offset {base + pos} followed by intact frames"
                    break
                nxt = buf.find(MAGIC, nxt + 1)
        self.scan = _Scan(self.end, tail, damage)

    def _apply(self, kind: bytes, checked: bytes, offset: int, unchecked_at: int, frame_size: int) -> None:
        where = f"log@{offset}"
        if kind != APPEND:
            self.problems.append(Problem(where, f"unknown frame type {kind!r}"))
            return
        try:
            (hlen,) = struct.unpack_from(">I", checked, 0)
            header = json.loads(checked[4 : 4 + hlen].decode("utf-8"))
            clock, writer, namespace = int(header["clock"]), str(header["writer"]), str(header["namespace"])
            entries = header["entries"]
            at = 4 + hlen
            payload_at = unchecked_at
            rows = []
            for position, e in enumerate(entries):
                size = int(e["size"])
                data = checked[at : at + size]
                at += size
                rec = StoredRecord(e["digest"], e["kind"], e["stream"], data, namespace, writer, clock, position,
                                   f"{writer}@{clock}")
                psize = int(e["payloadSize"]) if e.get("payloadSize") is not None else None
                rows.append(_Row(rec, e["scope"], e.get("payloadDigest"), payload_at if psize is not None else None, psize or 0))
                payload_at += psize or 0
            removals = [(str(r["payloadDigest"]), str(r["note"]).encode("utf-8")) for r in header.get("removals", [])]
        except (ValueError, KeyError, TypeError, struct.error) as exc:
            self.problems.append(Problem(where, f"unreadable append header: {exc}"))
            return
        for digest, note in removals:
            self._removed(where, digest, note)
        if at != len(checked):
            self.problems.append(Problem(where, "record bytes do not add up to the sizes in the header"))
        if payload_at != offset + frame_size - CHECKSUM_SIZE:
            self.problems.append(Problem(where, "payload bytes do not add up to the sizes in the header"))
        if not WRITER_RE.match(writer):
            self.problems.append(Problem(where, f"bad writer id {writer!r}"))
        if namespace not in NAMESPACES:
            self.problems.append(Problem(where, f"bad namespace {namespace!r}"))
        if clock <= self.max_clock:
            self.problems.append(Problem(where, f"clock {clock} does not exceed an earlier clock {self.max_clock}"))
        self.max_clock = max(self.max_clock, clock)
        for row in rows:
            rec = row.record
            if rec.digest in self.by_digest:
                # the first in store order counts (store.md, "The order rule")
                self.problems.append(Problem(rec.digest, f"stored twice (again at {where})"))
                continue
            self.rows.append(row)
            self.by_digest[rec.digest] = row
            self.by_stream.setdefault(rec.stream, []).append(row)
            if row.payload_at is not None and row.payload_digest:
                self.payloads.setdefault(row.payload_digest, []).append((row.payload_at, row.payload_size))

    def _removed(self, where: str, digest: str, note: bytes) -> None:
        if not DIGEST_RE.match(digest):
            self.problems.append(Problem(where, "a removal names no payload digest"))
            return
        problem = _note_problem(note)
        if problem:
            self.problems.append(Problem(f"redaction note {digest}", f"{problem} ({where})"))
        if digest in self.notes:
            self.problems.append(Problem(f"redaction note {digest}", f"kept twice (again at {where})"))
        else:
            self.notes[digest] = note


def _note_problem(note: bytes) -> str | None:
    """What is wrong with a redaction note, or None: a canonical object of exactly the four fields."""
    try:
        value = strict_json(note)
    except (ValueError, UnicodeDecodeError) as exc:
        return f"is not valid JSON: {exc}"
    if not isinstance(value, dict) or set(value) != NOTE_FIELDS:
        return "is not a redaction object (at, by, reason, sourceId)"
    try:
        if canonical(value) != note:
            return "is not in canonical form"
    except NotCanonicalizable as exc:
        return f"cannot be canonicalized: {exc}"
    return None


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _read_at(path: Path, offset: int, size: int) -> bytes:
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read(size)


class _Locked:
    """``with _Locked(path, exclusive):`` holds an flock on the lock file."""

    def __init__(self, path: Path, exclusive: bool) -> None:
        self.path, self.exclusive = path, exclusive
        self.fd = -1

    def __enter__(self) -> _Locked:
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX if self.exclusive else fcntl.LOCK_SH)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            os.close(self.fd)


# -- the provider -------------------------------------------------------------------------------


# Streams (store.md): an episode and its events share the episode's id, a learning's versions
# the learning's id; every other kind has a stream of its own.
KIND_STREAMS = {"grant": "consent", "withdrawal": "consent", "audit": "audit", "export": "exports",
                "packet": "packets", "import": "imports", "envelope": "captures", "receipt": "captures"}


def _stream_of(value: dict[str, Any], kind: str) -> str | None:
    """The stream a record belongs to, or None when its kind or members say nothing of one."""
    member = {"episode": "id", "learning": "id", "event": "episode"}.get(kind)
    found = value.get(member) if member else KIND_STREAMS.get(kind)
    return found if isinstance(found, str) else None


class IndependentProvider:
    """A ``gitstore.provider/v1`` provider over one framed, append-only, fcntl-locked log."""

    def __init__(self, folder: Path | str, writer: str, conflict_error: type[Exception] = ConflictError,
                 refused_error: type[Exception] = Refused) -> None:
        if not WRITER_RE.match(writer):
            raise ValueError(f"bad writer id {writer!r}: 1 to 64 of a-z, 0-9 and -, starting with a letter or digit")
        self.folder = Path(folder)
        self.writer = writer
        self.conflict_error = conflict_error
        self.refused_error = refused_error
        self._log = self.folder / "log"
        self._lock = self.folder / "lock"
        created = not self.folder.exists()
        self.folder.mkdir(parents=True, exist_ok=True)
        with _Locked(self._lock, exclusive=True):
            if not self._log.exists():
                fd = os.open(self._log, os.O_WRONLY | os.O_CREAT, 0o644)
                os.fsync(fd)
                os.close(fd)
                created = True
        if created:
            _fsync_dir(self.folder)
            _fsync_dir(self.folder.parent)
        self._index = _Index()
        self._ino: int | None = None

    # -- manifest --------------------------------------------------------------------------------

    def manifest(self) -> Manifest:
        return Manifest(
            name="independent",
            contracts=(PROVIDER_CONTRACT,),
            capabilities=CAPABILITIES,
            storage="one framed append-only log file, fcntl-locked",
            sends_to=(),
        )

    # -- index -----------------------------------------------------------------------------------

    def _refresh(self) -> _Index:
        """Bring the in-memory index up to date; call with the lock held."""
        st = os.stat(self._log)
        if self._ino != st.st_ino or st.st_size < self._index.end:
            self._index, self._ino = _Index(), st.st_ino
        idx = self._index
        if st.st_size != idx.end or idx.scan.tail:
            with open(self._log, "rb") as f:
                f.seek(idx.end)
                buf = f.read()
            idx.load(buf, idx.end)
        return idx

    # -- appends ---------------------------------------------------------------------------------

    def append(self, batch: Any) -> AppendResult:
        return self._append(batch, None, None, check=False)

    def append_if_head(self, batch: Any, stream: str, expected: str | None) -> AppendResult:
        return self._append(batch, stream, expected, check=True)

    def _append(self, batch: Any, stream: str | None, expected: str | None, check: bool) -> AppendResult:
        namespace = str(batch.namespace)
        entries = tuple(batch.entries)
        removals = [(str(r.payload_digest), bytes(r.note)) for r in getattr(batch, "removals", ())]
        with _Locked(self._lock, exclusive=True):
            idx = self._refresh()
            for digest, _ in removals:
                if digest in idx.notes:
                    raise self.conflict_error(f"payload {digest} was already removed")
            if check:
                rows = idx.by_stream.get(str(stream))
                head = max(rows, key=lambda r: r.record.order).record.digest if rows else None
                if head != expected:
                    raise self.conflict_error(
                        f"conflict on stream {stream}: its head is {head or 'empty'}, expected {expected or 'empty'}"
                    )
            added: list[str] = []
            existing: list[str] = []
            new: list[Any] = []
            for e in entries:
                if e.digest in idx.by_digest:
                    if e.digest not in existing:
                        existing.append(e.digest)
                elif e.digest not in added:
                    added.append(e.digest)
                    new.append(e)
            if not new:
                if removals:
                    raise self.refused_error("an append that removes payloads must record something new")
                return AppendResult((), tuple(existing))
            if idx.scan.damage:
                raise StorageDamaged(f"{self._log}: {idx.scan.damage}; run verify")
            described = []
            payloads = []
            for e in new:
                payload = getattr(e, "payload", None)
                if getattr(e, "payload_digest", None) in idx.notes or any(
                        getattr(e, "payload_digest", None) == d for d, _ in removals):
                    payload = None  # removed: never written again
                if payload is not None:
                    payloads.append(bytes(payload))
                described.append(
                    {
                        "digest": e.digest,
                        "kind": e.kind,
                        "scope": e.scope,
                        "stream": e.stream,
                        "size": len(e.data),
                        "payloadDigest": getattr(e, "payload_digest", None),
                        "payloadSize": None if payload is None else len(payload),
                    }
                )
            header = {"clock": idx.max_clock + 1, "writer": self.writer, "namespace": namespace, "entries": described,
                      "removals": [{"payloadDigest": d, "note": n.decode("utf-8")} for d, n in removals]}
            head_bytes = json.dumps(header, sort_keys=True, separators=(",", ":")).encode("utf-8")
            checked = struct.pack(">I", len(head_bytes)) + head_bytes + b"".join(bytes(e.data) for e in new)
            self._write_frame(idx, _frame(APPEND, checked, b"".join(payloads)))
            idx = self._refresh()
            self._blank(idx, [d for d, _ in removals])
        return AppendResult(tuple(added), tuple(existing))

    def _blank(self, idx: _Index, digests: list[str]) -> int:
        """Overwrite the bytes of removed payloads with zeros; call with the lock held."""
        places = [(o, n) for d in digests for o, n in idx.payloads.get(d, ()) if any(_read_at(self._log, o, n))]
        if places:
            fd = os.open(self._log, os.O_WRONLY)
            try:
                for offset, size in places:
                    os.pwrite(fd, bytes(size), offset)
                os.fsync(fd)
            finally:
                os.close(fd)
        return len(places)

    def gc(self) -> GcReport:
        """Blank what a removal cut short left (payloads live in their records' frames, so no
        append leaves a payload no record names)."""
        with _Locked(self._lock, exclusive=True):
            idx = self._refresh()
            return GcReport(payloads=self._blank(idx, list(idx.notes)))

    def _write_frame(self, idx: _Index, frame: bytes) -> None:
        """Append one frame durably, cutting off a torn tail first; call with the lock held."""
        fd = os.open(self._log, os.O_WRONLY)
        try:
            if idx.scan.tail:
                os.ftruncate(fd, idx.end)  # an append that died before it was acknowledged
            os.lseek(fd, idx.end, os.SEEK_SET)
            view = memoryview(frame)
            while view:
                n = os.write(fd, view)
                view = view[n:]
            os.fsync(fd)
        finally:
            os.close(fd)

    # -- reads -----------------------------------------------------------------------------------

    def _snapshot(self) -> _Index:
        with _Locked(self._lock, exclusive=False):
            return self._refresh()

    def read(self, scope: str | None = None, kinds: Iterable[str] | None = None) -> Iterator[StoredRecord]:
        idx = self._snapshot()
        wanted = None if kinds is None else set(kinds)
        # a record is of the scope its bytes name, whatever it was filed under (the store drops the rest)
        needle = None if scope is None else b'"scope":' + canonical(scope)
        rows = [
            r.record
            for r in idx.rows
            if (needle is None or r.scope == scope or needle in r.record.data)
            and (wanted is None or r.record.kind in wanted)
        ]
        rows.sort(key=lambda s: s.order)
        return iter(rows)

    def read_stream(self, stream: str) -> Iterator[StoredRecord]:
        rows = [r.record for r in self._snapshot().by_stream.get(stream, ())]
        rows.sort(key=lambda s: s.order)
        return iter(rows)

    def head(self, stream: str) -> str | None:
        rows = self._snapshot().by_stream.get(stream)
        if not rows:
            return None
        return max(rows, key=lambda r: r.record.order).record.digest

    def _present(self, idx: _Index, payload_digest: str) -> bytes | None:
        """The payload's bytes where some copy still hashes to its digest; call with the lock held."""
        for offset, size in idx.payloads.get(payload_digest, ()):
            data = _read_at(self._log, offset, size)
            if sha256_digest(data) == payload_digest:
                return data
        return None

    def payload(self, payload_digest: str) -> bytes | None:
        if not isinstance(payload_digest, str) or not DIGEST_RE.match(payload_digest):
            return None
        with _Locked(self._lock, exclusive=False):
            idx = self._refresh()
            if payload_digest in idx.notes:
                return None
            return self._present(idx, payload_digest)

    def redaction_note(self, payload_digest: str) -> bytes | None:
        """The note kept in place of a removed payload, or None."""
        with _Locked(self._lock, exclusive=False):
            return self._refresh().notes.get(payload_digest)

    # -- verify ----------------------------------------------------------------------------------

    def verify(self) -> VerifyReport:
        """Re-read everything from disk and report each problem; never repair."""
        report = VerifyReport()
        with _Locked(self._lock, exclusive=False):
            buf = self._log.read_bytes()
        fresh = _Index()
        fresh.load(buf, 0)
        report.problems.extend(fresh.problems)
        if fresh.scan.damage:
            report.add(str(self._log), fresh.scan.damage)
        # a torn tail (an append killed before it was acknowledged) is not damage: it was never stored
        report.records = len(fresh.rows)
        report.refs = len({(r.record.namespace, r.record.writer) for r in fresh.rows})
        for row in fresh.rows:
            self._verify_row(row, fresh, buf, report)
        return report

    def _verify_row(self, row: _Row, idx: _Index, buf: bytes, report: VerifyReport) -> None:
        rec = row.record
        where = f"{rec.kind} {rec.digest}"
        if not DIGEST_RE.match(rec.digest):
            report.add(where, "stored digest is not sha256: and 64 hex digits")
        if rec.kind not in DIGEST_EXCLUDES:
            report.add(where, f"unknown record kind {rec.kind!r}")
        try:
            value = strict_json(rec.data)
        except (ValueError, UnicodeDecodeError) as exc:
            report.add(where, f"data is not valid JSON: {exc}")
            return
        if not isinstance(value, dict):
            report.add(where, "data is not a JSON object")
            return
        try:
            if canonical(value) != rec.data:
                report.add(where, "data is not in canonical form")
        except NotCanonicalizable as exc:
            report.add(where, f"data cannot be canonicalized: {exc}")
        schema = value.get("schema")
        match = SCHEMA_RE.match(schema) if isinstance(schema, str) else None
        if match is None:
            report.add(where, f"no valid \"schema\" member ({schema!r})")
        elif match.group(1) != rec.kind:
            report.add(where, f"schema {schema} names kind {match.group(1)}, stored as {rec.kind}")
        elif match.group(2) != "1":
            report.add(where, f"unknown schema version {schema}")
        if value.get("digest") != rec.digest:
            report.add(where, f"data's digest member {value.get('digest')!r} differs from the stored digest")
        if rec.kind in DIGEST_EXCLUDES:
            try:
                recomputed = record_digest(value, rec.kind)
            except NotCanonicalizable as exc:
                report.add(where, f"digest cannot be recomputed: {exc}")
            else:
                if recomputed != rec.digest:
                    report.add(where, f"digest does not match its content (recomputed {recomputed})")
        if value.get("scope") != row.scope:
            report.add(where, f"scope {value.get('scope')!r} differs from the stored scope {row.scope!r}")
        own = _stream_of(value, rec.kind)
        if own is not None and own != rec.stream:
            report.add(where, f"filed under stream {rec.stream!r}, but the record belongs to stream {own!r}")
        if rec.kind == "event":
            self._verify_event_payload(row, value, idx, buf, report, where)
        elif row.payload_at is not None:
            report.add(where, "a record that is not an event has a payload")

    @staticmethod
    def _verify_event_payload(
        row: _Row, value: dict[str, Any], idx: _Index, buf: bytes, report: VerifyReport, where: str
    ) -> None:
        if "payload" in value:
            report.add(where, "event data holds its payload; payloads are stored apart")
        pd = row.payload_digest
        if value.get("payloadDigest") != pd:
            report.add(where, f"payloadDigest {value.get('payloadDigest')!r} differs from the stored {pd!r}")
        if row.payload_at is None or not isinstance(pd, str):
            return
        payload = buf[row.payload_at : row.payload_at + row.payload_size]
        if pd in idx.notes:
            return  # removed; a removal cut short may not have blanked the bytes yet
        if sha256_digest(payload) != pd:
            report.add(where, f"payload {pd} does not hash to its digest")
            return
        try:
            obj = strict_json(payload)
            if not isinstance(obj, dict) or canonical(obj) != payload:
                report.add(where, f"payload {pd} is not a canonical JSON object")
        except (ValueError, UnicodeDecodeError) as exc:
            report.add(where, f"payload {pd} is not valid JSON: {exc}")
