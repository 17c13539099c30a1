"""``gitstore records``: add, list and show raw records."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Optional

import typer

from gitstore._collector import collector_paused
from gitstore.cli._complete import words
from gitstore.records.canonical import parse_json
from gitstore.records.contracts import KINDS, seal
from gitstore.records.ids import learning_id
from gitstore.errors import InvalidInput, Refused
from gitstore.context import Context
from gitstore.safety.gate import unscreened_record
from gitstore.cli._io import JSON_OPTION, echo_lines, emit_json, emit_json_array, open_input, read_lines
from gitstore.cli._values import checked, digest_prefix, one_of, path

# Consent is given and withdrawn only by the commands that write the audit entry naming who did
# it: a record added here would widen or narrow what evidence may serve, backdated and in
# anyone's name, with nothing in the audit log.
_CONSENT_COMMANDS = {
    "gitstore.grant/v1": "a grant is given with `gitstore grant`, which writes the audit entry that records who "
                         "gave it; records add writes none, so it adds no grant",
    "gitstore.withdrawal/v1": "a grant is withdrawn with `gitstore withdraw`, which writes the audit entry that "
                              "records who withdrew it; records add writes none, so it adds no withdrawal",
}

# An event's text travels in its writer's payload snapshot: an event added without its payload
# is text no snapshot will ever hold, an event no clone can ever read.
EVENT_SCHEMA = "gitstore.event/v1"
LEARNING_SCHEMA = "gitstore.learning/v1"
_NO_PAYLOAD = "an event is added with its payload (the text it carries): without it, no clone could ever read its text"

# A learning is text people and plug-ins hand the store: proposing redacts its secrets and
# refuses injected instructions; capture screens an episode's and an event's text. records add
# stores a record as written (its digests name those bytes), so one that screening would change
# (any string of it, as `records show` screens them) is refused rather than stored around the scanner;
# an event is taken as sealed, its text screened where it is read (see ``unscreened_record``).
_UNSCREENED = ("a record is stored as screened, and records add stores it as written "
               "(propose a learning with `gitstore propose`, which screens it)")

records_app = typer.Typer(help="Add, list and show records.", no_args_is_help=True)


class _Lines:
    """The records of a JSON Lines file, parsed one line at a time as the store asks for them.

    ``where`` names the line being handled, so an error raised while the store checks that
    record can name it too; ``digests`` collects each record's digest in input order, and
    ``lines`` the line each is on.
    """

    def __init__(self, name: str, do_seal: bool) -> None:
        self.name = name
        self.do_seal = do_seal
        self.number = 0
        self.done = False
        self.digests: list[str] = []
        self.lines: list[int] = []

    @property
    def where(self) -> str:
        return f"{self.name}:{self.number}"

    def __iter__(self) -> Iterator[dict[str, Any]]:
        with open_input(self.name) as source:
            for self.number, line in enumerate(read_lines(source, self.name), start=1):
                if not line.strip():
                    continue
                value = parse_json(line.removesuffix(b"\r"), check=False)  # the store checks it
                if not isinstance(value, dict):
                    raise InvalidInput("a record must be a JSON object")
                refusal = _CONSENT_COMMANDS.get(str(value.get("schema")))
                if refusal is not None:
                    raise Refused(refusal)
                if value.get("schema") == EVENT_SCHEMA and "payload" not in value and "redaction" not in value:
                    raise InvalidInput(_NO_PAYLOAD)
                why = unscreened_record(value)
                if why is not None:
                    raise Refused(f"{why}: {_UNSCREENED}")
                if self.do_seal:
                    value.pop("digest", None)
                    seal(value)
                _check_proposal_id(value)
                self.digests.append(value.get("digest", ""))
                self.lines.append(self.number)
                yield value
        self.done = True
        if not self.digests:
            raise InvalidInput(f"{self.name}: no records")


def _check_proposal_id(record: dict[str, Any]) -> None:
    """A learning's first version (its proposal) is named by its contentDigest: one under
    another id (a stored proposal's, its text changed) would break the learning's history, and
    every read would ignore it as damage."""
    digest = record.get("contentDigest")
    if record.get("schema") == LEARNING_SCHEMA and record.get("version") == 1 and isinstance(digest, str) \
            and record.get("id") != learning_id(digest):
        raise InvalidInput(f"learning {record.get('id')}: a proposal's id is the one its contentDigest gives, "
                           f"{learning_id(digest)} (a proposal with other content is another learning)")


@records_app.command("add")
def add(
    file: str = typer.Argument("-", metavar="FILE", help="JSON Lines file of records, or - for standard input.", callback=checked(path)),
    do_seal: bool = typer.Option(False, "--seal", help="Compute each record's digests first."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Add records as one atomic append; print each digest.

    Each digest is printed with "added", "exists" (stored before) or "repeats line N" (the
    same record given again: it is stored once).

    Records are read, checked and written one line at a time, yet memory grows with the
    number of records, by about 2 KB each (what the append keeps of every record until it
    commits: 100,000 records peak near 290 MB, a million near 2.2 GB). A line that fails
    stores nothing and is named in the error. Decisions,
    grants and withdrawals are refused: they are written by the commands that give them
    (accept, reject, retire, grant, withdraw), each with its audit entry. So is an event
    without its payload: no clone could ever read its text. So is a record holding text
    the safety scanner would redact or quarantine (a learning's title or text, a proposer's
    id, an episode's title: any string `records show` screens, but an event's, which is taken
    as sealed and screened where it is read): proposing and capture store none.
    """
    store = Context.open().store
    lines = _Lines(file, do_seal)
    try:
        result = store.append(lines)
    except (InvalidInput, Refused) as exc:
        if lines.done or not lines.number:  # not about a line: the file, or the store before any line
            raise
        raise type(exc)(f"{lines.where}: {exc}") from None
    if as_json:
        emit_json({"added": list(result.added), "existing": list(result.existing)})
        return
    typer.echo("\n".join(_labelled(lines, set(result.added))))


def _labelled(lines: _Lines, added: set[str]) -> Iterator[str]:
    """Each input record's digest with what became of it: ``added``, ``exists`` (stored
    before), or, for a record given again in the same input, the line it repeats (it is stored
    once)."""
    first: dict[str, int] = {}
    for digest, number in zip(lines.digests, lines.lines):
        if digest in first:
            yield f"{digest} repeats line {first[digest]}"
            continue
        first[digest] = number
        yield f"{digest} {'added' if digest in added else 'exists'}"


@records_app.command("list")
def list_(
    kind: Optional[str] = typer.Option(None, "--kind", metavar="KIND", autocompletion=words(KINDS), help=f"Only this kind ({', '.join(KINDS)}).",
                                  callback=checked(one_of("kind", KINDS))),
    as_json: bool = JSON_OPTION,
) -> None:
    """List stored records in store order."""
    store = Context.open().store
    items = store.items([kind] if kind else None)
    with collector_paused():  # millions of short-lived objects in a big store, none in a cycle
        if as_json:
            emit_json_array({"digest": i.digest, "kind": i.kind, "stream": i.stored.stream,
                             "namespace": i.stored.namespace, "writer": i.stored.writer,
                             "clock": i.stored.clock, "position": i.stored.position} for i in items)
            return
        echo_lines(f"{i.digest} {i.kind:<10} {i.stored.namespace:<6} {i.stored.stream}" for i in items)


@records_app.command("show")
def show(
    digest: str = typer.Argument(..., metavar="DIGEST", help="A record digest (or a prefix of at least 8 hex digits).",
                                 callback=checked(digest_prefix)),
    raw: bool = typer.Option(False, "--raw", help="Print every text as stored, even text the safety scanner "
                                                   "quarantines (for inspecting it, not for an agent to read)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Show one record (with its payload, unless redacted).

    A record may come from a clone that ran no safety scanner, and what it prints is often read
    by an agent: each text in it is screened as `gitstore show` screens it. A text the scanner
    quarantines (an injected instruction, hidden markup) is printed as a note naming why;
    secrets and home paths are redacted. The fields withheld or redacted are named on standard
    error. --raw prints the record exactly as stored.
    """
    store = Context.open().store
    item = store.get(digest)
    if item is None:
        raise InvalidInput(f"no record {digest} in this repository")
    record = item.record
    if not raw:
        withheld: list[str] = []
        redacted: list[str] = []
        record = _screened(record, "", withheld, redacted)
        if withheld:
            typer.echo(f"withheld (the safety scanner quarantines them): {'; '.join(withheld)}", err=True)
        if redacted:
            typer.echo(f"redacted by the safety scanner: {'; '.join(redacted)}", err=True)
        if withheld or redacted:
            typer.echo("--raw prints the record as stored", err=True)
    emit_json(record) if as_json else typer.echo(_pretty(record))


def _screened(value: Any, where: str, withheld: list[str], redacted: list[str]) -> Any:
    """``value`` with each string the safety scanner quarantines replaced by a note naming why,
    and secrets and home paths in the others redacted; ``withheld`` and ``redacted`` gain where
    each was (``content.title``, ``targets[0]``) and why."""
    if isinstance(value, dict):
        return {key: _screened(inner, f"{where}.{key}" if where else str(key), withheld, redacted)
                for key, inner in value.items()}
    if isinstance(value, list):
        return [_screened(inner, f"{where}[{n}]", withheld, redacted) for n, inner in enumerate(value)]
    if not isinstance(value, str):
        return value
    from gitstore.safety.scanner import QUARANTINE, default_scanner

    result = default_scanner().scan(value)
    if not result.quarantined:
        if result.text != value:
            redacted.append(f"{where} ({', '.join(sorted({f.kind for f in result.findings if f.action != QUARANTINE}))})")
        return result.text
    kinds = ", ".join(sorted({f.kind for f in result.findings if f.action == QUARANTINE}))
    withheld.append(f"{where} ({kinds})")
    return f"(text withheld: {kinds}; the safety scanner quarantines it; --raw prints it)"


def _pretty(record: dict[str, Any]) -> str:
    import json

    return json.dumps(record, indent=2, ensure_ascii=False)


def register(app: typer.Typer) -> None:
    app.add_typer(records_app, name="records")
