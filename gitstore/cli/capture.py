"""``gitstore capture`` and ``gitstore import``: how experience enters the store."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from gitstore.capture.sessions import HARNESSES, MODES, HookInput, capture as do_capture, configured_mode, import_transcript
from gitstore.errors import InvalidInput, UsageError
from gitstore.ops._context import Context
from gitstore.capture.reviews import import_reviews
from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._people import BY_OPTION, actor

import_app = typer.Typer(help="Backfill memory from transcripts and review snapshots.", no_args_is_help=True)


def _summary(result: Any) -> dict[str, Any]:
    receipt = result.receipt
    return {"envelope": result.envelope["digest"], "receipt": receipt["digest"],
            "episode": receipt["episode"], "status": receipt["status"], "reasons": receipt["reasons"],
            "lines": receipt["lines"], "redactions": receipt["redactions"], "events": len(result.events)}


def _print(summary: dict[str, Any]) -> None:
    state = summary["status"] + (f" ({', '.join(summary['reasons'])})" if summary["reasons"] else "")
    typer.echo(f"captured episode {summary['episode'] or '-'}: {summary['events']} event(s), {state}")
    lines = summary["lines"]
    typer.echo(f"  lines {lines['total']}: parsed {lines['parsed']}, unknown {lines['unknown']}, "
               f"malformed {lines['malformed']}, quarantined {lines['quarantined']}; redactions {summary['redactions']}")


def capture(
    harness: str = typer.Option(..., "--harness", help=f"One of {', '.join(HARNESSES)}."),
    mode: Optional[str] = typer.Option(None, "--mode", help=f"{', '.join(MODES)} (default from config: summary)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Read a harness hook's JSON from standard input and capture the session."""
    raw = sys.stdin.buffer.read(1 << 20)
    try:
        payload = json.loads(raw or b"{}")
    except ValueError:
        raise InvalidInput("hook input on standard input is not JSON") from None
    if not isinstance(payload, dict):
        raise InvalidInput("hook input must be a JSON object")
    ctx = Context.open()
    hook = HookInput.from_payload(harness, payload, str(Path.cwd()))
    result = do_capture(ctx, hook, mode or configured_mode(ctx.workspace))
    emit_json(_summary(result)) if as_json else _print(_summary(result))


@import_app.command("transcript")
def transcript(
    path: Path = typer.Argument(..., help="A transcript file (Claude Code, Codex, Gemini CLI, OpenCode session)."),
    harness: Optional[str] = typer.Option(None, "--harness", help="Skip detection."),
    mode: Optional[str] = typer.Option(None, "--mode", help=f"{', '.join(MODES)}."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Backfill one transcript as a session episode (local; never pushed)."""
    if harness is not None and harness not in HARNESSES:
        raise UsageError(f"unknown harness {harness!r} (one of {', '.join(HARNESSES)})")
    ctx = Context.open()
    result = import_transcript(ctx, path, harness, mode or configured_mode(ctx.workspace))
    emit_json(_summary(result)) if as_json else _print(_summary(result))


@import_app.command("reviews")
def reviews(
    snapshot: Path = typer.Argument(..., help="A GitHub snapshot, webhook delivery, array of them, or folder."),
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
    typer.echo(f"imported {counts['comments']} comment(s), {counts['edits']} edit(s), {counts['deletions']} "
               f"deletion(s), {counts['reviews']} review(s) into {data['episodes']} new episode(s)")
    if not data["complete"]:
        spans = ", ".join(f"{m['collection']} pages {m['from']}-{m['to'] or '?'}" for m in data["missing"])
        typer.echo(f"  incomplete: missing {spans}")
    for source in data["removedText"]:
        typer.echo(f"  removed the text of {source} (deleted at its source)")


def register(app: typer.Typer) -> None:
    app.command()(capture)
    app.add_typer(import_app, name="import")
