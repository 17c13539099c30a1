"""The team's repository renamed or moved to another owner or host (github.com/acme/widgets
becomes github.com/acme/gadgets): the memory stored under the scope it had is read again once
the default branch declares that scope a former one of this repository's (``.gitstore/scope.json``),
by every clone alike; until then it is named, with the declaration that keeps it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gitstore.context import Context

from . import cli
from .advice import checks, command
from .conftest import git
from .team import commit_all, proposal_of_two, sync, team_clone
from .world import accepted

OLD, NEW = "github.com/acme/widgets", "github.com/acme/gadgets"


def renamed(tmp: Path, new: str = NEW) -> Path:
    """The team's remote under its new name: a bare copy of it whose origin names ``new``."""
    moved = tmp / "gadgets.git"
    git(tmp, "clone", "-q", "--mirror", str(tmp / "remote.git"), str(moved))
    git(moved, "remote", "set-url", "origin", f"https://{new}.git")
    return moved


def moved_to(root: Path, moved: Path) -> None:
    """What each clone does after the rename: origin points at the new URL, and init takes it."""
    git(root, "remote", "set-url", "origin", str(moved))
    said = cli.ok("init", cwd=root)
    assert f"nor is the team's memory of {OLD}, until the default branch declares {OLD} a former scope" in said, said


def seen(root: Path) -> tuple[list[str], list[tuple[str, str, bool]]]:
    """The grants and the learnings (with their standing) a clone reads."""
    grants = sorted(g["digest"] for g in json.loads(cli.ok("grants", "--json", cwd=root)))
    learnings = sorted((item["id"], item["state"], item["usable"])
                       for item in json.loads(cli.ok("learnings", "--json", cwd=root)))
    return grants, learnings


def declare(root: Path, todo: str) -> None:
    """Run the declaration a to-do gives in ``root``, then push it to the default branch."""
    subprocess.run(["bash", "-c", command(todo)], cwd=root, check=True, capture_output=True)
    git(root, "push", "-q", "origin", "HEAD:main")


@pytest.mark.parametrize("host", ["github.com", "git.acme.example"])
def test_a_renamed_repository_reads_its_former_memory_once_the_default_branch_declares_it(tmp_path: Path,
                                                                                           host: str) -> None:
    """Renamed on its forge, or moved to a self-hosted server (whose scopes the store finds by
    their exact spelling, so a former one must be asked for too)."""
    new = f"{host}/acme/gadgets"
    alice, bob, proposal = proposal_of_two(tmp_path)
    accepted(alice, proposal)
    alice, bob = sync(alice, bob)
    a, b = alice.workspace.root, bob.workspace.root
    before = seen(b)
    assert before[0] and before[1] == [(proposal["id"], "accepted", True)] and seen(a) == before
    moved = renamed(tmp_path, new)
    for root in (a, b):
        moved_to(root, moved)
    # undeclared: the old memory is not read, sync names why, and doctor says how to keep it
    done = cli.gitstore("sync", cwd=b)
    assert done.returncode == 3 and f"is of scope '{OLD}', not this repository's '{new}'" in done.stdout, done
    assert seen(b) == ([], [])
    [left] = checks(b, "fetched memory")
    assert "it is read again once that ref moves" not in left["todo"], left
    assert left["todo"].startswith(f"if this repository was renamed or moved from {OLD}, declare it"), left
    declare(a, left["todo"])
    for root in (a, b):  # each clone syncs: the default branch brings the declaration
        done = cli.gitstore("sync", cwd=root)
        assert done.returncode == 0, (root, done.stdout, done.stderr)
    assert seen(a) == seen(b) == before
    assert checks(b, "fetched memory") == []
    assert cli.ok("verify", cwd=b).endswith(": ok\n")
    [former] = checks(b, "former scopes")
    assert former["state"] == "ok" and former["detail"].startswith(f"{OLD}: read as this repository's"), former
    carol = team_clone(tmp_path, moved, "carol").workspace.root  # cloned after the rename
    assert json.loads(cli.ok("status", "--json", cwd=carol))["scope"] == new
    assert seen(carol) == before
    # new records get the new scope, and every clone reads them beside the old ones
    made = json.loads(cli.ok("grant", "--purpose", "review", "--by", "github:10", "--json", cwd=b))
    scopes = {item.record["digest"]: item.record["scope"] for item in Context.open(b).store.items()}
    assert scopes[made["digest"]] == new and scopes[before[0][0]] == OLD
    cli.ok("sync", cwd=b)
    cli.ok("sync", cwd=carol)
    assert seen(carol) == seen(b) and made["digest"] in seen(carol)[0]


def test_a_local_scope_is_never_declared_a_former_one(tmp_path: Path) -> None:
    """A shared file cannot make a personal (local) scope's records this repository's: the
    declaration is refused whole, and doctor names it."""
    alice, bob, _ = proposal_of_two(tmp_path)
    a = alice.workspace.root
    (a / ".gitstore" / "scope.json").write_text(
        json.dumps({"schema": "gitstore.scope/v1", "formerly": [f"{OLD}-2", "local/0123456789abcdef"]}))
    commit_all(a, "Declare")
    git(a, "push", "-q", "origin", "main")
    [check] = checks(a, "former scopes")
    assert check["state"] == "warn" and "local/0123456789abcdef, a local scope" in check["detail"], check


def test_decisions_on_former_memory_are_made_and_pushed_under_its_scope(tmp_path: Path) -> None:
    """Once declared, a learning of the former scope can still be retired and a grant of it
    withdrawn: the learning's next version keeps its scope (its id and contentDigest cover it),
    its audit entry names that scope, a sync pushes them, and every clone reaches the verdict."""
    alice, bob, proposal = proposal_of_two(tmp_path)
    accepted(alice, proposal)
    alice, bob = sync(alice, bob)
    a, b = alice.workspace.root, bob.workspace.root
    [grant] = seen(b)[0]
    moved = renamed(tmp_path)
    for root in (a, b):
        moved_to(root, moved)
    cli.gitstore("sync", cwd=b)
    [left] = checks(b, "fetched memory")
    declare(a, left["todo"])
    for root in (a, b):
        cli.ok("sync", cwd=root)
    cli.ok("withdraw", grant, "--by", "github:10", cwd=b)
    cli.ok("retire", proposal["id"], "--by", "github:10", "--reason", "superseded by the new layout", cwd=b)
    assert "4 record(s) pushed" in cli.ok("sync", cwd=b)
    cli.ok("sync", cwd=a)
    for root in (a, b):
        assert seen(root)[1] == [(proposal["id"], "retired", False)]
        [shown] = json.loads(cli.ok("grants", "--json", cwd=root))
        assert shown["inForce"] == [] and shown["withdrawn"], shown
    scopes = {item.record["digest"]: (item.kind, item.record["scope"]) for item in Context.open(a).store.items()}
    assert {scope for kind, scope in scopes.values() if kind == "withdrawal"} == {NEW}
    assert {scope for kind, scope in scopes.values() if kind == "learning"} == {OLD}


def test_a_clone_pointed_at_the_new_url_reads_the_declared_memory_without_a_false_warning(tmp_path: Path) -> None:
    """A clone that points origin at the renamed repository once the declaration is there is not
    told that what it stored before is unread: it is read, before and after its init."""
    alice, bob, proposal = proposal_of_two(tmp_path)
    a, b = alice.workspace.root, bob.workspace.root
    before = seen(b)
    moved = renamed(tmp_path)
    moved_to(a, moved)
    cli.gitstore("sync", cwd=a)
    [left] = checks(a, "fetched memory")
    declare(a, left["todo"])
    git(b, "remote", "set-url", "origin", str(moved))
    git(b, "fetch", "-q", "origin")
    done = cli.gitstore("grants", "--json", cwd=b)
    assert done.stderr == "" and sorted(g["digest"] for g in json.loads(done.stdout)) == before[0], done
    assert checks(b, "scope") == []
    said = cli.ok("init", cwd=b)
    assert f"what it stored under {OLD} is read too" in said, said
    assert seen(b) == before and cli.gitstore("sync", cwd=b).returncode == 0


def delivered(root: Path) -> str:
    """What an agent is given for a prompt about the learning."""
    return cli.ok("context", "--prompt", "how should retries use jitter", cwd=root)


def test_agents_are_given_what_the_scope_reads_when_origin_or_the_declaration_changes(tmp_path: Path) -> None:
    """The delivery index is built from what the store reads under this clone's scope: once
    origin names another repository it is built again (the old scope's learnings are not in
    force here), and once the default branch declares that scope a former one, again (they are)."""
    alice, bob, proposal = proposal_of_two(tmp_path)
    accepted(alice, proposal)
    alice, bob = sync(alice, bob)
    a, b = alice.workspace.root, bob.workspace.root
    assert proposal["id"] in delivered(b)
    moved = renamed(tmp_path)
    moved_to(a, moved)
    git(b, "remote", "set-url", "origin", str(moved))  # bob stored nothing: his writer id stays
    cli.ok("init", cwd=b)
    assert seen(b)[1] == [] and proposal["id"] not in delivered(b)
    cli.gitstore("sync", cwd=a)
    declare(a, checks(a, "fetched memory")[0]["todo"])
    git(b, "fetch", "-q", "origin", "main")  # the declaration alone: no ref of memory moves
    assert seen(b)[1] == [(proposal["id"], "accepted", True)] and proposal["id"] in delivered(b)
