"""Memory in a partial clone (``git clone --filter=blob:none``, ``actions/checkout`` with
``filter:``): git leaves blobs out of every fetch from the promisor remote and fetches each one
later, when git itself needs it; gitstore reads objects itself, and needs memory whole.

``gitstore sync`` fetches memory's refs without the filter and fetches the objects a plain
``git fetch`` left out; an object missing there is never taken for damage, nor remembered as
such; reads and ``doctor`` say what to do. Real partial clones of a real bare remote that
serves filters (``uploadpack.allowFilter``), over ``file://`` as over a network."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gitstore.context import Context
from gitstore.errors import Refused
from gitstore.ops.setup import init
from gitstore.queries.doctor import WARN, doctor
from gitstore.queries.verify import verify
from gitstore.sync.remote import fetch_specs, sync

from . import cli
from .conftest import build_once, copy_world, git
from .team import first_clone, shared_remote
from .world import Thread, grant_all, propose, ref


def missing(root: Path, *refs: str) -> list[str]:
    """The objects the history of ``refs`` names that the clone does not hold (git does not
    fetch them to answer)."""
    out = git(root, "rev-list", "--objects", "--missing=print", *refs)
    return [line[1:] for line in out.splitlines() if line.startswith("?")]


def digests(ctx: Context) -> set[str]:
    return {item.digest for item in Context.open(ctx.workspace.root).store.items()}


@pytest.fixture(scope="module")
def team_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The team below, made once (each test takes a copy): its folder."""
    return build_once(tmp_path_factory, "team", _team)[0]


@pytest.fixture
def team(team_once: Path, tmp_path: Path) -> tuple[Context, Path]:
    """A remote that serves filters, holding the memory of two writers: alice's grant, review
    thread and proposal, and carol's comment. Returns alice's clone, synced last (it reads
    both), and the remote: a copy, in this test's folder, of the team made once."""
    copy_world(team_once, tmp_path)
    return Context.open(tmp_path / "alice"), tmp_path / "remote.git"


def _team(tmp_path: Path) -> tuple[Context, Path]:
    bare = shared_remote(tmp_path)
    git(bare, "config", "uploadpack.allowFilter", "true")
    alice = Context.open(first_clone(tmp_path, bare))
    grant_all(alice)
    thread = Thread(alice, 7, "100")
    comment = thread.comment("100", "keep retries bounded", "2026-03-01T10:00:00.000000Z")
    thread.save()
    propose(alice, [ref(comment)], title="Bounded retries", text="Bound retries.")
    sync(str(alice.workspace.root))
    git(tmp_path, "clone", "-q", str(bare), str(tmp_path / "carol"))
    init(tmp_path / "carol")
    carol = Context.open(tmp_path / "carol")
    thread = Thread(carol, 8, "200")
    thread.comment("200", "carol's own words", "2026-03-02T10:00:00.000000Z")
    thread.save()
    sync(str(carol.workspace.root))
    sync(str(alice.workspace.root))
    return Context.open(alice.workspace.root), bare


def partial_clone(tmp: Path, bare: Path, name: str = "bob") -> Path:
    """A clone that leaves every blob on the remote until git needs it, set up for gitstore."""
    root = tmp / name
    git(tmp, "clone", "-q", "--filter=blob:none", f"file://{bare}", str(root))
    assert git(root, "config", "remote.origin.partialclonefilter").strip() == "blob:none"
    init(root)
    return root


def test_a_partial_clone_s_sync_reads_every_writer_whole_and_verifies(tmp_path: Path,
                                                                    team: tuple[Context, Path]) -> None:
    alice, bare = team
    bob = partial_clone(tmp_path, bare)
    done = cli.gitstore("sync", "--json", cwd=bob)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == "ok" and report["quarantined"] == []
    assert len({m["writer"] for m in report["in"]}) == 2, "alice and carol"
    assert digests(Context.open(bob)) == digests(alice)
    assert missing(bob, "--glob=refs/memory/v1/remotes") == []
    assert verify(Context.open(bob).store).ok
    assert cli.gitstore("verify", cwd=bob).returncode == 0
    again = sync(str(bob))
    assert again.status == "no-update" and not again.quarantined


def test_memory_a_plain_fetch_brought_without_its_objects_is_named_with_what_to_do_and_synced(
        tmp_path: Path, team: tuple[Context, Path]) -> None:
    """``gitstore init``'s refspecs make a plain ``git fetch`` bring memory, and in a partial
    clone it brings the refs without their blobs: reads leave that memory out and say how to
    fetch it (no damage to report to anyone), doctor warns, and a sync fetches what is missing."""
    alice, bare = team
    bob = partial_clone(tmp_path, bare)
    git(bob, "fetch", "-q", "origin")
    assert missing(bob, "--glob=refs/memory/v1/remotes"), "the filter left memory's blobs out"
    left = Context.open(bob).store.left_out()
    assert left, "what cannot be read is left out"
    for problem in left:
        assert "gitstore sync" in problem.message and "partial clone" in problem.message, problem
        assert "fails verification" not in problem.message, problem
    checks = doctor(bob).checks
    memory = [c for c in checks if c.name == "partial clone"]
    assert memory and memory[0].state == WARN and "gitstore sync" in memory[0].todo, checks
    assert any(c.name == "remote origin" and c.state == WARN and "blob:none" in c.detail and "--no-filter" in c.todo
               for c in checks), checks
    assert not any("tell its writer" in c.todo for c in checks), "nobody else has anything to mend"
    report = sync(str(bob))
    assert report.status != "degraded" and not report.quarantined, report.render()
    assert digests(Context.open(bob)) == digests(alice)
    assert verify(Context.open(bob).store).ok
    assert not [c for c in doctor(bob).checks if c.name in ("partial clone", "fetched memory")]


def test_what_a_plain_fetch_adds_to_memory_already_read_is_fetched_by_the_next_sync(
        tmp_path: Path, team: tuple[Context, Path]) -> None:
    """Memory read whole once; a writer appends; a plain fetch brings the new appends without
    their blobs, and a read refuses them: the sync fetches them and reads them, and remembers
    no refusal."""
    alice, bare = team
    bob = partial_clone(tmp_path, bare)
    assert sync(str(bob)).status == "ok"
    thread = Thread(alice, 9, "300")
    thread.comment("300", "alice says more", "2026-03-03T10:00:00.000000Z")
    thread.save()
    sync(str(alice.workspace.root))
    git(bob, "fetch", "-q", "origin")
    assert Context.open(bob).store.left_out(), "a read leaves the appends out while their blobs are missing"
    report = sync(str(bob))
    assert report.status == "ok" and not report.quarantined, report.render()
    assert digests(Context.open(bob)) == digests(alice)
    remembered = bob / ".git" / "gitstore" / "quarantine.json"
    assert not remembered.exists() or json.loads(remembered.read_text()) == {}


def test_a_tip_refused_before_for_a_missing_object_is_read_once_it_can_be(tmp_path: Path,
                                                                          team: tuple[Context, Path]) -> None:
    """An earlier sync fetched memory with the clone's filter and refused each writer's tip for
    a blob it lacked, and remembered it (``.git/gitstore/quarantine.json``, a held ref): in a
    partial clone that refusal does not stand, so the next sync fetches the blobs and reads."""
    alice, bare = team
    bob = partial_clone(tmp_path, bare)
    git(bob, "fetch", "-q", "--no-tags", "--refmap=", "origin", *fetch_specs("origin"))  # with the filter, as it did
    refused = {}
    for line in git(bob, "for-each-ref", "--format=%(refname) %(objectname)", "refs/memory/sync/origin/").splitlines():
        name, tip = line.split()
        kind, writer = name.split("/")[-3], name.split("/")[-1]
        held = f"refs/memory/quarantine/origin/{kind}/shared/{writer}"
        git(bob, "update-ref", held, tip)
        blob = missing(bob, tip)[0]
        refused[held] = {"tip": tip, "problem": f"commit {tip}: blob {blob} is missing"}
    (bob / ".git" / "gitstore" / "quarantine.json").write_text(json.dumps(refused))
    report = sync(str(bob))
    assert report.status == "ok" and not report.quarantined, report.render()
    assert digests(Context.open(bob)) == digests(alice)
    assert git(bob, "for-each-ref", "refs/memory/quarantine/") == ""


def test_a_remote_that_will_not_send_the_missing_objects_is_named_and_nothing_is_remembered(
        tmp_path: Path, team: tuple[Context, Path]) -> None:
    """A remote that serves filters but no object asked for by its id (git's protocol version 0
    without ``uploadpack.allowAnySHA1InWant``): the sync stops with one line saying how to fetch
    memory whole, quarantines nothing and remembers no refusal; done as it says, the next sync
    reads every writer."""
    alice, bare = team
    bob = partial_clone(tmp_path, bare)
    git(bob, "config", "protocol.version", "0")
    git(bob, "fetch", "-q", "origin")
    with pytest.raises(Refused) as refused:
        sync(str(bob))
    said = str(refused.value)
    assert "partial clone" in said and "--no-filter" in said, said
    assert git(bob, "for-each-ref", "refs/memory/quarantine/") == ""
    command = said.split("`")[1]
    assert command.startswith("git fetch "), said
    subprocess.run(command, shell=True, cwd=bob, check=True, capture_output=True)
    report = sync(str(bob))
    assert report.status != "degraded" and not report.quarantined, report.render()
    assert digests(Context.open(bob)) == digests(alice)


@pytest.mark.parametrize("head", [True, False], ids=["with HEAD", "a remote whose HEAD names no branch"])
def test_a_policy_change_on_the_remote_applies_in_a_partial_clone(tmp_path: Path, head: bool) -> None:
    """Sync fetches the default branch with the clone's filter, which leaves the new policy's
    files on the remote: they are fetched when the policy is read, as git fetches a file it
    checks out, and the policy applies (bob may no longer decide); so it does when the remote's
    HEAD, fetched beside it, names no branch."""
    from gitstore.ops import learning as ops
    from gitstore.rules.active import evaluate

    from .team import EVERYTHING, commit_all, proposal_of_two, team_clone, write_policy

    alice, bob, proposal = proposal_of_two(tmp_path)
    bare = tmp_path / "remote.git"
    git(bare, "config", "uploadpack.allowFilter", "true")
    ops.accept(bob, proposal["id"], proposal["reviewDigest"], "github:10")
    sync(str(bob.workspace.root))
    carol = partial_clone(tmp_path, bare, "carol")
    sync(str(carol))
    assert evaluate(Context.open(carol).view(), "instruction")[proposal["id"]].usable
    public = " ".join((tmp_path / "keys" / "github_9.pub").read_text().split()[:2])  # alice's, from two_reviewers
    maintainer = team_clone(tmp_path, bare, "maintainer").workspace.root
    write_policy(maintainer, {"github:9": EVERYTHING}, {"github:9": public})
    commit_all(maintainer, "Only alice decides")
    git(maintainer, "push", "-q", "origin", "main")
    if not head:
        git(bare, "symbolic-ref", "HEAD", "refs/heads/master")
    report = sync(str(carol))
    assert report.policy is not None, report.render()
    from gitstore.providers._policy_git import current

    assert current(Context.open(carol).store.provider.repo).mode == "policy"  # type: ignore[attr-defined]
    ctx = Context.open(carol)
    status = evaluate(ctx.view(), "instruction")[proposal["id"]]
    assert (status.state, status.usable) == ("proposed", False)
