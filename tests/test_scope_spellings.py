"""Two spellings of one repository: clones whose origins name the same GitHub repository with
owner/name in another case share one memory (GitHub, GitLab.com and Bitbucket Cloud name
repositories without regard to case), and every clone reaches the same verdict on it; scopes
that differ in case on any other host stay two repositories.

Each clone's origin is a github.com URL, as people clone it; git itself reaches the team's
remote, a bare repository here, through ``url.<bare>.insteadOf`` given in the environment,
which git reads and the library computing the scope does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstore.context import Context
from gitstore.ops.setup import init
from gitstore.queries.learnings import learnings
from gitstore.queries.verify import verify
from gitstore.scope import same_scope, scope_from_url, scope_key
from gitstore.sync.remote import sync

from .conftest import git
from .team import keypair, policy_clone, sign_as
from .world import Thread, accepted, grant_all, propose, ref

UPPER = "https://github.com/Acme/Widgets.git"
LOWER = "https://github.com/acme/widgets.git"


def reached_under(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *urls: str) -> Path:
    """A bare remote, ``remote.git``, which git reaches under each of ``urls`` for this test (the
    library computing the scope reads the origin URL as written)."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    monkeypatch.setenv("GIT_CONFIG_COUNT", str(len(urls)))
    for n, url in enumerate(urls):
        monkeypatch.setenv(f"GIT_CONFIG_KEY_{n}", f"url.{bare}.insteadOf")
        monkeypatch.setenv(f"GIT_CONFIG_VALUE_{n}", url)
    return bare


@pytest.fixture
def hosted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The team's remote, which git reaches under both spellings of its GitHub address."""
    return reached_under(tmp_path, monkeypatch, UPPER, LOWER)


def _clone(tmp: Path, origin: str, name: str, key: Path) -> Context:
    root = tmp / name
    git(tmp, "clone", "-q", origin, str(root))
    init(root)
    sign_as(root, key)
    return Context.open(root)


def _verdicts(root: Path) -> dict[str, tuple[str, bool]]:
    return {row.status.id: (row.status.state, row.status.usable) for row in learnings(Context.open(root))}


def test_clones_whose_origins_differ_only_in_case_share_memory_and_agree(tmp_path: Path, hosted: Path) -> None:
    keys = {who: keypair(tmp_path / "keys", who) for who in ("github:9", "github:10")}
    alice = policy_clone(tmp_path, UPPER, keys)
    bob = _clone(tmp_path, LOWER, "bob", keys["github:10"][0])
    assert (alice.scope, bob.scope) == ("github.com/Acme/Widgets", "github.com/acme/widgets")
    grant_all(alice)
    thread = Thread(alice, 7, "100")
    jitter = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    proposal = propose(alice, [ref(jitter)])
    first = sync(str(alice.workspace.root))
    assert not first.quarantined, first.quarantined
    report = sync(str(bob.workspace.root))
    assert not report.quarantined and not report.not_pushed, (report.quarantined, report.not_pushed)
    bob = Context.open(bob.workspace.root)
    assert [v[0] for v in _verdicts(bob.workspace.root).values()] == ["proposed"], "bob reads alice's memory"
    accepted(bob, proposal, by="github:10")  # a decision stored under bob's spelling of the scope
    report = sync(str(bob.workspace.root))
    assert not report.quarantined and not report.not_pushed, (report.quarantined, report.not_pushed)
    report = sync(str(alice.workspace.root))
    assert not report.quarantined, report.quarantined
    ours, theirs = _verdicts(alice.workspace.root), _verdicts(bob.workspace.root)
    assert ours == theirs and list(ours.values()) == [("accepted", True)], (ours, theirs)
    for root in (alice.workspace.root, bob.workspace.root):
        assert not verify(Context.open(root).store).problems, root


@pytest.mark.parametrize(("one", "other"), [
    ("https://github.com/Acme/Widgets", "git@github.com:acme/widgets.git"),
    ("ssh://git@ssh.github.com:443/acme/widgets.git", "https://www.github.com/ACME/widgets/"),
    ("https://gitlab.com/Group/Sub/Proj.git", "git@altssh.gitlab.com:group/sub/proj"),
    ("https://bitbucket.org/Acme/Widgets", "git@bitbucket.org:acme/widgets.git"),
    ("https://octo.ghe.com/Acme/Widgets", "https://octo.ghe.com/acme/widgets"),
    ("https://dev.azure.com/Acme/Tools/_git/Widgets", "git@ssh.dev.azure.com:v3/acme/tools/widgets"),
    ("https://acme.visualstudio.com/DefaultCollection/Tools/_git/Widgets",
     "https://dev.azure.com/acme/tools/_git/widgets"),
    ("https://dev.azure.com/acme/_git/widgets", "acme@vs-ssh.visualstudio.com:v3/acme/widgets/widgets"),
    ("https://github.com/acme/wid%67ets", "https://github.com/acme/widgets"),  # an escaped letter
    ("https://git.example.com./acme/widgets.git", "git@git.example.com:acme/widgets"),  # a rooted host name
])
def test_spellings_of_one_hosted_repository_are_one_scope(one: str, other: str) -> None:
    assert same_scope(scope_from_url(one), scope_from_url(other))


@pytest.mark.parametrize(("one", "other"), [
    ("https://git.example.com/Acme/Widgets", "https://git.example.com/acme/widgets"),  # a server's folders
    ("https://github.com/acme/widgets", "https://gitlab.com/acme/widgets"),
    ("https://github.com/acme/widgets", "https://github.example.com/acme/widgets"),
    ("https://octo.ghe.com/acme/widgets", "https://other.ghe.com/acme/widgets"),
    ("https://dev.azure.com/acme/tools/_git/widgets", "https://dev.azure.com/acme/other/_git/widgets"),
    ("https://acme.visualstudio.com/tools/_git/widgets", "https://umbrella.visualstudio.com/tools/_git/widgets"),
    ("https://github.com/acme/key", "https://github.com/acme/\u212aey"),  # only ASCII letters fold
])
def test_other_repositories_stay_other_scopes(one: str, other: str) -> None:
    ours = scope_from_url(one)
    theirs = other.split("://", 1)[1] if "\u212a" in other else scope_from_url(other)
    assert not same_scope(ours, theirs)
    assert scope_key(ours) != scope_key(theirs)


def test_a_clone_that_quarantined_the_other_spelling_before_admits_it_at_its_next_sync(
        tmp_path: Path, hosted: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A clone that synced while scopes were compared letter for letter holds the other
    spelling's refs refused; the verdicts it remembers were reached under other checks, so its
    next sync reaches them again, and admits what it refused."""
    import gitstore.scope

    keys = {who: keypair(tmp_path / "keys", who) for who in ("github:9", "github:10")}
    alice = policy_clone(tmp_path, UPPER, keys)
    grant_all(alice)
    thread = Thread(alice, 7, "100")
    thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    assert not sync(str(alice.workspace.root)).quarantined
    bob = _clone(tmp_path, LOWER, "bob", keys["github:10"][0])
    with monkeypatch.context() as before:
        before.setattr(gitstore.scope, "scope_key", lambda scope: scope)
        before.setattr("gitstore.providers._admit.CHECKS_VERSION", "2")
        before.setattr("gitstore.sync.remote.CHECKS_VERSION", "2")
        assert sync(str(bob.workspace.root)).quarantined, "letter for letter, alice's records are another scope's"
    report = sync(str(bob.workspace.root))
    assert not report.quarantined, report.quarantined
    events = [item.record for item in Context.open(bob.workspace.root).store.items(["event"], payloads=True)]
    assert [e["payload"]["text"] for e in events] == ["Use jitter on retries."]


def test_origin_respelled_in_another_case_keeps_the_clones_memory_and_writer(tmp_path: Path, hosted: Path) -> None:
    """`git remote set-url origin` to the other spelling moves nothing: what the clone stored is
    read, init keeps its writer id, doctor warns of no changed scope, and sync pushes."""
    import json

    from . import cli

    keys = {who: keypair(tmp_path / "keys", who) for who in ("github:9",)}
    alice = policy_clone(tmp_path, UPPER, keys)
    root = alice.workspace.root
    grant_all(alice)
    writer = alice.workspace.config.writer
    git(root, "remote", "set-url", "origin", LOWER)
    assert len(list(Context.open(root).store.items(["grant"]))) == 1, "what it stored is read"
    done = json.loads(cli.ok("init", "--json", cwd=root))
    assert done["writer"] == writer and not any("from now on" in line for line in done["created"]), done
    doctor = cli.gitstore("doctor", cwd=root)
    assert "warn scope" not in doctor.stdout and "FAIL push" not in doctor.stdout, doctor.stdout
    synced = cli.gitstore("sync", cwd=root)
    assert synced.returncode == 0, synced.stdout + synced.stderr


def test_a_remote_naming_the_team_in_another_case_is_the_teams_not_a_fork(tmp_path: Path, hosted: Path) -> None:
    """init gives it memory's fetch refspecs, and sync fetches from it and pushes to it."""
    from . import cli

    keys = {who: keypair(tmp_path / "keys", who) for who in ("github:9",)}
    alice = policy_clone(tmp_path, UPPER, keys)
    root = alice.workspace.root
    grant_all(alice)
    git(root, "remote", "add", "team", LOWER)
    cli.ok("init", cwd=root)
    assert "refs/memory/" in git(root, "config", "--get-all", "remote.team.fetch"), "memory's refspecs"
    synced = cli.gitstore("sync", "team", cwd=root)
    assert synced.returncode == 0, synced.stdout + synced.stderr
    assert git(hosted, "for-each-ref", "refs/memory/").strip(), "pushed to it"


def test_evidence_pinned_to_the_other_spelling_is_this_repositorys_for_promotion() -> None:
    from gitstore.promote.verify import Stopped, check_audience
    from gitstore.rules.view import View

    learning = {"id": "lrn_x", "audience": "project", "scope": "github.com/acme/widgets",
                "content": {"text": "Every retry loop uses jitter."},
                "evidence": [{"episode": "ep_1", "events": [], "pin": {"repository": "github.com/Acme/Widgets"}}]}
    check_audience(View.of("github.com/acme/widgets", []), learning, "Retries use jitter")
    learning["evidence"][0]["pin"]["repository"] = "gitlab.com/acme/widgets"
    with pytest.raises(Stopped, match="evidence pinned to another repository"):
        check_audience(View.of("github.com/acme/widgets", []), learning, "Retries use jitter")


def test_the_same_path_in_another_users_home_folder_is_another_repository(tmp_path: Path) -> None:
    """On a plain ssh server, ``bob@host:acme/widgets`` is a folder in bob's home, a repository
    apart from the team's ``git@host:acme/widgets`` though the scope leaves the user out: init
    gives it no memory refspecs and sync refuses it before fetching. On a forge every user is
    git and the path names the repository: there the two stand for one."""
    from . import cli

    work = tmp_path / "work"
    git(tmp_path, "init", "-q", "-b", "main", str(work))
    git(work, "commit", "-q", "--allow-empty", "-m", "root")
    git(work, "remote", "add", "origin", "git@server.example:acme/widgets.git")
    git(work, "remote", "add", "bob", "bob@server.example:acme/widgets.git")
    git(work, "remote", "add", "team", "git@server.example:acme/widgets")
    cli.ok("init", cwd=work)
    assert "refs/memory/" not in git(work, "config", "--get-all", "remote.bob.fetch")
    assert "refs/memory/" in git(work, "config", "--get-all", "remote.team.fetch")
    said = cli.fails(1, "sync", "bob", cwd=work)
    assert ("bob stands for server.example/acme/widgets in the home folder of bob, another repository than this "
            "clone's server.example/acme/widgets") in said, said
    git(work, "remote", "set-url", "origin", "git@github.com:acme/widgets.git")
    git(work, "remote", "set-url", "bob", "bob@github.com:Acme/Widgets.git")
    cli.ok("init", cwd=work)
    assert "refs/memory/" in git(work, "config", "--get-all", "remote.bob.fetch"), "GitHub: one repository"
