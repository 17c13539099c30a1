"""``gitstore show``: one learning as a reviewer sees it."""

from __future__ import annotations

import typer

from gitstore.cli._io import JSON_OPTION, PURPOSE_OPTION, emit_json
from gitstore.cli._learnings import print_shown
from gitstore.cli._values import learning_argument
from gitstore.context import Context
from gitstore.queries.learnings import show as query


def show(
    learning_id: str = learning_argument(),
    purpose: str = PURPOSE_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Show a learning as a reviewer sees it: its evidence, whether it is in force, the reviewDigest."""
    shown = query(Context.open(), learning_id, purpose)
    emit_json(shown.to_json()) if as_json else print_shown(shown)


def register(app: typer.Typer) -> None:
    app.command()(show)
