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
from .advice import checks, command, follow
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
    assert f"`gitstore scope formerly {OLD}`, committed and merged there, declares it" in said, said


def seen(root: Path) -> tuple[list[str], list[tuple[str, str, bool]]]:
    """The grants and the learnings (with their standing) a clone reads."""
    grants = sorted(g["digest"] for g in json.loads(cli.ok("grants", "--json", cwd=root)))
    learnings = sorted((item["id"], item["state"], item["usable"])
                       for item in json.loads(cli.ok("learnings", "--json", cwd=root)))
    return grants, learnings


def declare(root: Path, todo: str) -> None:
    """Follow the declaration a to-do gives, as a person would (from a folder below the root),
    then push it to the default branch."""
    follow(root, command(todo))
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
    way_out = f"if this repository was renamed or moved from {OLD}, declare it on the default branch: "
    assert done.stdout.count(way_out) == 1 and done.stdout.count(f"gitstore scope formerly {OLD} && ") == 1, done
    assert "merged into the default branch" in done.stdout and "set-url" not in done.stdout, done
    assert seen(b) == ([], [])
    [left] = checks(b, "fetched memory")
    assert "it is read again once that ref moves" not in left["todo"], left
    assert left["todo"].startswith(f"if this repository was renamed or moved from {OLD}, declare it"), left
    assert command(left["todo"]).startswith(f"gitstore scope formerly {OLD} && git add :/.gitstore/scope.json"), left
    declare(a, left["todo"])  # from a folder below the root, as doctor's advice is followed
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


def declared_file(root: Path) -> list[str]:
    """The scopes the work tree's declaration names, read as the store reads the file."""
    from gitstore.scope import FORMER_FILE, named_former

    named, problem = named_former((root / FORMER_FILE).read_bytes(), FORMER_FILE)
    assert problem is None and named is not None, problem
    return named


def test_scope_formerly_writes_the_declaration_from_any_folder_and_names_each_scope_once(tmp_path: Path) -> None:
    """A URL or a scope, in any spelling the host folds: one entry each, the file the store reads,
    written at the work tree's root from a folder below it, and what makes it count."""
    from .advice import below
    from .world import ready_repo

    root = ready_repo(tmp_path / "gadgets", origin=f"https://{NEW}.git").workspace.root
    said = cli.ok("scope", "formerly", "https://GitHub.com./acme/widgets.git/", cwd=below(root))
    first, then = said.splitlines()
    assert first == f"wrote .gitstore/scope.json: {NEW} was formerly {OLD}", said
    assert then.startswith(f"next: commit it (`git add :/.gitstore/scope.json && git commit -m 'Declare the former "
                           f"scope {OLD}' -- :/.gitstore/scope.json`), have it reviewed and merged into main"), said
    assert "it counts only once the default branch holds it" in then and command(then)
    assert declared_file(root) == [OLD] and not (below(root) / ".gitstore").exists()
    written = (root / ".gitstore" / "scope.json").read_bytes()
    for again in (OLD, "github.com/ACME/widgets", "git@github.com:acme/widgets.git"):  # one repository's scope
        said = cli.ok("scope", "formerly", again, cwd=root)
        assert said.startswith(f".gitstore/scope.json names {OLD} already: nothing written\n"), said
    assert (root / ".gitstore" / "scope.json").read_bytes() == written
    made = json.loads(cli.ok("scope", "formerly", "git@git.acme.example:Acme/Widgets.git", "--json", cwd=root))
    assert made["written"] and made["named"] == [OLD, "git.acme.example/Acme/Widgets"], made
    shown = cli.ok("scope", "show", cwd=root)
    assert shown.startswith(f"scope     {NEW} (origin https://{NEW}.git)\nformerly  none declared "
                            "(.gitstore/scope.json on main)\n  .gitstore/scope.json in the work tree differs"), shown
    git(root, "checkout", "-q", "-b", "declare")
    follow(root, command(then))  # committed on a branch: not yet in force
    said = cli.ok("scope", "formerly", OLD, cwd=root)
    assert "next: it is committed on this branch, have it reviewed and merged into main" in said, said
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "declare")  # merged into main, the default branch: in force
    shown = json.loads(cli.ok("scope", "show", "--json", cwd=root))
    assert shown["formerly"] == [OLD, "git.acme.example/Acme/Widgets"] and not shown["pending"], shown
    said = cli.ok("scope", "formerly", OLD, cwd=root)
    assert said.endswith("next: none: main, the default branch, declares it already, and what was stored under "
                         f"{OLD} is read here (and by each clone once its `gitstore sync` fetches that branch)\n"), said


@pytest.mark.parametrize(("given", "code", "said"), [
    # a scope the store refuses to declare: a refusal (1)
    (NEW, 1, f"{NEW} is this repository's scope now: a former scope is one it had before a rename or move; once it "
             "is renamed or moved, point origin at its new URL (`git remote set-url origin NEW-URL`)"),
    ("https://GitHub.com/ACME/gadgets.git", 1, f"github.com/ACME/gadgets is this repository's scope now, spelled {NEW}"),
    ("local/0123456789abcdef", 1, "local/0123456789abcdef is a local scope: its records never leave the machine"),
    # a value typed that is no scope at all, or empty: a usage error (2) naming the argument
    ("widgets", 2, "OLD_SCOPE': 'widgets' is no scope (host/owner/name"),
    ("/srv/git/widgets.git", 2, "'/srv/git/widgets.git' is no scope"),
    ("file:///srv/git/widgets.git", 2, "is no scope"),
    ("github.com/acme/../widgets", 2, "is no scope"),
    ("https://bob:hunter2@example.com/widgets", 2, "'https://example.com/widgets' is no scope"),
    ("", 2, "OLD_SCOPE': '' is empty"),
    (" ", 2, "OLD_SCOPE': ' ' is empty"),
])
def test_scope_formerly_refuses_what_is_no_former_scope_in_one_line_writing_nothing(
        tmp_path: Path, given: str, code: int, said: str) -> None:
    from .world import ready_repo

    root = ready_repo(tmp_path / "gadgets", origin=f"https://{NEW}.git").workspace.root
    cli.ok("scope", "formerly", OLD, cwd=root)
    before = (root / ".gitstore" / "scope.json").read_bytes()
    refused = cli.fails(code, "scope", "formerly", given, cwd=root)
    assert said in refused and refused.count("\n") == 1 and "hunter2" not in refused, refused
    assert (root / ".gitstore" / "scope.json").read_bytes() == before


def test_scope_formerly_leaves_a_declaration_it_cannot_keep_whole_as_it_is(tmp_path: Path) -> None:
    """A file the store would not read, or one that cannot name one more scope and still be
    read, or a link in its place: refused in one line, nothing written."""
    from .world import ready_repo

    root = ready_repo(tmp_path / "gadgets", origin=f"https://{NEW}.git").workspace.root
    (root / ".gitstore").mkdir()
    path = root / ".gitstore" / "scope.json"
    full = json.dumps({"schema": "gitstore.scope/v1", "formerly": [f"{OLD}-{n}" for n in range(20)]})
    for text, said in [("{not json", ".gitstore/scope.json in the work tree is not JSON"),
                       ('{"formerly": ["github.com/acme/old"]}', 'is not {"schema": "gitstore.scope/v1"'),
                       (full, ".gitstore/scope.json names 20 scopes already, the most a declaration may")]:
        path.write_text(text)
        refused = cli.fails(1, "scope", "formerly", OLD, cwd=root)
        assert said in refused and refused.count("\n") == 1 and "nothing was written" in refused, refused
        assert path.read_text() == text
    path.write_text(text := json.dumps({"schema": "gitstore.scope/v1", "formerly": [OLD]}))
    refused = cli.fails(1, "scope", "formerly", "git.acme.example/" + "/".join(["a" * 100] * 170), cwd=root)
    assert "would be over 16384 bytes (a bigger one is not read at all): nothing was written" in refused, refused
    assert path.read_text() == text
    path.unlink()
    (root / ".gitstore").rmdir()
    (root / ".gitstore").symlink_to(tmp_path)
    refused = cli.fails(1, "scope", "formerly", OLD, cwd=root)
    assert refused.startswith("gitstore: error: .gitstore is a link") and not (tmp_path / "scope.json").exists()


def test_learnings_of_and_citing_a_declared_former_scope_are_promoted_as_the_repositorys(tmp_path: Path) -> None:
    """Evidence captured before the rename is pinned to the scope the repository had then: once
    that scope is declared a former one, a project learning citing it stands on this repository
    alone, and is promoted; evidence of an undeclared repository still is not. A learning
    accepted before the rename is promoted too, its packet keeping the learning's scope."""
    from gitstore.promote.gates import promotion as promotion_gate
    from gitstore.promote.verify import Stopped, check_audience
    from gitstore.rules.view import View
    from gitstore.scope import Scope

    from .promotion_world import Evidence, accepted_learning, wiki_repo

    ctx = wiki_repo(tmp_path / "widgets")
    root = ctx.workspace.root
    refs = Evidence(ctx).comments(["Retries need full jitter.", "Add jitter to this backoff too."])
    before = accepted_learning(ctx, title="Backoff is capped", text="Every backoff in src/retry.py is capped.")
    git(root, "remote", "set-url", "origin", f"https://{NEW}.git")
    cli.ok("init", cwd=root)
    follow(root, command(cli.ok("scope", "formerly", OLD, cwd=root)))  # committed on main, the default branch
    learning = accepted_learning(Context.open(root), evidence=refs)
    assert learning["scope"] == NEW and {r["pin"]["repository"] for r in learning["evidence"]} == {OLD}
    for promoted in (learning, before):  # accepted after the rename, and before it (of the former scope)
        said = cli.ok("promote", promoted["id"], cwd=root)
        assert said.startswith(f"promoted {promoted['id']}"), said
        assert promotion_gate.check([], root, "main", f"memory/promote/{promoted['id']}") == []  # as CI judges it
    packets = {item.record["learning"]: item.record["scope"] for item in Context.open(root).store.items()
               if item.kind == "packet"}
    assert packets == {learning["id"]: NEW, before["id"]: OLD}, packets  # each its learning's scope
    learning["evidence"][0]["pin"]["repository"] = "github.com/acme/sprockets"
    with pytest.raises(Stopped, match=r"evidence pinned to another repository \(github.com/acme/sprockets\)"):
        check_audience(View.of(Scope(NEW, (OLD,)), []), learning, "Retries use jitter")


def test_review_material_saved_under_the_former_name_is_imported_once_it_is_declared(tmp_path: Path) -> None:
    """A snapshot of the repository's pull requests saved before the rename names it by its old
    owner/name: refused while nothing says that repository is this one, imported once the
    default branch declares its scope a former one (stored under the current scope, as any new
    record is); another repository's is still refused."""
    from .test_cli_dream import _snapshot
    from .world import ready_repo

    root = ready_repo(tmp_path / "gadgets", origin=f"https://{NEW}.git").workspace.root
    snapshot = tmp_path / "pr-12.json"
    snapshot.write_text(json.dumps(_snapshot(12, [(501, 1001, "Use jitter on retries.")])))  # acme/widgets
    refused = cli.fails(1, "import", "reviews", str(snapshot), "--by", "github:9", cwd=root)
    assert f"snapshot is for acme/widgets, this repository's scope is {NEW}" in refused, refused
    follow(root, command(cli.ok("scope", "formerly", OLD, cwd=root)))
    said = cli.ok("import", "reviews", str(snapshot), "--by", "github:9", cwd=root)
    assert said.startswith("imported 1 comment(s)"), said
    [episode] = json.loads(cli.ok("episodes", "--json", cwd=root))
    assert {item.record["scope"] for item in Context.open(root).store.items()} == {NEW}, episode
    snapshot.write_text(json.dumps({**_snapshot(13, [(502, 1001, "Jitter here too.")]), "repository": "acme/sprockets"}))
    refused = cli.fails(1, "import", "reviews", str(snapshot), "--by", "github:9", cwd=root)
    assert f"snapshot is for acme/sprockets, this repository's scope is {NEW}" in refused, refused


def test_a_clone_of_the_old_url_is_told_to_point_origin_at_the_new_one_not_to_declare_it(tmp_path: Path) -> None:
    """A newcomer who clones the repository by its old URL (the forge still serves it there)
    gets the old scope: the team's memory stored since is quarantined as of another scope.
    Doctor's advice is to point origin at the current URL, never to declare the current scope a
    former one of the old (which the command refuses), and following it the clone reads all."""
    alice, bob, proposal = proposal_of_two(tmp_path)
    a, b = alice.workspace.root, bob.workspace.root
    moved = renamed(tmp_path)
    for root in (a, b):
        moved_to(root, moved)
    cli.gitstore("sync", cwd=b)
    declare(a, checks(b, "fetched memory")[0]["todo"])
    cli.ok("sync", cwd=b)
    cli.ok("grant", "--purpose", "evaluation", "--by", "github:9", cwd=a)  # two histories of the new scope
    cli.ok("sync", cwd=a)
    made = json.loads(cli.ok("grant", "--purpose", "review", "--by", "github:10", "--json", cwd=b))  # the new scope's
    cli.ok("sync", cwd=b)
    git(moved, "push", "-q", "--mirror", str(tmp_path / "remote.git"))  # the old URL serves the same repository
    dave = team_clone(tmp_path, tmp_path / "remote.git", "dave").workspace.root
    done = cli.gitstore("sync", cwd=dave)
    assert done.returncode == 3 and made["digest"] not in seen(dave)[0]
    stale = (f"origin names {OLD}, which the default branch declares a former scope of this repository: point origin "
             "at the repository's current URL")
    assert done.stdout.count(f"is of scope '{NEW}', not this repository's") == 2, done
    assert done.stdout.count(stale) == 1 and "git remote set-url origin NEW-URL && gitstore init" in done.stdout, done
    assert "gitstore scope formerly" not in done.stdout, done
    lefts = checks(dave, "fetched memory")
    assert len(lefts) == 2, lefts
    for left in lefts:  # alice's history and bob's
        assert left["todo"].startswith(f"{stale} (the memory found there is of {NEW}) and take its scope: `git remote "
                                       "set-url origin NEW-URL && gitstore init`"), left
    [former] = checks(dave, "former scopes")
    assert former["state"] == "warn" and former["todo"].startswith(stale), former
    shown = cli.ok("scope", "show", cwd=dave)  # the declaration is there, naming this clone's scope
    assert f"  warning: {stale}" in shown and "none declared" not in shown, shown
    assert (f"formerly  {OLD} (.gitstore/scope.json on main on origin): this clone's own scope, which the repository "
            "had before") in shown, shown
    assert json.loads(cli.ok("scope", "show", "--json", cwd=dave))["declared"] == [OLD]
    declared = (dave / ".gitstore" / "scope.json").read_bytes()  # the team's, as checked out
    refused = cli.fails(1, "scope", "formerly", NEW, cwd=dave)
    assert stale in refused and "nothing was written" in refused
    assert (dave / ".gitstore" / "scope.json").read_bytes() == declared
    git(dave, "remote", "set-url", "origin", str(moved))
    cli.ok("init", cwd=dave)
    cli.ok("sync", cwd=dave)
    assert seen(dave) == seen(b) and made["digest"] in seen(dave)[0] and checks(dave, "former scopes")[0]["state"] == "ok"


def test_a_declaration_too_big_to_read_is_told_by_its_size_never_read(tmp_path: Path) -> None:
    """A commit can put a file of any size at .gitstore/scope.json: the reader takes at most
    16384 bytes, and a bigger file is told by its object's header, never read into memory."""
    import os
    import sys

    from .world import ready_repo

    root = ready_repo(tmp_path / "gadgets", origin=f"https://{NEW}.git").workspace.root
    big = tmp_path / "big.json"
    with open(big, "wb") as out:
        out.write(json.dumps({"schema": "gitstore.scope/v1", "formerly": [OLD]}).encode())
        out.write(b" " * (64 << 20))
    blob = git(root, "hash-object", "-w", str(big)).strip()
    git(root, "update-index", "--add", "--cacheinfo", f"100644,{blob},.gitstore/scope.json")
    git(root, "commit", "-q", "-m", "A declaration of 64 MiB")
    script = ("from gitstore.cli import main\n"
              "code = main(['scope', 'show'])\n"
              "status = open('/proc/self/status').read()\n"  # VmHWM: this process's own peak
              "print(code, int(status.split('VmHWM:')[1].split()[0]) if 'VmHWM:' in status else 0)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert "formerly  none read: .gitstore/scope.json on refs/heads/main is over 16384 bytes" in done.stdout, done
    code, peak_kib = done.stdout.split()[-2:]
    assert code == "0" and int(peak_kib) < 64 * 1024, f"peak {int(peak_kib) // 1024} MiB"


def test_scope_show_names_a_declaration_of_this_clones_own_scope_and_what_it_means(tmp_path: Path) -> None:
    """A clone whose origin is the repository's old URL reads a declaration naming its own scope
    (and an older one): scope show prints what is declared, never "none declared", and what each
    means here: its own scope is the stale name, the older one's memory is read."""
    from .world import ready_repo

    root = ready_repo(tmp_path / "widgets").workspace.root  # origin: the old URL, github.com/acme/widgets
    older = "github.com/acme/gizmos"
    (root / ".gitstore").mkdir(exist_ok=True)
    declared = {"schema": "gitstore.scope/v1", "formerly": [older, OLD]}
    (root / ".gitstore" / "scope.json").write_text(json.dumps(declared))
    git(root, "add", ".gitstore/scope.json")
    git(root, "commit", "-q", "-m", "Declare")
    shown = cli.ok("scope", "show", cwd=root)
    assert "none declared" not in shown and "  warning: origin names " in shown, shown
    assert (f"formerly  {older}, {OLD} (.gitstore/scope.json on main): {OLD} is this clone's own scope, which the "
            f"repository had before") in shown and f"what was stored under {older} is read here" in shown, shown
    found = json.loads(cli.ok("scope", "show", "--json", cwd=root))
    assert found["declared"] == [older, OLD] and found["formerly"] == [older], found
