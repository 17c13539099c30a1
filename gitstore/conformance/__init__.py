"""The provider conformance suite: one set of pytest tests every provider must pass.

Use it by subclassing :class:`ProviderConformance` in a test module and saying how to build
the provider. ``make`` opens a provider on ``location`` (a fresh folder for each test); calling
it twice on one location must give two handles on the same storage, as two processes would.

    from gitstore.conformance import ProviderConformance

    class TestMyProvider(ProviderConformance):
        durable = True
        def make(self, location, writer="w1"):
            return MyProvider(location / "db", writer)

Durable providers also run the process tests: concurrent writers in several processes, reads
and verify while another process appends and removes, and appends killed with SIGKILL at
random moments. Providers see records only as bytes; the cases
that plant damaged bytes check that the store (:class:`gitstore.store.Store`) refuses them.

The adversarial cases (seed 000's list) run the store's rules over what the provider returns:
a damaged withdrawal fails every read and write closed; forged approvals (a decision without
its audit entry, one naming a review never shown) are never used; a forged evidence pin is
refused; racing replacements and racing decisions written past compare-and-swap settle the same
on every handle, the first made standing (the later one was made having seen it).
"""

from __future__ import annotations

import functools
import itertools
import os
import random
import select
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gitstore.errors import ConflictError, IntegrityError, Refused
from gitstore.rules.active import evaluate
from gitstore.rules.evidence import check_stated
from gitstore.rules.lifecycle import build
from gitstore.rules.view import View
from gitstore.providers import REQUIRED_CAPABILITIES, Batch, Entry, Provider, Removal, Stream, StreamingProvider
from gitstore.providers._base import Namespace
from gitstore.store import Store
from gitstore.conformance import _records as R

__all__ = ["ProviderConformance", "entries_for"]


def entries_for(records: Iterable[dict[str, Any]], scope: str = R.SCOPE) -> tuple[Entry, ...]:
    """Provider entries for sealed records, as the store would prepare them."""
    store = Store.__new__(Store)
    store.scope = scope
    return tuple(Store.prepare(store, r) for r in records)


def batch(*records: dict[str, Any], namespace: str = "shared",
          removals: Iterable[tuple[str, bytes]] = ()) -> Batch:
    """A batch of sealed records (and payloads to remove with them, as (digest, note))."""
    return Batch(namespace, entries_for(records, records[0]["scope"] if records else R.SCOPE),  # type: ignore[arg-type]
                 tuple(Removal(d, n) for d, n in removals))


class ProviderConformance:
    """Tests every provider must pass. Subclass as ``Test<Name>`` and define ``make``."""

    durable = True
    concurrent_processes = 8
    appends_per_process = 25
    kills = 40

    def make(self, location: Path, writer: str = "w1") -> Provider:
        raise NotImplementedError

    @pytest.fixture
    def location(self, tmp_path: Path) -> Path:
        return tmp_path

    @pytest.fixture
    def provider(self, location: Path) -> Provider:
        return self.make(location)

    # -- manifest ------------------------------------------------------------------------------

    def test_manifest_declares_required_capabilities(self, provider: Provider) -> None:
        manifest = provider.manifest()
        assert REQUIRED_CAPABILITIES <= manifest.capabilities
        assert "gitstore.provider/v1" in manifest.contracts
        assert manifest.name and manifest.storage
        assert isinstance(manifest.sends_to, tuple)

    # -- append and read -----------------------------------------------------------------------

    def test_append_then_read_returns_the_same_bytes_in_order(self, provider: Provider) -> None:
        records = [R.event(f"a{i}", seq=i) for i in range(5)]
        result = provider.append(batch(*records))
        assert list(result.added) == [r["digest"] for r in records]
        stored = list(provider.read())
        assert [s.digest for s in stored] == [r["digest"] for r in records]
        assert [s.position for s in stored] == list(range(5))
        assert len({s.clock for s in stored}) == 1
        expected = entries_for(records)
        assert [s.data for s in stored] == [e.data for e in expected]
        assert all(s.kind == "event" and s.namespace == "shared" for s in stored)

    def test_appends_are_ordered_by_clock_then_position(self, provider: Provider) -> None:
        first = [R.grant("g1"), R.grant("g2")]
        second = [R.event("e1"), R.grant("g3")]
        provider.append(batch(*first))
        provider.append(batch(*second))
        stored = list(provider.read())
        assert [s.digest for s in stored] == [r["digest"] for r in first + second]
        assert stored[0].clock == stored[1].clock < stored[2].clock == stored[3].clock
        assert sorted(stored, key=lambda s: s.order) == stored

    def test_append_is_idempotent(self, provider: Provider) -> None:
        records = [R.event("x1"), R.event("x2")]
        provider.append(batch(*records))
        again = provider.append(batch(*records))
        assert again.added == () and set(again.existing) == {r["digest"] for r in records}
        mixed = provider.append(batch(records[0], R.event("x3")))
        assert mixed.added == (R.event("x3")["digest"],)
        assert mixed.existing == (records[0]["digest"],)
        digests = [s.digest for s in provider.read()]
        assert len(digests) == len(set(digests)) == 3

    def test_repeats_inside_one_batch_are_stored_once(self, provider: Provider) -> None:
        record = R.grant("twice")
        provider.append(batch(record, record))
        assert [s.digest for s in provider.read()] == [record["digest"]]

    def test_read_filters_by_kind_and_scope(self, provider: Provider) -> None:
        provider.append(batch(R.event("k1"), R.grant("k2")))
        provider.append(batch(R.grant("other", scope=R.OTHER_SCOPE)))
        assert [s.kind for s in provider.read(kinds=["grant"])] == ["grant", "grant"]
        ours = {s.digest for s in provider.read(scope=R.SCOPE)}
        assert R.grant("other", scope=R.OTHER_SCOPE)["digest"] not in ours
        assert {R.event("k1")["digest"], R.grant("k2")["digest"]} <= ours

    def test_namespaces_are_kept(self, provider: Provider) -> None:
        provider.append(batch(R.grant("shared1")))
        provider.append(batch(R.event("local1"), namespace="local"))
        assert {s.namespace for s in provider.read()} == {"shared", "local"}

    def test_one_append_may_span_several_streams(self, provider: Provider) -> None:
        records = [R.event("s1", episode="one"), R.event("s2", episode="two"), R.grant("s3")]
        audit = R.audit("multi", [r["digest"] for r in records])
        provider.append(batch(*records, audit))
        streams = {s.stream for s in provider.read()}
        assert streams == {R.episode_id("one"), R.episode_id("two"), "consent", "audit"}
        assert len({s.clock for s in provider.read()}) == 1

    # -- streams, heads and compare-and-swap ---------------------------------------------------

    def test_read_stream_and_head(self, provider: Provider) -> None:
        one = [R.event(f"h{i}", episode="one", seq=i) for i in range(3)]
        provider.append(batch(one[0], R.event("other", episode="two")))
        provider.append(batch(*one[1:]))
        stream = R.episode_id("one")
        assert [s.digest for s in provider.read_stream(stream)] == [r["digest"] for r in one]
        assert provider.head(stream) == one[-1]["digest"]
        assert provider.head("no-such-stream") is None

    def test_append_if_head_succeeds_on_the_expected_head(self, provider: Provider) -> None:
        stream = R.episode_id("cas")
        first, second = R.event("c1", episode="cas"), R.event("c2", episode="cas", seq=1)
        provider.append_if_head(batch(first), stream, None)
        provider.append_if_head(batch(second), stream, first["digest"])
        assert provider.head(stream) == second["digest"]

    def test_append_if_head_refuses_a_stale_head(self, provider: Provider) -> None:
        stream = R.episode_id("cas")
        first = R.event("c1", episode="cas")
        provider.append(batch(first))
        with pytest.raises(ConflictError, match=stream):
            provider.append_if_head(batch(R.event("c2", episode="cas")), stream, None)
        assert [s.digest for s in provider.read()] == [first["digest"]]

    def test_racing_compare_and_swap_has_one_winner(self, location: Path) -> None:
        a, b = self.make(location), self.make(location)
        stream = R.episode_id("race")
        base = R.event("r0", episode="race")
        a.append(batch(base))
        head_seen_by_a = a.head(stream)
        b.append_if_head(batch(R.event("rb", episode="race", seq=1)), stream, head_seen_by_a)
        with pytest.raises(ConflictError):
            a.append_if_head(batch(R.event("ra", episode="race", seq=1)), stream, head_seen_by_a)
        assert a.head(stream) == R.event("rb", episode="race", seq=1)["digest"]

    def test_two_handles_see_each_others_appends(self, location: Path) -> None:
        a, b = self.make(location), self.make(location)
        a.append(batch(R.grant("from-a")))
        b.append(batch(R.grant("from-b")))
        assert [s.digest for s in a.read()] == [s.digest for s in b.read()]
        assert len(list(a.read())) == 2

    # -- streamed appends (the optional capability append-stream) -------------------------------

    def _streaming(self, provider: Provider) -> StreamingProvider:
        if "append-stream" not in provider.manifest().capabilities:
            pytest.skip("provider does not offer append-stream")
        return provider  # type: ignore[return-value]

    def test_append_stream_is_one_append(self, provider: Provider) -> None:
        streaming = self._streaming(provider)
        records = [R.event(f"st{i}", episode="streamed", seq=i) for i in range(STREAM_SIZE)] + [R.grant("st")]
        asked: list[str] = []

        def namespace() -> Namespace:
            asked.append("namespace")
            return "local"

        result = streaming.append_stream(Stream(iter(entries_for(records)), namespace))
        assert asked == ["namespace"]
        assert list(result.added) == [r["digest"] for r in records] and result.existing == ()
        stored = list(provider.read())
        assert [s.digest for s in stored] == [r["digest"] for r in records]
        assert [s.position for s in stored] == list(range(len(records)))
        assert len({s.clock for s in stored}) == 1 and {s.namespace for s in stored} == {"local"}
        assert [s.data for s in stored] == [e.data for e in entries_for(records)]
        assert provider.payload(records[0]["payloadDigest"]) == entries_for(records[:1])[0].payload
        assert provider.verify().ok

    def test_append_stream_drops_repeats_and_what_is_stored(self, provider: Provider) -> None:
        streaming = self._streaming(provider)
        x1, x2, x3 = R.event("sx1"), R.event("sx2"), R.grant("sx3")
        provider.append(batch(x1))
        result = streaming.append_stream(Stream(iter(entries_for([x2, x1, x2, x3, x1])), lambda: "shared"))
        assert result.added == (x2["digest"], x3["digest"]) and result.existing == (x1["digest"],)
        again = streaming.append_stream(Stream(iter(entries_for([x3, x1])), lambda: "shared"))
        assert again.added == () and again.existing == (x3["digest"], x1["digest"])
        assert [s.digest for s in provider.read()] == [x1["digest"], x2["digest"], x3["digest"]]

    @pytest.mark.parametrize("fails_in", ["entries", "namespace"])
    def test_append_stream_refused_part_way_stores_nothing(self, provider: Provider, fails_in: str) -> None:
        streaming = self._streaming(provider)
        before = R.grant("kept")
        provider.append(batch(before))
        records = [R.event(f"sf{i}", episode="refused", seq=i, text="t" * 300) for i in range(STREAM_SIZE)]

        def entries() -> Iterator[Entry]:
            yield from entries_for(records)
            if fails_in == "entries":
                raise Refused("record refused part way")

        def namespace() -> Namespace:
            if fails_in == "namespace":
                raise Refused("mixed namespaces")
            return "shared"

        with pytest.raises(Refused):
            streaming.append_stream(Stream(entries(), namespace))
        assert [s.digest for s in provider.read()] == [before["digest"]]
        assert provider.payload(records[0]["payloadDigest"]) is None
        assert provider.verify().ok
        provider.append(batch(records[0]))  # the provider is usable afterwards
        assert len(list(provider.read())) == 2

    def test_append_stream_killed_part_way_leaves_all_or_nothing(self, location: Path) -> None:
        if not self.durable:
            pytest.skip("provider keeps no state across processes")
        self._streaming(self.make(location))
        rng = random.Random(4627)
        for round_ in range(STREAM_KILLS):
            _killed_stream(self, location, round_, rng.uniform(0.0, 0.4))
        provider = self.make(location)
        by_round: dict[str, int] = {}
        for s in provider.read():
            by_round[s.stream] = by_round.get(s.stream, 0) + 1
        torn = {k: v for k, v in by_round.items() if v != STREAM_SIZE}
        assert not torn, f"a torn streamed append is visible: {torn}"
        report = provider.verify()
        assert report.ok, [str(p) for p in report.problems[:5]]
        if "gc" in provider.manifest().capabilities:
            provider.gc()  # type: ignore[attr-defined]
            for round_ in range(STREAM_KILLS):
                stored = by_round.get(R.episode_id(f"ks{round_}")) == STREAM_SIZE
                first = R.event(f"ks{round_}-0", episode=f"ks{round_}", seq=0)
                assert (provider.payload(first["payloadDigest"]) is not None) == stored, round_

    # -- payloads ------------------------------------------------------------------------------

    def test_payloads_are_stored_apart_and_returned(self, provider: Provider) -> None:
        record = R.event("p1", text="Please add jitter.")
        provider.append(batch(record))
        stored = next(provider.read())
        assert b"Please add jitter." not in stored.data
        payload = provider.payload(record["payloadDigest"])
        assert payload is not None and b"Please add jitter." in payload
        assert provider.payload("sha256:" + "0" * 64) is None

    def _redacting(self, provider: Provider) -> Provider:
        if "redact-payload" not in provider.manifest().capabilities:
            pytest.skip("provider does not offer redact-payload")
        return provider

    def test_a_removal_and_its_audit_entry_are_one_append(self, provider: Provider) -> None:
        self._redacting(provider)
        record = R.event("secret", text="remove me")
        provider.append(batch(record))
        audit = R.audit("removal", [], action="redact")
        result = provider.append(batch(audit, removals=[(record["payloadDigest"], _note("first"))]))
        assert result.added == (audit["digest"],)
        assert provider.redaction_note(record["payloadDigest"]) == _note("first")  # type: ignore[attr-defined]
        assert provider.payload(record["payloadDigest"]) is None
        assert [s.digest for s in provider.read()] == [record["digest"], audit["digest"]]
        assert provider.verify().ok

    def test_a_second_removal_of_a_payload_conflicts_and_stores_nothing(self, provider: Provider) -> None:
        self._redacting(provider)
        record = R.event("twice", text="remove me once")
        first, second = R.audit("first", [], action="redact"), R.audit("second", [], action="redact")
        provider.append(batch(record))
        provider.append(batch(first, removals=[(record["payloadDigest"], _note("first"))]))
        with pytest.raises(ConflictError, match=record["payloadDigest"]):
            provider.append(batch(second, removals=[(record["payloadDigest"], _note("second"))]))
        assert provider.redaction_note(record["payloadDigest"]) == _note("first")  # type: ignore[attr-defined]
        assert second["digest"] not in {s.digest for s in provider.read()}

    def test_a_removal_with_nothing_new_to_record_is_refused(self, provider: Provider) -> None:
        self._redacting(provider)
        record = R.event("bare", text="no audit")
        provider.append(batch(record))
        with pytest.raises(Refused):
            provider.append(batch(record, removals=[(record["payloadDigest"], _note("n"))]))
        assert provider.redaction_note(record["payloadDigest"]) is None  # type: ignore[attr-defined]
        assert provider.payload(record["payloadDigest"]) is not None

    def test_a_removal_of_a_payload_never_stored_keeps_its_note(self, provider: Provider) -> None:
        self._redacting(provider)
        unknown = "sha256:" + "1" * 64
        assert provider.redaction_note(unknown) is None  # type: ignore[attr-defined]
        provider.append(batch(R.audit("unknown", [], action="redact"), removals=[(unknown, _note("x"))]))
        assert provider.redaction_note(unknown) == _note("x")  # type: ignore[attr-defined]

    def test_redacted_payload_is_not_restored_by_appending_again(self, provider: Provider) -> None:
        self._redacting(provider)
        record = R.event("again", text="gone for good")
        provider.append(batch(record))
        provider.append(batch(R.audit("again", [], action="redact"), removals=[(record["payloadDigest"], _note("n"))]))
        provider.append(batch(record))
        twin = R.event("again", seq=1, text="gone for good")  # another event, the same payload
        assert twin["payloadDigest"] == record["payloadDigest"]
        provider.append(batch(twin))
        assert provider.payload(record["payloadDigest"]) is None

    # -- appends and gc ------------------------------------------------------------------------

    def test_records_of_one_append_share_its_append_id(self, location: Path) -> None:
        provider = self.make(location)
        provider.append(batch(R.grant("a1"), R.grant("a2"), R.event("a3")))
        provider.append(batch(R.grant("b1")))
        provider.append(batch(R.event("c1", episode="c"), namespace="local"))
        stored = list(self.make(location).read())  # another handle sees the same ids
        ids = [s.append for s in stored]
        assert all(isinstance(i, str) and i for i in ids)
        assert ids[0] == ids[1] == ids[2] and len({ids[0], ids[3], ids[4]}) == 3
        assert ids == [s.append for s in provider.read()]
        assert [s.append for s in provider.read_stream(R.episode_id("c"))] == [ids[4]]

    def test_checks_remembered_cover_what_arrived_since(self, location: Path) -> None:
        provider = self.make(location)
        if "remember-checks" not in provider.manifest().capabilities:
            pytest.skip("provider does not offer remember-checks")
        first, later = R.grant("remembered"), R.grant("arrived-since")
        provider.append(batch(first, R.event("other-kind")))
        fresh, done = provider.read_unchecked(["grant"], "k")  # type: ignore[attr-defined]
        assert [s.digest for s in fresh] == [first["digest"]]
        done()
        provider.append(batch(later))
        again, _ = self.make(location).read_unchecked(["grant"], "k")  # type: ignore[attr-defined]
        assert [s.digest for s in again] == [later["digest"]]
        other, _ = provider.read_unchecked(["grant"], "other")  # type: ignore[attr-defined]
        assert {s.digest for s in other} == {first["digest"], later["digest"]}

    def test_gc_erases_removed_payloads_and_keeps_the_rest(self, provider: Provider) -> None:
        if "gc" not in provider.manifest().capabilities:
            pytest.skip("provider does not offer gc")
        self._redacting(provider)
        kept, gone = R.event("kept", text="kept text"), R.event("gone", text="removed text")
        provider.append(batch(kept, gone))
        provider.append(batch(R.audit("gc", [], action="redact"), removals=[(gone["payloadDigest"], _note("n"))]))
        report = provider.gc()  # type: ignore[attr-defined]
        assert report.payloads >= 0
        assert provider.payload(kept["payloadDigest"]) == entries_for([kept])[0].payload
        assert provider.payload(gone["payloadDigest"]) is None
        assert len(list(provider.read())) == 3 and provider.verify().ok
        assert provider.gc().payloads == 0  # type: ignore[attr-defined]

    # -- integrity -----------------------------------------------------------------------------

    def test_verify_is_clean_after_ordinary_use(self, provider: Provider) -> None:
        provider.append(batch(R.event("v1"), R.grant("v2")))
        provider.append(batch(R.event("v3", episode="b"), namespace="local"))
        report = provider.verify()
        assert report.ok, [str(p) for p in report.problems]
        assert report.records == 3

    def test_store_refuses_bytes_that_do_not_match_their_digest(self, provider: Provider) -> None:
        good = entries_for([R.grant("honest")])[0]
        forged = Entry(good.digest, good.kind, good.scope, good.stream,
                       good.data.replace(b"honest", b"forged"))
        provider.append(Batch("shared", (forged,)))
        store = Store(provider, R.SCOPE)
        with pytest.raises(IntegrityError, match=good.digest):
            list(store.items())
        assert not store.verify().ok

    def test_store_refuses_unknown_schema_versions(self, provider: Provider) -> None:
        good = entries_for([R.grant("v2")])[0]
        planted = Entry(good.digest, good.kind, good.scope, good.stream,
                        good.data.replace(b"gitstore.grant/v1", b"gitstore.grant/v2"))
        provider.append(Batch("shared", (planted,)))
        with pytest.raises(IntegrityError, match="unknown schema version"):
            list(Store(provider, R.SCOPE).items())

    def test_store_returns_only_its_scope(self, provider: Provider) -> None:
        provider.append(batch(R.grant("mine")))
        provider.append(batch(R.grant("theirs", scope=R.OTHER_SCOPE)))
        digests = [i.digest for i in Store(provider, R.SCOPE).items()]
        assert digests == [R.grant("mine")["digest"]]

    def test_a_record_filed_under_another_stream_is_damage(self, provider: Provider) -> None:
        good = entries_for([R.grant("misfiled")])[0]
        provider.append(Batch("shared", (good._replace(stream="audit"),)))  # a grant's stream is consent
        with pytest.raises(IntegrityError, match=good.digest):
            list(Store(provider, R.SCOPE).items())
        assert any(good.digest in str(p) for p in Store(provider, R.SCOPE).verify().problems)

    def test_a_record_filed_under_another_scope_does_not_vanish(self, provider: Provider) -> None:
        """A withdrawal filed as another repository's, its bytes this one's: dropping it would
        restore the permission it took away. A read either returns it or refuses, naming it."""
        grant = R.grant("withdrawn")
        provider.append(batch(grant))
        withdrawal = entries_for([R.withdrawal(grant)])[0]
        provider.append(Batch("shared", (withdrawal._replace(scope=R.OTHER_SCOPE),)))
        try:
            read = {i.digest for i in Store(provider, R.SCOPE).items()}
        except IntegrityError as exc:
            assert withdrawal.digest in str(exc)
            assert any(withdrawal.digest in str(p) for p in Store(provider, R.SCOPE).verify().problems)
        else:
            assert withdrawal.digest in read

    # -- adversarial cases: the store's rules over what this provider returns -------------------

    def test_a_damaged_withdrawal_fails_reads_and_writes_closed(self, provider: Provider) -> None:
        grant = R.grant("withdrawn")
        provider.append(batch(grant))
        good = entries_for([R.withdrawal(grant)])[0]
        damaged = Entry(good.digest, good.kind, good.scope, "consent", good.data.replace(b"withdrawn", b"restored"))
        provider.append(Batch("shared", (damaged,)))
        store = Store(provider, R.SCOPE)
        with pytest.raises(IntegrityError, match=good.digest):
            View.load(store)
        with pytest.raises(IntegrityError, match=good.digest):
            Store(provider, R.SCOPE).append([R.grant("written after")])  # dropping it would restore a permission
        assert R.grant("written after")["digest"] not in {s.digest for s in provider.read()}

    def test_forged_approvals_are_never_used(self, provider: Provider) -> None:
        cited, proposals = _cited(provider, 2)
        bare = R.step(proposals[0], "accepted")  # no audit entry vouches for it
        provider.append(batch(bare))
        unseen = R.step(proposals[1], "accepted", review="sha256:" + "7" * 64)  # a review never shown
        provider.append(batch(*R.vouched(unseen)))
        view = View.load(Store(provider, R.SCOPE))
        statuses = evaluate(view, "review")
        assert statuses[proposals[0]["id"]].state == "proposed" and bare["digest"] in view.ignored
        assert (statuses[proposals[1]["id"]].state, statuses[proposals[1]["id"]].usable) == ("proposed", False)
        history = build(proposals[1]["id"], view.learnings[proposals[1]["id"]])  # it stays out of the chain
        assert any(item.digest == unseen["digest"] and "never shown" in why for item, why in history.broken)

    def test_a_forged_evidence_pin_is_refused(self, provider: Provider) -> None:
        cited, _ = _cited(provider, 0)
        view = View.load(Store(provider, R.SCOPE))
        assert check_stated(view, R.evidence(cited[0]))["pin"] == R.PIN
        with pytest.raises(Refused, match="states pin"):
            check_stated(view, {**R.evidence(cited[0]), "pin": {**R.PIN, "pullRequest": 7}})

    def test_racing_replacements_settle_the_same_on_every_handle(self, location: Path) -> None:
        a, b = self.make(location), self.make(location)
        cited, [old] = _cited(a, 1)
        a.append(batch(*R.vouched(R.step(old, "accepted"))))
        first, second = (R.proposal(tag, cited[i], replaces=(old["id"],)) for i, tag in ((1, "first"), (2, "second")))
        a.append(batch(first, second))
        a.append(batch(*R.vouched(R.step(first, "accepted"))))
        b.append(batch(*R.vouched(R.step(second, "accepted"))))  # past the check the store makes
        verdicts = [evaluate(View.load(Store(p, R.SCOPE)), "review") for p in (a, b)]
        assert verdicts[0] == verdicts[1]
        assert verdicts[0][old["id"]].replaced_by == first["id"] and verdicts[0][first["id"]].usable
        assert verdicts[0][second["id"]].conflicted and not verdicts[0][second["id"]].usable

    def test_racing_decisions_keep_the_one_made_first(self, location: Path) -> None:
        a, b = self.make(location), self.make(location)
        _, [learning] = _cited(a, 1)
        a.append(batch(*R.vouched(R.step(learning, "accepted"))))
        b.append(batch(*R.vouched(R.step(learning, "rejected", reason="late"))))  # made having seen it
        verdicts = [evaluate(View.load(Store(p, R.SCOPE)), "review")[learning["id"]] for p in (a, b)]
        assert verdicts[0] == verdicts[1] and verdicts[0].state == "accepted" and verdicts[0].usable

    def test_an_append_saw_every_append_made_before_it_here(self, provider: Provider) -> None:
        provider.append(batch(R.grant("earlier")))
        provider.append(batch(R.grant("later"), R.grant("with it")))
        earlier, later, beside = list(provider.read())
        store = Store(provider, R.SCOPE)
        assert store.saw(later, earlier) and store.saw(later, beside) and store.saw(beside, later)
        assert not store.saw(earlier, later)

    # -- processes -----------------------------------------------------------------------------

    def test_concurrent_writers_in_several_processes(self, location: Path) -> None:
        if not self.durable:
            pytest.skip("provider keeps no state across processes")
        self.make(location)  # create the storage once before the race
        acked = _run_children(self, location, self.concurrent_processes, self.appends_per_process)
        digests = [s.digest for s in self.make(location).read()]
        assert len(digests) == len(set(digests))
        assert set(acked) <= set(digests)
        assert len(acked) == self.concurrent_processes * self.appends_per_process
        report = self.make(location).verify()
        assert report.ok, [str(p) for p in report.problems[:5]]

    def test_reads_and_verify_while_another_process_appends_find_no_damage(self, location: Path) -> None:
        """Capture hooks append in the background while commands read: every read and verify
        that overlaps appends (and removals, which rewrite what holds payloads) finds the
        store sound. The writer goes on until the reader has made all its passes."""
        if not self.durable:
            pytest.skip("provider keeps no state across processes")
        self.make(location)
        redacts = "redact-payload" in self.make(location).manifest().capabilities
        started, stop, passes, pid = _background_writer(self, location, redacts)
        damage: list[str] = []
        try:
            for round_ in range(READS_WHILE_WRITING):
                os.write(passes, b".")  # the writer may go APPENDS_PER_PASS further
                reader = self.make(location, writer="w2")
                try:
                    for item in Store(reader, R.SCOPE).items(payloads=True):
                        assert item.kind != "event" or "payload" in item.record or "redaction" in item.record
                    if round_ % 4 == 3:
                        damage.extend(str(p) for p in reader.verify().problems)
                except IntegrityError as exc:
                    damage.append(str(exc))
        finally:
            os.close(stop)
            os.close(passes)
            _, status = os.waitpid(pid, 0)
        assert started, "the writer never appended"
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "the writer process failed"
        assert not damage, damage[:3]
        assert self.make(location).verify().ok

    def test_appends_killed_at_random_moments_never_tear(self, location: Path) -> None:
        if not self.durable:
            pytest.skip("provider keeps no state across processes")
        self.make(location)
        rng = random.Random(8785)
        acked: list[str] = []
        for round_ in range(self.kills):
            acked.extend(_killed_child(self, location, round_, rng.uniform(0.0, 0.05)))
        provider = self.make(location)
        stored = list(provider.read())
        digests = {s.digest for s in stored}
        assert set(acked) <= digests, "an acknowledged append was lost"
        by_batch: dict[str, int] = {}
        for s in stored:
            by_batch[s.stream] = by_batch.get(s.stream, 0) + 1
        torn = {k: v for k, v in by_batch.items() if k.startswith("ep_") and v != KILL_BATCH}
        assert not torn, f"torn batches visible: {torn}"
        report = provider.verify()
        assert report.ok, [str(p) for p in report.problems[:5]]
        if "gc" in provider.manifest().capabilities:
            _orphans_go(provider, digests, self.kills)


def _cited(provider: Provider, proposals: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A review thread of three comments, a grant for review, and ``proposals`` proposals each
    citing one comment, stored; returns the comments and the proposals."""
    cited = [R.event(f"cited{i}", seq=i) for i in range(3)]
    made = [R.proposal(f"p{i}", cited[i]) for i in range(proposals)]
    provider.append(batch(R.episode(), *cited, R.grant("for review"), *made))
    return cited, made


def _orphans_go(provider: Provider, stored: set[str], kills: int) -> None:
    """After gc, no payload of a record the killed children did not store is left; every
    stored record's payload is."""
    provider.gc()  # type: ignore[attr-defined]
    for round_ in range(kills):
        for i in range(64):
            records = [R.event(f"kill{round_}-{i}-{j}", episode=f"kill{round_}-{i}", seq=j, text="x" * 200)
                       for j in range(KILL_BATCH)]
            here = [r["digest"] in stored for r in records]
            for record, kept in zip(records, here):
                assert (provider.payload(record["payloadDigest"]) is not None) == kept, record["digest"]
            if not any(here):
                break
    assert provider.verify().ok


KILL_BATCH = 40
STREAM_SIZE = 600  # more than the git provider's pack threshold: the streamed path packs
STREAM_KILLS = 8


def _killed_stream(suite: ProviderConformance, location: Path, round_: int, delay: float) -> None:
    """A child streams STREAM_SIZE events (a little slower than it could) and is killed after
    ``delay`` seconds, before, during or after its append."""
    records = [R.event(f"ks{round_}-{j}", episode=f"ks{round_}", seq=j) for j in range(STREAM_SIZE)]
    prepared = entries_for(records)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        provider = suite.make(location, writer="w1")

        def slowly() -> Iterator[Entry]:
            for j, entry in enumerate(prepared):
                if j % 50 == 0:
                    time.sleep(0.02)
                yield entry

        provider.append_stream(Stream(slowly(), lambda: "shared"))  # type: ignore[attr-defined]
        os._exit(0)
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def _note(reason: str) -> bytes:
    """A redaction note as the store writes it: the canonical event redaction object."""
    from gitstore.records.canonical import canonicalize

    return canonicalize({"at": "2026-08-01T00:00:00.000000Z", "by": "github:583231",
                         "reason": reason, "sourceId": "github:comment:1"})


def _child_appends(suite: ProviderConformance, location: Path, tag: str, count: int, out: int) -> None:
    """``count`` appends of one record each; every fifth is an event with a payload."""
    provider = suite.make(location, writer="w1")
    for i in range(count):
        record = R.event(f"{tag}-{i}", episode=f"{tag}-{i}") if i % 5 == 0 else R.grant(f"{tag}-{i}")
        provider.append(batch(record))
        os.write(out, (record["digest"] + "\n").encode())


def _forked(name: str, parents_ends: list[int], work: Callable[[], None]) -> int:
    """Run ``work`` in a child process (closing there the pipe ends the parent keeps) and
    return its id; the child exits 1, saying so on standard error, when ``work`` raises."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        for end in parents_ends:
            os.close(end)
        code = 0
        try:
            work()
        except BaseException as exc:  # reported to the parent through the exit code
            os.write(2, f"{name} failed: {exc!r}\n".encode())
            code = 1
        os._exit(code)
    return pid


def _run_children(suite: ProviderConformance, location: Path, processes: int, count: int) -> list[str]:
    readers, pids = [], []
    for p in range(processes):
        read_end, write_end = os.pipe()
        pid = _forked(f"writer process {p}", [read_end],
                      functools.partial(_child_appends, suite, location, f"proc{p}", count, write_end))
        os.close(write_end)
        readers.append(read_end)
        pids.append(pid)
    acked: list[str] = []
    for read_end in readers:
        acked.extend(_drain(read_end))
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "a writer process failed"
    return acked


READS_WHILE_WRITING = 24
APPENDS_PER_PASS = 12
"""How far the background writer may get ahead of the reader's passes: unpaced, a writer
on a fast disk grows the store faster than passes over all of it end, and the test's cost
with it (each pass reads everything, so it grew with the square of the disk's speed)."""


def _background_writer(suite: ProviderConformance, location: Path, redacts: bool) -> tuple[bool, int, int, int]:
    """Start a process that appends until ``stop`` (the returned descriptor) is closed: an
    event with its payload each time and, with ``redacts``, the removal of the one before; a
    byte written to ``passes`` lets it append ``APPENDS_PER_PASS`` more. Returns once its
    first append is acknowledged: (whether it was, stop, passes, the process id)."""
    ready_read, ready_write = os.pipe()
    stop_read, stop_write = os.pipe()
    passes_read, passes_write = os.pipe()
    pid = _forked("background writer", [ready_read, stop_write, passes_write],
                  lambda: _append_until_stopped(suite, location, redacts, ready_write, stop_read, passes_read))
    os.close(ready_write)
    os.close(stop_read)
    os.close(passes_read)
    started = os.read(ready_read, 1) == b"+"
    os.close(ready_read)
    return started, stop_write, passes_write, pid


def _append_until_stopped(suite: ProviderConformance, location: Path, redacts: bool, ready: int, stop: int,
                          passes: int) -> None:
    provider = suite.make(location, writer="w1")
    allowed = 1
    for i in itertools.count():
        while i >= allowed:  # as far ahead of the reader as it may go: wait for its next pass
            waiting = select.select([stop, passes], [], [])[0]
            if stop in waiting:
                return
            allowed += APPENDS_PER_PASS * len(os.read(passes, 64))
        record = R.event(f"bg{i}", episode="background", seq=i, text=f"background comment {i}")
        provider.append(batch(*([R.episode("background")] if i == 0 else []), record))
        if redacts and i:
            earlier = R.event(f"bg{i - 1}", episode="background", seq=i - 1, text=f"background comment {i - 1}")
            provider.append(batch(R.audit(f"bg{i}", [earlier["digest"]], action="redact"),
                                  removals=[(earlier["payloadDigest"], _note(f"bg{i}"))]))
        if i == 0:
            os.write(ready, b"+")
            os.close(ready)
        if select.select([stop], [], [], 0)[0]:  # the reader closed it: its passes are done
            return


def _killed_child(suite: ProviderConformance, location: Path, round_: int, delay: float) -> list[str]:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        os.close(read_end)
        provider = suite.make(location, writer="w1")
        i = 0
        while True:
            tag = f"kill{round_}-{i}"
            records = [R.event(f"{tag}-{j}", episode=tag, seq=j, text="x" * 200) for j in range(KILL_BATCH)]
            provider.append(batch(*records))
            os.write(write_end, "".join(r["digest"] + "\n" for r in records).encode())
            i += 1
    os.close(write_end)
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return _drain(read_end)


def _drain(fd: int) -> list[str]:
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    data = b"".join(chunks).decode()
    return [line for line in data.split("\n")[:-1] if line]
