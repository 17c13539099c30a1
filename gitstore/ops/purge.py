"""Purge: remove this clone's local memory (refs, the objects only they reached, and state).
High friction: the person types the repository's name. Nothing is pushed; other clones keep
their copies.

It needs the repository only, not gitstore's set-up: a clone whose ``okf/.memory/`` was
deleted by hand, or whose configuration is damaged, still holds memory refs and the local
namespace (personal sessions), and purge is how they go."""

from __future__ import annotations

import shutil
from pathlib import Path

import pygit2

from gitstore._files import first_link
from gitstore.config import ACCEPTED_NAME, OWN_CONFIG_NAME, STATE_DIR, forget_ignored, work_tree_git_folders
from gitstore.errors import Refused, UsageError
from gitstore.providers._gc_git import PREFETCHED, collect_purged
from gitstore.providers._gitdirs import broken_refs, common_dir
from gitstore.ops.setup import forget_refspecs
from gitstore.providers.git import PREFIX
from gitstore.scope import forget_scope, repository_scope

MEMORY = PREFIX.rsplit("/", 2)[0] + "/"  # refs/memory/: the store's refs and those sync keeps aside


def purge_names(repo: pygit2.Repository) -> tuple[str, ...]:
    """The answers accepted as confirmation: the scope, or its owner/name."""
    scope = repository_scope(repo)
    return (scope, "/".join(scope.split("/")[-2:]))


def leftovers(repo: pygit2.Repository) -> tuple[list[str], Path, Path]:
    """What purge would remove: the memory refs (files that hold no ref among them, and the
    copies ``git maintenance``'s prefetch made of them, which kept all they reach), the local
    namespace's folder, the state folder; refuses a repository holding none of them."""
    refs = [name for name in repo.references if name.startswith((MEMORY, PREFETCHED))]  # sync's held refs with them
    refs += broken_refs(repo, MEMORY)  # left out of every listing, and git will not delete them
    internal = common_dir(repo) / "gitstore"  # the local namespace's repository with it
    root = Path(repo.workdir).resolve()  # a work tree's repository (``open_repository`` refuses a bare one)
    state = root / STATE_DIR
    if not refs and not internal.exists() and (not state.exists() or _linked(root) is not None):
        raise UsageError(f"gitstore has nothing to purge in {root}")
    return refs, internal, state


def _linked(root: Path) -> str | None:
    """Why the state folder is left as it is: a link on the way to it (``okf``, or the folder
    itself), which a commit can put there, leads wherever its target is (another clone's
    state, a folder outside the repository); None when there is none."""
    link = first_link(root, STATE_DIR.as_posix())
    if link is None:
        return None
    return (f"{link.relative_to(root).as_posix()} is a link (to {link.resolve()}): "
            "gitstore removes nothing through a link, so what it leads to is left as it is")


def purge(repo: pygit2.Repository, typed: str) -> dict[str, object]:
    """Delete every memory ref and erase the objects only they reached, the local namespace and
    the state folder, if ``typed`` names the repository."""
    refs, internal, state = leftovers(repo)
    if typed.strip() not in purge_names(repo):
        raise Refused(f"purge not confirmed: type the repository name ({purge_names(repo)[1]}) exactly")
    for name in refs:
        try:
            repo.references.delete(name)
        except pygit2.GitError:  # a file that holds no ref (``broken_refs``): git will not delete it
            (common_dir(repo) / name).unlink()
    forget_scope(repo)  # a clean slate: the next init keeps the scope it finds then
    # what the refs reached is erased from the object database now, not left for git's own
    # expiry (two weeks by default), which would keep a secret purged away readable
    internal.mkdir(exist_ok=True)
    erased = collect_purged(repo, internal)
    shutil.rmtree(internal)
    _forget_setup(repo)
    forget_refspecs(repo)
    root = Path(repo.workdir).resolve()
    forget_ignored(repo, root, state)
    left = _linked(root)
    state_removed = left is None and state.exists()
    if state_removed:
        shutil.rmtree(state)
    result: dict[str, object] = {"refsRemoved": len(refs), "objectsErased": erased, "stateRemoved": state_removed,
                                 "state": str(state)}
    return {**result, "stateLeft": left} if left is not None else result


def _forget_setup(repo: pygit2.Repository) -> None:
    """Forget, in every work tree's git folder, that init set it up: the configuration bytes it
    owns and the copy init accepted (``gitstore.config.set_up_here``). Left behind, they had a
    config.json a patch brings afterwards taken for the clone's own, and its settings (a
    labeler, automation) for ones init accepted."""
    for folder in work_tree_git_folders(repo):
        (folder / OWN_CONFIG_NAME).unlink(missing_ok=True)
        (folder / ACCEPTED_NAME).unlink(missing_ok=True)
        own = folder / "gitstore"
        if own != common_dir(repo) / "gitstore" and own.is_dir():
            shutil.rmtree(own)
