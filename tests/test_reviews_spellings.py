"""Review material and the repository it belongs to, across spellings of one scope: one review
thread is one episode whichever spelling of the repository's scope imported it (clones whose
origins differ only in case, episodes stored before ids read the scope's key, a scope the
repository had before it was renamed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitstore.capture.reviews import import_reviews
from gitstore.context import Context
from gitstore.ops.redact import redact
from gitstore.ops.setup import init
from gitstore.queries.verify import verify
from gitstore.sync.remote import sync

from .conftest import git, shared
from .world import ready_repo

UPPER = "https://github.com/Codertocat/Hello-World.git"
LOWER = "https://github.com/codertocat/hello-world.git"
HOOKS = ("reviews", "octokit-webhooks")


def hook(name: str) -> Path:
    return shared(*HOOKS, *name.split("/"))


@pytest.fixture
def hosted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The team's remote, which git reaches under both spellings of its GitHub address (the
    library computing the scope reads the origin URL as written)."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "2")
    for n, url in enumerate((UPPER, LOWER)):
        monkeypatch.setenv(f"GIT_CONFIG_KEY_{n}", f"url.{bare}.insteadOf")
        monkeypatch.setenv(f"GIT_CONFIG_VALUE_{n}", url)
    return bare


def _threads(ctx: Context) -> list[str]:
    return sorted(eid for eid, e in Context.open(ctx.workspace.root).view().episodes.items()
                  if e["source"]["kind"] == "review-thread")


def test_one_thread_imported_by_two_clones_spelling_the_scope_apart_is_one_episode(tmp_path: Path,
                                                                                    hosted: Path) -> None:
    """Each clone imports the same delivery before either syncs: one episode, and removing the
    comment's text removes it from the only thread that holds it."""
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    git(tmp_path, "init", "-q", "-b", "main", str(alice))
    git(alice, "remote", "add", "origin", UPPER)
    git(alice, "commit", "-q", "--allow-empty", "-m", "root")
    git(alice, "push", "-q", "-u", "origin", "main")
    git(tmp_path, "clone", "-q", LOWER, str(bob))
    for root in (alice, bob):
        init(root)
    material = hook("pull_request_review_comment/created.payload.json")
    for root, who in ((alice, "github:9"), (bob, "github:10")):
        import_reviews(Context.open(root), material, who)
    for root in (alice, bob, alice):
        assert not sync(str(root)).quarantined
    clones = [Context.open(root) for root in (alice, bob)]
    assert clones[0].scope != clones[1].scope
    assert _threads(clones[0]) == _threads(clones[1]) and len(_threads(clones[0])) == 1
    comment = f"github:comment:{json.loads(material.read_text())['comment']['id']}"
    report = redact(clones[1], comment, "github:10", "asked to")
    assert report.removed, report
    texts = [e.get("payload", {}).get("text") for e in Context.open(bob).view().events.values()]
    assert "You might need to fix this." not in texts
    assert not verify(Context.open(bob).store).problems


def test_a_thread_stored_under_the_spelled_scope_is_added_to_not_started_again(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A clone whose scope is spelled otherwise than its key stored a review's episode under
    the id the spelling gave (before ids read the key): the review dismissed later joins it."""
    import gitstore.capture.reviews as reviews
    from gitstore.records.ids import spelled_episode_id

    ctx = ready_repo(tmp_path / "hello", origin=UPPER)
    with monkeypatch.context() as before:
        before.setattr(reviews, "episode_id", spelled_episode_id)
        import_reviews(ctx, hook("pull_request_review/submitted.payload.json"), "github:9")
    [stored] = _threads(ctx)
    import_reviews(ctx, hook("pull_request_review/dismissed.payload.json"), "github:9")
    assert _threads(ctx) == [stored]


def test_a_thread_imported_before_a_rename_is_added_to_after_it(tmp_path: Path) -> None:
    """The repository renamed and its former scope declared: the same review delivered again
    under the new name is the thread stored under the old one."""
    ctx = ready_repo(tmp_path / "hello", origin=UPPER)
    root = ctx.workspace.root
    import_reviews(ctx, hook("pull_request_review/submitted.payload.json"), "github:9")
    [stored] = _threads(ctx)
    git(root, "remote", "set-url", "origin", "https://github.com/Codertocat/Hello-Universe.git")
    (root / ".gitstore").mkdir(exist_ok=True)
    (root / ".gitstore" / "scope.json").write_text(json.dumps(
        {"schema": "gitstore.scope/v1", "formerly": ["github.com/Codertocat/Hello-World"]}))
    git(root, "add", ".gitstore/scope.json")
    git(root, "commit", "-q", "-m", "Renamed")
    init(root)
    delivery = json.loads(hook("pull_request_review/dismissed.payload.json").read_text())
    delivery["repository"].update(full_name="Codertocat/Hello-Universe",
                                  html_url="https://github.com/Codertocat/Hello-Universe")
    (tmp_path / "dismissed.json").write_text(json.dumps(delivery))
    renamed = Context.open(root)
    assert renamed.scope == "github.com/Codertocat/Hello-Universe"
    import_reviews(renamed, tmp_path / "dismissed.json", "github:9")
    assert _threads(renamed) == [stored]


def test_a_session_stored_under_the_spelled_scope_is_captured_again_into_its_episode(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gitstore.capture.normalize as normalize
    from gitstore.capture.sessions import import_transcript
    from gitstore.records.ids import spelled_episode_id

    from .world import claude_transcript

    ctx = ready_repo(tmp_path / "hello", origin=UPPER)
    path = claude_transcript(tmp_path / "s.jsonl", [("user", "Add retries."), ("assistant", "Added retries.")])
    with monkeypatch.context() as before:
        before.setattr(normalize, "episode_id", spelled_episode_id)
        first = import_transcript(ctx, path)
    again = import_transcript(Context.open(ctx.workspace.root), path)
    assert again.episode["id"] == first.episode["id"]
    assert len(Context.open(ctx.workspace.root).view().episodes) == 1
