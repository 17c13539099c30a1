"""Where the git provider keeps things of its own, and running git on a git folder.

Everything of memory's that is not a shared ref lives under the repository's common git folder,
in ``gitstore/``: lock files, the log of acknowledged tips, scratch space for packs being
written, the journal of appends under way, and ``local/``, a bare repository holding the local
namespace. No push reaches a folder inside ``.git`` that is not the repository's own object
database or refs, so records kept there never leave the machine.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pygit2

from gitstore.errors import IntegrityError

LOCAL = "local"
SCRATCH = "tmp"
PENDING = "pending"


def common_dir(repo: pygit2.Repository) -> Path:
    """The git folder shared by every worktree of ``repo`` (``.git`` of a plain clone)."""
    path = Path(repo.path)
    marker = path / "commondir"
    if marker.is_file():
        path = (path / marker.read_text(encoding="utf-8").strip()).resolve()
    return path


def state_dir(repo: pygit2.Repository) -> Path:
    """``<common git folder>/gitstore``, created when missing."""
    folder = common_dir(repo) / "gitstore"
    folder.mkdir(exist_ok=True)
    return folder


def open_local(repo: pygit2.Repository, *, create: bool) -> pygit2.Repository | None:
    """The bare repository of the local namespace (None when it does not exist and ``create``
    is false)."""
    path = state_dir(repo) / LOCAL
    if (path / "HEAD").is_file():
        return pygit2.Repository(str(path))
    if not create:
        return None
    return pygit2.init_repository(str(path), bare=True)


def git_env() -> dict[str, str]:
    """The environment without the ``GIT_*`` variables git exports into hooks (which would
    point git at another repository), keeping configuration ones."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k.startswith("GIT_CONFIG")}


def run_git(git_dir: Path, *args: str, data: bytes | None = None) -> bytes:
    """Run ``git --git-dir=<git_dir> ARGS``; its standard output, or IntegrityError naming the
    command and git's last line of complaint."""
    done = subprocess.run(["git", f"--git-dir={git_dir}", *args], input=data, env=git_env(),
                          capture_output=True)
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["(nothing)"]
        raise IntegrityError(f"git {' '.join(args[:3])} in {git_dir} failed: {said[0]}")
    return done.stdout
