"""Hostile and broken remotes: someone with push access to the team's bare repository rewinds,
rewrites or forges what they can, then bob runs ``gitstore sync``. Every attack is refused and
named in one line with its writer and damage; nothing bob already stored is lost; the honest
writer who pushed in the same round still arrives; and the clone keeps working.

The world (alice's accepted learning and a proposal, bob's synced clone, carol's clone) is built
once; each attack runs on a copy of it."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygit2
import pytest

from bench._process import copy_as_moved
from gitstore.context import Context
from gitstore.providers import Batch, Entry
from gitstore.providers._message import MAX_SEEN
from gitstore.providers._names import payload_path
from gitstore.providers.git import GitProvider, format_message, payloads_ref, records_ref
from gitstore.records.contracts import payload_digest
from gitstore.records.canonical import canonicalize
from gitstore.sync.remote import SyncReport, sync

from . import cli
from .conftest import git
from .hostile import decision_step, grant_like, snapshot_note, victim_memory
from .team import first_clone, forge, shared_remote
from .world import propose, ref

ALICE = "github:9"


def _clone(tmp: Path, bare: Path, name: str) -> Context:
    from gitstore.ops.setup import init

    git(tmp, "clone", "-q", str(bare), str(tmp / name))
    init(tmp / name)
    return Context.open(tmp / name)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """Alice's clone (a grant, three comments, an accepted learning, a proposal), pushed; bob's
    and carol's clones, synced."""
    tmp = tmp_path_factory.mktemp("hostile")
    bare = shared_remote(tmp)
    alice = Context.open(first_clone(tmp, bare))
    grant, comments, learning, pending = victim_memory(alice)
    assert sync(str(alice.workspace.root)).status == "ok"
    for name in ("bob", "carol"):
        assert sync(str(_clone(tmp, bare, name).workspace.root)).status == "ok"
    held = {"grant": grant, "comments": comments, "learning": learning, "pending": pending, "scope": alice.scope,
            "alice": alice.workspace.config.writer}
    return tmp, held


@pytest.fixture
def world(base: tuple[Path, dict[str, Any]], tmp_path: Path) -> tuple[Path, Path, Path, dict[str, Any]]:
    """A copy of the base world: the bare remote, bob's clone and carol's, pointing at the copy."""
    source, held = base
    for name in ("remote.git", "bob", "carol"):
        copy_as_moved(source / name, tmp_path / name)
    for name in ("bob", "carol"):
        git(tmp_path / name, "remote", "set-url", "origin", str(tmp_path / "remote.git"))
    return tmp_path / "remote.git", tmp_path / "bob", tmp_path / "carol", held


def _state(root: Path) -> dict[str, Any]:
    ctx = Context.open(root)
    view = ctx.view()
    from gitstore.queries.learnings import learnings

    return {"verdicts": {r.status.id: (r.status.state, r.status.usable) for r in learnings(ctx)},
            "text": sorted(e["payload"]["text"] for e in view.events.values() if "payload" in e),
            "grants": sorted(view.grants)}


# -- the attacks: each writes into the bare remote, returns (writer, what the refusal names) ------

def _tip(bare: Path, ref: str) -> str:
    return git(bare, "rev-parse", ref).strip()


def rewound(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    ref = records_ref("shared", held["alice"])
    git(bare, "update-ref", ref, _tip(bare, ref + "~1"))
    return held["alice"], "history moved back"


def rewritten(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    """A history that parts from the one admitted is verified as any arrival is (one that
    passes is read beside it, ``test_sync_forks``): this one lists records it does not add."""
    ref = records_ref("shared", held["alice"])
    repo = pygit2.Repository(str(bare))
    tip = repo[repo.references[ref].target]
    forged = repo.create_commit(None, tip.author, tip.committer, tip.message, repo[tip.parent_ids[0]].tree_id,
                                tip.parent_ids)  # the same append, its records gone
    repo.references.create(ref, forged, force=True)
    return held["alice"], "but does not add it"


def bad_digest(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    good = grant_like(held["scope"])
    data = canonicalize(good).replace(b"honest", b"HONEST")
    GitProvider(bare, "wbroken").append(Batch("shared", (Entry(good["digest"], "grant", held["scope"], "grants", data),)))
    return "wbroken", good["digest"]


def _mallory(bare: Path, held: dict[str, Any]) -> Context:
    """Records written as a forger would: a context only to make audit entries in the scope."""
    class Audits:
        scope = held["scope"]

        def audit(self, action: str, by: str, subjects: list[str], records: list[dict[str, Any]]) -> dict[str, Any]:
            return Context.audit(self, action, by, subjects, records)  # type: ignore[arg-type]
    return Audits()  # type: ignore[return-value]


def decision_without_audit(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    acceptance = decision_step(held["pending"], "accepted", ALICE)
    forge(bare, "wforger", [acceptance])
    return "wforger", acceptance["digest"]


def decision_with_a_review_digest_never_shown(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    acceptance = decision_step(held["pending"], "accepted", ALICE, review_digest="sha256:" + "0" * 64)
    audit = _mallory(bare, held).audit("accept", ALICE, [acceptance["id"]], [acceptance])
    forge(bare, "wforger", [acceptance, audit])
    return "wforger", acceptance["digest"]


def blob_ref(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    blob = str(pygit2.Repository(str(bare)).create_blob(b"not a commit\n"))
    git(bare, "update-ref", records_ref("shared", "wblob"), blob)
    return "wblob", "points at a blob, not a commit"


def code_commit_ref(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    git(bare, "update-ref", records_ref("shared", "wcode"), _tip(bare, "main"))
    return "wcode", "wcode"


def huge_record(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    good = grant_like(held["scope"])
    data = canonicalize({**good, "note": "x" * (17 << 20)})
    GitProvider(bare, "whuge").append(Batch("shared", (Entry(good["digest"], "grant", held["scope"], "grants", data),)))
    return "whuge", "MiB a record may take"


def nested_record(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    good = grant_like(held["scope"])
    data = b'{"note":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    GitProvider(bare, "wdeep").append(Batch("shared", (Entry(good["digest"], "grant", held["scope"], "grants", data),)))
    return "wdeep", good["digest"]


def event_copy_holding_a_redaction(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    """A copy of a comment without its payload and with a redaction object inline: the same
    digest (an event's digest leaves out both), read first (``Clock: 1``), and no removal
    behind it."""
    target = held["comments"][0]
    copy = {k: v for k, v in target.items() if k != "payload"}
    copy["redaction"] = {"at": "2026-08-01T00:00:00.000000Z", "by": ALICE, "reason": "forged", "sourceId": None}
    forger = bare.parent / "forger"  # a repository holding no memory: the copy is new to it
    git(bare.parent, "init", "-q", str(forger))
    forge(forger, "0wredacted", [copy], clock=1, blind=True, raw=True)
    ref = records_ref("shared", "0wredacted")
    git(forger, "push", "-q", str(bare), f"{ref}:{ref}")
    return "0wredacted", "redaction"


def _crafted(bare: Path, writer: str, tree: pygit2.Oid, digest: str) -> None:
    """Point ``writer``'s records ref at a commit of ``tree`` whose message lists one grant."""
    repo = pygit2.Repository(str(bare))
    line = type("Line", (), {"digest": digest, "kind": "grant", "stream": "consent"})()
    signature = pygit2.Signature("gitstore", "gitstore@localhost")
    commit = repo.create_commit(None, signature, signature, format_message(1, writer, "shared", [line]), tree, [])
    repo.references.create(records_ref("shared", writer), commit, force=True)


def deep_tree(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    """A tree 1,100 folders deep: a walk that recursed once a level would never come back."""
    repo = pygit2.Repository(str(bare))
    builder = repo.TreeBuilder()
    builder.insert("x.json", repo.create_blob(b"{}"), pygit2.GIT_FILEMODE_BLOB)
    tree = builder.write()
    for _ in range(1100):
        builder = repo.TreeBuilder()
        builder.insert("a", tree, pygit2.GIT_FILEMODE_TREE)
        tree = builder.write()
    _crafted(bare, "wnested", tree, "sha256:" + "0" * 64)
    return "wnested", "nested deeper than"


def many_seen(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    """An append naming, in one more ``Seen`` header than an append may carry, commits no clone
    holds (200,000 of them made sync and every read 20x slower: each named commit is looked up)."""
    seen = tuple((held["alice"], f"{i:040x}") for i in range(MAX_SEEN + 1))
    forge(bare, "wseen", [grant_like(held["scope"])], seen=seen)
    return "wseen", f"{MAX_SEEN + 1} Seen headers, over the {MAX_SEEN}"


def _fanned(repo: pygit2.Repository, leaf: pygit2.Oid, width: int, depth: int) -> pygit2.Oid:
    """A tree ``depth`` levels deep whose every folder holds ``width`` entries naming one and
    the same folder below: a few hundred bytes that name ``width ** depth`` paths."""
    tree = leaf
    for _ in range(depth):
        builder = repo.TreeBuilder()
        for i in range(width):
            builder.insert(f"{i:02x}", tree, pygit2.GIT_FILEMODE_TREE)
        tree = builder.write()
    return tree


def repeated_folders(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    """A records tree whose folders all name one empty folder (100 ** 4 of them were walked
    before the walk refused a folder met twice)."""
    repo = pygit2.Repository(str(bare))
    _crafted(bare, "wfanned", _fanned(repo, repo.TreeBuilder().write(), 3, 3), "sha256:" + "0" * 64)
    return "wfanned", "in two places"


def snapshot_of_repeated_folders(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    """A payload snapshot whose folders all name one empty folder: no file in it to refuse,
    and 100 ** 4 folders to walk."""
    repo = pygit2.Repository(str(bare))
    forge(bare, "wsnapfan", [grant_like(held["scope"])])
    signature = pygit2.Signature("gitstore", "gitstore@localhost")
    tree = _fanned(repo, repo.TreeBuilder().write(), 3, 3)
    repo.references.create(payloads_ref("shared", "wsnapfan"),
                           repo.create_commit(None, signature, signature, "gitstore: payloads\n", tree, []), force=True)
    return "wsnapfan", "in two places"


def other_scope(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    grant = grant_like("github.com/evil/other")
    forge(bare, "wscope", [grant])
    return "wscope", "github.com/evil/other"


def snapshot_removing_others(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    note = canonicalize({"at": "2026-04-01T00:00:00.000000Z", "by": ALICE, "reason": "forged", "sourceId": None})
    forge(bare, "wsnap", [grant_like(held["scope"])])
    snapshot_note(bare, "wsnap", held["comments"][2]["payloadDigest"], note)
    return "wsnap", "redaction note"


def snapshot_dropping_payloads(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    repo = pygit2.Repository(str(bare))
    ref = payloads_ref("shared", held["alice"])
    signature = pygit2.Signature("gitstore", "gitstore@localhost")
    empty = repo.TreeBuilder().write()
    repo.references.create(ref, repo.create_commit(None, signature, signature, "gitstore: payloads\n", empty, []),
                           force=True)
    return held["alice"], "no stored append removed"


def odd_encoding(bare: Path, held: dict[str, Any]) -> tuple[str, str]:
    """An append whose commit names a text encoding no codec has (git's ``encoding`` header):
    pygit2 decoding its message raises ``LookupError``."""
    tip = forge(bare, "wodd", [grant_like(held["scope"])])
    head, _, body = git(bare, "cat-file", "commit", tip).partition("\n\n")
    made = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin"], cwd=bare, check=True,
                          input=f"{head}\nencoding x-bogus\n\n{body}", capture_output=True, text=True).stdout.strip()
    git(bare, "update-ref", records_ref("shared", "wodd"), made)
    return "wodd", "names the encoding 'x-bogus'"


ATTACKS: list[Callable[[Path, dict[str, Any]], tuple[str, str]]] = [
    rewound, rewritten, bad_digest, decision_without_audit, decision_with_a_review_digest_never_shown, blob_ref,
    code_commit_ref, huge_record, nested_record, deep_tree, repeated_folders, many_seen, other_scope, snapshot_removing_others,
    snapshot_of_repeated_folders, event_copy_holding_a_redaction, odd_encoding,
]


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.__name__ for a in ATTACKS])
def test_every_attack_is_refused_and_named_and_the_rest_arrives(world: tuple, attack: Callable) -> None:
    bare, bob, carol, held = world
    before = _state(bob)
    writer, needle = attack(bare, held)
    carol_ctx = Context.open(carol)
    honest = propose(carol_ctx, [ref(held["comments"][2])], title="Carol's", text="Carol's point.")
    assert sync(str(carol)).pushed
    report = sync(str(bob))
    named = _named(report, writer)
    assert any(needle in line for line in named), (needle, named)
    # damage makes the sync degraded; a decision fetched into a clone without a policy is only
    # never used (a teammate's looks the same), named without failing
    assert report.status == "degraded" or not any(needle in line for line in report.left_out + _held(report)), \
        report.line
    after = _state(bob)
    assert after["text"] == before["text"] and after["grants"] == before["grants"]  # nothing stored is lost
    assert {k: v for k, v in after["verdicts"].items() if k in before["verdicts"]} == before["verdicts"]
    assert honest["id"] in after["verdicts"]  # the honest writer still arrives
    again = sync(str(bob))
    if report.quarantined:  # still held: named again, not verified again
        assert again.status == "degraded" and any(needle in line for line in _named(again, writer))
    else:  # admitted and never used: verify names it from now on
        assert again.status == "no-update"
        done = cli.gitstore("verify", cwd=bob)
        assert needle in done.stdout + done.stderr
        assert done.returncode == (3 if report.left_out else 0), done.stderr
    assert cli.gitstore("learnings", cwd=bob).returncode == 0


def test_a_snapshot_forced_without_text_is_put_back_by_the_first_clone_that_syncs(world: tuple) -> None:
    """Alice's snapshot forced to an empty one: carol's sync reads it with alice's text kept,
    names it and, asked to, puts the text back on the remote; bob's finds the remote mended and
    reads every text as before."""
    bare, bob, carol, held = world
    before = _state(bob)
    writer, needle = snapshot_dropping_payloads(bare, held)
    report = sync(str(carol), put_back=True)
    assert report.status == "degraded" and not report.quarantined, report.render()
    assert [line.split(" (first")[0] for line in report.kept_text] == [
        f"writer {writer}: its payload snapshot on origin lacks 3 payload(s) {needle}"], report.render()
    assert report.restored == [f"writer {writer}: put the 3 payload(s) its snapshot on origin lacked back there, "
                               "from the text read here"], report.render()
    again = sync(str(bob))
    assert again.status in ("ok", "no-update") and not again.kept_text and not again.quarantined, again.render()
    assert _state(bob)["text"] == before["text"]
    assert sync(str(carol)).status == "no-update"
    done = cli.gitstore("verify", cwd=bob)
    assert done.returncode == 0, (done.stdout, done.stderr)


def _named(report: SyncReport, writer: str) -> list[str]:
    """The lines of a report that name an attack: ``writer``'s quarantine, or a record never used."""
    return _held(report, writer) + report.left_out + report.not_used


def _held(report: SyncReport, writer: str | None = None) -> list[str]:
    return [q.line for q in report.quarantined if writer in (None, q.writer)]


def test_damage_a_plain_fetch_brought_is_named_by_sync_too(world: tuple) -> None:
    bare, bob, carol, held = world
    writer, needle = bad_digest(bare, held)
    git(bob, "fetch", "-q", "origin")  # gitstore init's refspecs: straight into the fetched namespace
    report = sync(str(bob))
    assert report.status == "degraded" and [q.writer for q in report.quarantined] == [writer]
    assert needle in report.quarantined[0].line and "refs/memory/v1/remotes/origin/" in report.quarantined[0].line
    assert _state(bob)["verdicts"]  # reads leave it out and go on


@pytest.mark.parametrize("attack", [bad_digest, deep_tree, repeated_folders, other_scope, event_copy_holding_a_redaction,
                                    odd_encoding],
                         ids=lambda a: a.__name__)
def test_what_a_plain_fetch_brought_is_admitted_as_sync_would(world: tuple, attack: Callable) -> None:
    """Reads after a plain ``git fetch`` leave out, and name, what ``gitstore sync`` refuses:
    both ways of fetching admit the same refs, so clones fed by one remote agree."""
    bare, bob, carol, held = world
    before = _state(bob)
    writer, needle = attack(bare, held)
    git(bob, "fetch", "-q", "origin")  # gitstore init's refspecs: straight into the fetched namespace
    for command in (("learnings",), ("context", "--prompt", "retry")):
        done = cli.gitstore(*command, cwd=bob)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert writer in done.stderr and needle in done.stderr, done.stderr
    assert _state(bob) == before
    carol_report = sync(str(carol))
    assert [q.writer for q in carol_report.quarantined] == [writer] and needle in carol_report.quarantined[0].line
    assert _state(carol)["verdicts"] == _state(bob)["verdicts"]
    report = sync(str(bob))
    assert report.status == "degraded" and [q.writer for q in report.quarantined] == [writer], report.line


_PEAK = ("import sys\nfrom gitstore.cli import main\ncode = main(sys.argv[1:])\n"
         "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))\n"
         "sys.exit(code)\n")


def _peak_mib(argv: list[str], cwd: Path) -> tuple[int, float]:
    """A command's exit code and the peak resident set of its own process in MiB: VmHWM, of
    this program alone (getrusage's maximum also counts the test process the child was forked
    from before its exec, and the git processes it waited for: git's fetch holds a fetched blob
    whole, which is git's business)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _PEAK, *argv], cwd=cwd, capture_output=True, text=True)
    return done.returncode, int(done.stdout.split()[-1]) / 1024


def test_a_record_that_inflates_far_past_what_a_record_may_take_is_refused_before_it_is_inflated(
        world: tuple) -> None:
    """96 MiB of zeros pushed as one record (about a hundred kilobytes on the wire), six times
    what a record may take: its size is read from its header and the ref quarantined; no
    reader inflates it, nor any part of it as large as a payload may be (64 MiB). A command
    here peaks near 45 MiB; reading the record would add 96, reading a payload's worth 64."""
    import subprocess

    bare, bob, carol, held = world
    # stored loose, and packed for the wire, at the fastest level
    git(bare, "config", "pack.compression", "1")
    blob = subprocess.run("head -c 100663296 /dev/zero | git -c core.looseCompression=1 hash-object -w --stdin",
                          shell=True, cwd=bare, check=True, capture_output=True, text=True).stdout.strip()
    repo = pygit2.Repository(str(bare))
    digest = "0" * 64
    leaf = repo.TreeBuilder()
    leaf.insert(f"{digest}.json", pygit2.Oid(hex=blob), pygit2.GIT_FILEMODE_BLOB)
    node = leaf.write()
    for name in ("00", "00", "grant"):
        builder = repo.TreeBuilder()
        builder.insert(name, node, pygit2.GIT_FILEMODE_TREE)
        node = builder.write()
    _crafted(bare, "wbomb", node, "sha256:" + digest)
    git(carol, "fetch", "-q", "origin")
    code, peak = _peak_mib(["learnings"], carol)
    assert code == 0 and peak < 100, peak
    code, peak = _peak_mib(["sync"], bob)
    assert code == 3 and peak < 100, peak  # degraded: the ref is held aside
    quarantined = git(bob, "for-each-ref", "--format=%(refname)", "refs/memory/quarantine/")
    assert "wbomb" in quarantined


@pytest.mark.slow
def test_a_commit_that_inflates_to_gigabytes_in_a_writers_history_is_never_inflated(world: tuple) -> None:
    """Alice's records ref, which bob admitted, extended by two commits: the first's message is
    256 MiB of one letter, the tip is small. Checking that the tip extends what bob admitted
    walks through the big one: it is refused from its header, not parsed whole."""
    import subprocess

    bare, bob, carol, held = world
    ref = records_ref("shared", held["alice"])
    tip = _tip(bare, ref)
    tree = git(bare, "rev-parse", tip + "^{tree}").strip()
    head = f"tree {tree}\nparent {tip}\nauthor a <a@x> 1 +0000\ncommitter a <a@x> 1 +0000\n\n"
    big = subprocess.run(f"(printf '{head}'; head -c 268435456 /dev/zero | tr '\\0' x) | "
                         "git -c core.looseCompression=1 hash-object -t commit -w --stdin --literally", shell=True,
                         cwd=bare, check=True, capture_output=True, text=True).stdout.strip()
    # written as text: creating it through libgit2 would read the big parent whole first
    message = git(bare, "cat-file", "commit", tip).split("\n\n", 1)[1]
    small = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin"], cwd=bare, check=True,
                           input=f"tree {tree}\nparent {big}\nauthor gitstore <gitstore@localhost> 1767225600 +0000\n"
                                 f"committer gitstore <gitstore@localhost> 1767225600 +0000\n\n{message}",
                           capture_output=True, text=True).stdout.strip()
    git(bare, "update-ref", ref, small)
    git(bare, "config", "pack.compression", "1")  # the remote packs it for the wire at the fastest level too
    git(bob, "fetch", "-q", "origin")
    code, peak = _peak_mib(["learnings"], bob)
    assert code == 0 and peak < 200, peak  # parsing the commit whole would take 256 MiB
    code, peak = _peak_mib(["sync"], carol)
    assert code == 3 and peak < 200, peak
    assert held["alice"] in git(carol, "for-each-ref", "--format=%(refname)", "refs/memory/quarantine/")


def test_purge_removes_what_sync_holds_aside(world: tuple) -> None:
    from gitstore.config import Workspace
    from gitstore.ops.purge import purge

    bare, bob, carol, held = world
    rewound(bare, held)
    assert sync(str(bob)).quarantined
    assert git(bob, "for-each-ref", "refs/memory/quarantine/").strip()
    purge(Workspace.find(bob).repo, "acme/widgets")
    assert not git(bob, "for-each-ref", "refs/memory/").strip()


def test_a_writer_deleted_on_the_remote_is_kept_here(world: tuple) -> None:
    bare, bob, carol, held = world
    before = _state(bob)
    for kind in (records_ref, payloads_ref):
        git(bare, "update-ref", "-d", kind("shared", held["alice"]))
    report = sync(str(bob))
    assert report.kept == [held["alice"]] and f"kept writer {held['alice']}" in "\n".join(report.render())
    assert _state(bob) == before


def test_a_decision_forged_under_this_clones_own_writer_is_never_its_own(world: tuple) -> None:
    """Someone with push access extends bob's own writer ref on the remote with an acceptance
    and its audit entry. Bob's clone never takes it for one of its own decisions (only what its
    own refs hold is), and bob's next push is refused by name, never forced over it."""
    bare, bob, carol, held = world
    before = _state(bob)
    own = Context.open(bob).workspace.config.writer
    acceptance = decision_step(held["pending"], "accepted", ALICE)
    forge(bare, own, [acceptance, _mallory(bare, held).audit("accept", ALICE, [acceptance["id"]], [acceptance])])
    forged = _tip(bare, records_ref("shared", own))
    report = sync(str(bob))
    assert any(acceptance["digest"] in line and "carries no authority" in line for line in report.not_used), \
        report.not_used
    assert _state(bob)["verdicts"] == before["verdicts"]  # the proposal is still only proposed
    assert forged not in git(bob, "for-each-ref", "--format=%(objectname)", records_ref("shared", own))  # not moved onto it
    propose(Context.open(bob), [ref(held["comments"][2])], title="Bob's", text="Bob's point.")
    again = sync(str(bob))
    assert again.status == "degraded" and "never forced" in again.line, again.line
    assert _tip(bare, records_ref("shared", own)) == forged
    assert _state(bob)["verdicts"][held["pending"]["id"]] == before["verdicts"][held["pending"]["id"]]


def _admitted_as_before(root: Path, writer: str, scope: str) -> str:
    """Record ``writer``'s fetched records ref as admitted at its tip, as a clone whose checks
    let the ref pass did (its entry names no checks version), anchor and all; returns the tip."""
    import json

    from gitstore.providers._admit import anchor_ref

    ref = f"refs/memory/v1/remotes/origin/records/shared/{writer}"
    tip = git(root, "rev-parse", ref).strip()
    state = root / ".git" / "gitstore" / "admitted.json"
    known = json.loads(state.read_text()) if state.exists() else {}
    known[ref] = {"tip": tip, "problem": None, "scope": scope, "admitted": tip}
    state.write_text(json.dumps(known))
    git(root, "update-ref", anchor_ref(ref), tip)
    return tip


def test_a_writer_admitted_under_older_checks_is_checked_again_and_left_out(world: tuple) -> None:
    """A clone admitted a writer's history when the checks let it pass; checks that refuse it
    now (event bytes holding a redaction) check it again, whole: its writer is quarantined as
    on a fresh clone, reads go on without it, verify names it, and sync reports it, instead
    of every read failing on bytes the store no longer keeps."""
    import json

    from gitstore.providers._admit import anchor_ref

    bare, bob, carol, held = world
    before = _state(bob)
    writer, needle = event_copy_holding_a_redaction(bare, held)
    git(bob, "fetch", "-q", "origin")
    tip = _admitted_as_before(bob, writer, held["scope"])
    for command in (("records", "list"), ("episodes",)):  # every record read, the forged copy first
        done = cli.gitstore(*command, cwd=bob)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert writer in done.stderr and "quarantined" in done.stderr, done.stderr
    assert _state(bob) == before
    done = cli.gitstore("verify", cwd=bob)
    assert done.returncode == 3 and writer in done.stdout + done.stderr, done.stderr
    ref = f"refs/memory/v1/remotes/origin/records/shared/{writer}"
    entry = json.loads((bob / ".git" / "gitstore" / "admitted.json").read_text())[ref]
    assert entry["tip"] == tip and entry["problem"] and entry["admitted"] is None, entry
    assert git(bob, "for-each-ref", anchor_ref(ref)).strip() == "", "nothing of it is admitted, nor kept"
    report = sync(str(bob))
    assert [q.writer for q in report.quarantined] == [writer] and needle in report.quarantined[0].line
    assert _state(bob) == before and cli.gitstore("gc", cwd=bob).returncode == 0


def test_a_writer_admitted_under_older_checks_that_still_passes_stays_admitted(world: tuple) -> None:
    """Checking again under new checks gives nothing up that passes them: the writer stays
    admitted where it was, and its entry now names the checks it passed."""
    import json

    from gitstore.store import CHECKS_VERSION

    bare, bob, carol, held = world
    writer = held["alice"]
    tip = _admitted_as_before(bob, writer, held["scope"])
    assert cli.gitstore("learnings", cwd=bob).returncode == 0
    ref = f"refs/memory/v1/remotes/origin/records/shared/{writer}"
    entry = json.loads((bob / ".git" / "gitstore" / "admitted.json").read_text())[ref]
    assert entry == {"tip": tip, "problem": None, "scope": held["scope"], "admitted": tip, "checks": CHECKS_VERSION}


def test_gc_erases_redacted_text_from_a_quarantined_snapshot(world: tuple) -> None:
    """A payload snapshot sync refused is held under ``refs/memory/quarantine/``, never read;
    once a removal takes a payload it holds, gc erases that text there too, as from every
    snapshot read: after ``gitstore gc`` no copy of removed text is left in the clone."""
    from .conftest import all_objects

    bare, bob, carol, held = world
    repo = pygit2.Repository(str(bare))
    alices = repo[repo.references[payloads_ref("shared", held["alice"])].target]
    forge(bare, "wcopy", [grant_like(held["scope"])])
    repo.references.create(payloads_ref("shared", "wcopy"), alices.id, force=True)  # alice's text, theirs
    note = canonicalize({"at": "2026-04-01T00:00:00.000000Z", "by": ALICE, "reason": "forged", "sourceId": None})
    snapshot_note(bare, "wcopy", held["comments"][1]["payloadDigest"], note)  # a note: refused
    report = sync(str(bob))
    assert [(q.writer, q.kind) for q in report.quarantined] == [("wcopy", "payloads")], report.line
    text = held["comments"][0]["payload"]["text"].encode()
    assert text in all_objects(bob)
    cli.ok("redact", "--comment", held["comments"][0]["payload"]["sourceId"], "--reason", "asked", "--by", ALICE,
           cwd=bob)
    cli.ok("gc", cwd=bob)
    assert text not in all_objects(bob)
    assert git(bob, "rev-parse", "refs/memory/quarantine/origin/payloads/shared/wcopy").strip()  # still held
    again = sync(str(bob))
    assert [(q.writer, q.kind) for q in again.quarantined] == [("wcopy", "payloads")], again.line


# -- refs whose names no read can take for a writer's: dropped by sync and by gc -------------------

ODD_NAMES = {"not-utf8": b"w\xff\xfe", "no-writer-id": "w\u00a0x".encode()}


def _odd_copy(bare: Path, kind: str, writer: str, name: bytes) -> bytes:
    """Someone with push access copies ``writer``'s ``kind`` ref to a name git takes and no
    writer has (git takes any bytes in a ref's name); returns that name's last part."""
    subprocess.run([b"git", b"update-ref", f"refs/memory/v1/{kind}/shared/".encode() + name,
                    _tip(bare, f"refs/memory/v1/{kind}/shared/{writer}").encode()], cwd=bare, check=True)
    return name


def _memory_refs(root: Path) -> list[bytes]:
    listed = subprocess.run(["git", "for-each-ref", "--format=%(refname)", "refs/memory/"], cwd=root,
                            check=True, capture_output=True).stdout
    return listed.splitlines()


@pytest.mark.parametrize("odd", list(ODD_NAMES), ids=list(ODD_NAMES))
def test_a_ref_no_read_can_take_for_a_writers_is_named_by_sync_and_dropped(world: tuple, odd: str) -> None:
    """A ref whose name is not UTF-8 is one no listing of libgit2's names: it was left out of
    every read and every check alike, so sync said nothing of it and left it fetched. It is
    named and dropped as a name that is no writer id is."""
    bare, bob, carol, held = world
    name = _odd_copy(bare, "records", held["alice"], ODD_NAMES[odd])
    report = sync(str(bob))
    assert report.status == "degraded" and len(report.misnamed) == 1, report.render()
    assert report.misnamed[0].startswith("refs/memory/v1/records/shared/w"), report.misnamed
    assert not [ref for ref in _memory_refs(bob) if ref.endswith(b"/" + name)]
    done = cli.gitstore("sync", cwd=bob)
    assert done.returncode == 3 and "named by no writer id" in done.stdout + done.stderr, (done.stdout, done.stderr)
    assert cli.gitstore("verify", cwd=bob).returncode == 0


def test_verify_names_a_ref_whose_name_is_not_utf8(world: tuple) -> None:
    bare, bob, carol, held = world
    _odd_copy(bare, "records", held["alice"], ODD_NAMES["not-utf8"])
    git(bob, "fetch", "-q", "origin")  # gitstore init's refspecs: straight into the fetched namespace
    done = cli.gitstore("verify", cwd=bob)
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr
    assert "shared/w\\udcff\\udcfe: its name is not UTF-8" in done.stdout + done.stderr, (done.stdout, done.stderr)


@pytest.mark.parametrize("odd", list(ODD_NAMES), ids=list(ODD_NAMES))
def test_gc_erases_text_a_misnamed_snapshot_a_plain_fetch_brought_kept(world: tuple, odd: str) -> None:
    """Alice's payload snapshot copied to a name no writer has, brought by a plain ``git fetch``
    after bob removed one of its payloads: never read, it kept the removed text reachable
    through gc. gc drops such refs of the fetched namespaces first, as sync does."""
    from .conftest import all_objects

    bare, bob, carol, held = world
    name = _odd_copy(bare, "payloads", held["alice"], ODD_NAMES[odd])
    text = held["comments"][0]["payload"]["text"].encode()
    cli.ok("redact", "--comment", held["comments"][0]["payload"]["sourceId"], "--reason", "asked", "--by", ALICE,
           cwd=bob)
    git(bob, "fetch", "-q", "origin")
    assert [ref for ref in _memory_refs(bob) if ref.endswith(b"/" + name)]
    cli.ok("gc", cwd=bob)
    assert not [ref for ref in _memory_refs(bob) if ref.endswith(b"/" + name)]
    assert text not in all_objects(bob)


# -- refs nested under a writer's name: no writer's, never read, and in the way of git's -----------

def _nest(bare: Path, writer: str, *, move: bool) -> str:
    """Someone with push access puts a ref one level below ``writer``'s records ref (``move``:
    that ref deleted first, as a files-backend remote requires); returns the nested ref."""
    ref = records_ref("shared", writer)
    tip = _tip(bare, ref)
    if move:
        git(bare, "update-ref", "-d", ref)
    git(bare, "update-ref", f"{ref}/x", tip)
    return f"{ref}/x"


def _fetch_code(root: Path, *args: str) -> int:
    import subprocess

    return subprocess.run(["git", "fetch", "-q", *args, "origin"], cwd=root, capture_output=True).returncode


def test_a_ref_nested_under_a_writers_name_is_named_and_the_rest_keeps_working(world: tuple) -> None:
    """Carol follows git's advice (prune) after a plain fetch failed on the nested ref: sync
    puts alice's ref back, deletes the nested copy nothing reads, names it, and exits 3, each time."""
    bare, bob, carol, held = world
    before = _state(carol)
    nested = _nest(bare, held["alice"], move=True)
    assert _fetch_code(carol, "--prune") == 0
    for _ in range(2):
        report = sync(str(carol))
        assert report.status == "degraded" and [line for line in report.nested if nested in line], report.nested
        assert f"git push origin :{nested}" in "\n".join(report.render())
        assert cli.gitstore("sync", cwd=carol).returncode == 3
    assert _state(carol) == before
    assert not git(carol, "for-each-ref", "refs/memory/v1/remotes/origin/records/shared/*/*").strip()
    assert cli.gitstore("verify", cwd=carol).returncode == 0


def test_a_writer_whose_name_has_a_ref_nested_under_it_pushes_again_and_deletes_it(world: tuple) -> None:
    """Bob's own name: his sync deletes the nested ref on the remote (his writer's name, nothing
    reads it) and pushes his history back, so every clone's plain fetch works again."""
    bare, bob, carol, held = world
    from .world import grant_all

    grant_all(Context.open(bob))
    assert sync(str(bob)).pushed and sync(str(carol)).came_in
    writer = Context.open(bob).workspace.config.writer
    nested = _nest(bare, writer, move=True)
    assert _fetch_code(carol) != 0  # carol keeps bob's ref, which the nested one is in the way of
    report = sync(str(bob))
    assert not report.not_pushed and not report.nested and report.status == "ok", report.render()
    assert any(nested in line for line in report.cleared)
    assert report.kept == [] and "kept writer" not in "\n".join(report.render()), "its own ref is back on the remote"
    assert _tip(bare, records_ref("shared", writer)) == git(bob, "rev-parse", records_ref("shared", writer)).strip()
    assert not git(bare, "for-each-ref", nested).strip()
    assert _fetch_code(carol) == 0
    assert sync(str(carol)).status == "no-update"


def test_a_ref_nested_under_no_writer_that_a_plain_fetch_brought_is_deleted_here(world: tuple) -> None:
    """No ref moved: a plain fetch brings the nested ref into the namespace verify checks; sync
    deletes it and names it while the remote has it, and says nothing once it is gone there."""
    bare, bob, carol, held = world
    nested = records_ref("shared", "zz") + "/x"
    git(bare, "update-ref", nested, _tip(bare, records_ref("shared", held["alice"])))
    assert _fetch_code(carol) == 0
    assert cli.gitstore("verify", cwd=carol).returncode == 3
    report = sync(str(carol))
    assert [line for line in report.nested if nested in line] and report.status == "degraded"
    assert cli.gitstore("verify", cwd=carol).returncode == 0
    git(bare, "update-ref", "-d", nested)
    assert _fetch_code(carol) == 0
    report = sync(str(carol))
    assert not report.nested and report.status == "no-update", report.render()


def test_a_quarantined_ref_the_remote_deleted_is_released(world: tuple) -> None:
    from gitstore.sync.remote import held_in_quarantine

    bare, bob, carol, held = world
    rewound(bare, held)
    assert sync(str(bob)).quarantined
    provider = Context.open(bob).store.provider
    assert held_in_quarantine(provider.repo, provider.state)  # type: ignore[attr-defined]
    for kind in (records_ref, payloads_ref):
        git(bare, "update-ref", "-d", kind("shared", held["alice"]))
    report = sync(str(bob))
    assert not report.quarantined and report.kept == [held["alice"]]
    assert held_in_quarantine(provider.repo, provider.state) == []  # type: ignore[attr-defined]
    assert "quarantined by sync" not in cli.gitstore("doctor", cwd=bob).stdout


def test_a_snapshot_a_plain_fetch_brings_while_a_removal_writes_the_fetched_one_again_is_checked(
        world: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    """A removal writes every fetched payload snapshot holding the text again, and admits what
    it wrote. It took the snapshot's tip from the ref after writing it: a plain ``git fetch``
    landing in between (git's own, run beside it) had the snapshot it brought admitted
    unchecked, and one forced without alice's text took it from every read here."""
    from gitstore.ops.redact import redact

    bare, bob, carol, held = world
    before = _state(bob)["text"]
    snapshot_dropping_payloads(bare, held)
    swap = GitProvider._swap_ref
    fetched: list[str] = []

    def fetched_meanwhile(self: GitProvider, repo: pygit2.Repository, ref: str, *args: Any) -> bool:
        moved = swap(self, repo, ref, *args)
        if "/remotes/" in ref:  # the fetched snapshot just written: git fetch brings the forced one
            fetched.append(git(bob, "fetch", "-q", "origin"))
        return moved

    monkeypatch.setattr(GitProvider, "_swap_ref", fetched_meanwhile)
    redact(Context.open(bob), "github:comment:100", ALICE, "leaked a token")
    monkeypatch.undo()
    assert fetched, "the fetch landed once the snapshot was written"
    assert _state(bob)["text"] == [text for text in before if not text.startswith("point 0")]


def test_a_verify_while_a_removal_and_gc_run_finds_no_admitted_snapshot_missing(
        world: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    """verify read which tip each fetched ref was admitted at when it started; a redaction then
    wrote alice's fetched snapshot anew (admitting that one) and gc erased the one admitted
    before, and verify named it missing, failing as for damage. Both run in the window."""
    from gitstore.ops.redact import redact
    from gitstore.providers import git as provider_git

    bare, bob, carol, held = world
    check, beside = provider_git.verify_repository, []

    def removed_meanwhile(*args: Any, **kwargs: Any) -> Any:
        if not beside:
            beside.append(redact(Context.open(bob), "github:comment:101", ALICE, "leaked a token"))
            beside.append(Context.open(bob).store.provider.gc())
        return check(*args, **kwargs)

    verifying = Context.open(bob).store
    monkeypatch.setattr(provider_git, "verify_repository", removed_meanwhile)
    report = verifying.verify()
    assert beside[0].removed and beside[1].objects > 0, "gc erased the snapshot admitted before"
    assert report.problems == [], [str(p) for p in report.problems]


def test_a_removal_writing_a_fetched_snapshot_again_keeps_one_a_fetch_brought_after_it_was_read(
        base: tuple[Path, dict[str, Any]], world: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    """A removal reads each fetched payload snapshot holding the text, then forces the ref to it
    written again without the text. A ``git fetch`` (or a sync) landing between the two brought
    alice's newer snapshot, with a comment she wrote since, and the removal overwrote it: her
    comment's text was gone here until something fetched it again."""
    from gitstore.ops.redact import redact

    from .world import Thread

    bare, bob, carol, held = world
    copy_as_moved(base[0] / "alice", bare.parent / "alice")
    git(bare.parent / "alice", "remote", "set-url", "origin", str(bare))
    alice = Context.open(bare.parent / "alice")
    thread = Thread(alice, 7, "100")
    thread.comment("103", "point 3: cap the delay", "2026-03-04T10:00:00.000000Z")
    thread.save()
    assert sync(str(alice.workspace.root)).status == "ok"
    rewrite, admitted = GitProvider._rewrite_snapshots, GitProvider._admitted_snapshot
    rewriting: list[bool] = []
    fetched: list[str] = []

    def rewriting_snapshots(self: GitProvider, *args: Any) -> int:
        rewriting.append(True)
        return rewrite(self, *args)

    def fetched_meanwhile(self: GitProvider, repo: pygit2.Repository, ref: str) -> pygit2.Oid | None:
        read = admitted(self, repo, ref)
        if rewriting and not fetched:  # alice's snapshot just read by the removal, not yet written
            fetched.append(git(bob, "fetch", "-q", "origin"))
        return read

    monkeypatch.setattr(GitProvider, "_rewrite_snapshots", rewriting_snapshots)
    monkeypatch.setattr(GitProvider, "_admitted_snapshot", fetched_meanwhile)
    redact(Context.open(bob), "github:comment:100", ALICE, "leaked a token")
    monkeypatch.undo()
    assert fetched, "the fetch landed in the removal's window"
    texts = _state(bob)["text"]
    assert "point 3: cap the delay" in texts and not [text for text in texts if text.startswith("point 0")], texts
    assert cli.gitstore("verify", cwd=bob).returncode == 0


def test_a_fetched_snapshot_moved_at_every_read_of_a_removal_is_named_and_left_to_gc(
        world: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fetched snapshot that moves again each time the removal reads it (another clone's
    fetch in a loop) is not forced: the removal holds, says in one line which snapshot still
    holds the text, and gc writes it again."""
    from gitstore import notices
    from gitstore.ops.redact import redact

    bare, bob, carol, held = world
    repo = pygit2.Repository(str(bob))
    ref = payloads_ref("shared", held["alice"]).replace("/v1/", "/v1/remotes/origin/", 1)
    read = GitProvider._snapshot_read
    moves: list[pygit2.Oid] = []

    def moved_at_each_read(self: GitProvider, at: pygit2.Repository, name: str) -> Any:
        found = read(self, at, name)
        if name == ref:  # as a fetch forcing it anew would
            tree = repo[repo.references[ref].target].peel(pygit2.Commit).tree_id
            signature = pygit2.Signature("gitstore", "gitstore@localhost")
            moves.append(repo.create_commit(None, signature, signature, f"gitstore: payloads {len(moves)}\n",
                                            tree, []))
            repo.references.create(ref, moves[-1], force=True)
        return found

    notices.take()
    monkeypatch.setattr(GitProvider, "_snapshot_read", moved_at_each_read)
    redact(Context.open(bob), "github:comment:100", ALICE, "leaked a token")
    monkeypatch.undo()
    named = [line for line in notices.take() if ref in line]
    assert named and "`gitstore gc` writes it again" in named[0], named
    assert not [text for text in _state(bob)["text"] if text.startswith("point 0")]
    path = payload_path(payload_digest(held["comments"][0]["payload"]))
    assert len(moves) >= 8 and path in repo[repo.references[ref].target].peel(pygit2.Tree)
    assert cli.gitstore("gc", cwd=bob).returncode == 0
    assert path not in repo[repo.references[ref].target].peel(pygit2.Tree)


def test_gc_pointing_a_fetched_snapshot_back_keeps_one_a_fetch_brought_after_it_was_read(
        world: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    """gc points a fetched snapshot a plain ``git fetch`` moved where reads do not read back at
    the one reads use, reading the ref's tip first: a fetch landing between the two, bringing
    the writer's snapshot as it stands now, was overwritten with the older one."""
    bare, bob, carol, held = world
    ref = payloads_ref("shared", held["alice"]).replace("/v1/", "/v1/remotes/origin/", 1)
    honest = _tip(bare, payloads_ref("shared", held["alice"]))
    snapshot_dropping_payloads(bare, held)
    git(bob, "fetch", "-q", "origin")
    assert cli.gitstore("learnings", cwd=bob).returncode == 0  # read: the forced one is not taken
    repo = pygit2.Repository(str(bare))
    signature = pygit2.Signature("gitstore", "gitstore@localhost")
    again = repo.create_commit(None, signature, signature, "gitstore: payloads\n", repo[honest].peel(pygit2.Tree).id,
                               [])  # alice's snapshot, written again since
    target = GitProvider._target
    fetched: list[str] = []

    def fetched_meanwhile(repository: pygit2.Repository, name: str) -> pygit2.Oid | None:
        found = target(repository, name)
        if name == ref and not fetched and repository.path.rstrip("/").endswith(".git") \
                and Path(repository.path).parent == bob:
            repo.references.create(payloads_ref("shared", held["alice"]), again, force=True)
            fetched.append(git(bob, "fetch", "-q", "origin"))
        return found

    from gitstore.ops.gc import gc

    ctx = Context.open(bob)
    monkeypatch.setattr(GitProvider, "_target", staticmethod(fetched_meanwhile))
    provider = ctx.store.provider
    assert isinstance(provider, GitProvider)
    with provider.paused():
        provider._settle_fetched_snapshots()
    monkeypatch.undo()
    assert fetched and _tip(bob, ref) == str(again)
    gc(ctx.store, ctx.workspace.state)
    assert _state(bob)["text"] == _state(carol)["text"]


def test_a_removal_killed_once_it_wrote_a_fetched_snapshot_again_leaves_the_clone_sound(world: tuple) -> None:
    """A removal killed (SIGKILL) right after it moved a fetched snapshot onto the one it wrote,
    before it saved that it admits it: the next read checks that snapshot as any arrival and
    reads it, verify passes, the same command run again finds the text removed, and gc erases
    it."""
    from gitstore.ops.gc import gc
    from gitstore.ops.redact import redact

    from .conftest import all_objects
    from .test_killed_commands import killed

    bare, bob, carol, held = world
    before = _state(bob)["text"]
    killed(bob, "after:gitstore.providers.git:GitProvider._replace_snapshot",
           "redact", "--comment", "github:comment:100", "--reason", "asked", "--by", ALICE)
    assert _state(bob)["text"] == [text for text in before if not text.startswith("point 0")]
    assert Context.open(bob).store.verify().ok
    assert not redact(Context.open(bob), "github:comment:100", ALICE, "asked").removed  # removed already
    ctx = Context.open(bob)
    gc(ctx.store, ctx.workspace.state)
    assert held["comments"][0]["payload"]["text"].encode() not in all_objects(bob)
    assert _state(bob)["text"] == [text for text in before if not text.startswith("point 0")]
