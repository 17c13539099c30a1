"""``gitstore import``: backfill memory from transcripts, review snapshots and GitHub pull requests."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from gitstore.cli._complete import words
from gitstore.capture.reviews import TEXT_CHARS, import_all
from gitstore.capture.sessions import import_transcript
from gitstore.cli._capture import MODE_OPTION, print_capture
from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.cli._people import BY_OPTION, actor
from gitstore.cli._values import checked, filled, one_of, time_or_age
from gitstore.config import capture_mode
from gitstore.context import Context
from gitstore.errors import Incomplete, UsageError
from gitstore.records.vocabulary import HARNESSES

import_app = typer.Typer(help="Backfill memory from transcripts, review snapshots and GitHub pull requests.",
                         no_args_is_help=True)


@import_app.command("transcript")
def transcript(
    path: Path = typer.Argument(..., metavar="FILE",
                                help="A session file of Claude Code, Codex, Gemini CLI or OpenCode."),
    harness: Optional[str] = typer.Option(None, "--harness", metavar="HARNESS", autocompletion=words(HARNESSES),
                                          help=f"Skip detection: {', '.join(HARNESSES)}.",
                                          callback=checked(one_of("harness", HARNESSES))),
    mode: Optional[str] = MODE_OPTION,
    session: Optional[str] = typer.Option(None, "--session", metavar="ID",
                                          help="The session to import from OpenCode's database (opencode.db), "
                                               "which holds many; not needed when it holds one."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Backfill one transcript as a session episode (local; never pushed)."""
    ctx = Context.open()
    if session is not None:
        from gitstore.capture.transcripts.opencode_db import is_database

        if path.is_file() and not is_database(path):
            raise UsageError(f"--session names a session of OpenCode's database (opencode.db); {path} is not one")
    result = import_transcript(ctx, path, harness, mode or capture_mode(ctx.workspace), session)
    print_capture(result, as_json)


@import_app.command("reviews")
def reviews(
    snapshot: Path = typer.Argument(..., metavar="SNAPSHOT",
                                    help="A GitHub snapshot, webhook delivery, JSON array of them, or folder of such files "
                                         "(each snapshot its own import; the deliveries one more)."),
    remove_deleted: bool = typer.Option(False, "--remove-deleted", help="Remove the text of comments shown deleted."),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Import pull-request review comments: one episode per thread, events for every change."""
    ctx = Context.open()
    reports = import_all(ctx, snapshot, actor(ctx, by), remove_deleted=remove_deleted)
    if as_json:  # one import as before; several as a list of them
        emit_json(reports[0].to_json() if len(reports) == 1 else {"imports": [r.to_json() for r in reports]})
        return
    for report in reports:
        _show_reviews(report.to_json(), len(reports) > 1)


def _show_reviews(data: dict[str, Any], several: bool) -> None:
    counts = data["counts"]
    which = f"#{data['pullRequest']} " if several and data["pullRequest"] is not None else \
        "webhook deliveries: " if several else ""
    echo(f"{which}imported {counts['comments']} comment(s), {counts['edits']} edit(s), {counts['deletions']} "
         f"deletion(s), {counts['reviews']} review(s) into {data['episodes']} new episode(s)")
    if data["alreadyStored"]:
        echo(f"  {data['alreadyStored']} item(s) already in the store (nothing new in them)")
    if counts["skipped"]:
        echo(f"  {counts['skipped']} item(s) withheld: quarantined by the safety scanner, deleted or removed at "
             "their source, or with no GitHub id or text (not stored)")
    if not data["complete"]:
        spans = ", ".join(f"{m['collection']} pages {m['from']}-{m['to'] or '?'}" for m in data["missing"])
        echo(f"  incomplete: missing {spans}; `{data['todo']}` completes it (what was imported is kept)")
    for source in data["removedText"]:
        echo(f"  removed the text of {source} (deleted at its source)")
    for source in data["cutText"]:
        echo(f"  cut the text of {source} to {TEXT_CHARS:,} characters (at a word; the rest is not stored)")


@import_app.command("github")
def github(
    repo: str = typer.Option(..., "--repo", metavar="OWNER/NAME", help="The repository on GitHub."),
    since: Optional[str] = typer.Option(None, "--since", help="Pull requests updated since a time (2026-03-01) or an age (3d, 12h).",
                                       callback=checked(time_or_age)),
    pulls: list[int] = typer.Option([], "--pr", metavar="N", help="Only this pull request (repeatable); --since is then ignored."),
    api_url: Optional[str] = typer.Option(None, "--api-url", help="The REST API (default: $GITHUB_API_URL or https://api.github.com).",
                                         callback=checked(filled)),
    out: Optional[Path] = typer.Option(None, "--out", help="Where snapshots are saved (default: okf/.memory/inbox/github/); redact scrubs them there too."),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Fetch pull requests' review comments through the GitHub REST API ($GITHUB_TOKEN) and import them."""
    from gitstore.capture.github import import_github, token_from_environment
    from gitstore.records.times import time_or_age

    ctx = Context.open()
    when = time_or_age(since) if since is not None else None
    report = import_github(ctx, repo, actor(ctx, by), since=when, pulls=pulls or None, api=api_url,
                           token=token_from_environment(), out=out)
    if as_json:
        emit_json(report.to_json())
    else:
        _show_github(report)
    shortfall = report.shortfall()
    if shortfall:  # a scheduled job must not show green after importing nothing, or part
        raise Incomplete(shortfall)


def _show_github(report: Any) -> None:
    for pull in report.pulls:
        echo(f"#{pull.pull} {_pull_line(pull.to_json())}")
        for problem in pull.problems:
            echo(f"  missing {problem}")
    for problem in report.listing:
        echo(f"  listing incomplete: {problem}")
    state = "complete" if report.complete else "INCOMPLETE (see above)"
    echo(f"{len(report.pulls)} pull request(s) from {report.repository} in {report.requests} request(s): {state}")


def _pull_line(pull: dict[str, Any]) -> str:
    if pull["outcome"] != "imported":
        return "unchanged since its last import" if pull["outcome"] == "unchanged" else "import failed"
    done = pull["import"]
    counts = done["counts"]
    cut = f", {len(done['cutText'])} text(s) cut to {TEXT_CHARS:,} characters" if done["cutText"] else ""
    deleted = f", {counts['deletions']} deletion(s)" if counts["deletions"] else ""
    stored = f", {done['alreadyStored']} item(s) already in the store" if done["alreadyStored"] else ""
    withheld = (f", {counts['skipped']} item(s) withheld (quarantined by the safety scanner, deleted or removed at "
                "their source, or with no GitHub id or text: not stored)") if counts["skipped"] else ""
    removed = f", the text of {len(done['removedText'])} deleted at its source removed" if done["removedText"] else ""
    return (f"imported {counts['comments']} comment(s), {counts['edits']} edit(s){deleted}, {counts['reviews']} "
            f"review(s) into {done['episodes']} new episode(s){stored}{withheld}{removed}{cut}, "
            f"{'complete' if done['complete'] else 'incomplete'}")


def register(app: typer.Typer) -> None:
    app.add_typer(import_app, name="import")
