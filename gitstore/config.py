"""This clone's configuration and local state under ``okf/.memory/`` (git-ignored, never committed).

``okf/.memory/config.json`` is read and written here and nowhere else. ``gitstore init`` writes
it; a person may edit it. Its fields:

- ``writer``: this clone's writer id (required; ``gitstore init`` makes one up);
- ``provider``: where records are kept: ``git`` (default), ``sqlite`` or ``jsonl`` (``memory``,
  for tests, keeps them for one process only: ``gitstore doctor`` fails on it);
- ``capture``: ``{"mode": "summary" | "transcript" | "hybrid"}``, how much of an agent session a
  capture keeps (default ``summary``);
- ``automation``: the optional auto-safe gate, judged by ``gitstore.rules.autosafe``: any
  problem in it switches automation off and says why, so a typo never switches it on;
- ``delivery``: how much recall may hand an agent, judged by ``gitstore.deliver.limits``: any
  problem in it makes delivery inert (the delivery hook, which must start without loading git
  bindings, reads the file with ``gitstore.deliver.place`` and judges only that section);
- ``loop``: the background loop's steps, read strictly by ``gitstore.sync.settings`` when a tick
  runs (a bad section refuses the tick and is named by ``gitstore status``);
- ``dream``: the labeler and consolidator a dream uses and their options, judged strictly by
  ``gitstore.dream.settings`` when a dream runs.

Everything else is read strictly: an unknown field or a bad value is an error that names it and
says which file to fix, never silently ignored.

The file is this clone's and never comes from elsewhere: git ignores the folder, so a commit
that adds the file anyway (``git add -f``) is checked out into every clone of the repository,
over the file each had (git treats ignored files as its to replace). Such a file holds another
clone's writer id, and settings that run programs (``dream``'s labeler), accept learnings without
a person (``automation``) or push (``loop``). So a config.json whose bytes git has as an object
(a commit, a checkout or ``git add`` put them there) is not used (``foreign``): every command
refuses it, naming ``gitstore init``, which writes the clone a configuration of its own. Bytes
this clone wrote or took as its own before git had them stay its own: the work tree's git folder
(which no commit reaches) keeps their blob id in ``gitstore-config``.

``git apply`` writes the file and leaves git no object, so a patch looks like a person's edit.
The git folder tells them apart: a config.json where it records no earlier init
(``set_up_here``) is refused like one that came through git, and in a clone set up already, a
change of writer or provider from the copy init kept (``accept_config``) is refused until init
takes the file (``refuse_new_identity``: no store is opened), while what it sets otherwise is
named by ``gitstore doctor``, and a labeler it names is not run until init takes the file.

``okf/.memory/home`` (gitstore's own, not for editing) holds the work tree's path as this clone
last ran there. A folder moved elsewhere has it rewritten by its next command. A folder copied
while its original stays keeps the original's path, so both would write as one writer id and
split its history: ``Workspace.find`` gives such a copy a writer id of its own before its first
command can append, and says so.

``okf/.memory/writers-former`` (gitstore's own) lists the ids this work tree wrote as before
``gitstore init --new-writer`` gave it another: the only ids whose stranded appends it carries
over (``gitstore.providers._carry_git``). A copy given an id of its own forgets the list it
brought along: those ids are its original's.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pygit2

from gitstore import _jsontext
from gitstore._files import replace_file
from gitstore._gitconfig import remotes
from gitstore._spawn import spawn
from gitstore.errors import ForeignConfig, InvalidInput, NotARepository, Refused, RemoteGone, Unaccepted
from gitstore.providers._names import WRITER_PATTERN as _WRITER
from gitstore.records.vocabulary import CAPTURE_MODES, DEFAULT_CAPTURE_MODE
from gitstore.scope import (Scope, _git_folder, admits, alias_of, keep_scope, open_git, open_repository,
                            same_scope, scope_and_kept, scope_kept_gone)

STATE_DIR = Path("okf") / ".memory"
CONFIG_NAME = "config.json"
CONFIG_FILE = (STATE_DIR / CONFIG_NAME).as_posix()
LEFT_NAME = "writers-left"  # the ids a copy stopped writing as: its original's (one a line)
FORMER_NAME = "writers-former"  # the ids this work tree wrote as before `init --new-writer` (one a line)
HOME_NAME = "home"  # the work tree's path as this clone last ran there (bytes, as the file system has it)
OWN_CONFIG_NAME = "gitstore-config"  # in the work tree's git folder: the blob id of the config.json this clone owns
ACCEPTED_NAME = "gitstore/config.json"  # in the work tree's git folder: the config.json init last wrote or took
ACCEPTED_WRITERS_NAME = "gitstore/writers-accepted"  # in the shared git folder: the writer ids of those (one a line)
PROVIDERS = ("git", "sqlite", "jsonl", "memory")
DURABLE = PROVIDERS[:3]  # what a clone's config.json may name: memory keeps records for one process (tests
# build a MemoryProvider in-process, never through a configuration)
_SECTIONS = ("writer", "writerGiven", "provider", "capture", "automation", "delivery", "loop", "dream")


class Config(NamedTuple):
    """This clone's settings, as ``config.json`` states them (defaults filled in)."""

    writer: str
    provider: str = "git"
    capture_mode: str = DEFAULT_CAPTURE_MODE
    automation: Any = None  # the raw "automation" section (None: absent); see rules/autosafe.py
    delivery: Any = None  # the raw "delivery" section (None: absent); see deliver/limits.py
    loop: Any = None  # the raw "loop" section (None: absent); see sync/settings.py
    dream: Any = None  # the raw "dream" section (None: absent); see dream/settings.py
    # the writer id was named (``init --writer``), not made up here: a sync may take up that
    # writer's history from the remote (a CI job's writer, on every fresh runner)
    writer_given: bool = False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"writer": self.writer, "provider": self.provider}
        if self.writer_given:
            data["writerGiven"] = True
        if self.capture_mode != DEFAULT_CAPTURE_MODE:
            data["capture"] = {"mode": self.capture_mode}
        if self.automation is not None:
            data["automation"] = self.automation
        if self.delivery is not None:
            data["delivery"] = self.delivery
        if self.loop is not None:
            data["loop"] = self.loop
        if self.dream is not None:
            data["dream"] = self.dream
        return data


class Workspace(NamedTuple):
    """A repository gitstore runs in: its root, state folder, scope and configuration."""

    repo: pygit2.Repository
    root: Path
    state: Path
    scope: str
    config: Config

    @classmethod
    def find(cls, start: str | Path = ".") -> Workspace:
        """The workspace containing ``start``; refuses a repository ``gitstore init`` never set up."""
        repo = open_repository(start)
        root = Path(repo.workdir).resolve()
        state = root / STATE_DIR
        path = state / CONFIG_NAME
        if not path.is_file():
            odd = not_a_file(path)
            if odd is not None:  # something is there: init refuses it too
                raise InvalidInput(odd)
            raise NotARepository(f"gitstore is not set up in {root}: run `gitstore init` first")
        data = config_bytes(path)
        here = set_up_here(repo, data)  # before the scope is kept (``_scope``), which would count as a record
        scope = _scope(repo, here)
        config = parse_config(path, data, repo)
        alone = here and _by_writer_alone(repo, data)  # never recorded as this tree's own: judged, not taken
        _refuse_others(repo, path, data, config.writer, here, record=False)
        refuse_new_identity(repo, path, data, config)
        if not alone:
            foreign(repo, path, data)  # a person's edit: taken as this clone's from now on
        if accepted_config(repo.path) is None and not alone and _adoptable(repo, data):
            accept_config(repo, data)  # a copy init accepted, or a clone set up before copies were kept
        copied = copied_from(root, state, config.writer)
        if copied is not None:
            config = _on_its_own(repo, root, state, config, copied)
        return cls(repo, root, state, scope, config)


MOVE_AWAY = "move it away and run `gitstore init`"  # what mends a config.json gitstore cannot read


def not_a_file(path: Path) -> str | None:
    """Why config.json at ``path`` cannot be read as a file, and what to do (None: it is a file,
    or nothing is there); every command and ``gitstore init`` say the same."""
    if path.is_file() or not (path.is_symlink() or path.exists()):
        return None
    what = "a folder" if path.is_dir() else "a link to no file" if path.is_symlink() else "not a file"
    return f"{path} is {what}: gitstore's settings are a file; {MOVE_AWAY}"


GONE_NOTE = "is a path but not a git repository"  # in the notice of a moved origin (``note_gone``)


def note_gone(gone: RemoteGone, scope: str) -> None:
    """Tell the person, once, as the command ends, that origin is a path where its repository is
    no longer and the kept ``scope`` stands in for the one it gave (``scope.scope_kept_gone``)."""
    from gitstore import notices

    notices.note(f"{gone}; until then memory stays under scope {scope}, the one this clone's memory was set up "
                 "under, and `gitstore sync` cannot reach origin")


def _scope(repo: pygit2.Repository, here: bool) -> Scope:
    """The repository's scope, with the former scopes its default branch declares
    (``declared_former``), kept now when the clone was set up before scopes were kept (as
    init would; ``here``: this clone ran init), and a notice when it is not the one this clone's
    memory was set up under (nor one declared former), or when origin is a path where its
    repository is no longer (moved or deleted) and the kept scope stands in for the one it gave
    (``scope_kept_gone``)."""
    found, kept, gone = scope_kept_gone(repo)
    scope = Scope(found, repo=repo)  # its former scopes read when first asked for
    if gone is not None:
        note_gone(gone, scope)
        return scope
    if not here:
        return scope
    if kept is None:
        try:
            keep_scope(repo, scope)
        except (OSError, pygit2.GitError):  # read-only, or locked by another git: the next command keeps it
            pass
    elif not same_scope(kept, scope) and not admits(scope, kept):  # origin named, removed or moved since
        from gitstore import notices

        why = (f"origin's host {kept.partition('/')[0]} is an ssh alias of {scope.partition('/')[0]}"
               if alias_of(kept, scope) else "its origin changed")
        notices.note(f"this clone's memory was set up under scope {kept}, and this repository's scope is now "
                     f"{scope} ({why}): what was stored under {kept} is not read here; "
                     "`gitstore doctor` says what to do")
    return scope


def _refuse_others(repo: pygit2.Repository, path: Path, data: bytes, writer: str, here: bool,
                   record: bool = True) -> None:
    """Refuse config.json's bytes ``data`` when they are another clone's: they came through git
    (``foreign``), or this clone never ran init (``here``: ``set_up_here``), so a patch or a copy
    put them there (``git apply`` writes no object git could see)."""
    if not here and not from_git(repo, path, data):
        raise ForeignConfig(f"{path} is here, but this clone never ran `gitstore init` (its git folder records no "
                            f"configuration of its own), so a patch or a copy put the file there, and writer {writer} "
                            "and the settings in it are not this clone's: run `gitstore init` to give this clone "
                            "its own")
    if not here or foreign(repo, path, data, record=record):
        raise ForeignConfig(f"{path} came through git (the commit checked out holds it, or git has these very "
                            f"bytes as an object), so writer {writer} and the settings in it are another "
                            "clone's, not this one's: run `gitstore init` to give this clone its own")


def read_config(path: Path) -> Config:
    """Parse config.json strictly."""
    return parse_config(path, config_bytes(path))


MAX_CONFIG_BYTES = 1 << 20  # of config.json read: gitstore's settings take a few hundred bytes


def config_bytes(path: Path) -> bytes:
    """config.json's bytes, every command's first read: at most ``MAX_CONFIG_BYTES`` of them
    (a pull can bring any file there, where a commit tracks it), opened without waiting (a FIFO
    that took the file's place: refused at once as no regular file)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read configuration ({exc})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InvalidInput(f"{path}: cannot read configuration (no regular file); {MOVE_AWAY}")
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read configuration ({exc})") from None
    finally:
        os.close(fd)
    if len(data) > MAX_CONFIG_BYTES:
        raise InvalidInput(f"{path}: cannot read configuration (over {MAX_CONFIG_BYTES >> 20} MiB, where gitstore's "
                           f"settings take a few hundred bytes); {MOVE_AWAY}")
    return data


def parse_config(path: Path, raw: bytes, repo: pygit2.Repository | None = None) -> Config:
    """Parse the bytes of config.json (read from ``path``) strictly. With ``repo``, a file
    that names no writer says which writer ids this clone's records are under, so the person
    can give the clone its id back."""
    try:
        data = _jsontext.loads(raw.decode("utf-8"))
    except ValueError as exc:
        why = "the file is empty" if not raw.strip() else str(exc)
        raise InvalidInput(f"{path}: cannot read configuration ({why}){_to_mend(repo, path)}") from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{path}: configuration must be a JSON object{_to_mend(repo, path)}")
    for key in data:
        if key not in _SECTIONS:
            raise InvalidInput(f"{path}: unknown field {key!r} (fields: {', '.join(_SECTIONS)})")
    writer = data.get("writer")
    if not isinstance(writer, str) or not writer:
        raise InvalidInput(f"{path}: no writer id{_to_mend(repo, path)}")
    if not _WRITER.match(writer):  # every store refuses it: a command would go on as no writer can
        shown = repr(writer) if len(writer) <= 80 else repr(writer[:40])[:-1] + "..."
        raise InvalidInput(f"{path}: writer id {shown} must be 1 to 64 lowercase letters, digits and dashes"
                           f"{_to_mend(repo, path)}")
    given = data.get("writerGiven", False)
    if not isinstance(given, bool):
        raise InvalidInput(f"{path}: writerGiven must be true or false")
    provider = data.get("provider", "git")
    if provider in PROVIDERS and provider not in DURABLE:  # a clone's records must outlive the command
        raise InvalidInput(f"{path}: provider {provider!r} keeps records for one process only (each command would "
                           f"report them stored and keep nothing); set \"provider\" to one of {', '.join(DURABLE)}")
    if provider not in DURABLE:
        raise InvalidInput(f"{path}: unknown provider {provider!r} (one of {', '.join(DURABLE)})")
    return Config(writer=writer, provider=provider, capture_mode=_capture_mode(path, data.get("capture")),
                  automation=data.get("automation"), delivery=data.get("delivery"), loop=data.get("loop"),
                  dream=data.get("dream"), writer_given=given)


def _to_mend(repo: pygit2.Repository | None, path: Path) -> str:
    """What to do about a config.json that cannot be read as gitstore's settings: with writer
    ids this clone's records are under, how to go on as one (``_writers_hint``); else move the
    file away and run init, which writes a fresh one (init refuses the file as it stands)."""
    return _writers_hint(repo, path.parent) or f"; {MOVE_AWAY}"


def _capture_mode(path: Path, section: Any) -> str:
    if section is None:
        return DEFAULT_CAPTURE_MODE
    if not isinstance(section, dict) or set(section) - {"mode"}:
        raise InvalidInput(f'{path}: capture must look like {{"mode": "summary"}}')
    mode = section.get("mode", DEFAULT_CAPTURE_MODE)
    if mode not in CAPTURE_MODES:
        raise InvalidInput(f"{path}: unknown capture mode {mode!r} (one of {', '.join(CAPTURE_MODES)})")
    return str(mode)


def _writers_hint(repo: pygit2.Repository | None, state: Path | None = None) -> str:
    """Which writer ids this clone's shared records are under, and how to write as its own
    again (empty without ``repo`` or such records). A writer the folder this one was copied
    from still writes as is never offered: two clones writing as one id part for good."""
    if repo is None:
        return ""
    prefix = "refs/memory/v1/records/shared/"
    try:
        names = sorted(name[len(prefix):] for name in repo.references if name.startswith(prefix))
    except pygit2.GitError:
        return ""
    if not names:
        return ""
    root = Path(repo.workdir) if repo.workdir else None
    theirs = [n for n in names if root is not None and state is not None and _held_elsewhere(root, state, n)]
    ours = [n for n in names if n not in theirs]
    found = f"; this clone's records are under writer {', '.join(names)}"
    if theirs:
        found += f" ({', '.join(theirs)}: the folder this one was copied from writes as it)"
    if len(ours) == 1:
        return found + f": remove the file and run `gitstore init --writer {ours[0]}` to go on writing as it"
    if ours:
        return found + ": remove the file and run `gitstore init --writer W` with the one this clone wrote as"
    return found + ": remove the file and run `gitstore init`, which gives this clone a writer id of its own"


def _held_elsewhere(root: Path, state: Path, writer: str) -> bool:
    """Whether ``writer`` is the id of the folder this clone was copied from: one it stopped
    writing as (``LEFT_NAME``), or one that folder (``home``) still writes as (``copied_from``,
    without writing anything)."""
    try:
        if writer in (state / LEFT_NAME).read_text(encoding="ascii").split():
            return True
    except (OSError, UnicodeDecodeError):
        pass
    try:
        kept = (state / HOME_NAME).read_bytes()
    except OSError:
        return False
    return kept != os.fsencode(root) and bool(kept) and _writes_as(Path(os.fsdecode(kept)), root, writer)


def copied_from(root: Path, state: Path, writer: str) -> Path | None:
    """The folder this clone was copied from, when that folder still holds a clone writing as
    ``writer`` (None otherwise). A folder moved, or seen through another path to it, has its
    ``home`` rewritten to where it is now; a copy keeps the original's until it has a writer id
    of its own (``Workspace.find`` gives it one)."""
    here = os.fsencode(root)
    try:
        kept = (state / HOME_NAME).read_bytes()
    except OSError:
        kept = None
    if kept == here:
        return None
    original = Path(os.fsdecode(kept)) if kept else None
    if original is None or not _writes_as(original, root, writer):
        keep_home(state, root)
        return None
    return original


def _on_its_own(repo: pygit2.Repository, root: Path, state: Path, config: Config, copied: Path) -> Config:
    """A copy's configuration with a writer id of its own, written before anything appends
    (``renew_writer``), and a line that says so; the old one, and a line that warns, when the
    folder cannot be written."""
    from gitstore.notices import note

    try:
        renewed = renew_writer(repo, root, config, new_writer_id())
    except OSError:
        note(f"{root} is a copy of {copied}, which writes as {config.writer} too, and {state / CONFIG_NAME} "
             "cannot be written: run `gitstore init --new-writer` here once it can, before either of them appends "
             "again, or their histories split")
        return config
    try:  # the id is the original's: never offered back to this clone (``_writers_hint``)
        with open(state / LEFT_NAME, "a", encoding="ascii") as left:
            left.write(config.writer + "\n")
    except OSError:
        pass
    forget_former(state)  # the original's to carry, not this copy's
    note(f"{root} is a copy of {copied}, which writes as {config.writer}: this clone writes as {renewed.writer} "
         f"from now on (what it stored as {config.writer} stays, read as before)")
    return renewed


def former_writers(state: Path) -> list[str]:
    """The ids this work tree wrote as before ``gitstore init --new-writer`` gave it another
    (``FORMER_NAME``), oldest first: the only ones whose appends the remote's history parted
    from it carries over to its writer id. Another work tree of the repository, or a copy of
    this folder given an id of its own, lists none of them: an id it never left is not its to
    carry, and carrying one still in use hands that tree's live decisions to another writer."""
    try:
        return list(dict.fromkeys((state / FORMER_NAME).read_text(encoding="ascii").split()))
    except (OSError, UnicodeDecodeError):
        return []


def keep_former(state: Path, writer: str) -> None:
    """Record ``writer`` as an id this work tree wrote as and leaves (``former_writers``),
    before its configuration names the next one. OSError when it cannot be written."""
    with open(state / FORMER_NAME, "a", encoding="ascii") as former:
        former.write(writer + "\n")


def forget_former(state: Path) -> None:
    """Forget the former ids a copied folder brought along: its original left them, and carries
    what they stranded (a copy carrying them too would send each decision twice)."""
    try:
        (state / FORMER_NAME).unlink(missing_ok=True)
    except OSError:
        pass


def writers_of_other_trees(repo: pygit2.Repository) -> dict[str, Path]:
    """Writer id -> work tree, for every other work tree of ``repo``'s repository that is set
    up with a configuration of its own (the main one and each linked one): the ids they write
    as now, which this work tree never carries, even one it wrote as before."""
    here = Path(repo.workdir).resolve() if repo.workdir else None
    found: dict[str, Path] = {}
    for tree in _work_trees(repo):
        if here is not None and tree.resolve() == here:
            continue
        try:
            data = _jsontext.loads((tree / STATE_DIR / CONFIG_NAME).read_bytes())
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("writer"), str):
            found.setdefault(data["writer"], tree)
    return found


def _work_trees(repo: pygit2.Repository) -> list[Path]:
    """The work trees of ``repo``'s repository: its main one (none for a bare repository) and
    every linked one git knows of."""
    trees = []
    try:
        main = open_git(_git_folder(repo))
        if main.workdir:
            trees.append(Path(main.workdir))
        for name in main.list_worktrees():
            trees.append(Path(main.lookup_worktree(name).path))
    except (pygit2.GitError, OSError, KeyError, NotARepository):
        pass
    return trees


def renew_writer(repo: pygit2.Repository, root: Path, config: Config, writer: str, given: bool = False) -> Config:
    """``config`` with ``writer`` as the id of the clone in ``root`` (``given``: named by a
    person, not made up), written, and ``root`` recorded as where it runs."""
    renewed = config._replace(writer=writer, writer_given=given)
    write_config(repo, root / STATE_DIR / CONFIG_NAME, renewed)
    keep_home(root / STATE_DIR, root)
    return renewed


def _writes_as(original: Path, root: Path, writer: str) -> bool:
    """Whether ``original`` is another folder than ``root`` whose clone is set up with writer id
    ``writer`` in a repository of its own. Another work tree of the same repository writing as
    that id appends to the same refs (each append a compare-and-swap of the ref): no split."""
    theirs = original / STATE_DIR
    try:
        if os.path.samefile(theirs, root / STATE_DIR):  # this very folder, through a link or a mount
            return False
        data = _jsontext.loads((theirs / CONFIG_NAME).read_bytes())
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict) or data.get("writer") != writer:
        return False
    mine, its = _repository_of(root), _repository_of(original)
    try:
        return mine is None or its is None or not os.path.samefile(mine, its)
    except OSError:  # gone meanwhile
        return True


def _repository_of(root: Path) -> Path | None:
    """The git folder every work tree of the repository in ``root`` shares (None: no
    repository git can open there)."""
    try:
        return _git_folder(open_git(root))
    except (pygit2.GitError, OSError, NotARepository):
        return None


def keep_home(state: Path, root: Path) -> None:
    """Record ``root`` as where this clone runs (``copied_from``); quietly left for the next
    command when the folder cannot be written."""
    try:
        replace_file(state / HOME_NAME, os.fsencode(root))
    except OSError:
        pass


def write_config(repo: pygit2.Repository, path: Path, config: Config) -> None:
    """Write config.json atomically, as the configuration of the clone in ``repo``'s work tree."""
    data = (json.dumps(config.to_json(), indent=2) + "\n").encode("utf-8")
    replace_file(path, data)
    own_config(repo, data)
    accept_config(repo, data)


def foreign(repo: pygit2.Repository, path: Path, data: bytes, anchor: str = OWN_CONFIG_NAME,
            record: bool = True) -> bool:
    """Whether config.json's bytes ``data`` (read from ``path``) are another clone's: they came
    through git (``from_git``), and they are not the bytes this clone wrote or took as its own
    before that (``own_config``). Bytes that are neither, a person's edit, are taken as this
    clone's from now on (not with ``record`` false: bytes taken for a writer's alone, which are
    judged against that writer's copy, ``_by_writer_alone``). ``anchor``: the file of the work
    tree's git folder naming the bytes this clone owns, for a state file other than config.json
    that a commit could supply."""
    oid = pygit2.hash(data)
    try:
        if (Path(repo.path) / anchor).read_bytes() == oid.raw:
            return False
    except OSError:
        pass
    if oid in repo or committed(repo, path):
        return True
    if record:
        _own(repo, oid, anchor)
    return False


def from_git(repo: pygit2.Repository, path: Path, data: bytes) -> bool:
    """Whether the file at ``path`` holding ``data`` came through git, not from this clone,
    which never adds the files of its state folder: git has these very bytes as an object (a
    commit, a checkout or ``git add`` put them there), or the commit checked out holds the path,
    whatever bytes the checkout wrote for it (a ``.gitattributes`` line converting its line
    endings changes them)."""
    return pygit2.hash(data) in repo or committed(repo, path)


def committed(repo: pygit2.Repository, path: Path) -> bool:
    """Whether the commit checked out in ``repo``'s work tree holds ``path`` (a file or folder
    of that work tree), itself or through a submodule on its way: the tree ends at the
    gitlink, and the files under it are another repository's, which git checked out all the
    same."""
    if repo.workdir is None:
        return False
    try:
        parts = (path.parent.resolve() / path.name).relative_to(Path(repo.workdir).resolve()).parts
        tree = repo.head.peel(pygit2.Tree)
    except (ValueError, pygit2.GitError):  # outside the work tree, or no commit yet
        return False
    for end in range(1, len(parts) + 1):
        try:
            entry = tree["/".join(parts[:end])]
        except KeyError:  # not there
            return False
        if entry.filemode == pygit2.enums.FileMode.COMMIT:
            return True
    return bool(parts)


def git_has(folder: Path) -> Callable[[Path, bytes], bool]:
    """``from_git`` for the files read in ``folder`` of the state folder, where no repository is
    at hand: the repository holding it, found and opened once for all of them."""
    repo = repository_of(folder)
    if repo is None:
        return lambda path, data: False
    return lambda path, data: from_git(repo, path, data)


def repository_of(folder: Path) -> pygit2.Repository | None:
    """The repository holding ``folder`` of the state folder, where none is at hand (opened
    from the folder, so its work tree is the one holding it: ``scope.open_repository``)."""
    found = pygit2.discover_repository(str(folder))
    return None if found is None else open_git(folder, found)


def own_config(repo: pygit2.Repository, data: bytes, anchor: str = OWN_CONFIG_NAME) -> None:
    """Record ``data`` as the configuration (or the state file ``anchor`` names) this clone
    owns, in the work tree's git folder (per work tree, and out of every commit's reach);
    quietly left for the next command when that folder cannot be written."""
    _own(repo, pygit2.hash(data), anchor)


def _own(repo: pygit2.Repository, oid: pygit2.Oid, anchor: str) -> None:
    try:
        replace_file(Path(repo.path) / anchor, oid.raw)
    except OSError:
        pass


def set_up_here(repo: pygit2.Repository, data: bytes | None = None) -> bool:
    """Whether ``gitstore init`` ran in this work tree before: its git folder, which no commit,
    patch or copy of the work tree's files reaches, keeps the copy of the configuration init
    accepted (``accept_config``), or records config.json's bytes ``data`` as the ones it owns
    (``own_config``); or ``data`` are the ones another work tree of the repository owns (a tool
    that makes a work tree per agent copies the ignored files along); or the clone was set up
    by a version that kept no copy (``_set_up_before_copies``). The record of owned bytes alone
    says nothing of other bytes: a purge by an older version left it behind. A config.json found
    without any of them came some other way (``git apply`` writes no object, so ``from_git``
    cannot tell)."""
    folder = Path(repo.path)
    if (folder / ACCEPTED_NAME).exists() or (data is not None and _owns(folder, data)):
        return True
    return set_up_elsewhere(repo, data) or _set_up_before_copies(repo)


def _set_up_before_copies(repo: pygit2.Repository) -> bool:
    """Whether this is the main work tree of a clone an init of a version that kept no copy of
    the configuration (``accept_config``) set up: the repository keeps the scope its memory is
    under, and the git folder holds what only an init that ran to its end made, the git store's
    local namespace (``.git/gitstore/local``) or memory's fetch refspecs on a remote. Versions
    that kept the scope before refusing left a refused init with the scope alone; init now keeps
    it only once the configuration and its copy are written, and ``purge`` forgets it. Never
    once an init that keeps copies ran in any work tree (the shared folder lists the writers
    it accepted): those signs are in the folder every work tree shares, and an init in a
    linked work tree alone leaves them too, for a main tree where init never ran."""
    folder = Path(repo.path)
    if (folder / "commondir").exists() or scope_and_kept(repo)[1] is None:
        return False
    if (_git_folder(repo) / ACCEPTED_WRITERS_NAME).exists():
        return False
    if (_git_folder(repo) / "gitstore" / "local").is_dir():
        return True
    try:
        return any("refs/memory/" in spec for remote in remotes(repo).values() for spec in remote.fetch_refspecs)
    except pygit2.GitError:
        return False


def _by_writer_alone(repo: pygit2.Repository, data: bytes) -> bool:
    """Whether ``data`` is taken for this work tree's configuration only because it names a
    writer id init set up a work tree with (``accepted_writers``): writer ids are no secret
    (they name memory's refs on the remote), so its settings are never taken as accepted on
    that ground; they are judged against the copy kept for that writer (``changed_since_init``)."""
    if (Path(repo.path) / ACCEPTED_NAME).exists():
        return False
    if any(_owns(other, data) for other in work_tree_git_folders(repo)):
        return False
    return not _set_up_before_copies(repo)


def set_up_elsewhere(repo: pygit2.Repository, data: bytes | None) -> bool:
    """Whether config.json's bytes ``data`` are ones another work tree of the repository owns,
    or name a writer id init set one up with (``accepted_writers``)."""
    return data is not None and (any(_owns(other, data) for other in work_tree_git_folders(repo))
                                 or _writer_of(data) in accepted_writers(repo))


def work_tree_git_folders(repo: pygit2.Repository) -> list[Path]:
    """The git folders of every work tree of ``repo``: the main one's and each linked one's."""
    common = _git_folder(repo)
    try:
        linked = sorted((common / "worktrees").iterdir())
    except OSError:
        linked = []
    return [common, *linked]


def _owns(folder: Path, data: bytes) -> bool:
    """Whether the work tree whose git folder is ``folder`` owns config.json's bytes ``data``."""
    try:
        return (folder / OWN_CONFIG_NAME).read_bytes() == pygit2.hash(data).raw
    except OSError:
        return accepted_config(folder) == data


def accept_config(repo: pygit2.Repository, data: bytes) -> None:
    """Keep a copy of ``data``, the config.json ``gitstore init`` wrote or took for this work
    tree, in its git folder: the writer a store made before anchors must be all by
    (``gitstore.providers._anchor``). Its writer joins the ids the repository's work trees
    were set up with (``accepted_writers``). Quietly left for the next init when the folder
    cannot be written."""
    path = Path(repo.path) / ACCEPTED_NAME
    writer = _writer_of(data)
    try:
        path.parent.mkdir(exist_ok=True)
        replace_file(path, data)
        if writer is not None and writer not in accepted_writers(repo):
            known = _git_folder(repo) / ACCEPTED_WRITERS_NAME
            known.parent.mkdir(exist_ok=True)
            with open(known, "a", encoding="ascii") as listed:
                listed.write(writer + "\n")
    except OSError:
        pass


def changed_since_init(repo: pygit2.Repository, data: bytes) -> list[str]:
    """What config.json's bytes ``data`` set otherwise than the copy init last accepted
    (``accept_config``): each top-level field, or each field of a section (``dream.labeler``),
    that differs. A person's edit and a patch (``git apply`` writes the file and leaves git no
    trace) look alike; what runs a program is not taken from such a change until init takes
    the file (``refuse_unaccepted``). Nothing when no copy is kept in a clone set up before
    copies were (its next command keeps one) or ``data`` cannot be read; where no copy judges
    ``data`` otherwise (``_kept_copy``), every setting but whose records they are (``IDENTITY``,
    which ``set_up_here`` judged) counts as changed. A kept copy that is no JSON object
    (damaged: ``damaged_copy``) accepts nothing: every setting counts as changed."""
    kept = _kept_copy(repo, data)
    try:
        now = _jsontext.loads(data)
    except ValueError:
        return []
    if not isinstance(now, dict):
        return []
    if kept is None:
        if _set_up_before_copies(repo):  # its first command keeps one
            return []
        # no copy to judge by: no setting is accepted, whose records alone (set_up_here)
        then = {key: now[key] for key in (*IDENTITY, "writerGiven") if key in now}
    else:
        then = _object(kept) or {}  # a copy that cannot be read: no setting of it is accepted
    changed = []
    for key in sorted(set(now) | set(then)):
        ours, theirs = now.get(key), then.get(key)
        if isinstance(ours, dict) or isinstance(theirs, dict):  # a section added or removed: each field of it
            ours, theirs = ({} if ours is None else ours), ({} if theirs is None else theirs)
        if isinstance(ours, dict) and isinstance(theirs, dict):
            changed += [f"{key}.{name}" for name in sorted(set(ours) | set(theirs))
                        if ours.get(name) != theirs.get(name)]
        elif ours != theirs:
            changed.append(key)
    return changed


def _object(data: bytes) -> dict[str, Any] | None:
    """``data`` read as a JSON object (None: not JSON, or no object)."""
    try:
        found = _jsontext.loads(data)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def damaged_copy(repo: pygit2.Repository) -> Path | None:
    """The copy of config.json init last took for this work tree (``accept_config``) when it is
    there but no JSON object: nothing of it is taken as accepted (``changed_since_init``) until
    ``ACCEPT`` writes it again."""
    path = Path(repo.path) / ACCEPTED_NAME
    kept = accepted_config(repo.path)
    return path if kept is not None and _object(kept) is None else None


def _kept_copy(repo: pygit2.Repository, data: bytes) -> bytes | None:
    """The copy init accepted that config.json's bytes ``data`` are judged against: this work
    tree's (``accept_config``); where it keeps none, ``data`` themselves when they are a copy
    init accepted for a work tree of the repository (a tool that makes a work tree per agent
    copies the main one's ignored files along), else the copy of a work tree that owns them
    (``own_config``: bytes it took as a person's edit, which its own copy still judges), else
    the copy another work tree keeps for their writer (None: none, or a clone set up before
    copies were kept, ``_set_up_before_copies``)."""
    kept = accepted_config(repo.path)
    if kept is not None or _set_up_before_copies(repo):
        return kept
    if _adoptable(repo, data):
        return data
    here = Path(repo.path).resolve()
    others = [folder for folder in work_tree_git_folders(repo) if folder.resolve() != here]
    owner = next((copy for copy in (accepted_config(folder) for folder in others if _owns(folder, data))
                  if copy is not None), None)
    if owner is not None:
        return owner
    return next((copy for copy in map(accepted_config, others)
                 if copy is not None and _writer_of(copy) == _writer_of(data)), None)


def _adoptable(repo: pygit2.Repository, data: bytes) -> bool:
    """Whether a work tree that keeps no copy of its own takes config.json's bytes ``data`` as
    the ones init accepted for it: a clone set up before copies were kept (its first command
    keeps one), or bytes init accepted for a work tree of the repository (``accept_config``).
    Bytes another work tree merely owns (``own_config``: a person's edit there, or a patch,
    that its copy does not hold) are never taken: they are judged against that tree's copy
    (``_kept_copy``) until init takes them here."""
    if _set_up_before_copies(repo):
        return True
    return any(accepted_config(folder) == data for folder in work_tree_git_folders(repo))


IDENTITY = ("writer", "provider")  # what says whose records these are and where they are kept


def refuse_new_identity(repo: pygit2.Repository, path: Path, data: bytes, config: Config) -> None:
    """Refuse config.json's bytes ``data`` (at ``path``, read as ``config``) when they name
    another writer or provider than the copy init accepted (``_kept_copy``): a patch changes
    them as easily as a person (``git apply`` leaves git no trace), and either would have this
    clone append as another writer, strand what it wrote, or open a store it never wrote
    (another clone's, claiming this clone's writer id). So does ``writerGiven`` turned on: it
    has ``gitstore sync`` take what the remote holds under this clone's writer id as this clone's
    own history (``init --writer`` sets it for a CI job's fresh checkouts). Nothing is opened
    until init takes the file or the change is put back."""
    kept = _kept_copy(repo, data)
    try:
        then = _jsontext.loads(kept) if kept is not None else None
    except ValueError:
        return
    if not isinstance(then, dict):
        return
    was = {"writer": then.get("writer"), "provider": then.get("provider", "git")}
    now = {"writer": config.writer, "provider": config.provider}
    changed = [f"{key} changed from {was[key]} to {now[key]}" for key in IDENTITY if was[key] != now[key]]
    if config.writer_given and then.get("writerGiven") is not True:  # sync would take the remote's history
        changed.append("writerGiven changed from false to true")  # under this writer id as this clone's own
    if changed:
        raise ForeignConfig(f"{path}: {' and '.join(changed)} since this clone's `gitstore init` last took the file (a "
                            "person's edit, or a patch: `git apply` writes it and leaves git no trace), so no store "
                            "is opened: if you made the change, run `gitstore init --accept-changes` to take the file; otherwise put "
                            "back what was there")


def refuse_unaccepted(repo: pygit2.Repository, path: Path, fields: tuple[str, ...], runs: str) -> None:
    """Refuse to act on ``fields`` of config.json (at ``path``) that changed since init last took
    the file (``changed_since_init``): they choose a program gitstore would run (``runs``), and a
    patch can change them as well as a person."""
    changed = unaccepted(repo, path, fields)
    if changed:
        raise Unaccepted(f"{path}: {', '.join(changed)} changed since this clone's `gitstore init` last took the file "
                      f"(a person's edit, or a patch: `git apply` writes it and leaves git no trace), and {runs}: "
                      "if you made the change, `gitstore init --accept-changes` takes the file as it is now; otherwise put back what "
                      "was there", changed)


def unaccepted(repo: pygit2.Repository, path: Path, fields: tuple[str, ...]) -> list[str]:
    """The fields of config.json (at ``path``) within ``fields`` that changed since init last
    took the file (``changed_since_init``): what they name waits for ``ACCEPT`` to be in force."""
    return [name for name in changed_since_init(repo, config_bytes(path)) if guarded_by(name, fields)]


ACCEPT = "gitstore init --accept-changes"  # the command that takes a changed config.json as it is


def capture_mode(workspace: Workspace) -> str:
    """The capture mode config.json names, once init took it: a ``capture`` section changed
    since (a patch can turn the summary a capture keeps into whole transcripts, ``git apply``
    leaving git no trace) captures nothing until ``gitstore init --accept-changes``."""
    refuse_unaccepted(workspace.repo, workspace.state / CONFIG_NAME, ("capture",),
                      "a capture keeps as much of a session as capture.mode names")
    return workspace.config.capture_mode


def guarded_by(name: str, fields: tuple[str, ...]) -> bool:
    """Whether the changed field ``name`` (``changed_since_init``: ``loop.by``, or ``dream`` when
    the section is no object) is, holds or lies within one of ``fields`` (``loop``, ``dream.labeler``)."""
    return any(name == field or name.startswith(field + ".") or field.startswith(name + ".") for field in fields)


def accepted_writers(repo: pygit2.Repository) -> set[str]:
    """The writer ids init set up any work tree of the repository with, as its shared git
    folder lists them: a work tree made for an agent with the main one's config.json copied
    in is set up with one of them, though the main one has a new id since."""
    try:
        return set((_git_folder(repo) / ACCEPTED_WRITERS_NAME).read_text(encoding="ascii").split())
    except (OSError, UnicodeDecodeError):
        return set()


def _writer_of(data: bytes | None) -> str | None:
    """The writer id config.json's bytes ``data`` name (None: none, or not JSON)."""
    try:
        found = _jsontext.loads(data) if data is not None else None
    except ValueError:
        return None
    writer = found.get("writer") if isinstance(found, dict) else None
    return writer if isinstance(writer, str) else None


def accepted_config(git_dir: str | Path) -> bytes | None:
    """The copy ``accept_config`` kept in the work tree's git folder ``git_dir`` (None: none)."""
    try:
        return (Path(git_dir) / ACCEPTED_NAME).read_bytes()
    except OSError:
        return None


def accepted_writer(git_dir: str | Path) -> str | None:
    """The writer id of the configuration init last accepted (None: none kept, or unreadable)."""
    return _writer_of(accepted_config(git_dir))


def new_writer_id() -> str:
    """A fresh writer id for a clone."""
    import secrets

    return "w" + secrets.token_hex(6)


def git_ignores(root: Path, path: Path) -> bool:
    """Whether git ignores ``path`` (following links), as real git decides."""
    return asking_git_ignores(root, path)()


def asking_git_ignores(root: Path, path: Path) -> Callable[[], bool]:
    """Start asking git whether it ignores ``path`` (``git_ignores``); the function returned
    waits for the answer, so the caller can work meanwhile."""
    real = path.resolve()
    try:
        rel = real.relative_to(root.resolve())
    except ValueError:
        return lambda: False
    probe = str(rel / "probe") if real.is_dir() or not real.exists() else str(rel)
    # a capture asks this at every run: spawned without loading ``subprocess`` (gitstore._spawn)
    answer = spawn(["git", "-C", str(root), "check-ignore", "-q", "--no-index", probe], _git_env())
    return lambda: answer()[0] == 0


def _git_env() -> dict[str, str]:
    """The environment for asking git about the work tree: none of the GIT_* variables a git
    hook exports (its own configuration's aside)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k.startswith("GIT_CONFIG")}


_EXCLUDE_COMMENT = "# gitstore: local memory state, never committed"


def ensure_ignored(repo: pygit2.Repository, root: Path, folder: Path) -> bool:
    """Make git ignore ``folder`` through .git/info/exclude; True if a rule was added. Refused,
    naming it, where a rule of higher precedence (a ``!`` line of a .gitignore) un-ignores it.
    The file is the common git folder's: git never reads a linked worktree's own."""
    if git_ignores(root, folder):
        return False
    exclude = _git_folder(repo) / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    rule = "/" + folder.resolve().relative_to(root.resolve()).as_posix() + "/"
    existing = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    added = rule not in existing.splitlines()
    if added:
        with exclude.open("a", encoding="utf-8") as out:
            if existing and not existing.endswith("\n"):
                out.write("\n")
            out.write(f"{_EXCLUDE_COMMENT}\n{rule}\n")
    if not git_ignores(root, folder):
        against = unignoring_rule(root, folder)
        raise Refused(f"{folder} is still not ignored by git with {rule} in {exclude}"
                      + (f": {against} un-ignores it; remove that line and run this again" if against else ""))
    return added


def forget_ignored(repo: pygit2.Repository, root: Path, folder: Path) -> bool:
    """Take out of .git/info/exclude the rule ``ensure_ignored`` added for ``folder``: the rule
    line right after init's comment line, with that comment; True if it was there. Every other
    byte stays as it was (a rule the person wrote themselves, line endings a CRLF file has).
    The file is every work tree's: while another work tree of the repository still holds its
    own ``folder``, the rule stays, or that folder's config.json would show in its ``git
    status`` and go into a ``git add -A``."""
    try:
        rel = folder.absolute().relative_to(root.absolute())
    except ValueError:
        return False
    if any(tree.resolve() != root.resolve() and (tree / rel).exists() for tree in _work_trees(repo)):
        return False
    exclude = _git_folder(repo) / "info" / "exclude"
    try:
        text = exclude.read_bytes().decode("utf-8")  # bytes: no newline is translated
    except (OSError, UnicodeDecodeError):
        return False
    lines = text.split("\n")  # git ends a line at a line feed alone
    rule = "/" + rel.as_posix() + "/"
    kept: list[str] = []
    at = 0
    while at < len(lines):
        if (lines[at].rstrip("\r") == _EXCLUDE_COMMENT and at + 1 < len(lines)
                and lines[at + 1].rstrip("\r") == rule):
            at += 2
            continue
        kept.append(lines[at])
        at += 1
    if len(kept) == len(lines):
        return False
    exclude.write_bytes("\n".join(kept).encode("utf-8"))
    return True


def tracked_under(root: Path, folder: Path) -> list[str]:
    """The files under ``folder`` git tracks (in its index): an ignore rule does not untrack a
    file committed before it, so a commit would still share them."""
    try:
        rel = folder.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return []
    import subprocess

    from gitstore._files import tracked_within

    # in any case: a file system that ignores case checks okf/.MEMORY/x out as okf/.memory/x
    done = subprocess.run(["git", "ls-files", "-z", "--", f":(icase){rel}"], cwd=root, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, env=_git_env())
    return tracked_within(str(root), rel, [path for path in done.stdout.split("\0") if path])


def exposed_under(root: Path, folder: Path) -> list[str]:
    """The files under ``folder`` git neither tracks nor ignores: what ``git add -A`` would
    stage now (a ``.gitignore`` line un-ignoring the folder)."""
    try:
        rel = folder.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return []
    import subprocess

    done = subprocess.run(["git", "ls-files", "-z", "--others", "--exclude-standard", "--", rel], cwd=root,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, env=_git_env())
    return sorted(path for path in done.stdout.split("\0") if path)


def unignoring_rule(root: Path, folder: Path) -> str | None:
    """The ``!`` rule that keeps git from ignoring ``folder`` (or what it holds), as ``FILE:LINE:
    PATTERN`` (FILE from the root), or None when no such rule is the reason."""
    try:
        rel = folder.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    import subprocess

    for probe in (rel, f"{rel}/probe"):
        done = subprocess.run(["git", "check-ignore", "-v", "-n", "--no-index", probe], cwd=root, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, env=_git_env())
        where = done.stdout.split("\t", 1)[0]  # SOURCE:LINE:PATTERN, or "::" when no pattern matched
        if where.split(":", 2)[-1].startswith("!"):
            return where
    return None
