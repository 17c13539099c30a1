"""``gitstore policy``: who may decide here (show), and writing the policy files (init, add)."""

from __future__ import annotations

from typing import Optional

import typer

from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._people import BY_OPTION
from gitstore.cli._values import checked, one_of, path
from gitstore.config import Workspace
from gitstore.records.identity import person
from gitstore.records.policy import ACTIONS

policy_app = typer.Typer(help="Who may decide: show the policy in force; write its files (init, add).",
                         no_args_is_help=True)

KEY_OPTION: Optional[str] = typer.Option(
    None, "--key", metavar="KEY.pub", help="Their SSH public key file. Default: the one git's user.signingkey names.",
    callback=checked(path))
MAY_OPTION: Optional[list[str]] = typer.Option(
    None, "--may", metavar="ACTION", help=f"An action they may take ({', '.join(ACTIONS)}); repeat. Default: every "
                                          "deciding action.",
    callback=checked(one_of("action", ACTIONS)))


@policy_app.command("show")
def show(as_json: bool = JSON_OPTION) -> None:
    """Show the trust mode, the policy on the default branch, and who this clone signs as."""
    from gitstore.queries.trust import trust

    found = trust(Workspace.find("."))
    if as_json:
        emit_json(found.to_json())
        return
    where = f" ({found.branch} at {found.revision[:12]})" if found.revision else ""
    typer.echo(f"{found.mode}{where}: {found.explanation}")
    if found.problem:
        typer.echo(f"  problem: {found.problem}")
    for who, actions in found.people.items():
        typer.echo(f"  {who} may {', '.join(actions)}" + ("  (no key: cannot sign)" if who in found.keyless else ""))
    for key in found.unreadable:
        typer.echo(f"  a key listed for {', '.join(key['principals'])} signs for nobody: {key['problem']}")
    if found.mode == "policy":
        signs = "; ".join(f"{p} ({', '.join(a)})" for p, a in found.signs_as.items())
        typer.echo(f"this clone signs as {signs}" if signs else f"this clone cannot decide: {found.signing}")


@policy_app.command("init")
def init(by: Optional[str] = BY_OPTION, key: Optional[str] = KEY_OPTION, may: Optional[list[str]] = MAY_OPTION,
         as_json: bool = JSON_OPTION) -> None:
    """Write a policy in .gitstore/ naming you (or --by) with your signing key; it counts once you commit it and it is merged."""
    from gitstore.ops.policy import init as start

    workspace = Workspace.find(".")
    _report(start(workspace, person(by, workspace.repo), key, may), as_json)


@policy_app.command("add")
def add(who: str = typer.Argument(..., metavar="PERSON", help="Their person id (github:ID, git:EMAIL)."),
        key: Optional[str] = KEY_OPTION, may: Optional[list[str]] = MAY_OPTION, as_json: bool = JSON_OPTION) -> None:
    """Let a person take actions (default: every deciding action) with their key; it counts once committed and merged."""
    from gitstore.ops.policy import add as allow

    workspace = Workspace.find(".")
    _report(allow(workspace, person(who, workspace.repo, "PERSON"), key, may), as_json)


def _report(change: object, as_json: bool) -> None:
    from gitstore.ops.policy import PolicyChange

    assert isinstance(change, PolicyChange)
    if as_json:
        emit_json(change.to_json())
        return
    typer.echo(f"wrote {', '.join(change.files)}")
    for who, actions in change.people.items():
        typer.echo(f"  {who} may {', '.join(actions)}")
    typer.echo(f"next: {change.next}")


def register(app: typer.Typer) -> None:
    app.add_typer(policy_app, name="policy")
