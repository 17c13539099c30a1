"""Prior states of the files ``gitstore publish`` writes, kept so a publish can be rolled back.

Before a publish writes anything it saves, under ``okf/.memory/publish/<time>/``, the exact
bytes each file it is about to write had (or that it did not exist) and the digest of what it
writes. ``gitstore publish --rollback`` restores the newest snapshot byte for byte (removing
files the publish created), but only while every file still holds what that publish wrote:
a file changed since is named and nothing is restored; so is one whose prior bytes the
caller's ``check`` refuses (a publish refuses bytes that list learnings no longer in force). A
snapshot rolled back is marked so, and the next rollback restores the one before it.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gitstore.errors import Refused

FOLDER = "publish"
ROLLED_BACK = ".rolled-back"


def _digest(data: bytes | None) -> str | None:
    return None if data is None else "sha256:" + hashlib.sha256(data).hexdigest()


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def write_file(path: Path, data: bytes | None) -> None:
    """Replace (or with None remove) a file atomically, keeping the mode of one that exists."""
    if data is None:
        path.unlink(missing_ok=True)
        try:
            path.parent.rmdir()  # a folder the publish created for the file (only if now empty)
        except OSError:
            pass
        return
    path.parent.mkdir(parents=True, exist_ok=True)
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
    """Record the prior state of every file in ``changes``; returns the snapshot folder."""
    now = time.time_ns()  # one reading of the clock: its second and its nanoseconds, in order
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now // 1_000_000_000)) + f"-{now % 1_000_000_000:09d}"
    folder = state / FOLDER / stamp
    (folder / "files").mkdir(parents=True)
    manifest = []
    for number, change in enumerate(changes):
        if change.before is not None:
            (folder / "files" / str(number)).write_bytes(change.before)
        manifest.append({"path": change.path, "existed": change.before is not None,
                         "before": _digest(change.before), "after": _digest(change.after), "file": str(number)})
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return folder


def latest(state: Path) -> Path | None:
    folder = state / FOLDER
    found = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.endswith(ROLLED_BACK)) \
        if folder.is_dir() else []
    return found[-1] if found else None


def rollback(root: Path, state: Path, check: Callable[[dict[str, bytes | None]], None] | None = None,
             dry_run: bool = False) -> list[dict[str, Any]]:
    """Restore the newest snapshot; returns what was restored. ``check`` sees the bytes each
    file would get back (None: removed) before anything is written, and may refuse. A dry run
    checks the same and writes nothing: each action is what would be done."""
    snapshot = latest(state)
    if snapshot is None:
        raise Refused("nothing to roll back: no publish has been recorded here")
    manifest = json.loads((snapshot / "manifest.json").read_text(encoding="utf-8"))
    for entry in manifest:
        current = _digest(_read(root / entry["path"]))
        if current != entry["after"]:
            raise Refused(f"{entry['path']} changed since the publish of {snapshot.name}; "
                          "nothing was rolled back (restore it by hand or publish again)")
    if check is not None:
        check({e["path"]: (snapshot / "files" / e["file"]).read_bytes() if e["existed"] else None for e in manifest})
    if dry_run:
        return [{"path": e["path"], "action": "would-restore" if e["existed"] else "would-remove"} for e in manifest]
    restored = []
    for entry in manifest:
        before = (snapshot / "files" / entry["file"]).read_bytes() if entry["existed"] else None
        write_file(root / entry["path"], before)
        restored.append({"path": entry["path"], "action": "restored" if entry["existed"] else "removed"})
    snapshot.rename(snapshot.with_name(snapshot.name + ROLLED_BACK))
    return restored
