"""The ``git`` provider (default): records in the repository's own object database.

Layout (documented for other implementations in ``okf/wiki/store.md``):

- ``refs/memory/v1/records/<namespace>/<writer>``: one linear history per writer and namespace
  (``local`` is never pushed, ``shared`` is). One commit per atomic append. Its tree holds
  every record the writer has stored, at ``<kind>/<aa>/<bb>/<digest-hex>.json`` where aa and bb
  are the first four hex digits of the digest; each blob is the record's canonical bytes.
- ``refs/memory/v1/payloads/<namespace>/<writer>``: parentless commits whose tree is the
  current snapshot of event payloads at ``<aa>/<bb>/<payload-digest-hex>.json``. Redaction
  writes a snapshot without the payload; after gc the text is gone.
- ``refs/memory/v1/remotes/<remote>/{records,payloads}/shared/<writer>``: fetched writers.

Each records commit carries its order in the message (see ``format_message``): a Lamport clock
(one more than the largest clock of any tip the writer had seen), the writer id, and one line
per record in position order. Store order is (clock, writer, position) on every clone.
"""

from __future__ import annotations

import fcntl
import os
import random
import re
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import pygit2

from gitstore.records.canonical import sha256_digest
from gitstore.errors import ConflictError, IntegrityError, UsageError
from gitstore.providers._base import (
    CONTRACT_VERSIONS,
    NAMESPACES,
    REQUIRED_CAPABILITIES,
    AppendResult,
    Batch,
    Entry,
    Manifest,
    Namespace,
    Stored,
    Stream,
    VerifyReport,
)
from gitstore.providers._objects import (
    BLOB, BLOB_MODE, PACK_THRESHOLD, TREE, TREE_MODE, ObjectWriter, TreeReader, Unreadable, read_blob, tree_bytes,
)

PREFIX = "refs/memory/v1/"
WRITER_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
FORMAT = "1"
SIGNATURE_NAME = "gitstore"
SIGNATURE_EMAIL = "gitstore@localhost"
MAX_ATTEMPTS = 400
STALE_LOCK_SECONDS = 5.0
_EMPTY_TREE = pygit2.Oid(hex="4b825dc642cb6eb9a060e54bf8d69288fbee4904")


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
    """Where a payload snapshot keeps the redaction note of a removed payload."""
    return "notes/" + payload_path(payload_digest)


def tips_log(repo: pygit2.Repository, ref: str) -> Path:
    """Where a writer ref's acknowledged tips are logged (one commit id per line)."""
    folder = Path(repo.path) / "gitstore"
    folder.mkdir(exist_ok=True)
    return folder / (ref[len(PREFIX):].replace("/", "-") + ".tips")


def last_acknowledged(repo: pygit2.Repository, ref: str) -> pygit2.Oid | None:
    """The last tip this clone acknowledged for one of its own refs."""
    path = tips_log(repo, ref)
    if not path.exists():
        return None
    with open(path, "rb") as log:
        log.seek(max(0, path.stat().st_size - 164))
        lines = [line for line in log.read().split(b"\n") if len(line) == 40]
    return pygit2.Oid(hex=lines[-1].decode()) if lines else None


def rewound(repo: pygit2.Repository, ref: str, tip: pygit2.Oid | None) -> str | None:
    """Why ``ref`` no longer contains the last append acknowledged on it, or None."""
    acked = last_acknowledged(repo, ref)
    if acked is None or tip == acked:
        return None
    if tip is not None and acked in repo and repo.descendant_of(tip, acked):
        return None
    return f"acknowledged append {acked} is no longer in its history (the ref was moved back)"


@dataclass(frozen=True)
class Header:
    """The parsed head of a records commit message."""

    clock: int
    writer: str
    namespace: str
    lines: tuple[tuple[str, str, str], ...]  # (digest, kind, stream) in position order


def format_message(clock: int, writer: str, namespace: str, entries: Iterable[Entry | _Staged]) -> str:
    """The records commit message: a summary, headers, then one line per record."""
    entries = list(entries)
    lines = [
        f"gitstore: append {len(entries)} record{'s' if len(entries) != 1 else ''}",
        "",
        f"Gitstore-Format: {FORMAT}",
        f"Clock: {clock}",
        f"Writer: {writer}",
        f"Namespace: {namespace}",
        "",
    ]
    lines.extend(f"{e.digest} {e.kind} {e.stream}" for e in entries)
    return "\n".join(lines) + "\n"


_LINE = re.compile(r"^(sha256:[0-9a-f]{64}) ([a-z]+) (\S{1,200})$")
_RECORD = re.compile(r"(sha256:[0-9a-f]{64}) ([a-z]+) ([^\s]{1,200})\n")


def parse_message(message: str) -> Header:
    """Parse a records commit message, refusing anything off format."""
    head, sep, body = message.partition("\n\n")
    headers, sep2, records = body.partition("\n\n")
    if not sep or not sep2:
        raise ValueError("commit message is not a gitstore append")
    fields = dict(line.split(": ", 1) for line in headers.splitlines() if ": " in line)
    if fields.get("Gitstore-Format") != FORMAT:
        raise ValueError(f"unknown Gitstore-Format {fields.get('Gitstore-Format')!r}")
    clock = fields.get("Clock", "")
    if not clock.isdigit() or len(clock) > 15:
        raise ValueError(f"bad Clock {clock!r}")
    block = records.rstrip("\n") + "\n"
    lines = _RECORD.findall(block)
    # matches never overlap, so they cover the whole block exactly when their lengths add up to it
    if not lines or sum(len(d) + len(k) + len(s) + 3 for d, k, s in lines) != len(block):
        for raw in block.splitlines():
            if not _LINE.match(raw):
                raise ValueError(f"bad record line {raw[:80]!r}")
        raise ValueError("append commit lists no records, one per line")
    return Header(int(clock), fields.get("Writer", ""), fields.get("Namespace", ""), tuple(lines))


@dataclass(frozen=True)
class RefInfo:
    """One records ref the store reads: a writer's history in one namespace."""

    name: str
    namespace: Namespace
    writer: str
    payloads: str


def discover_refs(repo: pygit2.Repository) -> list[RefInfo]:
    """Every records ref: own writers' and fetched ones, in a stable order."""
    found = []
    for name in sorted(repo.references):
        if not name.startswith(PREFIX):
            continue
        parts = name[len(PREFIX):].split("/")
        if len(parts) == 3 and parts[0] == "records" and parts[1] in NAMESPACES:
            ns, writer = parts[1], parts[2]
            found.append(RefInfo(name, ns, writer, payloads_ref(ns, writer)))  # type: ignore[arg-type]
        elif len(parts) == 5 and parts[0] == "remotes" and parts[2] == "records" and parts[3] == "shared":
            remote, writer = parts[1], parts[4]
            payload = f"{PREFIX}remotes/{remote}/payloads/shared/{writer}"
            found.append(RefInfo(name, "shared", writer, payload))
    return found


class GitProvider:
    """Stores records as commits on per-writer refs; never touches the work tree or index."""

    def __init__(self, path: str | Path, writer: str) -> None:
        if not WRITER_PATTERN.match(writer):
            raise UsageError(f"writer id {writer!r} must be lowercase letters, digits and dashes")
        try:
            self.repo = pygit2.Repository(str(path))
        except pygit2.GitError:
            raise UsageError(f"{path} is not a git repository") from None
        # Every tree and commit written here names objects written just before; libgit2's
        # per-entry existence checks on creation would only repeat that (verify re-checks all).
        pygit2.settings.enable_strict_object_creation(False)
        self.writer = writer
        self._clocks: dict[pygit2.Oid, int] = {}
        self._histories: dict[str, tuple[pygit2.Oid, list[tuple[Header, pygit2.Oid]]]] = {}

    def manifest(self) -> Manifest:
        return Manifest(
            name="git",
            contracts=CONTRACT_VERSIONS,
            capabilities=REQUIRED_CAPABILITIES | {"redact-payload", "append-stream", "payload-snapshot",
                                                  "pause-writes", "read-streams"},
            storage="git object database, refs/memory/v1/",
        )

    # -- writing -------------------------------------------------------------------------------

    def append(self, batch: Batch) -> AppendResult:
        return self._append(Stream(batch.entries, lambda: batch.namespace), None)

    def append_if_head(self, batch: Batch, stream: str, expected: str | None) -> AppendResult:
        return self._append(Stream(batch.entries, lambda: batch.namespace), (stream, expected))

    def append_stream(self, stream: Stream) -> AppendResult:
        """``append`` for entries that arrive one at a time: each record and payload blob is
        packed as it arrives, so memory holds object ids only, whatever the size."""
        return self._append(stream, None)

    def _append(self, stream: Stream, guard: tuple[str, str | None] | None) -> AppendResult:
        writer = ObjectWriter(self.repo)
        try:
            with self._lock("gc", fcntl.LOCK_SH):  # gitstore gc waits for appends under way
                staging = self._stage(stream.entries, writer)
                return self._commit_staged(stream.namespace(), staging, writer, guard)
        finally:
            writer.abort()  # whatever was not flushed into a commit

    def _stage(self, entries: Iterable[Entry], writer: ObjectWriter) -> _Staging:
        """Give the writer the blobs of every entry not stored yet, as the tips stand now."""
        tips = [tip for _, tip in self._tips()]
        staging = _Staging(tips, TreeReader(self.repo.odb))
        roots = self._roots(tips)
        staged, existing, seen = staging.staged, staging.existing, staging.order
        add = writer.add
        for e in entries:
            digest = e.digest
            if digest in seen:
                continue
            seen[digest] = len(seen)
            if roots and staging.stored(roots, record_path(e.kind, digest)):
                existing.append(digest)
                continue
            payload = None
            if e.payload is not None and e.payload_digest:
                payload = add(BLOB, e.payload)
            staged.append(_Staged(digest, e.kind, e.stream, add(BLOB, e.data), e.payload_digest, payload))
        return staging

    def _commit_staged(self, namespace: Namespace, staging: _Staging, writer: ObjectWriter,
                       guard: tuple[str, str | None] | None) -> AppendResult:
        ref = records_ref(namespace, self.writer)
        with self._writer_lock(namespace):
            for attempt in range(MAX_ATTEMPTS):
                tip = self._target(ref)
                self._check_not_rewound(ref, tip)
                if guard is not None:
                    current = self.head(guard[0])
                    if current != guard[1]:
                        raise ConflictError(
                            f"stream {guard[0]} moved: head is {current}, expected {guard[1]}"
                        )
                staging.drop_stored(self)  # another writer may have stored some since staging
                done = AppendResult(added=tuple(s.digest for s in staging.staged),
                                    existing=tuple(staging.existing))
                if not staging.staged:
                    return done
                if self._try_commit(namespace, ref, tip, staging.staged, writer, staging.reader):
                    return done
                time.sleep(random.uniform(0, min(0.02, 0.0005 * 2 ** min(attempt, 6))))
        raise ConflictError(f"{ref} kept moving: gave up after {MAX_ATTEMPTS} attempts")

    def _writer_lock(self, namespace: str) -> AbstractContextManager[None]:
        """Serialize this writer's appends across processes; the kernel drops it if we die.

        Compare-and-swap on the ref stays the guarantee; the lock only turns a storm of
        retries into a queue, and lets the payload snapshot move with the records.
        """
        return self._lock(f"{namespace}-{self.writer}", fcntl.LOCK_EX)

    @contextmanager
    def _lock(self, name: str, mode: int) -> Iterator[None]:
        """``flock`` on ``.git/gitstore/<name>.lock`` for a while."""
        folder = Path(self.repo.path) / "gitstore"
        folder.mkdir(exist_ok=True)
        fd = os.open(folder / f"{name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, mode)
            yield
        finally:
            os.close(fd)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Wait for the appends under way in this repository and hold new ones (and this
        writer's redactions) back: a ``git gc --prune=now`` run meanwhile would prune the
        objects of an append that has not committed yet, which nothing refers to."""
        with self._lock("gc", fcntl.LOCK_EX), self._writer_lock("local"), self._writer_lock("shared"):
            yield

    def _try_commit(self, namespace: str, ref: str, tip: pygit2.Oid | None, new: list[_Staged],
                    writer: ObjectWriter, reader: TreeReader) -> bool:
        base = self.repo[tip].peel(pygit2.Tree) if tip is not None else None
        tree = self._tree(base, {record_path(s.kind, s.digest): s.blob for s in new}, writer, reader)
        payloads: dict[str, bytes | None] = {payload_path(s.payload_digest): s.payload_blob for s in new
                                             if s.payload_blob is not None and s.payload_digest}
        payload_tree = self._payload_tree(namespace, payloads, writer, reader) if payloads else None
        writer.flush()
        if payload_tree is not None:  # the snapshot moves first: it may hold more, never less
            self._set_snapshot(payloads_ref(namespace, self.writer), payload_tree, "gitstore: payloads")
        clock = self._max_clock() + 1
        message = format_message(clock, self.writer, namespace, new)
        signature = pygit2.Signature(SIGNATURE_NAME, SIGNATURE_EMAIL)
        parents = [tip] if tip is not None else []
        try:
            commit = self.repo.create_commit(ref, signature, signature, message, tree, parents)
        except (pygit2.GitError, ValueError, OSError):
            self._clear_stale_lock(ref)
            return False
        with open(tips_log(self.repo, ref), "a", encoding="ascii") as log:
            log.write(f"{commit}\n")
        return True

    def _check_not_rewound(self, ref: str, tip: pygit2.Oid | None) -> None:
        """Refuse to build on a ref moved back past an append this clone acknowledged."""
        problem = rewound(self.repo, ref, tip)
        if problem:
            raise IntegrityError(f"{ref}: {problem}")

    def _write_tree(self, base: pygit2.Tree | None, files: dict[str, bytes | None]) -> pygit2.Oid:
        """Write ``base`` with files added (path -> bytes) or removed (path -> None)."""
        writer = ObjectWriter(self.repo)
        tree = self._tree(base, {p: None if d is None else writer.add(BLOB, d) for p, d in files.items()},
                          writer)
        writer.flush()
        return tree

    def _tree(self, base: pygit2.Tree | None, changes: dict[str, bytes | None],
              writer: ObjectWriter, reader: TreeReader | None = None) -> pygit2.Oid:
        """``base`` with blobs added (path -> raw id of a blob given to ``writer``) or removed
        (path -> None). A few changes go through libgit2's tree builder; many are merged here,
        base folders read through ``reader``, new trees given to ``writer`` (the caller
        flushes it)."""
        if len(changes) < PACK_THRESHOLD:
            oids = {p: None if o is None else pygit2.Oid(raw=o) for p, o in changes.items()}
            return _builder_tree(self.repo, base, oids) or self.repo.TreeBuilder().write()
        reader = reader or TreeReader(self.repo.odb)
        try:
            merged = _merge_tree(reader, writer, base.id.raw if base is not None else None, changes)
        except Unreadable as exc:
            raise IntegrityError(f"cannot extend the stored tree: {exc}; run `gitstore verify`") from None
        return pygit2.Oid(raw=merged)

    def _clear_stale_lock(self, ref: str) -> None:
        """Remove a ref lock left by a killed process (held for microseconds when alive)."""
        lock = Path(self.repo.path) / f"{ref}.lock"
        try:
            if time.time() - lock.stat().st_mtime > STALE_LOCK_SECONDS:
                lock.unlink()
        except FileNotFoundError:
            pass

    def _payload_tree(self, namespace: str, files: dict[str, bytes | None], writer: ObjectWriter,
                      reader: TreeReader) -> pygit2.Oid:
        """The next payload snapshot's tree: the current one with ``files`` added (path -> raw
        blob id); the caller holds the writer lock and flushes ``writer``."""
        tip = self._target(payloads_ref(namespace, self.writer))
        base = self.repo[tip].peel(pygit2.Tree) if tip is not None else None
        return self._tree(base, files, writer, reader)

    def _set_snapshot(self, ref: str, tree: pygit2.Oid, message: str) -> None:
        """Point ``ref`` at a new parentless commit of ``tree`` (under the writer lock)."""
        signature = pygit2.Signature(SIGNATURE_NAME, SIGNATURE_EMAIL)
        commit = self.repo.create_commit(None, signature, signature, message + "\n", tree, [])
        self._clear_stale_lock(ref)
        self.repo.references.create(ref, commit, force=True)

    def redact_payload(self, payload_digest: str, note: bytes) -> bytes | None:
        """Remove a payload from this writer's snapshots, keeping ``note`` in its place.

        A note already kept in any visible snapshot (this writer's or a fetched one) wins.
        The payload may sit in a fetched snapshot too: this clone's copy of that snapshot is
        rewritten without it, so gc removes the text here; the other clone removes its own
        when it reads the shared audit entry.
        """
        kept = self.redaction_note(payload_digest)
        path = payload_path(payload_digest)
        found = kept is not None
        for namespace in NAMESPACES:
            ref = payloads_ref(namespace, self.writer)
            with self._writer_lock(namespace):
                tip = self._target(ref)
                base = self.repo[tip].peel(pygit2.Tree) if tip is not None else None
                holds = base is not None and path in base
                if not holds and not (namespace == "shared" and self._held_elsewhere(path)):
                    continue
                found = True
                kept = kept or note
                files: dict[str, bytes | None] = {path: None, note_path(payload_digest): kept}
                self._set_snapshot(ref, self._write_tree(base, files), "gitstore: redact payload")
        if found:
            self._drop_from_fetched(path)
        return kept if found else None

    def _held_elsewhere(self, path: str) -> bool:
        return any(path in tree for _, tree in self._fetched_snapshots())

    def _fetched_snapshots(self) -> list[tuple[str, pygit2.Tree]]:
        found = []
        for info, _ in self._tips():
            if info.payloads.startswith(PREFIX + "remotes/"):
                target = self._target(info.payloads)
                if target is not None:
                    found.append((info.payloads, self.repo[target].peel(pygit2.Tree)))
        return found

    def _drop_from_fetched(self, path: str) -> None:
        for ref, tree in self._fetched_snapshots():
            if path in tree:
                self._set_snapshot(ref, self._write_tree(tree, {path: None}), "gitstore: redact payload")

    def redaction_note(self, payload_digest: str) -> bytes | None:
        path = note_path(payload_digest)
        for tree in self._snapshot_trees():
            if path in tree:
                data: bytes = self.repo[tree[path].id].data
                return data
        return None

    def _snapshot_trees(self) -> list[pygit2.Tree]:
        trees = []
        refs = {payloads_ref(ns, self.writer) for ns in NAMESPACES}
        refs.update(info.payloads for info, _ in self._tips())
        for ref in sorted(refs):
            target = self._target(ref)
            if target is not None:
                trees.append(self.repo[target].peel(pygit2.Tree))
        return trees

    # -- reading -------------------------------------------------------------------------------

    def _target(self, ref: str) -> pygit2.Oid | None:
        try:
            return self.repo.references[ref].target  # type: ignore[return-value]
        except KeyError:
            return None

    def _tips(self) -> list[tuple[RefInfo, pygit2.Oid]]:
        tips = []
        for info in discover_refs(self.repo):
            target = self._target(info.name)
            if target is not None:
                tips.append((info, target))
        return tips

    def _header(self, oid: pygit2.Oid) -> Header:
        try:
            return parse_message(self.repo[oid].message)
        except ValueError as exc:
            raise IntegrityError(f"commit {oid}: {exc}") from None
        except KeyError:
            raise IntegrityError(f"commit {oid} is missing: history truncated") from None

    def _history(self, info: RefInfo, tip: pygit2.Oid) -> list[tuple[Header, pygit2.Oid]]:
        """A ref's append commits, oldest first, extending the cached walk incrementally."""
        cached = self._histories.get(info.name)
        if cached is not None and cached[0] == tip:
            return cached[1]
        known = {cached[0]: len(cached[1])} if cached is not None else {}
        fresh: list[tuple[Header, pygit2.Oid]] = []
        oid: pygit2.Oid | None = tip
        prefix: list[tuple[Header, pygit2.Oid]] = []  # extended in place: the cache owns it
        while oid is not None:
            if oid in known and cached is not None:
                prefix = cached[1]
                break
            try:
                commit = self.repo[oid]
            except KeyError:
                raise IntegrityError(f"{info.name}: commit {oid} is missing: history truncated") from None
            fresh.append((self._header(oid), oid))
            parents = commit.parent_ids
            if len(parents) > 1:
                raise IntegrityError(f"{info.name}: commit {oid} is a merge; writer histories are linear")
            oid = parents[0] if parents else None
        fresh.reverse()
        history = prefix
        history.extend(fresh)
        self._histories[info.name] = (tip, history)
        return history

    def _max_clock(self) -> int:
        best = 0
        for _, tip in self._tips():
            clock = self._clocks.get(tip)
            if clock is None:
                clock = self._clocks[tip] = self._header(tip).clock
            best = max(best, clock)
        return best

    def _roots(self, tips: Iterable[pygit2.Oid]) -> list[bytes]:
        """The raw tree ids of records tips."""
        return [self.repo[tip].tree_id.raw for tip in tips]  # type: ignore[attr-defined]

    def _commits(self) -> list[tuple[Header, RefInfo, pygit2.Oid]]:
        """Every append commit of every ref, in store order."""
        commits = []
        for info, tip in self._tips():
            commits.extend((header, info, oid) for header, oid in self._history(info, tip))
        commits.sort(key=lambda c: (c[0].clock, c[0].writer, c[1].name))
        return commits

    def read(self, scope: str | None = None, kinds: Iterable[str] | None = None) -> Iterator[Stored]:
        return self._read(scope, kinds, None)

    def read_streams(self, streams: Collection[str], scope: str | None = None,
                     kinds: Iterable[str] | None = None) -> Iterator[Stored]:
        return self._read(scope, kinds, streams)

    def _read(self, scope: str | None, kinds: Iterable[str] | None,
              streams: Collection[str] | None) -> Iterator[Stored]:
        wanted = set(kinds) if kinds is not None else None
        needle = None if scope is None else f'"scope":"{scope}"'.encode()
        seen: set[str] = set()
        blobs = _BlobIndex(self.repo, walk=streams is None)
        for header, info, oid in self._commits():
            for position, (digest, kind, stream) in enumerate(header.lines):
                if ((wanted is not None and kind not in wanted) or digest in seen
                        or (streams is not None and stream not in streams)):
                    continue
                seen.add(digest)
                data = blobs.data(info, kind, digest, oid)
                if needle is not None and needle not in data:
                    continue
                yield Stored(digest, kind, stream, data, info.namespace, header.writer,
                             header.clock, position)

    def read_stream(self, stream: str) -> Iterator[Stored]:
        blobs = _BlobIndex(self.repo, walk=False)
        for header, info, oid in self._commits():
            for position, (digest, kind, line_stream) in enumerate(header.lines):
                if line_stream == stream:
                    data = blobs.data(info, kind, digest, oid)
                    yield Stored(digest, kind, stream, data, info.namespace, header.writer,
                                 header.clock, position)

    def head(self, stream: str) -> str | None:
        last = None
        for header, _, _ in self._commits():
            for digest, _, line_stream in header.lines:
                if line_stream == stream:
                    last = digest
        return last

    def payload(self, payload_digest: str) -> bytes | None:
        return self.payload_reader()(payload_digest)

    def payload_reader(self) -> Callable[[str], bytes | None]:
        """``payload`` bound to one snapshot of the payload refs, for reading many at once."""
        trees = self._snapshot_trees()

        def read(payload_digest: str) -> bytes | None:
            if any(note_path(payload_digest) in tree for tree in trees):
                return None  # removed: a copy left in a fetched snapshot is never returned
            path = payload_path(payload_digest)
            for tree in trees:
                if path in tree:
                    data: bytes = self.repo[tree[path].id].data
                    if sha256_digest(data) != payload_digest:
                        raise IntegrityError(f"payload {payload_digest} does not match its digest")
                    return data
            return None

        return read

    def verify(self) -> VerifyReport:
        from gitstore.providers._verify_git import verify_repository  # only verify needs it

        return verify_repository(self.repo)


class _Staged(NamedTuple):
    """An entry whose blobs a writer holds: what its commit needs, without the bytes."""

    digest: str
    kind: str
    stream: str
    blob: bytes  # raw object id of the record blob
    payload_digest: str | None
    payload_blob: bytes | None


@dataclass
class _Staging:
    """An append's entries once staged: new ones, ones already stored, and their input order."""

    tips: list[pygit2.Oid]  # every records tip when staging began
    reader: TreeReader  # the stored trees, read once for lookups and for the merge
    staged: list[_Staged] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    order: dict[str, int] = field(default_factory=dict)

    def stored(self, roots: list[bytes], path: str) -> bool:
        try:
            return any(self.reader.holds(root, path) for root in roots)
        except Unreadable as exc:
            raise IntegrityError(f"cannot read the stored records: {exc}; run `gitstore verify`") from None

    def drop_stored(self, provider: GitProvider) -> None:
        """Move entries stored since staging (a tip moved) from ``staged`` to ``existing``."""
        tips = [tip for _, tip in provider._tips()]
        if tips == self.tips:
            return
        self.tips = tips
        roots = provider._roots(tips)
        stored = {s.digest for s in self.staged if self.stored(roots, record_path(s.kind, s.digest))}
        if stored:
            self.existing = sorted(self.existing + [s.digest for s in self.staged if s.digest in stored],
                                   key=self.order.__getitem__)
            self.staged = [s for s in self.staged if s.digest not in stored]


class _BlobIndex:
    """Finds record blobs through each ref's tip tree, walked once per kind folder (``walk``),
    or looked up path by path (a read of a few records).

    A writer's tip tree holds every record it ever stored (records are only added), so one
    walk serves every commit of the ref; ``verify`` checks that each commit agrees with it.
    """

    def __init__(self, repo: pygit2.Repository, *, walk: bool = True) -> None:
        self.repo = repo
        self.walk = walk
        self._maps: dict[tuple[str, str], dict[str, tuple[pygit2.Oid, int]]] = {}
        self._roots: dict[str, bytes] = {}
        self._odb = repo.odb
        self._folders = TreeReader(self._odb)  # folders parsed once, however many records share them

    def data(self, info: RefInfo, kind: str, digest: str, commit: pygit2.Oid) -> bytes:
        found = self._map(info, kind).get(digest[7:]) if self.walk else self._entry(info, kind, digest)
        if found is None:
            raise IntegrityError(f"{info.name}: commit {commit} lists {record_path(kind, digest)} but the tree lacks it")
        oid, mode = found
        if mode != pygit2.GIT_FILEMODE_BLOB:
            raise IntegrityError(f"{info.name}: {record_path(kind, digest)} is not a regular file")
        try:
            return read_blob(self._odb, oid.raw)
        except Unreadable as exc:
            raise IntegrityError(f"{info.name}: {record_path(kind, digest)}: {exc}; run `gitstore verify`") from None

    def _entry(self, info: RefInfo, kind: str, digest: str) -> tuple[pygit2.Oid, int] | None:
        node = self._roots.get(info.name)
        if node is None:
            node = self._roots[info.name] = self.repo[self.repo.references[info.name].target].tree_id.raw
        *folders, name = record_path(kind, digest).split("/")
        try:
            for folder in folders:
                found = self._folders.listing(node).get(folder)
                if found is None or found[0] != TREE_MODE:
                    return None
                node = found[1]
            leaf = self._folders.listing(node).get(name)
        except Unreadable as exc:
            raise IntegrityError(f"{info.name}: {exc}; run `gitstore verify`") from None
        return None if leaf is None else (pygit2.Oid(raw=leaf[1]), int(leaf[0], 8))

    def _map(self, info: RefInfo, kind: str) -> dict[str, tuple[pygit2.Oid, int]]:
        key = (info.name, kind)
        found = self._maps.get(key)
        if found is None:
            found = self._maps[key] = {}
            tip = self.repo.references[info.name].target
            root = self.repo[tip].peel(pygit2.Tree)
            if kind in root and root[kind].filemode == pygit2.GIT_FILEMODE_TREE:
                for first in self.repo[root[kind].id]:
                    if first.filemode != pygit2.GIT_FILEMODE_TREE:
                        continue
                    for second in self.repo[first.id]:
                        if second.filemode != pygit2.GIT_FILEMODE_TREE:
                            continue
                        for leaf in self.repo[second.id]:
                            found[leaf.name[:-5]] = (leaf.id, leaf.filemode)
        return found


def _merge_tree(
    reader: TreeReader,
    writer: ObjectWriter,
    base: bytes | None,
    changes: dict[str, bytes | None],
) -> bytes:
    """Write a tree equal to tree ``base`` (a raw id, or None for none) with ``changes``
    (path -> raw blob id, or None to remove)."""
    nested: dict[str, object] = {}
    for path, oid in changes.items():
        node = nested
        *folders, name = path.split("/")
        for folder in folders:
            child = node.get(folder)
            if child is None:
                child = node[folder] = {}
            node = child  # type: ignore[assignment]
        node[name] = oid
    oid = _write_level(reader, writer, base, nested)
    return oid if oid is not None else writer.add(TREE, b"")


def _write_level(reader: TreeReader, writer: ObjectWriter, base: bytes | None,
                 changes: dict[str, object]) -> bytes | None:
    """One folder of a tree; None when removals leave it empty."""
    if base is None:
        return _write_new_level(writer, changes)
    entries = dict(reader.listing(base))
    for name, change in changes.items():
        if type(change) is dict:
            found = entries.get(name)
            sub = found[1] if found is not None and found[0] == TREE_MODE else None
            sub_oid = _write_level(reader, writer, sub, change)
            if sub_oid is None:
                entries.pop(name, None)
            else:
                entries[name] = (TREE_MODE, sub_oid)
        elif change is None:
            entries.pop(name, None)
        else:
            entries[name] = (BLOB_MODE, change)  # type: ignore[assignment]
    if not entries:
        return None
    return writer.add(TREE, tree_bytes(entries))


def _write_new_level(writer: ObjectWriter, changes: dict[str, object]) -> bytes | None:
    """A folder the base lacks (most of them in a bulk append): ``_write_level`` without a
    base to merge, its rows sorted as ``tree_bytes`` sorts them."""
    rows = []
    for name, change in changes.items():
        if type(change) is dict:
            sub = _write_new_level(writer, change)  # type: ignore[arg-type]
            if sub is not None:
                rows.append((name + "/", TREE_MODE, name, sub))
        elif change is not None:
            rows.append((name, BLOB_MODE, name, change))
    if not rows:
        return None
    rows.sort()
    return writer.add(TREE, b"".join([b"%s %s\0%s" % (mode, name.encode(), oid) for _, mode, name, oid in rows]))


def _builder_tree(repo: pygit2.Repository, base: pygit2.Tree | None,
                  changes: dict[str, pygit2.Oid | None]) -> pygit2.Oid | None:
    """Small edits through libgit2's tree builder; None when removals leave the tree empty."""
    nested: dict[str, object] = {}
    for path, oid in changes.items():
        node = nested
        *folders, name = path.split("/")
        for folder in folders:
            node = node.setdefault(folder, {})  # type: ignore[assignment]
        node[name] = oid
    return _builder_level(repo, base, nested)


def _builder_level(repo: pygit2.Repository, base: pygit2.Tree | None,
                   changes: dict[str, object]) -> pygit2.Oid | None:
    builder = repo.TreeBuilder(base) if base is not None else repo.TreeBuilder()
    for name, change in changes.items():
        if isinstance(change, dict):
            sub = None
            if base is not None and name in base and base[name].filemode == pygit2.GIT_FILEMODE_TREE:
                sub = repo[base[name].id]
            oid = _builder_level(repo, sub, change)
            if oid is None:
                if builder.get(name) is not None:
                    builder.remove(name)
            else:
                builder.insert(name, oid, pygit2.GIT_FILEMODE_TREE)
        elif change is None:
            if builder.get(name) is not None:
                builder.remove(name)
        else:
            builder.insert(name, change, pygit2.GIT_FILEMODE_BLOB)  # type: ignore[arg-type]
    if len(builder) == 0:
        return None
    return builder.write()
