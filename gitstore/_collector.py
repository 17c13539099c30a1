"""Holding Python's cyclic garbage collector off while a read goes through a big store's records.

A view of a store holds its records as dicts, lists and strings: millions of objects in a big
store, none of them in a reference cycle, so reference counting frees them. The cyclic collector
counts their allocations all the same, and as the heap grows it runs full collections that go
over every object held: judging the active learnings of a 159,000-record store ran eight of
them, which found six objects to free and took a fifth to a quarter of the command's time; a
listing of that store, which holds little, lost about a fourteenth to some 260 collections.

``collector_paused()`` holds the collector off while such a read runs. At the end it files
every object as old, where the next full collection (when enough new objects have come since)
still finds any cycle among them, instead of leaving them all young: the next young collection
would otherwise go over every one of them at once.

``starting()`` and ``started()`` do the same for a command's start: importing the modules a
command needs (the command framework, pygit2, the store) creates some hundred thousand objects
that live as long as the process, and the collector went over them some 55 times before any
command did its work, 10-12 ms of a 140-190 ms command in a small repository. The console entry
point holds it off from its first line until the command's modules are loaded, then files what
start-up made as permanent (``gc.freeze``): no later collection goes over it again.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Hold the cyclic collector off for the block, then file what the process holds as old.
    Nothing is done where the collector is off already: a caller that turned it off (the
    capture worker, an enclosing block) keeps it off."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()  # every object the collector tracks, into its permanent generation...
        gc.unfreeze()  # ...and back into the oldest one: old, not young, and collected as any
        gc.enable()


_held_off_at_start = False  # ``starting`` held the collector off, ``started`` has not yet let it run


def starting() -> None:
    """Hold the collector off while this process starts (see the module's docstring); nothing
    is done where it is off already."""
    global _held_off_at_start
    if gc.isenabled():
        gc.disable()
        _held_off_at_start = True


def started() -> None:
    """The modules a command needs are loaded: file every object as permanent and let the
    collector run again, if ``starting`` held it off (a command run in a process that did not
    start through the console entry point leaves it as it is)."""
    global _held_off_at_start
    if _held_off_at_start:
        _held_off_at_start = False
        gc.freeze()
        gc.enable()
