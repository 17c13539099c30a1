"""Options shared by commands that record a person's action."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.context import Context

BY_OPTION: Optional[str] = typer.Option(
    None, "--by", metavar="PERSON", help="Who acts (github:ID, git:EMAIL). Default: under a policy, the person your "
    "signing key is listed for; else git:EMAIL of git's user.email."
)


def actor(ctx: Context, by: Optional[str]) -> str:
    """The person id for --by (``Context.person``)."""
    return ctx.person(by)
