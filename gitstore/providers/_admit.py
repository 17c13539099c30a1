"""Admitting fetched writer refs: records another clone wrote are used only once verified.

A plain ``git fetch`` moves ``refs/memory/v1/remotes/<remote>/records/shared/<writer>``
without asking gitstore. Before the store reads a fetched ref's records it verifies every
commit that arrived since the tip it last admitted (all of them the first time): the history
is linear, every message parses, clocks grow, and each commit adds exactly the records it
lists, each in canonical form, satisfying its contract and hashing to its digest. A ref that
passes is admitted at that tip; one that fails is quarantined, with the first problem as its
reason, until its tip moves again, and read where it was admitted last: at the newest commit
before the first that fails (its verified prefix, each commit checked as any arrival is, against
those before it only), or, when the first new commit fails, where it was admitted before. The
history is linear, so that prefix is the history a writer who stopped there would have pushed:
damage stacked on a teammate's signed withdrawal or retraction does not keep the withdrawal
from counting (dropping it would silently give a permission back). A tip that does not
extend the one admitted before (a history rewritten, or one brought again after a pruning
fetch deleted the ref) is refused too, whatever it holds: records once read are never given
up, and the tip admitted last is remembered through every refusal (``admitted``), so no second
rewrite is taken for a first. A verdict reached under other checks (``CHECKS_VERSION``; an entry
naming none is older) is reached again, the history up to the tip admitted last verified whole:
if that tip fails the checks now, only its verified prefix stays admitted, as on a clone that never
admitted it, rather than every read failing on bytes the store no longer keeps. A refusal reached
before verified prefixes were read (its entry names none) is reached again, once. A store reads
one repository's memory: a record of another scope (another repository's) is a problem too, as
it is to ``gitstore sync``, so a plain fetch and a sync admit the same refs.

A fetched payload snapshot (which plain fetch forces: snapshots have no history) is admitted
once it passes the check a sync makes (``check_snapshot``) against the snapshot admitted last,
and read as ``kept_text`` makes it: with the text it drops that no removal took kept from the
one admitted last, and without the text it brings back that a removal took; a refusal stands
while the records refs do.

Both are remembered in ``.git/gitstore/admitted.json`` (``{ref: {"tip": ..., "problem": null |
"...", "scope": ..., "checks": ..., "admitted": ...}}``), so a read after a fetch of N new
commits verifies those N and nothing else, and a read without a fetch verifies nothing; a verdict reached for
another scope (or none) is reached again. The tip each ref was admitted at last is also held
by a ref of its own, ``refs/memory/admitted/<remote>/<kind>/shared/<writer>`` (``anchor_ref``),
which no fetch refspec names: once a forced or pruning fetch moved the fetched ref, git's own
gc (run by hand or after a fetch) would otherwise erase what reads still show.

A fetched history that parts from the one admitted (neither holds the other: someone who could
push put a history made on an older tip on the writer's ref) is no rewrite to refuse for good: it
is verified since the commit both hold, as any arrival is, and when it passes it is admitted for
the writer's ref, and the history admitted before is kept beside it as a **parted** history of
that writer (``parted_ref``, admitted as it was, its own ref its anchor), which reads go on
reading, with the writer's snapshot admitted by then kept as its own (``snapshot_of``): the
writer's snapshot owes nothing to a parted history, and one forced with the fork may drop its
text, which only an honoured removal may take. Once the writer's ref holds a parted history
again, that history goes, and its text goes into the writer's admitted snapshot, which the
writer's next snapshot is checked against (``Admissions._owe_text``). Records are content-addressed and authority comes from signatures, not from the writer
id a ref names, so reading both is safe; refusing the remote's history instead left a clone that
had admitted a brief fork behind for good, reading nothing the writer stored later. A history
that moved back (the admitted one holds it whole) brings nothing and stays refused; so does a
fork whose new side fails verification. Callers pass ``parts`` only for other writers' refs:
this clone's own writer's history is in its own refs, and a remote copy that parted from it is
refused as before (push names it).

This clone's own refs are never admitted this way: they fail closed (see ``git.py``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import NamedTuple

import pygit2

from gitstore import _jsontext
from gitstore._shown import one_line
from gitstore.providers._gitdirs import kept_parse, ref_targets
from gitstore.providers._message import SIGNATURE_EMAIL, SIGNATURE_NAME
from gitstore.providers._names import PREFIX, kept_here, parted_ref, shown_in, shown_ref, snapshot_of
from gitstore.providers._packs import Database
from gitstore.providers._objects import (
    BLOB_MODE, MAX_PAYLOAD_BYTES, Oversized, Unreadable, common_base, descends, load_commit, peeled,
    read_blob,
)
from gitstore.providers._partial import judged_again
from gitstore.records.canonical import sha256_digest
from gitstore.records.contracts import CHECKS_VERSION

ADMITTED = "admitted.json"
_TIP = re.compile("[0-9a-f]{40}")  # a commit id as the file keeps it
FETCHED = PREFIX + "remotes/"
ANCHORS = "refs/memory/admitted/"
PREFIXED = "prefix"  # an entry's key: its refusal was reached reading the verified prefix (``Admissions.check``)


def anchor_ref(ref: str) -> str:
    """The ref that holds the tip a fetched ref (``refs/memory/v1/remotes/...``) was admitted at
    last, for git itself to keep."""
    return ANCHORS + ref.removeprefix(FETCHED)


class Admission(NamedTuple):
    """Where a fetched ref stands: admitted at ``tip``, or quarantined at ``tip`` because of
    ``problem``."""

    ref: str
    tip: str
    problem: str | None = None

    @property
    def admitted(self) -> bool:
        return self.problem is None

    def __str__(self) -> str:
        if self.admitted:
            return f"{shown_ref(self.ref)}: admitted at {self.tip[:12]}"
        why = shown_in(self.problem or "", self.ref, cut=True)
        return f"{shown_ref(self.ref, cut=True)}: quarantined, not read ({why})"


def _key(scope: str | None) -> str | None:
    """What an entry keeps of the scope its ref was judged for (``scope_label``): a verdict reached
    before the former scopes the default branch declares changed is reached again."""
    from gitstore.scope import scope_label

    return scope_label(scope) if scope is not None else None


class Fork(NamedTuple):
    """A fetched writer's history that parts from the one admitted for its ref: neither holds the
    other (someone who could push put a history made on an older tip on the writer's ref)."""

    base: pygit2.Oid  # the tip admitted last, kept as a parted history of the writer once the fork is
    since: pygit2.Oid | None  # the newest commit both hold when it was verified with it (None: verify all)


class Admissions:
    """The admission of every fetched ref, read from and saved to ``.git/gitstore``."""

    def __init__(self, state: Path) -> None:
        self.path = state / ADMITTED
        self._known = self._load()
        self._loaded = dict(self._known)  # as read: what save tells this handle's changes by
        self._changed = False
        self._let_go: set[str] = set()  # parted histories a fork's new side holds: their refs go at save
        self.parted_now = 0  # parted histories kept by this handle (a read takes them up as it goes)

    def _load(self) -> dict[str, dict[str, str | None]]:
        """The file's entries; while a sync holds its listings, parsed once for every handle it
        opens while the file stays as it was (``kept_parse``: each handle changes a copy, and
        replaces an entry rather than changing it)."""
        try:
            data = kept_parse(str(self.path), lambda raw: _jsontext.loads(raw.decode("ascii")))
        except (OSError, ValueError):
            return {}
        return dict(data) if isinstance(data, dict) else {}

    def check(self, repo: pygit2.Repository, ref: str, tip: pygit2.Oid, scope: str | None = None,
              parts: bool | Callable[[], bool] = False) -> Admission:
        """The ref's admission at ``tip``, verifying what arrived since it was last admitted;
        with ``scope``, its records must all be of that scope. When it fails, its verified
        prefix is admitted (the newest commit before the first that fails, when it extends the
        tip admitted last, verified from there, or none was): the ref stays quarantined at
        ``tip`` and is read there (``base``). ``parts``: a history that parts
        from the one admitted (``fork``) is verified since the commit both hold and, when it
        passes, admitted, the one admitted before kept as a parted history (``part``); a
        callable is asked only then (a ref at the tip admitted last, as every ref of an idle
        sync is, asks nothing of it)."""
        known = self._known.get(ref)
        if isinstance(known, dict) and known.get("checks") != CHECKS_VERSION:
            known = self._checked_again(repo, ref, known, scope)
        # a refusal reached before verified prefixes were read (no PREFIXED) is reached again
        if isinstance(known, dict) and known.get("tip") == str(tip) and known.get("scope") == _key(scope) \
                and (known.get("problem") is None or PREFIXED in known) \
                and not judged_again(repo, known.get("problem")):
            return Admission(ref, str(tip), known.get("problem"))
        problem = self.rewrites(repo, ref, tip)
        if problem is not None and callable(parts):
            parts = parts()
        fork = self.fork(repo, ref, tip, scope) if problem is not None and parts else None
        if fork is not None:
            problem = None
        read = self.base(ref)  # where the ref is read when it fails: the tip admitted last, or its verified prefix
        if problem is None:
            since = fork.since if fork is not None else self._admitted_ancestor(repo, known, tip, scope)
            problem, verified = _first_problem(repo, ref, tip, since, scope)
            if problem is not None and fork is None and verified is not None and (read is None or since == read):
                read = verified  # extends the tip admitted last (verified from it), or none was
        if fork is not None and problem is None:
            self.part(repo, ref, fork.base, tip)
        found = Admission(ref, str(tip), problem)
        entry = {"tip": found.tip, "problem": found.problem, "scope": _key(scope), "checks": CHECKS_VERSION,
                 "admitted": found.tip if problem is None else _text(read), **({PREFIXED: "1"} if problem else {})}
        if entry != self._known.get(ref):  # an object a partial clone lacks is judged again at each read
            self._known[ref] = entry
            self._changed = True
        return found

    def _checked_again(self, repo: pygit2.Repository, ref: str, known: dict[str, str | None],
                       scope: str | None) -> dict[str, str | None]:
        """The entry of a ref admitted under other checks (or before entries named theirs),
        reached again under these: the tip admitted last is verified again, whole. One that
        passes stands admitted; one that fails now is admitted only up to its verified prefix
        (none of it when its first commit fails), as on a clone that never admitted it
        (quarantined, the rest left out of every read, named by verify): bytes the store no
        longer keeps must not fail every read."""
        base = _admitted_tip(known)
        if base is None or base not in repo:
            return known  # nothing admitted to verify again (a missing tip is named as ever)
        problem, verified = _first_problem(repo, ref, base, None, scope)
        entry = {"tip": str(base), "problem": problem, "scope": _key(scope), "checks": CHECKS_VERSION,
                 "admitted": str(base) if problem is None else _text(verified), **({PREFIXED: "1"} if problem else {})}
        self._known[ref] = entry
        self._changed = True
        return entry

    def snapshot(self, repo: pygit2.Repository, ref: str, tip: pygit2.Oid,
                 removed: Callable[[set[str]], set[str]], records: Callable[[], str],
                 taken: Callable[[set[str]], set[str]] | None = None) -> Admission:
        """A fetched payload snapshot's admission at ``tip``: checked against the snapshot
        admitted last (``check_snapshot``; ``removed`` as it takes it), once per tip; a refusal
        stands while ``records`` (the records refs, as a digest) says the same: the removal a
        dropped payload waits for may arrive with them."""
        known = self._known.get(ref)
        if isinstance(known, dict) and known.get("tip") == str(tip) and (
                known.get("problem") is None or known.get("records") == records()) \
                and not judged_again(repo, known.get("problem")):
            return Admission(ref, str(tip), known.get("problem"))
        base = self.base(ref)
        before = base if base is not None and base in repo else None
        found = check_snapshot(repo, before, tip, removed, taken)
        read = kept_text(repo, before, tip, found.owed, found.back) if found.owed or found.back else tip
        admission = Admission(ref, str(tip), found.problem if read is not None else found.refusal)
        self._known[ref] = {"tip": admission.tip, "problem": admission.problem, "scope": None,
                            "checks": CHECKS_VERSION, "admitted": _text(read) if admission.admitted else _text(base)}
        if admission.admitted and found.owed:
            self._known[ref]["owes"] = str(len(found.owed))  # read with text kept that it lacks
        if not admission.admitted:
            self._known[ref]["records"] = records()
        self._changed = True
        return admission

    def owes(self, ref: str) -> bool:
        """Whether the snapshot ``ref`` is at lacks text read here, which is kept (``kept_text``)."""
        known = self._known.get(ref)
        return isinstance(known, dict) and bool(known.get("owes"))

    def refused(self, repo: pygit2.Repository, ref: str, tip: pygit2.Oid) -> str | None:
        """Why ``ref`` at ``tip`` was refused when it was checked there (None: it was not, or
        passed, or, in a partial clone, lacked an object git had not fetched: ``judged_again``)."""
        known = self._known.get(ref)
        problem = known.get("problem") if isinstance(known, dict) and known.get("tip") == str(tip) else None
        if problem is not None and PREFIXED not in known and _records_ref(ref):  # type: ignore[operator]
            return None  # refused before its verified prefix was read: judged again, and the prefix read
        return None if judged_again(repo, problem) else problem

    def base(self, ref: str) -> pygit2.Oid | None:
        """The tip ``ref`` was admitted at last (None: never admitted)."""
        return _admitted_tip(self._known.get(ref))

    def known(self, prefix: str) -> list[str]:
        """The refs under ``prefix`` the file has an entry for (in the file's order: it is
        written sorted)."""
        return [ref for ref in self._known if ref.startswith(prefix)]

    def forget(self, prefix: str) -> list[str]:
        """Forget every ref under ``prefix`` (what a remote that stands for another repository
        brought: never the team's memory), so no read takes it up again and gc keeps none of it;
        their anchors and their refs are the caller's to delete. Returns the refs forgotten."""
        gone = self.known(prefix)
        for ref in gone:
            del self._known[ref]
        self._changed = self._changed or bool(gone)
        return gone

    def bases(self, prefix: str) -> dict[str, pygit2.Oid]:
        """ref -> the tip it was admitted at last, for every ref under ``prefix`` ever admitted.
        An entry naming no ref git could write (the file edited by hand) is none: sync would put
        it back, and git refuses the name every time."""
        return {ref: base for ref in self._known
                if ref.startswith(prefix) and (base := self.base(ref)) is not None and _valid_name(ref)}

    def rewrites(self, repo: pygit2.Repository, ref: str, tip: pygit2.Oid, parts: bool = False) -> str | None:
        """Why ``tip`` may not be admitted for ``ref``: it does not extend the tip admitted last
        (None: it does, or none was; ``parts``: or it parts from it, ``fork``)."""
        base = self.base(ref)
        tip = peeled(repo, tip)  # a tag of a commit holds that commit's history (the checks name the tag)
        if base is None or base == tip or (base in repo and descends(repo, tip, base)):
            return None
        if parts and self.fork(repo, ref, tip, None) is not None:
            return None
        lost = "moved back" if base in repo and descends(repo, base, tip) else "rewritten"
        return (f"history {lost}: it no longer holds {str(base)[:12]}, admitted before; "
                "records already stored are never given up")

    def fork(self, repo: pygit2.Repository, ref: str, tip: pygit2.Oid, scope: str | None) -> Fork | None:
        """How ``tip`` parts from the tip admitted last for ``ref``, when neither history holds
        the other (None: it extends it, or was never admitted; or it moved back, which a
        history the admitted one holds whole is: it brings nothing, and stays refused). The
        commit both hold was verified with the admitted tip when that was admitted for ``scope``
        under these checks. Records are content-addressed and authority comes from signatures,
        not from the writer id a ref names, so reading both histories is safe."""
        known = self._known.get(ref)
        base = _admitted_tip(known)
        tip = peeled(repo, tip)
        if base is None or base == tip or base not in repo or descends(repo, tip, base):
            return None
        since = common_base(repo, tip, base)
        if since == tip:
            return None
        verified = isinstance(known, dict) and known.get("scope") == _key(scope) \
            and known.get("checks") == CHECKS_VERSION
        return Fork(base, since if verified else None)

    def part(self, repo: pygit2.Repository, ref: str, base: pygit2.Oid, tip: pygit2.Oid) -> None:
        """Keep the history admitted at ``base`` for ``ref`` as a parted history of its writer
        (``parted_ref``), admitted as it was, now that ``tip``, which parts from it, is admitted
        for the ref (by the caller, after this): records once read are never given up. The
        writer's snapshot admitted by now is kept as the parted history's own (``snapshot_of``):
        the writer's snapshot owes nothing to a parted history, so the one forced with the fork
        could otherwise drop its text unremoved, and gc erase it. Parted histories of the writer
        that ``tip`` holds go, with their snapshots (their refs at the next save): the writer's
        records ref holds their records, and the writer's snapshot is made to hold their text
        (``_owe_text``). The parted history's refs are made at the next save, as anchors are."""
        known = self._known.get(ref)
        scope, checks = (known.get("scope"), known.get("checks")) if isinstance(known, dict) else (None, None)
        held = [other for other in self.known(parted_ref(ref, ""))
                if (kept := self.base(other)) is not None and (kept == tip or descends(repo, tip, kept))]
        snapshot = self.base(snapshot_of(ref))
        if self._owe_text(repo, snapshot_of(ref), snapshot, [self.base(snapshot_of(other)) for other in held]):
            for gone in (name for other in held for name in (other, snapshot_of(other))):
                self._known.pop(gone, None)
                self._let_go.add(gone)
        parted = parted_ref(ref, str(base))
        self._known[parted] = {"tip": str(base), "problem": None, "scope": scope, "checks": checks,
                               "admitted": str(base)}
        if snapshot is not None:
            self._known[snapshot_of(parted)] = {"tip": str(snapshot), "problem": None, "scope": None,
                                                "checks": CHECKS_VERSION, "admitted": str(snapshot)}
        self._let_go -= {parted, snapshot_of(parted)}
        self.parted_now += 1
        self._changed = True

    def _owe_text(self, repo: pygit2.Repository, ref: str, admitted: pygit2.Oid | None,
                  kept: list[pygit2.Oid | None]) -> bool:
        """Make the writer's snapshot (``ref``, admitted at ``admitted``) hold the payloads of the
        snapshots ``kept`` for parted histories its records now hold, so those can go: reads read
        it, and the writer's next snapshot is checked against it, so may drop their text only
        where a removal took it (let go with them, that text was owed by no snapshot: a fork's,
        left on the remote or under an append built on the parted history, dropped it unremoved,
        and gc erased it). What is written here is admitted, as a removal's rewrite of a fetched
        snapshot is; nothing is when the admitted one holds it all. False when it cannot be
        written: the parted histories stay."""
        if not kept:
            return True
        try:
            roots = [root for oid in (admitted, *kept) if (root := _tree_of(repo, oid)) is not None]
            if not roots:
                return True
            joined = _joined(repo, [repo[pygit2.Oid(raw=root)].peel(pygit2.Tree) for root in roots])
            if joined.raw == _tree_of(repo, admitted):
                return True
            signature = pygit2.Signature(SIGNATURE_NAME, SIGNATURE_EMAIL)
            commit = str(repo.create_commit(None, signature, signature, "gitstore: text of parted histories\n",
                                            joined, []))
        except (KeyError, pygit2.GitError, ValueError, OSError):
            return False  # a read-only repository, or one that lost an object: nothing goes
        self._known[ref] = {"tip": commit, "problem": None, "scope": None, "checks": CHECKS_VERSION,
                            "admitted": commit}
        return True

    def verified_until(self, repo: pygit2.Repository, ref: str, tip: pygit2.Oid, scope: str) -> pygit2.Oid | None:
        """The tip ``ref`` was admitted at for ``scope``, when ``tip`` extends it: what a check
        of ``tip`` need not verify again (None: all of it)."""
        return self._admitted_ancestor(repo, self._known.get(ref), tip, scope)

    def admitted(self, ref: str, tip: pygit2.Oid, scope: str | None, owes: int = 0) -> None:
        """Record that ``ref`` at ``tip`` was verified for ``scope`` and passed (by ``gitstore
        sync``, before it moved the ref there); ``owes``: a snapshot read with that many
        payloads kept that the one fetched lacks (``kept_text``)."""
        self._known[ref] = {"tip": str(tip), "problem": None, "scope": _key(scope), "checks": CHECKS_VERSION,
                            "admitted": str(tip), **({"owes": str(owes)} if owes else {})}
        self._changed = True

    @staticmethod
    def _admitted_ancestor(repo: pygit2.Repository, known: object, tip: pygit2.Oid,
                           scope: str | None) -> pygit2.Oid | None:
        """The tip admitted before for ``scope`` under these checks, when it is still in the ref's
        history (what to verify from)."""
        if not isinstance(known, dict) or known.get("scope") != _key(scope) or known.get("checks") != CHECKS_VERSION:
            return None
        before = _admitted_tip(known)
        try:
            return before if before is not None and before in repo and descends(repo, tip, before) else None
        except pygit2.GitError:
            return None

    def save(self, repo: pygit2.Repository) -> None:
        """Write what this handle changed into the file as it is now, and hold each tip admitted
        in ``repo`` by its anchor ref. Another process (a sync beside a removal, a capture's read
        beside gc) may have saved since this handle read the file: under a lock beside it, the
        file is read again and only the entries this handle set or dropped are written over it
        (an entry is replaced, never changed in place, so a changed one is another object), so
        no admission is lost and no anchor moved back to an older one's tip. A read-only state
        folder saves nothing (verify again next time)."""
        if not self._changed:
            return
        with self._locked() as taken:
            if taken:
                self._merge_saved()
            temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}")
            try:
                temporary.write_text(json.dumps(self._known, sort_keys=True, indent=0), encoding="ascii")
                os.replace(temporary, self.path)
            except OSError:
                temporary.unlink(missing_ok=True)  # a read-only state folder: verify again next time
            self._loaded = dict(self._known)
            self._changed = False
            self._anchor(repo)

    def _merge_saved(self) -> None:
        """Take the file as it is now, with this handle's own changes over it (while a sync
        holds its listings, a file unchanged since it was parsed is not parsed again)."""
        try:
            data = kept_parse(str(self.path), lambda raw: _jsontext.loads(raw.decode("ascii")))
        except (OSError, ValueError):
            return  # none, or unreadable: this handle's copy is written
        if not isinstance(data, dict):
            return
        merged = dict(data)
        for ref in set(self._loaded) | set(self._known):
            mine, read = self._known.get(ref), self._loaded.get(ref)
            if mine is read:
                continue  # untouched here: as the file has it now
            if mine is None:
                merged.pop(ref, None)  # dropped here (forgotten, let go)
            else:
                merged[ref] = mine
        self._known = merged
        self._loaded = dict(data)  # as read now: what this handle changed still differs from it

    def anchor(self, repo: pygit2.Repository) -> list[str]:
        """``_anchor`` from the file as it is now, under the lock a save takes, with this
        handle's own changes over it: a handle loaded before a sync admitted newer tips (a gc, a
        sync's restore) would point their anchors back at the older ones, at a snapshot still
        holding text a removal took since, which gc then could not erase."""
        with self._locked() as taken:
            if taken:
                self._merge_saved()
            return self._anchor(repo)

    @contextmanager
    def _locked(self) -> Iterator[bool]:
        """The lock beside the file that saves and anchorings take; yields whether it was taken
        (not in a read-only state folder)."""
        from gitstore._files import held

        with ExitStack() as stack:
            try:
                taken = stack.enter_context(held(self.path.with_name(f"{self.path.name}.lock")))
            except OSError:
                taken = False
            yield taken

    def _anchor(self, repo: pygit2.Repository) -> list[str]:
        """Point each fetched ref's anchor at the tip it was admitted at last, where it does not
        already (a store older than anchors, or a new admission), and drop the anchor of a ref
        no longer admitted at any tip (checks it once passed refuse it now); a parted history's
        refs (its records and its snapshot) are their own anchors, made here, and dropped once
        the writer's ref holds it (``part``).
        Returns the refs whose admitted tip ``repo`` no longer holds (damage: nothing kept it)."""
        missing = []
        bases = self.bases(FETCHED)
        for ref in self.known(FETCHED):
            if ref not in bases and not kept_here(ref):  # a parted history's refs stay: verify names them
                _drop_ref(repo, anchor_ref(ref))
        for ref in sorted(self._let_go):
            _drop_ref(repo, ref)
        self._let_go.clear()
        anchored = ref_targets(repo, ANCHORS)  # one listing, not a lookup a writer
        for ref, base in bases.items():
            anchor = ref if kept_here(ref) else anchor_ref(ref)  # a parted history's refs: their own anchors
            try:
                if (anchored.get(anchor) if anchor in anchored else repo.references[anchor].target) == base:
                    continue
            except (KeyError, pygit2.GitError, ValueError):
                pass
            if base not in repo:
                missing.append(ref)
                continue
            try:
                repo.references.create(anchor, base, force=True)
            except (pygit2.GitError, ValueError, OSError):
                pass  # a read-only repository: the next admission tries again
        return missing

    def missing(self, repo: pygit2.Repository) -> dict[str, pygit2.Oid]:
        """ref -> the tip it was admitted at last, for each such tip ``repo`` no longer holds."""
        return {ref: base for ref, base in self.bases(FETCHED).items() if base not in repo}


def parted_line(writer: str, tip: pygit2.Oid | str) -> str:
    """How sync's report names a history of a fetched writer it just kept as a parted history:
    someone with push access forced the writer's ref, and nothing says which side is the
    writer's own, so both are read (``gitstore doctor`` says what to do)."""
    return (f"writer {writer}: someone with push access forced its ref onto a history that parts from the one "
            f"read here, which is kept at {str(tip)[:12]} and still read beside the remote's (either may be "
            "the forgery; `gitstore doctor` says what to do)")


def kept_text_line(writer: str, remote: str, owed: tuple[str, ...], back: bool = False) -> str:
    """How sync's report names a writer's snapshot on the remote that lacks text its records name
    and no removal took (``kept_text``): read here as before, and told at each sync while the
    remote's lacks it, since a clone that never read that text cannot have it. ``back``: the
    snapshot also holds text a removal took, so nothing is put back (``sync --put-back``)."""
    mend = ("it also holds text a removal took, so `gitstore sync --put-back` leaves it as it is" if back else
            "once you know no removal took it, `gitstore sync --put-back` puts it back there for clones that "
            "never read it")
    return (f"writer {writer}: its payload snapshot on {remote} lacks {len(owed)} payload(s) no stored append "
            f"removed (first {owed[0]}); the text read here before is kept and still read (text leaves memory "
            "only through a redaction: someone with push access may have taken it off the remote, or a removal "
            f"has not reached this clone); {mend}")


def parted_writer_line(writer: str, tips: list[str], listed: str) -> str:
    """How ``gitstore doctor`` names the parted histories kept for one fetched writer (``tips``),
    in one line however many there are (``listed``: the refs' folder, for ``git for-each-ref``)."""
    if len(tips) == 1:
        return (f"writer {writer}: someone with push access forced its ref onto a history that parts from the "
                f"one read here, which is kept at {tips[0][:12]} and still read beside the remote's; either side "
                "may be the forgery")
    return (f"writer {writer}: someone with push access forced its ref onto other histories; the {len(tips)} read "
            f"here before are kept and still read beside the remote's (`git for-each-ref {listed}` lists them); "
            "any side may be the forgery")


def _joined(repo: pygit2.Repository, trees: list[pygit2.Tree]) -> pygit2.Oid:
    """One tree holding every entry of ``trees`` (the first's, where two name one path: a
    payload's path is its digest). A folder every tree holds alike is taken as it is, unread."""
    builder = repo.TreeBuilder()
    folders: dict[str, list[pygit2.Tree]] = {}
    for tree in trees:
        for entry in tree:
            name = str(entry.name)  # an entry of a tree always has one
            if entry.filemode == pygit2.GIT_FILEMODE_TREE:
                folders.setdefault(name, []).append(repo[entry.id].peel(pygit2.Tree))
            elif name not in folders and builder.get(name) is None:
                builder.insert(name, entry.id, entry.filemode)
    for name, held in folders.items():
        if builder.get(name) is None:
            alike = len({tree.id for tree in held}) == 1
            builder.insert(name, held[0].id if alike else _joined(repo, held), pygit2.GIT_FILEMODE_TREE)
    return builder.write()


def _with_entries(repo: pygit2.Repository, tree: pygit2.Tree | None,
                  entries: dict[str, tuple[pygit2.Oid, int] | None]) -> pygit2.Oid:
    """``tree`` with the blobs ``entries`` names (path -> id, mode) added, or removed (path ->
    None), each tree written once: a tree written on the way and left out of the result would
    be an object no commit of memory's reaches, which gc keeps as anyone's, with the text under
    it. A folder left empty goes."""
    here: dict[str, tuple[pygit2.Oid, int] | None] = {}
    below: dict[str, dict[str, tuple[pygit2.Oid, int] | None]] = {}
    for path, entry in entries.items():
        head, _, rest = path.partition("/")
        if rest:
            below.setdefault(head, {})[rest] = entry
        else:
            here[head] = entry
    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    for name, inner in below.items():
        held = tree[name] if tree is not None and name in tree else None
        folder = repo[held.id].peel(pygit2.Tree) if held is not None and held.filemode == pygit2.GIT_FILEMODE_TREE \
            else None
        if folder is None and all(entry is None for entry in inner.values()):
            continue  # nothing there to remove
        written = _with_entries(repo, folder, inner)
        if len(repo[written].peel(pygit2.Tree)):
            builder.insert(name, written, pygit2.GIT_FILEMODE_TREE)
        elif builder.get(name) is not None:
            builder.remove(name)
    for name, entry in here.items():
        if entry is not None:
            builder.insert(name, *entry)
        elif builder.get(name) is not None:
            builder.remove(name)
    return builder.write()


def _valid_name(ref: str) -> bool:
    try:
        return pygit2.reference_is_valid_name(ref)
    except (UnicodeError, ValueError):  # a name that is not UTF-8
        return False


def _drop_ref(repo: pygit2.Repository, ref: str) -> None:
    """Delete an anchor, or a parted history's ref, if there is one."""
    try:
        repo.references.delete(ref)
    except (KeyError, pygit2.GitError, ValueError, OSError):
        pass  # none, or a read-only repository: the next save tries again


def _first_problem(repo: pygit2.Repository, ref: str, tip: pygit2.Oid, since: pygit2.Oid | None,
                   scope: str | None) -> tuple[str | None, pygit2.Oid | None]:
    """The first problem of the ref's history up to ``tip`` after ``since`` (None: it passes),
    and the newest commit after ``since`` that passes with every one before it (``arrived``)."""
    from gitstore.providers._verify_git import arrived  # what a check reads, loaded when one runs

    found = arrived(repo, ref, tip, since, scope)
    problems = found.report.problems
    return (str(problems[0]) if problems else None), found.verified


def _records_ref(ref: str) -> bool:
    """Whether a fetched ref (``refs/memory/v1/remotes/<remote>/<kind>/...``) is a records ref."""
    return ref.removeprefix(FETCHED).split("/")[1:2] == ["records"]


def _text(oid: pygit2.Oid | None) -> str | None:
    return str(oid) if oid is not None else None


def _admitted_tip(known: object) -> pygit2.Oid | None:
    """The tip an entry of the file says its ref was admitted at last (files written before
    ``admitted`` was kept: the tip, when it passed); None for anything else."""
    if not isinstance(known, dict):
        return None
    value = known.get("admitted", known.get("tip") if known.get("problem") is None else None)
    if isinstance(value, str) and _TIP.fullmatch(value):
        return pygit2.Oid(hex=value)
    return None


class Checked(NamedTuple):
    """What a check found: the records (or payloads) that arrived, and the first problem (a
    named tuple: reads import this module, and a dataclass costs a capture its compile); for a
    payload snapshot, the payloads it drops that no removal took (``owed``): it passes, and is
    read with them kept (``kept_text``)."""

    arrived: int  # not ``count``: a tuple has a method of that name
    problem: str | None = None
    owed: tuple[str, ...] = ()
    back: tuple[str, ...] = ()  # payloads it adds that a removal took: read without them (``kept_text``)
    verified: pygit2.Oid | None = None  # a records ref that fails: the newest commit before the first that does

    @property
    def refusal(self) -> str | None:
        """The problem, or what is wrong with a snapshot whose owed text cannot be kept."""
        if self.problem is not None or not (self.owed or self.back):
            return self.problem
        if self.back:
            return (f"brings back {len(self.back)} payload(s) a removal took (first {self.back[0]}); "
                    "text once removed stays removed")
        return (f"drops {len(self.owed)} payload(s) no stored append removed (first {self.owed[0]}); "
                "text leaves memory only through a redaction")


def object_at(repo: pygit2.Repository, oid: pygit2.Oid) -> pygit2.Object | str:
    """The object at ``oid``, or what is wrong with it."""
    try:
        return load_commit(repo, oid)
    except KeyError:
        return f"{oid} is missing"
    except Oversized as exc:
        return str(exc)
    except (pygit2.GitError, ValueError) as exc:
        return f"{oid} cannot be read ({exc})"




def check_snapshot(repo: pygit2.Repository, before: pygit2.Oid | None, tip: pygit2.Oid,
                   removed: Callable[[set[str]], set[str]],
                   taken: Callable[[set[str]], set[str]] | None = None) -> Checked:
    """Whether a fetched payload snapshot may replace ``before`` (None: new). ``removed`` is
    given the payload digests it drops and returns those no stored append removed (or named):
    the snapshot owes them (``Checked.owed``); ``taken`` is given those it adds and returns
    those a removal took (``Checked.back``)."""
    from gitstore.providers._verify_git import _PAYLOAD, changes  # what a check reads, loaded when one runs

    found = object_at(repo, tip)
    if isinstance(found, str):
        return Checked(0, found)
    if not isinstance(found, pygit2.Commit) or found.parent_ids:
        return Checked(0, "a payload snapshot must be a parentless commit" if isinstance(found, pygit2.Commit)
                       else f"points at a {found.type_str}, not a commit")
    old = _tree_of(repo, before)
    count, dropped, added = 0, set(), set()
    odb = Database(repo)
    try:
        for status, path, mode, oid in changes(odb, old, found.tree_id.raw):
            match = _PAYLOAD.match(path)
            if not match or match.group(2) + match.group(3) != match.group(4)[:4]:
                return Checked(count, one_line(f"{path} is at the wrong path"))  # a pushed name: one line
            if match.group(1):
                return Checked(count, f"holds the redaction note {path}: a removal travels in an append, "
                                      "with its audit entry, never in a payload snapshot")
            if status == "D":
                dropped.add("sha256:" + match.group(4))
                continue
            if mode != BLOB_MODE:
                return Checked(count, f"{path} is not a regular file")
            if sha256_digest(read_blob(odb, oid, MAX_PAYLOAD_BYTES)) != "sha256:" + match.group(4):
                return Checked(count, f"payload {path} does not match its digest")
            added.add("sha256:" + match.group(4))
            count += 1
    except Unreadable as exc:
        return Checked(count, str(exc))
    unexplained = removed(dropped) if dropped else set()
    back = taken(added) if added and taken is not None else set()
    return Checked(count, None, tuple(sorted(unexplained)), tuple(sorted(back)))


def kept_text(repo: pygit2.Repository, before: pygit2.Oid | None, tip: pygit2.Oid, owed: tuple[str, ...],
              back: tuple[str, ...] = ()) -> pygit2.Oid | None:
    """A snapshot holding every payload of ``tip`` but those ``back`` names (text a removal took,
    which it brings back) and, from ``before`` (the one admitted last), the ``owed`` ones ``tip``
    drops though no removal took them: where a clone reads a writer's text once someone with
    push access forced a snapshot without some of it, or with some it lost to a removal, and
    what the writer's next snapshot is checked against. Refusing the whole snapshot instead
    cut every later payload of the writer off for good (each next one drops the same text),
    while a runner that took the forced one up went on pushing. Only text this clone read already is
    added: nothing the snapshot brings is taken unchecked. The commit carries no time of its
    own, so the same two snapshots make the same one, and a sync that finds the remote's
    unchanged writes nothing new. None when it cannot be written (a read-only repository)."""
    from gitstore.providers._names import payload_path

    try:
        old = object_at(repo, before) if before is not None else None
        new = object_at(repo, tip)
        if not isinstance(new, pygit2.Commit) or (owed and not isinstance(old, pygit2.Commit)):
            return None
        kept = {payload_path(digest): old.tree[payload_path(digest)] for digest in owed} \
            if isinstance(old, pygit2.Commit) else {}
        entries: dict[str, tuple[pygit2.Oid, int] | None] = {payload_path(digest): None for digest in back}
        entries.update({path: (entry.id, entry.filemode) for path, entry in kept.items()})
        tree = _with_entries(repo, new.tree, entries)
        signature = pygit2.Signature(SIGNATURE_NAME, SIGNATURE_EMAIL, 0, 0)
        return repo.create_commit(None, signature, signature, "gitstore: payloads, text kept\n", tree, [])
    except (KeyError, pygit2.GitError, ValueError, OSError):
        return None


def _tree_of(repo: pygit2.Repository, commit: pygit2.Oid | None) -> bytes | None:
    """The raw tree id of an admitted snapshot (None when there is none to compare with)."""
    if commit is None:
        return None
    found = object_at(repo, commit)
    return found.tree_id.raw if isinstance(found, pygit2.Commit) else None


__all__ = ["ADMITTED", "ANCHORS", "Admission", "Admissions", "anchor_ref", "Checked",
           "check_snapshot", "Fork", "kept_text", "kept_text_line", "object_at", "parted_line", "parted_writer_line"]
