"""Memory in a partial clone (``git clone --filter=blob:none``, ``actions/checkout`` with
``filter:``).

Such a clone's fetches from its promisor remote leave objects out (the remote's
``partialclonefilter``), and git fetches each one later, when git itself needs it. gitstore
reads memory's objects itself, through libgit2, which fetches nothing: an object git left out
reads as missing. That is no damage (nobody wrote anything wrong: the object is on the remote),
so in a partial clone:

- ``gitstore sync`` fetches memory's refs without the filter, and fetches the objects a plain
  ``git fetch`` left out (``missing_objects``) before it checks anything;
- a refusal remembered for a missing object does not stand (``judged_again``): it is judged
  again once the object is here, and never named as damage another clone must mend;
- reads, ``verify`` and ``doctor`` say what to do (``LACKING``);
- the policy's two files, read from the default branch a fetch moved, are fetched when left
  out (``fetch_left_out``), as git fetches a file it checks out.

In a clone that is not partial, git fetches every object a ref needs, so an object missing
there is damage, as ever.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pygit2

from gitstore.providers._gitdirs import common_dir, git_env
from gitstore.providers._shallow import names_shallow

# how a check names an object it did not find (``_objects._read``, ``object_at``, ``_verify_git``)
_MISSING = re.compile(r"\b[0-9a-f]{40}(?:[0-9a-f]{24})? is missing\b")
LACKING = ("this repository is a partial clone, whose plain `git fetch` brings memory without its objects: "
           "`gitstore sync` fetches them (and `git fetch --no-filter` fetches memory whole from now on)")


def promisor_remotes(repo: pygit2.Repository) -> list[str]:
    """The remotes git fetches left-out objects from (``extensions.partialClone`` and each
    ``remote.<name>.promisor``); none when the repository is no partial clone."""
    found = []
    for entry in repo.config:
        name = entry.name.lower()
        if name == "extensions.partialclone" and entry.value:
            found.append(entry.value)
        elif name.startswith("remote.") and name.endswith(".promisor") and _true(entry.value):
            found.append(entry.name[len("remote."):-len(".promisor")])
    return sorted(set(found))


def filters(repo: pygit2.Repository) -> dict[str, str]:
    """remote -> the filter its fetches leave objects out by (``remote.<name>.partialclonefilter``)."""
    found = {}
    for entry in repo.config:
        name = entry.name.lower()
        if name.startswith("remote.") and name.endswith(".partialclonefilter") and entry.value:
            found[entry.name[len("remote."):-len(".partialclonefilter")]] = entry.value
    return found


def is_partial(repo: pygit2.Repository) -> bool:
    return bool(promisor_remotes(repo))


def names_missing(problem: str | None) -> bool:
    """Whether a check's problem is an object it did not find."""
    return problem is not None and _MISSING.search(problem) is not None


def judged_again(repo: pygit2.Repository, problem: str | None) -> bool:
    """Whether a refusal remembered for ``problem`` must be judged again rather than named: in a
    partial clone a missing object is one git has not fetched yet, not damage; a history a
    shallow fetch cut short is whole again once deepened (``_shallow``)."""
    return (names_missing(problem) and is_partial(repo)) or names_shallow(problem)


def advised(repo: pygit2.Repository, problem: str) -> str:
    """``problem``, saying what to do when it is an object a partial clone has not fetched."""
    return f"{problem}; {LACKING}" if names_missing(problem) and is_partial(repo) else problem


def missing_objects(repo: pygit2.Repository, tips: Iterable[pygit2.Oid | str],
                    known: Iterable[pygit2.Oid | str] = ()) -> list[str]:
    """The objects the histories of ``tips`` name, beyond those of ``known``, that this
    repository does not hold (git is not asked to fetch them to answer). A tree missing hides
    what it holds: fetching it brings that too. Empty when git cannot tell (a tip that is not
    here): the checks then name what is wrong."""
    import subprocess  # loaded when git is run: a capture stores its records without it

    lines = [str(tip) for tip in tips] + [f"^{oid}" for oid in known]
    if not lines:
        return []
    done = subprocess.run(["git", f"--git-dir={common_dir(repo)}", "rev-list", "--objects", "--missing=print",
                           "--stdin"], input="\n".join(lines) + "\n", env=git_env(), capture_output=True, text=True)
    if done.returncode != 0:
        return []
    return [line[1:].strip() for line in done.stdout.splitlines() if line.startswith("?")]


def fetch_left_out(repo: pygit2.Repository, oid: pygit2.Oid) -> bool:
    """Have git fetch one object a partial clone's fetch left out, as git itself does when it
    needs one (``cat-file -e``); True when it is here after."""
    import subprocess  # loaded when git is run: a capture stores its records without it

    done = subprocess.run(["git", f"--git-dir={common_dir(repo)}", "cat-file", "-e", str(oid)], env=git_env(),
                          capture_output=True)
    return done.returncode == 0 and oid in repo


def _true(value: str | None) -> bool:
    """A git boolean: a key without a value is true."""
    return value is None or value.strip().lower() in ("true", "yes", "on", "1", "")


__all__ = ["LACKING", "advised", "filters", "is_partial", "judged_again", "missing_objects", "names_missing",
           "promisor_remotes"]
