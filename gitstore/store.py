"""The store: the one place that checks records going in and re-checks them coming out.

Providers only keep bytes in order. The store validates every record against its contract
before writing, files it under its stream and namespace, splits event payloads off so they can
be redacted, and re-checks everything a provider returns (canonical form, schema, digest,
scope). It fails closed: a damaged record stops the operation with an IntegrityError naming it.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Any, NamedTuple, cast

import orjson

from gitstore.records.canonical import canonicalize_checked, sha256_digest
from gitstore.records.contracts import (
    CHECKS_VERSION, KINDS, check_storable, checked_record, contracts_dir, stream_of, verify_stored,
)
from gitstore.errors import GitstoreError, IntegrityError, NotAuthorised, Refused
from gitstore import notices
from gitstore.providers import (
    AppendResult, Attestation, AttestingProvider, Batch, BytesMemoryProvider, CausalProvider, Entry, Provider,
    TrustMode, QuarantiningProvider, RedactingProvider, RememberingProvider, Removal, SnapshotProvider, Stored,
    Stream, StreamingProvider, StreamReadingProvider, VerifyReport, require_capabilities,
)
from gitstore.providers._base import Namespace, Problem
from gitstore.providers._known import KnownBytes, content_key
from gitstore.records.authority import is_decision, unvouched, why_bare
from gitstore.scope import admits, formerly, same_scope, spelled_alike

_UNDECIDED = ("learning {id} carries a decision (state {state}): decisions are written by gitstore accept, "
              "reject and retire (and the auto-safe gate), each with its audit entry; not by adding records")

LOCAL_KINDS = frozenset({"envelope", "receipt"})
SHARED_KINDS = frozenset({"grant", "withdrawal", "export", "packet", "import"})
LOCAL_SOURCES = frozenset({"agent-session"})  # evidence only ever kept in the local namespace
POLICY_KINDS = ("grant", "withdrawal", "episode", "event", "learning")
CHECK_PROGRESS = 5000  # records checked between two marks of a provider that remembers checks


class ReadOnly:
    """A block in which the store refuses to append, and how often something tried."""

    __slots__ = ("why", "attempts")

    def __init__(self, why: str, attempts: int = 0) -> None:
        self.why = why
        self.attempts = attempts


_READ_ONLY: ContextVar[ReadOnly | None] = ContextVar("gitstore_read_only", default=None)


@contextmanager
def read_only(why: str) -> Iterator[ReadOnly]:
    """No store appends while the block runs (in this thread or task); ``why`` says who reads,
    for the error a write gets, and the guard counts the attempts."""
    guard = ReadOnly(why)
    token = _READ_ONLY.set(guard)
    try:
        yield guard
    finally:
        _READ_ONLY.reset(token)


def store_order_saw(later: Stored, earlier: Stored) -> bool:
    """``saw`` for one total order of appends (a file, a database): every append saw every
    append before it."""
    return later.append == earlier.append or (earlier.clock, earlier.writer) < (later.clock, later.writer)


class Placement:
    """Where the store keeps each episode and learning (by id): ``local`` or ``shared``.

    A learning is local when any of its versions is. Filled while the store reads, and asked
    again (``refresh``) when an append names an id it has not seen.
    """

    def __init__(self) -> None:
        self.episodes: dict[str, Namespace] = {}
        self.learnings: dict[str, Namespace] = {}

    def note(self, kind: str, stream: str, namespace: Namespace) -> None:
        if kind == "episode":
            self.episodes.setdefault(stream, namespace)
        elif kind == "learning" and self.learnings.get(stream) != "local":
            self.learnings[stream] = namespace

    def refresh(self, provider: Provider) -> None:
        for stored in provider.read(kinds=["episode", "learning"]):
            self.note(stored.kind, stored.stream, stored.namespace)


class Sides:
    """Which namespace the records of one append belong to, worked out one record at a time:
    a mix of personal session records and shared ones is refused at the record that mixes.

    Personal session records are local: envelopes, receipts, agent-session episodes and their
    events. A learning's namespace follows its evidence: it is local when it cites a local
    episode, when an earlier version of it is local, or when it replaces a local learning, so
    no clone ever receives a learning whose evidence (or history) it cannot have; and a
    learning whose audience is ``personal`` (one person's machine or tools) is local too. A grant
    that names only sources kept local (personal sessions) is local: it speaks for this machine's
    sessions alone, which only a grant this clone made serves (``rules.consent``). A promotion
    packet follows its learning: it holds its statement, and what its sessions ran. An export
    record that lists a local learning is local: it names what this machine's memory holds.
    """

    def __init__(self, where: Callable[[str, str], Namespace | None] | None = None) -> None:
        self.count = 0
        self.local = self.shared = False
        self.where = where or (lambda kind, key: None)
        self.episodes: dict[str, Namespace] = {}  # episodes in this append
        self.learnings: dict[str, Namespace] = {}

    def add(self, record: Mapping[str, Any], kind: str) -> None:
        self.count += 1
        side = self._side(record, kind)
        if kind == "episode":
            self.episodes[str(record["id"])] = side or "shared"
        elif kind == "learning" and side is not None:
            self.learnings[str(record["id"])] = side
        if side == "local":
            self.local = True
        elif side == "shared":
            self.shared = True
        if self.local and self.shared:
            raise Refused(
                "one append cannot mix personal session records (local) with shared ones; split it in two"
            )

    def _side(self, record: Mapping[str, Any], kind: str) -> Namespace | None:
        if kind in LOCAL_KINDS or _is_session_episode(record, kind):
            return "local"
        if kind == "packet":  # its statement and citations are the learning's
            return "local" if self._is_local_learning(str(record["learning"])) else "shared"
        if kind == "export":  # the ids of this machine's own learnings stay on it
            return "local" if any(item["kind"] == "learning" and self._is_local_learning(str(item["id"]))
                                  for item in record["items"]) else "shared"
        if kind == "grant" and set(record["sources"]) <= LOCAL_SOURCES:
            return "local"
        if kind in SHARED_KINDS or kind == "episode":
            return "shared"
        if kind == "event":
            return self._episode(str(record["episode"]))
        if kind == "learning":
            return "local" if self._learning_is_local(record) else "shared"
        return None  # audit entries go with the records they concern

    def _episode(self, episode: str) -> Namespace | None:
        return self.episodes.get(episode) or self.where("episode", episode)

    def _learning_is_local(self, record: Mapping[str, Any]) -> bool:
        if record.get("audience") == "personal":  # one person's machine or tools: no teammate's agent gets it
            return True
        cited = [ref["episode"] for ref in [*record["evidence"], *record["counterevidence"]]]
        learnings = [*([str(record["id"])] if record["previous"] else []), *record["replaces"]]
        return any(self._episode(e) == "local" for e in cited) or any(map(self._is_local_learning, learnings))

    def _is_local_learning(self, learning: str) -> bool:
        return (self.learnings.get(learning) or self.where("learning", learning)) == "local"

    def decide(self, requested: Namespace | None) -> Namespace:
        """The append's namespace, given the one the caller asked for (None: as the records say)."""
        if not self.count:
            raise Refused("nothing to append")
        chosen: Namespace = "local" if self.local else "shared"
        if requested is not None and requested != chosen and chosen == "local":
            raise Refused("personal session records stay in the local namespace, and so does a learning "
                          "whose evidence or history is local")
        return requested or chosen


def _is_session_episode(record: Mapping[str, Any], kind: str) -> bool:
    return kind == "episode" and record["source"]["kind"] in LOCAL_SOURCES


@cache
def _contracts_digest() -> str:
    """The contracts records are checked against (their schema files), as a digest."""
    digest = hashlib.sha256()
    for path in sorted(contracts_dir().glob("*.schema.json")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


@cache
def _checks_key() -> str:
    """What a clean policy check means: these kinds under these checks and contracts (their schema
    files)."""
    digest = hashlib.sha256(f"{CHECKS_VERSION} {' '.join(POLICY_KINDS)}".encode())
    for path in sorted(contracts_dir().glob("*.schema.json")):
        digest.update(path.read_bytes())
    return "policy-" + digest.hexdigest()[:16]


_SCHEMAS = {kind: f"gitstore.{kind}/v1" for kind in KINDS}


@cache
def _known_name() -> str:
    """The name the memory of checked bytes is kept under: these checks, these contracts."""
    return "records-" + hashlib.sha256(f"{CHECKS_VERSION} {_contracts_digest()}".encode()).hexdigest()[:16]


def _known(stored: Stored) -> dict[str, Any] | None:
    """Bytes checked before, parsed: the record, if it is the kind and digest the provider
    filed it under (else None, and the full check says what is wrong)."""
    record = orjson.loads(stored.data)
    if type(record) is dict and record.get("digest") == stored.digest and record.get("schema") == _SCHEMAS.get(
            stored.kind):
        return record
    return None


REMEMBER_FROM = 64  # records an append checks before it tells the provider's memories


class _CheckedOnTheWayIn:
    """The records an append checked, told to the provider's memory of checked bytes once the
    append holds ``REMEMBER_FROM`` of them: the next read of a bulk append then checks none of
    them again, while a single append writes no memory file (a read checks it, once)."""

    def __init__(self, open_memory: Callable[[], KnownBytes | None]) -> None:
        self._open = open_memory
        self._keys: list[bytes] | None = []  # until there are enough to tell
        self._memory: KnownBytes | None = None
        self.count = 0

    def add(self, data: bytes) -> None:
        self.count += 1
        if self._memory is not None:
            self._memory.add(content_key(data))
        elif self._keys is not None:
            self._keys.append(content_key(data))
            if len(self._keys) >= REMEMBER_FROM:
                memory = self._memory = self._open()
                for key in self._keys if memory is not None else ():
                    memory.add(key)
                self._keys = None

    @property
    def bulk(self) -> bool:
        return self.count >= REMEMBER_FROM

    def save(self) -> None:
        if self._memory is not None:
            self._memory.save()


class Item(NamedTuple):
    """A record read back from the store, re-checked, with where it sits in the order (a
    named tuple, as ``Stored`` is: one is made for every record read)."""

    record: dict[str, Any]
    stored: Stored

    @property
    def kind(self) -> str:
        return self.stored.kind

    @property
    def digest(self) -> str:
        return self.stored.digest

    def lean(self) -> Item:
        """This item without the stored bytes (checked already), its digest and stream names
        interned (the same strings as its record's own, once a view interns those): what a
        view keeps."""
        stored = self.stored
        if type(stored) is not Stored:
            return self
        return Item(self.record, Stored(sys.intern(stored.digest), stored.kind, sys.intern(stored.stream), b"",
                                        stored.namespace, stored.writer, stored.clock, stored.position,
                                        stored.append))


def texted_threads(events: Iterable[dict[str, Any]]) -> dict[Any, set[Any]]:
    """Source comment id -> the threads (episode ids) where a version of it holds text here."""
    found: dict[Any, set[Any]] = {}
    for event in events:
        if isinstance(event.get("payload"), dict):
            found.setdefault(event["payload"].get("sourceId"), set()).add(event.get("episode"))
    return found


def makes_again(texted: Mapping[Any, set[Any]], source: Any) -> bool:
    """Whether a hint to make again a removal this clone's own note without authority names
    (``source``) is given: only once a version of that comment holds text here (``texted``:
    ``texted_threads``), since ``redact`` removes only versions that name the comment
    themselves and refuses one that only such a note links to it."""
    return bool(texted.get(source)) if isinstance(source, str) else False


class HeldNote(NamedTuple):
    """A redaction note stored without authority here (``Store.held_notes``)."""

    note: dict[str, Any]
    why: str  # why it carries no authority here
    own: bool  # this clone's own records stored it (its removal made before the team's policy)
    writer: str | None  # the writer whose records stored it, as it may be shown (None: a snapshot's)


def _continues(kind: str, record: Mapping[str, Any], scope: str) -> bool:
    """Whether ``record``, of a former scope this repository's default branch declares
    (``admits``), may still be written: a later version of a learning of that scope (a decision
    on it), which keeps its learning's scope as every version does (the learning's id and
    contentDigest cover it), the packet of its promotion, which names its learning's scope (so
    the promotion planned again, by ``promote`` or the promotion gate, is the same packet on
    either side of a rename), and the audit entry of such a step, which names the scope of the
    records it vouches for. Every other record gets the current scope."""
    return kind in ("learning", "audit", "packet") and record["scope"] != str(scope) \
        and admits(scope, record["scope"]) and (kind != "learning" or record.get("previous") is not None)


class Store:
    """Records of one scope kept by one provider."""

    def __init__(self, provider: Provider, scope: str) -> None:
        self.manifest = require_capabilities(provider)
        self.provider = provider
        self.scope = scope
        self.placement = Placement()
        self._policy_checked = False
        self._marks_checked = False  # the provider's marks of checked appends are this handle's
        self._refreshed = False
        self._looked: set[tuple[str, str]] = set()
        self._mode: TrustMode | None = None
        self._attested: dict[str, Attestation] = {}
        if "attest" in self.manifest.capabilities:
            cast(AttestingProvider, provider).judge_notes(self._note_counts)
        if "quarantine" in self.manifest.capabilities:
            cast(QuarantiningProvider, provider).admit_only(scope)

    @property
    def _spelled(self) -> str | None:
        """What a provider finds records of this scope by: its string, or, where records of it
        may spell it otherwise (``same_scope``) or be of a former scope, every scope's, sorted here."""
        return self.scope if spelled_alike(self.scope) and not formerly(self.scope) else None

    # -- writing -------------------------------------------------------------------------------

    def prepare(self, record: Mapping[str, Any]) -> Entry:
        """Validate one record for this store and turn it into a provider entry."""
        record = dict(record)
        kind, fast = checked_record(record)
        if not same_scope(record["scope"], self.scope) and not _continues(kind, record, self.scope):
            raise Refused(
                f"{kind} record {record['digest']} is for scope {record['scope']}, "
                f"this repository is {self.scope}"
            )
        payload = record.pop("payload", None)
        check_storable(record, kind)  # a redaction comes only from a removal's note
        return Entry(
            digest=record["digest"],
            kind=kind,
            scope=record["scope"],
            stream=stream_of(record, kind),
            data=canonicalize_checked(record, fast),
            payload_digest=record.get("payloadDigest"),
            payload=canonicalize_checked(payload, fast) if payload is not None else None,
        )

    def append(
        self,
        records: Iterable[Mapping[str, Any]],
        *,
        namespace: Namespace | None = None,
        if_head: tuple[str, str | None] | None = None,
        removals: Iterable[Removal] = (),
        decided: bool = False,
    ) -> AppendResult:
        """Append records (and the audit entries among them) as one atomic write.

        ``records`` may be a generator: with a provider that offers ``append-stream`` each
        record is checked and handed on as it arrives, so no record's bytes are held once
        written; what the append keeps of each until it commits (its digest, its object ids,
        its place in the tree) still grows memory by about 2 KB a record. A record refused
        part way stores nothing.

        Refuses (exit 3, naming the record) while a policy record is damaged, as reads do.
        ``removals`` remove payloads in the same append (their audit entries are among
        ``records``). ``decided`` says the caller is the operation that checked the decisions
        among the records (accept, reject, retire, the auto-safe gate): without it a decision is
        refused, and with it each one needs the audit entry that vouches for it in the append.
        """
        guard = _READ_ONLY.get()
        if guard is not None:
            guard.attempts += 1
            raise Refused(f"the store is read-only while {guard.why}; nothing was written")
        self.check_policy()
        removals = tuple(removals)
        if len({r.payload_digest for r in removals}) != len(removals):  # readers take such an append for damage
            raise Refused("an append removes one payload twice: list each payload once; nothing was written")
        self._refreshed, self._looked = False, set()
        sides = Sides(self._where)
        written: list[tuple[str, str]] = []  # (kind, stream) of each record
        vouching: list[Mapping[str, Any]] = []  # decisions and audit entries
        authorities: list[dict[str, Any]] = []  # decisions, grants, withdrawals
        proposers: set[str] = set()  # the people named as writing a proposal by hand
        checked = _CheckedOnTheWayIn(self._memory)

        def entries() -> Iterator[Entry]:
            for record in records:
                entry = self.prepare(record)
                checked.add(entry.data)
                sides.add(record, entry.kind)
                if is_decision(record) or entry.kind == "audit":
                    if entry.kind != "audit" and not decided:
                        raise Refused(_UNDECIDED.format(id=record["id"], state=record["state"]))
                    vouching.append(record)
                if is_decision(record) or entry.kind in ("grant", "withdrawal"):
                    authorities.append(dict(record))
                if entry.kind == "learning" and record.get("state") == "proposed" \
                        and record.get("proposer", {}).get("kind") == "person":
                    proposers.add(str(record["proposer"]["id"]))
                if entry.kind in ("episode", "learning"):
                    written.append((entry.kind, entry.stream))
                yield entry

        def authority() -> bool:
            return (self._authorize(sides.decide(namespace), authorities, removals)
                    or self._signs_proposal(sides.decide(namespace), proposers))

        if if_head is None and not removals and not decided and "append-stream" in self.manifest.capabilities:
            stream = Stream(entries(), lambda: sides.decide(namespace), authority)
            result = cast(StreamingProvider, self.provider).append_stream(stream)
        else:
            prepared = tuple(entries())
            bare = unvouched(vouching)
            if bare:
                raise Refused(f"{why_bare(bare[0])}: refused")
            batch = Batch(sides.decide(namespace), prepared, removals, authority())
            if if_head is not None:
                result = self.provider.append_if_head(batch, if_head[0], if_head[1])
            else:
                result = self.provider.append(batch)
        chosen = sides.decide(namespace)
        for kind, name in written:
            self.placement.note(kind, name, chosen)
        checked.save()
        if self._marks_checked and checked.bulk:  # the next write's check skips them
            cast(RememberingProvider, self.provider).checked_appends(_checks_key())
        return result  # type: ignore[no-any-return]

    # -- trust ---------------------------------------------------------------------------------

    def trust_mode(self) -> TrustMode:
        """Who may decide here: single-user, a policy, or a policy that cannot be used."""
        if self._mode is None:
            attesting = "attest" in self.manifest.capabilities
            self._mode = cast(AttestingProvider, self.provider).trust_mode() if attesting else TrustMode()
        return self._mode

    def attestation(self, append: str) -> Attestation:
        """Who made an append: a provider without ``attest`` holds only this clone's own."""
        found = self._attested.get(append)
        if found is None:
            if "attest" in self.manifest.capabilities:
                found = cast(AttestingProvider, self.provider).attest(append)
            else:
                found = Attestation(append, own=True)
            self._attested[append] = found
        return found

    def copies(self, item: Item) -> list[Item]:
        """``item`` as other appends stored it too, in store order (after the one it was read
        from): a provider that can hold one record in several appends says where a read met
        it again (git: ``GitProvider.copies``), for decisions and what vouches for them."""
        found = getattr(self.provider, "copies", None)
        return [] if found is None else [Item(item.record, stored) for stored in found(item.digest)
                                         if stored.append != item.stored.append]

    def own(self, item: Item) -> bool:
        """Whether this clone made a record: it is kept in the local namespace, or an append of
        this clone's own holds it (``Store.attestation``; a copy of it counts too)."""
        return any(held.stored.namespace == "local" or self.attestation(held.stored.append).own
                   for held in (item, *self.copies(item)))

    def authority_problem(self, item: Item, extends: bool = False) -> str | None:
        """Why a decision, grant or withdrawal read back carries no authority (None: it counts;
        see ``gitstore.rules.trust``). ``extends``: a version that only adds ``supersedes``."""
        from gitstore.rules.trust import record_problem

        return record_problem(self.trust_mode(), self.attestation, item.record, item.stored.namespace,
                              item.stored.append, extends)

    def may_decide(self, item: Item, person: str) -> bool:
        """Whether ``person`` may decide (accept or reject) by an append holding ``item``, the
        one it was read from or a copy (see ``gitstore.rules.trust.may_decide``)."""
        from gitstore.rules.trust import may_decide

        def by(held: Item) -> bool:
            return may_decide(self.trust_mode(), self.attestation(held.stored.append), held.stored.namespace, person)

        return by(item) or any(by(copy) for copy in self.copies(item))

    def removal_note(self, payload_digest: str, namespace: Namespace) -> bytes | None:
        """The note that removed a payload from ``namespace``'s memory, or None. A provider
        holding other clones' appends (``attest``) keeps the namespaces' payloads apart, so a
        personal removal there leaves shared memory its text; any other keeps one copy of each
        payload, which any removal takes."""
        if "attest" in self.manifest.capabilities:
            return cast(AttestingProvider, self.provider).redaction_note(payload_digest, namespace)
        return cast(RedactingProvider, self.provider).redaction_note(payload_digest)

    def _note_counts(self, payload_digest: str, note: bytes, append: str | None) -> bool:
        """Whether a redaction note is honoured: its removal carries authority."""
        from gitstore.records.canonical import parse_json
        from gitstore.rules.trust import note_problem

        try:
            parsed = parse_json(note, allow_floats=False)
        except GitstoreError:
            return False  # verify names it
        attestation = None if append is None else self.attestation(append)
        return isinstance(parsed, dict) and note_problem(self.trust_mode(), attestation, parsed) is None

    def signing_as(self) -> list[str]:
        """The people this clone's appends are signed as under the policy in force (none
        without a policy, or when it cannot sign)."""
        if "attest" not in self.manifest.capabilities or self.trust_mode().mode != "policy":
            return []
        return [who for who, _ in cast(AttestingProvider, self.provider).signing_as()[0]]

    def ignored_notes(self) -> list[Problem]:
        """Redaction notes stored without authority: their payloads are not treated as removed.
        Each is named once (a note kept in this writer's tip and in the copy of it sync fetched
        is one removal), and not at all once another note honoured here removes its payload."""
        from gitstore.rules.trust import NO_AUTHORITY

        found, seen = [], set()
        texted: list[dict[Any, set[Any]]] = []  # the threads holding text of each comment, read once if asked
        for payload_digest, note, append, parsed, why in self._unhonoured_notes():
            if (payload_digest, note, append) in seen:
                continue
            seen.add((payload_digest, note, append))
            found.append(Problem(f"redaction note {payload_digest}", f"{NO_AUTHORITY}"
                                 f"{why or 'is not a redaction object'}; the payload is not treated as removed"
                                 f"{self._again(payload_digest, parsed, append, texted)}"))
        return found

    def _again(self, digest: str, note: Any, append: str | None, texted: list[dict[Any, set[Any]]]) -> str:
        """For a note this clone's own records hold without authority: the comment it names and,
        once a version of it holds text here (``makes_again``, as evidence and
        show judge it: before then ``redact`` would refuse), the ``redact`` that makes a removal
        made before the team's policy again (it removes the versions of the comment holding
        text here, one imported since, and from then on imports withhold it). Never the note's
        ``by`` or ``reason``, nor as a removal that happened: a writer's history a runner took
        up as its own (``init --writer``) may hold anyone's note. Nothing for another writer's
        note (what it names is only a claim), nor while a version of the comment it names holds
        text here in a thread other than its own event's."""
        if append is None or not self.attestation(append).own or not isinstance(note, dict):
            return ""
        source = note.get("sourceId")
        if not isinstance(source, str):
            return ""
        if not texted:
            events = [item.record for item in self.items(["event"], payloads=True)]
            texted.extend((texted_threads(events), {}))
            for event in events:
                texted[1].setdefault(event.get("payloadDigest"), set()).add(event.get("episode"))
        if not texted[0].get(source, set()) <= texted[1].get(digest, set()):
            return ""  # text of that comment in another thread: never removed on this note's word
        import shlex

        from gitstore._shown import one_line, shown
        from gitstore.safety.scanner import default_scanner

        result = default_scanner().scan(source)  # anyone who can push wrote it
        if result.quarantined:
            return "; it names a comment whose id the safety scanner withholds: nothing was removed by it"
        named = one_line(shown(result.text))
        again = (f"; if it is a removal you made before the team's policy, make it again with "
                 f"`gitstore redact --comment {shlex.quote(named)} --reason ...`" if makes_again(texted[0], source) else "")
        return f"; it names comment {named}: nothing was removed by it{again}"

    def comment_threads(self) -> dict[Any, set[Any]]:
        """``texted_threads`` of the review threads' events (agent sessions', most of a store,
        hold no comment and are not read)."""
        threads = [item.record["id"] for item in self.items(["episode"])
                   if isinstance(item.record.get("source"), dict) and item.record["source"].get("kind") == "review-thread"]
        if not threads:
            return {}
        return texted_threads(item.record for item in self.items(["event"], streams=threads, payloads=True))

    def held_notes(self) -> dict[str, HeldNote]:
        """Payload digest -> the redaction note stored for it without authority here (``HeldNote``:
        the note, why it has none, whether this clone's own records stored it, and the writer
        whose records did), where no note honoured here removes it. Such a note removes
        nothing: the payload is not treated as removed, and what the note names
        (``sourceId``) is only a claim anyone who can push may make, for any comment. The
        payload may be gone from this clone all the same (its writer's snapshot dropped it):
        the claim tells a reader which comment an event with no text here once held, and lets
        ``redact`` make a removal count again, with authority."""
        from gitstore.providers._names import shown_writer

        found: dict[str, HeldNote] = {}
        for payload_digest, _, append, parsed, why in self._unhonoured_notes():
            if payload_digest in found or not isinstance(parsed, dict):
                continue
            attestation = None if append is None else self.attestation(append)
            where = "" if attestation is None else attestation.where
            writer = shown_writer(where.rsplit("/", 1)[-1], cut=True) if where else None
            found[payload_digest] = HeldNote(parsed, why or "it is not honoured here",
                                             attestation is not None and attestation.own, writer)
        return found

    def _unhonoured_notes(self) -> Iterator[tuple[str, bytes, str | None, Any, str | None]]:
        """Each redaction note stored that carries no authority here, for a payload no note
        honoured here removes: (payload digest, note, the append that stored it, the note parsed
        (None: unreadable), why it carries none (None: the rules name nothing))."""
        if "attest" not in self.manifest.capabilities:
            return
        from gitstore.records.canonical import parse_json
        from gitstore.rules.trust import note_problem

        provider = cast(AttestingProvider, self.provider)
        honoured: set[str] | None = None
        for payload_digest, note, append in provider.notes():
            if self._note_counts(payload_digest, note, append):
                continue
            if honoured is None:
                honoured = provider.noted()
            if payload_digest in honoured:
                continue
            try:
                parsed = parse_json(note, allow_floats=False)
            except GitstoreError:
                yield payload_digest, note, append, None, None
                continue
            yield (payload_digest, note, append, parsed,
                   note_problem(self.trust_mode(), None if append is None else self.attestation(append), parsed))

    def _authorize(self, namespace: Namespace, authorities: list[dict[str, Any]],
                   removals: tuple[Removal, ...]) -> bool:
        """Whether an append carries authority (then a provider that signs appends signs it),
        refusing, before anything is written, one the policy would never let count."""
        if not authorities and not removals:
            return False
        if namespace == "shared" and "attest" in self.manifest.capabilities:
            from gitstore.records.canonical import parse_json
            from gitstore.rules.trust import refusal

            who, hint = cast(AttestingProvider, self.provider).signing_as()
            notes = [parse_json(r.note, allow_floats=False) for r in removals]
            problem = refusal(self.trust_mode(), who, hint, authorities, notes, self._extends)
            if problem is not None:
                raise NotAuthorised(problem)
        return True

    def _signs_proposal(self, namespace: Namespace, proposers: set[str]) -> bool:
        """Whether an append holding a proposal written by hand is signed: under a policy, when
        this clone signs as the person it names as proposer. Anyone may propose, signed or not;
        signed, the proposal is that person's word on its theme, which a dream takes as settling
        it (``gitstore.rules.trust.may_decide``)."""
        if namespace != "shared" or "attest" not in self.manifest.capabilities or self.trust_mode().mode != "policy":
            return False
        if not proposers:
            return False
        who, _ = cast(AttestingProvider, self.provider).signing_as()
        return any(person in proposers for person, _ in who)

    def _extends(self, record: dict[str, Any]) -> bool:
        """Whether a learning version only adds ``supersedes`` to an accepted version."""
        if record.get("state") != "accepted" or not record.get("supersedes") or not record.get("previous"):
            return False
        return any(i.digest == record["previous"] and i.record["state"] == "accepted"
                   for i in self.stream(str(record["id"])))

    def _memory(self) -> KnownBytes | None:
        """The provider's memory of checked bytes (``remember-bytes``), as of now."""
        if "remember-bytes" not in self.manifest.capabilities:
            return None
        return cast(BytesMemoryProvider, self.provider).known_bytes(_known_name())

    def kept_local(self, record: Mapping[str, Any]) -> bool:
        """Whether an append would keep this learning version in the local namespace (see ``Sides``)."""
        self._refreshed, self._looked = False, set()
        return Sides(self._where)._side(record, "learning") == "local"

    def is_local_learning(self, learning_id: str) -> bool:
        """Whether any version of this learning is kept in the local namespace."""
        self._refreshed, self._looked = False, set()
        return self._where("learning", learning_id) == "local"

    def _where(self, kind: str, key: str) -> Namespace | None:
        """Where an episode or learning is kept, asking the provider again for one not seen:
        for its own stream alone when the provider reads streams (a decision on one learning
        reads where that learning and the episodes it cites are kept, not every one stored),
        else for every episode and learning once per append."""
        table = self.placement.episodes if kind == "episode" else self.placement.learnings
        if key in table:
            return table[key]
        if "read-streams" in self.manifest.capabilities:
            if (kind, key) not in self._looked:  # once per append
                self._looked.add((kind, key))
                for stored in cast(StreamReadingProvider, self.provider).read_streams([key], kinds=[kind]):
                    self.placement.note(stored.kind, stored.stream, stored.namespace)
        elif not self._refreshed:  # once per append
            self._refreshed = True
            self.placement.refresh(self.provider)
        table = self.placement.episodes if kind == "episode" else self.placement.learnings
        return table.get(key)

    def check_policy(self) -> None:
        """Refuse (IntegrityError naming the record) while a grant, withdrawal, episode, event
        or learning is damaged. Once per store handle: a handle that has read every record
        already (loading a view does) checks nothing more, and what it appends itself was
        checked on the way in. A provider that remembers checks (``remember-checks``) hands
        over only what arrived since the last clean check, so a write on a big store stays
        cheap."""
        if self._policy_checked:
            return
        if "remember-checks" not in self.manifest.capabilities:
            for _ in self.items(POLICY_KINDS):
                pass
            return
        fresh, done = cast(RememberingProvider, self.provider).read_unchecked(POLICY_KINDS, _checks_key())
        memory = self._memory()
        try:
            for count, stored in enumerate(fresh, 1):
                self._check(stored, memory)
                if count % CHECK_PROGRESS == 0:
                    done()  # a check cut short (a hook's time limit) resumes from here
        finally:
            if memory is not None:
                memory.save()
        done()
        self._policy_checked = self._marks_checked = True

    # -- reading -------------------------------------------------------------------------------

    def items(self, kinds: Iterable[str] | None = None, *, payloads: bool = False,
              streams: Collection[str] | None = None, digests: Collection[str] | None = None,
              appends: Collection[str] | None = None) -> Iterator[Item]:
        """Every record of this scope in store order, re-checked; fails closed on damage.

        ``kinds`` and ``streams`` keep only those kinds and streams (records of other streams
        are not checked, so a read costs what its answer needs); ``digests`` keeps only records
        with one of these digests (a second pass over streams read before, for some of their
        records: with ``streams``, the others are not read at all); ``appends`` (with
        ``streams``) only records one of these appends holds, where it was read from or as a
        copy (``copies``), each read from where a read of everything would (the audit entries
        of the appends that stored a learning's decisions)."""
        wanted = None if kinds is None else list(kinds)
        # Payloads come from one snapshot, taken at the first event: the records' heads are read
        # by then, and an append moves its payloads before its records, so the snapshot holds
        # every payload the records read here cite, even when an append lands meanwhile.
        fetch: Callable[[str], bytes | None] | None = None
        placement = Placement()
        held: Callable[[Stored], bool] | None = None
        if streams is not None and "read-streams" in self.manifest.capabilities:
            found = cast(StreamReadingProvider, self.provider).read_streams(streams, self._spelled, wanted, digests,
                                                                            appends)
        else:
            found = self.provider.read(self._spelled, wanted)
            if appends is not None:
                chosen = set(appends)

                def held(stored: Stored) -> bool:
                    return stored.append in chosen or any(
                        copy.stored.append in chosen for copy in self.copies(Item({}, stored)))
        memory = self._memory()
        try:
            for stored in found:
                if ((streams is not None and stored.stream not in streams)
                        or (digests is not None and stored.digest not in digests)
                        or (held is not None and not held(stored))):
                    continue
                item = self._check(stored, memory)
                if item is None:
                    continue
                placement.note(stored.kind, stored.stream, stored.namespace)
                if payloads and item.kind == "event":
                    if fetch is None:
                        fetch = self._payload_fetch()
                    self._attach_payload(item.record, fetch)
                yield item
        finally:
            if memory is not None:
                memory.save()
        for problem in self.left_out():
            notices.note(str(problem))
        if streams is not None or digests is not None or appends is not None:
            return  # only some records were read: nothing is known of the others
        if wanted is None or set(POLICY_KINDS) <= set(wanted):
            self._policy_checked = True  # every policy record was read and found sound
        if wanted is None or {"episode", "learning"} <= set(wanted):
            self.placement = placement

    def saw(self, later: Stored, earlier: Stored) -> bool:
        """Whether the append that stored ``later`` was made having seen the one that stored
        ``earlier``: asked of a provider that keeps causal order (git: parents and ``Seen``
        headers), else store order, in which every append saw every earlier one."""
        if later.append == earlier.append:
            return True
        if "causal-order" in self.manifest.capabilities:
            return cast(CausalProvider, self.provider).saw(later.append, earlier.append)
        return store_order_saw(later, earlier)

    def admit(self) -> None:
        """Settle what a plain ``git fetch`` brought as the first read would (another clone's
        records verified and admitted, its payload snapshots judged), without reading records.
        Admitting moves refs of memory: a reader keyed to them (recall's index) admits first,
        then reads the key, then the records, so the key is that of the state it read."""
        if "quarantine" in self.manifest.capabilities:
            provider = cast(QuarantiningProvider, self.provider)
            provider.admit()
            provider.quarantined()  # judges the payload snapshots

    def left_out(self) -> list[Problem]:
        """What reads left out and why: another clone's writer ref whose history fails
        verification is quarantined whole instead of failing every read."""
        if "quarantine" not in self.manifest.capabilities:
            return []
        return cast(QuarantiningProvider, self.provider).quarantined()

    def cut_short(self) -> Problem | None:
        """The first history reads left out because a fetch with ``--depth`` cut it short
        (``gitstore.providers._shallow``), or None. Read from what is left, another writer's
        retirement or withdrawal may be missing: whatever judges which learnings are in force
        refuses to until ``gitstore sync`` has made the history whole. A history sync tried to
        deepen and could not is left out as any refusal is, and blocks nothing (``unmended``)."""
        from gitstore.providers._shallow import SHALLOW_NOTE

        return next((problem for problem in self.left_out() if SHALLOW_NOTE in problem.message), None)

    def attach_payloads(self, events: Iterable[dict[str, Any]]) -> None:
        """Give events read without payloads their payload (or redaction note), as
        ``items(payloads=True)`` would, from one snapshot of the payloads, looked up one by one
        (the events the caller picked: the reader indexes every payload only when that would
        cost less, so memory holds the payloads asked for, not an index of the store)."""
        fetch = self._payload_fetch(selective=True)
        for record in events:
            if "payload" not in record and "redaction" not in record:
                self._attach_payload(record, fetch)

    def _payload_fetch(self, *, selective: bool = False) -> Callable[[str], bytes | None]:
        """How to read payloads for one pass: from one snapshot when the provider offers it
        (``selective``: payloads the caller picked, not every one)."""
        if "payload-snapshot" in self.manifest.capabilities:
            return cast(SnapshotProvider, self.provider).payload_reader(selective=selective)
        return self.provider.payload

    def claimants(self, learnings: Collection[str]) -> set[str]:
        """The learnings a stored version of which names one of ``learnings`` in ``replaces``
        or ``supersedes`` (the only ones whose claims can take them), and maybe others: a
        provider that can tell from what each append stores (git: ``GitProvider.claimants``)
        says without a read of every learning; else every learning is read. A read of their
        streams (``items``) checks what it finds, as any read does."""
        wanted = set(learnings)
        if not wanted:
            return set()
        found = getattr(self.provider, "claimants", None)
        if found is not None:
            return set(found(wanted))
        return {item.record["id"] for item in self.items(["learning"])
                if not wanted.isdisjoint([*item.record["replaces"], *item.record.get("supersedes", ())])}

    def stream(self, stream: str) -> Iterator[Item]:
        """One stream's records in store order, re-checked."""
        memory = self._memory()
        try:
            for stored in self.provider.read_stream(stream):
                item = self._check(stored, memory)
                if item is not None:
                    yield item
        finally:
            if memory is not None:
                memory.save()

    def get(self, digest: str, *, payloads: bool = True) -> Item | None:
        """One record by digest (or unique digest prefix of at least 8 hex digits)."""
        needle = digest if digest.startswith("sha256:") else "sha256:" + digest
        matches = [i for i in self.items(payloads=payloads) if i.digest.startswith(needle)]
        if len(matches) > 1:
            raise Refused(f"digest prefix {digest} matches {len(matches)} records; give more digits")
        return matches[0] if matches else None

    def _check(self, stored: Stored, memory: KnownBytes | None = None) -> Item | None:
        """The record a provider returned, checked in full, or only parsed when ``memory``
        knows its bytes (by their SHA-256, so bytes that changed are checked in full)."""
        record = None
        if memory is not None:
            key = content_key(stored.data)
            if key in memory:
                record = _known(stored)
        if record is None:
            try:
                record = verify_stored(stored.data, stored.digest, stored.kind)
            except GitstoreError as exc:
                raise IntegrityError(
                    f"stored {stored.kind} record {stored.digest} is damaged ({exc}); run `gitstore verify`"
                ) from None
            if memory is not None:
                memory.add(key)
        if stored.stream != stream_of(record, stored.kind):  # it would be missing from its stream's reads
            raise IntegrityError(f"stored {stored.kind} record {stored.digest} is filed under stream "
                                 f"{stored.stream}, but it belongs to {stream_of(record, stored.kind)}; "
                                 "run `gitstore verify`")
        if not admits(self.scope, record["scope"]):  # another repository's, or a former scope not declared
            return None
        return Item(record, stored)

    def _attach_payload(self, record: dict[str, Any],
                        fetch: Callable[[str], bytes | None] | None = None) -> None:
        """Give an event read back its payload or, once the payload was removed, the note its
        removal kept: the only source of ``redaction`` (the provider hands over only notes the
        store's rule honours, see ``judge_notes``; stored event bytes hold neither)."""
        data = (fetch or self.provider.payload)(record["payloadDigest"])
        if data is None:
            note = None
            if "redact-payload" in self.manifest.capabilities:
                note = cast(RedactingProvider, self.provider).redaction_note(record["payloadDigest"])
            if note is not None:
                from gitstore.records.canonical import parse_json

                record["redaction"] = parse_json(note, allow_floats=False)
            return
        if sha256_digest(data) != record["payloadDigest"]:
            raise IntegrityError(f"payload of event {record['id']} does not match its payloadDigest")
        from gitstore.records.canonical import parse_json

        record["payload"] = parse_json(data, allow_floats=False)

    # -- integrity -----------------------------------------------------------------------------

    def verify(self) -> VerifyReport:
        """The provider's verification; the store re-reads everything itself when the provider
        reports that it checked no records (a provider's verify should check each one)."""
        report = self.provider.verify()
        if report.records:
            return report
        seen = 0
        try:
            for stored in self.provider.read():
                seen += 1
                try:
                    verify_stored(stored.data, stored.digest, stored.kind)
                except GitstoreError as exc:
                    problem = Problem(f"{stored.kind} {stored.digest}", str(exc))
                    if all(str(p) != str(problem) for p in report.problems):
                        report.problems.append(problem)
        except GitstoreError as exc:
            report.problems.append(Problem("store", str(exc)))
        report.records = max(report.records, seen)
        return report
