"""``gitstore tick``: one pass of the background loop, with no daemon of its own.

Something the team already runs calls it (cron, a harness hook, a CI schedule). Each call:

1. reads the ``loop`` section of the configuration strictly (``gitstore.sync.settings``): a
   bad section refuses the whole tick;
2. takes the loop's lock (``okf/.memory/loop/tick.lock``, an ``flock`` the kernel releases
   when the process ends, however it ends); when another tick holds it, returns at once
   saying which process holds it and since when;
3. runs each configured step that is due (its ``every`` has passed since it last started), in
   the order of the flow, each in a process of its own in a new session, stopped with its
   whole process group when its ``timeout`` passes. A failing step is reported and the
   others go on; a step whose stage is not installed is reported ``unavailable``;
4. records each step's result as it finishes (``okf/.memory/loop/state.json``), so an
   interrupted tick keeps what it did, and ``gitstore status`` shows the last results and
   when each step is due next.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from gitstore import _jsontext
from gitstore._files import replace_file
from gitstore.config import CONFIG_NAME, Workspace, from_git, refuse_unaccepted
from gitstore.errors import GitstoreError, Refused, UsageError
from gitstore.records.inputs import read_regular
from gitstore.records.times import format_time, parse_time
from gitstore.sync import settings as loop_settings
from gitstore.sync.settings import LoopSettings, StepConfig, format_duration
from gitstore.sync.steps import FAILED, NOT_DUE, STEPS, SUCCESS, TIMED_OUT, UNAVAILABLE, Call, Outcome

LOOP_DIR = "loop"
STATE_FILE = "state.json"
LOCK_FILE = "tick.lock"
OUTPUT_LIMIT = 1 << 20

Clock = Callable[[], datetime]
Runner = Callable[[StepConfig, Call], Outcome]


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class StepReport:
    """One step of one tick."""

    name: str
    status: str
    line: str
    seconds: float = 0.0
    next_due: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def render(self) -> str:
        took = f" ({self.seconds:.1f}s)" if self.status not in (NOT_DUE, UNAVAILABLE) else ""
        return f"{self.name:<8} {self.status:<11} {self.line}{took}"

    def to_json(self) -> dict[str, Any]:
        return {"step": self.name, "status": self.status, "line": self.line, "seconds": round(self.seconds, 3),
                "nextDue": self.next_due, "detail": self.detail}


@dataclass
class TickReport:
    """What one ``gitstore tick`` did."""

    ran: bool
    steps: list[StepReport] = field(default_factory=list)
    holder: dict[str, Any] | None = None

    @property
    def exit_code(self) -> int:
        return 0 if all(s.status in SUCCESS for s in self.steps) else 1

    def render(self) -> list[str]:
        if not self.ran:
            holder = self.holder or {}
            return [f"tick: another tick is running (pid {holder.get('pid', '?')}, started "
                    f"{holder.get('startedAt', '?')}); this one did nothing"]
        if not self.steps:
            return ['tick: no steps configured (add a "loop" section to okf/.memory/config.json; '
                    "see okf/wiki/loop.md)"]
        return [s.render() for s in self.steps]

    def to_json(self) -> dict[str, Any]:
        return {"ran": self.ran, "holder": self.holder, "steps": [s.to_json() for s in self.steps],
                "ok": self.exit_code == 0}


# -- local state ----------------------------------------------------------------------------------

def loop_folder(workspace: Workspace) -> Path:
    return workspace.state / LOOP_DIR


def read_state(workspace: Workspace) -> dict[str, dict[str, Any]]:
    """The last result of each step (empty when none was kept or the file is unreadable). A
    file whose bytes git has came with a commit, not from this clone's ticks: one that says
    every step ran a moment ago, or in a year, would stop every clone's loop. It counts as none."""
    try:
        where = loop_folder(workspace) / STATE_FILE
        raw = read_regular(where)  # a FIFO reads as none, at once
        data = _jsontext.loads(raw) if not from_git(workspace.repo, where, raw) else None
    except (OSError, ValueError):
        return {}
    steps = data.get("steps") if isinstance(data, dict) else None
    return {k: v for k, v in steps.items() if isinstance(v, dict)} if isinstance(steps, dict) else {}


def _write_state(folder: Path, state: dict[str, dict[str, Any]]) -> None:
    replace_file(folder / STATE_FILE, json.dumps({"steps": state}, indent=2, ensure_ascii=False) + "\n")


def _past(value: Any, now: datetime) -> str | None:
    """``value`` when it is a time no later than ``now``, else None."""
    try:
        return value if isinstance(value, str) and parse_time(value) <= now else None
    except GitstoreError:
        return None


def next_due(config: StepConfig, last: dict[str, Any] | None, now: datetime) -> datetime | None:
    """When a step is due next (None: now, it never ran, its record is unreadable, or it says
    the step started after ``now``: a clock set back, which would hold the step off until
    the clock caught up)."""
    started = (last or {}).get("startedAt")
    try:
        began = parse_time(started) if started else None
    except GitstoreError:
        return None
    return began + timedelta(seconds=config.every) if began is not None and began <= now else None


# -- the lock -------------------------------------------------------------------------------------

@contextmanager
def locked(folder: Path, now: datetime) -> Iterator[dict[str, Any] | None]:
    """Hold the loop's lock for the block; yields None when held, else who holds it."""
    if folder.is_symlink():  # a commit can put one in the state folder: the lock would be written wherever it points
        raise Refused(f"{folder} is a link (to {os.readlink(folder)}); the loop keeps its lock in a folder of its own")
    folder.mkdir(parents=True, exist_ok=True)
    try:  # never through a link (a commit's, to a file of the user's that truncating would empty), never a FIFO
        fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        raise Refused(f"{folder / LOCK_FILE} cannot be the loop's lock ({exc.strerror}): "
                      "remove it, and tick makes its own") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise Refused(f"{folder / LOCK_FILE} is not a regular file: remove it, and tick makes its own")
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield _holder(fd)
            return
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "startedAt": format_time(now)}).encode(), 0)
        try:
            yield None
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _holder(fd: int) -> dict[str, Any]:
    try:
        data = _jsontext.loads(os.pread(fd, 4096, 0) or b"{}")
    except ValueError:
        data = {}
    return data if isinstance(data, dict) else {}


def running(workspace: Workspace) -> dict[str, Any] | None:
    """Who holds the loop's lock now, or None."""
    path = loop_folder(workspace) / LOCK_FILE
    if not path.exists():
        return None
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _holder(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


# -- running one step -----------------------------------------------------------------------------

def _die_with_parent() -> None:
    """In the child, before it runs: ask Linux to kill it when the tick dies (even by SIGKILL),
    so no step outlives the lock that kept it from overlapping another."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: a tick stopped by SIGTERM still stops its step (see tick)


def run_in_child(config: StepConfig, call: Call) -> Outcome:
    """Run a step in a process of its own, in a new session, bounded by its timeout."""
    request = json.dumps({"step": config.name, **call.to_json()})
    child = subprocess.Popen([sys.executable, "-m", "gitstore.sync.steps"], cwd=call.root, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                             preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
    try:
        out, err = child.communicate(request.encode(), timeout=config.timeout)
    except subprocess.TimeoutExpired:
        _kill_group(child)
        return Outcome(TIMED_OUT, f"stopped after {format_duration(config.timeout)} (its timeout)")
    finally:
        _kill_group(child)  # anything it left behind in its session goes too
    lines = out[-OUTPUT_LIMIT:].decode("utf-8", "replace").strip().splitlines()
    try:
        data = _jsontext.loads(lines[-1])
        return Outcome(str(data["status"]), str(data["line"]), data.get("detail") or {}, data.get("waited") is True)
    except (IndexError, ValueError, KeyError, TypeError):
        why = " ".join(err[-2000:].decode("utf-8", "replace").split())[-300:] or f"exit code {child.returncode}"
        return Outcome(FAILED, f"the step ended without a result: {why}")


def _kill_group(child: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if child.returncode is None:
        try:
            child.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            pass


# -- one tick -------------------------------------------------------------------------------------

def tick(start: str | Path = ".", *, force: bool = False, only: list[str] | None = None,
         clock: Clock = _utc_now, runner: Runner = run_in_child) -> TickReport:
    """Run the configured steps that are due (all of them with ``force``; ``only`` those named).
    A ``loop`` section changed since init last took config.json (a person's edit, or a patch:
    ``git apply`` leaves git no trace) runs nothing until ``gitstore init --accept-changes``."""
    workspace = Workspace.find(start)
    refuse_unaccepted(workspace.repo, workspace.state / CONFIG_NAME, ("loop",),
                      "a tick runs the steps they name, as whoever loop.by names")
    settings = loop_settings.settings(workspace.config)
    chosen = _chosen(settings, only)
    folder = loop_folder(workspace)
    with locked(folder, clock()) as holder, _terminated_as_interrupt():
        if holder is not None:
            return TickReport(False, holder=holder)
        report = TickReport(True)
        state = read_state(workspace)
        for config in chosen:
            report.steps.append(_step(config, state, folder, workspace.root, settings.by,
                                      force or only is not None, clock, runner))
        return report


@contextmanager
def _terminated_as_interrupt() -> Iterator[None]:
    """SIGTERM (cron's or CI's stop) ends a tick as Ctrl-C does: the running step's process
    group is killed and the lock released on the way out."""
    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _chosen(settings: LoopSettings, only: list[str] | None) -> list[StepConfig]:
    if only is None:
        return list(settings.steps)
    configured = {s.name: s for s in settings.steps}
    for name in only:
        if name not in STEPS:
            raise UsageError(f"no step {name!r} (steps: {', '.join(STEPS)})")
        if name not in configured:
            raise UsageError(f"step {name!r} is not configured in loop.steps of okf/.memory/config.json")
    return [configured[n] for n in STEPS if n in only]


def _step(config: StepConfig, state: dict[str, dict[str, Any]], folder: Path, root: Path, by: str | None,
          force: bool, clock: Clock, runner: Runner) -> StepReport:
    last = state.get(config.name)
    now = clock()
    due = next_due(config, last, now)
    if not force and due is not None and now < due:
        return StepReport(config.name, NOT_DUE, f"next due {format_time(due)} (every {format_duration(config.every)})",
                          next_due=format_time(due))
    began = time.monotonic()
    last_ok = _past((last or {}).get("lastOk"), now)  # one ahead of the clock would skip what came between
    call = Call(root, config.options, by, last_ok)
    if not STEPS[config.name].available():
        outcome = Outcome(UNAVAILABLE, f"{STEPS[config.name].needs} is not installed in this version of gitstore")
    else:
        try:
            outcome = runner(config, call)
        except OSError as exc:  # the child could not even start
            outcome = Outcome(FAILED, f"the step could not start: {exc.strerror or exc}")
    seconds = time.monotonic() - began
    upcoming = format_time(now + timedelta(seconds=config.every))
    record = {"startedAt": format_time(now), "finishedAt": format_time(clock()), "status": outcome.status,
              "line": outcome.line, "seconds": round(seconds, 3),
              "lastOk": format_time(now) if outcome.status in SUCCESS else last_ok}
    if outcome.status == UNAVAILABLE or outcome.waited:  # it did not run, or waited: still due next tick
        record["startedAt"] = (last or {}).get("startedAt")
    state[config.name] = record
    _write_state(folder, state)
    return StepReport(config.name, outcome.status, outcome.line, seconds, upcoming, outcome.detail)


# -- what status shows ----------------------------------------------------------------------------

def loop_status(workspace: Workspace, clock: Clock = _utc_now) -> dict[str, Any]:
    """The configured steps, their last results and when each is due; a bad section is named."""
    try:
        settings = loop_settings.settings(workspace.config)
    except GitstoreError as exc:
        return {"problem": str(exc), "steps": [], "running": None}
    state = read_state(workspace)
    now = clock()
    steps = []
    for config in settings.steps:
        last = state.get(config.name)
        due = next_due(config, last, now)
        steps.append({"step": config.name, "every": format_duration(config.every),
                      "timeout": format_duration(config.timeout), "available": STEPS[config.name].available(),
                      "last": last, "nextDue": format_time(due) if due and due > now else "now"})
    return {"problem": None, "steps": steps, "running": running(workspace)}
