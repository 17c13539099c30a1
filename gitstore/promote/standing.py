"""How a promoted block stands against the store, and the blocks of a work tree that no longer do.

A promoted block (``blocks``) binds a wiki paragraph or a skill to one accepted learning. It
enters the repository only with its learning's promotion commit, which the promotion gate
judges; removing one needs no such commit (the gate judges only the blocks a commit adds or
changes). So when the learning leaves force (retired, replaced, expired, its evidence withdrawn
or redacted) its block stays in the files agents read until someone removes it in a commit.

``standing`` says how one block stands, as the gate words it. ``in_work_tree`` finds the blocks
of the work tree's ``okf/wiki/`` and ``.agents/skills/``; ``judge_work_tree`` judges them, for
``gitstore doctor`` and for the commands that take learnings out of force, reading the store
only where a block exists.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitstore.promote import blocks
from gitstore.records.inputs import read_regular

if TYPE_CHECKING:
    from gitstore.rules.active import Status
    from gitstore.rules.lifecycle import History
    from gitstore.rules.view import View
    from gitstore.store import Store

SKILLS = ".agents/skills/"  # where promote writes skills
BLOCK_FOLDERS = ("okf/wiki/", SKILLS)  # where promoted blocks live
OVERLAY_FOLDER = "okf/wiki/tooling/"  # route 0's pages: git ignores them, no commit removes one

IN_FORCE = "in-force"  # the learning is accepted and in force, and the block holds its accepted text
UNKNOWN = "unknown"  # no learning of this store: memory not fetched, or a block no promotion wrote
NOT_IN_FORCE = "not-in-force"  # retired, replaced, expired, its evidence withdrawn or redacted
OTHER_VERSION = "other-version"  # in force, but the block names another contentDigest
OTHER_TEXT = "other-text"  # in force, but the block's text is not the accepted text


def in_block_folders(path: str) -> bool:
    """Whether ``path`` is in a folder promoted blocks live in, spelled in any case: a checkout
    on a case-insensitive file system (macOS, Windows) puts ``OKF/wiki/x.md`` in ``okf/wiki/``
    and ``.agents/Skills/x`` among the skills."""
    return path.casefold().startswith(BLOCK_FOLDERS)


@dataclass
class Learnings:
    """The standing the rules give every learning for ``instruction`` (what agents read), and
    the current version of each (None when its history is damaged)."""

    statuses: dict[str, Status]
    currents: dict[str, dict[str, Any] | None]

    @classmethod
    def read(cls, store: Store) -> Learnings:
        """Read from the decisions and the episodes the learnings that may be in force cite, as
        a view of the whole store would (``gitstore learnings --active`` reads the same)."""
        from gitstore.queries._views import in_force_view

        return cls.judged(*in_force_view(store))

    @classmethod
    def judged(cls, view: View, found: dict[str, History]) -> Learnings:
        """The standing of every learning of ``found`` (every history), judged with ``view``."""
        from gitstore.promote.verify import PURPOSE
        from gitstore.rules.active import evaluate

        return cls(evaluate(view, PURPOSE, all_histories=found),
                   {k: h.current if h.valid else None for k, h in found.items()})


@dataclass(frozen=True)
class Standing:
    """How a block stands: one of the states above, a sentence that says so, and, for a
    learning not in force, why (the rules' reasons) and what replaced it."""

    state: str
    sentence: str
    reasons: tuple[str, ...] = ()
    replaced_by: str | None = None


def standing(block: blocks.Block, learnings: Learnings) -> Standing:
    """How ``block`` stands against the learning its marker names."""
    learning_id = block.learning
    status, current = learnings.statuses.get(learning_id), learnings.currents.get(learning_id)
    if status is None:
        return Standing(UNKNOWN, f"a promoted block names {learning_id}, which is not a learning of this "
                                 "repository's store")
    if current is None or not status.usable:
        return Standing(NOT_IN_FORCE, f"a promoted block names {learning_id}, which is not an accepted learning "
                                      "in force", status.reasons, status.replaced_by)
    if block.content_digest != current["contentDigest"]:
        return Standing(OTHER_VERSION, f"the promoted block of {learning_id} names {block.content_digest}, not "
                                       "its accepted contentDigest")
    if block.statement != current["content"]["text"]:
        return Standing(OTHER_TEXT, f"the promoted text of {learning_id} differs from the accepted learning")
    if block.continued:
        return Standing(OTHER_TEXT, f"{blocks.CONTINUED} {learning_id}")
    return Standing(IN_FORCE, f"the promoted block of {learning_id} holds its accepted text")


@dataclass(frozen=True)
class Placed:
    """A promoted block in a file of the work tree (``path``: from its root, with ``/``)."""

    path: str
    block: blocks.Block


def in_work_tree(root: Path) -> list[Placed]:
    """Every promoted block in the files under ``okf/wiki/`` and ``.agents/skills/`` of the
    work tree at ``root`` (tracked or not: agents read what is there), in path order. Symbolic
    links are not followed; a file that cannot be read holds none."""
    found: list[Placed] = []
    marker = blocks.MARKER_START.encode()
    for folder in BLOCK_FOLDERS:
        for dirpath, dirnames, filenames in os.walk(root / folder):
            dirnames.sort()
            for name in sorted(filenames):
                path = Path(dirpath, name)
                try:
                    data = b"" if path.is_symlink() else read_regular(path)  # a FIFO: none, at once
                except OSError:
                    continue
                if marker in data:
                    where = path.relative_to(root).as_posix()
                    found.extend(Placed(where, b) for b in blocks.find(data.decode("utf-8", "replace")))
    return found


@dataclass(frozen=True)
class Judged:
    """A block of the work tree and how it stands, with what to do about it."""

    path: str
    line: int
    learning: str
    state: str
    why: str
    todo: str

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def judge_work_tree(root: Path, store: Callable[[], Store]) -> list[Judged]:
    """Every promoted block of the work tree, judged; the store (``store()``) is read only
    when there is a block."""
    placed = in_work_tree(root)
    if not placed:
        return []
    learnings = Learnings.read(store())
    judged = [(p, standing(p.block, learnings)) for p in placed]
    left = _branches_left(root, {p.block.learning for p, found in judged if found.state == OTHER_VERSION})
    return [_judged(p, found, left.get(p.block.learning)) for p, found in judged]


def _branches_left(root: Path, learning_ids: set[str]) -> dict[str, str]:
    """The promotion branches of ``learning_ids`` still in the repository at ``root`` (promoting
    a learning again is refused while its branch is there), by learning."""
    if not learning_ids:
        return {}
    import pygit2

    from gitstore.promote.packet import branch_for

    try:
        repo = pygit2.Repository(str(root))
    except pygit2.GitError:
        return {}
    return {i: branch_for(i) for i in sorted(learning_ids) if f"refs/heads/{branch_for(i)}" in repo.references}


def _judged(placed: Placed, found: Standing, branch: str | None = None) -> Judged:
    block = placed.block
    why = "; ".join(found.reasons) if found.state == NOT_IN_FORCE else found.sentence
    return Judged(placed.path, block.line, block.learning, found.state, why or found.sentence,
                  _todo(placed.path, block.learning, found, branch))


def _todo(path: str, learning_id: str, found: Standing, branch: str | None = None) -> str:
    """What to do about a block that does not stand (empty for one that does)."""
    if found.state == IN_FORCE:
        return ""
    remove = ("delete the page (the tooling overlay is on this machine only; no commit holds it)"
              if path.startswith(OVERLAY_FOLDER) else
              "remove the block in a commit (removing one needs no promotion commit)")
    if found.state == UNKNOWN:
        return f"`gitstore sync` if memory was not fetched here, else {remove}"
    if found.state == NOT_IN_FORCE and found.replaced_by:  # a replacement lands as a staged brief: no commit
        return f"{remove}, then `gitstore promote {found.replaced_by}` for its replacement"
    if found.state == NOT_IN_FORCE:
        return remove
    if found.state == OTHER_TEXT and found.sentence.startswith(blocks.CONTINUED):
        return f"leave a blank line after the block's Cited: line, or {remove}"
    if found.state == OTHER_TEXT:
        return f"put back the accepted text (`gitstore show {learning_id}`), or {remove}"
    again = f"git branch -D {shlex.quote(branch)} && gitstore promote {learning_id}" if branch else \
        f"gitstore promote {learning_id}"
    return f"{remove}, then `{again}` for its accepted version"


__all__ = ["BLOCK_FOLDERS", "SKILLS", "in_block_folders", "IN_FORCE", "NOT_IN_FORCE", "OTHER_TEXT", "OTHER_VERSION", "UNKNOWN", "Judged",
           "Learnings", "Placed", "Standing", "in_work_tree", "judge_work_tree", "standing"]
