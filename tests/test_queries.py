"""The read side: every query over one real store, as the CLI renders it (``gitstore.queries``).

One repository is built once for the module (review threads, a session, grants, learnings in
several states); each test reads it, and the few that change it work on a copy.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench._process import copy_as_moved
from gitstore.context import Context
from gitstore.errors import Refused, UsageError
from gitstore.ops import consent
from gitstore.ops.redact import redact
from gitstore.queries import audit, evidence, grants, learnings
from gitstore.queries.doctor import doctor
from gitstore.queries.status import status

from .cli import fails, ok
from .world import Thread, accepted, grant_all, propose, ready_repo, ref


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The store every test reads (built with the identity the tests pin)."""
    mp = pytest.MonkeyPatch()
    for key, value in {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "T",
                       "GIT_COMMITTER_EMAIL": "t@example.com", "HOME": str(tmp_path_factory.mktemp("home"))}.items():
        mp.setenv(key, value)
    try:
        ctx = ready_repo(tmp_path_factory.mktemp("world") / "widgets")
        grant = grant_all(ctx)
        thread = Thread(ctx, 7, "100")
        jitter = thread.comment("100", "Retries need jitter, or every client retries at once.", "2026-03-01T10:00:00.000000Z")
        again = thread.comment("101", "Jitter again, please.", "2026-03-02T10:00:00.000000Z", author="github:1002")
        other = Thread(ctx, 8, "200")
        naming = other.comment("200", "Name tests after behaviour.", "2026-03-03T10:00:00.000000Z")
        thread.save()
        other.save()
        in_force = accepted(ctx, propose(ctx, [ref(jitter), ref(again)]))
        waiting = propose(ctx, [ref(naming)], title="Test names", text="Name tests after behaviour.")
        return {"root": ctx.workspace.root, "grant": grant, "jitter": jitter, "again": again,
                "naming": naming, "in_force": in_force, "waiting": waiting}
    finally:
        mp.undo()


@pytest.fixture
def ctx(built: dict) -> Context:
    return Context.open(built["root"])


@pytest.fixture
def copy(built: dict, tmp_path: Path) -> Context:
    """A copy of the store a test may change."""
    root = tmp_path / "widgets"
    copy_as_moved(built["root"], root)
    return Context.open(root)


# -- learnings -----------------------------------------------------------------------------------

def test_learnings_lists_each_with_its_standing(ctx: Context, built: dict) -> None:
    rows = {r.status.id: r.to_json() for r in learnings.learnings(ctx)}
    assert rows[built["in_force"]["id"]]["usable"] is True
    assert rows[built["waiting"]["id"]]["usable"] is False and rows[built["waiting"]["id"]]["state"] == "proposed"
    assert [r.status.id for r in learnings.learnings(ctx, active=True)] == [built["in_force"]["id"]]
    assert [r.status.id for r in learnings.proposals(ctx)] == [built["waiting"]["id"]]


def test_show_gives_the_evidence_text_and_the_standing(ctx: Context, built: dict) -> None:
    shown = learnings.show(ctx, built["in_force"]["id"])
    assert shown.standing.in_force and shown.accept_hint is None
    texts = [e.text for item in shown.evidence for e in item.events]
    assert texts == ["Retries need jitter, or every client retries at once.", "Jitter again, please."]
    assert shown.evidence[0].paste == f"{built['jitter']['episode']}:{built['jitter']['id']}"
    waiting = learnings.show(ctx, built["waiting"]["id"])
    assert not waiting.standing.in_force and "no person has accepted it" in waiting.standing.why[0]
    assert waiting.accept_hint == f"gitstore accept {built['waiting']['id']} --review-digest {built['waiting']['reviewDigest']}"
    data = waiting.to_json()
    assert data["version"]["id"] == built["waiting"]["id"] and data["evidence"][0]["serves"] is True


def test_show_says_why_a_learning_lost_its_force(copy: Context, built: dict) -> None:
    lid = built["in_force"]["id"]
    consent.withdraw(copy, "github:9", built["grant"]["digest"], ["instruction"], "paused")
    standing = learnings.show(copy, lid).standing
    assert not standing.in_force
    assert any(f"(grant {built['grant']['digest']} did, until it was withdrawn for instruction)" in w
               for w in standing.why), standing.why
    assert learnings.show(copy, lid, "review").standing.in_force
    redact(copy, "github:comment:101", "github:9", "asked by the author")
    shown = learnings.show(copy, lid, "review")
    assert any("was removed" in w and built["again"]["id"] in w for w in shown.standing.why), shown.standing.why
    assert shown.evidence[1].events[0].text is None and "asked by the author" in shown.evidence[1].events[0].removed
    assert any("retire it" in t for t in shown.standing.todo)


def test_show_names_a_deleted_comment(copy: Context, built: dict) -> None:
    thread = Thread(copy, 7, "100")
    thread.retract(built["jitter"], "2026-03-05T10:00:00.000000Z")
    thread.save()
    standing = learnings.standing(copy, built["in_force"]["id"])
    assert any("was deleted at its source" in w for w in standing.why), standing.why


def test_a_proposal_citing_a_deleted_comment_is_named_as_barred_before_anyone_accepts_it(
        copy: Context, built: dict) -> None:
    """Propose took a comment deleted at its source without a word, and show named only that a
    person had not accepted it: the reviewer accepted, and only then learned agents would never
    get it."""
    from .cli import gitstore

    thread = Thread(copy, 8, "200")
    thread.retract(built["naming"], "2026-03-05T10:00:00.000000Z")
    thread.save()
    root = copy.workspace.root
    cite = f"{built['naming']['episode']}:{built['naming']['id']}"
    deleted = f"the comment it cites ({built['naming']['id']}) was deleted at its source"
    done = gitstore("propose", "--title", "Names", "--text", "Name tests after what they check.", "--category",
                    "convention", "--evidence", cite, "--by", "github:9", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    lid = json.loads(done.stdout)["id"]
    assert done.stderr == (f"warning: even once accepted it would not be in force for instruction: {deleted}; "
                           f"`gitstore show {lid}` says what to do\n"), done.stderr
    standing = learnings.show(copy, lid).standing
    assert standing.why == ("it is a proposal: no person has accepted it", deleted), standing.why
    assert standing.todo == ("accepting it would not put it in force: reject it, or propose it again citing "
                             "evidence that still counts",), standing.todo
    assert f"    - {deleted}\n" in ok("show", lid, cwd=root)
    fine = gitstore("propose", "--title", "Jitter", "--text", "Retries need jitter.", "--category", "convention",
                    "--evidence", f"{built['jitter']['episode']}:{built['jitter']['id']}", "--by", "github:9",
                    cwd=root)
    assert fine.returncode == 0 and fine.stderr == "", fine.stderr


def test_unknown_learnings_are_refused(ctx: Context) -> None:
    with pytest.raises(Refused, match="no learning lrn_nope"):
        learnings.show(ctx, "lrn_nope")
    with pytest.raises(Refused, match="no learning lrn_nope"):
        learnings.history(ctx, "lrn_nope")


def test_history_lists_every_version(ctx: Context, built: dict) -> None:
    versions = learnings.history(ctx, built["in_force"]["id"])
    assert [r["state"] for r in versions.rows] == ["proposed", "accepted"] and all(r["intact"] for r in versions.rows)


# -- evidence ------------------------------------------------------------------------------------

def test_episodes_and_grep(ctx: Context, built: dict) -> None:
    found = evidence.episodes(ctx)
    assert [e.count for e in found] == [2, 1] and {e.namespace for e in found} == {"shared"}
    hits = evidence.episodes(ctx, grep="JITTER")
    assert len(hits) == 1 and [e.paste for e in hits[0].events] == [
        f"{built['jitter']['episode']}:{built['jitter']['id']}", f"{built['again']['episode']}:{built['again']['id']}"]
    assert evidence.episodes(ctx, grep="no such words") == []
    assert evidence.episodes(ctx, source="agent-session") == []
    with pytest.raises(UsageError, match="not a regular expression"):
        evidence.episodes(ctx, grep="(")


def test_an_episode_is_headed_by_its_first_text_until_that_text_is_removed(copy: Context, built: dict) -> None:
    by_id = {e.episode["id"]: e for e in evidence.episodes(copy)}
    assert by_id[built["jitter"]["episode"]].title == "Retries need jitter, or every client retries at once."
    assert evidence.evidence(copy, built["naming"]["episode"]).title == "Name tests after behaviour."
    redact(copy, "github:comment:100", "github:9", "asked to")
    again = {e.episode["id"]: e for e in evidence.episodes(Context.open(copy.workspace.root))}
    assert again[built["jitter"]["episode"]].title is None  # no stored field kept the words


def test_evidence_of_one_episode(ctx: Context, built: dict) -> None:
    episode = built["naming"]["episode"]
    shown = evidence.evidence(ctx, episode)
    assert [(e.event["id"], e.text) for e in shown.events] == [(built["naming"]["id"], "Name tests after behaviour.")]
    assert evidence.evidence(ctx, episode[:10]).episode["id"] == episode  # a unique prefix
    assert evidence.evidence(ctx, episode, grep="nothing").events == ()
    with pytest.raises(Refused, match="names no episode"):
        evidence.evidence(ctx, "ep_0000")
    with pytest.raises(UsageError, match="is not an episode id"):
        evidence.evidence(ctx, "lrn_x")


# -- consent, audit, status ------------------------------------------------------------------------

def test_grants_and_withdrawals(copy: Context, built: dict) -> None:
    [shown] = grants.grants(copy)
    assert shown.in_force == ["review", "instruction"] and shown.withdrawn == []
    consent.withdraw(copy, "github:9", built["grant"]["digest"], ["instruction"], "paused")
    [shown] = grants.grants(copy)
    assert shown.in_force == ["review"] and shown.withdrawn == ["instruction"]
    assert shown.to_json()["withdrawals"][0]["reason"] == "paused"
    consent.withdraw(copy, "github:9", built["grant"]["digest"], ["review"], "stop")
    assert grants.grants(copy, in_force=True) == []


def test_audit_is_the_trail_in_order(ctx: Context) -> None:
    assert [e["action"] for e in audit.audit(ctx)] == ["grant", "propose", "accept", "propose"]


@pytest.mark.parametrize("provider", ["git", "jsonl"])
def test_an_export_or_removal_entry_with_nothing_behind_it_is_shown_not_used(tmp_path: Path, provider: str) -> None:
    """An audit entry is what a writer said: a removal or an export in a person's name counts
    only beside the removal or export record it reports."""
    from gitstore.ops.export import export

    ctx = ready_repo(tmp_path / "widgets", provider=provider)
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    kept = thread.comment("100", "Retries need jitter.", "2026-03-01T10:00:00.000000Z")
    thread.comment("101", "Name tests after behaviour.", "2026-03-02T10:00:00.000000Z")
    thread.save()
    accepted(ctx, propose(ctx, [ref(kept)]))
    records, _ = export(ctx, "instruction", "github:9")
    redact(ctx, "github:comment:101", "github:9", "asked by the author")
    trail = audit.audit(Context.open(ctx.workspace.root))
    [real_export] = [e for e in trail if e["action"] == "export"]
    [real_removal] = [e for e in trail if e["action"] == "redact"]
    assert "notUsed" not in real_export and "notUsed" not in real_removal
    forged = [ctx.audit("redact", "github:9", ["github:comment:100"], [], "removed at the author's request"),
              ctx.audit("redact", "github:77", real_removal["subjects"], [], "asked by the author",
                        at=real_removal["at"]),
              ctx.audit("export", "github:9", ["sha256:" + "1" * 64, "training"], []),
              ctx.audit("export", "github:9", real_export["subjects"], [records["shared"]])]
    ctx.store.append(forged)
    trail = {e["digest"]: e for e in audit.audit(Context.open(ctx.workspace.root))}
    assert "no removal" in trail[forged[0]["digest"]]["notUsed"]
    assert "no removal" in trail[forged[1]["digest"]]["notUsed"]  # another person's name on a real removal
    assert "no export record stored with it" in trail[forged[2]["digest"]]["notUsed"]
    assert "no export record stored with it" in trail[forged[3]["digest"]]["notUsed"]  # a real one, stored apart
    assert [e["digest"] for e in trail.values() if "notUsed" in e] == [f["digest"] for f in forged]
    shown = ok("audit", cwd=ctx.workspace.root).splitlines()
    assert sum("[NOT USED: " in line for line in shown) == 4
    assert all("[stored by this clone]" in line for line in shown)
    assert all(e["thisClone"] and e["storedIn"].startswith("records/shared/") for e in trail.values())


@pytest.mark.parametrize("provider", ["git", "jsonl"])
def test_a_proposal_import_promotion_label_or_disclosure_entry_with_nothing_behind_it_is_shown_not_used(
        tmp_path: Path, provider: str) -> None:
    """Only entries of decisions, exports and removals were checked against what they report:
    a bare entry saying a person proposed, imported, promoted or labelled something, disclosed
    sessions, merged learnings or purged memory (actions no command writes an entry of) was
    listed as an ordinary entry. Each counts only where gitstore writes it: beside the records
    it names, in the same append (a disclosure: in this machine's local memory)."""
    from gitstore.capture.reviews import import_reviews

    ctx = ready_repo(tmp_path / "widgets", provider=provider)
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    kept = thread.comment("100", "Retries need jitter.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    version = propose(ctx, [ref(kept)])
    comment = {"id": 501, "user": {"id": 1001, "login": "someone"}, "body": "Name tests after behaviour.",
               "path": "src/retry.py", "line": 2, "created_at": "2026-03-02T10:00:00Z",
               "updated_at": "2026-03-02T10:00:00Z", "commit_id": "0" * 40, "in_reply_to_id": None}
    snapshot = tmp_path / "pr-12.json"
    snapshot.write_text(json.dumps({
        "format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": 12,
        "head": {"ref": "fix-12", "sha": "0" * 40},
        "responses": [{"collection": "pull-comments", "page": 1, "link": "", "body": [comment]},
                      {"collection": "reviews", "page": 1, "link": "", "body": []},
                      {"collection": "issue-comments", "page": 1, "link": "", "body": []}]}))
    import_reviews(ctx, snapshot, "github:9")
    ctx.write([], "disclose", "github:9", ["labeler rules"], "what the labeler is sent", namespace="local")
    real = {e["digest"] for e in audit.audit(Context.open(ctx.workspace.root))}
    assert all("notUsed" not in e for e in audit.audit(Context.open(ctx.workspace.root)))
    fake = "sha256:" + "1" * 64
    forged = [ctx.audit("propose", "github:77", [version["id"]], []),
              ctx.audit("propose", "github:77", [version["id"]], [version]),  # a real version, stored apart
              ctx.audit("import", "github:77", [fake], []),
              ctx.audit("promote", "github:77", [version["id"], fake], []),
              ctx.audit("label", "github:77", ["3 labels by rules"], [kept]),
              ctx.audit("disclose", "github:77", ["labeler rules"], [], "sessions sent"),
              ctx.audit("merge", "github:77", [version["id"]], [version]),
              ctx.audit("purge", "github:77", ["acme/widgets"], [])]
    ctx.store.append(forged)
    trail = {e["digest"]: e for e in audit.audit(Context.open(ctx.workspace.root))}
    assert {d for d, e in trail.items() if "notUsed" in e} == {f["digest"] for f in forged}
    assert not real & {f["digest"] for f in forged}
    assert "no record stored with it" in trail[forged[1]["digest"]]["notUsed"]
    assert "local memory" in trail[forged[5]["digest"]]["notUsed"]
    assert "writes no entry of this action" in trail[forged[7]["digest"]]["notUsed"]


def test_status_reads_no_record(ctx: Context) -> None:
    info = status(ctx.workspace)
    assert info["stateIgnored"] is True and info["config"]["capture"] == {"value": "summary", "from": "default",
                                                                        "problem": None}


def test_doctor_names_what_to_do(ctx: Context, tmp_path: Path) -> None:
    report = doctor(ctx.workspace.root, tmp_path)
    checks = {c.name: c for c in report.checks}
    assert checks["init"].state == "ok" and checks["provider"].state == "ok"
    assert checks["hooks"].state == "warn" and "gitstore hooks install" in checks["hooks"].todo
    assert checks["remote origin"].state == "ok"
    outside = doctor(tmp_path, tmp_path)
    assert not outside.ok and outside.checks[0].name == "repository"


def test_doctor_before_init_shows_only_this_repositorys_lines_of_the_shared_hook_log(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    from gitstore.capture.hooklog import log

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    log(str(elsewhere), "codex", "capture failed: somewhere else")
    shared = tmp_path / "gitstore-hooks.log"
    assert shared.read_text().split(" ", 2)[2] == f"in {elsewhere.resolve()}: capture failed: somewhere else\n"
    [check] = [c for c in doctor(repo, tmp_path).checks if c.name == "hook log"]
    assert check.state == "ok" and "1 line(s) from other folders are not shown" in check.detail
    (repo / "src").mkdir()
    log(str(repo / "src"), "codex", "capture failed: here")
    [check] = [c for c in doctor(repo, tmp_path).checks if c.name == "hook log"]
    assert check.state == "warn" and "capture failed: here" in check.detail
    assert "somewhere else" not in check.detail and "the log is shared" in check.detail


def test_doctor_fails_where_every_read_would_fail(copy: Context, tmp_path: Path) -> None:
    """This clone's records ref moved back past an acknowledged append: every read refuses it
    (exit 3), and doctor says so instead of calling the provider ok."""
    from gitstore.providers.git import records_ref

    from . import cli
    from .conftest import git

    root = copy.workspace.root
    ref = records_ref("shared", copy.workspace.config.writer)
    git(root, "update-ref", ref, ref + "~1")
    assert cli.gitstore("grants", cwd=root).returncode == 3
    [check] = [c for c in doctor(root, tmp_path).checks if c.name == "provider"]
    assert check.state == "fail" and ref in check.detail and check.todo.startswith(f"git update-ref {ref} "), check
    done = cli.gitstore("doctor", cwd=root)
    assert done.returncode == 1 and ref in done.stdout + done.stderr


def test_doctor_fails_where_every_write_would_fail(copy: Context, tmp_path: Path) -> None:
    """A grant stored with other bytes than its digest names: every write (a capture too) refuses
    with exit 3, so doctor cannot say the store is ready to capture."""
    from gitstore.conformance import entries_for
    from gitstore.providers import Batch, Entry
    from gitstore.records.contracts import seal

    from . import cli

    root = copy.workspace.root
    good = entries_for([seal({"schema": "gitstore.grant/v1", "scope": copy.scope, "purposes": ["review"],
                              "sources": ["manual"], "from": "2026-01-01T00:00:00.000000Z", "until": None,
                              "by": "github:9", "at": "2026-01-01T00:00:00.000000Z", "note": "honest"})], copy.scope)[0]
    copy.store.provider.append(Batch("shared", (Entry(good.digest, good.kind, good.scope, good.stream,
                                                      good.data.replace(b"honest", b"forged")),)))
    assert cli.gitstore("grant", "--purpose", "review", "--by", "github:9", cwd=root).returncode == 3
    [check] = [c for c in doctor(root, tmp_path).checks if c.name == "provider"]
    assert check.state == "fail" and good.digest in check.detail and "gitstore verify" in check.todo, check
    done = cli.gitstore("doctor", cwd=root)
    assert done.returncode == 1 and good.digest in done.stdout


def test_doctor_warns_when_a_push_would_send_every_ref(copy: Context, tmp_path: Path) -> None:
    from .conftest import git

    git(copy.workspace.root, "config", "remote.origin.mirror", "true")
    checks = {c.name: c for c in doctor(copy.workspace.root, tmp_path).checks}
    assert checks["remote origin push"].state == "warn" and "deletes there" in checks["remote origin push"].detail


# -- through the command line --------------------------------------------------------------------

def test_the_read_commands_render_it(built: dict) -> None:
    root = built["root"]
    shown = ok("show", built["in_force"]["id"], cwd=root)
    assert "Retries need jitter" in shown and "in force for instruction" in shown
    assert f"evidence {built['jitter']['episode']}:{built['jitter']['id']}" in shown
    assert "to accept: gitstore accept" in ok("show", built["waiting"]["id"], cwd=root)
    listing = ok("episodes", "--grep", "behaviour", cwd=root)
    assert f"{built['naming']['episode']}:{built['naming']['id']}" in listing and "Name tests" in listing
    assert "| Name tests after behaviour." in ok("evidence", built["naming"]["episode"], cwd=root)
    assert "permits review, instruction for review-thread evidence" in ok("grants", cwd=root)
    assert json.loads(ok("grants", "--json", cwd=root))[0]["inForce"] == ["review", "instruction"]
    assert "grant" in ok("audit", cwd=root)
    doctor_out = ok("doctor", cwd=root)
    assert "ok   init:" in doctor_out and "to do: `gitstore hooks install --harness claude-code`" in doctor_out
    assert "no episode" in fails(1, "evidence", "ep_0000", cwd=root)


def test_the_read_commands_take_the_options_their_help_names(built: dict) -> None:
    root = built["root"]
    jitter, naming = built["jitter"]["episode"], built["naming"]["episode"]
    assert [e["id"] for e in json.loads(ok("episodes", "--source", "review-thread", "--json", cwd=root))] == [
        jitter, naming]
    assert json.loads(ok("episodes", "--source", "agent-session", "--json", cwd=root)) == []
    assert ok("episodes", "--source", "manual", cwd=root) == "no episodes match\n"
    [hit] = json.loads(ok("episodes", "--grep", "JITTER AGAIN", "--json", cwd=root))  # case ignored
    assert hit["id"] == jitter and [m["id"] for m in hit["matches"]] == [built["again"]["id"]]
    shown = json.loads(ok("evidence", jitter[:12], "--grep", "again", "--json", cwd=root))  # a unique prefix
    assert shown["id"] == jitter and [m["id"] for m in shown["matches"]] == [built["again"]["id"]]
    assert shown["matches"][0]["evidence"] == f"{jitter}:{built['again']['id']}"
    shared_prefix = os.path.commonprefix([jitter, naming])  # "ep_" at least: a prefix that is not unique
    assert "; give more digits" in fails(1, "evidence", shared_prefix, cwd=root)
    text = ok("evidence", jitter, "--grep", "AGAIN", cwd=root)
    assert "| Jitter again, please." in text and "| Retries need jitter" not in text
    lid = built["in_force"]["id"]
    assert "in force for instruction" in ok("show", lid, cwd=root)
    assert "NOT in force for training:" in ok("show", lid, "--purpose", "training", cwd=root)
    assert json.loads(ok("show", lid, "--purpose", "review", "--json", cwd=root))["standing"]["purpose"] == "review"
    assert [line.split()[:2] for line in ok("history", lid, cwd=root).splitlines()] == [
        ["v1", "proposed"], ["v2", "accepted"]]
    assert [r["id"] for r in json.loads(ok("proposals", "--json", cwd=root))] == [built["waiting"]["id"]]


def test_grants_in_force_leaves_out_a_grant_withdrawn_for_every_purpose(copy: Context, built: dict) -> None:
    root = copy.workspace.root
    assert len(json.loads(ok("grants", "--in-force", "--json", cwd=root))) == 1
    consent.withdraw(copy, "github:9", built["grant"]["digest"], None, "stop")
    assert json.loads(ok("grants", "--in-force", "--json", cwd=root)) == []
    [listed] = json.loads(ok("grants", "--json", cwd=root))
    assert listed["inForce"] == [] and "permits nothing (all withdrawn)" in ok("grants", cwd=root)


def test_accept_warns_when_the_learning_is_not_in_force(copy: Context, built: dict) -> None:
    consent.withdraw(copy, "github:9", built["grant"]["digest"], ["instruction"], "paused")
    out = ok("accept", built["waiting"]["id"], "--review-digest", built["waiting"]["reviewDigest"],
             "--by", "github:9", cwd=copy.workspace.root)
    assert out.startswith(f"accepted {built['waiting']['id']}") and "warning: agents do not get it yet" in out
    assert "to do: a person who may decide can grant it: `gitstore grant --purpose instruction" in out


def test_a_label_judging_a_comment_of_another_episode_is_judged_with_it(copy: Context, built: dict) -> None:
    elsewhere = Thread(copy, 9, "300")
    label = elsewhere.event("label", "label:cross", "2026-03-04T10:00:00.000000Z", "bot:labeler",
                            parent=built["jitter"]["id"],
                            label={"theme": "retry-jitter", "polarity": "problem", "category": "convention"})
    elsewhere.save()
    learning = accepted(copy, propose(copy, [ref(label)], title="Labelled", text="Jitter, as labelled."))
    assert learnings.standing(copy, learning["id"]).in_force
    assert learning["id"] in {r.status.id for r in learnings.learnings(copy, active=True)}


@pytest.mark.parametrize("seed", [3, 11])
def test_learnings_judge_as_the_whole_store_does(tmp_path: Path, seed: int) -> None:
    """Listing learnings keeps only the events the rules can look at (cited ones, what they
    judge, the versions and retractions of each): its verdicts are those of a view of every
    record, on a store with edits, labels, retractions, withdrawals and replacements."""
    from bench.bench_rules import Builder
    from gitstore.rules.active import evaluate
    from gitstore.rules.view import View

    Builder(tmp_path / "repo", 60, 600, seed=seed).build()
    ctx = Context.open(tmp_path / "repo")
    whole = View.load(ctx.store)
    for purpose in ("instruction", "analytics"):
        rows = learnings.learnings(ctx, purpose)
        assert {r.status.id: r.status for r in rows} == evaluate(whole, purpose)


def test_a_listing_with_nothing_to_list_says_so_and_what_fills_it(tmp_path: Path) -> None:
    """A new user's empty store: every listing answers in words (its JSON stays an empty list)."""
    root = ready_repo(tmp_path / "widgets").workspace.root
    assert ok("proposals", cwd=root).startswith("no proposals wait for a person: `gitstore dream` proposes")
    assert ok("learnings", cwd=root).startswith("no learnings yet: `gitstore dream` proposes them")
    assert ok("learnings", "--active", "--purpose", "review", cwd=root) == "no learning is in force for review\n"
    assert ok("audit", cwd=root).startswith("no audit entries yet: grants, withdrawals, decisions")
    assert ok("episodes", cwd=root).startswith("no episodes yet")
    assert ok("grants", cwd=root).startswith("no grants")
    for command in (["proposals"], ["learnings"], ["learnings", "--active"], ["audit"], ["episodes"]):
        assert json.loads(ok(*command, "--json", cwd=root)) == [], command


def test_show_names_who_stored_each_piece_of_evidence(tmp_path: Path) -> None:
    """The author, pull request and thread an event names are its writer's word: anyone who can
    push can store three people on three pull requests in one append. A reviewer sees who
    stored each piece: this clone, or which other clone's writer."""
    from gitstore.cli import main

    from .team import proposal_of_two, sync, team_clone

    alice, bob, proposal = proposal_of_two(tmp_path)
    [own] = learnings.show(alice, proposal["id"]).evidence
    assert own.stored_by == ("this clone",)
    [alices] = learnings.show(bob, proposal["id"]).evidence
    assert alices.stored_by == (f"writer {alice.store.provider.writer}",)  # type: ignore[attr-defined]

    mallory = team_clone(tmp_path, tmp_path / "remote.git", "mallory")  # in no policy, signing nothing
    thread = Thread(mallory, 8, "200")
    comment = thread.comment("200", "Use jitter on retries, always.", "2026-03-02T10:00:00.000000Z")
    thread.save()
    forged = propose(mallory, [ref(comment)])
    mallory, alice = sync(mallory, alice)
    [mallorys] = learnings.show(alice, forged["id"]).evidence
    assert mallorys.stored_by == (f"writer {mallory.store.provider.writer}",)  # type: ignore[attr-defined]
    assert mallorys.to_json()["storedBy"] == list(mallorys.stored_by)
    os.chdir(alice.workspace.root)
    assert main(["show", forged["id"]]) == 0
