"""A commit's files, read straight from git's object database (never from the work tree).

Promotion reads and verifies against the commit it promotes onto, whatever state the work tree
or the index is in; the gates read the commits they judge the same way.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field

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
