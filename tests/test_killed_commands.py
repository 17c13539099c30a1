"""Commands of several steps, killed with SIGKILL between two of them (a real ``gitstore``
process, stopped at a chosen step by ``tests/kill_at.py``): after each kill ``verify`` passes,
reads work, ``doctor`` names what is half-done and what to run, and running the same command
again finishes the job without recording anything twice or losing anything."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from . import cli
from .advice import commands
from .delivery_world import World, shared_world  # noqa: F401 - a fixture
from bench._process import copy_as_moved

KILL_AT = Path(__file__).with_name("kill_at.py")
ROOT = Path(__file__).resolve().parent.parent
BY = ("--by", "github:9")


def killed(root: Path, at: str, *args: str) -> None:
    """Run ``gitstore ARGS`` in ``root`` in a process of its own, killed with SIGKILL at ``at``
    (``before|after:MODULE:FUNCTION[#N]``, see ``kill_at``), importing gitstore from this tree
    (not from wherever the interpreter has it installed)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(KILL_AT), at, *args], cwd=root, capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == -signal.SIGKILL, (at, args, done.returncode, done.stdout, done.stderr)


def doctor(root: Path) -> dict[str, list[dict[str, Any]]]:
    """``gitstore doctor``'s checks by name (set-up checks that do not concern memory left out)."""
    report = json.loads(cli.gitstore("doctor", "--json", cwd=root).stdout)
    found: dict[str, list[dict[str, Any]]] = {}
    for check in report["checks"]:
        found.setdefault(check["check"], []).append(check)
    return found


def sound(root: Path) -> None:
    """``verify`` passes and the reads work."""
    assert cli.ok("verify", cwd=root).startswith("verify: ")
    cli.ok("learnings", cwd=root)
    cli.ok("audit", cwd=root)


def audit(root: Path, action: str) -> list[dict[str, Any]]:
    return [a for a in json.loads(cli.ok("audit", "--json", cwd=root)) if a["action"] == action]


def published(world: World, target: Path) -> Path:
    """A copy of the delivery world whose learnings are published."""
    root = world.copy(target / "widgets").root
    cli.ok("publish", cwd=root)
    return root


def _grant_for_instruction(root: Path) -> str:
    found = json.loads(cli.ok("grants", "--json", cwd=root))
    return next(g["digest"] for g in found if "instruction" in g["inForce"] and g["until"] is None)


# -- withdraw and retire: the append, then the published files ---------------------------------------

AGAIN = "finished what an earlier run left undone: "


def _taking_out(command: str, world: World, root: Path) -> tuple[tuple[str, ...], str]:
    """The command line that takes ``jitter`` out of force, and its refusal once done."""
    if command == "withdraw":
        grant = _grant_for_instruction(root)
        return ("withdraw", grant, "--purpose", "instruction", *BY), f"{grant} is already withdrawn for instruction"
    learning = world.ids["jitter"]
    return ("retire", learning, "--reason", "no longer holds", *BY), f"{learning} is already retired"


@pytest.mark.parametrize("command", ["withdraw", "retire"])
@pytest.mark.parametrize(("at", "as_json"), [
    ("after:gitstore.store:Store.append", False),  # nothing printed
    ("before:gitstore.cli.{command}:keep_current", True),  # the record printed, the files not rewritten
])
def test_a_command_killed_before_the_published_files_is_finished_by_running_it_again_and_succeeds(
        shared_world: World, tmp_path: Path, command: str, at: str, as_json: bool) -> None:  # noqa: F811
    root = published(shared_world, tmp_path)
    argv, refusal = _taking_out(command, shared_world, root)
    killed(root, at.format(command=command), *argv)
    sound(root)
    checks = doctor(root)
    [stale] = checks["published files"]
    assert stale["state"] == "fail" and stale["todo"] == "gitstore publish", stale
    assert shared_world.ids["jitter"] in stale["detail"]
    [note] = checks["unfinished"]
    assert note["state"] == "warn" and note["todo"] == shlex.join(["gitstore", *argv[:-2]]), note

    again = cli.gitstore(*argv, *(["--json"] if as_json else []), cwd=root)
    assert again.returncode == 0, again
    stored = audit(root, command)[-1]  # the killed run's
    if as_json:
        assert json.loads(again.stdout)["digest"] in stored["records"], again.stdout  # the record the killed run stored
        assert again.stderr.startswith(AGAIN) and "rewrote the published AGENTS.md" in again.stderr, again.stderr
    else:
        assert again.stdout.startswith(AGAIN) and "rewrote the published AGENTS.md" in again.stdout, again.stdout
    assert shared_world.ids["jitter"] not in (root / "AGENTS.md").read_text()
    checks = doctor(root)
    assert [c["state"] for c in checks["published files"]] == ["ok"] and "unfinished" not in checks
    assert len(audit(root, command)) == 2  # the world's own, and this one once

    repeated = cli.gitstore(*argv, cwd=root)
    assert repeated.returncode == 1 and refusal in repeated.stderr and AGAIN not in repeated.stdout, repeated
    assert len(audit(root, command)) == 2


def test_a_command_killed_before_its_append_does_not_pass_off_another_decision_as_its_own(
        shared_world: World, tmp_path: Path) -> None:  # noqa: F811
    """The killed run recorded nothing; the learning is retired by someone else meanwhile: the
    command run again is refused as a second request, and the killed run's note goes."""
    from gitstore.context import Context
    from gitstore.ops import learning

    root = published(shared_world, tmp_path)
    argv, refusal = _taking_out("retire", shared_world, root)
    killed(root, "before:gitstore.store:Store.append", *argv)
    assert "unfinished" in doctor(root)
    learning.retire(Context.open(str(root)), shared_world.ids["jitter"], "github:10", "superseded")
    refused = cli.gitstore(*argv, cwd=root)
    assert refused.returncode == 1 and refusal in refused.stderr and AGAIN not in refused.stdout, refused
    assert "rewrote the published AGENTS.md" in refused.stdout, "a refusal still brings the files up to date"
    assert "unfinished" not in doctor(root)



@pytest.mark.parametrize("command", ["withdraw", "retire"])
def test_a_publish_after_a_command_killed_past_its_append_finishes_it(
        shared_world: World, tmp_path: Path, command: str) -> None:  # noqa: F811
    """What the killed run had left is what a publish does: once a publish brought the files
    current, doctor names nothing unfinished, and the publish said whose job it finished."""
    root = published(shared_world, tmp_path)
    argv, refusal = _taking_out(command, shared_world, root)
    killed(root, "after:gitstore.store:Store.append", *argv)
    done = cli.gitstore("publish", cwd=root)
    assert done.returncode == 0, done
    assert f"finished what an interrupted `{shlex.join(['gitstore', *argv[:-2]])}` left undone" in done.stdout
    assert shared_world.ids["jitter"] not in (root / "AGENTS.md").read_text()
    checks = doctor(root)
    assert [c["state"] for c in checks["published files"]] == ["ok"] and "unfinished" not in checks
    repeated = cli.gitstore(*argv, cwd=root)
    assert repeated.returncode == 1 and refusal in repeated.stderr, repeated
    assert len(audit(root, command)) == 2  # the world's own, and the killed run's once


def test_a_publish_keeps_the_note_of_a_command_killed_before_its_append(
        shared_world: World, tmp_path: Path) -> None:  # noqa: F811
    """Killed before it recorded anything, the command's decision is still to be made: a
    publish leaves its note, and running it again makes it."""
    root = published(shared_world, tmp_path)
    argv, _ = _taking_out("retire", shared_world, root)
    killed(root, "before:gitstore.store:Store.append", *argv)
    done = cli.gitstore("publish", cwd=root)
    assert done.returncode == 0 and "interrupted" not in done.stdout, done
    [note] = doctor(root)["unfinished"]
    assert note["todo"] == shlex.join(["gitstore", *argv[:-2]])
    assert cli.gitstore(*argv, cwd=root).returncode == 0
    assert "unfinished" not in doctor(root)

# -- publish: its snapshot for rollback, then each file ---------------------------------------------

MINE = b"# Widgets\n\nOur own notes for agents.\n"


def _unpublished(world: World, target: Path) -> Path:
    """A copy of the delivery world with an AGENTS.md of the team's own, nothing published."""
    root = world.copy(target / "widgets").root
    (root / "AGENTS.md").write_bytes(MINE)
    return root


def _rollback(root: Path) -> list[tuple[str, str]]:
    done = json.loads(cli.ok("publish", "--rollback", "--json", cwd=root))
    return [(f["path"], f["action"]) for f in done["files"]]


def test_a_publish_killed_between_two_files_is_named_finished_and_rolled_back_whole(
        shared_world: World, tmp_path: Path) -> None:  # noqa: F811
    root = _unpublished(shared_world, tmp_path)
    killed(root, "after:gitstore.deliver.snapshots:write_file#1", "publish")
    assert MINE in (root / "AGENTS.md").read_bytes() and not (root / ".continual-learning").exists()
    sound(root)
    [stopped] = doctor(root)["published files"]
    assert stopped["state"] == "warn" and stopped["todo"] == "gitstore publish", stopped
    assert "stopped before it wrote .continual-learning/index.json" in stopped["detail"], stopped

    assert json.loads(cli.ok("publish", "--json", cwd=root))["status"] == "published"
    assert [c["state"] for c in doctor(root)["published files"]] == ["ok"]
    assert _rollback(root) == [(".continual-learning/index.json", "removed")]
    assert _rollback(root) == [("AGENTS.md", "restored")]  # the killed publish wrote it
    assert (root / "AGENTS.md").read_bytes() == MINE and not (root / ".continual-learning").exists()


def test_a_publish_asked_for_claude_md_killed_before_it_is_finished_by_the_command_doctor_prints(
        shared_world: World, tmp_path: Path) -> None:  # noqa: F811
    """A file the killed publish was creating is written again only when asked for: the advice
    asks for it, so following it writes CLAUDE.md and doctor no longer names the publish."""
    root = _unpublished(shared_world, tmp_path)
    killed(root, "after:gitstore.deliver.snapshots:write_file#1", "publish", "--claude")
    assert not (root / "CLAUDE.md").exists()
    [stopped] = doctor(root)["published files"]
    assert stopped["state"] == "warn" and "stopped before it wrote CLAUDE.md" in stopped["detail"], stopped
    assert stopped["todo"] == "gitstore publish --claude", stopped

    cli.ok(*stopped["todo"].split()[1:], cwd=root)
    assert shared_world.ids["jitter"] in (root / "CLAUDE.md").read_text()
    assert [c["state"] for c in doctor(root)["published files"]] == ["ok"]


def test_a_publish_killed_before_a_file_is_still_named_after_a_later_command_rewrote_the_others(
        shared_world: World, tmp_path: Path) -> None:  # noqa: F811
    """A retirement rewrites the published files that exist, with a snapshot of its own: the
    killed publish's CLAUDE.md, never written, is still named, with the command that writes it."""
    root = _unpublished(shared_world, tmp_path)
    killed(root, "after:gitstore.deliver.snapshots:write_file#1", "publish", "--claude")
    cli.ok("retire", shared_world.ids["jitter"], "--reason", "no longer holds", *BY, cwd=root)
    assert not (root / "CLAUDE.md").exists()
    [stopped] = [c for c in doctor(root)["published files"] if c["state"] != "ok"]
    assert stopped["state"] == "warn" and "stopped before it wrote CLAUDE.md" in stopped["detail"], stopped
    assert stopped["todo"] == "gitstore publish --claude", stopped

    cli.ok(*stopped["todo"].split()[1:], cwd=root)
    assert (root / "CLAUDE.md").exists()
    assert [c["state"] for c in doctor(root)["published files"]] == ["ok"]


def test_a_publish_killed_before_it_wrote_a_file_is_no_publish_to_roll_back(
        shared_world: World, tmp_path: Path) -> None:  # noqa: F811
    root = _unpublished(shared_world, tmp_path)
    killed(root, "after:gitstore.deliver.snapshots:save", "publish")
    assert (root / "AGENTS.md").read_bytes() == MINE
    refused = cli.fails(1, "publish", "--rollback", cwd=root)
    assert "nothing to roll back" in refused, refused
    cli.ok("publish", cwd=root)
    assert _rollback(root) == [("AGENTS.md", "restored"), (".continual-learning/index.json", "removed")]
    assert (root / "AGENTS.md").read_bytes() == MINE


def test_a_rollback_passes_over_a_later_publish_killed_before_it_wrote_a_file(
        shared_world: World, tmp_path: Path) -> None:  # noqa: F811
    from gitstore.context import Context
    from gitstore.ops import learning

    root = _unpublished(shared_world, tmp_path)
    cli.ok("publish", cwd=root)
    learning.retire(Context.open(str(root)), shared_world.ids["jitter_zh"], "github:9", "no longer holds")
    killed(root, "after:gitstore.deliver.snapshots:save", "publish")
    [stopped] = doctor(root)["published files"][:1]
    assert stopped["state"] == "warn" and "stopped before it wrote" in stopped["detail"], stopped
    assert _rollback(root) == [("AGENTS.md", "restored"), (".continual-learning/index.json", "removed")]
    assert (root / "AGENTS.md").read_bytes() == MINE
    assert "published files" not in doctor(root), "the killed publish went with the rollback"


def test_a_publish_killed_while_saving_its_snapshot_leaves_the_last_one_to_roll_back(
        shared_world: World, tmp_path: Path) -> None:  # noqa: F811
    from gitstore.context import Context
    from gitstore.ops import learning

    root = _unpublished(shared_world, tmp_path)
    cli.ok("publish", cwd=root)
    learning.retire(Context.open(str(root)), shared_world.ids["jitter"], "github:9", "no longer holds")
    killed(root, "after:pathlib:Path.write_bytes#1", "publish")  # the first prior state it saves
    assert shared_world.ids["jitter"] in (root / "AGENTS.md").read_text(), "nothing was written"
    assert _rollback(root) == [("AGENTS.md", "restored"), (".continual-learning/index.json", "removed")]
    assert (root / "AGENTS.md").read_bytes() == MINE
    cli.ok("publish", cwd=root)
    assert not [p.name for p in (root / "okf" / ".memory" / "publish").iterdir() if p.name.startswith(".")], \
        "the next publish removes what the killed one left"


def test_a_publish_killed_while_it_writes_a_file_leaves_no_stray_file_once_run_again(
        shared_world: World, tmp_path: Path) -> None:  # noqa: F811
    root = _unpublished(shared_world, tmp_path)
    killed(root, r"after:pathlib:Path.write_bytes#1~\.gitstore$", "publish")  # before its rename
    assert (root / "AGENTS.md").read_bytes() == MINE
    cli.ok("publish", cwd=root)
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root, capture_output=True,
                            text=True, check=True).stdout
    assert sorted(status.splitlines()) == ["?? .continual-learning/index.json", "?? AGENTS.md"], status


def test_a_rollback_killed_between_two_files_finishes_when_run_again(
        shared_world: World, tmp_path: Path) -> None:  # noqa: F811
    root = _unpublished(shared_world, tmp_path)
    cli.ok("publish", cwd=root)
    killed(root, "after:gitstore.deliver.snapshots:write_file#1", "publish", "--rollback")
    assert (root / "AGENTS.md").read_bytes() == MINE and (root / ".continual-learning").exists()
    assert _rollback(root) == [("AGENTS.md", "restored"), (".continual-learning/index.json", "removed")]
    assert not (root / ".continual-learning").exists()
    assert "nothing to roll back" in cli.fails(1, "publish", "--rollback", cwd=root)


# -- redact: the append, then export files, saved snapshots and published files ---------------------

COMMENT = "Retry loops need exponential backoff with full jitter."  # github:comment:c42, cited by jitter


@pytest.mark.parametrize("at", [
    "after:gitstore.store:Store.append",  # before the export files
    "before:gitstore.ops.redact:_scrub_snapshots",  # the export files rewritten
    "before:gitstore.cli.redact:keep_current",  # every copy of the text rewritten but the published files
])
def test_a_redaction_killed_midway_is_named_and_finished_by_running_it_again(
        shared_world: World, tmp_path: Path, at: str) -> None:  # noqa: F811
    root = published(shared_world, tmp_path)
    cli.ok("export", "--purpose", "instruction", "--with-evidence", *BY, cwd=root)
    [export] = (root / "okf" / ".memory" / "exports").glob("*.jsonl")
    argv = ("redact", "--comment", "github:comment:c42", "--reason", "the author asked", *BY)
    killed(root, at, *argv)
    sound(root)
    checks = doctor(root)
    if "keep_current" in at:
        assert "unfinished" not in checks and COMMENT not in export.read_text()
    else:
        [note] = checks["unfinished"]
        assert note["state"] == "fail" and "github:comment:c42" in note["detail"], note
        assert note["todo"] == "gitstore redact --comment github:comment:c42 --reason 'the author asked' && gitstore gc"
        assert commands(note["todo"]) == [note["todo"]]
    assert [c["state"] for c in checks["published files"]] == ["fail"]

    again = cli.ok(*argv, cwd=root)
    assert "removed the text of 0 event(s); 1 were already removed" in again, again
    assert COMMENT not in export.read_text() and COMMENT not in (root / "AGENTS.md").read_text()
    checks = doctor(root)
    assert "unfinished" not in checks and [c["state"] for c in checks["published files"]] == ["ok"]
    assert len(audit(root, "redact")) == 2  # the world's own, and this one once


# -- promote: the packet, then the branch (or the overlay page), then the push ----------------------

@pytest.fixture(scope="module")
def promotion_world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A repository with a wiki and an accepted learning the rubric sends to a wiki page."""
    from .conftest import GIT_ENV
    from .promotion_world import accepted_learning, wiki_repo

    with pytest.MonkeyPatch.context() as patch:
        for key, value in GIT_ENV.items():
            patch.setenv(key, value)
        ctx = wiki_repo(tmp_path_factory.mktemp("promotion") / "widgets")
        return ctx.workspace.root, accepted_learning(ctx)["id"]


def _promotion_copy(world: tuple[Path, str], target: Path) -> tuple[Path, str]:
    root = target / "widgets"
    copy_as_moved(world[0], root)
    return root, world[1]


def _packets(root: Path) -> list[str]:
    return [line.split()[0] for line in cli.ok("records", "list", "--kind", "packet", cwd=root).splitlines()]


def _pushes_to_a_bare_repository(root: Path, target: Path) -> Path:
    """origin becomes a bare repository whose own origin is the one it replaces, so the scope
    stays the origin's: ``--push`` syncs memory with it, fetching first, then pushes."""
    bare = target / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    url = subprocess.run(["git", "remote", "get-url", "origin"], cwd=root, capture_output=True, text=True,
                         check=True).stdout.strip()
    subprocess.run(["git", "remote", "add", "origin", url], cwd=bare, check=True)
    subprocess.run(["git", "remote", "set-url", "origin", str(bare)], cwd=root, check=True)
    return bare


def _finished_once(root: Path, argv: tuple[str, ...]) -> dict[str, Any]:
    """doctor names the killed promotion; run again, it lands with the packet stored once."""
    [packet] = _packets(root)
    [note] = doctor(root)["unfinished"]
    assert note["state"] == "warn" and packet in note["detail"], note
    assert note["todo"] == " ".join(["gitstore", *argv[:-2]]), note  # as run, but for --by
    report = json.loads(cli.ok(*argv, "--json", cwd=root))
    assert report["packet"] == packet and _packets(root) == [packet], "the packet is stored once"
    assert len(audit(root, "promote")) == 1
    assert "unfinished" not in doctor(root)
    return report


def test_a_promotion_killed_before_its_branch_creates_it_when_run_again(
        promotion_world: tuple[Path, str], tmp_path: Path) -> None:
    root, learning = _promotion_copy(promotion_world, tmp_path)
    argv = ("promote", learning, *BY)
    killed(root, "before:gitstore.promote.branch:create_branch", *argv)
    sound(root)
    assert subprocess.run(["git", "rev-parse", "--verify", "-q", f"memory/promote/{learning}"], cwd=root).returncode
    report = _finished_once(root, argv)
    branch = subprocess.run(["git", "log", "-1", "--format=%B", report["branch"]], cwd=root, capture_output=True,
                            text=True, check=True).stdout
    assert f"Gitstore-Packet: {report['packet']}" in branch


def test_a_promotion_killed_before_its_push_pushes_when_run_again(
        promotion_world: tuple[Path, str], tmp_path: Path) -> None:
    root, learning = _promotion_copy(promotion_world, tmp_path)
    bare = _pushes_to_a_bare_repository(root, tmp_path)
    argv = ("promote", learning, "--push", *BY)
    killed(root, "before:gitstore.promote.pr:push", *argv)
    sound(root)
    report = _finished_once(root, argv)
    assert report["push"]["done"], report
    pushed = subprocess.run(["git", "rev-parse", report["branch"]], cwd=bare, capture_output=True, text=True)
    assert pushed.stdout.strip() == report["commit"], pushed


def test_a_promotion_killed_before_its_overlay_page_writes_it_when_run_again(
        promotion_world: tuple[Path, str], tmp_path: Path) -> None:
    root, learning = _promotion_copy(promotion_world, tmp_path)
    argv = ("promote", learning, "--route", "0", *BY)
    killed(root, "before:gitstore.ops.promote:_write", *argv)
    sound(root)
    report = _finished_once(root, argv)
    assert (root / report["target"]).is_file() and report["written"] == [report["target"]]


# -- gc: the payload snapshots, then each repository's objects, then what killed appends left -------

ZH = "重试循环要用指数退避。"  # github:comment:c47


def _redacted_in_a_pack(world: World, target: Path) -> Path:
    """A copy of the delivery world whose objects are packed, then a comment redacted: its text
    is in a pack that gc rewrites."""
    root = world.copy(target / "widgets").root
    cli.ok("gc", cwd=root)
    subprocess.run(["git", "repack", "-a", "-d", "-q"], cwd=root, check=True)
    cli.ok("redact", "--comment", "github:comment:c47", "--reason", "the author asked", *BY, cwd=root)
    return root


def _pack_files(root: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in (root / ".git" / "objects" / "pack").glob("pack-*"):
        found.setdefault(path.stem, set()).add(path.suffix)
    return found


def _every_object(root: Path) -> str:
    return subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=root, capture_output=True,
                          check=True).stdout.decode("utf-8", "replace")


@pytest.mark.parametrize("at", [
    "before:gitstore.providers._gc_git:collect",  # the snapshots rewritten, no object erased yet
    r"after:pathlib:Path.unlink#1~/objects/pack/pack-[0-9a-f]+\.(pack|idx)$",  # a pack half removed
])
def test_a_gc_killed_midway_is_named_and_finishes_when_run_again(
        shared_world: World, tmp_path: Path, at: str) -> None:  # noqa: F811
    root = _redacted_in_a_pack(shared_world, tmp_path)
    assert ZH in _every_object(root)
    killed(root, at, "gc")
    if "unlink" in at:
        assert any(".pack" not in suffixes or ".idx" not in suffixes for suffixes in _pack_files(root).values())
    sound(root)
    [note] = doctor(root)["unfinished"]
    assert note["todo"] == "gitstore gc", note

    cli.ok("gc", cwd=root)
    assert all({".pack", ".idx"} <= suffixes for suffixes in _pack_files(root).values()), _pack_files(root)
    assert ZH not in _every_object(root)
    assert "unfinished" not in doctor(root)
    sound(root)


def test_a_gc_killed_before_it_wrote_the_multi_pack_index_and_commit_graph_again_leaves_them_whole_once_run_again(
        shared_world: World, tmp_path: Path) -> None:  # noqa: F811
    """A multi-pack index and a commit graph name the packs and commits gc erases; gc writes them
    again after its last pack. Killed right after the pack, the next gc (which finds nothing
    left to erase) still writes them again: they do not go on naming what is gone."""
    root = _redacted_in_a_pack(shared_world, tmp_path)
    for argv in (["multi-pack-index", "write"], ["commit-graph", "write", "--reachable"]):
        subprocess.run(["git", *argv], cwd=root, check=True, capture_output=True)
    killed(root, "after:gitstore.providers._gc_git:Collector._rewrite_pack", "gc")
    sound(root)

    cli.ok("gc", cwd=root)
    assert ZH not in _every_object(root)
    for argv in (["multi-pack-index", "verify"], ["commit-graph", "verify"], ["fsck", "--no-dangling"]):
        checked = subprocess.run(["git", *argv], cwd=root, capture_output=True, text=True)
        assert checked.returncode == 0 and "error" not in checked.stderr and "fail" not in checked.stderr, \
            (argv, checked.stderr)
    assert "unfinished" not in doctor(root)


# -- accept: one append, then whether agents get it; the published files follow at the loop's next publish

@pytest.mark.parametrize(("at", "as_json"), [
    ("after:gitstore.store:Store.append", False),
    ("before:gitstore.queries.learnings:standing", True),
])
def test_an_accept_killed_after_its_append_is_finished_by_running_it_again_and_the_loop_publishes_it(
        shared_world: World, tmp_path: Path, at: str, as_json: bool) -> None:  # noqa: F811
    from gitstore.context import Context

    from .world import Thread, propose, ref

    root = published(shared_world, tmp_path)
    ctx = Context.open(str(root))
    thread = Thread(ctx, 50, "c50", "2026-03-01T10:00:00.000000Z")
    event = thread.comment("c50", "Every cache key names its tenant.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    proposal = propose(ctx, [ref(event)], title="Tenant keys", text="Every cache key names its tenant.")
    config = root / "okf" / ".memory" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "loop": {"steps": {"publish": {}}}}))
    cli.ok("init", "--accept-changes", cwd=root)  # a person's edit, taken: a tick runs no loop init has not
    argv = ("accept", proposal["id"], "--review-digest", proposal["reviewDigest"], *BY)
    killed(root, at, *argv)
    sound(root)
    checks = doctor(root)
    [behind] = checks["published files"]
    assert behind["state"] == "warn" and behind["todo"] == "gitstore publish", behind
    [note] = checks["unfinished"]
    assert note["state"] == "warn" and note["todo"] == " ".join(["gitstore", *argv[:-2]]), note

    again = cli.gitstore(*argv, *(["--json"] if as_json else []), cwd=root)
    assert again.returncode == 0, again
    [decided] = [a for a in audit(root, "accept") if proposal["id"] in a["subjects"]]
    if as_json:
        shown = json.loads(again.stdout)
        assert shown["digest"] in decided["records"] and shown["standing"]["inForce"], shown
        assert again.stderr == f"{AGAIN}accepted {proposal['id']} (version 2)\n", again.stderr
    else:
        assert again.stdout == f"{AGAIN}accepted {proposal['id']} (version 2)\n", again.stdout
    assert "unfinished" not in doctor(root)

    repeated = cli.gitstore(*argv, cwd=root)
    assert repeated.returncode == 1, repeated
    assert f"{proposal['id']} is already accepted at this reviewDigest" in repeated.stderr, repeated
    assert len([a for a in audit(root, "accept") if proposal["id"] in a["subjects"]]) == 1
    assert cli.ok("tick", "publish", cwd=root).startswith("publish  ok")
    assert proposal["id"] in (root / "AGENTS.md").read_text()
    assert [c["state"] for c in doctor(root)["published files"]] == ["ok"]
