"""Characters that make a text read differently from what it says.

Quarantined (the scanner counts them by kind):

- ``bidi-control``: bidirectional embeddings, overrides, isolates and marks (Trojan Source).
- ``zero-width``: characters that show nothing: zero-width spaces and joiners, word joiners,
  invisible operators, deprecated format controls, the soft hyphen, the combining grapheme
  joiner, the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), Khmer's invisible vowels, the
  Mongolian vowel separator and free variation selectors, the braille blank, interlinear
  annotation marks, musical format symbols, shorthand format controls, Egyptian hieroglyph
  format controls, the code points Unicode reserves as default ignorable, and a byte order mark
  anywhere but at the start; outside the places a script or an emoji sequence needs them
  (ZWJ/ZWNJ between letters of a joining script, ZWSP between words of a script written
  without spaces, ZWJ between two emoji, a free variation selector after a Mongolian letter,
  braille blanks next to a braille pattern).
- ``control-char``: C0 and C1 control characters other than tab, newline and carriage return.
- ``tag-char``: Unicode tag characters (an invisible ASCII copy), except in an emoji flag
  sequence.
- ``variation-selector``: runs of variation selectors (a payload hidden one byte per
  selector); one selector after an ordinary character, or an ideographic variant, is fine.

Warned about, never quarantined (``mixed-script``): a single word mixing Latin letters with
Cyrillic, Greek, Armenian, Cherokee, Coptic or Lisu look-alikes, small capitals or IPA letters
(``sayНello``, ``ᴛoken``, ``ʜelper``), or with Latin letters in another form that NFKC makes
plain (``say𝙷ello``, ``ﬁle``, ``Ⅴalue``, ``sayＨello``). Text written in another script, or in
several, or a word wholly in one form (``ｓａｙＨｅｌｌｏ``), is legitimate, and so is a dotless i
(Turkish).
:func:`mixed_script_words` and :func:`lookalike_letters` name those words and the letters to
doubt in them, for the warning a person is given (:func:`mixed_script_warning`) and the mark
an agent reads beside each word.
:func:`latin_skeleton` maps those look-alikes, and Latin's dotless letters, to the Latin letters
they imitate, so other finders can read through them.
"""

from __future__ import annotations

import bisect
import functools
from collections import Counter

from gitstore.safety import lazy

_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
# Characters that show nothing, as a character class body, all but the zero-width joiner (which
# emoji sequences need): zero-width spaces and non-joiners, the word joiner and the invisible
# operators (U+2065 is reserved among them), deprecated format controls, the byte order mark,
# the soft hyphen, the combining grapheme joiner, the Hangul fillers, Khmer's invisible inherent
# vowels, Mongolian's vowel separator and free variation selectors, the braille blank,
# interlinear annotation marks, musical format symbols, shorthand format controls, Egyptian
# hieroglyph format controls, and the code points Unicode reserves as default ignorable (shown
# as nothing by a renderer that does not know them: U+FFF0-FFF8, and the tag block's beyond
# the tags and the variation selectors).
_ALWAYS_INVISIBLE = (
    "\u200b\u200c\u2060-\u2065\u206a-\u206f\ufeff\u00ad\u034f\u115f\u1160\u17b4\u17b5"
    "\u180b-\u180f\u2800\u3164\uffa0\ufff0-\ufffb\U0001d173-\U0001d17a\U0001bca0-\U0001bca3"
    "\U00013430-\U0001343f\U000e0080-\U000e00ff\U000e01f0-\U000e0fff"
)
_INVISIBLE = lazy.Pattern(f"[\u200d{_ALWAYS_INVISIBLE}]")
_BIDI_CLASS = "\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
_CONTROLS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
_SELECTORS_AND_TAGS = "\U000e0000-\U000e007f\ufe00-\ufe0f\U000e0100-\U000e01ef"
_HIDDEN = lazy.Pattern(f"[{_BIDI_CLASS}\u200d{_ALWAYS_INVISIBLE}{_SELECTORS_AND_TAGS}{_CONTROLS}]")
# What a reader skips: every hidden character but the control characters that break a line
# or a word (tab, line feed, vertical tab, form feed, carriage return, next line).
_IGNORABLE = lazy.Pattern(
    f"[{_BIDI_CLASS}\u200d{_ALWAYS_INVISIBLE}{_SELECTORS_AND_TAGS}\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f]+"
)
_LONG_RUN = 16  # in longer runs of hidden characters nothing is judged in context
_LONG_HIDDEN_RUN = lazy.Pattern(_HIDDEN.pattern + f"{{{_LONG_RUN + 1},}}")
# Characters whose kind depends on their neighbours: the zero-width joiner (emoji sequences),
# tag characters (flag sequences) and variation selectors; every other one is hidden anywhere.
_CONTEXTUAL = lazy.Pattern("[\u200d\U000e0000-\U000e007f\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_TAGS = lazy.Pattern("[\U000e0000-\U000e007f]")
_IN_CONTEXT = lazy.Pattern("[\u200d\ufe00-\ufe0f\U000e0100-\U000e01ef]")
_CONTEXT_FREE = lazy.Pattern(f"[{_BIDI_CLASS}{_ALWAYS_INVISIBLE}{_CONTROLS}]")
_FLAG_TAGS = lazy.Pattern("\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,6}\U000e007f")


def _ranges(*spans: tuple[int, int]) -> str:
    """A regex character class body for code point ranges."""
    return "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in spans)


# Scripts that need ZWJ/ZWNJ between their letters (Arabic, Syriac, NKo, Mandaic, the Indic
# scripts, Tibetan, Myanmar, Khmer, Mongolian), and scripts written without spaces that use ZWSP
# between words (Thai, Lao, Tibetan, Myanmar, Khmer, Balinese, Javanese).
_JOINING = _ranges(
    (0x0600, 0x077F), (0x07C0, 0x07FF), (0x0840, 0x085F), (0x08A0, 0x08FF), (0x0900, 0x0DFF),
    (0x0F00, 0x0FFF), (0x1000, 0x109F), (0x1780, 0x18AF), (0xFB50, 0xFDFF), (0xFE70, 0xFEFC),
)
_SPACELESS = _ranges(
    (0x0E00, 0x0EFF), (0x0F00, 0x0FFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x1B00, 0x1B7F),
    (0xA980, 0xA9DF),
)
# Joiners where their script needs them. They are taken out before the hidden-character scan:
# both their neighbours are letters, so no other hidden character's context changes.
_SCRIPT_JOINERS = lazy.Pattern(
    f"(?<=[{_JOINING}])[\u200c\u200d](?=[{_JOINING}])|(?<=[{_SPACELESS}])\u200b(?=[{_SPACELESS}])"
)
# Marks a script needs: a free variation selector after a Mongolian letter, braille blanks
# next to a braille pattern (braille text and braille art). Taken out the same way: what they
# touch is a letter or a braille pattern, which gives no neighbour a context.
_SCRIPT_MARKS = lazy.Pattern(
    "(?<=[\u1820-\u18aa])[\u180b-\u180d\u180f]|(?<=[\u2801-\u28ff])\u2800+|\u2800+(?=[\u2801-\u28ff])"
)
_SCRIPT_MARK = lazy.Pattern("[\u180b-\u180d\u180f\u2800]")


def _is_emoji(char: str) -> bool:
    code = ord(char)
    return code >= 0x1F000 or 0x2190 <= code <= 0x2BFF or char in "\ufe0f\u00a9\u00ae"


def _is_ideograph(char: str) -> bool:
    code = ord(char)
    return 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0x20000 <= code <= 0x3FFFF


def _is_variation_selector(char: str) -> bool:
    code = ord(char)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def _joiner_kind(text: str, i: int) -> str | None:
    """A zero-width joiner between two emoji builds one emoji; any other joiner is hidden."""
    if text[i] == "\u200d" and 0 < i < len(text) - 1:
        if _is_emoji(text[i - 1]) and _is_emoji(text[i + 1]):
            return None
    return "zero-width"


def _variation_selector_kind(text: str, i: int) -> str | None:
    """One selector after an ordinary character is legitimate; a run of them is a payload."""
    if i == 0 or _is_variation_selector(text[i - 1]):
        return "variation-selector"
    if i + 1 < len(text) and _is_variation_selector(text[i + 1]):
        return "variation-selector"
    if ord(text[i]) >= 0xE0100 and not _is_ideograph(text[i - 1]):
        return "variation-selector"
    return None


def _contextual_kind(text: str, i: int) -> str | None:
    """The quarantine kind of a zero-width joiner or a variation selector, whose kind depends
    on its neighbours, or None where it is legitimate there."""
    if text[i] == "\u200d":
        return _joiner_kind(text, i)
    return _variation_selector_kind(text, i)


def _contextual_counts(text: str, places: list[int]) -> Counter[str]:
    """The kinds of the joiners and selectors at ``places`` (in order), counted. A character's
    kind depends on it and its two neighbours alone (``_contextual_kind``), so the characters
    are counted by those three (cut out in C) and each three is judged once: a text of many
    emoji sequences is judged a sequence at a time, not a character at a time."""
    counts: Counter[str] = Counter()
    if places and places[0] == 0:  # the text's first character has no neighbour before it
        counts[_contextual_kind(text[:2], 0) or ""] += 1
        places = places[1:]
    around = Counter(map(text.__getitem__, map(slice, map((-1).__add__, places), map((2).__add__, places))))
    for three, n in around.items():
        counts[_contextual_kind(three, 1) or ""] += n
    del counts[""]  # legitimate where they stand
    return counts


@functools.lru_cache(maxsize=512)
def _static_kind(char: str) -> str:
    """The kind of a hidden character with hidden characters on both sides (no legitimate use)."""
    code = ord(char)
    if char in _BIDI:
        return "bidi-control"
    if _INVISIBLE.fullmatch(char):
        return "zero-width"
    if 0xE0000 <= code <= 0xE007F:
        return "tag-char"
    return "variation-selector" if _is_variation_selector(char) else "control-char"


class _Flags:
    """The emoji flag sequences of a text, to count the tag characters they hold in a span."""

    def __init__(self, text: str) -> None:
        self.starts: list[int] = []
        self.held = [0]  # tag characters in the flags before each one
        for m in _FLAG_TAGS.finditer(text):
            self.starts.append(m.start() + 1)  # where its tags start, after the black flag
            self.held.append(self.held[-1] + m.end() - m.start() - 1)

    def tags_within(self, start: int, end: int) -> int:
        """Tag characters of the flags whose tags lie between START and END (a flag's tags are
        one run of hidden characters: wholly inside or wholly outside a span no run crosses)."""
        first = bisect.bisect_left(self.starts, start)
        last = bisect.bisect_left(self.starts, end)
        return self.held[last] - self.held[first]


def hidden_counts(text: str) -> Counter[str]:
    """Counts of hidden, bidirectional and control characters, by kind.

    Most kinds do not depend on where a character stands and are counted in bulk, and so are
    tag characters (all but those of emoji flag sequences). Zero-width joiners and variation
    selectors are judged one at a time, in context, except inside a long run of hidden
    characters, which has no legitimate reading (emoji and flag sequences are short) and is
    counted in bulk. Linear in the text.
    """
    counts: Counter[str] = Counter()
    if "\u200b" in text or "\u200c" in text or "\u200d" in text:
        text = _SCRIPT_JOINERS.sub("", text)
    if not holds_hidden(text):
        return counts
    if _SCRIPT_MARK.search(text):
        text = _SCRIPT_MARKS.sub("", text)
        if not _HIDDEN.search(text):
            return counts
    for char, n in Counter(_CONTEXT_FREE.findall(text)).items():
        counts[_static_kind(char)] += n
    if text[0] == "\ufeff":
        counts["zero-width"] -= 1  # a byte order mark
    if _CONTEXTUAL.search(text):
        flags, position = _Flags(text), 0
        for run in (*_LONG_HIDDEN_RUN.finditer(text), None):
            end = run.start() if run else len(text)
            tags = len(_TAGS.findall(text, position, end)) - flags.tags_within(position, end)
            counts.update(_contextual_counts(text, [m.start() for m in _IN_CONTEXT.finditer(text, position, end)]))
            counts["tag-char"] += tags
            if run:
                counts.update(_static_kind(c) for c in _CONTEXTUAL.findall(run.group()))
                position = run.end()
    return +counts


def visible(text: str) -> str:
    """TEXT as it shows: every hidden character taken out but the control characters that
    break a line or a word, so that "Ig\\u00adnore" reads as "Ignore"."""
    return _IGNORABLE.sub("", text) if holds_hidden(text) else text


def holds_hidden(text: str) -> bool:
    """Whether TEXT holds a hidden, bidirectional or control character. Most texts are ASCII,
    where only control characters can be: their bytes are found by deleting every other (in C,
    a byte at a time) rather than by searching for the whole class (eight times slower over the
    bench's wiki)."""
    if text.isascii():
        return bool(text.encode("ascii").translate(None, _ascii_shown()))
    return _HIDDEN.search(text) is not None


@functools.cache
def _ascii_shown() -> bytes:
    """The ASCII characters that are not hidden (``_HIDDEN``), as bytes."""
    return bytes(b for b in range(128) if not _HIDDEN.match(chr(b)))


# --- look-alikes ------------------------------------------------------------------------------

# Greek, Cyrillic, Armenian, Cherokee (and its small letters), Coptic and Lisu, Latin's small
# capitals and the IPA letters that imitate Latin ones (``ɑ ɡ ɪ ʏ ɢ ʜ ʟ ɴ ʀ``), and the dental
# click ``ǀ``, which stand beside Latin letters in no word of any language but Khoekhoe's.
_CG = (
    "\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f\u0530-\u058f\u13a0-\u13ff\uab70-\uabbf\u2c80-\u2cff"
    "\ua4d0-\ua4ff\u1d00-\u1d22\ua731\u0251\u0261\u026a\u028f\u0262\u029c\u029f\u0274\u0280\u01c0"
)
# Latin letters in another form, which NFKC makes plain: letterlike symbols (``ℋ``, the Kelvin
# sign), Roman numerals, ligatures (``ﬁ``), full-width letters and mathematical alphanumerics
# (``𝙷``). A word written wholly in one of those forms is a style (``ｓａｙＨｅｌｌｏ``); one of
# them among plain Latin letters (``say𝙷ello``, ``ﬁle``) is not the word it seems. Superscripts,
# subscripts and circled letters look smaller than the letter, and are not among them.
_COMPAT_LATIN = (
    "\u2102\u2107\u210a-\u2113\u2115\u2119-\u211d\u2124\u2128\u212a-\u212d\u212f-\u2131\u2133\u2134"
    "\u2145-\u2149\u2160-\u217f\ufb00-\ufb06\uff21-\uff3a\uff41-\uff5a\U0001d400-\U0001d6a5"
)
_LATIN_OR_DIGIT = "A-Za-z0-9_\u00c0-\u024f"
# One of those letters touching a Latin letter, digit or underscore: a word may mix scripts.
_SCRIPT_SEAM = lazy.Pattern(f"[{_CG}{_COMPAT_LATIN}](?:(?<=[{_LATIN_OR_DIGIT}].)|(?=[{_LATIN_OR_DIGIT}]))")
_LATIN = lazy.Pattern("[A-Za-z\u00c0-\u024f]")
_WORD = lazy.Pattern(r"\w+")
# Letters of other alphabets that look like Latin ones, and the letter each imitates:
# Cyrillic, Greek, Armenian, Cherokee, Coptic and Lisu ones (the capitals, and their small
# forms), and Latin's own dotless i and j, small capitals, IPA letters and dental click (which
# no compatibility folding maps to the letters they show).
_LOOKALIKE_PAIRS = (
    ("АВЕЅІЈКМНОРСТУХЁЇѴӀаеорсухѕіјԁһӏԛԝүёїѵ", "ABESIJKMHOPCTYXEIVIaeopcyxsijdhlqwyeiv"),  # Cyrillic
    ("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹͿαικνορτυχϲϳ", "ABEZHIKMNOPTYXCJaikvoptuxcj"),  # Greek
    ("ՍՕօսցհոռզ", "UOoughnnq"),  # Armenian
    ("ᎠᎡᎢᎥᎩᎪᎫᎬᏃᎷᎻᏀᏒᏔᏕᏙᏚᏞᏟᏢᏦᏴ", "DRTiYAJEZMHGRWSVSLCPKB"),  # Cherokee capitals
    ("ⲂⲎⲒⲌⲔⲘⲚⲞⲢⲤⲦⲨⲬⲟⲣⲥⲭ", "BHIZKMNOPCTYXopcx"),  # Coptic
    ("ꓐꓑꓒꓓꓔꓖꓗꓙꓚꓜꓝꓟꓠꓡꓢꓣꓦꓧꓪꓫꓬꓮꓰꓲꓳꓴ", "BPdDTGKJCZFMNLSRVHWXYAEIOU"),  # Lisu
    ("ıȷɑɡɪʏᴀʙᴄᴅᴇɢʜᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡᴢǀ", "ijagiyabcdeghjklmnoprstuvwzl"),  # Latin
)
_LOOKALIKES = str.maketrans(
    "".join(f for f, _ in _LOOKALIKE_PAIRS) + "ᎠᎡᎢᎥᎩᎪᎫᎬᏃᎷᎻᏀᏒᏔᏕᏙᏚᏞᏟᏢᏦᏴ".lower(),
    "".join(t for _, t in _LOOKALIKE_PAIRS) + "DRTiYAJEZMHGRWSVSLCPKB".lower(),
)
_CONFUSABLES = frozenset(chr(code) for code in _LOOKALIKES)
_ANY_CONFUSABLE = lazy.Pattern("[" + "".join(sorted(_CONFUSABLES)) + "]")
_DOUBTFUL = lazy.Pattern("[" + "".join(sorted(_CONFUSABLES)) + _COMPAT_LATIN + "]")
_PLAIN_LATIN = lazy.Pattern("(?!" + _DOUBTFUL.pattern + ")" + _LATIN.pattern)


def latin_skeleton(text: str) -> str:
    """TEXT with every look-alike (``_LOOKALIKE_PAIRS``) replaced by the Latin letter it
    imitates (same length, so positions match)."""
    return text.translate(_LOOKALIKES) if _ANY_CONFUSABLE.search(text) else text


def as_read(text: str) -> str:
    """TEXT as a reader takes it in, to compare with what only a program writes: HTML entities
    decoded (a renderer shows ``gitst&#111;re`` as ``gitstore``, and an agent reading the raw
    text reads it so), hidden characters dropped, compatibility forms (full-width, ligatures)
    and look-alike letters made plain, and case, spaces and punctuation ignored."""
    import re
    import unicodedata

    if "&" in text:
        import html

        text = html.unescape(text)
    return re.sub(r"[\W_]+", "", latin_skeleton(unicodedata.normalize("NFKC", visible(text))).casefold())


def mixed_script_count(text: str) -> int:
    """Words that mix Latin letters with look-alikes from another alphabet (Cyrillic, Greek,
    Armenian, Cherokee, Coptic, Lisu), small capitals, IPA letters, or Latin letters in another
    form (mathematical, full-width, ligatures, Roman numerals); a dotless i is Turkish, and not
    counted."""
    return len(mixed_script_spans(text))


def mixed_script_spans(text: str) -> list[tuple[int, int]]:
    """Where the words ``mixed_script_count`` counts stand in TEXT: (start, end) of each, in
    order. Only a text holding a letter of those alphabets beside a Latin one is searched
    further, so an ASCII text costs one test."""
    spans: list[tuple[int, int]] = []
    if text.isascii():
        return spans
    covered = -1
    for seam in _SCRIPT_SEAM.finditer(text):
        if seam.start() < covered:
            continue
        start = seam.start()
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        word = _WORD.match(text, start)
        covered = word.end() if word else seam.end()
        if word and _mixes(word.group()):
            spans.append(word.span())
    if other := _two_alphabet_spans(text):
        spans = sorted(dict.fromkeys(spans + other))
    return spans


# The look-alikes of each alphabet but Latin's own, by alphabet: a word of look-alikes from two of
# them (Greek ``Α`` then Cyrillic ``ӏ``: "Αӏ", shown as "AI") holds no plain Latin letter, yet is
# written in no language; IPA, which borrows Greek letters, is left to the Latin-letter rule.
_ALPHABET_OF = {
    char: alphabet
    for alphabet, (letters, _) in enumerate(_LOOKALIKE_PAIRS[:-1])
    for char in letters + (letters.lower() if alphabet == 3 else "")
}

_ALPHABETS = tuple(
    "".join(char for char, of in _ALPHABET_OF.items() if of == alphabet) for alphabet in sorted(set(_ALPHABET_OF.values()))
)
_IN_ALPHABET = tuple(lazy.Pattern(f"[{letters}]") for letters in _ALPHABETS)
# A word holding a look-alike of one alphabet followed by one of another. Tried only where a word
# starts (``\b``), and read through once from there: linear in the text.
_TWO_ALPHABET_WORD = lazy.Pattern(
    r"\b\w*?(?:"
    + "|".join(
        f"[{letters}](?=[{''.join(other for other in _ALPHABETS if other != letters)}])" for letters in _ALPHABETS
    )
    + r")\w*"
)


def _two_alphabet_spans(text: str) -> list[tuple[int, int]]:
    """Where TEXT has a word holding look-alikes of two alphabets side by side (``_ALPHABET_OF``).
    Only a text holding look-alikes of two alphabets is searched further."""
    present = 0
    for alphabet in _IN_ALPHABET:
        present += alphabet.search(text) is not None
        if present == 2:
            return [word.span() for word in _TWO_ALPHABET_WORD.finditer(text)]
    return []


def _mixes(word: str) -> bool:
    """Whether WORD holds both a plain Latin letter and one that only looks like one (a
    look-alike, or a Latin letter in another form)."""
    return _DOUBTFUL.search(word) is not None and _PLAIN_LATIN.search(word) is not None


def mixed_script_words(*texts: str) -> list[str]:
    """The distinct words of TEXTS that ``mixed_script_count`` counts, in the order they come:
    what a warning of ``mixed-script`` is about."""
    words = [text[start:end] for text in texts for start, end in mixed_script_spans(text)]
    return list(dict.fromkeys(words))


_FOREIGN = lazy.Pattern(f"[{_CG}{_COMPAT_LATIN}]")


def lookalike_letters(word: str) -> list[str]:
    """The letters of a mixed-script WORD that are not the Latin letters they look like, each
    once, by code point and Unicode name (``U+041D CYRILLIC CAPITAL LETTER EN``): on a screen
    ``sayНello`` is ``sayHello``, so a person or an agent is told which letters to doubt."""
    import unicodedata

    letters = [c for c in dict.fromkeys(word) if not c.isascii() and (_DOUBTFUL.match(c) or _FOREIGN.match(c))]
    return [f"U+{ord(c):04X} {unicodedata.name(c, '')}".rstrip() for c in letters]


def spelled_out(word: str) -> str:
    """A mixed-script WORD with the letters to doubt in it named: ``sayНello (U+041D CYRILLIC
    CAPITAL LETTER EN)``."""
    return f"{word} ({', '.join(lookalike_letters(word))})"


MIXED_SCRIPT_MEANS = "a Latin word with look-alike letters is not the word it seems"


def mixed_script_warning(*texts: str) -> str | None:
    """The warning a person is given about the mixed-script words of TEXTS, each spelled out
    (``spelled_out``), or None when there is none."""
    words = mixed_script_words(*texts)
    if not words:
        return None
    return f"mixed-script: {', '.join(map(spelled_out, words))}: {MIXED_SCRIPT_MEANS}"



__all__ = ["hidden_counts", "latin_skeleton", "lookalike_letters", "mixed_script_count", "mixed_script_spans",
           "mixed_script_warning", "mixed_script_words", "spelled_out", "visible"]
