"""A writer's history moved back on the remote, told by a clone that never read what it lost.

Someone with push access forces alice's records ref on the remote back past her withdrawal.
Clones that admitted it keep it (sync quarantines the rewound ref); a fresh clone reads alice's
history without it, and the grant permits again there. Bob's append made after the withdrawal
names it in a ``Seen`` header: the fresh clone's sync and doctor say alice's history lacks an
append bob saw. Real clones of a bare remote, real git."""

from __future__ import annotations

import json
from pathlib import Path

from gitstore.context import Context
from gitstore.ops import consent
from gitstore.ops.setup import init
from gitstore.providers.git import records_ref
from gitstore.queries.doctor import doctor
from gitstore.rules.consent import withdrawn
from gitstore.sync.remote import SyncReport, sync

from .conftest import git
from .hostile import grant_like, victim_memory
from .team import first_clone, forge, shared_remote, two_reviewers
from .world import Thread

LACKS = "lacks"


def _clone(tmp: Path, bare: Path, name: str) -> Context:
    git(tmp, "clone", "-q", str(bare), str(tmp / name))
    init(tmp / name)
    return Context.open(tmp / name)


def _withdrawn(root: Path, grant: dict) -> bool:
    return bool(withdrawn(Context.open(root).view(payloads=False)).get(grant["digest"]))


def _unheld_warnings(root: Path) -> list[str]:
    return [c.detail for c in doctor(root).checks if c.name == "fetched memory" and LACKS in c.detail]


def _comment(ctx: Context, pr: int, text: str) -> None:
    thread = Thread(ctx, pr, str(pr * 100))
    thread.comment(str(pr * 100), text, "2026-04-01T10:00:00.000000Z")
    thread.save()


def _synced(root: Path) -> SyncReport:
    report = sync(str(root))
    assert not report.unheld, report.render()
    return report


def test_a_fresh_clone_names_a_history_moved_back_past_appends_another_writer_saw(tmp_path: Path) -> None:
    alice, bob = two_reviewers(tmp_path)  # a policy: a withdrawal counts on every clone
    bare = tmp_path / "remote.git"
    grant, _, _, _ = victim_memory(alice)
    _synced(alice.workspace.root)
    _synced(bob.workspace.root)
    ref = records_ref("shared", alice.workspace.config.writer)
    before = git(bare, "rev-parse", ref).strip()
    consent.withdraw(Context.open(alice.workspace.root), "github:9", grant["digest"], None, "no longer")
    _synced(alice.workspace.root)
    _synced(bob.workspace.root)
    _comment(Context.open(bob.workspace.root), 8, "bob saw the withdrawal")  # its Seen names it
    _synced(bob.workspace.root)
    assert _withdrawn(bob.workspace.root, grant)

    git(bare, "update-ref", ref, before)  # forced back past the withdrawal

    again = sync(str(bob.workspace.root))  # bob held it: the rewound ref is quarantined, nothing else said
    assert again.quarantined and not again.unheld
    assert _withdrawn(bob.workspace.root, grant)
    dave = _clone(tmp_path, bare, "dave")
    report = sync(str(dave.workspace.root))
    alice_id, bob_id = alice.workspace.config.writer, bob.workspace.config.writer
    assert len(report.unheld) == 1
    line = report.unheld[0]
    assert f"writer {alice_id}: its history as fetched here lacks 1 append(s) that writer(s) {bob_id} saw:" in line
    assert "withdrawal" in line and line in report.render() and not report.quarantined
    assert not _withdrawn(dave.workspace.root, grant)  # what the warning is about: the withdrawal is not read
    assert [w for w in _unheld_warnings(dave.workspace.root) if alice_id in w]
    # a sync that finds nothing moved finds it kept by every tip read (no history walked again) ...
    kept = dave.workspace.root / ".git" / "gitstore" / "verified" / "unheld.json"
    assert kept.is_file()
    assert sync(str(dave.workspace.root)).unheld == report.unheld
    found = json.loads(kept.read_text())  # an entry damaged by hand is found again, not served
    kept.write_text(json.dumps({key: {kind: [[1]] for kind in entry} for key, entry in found.items()}))
    assert sync(str(dave.workspace.root)).unheld == report.unheld

    _synced(alice.workspace.root)  # alice pushes her history back: ... and a ref that moved is judged anew
    _synced(dave.workspace.root)
    assert _withdrawn(dave.workspace.root, grant)
    assert not _unheld_warnings(dave.workspace.root)


def test_three_clones_syncing_as_usual_never_name_a_history_lacking_appends(tmp_path: Path) -> None:
    bare = shared_remote(tmp_path)
    alice = Context.open(first_clone(tmp_path, bare))
    grant, _, _, _ = victim_memory(alice)
    roots = [alice.workspace.root]
    _synced(roots[0])
    roots += [_clone(tmp_path, bare, name).workspace.root for name in ("bob", "carol")]
    for turn in range(3):
        for i, root in enumerate(roots):
            _comment(Context.open(root), 10 + turn * 3 + i, f"turn {turn} of clone {i}")
            _synced(root)
        _synced(roots[turn])  # one syncs twice: what it pushed comes back
    consent.withdraw(Context.open(roots[0]), "github:9", grant["digest"], None, "no longer")
    for root in roots:
        _synced(root)
    dave = _clone(tmp_path, bare, "dave").workspace.root
    _synced(dave)
    for root in (*roots, dave):
        assert not _unheld_warnings(root)


def test_a_seen_header_naming_a_made_up_commit_is_named_and_refuses_nothing(tmp_path: Path) -> None:
    """Anyone with push access can name a commit no one made: a nuisance, as deleting a ref is."""
    bare = shared_remote(tmp_path)
    alice = Context.open(first_clone(tmp_path, bare))
    _, comments, _, _ = victim_memory(alice)
    _synced(alice.workspace.root)
    alice_id = alice.workspace.config.writer
    forge(bare, "wforger", [grant_like(alice.scope)], seen=((alice_id, "f" * 40),))
    bob = _clone(tmp_path, bare, "bob")
    report = sync(str(bob.workspace.root))
    assert [line.split(":")[0] for line in report.unheld] == [f"writer {alice_id}"]
    assert "that writer(s) wforger saw" in report.unheld[0]
    assert not report.quarantined and report.status == "ok"
    events = Context.open(bob.workspace.root).view(payloads=False).events
    assert all(c["id"] in events for c in comments)  # alice's history is read as it is


def test_a_history_many_writers_say_they_saw_names_ten_of_them_in_its_line() -> None:
    """Anyone who can push may make a thousand writers whose appends each name a made-up commit
    of a teammate: the line sync and doctor print for it names ten, not a thousand (at 150 such
    writers it ran to 2,600 characters)."""
    from gitstore.providers._unheld import Unheld, unheld_line

    seers = [f"w{n:012x}" for n in range(1000)]
    line = unheld_line(Unheld("wa", ("f" * 40,), tuple(seers)), "wa", seers)
    assert f"{seers[9]} and 990 more saw:" in line
    assert seers[10] not in line and len(line) < 600
    assert "writer(s) wb, wc saw:" in unheld_line(Unheld("wa", ("f" * 40,), ("wb", "wc")), "wa", ["wb", "wc"])
