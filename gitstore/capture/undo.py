"""What ``gitstore hooks install`` changed in a harness's file, kept so uninstalling gives the
original bytes back.

A file's text cannot say what install added to it: ``{}`` and ``{"hooks": {}}`` both become the
same text once the hooks are in, and a file install created looks like one the user wrote. So
install keeps, per harness and file, the digest of the text it wrote, the interpreter it wrote
into it (the one ``hooks status`` may dry-run), and the edit that turns that text back into what
stood before (only the characters install took away or replaced, never a
copy of the file), or that there was no file and which folders it made for it. Uninstalling a
file still exactly as install left it applies that edit; a file changed since is handled by the
harness's own stripping, which never removes the file, unless install created it and stripping
leaves nothing at all: two harnesses can share one file (``codex`` and ``codex-notify`` both
write ``config.toml``), and the one that created it is not always the last one taken out. So
that install created a file, and the folders it made for it, is kept per file, until the last
harness with an entry in it is uninstalled.

The ledger is ``~/.config/gitstore/installed-hooks.json``. Install writes it before the file, and puts
it back as it was when the file cannot be written: a file install wrote always has its undo.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from gitstore import _jsontext
from gitstore._files import replace_file

LEDGER = Path(".config") / "gitstore" / "installed-hooks.json"


class Before(NamedTuple):
    """What stood before install: the text (None: no file) and the folders install made."""

    text: str | None
    folders: tuple[Path, ...]


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def edit(after: str, before: str) -> list[list[Any]]:
    """The replacements ``[start, end, text]`` over ``after`` that give ``before``."""
    import difflib  # installing only: a capture, which loads this module, never edits a file

    matcher = difflib.SequenceMatcher(None, after, before, autojunk=False)
    return [[i1, i2, before[j1:j2]] for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def undone(after: str, replacements: list[list[Any]]) -> str:
    pieces, at = [], 0
    for start, end, text in replacements:
        pieces += [after[at:start], text]
        at = end
    return "".join(pieces) + after[at:]


def before(home: Path, harness: str, path: Path, current: str) -> Before | None:
    """What stood before install, when ``current`` is exactly what install wrote (else None)."""
    entry = _load(home).get(_key(harness, path))
    if not isinstance(entry, dict) or entry.get("installed") != digest(current):
        return None
    try:
        original = entry["original"]
        text = None if original is None else undone(current, original)
        return Before(text, tuple(Path(f) for f in entry.get("folders", [])))
    except (KeyError, TypeError, ValueError):
        return None


def remember(home: Path, harness: str, path: Path, previous: Before | None, written: str, python: str) -> bytes | None:
    """Keep what turns ``written`` back into ``previous`` (only that install wrote it, with
    ``python``, when the original is unknown), before the file is written: uninstalling can
    always give the original back. Returns the ledger's bytes before (None: there was none), for
    ``put_back`` when writing the file then fails."""
    try:
        kept: bytes | None = (home / LEDGER).read_bytes()
    except FileNotFoundError:
        kept = None
    entries = _load(home)
    entry: dict[str, Any] = {"installed": digest(written), "python": python}
    if previous is not None:
        entry |= {"original": None if previous.text is None else edit(written, previous.text),
                  "folders": [str(f) for f in previous.folders]}
    entries[_key(harness, path)] = entry
    if previous is not None and previous.text is None:
        entries[_created_key(path)] = {"folders": [str(f) for f in previous.folders]}
    _save(home, entries)
    return kept


def put_back(home: Path, kept: bytes | None) -> None:
    """The ledger as it was before ``remember`` (its bytes, or no ledger), when the file it
    recorded could not be written after all."""
    path = home / LEDGER
    if kept is None:
        path.unlink(missing_ok=True)
    else:
        replace_file(path, kept)


def created(home: Path, path: Path) -> tuple[Path, ...] | None:
    """The folders install made for the file, when an install created it (else None)."""
    entry = _load(home).get(_created_key(path))
    folders = entry.get("folders") if isinstance(entry, dict) else None
    if not isinstance(folders, list):
        return None
    return tuple(Path(f) for f in folders if isinstance(f, str))


def interpreter(home: Path, harness: str, path: Path, current: str) -> str | None:
    """The interpreter install wrote into the file, when ``current`` is exactly what it wrote:
    ``hooks status`` may start that one, never one a file from elsewhere names."""
    entry = _load(home).get(_key(harness, path))
    if not isinstance(entry, dict) or entry.get("installed") != digest(current):
        return None
    python = entry.get("python")
    return python if isinstance(python, str) else None


def forget(home: Path, harness: str, path: Path) -> None:
    """Forget the harness's entry in the file, and that install created the file once no
    harness has an entry in it."""
    entries = _load(home)
    found = entries.pop(_key(harness, path), None) is not None
    if not any(key.split(" ", 1)[-1] == os.path.abspath(path) for key in entries if key != _created_key(path)):
        found = entries.pop(_created_key(path), None) is not None or found
    if found:
        _save(home, entries)


def _key(harness: str, path: Path) -> str:
    return f"{harness} {os.path.abspath(path)}"


def _created_key(path: Path) -> str:
    return f"created {os.path.abspath(path)}"  # no harness is named so


def _load(home: Path) -> dict[str, Any]:
    try:
        data = _jsontext.loads((home / LEDGER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(home: Path, entries: dict[str, Any]) -> None:
    path = home / LEDGER
    if not entries:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, json.dumps(entries, indent=1, sort_keys=True) + "\n")
