"""The lexical labeler (default): deterministic, offline themes from the words people use.

Each text becomes a set of content terms (``gitstore.dream.terms``: Snowball stems without stop
words or chatter, identifiers and code spans whole, words written apart joined when the corpus
writes them as one, as in "back off" and "backoff"). A theme is found where terms recur
together more than chance says they would:

1. a pair of terms is a **seed** when at least two texts hold both and their lift
   (``together * texts / (texts with a * texts with b)``, texts counted as at least 100 so a
   small store is judged against a background) is at least ``minLift``: "retry" and "jitter"
   together, not "error" and "handler" everywhere;
2. seeds that share a term and at least two texts, those being at least half of the smaller
   seed's, are one theme (union-find), so the paraphrases "retries need jittered backoff" and
   "back off with jitter before retrying" land together through any of their shared pairs. A
   **bridge** (a seed whose texts fall into two groups other seeds hold together, such as
   "test" and "fixture" said both about frozen clocks and about cached schemas) joins nothing;
3. a theme stands only if chance explains it badly: one of its pairs (together in a text, or side
   by side as a phrase such as "wall clock"), or three of its terms in two of its texts, meets
   so much more often than chance would (a Poisson tail, given that it was met once) that less
   than half such a meeting is expected by chance over everything tried. Two middling words met
   twice among thousands of texts are no theme;
4. each text joins the theme of which it holds the most seeds (then the larger); a theme needs
   two texts and three terms; a text in no theme is a one-off and is not labelled.

A reply in a review thread that objects or reports a fix without naming the theme itself (``I
disagree, not needed here``) takes the theme of the comment it answers. Polarity and category
come from cue words (``gitstore.dream.cues``); spans point at the theme's words and the cue in
the stored text. The same view always gives the same labels and theme keys.
"""

from __future__ import annotations

import hashlib
import math
import re
import sys
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import combinations
from operator import itemgetter
from pathlib import Path
from typing import Any

from gitstore.dream import cues, terms
from gitstore.dream.labelers import MAX_SPANS, Label, LabelRun
from gitstore.dream.view import Evidence
from gitstore.errors import InvalidInput

MIN_TERMS = 3          # a text names at least this many content terms to state anything
MAX_TERMS = 10         # the rarest terms of a text that may seed themes
MIN_LIFT = 3
BACKGROUND = 1000      # chance is judged as if among at least this many texts
CHANCE = 0.5           # chance meetings expected over everything tried

Pair = tuple[str, str]
Word = terms.Word


@dataclass
class _Doc:
    evidence: Evidence
    stems: tuple[str, ...]     # its content words in order, as the corpus writes them
    spans: array[int]          # where each starts and ends (``terms.spans_of``)
    terms: frozenset[str]

    def words(self) -> Iterator[Word]:
        return terms.with_spans(self.stems, self.spans)

    @property
    def lowered(self) -> str:
        return terms.masked(self.evidence.text).lower()


@dataclass
class _Corpus:
    """The texts that state something, their term counts, and how much was tried."""

    docs: list[_Doc]
    df: Counter[str]
    kept: list[list[str]] = field(default_factory=list)   # per text: its rarest recurring terms
    pairs: int = 1                                         # distinct pairs tried
    triples: int = 1                                       # triples of seed terms tried
    adjacent: Counter[Pair] = field(default_factory=Counter)  # texts where a pair stands side by side
    length: float = 1.0                                    # content words per text

    @property
    def n(self) -> int:
        return max(len(self.docs), BACKGROUND)

    def pair_rare(self, pair: Pair, count: int) -> bool:
        """Would chance bring a pair found in one text into ``count - 1`` others this rarely?"""
        expected = self.df[pair[0]] * self.df[pair[1]] / self.n
        return _rarely(count - 1, expected, CHANCE / self.pairs)

    def adjacent_rare(self, pair: Pair) -> bool:
        """Would chance put a pair side by side (as a phrase: "wall clock", "request id") in
        that many texts this rarely?"""
        count = self.adjacent[pair]
        if count < 2:
            return False
        expected = 2 * self.df[pair[0]] * self.df[pair[1]] / (self.n * self.length)
        return _rarely(count - 1, expected, CHANCE / self.pairs)

    def triple_rare(self, triple: tuple[str, str, str], count: int) -> bool:
        """Would chance bring three terms found in one text into ``count - 1`` others this rarely?"""
        expected = self.df[triple[0]] * self.df[triple[1]] * self.df[triple[2]] / self.n ** 2
        return _rarely(count - 1, expected, CHANCE / self.triples)


class _Union:
    """Union-find over seed pairs."""

    def __init__(self) -> None:
        self.parent: dict[Pair, Pair] = {}

    def find(self, pair: Pair) -> Pair:
        root = self.parent.setdefault(pair, pair)
        while root != self.parent[root]:
            root = self.parent[root]
        while pair != root:
            self.parent[pair], pair = root, self.parent[pair]
        return root

    def union(self, a: Pair, b: Pair) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


class LexicalLabeler:
    """Themes from recurring terms."""

    name = "lexical"
    incremental = False
    sends_to: str | None = None

    def __init__(self, min_lift: int = MIN_LIFT, min_terms: int = MIN_TERMS) -> None:
        self.min_lift = min_lift
        self.min_terms = min_terms

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> LexicalLabeler:
        unknown = set(options) - {"minLift", "minTerms"}
        if unknown:
            raise InvalidInput(f"lexical labeler: unknown options {', '.join(sorted(unknown))}")
        values = {k: options.get(k, d) for k, d in (("minLift", MIN_LIFT), ("minTerms", MIN_TERMS))}
        for key, value in values.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidInput(f"lexical labeler: {key} must be a positive integer")
        return cls(values["minLift"], values["minTerms"])

    def unavailable(self) -> str | None:
        return None

    def repeatable(self) -> list[Any] | None:
        """What decides its answer besides the evidence (``labelers.memo``): its options, and
        its code and the stemmer's. None for a subclass (a plug-in's code is not this)."""
        if type(self) is not LexicalLabeler:
            return None
        return [self.name, self.min_lift, self.min_terms, _code()]

    def label(self, items: Sequence[Evidence]) -> LabelRun:
        """Labels of ITEMS. Those of shared evidence are worked out from the shared evidence
        alone: a clone's personal sessions never leave it, so the words they use (how often, in
        which texts) must not change which themes the team's records form, what they hold or
        their keys, on that clone alone. Personal evidence is labelled among all of it: a theme
        it joins, most of whose texts are shared evidence of one theme, takes that theme's key.
        A theme of its own holding a single shared text labels that text too (a review and its
        owner's session saying one thing): one shared text never passes the gates by itself, so
        such a theme is only ever proposed citing the personal evidence, on this clone."""
        shared = [e for e in items if not e.local]
        if len(shared) == len(items):
            return self._label_all(items)[0]
        (team, stating), (everything, stating_all) = self._label_all(shared), self._label_all(items)
        keyed = {lab.event: lab.theme for lab in team.labels}
        team_ids = {e.id for e in shared}
        taken: dict[str, Counter[str]] = defaultdict(Counter)
        held: dict[str, list[Label]] = defaultdict(list)
        for lab in everything.labels:
            held[lab.theme].append(lab)
            if lab.event in keyed:
                taken[lab.theme][keyed[lab.event]] += 1
        used = set(keyed.values())
        labels = list(team.labels)
        for theme, found in sorted(held.items()):
            personal = [lab for lab in found if lab.event not in team_ids]
            if not personal:
                continue
            best = min(taken[theme].items(), key=lambda kv: (-kv[1], kv[0]), default=None)
            if best is not None and 2 * best[1] >= len(found):  # mostly that team theme's texts
                labels += [replace(lab, theme=best[0]) for lab in personal]
                continue
            key, n = theme, 2
            while key in used:
                key, n = f"{theme[:76]}-{n}", n + 1
            used.add(key)
            alone = len(found) - len(personal) == 1
            labels += [replace(lab, theme=key) for lab in found if alone or lab.event not in team_ids]
        labels.sort(key=lambda lab: (lab.event, lab.theme))
        themed = {lab.event for lab in labels}
        unthemed = (stating | {e for e in stating_all if e not in team_ids}) - themed
        return LabelRun(labels, usage={"texts": len(items), "themes": len({lab.theme for lab in labels}),
                                       "unthemed": len(unthemed)})

    def _label_all(self, items: Sequence[Evidence]) -> tuple[LabelRun, set[str]]:
        """The labels of ITEMS judged among themselves, and the texts that state something."""
        docs = _docs(items)
        content = [d for d in docs if len(d.terms) >= self.min_terms]
        corpus = _Corpus(content, Counter(t for d in content for t in d.terms))
        themes = _themes(corpus, self._seeds(corpus))
        keys = _keys(themes)
        labels = [self._label(doc, keys[core], frozenset(core)) for core in sorted(themes)
                  for doc in themes[core]]
        labels.extend(_replies(docs, {lab.event: lab for lab in labels}))
        labels.sort(key=lambda lab: (lab.event, lab.theme))
        themed = {lab.event for lab in labels}
        return LabelRun(labels, usage={"texts": len(docs), "themes": len({lab.theme for lab in labels}),
                                       "unthemed": sum(1 for d in content if d.evidence.id not in themed)}), \
            {d.evidence.id for d in content}

    def _seeds(self, corpus: _Corpus) -> dict[Pair, frozenset[int]]:
        """Seed pairs and the texts (indexes into the corpus) that hold them."""
        df, limit = corpus.df, max(50, len(corpus.docs) // 20)
        rank = {t: n for n, t in enumerate(sorted((t for t, c in df.items() if 2 <= c <= limit),
                                                   key=lambda t: (df[t], t)))}
        together: Counter[Pair] = Counter()
        words = 0
        for doc in corpus.docs:
            kept = sorted([t for t in doc.terms if t in rank], key=rank.__getitem__)[:MAX_TERMS]
            corpus.kept.append(sorted(kept))
            together.update(combinations(corpus.kept[-1], 2))
            words += len(doc.stems)
            chosen = set(kept)
            corpus.adjacent.update({(min(a, b), max(a, b)) for a, b in zip(doc.stems, doc.stems[1:])
                                    if a != b and a in chosen and b in chosen})
        corpus.length = max(1.0, words / max(1, len(corpus.docs)))
        corpus.pairs = max(1, len(together))
        seeds = {pair for pair, count in together.items()
                 if count >= 2 and count * corpus.n >= self.min_lift * df[pair[0]] * df[pair[1]]}
        seeded = {t for pair in seeds for t in pair}
        corpus.triples = max(1, sum(math.comb(len(seeded.intersection(kept)), 3) for kept in corpus.kept))
        holders: dict[Pair, list[int]] = defaultdict(list)
        for index, kept in enumerate(corpus.kept):
            for pair in combinations(kept, 2):
                if pair in seeds:
                    holders[pair].append(index)
        return {pair: frozenset(texts) for pair, texts in holders.items()}

    def _label(self, doc: _Doc, theme: str, core: frozenset[str]) -> Label:
        polarity, cue = cues.polarity(doc.lowered)
        spans = list(dict.fromkeys((start, end) for term, start, end in doc.words() if term in core))[: MAX_SPANS - 1]
        if cue is not None:
            spans.append(cue)
        return Label(doc.evidence.id, theme, cues.category(doc.lowered, polarity), polarity,
                     tuple(sorted(set(spans))), self.name)


@lru_cache(maxsize=1)
def _code() -> str:
    """A digest of the code that decides the labels (this module, the words and the cues) and
    the stemmer's version: a labeler changed by an upgrade or an edit answers anew."""
    digest = hashlib.sha256(_stemmer_version().encode())
    for module in (sys.modules[__name__], terms, cues):
        try:
            digest.update(Path(module.__file__ or "").read_bytes())
        except OSError:  # no source to read (a frozen build): the version stands for it
            from gitstore._version import __version__

            digest.update(__version__.encode())
    return digest.hexdigest()


def _stemmer_version() -> str:
    import Stemmer  # type: ignore[import-not-found]  # PyStemmer ships no type information

    return str(Stemmer.version())


def _rarely(count: int, expected: float, chance: float) -> bool:
    """Is meeting ``count`` times, where chance would give ``expected``, rarer than ``chance``?
    The Poisson tail P(X >= count) is bounded above by its first term over
    ``1 - expected / (count + 1)``, computed in logarithms."""
    if expected <= 0:
        return True
    if count <= expected:
        return False
    first = -expected + count * math.log(expected) - math.lgamma(count + 1)
    return first - math.log1p(-expected / (count + 1)) < math.log(chance)


def _docs(items: Sequence[Evidence]) -> list[_Doc]:
    scanned = [(e, terms.tokens(e.text)) for e in items]
    written: set[str] = set()
    inner: set[str] = set()
    for _, found in scanned:
        written.update(found.spelt)
        inner.update(map(itemgetter(0), found.inner))
    vocabulary = terms.Vocabulary.of({terms.stem(w) for w in written - terms.STOP_WORDS} | inner)
    docs = []
    scanned.reverse()
    while scanned:  # each text's tokens go once its words are made
        evidence, found = scanned.pop()
        words = found.words(vocabulary)
        stems = tuple(w[0] for w in words)
        docs.append(_Doc(evidence, stems, terms.spans_of(words), frozenset(stems + tuple(i[0] for i in found.identifiers))))
    return docs


# -- themes from seeds ---------------------------------------------------------------------------

def _themes(corpus: _Corpus, held: dict[Pair, frozenset[int]]) -> dict[tuple[str, ...], list[_Doc]]:
    """Themes (their core terms, the most shared first) -> the texts in them."""
    union = _Union()
    seeds_of: dict[int, list[Pair]] = defaultdict(list)
    for pair in sorted(held):
        union.find(pair)
        for index in held[pair]:
            seeds_of[index].append(pair)
    bridges = _bridges(held, seeds_of)
    by_term: dict[str, list[Pair]] = defaultdict(list)
    for pair in sorted(held):
        if pair not in bridges:
            for term in pair:
                by_term[term].append(pair)
    for term in sorted(by_term):
        for (a, b), shared in sorted(_met(by_term[term], held).items()):
            if shared >= 2 and 2 * shared >= min(len(held[a]), len(held[b])):
                union.union(a, b)
    groups: dict[Pair, list[Pair]] = defaultdict(list)
    for pair in sorted(held):
        groups[union.find(pair)].append(pair)
    standing = {root for root, pairs in groups.items() if _stands(corpus, pairs, held)}
    holds: dict[int, Counter[Pair]] = defaultdict(Counter)
    for pair, texts in held.items():
        root = union.find(pair)
        if root in standing:
            for index in texts:
                holds[index][root] += 1
    members: dict[Pair, list[_Doc]] = defaultdict(list)
    for index, root in sorted(_assign(holds).items()):
        members[root].append(corpus.docs[index])
    themes: dict[tuple[str, ...], list[_Doc]] = {}
    for root, docs in sorted(members.items()):
        core = {t for pair in groups[root] for t in pair}
        if len(docs) >= 2 and len(core) >= 3:
            spread = Counter(t for d in docs for t in d.terms & core)
            themes[tuple(sorted(core, key=lambda t: (-spread[t], corpus.df[t], t)))] = docs
    return themes


def _met(pairs: list[Pair], held: Mapping[Pair, frozenset[int]]) -> Counter[tuple[Pair, Pair]]:
    """For seeds sharing a term: how many texts each two of them share (only those sharing any)."""
    by_text: dict[int, list[Pair]] = defaultdict(list)
    for pair in pairs:
        for index in held[pair]:
            by_text[index].append(pair)
    shared: Counter[tuple[Pair, Pair]] = Counter()
    for found in by_text.values():
        if len(found) > 1:
            shared.update(combinations(sorted(found), 2))
    return shared


def _stands(corpus: _Corpus, pairs: list[Pair], held: Mapping[Pair, frozenset[int]]) -> bool:
    """Does chance explain a group of seeds badly (one pair, or three terms in two texts)?"""
    if len(pairs) < 2:
        return False  # two terms are no theme, however rare
    if any(corpus.pair_rare(pair, len(held[pair])) or corpus.adjacent_rare(pair) for pair in pairs):
        return True
    core = {t for pair in pairs for t in pair}
    texts = set().union(*(held[pair] for pair in pairs))
    triples: Counter[tuple[str, str, str]] = Counter()
    for index in texts:
        triples.update(combinations(sorted(core & set(corpus.kept[index])), 3))
    return any(count >= 2 and corpus.triple_rare(triple, count) for triple, count in triples.items())


def _bridges(held: Mapping[Pair, frozenset[int]], seeds_of: Mapping[int, list[Pair]]) -> set[Pair]:
    """Seeds whose texts split into two or more groups of at least two texts held together
    by other seeds."""
    found = set()
    for pair, texts in held.items():
        if len(texts) < 4:
            continue
        parent = {index: index for index in texts}

        def find(index: int) -> int:
            while parent[index] != index:
                parent[index] = parent[parent[index]]
                index = parent[index]
            return index

        first: dict[Pair, int] = {}
        for index in sorted(texts):
            for other in seeds_of[index]:
                if other != pair:
                    a, b = find(first.setdefault(other, index)), find(index)
                    parent[max(a, b)] = min(a, b)
        groups = Counter(find(index) for index in texts)
        if sum(1 for n in groups.values() if n >= 2) >= 2:
            found.add(pair)
    return found


def _assign(holds: Mapping[int, Counter[Pair]]) -> dict[int, Pair]:
    """Each text's theme: the one of whose seeds it holds the most (then the larger one). A
    theme left with a single text gives it to the text's next choice."""
    size: Counter[Pair] = Counter()
    for roots in holds.values():
        size.update(roots.keys())

    def best(index: int, allowed: Callable[[Pair], bool]) -> Pair | None:
        options = [(count, size[root], root) for root, count in holds[index].items() if allowed(root)]
        return max(options, key=lambda o: (o[0], o[1], tuple(reversed(o[2]))))[2] if options else None

    chosen = {i: best(i, lambda r: True) for i in holds}
    alive = {root for root, n in Counter(chosen.values()).items() if n >= 2}
    for index, root in list(chosen.items()):
        if root not in alive:
            chosen[index] = best(index, lambda r: r in alive)
    return {i: r for i, r in chosen.items() if r is not None}


# -- keys and replies ----------------------------------------------------------------------------

def _keys(themes: Mapping[tuple[str, ...], list[_Doc]]) -> dict[tuple[str, ...], str]:
    """A readable, unique key per theme from its most shared terms' usual spelling."""
    surface: dict[str, Counter[str]] = defaultdict(Counter)
    for doc in (d for docs in themes.values() for d in docs):
        for term, start, end in doc.words():
            surface[term][doc.evidence.text[start:end].lower()] += 1
    keys: dict[tuple[str, ...], str] = {}
    used: set[str] = set()
    for core in sorted(themes):
        words: list[str] = []
        for term in sorted(core, key=lambda t: not t.startswith("id:"))[:6]:
            spelt = _spelling(term, surface)
            if not any(spelt in w for w in words):
                words.append(spelt)
        base = _slug("-".join(words[:3])) or "theme"
        key, n = base, 2
        while key in used:
            key, n = f"{base[:76]}-{n}", n + 1
        used.add(key)
        keys[core] = key
    return keys


def _spelling(term: str, surface: Mapping[str, Counter[str]]) -> str:
    if term.startswith("id:"):
        return term[3:]
    forms = surface.get(term)
    if not forms:
        return term
    return min(forms.items(), key=lambda kv: (-kv[1], len(kv[0]), kv[0]))[0]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80].strip("-")


def _replies(docs: list[_Doc], labelled: Mapping[str, Label]) -> list[Label]:
    """Replies that object or report a fix without naming the theme take their thread's."""
    out = []
    for doc in docs:
        evidence = doc.evidence
        if evidence.root is None or evidence.id in labelled or evidence.root not in labelled:
            continue
        lowered = doc.lowered
        polarity, cue = cues.polarity(lowered)
        if polarity == "asks-for" or cue is None:
            continue
        out.append(Label(evidence.id, labelled[evidence.root].theme, cues.category(lowered, polarity),
                         polarity, (cue,), LexicalLabeler.name))
    return out
