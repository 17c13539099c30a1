"""A folder of review material imported as it fills: new files only, the folder never changed,
a bad file reported and tried again, deliveries for another repository refused alone."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from gitstore.capture.inbox import import_folder
from gitstore.capture.reviews import import_reviews
from gitstore.errors import InvalidInput
from gitstore.context import Context

from .conftest import git, shared
from .world import ready_repo

BY = "git:bot@example.com"


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return ready_repo(tmp_path / "hello", origin="https://github.com/Codertocat/Hello-World.git")


def test_new_files_only_and_the_folder_untouched(ctx: Context, tmp_path: Path) -> None:
    hooks = shared("reviews", "octokit-webhooks")
    inbox, ledger = tmp_path / "inbox", tmp_path / "ledger.json"
    inbox.mkdir()
    shutil.copy(hooks / "pull_request_review_comment" / "created.payload.json", inbox / "a.json")
    shutil.copy(hooks / "pull_request_review" / "submitted.payload.json", inbox / "b.json")
    (inbox / ".c.json").write_text("{")  # still being written
    (inbox / "d.json").write_text("{not json")
    other = json.loads((hooks / "issue_comment" / "created.payload.json").read_text())
    elsewhere = copy.deepcopy(other)
    elsewhere["repository"]["full_name"] = "someone/else"
    (inbox / "e.json").write_text(json.dumps(elsewhere))
    before = sorted((p.name, p.read_bytes()) for p in inbox.iterdir())
    first = import_folder(ctx, inbox, BY, ledger)
    assert [i["files"] for i in first.imports] == [["a.json", "b.json"]], "deliveries of one repository together"
    assert len(first.problems) == 2
    assert first.problems[0].startswith("d.json: ") and first.problems[1].startswith("e.json: ")
    assert "someone/else" in first.problems[1]
    assert sorted((p.name, p.read_bytes()) for p in inbox.iterdir()) == before, "the folder is never changed"
    (inbox / "d.json").write_text(json.dumps(other))
    second = import_folder(ctx, inbox, BY, ledger)
    assert [i["files"] for i in second.imports] == [["d.json"]] and second.already == 2
    (inbox / "a.json").unlink()
    import_folder(ctx, inbox, BY, ledger)
    assert len(json.loads(ledger.read_text())["files"]) == 2, "the ledger keeps only files still there"
    assert len(list(ctx.store.items(["import"]))) == 2


def test_a_missing_folder_is_one_error(ctx: Context, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no such folder"):
        import_folder(ctx, tmp_path / "nowhere", BY, tmp_path / "ledger.json")


def test_a_missing_folder_in_the_state_folder_is_made_and_holds_nothing(ctx: Context, tmp_path: Path) -> None:
    """The clone's own inbox (loop.md's example) before a receiver first wrote to it: nothing has
    arrived, which is no error; the folder is made for the receiver. Outside the state folder, or
    out of it through `..`, a missing folder stays a wrong path."""
    from gitstore.errors import Refused

    state = ctx.workspace.state
    inbox, ledger = state / "inbox" / "reviews", state / "loop" / "reviews-imported.json"
    report = import_folder(ctx, inbox, BY, ledger)
    assert report.to_json() == {"imports": [], "problems": [], "alreadyImported": 0, "refusedBefore": []}
    assert inbox.is_dir() and not list(inbox.iterdir())
    assert import_folder(ctx, inbox, BY, ledger).imports == []
    with pytest.raises(InvalidInput, match="no such folder"):
        import_folder(ctx, state / ".." / "nowhere", BY, ledger)
    assert not (ctx.workspace.root / "okf" / "nowhere").exists()
    shutil.rmtree(state / "inbox")
    (ctx.workspace.root / "attack").mkdir()
    (state / "inbox").symlink_to("../../attack", target_is_directory=True)
    with pytest.raises(Refused, match="inbox is a link"):
        import_folder(ctx, inbox, BY, ledger)
    assert not (ctx.workspace.root / "attack" / "reviews").exists(), "nothing made through the link"


def test_one_pass_stores_what_importing_each_file_alone_stores(ctx: Context, tmp_path: Path) -> None:
    """A pass reads the store once and builds each import on the ones before it: an edit in a
    later snapshot becomes an edit of the comment an earlier one stored, a comment gone from a
    complete snapshot a deletion, exactly as when each file is imported in a run of its own."""
    base = json.loads(shared("reviews", "octokit-webhooks", "pull_request_review_comment",
                             "created.payload.json").read_text())["comment"]

    def comment(n: int, body: str, updated: str, reply_to: int | None = None) -> dict:
        found = copy.deepcopy(base)
        found.update(id=1000 + n, body=body, created_at=f"2019-05-15T15:0{n}:00Z", updated_at=updated,
                     in_reply_to_id=reply_to)
        return found

    def snapshot(comments: list[dict]) -> str:
        return json.dumps({
            "format": "gitstore.github-snapshot/1", "repository": "Codertocat/Hello-World", "pullRequest": 2,
            "head": {"ref": "changes", "sha": "ec26c3e57ca3a959ca5aad62de7213c562f8c821"},
            "responses": [{"collection": "pull-comments", "page": 1, "link": "", "body": comments},
                          {"collection": "reviews", "page": 1, "link": "", "body": []},
                          {"collection": "issue-comments", "page": 1, "link": "", "body": []}]})

    first, second = comment(1, "Use a retry here.", "2019-05-15T15:01:00Z"), comment(2, "Rename it.", "2019-05-15T15:02:00Z")
    edited = comment(1, "Use a retry with backoff here.", "2019-05-16T09:00:00Z")
    reply = comment(3, "Agreed.", "2019-05-17T10:00:00Z", reply_to=1002)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name, comments in (("1.json", [first, second]), ("2.json", [edited, second, reply]), ("3.json", [edited, reply])):
        (inbox / name).write_text(snapshot(comments))
    report = import_folder(ctx, inbox, BY, tmp_path / "ledger.json", remove_deleted=True)
    assert [i["files"] for i in report.imports] == [["1.json"], ["2.json"], ["3.json"]] and not report.problems
    alone = ready_repo(tmp_path / "alone", origin="https://github.com/Codertocat/Hello-World.git")
    for name in ("1.json", "2.json", "3.json"):
        import_reviews(alone, inbox / name, BY, remove_deleted=True)

    def stored(where: Context) -> list[tuple[str, str]]:
        return sorted((i.kind, i.digest) for i in where.store.items(["episode", "event"]))

    assert stored(ctx) == stored(alone)
    kinds = sorted(i.record["type"] for i in ctx.store.items(["event"]))
    assert kinds == ["comment", "comment", "comment", "edit", "retraction"]


def test_a_folder_a_commit_linked_in_the_state_folder_is_never_imported(ctx: Context) -> None:
    """The same attack with the folder as a link a commit force-added, to material committed
    elsewhere: the tracked check looked at the folder the link resolves to, outside the state
    folder, and imported it."""
    from gitstore.errors import Refused

    hooks = shared("reviews", "octokit-webhooks")
    root = ctx.workspace.root
    attack = root / "attack"
    attack.mkdir()
    shutil.copy(hooks / "pull_request_review_comment" / "created.payload.json", attack / "pr12.json")
    inbox = ctx.workspace.state / "inbox" / "reviews"
    inbox.parent.mkdir(parents=True, exist_ok=True)
    inbox.symlink_to("../../../attack", target_is_directory=True)
    git(root, "add", "-f", "attack", "okf/.memory/inbox/reviews")
    git(root, "commit", "-q", "-m", "Add review material")
    with pytest.raises(Refused, match=r"reviews is a link \(to \.\./\.\./\.\./attack\)"):
        import_folder(ctx, inbox, BY, ctx.workspace.state / "loop" / "ledger.json")
    assert not list(ctx.store.items(["event"]))


def test_a_file_a_commit_put_in_the_state_folder_is_never_imported(ctx: Context) -> None:
    """okf/.memory/ is this clone's and ignored by git: a delivery there that git tracks came with
    a commit (``git add -f``), which could name anyone as the comment's author, so it is reported
    and left out; one the clone's receiver dropped beside it is imported."""
    hooks = shared("reviews", "octokit-webhooks")
    root = ctx.workspace.root
    inbox = ctx.workspace.state / "inbox" / "reviews"
    inbox.mkdir(parents=True)
    shutil.copy(hooks / "pull_request_review_comment" / "created.payload.json", inbox / "planted.json")
    git(root, "add", "-f", "okf/.memory/inbox/reviews/planted.json")
    git(root, "commit", "-q", "-m", "Add review material")
    shutil.copy(hooks / "pull_request_review" / "submitted.payload.json", inbox / "received.json")
    ledger = ctx.workspace.state / "loop" / "ledger.json"
    report = import_folder(ctx, inbox, BY, ledger)
    assert [i["files"] for i in report.imports] == [["received.json"]]
    assert len(report.problems) == 1 and report.problems[0].startswith("planted.json: git tracks it")
    assert [i["files"] for i in import_folder(ctx, inbox, BY, ledger).imports] == []  # never, not once later
    outside = root / "review-material"  # a folder the team keeps in the repository on purpose
    shutil.copytree(inbox, outside)
    git(root, "add", "review-material")
    git(root, "commit", "-q", "-m", "Keep review material")
    again = import_folder(ctx, outside, BY, root / "other-ledger.json")
    assert not again.problems and "planted.json" in again.imports[0]["files"]


def test_a_file_that_cannot_be_imported_is_reported_alone_and_tried_again(ctx: Context, tmp_path: Path) -> None:
    """One malformed file stopped the folder's import for good: a snapshot of the wrong shape
    raised past the pass, and a delivery with a time that does not parse failed the import of
    every delivery beside it, pass after pass. Each is reported by name and tried again next
    time; the other files are imported."""
    hooks = shared("reviews", "octokit-webhooks")
    inbox, ledger = tmp_path / "inbox", tmp_path / "ledger.json"
    inbox.mkdir()
    shutil.copy(hooks / "pull_request_review_comment" / "created.payload.json", inbox / "a.json")
    bad_time = json.loads((hooks / "issue_comment" / "created.payload.json").read_text())
    bad_time["comment"]["created_at"] = bad_time["comment"]["updated_at"] = "yesterday"
    (inbox / "b.json").write_text(json.dumps(bad_time))
    shutil.copy(hooks / "pull_request_review" / "submitted.payload.json", inbox / "c.json")
    (inbox / "d.json").write_text(json.dumps({
        "format": "gitstore.github-snapshot/1", "repository": "Codertocat/Hello-World", "pullRequest": 2,
        "head": {"ref": "changes", "sha": "ec26c3e57ca3a959ca5aad62de7213c562f8c821"}, "responses": {"a": 1}}))
    for _ in range(2):
        report = import_folder(ctx, inbox, BY, ledger)
        assert [p.split(":")[0] for p in report.problems] == ["d.json", "b.json"], report.problems
        assert "yesterday" in report.problems[1] and all("\n" not in p for p in report.problems)
    assert sorted(json.loads(ledger.read_text())["files"].values()) == ["a.json", "c.json"]
    assert report.imports == [] and report.already == 2
    assert sorted({e.record["type"] for e in ctx.store.items(["event"])}) == ["comment", "status"]


def test_a_deletion_received_a_pass_before_its_comment_keeps_the_comment_out(ctx: Context, tmp_path: Path) -> None:
    """A receiver saves deliveries as they come, in no promised order: a deletion saved a pass
    before its comment was imported as nothing, and the next pass stored the deleted comment."""
    hooks = shared("reviews", "octokit-webhooks", "issue_comment")
    inbox, ledger = tmp_path / "inbox", tmp_path / "ledger.json"
    inbox.mkdir()
    shutil.copy(hooks / "deleted.payload.json", inbox / "d1.json")
    first = import_folder(ctx, inbox, BY, ledger)
    assert first.imports[0]["counts"]["deletions"] == 1
    shutil.copy(hooks / "created.payload.json", inbox / "c1.json")
    second = import_folder(ctx, inbox, BY, ledger)
    assert [i["files"] for i in second.imports] == [["c1.json"]] and second.imports[0]["counts"]["skipped"] == 1
    assert [e.record["type"] for e in ctx.store.items(["event"])] == ["retraction"]


def _rest(comments: list[tuple[int, str, str]], taken: str) -> dict:
    """A complete REST snapshot of pull request 2 listing COMMENTS (id, text, time), taken at TAKEN."""
    body = [{"id": cid, "user": {"id": 21031067}, "body": text, "created_at": at, "updated_at": at,
             "path": "README.md", "line": 1, "commit_id": "e" * 40} for cid, text, at in comments]
    return {"format": "gitstore.github-snapshot/1", "repository": "Codertocat/Hello-World", "pullRequest": 2,
            "head": {"ref": "changes", "sha": "e" * 40}, "takenAt": taken,
            "responses": [{"collection": "pull-comments", "page": 1, "link": "", "body": body},
                          {"collection": "reviews", "page": 1, "link": "", "body": []},
                          {"collection": "issue-comments", "page": 1, "link": "", "body": []}]}


def test_the_same_pages_fetched_again_show_a_comment_written_between_deleted(ctx: Context, tmp_path: Path) -> None:
    """A snapshot refetched after a comment written since the first fetch was deleted holds the
    same pages as the first, so the same digest (takenAt is left out of it): it was skipped as
    imported already, and the deleted comment's text stayed though deleted text was to be removed."""
    inbox, ledger = tmp_path / "inbox", tmp_path / "ledger.json"
    inbox.mkdir()
    first = (1001, "Point 1.", "2026-03-01T10:00:00Z")
    fetches = [_rest([first], "2026-03-01T11:00:00Z"),
               _rest([first, (1002, "Point 2.", "2026-03-01T12:00:00Z")], "2026-03-01T13:00:00Z"),
               _rest([first], "2026-03-01T15:00:00Z")]  # 1002 deleted at its source meanwhile
    reports = []
    for snapshot in fetches:
        (inbox / "pr-2.json").write_text(json.dumps(snapshot))  # the same file, fetched again
        reports.append(import_folder(ctx, inbox, BY, ledger, remove_deleted=True))
    assert [r.problems for r in reports] == [[], [], []]
    assert reports[2].already == 0 and reports[2].imports[0]["removedText"] == ["github:comment:1002"]
    texts = {e.record["payload"]["sourceId"]: e.record["payload"]["text"]
             for e in ctx.store.items(["event"], payloads=True) if "payload" in e.record}
    assert texts == {"github:comment:1001": "Point 1."}
    # nothing left to remove: the next pass imports nothing again
    again = import_folder(ctx, inbox, BY, ledger, remove_deleted=True)
    assert again.imports == [] and again.already == 1 and again.problems == []


def test_a_removal_imported_is_known_to_the_rest_of_the_pass(ctx: Context, tmp_path: Path) -> None:
    """The same pages saved twice (a refetch kept under two names): once the first file's import
    removed the deleted comment's text, the second is stored already and removes nothing. The
    pass's view of the store missed the removal, imported the second file again (a needless
    import record, the text removed twice); a pass after it writes nothing at all."""
    inbox, ledger = tmp_path / "inbox", tmp_path / "ledger.json"
    inbox.mkdir()
    first = (1001, "Point 1.", "2026-03-01T10:00:00Z")
    (inbox / "pr-2.json").write_text(json.dumps(_rest([first, (1002, "Point 2.", "2026-03-01T12:00:00Z")],
                                                      "2026-03-01T13:00:00Z")))
    import_folder(ctx, inbox, BY, ledger, remove_deleted=True)
    later = _rest([first], "2026-03-01T15:00:00Z")  # 1002 deleted at its source meanwhile
    (inbox / "pr-2.json").write_text(json.dumps(later))
    (inbox / "pr-2-again.json").write_text(json.dumps({**later, "takenAt": "2026-03-01T16:00:00Z"}))
    second = import_folder(ctx, inbox, BY, ledger, remove_deleted=True)
    assert [i["removedText"] for i in second.imports] == [["github:comment:1002"]] and second.already == 1, \
        second.to_json()
    assert len(list(ctx.store.items(["import"]))) == 2
    tips = git(ctx.workspace.root, "for-each-ref", "refs/memory")
    third = import_folder(ctx, inbox, BY, ledger, remove_deleted=True)
    assert third.imports == [] and third.problems == [] and third.already == 2
    assert git(ctx.workspace.root, "for-each-ref", "refs/memory") == tips, "a pass with nothing new writes nothing"
