"""Whether a work tree's gitstore state is the clone's own (``gitstore.deliver.place.not_own``,
``gitstore.config.tracked_under``): git ignores ``okf/.memory/`` and tracks nothing that lands
there, in real repositories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitstore.config import tracked_under
from gitstore.deliver.place import not_own

from .conftest import git


@pytest.mark.parametrize("folds_case", [True, False])
def test_a_tracked_file_spelled_in_another_case_is_tracked_where_the_file_system_folds_case(
        repo: Path, folds_case: bool) -> None:
    """A file system that ignores case (macOS's and Windows' by default) checks a commit's
    ``okf/.MEMORY/deliveries.sqlite`` out into the clone's own ``okf/.memory/``, which a pathspec
    of ``okf/.memory`` does not list: the context hook took the state folder for the clone's
    own, and read a ledger the repository chose. Where case counts, it is another folder."""
    state = repo / "okf" / ".memory"
    state.mkdir(parents=True)
    (repo / ".git" / "info" / "exclude").write_text("/okf/.memory/\n")
    other = repo / "okf" / ".MEMORY"
    other.mkdir()
    (other / "deliveries.sqlite").write_bytes(b"a ledger of the repository's")
    git(repo, "add", "-f", "okf/.MEMORY/deliveries.sqlite")
    git(repo, "commit", "-q", "-m", "notes")
    if folds_case:  # what the checkout is where case is folded: one folder, under either name
        (other / "deliveries.sqlite").rename(state / "deliveries.sqlite")
        other.rmdir()
        os.symlink(".memory", other)
    reason = not_own(str(repo))
    if folds_case:
        assert reason == "git tracks 1 file(s) under okf/.memory/ (they came with the repository); delivery is inert"
        assert tracked_under(repo, state) == ["okf/.memory/deliveries.sqlite"]
    else:
        assert reason is None and tracked_under(repo, state) == []
