"""Evidence references resolve to stored events in the named episode; the store rebuilds pin,
time and author from storage and refuses a proposal that states different ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstore import Refused

from .world import Thread, grant_all, propose, ready_repo, ref


@pytest.fixture
def world(tmp_path: Path):  # type: ignore[no-untyped-def]
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    one, two = Thread(ctx, 7, "100"), Thread(ctx, 8, "200")
    a = one.comment("100", "Add jitter.", "2026-03-01T10:00:00.000000Z")
    b = two.comment("200", "Add jitter too.", "2026-03-02T10:00:00.000000Z", author="github:1002")
    one.save()
    two.save()
    return ctx, a, b


def test_rebuilt_reference(world) -> None:  # type: ignore[no-untyped-def]
    ctx, a, _ = world
    record = propose(ctx, [ref(a)])
    [evidence] = record["evidence"]
    assert evidence["at"] == a["at"] and evidence["author"] == a["author"]
    assert evidence["pin"]["pullRequest"] == 7


@pytest.mark.parametrize(
    ("forge", "message"),
    [
        ({"pin": {"repository": "github.com/acme/widgets", "pullRequest": 99, "branch": "main", "commit": None}}, "states pin"),
        ({"at": "2026-01-01T00:00:00.000000Z"}, "states at"),
        ({"author": "github:4242"}, "states author"),
    ],
)
def test_forged_pins_times_and_authors_are_refused(world, forge, message) -> None:  # type: ignore[no-untyped-def]
    ctx, a, _ = world
    with pytest.raises(Refused, match=message):
        propose(ctx, [{**ref(a), **forge}])


def test_events_must_belong_to_the_named_episode(world) -> None:  # type: ignore[no-untyped-def]
    ctx, a, b = world
    with pytest.raises(Refused, match="belongs to episode"):
        propose(ctx, [{"episode": a["episode"], "events": [b["id"]]}])
    with pytest.raises(Refused, match="not stored"):
        propose(ctx, [{"episode": a["episode"], "events": ["ev_" + "0" * 32]}])
    with pytest.raises(Refused, match="not stored in this scope"):
        propose(ctx, [{"episode": "ep_" + "0" * 32, "events": [a["id"]]}])


def test_support_counts_independent_origins_not_copies(world) -> None:  # type: ignore[no-untyped-def]
    ctx, a, b = world
    assert propose(ctx, [ref(a), ref(b)], title="Two origins")["support"] == 2
