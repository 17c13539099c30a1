"""Appends a clone made under a former writer id that can never reach the remote as that id,
carried over to the clone's writer id so that they reach the team.

A clone given a new writer id (``gitstore init --new-writer``) keeps what it stored as the old
one, and sync pushes that history fast-forward where the remote's copy is behind. Where the
remote's copy holds appends this clone never made (another clone writing as that id, or
someone with push access), the two histories have parted: this clone's appends after the last
one both hold are **stranded**, as forcing them out would erase the others'. Which appends a
push could not send is told by every copy of the remote's history seen here, the one refused
and held in quarantine included: that is what the remote holds now, and an append admitted
here before the remote's copy parted that this copy lacks is stranded too.

Only the ids a work tree itself left with ``init --new-writer`` are carried (the caller names
them, ``gitstore.config.former_writers``), and never one another work tree of the repository
writes as now: carrying it would hand that tree's live decisions to another writer, unasked.

They are carried over, one copy per append, onto this clone's writer id while it has no
appends of its own yet. Each copy stores the same records and redaction notes and keeps the
original's clock, policy revision and time. It has seen what its original had seen: the
original's ``Seen`` headers, and its parent, the previous append of the old id, as the team
holds it: that parent's own copy (the copy before it), the parent itself where a remote holds
it, or the copy of it one of this clone's ids holds. Never the point where the remote's history
parted, which anyone with push access sets, and which may lie before decisions the original had
seen: a copy naming it would undo them on every clone. The payloads of its events go into this
writer's snapshot. A signed original is signed again with the same key, which only this clone
holds: a decision's authority is its signature under the policy. Its signature is checked
against the key it names first: anyone with push access can name that key in a commit of theirs
under the id, and one the key did not make is never carried, only named. Where git's configuration
names no key, or another one, nothing is carried and the appends are named (all or nothing, so
that the writer id stays empty and the next sync can still carry them). An append whose records
one of this clone's ids holds on a remote, or holds here where its next push sends them (a copy
carried before, onto an id this clone left since), is not carried again.
"""

from __future__ import annotations

import fcntl
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from contextlib import AbstractContextManager
from typing import NamedTuple, Protocol

import pygit2

from gitstore import _jsontext
from gitstore._gitconfig import value as git_setting
from gitstore.errors import IntegrityError, Refused
from gitstore.providers._base import Namespace
from gitstore.providers._gitdirs import SCRATCH, ref_names, state_dir
from gitstore.providers._incoming import INCOMING, ref_tip
from gitstore.providers._message import (SIGNATURE_EMAIL, SIGNATURE_NAME, Header, format_message, message_of,
                                         parse_message)
from gitstore.providers._names import (PAYLOAD_DIGEST, PREFIX, QUARANTINE, note_path, payload_path, payloads_ref,
                                      record_path, records_ref)
from gitstore.providers._objects import Oversized, ObjectWriter, load_commit
from gitstore.providers._tips import made_here, note_made, tips_log
from gitstore.scope import admits



class Writing(Protocol):
    """What carrying needs of the git provider (``GitProvider``): its repository, writer id and
    state folder, its locks, and the steps an append takes (journal, trees, snapshot), so the
    copies are written as its own appends are."""

    repo: pygit2.Repository
    writer: str
    state: Path

    def _lock(self, name: str, mode: int) -> AbstractContextManager[None]: ...

    def _writer_lock(self, namespace: str) -> AbstractContextManager[None]: ...

    def _journal(self, roots: list[pygit2.Oid]) -> Path: ...

    def _tree(self, repo: pygit2.Repository, base: pygit2.Tree | None, changes: Mapping[str, bytes | None],
              writer: ObjectWriter) -> pygit2.Oid: ...

    def _set_snapshot(self, repo: pygit2.Repository, ref: str, tree: pygit2.Oid, message: str) -> pygit2.Oid: ...

    def _notes_governing(self, namespace: Namespace) -> set[str]: ...

SHARED = f"{PREFIX}records/shared/"


class _Line(NamedTuple):
    digest: str
    kind: str
    stream: str


@dataclass(frozen=True)
class Stranded:
    """A former writer id's appends that the remote's history of it parted from."""

    writer: str
    appends: tuple[pygit2.Oid, ...]  # this clone's appends the remote lacks, oldest first
    held: _Held  # where the team holds what they do not carry (their parents among it)
    foreign: frozenset[pygit2.Oid] = frozenset()  # appends of another scope: never carried, never named seen


@dataclass
class Carried:
    """What carrying did: a line per former id carried over, and per former id whose stranded
    appends stay, the line that says why."""

    lines: list[str] = field(default_factory=list)
    left: dict[str, str] = field(default_factory=dict)


def stranded(repo: pygit2.Repository, writer: str, scope: str | None = None) -> Stranded | None:
    """Former id ``writer``'s appends in this clone's own records ref that a remote's copy of
    it (fetched, admitted or held in quarantine: what a push would meet) parted from, and whose
    records the team does not hold under one of this clone's ids, nor does a push of one of
    them send (``_Held``: a copy carried before); None when there are none. Only appends this
    clone made (``made_here``): another clone's under the id, which a plain fetch moved the ref
    on to, is never carried as this clone's.

    ``scope``, this clone's: a history holding an append of another scope (the clone stored it
    before its origin was named or changed) is never pushed, for the remote's clones refuse it,
    so each append of ``scope`` on it is stranded too (one stored after origin was named and
    before ``gitstore init`` gave the clone a new id), and the others are never carried."""
    mine, copies = ref_tip(repo, records_ref("shared", writer)), _remote_copies(repo, writer)
    if mine is None:
        return None
    chain = _chain(repo, mine)
    foreign = frozenset(_foreign(repo, chain, set(copies), scope)) if scope is not None else frozenset()
    cut = len(chain) if foreign else _cut(repo, chain, copies) if copies else 0
    if not cut:
        return None
    held = _Held(repo, writer, chain)
    made = made_here(state_dir(repo), records_ref("shared", writer), chain[::-1])[::-1]  # newest first, as chain
    appends = tuple(oid for position, oid in reversed(list(enumerate(chain[:cut])))
                    if made[position] and oid not in foreign
                    and not held.holds(_paths(parse_message(message_of(_commit(repo, oid))))))
    return Stranded(writer, appends, held, foreign) if appends else None


def _foreign(repo: pygit2.Repository, chain: list[pygit2.Oid], copies: set[pygit2.Oid], scope: str) -> list[pygit2.Oid]:
    """The appends of ``chain`` (newest first) that store a record of another scope than
    ``scope``, read back to the first a copy of the remote's history has at its tip: that one
    and those before it reached the remote, and a sync pushes none of another scope (nor would
    the remote's clones admit one), so a sync with nothing new reads no record of a history it
    pushed."""
    found = []
    for oid in chain:
        if oid in copies:
            break
        if _other_scope(_commit(repo, oid), scope):
            found.append(oid)
    return found


def _other_scope(commit: pygit2.Commit, scope: str) -> bool:
    """Whether the append ``commit`` stores a record of another scope than ``scope`` (a record
    it cannot read is not this check's to judge: verify names it)."""
    for digest, kind, _ in parse_message(message_of(commit)).lines:
        try:
            found = _jsontext.loads(commit.tree[record_path(kind, digest)].peel(pygit2.Blob).data).get("scope")
        except (KeyError, ValueError, AttributeError):
            continue
        if not admits(scope, found):  # a former scope the default branch declares is this repository's
            return True
    return False


def _cut(repo: pygit2.Repository, chain: list[pygit2.Oid], copies: list[pygit2.Oid]) -> int:
    """How many of the newest appends of ``chain`` (newest first) some copy of the remote's
    history lacks once it parted from it (0: none parted)."""
    at = {oid: position for position, oid in enumerate(chain)}
    return max(_parted_at(repo, tip, at, len(chain)) for tip in copies)


def _commit(repo: pygit2.Repository, oid: pygit2.Oid) -> pygit2.Commit:
    """An append of this clone's own records history (a ref that fails closed), as a commit."""
    found = repo[oid]
    if not isinstance(found, pygit2.Commit):
        raise IntegrityError(f"{oid} is a {found.type_str}, not an append commit")
    return found


def _chain(repo: pygit2.Repository, tip: pygit2.Oid) -> list[pygit2.Oid]:
    """A records history (this clone's own), newest first, along first parents."""
    chain, oid = [], tip
    while True:
        chain.append(oid)
        parents = _commit(repo, oid).parent_ids
        if not parents:
            return chain
        oid = parents[0]


def _parted_at(repo: pygit2.Repository, theirs: pygit2.Oid, at: dict[pygit2.Oid, int], whole: int) -> int:
    """How many of this clone's newest appends (``at``: commit -> position, newest 0) the
    history ``theirs`` lacks once it has parted from this clone's: 0 when it has not (one
    extends the other) or cannot be read (nothing to tell), all of them when it shares none.
    Its commits are read bounded, as a fetched history's are."""
    if theirs in at:
        return 0  # behind: a fast-forward sends the rest
    try:
        commit = load_commit(repo, theirs)
        while isinstance(commit, pygit2.Commit):
            if not commit.parent_ids:
                return whole  # a history of its own
            parent = commit.parent_ids[0]
            if parent in at:
                return at[parent]  # 0: it extends this clone's history
            commit = load_commit(repo, parent)
    except (KeyError, ValueError, pygit2.GitError, Oversized):
        pass
    return 0


def _remote_copies(repo: pygit2.Repository, writer: str) -> list[pygit2.Oid]:
    """Every copy of ``writer``'s records ref that came from a remote: admitted, fetched and
    not admitted yet, or held in quarantine."""
    suffix = f"/records/shared/{writer}"
    names = [name for prefix in (f"{PREFIX}remotes/", INCOMING, QUARANTINE) for name in ref_names(repo, prefix)
             if name.endswith(suffix)]
    return [tip for tip in (ref_tip(repo, name) for name in names) if tip is not None]


class _Held:
    """What the team holds, or this clone's next push sends, of the appends of this clone's
    ids, for former id ``writer``'s stranded appends (``chain``: its history here, newest
    first): the records histories of the remote (as admitted here, never one refused) under
    each of this clone's other ids, of ``writer`` what the remote holds now (``_remote_holds``),
    and this clone's own history of each other id where its push is a fast-forward (a copy
    carried onto an id left since goes out with it). Not ``writer``'s own history: it holds the
    originals, which are what never reaches the team."""

    def __init__(self, repo: pygit2.Repository, writer: str, chain: list[pygit2.Oid]) -> None:
        self.repo = repo
        ids = [name[len(SHARED):] for name in ref_names(repo, SHARED) if name != SHARED + writer]
        suffixes = tuple(f"/records/shared/{name}" for name in ids)
        remote = [name for name in ref_names(repo, f"{PREFIX}remotes/") if name.endswith(suffixes)]
        local = [records_ref("shared", name) for name in ids if _sends(repo, name)]
        tips = [(name.rsplit("/", 1)[-1], ref_tip(repo, name)) for name in [*remote, *local]]
        self.refs: list[tuple[str, pygit2.Oid, pygit2.Tree]] = []  # (writer, tip, its tree)
        for name, tip in [*tips, *((writer, tip) for tip in _remote_holds(repo, writer, chain))]:
            try:
                if tip is not None:
                    self.refs.append((name, tip, repo[tip].peel(pygit2.Tree)))
            except (KeyError, ValueError, pygit2.GitError):
                continue
        self._chains: dict[pygit2.Oid, list[pygit2.Oid]] = {}

    def holds(self, paths: list[str]) -> bool:
        """Whether one of these histories holds every record and note of ``paths``."""
        return any(all(path in tree for path in paths) for _, _, tree in self.refs)

    def named(self, oid: pygit2.Oid) -> tuple[str, pygit2.Oid] | None:
        """(writer, commit) by which the team holds the append ``oid``: the append itself in
        one of these histories, else the first append of one that holds all its records (a
        copy of it); None when none does."""
        for writer, tip, _ in self.refs:
            if oid in self._chain(tip):
                return writer, oid
        paths = _paths(parse_message(message_of(_commit(self.repo, oid))))
        for writer, tip, tree in self.refs:
            if all(path in tree for path in paths):
                return writer, self._first_holding(tip, paths)
        return None

    def _chain(self, tip: pygit2.Oid) -> list[pygit2.Oid]:
        if tip not in self._chains:
            self._chains[tip] = _chain(self.repo, tip)
        return self._chains[tip]

    def _first_holding(self, tip: pygit2.Oid, paths: list[str]) -> pygit2.Oid:
        """The oldest append of the history at ``tip`` whose tree holds all of ``paths`` (its
        tip does): a records tree only grows, so it is the last one met going back."""
        found = tip
        for oid in self._chain(tip)[1:]:
            tree = self.repo[oid].peel(pygit2.Tree)
            if not all(path in tree for path in paths):
                break
            found = oid
        return found


def _remote_holds(repo: pygit2.Repository, writer: str, chain: list[pygit2.Oid]) -> list[pygit2.Oid]:
    """Per remote, the tip of what it holds of ``writer``'s history here (``chain``, newest
    first): the copy admitted here, unless the copy last fetched from it (waiting or held in
    quarantine) parted from this history; then the last append that copy shares with it, or
    nothing when it shares none. A push met that copy: what the admitted one holds beyond it
    is gone from the remote, and the appends on top of it are none of this clone's."""
    suffix, at = f"/records/shared/{writer}", {oid: position for position, oid in enumerate(chain)}
    held: list[pygit2.Oid] = []
    for admitted in [name for name in ref_names(repo, f"{PREFIX}remotes/") if name.endswith(suffix)]:
        remote = admitted[len(f"{PREFIX}remotes/"):-len(suffix)]
        fetched = [ref_tip(repo, f"{prefix}{remote}{suffix}") for prefix in (INCOMING, QUARANTINE)]
        cut = max((_parted_at(repo, tip, at, len(chain)) for tip in fetched if tip is not None), default=0)
        tip = ref_tip(repo, admitted) if not cut else chain[cut] if cut < len(chain) else None
        if tip is not None:
            held.append(tip)
    return held


def _sends(repo: pygit2.Repository, writer: str) -> bool:
    """Whether a push of this clone's history of ``writer`` is a fast-forward of every copy of
    it the remote was seen holding (or creates it)."""
    mine, copies = ref_tip(repo, records_ref("shared", writer)), _remote_copies(repo, writer)
    return mine is not None and (not copies or not _cut(repo, _chain(repo, mine), copies))


def _paths(header: Header) -> list[str]:
    return [record_path(kind, digest) for digest, kind, _ in header.lines] + [note_path(d) for d in header.removes]


# -- carrying --------------------------------------------------------------------------------------

def carry(provider: Writing, former: Collection[str], busy: Mapping[str, Path], scope: str | None = None) -> Carried:
    """Carry the stranded appends of ``former``, the ids this work tree wrote as and left, over
    to its writer id while that id has no appends of its own; otherwise, or when a signed one
    cannot be signed again with its key, or another work tree writes as the id now (``busy``:
    id -> work tree), say why they stay. ``scope``: this clone's (``stranded``)."""
    repo, writer = provider.repo, provider.writer
    ids = [name[len(SHARED):] for name in ref_names(repo, SHARED)]
    found = [s for s in (stranded(repo, name, scope) for name in ids if name != writer and name in former)
             if s is not None]
    done = Carried()
    for item in [item for item in found if item.writer in busy]:
        found.remove(item)
        done.left[item.writer] = _stays(item, f"the work tree {busy[item.writer]} writes as {item.writer} now "
                                        "(`gitstore init --new-writer` there carries them over to an id of its own)")
    found = _leave_out_unmade(repo, found, done)
    if not found:
        return done
    why = _cannot_carry(provider, found)
    if why is None:
        try:
            with provider._lock("gc", fcntl.LOCK_SH), provider._writer_lock("shared"):
                why = _write(provider, found)
        except Refused as exc:  # signing failed (a passphrase it cannot ask for): nothing moved
            why = f"{exc}; the next sync tries again, while {writer} has no appends"
    for item in found:
        if why is None:
            records = sum(len(parse_message(message_of(_commit(repo, oid))).lines) for oid in item.appends)
            what = (f"stored under this clone's scope on a history of {item.writer} that holds another scope's, "
                    "which no sync pushes" if item.foreign else f"the remote's history of {item.writer} parted from")
            done.lines.append(f"{item.writer}: {len(item.appends)} append(s) ({records} record(s)) {what}, carried "
                              f"over to {writer} so that sync sends them")
        else:
            done.left[item.writer] = "; ".join(filter(None, (_stays(item, why), done.left.get(item.writer))))
    return done


def _leave_out_unmade(repo: pygit2.Repository, found: list[Stranded], done: Carried) -> list[Stranded]:
    """``found`` without the appends whose signature the key it names never made (anyone with
    push access can write a commit whose signature names this clone's key, and a clone that
    took a writer's history up as its own holds such appends among its own): signed again for
    real, with that key, such an append would count as the person's decision on every clone.
    Each one left out is named in ``done.left``; it stays on this clone, counting nowhere."""
    program = git_setting(repo, "gpg.ssh.program") or "ssh-keygen"
    kept = []
    for item in found:
        unmade = {oid: why for oid, why in ((oid, _unmade(program, _commit(repo, oid))) for oid in item.appends) if why}
        if unmade:
            named = ", ".join(f"{str(oid)[:12]} ({why})" for oid, why in unmade.items())
            done.left[item.writer] = (f"{item.writer}: append(s) {named} are never carried over: the key a signature "
                                      "names did not make it, and signed again with that key it would count; it "
                                      "stays on this clone, counting nowhere")
        appends = tuple(oid for oid in item.appends if oid not in unmade)
        if appends:
            kept.append(replace(item, appends=appends))
    return kept


def _unmade(program: str, commit: pygit2.Commit) -> str | None:
    """Why the key ``commit``'s signature names did not make it (None: it did, or it is not
    signed)."""
    from gitstore.providers._signing import SignatureProblem, made_with, signature_of, signing_key

    signature = signature_of(commit)
    if signature is None:
        return None
    try:
        made_with(program, commit)
        return None
    except SignatureProblem as exc:
        problem = str(exc)
    try:
        return f"signed as {_short(signing_key(signature[0]))}: {problem}"
    except SignatureProblem:
        return problem


def _stays(item: Stranded, why: str) -> str:
    return (f"{item.writer}: {len(item.appends)} append(s) the remote's history of {item.writer} parted from stay "
            f"on this clone, never forced: {why}")


def _cannot_carry(provider: Writing, found: list[Stranded]) -> str | None:
    """Why these appends cannot be carried over now (None: they can)."""
    repo, writer = provider.repo, provider.writer
    if ref_tip(repo, records_ref("shared", writer)) is not None:
        return (f"this clone has appended as {writer} since; `gitstore init --new-writer` carries them over to a "
                "new id")
    from gitstore.providers._signing import SignatureProblem, signature_of, signer, signing_key

    signed = []
    for item in found:
        for oid in item.appends:
            signature = signature_of(_commit(repo, oid))
            if signature is not None:
                try:
                    signed.append((oid, signing_key(signature[0])))
                except SignatureProblem:
                    signed.append((oid, ""))  # no key this clone could sign with
    if not signed:
        return None
    who, hint = signer(repo)
    mine = who.public() if who is not None else None
    strange = [(oid, key) for oid, key in signed if key != mine]
    if not strange:
        return None
    named = ", ".join(str(oid)[:12] for oid, _ in strange)
    key = strange[0][1]
    problem = (hint if who is None else f"the public key of user.signingkey ({who.key}) cannot be read: give the "
               ".pub file" if mine is None else f"user.signingkey names another key, {_short(mine)}")
    return (f"append(s) {named} carry authority, signed with {_short(key)}, a key this clone does not sign with "
            f"({problem}); the next sync carries them over once it does, while {writer} has no appends")


def _short(key: str) -> str:
    """A public key (``type base64``) told apart from others of its type: its type and the end
    of its data (the start of the data names the type again)."""
    kind, _, data = key.partition(" ")
    return f"{kind} ...{data[-16:]}" if data else "a signature that names no key"


def _write(provider: Writing, found: list[Stranded]) -> str | None:
    """Write the copies, signed where their originals are, then move this writer's payload
    snapshot (first: it may hold more, never less) and its records ref onto the last copy, from
    nothing (the caller holds the writer lock). A signature that fails moves nothing."""
    repo, writer = provider.repo, provider.writer
    ref = records_ref("shared", writer)
    if ref_tip(repo, ref) is not None:
        return f"this clone has appended as {writer} meanwhile; `gitstore init --new-writer` carries them over"
    appends = sorted(((parse_message(message_of(_commit(repo, oid))), item, oid) for item in found for oid in item.appends),
                     key=lambda each: (each[0].clock, each[1].writer))
    objects, journals = ObjectWriter(provider.state / SCRATCH), []
    try:
        payloads = _payload_tree(provider, [(item.writer, oid) for _, item, oid in appends], objects)
        if payloads is not None:
            journals.append(provider._journal([payloads]))
            objects.flush(repo)
        tip: pygit2.Oid | None = None
        tree: pygit2.Tree | None = None
        clock = 0
        covered: set[pygit2.Oid] = set()  # the originals the copies so far hold: what the next has seen
        for header, item, oid in appends:
            original, paths = _commit(repo, oid), _paths(header)
            covered.add(oid)
            if tree is not None and all(path in tree for path in paths):
                continue  # carried already from another former id (a copy of a copy)
            made = provider._tree(repo, tree, {path: original.tree[path].id.raw for path in paths}, objects)
            journals.append(provider._journal([made]))  # named before it is visible: gc knows it is memory's
            objects.flush(repo)
            tree = repo[made].peel(pygit2.Tree)
            seen = _had_seen(repo, item, original, header, covered)
            clock = max(header.clock, clock + 1, *(_clock(repo, commit) + 1 for _, commit in seen))
            message = format_message(clock, writer, "shared", [_Line(*line) for line in header.lines],
                                     header.removes, [(name, str(commit)) for name, commit in seen], header.policy)
            tip = _copy(repo, original, message, made, [tip] if tip is not None else [])
        assert tip is not None
        if payloads is not None:
            provider._set_snapshot(repo, payloads_ref("shared", writer), payloads, "gitstore: payloads")
        note_made(provider.state, ref, None, tip)  # this clone's own, named before the ref is made
        repo.references.create(ref, tip)  # from nothing: fails if anything appended meanwhile
        with open(tips_log(provider.state, ref), "a", encoding="ascii") as log:
            log.write(f"{tip}\n")
    finally:
        objects.abort()
    for journal in journals:  # kept when it failed: gc erases what they name
        journal.unlink(missing_ok=True)
    return None


def _had_seen(repo: pygit2.Repository, item: Stranded, original: pygit2.Commit, header: Header,
              covered: set[pygit2.Oid]) -> list[tuple[str, pygit2.Oid]]:
    """The ``Seen`` of the copy of ``original``: what the original had seen, as the team holds
    it. Its own ``Seen`` headers, and its parent, the old id's previous append: nothing more
    where an earlier copy holds it (``covered``: the copy's own history then has seen it),
    else the append by which the team holds it (``Stranded.held``), else the parent itself, as
    the original named it."""
    seen = [(name, pygit2.Oid(hex=commit)) for name, commit in header.seen]
    parent = original.parent_ids[0] if original.parent_ids else None
    if parent is None or parent in covered or parent in item.foreign:  # another scope's: the team never holds it
        return seen
    named = item.held.named(parent) or (item.writer, parent)
    return [named, *(pair for pair in seen if pair != named)]


def _clock(repo: pygit2.Repository, commit: pygit2.Oid) -> int:
    """The clock of the append ``commit`` (0: not held here): a copy's is above every one it
    names as seen, as verify requires."""
    try:
        return parse_message(message_of(_commit(repo, commit))).clock
    except (KeyError, ValueError, pygit2.GitError, IntegrityError):
        return 0


def _copy(repo: pygit2.Repository, original: pygit2.Commit, message: str, tree: pygit2.Oid,
          parents: list[pygit2.Oid]) -> pygit2.Oid:
    """The copy of ``original``: its time, and its signature made again when it had one."""
    from gitstore.providers._signing import signature_of, signed_commit, signer

    when = pygit2.Signature(SIGNATURE_NAME, SIGNATURE_EMAIL, original.committer.time, original.committer.offset)
    if signature_of(original) is None:
        return repo.create_commit(None, when, when, message, tree, parents)
    who, _ = signer(repo)
    if who is None:  # checked before anything was written
        raise Refused("this clone cannot sign")
    return signed_commit(repo, who, when, message, tree, parents)


def _payload_tree(provider: Writing, appends: list[tuple[str, pygit2.Oid]],
                  objects: ObjectWriter) -> pygit2.Oid | None:
    """This writer's next payload snapshot: its current one with the payloads the copied
    events name, from the snapshot of the id that stored them (one a note of shared memory
    removed stays out)."""
    repo, noted = provider.repo, provider._notes_governing("shared")
    found: dict[str, bytes] = {}
    for former, oid in appends:
        snapshot = ref_tip(repo, payloads_ref("shared", former))
        if snapshot is None:
            continue
        held = repo[snapshot].peel(pygit2.Tree)
        original = _commit(repo, oid)
        for digest, kind, _ in parse_message(message_of(original)).lines:
            if kind != "event":
                continue
            named = PAYLOAD_DIGEST.search(original.tree[record_path(kind, digest)].read_raw())
            payload = named.group(1).decode() if named else None
            if payload is not None and payload not in noted and payload_path(payload) in held:
                found[payload_path(payload)] = held[payload_path(payload)].id.raw
    if not found:
        return None
    tip = ref_tip(repo, payloads_ref("shared", provider.writer))
    try:
        base = repo[tip].peel(pygit2.Tree) if tip is not None else None
    except (KeyError, ValueError, pygit2.GitError) as exc:
        raise IntegrityError(f"{payloads_ref('shared', provider.writer)}: {exc}; run `gitstore verify`") from None
    return provider._tree(repo, base, found, objects)


__all__ = ["Carried", "Stranded", "carry", "stranded"]
