"""Giving the C heap's free pages back (``gitstore._memory``): ``malloc_trim(0)`` where glibc
has it, a no-op where the C library has no way to, never an error."""

from __future__ import annotations

import platform

import pytest

from gitstore import _memory


def test_give_back_asks_the_c_library_to_trim_its_whole_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    monkeypatch.setattr(_memory, "_malloc_trim", lambda: asked.append)
    _memory.give_back()
    _memory.give_back()
    assert asked == [0, 0]


def test_give_back_does_nothing_without_malloc_trim(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_memory, "_malloc_trim", lambda: None)
    _memory.give_back()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_glibc_s_malloc_trim_is_found_and_runs() -> None:
    assert _memory._malloc_trim() is not None
    _memory.give_back()
