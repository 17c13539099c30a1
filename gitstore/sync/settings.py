"""The ``loop`` section of ``okf/.memory/config.json``, read strictly and failing closed.

::

    {"loop": {
        "by": "git:memory-bot@example.com",          # who the steps act as (default: git config)
        "steps": {
            "reviews": {"every": "15m", "folder": "okf/.memory/inbox/reviews"},
            "github":  {"every": "1h", "repo": "acme/widgets", "since": "3d"},
            "dream":   {"every": "1d", "timeout": "15m"},
            "publish": {"every": "1d"},
            "sync":    {"every": "15m", "remote": "origin"}
        }
    }}

A step named under ``steps`` is configured; the others never run. Steps run in the order of
the flow (``gitstore.sync.steps.STEPS``), whatever the order here. ``every`` (how often the
step is due) and ``timeout`` (how long one run may take before it is stopped) are durations:
a whole number and a unit, ``s``, ``m``, ``h``, ``d`` or ``w``. ``every`` lies between
``MIN_EVERY`` and ``MAX_EVERY``, and a timeout cannot exceed ``TIMEOUT_CEILING``, whatever is
configured. Any unknown field, unknown step, missing option or value of the wrong type is an
error that names it: a tick refuses to run rather than run something other than what the team
meant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gitstore.config import CONFIG_FILE, Config
from gitstore.errors import InvalidInput

MIN_EVERY = 60
MAX_EVERY = 52 * 7 * 86400  # a year: a step due more rarely is one not to configure (and 999999w runs past 9999)
TIMEOUT_CEILING = 2 * 3600
MIN_TIMEOUT = 1
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"^(\d{1,6})([smhdw])\Z")
_COMMON = {"every", "timeout"}
_SECTION = {"by", "steps"}


@dataclass(frozen=True)
class StepConfig:
    """One configured step: its name, interval, time bound and its own options."""

    name: str
    every: int
    timeout: int
    options: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"step": self.name, "every": self.every, "timeout": self.timeout, "options": self.options}


@dataclass(frozen=True)
class LoopSettings:
    """The configured steps, in the order they run, and who they act as."""

    steps: tuple[StepConfig, ...] = ()
    by: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"by": self.by, "steps": [s.to_json() for s in self.steps]}


def parse_duration(value: Any, where: str) -> int:
    """Seconds in a duration such as ``90s``, ``15m``, ``6h``, ``1d`` or ``2w``."""
    match = _DURATION.match(value) if isinstance(value, str) else None
    if match is None:
        raise InvalidInput(f"{where} must be a duration like 15m, 6h or 1d (got {value!r})")
    return int(match.group(1)) * _UNITS[match.group(2)]


def format_duration(seconds: int) -> str:
    """The shortest exact spelling of a duration (``90s``, ``15m``, ``1d``)."""
    for unit, size in sorted(_UNITS.items(), key=lambda u: -u[1]):
        if seconds and seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def settings(config: Config) -> LoopSettings:
    """The loop this clone's configuration asks for (no steps when it has no ``loop`` section)."""
    return LoopSettings() if config.loop is None else parse(config.loop, CONFIG_FILE)


def parse(section: Any, where: str = "config") -> LoopSettings:
    """Check a ``loop`` section against the registered steps."""
    from gitstore.sync.steps import STEPS

    if not isinstance(section, dict):
        raise InvalidInput(f"{where}: loop must be a JSON object")
    for key in section:
        if key not in _SECTION:
            raise InvalidInput(f"{where}: loop has an unknown field {key!r} (fields: {', '.join(sorted(_SECTION))})")
    by = section.get("by")
    if by is not None and not (isinstance(by, str) and by.strip()):
        raise InvalidInput(f"{where}: loop.by must be a person id such as git:bot@example.com")
    if by is not None:
        _acting(by, where)
    steps = section.get("steps", {})
    if not isinstance(steps, dict):
        raise InvalidInput(f"{where}: loop.steps must be a JSON object naming steps")
    for name in steps:
        if name not in STEPS:
            raise InvalidInput(f"{where}: loop.steps has an unknown step {name!r} (steps: {', '.join(STEPS)})")
    configured = tuple(_step(name, steps[name], f"{where}: loop.steps.{name}") for name in STEPS if name in steps)
    return LoopSettings(configured, by)


def _acting(by: str, where: str) -> None:
    """Refuse a ``loop.by`` every step would refuse as it ran (a bot, or no person id): taken,
    each tick would fail on it, step after step."""
    from gitstore.errors import UsageError
    from gitstore.records.identity import person

    try:
        person(by, given_as=f"{where}: loop.by")
    except UsageError as exc:
        raise InvalidInput(str(exc)) from None


def _step(name: str, value: Any, where: str) -> StepConfig:
    from gitstore.sync.steps import STEPS

    spec = STEPS[name]
    if not isinstance(value, dict):
        raise InvalidInput(f"{where} must be a JSON object")
    for key in value:
        if key not in _COMMON and key not in spec.options:
            known = ", ".join(sorted(_COMMON | set(spec.options)))
            raise InvalidInput(f"{where} has an unknown field {key!r} (fields: {known})")
    options: dict[str, Any] = {}
    for key, kind in spec.options.items():
        if key not in value:
            if key in spec.required:
                raise InvalidInput(f"{where} needs {key!r}")
            continue
        if not _is(value[key], kind):
            raise InvalidInput(f"{where}.{key} must be {_KIND_NAMES[kind]}")
        options[key] = value[key]
    every = parse_duration(value["every"], f"{where}.every") if "every" in value else spec.every
    timeout = parse_duration(value["timeout"], f"{where}.timeout") if "timeout" in value else spec.timeout
    if not MIN_EVERY <= every <= MAX_EVERY:
        raise InvalidInput(f"{where}.every must be between {format_duration(MIN_EVERY)} and {format_duration(MAX_EVERY)}")
    if not MIN_TIMEOUT <= timeout <= TIMEOUT_CEILING:
        raise InvalidInput(f"{where}.timeout must be between {MIN_TIMEOUT}s and {format_duration(TIMEOUT_CEILING)}")
    spec.check(options, where)
    return StepConfig(name, every, timeout, options)


_KIND_NAMES = {str: "a string", bool: "true or false", int: "a whole number"}


def _is(value: Any, kind: type) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)
