"""Where the git provider keeps things of its own, and running git on a git folder.

Everything of memory's that is not a shared ref lives under the repository's common git folder,
in ``gitstore/``: lock files, the log of acknowledged tips, scratch space for packs being
written, the journal of appends under way, and ``local/``, a bare repository holding the local
namespace. No push reaches a folder inside ``.git`` that is not the repository's own object
database or refs, so records kept there never leave the machine.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

import pygit2

from gitstore._gitconfig import TRANSPORT_VARIABLES, owner_unchecked
from gitstore._gitrefs import loose_refs, packed_under
from gitstore.errors import IntegrityError

LOCAL = "local"
SCRATCH = "tmp"
PENDING = "pending"
T = TypeVar("T")
STALE_LOCK_SECONDS = 5.0  # a ref lock git or libgit2 holds for a live process is gone long before


def common_dir(repo: pygit2.Repository) -> Path:
    """The git folder shared by every worktree of ``repo`` (``.git`` of a plain clone). Asked
    for once a ref by passes over every writer's refs: one ``stat`` where there is no marker,
    not path objects built and taken apart."""
    path = repo.path
    marker = os.path.join(path, "commondir")
    if os.path.isfile(marker):
        with open(marker, encoding="utf-8") as found:
            return (Path(path) / found.read().strip()).resolve()
    return Path(path)


def alternates(repo: pygit2.Repository) -> list[str]:
    """The object folders of other repositories ``repo`` reads objects from (git's
    ``objects/info/alternates``: a clone made with ``git clone --shared`` or ``--reference``),
    as absolute paths."""
    return alternates_of(common_dir(repo) / "objects")


def alternates_of(objects: Path) -> list[str]:
    """The object folders that object folder ``objects``'s ``info/alternates`` names (a path a
    line, relative to ``objects`` or absolute; blank lines, ``#`` comments and a line holding a
    NUL, which names no path, passed over), as absolute paths."""
    try:
        lines = (objects / "info" / "alternates").read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    except OSError:
        return []
    return [os.path.normpath(objects / line.strip()) for line in lines
            if line.strip() and not line.startswith("#") and "\0" not in line]


def state_dir(repo: pygit2.Repository) -> Path:
    """``<common git folder>/gitstore``, created when missing."""
    folder = common_dir(repo) / "gitstore"
    folder.mkdir(exist_ok=True)
    return folder


def open_local(repo: pygit2.Repository, *, create: bool) -> pygit2.Repository | None:
    """The bare repository of the local namespace (None when it does not exist and ``create``
    is false). It lies inside ``repo``'s git folder, which git already let this user work in
    (its owner, or ``safe.directory``), so it is opened without libgit2 checking its owner
    again: ``safe.directory`` names the work tree, never a folder inside ``.git``."""
    path = state_dir(repo) / LOCAL
    if (path / "HEAD").is_file():
        with owner_unchecked():
            return pygit2.Repository(str(path))
    if not create:
        return None
    with owner_unchecked():
        return pygit2.init_repository(str(path), bare=True)


# A loose ref file as git reads it: an object id (then the end, or a space and anything), or a
# symbolic ref. Anything else git lists as broken and leaves out, and so does ``ref_names``.
_LOOSE_REF = re.compile(rb"(?:[0-9a-fA-F]{40}(?:[0-9a-fA-F]{24})?(?:\s.*)?|ref: \S.*)", re.DOTALL)
_packed: dict[tuple[str, str], tuple[tuple[int, int, int, int], dict[str, bytes]]] = {}
_roots: dict[str, str] = {}  # a repository's git folder -> its common git folder


def ref_names(repo: pygit2.Repository, prefix: str) -> list[str]:
    """The names of ``repo``'s refs under ``prefix`` (such as ``refs/memory/v1/``), sorted, as
    git lists them: loose ones found by walking that folder only, packed ones by searching
    ``packed-refs`` for the prefix. Listing every ref of the repository, as libgit2's iterator
    does, costs an append tens of milliseconds in a repository holding tens of thousands of
    tags and branches; this costs what memory's own refs do. A loose file that does not hold a
    ref is left out, as git leaves it out, and so is a name git would refuse. Refs kept in
    another format than files (git's ``reftable``, which a later libgit2 may open) are
    listed by libgit2, all of them."""
    root = _common(repo)
    if os.path.isdir(os.path.join(root, "reftable")):  # ``git refs migrate`` may convert a repository in place
        return sorted(name for name in repo.references if name.startswith(prefix))
    listing = _listed(root, prefix)
    if listing.names is None:
        listing.names = sorted(name for name in listing.ids if _valid(name))
    return list(listing.names)


def ref_targets(repo: pygit2.Repository, prefix: str) -> dict[str, pygit2.Oid]:
    """Name -> object id of each ref ``ref_names`` lists under ``prefix`` that names an object
    (a symbolic one is left out), in name order (see ``ref_ids``)."""
    return {name: oid for name, oid in ref_ids(repo, prefix).items() if oid is not None}


def ref_ids(repo: pygit2.Repository, prefix: str) -> dict[str, pygit2.Oid | None]:
    """Name -> object id of each ref ``ref_names`` lists under ``prefix`` (None: a symbolic
    ref), in name order. The ids are those the listing reads (a loose file's, else the
    ``packed-refs`` line's, as git takes them), so a listing of every writer's ref costs no
    lookup of each again."""
    root = _common(repo)
    if os.path.isdir(os.path.join(root, "reftable")):
        targets = {name: repo.references[name].target for name in ref_names(repo, prefix)}
        return {name: target if isinstance(target, pygit2.Oid) else None for name, target in targets.items()}
    listing = _listed(root, prefix)
    if listing.oids is None:
        listing.oids = {name: pygit2.Oid(hex=hexid.decode("ascii")) if hexid is not None else None
                        for name, hexid in sorted(listing.ids.items()) if _valid(name)}
    return dict(listing.oids)


def odd_refs(repo: pygit2.Repository, prefix: str) -> dict[str, bytes | None]:
    """Name -> hexadecimal id (None: symbolic) of the refs under ``prefix`` that ``ref_names``
    leaves out for their name: git holds and fetches a ref whose name is not UTF-8 (any bytes
    but a few), which libgit2 cannot name, so no read sees it, while everything it points to
    stays reachable for git's gc and gitstore's. A name's bytes that are not UTF-8 come as
    lone surrogates (``surrogateescape``), which give git the bytes back. Refs kept in git's
    ``reftable``: none (libgit2 lists those it can name)."""
    root = _common(repo)
    if os.path.isdir(os.path.join(root, "reftable")):
        return {}
    return {name: hexid for name, hexid in sorted(_listed(root, prefix).ids.items()) if not _valid(name)}


class _Listing:
    """The refs under a prefix in the files of a common folder (``_listed``), and what was
    worked out of them."""

    __slots__ = ("stamps", "ids", "names", "oids")

    def __init__(self, stamps: tuple[tuple[str, tuple[int, int, int, int] | None], ...],
                 ids: dict[str, bytes | None]) -> None:
        self.stamps = stamps  # (path, its stamp taken before it was read) of each folder walked, then packed-refs
        self.ids = ids  # name -> hexadecimal id (None: symbolic), loose ones over packed ones
        self.names: list[str] | None = None  # see ref_names
        self.oids: dict[str, pygit2.Oid | None] | None = None  # see ref_ids


# Listings kept while ``listings_kept`` holds: (common folder, prefix) -> the listing, taken
# again once a folder it walked or ``packed-refs`` changed (None: none is kept)
_kept: dict[tuple[str, str], _Listing] | None = None
_kept_files: dict[str, tuple[tuple[int, int, int, int], Any]] | None = None  # see kept_parse
SETTLED_NS = 100_000_000  # how old a change must be before a listing that saw it is kept
SETTLED_WHOLE_NS = 3_000_000_000  # the same where a file system keeps times in whole seconds (or two)


@contextmanager
def listings_kept() -> Iterator[None]:
    """While this holds, a listing of the refs under a prefix (``ref_names``, ``ref_ids``,
    ``odd_refs``) is taken once and handed on to every later one, as long as nothing it
    read changed: every folder it walked and ``packed-refs`` are stat'ed again, and any
    difference (identity, size, modified or changed time) takes the listing again. git and
    libgit2 write a ref by renaming its lock file into place, which changes its folder's
    times; a deleted packed ref rewrites ``packed-refs``. A listing taken while a folder it
    read had changed within ``SETTLED_NS`` is not kept: a file system's clock moves in ticks,
    and a change in the same tick as the one seen would leave the times as they were. A
    sync holds it (its passes over every writer's refs: seven of them once read every loose
    ref file again); held already, it changes nothing."""
    global _kept, _kept_files
    if _kept is not None:
        yield
        return
    _kept, _kept_files = {}, {}
    try:
        yield
    finally:
        _kept = _kept_files = None


def kept_parse(path: str, parse: Callable[[bytes], T]) -> T:
    """``parse`` of the bytes of the file at ``path`` (OSError when it cannot be read). While
    ``listings_kept`` holds, what it made is handed on to every later call for that file as long
    as the file's stamp is the same (identity, size, times: a file written again, in place or by
    renaming another over it, changes them), except when the file had changed within
    ``SETTLED_NS`` (see ``listings_kept``). The value is shared: callers copy before changing it."""
    files = _kept_files
    if files is None:
        with open(path, "rb") as file:
            return parse(file.read())
    start = time.time_ns()
    stamp = _stamp(path)
    found = files.get(path)
    if found is not None and stamp is not None and found[0] == stamp:
        return cast(T, found[1])
    with open(path, "rb") as file:
        value = parse(file.read())
    if stamp is not None and _settled(((path, stamp),), start):
        files[path] = (stamp, value)
    return value


def _stamp(path: str) -> tuple[int, int, int, int] | None:
    """What tells that a folder's entries (or a file) changed: identity, size, times (None: not there)."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def _settled(stamps: tuple[tuple[str, tuple[int, int, int, int] | None], ...], start: int) -> bool:
    """Whether every change the stamps show was made long enough before ``start`` (the clock
    read before the first of them was taken) that a later one cannot leave them as they are."""
    for _, stamp in stamps:
        if stamp is None:
            continue
        whole = stamp[2] % 1_000_000_000 == 0 and stamp[3] % 1_000_000_000 == 0
        if max(stamp[2], stamp[3]) >= start - (SETTLED_WHOLE_NS if whole else SETTLED_NS):
            return False
    return True


def _unchanged(listing: _Listing) -> bool:
    """Whether nothing a kept listing read changed since (``listings_kept``)."""
    return all(_stamp(path) == stamp for path, stamp in listing.stamps)


def _listed(root: str, prefix: str) -> _Listing:
    """The refs under ``prefix`` in the files of the common folder ``root``, loose ones over
    packed ones, as git takes them (see ``ref_names``): kept while ``listings_kept`` holds,
    and taken again whenever what it read changed."""
    kept, key = _kept, (root, prefix)
    if kept is not None:
        # this prefix's own, else one kept for a prefix holding it, which has its refs too (the
        # folders it walked hold this one's); one that anything it read changed since goes
        for (under, wider) in sorted((k for k in list(kept) if k[0] == root and prefix.startswith(k[1])),
                                     key=lambda k: -len(k[1])):
            found = kept.get((under, wider))
            if found is None:
                continue
            if not _unchanged(found):
                kept.pop((under, wider), None)
            elif wider == prefix:
                return found
            else:
                listing = kept[key] = _Listing(found.stamps, {name: hexid for name, hexid in found.ids.items()
                                                              if name.startswith(prefix)})
                return listing
    start = time.time_ns()
    stamps: list[tuple[str, tuple[int, int, int, int] | None]] = []
    walked = None if kept is None else (lambda folder: stamps.append((folder, _stamp(folder))))
    # loose ones first, as git reads them: ``git pack-refs`` writes packed-refs before it
    # deletes the loose files, so a ref it moves is in one or the other, never in neither
    loose = _loose_ids(os.path.join(root, prefix), prefix, walked)
    packed = os.path.join(root, "packed-refs")
    if kept is not None:
        stamps.append((packed, _stamp(packed)))
    listing = _Listing(tuple(stamps), {**_packed_refs(packed, prefix), **loose})
    if kept is not None and _settled(listing.stamps, start):
        kept[key] = listing
    return listing


def may_nest(repo: pygit2.Repository, prefix: str) -> bool:
    """Whether a ref may stand more than one level below ``prefix``: a folder among its loose
    ones, or a packed one whose name holds a slash past it. Asked without reading a ref file,
    where ``ref_names`` reads every one: nearly always there is none (what a sync asks of the
    fetched writers' refs, on every run). Refs kept in git's ``reftable``: assumed so."""
    root = _common(repo)
    if os.path.isdir(os.path.join(root, "reftable")):
        return True
    try:
        with os.scandir(os.path.join(root, prefix)) as entries:
            if any(entry.is_dir(follow_symlinks=False) for entry in entries):
                return True
    except OSError:
        pass
    return any("/" in name[len(prefix):] for name in _packed_refs(os.path.join(root, "packed-refs"), prefix))


def complaint(stderr: str, code: int) -> str:
    """What git said went wrong: its first ``fatal:`` or ``error:`` line (the advice after it,
    such as "and the repository exists.", says nothing alone), else its last line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    said = next((line.split(":", 1)[1].strip() for line in lines if line.startswith(("fatal:", "error:"))), None)
    return said or (lines[-1] if lines else f"exit {code}")


_LOCK_IN_WAY = re.compile(r"Unable to create '([^']+\.lock)': File exists")


def lock_in_way(stderr: str) -> str | None:
    """Why git failed when a lock file was in the way, and what to do: another git process
    holds it, or a process killed while it held it left it (then running the command again
    alone never helps); None when git failed for another reason. ``packed-refs.lock`` is
    git's own (a ``git pack-refs`` or any deletion of a packed ref takes it): never removed
    by gitstore."""
    found = _LOCK_IN_WAY.search(stderr)
    if found is None:
        return None
    lock = found.group(1)
    said = complaint(stderr, 1).split("Unable to create", 1)[0].rstrip(": ")  # git's "cannot lock ref 'X'", if any
    said = f"{said}: " if said else ""
    if os.path.basename(lock) == "packed-refs.lock":
        return (f"{said}{lock} is held by another git process, or was left by one killed while it rewrote "
                "packed-refs (`gitstore doctor` names it): remove it once no git command runs in this repository")
    return (f"{said}{lock} is held by another git process, or was left by one killed while it held it: "
            f"a sync removes it once it is {STALE_LOCK_SECONDS:g} seconds old where it is memory's "
            f"(`gitstore doctor` names it), else remove it once no git command runs in this repository")


def clear_stale_lock(lock: Path) -> bool:
    """Remove the ref lock ``lock`` when it is older than ``STALE_LOCK_SECONDS``: a process
    moving a ref holds it for microseconds (git's ``fetch``, for its ref transaction: while the
    objects arrive it holds none), so one that old was left by a process killed while it held
    it, and blocks every later move of that ref. A younger one may be a live process's: it
    stays. Whether it is gone now (or was never there)."""
    try:
        if time.time() - lock.stat().st_mtime <= STALE_LOCK_SECONDS:
            return False
        lock.unlink()
    except FileNotFoundError:
        pass
    return True


def ref_locks(repo: pygit2.Repository, prefix: str) -> list[Path]:
    """The ref lock files (``<ref>.lock``) under the refs folder ``prefix``, sorted."""
    found: list[Path] = []
    for folder, _, files in os.walk(os.path.join(_common(repo), prefix)):
        found.extend(Path(folder, name) for name in files if name.endswith(".lock"))
    return sorted(found)


def stale_ref_locks(repo: pygit2.Repository, prefix: str) -> list[Path]:
    """The ref locks under ``prefix`` a killed process left (see ``clear_stale_lock``)."""
    now = time.time()
    stale = []
    for lock in ref_locks(repo, prefix):
        try:
            if now - lock.stat().st_mtime > STALE_LOCK_SECONDS:
                stale.append(lock)
        except FileNotFoundError:
            pass
    return stale


def clear_stale_ref_locks(repo: pygit2.Repository, prefixes: tuple[str, ...], wait: float = 0.0) -> list[Path]:
    """Remove the ref locks under ``prefixes`` a killed process left (``clear_stale_lock``),
    for a caller about to move refs there whom nothing else may move them for (a sync, under
    its lock). A younger one is waited on up to ``wait`` seconds (it goes with the live process
    that holds it, or turns stale and is removed); those still there are returned."""
    deadline = time.monotonic() + wait
    while True:
        left = [lock for prefix in prefixes for lock in ref_locks(repo, prefix) if not clear_stale_lock(lock)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


BROKEN_REF = "its file holds no object id: git and every read leave out the history it pointed to"


def broken_refs(repo: pygit2.Repository, prefix: str) -> list[str]:
    """The loose files under ``prefix`` that hold no ref (a truncated write, a damaged disk, a
    hand's edit), sorted: git and ``ref_names`` leave them out, and libgit2 refuses to read
    them, so what they pointed to is out of reach until one is mended."""
    return sorted(name for name, content in loose_refs(os.path.join(_common(repo), prefix), prefix)
                  if content is not None and not name.endswith(".lock") and not _LOOSE_REF.fullmatch(content))


def is_broken(repo: pygit2.Repository, name: str) -> bool:
    """Whether the ref ``name`` is a loose file that holds no ref (see ``broken_refs``)."""
    try:
        with open(os.path.join(_common(repo), name), "rb") as file:
            content = file.read(4096)
    except OSError:  # not there (or packed): nothing damaged to name
        return False
    return not _LOOSE_REF.fullmatch(content)


def _common(repo: pygit2.Repository) -> str:
    """``common_dir``, asked once per repository (a worktree's link to its common folder is
    made with the worktree)."""
    root = _roots.get(repo.path)
    if root is None:
        root = _roots[repo.path] = str(common_dir(repo))
    return root


def _loose_ids(folder: str, prefix: str, walked: Callable[[str], object] | None = None) -> dict[str, bytes | None]:
    """Name -> hexadecimal id of the loose refs under ``folder`` (whose names start ``prefix``);
    None for a symbolic one (``ref: NAME``). ``walked``: see ``loose_refs``."""
    found: dict[str, bytes | None] = {}
    for name, content in loose_refs(folder, prefix, walked=walked):
        # a ``.lock`` file is a ref being written: git renames it into place when done
        if content is not None and not name.endswith(".lock") and _LOOSE_REF.fullmatch(content):
            hexid = content.split(None, 1)[0]
            found[name] = hexid if len(hexid) == 40 else None
    return found


def _valid(name: str) -> bool:
    try:
        return pygit2.reference_is_valid_name(name)
    except (UnicodeError, ValueError):  # a name that is not UTF-8
        return False


def _packed_refs(path: str, prefix: str) -> dict[str, bytes]:
    """Name -> hexadecimal id of the refs under ``prefix`` that the ``packed-refs`` file at
    ``path`` holds, read again only when the file changed (git rewrites it whole and renames it
    into place; its identity, size and times tell, as they tell git and libgit2)."""
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return {}
    stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    kept = _packed.get((path, prefix))
    if kept is not None and kept[0] == stamp:
        return kept[1]
    try:
        with open(path, "rb") as packed:
            data = packed.read()
    except FileNotFoundError:
        return {}
    refs = {name.decode("utf-8", "surrogateescape"): oid for oid, name in packed_under(data, prefix)}
    _packed[(path, prefix)] = (stamp, refs)
    return refs


def git_env() -> dict[str, str]:
    """The environment without the ``GIT_*`` variables git exports into hooks (which would
    point git at another repository), keeping configuration ones and those choosing how git
    reaches a remote (``TRANSPORT_VARIABLES``: a person's ssh key for the team's remote, the
    program that asks for their password, their certificates); and with replace refs off:
    a ``git replace --graft`` must not hide a commit's real parents from what gitstore reads,
    verifies or keeps (gc would erase the history it cut off), as git's own prune turns them
    off."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GIT_") or k.startswith("GIT_CONFIG") or k in TRANSPORT_VARIABLES}
    env["GIT_NO_REPLACE_OBJECTS"] = "1"
    return env


def run_git(git_dir: Path, *args: str, data: bytes | None = None) -> bytes:
    """Run ``git --git-dir=<git_dir> ARGS``; its standard output, or IntegrityError naming the
    command and git's last line of complaint."""
    import subprocess  # loaded when git is run: a capture stores its records without it

    done = subprocess.run(["git", f"--git-dir={git_dir}", *args], input=data, env=git_env(),
                          capture_output=True)
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["(nothing)"]
        raise IntegrityError(f"git {' '.join(args[:3])} in {git_dir} failed: {said[0]}")
    return done.stdout
