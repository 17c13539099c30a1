"""The learning lifecycle: propose, revise, accept (optionally edited), reject, retire, merge.

Every step is one new version written by compare-and-swap on the learning's stream, with its
audit entry in the same append. Accepting or rejecting needs the reviewDigest the person was
shown; a newer version makes that review stale.
"""

from __future__ import annotations

import copy
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gitstore._shown import bounded
from gitstore.rules import autosafe
from gitstore.records.contracts import content_digest, seal
from gitstore.errors import AlreadyDone, ConflictError, NotAuthorised, Refused, UsageError
from gitstore.ops import unfinished
from gitstore.records.headline import name_of, one_line, title_for
from gitstore.records.identity import AUTO_SAFE
from gitstore.records.ids import learning_id
from gitstore.rules import evidence as ev
from gitstore.rules.active import Claims, settle
from gitstore.rules.lifecycle import AUTO, History, check_step, checked
from gitstore.rules.view import View, claim_reach, learning_items
from gitstore.safety.gate import screen_text, screen_together, without_secrets
from gitstore.records.vocabulary import AUDIENCES, CATEGORIES, MEMORY_KINDS
from gitstore.context import Context
from gitstore.records.times import now

if TYPE_CHECKING:
    from gitstore.queries.learnings import Standing


@dataclass(frozen=True)
class Draft:
    """What a proposer states; the store rebuilds the evidence and computes the rest."""

    title: str
    text: str
    category: str
    evidence: list[dict[str, Any]]
    counterevidence: list[dict[str, Any]]
    memory: str = "semantic"
    audience: str = "project"
    audience_rationale: str = "Evidence comes from this repository's own reviews and sessions."
    targets: tuple[str, ...] = ()
    replaces: tuple[str, ...] = ()
    rationale: str = "Proposed by hand."
    confidence: str = "medium"
    valid_from: str | None = None
    valid_until: str | None = None
    proposer: tuple[str, str] = ("person", "unknown")


def _origins(refs: list[dict[str, Any]]) -> int:
    """Independent origins: distinct author and pull request (or episode) pairs, not copies. Pull
    requests sharing a head branch or a commit are one change (``rules.evidence.one_change``):
    one author on a pull request and on it opened again from its branch is one origin."""
    joined, _ = ev.one_change(r["pin"] for r in refs)
    return len({(r["author"], joined[r["pin"]["pullRequest"]][0] if r["pin"]["pullRequest"] else r["episode"])
                for r in refs})


def _refs(view: View, stated: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [ev.check_stated(view, ref) for ref in stated]


def _cited(view: View, evidence: list[dict[str, Any]],
           counterevidence: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Evidence and counterevidence rebuilt from storage; an event cannot support a learning
    and speak against it at once."""
    for_it, against = _refs(view, evidence), _refs(view, counterevidence)
    both = sorted({e for r in for_it for e in r["events"]} & {e for r in against for e in r["events"]})
    if both:
        raise Refused(f"event {both[0]} is cited both as evidence and as counterevidence")
    return for_it, against


def build_proposal(ctx: Context, view: View, draft: Draft) -> dict[str, Any]:
    """A sealed version 1 from a draft: text screened, evidence rebuilt from storage."""
    for name, value, allowed in (("category", draft.category, CATEGORIES), ("memory", draft.memory, MEMORY_KINDS),
                                 ("audience", draft.audience, AUDIENCES)):
        if value not in allowed:
            raise UsageError(f"unknown {name} {value!r} (one of {', '.join(allowed)})")
    if one_line(draft.title) != draft.title:
        raise UsageError("a title is one line: it holds a line break (a skill's heading and a commit's subject "
                         "would start a line of their own there)")
    evidence, counter = _cited(view, draft.evidence, draft.counterevidence)
    record: dict[str, Any] = {
        "schema": "gitstore.learning/v1", "scope": ctx.scope, "version": 1, "previous": None,
        "state": "proposed", "category": draft.category, "memory": draft.memory,
        "audience": draft.audience, "audienceRationale": screen_text(draft.audience_rationale, "audience rationale"),
        "content": {"title": screen_text(draft.title, "title"), "text": screen_text(draft.text, "text")},
        "targets": list(dict.fromkeys(screen_text(t, "target") for t in draft.targets)), "replaces": list(dict.fromkeys(draft.replaces)),
        "evidence": evidence, "counterevidence": counter,
        "validFrom": draft.valid_from, "validUntil": draft.valid_until,
        "support": _origins(evidence), "dissent": _origins(counter),
        "confidence": draft.confidence, "rationale": screen_text(draft.rationale, "rationale"),
        "proposer": {"kind": draft.proposer[0], "id": draft.proposer[1]}, "at": now(),
    }
    unknown = [r for r in record["replaces"] if r not in view.learnings]
    if unknown:
        raise Refused(f"replaces names unknown learnings: {', '.join(unknown)}")
    screen_together(record)  # as a reviewer reads them: parts that pass alone may not together
    record["id"] = learning_id(content_digest(record))
    return seal(record)


def propose(ctx: Context, draft: Draft, by: str) -> dict[str, Any]:
    """Save a proposal (state proposed); refuses one already proposed."""
    view = _evidence_view(ctx, [*draft.evidence, *draft.counterevidence], draft.replaces,
                          whole=_automation(ctx).enabled)
    record = build_proposal(ctx, view, draft)
    if view.learnings_read is not None and record["id"] not in view.learnings_read:
        view.add(learning_items(ctx.store, [record["id"]]))
        view.learnings_read |= {record["id"]}
    if record["id"] in view.learnings:
        raise Refused(f"learning {record['id']} was already proposed")
    _write(ctx, [record], "propose", by, None, record["id"], None)
    if autosafe.eligible(view, _automation(ctx), record) is None:
        try:
            return auto_accept(ctx, record)[-1]
        except NotAuthorised:
            return record  # the store refuses the gate a step it would not count: a person decides
    return record


def revise(ctx: Context, learning_id: str, evidence: list[dict[str, Any]],
           counterevidence: list[dict[str, Any]], by: str, rationale: str | None = None) -> dict[str, Any]:
    """A new proposal version with new support or dissent: earlier reviews become stale."""
    view = _evidence_view(ctx, [*evidence, *counterevidence], [learning_id])
    record, current = build_revision(view, learning_id, evidence, counterevidence, rationale)
    _write(ctx, [record], "propose", by, None, learning_id, current, view.head(learning_id))
    return record


@dataclass(frozen=True)
class Revision:
    """New support or dissent for a proposal (what a revision may change, and nothing else)."""

    learning: str
    evidence: list[dict[str, Any]]
    counterevidence: list[dict[str, Any]]
    rationale: str | None = None
    confidence: str | None = None
    audience_rationale: str | None = None


def build_revision(view: View, learning_id: str, evidence: list[dict[str, Any]],
                   counterevidence: list[dict[str, Any]], rationale: str | None = None,
                   confidence: str | None = None, audience_rationale: str | None = None,
                   ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The sealed next version of a proposal with this evidence, and the version it follows."""
    current = _history(view, learning_id).current
    if current["state"] != "proposed":
        raise Refused(f"{learning_id} is {current['state']}: only proposals are revised")
    record = _next(current)
    record["evidence"], record["counterevidence"] = _cited(view, evidence, counterevidence)
    record["support"], record["dissent"] = _origins(record["evidence"]), _origins(record["counterevidence"])
    if rationale:
        record["rationale"] = screen_text(rationale, "rationale")
    if confidence:
        record["confidence"] = confidence
    if audience_rationale:
        record["audienceRationale"] = screen_text(audience_rationale, "audience rationale")
    if rationale or audience_rationale:
        screen_together(record, "the new rationale with the rest of the proposal")
    return seal(record), current


@dataclass
class Batch:
    """What a batch proposed: a record per draft and per revision (None when the revision
    changed nothing), and the ids that were new (written, unless it was a dry run)."""

    proposals: list[dict[str, Any]]
    revisions: list[dict[str, Any] | None]
    new: set[str]


def propose_batch(ctx: Context, drafts: Sequence[Draft], revisions: Sequence[Revision], by: str, *,
                  view: View | None = None, dry_run: bool = False) -> Batch:
    """Proposals and revisions of earlier proposals, each with its audit entry, in one append
    (two when some cite personal session evidence: the store keeps those local).

    A draft already proposed (the same id) and a revision that changes nothing are not written
    again, so proposing the same batch twice writes nothing the second time. Each version
    passes the lifecycle check every read applies. With ``dry_run`` everything is built and
    checked but nothing is written. ``view`` is a view of the store the caller has just loaded
    (a fresh one is loaded without it).
    """
    view = view or ctx.view()
    batch = Batch([], [], set())
    steps: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
    for draft in drafts:
        record = build_proposal(ctx, view, draft)
        batch.proposals.append(record)
        if record["id"] not in view.learnings and record["id"] not in batch.new:
            batch.new.add(record["id"])
            steps.append((record, None))
    for revision in revisions:
        record, current = build_revision(view, revision.learning, revision.evidence, revision.counterevidence,
                                         revision.rationale, revision.confidence, revision.audience_rationale)
        changed = record["reviewDigest"] != current["reviewDigest"]
        batch.revisions.append(record if changed else None)
        if changed:
            steps.append((record, current))
    for record, prior in steps:
        problem = check_step(prior, record)
        if problem:
            raise Refused(f"{record['id']}: version {record['version']} would break the lifecycle: {problem}")
        refuse_unhonoured(ctx, record)
    if steps and not dry_run:
        _append_batch(ctx, view, [record for record, _ in steps], by)
    return batch


def _append_batch(ctx: Context, view: View, records: list[dict[str, Any]], by: str) -> None:
    local = frozenset(i.record["id"] for i in view.items if i.kind == "episode" and i.stored.namespace == "local")
    for mine in ([r for r in records if not _cites(r, local)], [r for r in records if _cites(r, local)]):
        if mine:
            audits = [ctx.audit("propose", by, [r["id"]], [r]) for r in mine]
            ctx.store.append([*mine, *audits])
    settings = _automation(ctx)
    for record in records:
        if record["version"] == 1 and autosafe.eligible(view, settings, record) is None:
            auto_accept(ctx, record)


def _automation(ctx: Context) -> autosafe.Automation:
    """The automation config.json asks for, as init last took it: a change to it since (a
    person's edit, or a patch: ``git apply`` leaves git no trace) accepts nothing until
    ``gitstore init`` takes the file (``changed_since_init``; ``doctor`` names it)."""
    from gitstore.config import CONFIG_NAME, changed_since_init

    try:
        changed = changed_since_init(ctx.workspace.repo, (ctx.workspace.state / CONFIG_NAME).read_bytes())
    except OSError:
        changed = []
    if any(name == "automation" or name.startswith("automation.") for name in changed):
        return autosafe.Automation()
    return autosafe.settings(ctx.workspace.config)


def refuse_unhonoured(ctx: Context, record: dict[str, Any]) -> None:
    """Refuse a proposal, or its acceptance, whose replacement the store could not honour: the
    store keeps it on this machine (its audience, evidence or history is personal) and it
    replaces a shared learning, which every other clone keeps in force, so this clone does too
    (``gitstore.rules.active``). Accepting it would leave both in force while saying otherwise."""
    replaced = record.get("supersedes") or (record["replaces"] if record["state"] == "proposed" else [])
    if not replaced or not ctx.store.kept_local(record):
        return
    shared = [t for t in replaced if not ctx.store.is_local_learning(t)]
    if not shared:
        return
    local = [t for t in replaced if t not in shared]
    if record["audience"] == "personal":
        why = "its audience is personal"
    elif local:
        why = f"it replaces {', '.join(local)}, kept on this machine"
    elif record["previous"] is not None and ctx.store.is_local_learning(record["id"]):
        why = "its proposal is kept on this machine"
    else:
        why = "it cites a personal session"
    raise Refused(
        f"{record['id']} would be kept on this machine ({why}) and so cannot replace the shared "
        f"{', '.join(shared)}, which every other clone keeps in force; replace shared learnings with a shared "
        "one and personal ones with a personal one")


def _cites(record: dict[str, Any], episodes: frozenset[str]) -> bool:
    """Whether a learning cites evidence of these episodes."""
    return any(ref["episode"] in episodes for ref in [*record["evidence"], *record["counterevidence"]])


def accept(ctx: Context, learning_id: str, review_digest: str, by: str,
           edit: str | None = None, *, note: unfinished.Note | None = None) -> dict[str, Any]:
    """Accept the version whose reviewDigest the person was shown, optionally editing the text
    (``note``, see ``accept_note``, stands around the append)."""
    _check_digest(review_digest)
    view = _decisions_view(ctx, [learning_id])
    history = _history(view, learning_id)
    if history.current["replaces"]:  # whether another claim took them: the claims on them settle it
        view = _decisions_view(ctx, sorted(claim_reach(ctx.store, [learning_id, *history.current["replaces"]])))
        history = _history(view, learning_id)
    if history.current["state"] == "accepted" and history.current["decision"]["reviewDigest"] == review_digest:
        raise AlreadyDone(f"{learning_id} is already accepted at this reviewDigest (version "
                          f"{history.current['version']}, by {bounded(history.current['decision']['by'])})",
                          [history.current])  # a name any clone that can push chose
    current = _reviewable(history, review_digest, ("proposed", *sorted(AUTO)))
    _refuse_claimed(view, current)
    record = _next(current)
    record["state"] = "accepted"
    if edit is not None:
        record["content"] = {**current["content"], "text": screen_text(edit, "edited text")}
        screen_together(record, "the edited text with the rest of the learning",
                        named=title_for(record["content"], history.chain[0].record["content"]["text"]))
    record["decision"] = {"by": by, "reviewDigest": review_digest,
                          "edited": record["content"] != current["content"], "reason": None}
    if current["replaces"]:
        record["supersedes"] = list(current["replaces"])
    record = seal(record)
    _write(ctx, [record], "accept", by, None, learning_id, current, view.head(learning_id),
           record.get("supersedes", []), note=note)
    return record


def accept_note(learning_id: str, review_digest: str) -> unfinished.Note:
    """What ``gitstore accept`` stopped after its append leaves: saying whether agents get it."""
    return unfinished.Note(f"accept-{learning_id}", f"accepting {learning_id} was stopped midway: it may be "
                           "accepted without a word on whether agents get it",
                           f"gitstore accept {learning_id} --review-digest {review_digest}")


def settled_replacement(ctx: Context, learning_id: str) -> tuple[list[str], list[str], str | None]:
    """What the claim an accepted learning makes stands for, as the rules settle it now: the
    learnings it took out of force, those it names that stay as they were, and why (its
    ``conflicted`` reason, or None)."""
    view = _decisions_view(ctx, [learning_id])
    named = _history(view, learning_id).current.get("supersedes") or []
    view = _decisions_view(ctx, sorted(claim_reach(ctx.store, [learning_id, *named])))
    history = _history(view, learning_id)
    named = history.current.get("supersedes") or []
    claims = settle(view, view.histories())
    taken = [t for t in named if claims.replaced_by.get(t) == learning_id]
    return taken, [t for t in named if t not in taken], claims.conflicted.get(learning_id)


def reject(ctx: Context, learning_id: str, review_digest: str, by: str, reason: str | None) -> dict[str, Any]:
    """Reject the version whose reviewDigest the person was shown."""
    _check_digest(review_digest)
    reason = without_secrets(reason) if reason is not None else None  # shared records keep it for good
    view = _decisions_view(ctx, [learning_id])
    current = _reviewable(_history(view, learning_id), review_digest, ("proposed",))
    record = _next(current)
    record["state"] = "rejected"
    record["decision"] = {"by": by, "reviewDigest": review_digest, "edited": False, "reason": reason}
    record = seal(record)
    _write(ctx, [record], "reject", by, reason, learning_id, current, view.head(learning_id))
    return record


def retire(ctx: Context, learning_id: str, by: str, reason: str, *,
           note: unfinished.Note | None = None) -> dict[str, Any]:
    """Retire an accepted learning: recall stops using it (``note``, see ``retire_note``, stands
    around the append)."""
    if not reason:
        raise Refused("retiring needs a reason (--reason)")
    reason = without_secrets(reason)  # shared records keep it for good
    view = _decisions_view(ctx, [learning_id])
    current = _history(view, learning_id).current
    if current["state"] == "retired":
        raise AlreadyDone(f"{learning_id} is already retired (at {current['at']})", [current])
    if current["state"] not in ("accepted", *AUTO):
        raise Refused(f"{learning_id} is {current['state']}: only accepted learnings are retired")
    record = _next(current)
    record["state"] = "retired"
    record["decision"] = {"by": by, "reviewDigest": current["reviewDigest"], "edited": False, "reason": reason}
    record = seal(record)
    _write(ctx, [record], "retire", by, reason, learning_id, current, view.head(learning_id), note=note)
    return record


def retire_note(learning_id: str, reason: str) -> unfinished.Note:
    """What ``gitstore retire`` stopped after its append leaves: the published files and the
    promoted blocks it goes on to."""
    return unfinished.Note(f"retire-{learning_id}", f"retiring {learning_id} was stopped midway: it may be "
                           "retired while the published files still give it to agents",
                           f"gitstore retire {learning_id} --reason {shlex.quote(reason)}")


def merge(ctx: Context, ids: list[str], title: str, text: str, by: str, category: str | None = None,
          memory: str | None = None, audience: str | None = None) -> dict[str, Any]:
    """Propose one learning that replaces several (a merge is a proposal; a person decides).

    The proposal is the same whatever order ``ids`` come in: it replaces them in one order and
    cites their evidence in it; its category and memory are those the learnings share (where
    they differ, the caller names one, or the merge is refused), its audience the narrowest
    among theirs (personal, then user-tooling) unless the caller names one. Merging the same
    learnings again, in any order, is then refused as already proposed."""
    ids = sorted(set(ids))
    if len(ids) < 2:  # the command used wrongly, whatever the store holds
        raise UsageError("a merge names at least two learnings")
    view = _decisions_view(ctx, ids)
    currents = [_history(view, i).current for i in ids]
    _refuse_unnamed_differences(ids, currents, category=category, memory=memory)
    evidence = {(r["episode"], tuple(r["events"])): r for c in currents for r in c["evidence"]}
    counter = {(r["episode"], tuple(r["events"])): r for c in currents for r in c["counterevidence"]}
    narrowest = max(currents, key=lambda c: AUDIENCES.index(c["audience"]))
    draft = Draft(
        title=title, text=text, category=category or currents[0]["category"],
        evidence=list(evidence.values()), counterevidence=list(counter.values()),
        memory=memory or currents[0]["memory"],
        audience=audience or narrowest["audience"],
        # why it goes to that audience: the learning's it was taken from, or the merging person's word
        audience_rationale=(f"Named by {by} when merging {', '.join(ids)}." if audience else
                            narrowest.get("audienceRationale") or Draft.audience_rationale),
        targets=tuple(dict.fromkeys(t for c in currents for t in c["targets"])),
        replaces=tuple(ids), rationale=f"Merges {', '.join(ids)}.", proposer=("person", by),
    )
    return propose(ctx, draft, by)


def _refuse_unnamed_differences(ids: list[str], currents: list[dict[str, Any]], **given: str | None) -> None:
    """Refuse a merge of learnings that differ in a field (``category``, ``memory``) the
    caller did not name a value for: no order among the learnings says whose to keep."""
    words = {"category": CATEGORIES, "memory": MEMORY_KINDS}
    differ = {name: sorted({c[name] for c in currents}, key=words[name].index)
              for name, value in given.items() if value is None}
    named = [(name, values) for name, values in differ.items() if len(values) > 1]
    if named:
        which = " and ".join(f"{name} ({', '.join(values)})" for name, values in named)
        options = " and ".join(f"--{name}" for name, _ in named)
        raise Refused(f"{', '.join(ids[:-1])} and {ids[-1]} differ in {which}: say the merged learning's with {options}")


def auto_accept(ctx: Context, record: dict[str, Any]) -> list[dict[str, Any]]:
    """The auto-safe gate's two steps after a proposal (caller checked eligibility)."""
    steps = []
    current = record
    for state in ("auto-accepted", "auto-active"):
        nxt = _next(current)
        nxt["state"] = state
        nxt["decision"] = {"by": AUTO_SAFE, "reviewDigest": current["reviewDigest"], "edited": False,
                           "reason": "auto-safe: low-risk kind with verified-command evidence"}
        current = seal(nxt)
        steps.append(current)
    _write(ctx, steps, "auto-accept", AUTO_SAFE, None, record["id"], record)
    return steps


# -- helpers -----------------------------------------------------------------------------------

def _decisions_view(ctx: Context, ids: Sequence[str] | None = None) -> View:
    """What a decision on a learning reads: the learnings ``ids`` (None: every learning),
    with the audit entries that vouch for their decisions (a history is judged from them
    alone: ``View.of_learnings``, as a view of every learning judges it). Only what replaces
    other learnings needs every one: whether another claim took them is settled among all
    claims. The decision carries the version it follows and cites no evidence of its own, so
    the evidence is not read."""
    if ids is not None:
        return View.of_learnings(ctx.store, ids)
    return ctx.view(payloads=False, kinds=("learning",))


def _evidence_view(ctx: Context, refs: list[dict[str, Any]], learnings: Sequence[str] = (), *,
                   whole: bool = False) -> View:
    """What proposing reads: the learnings it names (``learnings``: those it replaces, or the
    one it revises; with ``whole``, every learning: what the auto-safe gate compares a
    proposal with) and the episodes the evidence names, with all their events and the payloads
    (the references are rebuilt from them; the gate reads the commands). Other evidence is not
    read, unless a reference names an event those episodes do not hold: it is refused then,
    and a view of every record says why (an event of another episode, or one not stored at
    all)."""
    view = _decisions_view(ctx) if whole else _decisions_view(ctx, list(learnings))
    refs = [ref for ref in refs if isinstance(ref, dict)]
    episodes = {ref["episode"] for ref in refs if isinstance(ref.get("episode"), str)}
    if episodes:
        view.add(ctx.store.items(("episode", "event"), streams=episodes, payloads=True))
    named = {event for ref in refs if isinstance(ref.get("events"), list) for event in ref["events"]
             if isinstance(event, str)}
    if any(event not in view.events for event in named):
        return ctx.view()
    return view


def _history(view: View, learning_id: str) -> History:
    return checked(view.learnings, learning_id, view.saw, view.copies)


_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


def _check_digest(review_digest: str) -> None:
    """A review digest that is not one is a typing slip, not a stale review: say so, and never
    answer it with the current digest (that would stand in for reviewing)."""
    if not _DIGEST.fullmatch(review_digest):
        raise UsageError(f"--review-digest {review_digest!r} is not a sha256: digest")


def _reviewable(history: History, review_digest: str, states: tuple[str, ...]) -> dict[str, Any]:
    current = history.current
    if current["state"] not in states:
        raise Refused(f"{history.id} is {current['state']}; this step needs it {' or '.join(states)}")
    if review_digest != current["reviewDigest"]:
        raise Refused(
            f"stale review: {history.id} is now at reviewDigest {current['reviewDigest']}, "
            f"not {review_digest}; run `gitstore show {history.id}` and review it again"
        )
    return current


def _refuse_claimed(view: View, current: dict[str, Any]) -> None:
    claims: Claims = settle(view, view.histories())
    taken = {t: claims.replaced_by[t] for t in current["replaces"] if t in claims.replaced_by}
    if taken:
        raise Refused("already replaced: " + ", ".join(f"{t} by {c}" for t, c in taken.items()))
    missing = [t for t in current["replaces"] if t not in view.learnings]
    if missing:
        raise Refused(f"replaces unknown learnings {', '.join(missing)}")


def _next(current: dict[str, Any]) -> dict[str, Any]:
    record = copy.deepcopy(current)
    for key in ("digest", "decision", "supersedes"):  # only accepted versions carry supersedes
        record.pop(key, None)
    record["version"] = current["version"] + 1
    record["previous"] = current["digest"]
    record["at"] = now()
    return record


def _write(ctx: Context, records: list[dict[str, Any]], action: str, by: str, reason: str | None,
           learning_id: str, prior: dict[str, Any] | None, head: str | None = None,
           extra: list[str] | tuple[str, ...] = (), note: unfinished.Note | None = None) -> None:
    """Write versions that follow ``prior`` (None: a new learning) with their audit entry, by
    compare-and-swap on the learning's stream, whose last record is ``head`` (by default
    ``prior``'s; a bare decision or a race's loser may stand after it). Each version first
    passes the same lifecycle check every read applies, so a write never stores a history that
    reads refuse; the store keeps it local when its evidence or history is. ``note`` stands
    around the append (``unfinished.recording``)."""
    before = prior
    for record in records:
        problem = check_step(before, record)
        if problem:
            raise Refused(f"{learning_id}: version {record['version']} would break the lifecycle: {problem}")
        refuse_unhonoured(ctx, record)
        before = record
    expected = head if head is not None else (prior["digest"] if prior is not None else None)
    decided = any("decision" in r for r in records)  # this module checked each one
    try:
        with unfinished.recording(ctx.workspace.state, note, records[-1]):
            ctx.write(records, action, by, [learning_id, *extra], reason, if_head=(learning_id, expected),
                      decided=decided)
    except ConflictError:
        raise Refused(f"{learning_id} changed while this step was being written; review it again") from None


def accept_and_check(ctx: Context, learning_id: str, review_digest: str, by: str, edit: str | None = None, *,
                     note: unfinished.Note | None = None) -> tuple[dict[str, Any], Standing, bool, str | None]:
    """``accept``, then whether the learning is now in force for instruction, and if not, why
    (no grant covers its evidence, its evidence was retracted or redacted, ...). With the
    command's ``note`` (``accept_note``), a run of the command stopped after its append is
    finished rather than refused: its record, and True (``unfinished.once``; the caller ends
    the note). Last, why delivery would withhold it from agents however it stands, or None
    (``gitstore.deliver.build.withheld_why``): it is read with the title it goes by, which
    for a text edited at accept is the headline of that text, and a headline cut from a clean
    text can be what the scanner quarantines."""
    from gitstore.deliver.build import withheld_why
    from gitstore.queries.learnings import standing

    if note is None:
        record, again = accept(ctx, learning_id, review_digest, by, edit), False
    else:
        record, again = unfinished.once(ctx.workspace.state, note,
                                        lambda: accept(ctx, learning_id, review_digest, by, edit, note=note))
    why = withheld_why(record, name_of(_history(_decisions_view(ctx, [learning_id]), learning_id)))
    return record, standing(ctx, learning_id, "instruction"), again, why
