"""``gitstore withdraw``: a person takes a grant back, at once."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.cli._complete import words
from gitstore.records.vocabulary import PURPOSES
from gitstore.cli._values import at_most, checked, filled, grant_prefix, one_of
from gitstore.cli._io import JSON_OPTION, emit_json, echo, summary
from gitstore.cli._people import BY_OPTION, actor
from gitstore.cli._published import keep_current, name_promoted, still_promoted
from gitstore.context import Context
from gitstore.errors import AlreadyDone
from gitstore.ops import consent as ops
from gitstore.ops import unfinished


def withdraw(
    grant_digest: str = typer.Argument(..., metavar="GRANT",
                                      help="The grant's digest, or a unique prefix of it (at least 8 hex digits).",
                                      callback=checked(grant_prefix)),
    purpose: Optional[list[str]] = typer.Option(None, "--purpose", metavar="PURPOSE", autocompletion=words(PURPOSES),
                                                help="Withdraw only these purposes (repeat; default: all); "
                                                     "one already withdrawn is named and left as it was.",
                                                callback=checked(one_of("purpose", PURPOSES))),
    reason: Optional[str] = typer.Option(None, "--reason", metavar="TEXT", help="Why.",
                                           callback=checked(filled, at_most(500))),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Withdraw a grant at once; lists the exports it had allowed and updates published files.

    A promoted block stays in okf/wiki/ or .agents/skills/ when its learning leaves force (as
    those whose evidence needed the grant do): each block in the work tree whose learning is no
    longer in force is named with what to do (remove the block in a commit), on standard error
    under --json, whose output is the stored record.
    """
    ctx = Context.open()
    note = ops.withdraw_note(grant_digest, purpose)
    try:
        record, again = unfinished.once(ctx.workspace.state, note, lambda: ops.withdraw(
            ctx, actor(ctx, by), grant_digest, purpose or None, reason, note=note))
    except AlreadyDone:  # a second request: refused, the published files still brought up to date
        keep_current(ctx, as_json)
        raise
    promoted = still_promoted(ctx, as_json)
    if as_json:
        emit_json(record)
    summary(f"withdrew {', '.join(record['purposes'])} from {record['grant']}", as_json, again)
    before = [p for p in dict.fromkeys(purpose or ()) if p not in record["purposes"]]
    if before:  # on standard error under --json, whose output is the stored record
        typer.echo(f"already withdrawn for {', '.join(before)} (left as it was)", err=as_json)
    if not as_json:
        for export in record["exports"]:
            echo(f"  export {export} was allowed by it")
    keep_current(ctx, as_json)
    name_promoted(promoted, as_json)
    unfinished.finish(ctx.workspace.state, note.name)


def register(app: typer.Typer) -> None:
    app.command()(withdraw)
