"""The recurrence consolidator (the reference): deterministic, and it counts origins, not copies.

For each theme the labels name, it gathers the evidence that asks for the theme or reports it
fixed (support) and the evidence that objects to it; a fix reported, or an agreement, on the pull
request or in the session that asked for the theme answers that ask, and is no support of its
own. Then:

- **contested**: any objection by a person (a reply or a later comment) holds the theme back; it
  is reported with the objections as counterevidence and never proposed (a bot's holds nothing
  back, and is named as not counted). People asking for opposite things under one theme
  ("Always close the connection ..." beside "Never close it ...") hold it back too: neither
  side supports the other, and the smaller side (the forbidding one, on a tie) is named as the dissent;
- **gates**, on independent origins of people only (copies, repeated pastes, replayed sessions
  and quotes share the origin of what they repeat; bots and unknown accounts count as nobody,
  in every gate; one person's origins on one pull request or branch count once,
  ``_independent``): at least ``minOrigins`` origins, ``minThreads`` threads
  or sessions, ``minChanges`` pull requests or branches and ``minPeople`` people (the fewest
  persons such that every origin holds a piece by one of them, ``_people``), and the
  newest support at most ``maxAgeDays`` before the newest evidence of the view (the newest
  shared evidence, for a theme without personal evidence). Every gate must
  pass; the signals are reported, never folded into one number. Thresholds can only be made
  stricter than these defaults;
- **addressed to agents**: a theme whose evidence speaks to AI agents instead of about the code
  is rejected as quarantined, however many accounts repeat it: that is an injected instruction
  made to look like review;
- **audience** (``gitstore.dream.audience``): a personal theme is rejected; the others carry
  their audience and its rationale;
- **memory already holding it** (found by shared evidence): a learning in force, a proposal a
  person who may decide wrote, a rejection or a retirement stand, and the theme is reported as
  known; a person's "no" stands over any proposal sharing its evidence, whatever evidence came
  since (a "no" to a proposal written by hand only when the evidence says its words); its
  own earlier proposal is revised when the evidence changed; an accepted learning that no
  longer applies is offered a replacement.

Shared evidence is cited alone when it passes the gates by itself, so the proposal stays
verifiable on every clone; otherwise personal session evidence is cited too and the store keeps
the learning where that evidence lives. A proposal citing shared evidence alone is written from
it alone (signals, rationale, confidence, category, wording): every clone reads it, and none
learns of the personal sessions on its theme.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from gitstore.dream import audience, cues, terms
from gitstore.dream.consolidators import (MAX_AUDIENCE_RATIONALE, MAX_RATIONALE, MAX_REASON, MAX_TEXT, Candidate,
                                          Outcome, Verdict, listed, within)
from gitstore.dream.labelers import CATEGORIES, Label
from gitstore.dream.view import Evidence, FrozenView, LearningView, Ref, on_changes, said_digest
from gitstore.errors import InvalidInput
from gitstore.records.headline import headline

FLOORS = {"minOrigins": 2, "minThreads": 2, "minChanges": 2, "minPeople": 2}
CEILINGS = {"maxAgeDays": 365}
MAX_REFS = 64
MAX_PROPOSALS = 50
IN_FORCE = frozenset({"accepted", "auto-accepted", "auto-active"})
_DEICTIC = re.compile(r"\b(?:this|here|that|these|those|it)\b", re.I)
_LABEL = re.compile(r"^[\w'-]+(?:\s+[\w'-]+){0,2}:\s+")
_LEAD_IN = re.compile(
    r"^(?:(?:please|nit|also|and|so|again|fwiw|imo|btw|i think|i'd say|as (?:\w+ )?said)[\s,:;-]+)+", re.I)


@dataclass(frozen=True)
class Gates:
    """The thresholds every proposal passes."""

    min_origins: int = FLOORS["minOrigins"]
    min_threads: int = FLOORS["minThreads"]
    min_changes: int = FLOORS["minChanges"]
    min_people: int = FLOORS["minPeople"]
    max_age_days: int = CEILINGS["maxAgeDays"]

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Gates:
        """Thresholds from configuration, refusing any below its floor (or above its ceiling)."""
        unknown = set(options) - set(FLOORS) - set(CEILINGS)
        if unknown:
            raise InvalidInput(f"recurrence: unknown options {', '.join(sorted(unknown))}")
        values: dict[str, int] = {}
        for key, floor in FLOORS.items():
            value = options.get(key, floor)
            if not isinstance(value, int) or isinstance(value, bool) or value < floor:
                raise InvalidInput(f"recurrence: {key} must be an integer of at least {floor} (thresholds can only be raised)")
            values[key] = value
        age = options.get("maxAgeDays", CEILINGS["maxAgeDays"])
        if not isinstance(age, int) or isinstance(age, bool) or not 1 <= age <= CEILINGS["maxAgeDays"]:
            raise InvalidInput(f"recurrence: maxAgeDays must be an integer from 1 to {CEILINGS['maxAgeDays']} (it can only be lowered)")
        return cls(values["minOrigins"], values["minThreads"], values["minChanges"], values["minPeople"], age)

    def failures(self, signals: Mapping[str, int]) -> list[str]:
        """Which gates the signals fail, as short reasons."""
        found = []
        for key, floor, what in (("origins", self.min_origins, "independent origins"),
                                 ("threads", self.min_threads, "threads or sessions"),
                                 ("changes", self.min_changes, "pull requests or branches"),
                                 ("people", self.min_people, "people")):
            if signals[key] < floor:
                found.append(f"{signals[key]} {what} (needs {floor})")
        if signals["ageDays"] > self.max_age_days:
            found.append(f"last seen {signals['ageDays']} days before the newest evidence (at most {self.max_age_days})")
        return found

    def describe(self, signals: Mapping[str, int]) -> str:
        return (f"origins {signals['origins']}>={self.min_origins}, threads {signals['threads']}>={self.min_threads}, "
                f"pull requests or branches {signals['changes']}>={self.min_changes}, people {signals['people']}>={self.min_people}, "
                f"recency {signals['ageDays']}<={self.max_age_days} days")


@dataclass(frozen=True)
class _Theme:
    key: str
    support: tuple[tuple[Label, Evidence], ...]
    objections: tuple[tuple[Label, Evidence], ...]
    answers: tuple[tuple[Label, Evidence], ...] = ()  # fixes and agreements where the theme was asked for


class Recurrence:
    """Proposes themes that recur across independent evidence; holds back contested ones."""

    name = "recurrence"

    def __init__(self, gates: Gates | None = None) -> None:
        self.gates = gates or Gates()

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Recurrence:
        return cls(Gates.from_options(options))

    def consolidate(self, view: FrozenView, labels: Sequence[Label]) -> Outcome:
        memory = _MemoryIndex(view)
        shared_newest = max((e.at for e in view.items() if not e.local), default=None)
        candidates: list[Candidate] = []
        verdicts: list[Verdict] = []
        for theme in _themes(view, labels):
            candidate, verdict = self._judge(view, theme, memory, shared_newest)
            if candidate is not None:
                candidates.append(candidate)
            verdicts.append(verdict)
        return _bounded(candidates, [_brief(v) for v in verdicts])

    def _judge(self, view: FrozenView, theme: _Theme, memory: _MemoryIndex,
               shared_newest: str | None) -> tuple[Candidate | None, Verdict]:
        """The theme's verdict, and its candidate when it is proposed. A theme whose evidence is
        all shared is judged against the newest SHARED evidence: measured against a personal
        session, its recency (whether it passes, and the rationale every clone reads) would
        depend on when this clone's owner last ran an agent, on any subject."""
        whole = theme
        theme = _by_people(whole)
        origins = _representatives(theme.support)
        personal = any(e.local for _, e in theme.support)
        signals = _signals(view.newest if personal else shared_newest, theme, origins)
        refs = _refs(view, origins or _representatives(whole.support))
        if theme.objections:
            against = _representatives(theme.objections)
            who = sorted({e.person or e.author for e in against})
            where = sorted({e.change or "-" for e in against})
            reasons = [f"contested: {len(against)} objection(s) by {listed(who)} in {listed(where, 6)}"]
            known = memory.match(whole)
            if known is not None and known.state in IN_FORCE:
                reasons.append(f"{known.id} in memory now meets this dissent")
            return None, Verdict(theme.key, "held-back", tuple(reasons), signals, refs, _refs(view, against))
        opposed = _opposed(theme)
        if opposed is not None:
            forbid, ask = opposed
            dissent, rest = (ask, forbid) if len(ask) < len(forbid) else (forbid, ask)
            who = sorted({e.person or e.author for e in dissent})
            where = sorted({e.change or "-" for e in dissent})
            side = "forbidding what {} other(s) ask for" if dissent is forbid else "asking for what {} other(s) forbid"
            reason = (f"contested: opposite asks, {len(dissent)} origin(s) by {listed(who)} in {listed(where, 6)} "
                      + side.format(len(rest)))
            return None, Verdict(theme.key, "held-back", (reason,), signals, _refs(view, rest), _refs(view, dissent))
        everyone = _representatives(whole.support)
        # a personal session is its owner talking to their own agent: no order injected into a
        # review, and no reason to quarantine the team's theme on this clone alone
        speaking = [e for e in everyone if not e.local and cues.to_agents(terms.masked(e.text).lower())]
        if speaking:
            reason = (f"quarantined: {len(speaking)} of its {len(everyone)} origins speak to AI agents instead of "
                      f"about the code, as injected instructions do")
            return None, Verdict(theme.key, "rejected", (reason,), signals, refs)
        if not origins:
            return None, Verdict(theme.key, "rejected", ("no person: only bots or unknown accounts",), signals, refs)
        failures = self.gates.failures(signals)
        # shared evidence passing the gates by itself is judged as on every clone holding it:
        # a personal session joining its theme (older than the owner's latest session on any
        # subject, or the owner's copy of a review) never fails it on this clone alone
        alone = self._cited(theme, shared_newest)
        if failures and alone is None:
            kind = audience.classify(origins, _statement(origins, theme))[0]
            return None, Verdict(theme.key, "rejected", tuple(_headline(theme, origins, signals, failures)),
                                 signals, refs, (), kind)
        cited, cited_signals = alone or (theme, signals)
        chosen = _representatives(cited.support)[-MAX_REFS:]
        statement = _statement(chosen, cited)
        kind, why = audience.classify(chosen, statement)
        if kind == "personal":
            return None, Verdict(theme.key, "rejected", (f"personal: {why}",), signals, refs, (), kind)
        texts = [e.text for e in theme_texts(theme, chosen)]
        found = memory.matches(whole)
        parts, side = memory.parts(whole), _side(theme)
        matched = [m for m in found if _speaks(m, texts, parts, side, self.gates.min_origins)]
        known = matched[0] if matched else None
        candidate = self._candidate(view, cited, chosen, statement, (kind, why), cited_signals)
        if known is not None:
            settled = _settled(known, candidate, texts)
            if settled is not None:
                said = (settled, *_left_open(known, matched))
                return None, Verdict(theme.key, "known", said, signals, refs, (), kind, known.id)
            candidate = _against(known, candidate)
        notes = [_passed_over(m) for m in found if m not in matched][:2]
        return candidate, Verdict(theme.key, "proposed", (self.gates.describe(cited_signals), *notes,
                                                          *_not_counted(whole)),
                                  cited_signals, candidate.evidence, (), kind, candidate.revises)

    def _cited(self, theme: _Theme, shared_newest: str | None) -> tuple[_Theme, dict[str, int]] | None:
        """The theme as its shared evidence alone shows it, with its signals, when that passes
        the gates by itself (then a proposal cites only it, stays verifiable on every clone, and
        says nothing of personal sessions: its signals and words come from what it cites, its
        recency from the newest shared evidence); None when the theme holds no personal
        evidence, or needs it."""
        shared = _Theme(theme.key, tuple(p for p in theme.support if not p[1].local), ())
        if len(shared.support) == len(theme.support) or not shared.support:
            return None
        signals = _signals(shared_newest, shared, _representatives(shared.support))
        return None if self.gates.failures(signals) else (shared, signals)

    def _candidate(self, view: FrozenView, theme: _Theme, chosen: list[Evidence], statement: str,
                   audience_: tuple[str, str], signals: dict[str, int]) -> Candidate:
        cited = {e.origin for e in chosen}
        categories = Counter(label.category for label, e in theme.support if e.origin in cited)
        category = min(categories, key=lambda c: (-categories[c], CATEGORIES.index(c)))
        procedural = sum(1 for e in chosen if cues.procedural(terms.masked(e.text).lower()))
        changes = sorted({e.counted_change for e in chosen if e.counted_change})
        rationale = (
            f"Recurring theme {theme.key}: {signals['origins']} independent origins "
            f"({signals['copies']} copies set aside) from {signals['people']} people in {signals['threads']} "
            f"threads or sessions across {signals['changes']} pull requests or branches ({', '.join(changes[:8])}), "
            f"{signals['paths']} paths; last seen {signals['ageDays']} days before the newest evidence. "
            f"Gates passed: {self.gates.describe(signals)}."
        )
        return Candidate(
            theme=theme.key, title=_title(statement), text=statement, category=category,
            audience=audience_[0], audience_rationale=within(audience_[1], MAX_AUDIENCE_RATIONALE),
            evidence=_refs(view, chosen), rationale=within(rationale, MAX_RATIONALE),
            memory="procedural" if 2 * procedural > len(chosen) else "semantic",
            targets=tuple(sorted({e.path for e in chosen if e.path and e.path in view.paths_at_head}))[:32],
            confidence=self._confidence(signals), signals=signals,
        )

    def _confidence(self, signals: Mapping[str, int]) -> str:
        gates = self.gates
        strong = (signals["origins"] >= 2 * gates.min_origins and signals["people"] >= 2 * gates.min_people
                  and signals["changes"] >= 2 * gates.min_changes and 4 * signals["ageDays"] <= gates.max_age_days)
        at_floor = (signals["origins"] == gates.min_origins or signals["people"] == gates.min_people
                    or signals["changes"] == gates.min_changes)
        return "high" if strong else "low" if at_floor else "medium"


def _brief(verdict: Verdict) -> Verdict:
    """The verdict with each reason within the bound a reason may hold: a reason names people,
    changes and paths from the evidence, and one past its bound would be left out of the report."""
    return replace(verdict, reasons=tuple(within(r, MAX_REASON) for r in verdict.reasons))


def _bounded(candidates: list[Candidate], verdicts: list[Verdict]) -> Outcome:
    """At most ``MAX_PROPOSALS`` candidates, the strongest first; the others wait (held back)
    for the next dream."""
    if len(candidates) <= MAX_PROPOSALS:
        return Outcome(tuple(candidates), tuple(verdicts))
    def strength(c: Candidate) -> tuple[int, ...]:
        s = c.signals
        return (-s["origins"], -s["people"], -s["changes"], s["ageDays"])
    kept = sorted(candidates, key=lambda c: (*strength(c), c.theme))[:MAX_PROPOSALS]
    waiting = {c.theme for c in candidates} - {c.theme for c in kept}
    held = [Verdict(v.theme, "held-back", (f"waits for the next dream: at most {MAX_PROPOSALS} proposals per dream",),
                    v.signals, v.evidence, (), v.audience) if v.theme in waiting else v for v in verdicts]
    return Outcome(tuple(c for c in candidates if c.theme not in waiting), tuple(held))


# -- themes and their evidence -------------------------------------------------------------------

def _themes(view: FrozenView, labels: Sequence[Label]) -> list[_Theme]:
    support: dict[str, list[tuple[Label, Evidence]]] = defaultdict(list)
    against: dict[str, list[tuple[Label, Evidence]]] = defaultdict(list)
    for label in labels:
        evidence = view.evidence.get(label.event)
        if evidence is None:
            continue
        (against if label.polarity == "objects-to" else support)[label.theme].append((label, evidence))
    found = []
    for key in sorted(set(support) | set(against)):
        pairs = _on_changes([*support[key], *against[key]])
        raised, answers = _answered(sorted(pairs[:len(support[key])], key=_order))
        if raised:
            found.append(_Theme(key, tuple(raised), tuple(sorted(pairs[len(support[key]):], key=_order)), tuple(answers)))
    return found


def _on_changes(pairs: list[tuple[Label, Evidence]]) -> list[tuple[Label, Evidence]]:
    """PAIRS, each piece with the change it was written on as the theme's evidence shows it
    (``view.on_changes``: only the earliest piece of each of its origins joins its pull
    requests, by one head branch or by a commit its reviews saw)."""
    return list(zip((label for label, _ in pairs), on_changes(e for _, e in pairs)))


def _opposed(theme: _Theme) -> tuple[list[Evidence], list[Evidence]] | None:
    """The origins of THEME that forbid what it names ("Never close the connection ...") and
    those that ask for it ("Always close the connection ..."), when it holds both; None when its
    asks agree. Pieces of one theme asking for opposite things support neither: the theme is
    contested. A negation that still asks ("don't forget to ...", "never retry without a
    backoff") forbids nothing, and a text forbidding one thing and asking for another takes no
    side (``cues.stance``); nor do fixes reported."""
    sides: dict[str, list[tuple[Label, Evidence]]] = {"forbids": [], "asks": [], "both": []}
    for label, evidence in theme.support:
        if label.polarity == "asks-for":
            sides[cues.stance(terms.masked(evidence.text).lower(), label.spans)].append((label, evidence))
    if not sides["forbids"] or not sides["asks"]:
        return None
    return _representatives(sides["forbids"]), _representatives(sides["asks"])


def _by_people(theme: _Theme) -> _Theme:
    """THEME as people raised it: bots and unknown accounts count as nobody, so their evidence
    supplies no origin, thread, pull request or path either (a review bot repeating a remark on
    another pull request is no second change where the theme was raised), and their objections
    hold nothing back."""
    return replace(theme, support=tuple(p for p in theme.support if p[1].person),
                   objections=tuple(p for p in theme.objections if p[1].person))


def _answered(support: list[tuple[Label, Evidence]]) -> tuple[list[tuple[Label, Evidence]], list[tuple[Label, Evidence]]]:
    """SUPPORT split into the evidence that raises the theme and the answers to it (``_places``). What agrees
    with a theme or reports it fixed where the theme was asked for before, on the same pull
    request (in any of its threads) or in the same session, answers that ask ("Good catch, I
    will add ...", "Agreed, ...; doing it now.") and raises nothing: it depends on the ask, so it
    is no origin, person, thread or change of the theme (the author of a pull request taking up
    its reviewer's remark is no second reviewer). Asks come before their answers as first
    written: an edit carries the time of the edit, and a typo fixed in an ask after its answer
    must not make the answer a second person raising it. A fix reported anywhere else is
    evidence of the theme."""
    asked: set[str] = set()
    answers = []
    for label, evidence in sorted(support, key=_as_written):
        places = _places(evidence)
        if not asked.isdisjoint(places) and _answers(label, evidence):
            answers.append((label, evidence))
        elif label.polarity == "asks-for":
            asked.add(places[0])
    answered = {evidence.id for _, evidence in answers}
    return [pair for pair in support if pair[1].id not in answered], answers


def _as_written(pair: tuple[Label, Evidence]) -> tuple[str, str]:
    return pair[1].written or pair[1].at, pair[1].id


def _places(evidence: Evidence) -> tuple[str, ...]:
    """Where a piece answers an ask made before it, the place it asks in first: its pull
    request's change (with the pull requests one with it: ``Evidence.change``), for review
    comments (the author answers in a reply, or in a thread of their own, or on the pull request
    opened again from the same branch); its session otherwise, and for a session on the head
    branch of a pull request that change too (the author taking up its review with their agent:
    "Agreed, add the jitter the reviewer asked for" is no second person raising it). A session's
    ask marks its session only: it never leaves the clone, so it must not make the team's
    comments answers on this clone alone."""
    change = evidence.change if evidence.pull_request is not None else None
    if evidence.source == "review-thread" and change is not None:
        return (change,)
    if evidence.source == "agent-session" and change is not None:
        return (evidence.episode, change)
    return (evidence.episode,)


def _answers(label: Label, evidence: Evidence) -> bool:
    """Whether the evidence takes up an ask made before it: it reports the theme fixed, or
    agrees with it (a reply restating the ask it agrees with is labelled an ask)."""
    return label.polarity == "reports-fixed" or bool(cues.agrees(terms.masked(evidence.text).lower()))


def _order(pair: tuple[Label, Evidence]) -> tuple[str, str]:
    return pair[1].at, pair[1].id


def _representatives(pairs: Sequence[tuple[Label, Evidence]]) -> list[Evidence]:
    """One piece of evidence per origin: the earliest of the theme's evidence from it."""
    seen: dict[str, Evidence] = {}
    for _, evidence in pairs:
        seen.setdefault(evidence.origin, evidence)
    return list(seen.values())


def _signals(view_newest: str | None, theme: _Theme, origins: list[Evidence]) -> dict[str, int]:
    """The theme's signals over its ORIGINS (one piece of each text it is raised in, copies set
    aside), of which one person's on one pull request or branch count once (``_independent``);
    recency is measured against VIEW_NEWEST, the newest evidence it is judged among. People are
    counted by ``_people``."""
    newest = max((e.at for e in origins), default=None)
    oldest = min((e.at for e in origins), default=None)
    independent = _independent(theme.support, origins)
    return {
        "evidence": len(theme.support),
        "origins": len(independent),
        "copies": len(theme.support) - len(origins),
        "threads": len({e.episode for e in independent}),
        "changes": len({e.counted_change for e in origins if e.counted_change}),
        "people": _people([e for _, e in theme.support]),
        "paths": len({terms.glob_of(e.path) for e in origins if e.path}),
        "ageDays": _days(newest, view_newest),
        "spanDays": _days(oldest, newest),
        "objections": len(theme.objections),
    }


def _independent(support: Sequence[tuple[Label, Evidence]], origins: list[Evidence]) -> list[Evidence]:
    """Of ORIGINS (the earliest piece of each origin of SUPPORT), one for each group of them that
    one person raised on one pull request or branch (in one session, without either): a
    reviewer's review body and an inline comment of the same review, two threads of theirs on
    the pull request, or two prompts of one session, each in other words, are one reviewer's
    one look at one change, no independent evidence of each other. Origins are grouped when a
    person of one (any whose piece is part of it: which piece came first is only what the times
    claim) is a person of the other and they were raised on the same change; each group counts
    as its earliest origin. Their texts are still cited, each of its own."""
    published = {e.origin for _, e in support if not e.local}
    persons: dict[str, set[str]] = defaultdict(set)
    for _, evidence in support:  # as ``_people`` holds them: a session's copy of a review is no author of it
        if evidence.person and not (evidence.local and evidence.origin in published):
            persons[evidence.origin].add(evidence.person)
    group: dict[str, int] = {}
    owner: dict[tuple[str, str], int] = {}
    parent: list[int] = []

    def find(n: int) -> int:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n
    for evidence in origins:
        n = len(parent)
        parent.append(n)
        group[evidence.origin] = n
        where = evidence.change or f"episode:{evidence.episode}"
        for person in sorted(persons[evidence.origin]):
            known = owner.setdefault((person, where), n)
            a, b = find(known), find(n)
            if a != b:
                parent[max(a, b)] = min(a, b)
    return [e for e in origins if find(group[e.origin]) == group[e.origin]]


def _people(pieces: Sequence[Evidence]) -> int:
    """How many people raised a theme whose support is PIECES: the fewest persons such that every
    independent origin holds a piece by one of them (a minimum hitting set over each origin's
    persons, ``_fewest``). Which piece of an origin came first is only what the times claim (an
    import can claim any), so any person whose piece is part of an origin may be the one who
    wrote it, and the others copied: counting every piece's person let one author's two texts
    and a second account's copy of one pass as two people; counting only the earliest piece's
    let a copy dated before a reviewer's comment take that reviewer's person away, and give it
    to an account that may have written an origin of its own. The fewest is what the evidence
    shows whichever times are true. So a theme whose origins are each one author's, copied only
    by accounts that wrote no origin of their own, counts its authors; a person who copied
    another's origin and wrote one of their own may be that origin's author too, and counts once
    for both (A's comment, B's copy or quote of it and B's own remark are at least two people,
    not three). Bots and unknown accounts are nobody. A personal session is its owner's; an
    owner named by another kind of account than a review's author (``git:alice@...`` beside
    ``github:9``) may be that author, so is no person more beside them: one's own review and
    one's own session are one, and an origin whose only person is such an owner is one any
    person counted may have written. A personal session repeating shared evidence (the owner
    pasting a review into it) is a copy whatever the times say: the session never left the
    clone, so no one copied it, and the owner is no more a possible author of that origin than
    its shared pieces make them."""
    shared = {e.person for e in pieces if e.person and not e.local}
    kinds = {_kind(p) for p in shared}
    published = {e.origin for e in pieces if not e.local}
    held: dict[str, set[str]] = defaultdict(set)
    for evidence in pieces:
        person = evidence.person
        if evidence.local and evidence.origin in published:
            continue
        if person and not (evidence.local and kinds - {_kind(person)}):
            held[evidence.origin].add(person)
    return _fewest([frozenset(s) for s in held.values() if s])


SEARCH_STEPS = 20_000  # origins examined by ``_fewest``'s search before it settles for its lower bound


def _fewest(sets: Sequence[frozenset[str]]) -> int:
    """The fewest persons holding one of every set of SETS (a minimum hitting set), exact by a
    deterministic branch and bound: a person alone in a set is counted, a set holding another is
    dropped, then the search branches on the smallest set no one counted holds (its persons in
    sorted order), pruned by a greedy packing of sets no two of which share a person (each needs
    a person of its own). Past ``SEARCH_STEPS`` the packing of all the sets is the answer: a
    lower bound, so a theme crafted to make the search long fails closed, never costs the run."""
    persons = sorted(set().union(*sets)) if sets else []
    bit = {p: 1 << n for n, p in enumerate(persons)}
    masks = sorted({sum(bit[p] for p in s) for s in sets}, key=lambda m: (m.bit_count(), m))
    alone = 0
    for mask in masks:
        if mask.bit_count() == 1:
            alone |= mask
    rest = _minimal([m for m in masks if not m & alone])
    return alone.bit_count() + _search(rest)


def _minimal(masks: list[int]) -> list[int]:
    """MASKS (sorted by size) without those holding another (whoever holds the smaller holds
    them); past a bound on the comparisons, the rest are kept as they are, which costs the search
    time, never its answer."""
    kept: list[int] = []
    budget = 4 * SEARCH_STEPS
    for mask in masks:
        budget -= len(kept)
        if budget < 0 or not any(k & mask == k for k in kept):
            kept.append(mask)
    return kept


def _packing(masks: list[int]) -> int:
    """How many of MASKS, taken in order, share no person with those taken before."""
    used = taken = 0
    for mask in masks:
        if not mask & used:
            used |= mask
            taken += 1
    return taken


def _search(masks: list[int]) -> int:
    if not masks:
        return 0
    floor = _packing(masks)
    best = len(masks)  # a person of each set holds them all
    steps = 0
    stack = [(0, 0)]
    while stack and best > floor:
        chosen, size = stack.pop()
        steps += len(masks)
        if steps > SEARCH_STEPS:
            return floor
        open_ = [m for m in masks if not m & chosen]
        if not open_:
            best = min(best, size)
            continue
        if size + _packing(open_) >= best:
            continue
        first = open_[0]
        persons = [1 << n for n in range(first.bit_length()) if first >> n & 1]
        stack.extend((chosen | p, size + 1) for p in reversed(persons))
    return best


def _kind(person: str) -> str:
    return person.split(":", 1)[0]


def _days(start: str | None, end: str | None) -> int:
    if start is None or end is None:
        return 0
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ"
    return max(0, (datetime.strptime(end, fmt) - datetime.strptime(start, fmt)).days)


def _headline(theme: _Theme, origins: list[Evidence], signals: Mapping[str, int], failures: list[str]) -> list[str]:
    """The reasons a theme was rejected, the plainest first."""
    if signals["evidence"] == 1:
        first = "one-off: a single piece of evidence"
    elif len(origins) == 1:
        authors = sorted({_who(e.person, e.local) if e.person else e.author for _, e in theme.support})
        first = f"one origin: {signals['evidence']} copies of one text by {', '.join(authors[:3])}"
    elif signals["people"] <= 1:
        shared = next((e.person for e in origins if e.person and not e.local), None)
        owner = next((e.person for e in origins if e.person and e.local), None)
        persons = {e.person for e in origins if e.person and not e.local}
        held: dict[str, set[str]] = defaultdict(set)
        for _, evidence in theme.support:
            if evidence.person and not evidence.local:
                held[evidence.origin].add(evidence.person)
        every = [held[o.origin] for o in origins if not o.local]
        common = set.intersection(*every) if len(persons) > 1 and every else set()
        shared = min(common) if common else shared
        who = shared or owner
        sessions = all(e.local for e in origins)
        first = f"one person: every origin is by {_who(who, sessions)}" if who else \
            "no person: only bots or unknown accounts"
        if common:  # another account's piece came first by its time, which is only a claim
            first = f"one person: every origin holds a text by {who}, the other accounts' only repeat them"
        if shared and owner and owner != shared:
            first += f" or the local user ({_who(owner)}), who may be them"
    else:
        first = failures[0]
        failures = failures[1:]
    return [first, *[f for f in failures if not first.startswith("one ")]][:6]


def _who(person: str, sessions: bool = False) -> str:
    return "the local user (personal agent sessions)" if sessions or person.startswith("local:") else person


def _refs(view: FrozenView, items: Sequence[Evidence]) -> tuple[Ref, ...]:
    return tuple(view.ref([e.id]) for e in items[-MAX_REFS:])


# -- what the learning says ----------------------------------------------------------------------

def _statement(chosen: list[Evidence], theme: _Theme) -> str:
    """The sentence of the evidence that states the theme best: one that asks for what the
    theme asks for (forbids what it forbids), then the words most of the theme's texts share,
    no pointing at "this" or "here", then the shortest, then the earliest. One longer than a
    candidate's text may be is cut after a whole word, as a title is: still words of the
    evidence, and one long run-on sentence never costs the theme its proposal."""
    spread = _spread(e.text for e in _representatives(theme.support))
    side = _side(theme)
    best: tuple[tuple[int, int, int, int, str], str] | None = None
    for evidence in chosen:
        for sentence, _ in _phrasings(evidence.text, spread):
            key = (*_merit(sentence, spread, side), len(sentence), evidence.at)
            if best is None or key < best[0]:
                best = (key, sentence)
    if best is None:
        return _clean(chosen[0].text)[:400] or theme.key
    return within(best[1], MAX_TEXT)


def quotes(said: str, text: str) -> bool:
    """Whether ``said`` (a learning's title or text) quotes ``text`` (a piece of evidence) as a
    consolidator words a learning from one: it holds a sentence of ``text`` of three words or
    more (a label before it dropped or kept: ``_phrasings``), or it is words of ``text`` (a
    statement cut as ``within`` cuts one, a title cut at a clause: three words or more, or the
    whole of a shorter text); case, punctuation and spacing aside, as ``terms.says`` compares."""
    words = terms.normalized(said)
    if not words or not terms.normalized(text):
        return False
    if words == terms.normalized(text) or (len(words.split()) >= 3 and terms.says(text, said)):
        return True
    return any(terms.says(said, taken) or terms.says(said, written) for taken, written in _phrasings(text, Counter()))


def _spread(texts: Iterable[str]) -> Counter[str]:
    """In how many of TEXTS each term is: a statement's words are those most of them share."""
    spread: Counter[str] = Counter()
    for text in texts:
        spread.update(terms.tokens(text).terms())
    return spread


def _phrasings(text: str, spread: Counter[str]) -> Iterator[tuple[str, str]]:
    """Each sentence of TEXT a statement may be, of three words or more: as ``_statement``
    takes it (a label before it dropped when none of its words is shared: "Small thing: ...",
    "Heads up: ...") and as written."""
    for start, end in _sentences(terms.masked(text)):
        written = _clean(text[start:end])
        label = _LABEL.match(written)
        taken = written
        if label and not any(spread[t] >= 2 for t in terms.tokens(label.group(0)).terms()):
            taken = _clean(written[label.end():])
        if len(taken.split()) >= 3:
            yield taken, written


def _merit(sentence: str, spread: Counter[str], side: str) -> tuple[int, int, int]:
    """How well a sentence states a theme whose texts ask for what they name (SIDE ``asks``)
    or forbid it (``forbids``), the better the smaller: taking the theme's side, where the
    words most of its texts share stand (not the other side: "Retry loops must never add
    jitter, clients must retry ..." states no theme asking for jitter, however many of its
    words it holds; nor both sides, which less well), then the more of those words, then the
    less it points at "this" or "here"."""
    found = terms.tokens(sentence)
    weight = sum(spread[t] for t in found.terms() if spread[t] >= 2)
    shared = tuple((start, end) for term, start, end in found.words() if spread[term] >= 2)
    taken = cues.stance(terms.masked(sentence).lower(), shared)
    return (0 if taken == side else 1 if taken == "both" else 2), -weight, len(_DEICTIC.findall(sentence))


def _side(theme: _Theme) -> str:
    """Whether THEME's texts ask for what they name (``asks``) or forbid it (``forbids``): a
    theme reaching its statement holds no opposite asks (``_opposed``)."""
    for label, evidence in theme.support:
        if label.polarity == "asks-for" and cues.stance(terms.masked(evidence.text).lower(), label.spans) == "forbids":
            return "forbids"
    return "asks"


def _sentences(text: str) -> list[tuple[int, int]]:
    found, start = [], 0
    for match in re.finditer(r"[.!?;]+(?:\s+|$)|\n+", text):
        if match.start() > start:
            found.append((start, match.start()))
        start = match.end()
    if start < len(text):
        found.append((start, len(text)))
    return found


def _clean(sentence: str) -> str:
    sentence = " ".join(sentence.split())
    sentence = _LEAD_IN.sub("", sentence).strip(" ,;:-")
    if not sentence:
        return ""
    sentence = sentence[0].upper() + sentence[1:]
    return sentence if sentence[-1] in ".!?" else sentence + "."


def _title(statement: str) -> str:
    """A proposal's title: its statement's first sentence, or a clause of it cut whole
    (``gitstore.records.headline``), never a cut inside a word."""
    return headline(statement)


def _title_before(statement: str) -> str:
    """The title dreams gave a statement before titles were cut at a clause (the statement cut
    at 80 characters, then ``...``): a proposal titled so is still an earlier dream's own."""
    title = statement.rstrip(".!?")
    return title if len(title) <= 80 else title[:80].rsplit(" ", 1)[0] + "..."


# -- memory that already holds a theme -----------------------------------------------------------

class _MemoryIndex:
    """Learnings by the comments they cite, to find the one holding a theme. A comment is known
    by its first version (``FrozenView.comment``): an edit is a new event superseding the one a
    learning cites, and a typo fixed must not turn a person's decision, or the dream's own
    proposal, into a stranger to the theme it spoke for. An edit rewritten to another subject is
    a comment of its own (``view.first_versions``): no decision on what it once said reaches it."""

    def __init__(self, view: FrozenView) -> None:
        self.view = view
        self._current: frozenset[str] | None = None
        self.by_comment: dict[str, list[LearningView]] = defaultdict(list)
        for learning in view.learnings.values():
            if learning.state == "invalid":
                continue
            for comment in {view.comment(e) for e in learning.events()}:
                self.by_comment[comment].append(learning)

    def matches(self, theme: _Theme) -> list[LearningView]:
        """The learnings sharing evidence with the theme, the one that speaks for it first."""
        counts: Counter[str] = Counter()
        found: dict[str, LearningView] = {}
        for _, evidence in (*theme.support, *theme.objections, *theme.answers):
            for comment in {self.view.comment(evidence.id), self.view.comment(evidence.origin)}:
                for learning in self.by_comment.get(comment, ()):
                    counts[learning.id] += 1
                    found[learning.id] = learning
        return [found[lid] for lid in sorted(counts, key=lambda lid: (_rank(found[lid]), -counts[lid], lid))]

    def parts(self, theme: _Theme) -> Callable[[str], str | None]:
        """Which cited events are part of the theme, by the origin they count for: a version of a
        comment among its support counts for that comment's origin; a text no evidence of the view
        is a version of any more (superseded by an edit rewritten to another subject, say: it was
        evidence when it was cited) counts as one of its own; a comment that is evidence of
        anything else is no part of it."""
        if self._current is None:
            self._current = frozenset(self.view.comment(e) for e in self.view.evidence)
        current = self._current
        members = {self.view.comment(e.id): e.origin for _, e in theme.support}

        def origin(event: str) -> str | None:
            comment = self.view.comment(event)
            return members.get(comment) or (None if comment in current else comment)
        return origin

    def match(self, theme: _Theme) -> LearningView | None:
        """The learning that speaks for the theme, if memory holds it."""
        found = self.matches(theme)
        return found[0] if found else None


def _rank(learning: LearningView) -> int:
    """Which matching learning speaks for a theme: one in force first; then a person's "no" (a
    rejection or a retirement), which stands for every later theme its evidence is part of, so a
    proposal sharing evidence with it (one a window kept from seeing it, say) is never revised
    into saying it again; then the rest, accepted ones before open proposals."""
    if learning.state in IN_FORCE and learning.usable:
        return 0
    order = {"rejected": 1, "retired": 2, "accepted": 3, "auto-active": 3, "auto-accepted": 4, "proposed": 5}
    return order.get(learning.state, 6)


def theme_texts(theme: _Theme, chosen: list[Evidence]) -> list[Evidence]:
    """The evidence a theme stands on: what it cites and what supports it."""
    return [*chosen, *(e for _, e in theme.support)]


def _by_hand(learning: LearningView) -> bool:
    return not learning.proposer.startswith("consolidator:")


def _proposer(learning: LearningView) -> str:
    """Who wrote a proposal by hand, as the store names them."""
    return learning.proposer.removeprefix("person:")


def _speaks(learning: LearningView, texts: list[str], origin: Callable[[str], str | None], side: str,
            least: int) -> bool:
    """Whether a learning sharing the theme's evidence speaks for the theme (TEXTS: what the
    theme stands on; ORIGIN: the origin of an event that is part of it, None for any other;
    SIDE: whether the theme asks for what it names or forbids it; LEAST: the fewest origins a
    proposal of the dream cites). Anyone who can push can store a proposal citing a team's
    evidence, by hand or naming the consolidator. One by hand pre-empts the dream only when its
    proposer may decide (``proposer_decides``), and a person's "no" to it is a no to the theme
    only when its proposer may decide and its evidence says its words: rejecting a decoy in
    wrong words, or a premature proposal of someone who decides nothing, must not silence what
    reviewers ask for. One naming the consolidator speaks for the theme, proposed or rejected,
    only when its text is what the consolidator writes: the sentence of the theme's texts it
    cites that states the theme best (``_consolidators_words``); judged on the cited texts as
    stored, the same on every clone, whichever wrote it, and after their comments are edited.
    One whose evidence no longer serves is judged so on what of it still serves, unless a
    redaction is what hid it (only a person the store trusts to redact makes one): citing a
    comment of one's own the purpose was never granted for hides no decoy."""
    if _by_hand(learning):
        said = learning.visible and any(terms.says(text, learning.text) for text in texts)
        if learning.state == "proposed":
            return learning.proposer_decides
        if learning.state == "rejected":
            return learning.proposer_decides and (said or not learning.visible)
        return True
    if learning.state not in ("proposed", "rejected"):
        return True
    if not learning.visible and learning.stale_cause == "redacted":
        return True
    return _consolidators_words(learning, origin, side, least)


def _consolidators_words(learning: LearningView, origin: Callable[[str], str | None], side: str, least: int) -> bool:
    """Whether a proposal naming the consolidator says what the consolidator would of the
    evidence it cites: of the texts it cites that are part of the theme (one for each origin,
    at least LEAST of them, as the dream's own proposals cite every origin of a theme that
    passed its gates), a sentence as ``_statement`` takes one (a label before it dropped or
    kept) and as good as the best of them (``_merit``: taking the theme's SIDE, by the words
    most of those texts share and by pointing at nothing; length and age, which only break
    ties, aside). A fragment of a sentence, a sentence saying the theme less well than another
    ("The retry here has no jitter." beside "Retry loops must use backoff with jitter."), one
    best only among a few texts picked to make it so, or the words of a text of no part of the
    theme (another theme's comment, the proposer's own) cited beside it, are someone else's
    choice of words. Its text is known by its digest (``LearningView.said``)."""
    cited: dict[str, str] = {}
    for event, text in learning.cited:
        part = origin(event)
        if part is not None:
            cited.setdefault(part, text)
    if len(cited) < least:
        return False
    spread = _spread(cited.values())
    phrasings = [found for text in cited.values() for found in _phrasings(text, spread)]
    if not phrasings:
        return any(said_digest(_clean(text)[:400]) == learning.said for text in cited.values())
    best = min(_merit(taken, spread, side) for taken, _ in phrasings)
    return any(learning.said in (said_digest(within(taken, MAX_TEXT)), said_digest(within(written, MAX_TEXT)))
               and _merit(taken, spread, side) == best for taken, written in phrasings)


def _passed_over(learning: LearningView) -> str:
    """Why a proposal on the theme does not settle it."""
    if not _by_hand(learning):
        return (f"{learning.id}, a proposal naming the consolidator, does not say its theme as the consolidator "
                f"would (the sentence of the theme's evidence it cites that says it best): it settles nothing "
                f"(it stays {learning.state} as it stands)")
    if not learning.proposer_decides:
        return (f"{learning.id}, proposed by hand by {_proposer(learning)}, does not settle the theme: its append "
                f"does not show that {_proposer(learning)} may decide here (under a policy, a proposal is theirs "
                "once they sign it; a proposal stays as it stands for a person to review)")
    return (f"{learning.id}, proposed by hand by {_proposer(learning)} and rejected by a person, is in words "
            f"none of the evidence says: that rejection stands for its words, not for the theme")


def _not_counted(theme: _Theme) -> list[str]:
    """The objections of bots and unknown accounts, named as counting for nothing."""
    against = _representatives([p for p in theme.objections if not p[1].person])
    if not against:
        return []
    who = sorted({e.author for e in against})
    return [f"not counted: {len(against)} objection(s) by {listed(who)} (bots and unknown accounts count as nobody)"]


def _settled(known: LearningView, candidate: Candidate, texts: list[str]) -> str | None:
    """Why a theme needs nothing new because of ``known`` (None when it does)."""
    if known.state in IN_FORCE and known.usable:
        return f"already in memory as {known.id} ({known.state})"
    if known.state == "proposed" and _by_hand(known):
        return f"already proposed by hand as {known.id} by {_proposer(known)}"
    if known.state == "proposed" and not known.visible:
        # its words are hidden from the dream: a revision would keep them, and put this evidence,
        # and its people, behind words of a redacted comment or of whoever wrote the proposal
        return (f"already proposed as {known.id}; its evidence no longer serves ({known.stale}): a person "
                f"reviews it as it stands, or rejects it")
    if known.state == "proposed" and known.evidence == candidate.evidence:
        return f"already proposed as {known.id}, unchanged"
    if known.state == "proposed" and (known.title, known.text) != (candidate.title, candidate.text) and not (
            known.title in (_title(known.text), _title_before(known.text)) and any(terms.says(text, known.text) for text in texts)):
        # a revision keeps the words: any writer can store a proposal naming a consolidator, and
        # revising it would put this evidence, and its people, behind words none of it says (an
        # earlier dream's statement, a sentence of the evidence, is revised as before)
        return (f"already proposed as {known.id} in words none of its evidence says: a person reviews it as it "
                f"stands, or rejects it (a rejection stands for the theme: say it otherwise with `gitstore propose`)")
    if known.state == "proposed" and known.visible and known.audience != candidate.audience:
        return (f"already proposed as {known.id} for {known.audience}; the evidence now says {candidate.audience}: "
                f"a person reviews it as it stands, or rejects it (a rejection stands for the theme)")
    if known.state == "rejected":
        return f"rejected by a person as {known.id}"
    if known.state == "retired":
        return f"retired by a person as {known.id}"
    return None


def _left_open(known: LearningView, matched: list[LearningView]) -> list[str]:
    """When a person's "no" settles the theme: the open proposals sharing its evidence, which
    stay as they stand for a person to review or reject (no dream revises them)."""
    if known.state not in ("rejected", "retired"):
        return []
    open_ = [m.id for m in matched if m.state == "proposed"]
    if not open_:
        return []
    return [f"{listed(open_)} shares its evidence and stays as it stands: a person reviews it, or rejects it"]


def _against(known: LearningView, candidate: Candidate) -> Candidate:
    """The candidate as a revision of its own earlier proposal, or as a replacement of a
    learning in memory that no longer applies."""
    if known.state == "proposed":
        return replace(candidate, revises=known.id)
    return replace(candidate, replaces=(known.id,),
                   rationale=candidate.rationale + f" Offers to replace {known.id}, which no longer applies: "
                   + "; ".join(known.reasons[:2]) + ".")
