"""How a promoted block stands against the store, and the blocks of a work tree that no longer do.

A promoted block (``blocks``) binds a wiki paragraph or a skill to one accepted learning. It
enters the repository only with its learning's promotion commit, which the promotion gate
judges; removing one needs no such commit (the gate judges only the blocks a commit adds or
changes). So when the learning leaves force (retired, replaced, expired, its evidence withdrawn
or redacted) its block stays in the files agents read until someone removes it in a commit.

``standing`` says how one block stands, as the gate words it. ``in_work_tree`` finds the blocks
of the work tree's ``okf/wiki/`` and ``.agents/skills/``; ``judge_work_tree`` judges them, for
``gitstore doctor`` and for the commands that take learnings out of force, reading the store
only where a block exists. ``judge_skills`` finds, for doctor, the promoted skills changed since
their promotion (compared as the promotion gate compares them, ``unlike_promoted_skill``).
``case_twins`` finds the files of those folders whose paths differ only in case, which the
promotion gate refuses and doctor reports.
"""

from __future__ import annotations

import os
import shlex
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from functools import cache
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


def caseless(path: str) -> str:
    """``path`` as a file system that ignores case compares it: Unicode's canonical caseless
    form (NFD, case folded, NFD again), so ``Reliability.md`` and ``reliability.md`` are one
    name, and so are the composed and decomposed spellings of ``é`` (which macOS folds too)."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", path).casefold())


def case_twins(paths: Iterable[str]) -> list[tuple[str, ...]]:
    """The files of ``paths`` in the wiki or the skills (``in_block_folders``) whose paths are
    one path to a checkout that ignores case (``caseless``), each group in path order, the
    groups in order of their first path. Git keeps both; a checkout on macOS or Windows writes
    one over the other, so the text agents read there may be either file's, whatever was
    reviewed or promoted."""
    groups: dict[str, list[str]] = {}
    for path in sorted(set(paths)):
        if in_block_folders(path):
            groups.setdefault(caseless(path), []).append(path)
    return sorted(tuple(group) for group in groups.values() if len(group) > 1)


@dataclass
class Learnings:
    """The standing the rules give every learning for ``instruction`` (what agents read), the
    current version of each (None when its history is damaged), and the title each is named by
    (``gitstore.records.headline.name_of``: what a promotion names it by, its skill's folder and
    heading included)."""

    statuses: dict[str, Status]
    currents: dict[str, dict[str, Any] | None]
    names: dict[str, str]

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
        from gitstore.records.headline import name_of
        from gitstore.rules.active import evaluate

        return cls(evaluate(view, PURPOSE, all_histories=found),
                   {k: h.current if h.valid else None for k, h in found.items()},
                   {k: name_of(h) for k, h in found.items() if h.valid})


def read_once(store: Callable[[], Store]) -> Callable[[], Learnings]:
    """``Learnings.read`` of ``store()``, read at the first call and kept for the next."""
    return cache(lambda: Learnings.read(store()))


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


def judge_work_tree(root: Path, learnings_of: Callable[[], Learnings]) -> list[Judged]:
    """Every promoted block of the work tree, judged; the learnings (``learnings_of()``) are
    read only when there is a block."""
    placed = in_work_tree(root)
    if not placed:
        return []
    learnings = learnings_of()
    judged = [(p, standing(p.block, learnings)) for p in placed]
    left = _branches_left(root, {p.block.learning for p, found in judged if found.state == OTHER_VERSION})
    return [_judged(p, found, left.get(p.block.learning)) for p, found in judged]


def judge_skills(root: Path, learnings_of: Callable[[], Learnings]) -> list[Judged]:
    """The skills of the work tree's ``.agents/skills/`` that do not stand as promoted
    skills: one whose metadata names a learning in force (read as the promotion gate reads
    it, ``skills.learning_of``) yet is not what promote writes for it, as the gate compares
    them (its blocks set apart: ``standing`` judges those), one that holds a promoted block
    while its metadata names no learning (``blocks_unnamed``), and one that mentions gitstore
    whose front matter cannot be read. Agents load a skill whole, its ``allowed-tools`` and
    instructions as much as its block. The learnings are read only when a skill names one."""
    found = [_skill_judged(path, text, learnings_of) for path, text in _skills_in_work_tree(root)]
    return [judged for judged in found if judged is not None]


def _skill_judged(path: str, text: str, learnings_of: Callable[[], Learnings]) -> Judged | None:
    from gitstore.promote.skills import learning_of

    learning_id, unreadable = learning_of(text)
    if unreadable and "gitstore" not in text.casefold():
        return None  # a person's own skill, whose form the skills gate judges
    if unreadable:
        why = f"the front matter of a skill that mentions gitstore cannot be read: {unreadable}"
        return Judged(path, 1, "", OTHER_TEXT, why, "write front matter that parses (no key twice), or delete the skill")
    kept = blocks_unnamed(text) if not learning_id else []
    if kept:
        return Judged(path, kept[0].line, kept[0].learning, OTHER_TEXT, unnamed_sentence(kept[0]),
                      "remove the block in a commit to make the skill your own (removing one needs no promotion "
                      "commit), or restore the skill as its promotion commit wrote it, or delete the skill")
    if not learning_id or not _in_force(learnings_of(), learning_id):  # no promoted skill, or its block says why
        return None
    problem = unlike_promoted_skill(text, learning_id, learnings_of())
    if problem is None:
        return None
    line, why = problem
    return Judged(path, line, learning_id, OTHER_TEXT,
                  f"the promoted skill of {learning_id} was changed since its promotion: {why}",
                  "restore the skill as its promotion commit wrote it, or drop its gitstore metadata to make it "
                  "your own, or delete the skill")


def _in_force(learnings: Learnings, learning_id: str) -> bool:
    status = learnings.statuses.get(learning_id)
    return status is not None and status.usable and learnings.currents.get(learning_id) is not None


def _skills_in_work_tree(root: Path) -> list[tuple[str, str]]:
    """Each ``SKILL.md`` under the work tree's ``.agents/skills/`` (path from the root, text),
    in path order; symbolic links are not followed, and a file that cannot be read is left
    out."""
    from gitstore.promote.skills import FILE_NAME

    found: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in os.walk(root / SKILLS):
        dirnames.sort()
        path = Path(dirpath, FILE_NAME)
        if FILE_NAME in filenames and not path.is_symlink():
            try:
                found.append((path.relative_to(root).as_posix(), read_regular(path).decode("utf-8", "replace")))
            except OSError:
                continue
    return found


def blocks_unnamed(text: str) -> list[blocks.Block]:
    """The promoted blocks of a ``SKILL.md`` whose metadata names no learning. Promote writes a
    block into a skill only with metadata naming its learning, and judges that skill whole (its
    ``allowed-tools`` and instructions too); a skill naming none is a person's own, judged by no
    promotion rule, so a promoted block kept in one (the metadata dropped or replaced) would
    lend the promoted text to tools and instructions promote never wrote."""
    from gitstore.promote.skills import learning_of

    learning_id, unreadable = learning_of(text)
    return [] if learning_id or unreadable or blocks.MARKER_START not in text else blocks.find(text)


def unnamed_sentence(block: blocks.Block) -> str:
    """How the gate and doctor say that ``block`` is in a skill whose metadata names no learning."""
    return (f"the promoted block of {block.learning} is in a skill whose metadata names no learning, so the skill "
            "is judged as a person's own while agents load the promoted text with whatever tools and instructions "
            "it holds")


def unlike_promoted_skill(text: str, learning_id: str, learnings: Learnings) -> tuple[int, str] | None:
    """(line, why) when ``text``, read without its promoted blocks (which are judged as blocks,
    and which a commit may remove), is not what promote writes as the skill of
    ``learning_id`` (its current version and its name in ``learnings``)."""
    from gitstore.promote import rubric
    from gitstore.promote.routes import skill

    current = learnings.currents.get(learning_id)
    if not current:
        return 1, f"{learning_id} has no accepted version in this repository's store"
    expected = skill.render(current, learnings.names[learning_id], [], sorted(rubric.contexts(current)))
    have, want = _without_blocks(text), [line for _, line in _without_blocks(expected)]
    if [line for _, line in have] == want:
        return None
    index = next((n for n, ((_, a), b) in enumerate(zip(have, want)) if a != b), min(len(have), len(want)))
    line = have[index][0] if index < len(have) else len(text.split("\n"))
    shown = f"promote writes {want[index][:100]!r} here" if index < len(want) else "promote's file ends before"
    return line, f"it differs from what promote writes ({shown})"


def _without_blocks(text: str) -> list[tuple[int, str]]:
    """The lines of ``text`` (1-based number, line) outside its promoted blocks, each run of
    blank lines read as one: what is left of a skill when its blocks are set apart. Blank as
    CommonMark reads it (``blocks.is_blank``): a line of no-break spaces joins the paragraphs
    around it, so it is compared, never folded into a blank line."""
    lines = text.split("\n")
    inside: set[int] = set()
    for block in blocks.find(text):
        last = (block.cited_line or block.line + len(block.statement.split("\n"))) + len(block.continued)
        inside.update(range(block.line, last + 1))
    kept: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        if number in inside or (blocks.is_blank(line) and (not kept or blocks.is_blank(kept[-1][1]))):
            continue
        kept.append((number, line))
    while kept and blocks.is_blank(kept[-1][1]):
        kept.pop()
    return kept


def _branches_left(root: Path, learning_ids: set[str]) -> dict[str, str]:
    """The promotion branches of ``learning_ids`` still in the repository at ``root`` (promoting
    a learning again is refused while its branch is there), by learning."""
    if not learning_ids:
        return {}
    import pygit2

    from gitstore.promote.branch import branch_for

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
           "Learnings", "Placed", "Standing", "blocks_unnamed", "in_work_tree", "judge_skills", "judge_work_tree", "read_once", "standing",
           "unlike_promoted_skill", "unnamed_sentence"]
