"""What a sync leaves under its incoming names, ``refs/memory/sync/<remote>/...``: only refs
whose tip is the admitted ref's tip, so an idle sync writes no ref there and still sees every
change (a writer gone from the remote, a rewritten history); gc drops the ones a redaction left
behind before it erases, so the redacted text goes; a sync that fails midway leaves nothing
unverified there. Real clones of a real bare remote; ref updates are counted by git's own
``reference-transaction`` hook."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstore.context import Context
from gitstore.errors import Refused
from gitstore.ops import gc
from gitstore.ops.redact import redact
from gitstore.providers.git import payloads_ref, records_ref
from gitstore.sync.remote import sync

from .conftest import all_objects, build_once, copy_world, git
from .team import first_clone, shared_remote
from .world import Thread, grant_all

INCOMING = "refs/memory/sync/origin/"
ADMITTED = "refs/memory/v1/remotes/origin/"
SECRET = "the staging password is hunter2-incoming"


def clone(tmp: Path, bare: Path, name: str) -> Path:
    from gitstore.ops.setup import init

    git(tmp, "clone", "-q", str(bare), str(tmp / name))
    init(tmp / name)
    return tmp / name


@pytest.fixture(scope="module")
def team_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The team below, made once (each test takes a copy): its folder and alice's writer."""
    return build_once(tmp_path_factory, "team", lambda folder: _team(folder)[3])


@pytest.fixture
def team(team_once: tuple[Path, str], tmp_path: Path) -> tuple[Path, Path, Path, str]:
    """Alice's clone with a grant and a review comment, pushed; bob's clone, synced twice. A
    copy, in this test's folder, of the team made once."""
    source, writer = team_once
    copy_world(source, tmp_path)
    return tmp_path / "remote.git", tmp_path / "alice", tmp_path / "bob", writer


def _team(tmp_path: Path) -> tuple[Path, Path, Path, str]:
    bare = shared_remote(tmp_path)
    alice = first_clone(tmp_path, bare)
    ctx = Context.open(alice)
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    thread.comment("100", SECRET, "2026-03-01T10:00:00.000000Z")
    thread.save()
    assert sync(str(alice)).status == "ok"
    bob = clone(tmp_path, bare, "bob")
    assert sync(str(bob)).status == "ok"
    assert sync(str(bob)).status == "no-update"
    return bare, alice, bob, ctx.workspace.config.writer


def refs(root: Path, prefix: str) -> dict[str, str]:
    """name under ``prefix`` (the prefix cut) -> tip; under ``INCOMING``, memory's only (the
    default branch fetched beside it, ``policy-branch``, and the remote's HEAD, ``remote-head``,
    stand beside ``origin/main``)."""
    out = git(root, "for-each-ref", "--format=%(refname) %(objectname)", prefix)
    found = {name[len(prefix):]: tip for name, tip in (line.split() for line in out.splitlines())}
    if prefix == INCOMING:
        for beside in ("policy-branch", "remote-head"):
            assert found.pop(beside, None) in (None, git(root, "rev-parse", "refs/remotes/origin/main").strip())
    return found


def count_ref_updates(root: Path) -> Path:
    """A ``reference-transaction`` hook in ``root`` writing every ref update git commits to
    the file returned, one line each."""
    log = root / ".git" / "ref-updates"
    hook = root / ".git" / "hooks" / "reference-transaction"
    hook.write_text(f'#!/bin/sh\n[ "$1" = committed ] && cat >> "{log}"\nexit 0\n')
    hook.chmod(0o755)
    log.write_text("")
    return log


def incoming_updates(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if line.split()[-1].startswith(INCOMING)]


def left_only_admitted_tips(root: Path) -> None:
    """Every incoming ref left names its admitted ref's tip: nothing unverified is reachable."""
    admitted = refs(root, ADMITTED)
    assert all(admitted.get(name) == tip for name, tip in refs(root, INCOMING).items()), refs(root, INCOMING)


def alice_pushes_a_comment(alice: Path) -> None:
    """Alice captures one more review comment and syncs it to the team's remote."""
    thread = Thread(Context.open(alice), 8, "200")
    thread.comment("200", "a second point", "2026-03-02T10:00:00.000000Z")
    thread.save()
    assert sync(str(alice)).status == "ok"


def test_an_idle_sync_writes_no_incoming_ref(team: tuple) -> None:
    bare, alice, bob, writer = team
    log = count_ref_updates(bob)
    report = sync(str(bob))
    assert report.status == "no-update" and not report.came_in, report.line
    assert incoming_updates(log) == [], "an idle sync wrote refs it fetched"
    kept = refs(bob, INCOMING)
    assert set(kept) == {f"records/shared/{writer}", f"payloads/shared/{writer}"}
    left_only_admitted_tips(bob)


def test_a_sync_writes_only_the_incoming_refs_that_moved(team: tuple) -> None:
    bare, alice, bob, writer = team
    alice_pushes_a_comment(alice)
    log = count_ref_updates(bob)
    report = sync(str(bob))
    assert report.status == "ok" and {m.writer for m in report.came_in} == {writer}, report.line
    moved = {line.split()[-1] for line in incoming_updates(log)}
    assert moved == {f"{INCOMING}records/shared/{writer}", f"{INCOMING}payloads/shared/{writer}"}
    left_only_admitted_tips(bob)
    assert refs(bob, INCOMING)[f"records/shared/{writer}"] == git(bare, "rev-parse", records_ref("shared", writer)).strip()


def test_a_writer_removed_from_the_remote_is_still_reported_kept(team: tuple) -> None:
    bare, alice, bob, writer = team
    for ref in (records_ref("shared", writer), payloads_ref("shared", writer)):
        git(bare, "update-ref", "-d", ref)
    for _ in range(2):  # and named again by the next sync
        report = sync(str(bob))
        assert report.kept == [writer] and f"kept writer {writer}: the remote no longer has it" in report.render()
        assert refs(bob, INCOMING) == {}
    assert f"records/shared/{writer}" in refs(bob, ADMITTED)


def test_another_history_that_fails_is_quarantined_and_named_at_every_sync(team: tuple) -> None:
    bare, alice, bob, writer = team
    alice_pushes_a_comment(alice)
    ref = records_ref("shared", writer)
    git(bare, "update-ref", ref, git(bare, "rev-parse", "main").strip())  # the same name, another history
    admitted = refs(bob, ADMITTED)[f"records/shared/{writer}"]
    for _ in range(2):
        report = sync(str(bob))
        # the new snapshot is held with its writer's records
        assert [(q.writer, q.kind) for q in report.quarantined] == [(writer, "records"), (writer, "payloads")]
        assert "not a gitstore append" in report.quarantined[0].damage, report.render()
        assert refs(bob, ADMITTED)[f"records/shared/{writer}"] == admitted
        assert refs(bob, INCOMING) == {}
        left_only_admitted_tips(bob)


def test_gc_after_a_redaction_erases_the_text_a_kept_incoming_ref_held(team: tuple) -> None:
    bare, alice, bob, writer = team
    snapshot = refs(bob, ADMITTED)[f"payloads/shared/{writer}"]
    assert SECRET.encode() in all_objects(bob)
    report = redact(Context.open(bob), "github:comment:100", "github:9", "a password")
    assert report.removed, report
    assert refs(bob, ADMITTED)[f"payloads/shared/{writer}"] != snapshot  # the fetched snapshot written again
    gc.gc(Context.open(bob).store)
    assert SECRET.encode() not in all_objects(bob)
    assert f"payloads/shared/{writer}" not in refs(bob, INCOMING)
    left_only_admitted_tips(bob)


def test_a_sync_that_fails_midway_leaves_nothing_unverified_under_its_names(team: tuple) -> None:
    bare, alice, bob, writer = team
    alice_pushes_a_comment(alice)
    before = refs(bob, ADMITTED)
    # git refuses to move the admitted refs (as when another process holds them): the fetch
    # brought alice's new appends, which are never admitted
    hook = bob / ".git" / "hooks" / "reference-transaction"
    hook.write_text(f'#!/bin/sh\n[ "$1" = prepared ] && grep -q " {ADMITTED}" && exit 1\nexit 0\n')
    hook.chmod(0o755)
    with pytest.raises(Refused, match="moved while sync admitted them"):
        sync(str(bob))
    assert refs(bob, ADMITTED) == before
    left_only_admitted_tips(bob)
    assert f"records/shared/{writer}" not in refs(bob, INCOMING)
    hook.unlink()
    assert sync(str(bob)).status == "ok"
    left_only_admitted_tips(bob)


def test_the_recall_fingerprint_reads_no_incoming_ref(team: tuple) -> None:
    """The delivery hook fingerprints memory's refs at every prompt: the refs a sync keeps
    aside, as many as the writers', are not memory and are not read."""
    from gitstore.deliver import heads
    from gitstore.deliver.place import locate

    bare, alice, bob, writer = team
    tip = refs(bob, ADMITTED)[f"records/shared/{writer}"]
    git(bob, "update-ref", f"{INCOMING}records/shared/wkept", tip)  # loose
    before = heads.storage(locate(str(bob)))
    assert "refs/memory/v1/remotes/origin/records" in "\n".join(before)
    assert "refs/memory/sync/" not in "\n".join(before)
    git(bob, "pack-refs", "--all")
    packed = heads.storage(locate(str(bob)))
    assert "refs/memory/sync/" not in "\n".join(packed) and "packed" in "\n".join(packed)
    git(bob, "update-ref", "-d", f"{INCOMING}records/shared/wkept")
    assert heads.storage(locate(str(bob))) == packed  # packed-refs written again, memory's refs as they were


def test_a_redaction_drops_the_incoming_ref_that_kept_the_old_snapshot(team: tuple) -> None:
    """git's own gc, which knows nothing of gitstore, erases the removed text right after it."""
    bare, alice, bob, writer = team
    assert f"payloads/shared/{writer}" in refs(bob, INCOMING)  # kept: equal to its admitted ref
    redact(Context.open(bob), "github:comment:100", "github:9", "a password")
    left_only_admitted_tips(bob)
    git(bob, "reflog", "expire", "--expire=now", "--all")
    git(bob, "gc", "-q", "--prune=now")
    assert SECRET.encode() not in all_objects(bob)


def test_a_redaction_during_a_sync_leaves_the_incoming_refs_to_that_sync(team: tuple) -> None:
    """The redaction neither waits for the sync (it may be the sync's own) nor drops a ref under
    it; the sync's own clean-up, here the next one's, drops it."""
    from gitstore.providers._incoming import sync_locked

    bare, alice, bob, writer = team
    store = Context.open(bob).store
    with sync_locked(store.provider.state):  # type: ignore[attr-defined]
        redact(Context.open(bob), "github:comment:100", "github:9", "a password")
        assert f"payloads/shared/{writer}" in refs(bob, INCOMING)
    assert sync(str(bob)).status in ("ok", "no-update")
    left_only_admitted_tips(bob)


def test_a_redaction_that_cannot_drop_the_incoming_ref_holds_and_says_so(team: tuple) -> None:
    from gitstore import notices

    bare, alice, bob, writer = team
    lock = bob / ".git" / f"{INCOMING}payloads/shared/{writer}.lock"  # another git process is writing it
    lock.write_text("")
    notices.take()
    report = redact(Context.open(bob), "github:comment:100", "github:9", "a password")
    assert report.removed, report
    [said] = notices.take()
    assert "refs/memory/sync/" in said and "`gitstore gc` deletes them" in said, said
    lock.unlink()
    gc.gc(Context.open(bob).store)
    left_only_admitted_tips(bob)
    assert SECRET.encode() not in all_objects(bob)
