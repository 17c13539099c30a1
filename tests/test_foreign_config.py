"""A config.json that came through git is another clone's and is never used.

``okf/.memory/`` is ignored, but a commit can add its config.json anyway (``git add -f``), by
mistake or on purpose. Every clone that checks the commit out then holds the committer's writer id
(two clones appending as one split its history) and settings that run a program (the dream
labeler), accept learnings without a person (``automation``) or act on a schedule (``loop``).
Git even checks such a file out over a clone's own ignored one. Every command refuses a
config.json that came through git (the commit checked out holds it, or git has its bytes as an
object), naming ``gitstore init``, which writes the clone a
configuration of its own; the clone that wrote the file keeps using it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gitstore.config import OWN_CONFIG_NAME, STATE_DIR
from gitstore.queries.doctor import doctor

from . import cli
from .conftest import ROOT, git
from .team import first_clone, shared_remote

CONFIG = STATE_DIR / "config.json"


def _config(root: Path) -> dict[str, Any]:
    return dict(json.loads((root / CONFIG).read_text()))


def _hostile(root: Path, writer: str, marker: Path) -> None:
    """A config.json naming ``writer``, a labeler that leaves ``marker`` and auto-acceptance,
    committed with ``git add -f`` and pushed."""
    program = f"touch {marker}; cat >/dev/null; echo '{{\"labels\": []}}'"
    data = {"writer": writer, "provider": "git", "automation": {"autoSafe": True},
            "dream": {"labeler": "command", "labelers": {"command": {"argv": ["sh", "-c", program]}}}}
    (root / CONFIG).write_text(json.dumps(data, indent=2) + "\n")
    cli.ok("init", "--accept-changes", cwd=root)  # the clone that writes it takes it as its own, edited by hand
    git(root, "add", "-f", CONFIG.as_posix())
    git(root, "commit", "-q", "-m", "share the memory settings")
    git(root, "push", "-q", "origin", "main")


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path]:
    """The team's remote and alice's clone (set up, its memory refspecs in place)."""
    bare = shared_remote(tmp_path)
    return bare, first_clone(tmp_path, bare)


def _refused(root: Path, *args: str) -> str:
    done = cli.gitstore(*args, cwd=root)
    assert done.returncode == 1 and done.stdout == "" and done.stderr.count("\n") == 1, done
    assert "came through git (the commit checked out holds it, or git has these very bytes" in done.stderr and "run `gitstore init`" in done.stderr
    return done.stderr


def test_a_committed_config_is_refused_by_every_command_until_init_gives_the_clone_its_own(
        team: tuple[Path, Path], tmp_path: Path) -> None:
    bare, alice = team
    marker = tmp_path / "labeler-ran"
    _hostile(alice, "w00a11ce00001", marker)
    shown = cli.ok("status", cwd=alice)  # the clone that wrote it still uses it: the settings are live there
    assert "automation.autoSafe = on" in shown and "dream.labeler = command" in shown
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(bare), str(bob))
    assert _config(bob)["writer"] == "w00a11ce00001"
    for args in (("status",), ("dream",), ("tick",), ("learnings", "--active"), ("records", "list")):
        assert str(bob / CONFIG) in _refused(bob, *args)
    added = cli.gitstore("records", "add", "-", cwd=bob, stdin=b"")
    assert added.returncode == 1 and "came through git (the commit checked out holds it, or git has these very bytes" in added.stderr
    assert not marker.exists()
    assert git(bob, "for-each-ref", "refs/memory/") == ""  # nothing stored under anyone's id
    check = {c.name: c for c in doctor(bob).checks}["init"]
    assert check.state == "fail" and check.todo == "gitstore init"

    said = cli.ok("init", cwd=bob)
    mine = _config(bob)
    assert mine["writer"] not in ("w00a11ce00001", "") and set(mine) == {"writer", "provider"}
    assert "its writer w00a11ce00001 was another clone's, and so were its automation, dream settings, not kept" in said
    assert "`git rm -q --cached :/okf/.memory/config.json`" in said
    shown = cli.ok("status", cwd=bob)
    assert f"writer    {mine['writer']}" in shown and "automation.autoSafe = off" in shown
    assert cli.ok("init", cwd=bob) and _config(bob) == mine  # its own now: kept by init and every command
    assert not marker.exists()


def test_a_checkout_over_a_clones_own_ignored_config_is_refused(team: tuple[Path, Path], tmp_path: Path) -> None:
    """Git replaces an ignored file with a tracked one without asking: a commit naming bob's own
    writer id (the remote shows every writer's) would otherwise pass for bob's configuration."""
    bare, alice = team
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(bare), str(bob))
    cli.ok("init", cwd=bob)
    writer = _config(bob)["writer"]
    _hostile(alice, writer, tmp_path / "labeler-ran")
    git(bob, "pull", "-q", "--ff-only")
    assert "dream" in _config(bob) and _config(bob)["writer"] == writer  # git replaced it, silently
    _refused(bob, "status")
    cli.ok("init", cwd=bob)
    assert "dream" not in _config(bob) and _config(bob)["writer"] != writer


def _session_ended(root: Path, session: str, tmp_path: Path) -> None:
    """A Claude Code session of ROOT ends: its hook runs as the harness runs it (JSON on
    standard input), capturing in its own process."""
    transcript = tmp_path / f"{session}.jsonl"
    turn = {"type": "user", "uuid": f"{session}-1", "sessionId": session, "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "Fix the flaky retry test"}}
    transcript.write_text(json.dumps(turn) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITSTORE_")}
    env.update(PYTHONPATH=str(ROOT), GITSTORE_HOOK_INLINE="1", TMPDIR=str(tmp_path))
    hook = {"session_id": session, "transcript_path": str(transcript), "cwd": str(root), "hook_event_name": "SessionEnd"}
    done = subprocess.run([sys.executable, "-P", "-m", "gitstore.capture.agent_hook", "claude-code"], cwd=root,
                          input=json.dumps(hook).encode(), capture_output=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stdout == b"", done


def _pulled_a_foreign_config(team: tuple[Path, Path], tmp_path: Path) -> Path:
    """Bob's clone, set up, once a pull brought alice's committed config.json over its own."""
    bare, alice = team
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(bare), str(bob))
    cli.ok("init", cwd=bob)
    _hostile(alice, "w00a11ce00001", tmp_path / "labeler-ran")
    git(bob, "pull", "-q", "--ff-only")
    return bob


def test_a_hook_refused_by_a_config_that_came_through_git_says_so_and_keeps_the_session(
        team: tuple[Path, Path], tmp_path: Path) -> None:
    """A pull that brings another clone's config.json stops every capture as it stops every
    command. The hook dropped each session then without a word (no log line, no receipt, the job
    removed) while `gitstore doctor` said the hook captured: the sessions until the person ran
    `gitstore init` were lost. The hook logs the refusal and keeps the job, which a run after init
    captures."""
    bob = _pulled_a_foreign_config(team, tmp_path)
    _session_ended(bob, "s-during", tmp_path)
    inbox = bob / STATE_DIR / "inbox"
    log = (bob / STATE_DIR / "logs" / "hooks.log").read_text()
    assert "ForeignConfig (okf/.memory/config.json came with a commit: `gitstore init` gives the clone its own)" in log
    assert "kept for a retry" in log and len(list(inbox.glob("hook-*.json"))) == 1
    cli.ok("init", cwd=bob)
    _session_ended(bob, "s-after", tmp_path)
    assert list(inbox.glob("hook-*.json")) == []
    episodes = cli.ok("episodes", "--json", cwd=bob)
    assert "s-during" in episodes and "s-after" in episodes, episodes


def test_sessions_waiting_for_the_clone_to_be_set_up_again_use_up_none_of_their_attempts(
        team: tuple[Path, Path], tmp_path: Path) -> None:
    """Each hook run retries the jobs waiting in the inbox, and a job tried more than three times
    is set aside, to be imported by hand. A refusal of the clone's set-up is no fault of the
    session's: however many sessions end before the person runs `gitstore init`, each is kept,
    and the first run after init captures them all."""
    bob = _pulled_a_foreign_config(team, tmp_path)
    sessions = [f"s-wait-{n}" for n in range(5)]
    for session in sessions:
        _session_ended(bob, session, tmp_path)
    inbox = bob / STATE_DIR / "inbox"
    assert len(list(inbox.glob("hook-*.json"))) == len(sessions) and not list(inbox.glob("failed-*"))
    cli.ok("init", cwd=bob)
    _session_ended(bob, "s-after", tmp_path)
    assert list(inbox.glob("*.json")) == []
    episodes = cli.ok("episodes", "--json", cwd=bob)
    assert all(session in episodes for session in [*sessions, "s-after"]), episodes


def test_the_clone_that_committed_its_config_keeps_it_and_doctor_says_to_stop_tracking_it(
        team: tuple[Path, Path]) -> None:
    _, alice = team
    writer = _config(alice)["writer"]
    git(alice, "add", "-f", CONFIG.as_posix())
    git(alice, "commit", "-q", "-m", "oops")
    done = cli.gitstore("status", cwd=alice)
    assert done.returncode == 0 and done.stderr == "" and _config(alice)["writer"] == writer
    check = [c for c in doctor(alice).checks if c.name == "init" and c.state == "fail"]
    assert len(check) == 1 and "git rm" in check[0].todo


def test_a_persons_edit_and_a_clone_set_up_before_owned_configs_were_recorded_stay_the_clones(
        team: tuple[Path, Path]) -> None:
    _, alice = team
    own = Path(git(alice, "rev-parse", "--git-dir").strip())
    own = (own if own.is_absolute() else alice / own) / OWN_CONFIG_NAME
    own.unlink()  # set up before: nothing recorded
    assert cli.gitstore("status", cwd=alice).stderr == "" and own.is_file()
    edited = {**_config(alice), "capture": {"mode": "transcript"}}
    (alice / CONFIG).write_text(json.dumps(edited))
    said = cli.ok("status", cwd=alice)  # the clone's own file, whose change waits to be taken
    assert "waiting   capture.mode changed" in said and "capture.mode = none in force" in said, said
    assert "capture.mode changed since" in cli.fails(1, "init", cwd=alice)  # named, and taken only when asked
    assert cli.ok("init", "--accept-changes", cwd=alice) and _config(alice) == edited
    assert "capture.mode = transcript" in cli.ok("status", cwd=alice)


def test_init_with_a_writer_replaces_a_committed_config_as_a_ci_checkout_runs_it(
        team: tuple[Path, Path], tmp_path: Path) -> None:
    bare, alice = team
    _hostile(alice, "w00a11ce00001", tmp_path / "labeler-ran")
    job = tmp_path / "ci"
    git(tmp_path, "clone", "-q", str(bare), str(job))
    cli.ok("init", "--writer", "ci-memory", cwd=job)
    assert _config(job) == {"writer": "ci-memory", "writerGiven": True, "provider": "git"}
    assert "writer    ci-memory" in cli.ok("status", cwd=job)


def test_a_committed_config_is_refused_whatever_bytes_the_checkout_wrote(team: tuple[Path, Path],
                                                                          tmp_path: Path) -> None:
    """A ``.gitattributes`` line converting the file's line endings on checkout gives bob bytes
    git has no object of: the commit checked out still holds the file, and it is refused."""
    bare, alice = team
    marker = tmp_path / "labeler-ran"
    (alice / ".gitattributes").write_text(f"{CONFIG.as_posix()} text eol=crlf\n")
    git(alice, "add", ".gitattributes")
    _hostile(alice, "w00a11ce00001", marker)
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(bare), str(bob))
    assert b"\r\n" in (bob / CONFIG).read_bytes()
    for args in (("status",), ("dream",), ("tick",)):
        _refused(bob, *args)
    assert not marker.exists()
    cli.ok("init", cwd=bob)
    assert _config(bob)["writer"] != "w00a11ce00001" and "dream.labeler = command" not in cli.ok("status", cwd=bob)
    assert not marker.exists()


def test_init_refuses_links_a_commit_left_in_the_state_folder_until_they_are_deleted(repo: Path) -> None:
    """A commit can put a link in the state folder (``okf/.memory/inbox`` to a tracked folder,
    with ``git add -f``); once the files are no longer tracked the link is still there in the
    work tree, and whatever gitstore writes there lands where it points. init refuses it, naming
    it, until it is deleted; doctor warns about it."""
    cli.ok("init", cwd=repo)
    state = repo / STATE_DIR
    (state / "inbox").rmdir()
    (repo / "docs" / "jobs").mkdir(parents=True)
    (repo / "docs" / "jobs" / "README.md").write_text("jobs\n")
    (state / "inbox").symlink_to(Path("..", "..", "docs", "jobs"))
    (state / "logs" / "old").symlink_to(repo / "docs")
    git(repo, "add", "-f", "okf/.memory/inbox", "docs")
    git(repo, "commit", "-q", "-m", "jobs")
    said = cli.fails(1, "init", cwd=repo)
    assert "git tracks 1 file(s) under okf/.memory/" in said and "delete the symbolic links" in said, said
    git(repo, "rm", "-r", "-q", "--cached", ":/okf/.memory/")
    git(repo, "commit", "-q", "-m", "untrack")
    said = cli.fails(1, "init", cwd=repo)
    assert "okf/.memory/inbox, okf/.memory/logs/old" in said and "delete them" in said, said
    [check] = [c for c in doctor(repo).checks if "symbolic link" in c.detail]
    assert check.state == "warn" and "okf/.memory/inbox" in check.detail, check
    (state / "inbox").unlink()
    (state / "logs" / "old").unlink()
    cli.ok("init", cwd=repo)
    assert (state / "inbox").is_dir() and not [c for c in doctor(repo).checks if "symbolic link" in c.detail]


def test_a_config_a_submodule_brings_is_refused(team: tuple[Path, Path], tmp_path: Path) -> None:
    """A submodule mounted at okf/ brings its own okf/.memory/config.json: the superproject's
    tree ends at the gitlink and git has none of its objects, yet the file came through git."""
    bare, alice = team
    source = tmp_path / "okfsrc"
    git(tmp_path, "init", "-q", "-b", "main", str(source))
    marker = tmp_path / "labeler-ran"
    program = f"touch {marker}; cat >/dev/null; echo '{{\"labels\": []}}'"
    (source / ".memory").mkdir()
    (source / ".memory" / "config.json").write_text(json.dumps(
        {"writer": "w00a11ce00001", "provider": "git",
         "dream": {"labeler": "command", "labelers": {"command": {"argv": ["sh", "-c", program]}}}}) + "\n")
    git(source, "add", "-f", ".")
    git(source, "commit", "-q", "-m", "the knowledge folder")
    pusher = tmp_path / "pusher"
    git(tmp_path, "clone", "-q", str(bare), str(pusher))
    git(pusher, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "-f", str(source), "okf")
    git(pusher, "commit", "-q", "-m", "the knowledge folder as a submodule")
    git(pusher, "push", "-q", "origin", "main")
    bob = tmp_path / "bob"
    git(tmp_path, "-c", "protocol.file.allow=always", "clone", "-q", "--recurse-submodules", str(bare), str(bob))
    assert _config(bob)["writer"] == "w00a11ce00001"
    _refused(bob, "status")
    cli.ok("init", cwd=bob)
    assert "dream" not in _config(bob) and _config(bob)["writer"] != "w00a11ce00001"
    assert not marker.exists()


def test_a_config_a_patch_brings_before_init_is_replaced_by_init(team: tuple[Path, Path], tmp_path: Path) -> None:
    """``git apply`` writes no object, so git cannot say the file came through it; but this
    clone never ran init, and its git folder says so."""
    bare, alice = team
    marker = tmp_path / "labeler-ran"
    program = f"touch {marker}; cat >/dev/null; echo '{{\"labels\": []}}'"
    data = {"writer": "w00a11ce00001", "provider": "git",
            "dream": {"labeler": "command", "labelers": {"command": {"argv": ["sh", "-c", program]}}}}
    work = tmp_path / "patching"
    git(tmp_path, "init", "-q", "-b", "main", str(work))
    (work / CONFIG).parent.mkdir(parents=True)
    (work / CONFIG).write_text(json.dumps(data, indent=2) + "\n")
    git(work, "add", "-f", "-N", ".")
    (tmp_path / "config.patch").write_text(git(work, "diff"))
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(bare), str(bob))
    git(bob, "apply", str(tmp_path / "config.patch"))
    for args in (("status",), ("dream",)):
        done = cli.gitstore(*args, cwd=bob)
        assert done.returncode == 1 and done.stderr.count("\n") == 1, done
        assert "never ran `gitstore init`" in done.stderr, done
    assert not marker.exists()
    assert {c.name: c for c in doctor(bob).checks}["init"].todo == "gitstore init"
    said = cli.ok("init", cwd=bob)
    assert "before this clone ever ran `gitstore init`" in said and "dream settings, not kept" in said
    assert "dream" not in _config(bob) and _config(bob)["writer"] != "w00a11ce00001"
    cli.ok("status", cwd=bob)


def test_a_patch_that_adds_a_labeler_to_a_set_up_clone_is_named_and_not_run(team: tuple[Path, Path],
                                                                            tmp_path: Path) -> None:
    """The clone was set up, so the edited file is taken as a person's edit would be; but what
    runs a program is not taken from it until init does, and doctor names the change."""
    _, alice = team
    marker = tmp_path / "labeler-ran"
    program = f"touch {marker}; cat >/dev/null; echo '{{\"labels\": []}}'"
    work = tmp_path / "patching"
    git(tmp_path, "init", "-q", "-b", "main", str(work))
    (work / CONFIG).parent.mkdir(parents=True)
    (work / CONFIG).write_bytes((alice / CONFIG).read_bytes())
    git(work, "add", "-f", ".")
    git(work, "commit", "-q", "-m", "as alice has it")
    edited = {**_config(alice), "dream": {"labeler": "command",
                                          "labelers": {"command": {"argv": ["sh", "-c", program], "timeout": 5}}}}
    (work / CONFIG).write_text(json.dumps(edited, indent=2) + "\n")
    (tmp_path / "labeler.patch").write_text(git(work, "diff"))
    git(alice, "apply", str(tmp_path / "labeler.patch"))
    done = cli.gitstore("dream", cwd=alice)
    assert done.returncode != 0 and "dream.labeler, dream.labelers changed since" in done.stdout + done.stderr, done
    assert not marker.exists()
    check = [c for c in doctor(alice).checks if c.name == "config"]
    assert len(check) == 1 and "dream.labeler" in check[0].detail and "gitstore init" in check[0].todo
    refused = cli.fails(1, "init", cwd=alice)  # init names the change, and takes it only when told
    assert "dream.labeler, dream.labelers changed since" in refused and "--accept-changes" in refused, refused
    cli.ok("init", "--accept-changes", cwd=alice)  # a person who made the change takes it
    assert not [c for c in doctor(alice).checks if c.name == "config"]
    again = cli.gitstore("dream", cwd=alice)
    assert "changed since" not in again.stdout + again.stderr, again


def test_a_patch_naming_a_known_writer_in_a_new_work_tree_runs_no_labeler_and_accepts_nothing(
        team: tuple[Path, Path], tmp_path: Path) -> None:
    """A work tree made for an agent (``git worktree add``) where init never ran: a patch that
    writes a config.json naming the main work tree's writer id (no secret: it names memory's
    refs on the remote) is taken as that writer's, but its settings are judged against the copy
    init kept for that writer, so its labeler is not run and its automation accepts nothing."""
    _, alice = team
    marker = tmp_path / "labeler-ran"
    program = f"touch {marker}; cat >/dev/null; echo '{{\"labels\": []}}'"
    agent = tmp_path / "agent1"
    git(alice, "worktree", "add", "-q", str(agent))
    planted = {"writer": _config(alice)["writer"], "provider": "git",
               "automation": {"autoSafe": True, "kinds": ["convention"], "minEvidence": "verified-command"},
               "dream": {"labeler": "command", "labelers": {"command": {"argv": ["sh", "-c", program], "timeout": 5}}}}
    (agent / CONFIG).parent.mkdir(parents=True, exist_ok=True)
    (agent / CONFIG).write_text(json.dumps(planted) + "\n")
    for _ in range(2):  # and on every command after: nothing records the file as this tree's own
        done = cli.gitstore("dream", cwd=agent)
        assert "changed since" in done.stdout + done.stderr and not marker.exists(), done
    from gitstore.context import Context
    from gitstore.ops.learning import _automation

    assert not _automation(Context.open(agent)).enabled
    check = [c for c in doctor(agent).checks if c.name == "config"]
    assert len(check) == 1 and "dream.labeler" in check[0].detail and "automation" in check[0].detail, check


def test_a_patched_config_copied_into_a_linked_work_tree_is_judged_by_the_copy_init_kept(
        team: tuple[Path, Path], tmp_path: Path) -> None:
    """A patch adds a labeler and automation to the main work tree's config.json: a command
    there records the bytes as that tree's own, but its copy from init still judges them. A tool
    that makes a work tree per agent (``git worktree add``) copies the file along: the linked
    tree judges the bytes against the main tree's copy, never takes them as its accepted copy,
    and runs no labeler and accepts nothing until `gitstore init --accept-changes` runs there."""
    _, alice = team
    marker = tmp_path / "labeler-ran"
    program = f"touch {marker}; cat >/dev/null; echo '{{\"labels\": []}}'"
    patched = {**_config(alice), "automation": {"autoSafe": True, "kinds": ["convention"],
                                                "minEvidence": "verified-command"},
               "dream": {"labeler": "command", "labelers": {"command": {"argv": ["sh", "-c", program], "timeout": 5}}}}
    (alice / CONFIG).write_text(json.dumps(patched, indent=2) + "\n")
    cli.ok("status", cwd=alice)  # records the bytes as the main tree's own
    agent = tmp_path / "agent1"
    git(alice, "worktree", "add", "-q", str(agent))
    (agent / CONFIG).parent.mkdir(parents=True, exist_ok=True)
    (agent / CONFIG).write_bytes((alice / CONFIG).read_bytes())
    for _ in range(2):  # and on every command after
        done = cli.gitstore("dream", cwd=agent)
        assert "dream.labeler, dream.labelers changed since" in done.stdout + done.stderr and not marker.exists(), done
    from gitstore.context import Context
    from gitstore.ops.learning import _automation

    assert not _automation(Context.open(agent)).enabled
    check = [c for c in doctor(agent).checks if c.name == "config"]
    assert len(check) == 1 and "dream.labeler" in check[0].detail and "automation" in check[0].detail, check
    refused = cli.fails(1, "init", cwd=agent)
    assert "automation" in refused and "dream.labeler" in refused and "--accept-changes" in refused, refused
    assert {c.name: c for c in doctor(alice).checks}["init"].state == "ok"  # the main tree is untouched
    cli.ok("init", "--accept-changes", cwd=agent)  # a person who read it takes it, in that tree
    assert not [c for c in doctor(agent).checks if c.name == "config"]
    assert _automation(Context.open(agent)).enabled
    assert [c for c in doctor(alice).checks if c.name == "config"]  # still refused in the main tree


def test_a_linked_work_tree_takes_the_copy_init_accepted_for_the_main_one(team: tuple[Path, Path],
                                                                          tmp_path: Path) -> None:
    """Copied along unchanged, the main tree's accepted config.json is the linked tree's."""
    _, alice = team
    agent = tmp_path / "agent1"
    git(alice, "worktree", "add", "-q", str(agent))
    (agent / CONFIG).parent.mkdir(parents=True, exist_ok=True)
    (agent / CONFIG).write_bytes((alice / CONFIG).read_bytes())
    cli.ok("status", cwd=agent)
    assert not [c for c in doctor(agent).checks if c.name == "config"]
    cli.ok("init", cwd=agent)


def test_plain_init_in_a_linked_work_tree_takes_no_labeler_no_copy_was_kept_for(team: tuple[Path, Path],
                                                                               tmp_path: Path) -> None:
    """The main work tree left its writer id (``init --new-writer``), so no copy is kept for
    that id: a config.json naming it with a labeler in a linked work tree has init name the
    labeler and take it only with ``--accept-changes``."""
    _, alice = team
    old = _config(alice)["writer"]
    agent = tmp_path / "agent1"
    git(alice, "worktree", "add", "-q", str(agent))
    cli.ok("init", "--new-writer", cwd=alice)
    planted = {"writer": old, "provider": "git",
               "dream": {"labeler": "command", "labelers": {"command": {"argv": ["my-labeler"]}}}}
    (agent / CONFIG).parent.mkdir(parents=True, exist_ok=True)
    (agent / CONFIG).write_text(json.dumps(planted) + "\n")
    refused = cli.fails(1, "init", cwd=agent)
    assert "dream.labeler, dream.labelers changed since" in refused and "writer" not in refused.split(" changed")[0]
    assert "accepted dream.labelers" in cli.ok("init", "--accept-changes", cwd=agent)


def test_a_config_a_patch_creates_in_a_main_tree_init_never_ran_in_runs_nothing(tmp_path: Path) -> None:
    """Init ran in an agent's linked work tree alone: the scope and memory's refspecs it keeps
    are in the git folder every work tree shares, so the main tree looked set up before copies
    of the configuration were kept, and took whatever config.json a patch wrote there as
    accepted, its labeler run by the next dream. It is judged as any config.json no init took."""
    bare = shared_remote(tmp_path)
    main = tmp_path / "main"
    git(tmp_path, "clone", "-q", str(bare), str(main))
    (main / "README.md").write_text("# widgets\n")
    git(main, "add", "-A")
    git(main, "commit", "-q", "-m", "root")
    git(main, "push", "-q", "origin", "HEAD:main")
    agent = tmp_path / "agent"
    git(main, "worktree", "add", "-q", str(agent))
    cli.ok("init", cwd=agent)
    marker = tmp_path / "labeler-ran"
    program = f"touch {marker}; cat >/dev/null; echo '{{\"labels\": []}}'"
    planted = {"writer": "w0123456789ab", "provider": "git",
               "dream": {"labeler": "command", "labelers": {"command": {"argv": ["sh", "-c", program], "timeout": 5}}}}
    (main / CONFIG).parent.mkdir(parents=True, exist_ok=True)
    (main / CONFIG).write_text(json.dumps(planted) + "\n")
    for command in (("doctor",), ("dream",), ("dream",)):
        done = cli.gitstore(*command, cwd=main)
        assert done.returncode != 0 and not marker.exists(), (command, done)
    assert not (main / ".git" / "gitstore" / "config.json").exists(), "no copy kept: nothing was accepted"
