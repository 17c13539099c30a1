"""The ``jsonl`` provider: the human-readable reference store, plain JSON Lines files in a folder.

Layout of ``<folder>/`` (format 1):

- ``records.jsonl``: one line per append that stored at least one new record::

    {"clock":3,"writer":"alice-laptop","namespace":"shared","records":[
      {"digest":"sha256:…","kind":"learning","scope":"github.com/acme/widgets",
       "stream":"learning/…","record":{…the record, minus any event payload…}}]}

  (one line in the file; wrapped here). Keys appear in that order. ``record`` is the record
  as a JSON object; its stored bytes are ``gitstore.records.canonical.canonicalize(record)``, the
  RFC 8785 form. Bytes that do not survive that round trip (never the case for a sealed
  record) are kept exactly instead, as ``"record_base64"`` in place of ``"record"``. A record's
  position is its index in ``records``; its append is ``<writer>@<clock>``. An append that
  removes payloads ends with ``"removals":[{"payload_digest":"sha256:…","note":{…}}]``
  (``"note_base64"`` under the same rule): the redaction notes kept in place of the removed
  payloads, written in the one line that also holds the removals' audit entries.
- ``payloads.jsonl``: one line per event payload, ``{"payload_digest":"sha256:…","payload":…}``
  (``"payload_base64"`` under the same rule), or, once that payload was removed, one line
  holding its redaction note instead, ``{"payload_digest":"sha256:…","note":{…}}`` (the
  canonical JSON of the event's redaction object: at, by, reason, sourceId; ``"note_base64"``
  under the same rule; older stores kept notes here, new removals keep them in records.jsonl,
  so a note line past the ones this clone's appends acknowledged is refused, as is a payload
  line there that does not hash to its digest).
  Once an append's records line names a removal, the payload is never returned; the append
  then rewrites this file without that payload's line, under the lock and in one step
  (temporary file, fsync, ``os.replace``, fsync of the folder). A payload with a note is never
  written again. ``gc`` rewrites the file the same way, keeping only payloads a stored event
  names and that have no note (an append killed after its payload lines leaves lines no
  record names). records.jsonl never holds a payload.
- ``lock``: an empty file; writers hold ``fcntl.flock(LOCK_EX)`` on it for a whole append.

Lines are UTF-8 JSON (non-ASCII text kept as is) ending in ``\\n``. An append takes the lock,
reads the current state, writes the payload lines and then the one records line, each followed
by flush and fsync, and releases the lock: an append is acknowledged once its records line is
complete. A last line without its newline, or a last line that does not parse, is a torn write:
readers ignore it and the next writer truncates it away. Any other bad line is damage: reading
records fails closed with ``IntegrityError`` and ``verify`` reports it; so is an entry whose
``scope`` or ``stream`` is not its record's own (reads by them would leave the record out).

Order rule (the same as every provider): each append that adds at least one new record takes
clock = (largest clock stored) + 1 and numbers its new records 0.. in batch order, after
dropping repeats within the batch and digests already stored. Store order is (clock, writer,
position); appends serialize on the lock, so the file is already in store order.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from gitstore.records.canonical import canonicalize, parse_json, sha256_digest
from gitstore.errors import ConflictError, GitstoreError, IntegrityError, Refused, UsageError
from gitstore.providers._base import (
    CONTRACT_VERSIONS,
    NAMESPACES,
    REQUIRED_CAPABILITIES,
    AppendResult,
    Batch,
    Entry,
    GcReport,
    Manifest,
    Namespace,
    Problem,
    Removal,
    Stored,
    VerifyReport,
    dedupe,
)
from gitstore.providers import _acks
from gitstore.providers._common import (
    refuse_links,
    note_problem,
    DIGEST_PATTERN,
    WRITER_PATTERN,
    check_writer,
    filing_problem,
    head_moved,
    payload_missing,
    payload_problem,
    record_problem,
    retry_until,
)

RECORDS = "records.jsonl"
PAYLOADS = "payloads.jsonl"
LOCK = "lock"
LOCK_SECONDS = 60.0
_PAYLOAD_DIGEST = re.compile(rb'"payloadDigest":"(sha256:[0-9a-f]{64})"')
_UNVOUCHED = ("no removal vouches for it: no append holds it and no audit entry of a removal names an event "
              "with this payload ({where})")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # never through a symbolic link a commit put in the folder
_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | _NOFOLLOW
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | _NOFOLLOW


T = TypeVar("T")


class _Rewritten(IntegrityError):
    """Fewer payload lines than acknowledged, read without the lock: a rewrite under way may
    explain it, so the read is made again holding the lock before it counts as damage."""


# -- line formats ------------------------------------------------------------------------------

def _dump(value: dict[str, Any]) -> bytes:
    """One line: compact JSON, non-ASCII kept readable, newline-terminated."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def _embed(data: bytes, name: str) -> dict[str, Any]:
    """``{name: object}`` when ``data`` is canonical JSON, else ``{name_base64: text}``."""
    try:
        value = parse_json(data)
        if canonicalize(value) == data:
            return {name: value}
    except GitstoreError:
        pass
    return {f"{name}_base64": base64.b64encode(data).decode("ascii")}


def _extract(item: dict[str, Any], name: str) -> bytes:
    """The bytes ``_embed`` stored under ``name``."""
    if name in item:
        return canonicalize(item[name])
    text = item.get(f"{name}_base64")
    if not isinstance(text, str):
        raise IntegrityError(f"has neither {name!r} nor {name + '_base64'!r}")
    try:
        return base64.b64decode(text, validate=True)
    except ValueError:
        raise IntegrityError(f"{name}_base64 is not base64") from None


def format_append(clock: int, writer: str, namespace: str, entries: Iterable[Entry],
                  removals: Iterable[Removal] = ()) -> bytes:
    """The records.jsonl line for one append."""
    items = [
        {"digest": e.digest, "kind": e.kind, "scope": e.scope, "stream": e.stream, **_embed(e.data, "record")}
        for e in entries
    ]
    line: dict[str, Any] = {"clock": clock, "writer": writer, "namespace": namespace, "records": items}
    notes = [{"payload_digest": r.payload_digest, **_embed(bytes(r.note), "note")} for r in removals]
    if notes:
        line["removals"] = notes
    return _dump(line)


@dataclass(frozen=True)
class Item:
    """One record of a parsed records line."""

    digest: str
    kind: str
    scope: str
    stream: str
    data: bytes
    misfiled: str | None = None  # what its scope and stream say that the record does not


@dataclass(frozen=True)
class Append:
    """One parsed records line."""

    clock: int
    writer: str
    namespace: str
    items: tuple[Item, ...]
    removals: tuple[tuple[str, bytes], ...] = ()  # (payload digest, note)


def _parse_json_line(line: bytes) -> dict[str, Any]:
    """One line as a JSON object (strict I-JSON), or ``IntegrityError``."""
    try:
        value = parse_json(line)
    except GitstoreError as exc:
        raise IntegrityError(str(exc)) from None
    if not isinstance(value, dict):
        raise IntegrityError("line is not a JSON object")
    return value


def parse_append(line: bytes) -> Append:
    """Parse one records.jsonl line, refusing anything off format (``IntegrityError``)."""
    value = _parse_json_line(line)
    clock, writer, namespace = value.get("clock"), value.get("writer"), value.get("namespace")
    if type(clock) is not int or clock < 1:
        raise IntegrityError(f"bad clock {clock!r}")
    if not isinstance(writer, str) or not WRITER_PATTERN.match(writer):
        raise IntegrityError(f"bad writer {writer!r}")
    if namespace not in NAMESPACES:
        raise IntegrityError(f"bad namespace {namespace!r}")
    records = value.get("records")
    if not isinstance(records, list) or not records:
        raise IntegrityError("an append lists no records")
    removals = value.get("removals", [])
    if not isinstance(removals, list):
        raise IntegrityError("removals is not a list")
    return Append(clock, writer, namespace, tuple(_parse_item(item) for item in records),
                  tuple(_parse_removal(item) for item in removals))


def _parse_removal(item: Any) -> tuple[str, bytes]:
    """One entry of a line's ``removals`` list, or ``IntegrityError``."""
    digest = item.get("payload_digest") if isinstance(item, dict) else None
    if not isinstance(digest, str) or not DIGEST_PATTERN.match(digest):
        raise IntegrityError(f"bad removed payload digest {digest!r}")
    try:
        return digest, _extract(item, "note")
    except GitstoreError as exc:
        raise IntegrityError(f"removal of {digest}: {exc}") from None


def _parse_item(item: Any) -> Item:
    """One entry of a line's ``records`` list, or ``IntegrityError``."""
    if not isinstance(item, dict):
        raise IntegrityError("a record entry is not a JSON object")
    digest = item.get("digest")
    if not isinstance(digest, str) or not DIGEST_PATTERN.match(digest):
        raise IntegrityError(f"bad record digest {digest!r}")
    names = ("kind", "scope", "stream")
    if not all(isinstance(item.get(name), str) for name in names):
        raise IntegrityError(f"record {digest} lacks kind, scope or stream")
    try:
        data = _extract(item, "record")
    except GitstoreError as exc:
        raise IntegrityError(f"record {digest}: {exc}") from None
    kind, scope, stream = item["kind"], item["scope"], item["stream"]
    return Item(digest, kind, scope, stream, data, filing_problem(item.get("record", data), kind, scope, stream))


def format_note(payload_digest: str, note: bytes) -> bytes:
    """The payloads.jsonl line that keeps a removed payload's redaction note."""
    return _dump({"payload_digest": payload_digest, **_embed(note, "note")})


def parse_payload(line: bytes) -> tuple[str, str, bytes]:
    """Parse one payloads.jsonl line into (payload digest, ``payload`` or ``note``, bytes)."""
    value = _parse_json_line(line)
    digest = value.get("payload_digest")
    if not isinstance(digest, str) or not DIGEST_PATTERN.match(digest):
        raise IntegrityError(f"bad payload digest {digest!r}")
    is_note = "note" in value or "note_base64" in value
    if is_note and ("payload" in value or "payload_base64" in value):
        raise IntegrityError(f"payload {digest}: a line holds both a payload and a redaction note")
    what = "note" if is_note else "payload"
    try:
        return digest, what, _extract(value, what)
    except GitstoreError as exc:
        raise IntegrityError(f"payload {digest}: {exc}") from None


def complete_lines(chunk: bytes) -> list[bytes]:
    """The newline-terminated lines of ``chunk``, without their newlines (a tail is dropped)."""
    return chunk[: chunk.rfind(b"\n") + 1].split(b"\n")[:-1]


# -- cached views of the two files -------------------------------------------------------------

@dataclass
class _View:
    """What has been read of one file so far: its inode and the end of its last good line."""

    inode: int = -1
    offset: int = 0
    line: int = 0

    def stale(self, fd: int) -> bool:
        """Whether the file was replaced or shrank, so it must be read again from the start."""
        st = os.fstat(fd)
        return st.st_ino != self.inode or st.st_size < self.offset


@dataclass
class _Records(_View):
    """The records read so far, in file order, with what appends need at hand."""

    stored: list[tuple[Stored, str]] = field(default_factory=list)  # (record, scope)
    digests: set[str] = field(default_factory=set)
    heads: dict[str, Stored] = field(default_factory=dict)
    notes: dict[str, bytes] = field(default_factory=dict)  # removals named by records lines
    clock: int = 0
    in_order: bool = True
    misfiled: str | None = None  # the first record filed apart from its bytes, where
    last_line: dict[str, int] = field(default_factory=dict)  # writer -> index of its last line read
    last_start: int = 0  # where the last line read starts
    ends: list[int] = field(default_factory=list)  # where each line read ends, its newline included
    chains: list[str] = field(default_factory=list)  # the running digest of the lines up to each (``_chain``)
    proven: tuple[int, str, str] | None = None  # the git folder's record last checked against the lines read
    changed: str | None = None  # what is wrong when its last line is not the one it names

    def add(self, append: Append) -> None:
        """Take in one parsed line; a digest seen before keeps its first place."""
        for digest, note in append.removals:
            self.notes.setdefault(digest, note)
        for position, item in enumerate(append.items):
            if item.digest in self.digests:
                continue
            namespace: Namespace = append.namespace  # type: ignore[assignment]
            stored = Stored(item.digest, item.kind, item.stream, item.data, namespace,
                            append.writer, append.clock, position, f"{append.writer}@{append.clock}")
            if self.stored and stored.order < self.stored[-1][0].order:
                self.in_order = False
            self.stored.append((stored, item.scope))
            self.digests.add(item.digest)
            head = self.heads.get(item.stream)
            if head is None or head.order < stored.order:
                self.heads[item.stream] = stored
        self.clock = max(self.clock, append.clock)

    def ordered(self) -> list[tuple[Stored, str]]:
        """Every record with its scope, in store order."""
        if self.in_order:
            return list(self.stored)
        return sorted(self.stored, key=lambda pair: pair[0].order)


@dataclass
class _Payloads(_View):
    """Where each payload's line is: digest -> (offset, length); and the notes kept so far."""

    index: dict[str, tuple[int, int]] = field(default_factory=dict)
    notes: dict[str, bytes] = field(default_factory=dict)
    chains: list[str] = field(default_factory=list)  # the running digest of the lines up to each, damaged ones too
    # lines no append of this clone writes past the acknowledged ones: (index, what is wrong)
    suspect: list[tuple[int, str]] = field(default_factory=list)
    note_lines: list[tuple[int, str]] = field(default_factory=list)  # (index, payload digest) of each note line
    vouched_notes: int = 0  # how many of them a removal was found to vouch for (``_refuse_unvouched_note_lines``)

    def extend(self, line: bytes) -> None:
        """Take in one complete line's place and its running digest (``_payload_chain``)."""
        self.offset += len(line) + 1
        self.chains.append(_chain(self.chains[-1] if self.chains else _PAYLOADS_SEED, line + b"\n"))


# -- the provider ------------------------------------------------------------------------------

class JsonlProvider:
    """Stores records as JSON Lines in a folder; safe for many threads and many processes."""

    def __init__(self, folder: str | Path, writer: str, identity: str = "", inflight: Path | None = None) -> None:
        self.writer = check_writer(writer)
        self.folder = Path(folder)
        self.identity = identity  # the store's random id its log lines name ("": none, as in a bare folder)
        # where the append under way is named before its records line is written: beside the
        # anchor, in the work tree's git folder (None: the store is no clone's, nothing vouches)
        self.inflight = inflight
        # beside it, how many lines this clone's appends acknowledged, the digest of the last and a
        # running digest of them all: what vouches for the lines, where no patch reaches (the log beside the files can)
        self._vouching = None if inflight is None else inflight.with_name(
            inflight.name.removesuffix(".inflight") + ".acked")
        self._records_path = self.folder / RECORDS
        self._payloads_path = self.folder / PAYLOADS
        self._lock = threading.RLock()
        self._records = _Records()
        self._payloads = _Payloads()
        self._holding = False  # this handle holds the lock: no rewrite can be under way
        refuse_links(self.folder, *(self.folder / name for name in (LOCK, RECORDS, PAYLOADS, f"{PAYLOADS}.tmp",
                                                                     _acks.log_path(self._records_path).name)))
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            acked = _acks.acked(self._records_path)
            records = acked.appends or self.vouched_appends()
            payloads = acked.payloads or min((count for count, _ in self._vouched_payloads() or ()), default=0)
            for name, held in ((LOCK, 0), (RECORDS, records), (PAYLOADS, payloads)):
                if not held:  # a file that held acknowledged lines is never made again empty
                    os.close(os.open(self.folder / name, _OPEN_FLAGS, 0o644))
            _fsync_dir(self.folder)
        except OSError as exc:
            raise UsageError(f"{self.folder}: cannot use as a jsonl store: {exc.strerror}") from None

    def manifest(self) -> Manifest:
        return Manifest(
            name="jsonl",
            contracts=CONTRACT_VERSIONS,
            capabilities=REQUIRED_CAPABILITIES | {"redact-payload", "gc"},
            storage=f"jsonl folder {self.folder}",
        )

    # -- locking and file access ---------------------------------------------------------------

    @contextmanager
    def _exclusive(self) -> Iterator[None]:
        """This process's threads, then every process, one at a time (flock on ``lock``)."""
        with self._lock, _io_errors(self.folder):
            fd = os.open(self.folder / LOCK, _OPEN_FLAGS, 0o644)
            try:
                retry_until(LOCK_SECONDS, lambda: _try_flock(fd), f"{self.folder / LOCK}")
                self._holding = True
                yield
            finally:
                self._holding = False
                os.close(fd)  # closing the descriptor releases the lock

    def _steady(self, read: Callable[[], T]) -> T:
        """Run a read; when it found fewer payload lines than acknowledged, which an append
        writing payloads.jsonl again meanwhile explains, run it once more holding the lock
        (no writer at work) before calling that damage."""
        try:
            return read()
        except _Rewritten:
            with self._exclusive():
                return read()

    @contextmanager
    def _open(self, path: Path, write: bool = False) -> Iterator[int | None]:
        """A descriptor on ``path`` (None when a reader finds it missing)."""
        with _io_errors(self.folder):
            try:
                fd: int | None = os.open(path, _OPEN_FLAGS if write else _READ_FLAGS)
            except FileNotFoundError:
                if write:
                    raise
                fd = None
            try:
                yield fd
            finally:
                if fd is not None:
                    os.close(fd)

    @contextmanager
    def _open_records(self) -> Iterator[int]:
        """records.jsonl for writing (the lock is held): made when missing only while nothing
        says appends were acknowledged in it, so a deleted log is never taken for a new one."""
        if not self._records_path.exists() and self._anything_acknowledged():
            self._scan_records(None)  # names what is missing
        with self._open(self._records_path, write=True) as fd:
            assert fd is not None
            yield fd

    def _anything_acknowledged(self) -> bool:
        """Whether the log beside the files or the git folder's record counts any append."""
        return bool(_acks.acked(self._records_path).appends or self.vouched_appends())

    def _scan_records(self, fd: int | None) -> _Records:
        """Bring the cached records up to date with the file; fail closed on damage."""
        view = self._records
        vouched = self._vouched()  # before the file: this clone's appends only make it grow after
        if fd is None:
            self._check_acked(0)
            self._records = _Records()
            self._check_vouched(None, self._records, vouched)
            return self._records
        fresh = view.stale(fd)  # first read, or the file was replaced or shrank: what was lost shows here
        # the log before the file: an append it counts is in what is read after, whatever lands meanwhile
        acked = _acks.acked(self._records_path) if fresh else None
        if fresh:
            view = self._records = _Records(inode=os.fstat(fd).st_ino)
        chunk = os.pread(fd, os.fstat(fd).st_size - view.offset, view.offset)
        lines = complete_lines(chunk)
        for index, line in enumerate(lines):
            try:
                append = parse_append(line)
            except IntegrityError as exc:
                if _is_torn(index, lines, chunk) and not _parses(line):
                    break
                raise IntegrityError(f"{self._records_path} line {view.line + 1}: {exc}") from None
            for item in append.items:
                if item.misfiled is not None and view.misfiled is None:
                    view.misfiled = f"{self._records_path} line {view.line + 1}: record {item.digest} {item.misfiled}"
            view.add(append)
            view.last_line[append.writer] = view.line
            view.last_start = view.offset
            view.offset += len(line) + 1
            view.ends.append(view.offset)
            view.chains.append(_chain(view.chains[-1] if view.chains else "", line + b"\n"))
            view.line += 1
        if acked is not None:
            self._check_acked(view.line, acked)
        self._check_vouched(fd, view, vouched)
        return view

    def _check_acked(self, appends: int, acked: _acks.Acked | None = None) -> None:
        """Refuse a store holding fewer appends (or payload lines) than it acknowledged (read
        before the file was): lines cut from it, or a file deleted or truncated, are damage,
        never a torn write."""
        acked = acked or _acks.acked(self._records_path)
        if appends < acked.appends:
            what = "the file" if self._records_path.exists() else "the file (deleted)"
            raise IntegrityError(f"{self._records_path}: {_acks.lost(what, appends, acked.appends)}")
        if acked.payloads and not self._payloads_path.exists():
            raise IntegrityError(f"{self._payloads_path}: the file is gone, and {acked.payloads} payload "
                                 "line(s) were acknowledged in it")
        if not self._payloads_path.exists():
            self._check_payloads_vouched(None, _Payloads(), self._vouched_payloads())

    def _check_vouched(self, fd: int | None, view: _Records, vouched: Vouched | None) -> None:
        """Refuse a log holding fewer lines than the git folder's record (``vouched``, read
        before the file) says this clone's appends acknowledged, or whose line at that count is
        not the one they wrote: the file deleted, cut or replaced (a checkout or a pull of a
        commit holding its name, a hand), which the log beside it may not show, being in the
        work tree too. Never an empty store, and never a next append writing its record anew. A
        line there changed is noted (``changed``), which reads and appends refuse (``_intact``)
        and ``verify``, which must open the store to say what else is wrong, reports. So is any
        earlier line changed, once the record holds the running digest of every line it counts
        (``_chain``): the lines read are hashed as they are read, once per file state."""
        if not vouched or not vouched[0] or vouched == view.proven:
            return
        count, digest, chain = vouched
        where = self._records_path if fd is not None else f"{self._records_path} (deleted)"
        if view.line < count:
            raise IntegrityError(f"{where}: holds {view.line} line(s) but this clone's appends acknowledged "
                                 f"{count} ({self._vouching}): {count - view.line} acknowledged line(s) are missing "
                                 "(the file deleted, cut or replaced, as a checkout of a commit holding it does); "
                                 "this is damage: restore the file from a copy, or run `gitstore purge` to start afresh")
        assert fd is not None
        if _line_digest(fd, view, count - 1) != digest or chain and view.chains[count - 1] != chain:
            view.changed = (f"{where}: {_first_unlike(self._trail(RECORDS), view.chains, count)} is not the one "
                            f"this clone's appends wrote (they acknowledged {count} line(s), {self._vouching}; "
                            "changed, or lines swapped or put before it): damage or a patch, see `gitstore verify`")
        else:
            view.changed = None
        view.proven = vouched

    @staticmethod
    def _intact(view: _Records) -> _Records:
        """``view``, unless the last line the git folder's record vouches for changed."""
        if view.changed is not None:
            raise IntegrityError(view.changed)
        return view

    def _scan_payloads(self, fd: int | None) -> _Payloads:
        """Bring the payload index up to date with the file; damaged lines are skipped, and
        counted as no line, so payload lines overwritten with anything read as lost ones."""
        view = self._payloads
        states = self._vouched_payloads()  # before the file: only a rewrite under way shrinks it after
        if fd is None:
            self._payloads = _Payloads()
            self._check_payloads_vouched(None, self._payloads, states)
            return self._payloads
        fresh = view.stale(fd)
        acked = _acks.acked(self._records_path).payloads if fresh else 0  # the log before the file
        if fresh:
            view = self._payloads = _Payloads(inode=os.fstat(fd).st_ino)
        chunk = os.pread(fd, os.fstat(fd).st_size - view.offset, view.offset)
        lines = complete_lines(chunk)
        # only lines past those acknowledged are hashed here (a read hashes the one it returns)
        unproven = min(count for count, _ in states) if states else len(view.chains) + len(lines) + 1
        for index, line in enumerate(lines):
            try:
                digest, what, data = parse_payload(line)
            except IntegrityError:
                if _is_torn(index, lines, chunk) and not _parses(line):
                    break
                view.extend(line)  # damage: verify reports it; nothing to index, and it is
                continue           # no acknowledged line (one overwritten reads as lost)
            if what == "note":  # appends keep notes in records.jsonl: one here is only ever an older store's
                view.suspect.append((len(view.chains), "a redaction note"))
                view.note_lines.append((len(view.chains), digest))
                view.notes.setdefault(digest, data)
            elif len(view.chains) >= unproven and sha256_digest(data) != digest:  # appends write none such
                view.suspect.append((len(view.chains), "a payload that does not match its digest"))
            if what != "note" and digest not in view.index:
                view.index[digest] = (view.offset, len(line))
            view.extend(line)
            view.line += 1
        if view.line < acked:
            self._payloads = _Payloads()
            lost = _Rewritten if not self._holding else IntegrityError  # a rewrite may have shrunk it
            raise lost(f"{self._payloads_path}: holds {view.line} line(s) but {acked} were "
                       "acknowledged: lines were lost")
        self._check_payloads_vouched(fd, view, states)
        return view

    def _check_payloads_vouched(self, fd: int | None, view: _Payloads, states: PayloadStates | None) -> None:
        """Refuse a payloads.jsonl whose first lines are none of the states the git folder's
        record (``states``, read before the file) says this clone's appends acknowledged:
        deleted, cut, or a line changed or swapped (a checkout of a commit holding its name,
        a copy over it, a hand), so payload texts would vanish without a word. Redaction and
        ``gc`` rewrite the file only after naming the state they make beside the one before
        it, so the one legitimate way a line goes always leaves a state the record names; a
        reader without the lock may still have read the record before such a rewrite and the
        file after it, so it reads again holding the lock (``_Rewritten``) before that counts."""
        if not states:
            # a record written before it vouched for payloads.jsonl (or none): the log beside the
            # files still counts the payload lines acknowledged, so a note line past them is refused
            acked = _acks.acked(self._records_path)
            if acked.appends:
                self._refuse_unacknowledged(view, acked.payloads, "the log beside the files counts")
            # and in a clone, wherever it sits (a line put before the counted ones moves nothing
            # the log checks), a note line no removal vouches for is refused: the next append
            # would write the record whole, vouching for it for good
            if self._vouching is not None:
                self._refuse_unvouched_note_lines(view)
            return
        matched = [count for count, chain in states if _payload_chain(view.chains, count) == chain]
        if matched:
            self._refuse_unacknowledged(view, min(matched))
            return
        self._payloads = _Payloads()
        count = states[-1][0]
        if fd is None:
            raise IntegrityError(f"{self._payloads_path} (deleted): this clone's appends acknowledged {count} "
                                 f"payload line(s) in it ({self._vouching}): the file deleted or replaced (as a "
                                 "checkout of a commit holding it does); this is damage: restore the file from a "
                                 "copy, or run `gitstore purge` to start afresh")
        fault = _Rewritten if not self._holding else IntegrityError
        held = len(view.chains)
        if held < min(count for count, _ in states):
            raise fault(f"{self._payloads_path}: holds {held} line(s) but this clone's appends acknowledged "
                        f"{count} ({self._vouching}): {count - held} acknowledged payload line(s) are missing "
                        "(the file cut or replaced); this is damage: restore the file from a copy, or run "
                        "`gitstore purge` to start afresh")
        raise fault(f"{self._payloads_path}: {_first_unlike(self._trail(PAYLOADS), view.chains, count)} is not "
                    f"the one this clone's appends wrote (they acknowledged {count} line(s), {self._vouching}; "
                    "changed, or lines swapped or put before it): damage or a patch, see `gitstore verify`")

    def _refuse_unacknowledged(self, view: _Payloads, count: int, whose: str = "") -> None:
        """Refuse a payloads.jsonl holding, past the ``count`` lines this clone's appends
        acknowledged, a line none of its appends writes there: a redaction note (appends keep
        theirs in records.jsonl), which would take a payload's text away under a reason nobody
        gave, or a payload that does not hash to the digest it names, which would stand in for
        the payload a later append stores. A zero-context hunk or a hand appends such lines
        without reading the file; reads of payloads and appends refuse them (an append would
        vouch for them) as records.jsonl's are refused, until the line is taken out. Payload
        lines past the count that hash to their digest stay: an append killed before its
        records line leaves them, and their bytes are the payload's own."""
        found = next(((index, what) for index, what in view.suspect if index >= count), None)
        if found is None:
            return
        self._payloads = _Payloads()  # read afresh next time: the line may be taken out meanwhile
        fault = _Rewritten if not self._holding else IntegrityError
        counted = (f"{whose} ({_acks.log_path(self._records_path)})" if whose else
                   f"this clone's appends acknowledged ({self._vouching})")
        raise fault(f"{self._payloads_path} line {found[0] + 1}: {found[1]} past the {count} line(s) {counted}, "
                    "which no append of this clone wrote (a patch or "
                    "a hand put it there): no payload is read and nothing appended until that line is taken out; "
                    "see `gitstore verify`")

    def _refuse_unvouched_note_lines(self, view: _Payloads) -> None:
        """Refuse a payloads.jsonl holding a redaction note line that no records line's removal
        and no audit entry of a removal vouches for (``_vouched_notes``, as ``gc`` and ``verify``
        take it): older versions kept a note there with its audit entry in an append of its own,
        so every note they wrote is vouched for; one nothing vouches for a patch or a hand put
        there, to take a payload's text away under a reason nobody gave. Only the note lines not
        yet found vouched for are checked (records only grow), so a store holding none costs
        nothing; the records read are brought up to date first."""
        if view.vouched_notes >= len(view.note_lines):
            return
        with self._lock, self._open(self._records_path) as rfd:
            vouched = _vouched_notes(self._scan_records(rfd) if rfd is not None else self._records)
        for index, digest in view.note_lines[view.vouched_notes:]:
            if digest not in vouched:
                self._payloads = _Payloads()  # read afresh next time: the line may be taken out meanwhile
                fault = _Rewritten if not self._holding else IntegrityError
                raise fault(f"{self._payloads_path} line {index + 1}: a redaction note that no removal vouches "
                            "for (no records line's removal, no audit entry of one; a patch or a hand put it there): "
                            "no payload is read and nothing appended until that line is taken out; "
                            "see `gitstore verify`")
            view.vouched_notes += 1

    def _trail(self, name: str) -> Path | None:
        """Beside the git folder's record: the trail of ``name``'s lines (``_keep_trail``)."""
        return None if self._vouching is None else self._vouching.with_name(f"jsonl.{name.split('.')[0]}.trail")

    # -- writing -------------------------------------------------------------------------------

    def append(self, batch: Batch) -> AppendResult:
        return self._append(batch, None)

    def append_if_head(self, batch: Batch, stream: str, expected: str | None) -> AppendResult:
        return self._append(batch, (stream, expected))

    def _append(self, batch: Batch, guard: tuple[str, str | None] | None) -> AppendResult:
        """Append under the lock: drop a torn tail, check the guard, write payloads then one
        line (with the batch's removals), then drop the removed payloads' lines."""
        with self._exclusive(), self._open_records() as fd:
            view = self._intact(self._scan_records(fd))
            _drop_torn_tail(fd, view.offset)
            self._refuse_unvouched(fd, view)
            if guard is not None:
                head = view.heads.get(guard[0])
                current = head.digest if head is not None else None
                if current != guard[1]:
                    raise head_moved(guard[0], current, guard[1])
            for removal in batch.removals:
                if self._note(view, removal.payload_digest) is not None:
                    raise ConflictError(f"payload {removal.payload_digest} was already removed")
            entries = dedupe(batch.entries)
            new = [e for e in entries if e.digest not in view.digests]
            existing = tuple(e.digest for e in entries if e.digest in view.digests)
            if not new:
                if batch.removals:
                    raise Refused("an append that removes payloads adds the audit entries of the removals")
                return AppendResult(existing=existing)
            removed = {r.payload_digest for r in batch.removals}
            self._store_payloads([e for e in new if e.payload_digest not in removed], view)
            line = format_append(view.clock + 1, self.writer, batch.namespace, new, batch.removals)
            self._name_inflight(view.line, line)
            _write_at(fd, view.offset, line)
            appends = self._scan_records(fd).line
            if removed:
                self._rewrite_payloads(lambda digest: digest not in removed, fd, self._records)
            else:
                _acks.note(self._records_path, appends, self._payloads.line, self.identity)
            self._vouch(fd, self._records)
            return AppendResult(added=tuple(e.digest for e in new), existing=existing)

    @contextmanager
    def _open_payloads(self) -> Iterator[int]:
        """payloads.jsonl for writing (the lock is held): made when missing only while the git
        folder's record says no payload line was acknowledged in it."""
        if not self._payloads_path.exists():
            self._scan_payloads(None)  # names what is missing
        with self._open(self._payloads_path, write=True) as fd:
            assert fd is not None
            yield fd

    def _store_payloads(self, entries: list[Entry], records: _Records) -> None:
        """Write the payload lines of new entries (before their records line; the lock is held)."""
        with self._open_payloads() as fd:
            view = self._scan_payloads(fd)
            _drop_torn_tail(fd, view.offset)
            lines: list[bytes] = []
            # a removed payload is never written again
            seen = set(view.index) | set(view.notes) | set(records.notes)
            for e in entries:
                if e.payload is not None and e.payload_digest and e.payload_digest not in seen:
                    seen.add(e.payload_digest)
                    embedded = _embed(bytes(e.payload), "payload")
                    lines.append(_dump({"payload_digest": e.payload_digest, **embedded}))
            if lines:
                _write_at(fd, view.offset, b"".join(lines))
                self._scan_payloads(fd)

    def _rewrite_payloads(self, keep: Callable[[str], bool], fd: int, view: _Records) -> int:
        """Rewrite payloads.jsonl in one step without the payload lines ``keep`` refuses (note
        lines and lines that do not parse stay); the lock is held, and ``view`` is what the
        records file ``fd`` holds. Returns how many went. The smaller line count is acknowledged
        before the file shrinks, so a rewrite cut short never reads as lost lines; and the git
        folder's record names the state it makes beside the one before it until it is made."""
        with self._open_payloads() as pfd:
            self._scan_payloads(pfd)  # refuses a file that is not the one acknowledged
            chunk = os.pread(pfd, os.fstat(pfd).st_size, 0)
        lines = complete_lines(chunk)

        def stays(line: bytes) -> bool:
            digest = _payload_digest_of(line)
            return digest is None or _note_of(line) is not None or keep(digest)

        kept = [line for line in lines if stays(line)]
        _acks.note(self._records_path, view.line, sum(1 for line in kept if _sound_payload(line)), self.identity)
        if len(kept) == len(lines):
            return 0
        data = b"".join(line + b"\n" for line in kept)
        self._vouch(fd, view, (_payload_state(chunk), _payload_state(data)))
        _replace(self._payloads_path, data)
        self._payloads = _Payloads()
        self._vouch(fd, view)  # the state it made, read back
        return len(lines) - len(kept)

    def _note(self, records: _Records, payload_digest: str) -> bytes | None:
        """The note kept for a payload: in a records line, or (older stores) in payloads.jsonl."""
        found = records.notes.get(payload_digest)
        if found is not None:
            return found
        with self._open(self._payloads_path) as fd:
            return None if fd is None else self._scan_payloads(fd).notes.get(payload_digest)

    def redaction_note(self, payload_digest: str) -> bytes | None:
        """The note kept in place of a removed payload, or None."""
        def read() -> bytes | None:
            with self._lock, self._open(self._records_path) as fd:
                return self._note(self._intact(self._scan_records(fd)), payload_digest)
        return self._steady(read)

    def gc(self) -> GcReport:
        """Rewrite payloads.jsonl keeping only payloads a stored event names and that have no
        note: removed payloads and the lines of killed appends go (nothing else changes). A note
        line in payloads.jsonl that nothing vouches for is refused, never acted on."""
        with self._exclusive(), self._open_records() as fd:
            view = self._intact(self._scan_records(fd))
            named = set()
            for stored, _ in view.stored:
                if stored.kind == "event":
                    found = _PAYLOAD_DIGEST.search(stored.data)
                    if found:
                        named.add(found.group(1).decode())
            with self._open(self._payloads_path) as pfd:
                old_notes = set() if pfd is None else set(self._scan_payloads(pfd).notes)
            self._refuse_unvouched_notes(old_notes - set(view.notes), view)
            noted = set(view.notes) | old_notes
            erased = self._rewrite_payloads(lambda digest: digest in named and digest not in noted, fd, view)
            leftovers = self._payloads_path.with_name(self._payloads_path.name + ".tmp")
            files = 0
            if leftovers.exists():  # a rewrite killed before its rename
                leftovers.unlink()
                files = 1
        return GcReport(payloads=erased, objects=files)

    def _refuse_unvouched_notes(self, old_notes: set[str], view: _Records) -> None:
        """Refuse to erase any payload on the word of a note line in payloads.jsonl that no
        records line's removal and no audit entry of a removal vouches for (``_vouched``): a
        patch or a hand may have put it there, and ``gc`` would then lose the text for good."""
        unvouched = sorted(old_notes - _vouched_notes(view))
        if unvouched:
            raise IntegrityError(f"{self._payloads_path}: a redaction note for payload {unvouched[0]} that no "
                                 "removal vouches for (a patch or a hand put it there): gc erases no payload on "
                                 "its word; take that note line out by hand, or run `gitstore purge` to start "
                                 "afresh; see `gitstore verify`")

    # -- whose store it is ----------------------------------------------------------------------

    def store_id(self) -> str:
        """The id the log's last lines name ("" for none): the one the clone's git folder
        anchors, in a store gitstore wrote for this clone."""
        return _acks.acked(self._records_path).store

    def writers(self) -> frozenset[str]:
        """The writer ids of the appends the file holds."""
        with self._lock, self._open(self._records_path) as fd:
            return frozenset(self._scan_records(fd).last_line)

    def unvouched_writers(self) -> frozenset[str]:
        """The writer ids of the appends past those this clone acknowledged (``_acknowledged``)
        that nothing vouches for (``_unvouched``): lines put there by hand, a patch or a copy."""
        vouched = self._vouched()  # before the file: it only grows after
        with self._lock, self._open(self._records_path) as fd:
            if fd is None:
                return frozenset()
            view = self._scan_records(fd)
            return self._unvouched(fd, view, self._acknowledged(fd, view, vouched))

    def vouched_appends(self) -> int:
        """How many lines the git folder's record says this clone's appends acknowledged."""
        return (self._vouched() or (0, ""))[0]

    def _unvouched(self, fd: int, view: _Records, acked: int) -> frozenset[str]:
        """The writers of the lines past the ``acked`` ones this clone acknowledged, unless the
        last of them is the line the in-flight file names (its index and the digest of its
        bytes): an append killed after its records line and before its record. The lines
        before it were vouched for when that append checked the store before writing it, so
        only the last line counts. Nothing else vouches: the writer id a line names is public
        (it names the clone's memory refs), so a patch can put lines claiming it."""
        past = frozenset(w for w, last in view.last_line.items() if last >= acked)
        if not past:
            return past
        named = None if self.inflight is None else _count_and_digest(self.inflight)
        if named is not None and named[0] == view.line - 1 >= 0 and _last_line_digest(fd, view) == named[1]:
            return frozenset()
        return past

    def _refuse_unvouched(self, fd: int, view: _Records) -> None:
        """Refuse to append after lines this clone did not write (put there after the store
        was opened): the append would vouch for them. The lock is held."""
        if self.inflight is None:
            return
        unvouched = self._unvouched(fd, view, self._acknowledged(fd, view, self._vouched()))
        if unvouched:
            raise Refused(f"{self._records_path} holds appends gitstore did not write for this clone (writer "
                          f"{', '.join(sorted(unvouched))}; a patch or a copy brought them since the store was "
                          f"opened), so nothing is appended: move the folder aside to keep it "
                          f"(`mv {self.folder} {self.folder}.foreign`), then run the command again")

    def _vouched(self) -> Vouched | None:
        """What the clone's git folder says this clone's appends acknowledged: the line count,
        the digest of the last of those lines and the running digest of them all (``_chain``;
        "" in a record written before it held one); None when it says nothing yet (no record,
        or no git folder), so the log beside the files is taken instead."""
        if self._vouching is None:
            return None
        found = _acked_record(self._vouching)  # "0" (no line yet), unreadable or torn: vouches for nothing
        return None if found is None else found[0]

    def _vouched_payloads(self) -> PayloadStates | None:
        """What the clone's git folder says this clone's appends acknowledged in payloads.jsonl:
        the states the file may hold (its first lines' count and running digest), one, or two
        while a rewrite is under way; None when it says nothing of the file (no record, a
        record written before it vouched for payloads, or one that cannot be read)."""
        if self._vouching is None:
            return None
        found = _acked_record(self._vouching)
        return None if found is None else found[1]

    def _acknowledged(self, fd: int, view: _Records, vouched: Vouched | None) -> int:
        """How many of the file's lines this clone vouches for: those the git folder's record
        (``vouched``, read before the file) counts (a file holding fewer lost acknowledged ones,
        deleted, cut or replaced: damage, ``IntegrityError``, never a store of another's); with
        no record yet, those the log beside the files counts, as it stands (a store
        made before records). A line slipped in before the count (all a patch that never saw
        the file can do) pushes this clone's own last line past it, where only the append named
        in flight vouches for it, and not at its new index; a line changed in place is damage,
        which reads and appends refuse and ``verify`` reports (the record's digest of the last line
        no longer matches)."""
        if vouched is None:
            return _acks.acked(self._records_path).appends
        self._check_vouched(fd, view, vouched)  # fewer lines than it counts: damage, never a foreign store
        return vouched[0]

    def _vouched_line_changed(self, data: bytes) -> str | None:
        """What ``verify`` says when the lines the git folder's record vouches for are not the
        ones it names (changed, swapped, or lines slipped in before them), or None: the first
        that differs, as the trail tells it (``_first_unlike``)."""
        vouched = self._vouched()
        if not vouched or not vouched[0]:
            return None
        lines = data.split(b"\n")
        count, digest, chain = vouched
        if count >= len(lines):
            return None  # fewer lines than it counts: reported as missing ones
        chains: list[str] = []
        for line in lines[:count]:
            chains.append(_chain(chains[-1] if chains else "", line + b"\n"))
        if sha256_digest(lines[count - 1] + b"\n") != digest or chain and chains[-1] != chain:
            return (f"{_first_unlike(self._trail(RECORDS), chains, count)} is not the one this clone's appends "
                    f"wrote (they acknowledged {count} line(s); changed, or lines swapped or put before it): "
                    "damage or a patch")
        return None

    def _vouch(self, fd: int, view: _Records, payloads: PayloadStates | None = None) -> None:
        """Record in the clone's git folder that this clone's appends acknowledged every line
        the file holds (the lock is held, after the log line): their count and the digest of
        the last, written whole. Quietly left when the git folder cannot be written: the append
        named in flight still vouches for the last line, until the next append records it. Only
        ever extended: while the file no longer holds the line the record names, or fewer lines
        than it counts, the record stays as it is, so the loss is never written over. With them
        the running digest of every line (``_chain``), extended from the one before as lines are
        read; a record written before it held one is given one here, once the file proves what
        that record names. Then what payloads.jsonl holds (``payloads``; by default the file as
        it stands, which reading it has just proven against the record): its line count and the
        running digest of its lines, or, while a rewrite is under way, the states before and
        after it; a record written before it held them is given them here. Beside it, the
        trails that name the first line that differs, should one (``_keep_trail``)."""
        if self._vouching is None:
            return
        standing = self._vouched()
        if standing and standing[0] and (standing[0] > view.line
                                         or _line_digest(fd, view, standing[0] - 1) != standing[1]
                                         or standing[2] and view.chains[standing[0] - 1] != standing[2]):
            return  # the file no longer proves what it counts: left for verify to report, never lowered
        chains: list[str] | None = None
        if not view.line:
            record = "0"
        else:
            if payloads is None:
                with self._open(self._payloads_path) as pfd:
                    chains = list(self._scan_payloads(pfd).chains)  # refuses a file not the one acknowledged
                payloads = ((len(chains), _payload_chain(chains, len(chains)) or _PAYLOADS_SEED),)
            states = "".join(f" {count} {chain}" for count, chain in payloads)
            record = f"{view.line} {_last_line_digest(fd, view)} {view.chains[-1]}{states}"
        with suppress(OSError):
            _replace(self._vouching, record.encode("ascii") + b"\n")
            _keep_trail(self._trail(RECORDS), view.chains, view.line)
            if chains is not None:  # a rewrite under way names two states: its trail waits for the one it makes
                _keep_trail(self._trail(PAYLOADS), chains, len(chains))

    def vouch_store(self) -> None:
        """Once the store was taken as this clone's, record in the git folder what vouches for
        its lines, when nothing there does yet: a store made before that record existed is
        taken as it stands this once (its log beside the files, and the append named in
        flight, vouching for its lines), and never again by its log alone."""
        if self._vouching is None or self._vouched() is not None:
            return
        with self._exclusive(), self._open_records() as fd:
            view = self._scan_records(fd)
            if self._vouched() is None and not self._unvouched(fd, view, _acks.acked(self._records_path).appends):
                self._vouch(fd, view)

    def _name_inflight(self, index: int, line: bytes) -> None:
        """Name, durably and before it is written, the records line an append is about to
        write as line ``index``, so a kill before its log line leaves a line this clone can
        vouch for. Quietly left when the git folder cannot be written: such a kill then
        leaves the store refused, whole, until it is moved aside."""
        if self.inflight is None:
            return
        with suppress(OSError):
            fd = os.open(self.inflight, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
                         | _NOFOLLOW, 0o644)
            try:
                _write_at(fd, 0, f"{index} {sha256_digest(line)}\n".encode("ascii"))
            finally:
                os.close(fd)

    def name_store(self) -> None:
        """Log, with the counts as they stand, that the files are the store ``identity`` names,
        so a store holding no append yet names it too; quietly left for the next command (or
        append) when the folder cannot be written."""
        acked = _acks.acked(self._records_path)
        if self.identity and acked.store != self.identity:
            with suppress(OSError):  # a folder that cannot be written: the next append names it
                _acks.note(self._records_path, acked.appends, acked.payloads, self.identity)

    # -- reading -------------------------------------------------------------------------------

    def _current(self) -> list[tuple[Stored, str]]:
        """Every record with its scope, in store order, as of now. Reads find records by the
        scope and stream they are filed under: one filed apart from its bytes would be left
        out of its own, so it fails them closed (IntegrityError naming it)."""
        with self._lock, self._open(self._records_path) as fd:
            view = self._scan_records(fd)
            if view.misfiled is not None:
                raise IntegrityError(f"{view.misfiled}; run `gitstore verify`")
            return self._intact(view).ordered()

    def read(self, scope: str | None = None, kinds: Iterable[str] | None = None) -> Iterator[Stored]:
        wanted = set(kinds) if kinds is not None else None
        for stored, stored_scope in self._current():
            if wanted is not None and stored.kind not in wanted:
                continue
            if scope is not None and stored_scope != scope:
                continue
            yield stored

    def read_stream(self, stream: str) -> Iterator[Stored]:
        return iter([stored for stored, _ in self._current() if stored.stream == stream])

    def head(self, stream: str) -> str | None:
        with self._lock, self._open(self._records_path) as fd:
            head = self._intact(self._scan_records(fd)).heads.get(stream)
        return head.digest if head is not None else None

    def payload(self, payload_digest: str) -> bytes | None:
        return self._steady(lambda: self._payload(payload_digest))

    def _payload(self, payload_digest: str) -> bytes | None:
        with self._lock, self._open(self._records_path) as rfd:
            if self._intact(self._scan_records(rfd)).notes.get(payload_digest) is not None:
                return None  # removed: a line a killed removal left is never returned
        with self._lock, self._open(self._payloads_path) as fd:
            line = None if fd is None else self._payload_line(fd, payload_digest)
        if line is None:
            return None
        digest, what, data = parse_payload(line)
        if digest == payload_digest and what == "note":
            return None
        if digest != payload_digest or sha256_digest(data) != payload_digest:
            raise IntegrityError(
                f"payload {payload_digest} in {self._payloads_path} does not match its digest"
            )
        return data

    def _payload_line(self, fd: int, payload_digest: str) -> bytes | None:
        """The line holding a payload, or None (also once it has a note); re-indexes once if
        the cached place is stale."""
        for _ in range(2):
            view = self._scan_payloads(fd)
            place = view.index.get(payload_digest)
            if place is None or payload_digest in view.notes:
                return None
            line = os.pread(fd, place[1], place[0])
            if _payload_digest_of(line) == payload_digest:
                return line
            self._payloads = _Payloads()  # a rewrite reused the inode: read the file afresh
        return line

    # -- verifying -----------------------------------------------------------------------------

    def verify(self) -> VerifyReport:
        """Re-read both files from the start and check every line. Never repairs.

        An append under way can look like damage to a reader: a removal's records line
        before its payload is gone, payloads.jsonl written again shorter after the log was
        read. So what a first reading finds is checked once more holding the lock, with no
        writer at work (when the lock cannot be had, the first reading stands)."""
        report = self._verify_once()
        if report.ok:
            return report
        try:
            with self._exclusive():
                return self._verify_once()
        except ConflictError:
            return report

    def _verify_once(self) -> VerifyReport:
        """One reading of both files, the acknowledgement log first."""
        report = VerifyReport()
        acked = _acks.acked(self._records_path)  # before the files: they only grow after it
        try:
            data = _read_bytes(self._records_path)
            notes, cited, vouched = _verify_records(self._records_path, data, report,
                                                    max(acked.appends, self.vouched_appends()))
            changed = self._vouched_line_changed(data)
            if changed is not None:
                report.problems.append(Problem(str(self._records_path), changed))
            payloads = _read_bytes(self._payloads_path)
            states = self._vouched_payloads()
            chains = _payload_chains(payloads)
            if states and not any(_payload_chain(chains, count) == chain for count, chain in states):
                count = states[-1][0]
                wrong = ("the file is missing" if not self._payloads_path.exists() else
                         f"it holds {len(chains)} line(s)" if len(chains) < min(held for held, _ in states) else
                         f"{_first_unlike(self._trail(PAYLOADS), chains, count)} is not the one they wrote")
                report.problems.append(Problem(str(self._payloads_path), (
                    f"this clone's appends acknowledged {count} payload line(s) in it ({self._vouching}), but "
                    f"{wrong}: lines lost, changed or swapped (the file deleted, cut or replaced)")))
            _verify_payloads(self._payloads_path, payloads, report, notes, acked.payloads, cited, vouched)
        except OSError as exc:
            report.problems.append(Problem(str(self.folder), f"cannot read: {exc.strerror}"))
        return report


# -- verification ------------------------------------------------------------------------------

def _verify_records(path: Path, data: bytes, report: VerifyReport,
                    acked: int) -> tuple[set[str], dict[str, str], set[str]]:
    """Check every records line: format, clocks (each one more than the line before: every
    append saw every earlier one), duplicates, each record's contract and each removal's
    note, and that no acknowledged append is gone. Returns the payload digests the lines
    remove, the payload digest of each event (to the event's digest), and the payload
    digests whose removal a redact audit entry vouches for (``_vouched``)."""
    seen: set[str] = set()
    removed: set[str] = set()
    cited: dict[str, str] = {}
    twins: dict[str, str] = {}  # event digest -> payload digest an earlier event cites too
    redacted: set[str] = set()  # what redact audit entries name
    clocks: set[tuple[str, int]] = set()
    previous = 0
    lines = list(_checked_lines(path, data, report))
    if len(lines) < acked:
        report.problems.append(Problem(str(path), _acks.lost("the file", len(lines), acked)))
    for number, line in lines:
        where = f"{path} line {number}"
        try:
            append = parse_append(line)
        except IntegrityError as exc:
            report.problems.append(Problem(where, str(exc)))
            continue
        if (append.writer, append.clock) in clocks:
            report.problems.append(Problem(where, f"writer {append.writer} reuses clock {append.clock}"))
        elif append.clock <= previous:
            report.problems.append(Problem(where, f"clock {append.clock} does not follow {previous}"))
        elif append.clock != previous + 1:
            report.problems.append(Problem(where, f"clock {append.clock} skips {previous + 1}: an append "
                                                  "before this line is missing"))
        clocks.add((append.writer, append.clock))
        previous = max(previous, append.clock)
        for item in append.items:
            report.records += 1
            if item.digest in seen:
                again = f"stored twice (again on line {number})"
                report.problems.append(Problem(f"record {item.digest}", again))
            seen.add(item.digest)
            problem = record_problem(item.data, item.digest, item.kind)
            if problem is not None:
                report.problems.append(problem)
            elif item.misfiled is not None:
                report.problems.append(Problem(f"record {item.digest}", f"{item.misfiled} ({where})"))
            found = _PAYLOAD_DIGEST.search(item.data) if item.kind == "event" else None
            if found and cited.setdefault(found.group(1).decode(), item.digest) != item.digest:
                twins[item.digest] = found.group(1).decode()
            elif item.kind == "audit":
                redacted.update(_redact_subjects(item.data))
        for digest, note in append.removals:
            wrong = note_problem(note)
            if wrong is not None:
                report.problems.append(Problem(f"redaction note {digest}", f"{wrong} ({where})"))
            if digest in removed:
                report.problems.append(Problem(f"redaction note {digest}", f"kept twice (again on line {number})"))
            removed.add(digest)
    return removed, cited, _vouched(cited, twins, redacted)


def _redact_subjects(data: bytes) -> list[str]:
    """What an audit entry of a removal names (the removed events' ids and digests), or
    nothing for another audit entry."""
    try:
        record = json.loads(data)
    except ValueError:
        return []  # its contract check names it
    subjects = record.get("subjects") if isinstance(record, dict) and record.get("action") == "redact" else None
    return [s for s in subjects if isinstance(s, str)] if isinstance(subjects, list) else []


def _vouched_notes(view: _Records) -> set[str]:
    """The payload digests whose note the records read vouch for: a records line's removal, or
    an audit entry of a removal naming the event (``_vouched``), as ``verify`` takes them."""
    cited: dict[str, str] = {}
    twins: dict[str, str] = {}
    redacted: set[str] = set()
    for stored, _ in view.stored:
        found = _PAYLOAD_DIGEST.search(stored.data) if stored.kind == "event" else None
        if found and cited.setdefault(found.group(1).decode(), stored.digest) != stored.digest:
            twins[stored.digest] = found.group(1).decode()
        elif stored.kind == "audit":
            redacted.update(_redact_subjects(stored.data))
    return set(view.notes) | _vouched(cited, twins, redacted)


def _vouched(cited: dict[str, str], twins: dict[str, str], redacted: set[str]) -> set[str]:
    """The payload digests of the events a redact audit entry names: older versions kept a
    note in payloads.jsonl and its audit entry (naming the event) in an append of its own, so
    that entry is what vouches for such a note."""
    if not redacted:
        return set()
    return {payload for payload, event in cited.items() if event in redacted} | \
        {payload for event, payload in twins.items() if event in redacted}


def _verify_payloads(path: Path, data: bytes, report: VerifyReport, removed: set[str], acked: int,
                     cited: dict[str, str], vouched: set[str]) -> None:
    """Check every payloads line: format, that each payload hashes to its digest and is kept
    once, that each note is a canonical redaction object that a removal's audit entry vouches
    for (``vouched``: a note line no append holds, written in place of a payload line, would
    make the payload read as removed by nobody), that no payload is kept beside its
    note (one a killed removal left is reported too: ``gitstore gc`` erases it), and that
    every event's payload (``cited``: payload digest -> event) is kept or removed: a line
    overwritten with a copy of another leaves the count of lines as it was."""
    payloads: set[str] = set()
    notes: set[str] = set()
    lines = list(_checked_lines(path, data, report))
    sound = sum(1 for _, line in lines if _sound_payload(line))  # a damaged line is no acknowledged one
    if sound < acked:
        report.problems.append(Problem(str(path), f"holds {sound} sound line(s) but {acked} were acknowledged: "
                                                  "lines were lost or overwritten (or the file deleted)"))
    for number, line in lines:
        where = f"{path} line {number}"
        try:
            digest, what, stored = parse_payload(line)
        except IntegrityError as exc:
            report.problems.append(Problem(where, str(exc)))
            continue
        if what == "note":
            wrong = note_problem(stored)
            if wrong is not None:
                report.problems.append(Problem(f"redaction note {digest}", f"{wrong} ({where})"))
            if digest in notes or digest in removed:
                again = f"kept twice (again on line {number})"
                report.problems.append(Problem(f"redaction note {digest}", again))
            elif digest not in vouched:
                report.problems.append(Problem(f"redaction note {digest}", _UNVOUCHED.format(where=where)))
            notes.add(digest)
        else:
            problem = payload_problem(stored, digest)
            if problem is not None:
                report.problems.append(problem)
            if digest in payloads:
                report.problems.append(Problem(f"payload {digest}", f"kept twice (again on line {number})"))
            payloads.add(digest)
    for digest in sorted(payloads & (notes | removed)):
        if digest in removed or digest in vouched:
            report.problems.append(Problem(f"payload {digest}",
                                           "is still stored beside its redaction note (run `gitstore gc`)"))
        else:  # gc would erase the text on the word of a note nobody vouches for: never advised
            report.problems.append(Problem(f"payload {digest}", (
                f"is stored beside a redaction note in {path} that no removal vouches for: the note is the damage, "
                "not the payload; take that note line out by hand, or run `gitstore purge` to start afresh")))
    for digest, event in cited.items():
        if digest not in payloads and digest not in notes and digest not in removed:
            report.problems.append(payload_missing(event, digest))


def _checked_lines(path: Path, data: bytes, report: VerifyReport) -> Iterator[tuple[int, bytes]]:
    """Numbered complete lines, without a torn last line (which is not a problem)."""
    lines = complete_lines(data)
    for index, line in enumerate(lines):
        if _is_torn(index, lines, data) and not _parses(line):
            return
        yield index + 1, line


# -- small helpers -----------------------------------------------------------------------------

def _is_torn(index: int, lines: list[bytes], chunk: bytes) -> bool:
    """Whether line ``index`` is the file's last line, with nothing after it (a torn write)."""
    return index == len(lines) - 1 and chunk.endswith(b"\n")


def _sound_payload(line: bytes) -> bool:
    """Whether a payloads line is a payload or a note line at all (what the log counts)."""
    try:
        parse_payload(line)
    except IntegrityError:
        return False
    return True


def _parses(line: bytes) -> bool:
    """Whether a line is JSON at all (a line that is not may be a torn write)."""
    try:
        _parse_json_line(line)
    except IntegrityError:
        return False
    return True


def _payload_digest_of(line: bytes) -> str | None:
    """The payload digest a line names, or None when it does not parse (kept as it is)."""
    try:
        value = _parse_json_line(line)
    except IntegrityError:
        return None
    digest = value.get("payload_digest")
    return digest if isinstance(digest, str) else None


def _note_of(line: bytes) -> bytes | None:
    """The note a payloads line keeps, or None when it is not a sound note line."""
    try:
        _, what, data = parse_payload(line)
    except IntegrityError:
        return None
    return data if what == "note" else None


NAMES_NOTHING = (-1, "")
Vouched = tuple[int, str, str]  # the git folder's record: line count, last line's digest, running digest
PayloadStates = tuple[tuple[int, str], ...]  # and the payload log's: (line count, running digest), one or two
_PAYLOADS_SEED = sha256_digest(b"")  # the running digest of no payload line


def _payload_chain(chains: list[str], count: int) -> str | None:
    """The running digest of the first ``count`` payload lines (``chains``: the one after each
    line read, from ``_PAYLOADS_SEED``), or None when fewer were read."""
    if count > len(chains):
        return None
    return chains[count - 1] if count else _PAYLOADS_SEED


def _payload_chains(data: bytes) -> list[str]:
    """The running digest after each line of a payloads.jsonl holding ``data``, as reads take
    them: every complete line, save a last one that does not parse (a torn write)."""
    lines = complete_lines(data)
    if lines and _is_torn(len(lines) - 1, lines, data) and not _parses(lines[-1]):
        lines.pop()
    chains: list[str] = []
    for line in lines:
        chains.append(_chain(chains[-1] if chains else _PAYLOADS_SEED, line + b"\n"))
    return chains


def _payload_state(data: bytes) -> tuple[int, str]:
    """The line count and running digest of a payloads.jsonl holding ``data``."""
    chains = _payload_chains(data)
    return len(chains), chains[-1] if chains else _PAYLOADS_SEED


def _chain(previous: str, line: bytes) -> str:
    """The running digest of the records lines up to ``line`` (its newline included), from
    the one of the lines before it ("" before the first): what the git folder's record keeps
    so that it vouches for every line it counts, not the last alone."""
    return sha256_digest(previous.encode("ascii") + line)


def _count_and_digest(path: Path) -> tuple[int, str] | None:
    """The line number and digest the in-flight file of the git folder names: None when there
    is no such file, ``NAMES_NOTHING`` when it cannot be read or names no line and digest
    (torn, garbled)."""
    parts = _record_parts(path)
    if parts is None:
        return None
    if len(parts) != 2 or not parts[0].isdigit() or not DIGEST_PATTERN.match(parts[1]):
        return NAMES_NOTHING
    return int(parts[0]), parts[1]


def _record_parts(path: Path) -> list[str] | None:
    """The whitespace-separated fields of a small file of the git folder: None when there is
    no such file, none when it cannot be read."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        return None
    except OSError:
        return []
    try:
        return [part.decode("ascii", "replace") for part in os.read(fd, 1024).split()]
    except OSError:
        return []
    finally:
        os.close(fd)


def _acked_record(path: Path) -> tuple[Vouched, PayloadStates | None] | None:
    """What the record of the lines acknowledged says: None when there is none; the records
    log's line count, last line's digest and running digest of them all ("" in a record
    written before it held one; ``(0, "", "")`` for "0" or a record that cannot be read or is
    torn, which vouches for nothing); and the payload log's states (``_payload_chain``), any
    of which the file may hold: one, or two while a rewrite is under way (before it, after
    it); None in a record written before it vouched for the payload log."""
    parts = _record_parts(path)
    if parts is None:
        return None
    counts, digests = parts[0:1] + parts[3::2], parts[1:3] + parts[4::2]
    if (len(parts) not in (2, 3, 5, 7) or not all(count.isdigit() for count in counts)
            or not all(DIGEST_PATTERN.match(digest) for digest in digests)):
        return (0, "", ""), None
    vouched = (int(parts[0]), parts[1], parts[2] if len(parts) > 2 else "")
    if len(parts) < 5:
        return vouched, None
    return vouched, tuple((int(parts[index]), parts[index + 1]) for index in range(3, len(parts), 2))


_MARK = 16  # hex digits of a line's running digest a trail keeps


def _mark(chain: str) -> bytes:
    return chain.removeprefix("sha256:")[:_MARK].encode("ascii") + b"\n"


def _keep_trail(path: Path | None, chains: list[str], count: int) -> None:
    """Bring the trail at ``path`` to the first ``count`` running digests of a file's lines
    (``chains``), a short mark per line: what names the first acknowledged line that
    differs, when the git folder's record (which alone decides) finds one did. Lines are
    added at its end while it still ends with the mark of a line the file holds; otherwise
    (a payloads.jsonl written again, a trail cut short) it is written whole. Not fsynced: a
    trail lost or stale only makes the message vaguer."""
    if path is None:
        return
    width = _MARK + 1
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | _NOFOLLOW, 0o644)
    try:
        held, uneven = divmod(os.fstat(fd).st_size, width)
        if uneven or held > count or held and os.pread(fd, width, (held - 1) * width) != _mark(chains[held - 1]):
            held = 0
            os.ftruncate(fd, 0)
        if held < count:
            os.pwrite(fd, b"".join(_mark(chain) for chain in chains[held:count]), held * width)
    finally:
        os.close(fd)


def _first_unlike(path: Path | None, chains: list[str], count: int) -> str:
    """Which of a file's first ``count`` lines (read: ``chains``) is the first that is not the
    one acknowledged, as the trail at ``path`` tells it: "line N", or, where it cannot tell
    (no trail, one cut short), "a line up to line N"."""
    try:
        marks = b"" if path is None else _read_bytes(path)
    except OSError:
        marks = b""
    kept = marks.split(b"\n")[:-1]
    for index in range(min(count, len(chains), len(kept))):
        if kept[index] + b"\n" != _mark(chains[index]):
            return f"line {index + 1}"
    if len(kept) >= count - 1:
        return f"line {count}"
    return f"a line up to line {count}"


def _last_line_digest(fd: int, view: _Records) -> str:
    """The digest of the last line ``view`` read from the records file ``fd``, its newline
    included."""
    return sha256_digest(os.pread(fd, view.offset - view.last_start, view.last_start))


def _line_digest(fd: int, view: _Records, index: int) -> str:
    """The digest of line ``index`` (from 0) that ``view`` read from the records file ``fd``,
    its newline included."""
    start = view.ends[index - 1] if index else 0
    return sha256_digest(os.pread(fd, view.ends[index] - start, start))


def _try_flock(fd: int) -> bool | None:
    """Take the exclusive lock without blocking: True, or None when another holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return None
    return True


def _drop_torn_tail(fd: int, end: int) -> None:
    """Truncate whatever follows the last acknowledged line (a torn write); the lock is held."""
    if os.fstat(fd).st_size > end:
        os.ftruncate(fd, end)
        os.fsync(fd)


def _write_at(fd: int, offset: int, data: bytes) -> None:
    """Write ``data`` at ``offset`` and fsync; on failure, cut the file back to ``offset``."""
    start, view = offset, memoryview(data)
    try:
        while view:
            written = os.pwrite(fd, view, offset)
            view, offset = view[written:], offset + written
        os.fsync(fd)
    except BaseException:
        with suppress(OSError):  # if even this fails, the next writer drops the torn tail
            os.ftruncate(fd, start)
        raise


def _replace(path: Path, data: bytes) -> None:
    """Atomically replace ``path`` with ``data``: temporary file, fsync, rename, fsync folder."""
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0) | _NOFOLLOW, 0o644)
    try:
        _write_at(fd, 0, data)
    finally:
        os.close(fd)
    os.replace(temporary, path)
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    """Make a folder's entries (new or renamed files) durable."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _read_bytes(path: Path) -> bytes:
    """A file's bytes, or nothing when it is missing."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        return b""
    with os.fdopen(fd, "rb") as file:
        return file.read()


@contextmanager
def _io_errors(folder: Path) -> Iterator[None]:
    """Turn operating-system errors into gitstore errors naming the store."""
    try:
        yield
    except OSError as exc:
        raise GitstoreError(f"{folder}: {exc.strerror or exc}") from None
