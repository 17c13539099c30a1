"""The local namespace's packs rolled up once captures have made many: every record, payload
and unreferenced object stays; gc and another roll-up are never beside one."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from pathlib import Path

import pygit2

from gitstore.conformance import _records as R
from gitstore.conformance import entries_for
from gitstore.providers import Stream
from gitstore.providers._maintain import GC_LOCK, pack_count, roll_up_local
from gitstore.providers.git import GitProvider

from .conftest import git


def local_packs(tmp_path: Path, packs: int) -> tuple[GitProvider, Path]:
    """A repository whose local namespace holds ``packs`` packs, one per capture-sized append."""
    path = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(path))
    provider = GitProvider(path, "w1")
    for n in range(packs):
        records = [R.event(f"s{n}-{i}", episode=f"s{n}", seq=i) for i in range(60)]
        provider.append_stream(Stream(iter(entries_for(records)), lambda: "local"))
    return provider, path / ".git" / "gitstore"


def stored(provider: GitProvider) -> tuple[list[str], list[bytes | None]]:
    records = sorted(provider.read(), key=lambda s: s.digest)
    payloads = [json.loads(s.data).get("payloadDigest") for s in records if s.kind == "event"]
    return [s.digest for s in records], [provider.payload(p) for p in payloads if p]


def test_many_local_packs_roll_up_and_every_record_and_payload_stays(tmp_path: Path) -> None:
    provider, state = local_packs(tmp_path, 6)
    local = state / "local"
    before = stored(provider)
    assert pack_count(local) == 6 and len(before[0]) == len(before[1]) == 360 and all(before[1])
    assert not roll_up_local(state, limit=6) and pack_count(local) == 6  # not more than the limit
    assert roll_up_local(state, limit=4)
    assert pack_count(local) < 3
    assert stored(GitProvider(state.parent.parent, "w1")) == before
    assert GitProvider(state.parent.parent, "w1").verify().ok


def test_an_object_no_ref_names_yet_is_kept(tmp_path: Path) -> None:
    """An append that has written its pack but not moved its ref yet loses nothing."""
    provider, state = local_packs(tmp_path, 3)
    local = state / "local"
    blob = pygit2.Repository(str(local)).odb.write(pygit2.enums.ObjectType.BLOB, b"an append under way")
    subprocess.run(["git", f"--git-dir={local}", "pack-objects", "-q", str(local / "objects" / "pack" / "pack")],
                   input=f"{blob}\n".encode(), check=True, capture_output=True)
    assert pack_count(local) == 4 and roll_up_local(state, limit=2)
    assert pygit2.Repository(str(local)).odb.read(blob)[1] == b"an append under way"


def test_no_roll_up_while_gc_runs(tmp_path: Path) -> None:
    provider, state = local_packs(tmp_path, 3)
    fd = os.open(state / GC_LOCK, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # gitstore gc holds every append and roll-up back
        assert not roll_up_local(state, limit=1) and pack_count(state / "local") == 3
    finally:
        os.close(fd)
    assert roll_up_local(state, limit=1)


def test_gc_rolls_the_local_packs_up(tmp_path: Path) -> None:
    provider, state = local_packs(tmp_path, 3)
    before = stored(provider)
    provider.gc()
    assert pack_count(state / "local") == 1 and stored(GitProvider(state.parent.parent, "w1")) == before
