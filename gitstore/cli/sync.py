"""``gitstore sync``: fetch, verify and push the shared memory refs through a git remote."""

from __future__ import annotations

import typer

from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.sync.remote import sync as run_sync


def sync(
    remote: str = typer.Argument("origin", help="The git remote to sync with."),
    put_back: bool = typer.Option(False, "--put-back", help="Also push back the text this clone kept for "
                                  "another writer's snapshot the remote lacks (named by a sync), for clones that "
                                  "never read it: only once you know no removal took it."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Fetch every writer's shared memory, verify it before use, then push this writer's own.

    A remote that stands for another repository than origin's (a contributor's fork) is refused
    before anything is fetched: its owner wrote what it holds.
    What fails verification is quarantined under refs/memory/quarantine/ and named, never read.
    Records are pushed fast-forward only; nothing of the local namespace ever leaves the clone.
    This writer's payload snapshot is pushed without the text of every comment a redaction
    honoured here removed (another clone's redaction included), so the remote loses it.
    Then the GitHub snapshots import github saved here lose the text of every comment redacted
    in memory (another clone's redaction included), each file named; one that cannot be
    rewritten is named too, and tried again by the next sync.
    A ref nested under a writer's name (no writer's) is named and never read; under this
    writer's own name it is deleted on the remote, where it keeps this writer's ref from being written.
    A writer's snapshot that arrives without text read here, which no removal took, is read with
    that text kept; with --put-back the text goes back on the remote's snapshot (never text any
    note names: a removal this clone never received looks the same as text forced out).
    One that holds text a removal took is read without it and named: the remote serves that
    text until its writer's next sync takes it off.
    A writer whose history as fetched lacks appends another writer's history names as seen (its
    history on the remote was moved back, or deleted and made again) is named in one line: the
    records those appends held are not read here until a sync brings them back.
    Exit 3 when something that arrived was quarantined, lacked text read here, nested under a
    writer's name, named by no writer id or is never used, 1 when the push was refused.
    """
    report = run_sync(".", remote, put_back)
    if as_json:
        emit_json(report.to_json())
    else:
        for line in report.render():
            typer.echo(line)
    if report.quarantined or report.kept_text or report.nested or report.misnamed or report.left_out:
        raise typer.Exit(3)  # damage arrived: named above, never read
    if report.not_pushed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(sync)
