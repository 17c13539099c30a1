"""A folder copied with its clone inside (``cp -r``): the copy and the original must not append as
one writer id, or their histories split and the second to sync can never push. The first command
in a copy that can see its original gives it a writer id of its own and says so; ``gitstore init
--new-writer`` does it where the original cannot be seen; sync still sends what the clone
appended under its old id where the remote lacks it, and says what it cannot send."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pygit2
import pytest

from gitstore._files import temporary_name
from gitstore.config import HOME_NAME, STATE_DIR, former_writers
from gitstore.context import Context
from gitstore.ops.learning import retire
from gitstore.providers.git import parse_message
from gitstore.queries.doctor import doctor
from gitstore.queries.learnings import learnings
from gitstore.records.contracts import seal
from gitstore.records.ids import episode_id
from gitstore.sync.remote import sync

from . import cli
from .conftest import build_once, copy_world, git
from .team import (EVERYTHING, commit_all, first_clone, forge, keypair, shared_remote, sign_as, team_clone, two_reviewers,
                   write_policy)
from .world import Thread, accepted, claude_transcript, grant_all, propose, ref

def _comment(root: Path, pr: int, text: str) -> dict[str, Any]:
    """One review comment stored in ``root``'s clone (shared records), as an import stores it."""
    thread = Thread(Context.open(root), pr, f"c{pr}")
    comment = thread.comment(f"c{pr}", text, f"2026-03-0{pr}T10:00:00.000000Z")
    thread.save()
    return comment


def _digests(root: Path) -> set[str]:
    return {item.digest for item in Context.open(root).store.items()}


def _writer(root: Path) -> str:
    return str(json.loads((root / STATE_DIR / "config.json").read_text())["writer"])


def _copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, symlinks=True)  # as a person copies a folder
    return target


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """The team's remote and alice's clone: a grant and a comment, synced."""
    bare = shared_remote(tmp_path)
    alice = first_clone(tmp_path, bare)
    grant_all(Context.open(alice))
    _comment(alice, 1, "keep retries bounded")
    assert sync(str(alice)).status == "ok"
    return bare, alice


def test_the_first_command_in_a_copy_gives_it_a_writer_of_its_own_and_says_so(world: tuple, tmp_path: Path) -> None:
    _, alice = world
    old, stored = _writer(alice), _digests(alice)
    copy = _copy(alice, tmp_path / "alice-copy")
    done = cli.gitstore("status", cwd=copy)
    new = _writer(copy)
    assert done.returncode == 0 and new != old and _writer(alice) == old
    assert done.stderr == (f"gitstore: warning: {copy} is a copy of {alice}, which writes as {old}: this clone writes "
                           f"as {new} from now on (what it stored as {old} stays, read as before)\n")
    assert cli.gitstore("status", cwd=copy).stderr == "" and cli.gitstore("status", cwd=alice).stderr == ""
    assert _digests(copy) == stored  # what it stored as the old id is read as before
    _comment(copy, 2, "name the queue after its consumer")
    refs = git(copy, "for-each-ref", "--format=%(refname)", "refs/memory/v1/records/shared/").split()
    assert refs == sorted([f"refs/memory/v1/records/shared/{old}", f"refs/memory/v1/records/shared/{new}"])
    kept = f"refs/memory/v1/records/shared/{old}"
    assert git(copy, "rev-parse", kept) == git(alice, "rev-parse", kept)  # the old id's history untouched
    assert "writer" not in {c.name for c in doctor(copy).checks} | {c.name for c in doctor(alice).checks}


@pytest.mark.parametrize("appended", [False, True])
def test_a_damaged_configuration_in_a_copy_never_advises_the_original_s_writer(
        world: tuple, tmp_path: Path, appended: bool) -> None:
    """A copy given a writer of its own whose config.json is then damaged: the advice named the
    first writer whose records the clone holds, the original's, and following it made both
    folders write as one id (the next sync of either refused)."""
    _, alice = world
    old = _writer(alice)
    copy = _copy(alice, tmp_path / "alice-copy")
    assert cli.gitstore("status", cwd=copy).returncode == 0
    new = _writer(copy)
    if appended:
        _comment(copy, 2, "name the queue after its consumer")
    (copy / STATE_DIR / "config.json").write_text('{"writer": ')
    err = cli.gitstore("status", cwd=copy).stderr
    assert f"{old}: the folder this one was copied from writes as it" in err, err
    assert f"--writer {old}" not in err
    assert (f"`gitstore init --writer {new}`" in err) if appended else ("`gitstore init`, which gives" in err), err


def test_a_copy_that_cannot_write_its_configuration_warns_on_every_command_and_doctor_says_what_to_do(
        world: tuple, tmp_path: Path) -> None:
    _, alice = world
    copy = _copy(alice, tmp_path / "alice-copy")
    Path(temporary_name(copy / STATE_DIR / "config.json")).mkdir()  # config.json cannot be replaced, as read-only
    for _ in range(2):
        done = cli.gitstore("status", cwd=copy)
        assert done.returncode == 0 and done.stderr == (
            f"gitstore: warning: {copy} is a copy of {alice}, which writes as {_writer(alice)} too, and "
            f"{copy / STATE_DIR / 'config.json'} cannot be written: run `gitstore init --new-writer` here once it "
            "can, before either of them appends again, or their histories split\n")
    assert _writer(copy) == _writer(alice)
    check = {c.name: c for c in doctor(copy).checks}["writer"]
    assert check.state == "warn" and str(alice) in check.detail and "--new-writer" in check.todo


def test_a_moved_folder_keeps_its_writer_and_a_copy_of_it_names_where_it_went(world: tuple, tmp_path: Path) -> None:
    _, alice = world
    writer, stored = _writer(alice), _digests(alice)
    moved = tmp_path / "moved"
    os.rename(alice, moved)
    done = cli.gitstore("status", cwd=moved)
    assert done.returncode == 0 and done.stderr == ""
    assert (moved / STATE_DIR / HOME_NAME).read_bytes() == os.fsencode(moved)
    assert _writer(moved) == writer and _digests(moved) == stored
    copy = _copy(moved, tmp_path / "copy")
    assert f"is a copy of {moved}, which writes as {writer}:" in cli.gitstore("status", cwd=copy).stderr


def test_another_work_tree_given_the_same_state_is_no_copy(world: tuple, tmp_path: Path) -> None:
    """A tool that makes a work tree for each agent and copies ignored files into it: the work
    trees share one repository's refs, so one writer id in both splits nothing."""
    _, alice = world
    tree = tmp_path / "agent-tree"
    git(alice, "worktree", "add", "-q", str(tree))
    shutil.copytree(alice / STATE_DIR, tree / STATE_DIR)
    done = cli.gitstore("status", cwd=tree)
    assert done.returncode == 0 and done.stderr == "" and _writer(tree) == _writer(alice)
    assert (tree / STATE_DIR / HOME_NAME).read_bytes() == os.fsencode(tree)
    _comment(tree, 2, "name the queue after its consumer")
    assert _digests(tree) == _digests(alice)  # one ref, appended to from either


def test_a_clone_set_up_before_homes_were_kept_records_where_it_is(world: tuple) -> None:
    _, alice = world
    (alice / STATE_DIR / HOME_NAME).unlink()
    assert cli.gitstore("status", cwd=alice).stderr == ""
    assert (alice / STATE_DIR / HOME_NAME).read_bytes() == os.fsencode(alice)


def test_init_in_a_copy_gives_it_a_writer_of_its_own(world: tuple, tmp_path: Path) -> None:
    _, alice = world
    copy = _copy(alice, tmp_path / "copy")
    old = _writer(alice)
    out = cli.ok("init", cwd=copy)
    new = _writer(copy)
    assert new != old and _writer(alice) == old
    assert (f"a copy of {alice}, which writes as {old}: writer {new} for this clone from now on (what it stored as "
            f"{old} stays and is read; sync pushes {old}'s appends the remote lacks)") in out
    assert cli.gitstore("status", cwd=copy).stderr == ""
    assert cli.ok("init", cwd=copy).endswith("nothing to change: already set up\n")


def test_new_writer_on_any_clone_keeps_its_settings_and_refuses_an_id_in_use(world: tuple, tmp_path: Path) -> None:
    bare, alice = world
    config = alice / STATE_DIR / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "capture": {"mode": "transcript"}}))
    cli.ok("init", "--accept-changes", cwd=alice)  # a person's edit, taken
    old = _writer(alice)
    assert "must be" in cli.fails(2, "init", "--new-writer", "--writer", "Not An Id", cwd=alice)
    assert "writes as" in cli.fails(2, "init", "--new-writer", "--writer", old, cwd=alice)
    assert json.loads(cli.ok("init", "--new-writer", "--writer", "laptop-2", "--json", cwd=alice))["writer"] == "laptop-2"
    assert json.loads(config.read_text()) == {"writer": "laptop-2", "writerGiven": True, "provider": "git",
                                               "capture": {"mode": "transcript"}}
    assert f"records are stored under that id (refs/memory/v1/records/shared/{old})" in cli.fails(
        1, "init", "--new-writer", "--writer", old, cwd=alice)
    assert "`--new-writer` gives a copied folder an id of its own" in cli.fails(1, "init", "--writer", "other", cwd=alice)


def test_sync_sends_what_a_copy_appended_as_its_old_id_when_the_original_is_gone(world: tuple, tmp_path: Path) -> None:
    bare, alice = world
    old = _writer(alice)
    unsent = _comment(alice, 2, "prefer small pull requests")  # never synced from alice
    copy = _copy(alice, tmp_path / "copy")
    cli.ok("status", cwd=copy)  # its first command gives it a writer id of its own
    shutil.rmtree(alice)  # the copy took over
    report = sync(str(copy))
    assert report.status == "ok", report.line
    assert {(m.writer, m.kind) for m in report.pushed} == {(old, "records"), (old, "payloads")}
    carol = tmp_path / "carol"
    git(tmp_path, "clone", "-q", str(bare), str(carol))
    cli.ok("init", cwd=carol)
    assert sync(str(carol)).status == "ok"
    assert unsent["digest"] in _digests(carol)
    assert "refs: ok" in cli.ok("verify", cwd=carol)
    assert cli.ok("verify", cwd=copy).endswith("refs: ok\n")  # what it wrote as the old id is still its own
    again = sync(str(copy))  # nothing left to send
    assert not again.pushed and not again.stranded and again.status in ("ok", "no-update")


def test_two_copies_that_appended_as_one_writer_are_told_and_the_second_carries_its_appends_to_a_new_id(
        world: tuple, tmp_path: Path) -> None:
    bare, alice = world
    old = _writer(alice)
    copy = _copy(alice, tmp_path / "copy")
    (copy / STATE_DIR / HOME_NAME).unlink()  # as a copy made on another machine: its original cannot be seen
    _comment(alice, 2, "prefer small pull requests")
    split = _comment(copy, 3, "log the request id")  # the copy appends as alice's id
    assert sync(str(alice)).status == "ok"
    refused = sync(str(copy))
    assert refused.status == "degraded"
    assert any("`gitstore init --new-writer` gives this one an id of its own" in why for why in refused.not_pushed)
    repo = pygit2.Repository(str(copy))
    appended = len(parse_message(repo[repo.references[f"refs/memory/v1/records/shared/{old}"].target].message).lines)
    out = cli.ok("init", "--new-writer", cwd=copy)
    new = _writer(copy)
    assert (f"{old}: 1 append(s) ({appended} record(s)) the remote's history of {old} parted from, carried over to "
            f"{new} so that sync sends them") in out
    later = _comment(copy, 4, "retry idempotent calls only")
    report = sync(str(copy))
    assert report.status == "ok" and not report.not_pushed and not report.stranded, report.line
    assert {(m.writer, m.kind) for m in report.pushed} == {(new, "records"), (new, "payloads")}
    assert split["digest"] in _digests(copy)
    assert cli.ok("verify", cwd=copy).endswith(": ok\n")  # its old id's refs are no damage
    carol = tmp_path / "carol"
    git(tmp_path, "clone", "-q", str(bare), str(carol))
    cli.ok("init", cwd=carol)
    assert sync(str(carol)).status == "ok"
    seen = _digests(carol)
    assert later["digest"] in seen and split["digest"] in seen
    texts = {(e.get("payload") or {}).get("text") for e in Context.open(carol).view().events.values()}
    assert "log the request id" in texts  # its payload came over too
    assert "refs: ok" in cli.ok("verify", cwd=carol)
    assert sync(str(alice)).status == "ok"  # the original goes on as before
    assert "carried" not in cli.ok("init", "--new-writer", cwd=copy)  # nothing is carried twice
    assert not sync(str(copy)).stranded


def _episode(ctx: Context) -> dict[str, Any]:
    """A review episode, as anyone with push access can write one (it needs no authority)."""
    source = {"kind": "review-thread", "origin": "github", "ref": "github:comment:999"}
    return seal({"schema": "gitstore.episode/v1", "scope": ctx.scope, "id": episode_id(ctx.scope, source),
                 "source": source, "pin": {"repository": ctx.scope, "pullRequest": 9, "branch": "x",
                                           "commit": "a" * 40},
                 "title": None, "startedAt": "2026-03-03T10:00:00.000000Z", "capture": "complete", "mode": "review",
                 "grants": []})


def _bobs_proposal(tmp_path: Path) -> tuple[Path, Path, Path, dict[str, Any]]:
    """Alice and bob under a policy, alice's grants given, bob's proposal citing his comment,
    both synced: alice's and bob's roots, the remote and the proposal."""
    alice, bob = two_reviewers(tmp_path)
    a, b, bare = alice.workspace.root, bob.workspace.root, tmp_path / "remote.git"
    grant_all(alice)
    assert sync(str(a)).status == "ok"
    thread = Thread(Context.open(b), 8, "200")
    comment = thread.comment("200", "Bound the queue size.", "2026-03-02T10:00:00.000000Z")
    thread.save()
    proposal = propose(Context.open(b), [ref(comment)], title="Bounded queues", text="Queues are bounded.")
    assert sync(str(b)).status == "ok" and sync(str(a)).status == "ok"
    return a, b, bare, proposal


def _stranded_decision(tmp_path: Path) -> tuple[Path, Path, Path, dict[str, Any]]:
    """Alice and bob under a policy; bob proposes; someone with push access appends (validly,
    unsigned) onto the remote's copy of alice's writer; alice accepts bob's proposal, and her
    sync can never push it. Returns alice's and bob's roots, the remote and the proposal."""
    a, b, bare, proposal = _bobs_proposal(tmp_path)
    writer = _writer(a)
    mal = team_clone(tmp_path, bare, "mal").workspace.root
    tip = git(a, "rev-parse", f"refs/memory/v1/records/shared/{writer}").strip()
    git(mal, "update-ref", f"refs/memory/v1/records/shared/{writer}", tip)
    forged = forge(mal, writer, [_episode(Context.open(mal))])
    git(mal, "push", "-q", "-f", "origin", f"{forged}:refs/memory/v1/records/shared/{writer}")
    accepted(Context.open(a), proposal, by="github:9")
    parted = sync(str(a))
    assert parted.status == "degraded" and any("never forced" in why for why in parted.not_pushed), parted.line
    return a, b, bare, proposal


@pytest.fixture(scope="module")
def bobs_proposal_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """``_bobs_proposal`` made once: its folder and the proposal (each test takes a copy)."""
    return build_once(tmp_path_factory, "bobs-proposal", lambda folder: _bobs_proposal(folder)[3])


@pytest.fixture(scope="module")
def stranded_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """``_stranded_decision`` made once: its folder and the proposal (each test takes a copy)."""
    return build_once(tmp_path_factory, "stranded", lambda folder: _stranded_decision(folder)[3])


def _copied_world(made: tuple[Path, dict[str, Any]], tmp_path: Path) -> tuple[Path, Path, Path, dict[str, Any]]:
    """A copy of a world made once, in this test's folder: alice's and bob's roots, the remote
    and the proposal, as ``_bobs_proposal`` and ``_stranded_decision`` return them."""
    source, proposal = made
    copy_world(source, tmp_path)
    return tmp_path / "alice", tmp_path / "bob", tmp_path / "remote.git", proposal


@pytest.fixture
def bobs_proposal(bobs_proposal_once: tuple[Path, dict[str, Any]], tmp_path: Path) -> tuple[Path, Path, Path, dict]:
    return _copied_world(bobs_proposal_once, tmp_path)


@pytest.fixture
def stranded(stranded_once: tuple[Path, dict[str, Any]], tmp_path: Path) -> tuple[Path, Path, Path, dict]:
    return _copied_world(stranded_once, tmp_path)


def _verdict(root: Path, learning: str) -> tuple[str, bool]:
    [row] = [row for row in learnings(Context.open(root)) if row.status.id == learning]
    return row.status.state, row.status.usable


def test_a_decision_a_parted_writer_could_never_push_reaches_the_team_from_a_new_id(
        tmp_path: Path, stranded: tuple) -> None:
    """Someone with push access appended to the remote's copy of alice's writer: her signed
    acceptance after it can never be pushed as that id. ``init --new-writer`` carries it over,
    signed again with her key, and every clone then counts it."""
    a, b, _, proposal = stranded
    assert sync(str(b)).status in ("ok", "no-update")
    assert _verdict(b, proposal["id"]) == ("proposed", False)
    old = _writer(a)
    out = cli.ok("init", "--new-writer", cwd=a)
    new = _writer(a)
    assert f"{old}: 1 append(s) (2 record(s)) the remote's history of {old} parted from, carried over to {new}" in out
    report = sync(str(a))
    assert report.status == "ok" and not report.stranded and not report.not_pushed, report.line
    assert {m.writer for m in report.pushed} == {new}
    back = sync(str(b))
    assert not back.left_out, back.line
    assert _verdict(b, proposal["id"]) == ("accepted", True)
    assert _verdict(a, proposal["id"]) == ("accepted", True)
    for root in (a, b):
        assert cli.gitstore("verify", cwd=root).returncode == 0


def test_a_decision_is_carried_only_signed_with_the_key_that_signed_it(tmp_path: Path, stranded: tuple) -> None:
    """Without the key, ``init --new-writer`` carries nothing and names what it left and why;
    once the key is configured again, the next sync carries it (the new id has no appends)."""
    a, b, _, proposal = stranded
    key = git(a, "config", "user.signingkey").strip()
    git(a, "config", "--unset", "user.signingkey")
    old = _writer(a)
    out = cli.ok("init", "--new-writer", cwd=a)
    assert "carried over" not in out and f"{old}: 1 append(s) the remote's history of {old} parted from stay" in out
    assert "user.signingkey" in out
    stays = sync(str(a))
    assert len(stays.stranded) == 1 and "user.signingkey" in stays.stranded[0], stays.line
    git(a, "config", "user.signingkey", key)
    report = sync(str(a))
    assert any("carried over" in line for line in report.carried) and not report.stranded, report.line
    sync(str(b))
    assert _verdict(b, proposal["id"]) == ("accepted", True)


def test_appends_a_new_id_could_not_carry_before_it_appended_are_carried_by_the_next(
        tmp_path: Path, stranded: tuple) -> None:
    """A copy is carried onto an id with no appends of its own only (it keeps the original's
    place in every clone's order): an id that appended first leaves them named, with what to
    do, and the next ``init --new-writer`` carries them."""
    a, b, _, proposal = stranded
    key = git(a, "config", "user.signingkey").strip()
    git(a, "config", "--unset", "user.signingkey")
    cli.ok("init", "--new-writer", cwd=a)
    git(a, "config", "user.signingkey", key)
    grant_all(Context.open(a), purposes=("training",))  # the new id appends before any sync
    stays = sync(str(a))
    assert stays.status == "ok" and len(stays.stranded) == 1, stays.line
    assert "`gitstore init --new-writer` carries them over to a new id" in stays.stranded[0]
    assert "carried over" in cli.ok("init", "--new-writer", cwd=a)
    report = sync(str(a))
    assert report.status == "ok" and not report.stranded and not report.not_pushed, report.line
    sync(str(b))
    assert _verdict(b, proposal["id"]) == ("accepted", True)
    assert cli.gitstore("verify", cwd=b).returncode == 0


def test_a_capture_hook_in_a_copy_appends_as_a_writer_of_its_own(world: tuple, tmp_path: Path) -> None:
    """The agent's hook runs with nobody to read a warning: the capture itself gives the copy
    its id before it appends the session."""
    _, alice = world
    copy = _copy(alice, tmp_path / "copy")
    old = _writer(alice)
    transcript = claude_transcript(tmp_path / "s.jsonl", [("user", "Add jitter."), ("assistant", "Added.")])
    payload = json.dumps({"session_id": "sess-copy", "transcript_path": str(transcript),
                          "hook_event_name": "SessionEnd", "cwd": str(copy)})
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITSTORE_HOOK")}
    env.update(GITSTORE_HOOK_INLINE="1", HOME=str(tmp_path))  # the whole capture in the hook's process
    done = subprocess.run([sys.executable, "-m", "gitstore.capture.agent_hook", "claude-code"], input=payload,
                          text=True, capture_output=True, cwd=copy, env=env, timeout=60)
    assert done.returncode == 0 and done.stdout == ""
    new = _writer(copy)
    assert new != old and _writer(alice) == old
    local = pygit2.Repository(str(copy / ".git" / "gitstore" / "local"))
    assert f"refs/memory/v1/records/local/{new}" in list(local.references)
    receipts = [i for i in Context.open(copy).store.items() if i.kind == "receipt"]
    assert len(receipts) == 1  # the session was stored, in the copy alone
    assert not [i for i in Context.open(alice).store.items() if i.kind == "receipt"]


def _records_tip(root: Path, writer: str) -> str:
    return git(root, "rev-parse", f"refs/memory/v1/records/shared/{writer}").strip()


def _holders(bare: Path, digest: str) -> tuple[str, ...]:
    """The writers whose records history on the remote stores the record ``digest``."""
    prefix = "refs/memory/v1/records/shared/"
    names = git(bare, "for-each-ref", "--format=%(refname)", prefix).split()
    return tuple(sorted(name[len(prefix):] for name in names if digest in git(bare, "log", "--format=%B", name)))


def _tip_records(root: Path, writer: str) -> set[str]:
    """The digests of the records ``writer``'s last append in ``root`` stored."""
    repo = pygit2.Repository(str(root))
    return {digest for digest, _, _ in parse_message(repo[pygit2.Oid(hex=_records_tip(root, writer))].message).lines}


def test_a_carried_decision_names_as_seen_what_its_original_had_seen(tmp_path: Path, bobs_proposal: tuple) -> None:
    """Alice accepts and syncs, then retires without syncing; someone with push access sets the
    remote's copy of her writer back to a history that parts before the acceptance (refused
    here, held in quarantine). The remote no longer holds the acceptance: it is carried over to
    a new id with the retirement, whose copy has seen what the retirement had seen, the
    acceptance (its copy, the copy before it), not where the rewritten history parted: every
    clone, a fresh one too, settles it after the acceptance, and the learning is retired
    everywhere."""
    a, b, bare, proposal = bobs_proposal
    old = _writer(a)
    granted = _records_tip(a, old)
    accepted(Context.open(a), proposal, by="github:9")
    acceptance = _records_tip(a, old)
    assert sync(str(a)).status == "ok" and sync(str(b)).status == "ok"
    assert _verdict(b, proposal["id"]) == ("accepted", True)
    retire(Context.open(a), proposal["id"], "github:9", "no longer true")
    mal = team_clone(tmp_path, bare, "mal").workspace.root
    git(mal, "update-ref", f"refs/memory/v1/records/shared/{old}", granted)
    forged = forge(mal, old, [_episode(Context.open(mal))])
    git(mal, "push", "-q", "-f", "origin", f"{forged}:refs/memory/v1/records/shared/{old}")
    refused = sync(str(a))
    assert refused.quarantined and refused.not_pushed, refused.line
    assert f"{old}: 2 append(s) (4 record(s))" in cli.ok("init", "--new-writer", cwd=a)
    new = _writer(a)
    repo = pygit2.Repository(str(a))
    copy = repo[repo.references[f"refs/memory/v1/records/shared/{new}"].target]
    before = repo[copy.parent_ids[0]]  # what the retirement had seen, carried before it
    assert parse_message(before.message).lines == parse_message(repo[pygit2.Oid(hex=acceptance)].message).lines
    assert (old, granted) in parse_message(before.message).seen
    assert sync(str(a)).status in ("ok", "degraded") and sync(str(b)).status in ("ok", "degraded")
    erin = team_clone(tmp_path, bare, "erin").workspace.root
    sync(str(erin))
    for root in (a, b, erin):
        assert _verdict(root, proposal["id"]) == ("retired", False), root
    for root in (a, b, erin):
        assert cli.gitstore("verify", cwd=root).returncode == 0


def test_a_pushed_decision_the_remote_s_history_dropped_is_carried_and_reaches_every_clone(tmp_path: Path) -> None:
    """Alice accepts, retires and syncs, and bob admits the retirement; then someone with push
    access sets the remote's copy of her writer back to the acceptance and appends on it. This
    clone still holds the retirement as admitted, but the remote no longer does: it is stranded,
    ``init --new-writer`` carries it over, and every clone, a fresh one too, counts it."""
    alice, bob = two_reviewers(tmp_path)
    a, b, bare = alice.workspace.root, bob.workspace.root, tmp_path / "remote.git"
    grant_all(alice)
    thread = Thread(Context.open(a), 7, "100")
    comment = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    proposal = propose(Context.open(a), [ref(comment)])
    accepted(Context.open(a), proposal, by="github:9")
    assert sync(str(a)).status == "ok" and sync(str(b)).status == "ok"
    old = _writer(a)
    acceptance = _records_tip(a, old)
    retire(Context.open(a), proposal["id"], "github:9", "no longer true")
    assert sync(str(a)).status == "ok" and sync(str(b)).status == "ok"
    mal = team_clone(tmp_path, bare, "mal").workspace.root
    git(mal, "update-ref", f"refs/memory/v1/records/shared/{old}", acceptance)
    forged = forge(mal, old, [_episode(Context.open(mal))])
    git(mal, "push", "-q", "-f", "origin", f"{forged}:refs/memory/v1/records/shared/{old}")
    sync(str(b))
    refused = sync(str(a))
    assert refused.not_pushed and any("--new-writer" in why for why in refused.not_pushed), refused.line
    out = cli.ok("init", "--new-writer", cwd=a)
    new = _writer(a)
    assert f"{old}: 1 append(s) (2 record(s)) the remote's history of {old} parted from, carried over to {new}" in out
    report = sync(str(a))
    assert not report.stranded and {m.writer for m in report.pushed} == {new}, report.line
    sync(str(b))
    erin = team_clone(tmp_path, bare, "erin").workspace.root
    sync(str(erin))
    for root in (a, b, erin):
        assert _verdict(root, proposal["id"]) == ("retired", False), root
        assert cli.gitstore("verify", cwd=root).returncode == 0, root


def test_sync_in_another_work_tree_never_carries_the_id_the_main_one_writes_as(tmp_path: Path, stranded: tuple) -> None:
    """A linked work tree set up on its own writes as an id of its own, and the main tree's id
    is no former id of it: its sync leaves the main tree's stranded acceptance alone. The main
    tree's own ``init --new-writer`` carries it, and the team holds it once."""
    a, b, bare, proposal = stranded
    old = _writer(a)
    acceptance = _tip_records(a, old)
    tree = tmp_path / "alice-tree"
    git(a, "worktree", "add", "-q", "-b", "other", str(tree))
    cli.ok("init", cwd=tree)
    sibling = _writer(tree)
    assert sibling != old
    report = sync(str(tree))
    assert not report.carried and not report.stranded, report.line
    assert f"refs/memory/v1/records/shared/{sibling}" not in pygit2.Repository(str(a)).references
    assert _writer(a) == old
    assert "carried over" in cli.ok("init", "--new-writer", cwd=a)
    new = _writer(a)
    assert sync(str(a)).status == "ok" and sync(str(b)).status in ("ok", "no-update")
    assert {_holders(bare, digest) for digest in acceptance} == {(new,)}
    assert _verdict(b, proposal["id"]) == ("accepted", True)


def test_two_new_ids_before_a_sync_carry_a_stranded_append_once(tmp_path: Path, stranded: tuple) -> None:
    """What an earlier new id holds and the next sync pushes is never carried again onto the
    next one: the team holds the acceptance under one id."""
    a, b, bare, proposal = stranded
    acceptance = _tip_records(a, _writer(a))
    assert "carried over" in cli.ok("init", "--new-writer", cwd=a)
    first = _writer(a)
    assert "carried over" not in cli.ok("init", "--new-writer", cwd=a)
    second = _writer(a)
    report = sync(str(a))
    assert report.status == "ok" and not report.carried, report.line
    sync(str(b))
    assert {_holders(bare, digest) for digest in acceptance} == {(first,)}
    assert f"refs/memory/v1/records/shared/{second}" not in git(bare, "for-each-ref")
    assert _verdict(b, proposal["id"]) == ("accepted", True)


def test_an_id_another_work_tree_still_writes_as_is_never_carried(tmp_path: Path, stranded: tuple) -> None:
    """Two work trees given the same state write as one id. The main one leaving it carries
    nothing while the other still appends as it, and says so; the other's own ``init
    --new-writer`` carries the stranded acceptance, once."""
    a, b, bare, proposal = stranded
    old = _writer(a)
    acceptance = _tip_records(a, old)
    tree = tmp_path / "agent-tree"
    git(a, "worktree", "add", "-q", "-b", "agent", str(tree))
    shutil.copytree(a / STATE_DIR, tree / STATE_DIR)
    assert _writer(tree) == old
    out = cli.ok("init", "--new-writer", cwd=a)
    assert "carried over" not in out and f"the work tree {tree} writes as {old} now" in out
    stays = sync(str(a))
    assert not stays.carried and any(f"the work tree {tree}" in line for line in stays.stranded), stays.line
    assert "carried over" in cli.ok("init", "--new-writer", cwd=tree)
    other = _writer(tree)
    assert sync(str(tree)).status == "ok"
    again = sync(str(a))
    assert not again.carried, again.line
    sync(str(b))
    assert {_holders(bare, digest) for digest in acceptance} == {(other,)}
    assert _verdict(b, proposal["id"]) == ("accepted", True)


def test_a_copy_forgets_the_ids_its_original_left(world: tuple, tmp_path: Path) -> None:
    """The ids a work tree left with ``init --new-writer`` are its own to carry from: a copy of
    the folder given an id of its own forgets them (its original carries what they stranded),
    and so does ``init --new-writer`` run in a copy whose original it sees."""
    _, alice = world
    old = _writer(alice)
    cli.ok("init", "--new-writer", cwd=alice)
    assert former_writers(alice / STATE_DIR) == [old]
    copy = _copy(alice, tmp_path / "copy")
    cli.ok("status", cwd=copy)
    assert _writer(copy) != _writer(alice) and former_writers(copy / STATE_DIR) == []
    other = _copy(alice, tmp_path / "other")
    cli.ok("init", "--new-writer", cwd=other)
    assert former_writers(other / STATE_DIR) == [] and former_writers(alice / STATE_DIR) == [old]


def _signed_commit(root: Path, writer: str) -> str:
    """An append of ``writer``'s history in ``root`` that carries a signature."""
    repo = pygit2.Repository(str(root))
    for commit in repo.walk(repo.references[f"refs/memory/v1/records/shared/{writer}"].target):
        if commit.gpg_signature[0]:
            return str(commit.id)
    raise AssertionError(f"no signed append of {writer}")


def _signed_over(root: Path, ref_name: str, signed: str) -> str:
    """Move ``ref_name`` to its tip made again with the signature of the commit ``signed``
    (another append's) in its ``gpgsig`` header, as anyone can write a commit's bytes."""
    repo = pygit2.Repository(str(root))
    _, payload = repo[repo.references[ref_name].target].gpg_signature
    signature, _ = repo[pygit2.Oid(hex=signed)].gpg_signature
    commit = repo.create_commit_with_signature(payload.decode(), signature.decode(), "gpgsig")
    repo.references.create(ref_name, commit, force=True)
    return str(commit)


def _clone_as(tmp_path: Path, bare: Path, name: str, writer: str, key: Path) -> Path:
    """A clone of the team's remote that writes as ``writer`` (``init --writer``), signing with
    ``key``, synced: it took the writer's history up as its own."""
    root = tmp_path / name
    git(tmp_path, "clone", "-q", str(bare), str(root))
    cli.ok("init", "--writer", writer, cwd=root)
    sign_as(root, key)
    sync(str(root))
    return root


def test_an_append_whose_signature_does_not_verify_is_never_signed_again(
        tmp_path: Path, bobs_proposal: tuple) -> None:
    """Someone with push access appends to alice's writer an acceptance of bob's proposal in her
    name, with a signature of hers taken from another append (it names her key and verifies for
    nobody); alice continues that writer on a second clone, which takes the history up as its
    own; the remote's copy is then forced to part before it. ``init --new-writer`` there must not
    sign the forged acceptance with alice's key: it is left out, named, and counts nowhere."""
    a, b, bare, proposal = bobs_proposal
    writer, ref_name = _writer(a), f"refs/memory/v1/records/shared/{_writer(a)}"
    mal_key, mal_public = keypair(tmp_path / "keys", "mal")
    mal = _clone_as(tmp_path, bare, "mal", writer, mal_key)
    write_policy(mal, {"github:9": EVERYTHING}, {"github:9": mal_public})  # a policy only mal's clone reads
    commit_all(mal, "mine")
    git(mal, "update-ref", "-d", "refs/remotes/origin/HEAD")
    before = _records_tip(mal, writer)
    accepted(Context.open(mal), proposal, by="github:9")
    forged = _signed_over(mal, ref_name, _signed_commit(a, writer))
    git(mal, "push", "-q", "origin", f"{ref_name}:{ref_name}", "+refs/memory/v1/payloads/shared/*:refs/memory/v1/payloads/shared/*")

    alice2 = _clone_as(tmp_path, bare, "alice2", writer, Path(git(a, "config", "user.signingkey").strip()))
    assert forged in git(alice2, "log", "--format=%H", ref_name)  # taken up as its own
    assert _verdict(alice2, proposal["id"]) == ("proposed", False)

    git(mal, "update-ref", ref_name, before)  # the remote's copy forced to part before it
    (mal / ".git" / "gitstore" / f"records-shared-{writer}.tips").unlink()
    git(mal, "push", "-q", "-f", "origin", f"{forge(mal, writer, [_episode(Context.open(mal))])}:{ref_name}")
    grant_all(Context.open(alice2), purposes=("training",))  # alice's own, signed, never pushed
    sync(str(alice2))
    out = cli.ok("init", "--new-writer", cwd=alice2)
    assert f"{forged[:12]} (signed as ssh-ed25519" in out and "does not verify" in out, out
    assert f"{writer}: 1 append(s) (2 record(s)) the remote's history of {writer} parted from, carried over" in out
    new = _writer(alice2)
    repo = pygit2.Repository(str(alice2))
    if f"refs/memory/v1/records/shared/{new}" in repo.references:
        copies = {record for commit in repo.walk(repo.references[f"refs/memory/v1/records/shared/{new}"].target)
                  for record, _, _ in parse_message(commit.message).lines}
        assert not copies & {record for record, _, _ in parse_message(repo[pygit2.Oid(hex=forged)].message).lines}
    stays = sync(str(alice2))
    assert len(stays.stranded) == 1 and forged[:12] in stays.stranded[0], stays.line
    sync(str(b))
    sync(str(a))
    for root in (a, b, alice2):
        assert _verdict(root, proposal["id"]) == ("proposed", False), root
