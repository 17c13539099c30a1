"""A commit's files, read straight from git's object database (never from the work tree).

Promotion reads and verifies against the commit it promotes onto, whatever state the work tree
or the index is in; the gates read the commits they judge the same way.
"""

from __future__ import annotations

import posixpath
import subprocess
from collections import deque
from dataclasses import dataclass, field
from typing import cast

import pygit2

from gitstore.promote._git import git_env


@dataclass
class Snapshot:
    """The tree of one commit."""

    repo: pygit2.Repository
    commit: pygit2.Commit
    _blobs: dict[str, bytes | None] = field(default_factory=dict, repr=False)
    _names: set[str] | None = field(default=None, repr=False)

    @property
    def id(self) -> str:
        return str(self.commit.id)

    def _entry(self, path: str) -> pygit2.Object | None:
        try:
            return self.commit.tree[path]
        except (KeyError, ValueError):
            return None

    def read(self, path: str) -> bytes | None:
        """The bytes of the file at ``path``, or None when there is no such file."""
        if path not in self._blobs:
            entry = self._entry(path)
            self._blobs[path] = entry.data if isinstance(entry, pygit2.Blob) else None
        return self._blobs[path]

    def text(self, path: str) -> str | None:
        """The file at ``path`` as UTF-8 text, or None when it is missing or not text."""
        data = self.read(path)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def exists(self, path: str) -> bool:
        """Whether a file or a folder is at ``path`` (a trailing ``/`` asks for a folder)."""
        folder = path.endswith("/")
        entry = self._entry(path.rstrip("/")) if path.strip("/") else self.commit.tree
        if entry is None:
            return False
        return isinstance(entry, pygit2.Tree) if folder else True

    def mode(self, path: str) -> int | None:
        """The file mode of ``path`` (regular or executable), or None when missing."""
        try:
            return int(self.commit.tree[path].filemode)
        except (KeyError, ValueError):
            return None

    def names(self, folder: str) -> list[str]:
        """The names in a folder of the tree (empty when there is no such folder)."""
        entry = self._entry(folder.rstrip("/")) if folder.strip("/") else self.commit.tree
        return sorted(e.name for e in entry) if isinstance(entry, pygit2.Tree) else []

    def has_file_named(self, name: str) -> bool:
        """Whether any file of the commit has this name (in any folder)."""
        if self._names is None:
            done = subprocess.run(["git", "ls-tree", "-r", "-z", "--name-only", self.id], cwd=self.repo.path,
                                  env=git_env(), capture_output=True, check=True)
            self._names = {p.rsplit(b"/", 1)[-1].decode("utf-8", "replace") for p in done.stdout.split(b"\0") if p}
        return name in self._names

    def holding(self, text: str, folders: tuple[str, ...]) -> list[str]:
        """The files under ``folders`` (spelled in any case, as a checkout that ignores case
        reads them) whose bytes hold ``text``, in path order, asked of real ``git grep``."""
        command = ["git", "grep", "-l", "-z", "-I", "-F", "-e", text, self.id, "--",
                   *(f":(icase){folder}" for folder in folders)]
        done = subprocess.run(command, cwd=self.repo.path, env=git_env(), capture_output=True)
        if done.returncode not in (0, 1):  # 1: no file holds it
            from gitstore.errors import GitstoreError

            raise GitstoreError(f"git grep failed on {self.id[:12]}: {done.stderr.decode(errors='replace').strip()}")
        prefix = f"{self.id}:"
        return [p.decode("utf-8", "surrogateescape").removeprefix(prefix) for p in done.stdout.split(b"\0") if p]

    def has_word(self, word: str, paths: list[str] | None = None) -> bool:
        """Whether ``word`` occurs as a whole word in the commit's files (or in ``paths``),
        asked of real ``git grep``."""
        command = ["git", "grep", "-q", "-I", "-w", "-F", "-e", word, self.id, "--", *(paths or [])]
        done = subprocess.run(command, cwd=self.repo.path, env=git_env(), capture_output=True)
        return done.returncode == 0


def head_snapshot(repo: pygit2.Repository) -> Snapshot:
    """The commit HEAD points at; refuses an empty repository."""
    from gitstore.errors import Refused

    if repo.head_is_unborn:
        raise Refused("the repository has no commit yet: promotion lands on top of one")
    return Snapshot(repo, repo.head.peel(pygit2.Commit))


class InTree:
    """Where a page's links lead in a snapshot's tree, with ``pages`` (path -> text, such as a
    page promote is about to write) over it: the ``files`` argument of ``okf.link_problems``,
    so promote checks links as the wiki gate will once its commit is checked out. Paths are
    relative to the repository; a symbolic link is followed within the tree, and one that
    leaves it (or loops) leads nowhere."""

    _HOPS = 40  # links followed in one path at most, as the system follows them

    def __init__(self, snapshot: Snapshot, pages: dict[str, str]) -> None:
        self.snapshot = snapshot
        self.pages = pages

    def _object(self, path: str) -> pygit2.Object | None:
        try:
            return self.snapshot.commit.tree[path]
        except (KeyError, ValueError, pygit2.GitError):
            return None

    def _resolved(self, file: str) -> str | None:
        """``file`` with its symbolic links followed, or None when it leads out of the tree."""
        parts, hops = deque(posixpath.normpath(file).split("/")), 0
        done: list[str] = []
        while parts:
            part = parts.popleft()
            if part in ("", "."):
                continue
            if part == "..":
                if not done:
                    return None
                done.pop()
                continue
            done.append(part)
            entry = self._object("/".join(done)) if "/".join(done) not in self.pages else None
            if entry is not None and entry.filemode == pygit2.GIT_FILEMODE_LINK:
                hops += 1
                target = cast(pygit2.Blob, entry).data.decode("utf-8", "surrogateescape")
                if hops > self._HOPS or target.startswith("/"):
                    return None
                done.pop()
                parts.extendleft(reversed(target.split("/")))
        return "/".join(done)

    def kind(self, file: str) -> str | None:
        path = self._resolved(file)
        if path is None:
            return None
        if path == "" or any(page.startswith(path + "/") for page in self.pages):
            return "folder"
        if path in self.pages:
            return "file"
        entry = self._object(path)
        return None if entry is None else "folder" if isinstance(entry, pygit2.Tree) else "file"

    def anchors(self, file: str) -> set[str]:
        from gitstore.promote.okf import Page, split_front_matter

        path = self._resolved(file) or ""
        text = self.pages[path] if path in self.pages else self.snapshot.text(path) or ""
        meta, body, problems = split_front_matter(text)
        return Page(path, text, meta, body, problems).anchors

    def inside(self, file: str, folder: str, there: bool) -> bool:
        path = posixpath.normpath(posixpath.join(folder, file))
        return not (path == ".." or path.startswith("../") or path.startswith("/")) and \
            (not there or self._resolved(file) is not None)
