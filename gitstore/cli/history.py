"""``gitstore history``: every version of one learning, by identifiers and digests."""

from __future__ import annotations

import typer

from gitstore.cli._values import learning_argument
from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.context import Context
from gitstore.queries.learnings import history as query


def history(
    learning_id: str = learning_argument(),
    as_json: bool = JSON_OPTION,
) -> None:
    """Every version of a learning: identifiers, states and digests."""
    found = query(Context.open(), learning_id)
    if as_json:
        emit_json(found.to_json())
        return
    for row in found.rows:
        mark = "" if row["intact"] else "  (breaks a rule)"
        echo(f"v{row['version']} {row['state']:<13} {row['digest']} {row['at']} {row['by'] or ''}{mark}")
    if found.history.problem:
        echo(f"problem: {found.history.problem}")
    broken = {id(item): why for item, why in found.history.broken}
    for item in found.history.ignored:
        if id(item) in broken:
            made = "a decision" if "decision" in item.record else "and no decision made it"
            echo(f"ignored (no lifecycle step, {made}): {broken[id(item)]}")
        else:
            echo(f"ignored (lost a race): v{item.record['version']} {item.digest}")


def register(app: typer.Typer) -> None:
    app.command()(history)
