"""The store commands through the real console script in real repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitstore.conformance import _records as R
from gitstore.conformance import batch
from gitstore.providers.git import GitProvider

from . import cli
from .conftest import CONTRACTS, git


def gitstore(cwd: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return cli.gitstore(*args, cwd=cwd, stdin=stdin, text=stdin is None)


def run_ok(cwd: Path, *args: str) -> str:
    done = gitstore(cwd, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def jsonl(*records: dict) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.fixture
def ready(repo: Path) -> Path:
    run_ok(repo, "init")
    return repo


def writer_of(repo: Path) -> str:
    return json.loads((repo / "okf" / ".memory" / "config.json").read_text())["writer"]


def test_init_outside_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    done = gitstore(tmp_path, "init")
    assert done.returncode == 2
    assert "is not inside a git repository" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_commands_before_init_say_what_to_do(repo: Path) -> None:
    done = gitstore(repo, "records", "list")
    assert done.returncode == 2 and "run `gitstore init` first" in done.stderr


BROKEN_CONFIGS = {"empty": b"", "not JSON": b"nope\n", "a byte order mark": b'\xef\xbb\xbf{"writer": "w1"}',
                  "not UTF-8": b'{"writer": "w\xff"}', "not an object": b"[]\n", "no writer": b"{}\n",
                  "a folder": None}


@pytest.mark.parametrize("broken", list(BROKEN_CONFIGS))
def test_a_config_that_cannot_be_read_says_what_to_move_away_and_init_agrees(ready: Path, broken: str) -> None:
    """A config.json gitstore cannot read (empty, not JSON, a BOM, not UTF-8, a folder) gives
    every command, init too, the same one line with the to-do: move it away, run init; which
    then sets the clone up again."""
    config = ready / "okf" / ".memory" / "config.json"
    config.unlink()
    if BROKEN_CONFIGS[broken] is None:
        config.mkdir()
    else:
        config.write_bytes(BROKEN_CONFIGS[broken])
    errors = []
    for command in (("status",), ("records", "list"), ("init",)):
        done = gitstore(ready, *command)
        assert done.returncode == 1 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
        assert str(config) in done.stderr and done.stderr.rstrip().endswith("move it away and run `gitstore init`"), \
            done.stderr
        errors.append(done.stderr)
    assert len(set(errors)) == 1, errors  # status and init say the same
    config.rename(ready / "moved-away")
    run_ok(ready, "init")
    run_ok(ready, "status")


def test_init_sets_up_and_is_idempotent(repo: Path) -> None:
    first = json.loads(run_ok(repo, "init", "--json"))
    assert first["scope"] == "github.com/acme/widgets"  # credentials stripped
    assert any("fetch refspec" in c for c in first["created"])
    second = json.loads(run_ok(repo, "init", "--json"))
    assert second["created"] == [] and second["writer"] == first["writer"]
    assert subprocess.run(["git", "check-ignore", "-q", "okf/.memory/x"], cwd=repo).returncode == 0
    assert git(repo, "status", "--porcelain") == ""
    fetch = git(repo, "config", "--get-all", "remote.origin.fetch").split()
    assert "refs/memory/v1/records/shared/*:refs/memory/v1/remotes/origin/records/shared/*" in fetch
    assert fetch.count("+refs/memory/v1/payloads/shared/*:refs/memory/v1/remotes/origin/payloads/shared/*") == 1
    local = repo / ".git" / "gitstore" / "local"  # the local namespace's repository: no capture pays to make it
    assert git(local, "rev-parse", "--is-bare-repository").strip() == "true" and git(local, "for-each-ref") == ""


def test_a_remote_not_named_origin_is_named_with_what_mends_it(repo: Path) -> None:
    """The scope comes from the remote named origin: with only another name, memory would be
    stored under a local scope shared with no clone. init and doctor say so, and the command
    they print mends it."""
    from gitstore.queries.doctor import doctor

    git(repo, "remote", "rename", "origin", "upstream")
    done = json.loads(run_ok(repo, "init", "--json"))
    assert done["scope"].startswith("local/")
    todo = "git remote rename upstream origin && gitstore init"
    assert done["note"] == {"about": "no remote is named origin (remotes: upstream): this clone's memory has a "
                                     "local scope, shared with no other clone; name the team's remote origin "
                                     "before memory is stored", "todo": todo}
    assert f"  note     {done['note']['about']} ({todo})\n" in run_ok(repo, "init")
    [check] = [c for c in doctor(repo).checks if c.name == "repository"]
    assert (check.state, check.todo) == ("warn", todo) and "no remote is named origin" in check.detail
    subprocess.run(todo.replace("gitstore init", f"{sys.executable} -m gitstore init"), shell=True, cwd=repo,
                   check=True, capture_output=True)
    checks = {c.name: c for c in doctor(repo).checks}
    assert checks["repository"].state == "ok" and "scope github.com/acme/widgets" in checks["repository"].detail
    assert checks["remote origin"].state == "ok", checks["remote origin"]
    assert json.loads(run_ok(repo, "init", "--json"))["note"] is None


def test_init_says_so_when_it_cannot_write_the_refspecs(repo: Path) -> None:
    """libgit2 adds nothing and says nothing when .git/config is locked (or read-only): init
    names the file and fails (at the scope it keeps there, once the configuration is written:
    a refused init keeps no scope), instead of listing refspecs it never wrote; once the lock is
    gone, init again adds them."""
    lock = repo / ".git" / "config.lock"
    lock.touch()
    done = gitstore(repo, "init")
    assert done.returncode != 0 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert f"could not record the scope in {(repo / '.git' / 'config').resolve()} (read-only, or locked by " \
           "another git: a config.lock beside it)" in done.stderr, done.stderr
    assert "refs/memory/" not in git(repo, "config", "--get-all", "remote.origin.fetch")
    lock.unlink()
    assert any("fetch refspec" in c for c in json.loads(run_ok(repo, "init", "--json"))["created"])
    assert "refs/memory/v1/records/shared/*" in git(repo, "config", "--get-all", "remote.origin.fetch")
    git(repo, "remote", "add", "upstream", "https://github.com/acme/widgets.git")
    lock.touch()  # the scope is kept already: init gets as far as the new remote's refspecs
    done = gitstore(repo, "init")
    assert done.returncode != 0 and done.stderr.count("\n") == 1, done.stderr
    assert "fetch refspecs on upstream" in done.stderr and "config.lock" in done.stderr, done.stderr
    lock.unlink()


def test_init_keeps_an_existing_ignore_rule(repo: Path) -> None:
    (repo / ".gitignore").write_text("okf/.memory/\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "ignore")
    run_ok(repo, "init")
    assert "okf/.memory" not in (repo / ".git" / "info" / "exclude").read_text()


def test_a_gitignore_pulled_after_init_that_unignores_the_state_folder_exposes_nothing(repo: Path) -> None:
    """A ``.gitignore`` line ``!/okf/.memory/`` a pull brings overrides the exclude rule: in a
    clone with the context hook alone (no capture to notice) ``git add -A`` staged config.json
    and the delivery ledger. init writes ``okf/.memory/.gitignore`` (``*``) up front, which git
    reads over that line; a clone set up before gets it at its next init, which names the line."""
    run_ok(repo, "init")
    state = repo / "okf" / ".memory"
    (state / "deliveries.sqlite").write_bytes(b"SQLite format 3\x00")
    (repo / ".gitignore").write_text("!/okf/.memory/\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "un-ignore")
    assert git(repo, "add", "-A", "--dry-run") == ""
    assert git(repo, "status", "--porcelain", "--ignored") == "!! okf/\n"
    (state / ".gitignore").unlink()  # as a clone set up before init wrote it
    assert "add 'okf/.memory/deliveries.sqlite'" in git(repo, "add", "-A", "--dry-run")
    again = json.loads(run_ok(repo, "init", "--json"))
    assert again["created"] == ["okf/.memory/.gitignore (*: git ignores every file of it)"], again
    [left] = again["left"]
    assert left.startswith("line 1 of .gitignore (!/okf/.memory/) un-ignores okf/.memory/"), left
    assert git(repo, "add", "-A", "--dry-run") == ""
    (state / ".gitignore").write_text("# a person's own\n")
    assert gitstore(repo, "init").returncode == 1, "init never replaces it: the folder stays un-ignored"
    assert (state / ".gitignore").read_text() == "# a person's own\n"


def test_init_in_a_linked_worktree_has_the_shared_exclude_file_ignore_its_state(repo: Path, tmp_path: Path) -> None:
    """git reads info/exclude from the repository's common git folder only, never from a linked
    worktree's own: init there works without the main work tree being set up first."""
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked))
    run_ok(linked, "init")
    assert "/okf/.memory/" in (repo / ".git" / "info" / "exclude").read_text()
    assert git(linked, "status", "--porcelain") == ""


def test_init_that_cannot_have_its_state_ignored_leaves_no_folder_behind(repo: Path) -> None:
    (repo / ".gitignore").write_text("!okf/.memory/\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "keep memory visible")
    done = gitstore(repo, "init")
    assert done.returncode == 1 and ".gitignore:1:!okf/.memory/ un-ignores it" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1
    assert not (repo / "okf").exists()


def test_init_refuses_state_linked_outside_the_repository(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (repo / "okf").mkdir()
    os.symlink(outside, repo / "okf" / ".memory")
    done = gitstore(repo, "init")
    assert done.returncode == 1 and "links outside the repository" in done.stderr
    assert list(outside.iterdir()) == []


def test_init_refuses_a_committed_link_to_a_folder_of_the_repository(repo: Path) -> None:
    """A committed ``okf/.memory -> ../src`` had init write its config among the sources and
    add ``/src/`` to .git/info/exclude: git stopped showing new source files."""
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('hi')\n")
    (repo / "okf").mkdir()
    os.symlink("../src", repo / "okf" / ".memory")
    git(repo, "add", "src", "okf")
    git(repo, "commit", "-q", "-m", "sources")
    done = gitstore(repo, "init")
    assert done.returncode == 1 and "links elsewhere in it" in done.stderr and done.stderr.count("\n") == 1
    assert sorted(p.name for p in (repo / "src").iterdir()) == ["app.py"]
    exclude = repo / ".git" / "info" / "exclude"
    assert not exclude.exists() or "/src/" not in exclude.read_text()
    (repo / "src" / "new.py").write_text("x = 1\n")
    assert "src/new.py" in git(repo, "status", "--porcelain")


def test_records_add_list_show(ready: Path) -> None:
    records = [R.event("cli1"), R.audit("cli2", [])]
    path = ready / "batch.jsonl"
    path.write_text(jsonl(*records))
    out = run_ok(ready, "records", "add", "batch.jsonl")
    assert out.split() == [records[0]["digest"], "added", records[1]["digest"], "added"]
    again = gitstore(ready, "records", "add", "-", stdin=path.read_bytes())
    assert again.returncode == 0 and again.stdout.decode().count("exists") == 2
    listed = json.loads(run_ok(ready, "records", "list", "--json"))
    assert [r["digest"] for r in listed] == [r["digest"] for r in records]
    assert [r["kind"] for r in json.loads(run_ok(ready, "records", "list", "--kind", "audit", "--json"))] == ["audit"]
    shown = json.loads(run_ok(ready, "records", "show", records[0]["digest"][7:19], "--json"))
    assert shown == records[0]  # payload reattached, digest intact


def test_records_add_names_a_record_given_twice_as_a_repeat(ready: Path) -> None:
    """The same record on two lines is stored once: the second is labelled a repeat of the
    first line, never 'added' twice (--json lists it once)."""
    stored, new = R.audit("dup1", []), R.event("dup2")
    (ready / "one.jsonl").write_text(jsonl(stored))
    run_ok(ready, "records", "add", "one.jsonl")
    path = ready / "twice.jsonl"
    path.write_text(jsonl(new, stored, new) + "\n" + jsonl(stored))
    out = run_ok(ready, "records", "add", "twice.jsonl").splitlines()
    assert out == [f"{new['digest']} added", f"{stored['digest']} exists", f"{new['digest']} repeats line 1",
                   f"{stored['digest']} repeats line 2"], out
    fresh = R.audit("dup3", [])
    (ready / "fresh.jsonl").write_text(jsonl(fresh, fresh))
    assert json.loads(run_ok(ready, "records", "add", "fresh.jsonl", "--json"))["added"] == [fresh["digest"]]


def test_records_add_seal(ready: Path) -> None:
    record = R.audit("to-seal", [])
    unsealed = {k: v for k, v in record.items() if k != "digest"}
    done = gitstore(ready, "records", "add", "--seal", "-", stdin=jsonl(unsealed).encode())
    assert done.returncode == 0 and done.stdout.decode().split()[0] == record["digest"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"schema": "gitstore.audit/v1", "a": 1, "a": 2}', "batch.jsonl:2: duplicate member name 'a'"),
        ("not json", "batch.jsonl:2: not JSON"),
        (json.dumps({**R.audit("x", []), "reason": "tampered"}), "does not match its content"),
        (json.dumps(R.audit("other", [], scope=R.OTHER_SCOPE)), "is for scope gitlab.example.com/acme/widgets"),
    ],
)
def test_bad_records_are_refused_and_nothing_is_stored(ready: Path, line: str, message: str) -> None:
    (ready / "batch.jsonl").write_text(json.dumps(R.audit("good", [])) + "\n" + line + "\n")
    done = gitstore(ready, "records", "add", "batch.jsonl")
    assert done.returncode == 1, done.stdout
    assert message in done.stderr and done.stderr.count("\n") == 1
    assert json.loads(run_ok(ready, "records", "list", "--json")) == []


def test_an_event_without_its_payload_is_refused_and_nothing_is_stored(ready: Path) -> None:
    """Other clones hold a writer's payload snapshot to the events it stored: an event added
    without its text would be text no snapshot ever holds."""
    event = R.event("no-text")
    event.pop("payload")
    (ready / "batch.jsonl").write_text(jsonl(R.audit("good", []), event))
    done = gitstore(ready, "records", "add", "batch.jsonl")
    assert done.returncode == 1 and "batch.jsonl:2: an event is added with its payload" in done.stderr, done.stderr
    assert json.loads(run_ok(ready, "records", "list", "--json")) == []


def test_a_proposal_under_an_id_its_content_does_not_give_is_refused(ready: Path) -> None:
    """A stored proposal added again with other text under its id would break the learning's
    history, and every read would ignore it as damage (gitstore verify said so, exit 3)."""
    proposal = R.proposal("jitter", R.event("cited"))
    changed = {k: v for k, v in proposal.items() if k not in ("digest", "contentDigest")}
    changed["content"] = {**proposal["content"], "text": proposal["content"]["text"] + " Always."}
    (ready / "batch.jsonl").write_text(jsonl(R.audit("good", []), changed))
    done = gitstore(ready, "records", "add", "--seal", "batch.jsonl")
    assert done.returncode == 1, done.stdout
    assert done.stderr.startswith(f"gitstore: error: batch.jsonl:2: learning {proposal['id']}: a proposal's "
                                           "id is the one its contentDigest gives, lrn_"), done.stderr
    assert json.loads(run_ok(ready, "records", "list", "--json")) == []


def test_mixed_local_and_shared_batch_is_refused(ready: Path) -> None:
    envelope = json.loads((CONTRACTS / "examples" / "valid" / "envelope.json").read_text())
    done = gitstore(ready, "records", "add", "-", stdin=jsonl(envelope, R.episode("g")).encode())
    assert done.returncode == 1 and "split it in two" in done.stderr.decode()


def test_show_unknown_and_bad_digest(ready: Path) -> None:
    assert gitstore(ready, "records", "show", "deadbeefdeadbeef").returncode == 1
    assert gitstore(ready, "records", "show", "xyz").returncode == 2
    short = gitstore(ready, "records", "show", "deadbee")  # 7 hex digits: too short to name a record
    assert short.returncode == 2 and "prefix of at least 8 lowercase hex digits" in short.stderr
    assert gitstore(ready, "records", "show", "sha256:deadbeef").returncode == 1


def test_verify_clean_then_damage_exits_3_naming_it(ready: Path) -> None:
    (ready / "b.jsonl").write_text(jsonl(R.audit("v1", []), R.event("v2")))
    run_ok(ready, "records", "add", "b.jsonl")
    report = json.loads(run_ok(ready, "verify", "--json"))
    assert report["ok"] and report["records"] == 2
    ref = f"refs/memory/v1/records/shared/{writer_of(ready)}"
    first = git(ready, "rev-parse", ref).strip()
    (ready / ".git" / "objects" / first[:2] / first[2:]).unlink()
    done = gitstore(ready, "verify")
    assert done.returncode == 3
    assert first in done.stderr and "history truncated" in done.stderr
    listing = gitstore(ready, "records", "list")
    assert listing.returncode == 3 and "truncated" in listing.stderr
    listing = gitstore(ready, "records", "list", "--json")
    assert listing.returncode == 3 and "truncated" in listing.stderr and listing.stdout == ""  # no half list


def test_gc_names_the_object_folders_the_repository_borrows_from(ready: Path, tmp_path: Path) -> None:
    """A clone made with ``git clone --shared`` reads objects from its source's folder (git's
    alternates), where gc erases nothing: text removed here may still be there, and gc says so."""
    source = tmp_path / "source.git"
    git(tmp_path, "init", "-q", "--bare", str(source))
    (ready / ".git" / "objects" / "info").mkdir(parents=True, exist_ok=True)
    (ready / ".git" / "objects" / "info" / "alternates").write_text(f"{source / 'objects'}\n")
    said = run_ok(ready, "gc")
    assert f"{source / 'objects'}" in said and "alternates" in said, said
    assert json.loads(run_ok(ready, "gc", "--json"))["alternates"] == [str(source / "objects")]


def test_gc_removes_redacted_payload_text(ready: Path) -> None:
    secret = R.event("gc", text="the-secret-text-to-remove")
    (ready / "b.jsonl").write_text(jsonl(secret))
    run_ok(ready, "records", "add", "b.jsonl")
    provider = GitProvider(ready, writer_of(ready))
    note = b'{"at":"2026-08-01T00:00:00.000000Z","by":"github:1","reason":"asked","sourceId":null}'
    provider.append(batch(R.audit("gc", [], action="redact"), removals=[(secret["payloadDigest"], note)]))
    report = json.loads(run_ok(ready, "gc", "--json"))
    assert report["objects"] >= 1, report
    assert json.loads(run_ok(ready, "gc", "--json")) == {
        "payloads": 0, "objects": 0, "snapshotsScrubbed": [], "snapshotFoldersGone": [], "snapshotsNotScrubbed": [],
        "alternates": [], "exportsRewritten": [], "dreamReportsDropped": [],
        "laterVersionsRemoved": []}, "nothing is left to erase"
    objects = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=ready,
                             capture_output=True).stdout
    assert b"the-secret-text-to-remove" not in objects
    assert json.loads(run_ok(ready, "verify", "--json"))["ok"]
    shown = json.loads(run_ok(ready, "records", "show", secret["digest"], "--json"))
    assert "payload" not in shown and shown["digest"] == secret["digest"]


def test_status_reports_configuration_and_refs(ready: Path) -> None:
    (ready / "b.jsonl").write_text(jsonl(R.audit("s1", [])))
    run_ok(ready, "records", "add", "b.jsonl")
    info = json.loads(run_ok(ready, "status", "--json"))
    assert info["scope"] == "github.com/acme/widgets" and info["stateIgnored"] is True
    assert [r["ref"] for r in info["refs"]] == [f"refs/memory/v1/records/shared/{writer_of(ready)}"]
    assert info["config"]["provider"] == {"value": "git", "from": "okf/.memory/config.json"}
    text = run_ok(ready, "status")
    assert "ignored by git" in text


def test_status_names_twenty_refs_and_how_many_more(ready: Path) -> None:
    """One or two refs a writer, and anyone who can push may add thousands of writers: the
    text names twenty (the rest of status after them), --json lists every one."""
    for n in range(30):
        GitProvider(ready, f"w{n:012x}").append(batch(R.audit(f"many{n}", [])))
    refs = [r["ref"] for r in json.loads(run_ok(ready, "status", "--json"))["refs"]]
    assert len(refs) == 30
    text = run_ok(ready, "status")
    assert refs[19] in text and refs[20] not in text
    assert "  ... and 10 more (`gitstore status --json` lists them all)\ntrust " in text


@pytest.mark.parametrize("provider", ["sqlite", "jsonl"])
def test_other_providers_through_the_cli(repo: Path, provider: str) -> None:
    run_ok(repo, "init", "--provider", provider)
    (repo / "b.jsonl").write_text(jsonl(R.audit("p1", []), R.event("p2")))
    run_ok(repo, "records", "add", "b.jsonl")
    assert len(json.loads(run_ok(repo, "records", "list", "--json"))) == 2
    assert json.loads(run_ok(repo, "verify", "--json"))["ok"]
    assert git(repo, "status", "--porcelain") == "?? b.jsonl\n"  # the store itself is ignored
    done = gitstore(repo, "init", "--provider", "git")
    assert done.returncode == 1 and "already uses" in done.stderr


def test_records_add_streams_a_large_file_and_names_a_bad_line(ready: Path) -> None:
    records = [R.event(f"big{i}", episode="big", seq=i) for i in range(600)]
    lines = [json.dumps(r) for r in records]
    lines[450] = json.dumps({**records[450], "seq": 7})  # its digest no longer matches
    (ready / "big.jsonl").write_text("\n".join(lines) + "\n")
    done = gitstore(ready, "records", "add", "big.jsonl")
    assert done.returncode == 1 and done.stderr.startswith("gitstore: error: big.jsonl:451: ")
    assert "does not match its content" in done.stderr and done.stderr.count("\n") == 1
    assert json.loads(run_ok(ready, "records", "list", "--json")) == []
    assert not list((ready / ".git" / "objects" / "pack").glob("tmp_*"))


def test_records_add_reads_crlf_blank_lines_and_a_last_line_without_newline(ready: Path) -> None:
    records = [R.audit("crlf1", []), R.event("crlf2"), R.audit("crlf3", [])]
    text = json.dumps(records[0]) + "\r\n\r\n" + json.dumps(records[1]) + "\n\n" + json.dumps(records[2])
    done = gitstore(ready, "records", "add", "-", stdin=text.encode())
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().split()[::2] == [r["digest"] for r in records]


def test_records_add_of_nothing_is_refused(ready: Path) -> None:
    done = gitstore(ready, "records", "add", "-", stdin=b"\n\n")
    assert done.returncode == 1 and "gitstore: error: -: no records" in done.stderr.decode()


@pytest.mark.parametrize("name, problem", [("missing.jsonl", "no such file"), (".", "is a directory")])
def test_records_add_of_a_file_it_cannot_read_names_the_file_once(ready: Path, name: str, problem: str) -> None:
    done = gitstore(ready, "records", "add", name)
    assert done.returncode == 1
    assert done.stderr == f"gitstore: error: {name}: {problem}\n"


def test_a_storage_failure_is_one_line_and_stores_nothing(ready: Path) -> None:
    pack = ready / ".git" / "objects" / "pack"
    pack.rmdir()
    pack.write_text("not a folder")  # every pack write fails as a full or broken disk would
    (ready / "big.jsonl").write_text(jsonl(*[R.audit(f"fail{i}", []) for i in range(400)]))
    done = gitstore(ready, "records", "add", "big.jsonl")
    assert done.returncode == 1 and done.stderr.startswith("gitstore: error: ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    pack.unlink()
    pack.mkdir()
    assert json.loads(run_ok(ready, "records", "list", "--json")) == []


def test_records_add_adds_no_grant(ready: Path) -> None:
    """Consent is given with ``gitstore grant``, which writes the audit entry naming who gave
    it; a grant added as a record would widen what evidence may be used, backdated and in
    anyone's name, with nothing in the audit log."""
    done = gitstore(ready, "records", "add", "--seal", "-", stdin=jsonl(R.audit("before", []), R.grant("g")).encode())
    assert done.returncode == 1 and done.stderr.decode() == (
        "gitstore: error: -:2: a grant is given with `gitstore grant`, which writes the audit entry that records who "
        "gave it; records add writes none, so it adds no grant\n")
    assert json.loads(run_ok(ready, "records", "list", "--json")) == [], "nothing stored"


def _redacted_copy(event: dict) -> dict:
    """``event`` without its payload and with a redaction object inline: the same digest (an
    event's digest leaves both out), as anyone can write it."""
    copy = {k: v for k, v in event.items() if k != "payload"}
    copy["redaction"] = {"at": "2026-08-01T00:00:00.000000Z", "by": "github:1", "reason": "forged", "sourceId": None}
    return copy


def test_records_add_adds_no_redaction_and_the_real_event_still_arrives(ready: Path) -> None:
    """A payload is removed by ``gitstore redact``, which keeps the note with its audit entry;
    an event carrying a redaction object inline would read as removed, by anyone, for any
    reason, and would keep the real capture of the event from ever storing its payload."""
    real = R.event("rd", text="the text that stays")
    done = gitstore(ready, "records", "add", "-", stdin=jsonl(R.audit("before", []), _redacted_copy(real)).encode())
    assert done.returncode == 1 and done.stderr.decode().count("\n") == 1, done.stderr
    assert done.stderr.decode().startswith("gitstore: error: -:2: ") and "gitstore redact" in done.stderr.decode()
    assert json.loads(run_ok(ready, "records", "list", "--json")) == [], "nothing stored"
    (ready / "real.jsonl").write_text(jsonl(real))
    assert run_ok(ready, "records", "add", "real.jsonl").split() == [real["digest"], "added"]
    assert json.loads(run_ok(ready, "records", "show", real["digest"], "--json")) == real


@pytest.mark.parametrize("member", ["redaction", "payload"])
def test_event_bytes_holding_a_redaction_or_payload_are_damage(ready: Path, member: str) -> None:
    """Stored event bytes never hold a redaction (the note is kept apart, with the removal's
    audit entry) nor the payload (kept apart so it can be removed): bytes that do are named by
    verify and stop reads of this clone's own refs, like any other damage."""
    from gitstore.providers import Batch, Entry
    from gitstore.records.canonical import canonicalize

    real = R.event("rd-bytes")
    copy = _redacted_copy(real) if member == "redaction" else real
    GitProvider(ready, writer_of(ready)).append(Batch("shared", (
        Entry(copy["digest"], "event", copy["scope"], copy["episode"], canonicalize(copy)),)))
    done = gitstore(ready, "verify")
    assert done.returncode == 3 and real["digest"] in done.stdout + done.stderr, done.stderr
    assert member in done.stdout + done.stderr
    listing = gitstore(ready, "records", "list")
    assert listing.returncode == 3 and real["digest"] in listing.stderr and "Traceback" not in listing.stderr


def test_records_add_adds_no_withdrawal(ready: Path) -> None:
    """A grant is withdrawn with ``gitstore withdraw``, which writes the audit entry naming who
    withdrew it; a withdrawal added as a record would stop evidence serving, backdated and in
    anyone's name, with nothing in the audit log."""
    withdrawal = R.withdrawal(R.grant("w"))
    done = gitstore(ready, "records", "add", "--seal", "-", stdin=jsonl(R.audit("before", []), withdrawal).encode())
    assert done.returncode == 1 and done.stderr.decode() == (
        "gitstore: error: -:2: a grant is withdrawn with `gitstore withdraw`, which writes the audit entry that "
        "records who withdrew it; records add writes none, so it adds no withdrawal\n")
    assert json.loads(run_ok(ready, "records", "list", "--json")) == [], "nothing stored"
