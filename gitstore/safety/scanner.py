"""The safety scanner: what gitstore refuses, what it redacts, and what it only warns about.

Every text that reaches the store from outside (captured sessions, imports, review comments,
proposals from labelers and consolidators) and every text about to be shown to an agent goes
through a :class:`SafetyScanner`. The scanner is a Protocol so a deployment can plug in its own;
:class:`ConservativeScanner` is the default. It composes finders, one module for each thing it
looks for, and its policy has these levels:

- **quarantine** (blocking; quarantined text is never stored, hashed through or used as
  evidence): characters that make a text read differently from what it says
  (:mod:`~gitstore.safety.hidden`: bidirectional controls, invisible characters, control and tag
  characters, runs of variation selectors), text that tries to take over an agent
  (:mod:`~gitstore.safety.injection`: override phrases and persona takeovers, in English and
  eight other languages, chat-template role markers, forged chat turns, orders addressed to AI
  readers), downloads piped into a shell
  (:mod:`~gitstore.safety.commands`), and, in free text, HTML comments that hide words from a
  person reading it rendered (:mod:`~gitstore.safety.markup`) and markup that acts when it is
  rendered (:mod:`~gitstore.safety.active`: links and images to script URLs, elements that run
  code, event handlers, images whose URL asks for data to be filled in, redirects, stylesheets).
- **redact** (defense in depth; choosing sources that hold no secrets comes first; the rest of
  the text is kept): credentials, in assignments, in their own shapes or next to a credential
  word in prose (:mod:`~gitstore.safety.secrets`; tokens cut by line breaks,
  :mod:`~gitstore.safety.broken`; with the value checks of
  :mod:`~gitstore.safety.values` telling placeholders, templates, references, names and
  documented examples from secrets; what a command that reads a secret prints,
  :mod:`~gitstore.safety.printed`), home folders in absolute paths
  (:mod:`~gitstore.safety.paths`), and the head ref a ``pull_request_target`` workflow checks out
  (:mod:`~gitstore.safety.commands`).
- **a file's content**: only when the caller says a text is the content of a repository file
  (``scan(text, path=...)``) do its place, its author's marks and the repository's allow list
  count (:mod:`~gitstore.safety.files`). In free text none of this applies.
- **warn**: a word mixing Latin letters with look-alikes of another alphabet or small capitals
  (:mod:`~gitstore.safety.hidden`).

A :class:`ScanResult` carries the redacted text and findings made of kinds and counts only,
never the material that was found. Scanning is linear in the text: patterns start with a
literal so the regex engine can skip ahead, case-insensitive ones run over a lowercased copy.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Protocol, runtime_checkable

from gitstore.safety.active import active_markup_count
from gitstore.safety.broken import broken_token_hits
from gitstore.safety.commands import pipe_to_shell_count, untrusted_checkout_hits
from gitstore.safety.files import Allowlist, standing_in_file
from gitstore.safety.hidden import hidden_counts, mixed_script_count
from gitstore.safety.injection import injection_count
from gitstore.safety.markup import hidden_markup_count
from gitstore.safety.paths import home_hits, own_home_hits
from gitstore.safety.printed import printed_secret_hits
from gitstore.safety.secrets import (
    assignment_hits,
    auth_header_hits,
    blob_hits,
    command_password_hits,
    curl_user_hits,
    escaped_hits,
    pem_hits,
    prose_secret_hits,
    sas_signature_hits,
    session_cookie_hits,
    shape_hits,
    url_password_hits,
)
from gitstore.safety.spans import Hit, Text

QUARANTINE = "quarantine"
REDACT = "redact"
WARN = "warn"
_ACTION_ORDER = {QUARANTINE: 0, REDACT: 1, WARN: 2}



class Finding:
    """One kind of finding in a text: what it is, what the scanner did, how many times.

    A plain class, not a dataclass (whose creation would import ``dataclasses``, ``inspect``
    and ``tokenize`` into every scan, the pre-commit gate's among them) nor a named tuple
    (``count`` is a method of every tuple); equal when all three are."""

    __slots__ = ("kind", "action", "count")

    def __init__(self, kind: str, action: str, count: int) -> None:
        self.kind = kind
        self.action = action
        self.count = count

    def _key(self) -> tuple[str, str, int]:
        return self.kind, self.action, self.count

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Finding) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Finding(kind={self.kind!r}, action={self.action!r}, count={self.count!r})"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"kind": self.kind, "action": self.action, "count": self.count}


class ScanResult(NamedTuple):
    """The text with every redaction applied, whether it is quarantined, and the findings."""

    text: str
    quarantined: bool
    findings: tuple[Finding, ...]

    @property
    def redactions(self) -> int:
        """How many redactions were applied."""
        return sum(f.count for f in self.findings if f.action == REDACT)

    def report(self) -> dict[str, Any]:
        """Kinds and counts for a report; never the text or the material found."""
        return {
            "quarantined": self.quarantined,
            "redactions": self.redactions,
            "findings": [f.to_dict() for f in self.findings],
        }


@runtime_checkable
class SafetyScanner(Protocol):
    """Anything that can scan a text; gitstore only ever calls ``scan``."""

    def scan(self, text: str, *, path: str | None = None, context: str = "") -> ScanResult:
        """Scan TEXT and return the redacted text, the quarantine verdict and the findings.

        ``path`` is given only when TEXT is the content of that file of the repository (a
        path relative to its root, ``/``-separated); a scanner may ignore it. ``context`` is
        what came just before TEXT and is screened on its own (the command a tool's output
        answers): what it says may tell what TEXT holds; a scanner may ignore it.
        """
        ...


# --- composing the finders ----------------------------------------------------------------------

_Rule = Callable[[Text], Iterable[Hit]]
_RULES: tuple[_Rule, ...] = (
    pem_hits,
    shape_hits,
    broken_token_hits,
    untrusted_checkout_hits,
    auth_header_hits,
    assignment_hits,
    url_password_hits,
    curl_user_hits,
    command_password_hits,
    printed_secret_hits,
    sas_signature_hits,
    session_cookie_hits,
    prose_secret_hits,
    home_hits,
)
_MAX_DEPTH = 2  # how deep base64 blobs and escaped words inside them are looked into


def _resolve(hits: Iterable[Hit]) -> list[Hit]:
    """Non-overlapping hits: the lower priority first, then the earlier and longer; a hit
    overlapping one kept is dropped. A priority's hits are swept in order of their starts
    against those kept at lower priorities, then merged with them: inserting each kept hit
    among all those before it cost time quadratic in their number."""
    accepted: list[Hit] = []  # sorted by start, never overlapping
    ordered = sorted(hits, key=lambda h: (h.priority, h.start, h.start - h.end))
    for _, level in itertools.groupby(ordered, key=lambda h: h.priority):
        starts = [hit.start for hit in accepted]
        taken: list[Hit] = []  # this priority's, sorted by start
        for hit in level:
            if taken and taken[-1].end > hit.start:
                continue
            i = bisect.bisect_right(starts, hit.start)
            if i and accepted[i - 1].end > hit.start:
                continue
            if i < len(accepted) and accepted[i].start < hit.end:
                continue
            taken.append(hit)
        accepted = list(heapq.merge(accepted, taken, key=lambda h: h.start))
    return accepted


def _apply(text: str, hits: list[Hit]) -> str:
    """TEXT with every hit replaced."""
    parts, position = [], 0
    for hit in hits:
        parts += [text[position : hit.start], hit.text]
        position = hit.end
    parts.append(text[position:])
    return "".join(parts)


def _findings(counts: Counter[tuple[str, str]]) -> tuple[Finding, ...]:
    """Findings in a stable order: quarantine, redact, warn, then by kind."""
    ordered = sorted(counts.items(), key=lambda item: (_ACTION_ORDER[item[0][1]], item[0][0]))
    return tuple(Finding(kind, action, count) for (kind, action), count in ordered)


class ConservativeScanner:
    """The default scanner: quarantines hidden text and injections, redacts secrets and homes.

    ``allow`` holds what the repository's maintainers declared is not a secret; it and the
    rules for key material by place apply only to a text scanned as a file's content. ``homes``
    are home folders redacted as ``~`` wherever they lie (``own_home_hits``), besides those of
    the common layouts: a capture's scanner is told the capturing user's (``own_homes``).
    """

    def __init__(self, allow: Allowlist | None = None, homes: tuple[str, ...] = ()) -> None:
        self.allow = allow or Allowlist()
        self.homes = homes

    def scan(self, text: str, *, path: str | None = None,
             read_by_agents: Callable[[], bool] | None = None, context: str = "",
             lines_before: int = 0) -> ScanResult:
        """Scan TEXT (the content of the file at ``path``, when given); the module
        documentation states the policy. ``read_by_agents`` says, when asked, whether agents
        read that file (the wiki, a skill): no place clears key material there. CONTEXT,
        what came just before TEXT, is read before it for secrets only (``_in_context``).
        LINES_BEFORE: the file's lines before TEXT, when TEXT is a piece of it that starts on a
        line of its own (the allow list names the file's lines)."""
        view = Text.of(text)
        counts: Counter[tuple[str, str]] = Counter()
        for kind, count in hidden_counts(text).items():
            counts[(kind, QUARANTINE)] = count
        if injections := injection_count(view):
            counts[("prompt-injection", QUARANTINE)] = injections
        if pipes := pipe_to_shell_count(view):  # a file may document one; memory never hands one on
            counts[("pipe-to-shell", QUARANTINE if path is None else WARN)] = pipes
        if path is None and (hidden := hidden_markup_count(text)):  # a file's comments are its authors'
            counts[("hidden-markup", QUARANTINE)] = hidden
        if path is None and (active := active_markup_count(text)):  # so is a file's own markup
            counts[("active-markup", QUARANTINE)] = active
        hits = self._in_context(context, text) if context else self._redactions(view, 0)
        if path is not None:
            hits = standing_in_file(text, path, hits, self.allow, read_by_agents, lines_before)
        counts.update((kind, REDACT) for hit in hits for kind in hit.kinds)
        if mixed := mixed_script_count(text):
            counts[("mixed-script", WARN)] = mixed
        findings = _findings(counts)
        quarantined = any(f.action == QUARANTINE for f in findings)
        return ScanResult(_apply(text, hits), quarantined, findings)

    def redacted_spans(self, text: str, *, path: str | None = None,
                       read_by_agents: Callable[[], bool] | None = None) -> list[tuple[int, int]]:
        """Where ``scan`` (with the same PATH and READ_BY_AGENTS) replaces something in TEXT:
        the start and end of each span it redacts, in order."""
        return [(hit.start, hit.end) for hit in self.redacted_hits(text, path=path, read_by_agents=read_by_agents)]

    def redacted_hits(self, text: str, *, path: str | None = None, read_by_agents: Callable[[], bool] | None = None,
                      lines_before: int = 0) -> list[Hit]:
        """What ``scan`` (with the same PATH, READ_BY_AGENTS and LINES_BEFORE) replaces in TEXT,
        each span with its kinds, in order (the allow list's advice pins their text)."""
        hits = self._redactions(Text.of(text), 0)
        if path is not None:
            hits = standing_in_file(text, path, hits, self.allow, read_by_agents, lines_before)
        return [hit for hit in hits if hit.text != text[hit.start:hit.end]]

    def _in_context(self, context: str, text: str) -> list[Hit]:
        """The redactions in TEXT read after CONTEXT on the line before it: a token a command
        prints alone on a line is one only by the command (``heroku auth:token``). CONTEXT is
        screened on its own, so what is found there is left to that; a secret running from it
        into TEXT goes from where TEXT starts."""
        offset = len(context) + 1
        whole = Text.of(context + "\n" + text)
        whole.output_start = offset
        return [hit._replace(start=max(hit.start, offset) - offset, end=hit.end - offset)
                for hit in self._redactions(whole, 0) if hit.end > offset]

    def _redactions(self, text: Text, depth: int) -> list[Hit]:
        """Every redaction in TEXT, including inside base64 blobs down to a fixed depth."""
        hits = [hit for rule in _RULES for hit in rule(text)]
        if self.homes:
            hits.extend(own_home_hits(text.raw, self.homes))
        if depth < _MAX_DEPTH:
            def inner(decoded: str) -> list[Hit]:
                return self._redactions(Text.of(decoded), depth + 1)

            hits.extend(blob_hits(text.raw, inner))
            hits.extend(escaped_hits(text.raw, inner))
        return _resolve(hits)


_DEFAULT = ConservativeScanner()


def default_scanner() -> SafetyScanner:
    """The scanner gitstore uses unless told otherwise."""
    return _DEFAULT


__all__ = [
    "QUARANTINE",
    "REDACT",
    "WARN",
    "ConservativeScanner",
    "Finding",
    "SafetyScanner",
    "ScanResult",
    "default_scanner",
]
