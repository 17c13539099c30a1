"""Consolidators: they read the frozen view and the dream's labels and say what memory should
change. They never change it themselves.

A consolidator satisfies :class:`Consolidator`: ``consolidate(view, labels)`` returns an
:class:`Outcome` (or a mapping of the same shape): **candidates** (learnings to propose, or a
proposal of its own to revise), **verdicts** (one per theme it judged: proposed, held back,
rejected or known, and why) and **findings** (what tidy noticed about learnings in memory).
Built-ins are in ``BUILTIN``; others come from the ``gitstore.consolidators`` entry point,
whose object is a factory called with the built-in factories and its options, so a module can
build on ``recurrence`` without importing gitstore.

A consolidator gets no store handle and no write access. What it returns is re-checked by the
dream (``gitstore.dream.checks``): its shape against a schema, every cited event inside the
frozen view, every text through the safety scanner, its bounds. Only then does the store save
the candidates, as ``proposed`` learnings, with their audit entries, in one append.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from gitstore.dream import plugins
from gitstore.dream.labelers import Label
from gitstore.dream.view import FrozenView, Ref
from gitstore.errors import UsageError

OUTCOMES = ("proposed", "held-back", "rejected", "known")
FINDINGS = ("duplicate", "conflict", "stale-evidence", "missing-path")

# The longest texts an outcome may carry (``gitstore.dream.checks`` holds every one to them): a
# candidate's title, text and rationales, a verdict's reasons, a finding's detail and suggestion.
MAX_TITLE = 200
MAX_TEXT = 4000
MAX_AUDIENCE_RATIONALE = 1000
MAX_RATIONALE = 2000
MAX_REASON = 400
MAX_DETAIL = 500
MAX_SUGGESTION = 300


@dataclass(frozen=True, slots=True)
class Candidate:
    """A learning a consolidator proposes (or a new version of one of its proposals)."""

    theme: str
    title: str
    text: str
    category: str
    audience: str
    audience_rationale: str
    evidence: tuple[Ref, ...]
    rationale: str
    memory: str = "semantic"
    counterevidence: tuple[Ref, ...] = ()
    targets: tuple[str, ...] = ()
    replaces: tuple[str, ...] = ()
    revises: str | None = None
    confidence: str = "medium"
    signals: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What became of one theme, and why."""

    theme: str
    outcome: str
    reasons: tuple[str, ...]
    signals: Mapping[str, int] = field(default_factory=dict)
    evidence: tuple[Ref, ...] = ()
    counterevidence: tuple[Ref, ...] = ()
    audience: str | None = None
    learning: str | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """Something tidy noticed about learnings in memory, for a person to act on."""

    kind: str
    learnings: tuple[str, ...]
    detail: str
    suggestion: str
    theme: str | None = None


@dataclass(frozen=True)
class Outcome:
    """Everything one consolidator returns."""

    candidates: tuple[Candidate, ...] = ()
    verdicts: tuple[Verdict, ...] = ()
    findings: tuple[Finding, ...] = ()


@runtime_checkable
class Consolidator(Protocol):
    """Reads the frozen view and labels; returns candidates, verdicts and findings."""

    name: str

    def consolidate(self, view: FrozenView, labels: Sequence[Label]) -> Outcome:
        """What memory should change; must not write anything."""
        ...


Factory = Callable[[Mapping[str, "Factory"], Mapping[str, Any]], Consolidator]


def _recurrence(builtins: Mapping[str, Factory], options: Mapping[str, Any]) -> Consolidator:
    from gitstore.dream.consolidators.recurrence import Recurrence

    return Recurrence.from_options(options)


def _tidy(builtins: Mapping[str, Factory], options: Mapping[str, Any]) -> Consolidator:
    from gitstore.dream.consolidators.tidy import Tidy

    return Tidy.from_options(options)


BUILTIN: Mapping[str, Factory] = MappingProxyType({"recurrence": _recurrence, "tidy": _tidy})


def within(text: str, limit: int) -> str:
    """``text``, or as much of it as ``limit`` characters hold, cut after a whole word and
    ended with "...": a consolidator words what it returns from evidence anyone can write, and
    a text past its bound would be dropped at the re-check."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 3]
    if text[limit - 3].isspace() or " " not in cut:
        return cut.rstrip() + "..."
    return cut.rsplit(" ", 1)[0].rstrip() + "..."


def listed(names: Sequence[str], shown: int = 3) -> str:
    """The first ``shown`` names, then how many more: a list in a reason or a finding stays one
    line, however many people, changes or paths it counts."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def load(name: str, options: Mapping[str, Any] | None = None) -> Consolidator:
    """The consolidator called ``name``, built with its options; refuses an unknown name."""
    consolidator = plugins.build("consolidator", name, BUILTIN, options)
    if not isinstance(consolidator, Consolidator):
        raise UsageError(f"consolidator {name!r} does not provide name and consolidate()")
    return consolidator


__all__ = ["BUILTIN", "Candidate", "Consolidator", "Finding", "Outcome", "Verdict", "load"]
