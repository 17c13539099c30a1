"""Reading the team's policy (``gitstore.records.policy``) from the repository's default branch.

The default branch is the remote's, as last fetched: the branch ``refs/remotes/origin/HEAD``
points to (``git clone`` sets it; ``git remote set-head origin --auto`` refreshes it). A clone
without it reads its own: ``init.defaultBranch`` when that branch exists, else ``main``, else
``master``. The policy in force is the one in that branch's tip (the reader's *policy
revision*); with no ``.gitstore/`` files there, or none of those branches, the repository is
single-user (``no_default_branch`` says what names one). Every clone
that fetched the same default branch computes the same verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygit2

from gitstore._gitconfig import value as git_setting
from gitstore.providers._partial import fetch_left_out, is_partial
from gitstore.records.policy import MAX_FILE, POLICY_FILE, SIGNERS_FILE, Policy, PolicyError, parse

REMOTE_HEAD = "refs/remotes/origin/HEAD"


@dataclass(frozen=True)
class Revision:
    """The policy one commit's tree holds: none (no files), unusable (``problem``), or usable,
    with the allowed_signers bytes signatures are checked against."""

    policy: Policy | None = None
    problem: str | None = None
    signers: bytes = b""


@dataclass(frozen=True)
class PolicyState:
    """The policy in force for this clone, or why there is none or it cannot be used."""

    branch: str | None = None  # the ref the default branch was read from
    commit: str | None = None  # that branch's tip: the policy revision
    policy: Policy | None = None
    problem: str | None = None  # the files are there but unusable: no decision counts

    @property
    def mode(self) -> str:
        if self.problem is not None:
            return "broken"
        return "policy" if self.policy is not None else "single-user"


def default_branch(repo: pygit2.Repository) -> str | None:
    """The ref of the default branch this clone reads the policy from (see the module)."""
    head = repo.references.get(REMOTE_HEAD)
    if head is not None and head.type == pygit2.enums.ReferenceType.SYMBOLIC:
        target = str(head.target)
        if target in repo.references:
            return target
    configured = git_setting(repo, "init.defaultBranch")
    for name in (*([configured] if configured else []), "main", "master"):
        if f"refs/heads/{name}" in repo.references:
            return f"refs/heads/{name}"
    return None


def no_default_branch(repo: pygit2.Repository) -> tuple[str, str]:
    """Why this clone finds no default branch, naming what was looked for (``default_branch``),
    and the commands that name one. The policy is read there only: until one is named, none is
    in force, whatever a branch holds. No branch is guessed: origin says which is its default,
    or a person does."""
    configured = git_setting(repo, "init.defaultBranch") or "not set"
    unborn = _unborn(repo)
    if unborn in {configured, "main", "master"}:  # a repository with no commit yet: the branch it will be
        return (f"no default branch yet: {unborn}, the current branch, has no commit",
                f"commit on {unborn} (the policy is read from its tip once it has one)")
    why = (f"no default branch found: {REMOTE_HEAD} is not there (git clone writes it, a push does not), nor a "
           f"branch named by init.defaultBranch ({configured}), main or master")
    configure = "`git config init.defaultBranch BRANCH` (BRANCH: the branch the team merges into)"
    if "origin" not in repo.remotes.names():
        return why, configure
    return why, f"`git remote set-head origin --auto` (origin/HEAD then names origin's default branch), or {configure}"


def _unborn(repo: pygit2.Repository) -> str | None:
    """The branch HEAD names while it has no commit (a repository just made), else None."""
    try:
        head = repo.references.get("HEAD")
        target = str(head.target) if head is not None and repo.head_is_unborn else ""
    except pygit2.GitError:
        return None
    return target[len("refs/heads/"):] if target.startswith("refs/heads/") else None


def current(repo: pygit2.Repository) -> PolicyState:
    """The policy in force: the one in the default branch's tip."""
    branch = default_branch(repo)
    if branch is None:
        return PolicyState()
    try:
        tip = repo.references[branch].peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError) as exc:
        return PolicyState(branch, problem=f"cannot read {branch}: {exc}")
    found = at(repo, tip)
    return PolicyState(branch, str(tip.id), found.policy, found.problem)


def at(repo: pygit2.Repository, commit: pygit2.Commit) -> Revision:
    """The policy a commit's tree holds (see ``Revision``)."""
    try:  # bounded by the blob's header: a file of gigabytes compresses to a pack of megabytes
        files = [_file(repo, commit.tree, path, MAX_FILE) for path in (POLICY_FILE, SIGNERS_FILE)]
    except Oversized as exc:
        return Revision(problem=f"{exc} (at {str(commit.id)[:12]})")
    except (KeyError, ValueError, pygit2.GitError) as exc:
        return Revision(problem=f"cannot read the policy at {commit.id}: {exc}")
    if files == [None, None]:
        return Revision()
    if files[0] is None or files[1] is None:
        missing = POLICY_FILE if files[0] is None else SIGNERS_FILE
        return Revision(problem=f"{missing} is missing at {str(commit.id)[:12]}: a policy needs both files")
    try:
        return Revision(parse(files[0], files[1]), signers=files[1])
    except PolicyError as exc:
        return Revision(problem=f"{exc} (at {str(commit.id)[:12]})")


def files_at(repo: pygit2.Repository, revision: str | None) -> tuple[bytes | None, bytes | None]:
    """The bytes of the policy file and the allowed signers at ``revision`` (None for a file
    that is not there, or when the revision cannot be read)."""
    if revision is None:
        return None, None
    try:
        tree = repo[revision].peel(pygit2.Commit).tree
    except (KeyError, ValueError, pygit2.GitError):
        return None, None
    return _file_or_none(repo, tree, POLICY_FILE), _file_or_none(repo, tree, SIGNERS_FILE)


def _file_or_none(repo: pygit2.Repository, tree: pygit2.Tree, path: str) -> bytes | None:
    """``_file`` within the bytes a policy file may hold, or None when it cannot be read so."""
    try:
        return _file(repo, tree, path, MAX_FILE)
    except (KeyError, ValueError, pygit2.GitError):
        return None


class Oversized(ValueError):
    """A file of a commit over the bytes its reader takes, told by its object's header: never
    read, whatever its size (``_file``'s ``limit``)."""


def _file(repo: pygit2.Repository, tree: pygit2.Tree, path: str, limit: int | None = None) -> bytes | None:
    try:
        entry = tree[path]
    except KeyError:
        return None
    if limit is not None:
        try:
            size: int | None = repo.odb.read_header(entry.id)[1]
        except (KeyError, ValueError, pygit2.GitError):  # not here (left out by a partial clone's fetch): read below
            size = None
        if size is not None and size > limit:
            raise Oversized(f"{path} is over {limit} bytes")
    found = repo.get(entry.id)
    if found is None and is_partial(repo) and fetch_left_out(repo, entry.id):
        found = repo.get(entry.id)  # a partial clone's fetch of the branch left it out
    if found is None:
        raise KeyError(f"{path} ({entry.id}) is missing")
    if not isinstance(found, pygit2.Blob):
        raise ValueError(f"{path} is not a file")
    return found.data


def in_history(repo: pygit2.Repository, tip: str, commit: str) -> bool:
    """Whether ``commit`` is ``tip`` or one of its ancestors (false when either is unknown)."""
    if tip == commit:
        return True
    try:
        return commit in repo and repo.descendant_of(tip, commit)
    except (ValueError, pygit2.GitError):
        return False


__all__ = ["REMOTE_HEAD", "PolicyState", "Revision", "at", "current", "default_branch", "files_at", "in_history",
           "no_default_branch"]
