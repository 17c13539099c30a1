"""``gitstore sync``: shared memory travels through the team's own git remote, verified on arrival.

One sync, under a lock so two never overlap in a clone:

1. **Fetch** every writer's shared records and payload refs from the remote into names of
   their own, ``refs/memory/sync/<remote>/{records,payloads}/shared/<writer>`` (explicit
   refspecs, ``--no-tags``, no opportunistic update of the fetched namespace, no filter): nothing
   there is ever read. In a partial clone, the objects of what arrived that a plain fetch left
   out are fetched too, before anything is checked (``gitstore.providers._partial``). When the
   sync ends, those whose tip is not the admitted one are deleted; the rest keep nothing
   reachable the store's refs do not, and stay, so the next fetch writes only the refs that
   moved (``gitstore.providers._incoming``; gc drops the ones left behind first). The default
   branch the policy is read from (``refs/remotes/origin/HEAD`` names it), when it is this
   remote's, is fetched beside memory, into ``refs/memory/sync/origin/policy-branch``, and its
   remote-tracking ref moved there (as ``git fetch`` would) once the verdicts before it are
   known: a policy change on the remote applies at the sync that brings it. In a partial clone
   it is fetched with the clone's filter. The remote's ``HEAD`` comes with it: where it is
   elsewhere, the team made another branch its default, and the policy is not moved.
2. **Verify** what arrived (``gitstore.sync.arrivals``). A ref that passes moves into the
   fetched namespace the store reads, ``refs/memory/v1/remotes/<remote>/...``, by one
   compare-and-swap transaction, and is recorded as admitted (reads do not verify it again). A
   ref that fails is **quarantined** under ``refs/memory/quarantine/<remote>/...`` (until it moves
   on the remote, or the remote no longer has it) and named in one line with the writer and the damage; the tip admitted before stays, so nothing already
   stored is lost and every other writer keeps working. A records history that fails is still
   read up to the commit before the first that fails (its verified prefix, which the fetched ref
   moves to, as reads after a plain fetch read it; its snapshot is then checked as any other):
   damage stacked on a teammate's signed withdrawal does not keep the withdrawal from counting. Another writer's history that parts
   from the one admitted (a fork) and verifies since the commit both hold is admitted, the one
   it parts from kept beside it as a parted history (``gitstore.providers._admit``), which reads
   go on reading: a clone that read a brief fork is not left behind. A ref nested under a
   writer's name (``.../shared/<writer>/x``) is no writer's: nothing reads it, a plain fetch's copy
   of it is deleted (it would keep the writer's admitted ref from being put back), and it is named;
   under this clone's own writer id it is deleted from the remote before the push, which the
   remote refuses while it is there. Records go first, then
   snapshots (a snapshot may drop only payloads an admitted append removed).
3. **Push** this writer's own shared refs: its records fast-forward only; its payload snapshot
   (a parentless commit by design) only over the snapshot the fetch just saw
   (``--force-with-lease``), in one atomic push, past pre-push hooks (``--no-verify``: they
   judge project commits; memory's are verified on arrival). Nothing of the local namespace is ever pushed:
   it lives in ``.git/gitstore/local``, not in the repository's refs. Nor is a history holding a
   record of another scope than the one the remote stands for (``gitstore.scope.remote_scope``:
   what its clones' origin gives them), which every clone of it would refuse: nothing is pushed,
   and the report says what mends it (a clone naming the team's remote otherwise has a local
   scope; one whose origin changed keeps its old records). A push rejected because
   the remote moved meanwhile is retried after fetching again. A clone given the id of a writer
   the remote already has (``init --writer``) that has appended nothing as it first takes that
   writer's admitted history up as its own, so its appends go out as fast-forwards. One whose
   writer id has no appends carries over first what it appended under an id it left with
   ``init --new-writer`` that the remote's history of it parted from
   (``gitstore.providers._carry_git``; ``init --new-writer`` does it first), so those go out
   too; never an id another work tree of the repository writes as. Before it pushes, this
   writer's own payload snapshot is written again without every payload a removal honoured
   here took (``GitProvider.drop_removed``): a redaction made on another clone rewrote only that
   clone's copy of it, so the remote kept the text until this writer pushed a snapshot without
   it, which only gc wrote before (and a CI writer never runs gc). So is the snapshot of each id
   this work tree left with ``init --new-writer``, and pushed over the remote's (with the lease
   on what was fetched) when it is the remote's without payloads a removal honoured here took
   and nothing else: a removal's records go under the current id, so that snapshot had nothing
   else to go out with, and the remote served the text for good; never the snapshot of an id
   another work tree writes as, nor of one a copied folder's original left. The ids whose
   snapshot on the remote still holds such text once the push is over (refused, say) are
   written down for ``gitstore doctor``, which warns of them. Before that, what this writer
   stored of a redacted comment before the redaction reached it (a later version, imported
   meanwhile, and labels) is removed as ``redact`` removes it, with its audit entries
   (``ops.redact.remove_later_versions``), so that text leaves the remote in the same push.

Then the redactions memory holds, those that just arrived from another clone included, are
applied to the GitHub snapshots ``import github`` saved on this clone and to its export files
(``gitstore.ops.snapshots``): a file that cannot be rewritten is named, and tried again by the
next sync, without failing this one.

Last, when what this sync brought took a learning out of force here (a teammate's retirement,
withdrawal or redaction), the files ``gitstore publish`` wrote (AGENTS.md, CLAUDE.md, the
index) lose every learning no longer in force, as a local ``retire``, ``withdraw`` or
``redact`` takes it out (``gitstore.deliver.refresh``): agents read those files at session
start. Only what left force goes; nothing is added. Where they must not be written (a merge or
rebase in progress, a section edited by hand), the files that still give agents a learning
not in force are named in one line.

It names each writer whose history as admitted here lacks appends another writer's fetched
history names as seen (``gitstore.providers._unheld``): someone moved that history back on the
remote, and what those appends held is not read here until a sync brings them back (a clone
that admitted them keeps them, and quarantines the rewound ref instead). Nothing is refused on
it, and the status stays as it is: anyone with push access could name a made-up commit.

It reports what came in (writers, records), what went out, what was refused, every learning
whose verdict changed (the learnings' standing before and after, from the same query
``gitstore learnings`` runs) and every saved snapshot it scrubbed and export it rewrote. Every step is idempotent
and leaves the clone readable if it is killed: a sync run again completes.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
import subprocess
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pygit2

from gitstore import _jsontext, notices
from gitstore._files import replace_file
from gitstore.config import GONE_NOTE, former_writers, writers_of_other_trees
from gitstore.context import Context
from gitstore.errors import GitstoreError, InvalidInput, Refused, RemoteGone, UsageError
from gitstore.capture.saved import Applied
from gitstore.ops.redact import follow_redactions
from gitstore.ops.snapshots import apply_redactions
from gitstore.providers._names import fetch_refspecs
from gitstore.providers._admit import (ANCHORS, PREFIXED, Admissions, Fork, kept_text, kept_text_line,
                                       parted_line)
from gitstore.providers._gitdirs import (STALE_LOCK_SECONDS, clear_stale_lock, clear_stale_ref_locks, common_dir,
                                        complaint, git_env, listings_kept, lock_in_way, may_nest, ref_names,
                                        ref_targets, state_dir)
from gitstore.providers._names import QUARANTINE, fetched_line, record_path, shown_in, shown_ref, shown_writer
from gitstore.providers._objects import first_parents, peeled
from gitstore.providers._tips import never_logged, note_made, take_up, tips_log, wrote_as
from gitstore.providers._partial import is_partial, judged_again, missing_objects
from gitstore.providers._shallow import DEEPEN, cut_refs, is_shallow, note_unmended
from gitstore.providers._incoming import (
    INCOMING, SYNC_MOVES, drop_stale_incoming, misnamed_refs, policy_incoming, ref_tip, remote_head_incoming,
    sync_lock_if_free, sync_locked,
)
from gitstore.providers._unheld import unheld_line
from gitstore.providers._policy_git import REMOTE_HEAD, default_branch
from gitstore.records.contracts import CHECKS_VERSION
from gitstore.records.policy import POLICY_FILE, SIGNERS_FILE
from gitstore.scope import admits, renamed_todo, same_scope, scope_label
from gitstore.providers._message import message_of
from gitstore.providers.git import KEPT_NOTE, PREFIX, GitProvider, parse_message, records_state
from gitstore.sync.arrivals import Checked, check_records, check_snapshot, extends

QUARANTINED = "quarantine.json"  # {quarantine ref: {"tip", "problem"}}: refusals are not verified again
ATTEMPTS = 3
DEEPEN_TRIES = 3  # fetches deepening memory before reads are left to say what stays cut
KINDS = ("records", "payloads")
REMOTE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\Z")
ZERO = "0" * 40
MOVED = ("stale info", "fetch first", "non-fast-forward", "cannot lock ref")  # git's words for a remote that moved


@dataclass(frozen=True)
class Moved:
    """A ref that moved: a fetched writer's admitted, or this writer's pushed."""

    writer: str
    kind: str
    before: str | None
    after: str
    count: int  # records (or payloads) it brought

    def to_json(self) -> dict[str, Any]:
        return {"writer": self.writer, "kind": self.kind, "before": self.before, "after": self.after,
                "count": self.count}


@dataclass(frozen=True)
class Quarantined:
    """A fetched ref refused: kept under a name of its own, never read."""

    writer: str
    kind: str
    tip: str
    held: str
    damage: str

    @property
    def line(self) -> str:
        return (f"writer {shown_writer(self.writer, cut=True)}: {self.kind} at {self.tip[:12]} quarantined as "
                f"{shown_ref(self.held, cut=True)}, never read: {shown_in(self.damage, self.held, cut=True)}")

    def to_json(self) -> dict[str, Any]:
        """As ``line`` shows them: whoever pushed the ref named it, and a program reading JSON
        passes what it reads on to whoever reads."""
        return {"writer": shown_writer(self.writer, cut=True), "kind": self.kind, "tip": self.tip,
                "ref": shown_ref(self.held, cut=True), "damage": shown_in(self.damage, self.held, cut=True),
                "line": self.line}


@dataclass(frozen=True)
class Change:
    """A learning whose verdict the sync changed."""

    id: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None

    @property
    def line(self) -> str:
        def word(v: dict[str, Any] | None) -> str:
            return "absent" if v is None else f"{v['state']}{'' if v['usable'] else ' (not in force)'}"

        return f"learning {self.id}: {word(self.before)} -> {word(self.after)}"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "before": self.before, "after": self.after}


@dataclass
class SyncReport:
    """What one sync did."""

    remote: str
    came_in: list[Moved] = field(default_factory=list)
    quarantined: list[Quarantined] = field(default_factory=list)
    renamed: list[str] = field(default_factory=list)  # what reads those of another scope a rename leaves, once each
    kept: list[str] = field(default_factory=list)  # writers the remote no longer has, kept here
    kept_text: list[str] = field(default_factory=list)  # snapshots that drop text no removal took: it stays read here
    restored: list[str] = field(default_factory=list)  # such text put back on the remote's snapshot of its writer
    brought_back: list[str] = field(default_factory=list)  # snapshots holding text a removal took: read without it
    owed: dict[str, tuple[pygit2.Oid, tuple[str, ...]]] = field(default_factory=dict, repr=False)  # writer -> kept
    parted: list[str] = field(default_factory=list)  # histories a writer's ref parted from, kept and read here
    pushed: list[Moved] = field(default_factory=list)
    not_pushed: list[str] = field(default_factory=list)
    stranded: list[str] = field(default_factory=list)  # appends made under an old writer id that cannot travel
    carried: list[str] = field(default_factory=list)  # such appends, carried over to this writer id
    continued: list[str] = field(default_factory=list)  # this writer's history, taken up from the remote
    dropped: int = 0  # payloads an honoured removal took, written out of this writer's snapshot
    followed: list[str] = field(default_factory=list)  # text stored here of comments redacted meanwhile, removed
    changed: list[Change] = field(default_factory=list)
    default_moved: str | None = None  # the remote's HEAD names another branch than the one the policy is read from
    nested: list[str] = field(default_factory=list)  # refs on the remote nested under a writer's name: never read
    misnamed: list[str] = field(default_factory=list)  # refs on the remote named by no writer id, shown: never read
    cleared: list[str] = field(default_factory=list)  # such refs under this clone's writer names, deleted there
    left_out: list[str] = field(default_factory=list)  # arrived, and never used by the rules (damage)
    not_used: list[str] = field(default_factory=list)  # arrived intact, carrying no authority here: no damage
    # writers whose history here lacks appends others saw: named, never refused, and no damage to
    # what arrived (anyone with push access can name a made-up commit), so the status stays
    unheld: list[str] = field(default_factory=list)
    other_repositories: list[str] = field(default_factory=list)  # memory a fork's remote brought, dropped here
    attempts: int = 0
    snapshots: Applied = field(default_factory=Applied)  # redactions applied to the GitHub snapshots saved here
    policy: str | None = None  # the default branch the policy is read from, when the sync moved it
    policy_source: str | None = None  # origin's default branch learned, or why the policy is read from a local branch
    published: list[str] = field(default_factory=list)  # published files rewritten without what left force
    published_stale: str | None = None  # why published files still give agents what left force

    @property
    def status(self) -> str:
        if (self.quarantined or self.kept_text or self.nested or self.misnamed or self.not_pushed or self.left_out
                or self.snapshots.failed):
            return "degraded"
        return ("ok" if self.came_in or self.pushed or self.restored or self.continued or self.carried or self.dropped
                or self.followed or self.cleared or self.snapshots.rewritten or self.policy or self.published
                or self.other_repositories else "no-update")

    @property
    def line(self) -> str:
        writers = len({m.writer for m in self.came_in})
        records = sum(m.count for m in self.came_in if m.kind == "records")
        sent = sum(m.count for m in self.pushed if m.kind == "records")
        parts = [f"{self.remote}: {records} record(s) in from {writers} writer(s), {sent} record(s) pushed",
                 f"{len(self.changed)} verdict(s) changed"]
        if self.other_repositories:
            parts.append(f"memory from {len(self.other_repositories)} remote(s) of another repository dropped")
        if self.quarantined:
            parts.append(f"{len(self.quarantined)} ref(s) quarantined")
        if self.unheld:
            parts.append(f"{len(self.unheld)} writer(s)' history lacks appends others saw")
        if self.kept_text:
            parts.append(f"text kept for {len(self.kept_text)} writer(s) whose snapshot lacks it")
        if self.restored:
            parts.append(f"text put back on {len(self.restored)} writer(s)' snapshot")
        if self.brought_back:
            parts.append(f"removed text left out of {len(self.brought_back)} writer(s)' snapshot")
        if self.nested:
            parts.append(f"{len(self.nested)} ref(s) nested under a writer's name")
        if self.misnamed:
            parts.append(f"{len(self.misnamed)} ref(s) named by no writer id")
        if self.left_out:
            parts.append(f"{len(self.left_out)} record(s) never used")
        if self.not_used:  # intact, and carrying no authority here (no policy, or unsigned under one): no damage
            parts.append(f"{len(self.not_used)} decision(s) not counted here (no authority)")
        if self.not_pushed:
            parts.append("not pushed: " + "; ".join(self.not_pushed))
        if self.stranded:
            parts.append(f"{len(self.stranded)} old writer id(s) with appends that stay here")
        if self.carried:
            parts.append(f"{len(self.carried)} old writer id(s) with appends carried over to this one")
        if self.dropped:
            parts.append(f"{self.dropped} removed payload(s) taken off this writer's snapshot")
        if self.snapshots.scrubbed:
            parts.append(f"{len(self.snapshots.scrubbed)} saved GitHub snapshot(s) scrubbed")
        if self.snapshots.exports:
            parts.append(f"{len(self.snapshots.exports)} export(s) rewritten")
        if self.snapshots.failed:
            parts.append(f"redacted text left in {len(self.snapshots.failed)} file(s)")
        if self.published:
            parts.append(f"{len(self.published)} published file(s) rewritten without what left force")
        if self.published_stale:
            parts.append("published files stale")
        return ", ".join(parts)

    def render(self) -> list[str]:
        """The summary line, then one line per refusal, snapshot scrubbed (or not), export
        rewritten, left-out record and verdict change."""
        return [self.line, *self.other_repositories, *([self.policy_source] if self.policy_source else []),
                *([self.policy] if self.policy else []), *([self.default_moved] if self.default_moved else []),
                *(q.line for q in self.quarantined), *self.renamed, *self.unheld, *self.kept_text, *self.brought_back,
                *self.restored,
                *self.nested, *([_misnamed_line(self.misnamed, self.remote)] if self.misnamed else []),
                *self.cleared, *self.followed, *self.snapshots.lines("the next sync tries again"),
                *self.left_out, *(f"kept writer {shown_writer(w)}: the remote no longer has it" for w in self.kept),
                *self.parted,
                *self.stranded, *self.carried, *self.continued,
                *(c.line for c in self.changed),
                *([f"rewrote the published {', '.join(self.published)} without what left force"]
                  if self.published else []),
                *([self.published_stale] if self.published_stale else [])]

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "line": self.line, "remote": self.remote,
                "in": [m.to_json() for m in self.came_in], "out": [m.to_json() for m in self.pushed],
                "quarantined": [q.to_json() for q in self.quarantined], "renamed": self.renamed,
                "nested": self.nested,
                "misnamed": self.misnamed, "cleared": self.cleared, "defaultMoved": self.default_moved,
                "kept": self.kept, "keptText": self.kept_text, "broughtBack": self.brought_back,
                "restored": self.restored, "parted": self.parted,
                "notPushed": self.not_pushed, "stranded": self.stranded, "carried": self.carried,
                "continued": self.continued, "dropped": self.dropped, "followed": self.followed,
                "changed": [c.to_json() for c in self.changed],
                "leftOut": self.left_out, "unheld": self.unheld, "otherRepositories": self.other_repositories,
                "notUsed": self.not_used, "attempts": self.attempts, "policy": self.policy,
                "policySource": self.policy_source, "published": self.published, "publishedStale": self.published_stale,
                **self.snapshots.to_json()}


# -- the run ---------------------------------------------------------------------------------------

def sync(start: str, remote: str = "origin", put_back: bool = False) -> SyncReport:
    """Fetch, verify and admit every writer's shared refs from ``remote``, then push this
    writer's own; see the module's documentation. Its passes over every writer's refs hand
    one listing on while nothing changed it (``listings_kept``)."""
    with listings_kept():
        return _sync(start, remote, put_back)


def _sync(start: str, remote: str, put_back: bool) -> SyncReport:
    ctx = Context.open(start)
    provider = ctx.store.provider
    if not isinstance(provider, GitProvider):
        raise Refused(f"sync needs the git provider (this clone keeps memory in {ctx.workspace.config.provider})")
    _check_remote(provider.repo, remote)
    _refuse_other_repository(provider.repo, remote, ctx.workspace.scope)
    from gitstore.scope import scope_and_kept

    report = SyncReport(remote)
    with sync_locked(provider.state):
        report.other_repositories = drop_other_repositories(provider.repo, provider.state, ctx.workspace.scope,
                                                            scope_and_kept(provider.repo)[1], locked=True)
        if report.other_repositories:  # what the store read of them is read no more
            ctx = Context.open(start)
            provider = cast(GitProvider, ctx.store.provider)
        try:
            _run(ctx, provider, remote, report, put_back)
        finally:  # whatever stopped it: nothing unverified stays reachable under the sync's names
            drop_stale_incoming(provider.repo, remote)
    _keep_published(ctx.workspace.root, report)
    return report


def _keep_published(root: Path, report: SyncReport) -> None:
    """Take what left force out of the files ``gitstore publish`` wrote, as the local commands
    that take a learning out of force do (``gitstore.deliver.refresh``), once what this sync
    brought took a learning out of force here (a teammate's retirement, withdrawal or
    redaction): only then, so a sync that changes nothing costs nothing more, and a clone
    where a learning the files list was never in force (a committed AGENTS.md another clone
    published, in a repository without a policy) keeps the files as they are. Where nothing
    may be written, the files that still list a learning not in force are named in one line
    (a section edited by hand that lists none is no news). What a plain ``git fetch`` brought
    before the sync took out of force when a read admitted it: ``gitstore doctor`` names those
    files, and ``gitstore publish`` rewrites them."""
    if not any(c.before is not None and c.before.get("usable") and not (c.after or {}).get("usable")
               for c in report.changed):
        return
    from gitstore.deliver.publish import named, named_outside, standing
    from gitstore.deliver.refresh import refresh

    try:
        ctx = Context.open(root)
        done = refresh(ctx)
        report.published = done.files
        found = standing(ctx) if done.stale else None
    except (GitstoreError, OSError) as exc:  # memory synced; only the published files may lag
        report.published_stale = (f"cannot tell whether the published files give agents learnings no longer in "
                                  f"force: {exc}; see `gitstore doctor`")
        return
    said = []
    if found is not None and found.not_in_force:
        ids = sorted({i for listed in found.not_in_force.values() for i in listed})
        said.append(f"published files are stale: {', '.join(found.not_in_force)} still give agents "
                    f"{named(ids)}, no longer in force, and were not rewritten: {'; '.join(done.stale)}")
    said += [named_outside(path, ids) for path, ids in done.outside.items()]
    if said:
        report.published_stale = "; ".join(said)


def _run(ctx: Context, provider: GitProvider, remote: str, report: SyncReport, put_back: bool = False) -> None:
    before: tuple[dict[str, Any], dict[str, str]] | None = None
    misnamed: set[str] = set()
    former = _own_former(ctx)  # the ids this work tree left: its state, the same the whole sync
    try:
        _refuse_gone(provider.repo, remote)
        unset = REMOTE_HEAD not in provider.repo.references
        report.policy_source = _learn_default(provider.repo, remote)
        if unset and REMOTE_HEAD in provider.repo.references:  # the policy in force is read elsewhere now
            before = _verdicts(ctx)
            ctx = Context.open(ctx.workspace.root)
            provider = cast(GitProvider, ctx.store.provider)
        for attempt in range(1, ATTEMPTS + 1):
            report.attempts = attempt
            report.kept_text.clear()  # what this attempt's fetch brought, not an earlier one's
            report.brought_back.clear()
            report.owed.clear()
            _fetch(provider.repo, remote)
            _drop_nested(provider.repo, f"{PREFIX}remotes/{remote}/")
            misnamed.update(_drop_misnamed(provider.repo, f"{PREFIX}remotes/{remote}/"),
                            _drop_misnamed(provider.repo, f"{INCOMING}{remote}/"))
            run = _Admitting(ctx, remote)
            branch = _policy_branch(provider.repo, remote)
            report.default_moved = _default_moved(provider.repo, remote, branch)
            policy = None if report.default_moved else _policy_arrived(provider.repo, branch)
            if before is None and (run.pending() or policy):
                before = _verdicts(ctx)
            if policy:  # what arrived is judged under the policy it arrived with
                branch, tip, here = policy
                _update_refs(provider.repo, [(branch.tracking, tip, here)])
                report.policy = f"{branch.tracking} moved to {str(tip)[:12]}: the policy in force is read there"
                ctx = Context.open(ctx.workspace.root)
                provider = cast(GitProvider, ctx.store.provider)
                run = _Admitting(ctx, remote)
            run.admit(report)
            if ctx.workspace.config.writer_given:
                _continue_own(provider, remote, report)
            admitted = Context.open(ctx.workspace.root)  # as the records just admitted leave it
            followed = follow_redactions(admitted)
            report.followed.extend(line for line in followed if line not in report.followed)
            report.dropped += _drop_removed(Context.open(ctx.workspace.root) if followed else admitted, former)
            left = _carry(ctx, _reopened(provider, ctx.workspace.scope), report)
            scrubbed = _scrubbed(ctx, remote, former)
            if not _push(_reopened(provider, ctx.workspace.scope), remote, report, left, last=attempt == ATTEMPTS,
                         scrubbed=scrubbed):
                break
        if put_back:
            _put_back(_reopened(provider, ctx.workspace.scope), remote, report)
    except GitstoreError as exc:  # the remote unreachable, a push refused: what earlier syncs admitted
        _scrub_snapshots(ctx.workspace.root)  # is still applied to this clone's snapshots
        if isinstance(exc, RemoteGone):  # said by the error, not again by the warning opening memory gives
            notices.forget(GONE_NOTE)
        raise
    report.quarantined = list({(q.writer, q.kind, q.tip): q for q in report.quarantined}.values())  # once each
    back = {m.writer for m in report.pushed if m.kind == "records"}
    report.kept = [w for w in report.kept if w not in back]  # this clone's own, which it just pushed again
    report.nested = [_nested_line(name, remote) for name in _nested_on_remote(provider.repo, remote)]
    report.misnamed = [shown_ref(name) for name in sorted(misnamed)]  # names whoever could push chose
    reading = _reopened(provider, ctx.workspace.scope)
    _held_by_reads(reading, remote, report)
    todos = (renamed_todo(reading.repo, str(ctx.workspace.scope), q.damage) for q in report.quarantined)
    report.renamed = list(dict.fromkeys(todo for todo in todos if todo is not None))  # as doctor advises, once
    report.unheld = unheld_lines(reading, former)  # the histories it just read, read once
    if before is not None:
        _compare(before, _verdicts(Context.open(ctx.workspace.root)), report)
    report.snapshots = _scrub_snapshots(ctx.workspace.root)
    _note_served(ctx, remote, report, former)
    notices.forget(KEPT_NOTE)  # what the reads of this sync said of a snapshot as a plain fetch left it: named above


def _continue_own(provider: GitProvider, remote: str, report: SyncReport) -> None:
    """A clone given the id of a writer the remote already has (``init --writer``, as the memory
    workflow does on every fresh runner) that has appended nothing as it yet takes that
    writer's admitted history up as its own (never a ref this sync quarantined, which a plain
    fetch may have written where the admitted one goes): its next append extends it, and goes out as a
    fast-forward; one a plain fetch put in this clone's own names is taken up where it is. A
    clone that appended first keeps its own history (the push names the split), and one that
    ever logged a move of the writer's ref takes nothing up (``never_logged``): that ref, lost
    or moved, is damage every command names, and a history someone with push access put where
    it was is never this clone's. Only a named id: a clone's made-up one is its alone, and
    someone with push access who wrote a history under it before it ever pushed would have
    their decisions taken for its own."""
    repo, writer = provider.repo, provider.writer
    records = f"{PREFIX}records/shared/{writer}"
    if not never_logged(provider.state, records):  # it wrote as the writer: a ref it lost is damage, never taken up
        return
    if (found := ref_tip(repo, records)) is not None:  # a plain fetch put it in this clone's own names: taken as it is
        if take_up(provider.state, records, found):
            report.continued.append(f"took up writer {writer}'s history found in this clone's own names "
                                    f"({_records_between(repo, found, None)} record(s)): this clone appends after it")
        return
    refused = {q.kind for q in report.quarantined if q.writer == writer}  # a plain fetch may have put it there
    moves: list[tuple[str, pygit2.Oid, pygit2.Oid | None]] = []
    for kind in KINDS:
        own, fetched = f"{PREFIX}{kind}/shared/{writer}", ref_tip(repo, f"{PREFIX}remotes/{remote}/{kind}/shared/{writer}")
        if kind == "records" and (fetched is None or kind in refused):
            return
        if fetched is not None and ref_tip(repo, own) is None and kind not in refused:
            if kind == "payloads":  # what a snapshot must be, checked here too: a plain fetch put it there unchecked
                problem = check_snapshot(repo, None, fetched, lambda dropped: set()).problem
                if problem is not None:
                    report.continued.append(f"left writer {writer}'s payload snapshot on {remote} out: {problem}")
                    continue
            moves.append((own, fetched, None))
    note_made(provider.state, moves[0][0], None, moves[0][1])  # its own from here on, named before it moves
    _update_refs(repo, moves)
    with open(tips_log(provider.state, moves[0][0]), "a", encoding="ascii") as log:
        log.write(f"{moves[0][1]}\n")
    report.continued.append(f"took up writer {writer}'s history from {remote} "
                            f"({_records_between(repo, moves[0][1], None)} record(s)): this clone appends after it")


def _drop_removed(ctx: Context, former: list[str]) -> int:
    """Write this writer's payload snapshot, and those of the ids it left and holds as its own
    (``former``: ``_own_former``), again without what an honoured removal took, so the push
    below takes the text off the remote: a removal made on another clone (just admitted, or
    brought by a plain fetch) rewrote only that clone's copy of these snapshots, and the
    remote's kept the text until this clone ran gc, which a CI writer never does (and a former
    id's snapshot kept it for good: ``_scrubbed``). The store is read as the records just
    admitted leave it (``ctx``: the Context ``follow_redactions`` read through, or one opened
    afresh after it appended), with its trust rule judging notes."""
    return cast(GitProvider, ctx.store.provider).drop_removed(former)


def _own_former(ctx: Context) -> list[str]:
    """The ids this work tree wrote as before ``init --new-writer`` gave it another
    (``former_writers``), none another work tree of the repository writes as now: the ids
    besides its own whose snapshots it writes and pushes, never another writer's (a copy of
    the folder given an id of its own lists none of the original's)."""
    workspace = ctx.workspace
    busy = writers_of_other_trees(workspace.repo)
    return [w for w in former_writers(workspace.state) if w != workspace.config.writer and w not in busy]


def _scrubbed(ctx: Context, remote: str, former: list[str]) -> set[str]:
    """The former ids of this clone (``former``: ``_own_former``) whose payload snapshot here
    is the one just fetched from ``remote`` written again without payloads a removal honoured
    here took, and nothing else: the push sends it over the remote's (with a lease on what was
    fetched), in the sync that honours the removal. Else the remote would serve that text for
    good: a former id's snapshot went out only with its records, and a removal's records go
    under the current id. The store is opened (its notes judged) only for an id whose two
    differ."""
    repo = ctx.workspace.repo
    differ = {writer: (mine, theirs) for writer in former
              if (mine := ref_tip(repo, f"{PREFIX}payloads/shared/{writer}")) is not None
              and (theirs := ref_tip(repo, f"{INCOMING}{remote}/payloads/shared/{writer}")) is not None
              and mine != theirs}
    if not differ:
        return set()
    provider = cast(GitProvider, Context.open(ctx.workspace.root).store.provider)
    return {writer for writer, (mine, theirs) in differ.items() if provider.only_removed(mine, theirs)}


SERVED = "served-removed.json"  # {"served": {remote: {writer: [payload digest, ...]}}, "seen": {remote: digest}}


def _note_served(ctx: Context, remote: str, report: SyncReport, former: list[str]) -> None:
    """Record, for ``gitstore doctor``, which of this clone's ids (its own and the former ones
    it holds, ``former``: ``_own_former``) have a payload snapshot on ``remote`` that, as this
    sync left it, holds payloads a removal honoured here took: the remote serves that text
    until a push takes it off (a push refused, or a lease the remote moved past). Judged again
    only when those snapshots, memory's refs or the remote-tracking branches (the policy)
    moved."""
    repo = ctx.workspace.repo
    pushed = {m.writer: pygit2.Oid(hex=m.after) for m in report.pushed if m.kind == "payloads"}
    ids = (ctx.workspace.config.writer, *former)
    tips = {w: pushed.get(w) or ref_tip(repo, f"{INCOMING}{remote}/payloads/shared/{w}") for w in ids}
    path = state_dir(repo) / SERVED
    try:
        known = _jsontext.loads(path.read_bytes())
    except (OSError, ValueError):
        known = {}
    served_by, seen_by = (known.get(k) if isinstance(known, dict) else None for k in ("served", "seen"))
    served_by = served_by if isinstance(served_by, dict) else {}
    seen_by = seen_by if isinstance(seen_by, dict) else {}
    seen = records_state([*(t for t in tips.values() if t is not None), *ref_targets(repo, PREFIX).values(),
                          *ref_targets(repo, "refs/remotes/").values()]) + " " + " ".join(ids)
    if seen_by.get(remote) == seen:
        return
    served: dict[str, list[str]] = {}
    try:
        provider = cast(GitProvider, Context.open(ctx.workspace.root).store.provider)
        for writer, tip in tips.items():
            held = provider.removed_in(tip) if tip is not None else set()
            if held:
                served[writer] = sorted(held)
    except GitstoreError:
        return  # unreadable notes: reads say so; nothing is claimed either way
    before = served_by.get(remote)
    before = before if isinstance(before, dict) else {}
    others = {w: d for w, d in before.items() if w not in ids}  # another work tree's ids: its syncs judge them
    if others or served:
        served_by[remote] = {**others, **served}
    else:
        served_by.pop(remote, None)
    seen_by[remote] = seen
    try:
        replace_file(path, json.dumps({"served": served_by, "seen": seen_by}, sort_keys=True, indent=0)
                     .encode("ascii"))
    except OSError:
        pass  # a read-only state folder: doctor says less


def served_removed(state: Path) -> dict[str, dict[str, list[str]]]:
    """What the last sync with each remote found it serves of text a removal took, in the
    payload snapshots of this clone's ids (``_note_served``): remote -> writer -> payloads."""
    try:
        known = _jsontext.loads((state / SERVED).read_bytes())
    except (OSError, ValueError):
        return {}
    served = known.get("served") if isinstance(known, dict) else None
    if not isinstance(served, dict):
        return {}
    return {remote: {w: [str(d) for d in held] for w, held in writers.items() if isinstance(held, list)}
            for remote, writers in served.items() if isinstance(writers, dict)}


def _carry(ctx: Context, provider: GitProvider, report: SyncReport) -> dict[str, str]:
    """Carry what this work tree appended under an id it left with ``init --new-writer`` that
    the remote's history of it parted from over to its writer id, while that has no appends of
    its own (``init --new-writer`` does it first; this is for appends it could not sign again
    then, and for a parting found later). Only the ids this work tree recorded as left, and
    none another work tree writes as now: the id of the main tree, seen from a linked one, is
    no former id of it. Returns, by old id, the line saying why its appends stay."""
    workspace = ctx.workspace
    carried = provider.carry_stranded(former_writers(workspace.state), writers_of_other_trees(workspace.repo),
                                      ctx.workspace.scope)
    report.carried.extend(line for line in carried.lines if line not in report.carried)
    return carried.left


def _scrub_snapshots(root: Path) -> Applied:
    """Apply memory's redactions, those just admitted included, to the GitHub snapshots saved
    here (a redaction made on another clone has scrubbed only that clone's). What fails is
    reported, never the sync's failure: memory arrived, and the next sync tries again."""
    try:
        return apply_redactions(Context.open(root))
    except (GitstoreError, OSError) as exc:
        return Applied(failed=[("the saved GitHub snapshots", str(exc))])


def _reopened(provider: GitProvider, scope: str) -> GitProvider:
    """A fresh handle on the store (reading the refs as they are now), admitting ``scope``."""
    fresh = GitProvider(provider.repo.path, provider.writer)
    fresh.admit_only(scope)
    return fresh


def _check_remote(repo: pygit2.Repository, remote: str) -> None:
    if not REMOTE_NAME.match(remote):
        raise UsageError(f"{remote!r} is not a remote name")
    if remote not in repo.remotes.names():
        known = ", ".join(repo.remotes.names()) or "none"
        raise InvalidInput(f"no remote named {remote!r} (remotes: {known}); add one with `git remote add`")


def _refuse_other_repository(repo: pygit2.Repository, remote: str, scope: str) -> None:
    """Refuse, before anything is fetched, a remote that stands for another repository than the
    one origin gives this clone its scope from (a contributor's fork): whoever owns it wrote
    what it holds under memory's refs, with no access to the team's remote, and a record of this
    clone's scope there passes every check a sync makes. A clone without origin (a local scope,
    which no remote stands for) still syncs: it is told how to make that remote its origin."""
    from gitstore.scope import remote_scope, stands_for, stood_for

    if "origin" not in repo.remotes.names() or stands_for(repo, remote, scope) is not False:
        return
    theirs = str(remote_scope(repo, remote))
    advice = (_other_scope_advice(repo, remote, scope, theirs) if not same_scope(scope, theirs) else
              "this clone's memory travels through origin (`gitstore sync`)")  # one scope, another user's folder
    raise Refused(f"{remote} stands for {stood_for(repo, remote)}, another repository than this clone's {scope}: "
                  f"memory is never fetched from it nor pushed to it; {advice}")


def _refuse_gone(repo: pygit2.Repository, remote: str) -> None:
    """Raise ``RemoteGone`` when ``remote`` is a path on this machine where its repository is no
    longer (moved or deleted), so nothing can be fetched or pushed, with the command that points
    it at where the repository is now (the warning every command gives of a moved origin is this
    error's: ``_run`` forgets it, once it applied what earlier syncs admitted)."""
    from gitstore.scope import remote_scope, scope_kept_gone

    try:
        gone = scope_kept_gone(repo)[2] if remote == "origin" else None  # its to-do keeps a local scope too
        if gone is not None:
            raise gone
        remote_scope(repo, remote)
    except RemoteGone as gone:
        raise RemoteGone(f"{gone.about}: nothing to fetch from or push to", gone.todo, gone.does) from None
    except (GitstoreError, pygit2.GitError, OSError):
        pass  # the fetch says what stops it, and the push what its URL lacks (``_scope_of_remote``)


def _git(repo: pygit2.Repository, *args: str, data: str | None = None) -> subprocess.CompletedProcess[str]:
    """git on this clone's common git folder, run in its work tree: a remote URL that is a relative
    path names the repository from there, as for git run anywhere in the work tree and as the
    scope reads it (``gitstore.scope.remote_scope``), never from the folder gitstore was run in."""
    return subprocess.run(["git", f"--git-dir={common_dir(repo)}", *args], env={**git_env(), "GIT_TERMINAL_PROMPT": "0"},
                          input=data, capture_output=True, text=True, cwd=repo.workdir or repo.path)


def _last_line(done: subprocess.CompletedProcess[str]) -> str:
    return complaint(done.stderr, done.returncode)


def _lock_in_way(done: subprocess.CompletedProcess[str]) -> str | None:
    return lock_in_way(done.stderr)


def fetch_specs(remote: str) -> list[str]:
    """What a sync fetches: every writer's shared refs, into names nothing reads."""
    return [f"+{PREFIX}{kind}/shared/*:{INCOMING}{remote}/{kind}/shared/*" for kind in KINDS]


def _fetch(repo: pygit2.Repository, remote: str) -> None:
    # --refmap= keeps git from also moving the fetched namespace through the remote's configured
    # refspecs: only a verified ref goes there. --no-filter: a partial clone's remote fetches
    # with its filter otherwise, leaving out the objects memory is made of, which gitstore
    # reads itself and git never fetches for it later. In a shallow repository a fetch with
    # `--depth` may have cut memory's histories short: they are fetched whole (``_deepen``)
    partial = is_partial(repo)
    branch = _policy_branch(repo, remote)
    # a ref lock a killed sync's fetch left in memory's sync folders fails every fetch after it:
    # waited out until stale (a live process's goes first) and removed, as appends do theirs
    clear_stale_ref_locks(repo, SYNC_MOVES, wait=2 * STALE_LOCK_SECONDS)
    done, fetched = _fetch_beside(repo, remote, ["--prune", "--no-filter"], fetch_specs(remote),
                                  branch.specs if branch and not partial else [])
    if done.returncode != 0:
        raise Refused(f"git fetch {remote} failed: {_lock_in_way(done) or _last_line(done)}")
    if is_shallow(repo):
        _deepen(repo, remote)
    else:
        note_unmended(repo, set())  # nothing is cut: a note of what was is stale
    if partial:
        _fetch_missing(repo, remote)
        if branch:  # with the clone's filter: the project's files are fetched as git fetches them there
            _, fetched = _fetch_beside(repo, remote, [], [], branch.specs)
    if branch and branch.specs[1] not in fetched:  # no HEAD this time: what an earlier sync saw of it is no news
        _update_refs(repo, [(branch.head, cast(pygit2.Oid, ZERO), tip)] if (tip := ref_tip(repo, branch.head)) else [])


def _deepen(repo: pygit2.Repository, remote: str) -> None:
    """Fetch memory's refs deepened to their whole history while one of them is cut short
    (``_shallow``), memory's refs only: the code's history stays as shallow as it is (DEEPEN).
    A fetch without ``--depth`` brings a new history whole, but never deepens one a fetch cut;
    and git deepens from the commits a fetch asks for, so one deepening may leave some cut
    (seen with git 2.39): it is tried again, a few times. Only the refs the plain fetch took
    are asked for (``_took``). A history the remote cannot make whole (a writer ref gone from
    it) stays cut: it is noted at its tip, and reads leave it out, naming it, without refusing
    to judge the rest (``note_unmended``). A deepening fetch that fails (the remote hung up)
    is refused: what it left cut is a sync's to mend, never noted as beyond mending, which
    would leave a retirement in it out and its learning read in force."""
    incoming = f"{INCOMING}{remote}/"
    for _ in range(DEEPEN_TRIES):
        specs = _took(repo, remote, cut_refs(repo, PREFIX) | cut_refs(repo, incoming))
        if not specs:
            break
        before = ref_targets(repo, incoming)
        done, _ = _fetch_beside(repo, remote, ["--no-filter", DEEPEN], [], specs)
        if done.returncode != 0:
            raise Refused(f"git fetch {remote} failed while deepening memory's cut histories: {_last_line(done)}")
        _refuse_served_cut(repo, before, ref_targets(repo, incoming))
    note_unmended(repo, cut_refs(repo, PREFIX))


def _took(repo: pygit2.Repository, remote: str, cut: set[str]) -> list[str]:
    """The refspecs that deepen the writers' refs in ``cut`` (this clone's own, fetched or
    just fetched), each naming a ref the plain fetch took: a ref it refused (one the remote
    holds cut itself, below) is never asked for, and a fetch that asks for one may deepen
    nothing else (seen with git 2.39)."""
    incoming, tracking = f"{INCOMING}{remote}/", f"{PREFIX}remotes/{remote}/"
    writers = {name[len(prefix):] for name in cut
               for prefix in (incoming, tracking, PREFIX) if name.startswith(prefix)}
    took = (name[len(incoming):] for name in ref_names(repo, incoming))
    return [f"+{PREFIX}{name}:{incoming}{name}" for name in took if name in writers]


def _refuse_served_cut(repo: pygit2.Repository, before: dict[str, pygit2.Oid], after: dict[str, pygit2.Oid]) -> None:
    """Put back the refs the deepening fetch moved to a history that is still cut. The plain
    fetch refuses a history the remote itself holds cut (a shallow push, where the remote takes
    them: git would have to cut this clone's history to take it, and asks ``--update-shallow``
    for that); a fetch with ``--depth`` takes it, and no sync could ever make it whole."""
    cut = cut_refs(repo, INCOMING)
    _update_refs(repo, [(name, before.get(name) or cast(pygit2.Oid, ZERO), oid) for name, oid in after.items()
                        if name in cut and before.get(name) != oid])


def _fetch_beside(repo: pygit2.Repository, remote: str, options: list[str], specs: list[str],
                  beside: list[str]) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """``git fetch`` of SPECS and the refspecs BESIDE them (the default branch and the remote's
    HEAD), fetched again without those of BESIDE the remote turns out not to have (git names
    one missing ref at a time): the fetch's outcome, and which of BESIDE it fetched."""
    while True:
        done = _git(repo, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--refmap=", *options,
                    "--no-recurse-submodules", remote, *specs, *beside)
        if done.returncode == 0 or not beside or "couldn't find remote ref" not in done.stderr:
            return done, beside if done.returncode == 0 else []
        kept = [spec for spec in beside if not _lacks(done, spec[1:].split(":", 1)[0])]
        beside = kept if len(kept) < len(beside) else []  # none named: fetch memory alone
        if not specs and not beside:
            return done, []


@dataclass(frozen=True)
class _Branch:
    """The remote's default branch, which the policy is read from (``refs/remotes/origin/HEAD``
    names it): a sync fetches it beside memory, into ``incoming``, and moves ``tracking`` (what
    ``git fetch`` moves) there once the verdicts before it are known, so a policy change on the
    remote (a person who may no longer decide) applies at the sync that brings it, not at the
    next ``git fetch``."""

    name: str  # refs/heads/<name> on the remote
    tracking: str  # refs/remotes/origin/<name>
    incoming: str  # refs/memory/sync/origin/policy-branch
    head: str  # refs/memory/sync/origin/remote-head: where the remote's HEAD is, fetched beside it

    @property
    def specs(self) -> list[str]:
        """The branch, and the remote's HEAD: a remote whose HEAD names another branch now (the
        team moved its default) has clones that still read the policy from the old one, which
        anyone who can push to it could rewrite; the same fetch tells, with no round trip more."""
        return [f"+{self.name}:{self.incoming}", f"+HEAD:{self.head}"]


def _lacks(done: subprocess.CompletedProcess[str], name: str) -> bool:
    """Whether a fetch failed for want of the remote ref ``name``."""
    return any("couldn't find remote ref" in line and line.rstrip().endswith(f" {name}")
               for line in done.stderr.splitlines())


def _learn_default(repo: pygit2.Repository, remote: str) -> str | None:
    """Where ``refs/remotes/origin/HEAD`` is not set (a repository made with ``git init``, a
    remote added and pushed to, or a clone of a then empty remote: only ``git clone`` writes
    it), ask ``remote`` which branch its ``HEAD`` names (``git ls-remote --symref``) and set it
    there, as ``git remote set-head --auto`` does: the policy in force is then read from the
    remote's default branch, which this sync fetches, not from this clone's own branch, where a
    policy change made on the remote applied only once merged here. What to say: the branch
    learned, or why the policy in force stays read from a local branch (the remote names
    none), or None when there is nothing to learn."""
    if REMOTE_HEAD != f"refs/remotes/{remote}/HEAD" or REMOTE_HEAD in repo.references:
        return None
    done = _git(repo, "ls-remote", "--symref", remote, "HEAD")
    said = [line[len("ref: "):].split("\t") for line in done.stdout.splitlines() if line.startswith("ref: ")]
    name = next((ref for ref, *rest in said if rest == ["HEAD"]), None) if done.returncode == 0 else None
    branch = name[len("refs/heads/"):] if name and name.startswith("refs/heads/") else None
    if branch is not None and pygit2.reference_is_valid_name(f"refs/remotes/{remote}/{branch}"):
        tracking = f"refs/remotes/{remote}/{branch}"
        if _git(repo, "symbolic-ref", REMOTE_HEAD, tracking, "-m", "gitstore sync: remote HEAD").returncode == 0:
            return (f"{REMOTE_HEAD.removeprefix('refs/remotes/')} was not set: {remote}'s default branch is "
                    f"{branch}, which the policy in force is read from now ({tracking.removeprefix('refs/remotes/')})")
    local = default_branch(repo)
    if local is None:
        return None  # no policy is read anywhere: doctor and policy show say so
    why = _last_line(done) if done.returncode != 0 else f"{remote}'s HEAD names no branch"
    return (f"the policy in force is read from this clone's {local.removeprefix('refs/heads/')}, not from {remote} "
            f"({REMOTE_HEAD} is not set, and {why}): a policy change on {remote} applies here only once merged "
            f"into it; `git remote set-head {remote} BRANCH` names {remote}'s default branch")


def _policy_branch(repo: pygit2.Repository, remote: str) -> _Branch | None:
    """The default branch the policy is read from, when it is one of ``remote``'s: the one
    ``refs/remotes/origin/HEAD`` names, fetched even while this clone has no copy of it yet
    (``_learn_default`` just set it, or a push never wrote it)."""
    head = repo.references.get(REMOTE_HEAD)
    named = str(head.target) if head is not None and head.type == pygit2.enums.ReferenceType.SYMBOLIC else None
    tracking = named or default_branch(repo)
    prefix = f"refs/remotes/{remote}/"
    if tracking is None or not tracking.startswith(prefix) or REMOTE_HEAD != f"{prefix}HEAD":
        return None
    name = tracking[len(prefix):]
    return _Branch(f"refs/heads/{name}", tracking, policy_incoming(remote), remote_head_incoming(remote))


def _policy_arrived(repo: pygit2.Repository,
                    branch: _Branch | None) -> tuple[_Branch, pygit2.Oid, pygit2.Oid | None] | None:
    """The default BRANCH when a fetch brought it somewhere else than its remote-tracking ref:
    (the branch, where it is on the remote, where it was here)."""
    if branch is None or (tip := ref_tip(repo, branch.incoming)) is None:
        return None
    here = ref_tip(repo, branch.tracking)
    return None if tip == here else (branch, tip, here)


def _default_moved(repo: pygit2.Repository, remote: str, branch: _Branch | None) -> str | None:
    """What to say when the remote's HEAD, fetched beside the BRANCH the policy is read from,
    is not where that branch is: the team made another branch the default, and this clone
    still reads the policy from the old one (``refs/remotes/<remote>/HEAD`` is only set at
    clone), where anyone who can push could write another policy; then the sync moves no
    policy. None when it is there."""
    if branch is None or (head := ref_tip(repo, branch.head)) is None or head == ref_tip(repo, branch.incoming):
        return None
    short = branch.tracking.removeprefix("refs/remotes/")
    return (f"{remote}'s default branch is no longer {short}, which the policy in force is read from: a sync "
            f"moves no policy from there (a plain `git fetch` still does); `git fetch {remote} && git remote "
            f"set-head {remote} --auto` reads it from the new default")


def _fetch_missing(repo: pygit2.Repository, remote: str) -> None:
    """Fetch the objects of what arrived that this partial clone lacks, asking for each by its
    id as git itself does when it needs one: a plain ``git fetch`` (the refspecs ``init``
    adds) brought those commits with the clone's filter, so the fetch above found them here and
    brought nothing. What was admitted before was read whole. A remote that does not send them
    stops the sync before anything is checked, so nothing is refused for lacking them."""
    tips = ref_targets(repo, f"{INCOMING}{remote}/").values()
    admitted = ref_targets(repo, f"{ANCHORS}{remote}/").values()
    lacking = missing_objects(repo, tips, admitted)
    if not lacking:
        return
    done = _git(repo, "-c", "fetch.negotiationAlgorithm=noop", "fetch", "--quiet", "--no-tags",
                "--no-write-fetch-head", "--refmap=", "--no-filter", "--no-recurse-submodules", "--stdin", remote,
                data="".join(f"{oid}\n" for oid in lacking))
    left = missing_objects(repo, tips, admitted)  # a tree fetched brings what it holds
    if left:
        said = _last_line(done) if done.returncode != 0 else f"{left[0]} is still missing"
        specs = " ".join(f"'{spec}'" for spec in fetch_refspecs(remote))
        raise Refused(f"{len(left)} object(s) of the memory on {remote} are not in this clone: it is a partial "
                      f"clone, whose fetches leave them out, and {remote} did not send them when asked ({said}); "
                      f"nothing was checked or refused: fetch memory whole, then sync again: "
                      f"`git fetch --refetch --no-filter {remote} {specs}`")


def _held_by_reads(provider: GitProvider, remote: str, report: SyncReport) -> None:
    """Fetched refs a plain ``git fetch`` moved to a history that fails verification: reads
    leave them out (quarantined where they are); the report names them too."""
    named = {(q.writer, q.kind) for q in report.quarantined}
    prefix = f"{PREFIX}remotes/{remote}/records/shared/"
    for admission in provider.admit():
        writer = admission.ref[len(prefix):]
        if admission.ref.startswith(prefix) and not admission.admitted and (writer, "records") not in named:
            report.quarantined.append(Quarantined(writer, "records", admission.tip, admission.ref,
                                                  str(admission.problem)))


# -- refs nested under a writer's name --------------------------------------------------------------

def unheld_lines(provider: GitProvider, former: Collection[str]) -> list[str]:
    """One line for each writer whose history read here lacks appends another writer's fetched
    history names as seen (``gitstore.providers._unheld``): what a fresh clone can tell of a
    history someone with push access moved back on the remote."""
    return [unheld_line(found, shown_writer(found.writer, cut=True), [shown_writer(w, cut=True) for w in found.seen_by])
            for found in provider.unheld_seen(former)]


def _nested(repo: pygit2.Repository, prefix: str) -> dict[str, pygit2.Oid]:
    """The refs more than one level below ``prefix`` + ``{records,payloads}/shared/``: no
    writer's (a writer id holds no slash), so nothing reads them, by full name."""
    found: dict[str, pygit2.Oid] = {}
    for kind in KINDS:
        under = f"{prefix}{kind}/shared/"
        if may_nest(repo, under):  # nearly never: no ref file read for it then
            found.update({name: tip for name, tip in ref_targets(repo, under).items() if "/" in name[len(under):]})
    return found


def _nested_on_remote(repo: pygit2.Repository, remote: str, writer: str | None = None) -> dict[str, tuple[str, pygit2.Oid]]:
    """The refs nested under a writer's name (``writer``'s alone, when given) that the remote
    held when the sync fetched: by their name there, (where the sync fetched it, its tip)."""
    incoming = f"{INCOMING}{remote}/"
    found = {f"{PREFIX}{name[len(incoming):]}": (name, tip) for name, tip in _nested(repo, incoming).items()}
    return {name: held for name, held in found.items() if writer is None or _nested_under(name) == writer}


def _nested_under(name: str) -> str:
    """The writer name a nested ref ``refs/memory/v1/<kind>/shared/<writer>/...`` is under."""
    return name.split("/shared/", 1)[1].split("/", 1)[0]


def _drop_nested(repo: pygit2.Repository, prefix: str) -> None:
    """Delete the refs nested under a writer's name in the fetched namespace (``prefix``), which
    a plain ``git fetch`` brings as they are on the remote: nothing reads them, verify would
    name them as damage, and git keeps no ref beside one nested under its name, so a writer's
    admitted ref could not be put back while one is there (every sync would stop on it)."""
    found = _nested(repo, prefix)
    if found:
        _update_refs(repo, [(name, cast(pygit2.Oid, ZERO), tip) for name, tip in found.items()])


def _drop_misnamed(repo: pygit2.Repository, prefix: str) -> set[str]:
    """Delete the refs whose name is no writer id from a namespace a fetch fills (``prefix``),
    as nested ones are: never read, they would be named by verify and warned about by every
    command. Their names on the remote."""
    found = misnamed_refs(repo, prefix)
    if found:
        _update_refs(repo, [(name, ZERO, tip) for name, tip in found.items()])
    return {PREFIX + name[len(prefix):] for name in found}


def _brought_back_line(writer: str, remote: str, back: Sequence[str]) -> str:
    """How the report names a writer's snapshot on the remote holding text a removal took: read
    here without it, as every read leaves it out, while the remote serves it to whoever fetches
    it. Its writer's next sync takes it off (a snapshot made before the removal reached that
    clone); else someone with push access forced an older snapshot there. No status changes for
    it: the first is no damage, and nothing this clone reads holds the text."""
    return (f"writer {shown_writer(writer)}: its payload snapshot on {remote} holds {len(back)} payload(s) a removal "
            f"took (first {back[0]}); read here without them, while {remote} serves that text to whoever fetches "
            "it until that writer's next sync takes it off (or someone with push access forced an older snapshot "
            "there)")


def _misnamed_line(names: list[str], remote: str) -> str:
    """One line for every such ref, however many were pushed (``names``, each shown escaped and
    cut: ``shown_ref``)."""
    more = f" and {len(names) - 1} more" if len(names) > 1 else ""
    return (f"{remote} holds {names[0]}{more} where a writer's ref goes, under a name that is no "
            "writer id: never read, dropped here; anyone with push access may delete it there")


def _nested_line(name: str, remote: str) -> str:
    writer, name = shown_writer(_nested_under(name)), shown_ref(name)
    return (f"{remote} holds {name}, nested under writer {writer}'s name: no writer's ref, never read; while it is "
            f"there a plain `git fetch` fails on clones that kept writer {writer}'s ref, and {writer} cannot push: "
            f"{writer}'s next sync deletes it, or anyone with push access: `git push {remote} :{name}`")


def _clear_nested(repo: pygit2.Repository, remote: str, found: dict[str, tuple[str, pygit2.Oid]],
                  report: SyncReport) -> bool:
    """Delete from the remote the refs nested under this clone's writer names (``found``, as
    ``_nested_on_remote`` gives them), each only where it still is: a writer's name is its own,
    nothing reads them, and the remote cannot take the writer's ref while one is there. False,
    said in ``report``, when the remote refused."""
    leases = [f"--force-with-lease={name}:{tip}" for name, (_, tip) in found.items()]
    done = _git(repo, "push", "--atomic", "--porcelain", "--no-verify", *leases, remote, *(f":{name}" for name in found))
    if done.returncode != 0:
        for name in found:
            shown = shown_ref(name)  # a pushed name
            line = (f"{remote} holds {shown}, nested under this clone's writer name, where its ref cannot be written "
                    f"beside it, and refused to delete it ({_last_line(done)}): `git push {remote} :{shown}` "
                    "deletes it (nothing reads it)")
            if line not in report.not_pushed:
                report.not_pushed.append(line)
        return False
    _update_refs(repo, [(fetched, cast(pygit2.Oid, ZERO), tip) for fetched, tip in found.values()])
    report.cleared.extend(f"deleted {shown_ref(name)} from {remote}: no writer's ref, nested under this clone's writer "
                          "name, where its ref could not be written beside it" for name in found)
    return True


# -- admitting what arrived ------------------------------------------------------------------------

def _writers(repo: pygit2.Repository, prefix: str) -> dict[str, pygit2.Oid]:
    """writer -> tip, for every ref directly under ``prefix`` (that folder listed, not every
    ref of the repository: the incoming refs kept between syncs are as many as the writers)."""
    return {name[len(prefix):]: tip for name, tip in ref_targets(repo, prefix).items() if "/" not in name[len(prefix):]}


class _Admitting:
    """One pass over what a fetch brought: records refs first, then payload snapshots."""

    def __init__(self, ctx: Context, remote: str) -> None:
        self.ctx = ctx
        self.repo: pygit2.Repository = ctx.store.provider.repo  # type: ignore[attr-defined]
        self.state: Path = ctx.store.provider.state  # type: ignore[attr-defined]
        self.remote = remote
        self.refusals = _Refusals(self.state, self.repo, ctx.workspace.scope)
        self._admissions = Admissions(self.state)
        self._reader: GitProvider | None = None
        self._held: contextlib.ExitStack | None = None  # what the payloads pass holds of the reader
        self._forks: dict[str, Fork] = {}  # writer -> how what arrived parts from its admitted history
        self._prefixed: set[str] = set()  # writers whose records moved to their verified prefix, the rest held
        self._restore()
        self.incoming = {k: _writers(self.repo, f"{INCOMING}{remote}/{k}/shared/") for k in KINDS}
        self.admitted = {k: _writers(self.repo, f"{PREFIX}remotes/{remote}/{k}/shared/") for k in KINDS}

    def fetched_ref(self, kind: str, writer: str) -> str:
        return f"{PREFIX}remotes/{self.remote}/{kind}/shared/{writer}"

    def held_ref(self, kind: str, writer: str) -> str:
        return f"{QUARANTINE}{self.remote}/{kind}/shared/{writer}"

    def _restore(self) -> None:
        """Put each fetched ref back at the tip admitted last where a plain ``git fetch``
        deleted it (``--prune``, or ``fetch.prune``, after the writer's ref left the remote) or
        moved it where reads refuse it: a records history that does not extend that tip or
        fails verification, a snapshot that failed its check (forced, as plain fetch forces
        snapshots). What it
        refused is held in quarantine. A writer's memory once read is kept, as for a writer the
        remote no longer has."""
        self._admissions.anchor(self.repo)  # a store older than anchors: git's own gc keeps them from now
        moves: list[tuple[str, pygit2.Oid, pygit2.Oid | None]] = []
        for kind in KINDS:
            prefix = f"{PREFIX}remotes/{self.remote}/{kind}/shared/"
            tips = ref_targets(self.repo, prefix)  # one listing, not a lookup a writer
            for ref, base in sorted(self._admissions.bases(prefix).items()):
                tip = tips.get(ref)
                if tip == base or base not in self.repo:
                    continue
                if tip is None:
                    problem = None
                elif kind == "records":
                    problem = self._admissions.rewrites(self.repo, ref, tip, self._may_part(ref[len(prefix):])) \
                        or self._admissions.refused(self.repo, ref, tip)
                else:
                    problem = self._admissions.refused(self.repo, ref, tip)
                if tip is not None and problem is None:
                    continue  # not refused (yet): checked as any arrival is
                if tip is not None and problem is not None:
                    self.refusals.hold(self.repo, self.held_ref(kind, ref[len(prefix):]), tip, problem,
                                       prefixed=kind == "records")  # its verified prefix, if any, is the base
                moves.append((ref, base, tip))
        if moves:
            _update_refs(self.repo, moves)
            self.refusals.save()

    def pending(self) -> bool:
        """Whether anything arrived that is neither admitted nor refused already."""
        return any(tip != self.admitted[k].get(w) and not self.refusals.known(self.held_ref(k, w), tip)
                   for k in KINDS for w, tip in self.incoming[k].items())

    def admit(self, report: SyncReport) -> None:
        self._pass("records", report, self._check_records)
        # a snapshot is held with its writer's records, unless their verified prefix just moved in:
        # it is checked then, as reads after a plain fetch check it, so its records' text is read
        refused = ({q.writer for q in report.quarantined if q.kind == "records"} | self._still_held("records")) \
            - self._prefixed
        with contextlib.ExitStack() as self._held:  # the reader's notes, read once for the pass (``_store``)
            self._pass("payloads", report, lambda w, before, tip: Checked(0, "its writer's records are quarantined")
                       if w in refused else check_snapshot(self.repo, self._snapshot_base(w, before), tip,
                                                           lambda dropped: self._unremoved(dropped, w),
                                                           lambda added: self._brought_back(added, w)))
        self._held = None
        report.kept = sorted(set(self.admitted["records"]) - set(self.incoming["records"]))
        self._release_gone()
        self.refusals.save()

    def _release_gone(self) -> None:
        """Release what quarantine holds of a writer's ref the remote no longer has: there is
        nothing left to refuse (the tip admitted before stays, as for any writer the remote
        dropped), and its objects are kept no longer."""
        for kind in KINDS:
            prefix = self.held_ref(kind, "")
            for held in ref_targets(self.repo, prefix):
                if held[len(prefix):] not in self.incoming[kind]:
                    self.refusals.release(self.repo, held)

    def _snapshot_base(self, writer: str, before: pygit2.Oid | None) -> pygit2.Oid | None:
        """What an arrived snapshot is checked against: the one admitted last (a plain fetch may
        have moved the ref since, unchecked), else the one the ref is at."""
        base = self._admissions.base(self.fetched_ref("payloads", writer))
        return base if base is not None and base in self.repo else before

    def _kept(self, writer: str, before: pygit2.Oid | None, tip: pygit2.Oid, found: Checked,
              report: SyncReport) -> pygit2.Oid | None:
        """Where a snapshot that drops text no removal took is read (``kept_text``: it with that
        text kept from the one admitted last), named in the report while the remote's lacks it;
        None when that cannot be written (it is refused then, as it used to be). A snapshot of
        this clone's own writer ids is not named: the push below sends this clone's own over
        it (and what the remote's lacks may be what this clone's gc let go)."""
        base = self._snapshot_base(writer, before)
        read = kept_text(self.repo, base, tip, found.owed, found.back) if base is not None or not found.owed else None
        own = self.ctx.workspace.config.writer
        others = writer != own and writer not in _former_writers(self.repo, own)
        if read is None or not others:
            return read
        if found.owed:
            report.kept_text.append(kept_text_line(writer, self.remote, found.owed, bool(found.back)))
            if not found.back:  # the text a removal took may be there for its writer to take off yet
                report.owed[writer] = (read, found.owed)
        elif found.back:
            report.brought_back.append(_brought_back_line(writer, self.remote, found.back))
        return read

    def _still_held(self, kind: str) -> set[str]:
        return {w for w, tip in self.incoming[kind].items() if self.refusals.known(self.held_ref(kind, w), tip)}

    def _may_part(self, writer: str) -> bool:
        """Whether a writer's fetched ref may part from the history admitted for it
        (``Admissions.fork``): any writer's but one this clone writes or wrote as (``wrote_as``,
        as the store decides: its own refs hold that history, so a remote copy that parted from
        it stays refused, and the push names it)."""
        return not wrote_as(state_dir(self.repo), writer, self.ctx.workspace.config.writer)

    def _check_records(self, writer: str, before: pygit2.Oid | None, tip: pygit2.Oid) -> Checked:
        ref = self.fetched_ref("records", writer)
        rewritten = self._admissions.rewrites(self.repo, ref, tip)  # the ref's own tip may have gone with a prune
        fork = self._admissions.fork(self.repo, ref, tip, self.ctx.workspace.scope) \
            if rewritten is not None and self._may_part(writer) else None
        if fork is not None:  # verified since the commit both hold; kept beside it once admitted
            found = check_records(self.repo, ref, None, tip, fork.since, self.ctx.workspace.scope)
            if found.problem is None:
                self._forks[writer] = fork
            return found._replace(verified=None)  # a fork whose new side fails is refused whole, as reads refuse it
        if rewritten is not None:
            return Checked(0, rewritten)
        verified = self._admissions.verified_until(self.repo, ref, tip, self.ctx.workspace.scope)
        found = check_records(self.repo, ref, before, tip, verified, self.ctx.workspace.scope)
        if found.verified is not None and verified != self._admissions.base(ref):
            return found._replace(verified=None)  # a prefix that may not extend the tip admitted last: none
        return found

    def _brought_back(self, added: set[str], writer: str) -> set[str]:
        """The payloads a snapshot of ``writer`` adds that a removal it follows took
        (``GitProvider.brought_back``)."""
        return self._store().brought_back(added, writer)

    def _unremoved(self, dropped: set[str], writer: str) -> set[str]:
        """The payloads a snapshot of ``writer`` dropped that no removal it may follow took and
        some stored event names (``GitProvider.unremoved``, judged by the store's trust rule)."""
        return self._store().unremoved(dropped, writer)

    def _store(self) -> GitProvider:
        """The store as the records just admitted leave it, opened once for the pass, its notes
        read once for it too (``GitProvider.notes_held``): every snapshot checked asks for them."""
        if self._reader is None:
            self._reader = cast(GitProvider, Context.open(self.ctx.workspace.root).store.provider)
            if self._held is not None:
                self._held.enter_context(self._reader.notes_held())
        return self._reader

    def _pass(self, kind: str, report: SyncReport,
              check: Callable[[str, pygit2.Oid | None, pygit2.Oid], Checked]) -> None:
        """Check every ref of ``kind`` that arrived; move those that pass in one transaction."""
        self._admissions = Admissions(self.state)
        moves: list[tuple[str, pygit2.Oid, pygit2.Oid | None, Moved]] = []
        # a snapshot's refusal stands while the records do: the removal it waited for may come
        records = records_state(ref_targets(self.repo, f"{PREFIX}remotes/{self.remote}/records/shared/").values()) \
            if kind == "payloads" else None
        owes: dict[str, int] = {}  # writer -> payloads its snapshot is read with, kept, that it lacks
        still_held: set[str] = set()  # writers whose verified prefix moves in while the rest stays held
        # the refs held in quarantine, listed once: only a sync, under its lock, writes them
        holding = set(ref_names(self.repo, f"{QUARANTINE}{self.remote}/{kind}/"))
        for writer, tip in sorted(self.incoming[kind].items()):
            before = self.admitted[kind].get(writer)
            held = self.held_ref(kind, writer)
            if tip == before and self._admissions.base(self.fetched_ref(kind, writer)) in (None, tip):
                # where a plain fetch put a ref, unchecked, it is checked
                if held in holding or held in self.refusals.known_refs:
                    self.refusals.release(self.repo, held)
                if self._admissions.owes(self.fetched_ref(kind, writer)):  # the remote's holds the kept text now
                    self._admissions.admitted(self.fetched_ref(kind, writer), tip, None)
                continue
            known = self.refusals.problem(held, tip, records)
            if known is not None:
                report.quarantined.append(Quarantined(writer, kind, str(tip), held, known))
                continue
            found: Checked = check(writer, before, tip)
            read = self._kept(writer, before, tip, found, report) if found.owed or found.back else tip
            if read is None or found.problem is not None:
                problem = found.refusal or ""
                self.refusals.hold(self.repo, held, tip, problem, records, prefixed=kind == "records")
                report.quarantined.append(Quarantined(writer, kind, str(tip), held, problem))
                if found.verified is not None and found.verified != before:  # read up to the first that fails
                    moved = Moved(writer, kind, str(before) if before else None, str(found.verified), found.arrived)
                    moves.append((self.fetched_ref(kind, writer), found.verified, before, moved))
                    still_held.add(writer)
                    self._prefixed.add(writer)
                continue
            if (found.owed or found.back) and read == before:  # the remote's is as it was at the last sync
                self.refusals.release(self.repo, held)
                continue
            moved = Moved(writer, kind, str(before) if before else None, str(read), found.arrived)
            moves.append((self.fetched_ref(kind, writer), read, before, moved))
            owes[writer] = len(found.owed)
        if moves:
            _update_refs(self.repo, [(ref, tip, before) for ref, tip, before, _ in moves])
            for ref, tip, _, moved in moves:
                if moved.writer not in still_held:
                    self.refusals.release(self.repo, self.held_ref(kind, moved.writer))
                fork = self._forks.pop(moved.writer, None) if kind == "records" else None
                if fork is not None:  # what was read from the history it parts from stays read
                    self._admissions.part(self.repo, ref, fork.base, tip)
                    report.parted.append(parted_line(moved.writer, fork.base))
                self._admissions.admitted(ref, tip, self.ctx.workspace.scope if kind == "records" else None,
                                          owes.get(moved.writer, 0) if kind == "payloads" else 0)
                if moved.writer != self.ctx.workspace.config.writer:  # its own appends, come back, are not news
                    report.came_in.append(moved)
        self._admissions.save(self.repo)  # nothing when nothing changed


def _update_refs(repo: pygit2.Repository, moves: Sequence[tuple[str, pygit2.Oid | str, pygit2.Oid | str | None]]) -> None:
    """Move refs all at once, each only from where it was read (git's ref transaction). A stale
    lock of one of memory's (``SYNC_MOVES``) is removed first: the caller holds the sync lock.
    A name's bytes that are not UTF-8 (``odd_refs``) go to git as they came."""
    for ref, _, _ in moves:
        if ref.startswith(SYNC_MOVES):
            clear_stale_lock(common_dir(repo) / f"{ref}.lock")
    script = "".join(f"update {ref} {tip} {before or ZERO}\n" for ref, tip, before in moves)
    done = subprocess.run(["git", f"--git-dir={common_dir(repo)}", "update-ref", "--stdin"], input=script,
                          env=git_env(), capture_output=True, text=True, encoding="utf-8", errors="surrogateescape")
    if done.returncode != 0:
        lock = _lock_in_way(done)
        if lock:  # no move of the remote's: running sync again alone changes nothing
            raise Refused(f"sync could not move the fetched refs: {lock}")
        raise Refused(f"the fetched refs moved while sync admitted them ({_last_line(done)}); run sync again")


def held_in_quarantine(repo: pygit2.Repository, state: Path) -> list[tuple[str, str, str]]:
    """The fetched refs sync holds in quarantine, each (ref, tip, why) as the sync that refused
    it said (why is unknown when its note was lost: the ref still says what was refused)."""
    known = _Refusals(state).known_refs
    found = []
    for ref, tip in sorted(ref_targets(repo, QUARANTINE).items()):
        entry = known.get(ref)
        why = entry.get("problem") if isinstance(entry, dict) and entry.get("tip") == str(tip) else None
        found.append((ref, str(tip), why if isinstance(why, str) else "why is not known here any more"))
    return found


class _Refusals:
    """The quarantined refs and why, so a refusal is named again without verifying again;
    in a partial clone, not a refusal for an object git had not fetched (``judged_again``)."""

    def __init__(self, state: Path, repo: pygit2.Repository | None = None, scope: str | None = None) -> None:
        self.path = state / QUARANTINED
        self.repo = repo
        self.policy = _policy_revision(repo) if repo is not None else None
        self.scope = scope_label(scope) if scope else scope  # with the former scopes it admitted
        try:
            data = _jsontext.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        self.known_refs: dict[str, dict[str, str]] = data if isinstance(data, dict) else {}
        self.changed = False

    def problem(self, held: str, tip: pygit2.Oid, records: str | None = None) -> str | None:
        """Why ``tip`` was refused, while it stands: a snapshot refused when the records were
        ``records`` otherwise (a removal it waited for may have arrived since), under
        another policy (whose removals it honours may be others), while this clone had
        another scope (its origin changed since: what was of another scope may be its own
        now), or under other checks (``CHECKS_VERSION``) is judged again."""
        entry = self.known_refs.get(held)
        if not isinstance(entry, dict) or entry.get("tip") != str(tip) or entry.get("records") != records:
            return None
        if "/records/shared/" in held and PREFIXED not in entry:
            return None  # a records ref refused before its verified prefix was read: judged again
        if self.repo is not None and entry.get("policy") != self.policy:
            return None
        if self.scope is not None and entry.get("scope") != self.scope:
            return None
        if entry.get("checks") != CHECKS_VERSION:
            return None  # refused under other checks (scopes compared letter for letter, say): judged again
        problem = entry.get("problem")
        return None if self.repo is not None and judged_again(self.repo, problem) else problem

    def known(self, held: str, tip: pygit2.Oid) -> bool:
        return self.problem(held, tip) is not None

    def hold(self, repo: pygit2.Repository, held: str, tip: pygit2.Oid, problem: str,
             records: str | None = None, prefixed: bool = False) -> None:
        """Hold ``tip`` refused; ``prefixed``: a records ref whose verified prefix, if any, is
        read (one held without it is judged again)."""
        repo.references.create(held, tip, force=True)
        self.known_refs[held] = {"tip": str(tip), "problem": problem, **({"records": records} if records else {}),
                                 **({"policy": self.policy} if self.policy else {}),
                                 **({"scope": self.scope} if self.scope else {}),
                                 **({PREFIXED: "1"} if prefixed else {}), "checks": CHECKS_VERSION}
        self.changed = True

    def release(self, repo: pygit2.Repository, held: str) -> None:
        if held in self.known_refs:
            del self.known_refs[held]
            self.changed = True
        if held in repo.references:
            repo.references.delete(held)

    def save(self) -> None:
        if not self.changed:
            return
        replace_file(self.path, json.dumps(self.known_refs, sort_keys=True, indent=0))
        self.changed = False


def release_gone_remotes(repo: pygit2.Repository, state: Path) -> dict[str, int]:
    """Drop what sync holds in quarantine for a remote this clone no longer has (renamed, as
    the `git remote rename upstream origin` a sync advises, or removed), and say how many refs
    went for each: no sync of it can release them any more, and doctor warned of them for good,
    saying they would be read once the remote's ref moved. Nothing waits for a running sync:
    the next init drops them."""
    names = set(repo.remotes.names())
    dropped: dict[str, int] = {}
    with sync_lock_if_free(state) as free:
        if not free:
            return dropped
        refusals = _Refusals(state)
        for ref in ref_names(repo, QUARANTINE):
            remote = ref[len(QUARANTINE):].split("/", 1)[0]
            if remote not in names:
                refusals.release(repo, ref)
                dropped[remote] = dropped.get(remote, 0) + 1
        refusals.save()
    return dropped


def other_repository(repo: pygit2.Repository, remote: str, scope: str, kept: str | None) -> str | None:
    """The scope ``remote`` stands for when it is another repository than this clone's, whose
    memory is never read here (a contributor's fork); None for any other remote. Only in a
    clone with an origin, where sync refuses such a remote; never a remote whose scope cannot be
    told (a path that is gone), nor one of the scope ``kept``, the one this clone's memory was
    set up under (an origin named anew since: what was stored under the scope it leaves is
    not read, and stays, as `gitstore doctor` says), unless that is this clone's scope too (a
    folder in another user's home, ``scope.stands_for``), named as ``scope.stood_for`` names it."""
    from gitstore.scope import remote_scope, stands_for, stood_for

    if "/" in remote or "origin" not in repo.remotes.names() or stands_for(repo, remote, scope) is not False:
        return None
    try:
        theirs = remote_scope(repo, remote)
    except (GitstoreError, pygit2.GitError, OSError):  # URLs naming different repositories: none told
        return None
    if theirs is None or (same_scope(theirs, kept) and not same_scope(theirs, scope)):
        return None  # the scope this clone was set up under, unless it is this clone's (another user's folder)
    return stood_for(repo, remote)


def drop_other_repositories(repo: pygit2.Repository, state: Path, scope: str, kept: str | None,
                            locked: bool = False) -> list[str]:
    """Drop the memory fetched from each remote that stands for another repository than this
    clone's (a contributor's fork added to review a pull request, ``scope.stands_for``): an older
    ``gitstore init`` gave every remote memory's fetch refspecs, so a plain ``git fetch`` from it
    brought what the fork's owner wrote, with no access to the team's remote, and reads took it
    for the team's. Its fetched refs, their anchors, what a sync held or left of it are deleted
    and their admissions forgotten, so no read takes them up again and gc erases them. Only in a
    clone with an origin, where sync refuses such a remote; a remote whose scope cannot be told
    (a path that is gone) keeps what it brought, as a remote the clone no longer has does.
    ``locked``: the caller holds the sync lock; otherwise nothing waits for a running sync (it
    drops them itself). ``kept``: the scope this clone's memory was set up under, whose remotes
    keep theirs (``other_repository``). Returns a line for each remote whose memory went."""
    if "origin" not in repo.remotes.names():
        return []
    spaces = (f"{PREFIX}remotes/", ANCHORS, QUARANTINE, INCOMING)
    admissions = Admissions(state)
    # one listing of every memory ref, which a sync hands on to its later ones (``listings_kept``)
    held = {ref[len(space):].split("/", 1)[0] for ref in ref_names(repo, "refs/memory/") for space in spaces
            if ref.startswith(space)}
    held.update(ref[len(spaces[0]):].split("/", 1)[0] for ref in admissions.known(spaces[0]))
    others = {name: theirs for name in sorted(filter(None, repo.remotes.names()))
              if name in held and (theirs := other_repository(repo, name, scope, kept)) is not None}
    if not others:
        return []
    lines = []
    with (contextlib.nullcontext(True) if locked else sync_lock_if_free(state)) as free:
        if not free:
            return []
        admissions, refusals = Admissions(state), _Refusals(state)  # read again under the lock
        for name in others:
            fetched = f"{PREFIX}remotes/{name}/"
            refs = ref_names(repo, fetched)
            writers = {line[1] for ref in (*admissions.forget(fetched), *refs) if (line := fetched_line(ref))}
            for ref in ref_names(repo, f"{QUARANTINE}{name}/"):
                refusals.release(repo, ref)
            specs = [spec for spec in fetch_refspecs(name) if spec in repo.remotes[name].fetch_refspecs]
            try:
                for ref in (*refs, *ref_names(repo, f"{ANCHORS}{name}/"), *ref_names(repo, f"{INCOMING}{name}/")):
                    repo.references.delete(ref)
                for spec in specs:  # init takes them off first; a sync, so no plain fetch brings it back
                    repo.config.delete_multivar(f"remote.{name}.fetch", "^" + re.escape(spec) + "$")
            except (KeyError, pygit2.GitError, OSError):  # a ref locked, a configuration read-only:
                pass  # the next init or sync drops the rest, and doctor warns of it meanwhile
            lines.append(f"{name} stands for {others[name]}, another repository than this clone's "
                         f"{scope}: dropped the memory of {len(writers)} writer(s) fetched from it (memory's fetch "
                         "refspecs an older `gitstore init` gave every remote), read here as the team's until now; "
                         "whoever owns it wrote it, with no access to the team's remote"
                         + ("; took those refspecs off it" if specs else ""))
        admissions.save(repo)
        refusals.save()
    return lines


def _policy_revision(repo: pygit2.Repository) -> str | None:
    """The policy in force, as the ids of its two files at the default branch's tip (a commit
    that leaves them as they were is the same policy), if any."""
    branch = default_branch(repo)
    tip = ref_tip(repo, branch) if branch is not None else None
    if tip is None:
        return None
    try:
        tree = repo[tip].peel(pygit2.Commit).tree
    except (KeyError, ValueError, pygit2.GitError):
        return None
    ids = [str(tree[path].id) if path in tree else "-" for path in (POLICY_FILE, SIGNERS_FILE)]
    return None if ids == ["-", "-"] else " ".join(ids)


# -- pushing this writer's refs --------------------------------------------------------------------

def _push(provider: GitProvider, remote: str, report: SyncReport, left: dict[str, str], *, last: bool,
          scrubbed: Collection[str] = ()) -> bool:
    """Push this writer's shared refs, and those of the ids this clone wrote as before (a copied
    folder given a new one) where the remote's are behind (``left``: by old id, why its appends
    the remote parted from stay here), or whose payload snapshot here is the remote's without
    what a removal took (``scrubbed``); True when the remote moved meanwhile and the sync should
    fetch and try again (False on the last attempt: reported instead)."""
    repo, writer = provider.repo, provider.writer
    scope = _scope_of_remote(repo, remote, report)
    if scope is None:
        return False
    push = _Planned(_with_former(scope, provider.scope), _other_scope_advice(repo, remote, provider.scope, scope))
    if not push.plan(repo, remote, writer, report):
        return False
    for former in _former_writers(repo, writer):
        push.plan(repo, remote, former, report, own=False, left=left.get(former), scrubbed=former in scrubbed)
    nested = {name: held for w in (writer, *_former_writers(repo, writer))
              for name, held in _nested_on_remote(repo, remote, w).items()}
    if nested and not _clear_nested(repo, remote, nested, report):
        return False
    if not push.specs:
        return False
    # --no-verify: a pre-push hook judges project commits, and memory's are none (the promotion
    # gate reads a records commit's header as a misplaced trailer block); they were verified
    # as they were written, and every clone verifies them again on arrival
    done = _git(repo, "push", "--atomic", "--porcelain", "--no-verify", *push.leases, remote, *push.specs)
    if done.returncode == 0:
        report.pushed.extend(push.moves)
        _admit_own(provider, remote, push.tips, {m.writer for m in push.moves if m.kind == "payloads"})
        return False
    rejected = [line for line in done.stdout.splitlines() if line.startswith("!")]
    said = "\n".join(rejected) + done.stderr  # moved after the fetch, or after git read the remote's refs
    moved_meanwhile = any(word in said for word in MOVED)
    if moved_meanwhile and not last:
        return True
    why = next((r.split("\t")[-1] for r in rejected if "atomic transaction failed" not in r), None) or _last_line(done)
    report.not_pushed.append(f"git push {remote} refused: {why}")
    return False


def _put_back(provider: GitProvider, remote: str, report: SyncReport) -> None:
    """Put text another writer's snapshot on the remote lacks back there (``SyncReport.owed``:
    what this sync read with text kept, ``kept_text``), so a clone that never read it (a new
    teammate's, each fresh CI runner, which would take the snapshot up as its own) has it
    too: someone with push access who forced the snapshot without it took it from them for
    good. Only when asked (``sync --put-back``): a removal this clone never received (someone
    with push access moved the remover's records back before it arrived) looks the same as
    text forced out, and only a person can tell the two apart; a writer's own clone puts its
    snapshot back at its next sync anyway. Never while the snapshot holds text a removal took
    (its writer may not have taken it off yet: what it is read without is this clone's view).
    Only text read here from that writer's snapshots before, which its records name, and
    which no note this clone holds names at all (honoured or not: a removal this clone does
    not honour may be one the team does), while this clone reads every records ref it
    fetched (a quarantined one may hold a removal) and reads the policy where the remote
    keeps it. Its own push, with a lease on the snapshot fetched: whatever moved it since,
    or a remote that refuses a clone writing another writer's ref, leaves it for the next
    sync, and nothing of this clone's own is held back for it."""
    if not report.owed or report.default_moved or any(q.kind == "records" for q in report.quarantined) \
            or provider.quarantined() or pushes_elsewhere(provider.repo, remote, provider.scope or "") is not None:
        return  # a push URL of another repository: the push names it
    noted = provider.noted_payloads()
    for writer, (kept, digests) in sorted(report.owed.items()):
        ref = f"{PREFIX}payloads/shared/{writer}"
        theirs = ref_tip(provider.repo, f"{INCOMING}{remote}/payloads/shared/{writer}")
        if theirs is None or theirs == kept or noted.intersection(digests):
            continue  # text a note names is never put back
        done = _git(provider.repo, "push", "--porcelain", "--no-verify", f"--force-with-lease={ref}:{theirs}",
                    remote, f"+{kept}:{ref}")
        if done.returncode == 0:
            report.restored.append(f"writer {writer}: put the {len(digests)} payload(s) its snapshot on {remote} "
                                   "lacked back there, from the text read here")


def _former_writers(repo: pygit2.Repository, writer: str) -> list[str]:
    """The other writer ids whose shared records this repository holds in its own refs (fetched
    writers live under ``remotes/``): the ids this clone wrote as before it was given a new one
    (a copied folder), and those of its other work trees set up on their own."""
    prefix = f"{PREFIX}records/shared/"
    return [name[len(prefix):] for name in ref_names(repo, prefix) if name[len(prefix):] != writer]


def _scope_of_remote(repo: pygit2.Repository, remote: str, report: SyncReport) -> str | None:
    """The scope ``remote`` stands for (``gitstore.scope.remote_scope``), the only one its clones
    admit records of; None, said in ``report``, when its URL gives none."""
    from gitstore.scope import remote_scope

    try:
        found = remote_scope(repo, remote)
    except InvalidInput as exc:
        found, why = None, str(exc)
    else:
        why = f"{remote} has no URL"
    if found is None:
        report.not_pushed.append(f"{why}: no scope its clones admit records of, so nothing is pushed there")
        return None
    elsewhere = pushes_elsewhere(repo, remote, found)
    if elsewhere is not None:
        report.not_pushed.append(f"{elsewhere[0]}: memory goes only to the team's remote, so nothing is pushed; "
                                 f"{elsewhere[1]}")
        return None
    return found


def pushes_elsewhere(repo: pygit2.Repository, remote: str, scope: str) -> tuple[str, str] | None:
    """Why nothing may be pushed to ``remote``, which stands for ``scope`` by its URL, when a
    push to it goes elsewhere than a fetch from it, and what mends it (None when it does not):
    a push URL (``remote.<name>.pushurl``, as a triangular workflow sets to a person's own
    fork), a second URL (git fetches from the first and pushes to each, while the remote's scope
    is read from the last: each must stand for both) or a URL
    ``pushInsteadOf`` rewrites, of another repository, would take the team's memory there, and
    never to the team's remote the sync fetched from. Where each goes is asked of git, as
    ``git fetch`` and ``git push`` decide it (an ``insteadOf`` that rewrites both, to a mirror or
    a proxy of the team's repository, sends both to one place). A push URL whose path starts
    from another user's home folder than the fetch URL's, on a server that is no forge, is
    another repository of the same scope (``gitstore.scope.stands_for``)."""
    from gitstore.scope import _home_user, url_scope

    def scope_of(url: str) -> str | None:
        try:
            return url_scope(repo, remote, url)
        except (GitstoreError, pygit2.GitError, OSError):
            return None

    fetch = _git(repo, "remote", "get-url", remote)
    push = _git(repo, "remote", "get-url", "--push", "--all", remote)
    if fetch.returncode != 0 or push.returncode != 0:
        return (f"git cannot tell where a push to {remote} goes ({_last_line(push if push.returncode else fetch)})",
                "see `git remote -v`")
    fetched = fetch.stdout.strip()
    base = scope_of(fetched)
    key = f"remote.{remote}.pushurl"
    several = key not in repo.config and len(list(repo.config.get_multivar(f"remote.{remote}.url"))) > 1
    for url in push.stdout.splitlines():
        theirs = scope_of(url) if url != fetched or several else scope
        if several:  # fetched from the first, pushed to each, read from the last: each must be the remote's
            fits = same_scope(theirs, base) and same_scope(theirs, scope)
        else:
            fits = theirs is not None and (same_scope(theirs, base) or same_scope(theirs, scope))
        if fits:
            mine, home = _home_user(fetched), _home_user(url)
            if mine is None or home is None or mine == home:
                continue
            theirs = f"{theirs} in the home folder of {home}"  # one scope, another user's folder
        where = "a URL that gives no scope" if theirs is None else theirs
        if several:
            apart = base if theirs is not None and not same_scope(theirs, base) else scope
            return (f"a push to {remote} goes to {where}, another repository than {apart}, which {remote} also "
                    "names: git pushes to each of its URLs",
                    f"keep one URL of {remote} (`git remote set-url --delete {shlex.quote(remote)} URL`): git "
                    "fetches from the first and pushes to each")
        todo = (f"`git config --unset-all {shlex.quote(key)}` pushes where it fetches from" if key in repo.config else
                "take out the `url.<base>.pushInsteadOf` that rewrites it")
        return (f"a push to {remote} goes to {where}, another repository than the one {remote} fetches from, "
                f"{base or scope}", f"{todo}, or point the push URL at {base or scope}")
    return None


def scope_refusal(repo: pygit2.Repository, remote: str, writer: str, ours: str) -> tuple[str, str] | None:
    """Why a sync to ``remote`` would push nothing of ``writer``'s records, this clone's scope
    being ``ours``, and what mends it: a record the push would send (those after the remote's
    copy as last fetched) is of another scope than the one the remote stands for, which its
    clones refuse (``_Planned.plan`` refuses the same). None when every one is of it, or when
    the remote gives no scope (sync says so as it runs). What ``gitstore doctor`` checks."""
    from gitstore.scope import remote_scope

    try:
        theirs = remote_scope(repo, remote)
    except (GitstoreError, pygit2.GitError, OSError):
        return None
    records = f"{PREFIX}records/shared/{writer}"
    mine = ref_tip(repo, records)
    if theirs is None or mine is None:
        return None
    fetched = ref_tip(repo, f"{PREFIX}remotes/{remote}/records/shared/{writer}")
    held = peeled(repo, fetched) if fetched is not None else None
    other = _other_scope(repo, mine, held, _with_former(theirs, ours)) if mine != held else None
    if other is None:
        return None
    return (f"{records} holds records of scope {other}, which is not the scope {remote} stands for, {theirs}: its "
            "clones would refuse them, so `gitstore sync` pushes none of them",
            _other_scope_advice(repo, remote, ours, theirs))


def _other_scope_advice(repo: pygit2.Repository, remote: str, ours: str | None, theirs: str) -> str:
    """What mends a clone whose records are not all of the scope ``theirs`` that ``remote``
    stands for, this clone's own scope being ``ours``."""
    new_id = "gives it a writer id of its own to store under from now on (what it stored so far stays here, unread)"
    if same_scope(ours, theirs):  # stored before its origin named this remote
        return f"`gitstore init --new-writer` {new_id}"
    if "origin" not in repo.remotes.names():
        return (f"`git remote rename {remote} origin && gitstore init --new-writer` makes {remote} this clone's "
                f"origin, its scope {theirs}, and {new_id}")
    return f"this clone's scope is origin's, {ours}: its memory travels through origin (`gitstore sync`)"


@dataclass
class _Planned:
    """One atomic push: its refspecs, leases, what each moves, and the records tips it sends.
    ``scope``: the one the remote stands for, that every record pushed must be of (its clones
    refuse a history holding another); ``advice``: what mends a history that does not."""

    scope: str
    advice: str
    specs: list[str] = field(default_factory=list)
    leases: list[str] = field(default_factory=list)
    moves: list[Moved] = field(default_factory=list)
    tips: dict[str, pygit2.Oid] = field(default_factory=dict)

    def plan(self, repo: pygit2.Repository, remote: str, writer: str, report: SyncReport, own: bool = True,
             left: str | None = None, scrubbed: bool = False) -> bool:
        """Add ``writer``'s refs where the remote's are behind this clone's; False when the
        remote's records are not in this clone's history (never forced: named in ``report``;
        for an id this clone wrote as before, ``left`` says why its appends stay, and without
        it they were carried over to this writer id), or when a record it would push is not of
        the remote's scope (named too). ``own``: this clone's writer id; any other is an id it
        wrote as before, whose payload snapshot goes only with its records, or, ``scrubbed``,
        when it is the remote's written again without what a removal honoured here took
        (``_scrubbed``): a removal's records go under the current id, and nothing else would
        ever take that text off the remote."""
        records = f"{PREFIX}records/shared/{writer}"
        mine, theirs = ref_tip(repo, records), ref_tip(repo, f"{INCOMING}{remote}/records/shared/{writer}")
        # a tag of a commit someone pushed at the ref holds that commit's history: pushing the
        # commit over it is a fast-forward git takes, and mends the remote
        held = peeled(repo, theirs) if theirs is not None else None
        ahead = mine is not None and mine != theirs and (own or held is None or not extends(repo, held, mine))
        if ahead and mine is not None and theirs is not None and held is not None and mine != held \
                and not extends(repo, mine, held):
            said = report.not_pushed if own else report.stranded
            line = _split(records, writer, theirs) if own else left
            if line is not None and line not in said:  # a push retried after the remote moved plans again
                said.append(line)
            return False
        other = _other_scope(repo, mine, held, self.scope) if ahead and mine is not None else None
        if other is not None:
            said = report.not_pushed if own else report.stranded
            line = (f"{records} holds records of scope {other}, which is not the scope {remote} stands for, "
                    f"{self.scope}: its clones would refuse them, so "
                    + (f"none is pushed; {self.advice}" if own else "its appends stay here"))
            if line not in said:
                said.append(line)
            return False
        if ahead and mine is not None:
            # the tip planned, not the ref's name: an append landing before git runs (a capture
            # hook in the background) was never checked to be of the scope, nor counted; it goes
            # at the next sync
            self.specs.append(f"{mine}:{records}")
            self.moves.append(Moved(writer, "records", str(theirs) if theirs else None, str(mine),
                                    _records_between(repo, mine, held)))
            self.tips[writer] = mine
        payloads = f"{PREFIX}payloads/shared/{writer}"
        mine_p, theirs_p = ref_tip(repo, payloads), ref_tip(repo, f"{INCOMING}{remote}/payloads/shared/{writer}")
        if mine_p is not None and mine_p != theirs_p and (own or ahead or scrubbed):
            # by its name: a removal landing before git runs replaced the snapshot planned, whose
            # text must not reach the remote (a newer snapshot only holds text of records to come)
            self.specs.append(f"+{payloads}:{payloads}")
            self.leases.append(f"--force-with-lease={payloads}:{theirs_p or ''}")
            self.moves.append(Moved(writer, "payloads", str(theirs_p) if theirs_p else None, str(mine_p), 0))
        return True


def _with_former(theirs: str, ours: str | None) -> str:
    """The scope ``theirs`` a remote stands for, with the former scopes this clone's default
    branch declares (``gitstore.scope.Scope``) when it is this clone's repository: its clones
    read that declaration too, and admit records of those scopes."""
    from gitstore.scope import Scope, formerly

    return Scope(theirs, formerly(ours)) if formerly(ours) and same_scope(theirs, ours) else theirs


def _other_scope(repo: pygit2.Repository, tip: pygit2.Oid, base: pygit2.Oid | None, scope: str) -> str | None:
    """The scope of a record appended after ``base`` up to ``tip`` that is not of ``scope``,
    newest first; None when every one is (records keep the scope they were stored under, so a
    clone whose origin changed since holds some of its old one)."""
    for commit in _appends_after(repo, tip, base):
        for digest, kind, _ in parse_message(message_of(commit)).lines:
            try:
                found = _jsontext.loads(commit.tree[record_path(kind, digest)].peel(pygit2.Blob).data).get("scope")
            except (KeyError, ValueError, AttributeError):
                continue  # not this check's to judge: verify names a record missing or unreadable
            if not admits(scope, found):
                return str(found)
    return None


def _split(records: str, writer: str, theirs: pygit2.Oid) -> str:
    """What to say of this writer's records ref whose history and the remote's have parted."""
    return (f"the remote's {records} is not in this clone's history ({str(theirs)[:12]}): appends this clone "
            f"never made, by another clone writing as {writer} (a copy of this folder?) or by someone with push "
            "access; never forced: `gitstore init --new-writer` gives this one an id of its own and carries its "
            "appends the remote lacks over to it")


def _admit_own(provider: GitProvider, remote: str, tips: dict[str, pygit2.Oid], snapshots_of: set[str]) -> None:
    """git moved the fetched copy of each records ref and payload snapshot it pushed to what it
    pushed (the remote's configured refspecs): that is this clone's own, admitted without
    verifying it."""
    moved = {ref: tip for ref, tip in ((f"{PREFIX}remotes/{remote}/records/shared/{w}", t) for w, t in tips.items())
             if ref_tip(provider.repo, ref) == tip}
    snapshots = {ref: tip for ref, tip in ((f"{PREFIX}remotes/{remote}/payloads/shared/{w}",
                                           ref_tip(provider.repo, f"{PREFIX}payloads/shared/{w}"))
                                          for w in {*tips, *snapshots_of})
                 if tip is not None and ref_tip(provider.repo, ref) == tip}
    if moved or snapshots:
        admissions = Admissions(provider.state)
        for ref, tip in moved.items():
            admissions.admitted(ref, tip, provider.scope)
        for ref, tip in snapshots.items():
            admissions.admitted(ref, tip, None)
        admissions.save(provider.repo)


def _records_between(repo: pygit2.Repository, tip: pygit2.Oid, base: pygit2.Oid | None) -> int:
    """How many records the appends after ``base`` up to ``tip`` hold."""
    return sum(len(parse_message(message_of(commit)).lines) for commit in _appends_after(repo, tip, base))


def _appends_after(repo: pygit2.Repository, tip: pygit2.Oid, base: pygit2.Oid | None) -> Iterator[pygit2.Commit]:
    """The appends after ``base`` up to ``tip``, newest first (``first_parents``: all of them
    when ``base`` is None or not among them)."""
    for oid in first_parents(repo, tip):
        if oid == base:
            return
        yield repo[oid].peel(pygit2.Commit)


# -- what changed --------------------------------------------------------------------------------

def _verdicts(ctx: Context) -> tuple[dict[str, Any], dict[str, str]]:
    """Each learning's verdict (state, in force, contested), and what the rules left out."""
    from gitstore.queries.learnings import verdicts

    rows, ignored = verdicts(ctx)
    found = {row.status.id: {"state": row.status.state, "usable": row.status.usable,
                             "contested": bool(row.status.contested)} for row in rows}
    return found, ignored


def _compare(before: tuple[dict[str, Any], dict[str, str]], after: tuple[dict[str, Any], dict[str, str]],
             report: SyncReport) -> None:
    from gitstore.rules.trust import not_counted

    old, new = before[0], after[0]
    report.changed = [Change(i, old.get(i), new.get(i)) for i in sorted(old.keys() | new.keys())
                      if old.get(i) != new.get(i)]
    for digest, why in sorted(after[1].items()):
        if digest not in before[1]:
            (report.not_used if not_counted(why) else report.left_out).append(f"{digest}: {why}")


__all__ = ["Change", "Moved", "Quarantined", "SyncReport", "fetch_specs", "sync"]
