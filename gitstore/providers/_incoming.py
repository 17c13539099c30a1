"""Where a sync fetches before it verifies, and what may stay there between syncs.

``gitstore sync`` fetches every writer's shared refs into names nothing reads as memory,
``refs/memory/sync/<remote>/{records,payloads}/shared/<writer>`` (and the remote's default
branch, which the policy is read from, as ``refs/memory/sync/<remote>/policy-branch``: it stands
beside that branch's remote-tracking ref), verifies what changed, and
moves what passes to ``refs/memory/v1/remotes/<remote>/...`` (the admitted ref). An incoming ref
whose tip is its admitted ref's tip keeps nothing reachable that the admitted ref does not: it
stays, so the next fetch finds it up to date and writes nothing (among a thousand writers an
idle sync used to write every one of them and delete them again). Any other incoming ref
(unverified, quarantined, or left behind when the admitted ref moved: a redaction rewrote the
snapshot, a plain ``git fetch`` moved it) is dropped, at the end of each sync and by gc before
it tells what is reachable, so that a snapshot whose text was removed here stays reachable
through none of them. A redaction drops them too, as soon as it has written the snapshots again
(unless a sync is running: that sync drops them when it ends), so that git's own gc, which
knows nothing of gitstore's, erases the removed text as well.

Both hold the sync lock (``sync.lock`` in the provider's state folder) while they do: gc must
not drop a ref a running sync fetched and has not admitted yet (its objects would be erased
under it), nor erase what such a ref keeps.
"""

from __future__ import annotations

import fcntl
import subprocess
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pygit2

from gitstore._files import held
from gitstore.errors import Refused
from gitstore.providers._admit import ANCHORS
from gitstore.providers._gitdirs import (
    clear_stale_lock, common_dir, complaint, git_env, lock_in_way, odd_refs, ref_ids, ref_targets,
)
from gitstore.providers._names import PREFIX, QUARANTINE, WRITER_PATTERN
from gitstore.providers._policy_git import default_branch

INCOMING = "refs/memory/sync/"
POLICY_BRANCH = "policy-branch"  # under ``INCOMING<remote>/``: one name, never a writer's ref
HEAD_FETCHED = "remote-head"  # under ``INCOMING<remote>/``: where the remote's HEAD was at the fetch
LOCK = "sync.lock"
# the ref folders a sync moves refs in and nothing else does but for a moment (an append rewriting
# a fetched snapshot): a ref lock left there by a process killed holding it (a sync's `git fetch`)
# blocks every later sync, which removes it once it is stale (``clear_stale_ref_locks``)
SYNC_MOVES = (INCOMING, f"{PREFIX}remotes/", ANCHORS, QUARANTINE)
FETCHED = (f"{PREFIX}remotes/", INCOMING)  # the namespaces fetches fill, one folder per remote
KINDS = ("records", "payloads")


@contextmanager
def sync_locked(state: Path) -> Iterator[None]:
    """One sync (or gc) at a time in a clone (the next one waits)."""
    with held(state / LOCK):
        yield


def sync_lock_if_free(state: Path) -> AbstractContextManager[bool]:
    """The sync lock when no sync or gc holds it (True), else nothing (False), without waiting:
    for a step that a running sync does anyway when it ends, taken where waiting could deadlock
    (under the appends' locks, which gc takes after the sync lock)."""
    return held(state / LOCK, fcntl.LOCK_EX | fcntl.LOCK_NB)


def admitted_ref(incoming: str) -> str:
    """The admitted ref an incoming ref stands beside (``refs/memory/sync/<remote>/X`` ->
    ``refs/memory/v1/remotes/<remote>/X``)."""
    return f"{PREFIX}remotes/{incoming[len(INCOMING):]}"


def policy_incoming(remote: str) -> str:
    """Where a sync fetches the remote's default branch, which the policy is read from: it
    stands beside that branch's remote-tracking ref (``default_branch``)."""
    return f"{INCOMING}{remote}/{POLICY_BRANCH}"


def remote_head_incoming(remote: str) -> str:
    """Where a sync fetches the remote's HEAD, to tell whether it still names the branch the
    policy is read from; never admitted anywhere, so the sync's end deletes it."""
    return f"{INCOMING}{remote}/{HEAD_FETCHED}"


def ref_tip(repo: pygit2.Repository, name: str) -> pygit2.Oid | None:
    """The commit id ref ``name`` points at; None when there is no such ref, or it is symbolic."""
    try:
        target = repo.references[name].target
    except (KeyError, pygit2.GitError):
        return None
    return target if isinstance(target, pygit2.Oid) else None


def stale_incoming(repo: pygit2.Repository, remote: str | None = None) -> list[str]:
    """The incoming refs (of ``remote``, or of every remote) whose tip is not their admitted
    ref's tip: what a sync may not leave behind."""
    prefix = INCOMING if remote is None else f"{INCOMING}{remote}/"
    admitted = ref_targets(repo, f"{PREFIX}remotes/{prefix[len(INCOMING):]}")

    def beside(name: str) -> pygit2.Oid | None:
        remote = name[len(INCOMING):].split("/", 1)[0]
        if name not in (policy_incoming(remote), remote_head_incoming(remote)):  # the remote's HEAD stands
            return admitted.get(admitted_ref(name))  # beside the default branch too, where it names it
        tracking = default_branch(repo)
        return ref_tip(repo, tracking) if tracking and tracking.startswith(f"refs/remotes/{remote}/") else None

    return [name for name, tip in ref_ids(repo, prefix).items() if tip is None or tip != beside(name)]


def drop_stale_incoming(repo: pygit2.Repository, remote: str | None = None) -> list[str]:
    """Delete the incoming refs ``stale_incoming`` names, in one ref transaction (one rewrite
    of ``packed-refs`` when they are packed); returns their names. The caller holds the sync
    lock."""
    names = stale_incoming(repo, remote)
    if names:
        for name in names:  # one a killed fetch left locked would stay reachable through it
            clear_stale_lock(common_dir(repo) / f"{name}.lock")
        _delete(repo, "".join(f"delete {name}\n" for name in names), f"the refs a sync fetched under {INCOMING}")
    return names


def _delete(repo: pygit2.Repository, script: str, what: str) -> None:
    """Run SCRIPT (``git update-ref --stdin`` lines) in one ref transaction, a name's bytes that
    are not UTF-8 (``odd_refs``) given to git as they came; Refused naming WHAT when git
    refuses it."""
    done = subprocess.run(["git", f"--git-dir={common_dir(repo)}", "update-ref", "--stdin"], input=script,
                          env=git_env(), capture_output=True, text=True, encoding="utf-8", errors="surrogateescape")
    if done.returncode != 0:
        raise Refused(f"could not delete {what}: {lock_in_way(done.stderr) or complaint(done.stderr, done.returncode)}")


def misnamed_refs(repo: pygit2.Repository, prefix: str) -> dict[str, str]:
    """Name -> tip of the refs a fetch put in a remote's namespace (``prefix``: one of
    ``FETCHED`` and the remote's name) that no read takes for a writer's: directly under
    ``{records,payloads}/shared/`` with a name that is no writer id, and any name git holds and
    libgit2 cannot name (not UTF-8: ``odd_refs``), which no listing of refs would otherwise
    show. None is ever read, while all they point to stays reachable (a snapshot holding text
    a removal took, kept through gc), and their names are whatever whoever pushed them chose."""
    found: dict[str, str] = {}
    for kind in KINDS:
        under = f"{prefix}{kind}/shared/"
        found.update({name: str(tip) for name, tip in ref_targets(repo, under).items()
                      if "/" not in name[len(under):] and not WRITER_PATTERN.match(name[len(under):])})
    found.update({name: hexid.decode("ascii") for name, hexid in odd_refs(repo, prefix).items() if hexid is not None})
    return found


def drop_misnamed(repo: pygit2.Repository) -> list[str]:
    """Delete the misnamed refs (``misnamed_refs``) of every remote's fetched namespaces, as a sync
    of that remote does, in one ref transaction; their names. gc runs it before it tells what
    is reachable: a plain ``git fetch`` brings them without a sync. The caller holds the sync
    lock."""
    found: dict[str, str] = {}
    for space in FETCHED:
        remotes = {name[len(space):].split("/", 1)[0] for name in [*ref_ids(repo, space), *odd_refs(repo, space)]}
        for remote in sorted(remotes):
            found.update(misnamed_refs(repo, f"{space}{remote}/"))
    if found:
        _delete(repo, "".join(f"delete {name} {tip}\n" for name, tip in found.items()),
                "the misnamed refs a fetch brought")
    return sorted(found)
