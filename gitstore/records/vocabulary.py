"""The words records use: each list defined once, here, in the order the contracts give it.

Every list equals an enum of the v1 JSON Schemas in ``.memory-schema/v1/`` (the schemas are the
source of truth; ``tests/test_vocabulary.py`` checks each list against its enum). Modules that
need a list import it from here rather than spelling it again. Importing this module loads
nothing else, so even the agent hook can use it.
"""

from __future__ import annotations

# -- consent (defs.schema.json) ------------------------------------------------------------------
PURPOSES = ("review", "instruction", "evaluation", "analytics", "training", "publication")
"""What evidence may serve, once a grant permits it (``$defs/purpose``)."""

SOURCES = ("review-thread", "agent-session", "manual")
"""Where an episode's evidence comes from (``$defs/sourceKind``)."""

# -- capture (defs.schema.json, receipt and episode contracts) -----------------------------------
HARNESSES = ("claude-code", "codex", "gemini-cli", "opencode")
"""The coding agents gitstore captures sessions from (``$defs/harness`` without ``manual``,
which names records written by hand, not a harness)."""

CAPTURE_MODES = ("summary", "transcript", "hybrid")
"""How much of a session a capture keeps (``$defs/mode``); ``summary`` is the default."""

DEFAULT_CAPTURE_MODE = "summary"

SUMMARY_SEQ = 0
"""A session's summary's place in its episode: before every turn and command, whose places
(from 1) are those of their turns in the transcript, so a longer session moves none of them.
Each capture summarizes the session as it stands then; the latest stands for it
(``gitstore.rules.summaries``)."""

CAPTURE_STATES = ("complete", "degraded")
"""A receipt's status and an episode's capture (``receipt.status``, ``episode.capture``)."""

RECEIPT_REASONS = (
    "hooks-disabled", "capture-timeout", "transcript-missing", "transcript-unreadable",
    "unknown-schema-version", "lines-skipped", "truncated", "quarantined", "revision-unknown",
)
"""Why a capture is degraded (``receipt.reasons``)."""

REASON_WORDS = {
    "hooks-disabled": "the harness's hooks were switched off",
    "capture-timeout": "the capture ran out of time before it read the transcript",
    "transcript-missing": "no transcript was found where the harness said",
    "transcript-unreadable": "the transcript could not be read",
    "unknown-schema-version": "the transcript's format is unknown to this gitstore",
    "lines-skipped": "lines of kinds gitstore does not read were skipped",
    "truncated": "the session was longer than a capture keeps",
    "quarantined": "the safety scanner withheld some text",
    "revision-unknown": "no commit was found for the session's time",
}
"""Each reason a capture is degraded, in plain words (what ``episodes`` and ``evidence`` show)."""

KEEPS_ALL = frozenset({"revision-unknown"})
"""Reasons that leave nothing of the session out: the episode is degraded (its pin names no
commit) yet holds all the capture read."""

EVENT_TYPES = (
    "comment", "edit", "label", "status", "retraction", "observation",
    "tool-call", "voice-turn", "ui-state", "agent-message",
)
"""The kinds of event an episode holds (``event.type``); the last four are reserved."""

ROLES = ("user", "assistant", "system", "tool", "summary")
"""Who speaks in an observed turn (``event.payload.role``)."""

LABEL_POLARITIES = ("asks-for", "objects-to", "reports-fixed", "problem", "praise", "neutral")
"""What a labelled text does with its theme (``event.payload.label.polarity``): labelers write the
first three; the last three are the earlier vocabulary, still read."""

# -- learnings (learning.schema.json) ------------------------------------------------------------
CATEGORIES = ("decision", "convention", "constraint", "resolved-problem", "project-knowledge")
"""What a learning is about (``learning.category``, also a label's category)."""

MEMORY_KINDS = ("semantic", "procedural")
"""Where a learning is promoted: the wiki (semantic) or skills (procedural) (``learning.memory``)."""

AUDIENCES = ("project", "user-tooling", "personal")
"""Whom a learning is for (``learning.audience``)."""

CONFIDENCES = ("low", "medium", "high")
"""How sure a proposer is (``learning.confidence``)."""

LEARNING_STATES = ("proposed", "accepted", "rejected", "retired", "auto-accepted", "auto-active")
"""A learning version's state (``learning.state``)."""

PROPOSER_KINDS = ("consolidator", "person", "labeler")
"""Who proposed a learning (``learning.proposer.kind``)."""

# -- audit (audit.schema.json) -------------------------------------------------------------------
AUDIT_ACTIONS = (
    "grant", "withdraw", "propose", "accept", "reject", "retire", "merge", "export", "redact",
    "import", "auto-accept", "capture", "purge", "promote", "label", "disclose",
)
"""What an audit entry records (``audit.action``)."""

def unknown(what: str, value: str, names: tuple[str, ...]) -> str | None:
    """What to say of a VALUE a person gave that is not one of NAMES (None when it is one)."""
    return None if value in names else f"unknown {what} {value!r} (one of {', '.join(names)})"


__all__ = [
    "AUDIENCES", "AUDIT_ACTIONS", "CAPTURE_MODES", "CAPTURE_STATES", "CATEGORIES", "CONFIDENCES",
    "DEFAULT_CAPTURE_MODE", "EVENT_TYPES", "HARNESSES", "KEEPS_ALL", "LABEL_POLARITIES", "LEARNING_STATES",
    "MEMORY_KINDS", "PROPOSER_KINDS", "PURPOSES", "REASON_WORDS", "RECEIPT_REASONS", "ROLES", "SOURCES", "unknown",
]
