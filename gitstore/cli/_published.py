"""Keeping the files ``gitstore publish`` wrote current after a command took learnings out of
force (withdraw, redact, retire): what was rewritten, or why the files are stale; and naming
the promoted blocks of the wiki and skills that still hold a learning no longer in force (no
command removes those: a person removes the block in a commit)."""

from __future__ import annotations

import typer

from gitstore.context import Context
from gitstore.deliver.publish import named_outside
from gitstore.deliver.refresh import Refresh, refresh
from gitstore.errors import GitstoreError
from gitstore.ops import unfinished
from gitstore.promote.standing import NOT_IN_FORCE, Judged, judge_work_tree, read_once

# the commands whose steps after their append are what a publish does (the promoted blocks they
# go on to name, doctor names too), and the kind of record each appends
TAKING_OUT = {"withdraw-": "withdrawal", "retire-": "learning"}


def keep_current(ctx: Context, as_json: bool) -> Refresh:
    """Bring published files up to date and say so (on standard error under ``--json``, whose
    standard output is the command's record)."""
    try:
        done = refresh(ctx)
    except GitstoreError as exc:  # the command itself succeeded; only the published files lag
        done = Refresh(stale=[str(exc)])
    if done.files:
        typer.echo(f"  rewrote the published {', '.join(done.files)} without what left force", err=as_json)
    for why in done.stale:
        typer.echo(f"  published files are stale: {why}; then run `gitstore publish`", err=as_json)
    for path, ids in done.outside.items():
        typer.echo(f"  {named_outside(path, ids)}", err=as_json)
    return done


def still_promoted(ctx: Context, as_json: bool) -> list[Judged]:
    """The promoted blocks in the work tree's wiki and skills whose learnings are not in force
    (the store is read only where there is a block). When the store cannot be read, says so and
    finds none: the command itself succeeded."""
    try:
        found = judge_work_tree(ctx.workspace.root, read_once(lambda: ctx.store))
    except GitstoreError as exc:
        typer.echo(f"  cannot tell whether promoted blocks hold learnings in force: {exc}; "
                   "see `gitstore doctor`", err=as_json)
        return []
    return [judged for judged in found if judged.state == NOT_IN_FORCE]


def name_promoted(found: list[Judged], as_json: bool) -> None:
    """One line per promoted block still giving agents a learning not in force, with what to do
    (on standard error under ``--json``: the output of retire and withdraw is the record they
    stored, and redact's report lists them as ``promotedBlocks``)."""
    for judged in found:
        typer.echo(f"  {judged.where} still holds the promoted block of {judged.learning}, not in force "
                   f"({judged.why}): {judged.todo}", err=as_json)



def settle_taken_out(ctx: Context, as_json: bool) -> None:
    """After a publish brought every published file current: a withdraw or retire stopped after
    its append (its note names a record the store holds) has nothing left to do, so its note
    goes, and the publish says so. One stopped before its append keeps its note: its decision
    is still to be made."""
    state = ctx.workspace.state
    notes = [n for n in unfinished.notes(state) if n.name.startswith(tuple(TAKING_OUT))
             and isinstance(n.data.get("record"), str)]
    for note in notes:
        kind = next(kind for prefix, kind in TAKING_OUT.items() if note.name.startswith(prefix))
        if any(item.digest == note.data["record"] for item in ctx.store.items([kind])):
            unfinished.finish(state, note.name)
            typer.echo(f"  finished what an interrupted `{note.todo}` left undone: its record is stored and the "
                       "published files are current", err=as_json)
