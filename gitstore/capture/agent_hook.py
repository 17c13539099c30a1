"""The command every harness hook runs: ``python -m gitstore.capture.agent_hook HARNESS [PAYLOAD]``.

It reads the hook's JSON payload (standard input, at most 1 MiB, or the last argument, which is
how Codex's ``notify`` passes it) and hands the fields capture reads (the session, event,
transcript, folder and version: ``gitstore.capture.hookfields``; never the free text a payload
carries beside them, such as the agent's last message) to the capture library,
``gitstore.capture.sessions.capture_from_hook(harness, payload, cwd)``. It never blocks or breaks the
agent: it exits 0 whatever happens, writes nothing to standard output (harnesses read it), and
gives up after a wall-clock limit. What went wrong goes as one line to
``<repository>/okf/.memory/logs/hooks.log``, or to ``gitstore-hooks.log`` in the temporary folder
outside a gitstore repository. In a checkout whose ``okf/.memory/`` came with the repository (a
clone ``gitstore init`` never set up: ``hooklog.set_up``) it does nothing at all (``_not_set_up``).

The payload is spooled under ``okf/.memory/inbox/`` and a background worker (this process,
forked and detached) captures it, then retries the spools earlier runs left; a spool goes once
its capture is done. A capture that runs out of time keeps its spool: a fresh process writes an
envelope and a ``degraded`` receipt naming the timeout (``capture-timeout``, through
``gitstore.capture.sessions.capture_timed_out``), then carries on with the spools waiting, and
the worker of the next hook run in the repository, of any harness, retries it. A run's spool
takes over the spools waiting for the same session, with their attempts (a capture reads the
transcript as it is by then); after ``MAX_ATTEMPTS`` attempts of a session the spool is set
aside as ``failed-hook-*.json``, later runs of that session capture nothing while it is there,
and the log says so. Capture is replay-invariant, so a retry writes the episode a capture in
time would have written. A worker takes a spool under an exclusive ``flock``, so two runs never
capture the same one at once. A job that waited in the temporary folder (the inbox had a link on
the way, or could not be written) and failed is kept in the clone's ``.git/gitstore/held-jobs/``,
and goes back to the inbox for its retry once the inbox can take it. Where git does not ignore
``okf/.memory/``, a capture refuses to write there, and the worker moves the jobs and the log out
of it, leaving a marker the hook reads (``_move_away``, ``hooklog.away``).

It starts fast: only the standard library's small modules are imported before the capture
library, which is imported late and inside the guard. In a repository with gitstore set up the
hook forks its worker before it reads the payload, so the worker imports the capture library
while the hook spools; the worker gets its job through a pipe, and where a core is free forks a
reader that parses and scans the transcript while it opens the store
(``gitstore.capture.readahead``).

Environment:

- ``GITSTORE_HOOK_TARGET=module:function`` calls another function instead of the capture library
  (tests use it to stand in a function that fails or hangs).
- ``GITSTORE_HOOK_TIMEOUT`` is the wall-clock limit in seconds (default 10).
- ``GITSTORE_HOOK_INLINE=1`` runs the worker in the hook's own process (tests use it); the spool,
  the time limit and the retries are the same.
- ``GITSTORE_HOOK_READ_AHEAD=0`` never forks the reader, ``=1`` always does where ``fork`` is
  there; unset, the reader is forked when a core is free (``gitstore.capture.readahead``).

``python -m gitstore.capture.agent_hook --check`` is the dry run ``gitstore hooks status`` uses: it imports the
capture entry point and checks that it takes ``(harness, payload, cwd)``; it exits 0 when ready,
else 1 with the reason on standard error.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import threading

from gitstore import _jsontext
from gitstore.capture.hookfields import SESSION, TRANSCRIPT, first, kept
from gitstore.capture.hooklog import described, failure, log as _log, repository_dir as _repository_dir, state_dir as _state_dir
from gitstore.capture.hooklog import UNIGNORED, away, git_dir, working_dir
from gitstore.capture.hooklog import clone_state as _clone_state, set_up as _set_up

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

from gitstore.records.vocabulary import HARNESSES

MAX_PAYLOAD = 1 << 20
READ_SECONDS = 3.0
DEFAULT_TIMEOUT = 10.0
TARGET_ENV = "GITSTORE_HOOK_TARGET"
TIMEOUT_ENV = "GITSTORE_HOOK_TIMEOUT"
DEFAULT_TARGET = "gitstore.capture.sessions:capture_from_hook"
TIMED_OUT_TARGET = "gitstore.capture.sessions:capture_timed_out"
SPOOL_PREFIX = "hook-"
FAILED_PREFIX = "failed-"
HELD = "held-jobs"  # under <common git folder>/gitstore: jobs the temporary folder held, kept for a retry
HELD_KEPT = (f"kept in .git/gitstore/{HELD}/ for a retry once okf/.memory/inbox can take it (a real folder, no "
             "symbolic link on the way, writable, ignored by git)")
MAX_ATTEMPTS = 3
RETRIES_PER_RUN = 5


class HookProblem(Exception):
    """Something the log should say, in one line."""


class CaptureFailed(HookProblem):
    """The capture of a sound job failed (a full disk, a read-only store, a record refused, the
    capture library missing): the job is kept, for the next hook's run to retry. UNIGNORED: it
    was refused because git does not ignore ``okf/.memory/`` (``_move_away``). SET_UP: it was
    refused for the clone's set-up (a config.json a commit brought, one ``git clean`` removed),
    no fault of the session's: the attempt is given back (``_uncount``)."""

    unignored = False
    set_up = False


INLINE_ENV = "GITSTORE_HOOK_INLINE"


def main(argv: list[str] | None = None) -> int:
    _standard_descriptors()
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["--check"]:
        return check()
    if args[:1] == ["--worker"]:
        return worker(args[1:])
    if args[:1] == ["--timed-out"]:
        return timed_out(args[1:])
    harness = args[0] if args else ""
    cwd = working_dir()
    _silence_stdout()
    try:
        cwd = _run(harness, args[1:], cwd)
    except HookProblem as exc:
        _log(cwd, harness, str(exc))
    except BaseException as exc:  # noqa: BLE001 - the agent must never see a failure
        _log(cwd, harness, f"hook failed: {failure(exc)}")  # its message may quote the payload
    return 0


def _run(harness: str, rest: list[str], cwd: str) -> str:
    if harness not in HARNESSES:
        raise HookProblem(f"unknown harness {harness!r} (one of {', '.join(HARNESSES)})")
    inline = bool(os.environ.get(INLINE_ENV))
    job = None if inline else _fork_worker(cwd)
    try:
        raw = rest[-1].encode("utf-8", "surrogateescape") if rest else _read_stdin()
        payload = _parse(raw)
        if isinstance(payload.get("cwd"), str) and os.path.isdir(payload["cwd"]):
            cwd = payload["cwd"]
        spool = None if _not_set_up(cwd) else _spool(harness, payload, cwd)
    except BaseException:
        if job is not None:  # closed unwritten: the worker reads nothing and stops
            os.close(job)
        raise
    if spool is None:  # nothing to capture here
        if job is not None:
            os.close(job)
        return cwd
    if inline:
        worker([spool])
    elif job is not None:
        with os.fdopen(job, "wb") as sink:
            sink.write(json.dumps([spool, cwd, harness, payload]).encode())
    else:
        _detach(spool, cwd)
    return cwd


def _not_set_up(cwd: str) -> bool:
    """Whether CWD is in a checkout with an ``okf/.memory/`` that ``gitstore init`` never set
    up (``hooklog.set_up``), and in no repository it set up around it: the repository committed
    the folder (a ``config.json``, a link in its place to ``/dev/zero`` or a FIFO, one deleted
    since) and the hook, installed for the user, runs in every folder. Nothing is captured
    there: the hook spools no job, starts no worker, reads nothing of that folder and writes
    nothing, there or in the temporary folder's log. A checkout without ``okf/.memory/`` goes on
    as before: a clone init set up whose state folder ``git clean -x`` removed is one."""
    if _repository_dir(cwd) is not None:
        return False
    from gitstore.deliver.place import work_tree

    found = work_tree(cwd)
    return found is not None and os.path.lexists(os.path.join(found[0], "okf", ".memory")) and not _set_up(found[0])


def _spool(harness: str, payload: dict[str, Any], cwd: str) -> str:
    """Write the job to ``okf/.memory/inbox/`` (git-ignored) when the repository has it, else
    to the temporary folder; return its path."""
    from gitstore._files import new_file

    folder = _inbox(cwd, harness)
    data = json.dumps({"harness": harness, "payload": payload, "cwd": cwd, "attempts": 0}).encode("utf-8")
    failure: OSError | None = None
    for inbox in ([folder] if folder else []) + [""]:
        if not inbox:
            import tempfile  # only here: its imports cost the hook milliseconds

            inbox = tempfile.gettempdir()
        try:  # the repository's inbox unless it cannot be written (read-only, full): the temporary folder's
            os.makedirs(inbox, exist_ok=True)
            # written under a name no run takes for a job, then renamed: a run retrying waiting jobs
            # never reads one half written
            fd, partial = new_file(inbox, f".{SPOOL_PREFIX}{harness}-", ".json.partial")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                spool = os.path.join(inbox, os.path.basename(partial)[1:].removesuffix(".partial"))
                os.rename(partial, spool)
            except BaseException:
                _discard(partial)
                raise
            return spool
        except OSError as exc:
            failure = exc
    assert failure is not None
    raise failure


def _inbox(cwd: str, harness: str) -> str | None:
    """The repository's inbox, ``okf/.memory/inbox``, unless a symbolic link is on the way to
    it: a commit can put one there (``git add -f``), git checks it out over the clone's own
    folder, and a job written through it (its session, transcript and folder), or set aside
    there, would land in whatever folder it names, a tracked one that the next commit shares.
    Then the log says so and the job goes to the temporary folder, as where the inbox cannot
    be written. None outside a gitstore repository."""
    from gitstore._files import link_on_the_way

    root = _repository_dir(cwd)
    if root is None or away(root) is not None:  # not ignored by git: nothing of the job goes there
        return None
    link = link_on_the_way(root, "okf", ".memory", "inbox")
    if link is None:
        return os.path.join(root, "okf", ".memory", "inbox")
    _log(cwd, harness, f"{os.path.relpath(link, root)} is a symbolic link (a commit can put one there): the job "
                       "goes to the temporary folder, never through it; delete the link (`gitstore doctor` names it)")
    return None


def _detach(spool: str, cwd: str) -> None:
    """Capture SPOOL in a detached child of this process; return at once in the hook.

    The child is this process forked (it has read and spooled the payload already: a fresh
    interpreter would start and import all over again), in a session of its own, with standard
    input and output on the null device and no other descriptor of the harness's, so nobody
    waits for it; it runs the worker and exits. Where there is no ``fork``, the worker is this
    module started again in the background.
    """
    if not hasattr(os, "fork"):
        _start(["--worker", spool], cwd)
        return
    try:
        pid = os.fork()
    except OSError:
        _start(["--worker", spool], cwd)
        return
    if pid:
        return
    try:  # the worker
        os.setsid()
        _detached_descriptors()
        _safe_path()
        os.chdir(cwd)
        worker([spool])
    finally:
        os._exit(0)  # never return into the hook's own exit


def _fork_worker(cwd: str) -> int | None:
    """Fork the background worker before the payload is read, so that it starts importing the
    capture library while this process reads and spools the payload (a repository with
    gitstore set up around CWD only). Returns the write end of the pipe the worker reads its
    job from once it is spooled; closed unwritten, the worker stops. None where there is no
    ``fork`` or no repository: ``_detach`` forks once the job is spooled."""
    if not hasattr(os, "fork") or _state_dir(cwd) is None:
        return None
    job_out, job_in = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(job_out)
        os.close(job_in)
        return None
    if pid:
        os.close(job_out)
        return job_in
    try:  # the worker
        os.setsid()
        _detached_descriptors(keep=(job_out,))
        _safe_path()
        _early_worker(job_out)
    finally:
        os._exit(0)  # never return into the hook's own exit


def _early_worker(job: int) -> None:
    """The worker ``_fork_worker`` started. It imports what it needs to read its job while the
    hook spools it, forks the child that reads the transcript ahead once it has the job (before
    any thread: a fork copies only the thread that makes it, and the import locks the others
    hold; the child imports the parser itself, on the other core, rather than this process
    before the fork), imports pygit2, then the rest of the capture library in a thread while it
    claims the job, and runs it as ``_detach``'s worker does."""
    gc.disable()
    library = not os.environ.get(TARGET_ENV)
    if library:
        _import_quietly("gitstore.capture.hookinput")
    with os.fdopen(job, "rb") as source:
        data = source.read()
    try:
        spool, cwd, harness, payload = _jsontext.loads(data)
    except ValueError:  # the hook stopped before it spooled a job
        return
    if library and _given_up(spool, {"harness": harness, "cwd": cwd, "payload": payload}) is None:
        # the hook closed the pipe and is exiting: it takes no core from the reader
        _read_ahead(harness, payload, cwd, leaving=1)
        _load_pygit2()  # in the only thread: for the import it sets an environment variable and ssl
        threading.Thread(target=_import_quietly, args=(DEFAULT_TARGET.partition(":")[0],), daemon=True,
                         name="gitstore-import").start()  # its time stays under the guard's limit
    os.chdir(cwd)
    worker([spool])


def _load_pygit2() -> None:
    """Import pygit2 for the capture library without parsing the CA bundle
    (``gitstore._libgit2``); a failure is left for the capture to report."""
    if os.environ.get(TARGET_ENV):
        return
    try:
        from gitstore._libgit2 import load

        load()
    except BaseException:  # noqa: BLE001 - the guarded call imports it again and says what failed
        return


def _import_quietly(*modules: str) -> None:
    """Import MODULES ahead of their use; a failure is left for the use to report."""
    import importlib

    for module in modules:
        try:
            importlib.import_module(module)
        except BaseException:  # noqa: BLE001 - the guarded call imports it again and says what failed
            return


def _detached_descriptors(keep: tuple[int, ...] = ()) -> None:
    """Standard input, output and error on the null device; every other inherited descriptor
    but KEEP closed (a harness may wait for the end of a pipe it gave the hook)."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    try:
        inherited = [int(name) for name in os.listdir("/dev/fd")]
    except (OSError, ValueError):
        inherited = list(range(3, 256))
    for fd in inherited:
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _safe_path() -> None:
    """Take the working directory off ``sys.path`` when this interpreter put it there (started
    without ``-P``), as the worker started with ``-P`` has it: the agent's repository must not
    supply modules the capture imports."""
    if not sys.flags.safe_path and sys.path and sys.path[0] in ("", working_dir()):
        del sys.path[0]


def _start(args: list[str], cwd: str) -> None:
    """Start this module again in the background, detached: nobody waits for it."""
    import subprocess

    subprocess.Popen(
        [sys.executable, "-P", "-m", "gitstore.capture.agent_hook", *args], cwd=cwd,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True,
    )


def worker(args: list[str]) -> int:
    """The background half: capture the spooled job under the time limit, then retry the jobs
    earlier runs in this repository left behind; log what goes wrong.

    The cyclic garbage collector is off: this process does a few bounded captures and exits,
    what it drops is freed by reference counting (parsed records, texts and records hold no
    cycles), and the collector, set off again and again by the allocations of the imports
    and the parse, took about an eighth of the time from hook start to stored records.
    """
    gc.disable()
    _silence_stdout()
    _carry_on([], os.path.abspath(args[0]) if args else "")
    return 0


def _carry_on(tried: list[str], spool: str = "") -> None:
    """Capture SPOOL, the run's own job, then retry the jobs earlier runs in this repository
    left behind: RETRIES_PER_RUN at most in a run, and none of those it TRIED already. A capture
    that runs out of time ends its process (the abandoned capture may hold locks); a fresh
    process, started to write its receipt, then carries on here with what this run tried
    (``timed_out``), so the jobs waiting get their retry whatever this run's own capture does."""
    captured = [_run_spool(spool, tried)] if spool else []
    inbox = os.path.dirname(spool or tried[0])
    if _state_dir(inbox) is not None:  # a repository's inbox, not the temporary folder
        _release(inbox)
        for waiting in _waiting(inbox, tried)[:max(0, RETRIES_PER_RUN + 1 - len(tried))]:
            captured.append(_run_spool(waiting, tried))
    for cwd in dict.fromkeys(c for c in captured if c):
        _tidy(cwd)


def _tidy(cwd: str) -> None:
    """Once the captures are stored, roll the local namespace's packs up if they have become
    many (each capture writes one; see ``gitstore.providers._maintain``)."""
    try:
        from pathlib import Path

        from gitstore.providers._maintain import roll_up_local

        state = _clone_state(cwd)
        if state is not None:
            roll_up_local(Path(state))
    except Exception as exc:  # noqa: BLE001 - housekeeping never fails a capture
        _log(cwd, "", f"rolling up the local packs failed: {described(exc)}")


def _hold(spool: str, cwd: str) -> str | None:
    """Keep the job SPOOL, which waited in the temporary folder, in the clone's own
    ``.git/gitstore/held-jobs/`` (``HELD``) when the repository at ``cwd`` has one: its inbox
    had a symbolic link on the way, or could not be written, or its state folder was gone (``git
    clean -x`` deletes it, config.json with it, until ``gitstore init`` runs again), and no run
    retries a job in the temporary folder. ``_release`` hands it back to the inbox once the inbox can take it. The
    folder it is kept in, or None where none could keep it."""
    try:
        root = _repository_dir(cwd)  # none where its state folder is gone (`git clean -x`): git finds the clone
        state = _clone_state(root if root is not None else cwd)
        if state is None:
            return None
        held = os.path.join(state, HELD)
        os.makedirs(held, mode=0o700, exist_ok=True)
        _move(spool, held)
    except Exception:  # noqa: BLE001 - a job that cannot be kept is dropped, as before
        return None
    return held


def _release(inbox: str) -> None:
    """Move the jobs ``_hold`` kept back into the repository's INBOX, where this run retries
    them as any job waiting; none while a link stands on the way to it. Never raises."""
    from gitstore._files import link_on_the_way

    try:
        root = os.path.dirname(os.path.dirname(os.path.dirname(inbox)))  # the inbox is <root>/okf/.memory/inbox
        state = _clone_state(root)
        held = os.path.join(state, HELD) if state is not None else ""
        names = sorted(n for n in os.listdir(held) if n.startswith(SPOOL_PREFIX) and n.endswith(".json")) \
            if held and os.path.isdir(held) else []
        if not names or link_on_the_way(root, "okf", ".memory", "inbox") is not None or away(root) is not None:
            return
        for name in names:
            _move(os.path.join(held, name), inbox)
    except Exception as exc:  # noqa: BLE001 - the jobs stay held for a later run
        _log(inbox, "", f"jobs kept in {HELD} could not be moved back to the inbox: {failure(exc)}")


def _move(job: str, folder: str) -> None:
    """Move the job file JOB into FOLDER, which may be on another file system: written there
    under a name no run takes for a job, renamed into place (its time kept, which orders the
    retries), then removed here. A link in JOB's place is no job: it is left where it is."""
    from gitstore._files import new_file

    with open(job, "rb", opener=_no_link) as handle:
        data = handle.read()
        moment = os.fstat(handle.fileno())
    fd, partial = new_file(folder, f".{SPOOL_PREFIX}", ".json.partial")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.utime(partial, ns=(moment.st_atime_ns, moment.st_mtime_ns))
        target = os.path.join(folder, os.path.basename(job))
        if os.path.lexists(target):  # never one already there: the partial's own name is new
            target = os.path.join(folder, os.path.basename(partial)[1:].removesuffix(".partial"))
        os.rename(partial, target)
    except BaseException:
        _discard(partial)
        raise
    os.unlink(job)


def _waiting(inbox: str, tried: list[str]) -> list[str]:
    """The spools in INBOX but those TRIED, oldest first (an attempt rewrites its spool: the
    jobs tried last come last): the ones this clone's hooks wrote. A job a commit put there
    (``git add -f``; git checks it out into every clone) would name the harness, the folder and
    the transcript a capture reads: it is never run."""
    try:
        names = [n for n in os.listdir(inbox) if n.startswith(SPOOL_PREFIX) and n.endswith(".json")]
    except OSError:
        return []
    paths = [os.path.join(inbox, n) for n in names if os.path.join(inbox, n) not in tried]
    if paths:
        paths = _own_jobs(inbox, paths)
    return sorted(paths, key=lambda p: (_mtime(p), p))


def _own_jobs(inbox: str, paths: list[str], quiet: bool = False) -> list[str]:
    """Of the job files ``paths``, those no commit or checkout supplied (``config.from_git``);
    a link is no job a hook wrote. Unless QUIET, the log says in one line how many were left
    out, naming the first: a commit can add any number of them, and a line for each, written
    again by every run, grew the log by megabytes a run."""
    from pathlib import Path

    from gitstore.config import from_git, repository_of

    repo = repository_of(Path(inbox))
    own, planted = [], []
    for path in paths:
        try:
            with open(path, "rb", opener=_no_link) as handle:
                data = handle.read()
        except OSError:
            continue
        if repo is None or not from_git(repo, Path(path), data):
            own.append(path)
        else:
            planted.append(os.path.basename(path))
    if planted and not quiet:
        first = min(planted)
        _log(inbox, "", f"{first} in the inbox came through git, not from a hook of this clone: not run (remove it, "
                        "and the commit that added it)" if len(planted) == 1 else
                        f"{len(planted)} job files in the inbox came through git, not from a hook of this clone "
                        f"({first} and {len(planted) - 1} more): not run (remove them, and the commit that added them)")
    return own


def _no_link(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW)


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def _run_spool(spool: str, tried: list[str] | None = None) -> str | None:
    """Capture one spooled job while holding its lock; a job another run holds is left to it.
    The folder the job was captured in, once it is stored. TRIED, the jobs this run tried
    before, gets this one."""
    import fcntl

    tried = [] if tried is None else tried
    tried.append(spool)
    cwd, harness = working_dir(), ""
    try:
        fd = os.open(spool, os.O_RDWR | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None  # already captured and removed
    except OSError as exc:  # a link in a job's place (ELOOP): no job a hook wrote
        _log(cwd, "", f"{os.path.basename(spool)} in the inbox cannot be opened as a job ({exc.strerror}): not run")
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.fstat(fd).st_ino != os.stat(spool).st_ino:
            return None  # captured and replaced meanwhile
        job = _claim(fd)
        harness, cwd = job["harness"], job["cwd"]
        if harness not in HARNESSES or not isinstance(cwd, str):
            harness, cwd = "", working_dir()
            raise HookProblem("the spooled job is not one gitstore wrote (no harness gitstore knows, or no folder)")
        aside = _given_up(spool, job)
        if aside is not None:
            _discard(spool)
            _log(cwd, harness, f"not captured: capture of this session gave up after {MAX_ATTEMPTS} attempts "
                               f"({_named(job)}; {aside} in the inbox); {_by_hand(job)}, and once that file is "
                               "removed the hooks capture it again")
            return None
        _count(fd, job, _take_over(spool, job))
        if job["attempts"] > MAX_ATTEMPTS:
            _set_aside(spool)
            _log(cwd, harness, f"capture gave up after {MAX_ATTEMPTS} attempts ({_named(job)}); the payload is kept "
                               f"as {os.path.basename(_failed_name(spool))}: {_by_hand(job)}, then remove that file "
                               "(`gitstore doctor` names it)")
            return None
        if not os.environ.get(TARGET_ENV):  # reading ahead serves the capture library only
            _read_ahead(harness, job["payload"], cwd)  # first: the reader needs none of pygit2
        _load_pygit2()  # in the only thread, before the capture's (see _early_worker)
        _call_guarded(harness, job["payload"], cwd,
                      on_timeout=lambda limit: _timed_out(spool, cwd, harness, limit, tried))
        os.unlink(spool)
        _ignored_again(cwd)
        return cwd
    except (BlockingIOError, FileNotFoundError):
        return None  # another run is capturing it, or has captured it
    except CaptureFailed as exc:  # kept, as after a timeout: a full disk or a read-only store passes, and
        # the next hook's run retries it (one that fails MAX_ATTEMPTS times is set aside, never lost)
        if exc.set_up:  # however many runs pass before the clone is set up again, the session waits
            _uncount(fd, job)
        _log(cwd, harness, f"{exc}{_move_away(spool, cwd) if exc.unignored else _keep_or_drop(spool, cwd)}")
    except HookProblem as exc:  # no job a hook of this clone wrote
        _log(cwd, harness, str(exc))
        _discard(spool)
    except BaseException as exc:  # noqa: BLE001 - a worker failure is logged, never raised
        _log(cwd, harness, f"hook failed: {failure(exc)}{_keep_or_drop(spool, cwd)}")
    finally:
        os.close(fd)
        if "gitstore.capture.readahead" in sys.modules:
            sys.modules["gitstore.capture.readahead"].discard()


def _read_ahead(harness: str, payload: dict[str, Any], cwd: str, leaving: int = 0) -> None:
    """Start reading the session's transcript in a second process while this one imports and
    opens the store (``gitstore.capture.readahead``; LEAVING processes about to exit do not
    count against a free core); the capture reads it itself when this fails, or when it is not
    started: without a free core, or once the capture library is being imported in a thread."""
    try:
        from gitstore.capture.readahead import start

        start(harness, payload, cwd, _timeout(), leaving=leaving)
    except Exception as exc:  # noqa: BLE001 - only a head start is lost
        _log(cwd, harness, f"reading the transcript ahead failed: {failure(exc)}")  # it may quote the transcript


def _claim(fd: int) -> dict[str, Any]:
    """The job the locked spool FD holds."""
    with os.fdopen(os.dup(fd), "rb") as handle:
        try:
            job = _jsontext.loads(handle.read())
        except ValueError:  # UnicodeDecodeError too
            raise HookProblem("the spooled job cannot be read back as JSON: not run") from None
    if not isinstance(job, dict) or not {"harness", "payload", "cwd"} <= set(job) or not isinstance(job["payload"], dict):
        raise HookProblem("the spooled job is not one gitstore wrote")
    return job


def _count(fd: int, job: dict[str, Any], earlier: int) -> None:
    """Count this attempt, and the EARLIER attempts of the jobs it took over, in the spool FD
    before the capture starts, so an attempt that is killed or runs out of time counts too. The
    payload is written back as capture reads it: a job an older hook spooled whole keeps no
    free text at rest from here on."""
    job["attempts"] = _attempts(job) + earlier + 1
    job["payload"] = kept(job["payload"])
    _rewrite(fd, job)


def _uncount(fd: int, job: dict[str, Any]) -> None:
    """Give back this run's attempt at JOB (``_count`` counted it in the spool FD): the capture
    was refused for the clone's set-up, not for anything of the session's, and a session that
    ends while a commit's config.json stands would otherwise be set aside after three runs, to be
    imported by hand once init mended the clone."""
    job["attempts"] = max(_attempts(job) - 1, 0)
    _rewrite(fd, job)


def _rewrite(fd: int, job: dict[str, Any]) -> None:
    """Write JOB back into its locked spool FD, in place of what it held."""
    with os.fdopen(os.dup(fd), "w", encoding="utf-8") as handle:
        handle.seek(0)
        handle.truncate()
        json.dump(job, handle)
        handle.flush()


def _attempts(job: dict[str, Any]) -> int:
    count = job.get("attempts", 0)
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 0


def _session(job: dict[str, Any]) -> tuple[str, str, str | None, str | None] | None:
    """What names JOB's session: its harness, folder, session id and transcript; None when
    its payload names neither a session nor a transcript (then it shares no capture)."""
    payload = job.get("payload")
    if not isinstance(payload, dict):
        return None
    session, transcript = first(payload, SESSION), first(payload, TRANSCRIPT)
    if session is None and transcript is None:
        return None
    return str(job.get("harness")), str(job.get("cwd")), session, transcript


def _named(job: dict[str, Any]) -> str:
    """JOB's session and transcript as the log names them, so a line about a session the hooks
    gave up on says which one to capture by hand."""
    session = _session(job)
    _, _, name, transcript = session if session is not None else (None, None, None, None)
    return f"session {name or '(not named)'}, transcript {transcript or '(not named)'}"


def _by_hand(job: dict[str, Any]) -> str:
    """The import that captures JOB's session by hand (it has no time limit)."""
    session = _session(job)
    transcript = session[3] if session is not None else None
    if transcript is None:
        return "`gitstore import transcript FILE` captures it by hand"
    import shlex

    return f"`gitstore import transcript {shlex.quote(transcript)}` captures it by hand"


def _take_over(spool: str, job: dict[str, Any]) -> int:
    """Remove the jobs earlier runs left for JOB's session (SPOOL's), and return their attempts.

    A capture reads the session's transcript as it is when it runs, so capturing this job
    captures all an earlier one of the session would have: they are one job. Their attempts
    count together, so a session whose capture keeps failing or running out of time (Codex
    runs its hook every turn) is tried MAX_ATTEMPTS times in all, not that many times again on
    every turn, and never leaves a job per turn. A job another run holds is left to it."""
    session = _session(job)
    if session is None:
        return 0
    return sum(_absorb(path, session) for path in _jobs_of(spool, SPOOL_PREFIX, session))


def _given_up(spool: str, job: dict[str, Any]) -> str | None:
    """The name of the job set aside for JOB's session (``failed-hook-*.json`` in SPOOL's
    inbox), when its capture gave up after MAX_ATTEMPTS attempts; None when it did not."""
    session = _session(job)
    found = _jobs_of(spool, FAILED_PREFIX + SPOOL_PREFIX, session) if session is not None else []
    return os.path.basename(found[0]) if found else None


def _jobs_of(spool: str, prefix: str, session: tuple[str, str, str | None, str | None]) -> list[str]:
    """The job files ``PREFIX*.json`` in SPOOL's inbox, but SPOOL, that this clone's hooks
    wrote for SESSION."""
    inbox = os.path.dirname(spool)
    try:
        names = sorted(n for n in os.listdir(inbox) if n.startswith(prefix) and n.endswith(".json"))
    except OSError:
        return []
    paths = [os.path.join(inbox, n) for n in names]
    found = [p for p in paths if p != spool and _session(_read_job(p)) == session]
    return _own_jobs(inbox, found, quiet=True) if found else []


def _read_job(path: str) -> dict[str, Any]:
    """The job at PATH, or an empty one when it cannot be read (a link is none)."""
    try:
        with open(path, "rb", opener=_no_link) as handle:
            job = _jsontext.loads(handle.read())
    except (OSError, ValueError):
        return {}
    return job if isinstance(job, dict) else {}


def _absorb(path: str, session: tuple[str, str, str | None, str | None]) -> int:
    """The attempts of SESSION's job at PATH, which is removed; 0, and the job left, when
    another run holds it or it is no longer that session's."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
    except OSError:
        return 0
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.fstat(fd).st_ino != os.stat(path).st_ino:
            return 0
        with os.fdopen(os.dup(fd), "rb") as handle:
            job = _jsontext.loads(handle.read())
        if not isinstance(job, dict) or _session(job) != session:
            return 0
        os.unlink(path)
        return _attempts(job)
    except (OSError, ValueError):
        return 0
    finally:
        os.close(fd)


def _timed_out(spool: str, cwd: str, harness: str, limit: float, tried: list[str]) -> None:
    """The capture ran out of time: keep the spool (its attempt is counted), have a fresh
    process write the degraded receipt (this one may hold locks the abandoned capture took) and
    carry on with the jobs waiting, knowing the ones this run TRIED, and stop."""
    job, kept = spool, "kept for a retry"
    if _state_dir(os.path.dirname(spool)) is None:  # it waited in the temporary folder: kept as a failed job is
        held = _hold(spool, cwd)
        job = os.path.join(held, os.path.basename(spool)) if held is not None else spool
        kept = HELD_KEPT if held is not None else "not kept (it waited in the temporary folder, where no run " \
            "retries a job)"
    _log(cwd, harness, f"capture took longer than {limit:g} s; abandoned, {kept}")
    try:
        _start(["--timed-out", job, f"{limit:g}", *tried], cwd)
    finally:
        os._exit(0)  # the capture thread may hold locks; do not wait for interpreter shutdown


def timed_out(args: list[str]) -> int:
    """``--timed-out SPOOL SECONDS [TRIED...]``: write the envelope and the degraded receipt of
    a capture of the spooled job that ran out of time, under the time limit too; then carry on
    with the jobs waiting, as the run whose capture it was would have, but for those it TRIED
    (SPOOL among them)."""
    gc.disable()
    _silence_stdout()
    cwd, harness = working_dir(), ""
    try:
        with open(args[0], encoding="utf-8") as handle:
            job = json.load(handle)
        harness, cwd = job["harness"], job["cwd"]
        # nobody waits for this process: it may take the default limit even when capture may not
        _call_guarded(harness, job["payload"], cwd, target=TIMED_OUT_TARGET, extra=(float(args[1]),),
                      limit=max(_timeout(), DEFAULT_TIMEOUT), on_timeout=lambda limit: _give_up(cwd, harness, limit))
    except FileNotFoundError:
        pass  # a retry captured it meanwhile: its receipt says what happened
    except CaptureFailed as exc:
        _log(cwd, harness, f"timeout receipt: {exc}{_move_away(args[0], cwd) if exc.unignored else ''}")
    except HookProblem as exc:
        _log(cwd, harness, f"timeout receipt: {exc}")
    except BaseException as exc:  # noqa: BLE001
        _log(cwd, harness, f"timeout receipt failed: {described(exc)}")
    folder = os.path.dirname(args[0])
    if _state_dir(folder) is None and os.path.basename(folder) != HELD:
        _discard(args[0])  # a job in the temporary folder no clone could keep: its receipt is all that stays
    _carry_on([os.path.abspath(path) for path in args[2:] or args[:1]])
    return 0


def _give_up(cwd: str, harness: str, limit: float) -> None:
    _log(cwd, harness, f"writing the timeout receipt took longer than {limit:g} s; abandoned")
    os._exit(0)


def _failed_name(spool: str) -> str:
    folder, name = os.path.split(spool)
    return os.path.join(folder, FAILED_PREFIX + name)


def _set_aside(spool: str) -> None:
    try:
        os.replace(spool, _failed_name(spool))
    except OSError:
        pass


def _keep_or_drop(spool: str, cwd: str) -> str:
    """Keep a failed job where the next hook's run retries it: a repository's inbox, or, for
    one that waited in the temporary folder while the inbox of the repository at ``cwd`` had
    a link on the way or could not be written, the clone's own ``.git/gitstore/held-jobs/``
    (``_hold``), from which a run moves it back once the inbox can take it. One in the
    temporary folder that no clone keeps (outside a repository set up) goes, rather than pile
    up there with the prompts it holds. What the log says."""
    if _state_dir(os.path.dirname(spool)) is not None:
        return "; kept for a retry"
    if _hold(spool, cwd) is not None:
        return f"; {HELD_KEPT}"
    _discard(spool)
    return "; not kept (it waited in the temporary folder, where no run retries a job)"


def _move_away(spool: str, cwd: str) -> str:
    """Git does not ignore ``okf/.memory/`` of the repository at CWD (a commit un-ignored it):
    whatever is written there, ``git add -A`` commits. Leave the marker the hook reads
    (``hooklog.away``: from now on its jobs wait in the temporary folder and its log goes to the
    work tree's git folder), and move out of the state folder the jobs waiting in the inbox,
    SPOOL among them (to ``.git/gitstore/held-jobs/``, retried once it is ignored again) and the
    log. What the log says of SPOOL."""
    root = _repository_dir(cwd)
    if root is None:
        return _keep_or_drop(spool, cwd)
    try:
        folder = os.path.join(git_dir(root), "gitstore")
        os.makedirs(folder, mode=0o700, exist_ok=True)
        with open(os.path.join(folder, UNIGNORED), "w", encoding="utf-8") as marker:
            marker.write("okf/.memory/ is not ignored by git: the hooks keep their jobs and log here\n")
        _move_log(os.path.join(root, "okf", ".memory", "logs"), os.path.join(folder, "logs"))
    except OSError as exc:
        _log(cwd, "", f"the hooks' log could not be moved out of okf/.memory/: {failure(exc)}")
    _ignore_within(root, cwd)
    inbox = os.path.join(root, "okf", ".memory", "inbox")
    try:
        names = sorted(n for n in os.listdir(inbox) if n.endswith(".json") and
                       (n.startswith(SPOOL_PREFIX) or n.startswith(FAILED_PREFIX + SPOOL_PREFIX)))
    except OSError:
        names = []
    own = _own_jobs(inbox, [os.path.join(inbox, n) for n in names], quiet=True) if names else []
    for job in own:
        _hold(job, cwd)
    return _keep_or_drop(spool, cwd) if os.path.exists(spool) else f"; {HELD_KEPT}"


def _ignore_within(root: str, cwd: str) -> None:
    """Have git ignore every file of ``okf/.memory/`` again (``_files.ignore_within``)."""
    from gitstore._files import ignore_within

    try:
        ignore_within(root)
    except OSError as exc:
        _log(cwd, "", f"okf/.memory/.gitignore could not be written: {failure(exc)}")


def _move_log(logs: str, folder: str) -> None:
    """Append the hooks' log in LOGS to the one in FOLDER, and remove it (and LOGS, when empty)."""
    from gitstore.capture.hooklog import LOG_NAME

    old = os.path.join(logs, LOG_NAME)
    if os.path.islink(logs) or os.path.islink(old) or not os.path.isfile(old):
        return
    with open(old, "rb", opener=_no_link) as source:
        data = source.read()
    os.makedirs(folder, mode=0o700, exist_ok=True)
    fd = os.open(os.path.join(folder, LOG_NAME), os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "ab") as out:
        out.write(data)
    os.unlink(old)
    try:
        os.rmdir(logs)
    except OSError:
        pass


def _ignored_again(cwd: str) -> None:
    """A capture stored its records: git ignores ``okf/.memory/`` (a capture refuses to write
    there otherwise), so the hooks write there again; the jobs held meanwhile go back to the
    inbox at the next run (``_release``)."""
    root = _repository_dir(cwd)
    folder = away(root) if root is not None else None
    if folder is not None:
        _discard(os.path.join(folder, UNIGNORED))


def _discard(spool: str) -> None:
    try:
        os.unlink(spool)
    except OSError:
        pass


def _parse(raw: bytes) -> dict[str, Any]:
    if not raw.strip():
        raise HookProblem("no payload")
    if len(raw) > MAX_PAYLOAD:
        raise HookProblem(f"payload over {MAX_PAYLOAD} bytes; not captured")
    try:
        payload = _jsontext.loads(raw)
    except ValueError as exc:
        raise HookProblem(f"payload is not JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise HookProblem("payload is not a JSON object")
    # what capture reads (``HookInput``: the session, event, transcript, folder and version), and
    # nothing else: the job may wait in the inbox for runs to come, and the free text a payload
    # carries (a prompt, the agent's last message, a tool's input) is no part of a capture. Nested
    # values are never read either, so a worker reads the job back whatever their depth.
    return kept(payload)


def _read_stdin() -> bytes:
    """At most MAX_PAYLOAD + 1 bytes, until end of input, a complete JSON document, or the time limit.

    Some harnesses leave standard input open after writing the payload, so a complete JSON
    document ends the read as well as end of input does.
    """
    stream = sys.stdin
    if stream is None or stream.closed or stream.isatty():
        return b""
    chunks: list[bytes] = []
    done = threading.Event()

    def pump() -> None:
        size = 0
        try:
            fd = stream.fileno()
            while size <= MAX_PAYLOAD:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if chunk.rstrip().endswith(b"}") and _complete(b"".join(chunks)):
                    break
        except (OSError, ValueError):
            pass
        finally:
            done.set()

    threading.Thread(target=pump, daemon=True).start()
    done.wait(READ_SECONDS)
    return b"".join(chunks)


def _complete(data: bytes) -> bool:
    try:
        _jsontext.loads(data)
    except ValueError:
        return False
    return True


def _target(spec: str | None = None) -> Any:
    """The function SPEC names (``module:function``), by default the capture entry point."""
    spec = spec or os.environ.get(TARGET_ENV) or DEFAULT_TARGET
    module_name, _, name = spec.partition(":")
    if not module_name or not name:
        raise HookProblem(f"{TARGET_ENV} must be module:function, not {spec!r}")
    import importlib

    function = getattr(importlib.import_module(module_name), name)
    if not callable(function):
        raise HookProblem(f"{spec} is not callable")
    return function


def _timeout() -> float:
    try:
        value = float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


def _call_guarded(harness: str, payload: dict[str, Any], cwd: str, *, target: str | None = None,
                  extra: tuple[Any, ...] = (), limit: float | None = None,
                  on_timeout: Callable[[float], None]) -> None:
    """Import and call the capture function (TARGET, by default the configured one) in a
    thread; after the time limit (LIMIT, by default the configured one), leave it to
    ON_TIMEOUT, which does not return."""
    outcome: list[BaseException | None] = []

    def work() -> None:
        try:
            try:
                function = _target(target)
            except HookProblem:
                raise
            except BaseException as exc:  # noqa: BLE001
                raise CaptureFailed(f"capture unavailable: {type(exc).__name__}: {exc}") from None
            function(harness, payload, cwd, *extra)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001
            outcome.append(exc)

    limit = limit or _timeout()
    thread = threading.Thread(target=work, name="gitstore-capture", daemon=True)
    thread.start()
    thread.join(limit)
    if thread.is_alive():
        on_timeout(limit)
        os._exit(0)  # ON_TIMEOUT does not return; never wait for the abandoned thread
    error = outcome[0] if outcome else None
    if isinstance(error, HookProblem):
        raise error
    if error is not None:  # named by its kind: its message may quote what the capture read
        failed = CaptureFailed(f"capture failed: {described(error)}")
        failed.unignored = any(c.__name__ == "Unignored" for c in type(error).__mro__)
        failed.set_up = getattr(error, "set_up", False) is True
        raise failed


def _standard_descriptors() -> None:
    """The null device on each of descriptors 0 to 2 the harness left closed (``2>&-``): else
    the next file or pipe opened takes its number, and what is meant for a standard stream goes
    there (the worker's pipe, the null device put over it before the job is read). One
    ``fstat`` a descriptor."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                null = os.open(os.devnull, os.O_RDWR)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
                else:
                    os.set_inheritable(fd, True)
            except OSError:
                pass


def _silence_stdout() -> None:
    """Point standard output (the descriptor, so child processes too) at the null device."""
    try:
        sys.stdout.flush()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except (OSError, ValueError, AttributeError):
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115


def check() -> int:
    """The dry run: is the capture entry point importable and callable as (harness, payload, cwd)?"""
    try:
        function = _target()
        import inspect

        inspect.signature(function).bind("claude-code", {}, ".")
    except TypeError as exc:
        print(f"gitstore.capture.agent_hook: the capture entry point does not take (harness, payload, cwd): {exc}",
              file=sys.stderr)
        return 1
    except BaseException as exc:  # noqa: BLE001
        print(f"gitstore.capture.agent_hook: capture entry point unavailable: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


def _exit_now(status: int) -> None:
    """Leave without tearing the interpreter down (its modules, their objects): the agent waits
    for the hook's exit, and the worker it started needs the processor meanwhile. What the hook
    wrote is closed already; only the standard streams are flushed."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # AttributeError: None, a stream the harness closed
            pass
    os._exit(status)


if __name__ == "__main__":
    _exit_now(main())
