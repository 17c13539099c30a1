"""The command line as a user feels it: start-up, and the read commands on a 10,000-record store.

1. Start-up: ``gitstore --version`` and ``gitstore --help`` against ``python3 -c pass`` (the same
   interpreter), fresh processes, runs interleaved. Goal: each within 2x bare Python.
2. Commands on a store of about 10,000 records: ``gitstore status``, ``gitstore learnings`` and
   ``gitstore show ID``, each against the same read done through the library (a fresh process
   that imports the query, opens the store and calls it, printing nothing), so the line shows
   what the command line itself adds. Goal: each command within 0.3 s wall.

The store (``--records``, default 10,000) is built with the rules benchmark's generator
(``bench/bench_rules.py``: review threads with comments, edits, labels and retractions, a grant
and a withdrawal, learnings in every state citing that evidence, an audit entry per step), in
the proportions of a team's store: evidence is most of it, about one learning per forty events.
A second store of the same size in the rules benchmark's own proportions (one learning per
seven and a half events, most of them cited) is measured too and reported without a goal.

The measured processes cache their bytecode in a folder of the run (``PYTHONPYCACHEPREFIX``,
filled by a first untimed run of each command), as an installed package has its ``.pyc``
files, even where this environment sets ``PYTHONDONTWRITEBYTECODE``: gitstore installed
editable would otherwise be compiled from source at every start.

Nothing is asserted about time: the machine is shared and noisy, so runs alternate and the
report takes medians (wall and CPU), with the best wall time beside them (what a quiet machine
would see); the verdict is on the median wall time. ``python -m bench cli --quick`` is a smoke
test.

2026-12-07, 2 shared cores, runs alternating with the code before, a team's mix: ``gitstore
learnings`` 0.374 and 0.381 s wall before (library 0.337 and 0.342 s), 0.360 and 0.369 s after
(library 0.330 and 0.341 s), goal not met. What changed: the 1 MB commit of the events' bulk
append is loaded once, not once a pass (``GitProvider._pass``, 10-15 ms a load: it is a delta);
a graph of 2,000 events asks glibc for no pages back (``queries._views.GIVE_BACK_FROM``); and the
93 events the closure adds are held from the first read, not read again (``HOLD_EVERY_UPTO``).
Where the rest goes, in one process: imports about 0.14 s (pygit2 25-60 ms, typer 35 ms, the 24
dataclasses gitstore makes on the way 14 ms), the read 0.19 s of CPU (learnings and audit
entries 0.045 s, the cited episodes' 2,375 records 0.065 s, 415 payloads 0.02 s, the rest
building the view and judging), and the 196 titles screened before they are listed 0.03 s.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench._process import child_env, gitstore_argv

NAME = "cli"
STARTUP_GOAL = 2.0
COMMAND_GOAL = 0.3
EVENTS_PER_LEARNING = 40.0  # a team's store; the rules benchmark's mix has 7.5

LIBRARY = {
    "status": "from gitstore.config import Workspace\nfrom gitstore.queries.status import status\n"
              "status(Workspace.find('.'))",
    "learnings": "from gitstore.context import Context\nfrom gitstore.queries.learnings import learnings\n"
                 "learnings(Context.open())",
    "show": "from gitstore.context import Context\nfrom gitstore.queries.learnings import show\n"
            "show(Context.open(), {id!r})",
}


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh process (CPU: user + system of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{NAME}: {' '.join(argv)} failed: {done.stderr.decode(errors='replace').strip()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _interleaved(runs: dict[str, list[str]], cwd: Path, repeat: int, env: dict[str, str],
                 warm: bool = True) -> dict[str, dict[str, float]]:
    """Median wall and CPU of each command line, the lines taking turns (after one warm-up run
    of each, unless not ``warm``)."""
    walls: dict[str, list[float]] = {k: [] for k in runs}
    cpus: dict[str, list[float]] = {k: [] for k in runs}
    for _, argv in runs.items() if warm else ():  # warm the file cache and the .pyc files once
        _run(argv, cwd, env)
    for round_ in range(repeat):
        order = list(runs)
        order = order[round_ % len(order):] + order[: round_ % len(order)]
        for key in order:
            wall, cpu = _run(runs[key], cwd, env)
            walls[key].append(wall)
            cpus[key].append(cpu)
    return {k: {"wall": statistics.median(walls[k]), "best": min(walls[k]), "cpu": statistics.median(cpus[k])}
            for k in runs}


def startup(repeat: int, env: dict[str, str], warm: bool = True) -> dict[str, Any]:
    here = Path(tempfile.gettempdir())
    found = _interleaved({"python": [sys.executable, "-c", "pass"], "version": [*gitstore_argv(), "--version"],
                          "help": [*gitstore_argv(), "--help"]}, here, repeat, env, warm)
    base = found["python"]["wall"]
    return {**found, "ratios": {k: found[k]["wall"] / base for k in ("version", "help")}}


def build(root: Path, records: int, per_learning: float) -> tuple[int, str]:
    """A store of about ``records`` records with one learning per ``per_learning`` events."""
    from bench.bench_rules import Builder

    # each learning writes about 2.1 versions and as many audit entries; episodes hold ~6 events
    events = int(records / (1 + 1 / 6 + 4.2 / per_learning))
    learnings = max(3, int(events / per_learning))
    built = Builder(root, learnings, events, seed=20261201).build()
    shown = next(iter(sorted(built.expected)))
    return built.records, shown


def commands(root: Path, shown: str, repeat: int, env: dict[str, str], warm: bool = True) -> dict[str, Any]:
    cli = gitstore_argv()
    runs = {"status": [*cli, "status"], "learnings": [*cli, "learnings"], "show": [*cli, "show", shown]}
    for name, code in LIBRARY.items():
        runs[f"library {name}"] = [sys.executable, "-c", code.format(id=shown)]
    return _interleaved(runs, root, repeat, env, warm)


def verdict(ok: bool) -> str:
    return "goal met" if ok else "GOAL NOT MET"


def report(start: dict[str, Any], stores: list[dict[str, Any]]) -> str:
    lines = []
    base = start["python"]
    for key, label in (("version", "--version"), ("help", "--help")):
        ratio = start["ratios"][key]
        lines.append(f"cli: start-up gitstore {label} {start[key]['wall'] * 1000:.0f} ms, python3 -c pass "
                     f"{base['wall'] * 1000:.0f} ms, ratio {ratio:.2f}x (goal <= {STARTUP_GOAL:g}x): "
                     f"{verdict(ratio <= STARTUP_GOAL)}")
    for store in stores:
        for name in ("status", "learnings", "show"):
            command, library = store["times"][name], store["times"][f"library {name}"]
            goal = f"(goal <= {COMMAND_GOAL:g} s): {verdict(command['wall'] <= COMMAND_GOAL)}" if store["goal"] \
                else "(reported, no goal)"
            lines.append(
                f"cli: {name} on {store['records']} records ({store['mix']}) {command['wall']:.3f} s "
                f"(best {command['best']:.3f} s, cpu {command['cpu']:.3f} s), library {library['wall']:.3f} s "
                f"(cpu {library['cpu']:.3f} s), ratio {command['wall'] / library['wall']:.2f}x {goal}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench cli",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true",
                        help="a 500-record store, one run of each and no warm-up: a smoke test")
    parser.add_argument("--records", type=int, help="records in the store (default 10000; quick 500)")
    parser.add_argument("--repeat", type=int, help="interleaved runs of each (default 7; quick 1)")
    parser.add_argument("--json", action="store_true", help="also print the results as one JSON line")
    options = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    records = options.records or (500 if options.quick else 10_000)
    repeat = options.repeat or (1 if options.quick else 7)
    if records < 500 or repeat < 1:
        parser.error("--records must be at least 500 and --repeat at least 1")
    work = Path(tempfile.mkdtemp(prefix="gitstore-bench-cli-"))
    env = child_env(work)
    stores = []
    try:
        warm = not options.quick  # a smoke test's one run is not judged: no warm-up run before it
        start = startup(repeat, env, warm)
        mixes: list[tuple[str, float, bool]] = [("a team's mix", EVENTS_PER_LEARNING, True)]
        if not options.quick:
            mixes.append(("learning-heavy mix", 7.5, False))
        for index, (mix, per_learning, goal) in enumerate(mixes):
            root = work / f"repo{index}"
            written, shown = build(root, records, per_learning)
            stores.append({"mix": mix, "records": written, "goal": goal, "times": commands(root, shown, repeat, env, warm)})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(report(start, stores), flush=True)
    if options.json:
        print(json.dumps({"startup": start, "stores": stores}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
