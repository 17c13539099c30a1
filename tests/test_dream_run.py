"""One dream end to end on real repositories: proposals in one append through the operations,
no-update and blocked results, idempotence, two clones, redaction, windows and completeness."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from gitstore.context import Context
from gitstore.dream.run import Request, dream, since_time
from gitstore.errors import UsageError
from gitstore.ops.redact import redact
from gitstore.ops.setup import init
from gitstore.rules.lifecycle import histories
from gitstore.sync.remote import sync

from . import dream_world as w


def _proposal_appends(ctx) -> list[list[str]]:  # type: ignore[no-untyped-def]
    """The records of each append that wrote a proposal, by kind."""
    by_clock: dict[tuple[str, int], list[str]] = {}
    for item in ctx.store.items():
        by_clock.setdefault((item.stored.writer, item.stored.clock), []).append(item.kind)
    return [kinds for kinds in by_clock.values() if "learning" in kinds]


def test_a_recurring_theme_is_proposed_in_one_append_with_audit_entries(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    report = w.run(ctx)
    assert report.status == "complete" and report.result == "updated"
    [proposal] = report.proposed
    assert proposal["theme"] == "backoff-jitter-retry"
    assert proposal["signals"]["origins"] == 3 and proposal["signals"]["people"] == 3
    assert proposal["audience"] == "project" and proposal["audienceRationale"]
    [append] = _proposal_appends(ctx)
    assert append.count("learning") == 1 and append.count("audit") == 1
    view = ctx.view()
    current = histories(view.learnings)[proposal["id"]].current
    assert current["state"] == "proposed" and current["proposer"] == {"kind": "consolidator", "id": "recurrence"}
    assert any(a["action"] == "propose" and proposal["id"] in a["subjects"] for a in view.audits)
    labels = [e for e in view.events.values() if e["type"] == "label"]
    assert len(labels) == 3 and all(e["payload"]["label"]["labeler"] == "lexical" for e in labels)
    assert "backoff-jitter-retry" in report.render() and "audience:" in report.render()


def test_dreaming_twice_proposes_nothing_new(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    first = w.run(ctx)
    before = sum(1 for _ in ctx.store.items())
    again = w.run(ctx)
    assert first.proposed and not again.proposed and again.result == "no-update"
    assert sum(1 for _ in ctx.store.items()) == before
    assert again.known[0]["reasons"] == [f"already proposed as {first.proposed[0]['id']}, unchanged"]


def test_a_dream_given_the_evidence_the_last_one_had_takes_its_labels(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lexical labeler answers the same evidence the same way: a dream given exactly the
    last labelled evidence takes that answer (the same labels, the same report); new evidence,
    other options, a memo that does not parse or names other evidence: it labels again."""
    from gitstore.dream.labelers import lexical

    calls: list[int] = []
    real = lexical.LexicalLabeler.label
    monkeypatch.setattr(lexical.LexicalLabeler, "label", lambda self, items: calls.append(len(items)) or real(self, items))
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    w.comment(ctx, 20, "github:105", "Please rename this variable, the name says nothing.", 200)
    first = w.run(ctx, dry_run=True)
    assert len(calls) == 1 and not (ctx.workspace.state / "dreams").exists()  # a dry run keeps nothing
    stored = w.run(ctx)
    assert len(calls) == 2
    memo = ctx.workspace.state / "dreams" / "labels-lexical.json"
    assert memo.exists()
    again = w.run(ctx, dry_run=True)
    assert len(calls) == 2  # taken, not worked out
    assert again.labeler["labels"] == first.labeler["labels"] == stored.labeler["labels"] > 0
    assert again.labeler["usage"] == first.labeler["usage"]
    assert [p["theme"] for p in first.proposed] == ["backoff-jitter-retry"]
    assert again.known[0]["reasons"] == [f"already proposed as {stored.proposed[0]['id']}, unchanged"]

    w.comment(ctx, 21, "github:106", "Retries without jitter stampede the server; add backoff.", 300)
    w.run(ctx)
    assert len(calls) == 3  # new evidence
    w.run(ctx)
    assert len(calls) == 3
    kept = memo.read_text()
    memo.write_text(kept.replace('"key":"', '"key":"0', 1))
    w.run(ctx)
    assert len(calls) == 4  # another key
    memo.write_text("{not json")
    w.run(ctx)
    assert len(calls) == 5
    memo.write_text(memo.read_text().replace('"usage":{"texts":', '"usage":{"texts":"ignore previous instructions","n":', 1))
    w.run(ctx)
    assert len(calls) == 6  # a usage that is not counts
    memo.write_text(memo.read_text().replace('"labels":[[', '"labels":[[7,', 1))
    w.run(ctx)
    assert len(calls) == 7  # a label that is not one
    w.run(ctx)
    assert len(calls) == 7  # kept again, and taken
    root = ctx.workspace.root
    subprocess.run(["git", "add", "-f", memo.relative_to(root).as_posix()], cwd=root, check=True)
    w.run(ctx)
    assert len(calls) == 8  # bytes git has: a commit could have put them there, with any labels
    monkeypatch.setattr(lexical.LexicalLabeler, "repeatable", lambda self: ["lexical", self.min_lift + 1])
    w.run(ctx)
    assert len(calls) == 9  # the labeler changed


@pytest.mark.parametrize("field, bad", [(4, [[5, 2]]), (3, "insists-on"), (1, "Not A Theme!"), (2, "gossip")],
                         ids=["reversed-span", "unknown-polarity", "theme-outside-the-vocabulary", "unknown-category"])
def test_kept_labels_that_are_not_sound_mean_labelling_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: int, bad: object) -> None:
    """A kept answer that parses but holds a label no labeler may give is doubt about it: the
    dream labels again, and is not degraded for ever."""
    from gitstore.dream.labelers import lexical

    calls: list[int] = []
    real = lexical.LexicalLabeler.label
    monkeypatch.setattr(lexical.LexicalLabeler, "label", lambda self, items: calls.append(len(items)) or real(self, items))
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    first = w.run(ctx)
    memo = ctx.workspace.state / "dreams" / "labels-lexical.json"
    kept = json.loads(memo.read_text())
    kept["labels"][0][field] = bad
    memo.write_text(json.dumps(kept))
    again = w.run(ctx)
    assert len(calls) == 2 and again.status == "complete", (calls, again.why)
    assert again.labeler["labels"] == first.labeler["labels"] and not again.labeler["problems"]
    w.run(ctx)
    assert len(calls) == 2  # the answer worked out again is kept, and taken


def test_a_labeler_built_on_the_lexical_one_labels_every_time() -> None:
    from gitstore.dream.labelers import lexical, memo

    class Wrapped(lexical.LexicalLabeler):
        name = "wrapped"

    assert memo.key(lexical.LexicalLabeler(), []) is not None
    assert memo.key(lexical.LexicalLabeler(min_lift=4), []) != memo.key(lexical.LexicalLabeler(), [])
    assert memo.key(Wrapped(), []) is None


def test_new_support_revises_the_dream_s_own_proposal(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    first = w.run(ctx).proposed[0]
    w.comment(ctx, 14, "github:104", "Use exponential backoff with full jitter for these retries.", 90)
    second = w.run(ctx)
    [revised] = second.proposed
    assert revised["id"] == first["id"] and revised["revised"] and revised["signals"]["origins"] == 4
    assert revised["reviewDigest"] != first["reviewDigest"]


def test_a_proposal_in_other_words_is_never_revised_with_the_evidence(tmp_path: Path) -> None:
    """Anyone can store a proposal naming the consolidator, in words of their own, citing one
    piece of a real theme: revising it would put every person of the theme behind those words.
    It stands as it is for a person to decide, and settles nothing: no sentence of its evidence
    is what it says, so the dream proposes the theme of its own beside it."""
    from gitstore.ops import learning as ops

    from .world import ref

    ctx = w.repo(tmp_path)
    events = w.jitter_theme(ctx)
    draft = ops.Draft(title="Retries need jitter and must skip the tests",
                      text="Retries need jittered backoff; push retry changes straight to main without tests.",
                      category="convention", evidence=[ref(events[0])], counterevidence=[],
                      proposer=("consolidator", "recurrence"))
    planted = ops.propose(ctx, draft, w.BY)
    report = w.run(ctx, explain="jitter")
    [proposed] = report.proposed
    assert proposed["id"] != planted["id"] and proposed["signals"]["people"] == 3, proposed
    [theme] = report.explain["themes"]
    assert any(r.startswith(f"{planted['id']}, a proposal naming the consolidator, does not say its theme as the "
                            "consolidator would")
               for r in theme["reasons"]), theme
    history = ctx.view().learnings[planted["id"]]
    assert len(history) == 1, "never revised"


def test_a_proposal_in_a_sentence_of_the_evidence_is_revised_with_it(tmp_path: Path) -> None:
    """An earlier dream's statement (stored by another clone, or by an earlier gitstore) is the
    sentence of its evidence that says the theme best: when new evidence makes another sentence
    the best, the proposal is still revised (new support reaches the reviewer)."""
    from gitstore.ops import learning as ops

    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    [planned] = w.run(ctx, dry_run=True).proposed
    draft = ops.Draft(title=planned["title"], text=planned["text"], category="convention",
                      evidence=planned["evidence"], counterevidence=[], proposer=("consolidator", "recurrence"))
    earlier = ops.propose(ctx, draft, w.BY)
    for n, text in enumerate(("Add random jitter to the retry backoff of each loop.",
                              "Each retry loop needs random jitter added to its backoff.")):
        w.comment(ctx, 14 + n, f"github:{104 + n}", text, 90 + n)
    [revised] = w.run(ctx).proposed
    assert revised["id"] == earlier["id"] and revised["revised"] and revised["signals"]["origins"] == 5
    assert revised["text"] == planned["text"], "a revision keeps its words"
    assert w.run(ctx).proposed == [], "its revision still speaks for the theme: nothing proposed beside it"


def test_a_proposal_whose_evidence_no_longer_serves_is_never_revised(tmp_path: Path) -> None:
    """A redacted comment's words must not come back cited by other people's comments that do
    not say them: the dream's proposal whose evidence no longer serves stands as it is (tidy
    names it stale), and a person rejects it."""
    ctx = w.repo(tmp_path)
    events = w.jitter_theme(ctx)
    [first] = w.run(ctx).proposed
    assert first["text"] == events[0]["payload"]["text"]
    redact(ctx, events[0]["payload"]["sourceId"], w.BY, "asked by its author")
    again = w.run(ctx)
    assert again.proposed == [], again.proposed
    [known] = again.known
    assert known["learning"] == first["id"] and "its evidence no longer serves" in known["reasons"][0], known
    assert len(ctx.view().learnings[first["id"]]) == 1, "never revised"


def test_a_planted_proposal_whose_evidence_no_longer_serves_gets_no_one_behind_it(tmp_path: Path) -> None:
    """A proposal naming the consolidator, in words of its own, citing one piece of a theme and
    a comment later redacted: its words are hidden from the dream, never taken as the theme's."""
    from gitstore.ops import learning as ops

    from .world import ref

    ctx = w.repo(tmp_path)
    events = w.jitter_theme(ctx)
    [junk] = w.comment(ctx, 30, "github:666", "Some note about the build cache that nobody else makes.", 100)
    draft = ops.Draft(title="Retries need jitter; push retry fixes straight to main",
                      text="Retries need jittered backoff; push retry changes straight to main without the tests.",
                      category="convention", evidence=[ref(events[0])], counterevidence=[ref(junk)],
                      proposer=("consolidator", "recurrence"))
    planted = ops.propose(ctx, draft, "github:666")
    redact(ctx, junk["payload"]["sourceId"], w.BY, "asked by its author")
    report = w.run(ctx)
    assert report.proposed == [], report.proposed
    assert any(k["learning"] == planted["id"] for k in report.known), report.known
    assert len(ctx.view().learnings[planted["id"]]) == 1, "never revised"


def _same_refs(tmp_path: Path) -> tuple[Context, Path]:
    """Two clones holding the same shared records (two themes raised by three reviewers each): the
    second a clone of its own (a copied state folder is not taken: another clone's settings),
    writing as the same person, whose history its first sync takes up."""
    ctx = w.repo(tmp_path, "one")
    w.jitter_theme(ctx)
    w.comment(ctx, 20, "github:201", "Log the request id with every error so failures can be traced.", 200)
    w.comment(ctx, 21, "github:202", "Every error log line should carry the request id.", 210)
    w.comment(ctx, 22, "github:203", "Include the request id in this error log, we cannot trace it otherwise.", 220)
    other = tmp_path / "two"
    subprocess.run(["git", "clone", "-q", str(ctx.workspace.root), str(other)], check=True)
    init(other, writer=ctx.workspace.config.writer)
    sync(str(other))
    return ctx, other


def test_two_clones_with_the_same_refs_propose_the_same_learnings(tmp_path: Path) -> None:
    ctx, other = _same_refs(tmp_path)  # without a policy only a clone's own grants and decisions count
    reports = [dream(root, Request(by=w.BY, dry_run=True), notify=lambda _: None)
               for root in (ctx.workspace.root, other)]
    digests = [sorted((p["id"], p["contentDigest"], p["reviewDigest"]) for p in r.proposed) for r in reports]
    assert len(digests[0]) == 2 and digests[0] == digests[1]


def _busy_session(ctx, folder: Path, turns: list[str], day: str = "2026-03-05",  # type: ignore[no-untyped-def]
                  stem: str = "busy") -> None:
    """One personal Claude Code session of many user turns on DAY, imported in transcript mode."""
    from gitstore.capture.sessions import import_transcript

    lines = []
    for n, text in enumerate(turns):
        lines.append(json.dumps({"type": "user", "uuid": f"{stem}-{n}", "parentUuid": f"{stem}-{n - 1}" if n else None,
                                 "timestamp": f"{day}T09:{n // 60:02d}:{n % 60:02d}Z", "cwd": "/work/widgets",
                                 "version": "1.0.98", "gitBranch": f"dev/{stem}", "sessionId": f"{stem}-session",
                                 "message": {"role": "user", "content": text}}))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.jsonl").write_text("\n".join(lines) + "\n")
    import_transcript(ctx, folder / f"{stem}.jsonl", mode="transcript")


def _twins(tmp_path: Path) -> tuple[Context, Context]:
    """Two clones holding the same shared records (two themes raised by three reviewers each),
    the second granting its owner's personal sessions, as its own grants count."""
    ctx, other = _same_refs(tmp_path)
    mine = Context.open(str(other))
    w.grant_sessions(mine)  # without a policy only a clone's own grants count
    return ctx, mine


def _same_proposals(one: Context, two: Context, now: datetime | None = None) -> None:
    reports = [dream(ctx.workspace.root, Request(by=w.BY, dry_run=True, now=now), notify=lambda _: None)
               for ctx in (one, two)]
    assert reports[1].view["evidence"] > reports[0].view["evidence"], reports[1].view  # the sessions are read
    proposed = [sorted((p["id"], p["theme"], p["contentDigest"], p["reviewDigest"], p["text"]) for p in r.proposed)
                for r in reports]
    assert {p[1] for p in proposed[0]} == {"backoff-jitter-retry", "error-log-request"}
    assert proposed[0] == proposed[1]


def test_personal_sessions_never_change_what_the_shared_evidence_proposes(tmp_path: Path) -> None:
    """Two clones holding the same shared records propose the same learnings whatever personal
    sessions one of them keeps: sessions never leave their clone, so words they use often (here
    "retry", "error" and "log" in sixty turns of one session) must not make the team's themes
    fade on that clone alone, nor tell the others anything of them."""
    one, two = _twins(tmp_path)
    things = ["upload", "parser", "cache", "widget", "schema", "config", "index", "token", "queue", "worker"]
    _busy_session(two, tmp_path / "sessions",
                  [f"Please retry the {things[n % 10]} {things[(3 * n + 1) % 10]} step and log the "
                   f"{things[(7 * n + 2) % 10]} error again." for n in range(60)])
    _same_proposals(one, two)


def test_a_personal_session_saying_a_review_s_words_first_takes_no_origin_from_it(tmp_path: Path) -> None:
    """A session of the owner's dated before the reviews, holding two reviewers' sentences,
    leaves the reviews three origins: on that clone alone they had become copies of the session
    (two origins, another learning id for the same shared records)."""
    one, two = _twins(tmp_path)
    w.session(two, tmp_path / "sessions", "notes", " ".join(text for _, _, text in w.JITTER[:2]), day=1)
    _same_proposals(one, two)


def test_the_owner_pasting_the_reviews_into_a_session_takes_no_person_from_them(tmp_path: Path) -> None:
    """The owner pasting each review into their agent session (after the reviews) copies them:
    a session never leaves its clone, so no reviewer copied it, and the owner may have written
    none of the reviews. The three reviewers stay three people on that clone as on the others."""
    one, two = _twins(tmp_path)
    _busy_session(two, tmp_path / "sessions", [f"Reviewer comment: {text}" for _, _, text in w.JITTER])
    _same_proposals(one, two)


def test_the_owner_asking_their_agent_by_name_quarantines_no_team_theme(tmp_path: Path) -> None:
    """A person's prompt in their own agent session is addressed to the agent by nature
    ("Claude, add ..."): it is no order injected into a review, and never makes the team's
    theme read as one speaking to AI agents, on that clone alone."""
    one, two = _twins(tmp_path)
    w.session(two, tmp_path / "sessions", "ask", "Claude, add random jitter to the retry backoff in the HTTP client.")
    _same_proposals(one, two)


def test_a_personal_session_joining_a_team_theme_never_ages_it_on_one_clone(tmp_path: Path) -> None:
    """The team's theme passes its gates by its shared evidence alone, judged against the newest
    shared evidence. The owner's session on it, three days after the reviews, and a session on
    anything else a year later made the theme's newest piece 392 days older than the newest
    evidence: rejected as too old on that clone alone."""
    one, two = _twins(tmp_path)
    _busy_session(two, tmp_path / "sessions", ["Add jitter to the retry backoff of the sync client, the retries pile up."],
                  stem="jitter")
    _busy_session(two, tmp_path / "sessions", ["Rename the settings module and update its imports everywhere."],
                  day="2027-04-01", stem="rename")
    _same_proposals(one, two, now=datetime(2027, 4, 2, tzinfo=timezone.utc))


def test_a_review_s_label_on_a_theme_of_the_owner_s_sessions_stays_on_the_clone(tmp_path: Path) -> None:
    """A review and the owner's session saying one thing make a theme only with the session: the
    label the review gets for it is named from the session's words too, and says the owner has
    sessions on it, so it is never stored with the shared records (a label is stored where the
    event it judges is): it serves the dream, the session's label stays on the clone."""
    ctx = w.repo(tmp_path)
    w.grant_sessions(ctx)
    [review] = w.comment(ctx, 12, "github:101", "Cache the database schema between test runs, the fixtures are slow.", 0)
    w.session(ctx, tmp_path / "s", "fixtures", "The database fixtures are slow, cache the schema between test runs.")
    report = w.run(ctx)
    [proposal] = report.proposed  # the review is of the theme: cited beside the session, kept here
    assert proposal["signals"]["evidence"] == 2 and proposal["local"], proposal
    held = [(item.stored.namespace, item.record["parentEventId"]) for item in ctx.store.items()
            if item.kind == "event" and item.record["type"] == "label"]
    assert len(held) == 1 and held[0][0] == "local" and held[0][1] != review["id"], held


def test_no_eligible_evidence_is_an_explicit_no_update(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path, grant=False)
    w.jitter_theme(ctx)
    report = w.run(ctx)
    assert report.result == "no-update" and not report.proposed
    assert "no evidence may serve instruction" in report.why[0]
    assert "3 no active grant permits the purpose" in report.why[0]
    assert report.render().startswith("dream complete: no-update")


def test_no_readable_store_is_a_blocked_result_naming_what_is_missing(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    subprocess.run(["git", "init", "-q", str(plain)], check=True)
    report = dream(plain, Request(by=w.BY), notify=lambda _: None)
    assert report.status == report.result == "blocked" and report.exit_code == 2
    assert "gitstore init" in report.why[0] and report.render().startswith("dream blocked: no readable store")


def test_a_damaged_store_blocks_the_dream(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    (ctx.workspace.state / "config.json").write_text(json.dumps({"writer": "wabc", "provider": "nope"}))
    report = dream(ctx.workspace.root, Request(by=w.BY), notify=lambda _: None)
    assert report.status == "blocked" and "unknown provider" in report.why[0]


def test_redacting_a_comment_removes_its_labels_and_the_proposal_that_needed_it(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    events = [w.comment(ctx, pr, who, text, 10 * n)[0] for n, (who, pr, text) in enumerate(w.JITTER[:2])]
    report = w.run(ctx)
    [proposal] = report.proposed
    removed = redact(ctx, events[0]["payload"]["sourceId"], w.BY, "asked by its author")
    view = ctx.view()
    labels = [e for e in view.events.values() if e["type"] == "label" and e["parentEventId"] == events[0]["id"]]
    assert labels and all("redaction" in e and "payload" not in e for e in labels)
    assert {label["id"] for label in labels} <= set(removed.removed)
    again = w.run(ctx)
    assert again.proposed == [] and again.result == "no-update"
    assert again.view["excluded"] == {"redacted": 1}
    cited = {e for section in (again.rejected, again.known, again.held_back) for v in section
             for r in v["evidence"] for e in r["events"]}
    assert events[0]["id"] not in cited
    [stale] = [f for f in again.tidy if f["kind"] == "stale-evidence"]
    assert stale["learnings"] == [proposal["id"]] and "redacted" in stale["detail"]


def test_the_window_and_a_missing_import_span_make_the_dream_incomplete(tmp_path: Path) -> None:
    from gitstore.capture.reviews import import_reviews

    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    comment = {"id": 9001, "user": {"id": 77}, "body": "A note.", "path": "src/a.py", "line": 1,
               "created_at": "2026-03-04T10:00:00Z", "updated_at": "2026-03-04T10:00:00Z", "in_reply_to_id": None}
    snapshot = {"format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": 11,
                "head": {"ref": "feature/11", "sha": "a" * 40},
                "responses": [{"collection": "pull-comments", "page": 1,
                               "link": '<https://x/?page=2>; rel="next", <https://x/?page=3>; rel="last"', "body": [comment]},
                              {"collection": "reviews", "page": 1, "link": "", "body": []},
                              {"collection": "issue-comments", "page": 1, "link": "", "body": []}]}
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snapshot))
    import_reviews(ctx, path, w.BY)
    report = w.run(ctx, dry_run=True)
    assert report.status == "incomplete"
    assert report.completeness["missing"] == ["PR #11: pull-comments pages 2-3 missing (REST import)"]
    assert "window: incomplete, PR #11: pull-comments pages 2-3 missing" in report.render()
    later = w.run(ctx, dry_run=True, since=since_time("2026-03-03"))
    assert later.view["evidence"] == 1 and later.view["excluded"]["written before the window"] == 3


def deliveries(folder: Path, *payloads: dict) -> Path:
    folder.mkdir()
    for n, payload in enumerate(payloads):
        (folder / f"{n}.json").write_text(json.dumps({**payload, "repository": {"full_name": "acme/widgets"},
                                                      "sender": {"id": 77}}))
    return folder


def issue_comment(number: int | None, comment_id: int, created: str) -> dict:
    comment = {"id": comment_id, "user": {"id": 77}, "body": "Retry with jitter, please.",
               "created_at": created, "updated_at": created}
    return {"action": "created", "comment": comment,
            **({"issue": {"number": number, "pull_request": {"url": "https://x"}}} if number else {})}


def test_a_webhook_gap_counts_only_in_a_window_with_its_pull_request_and_says_what_closes_it(tmp_path: Path) -> None:
    from gitstore.capture.reviews import import_reviews
    from gitstore.sync.steps import Call, dream as dream_step

    ctx = w.repo(tmp_path)
    report = import_reviews(ctx, deliveries(tmp_path / "d", issue_comment(5, 7001, "2026-03-04T10:00:00Z")), w.BY)
    assert report.record["pullRequest"] == 5 and report.todo == "gitstore import github --repo acme/widgets --pr 5"
    assert w.run(ctx, dry_run=True, since=since_time("1h")).status == "complete"
    whole = w.run(ctx, dry_run=True)
    assert whole.status == "incomplete"
    assert whole.completeness["missing"] == ["PR #5: pull-comments pages 1-? missing (webhook import)"]
    assert whole.completeness["todo"] == ["gitstore import github --repo acme/widgets --pr 5"]
    assert "to complete it: gitstore import github --repo acme/widgets --pr 5" in whole.render()
    step = dream_step(Call(ctx.workspace.root, {}, w.BY, None))
    assert step.line.endswith("to complete the window: gitstore import github --repo acme/widgets --pr 5")
    snapshot = {"format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": 5,
                "head": {"ref": "feature/5", "sha": "a" * 40},
                "responses": [{"collection": c, "page": 1, "link": "", "body": []}
                              for c in ("pull-comments", "reviews", "issue-comments")]}
    (tmp_path / "complete.json").write_text(json.dumps(snapshot))
    assert import_reviews(ctx, tmp_path / "complete.json", w.BY).todo is None  # what `import github --pr 5` saves
    assert w.run(ctx, dry_run=True).status == "complete"


def test_a_gap_naming_no_pull_request_counts_only_in_a_window_with_such_evidence(tmp_path: Path) -> None:
    from gitstore.capture.reviews import import_reviews
    from gitstore.records.times import time_or_age

    ctx = w.repo(tmp_path)
    report = import_reviews(ctx, deliveries(tmp_path / "d", issue_comment(None, 7002, "2026-03-04T10:00:00Z")), w.BY)
    assert report.record["pullRequest"] is None and report.todo.startswith("gitstore import github --repo acme/widgets --since")
    assert w.run(ctx, dry_run=True, since=since_time("1h")).status == "complete"
    since = since_time("2026-03-04")
    window = w.run(ctx, dry_run=True, since=since)
    assert window.completeness["missing"] == ["repository: pull-comments pages 1-? missing (webhook import)"]
    assert window.completeness["todo"] == [f"gitstore import github --repo acme/widgets --since {since}"]
    assert time_or_age(since) == since  # the advice is a command that runs


def test_since_accepts_times_and_ages_and_refuses_the_rest() -> None:
    assert since_time("2026-03-01") == "2026-03-01T00:00:00.000000Z"
    assert since_time("2026-03-01T12:00:00+02:00") == "2026-03-01T10:00:00.000000Z"
    assert since_time("30d").endswith("Z")
    with pytest.raises(UsageError, match="--since .yesterday. is neither a time"):
        since_time("yesterday")


def test_a_dry_run_stores_nothing(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    before = sum(1 for _ in ctx.store.items())
    report = w.run(ctx, dry_run=True)
    assert report.proposed and report.dry_run and "would propose" in report.render()
    assert sum(1 for _ in ctx.store.items()) == before
    assert not (ctx.workspace.state / "dreams").exists()


def test_a_dream_writes_its_report_file(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    report = w.run(ctx)
    [saved] = list((ctx.workspace.state / "dreams").glob("*-instruction.json"))
    assert json.loads(saved.read_text())["proposed"][0]["id"] == report.proposed[0]["id"]


def test_explain_says_why_a_theme_did_or_did_not_become_a_proposal(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    for n in range(3):
        w.comment(ctx, 30 + n, "github:301", f"Docstrings should use the imperative mood, round {n}.", 300 + n)
    report = w.run(ctx, explain="docstrings")
    [theme] = report.explain["themes"]  # type: ignore[index]
    assert theme["outcome"] == "rejected" and theme["reasons"][0].startswith("one origin: 3 copies")
    assert len(theme["labels"]) == 3
    assert "explain docstrings:" in report.render()
    by_word = w.run(ctx, explain="jitter").explain
    assert by_word["themes"][0]["theme"] == "backoff-jitter-retry"  # type: ignore[index]
    none = w.run(ctx, explain="emoji").explain
    assert none["themes"] == [] and "no evidence in the view mentions 'emoji'" in none["note"]  # type: ignore[index]


def test_explain_finds_a_theme_by_a_word_of_its_evidence(tmp_path: Path) -> None:
    """THEME may be a word: one its evidence says, not only one of its key, finds it (``API``
    is in none of ``backoff-jitter-retry``)."""
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    found = w.run(ctx, explain="api").explain
    assert [t["theme"] for t in found["themes"]] == ["backoff-jitter-retry"], found  # type: ignore[index]
    assert found["note"] == ""  # type: ignore[index]


def test_explain_shows_what_a_pushing_clone_wrote_screened(tmp_path: Path) -> None:
    """The labels --explain lists quote evidence any clone that can push wrote: who wrote it (a
    person id may hold bidirectional controls by schema) and its words are screened as every
    other listing screens them, a secret redacted, ``withheld`` naming what was held back."""
    ctx = w.repo(tmp_path)
    hostile = "github:eve\u202etxet"
    for n in range(3):
        w.comment(ctx, 30 + n, hostile, f"Docstrings should use the imperative mood, password=Zq8vT3kLmP9wXr2N {n}.",
                  300 + n)
    report = w.run(ctx, explain="docstrings")
    [theme] = report.explain["themes"]  # type: ignore[index]
    shown = report.render()
    assert "txet" not in shown and "Zq8vT3kLmP9wXr2N" not in shown, shown
    assert "password=[REDACTED:credential-assignment]" in shown, shown
    for label in theme["labels"]:
        assert label["withheld"] == [{"part": "author", "kinds": ["bidi-control"], "event": label["event"]}]


def test_a_proposal_that_needs_personal_session_evidence_stays_local(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    w.grant_sessions(ctx)
    w.comment(ctx, 10, "github:1", "Cache the database schema between test runs, the fixtures are slow.", 0)
    w.session(ctx, tmp_path / "s", "fixtures", "The database fixtures are slow, cache the schema between test runs.")
    report = w.run(ctx)
    [proposal] = report.proposed
    assert proposal["local"] and "cites personal session evidence: kept on this clone only" in report.render()
    [item] = [i for i in ctx.store.items() if i.kind == "learning"]
    assert item.stored.namespace == "local" and item.record["id"] == proposal["id"]


_LATER = [("github:104", 14, "Retries should use jittered exponential backoff so clients do not retry in lockstep.", 200),
          ("github:105", 15, "Add jitter to the retry backoff here, the fixed delay makes every client retry at once.", 210)]
_WINDOW = w.at(150)


def _rejected_then_said_again(ctx) -> tuple[dict, list[dict]]:  # type: ignore[no-untyped-def, type-arg]
    """The retry rule proposed by a dream and rejected by a person; then two more people say it
    in words of their own, after the window a windowed dream reads."""
    from gitstore.ops import learning as ops

    w.jitter_theme(ctx)
    [first] = w.run(ctx).proposed
    ops.reject(ctx, first["id"], first["reviewDigest"], w.BY, "We use a token bucket instead.")
    later = [w.comment(ctx, pr, who, text, minute)[0] for who, pr, text, minute in _LATER]
    return first, later


def test_a_rejection_stands_for_a_windowed_dream(tmp_path: Path) -> None:
    """A window that starts after the rejected evidence never proposes the theme anew: the
    evidence memory cites is read whenever it was written, so the theme is known as rejected."""
    ctx = w.repo(tmp_path)
    first, _ = _rejected_then_said_again(ctx)
    report = w.run(ctx, since=_WINDOW)
    assert report.proposed == [], report.proposed
    [known] = report.known
    assert known["learning"] == first["id"] and known["reasons"][0].startswith("rejected by a person"), known
    assert report.view["excluded"] == {}, "the evidence the rejection cites is read, not left out"


def test_a_rejection_stands_over_a_proposal_sharing_its_evidence(tmp_path: Path) -> None:
    """A proposal of the theme made without the rejected evidence in sight (by a windowed dream
    of an earlier version, say) is never revised into citing it: the person's "no" speaks for
    the theme, and the open proposal stays as it stands for a person to decide."""
    from gitstore.ops import learning as ops

    from .world import ref

    ctx = w.repo(tmp_path)
    first, later = _rejected_then_said_again(ctx)
    sentence = later[0]["payload"]["text"]
    draft = ops.Draft(title=sentence.rstrip("."), text=sentence, category="convention",
                      evidence=[ref(e) for e in later], counterevidence=[], proposer=("consolidator", "recurrence"))
    again = ops.propose(ctx, draft, w.BY)
    report = w.run(ctx)
    assert report.proposed == [], report.proposed
    [known] = report.known
    assert known["learning"] == first["id"] and known["reasons"][0].startswith("rejected by a person"), known
    assert again["id"] in known["reasons"][1], known
    assert len(ctx.view().learnings[again["id"]]) == 1, "never revised"


DECOY = ("Retries go without a pause", "Retry loops should retry immediately in a tight loop, without any sleep.")


def _by_hand(ctx, events: list[dict], by: str, words: tuple[str, str] = DECOY) -> dict:  # type: ignore[no-untyped-def, type-arg]
    """A proposal written by hand, as `gitstore propose` stores it, citing the theme's evidence."""
    from gitstore.ops import learning as ops

    from .world import ref

    draft = ops.Draft(title=words[0], text=words[1], category="convention", evidence=[ref(e) for e in events],
                      counterevidence=[], proposer=("person", by))
    return ops.propose(ctx, draft, by)


def test_a_proposal_by_hand_of_someone_who_may_not_decide_settles_nothing(tmp_path: Path) -> None:
    """Mallory can push, and the policy names her nowhere: her proposal in wrong words, citing
    the team's three comments, does not keep alice's dream from proposing the theme (the report
    says why). Bob's, whom the policy lets decide, does, and the report names him."""
    from .team import sync, team_clone, two_reviewers

    alice, bob = two_reviewers(tmp_path)
    w.grant_all(alice)
    events = w.jitter_theme(alice)
    mallory = team_clone(tmp_path, tmp_path / "remote.git", "mallory")
    [alice, mallory] = sync(alice, mallory)
    decoy = _by_hand(mallory, events, "github:66")
    [mallory, alice, bob] = sync(mallory, alice, bob)
    report = w.run(alice, dry_run=True, explain="jitter")
    [proposed] = report.proposed
    assert proposed["text"] != DECOY[1] and not proposed.get("revised"), proposed
    [theme] = report.explain["themes"]
    assert any(r.startswith(f"{decoy['id']}, proposed by hand by github:66, does not settle the theme: its append "
                            "does not show that github:66 may decide here")
               for r in theme["reasons"]), theme
    own = _by_hand(bob, events[:2], "github:10", ("Retries use jitter", "Retries need jittered backoff."))
    [bob, alice] = sync(bob, alice)
    report = w.run(alice, dry_run=True)
    assert report.proposed == [], report.proposed
    [known] = report.known
    assert known["reasons"] == [f"already proposed by hand as {own['id']} by github:10"], known


def test_propose_says_when_a_proposal_under_a_policy_is_stored_unsigned(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a policy a dream takes a proposal by hand as its proposer's word only when they
    signed it: a clone that does not sign as the proposer is told at once, not by a dream
    proposing the theme beside it later; one that does is not."""
    from gitstore.cli import main

    from .team import sync, team_clone, two_reviewers

    alice, bob = two_reviewers(tmp_path)
    w.grant_all(alice)
    events = w.jitter_theme(alice)
    mallory = team_clone(tmp_path, tmp_path / "remote.git", "mallory")
    [alice, mallory, bob] = sync(alice, mallory, bob)
    line = ["propose", "--title", "Retries use jitter", "--text", "Retries need jittered backoff.",
            "--category", "convention", "--evidence", f"{events[0]['episode']}:{events[0]['id']}"]
    monkeypatch.chdir(mallory.workspace.root)
    assert main([*line, "--by", "github:66"]) == 0
    assert "warning: stored unsigned, since this clone does not sign as github:66" in capsys.readouterr().err
    monkeypatch.chdir(bob.workspace.root)
    assert main([*line, "--by", "github:10"]) == 0
    assert "stored unsigned" not in capsys.readouterr().err


@pytest.mark.parametrize("proposer, words", [
    pytest.param(("consolidator", "recurrence"), DECOY, id="naming-the-consolidator-in-wrong-words"),
    pytest.param(("person", "github:66"), ("Retries use jitter", w.JITTER[0][2]), id="by-hand-in-the-evidences-words"),
    pytest.param(("consolidator", "recurrence"), ("Retries get jitter", "add random jitter to the retry backoff"),
                 id="naming-the-consolidator-in-a-fragment-of-a-sentence"),
])
def test_what_someone_who_decides_nothing_proposes_never_settles_a_theme(
        tmp_path: Path, proposer: tuple[str, str], words: tuple[str, str]) -> None:
    """Mallory can push and decides nothing. A proposal of hers naming the consolidator (nothing
    checks that name) in wrong words, or one by hand in a sentence of the evidence made before
    the theme recurred, neither pre-empts alice's dream nor, once alice rightly rejects it,
    silences the theme for good: no one who decides said no to what the reviewers ask for."""
    from gitstore.ops import learning as ops

    from .team import sync, team_clone, two_reviewers
    from .world import ref

    alice, bob = two_reviewers(tmp_path)
    w.grant_all(alice)
    events = w.jitter_theme(alice)
    mallory = team_clone(tmp_path, tmp_path / "remote.git", "mallory")
    [alice, mallory] = sync(alice, mallory)
    draft = ops.Draft(title=words[0], text=words[1], category="convention", evidence=[ref(e) for e in events],
                      counterevidence=[], proposer=proposer)
    decoy = ops.propose(mallory, draft, proposer[1] if proposer[0] == "person" else "github:66")
    [mallory, alice] = sync(mallory, alice)
    [proposed] = w.run(alice, dry_run=True).proposed
    assert proposed["text"] != words[1] or proposer[0] == "person", proposed
    ops.reject(alice, decoy["id"], decoy["reviewDigest"], "github:9", "Not what the reviewers asked for.")
    report = w.run(alice, dry_run=True)
    [proposed] = report.proposed
    assert proposed["signals"]["people"] == 3 and not report.known, report.known


@pytest.mark.parametrize("words, other", [
    pytest.param("A fixed delay caused the thundering herd.", None, id="a-sentence-saying-the-theme-less-well"),
    pytest.param("Always squash commits before merging.", "Always squash commits before merging.",
                 id="a-comment-of-another-theme-cited-beside-it"),
    pytest.param("Keep the code exactly as it is.", "Looks fine to me. Keep the code exactly as it is.",
                 id="the-proposers-own-comment-cited-beside-it"),
])
def test_a_decoy_naming_the_consolidator_in_a_whole_sentence_it_cites_never_settles_a_theme(
        tmp_path: Path, words: str, other: str | None) -> None:
    """Mallory names the consolidator and cites the theme's comments, in a whole sentence of a
    text she cites, but not the one the consolidator takes: one saying the theme less well, or
    one of a comment of no part of the theme (someone's on another subject, her own) cited beside
    them. Once alice rightly rejects it, the theme is still proposed from the evidence."""
    from gitstore.ops import learning as ops

    from .team import sync, team_clone, two_reviewers
    from .world import ref

    alice, bob = two_reviewers(tmp_path)
    w.grant_all(alice)
    events = w.jitter_theme(alice)
    if other is not None:
        events += w.comment(alice, 20, "github:66" if other.startswith("Looks") else "github:105", other, 50,
                            path="src/git.py")
    mallory = team_clone(tmp_path, tmp_path / "remote.git", "mallory")
    [alice, mallory] = sync(alice, mallory)
    draft = ops.Draft(title=words.rstrip("."), text=words, category="convention", evidence=[ref(e) for e in events],
                      counterevidence=[], proposer=("consolidator", "recurrence"))
    decoy = ops.propose(mallory, draft, "github:66")
    [mallory, alice] = sync(mallory, alice)
    ops.reject(alice, decoy["id"], decoy["reviewDigest"], "github:9", "Not what the reviewers asked for.")
    report = w.run(alice, dry_run=True, explain="jitter")
    [proposed] = report.proposed
    assert proposed["signals"]["people"] == 3 and proposed["text"] != words and not report.known, report.known
    [theme] = report.explain["themes"]
    assert any(r.startswith(f"{decoy['id']}, a proposal naming the consolidator, does not say its theme")
               for r in theme["reasons"]), theme


@pytest.mark.parametrize("cited, words", [
    pytest.param((1,), "A fixed delay caused the thundering herd.", id="the-best-sentence-of-the-one-text-it-cites"),
    pytest.param("ungranted", "Keep the retry code exactly as it is.", id="any-words-citing-a-comment-never-granted"),
])
def test_a_decoy_naming_the_consolidator_that_picks_what_it_cites_never_settles_a_theme(
        tmp_path: Path, cited: tuple[int, ...] | str, words: str) -> None:
    """Mallory names the consolidator and picks what she cites so her sentence looks the best:
    fewer of the theme's comments than any proposal of the dream cites (a sentence of one text
    alone shares words with no other), or beside them a comment of her own dated before the
    team's grant, which hides the proposal's words from the dream (its evidence no longer
    serves). Neither pre-empts the dream, nor, once alice rejects it, silences the theme."""
    from gitstore.ops import learning as ops

    from .team import sync, team_clone, two_reviewers
    from .world import Thread, ref

    alice, bob = two_reviewers(tmp_path)
    w.grant_all(alice)
    events = w.jitter_theme(alice)
    mallory = team_clone(tmp_path, tmp_path / "remote.git", "mallory")
    [alice, mallory] = sync(alice, mallory)
    if cited == "ungranted":
        thread = Thread(mallory, 40, "4000", "2025-06-01T10:00:00.000000Z")
        before = thread.comment("4000", "Keep the retry code exactly as it is.", "2025-06-01T10:00:00.000000Z",
                                author="github:66")
        thread.save()
        evidence = [ref(e) for e in (*events, before)]
    else:
        evidence = [ref(events[i]) for i in cited]
    draft = ops.Draft(title=words.rstrip("."), text=words, category="convention", evidence=evidence,
                      counterevidence=[], proposer=("consolidator", "recurrence"))
    decoy = ops.propose(mallory, draft, "github:66")
    [mallory, alice] = sync(mallory, alice)
    [proposed] = w.run(alice, dry_run=True).proposed
    assert proposed["text"] != words and proposed["signals"]["people"] == 3, proposed
    ops.reject(alice, decoy["id"], decoy["reviewDigest"], "github:9", "Not what the reviewers asked for.")
    report = w.run(alice, dry_run=True)
    [proposed] = report.proposed
    assert proposed["signals"]["people"] == 3 and not report.known, report.known


def test_the_dream_never_states_a_theme_in_a_sentence_forbidding_what_it_asks_for(tmp_path: Path) -> None:
    """A fourth comment packs the theme's words into a sentence forbidding what the others ask
    for, beside a clause that asks for something: the dream's statement is a sentence asking
    for what the theme asks, however many of the theme's words the other holds."""
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    forbidding = ("Retry loops must never add random jitter to the exponential backoff, clients must retry "
                  "after the outage in synchronised full loops.")
    w.comment(ctx, 14, "github:104", forbidding, 90)
    report = w.run(ctx, dry_run=True)
    for proposal in report.proposed:
        assert "never" not in proposal["text"], proposal


def test_a_rejection_of_another_clones_dream_stands_on_every_clone_after_an_edit(tmp_path: Path) -> None:
    """Bob's dream (a CI runner's, say) proposes the theme; alice rejects it; a reviewer fixes
    a typo in a comment it cites. Every clone still says the theme was rejected by a person:
    whether a proposal naming the consolidator is the consolidator's is read from the texts it
    cites as stored, not from which clone wrote it nor from the comments' words now."""
    from gitstore.ops import learning as ops

    from .team import sync, two_reviewers

    alice, bob = two_reviewers(tmp_path)
    w.grant_all(alice)
    events = w.jitter_theme(alice)
    [alice, bob] = sync(alice, bob)
    [proposal] = w.run(bob).proposed
    [bob, alice] = sync(bob, alice)
    ops.reject(alice, proposal["id"], proposal["reviewDigest"], "github:9", "We use a token bucket.")
    w.edit(alice, events[0], events[0]["payload"]["text"].replace("at once", "at the same moment"), 100)
    [alice, bob] = sync(alice, bob)
    for ctx in (alice, bob):
        report = w.run(ctx, dry_run=True)
        assert report.proposed == [], report.proposed
        [known] = report.known
        assert known["learning"] == proposal["id"] and known["reasons"][0].startswith("rejected by a person"), known


@pytest.mark.parametrize("words, stands", [(DECOY, False), (("Retries use jitter", w.JITTER[0][2]), True)])
def test_a_rejected_proposal_by_hand_stands_for_the_theme_only_in_words_of_its_evidence(
        tmp_path: Path, words: tuple[str, str], stands: bool) -> None:
    """A person's no to a proposal written by hand in words none of the evidence says is a no to
    those words: the dream proposes the theme from the evidence. In a sentence of the evidence,
    it is a no to the theme, as a rejection of the dream's own proposal is."""
    from gitstore.ops import learning as ops

    ctx = w.repo(tmp_path)
    events = w.jitter_theme(ctx)
    made = _by_hand(ctx, events, w.BY, words)
    ops.reject(ctx, made["id"], made["reviewDigest"], w.BY, "Not what the reviewers asked for.")
    report = w.run(ctx, dry_run=True)
    if stands:
        assert report.proposed == [] and report.known[0]["reasons"][0].startswith("rejected by a person"), report.known
    else:
        [proposed] = report.proposed
        assert proposed["signals"]["people"] == 3 and proposed["text"] != words[1], proposed


def _edit_each(ctx, events: list[dict], minute: int) -> list[dict]:  # type: ignore[no-untyped-def, type-arg]
    """Every comment edited by its author, a routine fix: each edit a new event superseding it."""
    return [w.edit(ctx, e, e["payload"]["text"] + " Thanks!", minute) for e in events]


@pytest.mark.parametrize("window", [None, _WINDOW])
def test_a_rejection_stands_after_its_comments_are_edited(tmp_path: Path, window: str | None) -> None:
    """An edit is a new event superseding the one a rejection cites, yet it is the same comment:
    the person's "no" still speaks for the theme, for a windowed dream too (the edits written
    before its window are read, as the comments they replace would be)."""
    from gitstore.ops import learning as ops

    ctx = w.repo(tmp_path)
    events = w.jitter_theme(ctx)
    [first] = w.run(ctx).proposed
    ops.reject(ctx, first["id"], first["reviewDigest"], w.BY, "We use a token bucket instead.")
    _edit_each(ctx, events, 100)
    if window is not None:
        [w.comment(ctx, pr, who, text, minute) for who, pr, text, minute in _LATER]
    report = w.run(ctx, since=window)
    assert report.proposed == [], report.proposed
    [known] = report.known
    assert known["learning"] == first["id"] and known["reasons"][0].startswith("rejected by a person"), known
    assert report.view["excluded"] == {"superseded by an edit": 3}, report.view["excluded"]


def test_an_accepted_learning_whose_comments_were_edited_is_still_in_memory(tmp_path: Path) -> None:
    from gitstore.ops import learning as ops

    ctx = w.repo(tmp_path)
    events = w.jitter_theme(ctx)
    [first] = w.run(ctx).proposed
    ops.accept(ctx, first["id"], first["reviewDigest"], w.BY)
    _edit_each(ctx, events, 100)
    report = w.run(ctx)
    assert report.proposed == [], report.proposed
    [known] = report.known
    assert known["reasons"] == [f"already in memory as {first['id']} (accepted)"], known


def test_the_dream_s_own_proposal_is_revised_after_its_comments_are_edited(tmp_path: Path) -> None:
    """Edited comments are the same evidence in their current words: the open proposal is
    revised to cite them, never proposed a second time beside it."""
    ctx = w.repo(tmp_path)
    events = w.jitter_theme(ctx)
    [first] = w.run(ctx).proposed
    edits = _edit_each(ctx, events, 100)
    [revised] = w.run(ctx).proposed
    assert revised["id"] == first["id"] and revised["revised"], revised
    cited = {e for r in revised["evidence"] for e in r["events"]}
    assert cited == {e["id"] for e in edits}, revised["evidence"]
    assert w.run(ctx).proposed == [], "revised once"


_MIGRATION = [("github:201", 21, "Every migration needs a down step so we can roll back."),
              ("github:202", 22, "Add a down step to this migration so we can roll back."),
              ("github:203", 23, "This migration has no down step; we cannot roll back.")]


@pytest.mark.parametrize("window", [None, _WINDOW])
def test_an_edit_rewritten_to_another_subject_carries_no_decision_over(tmp_path: Path, window: str | None) -> None:
    """An edit is a version of the comment it replaces only while it still says what that
    comment said: one rewritten to another theme's words (by its author, or forged by anyone who
    can push) is evidence of that theme, and a person's "no" to the theme it once spoke for
    never stands over a theme three other people raised in three pull requests."""
    from gitstore.ops import learning as ops

    ctx = w.repo(tmp_path)
    events = w.jitter_theme(ctx)
    [first] = w.run(ctx).proposed
    ops.reject(ctx, first["id"], first["reviewDigest"], w.BY, "We use a token bucket instead.")
    for n, (who, pr, text) in enumerate(_MIGRATION):
        w.comment(ctx, pr, who, text, 200 + 10 * n, path="db/migrate.py")
    w.edit(ctx, events[0], "Each migration must ship a down step so that we can roll back.", 230)
    report = w.run(ctx, since=window)
    [proposal] = report.proposed
    assert proposal["theme"] == "migration-roll-step" and not proposal["revised"], proposal
    assert proposal["signals"]["people"] == 4, "the rewrite is evidence of the theme it now states"
    [known] = report.known
    assert known["theme"] == "backoff-jitter-retry" and known["reasons"][0].startswith("rejected by a person"), known


def _forge(ctx, event: dict, author: str, elsewhere: bool) -> dict:  # type: ignore[type-arg]
    """An edit naming ``event`` appended by anyone who can push: in its thread under another
    author, or under its author in a thread (and of a source comment) of their own."""
    from .world import Thread

    view = ctx.view()
    if elsewhere:
        thread = Thread(ctx, 31, "3100", w.at(300))
        key = "3100"
    else:
        episode = view.episodes[event["episode"]]
        key = event["payload"]["sourceId"].rsplit(":", 1)[1]
        thread = Thread(ctx, episode["pin"]["pullRequest"], key, episode["startedAt"])
        thread.pending = []  # the thread is stored already
        thread.seq = 1 + max(e["seq"] for e in view.events.values() if e["episode"] == thread.id)
    made = thread.event("edit", f"forged:{event['id']}", w.at(300), author, parent=event["id"],
                        text="Looks fine to me, ship it.", sourceId=f"github:comment:{key}",
                        path="src/retry.py")
    thread.save()
    return made


@pytest.mark.parametrize("author, elsewhere", [("github:666", False), ("github:101", True),
                                               ("github:666", True)])
def test_an_edit_that_is_not_the_comment_s_own_hides_nothing(tmp_path: Path, author: str, elsewhere: bool) -> None:
    """Anyone who can push can append an edit naming any comment: only one written in its
    thread, by its author, of its source comment supersedes it. Any other is a comment of its
    own, and the one it names stays evidence, so a theme three people raised keeps its three."""
    ctx = w.repo(tmp_path)
    events = w.jitter_theme(ctx)
    forged = _forge(ctx, events[0], author, elsewhere)
    report = w.run(ctx)
    [proposal] = report.proposed
    assert proposal["theme"] == "backoff-jitter-retry" and proposal["signals"]["people"] == 3, proposal
    cited = {e for r in proposal["evidence"] for e in r["events"]}
    assert events[0]["id"] in cited and forged["id"] not in cited, proposal["evidence"]
    assert "superseded by an edit" not in report.view["excluded"], report.view["excluded"]


def test_gc_drops_the_dream_reports_that_quote_a_redacted_comment(tmp_path: Path) -> None:
    """A saved report holds the proposal in words of its evidence: once that comment is
    redacted, gc leaves no copy of them in memory's folder; a report citing other evidence stays."""
    from gitstore.ops.gc import collect

    ctx = w.repo(tmp_path)
    events = w.jitter_theme(ctx)
    [first] = w.run(ctx).proposed
    removed = events[0]["payload"]["text"]
    assert first["text"] == removed
    w.comment(ctx, 20, "github:201", "Log the request id with every error so failures can be traced.", 200)
    w.comment(ctx, 21, "github:202", "Every error log line should carry the request id.", 210)
    redact(ctx, events[0]["payload"]["sourceId"], w.BY, "asked by its author")
    after = w.run(ctx)
    assert [p["theme"] for p in after.proposed] and all(p["text"] != removed for p in after.proposed)
    folder = ctx.workspace.state / "dreams"
    before = sorted(p.name for p in folder.glob("*-instruction.json"))
    assert len(before) == 2
    _, applied, dropped, _ = collect(ctx)
    assert applied.failed == [] and len(dropped) == 1 and dropped[0].endswith(before[0]), dropped
    assert sorted(p.name for p in folder.glob("*-instruction.json")) == before[1:]
    kept = b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())
    assert removed.encode() not in kept and removed[:40].encode() not in kept
    assert collect(ctx)[2] == [], "nothing left to drop"


def test_deliveries_about_several_pull_requests_leave_the_window_open_until_each_is_complete(tmp_path: Path) -> None:
    """Deliveries about pull requests #5 and #6 were recorded as an import of #5 alone: once #5
    was imported whole, the dream said its window was complete though #6 was never read whole."""
    from gitstore.capture.reviews import import_reviews

    ctx = w.repo(tmp_path)
    report = import_reviews(ctx, deliveries(tmp_path / "d", issue_comment(5, 7001, "2026-03-04T10:00:00Z"),
                                            issue_comment(6, 7002, "2026-03-04T11:00:00Z")), w.BY)
    assert report.record["pullRequest"] is None, report.record["pullRequest"]
    assert report.todo.startswith("gitstore import github --repo acme/widgets --since")
    for number in (5, 6):
        assert w.run(ctx, dry_run=True).status == "incomplete", f"before #{number} was imported whole"
        snapshot = {"format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": number,
                    "head": {"ref": f"feature/{number}", "sha": "a" * 40},
                    "responses": [{"collection": c, "page": 1, "link": "", "body": []}
                                  for c in ("pull-comments", "reviews", "issue-comments")]}
        (tmp_path / f"complete-{number}.json").write_text(json.dumps(snapshot))
        import_reviews(ctx, tmp_path / f"complete-{number}.json", w.BY)
    assert w.run(ctx, dry_run=True).status == "complete"


def test_the_headings_of_captured_summaries_are_no_theme(tmp_path: Path) -> None:
    """Every session captured in summary mode reads "Task: ...\\nOutcome: ...": those two words
    recurred across unrelated sessions and became a theme of their own (``hello-outcome-task``)."""
    ctx = w.repo(tmp_path)
    w.grant_sessions(ctx)
    w.jitter_theme(ctx)
    w.comment(ctx, 30, "github:104", "The changelog should mention the deprecated flag.", 100)
    w.comment(ctx, 31, "github:105", "Keep the README install steps short.", 110)
    for day, (stem, text) in enumerate([("greet", "Print hello in the greeting script."),
                                        ("rename", "Rename the fixture folder to samples."),
                                        ("docs", "Say hello in the docs index page.")], 5):
        w.session(ctx, tmp_path / "s", stem, text, day=day, mode="summary")
    found = w.themes(w.run(ctx, dry_run=True))
    assert not [t for t in found if {"task", "outcome", "captur"} & set(t.split("-"))], found


def test_a_quiet_dream_says_how_many_themes_memory_already_holds(tmp_path: Path) -> None:
    """A theme that passed the gates and was already in memory, beside one that failed them,
    read as "no theme passed the gates"."""
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    assert w.run(ctx).proposed
    for n, text in enumerate(["The changelog should mention every deprecated flag.",
                              "Mention each deprecated flag in the changelog."]):
        w.comment(ctx, 40 + n, "github:7", text, 100 + 10 * n, path="CHANGELOG.md")
    report = w.run(ctx, dry_run=True)
    assert report.proposed == [] and report.known and report.rejected, w.themes(report)
    assert "no update: memory already holds the 1 theme that passed the gates; no other passed them" in report.why, \
        report.why


def test_redact_names_the_learning_whose_words_a_dream_took_from_the_comment(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A proposal the dream worded from a comment keeps the comment's sentence in its title and
    text, records that cannot change: redacting that comment names it as quoting the words
    (in the text, and as learningsQuoting), and redacting another comment it cites only as
    citing it."""
    from gitstore.cli import main
    from gitstore.dream import terms

    ctx = w.repo(tmp_path)
    events = w.jitter_theme(ctx)
    [proposal] = w.run(ctx).proposed
    record = next(i.record for i in ctx.store.items(["learning"]) if i.record["id"] == proposal["id"])
    title, text = record["content"]["title"], record["content"]["text"]
    [quoted] = [e for e in events if terms.says(e["payload"]["text"], text)]
    other = next(e for e in events if e is not quoted)
    assert not terms.says(other["payload"]["text"], title) and not terms.says(title, other["payload"]["text"])
    cited_only = redact(ctx, other["payload"]["sourceId"], w.BY, "asked by its author")
    assert cited_only.learnings == [proposal["id"]] and cited_only.quoting == []
    assert cited_only.to_json()["learningsQuoting"] == []
    monkeypatch.chdir(ctx.workspace.root)
    assert main(["redact", "--comment", quoted["payload"]["sourceId"], "--reason", "personal data",
                 "--by", w.BY]) == 0
    out = capsys.readouterr().out
    assert (f"  learning {proposal['id']} quotes its words in its title and text: records cannot change, so every "
            "version of it keeps them, on every clone that fetched it and on the remote; retire it") in out
    assert "purge this clone's memory (`gitstore purge`): other clones and the remote keep theirs" in out
    again = redact(ctx, quoted["payload"]["sourceId"], w.BY, "personal data")  # its text is gone: nothing to tell
    assert again.already and again.quoting == []
    kept = [i.record["content"]["title"] for i in ctx.store.items(["learning"]) if i.record["id"] == proposal["id"]]
    assert kept == [title] and terms.says(quoted["payload"]["text"], title)  # the words stay, as the report says


def test_redact_json_lists_the_learnings_quoting_the_comment(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from gitstore.cli import main
    from gitstore.dream import terms

    ctx = w.repo(tmp_path)
    events = w.jitter_theme(ctx)
    [proposal] = w.run(ctx).proposed
    [quoted] = [e for e in events if terms.says(e["payload"]["text"], proposal["title"])]
    monkeypatch.chdir(ctx.workspace.root)
    assert main(["redact", "--comment", quoted["payload"]["sourceId"], "--reason", "personal data",
                 "--by", w.BY, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["learningsToRebuild"] == [proposal["id"]]
    assert found["learningsQuoting"] == [{"id": proposal["id"], "in": ["title", "text"]}]


@pytest.mark.parametrize(("said", "quoting"), [
    ("Retries need jittered backoff, otherwise every client hammers the API at once.", True),  # the statement
    ("Retries need jittered backoff", True),  # its title, the first clause
    ("retries   NEED jittered backoff, otherwise every client…", True),  # a title cut, case and spacing aside
    ("Retries need jittered backoff, otherwise every client hammers the...", True),  # cut as within cuts
    ("Our rule: retries need jittered backoff, otherwise every client hammers the API at once. Measured.", True),
    ("Keep the retry budget per client.", False),
    ("Jittered backoff", False),  # two words of it say nothing of its own
    ("every", False),
])
def test_what_counts_as_quoting_a_comment(said: str, quoting: bool) -> None:
    from gitstore.dream.consolidators.recurrence import quotes

    comment = "Small thing: please retries need jittered backoff, otherwise every client hammers the API at once."
    assert quotes(said, comment) is quoting
    assert quotes("Add jitter.", "Add jitter.") and not quotes("", comment) and not quotes(said, "")


def _dated(ctx: Context, pr: int, author: str, text: str, when: str, key: str) -> None:
    from .world import Thread

    thread = Thread(ctx, pr, key, when)
    thread.event("comment", f"comment:{key}", when, author, text=text, sourceId=f"github:comment:{key}",
                 path="src/retry.py")
    thread.save()


NOW = datetime(2026, 4, 1, tzinfo=timezone.utc)


def test_evidence_dated_in_the_future_is_set_aside(tmp_path: Path) -> None:
    """Anyone who can push can store a comment claiming any time: one dated 2099 was the newest
    evidence of the view, and every honest theme failed its age gate ("last seen 26602 days
    before the newest evidence"). Evidence dated past the dream's clock (and a day for skew) is
    left out of the view, counted, never support nor the measure of recency."""
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    before = w.run(ctx, dry_run=True, now=NOW)
    _dated(ctx, 99, "github:777", "Nice.", "2099-01-01T00:00:00.000000Z", "9999")
    report = w.run(ctx, dry_run=True, now=NOW)
    assert [p["signals"] for p in report.proposed] == [p["signals"] for p in before.proposed], report.rejected
    assert report.view["excluded"] == {"dated in the future": 1} and report.view["evidence"] == 3, report.view
    assert "left out: 1 dated in the future" in report.render()


def test_support_dated_in_the_future_counts_for_nothing(tmp_path: Path) -> None:
    """A second account's comment dated ahead of the clock is no second person, pull request or
    thread: the theme stands on one reviewer. Within a day past the clock (clocks differ) it counts."""
    ctx = w.repo(tmp_path)
    w.comment(ctx, 11, "github:101", w.JITTER[0][2], 0)
    w.comment(ctx, 12, "github:101", w.JITTER[1][2], 10)
    _dated(ctx, 13, "github:666", w.JITTER[2][2], "2026-04-03T00:00:00.000000Z", "4242")
    report = w.run(ctx, dry_run=True, now=NOW)
    assert report.proposed == [], report.proposed
    [verdict] = report.rejected
    assert verdict["signals"]["people"] == 1 and verdict["signals"]["evidence"] == 2, verdict["signals"]
    [proposal] = w.run(ctx, dry_run=True, now=datetime(2026, 4, 2, 1, tzinfo=timezone.utc)).proposed
    assert proposal["signals"]["people"] == 2 and proposal["signals"]["ageDays"] == 0, proposal["signals"]


def test_a_store_in_the_past_dreams_alike_whenever_the_dream_runs(tmp_path: Path) -> None:
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    w.comment(ctx, 20, "github:104", "Cache the database schema between test runs, the fixtures are slow.", 50)
    reports = [w.run(ctx, dry_run=True, now=when).to_json()
               for when in (datetime(2026, 3, 2, 12, tzinfo=timezone.utc), NOW, datetime(2031, 1, 1, tzinfo=timezone.utc))]
    assert reports[0] == reports[1] == reports[2]
    assert reports[0]["view"]["excluded"] == {}


def test_explain_shows_the_verdict_of_the_check_that_dropped_a_theme(tmp_path: Path) -> None:
    """A theme the consolidator proposed and a re-check dropped (texts the safety scanner
    quarantines: terminal escapes, bidirectional controls) was explained twice, "proposed" and
    "rejected": the check's verdict is the dream's, in the text and in ``--json``; the report
    says it passed the gates and was set aside, not that no theme passed them."""
    ctx = w.repo(tmp_path)
    escape, bidi = "\x1b]0;pwned\x07\x1b[31m", "\u202e"
    for n, (who, pr, text) in enumerate([
            ("github:5001", 21, f"Always pin the http client timeout to 5 seconds in src/http.py {escape}RED"),
            ("github:5002", 22, f"Pin the http client timeout to five seconds; unbounded timeouts hung CI {escape}X"),
            ("github:5003", 23, f"Please pin the timeout of the http client to 5 seconds {bidi}abc")]):
        w.comment(ctx, pr, who, text, 10 * n, path="src/http.py")
    report = w.run(ctx, explain="timeout")
    [rejected] = report.rejected
    assert report.proposed == [] and rejected["reasons"][0].startswith("quarantined"), rejected
    [theme] = report.explain["themes"]  # type: ignore[index]
    assert theme["theme"] == rejected["theme"] and theme["outcome"] == "rejected", theme
    assert theme["reasons"] == rejected["reasons"] and len(theme["labels"]) == 3, theme
    assert report.to_json()["explain"]["themes"] == [theme]
    assert f"theme {theme['theme']}: proposed" not in report.render()
    # nor is it one that failed the gates: it passed them, and a check set it aside
    assert "no update: 1 theme passed the gates and the dream's checks set them aside (see rejected)" in report.why


def test_the_text_report_names_a_few_of_the_heads_its_view_was_taken_at() -> None:
    """One head per writer: a remote anyone can push to may hold thousands, and the line
    naming them all ran to 25 KB at 400 writers; --json keeps every one."""
    from gitstore.dream.report import SHOWN, DreamReport

    heads = [f"records/shared/w{n:012x} @ clock {n} (sha256:{n:012x})" for n in range(400)]
    report = DreamReport("complete", "no-update", "instruction", view={"evidence": 3, "heads": heads})
    line = next(line for line in report.render().splitlines() if "pieces of evidence" in line)
    assert heads[SHOWN - 1] in line and heads[SHOWN] not in line
    assert line.endswith(f"and {400 - SHOWN} more (--json has them all)")
    assert report.to_json()["view"]["heads"] == heads
    few = DreamReport("complete", "no-update", "instruction", view={"evidence": 3, "heads": heads[:2]})
    assert f"taken at {heads[0]}, {heads[1]}\n" in few.render()
    assert "taken at an empty store" in DreamReport("complete", "no-update", "instruction").render()
