"""Delivery in a checkout that cannot be written, as a sandbox mounts one read-only: recall, the
preview and every harness's context hook give the learnings a writable checkout gives, from an
index built for the reader (the cache folder cannot keep one), and a hook that cannot give
anything says why where it can be read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .delivery_world import PROMPT, World, shared_world  # noqa: F401 - the fixture
from .read_only import read_only
from .test_deliver_hooks import PROMPT_EVENTS, context_command, output_schema, payload


@pytest.fixture
def world(shared_world: World, tmp_path: Path) -> World:
    """A copy where recall's index was never built: no index, no secret to key one to."""
    copy = shared_world.copy(tmp_path / "widgets")
    shutil.rmtree(copy.root / "okf" / ".memory" / "cache", ignore_errors=True)
    (copy.root / ".git" / "gitstore" / "delivery.salt").unlink(missing_ok=True)
    return copy


def env(**extra: str) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.startswith("GITSTORE_")}, **extra}


def gitstore(prefix: list[str], root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, sys.executable, "-m", "gitstore", *args], cwd=root, capture_output=True,
                          text=True, env=env(), timeout=120)


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_recall_and_context_answer_from_an_index_built_in_memory(world: World, tmp_path: Path) -> None:
    writable = world.copy(tmp_path / "writable")
    expected = json.loads(gitstore([], writable.root, "recall", "--json", PROMPT).stdout)
    preview = gitstore([], writable.root, "context", "--prompt", PROMPT)
    assert world.ids["jitter"] in [i["id"] for i in expected["items"]] and preview.stdout
    before = files(world.root)
    with read_only(world.root) as prefix:
        found = gitstore(prefix, world.root, "recall", "--json", PROMPT)
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["items"] == expected["items"]
        context = gitstore(prefix, world.root, "context", "--prompt", PROMPT)
        assert context.returncode == 0, context.stderr
        assert context.stdout == preview.stdout.replace(str(writable.root), str(world.root))
    assert files(world.root) == before, "nothing was written"


def hook(prefix: list[str], command: str, harness: str, root: Path, session: str,
         **extra: str) -> subprocess.CompletedProcess[bytes]:
    """The installed prompt hook ``command`` of ``harness``, run as the harness runs it."""
    event = payload(harness, PROMPT_EVENTS[harness], root, session, **extra)
    return subprocess.run([*prefix, "sh", "-c", command], input=json.dumps(event).encode(), capture_output=True,
                          cwd=root, env=env(), timeout=60)


@pytest.mark.parametrize("harness", sorted(PROMPT_EVENTS))
def test_each_harness_hook_delivers_what_a_writable_checkout_delivers(harness: str, world: World) -> None:
    command = context_command(harness, PROMPT_EVENTS[harness], world.root)  # installed while it can be written
    with read_only(world.root) as prefix:
        done = hook(prefix, command, harness, world.root, "sandboxed", prompt=PROMPT)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    output_schema(harness, PROMPT_EVENTS[harness]).validate(answer)
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert world.ids["jitter"] in context and world.ids["retired"] not in context
    assert not (world.root / "okf" / ".memory" / "cache").exists()


def test_the_delivery_ledger_is_read_there_and_nothing_is_recorded(world: World) -> None:
    """What a session was given while the checkout could be written is still left out of what
    it is given; what it is given now cannot be recorded, so a later prompt may give it again."""
    command = context_command("claude-code", "UserPromptSubmit", world.root)
    given = json.loads(hook([], command, "claude-code", world.root, "before", prompt="retry backoff jitter").stdout)
    assert world.ids["jitter"] in given["hookSpecificOutput"]["additionalContext"]
    shutil.rmtree(world.root / "okf" / ".memory" / "cache")
    with read_only(world.root) as prefix:
        listed = gitstore(prefix, world.root, "deliveries", "--session", "before")
        assert listed.returncode == 0 and world.ids["jitter"] in listed.stdout, listed.stderr
        again = gitstore(prefix, world.root, "context", "--session", "before", "--prompt", PROMPT)
        assert again.returncode == 0 and world.ids["jitter"] not in again.stdout, again.stderr
        first = hook(prefix, command, "claude-code", world.root, "sandboxed", prompt=PROMPT)
        second = hook(prefix, command, "claude-code", world.root, "sandboxed", prompt=PROMPT)
    assert world.ids["jitter"] in first.stdout.decode() and second.stdout == first.stdout


def _not_json_read_only(root: Path, temporary: Path) -> subprocess.CompletedProcess[str]:
    """The context hook given a payload that is not JSON in ``root`` mounted read-only, with
    ``temporary`` as its temporary folder: it prints nothing and exits 0. Returns what
    ``gitstore doctor --json`` run there says."""
    command = context_command("claude-code", "UserPromptSubmit", root)
    temporary.mkdir()
    with read_only(root) as prefix:
        done = subprocess.run([*prefix, "sh", "-c", command], input=b"{not json", capture_output=True, cwd=root,
                              env=env(TMPDIR=str(temporary)), timeout=60)
        assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""
        return subprocess.run([*prefix, sys.executable, "-m", "gitstore", "doctor", "--json"], cwd=root,
                              capture_output=True, text=True, env=env(TMPDIR=str(temporary)), timeout=120)


def test_a_hook_that_cannot_write_its_log_there_writes_it_in_the_temporary_folder(world: World, tmp_path: Path) -> None:
    """A hook in a checkout mounted read-only still says why it gave nothing: in the temporary
    folder's log (``gitstore doctor`` shows the checkout its lines), or on standard error where
    no log can be written (``test_hook``)."""
    temporary = tmp_path / "tmp"
    doctor = _not_json_read_only(world.root, temporary)
    assert not (world.root / "okf" / ".memory" / "logs" / "hooks.log").exists()
    line = (temporary / "gitstore-hooks.log").read_text().splitlines()[-1]
    assert f"in {world.root.resolve()}: payload is not JSON" in line
    assert (temporary / "gitstore-hooks.log").stat().st_mode & 0o777 == 0o600, "a shared folder: only its owner reads it"
    checks = {c["check"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["hook log"]["state"] == "warn" and "payload is not JSON" in checks["hook log"]["detail"], \
        "doctor shows the lines hooks could not write in the checkout"


def test_a_log_line_from_a_folder_whose_name_is_not_utf8_is_kept(shared_world: World, tmp_path: Path) -> None:
    """The shared log names the folder a line came from, and a folder's name need not be
    UTF-8: its other bytes are written as escapes, and doctor run there still finds its lines."""
    world = shared_world.copy(tmp_path / os.fsdecode(b"n\xffu"))
    temporary = tmp_path / "tmp"
    doctor = _not_json_read_only(world.root, temporary)
    line = (temporary / "gitstore-hooks.log").read_bytes().splitlines()[-1]
    assert b"n\\xffu: payload is not JSON" in line, line
    checks = {c["check"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert "payload is not JSON" in checks["hook log"]["detail"], checks["hook log"]
