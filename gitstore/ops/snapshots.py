"""Applying memory's redactions to the GitHub snapshots ``import github`` saved on this clone.

``gitstore redact`` scrubs the snapshots saved on the clone where it runs. A redaction made on
another clone arrives through ``gitstore sync`` (or a plain ``git fetch``), and nothing on this
clone has scrubbed its own copies: ``apply_redactions``, which sync runs once it has admitted
what it fetched, empties the text of every comment whose text memory removed (the redactions
this store honours, as ``import github`` finds them) in every snapshot saved here, in the
inbox and in each folder ``--out`` named. The removed payloads the snapshots reflect are
noted (``gitstore.capture.saved.applied``), so with no new redaction no snapshot is read. The
export files of this clone that copied such a comment are written again in the same pass, as
``redact`` writes them where it runs. ``gitstore gc`` applies them too (a plain fetch brings a
redaction and runs no sync). A snapshot or export whose scrubbing failed (a file that could not
be written) stays pending and is applied by the next run. ``pending``, ``still_held`` and
``exports_held`` tell ``gitstore doctor`` what is left.
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path
from typing import cast

from gitstore.capture.saved import (Applied, Scrubbed, applied, exclusive, holding, mark_applied, saved_anywhere,
                                    scrub_everywhere, shown)
from gitstore.context import Context
from gitstore.providers import AttestingProvider


def pending(ctx: Context) -> set[str]:
    """The payloads memory removed (a redaction note this store honours) that the saved
    snapshots do not reflect yet. A store without other clones' appends has none: ``redact``
    scrubbed where it ran."""
    if "attest" not in ctx.store.manifest.capabilities:
        return set()
    return cast(AttestingProvider, ctx.store.provider).noted() - applied(ctx.workspace.state)


def redacted_comments(ctx: Context) -> set[str]:
    """The source ids of the comments whose text memory removed, as ``import github`` reads
    them, by the redaction notes honoured here only: a note without authority removes nothing,
    so it scrubs no saved snapshot (the one of a removal this clone made before the team's
    policy was scrubbed where it ran)."""
    from gitstore.capture.reviews import KnownReviews

    return KnownReviews.load(ctx).redacted


def apply_redactions(ctx: Context) -> Applied:
    """Scrub every saved snapshot of the comments memory removed, when a redaction is pending;
    note the redactions applied only when every snapshot could be rewritten."""
    todo = pending(ctx)
    if not todo:
        return Applied()
    state = ctx.workspace.state
    with exclusive(state):  # an import under way saves first: its files are scrubbed too
        done = scrub_everywhere(state, redacted_comments(ctx)) if saved_anywhere(state) else Scrubbed()
        exports = _rewrite_exports(ctx, todo, done.failed)
        if not done.failed:
            with suppress(OSError):  # not noted: the next run only scrubs again
                mark_applied(state, todo)
    return Applied.of(done, ctx.workspace.root, exports)


def _rewrite_exports(ctx: Context, removed: set[str], failed: list[tuple[Path, str]]) -> list[Path]:
    """Write again every export file of this clone (``gitstore export --with-evidence``) that
    copied an event whose payload is among ``removed``, the redaction note in its payload's
    place, as ``redact`` does where it runs; one that cannot be written goes to ``failed``."""
    from gitstore.ops.redact import export_files, rewrite_export

    view = ctx.view()
    gone = {e["id"] for e in view.events.values() if e.get("payloadDigest") in removed}
    rewritten = []
    for _, path in export_files(ctx, view, gone) if gone else ():
        try:
            if rewrite_export(ctx, path, gone):
                rewritten.append(path)
        except (OSError, ValueError) as exc:
            failed.append((path, str(exc)))
    return rewritten


def exports_held(ctx: Context) -> dict[str, list[str]]:
    """When a redaction is pending: the export files of this clone still holding the text of an
    event memory removed (as a report names them), and the events whose; read only."""
    from gitstore.ops.redact import export_files, holds_payload

    todo = pending(ctx)
    if not todo:
        return {}
    view = ctx.view()
    gone = {e["id"] for e in view.events.values() if e.get("payloadDigest") in todo}
    found = {path: sorted(held) for _, path in (export_files(ctx, view, gone) if gone else ())
             if (held := holds_payload(path, gone))}
    return {shown(path, ctx.workspace.root): ids for path, ids in found.items()}


def still_held(ctx: Context) -> dict[str, list[str]]:
    """When a redaction is pending: the saved snapshots still holding text memory removed (as a
    report names them), and the comments whose; read only."""
    if not pending(ctx) or not saved_anywhere(ctx.workspace.state):
        return {}
    found = holding(ctx.workspace.state, redacted_comments(ctx))
    return {shown(path, ctx.workspace.root): ids for path, ids in found.items()}


__all__ = ["apply_redactions", "exports_held", "pending", "redacted_comments", "still_held"]
