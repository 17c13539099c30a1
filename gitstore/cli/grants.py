"""``gitstore grants``: the grants and what each still permits."""

from __future__ import annotations

import typer

from gitstore._shown import one_line
from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.context import Context
from gitstore.queries.grants import GrantShown, broken_policy, grants as query


def grants(
    in_force: bool = typer.Option(False, "--in-force", help="Only grants that still permit some purpose."),
    as_json: bool = JSON_OPTION,
) -> None:
    """List the grants, the purposes each still permits, and their withdrawals.

    A grant or withdrawal that carries no authority is listed too, saying why it is not used."""
    ctx = Context.open()
    found = query(ctx, in_force=in_force)
    if as_json:
        emit_json([g.to_json() for g in found])
        return
    broken = broken_policy(ctx)
    if broken:
        echo(broken)
    if not found:
        echo("no grant in force: no evidence may serve any purpose" if in_force else
             "no grants: no evidence may serve any purpose yet (`gitstore grant --help` says how to give one)")
    for shown in found:
        _show(shown)


def _show(shown: GrantShown) -> None:
    grant = shown.grant
    until = grant["until"] or "open"
    allowed = ", ".join(shown.in_force) or ("nothing" if shown.not_used else "nothing (all withdrawn)")
    echo(f"{grant['digest']}")
    echo(f"  permits {allowed} for {', '.join(grant['sources'])} evidence written {grant['from']} .. {until}")
    echo(f"  granted by {grant['by']} at {grant['at']}" + (f": {one_line(grant['note'])}" if grant["note"] else ""))
    if shown.not_used:
        echo(f"  not used: {one_line(shown.not_used)}")
    elif shown.elsewhere:
        echo(f"  for this machine's sessions: not used, {shown.elsewhere}")
    if shown.local:
        echo("  kept on this machine (it names personal sessions only)")
    for withdrawal in shown.withdrawals:
        why = f": {one_line(withdrawal['reason'])}" if withdrawal["reason"] else ""
        echo(f"  withdrawn {', '.join(withdrawal['purposes'])} by {withdrawal['by']} at {withdrawal['at']}{why}")
    for withdrawal, not_used in shown.unused_withdrawals:
        echo(f"  withdrawal of {', '.join(withdrawal['purposes'])} by {withdrawal['by']} at {withdrawal['at']} "
             f"not used: {one_line(not_used)}")


def register(app: typer.Typer) -> None:
    app.command()(grants)
