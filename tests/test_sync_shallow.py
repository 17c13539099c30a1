"""Memory in a shallow repository (``git clone --depth``, ``git fetch --depth``): ``gitstore
init`` adds memory's refspecs to origin, so a fetch with ``--depth`` cuts memory's histories
short too, and git reads the commit it cut at as the first of its history.

A history cut short is never read as whole: a fetched writer's is left out, saying so in one
line, and this clone's own refuse every read and append; the refusal is never remembered;
``gitstore sync`` fetches memory whole and leaves the code's history shallow; doctor warns.
Real clones of a real bare remote over ``file://`` (git makes no shallow clone of a path)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitstore.context import Context
from gitstore.errors import IntegrityError
from gitstore.ops import learning as ops
from gitstore.ops.setup import init
from gitstore.queries.doctor import WARN, doctor
from gitstore.queries.verify import verify
from gitstore.sync.remote import sync

from . import cli
from .conftest import copy_world, git, pin_identity
from .team import two_reviewers
from .world import Thread, accepted, grant_all, propose, ref


def comments(ctx: Context, thread: int, count: int) -> None:
    """``count`` appends of one comment each."""
    for n in range(count):
        t = Thread(ctx, thread, f"{thread}{n}")
        t.comment(f"{thread}{n}", f"note {thread} {n} on retries", "2026-03-05T10:00:00.000000Z")
        t.save()


def cut_commits(root: Path) -> list[str]:
    """The commits the shallow file names, each with the memory refs that hold it."""
    shallow = root / ".git" / "shallow"
    cut = shallow.read_text().split() if shallow.is_file() else []
    return [f"{oid} {git(root, 'for-each-ref', '--format=%(refname)', f'--contains={oid}', 'refs/memory/')}".strip()
            for oid in cut if git(root, "for-each-ref", f"--contains={oid}", "refs/memory/v1/").strip()
            and "\nparent " in git(root, "cat-file", "commit", oid).split("\n\n")[0]]


def state_of(root: Path, learning: str) -> str | None:
    done = cli.gitstore("learnings", "--json", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = json.loads(done.stdout)
    rows = rows if isinstance(rows, list) else rows.get("learnings", [])
    return next((row["state"] for row in rows if row["id"] == learning), None)


@pytest.fixture(scope="module")
def retired_once(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """alice accepts a learning, bob retires it and appends five times after; carol's full clone
    has synced it all; made once (each test takes a copy). Returns its folder and the learning."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        pin_identity(monkeypatch, tmp_path_factory.mktemp("home"))
        return _retired(tmp_path_factory.mktemp("retired"))


def _retired(tmp_path: Path) -> tuple[Path, str]:
    alice, bob = two_reviewers(tmp_path)
    grant_all(alice)
    thread = Thread(alice, 7, "100")
    comment = thread.comment("100", "Use jitter on retries.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    learning = accepted(alice, propose(alice, [ref(comment)]))["id"]
    sync(str(alice.workspace.root))
    sync(str(bob.workspace.root))
    bob = Context.open(bob.workspace.root)
    ops.retire(bob, learning, "github:10", "wrong")
    comments(bob, 40, 5)
    sync(str(bob.workspace.root))
    bare = tmp_path / "remote.git"
    carol = tmp_path / "carol"
    git(tmp_path, "clone", "-q", f"file://{bare}", str(carol))
    init(carol)
    sync(str(carol))
    assert state_of(carol, learning) == "retired"
    return tmp_path, learning


@pytest.fixture
def retired(retired_once: tuple[Path, str], tmp_path: Path) -> tuple[Path, str, Path]:
    """A copy of that world in this test's folder (alice's, bob's and carol's clones, their
    keys and the remote, each clone's remote and signing key naming the copy). Returns carol's
    clone, the learning and the remote."""
    source, learning = retired_once
    copy_world(source, tmp_path)
    return tmp_path / "carol", learning, tmp_path / "remote.git"


def test_a_history_a_depth_fetch_cut_is_left_out_until_sync_fetches_it_whole(
        retired: tuple[Path, str, Path]) -> None:
    carol, learning, _ = retired
    whole = len(cli.gitstore("records", "list", cwd=carol).stdout.splitlines())
    git(carol, "fetch", "-q", "--depth", "2", "origin")
    assert (carol / ".git" / "shallow").is_file()
    done = cli.gitstore("learnings", "--json", cwd=carol)
    assert done.returncode == 3 and done.stdout == "", done.stdout
    assert "history is shallow here" in done.stderr and "gitstore sync" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    store = Context.open(carol).store
    list(store.items())
    left = store.left_out()
    assert left and all("history is shallow here" in p.message for p in left), left
    checks = doctor(carol).checks
    assert any(c.state == WARN and "shallow" in c.detail and "gitstore sync" in c.todo for c in checks), checks
    assert not any("tell its writer" in c.todo for c in checks), "nobody else has anything to mend"
    report = sync(str(carol))
    assert not report.quarantined, report.render()
    assert state_of(carol, learning) == "retired"
    assert len(cli.gitstore("records", "list", cwd=carol).stdout.splitlines()) == whole
    assert verify(Context.open(carol).store).ok


def test_a_retirement_a_depth_fetch_cut_off_puts_no_learning_back_in_force(retired: tuple[Path, str, Path]) -> None:
    """Cut so that the acceptance is read whole and the retirement after it is not: judged from
    what is left, the learning would be in force again, and agents would get it. Nothing that
    judges learnings in force answers until sync has made the history whole."""
    carol, learning, _ = retired
    git(carol, "fetch", "-q", "--depth", "4", "origin")
    cut = " ".join(cut_commits(carol))
    bob_ref = next(line.split()[0] for line in git(carol, "for-each-ref", "--format=%(refname)",
                                                   "refs/memory/v1/remotes/origin/records/shared/").split()
                   if line.split("/")[-1] in cut)
    assert bob_ref, cut
    for command in (["learnings", "--active"], ["learnings"], ["recall", "jitter on retries"], ["publish"]):
        done = cli.gitstore(*command, cwd=carol)
        assert done.returncode == 3, (command, done.stdout, done.stderr)
        assert learning not in done.stdout and "history is shallow here" in done.stderr, (command, done.stderr)
        assert "Traceback" not in done.stderr
    sync(str(carol))
    assert state_of(carol, learning) == "retired"


def test_a_shallow_clone_s_depth_fetch_is_not_taken_for_forgery_and_sync_leaves_code_shallow(
        tmp_path: Path, retired: tuple[Path, str, Path]) -> None:
    _, learning, bare = retired
    dave = tmp_path / "dave"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{bare}", str(dave))
    init(dave)
    git(dave, "fetch", "-q", "--depth", "1", "origin")
    done = cli.gitstore("verify", cwd=dave)
    assert "not in the commit's record list" not in done.stdout + done.stderr, done.stdout
    assert "history is shallow here" in done.stdout + done.stderr, done.stdout + done.stderr
    assert not any("tell its writer" in c.todo for c in doctor(dave).checks)
    git(dave, "fetch", "-q", "--unshallow", "origin")  # whole again: nothing refused is remembered
    assert not Context.open(dave).store.left_out()
    assert state_of(dave, learning) == "retired"
    assert cli.gitstore("verify", cwd=dave).returncode == 0


def test_sync_fetches_memory_whole_and_leaves_the_code_history_shallow(
        tmp_path: Path, retired: tuple[Path, str, Path]) -> None:
    carol, learning, bare = retired
    (carol / "more.txt").write_text("more\n")
    git(carol, "add", "more.txt")
    git(carol, "commit", "-q", "-m", "more")
    git(carol, "push", "-q", "origin", "HEAD:main")
    dave = tmp_path / "dave"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{bare}", str(dave))
    init(dave)
    git(dave, "fetch", "-q", "--depth", "1", "origin")
    report = sync(str(dave))
    assert not report.quarantined, report.render()
    assert state_of(dave, learning) == "retired"
    assert verify(Context.open(dave).store).ok
    assert git(dave, "rev-parse", "--is-shallow-repository").strip() == "true"
    assert git(dave, "rev-list", "--count", "HEAD").strip() == "1", "the code's history stays as shallow"
    assert sync(str(dave)).status == "no-update"


def test_this_clone_s_own_history_cut_short_refuses_reads_and_appends_until_sync(
        retired: tuple[Path, str, Path]) -> None:
    carol, _, _ = retired
    ctx = Context.open(carol)
    comments(ctx, 50, 3)
    sync(str(carol))
    git(carol, "fetch", "-q", "--depth", "1", "origin")
    with pytest.raises(IntegrityError, match="history is shallow here"):
        list(Context.open(carol).store.items())
    with pytest.raises(IntegrityError, match="history is shallow here"):
        comments(Context.open(carol), 60, 1)
    done = cli.gitstore("records", "list", cwd=carol)
    assert done.returncode == 3 and "history is shallow here" in done.stderr and "Traceback" not in done.stderr
    sync(str(carol))
    assert cut_commits(carol) == [], "memory's history is whole again"
    comments(Context.open(carol), 60, 1)
    assert verify(Context.open(carol).store).ok


def test_a_hook_s_log_names_a_cut_history_as_one_a_sync_mends_not_as_damage(retired: tuple[Path, str, Path]) -> None:
    from gitstore.capture.hooklog import described

    carol, _, _ = retired
    comments(Context.open(carol), 50, 3)
    sync(str(carol))
    git(carol, "fetch", "-q", "--depth", "1", "origin")
    with pytest.raises(IntegrityError) as refused:
        list(Context.open(carol).store.items())
    line = described(refused.value)
    assert "shallow" in line and "gitstore sync" in line and "damaged" not in line, line
    assert "damaged" in described(IntegrityError("a record's digest does not match")), "other damage is still named so"


def writer_of(root: Path) -> str:
    return Context.open(root).workspace.config.writer


def depth_clone(tmp_path: Path, bare: Path, name: str = "dave") -> Path:
    """A clone with depth 1 set up for memory and fetched again with depth 1: every memory
    history of more than one append is cut short."""
    root = tmp_path / name
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{bare}", str(root))
    init(root)
    git(root, "fetch", "-q", "--depth", "1", "origin")
    return root


def test_a_cut_history_the_remote_can_no_longer_mend_stops_blocking_readers_once_sync_tried(
        tmp_path: Path, retired: tuple[Path, str, Path]) -> None:
    """bob's refs go from the remote (a purge) while dave's copy of them is cut: no sync can
    make it whole. Once a sync has tried, it is left out as a named refusal with the real ways
    out, and the learnings are judged from the rest instead of refused for good."""
    _, learning, bare = retired
    dave = depth_clone(tmp_path, bare)
    bob = writer_of(tmp_path / "bob")
    for kind in ("records", "payloads"):
        git(bare, "update-ref", "-d", f"refs/memory/v1/{kind}/shared/{bob}")
    done = cli.gitstore("learnings", cwd=dave)
    assert done.returncode == 3 and "gitstore sync" in done.stderr, "a sync may still mend it: not tried yet"
    report = sync(str(dave))
    said = "\n".join(report.render())
    assert "cannot make it whole" in said and "git update-ref -d" in said, said
    assert "history is shallow here" not in said, said
    done = cli.gitstore("learnings", "--json", cwd=dave)
    assert done.returncode == 0, done.stderr
    assert bob in done.stderr and "cannot make it whole" in done.stderr and "update-ref -d" in done.stderr, done.stderr
    assert "run `gitstore sync`" not in done.stderr, done.stderr
    checked = verify(Context.open(dave).store)
    assert not checked.ok and any(bob in p.where and "cannot make it whole" in p.message for p in checked.problems)
    checks = doctor(dave).checks
    assert any(c.state == WARN and bob in c.detail and "update-ref -d" in c.todo for c in checks), checks
    assert not any("gitstore sync" in c.todo for c in checks if bob in c.detail), checks
    assert "cannot make it whole" in "\n".join(sync(str(dave)).render()), "named again, never mended"
    cut = next(line for line in git(dave, "for-each-ref", "--format=%(refname)", "refs/memory/").split()
               if line.endswith(f"records/shared/{bob}"))
    git(dave, "update-ref", "-d", cut)
    assert cli.gitstore("learnings", cwd=dave).returncode == 0
    assert verify(Context.open(dave).store).ok


def test_a_history_the_remote_itself_holds_cut_is_not_brought_by_sync_s_deepening(
        tmp_path: Path, retired: tuple[Path, str, Path]) -> None:
    """A remote that takes shallow pushes lets anyone with push access put a history there cut
    at the remote's own end. The ordinary fetch refuses it (it would cut this clone's history);
    the fetch that deepens memory must refuse it too, or no sync could ever make it whole."""
    _, learning, bare = retired
    dave = depth_clone(tmp_path, bare)
    git(bare, "config", "receive.shallowUpdate", "true")
    forged = tmp_path / "forged"
    git(tmp_path, "init", "-q", "--bare", str(forged))
    tree = git(forged, "hash-object", "-t", "tree", "-w", "/dev/null").strip()
    first = git(forged, "commit-tree", tree, "-m", "append\n\nGitstore-Format: 1").strip()
    second = git(forged, "commit-tree", tree, "-p", first, "-m", "append\n\nGitstore-Format: 1").strip()
    name = "refs/memory/v1/records/shared/github-66"
    git(forged, "update-ref", name, second)
    mallory = tmp_path / "mallory"
    git(tmp_path, "init", "-q", "--bare", str(mallory))
    git(mallory, "fetch", "-q", "--depth", "1", f"file://{forged}", f"{name}:{name}")
    git(mallory, "push", "-q", f"file://{bare}", f"{name}:{name}")
    assert (bare / "shallow").is_file(), "the remote holds it cut"
    sync(str(dave))
    assert not git(dave, "for-each-ref", "refs/memory/", f"--contains={second}").strip()
    done = cli.gitstore("learnings", "--json", cwd=dave)
    assert done.returncode == 0, done.stderr
    assert state_of(dave, learning) == "retired"


def test_a_deepening_fetch_that_fails_leaves_the_cut_history_blocking_readers(
        tmp_path: Path, retired: tuple[Path, str, Path]) -> None:
    """The remote answers the plain fetch and hangs up on the deepening one (a network fault):
    the cut history is not the remote's to mend no more, it is one a later sync mends. Were it
    noted as one the remote cannot make whole, the retirement it holds would be left out and the
    learning read in force until a sync succeeds."""
    carol, learning, _ = retired
    git(carol, "fetch", "-q", "--depth", "4", "origin")
    count = tmp_path / "fetches"
    wrapper = tmp_path / "upload-pack"
    wrapper.write_text(f"#!/bin/sh\nn=$(cat {count} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {count}\n"
                       "[ $n -ge 2 ] && { echo 'fatal: the remote end hung up unexpectedly' >&2; exit 128; }\n"
                       'exec git-upload-pack "$@"\n')
    wrapper.chmod(0o755)
    git(carol, "config", "remote.origin.uploadpack", str(wrapper))
    done = cli.gitstore("sync", cwd=carol)
    assert done.returncode != 0 and "cannot make it whole" not in done.stdout + done.stderr, done.stdout + done.stderr
    assert "hung up" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert int(count.read_text()) >= 2, "the deepening fetch was tried"
    done = cli.gitstore("learnings", "--active", cwd=carol)
    assert done.returncode == 3 and learning not in done.stdout, (done.stdout, done.stderr)
    assert "history is shallow here" in done.stderr, done.stderr
    git(carol, "config", "--unset", "remote.origin.uploadpack")
    sync(str(carol))
    assert state_of(carol, learning) == "retired"
