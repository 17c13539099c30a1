"""Auto-safe: optional automation, off by default, parsed strictly and failing closed.

Configured in ``okf/.memory/config.json`` under ``"automation"``:

    {"autoSafe": true, "kinds": ["convention", "project-knowledge"], "minEvidence": "verified-command"}

Anything unexpected (an unknown field, a kind outside the low-risk set, a weaker evidence level,
a value of the wrong type) disables automation and says why; a typo can never switch it on.
When enabled, a proposal of an allowed kind whose every piece of evidence is a command observed
to succeed in a completely captured session of this clone (an agent session kept in the local
namespace: a fetched record, which anyone who can push can write, proves no run), whose text
names nothing high-risk, which
replaces nothing, meets no dissent and conflicts with no existing learning, moves to
``auto-accepted`` then ``auto-active`` by the gate, labelled auto-safe wherever it surfaces. A
person's accept promotes it to ``accepted``.

A proposal *conflicts* with an existing learning that is live (its intact history is proposed,
accepted, auto-accepted or auto-active, and no accepted replacement has claimed it) and that
it does not offer to replace, when the two are about the same thing:

- they cite the same evidence: an event in the evidence or counterevidence of both;
- they share a target and a category;
- they share a theme: at least half of the significant words of the shorter one's title and
  text (words of three letters or more, common words left out), and at least three, are words
  of the other's. Contrary advice ("Run make test before pushing" / "Never run make test before
  pushing") shares its words; so does the same advice given twice.

Each is decided from the records alone, the same on every clone. Weighing two learnings
against each other is a person's call, so the gate steps back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gitstore.config import CONFIG_FILE, Config

if TYPE_CHECKING:  # describing the settings (gitstore status) needs no store
    from gitstore.rules.view import View

LOW_RISK = ("convention", "project-knowledge", "resolved-problem")
DEFAULT_KINDS = ("convention", "project-knowledge")
EVIDENCE_LEVELS = ("verified-command",)
HIGH_RISK = re.compile(
    r"password|passwd|secret|token|credential|api[_-]?key|private key|permission|chmod|chown|sudo|"
    r"rm\s+-rf|drop\s+table|force[- ]push|--force|delete|truncate|disable\s+(ssl|tls|verification)",
    re.I,
)
_FIELDS = {"autoSafe", "kinds", "minEvidence"}


@dataclass(frozen=True)
class Automation:
    """The effective automation settings and where they came from."""

    enabled: bool = False
    kinds: tuple[str, ...] = DEFAULT_KINDS
    min_evidence: str = "verified-command"
    source: str = "default (off)"
    problems: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {"autoSafe": self.enabled, "kinds": list(self.kinds), "minEvidence": self.min_evidence,
                "from": self.source, "disabledBecause": list(self.problems)}


def settings(config: Config) -> Automation:
    """The automation this clone's configuration asks for; any problem turns it off, and says so."""
    if config.automation is None:
        return Automation()
    return parse(config.automation, CONFIG_FILE)


def parse(section: Any, source: str) -> Automation:
    """Parse strictly: the first problem disables automation."""
    problems = _problems(section)
    if problems:
        return Automation(source=source, problems=tuple(problems))
    return Automation(
        enabled=section.get("autoSafe", False),
        kinds=tuple(section.get("kinds", DEFAULT_KINDS)),
        min_evidence=section.get("minEvidence", "verified-command"),
        source=source,
    )


def _problems(section: Any) -> list[str]:
    if not isinstance(section, dict):
        return ["automation must be a JSON object"]
    problems = [f"unknown field {key!r}" for key in section if key not in _FIELDS]
    if not isinstance(section.get("autoSafe", False), bool):
        problems.append("autoSafe must be true or false")
    kinds = section.get("kinds", list(DEFAULT_KINDS))
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        problems.append("kinds must be a list of categories")
    else:
        problems.extend(f"kind {k!r} is not low-risk ({', '.join(LOW_RISK)})" for k in kinds if k not in LOW_RISK)
    if section.get("minEvidence", "verified-command") not in EVIDENCE_LEVELS:
        problems.append(f"minEvidence {section.get('minEvidence')!r} is weaker than verified-command")
    return problems


def eligible(view: View, automation: Automation, record: dict[str, Any]) -> str | None:
    """Why a proposal may not be auto-accepted (None when it may)."""
    if not automation.enabled:
        return "automation is off"
    if record["category"] not in automation.kinds:
        return f"{record['category']} is not an auto-safe kind"
    if record["replaces"] or record["counterevidence"] or record["dissent"]:
        return "it replaces something or meets dissent"
    if HIGH_RISK.search(record["content"]["title"] + "\n" + record["content"]["text"]):
        return "its text names something high-risk"
    clash = conflict(view, record)
    if clash is not None:
        return clash
    for ref in record["evidence"]:
        episode = view.episodes.get(ref["episode"])
        if (episode is None or episode["source"]["kind"] != "agent-session"
                or ref["episode"] not in view.local_episodes):  # a record anyone can push says nothing was run here
            return "not every piece of evidence is from a session this clone captured"
        if episode["capture"] != "complete":
            return "its evidence comes from a degraded capture"
        for event_id in ref["events"]:
            payload = view.events.get(event_id, {}).get("payload", {})
            if view.events.get(event_id, {}).get("type") != "observation" or not payload.get("command") \
                    or payload.get("exitCode") != 0:
                return "not every piece of evidence is a verified command"
    return None


LIVE = frozenset({"proposed", "accepted", "auto-accepted", "auto-active"})
_WORD = re.compile(r"[a-z0-9]{3,}")
_COMMON = frozenset(
    "the and for with that this from into are was were will would should could can have has had "
    "been being its than then them they their there these those what which while who how all any "
    "each every some such only also just very more most other use using used when where before "
    "after always".split()
)
_THEME_SHARE = 0.5
_THEME_WORDS = 3


@dataclass(frozen=True)
class _Subject:
    """What a learning is about, as the conflict check compares it."""

    events: frozenset[str]
    category: str
    targets: frozenset[str]
    theme: frozenset[str]

    @classmethod
    def of(cls, learning: dict[str, Any]) -> _Subject:
        return cls(frozenset(_events(learning)), learning["category"], frozenset(learning["targets"]),
                   frozenset(_theme(learning)))


def conflict(view: View, record: dict[str, Any]) -> str | None:
    """Why RECORD conflicts with a live learning it does not replace (None when it does not).
    The live learnings' subjects are worked out once per view, not once per proposal checked
    (a dream checks up to a hundred against every learning)."""
    from gitstore.rules.active import settle  # the rules that read the store, only when they must

    all_histories = view.histories()
    replaced = view.memo("autosafe.replaced", lambda: settle(view, all_histories).replaced_by)
    mine = _Subject.of(record)
    for learning_id, theirs in view.memo("autosafe.live", lambda: _live(all_histories)):
        if learning_id == record["id"] or learning_id in record["replaces"] or learning_id in replaced:
            continue
        why = _same_subject(mine, theirs)
        if why is not None:
            return f"it conflicts with {learning_id} ({why})"
    return None


def _live(all_histories: dict[str, Any]) -> list[tuple[str, _Subject]]:
    """Every live learning's subject, in id order."""
    return [(learning_id, _Subject.of(history.current)) for learning_id, history in sorted(all_histories.items())
            if history.valid and history.current["state"] in LIVE]


def _same_subject(one: _Subject, other: _Subject) -> str | None:
    if not one.events.isdisjoint(other.events):
        return "the same evidence"
    if one.category == other.category and not one.targets.isdisjoint(other.targets):
        return "the same target and category"
    shorter = min(len(one.theme), len(other.theme))
    shared = len(one.theme & other.theme)
    if shorter and shared >= _THEME_WORDS and shared >= _THEME_SHARE * shorter:
        return "the same theme"
    return None


def _events(learning: dict[str, Any]) -> set[str]:
    return {e for ref in (*learning["evidence"], *learning["counterevidence"]) for e in ref["events"]}


def _theme(learning: dict[str, Any]) -> set[str]:
    words = _WORD.findall((learning["content"]["title"] + " " + learning["content"]["text"]).lower())
    return {w for w in words if w not in _COMMON}
