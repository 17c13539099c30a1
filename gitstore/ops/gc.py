"""Housekeeping: erase what memory removed, so removed text leaves the provider's storage.

The provider's ``gc`` erases removed payloads, payloads no stored record names (left by
appends that were killed) and superseded copies of them, and nothing else: with git, never a
reflog outside ``refs/memory/``, a stash, a reset-away commit or a dangling object of the
user's (see ``gitstore.providers._gc_git``). It refuses, as every write does, while a policy
record is damaged: which payloads are still named cannot be told from damaged records. A note
(``ops.unfinished``) stands while it runs, so ``gitstore doctor`` names a gc that was killed:
run again, it erases what the killed one left. With the state folder given, gc also drops
memory's disposable caches, which may hold removed text (recall's index). ``collect`` (what
``gitstore gc`` runs) also applies memory's redactions to the files gitstore wrote on this
clone, the GitHub snapshots ``import github`` saved and the export files: a redaction a plain
``git fetch`` brought was applied by no sync, and after gc no run of the removed text is left.
"""

from __future__ import annotations

from pathlib import Path

from gitstore.capture.saved import Applied
from gitstore.context import Context
from gitstore.errors import GitstoreError, Refused
from gitstore.ops import unfinished
from gitstore.providers import GcReport
from gitstore.store import Store

CACHE = "cache"  # under the state folder: gitstore.deliver.index.folder
NOTE = unfinished.Note("gc", "gitstore gc was stopped midway: removed text may still be in storage", "gitstore gc")


def gc(store: Store, state: Path | None = None) -> GcReport:
    """Run the provider's gc (its appends wait meanwhile), noted in ``state`` while it runs."""
    if "gc" not in store.manifest.capabilities:
        raise Refused(f"provider {store.manifest.name} offers no gc")
    store.check_policy()
    if state is None:
        return store.provider.gc()  # type: ignore[attr-defined, no-any-return]
    with unfinished.noting(state, NOTE):
        report: GcReport = store.provider.gc()  # type: ignore[attr-defined]
        _drop_caches(state)
    unfinished.finish(state, NOTE.name)
    return report


def collect(ctx: Context) -> tuple[GcReport, Applied]:
    """``gitstore gc``: the provider's gc, then memory's redactions applied to this clone's saved
    snapshots and exports (``apply_redactions``, as a sync does). A file that cannot be
    rewritten is named, never gc's failure: storage is clean, and the next run tries again."""
    from gitstore.ops.snapshots import apply_redactions

    report = gc(ctx.store, ctx.workspace.state)
    try:
        applied = apply_redactions(Context.open(ctx.workspace.root))
    except (GitstoreError, OSError) as exc:
        applied = Applied(failed=[("the saved GitHub snapshots and exports", str(exc))])
    return report, applied


def _drop_caches(state: Path) -> None:
    """Remove memory's disposable caches (recall's index, ``cache/``): an index built before a
    redaction keeps the removed text in its rows until the next read rebuilds it. The next
    read builds it again from what storage holds now."""
    import shutil

    shutil.rmtree(state / CACHE, ignore_errors=True)
