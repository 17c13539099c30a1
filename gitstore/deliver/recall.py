"""Recall: the learnings in force most relevant to a query, bounded by hard ceilings.

Each item is ``{"contentDigest", "id", "score", "sources", "text", "trust"}``: the learning's id
and the digest of what it says, its integer score, where its evidence came from (review
threads with their pull request, agent sessions, manual entries), one bounded text (the
learning's accepted text alone: ``gitstore.deliver.build.line_of``), and its trust label, ``human`` (a person accepted it) or ``auto-safe`` (the auto-safe
gate did). Items are cut to the limits on their canonical serialisation: a text too long for
an item is shortened and ends with an ellipsis; an item that no longer fits the total is left
out, and the result says how many were.

Every text is one line: line breaks (``\n``, ``\r``, U+2028, U+2029 and the like) become
spaces, so a learning can never start a line of its own in what an agent reads (a forged
bullet, a ``System:`` line). The index holds each line as the scanner left it on one line
(``gitstore.deliver.build.scanned_line``: a key and its value a line break parted meet there).
A word mixing Latin letters with look-alikes (``sayНello``) comes marked from the index
(``gitstore.deliver.build.marked``), and shortening never parts it from its mark.
Given ``safe`` (the safety scanner's verdict), an item whose delivered form, shortened and
flattened, fails it (quarantined, or holding what the scanner would redact) is left out and
named apart from what the limits left out (``unsafe``): shortening can cut a text into one the
scanner quarantines.
"""

from __future__ import annotations

from gitstore.deliver.limits import MAX_ITEM_CHARS, MAX_ITEMS, MAX_TOTAL_CHARS, Limits, canonical
from gitstore.deliver.terms import query_terms

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from gitstore.deliver.index import Candidate, Index

ELLIPSIS = "…"
VERDICTS = "safety-verdicts.json"  # beside recall's index: the scanner's verdicts on delivered texts
VERDICT = "passes: not quarantined, nothing to redact"  # what a kept verdict means (kept with them)
MIN_TEXT = 24  # a shorter text would say nothing: the item is left out instead
LOOKALIKE = " (look-alike: "  # opens the mark after a word mixing scripts (``gitstore.deliver.build.marked``)
MAX_QUERY_CHARS = 8_000
_BREAKS = {ord(c): " " for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}  # what str.splitlines splits at


def flat(text: str) -> str:
    """``text`` on one line: every line break a space."""
    return text.translate(_BREAKS)


class Verdicts:
    """The safety scanner's verdict on a text as delivered: ``safe(text)`` is True when it
    passes, neither quarantined nor holding anything the scanner would redact (the index holds
    lines the scanner already redacted; a text it would still change is not sent). The scanner
    is loaded at the first text no verdict is kept for (the agent hook starts without it:
    loading it costs more than the rest of a delivery). Given ``kept`` (a
    file beside recall's index), verdicts are kept there by the text's digest and the scanner's
    version (its source files' sizes and times), and ``save`` writes the new ones: the scanner
    is a function of the text alone, so a kept verdict is the one it would give again."""

    LIMIT = 20_000  # verdicts kept; the oldest go first

    def __init__(self, kept: str | None = None) -> None:
        self._kept = kept
        self._known: dict[str, bool] | None = None
        self._new = False
        self._scanner: Any = None
        self._version = ""

    def safe(self, text: str) -> bool:
        known = self._load()
        key = self._key(text)
        verdict = known.get(key)
        if verdict is None:
            if self._scanner is None:
                from gitstore.safety.scanner import default_scanner

                self._scanner = default_scanner()
            found = self._scanner.scan(text)
            verdict = known[key] = not found.quarantined and found.text == text  # nothing left to redact
            self._new = True
        return verdict

    def _key(self, text: str) -> str:
        from hashlib import sha256

        return sha256(f"{self._version}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()

    def _load(self) -> dict[str, bool]:
        if self._known is None:
            import json
            import os
            import stat

            folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "safety")
            stats = []
            for name in sorted(os.listdir(folder)):
                if name.endswith(".py"):
                    found = os.stat(os.path.join(folder, name))
                    stats.append(f"{name}:{found.st_size}:{found.st_mtime_ns}")
            self._version = ";".join([VERDICT, *stats])
            self._known = {}
            if self._kept is not None:
                try:  # never through a link nor from a FIFO or a device (``index._stamp``)
                    fd = os.open(self._kept, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
                    with open(fd, encoding="ascii") as handle:
                        if not stat.S_ISREG(os.fstat(fd).st_mode):
                            raise ValueError("not a file")
                        data = json.load(handle)
                    if isinstance(data, dict) and data.get("version") == self._version:
                        self._known = {k: v for k, v in data.get("verdicts", {}).items() if isinstance(v, bool)}
                except (OSError, ValueError):
                    pass
        return self._known

    def save(self) -> None:
        """Write the verdicts kept, when there are new ones (a lost race only means scanning again)."""
        if not self._new or self._kept is None or self._known is None:
            return
        import json
        import os

        verdicts = dict(list(self._known.items())[-self.LIMIT:])
        temporary = f"{self._kept}.{os.getpid()}"
        try:
            with open(temporary, "w", encoding="ascii") as handle:
                json.dump({"version": self._version, "verdicts": verdicts}, handle)
            os.replace(temporary, self._kept)
        except OSError:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        self._new = False


def scanner_verdict() -> Callable[[str], bool]:
    """The safety scanner's verdict on a text as delivered, kept for this process only."""
    return Verdicts().safe


class Recall:
    """What recall returned, the limits that applied, and what the ceilings left out."""

    __slots__ = ("items", "limits", "matched", "left_out", "shortened", "unsafe")

    def __init__(self, items: list[dict[str, Any]], limits: Limits, matched: int, left_out: list[str],
                 shortened: list[str], unsafe: list[str] | None = None) -> None:
        self.items = items
        self.limits = limits
        self.matched = matched
        self.left_out = left_out  # by the limits
        self.shortened = shortened
        self.unsafe = unsafe if unsafe is not None else []  # failed the safety scan as delivered

    @property
    def chars(self) -> int:
        return len(canonical(self.items))

    def usage(self) -> str:
        """The limits and what the items used of them, one line, as ``recall`` and ``context``
        both print it: each count is of canonical JSON, as the bounds count (an item's with its
        id, contentDigest, score, sources and trust as well as its text; the total's with the
        array's brackets and commas), never of the text alone."""
        limits = self.limits
        each = ", ".join(str(len(canonical(i))) for i in self.items) or "none"
        return (f"limits: {limits.max_items} items, {limits.max_item_chars} characters each and "
                f"{limits.max_total_chars} in all (ceilings {MAX_ITEMS}/{MAX_ITEM_CHARS}/{MAX_TOTAL_CHARS}), "
                f"counted on canonical JSON (an item's id, digest, score, "
                f"sources, trust and text); used: items {each}, in all {self.chars}")

    def to_json(self) -> dict[str, Any]:
        return {"items": self.items, "limits": self.limits.to_json(), "matched": self.matched,
                "leftOut": self.left_out, "unsafe": self.unsafe, "shortened": self.shortened,
                "chars": {"items": [len(canonical(i)) for i in self.items], "total": self.chars}}


def item_of(candidate: Candidate) -> dict[str, Any]:
    return {"contentDigest": candidate.digest, "id": candidate.id, "score": candidate.score,
            "sources": [flat(s) for s in candidate.sources.split("\n")] if candidate.sources else [],
            "text": flat(candidate.text),
            "trust": candidate.trust}


def fit(item: dict[str, Any], max_chars: int) -> dict[str, Any] | None:
    """The item within ``max_chars`` canonical characters (text, then sources, shortened), or None."""
    if len(canonical(item)) <= max_chars:
        return item
    item = dict(item)
    while len(item["sources"]) > 1 and _room(item, max_chars) < MIN_TEXT:
        item["sources"] = item["sources"][:-1]
    room = _room(item, max_chars)
    if room < MIN_TEXT:
        return None
    text = item["text"]
    keep = room - 1
    while keep > 0:
        kept = text[:_cut(text, keep)].rstrip()
        if not kept:
            return None
        item["text"] = kept + ELLIPSIS
        if len(canonical(item)) <= max_chars:
            return item
        keep -= max(1, (len(canonical(item)) - max_chars))
    return None


def _cut(text: str, keep: int) -> int:
    """Where to cut ``text`` to keep at most ``keep`` characters: before a look-alike word
    rather than anywhere from it to the end of its mark (``LOOKALIKE ... )``), so an agent never
    gets the word, or part of it, without the mark saying which letters to doubt. String
    methods only: the agent hook loads no ``re`` for this."""
    at = text.find(LOOKALIKE)
    while at >= 0:
        start = at
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        if keep <= start:
            break
        end = text.find(")", at) + 1
        if not end:  # no mark closes here (a learning's own words imitating its opening): none follows
            break
        if keep < end:
            return start
        at = text.find(LOOKALIKE, end)
    return keep


def _room(item: dict[str, Any], max_chars: int) -> int:
    return max_chars - len(canonical({**item, "text": ""}))


def bound(candidates: list[Candidate], limits: Limits, safe: Callable[[str], bool] | None = None) -> Recall:
    """Items for the best candidates, within the limits (and passing ``safe``, when given)."""
    items: list[dict[str, Any]] = []
    left_out: list[str] = []
    unsafe: list[str] = []
    shortened: list[str] = []
    total = 2  # the brackets of the array
    for candidate in candidates:
        if len(items) >= limits.max_items:
            left_out.append(candidate.id)
            continue
        full = item_of(candidate)
        budget = min(limits.max_item_chars, limits.max_total_chars - total - (1 if items else 0))
        item = fit(full, budget)
        if item is None:
            left_out.append(candidate.id)
            continue
        if safe is not None and not safe(delivered(item)):
            unsafe.append(candidate.id)
            continue
        if item is not full:
            shortened.append(candidate.id)
        total += len(canonical(item)) + (1 if items else 0)
        items.append(item)
    return Recall(items, limits, len(candidates), left_out, shortened, unsafe)


def delivered(item: dict[str, Any]) -> str:
    """What of an item an agent reads as text: its text and where its evidence came from."""
    return "\n".join([item["text"], *item["sources"]])


def recall(index: Index, query: str, now: str, limits: Limits, exclude: frozenset[str] | set[str] = frozenset(),
           safe: Callable[[str], bool] | None = None) -> Recall:
    """The bounded answer for ``query`` at ``now``, skipping learnings whose digest is in ``exclude``
    and, given ``safe``, items whose delivered form fails it."""
    candidates = index.search(query_terms(query[:MAX_QUERY_CHARS]), now, exclude)
    return bound(candidates, limits, safe)
