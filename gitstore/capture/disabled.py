"""Hooks a harness's own settings switch off: sessions gitstore would never hear of.

A harness whose settings switch hooks off (Claude Code's ``disableAllHooks``, Gemini CLI's
``hooksConfig``, Codex's ``[features] hooks``) runs no hook, so nothing would ever say that its
sessions go uncaptured. Every capture (a hook run of any harness, ``gitstore capture``) and
``gitstore hooks status`` therefore look at each harness whose gitstore hook is installed, in
either scope: for one whose settings, read as the harness reads them, switch hooks off, an
envelope and a ``degraded`` receipt with the reason ``hooks-disabled`` are written (local, no
episode). Once per switch-off: the clone keeps what it recorded in
``okf/.memory/hooks-disabled.json`` and records a harness again only after its hooks were on.
The record is opened for writing only when there is something to record: ``hooks status`` in a
read-only work tree still answers, warning what it could not record.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from gitstore import _jsontext
from gitstore.capture.hookinput import HookInput
from gitstore.capture.normalize import build, refuse_unignored
from gitstore.config import foreign, own_config, repository_of
from gitstore.errors import GitstoreError
from gitstore.context import Context

TYPE_CHECKING = False
if TYPE_CHECKING:  # a capture imports this module once it has stored its records: nothing it need not
    from gitstore.capture.install import HookStatus

STATE_NAME = "hooks-disabled.json"
OWN_NAME = "gitstore-hooks-disabled"  # in the work tree's git folder: the blob id of the record this clone wrote
EVENT = "config-check"


def notice(ctx: Context, home: Path, *, ignored: bool = False,
           found: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """Record each harness newly found with its hooks switched off; return the receipts
    written, by harness. ``ignored``: the caller has just checked that git ignores the state
    folder (a capture has), so it is not asked again. ``found``: what ``switched_off`` answered
    for this repository and HOME a moment ago (a capture's transcript reader asks it), so it
    is not asked again."""
    if not ignored:
        refuse_unignored(ctx.workspace)
    state = ctx.workspace.state / STATE_NAME
    if found is None:
        from gitstore.capture.switched import switched_off

        found = switched_off(ctx.workspace.root, home)
    if not _to_record(state, found):
        return {}  # read only: a read-only work tree still answers
    with _locked(state) as handle:
        raw = _raw(handle)
        known = _parse(raw)
        repo = None
        if any(known.get(name) == why for name, why in found.items()):  # the record would hold a receipt back
            repo = repository_of(state.parent)
            if repo is not None and foreign(repo, state, raw, OWN_NAME):
                known = {}
        new = {name: why for name, why in sorted(found.items()) if known.get(name) != why}
        records, receipts = [], {}
        mode = ctx.workspace.config.capture_mode
        for name in new:
            result = build(ctx, HookInput(name, EVENT, None, None, ctx.workspace.root), None, "hooks-disabled", mode)
            records += result.records()
            receipts[name] = result.receipt
        if records:
            ctx.store.append(records, namespace="local")
        if found != known:
            written = _write(handle, found)
            repo = repo or repository_of(state.parent)
            if repo is not None:
                own_config(repo, written, OWN_NAME)
    return receipts


def _to_record(state: Path, found: dict[str, str]) -> bool:
    """Whether ``notice`` has anything to write (receipts, or the record changed), read without
    opening the record for writing; a record that cannot be read is left to the locked open to
    name."""
    try:
        raw = state.read_bytes()
    except FileNotFoundError:
        raw = b""
    except OSError:
        return True
    known = _parse(raw)
    if found != known:
        return True
    if not found:
        return False
    repo = repository_of(state.parent)  # another clone's record holds no receipt back
    return repo is not None and foreign(repo, state, raw, OWN_NAME, record=False)


class Checked(NamedTuple):
    """``gitstore hooks status``: every harness and scope, and the hooks-disabled receipts the
    check recorded (by harness)."""

    rows: list[HookStatus]
    recorded: tuple[str, ...] = ()


def checked_status(repo_root: Path | None, home: Path) -> Checked:
    """The status of every harness's hook; inside a gitstore repository, switched-off hooks are
    recorded as :func:`notice` does, and a hook whose latest capture stored no session says so
    (``gitstore.capture.outcomes``)."""
    from gitstore.capture.install import status
    from gitstore.capture.outcomes import marked

    rows = status(repo_root, home)
    if repo_root is None:
        return Checked(rows)
    try:
        ctx = Context.open(str(repo_root))
    except GitstoreError:
        return Checked(rows)  # not set up for gitstore: nothing to record into
    try:
        recorded = tuple(notice(ctx, home))
    except OSError as exc:  # a read-only work tree: the status still shows, what went unrecorded is named
        from gitstore import notices

        where = f" ({exc.filename})" if exc.filename else ""
        notices.note(f"hooks switched off could not be recorded as hooks-disabled receipts: {exc.strerror or exc}{where}")
        recorded = ()
    return Checked(marked(rows, ctx.workspace.state), recorded)


class _locked:
    """The state file, opened and held under an exclusive lock (two captures record once)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> Any:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        self.handle = os.fdopen(fd, "r+b")
        return self.handle

    def __exit__(self, *_: object) -> None:
        self.handle.close()


def _raw(handle: Any) -> bytes:
    handle.seek(0)
    data: bytes = handle.read()
    return data


def _parse(raw: bytes) -> dict[str, str]:
    try:
        data = _jsontext.loads(raw or b"{}")
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _write(handle: Any, off: dict[str, str]) -> bytes:
    data = json.dumps(off, sort_keys=True).encode("utf-8")
    handle.seek(0)
    handle.truncate()
    handle.write(data)
    handle.flush()
    return data
