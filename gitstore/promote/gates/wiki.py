"""``gitstore-okf``: the wiki's rules on the pages about to be committed.

For each page of the wiki (``okf/wiki/`` unless ``--root`` says otherwise) passed in:

- the OKF v0.2 page rules: front matter with a non-empty ``type`` and well-formed optional
  families, reserved ``index.md`` and ``log.md`` structure (``gitstore.promote.okf``);
  ``INSTRUCTIONS.md`` is no reserved file of OKF 0.2, so it is a page too (its links judged
  when a change adds it, and not once the base holds it: it is preserved byte for byte, so
  none could be mended);
- no path under the wiki is a symbolic link (or anything but a regular file): pre-commit passes
  such links too, so that no page is read, or skipped, through one;
- no file under the wiki is named ``INSTRUCTIONS.md``, ``index.md`` or ``log.md`` in another case
  (``instructions.md``): a checkout that ignores case puts it in that file's place;
- no file under the wiki (nor a folder it sits in) has a name a generated index entry could not
  link as it is (``okf.name_problem``: ``&``, a backslash, whitespace, ``<``, ``>``,
  parentheses, ``%``, ``#``, ``?``): CommonMark reads ``run&amp;stop.md`` as ``run&stop.md``;
- no file under the wiki is named like markdown but not ``*.md`` (``.MD``, ``.markdown``,
  ``.mkd``): OKF pages are the ``.md`` files, so no rule would read it, yet agents would take
  it for a page (pre-commit passes every file of the wiki, since ``identify`` gives ``.mkd``,
  ``.mdown``, ``.mkdn`` and ``.mdwn`` no tag a type could select; the gate picks the pages);
- every relative link and path-valued source (``okf.written_as_path``: a scope descriptor such as
  ``dashboards/exec-revenue`` names no path) resolves inside the repository, to a file the
  change commits (the index being committed, or the tree of the range's tip: a page left
  untracked or ignored is on this disk only), and every ``#fragment`` names a heading; but for a link of a ``log.md`` entry already logged at the
  base: the log is the wiki's history (OKF 9) and only grows at the top, so an entry cannot be
  reworded, and what it links may have been deleted or renamed since;
- every promoted claim (``gitstore.promote.blocks``), wherever it sits (fenced code included:
  agents read the page as it is), carries a ``Cited:`` line whose citations a reader can follow
  (its own learning's at the version its marker names; each ``path@commit`` a file at a commit
  the repository holds, ``unresolved_sources``), and every marker is well formed: a line holding a full marker that is not one as promote
  writes it (indented, inside other text) is refused even in fenced code, where an example
  keeps placeholders (``lrn_<id>``);
- the tooling overlay (``tooling/``): each page has exactly one outgoing link, to project
  knowledge outside the overlay; no other page links into the overlay, which other clones
  do not have; and no page of it that git's ignore rules ignore is committed (``git add -f``):
  it would land in every clone's overlay (the stub a ``!`` rule lets git track is the project's).

Against the base revision (``--base``, else the pre-push range's start, else HEAD):

- ``INSTRUCTIONS.md`` is preserved byte for byte and never deleted; one written without front
  matter may take front matter above its text, the text kept byte for byte;
- an ``index.md`` gitstore generated (its first line says so, in the change or at the base) is
  exactly what the generator writes, never edited by hand: readers and promotion walk the wiki
  through it; a changed one a person wrote lists every page (``INSTRUCTIONS.md`` aside) and
  every subfolder holding a file of its folder, as OKF asks of an index (headings and
  descriptions are the writer's); one whose folder still holds pages is not deleted;
- a file or subfolder the change adds to a folder (a page renamed into it included) leaves no
  index there out of date, though the change leaves the index alone: a generated one is still
  the inventory, one a person wrote lists each page and subfolder added;
- ``log.md`` only grows at the top (a new date's heading, or entries added to the newest date's
  group: OKF 9 groups entries by date): no entry already logged changes or disappears, nor the log;
- no page that remains has a link or a path-valued source leading to a page (or a folder) the
  change deletes, but for a link of a ``log.md`` entry logged at the base (history);
- no page the change leaves alone (not passed, so its links are not checked) links a heading
  (``#anchor``) that a page the change edits had at the base and no longer has.

pre-commit never passes a deleted path, so the gate runs on every commit (``always_run``), with
the pages that changed, and finds what was deleted itself: the files of the wiki at the base
that the change no longer holds, in the index being committed, or in the tree of the range's
tip (``PRE_COMMIT_TO_REF``) at pre-push and in a run over a range; never the work tree, where
``git rm --cached`` leaves the file (one ``git ls-tree`` and one ``git ls-files``, which it
starts before anything else). Only when something was deleted does it read the pages that
remain.

Every page is read as the change holds it (``_as_committed``): from the work tree when it holds
the wiki as the change does, else from a temporary copy of the wiki written from the blobs of
the range's tip (at pre-push and over a range) or of the index being committed (at a commit), so
a commit made with ``--no-verify`` and put back in the work tree alone is judged as it is pushed.
At pre-push and over a range the pages the range adds or changes that the work tree lacks (a
``git mv`` or ``git rm`` staged, not committed), which pre-commit never passes, are judged too
(``_common.files_of_change``). Run by hand, the work tree is the change.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from posixpath import basename, dirname, join, normpath
from typing import TYPE_CHECKING

from gitstore.promote.gates._common import (
    CommittedFiles, Finding, base_revision, blob_id, blobs, committed_paths, entries, files_of_change, files_only, git,
    git_later, in_parallel, not_regular, parser, relative, report, run, top_level, tree_entries,
)
from gitstore.errors import GitstoreError
from gitstore.promote._git import git_env
from gitstore.promote.blocks import MARKER_START
from gitstore.promote.blocks import find as find_blocks
from gitstore.promote.okf import (
    GENERATED_MARK, INDEX_PAGE, LOCAL_DIRS, LOG_PAGE, OLDER_RULE, RESERVED, OnDisk, Page, escaped_otherwise, file_name,
    is_url, link_problems, link_targets, name_problem, page_cache, page_entry, page_of, read_as, read_page,
    render_index_page, unlisted,
)
from gitstore.promote.pages import page_findings, read_body, resolve_link

if TYPE_CHECKING:
    import subprocess

PROG = "gitstore-okf"
WIKI = "okf/wiki"
INSTRUCTIONS = "INSTRUCTIONS.md"
# OKF pages are the files named *.md (the specification's 3.1); other markdown names would be
# read as pages by agents while no rule of the wiki reads them
_MARKDOWN = frozenset({".md", ".markdown", ".mdown", ".mkd", ".mkdn", ".mdwn"})
# names with a meaning of their own in the wiki, by how a checkout that ignores case spells them
_RESERVED = {name.casefold(): name for name in (INSTRUCTIONS, *RESERVED)}
_NOT_A_PAGE = ("named like a markdown page, but OKF pages end in .md: no rule of the wiki reads this file, yet "
               "agents would take it for a page; rename it to end in .md")


def check(files: Sequence[str], root: Path, wiki_rel: str, base: str | None) -> list[Finding]:
    """Every rule the passed pages of the wiki break, each page read as the change holds it
    (``_as_committed``)."""
    wiki_rel = normpath(wiki_rel).strip("/")
    names = [relative(f, root) for f in files]
    with _as_committed(root, wiki_rel) as src:
        return _check(names, root, src, wiki_rel, base)


@contextmanager
def _as_committed(root: Path, wiki_rel: str) -> Iterator[Path]:
    """The folder the wiki's files are read from: the work tree when it holds the wiki as the
    change does (always, run by hand), else a temporary copy of the wiki as the change holds it
    (``CommittedFiles``: the tree of the range's tip at pre-push and over a range, the index
    being committed at a commit), written from git's blobs and removed afterwards. A commit made
    without the hooks and put back in the work tree alone (``git checkout HEAD~1 -- page``) is
    pushed as it was committed, so it is judged so; and an untracked or ignored file of the wiki
    is in no commit, so no generated index must list it. Outside the wiki the work tree is read,
    within what the change commits (``Committed``). The common case costs two ``git`` calls
    that find nothing to copy."""
    if not CommittedFiles.in_a_hook():
        yield root
        return
    tip, where = CommittedFiles.tip(), os.fspath(root)
    differs = git_later("-C", where, "diff", "--no-ext-diff", "--name-only", "-z", *([tip] if tip else []),
                        "--", wiki_rel, keep_index=True)
    untracked = git_later("-C", where, "ls-files", "--others", "-z", "--", wiki_rel, keep_index=True)
    answers = [differs(), untracked()]
    if all(code == 0 and not out for code, out in answers):
        yield root
        return
    import shutil
    import tempfile

    held = entries(root, tip, (wiki_rel,), keep_index=True)
    if held is None:
        raise GitstoreError(f"git cannot list {wiki_rel} as {tip or 'the index being committed'} holds it")
    contents = blobs(root, sorted({oid for mode, oid in held.values() if mode in _WRITTEN}))
    copy = tempfile.mkdtemp(prefix="gitstore-okf-")
    try:
        os.makedirs(os.path.join(copy, wiki_rel), exist_ok=True)
        for name, (mode, oid) in held.items():
            if not name.startswith(f"{wiki_rel}/"):
                continue  # the wiki's own folder as a link or a submodule: the promotion gate refuses it
            target = os.path.join(copy, name)
            try:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                if mode == "120000":
                    os.symlink(os.fsdecode(contents[oid]), target)
                elif mode in _WRITTEN:
                    with open(target, "wb") as file:
                        file.write(contents[oid])
                else:  # a submodule: a folder, as a clone that does not fetch it holds it
                    os.makedirs(target, exist_ok=True)
            except OSError as exc:
                raise GitstoreError(f"{name}: cannot be copied to be read as the change holds it "
                                    f"({exc.strerror})") from None
        yield Path(copy)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


_WRITTEN = ("100644", "100755", "120000")  # git modes whose blobs a copy of the wiki writes


def _check(names: list[str], root: Path, src: Path, wiki_rel: str, base: str | None) -> list[Finding]:
    """``check`` with the wiki's files read under ``src`` (``_as_committed``); git asked in ``root``."""
    wiki = src / wiki_rel
    inside = [n for n in names if n.startswith(wiki_rel + "/")]
    refused = [f for f in (not_regular(os.path.join(src, n), n) for n in inside) if f is not None]
    refused += [f for f in map(_reserved_in_another_case, inside) if f is not None]
    refused += [Finding(n, 1, why) for n in inside if (why := _unlinkable(n[len(wiki_rel) + 1:])) is not None
                and n not in {f.path for f in refused}]
    refused += [Finding(n, 1, _NOT_A_PAGE) for n in inside if _named_like_a_page(n) and not n.endswith(".md")
                and n not in {f.path for f in refused}]
    pages = [n for n in inside if n.endswith(".md") and n not in {f.path for f in refused}]
    entries = cache(tree_entries(root, base, [wiki_rel])) if base is not None else None
    kept = committed_paths(root, [wiki_rel]) if base is not None else None
    everything = committed_paths(root, []) if pages else None
    logged = _logged(root, entries(), [n for n in pages if basename(n) == LOG_PAGE]) if entries else {}
    preserved = frozenset(n for n in pages if basename(n) == INSTRUCTIONS and entries and n in (entries() or ()))
    committed = Committed(src, everything(), root, wiki_rel) if everything is not None else None  # before forks
    findings = refused + _overlay_committed(root, wiki_rel, pages, committed) + in_parallel(
        pages, lambda chunk: _pages(root, src, chunk, wiki, wiki_rel, logged, committed, preserved),
        lambda row: Finding(*row))
    if entries is not None and kept is not None:
        with page_cache():
            findings += _against_base(root, src, wiki, wiki_rel, pages, entries(), kept())
    return _one_per_stale_index(findings)


def _overlay_committed(root: Path, wiki_rel: str, pages: Sequence[str],
                       committed: Committed | None) -> list[Finding]:
    """A finding for each page of the local tooling overlay (the wiki's root ``tooling/``) that
    the change commits while the project's ignore rules ignore it (``git add -f``): it would land
    in the overlay of every clone, which holds what one person wrote for their own machine. A page
    those rules let git track (the committed stub, ``!okf/wiki/tooling/README.md``) is the
    project's own. A folder named so in another case (``Tooling/``) is the overlay itself on a
    checkout that folds case: any page committed in it is a finding."""
    def folder(name: str) -> str:
        inside = name[len(wiki_rel) + 1:]
        return inside.partition("/")[0] if "/" in inside else ""

    overlay = [n for n in pages if folder(n).casefold() in LOCAL_DIRS]
    overlay = [n for n in overlay if committed is not None and n in committed.paths]
    if not overlay:
        return []
    other_case = {n for n in overlay if folder(n) not in LOCAL_DIRS}
    exact = [n for n in overlay if n not in other_case]
    ignored = _ignored_by_project(root, exact) if exact else set()
    return [Finding(n, 1, f"a page in {folder(n)}/, the local tooling overlay in another case, is committed: a "
                          "checkout that folds case puts it in every clone's overlay, which stays on each person's "
                          f"machine; keep it out (git rm --cached {n})") if n in other_case else
            Finding(n, 1, "a page of the local tooling overlay, which git ignores, is committed: it would land in "
                          "every clone's overlay, which stays on each person's machine; keep it out "
                          f"(git rm --cached {n})") for n in overlay if n in other_case or n in ignored]


def _ignored_by_project(root: Path, names: Sequence[str]) -> set[str]:
    """The paths among ``names`` the repository's own ``.gitignore`` files ignore. A person's
    ``.git/info/exclude`` and ``core.excludesFile`` are left out: a rule of theirs ignoring the
    whole overlay would flag the project's committed stub on their machine alone. git reads them
    from its folder and configuration, so it is pointed at an empty folder of its own."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gitstore-ignore-") as empty:
        for part in ("objects", "refs"):
            os.mkdir(os.path.join(empty, part))
        with open(os.path.join(empty, "HEAD"), "w", encoding="ascii") as head:
            head.write("ref: refs/heads/main\n")
        done = git(f"--git-dir={empty}", f"--work-tree={root}", "-c", "core.excludesFile=", "check-ignore",
                   "--no-index", "-z", "--stdin", cwd=root, check=False,
                   data=b"".join(os.fsencode(n) + b"\0" for n in names))
    return {os.fsdecode(path) for path in done.stdout.split(b"\0") if path} if done.returncode == 0 else set()


def _one_per_stale_index(findings: list[Finding]) -> list[Finding]:
    """FINDINGS without a page's stale entry (``_entry_stale``) in a generated index already
    found to differ from its inventory as a whole: one finding says to regenerate it."""
    whole = {f.path for f in findings if _DIFFERS in f.message}
    return [f for f in findings if not (f.path in whole and (_STALE_ENTRY in f.message or _OLDER_ENTRY in f.message))]


def _reserved_in_another_case(rel: str) -> Finding | None:
    """A finding when ``rel`` is named like ``INSTRUCTIONS.md``, ``index.md`` or ``log.md`` in
    another case: a checkout that ignores case makes it that file (``instructions.md`` in place
    of the instructions no change may edit), while every rule here reads it as another page."""
    name = basename(rel)
    reserved = _RESERVED.get(name.casefold())
    if reserved is None or name == reserved:
        return None
    return Finding(rel, 1, f"named like the reserved {reserved} in another case: a checkout that ignores case puts "
                           "it in that file's place; rename it")


def _unlinkable(rel: str) -> str | None:
    """Why a file at ``rel`` (below the wiki) could not be listed by a generated index as a
    link to itself (``name_problem`` of its name or of a folder it sits in); None when it can."""
    for number, part in enumerate(rel.split("/")):
        if number == 0 and part in LOCAL_DIRS or part.startswith("."):
            return None  # no index lists the local overlay (at the wiki's root) nor a hidden file
        if (why := name_problem(part)) is not None:
            return why if part == basename(rel) else f"its folder {part}/: {why}"
    return None


def _named_like_a_page(name: str) -> bool:
    """Whether ``name`` ends like a markdown file (``.md`` in any case, ``.markdown``, ...)."""
    return os.path.splitext(name)[1].lower() in _MARKDOWN


class Committed:
    """Where a page's links lead as the change leaves the repository (``link_problems``'
    ``files``): a path is there only when the change commits it (``committed_paths``: the index
    being committed, or the tree of the range's tip), or a folder of such a path, or lies behind
    a symbolic link it commits. A file left out (untracked, ignored) is in no clone and no CI
    run, though it is on this disk. What is there is read from disk, as the pages are: from
    ``root``, where the pages are read (a copy of the wiki as the change holds it, when the work
    tree holds it otherwise: ``_as_committed``), and outside the wiki ``wiki_rel`` from the work
    tree ``disk``."""

    def __init__(self, root: Path, paths: set[str], disk: Path | None = None, wiki_rel: str = "") -> None:
        self.root = os.path.abspath(root)
        self.paths = paths
        self.folders = {parent for path in paths for parent in _parents(path)}
        self.disk = os.path.abspath(disk) if disk is not None else self.root
        self.wiki = wiki_rel

    def _on_disk(self, file: str) -> str:
        """Where ``file`` (under ``root``) is read: outside the wiki of a copy, in the work tree."""
        where = os.path.abspath(file)
        if self.disk == self.root or not where.startswith(self.root + os.sep):
            return file
        rel = where[len(self.root) + 1:].replace(os.sep, "/")
        if rel == self.wiki or rel.startswith(f"{self.wiki}/"):
            return file
        return os.path.join(self.disk, rel)

    def kind(self, file: str) -> str | None:
        found = OnDisk.kind(self._on_disk(file))
        where = os.path.abspath(file)
        if found is None or where == self.root:
            return found
        if not where.startswith(self.root + os.sep):
            return found  # outside the repository: ``inside`` says so
        rel = where[len(self.root) + 1:].replace(os.sep, "/")
        if rel in self.paths or rel in self.folders:
            return found
        return found if any(parent in self.paths for parent in _parents(rel)) else None  # behind a link

    def anchors(self, file: str) -> set[str]:
        return OnDisk.anchors(self._on_disk(file))

    inside = staticmethod(OnDisk.inside)


def _pages(root: Path, src: Path, pages: Sequence[str], wiki: Path, wiki_rel: str, logged: dict[str, str],
           files: Committed | None = None, preserved: frozenset[str] = frozenset()) -> list[Finding]:
    """The rules the pages break, each read under ``src``; citations judged in ``root``'s git
    (``preserved``: the ``INSTRUCTIONS.md`` files the base holds, whose links are not judged)."""
    findings: list[Finding] = []
    indexes: dict[str, dict[str, tuple[int, str]] | None] = {}
    with page_cache(), Citations(root) as citations:
        citations.judge(_cited_sources(src, pages))  # at once: each page's findings then find theirs judged
        for rel in pages:
            findings += _page(src, rel, wiki, wiki_rel, logged.get(rel), files, citations, rel in preserved)
            findings += _entry_stale(src, rel, indexes)
    return findings


def _entry_stale(root: Path, rel: str, indexes: dict[str, dict[str, tuple[int, str]] | None]) -> list[Finding]:
    """A finding when the page ``rel`` sits in a folder whose index gitstore generated and that
    index's entry for it is not the page's title and description: a change that edits a page's
    front matter may leave the index alone, and readers and promotion walk the wiki through it
    (``indexes``: each folder's generated index by the page each entry links, None for another,
    read once)."""
    folder, name = os.path.split(rel)
    index = join(folder, INDEX_PAGE)
    if index not in indexes:
        indexes[index] = _generated_entries(os.path.join(root, index))
    entry = (indexes[index] or {}).get(name)
    if entry is None or name in RESERVED:
        return []  # not generated, or not listing the page at all (see ``_added``)
    path = os.path.join(root, rel)
    expected = page_entry(path) if os.path.isfile(path) else entry[1]
    if expected == entry[1]:
        return []
    if escaped_otherwise(entry[1], expected):
        return [Finding(index, entry[0], f"index.md is generated by gitstore: its entry for {name}{_OLDER_ENTRY} "
                                         f"({OLDER_RULE})")]
    return [Finding(index, entry[0], f"index.md is generated by gitstore (its first line says so), never edited by "
                                     f"hand: its entry for {name}{_STALE_ENTRY} (regenerate it: `gitstore wiki index`)")]


_STALE_ENTRY = " is not that page's title and description"
_OLDER_ENTRY = " says that page's title and description, escaped otherwise, as an older gitstore wrote it"
_DIFFERS = "it differs from the inventory of its folder"
_ENTRY_LINK = re.compile(r"^\* \[(?:[^\]\\]|\\.)*\]\(([^()\s]+)\)")  # a title's \] is text (escape_entry_text)


def _generated_entries(path: str) -> dict[str, tuple[int, str]] | None:
    """The entries of the index at ``path`` when gitstore generated it, by what each links:
    (line number, line); else None."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if _MARK not in data:
        return None
    found: dict[str, tuple[int, str]] = {}
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        if (link := _ENTRY_LINK.match(line)) is not None:
            found.setdefault(link.group(1), (number, line))
    return found


def _page(root: Path, rel: str, wiki: Path, wiki_rel: str, logged: str | None,
          files: Committed | None = None, citations: Citations | None = None, preserved: bool = False) -> list[Finding]:
    """The rules the page ``rel`` breaks; ``logged``: a log's text at the base, whose entries'
    links are history (``_recent``); ``files``: what the change commits, where links must lead;
    ``citations``: where its ``path@commit`` citations are judged (else in a reader of its own);
    ``preserved``: an ``INSTRUCTIONS.md`` the base holds, whose links are not judged."""
    path = os.path.join(root, rel)
    if not os.path.isfile(path):
        return []
    links = (lambda page: []) if preserved else (
        lambda page: link_problems(_recent(page, logged), wiki, root, files or OnDisk))
    sources = citations.unresolved if citations is not None else lambda refs: unresolved_sources(root, refs)
    if rel.rsplit("/", 1)[-1] == INSTRUCTIONS:
        return _instructions(page_findings(read_page(path), rel, wiki_rel, links, sources), read_page(path))
    return page_findings(read_page(path), rel, wiki_rel, links, sources)


_INSTRUCTIONS_PAGE = ("OKF 0.2 reserves only index.md and log.md, so INSTRUCTIONS.md is a concept page: it opens with "
                      "front matter holding a non-empty type; add it above the text, which stays byte for byte: the one "
                      "change INSTRUCTIONS.md takes")


def _instructions(found: list[Finding], page: Page) -> list[Finding]:
    """The findings of ``INSTRUCTIONS.md`` (``found``), saying why it needs front matter: it is
    no reserved file of OKF 0.2 (3.1: only ``index.md`` and ``log.md``), so it is a concept
    page, whose front matter holds a ``type`` (4.1, 11). Its links are judged when a change
    adds it, as any page's, and not once the base holds it: the file is preserved byte for
    byte from then on, so a link in it could never be mended, nor a page it links deleted."""
    if page.text is not None and not page.problems and page.meta is None:
        return [f._replace(message=f"{f.message} ({_INSTRUCTIONS_PAGE})") if f.message.startswith("no front matter")
                else f for f in found]
    return found


def unresolved_sources(root: Path, refs: list[str]) -> dict[str, str]:
    """Why each ``path@commit`` citation of ``refs`` names no file or folder at a commit of the
    history of the repository at ``root``: its commit is not there, or more than one object
    begins with it, or HEAD does not reach it, or the path is not in that commit. Outside a git repository nothing is resolved; in a shallow clone a commit
    that is not there may be in the history cut off, so only a file missing from a commit that
    is there is said. Asked of ``git cat-file --batch-check`` (``Citations``): the gate imports
    no pygit2, whose import would cost it more than the rest of its start-up."""
    with Citations(root) as citations:
        return citations.unresolved(refs)


def _cited_sources(root: Path, pages: Sequence[str]) -> list[str]:
    """The ``path@commit`` citations of the promoted claims of ``pages`` (read through the page
    cache), to be judged at once: git answers a batch as fast as one name, and each question
    waited for costs two switches between processes."""
    cited = []
    for rel in pages:
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue  # as ``_page`` reads them
        text = read_page(path).text
        if text and MARKER_START in text:
            cited += [c.ref for block in find_blocks(text) for c in block.citations if c.kind == "source"]
    return cited


def _tree_path(path: str) -> bool:
    """Whether ``path`` names an entry of a tree the way a citation must: git would read
    ``./x``, ``../x`` and empty parts relative to the current folder or as nothing."""
    return "\n" not in path and all(part not in ("", ".", "..") for part in path.split("/"))


class Citations:
    """Judges ``path@commit`` citations in the repository of the work tree ``root`` for one run
    of pages (a gate's worker: the repository does not change meanwhile), asking a ``git
    cat-file --batch-check`` started at the first citation and ended with the block: each name
    asked is answered ``(object id, type)``, the type ``missing`` or ``ambiguous`` when none or
    several objects answer to it (replace refs off, as every read of the repository here).
    Outside a repository nothing is judged."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._process: subprocess.Popen[bytes] | None = None
        self._in_repository: bool | None = None
        self._shallow: bool | None = None
        self._outside: dict[str, bool] = {}
        self._held: dict[str, tuple[str, str]] = {}  # a commit as cited -> (id, type)
        self.verdicts: dict[str, str | None] = {}  # path@commit -> why it resolves to nothing

    def __enter__(self) -> Citations:
        return self

    def __exit__(self, *_: object) -> None:
        process, self._process = self._process, None
        if process is not None:
            assert process.stdin is not None and process.stdout is not None
            process.stdin.close()
            process.stdout.close()
            process.wait()

    def unresolved(self, refs: list[str]) -> dict[str, str]:
        """Why each of ``refs`` names nothing (see ``unresolved_sources``); the others pass."""
        self.judge(refs)
        return {ref: why for ref in refs if (why := self.verdicts.get(ref)) is not None}

    def ask(self, names: list[str]) -> list[tuple[str, str]]:
        if not names:
            return []
        if self._process is None:
            import subprocess

            env = git_env()
            env["GIT_NO_REPLACE_OBJECTS"] = "1"
            self._process = subprocess.Popen(["git", "cat-file", "--batch-check"], cwd=self.root, env=env,
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        answers: list[tuple[str, str]] = []
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        for start in range(0, len(names), _ASKED_AT_ONCE):  # answers never fill the pipe unread
            batch = names[start:start + _ASKED_AT_ONCE]
            stdin.write("".join(f"{name}\n" for name in batch).encode("utf-8", "surrogateescape"))
            stdin.flush()
            for name in batch:
                line = stdout.readline().decode("utf-8", "surrogateescape").rstrip("\n")
                if not line:
                    raise OSError(f"git cat-file ended in {self.root}")
                if line.endswith(" missing") or line.endswith(" ambiguous"):
                    answers.append(("", line.rpartition(" ")[2]))
                else:
                    oid, kind, _ = line.split(" ", 2)
                    answers.append((oid, kind))
        return answers

    def judge(self, refs: Sequence[str]) -> None:
        """Find why each ``path@commit`` of ``refs`` not judged yet names no file or folder at a
        commit of the history (``verdicts``; None: it does), in two batches of questions."""
        unique = [ref for ref in dict.fromkeys(refs) if ref not in self.verdicts]
        if not unique or not self.in_repository():
            return
        paths = [(ref, *ref.rpartition("@")[::2]) for ref in unique]
        commits = [c for c in dict.fromkeys(commit for _, _, commit in paths) if c not in self._held]
        self._held.update(zip(commits, self.ask([f"{commit}^{{commit}}" for commit in commits])))
        held = self._held
        asked = [(ref, path, commit) for ref, path, commit in paths if _tree_path(path) and held[commit][1] == "commit"]
        present = dict(zip([ref for ref, _, _ in asked],
                           self.ask([f"{held[commit][0]}:{path}" for _, path, commit in asked])))
        for ref, path, commit in paths:
            oid, kind = held[commit]
            why = None
            if kind == "ambiguous":
                why = f"names {commit}, which more than one object of this repository begins with: cite the whole id"
            elif kind != "commit":
                if not self.shallow():
                    why = (f"names commit {commit}, which this repository does not hold: a citation names a commit "
                           "of its history")
            elif self.outside_history(oid):
                why = (f"names commit {commit}, which is not in the history of HEAD: a citation names a commit of "
                       "its history")
            elif present.get(ref, ("", "missing"))[1] in ("missing", "ambiguous"):
                why = f"names {path}, which commit {commit} does not hold"
            self.verdicts[ref] = why

    def in_repository(self) -> bool:
        if self._in_repository is None:
            self._in_repository = git("rev-parse", "--git-dir", cwd=self.root, check=False).returncode == 0
        return self._in_repository

    def outside_history(self, commit: str) -> bool:
        """Whether the commit ``commit`` (a whole id) is not reachable from HEAD: an object the
        repository holds that no history leads to (made by ``git commit-tree``, or left by a
        rewritten branch) is no commit of the history a citation names. Unjudged (False) when
        git cannot say, as with no HEAD yet."""
        if commit not in self._outside:
            done = git("merge-base", "--is-ancestor", commit, "HEAD", cwd=self.root, check=False)
            self._outside[commit] = done.returncode == 1
        return self._outside[commit]

    def shallow(self) -> bool:
        if self._shallow is None:
            done = git("rev-parse", "--is-shallow-repository", cwd=self.root, check=False)
            self._shallow = done.stdout.strip() == b"true"
        return self._shallow


_ASKED_AT_ONCE = 256


def _logged(root: Path, entries: dict[str, str] | None, logs: list[str]) -> dict[str, str]:
    """log.md path -> its text at the base, for the logs passed that the base holds."""
    at_base = {rel: entries[rel] for rel in logs if entries and rel in entries}
    contents = blobs(root, sorted(set(at_base.values())))
    return {rel: contents[oid].decode("utf-8", "replace") for rel, oid in at_base.items()}


def _recent(page: Page, logged: str | None) -> Page:
    """The page as its links are checked: for a log, without the entries ``logged`` already
    holds (its text at the base). Those are history, which only grows at the top and is never
    reworded: a page an old entry links may be deleted since, and its link says what was. The
    log's head and its new entries are read as they are."""
    if logged is None or basename(os.fspath(page.path)) != LOG_PAGE or page.text is None:
        return page
    groups = _log_entries(read_body(logged))[1]
    history = set(groups)
    head, entries = _log_entries(page.body, keep_ends=True)
    body = head
    for entry in entries:
        if entry.rstrip("\n") in history:
            body += "\n" * entry.count("\n")
        elif groups and _grown(groups[0], entry.rstrip("\n")):  # the day's group, with entries added: its old ones
            old = set(groups[0].split("\n"))
            body += "\n".join("" if line in old else line for line in entry.split("\n"))
        else:
            body += entry
    return Page(page.path, page.text, page.meta, body, page.problems)


def _against_base(root: Path, src: Path, wiki: Path, wiki_rel: str, pages: list[str],
                  entries: dict[str, str] | None, kept: set[str]) -> list[Finding]:
    """What the change breaks of what the base holds; ``kept``: the files of the wiki the change
    leaves (``committed_paths``); the wiki's files read under ``src``, git asked in ``root``."""
    if entries is None:
        return []  # nothing committed yet: nothing to preserve
    gone = {rel for rel in entries if rel not in kept}
    found = _deleted(src, wiki_rel, pages, entries, gone, kept, root) if gone else []
    found += _anchors_lost(root, src, wiki_rel, pages, entries, kept)
    changed: dict[str, str | None] = {}  # path -> base blob id (None: new)
    for rel in [p for p in entries if p.rsplit("/", 1)[-1] == INSTRUCTIONS] + pages:
        name = rel.rsplit("/", 1)[-1]
        if name not in (INSTRUCTIONS, INDEX_PAGE, LOG_PAGE) or rel in changed:
            continue
        path = src / rel
        if not path.is_file():
            if name == INSTRUCTIONS and rel not in gone:  # not a regular file: refused as such
                found.append(Finding(rel, 1, "INSTRUCTIONS.md is preserved byte for byte and may not be deleted"))
            continue
        old = entries.get(rel)
        if old is None or blob_id(path.read_bytes(), len(old)) != old:
            changed[rel] = old
    contents = blobs(root, [oid for oid in changed.values() if oid])
    for rel, old in changed.items():
        found += _changed(src / rel, rel, wiki, contents.get(old) if old else None, kept)
    for folder, names in _added(src, wiki_rel, entries, kept).items():
        index = join(folder, INDEX_PAGE)
        if index in kept and index not in changed and _regular(src / index):
            found += _index_misses(src / index, index, wiki, names, kept)
    return found


def _added(root: Path, wiki_rel: str, entries: dict[str, str], kept: set[str]) -> dict[str, set[str]]:
    """folder of the wiki -> the names of what the change adds in it: a file, or a subfolder
    that held no file at the base (a page renamed into the folder is added there too). These
    are what the folder's index must list, though the change may leave the index alone (no
    index lists a hidden name or the local overlay). A symbolic link is refused as such: a page
    replacing it is listed then."""
    before = set(entries) | {parent for path in entries for parent in _parents(path)}
    added: dict[str, set[str]] = {}
    for path in kept.difference(entries):
        if os.path.islink(os.path.join(root, path)):
            continue
        child = path
        for folder in _parents(path):
            if folder != wiki_rel and not folder.startswith(f"{wiki_rel}/"):
                break
            name = basename(child)
            overlay = folder == wiki_rel and name in LOCAL_DIRS  # the local overlay is the root's only
            if child not in before and not overlay and not name.startswith("."):
                added.setdefault(folder, set()).add(name)
            child = folder
    return added


def _regular(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def _index_misses(path: Path, rel: str, wiki: Path, names: set[str], kept: set[str]) -> list[Finding]:
    """What the index ``rel``, which the change leaves alone, misses of the ``names`` the change
    adds to its folder: one gitstore generated is no longer the inventory (it lists every file
    and subfolder); one a person wrote does not list an added page or subfolder."""
    now = path.read_bytes()
    if _MARK in now:
        return _generated_differs(path, rel, wiki, now, f", to which this change adds {', '.join(sorted(names))}")
    pages, subfolders = _contents(dirname(rel), kept, top=path.parent == wiki)
    return [Finding(rel, 1, f"index.md does not list {name}, which this change adds: an index lists every page and "
                            "subfolder of its folder (add it)")
            for name in unlisted(now.decode("utf-8", "replace"), pages & names, subfolders & names)]


def _deleted(root: Path, wiki_rel: str, pages: list[str], entries: dict[str, str], gone: set[str],
             kept: set[str], disk: Path | None = None) -> list[Finding]:
    """What deleting the files ``gone`` (of the wiki at the base) breaks: a reserved file that
    must stay, and each link or source of a page that remains leading into what was deleted
    (not a link of a log's entry already logged: ``_recent``; a log not passed is the base's).
    The pages passed are not read again: their own links were checked against what the change
    commits (``Committed``), where what it deletes is not."""
    folders = {dirname(path) for path in kept}
    folders |= {parent for folder in list(folders) for parent in _parents(folder)}
    found = [finding for rel in sorted(gone) for finding in [_reserved_gone(rel, kept)] if finding]
    passed = set(pages)
    remaining = sorted(rel for rel in entries if rel.endswith(".md") and rel in kept and rel not in passed
                       and basename(rel) != INSTRUCTIONS and not os.path.islink(os.path.join(root, rel)))
    for rel in remaining:
        found += _links_into_gone(root, rel, wiki_rel, gone, kept | folders, disk)
    return found


def _anchors_lost(git_root: Path, root: Path, wiki_rel: str, pages: list[str], entries: dict[str, str],
                  kept: set[str]) -> list[Finding]:
    """Each ``#fragment`` link of a page the change leaves alone (so not passed, its links not
    checked) that names a heading a page it changes had at the base and has no more (renamed
    or removed). Only the pages passed whose bytes differ from the base's are read at the base."""
    at_base = {rel: entries[rel] for rel in pages if rel in entries and basename(rel) != INSTRUCTIONS
               and os.path.isfile(os.path.join(root, rel))
               and blob_id((root / rel).read_bytes(), len(entries[rel])) != entries[rel]}
    contents = blobs(git_root, sorted(set(at_base.values()))) if at_base else {}
    lost = {rel: missing for rel, oid in at_base.items() if oid in contents
            for missing in [page_of(rel, contents[oid].decode("utf-8", "replace")).anchors
                            - read_page(os.path.join(root, rel)).anchors] if missing}
    if not lost:
        return []
    passed = set(pages)
    found = []
    for rel in sorted(r for r in entries if r.endswith(".md") and r in kept and r not in passed
                      and basename(r) != INSTRUCTIONS and not os.path.islink(os.path.join(root, r))):
        page = read_page(os.path.join(root, rel))
        if page.text is None or page.problems:
            continue
        page = _recent(page, page.text)  # a log left alone: every entry is history
        for target, what, written, line in link_targets(page):
            name, _, fragment = target.partition("#")
            resolved = resolve_link(rel, target, wiki_rel) if name else rel
            if fragment and not is_url(target) and fragment in lost.get(resolved, ()):
                found.append(Finding(rel, line, f"{what} {written}: no heading with anchor #{fragment} (this change "
                                                f"renames or removes it in {resolved}){read_as(written, target)}"))
    return found


def _parents(folder: str) -> list[str]:
    """The folders above ``folder`` (a path from the repository's root), nearest first."""
    found = []
    while folder:
        folder = dirname(folder)
        found.append(folder)
    return found


def _reserved_gone(rel: str, kept: set[str]) -> Finding | None:
    """A finding when ``rel``, deleted, is a file of the wiki that must stay."""
    name = basename(rel)
    if name == INSTRUCTIONS:
        return Finding(rel, 1, "INSTRUCTIONS.md is preserved byte for byte and may not be deleted")
    if name == LOG_PAGE:
        return Finding(rel, 1, "log.md only grows at the top: this change deletes it, and every entry logged in it")
    if name == INDEX_PAGE and any(dirname(path) == dirname(rel) and path.endswith(".md")
                                  and basename(path) != INDEX_PAGE for path in kept):
        return Finding(rel, 1, "index.md is never deleted while its folder holds pages: it is their inventory "
                               "(list them in it)")
    return None


def _links_into_gone(root: Path, rel: str, wiki_rel: str, gone: set[str], there: set[str],
                     disk: Path | None = None) -> list[Finding]:
    """Each link or path-valued source of the page ``rel`` (one the change does not touch) that
    leads to a deleted file, or into a deleted folder (one the change no longer holds a file in).
    ``there``: the files and folders of the wiki the change leaves. A log's entries are history:
    the page is unchanged, so all of them are logged at the base."""
    page = read_page(os.path.join(root, rel))
    if page.text is None or page.problems:
        return []  # a page the base passed; its own problems are its next change's
    page = _recent(page, page.text)
    inside = wiki_rel + "/"

    def remains(path: str) -> bool:
        return path in there if path.startswith(inside) else os.path.lexists(os.path.join(disk or root, path))

    found = []
    for target, what, written, line in link_targets(page):
        name = file_name(target.partition("#")[0])
        if not name or is_url(target):
            continue
        resolved = resolve_link(rel, target, wiki_rel)
        if what != "link" and not name.startswith("/") and not remains(resolved):
            resolved = normpath(join(wiki_rel, name))  # a source may be a path from the bundle root
        if resolved in gone or (not remains(resolved) and any(path.startswith(f"{resolved}/") for path in gone)):
            found.append(Finding(rel, line, f"{what} {written} does not resolve: it leads to {resolved}, which this "
                                            f"change deletes{read_as(written, target)}"))
    return found


def _changed(path: Path, rel: str, wiki: Path, before: bytes | None, kept: set[str]) -> list[Finding]:
    name = path.name
    now = path.read_bytes()
    if name == INSTRUCTIONS:
        if before is None or _front_matter_added(before, now):
            return []
        return [Finding(rel, _first_difference(before, now), "INSTRUCTIONS.md is preserved byte for byte; "
                                                             "this change edits it")]
    if name == INDEX_PAGE:
        return _index_changed(path, rel, wiki, before, now, kept)
    if before is not None and not _log_grows(before.decode("utf-8", "replace"), now.decode("utf-8", "replace")):
        return [Finding(rel, _first_difference(before, now), "log.md only grows at the top: an entry already "
                                                             "logged changed or went missing")]
    return []


_MARK = GENERATED_MARK.encode("utf-8")


def _index_changed(path: Path, rel: str, wiki: Path, before: bytes | None, now: bytes,
                   kept: set[str]) -> list[Finding]:
    """An index gitstore generated (its mark at the top, now or at the base) is exactly what the
    generator writes: the inventory readers and promotion walk, never edited by hand. One a
    person wrote is held to what OKF asks of an index: it lists every page and subfolder of
    its folder that the change commits (its headings and descriptions are the writer's)."""
    if _MARK in now or (before is not None and _MARK in before):
        return _generated_differs(path, rel, wiki, now)
    pages, subfolders = _contents(dirname(rel), kept, top=path.parent == wiki)
    return [Finding(rel, 1, f"index.md does not list {name}: an index lists every page and subfolder of its folder")
            for name in unlisted(now.decode("utf-8", "replace"), pages, subfolders)]


def _generated_differs(path: Path, rel: str, wiki: Path, now: bytes, why: str = "") -> list[Finding]:
    """A finding when the index ``rel`` is not exactly what the generator writes for its folder
    (``why``: what the change did to the folder, when it left the index alone)."""
    expected = render_index_page(wiki, path.parent).encode("utf-8")
    if now == expected:
        return []
    return [Finding(rel, _first_difference(expected, now), "index.md is generated by gitstore (its first line says "
                                                           f"so), never edited by hand: {_DIFFERS}{why} (regenerate it: `gitstore wiki index`)")]


def _contents(folder: str, kept: set[str], *, top: bool = False) -> tuple[set[str], set[str]]:
    """The pages of ``folder`` and its subfolders holding a file, in what the change commits
    (``INSTRUCTIONS.md`` is no page; hidden folders are no subfolder, nor, in the wiki's root
    folder (``top``), the local overlay)."""
    pages, subfolders = set(), set()
    for path in kept:
        if not path.startswith(f"{folder}/"):
            continue
        first, _, rest = path[len(folder) + 1:].partition("/")
        if rest and not (top and first in LOCAL_DIRS) and not first.startswith("."):
            subfolders.add(first)
        elif not rest and first.endswith(".md") and first not in (INSTRUCTIONS, *RESERVED):
            pages.add(first)
    return pages, subfolders


def _log_entries(text: str, keep_ends: bool = False) -> tuple[str, list[str]]:
    """A log's head (what comes before its first ``## `` heading) and its entries (each heading
    and what follows it), without their trailing line breaks unless ``keep_ends``."""
    parts = re.split(r"(?m)^(?=## )", text)
    return parts[0], [p if keep_ends else p.rstrip("\n") for p in parts[1:]]


def _log_grows(before: str, after: str) -> bool:
    """Whether the log ``after`` is ``before`` with entries added at the top: under new date
    headings, or in the newest date's group (``_grown``); no entry logged changes or goes."""
    head_before, entries_before = _log_entries(before)
    head_after, entries_after = _log_entries(after)
    if head_before.rstrip("\n") != head_after.rstrip("\n"):
        return False
    if not entries_before:
        return True
    if len(entries_after) < len(entries_before):
        return False
    kept = entries_after[-len(entries_before):]
    return kept[1:] == entries_before[1:] and _grown(entries_before[0], kept[0])


def _grown(logged: str, group: str) -> bool:
    """Whether the date group ``group`` is ``logged`` (the newest group at the base; both without
    their trailing line breaks) as it was, or with entries added right under its heading or
    after its last entry: OKF 9 groups a log's entries by date, so a second change logged the
    same day joins that day's group, while each entry logged stays as it was."""
    if group == logged:
        return True
    heading, _, body = logged.partition("\n")
    now_heading, _, now_body = group.partition("\n")
    old, new = body.strip("\n"), now_body.strip("\n")
    return heading == now_heading and (not old or new.endswith("\n" + old) or new.startswith(old + "\n"))


def _front_matter_added(before: bytes, now: bytes) -> bool:
    """Whether ``now`` is ``before``, which opens with no front matter, with front matter (and
    a blank line, or none) put above it and nothing else changed: how an ``INSTRUCTIONS.md``
    written before OKF 0.2 asked for front matter becomes a page (``_instructions``), its text
    preserved byte for byte. The front matter is then judged as any page's."""
    from gitstore.promote.okf import split_front_matter

    try:
        old, new = before.decode("utf-8"), now.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if old.startswith("---") or not new.startswith("---"):
        return False
    meta, body, problems = split_front_matter(new)
    return meta is not None and not problems and body in (old, "\n" + old) and new.endswith(old)


def _first_difference(before: bytes, after: bytes) -> int:
    for number, (a, b) in enumerate(zip(before.split(b"\n"), after.split(b"\n")), start=1):
        if a != b:
            return number
    return min(before.count(b"\n"), after.count(b"\n")) + 1


def main(argv: Sequence[str] | None = None) -> int:
    files, wiki, base = files_only(argv), WIKI, None
    if files is None:
        command = parser(PROG, __doc__.splitlines()[0])
        command.add_argument("--root", default=WIKI, help="the wiki's folder in the repository (default: okf/wiki)")
        command.add_argument("--base", default=None, help="judge changes against this revision (default: "
                                                          "PRE_COMMIT_FROM_REF, else HEAD)")
        args = command.parse_args(argv)
        files, wiki, base = args.files, args.root, args.base

    def gate() -> int:
        root = top_level()
        return report(check(files_of_change(files, root, PROG), root, wiki, base_revision(base, root)))

    from gitstore.promote.gates._pushed import with_others

    return run(PROG, with_others(PROG, gate, __name__))
