"""The words of evidence text as the dream compares them.

Texts are compared by their content terms: words lowercased and reduced to their Snowball stem
(PyStemmer, the maintained C build of the Snowball stemmers), without stop words or review
chatter; identifiers and code spans kept whole as well as split into words; file paths turned
into globs. Quoted lines (``> ...``), HTML block quotes and fenced code blocks are masked: they
repeat someone else's words or code rather than state anything. Masking keeps every position,
so a span found here points into the stored text. Everything here is deterministic and offline.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from operator import itemgetter

from gitstore.safety.hidden import latin_skeleton, visible
from gitstore.safety.rendered import rendered

# English function words, then the words every review or agent turn is made of ("please",
# "should", "lgtm"): none of them says what a rule is about.
STOP_WORDS = frozenset("""
a about above after again against all also although always am an and any are aren't as at be
because been before being below between both but by can cannot could couldn't did didn't do does
doesn't doing don't down during each either else even ever every few for from further had hadn't
has hasn't have haven't having he her here hers herself him himself his how however i if in into
is isn't it it's its itself just let let's like may me might mine more most much must mustn't my
myself neither no nor not now of off on once only or other ought our ours ourselves out over own
per rather same shall she should shouldn't since so some such than that that's the their theirs
them themselves then there these they this those though through thus to too under until up upon
us very via was wasn't we were weren't what when where whether which while who whom whose why
will with within without won't would wouldn't yet you your yours yourself yourselves
already another anything each else etc everything instead least less lot lots many maybe
nothing one ones perhaps quite really seems something still sure thing things way ways well
able actually again ago anyway around away back basically certainly clearly definitely
probably simply
please pls plz thanks thank thx lgtm nit nits ptal ack nack sgtm wdyt imo imho fyi btw tbh
think guess agree agreed suggest suggestion wonder want wants need needs needed make makes making
made use uses using used get gets got getting keep keeps add adds added adding change changes
changed changing fix fixes fixed fixing update updated see look looks looking good great nice
fine ok okay yes yeah done right wrong new old here there code line lines file files comment
comments pr review reviewer patch diff commit this above below same case cases time times also
instead first last next now later today tomorrow soon again bit little otherwise heads
""".split())

_WORD = re.compile(r"[^\W\d_](?:[^\W_]|['’][^\W\d_])*")
_CODE_SPAN = re.compile(r"`([^`\n]{1,120})`")
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_QUOTE_LINE = re.compile(r"^[ \t]*>[^\n]*", re.MULTILINE)
# the headings capture writes into a session's summary (``Task: ...\nOutcome: ...``)
_SUMMARY_HEADINGS = re.compile(r"\ATask: |(?<=\n)Outcome: |\[not captured\]")
_BLOCKQUOTE = re.compile(r"<blockquote\b[^>]*>(.*?)(?:</blockquote\s*>|\Z)", re.IGNORECASE | re.DOTALL)
_IDENTIFIER = re.compile(
    r"(?<![\w./-])(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|[A-Za-z]+_[A-Za-z0-9_]+"
    r"|[a-z]+[A-Z][A-Za-z0-9]*)(?:\(\))?(?![\w/])"
)
_PATH = re.compile(r"(?<![\w~/.-])(?:[\w.-]+/)+[\w.-]*\.[A-Za-z0-9]{1,8}(?![\w/])|(?<![\w/])\*\.[A-Za-z0-9]{1,8}\b")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")
_LEAD = re.compile(r"^[^,:]{1,40}[,:]\s*")
_MAYBE_IDENTIFIER = re.compile(r"[a-z][A-Z]|\w_\w|[A-Za-z_]\.[A-Za-z_]")
_SPLIT_IDENTIFIER = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
MIN_STEM = 3


# One content word: its stem, and where it starts and ends in the text (a plain tuple: cheap
# to make, and few are held at once: a corpus keeps its texts' words as ``spelt`` and ``spans``).
Word = tuple[str, int, int]


def spans_of(words: Iterable[Word]) -> array[int]:
    """Where each word starts and ends, two numbers per word, 4 bytes each: a corpus of
    millions of words keeps them in a few megabytes, not in a tuple and two numbers apiece."""
    return array("I", chain.from_iterable(map(_POSITIONS, words)))


def with_spans(spelt: tuple[str, ...], spans: array[int]) -> Iterator[Word]:
    """The words again, (word, start, end), from ``spelt`` and ``spans_of``'s positions."""
    return zip(spelt, spans[0::2], spans[1::2])


@dataclass(frozen=True, slots=True)
class Tokens:
    """The content of one text: its running words (stop words included, so words written apart
    can be joined: ``spelt``, lowercased, each word one shared string for the whole corpus, and
    where each starts and ends, two per word in ``spans``), words found inside identifiers and
    code spans, identifiers, path globs."""

    spelt: tuple[str, ...]
    spans: array[int]
    inner: tuple[Word, ...]
    identifiers: tuple[Word, ...]
    globs: tuple[str, ...]

    def stems(self) -> set[str]:
        """The stems of its content words: what a corpus vocabulary is made of."""
        found = {w[0] for w in self.inner}
        found.update(stem(w) for w in set(self.spelt) - STOP_WORDS)
        return found

    def words(self, vocabulary: Vocabulary | None = None) -> tuple[Word, ...]:
        """Content words in order, as the vocabulary (a corpus's stems) writes them: two
        running words written apart become one ("roll back" -> "rollback" when "rollbacks" is
        in the corpus), and a negated word its root ("irreversible" -> "reversible", when the
        root is in the corpus: the same subject, whichever side of it a text takes)."""
        vocabulary = vocabulary or _EMPTY
        out: list[Word] = list(self.inner)
        spelt, spans = self.spelt, self.spans
        heads, base_of, stems = vocabulary.heads, vocabulary.base, vocabulary.stems
        last = len(spelt) - 1
        i = 0
        while i <= last:
            word, start, end = spelt[i], spans[2 * i], spans[2 * i + 1]
            if word in heads and i < last:
                nxt, nend = spelt[i + 1], spans[2 * i + 3]
                if spans[2 * i + 2] - end <= 2:
                    joined = stem(word + nxt)
                    if joined in stems:
                        out.append((joined, start, nend))
                        i += 2
                        continue
            base = base_of.get(word)
            if base is None:
                base = vocabulary.resolve(word)
            if base:
                out.append((base, start, end))
            i += 1
        if self.inner:
            out.sort(key=lambda w: w[1])
        return tuple(out)

    def terms(self, vocabulary: Vocabulary | None = None) -> set[str]:
        """Every term: content word stems and whole identifiers (``id:...``)."""
        return {w[0] for w in self.words(vocabulary)} | {i[0] for i in self.identifiers}


@dataclass(frozen=True)
class Vocabulary:
    """A corpus's stems, what the first word of a compound can be (their beginnings), and each
    running word's content stem, worked out once per word ("" for a stop word)."""

    stems: frozenset[str]
    heads: frozenset[str]
    base: dict[str, str]

    @classmethod
    def of(cls, stems: set[str] | frozenset[str]) -> Vocabulary:
        heads = {s[:i] for s in stems if len(s) >= 5 for i in range(2, len(s) - 1)}
        return cls(frozenset(stems), frozenset(heads), {})

    def resolve(self, word: str) -> str:
        """The content stem of a running word ("" when it says nothing), remembered."""
        if word in STOP_WORDS:
            found = ""
        else:
            found = stem(word)
            if found[:2] in _NEGATING and self.stems:
                found = _root(found, self.stems)
            if len(found) < MIN_STEM:
                found = ""
        if len(self.base) > 500_000:
            self.base.clear()
        self.base[word] = found
        return found


_EMPTY = Vocabulary(frozenset(), frozenset(), {})


_STEMS: dict[str, str] = {}
_NEGATING = frozenset({"un", "ir", "no"})


def _root(base: str, vocabulary: frozenset[str]) -> str:
    """``irrevers`` -> ``revers``, ``unformat`` -> ``format``, ``nonblock`` -> ``block``, when the
    corpus knows the root."""
    for prefix in ("non", "un", "ir"):
        rest = base[len(prefix):]
        if base.startswith(prefix) and len(rest) >= 4 and rest in vocabulary:
            return rest
    return base


def stem(word: str) -> str:
    """The Snowball stem of a lowercase word (PyStemmer), remembered."""
    found = _STEMS.get(word)
    if found is None:
        if len(_STEMS) > 500_000:
            _STEMS.clear()
        found = _STEMS[word] = _stemmer().stemWord(word)  # type: ignore[attr-defined]
    return found


@lru_cache(maxsize=1)
def _stemmer() -> object:
    import Stemmer  # type: ignore[import-not-found]  # PyStemmer ships no type information

    return Stemmer.Stemmer("english")


def masked(text: str) -> str:
    """The text with quoted lines, HTML block quotes and fenced code blocks blanked, positions
    kept; and a captured session's summary without its headings ("Task:", "Outcome:", "[not
    captured]"), which every summary carries, so they never recur as a theme of their own."""
    if text.startswith("Task: ") and "\nOutcome: " in text:
        text = _SUMMARY_HEADINGS.sub(lambda m: " " * len(m.group(0)), text)
    if ">" not in text and "```" not in text and "~~~" not in text:
        return text

    def blank(match: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", match.group(0))

    text = _FENCE.sub(blank, text)
    if "<" in text:
        text = _BLOCKQUOTE.sub(blank, text)
    return _QUOTE_LINE.sub(blank, text)


def is_stop(word: str) -> bool:
    return word in STOP_WORDS or len(word) < 2


def tokens(text: str) -> Tokens:
    """The words, identifiers and path globs of a text (quotes and code blocks masked)."""
    own = masked(text)
    inner: list[Word] = []
    identifiers: list[Word] = []
    taken = _Taken(len(own))
    globs: tuple[str, ...] = ()
    if "/" in own or "*." in own:
        paths = list(_PATH.finditer(own))
        for m in paths:
            taken.add(m.span())
        globs = tuple(dict.fromkeys(glob_of(m.group(0)) for m in paths))
    if "`" in own:
        for match in _CODE_SPAN.finditer(own):
            code = match.group(1).strip()
            if code and not taken.overlaps(match.span()):
                identifiers.append(("id:" + code.lower(), match.start(1), match.end(1)))
                inner.extend(_split_words(code, match.start(1)))
                taken.add(match.span())
    if _MAYBE_IDENTIFIER.search(own):
        for match in _IDENTIFIER.finditer(own):
            if taken.overlaps(match.span()):
                continue
            name = match.group(0).removesuffix("()")
            identifiers.append(("id:" + name.lower(), match.start(), match.start() + len(name)))
            inner.extend(_split_words(name, match.start()))
            taken.add(match.span())
    low = own.lower()
    if len(low) != len(own):  # a few letters lowercase to two characters: keep them, keep positions
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in own)
    found = list(_WORD.finditer(low))
    if taken:
        found = [m for m in found if not taken.overlaps(m.span())]
    spelt = map(_GROUP, found)
    if "'" in low or "\u2019" in low:
        spelt = map(_unquoted, spelt)
    # one string per distinct word: a corpus's millions of words are a few thousand words
    return Tokens(tuple(map(_intern, spelt)), array("I", chain.from_iterable(map(_SPAN, found))),
                  tuple(inner), tuple(identifiers), globs)


_POSITIONS = itemgetter(1, 2)
_GROUP = re.Match.group
_SPAN = re.Match.span
_intern = sys.intern


def _unquoted(word: str) -> str:
    """``retry's`` -> ``retry``; a stop word with an apostrophe (``don't``) stays as it is."""
    word = word.replace("\u2019", "'")
    return word.split("'", 1)[0] if "'" in word and word not in STOP_WORDS else word


class _Taken:
    """The characters of a text already read as a path, a code span or an identifier, one mark
    each: whether a span overlaps them costs that span's length, never the number of spans
    taken (a text of 20,000 characters holds thousands of identifiers, and asking each word
    against every one of them cost seconds a text)."""

    __slots__ = ("marks", "count")

    def __init__(self, size: int) -> None:
        self.marks = bytearray(size)
        self.count = 0

    def __bool__(self) -> bool:
        return self.count > 0

    def add(self, span: tuple[int, int]) -> None:
        start, end = span
        self.marks[start:end] = b"\x01" * (end - start)
        self.count += 1

    def overlaps(self, span: tuple[int, int]) -> bool:
        return self.marks.find(1, span[0], span[1]) != -1


def _split_words(name: str, offset: int) -> list[Word]:
    """The content words inside an identifier (snake_case, camelCase, dotted)."""
    found = []
    for match in _SPLIT_IDENTIFIER.finditer(name):
        low = match.group(0).lower()
        if not is_stop(low) and len(base := stem(low)) >= MIN_STEM:
            found.append((base, offset + match.start(), offset + match.end()))
    return found


def glob_of(path: str) -> str:
    """A path's folder and extension as a glob: ``src/api/handlers.py`` -> ``src/api/*.py``."""
    path = path.strip().lstrip("./")
    folder, _, name = path.rpartition("/")
    ext = name.rsplit(".", 1)[1] if "." in name.strip(".") else ""
    pattern = f"*.{ext}" if ext else "*"
    return f"{folder}/{pattern}" if folder else pattern


# -- sameness: copies and quotes ---------------------------------------------------------------

_NON_WORD = re.compile(r"[\W_]+")


def normalized(text: str) -> str:
    """Lowercase words only, one space apart: what two copies of one text share, however their
    letters are encoded."""
    if not text.isascii():
        text = plain_letters(text)
    return _NON_WORD.sub(" ", text.lower()).strip()


def plain_letters(text: str) -> str:
    """The text as a reader sees its letters: hidden characters dropped, compatibility forms
    (full-width letters, ligatures) and look-alike letters of other alphabets made plain, and
    accents dropped, so a copy in other code points of the same letters reads as the same."""
    shown = latin_skeleton(unicodedata.normalize("NFKC", visible(text)))
    return "".join(c for c in unicodedata.normalize("NFD", shown) if not unicodedata.combining(c))


def says(text: str, sentence: str) -> bool:
    """Whether ``text`` holds ``sentence`` word for word (case, punctuation and spacing aside):
    a statement drawn from a text is a sentence of it, tidied."""
    wanted = normalized(sentence)
    return bool(wanted) and f" {wanted} " in f" {normalized(text)} "


STATING = 3
"""The content terms a sentence names to state something of its own (as a labeler's text does)."""


def still_says(edited: str, before: str) -> bool:
    """Whether an edited text still says what an earlier version of it said: each holds at
    least two thirds of the other's content terms, and no sentence stating something (``STATING``
    terms or more) takes under a third of its terms from the earlier version. A typo fixed, a
    word added or "Thanks!" appended keep that; a rewrite to another subject does not, nor
    another subject added, which a long text would otherwise hold within its two thirds. Texts
    of no content words say the same only when their words are the same."""
    old, new = tokens(before).terms(), tokens(edited).terms()
    if not old and not new:
        return normalized(masked(before)) == normalized(masked(edited))
    if 3 * len(old & new) < 2 * max(len(old), len(new)):
        return False
    return not new - old or all(_kept(sentence, old) for sentence in _SENTENCE_END.split(masked(edited)))


def _kept(sentence: str, old: set[str]) -> bool:
    """Whether a sentence of an edit is of what the earlier version said: it states too little
    to be a subject of its own, or a third of its terms are the earlier version's."""
    said = tokens(sentence).terms()
    return len(said) < STATING or 3 * len(said & old) >= len(said)


def quoted(text: str) -> str:
    """The lines a text quotes (``> ...``, or in an HTML block quote), without their markers."""
    if ">" not in text:
        return ""
    said = [m.group(0).lstrip(" \t")[1:] for m in _QUOTE_LINE.finditer(text)]
    if "<" in text:
        said += [m.group(1) for m in _BLOCKQUOTE.finditer(text)]
    return "\n".join(said)


def sameness(text: str, min_words: int = 4) -> tuple[str, list[str]]:
    """What copies of a text share: its normalized own text (quotes and code blocks masked), and
    each sentence of at least ``min_words`` words, also without a short lead-in ("As Bob said:
    ...", "Again, ..."), so a quote introduced in one's own words is still recognised; words
    ending in a colon before more text ("As @alice said in #11: ...") introduce it and are no
    sentence of their own. Markup is read as a renderer shows it (``safety.rendered``): entities
    decoded, HTML comments and inline tags left out, a link read as its text, so a copy wrapped
    in markup a reader never sees is still one. The values are compared within one dream only."""
    own = masked(text)
    own = rendered(own) or own
    sentences: list[str] = []
    whole: list[str] = []
    pieces = _SENTENCE_END.split(own)
    for n, sentence in enumerate(pieces):
        norm = normalized(sentence)
        if not norm:
            continue
        whole.append(norm)
        introduces = sentence.endswith(":") and any(normalized(p) for p in pieces[n + 1:])
        if norm.count(" ") + 1 >= min_words and not introduces:
            sentences.append(norm)
            lead = _LEAD.match(sentence) if ("," in sentence[:41] or ":" in sentence[:41]) else None
            if lead:
                rest = normalized(sentence[lead.end():])
                if rest.count(" ") + 1 >= min_words:
                    sentences.append(rest)
    return " ".join(whole), list(dict.fromkeys(sentences))
