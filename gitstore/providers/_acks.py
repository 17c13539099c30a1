"""How many appends a file-based store acknowledged, remembered beside its files.

A database or a JSON Lines file cannot tell by itself that it lost its last appends: a deleted
or truncated file, or a line cut out of the middle, looks like a smaller store. So once an
append is durable, its provider adds one line to ``<name>.acks`` beside the files: the number
of appends the store held then (and, for jsonl, how many payload lines; and the store's random
id, which the work tree's git folder anchors: for sqlite the database's own, so a database
swapped for another reads as such). Lines are only
appended; a line cut short by a crash is ignored, and a lost line only makes the check weaker,
never wrong, because the store is written first. Readers take the largest count of the last
lines naming the store's id (processes may log in any order; once lines name an id, one naming
none or another counts for nothing) and refuse a store holding fewer appends: damage, never a
torn write. The log is in the work tree, where a patch can append to it, so it only finds lost
appends: what vouches that a jsonl store's lines are the clone's own is in its git folder
(``_anchor``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TAIL = 4096  # bytes read from the end of the log: many more lines than processes racing
_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
_READ: dict[Path, tuple[tuple[int, int, int], "Acked"]] = {}  # log -> (its identity and size, what it says)


@dataclass(frozen=True)
class Acked:
    """The most a store acknowledged: appends, and payload lines where a provider counts them."""

    appends: int = 0
    payloads: int = 0
    store: str = ""  # the random id of the store the lines were written for, where it has one


def log_path(store: Path) -> Path:
    """The log beside ``store`` (a file or a folder's main file)."""
    return store.with_name(store.name + ".acks")


def note(store: Path, appends: int, payloads: int = 0, identity: str = "") -> None:
    """Log that the store now holds ``appends`` appends (and ``payloads`` payload lines);
    ``identity``, the store's own random id, names the file the count is for, so a file
    swapped for another store's reads as such, whatever it holds."""
    fd = os.open(log_path(store), _FLAGS, 0o644)
    try:
        os.write(fd, f"{appends} {payloads}{' ' + identity if identity else ''}\n".encode("ascii"))
    finally:
        os.close(fd)


def acked(store: Path) -> Acked:
    """The largest counts among the last complete lines of the log (none: nothing acknowledged).
    Read again only when the log changed (it only grows, so its size says so)."""
    path = log_path(store)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return Acked()
    key = (st.st_ino, st.st_size, st.st_mtime_ns)
    known = _READ.get(path)
    if known is not None and known[0] == key:
        return known[1]
    try:
        with open(path, "rb") as log:
            size = log.seek(0, os.SEEK_END)
            log.seek(max(0, size - TAIL))
            tail = log.read()
    except FileNotFoundError:
        return Acked()
    lines: list[tuple[int, int, str]] = []
    for line in tail.split(b"\n")[1 if size > TAIL else 0:-1]:
        parts = line.split()
        if len(parts) in (2, 3) and all(p.isdigit() for p in parts[:2]) and parts[-1].isalnum():
            lines.append((int(parts[0]), int(parts[1]), parts[2].decode("ascii") if len(parts) == 3 else ""))
    # the store's id is the one the last line naming one names; once there is one, a line that
    # does not name it counts for nothing (written by another hand, or before the store had one)
    identity = next((named for _, _, named in reversed(lines) if named), "")
    best = Acked(store=identity)
    for appends, payloads, named in lines:
        if named == identity and (appends > best.appends or (appends == best.appends and payloads < best.payloads)):
            best = Acked(appends, payloads, identity)
    _READ[path] = (key, best)
    return best


def lost(what: str, held: int, acknowledged: int) -> str:
    """The message for a store holding fewer appends than it acknowledged."""
    return (f"{what} holds {held} append(s) but {acknowledged} were acknowledged: "
            "acknowledged appends were lost (a file deleted, truncated or cut); this is damage, "
            "not a torn write")


__all__ = ["Acked", "acked", "log_path", "lost", "note"]
