"""Recall's index and the published section are made from a view holding the learnings and only
the evidence of those that may be in force, and come out as from a view of the whole store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gitstore.context import Context
from gitstore.deliver import build
from gitstore.deliver.publish import select
from gitstore.queries import _views
from gitstore.rules.view import View

from .delivery_world import World, shared_world  # noqa: F401 - the fixture


@pytest.fixture(scope="module")
def threads(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Review threads with edits, labels and deletions, learnings in every state, replacements,
    a grant and a withdrawal (the rules benchmark's store, small)."""
    from bench.bench_rules import Builder

    return Builder(tmp_path_factory.mktemp("build") / "repo", 150, 1200, 11).build()


def _whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, the in-force view is a view of every record, with every payload."""
    monkeypatch.setattr(_views, "in_force_view", lambda store: (View.load(store), None))


@pytest.mark.parametrize("which", ["threads", "delivery"])
def test_the_index_and_the_published_section_come_out_as_from_the_whole_store(
        which: str, threads: Any, shared_world: World, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    root = Path(threads.root) if which == "threads" else shared_world.root
    rows, dropped, _ = build._rows(Context.open(str(root)))
    picked = select(_views.in_force_view(Context.open(str(root)).store)[0])
    with monkeypatch.context() as patch:
        _whole(patch)
        assert build._rows(Context.open(str(root)))[:2] == (rows, dropped)
        assert select(_views.in_force_view(Context.open(str(root)).store)[0]) == picked
    if which == "threads":
        assert {row["id"] for row in rows} == threads.expected
    else:  # what delivery leaves out, it leaves out for the same reasons
        assert dropped and any(row["terms"]["evidence"] for row in rows)
        assert shared_world.ids["redacted"] not in {row["id"] for row in rows}
