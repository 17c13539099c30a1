"""Setting gitstore up in a repository (``init``); ``gitstore.queries.status`` describes its state."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable
from typing import Any

import pygit2

from gitstore import _jsontext
from gitstore._sshhost import keep_held
from gitstore._files import first_link, held, ignore_within, links_under
from gitstore._gitconfig import remotes
from gitstore._shown import one_line, shown
from gitstore.config import (CONFIG_FILE, CONFIG_NAME, DURABLE, FORMER_NAME, STATE_DIR, Config, accept_config,
                             changed_since_init, config_bytes, copied_from, guarded_by, ensure_ignored, foreign, git_ignores, forget_former, from_git, former_writers, keep_former, keep_home,
                             new_writer_id, not_a_file, note_gone, parse_config, renew_writer, set_up_elsewhere,
                             set_up_here, tracked_under, unignoring_rule, write_config, writers_of_other_trees)
from gitstore.errors import IntegrityError, InvalidInput, Refused, UsageError
from gitstore.providers import open_provider
from gitstore.providers._gitdirs import common_dir, ref_names, state_dir
from gitstore.providers._names import QUARANTINE, fetch_refspecs
from gitstore.providers.git import PREFIX, WRITER_PATTERN, GitProvider
from gitstore.scope import (declared_former, keep_scope, open_repository, same_scope, scope_kept_gone, scope_note,
                            stands_for, stood_for)

STATE_FOLDERS = ("inbox", "logs", "exports")


@dataclass
class Accepted:
    """A field of config.json (``dream.labelers``) that init took as changed since it last took
    the file, with the value it holds now (``removed``: none, the field is gone)."""

    field: str
    value: Any = None
    removed: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "value": self.value, "removed": self.removed}

    def shown(self) -> str:
        """The field and its value now, on one line: JSON with every control character and
        every non-ASCII one escaped, and each program a labeler runs spelled out as its argv."""
        name = shown(one_line(self.field))  # a section's field names are anyone's to choose
        if self.removed:
            return f"{name} removed"
        text = f"{name} = {json.dumps(self.value, sort_keys=True)}"
        runs = [shown(one_line(shlex.join(argv))) for argv in _argvs(self.field, self.value)]
        return text + "".join(f" (runs `{argv}`)" for argv in runs)


def _argvs(name: str, value: Any) -> list[list[str]]:
    """The argv of each labeler that the field ``name`` of config.json, holding ``value``, has a
    dream run (``dream.labelers``, or the ``dream`` section as a whole)."""
    if name == "dream" and isinstance(value, dict):
        name, value = "dream.labelers", value.get("labelers")
    if name != "dream.labelers" or not isinstance(value, dict):
        return []
    return [options["argv"] for _, options in sorted(value.items()) if isinstance(options, dict)
            and isinstance(options.get("argv"), list) and all(isinstance(arg, str) for arg in options["argv"])]


def accepted_fields(data: bytes, names: list[str]) -> list[Accepted]:
    """The fields ``names`` (``changed_since_init``) of config.json's bytes ``data``, each with
    the value it holds."""
    try:
        now = _jsontext.loads(data)
    except ValueError:
        now = None
    found = []
    for name in names:
        key, _, part = name.partition(".")
        holder = now.get(key) if isinstance(now, dict) and part else now
        if isinstance(holder, dict) and (part or key) in holder:
            found.append(Accepted(name, holder[part or key]))
        else:
            found.append(Accepted(name, removed=True))
    return found


@dataclass
class InitReport:
    root: Path
    scope: str
    writer: str
    provider: str
    created: list[str] = field(default_factory=list)
    note: tuple[str, str] | None = None  # about the scope, and what mends it (``gitstore.scope.scope_note``)
    # appends of an old writer id that could not be carried over; a remote left without
    # memory's fetch refspecs
    left: list[str] = field(default_factory=list)
    # each field of config.json init took as changed since it last took the file (``Accepted``)
    accepted: list[Accepted] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"root": str(self.root), "scope": self.scope, "writer": self.writer,
                "provider": self.provider, "created": self.created, "left": self.left,
                "accepted": [item.to_json() for item in self.accepted],
                "note": {"about": self.note[0], "todo": self.note[1]} if self.note else None}


# What a change to config.json must be accepted for by name (``accept_changes``): whose records
# these are (and whether sync takes the remote's history under the writer id as this clone's),
# where they are kept, what runs a program or accepts learnings unasked, what the
# loop runs on a schedule and as whom (its steps' folders, remotes and repositories), and how
# much of a session capture keeps. ``delivery`` is not among them: it can only lower the
# ceilings on what reaches agents, or switch delivery off (``gitstore.deliver.limits``).
GUARDED = ("writer", "writerGiven", "provider", "dream.labeler", "dream.labelers", "dream.consolidator",
           "dream.consolidators", "automation", "loop", "capture")


INIT_LOCK = "init.lock"  # in the common git folder's gitstore/: one init at a time in a repository


def init(start: str | Path = ".", provider: str | None = None, writer: str | None = None,
         new_writer: bool = False, accept_changes: bool = False,
         check: Callable[[Config], None] | None = None) -> InitReport:
    """Set gitstore up in the repository containing ``start``; safe to run again.

    One init at a time in a repository (``INIT_LOCK``; two ``hooks install`` of a project's
    harnesses each run one): two at once each found no configuration, each wrote one with a
    writer id of its own and said it was the clone's, and only the last written held; both
    added the refspecs git's configuration lacked (one twice), or one failed on the local
    namespace's configuration the other was writing. The second now waits, then finds the
    first's configuration and takes it.

    ``check`` reads a configuration init is about to take as the commands it configures read
    it (``gitstore init``: the loop's steps, the dream's settings), refusing it as they would.

    Over a config.json whose writer, provider, labeler or automation changed since init last
    took the file (``GUARDED``; a person's edit and a patch look alike, ``git apply`` leaves git
    no trace), init refuses, naming them, unless ``accept_changes``: a person then takes what
    they read, never what a command's advice to run init had them take unseen.

    ``writer`` names this clone's writer instead of a fresh random id: a CI job that appends
    from a new checkout each run keeps one writer (and one ref) across runs. ``new_writer``
    gives a clone already set up a new writer id (``writer``, or a fresh one): a copied folder
    whose original still writes under the id they share, or one whose history someone with push
    access appended to. What the clone stored under its old id stays where it is, read as
    before, and ``gitstore sync`` still pushes that history where the remote's copy of it is
    behind, never over it; the appends the remote's copy parted from are carried over to the
    new id (``GitProvider.carry_stranded``), so that they reach the team."""
    if provider is not None and provider not in DURABLE:  # memory: records for one process, never a clone's
        raise UsageError(f"unknown provider {provider!r} (one of {', '.join(DURABLE)})")
    if writer is not None and not WRITER_PATTERN.match(writer):
        raise UsageError(f"--writer {writer!r} must be 1 to 64 lowercase letters, digits and dashes")
    repo = open_repository(start)
    with held(state_dir(repo) / INIT_LOCK):
        return _init(repo, provider, writer, new_writer, accept_changes, check)


def _init(repo: pygit2.Repository, provider: str | None, writer: str | None, new_writer: bool, accept_changes: bool,
          check: Callable[[Config], None] | None) -> InitReport:
    """``init`` in ``repo``, under its lock."""
    root = Path(repo.workdir).resolve()
    state = root / STATE_DIR
    config_path = state / CONFIG_NAME
    here = set_up_here(repo, _existing(config_path))  # before anything below records that init ran
    scope, before, gone = scope_kept_gone(repo)
    if gone is not None:  # origin moved: its memory goes on under the scope kept
        note_gone(gone, scope)
    report = InitReport(root, scope, "", provider or "git", note=scope_note(repo))
    link = first_link(root, STATE_DIR.as_posix())
    if link is not None:  # a commit can put one there: init would write, and have git ignore, where it points
        where = link.resolve()
        raise Refused(f"{link} links {'outside the repository' if root not in where.parents else 'elsewhere in it'} "
                      f"({where}); gitstore keeps its state in a folder of its own, never through a link: "
                      "refusing to write there")
    _refuse_tracked(root, state)
    _refuse_links(root, state)
    made = _missing(state)
    state.mkdir(parents=True, exist_ok=True)
    try:
        if ensure_ignored(repo, root, state):
            report.created.append(f"ignore rule for {STATE_DIR.as_posix()}/ in .git/info/exclude")
    except Refused:  # a .gitignore line un-ignores it: a clone set up before has what it keeps there ignored still
        if made or not _ignore_within(root, report) or not git_ignores(root, state):
            _remove_empty(made)  # refused: the work tree is left as it was found
            raise
    for name in STATE_FOLDERS:
        (state / name).mkdir(exist_ok=True)
    _ignore_within(root, report)
    _name_unignoring(root, state, report)
    data = _existing(config_path)
    renewed = False
    here = here or set_up_elsewhere(repo, data)
    if data is not None and (not here or foreign(repo, config_path, data)):
        config = _own_instead(repo, root, config_path, parse_config(config_path, data), provider, writer, report,
                              "came through git (a commit, a checkout or `git add`)"
                              if from_git(repo, config_path, data) else "was there before this clone ever ran "
                              "`gitstore init` (a patch or a copy put it there)")
    elif data is not None:
        config = parse_config(config_path, data, repo)
        changed = changed_since_init(repo, data)
        guarded = [name for name in changed if guarded_by(name, GUARDED)]
        if guarded and not accept_changes:
            now = "; ".join(item.shown() for item in accepted_fields(data, guarded))
            raise Refused(f"{config_path}: {', '.join(guarded)} changed since this clone's `gitstore init` last took "
                          f"the file (a person's edit, or a patch: `git apply` writes it and leaves git no trace), now "
                          f"{now}; read the file, and if you made these changes, run `gitstore init --accept-changes`; "
                          "otherwise put back what was there")
        if check is not None:
            check(config)  # a section its command would refuse is never taken
        if provider is not None and provider != config.provider:
            raise Refused(
                f"this clone already uses the {config.provider} provider; "
                f"changing it would hide stored records"
            )
        copied = copied_from(root, state, config.writer)
        rescoped = _rescoped(repo, config, scope, before)
        if rescoped and not new_writer and copied is None and writer == config.writer:
            raise Refused(f"--writer {writer}: this clone's scope becomes {scope}, and {writer} holds records of "
                          f"{before}, which no clone of {scope} admits, so a sync would push nothing {writer} stores "
                          "from now on: name another id, or leave --writer out for a fresh one")
        renewing = new_writer or copied is not None or rescoped
        if not renewing and writer is not None and writer != config.writer:
            raise Refused(f"this clone already writes as {config.writer}; a second writer id would split its "
                          "records (`--new-writer` gives a copied folder an id of its own)")
        accept_config(repo, data)  # a person ran init over it, refused nothing: its settings are this clone's
        report.accepted = accepted_fields(data, changed)
        if "provider" in changed:  # the records the provider before it holds stay there, unread
            report.left.extend(f"{detail}; {todo}" for detail, todo in unread_stores(repo, root, state, config.provider,
                                                                                      config.writer))
        if renewing:
            config = _renew(repo, root, config, writer, report, copied, before if rescoped else None)
            renewed = True
    else:
        _refuse_lost_store(repo, root, state)
        config = Config(writer=writer or new_writer_id(), provider=provider or "git", writer_given=writer is not None)
        write_config(repo, config_path, config)
        keep_home(state, root)
        report.created.append(f"{STATE_DIR.as_posix()}/{CONFIG_NAME} (writer {config.writer})")
    _keep_scope(repo, scope, before, report)  # once the configuration and its copy are: a refused init keeps none
    keep_held(state_dir(repo))  # ssh's answer for origin's host, asked before there was a folder to keep it in
    report.writer, report.provider = config.writer, config.provider
    report.created.extend(_add_refspecs(repo, scope, report))
    _release_gone_remotes(repo, report)
    _drop_other_repositories(repo, scope, before, report)
    opened = _open_store(config, root, state, replaced=data is not None and not here)
    try:
        _set_up_store(opened, state, repo, renewed, report, scope)
    finally:
        getattr(opened, "close", lambda: None)()  # an sqlite store's connection, at once: see below
    if writer is not None and config.provider == "git":
        _take_up_records(repo, config.writer, report)
        _take_up_snapshot(repo, config.writer, report)
    return report


def _take_up_records(repo: pygit2.Repository, writer: str, report: InitReport) -> None:
    """The records history of the writer named (``init --writer``) found in this clone's own
    names (where the memory workflow's git-only setup step moves the remote's), taken up as
    this clone's own, as a sync takes it up (``_tips.take_up``): only by a clone that never
    logged a move of that ref."""
    from gitstore.providers._incoming import ref_tip
    from gitstore.providers._tips import take_up

    ref = f"{PREFIX}records/shared/{writer}"
    tip = ref_tip(repo, ref)
    if tip is not None and take_up(state_dir(repo), ref, tip):
        report.created.append(f"writer {writer}'s records history found in this clone's own names, taken up as its own")


def _take_up_snapshot(repo: pygit2.Repository, writer: str, report: InitReport) -> None:
    """A runner without ``gitstore sync`` (the memory workflow's git-only setup step takes the
    remote's records history of its named writer up as its own before ``init --writer``):
    the payload snapshot a plain fetch put beside it is taken up too, once checked as sync
    checks it (``_admit.check_snapshot``: a parentless commit holding no notes, each payload
    matching its digest), so every later append extends it. Anyone who can push may force
    that ref; one that fails the check stays where the fetch put it and is named (a ``left``
    line): taken up, an import would die reading a payload that is not what its digest says.
    Nothing while this writer's records are not taken up, or a snapshot of its own is there."""
    from gitstore.providers._admit import check_snapshot
    from gitstore.providers._incoming import ref_tip

    own_records, own = f"{PREFIX}records/shared/{writer}", f"{PREFIX}payloads/shared/{writer}"
    if ref_tip(repo, own_records) is None or ref_tip(repo, own) is not None:
        return
    for remote in sorted(str(name) for name in repo.remotes.names()):
        fetched_ref = f"{PREFIX}remotes/{remote}/payloads/shared/{writer}"
        fetched = ref_tip(repo, fetched_ref)
        if fetched is None:
            continue
        problem = check_snapshot(repo, None, fetched, lambda dropped: set()).problem
        if problem is not None:
            report.left.append(f"writer {writer}'s payload snapshot on {shown(remote)} out, not taken up: "
                               f"{one_line(shown(problem))}")
            continue
        repo.references.create(own, fetched)
        repo.references.delete(fetched_ref)
        report.created.append(f"writer {writer}'s payload snapshot from {shown(remote)}, checked")
        return


def _keep_scope(repo: pygit2.Repository, scope: str, before: str | None, report: InitReport) -> None:
    """Keep ``scope`` as the one this clone's memory is under (``before``: the one kept until
    now). Kept last, after the configuration and the copy init accepted: a clone set up by a
    version that kept no copy has the kept scope say that init ran (``config.set_up_here``),
    which an init refused on its way must never leave behind."""
    if same_scope(before, scope):
        return
    try:
        keep_scope(repo, scope)
    except (OSError, pygit2.GitError):
        raise Refused(f"could not record the scope in {common_dir(repo) / 'config'} (read-only, or locked "
                      "by another git: a config.lock beside it); run `gitstore init` again once it can be "
                      "written") from None
    if before is not None and not before.startswith("local/") and not scope.startswith("local/"):
        declared = any(same_scope(before, old) for old in declared_former(repo, scope)[0])
        report.created.append(f"scope {scope} for this clone's memory from now on (" + (
            f"what it stored under {before} is read too: the default branch declares it a former scope of this "
            "repository)" if declared else f"what it stored under {before} is not read under it, nor is the "
            f"team's memory of {before}, until the default branch declares {before} a former scope of this "
            "repository: `gitstore scope formerly " + shlex.quote(before) + "`, committed and merged there, declares it)"))
    elif before is not None:
        report.created.append(f"scope {scope} for this clone's memory from now on (what it stored under {before} "
                              "stays, unread: a session can be captured again with `gitstore import transcript "
                              "FILE`, grants and decisions made again)")


def lost_stores(repo: pygit2.Repository, state: Path) -> list[tuple[str, int, Path, bool]]:
    """The work-tree stores this clone's git folder says its appends were acknowledged in: the
    provider, how many appends, the store's file and whether it is still there. ``git clean
    -fdX`` (or ``rm -r okf/.memory``) deletes them with config.json, which names the provider;
    the git folder keeps the anchor and the count (``gitstore.providers._anchor``)."""
    from gitstore.providers import _anchor
    from gitstore.providers.jsonl import _acked_record as jsonl_acked
    from gitstore.providers.sqlite import _acked_record as sqlite_acked

    found = []
    counters: tuple[tuple[str, Path, Callable[[Path], int]], ...] = (
        ("sqlite", state / "store.sqlite", lambda path: (sqlite_acked(path) or (0, ""))[0]),
        ("jsonl", state / "jsonl" / "records.jsonl", lambda path: (jsonl_acked(path) or ((0, "", ""), None))[0][0]))
    for name, file, counted in counters:
        anchor = _anchor.anchor_path(repo.path, name)
        if _anchor.anchored(anchor) is None:
            continue
        count = counted(_anchor.acked_path(anchor))
        if count:
            found.append((name, count, file, file.exists()))
    return found


def _refuse_lost_store(repo: pygit2.Repository, root: Path, state: Path) -> None:
    """Refuse to set a clone up afresh (a new writer id, the git provider) while its git folder
    says its appends were acknowledged in a sqlite or jsonl store: config.json was deleted with
    the store (``git clean -fdX``), or alone, and a fresh one would leave those records unread
    and verify saying the new, empty store is ok."""
    for name, count, file, there in lost_stores(repo, state):
        kept = Path(repo.path) / "gitstore" / "config.json"
        restore = (f"restore {STATE_DIR.as_posix()}/ from a copy (config.json and the store's files; the config.json "
                   f"this clone's init last took is kept in {kept})" if kept.exists() else
                   f"restore {STATE_DIR.as_posix()}/ from a copy (config.json and the store's files)")
        what = f"this clone's {name} store, {shown(str(file.relative_to(root)))}, "
        if not there:
            folder = Path(repo.path) / "gitstore"
            raise IntegrityError(f"{CONFIG_FILE} and {what}are missing, but {folder} says {count} "
                                 f"append(s) were acknowledged in that store (deleted, as `git clean -fdX` does); "
                                 f"this is damage, not a new clone: {restore}, then run `gitstore verify`; or, to "
                                 "start afresh without those records, run `gitstore purge`")
        raise Refused(f"{CONFIG_FILE} is missing, but {what}holds this clone's {count} acknowledged append(s): "
                      f"{restore}, then run `gitstore verify`; init sets up no new store over it")


def unread_stores(repo: pygit2.Repository, root: Path, state: Path, provider: str,
                  writer: str) -> list[tuple[str, str]]:
    """What another provider still holds of this clone's records, which ``provider`` does not
    read: for each such store, how many and where, and what to do: config.json's provider changed (by hand,
    taken by ``init --accept-changes``) leaves them where they were, and learnings, verify and
    publish then leave them out. The git provider's count is of this clone's writer ids' records
    (fetched ones are other clones'); a sqlite or jsonl store's files are the clone's own."""
    found = []
    for other in DURABLE:
        if other == provider:
            continue
        held, where = _held(other, repo, root, state, writer)
        if held:
            found.append((f"{held} record(s) of this clone are in the {other} provider's store ({where}), which the "
                          f"{provider} provider does not read: learnings, verify and publish leave them out (publish "
                          "would drop their learnings from AGENTS.md)",
                          f"set \"provider\" back to \"{other}\" in {CONFIG_FILE} and run `gitstore init "
                          "--accept-changes` to read them again"))
    return found


def _held(provider: str, repo: pygit2.Repository, root: Path, state: Path, writer: str) -> tuple[int | str, str]:
    """How many records ``provider``'s store holds (``"some"`` when it cannot be counted; 0 for
    none or no store), and where it is; read without making or changing anything."""
    import sqlite3

    from gitstore.errors import GitstoreError

    if provider == "git":
        own = {writer, *former_writers(state)}
        where = f"{PREFIX}records/"
        local = Path(common_dir(repo)) / "gitstore" / "local"
        if not ref_names(repo, where) and not local.is_dir():
            return 0, where
        try:
            return sum(1 for stored in GitProvider(root, writer).read() if stored.writer in own), where
        except GitstoreError:
            return "some", where
    if provider == "sqlite":
        path, shown_path = state / "store.sqlite", f"{STATE_DIR.as_posix()}/store.sqlite"
        if not path.is_file():
            return 0, shown_path
        try:
            conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
            try:
                return int(conn.execute("SELECT COUNT(*) FROM records").fetchone()[0]), shown_path
            finally:
                conn.close()
        except sqlite3.Error:
            return ("some" if path.stat().st_size else 0), shown_path
    from gitstore.providers.jsonl import RECORDS, parse_append

    path = state / "jsonl" / RECORDS
    count = 0
    try:
        for line in path.read_bytes().splitlines():
            try:
                count += len(parse_append(line).items)
            except GitstoreError:
                continue
    except OSError:
        pass
    return count, f"{STATE_DIR.as_posix()}/jsonl/"


def _open_store(config: Config, root: Path, state: Path, replaced: bool) -> object:
    """The clone's store; a refusal says too that init ``replaced`` a config.json it found
    where it had never run, since the report that would say so is not shown then."""
    try:
        return open_provider(config.provider, root, state, config.writer)
    except Refused as exc:
        if not replaced:
            raise
        raise Refused(f"{CONFIG_FILE} was not this clone's (init had never run here), so init wrote one of its own, "
                      f"writer {config.writer}; {exc}") from None


def _set_up_store(opened: object, state: Path, repo: pygit2.Repository, renewed: bool, report: InitReport,
                  scope: str | None = None) -> None:
    """Make the local namespace's repository of a git store and carry a former writer's
    stranded appends (``scope``: this clone's, now). The store is closed by the caller when
    this returns, not whenever the collector gets to it: an sqlite connection left open keeps the database's shared memory
    mapped in this process, and a WAL file deleted meanwhile (a checkout) makes the next
    connection read that stale index against the new file."""
    if isinstance(opened, GitProvider):
        opened.repository("local")  # made here, once, rather than by the first capture
        if renewed:
            carried = opened.carry_stranded(former_writers(state), writers_of_other_trees(repo), scope)
            report.created.extend(carried.lines)
            report.left.extend(carried.left.values())
        moved = opened.move_local()
        if moved:
            report.created.append(f"moved {len(moved)} local ref(s) out of the repository's own refs, where a "
                                  "push could send them, into .git/gitstore/local; `gitstore gc` erases the "
                                  "copies left behind")


def _refuse_tracked(root: Path, state: Path) -> None:
    """Refuse a repository whose commits hold files under the state folder: git checks them out
    into every clone over the clone's own ignored files, without a word, so a link there (at the
    index's folder, the ledger) would send what gitstore writes wherever the repository chose.
    A tracked config.json alone is left to ``_own_instead``, which writes the clone one of its
    own and says how to stop tracking it (when it is a plain file: a link is refused too)."""
    tracked = [name for name in tracked_under(root, state)
               if name != CONFIG_FILE or first_link(root, name) is not None]
    if tracked:
        shown = ", ".join(tracked[:3]) + (f" and {len(tracked) - 3} more" if len(tracked) > 3 else "")
        raise Refused(f"git tracks {len(tracked)} file(s) under {STATE_DIR.as_posix()}/ ({shown}), which is "
                      "each clone's own local state: every checkout puts them there, over this clone's files; "
                      f"stop tracking them with `git rm -r -q --cached :/{STATE_DIR.as_posix()}/` and a commit, "
                      "delete the symbolic links among them (a commit that stops tracking a link leaves it in the "
                      "work tree), then run `gitstore init` again")


def _refuse_links(root: Path, state: Path) -> None:
    """Refuse a state folder holding a symbolic link anywhere (a commit put it there, and the
    commit that stopped tracking it left it in the work tree): what gitstore writes there, a
    hook's job or log, an index, would land wherever it points."""
    links = links_under(root, state)
    if links:
        shown = ", ".join(links[:3]) + (f" and {len(links) - 3} more" if len(links) > 3 else "")
        being = "is a symbolic link" if len(links) == 1 else "are symbolic links"
        raise Refused(f"{shown} under {STATE_DIR.as_posix()}/ {being}; gitstore never writes through one: "
                      "delete them (`rm` each), then run `gitstore init` again")


def _ignore_within(root: Path, report: InitReport) -> bool:
    """``okf/.memory/.gitignore`` holding ``*``, written where none is (``_files.ignore_within``):
    the exclude rule alone gives way to a ``.gitignore`` line ``!/okf/.memory/`` a pull may
    bring, and ``git add -A`` would then stage this clone's personal memory; git reads the
    folder's own ``.gitignore`` over that line. A clone that ran init before it was written
    gets it at its next init, even with such a line there already."""
    try:
        if not ignore_within(str(root)):
            return False
    except OSError as exc:
        report.left.append(f"{STATE_DIR.as_posix()}/.gitignore could not be written ({exc.strerror or exc}): "
                           f"a .gitignore line un-ignoring {STATE_DIR.as_posix()}/ would expose its files")
        return False
    report.created.append(f"{STATE_DIR.as_posix()}/.gitignore (*: git ignores every file of it)")
    return True


def _name_unignoring(root: Path, state: Path, report: InitReport) -> None:
    """A ``.gitignore`` line un-ignoring the state folder, named: this clone's files stay ignored
    through the folder's own ``.gitignore``, but the line reaches every clone through git, and
    one without that file is exposed."""
    against = unignoring_rule(root, state)
    if against is not None:
        source, line, pattern = against.split(":", 2)
        report.left.append(f"line {line} of {shown(one_line(source))} ({shown(one_line(pattern))}) un-ignores {STATE_DIR.as_posix()}/: this clone's "
                           f"files stay ignored through {STATE_DIR.as_posix()}/.gitignore, but `git add -A` in a "
                           "clone without it commits that clone's personal memory; remove the line")


def _missing(folder: Path) -> list[Path]:
    """``folder`` and those above it that do not exist yet, deepest first."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove_empty(folders: list[Path]) -> None:
    """Remove the folders init made, deepest first, while they are empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def _rescoped(repo: pygit2.Repository, config: Config, scope: str, before: str | None) -> bool:
    """Whether this init makes ``scope`` the clone's in place of ``before`` (origin named,
    pointed elsewhere or removed since memory was set up) while its writer id's shared records
    hold some of ``before``: records keep the scope they were stored under, and a sync pushes
    nothing of a history holding one of another scope than the remote's (its clones refuse
    it), so what the clone stores from now on goes under a new id (``_renew``)."""
    from gitstore.providers._incoming import ref_tip

    if before is None or same_scope(before, scope) or config.provider != "git":
        return False
    return ref_tip(repo, f"{PREFIX}records/shared/{config.writer}") is not None


def _renew(repo: pygit2.Repository, root: Path, config: Config, wanted: str | None, report: InitReport,
           copied: Path | None, rescoped: str | None = None) -> Config:
    """Give this clone a new writer id (``wanted``, or a fresh one) and record where it runs
    (``copied``: the folder it was copied from, which goes on writing as the old id;
    ``rescoped``: the scope the old id's records are of, which this init leaves)."""
    new = wanted or new_writer_id()
    if new == config.writer:
        raise UsageError(f"--writer {new}: this clone writes as {new} already; name another id, or leave "
                         "--writer out for a fresh one")
    taken = [name for name in ref_names(repo, PREFIX) if name.rsplit("/", 1)[-1] == new and "/records/" in name]
    if taken:
        raise Refused(f"--writer {new}: another writer's records are stored under that id ({taken[0]}); "
                      "two clones writing as one split its history")
    state = root / STATE_DIR
    if copied is not None:
        forget_former(state)  # the original's former ids: it carries what they stranded
    else:
        try:
            keep_former(state, config.writer)
        except OSError as exc:
            raise Refused(f"{state / FORMER_NAME}: cannot record {config.writer} as an id this clone wrote as "
                          f"({exc.strerror or exc}); run `gitstore init --new-writer` again once it can be "
                          "written") from None
    renewed = renew_writer(repo, root, config, new, given=wanted is not None)
    if rescoped is not None and copied is None:
        report.created.append(f"writer {new} for this clone from now on, so that what it stores under its new scope "
                              f"reaches the remote: {config.writer} holds records of {rescoped}, which no clone of the "
                              f"new scope admits, so a sync pushes nothing of it (what it stored under {rescoped} "
                              "stays, unread)")
        return renewed
    synced = f"; sync pushes {config.writer}'s appends the remote lacks" if config.provider == "git" else ""
    report.created.append((f"a copy of {copied}, which writes as {config.writer}: " if copied else "")
                          + f"writer {new} for this clone from now on (what it stored as {config.writer} stays "
                          f"and is read{synced})")
    return renewed


def _existing(path: Path) -> bytes | None:
    """The bytes of config.json, or None when there is none. Read as every command reads it
    (``config_bytes``): bounded, and refused at once when it is no regular file (a FIFO in its
    place, which a plain read would wait on for ever)."""
    if not path.exists():  # nothing there, or a link to nothing (refused below as a link)
        return None
    try:
        return config_bytes(path)
    except InvalidInput as exc:
        odd = not_a_file(path)  # a folder there: said as every other command says it
        raise Refused(odd or str(exc)) from None


def _own_instead(repo: pygit2.Repository, root: Path, path: Path, theirs: Config, provider: str | None,
                 writer: str | None, report: InitReport, how: str) -> Config:
    """This clone's own configuration, written over one that came through git (``foreign``) or
    that was there before this clone ever ran init (``set_up_here``: ``git apply`` writes no
    object), ``how`` saying which: a writer id of its own (``writer``, or a fresh one),
    ``provider`` (or git) and none of its settings, which another clone chose (a provider that
    keeps nothing among them)."""
    config = Config(writer=writer or new_writer_id(), provider=provider or "git", writer_given=writer is not None)
    write_config(repo, path, config)
    keep_home(path.parent, root)
    dropped = [name for name, value in (("provider", theirs.provider != config.provider),
                                        ("capture", theirs.capture_mode != config.capture_mode),
                                        ("automation", theirs.automation), ("delivery", theirs.delivery),
                                        ("loop", theirs.loop), ("dream", theirs.dream)) if value]
    tracked = CONFIG_FILE in tracked_under(root, path.parent)
    report.created.append(
        f"{CONFIG_FILE} of this clone's own, writer {config.writer}: the one here {how}, so its writer "
        f"{theirs.writer} was another clone's"
        + (f", and so were its {', '.join(dropped)} settings, not kept" if dropped else "")
        + (f"; git tracks the file, so each clone that checks it out gets it too: stop that with `git rm -q "
           f"--cached :/{CONFIG_FILE}` and a commit" if tracked else ""))
    return config


def forget_refspecs(repo: pygit2.Repository) -> None:
    """Take out the fetch refspecs ``_add_refspecs`` gave each remote, leaving its others."""
    for name, remote in remotes(repo).items():
        for spec in fetch_refspecs(name):
            if spec in remote.fetch_refspecs:
                repo.config.delete_multivar(f"remote.{name}.fetch", "^" + re.escape(spec) + "$")


def _release_gone_remotes(repo: pygit2.Repository, report: InitReport) -> None:
    """Drop what sync holds in quarantine for a remote this clone no longer has, as after the
    `git remote rename upstream origin && gitstore init --new-writer` a sync advises
    (``gitstore.sync.remote.release_gone_remotes``)."""
    from gitstore.sync.remote import release_gone_remotes

    if not ref_names(repo, QUARANTINE):
        return
    for remote, count in sorted(release_gone_remotes(repo, state_dir(repo)).items()):
        report.left.append(f"{remote}, no remote any more: dropped the {count} ref(s) sync held in quarantine for it, "
                           "which no sync could release")


def _drop_other_repositories(repo: pygit2.Repository, scope: str, before: str | None, report: InitReport) -> None:
    """Drop the memory a plain ``git fetch`` brought from a remote that stands for another
    repository than this clone's, with the fetch refspecs an older init gave it, but of the
    scope ``before`` this init found kept (``gitstore.sync.remote.drop_other_repositories``)."""
    from gitstore.sync.remote import drop_other_repositories

    report.left.extend(drop_other_repositories(repo, state_dir(repo), scope, before))


def _add_refspecs(repo: pygit2.Repository, scope: str, report: InitReport) -> list[str]:
    """Give memory's fetch refspecs to each remote that stands for this clone's scope, and take
    them off one that stands for another (an older init gave every remote them): a plain ``git
    fetch`` from a fork would bring whatever its owner wrote there as the team's memory, though
    they cannot push to the team's remote. Nor any remote whose name holds a slash (git allows
    one): the fetched namespace holds one folder per remote."""
    added = []
    for name, remote in remotes(repo).items():
        existing = set(remote.fetch_refspecs)
        stands = stands_for(repo, name, scope)
        why = ("its name holds a slash: what it fetched would lie a level deeper than the fetched namespace "
               "(one folder per remote), where no read looks and `gitstore verify` names each ref as damage"
               if "/" in name else
               f"it stands for {stood_for(repo, name)}, another repository than this clone's {scope}, whose "
               "memory a plain `git fetch` would have read as the team's" if stands is False else None)
        if why is not None:
            gone = [spec for spec in fetch_refspecs(name) if spec in existing]
            for spec in gone:
                repo.config.delete_multivar(f"remote.{name}.fetch", "^" + re.escape(spec) + "$")
            if gone:
                report.left.append(f"{name} without memory's fetch refspecs, taken off: {why}")
            if "/" in name:  # what they fetched lies where no read looks: never read, only named as damage
                for kind in ("records", "payloads"):
                    for ref in ref_names(repo, f"{PREFIX}remotes/{name}/{kind}/shared/"):
                        repo.references.delete(ref)
            continue
        if stands is None:
            continue
        for spec in fetch_refspecs(name):
            if spec not in existing:
                repo.remotes.add_fetch(name, spec)
                added.append(f"fetch refspec {spec} on {name}")
        # libgit2 says nothing when it cannot write the configuration (read-only, or locked)
        if not set(fetch_refspecs(name)) <= set(repo.remotes[name].fetch_refspecs):
            config = Path(repo.path) / "config"
            raise Refused(f"could not add memory's fetch refspecs on {name} to {config} (read-only, or "
                          "locked by another git: a config.lock beside it); run `gitstore init` again once it "
                          "can be written")
    return added
