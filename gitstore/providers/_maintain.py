"""Keeping the local namespace's pack count low, as ``git maintenance`` keeps a repository's.

An append of a hundred objects or more is written as one pack (a captured session is one), and
a read looks an object up pack by pack: after four hundred captures, reading every record of the
local namespace took twice as long as it did from loose objects. Nothing else ever repacks that
repository (``.git/gitstore/local``: git's own ``gc --auto`` only looks after the repository
itself, where the shared records live). So once it holds more than ``PACK_LIMIT`` packs (git's
``gc.autoPackLimit``), ``git repack -d --geometric=2`` rolls the smaller packs together until
each pack holds at least twice the objects of all the smaller ones: the count then grows with
the logarithm of the objects, and each roll-up rewrites mostly small packs.

It is safe beside appends and readers: the packs it combines are copied whole, every object
reachable or not (so an append that has written its pack but not yet moved its ref keeps its
objects), a pack written meanwhile is not among them, and a reader holding an old pack mapped
keeps reading it while git removes the file. It holds the same shared lock as an append, so
``gitstore gc`` (which rewrites packs itself) never runs beside it, and one roll-up at a time.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from gitstore._files import held
from gitstore.providers._gitdirs import LOCAL, run_git

PACK_LIMIT = 50  # git's gc.autoPackLimit
GC_LOCK = "gc.lock"  # the lock appends hold shared and gc exclusively (GitProvider._lock)
MAINTAIN_LOCK = "maintain.lock"


def pack_count(git_dir: Path) -> int:
    """How many packs a repository's object folder holds."""
    try:
        return sum(1 for name in os.listdir(git_dir / "objects" / "pack") if name.endswith(".pack"))
    except OSError:
        return 0


def roll_up_local(state: Path, *, limit: int | None = None) -> bool:
    """Roll the local namespace's packs up when there are more than ``limit`` (``PACK_LIMIT``);
    True when it did. ``state`` is the repository's ``.git/gitstore``. Returns False at once
    when another roll-up or a gc is running."""
    local = state / LOCAL
    if pack_count(local) <= (PACK_LIMIT if limit is None else limit):
        return False
    with held(state / GC_LOCK, fcntl.LOCK_SH | fcntl.LOCK_NB) as free, \
            held(state / MAINTAIN_LOCK, fcntl.LOCK_EX | fcntl.LOCK_NB) as mine:
        if not (free and mine):
            return False
        roll_up(local)
    return True


def roll_up(git_dir: Path) -> None:
    """``git repack -d --geometric=2`` in a repository (the caller keeps gc away)."""
    run_git(git_dir, "repack", "-d", "-q", "--geometric=2")


