"""A redaction made on another clone, arriving through ``gitstore sync``, removes the comment's
text from the GitHub snapshots ``import github`` saved on this clone too (the inbox and every
folder ``--out`` named), as ``gitstore redact`` does where it runs. Two real clones of a real
bare remote, under a policy letting both people redact; the snapshots come from a local
stand-in for GitHub's REST API."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gitstore.capture.github import import_github
from gitstore.context import Context
from gitstore.ops.redact import redact
from gitstore.queries.doctor import doctor
from gitstore.sync import steps
from gitstore.sync.remote import sync

from . import cli
from .advice import below, commands, follow
from .conftest import copy_world, git, pin_identity, shared
from .github_server import REPO, FakeGitHub, recorded, serve
from .team import EVERYTHING, commit_all, first_clone, keypair, shared_remote, sign_as, team_clone, write_policy

ALICE, BOB = "github:9", "github:10"
REPLY, TEXT = "github:comment:284312999", b"Agreed, more emoji."
INBOX = "okf/.memory/inbox/github/Codertocat--Hello-World--pr-2.json"


@pytest.fixture(scope="module")
def clones_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the clones below, made once (each test takes a copy)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        pin_identity(monkeypatch, tmp_path_factory.mktemp("home"))
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        monkeypatch.delenv("GH_TOKEN", raising=False)
        tmp_path = tmp_path_factory.mktemp("clones")
        _clones(tmp_path)
        return tmp_path


@pytest.fixture
def clones(clones_once: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Context, Context]:
    """Alice's clone and bob's, of a remote whose repository is Codertocat/Hello-World, under a
    policy letting both do everything; each imported pull request 2 into its inbox, and both
    synced once, so each holds the other's memory. A copy, in this test's folder, of the world
    made once."""
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    copy_world(clones_once, tmp_path)
    return Context.open(tmp_path / "alice"), Context.open(tmp_path / "bob")


def _clones(tmp_path: Path) -> tuple[Context, Context]:
    keys = {who: keypair(tmp_path / "keys", who) for who in (ALICE, BOB)}
    bare = shared_remote(tmp_path)
    git(bare, "remote", "set-url", "origin", f"https://github.com/{REPO}.git")
    root = first_clone(tmp_path, bare)
    write_policy(root, {ALICE: EVERYTHING, BOB: EVERYTHING}, {who: key for who, (_, key) in keys.items()})
    commit_all(root, "Who may decide")
    git(root, "push", "-q", "origin", "main")
    sign_as(root, keys[ALICE][0])
    alice, bob = Context.open(root), team_clone(tmp_path, bare, "bob", keys[BOB][0])
    with serve(FakeGitHub(recorded(shared("reviews", "octokit-webhooks")))) as github:
        for ctx, who in ((alice, ALICE), (bob, BOB)):
            import_github(ctx, REPO, who, pulls=[2], api=github.url)
    for ctx in (alice, bob, alice):
        assert sync(str(ctx.workspace.root)).status in ("ok", "no-update")
    return alice, bob


def out_folder(ctx: Context, folder: Path) -> None:
    """Pull request 2 imported again, saved in ``folder`` (``--out``)."""
    with serve(FakeGitHub(recorded(shared("reviews", "octokit-webhooks")))) as github:
        import_github(Context.open(ctx.workspace.root), REPO, BOB, pulls=[2], api=github.url, out=folder)


def redacted_on_alice(alice: Context) -> None:
    """Alice redacts the reply on her clone and syncs: her redaction is on the remote."""
    report = redact(Context.open(alice.workspace.root), REPLY, ALICE, "it held a token")
    assert report.removed and report.scrubbed == [INBOX]
    assert sync(str(alice.workspace.root)).status == "ok"


def holds_text(path: Path) -> bool:
    return TEXT in path.read_bytes()


def test_a_redaction_that_arrives_by_sync_scrubs_this_clones_snapshots(clones: tuple, tmp_path: Path) -> None:
    alice, bob = clones
    out = tmp_path / "snapshots"
    out_folder(bob, out)
    saved = [bob.workspace.root / INBOX, out / Path(INBOX).name]
    assert all(holds_text(p) for p in saved)
    redacted_on_alice(alice)

    got = sync(str(bob.workspace.root))
    assert got.status == "ok", got.line
    assert not any(holds_text(p) for p in saved), "the redacted text left both of bob's snapshots"
    assert got.snapshots.scrubbed == [INBOX, str(saved[1])] and got.snapshots.failed == []
    assert got.render()[1:3] == [f"removed redacted text from the saved GitHub snapshot {INBOX}",
                                 f"removed redacted text from the saved GitHub snapshot {saved[1]}"]
    assert "2 saved GitHub snapshot(s) scrubbed" in got.line
    data = json.loads(saved[0].read_text())
    reply = next(c for r in data["responses"] if r["collection"] == "pull-comments" for c in r["body"]
                 if c["id"] == 284312999)
    assert reply["body"] == "" and reply["updated_at"] == "2019-05-16T09:00:00Z", "ids and times are kept"
    assert any(c.get("body") for r in data["responses"] for c in r["body"]), "other comments keep their text"
    event = next(e for e in Context.open(bob.workspace.root).view().events.values()
                 if e.get("redaction", {}).get("sourceId") == REPLY)
    assert event["redaction"]["by"] == ALICE, "bob's memory holds alice's redaction"

    again = sync(str(bob.workspace.root))
    assert again.status == "no-update" and again.snapshots.scrubbed == [], again.line


def test_the_command_names_each_file_and_json_lists_them(clones: tuple) -> None:
    alice, bob = clones
    redacted_on_alice(alice)
    done = cli.gitstore("sync", "--json", cwd=bob.workspace.root)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["snapshotsScrubbed"] == [INBOX] and data["snapshotsNotScrubbed"] == []
    assert data["snapshotFoldersGone"] == []
    assert not holds_text(bob.workspace.root / INBOX)
    text = cli.gitstore("sync", cwd=bob.workspace.root)
    assert text.returncode == 0 and "scrubbed" not in text.stdout, "nothing new: nothing scrubbed, nothing said"


def test_the_loops_sync_step_scrubs_too(clones: tuple) -> None:
    alice, bob = clones
    redacted_on_alice(alice)
    outcome = steps.sync(steps.Call(bob.workspace.root, {"remote": "origin"}))
    assert outcome.status == steps.OK, outcome.line
    assert outcome.detail["snapshotsScrubbed"] == [INBOX] and "1 saved GitHub snapshot(s) scrubbed" in outcome.line
    assert not holds_text(bob.workspace.root / INBOX)


def test_a_snapshot_that_cannot_be_written_is_one_line_and_the_next_sync_scrubs_it(clones: tuple) -> None:
    alice, bob = clones
    redacted_on_alice(alice)
    saved = bob.workspace.root / INBOX
    blocker = saved.with_name("." + saved.name + ".tmp")
    blocker.mkdir()  # where the rewrite goes first: a folder there makes it fail

    done = cli.gitstore("sync", cwd=bob.workspace.root)
    assert done.returncode == 0 and done.stderr == "", "the memory synced: the command does not fail"
    failed = [line for line in done.stdout.splitlines() if "could not remove redacted text" in line]
    assert len(failed) == 1 and failed[0].startswith(f"could not remove redacted text from {INBOX}: "), done.stdout
    assert "Traceback" not in done.stdout
    assert holds_text(saved)
    assert any(e.get("redaction", {}).get("sourceId") == REPLY
               for e in Context.open(bob.workspace.root).view().events.values()), "the redaction was admitted"
    held = sync(str(bob.workspace.root))
    assert held.status == "degraded" and len(held.snapshots.failed) == 1, "nothing new arrived, and it is tried again"

    blocker.rmdir()
    later = sync(str(bob.workspace.root))
    assert later.snapshots.scrubbed == [INBOX] and later.snapshots.failed == [] and later.status == "ok", later.line
    assert not holds_text(saved)


def test_a_sync_that_cannot_reach_the_remote_still_applies_what_earlier_syncs_admitted(clones: tuple) -> None:
    """A redaction admitted by a sync whose scrub failed is applied by the next sync even when
    that one cannot fetch (offline, the remote gone): the text leaves the saved snapshot, and
    the sync still fails, in one line, for its fetch."""
    alice, bob = clones
    redacted_on_alice(alice)
    root = bob.workspace.root
    saved = root / INBOX
    blocker = saved.with_name("." + saved.name + ".tmp")
    blocker.mkdir()
    assert sync(str(root)).status == "degraded" and holds_text(saved)
    blocker.rmdir()
    git(root, "remote", "add", "offline", str(root.parent / "unplugged-drive" / "widgets.git"))
    done = cli.gitstore("sync", "offline", cwd=root)  # a path with no repository: a drive not plugged in
    assert done.returncode == 1 and done.stderr.startswith("gitstore: error: offline ") and \
        "nothing to fetch from or push to" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1
    assert not holds_text(saved)


def test_doctor_names_a_redaction_not_yet_applied_to_the_snapshots(clones: tuple) -> None:
    alice, bob = clones
    root = bob.workspace.root
    assert _snapshot_check(root)[0] == "ok"
    redacted_on_alice(alice)
    assert _snapshot_check(alice.workspace.root)[0] == "ok", "redact applied it where it ran"
    git(root, "fetch", "-q", "origin")  # plain git fetch brings memory too, and scrubs nothing
    state, detail, todo = _snapshot_check(root)
    assert state == "warn" and "1 saved snapshot(s) still hold the text of 1 comment(s)" in detail, detail
    assert REPLY in detail and INBOX in detail
    assert commands(todo) == ["gitstore sync", "gitstore redact --comment ID --reason REASON"], todo
    follow(root, "gitstore sync")
    assert _snapshot_check(root)[0] == "ok"
    assert not holds_text(root / INBOX)


def test_a_list_of_applied_redactions_a_commit_brought_applies_none(clones: tuple) -> None:
    """Which redactions the saved snapshots reflect is noted in okf/.memory/, the clone's own: a
    list there that git has came with a commit, and would keep a redaction's text in them."""
    alice, bob = clones
    root = bob.workspace.root
    redacted_on_alice(alice)
    git(root, "fetch", "-q", "origin")
    noted = sorted(Context.open(root).store.provider.noted())  # type: ignore[attr-defined]
    listed = root / "okf" / ".memory" / "github-snapshots-scrubbed.json"
    listed.write_text(json.dumps(noted, indent=0) + "\n")
    assert _snapshot_check(root)[0] == "ok" and holds_text(root / INBOX)  # taken as applied: left as it is
    git(root, "add", "-f", "okf/.memory/github-snapshots-scrubbed.json")
    assert _snapshot_check(root)[0] == "warn"
    follow(root, "gitstore sync")
    assert not holds_text(root / INBOX) and _snapshot_check(root)[0] == "ok"


def _snapshot_check(root: Path) -> tuple[str, str, str]:
    [check] = [c for c in doctor(below(root)).checks if c.name == "github snapshots"]
    return check.state, check.detail, check.todo


def objects_hold(root: Path, text: bytes) -> bool:
    """Whether any object of the repository at ``root`` holds ``text``."""
    out = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=root, capture_output=True,
                         check=True).stdout
    return text in out


def test_gc_erases_redacted_text_git_maintenance_s_prefetch_kept(clones: tuple) -> None:
    """``git maintenance run --task=prefetch`` (hourly under ``git maintenance start``, and under
    Scalar) copies memory's refspecs into ``refs/prefetch/memory/...``: a cache git makes again,
    which must not keep the snapshots a redaction let go reachable."""
    alice, bob = clones
    root = bob.workspace.root
    git(root, "maintenance", "run", "--task=prefetch")
    assert git(root, "for-each-ref", "refs/prefetch/memory/").strip(), "prefetch copied memory's refs"
    redacted_on_alice(alice)
    cli.gitstore("gc", cwd=alice.workspace.root)
    assert sync(str(root)).status == "ok"
    warned = [c for c in doctor(root).checks if "refs/prefetch/memory/" in c.detail]
    assert warned and "gitstore gc" in warned[0].todo, doctor(root).checks
    done = cli.gitstore("gc", cwd=root)
    assert done.returncode == 0, done.stderr
    assert not objects_hold(root, TEXT), "the redacted text is gone from bob's objects"
    assert not [c for c in doctor(root).checks if "refs/prefetch/memory/" in c.detail]
