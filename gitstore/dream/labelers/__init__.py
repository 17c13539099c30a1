"""Labelers: they read evidence text and say which theme each piece speaks to.

A labeler satisfies :class:`Labeler`. Built-ins are in ``BUILTIN``; others are found by the
``gitstore.labelers`` entry point, whose object is a factory called with the built-in factories
(so a labeler can build on one without importing gitstore) and its options from configuration.

A label names the evidence it judges, a theme key (a slug), a category (decision, convention,
constraint, resolved-problem, project-knowledge), a polarity (``asks-for``, ``objects-to``,
``reports-fixed``) and the spans of the text it relied on. Labels are stored as label events
whose ``parentEventId`` is the judged evidence, so redacting or deleting a comment removes its
labels from every purpose.

A labeler that sends text anywhere declares where in ``sends_to``; the dream then prints and
records a data-flow disclosure before it is called. An ``incremental`` labeler is given only
evidence it has not judged before (its stored labels are reused, and the evidence it judged
without a label is remembered in ``okf/.memory/dreams/``, a disposable cache); the others
relabel the whole view every dream.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from gitstore.dream import plugins
from gitstore.records import vocabulary
from gitstore.dream.view import Evidence, StoredLabel
from gitstore.errors import UsageError

CATEGORIES = vocabulary.CATEGORIES
POLARITIES = vocabulary.LABEL_POLARITIES[:3]  # what labelers write; the rest is the earlier vocabulary
THEME_PATTERN = r"^[a-z0-9][a-z0-9-]{0,79}$"
LABELER_NAME = r"[a-z0-9][a-z0-9._-]{0,63}"
MAX_SPANS = 16


@dataclass(frozen=True, slots=True)
class Label:
    """What a labeler says about one piece of evidence."""

    event: str
    theme: str
    category: str
    polarity: str
    spans: tuple[tuple[int, int], ...] = ()
    labeler: str = ""

    @classmethod
    def stored(cls, label: StoredLabel) -> Label:
        return cls(label.parent, label.theme, label.category, label.polarity, label.spans, label.labeler)


@dataclass
class LabelRun:
    """A labeler's answer: its labels, the evidence it judged (labelled or not), what it used,
    and why it could not finish (if so)."""

    labels: list[Label] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    judged: list[str] = field(default_factory=list)


@runtime_checkable
class Labeler(Protocol):
    """Reads evidence from the frozen view and returns labels."""

    name: str
    incremental: bool

    @property
    def sends_to(self) -> str | None:
        """Where it sends evidence text (a program, a host), or None when text stays here."""
        ...

    def unavailable(self) -> str | None:
        """Why the labeler cannot run here (a program not found, nothing configured), or None."""
        ...

    def label(self, items: Sequence[Evidence]) -> LabelRun:
        """Labels for ``items`` (each judged event among them); never raises for bad input."""
        ...


Factory = Callable[[Mapping[str, "Factory"], Mapping[str, Any]], Labeler]


def _lexical(builtins: Mapping[str, Factory], options: Mapping[str, Any]) -> Labeler:
    from gitstore.dream.labelers.lexical import LexicalLabeler

    return LexicalLabeler.from_options(options)


def _command(builtins: Mapping[str, Factory], options: Mapping[str, Any]) -> Labeler:
    from gitstore.dream.labelers.command import CommandLabeler

    return CommandLabeler.from_options(options)


BUILTIN: Mapping[str, Factory] = MappingProxyType({"lexical": _lexical, "command": _command})


def load(name: str, options: Mapping[str, Any] | None = None) -> Labeler:
    """The labeler called ``name``, built with its options; refuses an unknown name."""
    labeler = plugins.build("labeler", name, BUILTIN, options)
    if not isinstance(labeler, Labeler):
        raise UsageError(f"labeler {name!r} does not provide name, incremental, sends_to, unavailable() and label()")
    if not re.fullmatch(LABELER_NAME, str(labeler.name)):
        raise UsageError(f"labeler name {labeler.name!r} must be lowercase letters, digits, dots, dashes")
    return labeler


__all__ = ["BUILTIN", "CATEGORIES", "POLARITIES", "Label", "LabelRun", "Labeler", "load"]
