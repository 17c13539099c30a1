"""``gitstore recall``: the accepted learnings most relevant to a query, as an agent gets them."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.deliver.here import recall_here
from gitstore.deliver.surfaces import SURFACES


def recall(
    query: str = typer.Argument(..., help="What the agent is about to do, in any language."),
    harness: Optional[str] = typer.Option(
        None, "--harness", help=f"The coding agent asking ({', '.join(SURFACES)}): leave out advice about another "
                                "one, as its context hook does (default: any agent)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Recall the accepted learnings most relevant to a query (at most 3, each its accepted text with provenance,
    bounded on its canonical JSON)."""
    found = recall_here(query, harness=harness)
    if as_json:
        emit_json(found.to_json())
        return
    if not found.items:
        typer.echo("nothing to hand out" if found.unsafe or found.left_out else "no learning in force matches")
    for item in found.items:
        label = "" if item["trust"] == "human" else " [auto-safe]"
        typer.echo(f"{item['id']} score {item['score']}{label}")
        typer.echo(f"  {item['text']}")
        typer.echo(f"  evidence: {', '.join(item['sources']) or '-'}; {item['contentDigest']}")
    typer.echo(found.usage(), err=True)
    if found.left_out:
        typer.echo(f"left out by the ceilings: {', '.join(found.left_out)}", err=True)
    if found.unsafe:
        typer.echo(f"left out, failing the safety scan as it would be handed out: {', '.join(found.unsafe)}",
                   err=True)


def register(app: typer.Typer) -> None:
    app.command()(recall)
