"""The ``git`` provider (default): shared records in the repository's own object database, local
ones in a repository of their own under ``.git/gitstore/local``, which no push can reach.

Layout (documented for other implementations in ``okf/wiki/store.md``):

- ``refs/memory/v1/records/shared/<writer>`` (in the repository): one linear history per writer,
  one commit per atomic append. Its tree holds every record the writer has stored, at
  ``<kind>/<aa>/<bb>/<digest-hex>.json`` where aa and bb are the first four hex digits of the
  digest; each blob is the record's canonical bytes. An append that removes payloads also adds
  their redaction notes at ``notes/<aa>/<bb>/<payload-digest-hex>.json``.
- ``refs/memory/v1/payloads/shared/<writer>``: parentless commits whose tree is the current
  snapshot of event payloads at ``<aa>/<bb>/<payload-digest-hex>.json``. Removing a payload
  writes a snapshot without it; gc erases the text.
- ``refs/memory/v1/remotes/<remote>/{records,payloads}/shared/<writer>``: fetched writers.
- ``refs/memory/v1/remotes/<remote>/parted/shared/<writer>/<tip>``: a fetched writer's history
  its ref parted from (a fork admitted in its place, see ``_admit``), read beside it, with the
  payload snapshot kept for it then, ``.../parted-payloads/shared/<writer>/<tip>``.
- ``refs/memory/v1/{records,payloads}/local/<writer>``, the same for the local namespace, in
  the bare repository ``.git/gitstore/local`` (objects and refs of its own). Local refs found
  in the repository itself (written by older versions, and sent by ``git push --mirror``) are
  still read, reported by ``verify``, and moved by the next append or ``gitstore init``.

Each records commit carries its order in the message (see ``_message``): a Lamport clock
(one more than the largest clock of any tip the writer had seen), the writer id, and one line
per record in position order. Store order is (clock, writer, position) on every clone; a
record's append is its records commit.
"""

from __future__ import annotations

import bisect
import fcntl
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Collection, Container, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet  # a set of any kind, as ``<=`` takes it
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, cast

import pygit2

from gitstore import _jsontext
from gitstore._collector import collector_paused
from gitstore._files import replace_file
from gitstore._gitconfig import flag as git_flag
from gitstore.errors import ConflictError, GitstoreError, IntegrityError, Refused, UsageError
from gitstore.providers._base import (
    CONTRACT_VERSIONS,
    NAMESPACES,
    REQUIRED_CAPABILITIES,
    AppendResult,
    Attestation,
    Batch,
    Entry,
    GcReport,
    Manifest,
    Namespace,
    Problem,
    Removal,
    Stored,
    Stream,
    TrustMode,
    VerifyReport,
)
from gitstore.providers._admit import Admission, Admissions
from gitstore.providers._causal import Causality
from gitstore.providers._unheld import Unheld, unheld
from gitstore.providers._gitdirs import (BROKEN_REF, LOCAL, PENDING, SCRATCH, STALE_LOCK_SECONDS, alternates,
                                        clear_stale_lock, common_dir, is_broken, open_local, ref_ids, ref_names,
                                        run_git, state_dir)
from gitstore.providers._holds import CONTEXT as HOLDS
from gitstore.providers._holds import Filter
from gitstore.providers._holds import made as made_filter
from gitstore.providers._kindmaps import FOLDER as KIND_MAPS
from gitstore.providers._kindmaps import ROWS_PER_LOOKUP, folder_map, kept_rows, map_path
from gitstore.providers._known import KnownBytes, Witness
from gitstore.providers._message import (FORMAT, LAST_CLOCK, MAX_SEEN, SIGNATURE_EMAIL, SIGNATURE_NAME, Append, Header,
                                         format_message, message_of, parse_message, parse_order, record_lines,
                                         record_lines_holding, record_lines_of, seen_text)
from gitstore.providers._names import (PAYLOAD_DIGEST, PREFIX, QUARANTINE, WRITER_PATTERN, fetched_line,
                                      is_parted_snapshot, note_path, payload_path, payloads_ref, record_path,
                                      records_ref, shown_in, snapshot_of)
from gitstore.providers._partial import LACKING, advised, judged_again
from gitstore.providers._shallow import (SHALLOW, cut_commits, cut_refs, names_cut, names_shallow, shallow_state,
                                         unmended, unmended_tips)
from gitstore.providers._verified import FOLDER as VERIFIED
from gitstore.providers._verified import Verified
from gitstore.providers._verify_git import MAX_CLOCK, HeldClocks, furthest, verify_repository
from gitstore.providers._packs import Database, Objects
from gitstore.providers._tips import (
    LOST, Restore, acknowledged, last_acknowledged, logged_refs, lost_refs, made_here, misplaced_refs,
    note_made, restorable, rewound, stray_local_refs, this_clones, tips_log, wrote_as,
)
from gitstore.providers._objects import (
    BLOB, BLOB_MODE, LOOSE_LIMIT, TREE, TREE_MODE, ObjectWriter, PackFirst, TreeReader, Unreadable, add_records,
    bound_pack_windows, read_blob, read_tree, tree_bytes, uncached_trees,
)
from gitstore.records.canonical import sha256_digest
from gitstore.records.contracts import verify_stored
from gitstore.scope import open_git

__all__ = [  # the provider, and what other modules name memory's refs, paths and messages by
    "KEPT_NOTE", "LOST", "PREFIX", "WRITER_PATTERN", "GitProvider", "RefInfo", "acknowledged", "commit_at", "discover_refs",
    "format_message", "last_acknowledged", "lost_refs", "misplaced_refs", "move_local_refs", "note_path",
    "parse_message", "payload_path", "payloads_ref", "readable", "record_path", "records_ref", "refs_in", "rewound",
    "stray_local_refs", "tips_log",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitstore.providers._carry_git import Carried
    from gitstore.providers._trust_git import Trust

T = TypeVar("T")
KEEP_COMMITS = 4  # commits a handle keeps loaded (see GitProvider._commit)
PAYLOAD_PATHS = 4096  # payloads a reader finds by path before it indexes its snapshots (see payload_reader)
LOOKUPS_KEPT = 1 << 14  # record paths a handle keeps what it found at (see _BlobIndex): a few MB at most
WALK_FROM = 256  # path lookups in a kind folder no map is kept of before a read asks whether to walk it
WALK_SHARE = 4  # ...and it walks it (keeping the map) once it has looked up this share of its leaf folders
KEEP_PASSED = 2  # and of those a pass over a history read last: a read of several kinds reads them again
CLAIMS = "claims-1"  # what _claims_of keeps: the learnings each learning record of an append names
CLAIMS_KEPT_FROM = 64  # learning records in an append worth keeping what they name (fewer cost less to read again)
ORDER_CONTEXT = f"order-{FORMAT}"  # what _remembered_order keeps depends on the message format only
UNHELD_KIND = "unheld-1"  # see unheld_seen: a change to what it finds is a kind of its own
NOTES_KIND = "notes-in-1"  # see _kept_notes
REMEMBER_ORDER_FROM = 1 << 16  # characters of a commit message worth remembering its header (700 records)
MAX_ATTEMPTS = 400
REWRITE_TRIES = 8  # reads of a fetched snapshot a removal writes again, each moved by a fetch meanwhile
MERGE_FROM = LOOSE_LIMIT // 4  # changes from which a tree is merged here, not by libgit2's builder
AUTHORITY_KINDS = frozenset({"learning", "grant", "withdrawal", "audit"})  # see copies: decisions and what vouches for them
FEW_MARKS = 8  # marks a pass over an append's record lines searches for, one at a time, rather than read every line
FILTERED_NAMES = 256  # names a read asks a big append's filter about (``_may_hold``) rather than load its commit
SLICES_FROM = 4096  # entries from which an append reads folders as pack slices (mapping the packs' indexes)


def _named_path(folder: Path, ref: str) -> Path:
    """Where the tips a writer's last append had seen are kept (so the next names only news)."""
    return tips_log(folder, ref).with_suffix(".seen")


class _Moved(Exception):
    """The ref moved between reading its tip and swapping it: try again."""


def _streamed(batch: Batch) -> Stream:
    """A batch as the one shape appends take here."""
    return Stream(batch.entries, lambda: batch.namespace, lambda: batch.authority)


def commit_at(repo: pygit2.Repository, oid: pygit2.Oid, where: str) -> pygit2.Commit:
    """The commit ``oid``, or IntegrityError naming ``where`` when it is missing, unreadable or
    another kind of object (a ref moved onto a blob or a tree)."""
    try:
        found = repo[oid]
    except KeyError:
        raise IntegrityError(f"{where}: commit {oid} is missing: history truncated") from None
    except (pygit2.GitError, ValueError) as exc:
        raise IntegrityError(f"{where}: object {oid} cannot be read ({exc})") from None
    if not isinstance(found, pygit2.Commit):
        raise IntegrityError(f"{where}: {oid} is a {found.type_str}, not a commit")
    return found


KEPT_NOTE = "as fetched, lacks text read here before and no removal took"  # what reads say of a kept snapshot


@contextmanager
def readable(what: str = "memory") -> Iterator[None]:
    """Turn git's own errors reading objects (a corrupt loose object, flipped pack bytes) into
    IntegrityError naming what was being read."""
    try:
        yield
    except (pygit2.GitError, Unreadable) as exc:
        raise _unreadable(what, exc) from None


def _unreadable(what: str, exc: Exception) -> IntegrityError:
    return IntegrityError(f"cannot read {what}: {exc}; run `gitstore verify`")


def _check_order(info: RefInfo, before: Append | None, fresh: list[tuple[Append, pygit2.Oid]]) -> None:
    """Refuse appends that name another writer or namespace than their ref, or whose clock
    does not grow (a rewritten history read as if it were intact)."""
    previous = before.clock if before is not None else 0
    for header, oid in fresh:
        if header.writer != info.writer or header.namespace != info.namespace:
            raise IntegrityError(f"{info.name}: commit {oid} names writer {header.writer!r} in "
                                 f"{header.namespace!r}; run `gitstore verify`")
        if header.clock <= previous:
            raise IntegrityError(f"{info.name}: commit {oid} has clock {header.clock}, not above "
                                 f"{previous}; run `gitstore verify`")
        previous = header.clock


@dataclass(frozen=True)
class RefInfo:
    """One records ref the store reads: a writer's history in one namespace, and the
    repository that holds it (the local namespace's own, or the repository itself)."""

    name: str
    namespace: Namespace
    writer: str
    payloads: str
    repo: pygit2.Repository = field(compare=False, hash=False, repr=False)
    misplaced: bool = False  # a local ref in the repository itself, where a push can send it
    parted: bool = False  # a fetched writer's history its ref parted from (``_names.parted_ref``), read beside it
    # the tip the listing that found it read (None: not read, or not an object id: asked of git)
    listed: pygit2.Oid | None = field(default=None, compare=False, hash=False, repr=False)

    @property
    def tip(self) -> pygit2.Oid | None:
        """Its tip as the listing that found it read it (``ref_ids``), else as git reads it now."""
        if self.listed is not None:
            return self.listed
        try:
            return self.repo.references[self.name].target  # type: ignore[return-value]
        except KeyError:
            return None

    @property
    def fetched(self) -> bool:
        """Whether another clone wrote it and a fetch brought it (``refs/memory/v1/remotes/``)."""
        return self.name.startswith(PREFIX + "remotes/")


def discover_refs(repo: pygit2.Repository, local: pygit2.Repository | None = None) -> list[RefInfo]:
    """Every records ref: own writers' (both namespaces) and fetched ones, in a stable order.
    ``local`` is the local namespace's repository (opened here when not given)."""
    return refs_in(repo, open_local(repo, create=False) if local is None else local)


def kinds_changed(repo: pygit2.Repository, tip: pygit2.Oid, since: pygit2.Oid | None) -> set[str]:
    """The kinds of record the commits after ``since`` (None: every commit) up to ``tip`` of
    one records ref add or change: a record's path starts with its kind
    (``<kind>/<aa>/<bb>/<digest>.json``), so the top-level trees that differ from the parent's
    name them. A history that cannot be read so is named ``"?"``."""
    kinds: set[str] = set()
    try:
        walker = repo.walk(tip)
        if since is not None:
            walker.hide(since)
        for commit in walker:
            now = {str(entry.name): entry.id for entry in commit.tree}
            before = {str(entry.name): entry.id for entry in commit.parents[0].tree} if commit.parents else {}
            kinds |= {name for name in now.keys() | before.keys() if now.get(name) != before.get(name)}
    except (KeyError, ValueError, pygit2.GitError):
        kinds.add("?")
    return kinds


def refs_in(repo: pygit2.Repository, local: pygit2.Repository | None) -> list[RefInfo]:
    """``discover_refs`` with the local namespace's repository as given (None: there is none)."""
    return _refs_listed(repo, local, *_listings(repo, local))[0]


def _listings(repo: pygit2.Repository, local: pygit2.Repository | None) -> tuple[
        dict[str, pygit2.Oid | None], dict[str, pygit2.Oid | None]]:
    """What ``refs_in`` reads: the repository's memory refs and the local namespace's records
    refs, each with its tip (``ref_ids``)."""
    return ref_ids(repo, PREFIX), ref_ids(local, PREFIX + "records/local/") if local is not None else {}


def _refs_listed(repo: pygit2.Repository, local: pygit2.Repository | None, ids: dict[str, pygit2.Oid | None],
                 local_ids: dict[str, pygit2.Oid | None]) -> tuple[list[RefInfo], bool]:
    """``refs_in`` from its listings (``_listings``), and whether it asked this clone's state
    whether a local ref found in the repository itself is its own (``this_clones``)."""
    found = []
    asked, kept = False, set(local_ids)
    for name, tip in ids.items():
        parts = name[len(PREFIX):].split("/")
        if len(parts) == 3 and parts[0] == "records" and parts[1] in NAMESPACES:
            ns, writer = parts[1], parts[2]
            if ns == "local":
                asked = True
                if not this_clones(repo, name, kept):  # another clone's, pushed and fetched: not read
                    continue
            found.append(RefInfo(name, ns, writer, payloads_ref(ns, writer), repo, misplaced=ns == "local",
                                 listed=tip))
        elif (line := fetched_line(name)) is not None:
            found.append(_fetched_info(name, line, repo, tip))
    if local is not None:
        prefix = PREFIX + "records/local/"
        for name, tip in sorted(local_ids.items()):
            writer = name[len(prefix):]
            if WRITER_PATTERN.match(writer):
                found.append(RefInfo(name, "local", writer, payloads_ref("local", writer), local, listed=tip))
    return found, asked


def _fetched_info(name: str, line: tuple[str, str, bool], repo: pygit2.Repository,
                  listed: pygit2.Oid | None = None) -> RefInfo:
    """A fetched writer's records ref, read with the writer's fetched payload snapshot, or a
    parted history of it (``fetched_line``), read with the snapshot kept when the writer's ref
    parted from it (``snapshot_of``)."""
    _, writer, parted = line
    return RefInfo(name, "shared", writer, snapshot_of(name), repo, parted=parted, listed=listed)


def records_state(tips: Iterable[pygit2.Oid]) -> str:
    """A digest of records tips, whatever their order."""
    return hashlib.sha1("".join(sorted(map(str, tips))).encode("ascii")).hexdigest()


def move_local_refs(repo: pygit2.Repository) -> list[str]:
    """Move local refs out of the repository into the local namespace's own repository: fetch
    their objects there, then delete each ref only if it still points where it did. Returns
    the refs moved. The objects stay in the repository, unreachable, until ``gitstore gc``."""
    names = misplaced_refs(repo)
    if not names:
        return []
    local = open_local(repo, create=True)
    assert local is not None
    targets = {name: str(repo.references[name].target) for name in names}
    specs = [f"+{n}:{n}" if "/payloads/" in n else f"{n}:{n}" for n in names]
    run_git(Path(local.path), "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
            str(common_dir(repo)), *specs)
    for name, target in targets.items():
        run_git(common_dir(repo), "update-ref", "-d", name, target)
    return names


class _Kept(NamedTuple):
    """One redaction note kept for a payload (``GitProvider._kept_notes``)."""

    note: bytes
    where: tuple[RefInfo, pygit2.Oid] | None  # the records tip whose tree holds it; None: an own snapshot's
    namespace: Namespace  # the namespace it was kept in


def _governs(note: Namespace, payload: Namespace | None) -> bool:
    """Whether a note kept in namespace ``note`` removes the payloads of namespace ``payload``
    (None: of either, as reads on this clone take them). A shared note removes the text for
    the team, so from personal memory too; a personal note only from personal memory, which
    never leaves this clone: the same bytes stored as shared memory are the team's, and a
    personal redaction neither takes them from the team nor tells it that it happened."""
    return payload is None or note == "shared" or note == payload


def _notes_tree(tree: pygit2.Tree) -> bool:
    """Whether a records tip's or snapshot's tree holds a ``notes/`` folder."""
    return "notes" in tree and tree["notes"].filemode == pygit2.GIT_FILEMODE_TREE


def _snapshot_namespace(ref: str) -> Namespace:
    """The namespace a payload snapshot ref holds: local ones never leave this clone (the local
    namespace's own, or an older one left in the repository itself); every other is shared."""
    return "local" if ref.startswith(PREFIX + "payloads/local/") else "shared"


class GitProvider:
    """Stores records as commits on per-writer refs; never touches the work tree or index."""

    def __init__(self, path: str | Path, writer: str, *, owns_refs: bool = True) -> None:
        """``owns_refs=False``: a checkout that is no one's clone (a CI job reading the memory
        refs it fetched, wherever it put them): no append in it is this clone's own, so without
        a policy no decision in it counts (``attest``)."""
        if not WRITER_PATTERN.match(writer):
            raise UsageError(f"writer id {writer!r} must be lowercase letters, digits and dashes")
        self.repo = open_git(path)
        # Every tree and commit written here names objects written just before; libgit2's
        # per-entry existence checks on creation would only repeat that (verify re-checks all).
        pygit2.settings.enable_strict_object_creation(False)
        bound_pack_windows()
        self.writer = writer
        self.owns_refs = owns_refs
        self.state = state_dir(self.repo)
        self._local = open_local(self.repo, create=False)
        self._clocks: dict[pygit2.Oid, int] = {}
        self._sound: set[tuple[str, pygit2.Oid]] = set()  # (ref, tip) found readable and not rewound
        self._admissions = Admissions(self.state)
        self._causality: tuple[tuple[tuple[RefInfo, pygit2.Oid], ...], Causality] | None = None
        self._notes_cache: tuple[tuple[tuple[RefInfo, pygit2.Oid], ...], dict[str, list[_Kept]]] | None = None
        self._notes_held = False  # see notes_held
        self._notes_fresh = False  # the notes read since the hold began
        self._judge: Callable[[str, bytes, str | None], bool] = lambda digest, note, append: True
        self._judged: dict[tuple[str, str | None], bool] = {}
        # (repository, ref) -> (the history indexed, how much of it, payload digest -> every
        # append listing it in Removes, oldest first): the appends behind each note, found once
        # per history
        self._removers: dict[tuple[str, str], tuple[list[tuple[Append, pygit2.Oid]], int, dict[str, list[str]]]] = {}
        self._trust: Trust | None = None
        self._named_cache: dict[str, dict[str, list[str]]] = {}
        self._origins_cache: tuple[tuple[tuple[RefInfo, pygit2.Oid], ...], dict[str, tuple[RefInfo, Append, bool]]] | None = None
        self._quarantine: dict[str, Admission] = {}
        self.scope: str | None = None  # the scope fetched refs are admitted for (see admit_only)
        self._logs_checked = False
        self._histories: dict[tuple[str, str], tuple[pygit2.Oid, list[tuple[Append, pygit2.Oid]]]] = {}
        self._orders = Verified(self.state, "appends")  # see _remembered_order
        self._notes_in = Verified(self.state, "notes")  # see _kept_notes
        # see _claims_of: a file of its own, read only by a decision that settles claims, since
        # anyone who can push chooses how much of it there is (up to 64 names a learning record)
        self._claims = Verified(self.state, "claims")
        self._memory: KnownBytes | None = None
        self._loaded: dict[tuple[str, pygit2.Oid], pygit2.Commit] = {}  # see _commit
        self._passed: dict[tuple[str, pygit2.Oid], pygit2.Commit] = {}  # see _commit
        self._passed_sizes: dict[tuple[str, pygit2.Oid], int] = {}  # their messages' lengths (see _pass)
        self._looked_up: dict[tuple[str, bytes, str], tuple[bytes, bytes] | None] = {}  # see _BlobIndex
        self._appended: list[tuple[str, pygit2.Oid | None, pygit2.Oid]] = []  # (mark name, parent, commit)
        self._copies: dict[str, dict[str, Stored]] = {}  # see copies
        self._filters: dict[str, Filter | None] = {}  # see _may_hold
        self._own_writers: dict[str, bool] = {}  # see wrote_as
        self._cut: tuple[tuple[int, int] | None, set[str]] = (None, set())  # see _cut_refs
        # the listings ``_refs`` read last, and the refs it found in them
        self._listed: tuple[dict[str, pygit2.Oid | None], dict[str, pygit2.Oid | None], tuple[RefInfo, ...]] | None = None

    def manifest(self) -> Manifest:
        return Manifest(
            name="git",
            contracts=CONTRACT_VERSIONS,
            capabilities=REQUIRED_CAPABILITIES | {"redact-payload", "append-stream", "payload-snapshot",
                                                  "pause-writes", "read-streams", "gc", "remember-checks",
                                                  "quarantine", "causal-order", "attest",
                                                  "remember-bytes"},
            storage=f"git object database, refs/memory/v1/ (local namespace: {self._local_folder()})",
        )

    def _local_folder(self) -> str:
        """Where the local namespace's repository is, from the work tree: ``.git/gitstore/local``
        in a plain clone, the folder git keeps a submodule's or a linked work tree's repository
        in otherwise (``../.git/modules/NAME/gitstore/local``)."""
        folder = self.state / LOCAL
        if self.repo.workdir is None:
            return str(folder)
        return os.path.relpath(os.path.realpath(folder), os.path.realpath(self.repo.workdir))

    def repository(self, namespace: Namespace) -> pygit2.Repository:
        """The repository a namespace's own refs live in (created for ``local`` when missing)."""
        if namespace == "shared":
            return self.repo
        if self._local is None:
            self._local = open_local(self.repo, create=True)
        assert self._local is not None
        return self._local

    def _open_local(self) -> None:
        """Open the local namespace's repository once it exists (another process may create it
        while this provider lives)."""
        if self._local is None and (self.state / LOCAL / "HEAD").is_file():
            self._local = open_local(self.repo, create=False)

    def _refs(self) -> list[RefInfo]:
        """Every records ref, the local namespace's repository opened once it exists (another
        process may create it while this provider lives), and each fetched one admitted before
        that a pruning ``git fetch`` deleted (read at the tip admitted last, which gc keeps,
        until the next sync puts the ref back: a writer's memory once read is kept), parted
        histories of fetched writers among them (their ref is made when the admission is saved)."""
        self._open_local()
        ids, local_ids = _listings(self.repo, self._local)
        if self._listed is not None and self._listed[0] == ids and self._listed[1] == local_ids:
            found = list(self._listed[2])  # the same refs at the same tips as the pass before
        else:
            found, asked = _refs_listed(self.repo, self._local, ids, local_ids)
            self._listed = None if asked else (ids, local_ids, tuple(found))  # the state may say otherwise next time
        present = {info.name for info in found}
        for name in self._admissions.known(PREFIX + "remotes/"):
            if name in present:  # the usual case: checked by name first, however many writers
                continue
            line = fetched_line(name)  # None for a payload snapshot's, as many as the writers: asked first
            if line is None or not WRITER_PATTERN.match(line[1]) or (base := self._admissions.base(name)) is None \
                    or base not in self.repo:
                continue
            found.append(_fetched_info(name, line, self.repo))
        return found

    def _fetched_target(self, info: RefInfo, cut: AbstractSet[str] | None = None) -> pygit2.Oid | None:
        """Where a records ref is read: its tip, or for a fetched one refused there (or that a
        pruning fetch deleted) the tip admitted last, if any (a refused history's verified
        prefix: the commits before the first that fails): what a plain fetch brings never
        takes away what was read before. ``cut``: see ``_admit``."""
        target = info.tip
        if not info.fetched or (target is not None and self._admit(info, target, cut).admitted):
            return target
        if info.name in self._quarantine and names_cut(self._quarantine[info.name].problem):
            return None  # the history admitted before is cut short too: nothing of it is read whole
        base = self._admissions.base(info.name)
        return base if base is not None and base in self.repo else None

    def carry_stranded(self, former: Collection[str], busy: Mapping[str, Path], scope: str | None = None) -> Carried:
        """Carry what this work tree appended under ``former``, the writer ids it left, that
        the remote's history of them parted from (or, ``scope`` being this clone's, that it
        stored of that scope on a history holding another's, which no sync pushes) over to this
        writer id, while it has no appends of its own; or say why those appends stay (``busy``:
        id -> another work tree writing as it now, never carried; see ``_carry_git``)."""
        from gitstore.providers._carry_git import carry  # a clone that never changed its id has nothing to carry

        with readable("the stored records"):
            return carry(self, former, busy, scope)

    def move_local(self) -> list[str]:
        """Move local refs left in the repository's own refs (where a push can send them) into
        the local namespace's repository; returns the refs moved (see ``move_local_refs``)."""
        if not misplaced_refs(self.repo):
            return []
        with self.paused():
            moved = move_local_refs(self.repo)
        self._local = open_local(self.repo, create=False)
        return moved

    # -- writing -------------------------------------------------------------------------------

    def append(self, batch: Batch) -> AppendResult:
        return self._append(_streamed(batch), None, batch.removals)

    def append_if_head(self, batch: Batch, stream: str, expected: str | None) -> AppendResult:
        return self._append(_streamed(batch), (stream, expected), batch.removals)

    def append_stream(self, stream: Stream) -> AppendResult:
        """``append`` for entries that arrive one at a time: each record and payload blob is
        packed as it arrives, so memory holds no record's bytes, only what the commit needs of
        each (ids, paths, the tree's entries): about 2 KB a record in all."""
        return self._append(stream, None, ())

    def _append(self, stream: Stream, guard: tuple[str, str | None] | None,
                removals: tuple[Removal, ...]) -> AppendResult:
        self.move_local()
        writer = ObjectWriter(self.state / SCRATCH)
        try:
            with self._lock("gc", fcntl.LOCK_SH), readable("the stored records"):  # gitstore gc waits for appends under way
                staging = self._stage(stream.entries, writer)
                namespace = stream.namespace()
                staging.look_up(self, writer, self.repository(namespace), records_ref(namespace, self.writer))
                sign = stream.authority() and namespace == "shared" and self._signs()
                return self._commit_staged(namespace, staging, writer, guard, removals, sign)
        finally:
            writer.abort()  # whatever was not flushed into a commit

    def _stage(self, entries: Iterable[Entry], writer: ObjectWriter) -> _Staging:
        """Give the writer the blobs of every entry, as the tips stand now; which of them are
        stored already is looked up once they are all in (``_Staging.look_up``)."""
        tips = self._current_tips()
        staging = _Staging([tip for _, tip in tips], _Readers(), tips)
        staged, seen = staging.staged, staging.order
        add = writer.add
        for e in entries:
            digest = e.digest
            if digest in seen:
                continue
            seen[digest] = len(seen)
            payload = None
            if e.payload is not None and e.payload_digest:  # packed in the snapshot's order
                payload = add(BLOB, e.payload, e.payload_digest.encode())
            if e.kind == "learning":
                staging.named[digest] = _named(e.data, digest, checked=True)
            staged.append(_Staged(digest, e.kind, e.stream, add(BLOB, e.data), e.payload_digest, payload))
        staging.readers.slices = len(staged) >= SLICES_FROM
        return staging

    def _signs(self) -> bool:
        """Whether appends carrying authority are signed here: always under a policy, and
        wherever git itself signs every commit (``commit.gpgsign``)."""
        return self.trust.state.mode == "policy" or git_flag(self.repo, "commit.gpgsign")

    def _commit_staged(self, namespace: Namespace, staging: _Staging, writer: ObjectWriter,
                       guard: tuple[str, str | None] | None, removals: tuple[Removal, ...],
                       sign: bool = False) -> AppendResult:
        repo = self.repository(namespace)
        ref = records_ref(namespace, self.writer)
        with self._writer_lock(namespace):
            for attempt in range(MAX_ATTEMPTS):
                tip = self._target(repo, ref)
                self._check_not_rewound(repo, ref, tip)
                if guard is not None:
                    current = self.head(guard[0])
                    if current != guard[1]:
                        raise ConflictError(
                            f"stream {guard[0]} moved: head is {current}, expected {guard[1]}"
                        )
                for removal in removals:
                    if self.redaction_note(removal.payload_digest, namespace) is not None:
                        raise ConflictError(f"payload {removal.payload_digest} was already removed")
                staging.drop_stored(self, writer)  # another writer may have stored some since staging
                if not staging.staged or self._try_commit(repo, namespace, ref, tip, staging, writer, removals, sign):
                    break
                import random  # only when appends collide: a capture's worker never loads it

                time.sleep(random.uniform(0, min(0.02, 0.0005 * 2 ** min(attempt, 6))))
            else:
                raise ConflictError(f"{ref} kept moving: gave up after {MAX_ATTEMPTS} attempts")
        done = AppendResult(added=tuple(s.digest for s in staging.staged), existing=tuple(staging.existing))
        if not staging.staged:
            if removals:
                raise Refused("an append that removes payloads adds the audit entries of the removals")
            return done
        if removals:
            self._drop_payloads([r.payload_digest for r in removals], namespace)
        return done

    def _writer_lock(self, namespace: str) -> AbstractContextManager[None]:
        """Serialize this writer's appends across processes; the kernel drops it if we die.

        Compare-and-swap on the ref stays the guarantee; the lock only turns a storm of
        retries into a queue, and lets the payload snapshot move with the records.
        """
        return self._lock(f"{namespace}-{self.writer}", fcntl.LOCK_EX)

    @contextmanager
    def _lock(self, name: str, mode: int) -> Iterator[None]:
        """``flock`` on ``.git/gitstore/<name>.lock`` for a while."""
        fd = os.open(self.state / f"{name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, mode)
            yield
        finally:
            os.close(fd)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Wait for the appends under way in this repository and hold new ones (and this
        writer's redactions) back: gc must not erase the objects of an append that has not
        committed yet, which nothing refers to."""
        with self._lock("gc", fcntl.LOCK_EX), self._writer_lock("local"), self._writer_lock("shared"):
            yield

    def _try_commit(self, repo: pygit2.Repository, namespace: Namespace, ref: str, tip: pygit2.Oid | None,
                    staging: _Staging, writer: ObjectWriter, removals: tuple[Removal, ...], sign: bool) -> bool:
        """Commit the staged entries on ``tip`` (True), or find they are all stored (True, with
        nothing staged left); False when ``ref`` moved meanwhile."""
        previous = self._clock(repo, tip, ref) if tip is not None else 0
        clock = self._next_clock(staging.refs, previous)  # before anything is written: refused, nothing is
        reader = staging.readers.of(repo)
        base = self._commit(repo, tip, ref).tree if tip is not None else None
        changes = {record_path(s.kind, s.digest): s.blob for s in staging.staged}
        for r in removals:  # listed again: the note as stored, else the tree would change a record
            kept = base is not None and note_path(r.payload_digest) in base
            if kept and base[note_path(r.payload_digest)].id != pygit2.hash(bytes(r.note)):  # type: ignore[index]
                raise Refused(f"a different redaction note for {r.payload_digest} is stored already: a removal "
                              "made again keeps it as it is")
        changes.update({note_path(r.payload_digest): writer.add(BLOB, bytes(r.note)) for r in removals})
        stored: list[str] | None = [] if tip is not None and staging.deferred == tip else None
        tree = self._tree(repo, base, changes, writer, reader, stored)
        staging.deferred = None  # looked up now: what is left staged, the tip does not hold
        records = {"sha256:" + path.rsplit("/", 1)[1][:-5] for path in stored or () if not path.startswith("notes/")}
        if records:  # entries the tip holds: its folders were read by the merge, not looked up before
            staging.move(records, writer)
            if not staging.staged:
                return True
        new = staging.staged
        carried = [(s.payload_digest, s.payload_blob) for s in new if s.payload_blob is not None and s.payload_digest]
        gone = {r.payload_digest for r in removals} | self._removed_from(namespace, {d for d, _ in carried})
        payloads: dict[str, bytes | None] = {  # a removed payload is never stored again
            payload_path(digest): blob for digest, blob in carried if digest not in gone
        }
        writer.drop({blob for digest, blob in carried if digest in gone} - set(payloads.values()))
        payload_tree = self._payload_tree(repo, namespace, payloads, writer, reader) if payloads else None
        # kept unless the commit lands: a snapshot that moved without its records holds
        # payloads no record names, which gc then looks for
        journal = self._journal([tree, *([payload_tree] if payload_tree is not None else [])])
        writer.flush(repo)
        if payload_tree is not None:  # the snapshot moves first: it may hold more, never less
            self._set_snapshot(repo, payloads_ref(namespace, self.writer), payload_tree, "gitstore: payloads")
        # the tips as this attempt found them (``drop_stored``): the compare-and-swap below
        # fails if this writer's moved since, and any other's may move the moment after a look
        heads, seen = self._seen_heads(namespace, ref, staging.refs, clock)
        policy = self.trust.state.commit if sign and self.trust.state.mode == "policy" else None
        message = format_message(clock, self.writer, namespace, new, [r.payload_digest for r in removals], seen,
                                 policy)
        signature = pygit2.Signature(SIGNATURE_NAME, SIGNATURE_EMAIL)
        parents = [tip] if tip is not None else []
        try:
            if sign:
                commit = self._signed(repo, signature, message, tree, parents)
            else:
                commit = repo.create_commit(None, signature, signature, message, tree, parents)
            note_made(self.state, ref, tip, commit)  # before the ref moves: a read finding it moved finds it named
            self._swap(repo, ref, tip, commit)
        except (pygit2.GitError, ValueError, OSError, _Moved):
            self._clear_stale_lock(repo, ref)
            return False
        with open(tips_log(self.state, ref), "a", encoding="ascii") as log:
            log.write(f"{commit}\n")
        self._sound.add((ref, commit))  # it holds every append acknowledged before it
        self._clocks[commit] = clock
        if len(message) >= REMEMBER_ORDER_FROM:  # what reading it back would find, without reading it
            self._remember_order(commit, Append(clock, self.writer, namespace, frozenset(s.kind for s in new),
                                                tuple(r.payload_digest for r in removals), seen_text(seen),
                                                policy or None), tip)
            self._keep_claims(str(commit), [(s.stream, staging.named.get(s.digest)) for s in new
                                            if s.kind == "learning"])
            self._orders.save()
            self._claims.save()
        self._save_named(ref, commit, heads)
        self._appended.append((f"{'repo' if repo is self.repo else 'local'}:{ref}", tip, commit))
        journal.unlink(missing_ok=True)
        return True

    def _signed(self, repo: pygit2.Repository, signature: pygit2.Signature, message: str, tree: pygit2.Oid,
                parents: list[pygit2.Oid]) -> pygit2.Oid:
        """A commit signed with this clone's git signing configuration."""
        from gitstore.providers._signing import signed_commit, signer  # only appends that decide are signed

        who, hint = signer(self.repo)
        if who is None:
            raise Refused(f"appends that decide are signed commits here, and {hint}")
        return signed_commit(repo, who, signature, message, tree, parents)

    def _swap(self, repo: pygit2.Repository, ref: str, tip: pygit2.Oid | None, commit: pygit2.Oid,
              message: str = "gitstore: append") -> None:
        """Move ``ref`` onto ``commit`` only if it still points at ``tip`` (a compare-and-swap
        under git's ref lock); ``_Moved`` when it does not."""
        with repo.transaction() as txn:
            txn.lock_ref(ref)
            if self._target(repo, ref) != tip:
                raise _Moved(ref)
            txn.set_target(ref, commit, message=message)

    def _seen_heads(self, namespace: Namespace, ref: str, tips: list[tuple[RefInfo, pygit2.Oid]],
                    clock: int) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
        """Every other writer's tip (of ``tips``) an append to ``ref`` at ``clock`` has seen (by
        writer), and those this writer's earlier appends did not name yet: what its ``Seen``
        headers say. A shared append names shared tips only (local ones never leave this
        machine). A tip at ``clock`` or above (its history does not hold its clock, so
        ``_next_clock`` took none from it) is not named, nor kept as named: the newest append of
        its history below ``clock`` stands for it, and a later append, its clock past the
        tip's, names the tip."""
        heads: dict[str, set[str]] = {}
        for info, head in tips:
            if info.writer != self.writer and (namespace == "local" or info.namespace == "shared"):
                below = self._seen_below(info, head, clock)
                if below is not None:
                    heads.setdefault(info.writer, set()).add(below)
        named = self._named(ref)
        seen = sorted((w, c) for w, commits in heads.items() for c in commits if c not in named.get(w, ()))
        for w, c in seen[MAX_SEEN:]:  # more than an append may name: the next one names the rest
            heads[w].discard(c)
        return {w: sorted(c) for w, c in heads.items() if c}, seen[:MAX_SEEN]

    def _seen_below(self, info: RefInfo, head: pygit2.Oid, clock: int) -> str | None:
        """The append of ``head``'s history an append at ``clock`` names as seen: ``head``
        itself when its clock is below (always, but after a jump its history does not hold),
        else the newest one below (None: none is). Every clone holding an append named refuses
        a clock not above its clock."""
        if self._clock(info.repo, head, info.name) < clock:
            return str(head)
        history = self._history(info, head)  # clocks grow along it
        at = bisect.bisect_left(history, clock, key=lambda each: each[0].clock)
        return str(history[at - 1][1]) if at else None

    def _named(self, ref: str) -> dict[str, list[str]]:
        """The tips this writer's appends to ``ref`` named, by writer (none when unknown: then
        the next append names every tip it has seen, which is only more than needed)."""
        known = self._named_cache.get(ref)
        if known is None:
            try:
                state = _jsontext.loads(_named_path(self.state, ref).read_text(encoding="ascii"))
                known = state if isinstance(state, dict) else {}
            except (OSError, ValueError):
                known = {}
            self._named_cache[ref] = known
        return known

    def _save_named(self, ref: str, commit: pygit2.Oid, heads: dict[str, list[str]]) -> None:
        """Remember the tips the append just made had seen (after it committed: a state lost
        or older than the history only makes the next append name more)."""
        if heads == self._named(ref):
            return
        self._named_cache[ref] = heads
        _named_path(self.state, ref).write_text(json.dumps(heads, sort_keys=True), encoding="ascii")

    def _journal(self, roots: list[pygit2.Oid]) -> Path:
        """Name the trees an append is about to make visible, until its commit refers to them:
        if the process is killed first, gc knows they were memory's."""
        folder = self.state / PENDING
        folder.mkdir(exist_ok=True)
        path = folder / f"{os.getpid()}-{os.urandom(16).hex()}"  # (uuid's import loads platform: 2 ms)
        path.write_text("".join(f"{oid}\n" for oid in roots), encoding="ascii")
        return path

    def _check_not_rewound(self, repo: pygit2.Repository, ref: str, tip: pygit2.Oid | None) -> None:
        """Refuse to build on a ref moved back past an append this clone acknowledged."""
        problem = rewound(repo, self.state, ref, tip)
        if problem:
            raise IntegrityError(f"{ref}: {problem}")

    def _write_tree(self, repo: pygit2.Repository, base: pygit2.Tree | None,
                    files: Mapping[str, bytes | None]) -> pygit2.Oid:
        """Write ``base`` with files added (path -> bytes) or removed (path -> None)."""
        writer = ObjectWriter(self.state / SCRATCH)
        tree = self._tree(repo, base, {p: None if d is None else writer.add(BLOB, d) for p, d in files.items()},
                          writer)
        writer.flush(repo)
        return tree

    def _tree(self, repo: pygit2.Repository, base: pygit2.Tree | None, changes: Mapping[str, bytes | None],
              writer: ObjectWriter, reader: TreeReader | None = None, stored: list[str] | None = None) -> pygit2.Oid:
        """``base`` with blobs added (path -> raw id of a blob given to ``writer``) or removed
        (path -> None). A few changes go through libgit2's tree builder (loose objects); more
        (each a blob and up to three new folders: enough objects for ``writer`` to pack them) are
        merged here, base folders read through ``reader``, new trees given to ``writer`` (the
        caller flushes it into ``repo``). ``stored``: a blob's path that ``base`` holds already
        is added to it and the entry left as it is (merges only: see ``MERGE_FROM``)."""
        if len(changes) < MERGE_FROM:
            oids = {p: None if o is None else pygit2.Oid(raw=o) for p, o in changes.items()}
            return _builder_tree(repo, base, oids) or repo.TreeBuilder().write()
        reader = reader or TreeReader(Database(repo))
        try:
            merged = _merge_tree(reader, writer, base.id.raw if base is not None else None, changes, stored)
        except Unreadable as exc:
            raise IntegrityError(f"cannot extend the stored tree: {exc}; run `gitstore verify`") from None
        return pygit2.Oid(raw=merged)

    def _clear_stale_lock(self, repo: pygit2.Repository, ref: str) -> None:
        """Remove a ref lock left by a killed process (held for microseconds when alive)."""
        clear_stale_lock(common_dir(repo) / f"{ref}.lock")

    def _payload_tree(self, repo: pygit2.Repository, namespace: str, files: dict[str, bytes | None],
                      writer: ObjectWriter, reader: TreeReader) -> pygit2.Oid:
        """The next payload snapshot's tree: the current one with ``files`` added (path -> raw
        blob id); the caller holds the writer lock and flushes ``writer``."""
        tip = self._target(repo, payloads_ref(namespace, self.writer))
        base = repo[tip].peel(pygit2.Tree) if tip is not None else None
        return self._tree(repo, base, files, writer, reader)

    def _set_snapshot(self, repo: pygit2.Repository, ref: str, tree: pygit2.Oid, message: str) -> pygit2.Oid:
        """Point ``ref`` at a new parentless commit of ``tree`` (under the writer lock) and
        return it; this writer's own snapshots are logged, so a deleted one is known to be damage."""
        commit = _snapshot_commit(repo, tree, message)
        self._force_ref(repo, ref, commit)
        self._log_snapshot(ref, commit)
        return commit

    def _replace_snapshot(self, repo: pygit2.Repository, ref: str, read: pygit2.Oid | None, tree: pygit2.Oid,
                          message: str) -> pygit2.Oid | None:
        """``_set_snapshot`` as a compare-and-swap: point ``ref`` at a new parentless commit of
        ``tree`` only while it still points at ``read``, the tip the tree was made from, and
        return that commit; None when it moved meanwhile (a ``git fetch`` or a sync brought a
        fetched snapshot anew, which forcing the ref would throw away)."""
        commit = _snapshot_commit(repo, tree, message)
        if not self._swap_ref(repo, ref, read, commit, message):
            return None
        self._log_snapshot(ref, commit)
        return commit

    def _log_snapshot(self, ref: str, commit: pygit2.Oid) -> None:
        if ref in (payloads_ref("shared", self.writer), payloads_ref("local", self.writer)):
            with open(tips_log(self.state, ref), "a", encoding="ascii") as log:
                log.write(f"{commit}\n")

    def _force_ref(self, repo: pygit2.Repository, ref: str, target: pygit2.Oid) -> None:
        """Point ``ref`` at ``target`` (under the writer lock). A ref lock an append killed
        part way left is waited out until it is stale and removed, as the records ref's is; any
        other failure still raises after that wait."""
        deadline = time.monotonic() + 2 * STALE_LOCK_SECONDS
        while True:
            self._clear_stale_lock(repo, ref)
            try:
                repo.references.create(ref, target, force=True)
                return
            except (pygit2.GitError, OSError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def _swap_ref(self, repo: pygit2.Repository, ref: str, read: pygit2.Oid | None, target: pygit2.Oid,
                  message: str) -> bool:
        """Point ``ref`` at ``target`` only while it points at ``read`` (``_swap``); False when
        it moved. A ref lock held (a ``git fetch`` writing it, or one a killed process left) is
        waited out as ``_force_ref`` waits."""
        deadline = time.monotonic() + 2 * STALE_LOCK_SECONDS
        while True:
            self._clear_stale_lock(repo, ref)
            try:
                self._swap(repo, ref, read, target, message)
                return True
            except _Moved:
                return False
            except (pygit2.GitError, OSError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def _drop_payloads(self, payload_digests: list[str], namespace: Namespace) -> None:
        """Write every snapshot the removals govern (``_governs``) that holds one of these
        payloads again without it: for removals in the shared namespace, this writer's, older
        local ones in the repository itself, and fetched ones; for local ones, the local
        snapshots only. gc then erases the text. A note already makes each one unreadable;
        this lets gc reach the bytes."""
        from gitstore.providers._incoming import drop_stale_incoming, sync_lock_if_free

        paths = {payload_path(d) for d in payload_digests}

        def held(repo: pygit2.Repository, ref: str, base: pygit2.Tree) -> dict[str, None]:
            if not _governs(namespace, _snapshot_namespace(ref)):
                return {}
            return {p: None for p in paths if p in base}

        with self._writer_lock("local"), self._writer_lock("shared"):
            try:
                self._rewrite_snapshots(held, "gitstore: remove payloads")
            except Refused as exc:  # the removal holds (its note takes the text from reads); gc writes them
                from gitstore.notices import note

                note(str(exc))
                return
        if namespace == "local":
            return  # no fetched snapshot was written again
        # an incoming ref that kept a fetched snapshot just written again keeps the text
        # reachable for git's own gc: dropped now, or by the sync running (it does when it ends)
        with sync_lock_if_free(self.state) as free:
            if not free:
                return
            try:
                drop_stale_incoming(self.repo)
            except (IntegrityError, Refused) as exc:  # the removal holds; gc deletes them or says why not
                from gitstore.notices import note

                note(f"{exc}; `gitstore gc` deletes them")

    def drop_removed(self, former: Collection[str] = ()) -> int:
        """Write this writer's shared payload snapshot, and that of each id in ``former`` (ids
        this clone wrote as before ``init --new-writer`` gave it another, which it still holds
        as its own), again without the payloads a removal honoured here took (``_honoured``:
        under a policy, one signed by someone it lets redact; without one, this clone's own),
        and return how many went. A removal made on another clone rewrote only that clone's
        copy of these snapshots: the snapshot on the remote kept the text until this clone
        pushed one without it, which only gc used to write (and a removal's records go under
        the current id, so a former id's snapshot had nothing else to go out with). Only this
        clone's own snapshots: another writer's is theirs to write, and what it may drop is
        what the check of an arrived snapshot lets it (``unremoved``)."""
        dropped = 0
        for writer in dict.fromkeys((self.writer, *former)):
            ref = payloads_ref("shared", writer)
            with self._lock(f"shared-{writer}", fcntl.LOCK_EX):
                tip = self._target(self.repo, ref)
                if tip is None:
                    continue
                base = commit_at(self.repo, tip, ref).tree
                gone = {payload_path(digest): None for digest in self._removed_held(base)}
                if gone:
                    self._set_snapshot(self.repo, ref, self._write_tree(self.repo, base, gone),
                                       "gitstore: remove payloads")
                dropped += len(gone)
        return dropped

    def _removed_held(self, tree: pygit2.Tree) -> set[str]:
        """The payloads a snapshot's ``tree`` holds that a removal honoured here took from shared
        memory."""
        with readable("redaction notes"):  # the notes first, few; the history behind one only when it is here
            held = {digest for digest in self._notes_governing("shared") if payload_path(digest) in tree}
            return set(self._honoured("shared", held)) if held else set()

    def removed_in(self, tip: pygit2.Oid) -> set[str]:
        """The payloads the snapshot at ``tip`` (a remote's copy of one of this clone's, say)
        holds that a removal honoured here took; empty when it is not a readable commit."""
        try:
            return self._removed_held(commit_at(self.repo, tip, str(tip)).tree)
        except IntegrityError:
            return set()

    def only_removed(self, mine: pygit2.Oid, theirs: pygit2.Oid) -> set[str]:
        """The payloads the snapshot at ``theirs`` holds and the one at ``mine`` lacks, when that
        is all that tells them apart and a removal honoured here took each of them (``mine`` is
        ``theirs`` written again without what removals took); empty otherwise: a snapshot that
        adds anything, or drops a payload no honoured removal took, is no such rewrite."""
        try:
            old = commit_at(self.repo, theirs, str(theirs)).tree
            new = commit_at(self.repo, mine, str(mine)).tree
            diff = old.diff_to_tree(new)
        except (IntegrityError, pygit2.GitError, KeyError):
            return set()
        dropped: set[str] = set()
        for delta in diff.deltas:
            path = delta.old_file.path
            digest = "sha256:" + path.rsplit("/", 1)[-1].removesuffix(".json")
            if delta.status_char() != "D" or len(digest) != 71 or payload_path(digest) != path:
                return set()
            dropped.add(digest)
        if not dropped:
            return set()
        with readable("redaction notes"):
            return dropped if set(self._honoured("shared", dropped)) >= dropped else set()

    def _rewrite_snapshots(self, stale: Callable[[pygit2.Repository, str, pygit2.Tree], dict[str, None]],
                           message: str) -> int:
        """Write every snapshot again without the paths ``stale`` names for it (the caller holds
        the writer locks); returns how many paths went."""
        erased = 0
        # a fetched ref at no readable commit is not read, nor rewritten
        for repo, ref, read, base in self._snapshots_read() + self._held_snapshots():
            erased += self._rewrite_snapshot(repo, ref, read, base, stale, message)
        self._admissions.save(self.repo)
        return erased

    def _rewrite_snapshot(self, repo: pygit2.Repository, ref: str, read: pygit2.Oid | None, base: pygit2.Tree,
                          stale: Callable[[pygit2.Repository, str, pygit2.Tree], dict[str, None]],
                          message: str) -> int:
        """Write the snapshot ``ref`` held at ``read`` (its tree ``base``) again without the
        paths ``stale`` names; returns how many went. The ref moves only while it still points
        at ``read``: a fetched one a ``git fetch`` or a sync moved meanwhile is read again
        (checked as any arrival) and written from what it holds now, so what it brought stays."""
        for _ in range(REWRITE_TRIES):
            gone = stale(repo, ref, base)
            if not gone:
                return 0
            written = self._replace_snapshot(repo, ref, read, self._write_tree(repo, base, gone), message)
            if written is not None:
                if ref.startswith(PREFIX + "remotes/"):  # written here, from the admitted one: admitted
                    # as written, not as the ref reads now: a plain fetch may have moved it since
                    self._admissions.admitted(ref, written, None)
                return len(gone)
            again = self._snapshot_read(repo, ref)
            if again is None:  # gone meanwhile, or at no readable commit: nothing to write again
                return 0
            read, base = again
        raise Refused(f"{ref} moved each of the {REWRITE_TRIES} times it was read to be written without removed "
                      "payloads: the text stays in it until `gitstore gc` writes it again")

    def _held_snapshots(self) -> list[tuple[pygit2.Repository, str, pygit2.Oid | None, pygit2.Tree]]:
        """Every payload snapshot sync refused and holds in quarantine, as (repository, ref,
        tip, tree): never read, yet its text is in the clone until it is written again without what
        a removal took (the refusal is remembered by the tip refused, not by the ref's target)."""
        held = []
        for ref in ref_names(self.repo, QUARANTINE):
            if "/payloads/shared/" not in ref:
                continue
            read = self._snapshot_read(self.repo, ref)
            if read is not None:  # else not a readable commit: it holds no snapshot to write again
                held.append((self.repo, ref, *read))
        return held

    def _snapshot_refs(self) -> list[tuple[pygit2.Repository, str]]:
        """Every payload snapshot ref the store reads, with the repository holding it."""
        found: dict[tuple[int, str], tuple[pygit2.Repository, str]] = {}
        own = [(self.repo, payloads_ref("shared", self.writer))]
        if self._local is not None:
            own.append((self._local, payloads_ref("local", self.writer)))
        for repo, ref in own + [(info.repo, info.payloads) for info in self._refs()]:
            found.setdefault((id(repo), ref), (repo, ref))
        return list(found.values())

    def redaction_note(self, payload_digest: str, namespace: Namespace | None = None) -> bytes | None:
        """The honoured note that removes the payload (``namespace``: from that namespace's
        memory, see ``_governs``; None: from either, as reads on this clone take it)."""
        with readable("redaction notes"):  # judged alone: a read asks this of every payload
            return self._honoured(namespace, (payload_digest,)).get(payload_digest)

    def own_note(self, payload_digest: str, namespace: Namespace) -> bytes | None:
        """The redaction note this writer's records tip in ``namespace`` holds for the payload,
        honoured or not (None: none)."""
        repo, ref = self.repository(namespace), records_ref(namespace, self.writer)
        with readable("redaction notes"):
            tip = self._target(repo, ref)
            tree = None if tip is None else self._commit(repo, tip, ref).tree
            path = note_path(payload_digest)
            return None if tree is None or path not in tree else _blob(repo, tree[path].id, path)

    def noted(self) -> set[str]:
        """Every payload digest that has a redaction note honoured (see ``judge_notes``)."""
        with readable("redaction notes"):
            return set(self._honoured())

    def judge_notes(self, judge: Callable[[str, bytes, str | None], bool]) -> None:
        """Honour only the notes ``judge`` accepts from now on (the store's trust rule)."""
        self._judge = judge
        self._judged.clear()

    def notes(self) -> list[tuple[str, bytes, str | None]]:
        """Every redaction note stored, honoured or not: (payload digest, note, append), the
        append the first of those that listed it the judge honours, else the newest to list it."""
        with readable("redaction notes"):
            return [(digest, note, self._deciding(digest, note, self._note_appends(where, digest)))
                    for digest, kept in sorted(self._kept_notes().items()) for note, where, _ in kept]

    def _deciding(self, digest: str, note: bytes, appends: tuple[str | None, ...]) -> str | None:
        """Of the appends that listed one note (``_note_appends``), the first the judge honours
        it for, else the newest: a note counts when any of them carries authority."""
        for append in appends:
            key = (digest, append)
            if key not in self._judged:
                self._judged[key] = self._judge(digest, note, append)
            if self._judged[key]:
                return append
        return appends[-1]

    def _honoured(self, namespace: Namespace | None = None,
                  only: Container[str] | None = None) -> dict[str, bytes]:
        """Payload digest -> the first note the judge honours for it (``namespace``: of the
        notes that govern that namespace's payloads, ``_governs``; ``only``: of those payload
        digests, so the judge reads the histories behind their notes alone)."""
        found: dict[str, bytes] = {}
        for digest, kept in self._kept_notes().items():
            if only is not None and digest not in only:
                continue
            for note, where, kept_in in kept:
                if not _governs(kept_in, namespace):
                    continue
                appends = self._note_appends(where, digest)
                if self._judged.get((digest, self._deciding(digest, note, appends))):
                    found[digest] = note
                    break
        return found

    def _kept_notes(self) -> dict[str, list[_Kept]]:
        """Payload digest -> every note kept for it, with where: the records tip whose tree
        holds it (the append that removed it is in that ref's history), or None for a note
        older versions kept in this clone's own payload snapshot; and the namespace it was
        kept in (the tip's, or the snapshot's). Read from the tip trees' ``notes/`` folders
        only (few), never the histories. Notes in snapshots another clone wrote are not notes:
        only appends carry authority."""
        if self._notes_held and self._notes_fresh and self._notes_cache is not None:
            return self._notes_cache[1]
        self._notes_fresh = self._notes_held
        tips = tuple(self._tips())
        if self._notes_cache is not None and self._notes_cache[0] == tips:
            return self._notes_cache[1]
        kept: dict[str, list[_Kept]] = {}
        # which tips' trees hold a notes folder (few do), kept by every tip in order (a commit
        # never changes): reads that find them where they stood load no other tip for it (an idle
        # sync among 400 writers loaded all 400, twice); any tip that moved is a new key
        key = hashlib.sha1("\n".join(f"{info.repo.path} {info.name} {tip}" for info, tip in tips)
                           .encode("utf-8", "surrogateescape")).hexdigest()
        known = self._notes_in.get(NOTES_KIND, key)
        holding = known if isinstance(known, list) and all(type(at) is int and 0 <= at < len(tips) for at in known) \
            else range(len(tips))
        trees: list[tuple[tuple[RefInfo, pygit2.Oid] | None, Namespace, pygit2.Repository, pygit2.Tree]] = [
            ((info, tip), info.namespace, info.repo, self._commit(info.repo, tip, info.name).tree)
            for info, tip in (tips[at] for at in holding)]
        if holding is not known:
            self._notes_in.put(NOTES_KIND, key, [at for at, (_, _, _, tree) in zip(holding, trees) if _notes_tree(tree)])
            self._notes_in.save()
        trees += [(None, _snapshot_namespace(ref), repo, tree) for repo, ref, tree in self._snapshots(own=True)]
        for where, namespace, repo, tree in trees:
            if _notes_tree(tree):
                notes = repo[tree["notes"].id].peel(pygit2.Tree)
                for path in _payload_paths(repo, notes):
                    digest = "sha256:" + path.rsplit("/", 1)[-1][:-5]
                    kept.setdefault(digest, []).append(_Kept(_blob(repo, notes[path].id, path), where, namespace))
        self._notes_cache = (tips, kept)
        return kept

    @contextmanager
    def notes_held(self) -> Iterator[None]:
        """Within it, the notes kept here (``_kept_notes``) are read at their first use and not
        read again at each: for a pass over every writer's payload snapshot, made once the
        records refs it judges by stand where they will (a sync's, after its records pass; a
        read's, whose first look at the notes reads every records tip). Each snapshot checked
        asks for them, and reading them means reading every records ref and its admission:
        among 400 writers a first sync made 162,000 of those look-ups (6.3 s of CPU, against
        0.6 s among 100 writers)."""
        held, self._notes_held = self._notes_held, True
        if not held:
            self._notes_fresh = False
        try:
            yield
        finally:
            self._notes_held = held

    def _removed_from(self, namespace: Namespace, payloads: set[str]) -> set[str]:
        """Of ``payloads``, those an honoured note removes from ``namespace``'s memory: what an
        append to it never stores again. A note without authority (anyone who can push may
        store one, for a payload they can predict) removes nothing here, as it removes nothing
        from reads and gc: else the text would be lost for the whole team. Only the payloads
        with a note kept are judged (reading the history behind the note); an append carrying
        none reads the tip trees' notes only."""
        if not payloads:
            return set()
        noted = payloads & self._notes_governing(namespace)
        return set(self._honoured(namespace, noted)) if noted else set()

    def noted_payloads(self) -> set[str]:
        """The payload digests a note kept here removes from shared memory, honoured or not:
        text no clone puts back on a remote for a writer (``gitstore sync``)."""
        with readable("redaction notes"):
            return self._notes_governing("shared")

    def _notes_governing(self, namespace: Namespace) -> set[str]:
        """The payload digests a note kept here, honoured or not, removes from ``namespace``'s
        memory (``_governs``): the few an append judges (``_removed_from``), and what a carry
        leaves out."""
        return {digest for digest, kept in self._kept_notes().items()
                if any(_governs(note.namespace, namespace) for note in kept)}

    def _note_appends(self, where: tuple[RefInfo, pygit2.Oid] | None, digest: str) -> tuple[str | None, ...]:
        """The appends whose ``Removes`` names ``digest`` in the history of the tip ``where``,
        oldest first: the one that added its note, then each that listed it again with its
        bytes unchanged (verify refuses any other change of a note), as a removal made before
        the team's policy is made again, signed. ((None,): a note kept in an own snapshot.)"""
        if where is None:
            return (None,)
        info, tip = where
        history = self._history(info, tip)
        key = (info.repo.path, info.name)
        known = self._removers.get(key)
        if known is None or known[0] is not history:  # a history walked again: indexed again
            known = self._removers[key] = (history, 0, {})
        _, indexed, removers = known
        for header, oid in history[indexed:]:
            for removed in header.removes:
                removers.setdefault(removed, []).append(str(oid))
        self._removers[key] = (history, len(history), removers)
        appends = removers.get(digest)
        if appends:
            return tuple(appends)
        raise IntegrityError(f"{info.name}: a note for {digest} is in its tree, and no append removed it; "
                             "run `gitstore verify`")

    def _snapshots(self, own: bool = False) -> list[tuple[pygit2.Repository, str, pygit2.Tree]]:
        """Every payload snapshot the store reads, as (repository, ref, tree) (``own``: only this
        clone's). A fetched snapshot is read once admitted (``_admitted_snapshot``); this
        clone's own fails closed."""
        return [(repo, ref, tree) for repo, ref, _, tree in self._snapshots_read(own)]

    def _snapshots_read(self, own: bool = False) -> list[tuple[pygit2.Repository, str, pygit2.Oid | None,
                                                                 pygit2.Tree]]:
        """``_snapshots``, each with the tip its ref held before it was read (what a rewrite
        of it compares the ref with, ``_rewrite_snapshot``)."""
        trees = []
        with self.notes_held():  # each fetched snapshot admitted asks for them
            for repo, ref in self._snapshot_refs():
                if own and ref.startswith(PREFIX + "remotes/"):
                    continue
                read = self._snapshot_read(repo, ref)
                if read is not None:
                    trees.append((repo, ref, *read))
        self._admissions.save(self.repo)  # only what a check found since it was read
        return trees

    def _snapshot_read(self, repo: pygit2.Repository, ref: str) -> tuple[pygit2.Oid | None, pygit2.Tree] | None:
        """The payload snapshot ``ref`` holds as the store reads it: (the ref's tip, read first,
        the tree read), None when none is read. A fetched one is read once admitted
        (``_admitted_snapshot``), which may be another commit than its tip; this clone's own,
        and one held in quarantine, at its tip, and this clone's own fails closed."""
        tip = self._target(repo, ref)
        fetched = ref.startswith((PREFIX + "remotes/", QUARANTINE))
        target = self._admitted_snapshot(repo, ref) if ref.startswith(PREFIX + "remotes/") else tip
        if target is None:
            return None
        try:
            return tip, commit_at(repo, target, ref).tree
        except IntegrityError:
            if not fetched:
                raise
            return None

    def _admitted_snapshot(self, repo: pygit2.Repository, ref: str) -> pygit2.Oid | None:
        """Where a fetched payload snapshot is read: its tip once it passes the check a sync
        makes (a parentless commit, every new payload hashing to its name), against the
        snapshot admitted last, with any payload it drops that no stored append removed kept
        from that one (``kept_text``); else that one, and the ref is named as quarantined. A
        plain ``git fetch`` forces the ref (snapshots have no history), so a snapshot forced
        without some of a writer's text takes none of it from reads. A parted history's
        snapshot is read where it was kept: only this clone writes it, and admits what it
        writes (``_rewrite_snapshots``)."""
        tip = self._target(repo, ref)
        if tip is not None and not is_parted_snapshot(ref):
            writer = ref.rsplit("/", 1)[-1]
            admission = self._admissions.snapshot(repo, ref, tip, lambda dropped: self.unremoved(dropped, writer),
                                                  self._records_state,
                                                  lambda added: self.brought_back(added, writer))
            if admission.admitted:
                self._quarantine.pop(ref, None)
            else:
                self._quarantine[ref] = admission
        base = self._admissions.base(ref)  # the tip admitted, or it with the text it dropped kept (``kept_text``)
        if base is not None and tip is not None and base != tip and ref not in self._quarantine \
                and self._admissions.owes(ref):
            from gitstore.notices import note

            note(f"writer {ref.rsplit('/', 1)[-1]}'s payload snapshot, {KEPT_NOTE}: it is kept and still read "
                 "(`gitstore sync` names it)")
        return base if base is not None and base in repo else None

    def _records_state(self) -> str:
        """The records refs as reads take them, in a few bytes: a snapshot refused for dropping
        payloads no removal took is judged again once they move (the removal may arrive)."""
        return records_state(tip for _, tip in self._tips())

    def unremoved(self, dropped: set[str], writer: str) -> set[str]:
        """Of the payloads a snapshot of ``writer`` drops, those no removal it may follow took
        and an event of that writer's own records names. A snapshot owes only those: it is
        written with its writer's appends, so another writer's payload in it is one somebody
        added (the text stays in that writer's snapshot), and owing it would refuse every
        honest snapshot after; gc also drops what no event names. A removal counts when its
        note is honoured here, or, without a policy (where only this clone's own removals are
        honoured), when the snapshot's writer made it: anyone who can push can store a note,
        and a snapshot forced over another writer's would drop their text."""
        with readable("redaction notes"):
            left = dropped - set(self._honoured("shared"))  # a fetched snapshot is shared memory
            if left and self.trust.state.mode != "policy":
                left -= self._writers_own_removals(writer)
            return left & self._named_payloads(writer) if left else left

    def brought_back(self, added: set[str], writer: str) -> set[str]:
        """Of the payloads a snapshot of ``writer`` adds, those a removal it follows took (as
        ``unremoved`` counts them): someone with push access forced the writer's snapshot back
        to one holding text its writer, or someone the policy lets, removed. Reads leave them
        out of it, as a snapshot that drops text no removal took is read with that text kept."""
        with readable("redaction notes"):
            noted = added & self._notes_governing("shared")  # few: the notes are read first
            if not noted:
                return set()
            taken = set(self._honoured("shared", noted))
            if self.trust.state.mode != "policy":
                taken |= noted & self._writers_own_removals(writer)
            return taken

    def _writers_own_removals(self, writer: str) -> set[str]:
        """The payload digests a note kept in ``writer``'s own shared records removes: without a
        policy, what counts for that writer's snapshot."""
        return {digest for digest, kept in self._kept_notes().items()
                if any(where is not None and where[0].writer == writer and kept_in == "shared"
                       for _, where, kept_in in kept)}

    # -- reading -------------------------------------------------------------------------------

    @staticmethod
    def _target(repo: pygit2.Repository, ref: str) -> pygit2.Oid | None:
        try:
            return repo.references[ref].target  # type: ignore[return-value]
        except KeyError:
            return None

    def _tips(self) -> list[tuple[RefInfo, pygit2.Oid]]:
        """Every records ref the store reads, with its tip. This clone's own refs fail closed:
        a tip that is not a commit, or that lost an acknowledged append, raises IntegrityError
        naming the ref; so does a ref whose acknowledged appends are gone with it."""
        if not self._logs_checked:
            self._check_logged_refs()
        tips = []
        parted = self._admissions.parted_now
        infos = self._refs()
        cut = self._cut_refs()  # once a pass, after the refs were listed
        for info in infos:
            target = self._fetched_target(info, cut)
            if target is not None and not info.fetched and (info.name, target) not in self._sound:
                self._refuse_cut(info)
                # the log is read before the ref: an append acknowledged by then is in the ref read after
                acked = last_acknowledged(self.state, info.name)
                target = self._target(info.repo, info.name)
                if target is not None and (info.name, target) not in self._sound:
                    self._check_tip(info, target, acked)
                if target != info.listed:  # moved since the listing (another process appended):
                    info = replace(info, listed=target)  # its records are read from the tip walked
            if target is None:
                continue
            tips.append((info, target))
        if self._admissions.parted_now != parted:  # a fork just admitted: the history it parted from is read too
            listed = {info.name for info in infos}
            tips += [(info, target) for info in self._refs() if info.parted and info.name not in listed
                     and (target := self._fetched_target(info)) is not None]
        self._admissions.save(self.repo)
        return tips

    def _current_tips(self) -> list[tuple[RefInfo, pygit2.Oid]]:
        """``_tips`` without the parted histories of fetched writers: what an append builds on.
        Other clones may never hold a parted history, so an append names none of its tips as
        seen, counts its clock from none (a jump past its own last clock that no ``Seen`` it
        names explains is damage), and stores again a record only a parted history holds."""
        return [(info, tip) for info, tip in self._tips() if not info.parted]

    def _admit(self, info: RefInfo, target: pygit2.Oid, cut: AbstractSet[str] | None = None) -> Admission:
        """Where a fetched ref stands: its records may be read once verified up to ``target``;
        a ref whose history fails is quarantined and named by ``quarantined``, and read only up
        to the commit before the first that fails (``Admissions.check``; ``_fetched_target``).
        ``cut``: the refs a shallow fetch cut short (``_cut_refs``) as a pass over every ref
        read them once, after listing them (None: read now)."""
        cut = self._cut_refs() if cut is None else cut
        if info.repo is self.repo and info.name in cut:  # judged again once whole: never remembered
            may_mend = unmended_tips(self.repo).get(info.name) != str(target)  # no sync tried at this tip
            admission = Admission(info.name, str(target), SHALLOW if may_mend else unmended(info.name))
        else:
            # whether it may part is asked only of a ref that moved: four stats a writer otherwise
            admission = self._admissions.check(self.repo, info.name, target, self.scope, lambda: self._may_part(info))
        if admission.admitted:
            self._quarantine.pop(info.name, None)
        else:
            self._quarantine[info.name] = admission
        return admission

    def _may_part(self, info: RefInfo) -> bool:
        """Whether a fetched ref may part from the history admitted for it (``Admissions.fork``):
        another writer's, never a parted history itself, nor a copy of a writer this clone
        writes as (its own refs hold that history: a copy that parted from it stays refused,
        and sync's push names it)."""
        return info.fetched and not info.parted and not self.wrote_as(info.writer)

    def wrote_as(self, writer: str) -> bool:
        """Whether this clone writes or wrote as ``writer`` (``_tips.wrote_as``): only such a
        writer's appends in its own refs are its own. Looked up once a handle per writer."""
        known = self._own_writers.get(writer)
        if known is None:
            known = self._own_writers[writer] = wrote_as(self.state, writer, self.writer)
        return known

    def admit(self) -> list[Admission]:
        """Verify what every fetched writer ref brought since it was last admitted, and say
        where each stands (what ``gitstore sync`` calls after fetching; reads do it anyway)."""
        found = []
        with readable("the fetched refs"):
            infos = self._refs()
            cut = self._cut_refs()  # once a pass, after the refs were listed
            for info in infos:
                target = info.tip
                if info.fetched and target is not None:
                    found.append(self._admit(info, target, cut))
        self._admissions.save(self.repo)
        return found

    def check_own_refs(self) -> None:
        """Raise ``IntegrityError`` naming the first of this clone's own refs that every read
        would refuse: gone after appends were acknowledged on it, at something that is not a
        readable commit, or moved back past an acknowledged append. Reads no records."""
        with readable("this clone's memory refs"):
            self._check_logged_refs()
            for info in self._refs():
                if info.fetched:
                    continue
                acked = last_acknowledged(self.state, info.name)  # before the ref, as reads take them
                target = self._target(info.repo, info.name)
                if target is not None:
                    self._refuse_cut(info)
                    self._check_tip(info, target, acked)

    def _cut_refs(self) -> set[str]:
        """The memory refs whose history a shallow fetch cut short (``_shallow``), worked out
        again only when the shallow file changed: a repository that is not shallow costs a stat."""
        state = shallow_state(self.repo)
        if state is None:
            return set()
        if self._cut[0] != state:
            self._cut = (state, cut_refs(self.repo, PREFIX))
        return self._cut[1]

    def _cut_at(self, oid: pygit2.Oid) -> bool:
        """Whether git reads ``oid`` as a first commit only because a shallow fetch cut its parents."""
        return shallow_state(self.repo) is not None and str(oid) in cut_commits(self.repo)

    def _refuse_cut(self, info: RefInfo) -> None:
        """Refuse one of this clone's own refs whose history a shallow fetch cut short: read from
        the cut it lacks every append before it, and an append onto it would build on that."""
        if info.repo is self.repo and info.name in self._cut_refs():
            raise IntegrityError(f"{info.name}: {SHALLOW}")

    def restorable(self) -> list[Restore]:
        """This clone's own refs that ``check_own_refs`` refuses for a lost acknowledged append,
        which ``git update-ref`` to that append restores (see ``_tips.restorable``)."""
        self._open_local()
        return restorable(self.repo, self._local, self.state)

    def admit_only(self, scope: str) -> None:
        """From now on admit a fetched ref only when every record it adds is of ``scope``:
        another repository's records quarantine the ref whole, as ``gitstore sync`` refuses it."""
        self.scope = scope

    def quarantined(self) -> list[Problem]:
        """The fetched refs left out of every read so far, each with why (the payload snapshots
        judged first, for a read that took no payload)."""
        with readable("the payload snapshots"):
            self._snapshots()
        return [Problem(ref, shown_in(self._left_out_because(ref, admission), ref, cut=True))  # a pushed name, shown
                for ref, admission in sorted(self._quarantine.items())]

    def _left_out_because(self, ref: str, admission: Admission) -> str:
        """Why reads leave a fetched ref out: its history fails verification, or, in a partial
        clone, a plain fetch brought it without objects git has not fetched yet (no damage)."""
        if names_shallow(admission.problem):
            return f"not read yet: another clone's memory at {admission.tip[:12]}: {admission.problem}"
        if names_cut(admission.problem):
            return f"left out: another clone's memory at {admission.tip[:12]}: {admission.problem}"
        if judged_again(self.repo, admission.problem):
            return (f"not read yet: another clone's memory arrived at {admission.tip[:12]} without its objects "
                    f"({admission.problem}), and {self._read_instead(ref)}; {LACKING}")
        return (f"quarantined: another clone's history fails verification at {admission.tip[:12]} "
                f"and {self._read_instead(ref)} ({admission.problem})")

    def _read_instead(self, ref: str) -> str:
        base = self._admissions.base(ref)
        return f"is read as admitted before, at {str(base)[:12]}" if base is not None and base in self.repo \
            else "none of it is read"

    def _check_tip(self, info: RefInfo, target: pygit2.Oid, acked: pygit2.Oid | None) -> None:
        """Refuse a tip that is not a readable commit, or that lost the append ``acked`` (the
        last one acknowledged on it before the tip was read)."""
        self._commit(info.repo, target, info.name)
        problem = rewound(info.repo, self.state, info.name, target, acked)
        if problem:
            raise IntegrityError(f"{info.name}: {problem}; run `gitstore verify`")
        self._sound.add((info.name, target))

    def _check_logged_refs(self) -> None:
        """Refuse when a ref this clone acknowledged appends on (its tips log says so) is gone,
        or when one of its own refs is a file that holds no ref: this writer's, and every id it
        wrote as before (``init --new-writer``, a copied folder), whose appends reads still
        owe; git leaves such a file out as if the ref were not there."""
        missing = lost_refs(self.repo, self._local, self.state)
        if missing:
            raise IntegrityError(f"{missing[0]}: {LOST}; run `gitstore verify`")
        own = {*logged_refs(self.state), *(kind(namespace, self.writer) for kind in (records_ref, payloads_ref)
                                           for namespace in NAMESPACES)}
        self._open_local()
        for name in sorted(own):
            if any(repo is not None and is_broken(repo, name) for repo in (self.repo, self._local)):
                raise IntegrityError(f"{name}: {BROKEN_REF}; `gitstore doctor` says how to mend it")
        self._logs_checked = True

    def _header(self, repo: pygit2.Repository, oid: pygit2.Oid) -> Header:
        try:
            return parse_message(message_of(self._commit(repo, oid, "records history", keep=False)))
        except ValueError as exc:
            raise IntegrityError(f"commit {oid}: {exc}") from None

    def _commit(self, repo: pygit2.Repository, oid: pygit2.Oid, where: str, keep: bool = True) -> pygit2.Commit:
        """``commit_at``, the last few tips kept for this handle: a bulk append's commit lists
        every record it stored (megabytes), and a read asks for a tip more than once (its
        check, its history, its records, its tree). ``keep=False``: a commit read in a
        pass over a history, taken from what is kept but not added to it; two such are kept
        apart (a read of several kinds passes over one bulk append's commit again): the one read
        last and, of the others, the one with the longest message. A pass that ends with small
        appends would otherwise let go of its bulk append's commit, which the next pass reads
        again (a ``gitstore learnings`` of 10,000 records read the 1 MB commit of its events,
        stored as a delta, twice: 10 to 15 ms each)."""
        key = (repo.path, oid)
        found = self._loaded.get(key)
        if found is None:
            found = self._passed.get(key)
        if found is None:
            found = commit_at(repo, oid, where)
            if keep:
                if len(self._loaded) >= KEEP_COMMITS:
                    del self._loaded[next(iter(self._loaded))]
                self._loaded[key] = found
            else:
                self._pass(key, found)
        return found

    def _pass(self, key: tuple[str, pygit2.Oid], commit: pygit2.Commit) -> None:
        """Keep a commit read in a pass over a history (``_commit``), letting go of the kept
        one with the shortest message (of the oldest among equals) when ``KEEP_PASSED`` are."""
        kept, sizes = self._passed, self._passed_sizes
        if len(kept) >= KEEP_PASSED:
            gone = min(kept, key=sizes.__getitem__)
            del kept[gone], sizes[gone]
        kept[key], sizes[key] = commit, len(commit.raw_message)

    def _history(self, info: RefInfo, tip: pygit2.Oid) -> list[tuple[Append, pygit2.Oid]]:
        """A ref's append commits, oldest first, extending the cached walk incrementally; each
        names the ref's writer and namespace and a clock above its parent's. Only each commit's
        header is kept, not its record lines (parsed again when read): memory holds a few
        values per append, not a tuple per record."""
        key = (info.repo.path, info.name)
        cached = self._histories.get(key)
        if cached is not None and cached[0] == tip:
            return cached[1]
        fresh, stopped = self._walk(info, tip, lambda oid: cached is not None and oid == cached[0],
                                    self._order, self._remembered_order)
        self._orders.save()
        history = cached[1] if cached is not None and stopped else []  # extended in place: the cache owns it
        _check_order(info, history[-1][0] if history else None, fresh)
        history.extend(fresh)
        self._histories[key] = (tip, history)
        return history

    def _walk(self, info: RefInfo, tip: pygit2.Oid, stop: Callable[[pygit2.Oid], bool],
              keep: Callable[[pygit2.Commit], T],
              remembered: Callable[[pygit2.Oid], tuple[T, pygit2.Oid | None] | None] | None = None,
              ) -> tuple[list[T], bool]:
        """What ``keep`` makes of each append commit of a ref (it may raise ValueError for a
        message off format), from its tip back to the first commit ``stop`` accepts (left out)
        or to its root, oldest first; and whether ``stop`` ended the walk. Each commit is read
        once: a bulk append's commit lists every record it stored. ``remembered``: what
        ``keep`` made of a commit before, and its parent, when known (the commit is not read)."""
        fresh: list[T] = []
        oid: pygit2.Oid | None = tip
        while oid is not None:
            if stop(oid):
                fresh.reverse()
                return fresh, True
            known = remembered(oid) if remembered is not None else None
            if known is not None:
                fresh.append(known[0])
                oid = known[1]
                continue
            commit = self._commit(info.repo, oid, info.name, keep=oid == tip)
            try:
                fresh.append(keep(commit))
            except ValueError as exc:
                raise IntegrityError(f"{info.name}: commit {oid}: {exc}") from None
            parents = commit.parent_ids
            if len(parents) > 1:
                raise IntegrityError(f"{info.name}: commit {oid} is a merge; writer histories are linear")
            if not parents and self._cut_at(oid):
                raise IntegrityError(f"{info.name}: commit {str(oid)[:12]}: {SHALLOW}")
            oid = parents[0] if parents else None
        fresh.reverse()
        return fresh, False

    def _order(self, commit: pygit2.Commit) -> tuple[Append, pygit2.Oid]:
        """An append commit's header, remembered by its id with its parent when the commit is
        big (see ``_remembered_order``; a small one costs less to read again than to keep)."""
        message = message_of(commit)
        append = parse_order(message)
        parents = commit.parent_ids
        if len(parents) <= 1 and len(message) >= REMEMBER_ORDER_FROM:  # a merge is refused by the walk
            self._remember_order(commit.id, append, parents[0] if parents else None)
        return append, commit.id

    def _remember_order(self, oid: pygit2.Oid, append: Append, parent: pygit2.Oid | None) -> None:
        """Keep a big commit's header and parent by its id (see ``_remembered_order``)."""
        self._orders.put(str(oid), ORDER_CONTEXT, {
            "clock": append.clock, "writer": append.writer, "namespace": append.namespace,
            "kinds": sorted(append.kinds), "removes": list(append.removes),
            "seen": [list(pair) for pair in append.seen], "policy": append.policy,
            "parent": None if parent is None else str(parent),
        })

    def _remembered_order(self, oid: pygit2.Oid) -> tuple[tuple[Append, pygit2.Oid], pygit2.Oid | None] | None:
        """``_order`` of a commit read before, and its parent, without reading it again: a
        commit never changes (its id is its bytes' hash), and a bulk append's lists every
        record it stored (11 MB, 0.15 s to load and parse, for 100,000): an append to a store
        of a million records walked ten of them. None when not remembered, or not readable."""
        found = self._orders.get(str(oid), ORDER_CONTEXT)
        if not isinstance(found, dict):
            return None
        try:
            append = Append(int(found["clock"]), str(found["writer"]), str(found["namespace"]),
                            frozenset(map(str, found["kinds"])), tuple(map(str, found["removes"])),
                            seen_text((str(w), str(c)) for w, c in found["seen"]),
                            None if found["policy"] is None else str(found["policy"]))
            parent = None if found["parent"] is None else pygit2.Oid(hex=str(found["parent"]))
            if len(append.seen) != len(found["seen"]):
                raise ValueError("a Seen value is off format")
        except (KeyError, TypeError, ValueError):
            return None
        return (append, oid), parent

    def _next_clock(self, tips: list[tuple[RefInfo, pygit2.Oid]], previous: int) -> int:
        """One more than the largest clock of ``tips`` and ``previous`` (the clock of this
        writer's last append on the ref, 0: none). Further past ``previous`` than the writer's
        own history lets a clock jump (``furthest``: only after a history that jumped its
        clock), one more than the largest clock the tips' own histories hold
        (``_held_tips_clock``): verify admits a jump leaning on a commit a clone does not hold
        (it cannot check it there), so a clock taken at its word would let anyone who can push
        take honest clocks toward the limit by naming commits nobody holds. Refused when the
        clock is past what a commit message holds (reads would refuse the append, and every
        one after it)."""
        clock = max(self._max_clock(tips), previous) + 1
        if clock > furthest(previous):  # the common case never walks a history
            clock = self._held_tips_clock(tips, previous) + 1
        if clock > LAST_CLOCK:
            raise Refused(f"the next append's clock, {clock}, is past the {len(str(LAST_CLOCK))} digits a commit "
                          "message holds: a history read here took clocks that far; `gitstore verify` names it")
        return clock

    def _held_tips_clock(self, tips: list[tuple[RefInfo, pygit2.Oid]], previous: int) -> int:
        """The largest clock an append after ``previous`` may take one past: of a tip within
        ``furthest(previous)``, its own; of a tip above, the largest its own history holds (every
        jump back to its root explained by commits held here: every clone holding them takes
        it), or failing that as far as ``furthest`` lets this writer climb on its own, never
        past ``MAX_CLOCK`` (a fork whose clock an append here leaned on, gone from the remote, is
        never held here: its writer's clock is caught up with a few appends at most)."""
        reach = furthest(previous)
        climb = min(reach, MAX_CLOCK) - 1
        held = HeldClocks(self._holders(), strict=True)
        best = previous
        for info, tip in tips:
            clock = self._clock(info.repo, tip, info.name)
            best = max(best, clock if clock < reach else max(self._held_clock(held, info, tip), min(clock, climb)))
        return best

    def _held_clock(self, held: HeldClocks, info: RefInfo, tip: pygit2.Oid) -> int:
        """The clock of the newest append of ``tip``'s history that the history holds (0: none)."""
        found = held.held(tip)
        if found is not None:
            return found
        history = self._history(info, tip)  # once a clock is not held, none after it is
        at = bisect.bisect_left(history, True, key=lambda each: held.held(each[1]) is None)
        return history[at - 1][0].clock if at else 0

    def _holders(self) -> tuple[pygit2.Repository, ...]:
        """The repositories whose commits this clone holds: its own, and its local namespace's."""
        return (self.repo,) if self._local is None else (self.repo, self._local)

    def _max_clock(self, tips: list[tuple[RefInfo, pygit2.Oid]]) -> int:
        return max((self._clock(info.repo, tip, info.name) for info, tip in tips), default=0)

    def _clock(self, repo: pygit2.Repository, tip: pygit2.Oid, name: str) -> int:
        """The clock of the append ``tip`` of ref ``name``, remembered once read."""
        clock = self._clocks.get(tip)
        if clock is None and (known := self._remembered_order(tip)) is not None:
            clock = self._clocks[tip] = known[0][0].clock
        if clock is None:
            try:
                clock = self._clocks[tip] = parse_order(message_of(self._commit(repo, tip, name))).clock
            except ValueError as exc:
                raise IntegrityError(f"commit {tip}: {exc}") from None
        return clock

    # -- trust -----------------------------------------------------------------------------------

    @property
    def trust(self) -> Trust:
        """The policy in force and the signers of appends (see ``_trust_git``)."""
        if self._trust is None:
            from gitstore.providers._trust_git import Trust  # the policy's modules: not for local appends

            self._trust = Trust(self.repo, self.state)
        return self._trust

    def trust_mode(self) -> TrustMode:
        return self.trust.mode()

    def signing_as(self) -> tuple[tuple[tuple[str, frozenset[str]], ...], str]:
        return self.trust.signing_as()

    def attest(self, append: str) -> Attestation:
        """Who made an append: whether it is in this clone's own refs (else fetched), and,
        under a policy, whose signature on it counts."""
        with readable("the stored records"):
            found = self._origins(append).get(append)
            if found is None:
                return Attestation(append, False, problem="is not an append this clone holds")
            info, header, own = found
            base = Attestation(append, own and self.owns_refs, info.name, namespace=info.namespace)
            if self.trust.state.mode != "policy" or info.namespace == "local":
                return base
            from gitstore.providers._trust_git import attestation

            commit = commit_at(info.repo, pygit2.Oid(hex=append), info.name)
            return attestation(base, self.trust, commit, header.policy)

    def _origins(self, append: str) -> dict[str, tuple[RefInfo, Append, bool]]:
        """Commit id -> a ref holding it, its header, and whether any of this clone's own refs
        holds it as a writer this clone writes or wrote as (``wrote_as``: a commit of this
        clone's that came back in a fetch is still its own; another writer's ref a plain fetch
        put in this clone's own names makes none of its appends this clone's), and one of the
        moves this clone made of that ref covers it (``made_here``: appends another clone made
        under this writer's id, which a plain fetch moved the ref on to, are not). Built
        again only when ``append`` is not in it: what is known of a commit never changes."""
        if self._origins_cache is not None and append in self._origins_cache[1]:
            return self._origins_cache[1]
        tips = tuple(self._tips())
        if self._origins_cache is None or self._origins_cache[0] != tips:
            found: dict[str, tuple[RefInfo, Append, bool]] = {}
            for info, tip in tips:
                history = self._history(info, tip)
                # the moves this clone made of the ref (read after it): appends none of them covers came
                # from elsewhere (another clone writing as this writer, which a plain fetch moved the ref on to)
                made = made_here(self.state, info.name, [oid for _, oid in history]) \
                    if not info.fetched and self.wrote_as(info.writer) else None
                for at, (header, oid) in enumerate(history):
                    known = found.get(str(oid))
                    own = made is not None and made[at]
                    if known is None or (not known[2] and own):
                        found[str(oid)] = (info, header, own)
            self._origins_cache = (tips, found)
        return self._origins_cache[1]

    def saw(self, later: str, earlier: str) -> bool:
        """Whether append ``later`` was made having seen append ``earlier`` (both commit ids):
        ``earlier`` is reachable from ``later`` through parents and ``Seen`` headers."""
        with readable("the stored records"):
            known = self._causality
            if known is None or not (known[1].knows(later) and known[1].knows(earlier)):
                tips = tuple(self._tips())  # built again only for appends it does not know
                if known is None or known[0] != tips:
                    histories = [(info.name, self._history(info, tip)) for info, tip in tips]
                    self._causality = (tips, Causality(histories))
            assert self._causality is not None
            return self._causality[1].saw(later, earlier)

    def unheld_seen(self, skip: Collection[str] = ()) -> list[Unheld]:
        """The writers whose history read here lacks appends another writer's fetched history
        names as seen (``gitstore.providers._unheld``): never this writer or one of ``skip`` (the
        ids this clone wrote as before), nor a writer with a ref held in sync's quarantine or
        left out of reads (what is read of it stays behind for a reason already named)."""
        with readable("the stored records"):
            tips = self._tips()
            read = {info.name for info, _ in tips}
            held_back = {info.writer for info in self._refs() if info.name not in read or info.name in self._quarantine}
            held_back |= {name.rsplit("/", 1)[-1] for name in ref_names(self.repo, QUARANTINE) if "/records/" in name}
            skipped = {self.writer, *skip, *held_back}
            # what it found is kept by everything it depends on: each history read, named by its
            # tip (a commit never changes), the writers skipped, and the shallow file (which cuts
            # a history a walk then refuses). An idle sync among 400 writers walked all 400
            # histories again for nothing: a ref that moved, or any other change, is a new key
            key = hashlib.sha1("\n".join([
                str(shallow_state(self.repo)), " ".join(sorted(skipped)),
                *sorted(f"{info.repo.path} {info.name} {info.writer} {int(info.fetched)} {tip}" for info, tip in tips),
            ]).encode("utf-8", "surrogateescape")).hexdigest()
            kept = Verified(self.state, "unheld")
            known = kept.get(UNHELD_KIND, key)
            try:  # a file damaged by hand is found again, never a traceback
                if isinstance(known, list):
                    return [Unheld(str(writer), tuple(map(str, commits)), tuple(map(str, seen_by)))
                            for writer, commits, seen_by in known]
            except (TypeError, ValueError):
                pass
            found = unheld(((info.writer, info.fetched, self._history(info, tip)) for info, tip in tips), skipped)
            kept.put(UNHELD_KIND, key, [list(item) for item in found])
            kept.save()
            return found

    def _commits(self) -> list[tuple[Append, RefInfo, pygit2.Oid]]:
        """Every append commit of every ref, in store order."""
        commits = []
        for info, tip in self._tips():
            commits.extend((append, info, oid) for append, oid in self._history(info, tip))
        commits.sort(key=lambda c: (c[0].clock, c[0].writer, c[1].name))
        return commits

    def _appends(self, kinds: Collection[str] | None = None) -> Iterator[tuple[Append, RefInfo, pygit2.Oid]]:
        """Every append commit of every ref in store order (only those storing one of
        ``kinds``, when given); ``_lines`` reads its record lines."""
        for append, info, oid in self._commits():
            if kinds is None or not append.kinds.isdisjoint(kinds):
                yield append, info, oid

    def _lines(self, repo: pygit2.Repository, oid: pygit2.Oid, marks: Collection[str] | None = None,
               streams: Container[str] | None = None) -> Iterator[tuple[int, str, str, str]]:
        """A commit's record lines (position, digest, kind, stream) in position order, one at a
        time: a bulk append's commit lists every record it stored, and a read holds one line at
        a time, not a tuple per record. Its history checked the block's format (``parse_order``).
        ``marks``: only lines holding one of these, and maybe others (``record_lines_holding``),
        found by searching when there are few (``FEW_MARKS``), else the lines of ``streams``
        (``record_lines_of``), else every line."""
        try:
            message = message_of(self._commit(repo, oid, "records history", keep=False))
            if len(message) >= REMEMBER_ORDER_FROM:
                self._keep_filter(oid, message)
            if marks is not None and len(marks) <= FEW_MARKS:
                yield from record_lines_holding(message, marks)
            elif streams is not None:
                yield from record_lines_of(message, streams)
            else:
                for position, (digest, kind, stream) in enumerate(record_lines(message)):
                    yield position, digest, kind, stream
        except ValueError as exc:
            raise IntegrityError(f"commit {oid}: {exc}") from None

    def _may_hold(self, oid: pygit2.Oid, streams: Collection[str]) -> bool:
        """Whether append ``oid`` may hold records of ``streams``: False only when the filter
        kept for its commit (``_holds``) says it holds none; asked for up to ``FILTERED_NAMES``
        streams (each costs a hash once a read, and a few bit tests an append), as a read of
        some learnings' or episodes' streams is (the learnings settling a wide replacement's
        claims are a dozen or more)."""
        if len(streams) > FILTERED_NAMES:
            return True
        key = str(oid)
        if key not in self._filters:
            self._filters[key] = Filter.read(self._orders.get(key, HOLDS))
        found = self._filters[key]
        return found is None or found.may_hold(streams)

    def _keep_filter(self, oid: pygit2.Oid, message: str) -> None:
        """Keep the filter of the streams a big commit's lines name, and the digests of its
        records of the kinds decisions and what vouches for them are (``AUTHORITY_KINDS``: where
        else an audit entry is stored is asked by digest), the first time it is loaded
        (``_holds``; saved with the remembered headers at the end of the read)."""
        key = str(oid)
        if self._filters.get(key) is not None or self._orders.get(key, HOLDS) is not None:
            return
        kept = made_filter(name for digest, kind, stream in record_lines(message)
                           for name in ((stream, digest) if kind in AUTHORITY_KINDS else (stream,)))
        self._orders.put(key, HOLDS, kept)
        self._filters[key] = Filter.read(kept)

    def claimants(self, learnings: Collection[str]) -> set[str]:
        """The streams of the learnings a stored version of which names one of ``learnings``
        in ``replaces`` or ``supersedes``, and of any whose version does not verify here (a
        read of its stream says what is wrong): ``Store.claimants``. What the learning records
        of an append name is read from their blobs, and kept under the commit's id for an
        append that stores many (``CLAIMS``; a commit never changes, and a kept list lost or
        unreadable costs a read of its records again, never a claim)."""
        wanted = set(learnings)
        found: set[str] = set()
        if not wanted:
            return found
        with readable("the stored records"):
            blobs = _BlobIndex(walk=False, commit=self._commit, tip=self._fetched_target,
                               kept=self.state / KIND_MAPS, looked_up=self._looked_up)
            done: set[pygit2.Oid] = set()
            for header, info, oid in self._appends({"learning"}):
                if oid in done:
                    continue
                done.add(oid)
                for stream, named in self._claims_of(blobs, header, info, oid):
                    if named is None or not wanted.isdisjoint(named):
                        found.add(stream)
            self._orders.save()
            self._claims.save()
        return found

    def _claims_of(self, blobs: _BlobIndex, header: Append, info: RefInfo,
                   oid: pygit2.Oid) -> list[tuple[str, list[str] | None]]:
        """(stream, the learnings it names) for each learning record of append ``oid`` that
        names any, None for one whose bytes do not verify."""
        key = str(oid)
        kept = self._claims.get(key, CLAIMS)
        if isinstance(kept, list) and all(
                isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str) and isinstance(pair[1], list)
                and all(isinstance(name, str) for name in pair[1]) for pair in kept):
            return [(stream, named) for stream, named in kept]
        return self._keep_claims(key, [(stream, _named(blobs.data(info, kind, digest, oid), digest))
                                       for _, digest, kind, stream in
                                       self._lines(info.repo, oid, _marks(header, {"learning"}, None))
                                       if kind == "learning"])

    def _keep_claims(self, key: str, versions: list[tuple[str, list[str] | None]]) -> list[tuple[str, list[str] | None]]:
        """Of an append's learning versions (stream, what each names), those that name any
        (None: its bytes do not verify), kept under the commit's id ``key`` when there are
        many (``CLAIMS_KEPT_FROM``) and every one verified: the append that makes a big commit
        keeps them from what it wrote, a read from what it read."""
        found = [(stream, named) for stream, named in versions if named is None or named]
        if len(versions) >= CLAIMS_KEPT_FROM and all(named is not None for _, named in found):
            self._claims.put(key, CLAIMS, [[stream, named] for stream, named in found])
        return found

    def read(self, scope: str | None = None, kinds: Iterable[str] | None = None) -> Iterator[Stored]:
        with readable("the stored records"):
            yield from self._read(scope, kinds, None)

    def read_streams(self, streams: Collection[str], scope: str | None = None,
                     kinds: Iterable[str] | None = None, digests: Collection[str] | None = None,
                     appends: Collection[str] | None = None) -> Iterator[Stored]:
        with readable("the stored records"):
            if appends is not None:
                digests = self._held_by(appends, set(kinds) if kinds is not None else None, streams, digests)
            yield from self._read(scope, kinds, streams, digests)

    def _held_by(self, appends: Collection[str], kinds: AbstractSet[str] | None, streams: Collection[str],
                 digests: Collection[str] | None) -> set[str]:
        """The digests of the records of ``kinds`` and ``streams`` that one of ``appends``
        holds (where it was read from, or a copy), of ``digests`` when given: found in those
        appends' record lines alone, so ``_read`` then places each where a read of the whole
        store would (its first append in store order) and notes its copies."""
        found: set[str] = set()
        wanted = set(appends)
        for header, info, oid in self._appends(kinds):
            if str(oid) not in wanted or not self._may_hold(oid, streams):
                continue
            for _, digest, kind, stream in self._lines(info.repo, oid, _marks(header, kinds, streams), streams):
                if ((kinds is None or kind in kinds) and stream in streams
                        and (digests is None or digest in digests)):
                    found.add(digest)
        return found

    def _read(self, scope: str | None, kinds: Iterable[str] | None,
              streams: Collection[str] | None, digests: Collection[str] | None = None) -> Iterator[Stored]:
        wanted = set(kinds) if kinds is not None else None
        needle = None if scope is None else f'"scope":"{scope}"'.encode()
        seen: set[str] = set()
        appends: set[pygit2.Oid] = set()  # after a sync, this writer's commits are under two refs
        blobs = _BlobIndex(walk=streams is None, commit=self._commit, tip=self._fetched_target,
                           kept=self.state / KIND_MAPS, looked_up=self._looked_up,
                           budget=None if digests is None else len(digests))
        for header, info, oid in self._appends(wanted):
            if oid in appends:
                continue  # each of its records was read from it already
            appends.add(oid)
            if streams is not None and not self._may_hold(oid, streams):
                continue  # it holds none of them
            if digests is not None and wanted is not None and wanted <= AUTHORITY_KINDS \
                    and not self._may_hold(oid, digests):
                continue  # nor any of those records (a filter names the digests of these kinds too)
            append = str(oid)
            for position, digest, kind, stream in self._lines(info.repo, oid, _marks(header, wanted, streams, digests),
                                                              streams):
                if ((wanted is not None and kind not in wanted)
                        or (streams is not None and stream not in streams)
                        or (digests is not None and digest not in digests)):
                    continue
                if digest in seen:
                    if kind in AUTHORITY_KINDS:  # another append's copy (see copies)
                        self._copies.setdefault(digest, {}).setdefault(append, Stored(
                            digest, kind, stream, b"", info.namespace, header.writer, header.clock, position, append))
                    continue
                seen.add(digest)
                data = blobs.data(info, kind, digest, oid)
                if needle is not None and needle not in data:
                    continue
                yield Stored(digest, kind, stream, data, info.namespace, header.writer,
                             header.clock, position, append)
        self._orders.save()  # the filters made on the way

    def copies(self, digest: str) -> list[Stored]:
        """The other appends a read met record ``digest`` in, after the one it was read from
        (which ``read`` returns), in store order, for the kinds whose records may need authority
        (``AUTHORITY_KINDS``): a writer can store a copy of another's signed decision in an
        unsigned append it claims an early clock for, and the store must still find the
        signed one (``gitstore.rules.view``). Their bytes are the record's own (same digest)."""
        return sorted(self._copies.get(digest, {}).values(), key=lambda s: s.order)

    def read_unchecked(self, kinds: Iterable[str], key: str) -> tuple[Iterator[Stored], Callable[[], None]]:
        """Records of ``kinds`` added since the store last checked them under ``key`` (a name for
        what "checked" meant: the kinds and the contracts), oldest first in each ref, and the
        function that marks every commit whose records were all read (and so checked) as
        checked; it may be called part way, so a check cut short resumes where it stopped.
        Commits never change, so a commit whose records were found sound stays sound: a write on
        a big store checks only what arrived since."""
        path = self.state / f"checked-{key}.json"
        try:
            marks = _jsontext.loads(path.read_text(encoding="ascii"))
        except (OSError, ValueError):
            marks = {}
        self._appended = []
        wanted = set(kinds)
        tips = [(info, tip, f"{'local' if info.repo is not self.repo else 'repo'}:{info.name}")
                for info, tip in self._tips()]
        progress = {name: marks[name] for _, _, name in tips if name in marks}

        def records() -> Iterator[Stored]:
            with readable("the stored records"):
                yield from unchecked()

        def unchecked() -> Iterator[Stored]:
            for info, tip, name in tips:
                database = Database(info.repo)
                for header, oid, tree in self._since(info, tip, marks.get(name)):
                    reader = TreeReader(database)  # one commit's folders: none is met again
                    for position, (digest, kind, stream) in enumerate(header.lines):
                        if kind in wanted:
                            data = _blob_at(info, reader, tree.raw, record_path(kind, digest), oid)
                            yield Stored(digest, kind, stream, data, info.namespace, header.writer,
                                         header.clock, position, str(oid))
                    progress[name] = str(oid)  # every record of this commit was read

        def done() -> None:
            _keep_marks(path, progress)

        return records(), done

    def checked_appends(self, key: str) -> None:
        """Move the marks of ``read_unchecked`` under ``key`` over this handle's own appends
        that directly follow them (see the Protocol)."""
        appended, self._appended = self._appended, []
        path = self.state / f"checked-{key}.json"
        try:
            marks = _jsontext.loads(path.read_text(encoding="ascii"))
        except (OSError, ValueError):
            return
        moved = False
        for name, parent, commit in appended:
            if marks.get(name) == (str(parent) if parent is not None else None):
                marks[name] = str(commit)
                moved = True
        if moved:
            _keep_marks(path, marks)

    def known_bytes(self, name: str) -> KnownBytes:
        """The store's memory of checked record bytes, in ``.git/gitstore/verified/<name>.*``
        beside the other remembered checks (``_verified``), as of the refs now; forgotten when
        a ref's history changed since the last witness (see ``_explains``). Memories kept under
        other names (other contracts) are removed. A ref the reads refuse (moved back, lost,
        not a commit) drops the memory before the read fails: nothing checked before the
        damage is trusted after it is repaired."""
        folder = self.state / VERIFIED
        try:
            witness = self._witness(name)
        except IntegrityError:
            KnownBytes(folder, name, {}).forget()
            self._memory = None
            raise
        memory = self._memory
        if memory is None or memory.name != name:
            kind = name.split("-", 1)[0]
            for stale in folder.glob(f"{kind}-*"):
                if not stale.name.startswith(name + "."):
                    stale.unlink(missing_ok=True)
            memory = self._memory = KnownBytes.open(folder, name, witness,
                                                  lambda last: self._explains(last, witness))
        else:
            memory.observe(witness, lambda last: self._explains(last, witness))
        return memory

    def _witness(self, name: str) -> dict[str, str]:
        """What the memory is trusted against: every records tip the reads take (this clone's
        own are checked against their tips logs there, fetched ones admitted) and this clone's
        tips logs (their size and last line)."""
        found = {"memory": name}
        for info, tip in self._tips():
            found[f"ref {'local:' if info.repo is not self.repo else ''}{info.name}"] = str(tip)
        for log in sorted(self.state.glob("*.tips")):
            found[f"log {log.name}"] = _log_mark(log)
        return found

    def _explains(self, last: Witness, now: Witness) -> bool:
        """Whether the storage now is the storage of witness ``last`` with appends only: every
        ref it names still there at the same tip or a descendant, every tips log it names
        grown from the line it ended with, the same memory name, and no doubt either side."""
        if last.get("memory") != now.get("memory") or "doubt" in last or "doubt" in now:
            return False
        for key, then in last.items():
            current = now.get(key)
            if key.startswith("ref "):
                if current is None or (current != then and not self._follows(key[4:], current, then)):
                    return False
            elif key.startswith("log "):
                if current is None or not _log_grew(self.state / key[4:], then):
                    return False
        return True

    def _follows(self, where: str, tip: str, then: str) -> bool:
        """Whether commit ``then`` is in the history of ``tip`` (``where`` names the repository),
        found by following first parents, remembered ones without reading their commits (a
        bulk append's commit lists every record it stored: libgit2 reads each it passes). A
        records ref's history is linear; any other is answered by libgit2."""
        repo = self.repo if not where.startswith("local:") else self._local
        if repo is None:
            return False
        try:
            oid: pygit2.Oid | None = pygit2.Oid(hex=tip)
            target = pygit2.Oid(hex=then)
            while oid is not None and oid != target:
                known = self._remembered_order(oid)
                if known is not None:
                    oid = known[1]
                    continue
                parents = repo[oid].parent_ids
                if len(parents) > 1:
                    return repo.descendant_of(pygit2.Oid(hex=tip), target)
                oid = parents[0] if parents else None
            return oid is not None
        except (KeyError, ValueError, pygit2.GitError):
            return False

    def _since(self, info: RefInfo, tip: pygit2.Oid,
               checked: str | None) -> list[tuple[Header, pygit2.Oid, pygit2.Oid]]:
        """A ref's append commits after ``checked`` (all of them when it is not in the history),
        oldest first, walking back from the tip only as far as needed: (header, id, tree id)."""
        return self._walk(info, tip, lambda oid: str(oid) == checked,
                          lambda commit: (parse_message(message_of(commit)), commit.id, commit.tree_id))[0]

    def read_stream(self, stream: str) -> Iterator[Stored]:
        with readable(f"stream {stream}"):
            yield from self._read_stream(stream)

    def _read_stream(self, stream: str) -> Iterator[Stored]:
        """The stream's records in store order, each once: where two refs hold the same record
        (this writer's own ref and the copy a sync brought back of it, or two writers), the
        first in store order counts, as in ``read``."""
        blobs = _BlobIndex(walk=False, commit=self._commit, tip=self._fetched_target, looked_up=self._looked_up)
        seen: set[str] = set()
        for header, info, oid in self._appends():
            if not self._may_hold(oid, (stream,)):
                continue
            for position, digest, kind, line_stream in self._lines(info.repo, oid, (_stream_mark(stream),)):
                if line_stream == stream and digest not in seen:
                    seen.add(digest)
                    data = blobs.data(info, kind, digest, oid)
                    yield Stored(digest, kind, stream, data, info.namespace, header.writer,
                                 header.clock, position, str(oid))
        self._orders.save()

    def head(self, stream: str) -> str | None:
        with readable(f"stream {stream}"):
            return self._head(stream)

    def _head(self, stream: str) -> str | None:
        last, seen = None, set()
        for _, info, oid in self._appends():
            if not self._may_hold(oid, (stream,)):
                continue
            for _, digest, _, line_stream in self._lines(info.repo, oid, (_stream_mark(stream),)):
                if line_stream == stream and digest not in seen:  # a record's first place counts (``_read_stream``)
                    seen.add(digest)
                    last = digest
        self._orders.save()
        return last

    def payload(self, payload_digest: str) -> bytes | None:
        return self.payload_reader(selective=True)(payload_digest)  # one payload: looked up by its path

    def payload_reader(self, *, selective: bool = False) -> Callable[[str], bytes | None]:
        """``payload`` bound to one snapshot of the payload refs, for reading many at once.
        The first ``PAYLOAD_PATHS`` payloads are each read straight down their path (the
        folders above the last kept once read), so reading a few costs what they are; a reader
        asked for more (a dream, an export: every payload, in event order) walks each snapshot
        once into an index of its leaves instead of reading a leaf folder per payload; the index
        is kept between reads as a kind folder's map is (``_kindmaps``: loaded, or brought up
        to date from the snapshot read before).

        ``selective``: the caller asks for payloads it picked (the events a view cites), not
        for every one. Such a reader goes on looking paths up until it has read as many leaf
        folders as the snapshots hold, which is what the walk would read: so it costs about
        twice the walk at most, and memory holds what it read, not an index of the store."""
        noted = self.noted()
        readers = _Readers(slices=not selective, packs_first=True)
        with readable("the payload snapshots"):
            snapshots = [(readers.of(repo), tree.id.raw, map_path(self.state / KIND_MAPS, repo.path, ref, "payloads"))
                         for repo, ref, tree in self._snapshots()]
        asked = 0
        walk_after = PAYLOAD_PATHS
        counted = not selective
        index: list[dict[str, bytes]] = []  # per snapshot: payload digest hex -> raw blob id (see _kindmaps)

        def read(payload_digest: str) -> bytes | None:
            try:  # ``readable``, without a context manager per payload
                return lookup(payload_digest)
            except (pygit2.GitError, Unreadable) as exc:
                raise _unreadable(f"payload {payload_digest}", exc) from None

        def entry(position: int, reader: TreeReader, root: bytes, path: str) -> tuple[bytes, bytes] | None:
            nonlocal asked, walk_after, counted
            if not index:
                asked += 1
                if asked > walk_after and not counted:
                    counted = True
                    with uncached_trees():
                        walk_after = max(walk_after, sum(_leaf_folders(r, t) for r, t, _ in snapshots))
                if asked > walk_after:
                    index.extend(folder_map(r.odb, t, kept) for r, t, kept in snapshots)
            if index:
                oid = index[position].get(path[6:-5])  # the digest's hex, in <aa>/<bb>/<hex>.json
                return None if oid is None or len(oid) != 20 else (BLOB_MODE, oid)
            if selective:  # a leaf folder per payload, each read about once
                with uncached_trees():
                    return reader.entry(root, path)
            return reader.entry(root, path)

        def lookup(payload_digest: str) -> bytes | None:
            if payload_digest in noted:
                return None  # removed: a copy left in a snapshot is never returned
            path = payload_path(payload_digest)
            try:
                for position, (reader, root, _) in enumerate(snapshots):
                    found = entry(position, reader, root, path)
                    if found is not None and found[0] == BLOB_MODE:
                        data = read_blob(reader.odb, found[1])
                        if sha256_digest(data) != payload_digest:
                            raise IntegrityError(f"payload {payload_digest} does not match its digest")
                        return data
            except Unreadable as exc:
                raise IntegrityError(f"payload {payload_digest}: {exc}; run `gitstore verify`") from None
            return None

        return read

    def verify(self) -> VerifyReport:
        with collector_paused():  # every object of the store read: millions of short-lived objects
            report = verify_repository(self.repo, self.state, local=False)
            report.problems = [Problem(p.where, advised(self.repo, p.message)) for p in report.problems]
            report.problems.extend(Problem(ref, f"the tip it was admitted at, {base}, is missing: what was read "
                                                "from it is gone (`git fetch` brings it back if the remote has it)")
                                   for ref, base in self._admitted_missing().items())
            if self._local is None:
                self._local = open_local(self.repo, create=False)
            if self._local is not None:
                found = verify_repository(self._local, self.state, local=True, shared=self.repo)
                report.records += found.records
                report.refs += found.refs
                report.problems.extend(found.problems)
                report.notices.extend(found.notices)
        return report

    def _admitted_missing(self) -> dict[str, pygit2.Oid]:
        """The fetched refs whose tip admitted last this clone no longer holds, as the
        admissions stand now, not as this handle read them: a removal writes a fetched snapshot
        anew and admits it, and gc then erases the one admitted before (a verify beside them
        named it missing). One found missing counts once read again still admitted."""
        found = Admissions(self.state).missing(self.repo)
        if found:
            again = Admissions(self.state).missing(self.repo)
            found = {ref: base for ref, base in found.items() if again.get(ref) == base}
        return found

    # -- gc ------------------------------------------------------------------------------------

    def gc(self) -> GcReport:
        """Erase what memory removed, and nothing of anyone else's (see ``_gc_git``)."""
        from gitstore.providers._gc_git import collect, drop_prefetched
        from gitstore.providers._incoming import drop_misnamed, drop_stale_incoming, sync_locked
        from gitstore.providers._maintain import pack_count, roll_up

        self.move_local()
        with sync_locked(self.state), self.paused():  # a sync's unverified refs are never dropped under it
            report = GcReport(payloads=self._sweep_snapshots())
            self._settle_fetched_snapshots()
            self._admissions.anchor(self.repo)  # a store older than anchors: git's own gc keeps them from now
            drop_stale_incoming(self.repo)  # the snapshots just rewritten included: reachable through none
            drop_misnamed(self.repo)  # nor through refs a plain fetch brought that no read takes for a writer's
            drop_prefetched(self.repo)  # nor through git's prefetch of memory's refspecs
            with readable("redaction notes"):  # unreachable, its text goes whoever's note names it
                removed: dict[str, set[str]] = {namespace: self._notes_governing(namespace) for namespace in NAMESPACES}
            report.objects += collect(self.repo, self.state, removed)
            if pack_count(local := self.state / LOCAL) > 1:  # the local namespace: git's gc never visits it
                roll_up(local)
        report.alternates = alternates(self.repo)  # the local namespace's repository borrows from none
        return report

    def _settle_fetched_snapshots(self) -> None:
        """Point each fetched payload snapshot ref a plain ``git fetch`` moved where reads do not
        read (a snapshot read with text kept or left out, ``kept_text``, or one refused) at the
        snapshot reads use, as a sync does: the commit the fetch put there may hold text a
        removal took (someone with push access forced an older snapshot back), which the ref
        would keep reachable through gc. The next fetch brings the remote's again, judged as
        any arrival is."""
        for ref in self._admissions.known(PREFIX + "remotes/"):
            if "/payloads/shared/" not in ref or is_parted_snapshot(ref):
                continue
            tip, base = self._target(self.repo, ref), self._admissions.base(ref)
            if tip is not None and base is not None and tip != base and base in self.repo:
                # only over the tip read: one a fetch brought since is judged when it is read
                self._swap_ref(self.repo, ref, tip, base, "gitstore: gc")

    def named_payloads(self) -> set[str]:
        """The payload digests the stored events name (what a snapshot may not drop unremoved)."""
        with readable("the stored events"):
            return self._named_payloads()

    def _named_payloads(self, writer: str | None = None) -> set[str]:
        """The payload digests the stored events name (``writer``: those of its shared records
        only, its parted histories left out: the snapshot its appends write owes none of theirs,
        whose text each parted history's own snapshot keeps, ``snapshot_of``): each records
        tip's ``event/`` folder, read raw
        (a tip's tree holds every record its writer ever stored)."""
        named: set[str] = set()
        readers = _Readers(packs_first=True)
        tips = [(info, tip) for info, tip in self._tips()
                if writer is None or (info.writer == writer and info.namespace == "shared" and not info.parted)]
        for reader, root in readers.roots(self, tips):
            try:
                for blob in _blobs_under(reader, root, "event"):
                    found = PAYLOAD_DIGEST.search(read_blob(reader.odb, blob))
                    if found:
                        named.add(found.group(1).decode())
            except Unreadable as exc:
                raise IntegrityError(f"cannot read the stored events: {exc}; run `gitstore verify`") from None
        return named

    def _sweep_snapshots(self) -> int:
        """Write every snapshot again without payloads that have a note (a removal killed before
        it rewrote the snapshots) and, when an append may have been killed since the last sweep
        (its journal is left) or none ever ran, this clone's own without payloads no stored
        event names. Returns
        how many payloads went. The caller holds the writer locks."""
        swept = self.state / "swept"
        with readable("redaction notes"):
            governed = {namespace: set(self._honoured(namespace)) for namespace in NAMESPACES}
        named: set[str] | None = None
        if not swept.exists() or any((self.state / PENDING).glob("*")):
            named = self._named_payloads()

        def stale(repo: pygit2.Repository, ref: str, base: pygit2.Tree) -> dict[str, None]:
            noted = governed[_snapshot_namespace(ref)]  # a personal note leaves shared text alone
            # what a killed append left is in this clone's own snapshots; another writer's
            # payloads may be named by records not read here (a ref quarantined, a pruned one)
            if named is None or ref.startswith((PREFIX + "remotes/", QUARANTINE)):
                return {path: None for path in map(payload_path, noted) if path in base}
            gone: dict[str, None] = {}
            for path in _payload_paths(repo, base):
                digest = "sha256:" + path.rsplit("/", 1)[-1][:-5]
                if digest not in named or digest in noted:
                    gone[path] = None
            return gone

        erased = self._rewrite_snapshots(stale, "gitstore: gc")
        swept.touch()
        return erased


def _named(data: bytes, digest: str, *, checked: bool = False) -> list[str] | None:
    """The learnings a stored learning version names in ``replaces`` or ``supersedes``, or
    None when its bytes are not that version (what a read of it refuses, naming why).
    ``checked``: bytes the store made from a record it checked (an append's), only parsed."""
    try:
        record = json.loads(data) if checked else verify_stored(data, digest, "learning")
        return sorted({*record["replaces"], *record.get("supersedes", ())})
    except (GitstoreError, ValueError, TypeError, KeyError, AttributeError):
        return None


def _marks(header: Append, kinds: AbstractSet[str] | None, streams: Collection[str] | None,
           digests: Collection[str] | None = None) -> list[str] | None:
    """What the record lines a read of ``kinds`` and ``streams`` wants from an append hold
    (``_lines``): a few ``digests`` (each begins its line), else its streams, or its kinds when
    it stores others too; None: every line."""
    if digests is not None and len(digests) <= FEW_MARKS:
        return [f"{digest} " for digest in digests]
    if streams is not None:
        return [_stream_mark(stream) for stream in streams] if len(streams) <= FEW_MARKS else None
    if kinds is not None and not header.kinds <= kinds:
        return [f" {kind} " for kind in kinds]
    return None


def _stream_mark(stream: str) -> str:
    """What a record line of ``stream`` holds: in a line only the stream ends it."""
    return f" {stream}\n"


def _log_mark(path: Path) -> str:
    """A tips log as a witness holds it: its size and its last line."""
    with open(path, "rb") as log:
        size = os.fstat(log.fileno()).st_size
        log.seek(max(0, size - 41))
        tail = log.read().split(b"\n")
    lines = [line for line in tail if line]
    return f"{size} {lines[-1].decode('ascii', 'replace') if lines else ''}"


def _log_grew(path: Path, mark: str) -> bool:
    """Whether a tips log still holds what it held at ``mark`` (``_log_mark``): at least as
    long, with the same line ending where it ended then."""
    size_text, _, last = mark.partition(" ")
    try:
        size = int(size_text)
        with open(path, "rb") as log:
            if os.fstat(log.fileno()).st_size < size:
                return False
            log.seek(max(0, size - 41))
            held = log.read(size - max(0, size - 41))
    except (OSError, ValueError):
        return False
    lines = [line for line in held.split(b"\n") if line]
    return (lines[-1].decode("ascii", "replace") if lines else "") == last


def _leaf_folders(reader: TreeReader, root: bytes) -> int:
    """How many ``<aa>/<bb>`` folders a payload snapshot holds (the folders a walk of it
    reads). Raises ``Unreadable``."""
    return sum(sum(1 for mode2, _, _ in read_tree(reader.odb, first) if mode2 == TREE_MODE)
               for mode, first in reader.listing(root).values() if mode == TREE_MODE)


def _blobs_under(reader: TreeReader, root: bytes, folder: str) -> Iterator[bytes]:
    """The raw ids of the blobs under ``folder/<aa>/<bb>/`` of a records tree."""
    found = reader.listing(root).get(folder)
    if found is None or found[0] != TREE_MODE:
        return
    for mode, first in reader.listing(found[1]).values():
        if mode != TREE_MODE:
            continue
        for mode2, second in reader.listing(first).values():
            if mode2 != TREE_MODE:
                continue
            yield from (oid for mode3, oid in reader.listing(second).values() if mode3 == BLOB_MODE)


def _keep_marks(path: Path, marks: dict[str, Any]) -> None:
    """Save the marks of what was checked (``read_unchecked``); a save the disk refuses (full,
    read-only) is given up: the marks only save work, so the next read checks those commits
    again, and no command fails for them."""
    try:
        replace_file(path, json.dumps(marks, sort_keys=True))
    except OSError:
        pass


def _blob_at(info: RefInfo, reader: TreeReader, tree: bytes, path: str, commit: pygit2.Oid) -> bytes:
    """The record blob a commit's tree (raw id) holds at ``path``, or IntegrityError naming it."""
    try:
        entry = reader.entry(tree, path)
        if entry is None:
            raise IntegrityError(f"{info.name}: commit {commit} lists {path} but the tree lacks it")
        if entry[0] != BLOB_MODE:
            raise IntegrityError(f"{info.name}: {path} is not a regular file")
        return read_blob(reader.odb, entry[1])
    except Unreadable as exc:
        raise IntegrityError(f"{info.name}: {path}: {exc}; run `gitstore verify`") from None


def _blob(repo: pygit2.Repository, oid: pygit2.Oid, where: str = "blob") -> bytes:
    """A blob's bytes, or IntegrityError naming ``where`` when it cannot be read."""
    try:
        return read_blob(Database(repo), oid.raw)
    except Unreadable as exc:
        raise IntegrityError(f"{where}: {exc}; run `gitstore verify`") from None


def _payload_entries(repo: pygit2.Repository, tree: pygit2.Tree) -> Iterator[tuple[str, str, pygit2.Object]]:
    """The payload blobs of a snapshot tree as (first folder, second folder, entry), its
    ``notes/`` folder left out."""
    for first in tree:
        if first.name == "notes" or first.filemode != pygit2.GIT_FILEMODE_TREE:
            continue
        for second in repo[first.id].peel(pygit2.Tree):
            if second.filemode != pygit2.GIT_FILEMODE_TREE:
                continue
            for leaf in repo[second.id].peel(pygit2.Tree):
                yield first.name or "", second.name or "", leaf


def _payload_paths(repo: pygit2.Repository, tree: pygit2.Tree) -> Iterator[str]:
    """The payload blobs of a snapshot tree (its ``notes/`` folder left out)."""
    for first, second, leaf in _payload_entries(repo, tree):
        yield f"{first}/{second}/{leaf.name}"


class _Staged(NamedTuple):
    """An entry whose blobs a writer holds: what its commit needs, without the bytes."""

    digest: str
    kind: str
    stream: str
    blob: bytes  # raw object id of the record blob
    payload_digest: str | None
    payload_blob: bytes | None


class _Readers:
    """One tree reader per repository (the repository itself and the local one), each folder
    read once for the length of one append, for lookups and for the merge. ``slices``: read
    through pack slices (an append of thousands of entries reads as many folders; a reader of
    every payload, which reads them in event order, hopping about the packs: through
    libgit2's bounded windows nearly every read mapped a window and unmapped another, two
    system calls and a page fault a payload); a small append reads through libgit2 (mapping
    the packs' indexes would cost more than it saves), and so does a reader of the payloads
    its caller picked, its packs first (``packs_first``: ``PackFirst``, which costs a second
    opening of the packs, worth it from a few hundred objects read)."""

    def __init__(self, slices: bool = False, packs_first: bool = False) -> None:
        self._readers: dict[str, TreeReader] = {}
        self.slices = slices
        self.packs_first = packs_first

    def of(self, repo: pygit2.Repository) -> TreeReader:
        found = self._readers.get(repo.path)
        if found is None:
            fallback = PackFirst(repo) if self.packs_first else Database(repo)
            odb = Objects(repo, fallback) if self.slices else fallback
            found = self._readers[repo.path] = TreeReader(odb)
        return found

    def roots(self, provider: GitProvider,
              tips: list[tuple[RefInfo, pygit2.Oid]]) -> list[tuple[TreeReader, bytes]]:
        """The raw tree ids of records tips, each with the reader of its repository (the
        commits loaded through ``provider``, which keeps its last few)."""
        return [(self.of(info.repo), provider._commit(info.repo, tip, info.name).tree_id.raw) for info, tip in tips]


class _Staging:
    """An append's entries once staged: new ones, ones already stored, and their input order."""

    __slots__ = ("tips", "readers", "refs", "deferred", "staged", "existing", "order", "named")

    def __init__(self, tips: list[pygit2.Oid], readers: _Readers, refs: list[tuple[RefInfo, pygit2.Oid]]) -> None:
        self.tips = tips  # every records tip when staging began
        self.readers = readers
        self.refs = refs  # and their refs
        self.deferred: pygit2.Oid | None = None  # the tip whose look-ups the merge makes (see look_up)
        self.staged: list[_Staged] = []
        self.existing: list[str] = []
        self.order: dict[str, int] = {}
        self.named: dict[str, list[str] | None] = {}  # learning digest -> what it names (``_claims_of``)

    def stored(self, roots: list[tuple[TreeReader, bytes]], path: str) -> bool:
        try:
            return any(reader.holds(root, path) for reader, root in roots)
        except Unreadable as exc:
            raise IntegrityError(f"cannot read the stored records: {exc}; run `gitstore verify`") from None

    def look_up(self, provider: GitProvider, writer: ObjectWriter, repo: pygit2.Repository, ref: str) -> None:
        """Move the staged entries some tip holds to ``existing``, looked up in path order: the
        tips' folders are read front to back, each once, not one per entry in the order the
        entries came. When the append is big, the tip of ``ref`` in ``repo`` (the tree its
        commit extends) is left to the merge, which reads each of its folders anyway
        (``_try_commit``)."""
        roots = self.readers.roots(provider, self.refs)
        own = [i for i, (info, _) in enumerate(self.refs) if info.name == ref and info.repo.path == repo.path]
        if own and len(self.staged) >= MERGE_FROM:
            self.move_stored([root for i, root in enumerate(roots) if i != own[0]], writer)
            if len(self.staged) >= MERGE_FROM:
                self.deferred = self.refs[own[0]][1]
                return
            roots = [roots[own[0]]]
        self.move_stored(roots, writer)

    def drop_stored(self, provider: GitProvider, writer: ObjectWriter) -> None:
        """Move entries stored since staging (a tip moved) from ``staged`` to ``existing``."""
        found = provider._current_tips()
        tips = [tip for _, tip in found]
        self.refs = found  # what the attempt's commit names and counts its clock from
        if tips == self.tips:
            return
        self.tips, self.deferred = tips, None
        self.move_stored(self.readers.roots(provider, found), writer)

    def move_stored(self, roots: list[tuple[TreeReader, bytes]], writer: ObjectWriter) -> None:
        """Move the staged entries some root holds to ``existing``, looked up in path order."""
        if not roots:
            return
        paths = sorted((record_path(s.kind, s.digest), s.digest) for s in self.staged)
        self.move({digest for path, digest in paths if self.stored(roots, path)}, writer)

    def move(self, stored: set[str], writer: ObjectWriter) -> None:
        """Move these staged entries to ``existing``, and drop the payload blobs no staged
        entry needs any more from ``writer``: they never reach the repository."""
        if not stored:
            return
        self.existing = sorted(self.existing + [s.digest for s in self.staged if s.digest in stored],
                               key=self.order.__getitem__)
        gone = {s.payload_blob for s in self.staged if s.digest in stored and s.payload_blob is not None}
        self.staged = [s for s in self.staged if s.digest not in stored]
        writer.drop(gone - {s.payload_blob for s in self.staged})


class _BlobIndex:
    """Finds record blobs through each ref's tip tree, walked once per kind folder (``walk``),
    or looked up path by path (a read of a few records). Folders are read raw (``TreeReader``):
    no object per entry.

    A writer's tip tree holds every record it ever stored (records are only added), so one
    walk serves every commit of the ref; ``verify`` checks that each commit agrees with it.
    A walk's answer is kept between reads under the folder's tree id (``kept``, see
    ``_kindmaps``), so a later read walks only the folders that changed. What a path lookup
    found is kept between reads under the tip tree's id (``looked_up``, up to ``LOOKUPS_KEPT``):
    a read of some learnings' evidence reads the events it keeps a second time.

    A read of some streams that looks up a large share of a folder no map is kept of (the
    cited episodes of a store's learnings: a quarter of its events, ``WALK_SHARE``) walks the
    folder instead, keeping its map: a lookup reads a leaf folder and the folders above it
    (about twice what a walk reads per leaf), and every later read loads the map for the cost
    of a few hundred lookups, where it would have looked up every record again.

    A read told which records it wants (``budget``: how many at most) loads a kept map only when
    those still to read would cost more looked up than the load: a second pass for a few
    thousand of a hundred thousand events would otherwise load the whole folder's map (tens
    of MB held beside everything the reader keeps) for its last few records.
    """

    def __init__(self, *, walk: bool = True,
                 commit: Callable[[pygit2.Repository, pygit2.Oid, str], pygit2.Commit] = commit_at,
                 tip: Callable[[RefInfo], pygit2.Oid | None] | None = None,
                 kept: Path | None = None,
                 looked_up: dict[tuple[str, bytes, str], tuple[bytes, bytes] | None] | None = None,
                 budget: int | None = None) -> None:
        self.walk = walk
        self.budget = budget  # the most records this read may still take (None: not known)
        self.looked_up = {} if looked_up is None else looked_up
        self.kept = kept  # where kind folder maps are kept between reads (``_kindmaps``)
        self._commit = commit
        self._tip: Callable[[RefInfo], pygit2.Oid | None] = tip or (
            lambda info: cast(pygit2.Oid, info.repo.references[info.name].target))  # where a ref is read
        self._maps: dict[tuple[str, str, str], dict[str, bytes]] = {}
        self._lookups: dict[tuple[str, str, str], int] = {}  # path lookups left before a kept map serves
        self._loads: dict[tuple[str, str, str], int] = {}  # what loading a kept map costs, in path lookups
        self._unkept: dict[tuple[str, str, str], list[int]] = {}  # folders with no kept map: [looked up, walk at]
        self._roots: dict[tuple[str, str], bytes] = {}
        self._readers: dict[str, TreeReader] = {}  # folders parsed once per repository

    def _reader(self, repo: pygit2.Repository) -> TreeReader:
        reader = self._readers.get(repo.path)
        if reader is None:
            reader = self._readers[repo.path] = TreeReader(PackFirst(repo))
        return reader

    def data(self, info: RefInfo, kind: str, digest: str, commit: pygit2.Oid) -> bytes:
        if self.budget is not None:
            self.budget -= 1
        try:
            if self.walk:  # each record is read once: its entry goes as it is used
                blob = self._map(info, kind).pop(digest[7:], None)
            else:
                mapped = self._kept_map(info, kind)
                if mapped is not None:
                    blob = mapped.pop(digest[7:], None)
                else:
                    entry = self._entry(info, kind, digest)
                    blob = None if entry is None else entry[1] if entry[0] == BLOB_MODE else entry[0]
            if blob is None:
                raise IntegrityError(f"{info.name}: commit {commit} lists {record_path(kind, digest)} but the tree lacks it")
            if len(blob) != 20:
                raise IntegrityError(f"{info.name}: {record_path(kind, digest)} is not a regular file")
            return read_blob(self._reader(info.repo).odb, blob)
        except Unreadable as exc:
            raise IntegrityError(f"{info.name}: {record_path(kind, digest)}: {exc}; run `gitstore verify`") from None

    def _root(self, info: RefInfo) -> bytes:
        repo = info.repo
        node = self._roots.get((repo.path, info.name))
        if node is None:
            target = self._tip(info)
            if target is None:
                raise KeyError(info.name)  # gone meanwhile: what a read of a missing ref says
            node = self._roots[(repo.path, info.name)] = self._commit(repo, target, info.name).tree_id.raw
        return node

    def _entry(self, info: RefInfo, kind: str, digest: str) -> tuple[bytes, bytes] | None:
        """(mode, raw id) at a record's path in the ref's tip tree, or None: a tree id names
        its whole content, so what was found under it before stands."""
        root, path = self._root(info), record_path(kind, digest)
        key = (info.repo.path, root, path)
        try:
            return self.looked_up[key]
        except KeyError:
            pass
        found = self._reader(info.repo).entry(root, path)
        if len(self.looked_up) >= LOOKUPS_KEPT:
            self.looked_up.clear()
        self.looked_up[key] = found
        return found

    def _kept_map(self, info: RefInfo, kind: str) -> dict[str, bytes] | None:
        """The kind folder's map, for a read of some streams, once it has looked up enough of
        the folder's records path by path (a few folders read each) that loading the map kept
        by an earlier read costs less than as many lookups again; else None. A folder no read
        has kept a map of is looked up path by path: walking it may cost far more."""
        key = (info.repo.path, info.name, kind)
        found = self._maps.get(key)
        if found is not None:
            return found
        left = self._lookups.get(key)
        if left is None:
            rows = None if self.kept is None else kept_rows(map_path(self.kept, info.repo.path, info.name, kind))
            left = self._loads[key] = sys.maxsize if rows is None else rows // ROWS_PER_LOOKUP
            if rows is None and self.kept is not None:
                self._unkept[key] = [0, WALK_FROM]
        if left <= 0:
            if self.budget is None or self.budget >= self._loads[key]:
                return self._map(info, kind)
            return None  # the records this read may still take cost less looked up than the map's load
        self._lookups[key] = left - 1
        unkept = self._unkept.get(key)
        if unkept is not None:
            unkept[0] += 1
            if unkept[0] >= unkept[1]:
                leaves = self._leaves(info, kind)
                if unkept[0] * WALK_SHARE >= leaves:
                    del self._unkept[key]
                    return self._map(info, kind)
                unkept[1] = -(-leaves // WALK_SHARE)
        return None

    def _leaves(self, info: RefInfo, kind: str) -> int:
        """About how many leaf folders (``<aa>/<bb>``) the kind folder holds: what its walk reads."""
        reader = self._reader(info.repo)
        top = reader.listing(self._root(info)).get(kind)
        if top is None or top[0] != TREE_MODE:
            return 0
        with uncached_trees():
            return sum(len(reader.raw(first, checked=False)) // _FAN_ROW
                       for mode, first in reader.listing(top[1]).values() if mode == TREE_MODE)

    def _map(self, info: RefInfo, kind: str) -> dict[str, bytes]:
        """Digest hex -> raw id of every regular file under the kind's folder of the ref's tip
        (the mode of any other entry, never 20 bytes long)."""
        key = (info.repo.path, info.name, kind)
        found = self._maps.get(key)
        if found is None:
            top = self._reader(info.repo).listing(self._root(info)).get(kind)
            if top is None or top[0] != TREE_MODE:
                found = {}
            else:
                kept = None if self.kept is None else map_path(self.kept, info.repo.path, info.name, kind)
                found = folder_map(self._reader(info.repo).odb, top[1], kept)
            self._maps[key] = found
        return found


_FAN_ROW = len(b"40000 aa\0") + 20  # a row of a fan-out folder: a folder named by two hex digits


def _merge_tree(
    reader: TreeReader,
    writer: ObjectWriter,
    base: bytes | None,
    changes: Mapping[str, bytes | None],
    stored: list[str] | None = None,
) -> bytes:
    """Write a tree equal to tree ``base`` (a raw id, or None for none) with ``changes``
    (path -> raw blob id, or None to remove). Folders are read and written in path order:
    the base's folders were written in that order, so its pack is read front to back, not
    hopping about it, and the new folders go into this append's pack in that order too. In
    that order a folder's paths come one after another, so each folder is walked to once (the
    paths sorted as strings, not as pairs: a bulk append's 100,000 sort in a third of the time)."""
    nested: dict[str, object] = {}
    last, node = None, nested
    for path in sorted(changes):
        folder, _, name = path.rpartition("/")
        if folder != last:
            last, node = folder, nested
            for part in folder.split("/") if folder else ():
                child = node.get(part)
                if child is None:
                    child = node[part] = {}
                node = child  # type: ignore[assignment]
        node[name] = changes[path]
    oid = _write_level(reader, writer, base, nested, stored)
    return oid if oid is not None else writer.add(TREE, b"")


def _write_level(reader: TreeReader, writer: ObjectWriter, base: bytes | None,
                 changes: dict[str, object], stored: list[str] | None = None, prefix: str = "") -> bytes | None:
    """One folder of a tree; None when removals leave it empty. ``stored``: see ``_tree``."""
    if base is None:
        return _write_new_level(writer, changes)
    if all(type(change) is bytes for change in changes.values()):  # blobs added to a leaf
        merged = add_records(reader.raw(base, checked=False), changes)  # type: ignore[arg-type]
        if merged is not None:
            return writer.add(TREE, merged)
    entries = dict(reader.listing(base))
    for name, change in changes.items():
        if type(change) is dict:
            found = entries.get(name)
            sub = found[1] if found is not None and found[0] == TREE_MODE else None
            sub_oid = _write_level(reader, writer, sub, change, stored, f"{prefix}{name}/")
            if sub_oid is None:
                entries.pop(name, None)
            else:
                entries[name] = (TREE_MODE, sub_oid)
        elif change is None:
            entries.pop(name, None)
        elif stored is not None and name in entries:
            stored.append(prefix + name)
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


def _snapshot_commit(repo: pygit2.Repository, tree: pygit2.Oid, message: str) -> pygit2.Oid:
    """A payload snapshot of ``tree``: a parentless commit, no ref moved."""
    signature = pygit2.Signature(SIGNATURE_NAME, SIGNATURE_EMAIL)
    return repo.create_commit(None, signature, signature, message + "\n", tree, [])


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
