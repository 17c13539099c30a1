"""``gitstore audit``: the audit trail in store order."""

from __future__ import annotations

import typer

from gitstore._shown import one_line
from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.context import Context
from gitstore.queries.audit import audit as query


def audit(as_json: bool = JSON_OPTION) -> None:
    """Every grant, withdrawal, decision, retirement, export and redaction, in order.

    An entry whose decision, grant or withdrawal carries no authority, an export, proposal,
    import, promotion or labels entry stored without the records it names, a redaction entry
    with no removal behind it, a disclosure entry outside this machine's local memory and an
    entry of an action no command writes say they are not used. Each names the writer's ref it
    was read from."""
    entries = query(Context.open())
    if as_json:
        emit_json(entries)
        return
    if not entries:
        echo("no audit entries yet: grants, withdrawals, decisions, retirements, exports and redactions are listed"
             " here as they are made")
    for entry in entries:
        reason = f" ({one_line(entry['reason'])})" if entry["reason"] else ""
        unused = f" [NOT USED: {one_line(entry['notUsed'])}]" if "notUsed" in entry else ""
        subjects = one_line(" ".join(entry["subjects"]))
        where = "this clone" if entry["thisClone"] else entry["storedIn"]
        echo(f"{entry['at']} {entry['action']:<11} {one_line(entry['by'])} {subjects}{reason} "
             f"[stored by {where}]{unused}")


def register(app: typer.Typer) -> None:
    app.command()(audit)
