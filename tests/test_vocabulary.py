"""Each vocabulary has one home (``gitstore.records.vocabulary``) and equals its contract's enum."""

from __future__ import annotations

from typing import Any

import pytest

from gitstore.capture.harnesses import HARNESSES as ADAPTERS
from gitstore.records import contracts, vocabulary as v

# list -> (contract, path to the enum inside it, names the list leaves out of the enum)
ENUMS: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "PURPOSES": ("defs", ("$defs", "purpose"), ()),
    "SOURCES": ("defs", ("$defs", "sourceKind"), ()),
    "HARNESSES": ("defs", ("$defs", "harness"), ("manual",)),
    "CAPTURE_MODES": ("defs", ("$defs", "mode"), ()),
    "CAPTURE_STATES": ("receipt", ("properties", "status"), ()),
    "RECEIPT_REASONS": ("receipt", ("properties", "reasons", "items"), ()),
    "EVENT_TYPES": ("event", ("properties", "type"), ()),
    "ROLES": ("event", ("properties", "payload", "properties", "role"), ()),
    "LABEL_POLARITIES": ("event", ("properties", "payload", "properties", "label", "properties", "polarity"), ()),
    "CATEGORIES": ("learning", ("properties", "category"), ()),
    "MEMORY_KINDS": ("learning", ("properties", "memory"), ()),
    "AUDIENCES": ("learning", ("properties", "audience"), ()),
    "CONFIDENCES": ("learning", ("properties", "confidence"), ()),
    "LEARNING_STATES": ("learning", ("properties", "state"), ()),
    "PROPOSER_KINDS": ("learning", ("properties", "proposer", "properties", "kind"), ()),
    "AUDIT_ACTIONS": ("audit", ("properties", "action"), ()),
}
# other places of the contracts that repeat a list: they must agree with it too
ALSO = {
    "CAPTURE_STATES": [("episode", ("properties", "capture"))],
    "CATEGORIES": [("event", ("properties", "payload", "properties", "label", "properties", "category"))],
    "MEMORY_KINDS": [("packet", ("properties", "memory"))],
}


def enum(kind: str, path: tuple[str, ...]) -> list[Any]:
    node: Any = contracts._load(kind)
    for key in path:
        node = node[key]
    values: list[Any] = node["enum"]
    return values


def test_every_public_list_is_checked() -> None:
    lists = {name for name in v.__all__ if isinstance(getattr(v, name), tuple)}
    assert lists == set(ENUMS)


@pytest.mark.parametrize("name", sorted(ENUMS))
def test_each_list_equals_its_enum(name: str) -> None:
    kind, path, left_out = ENUMS[name]
    assert list(getattr(v, name)) == [x for x in enum(kind, path) if x not in left_out]
    for other, other_path in ALSO.get(name, []):
        assert set(enum(other, other_path)) == set(getattr(v, name)), (other, other_path)


def test_the_default_capture_mode_is_a_mode() -> None:
    assert v.DEFAULT_CAPTURE_MODE in v.CAPTURE_MODES


def test_every_hook_adapter_captures_a_known_harness() -> None:
    assert {adapter.harness for adapter in ADAPTERS.values()} == set(v.HARNESSES)
