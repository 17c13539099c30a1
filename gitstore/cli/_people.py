"""Options shared by commands that record a person's action."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.context import Context
from gitstore.records.identity import person

BY_OPTION: Optional[str] = typer.Option(
    None, "--by", metavar="PERSON", help="Who acts, recorded as asserted (github:ID, git:EMAIL). Default: git:EMAIL of git's user.email."
)


def actor(ctx: Context, by: Optional[str]) -> str:
    """The person id for --by, defaulting from git config."""
    return person(by, ctx.workspace.repo)
