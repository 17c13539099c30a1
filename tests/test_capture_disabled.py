"""Hooks a harness's settings switch off are noticed by the next hook run of any harness, by
``gitstore capture`` and by ``gitstore hooks status``, and recorded once as a degraded receipt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitstore.capture.disabled import notice
from gitstore.capture.install import install, status
from gitstore.capture.sessions import HookInput, capture
from gitstore.capture.switched import switched_off
from gitstore.context import Context

from .conftest import ROOT
from .world import ready_repo


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    """A gitstore repository with the Claude Code hook installed for the project."""
    context = ready_repo(tmp_path / "widgets")
    install("claude-code", "project", context.workspace.root, Path.home())
    return context


def _settings(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _user_settings() -> Path:
    return Path.home() / ".claude" / "settings.json"


def disabled_receipts(ctx: Context) -> list[tuple[str, dict]]:
    """(harness, receipt) for each hooks-disabled receipt stored."""
    items = list(Context.open(str(ctx.workspace.root)).store.items(["envelope", "receipt"]))
    harness = {i.digest: i.record["harness"] for i in items if i.kind == "envelope"}
    return [(harness[i.record["envelope"]], i.record) for i in items
            if i.kind == "receipt" and "hooks-disabled" in i.record["reasons"]]


@pytest.mark.parametrize("read_ahead", ["0", "1"])  # the capture asks, or its transcript reader does
def test_a_hook_run_of_another_harness_records_switched_off_hooks_once(ctx: Context, read_ahead: str) -> None:
    _settings(_user_settings(), {"disableAllHooks": True})
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITSTORE_HOOK")}
    env.update(GITSTORE_HOOK_INLINE="1", GITSTORE_HOOK_READ_AHEAD=read_ahead, PYTHONPATH=str(ROOT))
    payload = json.dumps({"session_id": "codex-1", "cwd": str(ctx.workspace.root), "hook_event_name": "Stop"})
    for _ in range(2):
        done = subprocess.run([sys.executable, "-m", "gitstore.capture.agent_hook", "codex"], input=payload,
                              text=True, capture_output=True, cwd=ctx.workspace.root, env=env, timeout=60)
        assert done.returncode == 0 and done.stdout == ""
    [(harness, receipt)] = disabled_receipts(ctx)
    assert harness == "claude-code"
    assert receipt["status"] == "degraded" and receipt["reasons"] == ["hooks-disabled"]
    assert receipt["episode"] is None
    assert all(i.stored.namespace == "local" for i in ctx.store.items(["receipt"]))


def test_the_harness_own_order_decides_and_a_new_switch_off_is_recorded_again(ctx: Context) -> None:
    root, home = ctx.workspace.root, Path.home()
    _settings(_user_settings(), {"disableAllHooks": True})
    local = root / ".claude" / "settings.local.json"
    data = json.loads(local.read_text())
    local.write_text(json.dumps({**data, "disableAllHooks": False}))  # the local file overrides the user's
    assert switched_off(root, home) == {}
    assert notice(ctx, home) == {}

    local.write_text(json.dumps(data))
    assert list(notice(ctx, home)) == ["claude-code"]
    assert notice(ctx, home) == {}, "recorded once per switch-off"
    _user_settings().write_text("{}")  # back on
    assert notice(ctx, home) == {}
    _settings(root / ".claude" / "settings.json", {"disableAllHooks": True})  # off again, elsewhere
    assert list(notice(ctx, home)) == ["claude-code"]
    assert len(disabled_receipts(ctx)) == 2


def test_a_capture_records_it_and_a_harness_without_our_hook_does_not_count(ctx: Context, tmp_path: Path) -> None:
    _settings(Path.home() / ".gemini" / "settings.json", {"hooksConfig": {"enabled": False}})  # no gitstore hook
    _settings(_user_settings(), {"disableAllHooks": True})
    hook = HookInput.from_payload("codex", {"session_id": "s-2"}, str(ctx.workspace.root))
    capture(ctx, hook)
    assert [harness for harness, _ in disabled_receipts(ctx)] == ["claude-code"]


def test_hooks_status_says_so_and_records_it(ctx: Context, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from gitstore.cli import main

    _settings(_user_settings(), {"disableAllHooks": True})
    rows = {(r.harness, r.scope): r for r in status(ctx.workspace.root, Path.home(), check=False)}
    row = rows["claude-code", "project"]
    assert row.installed and row.works is False
    assert row.problems == (f"hooks are switched off (disableAllHooks is true in {_user_settings()})",)
    monkeypatch.chdir(ctx.workspace.root)
    assert main(["hooks", "status"]) == 0
    out = capsys.readouterr().out
    assert "disableAllHooks is true" in out
    assert "recorded a hooks-disabled receipt for claude-code" in out
    assert main(["hooks", "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["recordedHooksDisabled"] == []  # already recorded
    assert len(disabled_receipts(ctx)) == 1


def test_a_committed_record_of_switched_off_hooks_keeps_no_receipt_from_being_written(ctx: Context) -> None:
    """One commit switches the project's Claude Code hooks off and adds, under the ignored state
    folder, a record saying this clone already noted it: the capture still records the switch-off,
    since that record came through git."""
    root, home = ctx.workspace.root, Path.home()
    _settings(root / ".claude" / "settings.json", {"disableAllHooks": True})
    state = ctx.workspace.state / "hooks-disabled.json"
    state.write_text(json.dumps(switched_off(root, home)))
    subprocess.run(["git", "add", "-f", ".claude/settings.json", str(state)], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "Quieter hooks"], cwd=root, check=True)
    assert list(notice(ctx, home)) == ["claude-code"]
    assert notice(ctx, home) == {}, "then the clone's own record holds it, once"
    assert len(disabled_receipts(ctx)) == 1

    subprocess.run(["git", "rm", "-q", "--cached", str(state)], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "The clone's own"], cwd=root, check=True)
    state.write_text(json.dumps(switched_off(root, home)) + " ")  # then a person's edit is the clone's
    assert notice(ctx, home) == {}
    assert len(disabled_receipts(ctx)) == 1


@pytest.mark.parametrize("off", [False, True], ids=["nothing to record", "switched off"])
def test_hooks_status_answers_in_a_read_only_work_tree(ctx: Context, off: bool) -> None:
    """A status read opens the record for writing only when there is something to record; in a
    read-only work tree it still shows every hook, warning what it could not record."""
    from .read_only import read_only

    root = ctx.workspace.root
    if off:
        _settings(_user_settings(), {"disableAllHooks": True})
    before = {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    with read_only(root) as prefix:
        done = subprocess.run([*prefix, sys.executable, "-m", "gitstore", "hooks", "status"], cwd=root,
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert "claude-code   project  " in done.stdout and "Traceback" not in done.stderr
    if off:
        assert "disableAllHooks is true" in done.stdout
        assert done.stderr.count("\n") == 1 and "could not be recorded" in done.stderr, done.stderr
        assert "hooks-disabled.json" in done.stderr
    else:
        assert done.stderr == ""
    assert {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()} == before
