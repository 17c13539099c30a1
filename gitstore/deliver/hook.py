"""The context hook a harness runs: ``python -P -m gitstore.deliver.hook HARNESS``.

It reads the hook's JSON payload on standard input and prints, on standard output, exactly the
answer the harness reads (``gitstore.deliver.surfaces``): accepted learnings relevant to the
prompt, bounded, with provenance, not yet given to this session; or nothing at all. It never
breaks the agent: it always exits 0, prints nothing but that answer (anything else a library
might print goes to the null device), and gives up at its time limit
(``GITSTORE_CONTEXT_TIMEOUT``, 5 s by default, below the timeout it is installed with; at
most 600 s),
printing nothing. A problem is one line in ``okf/.memory/logs/hooks.log``.

It starts fast: the standard library's small modules, ``sqlite3`` and the light delivery
modules; never the CLI framework, the schema validators or the store. It reads recall's index
(``gitstore.deliver.index``) when the index was built from exactly the store's current state;
otherwise it starts a rebuild in the background (``--rebuild ROOT``) and waits for it until
shortly before its limit; a rebuild still running then serves the next prompt. A rebuild
during which the store moved (an append) builds again, once; an index written out of date
with no build running ends the wait at once, since none is coming, and so does a rebuild that
ended without writing one (it failed, and will at every prompt until what it logged is mended). Where the cache
folder cannot be written (a checkout a sandbox mounts read-only) it builds the index in memory
itself, within its limit, for this prompt alone; when it cannot write its log there either, the
line goes to the temporary folder's log, or at last to standard error.

In a folder that is not a trusted gitstore repository (``gitstore.deliver.place``) it does
nothing: it prints nothing, writes nothing, starts nothing. What only git can say (that the
state folder is the clone's own) is asked only when no current index holds the verdict, before
a rebuild is started.

``--check`` imports everything an answer needs and exits 0 (``gitstore hooks status`` runs it).
"""

from __future__ import annotations

import fcntl
import os
import select
import sys
import time

try:
    import _signal as signal  # the C module: ``signal`` itself imports enum
except ImportError:  # pragma: no cover - other Python builds
    import signal  # type: ignore[no-redef]

from gitstore.capture.hooklog import KINDS, away, described, failure, log, working_dir
from gitstore.deliver import heads
from gitstore.deliver.index import Damaged, lock_path, open_index, writable
from gitstore.deliver.index import path as index_path
from gitstore.deliver.jsonlite import loads
from gitstore.deliver.limits import Inert, Untrusted
from gitstore.deliver.place import check_trusted, locate, not_own, work_tree

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gitstore.deliver.index import Index
    from gitstore.deliver.place import Place

MAX_PAYLOAD = 1 << 20
TIMEOUT_ENV = "GITSTORE_CONTEXT_TIMEOUT"
DEFAULT_TIMEOUT = 5.0
MAX_TIMEOUT = 600.0
POLL_SECONDS = 0.05
QUIET = ("not inside a git work tree", "gitstore is not set up", "delivery is switched off")
_BUSY = [""]  # what the hook is doing that may take long, for the line its time limit logs
_NOT_READY = [""]  # why no index was ready, when it is not that a build is still running
STALE_AS_BUILT = ("recall's index was out of date as soon as it was built (the store moved while it was built); "
                  "nothing this time")
REBUILD_FAILED = "recall's index could not be built (its rebuild failed: the log says why); nothing this time"
# a rebuild reads this clone's settings and stored records, no session: what a capture's words
# (``hooklog.KINDS``) say of a session is said of those, with the command that names the cause
REBUILD_KINDS = {**KINDS,
                 "InvalidInput": "gitstore cannot use this repository's settings or records: `gitstore recall` "
                                 "here says why",
                 "ContractError": "a stored record fails its contract: `gitstore verify` names it"}
BUILDS = 2  # builds in one background rebuild: the store moved during the first, built again once


class Problem(Exception):
    """Something the log should say, in one line."""


def _timeout() -> float:
    """The time limit in seconds: the default unless the variable holds a positive number, and
    at most ``MAX_TIMEOUT`` (the timer takes no infinity, and a hook holding the agent for
    longer than its harness waits helps no one)."""
    try:
        value = float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT
    if not value > 0:  # NaN too
        return DEFAULT_TIMEOUT
    return min(value, MAX_TIMEOUT)


def read_payload(deadline: float) -> dict[str, Any]:
    """The JSON object on standard input: read until end of input, a complete document, or the
    deadline (some harnesses leave standard input open)."""
    fd = 0
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_PAYLOAD:
        left = deadline - time.monotonic()
        try:
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                break
            chunk = os.read(fd, 65536)
        except (OSError, ValueError):
            break
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if chunk.rstrip().endswith(b"}"):
            try:
                return _object(b"".join(chunks))
            except Problem:
                continue
    return _object(b"".join(chunks))


def _object(raw: bytes) -> dict[str, Any]:
    if not raw.strip():
        raise Problem("no payload")
    if len(raw) > MAX_PAYLOAD:
        raise Problem(f"payload over {MAX_PAYLOAD} bytes; nothing delivered")
    try:
        payload = loads(raw)
    except ValueError as exc:
        raise Problem(f"payload is not JSON ({exc})") from None  # jsonlite's reasons quote no input
    if not isinstance(payload, dict):
        raise Problem("payload is not a JSON object")
    return payload


def index_for(place: Place, deadline: float, wait: bool = True) -> Index | None:
    """The current index, rebuilding it in the background if it is stale; None if it is not
    ready by the deadline (at once without ``wait``). Where the cache folder cannot be written
    (a checkout mounted read-only) no rebuild could keep one: it is built here, in memory."""
    if away(place.root) is not None:  # a capture found git not ignoring okf/.memory/ since the index was built
        _unignored(place)  # (git asked again: that capture may have been the last, and the folder ignored since)
    found = open_index(place, heads.fingerprint(place))
    if found is not None or place.provider == "memory":  # the memory provider keeps nothing to index
        return found
    check_trusted(place)  # before anything is written or started
    if not writable(place):
        return _in_memory(place) if wait else None
    written = _written(place)
    rebuild = _start_rebuild(place)
    if not wait:
        return None
    while time.monotonic() + POLL_SECONDS < deadline:
        time.sleep(POLL_SECONDS)
        found = open_index(place, heads.fingerprint(place))
        if found is not None:
            return found
        if _written(place) != written and not _building(place):
            _NOT_READY[0] = STALE_AS_BUILT  # no build is coming that this prompt could wait for
            return None
        if rebuild.poll() is not None and not _building(place):  # it ended, no index written: it failed
            found = open_index(place, heads.fingerprint(place))
            if found is None:
                _NOT_READY[0] = REBUILD_FAILED
            return found
    return None


def _unignored(place: Place) -> None:
    """A capture found git not ignoring ``okf/.memory/`` (a commit un-ignored it) and left its
    marker (``hooklog.away``), which only a later capture removes, while a current index holds
    the verdict on the folder taken when it was built. Git is asked again; where the folder is
    still not the clone's own, whatever is written there ``git add -A`` commits, the index with
    the text of this machine's personal learnings too: the index, a disposable cache, is
    removed, and the folder is inert (Untrusted): nothing is delivered or recorded."""
    from gitstore._files import discard

    reason = not_own(place.root)
    if reason is not None:
        discard(index_path(place))
        raise Untrusted(reason)


def _written(place: Place) -> tuple[int, int] | None:
    """Which index file is in place: each build renames a new one over it."""
    try:
        found = os.stat(index_path(place))
    except OSError:
        return None
    return found.st_ino, found.st_mtime_ns


def _building(place: Place) -> bool:
    """Whether a build holds the build lock now (it may still write a current index)."""
    try:
        fd = os.open(lock_path(place), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)  # a FIFO: at once
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _in_memory(place: Place) -> Index:
    """The index built in memory for this prompt; at the time limit, the log says why it took so long."""
    from gitstore.deliver.build import in_memory

    _BUSY[0] = "building recall's index in memory (the checkout cannot be written, so none is kept)"
    try:
        return in_memory(place)
    finally:
        _BUSY[0] = ""


def _start_rebuild(place: Place) -> Any:
    """The background rebuild, started (its process)."""
    import subprocess

    return subprocess.Popen(
        [sys.executable, "-P", "-m", "gitstore.deliver.hook", "--rebuild", place.root], cwd=place.root,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True,
    )


def respond(harness: str, payload: dict[str, Any], cwd: str, deadline: float) -> str | None:
    """The text to print for one hook call, or None."""
    from gitstore.deliver.context import answer
    from gitstore.deliver.ledger import now

    place = locate(cwd)
    try:
        result = answer(place, harness, payload, now(), lambda wait: index_for(place, deadline - 0.5, wait))
    except Damaged as exc:  # its fingerprint current, it would fail every prompt until memory moved
        if not exc.damaged:
            raise Problem(str(exc)) from None
        exc.discard()
        log(place.root, harness, f"{exc}: removed, and built again")
        result = answer(place, harness, payload, now(), lambda wait: index_for(place, deadline - 0.5, wait))
    if result.output is None and "index is not ready" in result.reason:
        log(place.root, harness, _NOT_READY[0] or result.reason)
    elif result.output is None and result.reason.startswith(_SAID):
        log(place.root, harness, result.reason)  # a hook installed or fed amiss: nothing ever arrives
    return result.output


# why a hook call gets nothing that its installation or its harness must mend (an event that
# asks for no context is no problem, and the log stays quiet about it)
_SAID = ("no context hook for harness", "the payload names no session")


def _start_dir(payload: dict[str, Any]) -> str:
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and os.path.isdir(cwd):
        return cwd
    return working_dir()


def _give_up(harness: str, cwd: str, limit: float) -> Any:
    def handler(signum: int, frame: Any) -> None:
        busy = f" {_BUSY[0]}" if _BUSY[0] else ""
        log(cwd, harness, f"context took longer than {limit:g} s{busy}; nothing delivered")
        os._exit(0)
    return handler


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["--check"]:
        return check()
    if args[:1] == ["--rebuild"]:
        return _rebuild(args[1] if len(args) > 1 else ".")
    harness = args[0] if args else ""
    limit = _timeout()
    deadline = time.monotonic() + limit
    cwd = working_dir()
    answer_fd = _hold_stdout()
    text = None
    try:
        signal.signal(signal.SIGALRM, _give_up(harness, cwd, limit))
        signal.setitimer(signal.ITIMER_REAL, limit)
        payload = read_payload(deadline)
        cwd = _start_dir(payload)
        signal.signal(signal.SIGALRM, _give_up(harness, cwd, limit))
        text = respond(harness, payload, cwd, deadline)
    except Inert as exc:  # an untrusted checkout's log is in the state folder it did not make
        if not isinstance(exc, Untrusted) and not str(exc).startswith(QUIET) and _own_state(cwd):
            log(cwd, harness, str(exc))
    except Problem as exc:
        log(cwd, harness, str(exc))
    except BaseException as exc:  # noqa: BLE001 - the agent must never see a failure
        said = getattr(exc, "loggable", False)  # words that quote nothing read, and say what to do
        log(cwd, harness, f"context hook failed: {exc}" if said else f"context hook failed: {failure(exc)}")
    signal.setitimer(signal.ITIMER_REAL, 0)
    if text:
        _write(answer_fd, text.encode("utf-8"))
    return 0


def _own_state(cwd: str) -> bool:
    """Whether the state folder above ``cwd`` is the clone's own (``place.not_own``), asked
    before a configuration gitstore cannot use is logged there: one that came with the
    repository is no reason to write into its checkout."""
    found = work_tree(cwd)
    return found is not None and not_own(found[0]) is None


def _hold_stdout() -> int:
    """Keep standard output for the answer and point descriptor 1 at the null device, so nothing
    else anyone prints reaches the harness."""
    if sys.stdout is not None:  # None when the harness closed descriptor 1
        sys.stdout.flush()
    try:
        kept = os.dup(1)
    except OSError:  # closed: the answer goes nowhere, and nothing else may take descriptor 1
        kept = -1
    null = os.open(os.devnull, os.O_WRONLY)
    if null != 1:
        os.dup2(null, 1)
        os.close(null)
    return kept


def _write(fd: int, data: bytes) -> None:
    if fd < 0:
        return
    try:
        while data:
            data = data[os.write(fd, data):]
    except OSError:
        pass


def _rebuild(root: str) -> int:
    """The background rebuild the hook starts: one at a time (again, once, when the store moved
    while it built), logged when it fails."""
    try:
        from gitstore.deliver.build import build_lock, fresh

        place = locate(root)
        check_trusted(place)
        with build_lock(place, wait=False) as held:
            for _ in range(BUILDS if held else 0):  # an append while it built: built again, once
                if fresh(place):
                    break
                from gitstore.deliver.build import build

                build(place)
    except Inert:
        pass
    except BaseException as exc:  # noqa: BLE001
        said = getattr(exc, "loggable", False)  # words that quote nothing read, and say what to do
        log(root, "-", f"recall index rebuild failed: {exc if said else described(exc, REBUILD_KINDS)}")
    return 0


def check() -> int:
    """The dry run: can everything an answer needs be imported?"""
    try:
        import gitstore.deliver.context  # noqa: F401
        import gitstore.deliver.ledger  # noqa: F401
    except BaseException as exc:  # noqa: BLE001
        print(f"gitstore.deliver.hook: cannot load the context hook: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
