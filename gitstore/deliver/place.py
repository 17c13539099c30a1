"""Where delivery runs, and whether it may: the repository, its git folders, its trust.

Found with plain file reads (no git bindings), because the agent hook asks on every prompt.

A folder is **trusted** for delivery when all of these hold, else delivery is inert there (no
output, no index, no ledger, nothing written):

- it is inside a git work tree;
- ``gitstore init`` ran there: ``okf/.memory/config.json`` exists and reads as gitstore's
  configuration (a JSON object naming this clone's writer);
- its ``delivery`` section leaves delivery on and within the ceilings (``limits.read_limits``).

What only git can say is asked where no current index holds the verdict, before anything is
written or started (``check_trusted``): that git ignores ``okf/.memory/`` and tracks nothing
under it, so the state came from ``gitstore init`` and not from the repository's own
files (a repository can commit them). An index is built only where that holds, and is keyed
with a secret kept in the git folder, where a repository cannot put one, so the hook's fast
path (a current index) asks git nothing. Harnesses add their own signal for project
hooks (Codex and Gemini CLI run a project's hooks only once the folder is trusted); a hook
installed for the user runs in every folder, so this rule is what keeps an unknown checkout
inert.
"""

from __future__ import annotations

import os
from stat import S_ISREG

from gitstore.deliver.jsonlite import loads
from gitstore.deliver.limits import Inert, Limits, Untrusted, read_limits

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

STATE = os.path.join("okf", ".memory")
CONFIG = "config.json"


class Place:
    """A trusted gitstore repository: work tree root, state folder, git folders, settings."""

    __slots__ = ("root", "state", "gitdir", "common", "config", "limits")

    def __init__(self, root: str, gitdir: str, common: str, config: dict[str, Any], limits: Limits) -> None:
        self.root = root
        self.state = os.path.join(root, STATE)
        self.gitdir = gitdir
        self.common = common
        self.config = config
        self.limits = limits

    @property
    def provider(self) -> str:
        value = self.config.get("provider", "git")
        return value if isinstance(value, str) else "git"


def work_tree(start: str) -> tuple[str, str] | None:
    """The work tree root above ``start`` and its ``.git`` (folder or file), or None."""
    path = os.path.abspath(start)
    while True:
        dotgit = os.path.join(path, ".git")
        if os.path.exists(dotgit):
            return path, dotgit
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def git_folders(root: str, dotgit: str) -> tuple[str, str]:
    """The git folder of this work tree and the common one that holds refs (they differ in a
    linked worktree, whose ``.git`` is a file naming its folder)."""
    gitdir = dotgit
    if os.path.isfile(dotgit):
        line = _pointer(dotgit)
        if not line.startswith("gitdir:"):
            raise Inert(f"{dotgit} does not name a git folder")
        gitdir = os.path.normpath(os.path.join(root, line[len("gitdir:"):].strip()))
    common = gitdir
    pointer = os.path.join(gitdir, "commondir")
    if os.path.isfile(pointer):
        common = os.path.normpath(os.path.join(gitdir, _pointer(pointer)))
    return gitdir, common


def _pointer(path: str) -> str:
    """What a file of git's naming a folder holds (a worktree's ``.git``, ``commondir``), as a
    path: read as bytes and decoded as the file system decodes names, since a folder's name
    need not be UTF-8."""
    with open(path, "rb") as handle:
        return os.fsdecode(handle.read().strip())


CONFIG_BYTES = 1 << 20  # of config.json the hook reads: gitstore's settings take a few hundred


def read_config(path: str) -> dict[str, Any]:
    """gitstore's configuration file, or Inert naming why it cannot be used. Read only from a
    regular file, at most ``CONFIG_BYTES`` of it, and never waited on: it is read before anything
    says whether the folder is the clone's own, and a repository can commit a link in its place
    (to ``/dev/zero``, which the hook read until memory ran out, a FIFO or ``/dev/tty``, which
    held it to its time limit)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise Inert("gitstore is not set up in this repository (no okf/.memory/config.json)") from None
    except OSError as exc:
        raise Inert(f"config.json cannot be read ({exc.strerror}); delivery is off until it is fixed") from None
    try:
        if not S_ISREG(os.fstat(fd).st_mode):
            raise Inert("config.json cannot be read (not a file); delivery is off until it is fixed")
        chunks, size = [], 0
        while size <= CONFIG_BYTES:
            chunk = os.read(fd, CONFIG_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > CONFIG_BYTES:
            raise Inert(f"config.json cannot be read (over {CONFIG_BYTES} bytes); delivery is off until it is fixed")
        data = loads(b"".join(chunks))
    except OSError as exc:
        raise Inert(f"config.json cannot be read ({exc.strerror}); delivery is off until it is fixed") from None
    except ValueError as exc:
        raise Inert(f"config.json cannot be read ({exc}); delivery is off until it is fixed") from None
    finally:
        os.close(fd)
    if not isinstance(data, dict) or not isinstance(data.get("writer"), str):
        raise Inert("config.json is not gitstore's configuration; delivery is off until it is fixed")
    return data


def locate(start: str) -> Place:
    """The trusted gitstore repository containing ``start``; raises Inert when there is none."""
    found = work_tree(start)
    if found is None:
        raise Inert("not inside a git work tree")
    root, dotgit = found
    config = read_config(os.path.join(root, STATE, CONFIG))
    try:
        gitdir, common = git_folders(root, dotgit)
    except (OSError, ValueError) as exc:  # ValueError: UnicodeError among others
        raise Inert(f"the git folder of this work tree cannot be read ({type(exc).__name__}); delivery is off") from None
    return Place(root, gitdir, common, config, read_limits(config))


def check_trusted(place: Place) -> None:
    """Raise Untrusted unless this checkout's gitstore state is its own (``not_own``). Where it
    is, ``okf/.memory/.gitignore`` (``*``) is written where none is (``_files.ignore_within``), as
    ``gitstore init`` now does: in a clone set up before it did, with the context hook and no
    capture hook, a ``!/okf/.memory/`` line a later pull brings would otherwise have
    ``git add -A`` commit the ledger and the index written here."""
    from gitstore._files import ignore_within

    reason = not_own(place.root)
    if reason is not None:
        raise Untrusted(reason)
    try:
        ignore_within(place.root)
    except OSError:  # a checkout mounted read-only: nothing written here, so nothing to stage
        pass


def not_own(root: str) -> str | None:
    """Why the state folder of the work tree at ``root`` is not the clone's own, or None when
    it is: git ignores ``okf/.memory/`` and tracks nothing under it. A repository can commit
    files there (``git add -f``), and git checks them out over the clone's own ignored ones
    without a word: a configuration naming a writer, or links at the index's folder or the
    ledger that send what delivery writes wherever the repository chooses. One ``git
    check-ignore`` (which leaves tracked files out of its answer) and one ``git ls-files``, in
    any case (``_files.tracked_within``: a file system that ignores case checks ``okf/.MEMORY/``
    out into the state folder)."""
    import subprocess

    from gitstore._files import tracked_within

    probe = os.path.join(STATE, "probe")  # the folder, as git sees it
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k.startswith("GIT_CONFIG")}
    try:
        done = subprocess.run(["git", "-C", root, "check-ignore", probe], env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        ignored = probe in os.fsdecode(done.stdout).splitlines()
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", f":(icase){STATE}"], env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        tracked = tracked_within(root, STATE.replace(os.sep, "/"),
                                 [os.fsdecode(name) for name in listed.stdout.split(b"\0") if name])
    except OSError:
        return "git cannot be run to say whether okf/.memory/ is this clone's own; delivery is inert"
    if not ignored or listed.returncode != 0:
        return "git does not ignore okf/.memory/: this checkout's gitstore state is not local; delivery is inert"
    if tracked:
        return (f"git tracks {len(tracked)} file(s) under okf/.memory/ (they came with the repository); "
                "delivery is inert")
    return None


def refuse_links(root: str, *names: str) -> None:
    """Raise Untrusted when a symbolic link is on the way to ``names`` under ``root`` (one of the
    folders of ``names`` joined, or the file itself): a commit can put one where delivery
    writes, and a write through it lands wherever it points, so delivery never writes
    through one."""
    from gitstore._files import link_on_the_way

    link = link_on_the_way(root, *names)
    if link is not None:
        raise Untrusted(f"{os.path.relpath(link, root)} is a symbolic link; delivery never writes through one, "
                        "so it is inert here until it is deleted (`rm`)")
