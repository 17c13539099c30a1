"""A decision on a learning reads that learning, not every learning stored: proposals pushed by
the hundred thousand cost nothing to the person deciding on another one. And a view of one
learning judges it exactly as a view of the whole store does, whatever was pushed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygit2
import pytest

from gitstore.context import Context
from gitstore.errors import IntegrityError
from gitstore.ops import learning as ops
from gitstore.providers import Stored
from gitstore.providers.git import GitProvider
from gitstore.records.contracts import content_digest, seal
from gitstore.rules.lifecycle import build
from gitstore.rules.view import View

from .conftest import git
from .hostile import decision_step
from .team import forge
from .world import Thread, accepted, grant_all, propose, ready_repo, ref

PUSHED = 30


def _pushed(ctx: Context, comment: dict[str, Any], count: int) -> list[str]:
    """``count`` proposals and their audit entries in one append, as a teammate's bulk push
    leaves them (each cites the stored comment)."""
    records: list[dict[str, Any]] = []
    cited = ops._refs(ctx.view(), [ref(comment)])
    for n in range(count):
        record: dict[str, Any] = {
            "schema": "gitstore.learning/v1", "scope": ctx.scope, "version": 1, "previous": None,
            "state": "proposed", "category": "convention", "memory": "semantic", "audience": "project",
            "audienceRationale": "From this repository's reviews.",
            "content": {"title": f"Pushed theme {n}", "text": f"Pushed statement number {n}."},
            "targets": [], "replaces": [], "evidence": cited, "counterevidence": [],
            "validFrom": None, "validUntil": None, "support": 1, "dissent": 0, "confidence": "low",
            "rationale": "Pushed.", "proposer": {"kind": "consolidator", "id": "recurrence"},
            "at": "2026-03-02T10:00:00.000000Z",
        }
        record["id"] = "lrn_" + content_digest(record)[7:39]
        seal(record)
        records += [record, ctx.audit("propose", "github:9", [record["id"]], [record])]
    ctx.store.append(records)
    return [r["id"] for r in records if r["schema"] == "gitstore.learning/v1"]


@pytest.fixture
def crowded(tmp_path: Path) -> tuple[Path, dict[str, Any], dict[str, Any], list[str]]:
    """A store holding one proposal, one comment, and many pushed proposals of others."""
    ctx = ready_repo(tmp_path / "repo")
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    mine = propose(ctx, [ref(comment)])
    others = _pushed(ctx, comment, PUSHED)
    return tmp_path / "repo", mine, comment, others


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, str]]:
    """(kind, stream) of every record the git provider hands over, from here on."""
    seen: Counter[tuple[str, str]] = Counter()
    original = GitProvider._read

    def counted(self: GitProvider, *args: Any, **kwargs: Any) -> Iterator[Stored]:
        for stored in original(self, *args, **kwargs):
            seen[(stored.kind, stored.stream)] += 1
            yield stored

    monkeypatch.setattr(GitProvider, "_read", counted)
    return seen


def _learnings_read(reads: Counter[tuple[str, str]]) -> set[str]:
    return {stream for kind, stream in reads if kind == "learning"}


def test_accept_reject_and_retire_read_only_the_learning_decided(
        crowded: tuple[Path, dict[str, Any], dict[str, Any], list[str]], reads: Counter[tuple[str, str]]) -> None:
    root, mine, _, others = crowded
    ctx = Context.open(str(root))
    reads.clear()
    done = ops.accept(ctx, mine["id"], mine["reviewDigest"], "github:9")
    assert done["state"] == "accepted"
    assert _learnings_read(reads) == {mine["id"]}, sorted(_learnings_read(reads))
    assert reads[("audit", "audit")] == 0  # no decision yet: no audit entry vouches for anything here
    reads.clear()
    ops.retire(Context.open(str(root)), mine["id"], "github:9", "The code it describes is gone.")
    assert _learnings_read(reads) == {mine["id"]}
    assert reads[("audit", "audit")] == 1  # the accept's own entry, which vouches for it
    other = Context.open(str(root)).view(payloads=False, kinds=("learning",)).learnings[others[0]][-1].record
    reads.clear()
    ops.reject(Context.open(str(root)), other["id"], other["reviewDigest"], "github:9", "Too narrow.")
    assert _learnings_read(reads) == {other["id"]}
    assert {stream for kind, stream in reads if kind == "episode"} <= {mine["evidence"][0]["episode"]}


def test_proposing_reads_the_learnings_it_names_and_the_evidence_it_cites(
        crowded: tuple[Path, dict[str, Any], dict[str, Any], list[str]], reads: Counter[tuple[str, str]]) -> None:
    root, mine, comment, others = crowded
    ctx = Context.open(str(root))
    reads.clear()
    draft = ops.Draft(title="Timeouts are per call", text="Every outbound call sets its own timeout.",
                      category="convention", evidence=[ref(comment)], counterevidence=[], replaces=(others[3],),
                      proposer=("person", "github:9"))
    record = ops.propose(ctx, draft, "github:9")
    assert _learnings_read(reads) <= {record["id"], others[3]}
    with pytest.raises(Exception, match="already proposed"):
        ops.propose(Context.open(str(root)), draft, "github:9")


def _judged(view: View, learning: str) -> tuple[Any, ...]:
    history = build(learning, view.learnings.get(learning, []), view.saw, view.copies) \
        if view.learnings.get(learning) else None
    mine = {d: why for d, why in view.ignored.items()
            if any(i.digest == d for i in view.learnings.get(learning, []))}
    if history is None:
        return None, view.head(learning), mine
    return ([i.digest for i in history.chain], history.intact, history.problem, history.contested,
            sorted(i.digest for i in history.ignored), view.head(learning), mine)


def test_a_view_of_one_learning_judges_it_as_a_view_of_every_learning_does(tmp_path: Path) -> None:
    """Every state, replacements, and what a forger with push access adds: a decision with no
    audit entry beside it, and a copy of an honest decision with its entry in an append that
    claims to come first."""
    from bench.bench_rules import Builder

    built = Builder(tmp_path / "repo", 60, 400, 5).build()
    ctx = Context.open(str(built.root))
    whole = ctx.view(payloads=False, kinds=("learning",))
    proposed = [lid for lid, items in whole.learnings.items() if items[-1].record["state"] == "proposed"]
    accepted_ones = [lid for lid, items in whole.learnings.items() if items[-1].record["state"] == "accepted"]
    bare = decision_step(whole.learnings[proposed[0]][-1].record, "accepted", "github:9")
    forge(built.root, "0forger", [bare])
    honest = whole.learnings[accepted_ones[0]][-1]
    entry = next(a for a in whole.audits if honest.digest in a["records"])
    elsewhere = tmp_path / "copier"  # holds none of it, so the append stores the copy
    git(tmp_path, "init", "-q", str(elsewhere))
    forge(elsewhere, "0copier", [honest.record, entry], clock=1, blind=True)
    copied = "refs/memory/v1/records/shared/0copier"
    git(built.root, "fetch", "-q", str(elsewhere), f"{copied}:refs/memory/v1/remotes/origin/records/shared/0copier")
    store = Context.open(str(built.root)).store
    whole = View.load(store, payloads=False, kinds=("learning",))
    assert bare["digest"] in whole.ignored
    assert store.provider.copies(honest.digest)  # type: ignore[attr-defined]  # stored twice: read first from the copy
    for learning in sorted(whole.learnings):
        alone = View.of_learnings(Context.open(str(built.root)).store, [learning])
        assert _judged(alone, learning) == _judged(whole, learning), learning


def test_a_read_of_one_stream_skips_the_big_appends_that_hold_none_of_it(
        crowded: tuple[Path, dict[str, Any], dict[str, Any], list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """A bulk push's commit lists every record it stored: once a read has loaded it, reads of a
    stream it does not hold skip it, and reads of one it does hold still find every record."""
    from gitstore.providers import git as git_module

    root, mine, comment, _ = crowded
    monkeypatch.setattr(git_module, "REMEMBER_ORDER_FROM", 2000)  # the pushed append counts as big
    ctx = Context.open(str(root))
    big = _pushed(ctx, comment, 40)
    assert len(list(ctx.store.items(["learning"]))) > 40  # every commit loaded once: their filters kept
    loads: Counter[str] = Counter()
    original = GitProvider._commit

    def counted(self: GitProvider, repo: Any, oid: Any, where: str, keep: bool = True) -> Any:
        loads[str(oid)] += 1
        return original(self, repo, oid, where, keep)

    monkeypatch.setattr(GitProvider, "_commit", counted)
    fresh = Context.open(str(root))
    pushed_at = next(i.stored.append for i in fresh.store.items(["learning"], streams=[big[7]]))
    assert [i.record["id"] for i in Context.open(str(root)).store.items(["learning"], streams=[mine["id"]])] \
        == [mine["id"]]
    # a filter may say "maybe" wrongly (about one name in a hundred, and the names here differ from
    # run to run): of thirty streams the append does not hold, nearly every read skips it
    skipped = 0
    for n in range(30):
        loads.clear()
        assert not list(Context.open(str(root)).store.items(["learning"], streams=[f"lrn_{n:032x}"]))
        skipped += loads[pushed_at] == 0
    assert skipped >= 26, skipped
    found = list(Context.open(str(root)).store.items(["learning", "audit"], streams=[big[7], "audit"]))
    versions = [i.record for i in found if i.kind == "learning"]
    assert [v["id"] for v in versions] == [big[7]]
    assert loads[pushed_at] >= 1
    assert ops.reject(Context.open(str(root)), big[7], versions[0]["reviewDigest"], "github:9", None)["state"] \
        == "rejected"
    ops.accept(Context.open(str(root)), mine["id"], mine["reviewDigest"], "github:9")
    loads.clear()  # retiring finds the accept's audit entry (else the accept would not count) by its digest alone
    assert ops.retire(Context.open(str(root)), mine["id"], "github:9", "Gone.")["state"] == "retired"
    assert loads[pushed_at] == 0


def test_a_kept_filter_never_rules_out_a_name_it_was_made_of_and_a_damaged_one_rules_out_nothing() -> None:
    from gitstore.providers._holds import Filter, made

    names = [f"lrn_{n:032x}" for n in range(500)]
    kept = Filter.read(made(names))
    assert kept is not None and all(kept.may_hold([name]) for name in names)
    assert sum(kept.may_hold([f"ep_{n}"]) for n in range(1000)) < 50  # about one in a hundred says maybe
    for damaged in (None, [], {"bits": True, "field": ""}, {"bits": 64, "field": "not base64!"},
                    {"bits": 640, "field": made(names[:1])["field"]}):
        assert Filter.read(damaged) is None  # then the commit is loaded, as before


def test_accepting_and_what_accept_and_propose_print_read_only_the_claims_that_settle_it(
        crowded: tuple[Path, dict[str, Any], dict[str, Any], list[str]], reads: Counter[tuple[str, str]]) -> None:
    """Whether a learning is in force after accepting it, what propose warns of, and accepting
    a replacement and what it says it took: the learning, those it names and those whose
    claims could take the same ones, not every learning stored."""
    from gitstore.queries.learnings import barred_beyond_review, show

    root, mine, comment, others = crowded
    reads.clear()
    record, standing, _, _ = ops.accept_and_check(Context.open(str(root)), mine["id"], mine["reviewDigest"],
                                                  "github:9")
    assert record["state"] == "accepted" and standing.in_force
    assert _learnings_read(reads) == {mine["id"]}, sorted(_learnings_read(reads))
    reads.clear()
    assert barred_beyond_review(Context.open(str(root)), others[0]) is None
    assert _learnings_read(reads) == {others[0]}
    reads.clear()
    shown = show(Context.open(str(root)), mine["id"])
    assert shown.row.status.state == "accepted" and shown.standing.in_force
    assert _learnings_read(reads) == {mine["id"]}
    for old in others[2:4]:
        proposal = Context.open(str(root)).view(payloads=False, kinds=("learning",)).learnings[old][-1].record
        ops.accept(Context.open(str(root)), old, proposal["reviewDigest"], "github:9")
    draft = ops.Draft(title="Retries back off", text="Every retry waits longer than the one before.",
                      category="convention", evidence=[ref(comment)], counterevidence=[],
                      replaces=(others[2], others[3]), proposer=("person", "github:9"))
    replacement = ops.propose(Context.open(str(root)), draft, "github:9")
    rival = ops.propose(Context.open(str(root)), ops.Draft(
        title="Retries stop", text="A retry loop gives up after three tries.", category="convention",
        evidence=[ref(comment)], counterevidence=[], replaces=(others[3], others[4]),
        proposer=("person", "github:9")), "github:9")
    involved = {replacement["id"], rival["id"], *others[2:5]}
    reads.clear()
    record, standing, _, _ = ops.accept_and_check(Context.open(str(root)), replacement["id"],
                                                  replacement["reviewDigest"], "github:9")
    assert record["supersedes"] == [others[2], others[3]] and standing.in_force
    assert _learnings_read(reads) <= involved, sorted(_learnings_read(reads) - involved)
    reads.clear()
    assert ops.settled_replacement(Context.open(str(root)), replacement["id"]) == ([others[2], others[3]], [], None)
    assert _learnings_read(reads) <= involved
    reads.clear()
    with pytest.raises(Exception, match="already replaced"):
        ops.accept(Context.open(str(root)), rival["id"], rival["reviewDigest"], "github:9")
    assert _learnings_read(reads) <= involved


def _standing_of_every_learning(ctx: Context, learning: str) -> Any:
    """``standing`` from a view of every learning (what it read before it read their claims)."""
    from gitstore.queries._views import learning_view
    from gitstore.queries.learnings import _held, explain
    from gitstore.rules.active import evaluate

    view, histories = learning_view(ctx.store, lambda h: h.id == learning)
    status = evaluate(view, "instruction", all_histories=histories)[learning]
    return explain(view, status, "instruction", _held(ctx, view, histories[learning]), histories[learning])


def test_a_learning_stands_in_a_view_of_its_claims_as_in_a_view_of_every_learning(tmp_path: Path) -> None:
    """Every state and replacement a store holds (one added later, one retired),
    with rival claims a forger with push access stores without authority: the standing read
    from the claims that settle it is the standing read from every learning."""
    from bench.bench_rules import Builder
    from gitstore.queries.learnings import standing
    from gitstore.rules.active import evaluate

    built = Builder(tmp_path / "repo", 60, 400, 5).build()
    ctx = Context.open(str(built.root))
    whole = ctx.view()
    claims = {lid: items[-1].record for lid, items in whole.learnings.items()
              if any(i.record.get("supersedes") for i in items)}
    honest, taken = next((lid, r["supersedes"]) for lid, r in claims.items() if r["state"] == "accepted")
    free = next(lid for lid, items in whole.learnings.items() if items[-1].record["state"] == "accepted"
                and lid not in claims and all(lid not in r["supersedes"] for r in claims.values()))
    cited = whole.learnings[honest][-1].record["evidence"][:1]
    forged = []
    for n, names in enumerate(([taken[0]], [taken[-1], free])):
        draft = ops.Draft(title=f"Rival rule {n}", text=f"A rival replacement, number {n}.", category="convention",
                          evidence=[{"episode": r["episode"], "events": r["events"]} for r in cited],
                          counterevidence=[], replaces=tuple(names), proposer=("person", "github:9"))
        proposal = ops.build_proposal(ctx, whole, draft)
        step = decision_step(proposal, "accepted", "github:9")
        del step["digest"]
        step["supersedes"] = list(names)
        step = seal(step)
        forged += [proposal, ctx.audit("propose", "github:9", [proposal["id"]], [proposal]),
                   step, ctx.audit("accept", "github:9", [step["id"], *names], [step])]
    forge(built.root, "0rival", forged, clock=1, blind=True)
    statuses = evaluate(Context.open(str(built.root)).view(), "instruction")
    assert sum(bool(s.replaced_by) for s in statuses.values()) >= 3
    for learning in sorted(statuses):
        assert standing(Context.open(str(built.root)), learning, "instruction") \
            == _standing_of_every_learning(Context.open(str(built.root)), learning), learning


def test_contested_claims_stand_in_a_view_of_their_claims_as_in_a_view_of_every_learning(tmp_path: Path) -> None:
    """Two reviewers each accept replacements without having seen the other's: claims chained
    through the learnings they name, contested and lost, settle alike from either view."""
    from gitstore.queries.learnings import standing
    from gitstore.rules.active import evaluate

    from .team import sync, two_reviewers

    alice, bob = two_reviewers(tmp_path)
    grant_all(alice)
    thread = Thread(alice, 7, "100")
    comments = [thread.comment(str(100 + i), f"point {i}", f"2026-03-0{i + 1}T10:00:00.000000Z") for i in range(6)]
    thread.save()
    old = [accepted(alice, propose(alice, [ref(comments[i])], title=f"Old {i}", text=f"Old {i}.")) for i in range(4)]
    plans = [(0,), (0, 1), (1, 2), (2, 3), (3,)]
    claims = [propose(alice, [ref(comments[4 + n % 2])], title=f"New {n}", text=f"New {n}.",
                      replaces=tuple(old[i]["id"] for i in names)) for n, names in enumerate(plans)]
    alice, bob = sync(alice, bob)
    for n, claim in enumerate(claims):
        if n % 2 == 0:
            accepted(alice, claim)
        else:
            accepted(bob, claim, by="github:10")
    alice, bob = sync(alice, bob)
    whole = alice.view()
    statuses = evaluate(whole, "instruction")
    assert any(s.contested for s in statuses.values()) and any(s.conflicted for s in statuses.values())
    for learning in statuses:  # git says which learnings name one without reading every learning
        naming = {other for other, items in whole.learnings.items()
                  if any(learning in [*i.record["replaces"], *i.record.get("supersedes", ())] for i in items)}
        assert naming <= Context.open(alice.workspace.root).store.claimants([learning]), learning
    for learning in sorted(statuses):
        assert standing(Context.open(alice.workspace.root), learning, "instruction") \
            == _standing_of_every_learning(Context.open(alice.workspace.root), learning), learning


def test_a_damaged_version_that_may_claim_a_learning_is_read_as_a_read_of_every_learning_reads_it(
        crowded: tuple[Path, dict[str, Any], dict[str, Any], list[str]]) -> None:
    """A version stored under a digest its bytes do not have cannot be trusted to say what it
    names (it may have named this learning before it was changed): it is read, and the
    standing of any learning fails or stands as a read of every learning does."""
    root, mine, _, others = crowded
    ops.accept(Context.open(str(root)), mine["id"], mine["reviewDigest"], "github:9")
    other = Context.open(str(root)).view(payloads=False, kinds=("learning",)).learnings[others[5]][-1].record
    step = decision_step(other, "accepted", "github:9")
    step["rationale"] = "Changed after sealing."  # its bytes no longer have its digest
    forge(root, "0damage", [step], clock=1, blind=True, raw=True)
    store = Context.open(str(root)).store
    assert others[5] in store.claimants([mine["id"]])

    def outcome(judge: Any) -> Any:
        try:
            return judge(Context.open(str(root)), mine["id"])
        except Exception as exc:  # noqa: BLE001 - the same refusal, whichever view read it
            return type(exc), str(exc)

    from gitstore.queries.learnings import standing

    found = outcome(lambda ctx, learning: standing(ctx, learning, "instruction"))
    assert found == outcome(_standing_of_every_learning)
    assert found[0] is IntegrityError and step["digest"] in found[1], found


def test_what_a_big_appends_learnings_name_is_kept_by_its_commit_and_a_damaged_list_is_read_again(
        crowded: tuple[Path, dict[str, Any], dict[str, Any], list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The append that makes a big commit keeps what its learning versions name; a read finds
    the learnings naming one from it without reading those versions, and a kept list that is
    not one is made again from the versions, never trusted."""
    import json

    from gitstore.providers import git as git_module

    root, mine, comment, _ = crowded
    monkeypatch.setattr(git_module, "REMEMBER_ORDER_FROM", 2000)
    monkeypatch.setattr(git_module, "CLAIMS_KEPT_FROM", 2)
    ctx = Context.open(str(root))
    big = _pushed(ctx, comment, 40)
    draft = ops.Draft(title="Retries back off", text="Every retry waits longer than the one before.",
                      category="convention", evidence=[ref(comment)], counterevidence=[],
                      replaces=(big[3],), proposer=("person", "github:9"))
    claim = ops.build_proposal(ctx, ctx.view(), draft)
    records = [claim, ctx.audit("propose", "github:9", [claim["id"]], [claim])]
    for n in range(12):  # with more, so the append is big
        extra = ops.build_proposal(ctx, ctx.view(), ops.Draft(
            title=f"Filler {n}", text=f"Filler statement {n}.", category="convention", evidence=[ref(comment)],
            counterevidence=[], proposer=("person", "github:9")))
        records += [extra, ctx.audit("propose", "github:9", [extra["id"]], [extra])]
    ctx.store.append(records)
    blobs_read: list[str] = []
    original = git_module._BlobIndex.data

    def counted(self: Any, info: Any, kind: str, digest: str, commit: Any) -> bytes:
        if kind == "learning":
            blobs_read.append(digest)
        return original(self, info, kind, digest, commit)

    monkeypatch.setattr(git_module._BlobIndex, "data", counted)
    assert Context.open(str(root)).store.claimants([big[3]]) == {claim["id"]}
    assert not set(blobs_read) & {r["digest"] for r in records}  # kept by the append that made it
    blobs_read.clear()
    assert Context.open(str(root)).store.claimants([mine["id"]]) == set()
    assert len(blobs_read) <= 1  # mine's own small append, not the big ones (kept by the first read)
    assert git_module.CLAIMS not in json.loads((root / ".git" / "gitstore" / "verified" / "appends.json").read_text())
    kept = root / ".git" / "gitstore" / "verified" / "claims.json"  # read by what settles claims alone
    lists = json.loads(kept.read_text())[git_module.CLAIMS]
    assert [[claim["id"], [big[3]]]] in lists.values()
    data = json.loads(kept.read_text())
    data[git_module.CLAIMS] = {oid: [["lrn_forged", "not a list"]] for oid in lists}
    kept.write_text(json.dumps(data))
    blobs_read.clear()
    assert Context.open(str(root)).store.claimants([big[3]]) == {claim["id"]}
    assert len(blobs_read) > 40


def test_a_read_of_a_dozen_streams_still_skips_the_big_appends_that_hold_none_of_them(
        crowded: tuple[Path, dict[str, Any], dict[str, Any], list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Accepting a replacement of a dozen learnings reads a dozen streams or more (those whose
    claims settle it): the filters still rule out the big appends holding none of them."""
    from gitstore.providers import git as git_module

    root, _, comment, _ = crowded
    monkeypatch.setattr(git_module, "REMEMBER_ORDER_FROM", 2000)  # the pushed append counts as big
    ctx = Context.open(str(root))
    big = _pushed(ctx, comment, 40)  # the first 30 are those pushed before: the last 10 are new
    assert len(list(ctx.store.items(["learning"]))) > 40  # every commit loaded once: their filters kept
    searched: Counter[str] = Counter()  # appends whose record lines a read searched
    original = GitProvider._lines

    def counted(self: GitProvider, repo: Any, oid: Any, *args: Any, **kwargs: Any) -> Any:
        searched[str(oid)] += 1
        return original(self, repo, oid, *args, **kwargs)

    monkeypatch.setattr(GitProvider, "_lines", counted)
    pushed_at = next(i.stored.append for i in Context.open(str(root)).store.items(["learning"], streams=[big[35]]))
    searched.clear()
    # none of them in the big append, and each one its filter rules out alone (a filter says
    # "maybe" wrongly for about one name in a hundred, and this store's names differ each run)
    provider: GitProvider = Context.open(str(root)).store.provider  # type: ignore[assignment]
    dozen = [name for name in (f"lrn_{n:032x}" for n in range(100))
             if not provider._may_hold(pygit2.Oid(hex=pushed_at), [name])][:13]
    assert len(dozen) == 13
    searched.clear()
    assert not list(Context.open(str(root)).store.items(["learning"], streams=dozen))
    assert searched[pushed_at] == 0
    assert {i.record["id"] for i in Context.open(str(root)).store.items(["learning"], streams=[*dozen, big[35]])} \
        == {big[35]}
    assert searched[pushed_at] >= 1
