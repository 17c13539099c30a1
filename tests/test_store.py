"""The store's checks on the way in: writes refuse while a policy record is damaged, decisions
are written only with the audit entry that vouches for them, and a learning's namespace
follows its evidence."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gitstore import IntegrityError, Refused
from gitstore.conformance import entries_for
from gitstore.ops import learning as ops
from gitstore.ops.setup import init
from gitstore.capture.sessions import import_transcript
from gitstore.context import Context
from gitstore.providers import Batch, Entry
from gitstore.records.contracts import seal
from gitstore.rules.active import active

from .conftest import git
from .world import T0, Thread, accepted, claude_transcript, grant_all, propose, ready_repo, ref


def _gitstore(cwd: Path, *args: str, data: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gitstore", *args], cwd=cwd, input=data,
                          capture_output=True, text=True)


# -- writes on a damaged store -----------------------------------------------------------------

def test_every_write_refuses_while_a_policy_record_is_damaged(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "repo")
    root = ctx.workspace.root
    good = entries_for([seal({
        "schema": "gitstore.grant/v1", "scope": ctx.scope, "purposes": ["review"], "sources": ["manual"],
        "from": T0, "until": None, "by": "github:9", "at": T0, "note": "honest"})], ctx.scope)[0]
    forged = Entry(good.digest, good.kind, good.scope, good.stream, good.data.replace(b"honest", b"forged"))
    ctx.store.provider.append(Batch("shared", (forged,)))  # damage, as a broken disk or a hostile remote
    transcript = claude_transcript(tmp_path / "s.jsonl", [("user", "Fix it."), ("assistant", "Done.")])
    hook = json.dumps({"session_id": "sess-1", "transcript_path": str(transcript), "cwd": str(root)})
    record = seal({**json.loads(good.data), "note": "another"})
    (tmp_path / "r.jsonl").write_text(json.dumps(record) + "\n")
    writes = [
        (["grant", "--purpose", "review", "--source", "manual", "--by", "github:9"], ""),
        (["capture", "--harness", "claude-code"], hook),
        (["import", "transcript", str(transcript)], ""),
        (["records", "add", str(tmp_path / "r.jsonl")], ""),
    ]
    before = git(root, "for-each-ref")
    for argv, data in writes:
        done = _gitstore(root, *argv, data=data)
        assert done.returncode == 3, (argv, done.stdout, done.stderr)
        assert good.digest in done.stderr and "Traceback" not in done.stderr, argv
    assert git(root, "for-each-ref") == before  # nothing was written
    with pytest.raises(IntegrityError, match=good.digest):
        ctx.store.append([record])


def test_a_write_checks_only_what_arrived_since_its_last_clean_check_and_still_finds_damage(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "repo")
    root = ctx.workspace.root
    grant = ["grant", "--purpose", "review", "--source", "manual", "--by", "github:9"]
    assert _gitstore(root, *grant).returncode == 0  # a clean check, remembered
    assert list((root / ".git" / "gitstore").glob("checked-policy-*.json"))
    good = entries_for([seal({
        "schema": "gitstore.withdrawal/v1", "scope": ctx.scope, "grant": "sha256:" + "1" * 64,
        "purposes": ["review"], "by": "github:9", "at": T0, "reason": "honest", "exports": []})], ctx.scope)[0]
    ctx.store.provider.append(Batch("shared", (Entry(good.digest, good.kind, good.scope, good.stream,
                                                     good.data.replace(b"honest", b"forged")),)))
    done = _gitstore(root, *grant)
    assert done.returncode == 3 and good.digest in done.stderr


# -- decisions come with their audit entry -----------------------------------------------------

@pytest.fixture
def reviewed(tmp_path: Path) -> tuple[Context, dict[str, Any]]:
    ctx = ready_repo(tmp_path / "repo")
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    first = thread.comment("100", "Add jitter to retries.", T0)
    thread.save()
    return ctx, propose(ctx, [ref(first)])


def _decision(proposal: dict[str, Any], by: str = "github:9") -> dict[str, Any]:
    """A sealed accepted version, exactly as ``gitstore accept`` would write it."""
    record = {k: v for k, v in copy.deepcopy(proposal).items() if k != "digest"}
    record.update(version=2, previous=proposal["digest"], state="accepted",
                  decision={"by": by, "reviewDigest": proposal["reviewDigest"], "edited": False, "reason": None})
    return seal(record)


def test_records_add_refuses_a_decision(reviewed: tuple[Context, dict[str, Any]]) -> None:
    ctx, proposal = reviewed
    decision = _decision(proposal)
    path = ctx.workspace.root / "decision.jsonl"
    path.write_text(json.dumps(decision) + "\n")
    done = _gitstore(ctx.workspace.root, "records", "add", str(path))
    assert done.returncode == 1 and proposal["id"] in done.stderr and "gitstore accept" in done.stderr
    audit = ctx.audit("accept", "github:9", [proposal["id"]], [decision])
    path.write_text(json.dumps(decision) + "\n" + json.dumps(audit) + "\n")  # a forged entry does not help
    assert _gitstore(ctx.workspace.root, "records", "add", str(path)).returncode == 1
    assert active(ctx.view(), "instruction") == []


def test_a_decision_without_the_audit_entry_that_vouches_for_it_is_refused(
        reviewed: tuple[Context, dict[str, Any]]) -> None:
    ctx, proposal = reviewed
    decision = _decision(proposal)
    with pytest.raises(Refused, match="written without its accept audit entry"):
        ctx.store.append([decision], decided=True)
    wrong = ctx.audit("reject", "github:9", [proposal["id"]], [decision])  # the wrong action
    with pytest.raises(Refused, match="without its accept audit entry"):
        ctx.store.append([decision, wrong], decided=True)
    someone_else = ctx.audit("accept", "github:10", [proposal["id"]], [decision])
    with pytest.raises(Refused):
        ctx.store.append([decision, someone_else], decided=True)
    accepted(ctx, proposal)  # the operation that checks it writes both in one append
    [item] = [i for i in ctx.store.items(["learning"]) if i.record["version"] == 2]
    [audit] = [i for i in ctx.store.items(["audit"]) if item.digest in i.record["records"]]
    assert audit.stored.append == item.stored.append and audit.record["action"] == "accept"


# -- a learning's namespace follows its evidence ----------------------------------------------

@pytest.fixture
def two_sides(tmp_path: Path) -> tuple[Context, dict[str, Any], dict[str, Any]]:
    """A repository with a shared review comment and a personal session's verified command."""
    ctx = ready_repo(tmp_path / "repo")
    grant_all(ctx, sources=("review-thread", "agent-session"))
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Run make test before pushing.", T0)
    thread.save()
    session = Thread(ctx, None, "s1", kind="agent-session")
    ran = session.event("observation", "run:1", T0, author="agent:claude-code", command="make test",
                        exitCode=0, text="all tests passed")
    session.save()
    return ctx, comment, ran


def _namespaces(ctx: Context, learning_id: str) -> list[str]:
    return [i.stored.namespace for i in ctx.store.items(["learning"]) if i.record["id"] == learning_id]


def test_a_learning_citing_a_personal_session_is_kept_local_in_every_version(
        two_sides: tuple[Context, dict[str, Any], dict[str, Any]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    ctx, comment, ran = two_sides
    assert {i.stored.namespace for i in ctx.store.items(["episode"])} == {"local", "shared"}
    team = propose(ctx, [ref(comment)], title="Team", text="Run make test before pushing.")
    personal = propose(ctx, [ref(ran)], title="Mine", text="Make test passes here.")
    assert _namespaces(ctx, team["id"]) == ["shared"] and _namespaces(ctx, personal["id"]) == ["local"]
    ops.revise(ctx, personal["id"], [ref(comment)], [], "github:9")  # now cites shared evidence only
    current = ctx.view().learnings[personal["id"]][-1].record
    accepted(ctx, current)
    assert _namespaces(ctx, personal["id"]) == ["local", "local", "local"], "later versions follow the first"
    with pytest.raises(Refused, match=f"kept on this machine .it replaces {personal['id']}"):
        # it could not replace team
        ops.merge(ctx, [team["id"], personal["id"]], "Both", "Run make test.", "github:9", audience="project")
    monkeypatch.setattr(ops, "refuse_unhonoured", lambda ctx, record: None)  # as an older version wrote
    merged = ops.merge(ctx, [team["id"], personal["id"]], "Both", "Run make test.", "github:9", audience="project")
    monkeypatch.undo()
    assert _namespaces(ctx, merged["id"]) == ["local"], "a merge replacing a local learning stays local"
    assert [s.id for s, _ in active(ctx.view(), "instruction")] == [personal["id"]]
    remote = tmp_path / "mirror.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(ctx.workspace.root, "push", "-q", "--mirror", str(remote))
    pushed = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=remote,
                            capture_output=True, check=True).stdout
    assert team["id"].encode() in pushed and personal["id"].encode() not in pushed
    assert merged["id"].encode() not in pushed


def test_a_personal_learning_is_kept_local_whatever_its_evidence(
        two_sides: tuple[Context, dict[str, Any], dict[str, Any]]) -> None:
    """Audience personal: one person's machine, home path or tools. Stored shared, a sync took it
    to every teammate's agent ("Alice prefers the solarized theme")."""
    ctx, comment, _ = two_sides
    draft = ops.Draft(title="Editor", text="Alice prefers the solarized editor theme and vim keybindings.",
                      category="convention", evidence=[ref(comment)], counterevidence=[], audience="personal",
                      proposer=("person", "github:9"))
    mine = accepted(ctx, ops.propose(ctx, draft, "github:9"))
    assert _namespaces(ctx, mine["id"]) == ["local", "local"]


def test_a_personal_learning_an_older_version_shared_reaches_no_agent(
        two_sides: tuple[Context, dict[str, Any], dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Before audience personal kept a learning local, it was stored shared, signed and all: every
    teammate's agent got the author's preference after a sync. Such a version is never used, on
    the author's clone either, and verify names it; the proposal alone harms no one."""
    from gitstore.queries.verify import verify
    from gitstore.store import Sides

    ctx, comment, _ = two_sides
    old = Sides._learning_is_local
    monkeypatch.setattr(Sides, "_learning_is_local",  # as an older version decided
                        lambda self, record: False if record.get("audience") == "personal" else old(self, record))
    draft = ops.Draft(title="Editor", text="Alice prefers the solarized editor theme and vim keybindings.",
                      category="convention", evidence=[ref(comment)], counterevidence=[], audience="personal",
                      proposer=("person", "github:9"))
    proposed = ops.propose(ctx, draft, "github:9")
    assert verify(ctx.store).ok, "a shared proposal is no damage"
    mine = accepted(ctx, proposed)
    monkeypatch.undo()
    assert _namespaces(ctx, mine["id"]) == ["shared", "shared"]
    assert active(ctx.view(), "instruction") == []
    report = verify(ctx.store)
    assert [p.where for p in report.problems] == [f"learning {mine['id']}"]
    assert "audience personal" in report.problems[0].message


def test_a_personal_session_pushed_shared_is_no_evidence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store keeps every personal session local; someone who can push can still store one
    shared, with a shared learning citing it, accepted. No clone can tell whose session it was,
    nor whether it ran: every read leaves the episode out (the learning is not in force, and a
    new one cannot cite it), and verify names it."""
    from gitstore import store as store_module
    from gitstore.queries.verify import verify
    from gitstore.rules import view as view_module
    from gitstore.rules.active import evaluate

    ctx = ready_repo(tmp_path / "repo")
    grant_all(ctx, sources=("review-thread", "agent-session"))
    monkeypatch.setattr(store_module, "_is_session_episode", lambda record, kind: False)  # as a forger writes
    monkeypatch.setattr(view_module, "stray_session", lambda item: None, raising=False)  # as an older version read
    session = Thread(ctx, None, "s1", kind="agent-session")
    ran = session.event("observation", "run:1", T0, author="agent:claude-code", command="make test",
                        exitCode=0, text="all tests passed")
    session.save()
    forged = accepted(ctx, propose(ctx, [ref(ran)], title="Tests", text="Run make test before pushing."))
    monkeypatch.undo()
    assert [i.stored.namespace for i in ctx.store.items(["episode"])] == ["shared"]
    assert _namespaces(ctx, forged["id"]) == ["shared", "shared"]
    view = ctx.view()
    assert session.id not in view.episodes and active(view, "instruction") == []
    assert "personal session kept shared" in " ".join(evaluate(view, "instruction")[forged["id"]].reasons)
    report = verify(ctx.store)
    assert [p.where for p in report.problems] == [f"episode {session.episode['digest']}"]
    assert "shared namespace" in report.problems[0].message
    with pytest.raises(Refused, match="personal session kept shared"):
        propose(ctx, [ref(ran)], title="Again", text="Run make test first.")


def test_a_personal_session_read_first_from_a_shared_copy_is_read_from_the_local_one(
        two_sides: tuple[Context, dict[str, Any], dict[str, Any]]) -> None:
    """Someone holding a session's bytes can push them shared under an earlier clock, so a
    read meets them there first: the copy this clone keeps local stands, and nothing is lost."""
    from gitstore.rules.view import View

    ctx, _, ran = two_sides
    mine = next(i for i in ctx.store.items(["episode"]) if i.stored.namespace == "local")
    pushed = mine._replace(stored=mine.stored._replace(namespace="shared", append="elsewhere", clock=0))
    view = View(scope=ctx.scope, copies=lambda item: [mine] if item.digest == mine.digest else [])
    view.add([pushed])
    assert view.local_episodes == {ran["episode"]} and not view.ignored and not view.strays
    alone = View(scope=ctx.scope)
    alone.add([pushed])
    assert not alone.episodes and alone.strays == {ran["episode"]: mine.digest}


def test_auto_safe_steps_on_personal_evidence_stay_local(
        two_sides: tuple[Context, dict[str, Any], dict[str, Any]]) -> None:
    ctx, _, ran = two_sides
    path = ctx.workspace.state / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "automation": {"autoSafe": True}}))
    init(ctx.workspace.root, accept_changes=True)  # a person takes the edit, as trust.md says
    ctx = Context.open(ctx.workspace.root)  # configuration is read when the store opens
    record = propose(ctx, [ref(ran)], title="Tests", text="Run make test before pushing.",
                     category="convention")
    assert record["state"] == "auto-active"
    assert _namespaces(ctx, record["id"]) == ["local", "local", "local"]


def test_a_shared_append_of_a_learning_citing_a_personal_session_is_refused(
        two_sides: tuple[Context, dict[str, Any], dict[str, Any]]) -> None:
    ctx, _, ran = two_sides
    view = ctx.view()
    draft = ops.Draft(title="Mine", text="Make test passes.", category="convention", evidence=[ref(ran)],
                      counterevidence=[], proposer=("person", "github:9"))
    record = ops.build_proposal(ctx, view, draft)
    with pytest.raises(Refused, match="stay in the local namespace"):
        ctx.store.append([record], namespace="shared")


def test_a_read_gets_the_payload_of_every_event_an_append_landing_meanwhile_stored(tmp_path: Path) -> None:
    """Another process's append lands as a read starts: every event the read returns comes
    with its payload (an append moves its payloads before its records, and the read takes its
    payload snapshot after the records' heads)."""
    ctx = ready_repo(tmp_path / "repo")
    import_transcript(ctx, claude_transcript(tmp_path / "a.jsonl", [("user", "Add jitter."), ("assistant", "Added.")],
                                             session="sess-a"))
    provider = ctx.store.provider
    read = provider.read
    later = claude_transcript(tmp_path / "b.jsonl", [("user", "Bound the retries."), ("assistant", "Bounded.")],
                              session="sess-b")

    def read_as_an_append_lands(*args: Any, **kwargs: Any) -> Any:
        import_transcript(Context.open(str(ctx.workspace.root)), later)  # another writer, meanwhile
        return read(*args, **kwargs)

    provider.read = read_as_an_append_lands  # type: ignore[method-assign]
    events = [i.record for i in ctx.store.items(["event"], payloads=True)]
    assert events and all("payload" in e for e in events)
    texts = " ".join(e["payload"]["text"] for e in events)
    assert "Add jitter." in texts and "Bound the retries." in texts
