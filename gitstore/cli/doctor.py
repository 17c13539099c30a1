"""``gitstore doctor``: check the set-up and say what to do about each problem."""

from __future__ import annotations

import typer

from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.queries.doctor import doctor as query

_MARKS = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}


def doctor(as_json: bool = JSON_OPTION) -> None:
    """Check the set-up: scope, init, provider, other clones' memory left out, who may decide, whether the gates workflow has a policy to read, capture hooks, hook errors, sessions the hooks gave up on, refspecs, a partial clone's filter, what a push sends, published files, promoted blocks, wiki and skill files that differ only in case, saved GitHub snapshots, commands killed midway, memory refs a killed process left locked.

    Each check prints ok, warn or FAIL with what to do about it; the exit code is 1 when
    something does not work. Where gitstore publish wrote files, it reads the learnings in
    force and fails when those files still list one that is not (its validity ended, a sync
    brought a withdrawal, an older file was checked out). Where okf/wiki/ or .agents/skills/
    holds promoted blocks, it fails for each block whose learning is not in force (retired,
    replaced, expired, its evidence withdrawn or redacted), naming the file and line, why, and
    what to do: remove the block in a commit (then promote its replacement); it warns for a
    promoted skill changed since its promotion (allowed-tools or instructions added); it fails for
    files there whose paths differ only in case, of which a checkout on macOS or Windows keeps
    one. Where import github
    saved snapshots, it warns when one still holds the text of a comment redacted in memory (a
    redaction fetched from another clone that no sync has applied here yet). It warns for each
    history or payload snapshot another clone's writer ref brought that failed verification and
    is left out of every read (held in quarantine by sync, or left out after a plain fetch),
    with why: nothing to mend in this clone. It warns for each writer whose history as fetched
    lacks appends another writer's history names as seen (moved back on the remote): what those
    appends held is not read here until that writer syncs again.
    """
    report = query(".")
    if as_json:
        emit_json(report.to_json())
    else:
        for check in report.checks:
            echo(f"{_MARKS[check.state]} {check.name}: {check.detail}")
            if check.todo:
                echo(f"     to do: {check.todo}")
    if not report.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(doctor)
