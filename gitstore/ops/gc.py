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
``git fetch`` brought was applied by no sync. It drops the dream reports and kept labels that
cite removed text (``okf/.memory/dreams/``: a report holds a proposal in words of the evidence
it cites). After gc no run of the removed text is left, but in the content of a learning that
quoted it: records never change (``gitstore redact`` names those learnings).
"""

from __future__ import annotations

from collections.abc import Set
from pathlib import Path
from typing import Any

from gitstore import _jsontext
from gitstore.capture.saved import Applied
from gitstore.context import Context
from gitstore.errors import GitstoreError, Refused
from gitstore.ops import unfinished
from gitstore.providers import GcReport
from gitstore.store import Store

CACHE = "cache"  # under the state folder: gitstore.deliver.index.folder
DREAMS = "dreams"  # under the state folder: gitstore.dream.run.REPORTS
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


def collect(ctx: Context) -> tuple[GcReport, Applied, list[str], list[str]]:
    """``gitstore gc``: first the text this clone stored of a comment another clone redacted
    before the redaction reached it removed (``follow_redactions``, as a sync does: a plain
    ``git fetch`` brought the redaction), then the provider's gc, then memory's redactions
    applied to this clone's saved snapshots and exports (``apply_redactions``, as a sync does),
    then the dream reports citing removed text dropped (named in the third list returned; the
    fourth says what the first step did). A file that cannot be rewritten or removed is named,
    never gc's failure: storage is clean, and the next run tries again."""
    from gitstore.ops.redact import follow_redactions
    from gitstore.ops.snapshots import apply_redactions

    able = {"gc", "redact-payload"} <= set(ctx.store.manifest.capabilities)
    followed = follow_redactions(Context.open(ctx.workspace.root)) if able else []
    report = gc(Context.open(ctx.workspace.root).store, ctx.workspace.state)
    try:
        applied = apply_redactions(Context.open(ctx.workspace.root))
    except (GitstoreError, OSError) as exc:
        applied = Applied(failed=[("the saved GitHub snapshots and exports", str(exc))])
    try:
        dropped = _drop_dream_reports(Context.open(ctx.workspace.root), applied)
    except GitstoreError as exc:
        applied.failed.append(("the saved dream reports", str(exc)))
        dropped = []
    return report, applied, dropped, followed


def _drop_dream_reports(ctx: Context, applied: Applied) -> list[str]:
    """Remove the dream reports and kept labels that cite an event whose text memory removed
    (``drop_citing``): a dream words what it returns from the evidence it cites. Those that
    cannot be removed go to ``applied.failed``. Returns the files removed, as a report names
    them."""
    from gitstore.capture.saved import shown

    gone = {eid for eid, event in ctx.view().events.items() if "redaction" in event}
    root = ctx.workspace.root
    removed, failed = drop_citing(ctx.workspace.state / DREAMS, gone)
    applied.failed += [(shown(path, root), why) for path, why in failed]
    return [shown(path, root) for path in removed]


def drop_citing(folder: Path, names: Set[str]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Remove from ``folder`` (``okf/.memory/dreams/``) each report a dream saved, and the labels
    a repeatable labeler kept there, that names one of ``names``, the events whose text memory
    removed. A report holds what a dream proposed in words of the evidence it cites, and kept
    labels hold a labeler's answer on that evidence, as the label events the removal took did;
    both are this clone's own files, and nothing reads an old report. The
    lists of evidence judged without a label (``judged-*``) hold ids alone and stay. Returns the
    files removed and those that could not be, with why."""
    removed: list[Path] = []
    failed: list[tuple[Path, str]] = []
    if not names or not folder.is_dir():
        return removed, failed
    for path in sorted(folder.glob("*.json")):
        if path.name.startswith("judged-"):
            continue
        try:
            found = _strings(_jsontext.loads(path.read_bytes()))
        except (OSError, ValueError):
            continue  # not a report of ours: nothing to tell it cites
        if found.isdisjoint(names):
            continue
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            failed.append((path, exc.strerror or str(exc)))
            continue
        removed.append(path)
    return removed, failed


def _strings(data: Any) -> set[str]:
    """Every string a JSON document holds, keys aside."""
    found: set[str] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _drop_caches(state: Path) -> None:
    """Remove memory's disposable caches (recall's index, ``cache/``): an index built before a
    redaction keeps the removed text in its rows until the next read rebuilds it. The next
    read builds it again from what storage holds now."""
    import shutil

    shutil.rmtree(state / CACHE, ignore_errors=True)
