"""gc for the git provider: erase exactly the objects memory let go of, and nothing else.

``git gc --prune=now`` after ``git reflog expire --all`` would erase removed text too, but it
takes the user's recovery data with it: every reflog entry, every stash but the newest, every
reset-away commit and every dangling object ``gc.pruneExpire`` still protects. Here, in each
repository memory writes to (the repository itself, and the local namespace's own one):

1. reflogs of refs under ``refs/memory/`` are emptied (only those: they are memory's own);
2. what git itself counts as reachable is listed: ``git rev-list --objects --all --reflog
   --indexed-objects`` (every ref, HEAD and index of every worktree, every reflog, stashes);
3. of the objects in the repository's own object folder that are not reachable, memory's are
   the ones reachable from a commit gitstore wrote (author and committer
   ``gitstore <gitstore@localhost>``, message ``gitstore: ...``, and a tree of nothing but
   record kind folders, ``notes`` and a payload snapshot's ``aa`` folders: a user's commit
   given that identity holds the user's files) or from a tree an append named
   in its journal before it was killed, within the unreachable objects. Records commits this
   clone acknowledged are never among them: a ref moved back past one is damage ``verify``
   reports, and gc keeps the evidence; nor is the history of a fetched tip admitted last
   (``_admit``), which a pruning ``git fetch`` may have left unreachable: the next sync puts
   its ref back;
4. whatever any other unreachable object refers to (a user's dangling commit or tree) is kept;
5. the rest is erased: loose files unlinked, each pack holding some of it written again
   without them (``git pack-objects`` with the objects that stay, keeping the pack's time so
   git's own expiry of unreachable objects in it is unchanged), then the multi-pack index
   (and its bitmap) written again without the old packs while their files are still there
   (``--stdin-packs``), and the commit graph, when present; only then do the old packs go,
   and the server info that named them is written again: at no moment does one of git's
   indexes name a pack file already gone.

Before step 2 the refs ``git maintenance run --task=prefetch`` made of memory's refspecs (under
``refs/prefetch/memory/``) are deleted: a cache git makes again, which kept the payload
snapshots memory let go reachable (``drop_prefetched``).

Nothing git can reach, and no unreachable object of anyone else, is touched; nor is a pack
with a ``.keep`` file (git keeps the pack a fetch receives so until the fetch has moved its
refs: its objects are unreachable until then). A small fetch unpacks its objects loose
instead, and a gc run in that moment could erase them: run gc while no plain ``git fetch`` of
memory's refs is under way (``gitstore sync`` and appends wait for it). Scratch packs and
journals left by killed appends go too. A pack written again is named in a journal of gc's own
(``gc-dropping``) before its old files go, its index first: a gc killed meanwhile leaves some
of them, and the next gc removes exactly those, the multi-pack index written without them
first, and writes the multi-pack index, commit graph and server info again (the killed one may
have stopped before it did).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Iterable, Mapping, Set as AbstractSet
from pathlib import Path

import pygit2

from gitstore.errors import IntegrityError
from gitstore.providers._admit import Admissions
from gitstore.providers._gitdirs import PENDING, SCRATCH, common_dir, open_local, ref_names, ref_targets, run_git
from gitstore.providers._kindmaps import FOLDER as KIND_MAPS
from gitstore.providers._kindmaps import TEMPORARY
from gitstore.providers._names import PREFIX
from gitstore.providers._objects import MAX_PAYLOAD_BYTES, pack_ids
from gitstore.records.contracts import KINDS
from gitstore.providers._tips import acknowledged, logged_refs

_HEX = re.compile(r"^[0-9a-f]{40}\Z")
_PACK_SIDECARS = (".idx", ".pack", ".rev", ".bitmap", ".mtimes", ".keep", ".promisor")  # the index first: a
# pack without it is not read, an index without its pack fails a reader
DROPPING = "gc-dropping"  # in the state folder: the old packs a gc is removing, one per line
SIGNATURE = b"gitstore <gitstore@localhost>"
PREFETCHED = "refs/prefetch/memory/"  # what git's prefetch makes of memory's refspecs (refs/ -> refs/prefetch/)


def collect(shared: pygit2.Repository, state: Path, removed: Mapping[str, AbstractSet[str]] | None = None) -> int:
    """Erase memory's unreachable objects from every repository it writes to (``shared``, and
    the local namespace's beside it), ``state`` being the provider's state folder; the caller
    holds every append back. ``removed``: namespace -> the payload digests a note kept there
    removes, whose text goes wherever it is unreachable (``Collector``). Returns how many
    objects and leftover files went."""
    pending = _journaled(state / PENDING)
    resumed = (state / DROPPING).exists()  # a gc killed once it began removing packs
    erased = _dropped(state / DROPPING)
    local = open_local(shared, create=False)
    admitted = {str(tip) for tip in Admissions(state).bases(PREFIX + "remotes/").values()}
    for repo, namespace in [(shared, "shared"), *([(local, "local")] if local is not None else [])]:
        collector = Collector(repo, pending, _acknowledged(state, namespace), state / DROPPING,
                              held=admitted if namespace == "shared" else set(),
                              removed=(removed or {}).get(namespace, frozenset()))
        erased += collector.run()
        if resumed and not collector.erased:  # what it killed gc had not written again yet
            collector.write_indexes(packs=True, commits=True)
    (state / DROPPING).unlink(missing_ok=True)
    for folder in (state / SCRATCH, state / PENDING):
        if folder.is_dir():
            erased += sum(1 for _ in folder.iterdir())
            shutil.rmtree(folder)
    for leftover in (state / KIND_MAPS).glob(f"{TEMPORARY}*"):  # a read killed while keeping a map
        leftover.unlink(missing_ok=True)
        erased += 1
    return erased


def collect_purged(shared: pygit2.Repository, state: Path) -> int:
    """After purge deleted every memory ref: erase what memory wrote to ``shared`` and nothing
    reaches any more, acknowledged records commits with it (no ref is left for them to be
    evidence about). The local namespace's repository goes whole with ``state``. Returns how
    many objects went."""
    erased = _dropped(state / DROPPING)
    erased += Collector(shared, _journaled(state / PENDING), set(), state / DROPPING).run()
    (state / DROPPING).unlink(missing_ok=True)
    return erased


def drop_prefetched(repo: pygit2.Repository) -> list[str]:
    """Delete the refs ``git maintenance run --task=prefetch`` made of memory's refspecs (hourly
    under ``git maintenance start``, and under Scalar): it fetches each remote's refspecs into
    ``refs/prefetch/``, memory's included, so those refs kept every payload snapshot they were
    at reachable, text a redaction removed with it. They are a cache git makes again at its next
    prefetch (from the remote's snapshots as they are then), and nothing reads them. Returns
    their names."""
    names = ref_names(repo, PREFETCHED)
    if names:
        run_git(common_dir(repo), "update-ref", "--stdin",
                data="".join(f"delete {name}\n" for name in names).encode())
    return names


def prefetched_let_go(repo: pygit2.Repository) -> list[str]:
    """The payload snapshots git's prefetch keeps under ``PREFETCHED`` that no memory ref is at:
    ones memory let go, which may hold text a redaction removed (``gitstore gc`` deletes them)."""
    held = {oid for oid in ref_targets(repo, "refs/memory/").values()}
    return [name for name, oid in ref_targets(repo, PREFETCHED).items()
            if "/payloads/" in name and oid not in held]


def _acknowledged(state: Path, namespace: str) -> set[str]:
    """Every records commit this clone acknowledged in one namespace (its tips logs)."""
    found: set[str] = set()
    for ref in logged_refs(state):
        if ref.startswith(f"{PREFIX}records/{namespace}/"):
            found.update(acknowledged(state, ref))
    return found


def _dropped(journal: Path) -> int:
    """Remove what is left of the packs a killed gc was removing, each pack folder's
    multi-pack index written again without them first (the gc may have been killed before it
    did); returns how many files went."""
    try:
        bases = [Path(line) for line in journal.read_text(encoding="utf-8").splitlines() if line]
    except FileNotFoundError:
        return 0
    erased = 0
    for folder in sorted({base.parent for base in bases}):
        bitmap = any(folder.glob("multi-pack-index-*.bitmap"))
        written = _unindex(folder.parent.parent, folder, {str(base) for base in bases})
        erased += _remove_packs(base for base in bases if base.parent == folder)
        if not written:
            run_git(folder.parent.parent, "multi-pack-index", "write", *(["--bitmap"] if bitmap else []))
    journal.unlink()
    return erased


def _journaled(folder: Path) -> set[str]:
    """The object ids named by journals of appends that never finished."""
    found: set[str] = set()
    if folder.is_dir():
        for path in folder.iterdir():
            found.update(line for line in path.read_text(encoding="ascii", errors="replace").split()
                         if _HEX.match(line))
    return found


class Collector:
    """One repository's collection (see the module docstring)."""

    def __init__(self, repo: pygit2.Repository, pending: set[str], keep: set[str], dropping: Path,
                 held: frozenset[str] | set[str] = frozenset(), removed: AbstractSet[str] = frozenset()) -> None:
        self.repo = repo
        self.removed = {digest.removeprefix("sha256:") for digest in removed}  # text a removal took
        self.held = held  # fetched tips admitted last: kept with their history, their refs gone or not
        self.dropping = dropping
        self.git_dir = common_dir(repo)
        self.objects_dir = self.git_dir / "objects"
        self.pending = pending
        self.keep = keep
        self.erased = False  # whether run erased anything (and wrote the indexes again)
        self.sizes: dict[str, int] = {}  # oid -> size in bytes, of the objects ``_types`` read

    def run(self) -> int:
        self._expire_memory_reflogs()
        places = self._own_objects()
        reachable = self._reachable()
        unreachable = {oid for oid in places if oid not in reachable}
        if not unreachable:
            return 0
        types = self._types(unreachable)
        roots = {oid for oid in unreachable if types.get(oid) == "commit" and oid not in self.keep
                 and self._is_memory_commit(oid)}
        roots |= self.pending & unreachable
        memory = self._closure(roots, unreachable)
        others = [oid for oid in unreachable if oid not in memory and types.get(oid) in ("commit", "tree", "tag")]
        garbage = memory - self._closure({*others, *(self.held & unreachable)}, unreachable)
        garbage |= self._removed_text(unreachable, types)
        if not garbage:
            return 0
        self._erase(garbage, places, any(types.get(oid) == "commit" for oid in garbage))
        self.erased = True
        return len(garbage)

    # -- what is there, and what git can reach -------------------------------------------------

    def _expire_memory_reflogs(self) -> None:
        logs = self.git_dir / "logs" / "refs" / "memory"
        if not logs.is_dir():
            return
        refs = sorted("refs/memory/" + path.relative_to(logs).as_posix() for path in logs.rglob("*") if path.is_file())
        if refs:
            run_git(self.git_dir, "reflog", "expire", "--expire=all", "--expire-unreachable=all", *refs)

    def _own_objects(self) -> dict[str, list[Path]]:
        """Every object in this repository's own object folder (not its alternates): id -> the
        loose files and pack indexes holding it."""
        places: dict[str, list[Path]] = {}
        for folder in self.objects_dir.glob("[0-9a-f][0-9a-f]"):
            for path in folder.iterdir():
                oid = folder.name + path.name
                if _HEX.match(oid):
                    places.setdefault(oid, []).append(path)
        for index in (self.objects_dir / "pack").glob("pack-*.idx"):
            if index.with_suffix(".keep").exists():  # git's to keep: a fetch keeps its pack so until its refs move
                continue
            for raw in pack_ids(index):
                places.setdefault(raw.hex(), []).append(index)
        return places

    def _reachable(self) -> set[str]:
        out = run_git(self.git_dir, "rev-list", "--objects", "--all", "--reflog", "--indexed-objects")
        return {line[:40].decode() for line in out.splitlines() if len(line) >= 40}

    def _types(self, oids: Iterable[str]) -> dict[str, str]:
        """oid -> its type, and each one's size kept in ``sizes`` (one ``cat-file`` for both)."""
        data = "".join(f"{oid}\n" for oid in oids).encode()
        out = run_git(self.git_dir, "cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)", data=data)
        types: dict[str, str] = {}
        for line in out.splitlines():
            fields = line.decode().split(" ")
            if len(fields) == 3 and fields[2].isdigit():
                types[fields[0]], self.sizes[fields[0]] = fields[1], int(fields[2])
        return types

    def _removed_text(self, unreachable: set[str], types: dict[str, str]) -> set[str]:
        """The unreachable blobs holding text a note removes (their bytes hash to its payload
        digest), and the unreachable payload snapshots that hold one (folders laid out as a
        snapshot's, and the commits of those), whoever made them: someone with push access who
        forces a writer's snapshot back to one holding the text, under a name of their own,
        leaves such a commit once a sync lets it go, and it is memory's removed text, which
        must not outlive gc because something nobody reaches names it. A user's tree or commit
        that holds such bytes (a dropped stash) stays, without them: git reads no object of an
        unreachable one. Any note counts, honoured or not: what nothing reaches nobody reads,
        and a removal this clone does not honour may be one the team does. Objects git reaches
        are never among them: a read hides text a removal took, and the snapshot a ref is at is
        written again without it."""
        if not self.removed:
            return set()
        odb = self.repo.odb
        found = {oid for oid in unreachable
                 if types.get(oid) == "blob" and self.sizes.get(oid, 0) <= MAX_PAYLOAD_BYTES
                 and hashlib.sha256(odb.read(pygit2.Oid(hex=oid))[1]).hexdigest() in self.removed}
        if not found:
            return found
        holders: dict[str, list[str]] = {}  # object -> the unreachable snapshot folders and commits naming it
        for oid in unreachable:
            if types.get(oid) in ("commit", "tree"):
                kind, data = odb.read(pygit2.Oid(hex=oid))
                if kind == pygit2.GIT_OBJECT_TREE and not _snapshot_shaped(data):
                    continue  # a user's tree (a dropped stash's) stays: only the text in it goes
                named = list(_children(odb, kind, data))
                for child in named[:1] if kind == pygit2.GIT_OBJECT_COMMIT else named:  # a commit: its tree
                    holders.setdefault(child, []).append(oid)
        todo = list(found)
        while todo:
            for holder in holders.get(todo.pop(), ()):
                if holder not in found and holder not in self.keep:
                    found.add(holder)
                    todo.append(holder)
        return found

    def _is_memory_commit(self, oid: str) -> bool:
        """Whether a commit is memory's: gitstore's author, committer and subject, and a tree
        laid out as memory's trees are (``_memory_shaped``). The first three are anyone's to
        give a commit (a copied script, ``git -c user.email=...``): a user's commit with them
        holds the user's files, which gc must not take."""
        odb = self.repo.odb
        found, data = odb.read(pygit2.Oid(hex=oid))
        head, _, message = data.partition(b"\n\n")
        lines = head.split(b"\n")
        if not (any(line.startswith(b"committer " + SIGNATURE) for line in lines)
                and any(line.startswith(b"author " + SIGNATURE) for line in lines)
                and message.startswith(b"gitstore: ")):
            return False
        tree = next((line[5:45].decode() for line in lines if line.startswith(b"tree ")), "")
        try:
            kind, raw = odb.read(pygit2.Oid(hex=tree))
        except (KeyError, ValueError):
            return False  # nothing shows it is memory's: kept
        return kind == pygit2.GIT_OBJECT_TREE and _memory_shaped(raw)

    def _closure(self, roots: set[str], within: set[str]) -> set[str]:
        """``roots`` and every object they refer to, directly or not, among ``within``."""
        seen = set(roots)
        todo = list(roots)
        odb = self.repo.odb
        while todo:
            oid = todo.pop()
            try:
                kind, data = odb.read(pygit2.Oid(hex=oid))
            except KeyError:
                continue
            for child in _children(odb, kind, data):
                if child in within and child not in seen and child not in self.keep:
                    seen.add(child)
                    todo.append(child)
        return seen

    # -- erasing -------------------------------------------------------------------------------

    def _erase(self, garbage: set[str], places: dict[str, list[Path]], commits: bool) -> None:
        packs: set[Path] = set()
        for oid in garbage:
            for place in places[oid]:
                if place.suffix == ".idx":
                    packs.add(place)
                else:
                    place.unlink(missing_ok=True)
        going = [base for index in sorted(packs) if (base := self._rewrite_pack(index, garbage)) is not None]
        self.write_indexes(packs=bool(packs), commits=commits, going=going)

    def write_indexes(self, *, packs: bool, commits: bool, going: list[Path] | None = None) -> None:
        """Write again, where the repository has them, what names packs (the multi-pack index,
        the server info) when ``packs`` changed, and the commit graph when ``commits`` went;
        the old packs ``going`` (journaled, their files still there) are removed once the
        multi-pack index no longer names them and the commit graph names only commits that
        stay: at no moment does an index name a pack file already gone (``git fsck`` and reads
        of the objects it lists fail while one does)."""
        info, folder = self.objects_dir / "info", self.objects_dir / "pack"
        rewrite = packs and (folder / "multi-pack-index").exists()
        bitmap = any(folder.glob("multi-pack-index-*.bitmap"))
        if rewrite and _unindex(self.git_dir, folder, {str(base) for base in going or ()}):
            rewrite = False
        if commits and (info / "commit-graphs").is_dir():  # it names only reachable commits: none of those going
            run_git(self.git_dir, "commit-graph", "write", "--reachable", "--split=replace")
        elif commits and (info / "commit-graph").exists():
            run_git(self.git_dir, "commit-graph", "write", "--reachable")
        _remove_packs(going or ())
        if rewrite:  # git could not leave the old packs out of an index while they were there: written now
            run_git(self.git_dir, "multi-pack-index", "write", *(["--bitmap"] if bitmap else []))
        if packs and (info / "packs").exists():
            run_git(self.git_dir, "update-server-info")

    def _rewrite_pack(self, index: Path, garbage: set[str]) -> Path | None:
        """Write the pack of ``index`` again without ``garbage``, with the old pack's time, and
        journal the old one; returns its base (its files go once no index names it), None when
        it stays as it is."""
        stays = [raw.hex() for raw in pack_ids(index) if raw.hex() not in garbage]
        base = index.with_suffix("")
        old = base.with_suffix(".pack")
        stamp = old.stat().st_mtime if old.exists() else None
        if stays:
            name = run_git(self.git_dir, "pack-objects", "--quiet", str(base.parent / "pack"),
                           data="".join(f"{oid}\n" for oid in stays).encode()).decode().strip()
            new = base.parent / f"pack-{name}"
            for marker in (".keep", ".promisor"):
                if base.with_suffix(marker).exists():
                    new.with_suffix(marker).touch()
            if stamp is not None:
                for suffix in (".pack", ".idx"):
                    os.utime(new.with_suffix(suffix), (stamp, stamp))
            if new == base:
                return None
        with open(self.dropping, "a", encoding="utf-8") as journal:
            journal.write(f"{base}\n")
            journal.flush()
            os.fsync(journal.fileno())
        return base


def _unindex(git_dir: Path, folder: Path, going: set[str]) -> bool:
    """Write the multi-pack index of the pack folder ``folder`` again naming every pack there
    but those of ``going`` (bases; their files still there, their objects that stay in other
    packs), with a bitmap when it had one. Without ``--stdin-packs`` git carries every pack
    the old index names into the new one, gone or not. True when it was written (or there is
    none); when git could not write it, the old index and its bitmap and reverse index are
    removed (readers look in the packs meanwhile) and False says one is still to be written."""
    midx = folder / "multi-pack-index"
    if not midx.exists():
        return True
    bitmaps = list(folder.glob("multi-pack-index-*.bitmap"))
    stays = sorted(index.name for index in folder.glob("pack-*.idx") if str(index.with_suffix("")) not in going)
    try:
        run_git(git_dir, "multi-pack-index", "write", "--stdin-packs", *(["--bitmap"] if bitmaps else []),
                data="".join(f"{name}\n" for name in stays).encode())
        return True
    except IntegrityError:
        for old in [midx, *bitmaps, *folder.glob("multi-pack-index-*.rev")]:
            old.unlink(missing_ok=True)
        return False


def _remove_packs(bases: Iterable[Path]) -> int:
    """Remove the files of the packs ``bases``, the index first; returns how many went."""
    erased = 0
    for base in bases:
        for suffix in _PACK_SIDECARS:
            path = base.with_suffix(suffix)
            if path.exists():
                path.unlink()
                erased += 1
    return erased


def _children(odb: pygit2.Odb, kind: int, data: bytes) -> Iterable[str]:
    """The ids an object refers to (a tree's gitlinks name commits elsewhere: left out)."""
    if kind == pygit2.GIT_OBJECT_COMMIT:
        head = data.partition(b"\n\n")[0]
        return [line[7:47].decode() if line.startswith(b"parent ") else line[5:45].decode()
                for line in head.split(b"\n") if line.startswith((b"tree ", b"parent "))]
    if kind == pygit2.GIT_OBJECT_TREE:
        return [oid.hex() for mode, _, oid in _entries(data) if mode != b"160000"]
    if kind == pygit2.GIT_OBJECT_TAG:
        first = data.split(b"\n", 1)[0]
        return [first[7:47].decode()] if first.startswith(b"object ") else []
    return []


_ENTRY = re.compile(rb"([0-7]{5,6}) ([^\0]+)\0(.{20})", re.DOTALL)
_SNAPSHOT_ENTRY = re.compile(rb"40000 [0-9a-f]{2}|100644 [0-9a-f]{64}\.json")


_MEMORY_FOLDER = re.compile(rb"40000 (?:[0-9a-f]{2}|notes|" + b"|".join(kind.encode() for kind in KINDS) + rb")")


def _memory_shaped(data: bytes) -> bool:
    """Whether a commit's tree is laid out as memory's are: nothing but folders, each a record
    kind's (a records tree), ``notes`` or a payload snapshot's first folder (``aa``); an empty
    tree is an empty snapshot's."""
    return all(_MEMORY_FOLDER.fullmatch(mode + b" " + name) for mode, name, _ in _entries(data))


def _snapshot_shaped(data: bytes) -> bool:
    """Whether a tree's entries are laid out as a payload snapshot's folders (``aa/bb/<digest>.json``)."""
    entries = _entries(data)
    return bool(entries) and all(_SNAPSHOT_ENTRY.fullmatch(mode + b" " + name) for mode, name, _ in entries)


def _entries(data: bytes) -> list[tuple[bytes, bytes, bytes]]:
    return _ENTRY.findall(data)
