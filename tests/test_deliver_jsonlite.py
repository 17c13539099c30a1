"""The hook's JSON (SQLite's JSON functions to read, ``_json``'s encoder to write) agrees with
the standard library's ``json`` on every value it handles."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitstore.deliver.jsonlite import dumps, loads

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)
VALUES = st.recursive(st.none() | st.booleans() | st.integers(-2**53, 2**53) | TEXT,
                      lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                      max_leaves=20)


@settings(max_examples=150, deadline=None)
@given(VALUES)
def test_writing_and_reading_agree_with_the_standard_library(value: object) -> None:
    assert dumps(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert dumps(value, sort_keys=True) == json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    assert loads(json.dumps(value)) == value
    assert loads(json.dumps(value, ensure_ascii=False).encode()) == value


@pytest.mark.parametrize("bad", [b"", b"{", b"{'a': 1}", b"[1,]", b"NaN", b"\xff\xfe", b"{\"a\":1} x"])
def test_what_is_not_json_is_refused(bad: bytes) -> None:
    with pytest.raises(ValueError):
        loads(bad)


def test_numbers_and_escapes_read_as_json_reads_them() -> None:
    text = '{"a": 1.5, "b": -0, "c": "\\ud83d\\ude00\\n", "d": [true, false, null]}'
    assert loads(text) == json.loads(text)
