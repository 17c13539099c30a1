"""Auto-safe: optional automation, off by default, parsed strictly and failing closed.

Configured in ``okf/.memory/config.json`` under ``"automation"``:

    {"autoSafe": true, "kinds": ["convention", "project-knowledge"], "minEvidence": "verified-command"}

Anything unexpected (an unknown field, a kind outside the low-risk set, a weaker evidence level,
a value of the wrong type) disables automation and says why; a typo can never switch it on.
When enabled, a proposal of an allowed kind whose every piece of evidence is a command observed
to succeed in a completely captured session, whose text names nothing high-risk and which
replaces nothing and meets no dissent, moves to ``auto-accepted`` then ``auto-active`` by the
gate, labelled auto-safe wherever it surfaces. A person's accept promotes it to ``accepted``.
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
    for ref in record["evidence"]:
        episode = view.episodes.get(ref["episode"])
        if episode is None or episode["capture"] != "complete":
            return "its evidence comes from a degraded capture"
        for event_id in ref["events"]:
            payload = view.events.get(event_id, {}).get("payload", {})
            if view.events.get(event_id, {}).get("type") != "observation" or not payload.get("command") \
                    or payload.get("exitCode") != 0:
                return "not every piece of evidence is a verified command"
    return None
