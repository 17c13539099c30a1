"""Declaring the scopes this repository had before (``gitstore scope formerly``), and showing
the scope and the declared ones (``gitstore scope show``).

A repository renamed or moved keeps the memory stored under its old scope once its default
branch declares that scope in ``.gitstore/scope.json`` (``gitstore.scope.declared_former``).
As with the policy (``gitstore.ops.policy``), the command only edits that file in the work
tree, checked as the store will read it; the person commits it, and the team reviews and merges
it into the default branch, where every clone reads it. Nothing else is touched.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from gitstore._files import first_link, replace_file
from gitstore.config import Workspace
from gitstore.errors import InvalidInput, Refused
from gitstore.records.inputs import read_regular
from gitstore.scope import (_MAX_FORMER, _MAX_FORMER_BYTES, FORMER_FILE, FORMER_SCHEMA, _declared,
                            declared_former, declares_itself, formerly, named_former, named_scope, origin_of,
                            origin_todo, same_scope)


@dataclass
class FormerChange:
    """What ``gitstore scope formerly`` did: the scope it declared, whether it wrote the file
    (False: the file named it already), every scope the file names, and what to do next."""

    scope: str
    formerly: str
    written: bool
    named: list[str] = field(default_factory=list)
    next: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "formerly": self.formerly, "file": FORMER_FILE, "written": self.written,
                "named": self.named, "next": self.next}


def declare(workspace: Workspace, given: str) -> FormerChange:
    """Declare the scope ``given`` names (a scope or a remote URL, ``named_scope``) one this
    repository had before, in the work tree's ``FORMER_FILE``, keeping what it names already
    (a scope it names, in any spelling, is not named twice). Refused, it writes nothing."""
    old = named_scope(given)
    scope = str(workspace.scope)
    if same_scope(old, scope):
        spelled = "" if old == scope else f", spelled {scope} here"
        raise Refused(f"{old} is this repository's scope now{spelled}: a former scope is one it had before a rename "
                      "or move; once it is renamed or moved, point origin at its new URL (`git remote set-url origin "
                      "NEW-URL`) and declare the old scope then")
    if declares_itself(workspace.repo, scope):  # declaring the current name a former one of the old would invert it
        raise Refused(f"{origin_todo(scope)}; nothing was written")
    root = workspace.root
    link = first_link(root, FORMER_FILE)
    if link is not None:  # a commit can make .gitstore a link: the file would be written wherever it points
        raise Refused(f"{link.relative_to(root).as_posix()} is a link (to {os.readlink(link)}); the declaration is "
                      "written to the work tree's own file, never through a link: make it a file (or folder) of "
                      "its own")
    named = _named_here(workspace)
    spellings = [there for there in named if same_scope(old, there)]
    written = not spellings
    old = spellings[0] if spellings else old  # the file's spelling of it
    if written:
        if len(named) >= _MAX_FORMER:
            raise Refused(f"{FORMER_FILE} names {len(named)} scopes already, the most a declaration may (one "
                          "naming more is not read at all): nothing was written")
        named.append(old)
        text = former_text(named)
        if len(text.encode()) > _MAX_FORMER_BYTES:
            raise Refused(f"{FORMER_FILE} naming {old} too would be over {_MAX_FORMER_BYTES} bytes (a bigger one "
                          "is not read at all): nothing was written")
        try:
            (root / FORMER_FILE).parent.mkdir(exist_ok=True)
        except FileExistsError:
            raise Refused(f"{FORMER_FILE.split('/')[0]} in the work tree is not a folder: the declaration is "
                          f"written in {FORMER_FILE}") from None
        replace_file(root / FORMER_FILE, text)
    return FormerChange(scope, old, written, named, _next(workspace, old, written))


def former_text(named: list[str]) -> str:
    """The bytes of ``FORMER_FILE`` naming ``named``, in that order."""
    return json.dumps({"schema": FORMER_SCHEMA, "formerly": named}, indent=2) + "\n"


def _named_here(workspace: Workspace) -> list[str]:
    """The scopes the work tree's ``FORMER_FILE`` names (none when it is not there); a file the
    store would not read is refused, naming why, and left for the person to mend."""
    path = workspace.root / FORMER_FILE
    try:
        data = read_regular(path, _MAX_FORMER_BYTES)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise InvalidInput(f"{FORMER_FILE}: cannot read ({exc.strerror or exc}): nothing was written") from None
    except InvalidInput:
        data = b" " * (_MAX_FORMER_BYTES + 1)  # over the limit: named below as the store names it
    named, problem = named_former(data, f"{FORMER_FILE} in the work tree")
    if named is None:
        raise InvalidInput(f"{problem}; mend it by hand (or move it away and declare each former scope again): "
                           "nothing was written")
    return named


def _next(workspace: Workspace, old: str, written: bool) -> str:
    """What makes the declaration count: the default branch holding it, then each clone's sync."""
    from gitstore.providers._policy_git import default_branch, no_default_branch
    from gitstore.scope import declare_former

    branch = default_branch(workspace.repo)
    if not written and branch is not None and any(same_scope(old, there) for there in formerly(workspace.scope)):
        return (f"none: {branch_name(branch)}, the default branch, declares it already, and what was stored under "
                f"{old} is read here (and by each clone once its `gitstore sync` fetches that branch)")
    commit = declare_former(old).split(" && ", 1)[1]
    step = "it is committed on this branch" if not written and _committed(workspace) else f"commit it (`{commit}`)"
    said = (f"{step}, have it reviewed and merged into "
            f"{branch_name(branch) if branch else 'the default branch'} and pushed: it counts only once the default "
            f"branch holds it; then `gitstore sync` in each clone reads what was stored under {old}")
    if branch is None:
        why, todo = no_default_branch(workspace.repo)
        said += f"; but {why}, so no declaration is read here until one is named: {todo}"
    return said


def _committed(workspace: Workspace) -> bool:
    """Whether the commit checked out holds the work tree's ``FORMER_FILE`` as it stands."""
    import pygit2

    from gitstore.providers._policy_git import _file

    try:
        there = _file(workspace.repo, workspace.repo.head.peel(pygit2.Commit).tree, FORMER_FILE, _MAX_FORMER_BYTES)
        return there is not None and there == read_regular(workspace.root / FORMER_FILE, _MAX_FORMER_BYTES)
    except (KeyError, ValueError, OSError, InvalidInput, pygit2.GitError):
        return False


def branch_name(branch: str) -> str:
    """A default branch's ref as a person names it: ``main on origin``, or ``main``."""
    if branch.startswith("refs/remotes/"):
        remote, name = branch[len("refs/remotes/"):].split("/", 1)
        return f"{name} on {remote}"
    return branch.removeprefix("refs/heads/")


@dataclass
class ScopeReport:
    """The repository's scope and where it comes from, the former scopes its default branch
    declares (``branch``), why that declaration is not read (``problem``), and whether the work
    tree's file differs from the default branch's, not yet in force (``pending``)."""

    scope: str
    origin: str | None
    branch: str | None
    formerly: list[str]
    problem: str | None
    pending: bool
    stale: str | None = None  # what mends an origin naming a former scope (``scope.declares_itself``)
    declared: list[str] = field(default_factory=list)  # every scope the file names, this clone's own among them

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "origin": self.origin, "file": FORMER_FILE, "branch": self.branch,
                "formerly": self.formerly, "declared": self.declared, "problem": self.problem,
                "pending": self.pending, "staleOrigin": self.stale}


def show(workspace: Workspace) -> ScopeReport:
    """``gitstore scope show``'s report (``ScopeReport``)."""
    import pygit2

    from gitstore.providers._policy_git import _file, default_branch

    repo = workspace.repo
    branch = default_branch(repo)
    named, problem = declared_former(repo, str(workspace.scope))
    there: bytes | None = None
    if branch is not None:
        try:
            there = _file(repo, repo.references[branch].peel(pygit2.Commit).tree, FORMER_FILE, _MAX_FORMER_BYTES)
        except (KeyError, ValueError, pygit2.GitError):  # unreadable, or too big (never read): ``problem`` says so
            there = b""
    try:
        here: bytes | None = read_regular(workspace.root / FORMER_FILE, _MAX_FORMER_BYTES)
    except FileNotFoundError:
        here = None
    except (OSError, InvalidInput):  # a folder, a FIFO, too big: not what the default branch holds
        here = b""
    stale = origin_todo(str(workspace.scope)) if declares_itself(repo, str(workspace.scope)) else None
    return ScopeReport(str(workspace.scope), origin_of(repo)[0], branch, list(named), problem,
                       here is not None and here != there, stale, list(dict.fromkeys(_declared(repo)[0])))


__all__ = ["FormerChange", "ScopeReport", "branch_name", "declare", "former_text", "show"]
