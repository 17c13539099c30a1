"""Rendering learnings as text: the rows of a list and one learning as a reviewer sees it."""

from __future__ import annotations

from typing import Any

import typer

from gitstore._shown import one_line
from gitstore.cli._io import echo
from gitstore.queries.learnings import EvidenceShown, Row, Shown, Standing, warnings_of


def print_rows(rows: list[Row]) -> None:
    lines = []
    for row in rows:
        data = row.to_json()
        label = " [auto-safe]" if data["trust"] == "auto-safe" else ""
        title = one_line(data.get("title", "(history breaks a rule; content withheld)"))
        lines.append(f"{data['id']} {data['state']:<13}{label} {title}")
        lines.extend(f"    {one_line(reason)}" for reason in data["reasons"] if reason != f"state is {data['state']}")
        lines.extend(f"    {one_line(line)}" for line in _claim_lines(data))
    if lines:
        echo("\n".join(lines))


def _claim_lines(data: dict[str, Any]) -> list[str]:
    """How the rules settled the replacement a learning claims, when that is not already among
    the reasons it is out of force: conflicted (it replaces nothing) or contested (a person must
    settle it)."""
    lines = []
    said = " ".join(data["reasons"])
    if data.get("conflicted") and data["conflicted"] not in said:
        lines.append(f"conflicted: {data['conflicted']}")
    if data.get("contested") and data["contested"] not in said:
        lines.append(data["contested"] if data["contested"].startswith("contested") else f"contested: {data['contested']}")
    return lines


def print_standing(standing: Standing, indent: str = "  ") -> None:
    if standing.in_force:
        echo(f"{indent}in force for {standing.purpose}")
        return
    echo(f"{indent}NOT in force for {standing.purpose}:")
    for why in standing.why:
        echo(f"{indent}  - {why}")
    for todo in standing.todo:
        echo(f"{indent}  to do: {todo}")


def print_shown(shown: Shown) -> None:
    data = shown.row.to_json()
    label = " [auto-safe]" if data["trust"] == "auto-safe" else ""
    echo(f"{data['id']} {data['state']}{label}")
    version = shown.version
    if version is None:  # a history that breaks a rule: identifiers and digests, never content
        echo(f"  problem: {shown.row.history.problem}")
        for item in shown.row.history.chain:
            echo(f"  version {item.record['version']} {item.digest}")
        return
    _print_version(version, shown.name if shown.edited else None)
    if shown.proposed_text is not None:
        echo(f"  edited when accepted, by {version['decision']['by']}: the text above is theirs; the evidence, the "
             "rationale and the gates were read for what was proposed:")
        for line in shown.proposed_text.splitlines() or [""]:
            echo(f"    {line}")
    print_warnings(version, "  ")
    for evidence in shown.evidence:
        _print_evidence(evidence, shown.standing.purpose)
    if version["replaces"]:
        echo(f"\n  replaces (accepting it is refused: {shown.unhonoured}):" if shown.unhonoured else
             "\n  replaces (accepting it takes these out of force):")
        for rid, title in shown.replaced or tuple((rid, "") for rid in version["replaces"]):
            echo(f"    {rid} {one_line(title)}")
    for line in _claim_lines(data):
        echo(f"\n  {one_line(line)}")
    echo("")
    print_standing(shown.standing)
    echo(f"\n  reviewDigest {version['reviewDigest']}")
    if shown.accept_hint:
        echo(f"  to accept: {shown.accept_hint}")


def print_warnings(version: dict[str, Any], indent: str = "", err: bool = False) -> None:
    """The safety scanner's warnings on what a learning version says (look-alike words, spelled
    out), one line each: a person deciding on it sees them first (standard error where the
    command's output is another's to read)."""
    for line in warnings_of(version):
        typer.echo(f"{indent}warning: {line}", err=err)


def _print_version(version: dict[str, Any], name: str | None = None) -> None:
    """A version as a reviewer reads it; ``name``, the title it goes by (``listed_title``, as
    shown), when it is not the proposed one (its text was edited at accept)."""
    echo(f"\n  {one_line(version['content']['title'])}\n")
    if name is not None:
        echo(f"  goes by: {one_line(name)}\n  (the headline of its accepted text: lists, recall and promotion name it so)\n")
    echo(_indented(version['content']['text'], "  ") + "\n")
    echo(f"  {version['category']}, {version['memory']}, audience {version['audience']}: "
         f"{_indented(version['audienceRationale'], '    ').lstrip()}")
    echo(f"  support {version['support']}, dissent {version['dissent']}, confidence {version['confidence']}")
    echo(f"  rationale: {_indented(version['rationale'], '    ').lstrip()}")
    echo(f"  proposed by {version['proposer']['kind']} {version['proposer']['id']} (as the record says: a proposal "
         "carries no signature)")
    if version["targets"]:
        echo(f"  about: {', '.join(version['targets'])}")


def _indented(text: str, indent: str) -> str:
    """TEXT with each of its lines after INDENT: stored text (a proposal's, which any clone that
    can push may write) never prints a line at the margin, where the lines that say where a
    learning stands (its reviewDigest, what accepts it) are printed."""
    return "\n".join(indent + line if line else "" for line in text.splitlines() or [""])


def _print_evidence(item: EvidenceShown, purpose: str) -> None:
    ref = item.ref
    verdict = f"serves {purpose}" if item.serves else f"does NOT serve {purpose}: {item.why}"
    echo(f"\n  {item.role} {item.paste}")
    echo(f"    by {item.author} at {ref['at']} ({item.where}); {verdict}")
    if item.stored_by:
        echo(f"    stored by {'; '.join(item.stored_by)}")
    for event in item.events:
        text = event.text if event.text is not None else f"[{event.removed or 'no text'}]"
        lines = text.splitlines() or [""]
        echo(f"    {event.id} ({event.type}): {lines[0]}")
        for line in lines[1:]:
            echo(f"      {line}")
