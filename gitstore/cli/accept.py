"""``gitstore accept``: a person accepts the version they reviewed."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore._shown import one_line
from gitstore.cli._values import checked, filled, learning_argument
from gitstore.cli._io import JSON_OPTION, emit_json, echo, summary
from gitstore.cli._learnings import print_standing, print_warnings
from gitstore.cli._people import BY_OPTION, actor
from gitstore.context import Context
from gitstore.ops import unfinished
from gitstore.ops.learning import accept_and_check, accept_note, settled_replacement
from gitstore.queries.learnings import as_shown


def accept(
    learning_id: str = learning_argument("The proposal (lrn_...)."),
    review_digest: str = typer.Option(..., "--review-digest", metavar="DIGEST",
                                      help="The reviewDigest `gitstore show` printed: what you reviewed."),
    edit: Optional[str] = typer.Option(None, "--edit", metavar="TEXT",
                                       help="Accept with this text instead: the text is what agents get; "
                                            "the title stays as proposed.",
                                       callback=checked(filled)),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Accept a proposal you reviewed (optionally edited); agents get it from now on.

    It warns when they do not: when the rules keep it out of force, or when the safety scan
    withholds it from them, read with the title it goes by (an edited text's headline)."""
    ctx = Context.open()
    note = accept_note(learning_id, review_digest)
    record, standing, again, undelivered = accept_and_check(ctx, learning_id, review_digest, actor(ctx, by), edit,
                                                            note=note)
    shown, withheld = as_shown(record)  # as show printed it: quarantined text withheld
    print_warnings(shown, err=True)  # the decision stands: the reviewer was shown it
    if as_json:
        emit_json({**shown, "standing": standing.to_json(), "withheld": [w.to_json() for w in withheld],
                   "undelivered": undelivered})
    summary(f"accepted {learning_id} (version {record['version']})", as_json, again)
    if not as_json and undelivered:
        named = ("; the title it goes by is the headline of the accepted text (`gitstore show` prints it)"
                 if record["decision"]["edited"] else "")
        echo(f"  warning: agents will not get it: the safety scan withholds it ({undelivered}){named}")
    if not as_json and record.get("supersedes"):
        taken, kept, why = settled_replacement(ctx, learning_id)
        if taken:
            echo(f"  it replaces {', '.join(taken)}: agents no longer get those")
        if kept:
            echo(f"  warning: it does not replace {', '.join(kept)}: agents still get those"
                 + (f" (conflicted: {one_line(why)})" if why else ""))
    if not as_json and not standing.in_force:
        echo("  warning: agents do not get it yet")
        print_standing(standing, "  ")
    unfinished.finish(ctx.workspace.state, note.name)


def register(app: typer.Typer) -> None:
    app.command()(accept)
