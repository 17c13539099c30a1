"""``gitstore wiki``: start the OKF wiki promotion edits (init) and regenerate its indexes (index)."""

from __future__ import annotations

from pathlib import Path

import typer

from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.scope import open_repository

wiki_app = typer.Typer(help="The OKF wiki promote edits: start okf/wiki/ (init), regenerate its index.md (index).",
                       no_args_is_help=True)


def _root() -> Path:
    return Path(open_repository(".").workdir).resolve()


def _show(change: object, as_json: bool, check: bool = False) -> None:
    from gitstore.ops.wiki import WikiChange
    from gitstore.promote.okf import OLDER_RULE

    assert isinstance(change, WikiChange)
    for path, why in change.unlinkable:  # on stderr, JSON or not: the gitstore-okf gate refuses each
        typer.echo(f"warning: {path}: {why}", err=True)
    if as_json:
        emit_json(change.to_json())
        return
    for path in change.written:
        typer.echo(f"wrote {path}")
    if check:
        for path in change.stale:
            why = f" (its entries say each page's title and description: {OLDER_RULE})" if path in change.older else ""
            typer.echo(f"out of date: {path}{why}")
    for path in change.kept:
        typer.echo(f"left alone: {path} (written by hand: no generated mark; the gitstore-okf gate checks it "
                   "lists its folder)")
    for path in change.linked:
        typer.echo(f"skipped: {path} is a symbolic link (never followed nor listed; the gitstore-okf gate "
                   "refuses it: replace it with the file or folder itself)")
    if not change.written and not change.stale:
        typer.echo(f"{change.wiki}: every generated index is current")
    for step in change.next:
        typer.echo(f"next: {step}")


@wiki_app.command("init")
def init(as_json: bool = JSON_OPTION) -> None:
    """Start okf/wiki/ with the index.md gitstore generates (never over a wiki already there), and say what to write next."""
    from gitstore.ops.wiki import init as start

    _show(start(_root()), as_json)


@wiki_app.command("index")
def index(check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 when an index is out of date "
                                     "or a name is one the gitstore-okf gate refuses (for a pre-commit hook or CI)."),
          as_json: bool = JSON_OPTION) -> None:
    """Regenerate each generated index.md of okf/wiki/ from its pages' front matter (an index written by hand is left alone); warn of each name an index entry cannot link."""
    from gitstore.ops.wiki import index as regenerate

    change = regenerate(_root(), check=check)
    _show(change, as_json, check)
    if check and (change.stale or change.unlinkable):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(wiki_app, name="wiki")
