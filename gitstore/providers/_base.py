"""The provider contract: what a storage backend must do, and the values it exchanges.

A provider stores canonical record bytes and hands them back in one total order. It enforces
no rule of consent, scope or lifecycle: the store does, and re-checks everything a provider
returns. See ``okf/wiki/store.md`` for the order rule and each provider's layout.

The values exchanged are named tuples where they are plain immutable fields, and the reports
``gc`` and ``verify`` fill in are slotted classes: every command and every capture imports this
module (a dataclass costs 0.2-0.6 ms to create, its methods compiled; a named tuple a fifth of
that) and a bulk append or a read makes one per record (a frozen dataclass sets each field
through ``object.__setattr__``: four times a tuple's cost). A batch, which checks its namespace
when it is made, stays a dataclass.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple, Protocol, runtime_checkable

from gitstore._shown import one_line
from gitstore.providers._names import shown_where

if TYPE_CHECKING:
    from gitstore.providers._known import KnownBytes

Namespace = Literal["local", "shared"]
NAMESPACES: tuple[Namespace, ...] = ("local", "shared")

REQUIRED_CAPABILITIES = frozenset({
    "append",          # records, in one stream or several, with their audit entries, atomically
    "read",            # everything in store order, filtered by scope and kind
    "read-stream",     # one stream in store order
    "head",            # the last record of a stream
    "append-if-head",  # compare-and-swap append on a stream's head (learning versions)
    "payload",         # an event payload by its digest
    "verify",          # re-read everything stored and report damage
})
# Each optional capability a manifest declares promises the methods of one Protocol below; the
# store checks the manifest, never probes for a method.
OPTIONAL_CAPABILITIES = frozenset({
    "redact-payload",    # RedactingProvider: Batch.removals, redaction_note
    "append-stream",     # StreamingProvider: append_stream
    "payload-snapshot",  # SnapshotProvider: payload_reader
    "read-streams",      # StreamReadingProvider: read_streams
    "pause-writes",      # PausingProvider: paused
    "gc",                # CollectingProvider: gc
    "remember-checks",   # RememberingProvider: read_unchecked
    "quarantine",        # QuarantiningProvider: quarantined, admit, admit_only
    "causal-order",      # CausalProvider: saw
    "attest",            # AttestingProvider: trust_mode, attest, judge_notes, notes, noted, own_note
    "remember-bytes",    # BytesMemoryProvider: known_bytes
    "search-lexical",    # (reserved)
})
CONTRACT_VERSIONS = ("gitstore.provider/v1",)


class Manifest(NamedTuple):
    """What a provider declares about itself."""

    name: str
    contracts: tuple[str, ...]
    capabilities: frozenset[str]
    storage: str
    sends_to: tuple[str, ...] = ()


class Entry(NamedTuple):
    """One record to append: canonical bytes plus what the provider files it under.

    ``data`` is the record's canonical form without its payload; ``payload`` is the canonical
    payload (events only), stored apart so it can be redacted.
    """

    digest: str
    kind: str
    scope: str
    stream: str
    data: bytes
    payload_digest: str | None = None
    payload: bytes | None = None


class Removal(NamedTuple):
    """A payload to remove in an append, and the redaction note kept in its place: the
    canonical JSON of the event's redaction object (at, by, reason, sourceId)."""

    payload_digest: str
    note: bytes


@dataclass(frozen=True)
class Batch:
    """One atomic append: records and the audit entries that record the change.

    ``removals`` (providers with ``redact-payload``) remove payloads in the same append: the
    audit entries of the removals are among ``entries``, so a removal is never kept without
    the entry that says who removed what and why.

    ``authority`` says the append carries decisions, grants, withdrawals or removals: a
    provider that signs appends (git, under a policy) signs this one; others ignore it.
    """

    namespace: Namespace
    entries: tuple[Entry, ...]
    removals: tuple[Removal, ...] = ()
    authority: bool = False  # it carries decisions, grants, withdrawals or removals: sign it

    def __post_init__(self) -> None:
        if self.namespace not in NAMESPACES:
            raise ValueError(f"unknown namespace {self.namespace!r}")


class Stream(NamedTuple):
    """One atomic append whose entries arrive one at a time (a bulk import).

    ``entries`` may be a generator that prepares each entry as it is asked for, and may raise
    part way (a record refused): then nothing is appended. ``namespace`` is called once, after
    the last entry; it may raise too (nothing arrived, or a mix of namespaces).
    """

    entries: Iterable[Entry]
    namespace: Callable[[], Namespace]
    authority: Callable[[], bool] = lambda: False  # asked after the last entry, like namespace


class Stored(NamedTuple):
    """A record as a provider returns it, with its place in the store order.

    ``append`` names the append that stored it: the same text for every record one append
    stored, different for records of different appends, on every handle and every clone
    (git: the records commit; the others: ``<writer>@<clock>``). The store's rules use it to
    see what was written together (a decision and its audit entry).
    """

    digest: str
    kind: str
    stream: str
    data: bytes
    namespace: Namespace
    writer: str
    clock: int
    position: int
    append: str

    @property
    def order(self) -> tuple[int, str, int]:
        return (self.clock, self.writer, self.position)


class TrustMode(NamedTuple):
    """Who may decide in this store: ``single-user`` (no policy: only this clone's own
    decisions count), ``policy`` (only signed decisions by people the policy allows), or
    ``broken`` (a policy that cannot be used: no decision counts until it is fixed)."""

    mode: str = "single-user"
    revision: str | None = None  # the policy revision: the default branch's tip it was read from
    branch: str | None = None  # the default branch it was read from
    problem: str | None = None


# Why an append carries no authority, when that is no sign of tampering: it was made without a
# signature (before the policy, or by someone not signing), or with a key the policy does not list
# or no longer lists, or one git signs with that is no SSH key. A signature that does not verify
# for the key it names is not among them: it is what a forgery looks like.
UNSIGNED = "is not signed (made before the policy, or without signing): it counts once made again, signed"
NO_LONGER_LISTED = "is signed with a key the current policy no longer lists for"
NOT_LISTED = "carries no valid signature: signed by a key the policy does not list"
NOT_SSH = "carries no valid signature: not an SSH signature"
# an append naming no policy revision (made where none was in force) whose key made its signature,
# at a time the policy's line for that key does not let it sign (a valid-after set when it came)
OUTSIDE_VALIDITY = "names no policy revision and is signed by its key at a time the policy's line for it does not allow"
_NO_AUTHORITY_ONLY = (UNSIGNED, NO_LONGER_LISTED, NOT_LISTED, NOT_SSH, OUTSIDE_VALIDITY)


class Attestation(NamedTuple):
    """What is known of who made one append: whether this clone made it (``own``: it is in
    this clone's own storage, not fetched from another clone), where it was read, and, under
    a policy, each person whose signature on it verified with the actions the policy lets
    them take (``signers``), or why none counts (``problem``)."""

    append: str
    own: bool
    where: str = ""
    signers: tuple[tuple[str, frozenset[str]], ...] = ()
    problem: str | None = None
    namespace: str = "shared"
    # the append names no policy revision: made where no policy was in force (a clone alone signs
    # when git signs every commit) or by hand; it claims nothing under the policy, so a signature
    # that verifies for someone else than the person a record names leaves it not counted, not damaged
    outside_policy: bool = False

    def actions(self, person: str) -> frozenset[str] | None:
        """What ``person`` may do by this append's signature (None: it is not theirs)."""
        return next((actions for who, actions in self.signers if who == person), None)

    @property
    def unauthorized_only(self) -> bool:
        """Whether its ``problem`` only says the append carries no authority under the policy
        (unsigned, or a key the policy does not list): no forgery, and nothing damaged."""
        return self.problem is not None and self.problem.startswith(_NO_AUTHORITY_ONLY)


class AppendResult(NamedTuple):
    """What an append stored: digests added now and digests that were already there."""

    added: tuple[str, ...] = ()
    existing: tuple[str, ...] = ()


class GcReport:
    """What a provider's ``gc`` erased: ``payloads``, removed ones and ones no stored record
    names, and ``objects``, other storage units (git objects, temporary files). ``alternates``:
    object folders of other repositories the store reads objects from (a clone made with
    ``git clone --shared``), where gc erases nothing, so removed text may still be there."""

    __slots__ = ("payloads", "objects", "alternates")

    def __init__(self, payloads: int = 0, objects: int = 0, alternates: Sequence[str] = ()) -> None:
        self.payloads = payloads
        self.objects = objects
        self.alternates = list(alternates)

    def __str__(self) -> str:
        erased = (f"erased {self.payloads} payload(s) no stored record needs and {self.objects} "
                  f"storage object(s) memory let go of")
        if not self.alternates:
            return erased
        return (f"{erased}; objects are also read from {', '.join(self.alternates)} (git alternates), "
                "where gc erases nothing: removed text may still be there, and must be erased in the "
                "repository that owns them")


class Problem(NamedTuple):
    """One integrity problem found by ``verify``. Shown on one line: it may quote a name from a
    pushed tree, where whoever can push could put line breaks that print lines of their own
    (a forged "0 problems") wherever problems are shown. A ref's name in it, which whoever
    pushed the ref chose, is shown escaped and cut (``shown_where``) on a line and in JSON alike:
    a program reading JSON passes it on to whoever reads."""

    where: str
    message: str

    def __str__(self) -> str:
        where, message = shown_where(self.where, self.message)
        return one_line(f"{where}: {message}")

    def to_json(self) -> dict[str, str]:
        where, message = shown_where(self.where, self.message)
        return {"where": where, "message": message}


class VerifyReport:
    """The outcome of a provider's verify pass. ``notices`` name what is never used but is no
    damage (another clone's decisions in a repository without a policy, a redaction note an
    older version kept in its payload snapshot): they do not make it fail."""

    __slots__ = ("records", "refs", "problems", "notices")

    def __init__(self, records: int = 0, refs: int = 0, problems: list[Problem] | None = None,
                 notices: list[Problem] | None = None) -> None:
        self.records = records
        self.refs = refs
        self.problems: list[Problem] = [] if problems is None else problems
        self.notices: list[Problem] = [] if notices is None else notices

    def __repr__(self) -> str:
        return (f"VerifyReport(records={self.records}, refs={self.refs}, problems={self.problems!r}, "
                f"notices={self.notices!r})")

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, object]:
        return {"ok": self.ok, "records": self.records, "refs": self.refs,
                "problems": [p.to_json() for p in self.problems], "notices": [p.to_json() for p in self.notices]}


@runtime_checkable
class Provider(Protocol):
    """The storage contract every provider satisfies (see gitstore.conformance)."""

    def manifest(self) -> Manifest:
        """Contract versions, capabilities, storage kind, hosts it sends data to."""

    def append(self, batch: Batch) -> AppendResult:
        """Store every entry of the batch, all or nothing; entries already stored add nothing."""

    def append_if_head(self, batch: Batch, stream: str, expected: str | None) -> AppendResult:
        """Append only if ``stream``'s last record is ``expected`` (None: the stream is empty).

        Raises ``ConflictError`` naming the stream when the head differs.
        """

    def read(self, scope: str | None = None, kinds: Iterable[str] | None = None) -> Iterator[Stored]:
        """Every record in store order, optionally only one scope's and some kinds'."""

    def read_stream(self, stream: str) -> Iterator[Stored]:
        """One stream's records in store order."""

    def head(self, stream: str) -> str | None:
        """The digest of a stream's last record, or None."""

    def payload(self, payload_digest: str) -> bytes | None:
        """The canonical payload with that digest, or None when absent or redacted."""

    def verify(self) -> VerifyReport:
        """Re-read everything stored and report damage (never repairs)."""


@runtime_checkable
class StreamingProvider(Provider, Protocol):
    """A provider with the optional ``append-stream`` capability."""

    def append_stream(self, stream: Stream) -> AppendResult:
        """``append`` for entries that arrive one at a time, with the same guarantees: all or
        nothing, repeats and stored digests add nothing, and the same append result. The
        provider may store each entry as it arrives (nothing visible until it returns), so an
        import needs memory for what it keeps per record, not for the records."""


@runtime_checkable
class RedactingProvider(Provider, Protocol):
    """A provider with the optional ``redact-payload`` capability: its appends honour
    ``Batch.removals`` (each payload removed and its note kept, with the batch's records, all
    or nothing; a removal whose payload already has a note raises ``ConflictError`` naming
    it and stores nothing), and it tells a removed payload's note."""

    def redaction_note(self, payload_digest: str) -> bytes | None:
        """The note kept in place of a removed payload, or None."""


@runtime_checkable
class RememberingProvider(Provider, Protocol):
    """A provider with the optional ``remember-checks`` capability: stored bytes never change
    (git's are content-addressed), so what the store found sound once need not be read again."""

    def read_unchecked(self, kinds: Iterable[str], key: str) -> tuple[Iterator[Stored], Callable[[], None]]:
        """Records of ``kinds`` stored since the last time the function returned with them was
        called for ``key`` (every one, the first time; more than that is allowed), and that
        function: the caller calls it when it found every record read so far sound (part way
        too, so a check cut short resumes where it stopped)."""

    def checked_appends(self, key: str) -> None:
        """Count the appends this handle made since its last ``read_unchecked`` under ``key``
        as checked, where they follow what was checked: the caller checked every record of
        them on the way in, so the next check need not read them."""


@runtime_checkable
class BytesMemoryProvider(Provider, Protocol):
    """A provider with the optional ``remember-bytes`` capability: it keeps the store's
    memory of record bytes found sound (``gitstore.providers._known``) and says when
    to forget it."""

    def known_bytes(self, name: str) -> KnownBytes:
        """The memory kept under ``name`` (the store's name for its contracts and checks), as
        of the storage now: emptied first when the storage changed in a way appends do not
        (for git: a records ref moved back or rewritten, a tips log cut or changed)."""


@runtime_checkable
class QuarantiningProvider(Provider, Protocol):
    """A provider with the optional ``quarantine`` capability: storage another clone wrote
    (the git provider's fetched writer refs) is read only once verified, and storage that
    fails is left out of every read, whole, instead of failing them all."""

    def quarantined(self) -> list[Problem]:
        """What reads so far left out, each naming where and why (one line each)."""

    def admit(self) -> Sequence[object]:
        """Verify what storage another clone wrote brought since it was last admitted (what every
        read does first), and say where each stands."""

    def admit_only(self, scope: str) -> None:
        """From now on read storage another clone wrote only when every record it holds is of
        ``scope`` (the store's); storage holding another scope's records is left out whole."""


@runtime_checkable
class CausalProvider(Provider, Protocol):
    """A provider with the optional ``causal-order`` capability: appends made on different
    clones without seeing each other are told apart from appends made in turn. A provider
    without it keeps one total order in which every append saw every earlier one (one file,
    one database)."""

    def saw(self, later: str, earlier: str) -> bool:
        """Whether append ``later`` was made having seen append ``earlier`` (``Stored.append``
        values; an append has seen itself)."""


@runtime_checkable
class AttestingProvider(Provider, Protocol):
    """A provider with the optional ``attest`` capability: it holds appends other clones made
    (fetched) beside this clone's own, and can say who signed each one under the team's
    policy. The store applies the rules (``gitstore.records.authority``); the provider only
    reports. A provider without it keeps one clone's own appends (single-user)."""

    def trust_mode(self) -> TrustMode:
        """The policy in force (or why there is none)."""

    def attest(self, append: str) -> Attestation:
        """Who made an append (a ``Stored.append``), as far as signatures and the policy say."""

    def judge_notes(self, judge: Callable[[str, bytes, str | None], bool]) -> None:
        """From now on honour only the redaction notes ``judge(payload_digest, note, append)``
        accepts for any ``append`` of its writer's that added it or listed its payload in
        ``Removes`` again (its bytes unchanged; None for a note this clone kept in its own
        payload snapshot, as older versions did): ``payload``, ``redaction_note`` and ``noted``
        answer as if the others did not exist, and appends store the payloads only those
        others name."""

    def notes(self) -> list[tuple[str, bytes, str | None]]:
        """Every redaction note stored, honoured or not: (payload digest, note, append), the
        append one the judge honours it for when there is one."""

    def redaction_note(self, payload_digest: str, namespace: Namespace | None = None) -> bytes | None:
        """The honoured note that removes the payload from ``namespace``'s memory (None: from
        either, as reads here take it). The namespaces' payloads are kept apart: a note a
        local append stored removes the payload from local memory only (that note never leaves
        this clone, and the same bytes stored as shared memory are the team's); one a shared
        append stored, from both."""

    def own_note(self, payload_digest: str, namespace: Namespace) -> bytes | None:
        """The redaction note this clone's own records in ``namespace`` hold for the payload,
        honoured or not (None: none): a removal made again lists it again, its bytes unchanged
        (records are only ever added)."""

    def noted(self) -> set[str]:
        """The payload digests whose note ``judge_notes``' judge honours (read from where the
        notes are kept, not from every record)."""

    def signing_as(self) -> tuple[tuple[tuple[str, frozenset[str]], ...], str]:
        """Who this clone's appends would be signed as under the current policy: each person
        its signing key is listed for, with what the policy lets them do (empty when it signs
        for nobody, or cannot sign), and a line saying what to configure when it cannot."""


@runtime_checkable
class SnapshotProvider(Provider, Protocol):
    """A provider with the optional ``payload-snapshot`` capability."""

    def payload_reader(self, *, selective: bool = False) -> Callable[[str], bytes | None]:
        """``payload`` bound to one snapshot of the stored payloads, for reading many at once:
        every call answers from the same state, whatever is appended or redacted meanwhile
        (``selective``: the caller reads payloads it picked, not every one, and the reader
        keeps its memory to what it reads rather than indexing the whole snapshot)."""


@runtime_checkable
class StreamReadingProvider(Provider, Protocol):
    """A provider with the optional ``read-streams`` capability."""

    def read_streams(self, streams: Collection[str], scope: str | None = None,
                     kinds: Iterable[str] | None = None, digests: Collection[str] | None = None,
                     appends: Collection[str] | None = None) -> Iterator[Stored]:
        """``read`` of only the records of ``streams`` (and of them, only those with one of
        ``digests``, when given, and only those one of ``appends`` holds, when given: where it
        was read from or a copy, each still read from where ``read`` would), in store order,
        without reading the others' bytes: a read of a few episodes costs what they hold, not
        what the store does."""


@runtime_checkable
class PausingProvider(Provider, Protocol):
    """A provider with the optional ``pause-writes`` capability."""

    def paused(self) -> AbstractContextManager[None]:
        """While entered: appends under way have finished and new ones (and redactions) wait,
        so housekeeping never removes the objects of an append that has not committed yet."""


@runtime_checkable
class CollectingProvider(Provider, Protocol):
    """A provider with the optional ``gc`` capability."""

    def gc(self) -> GcReport:
        """Erase what memory removed and nothing else: removed payloads, payloads no stored
        record names (left by appends that were killed), superseded copies of them. Never
        repairs damage; afterwards no byte of a removed payload is left in its storage."""


def missing_capabilities(manifest: Manifest) -> list[str]:
    """Required capabilities a manifest does not declare."""
    return sorted(REQUIRED_CAPABILITIES - manifest.capabilities)


def dedupe(entries: Sequence[Entry]) -> list[Entry]:
    """Entries in order with repeats of the same digest dropped."""
    seen: set[str] = set()
    out = []
    for entry in entries:
        if entry.digest not in seen:
            seen.add(entry.digest)
            out.append(entry)
    return out
