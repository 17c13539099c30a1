"""Route 1: the smallest section-level edit of the owning page.

The promoted block is inserted at the end of the owning section's own text, after one blank
line; nothing else of the page changes, and no other page is touched.
"""

from __future__ import annotations

from gitstore.errors import Refused
from gitstore.promote.routing import Owner
from gitstore.promote.snapshot import Snapshot


def render(snapshot: Snapshot, owner: Owner, block: str) -> str:
    """The owning page's new text: its text at the commit with ``block`` inserted."""
    text = snapshot.text(owner.page)
    if text is None:
        raise Refused(f"{owner.page} is not a UTF-8 text file at {snapshot.id[:12]}")
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split("\n")
    before, after = lines[:owner.line], lines[owner.line:]
    added = block.rstrip("\n").split("\n")
    if newline == "\r\n":
        added = [line + "\r" for line in added]
    blank = "\r" if newline == "\r\n" else ""
    middle = ([blank] if before else []) + added
    if after and after[0].strip():
        middle.append(blank)  # the next heading keeps a blank line above it
    if not after:
        after = [""]  # the page ends with a newline
    return "\n".join(before + middle + after)
