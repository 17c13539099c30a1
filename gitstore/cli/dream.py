"""``gitstore dream``: label, consolidate and tidy in one pass; print what a reviewer needs.

A dream that ran prints its report (``--json``: one JSON document), with exit code 1 when it was
degraded. A dream that could not run at all (blocked: no readable store) is an error like any
other command's: nothing on standard output, one line on standard error (a JSON object under
``--json``), and that error's exit code.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Optional

import typer

from gitstore.cli._io import JSON_OPTION, echo, emit_json
from gitstore.cli._people import BY_OPTION
from gitstore.cli._values import checked, filled, one_of, time_or_age
from gitstore.dream.run import Request, dream as run_dream, since_time
from gitstore.errors import GitstoreError, IntegrityError, UsageError
from gitstore.records.vocabulary import PURPOSES


def dream(
    since: Optional[str] = typer.Option(None, "--since", help="Only evidence written since a time (2026-03-01) or an age (30d, 12h, 2w).",
                                         callback=checked(time_or_age)),
    labeler: Optional[str] = typer.Option(None, "--labeler", help="lexical (default), command, or a plug-in's name.",
                                           callback=checked(filled)),
    consolidator: Optional[str] = typer.Option(None, "--consolidator", help="recurrence (default) or a plug-in's name.",
                                                callback=checked(filled)),
    purpose: str = typer.Option("instruction", "--purpose", help="The purpose the evidence must serve.",
                                 callback=checked(one_of("purpose", PURPOSES))),
    no_tidy: bool = typer.Option(False, "--no-tidy", help="Skip tidy (near-duplicates, conflicts, stale learnings)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Store no labels, proposals or report (a labeler program's disclosure is still recorded)."),
    explain: Optional[str] = typer.Option(None, "--explain", metavar="THEME", help="Say why THEME (a key or a word) did or did not become a proposal (a dry run).",
                                           callback=checked(filled)),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Propose learnings from themes that recur across independent evidence; a person decides."""
    now = datetime.now(timezone.utc)  # one clock for the window and for what is dated in the future
    request = Request(
        by=by, purpose=purpose,
        since=since_time(since, now) if since is not None else None, labeler=labeler, consolidator=consolidator,
        tidy=not no_tidy, dry_run=dry_run, explain=explain, now=now,
    )
    report = run_dream(".", request)
    if report.status == "blocked":  # an error like any other command's: standard output stays empty
        error = {2: UsageError, 3: IntegrityError}.get(report.exit_code, GitstoreError)
        raise error(report.render())
    emit_json(report.to_json()) if as_json else echo(report.render())
    if report.exit_code:
        raise typer.Exit(report.exit_code)


def register(app: typer.Typer) -> None:
    app.command()(dream)
