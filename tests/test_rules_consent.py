"""Consent decided at read time: grants, their ranges and sources, withdrawals, labels,
deletions, and fail-closed reads of damaged consent records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitstore import IntegrityError
from gitstore.ops import consent
from gitstore.rules.active import active
from gitstore.rules.consent import decide

from .cli import gitstore
from .world import Thread, accepted, grant_all, propose, ready_repo, ref


@pytest.fixture
def ctx(tmp_path: Path):  # type: ignore[no-untyped-def]
    return ready_repo(tmp_path / "widgets")


def test_evidence_needs_a_grant_naming_purpose_source_and_time(ctx) -> None:  # type: ignore[no-untyped-def]
    thread = Thread(ctx, 7, "100")
    early = thread.comment("100", "Add jitter.", "2026-03-01T10:00:00.000000Z")
    reply = thread.comment("101", "Still needs jitter.", "2026-05-02T10:00:00.000000Z")
    thread.save()
    view = ctx.view()
    assert not decide(view, early["id"], "review").ok  # no grant at all
    consent.grant(ctx, "github:9", ["review"], ["review-thread"], "2026-01-01T00:00:00.000000Z",
                  "2026-04-30T23:59:59.999999Z", None)
    consent.grant(ctx, "github:9", ["training"], ["agent-session"], "2026-01-01T00:00:00.000000Z", None, None)
    view = ctx.view()
    assert decide(view, early["id"], "review").ok
    assert not decide(view, early["id"], "instruction").ok  # purpose not granted
    assert not decide(view, early["id"], "training").ok  # source not named
    verdict = decide(view, reply["id"], "review")
    assert not verdict.ok, "a reply written after the range is not covered though its thread began inside"
    assert "written at 2026-05-02" in verdict.reason


def test_a_later_grant_can_cover_earlier_evidence(ctx) -> None:  # type: ignore[no-untyped-def]
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Add jitter.", "2025-06-01T10:00:00.000000Z")
    thread.save()
    grant_all(ctx, start="2025-01-01T00:00:00.000000Z")
    assert decide(ctx.view(), comment["id"], "review").ok


def test_a_label_counts_only_while_its_comment_does_and_takes_its_time(ctx) -> None:  # type: ignore[no-untyped-def]
    grant_all(ctx, until="2026-03-31T00:00:00.000000Z")
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Add jitter.", "2026-03-01T10:00:00.000000Z")
    label = thread.label(comment, "retry-jitter", "2026-06-01T00:00:00.000000Z")  # labelled after the range
    thread.save()
    assert decide(ctx.view(), label["id"], "review").ok, "a label's time is its comment's time"
    thread.retract(comment, "2026-03-05T00:00:00.000000Z")
    thread.save()
    view = ctx.view()
    assert not decide(view, comment["id"], "review").ok
    assert not decide(view, label["id"], "review").ok


def test_deletion_removes_every_version_of_the_comment(ctx) -> None:  # type: ignore[no-untyped-def]
    grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    first = thread.comment("100", "Add jitter.", "2026-03-01T10:00:00.000000Z")
    second = thread.edit(first, "100", "Add full jitter.", "2026-03-01T11:00:00.000000Z")
    thread.retract(second, "2026-03-02T00:00:00.000000Z")
    thread.save()
    view = ctx.view()
    assert not decide(view, first["id"], "review").ok
    assert not decide(view, second["id"], "review").ok


def test_withdrawal_removes_dependent_learnings_at_once(ctx) -> None:  # type: ignore[no-untyped-def]
    grant = grant_all(ctx)
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Add jitter.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    learning = accepted(ctx, propose(ctx, [ref(comment)]))
    assert [s.id for s, _ in active(ctx.view(), "instruction")] == [learning["id"]]
    consent.withdraw(ctx, "github:9", grant["digest"], ["instruction"], "paused")
    assert active(ctx.view(), "instruction") == []
    assert [s.id for s, _ in active(ctx.view(), "review")] == [learning["id"]]


def test_counterevidence_is_a_dependency_too(ctx) -> None:  # type: ignore[no-untyped-def]
    grant_all(ctx, until="2026-03-31T00:00:00.000000Z")
    thread = Thread(ctx, 7, "100")
    support = thread.comment("100", "Add jitter.", "2026-03-01T10:00:00.000000Z")
    other = Thread(ctx, 8, "200")
    dissent = other.comment("200", "Jitter is not needed here.", "2026-03-02T10:00:00.000000Z", author="github:2002")
    thread.save()
    other.save()
    learning = accepted(ctx, propose(ctx, [ref(support)], counter=[ref(dissent)]))
    assert active(ctx.view(), "instruction")
    other.retract(dissent, "2026-03-03T00:00:00.000000Z")
    other.save()
    statuses = dict((s.id, s) for s, _ in active(ctx.view(), "instruction"))
    assert learning["id"] not in statuses


def _plant_damaged(ctx, kind: str) -> str:  # type: ignore[no-untyped-def]
    from .test_provider_git import hash_object, plant

    from gitstore.providers.git import record_path, records_ref

    record = json.loads(next(i for i in ctx.store.items([kind])).stored.data)
    record["reason"] = "tampered after sealing" if kind == "withdrawal" else record.get("note")
    record["purposes"] = ["training"]
    data = json.dumps(record, separators=(",", ":"), sort_keys=True).encode()
    fake_digest = "sha256:" + "e" * 64
    ref_name = records_ref("shared", ctx.workspace.config.writer)
    plant(ctx.workspace.root, ref_name, record_path(kind, fake_digest), hash_object(ctx.workspace.root, data))
    return fake_digest


def test_a_damaged_withdrawal_fails_closed_with_exit_3(ctx) -> None:  # type: ignore[no-untyped-def]
    grant = grant_all(ctx)
    consent.withdraw(ctx, "github:9", grant["digest"], ["instruction"], "paused")
    digest = _plant_damaged(ctx, "withdrawal")
    with pytest.raises(IntegrityError, match=digest):
        ctx.view()
    done = gitstore("learnings", "--active", cwd=ctx.workspace.root)
    assert done.returncode == 3 and digest in done.stderr and "Traceback" not in done.stderr


def _session_event(ctx, folder: Path) -> str:  # type: ignore[no-untyped-def]
    """The one text of a personal session imported into ``ctx``'s clone."""
    from .dream_world import session

    session(ctx, folder, "alice", "Please add jitter to the retries; I am on leave next week.")
    view = ctx.view()
    [episode] = [e for e in view.episodes.values() if e["source"]["kind"] == "agent-session"]
    assert episode["id"] in view.local_episodes
    return next(e["id"] for e in view.events.values() if e["episode"] == episode["id"] and "payload" in e)


def test_a_teammates_grant_never_serves_my_personal_sessions(tmp_path: Path) -> None:
    """A grant is a shared record, signed and counted on every clone for shared evidence; a
    personal session is one person's, served only by a grant the clone that keeps it made."""
    from .team import sync, two_reviewers

    alice, bob = two_reviewers(tmp_path)
    event = _session_event(alice, tmp_path / "sessions")
    start = "2026-01-01T00:00:00.000000Z"
    # named with review threads too, so it is shared: bob's word, signed, counted everywhere
    theirs = consent.grant(bob, "github:10", ["instruction"], ["agent-session", "review-thread"], start, None, None)
    alice, bob = sync(alice, bob)
    view = alice.view()
    assert theirs["digest"] in view.grants, "bob's grant counts on alice's clone (for shared evidence)"
    verdict = decide(view, event, "instruction")
    assert not verdict.ok and verdict.cause == "no-grant", "bob's grant lets alice's session go nowhere"
    listed = json.loads(gitstore("grants", "--json", cwd=alice.workspace.root).stdout)
    assert [g["thisClone"] for g in listed] == [False]
    assert "another clone's grant" in gitstore("grants", cwd=alice.workspace.root).stdout
    # her own grant does, kept on her machine: bob never receives it
    mine = consent.grant(alice, "github:9", ["instruction"], ["agent-session"], start, None, None)
    assert decide(alice.view(), event, "instruction").grants == (mine["digest"],)
    alice, bob = sync(alice, bob)
    assert mine["digest"] not in bob.view().grants, "a grant of personal sessions only stays on its machine"
    consent.withdraw(alice, "github:9", mine["digest"], None, "changed my mind")
    assert not decide(alice.view(), event, "instruction").ok, "withdrawing her own grant works on her machine"
    # a grant of hers she shares (it names review threads too) serves her sessions as well
    shared = consent.grant(alice, "github:9", ["instruction"], ["agent-session", "review-thread"], start, None, None)
    alice, bob = sync(alice, bob)
    assert decide(alice.view(), event, "instruction").grants == (shared["digest"],)
    assert shared["digest"] in bob.view().grants


def test_a_teammates_ref_fetched_into_my_own_names_is_never_mine(tmp_path: Path) -> None:
    """A plain `git fetch origin 'refs/memory/*:refs/memory/*'` puts bob's writer ref among
    alice's own names: his appends are still his, never alice's, so his grant never serves her
    personal sessions; hers stay hers, those of the id she wrote as before `init --new-writer`
    too, and doctor names the ref."""
    from gitstore.context import Context

    from .team import git, sync, two_reviewers

    alice, bob = two_reviewers(tmp_path)
    event = _session_event(alice, tmp_path / "sessions")
    start = "2026-01-01T00:00:00.000000Z"
    theirs = consent.grant(bob, "github:10", ["instruction"], ["agent-session", "review-thread"], start, None, None)
    alice, bob = sync(alice, bob)
    root = alice.workspace.root
    git(root, "fetch", "-q", "origin", "refs/memory/*:refs/memory/*")
    bobs = f"refs/memory/v1/records/shared/{bob.workspace.config.writer}"
    assert git(root, "rev-parse", "-q", "--verify", bobs), "the fetch put bob's ref in alice's names"
    alice = Context.open(root)
    assert theirs["digest"] in alice.view().grants
    assert decide(alice.view(), event, "instruction").cause == "no-grant", "bob's grant is not alice's own"
    listed = json.loads(gitstore("grants", "--json", cwd=root).stdout)
    assert [g["thisClone"] for g in listed] == [False]
    doctor = gitstore("doctor", cwd=root).stdout
    assert "another writer's memory fetched into this clone's own names" in doctor and bobs in doctor
    mine = consent.grant(alice, "github:9", ["instruction"], ["agent-session", "review-thread"], start, None, None)
    assert decide(Context.open(root).view(), event, "instruction").grants == (mine["digest"],)
    done = gitstore("init", "--new-writer", cwd=root)
    assert done.returncode == 0, done.stderr
    alice = Context.open(root)
    assert decide(alice.view(), event, "instruction").grants == (mine["digest"],), \
        "what alice wrote as her former id is still hers"
    listed = {g["digest"]: g["thisClone"] for g in json.loads(gitstore("grants", "--json", cwd=root).stdout)}
    assert listed == {theirs["digest"]: False, mine["digest"]: True}



def _grant_as(tmp_path: Path, bare: Path, writer: str, name: str, back: bool = False) -> tuple[Path, str]:
    """Bob's clone ``name`` of the team's remote: a plain fetch into its own names, alice's
    writer id taken up (``back``: her ref moved back one append first) and a grant of her
    personal sessions appended under it, unsigned (no policy: any ``--by``). Returns the clone
    and the grant's digest; nothing is pushed."""
    from .team import git

    other = tmp_path / name
    git(tmp_path, "clone", "-q", str(bare), str(other))
    git(other, "fetch", "-q", "origin", "refs/memory/*:refs/memory/*")
    if back:
        hers = f"refs/memory/v1/records/shared/{writer}"
        git(other, "update-ref", hers, git(other, "rev-parse", f"{hers}~1").strip())
    assert gitstore("init", "--writer", writer, cwd=other).returncode == 0
    done = gitstore("grant", "--purpose", "instruction", "--source", "agent-session", "--source", "review-thread",
                    "--from", "2026-01-01", "--by", "github:9", "--note", name, "--json", cwd=other)
    assert done.returncode == 0, done.stderr
    return other, json.loads(done.stdout)["digest"]


def test_a_grant_another_clone_appended_under_my_writer_id_is_never_mine(tmp_path: Path) -> None:
    """Bob, who can push, takes up alice's writer id in a clone of his own, appends a grant
    of her personal sessions onto her records ref (a fast-forward of her history) and pushes
    it; a plain fetch into alice's own names moves her ref on to it. Her appends are those
    her clone made: his is not hers, before her next append or after it, so it never serves
    her personal sessions; a grant she makes herself does."""
    from gitstore.context import Context

    from .team import first_clone, git, shared_remote

    bare = shared_remote(tmp_path)
    root = first_clone(tmp_path, bare, "alice")  # no policy: only this clone's own grants count
    alice = Context.open(root)
    event = _session_event(alice, tmp_path / "sessions")
    start = "2026-01-01T00:00:00.000000Z"
    consent.grant(alice, "github:9", ["instruction"], ["review-thread"], start, None, None)  # her own shared append
    writer = alice.workspace.config.writer
    hers = f"refs/memory/v1/records/shared/{writer}"
    git(root, "push", "-q", "origin", f"{hers}:{hers}")
    other, theirs = _grant_as(tmp_path, bare, writer, "bob")
    git(other, "push", "-q", "origin", hers)
    git(root, "fetch", "-q", "origin", "refs/memory/*:refs/memory/*")
    assert git(root, "rev-parse", hers) == git(other, "rev-parse", hers), "her ref moved on to his grant"
    alice = Context.open(root)
    assert theirs not in alice.view().grants, "another clone's grant counts for nothing without a policy"
    verdict = decide(alice.view(), event, "instruction")
    assert not verdict.ok and verdict.cause == "no-grant", "bob's append under alice's id is not hers"
    doctor = gitstore("doctor", cwd=root).stdout
    assert f"1 append(s) on {hers} were made by another clone under this clone's writer id" in doctor, doctor
    consent.grant(alice, "github:9", ["review"], ["review-thread"], start, None, None)  # on top of his
    alice = Context.open(root)
    verdict = decide(alice.view(), event, "instruction")
    assert not verdict.ok and verdict.cause == "no-grant", "her append on top of his makes his no more hers"
    consent.grant(alice, "github:9", ["instruction"], ["agent-session"], start, None, None)
    assert decide(Context.open(root).view(), event, "instruction").ok, "her own grant serves her sessions"
    assert f"1 append(s) on {hers} were made by another clone" in gitstore("doctor", cwd=root).stdout


def test_a_clone_that_logged_no_move_owns_the_appends_it_acknowledged(tmp_path: Path) -> None:
    """A clone whose appends predate the made log (its tips log alone names them) still owns
    them, before its next append and after it: its shared grant serves its personal sessions."""
    from gitstore.context import Context
    from gitstore.providers._gitdirs import state_dir

    import pygit2

    alice = ready_repo(tmp_path)
    event = _session_event(alice, tmp_path / "sessions")
    start = "2026-01-01T00:00:00.000000Z"
    consent.grant(alice, "github:9", ["instruction"], ["agent-session", "review-thread"], start, None, None)
    root = alice.workspace.root
    made = list(state_dir(pygit2.Repository(str(root))).glob("*.made"))
    assert made
    for path in made:
        path.unlink()
    assert decide(Context.open(root).view(), event, "instruction").ok
    consent.grant(Context.open(root), "github:9", ["review"], ["review-thread"], start, None, None)
    assert decide(Context.open(root).view(), event, "instruction").ok


def test_a_new_writer_id_carries_over_none_of_another_clones_appends_under_the_old_one(tmp_path: Path) -> None:
    """Bob's grant, appended under alice's id and brought into her names by a plain fetch,
    stays his when she takes a new writer id and the remote's history of the old one parts
    from hers (bob forced it back and on): her sync carries her appends the remote lacks
    over to the new id, never his."""
    from gitstore.context import Context

    from .team import first_clone, git, shared_remote

    bare = shared_remote(tmp_path)
    root = first_clone(tmp_path, bare, "alice")
    alice = Context.open(root)
    event = _session_event(alice, tmp_path / "sessions")
    start = "2026-01-01T00:00:00.000000Z"
    consent.grant(alice, "github:9", ["review"], ["review-thread"], start, None, None)
    writer = alice.workspace.config.writer
    hers = f"refs/memory/v1/records/shared/{writer}"
    git(root, "push", "-q", "origin", f"{hers}:{hers}")
    bobs = []
    for name, back in (("bob", False), ("bob2", True)):  # then the remote's history of her old id parts from hers
        other, theirs = _grant_as(tmp_path, bare, writer, name, back)
        bobs.append(theirs)
        git(other, "push", "-q", "--force", "origin", hers)
        if not back:
            git(root, "fetch", "-q", "origin", "refs/memory/*:refs/memory/*")
            assert gitstore("init", "--new-writer", cwd=root).returncode == 0
    done = gitstore("sync", cwd=root)
    assert done.returncode == 3 and "rewritten" in done.stdout, done.stdout + done.stderr  # his rewrite, named
    listed = {g["digest"]: g["thisClone"] for g in json.loads(gitstore("grants", "--json", cwd=root).stdout)}
    assert not any(listed.get(digest) for digest in bobs), listed
    verdict = decide(Context.open(root).view(), event, "instruction")
    assert not verdict.ok and verdict.cause == "no-grant", "bob's grant carried over as alice's"


def test_a_move_logged_after_a_line_a_killed_write_left_unended_starts_a_line_of_its_own(tmp_path: Path) -> None:
    """An append killed while logging its move leaves a line without its end: the next
    append's move is logged on a line of its own, and its grant stays this clone's."""
    from gitstore.context import Context
    from gitstore.providers._gitdirs import state_dir

    import pygit2

    alice = ready_repo(tmp_path)
    event = _session_event(alice, tmp_path / "sessions")
    start = "2026-01-01T00:00:00.000000Z"
    consent.grant(alice, "github:9", ["review"], ["review-thread"], start, None, None)
    root = alice.workspace.root
    [made] = [p for p in state_dir(pygit2.Repository(str(root))).glob("records-shared-*.made")]
    with open(made, "a", encoding="ascii") as log:
        log.write("0123456789abcdef")
    consent.grant(Context.open(root), "github:9", ["instruction"], ["agent-session", "review-thread"], start, None, None)
    assert decide(Context.open(root).view(), event, "instruction").ok


def test_a_made_log_that_cannot_be_read_stops_an_append_naming_it(tmp_path: Path) -> None:
    """A folder where a writer ref's made log goes: the append stops at once with one line
    naming it (exit 3), not after retrying as if the ref kept moving, and so does a read."""
    from gitstore.providers._gitdirs import state_dir

    import pygit2

    alice = ready_repo(tmp_path)
    consent.grant(alice, "github:9", ["review"], ["review-thread"], "2026-01-01T00:00:00.000000Z", None, None)
    root = alice.workspace.root
    [made] = [p for p in state_dir(pygit2.Repository(str(root))).glob("records-shared-*.made")]
    made.unlink()
    made.mkdir()
    done = gitstore("grant", "--purpose", "review", "--source", "review-thread", "--from", "2026-01-01",
                    "--by", "github:9", cwd=root)
    assert done.returncode == 3, done.stderr
    assert str(made) in done.stderr and "kept moving" not in done.stderr and len(done.stderr.splitlines()) == 1
    read = gitstore("grants", "--json", cwd=root)
    assert read.returncode == 3 and str(made) in read.stdout + read.stderr, "a read names it as damage too"
    assert "delete" not in read.stdout + read.stderr or "deleting it would" in read.stdout + read.stderr


def _second_checkout(tmp_path: Path) -> tuple[Path, Path, str]:
    """(the team's bare remote, alice's second checkout, her writer id): her first checkout
    made a shared grant and synced; the second, set up with her id, took her history up."""
    from .team import first_clone, git, shared_remote

    bare = shared_remote(tmp_path)
    first = first_clone(tmp_path, bare, "alice1")
    assert gitstore("grant", "--purpose", "review", "--source", "review-thread", "--from", "2026-01-01",
                    "--by", "github:9", cwd=first).returncode == 0
    assert gitstore("sync", cwd=first).returncode == 0
    writer = json.loads((first / "okf" / ".memory" / "config.json").read_text())["writer"]
    second = tmp_path / "alice"
    git(tmp_path, "clone", "-q", str(bare), str(second))
    assert gitstore("init", "--writer", writer, cwd=second).returncode == 0
    return bare, second, writer


def test_a_checkout_that_wrote_as_its_writer_takes_no_history_up_in_place_of_its_lost_ref(tmp_path: Path) -> None:
    """Bob puts alice's history and his grant where a plain fetch writes the remote's copy of
    her ref, and deletes the ref itself; a pruning plain fetch deletes hers. Her checkout had
    appended as that writer: its lost ref is damage, named, and her next sync takes bob's
    history up in its place never, so his grant never serves her personal sessions."""
    from gitstore.context import Context

    from .team import git

    bare, root, writer = _second_checkout(tmp_path)
    assert gitstore("sync", cwd=root).returncode == 0
    event = _session_event(Context.open(root), tmp_path / "sessions")
    assert gitstore("grant", "--purpose", "analytics", "--source", "review-thread", "--from", "2026-01-01",
                    "--by", "github:9", cwd=root).returncode == 0
    assert gitstore("sync", cwd=root).returncode == 0
    hers = f"refs/memory/v1/records/shared/{writer}"
    other, theirs = _grant_as(tmp_path, bare, writer, "bob")
    git(other, "push", "-q", "origin", f"{hers}:refs/memory/v1/remotes/origin/records/shared/{writer}", f":{hers}")
    git(root, "-c", "fetch.prune=true", "fetch", "-q", "origin", "refs/memory/*:refs/memory/*")
    assert not git(root, "for-each-ref", hers).strip(), "the pruning fetch deleted her ref"
    done = gitstore("sync", cwd=root)
    assert "took up" not in done.stdout and done.returncode == 3, done.stdout + done.stderr
    assert "acknowledged appends on it, and the ref is gone" in done.stdout + done.stderr
    assert gitstore("grants", "--json", cwd=root).returncode == 3, "every read names the lost ref"
    with pytest.raises(IntegrityError):
        decide(Context.open(root).view(), event, "instruction")
    git(root, "update-ref", hers, git(root, "rev-parse", f"refs/memory/v1/remotes/origin/records/shared/{writer}").strip())
    listed = {g["digest"]: g["thisClone"] for g in json.loads(gitstore("grants", "--json", cwd=root).stdout)}
    assert listed[theirs] is False, "moved to bob's history by hand, his grant is still not hers"
    assert not decide(Context.open(root).view(), event, "instruction").ok


def test_a_writers_history_a_plain_fetch_put_in_a_fresh_checkouts_names_is_taken_up_by_its_sync(tmp_path: Path) -> None:
    """A second checkout set up with alice's id whose plain fetch put her history in its own
    names before its first sync: the sync takes it up where it is, as it takes up the remote's
    copy, and it is her own there: her grant is this clone's, and doctor names nothing."""
    from .team import git

    _, root, writer = _second_checkout(tmp_path)
    git(root, "fetch", "-q", "origin", "refs/memory/*:refs/memory/*")
    done = gitstore("sync", cwd=root)
    assert done.returncode == 0 and f"took up writer {writer}'s history found in this clone's own names" in done.stdout, \
        done.stdout + done.stderr
    listed = json.loads(gitstore("grants", "--json", cwd=root).stdout)
    assert listed and all(g["thisClone"] for g in listed)
    assert "made by another clone" not in gitstore("doctor", cwd=root).stdout


def test_another_clones_personal_memory_a_plain_fetch_brings_is_never_read_nor_moved(tmp_path: Path) -> None:
    """Bob pushes his local namespace's records ref (a grant of personal sessions) to the team's
    remote; alice's plain fetch puts it among her own refs, where an earlier version kept a
    clone's personal memory. It is not hers: never read, never moved into her local namespace
    by `gitstore init`; doctor names it."""
    from gitstore.context import Context

    from .team import first_clone, git, shared_remote

    bare = shared_remote(tmp_path)
    root = first_clone(tmp_path, bare, "alice")
    event = _session_event(Context.open(root), tmp_path / "sessions")
    other = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(bare), str(other))
    assert gitstore("init", cwd=other).returncode == 0
    done = gitstore("grant", "--purpose", "instruction", "--source", "agent-session", "--from", "2026-01-01",
                    "--by", "github:9", "--json", cwd=other)
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout)["digest"]
    bobs = f"refs/memory/v1/records/local/{json.loads((other / 'okf/.memory/config.json').read_text())['writer']}"
    git(other / ".git" / "gitstore" / "local", "push", "-q", str(bare), f"{bobs}:{bobs}")
    git(root, "fetch", "-q", "origin", "refs/memory/*:refs/memory/*")
    assert git(root, "rev-parse", "-q", "--verify", bobs).strip(), "the fetch put his ref among hers"
    for _ in range(2):
        view = Context.open(root).view()
        assert theirs not in view.grants and decide(view, event, "instruction").cause == "no-grant"
        doctor = gitstore("doctor", cwd=root).stdout
        assert "another clone's personal memory fetched into this clone's own names" in doctor and bobs in doctor
        assert gitstore("init", cwd=root).returncode == 0
    assert not git(root / ".git" / "gitstore" / "local", "for-each-ref", bobs).strip(), "never moved in"


def test_personal_memory_pushed_under_my_writer_id_replaces_none_of_mine(tmp_path: Path) -> None:
    """Bob takes alice's writer id up, captures a session of his and pushes his local
    namespace's refs under her id; her plain fetch puts them among her own refs, where an
    earlier version kept her personal memory. Hers are in her local namespace already: his are
    never read (her commands keep working), `gitstore init` moves none over hers, her session
    keeps its text, and doctor and verify name his for removal."""
    from gitstore.context import Context

    from .dream_world import session
    from .team import first_clone, git, shared_remote

    bare = shared_remote(tmp_path)
    root = first_clone(tmp_path, bare, "alice")
    alice = Context.open(root)
    event = _session_event(alice, tmp_path / "sessions")
    text = alice.view().events[event]["payload"]["text"]
    local = root / ".git" / "gitstore" / "local"
    before = git(local, "for-each-ref", "refs/memory")
    writer = alice.workspace.config.writer
    other = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(bare), str(other))
    assert gitstore("init", "--writer", writer, cwd=other).returncode == 0
    session(Context.open(other), tmp_path / "bobs", "bob", "Deploy on Fridays, nobody will notice.")
    refs = [f"refs/memory/v1/{kind}/local/{writer}" for kind in ("records", "payloads")]
    git(other / ".git" / "gitstore" / "local", "push", "-q", "-f", str(bare), *[f"{ref}:{ref}" for ref in refs])
    git(root, "fetch", "-q", "origin", "refs/memory/*:refs/memory/*")
    assert all(git(root, "rev-parse", "-q", "--verify", ref).strip() for ref in refs)
    for _ in range(2):
        assert gitstore("grants", "--json", cwd=root).returncode == 0
        assert Context.open(root).view().events[event]["payload"]["text"] == text
        doctor = gitstore("doctor", cwd=root).stdout
        assert all(ref in doctor for ref in refs) and "another clone's personal memory" in doctor, doctor
        checked = gitstore("verify", cwd=root)
        assert checked.returncode == 3 and "git update-ref -d" in checked.stdout + checked.stderr
        assert gitstore("init", cwd=root).returncode == 0
    assert git(local, "for-each-ref", "refs/memory") == before, "her local namespace is as it was"


def test_personal_memory_an_earlier_layout_kept_in_the_repository_is_moved_whole(tmp_path: Path) -> None:
    """An earlier version kept a clone's personal memory in the repository's own refs and
    logged its records ref alone: both refs are this clone's, moved by `gitstore init`, and
    its session keeps its text; doctor names none as another clone's."""
    from gitstore.context import Context
    from gitstore.providers._gitdirs import state_dir

    import pygit2

    from .team import git

    alice = ready_repo(tmp_path)
    event = _session_event(alice, tmp_path / "sessions")
    root = alice.workspace.root
    text = alice.view().events[event]["payload"]["text"]
    local = root / ".git" / "gitstore" / "local"
    refs = git(local, "for-each-ref", "--format=%(refname)", "refs/memory/v1/records/local",
               "refs/memory/v1/payloads/local").split()
    assert len(refs) == 2
    git(root, "fetch", "-q", str(local), *[f"{ref}:{ref}" for ref in refs])
    for name in refs:
        git(local, "update-ref", "-d", name)
    for log in state_dir(pygit2.Repository(str(root))).glob("payloads-local-*"):
        log.unlink()  # that version logged no payload snapshot
    doctor = gitstore("doctor", cwd=root).stdout
    assert "another clone's personal memory" not in doctor and "`gitstore init` moves them" in doctor, doctor
    assert gitstore("init", cwd=root).returncode == 0
    assert sorted(git(local, "for-each-ref", "--format=%(refname)", "refs/memory").split()) == sorted(refs)
    assert Context.open(root).view().events[event]["payload"]["text"] == text
