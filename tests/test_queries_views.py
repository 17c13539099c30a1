"""The view learnings are judged with keeps, from one read of the cited episodes, the records it
held as they were read, and reads again only the others (``gitstore.queries._views``)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gitstore.context import Context
from gitstore.providers import Stored
from gitstore.queries import _views, learnings
from gitstore.queries._views import Evidence, learning_view
from gitstore.store import Item, Store


def _event(event_id: str, episode: str, type_: str = "comment", parent: str | None = None,
           digest: str | None = None, place: int = 0) -> Item:
    record = {"id": event_id, "episode": episode, "type": type_, "parentEventId": parent}
    stored = Stored(digest or f"sha256:{event_id}-{episode}", "event", episode, b"{}", "shared", "w", 1, place, "a")
    return Item(record, stored)


def _read_again(read: list[Item], asked: list[tuple[set[str], set[str]]]) -> Any:
    """A second read of the same records, in the same order, noting what it was asked for."""
    def again(streams: set[str], digests: set[str]) -> list[Item]:
        asked.append((set(streams), set(digests)))
        return [i for i in read if i.stored.stream in streams and i.digest in digests]
    return again


# episode A: a comment, its edit, a label judging it; episode B: a comment, and a second record
# of A's comment id (a duplicate id across streams, another digest)
READ = [_event("c1", "A"), _event("ed1", "A", "edit", "c1"), _event("lb1", "A", "label", "c1"),
        _event("c2", "B"), _event("c1", "B", digest="sha256:c1-again")]


def _kept(cited: set[str], read: list[Item]) -> tuple[list[Item], list[tuple[set[str], set[str]]], list[Item]]:
    """What ``kept`` returns, what it asked to read again, and what reading every kept record
    again (the way before) gives."""
    graph = Evidence(cited)
    assert list(graph.read(read)) == []  # events only: nothing for the view yet
    digests = graph.digests(graph.closure(cited))
    asked: list[tuple[set[str], set[str]]] = []
    kept = list(graph.kept(digests, {"A", "B"}, _read_again(read, asked)))
    return kept, asked, [i for i in read if i.digest in digests]


def test_held_records_and_those_read_again_come_in_the_order_they_were_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_views, "HOLD_EVERY_UPTO", 0)  # a big read: only the cited events' records are held
    kept, asked, again = _kept({"lb1"}, READ)
    assert [i.digest for i in kept] == [i.digest for i in again]
    assert [i.digest for i in again] == ["sha256:c1-A", "sha256:ed1-A", "sha256:lb1-A", "sha256:c1-again"]
    # the label was held; the comment it judges (both records of its id) and its edit are read again
    assert asked == [({"A", "B"}, {"sha256:c1-A", "sha256:ed1-A", "sha256:c1-again"})]


def test_a_cited_event_its_duplicate_and_its_edit_are_held_and_nothing_is_read_again() -> None:
    kept, asked, again = _kept({"c1"}, READ)
    assert [i.digest for i in kept] == [i.digest for i in again]
    assert {i.digest for i in kept} == {"sha256:c1-A", "sha256:ed1-A", "sha256:c1-again"}
    assert asked == []
    assert all(i.stored.data == b"" for i in kept)  # held without their bytes


def test_held_records_keep_equal_values_once() -> None:
    """A held record keeps each of its strings as the view will: interned, so the thousands
    held share their names, people and times (each read from its own bytes) while they wait."""
    read = [_event("c1", "A"), _event("ed1", "A", "edit", "c1")]
    for item in read:
        item.record.update(author="".join(["github:", "42"]), scope="".join(["github.com/", "acme"]))
    kept, _, _ = _kept({"c1"}, read)
    first, second = (i.record for i in kept)
    assert first == read[0].record and second == read[1].record
    assert first["author"] is second["author"] and first["scope"] is second["scope"]
    assert first["episode"] is second["episode"] and sys.intern(first["id"]) is first["id"]


def test_only_the_streams_of_the_records_missing_are_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_views, "HOLD_EVERY_UPTO", 0)  # a big read: only the cited events' records are held
    read = [_event("c1", "A"), _event("c2", "B"), _event("ed2", "B", "edit", "c2"), _event("lb2", "C", "label", "c2")]
    kept, asked, again = _kept({"lb2"}, read)
    assert [i.digest for i in kept] == [i.digest for i in again]
    assert asked == [({"B"}, {"sha256:c2-B", "sha256:ed2-B"})]


def test_the_graph_is_let_go_of_before_the_second_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the second read returns is held beside the view; the links and places of every
    event read are gone by then, and the records read again are kept without their bytes."""
    monkeypatch.setattr(_views, "HOLD_EVERY_UPTO", 0)  # a big read: only the cited events' records are held
    graph = Evidence({"lb1"})
    list(graph.read(READ))
    digests = graph.digests(graph.closure({"lb1"}))
    seen: list[tuple[int, Any, int]] = []

    def again(streams: set[str], wanted: set[str]) -> list[Item]:
        seen.append((len(graph._events), graph._held, len(graph._places)))
        return [i for i in READ if i.stored.stream in streams and i.digest in wanted]

    kept = list(graph.kept(digests, {"A", "B"}, again))
    assert seen == [(0, None, 0)]
    assert [i.digest for i in kept] == ["sha256:c1-A", "sha256:ed1-A", "sha256:lb1-A", "sha256:c1-again"]
    assert all(i.stored.data == b"" for i in kept)


@pytest.mark.parametrize("cited", [{"lb1"}, {"c2"}, {"ed1"}])
def test_a_small_read_holds_every_record_and_reads_none_again(cited: set[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Of a read of fewer than ``HOLD_EVERY_UPTO`` events every record is held as read, so
    what the closure adds to the cited events (a label's comment, both records of its id, its
    edit) is never read again; from that many on, only the cited events' are (the others let
    go of at once), as a big store's read does."""
    kept, asked, again = _kept(cited, READ)
    assert [i.digest for i in kept] == [i.digest for i in again] and asked == []
    assert all(i.stored.data == b"" for i in kept)  # held without their bytes
    monkeypatch.setattr(_views, "HOLD_EVERY_UPTO", 2)
    graph = Evidence(cited)
    list(graph.read(READ))
    assert graph._spare is None
    kept, asked, again = _kept(cited, READ)
    assert [i.digest for i in kept] == [i.digest for i in again]
    assert asked == [] if cited == {"c2"} else asked[0][1] == {i.digest for i in again} - {
        i.digest for i in READ if i.record["id"] in cited or i.record.get("parentEventId") in cited}


def test_only_a_big_graph_gives_the_heap_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Letting go of a graph of a few events asks the C library for nothing (a few milliseconds
    of a small store's read, for pages it hardly has); one of ``GIVE_BACK_FROM`` events does."""
    asked: list[str] = []
    monkeypatch.setattr(_views, "give_back", lambda: asked.append("trim"))
    assert [i.digest for i in _kept({"lb1"}, READ)[0]] == [i.digest for i in _kept({"lb1"}, READ)[2]]
    assert [i.digest for i in _kept({"c1"}, [*READ, READ[3]])[0]] == ["sha256:c1-A", "sha256:ed1-A", "sha256:c1-again"]
    assert asked == []
    monkeypatch.setattr(_views, "GIVE_BACK_FROM", len(READ))
    _kept({"lb1"}, READ)
    _kept({"c1"}, [*READ, READ[3]])  # a record returned twice: every kept one read again
    assert asked == ["trim", "trim"]


def test_a_record_returned_twice_makes_every_kept_record_read_again() -> None:
    read = [*READ, _event("c2", "B")]  # the same record (digest) a second time
    kept, asked, again = _kept({"c1"}, read)
    assert [i.digest for i in kept] == [i.digest for i in again]
    assert asked == [({"A", "B"}, {"sha256:c1-A", "sha256:ed1-A", "sha256:c1-again"})]


def test_after_two_passes_every_kept_record_is_read_again() -> None:
    graph = Evidence({"c1"})
    list(graph.read(READ[:3]))
    list(graph.read(READ[3:]))
    graph.let_go()
    digests = graph.digests(graph.closure({"c1"}))
    asked: list[tuple[set[str], set[str]]] = []
    kept = list(graph.kept(digests, {"A", "B"}, _read_again(READ, asked)))
    assert [i.digest for i in kept] == ["sha256:c1-A", "sha256:ed1-A", "sha256:c1-again"]
    assert asked == [({"A", "B"}, set(digests))]


def _shape(view: Any) -> tuple[Any, ...]:
    return ([(i.kind, i.digest) for i in view.items], {k: v["digest"] for k, v in view.events.items()},
            {k: [r["digest"] for r in v] for k, v in view.children.items()},
            {k: [r["digest"] for r in v] for k, v in view.rivals.items()}, view.episodes_read)


@pytest.mark.parametrize("seed", [3, 11])
def test_the_view_is_the_one_a_second_read_of_every_kept_record_gives(tmp_path: Path, seed: int,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.bench_rules import Builder

    Builder(tmp_path / "repo", 40, 400, seed=seed).build()
    store = Context.open(tmp_path / "repo").store
    view, _ = learning_view(store, _views.may_be_in_force)
    monkeypatch.setattr(Evidence, "kept", lambda self, digests, streams, read: read(streams, digests))
    before, _ = learning_view(Context.open(tmp_path / "repo").store, _views.may_be_in_force)
    assert _shape(view) == _shape(before)
    assert len(view.events) > 0


def test_a_cited_event_is_read_and_checked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.bench_rules import Builder

    Builder(tmp_path / "repo", 40, 400, seed=5).build()
    ctx = Context.open(tmp_path / "repo")
    checked: Counter[str] = Counter()
    real = Store._check

    def counted(self: Store, stored: Stored, memory: Any = None) -> Item | None:
        checked[stored.digest] += 1
        return real(self, stored, memory)

    monkeypatch.setattr(Store, "_check", counted)
    view, histories = _views.in_force_view(ctx.store)
    cited = {e for h in histories.values() if _views.may_be_in_force(h) for ref in _views._cited(h) for e in ref["events"]}
    held = [e["digest"] for i, e in view.events.items() if i in cited]
    assert held and all(checked[d] == 1 for d in held)
    assert {r.status.id for r in learnings.learnings(ctx)} == set(histories)


@pytest.mark.parametrize("how", ["retracted", "edited and retracted"])
def test_a_deletion_stored_in_another_episode_is_judged_alike_by_every_command(tmp_path: Path, how: str) -> None:
    """A retraction counts in the episode of the comment it names, where capture stores one (an
    edit continues a comment only in its thread). One stored in another episode removes
    nothing for any command: the rules over the whole store (``dream``, ``decide``) and the
    reads of the cited episodes alone (``learnings``, ``show``, ``recall``, ``context``,
    ``export``) judge the learning alike, and those reads still read the cited episodes only."""
    import json

    from gitstore.rules.consent import decide
    from gitstore.rules.view import View

    from . import world
    from .cli import gitstore

    ctx = world.ready_repo(tmp_path / "repo")
    world.grant_all(ctx)
    thread = world.Thread(ctx, 7, "100")
    comment = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    learning = world.accepted(ctx, world.propose(ctx, [world.ref(comment)]))
    other = world.Thread(ctx, 8, "200")
    other.comment("200", "unrelated", "2026-03-02T10:00:00.000000Z")
    named = comment if how == "retracted" else other.edit(comment, "100", "Use jitter on retries!",
                                                          "2026-03-02T11:00:00.000000Z")
    other.retract(named, "2026-03-03T00:00:00.000000Z")
    other.save()
    root = tmp_path / "repo"
    assert decide(View.load(Context.open(root).store), comment["id"], "instruction").ok

    view, _ = learning_view(Context.open(root).store, _views.may_be_in_force)
    assert decide(view, comment["id"], "instruction").ok
    assert view.episodes_read == {comment["episode"]}
    assert "belongs to a deleted comment" not in gitstore("learnings", cwd=root).stdout
    assert "NOT in force" not in gitstore("show", learning["id"], cwd=root).stdout
    assert learning["id"] in gitstore("recall", "retry jitter", cwd=root).stdout
    assert "exported 1 item(s)" in gitstore("export", "--purpose", "instruction", cwd=root).stdout
    dreamt = json.loads(gitstore("dream", "--dry-run", "--json", cwd=root).stdout)
    assert "stale-evidence" not in [t["kind"] for t in dreamt["tidy"]], dreamt["tidy"]

    thread.retract(comment, "2026-03-04T00:00:00.000000Z")  # in its own episode, as capture stores one
    thread.save()
    assert decide(View.load(Context.open(root).store), comment["id"], "instruction").cause == "retracted"
    assert "NOT in force for instruction" in gitstore("show", learning["id"], cwd=root).stdout
    assert "no learning in force matches" in gitstore("recall", "retry jitter", cwd=root).stdout
