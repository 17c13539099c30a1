"""``gitstore episodes``: the evidence stored, one line per episode."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.cli._complete import words
from gitstore.records.vocabulary import SOURCES
from gitstore._shown import one_line
from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.cli._evidence import degraded_note, print_event
from gitstore.cli._values import checked, one_of
from gitstore.context import Context
from gitstore.queries.evidence import episodes as query


def episodes(
    grep: Optional[str] = typer.Option(None, "--grep", metavar="REGEX",
                                       help="Only episodes whose title or events match (case ignored)."),
    source: Optional[str] = typer.Option(None, "--source", metavar="SOURCE", autocompletion=words(SOURCES),
                                         help="Only review-thread, agent-session or manual episodes.",
                                         callback=checked(one_of("source", SOURCES))),
    as_json: bool = JSON_OPTION,
) -> None:
    """List the evidence episodes (review threads, agent sessions); --grep searches their text."""
    found = query(Context.open(), grep, source)
    if as_json:
        emit_json([e.to_json() for e in found])
        return
    if not found:
        echo("no episodes" + (" match" if grep or source else " yet: capture a session or `gitstore import` some"))
    for shown in found:
        episode = shown.episode
        title = one_line(shown.title or "(no text)")
        note = degraded_note(shown)
        degraded = f" [{note}]" if note else ""
        echo(f"{episode['id']} {episode['source']['kind']:<13} {shown.count:>4} event(s) {shown.where}  {title}{degraded}")
        for event in shown.events:
            print_event(event, "    ")
    if found and not grep:
        echo("\n`gitstore evidence EPISODE` shows an episode's events and the ids `gitstore propose --evidence` takes")


def register(app: typer.Typer) -> None:
    app.command()(episodes)
