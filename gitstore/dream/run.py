"""One dream: label, consolidate and tidy in one bounded pass over a frozen view.

1. Open the store; without one, a **blocked** result naming what is missing.
2. Freeze the view for the purpose (``gitstore.dream.view``); with no evidence and no learnings
   in it, an explicit **no-update** result.
3. Label: the configured labeler reads the view's evidence. One that sends text anywhere gets a
   data-flow disclosure printed and recorded first, and is given the evidence as the safety
   scanner shows it, none it quarantines (``_as_sent``). A labeler that cannot run (or fails, or
   answers malformed labels) makes the dream **degraded**; it never claims to have completed.
4. Consolidate, then tidy, each under a read-only store: whatever they return is re-checked
   (``gitstore.dream.checks``) before anything is written, and a consolidator that tried to
   write, cited evidence outside the view or returned malformed output is refused, storing
   nothing.
5. Write: the new labels (local beside personal session evidence, shared otherwise), then every
   proposal and revision in one append through ``gitstore.ops.learning``, each with its audit
   entry. Running the dream again on the same store writes nothing new.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from gitstore import _jsontext
from gitstore._files import replace_file
from gitstore.config import CONFIG_NAME, from_git, refuse_unaccepted
from gitstore.dream import checks, settings as dream_settings, terms
from gitstore.dream import labelers as labeler_registry
from gitstore.dream import consolidators as consolidator_registry
from gitstore.dream.consolidators import Candidate, Consolidator, Finding, Outcome, Verdict
from gitstore.dream.labelers import CATEGORIES, POLARITIES, THEME_PATTERN, Label, Labeler, LabelRun
from gitstore.dream.labelers import memo as label_memo
from gitstore.dream.report import DreamReport
from gitstore.dream.view import Evidence, FrozenView, on_changes, take
from gitstore.errors import GitstoreError, IntegrityError, Refused, UsageError
from gitstore.ops import labels as label_ops
from gitstore.ops import learning as learning_ops
from gitstore.context import Context
from gitstore.records.vocabulary import PURPOSES, unknown
from gitstore.records.times import format_time, time_or_age
from gitstore.safety.gate import screen_text
from gitstore.store import read_only

REPORTS = "dreams"
SKEW = timedelta(days=1)  # how far past the dream's clock evidence may be dated (clocks differ)


@dataclass(frozen=True)
class _Checked:
    """One consolidator's outcome once re-checked, what the re-checks dropped, and a line for
    each entry left out that no verdict can stand for."""

    name: str
    outcome: Outcome
    dropped: list[Verdict]
    notes: list[str]


@dataclass(frozen=True)
class Request:
    """What a dream was asked to do (``by``: who runs it, default ``git:<user.email>``; ``now``:
    the dream's clock, default the current time, which evidence dated more than ``SKEW`` after is
    set aside as dated in the future)."""

    by: str | None = None
    purpose: str = "instruction"
    since: str | None = None
    labeler: str | None = None
    consolidator: str | None = None
    tidy: bool = True
    dry_run: bool = False
    explain: str | None = None
    now: datetime | None = None


def since_time(value: str, now: datetime | None = None) -> str:
    """``--since``: a time a person typed or an age (``30d``, ``12h``, ``2w``); a usage error
    names the option when it is neither."""
    try:
        return time_or_age(value, now)
    except GitstoreError as exc:
        raise UsageError(f"--since {exc}") from None


def dream(start: str | Path, request: Request, notify: Callable[[str], None] | None = None) -> DreamReport:
    """Run one dream in the repository around ``start``; the report says what happened."""
    if (wrong := unknown("purpose", request.purpose, PURPOSES)) is not None:
        raise UsageError(wrong)
    if request.explain is not None:
        request = replace(request, dry_run=True)
    try:
        ctx = Context.open(str(start))
    except GitstoreError as exc:
        return DreamReport.blocked(request.purpose, f"no readable store: {exc}", exc.exit_code)
    request = replace(request, by=ctx.person(request.by))  # its owner: whose sessions are theirs
    config = dream_settings.settings(ctx.workspace.config)
    try:
        refuse_unaccepted(ctx.workspace.repo, ctx.workspace.state / CONFIG_NAME,
                          ("dream.labeler", "dream.labelers", "dream.consolidator", "dream.consolidators"),
                          "the dream runs the labeler and consolidators they name")
    except Refused as exc:
        return DreamReport.blocked(request.purpose, str(exc), exc.exit_code)
    labeler = labeler_registry.load(request.labeler or config.labeler,
                                    config.labeler_options(request.labeler or config.labeler))
    if request.labeler is not None and (problem := labeler.unavailable()) is not None:
        # asked for by name, it cannot run: an error, where the labeler configured for every
        # dream degrades the dream it cannot label (``tick`` reports it and carries on)
        return DreamReport.blocked(request.purpose, f"labeler {labeler.name} unavailable: {problem}", 1)
    chosen = [request.consolidator or config.consolidator, *(["tidy"] if request.tidy else [])]
    consolidators = [consolidator_registry.load(n, config.consolidator_options(n)) for n in dict.fromkeys(chosen)]
    try:
        store_view = ctx.view()
        view = take(store_view, ctx.workspace.repo, request.purpose, request.since,
                    own=lambda append: ctx.store.attestation(append).own, owner=request.by,
                    decides=ctx.store.may_decide, until=format_time((request.now or datetime.now(timezone.utc)) + SKEW))
    except IntegrityError as exc:
        return DreamReport.blocked(request.purpose, f"the store cannot be read: {exc}", exc.exit_code)
    return _Dream(ctx, store_view, view, request, notify or _stderr).run(labeler, consolidators)


def _stderr(text: str) -> None:
    print(text, file=sys.stderr)


class _Dream:
    """The steps of one dream over one frozen view."""

    def __init__(self, ctx: Context, store_view: Any, view: FrozenView, request: Request,
                 notify: Callable[[str], None]) -> None:
        self.ctx, self.store_view, self.view, self.request, self.notify = ctx, store_view, view, request, notify
        assert request.by is not None  # resolved by dream()
        self.by: str = request.by
        self.unlabelled: tuple[Labeler, set[str]] | None = None
        self._checked_out = 0  # themes that passed the gates and a check set aside (``_finish``)
        self.report = DreamReport("complete", "no-update", request.purpose, since=request.since,
                                  dry_run=request.dry_run, view=_view_summary(view),
                                  completeness={"complete": not view.gaps, "missing": [str(g) for g in view.gaps],
                                                "todo": list(dict.fromkeys(g.todo(view.since) for g in view.gaps))})

    def run(self, labeler: Labeler, consolidators: Sequence[Consolidator]) -> DreamReport:
        report = self.report
        report.consolidators = [c.name for c in consolidators]
        if not self.view.evidence and not self.view.learnings:
            return self._no_evidence()
        labels, run, new = self._label(labeler)
        outcomes = [self._consolidate(c, labels) for c in consolidators]
        proposals = self._propose(outcomes)
        if not self.request.dry_run:
            written = label_ops.store_labels(self.ctx, self.store_view, new, self.by)
            report.labeler["new"] = len(written.added)
            if self.unlabelled is not None:
                self._remember(*self.unlabelled)
        self._finish(outcomes, proposals, run, labels)
        if self.request.explain is not None:
            report.explain = _explain(self.view, self.request.explain, labels, outcomes)
        if not self.request.dry_run:
            self._save()
        return report

    # -- labelling -------------------------------------------------------------------------------

    def _label(self, labeler: Labeler) -> tuple[list[Label], LabelRun, list[label_ops.LabelSpec]]:
        view = self.view
        mine = {parent: [Label.stored(s) for s in stored if s.labeler == labeler.name]
                for parent, stored in view.labels.items()}
        known = [label for group in mine.values() for label in group] if labeler.incremental else []
        seen = self._seen(labeler) if labeler.incremental else set()
        items = [e for e in view.items() if not (labeler.incremental and (mine.get(e.id) or e.id in seen))]
        self.report.labeler = {"name": labeler.name, "labels": 0, "themes": 0, "new": 0, "usage": {},
                               "disclosure": None, "problems": []}
        problem = labeler.unavailable()
        if problem is not None:
            run, given = LabelRun(problems=[f"labeler {labeler.name} unavailable: {problem}"]), items
        else:
            run, given = self._answer(labeler, items)
        fresh = _valid_labels(run, {e.id: e for e in given}, labeler.name)  # none on evidence it was not given
        labels = known + fresh
        known_ids = {(lab.event, lab.theme) for lab in known}
        personal = _personal_themes(self.view, labels)
        specs = [label_ops.LabelSpec(lab.event, lab.theme, lab.category, lab.polarity, lab.spans, labeler.name)
                 for lab in fresh if (lab.event, lab.theme) not in known_ids
                 and not (lab.theme in personal and not self.view.evidence[lab.event].local)]
        self.report.labeler.update(labels=len(labels), themes=len({lab.theme for lab in labels}),
                                   usage=run.usage, problems=list(run.problems))
        if labeler.incremental:
            labelled = {lab.event for lab in fresh}
            self.unlabelled = (labeler, seen | {e for e in run.judged if e not in labelled})
        return labels, run, specs

    def _answer(self, labeler: Labeler, items: list[Any]) -> tuple[LabelRun, list[Any]]:
        """The labeler's answer, and the evidence it was given (what ``_as_sent`` lets through,
        for one that sends text out: a label on evidence withheld from it judges nothing it
        read): the last dream's when the labeler is repeatable and was given the same evidence
        then (``labelers.memo``), else worked out (and kept, unless a dry run). A kept answer
        holding a label no labeler may give is doubt about the file, as one that does not
        parse: labelling again costs a labelling, taking it would degrade every dream."""
        withheld: list[tuple[str, tuple[str, ...]]] = []
        redacted: set[str] = set()
        if labeler.sends_to:
            items, withheld, redacted = _as_sent(items)
        wanted = label_memo.key(labeler, items)
        where = label_memo.path(self.ctx.workspace.state / REPORTS, labeler)
        if wanted is not None:
            repo = self.ctx.workspace.repo
            kept = label_memo.recall(where, wanted, lambda path, raw: from_git(repo, path, raw))
            sent = {e.id: e for e in items}
            if kept is not None and not any(_label_problem(lab, sent.get(lab.event)) for lab in kept.labels):
                return kept, items
        if (items or withheld) and labeler.sends_to:
            self._disclose(labeler, items, withheld)
        run = _guarded_label(labeler, items)
        if redacted:  # its spans point into the text sent, not the one stored
            run.labels = [replace(lab, spans=()) if lab.event in redacted else lab for lab in run.labels]
        if wanted is not None and not self.request.dry_run:
            label_memo.keep(where, wanted, run)
        return run, items

    def _seen_path(self, labeler: Labeler) -> Path:
        import hashlib

        where = hashlib.sha256(f"{labeler.name}\n{labeler.sends_to}".encode()).hexdigest()[:12]
        return self.ctx.workspace.state / REPORTS / f"judged-{labeler.name}-{where}.json"

    def _seen(self, labeler: Labeler) -> set[str]:
        """Evidence this labeler already judged without labelling it (a disposable cache in
        ``okf/.memory/dreams/``, per labeler and destination; losing it costs a second call).
        Bytes git has came with a commit, which would keep chosen evidence from ever being
        labelled: not this clone's, so nothing is taken as judged."""
        try:
            where = self._seen_path(labeler)
            raw = where.read_bytes()
            found = _jsontext.loads(raw) if not from_git(self.ctx.workspace.repo, where, raw) else []
        except (OSError, ValueError):
            return set()
        return {i for i in found if isinstance(i, str)} if isinstance(found, list) else set()

    def _remember(self, labeler: Labeler, judged: set[str]) -> None:
        """Keep what the labeler judged without a label (its labels are stored: they speak)."""
        path = self._seen_path(labeler)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(sorted(judged)), encoding="utf-8")

    def _disclose(self, labeler: Labeler, items: Sequence[Any],
                  withheld: Sequence[tuple[str, tuple[str, ...]]] = ()) -> None:
        sessions = sum(1 for e in items if e.source == "agent-session")
        text = (f"the {labeler.name} labeler sends the text of {len(items) - sessions} review comments and "
                f"{sessions} session texts (no author ids) admitted for {self.request.purpose} to {labeler.sends_to}"
                ", as the safety scanner shows them (secrets redacted)")
        if withheld:
            kinds = sorted({kind for _, why in withheld for kind in why})
            named = ", ".join(event for event, _ in withheld[:5]) + (", ..." if len(withheld) > 5 else "")
            text += (f"; {len(withheld)} texts the scanner quarantines ({', '.join(kinds)}) are not sent: "
                     f"{named}")
        text = screen_text(text, "disclosure")
        self.notify(f"gitstore dream: {text}")
        self.report.labeler["disclosure"] = text
        self.ctx.write([], "disclose", self.by, [f"labeler {labeler.name}"], text[:1000], namespace="local")

    # -- consolidating ---------------------------------------------------------------------------

    def _consolidate(self, consolidator: Consolidator, labels: list[Label]) -> _Checked:
        name = consolidator.name
        before = _tips(self.ctx)
        with read_only(f"consolidator {name!r} runs") as guard:
            try:
                raw = consolidator.consolidate(self.view, tuple(labels))
            except Exception as exc:  # a plug-in's failure is reported, never a traceback
                if guard.attempts:
                    raise Refused(f"consolidator {name!r} tried to write to the store; nothing was stored") from None
                raise Refused(f"consolidator {name!r} failed ({type(exc).__name__}: {exc}); nothing was stored") from None
        if guard.attempts or _written_beside(before, _tips(self.ctx)):
            raise Refused(f"consolidator {name!r} tried to write to the store; nothing was stored")
        result = checks.checked(name, raw, self.view)
        return _Checked(name, result.outcome, result.dropped, result.notes)

    def _propose(self, outcomes: list[_Checked]) -> list[tuple[Candidate, dict[str, Any], bool]]:
        """Build (and unless dry, write) every candidate: (candidate, record, new)."""
        named = [(c, checked.name) for checked in outcomes for c in checked.outcome.candidates]
        named = named[: checks.MAX_CANDIDATES]
        fresh = [(c, name) for c, name in named if c.revises is None]
        changed = [c for c, _ in named if c.revises is not None]
        batch = learning_ops.propose_batch(self.ctx, [_draft(c, name) for c, name in fresh],
                                           [_revision(c) for c in changed], self.by,
                                           view=self.store_view, dry_run=self.request.dry_run)
        out = [(c, record, record["id"] in batch.new) for (c, _), record in zip(fresh, batch.proposals)]
        out += [(c, record, True) for c, record in zip(changed, batch.revisions) if record is not None]
        return out

    # -- the report ------------------------------------------------------------------------------

    def _finish(self, outcomes: list[_Checked], proposals: list[tuple[Candidate, dict[str, Any], bool]],
                run: LabelRun, labels: list[Label]) -> None:
        report = self.report
        made = {c.theme: (record, new) for c, record, new in proposals}
        for checked in outcomes:
            report.why += checked.notes
            for verdict in [*checked.outcome.verdicts, *checked.dropped]:
                entry = _verdict_json(verdict)
                if verdict.outcome == "held-back":
                    report.held_back.append(entry)
                elif verdict.outcome == "rejected":
                    report.rejected.append(entry)
                elif verdict.outcome == "known":
                    report.known.append(entry)
            report.tidy += [_finding_json(f, made) for f in checked.outcome.findings]
        self._checked_out = len({v.theme for checked in outcomes for v in checked.dropped})
        for candidate, record, new in proposals:
            if new:
                report.proposed.append(_proposed_json(self.view, candidate, record))
            else:
                report.known.append({"theme": candidate.theme, "outcome": "known", "learning": record["id"],
                                     "reasons": [f"already proposed as {record['id']}, unchanged"],
                                     "signals": dict(candidate.signals), "audience": candidate.audience,
                                     "evidence": _refs_json(candidate.evidence), "counterevidence": []})
        self._status(run, labels)

    def _status(self, run: LabelRun, labels: list[Label]) -> None:
        report = self.report
        left = int(run.usage.get("left", 0) or 0)
        if left:
            report.completeness["complete"] = False
            report.completeness["missing"].append(f"{left} pieces of evidence not yet labelled (labeler bound per dream)")
        if run.problems:
            report.status = "degraded"
            report.why += [f"degraded: {p}" for p in run.problems]
            report.exit_code = 1
        elif not report.completeness["complete"]:
            report.status = "incomplete"
        report.result = "updated" if report.proposed else "no-update"
        if not report.proposed:
            report.why.append("no update: " + _quiet_reason(report, labels, self._checked_out))

    def _no_evidence(self) -> DreamReport:
        report = self.report
        left = ", ".join(f"{n} {why}" for why, n in sorted(self.view.excluded.items()))
        none = f"no evidence may serve {self.request.purpose}" + (
            f" ({left})" if left else " (the store holds no comments or session texts)")
        report.why.append(f"no update: {none}")
        if self.request.explain is not None:  # no theme at all: the reason is the view's
            report.explain = {"asked": self.request.explain, "themes": [], "note": f"no theme can form: {none}"}
        if not report.completeness["complete"]:
            report.status = "incomplete"
        return report

    def _save(self) -> None:
        folder = self.ctx.workspace.state / REPORTS
        folder.mkdir(parents=True, exist_ok=True)
        stamp = format_time(datetime.now(timezone.utc)).replace(":", "").replace(".", "")
        replace_file(folder / f"{stamp}-{self.request.purpose}.json",
                     json.dumps(self.report.to_json(), indent=2, ensure_ascii=False) + "\n")


# -- helpers -------------------------------------------------------------------------------------

def _personal_themes(view: FrozenView, labels: Sequence[Label]) -> set[str]:
    """Themes holding personal session evidence and a single piece of shared evidence: a review
    and the owner's session saying one thing. Only the session makes such a theme (one piece of
    shared evidence is none), its key may be made of the session's words, and its label on the
    review says the owner has sessions on it. A label is stored where the event it judges is,
    so the review's label of such a theme is not stored at all: it serves this dream only."""
    shared: dict[str, set[str]] = defaultdict(set)
    local: set[str] = set()
    for label in labels:
        evidence = view.evidence.get(label.event)
        if evidence is None:
            continue
        if evidence.local:
            local.add(label.theme)
        else:
            shared[label.theme].add(label.event)
    return {theme for theme in local if len(shared[theme]) == 1}


def _guarded_label(labeler: Labeler, items: Sequence[Any]) -> LabelRun:
    try:
        return labeler.label(items)
    except Exception as exc:  # a plug-in's failure degrades the dream, never a traceback
        return LabelRun(problems=[f"labeler {labeler.name} failed ({type(exc).__name__}: {exc})"])


def _as_sent(items: Sequence[Any]) -> tuple[list[Any], list[tuple[str, tuple[str, ...]]], set[str]]:
    """What a labeler that sends text out of this process may be given: each piece of evidence
    as the safety scanner shows it (what it redacts redacted), none the scanner quarantines,
    alone, with its path, or read after the piece sent before it. A stored text was screened
    when it was imported or captured, but anyone who can push can store a text no import
    would have let in; the program is a model that reads it. Returns the pieces to send, the
    ``(event, kinds)`` withheld, and the events whose text was redacted."""
    from gitstore.safety.scanner import default_scanner

    scanner = default_scanner()
    sent: list[Any] = []
    withheld: list[tuple[str, tuple[str, ...]]] = []
    redacted: set[str] = set()
    for evidence in items:
        results = [scanner.scan(evidence.text)] + ([scanner.scan(evidence.path)] if evidence.path else [])
        # a hail in one part and the order in another pass one at a time, and reach the model
        # as one: the path with its text, and each text after the one sent before it
        together = [f"{evidence.path}\n{evidence.text}"] if evidence.path else []
        together += [f"{sent[-1].text}\n{evidence.text}"] if sent else []
        results += [scanner.scan(text) for text in together]
        if any(r.quarantined for r in results):
            kinds = sorted({f.kind for r in results for f in r.findings if f.action == "quarantine"})
            withheld.append((evidence.id, tuple(kinds)))
            continue
        if results[0].text != evidence.text or (evidence.path and results[1].text != evidence.path):
            redacted.add(evidence.id)
            evidence = evidence._replace(text=results[0].text, path=results[1].text if evidence.path else None)
        sent.append(evidence)
    return sent, withheld, redacted


def _valid_labels(run: LabelRun, sent: dict[str, Any], name: str) -> list[Label]:
    """The labels that judge evidence the labeler was given, in the labels' vocabulary; the
    first bad one makes the run degraded and drops every label of the run."""
    labels = []
    for label in run.labels:
        problem = _label_problem(label, sent.get(label.event))
        if problem:
            run.problems.append(f"labeler {name} answered malformed labels ({problem}); none of them is used")
            return []
        labels.append(replace(label, labeler=name))
    return labels


def _label_problem(label: Label, evidence: Any) -> str | None:
    """What is wrong with ``label``, given ``evidence``, the piece it judges (None when the
    labeler was not given it); None when nothing is."""
    if evidence is None:
        return f"a label judges {label.event}, which the labeler was not given"
    if not re.fullmatch(THEME_PATTERN, label.theme) or label.category not in CATEGORIES \
            or label.polarity not in POLARITIES:
        return f"a label on {label.event} is outside the label vocabulary"
    if any(not 0 <= a < b <= len(evidence.text) for a, b in label.spans):
        return f"a span of the label on {label.event} lies outside its text"
    return None


# what captures and imports append while a dream runs (a hook in the background): never the
# consolidator's output, which cites only the frozen view taken before
CAPTURED = frozenset({"envelope", "receipt", "episode", "event", "import"})


def _tips(ctx: Context) -> dict[str, tuple[Any, Any]]:
    """This clone's own memory refs, each with its repository and the tip its listing read
    (cheap; git only). Fetched ones are left out: a fetch moves them (a plain ``git fetch`` run
    beside the dream), and what they bring is checked as it is read, whoever wrote it."""
    from gitstore.providers.git import discover_refs

    tips = {info.name: (info.repo, info.tip) for info in discover_refs(ctx.workspace.repo) if not info.fetched}
    return {name: found for name, found in tips.items() if found[1] is not None}


def _written_beside(before: dict[str, tuple[Any, Any]], after: dict[str, tuple[Any, Any]]) -> bool:
    """Whether the refs moved between ``before`` and ``after`` by more than captures: a ref
    gone, or an append storing a kind of record no capture or import stores (a consolidator
    writing from another thread or process). A capture appended meanwhile is not its write."""
    from gitstore.providers.git import kinds_changed

    if before.keys() - after.keys():
        return True
    return any(bool(kinds_changed(repo, tip, before[name][1] if name in before else None) - CAPTURED)
               for name, (repo, tip) in after.items() if name not in before or before[name][1] != tip)


def _draft(candidate: Candidate, consolidator: str) -> learning_ops.Draft:
    return learning_ops.Draft(
        title=candidate.title, text=candidate.text, category=candidate.category,
        evidence=[{"episode": r.episode, "events": list(r.events)} for r in candidate.evidence],
        counterevidence=[{"episode": r.episode, "events": list(r.events)} for r in candidate.counterevidence],
        memory=candidate.memory, audience=candidate.audience, audience_rationale=candidate.audience_rationale,
        targets=candidate.targets, replaces=candidate.replaces, rationale=candidate.rationale,
        confidence=candidate.confidence, proposer=("consolidator", consolidator),
    )


def _revision(candidate: Candidate) -> learning_ops.Revision:
    assert candidate.revises is not None
    return learning_ops.Revision(
        candidate.revises, [{"episode": r.episode, "events": list(r.events)} for r in candidate.evidence],
        [{"episode": r.episode, "events": list(r.events)} for r in candidate.counterevidence],
        candidate.rationale, candidate.confidence, candidate.audience_rationale)


def _view_summary(view: FrozenView) -> dict[str, Any]:
    return {"heads": [str(h) for h in view.heads], "commit": view.commit, "evidence": len(view.evidence),
            "learnings": len(view.learnings), "excluded": dict(view.excluded), "withheld": dict(view.withheld)}


def _refs_json(refs: Sequence[Any]) -> list[dict[str, Any]]:
    return [{"episode": r.episode, "events": list(r.events)} for r in refs]


def _verdict_json(verdict: Verdict) -> dict[str, Any]:
    return {"theme": verdict.theme, "outcome": verdict.outcome, "reasons": list(verdict.reasons),
            "signals": dict(verdict.signals), "audience": verdict.audience, "learning": verdict.learning,
            "evidence": _refs_json(verdict.evidence), "counterevidence": _refs_json(verdict.counterevidence)}


def _finding_json(finding: Finding, made: dict[str, tuple[dict[str, Any], bool]]) -> dict[str, Any]:
    record = made.get(finding.theme or "", (None, False))[0]
    return {"kind": finding.kind, "learnings": list(finding.learnings), "detail": finding.detail,
            "suggestion": finding.suggestion, "proposal": record["id"] if record else None}


def _proposed_json(view: FrozenView, candidate: Candidate, record: dict[str, Any]) -> dict[str, Any]:
    cited = on_changes(view.evidence[e] for r in candidate.evidence for e in r.events if e in view.evidence)
    return {
        "id": record["id"], "theme": candidate.theme, "title": record["content"]["title"],
        "text": record["content"]["text"], "category": record["category"], "memory": record["memory"],
        "audience": record["audience"], "audienceRationale": record["audienceRationale"],
        "confidence": record["confidence"], "signals": dict(candidate.signals),
        "changes": sorted({e.counted_change for e in cited if e.counted_change}), "evidence": _refs_json(candidate.evidence),
        "replaces": list(record["replaces"]), "revised": record["version"] > 1,
        "reviewDigest": record["reviewDigest"], "contentDigest": record["contentDigest"],
        "local": any(e.local for e in cited),
    }


def _quiet_reason(report: DreamReport, labels: list[Label], checked_out: int = 0) -> str:
    """Why nothing was proposed. A theme memory already holds passed the gates, and so did one
    the dream's checks set aside (``gitstore.dream.checks``: quarantined text, say): a dream that
    found some beside others that failed says how many, never that no theme passed."""
    if not labels:
        return "no evidence matched a recurring theme"
    held = len(report.known)
    aside = ""
    if checked_out:
        which = "1 theme" if checked_out == 1 else f"{checked_out} themes"
        aside = f"{which} passed the gates and the dream's checks set them aside (see rejected)"
    if held and not report.rejected and not report.held_back:
        return "memory already holds every theme"
    if held:
        which = "the 1 theme that" if held == 1 else f"the {held} themes that"
        return f"memory already holds {which} passed the gates; " + (aside or "no other passed them")
    return aside or "no theme passed the gates"


def _explain(view: FrozenView, asked: str, labels: list[Label], outcomes: list[_Checked]) -> dict[str, Any]:
    """Why the theme ``asked`` (a theme key, or a word of one; else a word of its evidence) did or
    did not become a proposal."""
    verdicts = [v for checked in outcomes for v in _final(checked)]
    wanted = asked.strip().lower()
    word = terms.stem(wanted) if wanted.isalpha() else wanted
    matching = [v for v in verdicts if v.theme == wanted] or \
        [v for v in verdicts if wanted in v.theme.split("-") or word in {terms.stem(p) for p in v.theme.split("-")}]
    if not matching:  # a word of the theme's evidence, when none of its key
        said = {lab.theme for lab in labels if lab.event in view.evidence
                and word in terms.tokens(view.evidence[lab.event].text).terms()}
        matching = [v for v in verdicts if v.theme in said]
    themes = []
    for verdict in matching[:5]:
        mine = [lab for lab in labels if lab.theme == verdict.theme and lab.event in view.evidence]
        pieces = on_changes(view.evidence[lab.event] for lab in mine)  # on the changes its verdict counts
        themes.append({"theme": verdict.theme, "outcome": verdict.outcome, "reasons": list(verdict.reasons),
                       "signals": dict(verdict.signals),
                       "labels": [_label_json(lab, piece) for lab, piece in zip(mine, pieces)]})
    note = ""
    if not themes:
        mentions = sum(1 for e in view.items() if word in terms.tokens(e.text).terms())
        note = (f"no theme matches {asked!r}: {mentions} pieces of evidence mention it, but no two share enough "
                f"words to recur (one-offs)" if mentions else f"no evidence in the view mentions {asked!r}")
    return {"asked": asked, "themes": themes, "note": note}


def _final(checked: _Checked) -> list[Verdict]:
    """A consolidator's verdicts as the dream stands by them: a theme whose candidate a re-check
    dropped (``gitstore.dream.checks``) has the check's verdict in place of the consolidator's
    (``proposed``), never both, as the report lists it."""
    dropped: dict[str, list[Verdict]] = {}
    for verdict in checked.dropped:
        dropped.setdefault(verdict.theme, []).append(verdict)
    final: list[Verdict] = []
    for verdict in checked.outcome.verdicts:
        final.extend(dropped.pop(verdict.theme, []) if verdict.theme in dropped else [verdict])
    return final + [v for rest in dropped.values() for v in rest]


def _label_json(label: Label, evidence: Evidence) -> dict[str, Any]:
    """A label as ``--explain`` shows it: who wrote the labelled evidence, on what change, and its
    words, each screened as every text any clone that can push wrote is
    (``queries.learnings.screened``), ``withheld`` naming what the scanner quarantined."""
    from gitstore.queries.learnings import screened, screened_name

    text, why = screened("evidence", evidence.text, label.event)  # whole, before it is cut
    author, by = screened_name("author", evidence.person or evidence.author, label.event)
    change = evidence.change
    on = None
    if evidence.pull_request is None and change is not None:
        change, on = screened_name("pin.branch", change)
    text = " ".join(text.split())
    excerpt = text if why is not None or len(text) <= 100 else text[:100] + "..."  # a note is never cut
    return {"event": label.event, "polarity": label.polarity, "category": label.category,
            "author": author, "change": change, "origin": evidence.origin, "excerpt": excerpt,
            "withheld": [w.to_json() for w in (why, by, on) if w is not None]}
