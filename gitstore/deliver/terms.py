"""Words for lexical recall, in any script, without ICU.

Text is normalised (NFKC, so full-width letters and half-width katakana become their usual
forms, then case-folded) and cut into runs of letters, digits and combining marks. Each run is
split by script:

- scripts written without spaces between words (Han, Hiragana, Katakana, Hangul, Thai, Lao,
  Khmer, Myanmar) give overlapping character bigrams, the usual ICU-free segmentation for
  Chinese and Japanese (a run of one character gives itself). Korean is spaced, but particles
  stick to the word before them (``저장소에서``), so its syllables are paired the same way and
  ``저장소`` still meets ``저장소에서``;
- every other script is split at Unicode word boundaries, then at underscores and camel case
  (``exponentialBackoff`` gives ``exponential`` and ``backoff``). Words in plain ASCII are
  stemmed with the Snowball English stemmer (``retries`` and ``retry`` meet); words with other
  letters (Vietnamese syllables, accented Latin) are kept whole, tone marks included, since in
  Vietnamese they tell words apart.

A short list of English function words is dropped. The same function segments the learnings
and the query, so whatever it does, both sides agree. It is written with string methods only:
the agent hook segments every prompt, and ``re`` costs milliseconds to import.
"""

from __future__ import annotations

import unicodedata

TYPE_CHECKING = False  # the agent hook imports this module: typing stays out of its start-up
if TYPE_CHECKING:
    from collections.abc import Iterator

# Unicode blocks of scripts written without spaces between words.
_UNSPACED = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x31FF),  # Bopomofo, Hangul compatibility Jamo, Katakana extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA960, 0xA97F),  # Hangul Jamo extended A
    (0xAC00, 0xD7FF),  # Hangul syllables and Jamo extended B
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width katakana (NFKC folds most of them)
    (0x20000, 0x3134F),  # CJK extensions B-G
)

STOPWORDS = frozenset(
    "a an and are as at be been but by can could did do does for from had has have how i if in "
    "into is it its me my no not of on or our so than that the their them then there these they "
    "this those to us was we were what when where which while who why will with would you your "
    "please should must".split()
)

_stemmer = None


def _unspaced(char: str) -> bool:
    code = ord(char)
    return code >= 0x0E00 and any(low <= code <= high for low, high in _UNSPACED)


def _word_char(char: str) -> bool:
    return char.isalnum() or char == "_" or (char > "\x7f" and unicodedata.category(char)[0] == "M")


def fold(text: str) -> str:
    """Case-folded, in NFC (case folding can decompose)."""
    return unicodedata.normalize("NFC", text.casefold())


def _stem(word: str) -> str:
    global _stemmer
    if _stemmer is None:
        try:
            import Stemmer

            _stemmer = Stemmer.Stemmer("english")
        except ImportError:  # pragma: no cover - PyStemmer is a dependency; without it words stay whole
            _stemmer = False
    return _stemmer.stemWord(word) if _stemmer else word  # type: ignore[union-attr]


def _runs(text: str) -> Iterator[str]:
    """Maximal runs of word characters."""
    start = -1
    for index, char in enumerate(text):
        if _word_char(char):
            if start < 0:
                start = index
        elif start >= 0:
            yield text[start:index]
            start = -1
    if start >= 0:
        yield text[start:]


def _pieces(run: str) -> Iterator[tuple[bool, str]]:
    """A run cut where it passes between unspaced and spaced scripts: (unspaced?, piece)."""
    start = 0
    kind = _unspaced(run[0])
    for index in range(1, len(run)):
        now = _unspaced(run[index])
        if now != kind:
            yield kind, run[start:index]
            start, kind = index, now
    yield kind, run[start:]


def _bigrams(piece: str) -> Iterator[str]:
    if len(piece) == 1:
        yield piece
        return
    for index in range(len(piece) - 1):
        yield piece[index:index + 2]


def _camel(part: str) -> Iterator[str]:
    """``exponentialBackoff`` as ``exponential`` and ``Backoff``: cut before an ASCII capital
    that follows a lowercase ASCII letter or a digit."""
    start = 0
    for index in range(1, len(part)):
        before, char = part[index - 1], part[index]
        if "A" <= char <= "Z" and ("a" <= before <= "z" or "0" <= before <= "9"):
            yield part[start:index]
            start = index
    yield part[start:]


def _words(piece: str) -> Iterator[str]:
    """Words of a spaced piece: split at underscores and camel case, ASCII ones stemmed."""
    for part in piece.split("_"):
        for word in _camel(part) if part else ():
            word = fold(word)
            if (len(word) < 2 and not word.isdigit()) or word in STOPWORDS:
                continue
            yield _stem(word) if word.isascii() and word.isalnum() else word


def terms(text: str) -> list[str]:
    """Every term of ``text``, in order, with repeats (term frequency counts)."""
    found: list[str] = []
    for run in _runs(unicodedata.normalize("NFKC", text)):
        for unspaced, piece in _pieces(run):
            found.extend(_bigrams(fold(piece)) if unspaced else _words(piece))
    return found


def query_terms(text: str, limit: int = 128) -> list[str]:
    """The distinct terms of a query, in first-seen order, at most ``limit``."""
    return list(dict.fromkeys(terms(text)))[:limit]
