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


def take() -> list[str]:
    """Every line noted since the last call, in order; forgets them."""
    lines = list(_NOTED)
    _NOTED.clear()
    return lines


__all__ = ["note", "take"]
