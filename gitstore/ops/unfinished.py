"""Commands of several steps, and what one killed between its steps leaves to finish.

An append is all or nothing, but some commands do more than append: they rewrite files beside
the store, move a branch, or erase objects after recording. Such a command notes what it is
doing in ``okf/.memory/unfinished/<name>.json`` before its first write and removes the note
after its last. A note that stays is a command killed (or failed) midway: ``gitstore doctor``
names each one with the command that finishes the job, and that command, run again, reads the
note to finish what was begun rather than record it twice.

A command that records one decision and goes on past it (withdraw and retire rewrite the
published files, accept says whether agents get what it accepted) notes the record it appends
(``recording``). Run again, it is refused as already done; ``once`` tells a run of its own
among the records that made it so from a second request: the former is finished, and succeeds.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gitstore import _jsontext
from gitstore._files import replace_file
from gitstore.config import git_has
from gitstore.errors import AlreadyDone

FOLDER = "unfinished"


@dataclass(frozen=True)
class Note:
    """One command left half-done: what is left undone, the command that finishes it, how
    much it matters (``fail``: memory's promise does not hold until then; ``warn``), and what
    the command itself needs to finish."""

    name: str
    what: str
    todo: str
    state: str = "warn"
    data: dict[str, Any] = field(default_factory=dict)

    def path(self, state: Path) -> Path:
        return state / FOLDER / f"{self.name}.json"


def begin(state: Path, note: Note) -> None:
    """Note a command's steps before its first write (replacing a note of the same name)."""
    folder = state / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    replace_file(note.path(state), json.dumps({"what": note.what, "todo": note.todo, "state": note.state,
                                               "data": note.data}, ensure_ascii=False, indent=2) + "\n")


@contextmanager
def noting(state: Path, note: Note) -> Iterator[None]:
    """``begin`` the note around a write; a write that fails (so wrote nothing) takes it back,
    unless it was there before (left by a run that was killed, or by an earlier write of this
    one): what that run left is still to finish."""
    there = read(state, note.name) is not None
    begin(state, note)
    try:
        yield
    except Exception:
        if not there:
            finish(state, note.name)
        raise


@contextmanager
def recording(state: Path, note: Note | None, record: Mapping[str, Any]) -> Iterator[None]:
    """``noting`` around the append of ``record``, the note naming its digest, so the same
    command run again knows the record for its own (``once``); nothing for None."""
    if note is None:
        yield
        return
    with noting(state, replace(note, data={**note.data, "record": record["digest"]})):
        yield


def once(state: Path, note: Note, decide: Callable[[], dict[str, Any]]) -> tuple[dict[str, Any], bool]:
    """``decide()``, which records one decision ``recording`` it under ``note``, and False.
    Refused as already done by the record ``note`` names (a run of this command stored it and
    was stopped before its last step), that record and True: the caller finishes the job and
    then ``finish``es the note, as a run never stopped does. Any other ``AlreadyDone`` stands (a
    second request); a note naming a record that does not count is of a run stopped before
    its append, of which nothing stands: it goes."""
    try:
        return decide(), False
    except AlreadyDone as done:
        earlier = read(state, note.name)
        digest = earlier.data.get("record") if earlier is not None else None
        mine = [record for record in done.recorded if record.get("digest") == digest] if digest is not None else []
        if mine:
            return dict(mine[0]), True
        if digest is not None:
            finish(state, note.name)
        raise


def finish(state: Path, name: str) -> None:
    """The command's last step is done: remove its note."""
    (state / FOLDER / f"{name}.json").unlink(missing_ok=True)


def read(state: Path, name: str) -> Note | None:
    """The note a command of this name left, or None."""
    path = state / FOLDER / f"{name}.json"
    return _load(path, git_has(path.parent)) if path.is_file() else None


def notes(state: Path) -> list[Note]:
    """Every note left, by name."""
    folder = state / FOLDER
    paths = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not paths:
        return []
    has = git_has(folder)  # the repository opened once for every note
    found = [_load(path, has) for path in paths]
    return [note for note in found if note is not None]


def _load(path: Path, git_has: Callable[[Path, bytes], bool]) -> Note | None:
    try:
        raw = path.read_bytes()
        if git_has(path, raw):
            return Note(path.stem, f"{path.name} in {FOLDER}/ came with a commit (git has its bytes), not from a "
                        "command of this clone: nothing of it is used or shown",
                        f"`rm {shlex.quote(str(path))}`, and remove it from the commit that added it")
        data = _jsontext.loads(raw.decode("utf-8"))
        return Note(path.stem, str(data["what"]), str(data["todo"]), str(data.get("state", "warn")),
                    dict(data.get("data") or {}))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # cut short or edited by hand
        return Note(path.stem, f"a note of an unfinished command that cannot be read ({path.name})",
                    f"`rm {shlex.quote(str(path))}` once what it was doing is done")


__all__ = ["FOLDER", "Note", "begin", "finish", "notes", "noting", "once", "read", "recording"]
