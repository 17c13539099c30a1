"""What the benchmarks share to run gitstore's command line in a process of its own and clock it.

- ``gitstore_argv()``: how a user runs ``gitstore`` from this environment (the installed
  script beside the interpreter, else ``python -m gitstore``);
- ``child_env(folder)``: the environment of a measured process, its bytecode cached as an
  installed package's is, even where this environment turns caching off
  (``PYTHONDONTWRITEBYTECODE``: gitstore installed editable would then be compiled from source
  at every start, tens of milliseconds that no user pays);
- ``cpu_of(argv, cwd, env, data)``: run a process to its end, ``data`` (if any) on its standard
  input, and return its own processor seconds (user + system, from ``os.wait4``: the child's,
  not the benchmark's, and none of another child's) with its output. A process that fails stops
  the benchmark with the end of what it said;
- ``copy_as_moved(source, target)``: a copy of a world of clones built once (tests use it
  too) that stands for those clones moved there: each clone's record of the folder it runs in
  (``okf/.memory/home``) names where the copy is, so none of them takes itself for a copy of
  the original (whose first command would give it a writer id of its own).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def copy_as_moved(source: Path, target: Path) -> None:
    """``shutil.copytree`` (links kept as links), every clone's ``okf/.memory/home`` naming
    the copy's folder, as that clone's next command would write it once moved there."""
    from gitstore.config import HOME_NAME, STATE_DIR, keep_home

    suffix = os.sep + str(STATE_DIR)
    roots: list[str] = []  # each clone's work tree, from ``source``

    def left_out(folder: str, names: list[str]) -> set[str]:
        if folder.endswith(suffix) and HOME_NAME in names:
            roots.append(os.path.relpath(folder[:-len(suffix)], source))
            return {HOME_NAME}
        return set()

    shutil.copytree(source, target, symlinks=True, ignore=left_out)
    for root in roots:
        keep_home(Path(target, root, STATE_DIR), Path(target, root).resolve())


def gitstore_argv() -> list[str]:
    """The command that runs ``gitstore`` from this environment."""
    script = Path(sys.executable).with_name("gitstore")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gitstore"]


def pycache_prefix(folder: Path) -> str:
    """Where a measured process caches its bytecode: ``folder`` (a folder of this run: the first
    run fills it), unless ``GITSTORE_BENCH_PYCACHE`` names another (the smoke tests share one
    among every benchmark they run, so none compiles again what another did)."""
    return os.environ.get("GITSTORE_BENCH_PYCACHE") or str(folder)


def child_env(folder: Path) -> dict[str, str]:
    """This environment for a measured process, bytecode cached in ``folder/pycache``
    (``pycache_prefix``) and gitstore's own settings dropped."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("GITSTORE_")}
    env["PYTHONPYCACHEPREFIX"] = pycache_prefix(folder / "pycache")
    return env


def cpu_of(argv: list[str], cwd: Path, env: dict[str, str], data: bytes | None = None) -> tuple[float, bytes]:
    """The processor seconds of one process run to its end, and its output; SystemExit naming
    the command and the end of what it said when it fails."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err,
                                   stdin=subprocess.DEVNULL if data is None else subprocess.PIPE)
        if process.stdin is not None:
            try:
                process.stdin.write(data or b"")
                process.stdin.close()
            except BrokenPipeError:  # it stopped reading: its exit status and errors say why
                pass
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        if process.returncode != 0:
            out.seek(0)
            err.seek(0)
            said = (out.read() + err.read()).decode(errors="replace")
            raise SystemExit(f"{' '.join(argv[:4])} failed (exit {process.returncode}): {said[-600:]}")
        out.seek(0)
        return usage.ru_utime + usage.ru_stime, out.read()
