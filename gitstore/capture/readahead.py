"""Reading a session's transcript in a second process while the hook's worker opens the store.

A capture's two halves need nothing of each other until its records are built: reading the
transcript (the harness's parser, then the safety scanner over the texts a summary keeps) and
opening the store (pygit2, the providers, the record contracts). Each costs some tens of
milliseconds, most of it imports. Where a core is free, the worker forks a
child as soon as it has its job (``start``; see ``gitstore.capture.agent_hook``): the child reads
and scans (``serve``) and writes what it found to a pipe while the worker imports the rest and
opens the store. The capture then takes the child's result (``take``) instead of reading the
transcript itself. Parsing and scanning are deterministic, so the records are the ones a
capture reading everything itself writes. When the child fails, is killed, sends nothing or read
another file, the capture reads the transcript itself; a child still running at the time limit
stops at its own alarm. When no core is free nothing is forked: the processes would only take turns
on one core, and the child's own imports would be paid twice. The result crosses the pipe as a
pickle: the pipe joins this process to its own fork, nothing else.

Once it has read, the child also asks which harnesses with gitstore's hook installed have hooks
switched off by their settings (``gitstore.capture.switched``), the check a capture makes once
its records are stored (``gitstore.capture.disabled``): the capture takes the answer
(``switched_off``) when it was asked for the capture's own repository and home folder, instead
of importing the harness adapters and reading their settings itself. The child finds the
repository as the hook does (``gitstore.capture.hooklog.repository_dir``).
"""

from __future__ import annotations

import math
import os
import pickle
import signal
import threading
import time

TYPE_CHECKING = False  # typing costs milliseconds in the hook's worker
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from gitstore.capture.hookinput import HookInput
    from gitstore.capture.screening import Scan
    from gitstore.capture.transcripts import Transcript

# The transcript (None when there is none to read), why not (``transcript-missing``,
# ``transcript-unreadable``), and the summary's texts scanned (``gitstore.capture.screening``).
Reading = tuple["Transcript | None", "str | None", "dict[str, Scan]"]

SWITCH = "GITSTORE_HOOK_READ_AHEAD"  # 0: never fork the reader; 1: always; unset: when a core is free
_PENDING: list[tuple[int, int]] = []  # the child reading ahead and its pipe's read end: one at most
# What the last child taken found of the harnesses (repository root, home folder, harness -> why)
_SWITCHED: list[tuple[str, str, dict[str, str]]] = []
# What the pipe may hold: the result of a 1,000-line session is some 700 kB. Held whole, the
# child writes it and exits while the worker is still busy, and the worker then reads it in one
# go, instead of the two taking turns over a 64 kB pipe once the worker asks for it (about 7 ms).
# Linux lets any process grow a pipe up to /proc/sys/fs/pipe-max-size, 1 MiB by default.
PIPE_SIZE = 1 << 20
SAMPLES, SAMPLE_PAUSE = 3, 0.0003  # looks at the running count, seconds apart (see spare_core)


def read(path: Path | None, harness: str, session: str | None = None) -> tuple[Transcript | None, str | None]:
    """The transcript at PATH parsed as HARNESS's (SESSION's, where the file holds many:
    OpenCode's database), or None and why: ``transcript-missing`` (no file there, or no such
    session in it) or ``transcript-unreadable`` (not a transcript gitstore reads)."""
    from gitstore.capture.hookinput import regular_file

    if path is None or not regular_file(path):
        return None, "transcript-missing"
    from gitstore.capture.transcripts import parse_transcript
    from gitstore.capture.transcripts._read import SessionAbsent
    from gitstore.errors import InvalidInput

    try:
        return parse_transcript(path, harness, session=session), None
    except SessionAbsent:
        return None, "transcript-missing"
    except InvalidInput:
        return None, "transcript-unreadable"


def read_and_scan(path: Path | None, harness: str, session: str | None = None,
                  given: tuple[str | None, ...] = ()) -> Reading:
    """``read``, and the texts a summary of the transcript screens and the names the capture
    keeps (the files touched, the branch, the session, the version, the file's name), scanned,
    with the names the hook GIVEN (``hook_names``) too: a capture that finds every text it
    keeps scanned never imports the scanner (some 10 ms of its process's time). A name the
    checkout gives otherwise (HEAD's branch, where the transcript names another) is scanned by
    the capture itself."""
    from gitstore.capture.screening import compact, file_name, file_names, scan, summary_texts

    transcript, problem = read(path, harness, session)
    scanned: dict[str, Scan] = {}
    if transcript is not None and path is not None:
        task, outcome, commands = summary_texts(transcript)
        names = (*file_names(transcript), transcript.branch, compact(transcript.session or ""), transcript.version,
                 file_name(path.name), *given)
        for text in (task, outcome, *commands, *names):
            if text and text not in scanned:
                scanned[text] = scan(text)
    return transcript, problem, scanned


def hook_names(hook: HookInput) -> tuple[str | None, ...]:
    """The names of HOOK's own payload a capture's envelope keeps once screened: its event,
    its session id (as sent and without blanks: ``Screen.key``) and the harness's version."""
    from gitstore.capture.screening import compact

    return hook.event, hook.session, compact(hook.session or ""), hook.version


def start(harness: str, payload: dict[str, Any], cwd: str, limit: float, *, leaving: int = 0) -> bool:
    """Begin ``read_and_scan`` of the transcript a hook's PAYLOAD names in a forked child that
    gives up after LIMIT seconds; False (nothing started) without ``fork``, while another
    thread runs in this process, without a core to spare (``spare_core``, not counting LEAVING
    processes about to exit), or when ``GITSTORE_HOOK_READ_AHEAD=0`` (``=1`` forks whatever
    the load). True without a new child when one is at work already.

    A fork copies only the thread that makes it: a lock another thread holds at that moment,
    such as the lock of a module it is importing, stays held in the child for good, and the
    child would hang at its first import of that module."""
    if _PENDING:
        return True
    switch = os.environ.get(SWITCH, "")
    if not hasattr(os, "fork") or switch == "0" or threading.active_count() > 1:
        return False
    if switch != "1" and not spare_core(leaving):
        return False
    import fcntl  # where there is fork

    # what the child needs first, and the capture too: imported once, before the fork
    import gitstore.capture.hookinput  # noqa: F401

    out, into = os.pipe()
    try:
        fcntl.fcntl(into, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
    except (AttributeError, OSError):  # not Linux, or a lower limit: the pipe stays as it is
        pass
    try:
        pid = os.fork()
    except OSError:
        os.close(out)
        os.close(into)
        return False
    if pid == 0:
        os.close(out)
        serve(into, harness, payload, cwd, limit)
    os.close(into)
    _PENDING.append((pid, out))
    return True


def take(path: Path | None, harness: str) -> Reading | None:
    """What the child reading ahead found, once it is done, when it read the transcript at
    PATH as HARNESS's; None when no child was started, it sent nothing whole, or it read
    another."""
    _SWITCHED.clear()  # what an earlier capture in this process left: never this one's answer
    if not _PENDING:
        return None
    pid, out = _PENDING.pop()
    try:
        with os.fdopen(out, "rb") as source:
            data = source.read()
    finally:
        _reap(pid)
    try:
        read, reading, switched = pickle.loads(data)
    except Exception:  # noqa: BLE001 - nothing or a part: the capture reads the transcript itself
        return None
    if switched is not None:
        _SWITCHED[:] = [switched]
    return reading if read == (str(path), harness) else None


def switched_off(repo_root: Path, home: Path) -> dict[str, str] | None:
    """What the child taken last found of the harnesses whose settings switch hooks off
    (``gitstore.capture.switched.switched_off``), once, when it asked for REPO_ROOT and HOME;
    None otherwise (the caller asks itself)."""
    if not _SWITCHED:
        return None
    root, folder, found = _SWITCHED.pop()
    return found if (root, folder) == (str(repo_root), str(home)) else None


def discard() -> None:
    """Stop and forget a child nobody took the result of."""
    while _PENDING:
        pid, out = _PENDING.pop()
        os.close(out)
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        _reap(pid)


def serve(into: int, harness: str, payload: dict[str, Any], cwd: str, limit: float) -> None:
    """The body of a forked child: work out the hook's input, read and scan its transcript,
    write what it found to INTO, exit (never returning into its parent's code); it stops at
    its own alarm after LIMIT seconds."""
    try:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(max(1, math.ceil(limit)))
        from gitstore.capture.hookinput import HookInput

        hook = HookInput.from_payload(harness, payload, cwd)
        found = ((str(hook.transcript), hook.harness),
                 read_and_scan(hook.transcript, hook.harness, hook.session, hook_names(hook)), _switched(cwd))
        data = pickle.dumps(found, pickle.HIGHEST_PROTOCOL)
        with os.fdopen(into, "wb") as sink:
            sink.write(data)
    finally:
        os._exit(0)


def _switched(cwd: str) -> tuple[str, str, dict[str, str]] | None:
    """(repository root, home folder, harness -> why) for the repository above CWD, or None
    when there is none or the check fails (the capture then asks itself, and meets the
    failure there)."""
    try:
        from gitstore.capture.hooklog import repository_dir

        found = repository_dir(cwd)
        if found is None:
            return None
        from pathlib import Path

        from gitstore.capture.switched import switched_off

        root, home = Path(found), Path.home()
        return str(root), str(home), switched_off(root, home)
    except Exception:  # noqa: BLE001 - see above
        return None


def spare_core(leaving: int = 0) -> bool:
    """Whether a core is free now besides the one this process runs on: fewer processes are
    running (``/proc/loadavg`` counts this one too), less LEAVING ones about to exit, than this
    process may use cores. Where the system does not say, the last minute's load average
    decides. On a busy machine a second process would only take turns with this one.

    The count is of this instant, and kernel threads count in it: on an idle machine one of
    them is found running at about every third look (three of eight captures in a row once read
    the reader's fork away, each then 25 ms slower). A busy count is therefore looked at again,
    up to ``SAMPLES`` times ``SAMPLE_PAUSE`` apart: a process that keeps a core busy is running
    at every look, a kernel thread's turn is over by the next."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    if cores < 2:
        return False
    for look in range(SAMPLES):
        if look:
            time.sleep(SAMPLE_PAUSE)
        running = _running()
        if running is None:
            try:
                return os.getloadavg()[0] < cores - 1
            except OSError:
                return False
        if running - leaving < cores:
            return True
    return False


def _running() -> int | None:
    """How many tasks are running or ready to run now (``/proc/loadavg``), or None where it
    does not say."""
    try:
        with open("/proc/loadavg", "rb") as source:
            return int(source.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
