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

import random
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pygit2

from .._canonical import sha256_digest
from ..errors import ConflictError, IntegrityError, UsageError
from ._base import (
    CONTRACT_VERSIONS,
    NAMESPACES,
    REQUIRED_CAPABILITIES,
    AppendResult,
    Batch,
    Entry,
    Manifest,
    Namespace,
    Stored,
    VerifyReport,
    dedupe,
)
from ._objects import BLOB, BLOB_MODE, TREE, TREE_MODE, ObjectWriter, tree_bytes
from ._verify_git import verify_repository

PREFIX = "refs/memory/v1/"
WRITER_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
FORMAT = "1"
SIGNATURE_NAME = "gitstore"
SIGNATURE_EMAIL = "gitstore@localhost"
MAX_ATTEMPTS = 400
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


@dataclass(frozen=True)
class Header:
    """The parsed head of a records commit message."""

    clock: int
    writer: str
    namespace: str
    lines: tuple[tuple[str, str, str], ...]  # (digest, kind, stream) in position order


def format_message(clock: int, writer: str, namespace: str, entries: Iterable[Entry]) -> str:
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
    lines = []
    for raw in records.splitlines():
        match = _LINE.match(raw)
        if not match:
            raise ValueError(f"bad record line {raw[:80]!r}")
        lines.append((match.group(1), match.group(2), match.group(3)))
    if not lines:
        raise ValueError("append commit lists no records")
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
        self.writer = writer
        self._clocks: dict[pygit2.Oid, int] = {}
        self._histories: dict[str, tuple[pygit2.Oid, list[tuple[Header, pygit2.Oid]]]] = {}

    def manifest(self) -> Manifest:
        return Manifest(
            name="git",
            contracts=CONTRACT_VERSIONS,
            capabilities=REQUIRED_CAPABILITIES | {"redact-payload"},
            storage="git object database, refs/memory/v1/",
        )

    # -- writing -------------------------------------------------------------------------------

    def append(self, batch: Batch) -> AppendResult:
        return self._append(batch, None)

    def append_if_head(self, batch: Batch, stream: str, expected: str | None) -> AppendResult:
        return self._append(batch, (stream, expected))

    def _append(self, batch: Batch, guard: tuple[str, str | None] | None) -> AppendResult:
        entries = dedupe(batch.entries)
        ref = records_ref(batch.namespace, self.writer)
        for attempt in range(MAX_ATTEMPTS):
            tip = self._target(ref)
            if guard is not None:
                current = self.head(guard[0])
                if current != guard[1]:
                    raise ConflictError(
                        f"stream {guard[0]} moved: head is {current}, expected {guard[1]}"
                    )
            stored = self._stored_digests(entries)
            new = [e for e in entries if e.digest not in stored]
            existing = tuple(e.digest for e in entries if e.digest in stored)
            if not new:
                return AppendResult(existing=existing)
            if self._try_commit(batch.namespace, ref, tip, new):
                return AppendResult(added=tuple(e.digest for e in new), existing=existing)
            time.sleep(random.uniform(0, min(0.02, 0.0005 * 2 ** min(attempt, 6))))
        raise ConflictError(f"{ref} kept moving: gave up after {MAX_ATTEMPTS} attempts")

    def _try_commit(self, namespace: str, ref: str, tip: pygit2.Oid | None, new: list[Entry]) -> bool:
        writer = ObjectWriter(self.repo)
        base = self.repo[tip].peel(pygit2.Tree) if tip is not None else None
        blobs = {record_path(e.kind, e.digest): writer.add(BLOB, e.data) for e in new}
        tree = _merge_tree(self.repo, writer, base, blobs)
        writer.flush()
        payload_entries = [e for e in new if e.payload is not None and e.payload_digest]
        if payload_entries:
            self._store_payloads(namespace, payload_entries)
        clock = self._max_clock() + 1
        message = format_message(clock, self.writer, namespace, new)
        signature = pygit2.Signature(SIGNATURE_NAME, SIGNATURE_EMAIL)
        parents = [tip] if tip is not None else []
        try:
            self.repo.create_commit(ref, signature, signature, message, pygit2.Oid(raw=tree), parents)
        except (pygit2.GitError, ValueError):
            return False
        return True

    def _store_payloads(self, namespace: str, entries: list[Entry]) -> None:
        ref = payloads_ref(namespace, self.writer)
        for attempt in range(MAX_ATTEMPTS):
            tip = self._target(ref)
            base = self.repo[tip].peel(pygit2.Tree) if tip is not None else None
            writer = ObjectWriter(self.repo)
            blobs = {}
            for e in entries:
                assert e.payload is not None and e.payload_digest is not None
                blobs[payload_path(e.payload_digest)] = writer.add(BLOB, e.payload)
            tree = _merge_tree(self.repo, writer, base, blobs)
            writer.flush()
            if self._swap_snapshot(ref, tip, pygit2.Oid(raw=tree), "gitstore: payloads"):
                return
            time.sleep(random.uniform(0, 0.005))
        raise ConflictError(f"{ref} kept moving: gave up after {MAX_ATTEMPTS} attempts")

    def _swap_snapshot(self, ref: str, tip: pygit2.Oid | None, tree: pygit2.Oid, message: str) -> bool:
        """Point ``ref`` at a new parentless commit of ``tree`` if it still points at ``tip``."""
        signature = pygit2.Signature(SIGNATURE_NAME, SIGNATURE_EMAIL)
        commit = self.repo.create_commit(None, signature, signature, message + "\n", tree, [])
        try:
            with self.repo.transaction() as txn:
                txn.lock_ref(ref)
                if self._target(ref) != tip:
                    return False
                txn.set_target(ref, commit, message=message)
        except pygit2.GitError:
            return False
        return True

    def redact_payload(self, payload_digest: str) -> bool:
        """Remove a payload from every own snapshot that holds it; True if one was removed."""
        removed = False
        for namespace in NAMESPACES:
            ref = payloads_ref(namespace, self.writer)
            for _ in range(MAX_ATTEMPTS):
                tip = self._target(ref)
                if tip is None:
                    break
                base = self.repo[tip].peel(pygit2.Tree)
                path = payload_path(payload_digest)
                if path not in base:
                    break
                writer = ObjectWriter(self.repo)
                tree = _merge_tree(self.repo, writer, base, {path: None})
                writer.flush()
                if self._swap_snapshot(ref, tip, pygit2.Oid(raw=tree), "gitstore: redact payload"):
                    removed = True
                    break
        return removed

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

    def _stored_digests(self, entries: list[Entry]) -> set[str]:
        trees = [self.repo[tip].peel(pygit2.Tree) for _, tip in self._tips()]
        found = set()
        for e in entries:
            path = record_path(e.kind, e.digest)
            if any(path in tree for tree in trees):
                found.add(e.digest)
        return found

    def _commits(self) -> list[tuple[Header, RefInfo, pygit2.Oid]]:
        """Every append commit of every ref, in store order."""
        commits = []
        for info, tip in self._tips():
            commits.extend((header, info, oid) for header, oid in self._history(info, tip))
        commits.sort(key=lambda c: (c[0].clock, c[0].writer, c[1].name))
        return commits

    def read(self, scope: str | None = None, kinds: Iterable[str] | None = None) -> Iterator[Stored]:
        wanted = set(kinds) if kinds is not None else None
        needle = None if scope is None else f'"scope":"{scope}"'.encode()
        seen: set[str] = set()
        for header, info, oid in self._commits():
            tree = None
            for position, (digest, kind, stream) in enumerate(header.lines):
                if (wanted is not None and kind not in wanted) or digest in seen:
                    continue
                seen.add(digest)
                if tree is None:
                    tree = self.repo[oid].peel(pygit2.Tree)
                data = _blob(self.repo, tree, record_path(kind, digest), oid)
                if needle is not None and needle not in data:
                    continue
                yield Stored(digest, kind, stream, data, info.namespace, header.writer,
                             header.clock, position)

    def read_stream(self, stream: str) -> Iterator[Stored]:
        for header, info, oid in self._commits():
            tree = self.repo[oid].peel(pygit2.Tree)
            for position, (digest, kind, line_stream) in enumerate(header.lines):
                if line_stream == stream:
                    data = _blob(self.repo, tree, record_path(kind, digest), oid)
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
        path = payload_path(payload_digest)
        for info, _ in self._tips():
            target = self._target(info.payloads)
            if target is None:
                continue
            tree = self.repo[target].peel(pygit2.Tree)
            if path in tree:
                data: bytes = self.repo[tree[path].id].data
                if sha256_digest(data) != payload_digest:
                    raise IntegrityError(f"payload {payload_digest} in {info.payloads} does not match its digest")
                return data
        return None

    def verify(self) -> VerifyReport:
        return verify_repository(self.repo)


def _blob(repo: pygit2.Repository, tree: pygit2.Tree, path: str, commit: pygit2.Oid) -> bytes:
    try:
        entry = tree[path]
    except KeyError:
        raise IntegrityError(f"commit {commit} lists {path} but its tree lacks it") from None
    if entry.filemode != pygit2.GIT_FILEMODE_BLOB:
        raise IntegrityError(f"commit {commit}: {path} is not a regular file")
    data: bytes = repo[entry.id].data
    return data


def _merge_tree(
    repo: pygit2.Repository,
    writer: ObjectWriter,
    base: pygit2.Tree | None,
    changes: dict[str, bytes | None],
) -> bytes:
    """Write a tree equal to ``base`` with ``changes`` (path -> raw blob oid, or None to remove)."""
    nested: dict[str, object] = {}
    for path, oid in changes.items():
        node = nested
        *folders, name = path.split("/")
        for folder in folders:
            node = node.setdefault(folder, {})  # type: ignore[assignment]
        node[name] = oid
    oid = _write_level(repo, writer, base, nested)
    return oid if oid is not None else writer.add(TREE, b"")


def _write_level(repo: pygit2.Repository, writer: ObjectWriter, base: pygit2.Tree | None,
                 changes: dict[str, object]) -> bytes | None:
    """One folder of a tree; None when removals leave it empty."""
    entries: dict[str, tuple[bytes, bytes]] = {}
    if base is not None:
        for item in base:
            entries[item.name] = (b"%o" % item.filemode, item.id.raw)
    for name, change in changes.items():
        if isinstance(change, dict):
            sub = None
            if name in entries and entries[name][0] == TREE_MODE:
                sub = repo[pygit2.Oid(raw=entries[name][1])]
            sub_oid = _write_level(repo, writer, sub, change)
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
