"""Setting up a repository's OKF wiki and regenerating its indexes (``gitstore wiki``).

Promotion edits the page of ``okf/wiki/`` that owns a learning, found through the wiki's
``index.md`` (``gitstore.promote.routing``); without one, a learning can only become a staged
brief. ``init`` starts the bundle: its root ``index.md`` as gitstore generates it (declaring
the OKF version, listing the pages there are), nothing else, and never over a wiki already
there. ``index`` regenerates every generated index from the pages' front matter, with the
generator this project's own wiki uses (``gitstore.promote.okf.stale_indexes``); an index a
person wrote (no generated mark) is left alone. Both touch only the work tree: the person
commits what they wrote. Neither follows a symbolic link: a linked page, file or folder of the
wiki is left out of the indexes and named (the gitstore-okf gate refuses it), and a command
that would write an index through one writes nothing at all. ``index`` also names each page,
file or folder whose name an index entry cannot link as it is (a space, a bracket:
``gitstore.promote.okf.unlinkable_names``, the gate's own rule), which the gate refuses. An
index hands each page's title and description, as YAML decodes the front matter, to every agent
reading the wiki: one the safety scanner quarantines or redacts is never written, the command
refusing and naming the page and the key (``_screen_entries``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitstore._files import first_link, replace_file
from gitstore.errors import Refused
from gitstore.promote.okf import (
    INDEX_PAGE, entry_texts, folder_pages, hand_written_indexes, linked_paths, only_escaping_differs,
    render_index_page, stale_indexes, unlinkable_names,
)
from gitstore.promote.routing import WIKI

PAGE_FRONT_MATTER = "type, title, description, tags"
NEXT_PAGES = (f"write one page per topic in {WIKI}/ (front matter: {PAGE_FRONT_MATTER}; a `## ` section per "
              "subtopic): promote gives a learning to the page whose title, description, tags and headings "
              "share its words, or that its targets name")
NEXT_INDEX = f"run `gitstore wiki index` after adding or retitling a page, and commit {WIKI}/"
NEXT_PROMOTE = "then `gitstore promote LEARNING` edits the owning page's section on its own branch"
CHECK_HINT = ("`gitstore wiki index --check` (or the gitstore-okf pre-commit hook) fails while an index "
              "is out of date")


@dataclass
class WikiChange:
    """What a wiki command wrote (or, checking, found out of date), and what to do next."""

    wiki: str
    written: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    older: list[str] = field(default_factory=list)  # stale only in how an older gitstore escaped its entries
    kept: list[str] = field(default_factory=list)  # indexes a person wrote, left alone
    linked: list[str] = field(default_factory=list)  # symbolic links, neither followed nor listed
    unlinkable: list[tuple[str, str]] = field(default_factory=list)  # (path, why) names the gate refuses
    next: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"wiki": self.wiki, "written": self.written, "stale": self.stale, "olderEscaping": self.older, "handWritten": self.kept,
                "linked": self.linked,
                "unlinkable": [{"path": path, "problem": why} for path, why in self.unlinkable], "next": self.next}


def init(root: Path) -> WikiChange:
    """Start the wiki of the repository whose work tree is ``root``: ``okf/wiki/index.md``
    as gitstore generates it. Refused, it writes nothing, when the index is there already
    (``gitstore wiki index`` regenerates it) or a symbolic link is on the way."""
    wiki = root / WIKI
    index = wiki / INDEX_PAGE
    _no_link(root, f"{WIKI}/{INDEX_PAGE}")
    if index.exists() or index.is_symlink():
        raise Refused(f"{WIKI}/{INDEX_PAGE} is there already: gitstore wiki init never overwrites a wiki; "
                      "run `gitstore wiki index` to regenerate its indexes")
    if wiki.exists() and not wiki.is_dir():
        raise Refused(f"{WIKI} is a file, not a folder: move it away, then run gitstore wiki init again")
    # the root index (missing, so out of date) first, then those of pages there already, in subfolders
    writes = stale_indexes(wiki, keep_hand_written=True) if wiki.is_dir() else []
    for path, _ in writes:  # all checked before any is written
        _no_link(root, _rel(root, path))
    _screen_entries(root, [path for path, _ in writes])
    wiki.mkdir(parents=True, exist_ok=True)
    writes = writes or [(index, render_index_page(wiki))]
    written = [_write(root, path, text) for path, text in writes]
    return WikiChange(WIKI, written=written, linked=_linked(root, wiki), next=[NEXT_PAGES, NEXT_INDEX, NEXT_PROMOTE])


def index(root: Path, *, check: bool = False) -> WikiChange:
    """Regenerate every generated index of ``okf/wiki/`` (with ``check``, only name those out
    of date). An index a person wrote is left alone and named, and so is each page, file or
    folder whose name an index entry cannot link as it is, which the gitstore-okf gate refuses."""
    wiki = root / WIKI
    _no_link(root, WIKI)
    if not wiki.is_dir():
        raise Refused(f"there is no {WIKI}/ here: run `gitstore wiki init` to start one")
    change = WikiChange(WIKI, kept=[_rel(root, p) for p in hand_written_indexes(wiki)], linked=_linked(root, wiki),
                        unlinkable=[(_rel(root, p), why) for p, why in unlinkable_names(wiki)])
    stale = stale_indexes(wiki, keep_hand_written=True)
    change.stale = [_rel(root, page) for page, _ in stale]
    change.older = [_rel(root, page) for page, text in stale if page.is_file() and not page.is_symlink()
                    and only_escaping_differs(page.read_text(encoding="utf-8", errors="replace"), text)]
    _screen_entries(root, [page for page, _ in stale])
    if not check:
        for rel in change.stale:  # all checked before any is written
            _no_link(root, rel)
        change.written = [_write(root, page, text) for page, text in stale]
    if change.unlinkable:
        change.next = ["rename each page, file or folder named above as a slug: the gitstore-okf gate refuses "
                       "a name an index entry cannot link as it is"]
    if change.written:
        change.next += [f"commit {WIKI}/ (its pages and indexes together)"]
    elif check and change.stale:
        change.next += ["run `gitstore wiki index`, then commit the indexes it rewrote"]
    return change


def _screen_entries(root: Path, indexes: list[Path]) -> None:
    """Refuses, naming each page and what was found, to write indexes listing a title or
    description the safety scanner quarantines (hidden or bidirectional characters, injected
    instructions) or redacts (a secret, a home path), as YAML decodes the page's front matter:
    an index hands them to every agent reading the wiki. Nothing is written; the page is to
    fix (gitstore-scan names its front-matter line)."""
    from gitstore.safety.gate import screen_text

    problems = []
    for index in indexes:
        for page in folder_pages(index.parent) if index.parent.is_dir() else []:
            for key, value in zip(("title", "description"), entry_texts(page)):
                what = f"{_rel(root, page)}: its {key}"
                try:
                    if screen_text(value, what) != value:
                        problems.append(f"{what} holds a secret or private path")
                except Refused as exc:
                    problems.append(str(exc).split(";")[0])
    if problems:
        raise Refused(f"{'; '.join(problems)}: an index hands each page's title and description to agents, "
                      "so no index was written; fix the page's front matter, then run `gitstore wiki index` again")


def _no_link(root: Path, path: str) -> None:
    link = first_link(root, path)
    if link is not None:
        raise Refused(f"{link.relative_to(root).as_posix()} is a symbolic link: gitstore writes the wiki "
                      "only in the work tree's own folders")


def _linked(root: Path, wiki: Path) -> list[str]:
    return [_rel(root, p) for p in linked_paths(wiki)]


def _write(root: Path, path: Path, text: str) -> str:
    replace_file(path, text)
    return _rel(root, path)


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()
