"""A sqlite or jsonl store that git brings by other ways than a commit of its files is never opened.

``test_provider_foreign_store`` covers store files a commit holds. Git can bring them
otherwise: a submodule mounted where the state folder lies (the superproject's tree holds only
a gitlink, the files are another repository's), or ``git apply`` of a patch onto the empty
files a fresh clone starts with (no commit, no index entry, no object). Either way whoever can
push to the code branch would supply the clone's whole memory, accepted learnings included.
The clone keeps, in its git folder where no commit reaches, the id of the store gitstore made
for it, and opens no store holding appends it did not write.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from gitstore.config import STATE_DIR
from gitstore.errors import Refused
from gitstore.ops.setup import init
from gitstore.providers import _acks, open_provider

from . import cli
from .conftest import git
from .provider_records import batch, grant
from .team import commit_all, seeded_remote
from .test_provider_foreign_store import _clone, _store

FILES = {
    "sqlite": ("store.sqlite", "store.sqlite.acks"),
    "jsonl": ("jsonl/records.jsonl", "jsonl/payloads.jsonl", "jsonl/records.jsonl.acks"),
}
FILE_GIT = ("-c", "protocol.file.allow=always")
KILL_AT = Path(__file__).with_name("kill_at.py")
ROOT = Path(__file__).resolve().parent.parent



def _close(store) -> None:  # type: ignore[no-untyped-def]
    getattr(store, "close", lambda: None)()


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return seeded_remote(tmp_path)


def _mallorys_store(tmp: Path, remote: Path, provider: str) -> Path:
    """The state folder of a clone that stored a record of its own (a database holding all of
    it, none left in its WAL)."""
    mallory = _clone(tmp, remote, "mallory", provider)
    store = _store(mallory, provider)
    store.append(batch(grant("mallory's")))
    _close(store)
    if provider == "sqlite":
        conn = sqlite3.connect(mallory / STATE_DIR / "store.sqlite")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
    return mallory / STATE_DIR


def _copy_store(state: Path, root: Path, files: tuple[str, ...]) -> None:
    """Copy a store's files over a clone's, its own WAL and shared memory files taken away
    (once no handle this process opened on them is left)."""
    gc.collect()
    for side in ("store.sqlite-wal", "store.sqlite-shm"):
        (root / STATE_DIR / side).unlink(missing_ok=True)
    for file in files:
        (root / STATE_DIR / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(state / file, root / STATE_DIR / file)


def _repository_of_the_store(tmp: Path, state: Path, provider: str) -> Path:
    """A repository laid out as ``okf/``, holding a store's files under ``.memory/``."""
    source = tmp / "okfsrc"
    git(tmp, "init", "-q", "-b", "main", str(source))
    for file in FILES[provider]:
        (source / ".memory" / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(state / file, source / ".memory" / file)
    (source / "wiki").mkdir()
    (source / "wiki" / "index.md").write_text("# wiki\n")
    commit_all(source, "the knowledge folder")
    return source


@pytest.mark.parametrize("provider", ["sqlite", "jsonl"])
def test_a_store_a_submodule_brings_is_refused(tmp_path: Path, remote: Path, provider: str) -> None:
    source = _repository_of_the_store(tmp_path, _mallorys_store(tmp_path, remote, provider), provider)
    pusher = tmp_path / "pusher"
    git(tmp_path, "clone", "-q", str(remote), str(pusher))
    git(pusher, *FILE_GIT, "submodule", "add", "-q", "-f", str(source), "okf")
    commit_all(pusher, "the knowledge folder as a submodule")
    git(pusher, "push", "-q", "origin", "main")

    alice = tmp_path / "alice"
    git(tmp_path, *FILE_GIT, "clone", "-q", "--recurse-submodules", str(remote), str(alice))
    assert (alice / STATE_DIR / FILES[provider][0]).exists()
    done = cli.gitstore("init", "--provider", provider, cwd=alice)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done
    assert "okf is a submodule" in done.stderr, done
    with pytest.raises(Refused, match="okf is a submodule"):
        _store(alice, provider)


def test_a_submodule_only_staged_is_refused(tmp_path: Path, remote: Path) -> None:
    """A submodule added and not yet committed (or a merge stopped with one) is in the index alone."""
    source = _repository_of_the_store(tmp_path, _mallorys_store(tmp_path, remote, "jsonl"), "jsonl")
    alice = tmp_path / "alice"
    git(tmp_path, "clone", "-q", str(remote), str(alice))
    git(alice, *FILE_GIT, "submodule", "add", "-q", "-f", str(source), "okf")
    with pytest.raises(Refused, match="okf is a submodule .*the index"):
        _store(alice, "jsonl")


def test_a_store_inside_another_repository_is_refused(tmp_path: Path, remote: Path) -> None:
    """A repository cloned into the work tree, no submodule at all: its files are still not this clone's."""
    source = _repository_of_the_store(tmp_path, _mallorys_store(tmp_path, remote, "jsonl"), "jsonl")
    alice = tmp_path / "alice"
    git(tmp_path, "clone", "-q", str(remote), str(alice))
    git(tmp_path, "clone", "-q", str(source), str(alice / "okf"))
    with pytest.raises(Refused, match="inside another repository"):
        _store(alice, "jsonl")


def _patch_from_empty_files(tmp: Path, state: Path, files: tuple[str, ...]) -> Path:
    """A patch turning the empty store files a fresh clone has into ``state``'s (new files for
    those it lacks), as ``git diff`` writes one."""
    work = tmp / "patching"
    git(tmp, "init", "-q", "-b", "main", str(work))
    for file in files:
        path = work / STATE_DIR / file
        path.parent.mkdir(parents=True, exist_ok=True)
        if not file.endswith(".acks"):
            path.write_bytes(b"")
    git(work, "add", "-f", ".")
    git(work, "commit", "-q", "-m", "empty store")
    for file in files:
        shutil.copyfile(state / file, work / STATE_DIR / file)
    git(work, "add", "-f", "-N", ".")
    patch = tmp / "memory.patch"
    patch.write_text(git(work, "diff", "--binary"))
    return patch


def test_a_store_git_apply_fills_is_refused(tmp_path: Path, remote: Path) -> None:
    """The patch turns the two empty files into another store's (the log a fresh store starts
    with names an id no one else knows, so no patch can supply it)."""
    mallory = _mallorys_store(tmp_path, remote, "jsonl")
    alice = _clone(tmp_path, remote, "alice", "jsonl")
    assert (alice / STATE_DIR / "jsonl" / "records.jsonl").read_bytes() == b""
    git(alice, "apply", str(_patch_from_empty_files(tmp_path, mallory, FILES["jsonl"][:2])))
    assert (alice / STATE_DIR / "jsonl" / "records.jsonl").read_bytes() != b""
    with pytest.raises(Refused, match="gitstore did not write for this clone"):
        _store(alice, "jsonl")
    done = cli.gitstore("verify", cwd=alice)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done
    assert "did not write for this clone" in done.stderr and "Traceback" not in done.stderr, done


@pytest.mark.parametrize("provider", ["sqlite", "jsonl"])
@pytest.mark.parametrize("with_log", [True, False], ids=["with its log", "without its log"])
def test_a_store_copied_over_the_clone_s_own_is_refused(tmp_path: Path, remote: Path, provider: str,
                                                      with_log: bool) -> None:
    mallory = _mallorys_store(tmp_path, remote, provider)
    alice = _clone(tmp_path, remote, "alice", provider)
    _copy_store(mallory, alice, FILES[provider][:None if with_log else -1])
    with pytest.raises(Refused, match="gitstore did not write for this clone"):
        _store(alice, provider)


@pytest.mark.parametrize("provider", ["sqlite", "jsonl"])
def test_the_clone_s_own_store_opens_again_and_again(tmp_path: Path, remote: Path, provider: str) -> None:
    alice = _clone(tmp_path, remote, "alice", provider)
    for tag in ("one", "two"):
        store = _store(alice, provider)
        store.append(batch(grant(tag)))
        _close(store)
    store = _store(alice, provider)
    assert len(list(store.read())) == 2
    _close(store)


def _anchor(root: Path, provider: str) -> Path:
    return Path(git(root, "rev-parse", "--absolute-git-dir").strip()) / "gitstore" / f"{provider}.store"


@pytest.mark.parametrize("provider", ["sqlite", "jsonl"])
def test_a_store_made_before_the_anchor_is_adopted_when_this_clone_wrote_it_all(tmp_path: Path, remote: Path,
                                                                               provider: str) -> None:
    """Set up by a version that kept neither the anchor nor a copy of the configuration init
    accepted (the scope alone says init ran): the clone's next command takes both as its own."""
    alice = _clone(tmp_path, remote, "alice", provider)
    cli.ok("grant", "--purpose", "review", "--note", "one", cwd=alice)
    gc.collect()
    git_dir = _anchor(alice, provider).parent.parent
    for left in (_anchor(alice, provider), git_dir / "gitstore" / "config.json", git_dir / "gitstore-config",
                 git_dir / "gitstore" / "writers-accepted"):
        left.unlink()  # as a version that kept none of them left the clone
    if provider == "jsonl":  # nor an id in the log
        log = alice / STATE_DIR / "jsonl" / "records.jsonl.acks"
        log.write_text("".join(" ".join(line.split()[:2]) + "\n" for line in log.read_text().splitlines()))
    assert "one" in cli.ok("grants", cwd=alice)
    assert _anchor(alice, provider).exists()

    # adopted once: another clone's store put in its place afterwards is refused
    _copy_store(_mallorys_store(tmp_path, remote, provider), alice, FILES[provider])
    with pytest.raises(Refused, match="gitstore did not write for this clone"):
        _store(alice, provider)


@pytest.mark.parametrize("provider", ["sqlite", "jsonl"])
def test_a_store_made_before_the_anchor_with_another_writer_s_appends_is_refused(tmp_path: Path, remote: Path,
                                                                               provider: str) -> None:
    mallory = _mallorys_store(tmp_path, remote, provider)
    alice = tmp_path / "alice"
    git(tmp_path, "clone", "-q", str(remote), str(alice))
    _copy_store(mallory, alice, FILES[provider])
    with pytest.raises(Refused, match="gitstore did not write for this clone"):
        _store(alice, provider)
    assert not _anchor(alice, provider).exists()


def _patch_of_state(tmp: Path, state: Path, files: tuple[str, ...]) -> Path:
    """A patch adding ``state``'s config.json and store files as new files, as ``git show``
    writes one: ``git apply`` writes them without git ever holding them as objects."""
    work = tmp / "patching"
    git(tmp, "init", "-q", "-b", "main", str(work))
    for file in ("config.json", *files):
        (work / STATE_DIR / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(state / file, work / STATE_DIR / file)
    commit_all(work, "memory")
    patch = tmp / "memory.patch"
    patch.write_text(git(work, "show", "--binary", "--format=", "HEAD"))
    return patch


@pytest.mark.parametrize("provider", ["sqlite", "jsonl"])
def test_a_patch_applied_before_init_brings_neither_its_config_nor_its_store(tmp_path: Path, remote: Path,
                                                                            provider: str) -> None:
    """The patch brings a config.json naming its author's writer along with a store holding
    only that writer's appends: init gives the clone a writer of its own, so the store is
    another clone's and is refused, and no command before init takes either."""
    mallory = _clone(tmp_path, remote, "mallory", provider)
    cli.ok("grant", "--purpose", "review", "--purpose", "instruction", "--note", "mallory planted", cwd=mallory)
    gc.collect()
    if provider == "sqlite":
        conn = sqlite3.connect(mallory / STATE_DIR / "store.sqlite")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
    patch = _patch_of_state(tmp_path, mallory / STATE_DIR, FILES[provider])
    theirs = (mallory / STATE_DIR / "config.json").read_text()
    alice = tmp_path / "alice"
    git(tmp_path, "clone", "-q", str(remote), str(alice))
    git(alice, "apply", str(patch))
    before = cli.gitstore("grants", cwd=alice)  # no command takes a config this clone never set up
    assert before.returncode == 1 and before.stderr.count("\n") == 1 and "gitstore init" in before.stderr, before
    assert not _anchor(alice, provider).exists()
    done = cli.gitstore("init", "--provider", provider, cwd=alice)
    assert (alice / STATE_DIR / "config.json").read_text() != theirs
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done
    assert "did not write for this clone" in done.stderr and "mv " in done.stderr, done
    assert "init wrote one of its own" in done.stderr, done
    assert "mallory planted" not in cli.gitstore("grants", cwd=alice).stdout


def test_a_patch_that_swaps_a_set_up_clone_to_its_store_is_refused(tmp_path: Path, remote: Path) -> None:
    """In a clone set up with the git provider, a patch edits config.json to name jsonl and
    its author's writer, and brings that writer's store: neither is the one init accepted for
    this clone, so no command opens the store until init takes the file."""
    mallory = _clone(tmp_path, remote, "mallory", "jsonl")
    cli.ok("grant", "--purpose", "review", "--note", "mallory planted", cwd=mallory)
    alice = tmp_path / "alice"
    git(tmp_path, "clone", "-q", str(remote), str(alice))
    init(alice)
    work = tmp_path / "patching"
    git(tmp_path, "init", "-q", "-b", "main", str(work))
    (work / STATE_DIR).mkdir(parents=True)
    shutil.copyfile(alice / STATE_DIR / "config.json", work / STATE_DIR / "config.json")
    commit_all(work, "as alice has it")
    shutil.copytree(mallory / STATE_DIR / "jsonl", work / STATE_DIR / "jsonl")
    (work / STATE_DIR / "jsonl" / "lock").unlink(missing_ok=True)
    shutil.copyfile(mallory / STATE_DIR / "config.json", work / STATE_DIR / "config.json")
    git(work, "add", "-f", "-N", ".")
    (tmp_path / "swap.patch").write_text(git(work, "diff", "--binary"))
    git(alice, "apply", str(tmp_path / "swap.patch"))
    done = cli.gitstore("grants", cwd=alice)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done
    assert "writer changed from" in done.stderr and "provider changed from git to jsonl" in done.stderr, done
    assert "run `gitstore init --accept-changes` to take the file" in done.stderr and not _anchor(alice, "jsonl").exists()


def _jsonl_clone_with_writer(tmp: Path, remote: Path, name: str, *writer: str) -> Path:
    root = tmp / name
    git(tmp, "clone", "-q", str(remote), str(root))
    cli.ok("init", "--provider", "jsonl", *writer, cwd=root)
    return root


def test_a_patch_of_appends_claiming_the_clone_s_own_writer_is_refused(tmp_path: Path, remote: Path) -> None:
    """The writer id is public (it names the clone's memory refs): Mallory makes a store under
    Alice's writer id and sends a patch turning the empty files of Alice's fresh store into it.
    The log acknowledges none of its appends and none was named in flight here, so none is
    Alice's, whatever writer it claims."""
    alice = _jsonl_clone_with_writer(tmp_path, remote, "alice")
    writer = json.loads((alice / STATE_DIR / "config.json").read_text())["writer"]
    mallory = _jsonl_clone_with_writer(tmp_path, remote, "mallory", "--writer", writer)
    cli.ok("grant", "--purpose", "review", "--purpose", "instruction", "--note", "mallory planted", cwd=mallory)
    git(alice, "apply", str(_patch_from_empty_files(tmp_path, mallory / STATE_DIR, FILES["jsonl"][:2])))
    assert b"mallory planted" in (alice / STATE_DIR / "jsonl" / "records.jsonl").read_bytes()
    for command in ("grants", "verify"):
        done = cli.gitstore(command, cwd=alice)
        assert done.returncode == 1 and done.stderr.count("\n") == 1, done
        assert "did not write for this clone" in done.stderr and "mv " in done.stderr, done
        assert "mallory planted" not in done.stdout, done


def test_lines_a_patch_adds_under_an_open_handle_get_no_append_after_them(tmp_path: Path, remote: Path) -> None:
    """A handle opened on the clone's own store before the patch came appends nothing after
    lines it did not write: its append would vouch for them."""
    alice = _clone(tmp_path, remote, "alice", "jsonl")
    store = _store(alice, "jsonl")
    assert list(store.read()) == []
    mallory = _clone(tmp_path, remote, "mallory", "jsonl")
    open_provider("jsonl", mallory, mallory / STATE_DIR, "w-alice").append(batch(grant("mallory's")))
    git(alice, "apply", str(_patch_from_empty_files(tmp_path, mallory / STATE_DIR, FILES["jsonl"][:2])))
    before = (alice / STATE_DIR / "jsonl" / "records.jsonl").read_bytes()
    with pytest.raises(Refused, match="gitstore did not write for this clone"):
        store.append(batch(grant("alice's")))
    assert (alice / STATE_DIR / "jsonl" / "records.jsonl").read_bytes() == before
    with pytest.raises(Refused, match="gitstore did not write for this clone"):
        _store(alice, "jsonl")


def _killed(root: Path, at: str, *args: str) -> None:
    """``gitstore ARGS`` in a process of its own, killed with SIGKILL at ``at`` (see ``kill_at``)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(KILL_AT), at, *args], cwd=root, capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == -signal.SIGKILL, (at, args, done.returncode, done.stdout, done.stderr)


def test_appends_killed_before_their_log_line_leave_the_clone_s_store_open(tmp_path: Path, remote: Path) -> None:
    """The records line is written and the log line is not: the line this clone named in
    flight before writing it is vouched for, twice in a row too (the second append checked the
    first's line before writing its own), and a later append acknowledges them all."""
    alice = _jsonl_clone_with_writer(tmp_path, remote, "alice")
    cli.ok("grant", "--purpose", "review", "--note", "one", cwd=alice)
    records = alice / STATE_DIR / "jsonl" / "records.jsonl"
    for number, note in enumerate(("two", "three"), start=2):
        _killed(alice, "before:gitstore.providers._acks:note", "grant", "--purpose", "review", "--note", note)
        assert records.read_bytes().count(b"\n") == number and _acks.acked(records).appends == 1, number
        shown = cli.ok("grants", cwd=alice)
        assert note in shown and "one" in shown, shown
    assert "ok" in cli.ok("verify", cwd=alice)
    cli.ok("grant", "--purpose", "review", "--note", "four", cwd=alice)
    shown = cli.ok("grants", cwd=alice)
    assert all(note in shown for note in ("one", "two", "three", "four")), shown


def _zero_context_append(files: dict[str, bytes]) -> str:
    """A patch of zero-context hunks: ``git apply`` puts their lines at the end of each file
    without having seen what it holds."""
    out = []
    for name, added in files.items():
        path = f"{STATE_DIR}/jsonl/{name}"
        lines = added.decode().splitlines()
        if not lines:
            continue
        out += [f"diff --git a/{path} b/{path}", f"--- a/{path}", f"+++ b/{path}",
                f"@@ -99,0 +100,{len(lines)} @@", *(f"+{line}" for line in lines)]
    return "\n".join(out) + "\n"


def test_a_patch_appending_to_the_store_and_to_its_log_is_refused(tmp_path: Path, remote: Path) -> None:
    """The log beside the files is in the work tree, where a patch reaches: Mallory appends
    her lines (under Alice's public writer id) to Alice's files and a line counting them to the
    log. What vouches for Alice's lines is in her git folder, which counts none of Mallory's."""
    alice = _jsonl_clone_with_writer(tmp_path, remote, "alice")
    cli.ok("grant", "--purpose", "review", "--note", "alice's own", cwd=alice)
    writer = json.loads((alice / STATE_DIR / "config.json").read_text())["writer"]
    mallory = _jsonl_clone_with_writer(tmp_path, remote, "mallory", "--writer", writer)
    cli.ok("grant", "--purpose", "review", "--purpose", "instruction", "--note", "mallory planted", cwd=mallory)
    theirs = mallory / STATE_DIR / "jsonl"
    records = (theirs / "records.jsonl").read_bytes()
    patch = tmp_path / "append.patch"
    patch.write_text(_zero_context_append({"records.jsonl": records,
                                           "payloads.jsonl": (theirs / "payloads.jsonl").read_bytes(),
                                           "records.jsonl.acks": b"2 0\n"}))
    git(alice, "apply", str(patch))
    assert b"mallory planted" in (alice / STATE_DIR / "jsonl" / "records.jsonl").read_bytes()
    for command in ("grants", "verify"):
        done = cli.gitstore(command, cwd=alice)
        assert done.returncode == 1 and done.stderr.count("\n") == 1, done
        assert "did not write for this clone" in done.stderr and "mallory planted" not in done.stdout, done


def test_a_store_anchored_before_its_git_folder_vouched_is_taken_as_it_stands_once(tmp_path: Path,
                                                                                    remote: Path) -> None:
    """A store made when only the log beside it counted its appends is taken as the log says,
    once; from then on the git folder's record does, and a line the log alone counts is not
    this clone's."""
    alice = _jsonl_clone_with_writer(tmp_path, remote, "alice")
    cli.ok("grant", "--purpose", "review", "--note", "alice's own", cwd=alice)
    vouching = _anchor(alice, "jsonl").with_name("jsonl.acked")
    assert vouching.read_text().startswith("1 sha256:")
    vouching.unlink()
    assert "alice's own" in cli.ok("grants", cwd=alice)
    assert vouching.read_text().startswith("1 sha256:")
    folder = alice / STATE_DIR / "jsonl"
    line = (folder / "records.jsonl").read_bytes().splitlines()[-1]
    with open(folder / "records.jsonl", "ab") as out:
        out.write(line.replace(b'"clock":1', b'"clock":2') + b"\n")
    _acks.note(folder / "records.jsonl", 2, 0, _acks.acked(folder / "records.jsonl").store)
    done = cli.gitstore("grants", cwd=alice)
    assert done.returncode == 1 and "did not write for this clone" in done.stderr, done


def test_appends_killed_before_the_git_folder_records_them_leave_the_clone_s_store_open(tmp_path: Path,
                                                                                       remote: Path) -> None:
    """The log line is written and the git folder's record is not: the append named in flight
    vouches for the line, and the next append records it."""
    alice = _jsonl_clone_with_writer(tmp_path, remote, "alice")
    cli.ok("grant", "--purpose", "review", "--note", "one", cwd=alice)
    vouching = _anchor(alice, "jsonl").with_name("jsonl.acked")
    _killed(alice, "before:gitstore.providers.jsonl:JsonlProvider._vouch", "grant", "--purpose", "review",
            "--note", "two")
    assert vouching.read_text().startswith("1 ")
    assert _acks.acked(alice / STATE_DIR / "jsonl" / "records.jsonl").appends == 2
    shown = cli.ok("grants", cwd=alice)
    assert "one" in shown and "two" in shown, shown
    cli.ok("grant", "--purpose", "review", "--note", "three", cwd=alice)
    assert vouching.read_text().startswith("3 ") and "ok" in cli.ok("verify", cwd=alice)


def test_log_lines_that_do_not_name_the_store_count_for_nothing(tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    _acks.note(records, 1, 0, "abc")
    _acks.note(records, 5, 0)
    _acks.note(records, 7, 0, "other")
    _acks.note(records, 2, 0, "abc")
    assert _acks.acked(records) == _acks.Acked(2, 0, "abc")


def test_a_patch_bringing_a_config_and_a_store_into_a_linked_work_tree_is_not_adopted(tmp_path: Path,
                                                                                       remote: Path) -> None:
    """A work tree made for an agent (``git worktree add``) has no store yet. A patch brings it
    a config.json naming the main tree's writer (accepted there for that id alone) and a store
    whose appends claim that id: no anchor names it, and a linked work tree never adopts a
    store made before anchors were, so init and every command refuse it."""
    alice = _jsonl_clone_with_writer(tmp_path, remote, "alice")
    writer = json.loads((alice / STATE_DIR / "config.json").read_text())["writer"]
    mallory = _jsonl_clone_with_writer(tmp_path, remote, "mallory", "--writer", writer)
    cli.ok("grant", "--purpose", "review", "--purpose", "instruction", "--note", "mallory planted", cwd=mallory)
    linked = tmp_path / "alice-agent"
    git(alice, "worktree", "add", "-q", "-b", "agent", str(linked))
    work = tmp_path / "patching"
    git(tmp_path, "init", "-q", "-b", "main", str(work))
    for file in ("config.json", *FILES["jsonl"]):
        (work / STATE_DIR / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(mallory / STATE_DIR / file, work / STATE_DIR / file)
    config = json.loads((work / STATE_DIR / "config.json").read_text())
    del config["writerGiven"]  # as alice's own (turned on, it is refused before any store is looked at)
    (work / STATE_DIR / "config.json").write_text(json.dumps(config))
    git(work, "add", "-f", "-N", ".")
    (tmp_path / "store.patch").write_text(git(work, "diff", "--binary"))
    git(linked, "apply", str(tmp_path / "store.patch"))
    for command in ("init", "grants", "init"):
        done = cli.gitstore(command, cwd=linked)
        assert done.returncode == 1 and "did not write for this clone" in done.stderr, (command, done)
        assert "mallory planted" not in done.stdout


def test_a_linked_work_tree_refusing_a_copy_of_the_main_trees_store_says_why(repo: Path, tmp_path: Path) -> None:
    """A work tree made for an agent gets a copy of the main tree's ignored memory folder: its
    config.json is taken (the main tree accepted it), its jsonl store never is, since a linked
    work tree takes no store it did not make. The refusal says so, not that init never accepted
    that writer, and moving the copy aside gives the work tree a store of its own."""
    cli.ok("init", "--provider", "jsonl", cwd=repo)
    cli.ok("grant", "--purpose", "instruction", "--source", "agent-session", "--note", "main's", cwd=repo)
    linked = tmp_path / "agent"
    git(repo, "worktree", "add", "-q", "-b", "agent", str(linked))
    shutil.copytree(repo / STATE_DIR, linked / STATE_DIR, dirs_exist_ok=True)
    failed = cli.fails(1, "grants", cwd=linked)
    assert "linked work tree" in failed and "never accepted a config.json" not in failed, failed
    (linked / STATE_DIR / "jsonl").rename(linked / STATE_DIR / "jsonl.foreign")
    assert "main's" not in cli.ok("grants", cwd=linked)
    cli.ok("grant", "--purpose", "review", "--source", "manual", "--note", "agent's", cwd=linked)
    assert "agent's" in cli.ok("grants", cwd=linked) and "agent's" not in cli.ok("grants", cwd=repo)
