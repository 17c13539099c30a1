"""Re-checking what a consolidator returns before anything of it is stored.

A consolidator is trusted code, not trusted output. Its outcome is turned into plain JSON
values (a value of any other type is malformed), checked against ``OUTCOME_SCHEMA`` (shape,
vocabularies, bounds), and every event it cites must be evidence of the frozen view in the
episode it names; every learning it revises or replaces must be in the view. Any of these
failing refuses the whole outcome with one clear error, and the dream stores nothing; except
that one candidate, verdict or finding off the schema is left out alone, and said: a
consolidator words its entries from evidence anyone who can push can shape, and one entry
past a bound must never keep every other from being stored. A candidate left out is reported
as rejected (by its place in the outcome when it has no theme of its own); a verdict or a
finding left out gets a line in the report.

A revision keeps the words of the proposal it revises, so it must stand on them: a revision of
a learning whose evidence no longer serves (its words are hidden from the view), or whose words
are not a sentence of the evidence the revision cites, is dropped and the theme reported as
known; otherwise that evidence, and its people, would stand behind words none of it says.

Its texts then go through the safety scanner: a candidate with a quarantined text (hidden
characters, an injected instruction) is dropped and reported as rejected; reasons and findings
shown in the report are withheld the same way. Secrets are redacted when the store screens the
proposal it builds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jsonschema_rs

from gitstore.dream import terms
from gitstore.dream.audience import AUDIENCES
from gitstore.dream.consolidators import (FINDINGS, MAX_AUDIENCE_RATIONALE, MAX_DETAIL, MAX_RATIONALE, MAX_REASON,
                                          MAX_SUGGESTION, MAX_TEXT, MAX_TITLE, OUTCOMES, Candidate, Finding, Outcome,
                                          Verdict)
from gitstore.dream.labelers import CATEGORIES, THEME_PATTERN
from gitstore.dream.view import FrozenView, Ref
from gitstore.errors import Refused
from gitstore.records.vocabulary import CONFIDENCES, MEMORY_KINDS
from gitstore.safety.scanner import default_scanner

MAX_CANDIDATES = 100
WITHHELD = "(withheld by the safety scanner)"
_LEARNING_ID = {"type": "string", "pattern": r"^lrn_[0-9a-f]{32}$"}
_REFS = {
    "type": "array", "maxItems": 64,
    "items": {"type": "object", "required": ["episode", "events"], "additionalProperties": False,
              "properties": {"episode": {"type": "string", "pattern": r"^ep_[0-9a-f]{32}$"},
                             "events": {"type": "array", "minItems": 1, "maxItems": 64, "uniqueItems": True,
                                        "items": {"type": "string", "pattern": r"^ev_[0-9a-f]{32}$"}}}},
}
_SIGNALS = {"type": "object", "maxProperties": 16, "additionalProperties": {"type": "integer"}}
_TEXT = {"type": "string", "minLength": 1}
_THEME = {"type": "string", "pattern": THEME_PATTERN}
_ONE_LINE = "^[^\\n\\r\\v\\f\\x1c-\\x1e\\x85\\u2028\\u2029]*$"  # a title: proposing refuses a line break

OUTCOME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["candidates", "verdicts", "findings"],
    "additionalProperties": False,
    "properties": {
        "candidates": {"type": "array", "maxItems": MAX_CANDIDATES, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["theme", "title", "text", "category", "audience", "audience_rationale", "evidence",
                         "rationale", "memory", "counterevidence", "targets", "replaces", "revises",
                         "confidence", "signals"],
            "properties": {
                "theme": _THEME, "title": {**_TEXT, "maxLength": MAX_TITLE, "pattern": _ONE_LINE},
                "text": {**_TEXT, "maxLength": MAX_TEXT},
                "category": {"enum": list(CATEGORIES)}, "audience": {"enum": list(AUDIENCES)},
                "audience_rationale": {**_TEXT, "maxLength": MAX_AUDIENCE_RATIONALE},
                "evidence": {**_REFS, "minItems": 1},
                "rationale": {**_TEXT, "maxLength": MAX_RATIONALE}, "memory": {"enum": list(MEMORY_KINDS)},
                "counterevidence": _REFS,
                "targets": {"type": "array", "maxItems": 32, "uniqueItems": True,
                            "items": {"type": "string", "minLength": 1, "maxLength": 400,
                                      "pattern": r"^(?!/)(?!.*(^|/)\.\.?(/|$))[^\u0000-\u001f\\]+$"}},
                "replaces": {"type": "array", "maxItems": 32, "uniqueItems": True, "items": _LEARNING_ID},
                "revises": {"anyOf": [_LEARNING_ID, {"type": "null"}]},
                "confidence": {"enum": list(CONFIDENCES)}, "signals": _SIGNALS,
            }}},
        "verdicts": {"type": "array", "maxItems": 200000, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["theme", "outcome", "reasons", "signals", "evidence", "counterevidence", "audience", "learning"],
            "properties": {
                "theme": _THEME, "outcome": {"enum": list(OUTCOMES)},
                "reasons": {"type": "array", "minItems": 1, "maxItems": 8, "items": {**_TEXT, "maxLength": MAX_REASON}},
                "signals": _SIGNALS, "evidence": _REFS, "counterevidence": _REFS,
                "audience": {"anyOf": [{"enum": list(AUDIENCES)}, {"type": "null"}]},
                "learning": {"anyOf": [_LEARNING_ID, {"type": "null"}]},
            }}},
        "findings": {"type": "array", "maxItems": 10000, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["kind", "learnings", "detail", "suggestion", "theme"],
            "properties": {
                "kind": {"enum": list(FINDINGS)},
                "learnings": {"type": "array", "minItems": 1, "maxItems": 8, "items": _LEARNING_ID},
                "detail": {**_TEXT, "maxLength": MAX_DETAIL}, "suggestion": {**_TEXT, "maxLength": MAX_SUGGESTION},
                "theme": {"anyOf": [_THEME, {"type": "null"}]},
            }}},
    },
}


class Malformed(Exception):
    """A value that is not plain JSON data."""


@lru_cache(maxsize=1)
def _validator() -> Any:
    return jsonschema_rs.validator_for(OUTCOME_SCHEMA)


@dataclass(frozen=True)
class Checked:
    """A consolidator's outcome once re-checked: what may be stored and shown, a verdict for
    each candidate dropped, and a line for each verdict or finding left out."""

    outcome: Outcome
    dropped: list[Verdict]
    notes: list[str]


def checked(name: str, raw: Any, view: FrozenView) -> Checked:
    """The outcome of consolidator ``name`` once re-checked, without the entries off the
    schema, the revisions its evidence does not say and the candidates the safety scanner
    withholds. Refuses (and nothing is stored) when anything else is wrong."""
    try:
        plain = _plain(raw)
    except Malformed as exc:
        raise Refused(f"consolidator {name!r} returned malformed output ({exc}); nothing was stored") from None
    plain, malformed, notes = _well_formed(name, plain)
    outcome = _outcome(plain)
    _inside(name, outcome, view)
    outcome, unsaid = _said(outcome, view)
    outcome, kept_here = _honoured(outcome, view)
    outcome, screened = _screened(outcome)
    return Checked(outcome, [*malformed, *unsaid, *kept_here, *screened], notes)


def _honoured(outcome: Outcome, view: FrozenView) -> tuple[Outcome, list[Verdict]]:
    """The outcome without the candidates whose replacement the store could not honour: one
    kept on this machine (personal: its audience, evidence it cites, or a learning it replaces
    or revises) that replaces a team learning, which every other clone keeps in force
    (``gitstore.ops.learning.refuse_unhonoured`` refuses to store it). Dropped with a reason,
    never refusing the whole dream."""
    kept: list[Candidate] = []
    dropped: list[Verdict] = []
    for candidate in outcome.candidates:
        replaced = [view.learnings[r] for r in candidate.replaces if r in view.learnings]
        team = [lv.id for lv in replaced if not lv.local]
        revised = [lv for lv in (view.learnings.get(candidate.revises or ""),) if lv is not None]
        if team and view.kept_here(candidate.audience, (*candidate.evidence, *candidate.counterevidence),
                                   (*replaced, *revised)):
            dropped.append(Verdict(candidate.theme, "rejected", (
                f"not proposed: it would be kept on this machine (personal) and so cannot replace the team "
                f"learning {', '.join(team)}, which every other clone keeps in force; retire the one not wanted",),
                dict(candidate.signals), candidate.evidence, (), candidate.audience))
        else:
            kept.append(candidate)
    return dataclasses.replace(outcome, candidates=tuple(kept)), dropped


_ENTRIES = {"candidates": "candidate", "verdicts": "verdict", "findings": "finding"}


def _well_formed(name: str, plain: Any) -> tuple[dict[str, Any], list[Verdict], list[str]]:
    """The outcome without its entries off the schema, a rejected verdict for each candidate
    left out and a line for each other entry; refuses when the outcome as a whole is off it
    (not an object, a list missing or too long)."""
    off: dict[tuple[str, int], Any] = {}
    for error in _validator().iter_errors(plain):
        path = list(error.instance_path)
        if len(path) < 2 or path[0] not in _ENTRIES:
            where = "/".join(str(p) for p in path) or "the outcome"
            raise Refused(f"consolidator {name!r} returned malformed output at {where}: {error.message[:200]}; "
                          "nothing was stored")
        off.setdefault((path[0], path[1]), error)
    verdicts: list[Verdict] = []
    notes: list[str] = []
    for (entries, index), error in sorted(off.items()):
        entry = plain[entries][index]
        theme = entry.get("theme") if isinstance(entry, dict) else None
        theme = theme if isinstance(theme, str) and _validator_of_theme().is_valid(theme) else None
        problem = _problem(error)
        if entries == "candidates" and theme is not None:
            verdicts.append(Verdict(theme, "rejected", (f"malformed: {problem}",)))
        else:
            place = f"{entries}/{index}" + (f", theme {theme}" if theme else "")
            notes.append(f"consolidator {name!r} returned a malformed {_ENTRIES[entries]} ({place}): {problem}; "
                         "it was left out")
    kept = {key: [e for n, e in enumerate(plain[key]) if (key, n) not in off] for key in _ENTRIES}
    return kept, verdicts, notes


def _problem(error: Any) -> str:
    """What is wrong with an entry, in the schema's words and never the value's (the value may
    be evidence text no scanner has read): ``its text is off the outcome's schema (maxLength 4000)``."""
    inside = "/".join(str(p) for p in list(error.instance_path)[2:])
    rule: Any = OUTCOME_SCHEMA
    for step in error.schema_path:
        rule = rule[step]
    keyword = str(error.schema_path[-1]) if error.schema_path else "schema"
    bound = f" {rule}" if isinstance(rule, int) and not isinstance(rule, bool) else ""
    return f"{'its ' + inside if inside else 'it'} is off the outcome's schema ({keyword}{bound})"


@lru_cache(maxsize=1)
def _validator_of_theme() -> Any:
    return jsonschema_rs.validator_for(_THEME)


def _plain(value: Any, depth: int = 0) -> Any:
    """JSON data from dataclasses, mappings, tuples and lists; anything else is malformed."""
    if depth > 12:
        raise Malformed("nested too deeply")
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise Malformed("a mapping with a key that is not text")
        return {k: _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value]
    raise Malformed(f"a value of type {type(value).__name__}")


def _refs(items: list[dict[str, Any]]) -> tuple[Ref, ...]:
    return tuple(Ref(r["episode"], tuple(r["events"])) for r in items)


def _outcome(plain: dict[str, Any]) -> Outcome:
    candidates = tuple(Candidate(**{**c, "evidence": _refs(c["evidence"]), "counterevidence": _refs(c["counterevidence"]),
                                    "targets": tuple(c["targets"]), "replaces": tuple(c["replaces"])})
                       for c in plain["candidates"])
    verdicts = tuple(Verdict(**{**v, "reasons": tuple(v["reasons"]), "evidence": _refs(v["evidence"]),
                                "counterevidence": _refs(v["counterevidence"])}) for v in plain["verdicts"])
    findings = tuple(Finding(**{**f, "learnings": tuple(f["learnings"])}) for f in plain["findings"])
    return Outcome(candidates, verdicts, findings)


def _inside(name: str, outcome: Outcome, view: FrozenView) -> None:
    """Every cited event is evidence of the view, in the episode named; every learning named
    is in the view."""
    groups = [(c.theme, (*c.evidence, *c.counterevidence)) for c in outcome.candidates]
    groups += [(v.theme, (*v.evidence, *v.counterevidence)) for v in outcome.verdicts]
    for theme, refs in groups:
        for ref in refs:
            for event in ref.events:
                episode = view.citable.get(event)
                if episode is None:
                    raise Refused(f"consolidator {name!r} cited {event} (theme {theme}), which is outside the "
                                  f"frozen view of {view.purpose} evidence; nothing was stored")
                if episode != ref.episode:
                    raise Refused(f"consolidator {name!r} cited {event} in {ref.episode}, but it belongs to "
                                  f"{episode}; nothing was stored")
    named = [lid for c in outcome.candidates for lid in (*c.replaces, *([c.revises] if c.revises else []))]
    named += [lid for f in outcome.findings for lid in f.learnings]
    for lid in named:
        if lid not in view.learnings:
            raise Refused(f"consolidator {name!r} named learning {lid}, which is not in the view; nothing was stored")


def _said(outcome: Outcome, view: FrozenView) -> tuple[Outcome, list[Verdict]]:
    """The outcome without revisions whose kept words the evidence they cite does not say, and
    a verdict (known) for each one dropped."""
    kept: list[Candidate] = []
    dropped: list[Verdict] = []
    for candidate in outcome.candidates:
        problem = _unsaid(candidate, view) if candidate.revises else None
        if problem is None:
            kept.append(candidate)
        else:
            dropped.append(Verdict(candidate.theme, "known", (problem,), dict(candidate.signals),
                                   candidate.evidence, (), candidate.audience, candidate.revises))
    return dataclasses.replace(outcome, candidates=tuple(kept)), dropped


def _unsaid(candidate: Candidate, view: FrozenView) -> str | None:
    """Why revising ``candidate.revises`` with the candidate's evidence would put that evidence
    behind words it does not say (None when its words are a sentence of that evidence)."""
    known = view.learnings[candidate.revises or ""]
    if not known.visible:
        return f"already proposed as {known.id}; its evidence no longer serves ({known.stale or known.state})"
    texts = [view.evidence[e].text for ref in candidate.evidence for e in ref.events if e in view.evidence]
    if not any(terms.says(text, known.text) for text in texts):
        return f"already proposed as {known.id} in words none of the evidence now cited says"
    return None


def _screened(outcome: Outcome) -> tuple[Outcome, list[Verdict]]:
    scanner = default_scanner()
    kept: list[Candidate] = []
    dropped: list[Verdict] = []
    for candidate in outcome.candidates:
        bad = [field for field in ("title", "text", "rationale", "audience_rationale")
               if scanner.scan(getattr(candidate, field)).quarantined]
        if bad:
            dropped.append(Verdict(candidate.theme, "rejected",
                                   (f"quarantined: the safety scanner withheld its {', '.join(bad)}",),
                                   dict(candidate.signals), candidate.evidence))
        else:
            kept.append(candidate)
    verdicts = tuple(dataclasses.replace(v, reasons=tuple(_shown(r) for r in v.reasons)) for v in outcome.verdicts)
    findings = tuple(dataclasses.replace(f, detail=_shown(f.detail), suggestion=_shown(f.suggestion))
                     for f in outcome.findings)
    return Outcome(tuple(kept), verdicts, findings), dropped


def _shown(text: str) -> str:
    result = default_scanner().scan(text)
    return WITHHELD if result.quarantined else result.text
