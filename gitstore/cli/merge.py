"""``gitstore merge``: propose one learning that replaces several."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.cli._complete import words
from gitstore.cli._values import at_most, checked, filled, learning_id, one_of
from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.cli._people import BY_OPTION, actor
from gitstore.context import Context
from gitstore.ops import learning as ops
from gitstore.queries.learnings import shown_json
from gitstore.records.vocabulary import AUDIENCES, CATEGORIES, MEMORY_KINDS


def merge(
    ids: list[str] = typer.Argument(..., metavar="LEARNING_ID", help="Two or more learnings to replace.",
                               callback=checked(learning_id)),
    title: str = typer.Option(..., "--title", metavar="TEXT", help="The merged learning's title.",
                              callback=checked(filled, at_most(200))),
    text: str = typer.Option(..., "--text", metavar="TEXT", help="The merged learning as agents will read it.",
                          callback=checked(filled, at_most(4000))),
    category: Optional[str] = typer.Option(
        None, "--category", metavar="CATEGORY", autocompletion=words(CATEGORIES), callback=checked(one_of("category", CATEGORIES)),
        help="The merged learning's category; needed only where the learnings' differ."),
    memory: Optional[str] = typer.Option(
        None, "--memory", metavar="KIND", autocompletion=words(MEMORY_KINDS), callback=checked(one_of("memory", MEMORY_KINDS)),
        help="semantic (wiki) or procedural (skills); needed only where the learnings' differ."),
    audience: Optional[str] = typer.Option(
        None, "--audience", metavar="AUDIENCE", autocompletion=words(AUDIENCES), callback=checked(one_of("audience", AUDIENCES)),
        help="project, user-tooling or personal; by default the narrowest of the learnings'."),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Propose one learning replacing several; a person accepts it like any proposal.

    The proposal is the same in whatever order the learnings are named, so merging them again
    is refused while it stands. It keeps the category and memory the learnings share (where
    they differ, say which with --category or --memory) and the narrowest of their audiences.
    """
    ctx = Context.open()
    record = ops.merge(ctx, ids, title, text, actor(ctx, by), category, memory, audience)
    if as_json:
        emit_json(shown_json(record))
        return
    echo(f"proposed merge {record['id']}\n  reviewDigest {record['reviewDigest']}")
    echo(f"  next: gitstore show {record['id']}")


def register(app: typer.Typer) -> None:
    app.command()(merge)
