"""Memory in a shallow repository (``git clone --depth``, ``git fetch --depth``, ``git pull
--depth``).

``gitstore init`` adds memory's refspecs to origin, so a fetch with ``--depth`` cuts memory's
histories short as well as the code's: git lists the commits it cut in ``.git/shallow`` and
from then on reads them (and libgit2 with it) as having no parents. A writer's history read
from such a commit lacks every append before it: a retirement, a withdrawal or the records the
commit's own tree holds from earlier appends would be missing or read as forged. So:

- reads leave a fetched writer whose history is cut out, saying so in one line (``SHALLOW``),
  and refuse this clone's own refs (an append onto a cut history would be read whole nowhere);
- such a refusal is never remembered: it is judged again once the history is whole;
- ``gitstore sync`` fetches memory's refs deepened to the whole history (``DEEPEN``), which
  leaves the code's history as shallow as it was;
- ``gitstore doctor`` warns.

A repository that is not shallow has no ``.git/shallow``: telling costs one ``stat``.
"""

from __future__ import annotations

from pathlib import Path

import pygit2

from gitstore.providers._gitdirs import common_dir, git_env

SHALLOW_NOTE = "history is shallow here"
SHALLOW = (f"{SHALLOW_NOTE} (a fetch or clone with `--depth` cut memory's history short, so it reads as "
           "if it began later than it did): run `gitstore sync`, which fetches memory's history whole")
# git's own "infinite" depth (2**31 - 1) makes the remote unshallow every cut history, the code's
# too; one less deepens only the histories the fetch asks for
DEEPEN = "--depth=2147483646"


def shallow_file(repo: pygit2.Repository) -> Path:
    return common_dir(repo) / "shallow"


def is_shallow(repo: pygit2.Repository) -> bool:
    """Whether git cut some history of this repository short (one ``stat``)."""
    return shallow_file(repo).is_file()


def shallow_state(repo: pygit2.Repository) -> tuple[int, int] | None:
    """The shallow file's time and size (None: the repository is not shallow), one ``stat``:
    what a handle keeps ``cut_refs`` by, since a fetch that cuts or deepens rewrites it."""
    try:
        found = shallow_file(repo).stat()
    except OSError:
        return None
    return found.st_mtime_ns, found.st_size


def cut_commits(repo: pygit2.Repository) -> list[str]:
    """The commits git reads as having no parents because a shallow fetch left them out. The
    shallow file also lists commits that have none (a fetch with ``--depth 1`` lists every tip
    it brought, a payload snapshot's or a writer's first append too, and a deepening fetch
    leaves them there): those cut nothing."""
    try:
        text = shallow_file(repo).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return []
    return [oid for line in text.splitlines() if (oid := line.strip()) and _cut_append(repo, oid)]


def _cut_append(repo: pygit2.Repository, oid: str) -> bool:
    """Whether the commit ``oid`` is an append (its message names memory's format: no other
    commit is read as one) that, as stored, names a parent git and libgit2 read through the
    shallow file as not there. A clone whose code alone is shallow (a CI checkout with depth 1)
    then asks git nothing more at each read; False when the commit is not here."""
    try:
        kind, _ = repo.odb.read_header(oid)
        if kind != pygit2.GIT_OBJECT_COMMIT:
            return False
        data = repo.odb.read(oid)[1]
    except (KeyError, ValueError, pygit2.GitError):
        return False
    head, _, message = data.partition(b"\n\n")
    return b"\nparent " in b"\n" + head and b"\nGitstore-Format: " in message


def cut_refs(repo: pygit2.Repository, prefix: str) -> set[str]:
    """The refs under ``prefix`` whose history holds a commit a shallow fetch cut (empty in a
    repository that is not shallow, without running anything)."""
    import subprocess  # loaded when git is run: a capture stores its records without it

    cut = cut_commits(repo)
    if not cut:
        return set()
    done = subprocess.run(["git", f"--git-dir={common_dir(repo)}", "for-each-ref", "--format=%(refname)",
                           *(f"--contains={oid}" for oid in cut), prefix],
                          env=git_env(), capture_output=True, text=True)
    return set(done.stdout.split()) if done.returncode == 0 else set()


def names_shallow(problem: str | None) -> bool:
    """Whether a refusal was for a history a shallow fetch cut (judged again, never remembered)."""
    return problem is not None and SHALLOW_NOTE in problem


__all__ = ["DEEPEN", "SHALLOW", "SHALLOW_NOTE", "cut_commits", "cut_refs", "is_shallow", "names_shallow", "shallow_state"]
