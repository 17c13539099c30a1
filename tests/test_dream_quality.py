"""Dream verdicts on a small fixed corpus written in public formats (GitHub REST review comments,
Claude Code and Codex sessions) with planted truths, theme by theme. The bench measures the same
on more corpora; timings are never asserted here."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from bench.bench_dream import dream_on_corpus, evaluate


@pytest.fixture(scope="module")
def dreamt(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    return dream_on_corpus(tmp_path_factory.mktemp("corpus"), seed=3)


def _outcomes(truth: dict[str, Any], report: dict[str, Any], keys: dict[str, str]) -> dict[str, set[str]]:
    """Planted theme -> how the dream treated the evidence planted for it."""
    owner = {}
    for name, theme in truth["themes"].items():
        owner.update({f"comment:{c}": name for c in theme.get("comments", [])})
        owner.update({f"session:{s}": name for s in theme.get("sessions", [])})
    found: dict[str, set[str]] = defaultdict(set)
    for section, outcome in (("proposed", "proposed"), ("heldBack", "held-back"), ("rejected", "rejected")):
        for entry in report[section]:
            for ref in entry["evidence"]:
                for event in ref["events"]:
                    name = owner.get(keys.get(event, ""))
                    if name:
                        found[name].add(outcome)
    return found


def test_every_planted_theme_gets_its_verdict(dreamt: tuple[dict[str, Any], dict[str, Any], dict[str, str]]) -> None:
    truth, report, keys = dreamt
    found = _outcomes(truth, report, keys)
    for name, theme in truth["themes"].items():
        if theme["expected"] == "absent":
            assert name not in found, name
        else:
            assert found[name] == {theme["expected"]}, (name, found.get(name))


def test_the_reasons_name_what_was_wrong(dreamt: tuple[dict[str, Any], dict[str, Any], dict[str, str]]) -> None:
    _, report, _ = dreamt
    reasons = {v["theme"]: v["reasons"][0] for v in report["rejected"] + report["heldBack"]}
    assert any(r.startswith("one origin: 5 copies of one text") for r in reasons.values())
    assert any(r.startswith("one origin: 2 copies") for r in reasons.values())
    assert any(r.startswith("one person: every origin is by github:") for r in reasons.values())
    assert any(r.startswith("one person: every origin is by the local user") for r in reasons.values())
    assert any(r.startswith("quarantined: 2 of its 2 origins speak to AI agents") for r in reasons.values())
    assert sum(r.startswith("contested: 1 objection(s)") for r in reasons.values()) == 2


def test_the_goals_hold_on_this_corpus(dreamt: tuple[dict[str, Any], dict[str, Any], dict[str, str]]) -> None:
    truth, report, keys = dreamt
    scores = evaluate(truth, report, keys)
    assert scores["falsePositives"] == 0 and scores["found"] == scores["wanted"] == 11
    assert scores["decoysRejected"] == scores["decoys"] == 3
    assert scores["contestedHeld"] == scores["contested"] == 2
    assert scores["injections"] == scores["secrets"] == scores["secretsAnywhere"] == 0
    assert scores["audienceRight"] == scores["audienceTotal"] and scores["replayOnce"] == 1
    audiences = {p["audience"] for p in report["proposed"]}
    assert audiences == {"project", "user-tooling"}
