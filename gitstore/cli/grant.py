"""``gitstore grant``: a person lets evidence serve purposes (consent, decided at read time)."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.cli._complete import words
from gitstore.records.vocabulary import PURPOSES, SOURCES
from gitstore.cli._values import at_most, checked, filled, one_of, time
from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.cli._people import BY_OPTION, actor
from gitstore.context import Context
from gitstore.ops import consent as ops


def grant(
    purpose: list[str] = typer.Option(..., "--purpose", metavar="PURPOSE", autocompletion=words(PURPOSES),
                                      help="review, instruction, evaluation, analytics, training or publication (repeat).",
                                      callback=checked(one_of("purpose", PURPOSES))),
    source: list[str] = typer.Option(["review-thread"], "--source", metavar="SOURCE", autocompletion=words(SOURCES),
                                     help="review-thread, agent-session or manual (repeat).",
                                     callback=checked(one_of("source", SOURCES))),
    start: str = typer.Option("1970-01-01", "--from", metavar="TIME",
                              help="Covers evidence written from this time on (2026-01-01T10:00Z; a date such as 2026-01-01 "
                                   "means 00:00 UTC that day).", callback=checked(time)),
    until: Optional[str] = typer.Option(None, "--until", metavar="TIME",
                                        help="Covers evidence written up to this time (a date means 00:00 UTC that day, so "
                                             "nothing written later that day; default: open).",
                                        callback=checked(time)),
    note: Optional[str] = typer.Option(None, "--note", metavar="TEXT", help="Why.",
                                       callback=checked(filled, at_most(500))),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Grant: evidence from these sources, written in this range, may serve these purposes."""
    ctx = Context.open()
    record = ops.grant(ctx, actor(ctx, by), purpose, source, start, until, note)
    emit_json(record) if as_json else echo(f"granted {record['digest']}")


def register(app: typer.Typer) -> None:
    app.command()(grant)
