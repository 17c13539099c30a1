"""Which work-tree store is this clone's own, remembered where no commit, patch or submodule reaches.

A sqlite or jsonl store lives in the work tree, under the ignored ``okf/.memory/``, and git
can fill it without any commit holding its files: ``git apply`` of a patch onto the empty files
a fresh clone starts with, or a copy. Its bytes alone cannot say whose they are. So the work
tree's git folder keeps the store's random id (``gitstore/<provider>.store``), written when
gitstore makes the store or first takes it as this clone's; the store names the same id (sqlite
in its ``meta`` table, jsonl in the lines of its log). A store holding appends under another id,
or under none, is not opened. Nor is a jsonl store holding lines past those this clone's
appends acknowledged, as the git folder records them beside the anchor
(``gitstore/jsonl.acked``: the line count, the digest of the last line and a running digest of
every line, then payloads.jsonl's line count and running digest, written after each append's
log line), save the one append this clone's writer
named there (``gitstore/jsonl.inflight``:
the line's index and digest) before writing it, which a kill before its record leaves. The log
beside the files does not vouch: it is in the work tree, and a patch's zero-context hunk can
append to it without knowing it. Nor does the writer id a line names, since it is public (it
names the clone's memory refs) and a patch onto the empty files of a fresh store can claim it.
A sqlite store's own id vouches that the file is the store, not that its rows are the ones this
clone wrote (a clock or a writer can be rewritten in place), so the git folder keeps for it too
the appends acknowledged (``gitstore/sqlite.acked``: their count and running digest), which
also finds the file deleted (``git clean -fdX``), never taken for a new store.
A jsonl store anchored before ``jsonl.acked`` existed is taken once as its log counts it (and
the append named in flight), and the record written then; from then on the log never vouches
beyond the record. The record also finds what a checkout does to the ignored files (one of a
commit holding their names overwrites them, the checkout back deletes them, the log beside them
included): a store holding fewer lines than it counts, or none, is damage, never a new store.

A store made before the anchor existed has none: it is taken as this clone's once, when every
append it holds was written by this clone's writer id, and that id is the one of the config.json
``gitstore init`` accepted for this work tree, as its git folder keeps it
(``gitstore.config.accept_config``). The writer id alone would not do: a patch that brings the
store can bring the config.json naming its writer too, and ``git apply`` leaves no trace git
could see. Only in the main work tree: a linked one (``git worktree add``) has no store from
before anchors, and takes a config.json naming the main tree's writer for that id alone.
Otherwise it is refused, and the error says how to keep it (move it aside).
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path
from typing import Protocol

from gitstore._files import replace_file, temporary_name
from gitstore.errors import IntegrityError, Refused


class OwnedStore(Protocol):
    """What a work-tree store tells about whose it is."""

    def store_id(self) -> str:
        """The random id the store names (``""``: it names none)."""

    def writers(self) -> frozenset[str]:
        """The writer ids of the appends it holds."""

    def unvouched_writers(self) -> frozenset[str]:
        """The writer ids of the appends it holds that neither its id nor this clone's git
        folder vouches for (jsonl: past the lines its ``jsonl.acked`` record counts, save the
        one append named in flight)."""

    def vouched_appends(self) -> int:
        """How many appends this clone's git folder says its appends acknowledged (jsonl: the
        count ``jsonl.acked`` records, sqlite: the count ``sqlite.acked`` records)."""


def anchor_path(git_dir: str | Path, provider: str) -> Path:
    """The anchor of ``provider``'s store, in the work tree's own git folder."""
    return Path(git_dir) / "gitstore" / f"{provider}.store"


def inflight_path(anchor: Path) -> Path:
    """Beside the anchor: the append a jsonl store's writer is about to write (its line's
    index and digest), named before the line is, so the one append a kill can leave past the
    log's count is vouched for, and nothing else."""
    return anchor.with_name(anchor.name.removesuffix(".store") + ".inflight")


def acked_path(anchor: Path) -> Path:
    """Beside the anchor: what this clone's appends acknowledged in the store (a sqlite store's
    append count and running digest, ``gitstore.providers.sqlite``)."""
    return anchor.with_name(anchor.name.removesuffix(".store") + ".acked")


def anchored(path: Path) -> str | None:
    """The store id the anchor names, or None when there is no anchor."""
    try:
        return path.read_text(encoding="ascii").strip() or None
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return ""  # unreadable: names no store, so no store holding appends matches it


def new_store_id() -> str:
    return os.urandom(16).hex()  # secrets.token_hex's own bytes, without its imports (hmac, random: 3 ms)


def claim(path: Path, identity: str) -> str:
    """Make ``identity`` the anchored id unless another process anchored one first; the id
    that stands. Written whole (a file linked into place), so no reader sees half of it;
    quietly left for the next command when the git folder cannot be written (a read-only
    checkout): the store is then read as one made before anchors."""
    scratch = temporary_name(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        Path(scratch).write_text(identity + "\n", encoding="ascii")
        os.link(scratch, path)
    except FileExistsError:
        return anchored(path) or identity
    except OSError:
        return identity
    finally:
        with suppress(OSError):
            os.unlink(scratch)
    return identity


def reanchor(path: Path, identity: str) -> None:
    """Anchor ``identity`` in place of what was there: only for a store holding no append
    (quietly left when the git folder cannot be written)."""
    with suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, identity + "\n")


def is_own(store: OwnedStore, anchor: str | None, writer: str, adopts: bool = True) -> bool:
    """Whether the store's appends are this clone's: none at all; or the store names the
    anchored id and holds no append nothing vouches for (jsonl: past the lines the git folder's
    ``jsonl.acked`` counts, only the one append this clone named in flight beside the anchor before
    writing it, as an append killed before its log line leaves; the writer id an append names
    vouches for nothing, it is public); or, with no anchor yet (a store made before anchors),
    every append is by ``writer`` and ``adopts`` (``writer`` is the one of the configuration
    init accepted for this work tree). A store holding no append while the git folder says this
    clone's appends were acknowledged is neither: its files were deleted or replaced, which is
    damage (``IntegrityError``), never a new store to take."""
    writers = store.writers()
    if not writers:
        vouched = store.vouched_appends()
        if vouched:
            raise IntegrityError(f"the store holds no append but this clone's appends acknowledged {vouched}: "
                                 "its files were deleted or replaced; this is damage, see `gitstore verify`")
        return True
    if anchor is not None:
        return store.store_id() == anchor and not store.unvouched_writers()
    return adopts and writers <= {writer}


def refuse_unowned(store: OwnedStore, anchor: str | None, writer: str, shown: str, moving: str,
                   path: Path | None = None, adopts: bool = True, linked: bool = False) -> None:
    """Refuse a store holding appends gitstore did not write for this clone, naming the
    writers they claim, the anchor at ``path`` it lacks (when none), why it was not taken as
    made before anchors (a linked work tree never takes such a store, ``linked``; else no
    accepted config.json names its writer) and the command (``moving``) that moves it away,
    which keeps it for whoever wants to look at it; the next command then starts a store of
    the work tree's own."""
    if is_own(store, anchor, writer, adopts):
        return
    others = ", ".join(sorted(store.writers() - {writer})) or writer
    why = ("a linked work tree (`git worktree add`) never takes a store it did not make itself, not even "
           "a copy of the main tree's" if linked else
           "this clone's `gitstore init` never accepted a config.json with that writer")
    unanchored = (f"; no {path} names the store gitstore made for this work tree, and {why}"
                  if anchor is None and path is not None else "")
    raise Refused(f"{shown} holds appends gitstore did not write for this clone (writer {others}; a patch, a copy "
                  f"or another repository brought them{unanchored}), so the store is not opened: move it aside to "
                  f"keep it (`{moving}`), then run the command again"
                  + (" (it starts this work tree's own store)" if linked else ""))


__all__ = ["OwnedStore", "acked_path", "anchor_path", "anchored", "claim", "inflight_path", "is_own", "new_store_id",
           "reanchor", "refuse_unowned"]
