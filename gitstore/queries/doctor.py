"""``gitstore doctor``: is everything set up to capture and keep memory here, and if not, what to do.

Each check says ``ok``, ``warn`` (works, but something a person may want to change) or ``fail``
(something does not work), with a line of detail and, when it is not ok, what to do: one command
a person pastes as it stands, or words with each command set off in backticks, every command
right from any folder of the repository (git paths as ``:/`` pathspecs, files by full path). It
looks at the repository, the configuration, the harness settings, the hook log, each harness's
latest capture as the captures noted it (``gitstore.capture.outcomes``) and the refs (this
clone's own are checked as every read checks them first: there, not moved back past an
acknowledged append), so it answers fast and works on a store that is damaged or not set up at
all. It names other clones' memory reads leave out (quarantined: what sync refused, and what a
plain fetch brought that fails verification, checked as every read checks it first), and each
writer whose history as fetched lacks appends another writer's history names as seen (moved
back on the remote: ``gitstore.providers._unheld``). It reads
records for four checks only. The grants, withdrawals, episodes, events and
learnings every write checks first, as a write checks them (only what arrived since the last
clean check, where the provider remembers checks): while one is damaged every write, a capture
too, refuses. Only where ``gitstore publish`` wrote files, the learnings in force, as a
publish reads them, to tell whether those files still give agents only what is in force (a
learning leaves force without a command that rewrites them when its validity ends, a sync
brings another clone's withdrawal, or an older file is checked out). Only where the work
tree's ``okf/wiki/`` or ``.agents/skills/`` holds promoted blocks, the same learnings, to tell
whether each block's learning is still in force (a block stays when its learning leaves
force). It fails for files of those folders in the index whose paths differ only in case (a
checkout on macOS or Windows keeps one of them). And only where ``import github`` saved snapshots and a redaction not yet applied to
them is in memory (one fetched from another clone), the review threads, to name the snapshots
still holding the text. It says how many capture jobs wait in ``.git/gitstore/held-jobs/`` for the inbox to
take them. It names each session whose capture the hooks gave up on (set aside in the inbox), with the
import that captures it by hand. It also names the commands of several steps that were killed midway
(their notes in ``okf/.memory/unfinished/``), each with the command that finishes it, and each ref
lock under ``refs/memory/`` a process killed while it moved a ref left, with what removes it. In a
partial clone it warns of a remote whose fetches leave objects out and of the objects of other
clones' memory the clone lacks (no damage: ``gitstore sync`` fetches them). It warns of memory refs
whose history a fetch or clone with ``--depth`` cut short (``gitstore sync`` fetches it whole).
"""

from __future__ import annotations

import os
import re
import shlex
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitstore.errors import GitstoreError
from gitstore.scope import declares_itself, origin_todo, renamed_todo, same_scope

OK, WARN, FAIL = "ok", "warn", "fail"
LOG_LINES = 5
DEEPENS = "`gitstore sync` fetches memory's history whole (the code's history stays as shallow as it is)"
UNMENDABLE = ("no sync can make it whole; `git update-ref -d` of that ref drops it here, or `git fetch "
              "--unshallow origin` reads it whole if the remote still holds its objects")


@dataclass(frozen=True)
class Check:
    """One finding: what was checked, how it stands, the detail, and what to do about it."""

    name: str
    state: str
    detail: str
    todo: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"check": self.name, "state": self.state, "detail": self.detail, "todo": self.todo or None}


@dataclass
class Report:
    """Every check, in the order a person would fix them."""

    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.state != FAIL for c in self.checks)

    def add(self, name: str, state: str, detail: str, todo: str = "") -> None:
        self.checks.append(Check(name, state, detail, todo))

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "checks": [c.to_json() for c in self.checks]}


def doctor(start: str | Path = ".", home: Path | None = None) -> Report:
    """Check the set-up around ``start`` (harness settings under ``home``, default ``$HOME``)."""
    from gitstore import notices
    from gitstore.config import GONE_NOTE

    try:
        return _doctor(start, home)
    finally:
        notices.forget(GONE_NOTE)  # a moved origin: the origin check says it, the warning would again


def _doctor(start: str | Path, home: Path | None) -> Report:
    from gitstore.config import CONFIG_NAME, STATE_DIR, Workspace, copied_from, git_ignores
    from gitstore.errors import ForeignConfig, NotARepository, NotOwnedRepository, RemoteGone, UnsupportedRepository
    from gitstore.scope import alias_of, declared_former, open_repository, scope_kept_gone, scope_note

    report = Report()
    home = home or Path.home()
    try:
        repo = open_repository(start)
    except NotOwnedRepository as exc:
        report.add("repository", FAIL, str(exc), exc.todo)
        _hooks(report, None, home)
        return report
    except UnsupportedRepository as exc:
        report.add("repository", FAIL, str(exc), "use gitstore in a repository git made with its default format")
        _hooks(report, None, home)
        return report
    except GitstoreError as exc:
        report.add("repository", FAIL, str(exc), "run gitstore inside a git repository's work tree")
        _hooks(report, None, home)
        return report
    root = Path(repo.workdir).resolve()
    note = scope_note(repo)
    try:
        scope, kept, gone = scope_kept_gone(repo)
    except RemoteGone as exc:  # and no scope kept to go on with
        report.add("repository", FAIL, f"{root}: {exc.about}, so it gives no scope, and none is kept here "
                                       "(`gitstore init` keeps one) to go on with: no command can run", exc.todo)
        _hooks(report, root, home)
        return report
    report.add("repository", WARN if note else OK, f"{root} (scope {scope})" + (f": {note[0]}" if note else ""),
               note[1] if note else "")
    if gone is not None:
        report.add("origin", FAIL, f"{gone.about}: its scope cannot be read, so memory goes on under {scope}, the "
                                   "scope this clone's memory was set up under, and `gitstore sync` cannot reach "
                                   "origin", gone.todo)
    if kept is not None and not same_scope(kept, scope) \
            and not any(same_scope(kept, old) for old in declared_former(repo, scope)[0]):  # read as this one's
        aliased = alias_of(kept, scope)
        since, back = (("origin was named", "") if kept.startswith("local/") else
                       ("origin was removed", ", or add origin again") if scope.startswith("local/") else
                       ("", "") if aliased else ("origin was pointed elsewhere", f", or point origin back at {kept}"))
        renamed = "" if kept.startswith("local/") or scope.startswith("local/") else (
            f"; nothing was renamed, but what was stored under {kept} is this repository's memory, which every clone "
            f"holds quarantined: `gitstore scope formerly {shlex.quote(kept)}`, committed and merged into the default "
            f"branch, has every clone read it under {scope}") if aliased else (
            f"; if the repository was renamed or moved from {kept}, `gitstore scope formerly {shlex.quote(kept)}`, "
            "committed and merged into the default branch, has what was stored under it read under the new scope, "
            "by every clone")
        head = (f"origin's host {kept.partition('/')[0]} is an ssh alias of {scope.partition('/')[0]}, as ssh's "
                f"configuration says, which gitstore did not read when this clone's memory was set up under {kept}"
                if aliased else f"{since} after this clone's memory was set up under {kept}")
        report.add("scope", WARN, f"{head}: what it stored there is not read under {scope}",
                   f"`gitstore init` makes {scope} this clone's scope from now on, under a new writer id where its "
                   f"own holds records of {kept}, of which a sync pushes none (what it stored under {kept} "
                   f"stays, unread: a session can be captured again with `gitstore import transcript FILE`, "
                   f"grants and decisions made again){renamed}{back}")
    try:
        workspace = Workspace.find(root)
    except GitstoreError as exc:  # not set up (gitstore init sets it up), or a config.json it refuses
        report.add("init", FAIL, str(exc), "gitstore init" if isinstance(exc, (NotARepository, ForeignConfig)) else
                   f"fix {STATE_DIR.as_posix()}/{CONFIG_NAME} as it says (`gitstore init` keeps it: its writer id "
                   "names this clone's memory refs)")
        _hooks(report, root, home)
        _hook_log(report, None, root)
        return report
    ignored = git_ignores(workspace.root, workspace.state)
    against = _unignored_within(workspace) if ignored and (workspace.state / ".gitignore").exists() else None
    report.add("init", FAIL if not ignored else WARN if against else OK,
               f"writer {workspace.config.writer}, state in {STATE_DIR.as_posix()}/ "
               + ("(NOT ignored by git: capture refuses to write there" + _exposed(workspace) + ")" if not ignored
                  else f"(ignored by git through its own .gitignore, but {against})" if against
                  else "(ignored by git)"),
               "" if ignored and not against else _to_ignore(workspace))
    copied = copied_from(workspace.root, workspace.state, workspace.config.writer)
    if copied is not None:
        report.add("writer", WARN, f"this folder is a copy of {copied}, whose clone writes as "
                                   f"{workspace.config.writer} too, and its configuration cannot be written: appends "
                                   "from both split that writer's history, and the second of them to sync cannot push",
                   f"make {STATE_DIR.as_posix()}/ writable, then `gitstore init --new-writer` gives this clone an id of "
                   "its own (what it stored stays)")
    _tracked(report, workspace)
    _changed(report, workspace)
    _links(report, workspace)
    _provider(report, workspace)
    _trust(report, workspace)
    _former(report, workspace)
    _gates(report, workspace)
    _hooks(report, root, home, workspace.state)
    _hook_log(report, workspace.state, workspace.root)
    _given_up(report, workspace.state)
    _held_jobs(report, workspace)
    _remotes(report, workspace)
    _unfinished(report, workspace.state)
    _ref_locks(report, workspace.repo)
    if not any(c.state == FAIL for c in report.checks if c.name in ("provider", "trust")):
        _published(report, root, workspace.state)  # where records cannot be read, those checks said why
        _promoted(report, root)
        _snapshots(report, root, workspace.state)
        _exports(report, root, workspace.state)
    _case_twins(report, workspace.repo)
    return report


def _tracked(report: Report, workspace: Any) -> None:
    """Files of the state folder git tracks (committed before it was ignored, or added with
    ``--force``): a commit shares them, and a tracked config.json reaches every clone that
    checks it out (where every command refuses it as another clone's: ``config.foreign``)."""
    from gitstore.config import CONFIG_FILE, STATE_DIR, tracked_under

    tracked = tracked_under(workspace.root, workspace.state)
    if not tracked:
        return
    folder = STATE_DIR.as_posix()
    shown = ", ".join(tracked[:3]) + (", ..." if len(tracked) > 3 else "")
    report.add("init", FAIL if CONFIG_FILE in tracked else WARN,
               f"git tracks {len(tracked)} file(s) of {folder}/ ({shown}): a commit shares this clone's local state"
               + (", and every clone that checks out config.json receives its writer id and settings, which "
                  "gitstore refuses there until `gitstore init` replaces them"
                  if CONFIG_FILE in tracked else ""),
               f"`git rm -r -q --cached {shlex.quote(f':/{folder}/')} && git commit -m 'Stop tracking gitstore local "
               "state'` (the files stay here, ignored)")


def _changed(report: Report, workspace: Any) -> None:
    """Fields of config.json changed since this clone's init last took the file: a person's
    edit, or a patch applied (``git apply`` writes the file and leaves git no trace), which
    only the person who runs the clone can tell apart (``config.changed_since_init``)."""
    from gitstore.config import ACCEPT, CONFIG_FILE, CONFIG_NAME, changed_since_init, damaged_copy

    damaged = damaged_copy(workspace.repo)
    if damaged is not None:
        report.add("config", WARN, f"{damaged}, the copy of {CONFIG_FILE} this clone's `gitstore init` last took, is no "
                                   "JSON object (damaged): every setting of the file counts as changed, and a dream, "
                                   "tick, capture or auto-safe runs none a change could name until init takes it again",
                   f"read {CONFIG_FILE}; if it holds what you want, `{ACCEPT}` takes it as it is now")
        return
    try:
        changed = changed_since_init(workspace.repo, (workspace.state / CONFIG_NAME).read_bytes())
    except OSError:
        return
    if changed:
        report.add("config", WARN, f"{CONFIG_FILE}: {', '.join(changed)} changed since this clone's `gitstore init` "
                                   "last took the file (a person's edit, or a patch applied); until init takes it, a "
                                   "dream runs no labeler or consolidator, a tick no loop step and a capture no capture "
                                   "mode the change names, and auto-safe accepts nothing a change to it asks",
                   "if you made the change, `gitstore init --accept-changes` takes the file as it is now; otherwise put back what "
                   "was there")


def _links(report: Report, workspace: Any) -> None:
    """Symbolic links in the state folder: a commit can leave one there, and what gitstore
    writes through it (a hook's job or log) lands wherever it points."""
    from gitstore._files import links_under
    from gitstore.config import STATE_DIR

    links = links_under(workspace.root, workspace.state)
    if links:
        shown = ", ".join(links[:3]) + (", ..." if len(links) > 3 else "")
        report.add("init", WARN, f"{len(links)} symbolic link(s) under {STATE_DIR.as_posix()}/ ({shown}): a commit "
                                 "may have put them there, and gitstore never writes through one",
                   "delete them (`rm` each); `gitstore init` refuses them")


def _exposed(workspace: Any) -> str:
    """The state folder's files ``git add -A`` would stage now (``config.exposed_under``), as a
    clause naming a few: this machine's personal memory (the delivery ledger, config.json, the
    caches), which a commit and a push would publish."""
    from gitstore._shown import one_line, shown
    from gitstore.config import exposed_under

    found = exposed_under(workspace.root, workspace.state)
    if not found:
        return ""
    shown_ = ", ".join(one_line(shown(path)) for path in found[:3]) + (", ..." if len(found) > 3 else "")
    return f"; `git add -A` would commit {len(found)} file(s) of it, this machine's personal memory: {shown_}"


def _unignored_within(workspace: Any) -> str | None:
    """Where git ignores the state folder's files only through ``okf/.memory/.gitignore``
    (``gitstore init`` writes it): the ``!`` line of a ``.gitignore`` that un-ignores the
    folder, as a clause. This clone's files stay ignored, but the line reaches every clone
    through git, and ``git add -A`` in one without that file commits its personal memory."""
    from gitstore._shown import one_line, shown
    from gitstore.config import unignoring_rule

    found = unignoring_rule(workspace.root, workspace.state)
    if found is None:
        return None
    source, line, pattern = found.split(":", 2)
    return (f"line {line} of {one_line(shown(source))} ({one_line(shown(pattern))}) un-ignores the folder: "
            "`git add -A` in a clone without that file commits its personal memory")


def _to_ignore(workspace: Any) -> str:
    """What makes git ignore the state folder: the ignore rule ``gitstore init`` adds, once no
    ``!`` line of higher precedence un-ignores it."""
    from gitstore.config import STATE_DIR, unignoring_rule

    found = unignoring_rule(workspace.root, workspace.state)
    if found is None:
        return "`gitstore init` adds the ignore rule to .git/info/exclude"
    source, line, pattern = found.split(":", 2)
    return (f"remove line {line} of {source} ({pattern}: it makes git track {STATE_DIR.as_posix()}/), "
            "then `gitstore init`")


def _provider(report: Report, workspace: Any) -> None:
    from gitstore.config import CONFIG_FILE, DURABLE
    from gitstore.providers import open_provider
    from gitstore.providers._shallow import names_shallow
    from gitstore.providers.git import GitProvider
    from gitstore.store import Store

    config = workspace.config
    provider = None
    try:
        provider = open_provider(config.provider, workspace.root, workspace.state, config.writer)
        manifest = provider.manifest()
        if isinstance(provider, GitProvider):
            provider.check_own_refs()  # what every read checks first, without reading a record
        Store(provider, workspace.scope).check_policy()  # what every write (a capture too) checks first
    except GitstoreError as exc:
        restore = provider.restorable() if isinstance(provider, GitProvider) else []
        report.add("provider", FAIL, f"{config.provider}: {exc}",
                   "; ".join(_update_ref(workspace.repo, r) for r in restore)
                   or (DEEPENS if names_shallow(str(exc)) else "`gitstore verify` names what is damaged"))
        return
    if config.provider not in DURABLE:
        report.add("provider", FAIL, f"{config.provider} ({manifest.storage}) keeps records for one process only: "
                                     "each command starts with none, and nothing it stores outlives it",
                   f"set \"provider\" in {CONFIG_FILE} to git (or run `gitstore init --provider git` in a fresh "
                   "clone), then capture again")
        return
    optional = sorted(c for c in manifest.capabilities if c in ("redact-payload", "append-stream"))
    report.add("provider", OK, f"{manifest.name} ({manifest.storage}); offers {', '.join(optional) or 'the required capabilities only'}")
    _unread(report, workspace)
    if isinstance(provider, GitProvider):
        _left_out(report, provider, Store(provider, workspace.scope))
        _unheld(report, provider, workspace)


def _unread(report: Report, workspace: Any) -> None:
    """This clone's records another provider's store still holds, which the configured one does
    not read (config.json's provider changed): learnings, verify and publish leave them out."""
    from gitstore.ops.setup import unread_stores

    config = workspace.config
    for detail, todo in unread_stores(workspace.repo, workspace.root, workspace.state, config.provider, config.writer):
        report.add("unread records", WARN, detail, todo)


def _left_out(report: Report, provider: Any, store: Any) -> None:
    """Other clones' memory reads leave out, each with why: a fetched history or payload snapshot
    that failed verification (damage, or someone with push access at work) is held in quarantine
    by sync, or left out by reads after a plain fetch, never read. Sync and reads name it when
    they meet it; doctor says it at any time, and what it means. A warning: this clone's set-up
    works, and it is not this clone's to mend."""
    from gitstore.providers._partial import judged_again
    from gitstore.providers._shallow import UNMENDED_NOTE, names_shallow
    from gitstore.providers._names import shown_in, shown_ref
    from gitstore.sync.remote import held_in_quarantine

    def advice(why: str) -> str:
        if UNMENDED_NOTE in why:
            return UNMENDABLE
        renamed = renamed_todo(provider.repo, provider.scope, why)  # nothing its writer does mends it
        if renamed is not None:
            return renamed
        return DEEPENS if names_shallow(why) else fetch if judged_again(provider.repo, why) else todo

    todo = ("nothing to mend in this clone: it is read again once that ref moves on the remote (its writer's "
            "next sync); tell its writer, whose `gitstore doctor` says what to do, and `gitstore verify` names "
            "the damage")
    fetch = "`gitstore sync` fetches the objects this partial clone lacks, and reads it"  # no damage: nobody to tell
    for ref, tip, why in held_in_quarantine(provider.repo, provider.state):
        said = (f"{shown_ref(ref, cut=True)}: quarantined by sync at {tip[:12]}, never read: "
                f"{shown_in(why, ref, cut=True)}")  # a pushed name
        report.add("fetched memory", WARN, said, advice(why))
    try:
        provider.admit()  # what every read does first: what a plain fetch brought is verified
        left = store.left_out()
    except GitstoreError as exc:  # the snapshots could not be judged: reads say so, as every read does
        if _names_own_ref(provider, str(exc)):  # this clone's own memory is damaged: every read refuses
            failed = Check("provider", FAIL, f"{provider.manifest().name}: {exc}", "`gitstore verify` names what is damaged")
            report.checks = [failed if c.name == "provider" else c for c in report.checks]  # in place of its ok
        else:
            report.add("fetched memory", WARN, str(exc), "`gitstore verify` names what is damaged")
        return
    for problem in left:
        report.add("fetched memory", WARN, str(problem), advice(problem.message))
    _kept_text(report, provider)


def _unheld(report: Report, provider: Any, workspace: Any) -> None:
    """Writers whose history read here lacks appends another writer's fetched history names as
    seen (``gitstore.providers._unheld``): someone with push access moved that history back on
    the remote (or deleted and made it again), and a clone that never read the appends lost, this
    one, reads it without them: a withdrawal, redaction or retirement among them counts for
    nothing here. A warning, not a failure: nothing in this clone can mend it or tell which records
    are missing, the writer's next sync puts them back, and anyone with push access could raise
    it with a made-up ``Seen`` (a nuisance, as deleting a ref is)."""
    from gitstore.config import former_writers
    from gitstore.sync.remote import unheld_lines

    try:
        lines = unheld_lines(provider, former_writers(workspace.state))
    except GitstoreError:  # the reads fail: the checks above name why
        return
    for line in lines:
        report.add("fetched memory", WARN, line,
                   "nothing to mend in this clone: tell that writer, whose next `gitstore sync` pushes its history "
                   "back; until then, judge what is in force here from a clone that held that history, and "
                   "`gitstore verify` on such a clone names the ref moved back")


def _kept_text(report: Report, provider: Any) -> None:
    """Another writer's payload snapshot read here with text kept that the one fetched lacks, and
    no removal took (``kept_text``): someone with push access may have taken it off the remote,
    where a clone that never read it cannot have it (or a removal has not reached this clone)."""
    from gitstore.providers._admit import FETCHED, Admissions
    from gitstore.providers._names import shown_ref

    admissions = Admissions(provider.state)
    for ref in admissions.known(FETCHED):
        if "/payloads/shared/" in ref and admissions.owes(ref):
            report.add("fetched memory", WARN,
                       f"{shown_ref(ref, cut=True)}: as fetched, it lacks text read here before that no removal "
                       "took; the text is kept and still read here",
                       "once you know no removal took it (someone with push access may have taken it off the "
                       "remote), `gitstore sync --put-back` puts it back there for clones that never read it; "
                       "its writer's own next sync does so too")


def _names_own_ref(provider: Any, said: str) -> bool:
    """Whether the error ``said`` is about one of this clone's own refs (its records or payload
    snapshots, in either namespace): damage to mend here, not another clone's."""
    from gitstore.providers._base import NAMESPACES
    from gitstore.providers._names import payloads_ref, records_ref

    return any(said.startswith(f"{name(namespace, provider.writer)}:")
               for namespace in NAMESPACES for name in (records_ref, payloads_ref))


def _update_ref(repo: Any, restore: Any) -> str:
    """The git command that moves one of this clone's refs forward to its acknowledged append
    (in the local namespace's own repository, named by its path, for a local ref)."""
    git_dir = Path(restore.git_dir).resolve()
    first = f"rm {shlex.quote(str(restore.broken))} && " if restore.broken is not None else ""
    if git_dir == Path(repo.path).resolve():
        return f"{first}git update-ref {restore.ref} {restore.append}"
    return f"{first}git --git-dir={shlex.quote(str(git_dir))} update-ref {restore.ref} {restore.append}"


def _former(report: Report, workspace: Any) -> None:
    """The scopes the default branch declares this repository had before (renamed, or moved to
    another owner or host), whose records are read as its own, or why the declaration there is
    not read. Nothing when there is none."""
    from gitstore.scope import FORMER_FILE, FORMER_SCHEMA, declared_former, formerly

    _, problem = declared_former(workspace.repo, str(workspace.scope))
    if problem is None and declares_itself(workspace.repo, str(workspace.scope)):
        report.add("former scopes", WARN, f"this clone's scope, {workspace.scope}, is one {FORMER_FILE} on the default "
                   "branch declares this repository had before: what the team stores under its current scope is not "
                   "read here, and what this clone stores goes under the old one",
                   origin_todo(str(workspace.scope)))
    elif problem is not None:
        report.add("former scopes", WARN, f"{problem}, so what was stored under a former scope is not read here",
                   f"fix {FORMER_FILE} on the default branch: an object with \"schema\": \"{FORMER_SCHEMA}\" and "
                   "\"formerly\", a list of the hosted scopes (host/owner/name) this repository had before (or "
                   "remove it and declare each again with `gitstore scope formerly OLD_SCOPE`)")
    elif formerly(workspace.scope):
        report.add("former scopes", OK, f"{', '.join(formerly(workspace.scope))}: read as this repository's "
                                        f"({FORMER_FILE} on the default branch)")


def _trust(report: Report, workspace: Any) -> None:
    """Who may decide here, and whether this clone can. Policy files written in the work tree
    count only once the default branch holds them: until then the advice is to commit them, or,
    where this clone finds no default branch, to name it."""
    from gitstore.queries.trust import trust
    from gitstore.records.policy import SIGNERS_FILE

    found = trust(workspace)
    merge = _merge_policy(found.branch)
    if found.mode == "broken":
        report.add("trust", FAIL, f"{found.explanation}: {found.problem}",
                   merge if found.pending else f"fix .gitstore/ as the problem says (`gitstore policy show` names it), "
                   f"then {merge}")
    elif found.mode == "single-user" and workspace.config.provider != "git":
        report.add("trust", OK, f"single-user: {found.explanation}")
    elif found.mode == "single-user" and found.branch is None:  # the policy is read nowhere yet
        from gitstore.providers._policy_git import no_default_branch

        report.add("trust", WARN, f"single-user: {found.explanation}", no_default_branch(workspace.repo)[1])
    elif found.mode == "single-user":
        written = f"; {', '.join(found.pending)} written here, not yet on the default branch" if found.pending else ""
        report.add("trust", WARN, f"single-user: {found.explanation}{written}",
                   merge if found.pending else _start_policy(workspace, merge))
    elif not found.signs_as:
        report.add("trust", WARN, f"policy on {found.branch}: {_people(found.people)} may decide; this clone "
                   f"reads what they decide but cannot decide itself: {found.signing}",
                   merge if found.pending else _to_sign(workspace, found.signing, merge))
    else:
        signs = "; ".join(f"{p} ({', '.join(a)})" for p, a in found.signs_as.items())
        report.add("trust", OK, f"policy on {found.branch}: {_people(found.people)} may decide; this clone "
                   f"signs as {signs}")
    if found.mode != "single-user":  # a policy in force, read here only
        _local_policy(report, workspace, found.branch)
    for key in found.unreadable:
        shared = key.get("shared", False)
        report.add("trust", WARN, f"{SIGNERS_FILE} lists a key for {', '.join(key['principals'])} that signs for "
                   f"nobody: {key['problem']}",
                   f"keep the key on the line of the one person who holds it in {SIGNERS_FILE} and give the others "
                   f"keys of their own (`gitstore policy add PERSON --key THEIR_KEY.pub`), then {merge}" if shared else
                   f"remove its line from {SIGNERS_FILE} (`gitstore policy add` lists a key that reads), then {merge}")
    for person in found.keyless:
        report.add("trust", WARN, f"{person} may decide but the policy lists no key for them",
                   merge if found.pending else f"`gitstore policy add {shlex.quote(person)} --key THEIR_KEY.pub"
                   f"{''.join(f' --may {a}' for a in found.people.get(person, []))}`, then {merge}")


def _local_policy(report: Report, workspace: Any, branch: str | None) -> None:
    """Whether the policy in force is read from this clone's own branch while origin has one of
    that name (this clone fetched or pushed it): ``refs/remotes/origin/HEAD`` is not set (only
    ``git clone`` writes it), so a policy change on origin (a person removed) applies here only
    once merged into that branch. ``gitstore sync`` asks origin which branch is its default and
    sets it; this names the clone that has not synced since, or whose origin names none."""
    from gitstore.providers._policy_git import REMOTE_HEAD

    if workspace.config.provider != "git" or branch is None or not branch.startswith("refs/heads/"):
        return
    name = branch.removeprefix("refs/heads/")
    if f"refs/remotes/origin/{name}" not in workspace.repo.references:  # origin holds no such branch here
        return
    report.add("trust", WARN, f"the policy in force is read from this clone's {name}, not from origin/{name} "
               f"({REMOTE_HEAD} is not set): a policy change on origin applies here only once merged into it",
               "`gitstore sync` (it asks origin which branch is its default), or `git remote set-head origin --auto`")


def _gates(report: Report, workspace: Any) -> None:
    """Where ``gitstore ci init`` wrote the gates workflow, whether it can pass a promotion: it
    runs on a checkout that is no one's clone, where only decisions a policy on the default
    branch lets count do, so without one every promotion pull request fails."""
    from gitstore.sync.ci import GATES, gates_policy

    _gates_config(report, workspace.root)
    if not (workspace.root / GATES).is_file():
        return
    found = gates_policy(workspace.repo)
    if found is None:
        return
    trust = next((c.todo for c in report.checks if c.name == "trust" and c.todo), "")
    todo = (f"{trust}; then accept the promoted learnings again, signed (decisions made before a policy count on "
            "their own clone only)") if trust and found["mode"] == "single-user" else trust or found["next"]
    report.add("gates", WARN, f"{GATES.as_posix()} is here but {found['warning']}", todo)


def _gates_config(report: Report, root: Path) -> None:
    """Where ``gitstore ci init`` wrote the gates' pre-commit configuration, whether gitstore's
    hooks there are this gitstore's: an older one wrote hooks without ``always_run``, which
    pre-commit skips when a change passes them no file (a deleted page, a file the work tree
    lacks), so the gates judge nothing of it. ``gitstore ci init`` brings them up to date in
    place, with what the workflows install (read from the gates workflow, as it installs it)."""
    import re

    from gitstore.sync.ci import GATES, GATES_CONFIG, refreshed_config
    from gitstore.sync.hooks import outdated

    if not (root / GATES_CONFIG).is_file():
        return
    found = refreshed_config(root)
    stale = outdated(found[1]) if found is not None else {}
    if not stale:
        return
    said = "; ".join(f"{hook} ({', '.join(keys)})" for hook, keys in stale.items())
    command = "gitstore ci init"
    try:
        install = re.search(r"pip install '([^']+)'", (root / GATES).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        install = None
    if install is not None:
        command += f" --install {shlex.quote(install.group(1))}"
    report.add("gates", WARN, f"{GATES_CONFIG.as_posix()} holds gitstore hooks an older gitstore wrote, which differ "
                              f"from this gitstore's in what a run goes by: {said}; pre-commit may skip a gate "
                              "where it has no file to pass it (a deleted page, a file the work tree lacks)",
               f"`{command}` brings gitstore's hooks up to date in place, keeping the rest of the file")


def _merge_policy(branch: str | None) -> str:
    """What makes the policy files of the work tree count: the default branch holding them."""
    from gitstore.records.policy import FOLDER

    commit = f"`git add {shlex.quote(f':/{FOLDER}/')} && git commit -m 'gitstore policy'`"
    if branch is not None and branch.startswith("refs/remotes/"):
        remote, name = branch[len("refs/remotes/"):].split("/", 1)
        return (f"{commit}, have it merged into {name} on {remote}, then `git fetch {shlex.quote(remote)}` (the "
                f"policy counts once {remote}/{name} holds it)")
    name = branch[len("refs/heads/"):] if branch else "the default branch"
    return f"{commit} on {name}, or on a branch merged into it (the policy counts once {name} holds it)"


def _start_policy(workspace: Any, merge: str) -> str:
    """What starts a policy here: git's SSH signing set up first, when it is not."""
    from gitstore.providers._signing import signer

    found, hint = signer(workspace.repo)
    start = "`gitstore policy init`" if found is not None else f"{hint.rstrip('.')}, then `gitstore policy init`"
    return f"{start}, then {merge}"


def _to_sign(workspace: Any, hint: str, merge: str) -> str:
    """What lets this clone sign decisions: git's signing set-up, or the policy listing its key."""
    from gitstore.errors import UsageError
    from gitstore.providers._trust_git import NOBODY_FOR_KEY
    from gitstore.records.identity import person

    if not hint.startswith(NOBODY_FOR_KEY):
        return hint
    try:
        me = person(None, workspace.repo)
    except UsageError:
        me = "YOU"
    return (f"`gitstore policy add {shlex.quote(me)}`, which lists the key user.signingkey names, then {merge}; or "
            "`git config user.signingkey KEY.pub`, where KEY.pub is the public key the policy lists for you")


def _people(people: dict[str, list[str]]) -> str:
    return f"{len(people)} {'person' if len(people) == 1 else 'people'}"


def _hooks(report: Report, root: Path | None, home: Path, state: Path | None = None) -> None:
    """Each installed hook: whether it would run, and (STATE: the repository's state folder)
    whether its harness's latest capture stored a session (``gitstore.capture.outcomes``)."""
    from gitstore.capture.install import status
    from gitstore.capture.outcomes import TODO, marked

    rows = marked(status(root, home), state)
    installed = [r for r in rows if r.installed or r.problems]
    if not installed:
        report.add("hooks", WARN, "no harness hook installed: agent sessions are not captured",
                   "`gitstore hooks install --harness claude-code` (or --harness codex, gemini-cli, opencode)")
        return
    for row in installed:
        name = f"hook {row.harness} ({row.scope})"
        if row.works and row.stored_nothing:
            report.add(name, WARN, f"runs, but {row.stored_nothing}; {row.path}", TODO)
        elif row.works:
            report.add(name, OK, f"captures now; {row.path}")
        elif row.works is None:  # an interpreter the dry run would not start: maybe fine, unproven
            report.add(name, WARN, f"{row.path}: {'; '.join(row.problems)}", _joined(row.todo))
        else:
            report.add(name, FAIL, f"{row.path}: {'; '.join(row.problems) or 'not installed'}",
                       _joined(row.todo) or f"gitstore hooks install --harness {row.harness} --scope {row.scope}")


def _joined(todo: tuple[str, ...]) -> str:
    """Several things to do on one line: the commands among them (those of gitstore) set off."""
    if len(todo) < 2:
        return "".join(todo)
    return "; ".join(f"`{t}`" if t.startswith("gitstore ") else t for t in todo)


def _hook_log(report: Report, state: Path | None, root: Path | None = None) -> None:
    """The hook log's last lines: the repository's own log, or (before ``gitstore init``, or
    where hooks cannot write the state folder: a checkout mounted read-only) the lines of the
    shared log in the temporary folder that came from this repository."""
    from gitstore.capture.hooklog import LOG_NAME, away, from_folder, shared_log

    if state is not None and not os.access(state, os.W_OK):
        state = None
    moved = away(str(state.parent.parent)) if state is not None else None  # okf/.memory not ignored by git
    path = (Path(moved) if moved else state) / "logs" / LOG_NAME if state is not None else Path(shared_log())
    if path.is_symlink() or (state is not None and path.parent.is_symlink()):
        report.add("hook log", WARN, f"{path if path.is_symlink() else path.parent} is a link (a commit may have put "
                                     "it there): hooks write no line through it, and it is not read",
                   f"`rm {shlex.quote(str(path if path.is_symlink() else path.parent))}`, and remove it from the "
                   "commit that added it")
        return
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    others = ""
    if state is None and root is not None:
        own = [line for line in lines if from_folder(line, str(root))]
        others = f"; the log is shared, and its {len(lines) - len(own)} line(s) from other folders are not shown" \
            if len(own) < len(lines) else ""
        lines = own
    if not lines:
        report.add("hook log", OK, f"no hook errors logged ({path}{others})")
        return
    recent = " | ".join(lines[-LOG_LINES:])
    report.add("hook log", WARN, f"{len(lines)} line(s) in {path}{others}; last: {recent}",
               f"fix what the last lines name, then `rm {shlex.quote(str(path))}` (the log only grows"
               + ("; read the other folders' lines first)" if others else ")"))


def _given_up(report: Report, state: Path) -> None:
    """Each session whose capture the hooks gave up on (``failed-hook-*.json`` in the inbox):
    while that job is there, the hooks capture nothing of the session, and its only other trace
    is a line of a log a person may have removed; so each is named, with the import that
    captures it by hand and the ``rm`` that lets the hooks capture it again."""
    from gitstore.capture.agent_hook import FAILED_PREFIX, SPOOL_PREFIX
    from gitstore.config import git_has

    inbox = state / "inbox"
    paths = sorted(inbox.glob(f"{FAILED_PREFIX}{SPOOL_PREFIX}*.json")) if inbox.is_dir() else []
    has = git_has(inbox) if paths else None
    for path in paths:
        report.add("capture given up", WARN, *_set_aside_job(path, has))


def _held_jobs(report: Report, workspace: Any) -> None:
    """The capture jobs kept in ``.git/gitstore/held-jobs/``: each waited in the temporary
    folder while the inbox could not take it (a link on the way, not writable, or the state
    folder gone: ``git clean -x``) and failed there; the first hook run after the inbox can take jobs again retries them, and until then
    nothing else says they wait."""
    from gitstore.capture.agent_hook import HELD, SPOOL_PREFIX
    from gitstore.providers._gitdirs import common_dir

    held = common_dir(workspace.repo) / "gitstore" / HELD
    jobs = sorted(held.glob(f"{SPOOL_PREFIX}*.json")) if held.is_dir() else []
    if jobs:
        report.add("capture held", WARN, f"{len(jobs)} capture job(s) wait in {held} for okf/.memory/inbox to take "
                   "them (a symbolic link stood on the way to it, it could not be written, git did not ignore it, or "
                   "okf/.memory/ was gone)",
                   "make okf/.memory/inbox a writable folder of this clone, ignored by git, again (the links check "
                   "names a link there, the init check a rule that un-ignores it): the next hook runs capture them")


def _set_aside_job(path: Path, git_has: Callable[[Path, bytes], bool] | None) -> tuple[str, str]:
    """What doctor says of the job set aside at PATH, and what to do about it."""
    from gitstore import _jsontext
    from gitstore.capture.agent_hook import MAX_ATTEMPTS
    from gitstore.capture.hookinput import HookInput

    rm = f"`rm {shlex.quote(str(path))}`"
    try:
        raw = path.read_bytes() if not path.is_symlink() else b""
        if git_has is not None and raw and git_has(path, raw):
            return (f"{path.name} in the inbox came with a commit (git has its bytes), not from a hook of this clone: "
                    "nothing of it is used or shown", f"{rm}, and remove it from the commit that added it")
        job = _jsontext.loads(raw.decode("utf-8"))
        hook = HookInput.from_payload(job["harness"], job["payload"], job["cwd"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, GitstoreError):
        return f"{path.name} in the inbox is a job set aside that cannot be read", rm
    what = (f"the hooks gave up capturing {hook.harness} session {hook.session or '(not named)'} after "
            f"{MAX_ATTEMPTS} attempts (transcript {hook.transcript or '(not named)'}); while {path.name} is in the "
            "inbox they capture nothing of it")
    if hook.transcript is None:
        return what, f"{rm} (no transcript is named: `gitstore import transcript FILE` captures the session by hand)"
    return what, f"`gitstore import transcript {shlex.quote(str(hook.transcript))}`, then {rm}"


def _remotes(report: Report, workspace: Any) -> None:
    from gitstore._gitconfig import remotes
    from gitstore.providers._names import fetch_refspecs
    from gitstore.scope import stands_for
    from gitstore.providers._partial import filters

    repo = workspace.repo
    configured = remotes(repo)
    for name in sorted(set(filter(None, repo.remotes.names())) - configured.keys()):
        report.add(f"remote {name!r}", WARN, "a name git refuses (`git remote add` would not make it, and `git "
                   "fetch` takes it for a path): memory is never fetched from it",
                   f"`git remote rename {shlex.quote(name)} NEW-NAME`, or remove the section from .git/config")
    if not configured:
        report.add("remotes", OK, "no remote: memory stays in this clone")
    filtered = filters(repo)
    for name, remote in configured.items():
        if "/" in name or stands_for(repo, name, workspace.scope) is False:  # a fork, say
            _no_memory_remote(report, repo, name, workspace.scope)
        else:
            missing = [s for s in fetch_refspecs(name) if s not in remote.fetch_refspecs]
            report.add(f"remote {name}", WARN if missing else OK,
                       f"fetch refspecs for shared memory {'missing' if missing else 'present'}",
                       "`gitstore init` adds them" if missing else "")
            _pushes_elsewhere(report, repo, name)
        if name in filtered:
            _filtered(report, name, filtered[name])
        _pushes_every_ref(report, repo, name)
        _parted(report, workspace, name)
        _parted_histories(report, workspace, name)
        _served(report, workspace, name)
    _lacking(report, repo)
    _shallow(report, repo)
    _prefetched(report, repo)
    _push(report, workspace)


def _pushes_elsewhere(report: Report, repo: Any, remote: str) -> None:
    """A remote of this clone's scope whose push URL names another repository (a person's own
    fork, in a triangular workflow): sync pushes no memory there (``sync.remote.pushes_elsewhere``)."""
    from gitstore.scope import remote_scope
    from gitstore.sync.remote import pushes_elsewhere

    try:
        scope = remote_scope(repo, remote)
    except (GitstoreError, OSError):
        return
    found = pushes_elsewhere(repo, remote, scope) if scope is not None else None
    if found is not None:
        report.add(f"remote {remote} push", WARN, f"{found[0]}: `gitstore sync` pushes no memory to {remote}, "
                   "since memory goes only to the team's remote", found[1])


def _no_memory_remote(report: Report, repo: Any, remote: str, scope: str) -> None:
    """A remote memory is never fetched from: one that stands for another repository than this
    clone's (a contributor's fork), since memory travels only through the team's, or one whose
    name holds a slash, which the fetched namespace (one folder per remote) has no place for."""
    from gitstore.providers._gitdirs import ref_names
    from gitstore.providers._names import PREFIX, fetch_refspecs
    from gitstore.scope import scope_and_kept, stood_for
    from gitstore.sync.remote import other_repository

    about = ("its name holds a slash, which the fetched namespace (one folder per remote) has no place for"
             if "/" in remote else f"stands for {stood_for(repo, remote)}, another repository than this "
             f"clone's {scope}")
    present = [s for s in fetch_refspecs(remote) if s in repo.remotes[remote].fetch_refspecs]
    held = (other_repository(repo, remote, scope, scope_and_kept(repo)[1]) is not None
            and ref_names(repo, f"{PREFIX}remotes/{remote}/"))
    if held:  # what an older init's refspecs brought: read as the team's until init or sync drops it
        report.add(f"remote {remote}", WARN, f"{about}, and this clone holds memory of {len(held)} ref(s) a plain "
                   "`git fetch` brought from it, read as the team's: whoever owns it wrote it, with no access to "
                   "the team's remote", "`gitstore init` (or `gitstore sync`) drops it")
    elif present:
        report.add(f"remote {remote}", WARN, f"{about}, and has memory's fetch refspecs: a plain `git fetch` from "
                   "it brings memory no read should take", "`gitstore init` takes them off")
    else:
        report.add(f"remote {remote}", OK, f"{about}: a plain `git fetch` from it brings no memory")


def _filtered(report: Report, remote: str, spec: str) -> None:
    """A remote whose fetches leave objects out (a partial clone's): a plain ``git fetch`` brings
    other clones' memory without the objects it is made of, which reads leave out until a sync
    fetches them (git fetches a left-out object when git needs it, and gitstore reads them itself)."""
    name = shlex.quote(remote)
    report.add(f"remote {remote}", WARN,
               f"fetches with the filter {spec} (a partial clone): a plain `git fetch {name}` brings other clones' "
               "memory without its objects, and reads leave that memory out until they are fetched",
               f"`gitstore sync {name}` fetches memory whole; to fetch it with git, `git fetch --no-filter {name}`")


def _lacking(report: Report, repo: Any) -> None:
    """In a partial clone, the objects of other clones' memory fetched here and not yet read that
    the clone does not hold (what was admitted was read whole)."""
    from gitstore.providers._admit import ANCHORS
    from gitstore.providers._gitdirs import ref_targets
    from gitstore.providers._names import PREFIX
    from gitstore.providers._partial import is_partial, missing_objects

    if not is_partial(repo):
        return
    fetched, admitted = ref_targets(repo, f"{PREFIX}remotes/").values(), ref_targets(repo, ANCHORS).values()
    lacking = missing_objects(repo, fetched, admitted)
    if lacking:
        report.add("partial clone", WARN, f"{len(lacking)} object(s) of other clones' memory fetched here are not in "
                                          "this partial clone (a plain `git fetch` leaves them out): reads leave that "
                                          "memory out", "`gitstore sync` fetches them")


def _prefetched(report: Report, repo: Any) -> None:
    """Payload snapshots memory let go that git's prefetch (``git maintenance``, Scalar) keeps
    reachable under ``refs/prefetch/memory/``: text a redaction removed stays in this clone's
    objects through them until ``gitstore gc`` deletes them."""
    from gitstore.providers._gc_git import prefetched_let_go

    kept = prefetched_let_go(repo)
    if kept:
        report.add("prefetched memory", WARN, f"{len(kept)} ref(s) git's prefetch (`git maintenance`) made of memory "
                                              f"keep payload snapshots memory let go ({kept[0]}"
                                              f"{', ...' if len(kept) > 1 else ''}): text a redaction removed may "
                                              "stay in this clone's objects through them",
                   "`gitstore gc` deletes them (git's next prefetch makes them again) and erases that text")


def _shallow(report: Report, repo: Any) -> None:
    """Memory histories a fetch or clone with ``--depth`` cut short: reads leave them out (this
    clone's own refuse every read) until a sync fetches them whole. Those a sync could not
    deepen are named among the fetched memory left out, with their own way out."""
    from gitstore.providers._gitdirs import ref_targets
    from gitstore.providers._names import PREFIX
    from gitstore.providers._shallow import cut_refs, unmended_tips

    cut = sorted(cut_refs(repo, PREFIX))
    if cut:  # those a sync could not deepen are named as left out, with their own way out
        tips, unmended = ref_targets(repo, PREFIX), unmended_tips(repo)
        cut = [ref for ref in cut if unmended.get(ref) != str(tips.get(ref))]
    if cut:
        report.add("shallow memory", WARN, f"{len(cut)} memory ref(s) have a history a fetch or clone with `--depth` "
                                           f"cut short ({cut[0]}{', ...' if len(cut) > 1 else ''}): reads leave "
                                           "that memory out, and this clone's own refuse every read", DEEPENS)


def _parted_histories(report: Report, workspace: Any, remote: str) -> None:
    """The histories of other writers fetched from ``remote`` that their ref parted from (someone
    with push access forced the writer's ref onto another history while this clone read it),
    each kept and read beside the remote's (see ``_admit``): a warning per writer, however many
    there are, since only the writer can say which side is theirs, and only a purge drops what
    was read from the other."""
    from gitstore.providers._admit import parted_writer_line
    from gitstore.providers._gitdirs import ref_names
    from gitstore.providers._names import PREFIX, fetched_line

    folder = f"{PREFIX}remotes/{remote}/parted/shared/"
    tips: dict[str, list[str]] = {}
    for name in ref_names(workspace.repo, folder):
        line = fetched_line(name)
        if line is not None:
            tips.setdefault(line[1], []).append(name.rsplit("/", 1)[-1])
    for writer, kept in sorted(tips.items()):
        report.add(f"remote {remote}", WARN, parted_writer_line(writer, kept, f"{folder}{writer}/"),
                   f"ask whoever writes as {writer} which tip is theirs; once the remote holds their own history, "
                   "`gitstore sync`, `gitstore purge`, `gitstore init` and `gitstore sync` again drop what was "
                   "read from the fork; purge also erases this clone's personal sessions, which no sync keeps, "
                   "so leave it be if they matter: a forged append carries no authority unless someone signed it")


def _served(report: Report, workspace: Any, remote: str) -> None:
    """A payload snapshot of one of this clone's ids (its own, or one it left with ``init
    --new-writer``) that ``remote`` still served, at the last sync, with text a removal
    honoured here took: whoever fetches it has that text, until a sync pushes this clone's
    snapshot without it (one was refused, or the remote moved past its lease)."""
    from gitstore.config import former_writers, writers_of_other_trees
    from gitstore.providers._gitdirs import common_dir
    from gitstore.sync.remote import served_removed

    served = served_removed(common_dir(workspace.repo) / "gitstore").get(remote, {})
    if not served:
        return
    busy = writers_of_other_trees(workspace.repo)
    ids = {workspace.config.writer, *(w for w in former_writers(workspace.state) if w not in busy)}
    for writer, held in sorted((w, d) for w, d in served.items() if w in ids):
        report.add(f"remote {remote}", WARN,
                   f"writer {writer}'s payload snapshot on {remote}, one of this clone's, holds {len(held)} payload(s) "
                   f"a removal took (first {held[0] if held else '?'}), as the last `gitstore sync {remote}` found it: "
                   f"{remote} serves that text to whoever fetches it",
                   f"`gitstore sync {remote}` pushes this clone's snapshot without it; where {remote} refuses that "
                   f"push, someone with push access replaces refs/memory/v1/payloads/shared/{writer} there")


def _parted(report: Report, workspace: Any, remote: str) -> None:
    """This writer's records and the remote's copy of them have parted (another clone appended
    as the same writer, or someone with push access did): every sync's push is refused until
    this clone takes an id of its own. The remote's copy is the one admitted here, or, when sync
    refused what it fetched last, the tip it holds in quarantine (the admitted one stays at an
    older tip, which this clone's history still holds)."""
    import pygit2

    from gitstore.providers._names import QUARANTINE
    from gitstore.providers._objects import peeled

    writer = workspace.config.writer
    repo = workspace.repo
    copies = (f"refs/memory/v1/remotes/{remote}/records/shared/{writer}",
              f"{QUARANTINE}{remote}/records/shared/{writer}")
    try:
        mine = repo.references.get(f"refs/memory/v1/records/shared/{writer}")
        if mine is None:
            return
        found = [(name, peeled(repo, ref.target))  # a tag of this clone's tip parts from nothing: sync mends it
                 for name, ref in ((n, repo.references.get(n)) for n in copies) if ref is not None]
        parted = [(name, tip) for name, tip in found if tip != mine.target and not repo.descendant_of(mine.target, tip)]
    except (pygit2.GitError, ValueError):
        return
    if not parted:
        return
    name, tip = parted[-1]
    held = f" (the tip it fetched last, {str(tip)[:12]}, is held in quarantine as {name})" \
        if name.startswith(QUARANTINE) else ""
    report.add(f"remote {remote}", FAIL,
               f"{remote}'s history of this clone's writer {writer} is not in this clone's{held}: appends this clone "
               f"never made, by another clone writing as {writer} too or by someone with push access, and every "
               f"`gitstore sync {remote}` refuses to push (never forcing)",
               "`gitstore init --new-writer` gives this clone an id of its own (what it stored as the old one stays "
               "here, read as before, and its appends the remote lacks are carried over to the new id, so that "
               "sync sends them)")


def _unfinished(report: Report, state: Path) -> None:
    """The commands of several steps killed midway (``gitstore.ops.unfinished``), each with the
    command that finishes it."""
    from gitstore.ops.unfinished import notes

    for note in notes(state):
        report.add("unfinished", FAIL if note.state == FAIL else WARN, note.what, note.todo)


def _ref_locks(report: Report, repo: Any) -> None:
    """The ref locks under ``refs/memory/`` a process killed while it moved a ref left
    (``stale_ref_locks``: older than any live one), each with what removes it: a sync those in
    the folders it moves, the next append this writer's own, which each waits out and removes;
    and git's own ``packed-refs.lock`` so left, which a person removes."""
    from gitstore.providers._gitdirs import STALE_LOCK_SECONDS, common_dir, stale_ref_locks
    from gitstore.providers._incoming import SYNC_MOVES

    root = common_dir(repo)
    for lock in stale_ref_locks(repo, "refs/memory/"):
        ref = lock.relative_to(root).as_posix()
        todo = ("`gitstore sync` removes it" if ref.startswith(SYNC_MOVES) else
                "the next append to that ref (any gitstore write to it) removes it")
        report.add("ref locks", WARN, f"{lock} was left by a process killed while it moved {ref[:-len('.lock')]}: "
                                      "git cannot move that ref while it is there",
                   f"{todo}, or remove it: `rm {shlex.quote(str(lock))}`")
    packed = root / "packed-refs.lock"  # git's own: no gitstore command removes it
    with suppress(OSError):
        if time.time() - packed.stat().st_mtime > STALE_LOCK_SECONDS:
            report.add("ref locks", WARN, f"{packed} was left by a git process killed while it rewrote packed-refs: "
                                          "git cannot delete a packed ref while it is there (a sync fails)",
                       f"once no git command runs in this repository, remove it: `rm {shlex.quote(str(packed))}`")


def _published(report: Report, root: Path, state: Path) -> None:
    """Whether the files ``gitstore publish`` wrote hold what it would write now: one listing a
    learning it would not write gives agents what is not in force (fail), and so does a line in
    a section that no publish writes, judged as the promotion gate judges one a commit adds (a
    line pushed there by hand, its digest made to match, under a header saying a person accepted
    it); and whether the last publish was killed before it wrote every file (warn)."""
    from gitstore.context import Context
    from gitstore.deliver.publish import CLAUDE, COPILOT, named, standing
    from gitstore.deliver.snapshots import interrupted

    killed = interrupted(root, state)
    if killed is not None:  # a file it was creating is written again only when asked for
        asked = "".join(f" {flag}" for path, flag in ((CLAUDE, "--claude"), (COPILOT, "--copilot"))
                        if path in killed[1])
        report.add("published files", WARN, f"the publish of {killed[0]} was stopped before it wrote "
                   f"{', '.join(killed[1])}", f"gitstore publish{asked}")
    try:
        found = standing(Context.open(str(root)))
    except GitstoreError as exc:
        report.add("published files", WARN, f"cannot tell whether they are current: {exc}",
                   "`gitstore verify` names what is damaged")
        return
    for why in found.problems:
        report.add("published files", WARN, f"cannot be brought up to date: {why}",
                   "fix what it names, then `gitstore publish`")
    blocked = {why.split(":", 1)[0] for why in found.problems}
    if found.not_in_force:
        ids = sorted({i for listed in found.not_in_force.values() for i in listed})
        report.add("published files", FAIL, f"{', '.join(found.not_in_force)} give agents {len(ids)} learning(s) "
                   f"no longer in force or no longer published: {named(ids)}",
                   _republish(blocked & set(found.not_in_force)))
    for path, ids in found.outside.items():
        report.add("published files", FAIL, f"{path} names {len(ids)} learning(s) no longer in force or no longer "
                   f"published outside the section gitstore publish writes, where agents read them all the same: "
                   f"{named(ids)}", f"take them out of {path} by hand (no publish rewrites the text outside the "
                   "section), then `gitstore publish`")
    for path, lines in found.unwritten.items():
        report.add("published files", FAIL, f"{path} gives agents {len(lines)} line(s) in the section whose header "
                   f"says a person accepted them, which gitstore publish never writes: {_shown(lines)}",
                   _republish(blocked & {path}))
    for path, lines in found.unmarked.items():  # an earlier gitstore's own publish, not a hand edit
        report.add("published files", WARN, f"{path} gives agents {len(lines)} line(s) written before look-alike "
                   f"words were marked or before agents got a learning's text alone, not as gitstore publish "
                   f"writes them now: {_shown(lines)}",
                   _republish(blocked & {path}))
    if found.not_in_force or found.outside or found.unwritten or found.unmarked:
        return  # publishing again mends what the files lack as well
    headed = set(found.earlier_header)
    if headed:
        report.add("published files", WARN, f"{', '.join(found.earlier_header)}: the section keeps the header "
                   "an earlier gitstore wrote, which sends agents for a learning's text where it is not "
                   "(`gitstore show`, the reviewer's view, or `gitstore recall --json`, which takes a query); "
                   "gitstore publish rewrites it", "gitstore publish")
    others = [path for path in found.behind if path not in found.only_header]
    if others:
        report.add("published files", WARN, f"{', '.join(others)} differ from what gitstore publish would write now "
                   f"(learnings accepted or changed since{', besides the header' if headed & set(others) else ''})",
                   "gitstore publish")
    if not found.behind and found.published and not found.problems and killed is None:
        report.add("published files", OK, f"{', '.join(found.published)} hold what gitstore publish would write")


SHOWN_LINES = 5  # of a published file's lines no publish writes: the rest are counted


def _shown(lines: list[str]) -> str:
    """The first ``SHOWN_LINES`` of ``lines``, and how many more there are."""
    more = len(lines) - SHOWN_LINES
    return "; ".join(lines[:SHOWN_LINES]) + (f"; and {more} more" if more > 0 else "")


def _republish(blocked: set[str]) -> str:
    """What to do about published files that give agents what they should not: publish again,
    once what blocks it in ``blocked`` (a section edited by hand) is fixed."""
    if blocked:
        return f"fix what the warning above names in {', '.join(sorted(blocked))}, then `gitstore publish`"
    return "gitstore publish"


def _promoted(report: Report, root: Path) -> None:
    """Whether each promoted block in the work tree's wiki and skills still holds an accepted
    learning in force: a block stays when its learning leaves force (removing one needs no
    promotion commit, so nothing removes it for you), and whether each promoted skill is still
    what promote wrote (``judge_skills``). Said only where there are blocks or skills naming a
    learning, and the store is read only then, once."""
    from gitstore.context import Context
    from gitstore.promote.standing import IN_FORCE, NOT_IN_FORCE, UNKNOWN, judge_skills, judge_work_tree, read_once

    name = "promoted blocks"
    learnings = read_once(lambda: Context.open(str(root)).store)
    try:
        found = judge_work_tree(root, learnings)
        skills = judge_skills(root, learnings)
    except GitstoreError as exc:
        report.add(name, WARN, f"cannot tell whether they hold learnings in force: {exc}",
                   "`gitstore verify` names what is damaged")
        return
    for judged in found:
        if judged.state == NOT_IN_FORCE:
            report.add(name, FAIL, f"{judged.where}: the promoted block of {judged.learning} gives agents a learning "
                       f"not in force: {judged.why}", judged.todo)
        elif judged.state != IN_FORCE:  # no such learning here (fail), or not its accepted text (warn)
            report.add(name, FAIL if judged.state == UNKNOWN else WARN, f"{judged.where}: {judged.why}", judged.todo)
    if found and all(j.state == IN_FORCE for j in found):
        files = len({j.path for j in found})
        report.add(name, OK, f"the {len(found)} promoted block(s) in {files} file(s) of okf/wiki/ and .agents/skills/ "
                   "hold accepted learnings in force")
    for judged in skills:  # agents load a skill whole: allowed-tools and instructions as much as its block
        report.add("promoted skills", WARN, f"{judged.where}: {judged.why}", judged.todo)


def _case_twins(report: Report, repo: Any) -> None:
    """Files of the index's ``okf/wiki/`` and ``.agents/skills/`` whose paths differ only in
    case (``case_twins``): git keeps both, a checkout that ignores case (macOS, Windows) one,
    so the page or skill agents read there may not be the one reviewed or promoted. Read from
    the index, which lists both wherever the work tree holds one. Said only where there is such
    a pair; where one of them holds a promoted block, the advice takes out one that holds none."""
    import pygit2

    from gitstore.promote.blocks import MARKER_START
    from gitstore.promote.standing import case_twins

    try:
        entries = {entry.path: entry.id for entry in repo.index}
    except (pygit2.GitError, ValueError, OSError):
        return
    for group in case_twins(entries):
        promoted = [path for path in group if _holds(repo, entries[path], MARKER_START.encode())]
        other = next((path for path in group if path not in promoted), None) if promoted else None
        todo = "rename or delete all but one of them in a commit"
        if other is not None:
            todo += (f" (`git rm --cached -- {shlex.quote(':/' + other)}` takes {other}, which holds no promoted block, "
                     "out of the index and leaves the file on disk)")
        report.add("wiki and skills", FAIL, f"{' and '.join(group)} differ only in case or Unicode form: a checkout "
                   "that ignores case (macOS, Windows) keeps one of them, so agents may read either, whatever was "
                   "reviewed or promoted", todo)


def _holds(repo: Any, oid: Any, text: bytes) -> bool:
    """Whether the blob ``oid`` of ``repo`` holds ``text`` (False when it cannot be read)."""
    try:
        return text in repo[oid].data
    except (KeyError, ValueError, AttributeError):
        return False


def _snapshots(report: Report, root: Path, state: Path) -> None:
    """Whether the GitHub snapshots ``import github`` saved here still hold text memory removed
    (a redaction made on another clone, fetched and not yet applied by a sync); said only where
    there are snapshots, and the files are read only when a redaction is pending."""
    from gitstore.capture.saved import saved_anywhere
    from gitstore.ops.snapshots import still_held

    if saved_anywhere(state):
        _still_holding(report, root, "github snapshots", still_held, (
            "the snapshots import github saved reflect every redaction in memory",
            "saved snapshot(s)", "comment(s)",
            "`gitstore sync` applies the redactions it brought; or `gitstore redact --comment ID --reason REASON` "
            "for each comment named"))


def _exports(report: Report, root: Path, state: Path) -> None:
    """Whether the export files of this clone (``gitstore export --with-evidence``) still hold
    text memory removed (a redaction made on another clone, brought by a plain ``git fetch``
    and applied by no sync or gc yet); said only where there are exports, and the files are read
    only when a redaction is pending."""
    from gitstore.ops.export import FOLDER
    from gitstore.ops.snapshots import exports_held

    folder = state / FOLDER
    if folder.is_dir() and any(folder.iterdir()):
        _still_holding(report, root, "exports", exports_held, (
            "the export files reflect every redaction in memory", "export file(s)", "event(s)",
            "`gitstore gc` (or `gitstore sync`) rewrites them with the redaction note in place of the text"))


def _still_holding(report: Report, root: Path, name: str, held_by: Callable[[Any], dict[str, list[str]]],
                   words: tuple[str, str, str, str]) -> None:
    """The check ``name``: which files ``held_by`` finds still holding text memory removed
    (file -> ids of what it still holds). ``words``: the line when none does, what the files
    are, what the ids name, and what to do."""
    from gitstore.context import Context

    clean, files, what, todo = words
    try:
        held = held_by(Context.open(str(root)))
    except GitstoreError as exc:
        report.add(name, WARN, f"cannot tell whether they hold text memory removed: {exc}",
                   "`gitstore verify` names what is damaged")
        return
    if not held:
        report.add(name, OK, clean)
        return
    ids = sorted({i for found in held.values() for i in found})
    report.add(name, WARN, f"{len(held)} {files} still hold the text of {len(ids)} {what} memory removed "
               f"({', '.join(ids)}): {', '.join(held)}", todo)


def _pushes_every_ref(report: Report, repo: Any, name: str) -> None:
    """A push that sends every ref: a mirror deletes on the remote the writer refs of other
    clones (this clone holds them under other names, ``refs/memory/v1/remotes/``), and a
    ``refs/*`` refspec sends those copies back under those names. Each with the git command that
    removes the setting, at the level of git's configuration that holds it."""
    name_key = f"remote.{name}.mirror"
    for entry in repo.config:
        if entry.name == name_key and _true(entry.value):
            report.add(f"remote {name} push", WARN, f"a push to {name} mirrors every ref: it deletes there the "
                       "memory refs of other clones (this clone holds them under refs/memory/v1/remotes/)",
                       f"git config{_level(entry.level)} --unset-all {shlex.quote(name_key)}")
        elif entry.name == f"remote.{name}.push" and entry.value.lstrip("+").startswith("refs/*"):
            report.add(f"remote {name} push", WARN, f"the push refspec {entry.value} of {name} sends every ref: "
                       "the copies of other clones' memory fetched here go back under this clone's names for them",
                       f"git config{_level(entry.level)} --unset-all --fixed-value "
                       f"{shlex.quote(f'remote.{name}.push')} {shlex.quote(entry.value)}")


def _true(value: str | None) -> bool:
    """A git boolean: a key without a value is true."""
    return value is None or value.strip().lower() in ("true", "yes", "on", "1", "")


def _level(level: int) -> str:
    """The option of ``git config`` that writes where a setting of this libgit2 level lives."""
    import pygit2

    levels = pygit2.enums.ConfigLevel
    if level in (levels.GLOBAL, levels.XDG):
        return " --global"
    if level == levels.WORKTREE:
        return " --worktree"
    return " --system" if level in (levels.SYSTEM, levels.PROGRAMDATA) else ""


def _push(report: Report, workspace: Any) -> None:
    from gitstore.providers._gitdirs import state_dir
    from gitstore.providers._tips import foreign_refs, unmade
    from gitstore.providers.git import PREFIX, discover_refs, misplaced_refs, stray_local_refs

    refs = discover_refs(workspace.repo)
    pushed = [i.name for i in refs if i.namespace == "shared" and i.writer == workspace.config.writer
              and i.name.startswith(PREFIX + "records/")]
    kept = [i.name for i in refs if i.namespace == "local" and not i.misplaced]
    misplaced = misplaced_refs(workspace.repo)
    foreign = foreign_refs(workspace.repo, state_dir(workspace.repo), workspace.config.writer)
    if foreign:
        report.add("push", WARN, "another writer's memory fetched into this clone's own names: "
                   f"{', '.join(foreign)}; none of its appends counts as this clone's own",
                   "remove with " + "; ".join(f"`git update-ref -d {ref}`" for ref in _with_payloads(workspace.repo, foreign))
                   + " (`gitstore sync` fetches other clones' memory where it is verified before it is read)")
    stray = stray_local_refs(workspace.repo)
    if stray:
        report.add("push", WARN, f"another clone's personal memory fetched into this clone's own names: {', '.join(stray)}; "
                   "it is never read here", "remove with " + "; ".join(f"`git update-ref -d {ref}`" for ref in stray))
    for ref, count in unmade(workspace.repo, state_dir(workspace.repo), workspace.config.writer):
        report.add("push", WARN, f"{count} append(s) on {ref} were made by another clone under this clone's writer "
                   "id, and a plain fetch into this clone's own names moved the ref on to them: none counts as this "
                   "clone's own", f"`git log {ref}` shows them; a push of memory sends them on as they are")
    if misplaced:
        report.add("push", WARN, f"{len(misplaced)} ref(s) of personal sessions are in the repository's own refs, "
                   f"where a push can send them: {', '.join(misplaced)}", "`gitstore init` moves them into "
                   ".git/gitstore/local, which no push reaches")
    if "origin" in workspace.repo.remotes.names():
        from gitstore.sync.remote import scope_refusal

        refused = scope_refusal(workspace.repo, "origin", workspace.config.writer, workspace.scope)
        if refused is not None:  # the check sync makes before it pushes
            report.add("push", FAIL, *refused)
            return
    report.add("push", OK, (f"a push of memory sends {', '.join(pushed)} and its payloads" if pushed
                            else "nothing of this clone's memory to push yet")
               + (f"; {len(kept)} local ref(s) of personal sessions are never pushed" if kept else ""))


def _with_payloads(repo: Any, refs: list[str]) -> list[str]:
    """Records refs, each followed by its payload snapshot ref when the repository has one."""
    found = []
    for ref in refs:
        found.append(ref)
        snapshot = ref.replace("/records/", "/payloads/", 1)
        if snapshot in repo.references:
            found.append(snapshot)
    return found


__all__ = ["Check", "Report", "doctor"]
