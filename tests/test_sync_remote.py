"""``gitstore sync`` through a real bare remote: what comes in is verified and admitted, what
goes out is this writer's shared refs only (fast-forward), a second run does nothing, a killed
run leaves the clone readable and the next one completes, and two clones syncing at the same
time both converge."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pygit2
import pytest

from gitstore.context import Context
from gitstore.errors import InvalidInput
from gitstore.providers._names import fetch_refspecs
from gitstore.queries.learnings import learnings
from gitstore.sync import steps
from gitstore.sync.remote import sync

from . import cli
from .conftest import build_once, copy_world, git
from .team import first_clone, shared_remote
from .world import Thread, accepted, grant_all, propose, ref

ALICE = "github:9"


def clone(tmp: Path, bare: Path, name: str) -> Context:
    """A clone of the team's remote set up for gitstore, memory not fetched (sync does it)."""
    from gitstore.ops.setup import init

    root = tmp / name
    git(tmp, "clone", "-q", str(bare), str(root))
    init(root)
    return Context.open(root)


def remote_refs(bare: Path) -> dict[str, str]:
    out = git(bare, "for-each-ref", "--format=%(refname) %(objectname)").strip()
    return {name: oid for name, oid in (line.split(" ") for line in out.splitlines())}


def verdicts(ctx: Context) -> dict[str, tuple[str, bool]]:
    return {row.status.id: (row.status.state, row.status.usable) for row in learnings(Context.open(ctx.workspace.root))}


def texts(ctx: Context) -> set[str]:
    """The comment texts a clone reads, as a new command would."""
    return {(e.get("payload") or {}).get("text") for e in Context.open(ctx.workspace.root).view().events.values()}


def bob_speaks(bob: Context, alice: Context | None = None) -> None:
    """bob comments in a thread of his own and syncs; then alice syncs, when given."""
    thread = Thread(bob, 8, "200")
    thread.comment("200", "bob's own words", "2026-03-02T10:00:00.000000Z")
    thread.save()
    sync(str(bob.workspace.root))
    if alice is not None:
        sync(str(alice.workspace.root))


@pytest.fixture(scope="module")
def team_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The team below, made once (each test takes a copy): its folder and what it holds."""
    return build_once(tmp_path_factory, "team", lambda folder: _team(folder)[3])


@pytest.fixture
def team(team_once: tuple[Path, dict], tmp_path: Path) -> tuple[Context, Context, Path, dict]:
    """Alice's clone with a grant, a review thread, an accepted learning and a personal session;
    bob's clone of the same remote, never synced. A copy, in this test's folder, of the team
    made once."""
    source, held = team_once
    copy_world(source, tmp_path)
    return Context.open(tmp_path / "alice"), Context.open(tmp_path / "bob"), tmp_path / "remote.git", held


def _team(tmp_path: Path) -> tuple[Context, Context, Path, dict]:
    bare = shared_remote(tmp_path)
    alice = Context.open(first_clone(tmp_path, bare))
    grant_all(alice)
    thread = Thread(alice, 7, "100")
    comment = thread.comment("100", "keep retries bounded", "2026-03-01T10:00:00.000000Z")
    thread.save()
    learning = accepted(alice, propose(alice, [ref(comment)], title="Bounded retries", text="Bound retries."))
    session = Thread(alice, None, "s1", kind="agent-session")
    session.comment("s1-1", "my private session text", "2026-03-01T11:00:00.000000Z")
    session.save()
    bob = clone(tmp_path, bare, "bob")
    return alice, bob, bare, {"learning": learning, "comment": comment}


def test_sync_sends_own_shared_refs_and_brings_the_learning(team: tuple) -> None:
    alice, bob, bare, held = team
    sent = sync(str(alice.workspace.root), "origin")
    assert sent.status == "ok" and sent.pushed and not sent.quarantined, sent.line
    writer = alice.workspace.config.writer
    refs = remote_refs(bare)
    memory = sorted(r for r in refs if r.startswith("refs/memory/"))
    assert memory == [f"refs/memory/v1/payloads/shared/{writer}", f"refs/memory/v1/records/shared/{writer}"]
    assert b"my private session text" not in cli_objects(bare)

    got = sync(str(bob.workspace.root))
    assert got.status == "ok", got.line
    assert {m.writer for m in got.came_in} == {writer}
    assert sum(m.count for m in got.came_in if m.kind == "records") > 0
    assert [c.id for c in got.changed] == [held["learning"]["id"]]
    # without a policy alice's acceptance counts on her clone only: bob sees her proposal
    assert got.changed[0].before is None
    assert got.changed[0].after == {"state": "proposed", "usable": False, "contested": False}
    assert got.not_used and not got.left_out  # named, and no damage
    assert verdicts(bob)[held["learning"]["id"]] == ("proposed", False)
    assert "8 record(s) in from 1 writer(s)" in got.line

    again = sync(str(bob.workspace.root))
    assert again.status == "no-update" and not again.came_in and not again.pushed, again.line
    assert sync(str(alice.workspace.root)).status == "no-update"  # her push already moved her fetched ref


def cli_objects(bare: Path) -> bytes:
    """Every object's content in a repository, uncompressed."""
    out = subprocess.run(["git", "-C", str(bare), "cat-file", "--batch-all-objects", "--batch"], capture_output=True)
    return out.stdout


def test_sync_never_pushes_the_local_namespace_or_forces(team: tuple) -> None:
    alice, bob, bare, _ = team
    sync(str(alice.workspace.root))
    writer = alice.workspace.config.writer
    ref = f"refs/memory/v1/records/shared/{writer}"
    # someone rewrote alice's history on the remote: sync refuses to force it back
    old = git(bare, "rev-parse", ref).strip()
    git(bare, "update-ref", ref, git(bare, "rev-parse", "main").strip())
    grant_all(Context.open(alice.workspace.root), purposes=("training",))
    report = sync(str(alice.workspace.root))
    assert report.status == "degraded"
    assert any(f"another clone writing as {writer} (a copy of this folder?) or by someone with push access; never "
               "forced: `gitstore init --new-writer` gives this one an id of its own and carries its appends the "
               "remote lacks over to it" in why for why in report.not_pushed), report.not_pushed
    assert any(q.writer == writer for q in report.quarantined)
    assert git(bare, "rev-parse", ref).strip() != old  # left as it was found
    assert Context.open(alice.workspace.root).view().grants  # alice's own memory untouched


def test_a_clone_naming_the_teams_remote_otherwise_pushes_nothing_the_team_would_refuse(
        team: tuple, tmp_path: Path) -> None:
    """A clone of the team's remote named otherwise (``git clone -o upstream``) has no origin,
    so a local scope, and what it stores is of that scope, which every clone of the remote
    refuses: one push of it and every teammate's sync failed. Its sync still fetches, pushes
    nothing and says how to mend it; once mended, its old appends stay here and the team's
    syncs stay clean."""
    alice, bob, bare, _ = team
    sync(str(alice.workspace.root))
    carol = tmp_path / "carol"
    git(tmp_path, "clone", "-q", "-o", "upstream", str(bare), str(carol))
    cli.ok("init", cwd=carol)
    grant_all(Context.open(carol))
    before = remote_refs(bare)
    done = cli.gitstore("sync", "upstream", cwd=carol)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    line = done.stdout.splitlines()[0]
    assert "0 record(s) pushed" in line, line
    assert "which is not the scope upstream stands for, github.com/acme/widgets" in line, line
    assert "`git remote rename upstream origin && gitstore init --new-writer`" in line, line
    assert remote_refs(bare) == before, "nothing pushed"
    assert cli.gitstore("sync", cwd=bob.workspace.root).returncode == 0

    git(carol, "remote", "rename", "upstream", "origin")
    cli.ok("init", "--new-writer", cwd=carol)
    mended = cli.gitstore("sync", "--json", cwd=carol)
    report = json.loads(mended.stdout)
    assert not report["notPushed"] and report["stranded"], report
    assert remote_refs(bare) == before, "its old appends stay here"
    grant_all(Context.open(carol))
    assert sync(str(carol)).pushed
    again = cli.gitstore("sync", cwd=bob.workspace.root)
    assert again.returncode == 0 and "2 record(s) in from 1 writer(s)" in again.stdout, again.stdout


def test_what_sync_held_for_a_remote_renamed_as_it_advised_is_dropped_by_init(team: tuple, tmp_path: Path) -> None:
    """A clone of the team's remote named upstream syncs with it and holds every writer in
    quarantine (of another scope than its own, local one), and is told to run `git remote
    rename upstream origin && gitstore init --new-writer`. No sync of upstream can release
    those held refs any more: doctor warned of them for good, saying they would be read once
    the remote's ref moved, while origin's copies of the same writers are read. init drops what
    sync held for a remote the clone no longer has."""
    alice, _, bare, _ = team
    sync(str(alice.workspace.root))
    carol = tmp_path / "carol"
    git(tmp_path, "clone", "-q", "-o", "upstream", str(bare), str(carol))
    cli.ok("init", cwd=carol)
    assert cli.gitstore("sync", "upstream", cwd=carol).returncode == 3
    assert git(carol, "for-each-ref", "refs/memory/quarantine/upstream/").strip()
    git(carol, "remote", "rename", "upstream", "origin")
    done = cli.ok("init", "--new-writer", cwd=carol)
    assert "upstream, no remote any more" in done, done
    assert not git(carol, "for-each-ref", "refs/memory/quarantine/").strip()
    assert sync(str(carol)).came_in
    doctor = json.loads(cli.gitstore("doctor", "--json", cwd=carol).stdout)
    assert not [c for c in doctor["checks"] if "upstream" in c["detail"]], doctor


def test_a_clone_whose_origin_changed_after_it_stored_pushes_nothing_of_the_old_scope(
        team: tuple, tmp_path: Path) -> None:
    """Records keep the scope they were stored under: a clone that stored memory before its
    origin named the team's remote would push them with its next appends, and every clone of
    the remote would refuse its history. The init that makes the team's scope the clone's gives
    it a new writer id, whose appends are pushed; the old id's stay here, named."""
    alice, bob, bare, _ = team
    dave = tmp_path / "dave"
    git(tmp_path, "init", "-q", "-b", "main", str(dave))
    cli.ok("init", cwd=dave)
    old = Context.open(dave).workspace.config.writer
    grant_all(Context.open(dave))  # stored under a local scope
    git(dave, "remote", "add", "origin", str(bare))
    grant_all(Context.open(dave), purposes=("training",))  # under the team's, before init made it this clone's
    before = remote_refs(bare)
    report = sync(str(dave))
    assert not report.pushed and report.not_pushed, report.line
    assert "holds records of scope local/" in report.not_pushed[0], report.not_pushed
    assert "`gitstore init --new-writer`" in report.not_pushed[0], report.not_pushed
    assert remote_refs(bare) == before
    cli.ok("init", cwd=dave)
    new = Context.open(dave).workspace.config.writer
    assert new != old
    grant_all(Context.open(dave), purposes=("evaluation",))
    report = sync(str(dave))
    assert [m.writer for m in report.pushed] and {m.writer for m in report.pushed} == {new}, report.line
    assert not report.not_pushed and any(old in line for line in report.stranded), report.line
    assert not any(name.endswith("/" + old) for name in remote_refs(bare)), "nothing of the old scope is pushed"
    assert sync(str(bob.workspace.root)).status in ("ok", "no-update")


def test_what_a_clone_stored_between_naming_origin_and_init_reaches_the_team(team: tuple, tmp_path: Path) -> None:
    """A clone stores memory under a local scope, its person names the team's remote origin
    and stores more (of the team's scope now) before running ``gitstore init``. The old id's
    history holds the local scope's records, so no sync pushes it: what was stored in between
    stayed on this clone for good, read here and by no teammate. The init that gives the clone
    a new id carries those appends over to it, as it carries appends a remote parted from, and
    the next sync sends them; the local scope's stay here, unread."""
    alice, bob, bare, _ = team
    sync(str(alice.workspace.root))
    dave = tmp_path / "dave"
    git(tmp_path, "init", "-q", "-b", "main", str(dave))
    cli.ok("init", cwd=dave)
    old = Context.open(dave).workspace.config.writer
    thread = Thread(Context.open(dave), 5, "500")
    thread.comment("500", "said under the local scope", "2026-03-01T10:00:00.000000Z")
    thread.save()
    git(dave, "remote", "add", "origin", str(bare))
    thread = Thread(Context.open(dave), 6, "600")
    thread.comment("600", "said between naming origin and init", "2026-03-01T11:00:00.000000Z")
    thread.save()
    done = cli.ok("init", cwd=dave)
    assert f"{old}: 1 append(s) (2 record(s)) stored under this clone's scope" in done, done
    report = sync(str(dave))
    new = Context.open(dave).workspace.config.writer
    assert {m.writer for m in report.pushed} == {new} and any(old in line for line in report.stranded), report.line
    assert not any(name.endswith("/" + old) for name in remote_refs(bare))
    assert sync(str(dave)).status == "no-update"
    assert sync(str(bob.workspace.root)).came_in
    assert "said between naming origin and init" in texts(bob)
    assert "said under the local scope" not in texts(bob)
    assert cli.gitstore("verify", cwd=bob.workspace.root).returncode == 0
    assert sync(str(dave)).status in ("ok", "no-update") and cli.ok("init", cwd=dave).count("carried") == 0


def test_a_refusal_for_another_scope_is_judged_again_once_the_clones_scope_changed(
        team: tuple, tmp_path: Path) -> None:
    """A clone whose origin is a path takes the scope of the repository there. Cloned while
    that repository named no origin, it took a local scope and its sync refused every writer
    as of another scope. Once the repository names the team's origin and ``gitstore init``
    makes that scope the clone's, as the clone is told, those same tips are the clone's scope:
    the next sync reads them, rather than naming the old refusal until each writer appends."""
    alice, _, bare, held = team
    sync(str(alice.workspace.root))
    url = git(bare, "remote", "get-url", "origin").strip()
    git(bare, "remote", "remove", "origin")
    dave = tmp_path / "dave"
    git(tmp_path, "clone", "-q", str(bare), str(dave))
    cli.ok("init", cwd=dave)
    first = sync(str(dave))
    assert first.quarantined and "is of scope 'github.com/acme/widgets'" in first.quarantined[0].damage, first.line
    git(bare, "remote", "add", "origin", url)
    cli.ok("init", cwd=dave)
    assert Context.open(dave).scope == alice.scope
    report = sync(str(dave))
    assert not report.quarantined, [q.line for q in report.quarantined]
    assert verdicts(Context.open(dave))[held["learning"]["id"]] == ("proposed", False)
    assert cli.gitstore("sync", cwd=dave).returncode == 0


def _fork(tmp_path: Path, bare: Path, alice: Context) -> Path:
    """A contributor's fork of the team's repository (its own origin, github.com/eve/widgets),
    holding memory its owner wrote under the team's scope."""
    sync(str(alice.workspace.root))
    eve = tmp_path / "eve"
    git(tmp_path, "clone", "-q", str(bare), str(eve))
    cli.ok("init", cwd=eve)
    thread = Thread(Context.open(eve), 31, "531")  # written under the team's scope, in eve's own fork
    thread.comment("531", "words from a fork", "2026-03-02T10:00:00.000000Z")
    thread.save()
    fork = tmp_path / "eve.git"
    git(tmp_path, "clone", "-q", "--bare", str(bare), str(fork))
    git(fork, "remote", "set-url", "origin", "https://github.com/eve/widgets.git")
    git(eve, "push", "-q", str(fork), "refs/memory/v1/records/shared/*:refs/memory/v1/records/shared/*",
        "refs/memory/v1/payloads/shared/*:refs/memory/v1/payloads/shared/*")
    return fork


def test_a_plain_fetch_from_a_remote_of_another_repository_brings_no_memory(team: tuple, tmp_path: Path) -> None:
    """A maintainer adds a contributor's fork as a remote to review a pull request. The fork is
    another repository (its own scope), whose owner has no push access to the team's remote:
    memory fetched from it would be read as the team's, records of any scope its owner wrote
    there included. ``gitstore init`` gives memory's fetch refspecs only to the remotes that
    stand for this clone's scope, takes them off any other (an older init gave every remote
    them), and doctor asks for none there."""
    alice, bob, bare, _ = team
    fork = _fork(tmp_path, bare, alice)
    root = bob.workspace.root
    git(root, "remote", "add", "eve", str(fork))
    git(root, "config", "--add", "remote.eve.fetch",  # what an older init gave every remote
        "refs/memory/v1/records/shared/*:refs/memory/v1/remotes/eve/records/shared/*")
    git(root, "remote", "add", "mirror", str(bare))  # the team's repository by another name
    done = cli.ok("init", cwd=root)
    assert "left     eve without memory's fetch refspecs" in done and "on mirror" in done, done
    assert not [s for s in git(root, "config", "--get-all", "remote.eve.fetch").split() if "memory" in s]
    assert [s for s in git(root, "config", "--get-all", "remote.mirror.fetch").split() if "memory" in s]
    git(root, "fetch", "-q", "--all")
    assert not git(root, "for-each-ref", "refs/memory/v1/remotes/eve/").strip()
    assert "words from a fork" not in texts(bob)
    doctor = json.loads(cli.gitstore("doctor", "--json", cwd=root).stdout)
    eve_checks = [c for c in doctor["checks"] if c["check"] == "remote eve"]
    assert eve_checks and all("gitstore init" not in (c.get("todo") or "") for c in eve_checks), eve_checks


def _fetched_from_fork(tmp_path: Path, bare: Path, alice: Context, bob: Context) -> Path:
    """bob added eve's fork as a remote, an older init gave it memory's fetch refspecs, and a
    plain ``git fetch eve`` brought what eve wrote, which bob's reads took for the team's."""
    fork = _fork(tmp_path, bare, alice)
    root = bob.workspace.root
    git(root, "remote", "add", "eve", str(fork))
    for spec in fetch_refspecs("eve"):
        git(root, "config", "--add", "remote.eve.fetch", spec)  # what an older init gave every remote
    git(root, "fetch", "-q", "eve")
    assert "words from a fork" in texts(bob)  # admitted by the read, as the team's
    return fork


def test_memory_a_fork_brought_before_its_refspecs_were_taken_off_is_dropped_by_init(
        team: tuple, tmp_path: Path) -> None:
    """Taking an older init's fetch refspecs off a contributor's fork stops the next ``git
    fetch`` from bringing its memory, but what one brought before stayed, admitted, and every
    read went on taking what the fork's owner wrote for the team's. ``gitstore init`` drops it
    (the fetched refs, their anchors, their admissions), naming the remote, and doctor warns of
    it until then."""
    alice, bob, bare, _ = team
    _fetched_from_fork(tmp_path, bare, alice, bob)
    root = bob.workspace.root
    doctor = json.loads(cli.gitstore("doctor", "--json", cwd=root).stdout)
    eve_checks = [c for c in doctor["checks"] if c["check"] == "remote eve"]
    assert any(c["state"] == "warn" and "gitstore init" in (c.get("todo") or "") for c in eve_checks), eve_checks
    done = cli.ok("init", cwd=root)
    assert "eve stands for github.com/eve/widgets" in done and "dropped the memory of 1 writer(s)" in done, done
    assert not git(root, "for-each-ref", "refs/memory/v1/remotes/eve/", "refs/memory/admitted/eve/").strip()
    assert "words from a fork" not in texts(bob)
    assert cli.gitstore("verify", cwd=root).returncode == 0
    assert "dropped the memory" not in cli.ok("init", cwd=root)  # once
    doctor = json.loads(cli.gitstore("doctor", "--json", cwd=root).stdout)
    assert all(c["state"] == "ok" for c in doctor["checks"] if c["check"] == "remote eve"), doctor["checks"]


def test_memory_a_fork_brought_is_dropped_by_a_sync_of_the_teams_remote(team: tuple, tmp_path: Path) -> None:
    """A clone whose person never runs init again syncs: the sync of origin drops what a plain
    fetch brought from a fork before, takes the old refspecs off it so the next ``git fetch``
    brings nothing, and says so."""
    alice, bob, bare, _ = team
    _fetched_from_fork(tmp_path, bare, alice, bob)
    root = bob.workspace.root
    report = sync(str(root))
    assert any("eve stands for github.com/eve/widgets" in line for line in report.other_repositories), report.render()
    assert report.other_repositories[0] in report.render()
    assert "words from a fork" not in texts(bob)
    assert report.came_in  # origin's memory, as ever
    git(root, "fetch", "-q", "--all")
    assert not git(root, "for-each-ref", "refs/memory/v1/remotes/eve/").strip()
    assert "words from a fork" not in texts(bob)
    assert sync(str(root)).status == "no-update"


def test_memory_of_the_scope_the_clone_was_set_up_under_stays_when_origin_is_named_anew(
        team: tuple, tmp_path: Path) -> None:
    """A person renames the team's remote and names another repository origin (``git remote
    rename origin team && git remote add origin <their fork>``): the clone's scope is the
    fork's now, and what was stored under the one it was set up under is not read, but stays,
    as doctor says (the person may point origin back). The team's remote stands for that
    scope: neither sync nor init drops the memory it brought as a fork's."""
    alice, bob, bare, _ = team
    root = bob.workspace.root
    sync(str(alice.workspace.root))
    assert sync(str(root)).came_in
    fork = tmp_path / "mine.git"
    git(tmp_path, "init", "-q", "--bare", str(fork))
    git(fork, "remote", "add", "origin", "https://github.com/bob/widgets.git")
    git(root, "remote", "rename", "origin", "team")
    git(root, "fetch", "-q", "team", *fetch_refspecs("team"))  # as the refspecs init gave it bring it
    held = git(root, "for-each-ref", "refs/memory/v1/remotes/team/").strip()
    git(root, "remote", "add", "origin", str(fork))
    report = sync(str(root))
    assert not report.other_repositories, report.render()
    done = cli.ok("init", cwd=root)
    assert "dropped the memory" not in done, done
    assert held and git(root, "for-each-ref", "refs/memory/v1/remotes/team/").strip() == held


def test_a_remote_whose_name_holds_a_slash_gets_no_memory_refspecs(team: tuple) -> None:
    """git lets a remote's name hold a slash (``team/mirror``); memory fetched from it would go
    a level deeper than the fetched namespace has (``refs/memory/v1/remotes/<remote>/...``),
    where no read looks and ``verify`` names every ref as damage, exit 3 at each run, while
    ``gitstore sync`` refuses the name. init gives such a remote no fetch refspecs, takes off
    those an older init gave it, and deletes what they fetched, which nothing reads."""
    alice, bob, bare, _ = team
    sync(str(alice.workspace.root))
    root = bob.workspace.root
    git(root, "remote", "add", "team/mirror", str(bare))
    git(root, "config", "--add", "remote.team/mirror.fetch",  # what an older init gave it
        "refs/memory/v1/records/shared/*:refs/memory/v1/remotes/team/mirror/records/shared/*")
    git(root, "fetch", "-q", "team/mirror")
    assert cli.gitstore("verify", cwd=root).returncode == 3  # each ref it brought named as damage
    done = cli.ok("init", cwd=root)
    assert "left     team/mirror without memory's fetch refspecs" in done, done
    assert not [s for s in git(root, "config", "--get-all", "remote.team/mirror.fetch").split() if "memory" in s]
    git(root, "fetch", "-q", "--all")
    assert not git(root, "for-each-ref", "refs/memory/v1/remotes/team/").strip()
    assert cli.gitstore("verify", cwd=root).returncode == 0
    doctor = json.loads(cli.gitstore("doctor", "--json", cwd=root).stdout)
    checks = [c for c in doctor["checks"] if c["check"] == "remote team/mirror"]
    assert checks and all("gitstore init" not in (c.get("todo") or "") for c in checks), checks


def test_a_sync_with_a_remote_of_another_repository_is_refused_before_it_fetches(
        team: tuple, tmp_path: Path) -> None:
    """``gitstore sync eve``, eve being a contributor's fork, fetched the fork's memory and
    admitted what its owner wrote under the team's scope (only the push was refused, for the
    scope): the clone read it as the team's. A clone whose origin gives it its scope syncs only
    with a remote of that scope: another is refused in one line, before anything is fetched."""
    alice, bob, bare, _ = team
    fork = _fork(tmp_path, bare, alice)
    root = bob.workspace.root
    git(root, "remote", "add", "eve", str(fork))
    before = remote_refs(fork)
    said = cli.fails(1, "sync", "eve", cwd=root)
    assert "eve stands for github.com/eve/widgets, another repository than this clone's github.com/acme/widgets" \
        in said and "`gitstore sync`" in said, said
    assert not git(root, "for-each-ref", "refs/memory/v1/remotes/eve/", "refs/memory/sync/eve/").strip()
    assert "words from a fork" not in texts(bob)
    assert remote_refs(fork) == before
    assert sync(str(root)).came_in  # origin's memory, as ever


def test_a_push_url_of_another_repository_gets_no_memory(team: tuple, tmp_path: Path) -> None:
    """A person who fetches from the team's repository and pushes to their own fork (a push URL,
    ``git remote set-url --push origin``) had every sync push the team's memory to the fork,
    another repository, saying it was pushed, while the team's remote never got it. A sync
    pushes only where every push URL stands for the scope the remote's URL does: otherwise it
    pushes nothing, says why and how to mend it, and exits 1. A push URL of the same repository
    by another URL (ssh to push, https to fetch) pushes as ever."""
    alice, _, bare, _ = team
    other = tmp_path / "other.git"
    git(tmp_path, "init", "-q", "--bare", str(other))
    git(other, "remote", "add", "origin", "https://github.com/alice/widgets.git")
    root = alice.workspace.root
    git(root, "remote", "set-url", "--push", "origin", str(other))
    done = cli.gitstore("sync", cwd=root)
    said = done.stdout
    assert done.returncode == 1 and "Traceback" not in done.stderr, (done.stdout, done.stderr)
    assert "a push to origin goes to github.com/alice/widgets, another repository than the one origin fetches " \
           "from, github.com/acme/widgets" in said and "git config --unset-all remote.origin.pushurl" in said, said
    assert not remote_refs(other) and not [r for r in remote_refs(bare) if r.startswith("refs/memory/")]
    doctor = json.loads(cli.gitstore("doctor", "--json", cwd=root).stdout)
    assert [c for c in doctor["checks"] if c["check"] == "remote origin push" and c["state"] == "warn"
            and "github.com/alice/widgets" in c["detail"]], doctor["checks"]
    git(root, "remote", "set-url", "--push", "origin", f"file://{bare}")
    assert sync(str(root)).pushed
    assert [r for r in remote_refs(bare) if r.startswith("refs/memory/")] and not remote_refs(other)
    doctor = json.loads(cli.gitstore("doctor", "--json", cwd=root).stdout)
    assert not [c for c in doctor["checks"] if c["check"] == "remote origin push"], doctor["checks"]


def test_the_tick_step_and_the_command(team: tuple) -> None:
    alice, bob, bare, held = team
    outcome = steps.sync(steps.Call(alice.workspace.root, {"remote": "origin"}))
    assert outcome.status == steps.OK, outcome.line
    done = cli.gitstore("sync", "--json", cwd=bob.workspace.root)
    assert done.returncode == 0, done.stderr
    import json

    data = json.loads(done.stdout)
    assert data["status"] == "ok" and data["changed"][0]["id"] == held["learning"]["id"]
    text = cli.gitstore("sync", cwd=bob.workspace.root)
    assert text.returncode == 0 and "0 record(s) in" in text.stdout
    missing = cli.gitstore("sync", "upstream", cwd=bob.workspace.root)
    assert missing.returncode == 1 and "no remote named 'upstream'" in missing.stderr
    with pytest.raises(InvalidInput):
        sync(str(bob.workspace.root), "nowhere")


def test_two_clones_syncing_at_once_both_converge(team: tuple, tmp_path: Path) -> None:
    alice, bob, bare, held = team
    sync(str(alice.workspace.root))
    carol = clone(tmp_path, bare, "carol")
    for ctx, n in ((bob, 1), (carol, 2)):
        grant_all(ctx)
        t = Thread(ctx, 10 + n, str(200 + n))
        c = t.comment(str(200 + n), f"note {n}", "2026-03-02T10:00:00.000000Z")
        t.save()
        propose(ctx, [ref(c)], title=f"Note {n}", text=f"Note {n}.")
    code = ("import sys; from gitstore.sync.remote import sync; r = sync(sys.argv[1]); "
            "print(r.status, r.attempts); sys.exit(0 if r.status in ('ok', 'no-update') else 1)")
    runs = [subprocess.Popen([sys.executable, "-c", code, str(c.workspace.root)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for c in (bob, carol)]
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, (out, err)
    for ctx in (alice, bob, carol):
        sync(str(ctx.workspace.root))
    seen = [verdicts(c) for c in (alice, bob, carol)]
    assert len(seen[0]) == 3 and seen[0].keys() == seen[1].keys() == seen[2].keys()


def test_a_killed_sync_leaves_the_clone_readable_and_the_next_completes(team: tuple) -> None:
    alice, bob, bare, held = team
    sync(str(alice.workspace.root))
    # killed after the fetch, before anything was admitted
    git(bob.workspace.root, "fetch", "-q", "--no-tags", "--refmap=", "origin",
        "+refs/memory/v1/records/shared/*:refs/memory/sync/origin/records/shared/*")
    assert verdicts(bob) == {}
    assert cli.gitstore("learnings", cwd=bob.workspace.root).returncode == 0
    report = sync(str(bob.workspace.root))
    assert report.status == "ok" and [c.id for c in report.changed] == [held["learning"]["id"]]
    # killed between admitting a ref and recording it admitted: reads verify it themselves
    (bob.workspace.repo.path and Path(bob.workspace.repo.path) / "gitstore" / "admitted.json").unlink()
    assert verdicts(bob)[held["learning"]["id"]][0] == "proposed"
    assert sync(str(bob.workspace.root)).status == "no-update"
    assert pygit2.Repository(str(bob.workspace.root)).references.get("refs/memory/quarantine/origin/records/shared/x") is None


def test_an_admission_naming_no_ref_git_could_write_is_passed_over(team: tuple) -> None:
    """``admitted.json`` edited by hand to hold a name git refuses (``bad..name``): sync put
    that ref back at its tip every time, and git refused it, so every sync failed saying the
    refs moved and to run it again. Such an entry names no ref, and sync goes on without it."""
    alice, bob, _, held = team
    sync(str(alice.workspace.root))
    sync(str(bob.workspace.root))
    before = verdicts(bob)
    assert held["learning"]["id"] in before
    path = Path(bob.workspace.repo.path) / "gitstore" / "admitted.json"
    entries = json.loads(path.read_text())
    ref = next(name for name in entries if "/records/shared/" in name)
    entries[ref.rsplit("/", 1)[0] + "/bad..name"] = entries[ref]
    path.write_text(json.dumps(entries))
    result = cli.gitstore("sync", cwd=bob.workspace.root)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert verdicts(bob) == before


def test_a_push_the_remote_moved_under_is_retried_after_fetching(team: tuple) -> None:
    alice, bob, bare, held = team
    thread = Thread(bob, 9, "900")
    thread.comment("900", "bob's point", "2026-03-03T10:00:00.000000Z")
    thread.save()
    sync(str(bob.workspace.root))
    writer = bob.workspace.config.writer
    ref = f"refs/memory/v1/payloads/shared/{writer}"
    thread.comment("901", "bob's second point", "2026-03-03T11:00:00.000000Z")
    thread.save()
    # the first push finds the remote's snapshot moved since the fetch (as if bob's other
    # process had pushed meanwhile, here in the remote's own hook, as the push arrives): the
    # remote refuses to move a ref from where the push said it was, the sync fetches again
    # and retries
    hook = bare / "hooks" / "pre-receive"
    marker = hook.with_name("moved-once")
    empty = git(bare, "hash-object", "-t", "tree", "--stdin", "-w").strip()
    moved = git(bare, "commit-tree", empty, "-m", "gitstore: payloads").strip()
    hook.write_text(f"#!/bin/sh\ncat >/dev/null\n[ -e {marker} ] && exit 0\ntouch {marker}\n"
                    f"env -u GIT_QUARANTINE_PATH git --git-dir={bare} update-ref {ref} {moved}\n")
    hook.chmod(0o755)
    report = sync(str(bob.workspace.root))
    assert report.attempts == 2 and [m.kind for m in report.pushed] == ["records", "payloads"], report.render()
    assert git(bare, "rev-parse", ref).strip() == git(bob.workspace.root, "rev-parse", ref).strip()
    # what the second fetch found (a snapshot dropping bob's payloads) was read with his text
    # kept, and his own went out over it
    assert not report.quarantined and not report.kept_text and not report.restored, report.render()
    again = sync(str(bob.workspace.root))
    assert again.status == "no-update" and not again.quarantined and not again.kept_text, again.render()


def test_an_unreachable_remote_is_one_line(team: tuple, tmp_path: Path) -> None:
    alice, bob, bare, held = team
    git(bob.workspace.root, "remote", "add", "gone", str(bob.workspace.root / "okf"))  # a folder git cannot fetch from
    done = cli.gitstore("sync", "gone", cwd=bob.workspace.root)
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "git fetch gone failed" in done.stderr, done.stderr
    assert "does not appear to be a git repository" in done.stderr, done.stderr  # git's reason, not its advice
    git(bob.workspace.root, "remote", "set-url", "gone", str(tmp_path / "nowhere.git"))  # moved or deleted
    done = cli.gitstore("sync", "gone", cwd=bob.workspace.root)
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "is a path but not a git repository" in done.stderr \
        and "`git remote set-url gone NEW-PATH`" in done.stderr, done.stderr


def test_a_sync_killed_at_any_point_leaves_the_clone_readable_and_the_next_completes(team: tuple) -> None:
    from gitstore.conformance import _records as R
    from gitstore.queries.verify import verify

    alice, bob, bare, held = team
    alice.store.append([R.event(f"k{n}", episode=f"k{n // 100}", seq=n % 100, scope=alice.scope) for n in range(3000)])
    sync(str(alice.workspace.root))
    code = "import sys; from gitstore.sync.remote import sync; sync(sys.argv[1])"
    for delay in (0.05, 0.2, 0.4, 0.7, 1.0):
        run = subprocess.Popen([sys.executable, "-c", code, str(bob.workspace.root)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            run.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            run.kill()
            run.wait()
        assert cli.gitstore("learnings", cwd=bob.workspace.root).returncode == 0
    report = sync(str(bob.workspace.root))
    assert report.status in ("ok", "no-update"), report.render()
    ctx = Context.open(bob.workspace.root)
    assert verify(ctx.store).ok
    assert sum(1 for _ in ctx.store.items(["event"])) == 3001
    assert sync(str(bob.workspace.root)).status == "no-update"


def test_a_push_the_remote_refuses_exits_1_naming_it_and_keeps_what_came_in(team: tuple) -> None:
    alice, bob, bare, held = team
    assert cli.gitstore("sync", cwd=alice.workspace.root).returncode == 0
    hook = bare / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'memory is frozen here' >&2\nexit 1\n")
    hook.chmod(0o755)
    grant_all(bob, purposes=("training",))
    before = remote_refs(bare)
    done = cli.gitstore("sync", cwd=bob.workspace.root)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and remote_refs(bare) == before
    assert "not pushed: git push origin refused: [remote rejected] (pre-receive hook declined)" in done.stdout
    assert held["learning"]["id"] in verdicts(bob), "what was fetched is kept"


def test_a_clone_given_a_writer_the_remote_has_takes_its_history_up(team: tuple, tmp_path: Path) -> None:
    """``init --writer`` names a writer the remote already has (the memory workflow does it on
    every fresh runner): the first sync takes that writer's admitted history up, so the clone's
    appends extend it and its pushes are fast-forwards. One that appended first keeps its own,
    and the push says so, never forcing."""
    from gitstore.ops.setup import init

    alice, _, bare, held = team
    sync(str(alice.workspace.root))
    writer = alice.workspace.config.writer
    ref = f"refs/memory/v1/records/shared/{writer}"
    before = remote_refs(bare)[ref]
    carol_root = tmp_path / "carol"
    git(tmp_path, "clone", "-q", str(bare), str(carol_root))
    init(carol_root, writer=writer)
    first = sync(str(carol_root))
    assert first.continued == [f"took up writer {writer}'s history from origin (8 record(s)): this clone appends "
                               "after it"] and first.status == "ok", first.line
    carol = Context.open(carol_root)
    assert git(carol_root, "rev-parse", ref).strip() == before
    grant_all(carol, purposes=("training",))
    pushed = sync(str(carol_root))
    assert pushed.status == "ok" and not pushed.not_pushed and not pushed.continued, pushed.line
    assert git(bare, "merge-base", "--is-ancestor", before, remote_refs(bare)[ref]) == ""
    assert held["comment"]["payload"]["text"] in {e.record["payload"].get("text")
                                                  for e in Context.open(carol_root).store.items(["event"], payloads=True)}

    dave_root = tmp_path / "dave"
    git(tmp_path, "clone", "-q", str(bare), str(dave_root))
    init(dave_root, writer=writer)
    grant_all(Context.open(dave_root), purposes=("training",))  # appended before any sync
    late = sync(str(dave_root))
    assert late.status == "degraded" and not late.continued and any("never forced" in w for w in late.not_pushed)
    from gitstore.queries.doctor import doctor

    [parted] = [c for c in doctor(dave_root).checks if c.name == "remote origin" and c.state == "fail"]
    assert f"origin's history of this clone's writer {writer} is not in this clone's" in parted.detail
    assert parted.todo.startswith("`gitstore init --new-writer`")
    assert not [c for c in doctor(carol_root).checks if c.state == "fail"], "carol took the history up: nothing parted"


def test_doctor_names_a_parted_history_whose_remote_copy_is_quarantined(team: tuple) -> None:
    """Someone with push access appended a damaged commit to this writer's records on the
    remote: sync quarantines it, the admitted copy stays at the old tip (an ancestor of this
    clone's), and every push is refused. doctor compared with the admitted copy only and said
    ok; it compares with the tip held in quarantine too, and gives the advice sync gives."""
    from gitstore.queries.doctor import doctor

    from .hostile import grant_like
    from .team import forge

    alice, _, bare, _ = team
    root = alice.workspace.root
    assert sync(str(root)).status == "ok"
    writer = alice.workspace.config.writer
    forged = forge(bare, writer, [grant_like(alice.scope)], clock=1)  # a clock going back: damage
    grant_all(Context.open(root), purposes=("training",))
    got = sync(str(root))
    assert any(q.writer == writer and q.tip == forged for q in got.quarantined), got.line
    assert any("not in this clone's history" in line for line in got.not_pushed), got.line
    [parted] = [c for c in doctor(root).checks if c.name == "remote origin" and c.state == "fail"]
    assert f"origin's history of this clone's writer {writer} is not in this clone's" in parted.detail
    assert f"refs/memory/quarantine/origin/records/shared/{writer}" in parted.detail, parted.detail
    assert parted.todo.startswith("`gitstore init --new-writer`")
    done = cli.gitstore("doctor", cwd=root)
    assert done.returncode != 0, done.stdout


def test_a_stream_lists_each_record_once_after_sync_brings_this_writers_ref_back(team: tuple) -> None:
    """Sync fetches this writer's own ref back as the remote's copy: the same commits under two
    refs. A stream (an episode's events, a learning's versions) still lists each record once."""
    alice, _, _, held = team
    episode = held["comment"]["episode"]
    before = [s.digest for s in Context.open(alice.workspace.root).store.stream(episode)]
    sync(str(alice.workspace.root))
    after = [s.digest for s in Context.open(alice.workspace.root).store.stream(episode)]
    assert after == before and len(set(after)) == len(after), after
    shown = json.loads(cli.ok("evidence", episode, "--json", cwd=alice.workspace.root))
    assert shown["events"] == len(shown["matches"]) == len({e["id"] for e in shown["matches"]}) == 1, shown


def test_gc_keeps_another_writers_history_a_replace_ref_cuts_off(team: tuple) -> None:
    """``git replace --graft`` makes git read a commit with other parents; gc must still keep
    the real ones, another writer's history that this clone fetched."""
    from gitstore.ops.gc import gc

    alice, bob, _, _ = team
    for n in range(3):
        grant_all(Context.open(alice.workspace.root), purposes=("training",), start=f"2026-0{n + 2}-01T00:00:00.000000Z")
    sync(str(alice.workspace.root))
    sync(str(bob.workspace.root))
    root = bob.workspace.root
    writer = alice.workspace.config.writer
    tip = git(root, "rev-parse", f"refs/memory/v1/remotes/origin/records/shared/{writer}").strip()
    count = len(list(Context.open(root).store.items()))
    git(root, "replace", "--graft", tip)  # the tip read as a root: its history looks unreachable
    ctx = Context.open(root)
    gc(ctx.store, ctx.workspace.state)
    git(root, "replace", "-d", tip)
    assert Context.open(root).store.verify().problems == []
    assert len(list(Context.open(root).store.items())) == count


def test_a_record_filed_under_another_stream_is_damage_and_never_admitted(team: tuple, tmp_path: Path) -> None:
    """An append's message files each record under a stream, which reads use to find an
    episode's events: a commit filing one thread's event under another thread's stream put
    words into that thread. verify names it, and sync quarantines the writer's ref."""
    from gitstore.providers.git import format_message, parse_message, records_ref

    alice, bob, _, held = team
    other = Thread(alice, 8, "200")
    other.comment("200", "INJECTED into the other thread", "2026-03-02T10:00:00.000000Z")
    other.save()
    repo = pygit2.Repository(str(alice.workspace.root))
    writer = alice.workspace.config.writer
    name = records_ref("shared", writer)
    made = repo[repo.references[name].target]
    header = parse_message(made.message)
    target = held["comment"]["episode"]
    entries = [type("E", (), {"digest": d, "kind": k, "stream": target if k == "event" else s})()
               for d, k, s in header.lines]
    message = format_message(header.clock, writer, "shared", entries, header.removes, header.seen, None)
    forged = repo.create_commit(None, made.author, made.committer, message, made.tree_id, made.parent_ids)
    repo.references.create(name, forged, force=True)
    (alice.workspace.root / ".git" / "gitstore" / f"records-shared-{writer}.tips").unlink(missing_ok=True)
    problems = [p.message for p in Context.open(alice.workspace.root).store.verify().problems]
    assert any(f"is listed under stream {target!r}, not its own" in p for p in problems), problems
    git(alice.workspace.root, "push", "-q", "origin", f"{name}:{name}")
    got = sync(str(bob.workspace.root))
    assert any(q.writer == writer and "is listed under stream" in q.damage for q in got.quarantined), got.line


def test_a_pruning_fetch_never_lets_a_writer_s_history_be_swapped(team: tuple, tmp_path: Path) -> None:
    """Someone with push access deletes bob's refs on the remote; a ``git pull`` with
    ``fetch.prune`` deletes them here; bob's first append is pushed back under his name, a forged
    one on top. Sync took the ref for a new writer's: it admitted the forged history and gc
    then erased bob's second append. Records once read are kept; the rewrite is quarantined."""
    alice, bob, bare, _ = team
    sync(str(alice.workspace.root))
    first = Thread(bob, 8, "200")
    first.comment("200", "bob's first words", "2026-03-02T10:00:00.000000Z")
    first.save()
    sync(str(bob.workspace.root))
    writer = bob.workspace.config.writer
    records, payloads = f"refs/memory/v1/records/shared/{writer}", f"refs/memory/v1/payloads/shared/{writer}"
    early = git(bare, "rev-parse", records).strip()
    second = Thread(bob, 9, "300")
    second.comment("300", "bob's second words", "2026-03-02T11:00:00.000000Z")
    second.save()
    sync(str(bob.workspace.root))
    late = git(bare, "rev-parse", records).strip()
    assert sync(str(alice.workspace.root)).status == "ok"

    def bob_s_comments() -> set[str]:
        view = Context.open(alice.workspace.root).view()
        return {(e.get("payload") or {}).get("text") for e in view.events.values()} - {None}

    assert bob_s_comments() >= {"bob's first words", "bob's second words"}
    git(bare, "update-ref", "-d", records)
    git(bare, "update-ref", "-d", payloads)
    git(alice.workspace.root, "fetch", "-q", "--prune", "origin")
    assert bob_s_comments() >= {"bob's first words", "bob's second words"}  # read where they were admitted
    git(bare, "update-ref", records, early)  # bob's history cut back to its first append
    fetched = f"refs/memory/v1/remotes/origin/records/shared/{writer}"
    git(alice.workspace.root, "fetch", "-q", "origin")
    assert git(alice.workspace.root, "rev-parse", fetched).strip() == early
    said = cli.gitstore("verify", cwd=alice.workspace.root)
    assert "moved back" in said.stdout + said.stderr, (said.stdout, said.stderr)  # reads refuse it too
    assert bob_s_comments() >= {"bob's first words", "bob's second words"}  # and read it where it was admitted
    assert cli.gitstore("gc", cwd=alice.workspace.root).returncode == 0
    got = sync(str(alice.workspace.root))
    assert any(q.writer == writer and "moved back" in q.damage for q in got.quarantined), got.line
    assert git(alice.workspace.root, "rev-parse", fetched).strip() == late  # put back where it was admitted
    assert bob_s_comments() >= {"bob's first words", "bob's second words"}
    git(bare, "update-ref", "-d", records)
    git(alice.workspace.root, "fetch", "-q", "--prune", "origin")
    assert cli.gitstore("gc", cwd=alice.workspace.root).returncode == 0  # the pruned history is kept
    assert subprocess.run(["git", "cat-file", "-e", late], cwd=alice.workspace.root).returncode == 0
    got = sync(str(alice.workspace.root))
    assert git(alice.workspace.root, "rev-parse", fetched).strip() == late and writer in got.kept, got.line


def test_git_s_own_gc_keeps_what_reads_hold_at_the_admitted_tip(team: tuple) -> None:
    """Reads keep a fetched ref that a forced or pruning fetch moved at the tip admitted last;
    only ``.git/gitstore/admitted.json`` held it, so plain ``git gc`` (or the one git runs after
    a fetch) erased it: bob's text read as removed, then his memory was gone. Each admitted tip
    is held by a ref of its own that no fetch moves."""
    alice, bob, bare, _ = team
    bob_speaks(bob)
    writer = bob.workspace.config.writer
    root = alice.workspace.root
    git(root, "fetch", "-q", "origin")  # a plain fetch: reads admit what it brought
    assert "bob's own words" in texts(alice)
    empty = subprocess.run(["git", "mktree"], cwd=bare, input=b"", capture_output=True, check=True).stdout.decode().strip()
    forced = subprocess.run(["git", "-c", "user.name=m", "-c", "user.email=m@example.com", "commit-tree", "-m",
                             "gitstore: payloads", empty], cwd=bare, capture_output=True, check=True).stdout.decode().strip()
    git(bare, "update-ref", f"refs/memory/v1/payloads/shared/{writer}", forced)
    git(root, "fetch", "-q", "origin")  # plain fetch forces snapshots
    assert "bob's own words" in texts(alice)
    git(root, "gc", "-q", "--prune=now")
    assert "bob's own words" in texts(alice)
    git(bare, "update-ref", "-d", f"refs/memory/v1/records/shared/{writer}")
    git(root, "fetch", "-q", "--prune", "origin")
    assert "bob's own words" in texts(alice)  # read where it was admitted
    git(root, "gc", "-q", "--prune=now")
    assert "bob's own words" in texts(alice)
    said = cli.gitstore("verify", cwd=root)
    assert "missing" not in said.stdout + said.stderr, said.stdout + said.stderr
    got = sync(str(root))
    assert writer in got.kept, got.line
    assert "bob's own words" in texts(alice)
    records = f"refs/memory/v1/remotes/origin/records/shared/{writer}"
    for name in (records, f"refs/memory/admitted/origin/records/shared/{writer}"):
        git(root, "update-ref", "-d", name)  # by hand: nothing holds the history any more
    git(root, "gc", "-q", "--prune=now")
    said = cli.gitstore("verify", cwd=root)
    assert said.returncode == 3 and f"{records}: the tip it was admitted at" in said.stdout + said.stderr, said.stdout


def test_a_removal_nobody_here_honours_drops_no_other_writer_s_text(team: tuple, tmp_path: Path) -> None:
    """A snapshot may drop a payload a stored removal took; any note counted, honoured or not.
    Someone with push access redacted alice's comment on their own clone, forced their copy of
    her snapshot over hers on the remote and pushed the note: every clone read her text as
    removed, and gc erased it. Without a policy a removal counts for a snapshot when its own
    writer made it (or this clone honours it)."""
    from gitstore.ops.redact import redact

    alice, bob, bare, held = team
    sync(str(alice.workspace.root))
    sync(str(bob.workspace.root))

    assert "keep retries bounded" in texts(bob)
    mallory = clone(tmp_path, bare, "mallory")
    sync(str(mallory.workspace.root))
    redact(Context.open(mallory.workspace.root), "github:comment:100", "github:66", "forged")
    writer = alice.workspace.config.writer
    git(mallory.workspace.root, "push", "-q", "-f", "origin",
        f"refs/memory/v1/remotes/origin/payloads/shared/{writer}:refs/memory/v1/payloads/shared/{writer}")
    sync(str(mallory.workspace.root))
    git(bob.workspace.root, "fetch", "-q", "origin")
    assert "keep retries bounded" in texts(bob)
    assert cli.gitstore("gc", cwd=bob.workspace.root).returncode == 0
    assert "keep retries bounded" in texts(bob)
    got = sync(str(bob.workspace.root))
    assert any(line.startswith(f"writer {writer}: its payload snapshot") for line in got.kept_text), got.render()
    assert "keep retries bounded" in texts(bob)
    redact(Context.open(alice.workspace.root), "github:comment:100", ALICE, "asked by its author")  # her own
    sync(str(alice.workspace.root))  # her snapshot may be the very commit forced before (the same second)
    git(bob.workspace.root, "fetch", "-q", "origin")  # reads judge a refused snapshot again once records move
    assert "keep retries bounded" not in texts(bob)
    assert sync(str(bob.workspace.root)).status in ("ok", "no-update")
    assert "keep retries bounded" not in texts(bob)


def test_a_damaged_append_a_plain_fetch_brings_takes_no_record_read_before(team: tuple) -> None:
    """One append that does not parse, pushed on top of bob's history, fast-forward: a plain
    fetch brought it, and reads left all of bob's records out (his signed retirements with
    them), which sync did not mend. His history is read where it was admitted last."""
    alice, bob, bare, _ = team
    bob_speaks(bob, alice)
    assert "bob's own words" in texts(alice)
    records = f"refs/memory/v1/records/shared/{bob.workspace.config.writer}"
    tip = git(bare, "rev-parse", records).strip()
    tree = git(bare, "rev-parse", f"{tip}^{{tree}}").strip()
    damaged = subprocess.run(["git", "-c", "user.name=m", "-c", "user.email=m@example.com", "commit-tree", "-p", tip,
                              "-m", "gitstore: append\n\nnot a header", tree], cwd=bare, capture_output=True,
                             check=True).stdout.decode().strip()
    git(bare, "update-ref", records, damaged)
    git(alice.workspace.root, "fetch", "-q", "origin")
    assert "bob's own words" in texts(alice)
    read = cli.gitstore("learnings", cwd=alice.workspace.root)
    assert f"is read as admitted before, at {tip[:12]}" in read.stderr, read.stderr
    got = sync(str(alice.workspace.root))
    assert any(q.tip == damaged for q in got.quarantined), got.line
    fetched = f"refs/memory/v1/remotes/origin/records/shared/{bob.workspace.config.writer}"
    assert git(alice.workspace.root, "rev-parse", fetched).strip() == tip  # put back, the damage held aside
    assert "bob's own words" in texts(alice)


def test_a_snapshot_a_plain_fetch_forces_in_drops_no_text(team: tuple) -> None:
    """Plain ``git fetch`` forces payload snapshots (they have no history). Someone with push
    access forced bob's to an empty one: reads took it, bob's text read as removed, verify said
    ok, gc erased the text and sync took the snapshot for admitted. A fetched snapshot is now
    read once it passes the check a sync makes; until then the one admitted last is read."""
    alice, bob, bare, _ = team
    bob_speaks(bob, alice)
    assert "bob's own words" in texts(alice)
    writer = bob.workspace.config.writer
    empty = subprocess.run(["git", "mktree"], cwd=bare, input=b"", capture_output=True, check=True).stdout.decode().strip()
    forced = subprocess.run(["git", "-c", "user.name=m", "-c", "user.email=m@example.com", "commit-tree", "-m",
                             "gitstore: payloads", empty], cwd=bare, capture_output=True, check=True).stdout.decode().strip()
    git(bare, "update-ref", f"refs/memory/v1/payloads/shared/{writer}", forced)
    git(alice.workspace.root, "fetch", "-q", "origin")
    fetched = f"refs/memory/v1/remotes/origin/payloads/shared/{writer}"
    assert git(alice.workspace.root, "rev-parse", fetched).strip() == forced
    assert "bob's own words" in texts(alice)
    said = cli.gitstore("verify", cwd=alice.workspace.root)
    assert f"writer {writer}'s payload snapshot, as fetched, lacks text read here before" in said.stderr, said.stderr
    assert cli.gitstore("gc", cwd=alice.workspace.root).returncode == 0
    assert "bob's own words" in texts(alice)
    done = cli.gitstore("sync", "--json", "--put-back", cwd=alice.workspace.root)
    assert done.returncode == 3 and "as fetched" not in done.stderr, done.stderr  # named in the report, not twice
    got = json.loads(done.stdout)
    assert got["status"] == "degraded" and any("lacks 1 payload(s) no stored append removed" in line
                                               for line in got["keptText"]), got
    kept = git(alice.workspace.root, "rev-parse", fetched).strip()
    assert kept != forced  # read with bob's text kept, and that put back on the remote
    assert got["restored"] and git(bare, "rev-parse", f"refs/memory/v1/payloads/shared/{writer}").strip() == kept
    assert "bob's own words" in texts(alice)
    dave = clone(bare.parent, bare, "dave")  # a clone that never read it has it again
    sync(str(dave.workspace.root))
    assert "bob's own words" in texts(dave)
    more = Thread(bob, 9, "300")
    more.comment("300", "bob's later words", "2026-03-02T11:00:00.000000Z")
    more.save()
    mended = sync(str(bob.workspace.root))  # his own snapshot goes out over the one put back
    assert any(m.kind == "payloads" and m.before == kept for m in mended.pushed), mended.line
    assert not mended.kept_text and not mended.quarantined, mended.render()
    assert not sync(str(alice.workspace.root)).kept_text
    assert {"bob's own words", "bob's later words"} <= texts(alice)


def _planted(bare: Path, into: str, taken: str) -> str:
    """Someone with push access forces ``into``'s payload snapshot to a parentless commit of it
    plus every payload of ``taken``'s snapshot (public already): it only adds text."""
    repo = pygit2.Repository(str(bare))
    snapshot = repo.revparse_single(f"refs/memory/v1/payloads/shared/{into}").peel(pygit2.Commit)
    index = pygit2.Index()
    index.read_tree(snapshot.tree)
    for entry in _entries(repo, f"refs/memory/v1/payloads/shared/{taken}"):
        index.add(entry)
    signature = pygit2.Signature("gitstore", "gitstore@localhost")
    planted = repo.create_commit(None, signature, signature, "gitstore: payloads\n", index.write_tree(repo), [])
    repo.references.create(f"refs/memory/v1/payloads/shared/{into}", planted, force=True)
    return str(planted)


def _entries(repo: pygit2.Repository, ref: str) -> list[pygit2.IndexEntry]:
    index = pygit2.Index()
    index.read_tree(repo.revparse_single(ref).peel(pygit2.Tree))
    return [pygit2.IndexEntry(e.path, e.id, e.mode) for e in index]


def test_another_writers_payload_planted_in_a_snapshot_cuts_no_later_text_off(team: tuple, tmp_path: Path) -> None:
    """A snapshot owes only the payloads its own writer's events name. Bob's payload, planted in
    alice's snapshot on the remote, was admitted (it only adds); alice's next honest snapshot,
    which never held it, was then refused for dropping it on every clone, for good: her later
    texts never arrived and read as removed, though nothing was."""
    alice, bob, bare, _ = team
    bob_speaks(bob, alice)
    assert sync(str(bob.workspace.root)).status == "ok"
    carol = clone(tmp_path, bare, "carol")
    assert sync(str(carol.workspace.root)).status == "ok"
    writer = alice.workspace.config.writer
    planted = _planted(bare, writer, bob.workspace.config.writer)
    for ctx in (bob, carol):
        got = sync(str(ctx.workspace.root))
        assert got.status == "ok" and not got.quarantined, got.line
    later = Thread(alice, 9, "300")
    later.comment("300", "alice's later words", "2026-03-04T10:00:00.000000Z")
    later.save()
    sent = sync(str(alice.workspace.root))
    assert any(m.kind == "payloads" and m.before == planted for m in sent.pushed), sent.line
    for ctx in (bob, carol):
        got = sync(str(ctx.workspace.root))
        assert got.status == "ok" and not got.quarantined, got.line
        assert {"keep retries bounded", "alice's later words", "bob's own words"} <= texts(ctx)
        assert cli.gitstore("verify", cwd=ctx.workspace.root).returncode == 0


def test_a_snapshot_that_drops_its_own_writers_text_keeps_it(team: tuple) -> None:
    """Bob's own payload, dropped from his snapshot with another writer's planted in its
    place, is still text his events name: it stays read, and the sync names what the remote's
    snapshot lacks."""
    alice, bob, bare, _ = team
    bob_speaks(bob, alice)
    repo = pygit2.Repository(str(bare))
    writer = bob.workspace.config.writer
    index = pygit2.Index()
    for entry in _entries(repo, f"refs/memory/v1/payloads/shared/{alice.workspace.config.writer}"):
        index.add(entry)
    signature = pygit2.Signature("gitstore", "gitstore@localhost")
    swapped = repo.create_commit(None, signature, signature, "gitstore: payloads\n", index.write_tree(repo), [])
    repo.references.create(f"refs/memory/v1/payloads/shared/{writer}", swapped, force=True)
    got = sync(str(alice.workspace.root))
    assert not got.quarantined and any(line.startswith(f"writer {writer}: its payload snapshot on origin lacks 1 ")
                                       for line in got.kept_text), got.render()
    assert "bob's own words" in texts(alice)


def test_text_missing_with_no_removal_is_not_called_removed(team: tuple) -> None:
    """A snapshot forced back to one without alice's newest payload (nothing it drops: the one
    admitted here never held it) leaves her new comment without text. No removal took it, so
    reads say the text is not in this clone, never that it was removed or redacted."""
    alice, bob, bare, _ = team
    assert sync(str(alice.workspace.root)).status == "ok"
    ref_name = f"refs/memory/v1/payloads/shared/{alice.workspace.config.writer}"
    older = git(bare, "rev-parse", ref_name).strip()
    assert sync(str(bob.workspace.root)).status == "ok"
    later = Thread(alice, 9, "300")
    comment = later.comment("300", "alice's later words", "2026-03-04T10:00:00.000000Z")
    later.save()
    proposal = propose(alice, [ref(comment)], title="Later words", text="Later words.")
    assert sync(str(alice.workspace.root)).status == "ok"
    git(bare, "update-ref", ref_name, older)
    sync(str(bob.workspace.root))
    assert "alice's later words" not in texts(bob)
    shown = cli.gitstore("evidence", later.id, cwd=bob.workspace.root)
    assert shown.returncode == 0, shown.stderr
    assert "not in this clone" in shown.stdout and "removed" not in shown.stdout, shown.stdout
    data = json.loads(cli.ok("evidence", later.id, "--json", cwd=bob.workspace.root))
    event = next(e for e in data["matches"] if e["id"] == comment["id"])
    assert event["text"] is None and event["removed"].startswith("text not in this clone, and no removal"), event
    from gitstore.rules.consent import decide

    verdict = decide(Context.open(bob.workspace.root).view(), comment["id"], "review")
    assert verdict.cause == "no-text" and "redacted" not in verdict.reason, verdict
    show = cli.gitstore("show", proposal["id"], cwd=bob.workspace.root)
    assert "is not in this clone, and no removal took it" in show.stdout, show.stdout
    assert "redacted" not in show.stdout and "removed (" not in show.stdout, show.stdout


def _alice_read_everywhere_and_the_forger_refused(alice: Context, bare: Path, tmp_path: Path, forge: Any,
                                                  root: Path, forged: dict, clock: int) -> None:
    """alice's own verify passes and a new clone admits her history after the forger's clocks;
    then a forged append at ``clock``, too far past the limit, is quarantined there."""
    said = cli.gitstore("verify", cwd=alice.workspace.root)
    assert said.returncode in (0, 1), said.stdout + said.stderr
    assert sync(str(alice.workspace.root)).pushed
    carol = clone(tmp_path, bare, "carol")
    got = sync(str(carol.workspace.root))
    assert not any(q.writer == alice.workspace.config.writer for q in got.quarantined), got.line
    forge(root, "wjumper", [forged], clock=clock)
    git(root, "push", "-q", "origin", "refs/memory/v1/records/shared/wjumper")
    got = sync(str(carol.workspace.root))
    assert any(q.writer == "wjumper" and "more appends than any team makes" in q.damage for q in got.quarantined)




def _forger(team: tuple, tmp_path: Path) -> tuple[Context, Path, Any]:
    """Alice, synced; the root of mallory's clone; and a maker of grants of mallory's, each with
    its own note (records forged by hand, with no payload to push)."""
    from gitstore.records.contracts import seal

    from .hostile import grant_like
    from .team import team_clone

    alice, _, bare, _ = team
    sync(str(alice.workspace.root))
    mallory = team_clone(tmp_path, bare, "mallory")

    def grant(note: str) -> dict:
        return seal({**{k: v for k, v in grant_like(mallory.scope).items() if k != "digest"}, "note": note})

    return alice, mallory.workspace.root, grant

def test_a_forged_clock_jump_poisons_no_other_writer_s_history(team: tuple, tmp_path: Path) -> None:
    """A writer may jump its clock 2**32 past its own last one, and every clone takes one more
    than the largest clock it saw: two forged appends (2**32, then 2**33) made alice's next own
    append jump 2**33 past her last, which verify refused, on her clone and every other, which
    then quarantined her whole history. A jump is counted from the clocks an append saw; a
    history claiming more than any team reaches is refused outright."""
    from .team import forge

    alice, root, grant = _forger(team, tmp_path)
    forge(root, "wjumper", [grant("first")], clock=2**32)
    forge(root, "wjumper", [grant("again")], clock=2**33)
    git(root, "push", "-q", "origin", "refs/memory/v1/records/shared/wjumper")  # grants have no payloads
    assert sync(str(alice.workspace.root)).status in ("ok", "degraded")
    grant_all(Context.open(alice.workspace.root), purposes=("training",))  # her next own append: 2**32 past her last
    _alice_read_everywhere_and_the_forger_refused(alice, team[2], tmp_path, forge, root, grant("far"), 2**40 + 2**32)


def test_clocks_a_forger_took_to_the_limit_leave_honest_clones_writing(team: tuple, tmp_path: Path) -> None:
    """Up to 2**40 a clock may jump 2**32; a forger who took one exactly there made every honest
    clone's next append one past it, which was refused. Past it a clock may only creep, so an
    honest clone goes on and a forger cannot take it near the 15 digits a message holds."""
    from gitstore.records.contracts import seal

    from .hostile import grant_like
    from .team import forge, team_clone

    alice, _, bare, _ = team
    mallory = team_clone(tmp_path, bare, "mallory")
    root = mallory.workspace.root

    def grant(note: str) -> dict:
        return seal({**{k: v for k, v in grant_like(mallory.scope).items() if k != "digest"}, "note": note})

    for step in range(1, 257):  # 2**32 a commit: 2**40 at the last
        forge(root, "wjumper", [grant(f"step {step}")], clock=step * 2**32)
    git(root, "push", "-q", "origin", "refs/memory/v1/records/shared/wjumper")
    assert sync(str(alice.workspace.root)).status in ("ok", "degraded")
    grant_all(Context.open(alice.workspace.root), purposes=("training",))  # 2**32 past her last, no further
    session = Thread(Context.open(alice.workspace.root), None, "late", kind="agent-session")
    session.comment("late-1", "a local append, past the limit too", "2026-03-03T10:00:00.000000Z")
    session.save()
    grant_all(Context.open(alice.workspace.root), purposes=("evaluation",))  # seen: her local tip too
    _alice_read_everywhere_and_the_forger_refused(alice, bare, tmp_path, forge, root, grant("creeping too fast"),
                                                  2**40 + 2**21)


@pytest.mark.parametrize("anchor_pushed", [True, False])
def test_a_seen_anchor_carries_no_clock_past_the_limit(team: tuple, tmp_path: Path, anchor_pushed: bool) -> None:
    """A jump is counted from the clocks an append saw: any commit a ``Seen`` header named was
    taken at its word, even one refused everywhere. An anchor at a 15-digit clock, then an
    append one past it naming the anchor, was admitted, every honest clone took its clock, and
    a few appends later wrote a 16-digit clock its own reads refused. A Seen commit's clock
    counts only once its own history's clocks hold: a clone holding the anchor refuses the
    append; one that does not cannot check it and admits it, but takes no clock from it."""
    from .team import forge

    alice, root, grant = _forger(team, tmp_path)
    anchor = forge(root, "wxanchor", [grant("anchor")], clock=999999999999995, blind=True)
    forge(root, "wmallory", [grant("riding")], clock=999999999999996, seen=(("wxanchor", anchor),))
    refs = ["refs/memory/v1/records/shared/wmallory"] + ["refs/memory/v1/records/shared/wxanchor"] * anchor_pushed
    git(root, "push", "-q", "origin", *refs)
    got = sync(str(alice.workspace.root))
    assert any(q.writer == "wmallory" for q in got.quarantined) == anchor_pushed, got.line
    grant_all(Context.open(alice.workspace.root), purposes=("training",))
    own = f"refs/memory/v1/records/shared/{alice.workspace.config.writer}"
    message = git(alice.workspace.root, "log", "-1", "--format=%B", own)
    clock = int(next(line for line in message.splitlines() if line.startswith("Clock: ")).split()[1])
    assert clock < 2**40, clock
    assert cli.gitstore("learnings", cwd=alice.workspace.root).returncode == 0


def test_an_append_naming_a_commit_no_clone_holds_is_admitted_and_no_clock_follows_it(
        team: tuple, tmp_path: Path) -> None:
    """What an append says it had seen, a clone that does not hold it cannot check: the append
    is admitted whatever clock it claims. A clone takes from it no clock its own history does
    not let it take with nothing seen (so nobody takes honest clocks toward the 15 digits a
    message holds by naming commits nobody has)."""
    from gitstore.providers._verify_git import furthest

    from .team import forge

    alice, root, grant = _forger(team, tmp_path)
    own = f"refs/memory/v1/records/shared/{alice.workspace.config.writer}"
    forge(root, "wghostly", [grant("far")], clock=10**14, seen=(("wnobody", "6" * 40),))
    git(root, "push", "-q", "origin", "refs/memory/v1/records/shared/wghostly")
    got = sync(str(alice.workspace.root))
    assert not got.quarantined, got.line
    before = clock_at(alice.workspace.root, own)
    grant_all(Context.open(alice.workspace.root), purposes=("training",))
    assert before < clock_at(alice.workspace.root, own) <= furthest(before)
    assert cli.gitstore("verify", cwd=alice.workspace.root).returncode == 0
    assert sync(str(alice.workspace.root)).pushed
    carol = clone(tmp_path, team[2], "carol")
    got = sync(str(carol.workspace.root))
    assert not got.quarantined, got.line
    assert cli.gitstore("verify", cwd=carol.workspace.root).returncode == 0


def clock_at(root: Path, ref: str) -> int:
    message = git(root, "log", "-1", "--format=%B", ref)
    return int(next(line for line in message.splitlines() if line.startswith("Clock: ")).split()[1])


def test_a_fetched_payload_ref_at_a_blob_stops_neither_gc_nor_redact(team: tuple) -> None:
    """Reads leave out a fetched snapshot that is no commit; gc and redact rewrote every
    snapshot ref and failed on it (exit 3), redact after it had written its removal."""
    alice, bob, bare, _ = team
    thread = Thread(bob, 8, "200")
    thread.comment("200", "bob's own words", "2026-03-02T10:00:00.000000Z")
    thread.save()
    sync(str(bob.workspace.root))
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=bare, input=b"not a snapshot\n",
                          capture_output=True, check=True).stdout.decode().strip()
    git(bare, "update-ref", f"refs/memory/v1/payloads/shared/{bob.workspace.config.writer}", blob)
    git(alice.workspace.root, "fetch", "-q", "origin")  # plain fetch: gitstore init configured it for memory
    assert cli.gitstore("gc", cwd=alice.workspace.root).returncode == 0
    done = cli.gitstore("redact", "--comment", "github:comment:100", "--reason", "asked", "--by", ALICE,
                        cwd=alice.workspace.root)
    assert done.returncode == 0, done.stderr
    assert cli.gitstore("gc", cwd=alice.workspace.root).returncode == 0
    assert b"keep retries bounded" not in subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=alice.workspace.root, capture_output=True).stdout


def test_an_export_lists_this_machine_s_own_learnings_in_a_record_sync_never_pushes(team: tuple) -> None:
    """An export record is shared, for the team's audit; one listing a learning kept local named
    it, and the events of a personal session, to every clone."""
    from gitstore.ops.export import export

    alice, _, bare, held = team
    grant_all(alice, purposes=("instruction",), sources=("agent-session",))
    session = Thread(alice, None, "s2", kind="agent-session")
    said = session.comment("s2-1", "run the fixtures first", "2026-03-02T11:00:00.000000Z")
    session.save()
    mine = accepted(alice, propose(alice, [ref(said)], title="Fixtures first", text="Run the fixtures first."))
    records, path = export(alice, "instruction", ALICE, with_evidence=True)
    assert list(records) == ["shared", "local"]
    assert {i["id"] for i in records["shared"]["items"]} == {held["learning"]["id"], held["comment"]["id"]}
    assert {i["id"] for i in records["local"]["items"]} == {mine["id"], said["id"]}
    assert {line["id"] for line in map(json.loads, path.read_text().splitlines())} == {
        held["learning"]["id"], held["comment"]["id"], mine["id"], said["id"]}
    assert sync(str(alice.workspace.root)).status == "ok"
    pushed = cli_objects(bare)
    assert records["shared"]["digest"].encode() in pushed
    assert mine["id"].encode() not in pushed and said["id"].encode() not in pushed
    assert records["local"]["digest"].encode() not in pushed
    exports = Context.open(alice.workspace.root).view().exports
    assert sorted(e["digest"] for e in exports) == sorted(r["digest"] for r in records.values())
    # written by hand, an export record that lists a local learning is kept local too
    forged = dict(records["shared"], items=records["local"]["items"][:1], at="2026-03-03T00:00:00.000000Z")
    from gitstore.records.contracts import seal

    forged = seal({k: v for k, v in forged.items() if k != "digest"})
    alice.store.append([forged, alice.audit("export", ALICE, [forged["digest"]], [forged])])
    assert next(i for i in alice.store.items(["export"]) if i.digest == forged["digest"]).stored.namespace == "local"


def _exported_then_redacted(tmp_path: Path) -> tuple[Context, Path]:
    """Bob exports, with evidence, a learning citing alice's comment; alice redacts the comment
    and syncs: bob's clone (returned with the export file) has not yet heard of it."""
    from gitstore.ops.export import export
    from gitstore.ops.redact import redact

    from .team import two_reviewers

    alice, bob = two_reviewers(tmp_path)
    grant_all(alice)
    thread = Thread(alice, 7, "100")
    comment = thread.comment("100", "keep retries bounded", "2026-03-01T10:00:00.000000Z")
    thread.save()
    sync(str(alice.workspace.root))
    sync(str(bob.workspace.root))
    bob = Context.open(bob.workspace.root)
    accepted(bob, propose(bob, [ref(comment)], title="Bounded", text="Keep retries bounded."), by="github:10")
    _, path = export(bob, "instruction", "github:10", with_evidence=True)
    assert b"keep retries bounded" in path.read_bytes()
    redact(Context.open(alice.workspace.root), "github:comment:100", ALICE, "asked by the author")
    sync(str(alice.workspace.root))
    return bob, path


def test_a_redaction_that_arrives_by_sync_rewrites_this_clones_exports(tmp_path: Path) -> None:
    """An export with evidence copies comments' text into a file of the clone that made it: a
    redaction made on another clone reaches that file at the next sync, as ``redact`` rewrites
    the exports of the clone it runs on."""
    bob, path = _exported_then_redacted(tmp_path)
    got = sync(str(bob.workspace.root))
    assert b"keep retries bounded" not in path.read_bytes(), got.line
    assert any(p.endswith(path.name) for p in got.snapshots.exports), got.snapshots
    assert "1 export(s) rewritten" in got.line and "snapshot" not in got.line, got.line


def test_gc_leaves_a_kept_pack_alone(team: tuple) -> None:
    """A fetch keeps the pack it receives (a ``.keep`` file) until it has moved its refs, and
    its objects are unreachable until then: gc must not erase them. The same objects, once no
    longer kept and still unreachable, are memory's leftovers and go."""
    from gitstore.ops.gc import gc

    alice, bob, _, _ = team
    writer = alice.workspace.config.writer
    tip = git(alice.workspace.root, "rev-parse", f"refs/memory/v1/records/shared/{writer}").strip()
    pack = subprocess.run(["git", "pack-objects", "--revs", "--stdout"], cwd=alice.workspace.root, input=f"{tip}\n".encode(),
                          capture_output=True, check=True).stdout
    root = bob.workspace.root
    subprocess.run(["git", "index-pack", "--keep=fetch under way", "--stdin"], cwd=root, input=pack,
                   capture_output=True, check=True)
    ctx = Context.open(root)
    gc(ctx.store, ctx.workspace.state)
    assert subprocess.run(["git", "cat-file", "-e", tip], cwd=root).returncode == 0, "kept pack left alone"
    for keep in (root / ".git" / "objects" / "pack").glob("*.keep"):
        keep.unlink()
    gc(ctx.store, ctx.workspace.state)
    assert subprocess.run(["git", "cat-file", "-e", tip], cwd=root).returncode != 0, "then erased as leftovers"


def test_a_redaction_a_plain_fetch_brought_is_applied_to_exports_by_gc(tmp_path: Path) -> None:
    """A redaction made on another clone can arrive by a plain ``git fetch``, which rewrites no
    file: ``gitstore doctor`` names an export that still holds the removed text, and
    ``gitstore gc``, after which no run of it is left, rewrites it as a sync would."""
    from gitstore.queries.doctor import doctor

    bob, path = _exported_then_redacted(tmp_path)
    root = bob.workspace.root
    git(root, "fetch", "-q", "origin")
    assert b"keep retries bounded" in path.read_bytes()
    [check] = [c for c in doctor(root).checks if c.name == "exports"]
    assert check.state == "warn" and path.name in check.detail and "gitstore gc" in check.todo, check
    done = cli.gitstore("gc", cwd=root)
    assert done.returncode == 0 and path.name in done.stdout, done.stdout
    assert b"keep retries bounded" not in path.read_bytes()
    [check] = [c for c in doctor(root).checks if c.name == "exports"]
    assert check.state == "ok", check


def _fresh_copy_of_memory(tmp: Path, bare: Path, name: str) -> bytes:
    """Every object a new repository receives when it fetches all of the remote's memory."""
    fresh = tmp / name
    git(tmp, "init", "-q", "--bare", str(fresh))
    git(fresh, "fetch", "-q", str(bare), "+refs/memory/*:refs/memory/*")
    return cli_objects(fresh)


def _bobs_comment_redacted_by_alice(tmp_path: Path, *, policy: bool) -> tuple[Context, Context, Path]:
    """Bob stores a review comment (his writer's snapshot holds its text) and syncs; alice
    syncs, redacts it and syncs: her removal is on the remote, bob's clone has not heard of it.
    ``policy``: one letting both redact (alice's removal counts on bob's clone), else none."""
    from gitstore.ops.redact import redact

    from .team import two_reviewers

    if policy:
        alice, bob = two_reviewers(tmp_path)
        bare = tmp_path / "remote.git"
    else:
        bare = shared_remote(tmp_path)
        alice = Context.open(first_clone(tmp_path, bare))
        bob = clone(tmp_path, bare, "bob")
    grant_all(alice)
    thread = Thread(bob, 7201, "7201")
    thread.comment("7201", "MARKER7201 a token was pasted here", "2026-03-01T10:00:00.000000Z")
    thread.save()
    sync(str(bob.workspace.root))
    sync(str(alice.workspace.root))
    assert redact(Context.open(alice.workspace.root), "github:comment:7201", ALICE, "x").removed
    sync(str(alice.workspace.root))
    return alice, bob, bare


def test_a_removal_that_arrives_by_sync_takes_the_text_off_the_remote(tmp_path: Path) -> None:
    """The text of a payload in this writer's own snapshot stayed on the remote after another
    clone's redaction arrived (each sync pushed nothing), until this clone ran gc and synced
    again; a CI writer, which never runs gc, kept it there for good. The sync that admits an
    honoured removal writes this writer's snapshot again without the payload and pushes it."""
    alice, bob, bare = _bobs_comment_redacted_by_alice(tmp_path, policy=True)
    assert b"MARKER7201" in _fresh_copy_of_memory(tmp_path, bare, "before.git")

    got = sync(str(bob.workspace.root))
    assert got.status == "ok" and not got.not_pushed and not got.quarantined, got.line
    writer = bob.workspace.config.writer
    assert [(m.writer, m.kind) for m in got.pushed] == [(writer, "payloads")], got.line
    assert got.dropped == 1 and "1 removed payload(s) taken off this writer's snapshot" in got.line, got.line
    assert b"MARKER7201" not in _fresh_copy_of_memory(tmp_path, bare, "after.git")
    assert "MARKER7201 a token was pasted here" not in texts(bob)
    assert sync(str(bob.workspace.root)).status == "no-update"

    back = sync(str(alice.workspace.root))  # bob's snapshot drops only what alice's removal took
    assert not back.quarantined and back.status == "ok", back.line
    assert cli.gitstore("verify", cwd=alice.workspace.root).returncode == 0


def test_a_removal_this_clone_does_not_honour_leaves_its_snapshot_whole(tmp_path: Path) -> None:
    """Without a policy, another clone's removal carries no authority here: bob still reads his
    comment's text, so his snapshot keeps it and sync pushes no snapshot without it."""
    alice, bob, bare = _bobs_comment_redacted_by_alice(tmp_path, policy=False)
    got = sync(str(bob.workspace.root))
    assert got.dropped == 0 and not got.pushed, got.line
    assert "MARKER7201 a token was pasted here" in texts(bob)
    assert b"MARKER7201" in _fresh_copy_of_memory(tmp_path, bare, "after.git")


def test_a_writer_taken_up_on_a_fresh_runner_takes_the_text_off_the_remote(tmp_path: Path) -> None:
    """The memory workflow takes its writer's history up on every fresh runner (``init
    --writer``), imports and syncs, and never runs gc: the text of a comment it stored stayed
    on the remote for good once someone redacted it. Its first sync reads the writer's snapshot
    without it (a removal took it), takes that up and pushes it."""
    from gitstore.ops.setup import init

    _, bob, bare = _bobs_comment_redacted_by_alice(tmp_path, policy=True)
    runner = tmp_path / "runner"
    git(tmp_path, "clone", "-q", str(bare), str(runner))
    init(runner, writer=bob.workspace.config.writer)
    got = sync(str(runner))
    assert got.continued and any(m.kind == "payloads" for m in got.pushed) and not got.not_pushed, got.line
    assert b"MARKER7201" not in _fresh_copy_of_memory(tmp_path, bare, "after.git")


def _comment_stored_under_a_former_id(tmp_path: Path, writer: str) -> tuple[Context, Context, Path, str]:
    """Alice and bob under a policy letting both redact; ``writer`` ("alice" or "bob") stores a
    review comment, syncs, leaves that writer id (``init --new-writer``) and syncs again; alice
    syncs and redacts the comment. Returns the two contexts, the remote and the id left."""
    from gitstore.ops.redact import redact
    from gitstore.ops.setup import init

    from .team import two_reviewers

    alice, bob = two_reviewers(tmp_path)
    bare = tmp_path / "remote.git"
    grant_all(alice)
    storer = alice if writer == "alice" else bob
    thread = Thread(storer, 7301, "7301")
    thread.comment("7301", "MARKER7301 an internal host is named here", "2026-03-01T10:00:00.000000Z")
    thread.save()
    sync(str(storer.workspace.root))
    left = storer.workspace.config.writer
    init(storer.workspace.root, new_writer=True)
    assert Context.open(storer.workspace.root).workspace.config.writer != left
    sync(str(storer.workspace.root))
    sync(str(alice.workspace.root))
    assert b"MARKER7301" in _fresh_copy_of_memory(tmp_path, bare, "before.git")
    assert redact(Context.open(alice.workspace.root), "github:comment:7301", ALICE, "x").removed
    return Context.open(alice.workspace.root), Context.open(bob.workspace.root), bare, left


def _served_warnings(ctx: Context) -> list[str]:
    from gitstore.queries.doctor import doctor

    return [c.detail for c in doctor(ctx.workspace.root).checks if "holds" in c.detail and "a removal took" in c.detail]


def test_a_redaction_of_text_stored_under_an_id_this_clone_left_takes_it_off_the_remote(tmp_path: Path) -> None:
    """A clone's payload snapshot under an id it left (``init --new-writer``) went out only with
    records of that id, and a redaction's records go under the new one: the snapshot written
    again without the text stayed here, and the remote served the text for good. The sync
    after the redaction pushes it."""
    alice, _, bare, left = _comment_stored_under_a_former_id(tmp_path, "alice")
    got = sync(str(alice.workspace.root))
    assert not got.not_pushed and not got.quarantined, got.line
    assert (left, "payloads") in [(m.writer, m.kind) for m in got.pushed], got.line
    assert b"MARKER7301" not in _fresh_copy_of_memory(tmp_path, bare, "after.git")
    assert not _served_warnings(alice)
    assert sync(str(alice.workspace.root)).status == "no-update"


def test_a_teammates_redaction_of_text_stored_under_an_id_this_clone_left_takes_it_off_the_remote(
        tmp_path: Path) -> None:
    """Bob stored a comment, then left that writer id; alice, whom the policy lets redact,
    redacts it. Bob's next sync writes the old id's snapshot again without the text and pushes
    it in the same run (his gc alone rewrote only his copy, and no sync ever sent it); alice
    admits it (it drops only what her removal took)."""
    alice, bob, bare, left = _comment_stored_under_a_former_id(tmp_path, "bob")
    sync(str(alice.workspace.root))
    assert b"MARKER7301" in _fresh_copy_of_memory(tmp_path, bare, "redacted.git")
    got = sync(str(bob.workspace.root))
    assert not got.not_pushed and not got.quarantined, got.line
    assert got.dropped == 1 and (left, "payloads") in [(m.writer, m.kind) for m in got.pushed], got.line
    assert b"MARKER7301" not in _fresh_copy_of_memory(tmp_path, bare, "after.git")
    assert "MARKER7301 an internal host is named here" not in texts(bob)
    assert not _served_warnings(bob)
    assert sync(str(bob.workspace.root)).status == "no-update"
    back = sync(str(alice.workspace.root))
    assert back.status == "ok" and not back.quarantined and not back.brought_back, back.line
    fresh = clone(tmp_path, bare, "carol")
    first = sync(str(fresh.workspace.root))
    assert not first.brought_back and not first.quarantined, first.line


def test_doctor_warns_while_the_remote_serves_text_removed_from_an_id_this_clone_left(tmp_path: Path) -> None:
    """While the remote refuses the push that would take the text off a snapshot of one of this
    clone's ids, doctor says the remote serves it; the next sync that gets through ends that."""
    alice, bob, bare, left = _comment_stored_under_a_former_id(tmp_path, "bob")
    sync(str(alice.workspace.root))
    hook = bare / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\nif grep -q payloads/shared/{left}; then exit 1; fi\nexit 0\n")
    hook.chmod(0o755)
    refused = sync(str(bob.workspace.root))
    assert refused.not_pushed, refused.line
    served = _served_warnings(bob)
    assert len(served) == 1 and left in served[0] and "serves that text" in served[0], served
    hook.unlink()
    assert not sync(str(bob.workspace.root)).not_pushed
    assert not _served_warnings(bob)
    assert b"MARKER7301" not in _fresh_copy_of_memory(tmp_path, bare, "after.git")


def tag_on_remote(bare: Path, ref_name: str, commit: str) -> str:
    """Put an annotated tag of ``commit`` at ``ref_name`` on the remote, as someone who can push
    may (``git push origin +<tag>:<ref>``); returns the tag's id."""
    tag = subprocess.run(["git", "mktag"], cwd=bare, check=True, capture_output=True, text=True,
                         input=f"object {commit}\ntype commit\ntag t\ntagger T <t@example.com> 0 +0000\n\nt\n")
    git(bare, "update-ref", ref_name, tag.stdout.strip())
    return tag.stdout.strip()


def test_a_records_ref_put_on_the_remote_as_a_tag_of_the_writer_s_own_tip_is_mended_by_its_sync(
        team: tuple) -> None:
    alice, _, bare, _ = team
    sync(str(alice.workspace.root))
    records = f"refs/memory/v1/records/shared/{alice.workspace.config.writer}"
    tip = git(alice.workspace.root, "rev-parse", records).strip()
    tag = tag_on_remote(bare, records, tip)
    git(alice.workspace.root, "fetch", "-q", "origin")  # a plain fetch brings the tag too
    from gitstore.queries.doctor import doctor
    assert not [c for c in doctor(alice.workspace.root).checks if "never made" in c.detail]
    again = sync(str(alice.workspace.root))  # the tag is named (nobody's sync pushes one), and mended
    assert not again.not_pushed and "history rewritten" not in "\n".join(again.render()), again.render()
    assert remote_refs(bare)[records] == tip, "the push put the writer's commit back"
    mended = sync(str(alice.workspace.root))
    assert mended.status == "no-update" and not mended.quarantined, mended.render()
    bob_speaks(alice)  # alice appends after it, and pushes as a fast-forward
    assert git(bare, "cat-file", "-t", records).strip() == "commit"
    assert remote_refs(bare)[records] not in (tag, tip)


def test_a_records_ref_put_on_the_remote_as_a_tag_of_another_history_is_still_refused(team: tuple) -> None:
    alice, bob, bare, _ = team
    sync(str(alice.workspace.root))
    bob_speaks(bob)
    records = f"refs/memory/v1/records/shared/{alice.workspace.config.writer}"
    foreign = git(bare, "rev-parse", f"refs/memory/v1/records/shared/{bob.workspace.config.writer}").strip()
    tag_on_remote(bare, records, foreign)
    bob_speaks(alice)
    report = sync(str(alice.workspace.root))
    assert report.not_pushed, report.render()
    assert git(bare, "cat-file", "-t", records).strip() == "tag", "nothing forced over it"


def test_a_snapshot_forced_back_to_one_holding_redacted_text_leaves_no_copy_after_gc(team: tuple) -> None:
    """Alice redacts her comment; every clone's gc erases its text. Someone with push access
    then forces her snapshot back to the one that held it, under a name of their own. Bob (no
    policy: her removal counts for her snapshot) read the text again; once reads left it out,
    gc kept the forced commit, and the text under it, as a dangling commit of anyone's. The
    snapshot is now read without it, and text a note removes goes wherever it is unreachable."""
    from gitstore.ops.redact import redact

    from .conftest import all_objects

    alice, bob, bare, _ = team
    sync(str(alice.workspace.root))
    sync(str(bob.workspace.root))
    ref = f"refs/memory/v1/payloads/shared/{alice.workspace.config.writer}"
    old = git(bare, "rev-parse", ref).strip()
    redact(Context.open(alice.workspace.root), "github:comment:100", ALICE, "asked by its author")
    for ctx in (alice, bob):
        sync(str(ctx.workspace.root))
        assert cli.gitstore("gc", cwd=ctx.workspace.root).returncode == 0
        assert b"keep retries bounded" not in all_objects(ctx.workspace.root)
    forced = subprocess.run(["git", "-c", "user.name=m", "-c", "user.email=m@example.com", "commit-tree", "-m", "payloads",
                             f"{old}^{{tree}}"], cwd=bare, capture_output=True, check=True).stdout.decode().strip()
    git(bare, "update-ref", ref, forced)
    git(bob.workspace.root, "fetch", "-q", "origin")  # a plain fetch (a pull) forces it in first
    assert "keep retries bounded" not in texts(bob)
    assert cli.gitstore("gc", cwd=bob.workspace.root).returncode == 0
    assert b"keep retries bounded" not in all_objects(bob.workspace.root)
    for ctx in (bob, alice):
        report = sync(str(ctx.workspace.root))
        if ctx is bob:  # said, not silent: the remote serves that text until alice's next sync takes it off
            [said] = report.brought_back
            assert said.startswith(f"writer {alice.workspace.config.writer}: its payload snapshot on origin holds 1 "
                                   "payload(s) a removal took") and report.status != "degraded", report.render()
            assert said in report.render() and report.to_json()["broughtBack"] == [said]
        else:  # her own snapshot, pushed over it
            assert report.brought_back == [], report.render()
        assert "keep retries bounded" not in texts(ctx)
        assert cli.gitstore("gc", cwd=ctx.workspace.root).returncode == 0
        assert b"keep retries bounded" not in all_objects(ctx.workspace.root), ctx.workspace.root
        checked = subprocess.run(["git", "fsck", "--connectivity-only"], cwd=ctx.workspace.root, capture_output=True)
        assert checked.returncode == 0, checked.stderr


def test_a_retried_sync_puts_back_nothing_an_earlier_attempt_found(team: tuple) -> None:
    """Bob's snapshot forced empty; while alice syncs with --put-back, bob's own complete one
    reaches the remote (her first push is refused: the remote moved). What her first attempt
    found lacking was put back over bob's newer snapshot, with a lease on that newer one, and
    his later text was gone from the remote. Each attempt judges what its own fetch brought."""
    alice, bob, bare, _ = team
    sync(str(alice.workspace.root))
    bob_speaks(bob, alice)
    bob_writer, alice_writer = bob.workspace.config.writer, alice.workspace.config.writer
    bob_payloads = f"refs/memory/v1/payloads/shared/{bob_writer}"
    bob_records = f"refs/memory/v1/records/shared/{bob_writer}"
    empty = git(bare, "hash-object", "-t", "tree", "--stdin", "-w").strip()
    git(bare, "update-ref", bob_payloads, git(bare, "commit-tree", empty, "-m", "gitstore: payloads").strip())
    later = Thread(bob, 8, "200")
    later.comment("201", "bob's later words", "2026-03-02T11:00:00.000000Z")
    later.save()
    git(bob.workspace.root, "push", "-q", "origin", f"{bob_payloads}:refs/side/s2", f"{bob_records}:refs/side/r2")
    whole, records = git(bare, "rev-parse", "refs/side/s2").strip(), git(bare, "rev-parse", "refs/side/r2").strip()
    mine = Thread(alice, 7, "100")
    mine.comment("101", "alice's new point", "2026-03-03T10:00:00.000000Z")
    mine.save()
    hook = bare / "hooks" / "pre-receive"
    marker = hook.with_name("moved-once")
    other = git(bare, "commit-tree", empty, "-m", "gitstore: payloads x").strip()
    moves = [(bob_payloads, whole), (bob_records, records), (f"refs/memory/v1/payloads/shared/{alice_writer}", other)]
    hook.write_text(f"#!/bin/sh\ncat >/dev/null\n[ -e {marker} ] && exit 0\ntouch {marker}\n" + "".join(
        f"env -u GIT_QUARANTINE_PATH git --git-dir={bare} update-ref {ref} {tip}\n" for ref, tip in moves))
    hook.chmod(0o755)
    got = sync(str(alice.workspace.root), put_back=True)
    assert got.attempts == 2 and not got.restored and not got.kept_text, got.render()
    assert git(bare, "rev-parse", bob_payloads).strip() == whole


def test_a_push_sends_the_tips_it_planned_and_an_append_meanwhile_goes_at_the_next_sync(
        team: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sync plans its push (the records each writer ref sends, checked to be of the remote's
    scope), then runs git push: an append landing between the two (a capture hook in the
    background) was pushed by the ref's name, unchecked and uncounted. The push sends the tips
    it planned; the next sync sends the rest."""
    from gitstore.sync import remote as sync_remote

    alice, _, bare, _ = team
    writer = alice.workspace.config.writer
    records = f"refs/memory/v1/records/shared/{writer}"
    run_git = sync_remote._git
    appended: list[str] = []

    def append_before_push(repo: pygit2.Repository, *args: str, data: str | None = None) -> Any:
        if args and args[0] == "push" and not appended:
            appended.append(str(pygit2.Repository(str(alice.workspace.root)).references[records].target))
            grant_all(Context.open(alice.workspace.root), purposes=("review",))  # the other process
        return run_git(repo, *args, data=data)

    monkeypatch.setattr(sync_remote, "_git", append_before_push)
    sent = sync(str(alice.workspace.root))
    assert sent.status == "ok" and appended, sent.line
    planned = appended[0]
    tip = str(pygit2.Repository(str(alice.workspace.root)).references[records].target)
    assert tip != planned, "the append landed between the plan and the push"
    assert remote_refs(bare)[records] == planned, "the push sent what it planned and counted"
    monkeypatch.setattr(sync_remote, "_git", run_git)
    assert sync(str(alice.workspace.root)).status == "ok"
    assert remote_refs(bare)[records] == tip
    assert sync(str(alice.workspace.root)).status == "no-update"


def test_an_older_handle_saving_its_admissions_keeps_what_a_sync_admitted_since(team: tuple) -> None:
    """A removal (redact, withdraw, gc) loads the admissions when it opens the store and saves
    them at its end; a sync in between admitted a writer's newer tip. The older handle wrote its
    whole copy back: the entry went back to the older tip and the anchor moved back with it, so
    the newer records were no longer held by the admission (a pruning fetch, and gc could erase
    them). A save writes only the entries its handle changed over the file as it is now."""
    from gitstore.providers._admit import Admissions, anchor_ref

    older, now, moved, repo, state, bob = _older_handle_then_a_sync(team)
    own = moved[0].rsplit("/", 1)[0] + "/own-change"  # the removal's own change, elsewhere
    read = older.base(moved[0])
    older.admitted(own, read, None)
    older.save(repo)
    after = Admissions(state)
    for name in moved:
        assert after.base(name) == now.base(name), f"{name} went back to the tip an older handle read"
        assert repo.references[anchor_ref(name)].target == now.base(name)
    assert after.base(own) == read  # and the older handle's change is saved
    assert "and jitter them" in texts(bob)


def test_an_older_handle_anchoring_points_no_anchor_back_at_a_tip_a_sync_admitted_before(team: tuple) -> None:
    """A gc, or a sync's restore, anchors from the admissions its handle loaded when the store
    opened; a sync in between admitted a writer's newer tips (a payload snapshot a removal
    rewrote, say). Anchoring from the older copy pointed the anchors back at the older tips,
    a snapshot still holding the text the removal took, which gc then could not erase.
    Anchoring reads the file as it is now."""
    from gitstore.providers._admit import FETCHED, Admissions, anchor_ref

    older, now, moved, repo, state, _ = _older_handle_then_a_sync(team)
    assert older.anchor(repo) == []
    for name in moved:
        assert repo.references[anchor_ref(name)].target == now.base(name), f"{name}'s anchor went back"
    assert Admissions(state).bases(FETCHED) == now.bases(FETCHED)  # the file as the sync left it


def _older_handle_then_a_sync(team: tuple) -> tuple[Any, Any, list[str], pygit2.Repository, Path, Context]:
    """bob's admissions opened by a handle (a removal's, a gc's), then alice's new comment synced
    to bob, whose sync admits her newer tips: that handle, the admissions after the sync, the refs
    whose admitted tip moved, bob's repository and state folder, and bob."""
    from gitstore.providers._admit import FETCHED, Admissions

    alice, bob, _, _ = team
    sync(str(alice.workspace.root))
    sync(str(bob.workspace.root))
    state = Path(bob.workspace.repo.path) / "gitstore"
    older = Admissions(state)
    thread = Thread(alice, 7, "100")
    thread.comment("101", "and jitter them", "2026-03-01T11:00:00.000000Z")
    thread.save()
    sync(str(alice.workspace.root))
    sync(str(bob.workspace.root))
    now = Admissions(state)
    moved = [ref for ref in now.known(FETCHED) if now.base(ref) != older.base(ref)]
    assert moved, "the second sync admitted newer tips"
    return older, now, moved, pygit2.Repository(str(bob.workspace.root)), state, bob
