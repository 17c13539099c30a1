"""Published learnings enter the repository only as ``gitstore publish`` writes them.

``gitstore publish`` writes the accepted project learnings in force into committed files agents
read by themselves: the managed section of ``AGENTS.md``, ``CLAUDE.md`` and
``.github/copilot-instructions.md`` (one line per text, ending in the learnings that say it),
and gitstore's entries of ``.continual-learning/index.json`` (those naming a ``learning``). The
section's header tells every agent that its lines were accepted by the people who review the
repository. A line written there by hand, by anyone who can push a branch, would carry that
claim for text no one accepted, so the promotion gate reads, in each commit it judges that
changes one of these files, the lines and entries the commit adds (those in none of its
parents' versions of the file). Each must be what publish writes now (``publish.select``: in
force for instruction, accepted by a person, of the project's audience, shared, citing no
personal session, clear of the safety scanner), its text the text of every learning it names.
Lines a commit keeps, moves or removes are not judged again, nor the section's header, but a
commit that only removes or changes lines there must leave the section's lines matching the
digest its begin marker carries (``_edited_here``): publish leaves a section edited by hand as
it is, so a learning retired later would stay there for every agent. And a
merge keeps what an older parent holds, so over a range the lines and entries at its tip that
are not at its base and that no commit adds are judged too (``carried_problems``). The line
saying what was left out carries no learning's text, but agents read it under the header too: it
passes only as publish writes it (learning ids and how many more, nothing else), once, last in
the section, naming learnings publish writes that the section does not show.

Agents read the whole file, not the section as ``sections.split`` finds it. So a line a commit
adds outside that section, to these files or to any other file agents read by themselves
(``AGENTS.md`` and ``AGENTS.override.md`` in any folder, ``AGENT.md``, ``CLAUDE.md``,
``CLAUDE.local.md`` and ``.claude/rules/``, ``GEMINI.md``, Copilot's instructions under
``.github/instructions/``, the custom agents Copilot and Claude Code hand work to by themselves
(``.github/agents/``, ``.github/chatmodes/``, ``.claude/agents/``), the commands and prompt files
they run when asked by name (``.claude/commands/``, ``.cursor/commands/``, ``.github/prompts/``),
Gemini Code Assist's ``.gemini/`` folder, and the rule files of other
agents: Zed's ``.rules``, ``.cursorrules`` and every file under ``.cursor/rules/``,
``.windsurfrules`` and ``.windsurf/rules/``, ``.clinerules`` as a file or a folder, ``.roorules``
and ``.roo/rules/``, ``.kiro/steering/``, ``.junie/``, ``.goosehints``, ``.continue/rules/``,
``.amazonq/rules/``, ``.augment-guidelines`` and ``.augment/rules/``,
``.openhands/microagents/``, each in any folder), fails when it
imitates what only gitstore writes: a marker of the section or of a promoted block, the
section's header, or the bracketed list of learning ids that ends each line publish writes,
however spelled (in capitals, spaced, indented, in look-alike letters, in other brackets; a marker
or the header spread over the lines of one paragraph, which a reader reads as one). A
person's prose that names a learning ("see lrn_... for why") is no such line. Agents read through a symbolic link, where the gate reads the path it
holds: such a file, a folder they read rule files from (``.cursor/rules``, ``.github``), or a
folder above a file publish writes (``.continual-learning``), that a commit makes a link is
refused unless it leads to another file agents read (``CLAUDE.md`` -> ``AGENTS.md``), with
``..`` only before the first name of its target (``landing``). And the index is read as publish reads it: one that is not JSON, repeats a
member name or is not the index's shape is refused whole (another reader would take what the
gate passed over).
"""

from __future__ import annotations

import json
import posixpath
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from gitstore import _jsontext
from gitstore.deliver import clindex, publish, sections
from gitstore.errors import InvalidInput
from gitstore.promote.gates._common import FOLDER, LINK, SUBMODULE, Finding, Listing


class _Version(Protocol):
    def read(self, path: str) -> bytes | None: ...


class Change(Protocol):
    """What the promotion gate's ``Change`` gives: the files a commit changes, how to read
    them, its parents, and how findings name it."""

    @property
    def changes(self) -> dict[str, str]: ...
    @property
    def read(self) -> Callable[[str], bytes | None]: ...
    @property
    def parent(self) -> Callable[[], _Version | None] | None: ...
    @property
    def merged(self) -> tuple[Callable[[], _Version | None], ...]: ...
    @property
    def pending(self) -> bool: ...
    @property
    def label(self) -> str: ...
    @property
    def called(self) -> str: ...
    @property
    def links(self) -> Callable[[list[str]], set[str]] | None: ...
    @property
    def listing(self) -> Callable[[], Listing] | None: ...


class Memory(Protocol):
    """What the promotion gate's ``Memory`` gives: every learning's standing and what publish
    would write now."""

    @property
    def statuses(self) -> Mapping[str, Any]: ...
    @property
    def currents(self) -> Mapping[str, dict[str, Any] | None]: ...
    @property
    def unowned(self) -> str: ...
    def publishable(self) -> tuple[dict[str, clindex.Fact], dict[str, str]]: ...

SECTIONS = (publish.AGENTS, publish.CLAUDE, publish.COPILOT)
PATHS = (*SECTIONS, clindex.PATH)
# files agents read by themselves, in any folder: where a line imitating gitstore's is refused
# (Zed reads ``.rules`` first, then ``AGENT.md`` among the others; Augment ``.augment-guidelines``)
_READ_BY_AGENTS = frozenset({"AGENTS.md", "AGENTS.override.md", "AGENT.md", "CLAUDE.md", "CLAUDE.local.md",
                             "GEMINI.md", ".rules", ".cursorrules", ".windsurfrules", ".clinerules", ".roorules",
                             ".goosehints", ".augment-guidelines"})
# folders of rule files agents read by themselves, in any folder: Cursor's, Windsurf's, Cline's,
# Roo Code's, Kiro's steering files, Junie's guidelines, Claude Code's rules, Continue's,
# Amazon Q's, Augment's, OpenHands' microagents, and the custom agents Copilot and Claude Code
# hand work to by themselves (Copilot's chat modes are their former name)
_RULE_FOLDERS = (".cursor/rules/", ".windsurf/rules/", ".clinerules/", ".roo/rules/", ".kiro/steering/", ".junie/",
                 ".claude/rules/", ".continue/rules/", ".amazonq/rules/", ".augment/rules/",
                 ".openhands/microagents/", ".github/agents/", ".github/chatmodes/", ".claude/agents/",
                 # the commands and prompt files agents run as they are written when asked by name,
                 # and Gemini Code Assist's style guide, which it reads on every review
                 ".claude/commands/", ".cursor/commands/", ".github/prompts/", ".gemini/")
# the folders agents look in for rule files: a symbolic link there leads them anywhere
_RULE_FILE_PLACES = frozenset({".github", ".github/instructions", *(f.rstrip("/") for f in _RULE_FOLDERS),
                               *(f.split("/")[0] for f in _RULE_FOLDERS)})
# every folder above a file publish writes (``.github``, ``.continual-learning``): a link there has
# agents and the index's readers open what it leads to, where the gate reads the published path
_ABOVE_PUBLISHED = frozenset("/".join(parts[:n]) for path in PATHS for parts in [path.split("/")]
                             for n in range(1, len(parts)))
_RULE_PLACES = _RULE_FILE_PLACES | _ABOVE_PUBLISHED  # the folders a link at is judged here (``_link_problem``)
# the folders agents load skills from, in any folder: the Agent Skills' own, Claude Code's, Copilot's
SKILL_ROOTS = (".agents/skills/", ".claude/skills/", ".github/skills/")
# every folder agents load something from (rule files, skills, the wiki), and every folder above one, in
# any folder (the wiki: at the root): a submodule or a link there puts another repository's files, or
# whatever it leads to, where agents load them
_LOAD_PLACES = frozenset({*_RULE_PLACES, *(f.rstrip("/") for f in SKILL_ROOTS),
                          *(f.split("/")[0] for f in SKILL_ROOTS)})
PATHSPECS = (*(f":(literal,icase){path}" for path in PATHS),
             *(f":(glob,icase)**/{name}" for name in sorted(_READ_BY_AGENTS)),
             *(f":(glob,icase)**/{folder}**" for folder in _RULE_FOLDERS),
             *(f":(glob,icase)**/{place}" for place in sorted(_RULE_PLACES)),
             ":(glob,icase).github/instructions/**/*.instructions.md")  # what a range reads commits for, in any case
# the same names compared in any case: a checkout on a case-insensitive file system (macOS,
# Windows) has agents read ``agents.md`` as ``AGENTS.md`` and ``.Cursor/Rules/`` as ``.cursor/rules/``
_FOLDED_PATHS = frozenset(path.casefold() for path in PATHS)
_FOLDED_NAMES = frozenset(name.casefold() for name in _READ_BY_AGENTS)
_FOLDED_FOLDERS = tuple(folder.casefold() for folder in _RULE_FOLDERS)
_FOLDED_PLACES = frozenset(place.casefold() for place in _RULE_PLACES)
_FOLDED_RULE_FILE_PLACES = frozenset(place.casefold() for place in _RULE_FILE_PLACES)
_FOLDED_LOAD_PLACES = frozenset(place.casefold() for place in _LOAD_PLACES)
_FOLDED_SKILL_ROOTS = tuple(root.casefold() for root in SKILL_ROOTS)
# what a range reads commits for beyond PATHSPECS: the skills' folders and the folders above them, in any folder
LOAD_PATHSPECS = (*(f":(glob,icase)**/{root}**" for root in SKILL_ROOTS),
                  *(f":(glob,icase)**/{place}" for place in sorted(_LOAD_PLACES - _RULE_PLACES)))
_IMITATED = (("gitstorelearnings", "a marker of the section `gitstore publish` writes"),
             ("gitstorepromoted", "a promoted block's marker, which promote writes only in okf/wiki/ and "
                                  ".agents/skills/"),
             ("learningsfromreviewgitstore", "the header of the section `gitstore publish` writes"),
             ("acceptedbythepeoplewhoreviewthisrepository", "the claim that heads the section `gitstore publish` "
                                                            "writes"))  # a team's own "Learnings from review" is its own
_LEARNING_ID = re.compile(r"lrn[0-9a-f]{32}")  # as ``_imitated`` reads a line: without its underscore
_IDS = re.compile(r"(?:lrn[0-9a-f]{32})+")  # a list of them, read so
_LINK_TARGET = re.compile(r"\]\([^()]*\)$")  # ``[lrn_<id>](url)``: the list is the link's text


def published_problems(change: Change, memory_of: Callable[[], Memory],
                       added_by: Counter[tuple[str, str]] | None = None) -> list[Finding]:
    """Each line or entry of a published file that ``change`` adds and publish would not write
    now, one finding (see the module's documentation). ``added_by`` counts what it adds (path,
    line or entry), judged here, for ``carried_problems``."""
    found, added, section_of = _read_added(change)
    if added_by is not None:
        added_by.update((path, text) for path, _, text in added)
    return found + _judged(added, section_of, memory_of, who(change))


def carried_problems(change: Change, memory_of: Callable[[], Memory], added_by: Counter[tuple[str, str]],
                     how: str, seen: Counter[tuple[str, str]] | None = None) -> list[Finding]:
    """Each line or entry ``change`` (a whole range: its tip against its base, or what merging
    it gives against its start) adds that no commit of the range adds (``added_by``) and publish
    would not write now, one finding: a merge whose file is the same as one parent's adds nothing
    of its own, yet that parent may be an older commit, holding a line of a learning since
    retired. ``how`` says where it came from; ``seen`` counts each line it judges, so the next
    comparison of the range does not judge it again."""
    _, added, section_of = _read_added(change)
    left = Counter(added_by)
    carried = []
    for path, number, text in added:
        if left[(path, text)]:
            left[(path, text)] -= 1
        else:
            carried.append((path, number, text))
            if seen is not None:
                seen[(path, text)] += 1
    return _judged(carried, section_of, memory_of, how)


def _read_added(change: Change) -> tuple[list[Finding], list[tuple[str, int, str]], dict[str, list[str]]]:
    """What ``change`` adds to published files: the findings reading them gives (a link, an
    imitation, an index publish refuses), the lines and entries it adds (path, line, what it
    says), and the lines of each file's section that carry something."""
    paths = sorted(path for path, status in change.changes.items() if status != "D" and read_by_agents(path))
    places = sorted(path for path, status in change.changes.items() if status != "D" and _rule_place(path))
    if not paths and not places:
        return [], [], {}
    links = change.links([*paths, *places]) if change.links is not None else set()
    found = [f for path in sorted(links) for f in [_link_problem(change, path)] if f is not None]
    paths = [path for path in paths if path not in links]
    parents = [p() for p in (change.parent, *change.merged) if p is not None] if paths else []
    added: list[tuple[str, int, str]] = []  # (path, line, what the line or entry says)
    section_of: dict[str, list[str]] = {}  # path -> the lines of its section that carry something
    for path in paths:
        data = change.read(path)
        if data is None:
            continue
        earlier = [before for before in (p.read(path) for p in parents if p is not None) if before]
        if path == clindex.PATH:
            try:
                ours, others = _entries(data)
            except clindex.Blocked as exc:
                found.append(Finding(path, 1, f"{exc}: agents read it as it is, past what the gate can judge; "
                                              f"{who(change)}, and only `gitstore publish` writes what is "
                                              "published (it refuses such an index)"))
                continue
            before = [_entries_or_none(b) for b in earlier]
            added += [(path, 1, entry) for entry in _new(ours, [mine for mine, _ in before])]
            found += [Finding(path, 1, f"an entry that is not gitstore's (it names no `learning`) still names "
                                       f"{imitated} ({entry[:80]}); agents take it for gitstore's; {who(change)}, "
                                       "and only `gitstore publish` writes what is published")
                      for entry in _new(others, [theirs for _, theirs in before])
                      for imitated in [_imitated(entry, any_id=True)] if imitated]
            continue
        try:
            lines, span = _section_lines(data, path) if path in SECTIONS else ([], range(0))
        except InvalidInput as exc:
            found.append(Finding(path, 1, f"{exc} ({who(change)})"))
            continue
        found += _imitations(change, path, data, span, earlier)
        section_of[path] = [text for _, text in lines]
        kept = [[text for _, text in _section_lines_or_none(before, path)] for before in earlier]
        new = [(path, number, text) for number, text in _added(lines, kept)]
        added += new
        if not new and span and _edited_here(data, path, earlier):
            by = "the commit being made" if change.pending else change.called
            found.append(Finding(path, span.start, f"the gitstore section was edited by hand in {by}: its lines no "
                                                   "longer match the digest its begin marker carries, so `gitstore "
                                                   "publish` would leave it as it is from now on, a learning it "
                                                   "retires or edits kept there; only `gitstore publish` writes what "
                                                   "is published"))
    return found, added, section_of


def _edited_here(data: bytes, path: str, earlier: list[bytes]) -> bool:
    """Whether the file's section (``data``) no longer matches its marker's digest (a hand edit
    inside the markers: ``sections.Split.edited``) and none of the parents' versions holds it so."""
    section = sections.split(data.decode("utf-8", "replace"), path)
    if not section.edited:
        return False
    for before in earlier:
        try:
            if sections.split(before.decode("utf-8", "replace"), path).section == section.section:
                return False
        except InvalidInput:
            continue
    return True


def _judged(added: list[tuple[str, int, str]], section_of: dict[str, list[str]], memory_of: Callable[[], Memory],
            how: str) -> list[Finding]:
    """A finding for each of ``added`` (path, line, what it says) that publish would not write
    now; ``how`` says how it came."""
    if not added:
        return []
    memory = memory_of()
    found = []
    for path, number, text in added:
        problem = _judge_entry(text, memory) if path == clindex.PATH else \
            _judge_line(text, section_of.get(path, []), memory)
        if problem:
            found.append(Finding(path, number, f"{problem}; {how}, and only `gitstore publish` writes "
                                               "what is published"))
    return found


def read_by_agents(path: str) -> bool:
    """Whether agents read ``path`` by themselves, or publish writes it, its name spelled in
    any case (a case-insensitive checkout reads ``agents.md`` as ``AGENTS.md``)."""
    path = path.casefold()
    name = path.rsplit("/", 1)[-1]
    return path in _FOLDED_PATHS or name in _FOLDED_NAMES or (
        path.startswith(".github/instructions/") and name.endswith(".instructions.md")) or any(
        path.startswith(folder) or f"/{folder}" in path for folder in _FOLDED_FOLDERS)


def loaded_by_agents(path: str) -> bool:
    """Whether agents load ``path`` (from the repository's root) among what they read, spelled in
    any case: a file they read by themselves (``read_by_agents``), a file of the wiki or of the
    skills promote writes to (``standing.BLOCK_FOLDERS``), or one under a folder they load skills
    from (``SKILL_ROOTS``, in any folder). The one list the gates share: the scan reads each such
    file whatever its bytes, and the promotion gate refuses a submodule or a link there."""
    from gitstore.promote.standing import in_block_folders

    if read_by_agents(path) or in_block_folders(path):
        return True
    path = path.casefold()
    return any(path.startswith(root) or f"/{root}" in path for root in _FOLDED_SKILL_ROOTS)


def load_place(path: str) -> bool:
    """Whether ``path`` is a folder agents load from, or a folder above one (``.cursor/rules``,
    ``.cursor``, ``.claude/skills``, ``.claude``, ``.github``; ``okf/wiki`` and ``okf`` at the
    root), in any folder and spelled in any case: a submodule or a link there puts its files
    where agents load them, yet the file gates are given the paths below it, never it."""
    from gitstore.promote.standing import BLOCK_FOLDERS

    path = path.casefold()
    return any(path == place or path.endswith(f"/{place}") for place in _FOLDED_LOAD_PLACES) or any(
        folder.startswith(f"{path}/") for folder in BLOCK_FOLDERS)


def judged_as_published(path: str) -> bool:
    """Whether a symbolic link at ``path`` is this module's to judge (``_link_problem``): a file
    agents read by themselves, or a folder they look in for rule files."""
    return read_by_agents(path) or _rule_place(path)


def _rule_place(path: str, places: frozenset[str] = _FOLDED_PLACES) -> bool:
    """Whether ``path`` is a folder agents look in for rule files, or one above a file publish
    writes (when it is a link), in any case and in any folder (of ``places``)."""
    path = path.casefold()
    return any(path == place or path.endswith(f"/{place}") for place in places)


HOPS = 40  # symbolic links followed at most on one path, as Linux does: a loop is refused, never followed


def link_leads(change: Change, path: str, judged: Callable[[str], bool]) -> bool:
    """Whether the symbolic link ``path`` of ``change`` leads, within the repository, to a path
    ``judged`` accepts, both as its target is written (the path a gate reads it as) and where a
    checkout of the commit really opens it (``landing``): a link met on the way may be pointed
    elsewhere later by a commit no gate judges, so the written path must stand on its own too."""
    target = (change.read(path) or b"").decode("utf-8", "replace")
    written = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    if not target or target.startswith("/") or written == ".." or written.startswith("../") or not judged(written):
        return False
    real = landing(change, path, target)
    return real is not None and judged(real)


def landing(change: Change, path: str, target: str) -> str | None:
    """Where the symbolic link ``path`` of ``change``, holding ``target``, leads as a checkout of
    the commit opens it: each link met on the way is followed through the tree the commit leaves,
    and ``..`` is taken on the folder really reached (``bar/../x``, where ``bar`` links to
    ``okf/wiki``, opens ``okf/x``, which ``posixpath.normpath`` reads as ``x``). None when it
    cannot be judged so: it is absolute or leaves the repository, follows more than ``HOPS``
    links (a loop), climbs with ``..`` out of a folder it reached through a link or that the
    tree does not hold as one (a later commit may point that link elsewhere, or add one there,
    and no gate judges the file it then opens), has a target (its own or one on the way) that
    climbs back out of a folder it entered (``_climbs_back``: ``d/../x``, where a later commit
    may make the folder ``d`` a link), or passes through a submodule (another repository's files)."""
    if _climbs_back(target):
        return None
    listing = change.listing() if change.listing is not None else None
    if listing is None:  # no tree to follow links through: the path as written
        written = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        return None if target.startswith("/") or written == ".." or written.startswith("../") else written
    reached = path.split("/")[:-1]  # the link's folder (a tree holds nothing below a link)
    floor = 0  # ``..`` climbs no higher: what lies below was reached through a link, or is no folder
    ahead: list[str | None] = [*target.split("/"), None]  # None: the end of a link's target
    hops = 0
    while ahead:
        part = ahead.pop(0)
        if part is None:
            floor = max(floor, len(reached))
        elif part == "..":
            if len(reached) <= floor:
                return None
            reached.pop()
        elif part and part != ".":
            mode = listing.mode("/".join([*reached, part]))
            if mode == LINK:
                hops += 1
                followed = (change.read("/".join([*reached, part])) or b"").decode("utf-8", "replace")
                if hops > HOPS or not followed or followed.startswith("/") or _climbs_back(followed):
                    return None
                ahead[:0] = [*followed.split("/"), None]
                continue
            last = not any(ahead)
            if mode == SUBMODULE and not last:
                return None
            reached.append(part)
            if mode != FOLDER:
                floor = len(reached)
    return "/".join(reached) if reached else None


def _climbs_back(target: str) -> bool:
    """Whether a link's ``target`` climbs with ``..`` out of a folder it entered (``d/../x``,
    ``../a/../b``): ``..`` stands only before the first name. The folder it entered is on no path
    the gates read as the link's, so a later commit may make it a link to anywhere (no gate judges
    a link at an ordinary folder, and the link holding ``target`` is not judged again), and the
    same target then opens a file no gate reads."""
    entered = False
    for part in target.split("/"):
        if part == "..":
            if entered:
                return True
        elif part and part != ".":
            entered = True
    return False


def _link_problem(change: Change, path: str) -> Finding | None:
    """A symbolic link agents read through must lead to a file the gate reads as theirs (a link
    ``CLAUDE.md`` -> ``AGENTS.md`` passes), as written and where it really lands
    (``link_leads``); else what it leads to is never judged."""
    data = change.read(path) or b""
    target = data.decode("utf-8", "replace")
    folder = not read_by_agents(path)  # a folder agents read rule files from (``.clinerules`` may be a file)
    if not folder and link_leads(change, path, read_by_agents):
        return None
    what = "a file agents read by themselves" if not folder else "a folder agents read rule files from" if \
        _rule_place(path, _FOLDED_RULE_FILE_PLACES) else "a folder above a file `gitstore publish` writes"
    return Finding(path, 1, f"{what} is a symbolic link to {target[:80]!r}: agents read what it leads to as "
                            f"their instructions, and the gate reads no line of it; {who(change)}; write the "
                            "file itself here, or link it to another file agents read (AGENTS.md)")


def _imitations(change: Change, path: str, data: bytes, span: range, earlier: list[bytes]) -> list[Finding]:
    """Each line ``change`` adds outside the file's section (``span``, its lines numbered from
    1; the whole file when it has none) that imitates what only gitstore writes. A line is
    added there when no earlier version holds it outside its own section: a copy of the
    section's marker or header (in a code block showing the format, where it breaks nothing)
    is new outside it."""
    outside = _outside(data, span)
    kept = [[line for _, line in _outside(before, _span_or_none(before, path) if path in SECTIONS else range(0))]
            for before in earlier]
    found = []
    where = "outside the section publish writes" if path in SECTIONS else "in a file publish never writes"
    added = _added(outside, kept)
    for number, line in added:
        imitated = _imitated(line)
        if imitated:
            found.append(Finding(path, number, f"{line.strip()[:80]!r} imitates {imitated} {where}, and agents "
                                               f"read it all the same; {who(change)}, and only `gitstore "
                                               "publish` writes what is published"))
    flagged = {finding.line for finding in found}
    for number, lines in _paragraphs(added):
        joined = " ".join(line.strip() for line in lines)
        imitated = None if flagged.intersection(range(number, number + len(lines))) else _imitated_phrase(joined)
        if imitated:
            found.append(Finding(path, number, f"{joined[:80]!r} imitates {imitated} {where}, over {len(lines)} "
                                               f"lines that agents read as one; {who(change)}, and only `gitstore "
                                               "publish` writes what is published"))
    return found


def _paragraphs(numbered: list[tuple[int, str]]) -> list[tuple[int, list[str]]]:
    """The runs of two or more consecutive non-blank lines among ``numbered`` (a paragraph, a
    heading underlined, read as one by a renderer and an agent alike), each with its first
    line's number."""
    runs: list[tuple[int, list[str]]] = []
    for number, line in numbered:
        if line.strip() and runs and runs[-1][0] + len(runs[-1][1]) == number and runs[-1][1][-1].strip():
            runs[-1][1].append(line)
        elif line.strip():
            runs.append((number, [line]))
    return [run for run in runs if len(run[1]) > 1]


def _imitated_phrase(text: str) -> str | None:
    """What of gitstore's markers and header ``text`` imitates (``_IMITATED``), read as
    ``_imitated`` reads a line."""
    from gitstore.safety.hidden import as_read

    plain = as_read(text)
    return next((what for needle, what in _IMITATED if needle in plain), None)


def _outside(data: bytes, span: range) -> list[tuple[int, str]]:
    """The lines of ``data`` (numbered from 1) that ``span`` (a section's) does not hold."""
    return [(n, line) for n, line in enumerate(data.decode("utf-8", "replace").split("\n"), start=1) if n not in span]


def _span_or_none(data: bytes, path: str) -> range:
    """The lines ``data``'s section spans; none when it cannot be read (every line is outside)."""
    try:
        return _section_lines(data, path)[1]
    except InvalidInput:
        return range(0)


def _imitated(line: str, *, any_id: bool = False) -> str | None:
    """What of gitstore's ``line`` imitates, read as a reader would: hidden characters dropped,
    compatibility forms and look-alike letters made plain, case, spaces and punctuation ignored.
    A learning's id counts where publish puts it, in the bracketed list that ends each line it
    writes (``_cites``): a person's prose naming one ("see lrn_... for why") is their own. An
    entry of another tool's index (``any_id``) imitates gitstore's with an id anywhere."""
    from gitstore.safety.hidden import as_read

    plain = as_read(line)
    for needle, what in _IMITATED:
        if needle in plain:
            return what
    if not _LEARNING_ID.search(plain):
        return None
    if any_id:
        return "a learning's id, as the lines publish writes do"
    return "the list of learnings that ends each line publish writes ([lrn_<id>])" if _cites(line) else None


def _cites(line: str) -> bool:
    """Whether ``line`` ends as a line publish writes does, in brackets holding only learning
    ids (``- text [lrn_<id>, lrn_<id>]``), read as a reader would: hidden characters dropped,
    compatibility forms (full-width brackets) and look-alike letters made plain, any kind of
    bracket, spaces and punctuation between and after the ids, and a Markdown link's target
    after the list ignored."""
    from gitstore.safety.hidden import latin_skeleton, visible

    read = latin_skeleton(unicodedata.normalize("NFKC", visible(line))).casefold()
    end = len(read)
    while end and not read[end - 1].isalpha():
        if _closes(read[end - 1]) and _listed(_LINK_TARGET.sub("]", read[:end])):
            return True  # the list, then nothing but marks, numbers and brackets ("[lrn_<id>] (1)")
        end -= 1
    return False


def _listed(read: str) -> bool:
    """Whether ``read`` (as ``_cites`` reads a line) ends in a bracketed list of learning ids."""
    opening = max((n for n, c in enumerate(read[:-1]) if _opens(c)), default=-1)
    return opening >= 0 and bool(_IDS.fullmatch(re.sub(r"[\W_]+", "", read[opening + 1:-1])))


def _opens(c: str) -> bool:
    return c == "<" or unicodedata.category(c) in ("Ps", "Pi")


def _closes(c: str) -> bool:
    return c == ">" or unicodedata.category(c) in ("Pe", "Pf")


def who(change: Change) -> str:
    """Which commit added what a finding is about, as the findings say it."""
    if change.merged:
        return f"it is in none of the parents of {change.called}"
    return "it is added by the commit being made" if change.pending else f"it was added by commit {change.label}"


def _new(now: list[str], before: list[list[str]]) -> list[str]:
    """The items of ``now`` that no earlier version holds (each kept as often as one holds it)."""
    kept: Counter[str] = Counter()
    for items in before:
        kept |= Counter(items)
    fresh = []
    for item in now:
        if kept[item]:
            kept[item] -= 1
        else:
            fresh.append(item)
    return fresh


def _added(numbered: list[tuple[int, str]], before: list[list[str]]) -> list[tuple[int, str]]:
    """The lines of ``numbered`` (line number, text) that are new (``_new``), with their numbers."""
    numbers = Counter(_new([text for _, text in numbered], before))
    added = []
    for number, text in numbered:
        if numbers[text]:
            numbers[text] -= 1
            added.append((number, text))
    return added


def _section_lines(data: bytes, path: str) -> tuple[list[tuple[int, str]], range]:
    """The lines of the file's managed section that carry something (line number, text), and
    the lines the section spans, its markers included (empty when it has none)."""
    text = data.decode("utf-8", "replace")
    parts = sections.split(text, path)
    if parts.body is None:
        return [], range(0)
    first = parts.before.count("\n") + 2  # the begin marker's line, then the body
    span = range(first - 1, first + parts.body.count("\n") + 1)
    return [(first + n, line.rstrip("\r")) for n, line in enumerate(parts.body.split("\n")) if line.strip()], span


def _section_lines_or_none(data: bytes, path: str) -> list[tuple[int, str]]:
    try:
        return _section_lines(data, path)[0]
    except InvalidInput:
        return []


def _entries(data: bytes) -> tuple[list[str], list[str]]:
    """The continual-learning index's entries as canonical JSON: gitstore's (those naming a
    ``learning``), and another tool's. Raises ``clindex.Blocked`` for an index publish refuses."""
    ours: list[str] = []
    others: list[str] = []
    for entry in clindex.load(data)["entries"]:
        (ours if "learning" in entry else others).append(json.dumps(entry, ensure_ascii=False, sort_keys=True))
    return ours, others


def _entries_or_none(data: bytes) -> tuple[list[str], list[str]]:
    try:
        return _entries(data)
    except clindex.Blocked:
        return [], []


def _judge_line(line: str, section: list[str], memory: Memory) -> str | None:
    return publish.unwritten(line, memory.publishable()[0], lambda learning: _left_out(learning, memory), section)


def _judge_entry(entry: str, memory: Memory) -> str | None:
    data: dict[str, Any] = _jsontext.loads(entry)
    learning = data.get("learning")
    if not isinstance(learning, str) or not re.fullmatch(r"lrn_[0-9a-f]{32}", learning):
        return f"an index entry names {str(learning)[:80]!r}, which is not a learning id"
    problem = _judge_text(learning, str(data.get("fact", "")), memory)
    if problem:
        return problem
    written = memory.publishable()[0][learning].entry()
    differ = sorted(name for name in {*data, *written} if data.get(name) != written.get(name))
    if differ:
        return f"the index entry of {learning} is not the one publish writes (it differs in {', '.join(differ[:4])})"
    return None


def _judge_text(learning: str, text: str, memory: Memory) -> str | None:
    """Why publish would not write ``text`` for ``learning`` now; None when it would."""
    return publish.unwritten_text(learning, text, memory.publishable()[0],
                                  lambda learning: _left_out(learning, memory))


def _left_out(learning: str, memory: Memory) -> str:
    """Why publish writes nothing for ``learning`` now."""
    skipped = memory.publishable()[1]
    if learning in skipped:
        return f"{learning} is not published: {skipped[learning]}"
    status = memory.statuses.get(learning)
    if status is None:
        return f"{learning} is not a learning of this repository's store"
    why = "; ".join([*status.reasons, *([memory.unowned] if memory.unowned else [])]) or "its history breaks a rule"
    return f"{learning} is not an accepted learning in force ({why})"
