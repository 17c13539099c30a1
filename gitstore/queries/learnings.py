"""Learnings as people look at them: the list with each one's standing, the proposals waiting,
one learning as a reviewer sees it (with the evidence text and whether it is in force, and why
not), and every version of one.

A history that breaks a rule is shown by identifiers and digests only, never its content. What
a learning says is screened again before it is shown (:func:`as_shown`): proposing screens it,
but a clone with push access may run a gitstore that does not, and a reviewer's screen is often
read by an agent.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gitstore.context import Context
from gitstore.errors import UsageError
from gitstore.records.headline import title_for
from gitstore.records.vocabulary import PURPOSES, unknown as unknown_word
from gitstore.queries._text import event_text, held_removal, redactable, why_no_text
from gitstore.queries._views import in_force_view, learning_view
from gitstore.rules.active import Status, evaluate
from gitstore.rules.consent import decide, others_grants, withdrawn
from gitstore.rules.evidence import refs_serve
from gitstore.rules.lifecycle import History, build, unknown
from gitstore.rules.view import View, claim_reach
from gitstore.store import HeldNote

DEFAULT_PURPOSE = "instruction"
REVIEWABLE = ("proposed", "auto-accepted", "auto-active")


@dataclass(frozen=True)
class Row:
    """One learning in a list: its state, standing for a purpose, and what it says."""

    status: Status
    history: History

    def to_json(self) -> dict[str, Any]:
        status = self.status
        row: dict[str, Any] = {"id": status.id, "state": status.state, "usable": status.usable,
                               "trust": status.trust, "reasons": list(status.reasons),
                               "replacedBy": status.replaced_by, "conflicted": status.conflicted,
                               "contested": status.contested}
        if self.history.valid:
            current = self.history.current
            title, withheld = screened("title", listed_title(self.history))  # a list prints the title alone
            row.update(title=title, category=current["category"], digest=current["digest"],
                       reviewDigest=current["reviewDigest"], withheld=[withheld.to_json()] if withheld else [])
        else:
            row["problem"] = self.history.problem
        return row


def listed_title(history: History) -> str:
    """The title a list shows for a learning (``gitstore.records.headline.title_for``)."""
    return title_for(history.current["content"], history.chain[0].record["content"]["text"])


def learnings(ctx: Context, purpose: str = DEFAULT_PURPOSE, *, active: bool = False) -> list[Row]:
    """Every learning (only those in force for ``purpose`` when ``active``), in id order."""
    _check_purpose(purpose)
    rows, _ = verdicts(ctx, purpose)
    return [row for row in rows if row.status.usable or not active]


def verdicts(ctx: Context, purpose: str = DEFAULT_PURPOSE) -> tuple[list[Row], dict[str, str]]:
    """Every learning's row, and the decisions, grants and withdrawals the rules left out
    (digest -> why): what ``gitstore sync`` compares before and after it admits a fetch."""
    view, all_histories = in_force_view(ctx.store)
    statuses = evaluate(view, purpose, all_histories=all_histories)
    return [Row(s, all_histories[i]) for i, s in statuses.items()], dict(view.ignored)


def proposals(ctx: Context) -> list[Row]:
    """Proposals waiting for a person, judged for review (a proposal is in force for nothing,
    so no evidence needs reading to say so)."""
    view, all_histories = learning_view(ctx.store, lambda history: False)
    statuses = evaluate(view, "review", all_histories=all_histories)
    return [Row(statuses[i], h) for i, h in sorted(all_histories.items()) if _waiting(h)]


def _waiting(history: History) -> bool:
    return history.valid and history.current["state"] == "proposed"


# -- what a learning says, as it is shown -------------------------------------------------------

@dataclass(frozen=True)
class Withheld:
    """A text of a learning the safety scanner quarantines (``title``, ``text``, ``rationale``,
    ``audienceRationale``, ``targets``, or its decision's ``reason``; a grant's ``note``, a
    withdrawal's or audit entry's ``reason``; a name beside them: an event's ``author``, a grant's
    ``by``, an episode's ``pin.branch``...), and the kinds it found. No gitstore stores such text
    (proposing screens it), so the clone that wrote it went around the scanner; its words may be
    written to take over whatever agent reads a reviewer's screen, so they are never shown."""

    part: str
    kinds: tuple[str, ...]
    together: bool = False  # the part passes alone; the scanner quarantines the parts read together
    event: str | None = None  # the evidence event whose text it is (part ``evidence``)
    episode: str | None = None  # the episode whose branch it is (part ``pin.branch``)

    @property
    def note(self) -> str:
        """What is shown in the text's place."""
        what = {"evidence": "event's text", "pin.branch": "branch name", "author": "person id",
                "by": "person id", "proposer.id": "person id", "decision.by": "person id",
                "redaction.by": "person id", "redaction.reason": "removal's reason",
                "subjects": "subject", "source.ref": "source id"}.get(self.part, self.part)
        return (f"(text withheld: {', '.join(self.kinds)}; the safety scanner quarantines this {what}"
                + (" read with the rest of the learning, as `gitstore show` prints them)" if self.together else ")"))

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"part": self.part, "kinds": list(self.kinds)}
        if self.together:
            data["together"] = True
        if self.event is not None:
            data["event"] = self.event
        if self.episode is not None:
            data["episode"] = self.episode
        return data


def screened(part: str, text: str, event: str | None = None,
             episode: str | None = None) -> tuple[str, Withheld | None]:
    """``text`` as it may be shown: secrets and home paths redacted as the scanner redacts them,
    or, when the scanner quarantines it, a note naming why in its place (``event``: the evidence
    event whose text it is; ``episode``: the episode whose branch it is)."""
    from gitstore.safety.scanner import default_scanner

    result = default_scanner().scan(text)
    if not result.quarantined:
        return result.text, None
    withheld = Withheld(part, _kinds(result), event=event, episode=episode)
    return withheld.note, withheld


def screened_name(part: str, name: str, event: str | None = None,
                  episode: str | None = None) -> tuple[str, Withheld | None]:
    """A short text any clone that can push chose, printed beside the others (an author's or
    decider's person id, an episode's branch, an audit entry's subject), as it may be shown:
    :func:`screened`, once however often it recurs (a listing of a big store names the same few
    people and branches thousands of times). A person id is up to 160 characters of anything
    but whitespace by schema, escape and bidirectional controls included."""
    shown, withheld = _screened_name(part, name)
    if withheld is not None and (event is not None or episode is not None):
        withheld = Withheld(withheld.part, withheld.kinds, event=event, episode=episode)
    return shown, withheld


@functools.lru_cache(maxsize=1024)
def _screened_name(part: str, name: str) -> tuple[str, Withheld | None]:
    return screened(part, name)


def screened_pin(pin: dict[str, Any], episode: str | None = None) -> tuple[dict[str, Any], Withheld | None]:
    """An episode's pin (or an evidence reference's copy of it) as it may be shown: its branch
    is a name any clone that can push chose, up to 255 characters of anything, so it is
    screened (:func:`screened_name`, part ``pin.branch``) as the other free text is."""
    branch = pin.get("branch")
    if not isinstance(branch, str):
        return pin, None
    shown, withheld = screened_name("pin.branch", branch, episode=episode)
    return ({**pin, "branch": shown} if shown != branch else pin), withheld


def pin_where(pin: dict[str, Any]) -> str:
    """Where evidence comes from, on one line: its pull request, else its (screened) branch."""
    return f"PR #{pin['pullRequest']}" if pin.get("pullRequest") else (pin.get("branch") or "-")


def removal_shown(event: dict[str, Any], held: Mapping[str, HeldNote] | None = None
                  ) -> tuple[str | None, tuple[Withheld, ...]]:
    """Why an event's text is gone (:func:`why_no_text`; ``held``: the removals stored without
    authority here, ``Store.held_notes``), the removal's ``by`` and ``reason`` screened (any
    clone that can push may write a removal), and what of them was withheld."""
    note = event.get("redaction")
    if isinstance(note, dict):
        shown, found = _screened_note(note, event)
        return why_no_text({**event, "redaction": shown}), found
    kept = (held or {}).get(event.get("payloadDigest", "")) if "payload" not in event else None
    if kept is None or event.get("type") == "retraction":
        return why_no_text(event, held), ()
    shown, found = dict(kept.note), ()  # a claim: its by and reason are never shown, its comment id screened
    if isinstance(kept.note.get("sourceId"), str):
        shown["sourceId"], withheld = screened_name("redaction.sourceId", kept.note["sourceId"], event.get("id"))
        found = () if withheld is None else (withheld,)
    return held_removal(shown, kept), found


def _screened_note(note: dict[str, Any], event: dict[str, Any]) -> tuple[dict[str, Any], tuple[Withheld, ...]]:
    """A removal's note with its ``by`` and ``reason`` as they may be shown, and what was withheld."""
    found: list[Withheld] = []
    shown = dict(note)
    for part, screen in (("by", screened_name), ("reason", screened)):
        text = note.get(part)
        if isinstance(text, str):
            shown[part], withheld = screen(f"redaction.{part}", text, event.get("id"))
            if withheld is not None:
                found.append(withheld)
    return shown, tuple(found)


def screened_record(record: dict[str, Any], *parts: str) -> dict[str, Any]:
    """``record`` (a grant, a withdrawal, an audit entry) with its free text ``parts`` (a note,
    a reason, a list of subjects) as they may be shown (:func:`screened`) and ``withheld``
    listing what the scanner quarantined of them: always there, empty when nothing was, so every
    listing has one shape. Its ``by``, a person id any clone that can push chose, is screened
    too (:func:`screened_name`)."""
    shown = dict(record)
    found: list[dict[str, Any]] = []
    for part in (*parts, "by"):
        text = record.get(part)
        if isinstance(text, list) and text and all(isinstance(t, str) for t in text):
            shown[part], withheld = _screened_list(part, text)
        elif isinstance(text, str):
            shown[part], withheld = (screened_name if part == "by" else screened)(part, text)
        else:
            continue
        if withheld is not None:
            found.append(withheld.to_json())
    return {**shown, "withheld": found}


_ID_OR_DIGEST = re.compile(r"(?:lrn|ep|ev)_[0-9a-f]{32}|sha256:[0-9a-f]{64}")


def _screened_list(part: str, texts: list[str]) -> tuple[list[str], Withheld | None]:
    """A list of short texts (an audit entry's subjects) as it may be shown: read as a listing
    prints it, one after another, since words each harmless alone may be an instruction
    together; withheld whole when the scanner quarantines them so, else each screened when a
    secret or a home path is redacted in them. A list of ids and digests alone, as honest
    writers write, is not scanned: lowercase hex after a fixed prefix holds nothing the scanner
    finds, and an audit trail of a big store lists thousands."""
    if all(map(_ID_OR_DIGEST.fullmatch, texts)):
        return texts, None
    joined = " ".join(texts)
    shown, withheld = screened(part, joined)
    if withheld is not None:
        return [shown], withheld
    if shown == joined:
        return texts, None
    each = [screened_name(part, t) for t in texts]
    return [t for t, _ in each], next((w for _, w in each if w is not None), None)


def _kinds(result: Any) -> tuple[str, ...]:
    from gitstore.safety.scanner import QUARANTINE

    return tuple(sorted({f.kind for f in result.findings if f.action == QUARANTINE}))


def as_shown(version: dict[str, Any]) -> tuple[dict[str, Any], tuple[Withheld, ...]]:
    """A learning version with every text a person or agent reads screened (:func:`screened`;
    each target on its own, as proposing screens them; the decision's reason too), and what was
    withheld, once a part.
    Then the parts are screened read together as ``gitstore show`` prints them
    (``read_together``): a hail in the title and the order in the text each pass alone, so when
    the scanner quarantines them together every part still shown is withheld (``together``).
    Digests and everything else stay as stored: the reviewDigest a reviewer quotes is still the
    stored version's."""
    from gitstore.safety.gate import read_together
    from gitstore.safety.scanner import default_scanner

    kinds: dict[str, set[str]] = {}

    def shown(part: str, text: str) -> str:
        found, why = screened(part, text)
        if why is not None:
            kinds.setdefault(part, set()).update(why.kinds)
        return found

    content = version["content"]
    copy = {**version, "content": {**content, "title": shown("title", content["title"]),
                                   "text": shown("text", content["text"])},
            "targets": [shown("targets", target) for target in version["targets"]],
            "rationale": shown("rationale", version["rationale"]),
            "audienceRationale": shown("audienceRationale", version["audienceRationale"])}
    decision = version.get("decision")
    if isinstance(decision, dict) and isinstance(decision.get("reason"), str):  # why it was rejected or retired
        copy["decision"] = {**decision, "reason": shown("reason", decision["reason"])}
    for key, name in (("proposer", "id"), ("decision", "by")):  # person ids, as the record says
        who = copy.get(key)
        if isinstance(who, dict) and isinstance(who.get(name), str):
            found, why = screened_name(f"{key}.{name}", who[name])
            if why is not None:
                kinds.setdefault(why.part, set()).update(why.kinds)
            copy[key] = {**who, name: found}
    for role in ("evidence", "counterevidence"):  # each cited episode's branch and author, copied into its reference
        if isinstance(version.get(role), list):
            copy[role] = [_ref_shown(ref, kinds) for ref in version[role]]
    withheld = [Withheld(part, tuple(sorted(found))) for part, found in kinds.items()]
    result = default_scanner().scan(read_together(copy))
    if result.quarantined:
        together = _kinds(result)
        content = copy["content"]
        for part in ("title", "text", "rationale", "audienceRationale", "targets"):
            if part in kinds or (part == "targets" and not copy["targets"]):
                continue
            why = Withheld(part, together, together=True)
            withheld.append(why)
            if part in ("title", "text"):
                content[part] = why.note
            else:
                copy[part] = [why.note] if part == "targets" else why.note
    return copy, tuple(withheld)


def _ref_shown(ref: Any, kinds: dict[str, set[str]]) -> Any:
    """An evidence reference with its pin's branch and its author screened, what was withheld
    noted in ``kinds``."""
    if not isinstance(ref, dict):
        return ref
    copy = ref
    if isinstance(ref.get("pin"), dict):
        pin, why = screened_pin(ref["pin"])
        if why is not None:
            kinds.setdefault(why.part, set()).update(why.kinds)
        copy = {**copy, "pin": pin} if pin is not ref["pin"] else copy
    if isinstance(ref.get("author"), str):
        author, why = screened_name("author", ref["author"])
        if why is not None:
            kinds.setdefault(why.part, set()).update(why.kinds)
        copy = {**copy, "author": author} if author != ref["author"] else copy
    return copy


def shown_json(version: dict[str, Any]) -> dict[str, Any]:
    """A learning version for a command's --json output: as :func:`as_shown` shows it, with
    ``withheld`` naming what was withheld (empty when nothing was)."""
    shown, withheld = as_shown(version)
    return {**shown, "withheld": [w.to_json() for w in withheld]}


# -- one learning ------------------------------------------------------------------------------

@dataclass(frozen=True)
class EventShown:
    """One cited event with its text as it may be shown (:func:`screened`: capture screens what
    it stores, but a clone with push access may write events no capture saw), or why the text is
    gone; ``withheld`` when the scanner quarantines it."""

    id: str
    type: str
    author: str
    at: str
    text: str | None
    removed: str | None
    withheld: Withheld | None = None
    others: tuple[Withheld, ...] = ()  # what else of it was withheld: its author, its removal's by or reason

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "author": self.author, "at": self.at,
                "text": self.text, "removed": self.removed,
                "withheld": self.withheld.to_json() if self.withheld is not None else None}


@dataclass(frozen=True)
class EvidenceShown:
    """One evidence reference as a reviewer needs it: who, when, where, what, and whether it
    serves the purpose."""

    role: str  # evidence or counterevidence
    ref: dict[str, Any]
    events: tuple[EventShown, ...]
    serves: bool
    why: str
    stored_by: tuple[str, ...] = ()  # who stored its events, as this clone can tell (``_stored_by``)

    @functools.cached_property
    def _pin(self) -> tuple[dict[str, Any], Withheld | None]:
        return screened_pin(self.ref["pin"], self.ref["episode"])

    @property
    def pin(self) -> dict[str, Any]:
        """The cited episode's pin, its branch screened (:func:`screened_pin`)."""
        return self._pin[0]

    @property
    def withheld(self) -> Withheld | None:
        """Why the branch is withheld, when the scanner quarantines it."""
        return self._pin[1]

    @property
    def where(self) -> str:
        return pin_where(self.pin)

    @property
    def author(self) -> str:
        """Who wrote the cited events, as the reference says, screened (:func:`screened_name`)."""
        return screened_name("author", self.ref["author"])[0]

    @property
    def paste(self) -> str:
        """The form ``gitstore propose --evidence`` takes."""
        return f"{self.ref['episode']}:{','.join(self.ref['events'])}"

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, **self.ref, "author": self.author, "pin": self.pin, "where": self.where,
                "paste": self.paste, "serves": self.serves, "why": self.why, "storedBy": list(self.stored_by),
                "texts": [e.to_json() for e in self.events]}


@dataclass(frozen=True)
class Standing:
    """Whether a learning is in force for a purpose; if not, why and what a person can do."""

    purpose: str
    in_force: bool
    why: tuple[str, ...] = ()
    todo: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"purpose": self.purpose, "inForce": self.in_force, "why": list(self.why), "todo": list(self.todo)}


@dataclass(frozen=True)
class Lookalike:
    """A word of what a learning says that the safety scanner warns of (``mixed-script``: Latin
    letters mixed with look-alikes, ``sayНello``), and the letters in it to doubt, by code point
    and name. It is no reason to refuse the learning; a person deciding must see it."""

    word: str
    letters: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"kind": "mixed-script", "word": self.word, "letters": list(self.letters)}


def lookalikes(version: dict[str, Any]) -> list[Lookalike]:
    """The look-alike words of what a learning version says: the title, the text and the
    targets, which agents are given and promotion cites."""
    from gitstore.safety.hidden import lookalike_letters, mixed_script_words

    content = version["content"]
    words = mixed_script_words(content["title"], content["text"], *version["targets"])
    return [Lookalike(word, tuple(lookalike_letters(word))) for word in words]


def warnings_of(version: dict[str, Any]) -> list[str]:
    """What a person deciding on a learning version is warned of, one line each: the safety
    scanner's warnings on what it says, with the words concerned spelled out (none when there is
    nothing to warn of)."""
    from gitstore.safety.hidden import mixed_script_warning

    content = version["content"]
    found = mixed_script_warning(content["title"], content["text"], *version["targets"])
    return [found] if found else []


@dataclass(frozen=True)
class Shown:
    """A learning as a reviewer sees it."""

    row: Row
    standing: Standing
    evidence: tuple[EvidenceShown, ...] = ()
    replaced: tuple[tuple[str, str], ...] = ()  # (id, title) of each learning it would replace, as stored
    unhonoured: str | None = None  # why accepting it is refused: kept on this machine, it names shared ones

    @property
    def version(self) -> dict[str, Any] | None:
        """The current version as it may be shown (:func:`as_shown`)."""
        return self.screened[0] if self.screened is not None else None

    @property
    def withheld(self) -> tuple[Withheld, ...]:
        """The texts of the current version the safety scanner withheld, then those of the
        evidence it cites (each event once)."""
        found = list(self.screened[1]) if self.screened is not None else []
        events = {e.id: (e.withheld, *e.others) for item in self.evidence for e in item.events}
        return (*found, *(w for ws in events.values() for w in ws if w is not None))

    @functools.cached_property
    def screened(self) -> tuple[dict[str, Any], tuple[Withheld, ...]] | None:
        """The current version screened once, however often it is printed (None: no valid history)."""
        return as_shown(self.row.history.current) if self.row.history.valid else None

    @property
    def edited(self) -> bool:
        """Whether it goes by a title other than the proposed one (its text was edited at accept)."""
        history = self.row.history
        return history.valid and listed_title(history) != history.current["content"]["title"]

    @property
    def proposed_text(self) -> str | None:
        """What the version a person accepted with an edit said (``decision.edited``, which the
        rules check against the two versions), screened as the rest is shown; None when the
        current version is no edit. The evidence, the rationale and the gates were read for
        that text, not for the one the person wrote."""
        history = self.row.history
        if not history.valid or history.intact < 2 or not (history.current.get("decision") or {}).get("edited"):
            return None
        prior = history.chain[history.intact - 2].record
        return str(as_shown(prior)[0]["content"]["text"])

    @property
    def name(self) -> str | None:
        """The title it goes by (``listed_title``) as it may be shown: the proposed title as
        shown, or, once its text was edited at accept, the headline of that text screened (what
        the scanner quarantines in a headline cut from a clean text withheld, naming why; the
        text's own note when the text itself is withheld)."""
        version = self.version
        if version is None:
            return None
        if not self.edited:
            return str(version["content"]["title"])
        text = next((w for w in self.screened[1] if w.part == "text"), None) if self.screened else None
        return text.note if text is not None else screened("title", listed_title(self.row.history))[0]

    @property
    def accept_hint(self) -> str | None:
        """The command that accepts exactly this version, when it awaits a person."""
        version = self.version
        if version is None or version["state"] not in REVIEWABLE or self.unhonoured is not None:
            return None
        return f"gitstore accept {version['id']} --review-digest {version['reviewDigest']}"

    def to_json(self) -> dict[str, Any]:
        data = self.row.to_json()
        if self.version is not None:
            data["version"] = self.version
            data["name"] = self.name
            data["title"] = self.version["content"]["title"]  # screened with the rest, as show prints it
            data["proposedText"] = self.proposed_text
        data["standing"] = self.standing.to_json()
        data["acceptRefused"] = self.unhonoured
        data["evidence"] = [e.to_json() for e in self.evidence]
        data["chain"] = [{"version": i.record["version"], "digest": i.digest} for i in self.row.history.chain]
        data["warnings"] = [w.to_json() for w in lookalikes(self.version)] if self.version is not None else []
        data["withheld"] = [w.to_json() for w in self.withheld]
        return data


def show(ctx: Context, learning_id: str, purpose: str = DEFAULT_PURPOSE) -> Shown:
    """One learning as a reviewer sees it, with its evidence and its standing for ``purpose``."""
    _check_purpose(purpose)
    view, all_histories = learning_view(ctx.store, lambda h: h.id == learning_id,
                                        learnings=claim_reach(ctx.store, [learning_id]))
    history = _known(all_histories, learning_id)
    status = evaluate(view, purpose, all_histories=all_histories)[learning_id]
    held = _held(ctx, view, history)
    evidence = tuple(_evidence(view, history, purpose, held, _stored_by(ctx, view, history))) if history.valid else ()
    replaced = tuple((rid, _title_of(view, rid)) for rid in (history.current.get("replaces", ()) if history.valid else ()))
    return Shown(Row(status, history), explain(view, status, purpose, held, history), evidence, replaced,
                 _unhonoured(view, history))


def _unhonoured(view: View, history: History) -> str | None:
    """Why accepting a proposal is refused (``gitstore.ops.learning.refuse_unhonoured``): it is
    kept on this machine and names shared learnings in ``replaces`` (one stored before that
    was refused), or None."""
    if not history.valid or history.current["state"] not in REVIEWABLE or not history.current["replaces"]:
        return None
    if not any(i.stored.namespace == "local" for i in view.learnings.get(history.id, ())):
        return None
    shared = [r for r in history.current["replaces"]
              if not any(i.stored.namespace == "local" for i in view.learnings.get(r, ()))]
    if not shared:
        return None
    return (f"it is kept on this machine, so it cannot replace the shared {', '.join(shared)}, which every other "
            "clone keeps in force; reject it, and replace shared learnings with a shared one")


Held = Mapping[str, HeldNote]
"""Payload digest -> a removal stored without authority here and why (``Store.held_notes``)."""


def _held(ctx: Context, view: View, history: History) -> Held:
    """The removals without authority here that may have taken the text of evidence the
    learning cites (read only when some of it has no text and no removal that counts)."""
    if not history.valid:
        return {}
    cited = [view.events.get(e) for role in ("evidence", "counterevidence")
             for ref in history.current[role] for e in ref["events"]]
    gone = any(e is not None and "payload" not in e and "redaction" not in e for e in cited)
    return redactable(ctx, ctx.store.held_notes()) if gone else {}


def _title_of(view: View, learning_id: str) -> str:
    """The last stored title of a learning, for a reviewer to see what a proposal replaces."""
    versions = view.learnings.get(learning_id)
    return screened("title", versions[-1].record["content"]["title"])[0] if versions else "(not in this scope)"


def standing(ctx: Context, learning_id: str, purpose: str = DEFAULT_PURPOSE) -> Standing:
    """Whether one learning is in force for ``purpose`` now, and if not, why."""
    _check_purpose(purpose)
    view, all_histories = learning_view(ctx.store, lambda h: h.id == learning_id,
                                        learnings=claim_reach(ctx.store, [learning_id]))
    history = _known(all_histories, learning_id)
    return explain(view, evaluate(view, purpose, all_histories=all_histories)[learning_id], purpose,
                   _held(ctx, view, history), history)


def barred_beyond_review(ctx: Context, learning_id: str, purpose: str = DEFAULT_PURPOSE) -> Standing | None:
    """What would keep a learning that awaits a person out of force for ``purpose`` even once
    accepted (its evidence deleted at its source, no grant...), or None when only a person's
    decision is missing: what `gitstore propose` warns of at once."""
    found = standing(ctx, learning_id, purpose)
    waits = {sentence for sentence, _ in _STATES.values()}
    why = tuple(w for w in found.why if w not in waits)
    if found.in_force or not why:
        return None
    return Standing(purpose, False, why, found.todo)


def _check_purpose(purpose: str) -> None:
    """A purpose nothing can serve is a slip: every learning would read as not in force for it."""
    if (wrong := unknown_word("purpose", purpose, PURPOSES)) is not None:
        raise UsageError(wrong)


def _known(all_histories: dict[str, History], learning_id: str) -> History:
    if learning_id not in all_histories:
        raise unknown(learning_id)
    return all_histories[learning_id]


def _evidence(view: View, history: History, purpose: str, held: Held | None = None,
              stored_by: Mapping[str, str] | None = None) -> list[EvidenceShown]:
    current = history.current
    shown = []
    for role in ("evidence", "counterevidence"):
        for ref in current[role]:
            verdicts = [decide(view, e, purpose) for e in ref["events"]]
            failed = next((v for v in verdicts if not v.ok), None)
            events = tuple(_event(view, e, held) for e in ref["events"])
            reason = f"serves {purpose}" if failed is None else failed.reason
            if failed is not None and failed.cause == "no-text" and _taken(view, failed.event, held):
                reason = (f"the text of event {failed.event} was removed by a removal that carries no "
                          "authority here (named below)")
            who = dict.fromkeys(stored_by[e] for e in ref["events"] if stored_by and e in stored_by)
            shown.append(EvidenceShown(role, ref, events, failed is None, reason, tuple(who)))
    return shown


def _stored_by(ctx: Context, view: View, history: History) -> dict[str, str]:
    """Who stored each cited event, as this clone can tell: this clone, or another clone's
    writer (and who signed its append, when someone the policy names did). The author, the
    pull request and the thread an event names are its writer's word: anyone who can push can
    store three people on three pull requests in one append, and a reviewer weighing
    independent evidence sees which writer each piece came from."""
    cited = {e for role in ("evidence", "counterevidence") for ref in history.current[role] for e in ref["events"]}
    found: dict[str, str] = {}
    for item in view.items:
        if item.kind == "event" and item.record["id"] in cited and view.events.get(item.record["id"]) is item.record:
            attestation = ctx.store.attestation(item.stored.append)
            who = "this clone" if attestation.own else f"writer {item.stored.writer}"
            if attestation.signers:
                who += f", signed by {', '.join(person for person, _ in attestation.signers)}"
            found[item.record["id"]] = who
    return found


def _taken(view: View, event_id: str | None, held: Held | None) -> bool:
    """Whether a removal without authority here took the event's text (``held``)."""
    event = view.events.get(event_id or "")
    return event is not None and event.get("payloadDigest") in (held or {})


def _event(view: View, event_id: str, held: Held | None = None) -> EventShown:
    event = view.events.get(event_id)
    if event is None:
        return EventShown(event_id, "?", "?", "?", None, "not stored")
    text, withheld = event_text(event), None
    if text is not None:
        text, withheld = screened("evidence", text, event_id)
    author, by = screened_name("author", event["author"], event_id)
    removed, others = removal_shown(event, held)
    return EventShown(event_id, event["type"], author, event["at"], text, removed, withheld,
                      tuple(w for w in (by, *others) if w is not None))


# -- why a learning is not in force ------------------------------------------------------------

_STATES = {
    "proposed": ("it is a proposal: no person has accepted it",
                 "a person reads `gitstore show {id}`, then accepts or rejects it, quoting its reviewDigest"),
    "rejected": ("a person rejected it", "propose it again if the evidence has changed"),
    "retired": ("a person retired it", "propose it again if it should come back"),
    "auto-accepted": ("the auto-safe gate accepted it but has not activated it yet", "accept it yourself"),
}


def explain(view: View, status: Status, purpose: str, held: Held | None = None,
            history: History | None = None) -> Standing:
    """The standing of a learning in plain words, with what a person can do about it (``held``:
    the removals without authority here that may have taken its evidence's text). Of a version
    that awaits a person, given its ``history``, its evidence is judged too: a reviewer sees
    before accepting it that agents would still not get it (a comment it cites deleted at its
    source, no grant), not only once it is accepted."""
    if status.usable:
        return Standing(purpose, True, (f"in force for {purpose}",))
    why: list[str] = []
    todo: list[str] = []
    state = _STATES.get(status.state)
    if status.state == "invalid" or any(r.startswith("history breaks a rule") for r in status.reasons):
        why.append(next(r for r in status.reasons if r.startswith("history")) + "; it is never used")
        todo.append(f"`gitstore history {status.id}` shows its versions; `gitstore verify` checks the store")
    elif status.contested is not None:
        todo.append(f"a person who has seen both reads `gitstore show {status.id}` and decides again, quoting "
                    "its reviewDigest (or retires the replacement that should not stand)")
    elif state is not None:
        why.append(state[0])
        todo.append(state[1].format(id=status.id))
    if status.replaced_by:
        why.append(f"{status.replaced_by} replaced it")
    for reason in status.reasons:
        if reason.startswith(("conflicted", "contested", "valid only from", "expired at")):
            why.append(reason)
    verdict = status.evidence
    waiting = verdict is None and status.state in REVIEWABLE and status.contested is None
    if waiting and history is not None and history.valid:
        current = history.current
        verdict = refs_serve(view, current["evidence"] + current["counterevidence"], purpose)
    if verdict is not None and not verdict.ok:
        sentence, action = _evidence_problem(view, verdict, purpose, held or {})
        why.append(sentence)
        if waiting and action == _AGAIN:
            todo[-1:] = ["accepting it would not put it in force: reject it, or propose it again citing evidence "
                         "that still counts"]
        else:
            todo.append(action)
    return Standing(purpose, False, tuple(why) or status.reasons, tuple(dict.fromkeys(todo)))


_AGAIN = "retire it, or propose it again citing evidence that still counts"


def _evidence_problem(view: View, verdict: Any, purpose: str, held: Held) -> tuple[str, str]:
    event = view.events.get(verdict.event, {})
    again = _AGAIN
    if verdict.cause == "redacted":
        note = removal_shown(event)[0] or "text removed"
        return f"the text of the evidence it cites ({verdict.event}) was removed ({note})", again
    if verdict.cause == "no-text" and _taken(view, verdict.event, held):
        note = removal_shown(event, held)[0] or "text removed"
        return f"the text of the evidence it cites ({verdict.event}) was removed ({note})", again
    if verdict.cause == "no-text":
        return (f"the text of the evidence it cites ({verdict.event}) is not in this clone, and no removal took it",
                "`gitstore sync` brings it once its writer's payload snapshot arrives; `gitstore verify` names one "
                "held back")
    if verdict.cause == "retracted":
        return f"the comment it cites ({verdict.event}) was deleted at its source", again
    if verdict.cause == "no-grant" and event:
        source = view.episodes[event["episode"]]["source"]["kind"]
        at = event["at"]
        sentence = f"no grant in force lets {source} evidence written at {at} serve {purpose}"
        gone = [d for d, g in view.grants.items() if purpose in g["purposes"] and source in g["sources"]
                and g["from"] <= at and (g["until"] is None or at <= g["until"]) and purpose in withdrawn(view).get(d, set())]
        if gone:
            sentence += f" (grant {gone[0]} did, until it was withdrawn for {purpose})"
        if event["episode"] in view.local_episodes:
            others = others_grants(view, purpose, source, at)
            if others:
                sentence += (f" (grant {others[0]} is another clone's: it never serves this machine's "
                             "personal sessions)")
            return sentence, (f"this machine's owner can grant it here: `gitstore grant --purpose {purpose} "
                              f"--source {source} --from {at[:10]}`")
        return sentence, (f"a person who may decide can grant it: `gitstore grant --purpose {purpose} "
                          f"--source {source} --from {at[:10]}`")
    return f"its evidence does not serve {purpose}: {verdict.reason}", "`gitstore verify` checks the store"


# -- versions ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Versions:
    """Every version of one learning: the chain, where it breaks, and versions that lost a race."""

    history: History
    rows: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.history.id, "problem": self.history.problem, "versions": self.rows,
                "ignored": [{"digest": i.digest, "version": i.record["version"]} for i in self.history.ignored]}


def history(ctx: Context, learning_id: str) -> Versions:
    """Every version of a learning: identifiers, states and digests (never content)."""
    items = list(ctx.store.items(["learning", "audit"], streams={learning_id, "audit"}))
    if not any(i.kind == "learning" for i in items):
        raise unknown(learning_id)
    view = View.of(ctx.scope, items, ctx.store)  # a decision without authority is not a version
    chain = build(learning_id, view.learnings.get(learning_id, []), view.saw, view.copies)
    rows = [_version_row(i.record, i.digest, n < chain.intact) for n, i in enumerate(chain.chain)]
    return Versions(chain, rows)


def _version_row(record: dict[str, Any], digest: str, intact: bool) -> dict[str, Any]:
    """One version by identifiers and digests; its decider's person id screened
    (:func:`screened_name`, part ``decision.by``), ``withheld`` naming it when it was."""
    by = record.get("decision", {}).get("by")
    withheld = None
    if isinstance(by, str):
        by, withheld = screened_name("decision.by", by)
    return {"version": record["version"], "state": record["state"], "digest": digest, "at": record["at"],
            "by": by, "reviewDigest": record["reviewDigest"], "intact": intact,
            "withheld": [withheld.to_json()] if withheld is not None else []}


__all__ = ["EvidenceShown", "barred_beyond_review", "Row", "Shown", "Standing", "Versions", "Withheld", "as_shown", "explain", "history",
           "learnings", "pin_where", "proposals", "removal_shown", "screened", "screened_name", "screened_pin", "show",
           "shown_json", "standing"]
