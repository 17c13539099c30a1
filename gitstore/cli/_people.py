"""Options shared by commands that record a person's action."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.records.identity import person
from gitstore.ops._context import Context

BY_OPTION: Optional[str] = typer.Option(
    None, "--by", help="Who acts (recorded as asserted). Default: git:<user.email>."
)


def actor(ctx: Context, by: Optional[str]) -> str:
    """The person id for --by, defaulting from git config."""
    return person(by, ctx.workspace.repo)
