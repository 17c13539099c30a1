"""Two teammates importing the same GitHub comments (from different sets of deliveries) hold one
event per comment version once their clones meet: real git, a bare remote, two clones."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from gitstore.capture.reviews import import_reviews, place
from gitstore.context import Context
from gitstore.queries import evidence
from gitstore.records.contracts import seal

from .conftest import git, shared
from .team import first_clone, sync, team_clone

HOOKS = ("reviews", "octokit-webhooks")


def _team(tmp: Path) -> tuple[Context, Context]:
    """Alice and bob, clones of one remote whose origin is the repository the deliveries name."""
    bare = tmp / "remote.git"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(bare))
    git(bare, "remote", "add", "origin", "https://github.com/Codertocat/Hello-World.git")
    alice = Context.open(first_clone(tmp, bare))
    return alice, team_clone(tmp, bare, "bob")


def _digests_by_id(ctx: Context) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for item in ctx.store.items(["event"]):
        found.setdefault(item.record["id"], set()).add(item.digest)
    return found


def _shown(ctx: Context) -> dict[str, tuple[int, list[str]]]:
    """Each review thread's count and the event ids `gitstore evidence` lists for it."""
    shown = {}
    for listed in evidence.episodes(ctx):
        one = evidence.evidence(ctx, listed.episode["id"])
        assert one.count == listed.count
        shown[listed.episode["id"]] = (listed.count, [e.event["id"] for e in one.events])
    return shown


def test_two_clones_importing_one_comment_from_different_deliveries_write_one_record(tmp_path: Path) -> None:
    """A comment's events were numbered in the order each import met them: alice, importing
    every delivery, wrote the comment's deletion third in its thread, bob, importing the review
    comments alone, first; after a sync the thread listed the deletion twice and counted five
    events for four. An event's place comes from its own time now, so both write one record."""
    alice, bob = _team(tmp_path)
    import_reviews(alice, shared(*HOOKS), "github:9")
    import_reviews(bob, shared(*HOOKS, "pull_request_review_comment"), "github:10")
    alice, bob = sync(alice, bob)
    for ctx in (alice, bob):
        twice = {eid: digests for eid, digests in _digests_by_id(ctx).items() if len(digests) > 1}
        assert twice == {}, "two records of one event"
        for count, ids in _shown(ctx).values():
            assert count == len(ids) == len(set(ids))
    assert _shown(alice) == _shown(bob)
    for item in alice.store.items(["event"]):
        assert item.record["seq"] == place(item.record["at"])


def test_an_event_stored_twice_with_different_places_is_listed_and_counted_once(tmp_path: Path) -> None:
    """Stores written before an event's place came from its time hold such pairs: `evidence`
    and `episodes` show one of them, the same one on every clone (the first in store order, as
    the rules and a dream read events)."""
    alice, bob = _team(tmp_path)
    import_reviews(alice, shared(*HOOKS, "pull_request_review_comment"), "github:9")
    alice, bob = sync(alice, bob)
    theirs = [i.record for i in bob.store.items(["event"], payloads=True)]
    copies = []
    for record in theirs:
        copy = {k: v for k, v in record.items() if k not in ("digest", "payloadDigest")}
        copies.append(seal({**copy, "seq": record["seq"] + 7}))  # as another order of import numbered it
    bob.write(copies, "import", "github:10", [c["id"] for c in copies])
    alice, bob = sync(alice, bob)
    for ctx in (alice, bob):
        assert all(len(d) == 2 for d in _digests_by_id(ctx).values())
        shown = _shown(ctx)
        assert shown and all(count == len(ids) == len(set(ids)) for count, ids in shown.values())
        assert sum(count for count, _ in shown.values()) == len(theirs)
        listed = [e.event for listed in evidence.episodes(ctx) for e in evidence.evidence(ctx, listed.episode["id"]).events]
        assert Counter(e["digest"] for e in listed) == Counter(r["digest"] for r in theirs), "the first stored stands"
        assert ctx.store.verify().ok
