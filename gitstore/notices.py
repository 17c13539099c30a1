"""Things a command should tell the person besides its answer, collected while it runs.

Reads that leave something out (another clone's writer ref quarantined because its history
fails verification) go on with the rest; the person still needs to hear it, once, whatever
command they ran. The store notes each such line here; the command line prints every line
noted during a command on standard error when the command ends (``gitstore: warning: ...``).
"""

from __future__ import annotations

_NOTED: dict[str, None] = {}  # in the order first noted, each once


def note(line: str) -> None:
    """Remember one line to tell the person (repeats are kept once)."""
    _NOTED.setdefault(" ".join(line.split()), None)


def forget(containing: str) -> None:
    """Forget every line noted so far that holds ``containing``: what a command found stale and
    says better itself (sync names each fetched snapshot read with text kept, as it leaves it)."""
    for line in [line for line in _NOTED if containing in line]:
        del _NOTED[line]


def take() -> list[str]:
    """Every line noted since the last call, in order; forgets them."""
    lines = list(_NOTED)
    _NOTED.clear()
    return lines


__all__ = ["forget", "note", "take"]
