"""``gitstore doctor``'s advice, followed literally: each test makes a condition for real in a
temporary repository, runs ``gitstore doctor`` in a folder below its root, runs the command its
"to do" line prints from there, as a person would copy it, and runs doctor again, which no
longer names the condition."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

from gitstore.ops.setup import init

from . import cli
from .conftest import git
from .team import keypair, sign_as
from .world import T0, Thread, accepted, grant_all, propose, ready_repo, ref

BRANCH_COMMIT = "git add :/.gitstore/ && git commit -m 'gitstore policy'"
ON_MAIN = f"{BRANCH_COMMIT} on main, or on a branch merged into it (the policy counts once main holds it)"


def below(root: Path) -> Path:
    """A folder two levels below the work tree's root (empty, so git does not see it)."""
    folder = root / "src" / "deep"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def checks(root: Path, name: str) -> list[dict[str, Any]]:
    """doctor's checks of one name, as ``gitstore doctor --json`` prints them run below the root."""
    report = json.loads(cli.gitstore("doctor", "--json", cwd=below(root)).stdout)
    return [c for c in report["checks"] if c["check"] == name]


def run(root: Path, command: str) -> None:
    """Run one printed command line below the root as a shell would: ``gitstore ...`` through the
    CLI, the rest (git) in a shell; each must succeed."""
    if command.startswith("gitstore "):
        cli.ok(*shlex.split(command)[1:], cwd=below(root))
    else:
        subprocess.run(command, shell=True, cwd=below(root), check=True, capture_output=True)


# -- trust: who may decide ------------------------------------------------------------------------

def test_a_policy_written_but_not_committed_is_named_with_the_commit_that_makes_it_count(
        repo: Path, tmp_path: Path) -> None:
    init(repo)
    key, _ = keypair(tmp_path / "keys", "alice")
    sign_as(repo, key.with_name(key.name + ".pub"))
    [check] = checks(repo, "trust")
    assert check["state"] == "warn" and check["todo"] == f"gitstore policy init, then {ON_MAIN}", check
    run(repo, "gitstore policy init")
    [check] = checks(repo, "trust")
    assert check["state"] == "warn" and ".gitstore/policy.json" in check["detail"], check
    assert check["todo"] == ON_MAIN, "policy init again would refuse: the files are there"
    run(repo, BRANCH_COMMIT)
    [check] = checks(repo, "trust")
    assert check["state"] == "ok" and "this clone signs as git:test@example.com" in check["detail"], check


def test_a_signing_key_the_policy_does_not_list_is_added_and_committed(repo: Path, tmp_path: Path) -> None:
    init(repo)
    first, _ = keypair(tmp_path / "keys", "first")
    sign_as(repo, first.with_name(first.name + ".pub"))
    run(repo, "gitstore policy init")
    run(repo, BRANCH_COMMIT)
    second, _ = keypair(tmp_path / "keys", "second")
    sign_as(repo, second.with_name(second.name + ".pub"))
    [check] = checks(repo, "trust")
    assert check["state"] == "warn" and "the policy lists nobody for the key" in check["detail"], check
    add = "gitstore policy add git:test@example.com"
    assert check["todo"].startswith(f"{add} (it lists the key user.signingkey names), then {ON_MAIN}"), check
    run(repo, add)
    run(repo, BRANCH_COMMIT)
    [check] = checks(repo, "trust")
    assert check["state"] == "ok" and "this clone signs as git:test@example.com" in check["detail"], check


def test_a_person_without_a_key_gets_one_and_keeps_only_their_actions(repo: Path, tmp_path: Path) -> None:
    init(repo)
    key, _ = keypair(tmp_path / "keys", "alice")
    sign_as(repo, key.with_name(key.name + ".pub"))
    run(repo, "gitstore policy init")
    policy = json.loads((repo / ".gitstore" / "policy.json").read_text())
    policy["people"]["github:77"] = ["accept"]
    (repo / ".gitstore" / "policy.json").write_text(json.dumps(policy))
    run(repo, BRANCH_COMMIT)
    [_, keyless] = checks(repo, "trust")
    assert keyless["state"] == "warn" and "github:77 may decide but the policy lists no key" in keyless["detail"]
    bob, _ = keypair(tmp_path / "keys", "bob")
    command, then = keyless["todo"].split(", then ", 1)
    assert command == "gitstore policy add github:77 --key THEIR_KEY.pub --may accept" and then == ON_MAIN
    run(repo, command.replace("THEIR_KEY.pub", f"{bob}.pub"))
    run(repo, BRANCH_COMMIT)
    assert [c["state"] for c in checks(repo, "trust")] == ["ok"]
    assert json.loads((repo / ".gitstore" / "policy.json").read_text())["people"]["github:77"] == ["accept"]


# -- init: set up, the state folder ignored ---------------------------------------------------------

def test_a_gitignore_line_that_unignores_the_state_folder_is_named(repo: Path) -> None:
    init(repo)
    (repo / ".gitignore").write_text("!okf/.memory/\nbuild/\n")
    [check] = checks(repo, "init")
    assert check["state"] == "fail" and "NOT ignored by git" in check["detail"], check
    assert check["todo"] == ("remove line 1 of .gitignore (!okf/.memory/: it makes git track okf/.memory/), "
                             "then gitstore init"), "gitstore init alone adds a rule that line overrides"
    (repo / ".gitignore").write_text("build/\n")
    run(repo, "gitstore init")
    assert [c["state"] for c in checks(repo, "init")] == ["ok"]


def test_a_config_init_refuses_is_to_be_fixed_not_made_again(repo: Path) -> None:
    init(repo)
    config = repo / "okf" / ".memory" / "config.json"
    writer = json.loads(config.read_text())["writer"]
    config.write_text(json.dumps({"writer": writer, "captur": {"mode": "summary"}}))
    [check] = checks(repo, "init")
    assert check["state"] == "fail" and "unknown field 'captur'" in check["detail"], check
    assert check["todo"] == ("fix okf/.memory/config.json as it says (gitstore init keeps it: its writer id names "
                             "this clone's memory refs)")
    assert cli.gitstore("init", cwd=below(repo)).returncode == 1, "init refuses the file it would read"
    config.write_text(json.dumps({"writer": writer}))
    assert [c["state"] for c in checks(repo, "init")] == ["ok"]


# -- what a push sends --------------------------------------------------------------------------------

def test_a_push_of_every_ref_is_switched_off_by_the_git_config_printed(repo: Path) -> None:
    init(repo)
    git(repo, "config", "--add", "remote.origin.push", "+refs/*:refs/*")
    [check] = checks(repo, "remote origin push")
    assert check["state"] == "warn" and "+refs/*:refs/*" in check["detail"], check
    run(repo, check["todo"])  # there is no mirror setting to unset
    assert checks(repo, "remote origin push") == []
    git(repo, "config", "remote.origin.mirror", "true")
    [check] = checks(repo, "remote origin push")
    assert check["state"] == "warn" and "deletes there the memory refs of other clones" in check["detail"], check
    run(repo, check["todo"])
    assert checks(repo, "remote origin push") == []
    assert git(repo, "config", "--get-all", "remote.origin.fetch").count("\n") == 3, "nothing else removed"


def test_personal_session_refs_in_the_repositorys_own_refs_are_named_and_moved_by_init(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "widgets")
    root = ctx.workspace.root
    Thread(ctx, None, "s1", kind="agent-session").save()  # moved below where an earlier gitstore kept it
    local = root / ".git" / "gitstore" / "local"
    names = git(local, "for-each-ref", "--format=%(refname)", "refs/memory/").split()
    assert names, "the session's records"
    git(root, "fetch", "-q", str(local), *(f"{n}:{n}" for n in names))
    for name in names:
        git(local, "update-ref", "-d", name)
    push = checks(root, "push")
    assert [c["state"] for c in push] == ["warn", "ok"], push
    assert all(n in push[0]["detail"] for n in names) and "where a push can send them" in push[0]["detail"]
    assert push[0]["todo"].startswith("gitstore init ")
    run(root, "gitstore init")
    push = checks(root, "push")
    assert [c["state"] for c in push] == ["ok"] and "never pushed" in push[0]["detail"], push
    assert git(root, "for-each-ref", "refs/memory/v1/records/local/") == ""


# -- published files ------------------------------------------------------------------------------------

def test_a_stale_published_file_publish_refuses_is_fixed_before_publishing(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "widgets")
    root = ctx.workspace.root
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Retries need jitter, or every client retries at once.", T0)
    thread.save()
    learning = accepted(ctx, propose(ctx, [ref(comment)]))
    cli.ok("publish", cwd=root)
    agents = root / "AGENTS.md"
    published = agents.read_text()
    agents.write_text(published.replace("Every retry", "EVERY retry"))  # an edit inside the section
    cli.ok("retire", learning["id"], "--reason", "obsolete", "--by", "github:9", cwd=root)
    stale = {c["state"]: c for c in checks(root, "published files")}
    assert "edited by hand" in stale["warn"]["detail"] and learning["id"] in stale["fail"]["detail"], stale
    assert stale["fail"]["todo"] == "fix what the warning above names in AGENTS.md, then gitstore publish", \
        "gitstore publish alone refuses the edited section"
    agents.write_text(published)  # the edit moved out of the markers: here, dropped
    run(root, "gitstore publish")
    assert [c["state"] for c in checks(root, "published files")] == ["ok"]


# -- provider: what every read and write checks first ---------------------------------------------------

def test_an_own_ref_moved_back_or_deleted_is_restored_by_the_update_ref_printed(tmp_path: Path) -> None:
    from gitstore.providers.git import records_ref

    ctx = ready_repo(tmp_path / "widgets")
    root = ctx.workspace.root
    grant_all(ctx)
    grant_all(ctx, purposes=("review",))
    ref = records_ref("shared", ctx.workspace.config.writer)
    tip = git(root, "rev-parse", ref).strip()
    for damage in (("update-ref", ref, f"{ref}~1"), ("update-ref", "-d", ref)):
        git(root, *damage)
        assert cli.gitstore("grants", cwd=root).returncode == 3, "every read refuses it"
        [check] = checks(root, "provider")
        assert check["state"] == "fail" and check["todo"] == f"git update-ref {ref} {tip}", check
        run(root, check["todo"])
        assert [c["state"] for c in checks(root, "provider")] == ["ok"]
        assert cli.ok("verify", cwd=root).endswith(": ok\n")


def test_a_local_ref_deleted_is_restored_in_the_local_namespace_s_repository(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "widgets")
    root = ctx.workspace.root
    Thread(ctx, None, "s1", kind="agent-session").save()
    local = root / ".git" / "gitstore" / "local"
    [ref] = git(local, "for-each-ref", "--format=%(refname)", "refs/memory/").split()
    tip = git(local, "rev-parse", ref).strip()
    git(local, "update-ref", "-d", ref)
    [check] = checks(root, "provider")
    assert check["state"] == "fail" and check["todo"] == f"git --git-dir={local.resolve()} update-ref {ref} {tip}", check
    run(root, check["todo"])
    assert [c["state"] for c in checks(root, "provider")] == ["ok"]


# -- the hook log ---------------------------------------------------------------------------------------

def test_a_hook_log_read_is_removed_by_the_command_printed(repo: Path) -> None:
    from gitstore.capture.hooklog import log

    init(repo)
    log(str(repo), "codex", "capture failed: the transcript could not be read")
    [check] = checks(repo, "hook log")
    assert check["state"] == "warn" and "the transcript could not be read" in check["detail"], check
    command = check["todo"].removeprefix("fix what the last lines name, then ").split(" (the log only grows")[0]
    assert command == f"rm {repo / 'okf' / '.memory' / 'logs' / 'hooks.log'}", check["todo"]
    run(repo, command)
    assert [c["state"] for c in checks(repo, "hook log")] == ["ok"]


def test_a_committed_config_is_named_and_untracked_by_the_command_printed(repo: Path) -> None:
    """A config.json committed by hand gives every clone that checks it out this clone's writer id."""
    init(repo)
    git(repo, "add", "-f", "okf/.memory/config.json")
    git(repo, "commit", "-q", "-m", "Everything, local state too")
    [ignored, tracked] = checks(repo, "init")
    assert ignored["state"] == "ok" and tracked["state"] == "fail", tracked
    assert "git tracks 1 file(s) of okf/.memory/ (okf/.memory/config.json)" in tracked["detail"]
    command = tracked["todo"].split(" (the files stay")[0]
    assert command == "git rm -r -q --cached :/okf/.memory/ && git commit -m 'Stop tracking gitstore local state'"
    run(repo, command)
    assert [c["state"] for c in checks(repo, "init")] == ["ok"]
    assert (repo / "okf" / ".memory" / "config.json").is_file() and git(repo, "status", "--porcelain") == ""
