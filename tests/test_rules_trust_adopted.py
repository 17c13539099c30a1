"""A team adopting a policy after trying gitstore alone: the decisions and grants made before
it (unsigned, in single-user mode) stop counting, and ``verify`` and the ``gitstore-records``
pre-push gate name them as not counted without failing; real damage still fails both."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gitstore.context import Context
from gitstore.rules.active import evaluate

from . import cli
from .conftest import git
from .team import commit_all, first_clone, keypair, shared_remote, sign_as, sync, team_clone
from .world import Thread, accepted, grant_all, propose, ref

ALICE = "github:9"


def _verify(root: Path) -> tuple[int, dict]:
    done = subprocess.run([sys.executable, "-m", "gitstore", "verify", "--json"], cwd=root,
                          capture_output=True, text=True)
    return done.returncode, json.loads(done.stdout)


def _records_gate(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from gitstore.promote.gates.records import main; "
                           "raise SystemExit(main([]))"], cwd=root, capture_output=True, text=True)


def _tried_alone_then_adopted(tmp: Path) -> tuple[Context, dict]:
    """Alice grants, proposes and accepts alone (unsigned: single-user), syncs, then starts a
    policy naming her signing key, commits it on main and pushes it."""
    bare = shared_remote(tmp)
    root = first_clone(tmp, bare)
    alice = Context.open(root)
    grant_all(alice)
    thread = Thread(alice, 7, "100")
    comment = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    proposal = propose(alice, [ref(comment)])
    accepted(alice, proposal)
    alice, = sync(alice)
    key, _ = keypair(tmp / "keys", ALICE)
    sign_as(root, key)
    said = cli.ok("policy", "init", "--by", ALICE, cwd=root)
    assert "unsigned" in said and "make them again, signed" in said, said
    commit_all(root, "Who may decide")
    git(root, "push", "-q", "origin", "main")
    return Context.open(root), proposal


def test_records_made_before_the_policy_are_named_not_counted_without_failing(tmp_path: Path) -> None:
    alice, proposal = _tried_alone_then_adopted(tmp_path)
    assert evaluate(alice.view(), "instruction")[proposal["id"]].state == "proposed"  # they stop counting
    bob = team_clone(tmp_path, tmp_path / "remote.git", "bob")  # a teammate joining after
    for root in (alice.workspace.root, bob.workspace.root):
        code, report = _verify(root)
        assert code == 0 and report["ok"] and report["problems"] == [], report
        notices = [n["message"] for n in report["notices"]]
        assert any("not signed" in n and "made again" in n for n in notices), notices
        assert any(n["where"].startswith("grant ") for n in report["notices"]), notices
        gate = _records_gate(root)
        assert gate.returncode == 0, gate.stdout + gate.stderr
    shown = subprocess.run([sys.executable, "-m", "gitstore", "verify"], cwd=alice.workspace.root,
                           capture_output=True, text=True)
    assert shown.returncode == 0 and "not counted:" in shown.stderr and "damaged" not in shown.stderr, shown.stderr


def test_real_damage_still_fails_verify_and_the_records_gate(tmp_path: Path) -> None:
    alice, _ = _tried_alone_then_adopted(tmp_path)
    root = alice.workspace.root
    ref = f"refs/memory/v1/records/shared/{alice.workspace.config.writer}"
    git(root, "update-ref", ref, git(root, "rev-parse", f"{ref}~1").strip())  # an acknowledged append gone
    code, _ = _verify(root)
    assert code == 3
    assert _records_gate(root).returncode != 0


@pytest.mark.parametrize("adopted", ["under another name", "with a key valid from tomorrow"])
def test_records_git_signed_alone_are_named_not_counted_without_failing(tmp_path: Path, adopted: str) -> None:
    """Someone whose git signs every commit (commit.gpgsign with an SSH key) tries gitstore
    alone: its appends are signed too, name no policy revision, and its decisions name them as
    git's user.email has them. The policy then names them by their GitHub id, with the same
    key, or lists their key from a later day. Those appends were made outside any policy and
    claim nothing under one: they are not counted, as unsigned ones are, and verify and the
    records gate pass, on their clone and on a teammate's; they never read as forgeries."""
    from datetime import datetime, timedelta, timezone

    from gitstore.ops import consent

    bare = shared_remote(tmp_path)
    root = first_clone(tmp_path, bare)
    key, _ = keypair(tmp_path / "keys", ALICE)
    sign_as(root, key)
    git(root, "config", "commit.gpgsign", "true")
    alone = "git:alice@example.com" if adopted == "under another name" else ALICE
    alice = Context.open(root)
    consent.grant(alice, alone, ["review", "instruction"], ["review-thread"], "2026-01-01T00:00:00.000000Z", None, None)
    thread = Thread(alice, 7, "100")
    comment = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    proposal = propose(alice, [ref(comment)])
    accepted(alice, proposal, by=alone)
    alice, = sync(alice)
    cli.ok("policy", "init", "--by", ALICE, cwd=root)
    if adopted != "under another name":
        signers = root / ".gitstore" / "allowed_signers"
        tomorrow = (datetime.now(timezone.utc) + timedelta(days=1)).strftime("%Y%m%d")
        signers.write_text(signers.read_text().replace(f'{ALICE} namespaces="git"',
                                                       f'{ALICE} namespaces="git",valid-after="{tomorrow}"'))
    commit_all(root, "Who may decide")
    git(root, "push", "-q", "origin", "main")
    alice = Context.open(root)
    assert evaluate(alice.view(), "instruction")[proposal["id"]].state == "proposed"
    bob = team_clone(tmp_path, bare, "bob")
    for there in (alice.workspace.root, bob.workspace.root):
        code, report = _verify(there)
        assert code == 0 and report["problems"] == [], report
        assert any("names no policy revision" in n["message"] for n in report["notices"]), report["notices"]
        gate = _records_gate(there)
        assert gate.returncode == 0, gate.stdout + gate.stderr
