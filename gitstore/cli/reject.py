"""``gitstore reject``: a person rejects the version they reviewed."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.cli._values import at_most, checked, filled, learning_argument
from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.cli._people import BY_OPTION, actor
from gitstore.context import Context
from gitstore.ops import learning as ops
from gitstore.queries.learnings import shown_json


def reject(
    learning_id: str = learning_argument("The proposal (lrn_...)."),
    review_digest: str = typer.Option(..., "--review-digest", metavar="DIGEST",
                                      help="The reviewDigest `gitstore show` printed: what you reviewed."),
    reason: Optional[str] = typer.Option(None, "--reason", metavar="TEXT", help="Why.",
                                         callback=checked(filled, at_most(1000))),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Reject a proposal you reviewed.

    Under --json the output is the stored record as `gitstore show` prints it: text the safety
    scanner quarantines withheld, and named under withheld.
    """
    ctx = Context.open()
    record = ops.reject(ctx, learning_id, review_digest, actor(ctx, by), reason)
    emit_json(shown_json(record)) if as_json else echo(f"rejected {learning_id}")


def register(app: typer.Typer) -> None:
    app.command()(reject)
