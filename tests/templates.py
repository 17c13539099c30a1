"""Setup built once per test process and copied into each test's own folder.

A repository set up for gitstore takes a dozen processes (git init, remote, commit, gitstore
init...); an SSH key takes ssh-keygen. Most tests start from the same ones, so each is built
once in a folder of this process (``build``), then copied for every test that asks
(``copy``): a copy of a real repository is a real repository of its own, nothing a test does
to it reaches the original or another test.

Within one test, the n-th request for the same thing gets the n-th original: two repositories
one test sets up have writer ids (and two keys of one name are keys) as distinct as before.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Hashable
from pathlib import Path

_ROOT: Path | None = None
_BUILT: dict[tuple[Hashable, int], Path] = {}
_TEST: str | None = None
_ASKED: dict[Hashable, int] = {}


def _root() -> Path:
    global _ROOT
    if _ROOT is None:
        _ROOT = Path(tempfile.mkdtemp(prefix="gitstore-templates-"))
        atexit.register(shutil.rmtree, _ROOT, True)
    return _ROOT


def _nth(key: Hashable) -> int:
    """How many times the running test asked for ``key`` before (0 the first time)."""
    global _TEST
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    if test != _TEST:
        _TEST = test
        _ASKED.clear()
    n = _ASKED.get(key, 0)
    _ASKED[key] = n + 1
    return n


def original(key: Hashable, name: str, build: Callable[[Path], None]) -> Path:
    """The folder ``name`` that ``build`` filled for ``key`` (built at the first request of
    this process, for the n-th request of a test)."""
    nth = _nth(key)
    found = _BUILT.get((key, nth))
    if found is None:
        found = _root() / f"{len(_BUILT)}" / name
        found.parent.mkdir()
        build(found)
        _BUILT[(key, nth)] = found
    return found


def copy(key: Hashable, target: Path, build: Callable[[Path], None]) -> None:
    """``target`` made a copy of what ``build`` makes in a folder of the same name: a
    repository copied as moved there (``bench._process.copy_as_moved``), its index told the
    files it lists are the copies."""
    from bench._process import copy_as_moved

    source = original(key, target.name, build)
    target.parent.mkdir(parents=True, exist_ok=True)
    copy_as_moved(source, target)
    refresh_index(target)


def refresh_index(root: Path) -> None:
    """The index's file stats made those of the copied files (their content is the same), as
    ``git update-index --refresh`` would: plumbing that trusts the index then sees no change."""
    import pygit2

    if not (root / ".git" / "index").exists():
        return
    repo = pygit2.Repository(str(root))
    index = repo.index
    for entry in list(index):
        if (root / entry.path).is_file() or (root / entry.path).is_symlink():
            index.add(entry.path)
    index.write()


def copy_files(key: Hashable, folder: Path, names: list[str], build: Callable[[Path], None]) -> None:
    """The files ``names`` that ``build`` makes in a folder, copied into ``folder``."""
    source = original(key, "files", build)
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy2(source / name, folder / name)
