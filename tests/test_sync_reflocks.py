"""A sync killed while git held one of memory's ref locks: the next sync completes, doctor names it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pygit2
import pytest

from gitstore.context import Context
from gitstore.errors import Refused
from gitstore.providers._gitdirs import STALE_LOCK_SECONDS, clear_stale_ref_locks, ref_locks
from gitstore.providers._incoming import SYNC_MOVES
from gitstore.queries.doctor import doctor
from gitstore.sync.remote import _update_refs, sync

from .test_sync_remote import Thread, bob_speaks, team, team_once, verdicts  # noqa: F401  (team, team_once: the fixtures)

# git runs this while it holds the locks of the refs it is about to move ("prepared"): it kills
# the process that moves them (git fetch, or git update-ref) and the sync that ran it, as a
# machine that dies then would, once
HOOK = """#!/bin/sh
if [ "$1" = prepared ] && grep -q "{match}" && [ ! -e "{marker}" ]; then
  touch "{marker}"
  sync=$(ps -o ppid= -p $PPID | tr -d ' ')
  kill -9 $sync $PPID
fi
exit 0
"""


def _aged(lock: Path) -> None:
    """Make ``lock`` as old as one a process killed a minute ago left."""
    then = time.time() - 12 * STALE_LOCK_SECONDS
    os.utime(lock, (then, then))


@pytest.mark.parametrize("match", ["refs/memory/sync/", "refs/memory/v1/remotes/"])
def test_a_sync_killed_holding_a_ref_lock_leaves_no_sync_after_it_failing(team: tuple, tmp_path: Path,
                                                                          match: str) -> None:
    alice, bob, bare, held = team
    sync(str(alice.workspace.root))
    sync(str(bob.workspace.root))
    bob_speaks(alice)  # something new for bob's next fetch to move his refs to
    hook = Path(bob.workspace.repo.path) / "hooks" / "reference-transaction"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(HOOK.format(match=match, marker=tmp_path / "killed"))
    hook.chmod(0o755)
    code = "import sys; from gitstore.sync.remote import sync; sync(sys.argv[1])"
    run = subprocess.run([sys.executable, "-c", code, str(bob.workspace.root)], capture_output=True, timeout=120)
    hook.unlink()
    assert run.returncode == -9 and (tmp_path / "killed").exists(), run.stderr
    repo = pygit2.Repository(str(bob.workspace.root))
    locks = ref_locks(repo, match)
    assert len(locks) == 1, locks
    _aged(locks[0])

    named = [c for c in doctor(bob.workspace.root).checks if c.name == "ref locks"]
    assert len(named) == 1 and str(locks[0]) in named[0].detail and "`gitstore sync` removes it" in named[0].todo

    report = sync(str(bob.workspace.root))
    assert report.status == "ok", report.render()
    assert "bob's own words" in {(e.get("payload") or {}).get("text")
                                 for e in Context.open(bob.workspace.root).view().events.values()}
    assert not ref_locks(repo, "refs/memory/")
    assert sync(str(bob.workspace.root)).status == "no-update"
    assert not [c for c in doctor(bob.workspace.root).checks if c.name == "ref locks"]


def test_a_ref_lock_young_enough_to_be_a_live_process_s_stays(team: tuple) -> None:
    alice, bob, bare, held = team
    sync(str(alice.workspace.root))
    repo = bob.workspace.repo
    root = Path(repo.path)
    young = root / "refs" / "memory" / "sync" / "origin" / "records" / "shared" / "wlive.lock"
    young.parent.mkdir(parents=True, exist_ok=True)
    young.write_text("")
    old = root / "refs" / "memory" / "quarantine" / "origin" / "records" / "shared" / "wdead.lock"
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_text("")
    _aged(old)
    assert clear_stale_ref_locks(repo, SYNC_MOVES) == [young]
    assert young.exists() and not old.exists()
    assert not [c for c in doctor(bob.workspace.root).checks if c.name == "ref locks"]  # a live one is no damage


def test_a_lock_in_the_way_is_said_so_and_not_that_running_sync_again_helps(team: tuple) -> None:
    alice, bob, bare, held = team
    sync(str(alice.workspace.root))
    sync(str(bob.workspace.root))
    repo = bob.workspace.repo
    tracking = "refs/remotes/origin/main"
    tip = repo.references[tracking].target
    (Path(repo.path) / f"{tracking}.lock").write_text("")
    with pytest.raises(Refused) as refused:
        _update_refs(repo, [(tracking, tip, tip)])
    said = str(refused.value)
    assert f"{tracking}.lock" in said and "run sync again" not in said and "File exists" not in said, said
    assert said.startswith(f"sync could not move the fetched refs: cannot lock ref '{tracking}': "), said
    assert verdicts(bob)  # nothing stored was lost


def test_a_packed_refs_lock_a_killed_git_left_is_named_with_what_to_do(team: tuple) -> None:
    """git takes ``packed-refs.lock`` to delete a packed ref; one a git killed while it rewrote
    packed-refs left fails the sync's deletion of what it fetched before. The error names the
    lock file and what a person does (git's last line alone, "remove the file manually to
    continue.", named no file), exit 1 as a refusal, not 3 (nothing stored is damaged); doctor
    names it; once it is gone, the sync goes on."""
    alice, bob, bare, held = team
    sync(str(alice.workspace.root))
    bob_speaks(bob)
    sync(str(bob.workspace.root))  # bob's own refs fetched back: the next push leaves them to drop
    thread = Thread(bob, 9, "300")  # something new of bob's own for the sync to push
    thread.comment("300", "bob's later words", "2026-03-03T10:00:00.000000Z")
    thread.save()
    root = bob.workspace.root
    subprocess.run(["git", "pack-refs", "--all"], cwd=root, check=True)
    lock = Path(bob.workspace.repo.path) / "packed-refs.lock"
    lock.write_text("")
    _aged(lock)
    named = [c for c in doctor(root).checks if c.name == "ref locks"]
    assert len(named) == 1 and str(lock) in named[0].detail and f"rm {lock}" in named[0].todo, named
    done = subprocess.run([sys.executable, "-m", "gitstore", "sync"], cwd=root, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert str(lock) in done.stderr and "remove it once no git command runs" in done.stderr, done.stderr
    lock.unlink()
    assert sync(str(root)).status in ("ok", "no-update")
    assert not [c for c in doctor(root).checks if c.name == "ref locks"]
    sync(str(alice.workspace.root))
    assert "bob's later words" in {(e.get("payload") or {}).get("text")
                                   for e in Context.open(alice.workspace.root).view().events.values()}
