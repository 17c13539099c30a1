"""``gitstore verify`` on a store written the way older versions (or a hostile remote) wrote it:
a decision stored without its audit entry, and a shared learning citing a personal session.
Reads ignore both on every clone; verify names both."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from gitstore.conformance import entries_for
from gitstore.ops import learning as ops
from gitstore.context import Context
from gitstore.providers import Batch
from gitstore.records.contracts import seal
from gitstore.rules.active import active, evaluate

from .conftest import git
from .world import T0, Thread, accepted, grant_all, propose, ready_repo, ref


def _verify(root: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "gitstore", "verify", "--json"], cwd=root,
                          capture_output=True, text=True)
    report: dict[str, Any] = json.loads(done.stdout)
    assert done.returncode == (0 if report["ok"] else 3)
    return report


def _write_bare(ctx: Context, records: list[dict[str, Any]], namespace: str = "shared") -> None:
    """Store records straight through the provider, as older versions' `records add` did."""
    ctx.store.provider.append(Batch(namespace, entries_for(records, ctx.scope)))  # type: ignore[arg-type]


def test_a_bare_decision_is_ignored_on_every_clone_and_named_by_verify(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "origin-clone")
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    first = thread.comment("100", "Add jitter to retries.", T0)
    thread.save()
    proposal = propose(ctx, [ref(first)])
    bare = {k: v for k, v in copy.deepcopy(proposal).items() if k != "digest"}
    bare.update(version=2, previous=proposal["digest"], state="accepted",
                decision={"by": "github:9", "reviewDigest": proposal["reviewDigest"], "edited": False, "reason": None})
    bare = seal(bare)
    _write_bare(ctx, [bare])
    assert evaluate(ctx.view(), "instruction")[proposal["id"]].state == "proposed"
    report = _verify(ctx.workspace.root)
    assert not report["ok"] and [p["where"] for p in report["problems"]] == [f"decision {bare['digest']}"]
    assert "without its accept audit entry" in report["problems"][0]["message"]
    # another clone fetches the shared refs: it ignores the bare decision too
    other = ready_repo(tmp_path / "other-clone", origin=str(ctx.workspace.root))
    git(other.workspace.root, "fetch", "-q", "origin")
    fetched = Context.open(str(other.workspace.root))
    assert evaluate(fetched.view(), "instruction")[proposal["id"]].state == "proposed"
    assert not _verify(other.workspace.root)["ok"]
    # the person's own decision still goes through, and is used
    accepted(ctx, proposal)
    assert [s.id for s, _ in active(ctx.view(), "instruction")] == [proposal["id"]]


def test_a_shared_learning_citing_a_personal_session_is_never_used_and_named(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "repo")
    grant_all(ctx, sources=("review-thread", "agent-session"))
    session = Thread(ctx, None, "s1", kind="agent-session")
    ran = session.event("observation", "run:1", T0, author="agent:claude-code", command="make test",
                        exitCode=0, text="all tests passed")
    session.save()
    draft = ops.Draft(title="Mine", text="Make test passes.", category="convention", evidence=[ref(ran)],
                      counterevidence=[], proposer=("person", "github:9"))
    record = ops.build_proposal(ctx, ctx.view(), draft)
    audit = ctx.audit("propose", "github:9", [record["id"]], [record])
    _write_bare(ctx, [record, audit])  # shared, as older versions stored every learning
    version = {k: v for k, v in copy.deepcopy(record).items() if k != "digest"}
    version.update(version=2, previous=record["digest"], state="accepted",
                   decision={"by": "github:9", "reviewDigest": record["reviewDigest"], "edited": False, "reason": None})
    version = seal(version)
    _write_bare(ctx, [version, ctx.audit("accept", "github:9", [record["id"]], [version])])
    status = evaluate(ctx.view(), "instruction")[record["id"]]
    assert status.state == "accepted" and not status.usable
    assert any("personal session" in r for r in status.reasons)
    report = _verify(ctx.workspace.root)
    assert [p["where"] for p in report["problems"]] == [f"learning {record['id']}"]
    assert "personal session" in report["problems"][0]["message"]
