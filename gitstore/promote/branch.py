"""Promotion branches: one commit on ``memory/promote/<learning-id>``, built from trees.

The commit is written straight into git's object database: the base commit's tree with the
route's files replaced, a commit object whose parent is the base, then the branch ref. The
current branch, HEAD, the index and the work tree are never touched, so a promotion is safe in
the middle of any work. The message ends with trailers that bind the commit to the store::

    Gitstore-Learning: lrn_<id>
    Gitstore-Content-Digest: sha256:...
    Gitstore-Review-Digest: sha256:...
    Gitstore-Packet: sha256:...
"""

from __future__ import annotations

import os
import re
from typing import Any

import pygit2

from gitstore.errors import Refused
from gitstore.promote.snapshot import Snapshot

TRAILERS = ("Gitstore-Learning", "Gitstore-Content-Digest", "Gitstore-Review-Digest", "Gitstore-Packet")
_TRAILER = re.compile(r"^(Gitstore-[A-Za-z-]+):[ \t]*(.*?)[ \t]*$")
_ROUTE_WORDS = {"direct-edit": "direct edit of", "skill": "skill", "overlay": "overlay page",
                "staged-update": "staged brief for"}


def message(packet: dict[str, Any], title: str) -> str:
    """The commit message of a promotion: a summary, what changed, the trailers."""
    subject = f"Promote {packet['learning']}: {' '.join(title.split())}"
    if len(subject) > 100:
        subject = subject[:99].rstrip() + "…"
    reasons = "\n".join(f"- {r}" for r in packet["rubric"]["reasons"])
    checks = ", ".join(c["name"] for c in packet["checks"])
    return (
        f"{subject}\n\n"
        f"Route {packet['route']}: {_ROUTE_WORDS[packet['route']]} {packet['target']}.\n\n"
        f"Why this route:\n{reasons}\n\n"
        f"Checks passed: {checks}.\n\n"
        f"Gitstore-Learning: {packet['learning']}\n"
        f"Gitstore-Content-Digest: {packet['contentDigest']}\n"
        f"Gitstore-Review-Digest: {packet['reviewDigest']}\n"
        f"Gitstore-Packet: {packet['digest']}\n"
    )


def trailers(text: str) -> dict[str, list[tuple[int, str]]]:
    """The ``Gitstore-*`` trailers of a commit message: name -> [(1-based line, value)]. Only
    the last paragraph counts, as git reads trailers; comment lines are ignored."""
    lines = [line for line in text.split("\n")]
    numbered = [(n, line) for n, line in enumerate(lines, start=1) if not line.startswith("#")]
    while numbered and not numbered[-1][1].strip():
        numbered.pop()
    paragraph: list[tuple[int, str]] = []
    for number, line in reversed(numbered):
        if not line.strip():
            break
        paragraph.insert(0, (number, line))
    found: dict[str, list[tuple[int, str]]] = {}
    for number, line in paragraph:
        match = _TRAILER.match(line)
        if match:
            found.setdefault(match.group(1), []).append((number, match.group(2)))
    return found


def signature(repo: pygit2.Repository, role: str) -> pygit2.Signature:
    """Who authors or commits: git's environment variables, then its configuration."""
    name = os.environ.get(f"GIT_{role}_NAME")
    email = os.environ.get(f"GIT_{role}_EMAIL")
    try:
        name = name or repo.config["user.name"]
        email = email or repo.config["user.email"]
    except KeyError:
        pass
    if not name or not email:
        raise Refused("git has no user.name and user.email: set them (git config user.name ...) to commit")
    return pygit2.Signature(name, email)


def _tree_with(repo: pygit2.Repository, tree: pygit2.Tree | None, path: list[str], blob: pygit2.Oid,
               mode: int) -> pygit2.Oid:
    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    head, rest = path[0], path[1:]
    if not rest:
        builder.insert(head, blob, mode)
        return builder.write()
    existing = builder.get(head)
    sub = repo[existing.id] if existing is not None and existing.filemode == pygit2.GIT_FILEMODE_TREE else None
    builder.insert(head, _tree_with(repo, sub, rest, blob, mode), pygit2.GIT_FILEMODE_TREE)
    return builder.write()


def build_commit(snapshot: Snapshot, files: dict[str, str], text: str) -> pygit2.Oid:
    """A commit object on top of the snapshot's commit with ``files`` written; no ref moves."""
    repo = snapshot.repo
    tree_id = snapshot.commit.tree.id
    for path, content in sorted(files.items()):
        blob = repo.create_blob(content.encode("utf-8"))
        mode = snapshot.mode(path) or pygit2.GIT_FILEMODE_BLOB
        tree_id = _tree_with(repo, repo[tree_id], path.split("/"), blob, mode)
    author = signature(repo, "AUTHOR")
    committer = signature(repo, "COMMITTER")
    return repo.create_commit(None, author, committer, text, tree_id, [snapshot.commit.id])


def existing(repo: pygit2.Repository, branch: str) -> pygit2.Commit | None:
    """The commit a branch points at, or None when there is no such branch."""
    ref = repo.references.get(f"refs/heads/{branch}")
    return ref.peel(pygit2.Commit) if ref is not None else None


def in_the_way(repo: pygit2.Repository, branch: str) -> str | None:
    """A ref that keeps ``branch`` from being created (it, a ref named like one of its folders,
    or one inside it), or None."""
    name = f"refs/heads/{branch}"
    parts = name.split("/")
    for end in range(3, len(parts) + 1):
        prefix = "/".join(parts[:end])
        if repo.references.get(prefix) is not None:
            return prefix
    return next((ref for ref in repo.references if ref.startswith(name + "/")), None)


def create_branch(repo: pygit2.Repository, branch: str, commit: pygit2.Oid) -> None:
    """Point a new branch at ``commit``; refuses when the branch (or a ref in its way) exists."""
    try:
        repo.references.create(f"refs/heads/{branch}", commit, force=False)
    except (pygit2.AlreadyExistsError, ValueError, pygit2.GitError) as exc:
        raise Refused(f"cannot create branch {branch}: {exc}") from None
