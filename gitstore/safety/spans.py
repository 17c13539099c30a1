"""What every finder of the scanner shares: the text under scan and the spans found in it.

A :class:`Text` holds the text and a lowercased copy of the same length, so a pattern matched
case-insensitively on the copy gives positions that are right in the original. A :class:`Hit`
is a span some rule wants replaced (a secret, a home folder); the scanner settles overlaps
between hits by their priority.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Text:
    """A text and a lowercased copy of the same length, so positions match in both."""

    raw: str
    low: str

    @classmethod
    def of(cls, text: str) -> Text:
        low = text.lower()
        if len(low) != len(text):  # a few letters lowercase to two characters: keep those
            low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
        return cls(text, low)


@dataclass(frozen=True)
class Hit:
    """A span to replace. PRIORITY decides overlaps (lower wins); INNER counts nested findings."""

    start: int
    end: int
    kind: str
    priority: int
    replacement: str | None = None
    inner: tuple[str, ...] = ()
    keep: bool = False  # a span known not to be a secret: kept as it is, and not looked into

    @property
    def text(self) -> str:
        return self.replacement if self.replacement is not None else f"[REDACTED:{self.kind}]"

    @property
    def kinds(self) -> tuple[str, ...]:
        return () if self.keep else self.inner or (self.kind,)


_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def starts_word(text: str, i: int, joiners: str = "") -> bool:
    """True when position I is not preceded by a word character (or one of JOINERS)."""
    return i == 0 or (text[i - 1] not in _WORD_CHARS and text[i - 1] not in joiners)


__all__ = ["Hit", "Text", "starts_word"]
