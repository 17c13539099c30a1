"""The v1 record contracts: loading schemas, validating records and computing their digests.

The schemas in ``.memory-schema/v1/`` are the source of truth, including which fields each
kind's digest leaves out (``x-gitstore.digestExcludes``) and which fields a learning's
contentDigest and reviewDigest cover. Nothing here restates those lists.

Two validators give the same verdicts: ``jsonschema`` (the reference) and ``jsonschema-rs``
(compiled, the default); both assert the ``date-time`` format of times. ``tests/test_contracts.py``
proves them equal on every example and on mutated records.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from gitstore.records.canonical import canonicalize, canonicalize_checked, check_ijson, parse_json, sha256_digest
from gitstore.errors import ContractError, InvalidInput
from gitstore.records.times import is_time

VERSION = 1
KINDS = (
    "envelope", "receipt", "episode", "event", "grant", "withdrawal",
    "learning", "export", "audit", "packet", "import",
)
_SCHEMA_NAME = re.compile(r"^gitstore\.([a-z]+)/v([0-9]+)\Z")
_DEFS_ID = "urn:gitstore:v1:defs"


@cache
def contracts_dir() -> Path:
    """Where the v1 contracts live: inside the installed package, or the source checkout."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "_contracts" / "v1", package.parent / ".memory-schema" / "v1"):
        if candidate.is_dir():  # installed from a wheel, or a source checkout
            return candidate
    from importlib import resources  # some milliseconds of imports, for this case alone

    return Path(str(resources.files("gitstore") / "_contracts" / "v1"))  # any other installation


class Contract(NamedTuple):
    """One kind's schema and the digest rules it declares."""

    kind: str
    schema: Mapping[str, Any]
    digest_excludes: frozenset[str]
    content_fields: tuple[str, ...] = ()
    review_fields: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"gitstore.{self.kind}/v{VERSION}"


@cache
def _load(name: str) -> dict[str, Any]:
    path = contracts_dir() / f"{name}.schema.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@cache
def contract(kind: str) -> Contract:
    """The contract of a v1 kind."""
    if kind not in KINDS:
        raise ContractError(f"unknown record kind {kind!r}")
    schema = _load(kind)
    meta = schema["x-gitstore"]
    return Contract(
        kind=kind,
        schema=schema,
        digest_excludes=frozenset(meta["digestExcludes"]),
        content_fields=tuple(meta.get("contentDigest", ())),
        review_fields=tuple(meta.get("reviewDigest", ())),
    )


def kind_of(record: Any) -> str:
    """The kind a record names, refusing other versions and unknown kinds."""
    if not isinstance(record, dict):
        raise ContractError("a record must be a JSON object")
    name = record.get("schema")
    if not isinstance(name, str):
        raise ContractError("record has no \"schema\" naming its kind and version")
    match = _SCHEMA_NAME.match(name)
    if not match:
        raise ContractError(f"schema {name!r} is not of the form gitstore.<kind>/v<N>")
    kind, version = match.group(1), int(match.group(2))
    if kind not in KINDS:
        raise ContractError(f"unknown record kind {kind!r} in schema {name!r}")
    if version != VERSION:
        raise ContractError(f"unknown schema version {name!r}: this gitstore reads v{VERSION}")
    return kind


# -- digests -----------------------------------------------------------------------------------

def digest_of(record: Mapping[str, Any], kind: str | None = None) -> str:
    """The record's digest: sha256 over canonical bytes minus the fields its kind excludes."""
    return _record_digest(record, kind or kind_of(record), canonicalize)


def content_digest(learning: Mapping[str, Any]) -> str:
    """A learning's contentDigest: what it says."""
    return _subset_digest(learning, contract("learning").content_fields, canonicalize)


def review_digest(learning: Mapping[str, Any]) -> str:
    """A learning's reviewDigest: everything a reviewer is shown."""
    return _subset_digest(learning, contract("learning").review_fields, canonicalize)


def payload_digest(payload: Mapping[str, Any]) -> str:
    """An event payload's digest, kept in the event so redaction leaves it intact."""
    return sha256_digest(canonicalize(payload))


def _record_digest(record: Mapping[str, Any], kind: str, canon: Callable[[Any], bytes]) -> str:
    covered = dict(record)  # a copy less the few excluded fields: cheaper than filtering each
    for name in contract(kind).digest_excludes:
        covered.pop(name, None)
    return sha256_digest(canon(covered))


def _subset_digest(
    record: Mapping[str, Any], fields: Iterable[str], canon: Callable[[Any], bytes]
) -> str:
    return sha256_digest(canon({f: record[f] for f in fields if f in record}))


def seal(record: dict[str, Any]) -> dict[str, Any]:
    """Fill in computed digests (learning digests, payloadDigest, digest) and return the record."""
    kind = kind_of(record)
    if kind == "learning":
        record["contentDigest"] = content_digest(record)
        record["reviewDigest"] = review_digest(record)
    if kind == "event" and "payload" in record:
        record["payloadDigest"] = payload_digest(record["payload"])
    record["digest"] = digest_of(record, kind)
    return record


# -- validation --------------------------------------------------------------------------------

@cache
def _registry() -> Any:
    import referencing  # the reference validator is imported only when asked for

    defs = referencing.Resource.from_contents(_load("defs"))
    return referencing.Registry().with_resource(_DEFS_ID, defs)


# The one format the contracts use: a time on a real calendar date (the pattern alone lets
# 2026-02-31 through). The reference asserts it with gitstore's own time parser, the compiled
# validator with its RFC 3339 date-time check; on strings the pattern admits (years 0001 to
# 9999, six fractional digits, Z, no leap second) both are the Gregorian calendar.
_FORMATS = {"date-time": is_time}


@cache
def _ecma_pattern(pattern: str) -> str:
    """A JSON Schema ``pattern`` as Python's ``re`` reads it the way JSON Schema does (ECMA-262):
    ``$`` outside a character class is the end of the string. Python's ``$`` also matches before
    a final newline, so ``"git:bob\\n"`` would pass ``^...$`` in the reference and fail in the
    compiled validator, which reads patterns as JSON Schema says."""
    out, escaped, in_class = [], False, False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "$" and not in_class:
            char = r"\Z"
        out.append(char)
    return "".join(out)


@cache
def _reference_validator(kind: str) -> Any:
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())
    for name, check in _FORMATS.items():
        checker.checks(name)(check)

    def pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterable[Any]:
        """The ``pattern`` keyword with JSON Schema's ``$`` (``_ecma_pattern``); its message is
        the reference's own."""
        if validator.is_type(instance, "string") and not re.search(_ecma_pattern(pattern), instance):
            yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")

    reference = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": pattern})
    return reference(contract(kind).schema, registry=_registry(), format_checker=checker)


@cache
def _fast_validator(kind: str) -> Any:
    from gitstore._jsonrs import load

    load()  # about 12 ms, without e-mail's modules: a read whose records the store knows checks none
    import jsonschema_rs

    registry = jsonschema_rs.Registry([(_DEFS_ID, _load("defs"))])
    return jsonschema_rs.validator_for(dict(contract(kind).schema), registry=registry, validate_formats=True)


def ready(*kinds: str) -> None:
    """Compile the validators of KINDS now, rather than when a record of each is first checked
    (a capture does it while the child reading its transcript may still be at work)."""
    for kind in kinds:
        _fast_validator(kind)


def schema_errors(record: Any, kind: str, *, reference: bool = False) -> list[str]:
    """Schema violations of a record as one-line messages (empty when it conforms)."""
    if reference:
        found = sorted(_reference_validator(kind).iter_errors(record), key=lambda e: list(e.path))
        return [_describe(list(e.absolute_path), e.message, list(e.schema_path)) for e in found]
    validator = _fast_validator(kind)
    if validator.is_valid(record):
        return []
    return [
        _describe(list(e.instance_path), e.message, list(e.schema_path))
        for e in validator.iter_errors(record)
    ]


def _describe(path: list[Any], message: str, schema_path: list[Any]) -> str:
    where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    message = " ".join(message.split())
    if len(message) > 200:
        rule = "/".join(str(p) for p in schema_path)
        message = f"violates the contract rule at {rule}"
    return f"{where}: {message}"


def check_record(record: Any, *, reference: bool = False) -> str:
    """Validate a record fully (I-JSON, version, schema, digests); return its kind."""
    return checked_record(record, reference=reference)[0]


def checked_record(record: Any, *, reference: bool = False) -> tuple[str, bool]:
    """``check_record``, also returning whether the fast canonicalizer serves the record and
    each of its parts (``canonicalize_checked``), so none of them is walked again."""
    kind = kind_of(record)
    fast = check_ijson(record, allow_floats=False)
    _check_walked(record, kind, fast, reference)
    return kind, fast


def _check_walked(record: Any, kind: str, fast: bool, reference: bool = False) -> None:
    """The rest of ``check_record`` once ``check_ijson(record, allow_floats=False)`` gave ``fast``."""
    errors = schema_errors(record, kind, reference=reference)
    if errors:
        raise ContractError(f"{kind} record fails its contract: {errors[0]}")
    _check_digests(record, kind, fast)


def _check_digests(record: Mapping[str, Any], kind: str, fast: bool) -> None:
    # check_ijson has just walked the whole record: canonicalize its parts without walking
    # each again (that walk was most of the time check_record took).
    def canon(value: Any) -> bytes:
        return canonicalize_checked(value, fast)

    if kind == "learning":
        rules = contract("learning")
        for field, fields in (("contentDigest", rules.content_fields), ("reviewDigest", rules.review_fields)):
            if record[field] != _subset_digest(record, fields, canon):
                raise ContractError(f"learning {record.get('id')}: {field} does not match its fields")
    if kind == "event" and "payload" in record:
        if record["payloadDigest"] != sha256_digest(canon(record["payload"])):
            raise ContractError(f"event {record.get('id')}: payloadDigest does not match its payload")
    expected = _record_digest(record, kind, canon)
    if record["digest"] != expected:
        raise ContractError(f"{kind} record digest {record['digest']} does not match its content ({expected})")


def load_record(text: str | bytes, *, reference: bool = False) -> dict[str, Any]:
    """Parse one JSON record strictly and validate it against its contract."""
    record = parse_json(text, allow_floats=False)
    check_record(record, reference=reference)
    assert isinstance(record, dict)
    return record


def validate_text(data: bytes, name: str, *, reference: bool = False) -> list[dict[str, Any]]:
    """Validate a file's records (one JSON record, or JSON Lines); one result per record."""
    if not name.endswith(".jsonl"):
        return [_verdict(data, None, reference)]
    return validate_lines(data.splitlines(), name, reference=reference)


def validate_lines(lines: Iterable[bytes], name: str, *, reference: bool = False) -> list[dict[str, Any]]:
    """Validate JSON Lines as they are read; one result per record."""
    results = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            results.append(_verdict(line, number, reference))
    if not results:
        raise ContractError(f"{name}: no records")
    return results


def _verdict(data: bytes, line: int | None, reference: bool) -> dict[str, Any]:
    try:
        record = load_record(data, reference=reference)
    except InvalidInput as exc:
        return {"line": line, "ok": False, "error": str(exc)}
    return {"line": line, "ok": True, "kind": kind_of(record), "digest": record["digest"]}


CHECKS_VERSION = "3"  # changes when what ``verify_stored`` accepts changes, beyond the contracts:
# every verdict remembered under another (checked bytes, policy checks, admitted writers, refusals
# held) is reached again; 3: scopes compared as one repository's (``gitstore.scope.same_scope``)
NEVER_STORED = ("payload", "redaction")  # members an event's stored bytes never hold


def check_storable(record: Mapping[str, Any], kind: str) -> None:
    """Refuse a record whose bytes no store keeps: an event holding its payload or a redaction
    object inline. The event's digest leaves both out, so a copy holding either has the real
    event's digest: a payload kept inline would outlive its removal, and a redaction object
    would make anyone's copy read as removed, by anyone, for any reason. A payload is kept
    apart, and a redaction is the note a removal keeps with its audit entry."""
    if kind != "event":
        return
    for member in NEVER_STORED:
        if member in record:
            raise ContractError(f"event {record.get('id')} holds {_KEPT_APART[member]}")


_KEPT_APART = {
    "payload": "its payload inline, which no stored event does: a payload is kept apart, so it can be removed",
    "redaction": "a redaction object, which no stored event does: a payload is removed by `gitstore redact`, "
                 "which keeps the note with its audit entry",
}


def verify_stored(data: bytes, digest: str, kind: str) -> dict[str, Any]:
    """Check bytes a provider returned: canonical, of the expected kind and digest, valid,
    and of a form a store keeps (``check_storable``)."""
    accepted = _verify_stored_fast(data, digest, kind)
    if accepted is not None:
        return accepted
    record = parse_json(data, allow_floats=False)
    if canonicalize(record) != data:
        raise ContractError("stored bytes are not in canonical form")
    found = check_record(record)
    if found != kind:
        raise ContractError(f"stored as {kind} but the record is a {found}")
    if record["digest"] != digest:
        raise ContractError(f"stored under {digest} but its digest is {record['digest']}")
    check_storable(record, kind)
    return record  # type: ignore[no-any-return]


def _verify_stored_fast(data: bytes, digest: str, kind: str) -> dict[str, Any] | None:
    """What ``verify_stored`` returns for bytes it accepts, in a third of the time; None for
    anything else, which then takes the full path and its messages.

    Bytes equal to the canonical form of what orjson parsed from them are one JSON text that
    the strict parser reads to the same value (no repeated names, byte order mark or
    constants survive the comparison), so the strict parse may be skipped; the I-JSON walk
    runs once and serves the canonical form, the schema and the digests.
    """
    try:
        record = orjson.loads(data)
        if type(record) is not dict:
            return None
        fast = check_ijson(record, allow_floats=False)
        if canonicalize_checked(record, fast) != data:
            return None
        found = kind_of(record)
        if found != kind or record.get("digest") != digest:
            return None
        if found == "event" and any(member in record for member in NEVER_STORED):
            return None
        _check_walked(record, found, fast)
    except Exception:  # whatever it was, the full path finds it and says what it is
        return None
    return record


_STREAMS = {
    "envelope": "captures", "receipt": "captures", "grant": "consent", "withdrawal": "consent",
    "export": "exports", "audit": "audit", "packet": "packets", "import": "imports",
}


def stream_of(record: Mapping[str, Any], kind: str) -> str:
    """The stream a record belongs to: its episode, its learning, or its kind's stream."""
    if kind == "episode":
        return str(record["id"])
    if kind == "event":
        return str(record["episode"])
    if kind == "learning":
        return str(record["id"])
    return _STREAMS[kind]
