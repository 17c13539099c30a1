"""Keeping the files ``gitstore publish`` wrote current after a command took learnings out of
force (withdraw, redact, retire): what was rewritten, or why the files are stale."""

from __future__ import annotations

import typer

from gitstore.context import Context
from gitstore.deliver.publish import Refresh, refresh
from gitstore.errors import GitstoreError


def keep_current(ctx: Context, as_json: bool) -> Refresh:
    """Bring published files up to date and say so (on standard error under ``--json``, whose
    standard output is the command's record)."""
    try:
        done = refresh(ctx)
    except GitstoreError as exc:  # the command itself succeeded; only the published files lag
        done = Refresh(stale=[str(exc)])
    if done.files:
        typer.echo(f"  rewrote the published {', '.join(done.files)} without what left force", err=as_json)
    for why in done.stale:
        typer.echo(f"  published files are stale: {why}; then run `gitstore publish`", err=as_json)
    return done
