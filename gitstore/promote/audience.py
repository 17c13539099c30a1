"""Audience re-checked at promotion: a project claim must stand on the repository alone.

The consolidator classifies a learning's audience when it proposes it; promotion does not take
that on trust. A ``project`` learning is promoted into shared canon only when neither its text
nor its evidence depends on one person's machine: no home paths, no machine names, no
credentials, and (in the claim itself) nothing specific to one agent harness. Environment traces
in the evidence make a claim user tooling, however often it recurs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_HOME = re.compile(
    r"(?<![\w/.~-])(?:/home/[^/\s]+|/Users/[^/\s]+|/root(?=/)|[A-Za-z]:\\Users\\[^\\\s]+|~/|~[a-z_][\w-]*/)"
    r"|\$HOME\b|%USERPROFILE%|\$\{HOME\}"
)
_MACHINE = re.compile(
    r"\b[A-Za-z0-9][\w-]*\.(?:local|lan|localdomain|internal|home\.arpa)\b"
    r"|\b[a-z_][\w.-]*@[A-Za-z0-9][\w-]*(?:\.[\w-]+)*:[~/]"
    r"|\b(?:10(?:\.\d{1,3}){3}|192\.168(?:\.\d{1,3}){2}|172\.(?:1[6-9]|2\d|3[01])(?:\.\d{1,3}){2})\b"
)
_HARNESS = re.compile(
    r"\bclaude[ -]code\b|\bCLAUDE\.md\b|(?<![\w.])\.claude/|\bcodex\b|(?<![\w.])\.codex/|\bgemini[ -]cli\b"
    r"|(?<![\w.])\.gemini/|\bopencode\b"
    r"|\b(?:SessionEnd|SessionStart|PreCompact|PostCompact|PreCompress|UserPromptSubmit|PreToolUse|PostToolUse)\b",
    re.IGNORECASE,
)
_REDACTED = re.compile(r"\[REDACTED:([a-z0-9-]+)\]")


def traces(text: str, *, harness: bool = True) -> list[str]:
    """What in ``text`` ties it to one machine or harness, each as a short phrase naming it."""
    found = []
    if match := _HOME.search(text):
        found.append(f"a home path ({match.group(0)})")
    if match := _MACHINE.search(text):
        found.append(f"a machine name ({match.group(0)})")
    credentials = sorted(set(_REDACTED.findall(text)) | _secrets(text))
    if credentials:
        found.append(f"a credential ({', '.join(credentials)})")
    if harness and (match := _HARNESS.search(text)):
        found.append(f"harness specifics ({match.group(0)})")
    return found


def _secrets(text: str) -> set[str]:
    from gitstore.safety.scanner import REDACT, default_scanner

    result = default_scanner().scan(text)
    return {f.kind for f in result.findings if f.action == REDACT and f.kind != "home-path"}


def claim_traces(title: str, text: str) -> list[str]:
    """Environment traces in a claim (its title and text)."""
    return traces(f"{title}\n{text}")


def evidence_traces(texts: Iterable[tuple[str, str]]) -> list[str]:
    """Environment traces in evidence, each naming the event: ``texts`` is (event id, text)
    pairs. Evidence may name a harness (sessions run in one); it may not hold a home path, a
    machine name or a credential."""
    found = []
    for event_id, text in texts:
        found += [f"evidence {event_id} holds {trace}" for trace in traces(text, harness=False)]
    return found
