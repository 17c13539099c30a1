"""The ``dream`` section of ``okf/.memory/config.json``, read strictly.

::

    {"dream": {
        "labeler": "lexical",                   # or "command", or a gitstore.labelers plug-in
        "consolidator": "recurrence",           # or a gitstore.consolidators plug-in
        "labelers": {"command": {"argv": ["llm-label", "--json"], "timeout": 60}},
        "consolidators": {"recurrence": {"minPeople": 3}, "tidy": {"similarity": 70}}
    }}

Options of each labeler and consolidator are checked by it when it is built (the recurrence
thresholds can only be raised). An unknown field or a value of the wrong type is an error naming
it, never ignored: a typo must not silently weaken a gate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitstore.config import CONFIG_FILE, Config
from gitstore.errors import InvalidInput

_FIELDS = {"labeler": str, "consolidator": str, "labelers": dict, "consolidators": dict}


@dataclass(frozen=True)
class DreamSettings:
    """What configuration says about dreaming."""

    labeler: str = "lexical"
    consolidator: str = "recurrence"
    labelers: dict[str, dict[str, Any]] = field(default_factory=dict)
    consolidators: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"labeler": self.labeler, "consolidator": self.consolidator, "labelers": self.labelers,
                "consolidators": self.consolidators}

    def labeler_options(self, name: str) -> dict[str, Any]:
        return self.labelers.get(name, {})

    def consolidator_options(self, name: str) -> dict[str, Any]:
        return self.consolidators.get(name, {})


def settings(config: Config) -> DreamSettings:
    """The dream settings of this clone's configuration (defaults when it has no section)."""
    if config.dream is None:
        return DreamSettings()
    return parse(config.dream, CONFIG_FILE)


def parse(section: Any, where: Path | str = "config") -> DreamSettings:
    if not isinstance(section, dict):
        raise InvalidInput(f"{where}: dream must be a JSON object")
    for key, value in section.items():
        if key not in _FIELDS:
            raise InvalidInput(f"{where}: dream has an unknown field {key!r}")
        if not isinstance(value, _FIELDS[key]):
            raise InvalidInput(f"{where}: dream.{key} must be a {'JSON object' if _FIELDS[key] is dict else 'string'}")
    for group in ("labelers", "consolidators"):
        for name, options in section.get(group, {}).items():
            if not isinstance(options, dict):
                raise InvalidInput(f"{where}: dream.{group}.{name} must be a JSON object of options")
    return DreamSettings(section.get("labeler", "lexical"), section.get("consolidator", "recurrence"),
                         dict(section.get("labelers", {})), dict(section.get("consolidators", {})))
