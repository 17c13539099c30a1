"""Whether a harness's own settings switch its hooks off, read as the harness reads them.

A harness reads several settings files (the user's, the project's, a local one), and a later
file overrides an earlier one. Each adapter says which files those are, in that order, and what
one file says about its hooks: on, off (and why), or nothing. The last file that says something
decides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from gitstore.errors import InvalidInput

# What one file says: (True, why) on, (False, why) off, None nothing.
Verdict = tuple[bool, str] | None


def switched_off(files: Iterable[Path], says: Callable[[str], Verdict]) -> str | None:
    """Why FILES (lowest precedence first) switch the hooks off, or None when they leave them on.
    Files that are missing or unreadable say nothing (status reports those)."""
    last: Verdict = None
    for path in files:
        try:
            verdict = says(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, InvalidInput):
            continue
        if verdict is not None:
            last = (verdict[0], f"{verdict[1]} in {path}")
    return None if last is None or last[0] else last[1]
