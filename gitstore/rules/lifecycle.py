"""Learning histories: every version a record, chained by ``previous``, checked step by step.

A history must start as a proposal; each later version names the version before it, and each
step may change only its own fields:

- proposed -> proposed (revision): evidence, counterevidence, support, dissent, confidence,
  rationale and the audience rationale may change, nothing else;
- proposed | auto-accepted | auto-active -> accepted: a person names the reviewDigest of the
  version they reviewed; the text may change (``edited`` is true exactly when it does), the
  title may not (accepting may change the text and nothing else);
  ``supersedes`` may list learnings the reviewed version offered to replace, nothing else;
- proposed -> rejected: a person names the reviewDigest reviewed; nothing else changes;
- proposed -> auto-accepted -> auto-active: the auto-safe gate, nothing else changes;
- accepted -> accepted: once, adding ``supersedes`` to a learning accepted without it, from
  what it offered to replace;
- accepted | auto-accepted | auto-active -> retired: a person, with a reason; nothing else.

A step applies only to a version its append had seen: any append holding that version (a
record is its digest; a copy stored first in store order, where no step had seen it, takes
nothing away: ``_Followed``). Steps that name the same version (two clones deciding at once)
settle by what each append had seen, never by the clocks writers claim (``settle_steps``). A
step made having seen another step on that version counts only if what it saw was a contest (a person deciding again with both in view); otherwise it is stale
and ignored. Of the steps left, the one no other had seen counts, so a rejection made without
seeing an acceptance never wins over it: the two are a contest for a person. A revision (which
needs no authority: anyone who can push can write one) never contests a decision it did not
see: the decision counts. A version that is no step the rules allow from the one it follows
(a proposal after an acceptance, a rejection of an accepted learning, an added supersedes
that also changes the text) is ignored, and named (``broken``), but breaks nothing: it would
let anyone who can push, or anyone the policy lets take one action, take a learning out of
force for good. Nor does such a version displace, among steps
naming the same version, one that a decision is or builds on: a sibling with the same words
and a smaller digest would otherwise orphan every decision made after it. When several were made
without seeing each other and disagree (an acceptance and a rejection, two different edits),
the history is **contested**: it stays at the version they follow, names them, and is never
used until a person decides again on that version. Steps that agree (two retirements) settle
on the smallest digest. Steps stored in one append were made together, none having seen
another: they settle as steps made without seeing each other. Every clone holding the same
steps computes the same outcome, in one pass over what each had seen, however many steps
name one version. A history with no proposal to start from breaks a rule and is never used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gitstore._shown import bounded
from gitstore.errors import Refused
from gitstore.providers import Stored
from gitstore.records.identity import AUTO_SAFE, is_person
from gitstore.records.ids import learning_id
from gitstore.store import Item, store_order_saw

Saw = Callable[[Stored, Stored], bool]
Copies = Callable[[Item], list[Item]]  # a record as other appends store it too (``Store.copies``)

ALWAYS = frozenset({"digest", "version", "previous", "state", "decision", "at", "contentDigest", "reviewDigest"})
REVISABLE = frozenset({"evidence", "counterevidence", "support", "dissent", "confidence", "rationale", "audienceRationale"})
USABLE = frozenset({"accepted", "auto-active"})
AUTO = frozenset({"auto-accepted", "auto-active"})


@dataclass
class History:
    """A learning's versions in chain order, the intact prefix, and the first broken rule."""

    id: str
    chain: list[Item] = field(default_factory=list)
    intact: int = 0
    problem: str | None = None
    ignored: list[Item] = field(default_factory=list)
    contested: str | None = None  # why the history stays before steps made without seeing each other
    contenders: list[Item] = field(default_factory=list)
    broken: list[tuple[Item, str]] = field(default_factory=list)  # versions no decision made that no step allows

    @property
    def current(self) -> dict[str, Any]:
        """The newest intact version (every history has at least its proposal)."""
        return self.chain[self.intact - 1].record

    @property
    def valid(self) -> bool:
        return self.problem is None and self.intact > 0


@dataclass(frozen=True)
class Settled:
    """The outcome of steps that name the same version: the one that counts, or none, and the
    steps made without seeing each other that disagree (a contest)."""

    winner: Item | None
    contenders: tuple[Item, ...] = ()


def settle_steps(steps: list[Item], saw: Saw = store_order_saw) -> Settled:
    """Which of ``steps`` (each naming the same previous version) counts; see the module.

    One pass, in the order the steps were made: whether a step counts (it saw nothing, or what
    it saw settles as a contest) depends only on the steps it had seen, and those were judged
    before it (having seen is transitive: an append saw what the appends it saw had seen), so
    each step is judged once. Judging it again within every set of steps it had seen would
    cost time exponential in their number, which anyone who can push could make every read
    spend."""
    if not steps:
        return Settled(None)
    seen = _seen(steps, saw)
    live: set[int] = set()
    for n in sorted(range(len(steps)), key=lambda n: len(seen[n])):  # each after the steps it saw
        if not seen[n] or _outcome(steps, seen[n], seen, live).contenders:
            live.add(n)
    return _outcome(steps, set(range(len(steps))), seen, live)


def _seen(steps: list[Item], saw: Saw) -> list[set[int]]:
    """For each step, the positions of the steps its append was made having seen. Steps of one
    append were made together, none knowing another first: they have not seen each other (an
    append has seen itself, but a step it holds is no earlier step its writer knew of). Asked
    once for each two appends: one append holding many steps costs no question at all."""
    appends: dict[str, list[int]] = {}
    for n, step in enumerate(steps):
        appends.setdefault(step.stored.append, []).append(n)
    groups = list(appends.values())
    first = [steps[group[0]].stored for group in groups]
    saw_at = [[a != b and saw(later, earlier) for b, earlier in enumerate(first)] for a, later in enumerate(first)]
    found: list[set[int]] = [set() for _ in steps]
    for a, group in enumerate(groups):
        earlier = {n for b, other in enumerate(groups) if saw_at[a][b] and not saw_at[b][a] for n in other}
        for n in group:
            found[n] = earlier
    return found


def _outcome(steps: list[Item], among: set[int], seen: list[set[int]], live: set[int]) -> Settled:
    """The outcome among some steps, given those that count (``live``): of those, the ones
    no other that counts had seen stand; decisions before revisions; agreeing ones settle on
    the smallest digest, disagreeing ones are a contest."""
    counting = among & live
    top = [steps[n] for n in sorted(counting - set().union(*(seen[n] for n in counting)))]
    if not top:
        return Settled(None)
    decided = [s for s in top if "decision" in s.record]
    if decided:  # a revision, which anyone may write, never contests what a person decided
        top = decided
    if len(top) == 1 or len({_intent(s.record) for s in top}) == 1:
        return Settled(min(top, key=lambda s: s.digest))
    return Settled(None, tuple(sorted(top, key=lambda s: s.digest)))


def _intent(record: Mapping[str, Any]) -> tuple[Any, ...]:
    """What a step decides, leaving out who, when and why: steps with equal intents agree."""
    return (record["state"], repr(record["content"]), tuple(record.get("supersedes", ())))


def build(learning_id: str, items: list[Item], saw: Saw = store_order_saw, copies: Copies | None = None) -> History:
    """Chain the versions stored for one learning (``items`` in store order) and check it:
    each step counts only when an append holding it had seen an append holding the version it
    follows (``copies``: where else a record is stored, see ``_Followed``), and steps naming
    the same version settle by what they had seen (``settle_steps``)."""
    history = History(learning_id)
    by_previous: dict[str | None, list[Item]] = {}
    for item in items:
        by_previous.setdefault(item.record["previous"], []).append(item)
    decided = _leading_to_decisions(items)
    previous: str | None = None
    while previous in by_previous:
        candidates = by_previous.pop(previous)
        followed = _Followed(history.chain[-1], saw, copies) if history.chain else None
        if followed is not None:
            placed = [followed.placed(c) for c in candidates]
            history.ignored.extend(c for c, p in zip(candidates, placed) if p is None)
            candidates = [p for p in placed if p is not None]
        before = history.chain[-1].record if history.chain else None
        for candidate in candidates:  # anyone could have written it, or anyone allowed one action: it breaks nothing
            problem = check_step(before, candidate.record)
            if problem is not None:
                history.broken.append((candidate, f"version {candidate.record['version']} ({candidate.digest}): "
                                                  f"{problem}"))
                history.ignored.append(candidate)
        candidates = [c for c in candidates if all(c is not b for b, _ in history.broken)]
        if any(c.digest in decided for c in candidates):  # a version no decision made never displaces one a
            # decision builds on: a sibling anyone can write (same words, a smaller digest) orphaned it
            history.ignored.extend(c for c in candidates if c.digest not in decided)
            candidates = [c for c in candidates if c.digest in decided]
        settled = settle_steps(candidates, saw)
        history.ignored.extend(c for c in candidates if c is not settled.winner)
        if settled.winner is None:
            if settled.contenders:
                history.contenders = list(settled.contenders)
                history.contested = "steps made without seeing each other disagree: " + "; ".join(
                    f"{c.record['state']} by {c.record.get('decision', {}).get('by', 'a proposer')} "
                    f"({c.digest})" for c in settled.contenders)
            break
        history.chain.append(settled.winner)
        previous = settled.winner.digest
    for rest in by_previous.values():
        history.ignored.extend(rest)
    history.intact = len(history.chain)  # each version entered the chain only as a step the rules allow
    if not history.chain:
        orphan = items[0] if items else None
        history.problem = "history has no proposal to start from" + (f" ({orphan.digest})" if orphan else "")
        if history.broken and not history.contested:
            history.problem = history.broken[0][1]
    return history


class _Followed:
    """The version steps follow, and where each step counts as made.

    A record is its digest: a step whose append had seen any append holding the version it
    follows had seen that version. Where a record is read from is the first append holding it
    in store order, and a writer claims its own clock: anyone who can push can store a copy of
    a version in an append placed first that no step had seen, or a copy of a step in one that
    had seen nothing. Neither takes anything away, nor does a copy placed last: a version
    anyone may write (a revision) is placed in the first append holding it that had seen the
    version it follows, and settles with its siblings by what that append had seen; a
    decision stays where it carries authority (``gitstore.rules.view``). The other appends
    holding a record (``copies``) are asked for only when the one it was read from does not
    settle it: copies are rare, and every other step costs what it did."""

    def __init__(self, version: Item, saw: Saw, copies: Copies | None) -> None:
        self.version, self.saw, self.copies = version, saw, copies
        self._held: list[Stored] | None = None

    def seen_from(self, place: Stored) -> bool:
        """Whether the append at ``place`` had seen an append holding the version."""
        if self.saw(place, self.version.stored):
            return True
        if self.copies is None:
            return False
        if self._held is None:
            self._held = [copy.stored for copy in self.copies(self.version)]
        return any(self.saw(place, held) for held in self._held)

    def placed(self, step: Item) -> Item | None:
        """``step`` in the first append holding it that had seen the version (None: none had)."""
        if self.seen_from(step.stored):
            return step
        return next((copy for copy in self._others(step) if self.seen_from(copy.stored)), None)

    def _others(self, step: Item) -> list[Item]:
        if self.copies is None or "decision" in step.record:
            return []
        return self.copies(step)


def _leading_to_decisions(items: list[Item]) -> set[str]:
    """The versions a decision is, or builds on (following ``previous`` back from each); a
    decision that is no step the rules allow from the version it names builds on nothing."""
    by_digest = {item.digest: item for item in items}
    found: set[str] = set()
    for item in items:
        prior = by_digest.get(item.record["previous"] or "")
        if "decision" not in item.record or check_step(prior.record if prior else None, item.record):
            continue
        at: Item | None = item
        while at is not None and at.digest not in found:
            found.add(at.digest)
            at = by_digest.get(at.record["previous"] or "")
    return found


def unknown(learning_id: str) -> Refused:
    """The refusal of a learning id this scope holds no learning for, or of none at all."""
    if not learning_id.strip():
        return Refused("no learning id given (`gitstore learnings` lists them)")
    return Refused(f"no learning {learning_id} in this scope (`gitstore learnings` lists them)")


def checked(learnings: Mapping[str, list[Item]], learning_id: str, saw: Saw = store_order_saw,
            copies: Copies | None = None) -> History:
    """The history of ``learning_id`` among a view's learnings; refuses an unknown learning and
    one whose history breaks a rule (it is never used)."""
    items = learnings.get(learning_id)
    if not items:
        raise unknown(learning_id)
    history = build(learning_id, items, saw, copies)
    if not history.valid:
        raise Refused(f"{learning_id} has a history that breaks a rule and is never used: {history.problem}")
    return history


def check_step(prior: dict[str, Any] | None, record: dict[str, Any]) -> str | None:
    """Why ``record`` may not follow ``prior`` (None when it may)."""
    if prior is None:
        if record["version"] != 1 or record["state"] != "proposed" or record["previous"] is not None:
            return "a history must start with version 1 in state proposed"
        if record["id"] != learning_id(record["contentDigest"]):
            return "the id is not derived from the proposal's contentDigest"
        return None
    if record["version"] != prior["version"] + 1:
        return f"version {record['version']} does not follow {prior['version']}"
    step = (prior["state"], record["state"])
    rule = _STEPS.get(step)
    if rule is None:
        return f"{prior['state']} -> {record['state']} is not a lifecycle step"
    return rule(prior, record)


def _changed(prior: dict[str, Any], record: dict[str, Any]) -> set[str]:
    keys = (set(prior) | set(record)) - ALWAYS
    return {k for k in keys if prior.get(k) != record.get(k)}


def _only(prior: dict[str, Any], record: dict[str, Any], allowed: set[str] | frozenset[str]) -> str | None:
    extra = _changed(prior, record) - set(allowed)
    return f"this step may not change {', '.join(sorted(extra))}" if extra else None


def _not_a_person(by: str) -> str:
    """Why a decision by ``by`` is no step: a name any clone that can push chose (up to 160
    characters of anything but whitespace), so bounded, as a ref's or a writer's is: history,
    verify and list rows print this reason, and an agent may read it."""
    return f"{bounded(by)} is not a person"


def _human_review(prior: dict[str, Any], record: dict[str, Any]) -> str | None:
    decision = record["decision"]
    if not is_person(decision["by"]):
        return _not_a_person(decision["by"])
    if decision["reviewDigest"] != prior["reviewDigest"]:
        return "the decision names a reviewDigest that was never shown for the version it follows"
    return None


def _revise(prior: dict[str, Any], record: dict[str, Any]) -> str | None:
    if "decision" in record:
        return "a revised proposal carries no decision"
    return _only(prior, record, REVISABLE)


def _accept(prior: dict[str, Any], record: dict[str, Any]) -> str | None:
    problem = _human_review(prior, record) or _only(prior, record, {"content", "supersedes"})
    if problem:
        return problem
    edited = record["content"] != prior["content"]
    if record["decision"]["edited"] != edited:
        return "decision.edited must be true exactly when the text changed"
    if record["content"]["title"] != prior["content"]["title"]:
        return "accepting may change the text, not the title"
    if not set(record.get("supersedes", [])) <= set(prior["replaces"]):
        return "supersedes names learnings the reviewed version did not offer to replace"
    return None


def _reject(prior: dict[str, Any], record: dict[str, Any]) -> str | None:
    problem = _human_review(prior, record) or _only(prior, record, set())
    if problem is None and record["decision"]["edited"]:
        return "a rejection edits nothing"
    return problem


def _auto(prior: dict[str, Any], record: dict[str, Any]) -> str | None:
    decision = record["decision"]
    if decision["by"] != AUTO_SAFE:
        return f"only {AUTO_SAFE} takes the auto-safe steps"
    if decision["reviewDigest"] != prior["reviewDigest"] or decision["edited"]:
        return "the auto-safe gate names the reviewDigest it checked and edits nothing"
    return _only(prior, record, set())


def _extend(prior: dict[str, Any], record: dict[str, Any]) -> str | None:
    if prior.get("supersedes"):
        return "a learning records what it replaces once; to replace more, propose a merge"
    if not record.get("supersedes"):
        return "an accepted learning is followed by another accepted version only to add supersedes"
    problem = _human_review(prior, record) or _only(prior, record, {"supersedes"})
    if problem is None and not set(record["supersedes"]) <= set(prior["replaces"]):
        return "supersedes names learnings the reviewed version did not offer to replace"
    return problem


def _retire(prior: dict[str, Any], record: dict[str, Any]) -> str | None:
    decision = record["decision"]
    if not is_person(decision["by"]):
        return _not_a_person(decision["by"])
    if not decision.get("reason"):
        return "retiring needs a reason"
    return _only(prior, record, {"supersedes"})  # only accepted versions carry it; claims stay


_STEPS = {
    ("proposed", "proposed"): _revise,
    ("proposed", "accepted"): _accept,
    ("auto-accepted", "accepted"): _accept,
    ("auto-active", "accepted"): _accept,
    ("proposed", "rejected"): _reject,
    ("proposed", "auto-accepted"): _auto,
    ("auto-accepted", "auto-active"): _auto,
    ("accepted", "accepted"): _extend,
    ("accepted", "retired"): _retire,
    ("auto-accepted", "retired"): _retire,
    ("auto-active", "retired"): _retire,
}


def histories(items_by_id: Mapping[str, list[Item]], saw: Saw = store_order_saw,
              copies: Copies | None = None) -> dict[str, History]:
    """Every learning's history (``saw``: whether one append was made having seen another;
    ``copies``: where else a record is stored)."""
    return {lid: build(lid, items, saw, copies) for lid, items in items_by_id.items()}
