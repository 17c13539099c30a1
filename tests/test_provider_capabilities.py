"""Optional provider capabilities: each one a manifest declares is a Protocol the provider
satisfies, and each optional method a provider has is declared, so the store decides from the
manifest alone and never probes for a method."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitstore.conformance import _records as R
from gitstore.providers import BUILTIN, open_provider
from gitstore.providers._base import (
    OPTIONAL_CAPABILITIES, AttestingProvider, BytesMemoryProvider, CausalProvider, CollectingProvider,
    PausingProvider, Provider, QuarantiningProvider, RedactingProvider, RememberingProvider, SnapshotProvider,
    StreamingProvider, StreamReadingProvider,
)
from gitstore.store import Store

PROTOCOLS: dict[str, type] = {
    "redact-payload": RedactingProvider,
    "append-stream": StreamingProvider,
    "payload-snapshot": SnapshotProvider,
    "pause-writes": PausingProvider,
    "gc": CollectingProvider,
    "read-streams": StreamReadingProvider,
    "remember-checks": RememberingProvider,
    "quarantine": QuarantiningProvider,
    "causal-order": CausalProvider,
    "attest": AttestingProvider,
    "remember-bytes": BytesMemoryProvider,
}


def test_every_optional_capability_but_the_reserved_one_has_a_protocol() -> None:
    assert set(PROTOCOLS) == OPTIONAL_CAPABILITIES - {"search-lexical"}


@pytest.fixture(params=sorted(BUILTIN))
def provider(request: pytest.FixtureRequest, tmp_path: Path) -> Provider:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "state").mkdir()
    return open_provider(request.param, tmp_path, tmp_path / "state", "w1")


def test_declared_capabilities_match_the_methods(provider: Provider) -> None:
    declared = provider.manifest().capabilities
    for capability, protocol in PROTOCOLS.items():
        assert (capability in declared) == isinstance(provider, protocol), (provider.manifest().name, capability)


def test_the_store_reads_payloads_the_same_with_or_without_a_snapshot(provider: Provider) -> None:
    event = R.event("snapshot")
    store = Store(provider, event["scope"])
    store.append([event])
    [read] = [i.record for i in store.items(["event"], payloads=True)]
    bare = {k: v for k, v in event.items() if k != "payload"}
    store.attach_payloads([bare])
    assert read["payload"] == bare["payload"] == event["payload"]


def test_reading_some_streams_is_reading_everything_and_keeping_them(provider: Provider) -> None:
    records = [R.event(f"e{n}", episode=f"ep{n % 3}", seq=n) for n in range(9)] + [R.grant("g")]
    store = Store(provider, R.SCOPE)
    store.append(records)
    everything = list(store.items())
    wanted = {everything[0].stored.stream, everything[-1].stored.stream}
    some = list(store.items(streams=wanted))
    assert [i.digest for i in some] == [i.digest for i in everything if i.stored.stream in wanted]
    assert len(some) < len(everything)


def test_reading_many_streams_is_reading_everything_and_keeping_them(provider: Provider) -> None:
    """More streams than a read searches an append for one by one (a learning list's cited
    episodes): the same records, in the same order, with the same places."""
    store = Store(provider, R.SCOPE)
    for part in range(3):
        store.append([R.event(f"e{part}-{n}", episode=f"ep{n % 14}", seq=n) for n in range(28)] + [R.grant(f"g{part}")])
    everything = list(store.items())
    wanted = {i.stored.stream for i in everything if i.kind == "event"}
    wanted = set(sorted(wanted)[:11]) | {next(i.stored.stream for i in everything if i.kind == "grant")}
    some = list(store.items(streams=wanted))
    assert [i.stored for i in some] == [i.stored for i in everything if i.stored.stream in wanted]
    assert 0 < len(some) < len(everything)


def test_reading_some_digests_is_reading_everything_and_keeping_them(provider: Provider) -> None:
    records = [R.event(f"e{n}", episode=f"ep{n % 3}", seq=n) for n in range(9)] + [R.grant("g")]
    store = Store(provider, R.SCOPE)
    store.append(records)
    everything = list(store.items())
    wanted = {everything[1].stored.stream, everything[2].stored.stream}
    digests = {i.digest for i in everything[::2]}
    some = list(store.items(streams=wanted, digests=digests))
    assert [i.digest for i in some] == [i.digest for i in everything
                                        if i.stored.stream in wanted and i.digest in digests]
    assert 0 < len(some) < len([i for i in everything if i.stored.stream in wanted])
    assert [i.digest for i in store.items(digests=digests)] == [i.digest for i in everything if i.digest in digests]
