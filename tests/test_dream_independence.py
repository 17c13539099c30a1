"""Independence of the evidence a dream counts: one reviewer, one review or one writer must not
make a theme recur across pull requests, threads or people it was never raised in."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import dream_world as w

ASK = "Retries need jittered backoff, otherwise every client hammers the API at once."
OWN = "Back off with jitter before retrying; a fixed delay caused the thundering herd."


@pytest.mark.parametrize("again", [
    pytest.param(ASK, id="pasted"),
    pytest.param(ASK.upper(), id="upper-case"),
    pytest.param(ASK.replace(",", "").replace(".", "!"), id="punctuation"),
    pytest.param(ASK.replace("jittered", "jit\u200btered"), id="zero-width"),
    pytest.param(ASK.replace("the API", "th\u0435 API"), id="look-alike-letter"),
    pytest.param(ASK.replace("every", "each"), id="a-word-swapped"),
    pytest.param(ASK.replace("at once", "all at once"), id="a-word-added"),
])
def test_one_reviewer_pasting_a_remark_on_another_pull_request_adds_no_change(tmp_path: Path, again: str) -> None:
    """A reviewer pasting their own remark on a second pull request, as it was or with a word
    swapped, is one origin: the second pull request is no second change where the theme was
    raised, so with a second reviewer on the first one only the theme fails the changes gate."""
    ctx = w.repo(tmp_path)
    w.comment(ctx, 10, "github:101", ASK, 0)
    w.comment(ctx, 11, "github:101", again, 10)
    w.comment(ctx, 10, "github:102", OWN, 20)
    report = w.run(ctx)
    assert report.proposed == []
    [verdict] = report.rejected
    assert verdict["reasons"] == ["1 pull requests or branches (needs 2)"]
    assert verdict["signals"]["origins"] == 2 and verdict["signals"]["copies"] == 1


def _sha(pr: int) -> str:
    """The head commit of pull request PR: each pull request's own, as GitHub's are."""
    return f"{pr:x}".rjust(40, "e")


def _snapshot(pr: int, comments: list[dict], reviews: list[dict], branch: str | None = None,
              sha: str | None = None) -> dict:
    """A complete REST snapshot of pull request PR, as ``gitstore import github`` writes one."""
    return {"format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": pr,
            "head": {"ref": branch or f"feature/{pr}", "sha": sha or _sha(pr)},
            "responses": [{"collection": "pull-comments", "page": 1, "link": "", "body": comments},
                          {"collection": "reviews", "page": 1, "link": "", "body": reviews},
                          {"collection": "issue-comments", "page": 1, "link": "", "body": []}]}


def _user(n: int) -> dict:
    return {"id": n, "login": f"reviewer{n}", "type": "User"}


def _inline(cid: int, user: int, body: str, at: str, review: int | None = None, sha: str = "e" * 40) -> dict:
    return {"id": cid, "pull_request_review_id": review, "user": _user(user), "body": body, "path": "src/retry.py",
            "line": 3, "commit_id": sha, "created_at": at, "updated_at": at}


def _gates(ctx, **gates: int) -> None:
    import json

    from gitstore.ops.setup import init

    path = ctx.workspace.state / "config.json"
    config = json.loads(path.read_text())
    config["dream"] = {"consolidators": {"recurrence": gates}}
    path.write_text(json.dumps(config))
    init(ctx.workspace.root, accept_changes=True)


def test_a_review_body_and_an_inline_comment_of_it_are_one_independent_origin(tmp_path: Path) -> None:
    """One review says the theme twice, in its body and in an inline comment, each in other words:
    the import stores them as two episodes, yet they are one reviewer's one look at one pull
    request. A team asking for three independent origins in three threads gets two from two
    reviewers, not three."""
    import json

    from gitstore.capture.reviews import import_reviews

    ctx = w.repo(tmp_path)
    review = {"id": 7001, "user": _user(101), "body": ASK, "state": "COMMENTED",
              "submitted_at": "2026-03-02T10:01:00Z", "commit_id": _sha(10)}
    snapshots = [_snapshot(10, [_inline(5001, 101, OWN, "2026-03-02T10:00:00Z", 7001, _sha(10))], [review]),
                 _snapshot(11, [_inline(5002, 102, "Please add random jitter to the retry backoff in this loop.",
                                        "2026-03-02T11:00:00Z", sha=_sha(11))], [])]
    for n, snapshot in enumerate(snapshots):
        path = tmp_path / f"pr{n}.json"
        path.write_text(json.dumps(snapshot))
        import_reviews(ctx, path, w.BY)
    assert len({e["episode"] for e in (i.record for i in ctx.store.items(["event"], payloads=True))
                if e["type"] == "comment"}) == 3  # the body, its inline comment, the second reviewer's
    _gates(ctx, minOrigins=3, minThreads=3)
    report = w.run(ctx, dry_run=True)
    assert report.proposed == [], report.proposed
    [verdict] = report.rejected
    assert verdict["reasons"] == ["2 independent origins (needs 3)", "2 threads or sessions (needs 3)"]
    signals = verdict["signals"]
    assert (signals["evidence"], signals["copies"], signals["people"], signals["changes"]) == (3, 0, 2, 2)


def test_one_reviewers_threads_on_one_pull_request_count_once_and_others_stay(tmp_path: Path) -> None:
    """One reviewer's three threads on #10 in other words are one origin; a second reviewer on
    #10 and the first reviewer on #11 are each one more."""
    ctx = w.repo(tmp_path)
    w.comment(ctx, 10, "github:101", ASK, 0)
    w.comment(ctx, 10, "github:101", OWN, 10)
    w.comment(ctx, 10, "github:101", "Please add random jitter to the retry backoff in this loop.", 20)
    alone = w.run(ctx, dry_run=True).rejected[0]
    assert alone["reasons"] == ["one person: every origin is by github:101"]
    assert (alone["signals"]["origins"], alone["signals"]["threads"], alone["signals"]["copies"]) == (1, 1, 0)
    w.comment(ctx, 10, "github:102", "Jitter the retry backoff, the clients synchronise otherwise.", 30)
    w.comment(ctx, 11, "github:101", "Retry with backoff and some jitter here too, like in the other client.", 40)
    [proposed] = w.run(ctx, dry_run=True).proposed
    assert (proposed["signals"]["origins"], proposed["signals"]["threads"], proposed["signals"]["changes"],
            proposed["signals"]["people"]) == (3, 3, 2, 2), proposed["signals"]


AGREED = "Agreed, the reviewer is right: add jitter to the retry backoff now."


@pytest.mark.parametrize("branch, proposed", [("feature/10", False), ("dev/other", True)])
def test_the_owner_taking_up_a_review_in_a_session_on_its_branch_answers_it(tmp_path: Path, branch: str,
                                                                           proposed: bool) -> None:
    """One reviewer asks on #10 and #11; the clone's owner, working on #10's head branch, agrees
    with their agent after the review. As a reply on #10 would, that answers the ask: no second
    person. The same words on a branch of no pull request the theme was asked on are the owner's
    own support."""
    ctx = w.repo(tmp_path)
    w.grant_sessions(ctx)
    w.comment(ctx, 10, "github:101", ASK, 0)
    w.comment(ctx, 11, "github:101", "Please add random jitter to the retry backoff in this loop.", 10)
    w.session(ctx, tmp_path / "s", "taken-up", AGREED, branch=branch, day=3)
    report = w.run(ctx, dry_run=True)
    assert bool(report.proposed) is proposed, (report.proposed, report.rejected)
    if not proposed:
        [verdict] = report.rejected
        assert verdict["reasons"] == ["one person: every origin is by github:101"]


def test_an_ask_in_a_session_never_makes_a_reviewers_agreement_an_answer(tmp_path: Path) -> None:
    """The owner's session on #10's branch asks first; a reviewer's later "Agreed, ..." on #10 is
    still that reviewer's support: the session never leaves the clone, and every clone holding
    the reviews judges them alike."""
    ctx = w.repo(tmp_path)
    w.grant_sessions(ctx)
    w.session(ctx, tmp_path / "s", "asked", "Add jitter to the retry backoff in the client.", branch="feature/10",
              day=1)
    w.comment(ctx, 10, "github:102", AGREED, 0)
    w.comment(ctx, 11, "github:101", "Please add random jitter to the retry backoff in this loop.", 10)
    [proposal] = w.run(ctx, dry_run=True).proposed
    assert proposal["signals"]["people"] == 2 and not proposal["local"], proposal


THIRD = "Please add random jitter to the retry backoff in this loop."


def _import(ctx, tmp_path: Path, snapshots: list[dict]) -> None:
    import json

    from gitstore.capture.reviews import import_reviews

    for snapshot in snapshots:
        path = tmp_path / f"pr{snapshot['pullRequest']}.json"
        path.write_text(json.dumps(snapshot))
        import_reviews(ctx, path, w.BY)


def _reopened(how: str, first: str = "feature/retry", at: int = 0) -> tuple[str, str, str, str]:
    """The head branch and commit of #10, then of #11: the same work under review again."""
    if how == "same-branch":  # closed, then opened again from the same branch (or after a force-push)
        return first, "1" * 40, first, "2" * 40
    return first, "1" * 40, "retry-jitter", "1" * 40  # the same commits on a renamed branch


@pytest.mark.parametrize("how", ["same-branch", "renamed-branch"])
@pytest.mark.parametrize("order", [(10, 11), (11, 10)], ids=["in-order", "reopened-first"])
def test_a_pull_request_opened_again_is_no_second_change(tmp_path: Path, how: str, order: tuple[int, int]) -> None:
    """#10 is closed and the same work is opened again as #11, from the same branch or from its
    commits on a renamed one; one reviewer repeats their remark on #11 in other words, and a
    second reviewer wrote on #10. That is one change, whatever order the imports came in: the
    theme fails the changes gate, and the reviewer's two remarks are one origin."""
    ctx = w.repo(tmp_path)
    b10, c10, b11, c11 = _reopened(how)
    made = {10: _snapshot(10, [_inline(5001, 101, ASK, "2026-03-02T10:00:00Z", sha=c10),
                               _inline(5002, 102, OWN, "2026-03-02T10:30:00Z", sha=c10)], [], b10, c10),
            11: _snapshot(11, [_inline(5003, 101, THIRD, "2026-03-03T10:00:00Z", sha=c11)], [], b11, c11)}
    _import(ctx, tmp_path, [made[n] for n in order])
    report = w.run(ctx, dry_run=True)
    assert report.proposed == [], report.proposed
    [verdict] = report.rejected
    assert verdict["reasons"] == ["1 pull requests or branches (needs 2)"]
    assert (verdict["signals"]["origins"], verdict["signals"]["threads"], verdict["signals"]["changes"]) == (2, 2, 1)
    [explained] = w.run(ctx, explain=verdict["theme"]).explain["themes"]
    assert {label["change"] for label in explained["labels"]} == {"#10+#11"}, "--explain shows the one change counted"


def test_a_reviewer_repeating_a_remark_on_a_reopened_pull_request_is_one_origin(tmp_path: Path) -> None:
    """A team asking for three origins: one reviewer on #10 and on #11 (the same branch opened
    again) and a second reviewer on #12 are two origins in two threads, not three."""
    ctx = w.repo(tmp_path)
    _import(ctx, tmp_path, [
        _snapshot(10, [_inline(5001, 101, ASK, "2026-03-02T10:00:00Z", sha="1" * 40)], [], "feature/retry", "1" * 40),
        _snapshot(11, [_inline(5002, 101, OWN, "2026-03-03T10:00:00Z", sha="2" * 40)], [], "feature/retry", "2" * 40),
        _snapshot(12, [_inline(5003, 102, THIRD, "2026-03-04T10:00:00Z", sha="3" * 40)], [], "feature/other", "3" * 40)])
    _gates(ctx, minOrigins=3, minThreads=3)
    report = w.run(ctx, dry_run=True)
    assert report.proposed == [], report.proposed
    [verdict] = report.rejected
    assert verdict["reasons"] == ["2 independent origins (needs 3)", "2 threads or sessions (needs 3)"]
    assert (verdict["signals"]["changes"], verdict["signals"]["people"]) == (2, 2)


def test_pull_requests_of_their_own_branches_and_commits_stay_changes_of_their_own(tmp_path: Path) -> None:
    """Pull requests sharing no head branch and no commit are changes of their own: one
    reviewer on #10 and #11 with a second reviewer on #10 pass the changes gate."""
    ctx = w.repo(tmp_path)
    _import(ctx, tmp_path, [
        _snapshot(10, [_inline(5001, 101, ASK, "2026-03-02T10:00:00Z", sha=_sha(10)),
                       _inline(5002, 102, OWN, "2026-03-02T10:30:00Z", sha=_sha(10))], []),
        _snapshot(11, [_inline(5003, 101, THIRD, "2026-03-03T10:00:00Z", sha=_sha(11))], [])])
    [proposed] = w.run(ctx, dry_run=True).proposed
    assert proposed["signals"]["changes"] == 2 and proposed["changes"] == ["#10", "#11"], proposed


@pytest.mark.parametrize("branch", ["main", "master", "patch-1", "alice-patch-2"])
def test_forks_pull_requests_from_a_branch_every_fork_has_stay_changes_of_their_own(tmp_path: Path,
                                                                                     branch: str) -> None:
    """Two contributors' pull requests from their forks' ``main`` (or the ``patch-N`` branch
    GitHub's editor makes), with no commit in common, are two changes: one reviewer teaching the
    same lesson on both is the recurrence the dream looks for."""
    ctx = w.repo(tmp_path)
    _import(ctx, tmp_path, [
        _snapshot(10, [_inline(5001, 101, ASK, "2026-03-02T10:00:00Z", sha="1" * 40),
                       _inline(5002, 102, OWN, "2026-03-02T10:30:00Z", sha="1" * 40)], [], branch, "1" * 40),
        _snapshot(11, [_inline(5003, 101, THIRD, "2026-03-03T10:00:00Z", sha="2" * 40)], [], branch, "2" * 40)])
    [proposed] = w.run(ctx, dry_run=True).proposed
    assert proposed["signals"]["changes"] == 2 and proposed["changes"] == ["#10", "#11"], proposed


def test_a_pull_request_opened_again_from_a_fork_is_the_same_change(tmp_path: Path) -> None:
    """#10 came from a fork's branch (a webhook delivery names the fork as the head's repository),
    #11 from the base repository's branch of the same name with the work pushed again: one change."""
    import json

    from gitstore.capture.reviews import import_reviews

    ctx = w.repo(tmp_path)

    def delivery(pr: int, cid: int, user: int, body: str, at: str, owner: str, sha: str) -> dict:
        head = {"ref": "fix-retry", "sha": sha, "label": f"{owner}:fix-retry",
                "repo": {"full_name": f"{owner}/widgets"}}
        return {"action": "created", "repository": {"full_name": "acme/widgets"},
                "pull_request": {"number": pr, "head": head},
                "comment": _inline(cid, user, body, at, sha=sha)}
    path = tmp_path / "deliveries.json"
    path.write_text(json.dumps([delivery(10, 5001, 101, ASK, "2026-03-02T10:00:00Z", "alice", "1" * 40),
                                delivery(10, 5002, 102, OWN, "2026-03-02T10:30:00Z", "alice", "1" * 40),
                                delivery(11, 5003, 101, THIRD, "2026-03-03T10:00:00Z", "acme", "2" * 40)]))
    import_reviews(ctx, path, w.BY)
    [verdict] = w.run(ctx, dry_run=True).rejected
    assert verdict["reasons"] == ["1 pull requests or branches (needs 2)"], verdict


def test_a_session_on_the_branch_of_a_reopened_pull_request_answers_its_review(tmp_path: Path) -> None:
    """One reviewer asks on #10 and again on #11, the same branch opened again; the clone's owner
    agrees with their agent on that branch. Its branch heads two pull requests, both one change:
    the session answers the ask there, and is no second person nor a third change."""
    ctx = w.repo(tmp_path)
    w.grant_sessions(ctx)
    _import(ctx, tmp_path, [
        _snapshot(10, [_inline(5001, 101, ASK, "2026-03-02T10:00:00Z", sha="1" * 40)], [], "feature/retry", "1" * 40),
        _snapshot(11, [_inline(5002, 101, THIRD, "2026-03-02T11:00:00Z", sha="2" * 40)], [], "feature/retry", "2" * 40)])
    w.session(ctx, tmp_path / "s", "taken-up", AGREED, branch="feature/retry", day=3)
    report = w.run(ctx, dry_run=True)
    assert report.proposed == [], report.proposed
    [verdict] = report.rejected
    assert verdict["reasons"] == ["one person: every origin is by github:101"], verdict


def test_the_authors_agreement_on_the_reopened_pull_request_answers_the_ask_made_before(tmp_path: Path) -> None:
    """A reviewer asks on #10 and on #12; #10 is opened again as #11 from its branch, where its
    author agrees. That answers the ask, as a reply on #10 would: no second person."""
    ctx = w.repo(tmp_path)
    _import(ctx, tmp_path, [
        _snapshot(10, [_inline(5001, 101, ASK, "2026-03-02T10:00:00Z", sha="1" * 40)], [], "feature/retry", "1" * 40),
        _snapshot(11, [_inline(5002, 201, AGREED, "2026-03-03T10:00:00Z", sha="2" * 40)], [], "feature/retry", "2" * 40),
        _snapshot(12, [_inline(5003, 101, THIRD, "2026-03-04T10:00:00Z", sha="3" * 40)], [], "feature/other", "3" * 40)])
    report = w.run(ctx, dry_run=True)
    assert report.proposed == [], report.proposed
    [verdict] = report.rejected
    assert verdict["reasons"] == ["one person: every origin is by github:101"], verdict


ELSEWHERE = "The parser module's docstring has a typo in its second line."


@pytest.mark.parametrize("pr, branch, sha, text", [
    pytest.param(99, "feature/a", "b" * 40, ELSEWHERE, id="a-thread-of-its-own-claiming-a-branch-and-a-commit"),
    pytest.param(11, "feature/b", "a" * 40, ELSEWHERE, id="a-thread-on-one-claiming-the-others-commit"),
    pytest.param(11, "feature/a", "b" * 40, ELSEWHERE, id="a-thread-on-one-claiming-the-others-branch"),
    pytest.param(11, "feature/b", "a" * 40, ASK, id="a-copy-of-the-theme-claiming-the-others-commit"),
])
def test_a_thread_claiming_anothers_branch_or_commit_makes_no_two_changes_one(tmp_path: Path, pr: int,
                                                                              branch: str, sha: str,
                                                                              text: str) -> None:
    """Two reviewers raise the theme on #10 and #11, each from a branch and commit of its own.
    Anyone who can push can store a thread on any pull request, pinned to any branch and commit:
    one saying nothing of the theme, or only pasting a remark of it, claiming #10's branch or
    commit for #11 (or both for a pull request of its own), must not make the two one change and
    fail the theme with no word of that thread in its verdict."""
    ctx = w.repo(tmp_path)
    _import(ctx, tmp_path, [
        _snapshot(10, [_inline(5001, 101, ASK, "2026-03-02T10:00:00Z", sha="a" * 40)], [], "feature/a", "a" * 40),
        _snapshot(11, [_inline(5002, 102, OWN, "2026-03-03T10:00:00Z", sha="b" * 40)], [], "feature/b", "b" * 40)])
    (tmp_path / "forged").mkdir()
    _import(ctx, tmp_path / "forged", [
        _snapshot(pr, [_inline(6001, 666, text, "2026-03-04T10:00:00Z", sha=sha)], [], branch, sha)])
    [proposed] = w.run(ctx, dry_run=True).proposed
    assert proposed["signals"]["changes"] == 2 and proposed["changes"] == ["#10", "#11"], proposed


def test_a_thread_claiming_another_branch_for_a_reopened_pull_request_parts_nothing(tmp_path: Path) -> None:
    """#11 is #10 opened again from its branch; a thread saying nothing of the theme, pinned to
    #11 and another branch, does not make it a second change where the theme was raised."""
    ctx = w.repo(tmp_path)
    _import(ctx, tmp_path, [
        _snapshot(10, [_inline(5001, 101, ASK, "2026-03-02T10:00:00Z", sha="1" * 40),
                       _inline(5002, 102, OWN, "2026-03-02T10:30:00Z", sha="1" * 40)], [], "feature/retry", "1" * 40),
        _snapshot(11, [_inline(5003, 101, THIRD, "2026-03-03T10:00:00Z", sha="2" * 40)], [], "feature/retry", "2" * 40)])
    (tmp_path / "forged").mkdir()
    _import(ctx, tmp_path / "forged", [
        _snapshot(11, [_inline(6001, 666, ELSEWHERE, "2026-03-04T10:00:00Z", sha="3" * 40)], [], "feature/other", "3" * 40)])
    [verdict] = w.run(ctx, dry_run=True).rejected
    assert verdict["reasons"] == ["1 pull requests or branches (needs 2)"], verdict


def _issue_comment(number: int, cid: int, user: int, body: str, at: str, of_pull_request: bool) -> dict:
    """A webhook delivery of a comment on issue NUMBER (a pull request's conversation, or not):
    it names no head branch or commit, only the number GitHub shares between the two."""
    issue = {"number": number, **({"pull_request": {"url": "https://x"}} if of_pull_request else {})}
    return {"action": "created", "repository": {"full_name": "acme/widgets"}, "issue": issue,
            "comment": {"id": cid, "user": _user(user), "body": body, "created_at": at, "updated_at": at}}


@pytest.mark.parametrize("number, of_pull_request, contested, changes", [
    pytest.param(55, False, False, 1, id="an-issue"),
    pytest.param(11, True, False, 2, id="a-pull-request-another-thread-shows"),
    pytest.param(11, True, True, 2, id="a-pull-request-whose-head-a-thread-contests"),
])
def test_a_comment_on_an_issue_is_no_pull_request_or_branch(tmp_path: Path, number: int, of_pull_request: bool,
                                                           contested: bool, changes: int) -> None:
    """A second reviewer's comment delivered by the ``issue_comment`` webhook is pinned to its
    issue's number alone. On an issue no thread shows to be a pull request, it is no second
    change beside #10, and the theme fails its changes gate; on #11, whose review threads name
    its head, it is #11's, also when a thread anyone stored claims another head for #11."""
    import json

    from gitstore.capture.reviews import import_reviews

    ctx = w.repo(tmp_path)
    _import(ctx, tmp_path, [
        _snapshot(10, [_inline(5001, 101, ASK, "2026-03-02T10:00:00Z", sha="a" * 40)], [], "feature/a", "a" * 40),
        _snapshot(11, [_inline(5002, 103, "Rename the helper in the parser module.", "2026-03-02T11:00:00Z",
                               sha="b" * 40)], [], "feature/b", "b" * 40)])
    if contested:
        (tmp_path / "forged").mkdir()
        _import(ctx, tmp_path / "forged", [
            _snapshot(11, [_inline(6001, 666, ELSEWHERE, "2026-03-04T10:00:00Z", sha="a" * 40)], [], "feature/a",
                      "a" * 40)])
    path = tmp_path / "deliveries.json"
    path.write_text(json.dumps([_issue_comment(number, 7001, 102, OWN, "2026-03-03T10:00:00Z", of_pull_request)]))
    import_reviews(ctx, path, w.BY)
    report = w.run(ctx, dry_run=True)
    verdict = (report.proposed or report.rejected)[0]
    assert verdict["signals"]["changes"] == changes and bool(report.proposed) is (changes == 2), verdict
