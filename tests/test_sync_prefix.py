"""A writer's history fetched with damage stacked on it: the commits before the first that fails
are read, the failing one onward never is.

Under a policy, alice grants instruction and her learning is in force; bob (who may withdraw)
saves a comment and withdraws instruction from her grant, signed, and pushes; then someone with
push access stacks one damaged commit, and a well-formed commit on it, on bob's ref on the
remote. Every clone, whether it had admitted bob's ref before or never did, and whether it
runs ``gitstore sync`` or a plain ``git fetch``, reads bob's withdrawal (the learning no longer
serves instruction, recall gives nothing), never the damaged commit nor what follows it, and
still names bob's ref quarantined. Dropping a signed withdrawal must never restore a permission.

The world is built once; each test runs on a copy of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench._process import copy_as_moved
from gitstore.context import Context
from gitstore.ops import consent
from gitstore.ops import learning as ops
from gitstore.providers.git import record_path, records_ref
from gitstore.records.canonical import canonicalize
from gitstore.sync.remote import sync

from . import cli, team, world as w
from .conftest import git
from .hostile import grant_like
from .test_provider_git import hash_object, plant

A, B = "github:9", "github:10"
DAMAGED = "sha256:" + "e" * 64
LATER = "Prefer a capped backoff."


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("prefix")
    keys = {who: team.keypair(tmp / "keys", who) for who in (A, B)}
    bare = team.shared_remote(tmp)
    root = team.first_clone(tmp, bare)
    team.write_policy(root, {A: team.EVERYTHING, B: team.EVERYTHING}, {who: k for who, (_, k) in keys.items()})
    team.commit_all(root, "policy")
    git(root, "push", "-q", "origin", "main")
    team.sign_as(root, keys[A][0])
    alice = Context.open(root)
    bob = team.team_clone(tmp, bare, "bob", keys[B][0])
    grant = consent.grant(alice, A, ["review", "instruction"], ["review-thread"], "2026-01-01", None, "alice's")
    thread = w.Thread(alice, 7, "100")
    comment = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    draft = ops.Draft(title="Retries use jitter", text="Every retry loop uses jitter.", category="convention",
                      evidence=[w.ref(comment)], counterevidence=[], replaces=(), proposer=("person", A))
    proposal = ops.propose(alice, draft, A)
    ops.accept(alice, proposal["id"], proposal["reviewDigest"], A)
    bob_thread = w.Thread(bob, 8, "200")
    bob_thread.comment("200", "nit", "2026-03-02T10:00:00.000000Z")
    bob_thread.save()
    alice, bob = team.sync(alice, bob)  # alice admits bob's ref
    writer = bob.workspace.config.writer
    ref = records_ref("shared", writer)
    admitted = git(bare, "rev-parse", ref).strip()
    later = w.Thread(bob, 9, "300")  # a comment whose text is in bob's snapshot only from now on
    later.comment("300", LATER, "2026-03-03T10:00:00.000000Z")
    later.save()
    consent.withdraw(bob, B, grant["digest"], ["instruction"], "legal hold")
    git(bob.workspace.root, "push", "-q", "origin")
    signed = git(bare, "rev-parse", ref).strip()
    withdrawal = next(iter(Context.open(bob.workspace.root).store.items(["withdrawal"])))
    held = {"writer": writer, "ref": ref, "admitted": admitted, "signed": signed, "learning": proposal["id"],
            "grant": grant["digest"], "scope": alice.scope, "withdrawal": withdrawal.digest,
            "record": json.loads(withdrawal.stored.data)}
    return tmp, held


def _digests(root: Path) -> set[str]:
    return {item.digest for item in Context.open(root).store.items()}


def _stack_damage(bare: Path, held: dict[str, Any]) -> str:
    """One damaged commit (a withdrawal whose bytes no longer hash to its digest) on bob's ref,
    then a well-formed one on it (an unsigned grant); returns the grant's digest."""
    record = {**held["record"], "reason": "x"}
    data = json.dumps(record, separators=(",", ":"), sort_keys=True).encode()
    plant(bare, held["ref"], record_path("withdrawal", DAMAGED), hash_object(bare, data))
    after = grant_like(held["scope"])
    team.forge(bare, held["writer"], [after])
    return after["digest"]


@pytest.fixture
def world(base: tuple[Path, dict[str, Any]], tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    """A copy of the base world (the remote, alice's clone), damage stacked on bob's withdrawal."""
    source, held = base
    for name in ("remote.git", "alice"):
        copy_as_moved(source / name, tmp_path / name)
    git(tmp_path / "alice", "remote", "set-url", "origin", str(tmp_path / "remote.git"))
    held = {**held, "after": _stack_damage(tmp_path / "remote.git", held)}
    return tmp_path / "remote.git", tmp_path / "alice", held


def _withdrawn_here(root: Path, held: dict[str, Any]) -> None:
    """Bob's withdrawal counts: the learning serves no instruction, recall gives nothing; the
    damaged commit and the one after it are never read."""
    read = _digests(root)
    assert held["withdrawal"] in read
    texts = {e["payload"]["text"] for e in Context.open(root).view().events.values() if "payload" in e}
    assert LATER in texts, texts  # the prefix's own text: its writer's snapshot is read with it
    assert DAMAGED not in read and held["after"] not in read
    recall = cli.gitstore("recall", "retry jitter", cwd=root)
    assert recall.returncode == 0 and held["learning"] not in recall.stdout, recall.stdout
    grants = cli.gitstore("grants", cwd=root)
    assert "withdrawn instruction by github:10" in grants.stdout, grants.stdout
    for command in (("learnings",), ("records", "list"), ("context", "--prompt", "add retry jitter")):
        done = cli.gitstore(*command, cwd=root)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (command, done.stderr)
    exported = cli.gitstore("export", "--purpose", "instruction", cwd=root)
    assert exported.returncode != 0 and held["learning"] not in exported.stdout


def test_a_sync_reads_the_withdrawal_under_the_damage(world: tuple) -> None:
    bare, alice, held = world
    report = sync(str(alice))
    assert report.status == "degraded", report.render()
    assert [(q.writer, q.kind) for q in report.quarantined] == [(held["writer"], "records")], report.render()
    assert DAMAGED in report.quarantined[0].line
    assert git(alice, "rev-parse", f"refs/memory/v1/remotes/origin/records/shared/{held['writer']}").strip() \
        == held["signed"]
    assert git(alice, "rev-parse", f"refs/memory/quarantine/origin/records/shared/{held['writer']}").strip() \
        == git(bare, "rev-parse", held["ref"]).strip()
    _withdrawn_here(alice, held)
    again = sync(str(alice))  # named again, not verified again; the withdrawal stays read
    assert again.status == "degraded", again.render()
    assert [(q.writer, q.kind) for q in again.quarantined] == [(held["writer"], "records")], again.render()
    _withdrawn_here(alice, held)
    doctor = cli.gitstore("doctor", cwd=alice)
    assert held["writer"] in doctor.stdout + doctor.stderr


def test_a_plain_fetch_reads_the_withdrawal_under_the_damage(world: tuple) -> None:
    bare, alice, held = world
    git(alice, "fetch", "-q", "origin")
    done = cli.gitstore("learnings", cwd=alice)
    assert "quarantined" in done.stderr and held["writer"] in done.stderr, done.stderr
    assert f"is read as admitted before, at {held['signed'][:12]}" in done.stderr, done.stderr
    _withdrawn_here(alice, held)
    verify = cli.gitstore("verify", cwd=alice)
    assert verify.returncode == 3 and held["writer"] in verify.stdout + verify.stderr, verify.stderr
    assert DAMAGED in verify.stdout + verify.stderr
    report = sync(str(alice))  # sync agrees with what the reads took
    assert [q.writer for q in report.quarantined if q.kind == "records"] == [held["writer"]], report.render()
    assert git(alice, "rev-parse", f"refs/memory/v1/remotes/origin/records/shared/{held['writer']}").strip() \
        == held["signed"]
    _withdrawn_here(alice, held)


@pytest.mark.parametrize("how", ["sync", "fetch"])
def test_a_clone_that_never_admitted_the_writer_reads_its_verified_prefix(world: tuple, how: str) -> None:
    """Carol clones after the damage: bob's ref was never admitted there, and its history up to
    the withdrawal is read, as on alice's clone."""
    bare, alice, held = world
    carol = bare.parent / "carol"
    git(bare.parent, "clone", "-q", str(bare), str(carol))
    team._memory(carol)
    if how == "sync":
        report = sync(str(carol))
        assert [q.writer for q in report.quarantined if q.kind == "records"] == [held["writer"]], report.render()
    else:
        git(carol, "fetch", "-q", "origin")
        verify = cli.gitstore("verify", cwd=carol)
        assert verify.returncode == 3 and held["writer"] in verify.stdout + verify.stderr, verify.stderr
    _withdrawn_here(carol, held)


@pytest.mark.parametrize("how", ["sync", "fetch"])
def test_a_damaged_first_new_commit_admits_nothing_new(world: tuple, how: str) -> None:
    """Damage right on the tip admitted last, a well-formed commit on it: nothing new is read,
    bob's ref is read where it was admitted, and named quarantined."""
    bare, alice, held = world
    git(bare, "update-ref", held["ref"], held["admitted"])
    after = _stack_damage_on_admitted(bare, held)
    before = _digests(alice)
    if how == "sync":
        report = sync(str(alice))
        assert [q.writer for q in report.quarantined if q.kind == "records"] == [held["writer"]], report.render()
        assert not [m for m in report.came_in if m.writer == held["writer"]], report.render()
    else:
        git(alice, "fetch", "-q", "origin")
        done = cli.gitstore("learnings", cwd=alice)
        assert "quarantined" in done.stderr and f"at {held['admitted'][:12]}" in done.stderr, done.stderr
    assert _digests(alice) == before and after not in before
    entry = json.loads((alice / ".git" / "gitstore" / "admitted.json").read_text())[
        f"refs/memory/v1/remotes/origin/records/shared/{held['writer']}"]
    assert entry["admitted"] == held["admitted"], entry


def _stack_damage_on_admitted(bare: Path, held: dict[str, Any]) -> str:
    """A damaged record (a copy of the grant whose bytes no longer hash to its digest) on the tip
    alice admitted, a well-formed commit on it; returns that commit's record digest."""
    record = grant_like(held["scope"])
    record["note"] = "changed"
    plant(bare, held["ref"], record_path("grant", DAMAGED), hash_object(bare, canonicalize(record)))
    after = grant_like(held["scope"])
    after_digest = after["digest"]
    team.forge(bare, held["writer"], [after])
    return after_digest



@pytest.mark.parametrize("how", ["sync", "fetch"])
def test_a_refusal_reached_before_prefixes_were_read_is_reached_again(world: tuple, how: str) -> None:
    """A clone that refused bob's damaged tip before verified prefixes were read (its entries
    name no prefix, bob's ref read at the tip admitted before the withdrawal) verifies what
    arrived since that tip again, once, and reads the withdrawal."""
    from gitstore.providers._admit import anchor_ref

    bare, alice, held = world
    ref = f"refs/memory/v1/remotes/origin/records/shared/{held['writer']}"
    state = alice / ".git" / "gitstore"
    if how == "sync":
        sync(str(alice))
        git(alice, "update-ref", ref, held["admitted"])
        admitted = json.loads((state / "admitted.json").read_text())
        admitted[ref] = {**admitted[ref], "tip": held["admitted"], "admitted": held["admitted"]}
        (state / "admitted.json").write_text(json.dumps(admitted))
        held_aside = json.loads((state / "quarantine.json").read_text())
        for entry in held_aside.values():
            entry.pop("prefix", None)
        (state / "quarantine.json").write_text(json.dumps(held_aside))
    else:
        git(alice, "fetch", "-q", "origin")
        assert cli.gitstore("learnings", cwd=alice).returncode == 0
        admitted = json.loads((state / "admitted.json").read_text())
        admitted[ref]["admitted"] = held["admitted"]
        admitted[ref].pop("prefix", None)
        (state / "admitted.json").write_text(json.dumps(admitted))
    git(alice, "update-ref", anchor_ref(ref), held["admitted"])
    if how == "sync":
        report = sync(str(alice))
        assert [q.writer for q in report.quarantined if q.kind == "records"] == [held["writer"]], report.render()
    _withdrawn_here(alice, held)
