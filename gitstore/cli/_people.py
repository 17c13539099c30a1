"""Options shared by commands that record a person's action."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.context import Context
from gitstore.records.identity import person

BY_OPTION: Optional[str] = typer.Option(
    None, "--by", metavar="PERSON", help="Who acts (github:ID, git:EMAIL). Default: under a policy, the person your "
    "signing key is listed for; else git:EMAIL of git's user.email."
)


def actor(ctx: Context, by: Optional[str]) -> str:
    """The person id for --by: under a policy, by default the person this clone signs as (a
    decision counts only as theirs), else from git config."""
    if by is None:
        signs_as = ctx.store.signing_as()
        if signs_as:
            return signs_as[0]
    return person(by, ctx.workspace.repo)
