"""Damage to a git store that reads and ``verify`` must both refuse, each with exit code 3 and
one line, never a traceback: corrupt objects, refs pointing at the wrong thing, this clone's
refs deleted, rewound or given a clock that goes backwards."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pygit2
import pytest

from bench._process import copy_as_moved
from gitstore.context import Context
from gitstore.providers.git import payloads_ref, records_ref

from . import cli
from .advice import checks
from .conftest import git
from .world import reads_fail_closed, small_store

READS = (("records", "list"), ("learnings",), ("show", "LEARNING"))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A store with a grant, a review thread and an accepted learning, every object loose;
    returns the repository, the learning id and this clone's writer."""
    ctx, learning = small_store(tmp_path_factory.mktemp("damage") / "w")
    return ctx.workspace.root, learning, ctx.workspace.config.writer


@pytest.fixture
def store(built: tuple[Path, str, str], tmp_path: Path) -> tuple[Path, str, str]:
    root, learning, writer = built
    copy = tmp_path / "copy"
    copy_as_moved(root, copy)
    return copy, learning, writer


def _loose(root: Path, oid: str) -> Path:
    return root / ".git" / "objects" / oid[:2] / oid[2:]


def _tip(root: Path, writer: str) -> pygit2.Commit:
    repo = pygit2.Repository(str(root))
    return repo[repo.references[records_ref("shared", writer)].target]


def _a_record_blob(root: Path, writer: str) -> str:
    """A grant's blob in this clone's records tree (every read needs grants)."""
    tree = _tip(root, writer).tree
    folder = tree["grant"]
    while folder.type_str == "tree":
        folder = next(iter(pygit2.Repository(str(root))[folder.id]))  # type: ignore[call-overload]
    return str(folder.id)


def test_a_corrupt_loose_object_is_damage(store: tuple[Path, str, str]) -> None:
    root, learning, writer = store
    path = _loose(root, _a_record_blob(root, writer))
    path.chmod(0o644)
    path.write_bytes(b"\x78\x01this is not zlib at all")
    reads_fail_closed(root, learning)


def test_a_swapped_loose_object_is_damage(store: tuple[Path, str, str]) -> None:
    root, learning, writer = store
    blob = _a_record_blob(root, writer)
    other = str(_tip(root, writer).tree_id)
    path = _loose(root, blob)
    path.chmod(0o644)
    shutil.copyfile(_loose(root, other), path)
    reads_fail_closed(root, learning)


def test_flipped_pack_bytes_are_damage(store: tuple[Path, str, str]) -> None:
    root, learning, _ = store
    git(root, "repack", "-a", "-d", "-q")
    git(root, "prune-packed")
    pack = next((root / ".git" / "objects" / "pack").glob("*.pack"))
    data = bytearray(pack.read_bytes())
    for at in range(len(data) // 3, len(data) - 40, max(1, len(data) // 50)):
        data[at] ^= 0xFF
    pack.chmod(0o644)
    pack.write_bytes(bytes(data))
    reads_fail_closed(root, learning)


@pytest.mark.parametrize("target", ["blob", "tree", "missing"])
def test_a_memory_ref_pointing_at_the_wrong_thing_is_damage(store: tuple[Path, str, str], target: str) -> None:
    root, learning, writer = store
    repo = pygit2.Repository(str(root))
    tip = _tip(root, writer)
    oid = {"blob": lambda: repo.create_blob(b"not a commit"), "tree": lambda: tip.tree_id,
           "missing": lambda: pygit2.Oid(hex="13" * 20)}[target]()
    ref = root / ".git" / "refs" / "memory" / "v1" / "records" / "shared" / writer
    ref.parent.mkdir(parents=True, exist_ok=True)
    ref.write_text(f"{oid}\n")
    reads_fail_closed(root, learning, records_ref("shared", writer))


@pytest.mark.parametrize("kind", ["records", "payloads"])
def test_a_deleted_ref_of_this_clone_is_damage(store: tuple[Path, str, str], kind: str) -> None:
    root, learning, writer = store
    name = records_ref("shared", writer) if kind == "records" else payloads_ref("shared", writer)
    git(root, "update-ref", "-d", name)
    reads_fail_closed(root, learning, name)


def test_a_rewound_ref_fails_reads_closed(store: tuple[Path, str, str]) -> None:
    root, learning, writer = store
    name = records_ref("shared", writer)
    first = git(root, "rev-list", "--reverse", name).split()[0]
    git(root, "update-ref", name, first)
    reads_fail_closed(root, learning, "moved back")


def test_a_clock_going_backwards_fails_reads_closed(store: tuple[Path, str, str]) -> None:
    root, learning, writer = store
    repo = pygit2.Repository(str(root))
    name = records_ref("shared", writer)
    tip = repo[repo.references[name].target]
    message = tip.message.replace(f"Clock: {_clock(tip.message)}\n", "Clock: 1\n")
    forged = repo.create_commit(None, tip.author, tip.committer, message, tip.tree_id, tip.parent_ids)
    repo.references.create(name, forged, force=True)
    log = root / ".git" / "gitstore" / f"records-shared-{writer}.tips"
    with open(log, "a") as out:  # as if this clone had written it: only the clock is wrong
        out.write(f"{forged}\n")
    reads_fail_closed(root, learning, "clock")


def _clock(message: str) -> int:
    return int(next(line for line in message.splitlines() if line.startswith("Clock: ")).split()[1])


def test_the_undamaged_copy_reads_fine(store: tuple[Path, str, str]) -> None:
    root, learning, _ = store
    cli.ok("verify", cwd=root)
    for args in READS:
        cli.ok(*(learning if a == "LEARNING" else a for a in args), cwd=root)
    assert Context.open(str(root)).store.verify().ok
    assert os.path.isdir(root / ".git" / "gitstore")


@pytest.mark.parametrize("damage", [b"zz\xff", b"not a commit id\n", b"g" * 40 + b"\n"])
def test_a_damaged_tips_log_is_damage_not_fewer_acknowledged_appends(
        store: tuple[Path, str, str], damage: bytes) -> None:
    """The log of what this clone acknowledged overwritten: a ref moved back since is not taken
    as it stands, and reads, verify, doctor and gc name the log instead of reading it as empty."""
    root, learning, writer = store
    name = records_ref("shared", writer)
    first = git(root, "rev-list", "--reverse", name).split()[0]
    git(root, "update-ref", name, first)
    log = root / ".git" / "gitstore" / f"records-shared-{writer}.tips"
    log.write_bytes(damage)
    reads_fail_closed(root, learning, str(log))
    said = cli.fails(3, "gc", cwd=root)
    assert str(log) in said, said
    [check] = checks(root, "provider")
    assert check["state"] == "fail" and str(log) in check["detail"], check
    assert log.read_bytes() == damage and git(root, "rev-parse", name).strip() == first  # nothing mended unasked
