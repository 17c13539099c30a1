"""The v1 contracts: examples, vectors, schema hygiene, and reference/fast validator agreement."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitstore import ContractError, GitstoreError, canonicalize, load_record, seal
from gitstore.records import contracts as c
from gitstore.records.times import TIME_PATTERN, parse_time

from .conftest import CONTRACTS

VALID = sorted((CONTRACTS / "examples" / "valid").glob("*.json"))
INVALID = json.loads((CONTRACTS / "examples" / "invalid" / "index.json").read_text())
VECTORS = sorted(p for p in (CONTRACTS / "vectors").iterdir() if p.is_dir())


def test_one_valid_example_per_kind() -> None:
    assert sorted(p.stem for p in VALID) == sorted(c.KINDS)


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_examples_validate(path: Path, reference: bool) -> None:
    record = load_record(path.read_bytes(), reference=reference)
    assert c.kind_of(record) == path.stem


def test_every_invalid_example_is_listed_with_a_reason() -> None:
    files = {p.name for p in (CONTRACTS / "examples" / "invalid").glob("*.json")} - {"index.json"}
    assert files == set(INVALID)
    assert all(meta["why"] and meta["error"] for meta in INVALID.values())


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_examples_fail_for_their_stated_reason(name: str, reference: bool) -> None:
    raw = (CONTRACTS / "examples" / "invalid" / name).read_bytes()
    with pytest.raises(GitstoreError) as info:
        load_record(raw, reference=reference)
    assert INVALID[name]["error"] in str(info.value)
    assert "\n" not in str(info.value)
    assert info.value.exit_code == 1


@pytest.mark.parametrize("vector", VECTORS, ids=lambda p: p.name)
def test_canonical_vectors(vector: Path) -> None:
    value = json.loads((vector / "input.json").read_text(encoding="utf-8"))
    expected = (vector / "output.json").read_bytes()
    assert canonicalize(value) == expected
    digest = (vector / "digest.txt").read_text().strip()
    if vector.name.startswith("record-"):
        assert c.digest_of(value) == digest == value["digest"]
    else:
        assert c.sha256_digest(expected) == digest


def _walk(schema: Any, path: str = "$") -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(schema, dict):
        found.append((path, schema))
        for key, value in schema.items():
            found.extend(_walk(value, f"{path}/{key}"))
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            found.extend(_walk(value, f"{path}/{index}"))
    return found


@pytest.mark.parametrize("kind", [*c.KINDS, "defs"])
def test_schemas_are_strict_and_bounded(kind: str) -> None:
    schema = json.loads((CONTRACTS / f"{kind}.schema.json").read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    for where, node in _walk(schema):
        if node.get("type") == "object":
            assert node.get("additionalProperties") is False, where
        if node.get("type") == "string" and "pattern" not in node:
            assert "maxLength" in node, where
        if node.get("type") == "array":
            assert "maxItems" in node, where
    if kind != "defs":
        assert schema["properties"]["schema"] == {
            "const": f"gitstore.{kind}/v1", "description": "Kind and contract version."
        }
        assert "digest" in schema["x-gitstore"]["digestExcludes"]


def test_events_reserve_future_types() -> None:
    types = c.contract("event").schema["properties"]["type"]["enum"]
    assert {"tool-call", "voice-turn", "ui-state", "agent-message"} <= set(types)


def test_digest_rules_come_from_the_schema() -> None:
    event = json.loads((CONTRACTS / "examples" / "valid" / "event.json").read_text())
    redacted = copy.deepcopy(event)
    del redacted["payload"]
    redacted["redaction"] = {
        "at": "2026-08-01T00:00:00.000000Z", "by": "github:1", "reason": "asked",
        "sourceId": "github:comment:2210001",
    }
    assert c.digest_of(redacted) == event["digest"]
    load_record(json.dumps(redacted))


def test_learning_digests() -> None:
    learning = json.loads((CONTRACTS / "examples" / "valid" / "learning.json").read_text())
    assert c.content_digest(learning) == learning["contentDigest"]
    edited = copy.deepcopy(learning)
    edited["content"]["text"] = "Something else."
    assert c.content_digest(edited) != learning["contentDigest"]
    more_support = copy.deepcopy(learning)
    more_support["support"] = 3
    assert c.content_digest(more_support) == learning["contentDigest"]
    assert c.review_digest(more_support) != learning["reviewDigest"]


@pytest.mark.parametrize(
    ("schema", "error"),
    [
        ("gitstore.event/v2", "unknown schema version"),
        ("gitstore.event/v0", "unknown schema version"),
        ("gitstore.memo/v1", "unknown record kind"),
        ("event/v1", "not of the form"),
    ],
)
def test_kind_of_refuses_other_versions(schema: str, error: str) -> None:
    with pytest.raises(ContractError, match=error):
        c.kind_of({"schema": schema})


# Mutate valid examples at random; the two validators must always agree.
EXAMPLES = {p.stem: json.loads(p.read_text()) for p in VALID}
mutations = st.sampled_from([
    None, "", "x" * 5000, 0, -1, 2**40, True, [], {}, ["review"], {"a": 1},
    "2026-07-15T10:30:00.000000Z", "2026-13-15T10:30:00.000000Z", "2026-02-31T10:30:00.000000Z",
    "2100-02-29T00:00:00.000000Z", "2024-02-29T00:00:00.000000Z", "0000-02-29T00:00:00.000000Z",
    "sha256:" + "0" * 64,
    "ev_" + "0" * 32, "github:1", "../x", "accepted",
    # JSON Schema's $ ends the string; Python's also matches before a final newline
    "github:1\n", "sha256:" + "0" * 64 + "\n", "ev_" + "0" * 32 + "\n", "2026-07-15T10:30:00.000000Z\n",
])


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(sorted(EXAMPLES)), st.data())
def test_validators_agree_on_mutated_records(kind: str, data: st.DataObject) -> None:
    record = copy.deepcopy(EXAMPLES[kind])
    target = record
    keys = [k for k in record if k not in ("schema", "digest")]
    key = data.draw(st.sampled_from(keys))
    while isinstance(target[key], dict) and target[key] and data.draw(st.booleans()):
        target = target[key]
        key = data.draw(st.sampled_from(sorted(target)))
    if data.draw(st.booleans()):
        del target[key]
    else:
        target[key] = data.draw(mutations)
    verdicts = _sealed_verdicts(record, kind)
    assert verdicts is None or bool(verdicts[0]) == bool(verdicts[1]), verdicts


def _sealed_verdicts(record: dict[str, Any], kind: str) -> tuple[list[str], list[str]] | None:
    """What the compiled validator and the reference find wrong with RECORD, its digest made
    again (None: it cannot be sealed, so no verdict is asked of either)."""
    record.pop("digest")
    try:
        seal(record)
    except GitstoreError:
        return None
    return c.schema_errors(record, kind), c.schema_errors(record, kind, reference=True)


def _strings(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The paths of every string held in ``value`` (the schema and digest fields left out)."""
    if isinstance(value, str):
        yield path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, held in items:
        if path or key not in ("schema", "digest"):
            yield from _strings(held, (*path, key))


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_a_final_newline_fails_every_pattern_in_both_validators(kind: str) -> None:
    """A value that matches its pattern but for a newline at the end: JSON Schema's ``$`` is
    the end of the string, so the reference refuses it as the compiled validator does."""
    for path in _strings(EXAMPLES[kind]):
        record = copy.deepcopy(EXAMPLES[kind])
        target = record
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] += "\n"
        verdicts = _sealed_verdicts(record, kind)
        assert verdicts is None or bool(verdicts[0]) == bool(verdicts[1]), (path, verdicts)


CALENDAR = [
    ("2026-02-31T00:00:00.000000Z", False), ("2026-04-31T23:59:59.999999Z", False),
    ("2100-02-29T00:00:00.000000Z", False), ("0000-01-01T00:00:00.000000Z", False),
    ("0000-02-29T00:00:00.000000Z", False), ("1900-02-29T00:00:00.000000Z", False),
    ("2024-02-29T00:00:00.000000Z", True), ("2000-02-29T12:00:00.000000Z", True),
    ("2026-12-31T23:59:59.999999Z", True), ("0001-01-01T00:00:00.000000Z", True),
]


@pytest.mark.parametrize(("time", "real"), CALENDAR, ids=[t[:10] for t, _ in CALENDAR])
def test_a_time_must_be_a_calendar_date_for_both_validators_and_every_read(time: str, real: bool) -> None:
    grant = copy.deepcopy(EXAMPLES["grant"])
    grant.pop("digest")
    grant["from"] = time
    seal(grant)
    fast, reference = c.schema_errors(grant, "grant"), c.schema_errors(grant, "grant", reference=True)
    assert (fast == []) == (reference == []) == real, (fast, reference)
    data = canonicalize(grant)
    if real:
        assert c.verify_stored(data, grant["digest"], "grant")["from"] == time
    else:
        assert fast[0].startswith("$.from: ")
        with pytest.raises(ContractError, match=r"\$\.from"):
            c.verify_stored(data, grant["digest"], "grant")
        with pytest.raises(GitstoreError, match="time"):
            parse_time(time)


def test_the_time_pattern_has_one_home() -> None:
    assert c._load("defs")["$defs"]["time"]["pattern"] == TIME_PATTERN


def test_the_relative_path_pattern_has_one_home() -> None:
    from gitstore.capture.screening import RELPATH_LIMIT, RELPATH_PATTERN

    relpath = c._load("defs")["$defs"]["relpath"]
    assert (relpath["pattern"], relpath["maxLength"]) == (RELPATH_PATTERN, RELPATH_LIMIT)
