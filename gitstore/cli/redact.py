"""``gitstore redact``: remove a comment's text, keeping every digest valid."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.context import Context
from gitstore.ops.redact import redact as do_redact
from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._people import BY_OPTION, actor
from gitstore.cli._published import keep_current, name_promoted, still_promoted
from gitstore.cli._values import at_most, checked, episode_prefix, filled, source_id


def redact(
    comment: str = typer.Option(..., "--comment", metavar="SOURCE_ID",
                                help="The comment's id at its source, e.g. github:comment:123.",
                                callback=checked(filled, source_id)),
    reason: str = typer.Option(..., "--reason", metavar="TEXT", help="Why its text goes.",
                               callback=checked(filled, at_most(1000))),
    episode: Optional[str] = typer.Option(None, "--episode", metavar="EPISODE",
                                          help="The thread whose versions of the comment go (ep_..., or a unique "
                                               "prefix), where versions name it from several.",
                                          callback=checked(episode_prefix)),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Remove the text of every version of a comment and of every label on it.

    Versions naming the comment from more than one thread (review and issue comments share
    their ids, and anyone who can push may store an event naming any comment) are refused,
    each thread's episode named: --episode chooses the one whose versions go, the others are
    left alone.

    A promoted block stays in okf/wiki/ or .agents/skills/ when its learning leaves force (as
    those citing the comment do): each block in the work tree whose learning is no longer in
    force is named with what to do (remove the block in a commit), and listed under --json as
    promotedBlocks.
    """
    ctx = Context.open()
    report = do_redact(ctx, comment, actor(ctx, by), reason, episode)
    promoted = still_promoted(ctx, as_json)
    if as_json:
        emit_json({**report.to_json(), "promotedBlocks": [judged.to_json() for judged in promoted]})
        keep_current(ctx, as_json)
        name_promoted(promoted, as_json)
        return
    typer.echo(f"removed the text of {len(report.removed)} event(s); {len(report.already)} were already removed")
    for claim in report.claims:
        typer.echo(f"  left alone {claim.line(report.source_id)}")
    for lid in report.learnings:
        typer.echo(f"  learning {lid} cites it: retire it (`gitstore retire {lid} --reason ...`; `gitstore reject` "
                   "while it is proposed) or propose it again citing evidence that still counts; "
                   f"`gitstore show {lid}` says where it stands")
    for lid, fields in report.quoting:
        typer.echo(f"  learning {lid} quotes its words in its {' and '.join(fields)}: records cannot change, so "
                   "every version of it keeps them, on every clone that fetched it and on the remote; retire it "
                   "(reject it while proposed), and if the words must go, purge this clone's memory "
                   "(`gitstore purge`): other clones and the remote keep theirs")
    for export in report.exports:
        typer.echo(f"  export {export} copied it")
    for path in report.rewritten:
        typer.echo(f"  rewrote {path} with the redaction note in place of the text")
    for path in report.scrubbed:
        typer.echo(f"  removed its text from the saved GitHub snapshot {path}")
    for path, why in report.not_scrubbed:
        typer.echo(f"  could not remove its text from the saved GitHub snapshot {path}: {why} "
                   "(it keeps the text: once it can be written, run this again or gitstore sync)")
    for folder in report.forgotten:
        typer.echo(f"  forgot the snapshot folder {folder}: it is gone (if it moved, its snapshots keep the text)")
    for episode in report.titles:
        typer.echo(f"  episode {episode} keeps a title an older gitstore copied from its first comment; "
                   "records cannot change: purge this clone's memory if it holds the text")
    keep_current(ctx, as_json)
    name_promoted(promoted, as_json)
    typer.echo("  run `gitstore gc` to erase the text from storage")


def register(app: typer.Typer) -> None:
    app.command()(redact)
