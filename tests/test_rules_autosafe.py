"""Auto-safe: off by default, strict configuration that fails closed, low-risk kinds with
verified-command evidence only, labelled auto-safe, promoted by a person's accept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitstore.context import Context
from gitstore.rules.autosafe import settings
from gitstore.ops import learning as ops
from gitstore.rules.active import active, evaluate

from .cli import gitstore
from .world import Thread, grant_all, propose, ready_repo, ref


def _configure(ctx, section) -> Context:  # type: ignore[no-untyped-def]
    """Write an automation section; the next command (a fresh context) reads it."""
    path = ctx.workspace.state / "config.json"
    data = json.loads(path.read_text())
    data["automation"] = section
    path.write_text(json.dumps(data))
    return Context.open(str(ctx.workspace.root))


@pytest.fixture
def world(tmp_path: Path):  # type: ignore[no-untyped-def]
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    ran = thread.event("observation", "run:1", "2026-03-01T10:00:00.000000Z", author="github:1001",
                       command="make test", exitCode=0, text="all tests passed")
    failed = thread.event("observation", "run:2", "2026-03-01T11:00:00.000000Z", author="github:1001",
                          command="make lint", exitCode=2, text="lint failed")
    comment = thread.comment("100", "Run make test before pushing.", "2026-03-01T12:00:00.000000Z")
    thread.save()
    return ctx, ran, failed, comment


def test_off_by_default(world) -> None:  # type: ignore[no-untyped-def]
    ctx, ran, *_ = world
    assert settings(ctx.workspace.config).enabled is False
    assert propose(ctx, [ref(ran)], title="Tests", text="Run make test.")["state"] == "proposed"


@pytest.mark.parametrize(
    ("section", "why"),
    [
        ({"autoSafe": True, "kinds": ["convention"], "minEvidence": "verified-command", "extra": 1}, "unknown field 'extra'"),
        ({"autoSafe": True, "kinds": ["decision"]}, "kind 'decision' is not low-risk"),
        ({"autoSafe": True, "minEvidence": "human"}, "weaker than verified-command"),
        ({"autoSafe": "yes"}, "autoSafe must be true or false"),
        ([1], "must be a JSON object"),
    ],
)
def test_bad_configuration_disables_automation_and_says_why(world, section, why) -> None:  # type: ignore[no-untyped-def]
    ctx, ran, *_ = world
    ctx = _configure(ctx, section)
    found = settings(ctx.workspace.config)
    assert found.enabled is False and any(why in p for p in found.problems)
    assert propose(ctx, [ref(ran)], title="Tests", text="Run make test.")["state"] == "proposed"
    done = gitstore("status", cwd=ctx.workspace.root)
    assert done.returncode == 0 and "automation disabled" in done.stdout and why in done.stdout


def test_verified_command_evidence_is_auto_accepted_and_labelled(world) -> None:  # type: ignore[no-untyped-def]
    ctx, ran, failed, comment = world
    ctx = _configure(ctx, {"autoSafe": True, "kinds": ["convention"]})
    record = propose(ctx, [ref(ran)], title="Tests", text="Run make test before pushing.")
    assert record["state"] == "auto-active" and record["decision"]["by"] == "bot:gitstore-auto-safe"
    [(status, _)] = active(ctx.view(), "instruction")
    assert status.trust == "auto-safe"
    assert propose(ctx, [ref(failed)], title="Lint", text="Run make lint.")["state"] == "proposed"
    assert propose(ctx, [ref(comment)], title="Push", text="Test before push.")["state"] == "proposed"
    risky = propose(ctx, [ref(ran)], title="Sudo", text="Run tests with sudo to fix permissions.")
    assert risky["state"] == "proposed"
    promoted = ops.accept(ctx, record["id"], record["reviewDigest"], "github:9")
    assert promoted["state"] == "accepted"
    assert evaluate(ctx.view(), "instruction")[record["id"]].trust == "human"
