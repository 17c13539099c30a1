"""Overlapping hits of the scanner's finders: the lower priority wins, then the earlier and
longer, and a hit overlapping one kept is dropped, however many there are."""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from hypothesis import given, settings
from hypothesis import strategies as st

from gitstore.safety.scanner import _resolve, default_scanner
from gitstore.safety.spans import Hit


def _resolve_one_by_one(hits: Iterable[Hit]) -> list[Hit]:
    """The rule written plainly: each hit in order of precedence, kept unless it overlaps one kept."""
    starts: list[int] = []
    accepted: list[Hit] = []
    for hit in sorted(hits, key=lambda h: (h.priority, h.start, h.start - h.end)):
        i = bisect.bisect_right(starts, hit.start)
        if i and accepted[i - 1].end > hit.start:
            continue
        if i < len(accepted) and accepted[i].start < hit.end:
            continue
        starts.insert(i, hit.start)
        accepted.insert(i, hit)
    return accepted


@st.composite
def _hits(draw: st.DrawFn) -> list[Hit]:
    spans = draw(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 8), st.integers(0, 3)), max_size=30))
    return [Hit(start, start + length, f"kind{n}", priority) for n, (start, length, priority) in enumerate(spans)]


@settings(max_examples=300, deadline=None)
@given(_hits())
def test_hits_are_resolved_as_one_by_one_in_order_of_precedence(hits: list[Hit]) -> None:
    assert _resolve(hits) == _resolve_one_by_one(hits)


def test_many_interleaved_hits_are_each_redacted() -> None:
    """Keys and home folders one after another, a hundred thousand of each: every one is
    redacted, and each kept hit is not inserted among all those kept before it."""
    text = "AKIAQ7ZK3MBT6XW4PRNV /home/ab " * 100_000
    result = default_scanner().scan(text)
    assert {(f.kind, f.count) for f in result.findings} == {("aws-access-key", 100_000), ("home-path", 100_000)}
    assert "AKIA" not in result.text and "/home/ab" not in result.text
