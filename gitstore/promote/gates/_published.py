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
Lines a commit keeps, moves or removes are not judged again, nor the section's header and its
line saying what was left out, which carry no learning's text.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from gitstore.deliver import clindex, publish, sections
from gitstore.errors import InvalidInput
from gitstore.promote.gates._common import Finding


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
_LINE = re.compile(r"^- (?P<text>.+) \[(?P<ids>lrn_[0-9a-f]{32}(?:, lrn_[0-9a-f]{32})*)\]$")
_CARRY_NO_TEXT = re.compile(r"^(?:- \(no accepted learning is in force\)"
                            r"|- \(\d+ more left out to stay within the reader's limit: [^()]*\))$")
_HEADER = frozenset(publish.HEADER)


def published_problems(change: Change, memory_of: Callable[[], Memory]) -> list[Finding]:
    """Each line or entry of a published file that ``change`` adds and publish would not write
    now, one finding (see the module's documentation)."""
    paths = [path for path in PATHS if change.changes.get(path, "D") != "D"]
    if not paths:
        return []
    parents = [p() for p in (change.parent, *change.merged) if p is not None]
    added: list[tuple[str, int, str]] = []  # (path, line, what the line or entry says)
    found: list[Finding] = []
    for path in paths:
        data = change.read(path)
        if data is None:
            continue
        earlier = [before for before in (p.read(path) for p in parents if p is not None) if before]
        if path == clindex.PATH:
            added += [(path, 1, entry) for entry in _new(_entries(data), [_entries(b) for b in earlier])]
            continue
        try:
            lines = _section_lines(data, path)
        except InvalidInput as exc:
            found.append(Finding(path, 1, f"{exc} ({_who(change)})"))
            continue
        kept = [[text for _, text in _section_lines_or_none(before, path)] for before in earlier]
        fresh = _new([text for _, text in lines], kept)
        numbers = Counter(fresh)
        for number, text in lines:
            if numbers[text]:
                numbers[text] -= 1
                added.append((path, number, text))
    if not added:
        return found
    memory = memory_of()
    for path, number, text in added:
        problem = _judge_entry(text, memory) if path == clindex.PATH else _judge_line(text, memory)
        if problem:
            found.append(Finding(path, number, f"{problem}; {_who(change)}, and only `gitstore publish` writes "
                                               "what is published"))
    return found


def _who(change: Change) -> str:
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


def _section_lines(data: bytes, path: str) -> list[tuple[int, str]]:
    """The lines of the file's managed section that carry something (line number, text)."""
    text = data.decode("utf-8", "replace")
    parts = sections.split(text, path)
    if parts.body is None:
        return []
    first = parts.before.count("\n") + 2  # the begin marker's line, then the body
    return [(first + n, line.rstrip("\r")) for n, line in enumerate(parts.body.split("\n"))
            if line.strip() and line.rstrip("\r") not in _HEADER]


def _section_lines_or_none(data: bytes, path: str) -> list[tuple[int, str]]:
    try:
        return _section_lines(data, path)
    except InvalidInput:
        return []


def _entries(data: bytes) -> list[str]:
    """gitstore's entries of the continual-learning index (those naming a learning), as
    canonical JSON; none when the file is not the index's shape (publish refuses it then)."""
    try:
        entries = json.loads(data).get("entries")
    except (ValueError, AttributeError):
        return []
    if not isinstance(entries, list):
        return []
    return [json.dumps(e, ensure_ascii=False, sort_keys=True) for e in entries if isinstance(e, dict) and "learning" in e]


def _judge_line(line: str, memory: Memory) -> str | None:
    if _CARRY_NO_TEXT.match(line):
        return None
    matched = _LINE.match(line)
    if matched is None:
        return f"{line[:80]!r} is not a line `gitstore publish` writes in its section"
    text = matched.group("text")
    for learning in matched.group("ids").split(", "):
        problem = _judge_text(learning, text, memory)
        if problem:
            return problem
    return None


def _judge_entry(entry: str, memory: Memory) -> str | None:
    data: dict[str, Any] = json.loads(entry)
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
    facts, skipped = memory.publishable()
    if learning not in facts:
        if learning in skipped:
            return f"{learning} is not published: {skipped[learning]}"
        status = memory.statuses.get(learning)
        if status is None:
            return f"{learning} is not a learning of this repository's store"
        why = "; ".join([*status.reasons, *([memory.unowned] if memory.unowned else [])]) or "its history breaks a rule"
        return f"{learning} is not an accepted learning in force ({why})"
    if " ".join(text.casefold().split()) != " ".join(facts[learning].fact.casefold().split()):
        return f"the text published for {learning} is not its accepted text"
    return None
