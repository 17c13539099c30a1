"""Review material and the repository it belongs to, across hosts and spellings of one scope:
material is this repository's only when its host is this scope's (the same owner/name on
another host is another repository), and one review thread is one episode whichever spelling
of the repository's scope imported it (clones whose origins differ only in case, episodes
stored before ids read the scope's key, a scope the repository had before it was renamed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitstore.capture.reviews import import_reviews
from gitstore.errors import Refused
from gitstore.context import Context
from gitstore.ops.redact import redact
from gitstore.ops.setup import init
from gitstore.queries.verify import verify
from gitstore.sync.remote import sync

from .conftest import git, shared
from .test_scope_spellings import reached_under
from .world import ready_repo

UPPER = "https://github.com/Codertocat/Hello-World.git"
LOWER = "https://github.com/codertocat/hello-world.git"
HOOKS = ("reviews", "octokit-webhooks")


def hook(name: str) -> Path:
    return shared(*HOOKS, *name.split("/"))


@pytest.fixture
def hosted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The team's remote, which git reaches under both spellings of its GitHub address."""
    return reached_under(tmp_path, monkeypatch, UPPER, LOWER)


def _two_clones(tmp: Path) -> tuple[Path, Path]:
    """Alice's clone, whose origin spells the repository Codertocat/Hello-World, and bob's,
    spelling it in lower case; both set up for gitstore."""
    alice, bob = tmp / "alice", tmp / "bob"
    git(tmp, "init", "-q", "-b", "main", str(alice))
    git(alice, "remote", "add", "origin", UPPER)
    git(alice, "commit", "-q", "--allow-empty", "-m", "root")
    git(alice, "push", "-q", "-u", "origin", "main")
    git(tmp, "clone", "-q", LOWER, str(bob))
    for root in (alice, bob):
        init(root)
    return alice, bob


def _threads(ctx: Context) -> list[str]:
    return sorted(eid for eid, e in Context.open(ctx.workspace.root).view().episodes.items()
                  if e["source"]["kind"] == "review-thread")


def test_one_thread_imported_by_two_clones_spelling_the_scope_apart_is_one_episode(tmp_path: Path,
                                                                                    hosted: Path) -> None:
    """Each clone imports the same delivery before either syncs: one episode, and removing the
    comment's text removes it from the only thread that holds it."""
    alice, bob = _two_clones(tmp_path)
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


def _renamed(root: Path) -> None:
    """The repository renamed on GitHub to Codertocat/Hello-Universe: origin points there, and
    the default branch declares the scope it had."""
    git(root, "remote", "set-url", "origin", "https://github.com/Codertocat/Hello-Universe.git")
    (root / ".gitstore").mkdir(exist_ok=True)
    (root / ".gitstore" / "scope.json").write_text(json.dumps(
        {"schema": "gitstore.scope/v1", "formerly": ["github.com/Codertocat/Hello-World"]}))
    git(root, "add", ".gitstore/scope.json")
    git(root, "commit", "-q", "-m", "Renamed")
    init(root)


def test_a_thread_imported_before_a_rename_is_added_to_after_it(tmp_path: Path) -> None:
    """The repository renamed and its former scope declared: the same review delivered again
    under the new name is the thread stored under the old one."""
    ctx = ready_repo(tmp_path / "hello", origin=UPPER)
    root = ctx.workspace.root
    import_reviews(ctx, hook("pull_request_review/submitted.payload.json"), "github:9")
    [stored] = _threads(ctx)
    _renamed(root)
    delivery = json.loads(hook("pull_request_review/dismissed.payload.json").read_text())
    delivery["repository"].update(full_name="Codertocat/Hello-Universe",
                                  html_url="https://github.com/Codertocat/Hello-Universe")
    (tmp_path / "dismissed.json").write_text(json.dumps(delivery))
    renamed = Context.open(root)
    assert renamed.scope == "github.com/Codertocat/Hello-Universe"
    import_reviews(renamed, tmp_path / "dismissed.json", "github:9")
    assert _threads(renamed) == [stored]
    view = Context.open(root).view()
    assert sorted(e["payload"]["state"] for e in view.events.values() if e["type"] == "status") == \
        ["commented", "dismissed"]
    assert not verify(Context.open(root).store).problems


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



def test_material_of_a_declared_former_scope_is_this_repositorys(tmp_path: Path) -> None:
    """A delivery saved before the rename and imported after it names the old name: the
    declaration says that repository is this one, so it is imported under the new scope; one of
    a name never declared is still refused."""
    ctx = ready_repo(tmp_path / "hello", origin=UPPER)
    _renamed(ctx.workspace.root)
    renamed = Context.open(ctx.workspace.root)
    report = import_reviews(renamed, hook("pull_request_review_comment/created.payload.json"), "github:9")
    assert report.events == 1 and report.record["scope"] == "github.com/Codertocat/Hello-Universe"
    with pytest.raises(Refused, match=r"is for Codertocat/Hello-World on git\.example\.com"):
        import_reviews(renamed, _on(tmp_path, "pull_request_review/submitted.payload.json", "git.example.com"),
                       "github:9")


SELF_HOSTED = "https://git.example.com/Codertocat/Hello-World.git"


def _on(tmp: Path, name: str, host: str) -> Path:
    """The delivery ``name`` as GitHub Enterprise Server on ``host`` sends it: its addresses
    there (``HOST/api/v3`` for the API)."""
    text = hook(name).read_text().replace("https://api.github.com/", f"https://{host}/api/v3/")
    path = tmp / f"{host}.json"
    path.write_text(text.replace("https://github.com/", f"https://{host}/"))
    return path


def test_material_from_github_is_refused_in_a_clone_of_the_same_owner_and_name_elsewhere(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "hello", origin=SELF_HOSTED)
    with pytest.raises(Refused, match=r"snapshot is for Codertocat/Hello-World on github\.com, this repository's "
                                      r"scope is git\.example\.com/Codertocat/Hello-World \(from origin .*import the "
                                      r"reviews of Codertocat/Hello-World in a clone of github\.com/Codertocat/"
                                      r"Hello-World: the same owner/name on another host is another repository\)\Z"):
        import_reviews(ctx, hook("pull_request_review_comment/created.payload.json"), "github:9")
    assert list(ctx.store.items()) == []
    import_reviews(ctx, _on(tmp_path, "pull_request_review_comment/created.payload.json", "git.example.com"),
                   "github:9")  # its own server's
    assert len(_threads(ctx)) == 1


def test_material_from_a_github_enterprise_server_is_refused_in_a_clone_of_github_com(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "hello", origin=LOWER)
    with pytest.raises(Refused, match=r"is for Codertocat/Hello-World on git\.example\.com, this repository's"):
        import_reviews(ctx, _on(tmp_path, "pull_request_review/submitted.payload.json", "git.example.com"),
                       "github:9")
    assert list(ctx.store.items()) == []


def test_a_snapshot_is_of_the_host_its_items_name_and_of_one_host_only(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "hello", origin=SELF_HOSTED)
    comment = json.loads(hook("pull_request_review_comment/created.payload.json").read_text())["comment"]
    other = {**comment, "id": comment["id"] + 1, "html_url": "https://git.example.com/Codertocat/Hello-World/pull/2",
             "url": "https://git.example.com/api/v3/repos/Codertocat/Hello-World/pulls/comments/1"}
    snapshot = {"format": "gitstore.github-snapshot/1", "repository": "Codertocat/Hello-World", "pullRequest": 2,
                "head": {"ref": "changes", "sha": "ec26c3e57ca3a959ca5aad62de7213c562f8c821"},
                "responses": [{"collection": "pull-comments", "page": 1, "link": "", "body": [comment]},
                              {"collection": "reviews", "page": 1, "link": "", "body": []},
                              {"collection": "issue-comments", "page": 1, "link": "", "body": []}]}
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snapshot))
    with pytest.raises(Refused, match=r"is for Codertocat/Hello-World on github\.com"):
        import_reviews(ctx, path, "github:9")
    snapshot["responses"][0]["body"].append(other)
    path.write_text(json.dumps(snapshot))
    with pytest.raises(Refused, match=r"\Athe material's addresses name 2 hosts \(git\.example\.com, github\.com\)"):
        import_reviews(ctx, path, "github:9")
    assert list(ctx.store.items()) == []
    bare = {k: v for k, v in comment.items() if not k.endswith("url") and k != "_links"}
    snapshot["responses"][0]["body"] = [bare]  # no address at all: its owner/name alone is matched
    path.write_text(json.dumps(snapshot))
    assert import_reviews(ctx, path, "github:9").events == 1


class _Asked:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def get(self, url: str, headers: object) -> object:
        raise AssertionError(f"asked {url}")


@pytest.mark.parametrize(("api", "refused"), [("https://api.github.com", True),
                                              ("https://git.example.com/api/v3", False)])
def test_import_github_asks_only_the_github_of_this_clones_host(tmp_path: Path, api: str, refused: bool) -> None:
    """A clone of git.example.com/Codertocat/Hello-World is refused before github.com is asked
    for the other repository of that owner/name; its own server's API is asked."""
    from gitstore.capture.github import import_github

    ctx = ready_repo(tmp_path / "hello", origin=SELF_HOSTED)
    if refused:
        with pytest.raises(Refused, match=r"--repo names Codertocat/Hello-World on github\.com, this repository's"):
            import_github(ctx, "Codertocat/Hello-World", "github:9", pulls=[2], api=api, http=_Asked())
    else:
        with pytest.raises(AssertionError, match="asked https://git.example.com/api/v3/repos/"):
            import_github(ctx, "Codertocat/Hello-World", "github:9", pulls=[2], api=api, http=_Asked())


def test_deliveries_naming_one_repository_in_two_cases_are_one_repositorys(tmp_path: Path) -> None:
    """GitHub names a repository without regard to case, and a delivery sent after its owner
    respelled it names it in the new case: a folder holding both is one repository's."""
    ctx = ready_repo(tmp_path / "hello", origin=UPPER)
    folder = tmp_path / "deliveries"
    folder.mkdir()
    for name, spelled in (("pull_request_review_comment/created.payload.json", "Codertocat/Hello-World"),
                          ("issue_comment/created.payload.json", "codertocat/hello-world")):
        delivery = json.loads(hook(name).read_text())
        delivery["repository"]["full_name"] = spelled
        (folder / name.replace("/", "-")).write_text(json.dumps(delivery))
    report = import_reviews(ctx, folder, "github:9")
    assert report.record["repository"] == "Codertocat/Hello-World" and report.events == 2
    delivery["repository"]["full_name"] = "octocat/Hello-World"
    (folder / "other.json").write_text(json.dumps(delivery))
    with pytest.raises(Refused, match=r"deliveries name 2 repositories \(Codertocat/Hello-World, octocat/Hello-World\)"):
        import_reviews(ctx, folder, "github:9")


def test_a_comment_in_one_thread_stored_twice_before_is_removed_from_both(tmp_path: Path, hosted: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Two clones spelling the scope apart stored one thread under two ids (before ids were
    keyed by the scope's key): both episodes are that thread, so removing the comment's text
    removes every copy of it, and no copy is left for agents to read."""
    import gitstore.capture.reviews as reviews
    from gitstore.records import ids

    alice, bob = _two_clones(tmp_path)
    material = hook("pull_request_review_comment/created.payload.json")
    with monkeypatch.context() as before:
        before.setattr(reviews, "episode_id", getattr(ids, "spelled_episode_id", ids.episode_id))
        for root, who in ((alice, "github:9"), (bob, "github:10")):
            import_reviews(Context.open(root), material, who)
    for root in (alice, bob, alice):
        assert not sync(str(root)).quarantined
    assert len(_threads(Context.open(bob))) == 2
    comment = f"github:comment:{json.loads(material.read_text())['comment']['id']}"
    report = redact(Context.open(bob), comment, "github:10", "asked to")
    assert len(report.removed) == 2, report
    assert not [e for e in Context.open(bob).view().events.values() if e.get("payload", {}).get("sourceId") == comment]
