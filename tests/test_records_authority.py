"""Decisions and the audit entries that vouch for them (``gitstore.records.authority``)."""

from __future__ import annotations

from typing import Any

from gitstore.records.authority import unvouched


def decision(n: int, state: str = "accepted", by: str = "github:9") -> dict[str, Any]:
    return {"schema": "gitstore.learning/v1", "scope": "s", "id": f"lrn_{n}", "digest": f"sha256:{n}",
            "state": state, "decision": {"by": by}}


def audit(action: str, by: str, subjects: list[str], records: list[str]) -> dict[str, Any]:
    return {"schema": "gitstore.audit/v1", "scope": "s", "action": action, "by": by,
            "subjects": subjects, "records": records}


def test_each_decision_needs_an_entry_naming_it_with_its_action_and_person() -> None:
    vouched = decision(1)
    wrong_action = decision(2)
    wrong_person = decision(3)
    not_named = decision(4)
    records = [vouched, wrong_action, wrong_person, not_named,
               audit("accept", "github:9", ["lrn_1"], ["sha256:1"]),
               audit("reject", "github:9", ["lrn_2"], ["sha256:2"]),
               audit("accept", "github:8", ["lrn_3"], ["sha256:3"]),
               audit("accept", "github:9", ["lrn_4"], ["sha256:other"])]
    assert unvouched(records) == [wrong_action, wrong_person, not_named]


def test_one_entry_may_vouch_for_several_and_many_decisions_cost_what_they_hold() -> None:
    decisions = [decision(n) for n in range(20_000)]
    entries = [audit("accept", "github:9", [d["id"]], [d["digest"]]) for d in decisions]
    shared = audit("accept", "github:9", ["lrn_a", "lrn_b"], ["sha256:a", "sha256:b"])
    pair = [{**decision(0), "id": "lrn_a", "digest": "sha256:a"}, {**decision(0), "id": "lrn_b", "digest": "sha256:b"}]
    assert unvouched([*decisions, *entries, *pair, shared]) == []
