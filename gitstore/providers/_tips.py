"""What this clone acknowledged on its own refs, and what became of it.

Once an append's ref has moved, its commit id is added to the ref's tips log in the provider's
state folder (``.git/gitstore/<kind>-<namespace>-<writer>.tips``, one id per line, only ever
appended). A ref moved back past an acknowledged append, or deleted, is damage that every
command names, never a smaller store; gc keeps every acknowledged commit.

Which appends on the ref are this clone's own is its made log's to say (``.made`` beside it):
before the ref moves, the move goes there (``FROM TO``, the tip it moves from and the commit it
moves to; an append's covers its one commit, taking a writer's history up covers all of it).
A read in another process that finds the ref moved finds the move named too. Appends another
clone made under this writer's id, which a plain fetch into this clone's own names moved the
ref on to, are in no move of this clone's: never its own, before its next append or after it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

import pygit2

from gitstore.errors import IntegrityError
from gitstore.providers._base import NAMESPACES
from gitstore.providers._gitdirs import common_dir, open_local, ref_names, state_dir
from gitstore.providers._names import PREFIX

LOST = "this clone acknowledged appends on it, and the ref is gone (deleted)"


def tips_log(folder: Path, ref: str) -> Path:
    """Where a writer ref's acknowledged tips are logged (one commit id per line); ``folder`` is
    the provider's state folder (``.git/gitstore``)."""
    return folder / (ref[len(PREFIX):].replace("/", "-") + ".tips")


def acknowledged(folder: Path, ref: str) -> list[str]:
    """Every tip this clone acknowledged for one of its own refs, oldest first. A log holding
    anything but commit ids, one a line, is damage (``IntegrityError``), never fewer tips."""
    path = tips_log(folder, ref)
    if not path.exists():
        return []
    return [line.decode() for line in _ids(path, ref, path.read_bytes())]


def last_acknowledged(folder: Path, ref: str) -> pygit2.Oid | None:
    """The last tip this clone acknowledged for one of its own refs (its log's last lines are
    read, and checked as ``acknowledged`` checks the whole log)."""
    path = tips_log(folder, ref)
    if not path.exists():
        return None
    with open(path, "rb") as log:
        start = max(0, path.stat().st_size - 164)
        log.seek(start)
        data = log.read()
    lines = _ids(path, ref, data.split(b"\n", 1)[1] if start else data)  # the first line read may be cut
    return pygit2.Oid(hex=lines[-1].decode()) if lines else None


_ID = re.compile(rb"[0-9a-f]{40}")
_MOVE = re.compile(rb"([0-9a-f]{40}) ([0-9a-f]{40})")
ROOT = "0" * 40
"""A move's FROM when it covers the whole history up to its TO."""


def made_log(folder: Path, ref: str) -> Path:
    """Where the moves this clone made of one of its writer refs are logged (``FROM TO`` a line,
    written before the ref moves; an attempt whose ref moved meanwhile is there too, on no
    history)."""
    return tips_log(folder, ref).with_suffix(".made")


def note_made(folder: Path, ref: str, before: pygit2.Oid | str | None, after: pygit2.Oid | str) -> None:
    """Log a move of ``ref`` from ``before`` (None: the whole history up to ``after`` is this
    clone's) to ``after``, before the ref moves. A clone that logged no move yet but
    acknowledged appends (it wrote before moves were logged) logs them first, as its own up to
    the last it acknowledged."""
    path = made_log(folder, ref)
    lines = []
    try:
        with open(path, "rb") as log:  # a line a killed write left unended: the next starts on a line of its own
            if log.seek(0, 2) and (log.seek(-1, 2), log.read(1))[1] != b"\n":
                lines.append("\n")
    except FileNotFoundError:
        if (acked := last_acknowledged(folder, ref)) is not None:
            lines.append(f"{ROOT} {acked}\n")
    except OSError as exc:
        raise _unreadable(path, ref, exc) from None
    lines.append(f"{before or ROOT} {after}\n")
    try:
        with open(path, "a", encoding="ascii") as log:
            log.write("".join(lines))
    except OSError as exc:
        raise IntegrityError(f"{path}: cannot be written ({exc.strerror or exc}), so this clone cannot log which "
                             f"appends on {ref} are its own") from None


def never_logged(folder: Path, ref: str) -> bool:
    """Whether this clone never logged a move of ``ref`` nor acknowledged an append on it: only
    then may it take a history it finds under that name up as its own (``take_up``). A missing
    or moved ref of one it logged is damage every command names, never a history to take up."""
    return not made_log(folder, ref).exists() and not tips_log(folder, ref).exists()


def take_up(folder: Path, ref: str, tip: pygit2.Oid) -> bool:
    """Log ``ref``'s history up to ``tip`` as this clone's own (a move covering all of it, and
    ``tip`` acknowledged) when ``never_logged``: a clone given by name the id of a writer whose
    history it found (the memory workflow's runner, a person's second checkout). False, with
    nothing logged, otherwise."""
    if not never_logged(folder, ref):
        return False
    note_made(folder, ref, None, tip)
    with open(tips_log(folder, ref), "a", encoding="ascii") as log:
        log.write(f"{tip}\n")
    return True


def _unreadable(path: Path, ref: str, exc: OSError) -> IntegrityError:
    """The damage of a made log that cannot be read: it alone says which appends on ``ref`` are
    this clone's, so it is put back, never deleted (without it, the tips log's last append
    would decide, whoever made the appends before it)."""
    return IntegrityError(f"{path}: cannot be read ({exc.strerror or exc}), and it alone says which appends on {ref} "
                          "are this clone's own: put it back from a backup (deleting it would make this clone take "
                          "every append up to the last it acknowledged for its own, whoever made them)")


def made_here(folder: Path, ref: str, history: list[pygit2.Oid]) -> list[bool]:
    """For each commit of ``ref``'s ``history`` (oldest first), whether a move this clone made
    covers it: one from a commit of the history (or from the root) up to it. Read after the
    ref: a move that put the ref where the read found it was logged before. A line being
    written, or anything but a move, is left out: what the log does not name is never taken
    for this clone's."""
    own = [False] * len(history)
    path = made_log(folder, ref)
    try:
        data = path.read_bytes()
    except FileNotFoundError:  # none logged yet: a clone that wrote before moves were logged owns what it acknowledged
        try:
            acked = last_acknowledged(folder, ref)
        except IntegrityError:  # reads name the damage
            return own
        data = f"{ROOT} {acked}\n".encode() if acked is not None else b""
    except OSError as exc:
        raise _unreadable(path, ref, exc) from None
    at = {str(oid): index for index, oid in enumerate(history)}
    for line in data.split(b"\n")[:-1]:  # the last is unended: being written
        move = _MOVE.fullmatch(line)
        if move is None:
            continue
        end = at.get(move.group(2).decode())
        if end is None:
            continue
        start = -1 if move.group(1) == ROOT.encode() else at.get(move.group(1).decode(), len(history))
        for index in range(start + 1, end + 1):
            own[index] = True
    return own


def _ids(path: Path, ref: str, data: bytes) -> list[bytes]:
    """The commit ids of the tips log ``path`` of ``ref`` (its bytes ``data``), each ended by a
    newline; ``IntegrityError`` naming the file when a line is anything else."""
    lines = data.split(b"\n")
    if lines[-1] or not all(_ID.fullmatch(line) for line in lines[:-1]):
        raise IntegrityError(
            f"{path}: holds a line that is no commit id, so this clone's log of the appends it acknowledged on {ref} "
            "is damaged and a ref moved back past one cannot be told: put the file back from a backup, or delete "
            f"it to take {ref} as it stands now (keep the .made file beside it: it says which appends are this "
            "clone's own)")
    return lines[:-1]


_UNREAD = pygit2.Oid(raw=b"\0" * 20)


def rewound(repo: pygit2.Repository, folder: Path, ref: str, tip: pygit2.Oid | None,
            acked: pygit2.Oid | None = _UNREAD) -> str | None:
    """Why ``ref`` no longer contains the last append acknowledged on it, or None. ``acked``:
    that append as read from its log before ``tip`` was read (read now when not given: then
    the caller holds the writer lock, so no append lands in between)."""
    if acked == _UNREAD:
        acked = last_acknowledged(folder, ref)
    if acked is None or tip == acked:
        return None
    try:
        if tip is not None and acked in repo and repo.descendant_of(tip, acked):
            return None
    except (pygit2.GitError, ValueError) as exc:
        return f"cannot tell whether acknowledged append {acked} is still in its history ({exc})"
    return f"acknowledged append {acked} is no longer in its history (the ref was moved back)"


def wrote_as(folder: Path, writer: str, current: str) -> bool:
    """Whether this clone writes or wrote as ``writer``: its writer now (``current``), or one it
    logged a move or acknowledged appends as (a made or tips log names a ref of it: a former id
    after ``init --new-writer``, a linked work tree's writer, whose logs share the common git
    folder's state folder ``folder``). A ref of any other writer in this clone's own names came from elsewhere
    (a plain fetch into ``refs/memory/``): its appends are never this clone's own."""
    return writer == current or any(not never_logged(folder, f"{PREFIX}records/{ns}/{writer}") for ns in NAMESPACES)


def foreign_refs(repo: pygit2.Repository, folder: Path, current: str) -> list[str]:
    """The shared records refs in this clone's own names (``refs/memory/v1/records/shared/``) of
    writers it never wrote as (``wrote_as``): another writer's memory a plain fetch put there
    (a local namespace's: ``stray_local_refs``)."""
    prefix = f"{PREFIX}records/"
    found = []
    for ref in ref_names(repo, prefix):
        parts = ref[len(prefix):].split("/")
        if len(parts) == 2 and parts[0] == "shared" and not wrote_as(folder, parts[1], current):
            found.append(ref)
    return sorted(found)


def unmade(repo: pygit2.Repository, folder: Path, current: str) -> list[tuple[str, int]]:
    """This clone's own shared records refs (of writers it writes or wrote as) holding appends
    no move of its covers (``made_here``), with how many: another clone made them under the
    writer's id, and a plain fetch into this clone's own names moved the ref on to them."""
    prefix = f"{PREFIX}records/shared/"
    found = []
    for ref in ref_names(repo, prefix):
        writer = ref[len(prefix):]
        if "/" in writer or not wrote_as(folder, writer, current):
            continue
        try:
            walker = repo.walk(repo.references[ref].peel(pygit2.Commit).id)
            walker.simplify_first_parent()
            history = [commit.id for commit in walker][::-1]
        except (pygit2.GitError, KeyError, ValueError):  # damage: reads and verify name it
            continue
        others = made_here(folder, ref, history).count(False)
        if others:
            found.append((ref, others))
    return found


def misplaced_refs(repo: pygit2.Repository) -> list[str]:
    """This clone's local records and payload refs in the repository itself, where a push can
    send them (an earlier version kept them there): ``this_clones``."""
    kept = _kept_local(repo)
    return [name for name in _local_names(repo) if this_clones(repo, name, kept)]


def stray_local_refs(repo: pygit2.Repository) -> list[str]:
    """Local records and payload refs in the repository itself that are not this clone's
    (``this_clones``): another clone's personal memory, pushed by someone and brought by a
    plain fetch into this clone's names. Never read, never moved into the local namespace."""
    kept = _kept_local(repo)
    return [name for name in _local_names(repo) if not this_clones(repo, name, kept)]


def this_clones(repo: pygit2.Repository, name: str, kept: set[str]) -> bool:
    """Whether the local namespace's ref ``name``, found in the repository itself, is this
    clone's (an earlier version kept personal memory there): the clone logged its writer's
    local records ref (a payload snapshot goes with its records), and the local namespace holds
    no ref of that name (``kept``: its records and payload refs), which one found here would
    overwrite: this clone's own are moved once, so a second one is another clone's."""
    records = name.replace(f"{PREFIX}payloads/", f"{PREFIX}records/", 1)
    return name not in kept and not never_logged(state_dir(repo), records)


def _kept_local(repo: pygit2.Repository) -> set[str]:
    local = open_local(repo, create=False)
    if local is None:
        return set()
    return set(ref_names(local, PREFIX + "records/local/")) | set(ref_names(local, PREFIX + "payloads/local/"))


def _local_names(repo: pygit2.Repository) -> list[str]:
    return sorted(ref_names(repo, PREFIX + "records/local/") + ref_names(repo, PREFIX + "payloads/local/"))


def logged_refs(folder: Path) -> list[str]:
    """The refs this clone keeps a tips log for (its own records and payload refs)."""
    found = []
    for path in sorted(folder.glob("*.tips")):
        parts = path.name[: -len(".tips")].split("-", 2)
        if len(parts) == 3 and parts[0] in ("records", "payloads") and parts[1] in NAMESPACES:
            found.append(f"{PREFIX}{parts[0]}/{parts[1]}/{parts[2]}")
    return found


def lost_refs(repo: pygit2.Repository, local: pygit2.Repository | None, folder: Path) -> list[str]:
    """This clone's refs whose tips log names acknowledged appends but which exist nowhere."""
    lost = []
    if local is None:  # another process may have made it since this handle opened
        local = open_local(repo, create=False)
    holders = [r for r in (repo, local) if r is not None]
    for ref in logged_refs(folder):
        if not any(_holds(r, ref) for r in holders) and last_acknowledged(folder, ref) is not None:
            lost.append(ref)
    return lost


def _holds(repo: pygit2.Repository, ref: str) -> bool:
    """Whether ``repo`` has ``ref``; a ref file that holds no ref is there, damaged (``verify``
    names it), not gone."""
    try:
        return ref in repo.references
    except pygit2.GitError:
        return True


class Restore(NamedTuple):
    """One of this clone's refs that lost its last acknowledged append (moved back, deleted, or
    its file damaged), and what restores it: ``git update-ref REF APPEND`` in the repository at
    ``git_dir``, once ``broken`` (the damaged file, which git refuses to update) is removed."""

    ref: str
    git_dir: Path
    append: str
    broken: Path | None = None


def restorable(repo: pygit2.Repository, local: pygit2.Repository | None, folder: Path) -> list[Restore]:
    """This clone's refs every read refuses because they lost the last append acknowledged on
    them, where moving the ref forward to that append (still in the repository: gc keeps every
    acknowledged commit) gives it all back: a ref moved back along its own history, or deleted.
    A ref rewritten to another history is not among them: moving it would drop that history."""
    found = []
    for ref in logged_refs(folder):
        holder = local if ref.startswith(f"{PREFIX}records/local/") or ref.startswith(f"{PREFIX}payloads/local/") \
            else repo
        try:
            acked = last_acknowledged(folder, ref)
        except IntegrityError:  # a damaged log restores nothing: reads name it
            continue
        if holder is None or acked is None or acked not in holder or holder is not repo and _holds(repo, ref):
            continue
        try:
            target = holder.references.get(ref)
        except pygit2.GitError:  # its file holds no ref: git updates it once the file is gone
            found.append(Restore(ref, Path(holder.path), str(acked), common_dir(holder) / ref))
            continue
        tip = target.target if target is not None else None
        try:
            behind = tip is None or (tip != acked and isinstance(tip, pygit2.Oid) and holder.descendant_of(acked, tip))
        except (pygit2.GitError, ValueError):
            behind = False
        if behind:
            found.append(Restore(ref, Path(holder.path), str(acked)))
    return found
