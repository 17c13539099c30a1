"""The learning commands: propose, proposals, show, accept, reject, retire, merge, learnings,
history. A history that breaks a rule is shown by identifiers and digests only, never content."""

from __future__ import annotations

from typing import Any, Optional

import typer

from gitstore.errors import Refused, UsageError
from gitstore.ops import learning as ops
from gitstore.ops._context import Context
from gitstore.rules.active import Status, evaluate
from gitstore.rules.lifecycle import History, histories
from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._people import BY_OPTION, actor

PURPOSE_OPTION = typer.Option("instruction", "--purpose", help="The purpose learnings are judged for.")


def _refs(values: list[str]) -> list[dict[str, Any]]:
    refs = []
    for value in values:
        episode, sep, events = value.partition(":")
        if not sep or not episode.startswith("ep_") or not events:
            raise UsageError(f"evidence {value!r} must look like ep_<id>:ev_<id>[,ev_<id>...]")
        refs.append({"episode": episode, "events": [e for e in events.split(",") if e]})
    return refs


def propose(
    title: str = typer.Option(..., "--title"),
    text: str = typer.Option(..., "--text", help="The learning as agents will read it."),
    category: str = typer.Option(..., "--category", help="decision, convention, constraint, resolved-problem, project-knowledge."),
    evidence: list[str] = typer.Option(..., "--evidence", help="ep_<id>:ev_<id>[,ev_<id>] (repeat)."),
    counter: list[str] = typer.Option([], "--counter", help="Counterevidence, same form (repeat)."),
    memory: str = typer.Option("semantic", "--memory", help="semantic (wiki) or procedural (skills)."),
    audience: str = typer.Option("project", "--audience", help="project, user-tooling or personal."),
    target: list[str] = typer.Option([], "--target", help="A file, page or skill it is about (repeat)."),
    replaces: list[str] = typer.Option([], "--replaces", help="A learning it offers to replace (repeat)."),
    rationale: str = typer.Option("Proposed by hand.", "--rationale"),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Propose a learning by hand, citing stored evidence (a person decides later)."""
    ctx = Context.open()
    who = actor(ctx, by)
    draft = ops.Draft(title=title, text=text, category=category, evidence=_refs(evidence),
                      counterevidence=_refs(counter), memory=memory, audience=audience,
                      targets=tuple(target), replaces=tuple(replaces), rationale=rationale,
                      proposer=("person", who))
    record = ops.propose(ctx, draft, who)
    if as_json:
        emit_json(record)
        return
    typer.echo(f"{record['state']} {record['id']}")
    typer.echo(f"  reviewDigest {record['reviewDigest']}")


def _table(purpose: str) -> tuple[dict[str, Status], dict[str, History]]:
    ctx = Context.open()
    view = ctx.view()
    return evaluate(view, purpose), histories(view.learnings)


def _row(status: Status, history: History) -> dict[str, Any]:
    row: dict[str, Any] = {"id": status.id, "state": status.state, "usable": status.usable,
                           "trust": status.trust, "reasons": list(status.reasons),
                           "replacedBy": status.replaced_by, "conflicted": status.conflicted}
    if history.valid:
        current = history.current
        row.update(title=current["content"]["title"], category=current["category"],
                   digest=current["digest"], reviewDigest=current["reviewDigest"])
    else:
        row["problem"] = history.problem
    return row


def _print_rows(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        label = " [auto-safe]" if row["trust"] == "auto-safe" else ""
        title = row.get("title", "(history breaks a rule; content withheld)")
        typer.echo(f"{row['id']} {row['state']:<13}{label} {title}")
        for reason in row["reasons"]:
            typer.echo(f"    {reason}")


def learnings(
    active: bool = typer.Option(False, "--active", help="Only learnings in force for the purpose."),
    purpose: str = PURPOSE_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """List learnings with their standing for a purpose (default: instruction)."""
    statuses, all_histories = _table(purpose)
    rows = [_row(s, all_histories[i]) for i, s in statuses.items() if s.usable or not active]
    emit_json(rows) if as_json else _print_rows(rows)


def proposals(as_json: bool = JSON_OPTION) -> None:
    """List proposals waiting for a person."""
    statuses, all_histories = _table("review")
    rows = [_row(s, all_histories[i]) for i, s in statuses.items()
            if all_histories[i].valid and all_histories[i].current["state"] == "proposed"]
    emit_json(rows) if as_json else _print_rows(rows)


def _history_of(learning_id: str) -> tuple[History, Status]:
    statuses, all_histories = _table("instruction")
    if learning_id not in all_histories:
        raise Refused(f"no learning {learning_id} in this scope")
    return all_histories[learning_id], statuses[learning_id]


def show(learning_id: str = typer.Argument(...), as_json: bool = JSON_OPTION) -> None:
    """Show a learning as a reviewer sees it, with the reviewDigest to quote when deciding."""
    history, status = _history_of(learning_id)
    data = _row(status, history)
    if history.valid:
        data["version"] = history.current
    if as_json:
        emit_json(data)
        return
    _print_rows([data])
    if not history.valid:
        typer.echo(f"  problem: {history.problem}")
        for item in history.chain:
            typer.echo(f"  version {item.record['version']} {item.digest}")
        return
    current = history.current
    typer.echo(f"\n  {current['content']['title']}\n\n  {current['content']['text']}\n")
    typer.echo(f"  {current['category']}, {current['memory']}, audience {current['audience']}: {current['audienceRationale']}")
    typer.echo(f"  support {current['support']}, dissent {current['dissent']}, confidence {current['confidence']}")
    typer.echo(f"  rationale: {current['rationale']}")
    typer.echo(f"  proposed by {current['proposer']['kind']} {current['proposer']['id']}")
    for label, refs in (("evidence", current["evidence"]), ("counterevidence", current["counterevidence"])):
        for ref in refs:
            pin = ref["pin"]
            where = f"PR #{pin['pullRequest']}" if pin["pullRequest"] else (pin["branch"] or "-")
            typer.echo(f"  {label}: {ref['episode']} {','.join(ref['events'])} by {ref['author']} at {ref['at']} ({where})")
    if current["replaces"]:
        typer.echo(f"  replaces: {', '.join(current['replaces'])}")
    typer.echo(f"\n  reviewDigest {current['reviewDigest']}")
    if current["state"] in ("proposed", "auto-accepted", "auto-active"):
        typer.echo(f"  to accept: gitstore accept {learning_id} --review-digest {current['reviewDigest']}")


def history(learning_id: str = typer.Argument(...), as_json: bool = JSON_OPTION) -> None:
    """Every version of a learning: identifiers, states and digests."""
    found, _ = _history_of(learning_id)
    rows = [{"version": i.record["version"], "state": i.record["state"], "digest": i.digest,
             "at": i.record["at"], "by": i.record.get("decision", {}).get("by"),
             "reviewDigest": i.record["reviewDigest"], "intact": n < found.intact}
            for n, i in enumerate(found.chain)]
    ignored = [{"digest": i.digest, "version": i.record["version"]} for i in found.ignored]
    if as_json:
        emit_json({"id": learning_id, "problem": found.problem, "versions": rows, "ignored": ignored})
        return
    for row in rows:
        mark = "" if row["intact"] else "  (breaks a rule)"
        typer.echo(f"v{row['version']} {row['state']:<13} {row['digest']} {row['at']} {row['by'] or ''}{mark}")
    if found.problem:
        typer.echo(f"problem: {found.problem}")
    for item in ignored:
        typer.echo(f"ignored (lost a race): v{item['version']} {item['digest']}")


def accept(
    learning_id: str = typer.Argument(...),
    review_digest: str = typer.Option(..., "--review-digest", help="The reviewDigest `gitstore show` printed."),
    edit: Optional[str] = typer.Option(None, "--edit", help="Accept with this text instead."),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Accept a proposal you reviewed (optionally edited); agents get it from now on."""
    ctx = Context.open()
    record = ops.accept(ctx, learning_id, review_digest, actor(ctx, by), edit)
    emit_json(record) if as_json else typer.echo(f"accepted {learning_id} (version {record['version']})")


def reject(
    learning_id: str = typer.Argument(...),
    review_digest: str = typer.Option(..., "--review-digest"),
    reason: Optional[str] = typer.Option(None, "--reason"),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Reject a proposal you reviewed."""
    ctx = Context.open()
    record = ops.reject(ctx, learning_id, review_digest, actor(ctx, by), reason)
    emit_json(record) if as_json else typer.echo(f"rejected {learning_id}")


def retire(
    learning_id: str = typer.Argument(...),
    reason: str = typer.Option(..., "--reason"),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Retire an accepted learning: agents stop getting it."""
    ctx = Context.open()
    record = ops.retire(ctx, learning_id, actor(ctx, by), reason)
    emit_json(record) if as_json else typer.echo(f"retired {learning_id}")


def merge(
    ids: list[str] = typer.Argument(..., help="Two or more learning ids."),
    title: str = typer.Option(..., "--title"),
    text: str = typer.Option(..., "--text"),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Propose one learning replacing several; a person accepts it like any proposal."""
    ctx = Context.open()
    record = ops.merge(ctx, ids, title, text, actor(ctx, by))
    emit_json(record) if as_json else typer.echo(f"proposed merge {record['id']}\n  reviewDigest {record['reviewDigest']}")


def register(app: typer.Typer) -> None:
    for command in (propose, proposals, show, accept, reject, retire, merge, learnings, history):
        app.command()(command)
