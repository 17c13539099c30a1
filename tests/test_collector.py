"""Building a view holds the cyclic garbage collector off, and leaves it as it found it, with
everything it built old (not young) and any cycle among it still collectable."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from gitstore._collector import collector_paused
from gitstore.conformance import _records as R
from gitstore.providers.memory import MemoryProvider
from gitstore.rules.view import View
from gitstore.store import Item, Store


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        (gc.enable if was else gc.disable)()


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_the_collector_is_off_in_the_block_and_on_after() -> None:
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():  # an enclosing block keeps it off
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_collector_comes_back_when_the_block_raises() -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("read failed")
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off() -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_what_the_block_built_is_old_and_a_cycle_in_it_is_still_collected() -> None:
    with collector_paused():
        built = {"records": [{"id": f"ev_{n}", "pin": {"pullRequest": n}} for n in range(1000)]}
        first, second = _Node(), _Node()
        first.other, second.other = second, first  # a cycle, dropped below
        gone = weakref.ref(first)
    assert gc.get_freeze_count() == 0  # nothing left frozen
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert id(built) in oldest and id(built["records"][-1]) in oldest
    del first, second
    assert gone() is not None  # a cycle: reference counting alone never frees it
    gc.collect()
    assert gone() is None


def test_a_view_reads_its_records_with_the_collector_off() -> None:
    store = Store(MemoryProvider(), R.SCOPE)
    store.append([R.grant("g"), R.event("e1"), R.event("e2")])
    seen: list[bool] = []

    def read() -> Iterator[Item]:
        for item in store.items():
            seen.append(gc.isenabled())
            yield item

    view = View(scope=R.SCOPE)
    view.add(read())
    assert seen == [False, False, False] and gc.isenabled()
    assert len(view.events) == 2 and len(view.grants) == 1
