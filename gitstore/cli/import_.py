"""``gitstore import``: backfill memory from transcripts and review snapshots."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from gitstore.cli._complete import words
from gitstore.capture.reviews import import_reviews
from gitstore.capture.sessions import import_transcript
from gitstore.cli._capture import MODE_OPTION, print_capture
from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.cli._people import BY_OPTION, actor
from gitstore.context import Context
from gitstore.errors import UsageError
from gitstore.records.vocabulary import HARNESSES

import_app = typer.Typer(help="Backfill memory from transcripts and review snapshots.", no_args_is_help=True)


@import_app.command("transcript")
def transcript(
    path: Path = typer.Argument(..., metavar="FILE",
                                help="A session file of Claude Code, Codex, Gemini CLI or OpenCode."),
    harness: Optional[str] = typer.Option(None, "--harness", metavar="HARNESS", autocompletion=words(HARNESSES),
                                          help=f"Skip detection: {', '.join(HARNESSES)}."),
    mode: Optional[str] = MODE_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Backfill one transcript as a session episode (local; never pushed)."""
    if harness is not None and harness not in HARNESSES:
        raise UsageError(f"unknown harness {harness!r} (one of {', '.join(HARNESSES)})")
    ctx = Context.open()
    result = import_transcript(ctx, path, harness, mode or ctx.workspace.config.capture_mode)
    print_capture(result, as_json)


@import_app.command("reviews")
def reviews(
    snapshot: Path = typer.Argument(..., metavar="SNAPSHOT",
                                    help="A GitHub snapshot, webhook delivery, array of them, or folder."),
    remove_deleted: bool = typer.Option(False, "--remove-deleted", help="Remove the text of comments shown deleted."),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Import pull-request review comments: one episode per thread, events for every change."""
    ctx = Context.open()
    report = import_reviews(ctx, snapshot, actor(ctx, by), remove_deleted=remove_deleted)
    if as_json:
        emit_json(report.to_json())
        return
    data = report.to_json()
    counts = data["counts"]
    echo(f"imported {counts['comments']} comment(s), {counts['edits']} edit(s), {counts['deletions']} "
         f"deletion(s), {counts['reviews']} review(s) into {data['episodes']} new episode(s)")
    if not data["complete"]:
        spans = ", ".join(f"{m['collection']} pages {m['from']}-{m['to'] or '?'}" for m in data["missing"])
        echo(f"  incomplete: missing {spans}; import a snapshot with those pages to complete it "
             "(what was imported is kept)")
    for source in data["removedText"]:
        echo(f"  removed the text of {source} (deleted at its source)")


def register(app: typer.Typer) -> None:
    app.add_typer(import_app, name="import")
