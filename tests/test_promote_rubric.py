"""The route selection rubric: deterministic rules, reasons recorded, only stricter overrides."""

from __future__ import annotations

from typing import Any

import pytest

from gitstore.errors import Refused
from gitstore.promote import rubric
from gitstore.promote.routing import Owner, Routing

OWNED = Routing(Owner("okf/wiki/reliability.md", "Retries", 12, ("it mentions src/retry.py", "score 15",
                                                                  "section 'Retries'")), None)


def learning(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": "lrn_" + "1" * 32, "audience": "project", "memory": "semantic", "replaces": [],
        "content": {"title": "Retries use jitter", "text": "Every retry loop uses full jitter."},
        "evidence": [{"episode": "ep_" + "a" * 32, "pin": {"pullRequest": 1, "branch": "b", "commit": None}},
                     {"episode": "ep_" + "b" * 32, "pin": {"pullRequest": 2, "branch": "c", "commit": None}}],
    }
    record.update(changes)
    return record


def test_a_narrow_owned_fact_is_a_direct_edit() -> None:
    verdict = rubric.choose(learning(), OWNED)
    assert verdict.route == "direct-edit"
    assert verdict.reasons[-1].startswith("owned by okf/wiki/reliability.md, section 'Retries': it mentions")


@pytest.mark.parametrize(("changes", "routing", "why"), [
    ({"content": {"title": "T", "text": "One.\n\nTwo."}}, OWNED, "broad: it is structured"),
    ({"content": {"title": "T", "text": "- a list item"}}, OWNED, "broad: it is structured"),
    ({"content": {"title": "T", "text": "x " * 301}}, OWNED, "broad: 602 characters"),
    ({"content": {"title": "T", "text": "Cited: `a@b`"}}, OWNED, "gitstore's own block syntax"),
    ({"replaces": ["lrn_" + "2" * 32]}, OWNED, "structural: it replaces"),
    ({}, Routing(None, "no page owns it (best: a.md, score 1 < 4)"), "structural: no page owns it"),
    ({}, Routing(None, "2 pages own it equally (a.md, b.md, score 6)"), "2 pages own it equally"),
    ({}, None, "no wiki to route through"),
])
def test_broad_or_structural_knowledge_is_a_staged_update(changes: dict[str, Any], routing: Routing | None,
                                                          why: str) -> None:
    verdict = rubric.choose(learning(**changes), routing)
    assert verdict.route == "staged-update" and why in verdict.reasons[-1]


def test_audience_and_memory_decide_first() -> None:
    assert rubric.choose(learning(audience="user-tooling"), OWNED).route == "overlay"
    assert rubric.choose(learning(memory="procedural"), OWNED).route == "skill"
    one = learning(memory="procedural")
    one["evidence"][1]["pin"]["pullRequest"] = 1
    assert rubric.choose(one, OWNED).route == "staged-update"
    with pytest.raises(Refused, match="never promoted"):
        rubric.choose(learning(audience="personal"), OWNED)


@pytest.mark.parametrize("second", [
    pytest.param({"pullRequest": 2, "branch": "b", "commit": None}, id="opened-again-from-its-branch"),
    pytest.param({"pullRequest": 2, "branch": "renamed", "commit": "1" * 40}, id="its-commits-on-a-renamed-branch"),
    pytest.param({"pullRequest": None, "branch": "b", "commit": None}, id="its-branch"),
])
def test_a_pull_request_opened_again_is_one_context_for_a_skill(second: dict[str, Any]) -> None:
    """Procedural memory seen on #1 and on #2, the same work opened again from its branch or its
    commits (GitHub numbers it anew), or on #1's branch, is seen in one context: a staged brief."""
    record = learning(memory="procedural")
    record["evidence"][0]["pin"] = {"pullRequest": 1, "branch": "b", "commit": "1" * 40}
    record["evidence"][1]["pin"] = second
    verdict = rubric.choose(record, OWNED)
    assert verdict.route == "staged-update", verdict
    assert verdict.reasons[0].startswith("procedural memory seen in 1 context (") and "are one change" in verdict.reasons[0]
    record["evidence"][1]["pin"] = {"pullRequest": 2, "branch": "c", "commit": "2" * 40}
    assert rubric.choose(record, OWNED).route == "skill"


def test_contexts_are_pull_requests_then_branches_then_episodes() -> None:
    record = learning()
    record["evidence"][0]["pin"] = {"pullRequest": None, "branch": "main", "commit": None}
    record["evidence"][1]["pin"] = {"pullRequest": None, "branch": None, "commit": None}
    assert rubric.contexts(record) == {"branch main", "episode ep_" + "b" * 32}


@pytest.mark.parametrize(("chosen", "requested", "result"), [
    ("direct-edit", None, "direct-edit"), ("direct-edit", "direct-edit", "direct-edit"),
    ("direct-edit", "staged-update", "staged-update"), ("direct-edit", "overlay", "overlay"),
    ("skill", "staged-update", "staged-update"), ("staged-update", "overlay", "overlay"),
    ("direct-edit", "skill", None), ("skill", "direct-edit", None), ("staged-update", "direct-edit", None),
    ("overlay", "staged-update", None),
])
def test_a_person_may_only_ask_for_a_stricter_route(chosen: str, requested: str | None, result: str | None) -> None:
    verdict = rubric.Verdict(chosen, ("r",))
    if result is None:
        with pytest.raises(Refused, match="not stricter"):
            rubric.apply_request(verdict, requested)
    else:
        assert rubric.apply_request(verdict, requested) == result


def test_route_names_on_the_command_line() -> None:
    assert [rubric.route_name(n) for n in ("0", "1", "2", "procedural", "skill")] == [
        "overlay", "direct-edit", "staged-update", "skill", "skill"]
    with pytest.raises(Refused, match="unknown route '3'"):
        rubric.route_name("3")


def test_a_refused_route_is_named_as_the_command_line_spells_it() -> None:
    """`--route procedural`, which the help offers as `procedural (skill)`, was refused as
    `--route skill`, a spelling the person never typed."""
    with pytest.raises(Refused) as refused:
        rubric.apply_request(rubric.Verdict("direct-edit", ("r",)), rubric.route_name("procedural"))
    assert str(refused.value) == ("--route procedural (skill) is not stricter than the rubric's 1 (direct-edit): a "
                                  "person may only ask for a stricter route (stricter: 0 (overlay), "
                                  "2 (staged-update))")
