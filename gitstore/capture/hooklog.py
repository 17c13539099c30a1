"""The hooks' log: one line per problem in ``<repository>/okf/.memory/logs/hooks.log``.

Shared by the capture hook and the context hook, both run by harnesses on every session or
prompt: a hook never shows a failure to the agent, so this file is where it goes. Outside a
gitstore repository, or where the repository's log cannot be written (a checkout mounted
read-only), the line goes to ``gitstore-hooks.log`` in the temporary folder, shared by every
folder, readable by its owner only, so there each line names the folder it comes from (``in
<folder>:``, the bytes of its name that are not UTF-8 as escapes) and ``gitstore doctor`` shows a
repository only its own; where neither file can take it, to standard error. While git does not
ignore ``okf/.memory/`` (``away``), a repository's log is ``logs/hooks.log`` under ``gitstore`` in
its work tree's git folder instead.
Logging never raises. Standard library only, for a fast start.
"""

from __future__ import annotations

import os
import time

LOG_NAME = "hooks.log"
UNIGNORED = "unignored"  # under the work tree's git folder's ``gitstore``: okf/.memory is not ignored (``away``)
# gitstore's own files, by the folder of the package: a checkout or a virtual environment named
# ``gitstore`` holds other files (tests, dependencies) whose paths hold ``/gitstore/`` too
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def working_dir() -> str:
    """The folder this process works in, or ``/`` when there is none: a harness may run a hook
    in a folder removed meanwhile (a deleted worktree), where ``os.getcwd`` raises."""
    try:
        return os.getcwd()
    except OSError:
        return "/"


def state_dir(cwd: str) -> str | None:
    """``<repository>/okf/.memory`` above ``cwd``, when it exists."""
    root = repository_dir(cwd)
    return None if root is None else os.path.join(root, "okf", ".memory")


def repository_dir(cwd: str) -> str | None:
    """The repository at or above ``cwd`` that has gitstore's state folder (``state_dir``) and
    that ``gitstore init`` set up (``set_up``). A repository can commit files under
    ``okf/.memory/`` (a ``config.json``, a link in its place), and a hook installed for the user
    runs in every folder: a state folder in a clone init never ran in is no gitstore
    repository's, and the hooks write nothing there (no job, no log)."""
    path = os.path.abspath(cwd)
    while True:
        if os.path.isdir(os.path.join(path, "okf", ".memory")) and os.path.exists(os.path.join(path, ".git")) \
                and set_up(path):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def set_up(root: str) -> bool:
    """Whether ``gitstore init`` set up the clone of the work tree at ROOT: its common git
    folder keeps ``gitstore/`` (``clone_state``), which only init makes and no commit, checkout
    or copy of the work tree's files reaches. Nothing under ``okf/.memory/`` is read for it. A
    ``stat`` or two in a clone's main work tree; a linked one's ``.git`` file and its git
    folder's ``commondir`` are read too (``deliver.place.git_folders``)."""
    dot = os.path.join(root, ".git")
    if os.path.isdir(dot) and not os.path.exists(os.path.join(dot, "commondir")):
        return os.path.isdir(os.path.join(dot, "gitstore"))
    from gitstore.deliver.limits import Inert
    from gitstore.deliver.place import git_folders

    try:
        return os.path.isdir(os.path.join(git_folders(root, dot)[1], "gitstore"))
    except (Inert, OSError, ValueError):  # ValueError: a name that does not decode, among others
        return False


def clone_state(cwd: str) -> str | None:
    """``<common git folder>/gitstore`` of the repository at or above ``cwd``, once ``gitstore
    init`` made it; None otherwise. The clone's own: no commit or checkout writes there."""
    import pygit2

    from gitstore.providers._gitdirs import common_dir
    from gitstore.scope import open_git

    found = pygit2.discover_repository(cwd)
    state = common_dir(open_git(found)) / "gitstore" if found else None
    return str(state) if state is not None and state.is_dir() else None


def shared_log() -> str:
    """The log of hooks that ran outside any gitstore repository."""
    import tempfile

    return os.path.join(tempfile.gettempdir(), "gitstore-" + LOG_NAME)


def _is_shared(path: str) -> bool:
    """Whether PATH is ``shared_log()``; a repository's log is never named like it, and is told
    without importing ``tempfile`` (a capture's worker does not load it)."""
    return os.path.basename(path) == "gitstore-" + LOG_NAME and path == shared_log()


def away(root: str) -> str | None:
    """The folder the hooks of the work tree at ROOT keep their jobs' log in, in place of
    ``okf/.memory/``, while git does not ignore that (a commit un-ignored it, and ``git add -A``
    would commit what is written there): ``gitstore`` in the work tree's git folder, which no
    commit reaches, once the worker found the state folder not ignored and left the marker
    ``UNIGNORED`` there (``gitstore.capture.agent_hook``); None otherwise. One ``stat`` in a
    clone's main work tree; a linked one's ``.git`` file is read too."""
    folder = os.path.join(root, ".git", "gitstore")
    try:
        os.stat(os.path.join(folder, UNIGNORED))
        return folder
    except NotADirectoryError:  # a linked work tree: ``.git`` is a file naming its git folder
        pass
    except OSError:
        return None
    folder = os.path.join(git_dir(root), "gitstore")
    return folder if os.path.exists(os.path.join(folder, UNIGNORED)) else None


def git_dir(root: str) -> str:
    """The git folder of the work tree at ROOT: ``.git``, or the one its ``.git`` file names
    (``deliver.place.git_folders``, loaded for a linked work tree only: the hook starts small)."""
    dot = os.path.join(root, ".git")
    if os.path.isdir(dot):
        return dot
    from gitstore.deliver.limits import Inert
    from gitstore.deliver.place import git_folders

    try:
        return git_folders(root, dot)[0]
    except (Inert, OSError):
        return dot


def log_path(cwd: str) -> str:
    state = state_dir(cwd)
    if state is not None:
        moved = away(os.path.dirname(os.path.dirname(state)))
        logs = os.path.join(moved or state, "logs")
        os.makedirs(logs, exist_ok=True)
        return os.path.join(logs, LOG_NAME)
    return shared_log()


def _append(path: str, line: str) -> None:
    """Append ``line`` to the log at ``path``, never through a link: a commit can put one in
    the log's place (or the logs folder's, the state folder's or ``okf``'s), and git checks it out over
    the clone's own file, so a line would land in whatever file it names (a shell's start-up
    file runs what it holds). The temporary folder's log is anyone's to create (the folder
    itself may be a link, as ``/tmp`` is on macOS). Only its owner may read a log: the temporary
folder is everyone's."""
    folder = os.path.dirname(path)
    shared = _is_shared(path)
    state = os.path.dirname(folder)
    if not shared and any(os.path.islink(at) for at in (folder, state, os.path.dirname(state))):
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    if shared:  # one an earlier version created readable by all: its lines name folders and problems
        try:
            os.fchmod(fd, 0o600)
        except OSError:  # another user's: lines still go there
            pass
    with os.fdopen(fd, "a", encoding="utf-8", errors="backslashreplace") as out:  # a path need not be UTF-8
        out.write(line)


def _say(line: str) -> None:
    """``line`` on standard error, as Python opened it (None when the harness closed it: the
    descriptor may hold something else since, such as a hook's answer)."""
    import sys

    if sys.stderr is not None:
        sys.stderr.write(line)
        sys.stderr.flush()


def log(cwd: str, harness: str, message: str) -> None:
    """Append one line to the repository's hook log, or to the temporary folder's (naming the
    folder): outside a repository, or where its log cannot be written (a checkout mounted
    read-only); where neither can take it, to standard error. Never raise."""
    try:
        line = " ".join(message.split())[:1000]
        name = "-".join(harness.split())[:64] or "-"  # one word: a job file's harness may be anything
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        where = f"in {named(os.path.realpath(cwd))}: "
        try:
            path = log_path(cwd)
            _append(path, f"{stamp} {name} {where if _is_shared(path) else ''}{line}\n")
        except OSError:
            try:
                _append(shared_log(), f"{stamp} {name} {where}{line}\n")
            except OSError:
                _say(f"gitstore: {name}: {line}\n")
    except BaseException:  # noqa: BLE001
        pass


def failure(exc: BaseException) -> str:
    """An unexpected exception as a log line may name it: its kind and the line of gitstore's
    that raised it, never its message, which may quote what the hook read (a prompt, secrets
    included: a codec or SQLite error quotes the text it could not take)."""
    where = ""
    trace = exc.__traceback__
    while trace is not None:
        code = trace.tb_frame.f_code.co_filename
        if code.startswith(_PACKAGE):
            where = f" at {os.path.basename(code)}:{trace.tb_lineno}"
        trace = trace.tb_next
    return f"{type(exc).__name__}{where}"


# gitstore's own errors, by kind (the first of an error's classes listed), as a log line
# describes them: their messages may quote what was read (a file's name, a record's value)
KINDS = {
    "IntegrityError": "stored data is damaged: `gitstore verify` names it",
    "Unignored": "git does not ignore okf/.memory/ (a `!` rule of a .gitignore): hooks keep their jobs and log in "
                 ".git/gitstore/ until it is ignored again; `gitstore doctor` names the rule",
    "ForeignConfig": "okf/.memory/config.json came with a commit: `gitstore init` gives the clone its own",
    "Refused": "a rule of the store refused it: `gitstore doctor` says which",
    "ConflictError": "other writes kept winning the race for the store",
    "ContractError": "a record built from the session fails its contract",
    "InvalidInput": "what the session gave cannot be read",
    "NotARepository": "no repository gitstore can work in: `gitstore doctor` there says why",
    "GitstoreError": "gitstore refused it",
}


def described(exc: BaseException, kinds: dict[str, str] = KINDS) -> str:
    """An exception as a log line names it (``failure``), with what went wrong in words that
    quote nothing read: an operating system error's own text (``No space left on device``,
    never the file it names), a gitstore error's kind (``kinds``, a capture's by default) and
    what to run."""
    if isinstance(exc, OSError) and isinstance(exc.errno, int):
        what = os.strerror(exc.errno)
    elif _unaccepted(exc):
        what = _unaccepted(exc)
    elif _cut_short(exc):
        what = "memory's history is shallow here (a fetch with --depth cut it): `gitstore sync` fetches it whole"
    else:
        what = next((kinds[c.__name__] for c in type(exc).__mro__ if c.__name__ in kinds), "")
    name, _, where = failure(exc).partition(" at ")
    return f"{name}{f' ({what})' if what else ''}{f' at {where}' if where else ''}"


def _unaccepted(exc: BaseException) -> str:
    """What a capture refused for a change to config.json that init has not taken
    (``gitstore.errors.Unaccepted``) says in the log: the fields, each a name a patch may have
    chosen shown escaped and cut (``gitstore._shown.bounded``), and the command that takes them,
    as ``gitstore doctor`` says it. Empty for any other exception."""
    if not any(c.__name__ == "Unaccepted" for c in type(exc).__mro__):
        return ""
    from gitstore._shown import bounded

    fields = ", ".join(bounded(str(name)) for name in getattr(exc, "fields", ()))
    return (f"{fields} changed in okf/.memory/config.json since this clone's `gitstore init` last took the file "
            "(a person's edit, or a patch applied), and a hook captures nothing until init takes it: if you made "
            "the change, `gitstore init --accept-changes` takes the file as it is now; otherwise put back what was "
            "there")


def _cut_short(exc: BaseException) -> bool:
    """Whether EXC is gitstore's refusal of a memory history a fetch with ``--depth`` cut short:
    no damage, and a sync mends it (its message is gitstore's own words, read for them alone)."""
    if type(exc).__name__ != "IntegrityError":
        return False
    from gitstore.providers._shallow import SHALLOW_NOTE

    return SHALLOW_NOTE in str(exc)


def named(folder: str) -> str:
    """A folder as a log line names it: its bytes that are not UTF-8 as escapes (``\\xff``),
    so the line can be written and read as UTF-8, and always names a folder the same way."""
    return os.fsencode(folder).decode("utf-8", "backslashreplace")


def from_folder(line: str, root: str) -> bool:
    """Whether a line of the shared log came from a hook run in ``root`` or below it."""
    parts = line.split(" ", 2)
    rest = parts[2] if len(parts) == 3 else ""
    root = named(root)
    return rest.startswith(f"in {root}/") or rest.startswith(f"in {root}: ")
