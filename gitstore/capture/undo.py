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
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from gitstore import _jsontext
from gitstore._files import held, replace_file

LEDGER = Path(".config") / "gitstore" / "installed-hooks.json"
LOCK = LEDGER.with_name("installed-hooks.lock")  # one install or uninstall at a time for a home


class Before(NamedTuple):
    """What stood before install: the text (None: no file) and the folders install made."""

    text: str | None
    folders: tuple[Path, ...]


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


EDIT_BUDGET = 1 << 20  # comparisons a shortest edit may take (see ``_changed``)


def edit(after: str, before: str) -> list[list[Any]]:
    """The replacements ``[start, end, text]`` over ``after`` that give ``before``: the lines
    that differ (install adds, changes or takes away a few), each narrowed to the characters
    that differ in them. Its cost grows with the file's size times what install changed, never
    with the square of the file (a user's own long or repetitive settings file)."""
    a, b = after.splitlines(keepends=True), before.splitlines(keepends=True)
    at_a, at_b = _offsets(a), _offsets(b)
    found = []
    for i1, i2, j1, j2 in _changed(a, b):
        start, old, new = at_a[i1], after[at_a[i1]:at_a[i2]], before[at_b[j1]:at_b[j2]]
        found += [[start + c1, start + c2, new[d1:d2]] for c1, c2, d1, d2 in _changed(old, new)]
    return found


def _offsets(lines: list[str]) -> list[int]:
    at = [0]
    for line in lines:
        at.append(at[-1] + len(line))
    return at


def _changed(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int, int, int]]:
    """The blocks ``(i1, i2, j1, j2)`` where ``a[i1:i2]`` stands for ``b[j1:j2]`` (lines, or
    characters), of a shortest edit (Myers's) between what the two do not share at their start
    and end. When finding it would take more than ``EDIT_BUDGET`` comparisons (many changes in
    a long file), one block from the first difference to the last stands for them all: as
    exact, only longer."""
    lo = 0
    while lo < len(a) and lo < len(b) and a[lo] == b[lo]:
        lo += 1
    hi = 0
    while hi < len(a) - lo and hi < len(b) - lo and a[len(a) - 1 - hi] == b[len(b) - 1 - hi]:
        hi += 1
    a, b = a[lo:len(a) - hi], b[lo:len(b) - hi]
    runs = _equal_runs(a, b) or []
    blocks, x, y = [], 0, 0
    for run_x, run_y, size in [*runs, (len(a), len(b), 0)]:
        if run_x > x or run_y > y:
            blocks.append((lo + x, lo + run_x, lo + y, lo + run_y))
        x, y = run_x + size, run_y + size
    return blocks


def _equal_runs(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int, int]] | None:
    """The runs ``(x, y, size)`` a shortest edit from ``a`` to ``b`` keeps, in order;
    None when finding it would take more than ``EDIT_BUDGET`` comparisons."""
    n, m = len(a), len(b)
    limit = min(n + m, EDIT_BUDGET // (n + m + 1))
    off = limit + 1
    v = [0] * (2 * limit + 3)  # the furthest x reached on each diagonal k = x - y, at v[off + k]
    trace = []
    for d in range(limit + 1):
        trace.append(v[off - d - 1:off + d + 2])
        for k in range(-d, d + 1, 2):
            x = v[off + k + 1] if k == -d or (k != d and v[off + k - 1] < v[off + k + 1]) else v[off + k - 1] + 1
            y = x - k
            while x < n and y < m and a[x] == b[y]:
                x, y = x + 1, y + 1
            v[off + k] = x
            if x >= n and y >= m:
                return _back(trace, n, m)
    return None


def _back(trace: list[list[int]], x: int, y: int) -> list[tuple[int, int, int]]:
    runs = []
    for d in range(len(trace) - 1, 0, -1):
        v, k = trace[d], x - y
        down = k == -d or (k != d and v[k - 1 + d + 1] < v[k + 1 + d + 1])
        prior_k = k + 1 if down else k - 1
        prior_x = v[prior_k + d + 1]
        prior_y = prior_x - prior_k
        start_x, start_y = (prior_x, prior_y + 1) if down else (prior_x + 1, prior_y)
        if x > start_x:
            runs.append((start_x, start_y, x - start_x))
        x, y = prior_x, prior_y
    if x > 0:
        runs.append((0, 0, x))
    return runs[::-1]


def undone(after: str, replacements: list[list[Any]]) -> str:
    pieces, at = [], 0
    for start, end, text in replacements:
        pieces += [after[at:start], text]
        at = end
    return "".join(pieces) + after[at:]


@contextmanager
def one_at_a_time(home: Path) -> Iterator[None]:
    """Hold ``LOCK`` while an install or uninstall reads and writes the ledger and the harness's
    file: two at once (two harnesses, or two repositories, set up by one script) each read the
    ledger, and the last to write it left the other's entry out, whose file uninstall then
    could not give back; two harnesses sharing one file each wrote it without the other's
    entry. Where the lock cannot be made (a home read-only, a file where its folder goes) none
    is held: the ledger's own write says why when it matters. A home that does not exist is
    never made."""
    with ExitStack() as stack:
        if home.is_dir():
            try:
                (home / LOCK).parent.mkdir(parents=True, exist_ok=True)
                stack.enter_context(held(home / LOCK))
            except OSError:
                pass
        yield


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
