"""What runs unasked, on a schedule or from a hook, is what init took: a patch (``git apply``
writes the ignored config.json and leaves git no trace) that changes the ``loop`` section (its
steps' folders, remotes and repositories, and ``loop.by``, whom they act as), the ``capture``
mode or the dream's consolidators is refused by ``gitstore tick``, capture and dream, and
named by a plain ``gitstore init``, until ``gitstore init --accept-changes`` takes the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gitstore.config import STATE_DIR

from . import cli
from .advice import checks
from .conftest import git
from .team import commit_all, first_clone, shared_remote
from .test_config_setup_gate import _apply, _config

CONFIG = STATE_DIR / "config.json"
LOOP = {"by": "git:ceo@example.com", "steps": {"reviews": {"every": "1m", "folder": "docs/fixtures"}}}


def _loop_state(root: Path) -> Path:
    return root / STATE_DIR / "loop" / "state.json"


def _refused(done: object, *fields: str) -> None:
    stderr = getattr(done, "stderr")
    assert getattr(done, "returncode") == 1 and stderr.count("\n") == 1 and "Traceback" not in stderr, done
    assert f"{', '.join(fields)} changed since" in stderr and "gitstore init --accept-changes" in stderr, stderr


def test_a_patched_loop_runs_nothing_and_a_plain_init_names_it_until_accepted(tmp_path: Path) -> None:
    alice = first_clone(tmp_path, shared_remote(tmp_path))
    (alice / "docs" / "fixtures").mkdir(parents=True)
    (alice / "docs" / "fixtures" / "snapshot.json").write_text("[]\n")
    commit_all(alice, "test fixtures")
    _apply(alice, tmp_path, {**_config(alice), "loop": LOOP}, old=(alice / CONFIG).read_bytes())
    _refused(cli.gitstore("tick", "--force", cwd=alice), "loop.by", "loop.steps")
    _refused(cli.gitstore("tick", "reviews", cwd=alice), "loop.by", "loop.steps")
    assert not _loop_state(alice).exists()  # no step ran, none was recorded
    refused = cli.fails(1, "init", cwd=alice)
    assert "loop.by, loop.steps changed since" in refused and 'loop.by = "git:ceo@example.com"' in refused, refused
    _refused(cli.gitstore("tick", "--force", cwd=alice), "loop.by", "loop.steps")  # the refused init took nothing
    said = cli.ok("init", "--accept-changes", cwd=alice)
    assert 'accepted loop.by = "git:ceo@example.com"' in said, said
    ran = cli.gitstore("tick", "--force", cwd=alice)
    assert ran.stdout.startswith("reviews ") and "changed since" not in ran.stderr, ran
    assert "reviews" in json.loads(_loop_state(alice).read_text())["steps"]


def test_a_patched_capture_mode_or_consolidator_is_refused_and_named_by_init(tmp_path: Path) -> None:
    alice = first_clone(tmp_path, shared_remote(tmp_path))
    mine = (alice / CONFIG).read_bytes()
    _apply(alice, tmp_path, {**_config(alice), "capture": {"mode": "transcript"},
                             "dream": {"consolidators": {"recurrence": {"minPeople": 1}}}}, old=mine)
    hook = json.dumps({"session_id": "s1", "transcript_path": "/nonexistent/x.jsonl", "hook_event_name": "SessionEnd"})
    _refused(cli.gitstore("capture", "--harness", "claude-code", cwd=alice, stdin=hook), "capture.mode")
    dream = cli.gitstore("dream", cwd=alice)
    assert dream.returncode != 0 and "dream.consolidators changed since" in dream.stderr, dream
    assert "gitstore init --accept-changes" in dream.stderr and "Traceback" not in dream.stderr
    refused = cli.fails(1, "init", cwd=alice)
    assert "capture.mode, dream.consolidators changed since" in refused, refused
    cli.ok("init", "--accept-changes", cwd=alice)
    done = cli.gitstore("capture", "--harness", "claude-code", cwd=alice, stdin=hook)
    assert "changed since" not in done.stderr, done
    assert "changed since" not in cli.gitstore("dream", cwd=alice).stderr


def test_a_linked_work_tree_given_a_patched_copy_runs_no_loop(tmp_path: Path) -> None:
    """A tool that makes a work tree per agent copies the main one's ignored config.json along:
    one a patch changed there runs the patch's loop in neither tree."""
    alice = first_clone(tmp_path, shared_remote(tmp_path))
    (alice / CONFIG).write_text(json.dumps({**_config(alice), "loop": LOOP}, indent=2) + "\n")  # the patch
    agent = tmp_path / "agent"
    git(alice, "worktree", "add", "-q", str(agent))
    (agent / STATE_DIR).mkdir(parents=True)
    (agent / CONFIG).write_bytes((alice / CONFIG).read_bytes())
    _refused(cli.gitstore("tick", "--force", cwd=agent), "loop.by", "loop.steps")
    _refused(cli.gitstore("tick", "--force", cwd=alice), "loop.by", "loop.steps")
    assert not _loop_state(agent).exists() and not _loop_state(alice).exists()


def test_status_names_what_waits_for_acceptance_and_shows_what_is_in_force(tmp_path: Path) -> None:
    """``gitstore status`` never shows a patched loop, capture mode, consolidator or automation
    as in force: one line names the changed fields and the command that takes them, --json
    lists them, and each section shows what runs meanwhile (nothing of theirs)."""
    alice = first_clone(tmp_path, shared_remote(tmp_path))
    _apply(alice, tmp_path, {**_config(alice), "loop": LOOP, "capture": {"mode": "transcript"},
                             "automation": {"autoSafe": True},
                             "dream": {"consolidators": {"recurrence": {"minPeople": 1}}}},
           old=(alice / CONFIG).read_bytes())
    waiting = ["automation.autoSafe", "capture.mode", "dream.consolidators", "loop.by", "loop.steps"]
    info = json.loads(cli.ok("status", "--json", cwd=alice))
    assert info["unaccepted"] == waiting, info["unaccepted"]
    config = info["config"]
    assert config["capture"]["value"] is None and "capture.mode changed since" in config["capture"]["problem"]
    assert config["automation"]["autoSafe"] is False and config["automation"]["disabledBecause"]
    assert "dream.consolidators changed since" in config["dream"]["problem"] and "consolidator" not in config["dream"]
    assert info["loop"]["steps"] == [] and "loop.by, loop.steps changed since" in info["loop"]["problem"]
    text = cli.ok("status", cwd=alice)
    [line] = [line for line in text.splitlines() if line.startswith("waiting ")]
    assert ", ".join(waiting) in line and "`gitstore init --accept-changes`" in line, text
    assert "capture.mode = transcript" not in text and "automation.autoSafe = on" not in text, text
    assert "reviews " not in text and "recurrence" not in text, text
    cli.ok("init", "--accept-changes", cwd=alice)
    info = json.loads(cli.ok("status", "--json", cwd=alice))
    assert info["unaccepted"] == [] and info["config"]["capture"]["value"] == "transcript"
    assert info["config"]["automation"]["autoSafe"] is True and info["config"]["dream"]["problem"] is None
    assert [step["step"] for step in info["loop"]["steps"]] == ["reviews"]
    text = cli.ok("status", cwd=alice)
    assert "waiting " not in text and "capture.mode = transcript" in text and "automation.autoSafe = on" in text


def test_a_hook_capture_refused_for_a_changed_mode_logs_the_fields_and_the_command(tmp_path: Path) -> None:
    """A harness hook never shows its failure to the agent: the line it logs names what changed
    and the command that takes it, as doctor does, not only that a rule refused it."""
    alice = first_clone(tmp_path, shared_remote(tmp_path))
    _apply(alice, tmp_path, {**_config(alice), "capture": {"mode": "transcript"}}, old=(alice / CONFIG).read_bytes())
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITSTORE_HOOK")}
    env.update(PYTHONPATH=str(Path(__file__).resolve().parent.parent), GITSTORE_HOOK_INLINE="1")
    payload = json.dumps({"session_id": "s1", "transcript_path": str(tmp_path / "none.jsonl"),
                          "hook_event_name": "SessionEnd", "cwd": str(alice)})
    done = subprocess.run([sys.executable, "-m", "gitstore.capture.agent_hook", "claude-code"], input=payload,
                          text=True, capture_output=True, cwd=alice, env=env, timeout=60)
    assert done.returncode == 0 and done.stdout == "", done
    [line] = (alice / STATE_DIR / "logs" / "hooks.log").read_text().splitlines()
    assert "capture.mode changed in okf/.memory/config.json" in line, line
    assert "`gitstore init --accept-changes` takes the file" in line and "kept for a retry" in line, line


def test_a_damaged_copy_of_what_init_took_accepts_nothing_and_status_and_doctor_name_it(tmp_path: Path) -> None:
    """The copy init keeps in the git folder is what a patch's change is judged against; when it
    cannot be read (not JSON, or no object), no setting of config.json counts as taken: a patched
    capture mode is refused until init takes the file, and status and doctor name the copy."""
    alice = first_clone(tmp_path, shared_remote(tmp_path))
    kept = Path(git(alice, "rev-parse", "--absolute-git-dir").strip()) / "gitstore" / "config.json"
    hook = json.dumps({"session_id": "s1", "transcript_path": "/nonexistent/x.jsonl", "hook_event_name": "SessionEnd"})
    mine = (alice / CONFIG).read_bytes()
    _apply(alice, tmp_path, {**_config(alice), "capture": {"mode": "transcript"}}, old=mine)
    for damage in (b"{not json", b"[]\n"):
        kept.write_bytes(damage)
        _refused(cli.gitstore("capture", "--harness", "claude-code", cwd=alice, stdin=hook), "capture.mode")
        info = json.loads(cli.ok("status", "--json", cwd=alice))
        assert info["damagedCopy"] == str(kept) and "capture.mode" in info["unaccepted"], info
        assert info["config"]["capture"]["value"] is None, info["config"]
        assert any(line.startswith("damaged ") and str(kept) in line for line in cli.ok("status", cwd=alice).splitlines())
        [check] = checks(alice, "config")
        assert check["state"] == "warn" and str(kept) in check["detail"], check
        assert kept.read_bytes() == damage  # nothing mended it unasked
    cli.ok("init", "--accept-changes", cwd=alice)
    assert json.loads(kept.read_bytes())["capture"] == {"mode": "transcript"}
    assert json.loads(cli.ok("status", "--json", cwd=alice))["damagedCopy"] is None


def test_init_never_accepts_a_loop_or_dream_section_its_command_refuses(tmp_path: Path) -> None:
    """A person's edit naming a step no tick runs (``imports``) or a dream field no dream reads:
    init refuses to take it, naming the problem, rather than reporting it accepted and leaving
    every later tick or dream to fail; fixed, it is taken."""
    alice = first_clone(tmp_path, shared_remote(tmp_path))
    base = _config(alice)
    for section, said in (({"loop": {"steps": {"imports": {}}}}, "loop.steps has an unknown step 'imports'"),
                          ({"dream": {"labellers": {}}}, "dream"),
                          ({"loop": {"by": "bot:x", "steps": {"dream": {}}}}, "loop.by 'bot:x' names a bot")):
        edited = {**base, **section}
        (alice / CONFIG).write_text(json.dumps(edited))
        refused = cli.fails(1, "init", "--accept-changes", cwd=alice)
        assert said in refused and "accepted" not in refused and refused.count("\n") == 1, refused
    (alice / CONFIG).write_text(json.dumps({**base, "loop": {"steps": {"dream": {"every": "1d"}}}}))
    assert "accepted loop.steps" in cli.ok("init", "--accept-changes", cwd=alice)
    ran = cli.gitstore("tick", cwd=alice)
    assert ran.returncode == 0 and ran.stdout.startswith("dream "), ran
