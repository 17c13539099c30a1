"""A writer's history forked on the remote: someone with push access puts a history made on an
older tip on alice's ref (an append she never made, under her writer id), clones sync while it
is there, then alice's own history is pushed back. The clones that read the fork read both
histories from then on: the remote's as alice's, the fork as a parted history kept beside it
(records once read are never given up). They converge with the clones that never saw it, verify
clean, and read what alice stores later. A history moved back stays refused, and so does a
fork whose new side fails verification.

The world is built once (alice's two appends, each with a proposal, the fork read by carol and
by dave, a clone made while it was up, then alice's history put back and bob's signed acceptance
of her second proposal); each test runs on a copy of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pygit2
import pytest

from bench._process import copy_as_moved
from gitstore.context import Context
from gitstore.providers._admit import parted_line
from gitstore.providers.git import payloads_ref, records_ref
from gitstore.queries.learnings import learnings
from gitstore.sync.remote import SyncReport, sync

from . import cli
from .conftest import all_objects, git
from .team import EVERYTHING, commit_all, first_clone, forge, keypair, shared_remote, sign_as, team_clone, write_policy
from .world import Thread, accepted, grant_all, propose, ref

CLONES = ("alice", "bob", "carol", "dave")


def _team(tmp: Path) -> tuple[Path, dict[str, tuple[Path, str]], Path, Context, dict[str, Any]]:
    """A remote whose policy lets github:9 (alice) and github:10 (bob) decide, and alice's
    clone with a grant and a first review comment: the remote, the keys, alice's work tree,
    her clone and the comment."""
    keys = {who: keypair(tmp / "keys", who) for who in ("github:9", "github:10")}
    bare = shared_remote(tmp)
    root = first_clone(tmp, bare)
    write_policy(root, {"github:9": EVERYTHING, "github:10": EVERYTHING}, {w: k for w, (_, k) in keys.items()})
    commit_all(root, "Who may decide")
    git(root, "push", "-q", "origin", "main")
    sign_as(root, keys["github:9"][0])
    alice = Context.open(root)
    grant_all(alice)
    first = Thread(alice, 7, "100")
    jitter = first.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    first.save()
    return bare, keys, root, alice, jitter


def _three(tmp: Path) -> tuple[Path, Context, Context, Context, dict[str, Any]]:
    """The team of ``_team`` with bob (who may decide) and carol cloned, all three synced: the
    remote, the three clones and alice's first comment."""
    bare, keys, _, alice, jitter = _team(tmp)
    bob = team_clone(tmp, bare, "bob", keys["github:10"][0])
    carol = team_clone(tmp, bare, "carol")
    for ctx in (alice, bob, carol):
        sync(str(ctx.workspace.root))
    return bare, alice, bob, carol, jitter


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("forks")
    bare, keys, root, alice, jitter = _team(tmp)
    p1 = propose(alice, [ref(jitter)])
    bob = team_clone(tmp, bare, "bob", keys["github:10"][0])
    carol = team_clone(tmp, bare, "carol")
    for ctx in (alice, bob, carol):
        sync(str(ctx.workspace.root))
    writer = alice.workspace.config.writer
    ref_name = records_ref("shared", writer)
    a1 = git(root, "rev-parse", ref_name).strip()
    second = Thread(alice, 8, "200")
    bound = second.comment("200", "Bound the queue size.", "2026-03-02T10:00:00.000000Z")
    second.save()
    p2 = propose(alice, [ref(bound)], title="Bounded queues", text="Queues are bounded.")
    for ctx in (alice, bob):
        sync(str(ctx.workspace.root))
    a2 = git(bare, "rev-parse", ref_name).strip()
    snapshot = git(bare, "rev-parse", payloads_ref("shared", writer)).strip()
    # the fork: an append made on a1 under alice's id, its text forced into her snapshot
    git(bare, "update-ref", ref_name, a1)
    forged = Thread(alice, 9, "999")
    planted = forged.comment("999", "Planted words.", "2026-03-03T10:00:00.000000Z")
    x2 = forge(bare, writer, forged.pending)
    carol_saw = sync(str(carol.workspace.root))
    assert carol_saw.status == "ok" and not carol_saw.quarantined, carol_saw.line
    dave = team_clone(tmp, bare, "dave")  # a clone made while the fork is up
    assert not sync(str(dave.workspace.root)).quarantined
    # alice's own history back on the remote; bob accepts her second proposal
    git(bare, "update-ref", ref_name, a2)
    git(bare, "update-ref", payloads_ref("shared", writer), snapshot)
    accepted(Context.open(bob.workspace.root), p2, by="github:10")
    assert sync(str(bob.workspace.root)).pushed
    return tmp, {"writer": writer, "a1": a1, "a2": a2, "x2": x2, "p1": p1["id"], "p2": p2["id"],
                 "planted": planted, "episode": forged.id}


def _copied(source: Path, target: Path, clones: tuple[str, ...]) -> Path:
    """A copy of a world's bare remote and clones in ``target``, each clone's origin the copy
    of the remote; returns the remote's copy."""
    for name in ("remote.git", *clones):
        copy_as_moved(source / name, target / name)
    for name in clones:
        git(target / name, "remote", "set-url", "origin", str(target / "remote.git"))
    return target / "remote.git"


@pytest.fixture
def world(base: tuple[Path, dict[str, Any]], tmp_path: Path) -> tuple[Path, dict[str, Path], dict[str, Any]]:
    """A copy of the base world: the bare remote and every clone, pointing at the copy."""
    source, held = base
    return _copied(source, tmp_path, CLONES), {name: tmp_path / name for name in CLONES}, held


def verdicts(root: Path) -> dict[str, tuple[str, bool]]:
    return {row.status.id: (row.status.state, row.status.usable) for row in learnings(Context.open(root))}


def rounds(roots: dict[str, Path], times: int = 2) -> dict[str, SyncReport]:
    """Every clone syncs, ``times`` over; the last report of each."""
    reports = {}
    for _ in range(times):
        for name, root in roots.items():
            reports[name] = sync(str(root))
    return reports


def parted(root: Path) -> list[str]:
    return git(root, "for-each-ref", "--format=%(refname)", "refs/memory/v1/remotes/origin/parted/").split()


def test_clones_that_read_a_fork_converge_once_the_writers_history_is_back(world: tuple) -> None:
    bare, roots, held = world
    first = {name: sync(str(root)) for name, root in roots.items()}
    for name in ("carol", "dave"):  # each read the fork: now the remote's history beside it
        report = first[name]
        assert report.status == "ok" and not report.quarantined, report.render()
        assert report.parted == [parted_line(held["writer"], held["x2"])], report.render()
        assert parted(roots[name]) == [f"refs/memory/v1/remotes/origin/parted/shared/{held['writer']}/{held['x2']}"]
    rounds(roots)
    roots["erin"] = team_clone(bare.parent, bare, "erin").workspace.root  # never saw the fork
    sync(str(roots["erin"]))
    seen = {name: verdicts(root) for name, root in roots.items()}
    assert seen["carol"][held["p2"]] == ("accepted", True), seen["carol"]
    assert all(found == seen["alice"] for found in seen.values()), seen
    for name, root in roots.items():
        done = cli.gitstore("verify", cwd=root)
        assert done.returncode == 0, (name, done.stdout, done.stderr)
    for name in ("carol", "dave"):  # what was read from the fork is never given up, its text with it
        view = Context.open(roots[name]).view()
        assert held["episode"] in view.episodes and held["planted"]["id"] in view.events
        assert (view.events[held["planted"]["id"]].get("payload") or {}).get("text") == "Planted words."
    assert held["episode"] not in Context.open(roots["erin"]).view().episodes
    assert "parted" not in git(bare, "for-each-ref", "refs/memory/")  # sync never pushes it
    # alice's later appends reach them; carol's own appends name no parted tip and verify anywhere
    alice = Context.open(roots["alice"])
    later = Thread(alice, 10, "300")
    cap = later.comment("300", "Cap the pool size.", "2026-03-04T10:00:00.000000Z")
    later.save()
    p3 = propose(alice, [ref(cap)], title="Capped pools", text="Pools are capped.")
    sync(str(roots["alice"]))
    sync(str(roots["carol"]))
    carol = Context.open(roots["carol"])
    p4 = propose(carol, [ref(cap)], title="Carol's pools", text="Pools are capped, says carol.")
    carol_tip = git(roots["carol"], "rev-parse", records_ref("shared", carol.workspace.config.writer)).strip()
    assert held["x2"] not in git(roots["carol"], "log", "-1", "--format=%B", carol_tip)
    rounds(roots)
    for name, root in roots.items():
        found = verdicts(root)
        assert p3["id"] in found and p4["id"] in found, (name, found)
        done = cli.gitstore("verify", cwd=root)
        assert done.returncode == 0, (name, done.stdout, done.stderr)


def test_a_plain_fetch_reads_the_writers_history_beside_the_fork(world: tuple) -> None:
    bare, roots, held = world
    carol = roots["carol"]
    # gitstore init's refspecs, straight into the fetched namespace: a records ref that does not
    # fast-forward only when forced (a pruning fetch that deleted it brings it back the same way)
    git(carol, "fetch", "-q", "--force", "origin")
    done = cli.gitstore("learnings", cwd=carol)
    assert done.returncode == 0 and "quarantined" not in done.stderr, done.stderr
    assert verdicts(carol)[held["p2"]] == ("accepted", True)
    assert parted(carol) == [f"refs/memory/v1/remotes/origin/parted/shared/{held['writer']}/{held['x2']}"]
    assert held["episode"] in Context.open(carol).view().episodes
    done = cli.gitstore("verify", cwd=carol)
    assert done.returncode == 0, (done.stdout, done.stderr)
    report = sync(str(carol))  # a sync admits what the reads did, and finds nothing to refuse
    assert not report.quarantined and not report.parted, report.render()
    doctor = cli.gitstore("doctor", cwd=carol)
    assert f"warn remote origin: writer {held['writer']}: someone with push access forced its ref" in doctor.stdout
    assert f"parts from the one read here, which is kept at {held['x2'][:12]} and still read beside the " \
           "remote's; either side may be the forgery" in doctor.stdout, doctor.stdout


def test_sync_says_who_forced_what_and_doctor_names_each_writer_once_with_what_to_do(world: tuple) -> None:
    """Each fork a sync admits is one line of its report; doctor warns once per writer, however
    many histories are kept for it, and says what to do."""
    bare, roots, held = world
    carol, ref_name = roots["carol"], records_ref("shared", held["writer"])
    report = sync(str(carol))
    assert report.parted == [parted_line(held["writer"], held["x2"])], report.render()
    line = report.parted[0]
    assert "someone with push access forced its ref" in line and held["x2"][:12] in line
    assert "either may be the forgery" in line and "`gitstore doctor` says what to do" in line
    kept = [held["x2"], held["a2"]]
    for number in (20, 21):  # two more forks made on alice's first append, each read by carol
        git(bare, "update-ref", ref_name, held["a1"])
        fork = Thread(Context.open(roots["alice"]), number, str(number * 100))
        fork.comment(str(number * 100), f"Fork {number}.", "2026-03-06T10:00:00.000000Z")
        made = forge(bare, held["writer"], fork.pending)
        report = sync(str(carol))
        assert report.parted == [parted_line(held["writer"], kept[-1])], report.render()
        kept.append(made)
    assert sorted(parted(carol)) == sorted(f"refs/memory/v1/remotes/origin/parted/shared/{held['writer']}/{tip}"
                                           for tip in kept[:-1])
    done = cli.gitstore("doctor", cwd=carol)
    lines = [line for line in done.stdout.splitlines() if held["writer"] in line]
    assert len(lines) == 2, done.stdout  # the warning and its to-do
    assert lines[0].startswith(f"warn remote origin: writer {held['writer']}: someone with push access forced its ref")
    assert "forced its ref onto other histories; the 3 read here before are kept and still read beside the " \
           "remote's" in lines[0], lines[0]
    assert f"`git for-each-ref refs/memory/v1/remotes/origin/parted/shared/{held['writer']}/` lists them" in lines[0]
    assert lines[1].startswith(f"     to do: ask whoever writes as {held['writer']} which tip is theirs"), lines[1]
    assert "`gitstore purge`, `gitstore init` and `gitstore sync` again drop what was read from the fork" in lines[1]
    assert "purge also erases this clone's personal sessions, which no sync keeps" in lines[1], lines[1]
    found = cli.gitstore("doctor", "--json", cwd=carol)
    checks = [c for c in json.loads(found.stdout)["checks"] if held["writer"] in c["detail"]]
    assert [c["state"] for c in checks] == ["warn"], checks


def test_a_history_moved_back_is_still_refused(world: tuple) -> None:
    bare, roots, held = world
    git(bare, "update-ref", records_ref("shared", held["writer"]), held["a1"])  # what carol admitted holds it
    report = sync(str(roots["carol"]))
    assert [(q.writer, q.kind) for q in report.quarantined][:1] == [(held["writer"], "records")], report.render()
    assert "history moved back" in report.quarantined[0].damage and not report.parted
    assert parted(roots["carol"]) == []
    assert held["episode"] in Context.open(roots["carol"]).view().episodes  # nothing read is given up


def test_a_fork_whose_new_side_fails_verification_stays_quarantined(world: tuple) -> None:
    bare, roots, held = world
    repo = pygit2.Repository(str(bare))
    honest = repo[pygit2.Oid(hex=held["a2"])]
    broken = repo.create_commit(None, honest.author, honest.committer, honest.message,
                                repo[honest.parent_ids[0]].tree_id, honest.parent_ids)  # lists records it does not add
    git(bare, "update-ref", records_ref("shared", held["writer"]), str(broken))
    for _ in range(2):
        report = sync(str(roots["carol"]))
        assert [(q.writer, q.kind) for q in report.quarantined][:1] == [(held["writer"], "records")], report.render()
        assert str(broken)[:12] in report.quarantined[0].line and not report.parted
    assert parted(roots["carol"]) == []
    assert held["episode"] in Context.open(roots["carol"]).view().episodes  # read where it was admitted
    git(roots["dave"], "fetch", "-q", "--force", "origin")  # a plain fetch: reads leave it out, and name it
    done = cli.gitstore("learnings", cwd=roots["dave"])
    assert done.returncode == 0 and "quarantined" in done.stderr and held["writer"] in done.stderr, done.stderr
    assert parted(roots["dave"]) == []


def test_doctor_names_a_quarantined_history_and_that_it_is_not_this_clones_to_mend(world: tuple) -> None:
    bare, roots, held = world
    carol = roots["carol"]
    repo = pygit2.Repository(str(bare))
    honest = repo[pygit2.Oid(hex=held["a2"])]
    broken = repo.create_commit(None, honest.author, honest.committer, honest.message,
                                repo[honest.parent_ids[0]].tree_id, honest.parent_ids)
    git(bare, "update-ref", records_ref("shared", held["writer"]), str(broken))
    assert sync(str(carol)).quarantined
    done = cli.gitstore("doctor", "--json", cwd=carol)
    assert done.returncode == 0, (done.stdout, done.stderr)  # a warning: this clone's set-up works
    found = [c for c in json.loads(done.stdout)["checks"] if c["check"] == "fetched memory"]
    assert found and {c["state"] for c in found} == {"warn"}, done.stdout
    records = [c for c in found if f"records/shared/{held['writer']}" in c["detail"]]
    assert len(records) == 1 and str(broken)[:12] in records[0]["detail"], found
    assert "does not add" in records[0]["detail"] and "verify" in records[0]["todo"], found  # why, and what to do
    git(roots["dave"], "fetch", "-q", "--force", "origin")  # a plain fetch: reads leave it out, and so does doctor
    done = cli.gitstore("doctor", cwd=roots["dave"])
    assert done.returncode == 0 and "warn fetched memory" in done.stdout and str(broken)[:12] in done.stdout, done.stdout
    done = cli.gitstore("doctor", cwd=roots["bob"])  # a clone that read nothing refused says nothing of it
    assert done.returncode == 0 and "fetched memory" not in done.stdout, done.stdout


def test_gc_keeps_a_parted_history(world: tuple) -> None:
    bare, roots, held = world
    carol = roots["carol"]
    assert not sync(str(carol)).quarantined
    assert cli.gitstore("gc", cwd=carol).returncode == 0
    git(carol, "gc", "-q", "--prune=now")  # git's own gc keeps it too: a ref holds it
    git(carol, "cat-file", "-e", held["x2"])
    assert held["episode"] in Context.open(carol).view().episodes
    done = cli.gitstore("verify", cwd=carol)
    assert done.returncode == 0, (done.stdout, done.stderr)


def test_a_fork_of_this_clones_own_writer_stays_refused(world: tuple) -> None:
    """This clone's own history is in its own refs: a remote copy that parts from it is refused
    as ever, and the push says why, never forcing."""
    bare, roots, held = world
    carol = roots["carol"]
    writer = Context.open(carol).workspace.config.writer
    ref_name = records_ref("shared", writer)
    for number in (12, 13):  # two appends of carol's own
        thread = Thread(Context.open(carol), number, str(number))
        thread.comment(str(number), f"carol's words {number}", "2026-03-05T09:00:00.000000Z")
        thread.save()
        if number == 12:
            first = git(carol, "rev-parse", ref_name).strip()
    assert sync(str(carol)).pushed
    git(bare, "update-ref", ref_name, first)
    forged = Thread(Context.open(carol), 11, "400")
    forged.comment("400", "Words carol never stored.", "2026-03-05T10:00:00.000000Z")
    forge(bare, writer, forged.pending)
    report = sync(str(carol))
    assert [(q.writer, q.kind) for q in report.quarantined][:1] == [(writer, "records")], report.render()
    assert "history rewritten" in report.quarantined[0].damage and not report.parted
    assert any("not in this clone's history" in line for line in report.not_pushed), report.render()
    git(carol, "fetch", "-q", "--force", "origin")  # reads refuse the copy a plain fetch forced in as well
    done = cli.gitstore("learnings", cwd=carol)
    assert done.returncode == 0 and "quarantined" in done.stderr and writer in done.stderr, done.stderr
    assert not [name for name in parted(carol) if f"/{writer}/" in name]
    assert forged.id not in Context.open(carol).view().episodes


# -- a fork that drops the writer's latest append, its text with it ----------------------------
# alice stores two appends, the second's text secret to the team; bob and carol read both. Then
# someone with push access puts alice's records back at her first append and her snapshot back
# as it was then, and forges one append on top: a fork whose snapshot no longer holds the text of
# the append it parted from. The clones keep reading that append as a parted history, and its
# text with it: a fork erases nobody's text, only an honoured removal does.

SECRET = "SECRET-A2 bound the queue size."
ERASED = ("alice", "bob", "carol")


@pytest.fixture(scope="module")
def erased_base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("fork-drops-text")
    bare, alice, bob, carol, _ = _three(tmp)
    writer = alice.workspace.config.writer
    records, payloads = records_ref("shared", writer), payloads_ref("shared", writer)
    a1, snapshot = git(bare, "rev-parse", records).strip(), git(bare, "rev-parse", payloads).strip()
    second = Thread(alice, 8, "200")
    secret = second.comment("200", SECRET, "2026-03-02T10:00:00.000000Z")
    second.save()
    for ctx in (alice, bob, carol):
        sync(str(ctx.workspace.root))
    a2, snapshot2 = git(bare, "rev-parse", records).strip(), git(bare, "rev-parse", payloads).strip()
    for ctx in (bob, carol):
        assert text(ctx.workspace.root, secret["id"]) == SECRET
    # the fork: both refs back as they were at a1, one forged append on top
    git(bare, "update-ref", records, a1)
    git(bare, "update-ref", payloads, snapshot)
    forged = Thread(alice, 9, "999")
    forged.comment("999", "Planted.", "2026-03-03T10:00:00.000000Z")
    x2 = forge(bare, writer, forged.pending)
    return tmp, {"writer": writer, "a2": a2, "snapshot2": snapshot2, "x2": x2, "secret": secret["id"]}


@pytest.fixture
def erased(erased_base: tuple[Path, dict[str, Any]], tmp_path: Path) -> tuple[Path, dict[str, Path], dict[str, Any]]:
    """A copy of the world whose fork dropped alice's second append and its text."""
    source, held = erased_base
    return _copied(source, tmp_path, ERASED), {name: tmp_path / name for name in ERASED}, held


def text(root: Path, event: str) -> str | None:
    found = Context.open(root).view().events.get(event)
    return None if found is None else (found.get("payload") or {}).get("text")


def kept_snapshots(root: Path) -> list[str]:
    return git(root, "for-each-ref", "--format=%(refname)", "refs/memory/v1/remotes/origin/parted-payloads/").split()


def survives_gc(root: Path, held: dict[str, Any]) -> None:
    """The secret reads, and still does, its bytes kept, after gitstore's gc and git's own."""
    assert text(root, held["secret"]) == SECRET
    assert cli.gitstore("gc", cwd=root).returncode == 0
    git(root, "gc", "-q", "--prune=now")
    assert text(root, held["secret"]) == SECRET
    assert SECRET.encode() in all_objects(root)


def keeps_the_text(root: Path, held: dict[str, Any]) -> None:
    """The parted append's text reads, survives gc (gitstore's and git's own) and verifies."""
    assert parted(root) == [f"refs/memory/v1/remotes/origin/parted/shared/{held['writer']}/{held['a2']}"]
    assert kept_snapshots(root) == [f"refs/memory/v1/remotes/origin/parted-payloads/shared/{held['writer']}/{held['a2']}"]
    survives_gc(root, held)
    done = cli.gitstore("verify", cwd=root)
    assert done.returncode == 0, (done.stdout, done.stderr)


def test_a_fork_that_drops_a_writers_append_keeps_its_text_through_sync(erased: tuple) -> None:
    bare, roots, held = erased
    for name in ("bob", "carol"):
        report = sync(str(roots[name]))
        assert report.status == "ok" and not report.quarantined, report.render()
        assert report.parted == [parted_line(held["writer"], held["a2"])], report.render()
        keeps_the_text(roots[name], held)
        assert not sync(str(roots[name])).quarantined  # the next sync finds nothing to refuse
    assert "parted" not in git(bare, "for-each-ref", "refs/memory/")  # sync never pushes it


def test_a_fork_that_drops_a_writers_append_keeps_its_text_through_a_plain_fetch(erased: tuple) -> None:
    bare, roots, held = erased
    for name in ("bob", "carol"):
        git(roots[name], "fetch", "-q", "--force", "--prune", "origin")
        done = cli.gitstore("learnings", cwd=roots[name])
        assert done.returncode == 0 and "quarantined" not in done.stderr, done.stderr
        keeps_the_text(roots[name], held)
        git(roots[name], "fetch", "-q", "--force", "--prune", "origin")  # no refspec names what keeps it
        assert text(roots[name], held["secret"]) == SECRET
        assert not sync(str(roots[name])).quarantined


def test_a_removal_still_erases_the_text_of_a_parted_history(erased: tuple) -> None:
    bare, roots, held = erased
    for name in ("bob", "carol"):
        assert not sync(str(roots[name])).quarantined
        assert text(roots[name], held["secret"]) == SECRET
    done = cli.gitstore("redact", "--comment", "github:comment:200", "--reason", "asked", "--by", "github:10",
                        cwd=roots["bob"])
    assert done.returncode == 0, done.stderr
    assert sync(str(roots["bob"])).pushed
    assert not sync(str(roots["carol"])).quarantined
    for name in ("bob", "carol"):
        assert text(roots[name], held["secret"]) is None
        assert cli.gitstore("gc", cwd=roots[name]).returncode == 0
        assert SECRET.encode() not in all_objects(roots[name]), name
        done = cli.gitstore("verify", cwd=roots[name])
        assert done.returncode == 0, (name, done.stdout, done.stderr)


def test_a_parted_historys_snapshot_goes_with_it_once_the_writers_ref_holds_it_again(erased: tuple) -> None:
    bare, roots, held = erased
    bob = roots["bob"]
    assert sync(str(bob)).parted
    git(bare, "update-ref", records_ref("shared", held["writer"]), held["a2"])  # alice's own history back
    git(bare, "update-ref", payloads_ref("shared", held["writer"]), held["snapshot2"])
    report = sync(str(bob))
    assert not report.quarantined and report.parted, report.render()
    assert parted(bob) == [f"refs/memory/v1/remotes/origin/parted/shared/{held['writer']}/{held['x2']}"]
    assert kept_snapshots(bob) == [f"refs/memory/v1/remotes/origin/parted-payloads/shared/{held['writer']}/{held['x2']}"]
    assert text(bob, held["secret"]) == SECRET  # from the writer's own snapshot again
    assert cli.gitstore("gc", cwd=bob).returncode == 0
    assert text(bob, held["secret"]) == SECRET
    done = cli.gitstore("verify", cwd=bob)
    assert done.returncode == 0, (done.stdout, done.stderr)


# -- a fork whose clock jumps, read by a clone that appends while it is up ---------------------
# carol appends once; bob stores two appends, their clocks above carol's. Someone with push
# access puts a fork on bob's ref: an append on his first, its clock as far past it as any
# writer's own history may jump. carol syncs while it is up (it is bob's history there) and
# proposes a learning; then bob's own history is back on the remote. A clone that never held
# the fork must still admit carol's history, whose clock leans on the fork's.

JUMPED = ("alice", "bob", "carol")


def clock_of(root: Path, commit: str) -> int:
    message = git(root, "log", "-1", "--format=%B", commit)
    return int(next(line for line in message.splitlines() if line.startswith("Clock: ")).split()[1])


def named(root: Path, commit: str) -> list[tuple[str, str]]:
    """The ``Seen`` headers of an append: (writer, commit)."""
    message = git(root, "log", "-1", "--format=%B", commit)
    return [tuple(line.split()[1:3]) for line in message.splitlines() if line.startswith("Seen: ")]  # type: ignore[misc]


@pytest.fixture(scope="module")
def jumped_base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    from gitstore.providers._verify_git import MAX_CLOCK_JUMP

    tmp = tmp_path_factory.mktemp("fork-jumps")
    bare, alice, bob, carol, jitter = _three(tmp)
    carol_writer, bob_writer = carol.workspace.config.writer, bob.workspace.config.writer
    own = Thread(Context.open(carol.workspace.root), 11, "500")
    own.comment("500", "Log the retry count.", "2026-03-01T11:00:00.000000Z")
    own.save()
    assert sync(str(carol.workspace.root)).pushed
    sync(str(bob.workspace.root))  # bob's clocks above carol's
    records, payloads = records_ref("shared", bob_writer), payloads_ref("shared", bob_writer)
    for number in (12, 13):  # two appends of bob's, the first the fork's base
        thread = Thread(Context.open(bob.workspace.root), number, str(number))
        thread.comment(str(number), f"bob's words {number}", "2026-03-02T09:00:00.000000Z")
        thread.save()
        if number == 12:
            b1 = git(bob.workspace.root, "rev-parse", records).strip()
    assert sync(str(bob.workspace.root)).pushed
    b2, snapshot = git(bare, "rev-parse", records).strip(), git(bare, "rev-parse", payloads).strip()
    git(bare, "update-ref", records, b1)
    forged = Thread(Context.open(bob.workspace.root), 14, "700")
    forged.comment("700", "Words bob never stored.", "2026-03-03T10:00:00.000000Z")
    x2 = forge(bare, bob_writer, forged.pending, clock=clock_of(bare, b1) + MAX_CLOCK_JUMP)
    c1 = git(carol.workspace.root, "rev-parse", records_ref("shared", carol_writer)).strip()
    read = sync(str(carol.workspace.root))  # carol reads the fork as bob's history
    assert read.status == "ok" and not read.quarantined, read.render()
    proposal = propose(Context.open(carol.workspace.root), [ref(jitter)], title="Counted retries",
                       text="Retries are counted.")
    c2 = git(carol.workspace.root, "rev-parse", records_ref("shared", carol_writer)).strip()
    assert sync(str(carol.workspace.root)).pushed
    git(bare, "update-ref", records, b2)  # bob's own history back
    git(bare, "update-ref", payloads, snapshot)
    return tmp, {"bob": bob_writer, "carol": carol_writer, "b1": b1, "b2": b2, "x2": x2, "c1": c1, "c2": c2,
                 "proposal": proposal["id"]}


@pytest.fixture
def jumped(jumped_base: tuple[Path, dict[str, Any]], tmp_path: Path) -> tuple[Path, dict[str, Path], dict[str, Any]]:
    """A copy of the world whose fork of bob's history jumped its clock."""
    source, held = jumped_base
    return _copied(source, tmp_path, JUMPED), {name: tmp_path / name for name in JUMPED}, held


def test_a_clone_that_appended_while_a_jumped_fork_was_up_is_admitted_by_clones_that_never_held_it(
        jumped: tuple) -> None:
    """carol's clock goes one past the fork's, leaning on it (the fork's own history holds
    its clock). Every clone that never held the fork (alice, and every clone made after it was
    gone) refused her whole history; a clone that does not hold a commit an append names
    cannot check the clock it leans on, and admits it."""
    bare, roots, held = jumped
    carol = roots["carol"]
    assert clock_of(carol, held["c2"]) == clock_of(carol, held["x2"]) + 1
    assert named(carol, held["c2"]) == [(held["bob"], held["x2"])]
    roots["erin"] = team_clone(bare.parent, bare, "erin").workspace.root  # never held the fork
    reports = rounds(roots)
    for name, report in reports.items():
        assert not report.quarantined, (name, report.render())
    assert parted(roots["carol"]) == [f"refs/memory/v1/remotes/origin/parted/shared/{held['bob']}/{held['x2']}"]
    seen = {name: verdicts(root) for name, root in roots.items()}
    assert held["proposal"] in seen["erin"], seen["erin"]
    assert all(found == seen["carol"] for found in seen.values()), seen
    for name, root in roots.items():
        done = cli.gitstore("verify", cwd=root)
        assert done.returncode == 0, (name, done.stdout, done.stderr)


def test_a_writer_that_never_held_the_fork_names_the_jumped_append_from_its_next_but_one(
        jumped: tuple) -> None:
    """alice never held the fork, so carol's jump is not a clock her histories hold: she takes
    none from it (nobody takes honest clocks anywhere by naming commits no clone holds), and
    climbs as far as her own history lets her: her next append stays below carol's jumped one
    and names carol's history up to before it; the append after climbs past and names it."""
    bare, roots, held = jumped
    alice = roots["alice"]
    writer = records_ref("shared", Context.open(alice).workspace.config.writer)
    assert not sync(str(alice)).quarantined
    made = []
    for purposes in (("training",), ("evaluation",)):
        grant_all(Context.open(alice), purposes=purposes)
        made.append(git(alice, "rev-parse", writer).strip())
    assert clock_of(alice, made[0]) < clock_of(alice, held["c2"]) < clock_of(alice, made[1])
    assert (held["carol"], held["c1"]) in named(alice, made[0])
    assert (held["carol"], held["c2"]) in named(alice, made[1])
    done = cli.gitstore("verify", cwd=alice)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert sync(str(alice)).pushed
    erin = team_clone(bare.parent, bare, "erin").workspace.root
    assert not sync(str(erin)).quarantined
    assert cli.gitstore("verify", cwd=erin).returncode == 0


# -- the writer's history back, the fork's snapshot left on the remote ---------------------------
# Once a clone kept alice's second append as a parted history (its text in that history's own
# snapshot), alice's records come back on the remote (or someone builds on that append) while her
# snapshot stays the fork's, without the text. The writer's ref now holds the parted history, which
# goes; its text must not go with it: the writer's snapshot owes it from then on, so the fork's is
# read with it kept (as a snapshot forced back with no fork is), until alice's own comes back.

def _records_back(bare: Path, held: dict[str, Any]) -> None:
    """alice's history back on the remote, her snapshot left as the fork forced it (no text)."""
    git(bare, "update-ref", records_ref("shared", held["writer"]), held["a2"])


def _fork_text_kept(root: Path, held: dict[str, Any]) -> None:
    """The fork is the parted history now, the secret still read, through gc too."""
    assert parted(root) == [f"refs/memory/v1/remotes/origin/parted/shared/{held['writer']}/{held['x2']}"]
    survives_gc(root, held)


def _alice_syncs_then_verifies(bare: Path, roots: dict[str, Path], held: dict[str, Any], name: str) -> None:
    """alice's next sync pushes her own snapshot again: admitted, nothing held, verify clean."""
    sync(str(roots["alice"]))
    assert git(bare, "rev-parse", payloads_ref("shared", held["writer"])).strip() != held["fork_snapshot"]
    report = sync(str(roots[name]))
    assert not report.quarantined, report.render()
    assert text(roots[name], held["secret"]) == SECRET
    done = cli.gitstore("verify", cwd=roots[name])
    assert done.returncode == 0, (done.stdout, done.stderr)


def _kept_for_the_text(report: SyncReport, held: dict[str, Any]) -> None:
    """The fork's snapshot read with alice's text kept, named (nothing is put back unasked)."""
    assert not report.quarantined and report.status == "degraded" and not report.restored, report.render()
    assert len(report.kept_text) == 1, report.render()
    assert report.kept_text[0].startswith(f"writer {held['writer']}: its payload snapshot on origin lacks 1 payload(s)")


@pytest.fixture
def forked(erased: tuple) -> tuple[Path, dict[str, Path], dict[str, Any]]:
    """The erased world, with the snapshot the fork forced on the remote named."""
    bare, roots, held = erased
    fork_snapshot = git(bare, "rev-parse", payloads_ref("shared", held["writer"])).strip()
    return bare, roots, {**held, "fork_snapshot": fork_snapshot}


def test_the_writers_history_back_without_its_snapshot_erases_no_text_through_sync(forked: tuple) -> None:
    bare, roots, held = forked
    bob = roots["bob"]
    assert sync(str(bob)).parted
    _records_back(bare, held)
    report = sync(str(bob))
    assert report.parted, report.render()
    _kept_for_the_text(report, held)
    _fork_text_kept(bob, held)
    _kept_for_the_text(sync(str(bob)), held)  # named again, the text still read
    assert text(bob, held["secret"]) == SECRET
    _alice_syncs_then_verifies(bare, roots, held, "bob")


def test_the_writers_history_back_without_its_snapshot_erases_no_text_through_a_plain_fetch(forked: tuple) -> None:
    bare, roots, held = forked
    carol = roots["carol"]
    git(carol, "fetch", "-q", "--force", "origin")
    assert cli.gitstore("learnings", cwd=carol).returncode == 0
    assert text(carol, held["secret"]) == SECRET
    _records_back(bare, held)
    git(carol, "fetch", "-q", "--force", "origin")
    done = cli.gitstore("learnings", cwd=carol)
    assert done.returncode == 0, done.stderr
    assert f"writer {held['writer']}'s payload snapshot, as fetched, lacks text read here before" in done.stderr, \
        done.stderr
    _fork_text_kept(carol, held)
    _kept_for_the_text(sync(str(carol)), held)  # a sync keeps what the reads did
    _alice_syncs_then_verifies(bare, roots, held, "carol")


def test_an_append_built_on_a_parted_history_with_the_forks_snapshot_erases_no_text(forked: tuple) -> None:
    bare, roots, held = forked
    bob = roots["bob"]
    assert sync(str(bob)).parted
    _records_back(bare, held)  # someone builds on alice's second append, over the fork's snapshot
    built = Thread(Context.open(roots["alice"]), 11, "777")
    built.comment("777", "Built on the parted append.", "2026-03-04T10:00:00.000000Z")
    forge(bare, held["writer"], built.pending)
    report = sync(str(bob))
    assert report.parted, report.render()
    _kept_for_the_text(report, held)
    _fork_text_kept(bob, held)
    git(bob, "fetch", "-q", "--force", "origin")  # a plain fetch after it reads the same
    assert text(bob, held["secret"]) == SECRET


def test_a_removal_erases_text_the_writers_snapshot_owes_after_a_parted_history_went(forked: tuple) -> None:
    bare, roots, held = forked
    bob, carol = roots["bob"], roots["carol"]
    for root in (bob, carol):
        assert sync(str(root)).parted
    _records_back(bare, held)
    for root in (bob, carol):
        _kept_for_the_text(sync(str(root)), held)
    for root in (bob, carol):
        assert text(root, held["secret"]) == SECRET
    done = cli.gitstore("redact", "--comment", "github:comment:200", "--reason", "asked", "--by", "github:10",
                        cwd=bob)
    assert done.returncode == 0, done.stderr
    assert sync(str(bob)).pushed
    for root in (carol, bob):
        report = sync(str(root))
        assert not report.quarantined, report.render()  # the fork's snapshot drops only what was removed
        assert text(root, held["secret"]) is None
        assert cli.gitstore("gc", cwd=root).returncode == 0
        assert SECRET.encode() not in all_objects(root), root
        done = cli.gitstore("verify", cwd=root)
        assert done.returncode == 0, (root, done.stdout, done.stderr)


# -- a history of someone's own whose clock jumped as far as verify lets it -------------------
# Someone who can push makes a history under a writer id of their own, each append's clock
# 2**32 past the one before up to 2**40, then 2**20 a step, and last an append naming a commit
# no clone holds with a clock near the 15 digits a message holds: every append is admitted.
# carol, busier than alice, stores a few threads and proposes; alice accepts once.

def _jumping_history(tmp: Path, bare: Path, steps: int = 256, creeps: int = 3) -> None:
    """Push writer ``wjumper``'s history, its clocks as far as verify lets them jump, each
    append a review thread's episode (no payload to push)."""
    mallory = team_clone(tmp, bare, "mallory")
    root = mallory.workspace.root

    def episode(number: int) -> dict:
        return Thread(mallory, 1000 + number, str(1000 + number)).episode

    for step in range(1, steps + 1):
        forge(root, "wjumper", [episode(step)], clock=step * 2**32)
    for step in range(1, creeps + 1):
        forge(root, "wjumper", [episode(steps + step)], clock=2**40 + step * 2**20)
    forge(root, "wjumper", [episode(0)], clock=10**14, seen=(("wghost", "5" * 40),))  # no clone holds it
    git(root, "push", "-q", "origin", "refs/memory/v1/records/shared/wjumper")


def test_one_acceptance_takes_after_a_history_whose_clock_jumped_to_the_limit(tmp_path: Path) -> None:
    """Clones went at most 2**32 past their own last clock an append (2**20 past 2**40): after
    such a history, a busier writer's clock stayed above a reviewer's for as many appends as the
    reviewer lagged, and an accept of her proposal named an append of hers from before it. It
    applied to nothing, said "accepted" all the same, and took as many tries as the lag. Clones
    take the clock that history's own appends hold, whole (not the last one's, which leans on a
    commit no clone holds), and one accept takes, on every clone."""
    bare, _, root, alice, jitter = _team(tmp_path)
    carol = team_clone(tmp_path, bare, "carol").workspace.root
    for clone in (root, carol):
        sync(str(clone))
    _jumping_history(tmp_path, bare)
    for clone in (root, carol):
        got = sync(str(clone))
        assert got.status == "ok" and not got.quarantined, got.render()
    for number in range(3):  # carol is the busier writer
        thread = Thread(Context.open(carol), 20 + number, str(300 + number))
        thread.comment(str(300 + number), f"carol's note {number}", "2026-03-02T10:00:00.000000Z")
        thread.save()
    proposal = propose(Context.open(carol), [ref(jitter)], title="Counted retries", text="Retries are counted.")
    assert sync(str(carol)).pushed
    sync(str(root))
    accepted(Context.open(root), proposal)
    assert verdicts(root)[proposal["id"]] == ("accepted", True)
    assert sync(str(root)).pushed
    roots = {"alice": root, "carol": carol, "erin": team_clone(tmp_path, bare, "erin").workspace.root}
    for name, report in rounds(roots).items():
        assert not report.quarantined, (name, report.render())
    for name, clone in roots.items():
        assert verdicts(clone)[proposal["id"]] == ("accepted", True), name
        done = cli.gitstore("verify", cwd=clone)
        assert done.returncode == 0, (name, done.stdout, done.stderr)
