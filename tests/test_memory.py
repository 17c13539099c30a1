"""Giving the C heap's free pages back (``gitstore._memory``): a no-op where the C library has
no way to, never an error."""

from __future__ import annotations

import pytest

from gitstore import _memory


def test_give_back_runs_and_can_run_again() -> None:
    _memory.give_back()
    _memory.give_back()


def test_give_back_does_nothing_without_malloc_trim(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_memory, "_trim", [None])
    _memory.give_back()
