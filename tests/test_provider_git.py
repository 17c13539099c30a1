"""The git provider beyond the shared suite: its layout on disk, damage planted with plain git,
truncated and rewound histories, racing writes injected between read and swap, two clones."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pygit2
import pytest

from gitstore.providers._packs import Database
from gitstore import IntegrityError, Refused
from gitstore.capture.sessions import import_transcript
from gitstore.cli import main
from gitstore.conformance import _records as R
from gitstore.conformance import batch, entries_for
from gitstore.providers._message import (MAX_SEEN, _block_in, _split, record_lines, record_lines_holding,
                                        record_lines_of)
from gitstore.providers import Stream
from gitstore.providers._gitdirs import state_dir
from gitstore.providers.git import (
    GitProvider, RefInfo, format_message, note_path, parse_message, parse_order, payload_path, payloads_ref, record_path,
    records_ref,
)
from gitstore.context import Context
from gitstore.store import Store

from .conftest import GIT_ENV, all_objects, git
from .world import claude_transcript, grant_all, ready_repo


@pytest.fixture
def store_repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(path))
    return path


def plant(repo: Path, ref: str, path: str, blob_oid: str, *, mode: str = "100644",
          kind: str = "blob", message: str | None = None) -> str:
    """Add one entry to ``ref``'s tree with hash-object/mktree/commit-tree/update-ref."""
    tip = git(repo, "rev-parse", ref).strip()
    tree = git(repo, "rev-parse", f"{tip}^{{tree}}").strip()
    new_tree = _mktree_with(repo, tree, path.split("/"), f"{mode} {kind} {blob_oid}")
    if message is None:
        message = git(repo, "log", "-1", "--format=%B", tip)
        header = parse_message(message)
        digest = "sha256:" + path.rsplit("/", 1)[-1].removesuffix(".json")
        lines = [f"{digest} {path.split('/')[0]} planted"]
        message = (f"gitstore: append 1 record\n\nGitstore-Format: 1\nClock: {header.clock + 1}\n"
                   f"Writer: {header.writer}\nNamespace: {header.namespace}\n\n" + "\n".join(lines) + "\n")
    commit = subprocess.run(["git", "commit-tree", new_tree, "-p", tip], cwd=repo, input=message,
                            capture_output=True, text=True, check=True).stdout.strip()
    git(repo, "update-ref", ref, commit, tip)
    return commit


def _mktree_with(repo: Path, tree: str | None, parts: list[str], leaf: str) -> str:
    entries = {}
    if tree:
        for line in git(repo, "ls-tree", tree).splitlines():
            meta, name = line.split("\t", 1)
            entries[name] = meta
    name = parts[0]
    if len(parts) == 1:
        entries[name] = leaf
    else:
        sub = entries.get(name)
        sub_tree = sub.split()[2] if sub and sub.split()[1] == "tree" else None
        entries[name] = f"040000 tree {_mktree_with(repo, sub_tree, parts[1:], leaf)}"
    text = "".join(f"{meta}\t{name}\n" for name, meta in sorted(entries.items()))
    return subprocess.run(["git", "mktree"], cwd=repo, input=text, capture_output=True, text=True,
                          check=True).stdout.strip()


def hash_object(repo: Path, data: bytes) -> str:
    return subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, input=data,
                          capture_output=True, check=True).stdout.decode().strip()


def problems(repo: Path) -> list[str]:
    return [str(p) for p in GitProvider(repo, "w1").verify().problems]


@pytest.fixture
def seeded(store_repo: Path) -> Path:
    provider = GitProvider(store_repo, "w1")
    provider.append(batch(R.event("e1"), R.grant("g1")))
    provider.append(batch(R.grant("g2")))
    return store_repo


REF = records_ref("shared", "w1")


def test_layout_is_walkable_with_plain_git(seeded: Path) -> None:
    event = R.event("e1")
    listing = git(seeded, "ls-tree", "-r", "--name-only", REF).split()
    assert record_path("event", event["digest"]) in listing
    assert len(listing) == 3
    blob = git(seeded, "cat-file", "blob", f"{REF}:{record_path('event', event['digest'])}")
    stored = json.loads(blob)
    assert stored["digest"] == event["digest"] and "payload" not in stored
    payloads = git(seeded, "ls-tree", "-r", "--name-only", "refs/memory/v1/payloads/shared/w1").split()
    assert payloads == [payload_path(event["payloadDigest"])]
    assert git(seeded, "rev-list", "--count", "refs/memory/v1/payloads/shared/w1").strip() == "1"
    log = git(seeded, "log", "--format=%B", REF)
    assert "Clock: 2" in log and "Clock: 1" in log and f"{event['digest']} event" in log
    assert git(seeded, "status", "--porcelain") == ""
    subprocess.run(["git", "fsck", "--strict"], cwd=seeded, check=True, capture_output=True)


def test_planted_record_with_a_broken_digest_is_named(seeded: Path) -> None:
    good = R.grant("planted")
    forged = entries_for([good])[0].data.replace(b"grant planted", b"grant forged!")
    plant(seeded, REF, record_path("grant", good["digest"]), hash_object(seeded, forged))
    found = problems(seeded)
    assert any(good["digest"] in p and "does not match" in p for p in found), found
    with pytest.raises(IntegrityError, match=good["digest"]):
        list(Store(GitProvider(seeded, "w1"), R.SCOPE).items())


def test_planted_record_at_the_wrong_path_is_named(seeded: Path) -> None:
    record = R.grant("misplaced")
    data = entries_for([record])[0].data
    hexd = record["digest"][7:]
    path = f"grant/00/00/{hexd}.json" if not hexd.startswith("0000") else f"grant/ff/ff/{hexd}.json"
    plant(seeded, REF, path, hash_object(seeded, data))
    assert any(path in p and "wrong path" in p for p in problems(seeded))


@pytest.mark.parametrize(("mode", "kind"), [("120000", "blob"), ("160000", "commit"), ("100755", "blob")])
def test_symlink_gitlink_and_executable_entries_are_damage(seeded: Path, mode: str, kind: str) -> None:
    record = R.grant(f"mode-{mode}")
    target = hash_object(seeded, entries_for([record])[0].data) if kind == "blob" else git(seeded, "rev-parse", REF).strip()
    path = record_path("grant", record["digest"])
    plant(seeded, REF, path, target, mode=mode, kind=kind)
    assert any(path in p and "not a regular file" in p for p in problems(seeded)), problems(seeded)


def test_unlisted_tree_entry_is_damage(seeded: Path) -> None:
    record = R.grant("unlisted")
    path = record_path("grant", record["digest"])
    tip = git(seeded, "rev-parse", REF).strip()
    message = git(seeded, "log", "-1", "--format=%B", tip).replace("Clock: 2", "Clock: 3")
    plant(seeded, REF, path, hash_object(seeded, entries_for([record])[0].data), message=message)
    assert any("not in the commit's record list" in p for p in problems(seeded))


def test_unknown_schema_version_planted(seeded: Path) -> None:
    record = R.grant("future")
    data = entries_for([record])[0].data.replace(b"grant/v1", b"grant/v2")
    plant(seeded, REF, record_path("grant", record["digest"]), hash_object(seeded, data))
    assert any("unknown schema version" in p for p in problems(seeded))


def test_truncated_history_is_named(seeded: Path) -> None:
    first = git(seeded, "rev-list", "--reverse", REF).split()[0]
    (seeded / ".git" / "objects" / first[:2] / first[2:]).unlink()
    assert any("history truncated" in p for p in problems(seeded))
    with pytest.raises(IntegrityError, match="truncated"):
        list(GitProvider(seeded, "w1").read())


def test_rewound_writer_ref_is_named_and_refused(seeded: Path) -> None:
    first = git(seeded, "rev-list", "--reverse", REF).split()[0]
    git(seeded, "update-ref", REF, first)
    assert any("moved back" in p for p in problems(seeded))
    with pytest.raises(IntegrityError, match="moved back"):
        GitProvider(seeded, "w1").append(batch(R.grant("after-rewind")))


def test_merge_commits_are_damage(seeded: Path) -> None:
    tip = git(seeded, "rev-parse", REF).strip()
    tree = git(seeded, "rev-parse", f"{tip}^{{tree}}").strip()
    message = git(seeded, "log", "-1", "--format=%B", tip).replace("Clock: 2", "Clock: 3")
    merge = subprocess.run(["git", "commit-tree", tree, "-p", tip, "-p", f"{tip}~1"], cwd=seeded,
                           input=message, capture_output=True, text=True, check=True).stdout.strip()
    git(seeded, "update-ref", REF, merge)
    assert any("merge" in p for p in problems(seeded))


def test_a_local_namespace_another_process_creates_is_read_and_counted(seeded: Path) -> None:
    """A provider opened before the local namespace's repository existed reads the records
    another process stores there, and its next append's clock counts them."""
    provider = GitProvider(seeded, "w1")
    assert [s.digest for s in provider.read()]  # opened and read while there is no local namespace
    mine = R.event("mine-local")
    code = ("import sys; from gitstore.conformance import _records as R, batch;"
            " from gitstore.providers.git import GitProvider;"
            " GitProvider(sys.argv[1], 'w2').append(batch(R.event('mine-local'), namespace='local'))")
    subprocess.run([sys.executable, "-c", code, str(seeded)], check=True, env=os.environ | GIT_ENV)
    assert mine["digest"] in {s.digest for s in provider.read()}
    later = R.grant("after-local")
    provider.append(batch(later))
    stored = {s.digest: s.clock for s in provider.read()}
    assert stored[later["digest"]] > stored[mine["digest"]]


def test_write_injected_between_read_and_swap(seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    provider = GitProvider(seeded, "w1")
    injected = R.grant("injected")
    original = GitProvider._max_clock
    calls = {"n": 0}

    def racing_clock(self: GitProvider, tips: list[tuple[RefInfo, pygit2.Oid]]) -> int:
        calls["n"] += 1
        if calls["n"] == 1:  # another writer moves the ref after we read the tip
            other = pygit2.Repository(str(seeded))
            tip = other.references[REF].target
            tree = other[tip].peel(pygit2.Tree)
            sub = _builder_add(other, tree, record_path("grant", injected["digest"]),
                               other.create_blob(entries_for([injected])[0].data))
            sig = pygit2.Signature("gitstore", "gitstore@localhost")
            message = (f"gitstore: append 1 record\n\nGitstore-Format: 1\nClock: 3\nWriter: w1\n"
                       f"Namespace: shared\n\n{injected['digest']} grant consent\n")
            other.create_commit(REF, sig, sig, message, sub, [tip])
        return original(self, tips)

    monkeypatch.setattr(GitProvider, "_max_clock", racing_clock)
    mine = R.grant("mine")
    provider.append(batch(mine))
    digests = [s.digest for s in GitProvider(seeded, "w1").read()]
    assert digests[-2:] == [injected["digest"], mine["digest"]]
    assert calls["n"] >= 2, "the swap should have failed once and been retried"
    assert GitProvider(seeded, "w1").verify().ok


def _builder_add(repo: pygit2.Repository, tree: pygit2.Tree | None, path: str, blob: pygit2.Oid) -> pygit2.Oid:
    head, _, rest = path.partition("/")
    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    if not rest:
        builder.insert(head, blob, pygit2.GIT_FILEMODE_BLOB)
    else:
        sub = repo[tree[head].id] if tree is not None and head in tree else None
        builder.insert(head, _builder_add(repo, sub, rest, blob), pygit2.GIT_FILEMODE_TREE)
    return builder.write()


def _paired_clones(tmp_path: Path) -> tuple[Path, Path]:
    """Two clones, each the other's remote, fetching shared memory as ``gitstore init`` sets up."""
    a = tmp_path / "a"
    git(tmp_path, "init", "-q", str(a))
    git(a, "commit", "-q", "--allow-empty", "-m", "root")
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(a), str(b))
    git(a, "remote", "add", "b", str(b))
    for clone, remote in ((a, "b"), (b, "origin")):
        git(clone, "config", "--add", f"remote.{remote}.fetch",
            f"refs/memory/v1/records/shared/*:refs/memory/v1/remotes/{remote}/records/shared/*")
        git(clone, "config", "--add", f"remote.{remote}.fetch",
            f"+refs/memory/v1/payloads/shared/*:refs/memory/v1/remotes/{remote}/payloads/shared/*")
    return a, b


def test_two_clones_exchanging_refs_read_the_same_order(tmp_path: Path) -> None:
    a, b = _paired_clones(tmp_path)
    pa, pb = GitProvider(a, "wa"), GitProvider(b, "wb")
    pa.append(batch(R.grant("a1")))
    pb.append(batch(R.grant("b1")))
    shared = R.event("both")
    pa.append(batch(shared))
    pb.append(batch(shared, R.grant("b2")))
    git(a, "fetch", "-q", "b")
    git(b, "fetch", "-q", "origin")
    order_a = [s.digest for s in GitProvider(a, "wa").read()]
    order_b = [s.digest for s in GitProvider(b, "wb").read()]
    assert order_a == order_b
    assert len(order_a) == len(set(order_a)) == 4
    assert GitProvider(a, "wa").payload(shared["payloadDigest"]) is not None
    assert GitProvider(a, "wa").verify().ok and GitProvider(b, "wb").verify().ok
    # a remote that rewinds a writer is refused by the fast-forward-only refspec
    first = git(b, "rev-list", "--reverse", "refs/memory/v1/records/shared/wb").split()[0]
    git(b, "update-ref", "refs/memory/v1/records/shared/wb", first)
    before = git(a, "rev-parse", "refs/memory/v1/remotes/b/records/shared/wb")
    done = subprocess.run(["git", "fetch", "b"], cwd=a, capture_output=True, text=True)
    assert done.returncode != 0 and "non-fast-forward" in done.stderr
    assert git(a, "rev-parse", "refs/memory/v1/remotes/b/records/shared/wb") == before


def _fetching_clone(tmp_path: Path, peer: Path) -> Path:
    mine = tmp_path / "mine"
    git(tmp_path, "clone", "-q", str(peer), str(mine))
    git(mine, "config", "--add", "remote.origin.fetch",
        "refs/memory/v1/records/shared/*:refs/memory/v1/remotes/origin/records/shared/*")
    git(mine, "fetch", "-q", "origin")
    return mine


def test_a_hostile_remote_is_quarantined_and_read_up_to_its_damage(tmp_path: Path) -> None:
    peer = tmp_path / "peer"
    git(tmp_path, "init", "-q", str(peer))
    git(peer, "commit", "-q", "--allow-empty", "-m", "root")
    GitProvider(peer, "wpeer").append(batch(R.grant("honest")))
    forged = entries_for([R.grant("forged")])[0]
    plant(peer, records_ref("shared", "wpeer"), record_path("grant", forged.digest),
          hash_object(peer, forged.data.replace(b"grant forged", b"grant FORGED")))
    mine = _fetching_clone(tmp_path, peer)
    GitProvider(mine, "w1").append(batch(R.grant("mine")))
    fetched = "refs/memory/v1/remotes/origin/records/shared/wpeer"
    found = [str(p) for p in GitProvider(mine, "w1").verify().problems]
    assert any(fetched in p and forged.digest in p for p in found), found
    provider = GitProvider(mine, "w1")
    store = Store(provider, R.SCOPE)
    # the ref is read up to the commit before the damage (its honest first append), never the
    # forged one; this clone's own records read
    assert sorted(i.digest for i in store.items()) == sorted([R.grant("mine")["digest"], R.grant("honest")["digest"]])
    [left] = store.left_out()
    assert left.where == fetched and forged.digest in left.message and "quarantined" in left.message
    admitted = json.loads((mine / ".git" / "gitstore" / "admitted.json").read_text())
    assert admitted[fetched]["problem"] and forged.digest in admitted[fetched]["problem"]
    assert admitted[fetched]["admitted"] == git(mine, "rev-parse", f"{fetched}~1").strip()
    GitProvider(mine, "w1").append(batch(R.grant("still writes")))


def test_fetched_commits_are_verified_once_and_only_what_is_new(tmp_path: Path) -> None:
    peer = tmp_path / "peer"
    git(tmp_path, "init", "-q", str(peer))
    git(peer, "commit", "-q", "--allow-empty", "-m", "root")
    GitProvider(peer, "wpeer").append(batch(R.grant("first")))
    mine = _fetching_clone(tmp_path, peer)
    fetched = "refs/memory/v1/remotes/origin/records/shared/wpeer"
    [admission] = GitProvider(mine, "w1").admit()
    assert admission.admitted and admission.ref == fetched
    # a commit planted in what was admitted is not looked at again: only new commits are
    GitProvider(peer, "wpeer").append(batch(R.grant("second")))
    git(mine, "fetch", "-q", "origin")
    from gitstore.providers import _verify_git

    seen: list[object] = []
    real = _verify_git._chain

    def counting(repo, ref, tip, report, since=None):  # type: ignore[no-untyped-def]
        chain = real(repo, ref, tip, report, since)
        seen.extend(chain)
        return chain

    _verify_git._chain = counting  # type: ignore[assignment]
    try:
        digests = [s.digest for s in GitProvider(mine, "w1").read()]
        assert len(seen) == 1  # the one new commit
        assert [s.digest for s in GitProvider(mine, "w1").read()] == digests and len(seen) == 1
    finally:
        _verify_git._chain = real  # type: ignore[assignment]
    assert digests == [R.grant("first")["digest"], R.grant("second")["digest"]]


# -- streamed appends ----------------------------------------------------------------------------

def _pack_files(repo: Path) -> set[str]:
    return {p.name for p in (repo / ".git" / "objects" / "pack").glob("*")}


def test_a_snapshot_ref_lock_a_killed_append_left_is_waited_out(store_repo: Path) -> None:
    """An append killed while it moved its payload snapshot leaves the ref's lock behind; the
    next append waits until the lock is stale and goes on, as it does for the records ref."""
    provider = GitProvider(store_repo, "w1")
    provider.append(batch(R.event("first", text="x" * 50)))
    lock = store_repo / ".git" / f"{payloads_ref('shared', 'w1')}.lock"
    lock.write_text("")  # what a killed libgit2 leaves: a fresh lock
    aged = time.time() - 60
    timer = threading.Timer(0.3, os.utime, (lock, (aged, aged)))  # it grows stale meanwhile
    timer.start()
    try:
        second = R.event("second", text="y" * 50)
        provider.append(batch(second))
    finally:
        timer.cancel()
    assert not lock.exists()
    assert second["digest"] in {s.digest for s in GitProvider(store_repo, "w1").read()}
    assert provider.payload(second["payloadDigest"]) is not None


def test_a_streamed_bulk_append_lands_as_one_pack(store_repo: Path) -> None:
    provider = GitProvider(store_repo, "w1")
    records = [R.event(f"bulk{i}", episode="bulk", seq=i) for i in range(1000)]
    provider.append_stream(Stream(iter(entries_for(records)), lambda: "shared"))
    packs = _pack_files(store_repo)
    assert len([p for p in packs if p.endswith(".pack")]) == 1 and len(packs) == 2, packs
    loose = git(store_repo, "count-objects", "-v").split("\n")[0]
    assert loose == "count: 2", loose  # only the records commit and the payload snapshot commit
    assert provider.verify().ok


def test_a_refused_stream_leaves_no_files(store_repo: Path) -> None:
    provider = GitProvider(store_repo, "w1")
    records = [R.event(f"no{i}", episode="no", seq=i) for i in range(1000)]

    def entries():  # type: ignore[no-untyped-def]
        yield from entries_for(records)
        raise Refused("the last record is refused")

    with pytest.raises(Refused):
        provider.append_stream(Stream(entries(), lambda: "shared"))
    assert _pack_files(store_repo) == set()
    assert git(store_repo, "count-objects").startswith("0 objects")
    assert list(provider.read()) == []


def _slow_streaming_child(repo: Path, tag: str) -> int:
    """Fork a child that streams 600 events into REPO, pausing every 50; return its pid. It
    exits 0 once its append returned, 1 if it raised."""
    prepared = entries_for([R.event(f"{tag}{i}", episode=tag, seq=i) for i in range(600)])
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 1
        try:
            def slowly():  # type: ignore[no-untyped-def]
                for j, entry in enumerate(prepared):
                    if j % 50 == 0:
                        time.sleep(0.05)
                    yield entry

            GitProvider(repo, "w1").append_stream(Stream(slowly(), lambda: "shared"))
            code = 0
        finally:
            os._exit(code)
    return pid


def _scratch(repo: Path) -> set[str]:
    folder = repo / ".git" / "gitstore" / "tmp"
    return {p.name for p in folder.glob("*")} if folder.is_dir() else set()


def _wait_for_a_temporary_pack(repo: Path) -> None:
    """Until the streaming child has started its pack (nothing refers to it yet)."""
    deadline = time.monotonic() + 30
    while not any(name.startswith("tmp_pack_") for name in _scratch(repo)):
        assert time.monotonic() < deadline, "the child never started its pack"
        time.sleep(0.005)


def test_gc_removes_what_a_killed_import_left(store_repo: Path) -> None:
    pid = _slow_streaming_child(store_repo, "killed")
    _wait_for_a_temporary_pack(store_repo)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert _scratch(store_repo)  # the killed append's half-written pack, in gitstore's own folder
    GitProvider(store_repo, "w1").gc()
    assert not _scratch(store_repo) and not any(name.startswith("tmp_") for name in _pack_files(store_repo))
    assert list(GitProvider(store_repo, "w1").read()) == []


def _redacted_and_collected(repo: Path) -> tuple[GitProvider, dict[str, Any], list[dict[str, Any]]]:
    """A bulk append of 401 events, then one event's payload redacted and collected."""
    secret = R.event("again", text="text-that-was-removed")
    records = [secret] + [R.event(f"re{i}", episode="re", seq=i) for i in range(400)]
    provider = GitProvider(repo, "w1")
    provider.append_stream(Stream(iter(entries_for(records)), lambda: "shared"))
    provider.append(batch(R.audit("asked", [], action="redact"), removals=[(
        secret["payloadDigest"], b'{"at":"2026-08-01T00:00:00.000000Z","by":"github:1","reason":"asked","sourceId":null}')]))
    provider.gc()
    return provider, secret, records


def _every_object(repo: Path) -> bytes:
    return subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo,
                          capture_output=True, check=True).stdout


def test_a_redacted_payload_stays_out_of_the_object_database_when_reimported(store_repo: Path) -> None:
    provider, secret, records = _redacted_and_collected(store_repo)
    result = provider.append_stream(Stream(iter(entries_for(records)), lambda: "shared"))
    assert result.added == () and len(result.existing) == len(records)
    assert b"text-that-was-removed" not in _every_object(store_repo)
    assert provider.payload(secret["payloadDigest"]) is None


def test_a_redacted_payload_stays_out_when_reimported_among_new_records(store_repo: Path) -> None:
    """A bulk append of stored and new records, one new record carrying a removed payload:
    neither the stored record's payload nor the new one's is written again."""
    provider, secret, records = _redacted_and_collected(store_repo)
    twin = R.event("again", seq=1, text="text-that-was-removed")  # another record, the same payload
    assert twin["payloadDigest"] == secret["payloadDigest"]
    more = [R.event(f"new{i}", episode="new", seq=i) for i in range(400)]
    result = provider.append_stream(Stream(iter(entries_for([*records, twin, *more])), lambda: "shared"))
    assert len(result.added) == 401 and len(result.existing) == len(records)
    assert b"text-that-was-removed" not in _every_object(store_repo)
    assert provider.verify().ok


def test_an_append_stores_a_payload_whose_note_is_not_honoured(store_repo: Path) -> None:
    """What an append leaves out follows the notes honoured (``judge_notes``), as reads do: a
    note the judge refuses (one that carries no authority) removes nothing, so a later record
    carrying that payload stores it and it reads back. The judge is asked about the noted
    payloads an append carries, and an append carrying none asks it nothing."""
    note = b'{"at":"2026-08-01T00:00:00.000000Z","by":"github:1","reason":"asked","sourceId":null}'
    secret = R.event("noted", text="text-with-a-note")
    GitProvider(store_repo, "w2").append(batch(R.audit("asked", [], action="redact"),
                                              removals=[(secret["payloadDigest"], note)]))
    asked: list[str] = []

    def refuse(digest: str, _note: bytes, _append: str | None) -> bool:
        asked.append(digest)
        return False

    provider = GitProvider(store_repo, "w1")
    provider.judge_notes(refuse)
    provider.append(batch(R.event("plain", episode="p", seq=1)))
    assert asked == []
    provider.append(batch(secret))
    assert asked == [secret["payloadDigest"]]
    assert json.loads(provider.payload(secret["payloadDigest"]) or b"null") == secret["payload"]
    honouring = GitProvider(store_repo, "w3")  # the default judge honours every note
    twin = R.event("noted", seq=1, text="text-with-a-note")
    honouring.append(batch(twin))
    assert honouring.repo.references.get(payloads_ref("shared", "w3")) is None


def test_a_bulk_append_keeps_what_its_own_tip_and_other_writers_hold(store_repo: Path) -> None:
    """Entries stored by this writer (found by the merge) and by another (looked up first)
    are existing ones, in input order; the rest are added, and the store verifies."""
    mine = [R.event(f"m{i}", episode="m", seq=i) for i in range(300)]
    theirs = [R.event(f"t{i}", episode="t", seq=i) for i in range(300)]
    GitProvider(store_repo, "w1").append_stream(Stream(iter(entries_for(mine)), lambda: "shared"))
    GitProvider(store_repo, "w2").append_stream(Stream(iter(entries_for(theirs)), lambda: "shared"))
    fresh = [R.event(f"f{i}", episode="f", seq=i) for i in range(300)]
    records = [r for trio in zip(mine[:100], theirs[:100], fresh) for r in trio] + fresh[100:]
    result = GitProvider(store_repo, "w1").append_stream(Stream(iter(entries_for(records)), lambda: "shared"))
    assert list(result.added) == [r["digest"] for r in fresh]
    assert list(result.existing) == [r["digest"] for pair in zip(mine[:100], theirs[:100]) for r in pair]
    report = GitProvider(store_repo, "w1").verify()
    assert report.ok and report.records == 900, report.problems


def test_gc_waits_for_an_append_under_way(store_repo: Path) -> None:
    pid = _slow_streaming_child(store_repo, "gcw")
    _wait_for_a_temporary_pack(store_repo)  # the child's objects are unreferenced until it commits
    GitProvider(store_repo, "w1").gc()
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, "the append was torn by gc"
    provider = GitProvider(store_repo, "w1")
    assert len(list(provider.read())) == 600 and provider.verify().ok


# -- the local namespace: a repository of its own that no push reaches ---------------------------

PERSONAL = "words-from-a-personal-agent-session"


def _personal_store(tmp_path: Path) -> Context:
    ctx = ready_repo(tmp_path / "repo")
    grant_all(ctx)  # shared
    transcript = claude_transcript(tmp_path / "s.jsonl", [("user", f"Please fix the retry: {PERSONAL}."),
                                                          ("assistant", "Done: added jitter.")])
    import_transcript(ctx, transcript, mode="transcript")
    return ctx


def _mirror(repo: Path, tmp_path: Path) -> tuple[str, bytes]:
    remote = tmp_path / "mirror.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "push", "-q", "--mirror", str(remote))
    objects = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=remote,
                             capture_output=True, check=True).stdout
    return git(remote, "for-each-ref", "--format=%(refname)"), objects


def test_a_mirror_push_carries_no_local_record_payload_or_envelope(tmp_path: Path) -> None:
    ctx = _personal_store(tmp_path)
    kinds = {i.kind: i.stored.namespace for i in ctx.store.items()}
    assert kinds["envelope"] == kinds["receipt"] == kinds["episode"] == kinds["event"] == "local"
    refs, objects = _mirror(ctx.workspace.root, tmp_path)
    assert "refs/memory/v1/records/shared/" in refs and "/local/" not in refs
    assert PERSONAL[:12].encode() not in objects
    for kind in ("envelope", "receipt", "episode", "event"):
        assert f"gitstore.{kind}/v1".encode() not in objects
    assert b"gitstore.grant/v1" in objects
    assert PERSONAL.encode() in all_objects(ctx.workspace.root)  # kept here, in .git/gitstore/local


def test_local_refs_left_in_the_repository_are_named_then_moved(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _personal_store(tmp_path)
    repo = ctx.workspace.root
    local = repo / ".git" / "gitstore" / "local"
    names = git(local, "for-each-ref", "--format=%(refname)").split()
    git(repo, "fetch", "-q", str(local), *[f"{n}:{n}" for n in names])  # the layout older versions wrote
    shutil.rmtree(local)
    monkeypatch.chdir(repo)
    report = json.loads(_run_json(["verify", "--json"], code=3))
    assert {p["where"] for p in report["problems"]} == set(names)
    assert all("push --mirror" in p["message"] for p in report["problems"])
    assert {i.kind for i in Context.open(str(repo)).store.items()} >= {"envelope", "receipt", "event"}
    assert main(["init"]) == 0
    assert git(repo, "for-each-ref", "refs/memory/v1/records/local", "refs/memory/v1/payloads/local") == ""
    assert json.loads(_run_json(["verify", "--json"]))["ok"]
    assert PERSONAL.encode() in all_objects(repo)
    assert main(["gc"]) == 0
    main_objects = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo,
                                  capture_output=True, check=True).stdout
    assert PERSONAL[:12].encode() not in main_objects  # the copies left behind are erased
    refs, objects = _mirror(repo, tmp_path)
    assert "/local/" not in refs and PERSONAL[:12].encode() not in objects
    assert {i.kind for i in Context.open(str(repo)).store.items(payloads=True)} >= {"envelope", "event"}


def _run_json(argv: list[str], code: int = 0) -> str:
    done = subprocess.run([sys.executable, "-m", "gitstore", *argv], capture_output=True, text=True)
    assert done.returncode == code, done.stderr
    return done.stdout


def test_checks_are_remembered_per_commit_and_resume_where_they_stopped(store_repo: Path) -> None:
    provider = GitProvider(store_repo, "w1")
    grants = [R.grant(f"checked{i}") for i in range(4)]
    for record in grants[:3]:
        provider.append(batch(record))
    fresh, done = provider.read_unchecked(["grant"], "k")
    assert next(fresh).digest == grants[0]["digest"]
    assert next(fresh).digest == grants[1]["digest"]  # asking for it finished the first commit
    done()  # cut short here
    fresh, done = GitProvider(store_repo, "w1").read_unchecked(["grant"], "k")
    assert [s.digest for s in fresh] == [g["digest"] for g in grants[1:3]]
    done()
    assert list(GitProvider(store_repo, "w1").read_unchecked(["grant"], "k")[0]) == []
    provider.append(batch(grants[3], R.event("not-a-grant")))
    assert [s.digest for s in GitProvider(store_repo, "w1").read_unchecked(["grant"], "k")[0]] == [grants[3]["digest"]]
    assert len(list(provider.read_unchecked(["grant"], "another")[0])) == 4


def test_appends_name_what_they_had_seen_and_saw_follows_it(tmp_path: Path) -> None:
    a, b = _paired_clones(tmp_path)
    pa = GitProvider(a, "wa")
    pa.append(batch(R.grant("a1")))
    a1 = git(a, "rev-parse", records_ref("shared", "wa")).strip()
    git(b, "fetch", "-q", "origin")
    pb = GitProvider(b, "wb")
    pb.append(batch(R.grant("b1")))
    b1 = git(b, "rev-parse", records_ref("shared", "wb")).strip()
    assert f"Seen: wa {a1}\n" in git(b, "log", "-1", "--format=%B", b1)
    pb.append(batch(R.grant("b2")))  # nothing new was seen: no Seen header again
    b2 = git(b, "rev-parse", records_ref("shared", "wb")).strip()
    assert "Seen:" not in git(b, "log", "-1", "--format=%B", b2)
    pa.append(batch(R.grant("a2")))  # made without seeing b's appends
    a2 = git(a, "rev-parse", records_ref("shared", "wa")).strip()
    git(a, "fetch", "-q", "b")
    git(b, "fetch", "-q", "origin")
    for clone, writer in ((a, "wa"), (b, "wb")):
        provider = GitProvider(clone, writer)
        assert provider.saw(b2, a1) and provider.saw(b1, a1) and provider.saw(a2, a1)
        assert not provider.saw(a1, b1) and not provider.saw(a2, b1) and not provider.saw(b2, a2)
        assert provider.verify().ok
    # a clock that says it came before what it had seen is named by verify
    repo = pygit2.Repository(str(b))
    lying = GitProvider(b, "wlie")
    lying.append(batch(R.grant("lie")))
    tip = repo[repo.references[records_ref("shared", "wlie")].target]
    header = parse_message(tip.message)
    message = format_message(1, "wlie", "shared", [entries_for([R.grant("lie")])[0]], seen=[("wa", a2)])
    assert header.clock > 1
    lie = repo.create_commit(None, tip.author, tip.committer, message, tip.tree_id, tip.parent_ids)
    repo.references.create(records_ref("shared", "wlie"), lie, force=True)
    found = [str(p) for p in GitProvider(b, "wb").verify().problems]
    assert any("wlie" in p and "which it says it had seen" in p for p in found), found


@pytest.mark.parametrize("previous", [0, 1, 2**40 - 2**32 - 1, 2**40 - 2**32, 2**40 - 2**21, 2**40 - 5, 2**40,
                                      2**40 + 7])
def test_the_furthest_clock_an_append_takes_follows_its_writers_last_with_nothing_seen(previous: int) -> None:
    """Up to ``furthest`` an append takes its clock from the tips it had seen at their word
    (``_next_clock``: no history walked), and every clone takes it whatever it holds of them:
    the furthest is the last clock verify lets follow with nothing seen, on both sides of the
    limit past which clocks creep."""
    from gitstore.providers._verify_git import follows, furthest

    last = furthest(previous)
    assert follows(last, previous, lambda: 0) and not follows(last + 1, previous, lambda: 0)


def test_an_append_names_no_more_tips_than_an_append_may_carry_and_the_next_names_the_rest(store_repo: Path) -> None:
    """More writers' tips in sight than the ``Seen`` headers an append may carry (which every
    clone refuses as damage): the append names as many as it may, the next one the rest. (The
    other writers' refs all point at one commit: cheap to make, and no store verify passes.)"""
    GitProvider(store_repo, "wother").append(batch(R.grant("other")))
    tip = git(store_repo, "rev-parse", records_ref("shared", "wother")).strip()
    script = "".join(f"create {records_ref('shared', f'w{i:05}')} {tip}\n" for i in range(MAX_SEEN + 1))
    subprocess.run(["git", "update-ref", "--stdin"], input=script, text=True, cwd=store_repo, check=True)
    provider = GitProvider(store_repo, "wme")
    named = []
    for name in ("first", "second", "third"):
        provider.append(batch(R.grant(name)))
        message = git(store_repo, "log", "-1", "--format=%B", records_ref("shared", "wme"))
        named.append({line.split()[1] for line in message.splitlines() if line.startswith("Seen: ")})
    assert [len(n) for n in named] == [MAX_SEEN, 2, 0]  # every writer named once: wother and w00000..
    assert named[0] | named[1] == {"wother", *(f"w{i:05}" for i in range(MAX_SEEN + 1))}


def test_a_tip_named_by_many_appends_is_read_once_by_verify(store_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every append names the tips its writer had seen, so a team's tips are named over and
    over; verify reads each named commit once, not once per header naming it (which grew with
    the cube of the writers: a thousand writers, six minutes for a clone's first sync)."""
    from gitstore.providers import _verify_git

    GitProvider(store_repo, "wother").append(batch(R.grant("other")))
    tip = git(store_repo, "rev-parse", records_ref("shared", "wother")).strip()
    script = "".join(f"create {records_ref('shared', f'w{i:05}')} {tip}\n" for i in range(100))
    subprocess.run(["git", "update-ref", "--stdin"], input=script, text=True, cwd=store_repo, check=True)
    GitProvider(store_repo, "wme").append(batch(R.grant("mine")))  # names all 101 tips: one commit
    assert git(store_repo, "log", "-1", "--format=%B", records_ref("shared", "wme")).count("Seen: ") == 101
    monkeypatch.setattr(_verify_git, "_NAMED", {}, raising=False)
    checking, named = [False], []  # the commits loaded to check Seen headers against
    check, load = _verify_git._seen_problems, _verify_git.load_commit

    def checked(repo: pygit2.Repository, header: object) -> tuple[int, list[str]]:
        checking[0] = True
        try:
            return check(repo, header)
        finally:
            checking[0] = False

    def loaded(repo: pygit2.Repository, oid: str) -> pygit2.Commit:
        if checking[0]:
            named.append(str(oid))
        return load(repo, oid)

    monkeypatch.setattr(_verify_git, "_seen_problems", checked)
    monkeypatch.setattr(_verify_git, "load_commit", loaded)
    GitProvider(store_repo, "wme").verify()
    assert named.count(tip) == 1


@pytest.mark.parametrize("value", ["Wa " + "a" * 40, "wa " + "a" * 39, "wa " + "a" * 41, "wa  " + "a" * 40,
                                   "wa " + "a" * 40 + " ", "wa\t" + "a" * 40, "-wa " + "a" * 40, "wa " + "A" * 40,
                                   " wa " + "a" * 40, "w" * 65 + " " + "a" * 40, "wa " + "\u0663" * 40, "wa"])
def test_a_seen_header_off_format_is_refused_and_named_wherever_it_stands(value: str) -> None:
    good = [("wa", "a" * 40), ("w-" + "b" * 62, "0123456789" * 4)]
    for seen in ([value], [f"{w} {c}" for w, c in good] + [value], [value] + [f"{w} {c}" for w, c in good]):
        message = format_message(3, "wme", "shared", entries_for([R.grant("x")])).replace(
            "Namespace: shared\n", "Namespace: shared\n" + "".join(f"Seen: {v}\n" for v in seen))
        with pytest.raises(ValueError, match="bad Seen") as refused:
            parse_message(message)
        assert repr(value[:80]) in str(refused.value)
    message = format_message(3, "wme", "shared", entries_for([R.grant("x")]), seen=good)
    assert parse_message(message).seen == tuple(good)


def _seen_line_by_line(message: str) -> tuple[tuple[str, str], ...] | None:
    """The Seen headers of a message as the format reads them, line by line (every line end
    ``str.splitlines`` knows), or None when one is off format."""
    headers = message.partition("\n\n")[2].partition("\n\n")[0]
    found = []
    for line in headers.splitlines():
        if line.startswith("Seen: "):
            writer, _, commit = line[len("Seen: "):].partition(" ")
            if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,63}", writer) or not re.fullmatch(r"[0-9a-f]{40}", commit):
                return None
            found.append((writer, commit))
    return tuple(found)


@pytest.mark.parametrize("headers", [
    "Seen: wa {a}\nSeen: wb {b}\n",  # as appends write them
    "Seen: wa {a}\nRemoves: sha256:{d}\nSeen: wb {b}\n",  # apart
    "Removes: sha256:{d}\nSeen: wa {a}\n",
    "Seen: wa {a}\nSeen: wa {a}\n",  # twice
    "Seen: wa {a}\rSeen: wb {b}\n",  # a carriage return ends a line too
    "Seen: wa {a}\r\nSeen: wb {b}\n",
    "Seen: wa {a}\u2028Seen: wb {b}\n",
    "Seen: wa {a}\x1cSeen: wb {b}\n",
    "X-Note: Seen: wb {b}\nSeen: wa {a}\n",  # the words inside another header
    "Seen: wa {a}\nX-Note: a Seen: wb {b}\n",
    "Seen: wa {a}\nSeen: wb {b}x\n",
    "Seen: wa {a}\nSeen: wb {b}\n Seen: wc {a}\n",
    "Seen: wa {a}\nSeen: Wb {b}\n",
    "Seen: wa {a}\nSeen:  wb {b}\n",
    "Seen: wa {a}\nSeen: wb {b} \n",
])
def test_seen_headers_read_fast_say_what_reading_line_by_line_says(headers: str) -> None:
    """Reads take well-formed Seen headers that follow one another out of a message in a few
    string operations; wherever they stand, whatever ends their lines, the answer (or the
    refusal) is the one a reading line by line gives."""
    filled = headers.format(a="a" * 40, b="0123456789" * 4, d="d" * 64)
    message = format_message(3, "wme", "shared", entries_for([R.grant("x")])).replace(
        "Namespace: shared\n", "Namespace: shared\n" + filled)
    expected = _seen_line_by_line(message)
    for parse in (parse_message, parse_order):
        if expected is None:
            with pytest.raises(ValueError, match="bad Seen"):
                parse(message)
        else:
            assert parse(message).seen == expected, (parse.__name__, filled)


def test_record_lines_cut_fast_say_what_the_checked_block_says() -> None:
    """A read cuts a checked record block at its newlines and spaces instead of matching each
    line again: the same lines, in the same order; a line that is not three fields is refused."""
    message = format_message(3, "wme", "shared", entries_for([R.grant("x"), R.grant("y"), R.grant("z")]))
    assert list(record_lines(message)) == list(parse_message(message).lines)
    broken = message.rstrip("\n") + " extra\n"
    with pytest.raises(ValueError, match="bad record line"):
        list(record_lines(broken))


@pytest.mark.parametrize("message", [
    "s\n\nh: 1\n\na b c\n", "s\n\nh: 1\n\na b c", "s\n\nh: 1\n\na b c\n\n\n", "s\n\nh: 1\n\n",
    "s\n\nh: 1\n\n\n\n", "s\n\nh: 1\n", "s\nh", "", "\n\n\n\n", "s\n\nh\n\n\n\na b c\nd e f\n",
])
def test_record_blocks_read_in_place_are_those_split_off(message: str) -> None:
    """A read finds a message's record block in place instead of copying it: the same block."""
    text, start, stop = _block_in(message)
    assert text[start:stop] == _split(message)[2]


@pytest.mark.parametrize("marks", [
    [" x\n"], [" y\n", " x\n"], [" grant "], [" grant ", " learning "], [" nothing\n"],
    [" x\nsha256:"], ["\n"], [" "],  # a mark that spans lines, or is in every line, finds more, never fewer
])
def test_record_lines_found_by_search_are_those_read_line_by_line(marks: list[str]) -> None:
    """A read of a few streams or kinds searches an append's record block for them: every line
    holding a mark comes back, at its position, as reading every line gives it."""
    lines = "".join(f"sha256:{n:064x} {kind} {stream}\n" for n, (kind, stream) in enumerate(
        [("grant", "x"), ("learning", "y"), ("grant", "x"), ("event", "z"), ("learning", "y"), ("event", "x")]))
    head = format_message(3, "wme", "shared", entries_for([R.grant("x")]))
    message = head[:head.rindex("\n\n") + 2] + lines
    assert parse_order(message).kinds == {"grant", "learning", "event"}
    every = [(position, *line) for position, line in enumerate(record_lines(message))]
    found = list(record_lines_holding(message, marks))
    assert found == sorted(set(found))
    assert set(found) <= set(every)
    assert [line for line in every if any(mark in " ".join(line[1:]) + "\n" for mark in marks)] == [
        line for line in found if any(mark in " ".join(line[1:]) + "\n" for mark in marks)]


@pytest.mark.parametrize("streams", [{"x"}, {"y", "z"}, {"x", "y", "z"}, set(), {"nothing"}, {"grant"}, {"sha256"}])
def test_record_lines_of_some_streams_are_those_read_line_by_line(streams: set[str]) -> None:
    """A read of many streams takes, from every line of an append, exactly the lines of those
    streams, at their positions, as reading every line gives them (a kind or a digest named
    as a stream finds nothing); a kept line that is not three fields is refused."""
    lines = "".join(f"sha256:{n:064x} {kind} {stream}\n" for n, (kind, stream) in enumerate(
        [("grant", "x"), ("learning", "y"), ("grant", "x"), ("event", "z"), ("learning", "y"), ("event", "x")]))
    head = format_message(3, "wme", "shared", entries_for([R.grant("x")]))
    message = head[:head.rindex("\n\n") + 2] + lines
    every = [(position, *line) for position, line in enumerate(record_lines(message))]
    assert list(record_lines_of(message, streams)) == [line for line in every if line[3] in streams]
    broken = message.rstrip("\n") + " x\n"  # its last line: four fields, the last one x
    with pytest.raises(ValueError, match="bad record line"):
        list(record_lines_of(broken, {"x"}))
    assert len(list(record_lines_of(broken, {"y"}))) == 2
    spaceless = message.replace(f"sha256:{3:064x} event z\n", "z\n")  # a line of one field, ending as z's
    assert [line[3] for line in record_lines_of(spaceless, {"z", "x"})] == ["x", "x", "x"]


def test_appends_checked_on_the_way_in_are_not_checked_again(store_repo: Path) -> None:
    provider = GitProvider(store_repo, "w1")
    provider.append(batch(R.grant("before")))
    fresh, done = provider.read_unchecked(["grant"], "k")
    assert len(list(fresh)) == 1
    done()
    provider.append(batch(R.grant("mine")))
    provider.checked_appends("k")  # the caller checked what it appended
    assert list(GitProvider(store_repo, "w1").read_unchecked(["grant"], "k")[0]) == []
    other = GitProvider(store_repo, "w1")
    other.append(batch(R.grant("someone else's")))  # not said to be checked
    provider.append(batch(R.grant("after it")))
    provider.checked_appends("k")  # does not follow the marks: nothing moves
    assert len(list(GitProvider(store_repo, "w1").read_unchecked(["grant"], "k")[0])) == 2


def test_checking_a_long_history_holds_one_commit_s_folders_at_a_time(store_repo: Path) -> None:
    """What arrived since the last check (a sync of a team's months of captures, or of a
    push of thousands of small appends) is read commit by commit, each in its own tree: a
    folder of one commit is never met again in the next, so none is kept past it (kept,
    8,000 appends held 1.1 GB at the first write after the sync)."""
    import tracemalloc

    provider = GitProvider(store_repo, "w1")
    provider.append(batch(*(R.event(f"bulk{i}", seq=i) for i in range(3000))))  # kind folders of 256
    fresh, done = provider.read_unchecked(["event"], "k")
    assert len(list(fresh)) == 3000
    done()
    for i in range(150):
        provider.append(batch(R.event(f"small{i}")))
    fresh, _ = GitProvider(store_repo, "w1").read_unchecked(["event"], "k")
    tracemalloc.start()
    try:
        assert sum(1 for _ in fresh) == 150
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 << 20, peak  # each commit's event folder parsed alone: 40 KB, not 150 of them


def test_a_store_write_counts_its_own_append_as_checked(store_repo: Path) -> None:
    from gitstore.store import REMEMBER_FROM, _checks_key

    for batch_ in ("one", "two"):  # bulk appends: a single one is left for the next check to read
        Store(GitProvider(store_repo, "w1"), R.SCOPE).append([R.grant(f"{batch_}-{n}") for n in range(REMEMBER_FROM)])
    fresh, _ = GitProvider(store_repo, "w1").read_unchecked(["grant"], "policy-unused")
    assert len(list(fresh)) == 2 * REMEMBER_FROM  # under another key everything is unchecked

    assert list(GitProvider(store_repo, "w1").read_unchecked(["grant"], _checks_key())[0]) == []


def _nested(repo: pygit2.Repository, files: dict[str, pygit2.Oid]) -> bytes:
    """A tree holding ``files`` (name -> blob) at ``event/ab/cd/``; its raw id."""
    leaf = repo.TreeBuilder()
    for name, blob in files.items():
        leaf.insert(name, blob, pygit2.GIT_FILEMODE_BLOB)
    node = leaf.write()
    for folder in ("cd", "ab", "event"):
        parent = repo.TreeBuilder()
        parent.insert(folder, node, pygit2.GIT_FILEMODE_TREE)
        node = parent.write()
    return node.raw


def test_a_folder_is_diffed_in_full_unless_it_gained_exactly_its_listed_files(tmp_path: Path) -> None:
    from gitstore.providers._objects import Unreadable
    from gitstore.providers._verify_git import by_folder, changes

    repo = pygit2.init_repository(str(tmp_path / "objects"), bare=True)
    a, b, c = (f"{n * 32}.json" for n in ("ab", "ac", "ad"))
    one, two, three = (repo.create_blob(text) for text in (b"1", b"2", b"3"))
    old = _nested(repo, {a: one})
    new = _nested(repo, {a: one, b: two, c: three})

    def found(old: bytes, new: bytes, *listed: str, clean: set[bytes] | None = None) -> list[tuple[str, str]]:
        at = by_folder(f"event/ab/cd/{name}" for name in listed)
        return sorted((status, path) for status, path, _, _ in changes(Database(repo), old, new, listed=at, clean=clean))

    def leaf(tree: bytes) -> bytes:
        return repo[pygit2.Oid(raw=tree)]["event/ab/cd"].id.raw

    both = [("A", f"event/ab/cd/{b}"), ("A", f"event/ab/cd/{c}")]
    assert found(old, new, b, c) == both  # exactly the listed ones
    assert found(old, new, b) == both  # one more than listed: the unlisted one is named too
    assert found(old, _nested(repo, {a: two}), a) == [("M", f"event/ab/cd/{a}")]  # changed, not added
    assert found(new, _nested(repo, {a: one, b: two}), a) == [("D", f"event/ab/cd/{c}")]
    # a folder known to hold record files only: the same answers, and the new one takes its place
    clean = {leaf(old)}
    assert found(old, new, b, c, clean=clean) == both and clean == {leaf(new)}
    clean = {leaf(old)}
    assert found(old, new, b, clean=clean) == both and clean == {leaf(old)}
    odd = _nested(repo, {a: one, b: two, "odd.txt": three})
    assert found(old, odd, b, clean={leaf(old)}) == [("A", f"event/ab/cd/{b}"), ("A", "event/ab/cd/odd.txt")]
    # a listed file twice in one folder (a tree git would refuse): not an addition
    first, row = (b"100644 %s\0%s" % (name.encode(), blob.raw) for name, blob in ((a, one), (b, two)))
    twice = repo.odb.write(pygit2.GIT_OBJECT_TREE, first + row + row)
    node = twice
    for folder in ("cd", "ab", "event"):
        parent = repo.TreeBuilder()
        parent.insert(folder, node, pygit2.GIT_FILEMODE_TREE)
        node = parent.write()
    with pytest.raises(Unreadable, match="names an entry twice"):
        found(old, node.raw, b)


def test_records_added_to_a_folder_land_where_git_sorts_them_and_odd_folders_go_the_long_way(
        tmp_path: Path) -> None:
    """``add_records`` (a bulk append's merge of a leaf folder) gives the bytes libgit2's tree
    builder writes, for record names and for names of a record file's shape that are not
    hex; any other row, a cut row or a name the folder holds already gets None."""
    import random

    from gitstore.providers._objects import add_records

    repo = pygit2.init_repository(str(tmp_path / "objects"), bare=True)
    rng = random.Random(7)
    blobs = [repo.create_blob(bytes([i])) for i in range(8)]

    def built(entries: dict[str, pygit2.Oid]) -> bytes:
        builder = repo.TreeBuilder()
        for name, oid in entries.items():
            builder.insert(name, oid, pygit2.GIT_FILEMODE_BLOB)
        return repo.odb.read(builder.write())[1]

    odd = ["A" * 64, "a b" + "c" * 61, "\u00e9" * 32, "\U0001f600" * 16, "\x7f" + "0" * 63]
    for size in (0, 1, 2, 15, 40):
        names = [f"{rng.randbytes(32).hex()}.json" for _ in range(size + 3)]
        if size == 15:
            names[:len(odd)] = [f"{n}.json" for n in odd]
        held = {name: rng.choice(blobs) for name in names[:size]}
        added = {name: rng.choice(blobs) for name in names[size:]}
        assert add_records(built(held), {n: o.raw for n, o in added.items()}) == built(held | added)

    row = built({"a" * 64 + ".json": blobs[0]})
    assert add_records(row, {"b" * 64 + ".json": blobs[1].raw}) is not None
    for bad in (row.replace(b"100644", b"100755"), row[:-1], row + b"\0", row.replace(b"aaaa", b"a\0aa", 1),
                built({"x": blobs[0]}), row + built({"b" * 64 + ".js": blobs[1]})):
        assert add_records(bad, {"b" * 64 + ".json": blobs[1].raw}) is None
    assert add_records(row, {"a" * 64 + ".json": blobs[1].raw}) is None  # held already


@pytest.mark.parametrize("by_path_first", [100, 1], ids=["each-path", "indexed"])
def test_a_payload_reader_answers_the_same_whether_it_looks_paths_up_or_indexes(
        store_repo: Path, monkeypatch: pytest.MonkeyPatch, by_path_first: int) -> None:
    """A reader finds its first payloads by path and, asked for more, indexes each snapshot
    once: the answers are the same, a copy filed under another folder is found by neither, and
    bytes that do not match their digest fail both."""
    import gitstore.providers.git as git_provider

    monkeypatch.setattr(git_provider, "PAYLOAD_PATHS", by_path_first)
    events = [R.event(f"e{n}", seq=n) for n in range(6)]
    provider = GitProvider(store_repo, "w1")
    provider.append(batch(*events))
    ref = git_provider.payloads_ref("shared", "w1")
    stray = R.event("stray", seq=9)
    data = git(store_repo, "cat-file", "blob", f"{ref}:{payload_path(events[0]['payloadDigest'])}").encode()
    assert data  # a real payload's bytes, planted under a folder its digest does not name
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=store_repo, input=data,
                          capture_output=True, check=True).stdout.decode().strip()
    misfiled = "ff/ff/" + payload_path(events[0]["payloadDigest"]).rsplit("/", 1)[1]
    plant_snapshot(store_repo, ref, misfiled, blob)
    plant_snapshot(store_repo, ref, payload_path(stray["payloadDigest"]), blob)  # the wrong bytes
    reader = GitProvider(store_repo, "w1").payload_reader()
    for event in events:
        assert reader(event["payloadDigest"]) == GitProvider(store_repo, "w1").payload(event["payloadDigest"])
        assert reader(event["payloadDigest"]) is not None
    assert reader("sha256:" + "ab" * 32) is None
    with pytest.raises(IntegrityError, match="does not match its digest"):
        reader(stray["payloadDigest"])


def test_a_payload_whose_bytes_are_gone_fails_the_read_naming_it(store_repo: Path) -> None:
    """A snapshot naming a payload blob the object database lacks fails the read with an
    IntegrityError naming the payload and what to run, for every reader, never a git error."""
    import gitstore.providers.git as git_provider

    events = [R.event(f"e{n}", seq=n) for n in range(3)]
    GitProvider(store_repo, "w1").append(batch(*events))
    ref = git_provider.payloads_ref("shared", "w1")
    blob = git(store_repo, "rev-parse", f"{ref}:{payload_path(events[1]['payloadDigest'])}").strip()
    (store_repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    for selective in (False, True):
        reader = GitProvider(store_repo, "w1").payload_reader(selective=selective)
        assert reader(events[0]["payloadDigest"]) is not None
        with pytest.raises(IntegrityError, match=rf"payload {events[1]['payloadDigest']}: .*{blob}.*gitstore verify"):
            reader(events[1]["payloadDigest"])
    with pytest.raises(IntegrityError, match="gitstore verify"):
        list(Store(GitProvider(store_repo, "w1"), R.SCOPE).items(payloads=True))


def test_a_selective_payload_reader_looks_paths_up_until_walking_the_snapshot_costs_less(
        store_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader of payloads its caller picked finds each by its path, holding no index of the
    snapshot, until it has read as many leaf folders as a walk would; a reader of every
    payload walks once past ``PAYLOAD_PATHS``. Both answer as ``payload`` does."""
    import gitstore.providers.git as git_provider

    monkeypatch.setattr(git_provider, "PAYLOAD_PATHS", 2)
    events = [R.event(f"e{n}", seq=n) for n in range(8)]
    provider = GitProvider(store_repo, "w1")
    provider.append(batch(*events))
    folders = len({payload_path(e["payloadDigest"]).rsplit("/", 1)[0] for e in events})
    walks: list[str] = []
    leaves = git_provider.folder_map
    monkeypatch.setattr(git_provider, "folder_map", lambda o, t, k: walks.append("walk") or leaves(o, t, k))
    selective = GitProvider(store_repo, "w1").payload_reader(selective=True)
    for asked, event in enumerate([*events, events[0]], start=1):
        assert selective(event["payloadDigest"]) == provider.payload(event["payloadDigest"]) is not None
        assert walks == (["walk"] if asked > max(folders, 2) else [])
    assert walks == ["walk"]
    walks.clear()
    every = GitProvider(store_repo, "w1").payload_reader()
    for event in events[:3]:
        assert every(event["payloadDigest"]) == provider.payload(event["payloadDigest"])
    assert walks == ["walk"]


def test_trees_read_uncached_stay_out_of_libgit2s_cache_until_the_outermost_use_ends(repo: Path) -> None:
    from gitstore.providers._objects import read_tree, uncached_trees

    handle = pygit2.Repository(str(repo))
    trees = []
    for n in range(3):
        builder = handle.TreeBuilder()
        builder.insert(f"f{n}", handle.create_blob(f"{n}".encode()), pygit2.GIT_FILEMODE_BLOB)
        trees.append(builder.write())
    handle = pygit2.Repository(str(repo))  # nothing cached yet
    with uncached_trees():
        with uncached_trees():
            read_tree(Database(handle), trees[0].raw)
        before = pygit2.settings.cached_memory[0]
        read_tree(Database(handle), trees[1].raw)  # the outer use still holds
        assert pygit2.settings.cached_memory[0] == before
    read_tree(Database(handle), trees[2].raw)
    assert pygit2.settings.cached_memory[0] > before


def plant_snapshot(repo: Path, ref: str, path: str, blob_oid: str) -> None:
    """Put a blob at ``path`` of a payload snapshot (a parentless commit), as a forger would."""
    tip = git(repo, "rev-parse", ref).strip()
    tree = git(repo, "rev-parse", f"{tip}^{{tree}}").strip()
    new_tree = _mktree_with(repo, tree, path.split("/"), f"100644 blob {blob_oid}")
    commit = subprocess.run(["git", "commit-tree", new_tree, "-m", "snapshot"], cwd=repo,
                            capture_output=True, text=True, check=True).stdout.strip()
    git(repo, "update-ref", ref, commit, tip)


def test_an_append_remembers_its_own_commit_as_reading_it_would(
        store_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An append remembers the header of the commit it made (no commit read back, no message
    parsed again): exactly what a walk reading that commit would remember, headers (Seen,
    Removes) included; and the next append's clock and the history come from it."""
    import gitstore.providers.git as provider_module

    monkeypatch.setattr(provider_module, "REMEMBER_ORDER_FROM", 0)  # these commits are small
    remembered = store_repo / ".git" / "gitstore" / "verified" / "appends.json"
    secret = R.event("kept-out", text="text-to-remove")
    GitProvider(store_repo, "w2").append(batch(secret, R.grant("other")))  # w1's appends see it
    writer = GitProvider(store_repo, "w1")
    writer.append(batch(R.grant("g1"), R.event("e1", episode="e", seq=1)))
    writer.append(batch(R.audit("asked", [], action="redact"), removals=[(
        secret["payloadDigest"], b'{"at":"2026-08-01T00:00:00.000000Z","by":"github:1","reason":"asked","sourceId":null}')]))
    written = json.loads(remembered.read_text())[provider_module.ORDER_CONTEXT]
    remembered.unlink()
    reader = GitProvider(store_repo, "w3")
    walked = [(append, str(oid)) for append, _, oid in reader._commits()]
    assert len(walked) == len(written) == 3 and any(a.seen for a, _ in walked) and any(a.removes for a, _ in walked)
    assert json.loads(remembered.read_text())[provider_module.ORDER_CONTEXT] == written

    loaded: list[str] = []
    real = provider_module.commit_at
    monkeypatch.setattr(provider_module, "commit_at",
                        lambda repo, oid, where: loaded.append(str(oid)) or real(repo, oid, where))
    fresh = GitProvider(store_repo, "w1")
    tips = {str(fresh.repo.references[records_ref("shared", w)].target) for w in ("w1", "w2")}
    fresh.append(batch(R.grant("g2")))
    tip = str(fresh.repo.references[records_ref("shared", "w1")].target)
    assert parse_order(fresh.repo[tip].message).clock == max(a.clock for a, _ in walked) + 1
    assert len(loaded) == len(set(loaded)) and set(loaded) <= tips  # each tip checked once, nothing else read


def test_a_bulk_append_read_in_one_pass_is_not_loaded_again_by_the_next(
        store_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two passes over the events (a read of the cited episodes, then of some of their records
    again) load the bulk append's commit, whose message lists every record, once: the small
    appends read after it in the first pass do not push it out."""
    import gitstore.providers.git as provider_module

    writer = GitProvider(store_repo, "w1")
    writer.append(batch(*(R.event(f"b{i}", episode="bulk", seq=i) for i in range(1, 41))))
    for i in range(8):  # more than a handle keeps of the commits its walk loaded (KEEP_COMMITS)
        writer.append(batch(R.event(f"s{i}", episode=f"small{i}", seq=1)))
    walked = [str(oid) for _, _, oid in writer._commits()]
    loaded: list[str] = []
    real = provider_module.commit_at
    monkeypatch.setattr(provider_module, "commit_at",
                        lambda repo, oid, where: loaded.append(str(oid)) or real(repo, oid, where))
    streams = {s.stream for s in GitProvider(store_repo, "w1").read(kinds=["event"])}
    assert len(streams) == 9
    loaded.clear()
    reader = GitProvider(store_repo, "w1")
    first = [s.digest for s in reader.read_streams(streams, kinds=["event"])]
    again = [s.digest for s in reader.read_streams(streams, kinds=["event"], digests=set(first[::7]))]
    assert len(first) == 48 and again == first[::7]
    assert loaded.count(walked[0]) == 1


def test_remembered_checks_that_cannot_be_saved_are_checked_again_later(tmp_path: Path) -> None:
    """A memory of checks whose folder cannot be made (here a file stands in its place) is not
    saved, and saying so never fails what was checked: the next handle checks again."""
    from gitstore.providers._verified import Verified

    (tmp_path / "verified").write_text("not a folder")
    memory = Verified(tmp_path, "appends")
    memory.put("0" * 40, "order-1", {"clock": 1})
    memory.save()
    assert Verified(tmp_path, "appends").get("0" * 40, "order-1") is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["verified"]


def test_a_signature_checked_by_one_handle_is_not_checked_again_by_the_next_before_it_is_saved(
        tmp_path: Path) -> None:
    """A store opened afresh in the same process (a sync opens several) finds the signatures
    an earlier handle checked though that one has not written them yet; and a result another
    process wrote meanwhile is read too."""
    from gitstore.providers._verified import Verified

    first = Verified(tmp_path, "signatures", shared=True)
    first.put("1" * 40, "ctx", {"key": "k", "principals": ["a"]})
    assert not (tmp_path / "verified").exists()  # not saved yet
    assert Verified(tmp_path, "signatures", shared=True).get("1" * 40, "ctx") == {"key": "k", "principals": ["a"]}
    (tmp_path / "verified").mkdir()
    (tmp_path / "verified" / "signatures.json").write_text('{"ctx": {"' + "2" * 40 + '": {"problem": "p"}}}')
    later = Verified(tmp_path, "signatures", shared=True)
    assert later.get("2" * 40, "ctx") == {"problem": "p"}
    assert later.get("1" * 40, "ctx") == {"key": "k", "principals": ["a"]}


def test_a_history_walked_once_is_walked_again_without_reading_its_commits(
        store_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each big append commit's header is remembered by its id: another handle walks the
    history without loading a commit, and a remembered entry it cannot read is parsed again."""
    import gitstore.providers.git as provider_module

    monkeypatch.setattr(provider_module, "REMEMBER_ORDER_FROM", 0)  # these commits are small
    writer = GitProvider(store_repo, "w1")
    for i in range(3):
        writer.append(batch(R.grant(f"h{i}")))
    walked = [(append, str(oid)) for append, _, oid in GitProvider(store_repo, "w1")._commits()]
    assert len(walked) == 3
    loaded: list[str] = []
    real = provider_module.commit_at
    monkeypatch.setattr(provider_module, "commit_at",
                        lambda repo, oid, where: loaded.append(str(oid)) or real(repo, oid, where))
    assert [(a, str(o)) for a, _, o in GitProvider(store_repo, "w1")._commits()] == walked
    assert set(loaded) <= {walked[-1][1]}  # the tip's own checks may read it; the walk reads none
    loaded.clear()
    remembered = store_repo / ".git" / "gitstore" / "verified" / "appends.json"
    data = json.loads(remembered.read_text())
    for entry in data[provider_module.ORDER_CONTEXT].values():
        entry["kinds"] = 7  # not a list: not believed
    remembered.write_text(json.dumps(data))
    assert [(a, str(o)) for a, _, o in GitProvider(store_repo, "w1")._commits()] == walked
    assert set(loaded) == {oid for _, oid in walked}
    monkeypatch.setattr(provider_module, "REMEMBER_ORDER_FROM", 1 << 16)
    remembered.unlink()
    GitProvider(store_repo, "w1")._commits()
    assert not remembered.exists()  # small commits are read again, not remembered


@pytest.mark.parametrize("clock", ["\u0667", "\uff17", "7\u0660"])
def test_a_clock_written_in_other_digits_is_no_clock(clock: str) -> None:
    """Arabic-Indic and full-width digits are digits to Python, not to git or to any clone."""
    line = type("Line", (), {"digest": "sha256:" + "a" * 64, "kind": "grant", "stream": "consent"})()
    message = format_message(7, "w1", "shared", [line])
    assert parse_message(message).clock == 7
    with pytest.raises(ValueError, match="bad Clock"):
        parse_message(message.replace("Clock: 7", f"Clock: {clock}"))


def test_an_append_never_writes_a_clock_its_reads_refuse(store_repo: Path) -> None:
    """A Clock header holds 15 digits. An append took one more than the largest clock it saw,
    whatever that was, and wrote a 16-digit one: every read after it failed ("bad Clock").
    It is refused now, before anything is written."""
    from .team import forge

    forge(store_repo, "w1", [R.grant("at the edge")], clock=10**15 - 1)
    refs = git(store_repo, "for-each-ref").splitlines()
    with pytest.raises(Refused, match="past the 15 digits"):
        GitProvider(store_repo, "w1").append(batch(R.event("one-more")))
    assert git(store_repo, "for-each-ref").splitlines() == refs
    assert len(list(GitProvider(store_repo, "w1").read())) == 1


def test_a_note_listed_again_keeps_its_bytes_and_counts_when_any_append_listing_it_does(store_repo: Path) -> None:
    """A removal made again lists its payload in ``Removes`` once more with the note as stored:
    the tree at the note's path is unchanged and verify accepts it. The note is honoured when
    the judge accepts any append that listed it (the first or the later one), and other bytes
    for a note already stored are refused before anything is written."""
    note = b'{"at":"2026-08-01T00:00:00.000000Z","by":"github:1","reason":"asked","sourceId":null}'
    secret = R.event("again", text="text-removed-twice")
    first = GitProvider(store_repo, "w1")
    first.append(batch(secret))
    first.append(batch(R.audit("asked", [], action="redact"), removals=[(secret["payloadDigest"], note)]))
    ref = records_ref("shared", "w1")
    added = git(store_repo, "rev-parse", ref).strip()
    tree = git(store_repo, "rev-parse", f"{ref}^{{tree}}:notes").strip()
    again = GitProvider(store_repo, "w1")
    again.judge_notes(lambda digest, _note, append: False)  # the first removal counts nowhere here
    with pytest.raises(Refused, match="a different redaction note"):
        again.append(batch(R.audit("other", [], action="redact"),
                           removals=[(secret["payloadDigest"], note.replace(b"asked", b"other"))]))
    again.append(batch(R.audit("again", [], action="redact"), removals=[(secret["payloadDigest"], note)]))
    listed = git(store_repo, "rev-parse", ref).strip()
    assert listed != added and git(store_repo, "rev-parse", f"{ref}^{{tree}}:notes").strip() == tree
    assert f"Removes: {secret['payloadDigest']}" in git(store_repo, "log", "-1", "--format=%B", ref)
    assert GitProvider(store_repo, "w1").verify().ok
    for counting in (added, listed):
        reader = GitProvider(store_repo, "w1")
        reader.judge_notes(lambda digest, _note, append, counting=counting: append == counting)
        assert reader.noted() == {secret["payloadDigest"]} and reader.payload(secret["payloadDigest"]) is None
        assert [append for _, _, append in reader.notes()] == [counting]
    nobody = GitProvider(store_repo, "w1")
    nobody.judge_notes(lambda digest, _note, append: False)
    assert nobody.noted() == set() and [append for _, _, append in nobody.notes()] == [listed]


def test_the_tips_holding_notes_are_kept_by_every_tip_and_read_again_once_one_moves(store_repo: Path) -> None:
    """Which records tips hold a ``notes/`` folder is kept by the tips read (a commit never
    changes): a handle that finds them where they stood loads no other tip for it, and one
    that finds any of them moved (a removal appended) or the entry damaged reads them all."""
    note = b'{"at":"2026-08-01T00:00:00.000000Z","by":"github:1","reason":"asked","sourceId":null}'
    secret = R.event("kept", text="text-removed-later")
    GitProvider(store_repo, "w1").append(batch(secret))
    GitProvider(store_repo, "w2").append(batch(R.event("other")))
    kept = state_dir(pygit2.Repository(str(store_repo))) / "verified" / "notes.json"
    assert GitProvider(store_repo, "w1").noted() == set()
    before = json.loads(kept.read_text())
    assert before and all(entry["notes-in-1"] == [] for entry in before.values())  # no tip holds one
    assert GitProvider(store_repo, "w1").noted() == set()  # found kept: the file is as it was
    assert json.loads(kept.read_text()) == before
    GitProvider(store_repo, "w2").append(batch(R.audit("asked", [], action="redact"),
                                               removals=[(secret["payloadDigest"], note)]))
    reader = GitProvider(store_repo, "w1")
    assert reader.noted() == {secret["payloadDigest"]} and reader.payload(secret["payloadDigest"]) is None
    after = json.loads(kept.read_text())
    assert [1] in [entry["notes-in-1"] for key, entry in after.items() if key not in before]  # w2's tip holds one
    kept.write_text(json.dumps({key: {"notes-in-1": "damaged"} for key in after}))
    assert GitProvider(store_repo, "w1").noted() == {secret["payloadDigest"]}


def _forged(repo_path: Path, writer: str, reason: str, removes: list[str], note: tuple[str, bytes] | None) -> None:
    """As a hostile clone with push access would: append one audit entry as ``writer``, then
    make that commit again listing ``removes`` in its ``Removes`` and, given ``note``, with
    the note for that payload (digest, bytes) written into its tree."""
    GitProvider(repo_path, writer).append(batch(R.audit(reason, [], action="redact")))
    repo = pygit2.Repository(str(repo_path))
    ref = records_ref("shared", writer)
    made = repo[repo.references[ref].target]
    index = pygit2.Index()
    index.read_tree(made.tree)
    if note is not None:
        index.add(pygit2.IndexEntry(note_path(note[0]), repo.create_blob(note[1]), pygit2.GIT_FILEMODE_BLOB))
    header = parse_message(made.message)
    lines = [type("Line", (), {"digest": d, "kind": k, "stream": s})() for d, k, s in header.lines]
    message = format_message(header.clock, writer, "shared", lines, removes)
    repo.references.create(ref, repo.create_commit(None, made.author, made.committer, message,
                                                   index.write_tree(repo), made.parent_ids), force=True)
    (state_dir(repo) / f"records-shared-{writer}.tips").unlink(missing_ok=True)  # a forger's clone


def test_verify_refuses_a_note_changed_or_listed_again_without_one_stored(store_repo: Path) -> None:
    """A records tree is only ever added to: a commit changing a note's bytes is damage, and
    a ``Removes`` line naming a payload with no note in the tree, before or after, is too."""
    note = b'{"at":"2026-08-01T00:00:00.000000Z","by":"github:1","reason":"asked","sourceId":null}'
    secret = R.event("changed", text="text-whose-note-changes")
    GitProvider(store_repo, "w1").append(batch(secret, R.audit("asked", [], action="redact"),
                                               removals=[(secret["payloadDigest"], note)]))
    assert GitProvider(store_repo, "w1").verify().ok
    changed = note.replace(b"asked", b"other")
    _forged(store_repo, "w1", "rewrite", [secret["payloadDigest"]], (secret["payloadDigest"], changed))
    problems = [p.message for p in GitProvider(store_repo, "w1").verify().problems]
    assert any(f"{note_path(secret['payloadDigest'])} was M: records are only ever added" in p
               for p in problems), problems
    fresh = store_repo.parent / "fresh"  # a repository of its own: the damage above stops appends here
    git(store_repo.parent, "init", "-q", str(fresh))
    other = R.event("other", text="never removed")
    GitProvider(fresh, "w2").append(batch(other))
    _forged(fresh, "w2", "listed", [other["payloadDigest"]], None)
    problems = [p.message for p in GitProvider(fresh, "w2").verify().problems]
    assert any(f"lists {note_path(other['payloadDigest'])} but does not add it" in p for p in problems), problems


def test_a_read_takes_each_record_from_the_tip_it_walked_when_another_writer_appends_meanwhile(
        seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader lists the refs, then reads each writer's tip again once its log of acknowledged
    appends is read: another writer appending between the two (a capture hook in the
    background) made the walk start at the new tip while the records were looked up in the
    tree of the tip listed first, and the read failed saying the tree lacked the new record."""
    from gitstore.providers import git as provider_git

    acknowledged = provider_git.last_acknowledged
    late = [R.event(f"late-{n}") for n in range(4)]
    busy: list[bool] = []

    def appended_meanwhile(state: Path, name: str) -> str | None:
        found = acknowledged(state, name)
        if name == REF and late and not busy:  # each time: the other process, at that moment
            busy.append(True)
            GitProvider(seeded, "w1").append(batch(late.pop()))
            busy.pop()
        return found

    monkeypatch.setattr(provider_git, "last_acknowledged", appended_meanwhile)
    reader = GitProvider(seeded, "w2")
    read = {stored.digest for stored in reader.read()}  # the first pass over the refs: the window
    assert len(late) == 3, "the other writer appended in the read's window"
    assert not [str(p) for p in GitProvider(seeded, "w2").verify().problems]
    assert read <= {stored.digest for stored in GitProvider(seeded, "w2").read()}
