"""Texts kept within their bounds: a transcript's turn or command, a review comment.

A text over its bound is cut back to the last space, tab or line break before it (never part of
a word: the cut end of a token keeps enough of it, its first characters and its checksum, to
give it away while the safety scanner no longer recognizes it), and ends with a note saying how
many characters were left out.
"""

from __future__ import annotations


def cut(text: str, size: int) -> str:
    """TEXT's first SIZE characters, less the word the cut would split (back to the last
    space, tab or line break): transcripts' texts are bounded as they are read, before the
    safety scanner sees them, and the cut end of a token keeps enough of it (its first
    characters and its checksum) to give it away while the scanner no longer recognizes it.
    A text that fits is whole."""
    if len(text) <= size:
        return text
    kept = text[:size]
    if text[size] in _BREAKS or not kept or kept[-1] in _BREAKS:
        return kept
    return kept[: max(kept.rfind(space) for space in _BREAKS) + 1]


_BREAKS = " \t\r\n"


def bounded(text: str, limit: int) -> tuple[str, int]:
    """TEXT within LIMIT characters, and how many it left out (0: it fits, whole): else cut
    (``cut``: never part of a word) with a note saying how many were left out, which the LIMIT
    holds too."""
    if len(text) <= limit:
        return text, 0
    kept = cut(text, limit - _NOTE_ROOM)
    left = len(text) - len(kept)
    return kept + truncation_note(left), left


def truncation_note(count: int) -> str:
    """What ends a text cut short: how many characters of it were left out."""
    return f"\n[gitstore: {count} more characters truncated]"


_NOTE_ROOM = 64  # at least the note's length, whatever the count


__all__ = ["bounded", "cut", "truncation_note"]
