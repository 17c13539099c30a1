"""The rules' view keeps each equal plain value once, and decides exactly as a view holding
every record whole."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gitstore.context import Context
from gitstore.queries.learnings import learnings, proposals
from gitstore.rules import view as view_module
from gitstore.rules.active import evaluate
from gitstore.rules.view import View, _intern

NOW = "2026-06-01T00:00:00.000000Z"


def test_equal_plain_values_are_kept_once_and_a_boolean_never_stands_for_a_number() -> None:
    record: dict[str, Any] = {
        "pin": {"repository": "github.com/acme/widgets", "pullRequest": 7, "branch": None},
        "flag": {"edited": True}, "count": {"edited": 1},
        "ones": [True], "numbers": [1], "none": [], "empty": {},
        "evidence": [{"episode": "ep_1", "events": ["ev_1"], "pin": {"repository": "github.com/acme/widgets",
                                                                      "pullRequest": 7, "branch": None}}],
    }
    twin = copy.deepcopy(record)
    values: dict[tuple[Any, ...], Any] = {}
    _intern(record, values)
    _intern(twin, values)
    assert record == twin and twin == copy.deepcopy(twin)
    assert twin["pin"] is record["pin"] is record["evidence"][0]["pin"]
    assert twin["evidence"][0]["events"] is record["evidence"][0]["events"]
    assert twin["evidence"] is not record["evidence"]  # arrays of objects stay each record's own
    assert record["flag"] is not record["count"] and record["count"]["edited"] is not True
    assert type(twin["count"]["edited"]) is int and twin["flag"]["edited"] is True
    assert record["ones"] is not record["numbers"] and type(twin["numbers"][0]) is int
    assert twin["none"] is record["none"] and twin["empty"] is record["empty"] and record["none"] is not record["empty"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A store like the rules benchmark's, small: review threads with edits, labels and
    deletions, learnings in every state, replacements, a grant and a withdrawal."""
    from bench.bench_rules import Builder

    return Builder(tmp_path_factory.mktemp("view") / "repo", 150, 1200, 11).build()


@pytest.fixture
def sharing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Views share values from their 50th record on (a big store's views): the records read
    before then are shared when the view reaches it."""
    monkeypatch.setattr(view_module, "SHARE_FROM", 50)


def _whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Views from here on hold every plain value as its record read it."""
    monkeypatch.setattr(view_module, "_once", lambda value, values: value)


def test_a_view_sharing_values_decides_as_one_holding_every_record_whole(
        built: Any, monkeypatch: pytest.MonkeyPatch, sharing: None) -> None:
    shared = View.load(Context.open(str(built.root)).store)
    assert all(i.digest is i.record["digest"] for i in shared.items if i.kind in ("learning", "episode", "event"))
    pins = {id(e["pin"]) for e in shared.episodes.values()}
    assert len(pins) < len(shared.episodes)  # episodes of one pull request hold one pin
    with monkeypatch.context() as patch:
        _whole(patch)
        whole = View.load(Context.open(str(built.root)).store)
    assert len({id(e["pin"]) for e in whole.episodes.values()}) == len(whole.episodes)
    assert [i.record for i in shared.items] == [i.record for i in whole.items]
    for purpose in ("instruction", "review", "analytics"):
        assert evaluate(shared, purpose, NOW) == evaluate(whole, purpose, NOW)
    active = {s.id for s in evaluate(shared, "instruction").values() if s.usable}
    assert active == built.expected


def test_the_learnings_lists_are_the_same_with_values_shared_or_not(
        built: Any, monkeypatch: pytest.MonkeyPatch, sharing: None) -> None:
    ctx = Context.open(str(built.root))
    rows = [r.to_json() for r in learnings(ctx, "instruction")]
    waiting = [r.to_json() for r in proposals(ctx)]
    with monkeypatch.context() as patch:
        _whole(patch)
        assert [r.to_json() for r in learnings(Context.open(str(built.root)), "instruction")] == rows
        assert [r.to_json() for r in proposals(Context.open(str(built.root)))] == waiting
    assert {r["id"] for r in rows if r["usable"]} == built.expected


def test_a_small_view_keeps_its_records_as_read_and_a_growing_one_shares_them_all(
        built: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sharing saves memory only in a big store's view, and costs a small one's read about a
    tenth of its time: a view shares nothing until it has read ``SHARE_FROM`` records, then
    shares those too, and decides the same either way."""
    store = Context.open(str(built.root)).store
    small = View.load(store)
    assert len(small.items) < view_module.SHARE_FROM
    assert len({id(e["pin"]) for e in small.episodes.values()}) == len(small.episodes)
    episodes = list(store.items(["episode"]))
    monkeypatch.setattr(view_module, "SHARE_FROM", len(episodes) + 1)
    growing = View(scope=store.scope)
    growing.add(episodes)  # one short of sharing
    assert len({id(e["pin"]) for e in growing.episodes.values()}) == len(growing.episodes)
    growing.add(store.items(["event"]))  # reaches it: the episodes read before are shared too
    assert len({id(e["pin"]) for e in growing.episodes.values()}) < len(growing.episodes)
    assert all(i.digest is i.record["digest"] for i in growing.items if i.kind in ("episode", "event"))
    monkeypatch.setattr(view_module, "SHARE_FROM", 1)
    shared = View.load(Context.open(str(built.root)).store)
    assert [i.record for i in shared.items] == [i.record for i in small.items]
    for purpose in ("instruction", "review", "analytics"):
        assert evaluate(small, purpose, NOW) == evaluate(shared, purpose, NOW)
