"""``gitstore provenance``: the promoted learnings of a range of commits, and whether they verify."""

from __future__ import annotations

import typer

from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._values import checked, filled
from gitstore.promote.gates._common import top_level
from gitstore.promote.provenance import provenance as do_provenance


def provenance(
    spec: str = typer.Argument("HEAD", metavar="BASE..HEAD", help="The commits to read (default: HEAD's commits on no remote).",
                                callback=checked(filled)),
    markdown: bool = typer.Option(False, "--markdown", help="A Markdown table, for a pull request's job summary."),
    as_json: bool = JSON_OPTION,
) -> None:
    """List the promotion commits of a range with their learnings and digests, and whether they verify."""
    found = do_provenance(top_level(), spec)
    if as_json:
        emit_json(found.to_json())
    elif markdown:
        typer.echo(found.markdown(), nl=False)
    else:
        for line in found.render():
            typer.echo(line)
    if not found.verified:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(provenance)
