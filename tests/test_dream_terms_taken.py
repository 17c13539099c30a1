"""Telling which words of a text were already read as a path, a code span or an identifier.

Each word and identifier used to be asked against every span taken before it, so a text of
20,000 characters made of identifiers ("x_y a_b c_d. " again and again) cost seconds to read,
and a dream over ten such comments half a minute. ``terms.tokens`` now keeps a mark per
character. Its answer must be the same as before, word for word: the reference below is the
function as it was, and both read the third-party material and hostile texts."""

from __future__ import annotations

import json
import random
from array import array
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

import pytest

from gitstore.dream import terms

from .conftest import shared_params


def reference_tokens(text: str, counter: list[int] | None = None) -> terms.Tokens:
    """``terms.tokens`` as it was, asking each span against every span taken; ``counter``
    counts those comparisons."""
    def overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
        if counter is not None:
            counter[0] += len(taken)
        return any(start < span[1] and span[0] < end for start, end in taken)

    own = terms.masked(text)
    inner: list[terms.Word] = []
    identifiers: list[terms.Word] = []
    taken: list[tuple[int, int]] = []
    globs: tuple[str, ...] = ()
    if "/" in own or "*." in own:
        paths = list(terms._PATH.finditer(own))
        taken = [m.span() for m in paths]
        globs = tuple(dict.fromkeys(terms.glob_of(m.group(0)) for m in paths))
    if "`" in own:
        for match in terms._CODE_SPAN.finditer(own):
            code = match.group(1).strip()
            if code and not overlaps(match.span(), taken):
                identifiers.append(("id:" + code.lower(), match.start(1), match.end(1)))
                inner.extend(terms._split_words(code, match.start(1)))
                taken.append(match.span())
    if terms._MAYBE_IDENTIFIER.search(own):
        for match in terms._IDENTIFIER.finditer(own):
            if overlaps(match.span(), taken):
                continue
            name = match.group(0).removesuffix("()")
            identifiers.append(("id:" + name.lower(), match.start(), match.start() + len(name)))
            inner.extend(terms._split_words(name, match.start()))
            taken.append(match.span())
    low = own.lower()
    if len(low) != len(own):
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in own)
    found = list(terms._WORD.finditer(low))
    if taken:
        found = [m for m in found if not overlaps(m.span(), taken)]
    spelt = (m.group(0) for m in found)
    if "'" in low or "\u2019" in low:
        spelt = map(terms._unquoted, spelt)
    return terms.Tokens(tuple(spelt), array("I", chain.from_iterable(m.span() for m in found)),
                        tuple(inner), tuple(identifiers), globs)


HOSTILE = [
    "x_y a_b c_d. ", "a_b ", "`a_b` ", "src/a_b.py ", "fetchUser() ", "os.path.join ", "`src/x.py` x.y ",
    "*.py a_b.c_d `e` ", "> quoted a_b\n", "```\na_b\n```\nc_d ", "<blockquote>a_b</blockquote> e_f ",
    "İstanbul_x ßtraße_y ", "don't retry's a_b’s ", "`` ` `a` `b_c`` ", "src/é_ü/ß.py `ñ_o` ",
]


def _hostile_texts() -> Iterator[str]:
    for unit in HOSTILE:
        yield (f"Please fix retry_loop: {unit}" * 400)[:3000]
    rng = random.Random(11)
    pieces = ["a", "b_c", "`", " ", ".", "/", "*", "()", "src/", ".py", "x.y", "Camel", "Case", "'", "\n",
              "> ", "```", "İ", "é", "_", "-", "~", "retry", "don't", "<blockquote>", "</blockquote>"]
    for _ in range(300):
        yield "".join(rng.choice(pieces) for _ in range(rng.randint(1, 400)))


def _same(text: str) -> None:
    assert terms.tokens(text) == reference_tokens(text), text[:200]


def test_tokens_of_hostile_texts_are_those_of_the_reference() -> None:
    for text in _hostile_texts():
        _same(text)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _texts(path: Path) -> Iterator[str]:
    """The file whole (when small enough for the reference to read quickly), each of its lines,
    and every string of the JSON it holds: comment bodies, turns, tool output."""
    raw = path.read_text(encoding="utf-8")
    if len(raw) <= 64_000:
        yield raw
    documents = [raw, *raw.splitlines()]
    for document in documents:
        if document is not raw:
            yield document
        try:
            yield from _strings(json.loads(document))
        except ValueError:
            pass


def _is_text(path: Path) -> bool:
    try:
        path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return False
    return True


@pytest.mark.parametrize("path", [*shared_params("transcripts", keep=_is_text), *shared_params("reviews", keep=_is_text)])
def test_tokens_of_the_third_party_material_are_those_of_the_reference(path: Path | None) -> None:
    assert path is not None
    for text in _texts(path):
        _same(text)


def _counting() -> Any:
    """``terms._Taken`` counting the characters each question about taken spans may look at."""
    class Counting(terms._Taken):
        looked = 0

        def add(self, span: tuple[int, int]) -> None:
            Counting.looked += span[1] - span[0]
            super().add(span)

        def overlaps(self, span: tuple[int, int]) -> bool:
            Counting.looked += span[1] - span[0]
            return bool(super().overlaps(span))

    return Counting


@pytest.mark.parametrize("unit", ["x_y a_b c_d. ", "a_b ", "`a_b` ", "src/a.py b_c "])
def test_telling_what_is_taken_costs_the_length_of_the_text_not_its_square(
        monkeypatch: pytest.MonkeyPatch, unit: str) -> None:
    """Paths, code spans, identifiers and words each lie apart from one another, so asking
    about them all looks at each character a few times at most, however many are taken; the
    reference compared every word with every identifier before it."""
    counting = _counting()
    monkeypatch.setattr(terms, "_Taken", counting)
    for size in (5_000, 10_000, 20_000, 40_000):
        text = (unit * (size // len(unit) + 1))[:size]
        counting.looked = 0
        terms.tokens(text)
        assert 0 < counting.looked <= 4 * size, (unit, size, counting.looked)
    compared = [0]
    reference_tokens((unit * 1_000)[:2_000], compared)
    assert compared[0] > 50 * 2_000, "the reference's work grows with the square of the text"
