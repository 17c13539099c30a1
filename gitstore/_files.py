"""Writing a local file whole or not at all, and holding a lock file for a while.

The files gitstore keeps beside the store (configuration, reports, ledgers, the marks of what
was checked) are written under a temporary name in the same folder and renamed over their
place, so a reader sees the old file or the new one. A write that fails part way (the disk
full, a file size limit, Ctrl-C) removes its temporary file: nothing half-written stays behind.
Standard library only: the agent hook writes through it too.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def first_link(root: Path, path: str) -> Path | None:
    """The first of ``path``'s folders or the file itself (``path`` relative to ``root``, the
    work tree or a folder in it) that is a symbolic link, if any: a commit can put a link where
    gitstore writes, and a write through it lands wherever the link points."""
    from pathlib import Path  # at run time only here: the agent hook imports this module without it

    found = link_on_the_way(str(root), *path.split("/"))
    return None if found is None else Path(found)


def link_on_the_way(root: str, *names: str) -> str | None:
    """``first_link`` on plain strings (``names`` joined, relative to ``root``), for the agent
    hook, which starts without pathlib, and delivery."""
    at = root
    for part in os.path.join(*names).split(os.sep):
        at = os.path.join(at, part)
        if os.path.islink(at):
            return at
    return None


def tracked_within(root: str, folder: str, listed: list[str]) -> list[str]:
    """Of the paths git lists for the pathspec ``:(icase)FOLDER`` (``folder`` relative to
    ``root``, with ``/``), those inside ``folder`` on this file system, each named under
    ``folder`` as spelled here. On one that ignores case (macOS's and Windows' by default) a
    tracked ``okf/.MEMORY/config.json`` is checked out as ``okf/.memory/config.json``, which a
    pathspec of ``okf/.memory`` does not list; on one that does not, it is another folder."""
    depth = folder.count("/") + 1
    same: dict[str, bool] = {}
    found = []
    for path in listed:
        parts = path.split("/")
        head = "/".join(parts[:depth])
        if head != folder:
            if head not in same:
                try:
                    same[head] = os.path.samefile(os.path.join(root, head), os.path.join(root, folder))
                except OSError:
                    same[head] = False
            if not same[head]:
                continue
        found.append("/".join([folder, *parts[depth:]]))
    return found


def links_under(root: Path, folder: Path) -> list[str]:
    """The symbolic links anywhere under ``folder`` (never followed), as paths from ``root``,
    sorted: a commit can leave one in gitstore's state folder, and git keeps it in the work
    tree once the commit that stops tracking it is checked out, so a write there lands
    wherever it points."""
    found: list[str] = []
    for at, folders, files in os.walk(folder):  # a link to a folder is listed, never walked into
        found.extend(os.path.relpath(os.path.join(at, name), root) for name in folders + files
                     if os.path.islink(os.path.join(at, name)))
    return sorted(path.replace(os.sep, "/") for path in found)


def leads_out(root: Path, path: Path) -> Path | None:
    """The first folder on ``path``'s way (a path inside ``root``), or the file itself, that is
    a symbolic link leading outside ``root``, if any: a commit can put a link where gitstore
    writes, and a write through it lands in a file of the user's elsewhere."""
    inside = os.path.realpath(root)
    at = root
    for part in path.relative_to(root).parts:
        at = at / part
        if at.is_symlink() and os.path.commonpath([inside, os.path.realpath(at)]) != inside:
            return at
    return None


IGNORE_WITHIN = "# gitstore: this clone's local state, never committed (even where a .gitignore un-ignores the folder)\n*\n"


def ignore_within(root: str) -> bool:
    """Write ``okf/.memory/.gitignore`` holding ``*`` where none is; True if it was written. A
    ``.gitignore`` deeper in the tree takes precedence over a ``!/okf/.memory/`` line above it,
    so git ignores every file of the folder (this one too) whatever a team's ``.gitignore``
    says, and ``git add -A`` stages none of what is kept there (the delivery ledger,
    config.json, the caches). Never through a link: the folder must be the work tree's own (no
    link on the way), and the file is created, never opened, so one a person or a commit put
    there is never replaced. Raises OSError where it cannot be written (not where the folder is
    missing: nothing in it to stage)."""
    state = os.path.join(root, "okf", ".memory")
    if os.path.realpath(state) != os.path.join(os.path.realpath(root), "okf", ".memory"):
        return False
    try:
        fd = os.open(os.path.join(state, ".gitignore"), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except (FileExistsError, FileNotFoundError):  # one there already; no folder, nothing in it to stage
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(IGNORE_WITHIN)
    return True


def temporary_name(path: str | Path) -> str:
    """The name ``replace_file`` writes ``path`` under before the rename (hidden, per process)."""
    folder, name = os.path.split(os.fspath(path))
    return os.path.join(folder, f".{name}.{os.getpid()}.tmp")


def replace_file(path: str | Path, data: bytes | str, mode: int = 0o666) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` in one rename; a new file gets ``mode`` less
    the umask. Refused part way, the write leaves ``path`` as it was and no temporary file."""
    with staged(path, data, mode):
        pass


@contextmanager
def staged(path: str | Path, data: bytes | str, mode: int = 0o666) -> Iterator[None]:
    """``replace_file`` around a step that must come between writing the bytes and showing
    them: the bytes are written under the temporary name first (a full disk refuses them before
    the step runs), then the step runs, then the rename. A step that fails leaves ``path`` as
    it was and no temporary file."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    temporary = temporary_name(path)
    try:
        try:
            # never through a link a commit put at the temporary name: it would write where it points
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
                         | getattr(os, "O_NOFOLLOW", 0), mode)
            with open(fd, "wb") as out:
                out.write(raw)
        except OSError as exc:  # the disk full, the folder read-only: named by the file it was for
            raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None
        yield
        try:
            os.replace(temporary, path)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None
    except BaseException:
        discard(temporary)
        raise


def new_file(folder: str, prefix: str, suffix: str, read: bool = False) -> tuple[int, str]:
    """A file made for this process alone in ``folder``, named ``prefix``, 16 random hex digits
    and ``suffix``, open for writing (``read``: and reading) and readable by its owner only, and
    its path: ``tempfile.mkstemp`` without the module, which would cost the agent hook a few
    milliseconds of imports (shutil, random) for this one call."""
    flags = (os.O_RDWR if read else os.O_WRONLY) | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        path = os.path.join(folder, f"{prefix}{os.urandom(8).hex()}{suffix}")
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused file name left", folder)


def discard(path: str | Path) -> None:
    """Remove a temporary file if it is there; a failure to remove it is not the error to tell."""
    try:
        os.unlink(path)
    except OSError:
        pass


@contextmanager
def held(path: str | Path, mode: int = fcntl.LOCK_EX) -> Iterator[bool]:
    """``flock`` on the file ``path`` (made if missing) for a while, dropped by the kernel if the
    process dies; yields whether it was taken (a non-blocking ``mode`` may find it held). Never
    through a link a commit put in its place: it would make the file wherever it points."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        try:
            fcntl.flock(fd, mode)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


__all__ = ["discard", "held", "new_file", "replace_file", "temporary_name"]
