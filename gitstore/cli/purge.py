"""``gitstore purge``: remove this clone's memory refs and local state (high friction)."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from gitstore.errors import UsageError
from gitstore.ops.purge import leftovers, purge_names
from gitstore.ops.purge import purge as do_purge
from gitstore.scope import open_repository, repository_scope
from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._values import checked, filled


def purge(
    confirm: Optional[str] = typer.Option(None, "--confirm", metavar="NAME", help="The repository name, typed (for scripts).",
                                           callback=checked(filled)),
    as_json: bool = JSON_OPTION,
) -> None:
    """Remove every memory ref and okf/.memory/ of this clone. Asks you to type the repository name."""
    repo = open_repository(".")
    leftovers(repo)  # nothing to purge: said before anything is asked
    name = purge_names(repo)[1]
    if confirm is None:
        if not sys.stdin.isatty():
            raise UsageError(f"purge asks you to type the repository name; pass --confirm {name} when scripting")
        confirm = _ask(f"This removes all memory of {repository_scope(repo)} from this clone. "
                       f"Type {name} to confirm: ")
    result = do_purge(repo, confirm)
    if as_json:
        emit_json(result)
        return
    typer.echo(f"purged {result['refsRemoved']} ref(s), {result['objectsErased']} object(s) only they reached"
               + (f", and {result['state']}" if result["stateRemoved"] else ""))
    if "stateLeft" in result:
        typer.echo(f"  left {result['state']}: {result['stateLeft']}")


def _ask(question: str) -> str:
    """The line a person types after ``question``, asked on standard error: standard output
    holds only the result (one JSON document under --json, even when redirected to a file)."""
    sys.stderr.write(question)
    sys.stderr.flush()
    return sys.stdin.readline().rstrip("\r\n")


def register(app: typer.Typer) -> None:
    app.command()(purge)
