"""``gitstore recall``: the accepted learnings most relevant to a query, as an agent gets them, or one by id, whole."""

from __future__ import annotations

from typing import Any, Optional

import typer

from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._values import checked
from gitstore.cli._values import learning_id as learning_id_check
from gitstore.deliver.here import recall_here, show_here
from gitstore.deliver.surfaces import SURFACES
from gitstore.errors import UsageError


def recall(
    query: Optional[str] = typer.Argument(None, help="What the agent is about to do, in any language."),
    learning_id: Optional[str] = typer.Option(
        None, "--id", metavar="ID", callback=checked(learning_id_check),
        help="One learning by id instead of a query (as the section gitstore publish writes cites it): its accepted "
             "text alone, whole, not shortened."),
    harness: Optional[str] = typer.Option(
        None, "--harness", help=f"The coding agent asking ({', '.join(SURFACES)}): leave out advice about another "
                                "one, as its context hook does (default: any agent)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Recall the accepted learnings most relevant to a query (at most 3, each its accepted text with provenance,
    bounded on its canonical JSON), or one by --id, whole."""
    if learning_id is not None:
        if query is not None:
            raise UsageError("recall takes a query or --id ID, not both")
        item = show_here(learning_id, harness=harness)
        if as_json:
            emit_json(item)
        else:
            _print(item)
        return
    if query is None:
        raise UsageError("recall needs a query (what the agent is about to do) or --id ID")
    found = recall_here(query, harness=harness)
    if as_json:
        emit_json(found.to_json())
        return
    if not found.items:
        typer.echo("nothing to hand out" if found.unsafe or found.left_out else "no learning in force matches")
    for item in found.items:
        _print(item)
    typer.echo(found.usage(), err=True)
    if found.left_out:
        typer.echo(f"left out by the ceilings: {', '.join(found.left_out)}", err=True)
    if found.unsafe:
        typer.echo(f"left out, failing the safety scan as it would be handed out: {', '.join(found.unsafe)}",
                   err=True)


def _print(item: dict[str, Any]) -> None:
    label = "" if item["trust"] == "human" else " [auto-safe]"
    typer.echo(f"{item['id']} score {item['score']}{label}")
    typer.echo(f"  {item['text']}")
    typer.echo(f"  evidence: {', '.join(item['sources']) or '-'}; {item['contentDigest']}")


def register(app: typer.Typer) -> None:
    app.command()(recall)
