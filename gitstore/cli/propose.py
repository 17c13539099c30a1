"""``gitstore propose``: a person proposes a learning, citing stored evidence."""

from __future__ import annotations

import re
from typing import Any, Optional

import typer

from gitstore.cli._complete import words
from gitstore.records.vocabulary import AUDIENCES, CATEGORIES, MEMORY_KINDS
from gitstore.cli._values import at_most, checked, filled, learning_id, one_of, relative_path
from gitstore.cli._io import JSON_OPTION, emit_json, echo
from gitstore.cli._learnings import print_warnings
from gitstore.cli._people import BY_OPTION, actor
from gitstore.context import Context
from gitstore.ops import learning as ops
from gitstore.queries.learnings import barred_beyond_review


_CITED = re.compile(r"ep_[0-9a-f]{32}:ev_[0-9a-f]{32}(,ev_[0-9a-f]{32})*,?")


def cited(value: str) -> str | None:
    """Why an ``EPISODE:EVENT[,EVENT...]`` value is not one (None when it is)."""
    if _CITED.fullmatch(value):
        return None
    return f"{value!r} must look like ep_<id>:ev_<id>[,ev_<id>...] (`gitstore evidence EPISODE` prints them)"


def evidence_refs(values: list[str]) -> list[dict[str, Any]]:
    """``EPISODE:EVENT[,EVENT...]`` values (``cited`` checked them) as evidence references, in
    one order whatever order the values came in, each event cited once however often they name
    it: ``--evidence E:A --evidence E:A`` and ``--evidence F:B --evidence E:A`` cite what
    ``--evidence E:A`` and ``--evidence E:A --evidence F:B`` do, and so propose the same
    learning. (Values naming other events of one episode stay references of their own: a
    reference cites one author.)"""
    refs: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for value in values:
        episode, _, named = value.partition(":")
        events = sorted(e for e in set(named.split(",")) if e and (episode, e) not in seen)
        seen.update((episode, e) for e in events)
        if events:
            refs.append({"episode": episode, "events": events})
    return sorted(refs, key=lambda ref: (ref["episode"], ref["events"]))


def propose(
    title: str = typer.Option(..., "--title", metavar="TEXT", help="A short title, one line (at most 200 characters).",
                              callback=checked(filled, at_most(200))),
    text: str = typer.Option(..., "--text", metavar="TEXT", help="The learning as agents will read it.",
                             callback=checked(filled, at_most(4000))),
    category: str = typer.Option(..., "--category", metavar="CATEGORY", autocompletion=words(CATEGORIES),
                                 help="decision, convention, constraint, resolved-problem or project-knowledge.",
                                 callback=checked(one_of("category", CATEGORIES))),
    evidence: list[str] = typer.Option(..., "--evidence", metavar="EPISODE:EVENT[,EVENT]",
                                       help="Evidence it stands on, as `gitstore evidence` prints it (repeat).",
                                       callback=checked(cited)),
    counter: list[str] = typer.Option([], "--counter", metavar="EPISODE:EVENT[,EVENT]",
                                      help="Counterevidence, in the same form (repeat).", callback=checked(cited)),
    memory: str = typer.Option("semantic", "--memory", metavar="KIND", autocompletion=words(MEMORY_KINDS), help="semantic (wiki) or procedural (skills).",
                               callback=checked(one_of("memory", MEMORY_KINDS))),
    audience: str = typer.Option("project", "--audience", metavar="AUDIENCE", autocompletion=words(AUDIENCES), help="project, user-tooling or personal.",
                                 callback=checked(one_of("audience", AUDIENCES))),
    target: list[str] = typer.Option([], "--target", metavar="PATH", help="A file, page or skill it is about (repeat).",
                                   callback=checked(filled, relative_path)),
    replaces: list[str] = typer.Option([], "--replaces", metavar="LEARNING_ID",
                                       help="A learning it offers to replace (repeat).", callback=checked(learning_id)),
    rationale: str = typer.Option("Proposed by hand.", "--rationale", metavar="TEXT", help="Why it holds.",
                                  callback=checked(filled, at_most(2000))),
    by: Optional[str] = BY_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Propose a learning by hand, citing stored evidence (a person decides later)."""
    ctx = Context.open()
    who = actor(ctx, by)
    draft = ops.Draft(title=title, text=text, category=category, evidence=evidence_refs(evidence),
                      counterevidence=evidence_refs(counter), memory=memory, audience=audience,
                      targets=tuple(target), replaces=tuple(replaces), rationale=rationale,
                      proposer=("person", who))
    record = ops.propose(ctx, draft, who)
    print_warnings(record, err=True)
    if ctx.store.trust_mode().mode == "policy" and who not in ctx.store.signing_as():
        typer.echo(f"warning: stored unsigned, since this clone does not sign as {who}: a dream takes a proposal by "
                   "hand as a word on its theme only from someone who signs it and may decide, so it will propose "
                   "the theme beside this one (sign with the SSH key the policy lists for you: `git config gpg.format ssh "
                   "&& git config user.signingkey KEY.pub`)", err=True)
    barred = barred_beyond_review(ctx, record["id"])
    if barred is not None:
        typer.echo(f"warning: even once accepted it would not be in force for {barred.purpose}: "
                   f"{'; '.join(barred.why)}; `gitstore show {record['id']}` says what to do", err=True)
    if as_json:
        emit_json(record)
        return
    echo(f"{record['state']} {record['id']}")
    echo(f"  reviewDigest {record['reviewDigest']}")
    echo(f"  next: gitstore show {record['id']}")


def register(app: typer.Typer) -> None:
    app.command()(propose)
