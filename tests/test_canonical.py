"""RFC 8785 canonical form: the specification vectors, I-JSON refusals, and the fast path
proven byte-identical to the reference on generated input."""

from __future__ import annotations

import json

import orjson
import pytest
import rfc8785
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gitstore import CanonicalizationError, canonicalize, canonicalize_reference, parse_json
from gitstore.records.canonical import _NOT_COMPACT, _parse_compact, _parse_strict, check_ijson

from .conftest import shared

VECTORS = ["arrays", "french", "structures", "unicode", "values", "weird"]


@pytest.mark.parametrize("name", VECTORS)
def test_rfc8785_vectors_byte_exact(name: str) -> None:
    source = shared("rfc8785", "input", f"{name}.json").read_bytes()
    expected = shared("rfc8785", "output", f"{name}.json").read_bytes()
    value = parse_json(source)
    assert canonicalize(value) == expected
    assert canonicalize_reference(value) == expected


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"a": 1, "a": 2}', "duplicate member name 'a'"),
        ('{"x": {"b": 1, "b": 1}}', "duplicate member name 'b'"),
        ('{"s": "\\ud800"}', "lone surrogate in string at $.s"),
        ('{"\\udc00": 1}', "lone surrogate in member name"),
        ('[9007199254740992]', "beyond 2^53"),
        ('[-9007199254740992]', "beyond 2^53"),
        ('[NaN]', "non-finite number NaN"),
        ('[Infinity]', "non-finite number Infinity"),
        ('{"a": 1', "not JSON"),
        ("\ufeff{}", "byte order mark"),
    ],
)
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_refuses_what_ijson_forbids(text: str, error: str, as_bytes: bool) -> None:
    compact = text.replace(": ", ":").replace(", ", ",")  # also as orjson would write it
    for form in {text, compact}:
        with pytest.raises(CanonicalizationError) as info:
            parse_json(form.encode() if as_bytes else form)
        assert error in str(info.value)
        assert "\n" not in str(info.value)


def test_deep_nesting_is_a_clear_refusal() -> None:
    with pytest.raises(CanonicalizationError, match="nested too deeply"):
        parse_json(b"[" * 100_000 + b"]" * 100_000)


@pytest.mark.parametrize("depth", [254, 255, 300])
def test_values_nested_past_the_fast_paths_depth_are_canonicalized_by_the_reference(depth: int) -> None:
    """orjson stops at 254 levels; the reference takes what the interpreter's stack allows."""
    value = parse_json(b"[" * depth + b"1" + b"]" * depth)
    assert canonicalize(value) == rfc8785.dumps(value) == b"[" * depth + b"1" + b"]" * depth


def test_a_value_nested_past_the_references_depth_is_a_clear_refusal() -> None:
    value: list = []
    for _ in range(5000):  # built, not parsed: the parser refuses it before
        value = [value]
    with pytest.raises(CanonicalizationError, match="nested too deeply"):
        canonicalize_reference(value)


def test_refuses_invalid_utf8() -> None:
    with pytest.raises(CanonicalizationError, match="not UTF-8"):
        parse_json(b'{"a": "\xff"}')


def test_floats_refused_when_records_forbid_them() -> None:
    assert parse_json("[1.5]") == [1.5]
    with pytest.raises(CanonicalizationError, match="no floats"):
        parse_json("[1.5]", allow_floats=False)


def test_largest_safe_integers_accepted() -> None:
    assert canonicalize(parse_json("[9007199254740991,-9007199254740991]")) == (
        b"[9007199254740991,-9007199254740991]"
    )


def test_astral_keys_take_the_reference_path() -> None:
    # U+1F602 sorts before U+E000 in UTF-16 code units but after it in code points.
    value = {"\ue000": 1, "\U0001f602": 2}
    assert check_ijson(value) is False
    assert canonicalize(value) == rfc8785.dumps(value)
    assert canonicalize(value).index("\U0001f602".encode()) < canonicalize(value).index(
        "\ue000".encode()
    )


# Records hold strings, integers, booleans, null, lists and objects: generate exactly that,
# across the whole of Unicode (minus lone surrogates, which are refused before this point).
text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=12)
scalars = st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | text
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(text, inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=500, deadline=None)
@given(json_values)
# keys RFC 8785 orders by UTF-16 code units, not code points: one beyond the Basic Multilingual
# Plane (surrogates D800-DBFF) sorts before one of U+E000-U+FFFF, nested too
@example({"\U0001f602": 1, "\ufb01": 2, "\ue000": 3, "a": 4})
@example([{"\uffff": [], "\U00010000": {"\U0010ffff": None, "\uff61": "x"}}])
@example({"\u00e9": "\u2028", "e": "\U0001f602", "": 0})
def test_fast_path_is_byte_identical_to_reference(value: object) -> None:
    assert canonicalize(value) == rfc8785.dumps(value)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_canonical_bytes_parse_back_to_the_same_value(value: object) -> None:
    data = canonicalize(value)
    assert parse_json(data) == value
    assert canonicalize(json.loads(data)) == data


# Compact texts as JSON Lines writers produce them, member names sometimes repeated: the
# compact fast path must read exactly what the strict parser reads, and refuse what it refuses.
_names = st.sampled_from(["a", "b", "\u00e9", "\u2028", "\U0001f602"])


@st.composite
def compact_texts(draw: st.DrawFn) -> bytes:
    members = draw(st.lists(st.tuples(_names, json_values), max_size=5))
    body = b",".join(orjson.dumps(name) + b":" + orjson.dumps(value) for name, value in members)
    return b"{" + body + b"}"


@settings(max_examples=500, deadline=None)
@given(compact_texts())
def test_compact_fast_path_reads_what_the_strict_parser_reads(data: bytes) -> None:
    try:
        strict: object = _parse_strict(data)
    except CanonicalizationError:
        strict = CanonicalizationError
    fast = _parse_compact(data)
    if fast is not _NOT_COMPACT:
        assert fast == strict
    if strict is CanonicalizationError:
        with pytest.raises(CanonicalizationError, match="duplicate member name"):
            parse_json(data)
    else:
        assert parse_json(data) == strict


@settings(max_examples=300, deadline=None)
@given(st.recursive(scalars | st.floats(allow_nan=False, allow_infinity=False), lambda i: st.lists(i, max_size=4), max_leaves=10))
def test_floats_always_take_the_reference_path(value: object) -> None:
    assert canonicalize(value) == rfc8785.dumps(value)
