"""``gitstore-promotion``: a commit that claims to promote a learning must be exactly that.

A commit whose message carries ``Gitstore-*`` trailers must carry all four, once each
(``Gitstore-Learning``, ``Gitstore-Content-Digest``, ``Gitstore-Review-Digest``,
``Gitstore-Packet``), and:

- the packet is a record of this repository's store, naming the same learning and digests;
- the packet is what promote plans for that learning on the packet's base, at the packet's time,
  by the packet's route: planned again here (every check of ``gitstore.promote.verify``, the
  routing, the rubric, the citations found at the base), its route, target, statement,
  citations, memory, audience and branch compared with the stored ones. A packet is a record
  anyone who can push memory can write; its citations (the files and test runs a reader trusts
  the block by) and its target are taken from no one. Its base must be the commit's parent or
  an ancestor of it (a promotion rebased onto a newer base): the citations were found there.
  A packet planned by another version of gitstore that plans differently fails too: promoting
  again writes the packet this one plans;
- the learning is accepted and in force now (not retired, replaced or withdrawn), and the
  digests are those of its accepted version;
- the commit changes only what the packet's route may change: its target page (direct edit),
  its new ``SKILL.md`` (skill), its overlay page; a staged update commits nothing;
- the target holds the promoted block of that learning, with the accepted text unchanged, in
  the commit and at the tip of what is being pushed;
- the file it changes is byte for byte what promote writes from the commit's parent: the route
  rendered again from the parent's version of the target, the packet's statement and citations
  and the learning (the ``Cited:`` line included, nothing else of the page changed), with the
  mode promote gives it (the parent's; a new file a regular one), so no promotion commit makes
  a page executable or a link.

Where it runs: at ``commit-msg`` (the message file; the change is the index being committed),
at ``pre-push`` (the commits being pushed: ``PRE_COMMIT_FROM_REF..PRE_COMMIT_TO_REF``), and in
CI over a pull request's commits (``--from-ref BASE --to-ref HEAD``). With no range and no
message file it judges the commits not yet on any remote.

Over a range it also reads every promoted block (``blocks``) that a commit adds or changes in
``okf/wiki/`` or ``.agents/skills/`` (wherever it sits in the file, fenced code included: agents
read the file as it is), other than the block its own trailers promote: a block
enters only with the promotion commit of its learning, so each such block is a finding that
says how it stands (no such learning, not in force, another digest, another text, or the
accepted text put there by hand). Text right after a block's ``Cited:`` line, with no blank
line between, is read as part of its paragraph, so a commit that adds some changes the block. A
block a commit keeps as it was, even moved (within its file, or to another file of those folders:
a page renamed or split), is not judged again, nor is one that was there before the range: it
was judged by the range that added it.
A promoted skill (a ``SKILL.md`` whose metadata names its learning, wherever it sits: harnesses
load skills from ``.claude/skills/`` and other folders too) is wholly promote's: a
commit other than its promotion may remove its blocks or delete it, but leaves the rest as
promote writes it (no ``allowed-tools`` or instructions of its own while it names the learning).
It may make the skill a person's own by dropping the metadata with the blocks: a promoted block
left in a skill whose metadata names no learning is a finding, or the promoted text would go
out with tools and instructions no rule judges.
Its metadata is read by parsing its front matter (``skills.learning_of``), however the key is
spelled; front matter that does not parse, in a skill promoted before or mentioning gitstore,
is a finding.
A merge commit adds what none of its parents has: in each file it leaves different from every
parent, a block no parent holds in those files (written while resolving a conflict,
or edited during the merge) is a finding; a block it carries from one parent is not blamed on
it, since the commit that added it was judged. That parent may be an older commit of the
branch, holding a block since retired, so over a range with a base the tip is also compared
with the base (where the range's ends meet): a block at the tip, not at the base, that no
commit of the range adds, must stand now (``_carried_problems``), and so must a published line
or entry (``_published.carried_problems``). So must each one that merging the tip into the
start gives and the start lacks: a branch may move a block main has since removed to a new
page (``git merge-tree``; the tip itself when git cannot merge the two). At ``commit-msg`` the commit being made is read
the same way, against HEAD (an amend of a promotion commit: against HEAD's parent), and a merge
being concluded (git's ``MERGE_HEAD``) against HEAD and every commit it merges: a block added by
hand is refused before it is committed, not only when it is pushed. Git tells a commit hook
nothing of an amend (it sets only ``GIT_INDEX_FILE`` and ``GIT_EDITOR``; prepare-commit-msg's
``commit HEAD`` is given for ``-c`` and ``-C`` too, and not for ``--amend -m``), so an amend is
known only by its trailers naming the learning HEAD's name; any other amend is judged against
the commit it replaces, and what that commit added (a promotion's block, kept by an amend that
drops its trailers) is judged where the amended commit is pushed, against its real parent. A merge is never a
promotion commit: one with ``Gitstore-*`` trailers is a finding. Other commits without
trailers pass.

A submodule anywhere agents load pages, skills or rules from (the wiki, the skills, a folder
they load skills from such as ``.claude/skills/``, a file or folder of rule files they read:
``_published.loaded_by_agents``), or in place of one of those folders or a folder above one
(``_published.load_place``), is a finding: agents would load what no gate reads. So is a
symbolic link in place of the wiki's or the skills' folders (``okf/wiki``, ``okf``,
``.agents/skills``, ``.agents``, in any case), and one in or at another folder agents load skills
from that leads out of the places agents load from (``_link_problems``), judged where a checkout
opens it, through every link on its way (``_published.link_leads``). A submodule a commit adds or
moves anywhere else is a finding too, unless the ``.gitstore-allow`` of what the commit is judged
against accepts its path (``submodule: PATH``; HEAD at commit-msg, the range's base at pre-push and
in CI, so the line is merged by itself first, never accepted by the commit that adds the
submodule): harnesses read a nested ``AGENTS.md`` or ``CLAUDE.md`` and load a nested
``.claude/skills/``, and no gate reads another repository's files (``_submodule_problems``).

Two files of the wiki or the skills whose paths differ only in case or Unicode form
(``Reliability.md`` beside ``reliability.md``, ``skill.md`` beside a promoted ``SKILL.md``:
``standing.case_twins``) in the tree a commit leaves, where a commit it is made on lacks one of
them, is a finding naming both: git keeps both, while a checkout that ignores case (macOS,
Windows) writes one over the other, so the text reviewed and promoted may be replaced. Over a
range with a base it is one too in what merging the tip into the start gives, where neither
holds both.

Promote writes a marker nowhere else, and only as a line of its own (``_markers``): a line a
commit adds to a text file (Markdown, MDX, ``.mdc``, ``.txt``) outside the wiki and the skills
that holds a full marker (a real-looking id and digest, however spelled), or one in the wiki or
the skills that holds one without being a marker line, is a finding naming the file and line.

The same holds for what ``gitstore publish`` writes (``_published``): a line a commit adds to
the managed section of ``AGENTS.md``, ``CLAUDE.md`` or ``.github/copilot-instructions.md``, or an
entry naming a learning it adds to ``.continual-learning/index.json``, must be what publish
writes now, for learnings it publishes, with their accepted text.

Trailers are read as git reads them: the message's last paragraph, keys in any case. A line
that begins like a ``Gitstore-*`` trailer anywhere else is a finding, never a pass.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitstore.promote import blocks
from gitstore.promote.branch import TRAILERS, stray_trailers, trailers
from gitstore.errors import GitstoreError
from gitstore.promote.gates._common import (SUBMODULE, ZERO, Finding, Listing, blobs, entries, git, parser,
                                            pushed_whole, relative, report, run, top_level)
from gitstore.promote.gates import _markers
from gitstore.promote.gates._published import (LOAD_PATHSPECS, PATHSPECS as PUBLISHED, carried_problems,
                                               judged_as_published, link_leads, load_place, loaded_by_agents,
                                               published_problems, who)
from gitstore.promote.skills import FILE_NAME, learning_of
from gitstore.promote.standing import (BLOCK_FOLDERS, IN_FORCE, Learnings, blocks_unnamed, case_twins,
                                       in_block_folders, standing, unlike_promoted_skill, unnamed_sentence)

if TYPE_CHECKING:
    from gitstore.deliver.clindex import Fact
    from gitstore.promote.packet import Plan
    from gitstore.promote.snapshot import Snapshot
    from gitstore.rules.view import View

PROG = "gitstore-promotion"
ALLOW_FILE = ".gitstore-allow"  # ``gitstore.safety.files.FILE_NAME``, the repository's allow list
_LEARNING = re.compile(r"^lrn_[0-9a-f]{32}\Z")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}\Z")
ROUTE_STATUS = {"direct-edit": ("M",), "skill": ("A", "M"), "overlay": ("A", "M"), "staged-update": ()}


@dataclass
class Change:
    """One commit to judge (or the one being made): where its findings point, its message,
    the files it changes (path -> git status letter), and how to read a file of it."""

    label: str
    message: str
    changes: dict[str, str]
    read: Callable[[str], bytes | None]
    name: str = ""  # how findings about its files name it; the label when empty
    parent: Callable[[], Snapshot | None] | None = None  # the commit it is made on (None: no check)
    merged: tuple[Callable[[], Snapshot | None], ...] = ()  # a merge's other parents (empty: not a merge)
    pending: bool = False  # the commit being made (at commit-msg), not one of a range
    bases: tuple[str, ...] = ()  # what the commit being made is judged against (none: the first commit)
    links: Callable[[list[str]], set[str]] | None = None  # which of some paths it holds as symbolic links
    submodules: Callable[[list[str]], set[str]] | None = None  # which of some paths it holds as submodules
    modes: Callable[[list[str]], dict[str, str]] | None = None  # the git mode of some paths it holds
    tree: Callable[[], list[str]] | None = None  # every path it leaves (None: not checked)
    parent_trees: tuple[Callable[[], list[str]], ...] = ()  # every path each commit it is made on holds
    listing: Callable[[], Listing] | None = None  # every path it leaves, with its mode (None: links not followed)
    # the ``.gitstore-allow`` of what it is judged against (HEAD at commit-msg, the range's base), the one
    # list that accepts a submodule it adds (None: there is none, and no submodule is accepted), and its name
    allow: Callable[[], bytes | None] | None = None
    allow_of: str = "the range's base (there is none)"

    @property
    def called(self) -> str:
        return self.name or f"{'merge' if self.merged else 'promotion'} commit {self.label}"


@dataclass
class Memory(Learnings):
    """What the store says, loaded once: learnings' standing, their histories, the packets."""

    packets: dict[str, dict[str, Any]]
    unowned: str = ""  # why no decision counts here, for a checkout that is no one's clone
    view: View | None = None  # what the standing was judged with, for planning a packet again
    root: Path | None = None
    _published: tuple[dict[str, Fact], dict[str, str]] | None = field(default=None, repr=False)

    @classmethod
    def load(cls, root: Path) -> Memory:
        """The standing the rules give every learning (``Learnings.read``), and the packets."""
        from gitstore.promote.gates._common import read_store
        from gitstore.queries._views import in_force_view

        store = read_store(root)
        view, found = in_force_view(store)
        learnings = Learnings.judged(view, found)
        owned = getattr(store.provider, "owns_refs", True)
        unowned = "" if owned or store.trust_mode().mode == "policy" else (
            "this checkout is no one's clone and the repository has no policy, so no decision fetched here "
            "counts; `gitstore policy init` says who may decide")
        return cls(learnings.statuses, learnings.currents, learnings.names, {i.digest: i.record for i in store.items(["packet"])},
                   unowned, view, root)

    def publishable(self) -> tuple[dict[str, Fact], dict[str, str]]:
        """What ``gitstore publish`` would write now: learning id -> its fact (its line's text,
        its index entry), and why each learning in force it leaves out is left out."""
        if self._published is None:
            from gitstore.deliver.publish import select

            assert self.view is not None
            chosen = select(self.view)
            self._published = ({fact.learning: fact for fact in chosen.facts}, dict(chosen.skipped))
        return self._published

    def planned(self, packet: dict[str, Any], on: Snapshot | None = None, called: str = "") -> Plan | str:
        """The promotion promote plans for ``packet``'s learning on its base, at its time, by its
        route (its packet, and what its checks warn of); or why it plans none there. With ``on`` (the parent of the commit ``called``),
        the base must be that commit or an ancestor of it: the citations were found on the
        base, so a base of another history vouches for files the commit's history may not hold."""
        from gitstore.errors import Refused
        from gitstore.promote.packet import plan

        assert self.view is not None and self.root is not None
        base = on if on is not None and on.id == packet["base"] else _snapshot(self.root, packet["base"])()
        if base is None or base.id != packet["base"]:
            return f"its base {packet['base'][:12]} is not a commit of this clone (fetch the history it was made on)"
        if on is not None and on.id != base.id and not on.repo.descendant_of(on.commit.id, base.commit.id):
            return (f"its base {base.id[:12]} is not {called}'s parent nor an ancestor of it ({on.id[:12]}), so "
                    "what it cites was found on another history")
        try:
            return plan(self.view, base, packet["learning"], packet["route"], packet["at"])
        except Refused as exc:
            return str(exc)


def judge(change: Change, memory_of: Callable[[], Memory], tip: Change | None = None) -> list[Finding]:
    """Every way ``change`` falls short of the promotion its trailers claim."""
    found = trailers(change.message)
    stray = stray_trailers(change.message)
    if stray:
        return [Finding(change.label, line, f"{key} is not in the message's trailer block (its last paragraph), so "
                                            "git does not read it as a trailer: a promotion commit ends with its "
                                            "four trailers") for line, key in stray]
    if not found:
        return []
    if change.merged:
        line = min(places[0][0] for places in found.values())
        return [Finding(change.label, line, f"{change.called} carries Gitstore trailers, but a promotion commit is "
                                            "never a merge: promote writes it on one parent")]
    problems = _trailer_problems(change, found)
    if problems:
        return problems
    values = {name: found[name][0] for name in TRAILERS}
    memory = memory_of()
    packet = memory.packets.get(values["Gitstore-Packet"][1])
    line, digest = values["Gitstore-Packet"]
    if packet is None:
        return [Finding(change.label, line, f"Gitstore-Packet names {digest}, which this repository's store "
                                            "does not hold (a forged trailer, or memory not fetched)")]
    problems = _against_packet(change, values, packet) + _against_learning(change, values, memory)
    if problems:
        return problems
    problems = _plan_problems(change, packet, memory)
    if problems:
        return problems
    problems = _route_problems(change, packet)
    problems += _text_problems(change, packet, memory.currents[packet["learning"]] or {}, "")
    if not problems:
        problems = _exact_problems(change, packet, memory.currents[packet["learning"]] or {},
                                   memory.names.get(packet["learning"], ""))
    if tip is not None and tip.label != change.label:
        problems += _text_problems(tip, packet, memory.currents[packet["learning"]] or {}, f" at {tip.label}")
    return problems


def _trailer_problems(change: Change, found: dict[str, list[tuple[int, str]]]) -> list[Finding]:
    problems = []
    for name, places in found.items():
        if name not in TRAILERS:
            problems.append(Finding(change.label, places[0][0], f"unknown trailer {name}"))
    for name in TRAILERS:
        places = found.get(name, [])
        if len(places) != 1:
            line = places[1][0] if places else 1
            problems.append(Finding(change.label, line, f"{name} appears {len(places)} times; a promotion "
                                                        "commit carries each Gitstore trailer once"))
            continue
        line, value = places[0]
        pattern = _LEARNING if name == "Gitstore-Learning" else _DIGEST
        if not pattern.match(value):
            problems.append(Finding(change.label, line, f"{name} {value[:80]!r} is not "
                                                        f"{'a learning id' if pattern is _LEARNING else 'a sha256: digest'}"))
    return problems


def _against_packet(change: Change, values: dict[str, tuple[int, str]], packet: dict[str, Any]) -> list[Finding]:
    problems = []
    for name, member in (("Gitstore-Learning", "learning"), ("Gitstore-Content-Digest", "contentDigest"),
                        ("Gitstore-Review-Digest", "reviewDigest")):
        line, value = values[name]
        if packet[member] != value:
            problems.append(Finding(change.label, line, f"{name} {value} differs from the packet's {member} "
                                                        f"{packet[member]} (a forged trailer)"))
    return problems


def _against_learning(change: Change, values: dict[str, tuple[int, str]], memory: Memory) -> list[Finding]:
    line, learning_id = values["Gitstore-Learning"]
    status = memory.statuses.get(learning_id)
    current = memory.currents.get(learning_id)
    if status is None:
        return [Finding(change.label, line, f"{learning_id} is not a learning of this repository's store")]
    if current is None or not status.usable:
        why = "; ".join([*status.reasons, *([memory.unowned] if memory.unowned else [])]) or "its history breaks a rule"
        return [Finding(change.label, line, f"{learning_id} is not an accepted learning in force ({why}): "
                                            "the promotion no longer stands")]
    problems = []
    for name, member in (("Gitstore-Content-Digest", "contentDigest"), ("Gitstore-Review-Digest", "reviewDigest")):
        at, value = values[name]
        if current[member] != value:
            problems.append(Finding(change.label, at, f"{name} {value} is not the {member} of {learning_id}'s "
                                                      f"accepted version ({current[member]})"))
    return problems


PLANNED = ("route", "target", "statement", "citations", "memory", "audience", "branch")  # what lands, and how


def _plan_problems(change: Change, packet: dict[str, Any], memory: Memory) -> list[Finding]:
    """The packet must be what promote plans on its base (see the module's documentation)."""
    parent = change.parent() if change.parent is not None else None
    planned = memory.planned(packet, parent, change.label) if parent is not None else \
        f"{change.called} has no parent, so its base {packet['base'][:12]} cannot be in its history"
    where = packet["target"]
    said = f"packet {packet['digest'][:19]} of {change.called} is not what promote plans for {packet['learning']}"
    if isinstance(planned, str):
        return [Finding(where, 1, f"{said}: {planned}")]
    differ = [name for name in PLANNED if planned.packet[name] != packet[name]]
    if not differ:
        return _warning_problems(change, planned.warnings)
    shown = "; ".join(_difference(name, packet[name], planned.packet[name]) for name in differ[:2])
    return [Finding(where, 1, f"{said} on its base {packet['base'][:12]}: {shown} (a packet promote did not "
                              "write; promote it again)")]


def _warning_problems(change: Change, warnings: dict[str, str]) -> list[Finding]:
    """What a check warned of, planned again, must stay in the message as promote wrote it
    (``Check warned: ...``, the check not among those passed): it is how the person reviewing
    the promotion is told, since the scan gate passes what it only warns of. A message amended
    without it would hide the warning from the review."""
    lines = change.message.split("\n")
    passed = next((line for line in lines if line.startswith("Checks passed: ")), "")
    named = {name.strip() for name in passed.removeprefix("Checks passed: ").rstrip(".").split(",")}
    found = []
    for name, what in warnings.items():
        warned = f"Check warned: {name}: {' '.join(what.split())}"
        if warned not in lines or name in named:
            found.append(Finding(change.label, 1, f"{change.called}'s message does not say what the {name} check warns "
                                                  f"of as promote wrote it ({warned[:200]}), or lists {name} as "
                                                  "passed: the person reviewing the promotion must see it"))
    return found


def _difference(name: str, stored: Any, planned: Any) -> str:
    """How a stored packet's field differs from the planned one's, briefly."""
    if name != "citations" or not isinstance(stored, list):
        return f"its {name} is {_brief(stored)}, where promote plans {_brief(planned)}"
    extra = [_brief(c) for c in stored if c not in planned]
    lacking = [_brief(c) for c in planned if c not in stored]
    said = ([f"it cites {', '.join(extra[:2])}, which promote does not find"] if extra else []) + \
        ([f"it lacks {', '.join(lacking[:2])}, which promote cites"] if lacking else [])
    return "; ".join(said) or "its citations are in another order than promote's"


def _brief(value: Any) -> str:
    if isinstance(value, dict) and set(value) == {"kind", "ref"}:
        value = f"{value['kind']} {value['ref']}"
    text = repr(value)
    return text if len(text) <= 120 else text[:119] + "…"


def _route_problems(change: Change, packet: dict[str, Any]) -> list[Finding]:
    route, target = packet["route"], packet["target"]
    allowed = ROUTE_STATUS[route]
    problems = []
    if not allowed:
        problems.append(Finding(change.label, 1, f"a {route} promotion commits nothing, yet this commit "
                                                 "carries its trailers"))
    for path, status in sorted(change.changes.items()):
        if path != target or status not in allowed:
            problems.append(Finding(path, 1, f"changed by {change.called} outside its route "
                                             f"({route} may change only {target})"))
    if allowed and target not in change.changes:
        problems.append(Finding(target, 1, f"{change.called} does not change its target"))
    return problems


def _text_problems(change: Change, packet: dict[str, Any], current: dict[str, Any], where: str) -> list[Finding]:
    if not ROUTE_STATUS[packet["route"]]:
        return []
    target, learning_id = packet["target"], packet["learning"]
    data = change.read(target)
    if data is None:
        return [Finding(target, 1, f"{target} is missing{where}, so the promotion of {learning_id} is gone")]
    text = data.decode("utf-8", "replace")
    found = [b for b in blocks.find(text) if b.learning == learning_id]
    if not found:
        return [Finding(target, 1, f"holds no promoted block of {learning_id}{where}")]
    problems = []
    expected = current.get("content", {}).get("text")
    for block in found:
        if block.content_digest != packet["contentDigest"]:
            problems.append(Finding(target, block.line, f"the promoted block of {learning_id}{where} names "
                                                        f"{block.content_digest}, not {packet['contentDigest']}"))
        if block.statement != expected:
            problems.append(Finding(target, block.line + 1, f"the promoted text of {learning_id}{where} differs "
                                                            "from the accepted learning"))
        if block.continued:
            problems.append(Finding(target, block.cited_line + 1, f"{blocks.CONTINUED} {learning_id}{where}"))
    if packet["route"] == "skill" and learning_of(text)[0] != learning_id:
        problems.append(Finding(target, 1, f"the skill's metadata does not name {learning_id}"))
    return problems


def _exact_problems(change: Change, packet: dict[str, Any], learning: dict[str, Any], name: str) -> list[Finding]:
    """The target must be, byte for byte, what promote writes from the commit's parent: the
    promoted block with the packet's citations, and nothing else of the file changed (``name``
    is the title the learning is named by, ``gitstore.records.headline.name_of``)."""
    from gitstore.errors import Refused
    from gitstore.promote.packet import render_target

    parent = change.parent() if change.parent is not None else None
    target, learning_id = packet["target"], packet["learning"]
    if parent is None:
        return []
    try:
        expected = render_target(parent, packet, learning, name)
    except Refused as exc:
        return [Finding(target, 1, f"{change.called} cannot be the promotion of {learning_id}: {exc}")]
    data = change.read(target)
    if expected is None or data is None:
        return []
    if data == expected.encode("utf-8"):
        return _mode_problems(change, parent, target, learning_id)
    have, want = data.decode("utf-8", "replace").splitlines(True), expected.splitlines(True)
    line = next((n for n, (a, b) in enumerate(zip(have, want), start=1) if a != b), min(len(have), len(want)) + 1)
    shown = f"it writes {want[line - 1][:100]!r} here" if line <= len(want) else "its file ends before this line"
    return [Finding(target, line, f"differs from what promote writes for {learning_id} on {parent.id[:12]}: "
                                  f"{shown}")]


def _mode_problems(change: Change, parent: Snapshot, target: str, learning_id: str) -> list[Finding]:
    """Promote writes the target with the mode the parent gives it (a new file: a regular one):
    a promotion commit that makes it executable, or a link to what its bytes name, writes what
    promote does not."""
    held = change.modes([target]).get(target) if change.modes is not None else None
    want = f"{parent.mode(target) or 0o100644:06o}"
    if held is None or held == want:
        return []
    return [Finding(target, 1, f"its mode is {held}, where promote writes it {want} for {learning_id} on "
                               f"{parent.id[:12]}")]


# -- promoted blocks a commit adds ----------------------------------------------------------

def block_problems(change: Change, memory_of: Callable[[], Memory],
                   added_by: Counter[tuple[Any, ...]] | None = None) -> list[Finding]:
    """A promoted block enters a page or a skill only with the promotion commit of its
    learning: each block ``change`` adds or changes in another commit, one finding. A merge
    adds the blocks that are in none of its parents (a block it carries from one of them was
    judged with the commit that added it, or is judged with the range, ``_carried_problems``).
    ``added_by`` counts the blocks it adds, its own promotion's included, for that."""
    own = trailers(change.message).get("Gitstore-Learning") or []
    mine = own[0][1] if len(own) == 1 and not change.merged else None  # judged by ``judge``
    read = [(path, change.read(path)) for path, status in sorted(change.changes.items())
            if status != "D" and in_block_folders(path)]
    found = _case_problems(change) + _twin_problems(change) + _submodule_problems(change) + _link_problems(change) + \
        _unreadable_problems(change, read) + _skill_problems(change, mine, memory_of)
    added = _added_blocks(change, read)
    if added_by is not None:
        added_by.update(_same(block) for _, block in added)
    added = [(path, block) for path, block in added if block.learning != mine]
    if not added:
        return found
    memory = memory_of()
    how = (f"it is in none of the parents of {change.called}" if change.merged
           else "it is added by the commit being made" if change.pending
           else f"it was added by commit {change.label}")
    before = _held_before(change) if any(standing(b, memory).state == IN_FORCE for _, b in added) else {}
    for path, block in added:
        line, sentence = _added_sentence(path, block, memory, before)
        found.append(Finding(path, line, f"{sentence}; {how}, which is not the promotion commit of {block.learning}"))
    return found


def _held_before(change: Change) -> dict[str, list[tuple[str, blocks.Block]]]:
    """The promoted blocks the parents of ``change`` hold in the files of the wiki and the
    skills it changes, by learning: (path, block)."""
    paths = [path for path in sorted(change.changes) if in_block_folders(path)]
    held: dict[str, list[tuple[str, blocks.Block]]] = {}
    for parent in (change.parent, *change.merged):
        snapshot = parent() if parent is not None else None
        if snapshot is None:
            continue
        for path in paths:
            data = snapshot.read(path)
            if data and blocks.MARKER_START.encode() in data:
                for block in blocks.find(data.decode("utf-8", "replace")):
                    held.setdefault(block.learning, []).append((path, block))
    return held


def _added_sentence(path: str, block: blocks.Block, memory: Memory,
                    before: dict[str, list[tuple[str, blocks.Block]]]) -> tuple[int, str]:
    """What is wrong with a promoted block a commit other than its promotion adds (its line and
    a sentence): how it stands; for a block that holds its accepted text, what the commit
    changed of the block the parent held (its Cited: line, its marker), or that it is new."""
    found = standing(block, memory)
    if found.state != IN_FORCE:
        return block.line, found.sentence
    learning = block.learning
    same = [b for p, b in sorted(before.get(learning, []), key=lambda held: held[0] != path)
            if b.statement == block.statement]
    if not same:
        return block.line, (f"a promoted block of {learning} is written by hand (its text is the accepted one; "
                            "only promote writes a block, with its citations)")
    was = same[0]
    if (was.citations, was.unreadable) != (block.citations, block.unreadable):
        return (block.cited_line or block.line), (
            f"the Cited: line of the promoted block of {learning} is edited (its text is intact): it now cites "
            f"{_cited(block)}, where it cited {_cited(was)}")
    if was.content_digest != block.content_digest:
        return block.line, (f"the marker of the promoted block of {learning} is edited (its text is intact): it "
                            f"now names {block.content_digest}, where it named {was.content_digest}")
    return block.line, f"the promoted block of {learning} is changed, though its text is intact"


def _cited(block: blocks.Block) -> str:
    """A block's citations as its Cited: line writes them (``nothing`` for none)."""
    items = [blocks.render_citation(c) for c in block.citations] + list(block.unreadable)
    return "; ".join(items) if items else "nothing"


def _skill_problems(change: Change, mine: str | None, memory_of: Callable[[], Memory]) -> list[Finding]:
    """A promoted skill (a ``SKILL.md`` whose metadata names the learning it came from) is
    wholly what promote writes, and agents load all of it: its front matter (``allowed-tools``)
    and its instructions as much as its block. A commit other than that learning's promotion
    that changes one and leaves it naming the learning must leave it byte for byte what
    promote writes for the learning's accepted version with the citations its block holds;
    else each is a finding. Deleting the skill, or making it a person's own (no metadata naming
    a learning, and no promoted block), needs no promotion commit. Front matter that does not parse, in a skill that
    was promoted before the commit or that mentions gitstore, is a finding too: the gate
    cannot tell what it names, while a more lenient reader may load it. A ``SKILL.md`` that
    is a symbolic link is a finding wherever it sits, as the skills gate makes it: agents load
    the file it leads to, while the gate would read the link's own bytes (its target's name)."""
    skills = [path for path, status in sorted(change.changes.items()) if status != "D" and _a_skill(path)]
    linked = change.links(skills) if change.links is not None and skills else set()
    found = [Finding(path, 1, f"a skill that is a symbolic link, added by {_by(change)}: agents load whatever it "
                              "leads to, which this gate cannot judge as the skill; keep the skill as a file")
             for path in skills if path in linked]
    for path in (path for path in skills if path not in linked):
        data = change.read(path)
        text = data.decode("utf-8", "replace") if data is not None else ""
        learning_id, unreadable = learning_of(text)
        if unreadable:
            found += _unreadable_skill(change, path, text, unreadable)
        if learning_id is None:
            found += _unnamed_blocks(change, path, data or b"", mine)
        if learning_id is None or learning_id == mine:
            continue
        problem = unlike_promoted_skill(text, learning_id, memory_of())
        if problem:
            line, why = problem
            found.append(Finding(path, line, f"the promoted skill of {learning_id} is changed by {_by(change)}, "
                                             f"which is not its promotion commit: {why}; promote it again, or "
                                             "delete the skill (or drop its gitstore metadata to make it your own)"))
    return found


def _a_skill(path: str) -> bool:
    """Whether ``path`` is a skill, wherever it sits: harnesses load skills from more folders
    than the one promote writes (``.claude/skills/``, ``.github/skills/``, any a configuration
    names), and one whose metadata names a learning claims to be its promotion in each."""
    return path.rsplit("/", 1)[-1].casefold() == FILE_NAME.casefold()


def _unnamed_blocks(change: Change, path: str, data: bytes, mine: str | None) -> list[Finding]:
    """A finding for each promoted block that ``change`` leaves in a skill whose metadata names
    no learning (``blocks_unnamed``): making a promoted skill a person's own drops its blocks
    with its metadata. A block the commit adds is judged as an added block; its own learning's
    by its promotion."""
    added = {block.line for _, block in _added_blocks(change, [(path, data)])}
    kept = [block for block in blocks_unnamed(data.decode("utf-8", "replace"))
            if block.learning != mine and block.line not in added]
    return [Finding(path, block.line, f"{unnamed_sentence(block)}; left so by {_by(change)}: remove the block too "
                                      "to make the skill your own, or restore the metadata promote wrote")
            for block in kept]


def _by(change: Change) -> str:
    return "the commit being made" if change.pending else f"commit {change.label}"


def _unreadable_skill(change: Change, path: str, text: str, why: str) -> list[Finding]:
    """A finding for a ``SKILL.md`` whose front matter cannot be read (``why``) when its
    version in a parent of ``change`` was a promoted skill, or it mentions gitstore: what it
    names cannot be told, so it is never passed as a person's own skill."""
    before = _promoted_before(change, path)
    if before is None and "gitstore" not in text.casefold():
        return []
    whose = f"the promoted skill of {before}" if before else "a skill that mentions gitstore"
    return [Finding(path, 1, f"the front matter of {whose}, changed by {_by(change)}, cannot be read: {why}; the "
                             "gate cannot tell which learning it names, while a more lenient reader may still load "
                             "it: write front matter that parses (no key twice), or delete the skill")]


def _promoted_before(change: Change, path: str) -> str | None:
    """The learning the version of ``path`` in a parent of ``change`` names as a promoted
    skill (None when no parent holds one)."""
    for parent in (change.parent, *change.merged):
        snapshot = parent() if parent is not None else None
        data = snapshot.read(path) if snapshot is not None else None
        learning_id = learning_of(data.decode("utf-8", "replace"))[0] if data else None
        if learning_id:
            return learning_id
    return None


def _agents_load(path: str) -> bool:
    """Whether ``path`` is where agents load something from, or a folder of it or above it:
    a file of the wiki, the skills (in any folder agents load skills from) or the rule files
    agents read (``_published.loaded_by_agents``), or one of their folders (``okf``,
    ``.agents/skills``, ``.claude/skills``, ``.cursor/rules``, ``.github``: ``load_place``), in
    any case: a submodule there brings its own pages, skills or rules."""
    return loaded_by_agents(path) or load_place(path)


def _a_block_folder(path: str) -> bool:
    """Whether ``path`` is a folder promoted blocks live in or a folder above one
    (``okf/wiki``, ``okf``, ``.agents/skills``, ``.agents``), spelled in any case."""
    return any(folder.startswith(f"{path.casefold()}/") for folder in BLOCK_FOLDERS)


def _case_problems(change: Change) -> list[Finding]:
    """A file ``change`` adds or changes in a folder spelled like the wiki's or the skills' in
    another case (``OKF/wiki/``, ``.agents/Skills/``): a checkout on a case-insensitive file
    system (macOS, Windows) puts it among the pages or skills agents read, where it may stand
    beside or over a file of the same name, yet rules that read the folder by its spelling
    (a link, a submodule, a skill's place) would take it for another folder."""
    return [Finding(path, 1, f"in {path[:len(folder)]}, which a checkout that ignores case (macOS, Windows) takes "
                             f"for {folder}, added by {_by(change)}: agents load it there, where the gates read "
                             f"only {folder}; spell the folder {folder}")
            for path, status in sorted(change.changes.items()) if status != "D"
            for folder in BLOCK_FOLDERS if path.casefold().startswith(folder) and not path.startswith(folder)]


def _twin_problems(change: Change) -> list[Finding]:
    """Files of the wiki or the skills whose paths differ only in case (``case_twins``) in the
    tree ``change`` leaves, where some commit it is made on lacks one of them (the commit added
    it, or a merge brought the two together): a checkout that ignores case (macOS, Windows)
    writes one over the other, so a file beside a promoted ``SKILL.md`` or page may replace the
    text that was reviewed and promoted, while every rule reads both. One finding for each
    such group, at the path the commit adds, naming the other."""
    if not change.merged and not any(status == "A" and in_block_folders(path)
                                     for path, status in change.changes.items()):
        return []  # made on one commit, it leaves two such files side by side only by adding one there
    groups = case_twins(change.tree()) if change.tree is not None else []
    held = [set(tree()) for tree in change.parent_trees] if groups else []
    found = []
    for group in groups:
        new = [path for path in group if not held or any(path not in paths for paths in held)]
        if new:
            found.append(_twin(group, new[0], f"the tree {_by(change)} leaves"))
    return found


def _twin(group: tuple[str, ...], path: str, where: str) -> Finding:
    """The finding for ``path``, which differs only in case from the rest of ``group`` in ``where``."""
    others = " and ".join(p for p in group if p != path)
    return Finding(path, 1, f"differs only in case or Unicode form from {others}, in {where}: a checkout that ignores case (macOS, "
                            "Windows) writes one over the other, so agents may read either; rename or delete one")


def _listing(root: Path, revision: str, keep_index: bool = False) -> Callable[[], Listing]:
    """Every path ``revision`` (a commit or a tree; empty: the index being committed) holds,
    with its mode, listed once however often it is asked for."""
    @cache
    def listing() -> Listing:
        found = entries(root, revision, keep_index=keep_index)
        if found is None:
            raise GitstoreError(f"git cannot list the files of {revision or 'the index'}")
        return Listing({path: mode for path, (mode, _) in found.items()})
    return listing


def _paths(listing: Callable[[], Listing]) -> Callable[[], list[str]]:
    """Every path a listing holds."""
    return lambda: list(listing().modes)


def _held(listing: Callable[[], Listing], mode: str) -> Callable[[list[str]], set[str]]:
    """Which of some paths a listing holds with ``mode`` (``SUBMODULE``: as submodules)."""
    return lambda paths: {path for path in paths if listing().modes.get(path) == mode}


def _submodule_problems(change: Change) -> list[Finding]:
    """A submodule ``change`` adds or moves (to another commit or path): its files are another
    repository's, which no gate reads, yet a recursive clone puts them in the checkout, where
    agents read its ``AGENTS.md`` and ``CLAUDE.md`` and load its ``.claude/skills/`` as this
    repository's (a forged published section, a forged promoted skill, an injected instruction).
    One passes only where the ``.gitstore-allow`` of what the commit is judged against accepts it
    (``submodule: PATH``; HEAD at commit-msg, the range's base at pre-push and in CI, never the
    commit's own, which would accept itself: the line is reviewed and merged by itself first), and
    never where agents load pages, skills or rules from (``_agents_load``), which they load whole.
    A submodule a commit keeps as it was is not judged again."""
    paths = [path for path, status in change.changes.items() if status != "D"]
    held = change.submodules(paths) if change.submodules is not None and paths else set()
    if not held:
        return []
    by = "the commit being made" if change.pending else f"commit {change.label}"
    allowed, unreadable = _allowed_submodules(change) if any(not _agents_load(path) for path in held) else (set(), "")
    found = []
    for path in sorted(held):
        if _agents_load(path):
            found.append(Finding(path, 1, f"a submodule, added by {by}: its files are another repository's, which no "
                                          "gate reads, yet a recursive clone puts them where agents load pages, skills "
                                          "and rules; keep them as files of this repository"))
        elif path not in allowed:
            found.append(Finding(path, 1, f"a submodule, added or moved by {by}: no gate can read another "
                                          "repository's files, yet a recursive clone puts them here, where agents read "
                                          "its AGENTS.md, CLAUDE.md and skills; accept it with a line "
                                          f"`submodule: {path}` in the {ALLOW_FILE} of {change.allow_of}, merged on "
                                          f"its own first (a commit's own list accepts none of its submodules)"
                                          f"{unreadable}, or keep its files in this repository"))
    return found


def _allowed_submodules(change: Change) -> tuple[set[str], str]:
    """The submodules the ``.gitstore-allow`` of what ``change`` is judged against accepts
    (``Change.allow``), and why it accepts none when it cannot be read (empty when it can)."""
    from gitstore.errors import InvalidInput
    from gitstore.safety.files import Allowlist

    data = change.allow() if change.allow is not None else None
    if not data:
        return set(), ""
    try:
        return set(Allowlist.parse(data.decode("utf-8"), ALLOW_FILE).submodules), ""
    except UnicodeDecodeError as exc:
        return set(), f" (it is no UTF-8 text: byte {exc.start})"
    except InvalidInput as exc:
        return set(), f" (which cannot be read: {exc})"


def _link_problems(change: Change) -> list[Finding]:
    """A symbolic link ``change`` adds where agents load pages, skills or rules, that no other
    rule judges: a checkout puts whatever it leads to there, yet the gates that read those
    places are given the paths below a link, never what it leads to (the wiki gate's
    ``^okf/wiki/`` does not match ``okf/wiki``). One in place of the wiki's or the skills'
    folder, or one above it, is always a finding. Links below them are the file gates' (the wiki
    gate, the skills gate), those at a file or folder of rule files the published lines'
    (``_published``), a ``SKILL.md`` the promoted skills' (``_skill_problems``). Anywhere else
    agents load skills from (``.claude/skills/``, ``.github/skills/``, in any folder; that
    folder itself), a link passes only when it leads, within the repository, to a place agents
    load from, whose files the gates read there (``.claude/skills`` -> ``../.agents/skills``,
    which harnesses share so), as written and where a checkout really opens it, through any
    other link on the way (``_published.link_leads``)."""
    paths = [path for path, status in change.changes.items() if status != "D" and (_a_block_folder(path) or (
        _agents_load(path) and not in_block_folders(path) and not judged_as_published(path) and not _a_skill(path)))]
    held = change.links(paths) if change.links is not None and paths else set()
    found = []
    for path in sorted(held):
        if _a_block_folder(path):
            found.append(Finding(path, 1, f"a symbolic link, added by {_by(change)}, where agents load pages and "
                                          "skills: they read whatever it leads to, which no gate reads there; keep "
                                          "the pages and skills as files of this repository"))
            continue
        if link_leads(change, path, lambda to: loaded_by_agents(to) or loaded_by_agents(f"{to}/")):
            continue
        target = (change.read(path) or b"").decode("utf-8", "replace")
        found.append(Finding(path, 1, f"a symbolic link to {target[:80]!r}, added by {_by(change)}, where agents "
                                      "load skills: they read whatever it leads to, which no gate reads as theirs; "
                                      "keep the skills as files of this repository, or link to a folder of skills "
                                      "in it (.agents/skills)"))
    return found


def _unreadable_problems(change: Change, read: list[tuple[str, bytes | None]]) -> list[Finding]:
    """A file ``change`` adds or changes in the wiki or the skills that the gate cannot read as
    a file of the commit (a submodule is judged apart): what it holds was never judged, so it
    is a finding, never a pass."""
    missing = [path for path, data in read if data is None]
    held = change.submodules(missing) if change.submodules is not None and missing else set()
    return [Finding(path, 1, f"changed by {_by(change)}, yet the gate cannot read it as a file of that commit, so "
                             "no promoted block in it could be judged") for path in missing if path not in held]


def _added_blocks(change: Change, read: list[tuple[str, bytes | None]]) -> list[tuple[str, blocks.Block]]:
    """The promoted blocks ``change`` adds or changes in the wiki and the skills (path, block),
    of the files it changes there as ``read``: those that no parent holds in the files the
    commit changes there (``_kept``). A block it keeps as it was, moved within its file or to
    another (a page renamed, or split), is not one of them."""
    pages = [(path, data) for path, data in read if data is not None and blocks.MARKER_START.encode() in data]
    kept = _kept(change) if pages else Counter()
    found = []
    for path, data in pages:
        for block in blocks.find(data.decode("utf-8", "replace")):
            if kept[_same(block)]:
                kept[_same(block)] -= 1
            else:
                found.append((path, block))
    return found


def _kept(change: Change) -> Counter[tuple[Any, ...]]:
    """The blocks ``change`` may keep: those each parent holds in the files of the wiki and the
    skills the commit changes, deletes included (a rename is a deletion and an addition), taken
    together; a block is kept as often as one parent holds it."""
    paths = [path for path in change.changes if in_block_folders(path)]
    kept: Counter[tuple[Any, ...]] = Counter()
    for parent in (change.parent, *change.merged):
        snapshot = parent() if parent is not None else None
        if snapshot is None:
            continue
        held: Counter[tuple[Any, ...]] = Counter()
        for before in (snapshot.read(path) for path in paths):
            if before and blocks.MARKER_START.encode() in before:
                held.update(key for b in blocks.find(before.decode("utf-8", "replace")) for key in _kept_as(b))
        kept |= held
    return kept


def _kept_as(block: blocks.Block) -> set[tuple[Any, ...]]:
    """The blocks a commit keeps when a parent holds ``block``: the same block, or the block
    with the text that continued its paragraph moved away (the blank line that ends it)."""
    return {_same(block), _same(block._replace(continued=()))}


def _same(block: blocks.Block) -> tuple[Any, ...]:
    """What makes a block the same block: text directly after its ``Cited:`` line is read as
    part of its paragraph, so a commit that adds some changes the block."""
    return block.learning, block.content_digest, block.statement, block.citations, block.unreadable, block.continued


# -- reading commits ---------------------------------------------------------------------------

def _commit_changes(root: Path, commit: str) -> tuple[dict[str, str], dict[str, str]]:
    """The files a commit changes (path -> git status letter), and the git mode each has in the
    commit (``160000``: a submodule; ``000000``: deleted), from one raw listing of its changes;
    for a merge, those that differ from every parent (``-c``), since a file the same as one
    parent's brings nothing new. The modes answer which of them are submodules without listing
    the commit's whole tree, which costs a commit of a large repository as much as its files."""
    done = git("diff-tree", "-r", "-z", "-c", "--root", "--no-commit-id", "--raw", "--no-abbrev", "--no-renames",
               commit, cwd=root)
    parts = done.stdout.split(b"\0")
    statuses: dict[str, str] = {}
    modes: dict[str, str] = {}
    for meta, name in zip(parts[0::2], parts[1::2]):
        parents = len(meta) - len(meta.lstrip(b":"))  # ``::`` for a merge of two: a mode for each, then its own
        fields = meta[parents:].split(b" ")
        if not parents or len(fields) < 2 * parents + 3:
            continue
        path = name.decode("utf-8", "surrogateescape")
        statuses[path] = fields[-1][:1].decode()
        modes[path] = fields[parents].decode()
    return statuses, modes


def _statuses(listing: bytes) -> dict[str, str]:
    """The paths of a ``-z --name-status`` listing with their status letters; a name that is
    no UTF-8 keeps its bytes (``surrogateescape``), so git finds the file when it is read."""
    parts = [p.decode("utf-8", "surrogateescape") for p in listing.split(b"\0") if p]
    return {parts[i + 1]: parts[i][:1] for i in range(0, len(parts) - 1, 2)}


def _reader(root: Path, revision: str, keep_index: bool = False) -> Callable[[str], bytes | None]:
    def read(path: str) -> bytes | None:
        done = git("cat-file", "blob", f"{revision}:{path}", cwd=root, keep_index=keep_index, check=False)
        return done.stdout if done.returncode == 0 else None
    return read


def _modes(root: Path, revision: str, keep_index: bool = False) -> Callable[[list[str]], dict[str, str]]:
    """The git mode (``100644``, ``100755``, ``120000``, ``160000``, ``040000``) of each of some
    paths that ``revision`` holds (empty: the index being committed, which lists the files of a
    folder, not the folder)."""
    def modes(paths: list[str]) -> dict[str, str]:
        if not paths:
            return {}
        listing = ("ls-tree", "-z", "--full-tree", revision, "--", *paths) if revision else \
            ("ls-files", "-s", "-z", "--", *(f":(literal){p}" for p in paths))
        done = git(*listing, cwd=root, keep_index=keep_index, check=False)
        found = [entry.partition(b"\t") for entry in done.stdout.split(b"\0") if b"\t" in entry]
        return {path.decode("utf-8", "surrogateescape"): head.split(b" ", 1)[0].decode() for head, _, path in found}
    return modes


def _links(root: Path, revision: str, keep_index: bool = False, mode: str = "120000") -> Callable[[list[str]], set[str]]:
    """Which of some paths are symbolic links (or, with ``mode`` 160000, submodules) in
    ``revision`` (empty: the index being committed)."""
    modes = _modes(root, revision, keep_index)
    return lambda paths: {path for path, held in modes(paths).items() if held == mode}


def _snapshot(root: Path, revision: str) -> Callable[[], Snapshot | None]:
    """The commit ``revision`` as a snapshot, read once however often it is asked for (the
    packet's plan, the exact file, the blocks and the published lines all read the parent)."""
    @cache
    def snapshot() -> Snapshot | None:
        import pygit2

        from gitstore.promote.snapshot import Snapshot

        repo = pygit2.Repository(str(root))
        try:
            return Snapshot(repo, repo.revparse_single(revision).peel(pygit2.Commit))
        except (KeyError, ValueError, pygit2.GitError):
            return None  # the first commit: it has no parent
    return snapshot


def _commit(root: Path, sha: str, message: str, parents: Sequence[str], start: str | None = None) -> Change:
    """The commit ``sha`` of a range whose base is ``start`` (None: it has none)."""
    listing = _listing(root, sha)
    based = start if start and start != ZERO else None
    changes, modes = _commit_changes(root, sha)
    return Change(sha[:12], message, changes, _reader(root, sha),
                  parent=_snapshot(root, parents[0]) if parents else None,
                  merged=tuple(_snapshot(root, p) for p in parents[1:]), links=_links(root, sha),
                  submodules=lambda paths: {path for path in paths if modes.get(path) == SUBMODULE},
                  modes=_modes(root, sha), tree=_paths(listing),
                  parent_trees=tuple(_paths(_listing(root, p)) for p in parents), listing=listing,
                  allow=_allow_file(root, based) if based else None,
                  allow_of=f"the range's base ({based[:12]})" if based else Change.allow_of)


def _allow_file(root: Path, revision: str) -> Callable[[], bytes | None]:
    """The ``.gitstore-allow`` ``revision`` holds (None: none), read once."""
    return cache(lambda: _reader(root, revision)(ALLOW_FILE))


def _range(root: Path, start: str | None, end: str, *only: str) -> list[tuple[str, str, list[str]]]:
    """(sha, message, parents) of the commits in start..end (or end's commits on no remote),
    oldest first; ``only``: more ``git log`` arguments, then the paths the commits must change."""
    for name in (start, end):
        if name and name != ZERO and git("rev-parse", "--verify", "--quiet", f"{name}^{{commit}}", cwd=root,
                                         check=False).returncode != 0:
            from gitstore.errors import InvalidInput

            raise InvalidInput(f"{name}: no such commit")
    spec = _spec(start, end)
    options = [o for o in only if o.startswith("-")]
    paths = [o for o in only if not o.startswith("-")]
    shas = git("rev-list", "--reverse", *options, *spec, "--", *paths, cwd=root).stdout.decode().split()
    objects = blobs(root, shas)
    return [(sha, *_message_and_parents(objects[sha])) for sha in shas]


def _spec(start: str | None, end: str) -> list[str]:
    return [f"{start}..{end}"] if start and start != ZERO else [end, "--not", "--remotes"]


def _message_and_parents(commit: bytes) -> tuple[str, list[str]]:
    """A commit's message and parents, read whole from its object (a message may hold any byte
    but NUL, so no separator in a listing of them can be trusted)."""
    header, _, message = commit.partition(b"\n\n")
    parents = [line[7:].decode() for line in header.split(b"\n") if line.startswith(b"parent ")]
    return message.decode("utf-8", "replace"), parents


def _message_file(root: Path, files: Sequence[str]) -> Path | None:
    if len(files) != 1:
        return None
    path = Path(files[0])
    real = path.resolve()
    return real if real.is_relative_to(_git_dir(root).resolve()) or path.name.endswith("_EDITMSG") else None


_GIT_DIRS: dict[Path, Path] = {}  # a work tree's root -> its git folder (its own, for a linked work tree)


def _git_dir(root: Path) -> Path:
    if root not in _GIT_DIRS:
        _GIT_DIRS[root] = Path(git("rev-parse", "--absolute-git-dir", cwd=root).stdout.decode().strip())
    return _GIT_DIRS[root]


MESSAGE_LIMIT = 4 << 20  # bytes of a commit message file read at most (git's own are a few kilobytes)


def _read_message(path: Path) -> str:
    """The message git wrote for the commit being made: a regular file, read up to
    ``MESSAGE_LIMIT``. A folder, a FIFO or a device (a link to ``/dev/zero``) given in its
    place is refused at once, never read for ever."""
    from gitstore.errors import InvalidInput
    from gitstore.records.inputs import read_regular

    try:
        return read_regular(path, MESSAGE_LIMIT).decode("utf-8", errors="replace")
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot be read as a commit message ({exc.strerror or exc})") from None


def _pending(root: Path, message_file: Path) -> Change:
    """The commit being made: its message, and the index git is committing against its parent
    (a merge: against every commit it merges, so what it brings from one of them is not its own)."""
    message = _read_message(message_file)
    merging = _merge_heads(root)
    if merging:
        return _pending_merge(root, message_file, message, merging)
    base = _pending_base(root, message)
    listing = _listing(root, "", keep_index=True)
    return Change(relative(str(message_file), root), message, _staged(root, *base), _reader(root, "", keep_index=True),
                  "the promotion commit being made", _snapshot(root, base[0]) if base else None, pending=True,
                  bases=tuple(base), links=_links(root, "", keep_index=True),
                  allow=_allow_file(root, base[0]) if base else None,
                  allow_of=f"{base[0]} (the commit it is made on)" if base else "the commit it is made on (there is "
                                                                                 "none)",
                  submodules=_held(listing, SUBMODULE), modes=_modes(root, "", keep_index=True),
                  tree=_paths(listing), parent_trees=tuple(_paths(_listing(root, b)) for b in base), listing=listing)


def _pending_base(root: Path, message: str) -> list[str]:
    """What the commit being made is judged against: HEAD, or HEAD's parent for an amend of a
    promotion commit (judged whole), or nothing for the first commit. Git gives a commit hook
    no sign of an amend: one is known by its message naming the learning HEAD's names."""
    base: list[str] = ["HEAD"]
    head = git("log", "-1", "--format=%B", "HEAD", cwd=root, check=False)
    if head.returncode != 0:
        base = []  # the first commit: everything in the index is new
    else:
        mine = trailers(message).get("Gitstore-Learning")
        theirs = trailers(head.stdout.decode("utf-8", "replace")).get("Gitstore-Learning")
        if mine and theirs and mine[0][1] == theirs[0][1]:
            parent = git("rev-parse", "--verify", "--quiet", "HEAD^", cwd=root, check=False)
            if parent.returncode == 0:
                base = ["HEAD^"]  # an amend of the promotion commit: judge it whole
    return base


def _pending_merge(root: Path, message_file: Path, message: str, merging: list[str]) -> Change:
    """The merge being made: the files of the index that differ from HEAD and from every
    commit it merges."""
    changes = _staged(root, "HEAD")
    for other in merging:
        theirs = _staged(root, other)
        changes = {path: status for path, status in changes.items() if path in theirs}
    listing = _listing(root, "", keep_index=True)
    return Change(relative(str(message_file), root), message, changes, _reader(root, "", keep_index=True),
                  "the merge being made", _snapshot(root, "HEAD"), tuple(_snapshot(root, o) for o in merging),
                  pending=True, bases=("HEAD", *merging), links=_links(root, "", keep_index=True),
                  allow=_allow_file(root, "HEAD"), allow_of="HEAD (the commit it is made on)",
                  submodules=_held(listing, SUBMODULE), tree=_paths(listing),
                  parent_trees=tuple(_paths(_listing(root, b)) for b in ("HEAD", *merging)), listing=listing)


def _staged(root: Path, *base: str) -> dict[str, str]:
    """The files the index being committed changes against ``base`` (none: everything in it)."""
    done = git("diff", "--cached", "-z", "--name-status", "--no-renames", *base, cwd=root, keep_index=True)
    return _statuses(done.stdout)


def _merge_heads(root: Path) -> list[str]:
    """The commits a merge being concluded brings in (git's MERGE_HEAD), none outside a merge."""
    try:
        return (_git_dir(root) / "MERGE_HEAD").read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        return []


def check(files: Sequence[str], root: Path, start: str | None, end: str | None) -> list[Finding]:
    """Judge the commit being made, or the commits of a range."""
    cache: list[Memory] = []

    def memory() -> Memory:
        if not cache:
            cache.append(Memory.load(root))
        return cache[0]

    message_file = None if (start or end) else _message_file(root, files)
    if message_file is not None:
        change = _pending(root, message_file)
        return judge(change, memory) + block_problems(change, memory) + published_problems(change, memory) + \
            _markers.problems(_markers.pending(root, change.bases), who(change))
    if not end and git("rev-parse", "--verify", "--quiet", "HEAD", cwd=root, check=False).returncode != 0:
        return []  # nothing committed yet
    return [f for judged in judge_range(root, start, end or "HEAD", memory) for f in judged.findings]


def claims(message: str) -> bool:
    """Whether a message claims a promotion: it has ``Gitstore-*`` trailers, in any case, or
    lines that begin like them outside its trailer block."""
    return bool(trailers(message) or stray_trailers(message))


@dataclass
class Judged:
    """One commit of a range that carries ``Gitstore-*`` trailers, and what the gate found."""

    sha: str
    message: str
    findings: list[Finding]


def judge_range(root: Path, start: str | None, end: str, memory: Callable[[], Memory]) -> list[Judged]:
    """The commits of ``start..end`` (``end``'s commits on no remote without a start) that carry
    ``Gitstore-*`` trailers, each with its findings (none: it verifies), and those without
    that add or change a promoted block, each with why the block does not stand; oldest first."""
    listed = _range(root, start, end)
    promotions = {sha for sha, message, _ in listed if claims(message)}
    folders = {f.rstrip("/") for f in BLOCK_FOLDERS} | {f.split("/")[0] for f in BLOCK_FOLDERS}  # a submodule in their place
    touching = {sha for sha, _, _ in _range(root, start, end, "--full-history", *(f":(icase){f}" for f in BLOCK_FOLDERS),
                                            *PUBLISHED, *LOAD_PATHSPECS,
                                            *(f":(literal,icase){f}" for f in sorted(folders)),
                                            f":(glob,icase)**/{FILE_NAME}")}
    strays = _markers.in_range(root, _spec(start, end)) if listed else {}
    moving = _submodule_commits(root, start, end) if listed else set()
    commits = [commit for commit in listed if commit[0] in promotions | touching | strays.keys() | moving]
    if not commits:
        return []
    tip_sha = git("rev-parse", end, cwd=root).stdout.decode().strip()
    tip = Change(tip_sha[:12], "", {}, _reader(root, tip_sha))
    found = []
    blocks_added: Counter[tuple[Any, ...]] = Counter()
    lines_added: Counter[tuple[str, str]] = Counter()
    for sha, message, parents in commits:
        change = _commit(root, sha, message, parents, start)
        findings = judge(change, memory, tip) if sha in promotions else []
        findings += block_problems(change, memory, blocks_added) + published_problems(change, memory, lines_added) \
            if sha in touching else []
        findings += _markers.problems(strays[sha], who(change)) if sha in strays else []
        findings += _submodule_problems(change) if sha in moving and sha not in touching else []
        if sha in promotions or findings:
            found.append(Judged(sha, message, findings))
    carried = _carried_problems(root, start, tip_sha, blocks_added, lines_added, memory)
    if carried and found and found[-1].sha == tip_sha:
        found[-1].findings += carried
    elif carried:
        found.append(Judged(tip_sha, listed[-1][1] if listed[-1][0] == tip_sha else "", carried))
    return found


def _submodule_commits(root: Path, start: str | None, end: str) -> set[str]:
    """The commits of ``start..end`` that add a submodule or move one (to another commit or
    path), wherever it sits: those leaving a submodule at a path that differs from every parent
    there (``-c``; a merge that keeps one parent's brings nothing of its own), read from one
    listing of the range (no path names what a commit holds as a submodule)."""
    done = git("log", "--format=%x01%H", "-c", "--raw", "--no-renames", "--no-abbrev", *_spec(start, end), "--",
               cwd=root)
    found: set[str] = set()
    sha = ""
    for line in done.stdout.split(b"\n"):
        if line.startswith(b"\x01"):
            sha = line[1:].decode().strip()
        elif line.startswith(b":") and sha:
            parents = len(line) - len(line.lstrip(b":"))  # ``::`` for a merge of two: a mode for each, then its own
            modes = line[parents:].split(b" ")
            if len(modes) > parents and modes[parents] == SUBMODULE.encode():
                found.add(sha)
    return found


def _carried_problems(root: Path, start: str | None, tip: str, blocks_added: Counter[tuple[Any, ...]],
                      lines_added: Counter[tuple[str, str]], memory: Callable[[], Memory]) -> list[Finding]:
    """What the range brings that no commit of it adds (``blocks_added``, ``lines_added``),
    judged as it stands now: a promoted block or a published line must be in force with its
    accepted text. A merge whose file is the same as one parent's adds nothing of its own, yet
    that parent may be an older commit of the branch, holding a block or a line of a learning
    since retired; and a commit that moves a block to another file keeps it, so a branch forked
    while the block was in force can move it to a page main never had. The commits alone would
    let either back, so the tip is compared with its base (where ``start`` and ``tip`` meet),
    and what merging the tip into ``start`` gives with ``start``. Without a start (the commits
    on no remote) there is nothing to compare with."""
    if not start or start == ZERO:
        return []
    met = git("merge-base", start, tip, cwd=root, check=False)
    if met.returncode != 0:
        return []  # no common history: every commit of the tip's is in the range, each judged
    base = met.stdout.decode().split()[0]
    how = (f"it is at {tip[:12]} and not at the range's base {base[:12]}, and no commit of the range adds it (a merge "
           "carried it from an older version of the file)")
    blocks_seen, lines_seen = Counter(blocks_added), Counter(lines_added)
    found = _brought(root, base, tip, blocks_seen, lines_seen, memory, how)
    if git("merge-base", "--is-ancestor", start, tip, cwd=root, check=False).returncode == 0:
        return found  # the merge is the tip itself, just judged
    merged = _merged_tree(root, start, tip)
    how = (f"it is in what merging {tip[:12]} into {start[:12]} gives and not at {start[:12]}, and no commit of the "
           "range adds it (a block the range keeps, moved or carried from an older version of a file)" if merged else
           f"it is at {tip[:12]} and not at {start[:12]}, and no commit of the range adds it (git could not merge "
           f"the two to tell whether the merge keeps it: {_NO_MERGE})")
    return found + _brought(root, start, merged or tip, blocks_seen, lines_seen, memory, how) + \
        (_merged_twins(root, start, tip, merged) if merged else [])


def _merged_twins(root: Path, start: str, tip: str, merged: str) -> list[Finding]:
    """Files that differ only in case (``case_twins``) in what merging ``tip`` into ``start``
    gives, where neither holds both: a branch adds ``Reliability.md`` while the base gained
    ``reliability.md``, and no commit of the range leaves the two side by side."""
    groups = case_twins(_paths(_listing(root, merged))())
    held = [set(_paths(_listing(root, start))()), set(_paths(_listing(root, tip))())] if groups else []
    return [_twin(group, [p for p in group if p not in held[0]][0], f"what merging {tip[:12]} into {start[:12]} gives")
            for group in groups if not any(set(group) <= paths for paths in held)]


_NO_MERGE = "a conflict, or git older than 2.38; merge the base into the branch"


def _merged_tree(root: Path, start: str, tip: str) -> str | None:
    """The tree merging ``tip`` into ``start`` gives, as a forge merges a pull request (git's
    own merge, written to objects only, never to a work tree or a ref); None when the merge
    conflicts or git cannot say (older than 2.38, without ``merge-tree --write-tree``): then the
    tip itself is judged against ``start``, which may refuse a block the merge would remove."""
    done = git("merge-tree", "--write-tree", "--no-messages", start, tip, cwd=root, check=False)
    if done.returncode != 0:
        return None
    tree = done.stdout.decode().split()
    return tree[0] if tree else None


def _brought(root: Path, since: str, result: str, blocks_seen: Counter[tuple[Any, ...]],
             lines_seen: Counter[tuple[str, str]], memory: Callable[[], Memory], how: str) -> list[Finding]:
    """Each promoted block and published line that ``result`` (a commit or a tree) holds and
    the commit ``since`` does not, but for those ``blocks_seen`` and ``lines_seen`` count
    (added by a commit of the range, or judged already), one finding for each that does not
    stand now; each it judges is counted as seen."""
    listing = git("diff-tree", "-r", "-z", "--name-status", "--no-renames", since, result, "--",
                  *(f":(icase){f}" for f in BLOCK_FOLDERS), *PUBLISHED, cwd=root)
    change = Change(result[:12], "", _statuses(listing.stdout), _reader(root, result), parent=_snapshot(root, since),
                    links=_links(root, result), listing=_listing(root, result))
    read = [(path, change.read(path)) for path, status in sorted(change.changes.items())
            if status != "D" and in_block_folders(path)]
    left = Counter(blocks_seen)
    found = []
    for path, block in _added_blocks(change, read):
        if left[_same(block)]:
            left[_same(block)] -= 1
            continue
        blocks_seen[_same(block)] += 1
        stands = standing(block, memory())
        if stands.state != IN_FORCE:
            found.append(Finding(path, block.line, f"{stands.sentence}; {how}: remove the block in a commit"))
    return found + carried_problems(change, memory, lines_seen, how, seen=lines_seen)


def main(argv: Sequence[str] | None = None) -> int:
    command = parser(PROG, __doc__.splitlines()[0])
    command.add_argument("--from-ref", default=None, help="judge the commits after this one (CI: the base)")
    command.add_argument("--to-ref", default=None, help="up to this one (default: HEAD)")
    args = command.parse_args(argv)

    def gate() -> int:
        root = top_level()
        start = args.from_ref or os.environ.get("PRE_COMMIT_FROM_REF")
        end = args.to_ref or os.environ.get("PRE_COMMIT_TO_REF")
        if start and not end:
            end = "HEAD"
        if not start and not end:  # a push of a whole history: the ref pushed, HEAD or not
            end = pushed_whole()
        return report(check(args.files, root, start, end))

    from gitstore.promote.gates._pushed import with_others

    return run(PROG, with_others(PROG, gate, __name__))
