"""``gitstore status``: scope, writer, provider, refs and configuration."""

from __future__ import annotations

from typing import Any

import typer

from gitstore._shown import one_line
from gitstore.config import ACCEPT, CONFIG_FILE, Workspace
from gitstore.queries.status import status as do_status
from gitstore.cli._io import JSON_OPTION, emit_json

SHOWN_REFS = 20  # one or two per writer: anyone who can push may add thousands


def status(as_json: bool = JSON_OPTION) -> None:
    """Show this repository's scope, writer, provider, memory refs and effective configuration."""
    info = do_status(Workspace.find("."))
    if as_json:
        emit_json(info)
        return
    typer.echo(f"scope     {info['scope']}")
    if info["movedOrigin"]:
        typer.echo(f"origin    {one_line(info['movedOrigin']['problem'])}; to do: `{info['movedOrigin']['todo']}`")
    typer.echo(f"writer    {info['writer']}")
    typer.echo(f"provider  {info['provider']}")
    typer.echo(f"state     {info['state']} ({'ignored by git' if info['stateIgnored'] else 'NOT ignored by git'})")
    typer.echo(f"refs      {len(info['refs'])}")
    for ref in info["refs"][:SHOWN_REFS]:
        typer.echo(f"  {ref['ref']} {ref['tip'][:12]}")  # shown escaped and cut (a name whoever could push chose)
    if len(info["refs"]) > SHOWN_REFS:
        typer.echo(f"  ... and {len(info['refs']) - SHOWN_REFS} more (`gitstore status --json` lists them all)")
    _trust(info["trust"])
    if info.get("damagedCopy"):
        typer.echo(f"damaged   {one_line(info['damagedCopy'])}, the copy of {CONFIG_FILE} `gitstore init` last took, is "
                   f"no JSON object: no setting counts as taken until `{ACCEPT}` (if {CONFIG_FILE} holds what you "
                   "want)")
    if info["unaccepted"]:  # the names a patch may have chosen, each on this line
        typer.echo(f"waiting   {', '.join(map(one_line, info['unaccepted']))} changed in {CONFIG_FILE} since this "
                   f"clone's `gitstore init` last took it: not in force until `{ACCEPT}` (if you made the change; "
                   "otherwise put back what was there)")
    typer.echo("config")
    for key in ("writer", "provider"):
        entry = info["config"][key]
        typer.echo(f"  {key} = {entry['value']}  (from {entry['from']})")
    capture = info["config"]["capture"]
    if capture["problem"]:
        typer.echo(f"  capture.mode = none in force ({one_line(capture['problem'])})")
    else:
        typer.echo(f"  capture.mode = {capture['value']}  (from {capture['from']})")
    auto = info["config"]["automation"]
    state = "on" if auto["autoSafe"] else "off"
    typer.echo(f"  automation.autoSafe = {state}  (from {auto['from']})")
    if auto["autoSafe"]:
        typer.echo(f"  automation.kinds = {', '.join(auto['kinds'])}; minEvidence = {auto['minEvidence']}")
    for why in auto["disabledBecause"]:
        typer.echo(f"  automation disabled: {one_line(why)}")
    dream = info["config"]["dream"]
    if dream["problem"]:
        typer.echo(f"  dream: {one_line(dream['problem'])}")
    else:
        typer.echo(f"  dream.labeler = {dream['labeler']}; dream.consolidator = {dream['consolidator']}")
    _loop(info["loop"], waiting=any(name.split(".")[0] == "loop" for name in info["unaccepted"]))


def _loop(loop: dict[str, Any], waiting: bool) -> None:
    if loop["problem"]:
        typer.echo(f"loop      {'not in force' if waiting else 'configuration refused'}: {one_line(loop['problem'])}")
        return
    if not loop["steps"]:
        typer.echo("loop      no steps configured")
        return
    holder = loop["running"]
    typer.echo("loop" + (f"      a tick is running (pid {holder.get('pid')}, since {holder.get('startedAt')})" if holder else ""))
    for step in loop["steps"]:
        last = step["last"]
        seen = f"last {last['status']} at {last['finishedAt']}: {last['line']}" if last else "never ran"
        if not step["available"]:
            seen = "unavailable in this version of gitstore"
        typer.echo(f"  {step['step']:<8} every {step['every']:<4} next {step['nextDue']}; {seen}")


def _trust(trust: dict) -> None:  # type: ignore[type-arg]
    where = f" ({trust['branch']} at {trust['revision'][:12]})" if trust["revision"] else ""
    typer.echo(f"trust     {trust['mode']}{where}: {trust['explanation']}")
    if trust["problem"]:
        typer.echo(f"  problem: {trust['problem']}")
    for person, actions in trust["people"].items():
        typer.echo(f"  {person} may {', '.join(actions)}")
    if trust["mode"] == "policy":
        signs = "; ".join(f"{p} ({', '.join(a)})" for p, a in trust["signsAs"].items())
        typer.echo(f"  this clone signs as {signs}" if signs else f"  this clone cannot decide: {trust['signing']}")


def register(app: typer.Typer) -> None:
    app.command()(status)
