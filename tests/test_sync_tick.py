"""``gitstore tick`` in a real repository: due steps only, each in a child process bounded in
time, failures isolated, degraded never claimed as success, stages not installed reported as
unavailable, two ticks never overlapping (real processes), and ``gitstore status``."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from gitstore.cli import main
from gitstore.config import Workspace
from gitstore.context import Context
from gitstore.ops.setup import init
from gitstore.sync import steps as step_registry
from gitstore.sync.tick import loop_status, read_state, tick

from . import cli
from .conftest import shared
from .github_server import REPO, FakeGitHub, recorded, serve
from .world import ready_repo

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def configure(ctx: Context, loop: dict[str, Any]) -> None:
    path = ctx.workspace.state / "config.json"
    data = json.loads(path.read_text())
    data["loop"] = loop
    path.write_text(json.dumps(data))
    init(ctx.workspace.root, accept_changes=True)  # a person's edit, taken: a tick runs no loop init has not


def at(moment: datetime) -> Any:
    return lambda: moment


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return ready_repo(tmp_path / "hello", origin="https://github.com/Codertocat/Hello-World.git")


@pytest.fixture
def inbox(ctx: Context) -> Path:
    folder = ctx.workspace.root / "inbox"
    folder.mkdir()
    hooks = shared("reviews", "octokit-webhooks")
    shutil.copy(hooks / "pull_request_review_comment" / "created.payload.json", folder / "1.json")
    return folder


def test_due_steps_run_in_order_and_the_rest_wait(ctx: Context, inbox: Path) -> None:
    configure(ctx, {"by": "git:bot@example.com",
                    "steps": {"publish": {"every": "1h"}, "reviews": {"every": "15m", "folder": "inbox"}}})
    first = tick(ctx.workspace.root, clock=at(T0))
    assert [(s.name, s.status) for s in first.steps] == [("reviews", "ok"), ("publish", "no-update")]
    assert first.exit_code == 0 and "1 import(s), 1 new event(s)" in first.steps[0].line
    later = tick(ctx.workspace.root, clock=at(T0 + timedelta(minutes=20)))
    assert [(s.name, s.status) for s in later.steps] == [("reviews", "no-update"), ("publish", "not-due")]
    assert later.steps[0].line.endswith("1 file(s) already imported")
    assert later.steps[1].line == "next due 2026-03-02T10:00:00.000000Z (every 1h)"
    hooks = shared("reviews", "octokit-webhooks")
    shutil.copy(hooks / "issue_comment" / "created.payload.json", inbox / "2.json")
    again = tick(ctx.workspace.root, clock=at(T0 + timedelta(minutes=61)))
    assert [s.status for s in again.steps] == ["ok", "no-update"], "a delivery dropped later comes in"
    assert again.steps[0].line.startswith("1 import(s), 1 new event(s), 1 file(s) already imported")
    assert [s.status for s in tick(ctx.workspace.root, clock=at(T0 + timedelta(minutes=70))).steps] == ["not-due"] * 2
    state = read_state(ctx.workspace)
    assert state["publish"]["startedAt"] == "2026-03-02T10:01:00.000000Z" and state["reviews"]["status"] == "ok"
    assert len([i for i in ctx.store.items(["import"])]) == 2, "each delivery is imported once"


def test_a_record_from_ahead_of_the_clock_or_from_a_commit_holds_no_step_off(ctx: Context, inbox: Path) -> None:
    """The loop's record is the clone's own, in okf/.memory/loop/: a clock set back leaves times
    in it that are still to come, and a commit can put one there (git add -f) saying every step
    just ran. Neither keeps a step from running, nor shifts what the github step asks for."""
    configure(ctx, {"by": "git:bot@example.com", "steps": {"reviews": {"every": "1h", "folder": "inbox"}}})
    assert [s.status for s in tick(ctx.workspace.root, clock=at(T0)).steps] == ["ok"]
    record = ctx.workspace.state / "loop" / "state.json"
    ahead = json.loads(record.read_text())
    ahead["steps"]["reviews"].update(startedAt="2027-03-02T09:00:00.000000Z", lastOk="2027-03-02T09:00:00.000000Z")
    record.write_text(json.dumps(ahead))
    asked: list[str | None] = []

    def runner(config: Any, call: step_registry.Call) -> step_registry.Outcome:
        asked.append(call.last_ok)
        return step_registry.Outcome("no-update", "nothing new")

    later = tick(ctx.workspace.root, clock=at(T0 + timedelta(minutes=5)), runner=runner)
    assert [s.status for s in later.steps] == ["no-update"]  # ran: the record said it had not yet started
    assert asked == [None]  # and not told it last succeeded in a year's time
    assert read_state(ctx.workspace)["reviews"]["lastOk"] == "2026-03-02T09:05:00.000000Z"
    assert [s.status for s in tick(ctx.workspace.root, clock=at(T0 + timedelta(minutes=6))).steps] == ["not-due"]
    root = ctx.workspace.root
    subprocess.run(["git", "add", "-f", record.relative_to(root).as_posix()], cwd=root, check=True)
    assert read_state(ctx.workspace) == {}
    assert [s.status for s in tick(ctx.workspace.root, clock=at(T0 + timedelta(minutes=7))).steps] == ["no-update"]


def test_a_failing_step_is_reported_and_the_others_go_on(ctx: Context, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    configure(ctx, {"by": "git:bot@example.com",
                    "steps": {"reviews": {"folder": "no-such-folder"}, "publish": {}}})
    monkeypatch.chdir(ctx.workspace.root)
    assert main(["tick"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("reviews  failed      ") and "no-such-folder: no such folder" in lines[0]
    assert lines[1].startswith("publish  no-update   no-update: no project learning is in force")
    assert main(["tick"]) == 0, "nothing is due a moment later"
    assert [line.split()[1] for line in capsys.readouterr().out.splitlines()] == ["not-due", "not-due"]


def test_the_example_configuration_of_loop_md_ticks_cleanly(ctx: Context, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """loop.md's example names okf/.memory/inbox/reviews, which nothing makes before a receiver
    writes there: the reviews step finds nothing new, and the tick exits 0 rather than failing
    every time cron runs it."""
    configure(ctx, {"by": "git:bot@example.com",
                    "steps": {"reviews": {"every": "15m", "folder": "okf/.memory/inbox/reviews"}, "publish": {}}})
    monkeypatch.chdir(ctx.workspace.root)
    assert main(["tick"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("reviews  no-update   0 import(s)"), lines
    assert (ctx.workspace.state / "inbox" / "reviews").is_dir()


def test_an_incomplete_import_is_degraded_never_ok(ctx: Context, inbox: Path) -> None:
    lists = recorded(shared("reviews", "octokit-webhooks"))
    snapshot = {"format": "gitstore.github-snapshot/1", "repository": REPO, "pullRequest": 2, "head": None,
                "responses": [{"collection": "pull-comments", "page": 1, "link": '<https://x/?page=2>; rel="next", '
                               '<https://x/?page=2>; rel="last"', "body": lists["pulls/2/comments"][:1]},
                              {"collection": "reviews", "page": 1, "link": "", "body": []},
                              {"collection": "issue-comments", "page": 1, "link": "", "body": []}]}
    (inbox / "1.json").unlink()
    (inbox / "pr-2.json").write_text(json.dumps(snapshot))
    (inbox / ".partial.json").write_text("{")  # a receiver still writing: left alone
    configure(ctx, {"by": "git:bot@example.com", "steps": {"reviews": {"folder": "inbox"}}})
    report = tick(ctx.workspace.root, clock=at(T0))
    assert report.steps[0].status == "degraded" and report.exit_code == 1
    assert "pr-2.json missing pages" in report.steps[0].line


def test_a_stage_not_installed_is_unavailable_and_said_every_tick(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    configure(ctx, {"steps": {"sync": {"every": "1h"}, "publish": {}}})
    missing = step_registry.Step("sync", "test", "gitstore.no_such_stage", step_registry.sync, 60, 60,
                                 {"remote": str})
    monkeypatch.setitem(step_registry.STEPS, "sync", missing)
    for minutes in (0, 5):
        report = tick(ctx.workspace.root, clock=at(T0 + timedelta(minutes=minutes)))
        assert [(s.name, s.status) for s in report.steps][-1] == (
            "sync", "unavailable"), "never skipped silently, never waiting as if it ran"
        assert report.steps[-1].line == "gitstore.no_such_stage is not installed in this version of gitstore"
        assert report.exit_code == 1


def test_the_configuration_is_read_strictly(ctx: Context, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ctx.workspace.root)
    bad = [({"steps": {"dreams": {}}}, "loop.steps has an unknown step 'dreams'"),
           ({"steps": {"dream": {"evry": "1d"}}}, "loop.steps.dream has an unknown field 'evry'"),
           ({"steps": {"reviews": {}}}, "loop.steps.reviews needs 'folder'"),
           ({"steps": {"publish": {"every": "often"}}}, "loop.steps.publish.every must be a duration"),
           ({"steps": {"publish": {"timeout": "3h"}}}, "loop.steps.publish.timeout must be between 1s and 2h"),
           # a time past the year 9999 ended the tick with a traceback after the step had run, never recorded
           ({"steps": {"publish": {"every": "999999w"}}}, "loop.steps.publish.every must be between 1m and 52w"),
           ({"steps": {"publish": {"every": "10s"}}}, "loop.steps.publish.every must be between 1m and 52w"),
           ({"steps": {"github": {"repo": "acme"}}}, "loop.steps.github.repo must be OWNER/NAME"),
           ({"steps": {"publish": {"claude": "yes"}}}, "loop.steps.publish.claude must be true or false"),
           ({"stepz": {}}, "loop has an unknown field 'stepz'"),
           # an id every step refused as it ran: each tick failed step after step
           ({"by": "bot:gitstore-loop", "steps": {"dream": {}}}, "loop.by 'bot:gitstore-loop' names a bot"),
           ({"by": "memory bot", "steps": {"dream": {}}}, "loop.by 'memory bot' is not a person id"),
           ([], "loop must be a JSON object")]
    for loop, message in bad:
        # taken by init as a test calls it (`gitstore init` refuses it: test_config_loop_gate)
        configure(ctx, loop)  # type: ignore[arg-type]
        assert main(["tick"]) == 1
        err = capsys.readouterr().err
        assert err.startswith("gitstore: error: ") and message in err and err.count("\n") == 1
        assert loop_status(Workspace.find(ctx.workspace.root))["problem"].endswith(err.split(": ", 3)[-1].strip())
        assert main(["status"]) == 0, "status still works and names the problem"
        assert "loop      configuration refused: " in capsys.readouterr().out
    assert not (ctx.workspace.state / "loop" / "state.json").exists(), "a refused tick runs nothing"


def test_status_shows_the_last_results_and_when_each_step_is_due(ctx: Context, inbox: Path,
                                                                 capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    configure(ctx, {"by": "git:bot@example.com", "steps": {"reviews": {"folder": "inbox", "every": "1d"}}})
    monkeypatch.chdir(ctx.workspace.root)
    assert main(["status"]) == 0
    assert "  reviews  every 1d   next now; never ran" in capsys.readouterr().out
    assert main(["tick"]) == 0
    capsys.readouterr()
    assert main(["status", "--json"]) == 0
    loop = json.loads(capsys.readouterr().out)["loop"]
    step = loop["steps"][0]
    assert step["last"]["status"] == "ok" and step["nextDue"] != "now" and loop["running"] is None


# -- real processes: the lock and the time bound ---------------------------------------------------

def _gitstore(root: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GH_TOKEN")}
    return subprocess.Popen([sys.executable, "-m", "gitstore", *args], cwd=root, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_two_ticks_never_overlap(ctx: Context) -> None:
    github = FakeGitHub(recorded(shared("reviews", "octokit-webhooks")), hold=threading.Event())
    with serve(github):
        configure(ctx, {"by": "git:bot@example.com",
                        "steps": {"github": {"repo": REPO, "apiUrl": github.url, "since": "2019-05-01"}}})
        first = _gitstore(ctx.workspace.root, "tick")
        try:
            assert github.arrived.wait(60), "the first tick reached GitHub"
            second = _gitstore(ctx.workspace.root, "tick")
            out, err = second.communicate(timeout=60)
            assert second.returncode == 0 and err == ""
            assert out.startswith(f"tick: another tick is running (pid {first.pid}, started ")
            assert out.rstrip().endswith("this one did nothing")
            assert first.poll() is None, "it returned while the first tick still runs"
            assert loop_status(ctx.workspace)["running"]["pid"] == first.pid
        finally:
            github.hold.set()
        out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert out.startswith("github   ok          1 pull request(s) read, 1 imported")
    assert loop_status(ctx.workspace)["running"] is None


def test_a_step_past_its_timeout_is_stopped_with_its_processes(ctx: Context) -> None:
    github = FakeGitHub(recorded(shared("reviews", "octokit-webhooks")), hold=threading.Event())
    with serve(github):
        configure(ctx, {"by": "git:bot@example.com",
                        "steps": {"github": {"repo": REPO, "apiUrl": github.url, "timeout": "2s"}, "publish": {}}})
        try:
            report = tick(ctx.workspace.root, clock=at(T0))
        finally:
            github.hold.set()
    assert [(s.name, s.status) for s in report.steps] == [("github", "timed-out"), ("publish", "no-update")]
    assert report.steps[0].line == "stopped after 2s (its timeout)" and report.exit_code == 1
    assert not _steps_running(ctx.workspace.root)


def _steps_running(root: Path) -> bool:
    """Whether a tick's step runs in ``root`` (steps run there; other tests' steps, in their
    own folders, do not count)."""
    where = str(root.resolve())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if b"gitstore.sync.steps" in (entry / "cmdline").read_bytes() and os.readlink(entry / "cwd") == where:
                return True
        except OSError:
            continue
    return False


def test_the_sync_step_runs_gitstore_sync_through_a_remote(ctx: Context, tmp_path: Path) -> None:
    from .world import grant_all

    bare = tmp_path / "team.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    origin = subprocess.run(["git", "remote", "get-url", "origin"], cwd=ctx.workspace.root, check=True,
                            capture_output=True, text=True).stdout.strip()
    subprocess.run(["git", "remote", "add", "origin", origin], cwd=bare, check=True)  # the scope of its clones
    subprocess.run(["git", "remote", "add", "team", str(bare)], cwd=ctx.workspace.root, check=True)
    grant_all(ctx)
    configure(ctx, {"steps": {"sync": {"remote": "team"}}})
    [step] = tick(ctx.workspace.root, clock=at(T0)).steps
    assert step.status == "ok" and step.line.startswith("team: 0 record(s) in from 0 writer(s), 2 record(s) pushed"), step
    [step] = tick(ctx.workspace.root, clock=at(T0 + timedelta(hours=1))).steps
    assert step.status == "no-update", step
    configure(ctx, {"steps": {"sync": {"remote": "nowhere"}}})
    [step] = tick(ctx.workspace.root, clock=at(T0 + timedelta(hours=2))).steps
    assert step.status == "failed" and "no remote named 'nowhere'" in step.line, step


@pytest.mark.skipif(not step_registry.STEPS["dream"].available(), reason="this gitstore has no dream stage")
def test_the_dream_step_runs_the_dream(ctx: Context) -> None:
    configure(ctx, {"by": "git:bot@example.com", "steps": {"dream": {"since": "30d"}}})
    [step] = tick(ctx.workspace.root, clock=at(T0)).steps
    assert step.status == "no-update" and step.line.startswith("dream complete: no-update, 0 proposed")


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_tick_leaves_no_step_running_and_the_next_one_runs(ctx: Context, how: int) -> None:
    github = FakeGitHub(recorded(shared("reviews", "octokit-webhooks")), hold=threading.Event())
    with serve(github):
        configure(ctx, {"by": "git:bot@example.com",
                        "steps": {"github": {"repo": REPO, "apiUrl": github.url, "since": "2019-05-01"}}})
        first = _gitstore(ctx.workspace.root, "tick")
        try:
            assert github.arrived.wait(60), "the tick's step reached GitHub"
            assert _steps_running(ctx.workspace.root)
            first.send_signal(how)
            first.communicate(timeout=60)
            deadline = time.monotonic() + 30
            while _steps_running(ctx.workspace.root) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not _steps_running(ctx.workspace.root), "the step died with its tick"
        finally:
            github.hold.set()
        github.hold = None
        second = _gitstore(ctx.workspace.root, "tick")
        out, err = second.communicate(timeout=120)
    assert second.returncode == 0 and out.startswith("github   ok"), out + err


def test_named_steps_and_force_run_now_due_or_not(ctx: Context, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (ctx.workspace.root / "inbox").mkdir()
    configure(ctx, {"by": "git:bot@example.com", "steps": {"reviews": {"folder": "inbox"}, "publish": {}}})
    monkeypatch.chdir(ctx.workspace.root)

    def statuses(*argv: str) -> list[tuple[str, str]]:
        assert main(["tick", *argv]) == 0
        return [(line.split()[0], line.split()[1]) for line in capsys.readouterr().out.splitlines()]

    assert statuses() == [("reviews", "no-update"), ("publish", "no-update")]
    assert statuses() == [("reviews", "not-due"), ("publish", "not-due")]
    assert statuses("publish") == [("publish", "no-update")], "a named step runs, due or not, and only it"
    assert statuses("--force") == [("reviews", "no-update"), ("publish", "no-update")]
    assert main(["tick", "sync"]) == 2
    assert "step 'sync' is not configured in loop.steps" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["lock", "folder"])
def test_a_lock_a_commit_made_a_link_is_refused_and_nothing_outside_is_emptied(
        ctx: Context, tmp_path: Path, where: str) -> None:
    """``okf/.memory/loop/tick.lock`` (or its folder), force-added by a commit as a link to a
    file of the user's: taking the lock truncated whatever it pointed at."""
    from gitstore.sync.tick import LOCK_FILE, loop_folder

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / LOCK_FILE).write_text("the user's own file\n")
    configure(ctx, {"by": "git:bot@example.com", "steps": {"publish": {"every": "1h"}}})
    folder = loop_folder(ctx.workspace)
    if where == "lock":
        folder.mkdir(parents=True, exist_ok=True)
        (folder / LOCK_FILE).symlink_to(outside / LOCK_FILE)
    else:
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.symlink_to(outside, target_is_directory=True)
    done = cli.gitstore("tick", cwd=ctx.workspace.root)
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert (outside / LOCK_FILE).read_text() == "the user's own file\n"


def test_tick_s_help_names_the_steps_a_tick_runs() -> None:
    """The help lists the steps by the names `gitstore tick STEP` and loop.steps take."""
    said = " ".join(cli.ok("tick", "--help").split())
    listed = said.split("that are due (", 1)[1].split(")", 1)[0]
    assert listed.split(", ") == list(step_registry.STEPS), listed
