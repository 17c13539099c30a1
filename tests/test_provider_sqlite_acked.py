"""A sqlite store's appends are vouched for by the clone's git folder, never by the file alone.

Anyone can rewrite a row of ``okf/.memory/store.sqlite`` in place: swap two appends' clocks (a
retirement then reads as one that lost a race, and the learning is back in force), move the
first append's clock, rewrite an append's writer. What the clone's appends acknowledged, their
count and a running digest of their clocks, writers, namespaces and record digests in append
order, is kept in the git folder (``gitstore/sqlite.acked``): reads refuse rows that are not the
ones this clone wrote, and ``verify`` reports them, as the jsonl store's lines are checked.
"""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest

from gitstore.config import STATE_DIR

from . import cli
from .conftest import git

DATABASE = f"{STATE_DIR.as_posix()}/store.sqlite"


def _sqlite_repo(repo: Path) -> Path:
    cli.ok("init", "--provider", "sqlite", cwd=repo)
    for note in ("first", "second", "third"):
        cli.ok("grant", "--purpose", "review", "--source", "review-thread", "--note", note, cwd=repo)
    return repo


def _vouching(repo: Path) -> Path:
    return Path(git(repo, "rev-parse", "--absolute-git-dir").strip()) / "gitstore" / "sqlite.acked"


def _edit(repo: Path, *statements: str) -> None:
    conn = sqlite3.connect(repo / DATABASE)
    try:
        with conn:
            for statement in statements:
                conn.execute(statement)
    finally:
        conn.close()


def _refused(repo: Path, *args: str) -> str:
    failed = cli.fails(3, *args, cwd=repo)
    assert "Traceback" not in failed, failed
    return failed


def _damaged(repo: Path) -> str:
    done = cli.gitstore("verify", cwd=repo)
    assert done.returncode == 3 and "Traceback" not in done.stderr, (done.stdout, done.stderr)
    return str(done.stderr)


def _swap(one: int, other: int) -> tuple[str, ...]:
    return tuple(f"UPDATE {table} SET clock = {new} WHERE clock = {old}"
                 for old, new in ((one, 99), (other, one), (99, other)) for table in ("records", "appends"))


EDITS = {
    "two appends' clocks swapped": _swap(2, 3),
    "the first append's clock moved": ("UPDATE records SET clock = 9 WHERE clock = 1",
                                       "UPDATE appends SET clock = 9 WHERE clock = 1"),
    "an append's writer rewritten": ("UPDATE records SET writer = 'wzzzzzzzzzzzz' WHERE clock = 2",
                                     "UPDATE appends SET writer = 'wzzzzzzzzzzzz' WHERE clock = 2"),
}


def test_the_git_folder_records_the_appends_acknowledged(repo: Path) -> None:
    root = _sqlite_repo(repo)
    assert _vouching(root).read_text().splitlines()[-1].startswith("3 sha256:")
    assert cli.ok("verify", cwd=root).strip().endswith("ok")
    assert cli.ok("grants", cwd=root).count("review-thread") == 3


def test_a_record_line_cut_short_counts_the_one_before_and_is_written_past(repo: Path) -> None:
    root = _sqlite_repo(repo)
    record = _vouching(root)
    with record.open("ab") as log:
        log.write(b"4 sha256:0123")  # a line a crash cut short: no append counts it
    assert cli.ok("grants", cwd=root).count("review-thread") == 3
    cli.ok("grant", "--purpose", "review", "--source", "manual", "--note", "fourth", cwd=root)
    assert record.read_text().splitlines()[-1].startswith("4 sha256:")
    assert cli.ok("verify", cwd=root).strip().endswith("ok")


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_rows_rewritten_behind_the_store_fail_reads_and_verify(repo: Path, edit: str) -> None:
    root = _sqlite_repo(repo)
    vouched = _vouching(root).read_text()
    _edit(root, *EDITS[edit])
    for command in (("grants",), ("records", "list")):
        assert str(root / DATABASE) in _refused(root, *command)
    failed = _damaged(root)
    assert "not the ones this clone's appends wrote" in failed or "clock" in failed, failed
    # an append is refused too, and never records the rewritten rows as this clone's
    _refused(root, "grant", "--purpose", "review", "--source", "manual", "--note", "fourth")
    assert _vouching(root).read_text() == vouched


def test_swapped_clocks_are_named_by_verify(repo: Path) -> None:
    root = _sqlite_repo(repo)
    _edit(root, *EDITS["two appends' clocks swapped"])
    failed = _damaged(root)
    assert "append 2 in append order" in failed and "has clock 3" in failed, failed
    assert "the first 3 append(s) are not the ones this clone's appends wrote" in failed, failed


def test_the_rows_put_back_read_again(repo: Path) -> None:
    root = _sqlite_repo(repo)
    _edit(root, *EDITS["two appends' clocks swapped"])
    _refused(root, "grants")
    _edit(root, *EDITS["two appends' clocks swapped"])
    assert cli.ok("verify", cwd=root).strip().endswith("ok")
    cli.ok("grant", "--purpose", "review", "--source", "manual", "--note", "fourth", cwd=root)
    assert _vouching(root).read_text().splitlines()[-1].startswith("4 sha256:")


def _anchor(repo: Path, name: str = "sqlite") -> Path:
    return _vouching(repo).with_name(f"{name}.store")


@pytest.mark.parametrize("how", ["deleted", "emptied"])
def test_a_store_deleted_or_emptied_is_damage_never_a_new_store(repo: Path, how: str, tmp_path: Path) -> None:
    root = _sqlite_repo(repo)
    anchor = _anchor(root).read_text()
    backup = tmp_path / "backup"
    backup.mkdir()
    files = sorted((root / DATABASE).parent.glob("store.sqlite*"))
    for file in files:
        (backup / file.name).write_bytes(file.read_bytes())
        file.unlink()
    if how == "emptied":
        (root / DATABASE).write_bytes(b"")
    for command in (("grants",), ("records", "list")):
        failed = _refused(root, *command)
        assert "3 acknowledged append(s) are missing" in failed or "acknowledged 3" in failed, failed
    assert "acknowledged" in _damaged(root)
    doctor = cli.gitstore("doctor", cwd=root)
    assert doctor.returncode != 0 and "acknowledged" in doctor.stdout + doctor.stderr
    _refused(root, "grant", "--purpose", "review", "--source", "manual", "--note", "fourth")
    assert (root / DATABASE).exists() == (how == "emptied")  # never made again by a command
    assert _anchor(root).read_text() == anchor  # never anchored to an empty store
    for file in backup.iterdir():  # the copy put back is the clone's store again
        (root / DATABASE).with_name(file.name).write_bytes(file.read_bytes())
    assert cli.ok("verify", cwd=root).strip().endswith("ok")
    assert cli.ok("grants", cwd=root).count("review-thread") == 3


@pytest.mark.parametrize("provider", ["sqlite", "jsonl"])
def test_init_after_git_clean_names_the_missing_store(repo: Path, provider: str, tmp_path: Path) -> None:
    cli.ok("init", "--provider", provider, cwd=repo)
    cli.ok("grant", "--purpose", "review", "--source", "review-thread", "--note", "kept", cwd=repo)
    state = repo / STATE_DIR
    backup = tmp_path / "backup"
    subprocess.run(["cp", "-a", str(state), str(backup)], check=True)
    git(repo, "clean", "-fdXq")
    assert not state.exists()
    for args in (("init",), ("init", "--provider", provider)):
        failed = _refused(repo, *args)
        assert f"this clone's {provider} store" in failed and "are missing" in failed, failed
        assert "gitstore purge" in failed and "restore okf/.memory/" in failed, failed
    assert not (state / "config.json").exists()  # no fresh clone set up over the lost store
    subprocess.run(["rm", "-rf", str(state)], check=True)
    subprocess.run(["cp", "-a", str(backup), str(state)], check=True)
    assert cli.ok("verify", cwd=repo).strip().endswith("ok")
    assert "kept" in cli.ok("grants", cwd=repo)

