"""``gitstore publish``: accepted project learnings in the files agents read by themselves.

What is published: learnings in force for ``instruction`` that a person accepted (the gate:
auto-safe ones reach agents through recall, labelled, but committed files hold only what a
person reviewed), whose audience is ``project``, kept in the shared namespace, whose evidence
cites no personal agent session (personal sessions never leave the machine, and these files
are committed), and whose text passes the safety scanner. A word mixing Latin letters with
look-alikes is written marked, as agents get it from recall (``gitstore.deliver.build.marked``).
Personal and user-tooling learnings are never written here. Identical texts are written once,
citing every learning that says them; a text already stated outside the managed section, as a
statement of its own (not the end of another: ``Never use tabs.`` does not state ``Use
tabs.``), is not repeated.

Where: the managed section (``gitstore.deliver.sections``) of ``AGENTS.md`` always; of
``CLAUDE.md`` and ``.github/copilot-instructions.md`` where they exist or when asked; and the
continual-learning index (``gitstore.deliver.clindex``). Each file is kept within what its
reader takes in, counting the whole file:

- ``AGENTS.md``: Codex reads at most 32 KiB across the chain of AGENTS.md files from the root
  to the working folder (``project_doc_max_bytes``); the budget leaves room for the longest
  chain of the other AGENTS.md (or AGENTS.override.md) files git tracks here;
- ``CLAUDE.md``: Claude Code advises keeping it under 200 lines, and warns at start-up about
  one over 40,000 characters (it still reads it whole: where the text outside the section
  passes that alone, the section is fitted to the lines only, and the warning says so);
- ``.github/copilot-instructions.md``: Copilot code review reads its first 4,000 characters.

Learnings that do not fit are left out, lowest priority first (project knowledge, resolved
problems, conventions, constraints, decisions last), and named in a warning and in a last line
of the section, so no harness truncates the file silently.

Every publish reads everything first: an index that cannot be read blocks the whole publish
and nothing is written. A changed file's prior state is saved for ``--rollback``. When nothing
would change, the result is an explicit no-update and no file is touched.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitstore import _jsontext
from gitstore._files import first_link, held
from gitstore.deliver import clindex, sections, snapshots
from gitstore.deliver.build import legacy_line, line_of, marked
from gitstore.errors import InvalidInput, Refused
from gitstore.records.inputs import read_regular

AGENTS = "AGENTS.md"
CLAUDE = "CLAUDE.md"
COPILOT = ".github/copilot-instructions.md"
# every file a publish may write, and so all a rollback may restore (and the memory workflow commits)
WRITES = (AGENTS, CLAUDE, COPILOT, clindex.PATH)
CODEX_BYTES = 32 * 1024
CLAUDE_LINES = 200
CLAUDE_CHARS = 40_000
COPILOT_CHARS = 4000
PRIORITY = ("decision", "constraint", "convention", "resolved-problem", "project-knowledge")
HEADER = ("## Learnings from review (gitstore)",
          "",
          "Accepted by the people who review this repository; each line cites its learning by id "
          "(its accepted text alone, whole: `gitstore recall --id ID --json`, or the MCP tool `show`). "
          "`gitstore publish` rewrites this section: edit outside it.",
          "")
# the header's line as earlier versions wrote it: still publish's own, until a publish (or the
# refresh after a learning leaves force) rewrites the section with HEADER. The first sent agents
# to `gitstore show`, the reviewer's view, evidence and all; the second to `gitstore recall
# --json`, which takes a query, not an id.
EARLIER_HEADER = ("Accepted by the people who review this repository; each line cites its learning "
                  "(`gitstore show ID`). `gitstore publish` rewrites this section: edit outside it.",
                  "Accepted by the people who review this repository; each line cites its learning by id "
                  "(its accepted text alone: the MCP tool `show`, or `gitstore recall --json`). "
                  "`gitstore publish` rewrites this section: edit outside it.")


@dataclass(frozen=True)
class Line:
    """One line of the section: a text and the learnings that say it."""

    text: str
    ids: tuple[str, ...]
    rank: tuple[int, int, str]

    def render(self) -> str:
        return f"- {self.text} [{', '.join(self.ids)}]"


NONE_IN_FORCE = "- (no accepted learning is in force)"
LEFT_OUT = "- ({count} more left out to stay within the reader's limit: {ids})"
NAMED = 10  # learnings a note of what was left out names; the rest it counts
_ID = r"lrn_[0-9a-f]{32}"
_RENDERED = re.compile(rf"- (?P<text>.+) \[(?P<ids>{_ID}(?:, {_ID})*)\]")
# what ``named`` writes: the ids, the first NAMED of them and how many more when there are more
_LEFT_OUT = re.compile(re.escape(LEFT_OUT).replace(r"\{count\}", r"(?P<count>[1-9][0-9]*)").replace(
    r"\{ids\}", rf"(?P<ids>{_ID}(?:, {_ID}){{0,{NAMED - 1}}})(?: and (?P<more>[1-9][0-9]*) more)?"))


def section_line(line: str) -> tuple[str, tuple[str, ...]] | None:
    """What a line of the section says, read back: (text, learning ids) for a learning's line
    (``Line.render``), ("", ()) for one that carries no learning's text (the header, the line
    saying none is in force or what was left out); None for a line publish never writes."""
    if line in HEADER or line in EARLIER_HEADER or line == NONE_IN_FORCE or left_out_line(line) is not None:
        return "", ()
    matched = _RENDERED.fullmatch(line)
    return (matched.group("text"), tuple(matched.group("ids").split(", "))) if matched else None


def left_out_line(line: str) -> tuple[str, ...] | None:
    """The learnings a line saying what was left out names, if ``line`` is one as ``_body``
    writes it (see ``left_out_note``). None for any other line."""
    note = left_out_note(line)
    return None if note is None else note[1]


def left_out_note(line: str) -> tuple[int, tuple[str, ...], int] | None:
    """What a line saying what was left out says, if ``line`` is one as ``_body`` writes it:
    ``count`` lines left out, citing the ids named and ``more`` others (the first ``NAMED``
    named only when there are more), each learning named once. None for any other line."""
    matched = _LEFT_OUT.fullmatch(line)
    if matched is None:
        return None
    ids = tuple(matched.group("ids").split(", "))
    more = int(matched.group("more") or 0)
    count = int(matched.group("count"))
    if (more and len(ids) != NAMED) or len(set(ids)) != len(ids) or count > len(ids) + more:
        return None
    return count, ids, more


def unwritten(line: str, facts: Mapping[str, clindex.Fact], why_not: Callable[[str], str | None],
              section: Sequence[str] = ()) -> str | None:
    """Why a publish now would not write ``line`` (a line of its section), as the promotion gate
    and doctor judge one: it is not a line of publish's shape (``section_line``), or not the text
    publish writes for each learning it names, or (for the line saying what was left out) not
    where publish writes it in ``section`` (the section's lines that carry something) or naming
    a learning publish does not leave out. ``facts``: what publish writes, by learning id;
    ``why_not``: why it writes nothing for another learning (None: pass that one over). None
    when publish would write the line."""
    said = section_line(line)
    if said is None:
        return f"{line[:80]!r} is not a line `gitstore publish` writes in its section"
    left = left_out_line(line)
    if left is not None:
        return _unwritten_left_out(line, left, section, facts, why_not)
    text, learnings = said
    for learning in learnings:
        problem = unwritten_text(learning, text, facts, why_not)
        if problem:
            return problem
    return None


def _unwritten_left_out(line: str, learnings: tuple[str, ...], section: Sequence[str],
                        facts: Mapping[str, clindex.Fact], why_not: Callable[[str], str | None]) -> str | None:
    """Why publish would not write ``line``, saying it left ``learnings`` out, in ``section``:
    it writes one such line, the section's last, naming learnings it writes elsewhere only."""
    notes = [other for other in section if left_out_line(other) is not None]
    if len(notes) > 1:
        return "the section says twice what publish left out"
    if section and section[-1] != line:
        return "the line saying what publish left out is not the section's last"
    shown = {learning for other in section for learning in (section_line(other) or ("", ()))[1]
             if other != line}
    for learning in learnings:
        if learning in shown:
            return f"{learning} is not left out: the section publishes it"
        problem = None if learning in facts else why_not(learning)
        if problem:
            return problem
    return None


def unwritten_text(learning: str, text: str, facts: Mapping[str, clindex.Fact],
                   why_not: Callable[[str], str | None]) -> str | None:
    """Why a publish now would not write ``text`` for ``learning`` (see ``unwritten``)."""
    fact = facts.get(learning)
    if fact is None:
        return why_not(learning)
    if unmarked(text, fact.fact):
        return f"the text published for {learning} is {UNMARKED}"
    if written_earlier(text, fact):
        return f"the text published for {learning} is {WITH_TITLE}"
    if not same_text(text, fact.fact):
        return f"the text published for {learning} is not its accepted text"
    return None


UNMARKED = ("its accepted text without the look-alike marks publish writes now (written before look-alike words "
            "were marked)")


WITH_TITLE = ("its line as publish wrote it before agents got the accepted text alone (its title first, then "
              "the text)")


def written_earlier(published: str, fact: clindex.Fact) -> bool:
    """Whether a published line's text is the line an earlier publish wrote for this version of
    the learning, ``title: text`` (``Fact.earlier``): stale, as ``unmarked`` is, never a hand edit."""
    return not same_text(published, fact.fact) and any(same_text(published, text) for text in fact.earlier)


def unmarked(published: str, accepted: str) -> bool:
    """Whether a published line's text is ``accepted`` (a learning's line, marked: ``_fact_text``)
    as a publish wrote it before look-alike words were marked: another text as it stands, the
    same once marked. Stale, as a line of a version since changed is, never a hand edit."""
    return not same_text(published, accepted) and same_text(marked(published), accepted)


def same_text(published: str, accepted: str) -> bool:
    """Whether a published line's text says ``accepted`` (a learning's line, ``line_of``), as
    publish merges lines: case and runs of white space aside."""
    return " ".join(published.casefold().split()) == " ".join(accepted.casefold().split())


@dataclass(frozen=True)
class Warns:
    """A limit past which a reader warns but still reads the whole file (Claude Code's 40,000
    characters). The section keeps within it, unless the text outside the section passes it
    alone: leaving the section out then would spare no warning and hide every learning."""

    measure: str  # bytes, lines or chars
    limit: int
    says: str  # the limit in words, as warnings name it


@dataclass
class Target:
    """One file the publish may write."""

    path: str
    measure: str  # bytes, lines or chars
    limit: int
    reader: str
    warns: tuple[Warns, ...] = ()

    def bounds(self, reserve: int = 0, own: str = "") -> tuple[tuple[str, int], ...]:
        """Every (measure, room) the file must keep within: the reader's limit, ``reserve``
        taken from it, and each limit it warns past that ``own`` (the text outside the section)
        keeps within."""
        return ((self.measure, self.limit - reserve),
                *((w.measure, w.limit) for w in self.warns if _size(own, w.measure) <= w.limit))

    def within(self, own: str = "") -> str:
        """The limits the file keeps within, in words."""
        return " and ".join([self.reader, *(w.says for w in self.warns if _size(own, w.measure) <= w.limit)])

    def passed(self, own: str, reserve: int = 0) -> tuple[bool, list[str]]:
        """Whether ``own`` alone passes the reader's limit, and, in words, every limit it passes."""
        over = _size(own, self.measure) > self.limit - reserve
        warned = [w.says for w in self.warns if _size(own, w.measure) > w.limit]
        return over, [self.reader, *warned] if over else warned


@dataclass
class Result:
    """What a publish did (or would do)."""

    status: str  # published, no-update, conflict (nothing written: a hand edit stands), blocked;
                 # dry-run: what publish would write
    reason: str
    files: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    left_out: dict[str, list[str]] = field(default_factory=dict)
    snapshot: str | None = None
    waits: bool = False  # blocked only until a git operation of the user's ends (``unfinished_operation``)

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason, "files": self.files, "warnings": self.warnings,
                "conflicts": self.conflicts, "leftOut": self.left_out, "snapshot": self.snapshot}


# -- what to publish --------------------------------------------------------------------------------

@dataclass
class Selection:
    facts: list[clindex.Fact]
    written: dict[str, set[str]]
    skipped: dict[str, str]  # learning id -> why it is not published
    trust: dict[str, str]


def _fact_text(record: dict[str, Any]) -> str:
    """The line publish writes for a learning: its line as agents read it, each look-alike word
    marked (``marked``). The section's lines and the index's facts are compared with this text,
    never with the learning's own, so the mark changes no digest a commit is checked by."""
    return marked(line_of(record["content"]["text"]))


def _texts_written(record: dict[str, Any]) -> set[str]:
    """The fact texts gitstore has written for a learning version: this version's, the line
    without marks that a publish wrote before look-alike words were marked, and the ``title:
    text`` line it wrote before it gave the text alone, marked or not (an index entry holding
    one is gitstore's own, brought up to date, never one changed by hand)."""
    content = record["content"]
    legacy = legacy_line(content["title"], content["text"])
    return {_fact_text(record), line_of(content["text"]), legacy, marked(legacy)}


def select(view: Any) -> Selection:
    """The learnings to publish, from a loaded view."""
    from gitstore.deliver.build import name_in, scanned_line, screened
    from gitstore.rules.active import active
    from gitstore.safety.scanner import default_scanner

    scanner = default_scanner()
    selection = Selection([], {}, {}, {})
    for lid, history in view.histories().items():
        selection.written[lid] = {text for i in history.chain[:history.intact] for text in _texts_written(i.record)}
    for status, record in active(view, "instruction"):
        why = _unpublishable(view, record)
        if why is None and status.trust != "human":
            why = "the auto-safe gate took it, no person reviewed it: it is published once a person accepts it"
        text = _fact_text(record)
        if why is None:
            safe = screened(view, record, scanner)
            why = None if isinstance(safe, dict) else f"the safety scan left it out ({safe})"
        if why is None:  # its parts (``screened`` scanned them) and its line as written, read whole
            # as recall's index reads it: a committed file keeps no secret
            content, name = record["content"], name_in(view, record)  # the title it is named by
            assert isinstance(safe, dict)
            redacted = {"a secret or home path"} if (safe["title"], safe["text"]) != (name,
                                                                                   content["text"]) else set()
            line = scanned_line(scanner, content["text"], name)
            if isinstance(line, str):
                why = f"the safety scan left it out ({line}: its text as it would be written, on one line)"
            else:
                redacted.update(line[1])
            if why is None and redacted:
                why = (f"the safety scan found {', '.join(sorted(redacted))} in its text as it would be written: a "
                       "published file is committed, so it keeps none (edit the learning to leave it out)")
        if why:
            selection.skipped[record["id"]] = why
            continue
        episode = record["evidence"][0]["episode"] if record["evidence"] else "manual"
        legacy = legacy_line(record["content"]["title"], record["content"]["text"])
        selection.facts.append(clindex.Fact(record["id"], record["contentDigest"], text, episode,
                                            record["at"][:10], record["category"], (marked(legacy), legacy)))
        selection.trust[record["id"]] = status.trust
    _passing_together(selection, scanner)
    return selection


TOGETHER = 2_000  # characters of the lines above a line scanned with it: more than an order's reach


def _passing_together(selection: Selection, scanner: Any) -> None:
    """Leave out a line that passes the scanner alone but not after the lines kept above it, as
    the section would be written (one paragraph: a learning ending in a hail to AI readers and
    the next one's order would read as one order), best lines first. The scanner's reach across
    lines is bounded, so each line is scanned with the last ``TOGETHER`` characters above it."""
    above = "\n".join(HEADER)
    dropped: set[str] = set()
    for line in lines_of(selection):
        rendered = line.render()
        if scanner.scan(f"{above[-TOGETHER:]}\n{rendered}").quarantined:
            for lid in line.ids:
                selection.skipped[lid] = ("the safety scan left it out (its line after the lines above it, "
                                          "as the section would be written)")
            dropped.update(line.ids)
            continue
        above = f"{above}\n{rendered}"
    if dropped:
        selection.facts = [f for f in selection.facts if f.learning not in dropped]


def _unpublishable(view: Any, record: dict[str, Any]) -> str | None:
    if record["audience"] != "project":
        return f"its audience is {record['audience']}: never written into committed files"
    if any(item.stored.namespace != "shared" for item in view.learnings[record["id"]]):
        return "it is kept in the local namespace: it stays on this machine"
    for ref in record["evidence"]:
        episode = view.episodes.get(ref["episode"], {})
        if episode.get("source", {}).get("kind") == "agent-session":
            return "its evidence comes from personal agent sessions, which never leave this machine"
    return None


def lines_of(selection: Selection) -> list[Line]:
    """The section's lines, identical texts merged, best first."""
    merged: dict[str, list[clindex.Fact]] = {}
    for fact in selection.facts:
        merged.setdefault(" ".join(fact.fact.casefold().split()), []).append(fact)
    lines = []
    for facts in merged.values():
        ids = tuple(sorted(f.learning for f in facts))
        human = any(selection.trust[f.learning] == "human" for f in facts)
        best = min(PRIORITY.index(f.category) for f in facts)
        lines.append(Line(facts[0].fact, ids, (0 if human else 1, best, ids[0])))
    return sorted(lines, key=lambda line: line.rank)


# -- one managed file -------------------------------------------------------------------------------

def _size(text: str, measure: str) -> int:
    if measure == "bytes":
        return len(text.encode("utf-8"))
    if measure == "lines":
        return len(text.splitlines())
    return len(text)


def named(ids: list[str]) -> str:
    """``ids``, or the first ``NAMED`` of them and how many more: thousands of identifiers
    would outgrow any reader's limit themselves."""
    more = len(ids) - NAMED
    return ", ".join(ids) if more <= 0 else f"{', '.join(ids[:NAMED])} and {more} more"


def named_outside(path: str, ids: list[str]) -> str:
    """What to say of a published file whose text outside the section names learnings out of
    force (``not_written``): no publish, sync or refresh rewrites that text."""
    return (f"{path} names {named(ids)}, no longer in force, outside the section gitstore writes, where agents "
            "read it all the same: take it out by hand")


def _body(lines: list[Line], left_out: list[Line]) -> str:
    rows = [*HEADER, *(line.render() for line in lines)]
    if not lines and not left_out:
        rows.append(NONE_IN_FORCE)
    if left_out:
        rows.append(LEFT_OUT.format(count=len(left_out), ids=named([i for line in left_out for i in line.ids])))
    return "\n".join(rows) + "\n"


def edited_by_hand(path: str) -> str:
    """Why the section of ``path`` is not rewritten: a person edited it inside the markers."""
    return (f"{path}: the gitstore section was edited by hand since it was written; left as it is (move the "
            "edit outside the markers, or delete the section, then publish again)")


def _most_that_fit(parts: sections.Split, shown: list[Line], measure: str, room: int) -> int:
    """How many of the first ``shown`` lines one limit could hold at most: each adds at least
    itself and a line break to the section, so those past it never fit and are left out at
    once, not one by one (each try renders the whole section: thousands of lines made that
    quadratic)."""
    room -= _size(sections.place(parts, "\n".join(HEADER) + "\n"), measure)
    break_size = 0 if measure == "lines" else 1  # a line's own size counts it as one line
    most = 0
    for line in shown:
        room -= _size(line.render(), measure) + break_size
        if room < 0:
            break
        most += 1
    return most


_BREAKS = {ord(c): "\n" for c in "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}  # line breaks, as str.splitlines reads them
_BLANK = re.compile(r"\n[^\S\n]*\n")  # a blank line between two others


class _Outside:
    """The text outside a section, to tell whether it already states a fact: the fact's words
    (case and runs of white space aside, so a line wrapped by hand still counts) standing as a
    statement of their own there, not the end of another one. So ``Never use tabs.`` does not
    state ``Use tabs.`` (wrapped over two lines or not), and leaves a person's accepted learning
    out of no file; a paragraph, a list item, a sentence or what follows a colon does
    (``Retries: use tabs.``)."""

    def __init__(self, text: str) -> None:
        self.breaks: set[int] = set()  # where a space of ``self.text`` stands for a blank line
        parts: list[str] = []
        at = 0
        for paragraph in _BLANK.split(text.casefold().replace("\r\n", "\n").translate(_BREAKS)):
            words = " ".join(paragraph.split())
            if words:
                if parts:
                    self.breaks.add(at)
                    at += 1
                parts.append(words)
                at += len(words)
        self.text = " ".join(parts)

    def states(self, fact: str) -> bool:
        wanted = " ".join(fact.casefold().split())
        if not wanted:
            return False
        start = self.text.find(wanted)
        while start >= 0:
            if self._opens(start) and self._closes(start + len(wanted), wanted):
                return True
            start = self.text.find(wanted, start + len(wanted))  # apart: linear in the text, however often it says it
        return False

    def _opens(self, start: int) -> bool:
        """Whether the text before ``start`` ends a statement: nothing, a blank line, or a
        mark that is no letter, digit or comma (a sentence's end, a colon, a list bullet)."""
        if start == 0 or start - 1 in self.breaks:
            return True
        before = self.text[start - 2] if self.text[start - 1] == " " and start >= 2 else self.text[start - 1]
        return not before.isalnum() and before != ","

    def _closes(self, end: int, wanted: str) -> bool:
        """Whether the fact ends there: it ends in a mark, or no word continues it."""
        if end == len(self.text) or end in self.breaks or not wanted[-1].isalnum():
            return True
        after = self.text[end + 1] if self.text[end] == " " and end + 1 < len(self.text) else self.text[end]
        return not after.isalnum()


def fit_section(before: bytes | None, target: Target, lines: list[Line], result: Result,
                reserve: int = 0) -> bytes | None:
    """The file's new bytes with as many lines as fit its limits; None when the section was
    edited by hand (a conflict, reported). When not even an empty section fits, the file gets
    no section (it is removed if there was one): the harness would cut it anyway. A limit the
    reader only warns past, and the text outside the section passes alone, is not kept (``Warns``)."""
    text = before.decode("utf-8") if before is not None else ""
    parts = sections.split(text, target.path)
    if parts.edited:
        result.conflicts.append(edited_by_hand(target.path))
        return None
    outside = _Outside(parts.before + parts.after)
    shown = [line for line in lines if not outside.states(line.text)]
    if not shown and parts.body is None:
        return before  # nothing to add: a file without a section stays as it is
    own = parts.before + parts.after
    bounds = target.bounds(reserve, own)
    fits = lambda candidate: all(_size(candidate, m) <= room for m, room in bounds)  # noqa: E731
    most = min(_most_that_fit(parts, shown, measure, room) for measure, room in bounds)
    left: list[Line] = shown[most:]
    shown = shown[:most]
    new = sections.place(parts, _body(shown, left))
    while not fits(new) and shown:
        left.insert(0, shown.pop())
        new = sections.place(parts, _body(shown, left))
    if left:
        names = [i for line in left for i in line.ids]
        result.left_out[target.path] = names
        result.warnings.append(f"{target.path}: {len(names)} learning(s) left out to stay within "
                               f"{target.within(own)}: {named(names)}")
    written = fits(new)
    if not written:
        new = own
        if before is None:
            return None if not new else new.encode("utf-8")
    over, passed = target.passed(own, reserve)
    if over:
        result.warnings.append(f"{target.path} is over {' and '.join(passed)} even without gitstore's section: "
                               "the text outside it is too long")
    elif passed:
        result.warnings.append(f"{target.path} is over {' and '.join(passed)} because of the text outside "
                               "gitstore's section" + (f": the section is still written, within {target.reader}"
                                                       if written else ""))
    return new.encode("utf-8")


def _chain_reserve(root: Path) -> int:
    """Bytes of the longest chain of other AGENTS.md files Codex may read with the root one."""
    import pygit2

    try:
        tracked = [e.path for e in pygit2.Repository(str(root)).index]
    except pygit2.GitError:
        return 0
    chosen: dict[str, str] = {}
    for path in tracked:
        folder, _, name = path.rpartition("/")
        if folder and name in ("AGENTS.md", "AGENTS.override.md"):
            if name == "AGENTS.override.md" or folder not in chosen:
                chosen[folder] = path
    sizes = {f: (root / p).stat().st_size if (root / p).exists() else 0 for f, p in chosen.items()}
    best = 0
    for folder in sizes:
        parts = folder.split("/")
        best = max(best, sum(sizes.get("/".join(parts[:n]), 0) for n in range(1, len(parts) + 1)))
    return best


# -- publish ----------------------------------------------------------------------------------------

def targets(root: Path, claude: bool, copilot: bool) -> list[Target]:
    """The Markdown files a publish writes. CLAUDE.md or Copilot's file made a link to AGENTS.md
    (as many teams do, so that every agent reads one file) gets its section through AGENTS.md."""
    found = [Target(AGENTS, "bytes", CODEX_BYTES, "Codex's 32 KiB for the AGENTS.md chain")]
    if (claude or (root / CLAUDE).exists()) and not _links_to_agents(root, CLAUDE):
        found.append(Target(CLAUDE, "lines", CLAUDE_LINES, "Claude Code's advised 200 lines",
                            (Warns("chars", CLAUDE_CHARS, "the 40,000 characters Claude Code warns above"),)))
    if (copilot or (root / COPILOT).exists()) and not _links_to_agents(root, COPILOT):
        found.append(Target(COPILOT, "chars", COPILOT_CHARS, "the 4,000 characters Copilot code review reads"))
    return found


def _links_to_agents(root: Path, path: str) -> bool:
    at = root / path
    return at.is_symlink() and at.resolve() == (root / AGENTS).resolve() and not (root / AGENTS).is_symlink()


def _no_link(root: Path, path: str) -> None:
    """Refuse a file a publish reads and writes, or a folder on its way, that is a link: a
    commit can make AGENTS.md a link to a file outside the work tree (publish would copy its
    bytes into the file agents read, and commits take) or ``.continual-learning`` a link to a
    folder elsewhere (publish would write there)."""
    link = first_link(root, path)
    if link is not None:
        raise clindex.Blocked(f"{link.relative_to(root).as_posix()} is a link (to {os.readlink(link)}); publish "
                              "reads and writes files of the work tree only, never through a link: make it a "
                              "file (or folder) of its own")


def _read(path: Path) -> bytes | None:
    try:
        return read_regular(path)  # a FIFO in a published file's place blocks, never hangs
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise clindex.Blocked(f"{path.name} cannot be read ({exc.strerror})") from None


@dataclass
class Baseline:
    """The files a publish reads before it writes anything."""

    targets: list[Target]
    files: dict[str, bytes | None]
    index: bytes | None
    index_data: dict[str, Any]


def read_baseline(root: Path, claude: bool, copilot: bool) -> Baseline:
    """Every file the publish may write, as it is now; raises Blocked for an unusable index or
    a file that is not UTF-8 text."""
    chosen = targets(root, claude, copilot)
    for path in (clindex.PATH, *(t.path for t in chosen)):
        _no_link(root, path)
    index = _read(root / clindex.PATH)
    files = {t.path: _utf8(t.path, _read(root / t.path)) for t in chosen}
    return Baseline(chosen, files, index, clindex.load(index))


def _utf8(path: str, data: bytes | None) -> bytes | None:
    """The file's bytes, checked to be UTF-8 text: a section cannot be placed in anything else."""
    try:
        data is None or data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise clindex.Blocked(f"{path} is not UTF-8 (byte {exc.start}); save it as UTF-8 and publish again") from None
    return data


def _section_changes(root: Path, baseline: Baseline, lines: list[Line], result: Result) -> list[snapshots.Change]:
    changes = []
    for target in baseline.targets:
        before = baseline.files[target.path]
        reserve = _chain_reserve(root) if target.path == AGENTS else 0
        try:
            after = fit_section(before, target, lines, result, reserve)
        except InvalidInput as exc:  # broken or repeated markers
            result.conflicts.append(str(exc))
            continue
        if after is not None and after != before:
            changes.append(snapshots.Change(target.path, before, after))
    return changes


def _index_change(baseline: Baseline, selection: Selection, result: Result) -> tuple[clindex.Merge, list[snapshots.Change]]:
    merged = clindex.merge(baseline.index_data, selection.facts, selection.written)
    result.conflicts += merged.conflicts
    created = baseline.index is None and bool(merged.data["entries"])
    if not (merged.added or merged.updated or merged.removed or created):
        return merged, []
    return merged, [snapshots.Change(clindex.PATH, baseline.index, clindex.dump(merged.data))]


def _summarise(result: Result, baseline: Baseline, changes: list[snapshots.Change], selection: Selection,
               lines: list[Line], merged: clindex.Merge) -> None:
    written = {c.path for c in changes}
    result.files = [{"path": c.path, "action": "created" if c.before is None else "updated"} for c in changes]
    result.files += [{"path": t.path, "action": "unchanged" if baseline.files.get(t.path) is not None else "absent"}
                     for t in baseline.targets if t.path not in written]
    if selection.skipped:
        result.left_out["not published"] = [f"{i}: {why}" for i, why in sorted(selection.skipped.items())]
    if changes:
        result.status = "published"
        result.reason = (f"{len(lines)} line(s) from {len(selection.facts)} learning(s); index: "
                         f"{len(merged.added)} added, {len(merged.updated)} updated, {len(merged.removed)} removed")
        if result.conflicts:
            result.reason += f"; {len(result.conflicts)} conflict(s) left as they are"
    elif result.conflicts:  # what was edited by hand is not published: never say it is
        result.status = "conflict"
        result.reason = f"nothing written: {len(result.conflicts)} conflict(s) to resolve first"
    else:  # learnings may be left out (a reader's limit, not publishable): never say all are published
        result.reason = ("the files already hold what a publish writes now" if selection.facts
                         else "no project learning is in force for instruction")


def plan(root: Path, view: Any, claude: bool = False, copilot: bool = False) -> tuple[Result, list[snapshots.Change]]:
    """Everything a publish would write, computed before anything is written."""
    try:
        baseline = read_baseline(root, claude, copilot)
    except clindex.Blocked as exc:
        return Result("blocked", f"blocked: {exc}; nothing was written"), []
    return _plan(root, view, baseline)


def _plan(root: Path, view: Any, baseline: Baseline,
          selection: Selection | None = None) -> tuple[Result, list[snapshots.Change]]:
    result = Result("no-update", "")
    selection = select(view) if selection is None else selection
    lines = lines_of(selection)
    changes = _section_changes(root, baseline, lines, result)
    merged, index_changes = _index_change(baseline, selection, result)
    changes += index_changes
    _summarise(result, baseline, changes, selection, lines, merged)
    return result, changes


FILES_LOCK = "publish.lock"


@contextmanager
def files_lock(state: Path) -> Iterator[None]:
    """Held from reading the learnings in force to writing the published files by every
    command that writes them (publish, the rewrite after learnings left force, a rollback):
    one that read the store before another took a learning out and rewrote the files would
    write it back. Appends never wait for it: a retirement stored meanwhile rewrites the files
    once the publish holding it is done. Never taken through a link a commit put in place of
    the state folder or the lock (``held`` opens no link)."""
    lock = state / FILES_LOCK
    if state.is_symlink():
        raise Refused(f"{state} is a link (to {os.readlink(state)}); publish keeps its lock in a folder of its own: "
                      "nothing was written")
    with ExitStack() as taken:
        try:
            state.mkdir(parents=True, exist_ok=True)
            taken.enter_context(held(lock))
        except OSError as exc:  # taking it, not what runs under it
            raise Refused(f"{lock} cannot be publish's lock ({exc.strerror}): remove it, and publish makes its own; "
                          "nothing was written") from None
        yield


def publish(start: str = ".", claude: bool = False, copilot: bool = False, dry_run: bool = False) -> Result:
    """``gitstore publish``: plan, then save the prior state and write (unless ``dry_run``)."""
    from gitstore.context import Context

    ctx = Context.open(start)
    root, state = ctx.workspace.root, ctx.workspace.state
    from gitstore.queries._views import in_force_view

    if dry_run:
        result = plan(root, in_force_view(ctx.store)[0], claude, copilot)[0]
        return _would(result) if result.status == "published" else result
    with files_lock(state):
        result, changes = plan(root, in_force_view(ctx.store)[0], claude, copilot)
        if result.status != "published":
            return result
        busy = unfinished_operation(ctx.workspace.repo)
        if busy is not None:
            return Result("blocked", f"blocked: {busy}; nothing was written (publish once it is done)", waits=True)
        result.snapshot = write_changes(root, state, changes)
        return result


# what git leaves in a work tree's git folder while an operation waits for the user
_OPERATIONS = (("rebase-merge", "a rebase"), ("rebase-apply", "a rebase or `git am`"), ("MERGE_HEAD", "a merge"),
               ("CHERRY_PICK_HEAD", "a cherry-pick"), ("REVERT_HEAD", "a revert"))


def unfinished_operation(repo: Any) -> str | None:
    """Why published files must not be written now, or None: a rebase, merge, cherry-pick or
    revert waiting for the user, or a file publish writes left unmerged. The files it writes
    may hold conflict markers then; a publish would keep them, fold its change into the
    user's commit, or make ``git rebase --continue`` refuse."""
    gitdir = Path(repo.path)
    for name, what in _OPERATIONS:
        if (gitdir / name).exists():
            return f"{what} is in progress (git's {name})"
    conflicts = repo.index.conflicts
    unmerged = sorted({entry.path for sides in conflicts or () for entry in sides if entry is not None} & set(WRITES))
    if unmerged:
        return f"{unmerged[0]} has unresolved conflicts"
    return None


def write_changes(root: Path, state: Path, changes: list[snapshots.Change]) -> str:
    """Save the prior state of ``changes`` (for ``--rollback``), then write them; returns the snapshot."""
    snapshot = snapshots.save(state, changes)
    for change in changes:
        snapshots.write_file(root / change.path, change.after)
    snapshots.written(snapshot)
    return str(snapshot.relative_to(root))


# -- published files against what a publish writes now ----------------------------------------------

@dataclass
class Standing:
    """How the files a publish already wrote stand against what ``gitstore publish`` would
    write now: the published files it would rewrite, the learnings each gives agents that it
    would no longer write (out of force, or no longer publishable), and why a published file
    cannot be brought up to date (as ``gitstore.deliver.refresh.Refresh.stale``)."""

    published: list[str] = field(default_factory=list)
    behind: list[str] = field(default_factory=list)
    not_in_force: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    unwritten: dict[str, list[str]] = field(default_factory=dict)  # path -> why each line publish never writes
    unmarked: dict[str, list[str]] = field(default_factory=dict)  # path -> lines written before marks (``unmarked``)
    # of ``behind``, the files whose section has a header an earlier version wrote (``EARLIER_HEADER``),
    # and apart those where that header is all a publish would change
    earlier_header: list[str] = field(default_factory=list)
    only_header: list[str] = field(default_factory=list)
    # path -> the learnings no longer written whose ids the text outside the section holds
    outside: dict[str, list[str]] = field(default_factory=dict)


def _published(baseline: Baseline) -> set[str]:
    """The files a publish has written into: a Markdown file with a section, the index with an
    entry of gitstore's."""
    found = {t.path for t in baseline.targets
             if (baseline.files[t.path] or b"").find(sections.BEGIN.encode()) >= 0}
    entries = baseline.index_data.get("entries", [])
    if any(isinstance(e, dict) and "learning" in e for e in entries):
        found.add(clindex.PATH)
    return found


def published_files(root: Path) -> tuple[Baseline | None, set[str], list[str]]:
    """The files as they stand (None when a publish is blocked), the paths a publish already
    wrote, and why they cannot be brought up to date when it is blocked."""
    try:
        baseline = read_baseline(root, False, False)
    except clindex.Blocked as exc:
        return None, set(), _blocked(root, exc)
    return baseline, _published(baseline), []


def _blocked(root: Path, exc: clindex.Blocked) -> list[str]:
    """Why published files cannot be brought up to date when a publish is blocked: the reason,
    where a file holds gitstore's section or the index exists; nothing where none was published."""
    written = [t.path for t in targets(root, False, False)
               if sections.BEGIN.encode() in ((_read_quietly(root / t.path)) or b"")]
    return [f"{exc}"] if written or (root / clindex.PATH).exists() else []


def standing(ctx: Any) -> Standing:
    """Compare the published files with what a publish would write now, writing nothing. A
    learning leaves force without a command that rewrites them too: its validity ends, a sync
    brings another clone's withdrawal, an older file is checked out."""
    from gitstore.queries._views import in_force_view

    root = ctx.workspace.root
    baseline, published, blocked = published_files(root)
    if baseline is None or not published:
        return Standing(problems=blocked)
    view = in_force_view(ctx.store)[0]
    selection = select(view)
    result, changes = _plan(root, view, baseline, selection)
    order = [t.path for t in baseline.targets] + [clindex.PATH]
    not_in_force, outside = not_written(baseline, published, selection)
    found = Standing([path for path in order if path in published], [c.path for c in changes if c.path in published],
                     not_in_force, [c for c in result.conflicts if c.split(":", 1)[0] in published],
                     *_unwritten(baseline, published, selection), outside=outside)
    for change in changes:
        if change.path in published and change.before is not None:
            headed = with_current_header(change.path, change.before)
            if headed != change.before:
                found.earlier_header.append(change.path)
                if headed == change.after:
                    found.only_header.append(change.path)
    return found


def with_current_header(path: str, data: bytes) -> bytes:
    """The file ``path`` (as ``data``) with its section's header as publish writes it now, where
    an earlier version wrote it otherwise (``EARLIER_HEADER``); ``data`` itself when it has none
    such, or no section gitstore may rewrite (edited by hand, broken markers)."""
    try:
        parts = sections.split(data.decode("utf-8"), path)
    except (InvalidInput, UnicodeDecodeError):
        return data
    if parts.body is None or parts.edited:
        return data
    rows = parts.body.replace(parts.newline, "\n").split("\n")
    headed = [HEADER[2] if row in EARLIER_HEADER else row for row in rows]
    return data if headed == rows else sections.place(parts, "\n".join(headed)).encode("utf-8")


_CITED = re.compile(r"\[(lrn_[0-9a-f]{32}(?:, lrn_[0-9a-f]{32})*)\][ \t]*$")


def not_written(baseline: Baseline, published: set[str],
                 selection: Selection) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Per published file, the learnings it lists (a section's lines, the index's entries of
    gitstore's) that a publish now would not write. A file whose section cannot be read
    (broken or repeated markers: the plan names them) lists every learning of the store whose
    id it holds anywhere: agents read the whole file, and no publish or sync rewrites it. And
    apart, per published Markdown file, each learning of the store a publish would not write
    whose id the text outside its section holds (the whole file, where no section is read):
    agents read that too, and only a hand edit takes it out."""
    wanted = {fact.learning for fact in selection.facts}
    listed: dict[str, set[str]] = {}
    outside: dict[str, list[str]] = {}

    def held(text: str) -> set[str]:
        return {i for i in _LEARNING_ID.findall(text) if i in selection.written}

    for target in baseline.targets:
        if target.path in published:
            text = (baseline.files[target.path] or b"").decode("utf-8", "replace")
            try:
                parts = sections.split(text, target.path)
            except InvalidInput:
                listed[target.path] = held(text)
                continue
            named_outside = held(parts.before + parts.after) - wanted
            if named_outside:
                outside[target.path] = sorted(named_outside)
            for line in (parts.body or "").splitlines():
                cited = _CITED.search(line)
                listed.setdefault(target.path, set()).update(cited.group(1).split(", ") if cited else ())
    if clindex.PATH in published:
        listed[clindex.PATH] = {e["learning"] for e in baseline.index_data["entries"]
                                if isinstance(e.get("learning"), str)}
    return {path: sorted(ids - wanted) for path, ids in listed.items() if ids - wanted}, outside


def _unwritten(baseline: Baseline, published: set[str],
               selection: Selection) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Per published file, why each line of its section is one no publish writes, judged as the
    promotion gate judges a line a commit adds (``unwritten``): a line of another shape, or
    another text than the one accepted for a learning it names. (A line naming a learning
    publish no longer writes is ``not_written``'s.) And apart, per file, the lines an earlier
    publish wrote before look-alike words were marked (``line N: learning ids``): stale, not
    written by hand."""
    facts = {fact.learning: fact for fact in selection.facts}
    found: dict[str, list[str]] = {}
    stale: dict[str, list[str]] = {}
    for target in baseline.targets:
        if target.path not in published:
            continue
        try:
            parts = sections.split((baseline.files[target.path] or b"").decode("utf-8", "replace"), target.path)
        except InvalidInput:  # broken markers: the plan names them
            continue
        first = parts.before.count("\n") + 2  # the body's first line
        lines = [line.rstrip("\r") for line in (parts.body or "").split("\n")]
        section = [line for line in lines if line.strip()]
        for number, line in enumerate(lines, start=first):
            problem = unwritten(line, facts, lambda _: None, section) if line.strip() else None
            learnings = _written_unmarked(line, facts) if problem else ()
            if learnings:
                stale.setdefault(target.path, []).append(f"line {number}: {', '.join(learnings)}")
            elif problem:
                found.setdefault(target.path, []).append(f"line {number}: {problem}")
    return found, stale


def _written_unmarked(line: str, facts: Mapping[str, clindex.Fact]) -> tuple[str, ...]:
    """The learnings ``line`` names when it is their line as a publish wrote it before look-alike
    words were marked (its text the accepted text, without marks, of each) or before agents got
    the text alone (``written_earlier``); else none."""
    text, learnings = section_line(line) or ("", ())
    return learnings if all(one in facts and (unmarked(text, facts[one].fact) or written_earlier(text, facts[one]))
                            for one in learnings) else ()


def _read_quietly(path: Path) -> bytes | None:
    try:
        return read_regular(path)
    except OSError:
        return None


def _would(result: Result) -> Result:
    """A planned publish said as what it would do: status ``dry-run``, actions ``would-...``."""
    result.status = "dry-run"
    result.reason = f"would publish {result.reason}; nothing was written"
    for entry in result.files:
        if entry["action"] not in ("unchanged", "absent"):
            entry["action"] = {"created": "would-create", "updated": "would-update"}[entry["action"]]
    return result


def rollback(start: str = ".", dry_run: bool = False) -> list[dict[str, Any]]:
    """``gitstore publish --rollback``: restore the files of the newest publish, byte for byte,
    unless what it restores lists a learning no longer in force, or gives one a text that is no
    longer its accepted one: a rollback never gives agents what left force (a withdrawal,
    redaction or retirement rewrote the files without it) nor a text no person now accepts (a
    version of the learning is in force now). It waits, as a publish does, while a git
    operation of the user's is unfinished. With ``dry_run``, the same checks, and what it
    would restore, writing nothing."""
    from gitstore.config import Workspace

    workspace = Workspace.find(start)
    busy = None if dry_run else unfinished_operation(workspace.repo)
    if busy is not None:
        raise Refused(f"blocked: {busy}; nothing was rolled back (roll back once it is done)")
    if dry_run:
        return snapshots.rollback(workspace.root, workspace.state, frozenset(WRITES),
                                  lambda restored: _all_in_force(workspace.root, restored), dry_run)
    with files_lock(workspace.state):
        return snapshots.rollback(workspace.root, workspace.state, frozenset(WRITES),
                                  lambda restored: _all_in_force(workspace.root, restored), dry_run)


_LEARNING_ID = re.compile(r"lrn_[0-9a-f]{32}")


@dataclass(frozen=True)
class _Listed:
    """A learning restored files would list, with what they say of it: its line's text (a
    section), its contentDigest (an index entry), or neither (a line naming it only)."""

    learning: str
    text: str | None = None
    digest: str | None = None


def _listed(restored: dict[str, bytes | None]) -> list[_Listed]:
    """The learnings the files would list: in a managed section, or an index entry of gitstore's."""
    found: list[_Listed] = []
    for path, data in restored.items():
        if data is None:
            continue
        text = data.decode("utf-8", "replace")
        found += _index_listed(text) if path == clindex.PATH else _section_listed(text, path)
    return found


def _index_listed(text: str) -> list[_Listed]:
    try:
        entries = _jsontext.loads(text).get("entries", [])
    except (ValueError, AttributeError):
        entries = []
    return [_Listed(e["learning"], digest=str(e.get("contentDigest")))
            for e in entries if isinstance(e, dict) and isinstance(e.get("learning"), str)]


def _section_listed(text: str, path: str) -> list[_Listed]:
    try:
        body = sections.split(text, path).body or ""
    except InvalidInput:
        body = text
    found: list[_Listed] = []
    for line in body.splitlines():
        said = section_line(line)
        if said is not None and said[1]:  # a learning's line: its text, for each learning it cites
            found += [_Listed(learning, text=said[0]) for learning in said[1]]
        else:  # what was left out, or a line of another shape: the ids it names
            found += [_Listed(learning) for learning in _LEARNING_ID.findall(line)]
    return found


def _still_said(listed: _Listed, record: dict[str, Any]) -> bool:
    """Whether what restored files say of a learning is what its version in force says."""
    if listed.digest is not None:
        return bool(listed.digest == record["contentDigest"])
    return listed.text is None or same_text(listed.text, _fact_text(record))


def _all_in_force(root: Path, restored: dict[str, bytes | None]) -> None:
    listed = _listed(restored)
    if not listed:
        return
    from gitstore.context import Context
    from gitstore.queries._views import in_force_view
    from gitstore.rules.active import active

    view = in_force_view(Context.open(root).store)[0]
    records = {record["id"]: record for _, record in active(view, "instruction")}
    gone = sorted({item.learning for item in listed} - set(records))
    if gone:
        raise Refused(f"the files it would restore list {named(gone)}, no longer in force; nothing was rolled back "
                      "(run `gitstore publish` instead)")
    unsaid = [item for item in listed if not _still_said(item, records[item.learning])]
    stale = {item.learning for item in unsaid if item.text and unmarked(item.text, _fact_text(records[item.learning]))}
    changed = sorted({item.learning for item in unsaid} - stale)
    if changed:
        raise Refused(f"the files it would restore give {named(changed)} a text no longer accepted (another version "
                      "of it is in force now); nothing was rolled back (run `gitstore publish` instead)")
    if stale:
        raise Refused(f"the files it would restore give {named(sorted(stale))} {UNMARKED}; nothing was rolled back "
                      "(run `gitstore publish` instead)")
