"""Tidy: keeps memory clean for a person to decide, never deciding itself.

Over the learnings of the frozen view it reports:

- **near-duplicates** among learnings in force (most of their words shared, same category):
  it proposes a ``merge`` (one learning replacing both, citing the evidence of both), unless a
  merge of them was already proposed or decided;
- **conflicts**: learnings alike but one forbids or denies what the other says
  ("never ..." against "always ..."): reported, never merged;
- **stale evidence**: a learning in force or proposed whose evidence no longer serves the
  purpose (withdrawn, deleted, redacted): retire it (or reject the proposal), or accept the
  replacement the recurrence consolidator offers;
- **missing paths**: a learning whose targets no longer exist at the default branch's tip.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from gitstore.dream import cues, terms
from gitstore.dream.consolidators import MAX_DETAIL, Candidate, Finding, Outcome, listed, within
from gitstore.dream.labelers import Label
from gitstore.dream.view import FrozenView, LearningView, Ref
from gitstore.errors import InvalidInput

SIMILARITY = 60          # percent of words shared for a near-duplicate
IN_FORCE = frozenset({"accepted", "auto-accepted", "auto-active"})
NARROWEST = {"project": 0, "user-tooling": 1, "personal": 2}
MAX_REFS = 64


class Tidy:
    """Near-duplicates, conflicts, stale evidence and missing paths among learnings."""

    name = "tidy"

    def __init__(self, similarity: int = SIMILARITY) -> None:
        self.similarity = similarity

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Tidy:
        unknown = set(options) - {"similarity"}
        if unknown:
            raise InvalidInput(f"tidy: unknown options {', '.join(sorted(unknown))}")
        value = options.get("similarity", SIMILARITY)
        if not isinstance(value, int) or isinstance(value, bool) or not 30 <= value <= 100:
            raise InvalidInput("tidy: similarity must be a percentage from 30 to 100")
        return cls(value)

    def consolidate(self, view: FrozenView, labels: Sequence[Label]) -> Outcome:
        findings = [*_stale(view)]
        candidates: list[Candidate] = []
        merges = [(other, set(other.replaces)) for other in view.learnings.values()  # the few that replace two
                  if len(other.replaces) >= 2 and other.state != "invalid"]
        for a, b, shared in self._alike(view):
            if cues.negated(a.text.lower()) != cues.negated(b.text.lower()):
                findings.append(Finding(
                    "conflict", (a.id, b.id),
                    f"{a.id} and {b.id} share {shared}% of their words but one forbids what the other says",
                    "decide which holds and retire the other; conflicts are never merged"))
                continue
            merge = _merge(view, merges, a, b, shared)
            if isinstance(merge, str):
                findings.append(Finding("duplicate", (a.id, b.id), f"{a.id} and {b.id} say the same ({shared}% of words shared)", merge))
                continue
            candidates.append(merge)
            findings.append(Finding("duplicate", (a.id, b.id),
                                    f"{a.id} and {b.id} say the same ({shared}% of words shared)",
                                    "a merge replacing both is proposed", merge.theme))
        return Outcome(tuple(candidates), (), tuple(findings))

    def _alike(self, view: FrozenView) -> list[tuple[LearningView, LearningView, int]]:
        """Pairs of visible learnings in force, same category, sharing most of their words."""
        words: dict[str, frozenset[str]] = {}
        by_term: dict[str, list[str]] = defaultdict(list)
        for learning in view.learnings.values():
            if learning.state in IN_FORCE and learning.usable and learning.visible:
                words[learning.id] = frozenset(terms.tokens(f"{learning.title}. {learning.text}").terms())
                for term in words[learning.id]:
                    by_term[term].append(learning.id)
        pairs: set[tuple[str, str]] = set()
        for ids in by_term.values():
            if len(ids) <= 50:
                pairs.update(combinations(sorted(ids), 2))
        found = []
        for a, b in sorted(pairs):
            union = words[a] | words[b]
            shared = 100 * len(words[a] & words[b]) // max(1, len(union))
            la, lb = view.learnings[a], view.learnings[b]
            if shared >= self.similarity and la.category == lb.category:
                found.append((la, lb, shared))
        return found


def _stale(view: FrozenView) -> list[Finding]:
    found = []
    for learning in view.learnings.values():
        if learning.state not in IN_FORCE and learning.state != "proposed":
            continue
        if not learning.visible:
            step = ("retire it, or accept the replacement a dream proposes" if learning.state in IN_FORCE
                    else "reject the proposal")
            why = learning.stale or "its history breaks a rule"
            found.append(Finding("stale-evidence", (learning.id,),
                                 within(f"{learning.id} ({learning.state}): its evidence no longer serves "
                                        f"{view.purpose}: {why}", MAX_DETAIL),
                                 step))
            continue
        missing = [t for t in learning.targets if t not in view.paths_at_head]
        if missing and view.commit is not None:
            found.append(Finding("missing-path", (learning.id,),
                                 f"{learning.id} cites {_named(missing)}, which no longer exist at the default "
                                 f"branch's tip {view.commit[:12]}",
                                 "retire it, or accept the replacement a dream proposes"))
    return found


def _named(paths: Sequence[str], budget: int = 300) -> str:
    """The paths a finding names: as many of the first three as ``budget`` characters hold (at
    least one, cut to fit), then how many more; a path may be 400 characters long."""
    shown = 1
    while shown < min(3, len(paths)) and len(", ".join(paths[:shown + 1])) <= budget:
        shown += 1
    return listed([within(paths[0], budget), *paths[1:]], shown)


def _merge(view: FrozenView, merges: list[tuple[LearningView, set[str]]], a: LearningView, b: LearningView,
           shared: int) -> Candidate | str:
    """The merge proposal for two near-duplicates, or why none is made (``merges``: the
    learnings that replace two or more and are not invalid, in the view's order). A merge
    kept on this machine (personal: by its audience, its evidence or one it replaces) cannot
    take a team learning out of force on the other clones, so none is proposed for a personal
    learning and a team one: a person retires the one not wanted."""
    for other, replaces in merges:  # one tidy would make: replacing these two alone, in one of their words
        if replaces == {a.id, b.id} and (other.title, other.text) in {(a.title, a.text), (b.title, b.text)}:
            return f"a merge of them is already {other.state}: {other.id}"
    keep, other = sorted((a, b), key=lambda lv: (-lv.support, lv.id))
    evidence = _union(keep.evidence, other.evidence)
    counter = _union(keep.counterevidence, other.counterevidence)
    audience = max((keep.audience, other.audience), key=lambda x: NARROWEST.get(x, 0))
    team = [lv.id for lv in (a, b) if not lv.local]
    if team and view.kept_here(audience, (*evidence, *counter), (a, b)):
        mine = [lv.id for lv in (a, b) if lv.local or lv.audience == "personal"]
        return (f"no merge: one replacing {', '.join(team)} would be kept on this machine "
                f"({'personal: ' + ', '.join(mine) if mine else 'it cites a personal session'}); retire the one "
                "not wanted")
    return Candidate(
        theme=f"merge-{keep.id[4:12]}-{other.id[4:12]}", title=keep.title, text=keep.text,
        category=keep.category, audience=audience,
        audience_rationale=f"The narrower audience of the two it merges ({keep.audience}, {other.audience}).",
        evidence=evidence, counterevidence=counter,
        rationale=(f"Near-duplicates: {keep.id} and {other.id} share {shared}% of their words; "
                   f"the merged learning keeps the text of {keep.id} and the evidence of both."),
        targets=tuple(sorted(set(keep.targets) | set(other.targets)))[:32],
        replaces=(keep.id, other.id), confidence="medium",
        signals={"similarity": shared, "support": keep.support + other.support},
    )


def _union(*groups: tuple[Ref, ...]) -> tuple[Ref, ...]:
    seen: dict[tuple[str, tuple[str, ...]], Ref] = {}
    for group in groups:
        for ref in group:
            seen.setdefault((ref.episode, ref.events), ref)
    return tuple(seen.values())[:MAX_REFS]
