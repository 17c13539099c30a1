"""The dream report: what a reviewer reads in a minute, and its JSON form.

It says whether the dream completed (``complete``), saw only part of its window
(``incomplete``, naming the missing spans), could not label (``degraded``: never claimed as
complete) or could not run at all (``blocked``, naming what is missing); whether anything changed
(``updated``) or not (``no-update``, and why); then what was proposed and why (evidence counted by
origin), what was held back as contested, what was rejected and why, what memory already held,
what tidy found, and the view it read (the heads it was taken at, what was left out and why).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SHOWN = 10  # entries per section in the text report; --json has them all


@dataclass
class DreamReport:
    """One dream's outcome."""

    status: str                      # complete | incomplete | degraded | blocked
    result: str                      # updated | no-update | blocked
    purpose: str
    why: list[str] = field(default_factory=list)
    since: str | None = None
    dry_run: bool = False
    view: dict[str, Any] = field(default_factory=dict)
    completeness: dict[str, Any] = field(default_factory=lambda: {"complete": True, "missing": []})
    labeler: dict[str, Any] = field(default_factory=dict)
    consolidators: list[str] = field(default_factory=list)
    proposed: list[dict[str, Any]] = field(default_factory=list)
    held_back: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    known: list[dict[str, Any]] = field(default_factory=list)
    tidy: list[dict[str, Any]] = field(default_factory=list)
    explain: dict[str, Any] | None = None
    exit_code: int = 0

    @classmethod
    def blocked(cls, purpose: str, missing: str, exit_code: int) -> DreamReport:
        return cls("blocked", "blocked", purpose, why=[missing], exit_code=exit_code)

    def to_json(self) -> dict[str, Any]:
        data = {
            "status": self.status, "result": self.result, "why": self.why, "purpose": self.purpose,
            "since": self.since, "dryRun": self.dry_run, "view": self.view, "completeness": self.completeness,
            "labeler": self.labeler, "consolidators": self.consolidators, "proposed": self.proposed,
            "heldBack": self.held_back, "rejected": self.rejected, "known": self.known, "tidy": self.tidy,
        }
        if self.explain is not None:
            data["explain"] = self.explain
        return data

    def render(self) -> str:
        """The text report."""
        if self.status == "blocked":
            return f"dream blocked: {'; '.join(self.why)}"
        lines = [self._headline(), *self._view_lines()]
        lines += _section("proposed", self.proposed, _proposed_lines)
        lines += _section("held back", self.held_back, _verdict_lines)
        lines += _section("rejected", self.rejected, _verdict_lines)
        lines += _section("already in memory", self.known, _verdict_lines)
        lines += _section("tidy", self.tidy, _finding_lines)
        lines.append("")
        lines.append(self._completeness_line())
        if self.proposed and not self.dry_run:
            lines.append("next: gitstore show ID, then gitstore accept ID --review-digest ... (or reject)")
        if self.explain is not None:
            lines += ["", *render_explain(self.explain)]
        return "\n".join(lines)

    def _headline(self) -> str:
        verb = "would propose" if self.dry_run else "proposed"
        counts = f"{len(self.proposed)} {verb}, {len(self.held_back)} held back, {len(self.rejected)} rejected"
        head = f"dream {self.status}{' (dry run)' if self.dry_run else ''}: {self.result}, {counts}"
        return head + "".join(f"\n  {w}" for w in self.why)

    def _view_lines(self) -> list[str]:
        view, labeler = self.view, self.labeler
        lines = [f"  purpose {self.purpose}{', since ' + self.since if self.since else ''}: "
                 f"{view.get('evidence', 0)} pieces of evidence, taken at {_heads(view.get('heads', []))}"]
        left = view.get("excluded", {})
        if left:
            lines.append("  left out: " + ", ".join(f"{n} {why}" for why, n in sorted(left.items())))
        withheld = view.get("withheld", {})
        if withheld:
            lines.append("  withheld before storing: " + ", ".join(f"{n} {why}" for why, n in sorted(withheld.items())))
        if labeler:
            usage = labeler.get("usage", {})
            line = (f"  labeler {labeler['name']}: {labeler.get('labels', 0)} labels on {labeler.get('themes', 0)} themes "
                    f"({labeler.get('new', 0)} new)")
            if usage.get("unthemed"):
                line += f"; {usage['unthemed']} texts matched no recurring theme (one-offs)"
            lines.append(line)
            if labeler.get("disclosure"):
                lines.append(f"  disclosed: {labeler['disclosure']}")
            if usage.get("calls"):
                lines.append(f"  usage: {usage['calls']} calls, {usage.get('itemsSent', 0)} texts sent, "
                             f"{usage.get('milliseconds', 0)} ms" + _reported(usage.get("reported", {})))
            lines += [f"  labeler problem: {p}" for p in labeler.get("problems", [])]
        return lines

    def _completeness_line(self) -> str:
        missing = self.completeness.get("missing", [])
        if not missing:
            return "window: complete (every import covering it saw every page)"
        todo = self.completeness.get("todo", [])
        return ("window: incomplete, " + "; ".join(missing[:SHOWN]) + (" ..." if len(missing) > SHOWN else "")
                + (f"\n  to complete it: {'; '.join(todo[:SHOWN])}" if todo else ""))


def _reported(reported: dict[str, Any]) -> str:
    return ("; reported " + ", ".join(f"{k} {v}" for k, v in sorted(reported.items()))) if reported else ""


def _heads(heads: list[str]) -> str:
    """The heads a view was taken at, the first ``SHOWN`` of them: one per writer, and a
    remote can hold thousands of writers (``--json`` has them all)."""
    if not heads:
        return "an empty store"
    more = f" and {len(heads) - SHOWN} more (--json has them all)" if len(heads) > SHOWN else ""
    return ", ".join(heads[:SHOWN]) + more


def _section(title: str, entries: list[dict[str, Any]], lines_of: Any) -> list[str]:
    if not entries:
        return []
    lines = ["", f"{title} ({len(entries)}):"]
    for entry in entries[:SHOWN]:
        lines += lines_of(entry)
    if len(entries) > SHOWN:
        lines.append(f"  ... and {len(entries) - SHOWN} more (--json lists them all)")
    return lines


def _proposed_lines(entry: dict[str, Any]) -> list[str]:
    s = entry["signals"]
    what = "revises" if entry.get("revised") else "new"
    lines = [f"  {entry['id']} ({what}, theme {entry['theme']}) {entry['category']}, {entry['memory']}, "
             f"{entry['audience']}, confidence {entry['confidence']}",
             f"    \"{entry['title']}\""]
    if "origins" in s:
        lines.append(f"    {s['origins']} independent origins ({s.get('copies', 0)} copies set aside), {s['people']} people, "
                     f"{s['threads']} threads or sessions, {s['changes']} pull requests or branches "
                     f"({', '.join(entry.get('changes', [])[:6])})")
    if entry.get("replaces"):
        lines.append(f"    replaces {', '.join(entry['replaces'])}")
    lines.append(f"    audience: {entry['audienceRationale']}")
    if entry.get("local"):
        lines.append("    cites personal session evidence: kept on this clone only")
    return lines


def _verdict_lines(entry: dict[str, Any]) -> list[str]:
    return [f"  {entry['theme']}: {'; '.join(entry['reasons'])}"]


def _finding_lines(entry: dict[str, Any]) -> list[str]:
    lines = [f"  {entry['kind']}: {entry['detail']}", f"    -> {entry['suggestion']}"]
    if entry.get("proposal"):
        lines[-1] += f" ({entry['proposal']})"
    return lines


def render_explain(explain: dict[str, Any]) -> list[str]:
    """Why a theme did or did not become a proposal."""
    lines = [f"explain {explain['asked']}:"]
    if not explain["themes"]:
        lines.append(f"  {explain['note']}")
        return lines
    for theme in explain["themes"]:
        lines.append(f"  theme {theme['theme']}: {theme['outcome']}")
        lines += [f"    {reason}" for reason in theme["reasons"]]
        if theme.get("signals"):
            lines.append("    signals: " + ", ".join(f"{k} {v}" for k, v in theme["signals"].items()))
        for label in theme["labels"][:SHOWN]:
            lines.append(f"    {label['polarity']:<13} {label['event']} by {label['author']} in {label['change'] or '-'}"
                         f" (origin {label['origin']}): \"{label['excerpt']}\"")
        if len(theme["labels"]) > SHOWN:
            lines.append(f"    ... and {len(theme['labels']) - SHOWN} more")
    return lines

