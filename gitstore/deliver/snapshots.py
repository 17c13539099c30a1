"""Prior states of the files ``gitstore publish`` writes, kept so a publish can be rolled back.

Before a publish writes anything it saves, under ``okf/.memory/publish/<time>/``, the exact
bytes each file it is about to write had (or that it did not exist) and the digest of what it
writes. ``gitstore publish --rollback`` restores the newest snapshot byte for byte (removing
files the publish created), but only while every file still holds what that publish wrote:
a file changed since is named and nothing is restored; so is one whose prior bytes the
caller's ``check`` refuses (a publish refuses bytes that list learnings no longer in force). A
snapshot rolled back is marked so, and the next rollback restores the one before it.

A snapshot names the files it restores, and only those its caller writes are restored (``paths``):
a damaged manifest naming another file, or one outside the repository, is refused whole. A
snapshot whose manifest git has as an object came with a commit (the folder is the clone's own
and ignored), not from a publish here: it is passed over as if it were not there, or a commit
could restore any text into the files agents read.

A snapshot appears whole (written in a folder of its own, then renamed) and stays marked
``pending`` while its publish writes the files, until the last is written (``written``). A
publish killed in between leaves some files written and others not: ``interrupted`` names the
files it did not write (``gitstore doctor`` says so), and a rollback of that snapshot restores
the files it wrote and leaves the others, which still hold their prior bytes. Running the
publish again writes the rest and saves a snapshot of its own for them: rolled back in turn,
the two restore the files as they were before the first. A rollback killed between two files
finishes when run again: a file that holds its prior bytes already is left as it is.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gitstore import _jsontext
from gitstore._files import first_link
from gitstore.errors import Refused
from gitstore.records.inputs import read_regular

FOLDER = "publish"
ROLLED_BACK = ".rolled-back"
PENDING = "pending"  # in a snapshot's folder until its publish wrote every file


def _digest(data: bytes | None) -> str | None:
    return None if data is None else "sha256:" + hashlib.sha256(data).hexdigest()


def _read(path: Path) -> bytes | None:
    try:
        return read_regular(path)
    except FileNotFoundError:
        return None


def write_file(path: Path, data: bytes | None) -> None:
    """Replace (or with None remove) a file atomically, keeping the mode of one that exists (and
    removing the temporary file beside it that a write killed before its rename left)."""
    if data is None:
        path.unlink(missing_ok=True)
        try:
            path.parent.rmdir()  # a folder the publish created for the file (only if now empty)
        except OSError:
            pass
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    for leftover in path.parent.glob(f".{glob.escape(path.name)}.*.gitstore"):  # of a write that was killed
        if _gone(leftover.name.split(".")[-2]):
            leftover.unlink(missing_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    temp = path.with_name(f".{path.name}.{os.getpid()}.gitstore")
    temp.write_bytes(data)
    if mode is not None:
        os.chmod(temp, mode)
    os.replace(temp, path)


@dataclass(frozen=True)
class Change:
    """One file a publish writes: its path from the root, and its bytes before and after."""

    path: str
    before: bytes | None
    after: bytes


def save(state: Path, changes: list[Change]) -> Path:
    """Record the prior state of every file in ``changes``, marked pending until ``written``;
    returns the snapshot folder. It is written beside its place and renamed into it, so a
    rollback never finds half of one."""
    if first_link(state, FOLDER) is not None:  # a commit can put one there: the snapshot would go wherever it points
        raise Refused(f"{state / FOLDER} is a link: publish keeps its snapshots in a folder of its own; "
                      "nothing was written (remove the link)")
    now = time.time_ns()  # one reading of the clock: its second and its nanoseconds, in order
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now // 1_000_000_000)) + f"-{now % 1_000_000_000:09d}"
    _forget_unfinished(state / FOLDER)
    temporary = state / FOLDER / f".{stamp}.{os.getpid()}.tmp"
    (temporary / "files").mkdir(parents=True)
    manifest = []
    for number, change in enumerate(changes):
        if change.before is not None:
            (temporary / "files" / str(number)).write_bytes(change.before)
        manifest.append({"path": change.path, "existed": change.before is not None,
                         "before": _digest(change.before), "after": _digest(change.after), "file": str(number)})
    (temporary / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    (temporary / PENDING).touch()
    folder = state / FOLDER / stamp
    os.rename(temporary, folder)
    return folder


def _forget_unfinished(folder: Path) -> None:
    """Remove the snapshots a killed save left half written (their process is gone)."""
    for leftover in folder.glob(".*.tmp") if folder.is_dir() else ():
        if _gone(leftover.name.split(".")[-2]):
            shutil.rmtree(leftover, ignore_errors=True)


def _gone(pid: str) -> bool:
    """Whether the process that named a temporary file ``pid`` has ended (it was killed
    before it renamed the file into place)."""
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return True
    except OSError:  # a process of someone else's: alive
        return False
    return False


def written(snapshot: Path) -> None:
    """Mark a snapshot's publish done: every file it names holds what the publish wrote."""
    (snapshot / PENDING).unlink(missing_ok=True)


def _manifest(snapshot: Path) -> list[dict[str, Any]]:
    """A snapshot's entries, or Refused naming the snapshot when they are not what ``save``
    writes (each file restored is read from the snapshot's ``files/`` by its number)."""
    try:
        manifest = _jsontext.loads((snapshot / "manifest.json").read_bytes())
    except (OSError, ValueError) as exc:
        raise Refused(f"the publish snapshot {snapshot.name} cannot be read ({exc}); nothing was rolled back") from None
    if not isinstance(manifest, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) and isinstance(e.get("existed"), bool)
            and isinstance(e.get("file"), str) and e["file"].isdigit() and e["file"].isascii() for e in manifest):
        raise Refused(f"the publish snapshot {snapshot.name} is not one a publish saved; nothing was rolled back")
    return manifest


def _ours(snapshot: Path, git_has: Callable[[Path, bytes], bool]) -> bool:
    """Whether a snapshot was saved here: not one whose manifest came through git (``config.git_has``)."""
    manifest = snapshot / "manifest.json"
    try:
        return not git_has(manifest, manifest.read_bytes())
    except OSError:
        return True  # unreadable: ``_manifest`` says so where it is read


def interrupted(root: Path, state: Path) -> tuple[str, list[str]] | None:
    """The newest snapshot whose publish was killed before it wrote every file, and the files
    it did not write that no later publish has written since; else None. A later publish (one
    a retirement or withdrawal makes too) rewrites only the files it writes, so a file the
    killed one was creating stays unwritten after it. Only snapshots still marked pending, and
    those newer than the oldest of them, are read."""
    found = _snapshots(state)
    pending = [i for i, snapshot in enumerate(found) if (snapshot / PENDING).exists()]
    if not pending:
        return None
    written_since: set[str] = set()
    for snapshot in reversed(found[pending[0]:]):
        manifest = _manifest(snapshot)
        if (snapshot / PENDING).exists():
            left = [e["path"] for e in manifest
                    if e["path"] not in written_since and _digest(_read(root / e["path"])) != e["after"]]
            if left:
                return snapshot.name, left
        written_since.update(e["path"] for e in manifest)
    return None


def _snapshots(state: Path) -> list[Path]:
    """The snapshots not rolled back, oldest first."""
    folder = state / FOLDER
    if not folder.is_dir():
        return []
    from gitstore.config import git_has

    has = git_has(folder)
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.endswith(ROLLED_BACK)
                  and not p.name.startswith(".") and _ours(p, has))


def latest(state: Path) -> Path | None:
    found = _snapshots(state)
    return found[-1] if found else None


def _newest(root: Path, state: Path) -> tuple[Path, list[dict[str, Any]], list[Path]] | None:
    """The newest snapshot a rollback restores, its entries, and the newer ones passed over:
    of one whose publish was killed, only the files it wrote are restored (the others still
    hold their prior bytes); one whose publish was killed before it wrote anything is passed
    over."""
    passed: list[Path] = []
    for snapshot in reversed(_snapshots(state)):
        manifest = _manifest(snapshot)
        if (snapshot / PENDING).exists():
            manifest = [e for e in manifest if _digest(_read(root / e["path"])) != e["before"]]
            if not manifest:
                passed.append(snapshot)
                continue
        return snapshot, manifest, passed
    return None


def rollback(root: Path, state: Path, paths: frozenset[str],
             check: Callable[[dict[str, bytes | None]], None] | None = None,
             dry_run: bool = False) -> list[dict[str, Any]]:
    """Restore the newest snapshot; returns what was restored. Only files named in ``paths``
    (from the root, as the caller writes them) are ever restored: a snapshot naming another is
    refused whole. ``check`` sees the bytes each file would get back (None: removed) before
    anything is written, and may refuse. A dry run checks the same and writes nothing: each
    action is what would be done."""
    newest = _newest(root, state)
    if newest is None:
        folder = state / FOLDER
        if folder.is_dir() and any(p.name.endswith(ROLLED_BACK) for p in folder.iterdir()):
            raise Refused("nothing to roll back: every publish recorded here was rolled back already")
        raise Refused("nothing to roll back: no publish has been recorded here")
    snapshot, manifest, passed = newest
    strays = sorted({e["path"] for e in manifest} - paths)
    if strays:
        raise Refused(f"the publish snapshot {snapshot.name} names {strays[0]!r}, not a file gitstore publish "
                      "writes; nothing was rolled back")
    for entry in manifest:
        link = first_link(root, entry["path"])
        if link is not None:
            raise Refused(f"{link.relative_to(root).as_posix()} is a link: a rollback writes no file through one; "
                          "nothing was rolled back")
    done = set()  # restored already, by a rollback killed before it marked the snapshot
    for entry in manifest:
        current = _digest(_read(root / entry["path"]))
        if current == entry["before"]:
            done.add(entry["path"])
        elif current != entry["after"]:
            raise Refused(f"{entry['path']} changed since the publish of {snapshot.name}; "
                          "nothing was rolled back (restore it by hand or publish again)")
    if check is not None:
        check({e["path"]: (snapshot / "files" / e["file"]).read_bytes() if e["existed"] else None for e in manifest})
    if dry_run:
        return [{"path": e["path"], "action": "would-restore" if e["existed"] else "would-remove"} for e in manifest]
    restored = []
    for entry in manifest:
        if entry["path"] not in done:
            write_file(root / entry["path"], (snapshot / "files" / entry["file"]).read_bytes() if entry["existed"] else None)
        restored.append({"path": entry["path"], "action": "restored" if entry["existed"] else "removed"})
    for done_with in [snapshot, *passed]:
        done_with.rename(done_with.with_name(done_with.name + ROLLED_BACK))
    return restored
