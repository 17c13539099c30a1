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
from collections.abc import Mapping
from typing import Any, cast

import pygit2

from gitstore._gitconfig import value as git_setting
from gitstore.errors import Refused
from gitstore.promote.snapshot import Snapshot

BRANCH_PREFIX = "memory/promote/"
TRAILERS = ("Gitstore-Learning", "Gitstore-Content-Digest", "Gitstore-Review-Digest", "Gitstore-Packet")
_KEY_LINE = re.compile(r"^([A-Za-z0-9-]+)[ \t]*:[ \t]*(.*?)[ \t]*$")  # a trailer line, as git finds one
_CLAIM = re.compile(r"^(gitstore-[A-Za-z0-9-]*)[ \t]*:", re.IGNORECASE)
_KNOWN = {name.lower(): name for name in TRAILERS}
_SCISSORS = "# ------------------------ >8 ------------------------\n"
_GIT_PREFIXES = ("Signed-off-by: ", "(cherry picked from commit ")
_ROUTE_WORDS = {"direct-edit": "direct edit of", "skill": "skill", "overlay": "overlay page",
                "staged-update": "staged brief for"}


def branch_for(learning_id: str) -> str:
    """The branch a learning's promotion lands on."""
    return f"{BRANCH_PREFIX}{learning_id}"


def message(packet: dict[str, Any], title: str, warnings: Mapping[str, str] | None = None) -> str:
    """The commit message of a promotion: a summary (``title``: the caller gives
    ``gitstore.records.headline.title_for``, never a title a person's edit at accept left behind),
    what changed, the checks (one that passed with a warning says what it warns of, in a line of
    its own), the trailers. The subject names the learning as plain text with nothing GitHub acts
    on (``gitstore._github_text.plain``): a closing keyword before ``#N`` in a commit that
    reaches the default branch would close that issue; the gates verify the trailers and the
    warnings, never the subject."""
    from gitstore._github_text import plain

    subject = plain(f"Promote {packet['learning']}: {title}")
    if len(subject) > 100:
        subject = subject[:99].rstrip() + "…"
    reasons = "\n".join(f"- {plain(r)}" for r in packet["rubric"]["reasons"])  # a page's section names
    warned = dict(warnings or {})
    checks = ", ".join(c["name"] for c in packet["checks"] if c["name"] not in warned)
    cautions = "".join(f"\nCheck warned: {name}: {' '.join(what.split())}" for name, what in warned.items())
    return (
        f"{subject}\n\n"
        f"Route {packet['route']}: {_ROUTE_WORDS[packet['route']]} {packet['target']}.\n\n"
        f"Why this route:\n{reasons}\n\n"
        f"Checks passed: {checks}.{cautions}\n\n"
        f"Gitstore-Learning: {packet['learning']}\n"
        f"Gitstore-Content-Digest: {packet['contentDigest']}\n"
        f"Gitstore-Review-Digest: {packet['reviewDigest']}\n"
        f"Gitstore-Packet: {packet['digest']}\n"
    )


def trailers(text: str) -> dict[str, list[tuple[int, str]]]:
    """The ``Gitstore-*`` trailers of a commit message, read as git reads trailers: name (any
    case of a known key given as that key) -> [(1-based line, value)]. Comment lines are
    ignored."""
    found: dict[str, list[tuple[int, str]]] = {}
    for number, key, value in _trailer_block(text):
        if key.lower().startswith("gitstore-"):
            found.setdefault(_KNOWN.get(key.lower(), key), []).append((number, value))
    return found


def stray_trailers(text: str) -> list[tuple[int, str]]:
    """The lines of a message that begin like a ``Gitstore-*`` trailer yet are not in its
    trailer block, so git does not read them as trailers: [(1-based line, key)]."""
    read = {number for number, _, _ in _trailer_block(text)}
    lines = enumerate(_above_scissors(text).split("\n"), start=1)
    return [(n, match.group(1)) for n, line in lines
            if n not in read and not line.startswith("#") and (match := _CLAIM.match(line))]


def _above_scissors(text: str) -> str:
    """The message above git's scissors line (``git commit -v`` puts the diff below it)."""
    at = ("\n" + text).find("\n" + _SCISSORS)
    return text if at < 0 else text[:at]


def _trailer_block(text: str) -> list[tuple[int, str, str]]:
    """The trailers of the message's trailer block by git's rules (its last paragraph, never
    the title: every line a trailer or a continuation, or a quarter of them trailers with one
    git writes itself), each as (line, key, value with its continuation lines)."""
    lines = [(n, line) for n, line in enumerate(_above_scissors(text).split("\n"), start=1)
             if not line.startswith("#")]
    title_end = next((i for i, (_, line) in enumerate(lines) if not line.strip()), len(lines))
    body = lines[title_end:]
    while body and not body[-1][1].strip():
        body.pop()
    start = len(body)
    while start > 0 and body[start - 1][1].strip():
        start -= 1
    if start == 0:
        return []  # the title, or a body without a blank line before its last paragraph
    found: list[list[Any]] = []
    last: list[Any] | None = None
    others = cherry_picks = 0
    git_wrote = False
    for number, line in body[start:]:
        match = _KEY_LINE.match(line)
        git_wrote = git_wrote or line.startswith(_GIT_PREFIXES)
        if match:
            last = [number, match.group(1), match.group(2)]
            found.append(last)
        elif line[:1].isspace() and last is not None:
            last[2] = f"{last[2]} {line.strip()}".strip()  # a continuation, unfolded as git does
        elif line.startswith(_GIT_PREFIXES):
            last, cherry_picks = None, cherry_picks + 1
        else:
            last, others = None, others + 1
    keys = len(found) + cherry_picks
    if not keys or (others and not (git_wrote and keys * 3 >= others)):
        return []
    return [(n, key, value) for n, key, value in found]


def signature(repo: pygit2.Repository, role: str) -> pygit2.Signature:
    """Who authors or commits: git's environment variables, then its configuration."""
    name = os.environ.get(f"GIT_{role}_NAME") or git_setting(repo, "user.name")
    email = os.environ.get(f"GIT_{role}_EMAIL") or git_setting(repo, "user.email")
    if not name or not email:
        raise Refused("git has no user.name and user.email: set them (git config user.name ...) to commit")
    return pygit2.Signature(name, email)


def _tree_with(repo: pygit2.Repository, tree: pygit2.Tree | None, path: list[str], blob: pygit2.Oid,
               mode: int, above: str = "") -> pygit2.Oid:
    """``tree`` with the file at ``path`` (its parts, below the folder ``above``) written.
    Refuses to put a file where a folder is or a folder where a file (or a link) is: the
    commit would delete what stood there."""
    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    head, rest = path[0], path[1:]
    existing = builder.get(head)
    here = f"{above}{head}"
    is_tree = existing is not None and existing.filemode == pygit2.GIT_FILEMODE_TREE
    if not rest:
        if is_tree:
            raise Refused(f"{here} is a folder, not a file, at the promotion's base: it is never replaced")
        builder.insert(head, blob, mode)
        return builder.write()
    if existing is not None and not is_tree:
        raise Refused(f"{here} is a file, not a folder, at the promotion's base: it is never replaced")
    sub = cast(pygit2.Tree, repo[existing.id]) if existing is not None else None
    builder.insert(head, _tree_with(repo, sub, rest, blob, mode, f"{here}/"), pygit2.GIT_FILEMODE_TREE)
    return builder.write()


def build_commit(snapshot: Snapshot, files: dict[str, str], text: str) -> pygit2.Oid:
    """A commit object on top of the snapshot's commit with ``files`` written; no ref moves."""
    repo = snapshot.repo
    tree_id = snapshot.commit.tree.id
    for path, content in sorted(files.items()):
        blob = repo.create_blob(content.encode("utf-8"))
        mode = snapshot.mode(path) or pygit2.GIT_FILEMODE_BLOB
        tree_id = _tree_with(repo, cast(pygit2.Tree, repo[tree_id]), path.split("/"), blob, mode)
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
