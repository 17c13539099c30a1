"""``gitstore init``: set gitstore up in this repository."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.cli._complete import words
from gitstore.config import DURABLE, Config
from gitstore.ops.setup import init as do_init
from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._values import checked, one_of


def init(
    provider: Optional[str] = typer.Option(None, "--provider", metavar="PROVIDER", autocompletion=words(DURABLE), help="git (default), sqlite or jsonl.",
                                            callback=checked(one_of("provider", DURABLE))),
    writer: Optional[str] = typer.Option(None, "--writer", help="This clone's writer id (default: a new random one); "
                                         "a CI job keeps one across runs: a writer the remote has is taken up by the first sync."),
    new_writer: bool = typer.Option(False, "--new-writer", help="Give this clone a new writer id (--writer, or a "
                                    "random one), for a folder copied from one that still writes under the id they "
                                    "share, or a clone whose id someone else appended to on the remote: its appends "
                                    "the remote lacks are carried over to the new id. Any command does it unasked "
                                    "where it finds that original."),
    accept_changes: bool = typer.Option(False, "--accept-changes", help="Take a config.json whose writer, "
                                        "provider, labeler, consolidators, automation, loop or capture mode changed "
                                        "since init last took it (init refuses otherwise, naming them: a patch "
                                        "changes them as easily as you)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Set gitstore up here: writer id, scope (kept in .git/config), git-ignored okf/.memory/, config, fetch refspecs.

    A config.json that came through git (a commit added it, and the checkout brought it here) is
    another clone's, and every command refuses it: init writes this clone its own, with a new
    writer id and none of the settings it held.
    """
    report = do_init(".", provider, writer, new_writer, accept_changes, check=_read_as_run)
    if as_json:
        emit_json(report.to_json())
        return
    typer.echo(f"gitstore ready in {report.root}")
    typer.echo(f"  scope    {report.scope}")
    if report.note:
        typer.echo(f"  note     {report.note[0]} ({report.note[1]})")
    typer.echo(f"  writer   {report.writer}")
    typer.echo(f"  provider {report.provider}")
    for item in report.created:
        typer.echo(f"  added    {item}")
    for item in report.left:
        typer.echo(f"  left     {item}")
    for accepted in report.accepted:
        typer.echo(f"  accepted {accepted.shown()}")
    if not report.created and not report.left and not report.accepted:
        typer.echo("  nothing to change: already set up")


def _read_as_run(config: Config) -> None:
    """Refuse a ``loop`` or ``dream`` section that ``gitstore tick`` or ``gitstore dream`` would
    refuse (a step no tick runs, a field no dream reads): accepting it would report it taken,
    and the loop would then fail at every tick."""
    from gitstore.dream import settings as dream_settings
    from gitstore.sync import settings as loop_settings

    loop_settings.settings(config)
    dream_settings.settings(config)


def register(app: typer.Typer) -> None:
    app.command()(init)
