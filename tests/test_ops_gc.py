"""``gitstore gc`` erases exactly what memory removed: the user's stashes, reflogs, reset-away
commits and young dangling objects all survive it, in a real repository, while removed text
leaves every object (loose, and packed by the user's own ``git gc`` beforehand)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gitstore.cli import main
from gitstore.conformance import _records as R
from gitstore.conformance import batch, entries_for
from gitstore.providers.git import GitProvider, payload_path, payloads_ref

from .conftest import all_objects, git
from .world import T0, Thread, grant_all, ready_repo

SECRET = "the-words-memory-was-asked-to-forget"


def _commit(repo: Path, name: str, text: str) -> str:
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", f"add {name}")
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def lived_in(tmp_path: Path) -> dict[str, str]:
    """A repository with a user's recovery data and memory holding a comment to remove."""
    ctx = ready_repo(tmp_path / "repo")
    repo = ctx.workspace.root
    git(repo, "config", "core.logAllRefUpdates", "always")  # memory's refs get reflogs too
    kept = _commit(repo, "kept.txt", "kept\n")
    reset_away = _commit(repo, "gone.txt", "a commit the user reset away\n")
    git(repo, "reset", "-q", "--hard", kept)
    (repo / "kept.txt").write_text("first stash\n")
    git(repo, "stash", "-q")
    (repo / "kept.txt").write_text("second stash\n")
    git(repo, "stash", "-q")
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    thread.comment("100", f"Please {SECRET} in the retry loop.", T0)
    thread.comment("101", "Unrelated words stay.", T0)
    thread.save()
    git(repo, "gc", "-q")  # the user's own gc packs memory's objects with theirs
    dangling_blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, input=b"young dangling blob\n",
                                   capture_output=True, check=True).stdout.decode().strip()
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    dangling_commit = subprocess.run(["git", "commit-tree", tree, "-m", "young dangling commit"], cwd=repo,
                                     capture_output=True, text=True, check=True).stdout.strip()
    return {"repo": str(repo), "reset_away": reset_away, "blob": dangling_blob, "commit": dangling_commit,
            "stashes": git(repo, "stash", "list"), "reflog": git(repo, "reflog", "show", "main")}


def test_gc_keeps_stashes_reflogs_reset_away_commits_and_dangling_objects(lived_in: dict[str, str],
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    repo = Path(lived_in["repo"])
    monkeypatch.chdir(repo)
    assert main(["redact", "--comment", "github:comment:100", "--reason", "asked", "--by", "github:9"]) == 0
    assert main(["gc"]) == 0
    assert git(repo, "stash", "list") == lived_in["stashes"] and len(lived_in["stashes"].splitlines()) == 2
    assert git(repo, "reflog", "show", "main") == lived_in["reflog"]
    for oid in (lived_in["reset_away"], lived_in["blob"], lived_in["commit"]):
        git(repo, "cat-file", "-e", oid)  # raises if gone
    git(repo, "stash", "apply", "-q", "stash@{1}")  # the older stash still applies
    assert (repo / "kept.txt").read_text() == "first stash\n"
    objects = all_objects(repo)
    assert SECRET[:8].encode() not in objects and b"Unrelated words stay." in objects
    memory_logs = [p for p in (repo / ".git" / "logs" / "refs" / "memory").rglob("*") if p.is_file()]
    assert memory_logs and not any(p.read_text() for p in memory_logs)  # memory's own reflogs only
    fsck = subprocess.run(["git", "fsck", "--strict"], cwd=repo, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    assert main(["verify"]) == 0


def test_gc_erases_payloads_no_record_names_and_is_a_no_op_after(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "repo")
    repo = ctx.workspace.root
    provider = GitProvider(repo, ctx.workspace.config.writer)
    kept = R.event("kept", text="kept payload text")
    provider.append(batch(kept))
    # what an append killed between moving its payload snapshot and its records commit leaves
    orphan = R.event("orphan", text="text of an append that was killed")
    _plant_orphan_payload(provider, orphan)
    assert provider.payload(orphan["payloadDigest"]) is not None
    report = provider.gc()
    assert report.payloads == 1 and report.objects >= 1
    assert b"killed" not in all_objects(repo) and b"kept payload text" in all_objects(repo)
    assert provider.payload(kept["payloadDigest"]) is not None and provider.verify().ok
    again = provider.gc()
    assert again.payloads == 0 and again.objects == 0


def _plant_orphan_payload(provider: GitProvider, record: dict[str, Any]) -> None:
    """Add a payload to the live snapshot with plain git, as a killed append leaves it."""
    entry = entries_for([record])[0]
    repo = Path(provider.repo.workdir)
    ref = payloads_ref("shared", provider.writer)
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, input=entry.payload,
                          capture_output=True, check=True).stdout.decode().strip()
    git(repo, "read-tree", "--index-output=.git/snapshot-index", ref)
    env = {**os.environ, "GIT_INDEX_FILE": ".git/snapshot-index"}
    subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},{payload_path(record['payloadDigest'])}"],
                   cwd=repo, env=env, check=True)
    tree = subprocess.run(["git", "write-tree"], cwd=repo, env=env, capture_output=True, text=True,
                          check=True).stdout.strip()
    commit = subprocess.run(["git", "commit-tree", tree, "-m", "gitstore: payloads"], cwd=repo, capture_output=True,
                            text=True, check=True, env={**os.environ, "GIT_AUTHOR_NAME": "gitstore",
                                                        "GIT_AUTHOR_EMAIL": "gitstore@localhost",
                                                        "GIT_COMMITTER_NAME": "gitstore",
                                                        "GIT_COMMITTER_EMAIL": "gitstore@localhost"}).stdout.strip()
    git(repo, "update-ref", ref, commit)
    (repo / ".git" / "snapshot-index").unlink()


@pytest.mark.parametrize("bitmap", [False, True], ids=["index", "index-and-bitmap"])
def test_gc_writes_a_multi_pack_index_and_commit_graph_that_name_only_what_stays(
        lived_in: dict[str, str], monkeypatch: pytest.MonkeyPatch, bitmap: bool) -> None:
    """Where the user keeps a multi-pack index (with a bitmap or not) and a commit graph, gc
    writes them again without the pack it rewrote and the commits it erased: git checks them
    whole after."""
    repo = Path(lived_in["repo"])
    git(repo, "multi-pack-index", "write", *(["--bitmap"] if bitmap else []))
    git(repo, "commit-graph", "write", "--reachable")
    monkeypatch.chdir(repo)
    assert main(["redact", "--comment", "github:comment:100", "--reason", "asked", "--by", "github:9"]) == 0
    assert main(["gc"]) == 0
    assert SECRET[:8].encode() not in all_objects(repo)
    pack = repo / ".git" / "objects" / "pack"
    assert (pack / "multi-pack-index").exists() and any(pack.glob("multi-pack-index-*.bitmap")) == bitmap
    for argv in (["multi-pack-index", "verify"], ["commit-graph", "verify"], ["fsck", "--strict"]):
        checked = subprocess.run(["git", *argv], cwd=repo, capture_output=True, text=True)
        assert checked.returncode == 0 and not checked.stderr.strip(), (argv, checked.stderr)
    assert main(["verify"]) == 0


# a gc run in a process of its own, SIGKILLed as a machine that dies would be, before or after
# the first call of one of its steps
_KILLED_GC = """
import os, signal, sys
from gitstore.providers import _gc_git
holder = _gc_git.Collector if sys.argv[1] == "Collector" else _gc_git
real = getattr(holder, sys.argv[2])
def killed(*args, **kwargs):
    if sys.argv[3] == "before":
        os.kill(os.getpid(), signal.SIGKILL)
    out = real(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)
    return out
setattr(holder, sys.argv[2], killed)
from gitstore.cli import main
sys.exit(main(["gc"]))
"""


@pytest.mark.parametrize("step", [("Collector", "_rewrite_pack", "after"), ("module", "_unindex", "after"),
                                  ("module", "_remove_packs", "before"), ("module", "_remove_packs", "after")],
                         ids=lambda step: f"{step[2]}-{step[1]}")
def test_a_gc_killed_at_any_step_leaves_no_index_naming_a_pack_gone(
        lived_in: dict[str, str], monkeypatch: pytest.MonkeyPatch, step: tuple[str, str, str]) -> None:
    """A gc killed once it rewrote a pack left the multi-pack index naming the old pack it had
    deleted (``git fsck`` failed) until the next gc: the index is written without the old packs
    before they go. The next gc finishes what the killed one began."""
    import sys

    repo = Path(lived_in["repo"])
    git(repo, "multi-pack-index", "write", "--bitmap")
    git(repo, "commit-graph", "write", "--reachable")
    monkeypatch.chdir(repo)
    assert main(["redact", "--comment", "github:comment:100", "--reason", "asked", "--by", "github:9"]) == 0
    killed = subprocess.run([sys.executable, "-c", _KILLED_GC, *step], cwd=repo, capture_output=True, text=True)
    assert killed.returncode == -9, killed.stderr
    if step[1] != "_remove_packs" or step[2] == "before":
        assert (repo / ".git" / "gitstore" / "gc-dropping").exists()  # the old packs it was removing, journaled
    for argv in (["fsck", "--connectivity-only"], ["multi-pack-index", "verify"], ["commit-graph", "verify"]):
        checked = subprocess.run(["git", *argv], cwd=repo, capture_output=True, text=True)
        assert checked.returncode == 0 and not checked.stderr.strip(), (argv, checked.stderr)
    assert main(["gc"]) == 0
    assert SECRET[:8].encode() not in all_objects(repo)
    pack = repo / ".git" / "objects" / "pack"
    assert (pack / "multi-pack-index").exists() and any(pack.glob("multi-pack-index-*.bitmap"))
    assert not (repo / ".git" / "gitstore" / "gc-dropping").exists()
    for argv in (["multi-pack-index", "verify"], ["commit-graph", "verify"], ["fsck", "--strict"]):
        checked = subprocess.run(["git", *argv], cwd=repo, capture_output=True, text=True)
        assert checked.returncode == 0 and not checked.stderr.strip(), (argv, checked.stderr)
    assert main(["verify"]) == 0


def test_a_dropped_stash_holding_the_bytes_of_redacted_text_keeps_all_but_them(tmp_path: Path) -> None:
    """A user saved a payload's bytes in a file, stashed it with other work and dropped the
    stash; the comment is redacted. gc erases those bytes wherever nothing reaches them, but
    the stash's commits and trees are the user's: they stay (git reads no object of one)."""
    from gitstore.context import Context
    from gitstore.ops.redact import redact

    from . import cli
    from .team import two_reviewers

    alice, _ = two_reviewers(tmp_path)
    root = alice.workspace.root
    thread = Thread(alice, 7, "100")
    thread.comment("100", "keep retries bounded", "2026-03-01T10:00:00.000000Z")
    thread.save()
    snapshot = f"refs/memory/v1/payloads/shared/{alice.workspace.config.writer}"
    path = next(p for p in git(root, "ls-tree", "-r", "--name-only", snapshot).split()
                if "keep retries bounded" in git(root, "show", f"{snapshot}:{p}"))
    (root / "saved.json").write_bytes(subprocess.run(["git", "show", f"{snapshot}:{path}"], cwd=root,
                                                     capture_output=True, check=True).stdout)
    (root / "README.md").write_text("work in progress\n")
    git(root, "add", "saved.json", "README.md")
    git(root, "stash", "push", "-q", "-m", "wip")
    stash = git(root, "rev-parse", "stash@{0}").strip()
    git(root, "stash", "drop", "-q")
    redact(Context.open(root), "github:comment:100", "github:9", "asked")
    assert cli.gitstore("gc", cwd=root).returncode == 0
    assert b"keep retries bounded" not in all_objects(root)
    for kept in (stash, f"{stash}^{{tree}}", f"{stash}^2"):
        assert subprocess.run(["git", "cat-file", "-e", kept], cwd=root).returncode == 0, kept
    assert git(root, "show", f"{stash}:README.md") == "work in progress\n"


def test_gc_keeps_a_users_commit_signed_and_worded_as_gitstore_s_that_holds_no_memory(tmp_path: Path) -> None:
    """gc found memory's unreachable commits by their author, committer and message alone: a
    user's commit made with gitstore's identity (``git -c user.email=gitstore@localhost``, a
    copied script) and a ``gitstore: `` subject, reset away, was erased with its files. A commit
    counts as memory's only when its tree is laid out as memory lays its trees out (record kind
    folders, or a payload snapshot's)."""
    ctx = ready_repo(tmp_path / "repo")
    repo = ctx.workspace.root
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    thread.comment("100", f"Please {SECRET} in the retry loop.", T0)
    thread.save()
    (repo / "notes.txt").write_text("the user's own notes\n")
    git(repo, "add", "notes.txt")
    lookalike = {**os.environ, "GIT_AUTHOR_NAME": "gitstore", "GIT_AUTHOR_EMAIL": "gitstore@localhost",
                 "GIT_COMMITTER_NAME": "gitstore", "GIT_COMMITTER_EMAIL": "gitstore@localhost"}
    tree = git(repo, "write-tree").strip()
    commit = subprocess.run(["git", "commit-tree", tree, "-p", "HEAD", "-m", "gitstore: my notes"], cwd=repo,
                            env=lookalike, capture_output=True, text=True, check=True).stdout.strip()
    git(repo, "reset", "-q")  # nothing reaches it: a dangling commit, as a reset and an expired reflog leave
    later = Thread(ctx, 8, "200")
    later.comment("200", "Another comment.", T0)
    later.save()  # memory lets its first payload snapshot go
    report = GitProvider(repo, ctx.workspace.config.writer).gc()
    assert report.objects >= 1  # memory's old snapshots and commits went
    for oid in (commit, tree, f"{tree}:notes.txt"):
        git(repo, "cat-file", "-e", oid)  # raises if gone
    assert b"the user's own notes" in all_objects(repo)


def test_a_verify_while_a_removal_and_gc_run_checks_the_snapshot_they_left(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """verify listed a payload snapshot, then a redaction wrote it anew and gc erased the one
    listed before verify read it: verify named the snapshot's commit missing, and failed as
    for damage, while nothing was damaged. The removal and gc run in the window."""
    from gitstore.context import Context
    from gitstore.ops.redact import redact
    from gitstore.providers import _verify_git

    ctx = ready_repo(tmp_path / "repo")
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    thread.comment("100", f"Please {SECRET} in the retry loop.", T0)
    thread.comment("101", "Unrelated words stay.", T0)
    thread.save()
    root = ctx.workspace.root
    check, beside = _verify_git._verify_payloads, []

    def removed_meanwhile(*args: Any) -> None:
        if not beside:
            beside.append(redact(Context.open(root), "github:comment:100", "github:9", "asked"))
            beside.append(Context.open(root).store.provider.gc())
        check(*args)

    monkeypatch.setattr(_verify_git, "_verify_payloads", removed_meanwhile)
    report = Context.open(root).store.verify()
    assert beside[1].objects > 0, "gc erased the snapshot verify listed"
    assert report.problems == [], [str(p) for p in report.problems]
