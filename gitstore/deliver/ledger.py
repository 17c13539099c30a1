"""The delivery ledger: which learnings went to which agent session, so none is sent twice.

Local state, one JSON Lines file per session under ``okf/.memory/deliveries/`` (named by the
SHA-256 of harness and session id, which may hold any characters). Each line is one event:

- ``delivery``: what one hook answer injected (each learning's id, contentDigest, trust and
  score), the event that asked, the compaction epoch, the number of characters and the SHA-256
  of the exact text the agent received;
- ``compaction``: the harness compacted or cleared the conversation, so what was delivered
  before is gone from the agent's context and may be delivered once more (a new epoch).

A learning (by contentDigest: an edited learning is new content) is delivered at most once per
epoch of a session. Reading the file, choosing and appending happen under an exclusive lock on
the file, so two hooks of one session racing cannot both deliver the same learning.
"""

from __future__ import annotations

import fcntl
import json
import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

FOLDER = "deliveries"
FORMAT = "gitstore.delivery-ledger/1"


def now() -> str:
    """The current UTC time as gitstore writes times (six fractional digits and ``Z``)."""
    moment = time.time()
    seconds = int(moment)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int((moment - seconds) * 1e6):06d}Z"


def session_file(state: str, harness: str, session: str) -> str:
    from gitstore.deliver.heads import sha256_hex

    name = sha256_hex(f"{harness}\0{session}".encode("utf-8", "surrogateescape"))[:32]
    return os.path.join(state, FOLDER, f"{name}.jsonl")


def _lines(handle: Any) -> Iterator[dict[str, Any]]:
    handle.seek(0)
    for line in handle.read().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a torn line (a crash mid-write) is skipped, never fatal
        if isinstance(entry, dict):
            yield entry


def state_of(entries: list[dict[str, Any]]) -> tuple[int, set[str]]:
    """The current epoch and the contentDigests delivered in it."""
    epoch = 0
    delivered: set[str] = set()
    for entry in entries:
        if entry.get("kind") == "compaction":
            epoch += 1
            delivered = set()
        elif entry.get("kind") == "delivery":
            delivered.update(i.get("contentDigest", "") for i in entry.get("items", []))
    return epoch, delivered


class Session:
    """One session's ledger file, locked while open."""

    def __init__(self, state: str, harness: str, session: str, *, write: bool = True) -> None:
        self.harness = harness
        self.session = session
        self.path = session_file(state, harness, session)
        self.write = write
        self.handle: Any = None
        self.entries: list[dict[str, Any]] = []

    def __enter__(self) -> Session:
        if self.write:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            self.handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - closed in __exit__
            fcntl.flock(self.handle, fcntl.LOCK_EX)
            self.entries = list(_lines(self.handle))
        elif os.path.exists(self.path):
            with open(self.path, encoding="utf-8") as handle:
                self.entries = list(_lines(handle))
        return self

    def __exit__(self, *exc: object) -> None:
        if self.handle is not None:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.handle.close()
            self.handle = None

    @property
    def epoch(self) -> int:
        return state_of(self.entries)[0]

    @property
    def delivered(self) -> set[str]:
        return state_of(self.entries)[1]

    def append(self, kind: str, **fields: Any) -> dict[str, Any]:
        entry = {"format": FORMAT, "kind": kind, "at": now(), "harness": self.harness,
                 "session": self.session, **fields}
        self.entries.append(entry)
        if self.write and self.handle is not None:
            self.handle.write(json.dumps(entry, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n")
            self.handle.flush()
        return entry


def sessions(state: str) -> list[list[dict[str, Any]]]:
    """Every session's ledger entries, the most recently active session first."""
    folder = os.path.join(state, FOLDER)
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".jsonl")]
    except OSError:
        return []
    found = []
    for name in names:
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            entries = [e for e in _lines(handle) if e.get("format") == FORMAT]
        if entries:
            found.append(entries)
    key: Callable[[list[dict[str, Any]]], str] = lambda entries: str(entries[-1].get("at", ""))
    return sorted(found, key=key, reverse=True)
