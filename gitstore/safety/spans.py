"""What every finder of the scanner shares: the text under scan and the spans found in it.

A :class:`Text` holds the text and a lowercased copy of the same length, so a pattern matched
case-insensitively on the copy gives positions that are right in the original (its spaces of
other widths, a no-break space, read as spaces, as they are on screen); finders that
only count (injected instructions, commands) read its :attr:`Text.reading`, the text as a
reader takes it in whatever its disguise. A :class:`Hit` is a span some rule wants replaced (a
secret, a home folder); the scanner settles overlaps between hits by their priority.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import NamedTuple

from gitstore.safety import lazy
from gitstore.safety.hidden import latin_skeleton, visible
from gitstore.safety.rendered import renderings

# Markdown emphasis and code marks split words for the eye but not for a reader: ``*``, `` ` ``
# and ``~`` anywhere, an underscore at the edge of a word (``_AI_``), never inside one
# (``ignore_previous``). That is ``(?<![^\W_])_+|_+(?![^\W_])`` with its first underscore taken
# out in front, so the engine skips ahead to each underscore: opening with a look-behind, the
# pattern was tried at every character of a text, some 0.05 us a byte of code.
_EDGE_UNDERSCORES = lazy.Pattern(r"_(?:(?<=(?<![^\W_])_)_*|_*(?![^\W_]))")
# The combining marks of the blocks that set diacritics on Latin, Greek and Cyrillic letters.
_DIACRITICS = lazy.Pattern("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")
# Latin letters drawn with a stroke or a bar through them, which no decomposition takes off (so
# ``ø`` and ``ł`` keep them where NFD parts ``ö`` into ``o`` and a mark): a reader takes the
# letter under the stroke in, ``Ignøre ałł previøus`` as ``Ignore all previous``. Read so only
# for :attr:`Text.reading` (Danish and Polish words are no look-alikes: nothing else changes).
_STROKED = str.maketrans("øØłŁđĐħĦŧŦƀɃɨƗʉɄƶƵǥǤɇɆꝁꝀȼȻɍɌɏɎ", "oOlLdDhHtTbBiIuUzZgGeEkKcCrRyY")
# Every space of Unicode that is not the ASCII one (its category Zs): a screen shows each as a
# space, so ``password =\u00a0value`` and ``Bearer\u2009token`` read as assignments and headers.
_SPACES = str.maketrans(dict.fromkeys([0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000], " "))
_OTHER_SPACE = lazy.Pattern("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")


class Text:
    """A text and a lowercased copy of the same length, so positions match in both."""

    # Where a tool's output starts when the text is the command it answers, a line, then it
    # (the scanner's ``context``): what a command found before prints is a tool's output.
    output_start = 0

    def __init__(self, raw: str, low: str) -> None:
        self.raw = raw
        self.low = low

    @classmethod
    def of(cls, text: str) -> Text:
        if text.isascii():
            return cls(text, text.lower())
        spaced = text.translate(_SPACES)
        low = spaced.lower()
        if len(low) != len(text):  # a few letters lowercase to two characters: keep those
            low = "".join(c.lower() if len(c.lower()) == 1 else c for c in spaced)
        return cls(text, low)

    @property
    def spaced(self) -> str:
        """:attr:`raw` with its spaces of other widths as ASCII spaces (positions unchanged)."""
        if self.raw.isascii() or _OTHER_SPACE.search(self.raw) is None:
            return self.raw  # a search costs a fraction of a translation (a table of a dict)
        return self.raw.translate(_SPACES)

    @functools.cached_property
    def reading(self) -> str:
        """The text as a reader takes it in: hidden characters left out (a soft hyphen inside
        a word does not split it), compatibility forms folded (NFKC: fullwidth, mathematical
        and other styled letters, odd spaces), look-alikes from other alphabets read as the
        Latin letters they imitate, diacritics left out, markdown emphasis marks read as
        spaces, in lower case. Its positions do not match :attr:`raw`."""
        text = self.low if self.raw.isascii() else self.reading_cased.lower()
        text = text.replace("*", " ").replace("`", " ").replace("~", " ")
        return _EDGE_UNDERSCORES.sub(" ", text) if "_" in text else text

    @functools.cached_property
    def renderings(self) -> tuple[Text, ...]:
        """The text as a renderer shows its inline markup (:mod:`~gitstore.safety.rendered`:
        tags and comments left out, entities decoded, links read as their text, a quote's and a
        table's marks as spaces, a word split at a line's end joined), code kept as written;
        none when it holds no such markup. Finders that only count read these too."""
        return tuple(Text.of(copy) for copy in renderings(self.raw))

    @functools.cached_property
    def reading_cased(self) -> str:
        """:attr:`reading` with the case as written, emphasis marks kept. Accents and other
        diacritics set on a letter are left out (``Ïgnore``, ``Ig\u0308nore`` read as
        ``Ignore``), and so are strokes and bars through one (``Ignøre``): a reader takes the
        letter under them in."""
        text = self.raw
        if not text.isascii():
            text = latin_skeleton(unicodedata.normalize("NFKC", visible(text)))
            if not text.isascii():
                text = _DIACRITICS.sub("", unicodedata.normalize("NFD", text)).translate(_STROKED)
        return text


class Hit(NamedTuple):
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
