"""Verifying a git store with nothing but the object database, streaming one commit at a time.

Every records ref must be a linear history of append commits whose message parses, whose clock
only grows, and whose diff against its parent adds exactly the records the message lists, each
a regular file at ``<kind>/<aa>/<bb>/<digest>.json`` holding canonical bytes that satisfy the
kind's contract and hash to that digest, and the redaction notes of the payloads it removes at
``notes/<aa>/<bb>/<payload-digest>.json``. Payload refs hold parentless snapshots whose blobs
hash to their names. Local refs belong in the local namespace's own repository: one found in
the repository itself is reported (a push can send it). Memory stays bounded by one commit's
records, not the store's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

import pygit2

from gitstore.records.canonical import sha256_digest
from gitstore.records.contracts import stream_of, verify_stored
from gitstore.records.inputs import MAX_RECORD_BYTES
from gitstore.errors import GitstoreError
from gitstore.providers._base import Problem, VerifyReport
from gitstore.providers._common import note_problem
from gitstore.providers._gitdirs import BROKEN_REF, broken_refs, odd_refs, ref_names
from gitstore.providers._message import Append, message_of, parse_message, parse_order
from gitstore.providers._packs import Objects, opened
from gitstore.providers._shallow import SHALLOW, cut_commits, is_shallow, unmended, unmended_tips
from gitstore.providers._tips import LOST, last_acknowledged, lost_refs, rewound, stray_local_refs
from gitstore.scope import admits
from gitstore.providers._objects import (
    BLOB_MODE, MAX_PAYLOAD_BYTES, TREE_MODE, Oversized, Source, TreeEntry, Unreadable, load_commit, parse_tree, read_blob,
    read_tree, read_tree_bytes, take_records,
)

PREFIX = "refs/memory/v1/"
_NONE: Mapping[str, list[str]] = MappingProxyType({})
MAX_CLOCK_JUMP = 2**32  # beyond the larger of the writer's last clock and those its Seen commits hold
# No team's appends come near this many (a clock counts appends seen). Past it a clock may only
# creep (LATE_CLOCK_JUMP a commit, room for the appends a writer made in its local namespace,
# which other clones do not hold): a forger who took clocks up to it cannot take an honest
# clone, which goes on from there one by one, near the 15 digits a message holds.
MAX_CLOCK = 2**40
LATE_CLOCK_JUMP = 2**20
MAX_DEPTH = 8  # folders within folders: memory's trees nest three deep (<kind>/<aa>/<bb>/)
_RECORD = re.compile(r"^([a-z]+)/([0-9a-f]{2})/([0-9a-f]{2})/([0-9a-f]{64})\.json\Z")
_PAYLOAD = re.compile(r"^(notes/)?([0-9a-f]{2})/([0-9a-f]{2})/([0-9a-f]{64})\.json\Z")
_REF = re.compile(
    r"^refs/memory/v1/(?:(records|payloads)/(local|shared)/|remotes/[^/]+/(records|payloads|parted|parted-payloads)/shared/)"
    r"([a-z0-9][a-z0-9-]{0,63})(/[0-9a-f]{40})?$"
)

PARTED_KINDS = {"parted": "records", "parted-payloads": "payloads"}  # a parted history's refs, and what each holds


def _ref_parts(name: str) -> tuple[str, str, str] | None:
    """(kind, namespace, writer) of a memory ref's name; None for a name no memory ref has. A
    fetched writer's parted history (``_names.parted_ref``: a records history the writer's ref
    parted from, named by its tip) is a fetched records ref like the writer's own, and the
    snapshot kept for it (``_names.snapshot_of``) a fetched payload snapshot."""
    match = _REF.match(name)
    if not match or (match.group(3) in PARTED_KINDS) != (match.group(5) is not None):
        return None
    kind = match.group(1) or match.group(3)
    return PARTED_KINDS.get(kind, kind), match.group(2) or "shared", match.group(4)


# libgit2 maps packs in windows of up to 1 GiB, keeps up to 8 GiB of them mapped and caches up
# to 256 MiB of parsed objects: reading every object of a big store left all its packs resident
# (peak RSS 2.5 GB verifying 1,000,000 records). Verify reads each pack about in order (bulk
# packs are written in path order), so a few small windows serve it as fast.
VERIFY_WINDOW = 32 << 20
VERIFY_MAPPED = 128 << 20
VERIFY_CACHE = 32 << 20


@contextmanager
def bounded_memory() -> Iterator[None]:
    """Smaller libgit2 pack windows and object cache for a while (they are process-wide)."""
    settings = pygit2.settings
    window, mapped, cache = settings.mwindow_size, settings.mwindow_mapped_limit, settings.cached_memory[1]
    settings.mwindow_size = min(window, VERIFY_WINDOW)
    settings.mwindow_mapped_limit = min(mapped, VERIFY_MAPPED)
    settings.cache_max_size(min(cache, VERIFY_CACHE))
    try:
        yield
    finally:
        settings.mwindow_size = window
        settings.mwindow_mapped_limit = mapped
        settings.cache_max_size(cache)


MISPLACED = ("local records in the repository's own refs, where `git push --mirror` sends them; "
             "`gitstore init` moves them to .git/gitstore/local")
ODD_NAME = ("its name is not UTF-8 (git takes any bytes): no read sees it, while git and gc keep all it points to; "
            "sync and gc drop such a ref where a fetch put it, elsewhere delete it with `git update-ref -d`")
STRAY = ("another clone's personal memory in the repository's own refs (someone pushed it, a plain fetch brought "
         "it), never read here: remove it with `git update-ref -d {}`")


def verify_repository(repo: pygit2.Repository, state: Path, *, local: bool,
                      shared: pygit2.Repository | None = None) -> VerifyReport:
    """Check every memory ref of a repository (``local``: the local namespace's own one, whose
    appends name the tips of ``shared``, the repository's, as seen); report every problem found.
    ``state`` is the provider's folder with the tips logs."""
    with bounded_memory(), opened(repo) as objects:
        return _verify_repository(repo, objects, state, local, shared)


def _verify_repository(repo: pygit2.Repository, objects: Objects, state: Path, local: bool,
                       shared: pygit2.Repository | None) -> VerifyReport:

    report = VerifyReport()
    broken = broken_refs(repo, PREFIX)
    report.refs += len(broken)
    report.problems.extend(Problem(name, BROKEN_REF) for name in broken)
    odd = odd_refs(repo, PREFIX)
    report.refs += len(odd)
    report.problems.extend(Problem(name, ODD_NAME) for name in odd)
    stray: set[str] = set()  # another clone's personal memory in the repository's own refs
    if not local:  # every ref this clone logged, wherever it should be
        report.problems.extend(Problem(ref, LOST) for ref in lost_refs(repo, _local_of(repo), state)
                               if ref not in broken)
        stray = set(stray_local_refs(repo))
    for name in ref_names(repo, PREFIX):
        report.refs += 1
        parts = _ref_parts(name)
        if parts is None or (local and parts[1] != "local"):
            report.problems.append(Problem(name, "unexpected ref under refs/memory/v1/"))
            continue
        kind, namespace, writer = parts
        if name in stray:  # never read: nothing of it to check
            report.problems.append(Problem(name, STRAY.format(name)))
            continue
        if namespace == "local" and not local:
            report.problems.append(Problem(name, MISPLACED))
        acked = last_acknowledged(state, name)  # before the ref: what it says was acknowledged by then
        try:
            target = repo.references[name].target
        except (KeyError, pygit2.GitError) as exc:
            report.problems.append(Problem(name, f"cannot resolve: {exc}"))
            continue
        if kind == "records":
            _verify_records(repo, objects, state, name, writer, namespace, target, report,  # type: ignore[arg-type]
                            acked=acked, shared=shared)
        else:
            _verify_snapshot(repo, objects, name, target, report)  # type: ignore[arg-type]
    return report


def _verify_snapshot(repo: pygit2.Repository, odb: Objects, ref: str, tip: pygit2.Oid, report: VerifyReport) -> None:
    """``_verify_payloads`` of a snapshot ref, again at the ref's new tip while it moved since
    ``tip`` was read and what was read of it failed: each removal writes the snapshot anew
    (a parentless commit) and ``gitstore gc`` erases the one before, so a verify running beside
    them found the snapshot it had listed gone and named it damage."""
    for _ in range(3):
        found = VerifyReport()
        _verify_payloads(repo, odb, ref, tip, found)
        now = _tip_now(repo, ref)
        if not found.problems or now is None or now == tip:
            break
        tip = now
    report.problems.extend(found.problems)
    report.notices.extend(found.notices)


def _tip_now(repo: pygit2.Repository, ref: str) -> pygit2.Oid | None:
    try:
        target = repo.references[ref].target
    except (KeyError, pygit2.GitError):
        return None
    return target if isinstance(target, pygit2.Oid) else None


def verify_fetched(repo: pygit2.Repository, ref: str, tip: pygit2.Oid,
                   since: pygit2.Oid | None = None) -> list[Problem]:
    """Every problem of a fetched records ref's history (only the commits after ``since``, an
    ancestor of ``tip`` verified before, when given): what admitting it takes."""
    return verify_arrived(repo, ref, tip, since).problems


def verify_arrived(repo: pygit2.Repository, ref: str, tip: pygit2.Oid, since: pygit2.Oid | None = None,
                   scope: str | None = None) -> VerifyReport:
    """``verify_fetched`` with the records counted; with ``scope``, a record of another scope
    is a problem too (what ``gitstore sync`` admits is this repository's memory only)."""
    return arrived(repo, ref, tip, since, scope).report


class Arrived(NamedTuple):
    """What verifying a fetched records ref's new commits found: every problem (``report``), and
    the verified prefix: ``verified``, the newest commit after ``since`` that passes with every
    commit before it (None: none does, or the history is no readable linear chain), and the
    records those commits add (``records``). The history is linear, and each commit is checked
    against those before it only, so the commits before the first that fails are just what a
    history ending there would be: a withdrawal or retraction a teammate signed is not lost to
    damage someone with push access stacked on it."""

    report: VerifyReport
    verified: pygit2.Oid | None = None
    records: int = 0


def arrived(repo: pygit2.Repository, ref: str, tip: pygit2.Oid, since: pygit2.Oid | None = None,
            scope: str | None = None) -> Arrived:
    """``verify_arrived``, with the prefix of what arrived that verifies (``Arrived``)."""
    parts = _ref_parts(ref)
    report = VerifyReport()
    if parts is None or parts[0] != "records" or not ref.startswith(PREFIX + "remotes/"):
        report.problems.append(Problem(ref, "not a fetched records ref"))
        return Arrived(report)
    with bounded_memory(), opened(repo) as objects:
        verified, records = _verify_records(repo, objects, Path(), ref, parts[2], "shared", tip, report, since,
                                            scope=scope)
    return Arrived(report, verified, records)


def _local_of(repo: pygit2.Repository) -> pygit2.Repository | None:
    from gitstore.providers._gitdirs import open_local

    return open_local(repo, create=False)


def _chain(repo: pygit2.Repository, ref: str, tip: pygit2.Oid, report: VerifyReport,
           since: pygit2.Oid | None = None) -> list[pygit2.Oid]:
    """The commits from the root (or from after ``since``) to ``tip``, oldest first; empty,
    with the problem reported, when the history is not a readable linear chain of commits, or
    when a shallow fetch cut it short (git reads the commit it cut at as a root)."""
    chain = []
    cut = set(cut_commits(repo)) if is_shallow(repo) else set()
    oid: pygit2.Oid | None = tip
    while oid is not None and oid != since:
        try:
            commit = load_commit(repo, oid)
        except KeyError:
            report.problems.append(Problem(ref, f"commit {oid} is missing: history truncated"))
            return []
        except Oversized as exc:
            report.problems.append(Problem(ref, str(exc)))
            return []
        except (pygit2.GitError, ValueError) as exc:
            report.problems.append(Problem(ref, f"object {oid} cannot be read ({exc})"))
            return []
        if not isinstance(commit, pygit2.Commit):
            report.problems.append(Problem(ref, f"{oid} is a {commit.type_str}, not a commit"))
            return []
        chain.append(oid)
        parents = commit.parent_ids
        if len(parents) > 1:
            report.problems.append(Problem(ref, f"commit {oid} is a merge; writer histories are linear"))
            return []
        if not parents and str(oid) in cut:  # git reads it as the first only because a fetch cut what is before
            why = unmended(ref) if unmended_tips(repo).get(ref) == str(tip) else SHALLOW  # sync tried, or may yet
            report.problems.append(Problem(ref, f"commit {str(oid)[:12]}: {why}"))
            return []
        oid = parents[0] if parents else None
    chain.reverse()
    return chain


def _verify_records(repo: pygit2.Repository, objects: Objects, state: Path, ref: str, writer: str, namespace: str,
                    tip: pygit2.Oid, report: VerifyReport, since: pygit2.Oid | None = None,
                    acked: pygit2.Oid | None = None, scope: str | None = None,
                    shared: pygit2.Repository | None = None) -> tuple[pygit2.Oid | None, int]:
    """Check a records ref's history, from its root, or only the commits after ``since`` (an
    ancestor of ``tip`` verified before); the commits its Seen headers name are looked for in
    ``shared`` too. Returns the newest commit checked that passes with every one before it
    (None: none), and the records up to it (``Arrived``)."""

    if not ref.startswith(PREFIX + "remotes/"):
        problem = rewound(repo, state, ref, tip, acked)
        if problem:
            report.problems.append(Problem(ref, problem))

    previous_clock = 0
    parent_tree: bytes | None = None
    clean: set[bytes] = set()  # folders found to hold record files only (see _added_as_listed)
    holders = (repo,) if shared is None else (repo, shared)
    held = HeldClocks(holders)
    if since is not None:
        base = repo[since]
        previous_clock, parent_tree = parse_message(message_of(base)).clock, base.tree_id.raw
    verified, records, passing = None, 0, True
    for oid in _chain(repo, ref, tip, report, since):
        commit = repo[oid]
        where = f"{ref} commit {str(oid)[:12]}"
        found = len(report.problems)
        try:
            header = parse_message(message_of(commit))
        except (ValueError, pygit2.GitError) as exc:
            report.problems.append(Problem(where, str(exc)))
            return verified, records
        if header.writer != writer or header.namespace != namespace:
            report.problems.append(Problem(where, f"names writer {header.writer!r} in {header.namespace!r}"))
        problems = _seen_problems(holders, header)
        if not follows(header.clock, previous_clock, lambda: held.seen(header.seen)):
            report.problems.append(Problem(where, f"clock {header.clock} does not follow {previous_clock}" if
                                           header.clock <= MAX_CLOCK else f"clock {header.clock} jumps past "
                                           f"{MAX_CLOCK}, more appends than any team makes: clones adopting it could "
                                           "not write their own"))
        previous_clock = header.clock
        for problem in problems:
            report.problems.append(Problem(where, problem))
        tree = commit.tree_id.raw
        _verify_diff(objects, where, parent_tree, tree, header.lines, header.removes, report, scope, clean)
        parent_tree = tree
        if passing and len(report.problems) == found:
            verified, records = oid, report.records
        else:
            passing = False  # the prefix ends before the first commit that fails; the rest is still checked
    return verified, records


def follows(clock: int, previous: int, seen: Callable[[], int | None]) -> bool:
    """Whether an append's ``clock`` may follow its writer's ``previous`` one: above it, by at
    most a jump past the larger of it and the clocks the append had seen (``seen``, asked only
    when the jump needs it: following those clocks is work). ``seen`` is None when the append
    names a commit not held here: what another clone held cannot be checked, so it is not held
    against the append (a fork read there and gone from the remote since, or a writer's ref
    deleted, left every clone that never held it refusing the history of each clone that had)."""
    jump = MAX_CLOCK_JUMP if clock <= MAX_CLOCK else LATE_CLOCK_JUMP
    if clock <= previous:
        return False
    if clock <= previous + jump:
        return True
    held = seen()
    return held is None or clock <= max(previous, held) + jump


def furthest(previous: int) -> int:
    """The largest clock that follows a writer's ``previous`` one by ``follows`` with nothing
    seen: how far an append may go on its writer's own history alone, which every clone
    holding that history accepts, whatever else it holds."""
    return max(min(previous + MAX_CLOCK_JUMP, MAX_CLOCK), previous + LATE_CLOCK_JUMP)


def _seen_problems(holders: tuple[pygit2.Repository, ...], header: object) -> list[str]:
    """What is wrong with a commit's ``Seen`` headers, as far as this repository holds the
    commits they name: each names its writer, and came before (a smaller clock, else the clock
    is a lie)."""

    problems = []
    for writer, named in header.seen:  # type: ignore[attr-defined]
        found = _named(holders, named)
        if found is None:
            continue  # not held here (or not an append): nothing to compare
        if found[0] != writer:
            problems.append(f"Seen names {named} as writer {writer}'s, but it is {found[0]}'s")
        elif found[1] >= header.clock:  # type: ignore[attr-defined]
            problems.append(f"clock {header.clock} is not above the clock {found[1]} of {named}, "  # type: ignore[attr-defined]
                            "which it says it had seen")
    return problems


# How many Seen commits deep a clock is followed. An honest jump past its writer's last clock
# follows one other writer's (a forger's) history, whose own jumps need none: a chain deeper
# than this is taken for what it is, a clock no history holds.
MAX_SEEN_DEPTH = 16


class HeldClocks:
    """The clocks of the appends Seen headers name, each counted only when the named append's
    own history holds it: every clock back to its root follows the one before by the rule its
    own appends are held to. A clock is one more than the largest its writer had seen, so the
    jump an append may make is counted from the clocks it saw; taken at their word, one commit
    anywhere in the repository (refused, or on a branch a plain fetch brought) carried any
    clock past the limit, and honest clones took their clocks from it. A named commit not
    held here cannot be checked: verify admits the jump (``follows``), and a writer takes no
    clock from it (``strict``)."""

    def __init__(self, holders: tuple[pygit2.Repository, ...], *, strict: bool = False) -> None:
        """``strict``: a jump leaning on a commit not held here is not held (what a writer may
        take its clock from); otherwise it cannot be checked here and is admitted (what verify
        admits, see ``follows``)."""
        self.holders = holders
        self.strict = strict
        self._held: dict[pygit2.Oid, tuple[str, int] | None] = {}  # (writer, clock), None: no history holds it
        self._cut = 0  # how often a chain deeper than MAX_SEEN_DEPTH was met (what was found then is not kept)

    def seen(self, seen: Iterable[tuple[str, str]], depth: int = 0) -> int | None:
        """The largest clock of the appends named that their histories hold (0: none); None
        when one of them is not held here (not an append of these repositories), unless
        ``strict``: the clock of an append naming it cannot be checked here."""
        if depth >= MAX_SEEN_DEPTH:
            self._cut += 1
            return 0
        best, unheld = 0, False
        for writer, named in seen:
            if _named(self.holders, named) is None:
                unheld = True
                continue
            found = self._of(pygit2.Oid(hex=named), depth)
            if found is not None and found[0] == writer:
                best = max(best, found[1])
        return None if unheld and not self.strict else best

    def held(self, oid: pygit2.Oid) -> int | None:
        """The clock of the append at ``oid`` when its history holds it (None: it does not)."""
        found = self._of(oid, 0)
        return None if found is None else found[1]

    def _of(self, oid: pygit2.Oid, depth: int) -> tuple[str, int] | None:
        """(writer, clock) of the append at ``oid`` when its history holds that clock."""
        if oid in self._held:
            return self._held[oid]
        chain: list[tuple[pygit2.Oid, Append | None]] = []  # newest first, back to a commit judged before or the root
        at: pygit2.Oid | None = oid
        while at is not None and at not in self._held:
            found = _append_at(self.holders, at)
            chain.append((at, found[0] if found else None))
            at = found[1] if found else None
        below = None if chain[-1][1] is None else self._held[at] if at is not None else ("", 0)
        cut = self._cut
        for at, append in reversed(chain):
            sound = below is not None and append is not None and follows(
                append.clock, below[1], lambda: self.seen(append.seen, depth + 1))  # noqa: B023 (called at once)
            below = (append.writer, append.clock) if sound else None  # type: ignore[union-attr]
            if self._cut == cut:
                self._held[at] = below
        return below


def _append_at(holders: tuple[pygit2.Repository, ...], oid: pygit2.Oid) -> tuple[Append, pygit2.Oid | None] | None:
    """The header of the append at ``oid`` and its parent (None: not held here, or no append of
    a linear history)."""
    repo = _holder(holders, oid)
    if repo is None:
        return None
    try:
        commit = load_commit(repo, oid)
        if not isinstance(commit, pygit2.Commit) or len(commit.parent_ids) > 1:
            return None
        return parse_order(message_of(commit)), commit.parent_ids[0] if commit.parent_ids else None
    except (KeyError, ValueError, pygit2.GitError, Oversized):
        return None


# (writer, clock) of the appends that Seen headers name, by commit id. Each append names the
# tips it saw, so a team's tips are named again and again (a thousand writers: half a million
# times), and parsing each named message every time made checking them grow with the cube of
# the writers. A commit's bytes are its id's, so what one says holds in any repository that
# holds it.
_NAMED: dict[str, tuple[str, int]] = {}
_NAMED_LIMIT = 1 << 15


def _holder(holders: tuple[pygit2.Repository, ...], oid: pygit2.Oid | str) -> pygit2.Repository | None:
    """The first of ``holders`` that holds the object ``oid`` (a full id). Asked of each object
    database's index: ``oid in repo`` reads and parses the object to answer, and a team's tips
    are asked after once for every Seen header naming them (400 writers: 80,000 times, 2 s)."""
    return next((repo for repo in holders if repo.odb.exists(oid)), None)


def _named(holders: tuple[pygit2.Repository, ...], named: str) -> tuple[str, int] | None:
    """The writer and clock of the append ``named``, or None when none of ``holders`` holds it
    or it is no append."""
    repo = _holder(holders, named)
    if repo is None:
        return None  # what another repository said counts only where it is held
    found = _NAMED.get(named)
    if found is not None:
        return found
    try:
        append = parse_order(message_of(load_commit(repo, pygit2.Oid(hex=named))))  # type: ignore[arg-type]
    except (KeyError, ValueError, AttributeError, pygit2.GitError, Oversized):
        return None
    if len(_NAMED) >= _NAMED_LIMIT:
        _NAMED.clear()
    found = _NAMED[named] = (append.writer, append.clock)
    return found


def _verify_diff(odb: Objects, where: str, parent: bytes | None, tree: bytes,
                 lines: tuple[tuple[str, str, str], ...], removes: tuple[str, ...], report: VerifyReport,
                 scope: str | None = None, clean: set[bytes] | None = None) -> None:
    """Check one commit's diff against its parent: the trees first, then the records it adds,
    read in the order its message lists them (the order an append writes them, so a bulk
    append's pack is read front to back, not hopping about it in path order)."""
    listed = {f"{kind}/{d[7:9]}/{d[9:11]}/{d[7:]}.json": (d, kind, stream) for d, kind, stream in lines}
    notes = {f"notes/{d[7:9]}/{d[9:11]}/{d[7:]}.json": d for d in removes}
    added: dict[str, bytes] = {}  # path -> raw blob id of each listed record the commit adds
    try:
        for status, path, mode, oid in changes(odb, parent, tree, listed=by_folder([*listed, *notes]), clean=clean):
            if status != "A":
                report.problems.append(Problem(where, f"{path} was {status}: records are only ever added"))
            elif path.startswith("notes/"):
                _verify_note(odb, where, path, mode, oid, notes, report)
                added[path] = oid
            elif _misplaced(path, mode, listed, where, report) is None:
                added[path] = oid
    except Unreadable as exc:
        report.problems.append(Problem(where, str(exc)))
        return
    for path, (digest, kind, stream) in listed.items():
        oid = added.get(path)
        if oid is None:
            continue
        report.records += 1
        try:
            record = verify_stored(read_blob(odb, oid, MAX_RECORD_BYTES), digest, kind)
        except Oversized as exc:
            report.problems.append(Problem(where, f"record {digest} is {exc.size} bytes, over the "
                                                  f"{MAX_RECORD_BYTES >> 20} MiB a record may take"))
            continue
        except Unreadable as exc:
            report.problems.append(Problem(where, str(exc)))
            continue
        except GitstoreError as exc:
            report.problems.append(Problem(where, f"record {digest}: {exc}"))
            continue
        if scope is not None and not admits(scope, record.get("scope")):
            report.problems.append(Problem(where, f"record {digest} is of scope {record.get('scope')!r}, "
                                                  f"not this repository's {scope!r}"))
        if stream != stream_of(record, kind):  # reads find a stream's records (an episode's events) by this line
            report.problems.append(Problem(where, f"record {digest} is listed under stream {stream!r}, not its "
                                                  f"own {stream_of(record, kind)!r}"))
    for path in sorted((set(listed) | set(notes)) - added.keys()):
        if path in notes and _holds_blob(odb, parent, path):
            continue  # a removal made again: its note's bytes as they were (the tree there is unchanged)
        report.problems.append(Problem(where, f"lists {path} but does not add it"))


def _holds_blob(odb: Objects, tree: bytes | None, path: str) -> bool:
    """Whether tree ``tree`` holds a regular file at ``path`` (a note an earlier append added:
    a later one's ``Removes`` may list it again, re-affirming it, with the bytes unchanged,
    since the path's entry is the parent's). A tree that cannot be read holds nothing."""
    *folders, name = path.split("/")
    try:
        for part in folders:
            tree = None if tree is None else next(
                (oid for mode, entry, oid in read_tree(odb, tree) if entry == part.encode() and mode == TREE_MODE), None)
        return tree is not None and any(entry == name.encode() and mode == BLOB_MODE
                                        for mode, entry, _ in read_tree(odb, tree))
    except Unreadable:
        return False


def _misplaced(path: str, mode: bytes, listed: dict[str, tuple[str, str, str]], where: str,
               report: VerifyReport) -> str | None:
    """What is wrong with a file a commit adds outside ``notes/`` (reported), or None."""
    match = _RECORD.match(path)
    if not match or match.group(2) + match.group(3) != match.group(4)[:4]:
        problem = f"{path} is at the wrong path"
    elif mode != BLOB_MODE:
        problem = f"{path} is not a regular file (mode {mode.decode()})"
    elif path not in listed:
        problem = f"{path} is in the tree but not in the commit's record list"
    else:
        return None
    report.problems.append(Problem(where, problem))
    return problem


def _verify_note(odb: Source, where: str, path: str, mode: bytes, oid: bytes, notes: dict[str, str],
                 report: VerifyReport) -> None:
    """One redaction note a records commit adds: listed in its message, a canonical note."""
    if path not in notes:
        report.problems.append(Problem(where, f"{path} is in the tree but the commit removes no such payload"))
    elif mode != BLOB_MODE:
        report.problems.append(Problem(where, f"{path} is not a regular file (mode {mode.decode()})"))
    else:
        problem = note_problem(read_blob(odb, oid, MAX_RECORD_BYTES))
        if problem:
            report.problems.append(Problem(where, f"redaction note {path}: {problem}"))


def _verify_payloads(repo: pygit2.Repository, odb: Objects, ref: str, tip: pygit2.Oid, report: VerifyReport) -> None:
    try:
        commit = load_commit(repo, tip)
    except KeyError:
        report.problems.append(Problem(ref, f"commit {tip} is missing"))
        return
    except Oversized as exc:
        report.problems.append(Problem(ref, str(exc)))
        return
    except (pygit2.GitError, ValueError) as exc:
        report.problems.append(Problem(ref, f"object {tip} cannot be read ({exc})"))
        return
    if not isinstance(commit, pygit2.Commit) or commit.parent_ids:
        report.problems.append(Problem(ref, "payload snapshots are parentless commits"))
        return
    try:
        for _, path, mode, oid in changes(odb, None, commit.tree_id.raw):
            match = _PAYLOAD.match(path)
            if not match or match.group(2) + match.group(3) != match.group(4)[:4]:
                report.problems.append(Problem(ref, f"{path} is at the wrong path"))
            elif mode != BLOB_MODE:
                report.problems.append(Problem(ref, f"{path} is not a regular file"))
            elif match.group(1) and ref.startswith(PREFIX + "remotes/"):
                report.notices.append(Problem(ref, f"redaction note {path} in another clone's payload snapshot: "
                                                   "never honoured (a removal travels in an append, with its "
                                                   "audit entry)"))
            elif match.group(1):
                problem = note_problem(read_blob(odb, oid, MAX_RECORD_BYTES))
                if problem:
                    report.problems.append(Problem(ref, f"redaction note {path}: {problem}"))
            elif sha256_digest(read_blob(odb, oid, MAX_PAYLOAD_BYTES)) != "sha256:" + match.group(4):
                report.problems.append(Problem(ref, f"payload {path} does not match its digest"))
    except Unreadable as exc:
        report.problems.append(Problem(ref, str(exc)))


# -- comparing trees ---------------------------------------------------------------------------
#
# libgit2's tree-to-tree diff walks every entry of both trees, even under folders whose ids are
# equal: verifying a history of single appends on a 100,000-record store took 0.1 s a commit.
# This walk reads the raw tree objects and descends only where the ids differ.

def by_folder(paths: Iterable[str]) -> dict[str, list[str]]:
    """Paths grouped by folder: ``a/b/`` -> the names in it, as ``changes`` takes them."""
    found: dict[str, list[str]] = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        found.setdefault(folder + "/" if folder else "", []).append(name)
    return found


def changes(odb: Source, old: bytes | None, new: bytes | None, prefix: str = "",
            listed: Mapping[str, list[str]] = _NONE, clean: set[bytes] | None = None,
            met: tuple[dict[bytes, str], dict[bytes, str]] | None = None) -> Iterator[tuple[str, str, bytes, bytes]]:
    """(status, path, mode, raw id) of each file that differs from tree ``old`` to tree ``new``
    (None: an empty tree), as libgit2's diff names them: ``A`` added, ``M`` changed, ``D``
    deleted (a file replaced by a folder, or the reverse, is deleted and added). Folders with
    equal ids are skipped, not walked; unchanged entries are set aside as whole tuples.

    ``listed``: the paths the commit says it adds, by folder (``by_folder``). A folder of
    record files whose new version, without the listed files, is byte for byte the old version
    (the same tree id) gained exactly those: the old version is not read (an append to a big
    store changes nearly every folder, and the old versions are the store). A folder naming
    an entry twice raises ``Unreadable`` (git's fsck refuses such trees too). ``clean``: see
    ``_added_as_listed`` (kept by the caller from one commit to the next).

    A folder met twice in one walk, on either side, raises ``Unreadable``: no memory tree
    holds one folder in two places (its files are named by their digests, under folders named
    for them), and a pushed tree whose every entry names the same folder, a few levels deep,
    would make a walk of a few kilobytes visit billions of paths. ``met``: the folders met so
    far, new side and old side, folder id -> where (kept by the walk itself)."""
    if met is None:
        if old is not None and old == new:
            return
        met = ({}, {})
    if prefix.count("/") >= MAX_DEPTH:  # a pushed tree a thousand folders deep is not walked
        deep = "/".join(prefix.split("/")[:MAX_DEPTH])
        raise Unreadable(f"{deep}/ holds folders nested deeper than the {MAX_DEPTH} levels a memory tree may use")
    _meet(met[0], new, prefix)
    _meet(met[1], old, prefix)
    data = read_tree_bytes(odb, new) if new is not None else None
    names = listed.get(prefix) if data is not None and old is not None else None
    if names:
        added = _added_as_listed(data, new, old, prefix, names, clean)  # type: ignore[arg-type]
        if added is not None:
            yield from added
            return
    after = parse_tree(data, new) if data is not None and new is not None else []
    if len({name for _, name, _ in after}) != len(after):
        raise Unreadable(f"tree {new.hex()} names an entry twice")  # type: ignore[union-attr]
    if not _in_git_order(after):
        raise Unreadable(f"tree {new.hex()} is not sorted as git sorts a tree")  # type: ignore[union-attr]
    entries, gone = after, {}
    if old is not None:
        listing = read_tree(odb, old)
        if len(listing) == len(after) and [e[1] for e in listing] == [e[1] for e in after]:
            # the same names in the same places (an append's folders above the leaves): what
            # differs is in place, with no set of either side (the names are distinct: checked above)
            pairs = [(e, was) for e, was in zip(after, listing) if e != was]
            entries = [e for e, _ in pairs]
            gone = {was[1]: (was[0], was[2]) for _, was in pairs}
        else:
            before = set(listing)
            entries = [e for e in after if e not in before]
            gone = {name: (mode, oid) for mode, name, oid in before.difference(after)}
    for mode, name, oid in entries:
        was = gone.pop(name, None)
        path = prefix + name.decode("utf-8", "surrogateescape")
        if was is not None and (was[0] == TREE_MODE) != (mode == TREE_MODE):
            yield from _deleted(odb, path, *was, met)
            was = None
        if mode == TREE_MODE:
            yield from changes(odb, was[1] if was is not None else None, oid, path + "/", listed, clean, met)
        else:
            yield ("A" if was is None else "M"), path, mode, oid
    for name in sorted(gone):
        yield from _deleted(odb, prefix + name.decode("utf-8", "surrogateescape"), *gone[name], met)


def _in_git_order(entries: list[TreeEntry]) -> bool:
    """Whether a tree's entries are in git's order (a folder compared as ``name/``): git finds
    an entry by bisecting its tree, so plain git would not find some entries of a tree in
    another order, which gitstore would read. Most folders a walk reads hold one entry."""
    if len(entries) < 2:
        return True
    keys = [name + b"/" if mode == TREE_MODE else name for mode, name, _ in entries]
    return keys == sorted(keys)


def _added_as_listed(data: bytes, new: bytes, old: bytes, prefix: str, names: list[str],
                     clean: set[bytes] | None) -> list[tuple[str, str, bytes, bytes]] | None:
    """The files a folder of record files (tree ``new``, ``data`` its bytes) gained from tree ``old``,
    when they are exactly listed ones (``names``, those listed in this folder): the folder's
    bytes without their rows hash to ``old`` (``take_records``). None when that does not hold
    (the caller reads ``old`` and names what differs).

    ``clean``: ids of folders found to hold well-formed record files only. When ``old`` is
    one, the rows left are its rows, so only the rows added are checked (not every row of
    every version of every folder); the new folder takes its place."""
    known = clean is not None and old in clean
    split = take_records(data, names, rest_checked=known)
    if split is None or split[0] != old:
        return None
    taken = split[1]
    if clean is not None:
        clean.discard(old)
        clean.add(new)
    return [("A", prefix + name, BLOB_MODE, oid) for name, oid in taken]


def _deleted(odb: Source, path: str, mode: bytes, oid: bytes,
             met: tuple[dict[bytes, str], dict[bytes, str]]) -> Iterator[tuple[str, str, bytes, bytes]]:
    if mode != TREE_MODE:
        yield "D", path, mode, oid
    else:
        yield from changes(odb, oid, None, path + "/", met=met)


def _meet(met: dict[bytes, str], tree: bytes | None, prefix: str) -> None:
    """Note that a walk reads folder ``tree`` at ``prefix``; ``Unreadable`` when it read it before."""
    if tree is None:
        return
    where = met.get(tree)
    if where is None:
        met[tree] = prefix
    else:
        raise Unreadable(f"folder {tree.hex()} is both {where or '/'} and {prefix or '/'}: "
                         "a memory tree never holds one folder in two places")
