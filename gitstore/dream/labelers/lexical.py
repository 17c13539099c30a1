"""The lexical labeler (default): deterministic, offline themes from the words people use.

Each text becomes a set of content terms (``gitstore.dream.terms``: Snowball stems without stop
words or chatter, identifiers and code spans whole, words written apart joined when the corpus
writes them as one, as in "back off" and "backoff"). A theme is found where terms recur
together more than chance says they would:

1. a pair of terms is a **seed** when at least two texts hold both and their lift
   (``together * texts / (texts with a * texts with b)``, texts counted as at least 100 so a
   small store is judged against a background) is at least ``minLift``: "retry" and "jitter"
   together, not "error" and "handler" everywhere;
2. seeds that share a term and mostly the same texts are one theme (union-find), so the
   paraphrases "retries need jittered backoff" and "back off with jitter before retrying" land
   together through any of their shared pairs;
3. each text joins the theme whose terms it shares most; a text in no theme is a one-off and is
   not labelled.

A reply in a review thread that objects or reports a fix without naming the theme itself (``I
disagree, not needed here``) takes the theme of the comment it answers. Polarity and category
come from cue words (``gitstore.dream.cues``); spans point at the theme's words and the cue in
the stored text. The same view always gives the same labels and theme keys.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from gitstore.dream import cues, terms
from gitstore.dream.labelers import MAX_SPANS, Label, LabelRun
from gitstore.dream.view import Evidence
from gitstore.errors import InvalidInput

MIN_TERMS = 3          # a text names at least this many content terms to state anything
MAX_TERMS = 10         # the rarest terms of a text that may seed themes
MIN_LIFT = 3
BACKGROUND = 100     # chance is judged as if among at least this many texts


@dataclass
class _Doc:
    evidence: Evidence
    words: tuple[terms.Word, ...]
    terms: frozenset[str]
    lowered: str


class _Themes:
    """Union-find over seed pairs."""

    def __init__(self) -> None:
        self.parent: dict[tuple[str, str], tuple[str, str]] = {}

    def find(self, pair: tuple[str, str]) -> tuple[str, str]:
        root = self.parent.setdefault(pair, pair)
        while root != self.parent[root]:
            root = self.parent[root]
        while pair != root:
            self.parent[pair], pair = root, self.parent[pair]
        return root

    def union(self, a: tuple[str, str], b: tuple[str, str]) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


class LexicalLabeler:
    """Themes from recurring pairs of content terms."""

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

    def label(self, items: Sequence[Evidence]) -> LabelRun:
        docs = _docs(items)
        content = [d for d in docs if len(d.terms) >= self.min_terms]
        df = Counter(t for d in content for t in d.terms)
        seeds = self._seeds(content, df)
        members = _members(content, seeds, df)
        keys = _keys(members, docs)
        labels = [self._label(doc, keys[theme], members[theme][1]) for theme in sorted(members)
                  for doc in members[theme][0]]
        labels.extend(_replies(docs, {lab.event: lab for lab in labels}))
        labels.sort(key=lambda lab: (lab.event, lab.theme))
        themed = {lab.event for lab in labels}
        return LabelRun(labels, usage={"texts": len(docs), "themes": len({lab.theme for lab in labels}),
                                       "unthemed": sum(1 for d in content if d.evidence.id not in themed)})

    def _seeds(self, content: list[_Doc], df: Counter[str]) -> dict[tuple[str, str], list[int]]:
        """Seed pairs and the texts (indexes into ``content``) that hold them."""
        limit = max(50, len(content) // 20)
        together: Counter[tuple[str, str]] = Counter()
        rare: list[list[str]] = []
        for doc in content:
            kept = sorted((t for t in doc.terms if 2 <= df[t] <= limit), key=lambda t: (df[t], t))[:MAX_TERMS]
            rare.append(sorted(kept))
            together.update(combinations(rare[-1], 2))
        n = max(len(content), BACKGROUND)
        seeds = {pair for pair, count in together.items()
                 if count >= 2 and count * n >= self.min_lift * df[pair[0]] * df[pair[1]]}
        holders: dict[tuple[str, str], list[int]] = defaultdict(list)
        for index, kept in enumerate(rare):
            for pair in combinations(kept, 2):
                if pair in seeds:
                    holders[pair].append(index)
        return holders

    def _label(self, doc: _Doc, theme: str, core: frozenset[str]) -> Label:
        polarity, cue = cues.polarity(doc.lowered)
        spans = [(w.start, w.end) for w in doc.words if w.stem in core]
        spans = list(dict.fromkeys(spans))[: MAX_SPANS - 1]
        if cue is not None:
            spans.append(cue)
        return Label(doc.evidence.id, theme, cues.category(doc.lowered, polarity), polarity,
                     tuple(sorted(set(spans))), self.name)


def _docs(items: Sequence[Evidence]) -> list[_Doc]:
    scanned = [(e, terms.tokens(e.text)) for e in items]
    vocabulary: set[str] = set()
    for _, found in scanned:
        vocabulary.update(found.stems())
    docs = []
    for evidence, found in scanned:
        words = found.words(vocabulary)
        ids = {i.stem for i in found.identifiers}
        docs.append(_Doc(evidence, words, frozenset({w.stem for w in words} | ids),
                         terms.masked(evidence.text).lower()))
    return docs


def _members(content: list[_Doc], seeds: dict[tuple[str, str], list[int]],
             df: Counter[str]) -> dict[tuple[str, ...], tuple[list[_Doc], frozenset[str]]]:
    """Themes (their core terms, most shared first) -> the texts in them and their core.

    Two seeds sharing a term are one theme when at least two texts hold both and those are at
    least half of the smaller seed's texts. A **bridge** (a seed whose texts fall into two
    groups that other seeds hold together, such as "test" and "fixture" said both about frozen
    clocks and about cached schemas) joins nothing, so it cannot chain two themes into one.
    """
    union = _Themes()
    held = {pair: frozenset(texts) for pair, texts in seeds.items()}
    seeds_of: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for pair in sorted(held):
        union.find(pair)
        for index in held[pair]:
            seeds_of[index].append(pair)
    bridges = _bridges(held, seeds_of)
    by_term: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for pair in sorted(held):
        if pair not in bridges:
            for term in pair:
                by_term[term].append(pair)
    for term in sorted(by_term):
        for a, b in combinations(by_term[term], 2):
            shared = len(held[a] & held[b])
            if shared >= 2 and 2 * shared >= min(len(held[a]), len(held[b])):
                union.union(a, b)
    cores: dict[tuple[str, str], set[str]] = defaultdict(set)
    holds: dict[int, Counter[tuple[str, str]]] = defaultdict(Counter)
    size: Counter[tuple[str, str]] = Counter()
    for pair, texts in held.items():
        root = union.find(pair)
        cores[root].update(pair)
        for index in texts:
            holds[index][root] += 1
    for index, roots in holds.items():
        size.update(roots.keys())
    chosen = _assign(holds, size)
    grouped: dict[tuple[str, ...], tuple[list[_Doc], frozenset[str]]] = {}
    for root in sorted(cores):
        docs = [content[i] for i in sorted(chosen) if chosen[i] == root]
        if len(docs) >= 2:
            core = cores[root]
            spread = Counter(t for d in docs for t in d.terms & core)
            grouped[tuple(sorted(core, key=lambda t: (-spread[t], df[t], t)))] = (docs, frozenset(core))
    return grouped


def _bridges(held: Mapping[tuple[str, str], frozenset[int]],
             seeds_of: Mapping[int, list[tuple[str, str]]]) -> set[tuple[str, str]]:
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

        first: dict[tuple[str, str], int] = {}
        for index in sorted(texts):
            for other in seeds_of[index]:
                if other != pair:
                    a, b = find(first.setdefault(other, index)), find(index)
                    parent[max(a, b)] = min(a, b)
        groups = Counter(find(index) for index in texts)
        if sum(1 for n in groups.values() if n >= 2) >= 2:
            found.add(pair)
    return found


def _assign(holds: Mapping[int, Counter[tuple[str, str]]], size: Counter[tuple[str, str]]) -> dict[int, tuple[str, str]]:
    """Each text's theme: the one of whose seeds it holds the most (then the larger one). A
    theme left with a single text gives it to the text's next choice."""
    def best(index: int, allowed: Any) -> tuple[str, str] | None:
        options = [(count, size[root], root) for root, count in holds[index].items() if allowed(root)]
        return max(options, key=lambda o: (o[0], o[1], tuple(reversed(o[2]))))[2] if options else None

    chosen = {i: best(i, lambda r: True) for i in holds}
    counts = Counter(chosen.values())
    alive = {root for root, n in counts.items() if n >= 2}
    for index, root in list(chosen.items()):
        if root not in alive:
            chosen[index] = best(index, lambda r: r in alive)
    return {i: r for i, r in chosen.items() if r is not None}


def _keys(members: Mapping[tuple[str, ...], Any], docs: list[_Doc]) -> dict[tuple[str, ...], str]:
    """A readable, unique key per theme from its most shared terms' usual spelling."""
    surface: dict[str, Counter[str]] = defaultdict(Counter)
    for doc in docs:
        for word in doc.words:
            surface[word.stem][doc.evidence.text[word.start:word.end].lower()] += 1
    keys: dict[tuple[str, ...], str] = {}
    used: set[str] = set()
    for core in sorted(members):
        words: list[str] = []
        for term in sorted(core, key=lambda t: not t.startswith("id:"))[:6]:
            word = _spelling(term, surface)
            if not any(word in w for w in words):
                words.append(word)
        words = words[:3]
        base = _slug("-".join(words)) or "theme"
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
        polarity, cue = cues.polarity(doc.lowered)
        if polarity == "asks-for" or cue is None:
            continue
        theme = labelled[evidence.root]
        out.append(Label(evidence.id, theme.theme, cues.category(doc.lowered, polarity), polarity,
                         (cue,), LexicalLabeler.name))
    return out
