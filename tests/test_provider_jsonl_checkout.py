"""A jsonl store whose log git deletes or replaces is refused, never read as an empty store.

The store's files are ignored, in the work tree: a branch whose commits hold their names makes
a checkout overwrite them, and the checkout back delete them (two pulls do the same), the log
beside them (``records.jsonl.acks``) with them. What the clone's appends acknowledged is kept
where no checkout reaches, in its git folder (``gitstore/jsonl.acked``): reads and appends
refuse a log holding fewer lines than it counts, or any line up to that count changed, and no
later append lowers it, so ``verify`` keeps reporting the loss.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from gitstore.config import STATE_DIR
from gitstore.errors import IntegrityError

from . import cli
from .conftest import git

STORE = f"{STATE_DIR.as_posix()}/jsonl"


def _jsonl_repo(repo: Path) -> Path:
    cli.ok("init", "--provider", "jsonl", cwd=repo)
    cli.ok("grant", "--purpose", "instruction", "--source", "agent-session", "--note", "first", cwd=repo)
    cli.ok("grant", "--purpose", "review", "--source", "review-thread", "--note", "second", cwd=repo)
    return repo


def _vouching(repo: Path) -> Path:
    return Path(git(repo, "rev-parse", "--absolute-git-dir").strip()) / "gitstore" / "jsonl.acked"


def _branch_holding_the_store(repo: Path, name: str, content: bytes) -> None:
    """A branch, made without touching the work tree, whose commit holds the store's file
    names (the log and the log beside it), as anyone who can push a branch can make."""
    env = {**os.environ, "GIT_INDEX_FILE": str(repo / ".git" / "other-index")}

    def plumbing(*args: str, given: bytes = b"") -> str:
        done = subprocess.run(["git", *args], cwd=repo, env=env, input=given, check=True, capture_output=True)
        return done.stdout.decode().strip()

    blob = plumbing("hash-object", "-w", "--stdin", given=content)
    plumbing("read-tree", "HEAD")
    for file in ("records.jsonl", "records.jsonl.acks"):
        plumbing("update-index", "--add", "--cacheinfo", f"100644,{blob},{STORE}/{file}")
    commit = plumbing("commit-tree", "-p", "HEAD", "-m", "harmless", plumbing("write-tree"))
    (repo / ".git" / "other-index").unlink()
    git(repo, "branch", name, commit)


def _refused(repo: Path, *args: str) -> str:
    failed = cli.fails(3, *args, cwd=repo)
    assert failed.count("\n") == 1 and "Traceback" not in failed, failed
    return failed


def test_a_checkout_of_a_branch_holding_the_store_and_back_is_refused_and_stays_reported(repo: Path) -> None:
    root = _jsonl_repo(repo)
    records = root / STORE / "records.jsonl"
    vouched = _vouching(root).read_text()
    assert vouched.startswith("2 sha256:")
    base = git(root, "rev-parse", "--abbrev-ref", "HEAD").strip()
    _branch_holding_the_store(root, "elsewhere", b'{"x":1}\n')
    git(root, "checkout", "-q", "elsewhere")
    assert "came through git" in cli.fails(1, "grants", cwd=root)  # while there, its files are the commit's
    git(root, "checkout", "-q", base)
    assert not records.exists() and not (root / STORE / "records.jsonl.acks").exists()
    for command in (("grants",), ("records", "list"), ("verify",)):
        failed = _refused(root, *command)
        assert str(records) in failed and "2 acknowledged line(s) are missing" in failed, failed
    # an append is refused too: it neither makes the log again nor records a smaller count
    _refused(root, "grant", "--purpose", "review", "--source", "manual", "--note", "third")
    assert not records.exists() and _vouching(root).read_text() == vouched
    failed = _refused(root, "verify")
    assert "2 acknowledged line(s) are missing" in failed, failed


def test_a_log_holding_as_many_lines_but_not_the_acknowledged_one_is_refused(repo: Path) -> None:
    """Lines in another order (or another log as long): the count alone would let it pass."""
    root = _jsonl_repo(repo)
    records = root / STORE / "records.jsonl"
    first, second = records.read_bytes().splitlines(keepends=True)
    records.write_bytes(second + first)
    for command in (("grants",), ("grant", "--purpose", "review", "--source", "manual", "--note", "third")):
        failed = _refused(root, *command)
        assert f"{records}: line 1 is not the one this clone's appends wrote" in failed, failed
        assert first.decode().strip() not in failed and second.decode().strip() not in failed
    assert records.read_bytes() == second + first
    done = cli.gitstore("verify", cwd=root)
    assert done.returncode == 3 and "line 1 is not the one this clone's appends wrote" in done.stderr, done


def test_purge_forgets_what_the_appends_acknowledged(repo: Path) -> None:
    """Purge removes the memory on purpose: the clone set up again starts an empty store."""
    root = _jsonl_repo(repo)
    cli.ok("purge", "--confirm", "acme/widgets", cwd=root)
    assert not _vouching(root).exists()
    cli.ok("init", "--provider", "jsonl", cwd=root)
    assert "no grants" in cli.gitstore("grants", cwd=root).stdout + cli.gitstore("grants", cwd=root).stderr
    cli.ok("grant", "--purpose", "review", "--source", "manual", "--note", "again", cwd=root)
    assert _vouching(root).read_text().startswith("1 sha256:")
    assert "ok" in cli.ok("verify", cwd=root)


class _Emptied:
    """A store holding no append, where the git folder says this clone's appends acknowledged two."""

    def store_id(self) -> str:
        return "0" * 32

    def writers(self) -> frozenset[str]:
        return frozenset()

    def unvouched_writers(self) -> frozenset[str]:
        return frozenset()

    def vouched_appends(self) -> int:
        return 2


def test_a_store_holding_nothing_where_appends_were_acknowledged_is_damage_not_a_new_store() -> None:
    from gitstore.providers._anchor import is_own

    with pytest.raises(IntegrityError, match="acknowledged 2"):
        is_own(_Emptied(), "0" * 32, "alice")


def _granted_withdrawn_granted(repo: Path) -> Path:
    """A store holding a grant, its withdrawal, then another grant: three lines."""
    cli.ok("init", "--provider", "jsonl", cwd=repo)
    granted = json.loads(cli.ok("grant", "--purpose", "instruction", "--source", "agent-session",
                                "--note", "first", "--json", cwd=repo))
    cli.ok("withdraw", granted.get("grant") or granted.get("digest") or granted["id"], cwd=repo)
    cli.ok("grant", "--purpose", "review", "--source", "review-thread", "--note", "second", cwd=repo)
    return repo / STORE / "records.jsonl"


def test_a_log_with_an_earlier_line_replaced_is_refused(repo: Path) -> None:
    """Same count, same last line, the withdrawal swapped for a copy of the grant (a copy or a
    restore over the ignored file): the record vouches for every line, so the withdrawn grant
    never comes back, nothing is appended, and the record is not lowered."""
    records = _granted_withdrawn_granted(repo)
    vouched = _vouching(repo).read_text()
    assert len(vouched.split()) == 5 and vouched.startswith("3 sha256:")
    grant, _withdrawal, last = records.read_bytes().splitlines(keepends=True)
    records.write_bytes(grant + grant + last)
    for command in (("grants",), ("records", "list"),
                    ("grant", "--purpose", "review", "--source", "manual", "--note", "third")):
        failed = _refused(repo, *command)
        assert f"{records}: line 2 is not the one" in failed and "(they acknowledged 3 line(s)" in failed, failed
    assert records.read_bytes() == grant + grant + last and _vouching(repo).read_text() == vouched
    done = cli.gitstore("verify", cwd=repo)
    assert done.returncode == 3 and "line 2 is not the one" in done.stdout + done.stderr, done


def test_a_record_naming_the_last_line_alone_is_given_every_line_on_the_next_append(repo: Path) -> None:
    """A record written before it held the running digest (count and last line) is still
    taken; the next append, the file proving what it names, writes it with every line."""
    records = _granted_withdrawn_granted(repo)
    count, last_digest = _vouching(repo).read_text().split()[:2]
    _vouching(repo).write_text(f"{count} {last_digest}\n")
    assert "second" in cli.ok("grants", cwd=repo)
    cli.ok("grant", "--purpose", "review", "--source", "manual", "--note", "third", cwd=repo)
    assert _vouching(repo).read_text().startswith("4 sha256:") and len(_vouching(repo).read_text().split()) == 5
    lines = records.read_bytes().splitlines(keepends=True)
    records.write_bytes(lines[0] + lines[0] + b"".join(lines[2:]))
    assert f"{records}: line 2 is not the one" in _refused(repo, "grants")
