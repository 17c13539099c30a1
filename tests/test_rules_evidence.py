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


def test_one_reviewer_on_a_pull_request_and_on_it_opened_again_is_one_origin_of_support(tmp_path: Path) -> None:
    """#9 is #7 closed and opened again from its branch (GitHub numbers it anew): the reviewer
    of #7 saying it again there is one origin of support, which the person deciding is shown;
    a second reviewer there is one more."""
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    threads = [Thread(ctx, pr, root, branch="feature/retry") for pr, root in ((7, "100"), (9, "300"), (9, "400"))]
    said = [thread.comment(root, text, at, author=who) for thread, root, text, at, who in zip(
        threads, ("100", "300", "400"), ("Add jitter.", "Jitter the backoff here too.", "Agreed on jitter."),
        ("2026-03-01T10:00:00.000000Z", "2026-03-02T10:00:00.000000Z", "2026-03-03T10:00:00.000000Z"),
        ("github:1001", "github:1001", "github:1002"))]
    for thread in threads:
        thread.save()
    assert propose(ctx, [ref(said[0]), ref(said[1])], title="One reviewer")["support"] == 1
    assert propose(ctx, [ref(e) for e in said], title="Two reviewers")["support"] == 2


def _pin(pr: int, branch: str | None, commit: str | None = None) -> dict:
    return {"repository": "github.com/acme/widgets", "pullRequest": pr, "branch": branch, "commit": commit}


@pytest.mark.parametrize("pins, changes", [
    pytest.param([_pin(7, "feature/a"), _pin(9, "feature/a")], {7: (7, 9), 9: (7, 9)}, id="one-head-branch"),
    pytest.param([_pin(7, "feature/a"), _pin(9, "feature/b"), _pin(9, "feature/a")], {7: (7,), 9: (9,)},
                 id="a-pull-request-claiming-two-heads-joins-by-neither"),
    pytest.param([_pin(7, "feature/a", "1" * 40), _pin(9, "feature/b", "1" * 40)], {7: (7, 9), 9: (7, 9)},
                 id="one-commit"),
])
def test_pull_requests_are_one_change_by_their_one_head_branch_or_a_commit(pins: list, changes: dict) -> None:
    from gitstore.rules.evidence import one_change

    assert one_change(pins)[0] == changes
    assert one_change(reversed(pins))[0] == changes


def test_without_commits_only_a_head_branch_joins() -> None:
    from gitstore.rules.evidence import one_change

    pins = [_pin(7, "feature/a", "1" * 40), _pin(9, "feature/b", "1" * 40), _pin(11, "feature/a")]
    assert one_change(pins, commits=False) == ({7: (7, 11), 9: (9,), 11: (7, 11)}, {"feature/a": 7, "feature/b": 9})
