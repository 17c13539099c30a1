"""Tidy: near-duplicates get a merge proposal, conflicts are reported and never merged, learnings
whose evidence no longer serves or whose paths are gone at the default branch's tip are reported
for a person."""

from __future__ import annotations

from pathlib import Path

from gitstore.ops import consent
from gitstore.ops import learning as ops
from gitstore.context import Context

from . import dream_world as w
from .world import ref


def learn(ctx: Context, event: dict, text: str, targets: tuple[str, ...] = ()) -> dict:  # type: ignore[type-arg]
    draft = ops.Draft(title=text.rstrip("."), text=text, category="convention", evidence=[ref(event)],
                      counterevidence=[], targets=targets, proposer=("person", w.BY))
    record = ops.propose(ctx, draft, w.BY)
    return ops.accept(ctx, record["id"], record["reviewDigest"], w.BY)


def test_near_duplicates_get_one_merge_proposal_for_a_person_to_decide(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    one = w.comment(ctx, 1, "github:1", "Retries need jittered backoff.", 0)[0]
    two = w.comment(ctx, 2, "github:2", "Use jitter in retry backoff.", 10)[0]
    a = learn(ctx, one, "Every retry loop uses exponential backoff with full jitter.")
    b = learn(ctx, two, "Every retry loop uses exponential backoff with jitter.")
    report = w.run(ctx)
    [merge] = [p for p in report.proposed if p["replaces"]]
    assert sorted(merge["replaces"]) == sorted([a["id"], b["id"]])
    assert {e for r in merge["evidence"] for e in r["events"]} == {one["id"], two["id"]}
    [finding] = report.tidy
    assert finding["kind"] == "duplicate" and finding["proposal"] == merge["id"]
    again = w.run(ctx).tidy
    assert again[0]["suggestion"] == f"a merge of them is already proposed: {merge['id']}"


def test_a_personal_and_a_team_near_duplicate_get_no_merge_and_the_dream_goes_on(tmp_path: Path) -> None:
    """A merge of a personal learning and a team one would be kept on this machine and could not
    take the team one out of force on the other clones: tidy proposes none, says why, and the
    rest of the dream (a recurring theme) is proposed as ever."""
    ctx = w.repo(tmp_path)
    one = w.comment(ctx, 1, "github:1", "Pin the linter version in CI.", 0)[0]
    two = w.comment(ctx, 2, "github:2", "Pin the linter version in CI too.", 10)[0]
    team = learn(ctx, one, "Every retry loop uses exponential backoff with full jitter.")
    draft = ops.Draft(title="Retries use jitter", text="Every retry loop uses exponential backoff with jitter.",
                      category="convention", evidence=[ref(two)], counterevidence=[], audience="personal",
                      audience_rationale="My own habit.", proposer=("person", w.BY))
    mine = ops.propose(ctx, draft, w.BY)
    ops.accept(ctx, mine["id"], mine["reviewDigest"], w.BY)
    assert ctx.store.is_local_learning(mine["id"]) and not ctx.store.is_local_learning(team["id"])
    w.jitter_theme(ctx)
    report = w.run(ctx)
    assert report.exit_code == 0 and not [p for p in report.proposed if p["replaces"]], report.proposed
    assert [p["theme"] for p in report.proposed] == ["backoff-jitter-retry"], report.proposed
    [finding] = report.tidy
    assert finding["kind"] == "duplicate" and finding["suggestion"].startswith(
        f"no merge: one replacing {team['id']} would be kept on this machine (personal: {mine['id']})"), finding


def test_a_merge_in_other_words_or_of_more_learnings_is_not_taken_for_tidy_s_own(tmp_path: Path) -> None:
    """Anyone can store a merge of the two (and a third, unrelated one) in words of their own:
    taken for the merge, it kept tidy from proposing its own, and once rejected it blocked
    every later one. Tidy proposes its merge beside it."""
    ctx = w.repo(tmp_path)
    one = w.comment(ctx, 1, "github:1", "Retries need jittered backoff.", 0)[0]
    two = w.comment(ctx, 2, "github:2", "Use jitter in retry backoff.", 10)[0]
    three = w.comment(ctx, 3, "github:3", "Log the request id with every error.", 20)[0]
    a = learn(ctx, one, "Every retry loop uses exponential backoff with full jitter.")
    b = learn(ctx, two, "Every retry loop uses exponential backoff with jitter.")
    c = learn(ctx, three, "Every error log line carries the request id.")
    planted = ops.merge(ctx, [a["id"], b["id"], c["id"]], "Every retry loop uses exponential backoff with jitter",
                        "Retries back off with jitter; tests set verify=False on the HTTP client.", w.BY)
    ops.reject(ctx, planted["id"], planted["reviewDigest"], w.BY, "Not what we said.")
    report = w.run(ctx)
    [merge] = [p for p in report.proposed if p["replaces"]]
    assert sorted(merge["replaces"]) == sorted([a["id"], b["id"]]) and merge["id"] != planted["id"]


def test_conflicts_are_reported_and_never_merged(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    one = w.comment(ctx, 1, "github:1", "Retries need jittered backoff.", 0)[0]
    two = w.comment(ctx, 2, "github:2", "Internal queues skip jitter.", 10)[0]
    learn(ctx, one, "Retry loops in the worker use exponential backoff with jitter.")
    learn(ctx, two, "Retry loops in the worker never use exponential backoff with jitter.")
    report = w.run(ctx)
    assert [f["kind"] for f in report.tidy] == ["conflict"] and report.proposed == []
    assert "never merged" in report.tidy[0]["suggestion"]


def test_stale_evidence_and_paths_gone_at_head_are_reported(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    one = w.comment(ctx, 1, "github:1", "Retries need jittered backoff.", 0)[0]
    two = w.comment(ctx, 2, "github:2", "Log the request id with every error.", 10)[0]
    gone = learn(ctx, one, "Every retry loop uses exponential backoff with full jitter.", targets=("src/old.py",))
    report = w.run(ctx)
    [missing] = report.tidy
    assert missing["kind"] == "missing-path" and missing["learnings"] == [gone["id"]]
    assert "src/old.py, which no longer exist at the default branch's tip" in missing["detail"]
    withdrawn = learn(ctx, two, "Errors are logged with the request id.")
    grant = next(iter(ctx.view().grants))
    consent.withdraw(ctx, w.BY, grant, ["instruction"], "paused")
    kinds = {f["learnings"][0]: f for f in w.run(ctx).tidy}
    assert kinds[withdrawn["id"]]["kind"] == "stale-evidence"
    assert kinds[withdrawn["id"]]["suggestion"].startswith("retire it")


def test_a_branch_checked_out_that_moves_a_file_calls_no_learning_stale(tmp_path: Path) -> None:
    """A pull request's branch moves src/retry.py: checked out, it had tidy advise retiring a
    good learning whose paths the default branch still holds."""
    from .conftest import git

    ctx = w.repo(tmp_path)
    root = ctx.workspace.root
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "retry.py").write_text("def retry(): pass\n")
    git(root, "add", "src/retry.py")
    git(root, "commit", "-q", "-m", "retry")
    one = w.comment(ctx, 1, "github:1", "Retries need jittered backoff.", 0)[0]
    learn(ctx, one, "Every retry loop uses exponential backoff with full jitter.", targets=("src/retry.py",))
    git(root, "checkout", "-q", "-b", "feature/move")
    git(root, "mv", "src/retry.py", "src/retry_impl.py")
    git(root, "commit", "-q", "-m", "move")
    assert w.run(ctx, dry_run=True).tidy == []


def test_a_learning_with_long_paths_gone_at_head_is_reported_within_bounds(tmp_path: Path) -> None:
    """Three missing targets of 400 characters each made tidy's finding longer than the 500
    characters a finding may hold: every dream refused its whole outcome."""
    ctx = w.repo(tmp_path)
    one = w.comment(ctx, 1, "github:1", "Retries need jittered backoff.", 0)[0]
    targets = tuple(f"src/{n}/" + "deep/" * 77 + "old.py" for n in range(3))
    gone = learn(ctx, one, "Every retry loop uses exponential backoff with full jitter.", targets=targets)
    [missing] = w.run(ctx).tidy
    assert missing["kind"] == "missing-path" and missing["learnings"] == [gone["id"]]
    assert len(missing["detail"]) <= 500 and missing["detail"].startswith(f"{gone['id']} cites src/0/deep/"), missing
    assert "and 2 more, which no longer exist at the default branch's tip" in missing["detail"], missing
