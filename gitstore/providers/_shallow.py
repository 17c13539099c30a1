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
- ``gitstore doctor`` warns;
- a history that sync's deepening leaves cut (its writer gone from the remote, or the remote
  holds it cut itself) is one no sync can mend: sync notes each such ref at its tip
  (``UNMENDED_FILE``), and from then on reads leave it out as an ordinary refusal
  (``unmended``) that blocks no reader, until the ref moves or is dropped.

A repository that is not shallow has no ``.git/shallow``: telling costs one ``stat``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pygit2

from gitstore.providers._gitdirs import _common, common_dir, git_env
from gitstore.providers._packs import read_header

SHALLOW_NOTE = "history is shallow here"
SHALLOW = (f"{SHALLOW_NOTE} (a fetch or clone with `--depth` cut memory's history short, so it reads as "
           "if it began later than it did): run `gitstore sync`, which fetches memory's history whole")
UNMENDED_NOTE = "history is cut short here and the remote cannot make it whole"
UNMENDED_FILE = "unmended-shallow"  # "<tip> <ref>" a line: what sync's deepening left cut
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
    what a handle keeps ``cut_refs`` by, since a fetch that cuts or deepens rewrites it. Asked
    at each admission of every writer's ref: the common folder is the one listings found."""
    try:
        found = os.stat(os.path.join(_common(repo), "shallow"))
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
        kind = read_header(repo, pygit2.Oid(hex=oid))[0]
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


def unmended(ref: str) -> str:
    """Why a ref whose history sync could not deepen is left out, and the ways out."""
    return (f"{UNMENDED_NOTE} (a fetch with `--depth` cut it, and `gitstore sync` could not deepen it: its "
            "writer is gone from the remote, or the remote holds it cut too): the rest is read without it; "
            f"`git update-ref -d {ref}` drops it here, or `git fetch --unshallow origin` reads it whole "
            "if the remote still holds its objects")


def note_unmended(repo: pygit2.Repository, refs: set[str]) -> None:
    """Note ``refs``, each at its tip, as cut short after sync tried to deepen them (none: the
    note goes). Kept by tip: a ref that moves is judged again, and a sync may mend it."""
    from gitstore._files import replace_file
    from gitstore.providers._gitdirs import ref_targets, state_dir

    path = state_dir(repo) / UNMENDED_FILE
    # none (every sync of a clone that is not shallow): no ref is listed, among however many writers
    lines = [f"{oid} {name}" for name, oid in ref_targets(repo, "refs/memory/").items() if name in refs] if refs else []
    if lines:
        replace_file(path, "".join(f"{line}\n" for line in lines).encode("ascii"))
    else:
        path.unlink(missing_ok=True)


def unmended_tips(repo: pygit2.Repository) -> dict[str, str]:
    """Ref -> tip of each ref sync's deepening left cut (``note_unmended``)."""
    try:
        text = (common_dir(repo) / "gitstore" / UNMENDED_FILE).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return {}
    return {name: oid for oid, _, name in (line.partition(" ") for line in text.splitlines()) if name}


def names_shallow(problem: str | None) -> bool:
    """Whether a refusal was for a history a shallow fetch cut (judged again, never remembered)."""
    return problem is not None and SHALLOW_NOTE in problem


def names_cut(problem: str | None) -> bool:
    """Whether a refusal was for a history a shallow fetch cut, whether a sync may mend it or not."""
    return problem is not None and (SHALLOW_NOTE in problem or UNMENDED_NOTE in problem)


__all__ = ["DEEPEN", "SHALLOW", "SHALLOW_NOTE", "UNMENDED_NOTE", "cut_commits", "cut_refs", "is_shallow",
           "names_cut", "names_shallow", "note_unmended", "shallow_state", "unmended", "unmended_tips"]
