"""The installed hook command, run for real: exit 0, nothing on standard output, quick, logged.

``GITSTORE_HOOK_TARGET`` points the hook at stand-ins in ``tests/hook_targets.py`` (a recorder, a
function that raises, one that hangs, a module that does not exist), so these tests do not
depend on the capture library.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

from gitstore.capture.harnesses import HARNESSES
from gitstore.capture.install import install

from .conftest import ROOT

CLAUDE_PAYLOAD = {"session_id": "abc123", "transcript_path": "/tmp/abc123.jsonl", "cwd": "",
                  "hook_event_name": "SessionEnd", "reason": "exit"}
SECRET = "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"


@pytest.fixture
def env(tmp_path: Path, repo: Path) -> dict[str, str]:
    """The environment a harness would give the hook, with the recorder as capture target."""
    values = {k: v for k, v in os.environ.items() if not k.startswith("GITSTORE_")}
    values.update(PYTHONPATH=str(ROOT), GITSTORE_HOOK_TARGET="tests.hook_targets:record", GITSTORE_HOOK_INLINE="1",
                  GITSTORE_TEST_RECORD=str(tmp_path / "record.jsonl"), TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return values


def payload(repo: Path, **extra: Any) -> bytes:
    return json.dumps({**CLAUDE_PAYLOAD, "cwd": str(repo), **extra}).encode()


def read_of(data: bytes) -> dict[str, Any]:
    """What capture reads of a payload of ours, all the job keeps: all but its ``reason``."""
    return {key: value for key, value in json.loads(data).items() if key != "reason"}


def calls(env: dict[str, str]) -> list[dict[str, Any]]:
    path = Path(env["GITSTORE_TEST_RECORD"])
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def hook(argv: list[str], env: dict[str, str], cwd: Path, stdin: bytes | None = None,
         shell: bool = False) -> tuple[subprocess.CompletedProcess[bytes], float]:
    start = time.monotonic()
    done = subprocess.run(argv[0] if shell else argv, input=stdin, capture_output=True, env=env, cwd=cwd,
                          shell=shell, timeout=60, stdin=None if stdin is not None else subprocess.DEVNULL)
    return done, time.monotonic() - start


def direct(harness: str, *extra: str) -> list[str]:
    return [sys.executable, "-P", "-m", "gitstore.capture.agent_hook", harness, *extra]


def log_lines(repo: Path) -> list[str]:
    path = repo / "okf" / ".memory" / "logs" / "hooks.log"
    return path.read_text().splitlines() if path.exists() else []


@pytest.fixture
def state(repo: Path) -> Path:
    """The gitstore state folder, so the hook logs into the repository, in a clone set up as
    ``gitstore init`` sets one up: its git folder keeps ``gitstore/`` (a state folder in a clone
    init never ran in came with the repository, and the hook writes nothing there)."""
    folder = repo / "okf" / ".memory"
    folder.mkdir(parents=True)
    (repo / ".git" / "gitstore").mkdir()
    return folder


# -- the installed commands, run as each harness runs them ----------------------------------

def installed_shell_command(harness: str, repo: Path) -> str:
    home = Path(os.environ["HOME"])
    install(harness, "project", repo, home)
    path = HARNESSES[harness].path("project", repo, home)
    if harness == "codex":
        groups = tomllib.loads(path.read_text())["hooks"]["Stop"]
    else:
        groups = json.loads(path.read_text())["hooks"]["SessionEnd"]
    return groups[-1]["hooks"][0]["command"]


@pytest.mark.parametrize("harness", ["claude-code", "gemini-cli", "codex"])
def test_the_installed_command_hands_the_payload_to_capture(harness: str, repo: Path,
                                                            env: dict[str, str]) -> None:
    command = installed_shell_command(harness, repo)
    done, _ = hook([command], env, repo, payload(repo), shell=True)
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""
    assert calls(env) == [{"harness": harness, "payload": read_of(payload(repo)), "cwd": str(repo)}]


def test_codex_notify_passes_the_payload_as_an_argument(repo: Path, env: dict[str, str]) -> None:
    home = Path(os.environ["HOME"])
    install("codex-notify", "user", repo, home)
    argv = tomllib.loads((home / ".codex" / "config.toml").read_text())["notify"]
    turn = {"type": "agent-turn-complete", "thread-id": "t1", "turn-id": "7", "cwd": str(repo),
            "input-messages": ["rename foo"], "last-assistant-message": "done"}
    done, _ = hook([*argv, json.dumps(turn)], env, repo)
    assert done.returncode == 0 and done.stdout == b""
    # capture reads the thread, the event and the folder: the messages are left out of the job
    capture_reads = {key: turn[key] for key in ("type", "thread-id", "cwd")}
    assert calls(env) == [{"harness": "codex", "payload": capture_reads, "cwd": str(repo)}]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_opencode_plugin_spawns_the_hook_without_waiting(repo: Path, env: dict[str, str],
                                                             tmp_path: Path) -> None:
    install("opencode", "project", repo, Path(os.environ["HOME"]))
    plugin = tmp_path / "plugin.mjs"  # node needs .mjs for ES modules outside a package
    plugin.write_text((repo / ".opencode" / "plugins" / "gitstore.js").read_text())
    runner = tmp_path / "run.mjs"
    runner.write_text(
        "const { Gitstore } = await import(process.argv[2])\n"
        "const hooks = await Gitstore({ directory: process.argv[3], worktree: process.argv[3] })\n"
        "await hooks.event({ event: { type: 'message.updated', properties: {} } })\n"
        "await hooks.event({ event: { type: 'session.idle', properties: { sessionID: 'ses_1' } } })\n"
    )
    done = subprocess.run(["node", str(runner), str(plugin), str(repo)], env=env, capture_output=True,
                          timeout=30)
    assert done.returncode == 0 and done.stdout == b"", done.stderr
    deadline = time.monotonic() + 15
    while not calls(env) and time.monotonic() < deadline:
        time.sleep(0.1)
    # the plugin also passes the whole event object, nested, and the worktree: capture reads neither
    assert calls(env) == [{"harness": "opencode", "cwd": str(repo),
                           "payload": {"hook_event_name": "session.idle", "session_id": "ses_1", "cwd": str(repo)}}]


@pytest.mark.parametrize("script", ["claude-code.sh", "gemini-cli.sh", "codex.sh"])
def test_the_adapter_scripts_in_hooks_do_the_same(script: str, repo: Path, env: dict[str, str]) -> None:
    done, _ = hook([str(ROOT / "hooks" / script)], {**env, "GITSTORE_PYTHON": sys.executable}, repo,
                   payload(repo))
    assert done.returncode == 0 and done.stdout == b""
    assert calls(env)[0]["harness"] == script.removesuffix(".sh")
    broken, _ = hook([str(ROOT / "hooks" / script)], {**env, "GITSTORE_PYTHON": "/nonexistent/python"},
                     repo, payload(repo))
    assert broken.returncode == 0 and broken.stdout == b""


# -- never blocking, never breaking ----------------------------------------------------------

def test_a_failure_is_placed_at_gitstore_s_own_line_whatever_the_folder_is_named() -> None:
    """A checkout, a virtual environment or a test folder under a folder named ``gitstore``
    holds files whose paths hold ``/gitstore/``: none of them is gitstore's own line."""
    from gitstore.capture.hooklog import failure

    outside = compile("raise RuntimeError('quoted text')", "/home/dev/gitstore/tests/hook_targets.py", "exec")
    try:
        exec(outside)
    except RuntimeError as exc:
        said = failure(exc)
    assert said == "RuntimeError", said


def test_a_failing_capture_is_logged_in_one_line(repo: Path, env: dict[str, str], state: Path) -> None:
    done, _ = hook(direct("claude-code"), {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:explode"},
                   repo, payload(repo))
    assert done.returncode == 0 and done.stdout == b""
    [line] = log_lines(repo)
    assert re.search(r"claude-code capture failed: RuntimeError at agent_hook.py:\d+; kept for a retry$", line), line
    [kept] = list((state / "inbox").glob("hook-*.json"))  # a full disk passes: the next hook's run retries it
    assert json.loads(kept.read_text())["attempts"] == 1
    other = payload(repo, session_id="other")
    hook(direct("claude-code"), {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:explode"}, repo, other)
    assert len(list((state / "inbox").glob("hook-*.json"))) == 2, "each run retries the jobs left before it"
    assert {json.loads(p.read_text())["attempts"] for p in (state / "inbox").glob("hook-*.json")} == {1, 2}
    hook(direct("claude-code"), {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:explode"}, repo, payload(repo))
    # the same session's job takes over the one left before, with its attempts
    assert sorted(json.loads(p.read_text())["attempts"] for p in (state / "inbox").glob("hook-*.json")) == [2, 3]
    hook(direct("claude-code"), {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:explode"}, repo, payload(repo))
    assert len(list((state / "inbox").glob("failed-hook-*.json"))) == 1, "set aside after its last attempt, never lost"
    [aside] = [line for line in log_lines(repo) if "gave up after 3 attempts" in line]
    assert "session abc123" in aside and "`gitstore import transcript /tmp/abc123.jsonl`" in aside, aside
    [kept] = list((state / "inbox").glob("hook-*.json"))
    assert json.loads(kept.read_text())["payload"]["session_id"] == "other"


def test_a_job_being_written_is_never_taken_for_a_waiting_one(repo: Path, env: dict[str, str], state: Path) -> None:
    """A hook writes its job under a name no run takes, then renames it: a run retrying waiting
    jobs read one half written, failed to parse it and deleted it, losing that session."""
    inbox = state / "inbox"
    inbox.mkdir(parents=True, exist_ok=True)
    partial = inbox / ".hook-claude-code-0123456789abcdef.json.partial"
    partial.write_text('{"harness": "claude-code", "payload": {"session_id": "s2", "pad": "')  # its hook still writing
    done, _ = hook(direct("claude-code"), env, repo, payload(repo))
    assert done.returncode == 0 and len(calls(env)) == 1
    assert partial.exists() and log_lines(repo) == [], "left to the hook writing it"
    assert not list(inbox.glob("hook-*.json")), "the job was renamed into place, then captured"


def test_a_job_is_written_whole_before_it_has_a_job_s_name(repo: Path, state: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from gitstore.capture import agent_hook

    renamed: list[tuple[str, str, bytes]] = []
    real = os.rename

    def rename(source: str, target: str) -> None:
        renamed.append((os.path.basename(source), os.path.basename(target), Path(source).read_bytes()))
        real(source, target)

    monkeypatch.setattr(os, "rename", rename)
    spool = agent_hook._spool("claude-code", {"session_id": "s1"}, str(repo))
    [(source, target, data)] = renamed
    assert not source.startswith(agent_hook.SPOOL_PREFIX) and target == os.path.basename(spool)
    assert target.startswith(agent_hook.SPOOL_PREFIX) and json.loads(data)["payload"] == {"session_id": "s1"}


def test_a_missing_capture_library_is_logged(repo: Path, env: dict[str, str], state: Path) -> None:
    done, _ = hook(direct("gemini-cli"), {**env, "GITSTORE_HOOK_TARGET": "tests.no_such_module:capture"},
                   repo, payload(repo))
    assert done.returncode == 0 and done.stdout == b""
    [line] = log_lines(repo)
    assert "capture unavailable: ModuleNotFoundError: No module named 'tests.no_such_module'" in line


def test_a_hanging_capture_is_abandoned_at_the_time_limit(repo: Path, env: dict[str, str], state: Path) -> None:
    slow = {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:hang", "GITSTORE_HOOK_TIMEOUT": "1"}
    done, _ = hook(direct("claude-code"), slow, repo, payload(repo))  # the target sleeps a minute
    assert done.returncode == 0 and done.stdout == b""
    assert log_lines(repo)[0].endswith("capture took longer than 1 s; abandoned, kept for a retry")
    assert len(list((state / "inbox").glob("hook-*.json"))) == 1


def test_a_job_keeps_only_what_capture_reads_of_the_payload(repo: Path, env: dict[str, str], state: Path) -> None:
    """A job may wait in the inbox for runs to come: the free text a payload carries beside the
    session, event, transcript, folder and version (Codex's last assistant message, with
    whatever secret it holds) is no part of it, since capture reads none of it."""
    slow = {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:hang", "GITSTORE_HOOK_TIMEOUT": "1"}
    turn = {"session_id": "s1", "transcript_path": "/tmp/rollout-s1.jsonl", "cwd": str(repo), "hook_event_name": "Stop",
            "turn_id": "t2", "stop_hook_active": False, "model": "gpt-5",
            "last_assistant_message": f"Pushed with GITHUB_TOKEN={SECRET}"}
    done, _ = hook(direct("codex"), slow, repo, json.dumps(turn).encode())
    assert done.returncode == 0 and done.stdout == b""
    [kept] = (state / "inbox").glob("hook-*.json")
    read = ("session_id", "transcript_path", "cwd", "hook_event_name")
    assert json.loads(kept.read_text())["payload"] == {key: turn[key] for key in read}
    assert SECRET.encode() not in kept.read_bytes()


@pytest.mark.parametrize("harness", ["claude-code", "codex", "gemini-cli", "opencode"])
def test_capture_reads_of_a_job_all_it_reads_of_the_payload(harness: str, tmp_path: Path) -> None:
    from gitstore.capture.hookfields import kept
    from gitstore.capture.hookinput import HookInput

    for given in ({"session_id": "s1", "transcript_path": str(tmp_path / "t.jsonl"), "cwd": str(tmp_path),
                   "hook_event_name": "SessionEnd", "version": "2.1.0", "prompt": "p", "reason": "exit"},
                  {"type": "agent-turn-complete", "thread-id": "t1", "turn-id": "7", "cwd": str(tmp_path),
                   "input-messages": ["rename foo"], "last-assistant-message": "done"},
                  {"sessionId": " s2 ", "transcriptPath": "~/t.json", "event": "PreCompress", "harness_version": "1",
                   "session_id": 7, "cwd": None, "timestamp": "2026-01-01T00:00:00Z"}):
        assert HookInput.from_payload(harness, kept(given), "/") == HookInput.from_payload(harness, given, "/")


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc to find the timeout's process")
def test_a_session_whose_capture_keeps_timing_out_is_tried_three_times_in_all(repo: Path, env: dict[str, str],
                                                                                state: Path) -> None:
    """Codex runs its hook every turn. A run's job takes over the jobs earlier runs left for
    the same session (a capture reads the transcript as it is by then) with their attempts, so
    the session is tried MAX_ATTEMPTS times in all, then set aside: later turns neither read
    it again nor leave a job each."""
    from gitstore.capture import agent_hook

    slow = {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:record_then_hang", "GITSTORE_HOOK_TIMEOUT": "1",
            "GITSTORE_TEST_HANG": "abc123"}
    inbox = state / "inbox"
    for _ in range(5):
        done, _ = hook(direct("codex"), slow, repo, payload(repo, hook_event_name="Stop"))
        assert done.returncode == 0 and done.stdout == b""
        assert _wait_for(lambda: not _running_with(str(inbox))), "the timeout's receipt is written"
    assert len(calls(slow)) == agent_hook.MAX_ATTEMPTS, log_lines(repo)
    assert not list(inbox.glob("hook-*.json")) and len(list(inbox.glob("failed-hook-*.json"))) == 1
    log = log_lines(repo)
    assert sum(line.endswith("abandoned, kept for a retry") for line in log) == agent_hook.MAX_ATTEMPTS
    assert f"capture gave up after {agent_hook.MAX_ATTEMPTS} attempts" in log[-2]
    assert "not captured: capture of this session gave up" in log[-1] and "gitstore import transcript" in log[-1]


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc to find the timeout's process")
def test_a_run_whose_own_capture_times_out_still_retries_the_jobs_waiting(repo: Path, env: dict[str, str],
                                                                           state: Path) -> None:
    slow = {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:record_then_hang", "GITSTORE_HOOK_TIMEOUT": "1"}
    inbox = state / "inbox"
    hook(direct("claude-code"), {**slow, "GITSTORE_TEST_HANG": "waiting"}, repo, payload(repo, session_id="waiting"))
    assert _wait_for(lambda: not _running_with(str(inbox)))
    hook(direct("claude-code"), {**slow, "GITSTORE_TEST_HANG": "slow"}, repo, payload(repo, session_id="slow"))

    def sessions() -> list[str]:
        return [c["payload"]["session_id"] for c in calls(slow)]

    assert _wait_for(lambda: sessions() == ["waiting", "slow", "waiting"]), (sessions(), log_lines(repo))
    assert _wait_for(lambda: [json.loads(p.read_text())["payload"]["session_id"]
                              for p in inbox.glob("hook-*.json")] == ["slow"]), "the waiting job was captured"


def test_standard_input_left_open_does_not_hold_the_hook(repo: Path, env: dict[str, str]) -> None:
    with subprocess.Popen(direct("claude-code"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=env, cwd=repo) as process:
        assert process.stdin is not None
        process.stdin.write(payload(repo))
        process.stdin.flush()
        code = process.wait(timeout=20)  # it ends while its input is still open
        process.stdin.close()
        assert process.stdout is not None and process.stdout.read() == b""
    assert code == 0
    assert len(calls(env)) == 1


@pytest.mark.parametrize(("stdin", "message"), [
    (b"", "no payload"),
    (b"not json", "payload is not JSON"),
    (b"[1, 2]", "payload is not a JSON object"),
    (b'{"x": "' + b"a" * (1 << 20) + b'"}', "payload over 1048576 bytes; not captured"),
])
def test_bad_payloads_are_logged_and_not_captured(stdin: bytes, message: str, repo: Path,
                                                  env: dict[str, str], state: Path) -> None:
    done, _ = hook(direct("claude-code"), env, repo, stdin)
    assert done.returncode == 0 and done.stdout == b""
    assert calls(env) == []
    [line] = log_lines(repo)
    assert message in line


@pytest.mark.parametrize("inline", [True, False], ids=["inline", "background"])
def test_a_payload_the_hook_reads_is_captured_however_deep_its_nested_values(inline: bool, repo: Path,
                                                                             env: dict[str, str], state: Path) -> None:
    """The job nests the payload a level or two deeper than the hook read it: a payload near the
    parser's depth limit was accepted by the hook, then dropped by the worker. The job keeps only
    the top-level fields capture reads, so whatever the hook reads is captured or named in the log."""
    run = env if inline else {k: v for k, v in env.items() if k != "GITSTORE_HOOK_INLINE"}
    depths = (900, 960, 975, 985, 990, 994)
    for depth in depths:
        deep = payload(repo, session_id=f"s{depth}", tool_input="[" * depth + "]" * depth)
        deep = deep.replace(b'"' + b"[" * depth + b"]" * depth + b'"', b"[" * depth + b"]" * depth)
        done, _ = hook(direct("claude-code"), run, repo, deep)
        assert done.returncode == 0 and done.stdout == b""

    def captured() -> list[str]:  # read without parsing: a recorded call may nest as deep as its payload
        record = Path(run["GITSTORE_TEST_RECORD"])
        return re.findall(r'"session_id": "(s\d+)"', record.read_text()) if record.exists() else []

    def refused() -> int:
        return sum("payload is not JSON" in line for line in log_lines(repo))

    assert _wait_for(lambda: len(captured()) + refused() == len(depths)), (captured(), log_lines(repo))
    assert len(captured()) >= 4 and all(c["payload"].keys() == read_of(payload(repo)).keys() for c in calls(run))
    assert not any("cannot be read back" in line for line in log_lines(repo)), log_lines(repo)
    assert _wait_for(lambda: not list((state / "inbox").glob("*hook-*.json*"))), "no job is left behind"


def test_an_unknown_harness_is_logged(repo: Path, env: dict[str, str], state: Path) -> None:
    done, _ = hook(direct("cursor"), env, repo, payload(repo))
    assert done.returncode == 0 and calls(env) == []
    assert "unknown harness 'cursor'" in log_lines(repo)[0]


def test_outside_a_gitstore_repository_the_log_goes_to_the_temporary_folder(repo: Path,
                                                                             env: dict[str, str]) -> None:
    done, _ = hook(direct("claude-code"), {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:explode"},
                   repo, payload(repo))
    assert done.returncode == 0
    assert not (repo / "okf").exists()
    fallback = Path(env["TMPDIR"]) / "gitstore-hooks.log"
    assert "capture failed: RuntimeError" in fallback.read_text()
    assert "not kept" in fallback.read_text()
    assert not list(Path(env["TMPDIR"]).glob("hook-*.json")), "nothing retries a job there: it never piles up"


def _session_ended(repo: Path, env: dict[str, str], tmp_path: Path, session: str, **extra: Any) -> None:
    """A Claude Code session of REPO ends: its hook runs with the capture library itself."""
    transcript = tmp_path / f"{session}.jsonl"
    turn = {"type": "user", "uuid": f"{session}-1", "sessionId": session, "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "Fix the flaky retry test"}}
    transcript.write_text(json.dumps(turn) + "\n")
    real = {k: v for k, v in env.items() if k != "GITSTORE_HOOK_TARGET"}
    done, _ = hook(direct("claude-code"), real, repo, payload(repo, session_id=session,
                                                               transcript_path=str(transcript), **extra))
    assert done.returncode == 0 and done.stdout == b""


def test_a_session_whose_folder_is_gone_is_captured_where_the_hook_ran(repo: Path, env: dict[str, str],
                                                                        tmp_path: Path) -> None:
    """A session can remove the folder it worked in (a build folder it made, then deleted), and
    the harness names that folder in the payload. The hook spooled the job in the folder it ran
    in, yet the capture looked for the repository in the one named, found none there and dropped
    the session without a word."""
    from . import cli

    cli.ok("init", cwd=repo)
    _session_ended(repo, env, tmp_path, "s-gone", cwd=str(repo / "build" / "gone"))
    assert "s-gone" in cli.ok("episodes", "--json", cwd=repo)
    assert list((repo / "okf" / ".memory" / "inbox").glob("hook-*.json")) == []


def test_a_session_that_ended_in_a_repository_inside_the_project_is_captured_in_the_project(
        repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    """Claude Code names the folder its shell was left in, which may be a repository of its own
    inside the project (a submodule, a vendored clone) that gitstore is not set up in. The hook
    spooled the job in the project's inbox, yet the capture looked in the inner repository, found
    gitstore not set up there and dropped the session without a word."""
    from . import cli

    cli.ok("init", cwd=repo)
    inner = repo / "vendor" / "lib"
    inner.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=inner, check=True)
    _session_ended(repo, env, tmp_path, "s-inner", cwd=str(inner))
    assert "s-inner" in cli.ok("episodes", "--json", cwd=repo)
    assert list((repo / "okf" / ".memory" / "inbox").glob("hook-*.json")) == []


def test_a_session_that_ended_in_a_repository_inside_the_project_with_state_of_its_own_is_captured_there_too(
        repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    """A vendored clone inside the project can commit an ``okf/.memory/`` of its own (a link at
    its config.json, here), though gitstore was never set up in it. Its refusal was kept for a
    retry that could never succeed, uncounted: every session that ended there left one more job
    in the project's inbox, retried and logged again at every run. It is captured in the
    project, as in a repository inside the project with no state folder."""
    from . import cli

    cli.ok("init", cwd=repo)
    inner = repo / "vendor" / "lib"
    (inner / "okf" / ".memory").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=inner, check=True)
    (inner / "okf" / ".memory" / "config.json").symlink_to("/dev/zero")
    subprocess.run(["git", "add", "-A"], cwd=inner, check=True)
    subprocess.run(["git", "-c", "user.name=a", "-c", "user.email=a@example.invalid", "commit", "-q", "-m", "state"],
                   cwd=inner, check=True)
    for session in ("s-vendored", "s-vendored-2"):
        _session_ended(repo, env, tmp_path, session, cwd=str(inner))
    episodes = cli.ok("episodes", "--json", cwd=repo)
    assert "s-vendored" in episodes and "s-vendored-2" in episodes, (episodes, log_lines(repo))
    assert list((repo / "okf" / ".memory" / "inbox").glob("hook-*.json")) == [], log_lines(repo)
    assert sorted(p.name for p in (inner / "okf" / ".memory").iterdir()) == ["config.json"]


def test_a_session_ending_after_git_clean_removed_the_state_folder_is_held_until_init(
        repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    """`git clean -fdx`, which an agent may run, deletes the ignored okf/.memory/ (config.json
    with it) of a clone init set up. The hook took the clone for one gitstore was never set up
    in and dropped each session without a word until the person ran `gitstore init`. It logs
    the refusal and holds the job in the clone's git folder; the first run after init captures
    it."""
    from . import cli

    cli.ok("init", cwd=repo)
    subprocess.run(["git", "clean", "-fdxq"], cwd=repo, check=True)
    assert not (repo / "okf").exists()
    _session_ended(repo, env, tmp_path, "s-cleaned")
    said = (Path(env["TMPDIR"]) / "gitstore-hooks.log").read_text()
    assert "okf/.memory/config.json is gone" not in said  # gitstore's own words, never the message
    assert "capture failed: Refused" in said and "kept in .git/gitstore/held-jobs/" in said, said
    assert len(list((repo / ".git" / "gitstore" / "held-jobs").glob("hook-*.json"))) == 1
    cli.ok("init", cwd=repo)
    _session_ended(repo, env, tmp_path, "s-after")
    assert list((repo / ".git" / "gitstore" / "held-jobs").glob("hook-*.json")) == []
    episodes = cli.ok("episodes", "--json", cwd=repo)
    assert "s-cleaned" in episodes and "s-after" in episodes, episodes


@pytest.mark.parametrize("module", ["gitstore.capture.agent_hook", "gitstore.deliver.hook"])
def test_a_hook_run_in_a_removed_folder_exits_quietly(module: str, tmp_path: Path, env: dict[str, str]) -> None:
    """A harness may run a hook in a folder removed meanwhile (a worktree deleted during the
    session): the agent sees no traceback and no failure."""
    gone = tmp_path / "removed-worktree"
    gone.mkdir()
    started = subprocess.Popen(
        [sys.executable, "-P", "-c", f"import os, runpy, sys; os.rmdir({str(gone)!r}); sys.argv = ['hook', 'claude-code']; "
                                     f"runpy.run_module({module!r}, run_name='__main__')"],
        cwd=gone, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = started.communicate(json.dumps({**CLAUDE_PAYLOAD, "cwd": str(gone)}).encode(), timeout=60)
    assert not gone.exists()
    assert (started.returncode, out, err) == (0, b"", b"")


# -- the dry run and start-up weight ---------------------------------------------------------

def test_check_reports_whether_the_capture_entry_point_is_ready(repo: Path, env: dict[str, str]) -> None:
    ready = subprocess.run(direct("--check"), env=env, capture_output=True, text=True, cwd=repo)
    assert ready.returncode == 0 and ready.stdout == "" and ready.stderr == ""
    for target, reason in [("tests.no_such_module:capture", "No module named"),
                           ("tests.hook_targets:NOT_CALLABLE", "is not callable"),
                           ("tests.hook_targets", "must be module:function")]:
        broken = subprocess.run(direct("--check"), env={**env, "GITSTORE_HOOK_TARGET": target},
                                capture_output=True, text=True, cwd=repo)
        assert broken.returncode == 1 and reason in broken.stderr and broken.stderr.count("\n") == 1


def test_the_hook_module_imports_nothing_heavy() -> None:
    probe = ("import sys, gitstore.capture.agent_hook; "
             "print([m for m in ('typer', 'click', 'jsonschema', 'pygit2') if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_hand_off_loads_nothing_the_worker_does_not_need_first(repo: Path, env: dict[str, str], state: Path) -> None:
    """What the agent waits for: the hook reads, spools and hands the payload over, and exits;
    the capture library, and the standard modules only a capture uses, load in the worker."""
    probe = ("import sys\nfrom gitstore.capture import agent_hook\nagent_hook.main(['claude-code'])\n"
             "sys.stderr.write(repr(sorted(m for m in ('tempfile', 'shutil', 'random', 'pygit2', 'jsonschema_rs',"
             " 'orjson', 'gitstore.store', 'gitstore.capture.sessions') if m in sys.modules)))")  # stdout: null
    detached = {k: v for k, v in env.items() if k != "GITSTORE_HOOK_INLINE"}
    done, _ = hook([sys.executable, "-c", probe], detached, repo, payload(repo))
    assert done.returncode == 0 and done.stderr.decode() == "[]", done.stderr
    assert _wait_for(lambda: len(calls(env)) == 1), "the worker captured the payload"


def _wait_for(predicate, seconds: float = 20.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_by_default_the_hook_hands_off_to_a_background_worker(repo: Path, env: dict[str, str], state: Path) -> None:
    detached = {k: v for k, v in env.items() if k != "GITSTORE_HOOK_INLINE"}
    hanging = {**detached, "GITSTORE_HOOK_TARGET": "tests.hook_targets:hang", "GITSTORE_HOOK_TIMEOUT": "2"}
    done, _ = hook(direct("claude-code"), hanging, repo, payload(repo))
    assert done.returncode == 0 and done.stdout == b""
    assert not any("abandoned" in line for line in log_lines(repo)), "the agent never waits for capture"
    assert _wait_for(lambda: any("abandoned" in line for line in log_lines(repo)))
    if Path("/proc/self/cmdline").exists():  # the process writing the timeout's receipt holds the kept job till it ends
        assert _wait_for(lambda: not _running_with(str(state / "inbox"))), "the timeout's receipt is written"
    done, _ = hook(direct("claude-code"), detached, repo, payload(repo, session_id="next"))
    assert done.returncode == 0 and done.stdout == b""
    assert _wait_for(lambda: len(calls(detached)) == 2), "the next run captures its job and retries the kept one"
    assert [c["payload"]["session_id"] for c in calls(detached)] == ["next", "abc123"]
    assert _wait_for(lambda: not list((state / "inbox").glob("hook-*.json"))), "spool files are removed"


def test_once_captures_have_stored_many_packs_the_worker_rolls_them_up(repo: Path, env: dict[str, str],
                                                                       state: Path) -> None:
    from gitstore.providers._maintain import pack_count

    env = {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:pack_locally"}
    local = repo / ".git" / "gitstore" / "local"
    counts = []
    for session in ("s1", "s2", "s3"):
        done, _ = hook(direct("claude-code"), env, repo, payload(repo, session_id=session))
        assert done.returncode == 0, done.stderr
        counts.append(pack_count(local))
    assert counts == [1, 2, 1], log_lines(repo)  # the third capture made three: rolled up into one


def test_a_repository_cannot_plant_its_own_hook_module(repo: Path, env: dict[str, str]) -> None:
    planted = repo / "gitstore"
    planted.mkdir()
    marker = repo / "planted-ran"
    (planted / "__init__.py").write_text("")
    (planted / "hook.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    from gitstore.capture.harnesses._command import HookCommand

    clean = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    done, _ = hook(HookCommand(sys.executable, "claude-code").argv, clean, repo, payload(repo))
    assert done.returncode == 0
    assert not marker.exists(), "the hook ran a module from the agent's repository"


def test_the_background_worker_imports_nothing_from_the_repository(repo: Path, env: dict[str, str],
                                                                    state: Path) -> None:
    """Started without ``-P`` (the working directory, the agent's repository, first on
    ``sys.path``), the hook's background worker still finds no module there."""
    marker = repo / "planted-ran"
    (repo / "planted_capture.py").write_text(
        f"def record(*args):\n    open({str(marker)!r}, 'w').write('x')\n")
    detached = {k: v for k, v in env.items() if k not in ("GITSTORE_HOOK_INLINE", "PYTHONPATH")}
    detached["GITSTORE_HOOK_TARGET"] = "planted_capture:record"
    done, _ = hook([sys.executable, "-m", "gitstore.capture.agent_hook", "claude-code"], detached, repo,
                   payload(repo))
    assert done.returncode == 0
    assert _wait_for(lambda: any("capture unavailable" in line for line in log_lines(repo)))
    assert not marker.exists(), "the worker ran a module from the agent's repository"


def _running_with(marker: str) -> list[str]:
    """The processes whose command line holds MARKER."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                found.append(entry.name)
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc to find the worker")
def test_the_worker_forked_before_the_payload_is_read_stops_when_the_hook_finds_none(
        repo: Path, env: dict[str, str], state: Path) -> None:
    """In a gitstore repository the hook forks its worker first thing (it imports the capture
    library while the hook reads the payload): a payload the hook refuses leaves it nothing to
    do, and it stops."""
    detached = {k: v for k, v in env.items() if k != "GITSTORE_HOOK_INLINE"}
    marker = f"not json {os.getpid()}-{time.monotonic_ns()}"
    done, _ = hook(direct("claude-code", marker), detached, repo)
    assert done.returncode == 0 and done.stdout == b""
    assert any("payload is not JSON" in line for line in log_lines(repo))
    assert _wait_for(lambda: not _running_with(marker), 10.0), "the worker is still running"
    assert calls(detached) == [] and not list((state / "inbox").glob("hook-*.json"))


def test_a_job_and_a_log_link_a_commit_put_in_the_state_folder_are_not_used(repo: Path, env: dict[str, str],
                                                                            state: Path, tmp_path: Path) -> None:
    """A commit can add files to the ignored state folder (``git add -f``), and git checks them
    out over a clone's own: a spooled job naming a harness with a newline, a folder and a
    payload, and the hook log as a link to a shell's start-up file. The next hook run of this
    clone runs its own job only, and writes no line through the link."""
    from gitstore.queries.doctor import doctor

    from . import cli

    cli.ok("init", cwd=repo)
    job = state / "inbox" / "hook-claude-code-0000000000000000.json"
    job.write_text(json.dumps({"harness": "claude-code", "cwd": str(repo), "attempts": 0,
                               "payload": {**CLAUDE_PAYLOAD, "session_id": "planted", "cwd": str(repo)}}))
    forged = state / "inbox" / "hook-codex-0000000000000001.json"
    forged.write_text(json.dumps({"harness": "codex\ntouch pwned", "cwd": str(repo), "attempts": 9, "payload": {}}))
    rc = tmp_path / "bashrc"
    rc.write_text("# mine\n")
    (state / "logs" / "hooks.log").symlink_to(rc)
    subprocess.run(["git", "add", "-f", "okf/.memory/inbox", "okf/.memory/logs"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "state"], cwd=repo, check=True)
    done, _ = hook(direct("claude-code"), {**env, "GITSTORE_HOOK_INLINE": "1"}, repo, payload(repo))
    assert done.returncode == 0 and done.stdout == b""
    assert [c["payload"]["session_id"] for c in calls(env)] == ["abc123"], "only the hook's own job ran"
    assert rc.read_text() == "# mine\n", "no line through the link"
    assert job.exists() and forged.exists()
    check = {c.name: c for c in doctor(repo).checks}["hook log"]
    assert check.state == "warn" and "is a link" in check.detail


def test_many_jobs_a_commit_put_in_the_inbox_take_one_log_line_a_run(repo: Path, env: dict[str, str],
                                                                       state: Path) -> None:
    """A commit can add any number of job files to the inbox. No run runs them, but each run
    logged a line for each one, again every run: 20,000 of them grew the log by 3.5 MB a hook
    run (Codex runs its hook every turn). One line a run says how many, naming the first."""
    from . import cli

    cli.ok("init", cwd=repo)
    for n in range(300):
        job = {"harness": "claude-code", "cwd": str(repo), "attempts": 0, "payload": {"session_id": f"planted-{n}"}}
        (state / "inbox" / f"hook-claude-code-{n:016x}.json").write_text(json.dumps(job))
    subprocess.run(["git", "add", "-f", "okf/.memory/inbox"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "state"], cwd=repo, check=True)
    for run in (1, 2):
        done, _ = hook(direct("claude-code"), env, repo, payload(repo, session_id=f"own-{run}"))
        assert done.returncode == 0 and done.stdout == b""
    assert [c["payload"]["session_id"] for c in calls(env)] == ["own-1", "own-2"], "only the hooks' own jobs ran"
    lines = log_lines(repo)
    assert len(lines) == 2, lines
    assert all("300 job files in the inbox came through git, not from a hook of this clone "
               "(hook-claude-code-0000000000000000.json and 299 more): not run" in line for line in lines)


def test_a_log_line_names_the_harness_in_one_word(repo: Path, state: Path) -> None:
    from gitstore.capture.hooklog import log

    log(str(repo), "codex\ntouch pwned", "gave up\nafter 3 attempts")
    [line] = log_lines(repo)
    assert line.endswith(" codex-touch-pwned gave up after 3 attempts")


def test_a_line_the_repositorys_log_cannot_take_goes_to_the_temporary_folders_then_standard_error(
        repo: Path, state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from gitstore.capture import hooklog

    (state / "logs").write_text("")  # no folder can be made there, as in a checkout mounted read-only
    shared = tmp_path / "tmp" / "gitstore-hooks.log"
    shared.parent.mkdir()
    monkeypatch.setattr(hooklog, "shared_log", lambda: str(shared))
    hooklog.log(str(repo), "codex", "first")
    assert shared.read_text().endswith(f" codex in {repo.resolve()}: first\n")
    shared.unlink()
    shared.parent.rmdir()
    shared.parent.write_text("")  # nor there
    hooklog.log(str(repo), "codex", "second")
    assert capsys.readouterr().err == "gitstore: codex: second\n"


@pytest.mark.parametrize(("module", "closing"), [("gitstore.capture.agent_hook", "2>&-"),
                                                 ("gitstore.capture.agent_hook", ">&-"),
                                                 ("gitstore.deliver.hook", ">&-"),
                                                 ("gitstore.deliver.hook", "2>&-")])
def test_a_hook_whose_harness_closed_a_standard_stream_still_exits_0(repo: Path, env: dict[str, str], module: str,
                                                                     closing: str) -> None:
    import shlex

    command = f"{shlex.quote(sys.executable)} -P -m {module} claude-code {closing}"
    done = subprocess.run(["sh", "-c", command], input=b"{bad", env=env, cwd=repo, capture_output=True, timeout=60)
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("closing", ["2>&-", ">&- 2>&-", "<&- 2>&-"])
def test_a_hook_whose_harness_closed_standard_error_still_hands_its_job_to_the_worker(
        repo: Path, env: dict[str, str], state: Path, closing: str) -> None:
    """With standard error closed, the pipe the hook forks its worker with took descriptor 2,
    and the worker, putting the null device on its standard streams, put it over the pipe's
    read end: the job never arrived (``BrokenPipeError`` in the log). The hook puts the null
    device on each standard descriptor left closed first."""
    import shlex

    forked = {k: v for k, v in env.items() if k != "GITSTORE_HOOK_INLINE"}
    data = payload(repo, session_id="closed")
    stdin = "" if closing.startswith("<&-") else f" <<'EOF'\n{data.decode()}\nEOF\n"
    argument = f" {shlex.quote(data.decode())}" if closing.startswith("<&-") else ""
    command = f"{shlex.quote(sys.executable)} -P -m gitstore.capture.agent_hook claude-code{argument} {closing}{stdin}"
    done = subprocess.run(["sh", "-c", command], env=forked, cwd=repo, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert _wait_for(lambda: len(calls(forked)) == 1), log_lines(repo)
    assert calls(forked)[0]["payload"]["session_id"] == "closed"
    assert not any("BrokenPipe" in line for line in log_lines(repo)), log_lines(repo)


def test_a_job_is_never_written_through_an_inbox_link_a_commit_put_there(repo: Path, env: dict[str, str],
                                                                        state: Path, tmp_path: Path) -> None:
    """A commit can put a link at ``okf/.memory/inbox`` (``git add -f``) to a tracked folder,
    and a pull checks it out over the clone's empty inbox: a job (session, transcript, folder)
    written there, and one set aside after its last attempt, would be shared by the next
    ``git add -A``. The hook writes its job to the temporary folder instead, as where the
    inbox cannot be written, and the log says why."""
    from . import cli

    cli.ok("init", cwd=repo)
    (state / "inbox").rmdir()
    jobs = repo / "docs" / "jobs"
    jobs.mkdir(parents=True)
    (jobs / "README.md").write_text("jobs\n")
    (state / "inbox").symlink_to(Path("..", "..", "docs", "jobs"))
    subprocess.run(["git", "add", "-f", "okf/.memory/inbox", "docs"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "jobs"], cwd=repo, check=True)
    failing = {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:explode"}
    for _ in range(4):  # through the link, the last run set the job aside there
        done, _ = hook(direct("claude-code"), failing, repo, payload(repo))
        assert done.returncode == 0 and done.stdout == b""
    assert sorted(p.name for p in jobs.iterdir()) == ["README.md"], "no job through the link"
    assert any("okf/.memory/inbox is a symbolic link" in line for line in log_lines(repo)), log_lines(repo)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True)
    assert status.stdout == ""


def test_a_job_that_fails_while_a_link_stands_at_the_inbox_is_retried_once_it_is_deleted(
        repo: Path, env: dict[str, str], state: Path, tmp_path: Path) -> None:
    """While a link stands at ``okf/.memory/inbox`` the job waits in the temporary folder,
    where no run retries one; when its capture fails there it is kept in the clone's own
    ``.git/gitstore/``, which no commit can reach, and once the link is deleted the next
    hook's run captures it."""
    from . import cli
    from .advice import checks

    cli.ok("init", cwd=repo)
    (state / "inbox").rmdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (state / "inbox").symlink_to(elsewhere)
    failing = {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:explode"}
    done, _ = hook(direct("claude-code"), failing, repo, payload(repo, session_id="while-linked"))
    assert done.returncode == 0 and calls(env) == []
    assert not list(elsewhere.iterdir()) and not list((tmp_path / "tmp").iterdir())
    assert "kept" in log_lines(repo)[-1] and "not kept" not in log_lines(repo)[-1], log_lines(repo)
    held = repo / ".git" / "gitstore" / "held-jobs"
    assert len(list(held.iterdir())) == 1
    [check] = checks(repo, "capture held")
    assert check["state"] == "warn" and check["detail"].startswith("1 capture job(s) wait in "), check
    (state / "inbox").unlink()
    done, _ = hook(direct("claude-code"), env, repo, payload(repo, session_id="after"))
    assert done.returncode == 0
    assert [c["payload"]["session_id"] for c in calls(env)] == ["after", "while-linked"]
    assert checks(repo, "capture held") == []
    assert not list((state / "inbox").iterdir()) and not list(held.iterdir())


def test_a_job_that_times_out_while_a_link_stands_at_the_inbox_is_kept_as_a_failed_one_is(
        repo: Path, env: dict[str, str], state: Path, tmp_path: Path) -> None:
    """A capture that runs out of time is retried, as the log says: one that waited in the
    temporary folder goes to the clone's ``.git/gitstore/held-jobs/`` too, rather than stay
    there with the prompts it holds, where no run would ever take it."""
    from . import cli

    cli.ok("init", cwd=repo)
    (state / "inbox").rmdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (state / "inbox").symlink_to(elsewhere)
    slow = {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:hang", "GITSTORE_HOOK_TIMEOUT": "1"}
    done, _ = hook(direct("claude-code"), slow, repo, payload(repo, session_id="while-linked"))
    assert done.returncode == 0
    held = repo / ".git" / "gitstore" / "held-jobs"
    assert any(line.endswith("capture took longer than 1 s; abandoned, kept in .git/gitstore/held-jobs/ "
                                        "for a retry once okf/.memory/inbox can take it (a real folder, no symbolic "
                                        "link on the way, writable, ignored by git)") for line in log_lines(repo)), log_lines(repo)
    assert len(list(held.iterdir())) == 1 and not list((tmp_path / "tmp").glob("hook-*.json"))
    (state / "inbox").unlink()
    done, _ = hook(direct("claude-code"), env, repo, payload(repo, session_id="after"))
    assert done.returncode == 0
    assert sorted(c["payload"]["session_id"] for c in calls(env)) == ["after", "while-linked"]
    assert not list(held.iterdir()) and not list(elsewhere.iterdir())


def test_a_failed_capture_is_logged_by_its_kind_never_quoting_what_it_read(repo: Path, env: dict[str, str],
                                                                          state: Path) -> None:
    """An exception's message may quote what the capture read (a file's name from the payload,
    a record value built from the transcript): the log names its kind, where it was raised, and
    what a person can do about it, in words of gitstore's own."""
    failing = {**env, "GITSTORE_HOOK_TARGET": "tests.hook_targets:quote_input"}
    hook(direct("claude-code"), failing, repo, payload(repo, transcript_path=f"/tmp/{SECRET}.jsonl"))
    hook(direct("claude-code"), failing, repo, payload(repo, session_id=SECRET, hook_event_name="Stop"))
    lines = log_lines(repo)
    assert lines and not any(SECRET in line for line in lines), lines
    assert any("capture failed: PermissionError (Permission denied) at " in line for line in lines), lines
    assert any("capture failed: ContractError (a record built from the session fails its contract" in line
               for line in lines), lines


def test_a_capture_that_finds_the_state_folder_not_ignored_has_git_ignore_its_files_again(
        repo: Path, env: dict[str, str], state: Path) -> None:
    """A ``.gitignore`` line ``!/okf/.memory/`` pulled from the team: moving the hook's jobs and
    log out left config.json, the delivery ledger and the caches where ``git add -A`` commits
    them. The capture that finds it so writes ``okf/.memory/.gitignore`` holding ``*``, which git
    reads over the line above it: nothing of the folder is staged, and the next capture stores
    its records there again."""
    from . import cli

    cli.ok("init", cwd=repo)
    (state / ".gitignore").unlink()  # as a clone set up before init wrote it
    (state / "deliveries.sqlite").write_bytes(b"SQLite format 3\x00")
    real = {k: v for k, v in env.items() if k != "GITSTORE_HOOK_TARGET"}
    (repo / ".gitignore").write_text("!/okf/.memory/\n")
    subprocess.run(["git", "add", ".gitignore"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "un-ignore"], cwd=repo, check=True)

    def staged() -> str:
        return subprocess.run(["git", "add", "-A", "--dry-run"], cwd=repo, capture_output=True, text=True,
                              check=True).stdout

    assert "okf/.memory/deliveries.sqlite" in staged()
    done, _ = hook(direct("claude-code"), real, repo, payload(repo, session_id="first"))
    assert done.returncode == 0 and (repo / ".git" / "gitstore" / "unignored").exists()
    assert staged() == "", staged()
    done, _ = hook(direct("claude-code"), real, repo, payload(repo, session_id="second"))
    assert done.returncode == 0 and not (repo / ".git" / "gitstore" / "unignored").exists()
    assert staged() == "", staged()


def test_while_git_does_not_ignore_the_state_folder_no_job_or_log_line_is_left_there(
        repo: Path, env: dict[str, str], state: Path, tmp_path: Path) -> None:
    """A commit that un-ignores ``okf/.memory/`` makes a capture refuse; whatever the hook
    left there (the job: its session, its transcript's path, naming another project's folder;
    the log) ``git add -A`` would commit. The worker moves them to the clone's git folder and
    leaves a marker there, so later runs write nothing into the state folder either; once the
    folder is ignored again, the jobs held meanwhile are captured."""
    from . import cli

    cli.ok("init", cwd=repo)
    real = {k: v for k, v in env.items() if k != "GITSTORE_HOOK_TARGET"}
    (repo / ".gitignore").write_text("!/okf/.memory/\n")
    subprocess.run(["git", "add", ".gitignore"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "un-ignore"], cwd=repo, check=True)
    (state / ".gitignore").write_text("# a person's own\n")  # never replaced: the folder stays un-ignored

    def untracked() -> list[str]:
        listed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "okf/.memory/inbox",
                                 "okf/.memory/logs"], cwd=repo, capture_output=True, text=True, check=True)
        return listed.stdout.splitlines()

    for session in ("first", "second"):
        done, _ = hook(direct("claude-code"), real, repo, payload(repo, session_id=session))
        assert done.returncode == 0 and done.stdout == b""
        assert untracked() == [], session
    away = repo / ".git" / "gitstore"
    assert (away / "unignored").exists()
    lines = (away / "logs" / "hooks.log").read_text().splitlines()
    assert len(lines) == 2 and all("Unignored" in line for line in lines), lines
    held = away / "held-jobs"
    assert len(list(held.glob("hook-*.json"))) == 2
    assert not list((tmp_path / "tmp").glob("*hook-*"))
    (repo / ".gitignore").unlink()
    subprocess.run(["git", "commit", "-q", "-a", "-m", "ignored again"], cwd=repo, check=True)
    for session in ("third", "fourth"):
        done, _ = hook(direct("claude-code"), real, repo, payload(repo, session_id=session))
        assert done.returncode == 0
    assert not (away / "unignored").exists()
    assert not list(held.glob("hook-*.json")) and not list((state / "inbox").glob("hook-*.json"))


@pytest.mark.parametrize(("harness", "committed", "inline"), [
    ("claude-code", "/dev/zero", True), ("claude-code", "/dev/zero", False), ("codex", "fifo", True),
    ("gemini-cli", "not json {", True), ("opencode", "deleted", True), ("claude-code", "a clone's", False)])
def test_a_checkout_whose_state_folder_came_with_the_repository_is_left_untouched(
        harness: str, committed: str, inline: bool, env: dict[str, str], tmp_path: Path) -> None:
    """A repository can commit ``okf/.memory/config.json`` (a link in its place to /dev/zero or
    a FIFO, a file that is not JSON, one deleted since, another clone's), and a capture hook
    installed for the user runs in every folder. It took the folder for a gitstore repository:
    it spooled its job into ``okf/.memory/inbox/`` of the checkout, where it stayed, untracked,
    and its worker logged the refused capture into ``okf/.memory/logs/``. In a clone ``gitstore
    init`` never set up, it captures nothing, starts no worker, reads nothing there and writes
    nothing, there or in the temporary folder."""
    import resource

    from .conftest import git

    stranger = tmp_path / "stranger"
    (stranger / "okf" / ".memory").mkdir(parents=True)
    git(stranger, "init", "-q")
    config = stranger / "okf" / ".memory" / "config.json"
    if committed == "fifo":
        os.mkfifo(tmp_path / "fifo")
        config.symlink_to(tmp_path / "fifo")
    elif committed.startswith("/"):
        config.symlink_to(committed)
    else:
        config.write_text('{"writer": "w0a11ce000001"}\n' if committed in ("deleted", "a clone's") else committed)
    git(stranger, "add", "-A")
    git(stranger, "-c", "user.name=a", "-c", "user.email=a@example.invalid", "commit", "-q", "-m", "settings")
    if committed == "deleted":
        config.unlink()
    real = {k: v for k, v in env.items() if k not in ("GITSTORE_HOOK_TARGET", "GITSTORE_HOOK_INLINE")}
    if inline:
        real["GITSTORE_HOOK_INLINE"] = "1"

    def bounded() -> None:  # a reader of /dev/zero fails at 2 GiB rather than taking the machine's memory
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    git_folder = sorted(p.name for p in (stranger / ".git").iterdir())
    state = sorted(str(p) for p in (stranger / "okf").rglob("*"))
    started = time.monotonic()
    done = subprocess.run(direct(harness), input=payload(stranger, session_id="h1"), capture_output=True,
                          env=real, cwd=stranger, timeout=60, preexec_fn=bounded)
    assert done.returncode == 0 and done.stdout == b"" and time.monotonic() - started < 10, done
    if not inline:
        time.sleep(0.5)  # a worker would have started by now
    status = git(stranger, "status", "--porcelain", "--ignored", "--untracked-files=all")
    assert status == (" D okf/.memory/config.json\n" if committed == "deleted" else ""), status
    assert sorted(str(p) for p in (stranger / "okf").rglob("*")) == state, "no folder made there either"
    assert sorted(p.name for p in (stranger / ".git").iterdir()) == git_folder, "nothing in the git folder either"
    assert list((tmp_path / "tmp").iterdir()) == [], "no job and no log line in the temporary folder"
