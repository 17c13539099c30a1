"""Consent decided at read time: grants, their ranges and sources, withdrawals, labels,
deletions, and fail-closed reads of damaged consent records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitstore import IntegrityError
from gitstore.ops import consent
from gitstore.rules.active import active
from gitstore.rules.consent import decide

from .cli import gitstore
from .world import Thread, accepted, grant_all, propose, ready_repo, ref


@pytest.fixture
def ctx(tmp_path: Path):  # type: ignore[no-untyped-def]
    return ready_repo(tmp_path / "widgets")


def test_evidence_needs_a_grant_naming_purpose_source_and_time(ctx) -> None:  # type: ignore[no-untyped-def]
    thread = Thread(ctx, 7, "100")
    early = thread.comment("100", "Add jitter.", "2026-03-01T10:00:00.000000Z")
    reply = thread.comment("101", "Still needs jitter.", "2026-05-02T10:00:00.000000Z")
    thread.save()
    view = ctx.view()
    assert not decide(view, early["id"], "review").ok  # no grant at all
    consent.grant(ctx, "github:9", ["review"], ["review-thread"], "2026-01-01T00:00:00.000000Z",
                  "2026-04-30T23:59:59.999999Z", None)
    consent.grant(ctx, "github:9", ["training"], ["agent-session"], "2026-01-01T00:00:00.000000Z", None, None)
    view = ctx.view()
    assert decide(view, early["id"], "review").ok
    assert not decide(view, early["id"], "instruction").ok  # purpose not granted
    assert not decide(view, early["id"], "training").ok  # source not named
    verdict = decide(view, reply["id"], "review")
    assert not verdict.ok, "a reply written after the range is not covered though its thread began inside"
    assert "written at 2026-05-02" in verdict.reason


def test_a_later_grant_can_cover_earlier_evidence(ctx) -> None:  # type: ignore[no-untyped-def]
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Add jitter.", "2025-06-01T10:00:00.000000Z")
    thread.save()
    grant_all(ctx, start="2025-01-01T00:00:00.000000Z")
    assert decide(ctx.view(), comment["id"], "review").ok


def test_a_label_counts_only_while_its_comment_does_and_takes_its_time(ctx) -> None:  # type: ignore[no-untyped-def]
    grant_all(ctx, until="2026-03-31T00:00:00.000000Z")
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Add jitter.", "2026-03-01T10:00:00.000000Z")
    label = thread.label(comment, "retry-jitter", "2026-06-01T00:00:00.000000Z")  # labelled after the range
    thread.save()
    assert decide(ctx.view(), label["id"], "review").ok, "a label's time is its comment's time"
    thread.retract(comment, "2026-03-05T00:00:00.000000Z")
    thread.save()
    view = ctx.view()
    assert not decide(view, comment["id"], "review").ok
    assert not decide(view, label["id"], "review").ok


def test_deletion_removes_every_version_of_the_comment(ctx) -> None:  # type: ignore[no-untyped-def]
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    first = thread.comment("100", "Add jitter.", "2026-03-01T10:00:00.000000Z")
    second = thread.edit(first, "100", "Add full jitter.", "2026-03-01T11:00:00.000000Z")
    thread.retract(second, "2026-03-02T00:00:00.000000Z")
    thread.save()
    view = ctx.view()
    assert not decide(view, first["id"], "review").ok
    assert not decide(view, second["id"], "review").ok


def test_withdrawal_removes_dependent_learnings_at_once(ctx) -> None:  # type: ignore[no-untyped-def]
    grant = grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Add jitter.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    learning = accepted(ctx, propose(ctx, [ref(comment)]))
    assert [s.id for s, _ in active(ctx.view(), "instruction")] == [learning["id"]]
    consent.withdraw(ctx, "github:9", grant["digest"], ["instruction"], "paused")
    assert active(ctx.view(), "instruction") == []
    assert [s.id for s, _ in active(ctx.view(), "review")] == [learning["id"]]


def test_counterevidence_is_a_dependency_too(ctx) -> None:  # type: ignore[no-untyped-def]
    grant_all(ctx, until="2026-03-31T00:00:00.000000Z")
    thread = Thread(ctx, 7, "100")
    support = thread.comment("100", "Add jitter.", "2026-03-01T10:00:00.000000Z")
    other = Thread(ctx, 8, "200")
    dissent = other.comment("200", "Jitter is not needed here.", "2026-03-02T10:00:00.000000Z", author="github:2002")
    thread.save()
    other.save()
    learning = accepted(ctx, propose(ctx, [ref(support)], counter=[ref(dissent)]))
    assert active(ctx.view(), "instruction")
    other.retract(dissent, "2026-03-03T00:00:00.000000Z")
    other.save()
    statuses = dict((s.id, s) for s, _ in active(ctx.view(), "instruction"))
    assert learning["id"] not in statuses


def _plant_damaged(ctx, kind: str) -> str:  # type: ignore[no-untyped-def]
    from .test_provider_git import hash_object, plant

    from gitstore.providers.git import record_path, records_ref

    record = json.loads(next(i for i in ctx.store.items([kind])).stored.data)
    record["reason"] = "tampered after sealing" if kind == "withdrawal" else record.get("note")
    record["purposes"] = ["training"]
    data = json.dumps(record, separators=(",", ":"), sort_keys=True).encode()
    fake_digest = "sha256:" + "e" * 64
    ref_name = records_ref("shared", ctx.workspace.config.writer)
    plant(ctx.workspace.root, ref_name, record_path(kind, fake_digest), hash_object(ctx.workspace.root, data))
    return fake_digest


def test_a_damaged_withdrawal_fails_closed_with_exit_3(ctx) -> None:  # type: ignore[no-untyped-def]
    grant = grant_all(ctx)
    consent.withdraw(ctx, "github:9", grant["digest"], ["instruction"], "paused")
    digest = _plant_damaged(ctx, "withdrawal")
    with pytest.raises(IntegrityError, match=digest):
        ctx.view()
    done = gitstore("learnings", "--active", cwd=ctx.workspace.root)
    assert done.returncode == 3 and digest in done.stderr and "Traceback" not in done.stderr
