"""Who may decide, on real clones of one shared remote: with a policy, a decision counts on
every clone when its append is signed by a key the policy lists for the person it names, who
may take that action; without one, each clone counts only its own decisions."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstore.conformance import batch
from gitstore.context import Context
from gitstore.errors import Refused
from gitstore.ops import learning as ops
from gitstore.providers import Batch
from gitstore.providers.git import GitProvider
from gitstore.queries.verify import verify
from gitstore.rules.active import evaluate

from . import cli
from .conftest import git
from .team import EVERYTHING, commit_all, first_clone, keypair, shared_remote, sign_as, sync, team_clone, write_policy
from .world import Thread, grant_all, propose, ref

ALICE, BOB, CAROL = "github:9", "github:10", "github:11"


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A remote with a policy (alice and bob decide; carol may only grant), alice's clone with a
    grant, a review thread and a proposal, and the keys (one the policy does not know)."""
    tmp = tmp_path_factory.mktemp("team")
    keys = {who: keypair(tmp / "keys", who) for who in (ALICE, BOB, CAROL, "stranger")}
    bare = shared_remote(tmp)
    root = first_clone(tmp, bare)
    write_policy(root, {ALICE: EVERYTHING, BOB: EVERYTHING, CAROL: ("grant",)},
                 {who: keys[who][1] for who in (ALICE, BOB, CAROL)})
    policy = commit_all(root, "Who may decide")
    git(root, "push", "-q", "origin", "main")
    sign_as(root, keys[ALICE][0])
    alice = Context.open(root)
    grant_all(alice)
    thread = Thread(alice, 7, "100")
    comment = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    proposal = propose(alice, [ref(comment)])
    sync(alice)
    return {"tmp": tmp, "bare": bare, "keys": keys, "proposal": proposal, "policy": policy}


def _copy(team: dict[str, object], tmp_path: Path) -> tuple[Path, dict[str, tuple[Path, str]]]:
    import shutil

    bare = tmp_path / "remote.git"
    shutil.copytree(team["bare"], bare)  # type: ignore[arg-type]
    return bare, team["keys"]  # type: ignore[return-value]


def _standing(ctx: Context, learning: str) -> tuple[str, bool]:
    status = evaluate(ctx.view(), "instruction")[learning]
    return status.state, status.usable


def test_a_signed_decision_by_an_allowed_reviewer_counts_on_every_clone(team: dict[str, object],
                                                                        tmp_path: Path) -> None:
    bare, keys = _copy(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    bob = team_clone(tmp_path, bare, "bob", keys[BOB][0])
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    ops.accept(bob, proposal["id"], proposal["reviewDigest"], BOB)
    bob, carol = sync(bob, carol)
    assert _standing(carol, proposal["id"]) == ("accepted", True)
    assert _standing(bob, proposal["id"]) == ("accepted", True)
    assert verify(carol.store).ok
    tip = git(bob.workspace.root, "rev-parse", f"refs/memory/v1/records/shared/{bob.workspace.config.writer}")
    shown = git(bob.workspace.root, "-c", f"gpg.ssh.allowedSignersFile={bob.workspace.root / '.gitstore/allowed_signers'}",
                "log", "-1", "--show-signature", tip.strip())
    assert f'Good "git" signature for {BOB}' in shown  # git itself agrees


@pytest.mark.parametrize("how", ["unsigned", "unknown-key", "not-allowed", "signed-as-another"])
def test_the_same_decision_without_authority_is_never_used(team: dict[str, object], tmp_path: Path,
                                                            how: str) -> None:
    bare, keys = _copy(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    signing = {"unsigned": None, "unknown-key": keys["stranger"][0], "not-allowed": keys[CAROL][0],
               "signed-as-another": keys[BOB][0]}[how]
    by = {"not-allowed": CAROL, "signed-as-another": ALICE}.get(how, BOB)
    mallory = team_clone(tmp_path, bare, "mallory", signing)
    decision = _decision(mallory, proposal, by)
    provider = GitProvider(mallory.workspace.root, mallory.workspace.config.writer)
    provider.append(Batch("shared", batch(*decision).entries, authority=signing is not None))
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    carol, = sync(*[Context.open(mallory.workspace.root)], carol)[1:]
    assert _standing(carol, proposal["id"]) == ("proposed", False)
    found = [str(p) for p in verify(carol.store).problems]
    assert any(decision[0]["digest"] in p and "carries no authority" in p for p in found), found
    expected = {"unsigned": "not signed", "unknown-key": "does not list", "not-allowed": f"does not let {CAROL} accept",
                "signed-as-another": f"signed by {BOB}"}[how]
    assert any(expected in p for p in found), found


def _decision(ctx: Context, proposal: dict, by: str) -> list[dict]:
    """An acceptance of ``proposal`` with its audit entry, as ``gitstore accept`` writes them."""
    record = ops._next(proposal)
    record["state"] = "accepted"
    record["decision"] = {"by": by, "reviewDigest": proposal["reviewDigest"], "edited": False, "reason": None}
    from gitstore.records.contracts import seal

    record = seal(record)
    return [record, ctx.audit("accept", by, [record["id"]], [record])]


def test_the_store_refuses_to_write_a_decision_the_policy_would_not_count(team: dict[str, object],
                                                                          tmp_path: Path) -> None:
    bare, keys = _copy(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    with pytest.raises(Refused, match=f"does not let {CAROL} accept"):
        ops.accept(carol, proposal["id"], proposal["reviewDigest"], CAROL)
    with pytest.raises(Refused, match=f"signs as {CAROL}"):
        ops.accept(carol, proposal["id"], proposal["reviewDigest"], BOB)
    unsigned = team_clone(tmp_path, bare, "dave")
    with pytest.raises(Refused, match="signed commits"):
        ops.accept(unsigned, proposal["id"], proposal["reviewDigest"], BOB)
    assert cli.gitstore("accept", proposal["id"], "--review-digest", proposal["reviewDigest"], "--by", BOB,
                        cwd=unsigned.workspace.root).returncode == 1
