"""``gitstore merge``: propose one learning that replaces several."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.cli._values import at_most, checked, filled, learning_id
from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.cli._people import BY_OPTION, actor
from gitstore.context import Context
from gitstore.ops import learning as ops
from gitstore.queries.learnings import shown_json


def merge(
    ids: list[str] = typer.Argument(..., metavar="LEARNING_ID", help="Two or more learnings to replace.",
                               callback=checked(learning_id)),
    title: str = typer.Option(..., "--title", metavar="TEXT", help="The merged learning's title.",
                              callback=checked(filled, at_most(200))),
    text: str = typer.Option(..., "--text", metavar="TEXT", help="The merged learning as agents will read it.",
                          callback=checked(filled, at_most(4000))),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Propose one learning replacing several; a person accepts it like any proposal."""
    ctx = Context.open()
    record = ops.merge(ctx, ids, title, text, actor(ctx, by))
    if as_json:
        emit_json(shown_json(record))
        return
    echo(f"proposed merge {record['id']}\n  reviewDigest {record['reviewDigest']}")
    echo(f"  next: gitstore show {record['id']}")


def register(app: typer.Typer) -> None:
    app.command()(merge)
