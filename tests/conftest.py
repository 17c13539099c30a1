"""Shared fixtures: paths to contracts and third-party test material, real git repositories."""

from __future__ import annotations

import copy
import functools
import gc
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tools.testdata import MISSING, available, testdata_root

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = ROOT / ".memory-schema" / "v1"
SHARED = testdata_root()


FAST_ROOT = Path("/dev/shm")  # a memory file system on most Linux machines
FAST_ROOT_FREE = 8 << 30  # what a run may fill (it leaves some 3 GB), with room to spare


def _fast_temproot() -> Path | None:
    """``FAST_ROOT`` when it is a writable memory file system (tmpfs) that lets programs run
    and has ``FAST_ROOT_FREE`` bytes free, else None. Nearly every test builds git repositories:
    on the disk each new file costs some 0.15 ms of the kernel's time, about 40 times as much as
    in memory, and an append to the store takes twice the CPU it takes there."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
        free = os.statvfs(FAST_ROOT)
    except OSError:
        return None
    options = [fields[3].split(",") for fields in (line.split() for line in mounts)
               if len(fields) > 3 and fields[1] == str(FAST_ROOT) and fields[2] == "tmpfs"]
    if not options or "noexec" in options[-1] or "ro" in options[-1]:
        return None
    if free.f_bavail * free.f_frsize < FAST_ROOT_FREE or not os.access(FAST_ROOT, os.W_OK | os.X_OK):
        return None
    return FAST_ROOT


def pytest_configure(config: pytest.Config) -> None:
    """The run's temporary folders in memory (``_fast_temproot``) unless the person running it
    chose where (``--basetemp``, ``PYTEST_DEBUG_TEMPROOT``, ``TMPDIR``) or asked for the disk
    (``GITSTORE_TESTS_ON_DISK=1``). The workers take their folders from this process."""
    if hasattr(config, "workerinput") or config.option.basetemp is not None:
        return
    if any(os.environ.get(key) for key in ("PYTEST_DEBUG_TEMPROOT", "TMPDIR", "GITSTORE_TESTS_ON_DISK")):
        return
    root = _fast_temproot()
    if root is not None:
        os.environ["PYTEST_DEBUG_TEMPROOT"] = str(root)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Any:
    """Collection without the cyclic collector, then what it made frozen: importing every test
    module and building every test's item ran some 5,000 collections over those same objects,
    4 of the 12 s of CPU a worker spent collecting; frozen, no collection during the run goes
    over them again."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        if paused:
            gc.freeze()
            gc.enable()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` (those of ten seconds or more) first, the rest in their order: the
    workers then finish together, instead of one running a minute-long stress test, or the
    convergence run, alone once the rest are done."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Earlier runs' temporary folders removed in the background, this run's kept until the
    next run (in memory, only when it failed: see ``pytest_configure``). A run leaves some 3 GB in a few hundred thousand files; pytest itself deletes
    the folders of runs before the last three as it exits, and on a disk that discards freed
    blocks that takes minutes, which the run (and CI) would wait for: so pytest keeps them all
    (``tmp_path_retention_count`` in pyproject.toml) and this hands them to a process of their
    own. A folder still locked (a run under way) is left alone, unless its lock is older than
    pytest counts a lock alive (that run was killed)."""
    import getpass
    import tempfile
    import time

    from _pytest.pathlib import LOCK_TIMEOUT

    def held(folder: Path) -> bool:
        try:
            return (folder / ".lock").stat().st_mtime > time.time() - LOCK_TIMEOUT
        except OSError:
            return False

    config = session.config
    if hasattr(config, "workerinput") or config.option.basetemp is not None:
        return
    try:
        user = getpass.getuser()
    except (ImportError, KeyError, OSError):
        user = "unknown"
    root = Path(os.environ.get("PYTEST_DEBUG_TEMPROOT") or tempfile.gettempdir()).resolve() / f"pytest-of-{user}"
    try:
        earlier = [p for p in root.iterdir() if p.name.startswith(("pytest-", "garbage-", "removing-"))
                   and p.is_dir() and not p.is_symlink() and not held(p)]
    except OSError:
        return
    factory = getattr(config, "_tmp_path_factory", None)
    own = getattr(factory, "_basetemp", None)
    if session.exitstatus == 0 and own is not None and root.is_relative_to(FAST_ROOT):
        earlier.append(own)  # a run that passed leaves nothing to read, and memory is not the disk's to keep
    going = []
    for folder in earlier:
        target = folder if folder.name.startswith("removing-") else root / f"removing-{folder.name}-{os.getpid()}"
        try:
            folder.rename(target)
        except OSError:
            continue
        going.append(str(target))
    if going:
        subprocess.Popen(["rm", "-rf", "--", *going], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)


GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Person",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test Person",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def shared(*parts: str) -> Path:
    """A path in the third-party test material; skips the test, with one reason for all, when
    the material is absent. A file missing from material that is there is a failure."""
    if not available():
        pytest.skip(MISSING)
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.fail(f"{path} is missing from the third-party test material in {SHARED}")
    return path


def shared_params(*parts: str, pattern: str = "*", keep: Callable[[Path], bool] = lambda p: True) -> list[Any]:
    """Files under a folder of the material, for ``pytest.mark.parametrize``: when the material
    is absent, one parameter that skips with the same reason as ``shared`` (collection never
    reads the material, so it never errors)."""
    if not available():
        return [pytest.param(None, id="material-absent", marks=pytest.mark.skip(reason=MISSING))]
    root = SHARED.joinpath(*parts)
    found = sorted(p for p in root.rglob(pattern) if p.is_file() and keep(p))
    if not found:
        raise FileNotFoundError(f"no {pattern} under {root}")
    return [pytest.param(p, id=p.relative_to(root).as_posix()) for p in found]


@pytest.fixture(autouse=True)
def _pinned_git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    pin_identity(monkeypatch, tmp_path_factory.mktemp("home"))


def pin_identity(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """A HOME of its own, the test identity for git and no other GIT_ setting: every test runs
    so, and a module-scoped fixture (set up before any test's own fixtures) pins the same."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    for key in ("CODEX_HOME", "GEMINI_CLI_HOME", "GEMINI_CLI_TRUSTED_FOLDERS_PATH", "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
                "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"):
        monkeypatch.delenv(key, raising=False)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in list(os.environ):
        if key.startswith("GIT_") and key not in GIT_ENV:
            monkeypatch.delenv(key)


def build_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Any]) -> tuple[Path, Any]:
    """``build(folder)`` in a new folder ``name`` of this run, under the pinned identity (the
    world a module-scoped fixture makes once, each test taking a copy): the folder and what
    ``build`` returned."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        pin_identity(monkeypatch, tmp_path_factory.mktemp("home"))
        folder = tmp_path_factory.mktemp(name)
        return folder, build(folder)


def copy_world(source: Path, target: Path) -> None:
    """Every entry of ``source`` (clones, bare remotes, keys) copied into ``target`` as moved
    there (``copy_as_moved``), each clone's and bare remote's configuration naming the copies (its
    remotes, its signing key): a world made once per module, copied for each test."""
    from bench._process import copy_as_moved

    for entry in sorted(source.iterdir()):
        copy_as_moved(entry, target / entry.name)
    for config in [*target.glob("*/.git/config"), *target.glob("*.git/config")]:  # clones', bare remotes'
        config.write_text(config.read_text().replace(f"{source}{os.sep}", f"{target}{os.sep}"))


_FACTORY: list[pytest.TempPathFactory] = []  # this process's, for made_once


@pytest.fixture(autouse=True, scope="session")
def _remembered_factory(tmp_path_factory: pytest.TempPathFactory) -> None:
    _FACTORY[:] = [tmp_path_factory]


def made_once(build: Callable[..., Any]) -> Callable[..., Any]:
    """``build(folder, ...)``, which makes a world of clones in ``folder``, run once per process
    for the same arguments (in a folder of this run's own); each call ``made(tmp_path, ...)``
    copies that world into ``tmp_path`` (``copy_world``) and returns what ``build`` returned,
    every path in the world named in the copy and every context opened there. The world is
    made under the pinned identity, as a test's own would be."""
    made: dict[tuple[Any, ...], tuple[Path, Any]] = {}  # arguments -> (the world, what build returned)

    def moved(value: Any, source: Path, target: Path) -> Any:
        from gitstore.context import Context

        if isinstance(value, Path):
            return target / value.relative_to(source) if value.is_relative_to(source) else value
        if isinstance(value, Context):
            return Context.open(moved(value.workspace.root, source, target))
        if isinstance(value, (tuple, list)):
            return type(value)(moved(item, source, target) for item in value)
        if isinstance(value, dict):
            return {key: moved(item, source, target) for key, item in value.items()}
        return copy.deepcopy(value)

    @functools.wraps(build)
    def copied(tmp_path: Path, *args: Any, **kwargs: Any) -> Any:
        key = (*args, *sorted(kwargs.items()))
        if key not in made:
            folder = _FACTORY[0].mktemp(f"made-once-{build.__name__}")
            with pytest.MonkeyPatch.context() as monkeypatch:
                pin_identity(monkeypatch, _mkdir(folder / "home"))
                made[key] = folder / "world", build(_mkdir(folder / "world"), *args, **kwargs)
        source, result = made[key]
        copy_world(source, tmp_path)
        return moved(result, source, tmp_path)

    return copied


def _mkdir(folder: Path) -> Path:
    folder.mkdir()
    return folder


def git(cwd: Path, *args: str) -> str:
    """Run real git in cwd and return its output."""
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fresh git repository with one commit and an origin remote."""
    from .templates import copy

    path = tmp_path / "widgets"
    copy(("repo",), path, _initial_commit)
    return path


def _initial_commit(path: Path) -> None:
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "remote", "add", "origin", "https://token:secret@github.com/acme/widgets.git")
    (path / "README.md").write_text("# widgets\n")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "initial")


def all_objects(root: Path) -> bytes:
    """The content of every object in a work tree's repository and in its local namespace's own
    repository (``.git/gitstore/local``), packed ones decompressed."""
    found = []
    for git_dir in (root / ".git", root / ".git" / "gitstore" / "local"):
        if (git_dir / "HEAD").exists():
            found.append(subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "--batch-all-objects", "--batch"],
                                        capture_output=True, check=True).stdout)
    return b"".join(found)
