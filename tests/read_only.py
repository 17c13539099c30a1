"""Running a command in a checkout that cannot be written, as a sandbox mounts one read-only.

File modes do not stop root, so as root the command runs in a mount namespace of its own where
the folder is bound read-only over itself (every write there fails with ``EROFS``, as in a
sandbox); as anyone else every write permission under the folder is taken away while the test
runs (writes fail with ``EACCES``). Where neither is possible the test is skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

# bound over itself, then the working folder entered again: the one the command started in is the writable one
MOUNT = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && cd "$PWD" && exec "$@"'


@contextmanager
def read_only(folder: Path) -> Iterator[list[str]]:
    """The words to put before a command so that it runs with ``folder`` read-only."""
    if os.geteuid() == 0:
        if shutil.which("unshare") is None or subprocess.run(
                ["unshare", "-m", "sh", "-c", MOUNT, str(folder), "true"], capture_output=True).returncode != 0:
            pytest.skip("running as root, and no mount namespace can make a folder read-only here")
        yield ["unshare", "-m", "sh", "-c", MOUNT, str(folder)]
        return
    modes = {path: path.stat().st_mode for path in [folder, *folder.rglob("*")] if not path.is_symlink()}
    for path, mode in modes.items():
        path.chmod(mode & ~0o222)
    try:
        yield []
    finally:
        for path, mode in modes.items():
            path.chmod(mode)
