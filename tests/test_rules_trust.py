"""Who may decide, on real clones of one shared remote: with a policy, a decision counts on
every clone when its append is signed by a key the policy lists for the person it names, who
may take that action; without one, each clone counts only its own decisions."""

from __future__ import annotations

import gc
import json
import subprocess
from pathlib import Path

import pygit2
import pytest

from gitstore.conformance import batch
from gitstore.context import Context
from gitstore.errors import Refused
from gitstore.ops import learning as ops
from gitstore.providers import Batch
from gitstore.providers.git import GitProvider
from gitstore.queries.verify import verify
from gitstore.records.authority import ACTIONS
from gitstore.rules.active import evaluate

from . import cli
from .advice import commands
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
    report = verify(carol.store)
    forged = how == "signed-as-another"  # a signature that proves someone else: a forgery fails verify
    found = [str(p) for p in (report.problems if forged else report.notices)]
    assert report.ok is not forged, report.problems
    assert any(decision[0]["digest"] in p and "carries no authority" in p for p in found), found
    expected = {"unsigned": "not signed", "unknown-key": "does not list", "not-allowed": f"does not let {CAROL} accept",
                "signed-as-another": f"signed by {BOB}"}[how]
    assert any(expected in p for p in found), found
    import json

    trail = json.loads(cli.ok("audit", "--json", cwd=carol.workspace.root))
    [entry] = [e for e in trail if decision[0]["digest"] in e["records"]]
    assert expected in entry["notUsed"], "the trail never shows a forged acceptance as one that counts"
    assert "[NOT USED: " in cli.ok("audit", cwd=carol.workspace.root)
    assert all("notUsed" not in e for e in trail if e is not entry)


def _copied_first(bare: Path, tmp_path: Path, records: list[dict]) -> None:
    """What anyone who can push can do: store copies of ``records`` (another's decision and its
    audit entry) in an unsigned append of their own writer, claiming clock 1 so that store
    order reads them there first, and push it."""
    from .team import forge

    copier = tmp_path / "copier"
    git(tmp_path, "init", "-q", str(copier))
    forge(copier, "wcopier", records, clock=1)
    git(copier, "push", "-q", str(bare), "refs/memory/v1/records/shared/wcopier")


def _appended(ctx: Context, learning: str) -> list[dict]:
    """The last version of ``learning`` and the audit entry written with it."""
    view = ctx.view()
    last = view.learnings[learning][-1]
    audits = [i.record for i in view.items if i.kind == "audit" and i.stored.append == last.stored.append]
    return [last.record, *audits]


def test_a_copy_of_a_signed_decision_never_takes_its_force_away(team: dict[str, object], tmp_path: Path) -> None:
    """Bob's signed acceptance, then his signed retirement, each copied into an unsigned append
    placed first in store order: read from the copy, the retirement carried no authority and the
    learning came back into force; the signed append still holds it, and that is where it counts."""
    bare, keys = _copy(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    bob = team_clone(tmp_path, bare, "bob", keys[BOB][0])
    ops.accept(bob, proposal["id"], proposal["reviewDigest"], BOB)
    accepted = _appended(bob, proposal["id"])
    ops.retire(bob, proposal["id"], BOB, "Causes outages.")
    retired = _appended(bob, proposal["id"])
    bob, = sync(bob)
    _copied_first(bare, tmp_path, accepted + retired)
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    bob, carol = sync(bob, carol)
    for ctx in (bob, carol):
        assert _standing(ctx, proposal["id"]) == ("retired", False)
        assert verify(ctx.store).ok, verify(ctx.store).problems


def _copied_with_git(bare: Path, tmp_path: Path, versions: list[dict], clock: int) -> None:
    """What anyone who can push can do with git alone, holding no key: a commit of a writer of
    their own storing the exact bytes of learning ``versions`` (the blobs other writers
    stored, so the same digests), claiming ``clock`` and naming nothing it had seen, pushed."""
    import subprocess

    from gitstore.providers._names import record_path

    root = tmp_path / "copier"
    git(tmp_path, "clone", "-q", str(bare), str(root))
    git(root, "fetch", "-q", "origin", "refs/memory/v1/records/shared/*:refs/fetched/*")
    tips = git(root, "for-each-ref", "--format=%(refname)", "refs/fetched/").split()

    def run(*args: str, stdin: str = "", check: bool = True) -> str:
        return subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, text=True,
                              check=check).stdout.strip()

    def tree(folder: dict) -> str:
        return run("mktree", stdin="".join(
            f"100644 blob {entry}\t{name}\n" if isinstance(entry, str) else f"040000 tree {tree(entry)}\t{name}\n"
            for name, entry in folder.items()))

    files: dict = {}
    for version in versions:
        path = record_path("learning", version["digest"])
        blob = next(found for found in (run("rev-parse", "-q", "--verify", f"{tip}:{path}", check=False)
                                        for tip in tips) if found)
        *folders, name = path.split("/")
        place = files
        for folder in folders:
            place = place.setdefault(folder, {})
        place[name] = blob
    lines = "".join(f"{v['digest']} learning {v['id']}\n" for v in versions)
    count = f"{len(versions)} record{'s' if len(versions) != 1 else ''}"
    message = (f"gitstore: append {count}\n\nGitstore-Format: 1\nClock: {clock}\nWriter: mallory\n"
               f"Namespace: shared\n\n{lines}")
    commit = run("commit-tree", tree(files), stdin=message)
    git(root, "push", "-q", "origin", f"{commit}:refs/memory/v1/records/shared/mallory")


@pytest.mark.parametrize("copied", ["proposal", "proposal-last", "revision", "proposal-and-revision"])
def test_a_copy_of_the_version_a_decision_follows_never_takes_its_force_away(team: dict[str, object],
                                                                             tmp_path: Path, copied: str) -> None:
    """Someone with push access and no key copies the version bob accepted (or the proposal
    before it) into a commit of their own claiming ``Clock: 1``, so store order reads the
    version there, in an append bob's acceptance never saw. A record is its digest: having
    seen any append holding a version is having seen it, so the acceptance still follows it,
    on every clone. A copy placed last in store order changes nothing either."""
    import json

    bare, keys = _copy(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    bob = team_clone(tmp_path, bare, "bob", keys[BOB][0])
    accepted = proposal
    if "revision" in copied:
        accepted = ops.revise(bob, proposal["id"], proposal["evidence"], [], BOB, "Seen on three services since.")
    ops.accept(bob, proposal["id"], accepted["reviewDigest"], BOB)
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    bob, carol = sync(bob, carol)
    assert _standing(carol, proposal["id"]) == ("accepted", True)
    versions = {"proposal": [proposal], "proposal-last": [proposal], "revision": [accepted],
                "proposal-and-revision": [proposal, accepted]}[copied]
    _copied_with_git(bare, tmp_path, versions, 10_000 if copied == "proposal-last" else 1)
    bob, carol = sync(bob, carol)
    for ctx in (bob, carol):
        assert _standing(ctx, proposal["id"]) == ("accepted", True)
        assert verify(ctx.store).ok, verify(ctx.store).problems
        [row] = [r for r in json.loads(cli.ok("learnings", "--json", cwd=ctx.workspace.root))
                 if r["id"] == proposal["id"]]
        assert (row["state"], row["usable"]) == ("accepted", True)


def test_a_later_copy_of_a_revision_that_had_seen_nothing_never_makes_an_acceptance_stale(
        team: dict[str, object], tmp_path: Path) -> None:
    """Someone with push access and no key stores a revision claiming ``Clock: 1`` and naming
    nothing it had seen: it applies to nothing. Bob fetches it and accepts the proposal, his
    append having seen the revision's. A copy of the revision stored later, in an append that
    had seen the proposal, is where the revision counts as made, an append bob's acceptance
    never saw: the acceptance was not made knowing a revision, and still counts."""
    from gitstore.records.contracts import seal

    from .team import forge

    bare, keys = _copy(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    mallory = team_clone(tmp_path, bare, "mallory")
    revised = ops._next(proposal)
    revised["rationale"] = "Revised by someone who had seen nothing."
    revised = seal(revised)
    forge(mallory.workspace.root, "wblind", [revised], clock=1, blind=True)
    git(mallory.workspace.root, "push", "-q", "origin", "refs/memory/v1/records/shared/wblind")
    bob = team_clone(tmp_path, bare, "bob", keys[BOB][0])
    ops.accept(bob, proposal["id"], proposal["reviewDigest"], BOB)
    bob, = sync(bob)
    first = next(i for i in bob.view().learnings[proposal["id"]] if i.digest == proposal["digest"]).stored
    copier = tmp_path / "copier"
    git(tmp_path, "init", "-q", str(copier))
    forge(copier, "wcopier", [revised], clock=10_000, seen=((first.writer, first.append),))
    git(copier, "push", "-q", str(bare), "refs/memory/v1/records/shared/wcopier")
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    bob, carol = sync(bob, carol)
    for ctx in (bob, carol):
        assert _standing(ctx, proposal["id"]) == ("accepted", True)


def test_without_a_policy_a_fetched_copy_never_takes_a_clones_own_decision_away(tmp_path: Path) -> None:
    bare = shared_remote(tmp_path)
    alice = Context.open(first_clone(tmp_path, bare))
    grant_all(alice)
    thread = Thread(alice, 7, "100")
    comment = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    proposal = propose(alice, [ref(comment)])
    ops.accept(alice, proposal["id"], proposal["reviewDigest"], ALICE)
    assert _standing(alice, proposal["id"]) == ("accepted", True)
    alice, = sync(alice)
    _copied_first(bare, tmp_path, _appended(alice, proposal["id"]))
    alice, = sync(alice)
    assert _standing(alice, proposal["id"]) == ("accepted", True), "its own acceptance, wherever else it is stored"


def _bob_accepted_and_mallory(team: dict[str, object], tmp_path: Path) -> tuple[Path, dict, dict, Context, dict, Context]:
    """The team's remote with bob's signed acceptance of the proposal synced, and mallory's clone,
    which holds no key: (remote, keys, proposal, bob, the acceptance, mallory)."""
    bare, keys = _copy(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    bob = team_clone(tmp_path, bare, "bob", keys[BOB][0])
    accepted = ops.accept(bob, proposal["id"], proposal["reviewDigest"], BOB)
    bob, = sync(bob)
    return bare, keys, proposal, bob, accepted, team_clone(tmp_path, bare, "mallory")


def test_a_version_no_decision_made_never_takes_a_learning_out_of_force(team: dict[str, object],
                                                                         tmp_path: Path) -> None:
    """Anyone who can push can write a learning version that needs no authority. One that is no
    lifecycle step (proposed again after an acceptance) is ignored and named, not a history that
    breaks a rule: that would take the learning out of force on every clone for good, with no
    command to repair it. A revision made without seeing an acceptance does not contest it."""
    from gitstore.records.contracts import seal

    from .team import forge

    bare, keys, proposal, bob, accepted, mallory = _bob_accepted_and_mallory(team, tmp_path)
    again = ops._next(accepted)
    again["state"] = "proposed"
    again = seal(again)
    revised = ops._next(proposal)
    revised["rationale"] = "Revised by someone who never saw the acceptance."
    revised = seal(revised)
    first = next(i for i in mallory.view().learnings[proposal["id"]] if i.digest == proposal["digest"])
    forge(mallory.workspace.root, mallory.workspace.config.writer, [again])
    forge(mallory.workspace.root, mallory.workspace.config.writer, [revised],
          seen=((first.stored.writer, first.stored.append),))
    git(mallory.workspace.root, "push", "-q", "origin")
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    bob, carol = sync(bob, carol)
    for ctx in (bob, carol):
        assert _standing(ctx, proposal["id"]) == ("accepted", True)
        found = [str(p) for p in verify(ctx.store).problems]
        assert any(again["digest"] in p and "accepted -> proposed" in p and "breaks nothing" in p for p in found), found
    shown = cli.ok("history", proposal["id"], cwd=carol.workspace.root)
    assert f"ignored (no lifecycle step, and no decision made it): version 3 ({again['digest']})" in shown, shown
    ops.retire(bob, proposal["id"], BOB, "Superseded by the new client.")
    assert _standing(bob, proposal["id"]) == ("retired", False), "the history is whole: people go on deciding"


def _carol_may(team: dict[str, object], tmp_path: Path, action: str) -> tuple[Path, dict, dict]:
    """The team's remote, its policy changed on the default branch to let carol take only
    ``action``: (remote, keys, proposal)."""
    bare, keys = _copy(team, tmp_path)
    root = tmp_path / "alice"
    git(tmp_path, "clone", "-q", str(bare), str(root))
    write_policy(root, {ALICE: EVERYTHING, BOB: EVERYTHING, CAROL: (action,)},
                 {who: keys[who][1] for who in (ALICE, BOB, CAROL)})
    commit_all(root, "Carol may " + action)
    git(root, "push", "-q", "origin", "main")
    return bare, keys, team["proposal"]  # type: ignore[return-value]


def _step_after(accepted: dict, action: str, by: str) -> dict:
    """A signed decision following ``accepted`` that no lifecycle step allows, needing only ``action``."""
    from gitstore.records.contracts import seal
    from gitstore.records.identity import AUTO_SAFE

    after = ops._next(accepted)
    if action == "reject":
        after["state"] = "rejected"
    elif action == "auto-accept":
        after["state"], by = "auto-accepted", AUTO_SAFE
    else:  # adds supersedes, as a supersede may, and changes the text, as it may not
        after["state"], after["supersedes"] = "accepted", ["lrn_" + "7" * 32]
        after["content"] = {**after["content"], "text": "Never use jitter."}
    after["decision"] = {"by": by, "reviewDigest": accepted["reviewDigest"], "edited": False, "reason": "no"}
    return seal(after)


@pytest.mark.parametrize("action", ["reject", "auto-accept", "supersede"])
def test_a_signed_decision_that_is_no_lifecycle_step_never_takes_a_learning_out_of_force(
        team: dict[str, object], tmp_path: Path, action: str) -> None:
    """Someone the policy lets take one action signs a step from another person's acceptance
    that no rule allows (accepted -> rejected, a text change beside an added supersedes). It is
    ignored and named, as a version no decision made is: were it a history that breaks a rule,
    anyone allowed one action could take any learning out of force for good."""
    from .team import forge

    bare, keys, proposal = _carol_may(team, tmp_path, action)
    bob = team_clone(tmp_path, bare, "bob", keys[BOB][0])
    accepted = ops.accept(bob, proposal["id"], proposal["reviewDigest"], BOB)
    bob, = sync(bob)
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    step = _step_after(accepted, action, CAROL)
    who = step["decision"]["by"]
    audit = carol.audit(ACTIONS[step["state"]], who, [proposal["id"]], [step])
    forge(carol.workspace.root, carol.workspace.config.writer, [step, audit],
          key=keys[CAROL][0], policy=carol.store.trust_mode().revision)
    bob, carol = sync(bob, carol)
    for ctx in (bob, carol):
        assert _standing(ctx, proposal["id"]) == ("accepted", True)
        found = [str(p) for p in verify(ctx.store).problems]
        assert any(step["digest"] in p and "never used" in p for p in found), found
    ops.retire(bob, proposal["id"], BOB, "Superseded by the new client.")
    assert _standing(bob, proposal["id"]) == ("retired", False), "the history is whole: people go on deciding"


def test_a_signed_auto_safe_step_on_a_shared_learning_is_never_used(team: dict[str, object],
                                                                    tmp_path: Path) -> None:
    """The auto-safe gate steps only on a learning whose evidence is a session of the clone
    running it, kept on that machine. Someone the policy lets run the gate who signs its two
    steps on a shared proposal (of any text: the gate's checks ran nowhere) puts nothing in
    force: the steps are ignored on every clone and named, and the store refuses to write one."""
    from gitstore.errors import NotAuthorised
    from gitstore.records.contracts import seal
    from gitstore.records.identity import AUTO_SAFE

    from .team import forge

    bare, keys, proposal = _carol_may(team, tmp_path, "auto-accept")
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    steps, current = [], proposal
    for state in ("auto-accepted", "auto-active"):
        step = ops._next(current)
        step["state"] = state
        step["decision"] = {"by": AUTO_SAFE, "reviewDigest": current["reviewDigest"], "edited": False,
                            "reason": "auto-safe: low-risk kind with verified-command evidence"}
        current = seal(step)
        steps.append(current)
    with pytest.raises(NotAuthorised, match="auto-safe gate"):
        ops.auto_accept(carol, proposal)
    forge(carol.workspace.root, carol.workspace.config.writer,
          [*steps, carol.audit("auto-accept", AUTO_SAFE, [proposal["id"]], steps)],
          key=keys[CAROL][0], policy=carol.store.trust_mode().revision)
    bob = team_clone(tmp_path, bare, "bob", keys[BOB][0])
    carol, bob = sync(carol, bob)
    for ctx in (bob, carol):
        assert _standing(ctx, proposal["id"]) == ("proposed", False)
        found = [str(p) for p in verify(ctx.store).problems]
        assert all(any(s["digest"] in p and "auto-safe gate" in p for p in found) for s in steps), found


def test_a_sibling_no_decision_made_never_orphans_a_signed_acceptance(team: dict[str, object],
                                                                      tmp_path: Path) -> None:
    """A proposal again, its words unchanged (the same id), its rationale not, with a smaller
    digest, stored blind: version 1 twice agree, and the smaller digest won, orphaning bob's
    signed acceptance, as often as he accepted again."""
    from gitstore.records.contracts import seal

    from .team import forge

    bare, keys, proposal, bob, accepted, mallory = _bob_accepted_and_mallory(team, tmp_path)
    for n in range(500):
        twin = {k: v for k, v in proposal.items() if k != "digest"}
        twin["rationale"] = f"Proposed by hand ({n})."
        twin = seal(twin)
        if twin["digest"] < proposal["digest"]:
            break
    assert twin["id"] == proposal["id"] and twin["digest"] < proposal["digest"]
    forge(mallory.workspace.root, mallory.workspace.config.writer, [twin], blind=True)
    git(mallory.workspace.root, "push", "-q", "origin")
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    bob, carol = sync(bob, carol)
    for ctx in (bob, carol):
        assert _standing(ctx, proposal["id"]) == ("accepted", True)


def test_an_audit_entry_standing_alone_is_never_shown_as_counting(team: dict[str, object], tmp_path: Path) -> None:
    """An entry is a claim: one naming a record that does not exist, or a real decision with
    another person and action, stored on its own by someone with no key."""
    import json

    bare, keys, proposal, bob, accepted, mallory = _bob_accepted_and_mallory(team, tmp_path)
    forged = [mallory.audit("accept", ALICE, [proposal["id"]], [{"digest": "sha256:" + "ab" * 32}]),
              mallory.audit("retire", ALICE, [proposal["id"]], [accepted])]
    provider = GitProvider(mallory.workspace.root, mallory.workspace.config.writer)
    provider.append(Batch("shared", batch(*forged).entries))
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    carol, = sync(Context.open(mallory.workspace.root), carol)[1:]
    trail = {e["digest"]: e for e in json.loads(cli.ok("audit", "--json", cwd=carol.workspace.root))}
    assert all("notUsed" in trail[f["digest"]] for f in forged), [trail[f["digest"]] for f in forged]
    [real] = [e for e in trail.values() if e["action"] == "accept" and e["by"] == BOB]
    assert "notUsed" not in real, "bob's own acceptance counts"


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


def _accepted_by_bob(team: dict[str, object], tmp_path: Path) -> tuple[Path, Context, Context]:
    bare, keys = _copy(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    bob = team_clone(tmp_path, bare, "bob", keys[BOB][0])
    ops.accept(bob, proposal["id"], proposal["reviewDigest"], BOB)
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    bob, carol = sync(bob, carol)
    assert _standing(carol, proposal["id"]) == ("accepted", True)
    return bare, bob, carol


def _change_policy(tmp_path: Path, bare: Path, edit: object) -> None:
    """A maintainer changes the policy on main (reviewed and merged, as any code)."""
    keys: dict = {}
    root = team_clone(tmp_path, bare, "maintainer").workspace.root
    signers = (root / ".gitstore" / "allowed_signers").read_text()
    (root / ".gitstore" / "allowed_signers").write_text(edit(signers))  # type: ignore[operator]
    commit_all(root, "Change who may decide")
    git(root, "push", "-q", "origin", "main")
    assert not keys


def test_removing_a_key_from_the_policy_withdraws_what_it_signed(team: dict[str, object], tmp_path: Path) -> None:
    bare, bob, carol = _accepted_by_bob(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    _change_policy(tmp_path, bare, lambda text: "".join(l + "\n" for l in text.splitlines() if not l.startswith(BOB)))
    carol, = sync(carol)
    assert _standing(carol, proposal["id"]) == ("proposed", False)
    report = verify(carol.store)
    assert report.ok and any("no longer lists" in str(p) for p in report.notices), report.problems


def test_a_key_listed_for_two_people_signs_for_neither(team: dict[str, object], tmp_path: Path) -> None:
    """A policy edited by hand (or pushed by whoever may merge) that lists bob's key for carol
    too: a signature by it cannot say which of them decided, so it counts for neither, what it
    signed before stops counting (a problem verify names), this clone cannot decide with it,
    and doctor names the key."""
    from gitstore.queries.trust import trust

    bare, bob, carol = _accepted_by_bob(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    bob_line = next(l for l in (bob.workspace.root / ".gitstore" / "allowed_signers").read_text().splitlines()
                    if l.startswith(BOB))
    _change_policy(tmp_path, bare, lambda text: text + bob_line.replace(BOB, CAROL, 1) + "\n")
    carol, bob = sync(carol, bob)
    assert _standing(carol, proposal["id"]) == ("proposed", False)
    report = verify(carol.store)
    assert not report.ok and any("more than one person" in str(p) for p in report.problems), report.problems
    git(bob.workspace.root, "pull", "-q", "--ff-only", "origin", "main")
    found = trust(bob.workspace)
    assert found.signs_as == {} and "more than one person" in found.signing
    assert [k["principals"] for k in found.unreadable] == [[BOB, CAROL]]
    refused = cli.fails(1, "grant", "--purpose", "training", "--by", CAROL, cwd=bob.workspace.root)
    assert "more than one person" in refused
    doctor = cli.gitstore("doctor", cwd=bob.workspace.root).stdout
    assert f"lists a key for {BOB}, {CAROL} that signs for nobody" in doctor, doctor


def test_policy_add_refuses_a_key_listed_for_someone_else(tmp_path: Path) -> None:
    """One key for two people would let its holder decide as either: `policy add` refuses it,
    naming the key as ssh-keygen -l does and whom it is listed for, and writes nothing."""
    root = first_clone(tmp_path, shared_remote(tmp_path))
    bob_key, _ = keypair(tmp_path / "keys", BOB)
    pub = str(bob_key.with_name(bob_key.name + ".pub"))
    cli.ok("policy", "init", "--by", BOB, "--key", pub, cwd=root)
    before = [(root / ".gitstore" / name).read_bytes() for name in ("policy.json", "allowed_signers")]
    refused = cli.fails(1, "policy", "add", CAROL, "--key", pub, cwd=root)
    printed = subprocess.run(["ssh-keygen", "-lf", pub], capture_output=True, text=True, check=True).stdout.split()[1]
    assert f"the key {printed} is already listed for {BOB}" in refused and refused.count("\n") == 1, refused
    assert [(root / ".gitstore" / name).read_bytes() for name in ("policy.json", "allowed_signers")] == before
    cli.ok("policy", "add", BOB, "--key", pub, "--may", "accept", cwd=root)  # the same person again: fine


@pytest.mark.parametrize("named", ['github:"10"', f"{BOB},{BOB}", "github:1*"])
def test_a_person_allowed_signers_would_read_as_someone_else_is_refused(tmp_path: Path, named: str) -> None:
    """policy.json names people by their ids, allowed_signers by principals, which ssh-keygen
    reads otherwise where an id holds a double quote (left out), a comma (between two people)
    or a pattern character. `policy add 'github:"10"' --may accept` would list a new key for
    github:10, who may do everything, while `policy show` says 'github:"10"' may accept and has
    no key. Such an id is refused in policy.json, naming it, and `policy add` writes nothing."""
    from gitstore.records.policy import PolicyError, parse_people

    root = first_clone(tmp_path, shared_remote(tmp_path))
    bob_key, _ = keypair(tmp_path / "keys", BOB)
    other_key, _ = keypair(tmp_path / "keys", "mallory")
    cli.ok("policy", "init", "--by", BOB, "--key", str(bob_key.with_name(bob_key.name + ".pub")), cwd=root)
    before = [(root / ".gitstore" / name).read_bytes() for name in ("policy.json", "allowed_signers")]
    refused = cli.fails(1, "policy", "add", named, "--may", "accept",
                        "--key", str(other_key.with_name(other_key.name + ".pub")), cwd=root)
    assert f"{named!r} cannot be named in .gitstore/allowed_signers" in refused, refused
    assert [(root / ".gitstore" / name).read_bytes() for name in ("policy.json", "allowed_signers")] == before
    text = '{"schema": "gitstore.policy/v1", "people": {%s: ["accept"]}}' % json.dumps(named)
    with pytest.raises(PolicyError, match=r"^\.gitstore/policy\.json: .* cannot be named in"):
        parse_people(text.encode())


@pytest.mark.parametrize("listed", ["retired", "named in a comment"])
def test_policy_add_lists_a_key_that_does_not_sign_for_the_person_now(tmp_path: Path, listed: str) -> None:
    """`policy add` lists a person's key unless a line already lets it sign for them now: a line
    kept with a passed valid-before (the key retired), or another key's line whose comment holds
    this key's text, is no such line. The person can then decide with it, as `policy add` said."""
    from datetime import datetime, timezone

    from gitstore.records.policy import parse_signers, Policy

    root = first_clone(tmp_path, shared_remote(tmp_path))
    bob_key, bob_public = keypair(tmp_path / "keys", BOB)
    old_key, _ = keypair(tmp_path / "keys", "old")
    pub = str(bob_key.with_name(bob_key.name + ".pub"))
    cli.ok("policy", "init", "--by", BOB, "--key", pub if listed == "retired" else str(old_key) + ".pub", cwd=root)
    signers = root / ".gitstore" / "allowed_signers"
    if listed == "retired":
        signers.write_text(signers.read_text().replace(f'{BOB} namespaces="git"',
                                                       f'{BOB} namespaces="git",valid-before="20200101"'))
    else:
        signers.write_text(signers.read_text().rstrip("\n") + f" was {bob_public}\n")
    cli.ok("policy", "add", BOB, "--key", pub, cwd=root)
    now = datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S")
    assert Policy({}, parse_signers(signers.read_bytes())).valid_for(BOB, bob_public, now), signers.read_text()


def test_policy_add_refuses_an_allowed_signers_file_that_is_no_utf8_in_one_line(tmp_path: Path) -> None:
    """A comment saved in Latin-1 (a French team's "Cl\u00e9s"): the file is named, in one line."""
    root = first_clone(tmp_path, shared_remote(tmp_path))
    bob_key, _ = keypair(tmp_path / "keys", BOB)
    pub = str(bob_key.with_name(bob_key.name + ".pub"))
    cli.ok("policy", "init", "--by", BOB, "--key", pub, cwd=root)
    signers = root / ".gitstore" / "allowed_signers"
    signers.write_bytes(signers.read_bytes() + "# Cl\u00e9s\n".encode("latin-1"))
    refused = cli.fails(1, "policy", "add", CAROL, "--key", pub, cwd=root)
    assert ".gitstore/allowed_signers: not UTF-8" in refused, refused


def _rsa_written_two_ways(folder: Path) -> tuple[Path, str, str]:
    """A new RSA key made by ssh-keygen: its private key file, its public key as ssh-keygen
    wrote it, and the same key with two zero bytes before its exponent (OpenSSH skips them when
    it reads a key: one key, one fingerprint)."""
    import base64

    folder.mkdir(parents=True, exist_ok=True)
    private = folder / "rsa"
    subprocess.run(["ssh-keygen", "-q", "-t", "rsa", "-b", "2048", "-N", "", "-C", "rsa", "-f", str(private)],
                   check=True)
    kind, text = private.with_name("rsa.pub").read_text().split()[:2]
    blob = base64.b64decode(text)
    size = int.from_bytes(blob[11:15], "big")  # the exponent, after the type name's 4 + 7 bytes
    padded = blob[:11] + (size + 2).to_bytes(4, "big") + b"\0\0" + blob[15:]
    return private, f"{kind} {text}", f"{kind} {base64.b64encode(padded).decode()}"


def _fingerprint_by_ssh_keygen(public: str, folder: Path) -> str:
    file = folder / "fingerprinted.pub"
    file.write_text(public + " someone\n")
    return subprocess.run(["ssh-keygen", "-lf", str(file)], capture_output=True, text=True, check=True).stdout.split()[1]


def test_policy_add_refuses_a_key_listed_for_someone_else_written_another_way(tmp_path: Path) -> None:
    """The same RSA key with zero bytes before its exponent is the same key to ssh-keygen (a
    signature by it verifies for either line): `policy add` refuses it for another person,
    naming the fingerprint ssh-keygen gives both, and writes nothing."""
    root = first_clone(tmp_path, shared_remote(tmp_path))
    _, public, padded = _rsa_written_two_ways(tmp_path / "keys")
    (tmp_path / "bob.pub").write_text(public + " bob\n")
    (tmp_path / "again.pub").write_text(padded + " carol\n")
    printed = _fingerprint_by_ssh_keygen(padded, tmp_path)
    assert printed == _fingerprint_by_ssh_keygen(public, tmp_path)
    cli.ok("policy", "init", "--by", BOB, "--key", str(tmp_path / "bob.pub"), cwd=root)
    before = [(root / ".gitstore" / name).read_bytes() for name in ("policy.json", "allowed_signers")]
    refused = cli.fails(1, "policy", "add", CAROL, "--key", str(tmp_path / "again.pub"), cwd=root)
    assert f"the key {printed} is already listed for {BOB}" in refused, refused
    assert [(root / ".gitstore" / name).read_bytes() for name in ("policy.json", "allowed_signers")] == before


def test_a_key_written_two_ways_for_two_people_signs_for_neither(tmp_path: Path) -> None:
    """An allowed_signers file written by hand listing an RSA key for bob and the same key,
    zero-padded, for carol: ssh-keygen verifies bob's signature, its key field rewritten in
    the padded form, as carol. The policy takes both lines for one key listed for two people:
    the key the signature names is listed for both, holds neither, and gitstore's fingerprint
    is ssh-keygen's."""
    import base64

    from gitstore.providers._signing import signing_key
    from gitstore.records.policy import Policy, fingerprint, parse_signers

    private, public, padded = _rsa_written_two_ways(tmp_path / "keys")
    signers = tmp_path / "allowed_signers"
    signers.write_text(f'{BOB} namespaces="git" {public}\n{CAROL} namespaces="git" {padded}\n')
    message = tmp_path / "message"
    message.write_text("accept\n")
    subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-f", str(private), "-n", "git", str(message)], check=True)
    lines = (tmp_path / "message.sig").read_text().strip().splitlines()
    blob = base64.b64decode("".join(lines[1:-1]))
    key = base64.b64decode(padded.split()[1])
    size = int.from_bytes(blob[10:14], "big")  # after the magic SSHSIG and the version: the key
    blob = blob[:10] + len(key).to_bytes(4, "big") + key + blob[14 + size:]
    body = base64.b64encode(blob).decode()
    forged = "\n".join([lines[0], *(body[at:at + 70] for at in range(0, len(body), 70)), lines[-1]]) + "\n"
    (tmp_path / "forged.sig").write_text(forged)
    as_carol = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", str(signers), "-I", CAROL, "-n", "git",
                               "-s", str(tmp_path / "forged.sig")], input=message.read_bytes(), capture_output=True)
    assert as_carol.returncode == 0, as_carol.stderr  # what ssh-keygen makes of it
    policy = Policy({}, parse_signers(signers.read_bytes()))
    named = signing_key(forged.encode())
    assert policy.listed_for(named) == (BOB, CAROL) == policy.listed_for(padded)
    assert list(policy.shared_keys().values()) == [(BOB, CAROL)]
    assert policy.holds(CAROL, named) is None and policy.holds(BOB, public) is None
    assert fingerprint(padded) == fingerprint(named) == _fingerprint_by_ssh_keygen(padded, tmp_path)


def test_doctor_names_a_key_written_two_ways_for_two_people(tmp_path: Path) -> None:
    """A merged policy listing one RSA key for bob and, zero-padded, for carol: doctor names the
    key as one listed for both, signing for nobody."""
    root = first_clone(tmp_path, shared_remote(tmp_path))
    _, public, padded = _rsa_written_two_ways(tmp_path / "keys")
    write_policy(root, {BOB: EVERYTHING, CAROL: EVERYTHING}, {BOB: public, CAROL: padded})
    commit_all(root, "Who may decide")
    git(root, "push", "-q", "origin", "main")
    doctor = cli.gitstore("doctor", cwd=root).stdout
    assert f"lists a key for {BOB}, {CAROL} that signs for nobody" in doctor, doctor


def test_gitstore_sync_alone_brings_a_policy_change_on_the_remote(team: dict[str, object], tmp_path: Path) -> None:
    """A clone that only runs ``gitstore sync`` (the loop does, every fifteen minutes) applies
    a person's removal from the policy at the sync that brings it, says so, and reports the
    verdicts it changed; an idle sync after it moves nothing."""
    from gitstore.sync.remote import sync as gitstore_sync

    bare, bob, carol = _accepted_by_bob(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    _change_policy(tmp_path, bare, lambda text: "".join(l + "\n" for l in text.splitlines() if not l.startswith(BOB)))
    report = gitstore_sync(str(carol.workspace.root))
    assert _standing(Context.open(carol.workspace.root), proposal["id"]) == ("proposed", False)
    assert report.policy and report.policy.startswith("refs/remotes/origin/main moved to"), report.render()
    assert [c.line for c in report.changed] == [f"learning {proposal['id']}: accepted -> proposed (not in force)"]
    assert git(carol.workspace.root, "rev-parse", "origin/main") == git(bare, "rev-parse", "main")
    again = gitstore_sync(str(carol.workspace.root))
    assert again.policy is None and again.changed == [] and again.status == "no-update", again.render()


def _redacted_by_a_new_redactor(tmp: Path) -> Path:
    """Carol may redact only since a policy merged on main; she redacts bob's comment and bob's
    sync takes it off his snapshot. Returns dave's clone, synced before all of it."""
    from gitstore.ops.redact import redact
    from gitstore.sync.remote import sync as gitstore_sync

    keys = {who: keypair(tmp / "keys", who) for who in (ALICE, BOB, CAROL)}
    bare = shared_remote(tmp)
    root = first_clone(tmp, bare)
    write_policy(root, {ALICE: EVERYTHING, BOB: EVERYTHING}, {w: keys[w][1] for w in (ALICE, BOB)})
    commit_all(root, "Who may decide")
    git(root, "push", "-q", "origin", "main")
    sign_as(root, keys[ALICE][0])
    grant_all(Context.open(root))
    gitstore_sync(str(root))
    bob = team_clone(tmp, bare, "bob", keys[BOB][0])
    carol = team_clone(tmp, bare, "carol", keys[CAROL][0])
    dave = team_clone(tmp, bare, "dave")
    thread = Thread(bob, 7201, "7201")
    thread.comment("7201", "a token was pasted here: MARKER7201", "2026-03-01T10:00:00.000000Z")
    thread.save()
    for clone in (bob, carol, dave):
        gitstore_sync(str(clone.workspace.root))
    maintainer = team_clone(tmp, bare, "maintainer").workspace.root
    write_policy(maintainer, {ALICE: EVERYTHING, BOB: EVERYTHING, CAROL: ("redact",)},
                 {w: keys[w][1] for w in (ALICE, BOB, CAROL)})
    commit_all(maintainer, "Carol may redact")
    git(maintainer, "push", "-q", "origin", "main")
    gitstore_sync(str(carol.workspace.root))
    assert redact(Context.open(carol.workspace.root), "github:comment:7201", CAROL, "a token").removed
    gitstore_sync(str(carol.workspace.root))
    assert gitstore_sync(str(bob.workspace.root)).dropped == 1
    return dave.workspace.root


def test_what_arrives_with_a_policy_change_is_judged_under_it(tmp_path: Path) -> None:
    """Dave's one sync brings both the policy and bob's snapshot: it judges the snapshot under
    the policy it arrived with, so nothing is quarantined."""
    from gitstore.sync.remote import sync as gitstore_sync

    dave = _redacted_by_a_new_redactor(tmp_path)
    report = gitstore_sync(str(dave))
    assert report.policy is not None and report.quarantined == [], report.render()
    assert gitstore_sync(str(dave)).status == "no-update"


def test_a_refusal_is_judged_again_under_a_new_policy(tmp_path: Path) -> None:
    """A clone reading the policy from its own main (no origin/HEAD, and origin's HEAD names no
    branch, so a sync cannot learn one) does not take bob's snapshot as it is while its main
    holds the old policy, and says where the policy is read from; once it pulls the new one,
    the next sync judges the snapshot again instead of naming the old refusal."""
    from gitstore.sync.remote import sync as gitstore_sync

    dave = _redacted_by_a_new_redactor(tmp_path)
    git(dave, "remote", "set-head", "origin", "--delete")
    bare = git(dave, "remote", "get-url", "origin").strip()
    git(Path(bare), "symbolic-ref", "HEAD", "refs/heads/nowhere")
    refused = gitstore_sync(str(dave))
    assert refused.quarantined or refused.kept_text, "not taken under the old policy"
    assert refused.policy_source and "read from this clone's main, not from origin" in refused.policy_source
    git(dave, "pull", "-q", "--ff-only", "origin", "main")
    report = gitstore_sync(str(dave))
    assert report.quarantined == [] and report.status != "degraded", report.render()


@pytest.mark.parametrize("oversized", ["policy.json", "allowed_signers"])
def test_a_policy_file_of_gigabytes_is_refused_by_its_size_never_read(tmp_path: Path, oversized: str) -> None:
    """A file of spaces compresses about a thousand to one: a commit of a few megabytes on the
    default branch held a policy file of gigabytes, and every command (recall, the context
    hook's rebuild, the MCP server) read it whole before refusing it as over 1 MiB. Its blob's
    header says its size: it is refused by that, unread."""
    import tracemalloc

    from gitstore.providers._policy_git import current, files_at

    repo = pygit2.init_repository(str(tmp_path / "repo"), initial_head="main")
    files = {"policy.json": b'{"schema": "gitstore.policy/v1", "people": {}}', "allowed_signers": b""}
    files[oversized] = b" " * (16 << 20)
    folder = repo.TreeBuilder()
    for name, data in files.items():
        folder.insert(name, repo.create_blob(data), pygit2.GIT_FILEMODE_BLOB)
    top = repo.TreeBuilder()
    top.insert(".gitstore", folder.write(), pygit2.GIT_FILEMODE_TREE)
    who = pygit2.Signature("a", "a@example.com")
    commit = repo.create_commit("refs/heads/main", who, who, "policy", top.write(), [])
    del files
    tracemalloc.start()
    try:
        state = current(repo)
        read = files_at(repo, str(commit))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, peak  # 16 MiB when it was read
    assert state.problem == f".gitstore/{oversized} is over 1048576 bytes (at {str(commit)[:12]})", state.problem
    assert read[["policy.json", "allowed_signers"].index(oversized)] is None


@pytest.mark.parametrize("oversized", ["policy.json", "allowed_signers"])
def test_a_work_tree_policy_file_of_gigabytes_is_never_read_whole(tmp_path: Path, oversized: str) -> None:
    """``gitstore policy show``, ``status`` and ``doctor`` compare the work tree's policy files
    with the default branch's: one of gigabytes there (a checkout of a hostile branch) was read
    whole. It is refused once 1 MiB is read, and named as not yet on the default branch."""
    import tracemalloc

    from gitstore.queries.trust import pending

    from .world import ready_repo

    ctx = ready_repo(tmp_path / "repo")
    folder = ctx.workspace.root / ".gitstore"
    folder.mkdir()
    (folder / oversized).write_bytes(b" " * (16 << 20))
    tracemalloc.start()
    try:
        found = pending(ctx.workspace, None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == [f".gitstore/{oversized}"]
    assert peak < 4 << 20, peak  # 16 MiB when it was read whole


def test_a_clone_without_origin_head_learns_origin_s_default_branch_and_its_policy(tmp_path: Path) -> None:
    """A clone with no origin/HEAD (made with `git init` and a remote added, or cloned while the
    remote was empty) reads the policy from its own main only until a sync asks origin which
    branch is its default: that sync sets origin/HEAD, fetches the policy there and judges what
    arrives under it, as a clone made by `git clone` does."""
    from gitstore.providers._policy_git import current
    from gitstore.queries.doctor import doctor
    from gitstore.sync.remote import sync as gitstore_sync

    dave = _redacted_by_a_new_redactor(tmp_path)
    git(dave, "remote", "set-head", "origin", "--delete")
    git(dave, "fetch", "-q", "origin", "main")  # origin/main known here; its policy not read
    warned = [c for c in doctor(dave).checks
              if c.name == "trust" and "not from origin/main" in c.detail]
    assert warned, "doctor names the policy read from the clone's own branch"
    report = gitstore_sync(str(dave))
    assert report.policy_source and "origin's default branch is main" in report.policy_source
    assert report.quarantined == [], report.render()
    assert git(dave, "symbolic-ref", "refs/remotes/origin/HEAD").strip() == "refs/remotes/origin/main"
    assert current(pygit2.Repository(str(dave))).branch == "refs/remotes/origin/main"


def test_a_sync_goes_on_when_the_remote_no_longer_has_the_default_branch(team: dict[str, object],
                                                                          tmp_path: Path) -> None:
    """The branch the policy is read from, gone from the remote: memory still travels, and the
    policy stays as last fetched."""
    from gitstore.sync.remote import sync as gitstore_sync

    bare, bob, carol = _accepted_by_bob(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    git(bare, "symbolic-ref", "HEAD", "refs/heads/trunk")
    git(bare, "branch", "-m", "main", "trunk")
    report = gitstore_sync(str(carol.workspace.root))
    assert report.status == "no-update" and report.policy is None, report.render()
    assert _standing(Context.open(carol.workspace.root), proposal["id"]) == ("accepted", True)


def test_a_sync_leaves_the_policy_when_the_remote_made_another_branch_its_default(team: dict[str, object],
                                                                                 tmp_path: Path) -> None:
    """The team made trunk its default and left main where it was: a clone still reads the
    policy from origin/main (set at clone, never since), and anyone who can push to main could
    write another policy there. The sync sees the remote's HEAD elsewhere, moves no policy,
    and says how to read it from the new default."""
    from gitstore.sync.remote import sync as gitstore_sync

    bare, bob, carol = _accepted_by_bob(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    git(bare, "branch", "trunk", "main")
    git(bare, "symbolic-ref", "HEAD", "refs/heads/trunk")
    pusher = team_clone(tmp_path, bare, "pusher").workspace.root  # on trunk, the new default
    git(pusher, "checkout", "-q", "main")
    signers = pusher / ".gitstore" / "allowed_signers"
    signers.write_text("".join(line + "\n" for line in signers.read_text().splitlines() if not line.startswith(BOB)))
    commit_all(pusher, "Another policy on the branch no one reads any more")
    git(pusher, "push", "-q", "origin", "main")
    before = git(carol.workspace.root, "rev-parse", "origin/main")
    report = gitstore_sync(str(carol.workspace.root))
    assert report.policy is None and report.default_moved == (
        "origin's default branch is no longer origin/main, which the policy in force is read from: a sync moves no "
        "policy from there (a plain `git fetch` still does); `git fetch origin && git remote set-head origin --auto` "
        "reads it from the new default"), report.render()
    assert report.default_moved in report.render() and report.to_json()["defaultMoved"] == report.default_moved
    assert git(carol.workspace.root, "rev-parse", "origin/main") == before
    assert _standing(Context.open(carol.workspace.root), proposal["id"]) == ("accepted", True)
    left = git(carol.workspace.root, "for-each-ref", "--format=%(refname)", "refs/memory/sync/origin/").split()
    assert "refs/memory/sync/origin/policy-branch" not in left, "the branch no one reads now is not kept"
    assert gitstore_sync(str(carol.workspace.root)).default_moved == report.default_moved, "said at every sync"
    git(carol.workspace.root, "fetch", "-q", "origin")
    git(carol.workspace.root, "remote", "set-head", "origin", "--auto")
    again = gitstore_sync(str(carol.workspace.root))
    assert again.default_moved is None, again.render()


@pytest.mark.parametrize("gone", ["HEAD", "the branch and HEAD"])
def test_a_sync_goes_on_when_the_remote_has_no_head(team: dict[str, object], tmp_path: Path, gone: str) -> None:
    """A remote whose HEAD names no branch (its default deleted or renamed on the server): a
    sync still fetches memory and the policy's branch where it is there, and no HEAD an earlier
    sync saw is taken for the remote's now."""
    from gitstore.sync.remote import sync as gitstore_sync

    bare, bob, carol = _accepted_by_bob(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    assert gitstore_sync(str(carol.workspace.root)).default_moved is None
    _change_policy(tmp_path, bare, lambda text: "".join(l + "\n" for l in text.splitlines() if not l.startswith(BOB)))
    git(bare, "symbolic-ref", "HEAD", "refs/heads/master")  # names no branch
    if gone != "HEAD":
        git(bare, "branch", "-m", "main", "trunk")
    report = gitstore_sync(str(carol.workspace.root))
    assert report.default_moved is None, report.render()
    if gone == "HEAD":  # the branch is there: its policy applies, as before HEAD was fetched beside it
        assert report.policy and report.policy.startswith("refs/remotes/origin/main moved to"), report.render()
        assert _standing(Context.open(carol.workspace.root), proposal["id"]) == ("proposed", False)
    else:
        assert report.policy is None and _standing(Context.open(carol.workspace.root), proposal["id"]) == (
            "accepted", True)


@pytest.mark.parametrize(("until", "counts"), [("29991231", True), ("20000101", False)])
def test_a_key_kept_with_valid_before_keeps_only_what_it_signed_in_time(team: dict[str, object], tmp_path: Path,
                                                                        until: str, counts: bool) -> None:
    bare, bob, carol = _accepted_by_bob(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    _change_policy(tmp_path, bare, lambda text: text.replace(f'{BOB} namespaces="git"',
                                                             f'{BOB} namespaces="git",valid-before="{until}"'))
    carol, = sync(carol)
    assert _standing(carol, proposal["id"]) == (("accepted", True) if counts else ("proposed", False))


def test_a_key_listed_again_after_a_line_it_outlived_still_signs(team: dict[str, object], tmp_path: Path) -> None:
    """ssh-keygen tries each line listing a person's key: one kept with a passed valid-before,
    then the same key listed again, and the key signs, for git as for gitstore. Bob's signed
    acceptance counts, and his clone may still decide."""
    bare, bob, carol = _accepted_by_bob(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]

    def listed_twice(text: str) -> str:
        line = next(l for l in text.splitlines() if l.startswith(BOB))
        return text.replace(line, line.replace('namespaces="git"', 'namespaces="git",valid-before="20200101"')
                            + "\n" + line)

    _change_policy(tmp_path, bare, listed_twice)
    carol, bob = sync(carol, bob)
    assert _standing(carol, proposal["id"]) == ("accepted", True)
    assert bob.store.signing_as() == [BOB]


@pytest.mark.parametrize("window", ['valid-before="20200101"', 'valid-after="29990101"'])
def test_a_clone_whose_key_is_not_valid_now_decides_nothing(team: dict[str, object], tmp_path: Path,
                                                             window: str) -> None:
    """A key kept with valid-before (retired, its holder trusted) or listed from a later day
    would sign a decision whose signature verifies on no clone: damage everywhere, for good,
    since appends are never rewritten. The clone refuses before writing anything, and says why;
    `policy show` says it cannot decide."""
    bare, keys = _copy(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    _change_policy(tmp_path, bare, lambda text: text.replace(f'{BOB} namespaces="git"',
                                                             f'{BOB} namespaces="git",{window}'))
    bob = team_clone(tmp_path, bare, "bob", keys[BOB][0])
    before = git(bob.workspace.root, "for-each-ref", "refs/memory/v1/records/")  # its own appends
    with pytest.raises(Refused, match=f"the key user.signingkey names is not valid now \\({window.split('=')[0]}"):
        ops.accept(bob, proposal["id"], proposal["reviewDigest"], BOB)
    assert git(bob.workspace.root, "for-each-ref", "refs/memory/v1/records/") == before
    shown = cli.ok("policy", "show", cwd=bob.workspace.root)
    assert "this clone cannot decide: the key user.signingkey names is not valid now" in shown, shown
    refused = cli.fails(1, "accept", proposal["id"], "--review-digest", proposal["reviewDigest"], cwd=bob.workspace.root)
    assert "not valid now" in refused, refused


@pytest.mark.parametrize("zone", ["", "Z"])
def test_a_key_valid_for_hours_more_counts_in_every_time_zone(team: dict[str, object], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch, zone: str) -> None:
    """allowed_signers times are UTC (with or without ``Z``, as the policy reads them), and so is
    the commit's time handed to ssh-keygen, which would read either without ``Z`` as the
    reader's local time: a key valid two hours more counts on a clone in New York as in Tokyo."""
    import shutil
    from datetime import datetime, timedelta, timezone

    until = (datetime.now(timezone.utc) + timedelta(hours=2)).strftime("%Y%m%d%H%M") + zone
    bare, keys = _copy(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    _change_policy(tmp_path, bare, lambda text: text.replace(f'{BOB} namespaces="git"',
                                                             f'{BOB} namespaces="git",valid-before="{until}"'))
    bob = team_clone(tmp_path, bare, "bob", keys[BOB][0])
    ops.accept(bob, proposal["id"], proposal["reviewDigest"], BOB)  # signed under the policy naming the time
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    bob, carol = sync(bob, carol)
    for name in ("UTC", "America/New_York", "Asia/Tokyo"):
        monkeypatch.setenv("TZ", name)
        shutil.rmtree(carol.workspace.root / ".git" / "gitstore" / "verified", ignore_errors=True)
        assert _standing(Context.open(carol.workspace.root), proposal["id"]) == ("accepted", True), name


def test_a_policy_revision_never_merged_gives_no_authority(team: dict[str, object], tmp_path: Path) -> None:
    bare, keys = _copy(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    mallory = team_clone(tmp_path, bare, "mallory", keys["stranger"][0])
    root = mallory.workspace.root
    git(root, "checkout", "-q", "-b", "takeover")
    write_policy(root, {"github:66": ("accept",)}, {"github:66": keys["stranger"][1]})
    commit_all(root, "Let me decide")
    git(root, "push", "-q", "origin", "takeover")
    git(root, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/takeover")
    mallory = Context.open(root)
    ops.accept(mallory, proposal["id"], proposal["reviewDigest"], "github:66")  # counts on mallory's clone only
    assert _standing(mallory, proposal["id"])[0] == "accepted"
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    carol, = sync(mallory, carol)[1:]
    assert git(carol.workspace.root, "rev-parse", "origin/takeover").strip(), "carol holds the revision mallory named"
    assert _standing(carol, proposal["id"]) == ("proposed", False)
    report = verify(carol.store)  # judged by the policy on main, as by a clone that never fetched the branch
    assert any("signed by a key the policy does not list" in str(p) for p in report.notices), report.notices


def test_what_a_program_that_could_not_check_signatures_found_is_not_kept(team: dict[str, object],
                                                                            tmp_path: Path) -> None:
    """gpg.ssh.program naming a program that cannot check signatures (a wrapper that only
    signs, say): no signature verifies. Once the setting is fixed, what that program said is
    not remembered as the answer: bob's signed acceptance counts."""
    bare, bob, carol = _accepted_by_bob(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    program = tmp_path / "sign-only"
    program.write_text("#!/bin/sh\necho 'this program only signs' >&2\nexit 1\n")
    program.chmod(0o755)
    dave = team_clone(tmp_path, bare, "dave").workspace.root
    git(dave, "config", "gpg.ssh.program", str(program))
    assert _standing(Context.open(dave), proposal["id"]) == ("proposed", False)
    git(dave, "config", "--unset", "gpg.ssh.program")
    assert _standing(Context.open(dave), proposal["id"]) == ("accepted", True)


def test_a_decision_keeps_counting_on_every_clone_when_the_default_branch_is_rewritten(
        team: dict[str, object], tmp_path: Path) -> None:
    """A team rewrites main (a file that should never have been committed, dropped from its
    history) after bob signed an acceptance under its old tip. A clone still holding that tip
    and a clone made since, which never had it, reach the same verdict: the one the policy now
    on main gives, which still lets bob accept."""
    bare, bob, carol = _accepted_by_bob(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    maintainer = team_clone(tmp_path, bare, "maintainer").workspace.root
    (maintainer / "README.md").write_text("# widgets, history rewritten\n")
    git(maintainer, "commit", "-q", "-a", "--amend", "-m", "Who may decide (rewritten)")
    git(maintainer, "push", "-q", "-f", "origin", "main")
    carol, = sync(carol)
    old = git(carol.workspace.root, "log", "-1", "--format=%H", "origin/main@{1}").strip()
    assert git(carol.workspace.root, "cat-file", "-t", old).strip() == "commit", "carol still holds the old tip"
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", "--no-local", str(bare), str(fresh))  # what was reachable only
    from .team import _memory
    _memory(fresh)
    git(fresh, "fetch", "-q", "origin")
    assert subprocess.run(["git", "cat-file", "-e", old], cwd=fresh).returncode != 0, "the fresh clone never had it"
    for ctx in (carol, Context.open(fresh)):
        assert _standing(ctx, proposal["id"]) == ("accepted", True), ctx.workspace.root
        assert verify(ctx.store).ok, verify(ctx.store).problems


def test_a_policy_that_cannot_be_read_lets_nothing_decide(team: dict[str, object], tmp_path: Path) -> None:
    bare, bob, carol = _accepted_by_bob(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    _change_policy(tmp_path, bare, lambda text: text + "github:12 ssh-ed25519\n")
    carol, = sync(carol)
    assert _standing(carol, proposal["id"]) == ("proposed", False)
    assert carol.store.trust_mode().mode == "broken"
    with pytest.raises(Refused, match="policy cannot be used"):
        ops.reject(carol, proposal["id"], proposal["reviewDigest"], CAROL, None)


def test_each_signature_is_checked_once(team: dict[str, object], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    bare, bob, carol = _accepted_by_bob(team, tmp_path)
    from gitstore.providers import _signing

    runs: list[list[str]] = []
    real = _signing._run

    def counted(args: list[str], data: bytes | None = None):  # type: ignore[no-untyped-def]
        runs.append(args)
        return real(args, data)

    monkeypatch.setattr(_signing, "_run", counted)
    root = team_clone(tmp_path, bare, "fresh").workspace.root

    def judged() -> dict[str, object]:
        found = evaluate(Context.open(root).view(), "instruction")
        gc.collect()  # as when the command's process ends: what it checked is written
        return found  # type: ignore[return-value]

    first = judged()
    checked = len(runs)
    assert checked >= 2  # the grant's and the acceptance's appends
    assert judged() == first and len(runs) == checked  # remembered under .git/gitstore/verified/
    assert (root / ".git" / "gitstore" / "verified" / "signatures.json").is_file()


def test_without_a_policy_each_clone_counts_only_its_own_decisions(tmp_path: Path) -> None:
    bare = shared_remote(tmp_path)
    alice = Context.open(first_clone(tmp_path, bare))
    grant = grant_all(alice)
    thread = Thread(alice, 7, "100")
    comment = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    proposal = propose(alice, [ref(comment)])
    alice, = sync(alice)
    bob = team_clone(tmp_path, bare, "bob")
    ops.accept(bob, proposal["id"], proposal["reviewDigest"], BOB)
    assert _standing(bob, proposal["id"]) == ("accepted", False)  # its own: it counts, but bob has no grant
    alice, bob = sync(alice, bob)
    assert _standing(alice, proposal["id"]) == ("proposed", False)  # fetched: never used
    report = verify(alice.store)  # named, never used, and no damage: a teammate's decision looks the same
    found = [str(p) for p in report.notices]
    assert report.ok and any("fetched from another clone" in p and "policy init" in p for p in found), found
    done = cli.gitstore("verify", cwd=alice.workspace.root)
    assert done.returncode == 0 and "not counted: decision" in done.stderr and "not counted" in done.stdout
    assert _standing(bob, proposal["id"])[0] == "accepted" and grant["digest"] not in bob.view().grants
    assert bob.store.trust_mode().mode == "single-user"
    # a plain fetch of every memory ref puts bob's ref among alice's own names: still his
    git(alice.workspace.root, "fetch", "-q", "origin", "refs/memory/*:refs/memory/*")
    assert bob.workspace.config.writer in git(alice.workspace.root, "for-each-ref", "refs/memory/v1/records/")
    assert _standing(Context.open(alice.workspace.root), proposal["id"]) == ("proposed", False)


def test_grants_lists_a_grant_that_carries_no_authority_with_why(tmp_path: Path) -> None:
    """A teammate's grant fetched into a clone without a policy, then every grant under a
    policy that cannot be used: listed, each saying why it is not used, never "no grants"."""
    import json

    from gitstore.ops.consent import withdraw

    bare = shared_remote(tmp_path)
    alice = Context.open(first_clone(tmp_path, bare))
    theirs = grant_all(alice)
    withdraw(alice, ALICE, theirs["digest"], ["instruction"], "paused")
    alice, = sync(alice)
    bob = team_clone(tmp_path, bare, "bob")
    root = bob.workspace.root
    shown = cli.ok("grants", cwd=root)
    assert "no grants" not in shown and theirs["digest"] in shown, shown
    assert "  not used: grant" in shown and "fetched from another clone" in shown, shown
    assert "  withdrawal of instruction by github:9 at " in shown and " not used: withdrawal" in shown, shown
    [listed] = json.loads(cli.ok("grants", "--json", cwd=root))
    assert listed["digest"] == theirs["digest"] and listed["inForce"] == [] and "fetched" in listed["notUsed"]
    assert [w["purposes"] for w in listed["withdrawals"]] == [["instruction"]], listed
    assert "fetched" in listed["withdrawals"][0]["notUsed"] and listed["withdrawn"] == [], listed
    assert json.loads(cli.ok("grants", "--in-force", "--json", cwd=root)) == []
    assert "no grant in force" in cli.ok("grants", "--in-force", cwd=root)
    own = grant_all(bob, ("analytics",))
    assert json.loads(cli.ok("grants", "--in-force", "--json", cwd=root))[0]["notUsed"] is None
    write_policy(root, {ALICE: EVERYTHING}, {}, "github:9 ssh-ed25519\n")  # a line that does not parse
    commit_all(root, "Who may decide")
    git(root, "push", "-q", "origin", "main")
    shown = cli.ok("grants", cwd=root)
    assert shown.startswith("the policy on refs/remotes/origin/main cannot be used"), shown
    assert shown.count("  not used: ") == 2 and own["digest"] in shown, shown


def test_policy_init_add_show_and_what_doctor_and_status_say(tmp_path: Path) -> None:
    import json

    bare = shared_remote(tmp_path)
    root = first_clone(tmp_path, bare)
    key, _ = keypair(tmp_path / "keys", ALICE)
    bob_key, _ = keypair(tmp_path / "keys", BOB)
    sign_as(root, key.with_name(key.name + ".pub"))
    doctor = json.loads(cli.gitstore("doctor", "--json", cwd=root).stdout)
    [check] = [c for c in doctor["checks"] if c["check"] == "trust"]
    assert check["state"] == "warn" and "single-user" in check["detail"], check
    assert commands(check["todo"]) == ["gitstore policy init", "git add :/.gitstore/ && git commit -m 'gitstore policy'",
                                       "git fetch origin"], "the default branch is origin's: fetched once merged"
    wrote = json.loads(cli.ok("policy", "init", "--by", ALICE, "--json", cwd=root))
    assert wrote["people"] == {ALICE: ["accept", "reject", "retire", "supersede", "merge", "withdraw", "grant", "redact"]}
    cli.ok("policy", "add", BOB, "--key", str(bob_key.with_name(bob_key.name + ".pub")), "--may", "accept",
           "--may", "reject", cwd=root)
    assert "policy.json is there already" in cli.fails(1, "policy", "init", "--by", ALICE, cwd=root)
    assert "unknown action 'rule'" in cli.fails(2, "policy", "add", BOB, "--may", "rule", cwd=root)
    assert json.loads(cli.ok("policy", "show", "--json", cwd=root))["mode"] == "single-user"  # not merged yet
    commit_all(root, "Who may decide")
    assert json.loads(cli.ok("policy", "show", "--json", cwd=root))["mode"] == "single-user"  # main is the remote's
    git(root, "push", "-q", "origin", "main")
    shown = json.loads(cli.ok("policy", "show", "--json", cwd=root))
    assert shown["mode"] == "policy" and shown["people"][BOB] == ["accept", "reject"]
    assert shown["signsAs"] == {ALICE: wrote["people"][ALICE]}
    assert f"this clone signs as {ALICE}" in cli.ok("status", cwd=root)
    assert json.loads(cli.ok("grant", "--purpose", "review", "--json", cwd=root))["by"] == ALICE, \
        "without --by, a person acts as the one their signing key is listed for, not as git's user.email"
    doctor = json.loads(cli.gitstore("doctor", "--json", cwd=root).stdout)
    [check] = [c for c in doctor["checks"] if c["check"] == "trust"]
    assert check["state"] == "ok" and f"signs as {ALICE}" in check["detail"]
    (root / ".gitstore" / "allowed_signers").write_text("github:9 ssh-ed25519\n")
    commit_all(root, "Break it")
    git(root, "push", "-q", "origin", "main")
    assert json.loads(cli.ok("policy", "show", "--json", cwd=root))["mode"] == "broken"
    assert cli.gitstore("doctor", cwd=root).returncode == 1


def test_a_refused_policy_init_writes_nothing_and_works_once_the_cause_is_fixed(tmp_path: Path) -> None:
    import json

    root = first_clone(tmp_path, shared_remote(tmp_path))
    key, _ = keypair(tmp_path / "keys", ALICE)
    assert "say which key with --key KEY.pub" in cli.fails(1, "policy", "init", "--by", ALICE, cwd=root)
    assert not (root / ".gitstore").exists(), "a refused init leaves no policy behind"
    sign_as(root, key.with_name(key.name + ".pub"))
    assert "unknown action 'rule'" in cli.fails(2, "policy", "init", "--by", ALICE, "--may", "rule", cwd=root)
    assert "Invalid value for '--by': 'git:a\\xff' is not UTF-8 text" in cli.fails(
        2, "policy", "init", "--by", "git:a\udcff", cwd=root), "a byte that is not UTF-8"
    for odd in ("github:9\x1b]52;c;aGk=\x07", "github:9\u202e1", "github:9\u200b"):  # a terminal code, reversed text
        assert "is not a person id" in cli.fails(2, "policy", "init", "--by", odd, cwd=root), odd
    assert not (root / ".gitstore").exists()
    head = git(root, "rev-parse", "HEAD")
    wrote = json.loads(cli.ok("policy", "init", "--by", ALICE, "--may", "accept", "--json", cwd=root))
    assert wrote["people"] == {ALICE: ["accept"]}
    assert sorted(p.name for p in (root / ".gitstore").iterdir()) == ["allowed_signers", "policy.json"]
    assert git(root, "rev-parse", "HEAD") == head and git(root, "status", "--porcelain") == "?? .gitstore/\n", \
        "the files are written for the person to commit; nothing is committed for them"


def test_policy_files_are_never_written_through_a_link(tmp_path: Path) -> None:
    """A commit can make ``.gitstore`` a link to a folder elsewhere: ``policy init`` would write
    the policy (and the signers file) wherever it points."""
    root = first_clone(tmp_path, shared_remote(tmp_path))
    key, _ = keypair(tmp_path / "keys", ALICE)
    sign_as(root, key.with_name(key.name + ".pub"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".gitstore").symlink_to(elsewhere, target_is_directory=True)
    assert ".gitstore is a link (to " in cli.fails(1, "policy", "init", "--by", ALICE, cwd=root)
    assert not any(elsewhere.iterdir()), "nothing was written through the link"
    (root / ".gitstore").unlink()
    cli.ok("policy", "init", "--by", ALICE, cwd=root)
    (root / ".gitstore" / "allowed_signers").rename(elsewhere / "allowed_signers")
    (root / ".gitstore" / "allowed_signers").symlink_to(elsewhere / "allowed_signers")
    before = (elsewhere / "allowed_signers").read_bytes()
    bob_key, _ = keypair(tmp_path / "keys", BOB)
    assert ".gitstore/allowed_signers is a link" in cli.fails(1, "policy", "add", BOB, "--key",
                                                               str(bob_key.with_name(bob_key.name + ".pub")), cwd=root)
    assert (elsewhere / "allowed_signers").read_bytes() == before


def test_policy_add_defaults_to_every_deciding_action_with_the_signing_key(tmp_path: Path) -> None:
    import json

    root = first_clone(tmp_path, shared_remote(tmp_path))
    key, public = keypair(tmp_path / "keys", ALICE)
    sign_as(root, key.with_name(key.name + ".pub"))
    bob_key, _ = keypair(tmp_path / "keys", BOB)
    cli.ok("policy", "init", "--by", BOB, "--key", str(bob_key.with_name(bob_key.name + ".pub")), "--may", "accept",
           cwd=root)
    wrote = json.loads(cli.ok("policy", "add", ALICE, "--json", cwd=root))
    assert wrote["people"] == {ALICE: list(EVERYTHING), BOB: ["accept"]}
    assert f'{ALICE} namespaces="git" {public}' in (root / ".gitstore" / "allowed_signers").read_text()
    files = {p.name: p.read_bytes() for p in (root / ".gitstore").iterdir()}
    assert f"is already listed for {ALICE}" in cli.fails(1, "policy", "add", CAROL, cwd=root), \
        "the signing key is the one adding people: it is theirs, not the next person's"
    (tmp_path / "notes.pub").write_text("not a key\n")
    assert "notes.pub: not an SSH public key" in cli.fails(1, "policy", "add", CAROL, "--key", str(tmp_path / "notes.pub"),
                                                           cwd=root)
    assert "no such file" in cli.fails(1, "policy", "add", CAROL, "--key", str(tmp_path / "gone.pub"), cwd=root)
    import base64

    kind, blob = public.split()
    for name, text, why in [("garbled.pub", b"ssh-ed25519 AAAAnotbase64!!\n", "not base64"),
                            ("cut.pub", f"{kind} {blob[:40]}\n".encode(), "cut short"),
                            ("bytes.pub", f"{kind} {blob}".encode() + b"\xff\n", "not UTF-8"),
                            ("other.pub", f"ssh-rsa {blob}\n".encode(), "holds a ssh-ed25519 key, not ssh-rsa"),
                            ("long.pub", f"{kind} {base64.b64encode(base64.b64decode(blob) + bytes(4)).decode()}\n"
                                         .encode(), "not one ssh-ed25519 key")]:
        (tmp_path / name).write_bytes(text)
        err = cli.fails(1, "policy", "add", CAROL, "--key", str(tmp_path / name), cwd=root)
        assert f"{name}: not an SSH public key" in err and why in err, (name, err)
    assert "error: PERSON 'carol smith' is not a person id like" in cli.fails(2, "policy", "add", "carol smith", cwd=root)
    assert "error: PERSON 'bot:x' names a bot" in cli.fails(2, "policy", "add", "bot:x", cwd=root)
    assert "Invalid value for 'PERSON': 'github:\\xe9' is not UTF-8 text" in cli.fails(
        2, "policy", "add", "github:\udce9", "--key", str(key.with_name(key.name + ".pub")), cwd=root), \
        "a byte that is not UTF-8"
    assert {p.name: p.read_bytes() for p in (root / ".gitstore").iterdir()} == files, "a refused add writes nothing"


def test_a_signed_redaction_counts_on_every_clone(team: dict[str, object], tmp_path: Path) -> None:
    from gitstore.ops.redact import redact

    bare, keys = _copy(team, tmp_path)
    bob = team_clone(tmp_path, bare, "bob", keys[BOB][0])
    carol = team_clone(tmp_path, bare, "carol", keys[CAROL][0])
    with pytest.raises(Refused, match=f"does not let {CAROL} redact"):
        redact(carol, "github:comment:100", CAROL, "asked to")
    report = redact(bob, "github:comment:100", BOB, "asked to")
    assert report.removed
    bob, carol = sync(bob, carol)
    for ctx in (bob, carol):
        [event] = [e for e in ctx.view().events.values() if e["type"] == "comment"]
        assert "payload" not in event and event["redaction"]["by"] == BOB
    assert verify(carol.store).ok


@pytest.mark.parametrize("when", ["99999999999999999", "253402300800"], ids=["past-any-clock", "year-10000"])
def test_a_signature_grafted_onto_a_commit_whose_time_is_no_date_counts_for_nobody(
        team: dict[str, object], tmp_path: Path, when: str) -> None:
    """Someone with push access copies bob's signature onto a retirement of his own making,
    dated where no calendar reaches. The retirement is never used and named; no read of any
    clone fails on it (the time was once read as a date before the signature was checked)."""
    from .hostile import decision_step, grafted
    from .team import forge

    bare, bob, carol = _accepted_by_bob(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    accepted = bob.view().learnings[proposal["id"]][-1].record
    mallory = team_clone(tmp_path, bare, "mallory")
    root = mallory.workspace.root
    retirement = decision_step(accepted, "retired", BOB)
    forge(root, "wgraft", [retirement, mallory.audit("retire", BOB, [retirement["id"]], [retirement])])
    signed = git(bob.workspace.root, "rev-parse", f"refs/memory/v1/records/shared/{bob.workspace.config.writer}").strip()
    grafted(root, "refs/memory/v1/records/shared/wgraft", signed, when)
    git(root, "push", "-q", "origin", "refs/memory/v1/records/shared/wgraft")
    git(carol.workspace.root, "fetch", "-q", "origin")
    for args in (("learnings",), ("context", "--prompt", "jitter on retries"), ("sync",), ("verify",)):
        done = cli.gitstore(*args, cwd=carol.workspace.root)
        assert done.returncode in (0, 3) and "Traceback" not in done.stderr, (args, done.stderr)
    assert done.returncode == 3 and retirement["digest"] in done.stdout + done.stderr, done.stderr
    assert f"commit time {when} is no date" in done.stdout + done.stderr
    assert _standing(Context.open(carol.workspace.root), proposal["id"]) == ("accepted", True)


def _ssh_keygen_verifies(tmp_path: Path, key: Path, signers: Path, *options: str) -> subprocess.CompletedProcess[bytes]:
    """ssh-keygen's own verdict: a message signed with ``key`` checked as BOB's against the
    allowed_signers file ``signers`` (with any further ``-O`` options)."""
    message = tmp_path / "message"
    message.write_text("hello\n")
    subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-f", str(key), "-n", "git", str(message)],
                   check=True, capture_output=True)
    with message.open("rb") as data:
        return subprocess.run(["ssh-keygen", "-Y", "verify", "-f", str(signers), "-I", BOB, "-n", "git",
                               "-s", f"{message}.sig", *options], stdin=data, capture_output=True)


@pytest.mark.parametrize("between", ["\n", "\r\n", "\r", "\f", "\v", "\x85", "\u2028", "\x1e"])
def test_allowed_signers_lines_are_split_where_ssh_keygen_splits_them(tmp_path: Path, between: str) -> None:
    """ssh-keygen, which checks every signature, ends a line of allowed_signers at a line feed
    only: a carriage return, a form feed or a Unicode line separator leaves one line, on which
    the second key is not read. The policy refuses such a line, naming it, so `gitstore policy`
    and the checks before a decision never list a key that ssh-keygen would not take."""
    from gitstore.records.policy import PolicyError, parse_signers

    first, first_key = keypair(tmp_path / "keys", CAROL)
    second, second_key = keypair(tmp_path / "keys", BOB)
    signers = tmp_path / "allowed_signers"
    signers.write_bytes(f'{CAROL} {first_key}{between}{BOB} {second_key}\n'.encode())
    checked = _ssh_keygen_verifies(tmp_path, second, signers)
    assert (checked.returncode == 0) == between.endswith("\n"), checked.stderr
    if between.endswith("\n"):
        read = parse_signers(signers.read_bytes())
        assert [k.principals for k in read] == [(CAROL,), (BOB,)] and read[1].public == second_key
    else:
        with pytest.raises(PolicyError, match=r"^\.gitstore/allowed_signers:1: holds the character U\+"):
            parse_signers(signers.read_bytes())


_SSH_KEYGEN_OPTIONS = [  # (the options of a line, whether ssh-keygen takes the line, whether gitstore does)
    ("", True, True),
    ('namespaces="git"', True, True),
    ('namespaces="git",valid-after="20200101",valid-before="20991231"', True, True),
    ('valid-before="20991231Z",namespaces="git"', True, True),
    ('namespaces="g*"', True, True),
    ('namespaces="file,git"', True, True),
    ('namespaces="git" valid-before="20991231"', False, False),  # options are one token
    ('namespaces="git" ,valid-before="20991231"', False, False),
    ('namespaces="git",', False, False),
    ('namespaces="git",namespaces="git"', False, False),  # an option given twice
    ('valid-before="20991231",valid-before="20991231"', False, False),
    ('namespaces="git,!git"', False, False),  # a negated pattern denies git
    ('namespaces="!g*,git"', False, False),
    ('namespaces="file"', False, False),
    ("valid-before=20991231", False, False),  # a value must be quoted
    ("namespaces", False, False),
    ('namespaces="git",cert-authority', False, False),
    ('NAMESPACES="git"', True, False),  # ssh-keygen takes names in any case: gitstore asks for lowercase
    ('valid-after="20241301"', False, False),  # no month 13
    ('valid-before="29991299"', False, False),  # no day 99
    ('valid-after="20240100"', False, False),  # no day 0
    ('valid-after="202401012560"', False, False),  # no minute 60
    ('valid-after="20240101240000"', False, False),  # no hour 24
    ('valid-after="20240101000062Z"', False, False),
    ('valid-after="20240101000061Z"', True, True),  # a leap second, read as the next minute's first
    ('valid-after="20240230"', True, True),  # a day past the month's end runs on into the next
    ('valid-after="19691231Z"', False, False),  # before 1970
    ('valid-before="19700101Z"', False, False),  # 1970's first second is no time to ssh-keygen
    ('valid-after="19700101000001Z"', True, True),
]


@pytest.mark.parametrize(("options", "ssh_keygen_takes", "gitstore_takes"), _SSH_KEYGEN_OPTIONS)
def test_allowed_signers_options_are_read_as_ssh_keygen_reads_them(tmp_path: Path, options: str,
                                                                 ssh_keygen_takes: bool, gitstore_takes: bool) -> None:
    """ssh-keygen takes a key's options as one comma-separated token (a space outside quotes
    ends it), refuses an option given twice, reads ``namespaces`` as a pattern list and a
    validity time as a calendar time after 1970: the policy never takes a line whose key
    ssh-keygen would not check a signature with (a decision signed with it would be written and
    never count), and says which line, in one line."""
    _read_as_ssh_keygen_reads_it(tmp_path, f"{BOB} {options} {{key}}\n".replace("  ", " "), ssh_keygen_takes,
                                 gitstore_takes)


_SSH_KEYGEN_PRINCIPALS = [  # (a line, whether ssh-keygen and gitstore take it)
    (f"{BOB}\t{{key}}", True),  # a tab ends the principals as a space does
    (f'{BOB}\tnamespaces="git" {{key}}', True),
    (f"{BOB} \t  {{key}}", True),
    (f'"{BOB}" {{key}}', True),  # a quoted principal list
    (f'"{CAROL},{BOB}"\t{{key}}', True),
    (f'"{BOB}" namespaces="git" {{key}}', True),
    (f'"{BOB} {{key}}', False),  # a quote never closed
    (f"{BOB},{{key}}", False),
]


@pytest.mark.parametrize(("line", "takes"), _SSH_KEYGEN_PRINCIPALS)
def test_allowed_signers_principals_are_read_as_ssh_keygen_reads_them(tmp_path: Path, line: str,
                                                                    takes: bool) -> None:
    """ssh-keygen ends a line's principals at its first space or tab, and takes a principal
    list in double quotes without them: a team's allowed_signers that git reads is one the
    policy reads too."""
    _read_as_ssh_keygen_reads_it(tmp_path, line + "\n", takes, takes)


_ODD_BLANKS = ["\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x1f", "\xa0", "\u2003"]


@pytest.mark.parametrize("blank", _ODD_BLANKS)
@pytest.mark.parametrize("line", [f"{{blank}}{BOB} {{key}}", f"{BOB} {{type}}{{blank}}{{blob}}",
                                  f'{BOB} namespaces="git"{{blank}}{{key}}', f"{{blank}}{BOB} namespaces=\"git\" {{key}}"])
def test_a_blank_ssh_keygen_does_not_skip_is_refused_where_it_reads_a_line(tmp_path: Path, line: str,
                                                                          blank: str) -> None:
    """ssh-keygen skips and splits on spaces and tabs only: a line that begins with another
    blank (a carriage return, a vertical tab, a form feed, a separator, a no-break or em space),
    or holds one between its fields, names nobody to it. The policy refuses the line, so it
    never gives the key to a person ssh-keygen does not."""
    _read_as_ssh_keygen_reads_it(tmp_path, line.replace("{blank}", blank) + "\n", False, False)


@pytest.mark.parametrize("text", [
    "# Cl\u00e9s de l\u2019\u00e9quipe\u00a0: les d\u00e9veloppeurs\n" + f"{BOB} {{key}}\n",
    f"{BOB} {{key}} Zo\u00eb \U0001F469\u200d\U0001F4BB laptop\n",
    f"{BOB} {{key}} Alice\u00a0Martin\n",
    f"{BOB} {{key}} laptop\r(home)\n",
])
def test_a_comment_ssh_keygen_never_reads_may_hold_any_character(tmp_path: Path, text: str) -> None:
    """A comment line, and what follows the key on a key's line, are never read by ssh-keygen:
    a French team's no-break space before a colon, or an emoji's joiner in a person's name, is
    theirs to write, and the policy takes the file as ssh-keygen does."""
    _read_as_ssh_keygen_reads_it(tmp_path, text, True, True)


def test_a_signature_counts_only_for_the_people_ssh_keygen_verified_it_for(tmp_path: Path) -> None:
    """The people the signature is checked for are each asked of ssh-keygen: a person the
    policy's reading lists with the key, but ssh-keygen's does not, gets nothing from it."""
    import pygit2

    from gitstore.providers._signing import Signer, SignatureProblem, check, signed_commit

    key, public = keypair(tmp_path / "keys", ALICE)
    git(tmp_path, "init", "-q", "repo")
    repo = pygit2.Repository(str(tmp_path / "repo"))
    author = pygit2.Signature("alice", "alice@example.com", 1767225600, 0)
    commit = repo[signed_commit(repo, Signer("ssh-keygen", str(key), False), author, "signed\n",
                                repo.TreeBuilder().write(), [])]
    listed = f"{ALICE} {public}\n".encode()
    assert check("ssh-keygen", commit, listed, [ALICE, BOB]).principals == (ALICE,)
    assert check("ssh-keygen", commit, listed, [BOB, ALICE]).principals == (ALICE,)
    with pytest.raises(SignatureProblem, match="does not verify"):
        check("ssh-keygen", commit, listed, [BOB])


def _read_as_ssh_keygen_reads_it(tmp_path: Path, line: str, ssh_keygen_takes: bool, gitstore_takes: bool) -> None:
    """Whether ssh-keygen checks a signature by BOB with the allowed_signers ``line`` (its
    ``{key}`` the key, or ``{type}`` and ``{blob}`` its two fields) and whether the policy takes
    the line, each as expected; a refusal names the line, in one line."""
    from gitstore.records.policy import PolicyError, parse_signers

    key, public = keypair(tmp_path / "keys", BOB)
    kind, blob = public.split()
    signers = tmp_path / "allowed_signers"
    signers.write_text(line.replace("{key}", public).replace("{type}", kind).replace("{blob}", blob))
    checked = _ssh_keygen_verifies(tmp_path, key, signers, "-Overify-time=20260101000000Z")
    assert (checked.returncode == 0) == ssh_keygen_takes, checked.stderr
    try:
        read = parse_signers(signers.read_bytes())
    except PolicyError as exc:
        assert not gitstore_takes, exc
        assert str(exc).startswith(".gitstore/allowed_signers:1: ") and "\n" not in str(exc), exc
    else:
        assert gitstore_takes and [k.public for k in read] == [public], line
        assert BOB in read[0].principals


@pytest.mark.parametrize(("valid_after", "when"), [("20240231", "20240301120000"), ("20240231", "20240302000000"),
                                                   ("20240101000061", "20240101000059"),
                                                   ("20240101000061", "20240101000101")])
def test_a_validity_time_past_a_months_end_is_judged_as_ssh_keygen_judges_it(tmp_path: Path, valid_after: str,
                                                                            when: str) -> None:
    """ssh-keygen runs a day past a month's end on into the next month (and a leap second into
    the next minute): the policy's own check of a key's validity at a commit's time agrees."""
    from gitstore.records.policy import parse_signers

    key, public = keypair(tmp_path / "keys", BOB)
    signers = tmp_path / "allowed_signers"
    signers.write_text(f'{BOB} valid-after="{valid_after}Z" {public}\n')
    checked = _ssh_keygen_verifies(tmp_path, key, signers, f"-Overify-time={when}Z")
    assert parse_signers(signers.read_bytes())[0].valid_at(when) == (checked.returncode == 0), checked.stderr


def test_a_key_line_ssh_keygen_skips_breaks_the_policy_before_anything_is_decided(
        team: dict[str, object], tmp_path: Path) -> None:
    """A line with its options apart (``namespaces="git" valid-before=...``) is one ssh-keygen
    cannot read: a decision signed with its key would be written and never count. The policy
    cannot be used, `policy show` and `doctor` say so, and nothing is decided meanwhile."""
    bare, _, carol = _accepted_by_bob(team, tmp_path)
    proposal: dict = team["proposal"]  # type: ignore[assignment]
    _change_policy(tmp_path, bare, lambda text: text.replace(f'{BOB} namespaces="git" ',
                                                             f'{BOB} namespaces="git" valid-before="20991231" '))
    carol, = sync(carol)
    assert carol.store.trust_mode().mode == "broken"
    assert "allowed_signers:2: " in cli.gitstore("policy", "show", cwd=carol.workspace.root).stdout
    with pytest.raises(Refused, match="policy cannot be used"):
        ops.reject(carol, proposal["id"], proposal["reviewDigest"], CAROL, None)


def test_a_policy_naming_a_member_twice_cannot_be_used() -> None:
    """JSON readers differ on a name given twice in one object (the first or the last wins):
    a reviewer reading one and gitstore the other would disagree on who may decide."""
    from gitstore.records.policy import PolicyError, parse_people

    for text in ('{"schema": "gitstore.policy/v1", "people": {"github:9": ["accept"], "github:9": ["grant"]}}',
                 '{"schema": "gitstore.policy/v1", "schema": "gitstore.policy/v1", "people": {}}'):
        with pytest.raises(PolicyError, match=r"^\.gitstore/policy\.json: .* twice"):
            parse_people(text.encode())


def test_a_reason_is_read_as_not_counted_only_from_where_its_cause_starts() -> None:
    """The cause follows the first "carries no authority: "; the same words later in a reason,
    quoted from anything a record holds, say nothing of it."""
    from gitstore.rules.trust import NO_AUTHORITY, NOT_COUNTED, not_counted

    assert not_counted(f"grant sha256:ab: {NO_AUTHORITY}{NOT_COUNTED}its append abc is not signed")
    forged = f"note sha256:ab: {NO_AUTHORITY}it says x {NO_AUTHORITY}{NOT_COUNTED}y decided, but ... is signed by z"
    assert not not_counted(forged)
