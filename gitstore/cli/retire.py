"""``gitstore retire``: a person takes an accepted learning out of use."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.cli._values import at_most, checked, filled, learning_argument
from gitstore.cli._io import JSON_OPTION, emit_json, summary
from gitstore.cli._people import BY_OPTION, actor
from gitstore.cli._published import keep_current, name_promoted, still_promoted
from gitstore.context import Context
from gitstore.errors import AlreadyDone
from gitstore.ops import learning as ops
from gitstore.ops import unfinished
from gitstore.queries.learnings import shown_json


def retire(
    learning_id: str = learning_argument(),
    reason: str = typer.Option(..., "--reason", metavar="TEXT", help="Why it no longer holds.",
                                callback=checked(filled, at_most(1000))),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Retire an accepted learning: agents stop getting it (published files are updated, promoted blocks named).

    A promoted block stays in okf/wiki/ or .agents/skills/ when its learning leaves force: each
    block in the work tree whose learning is no longer in force (this one's, if it was promoted)
    is named with what to do (remove the block in a commit), on standard error under --json,
    whose output is the stored record as `gitstore show` prints it
    (text the safety scanner quarantines withheld, and named under withheld).
    """
    ctx = Context.open()
    note = ops.retire_note(learning_id, reason)
    try:
        record, again = unfinished.once(ctx.workspace.state, note, lambda: ops.retire(
            ctx, learning_id, actor(ctx, by), reason, note=note))
    except AlreadyDone:  # a second request: refused, the published files still brought up to date
        keep_current(ctx, as_json)
        raise
    promoted = still_promoted(ctx, as_json)
    if as_json:
        emit_json(shown_json(record))
    summary(f"retired {learning_id}", as_json, again)
    keep_current(ctx, as_json)
    name_promoted(promoted, as_json)
    unfinished.finish(ctx.workspace.state, note.name)


def register(app: typer.Typer) -> None:
    app.command()(retire)
