"""git's rule on repositories another user owns, as git itself applies it.

libgit2 refuses, as git does, to open a repository another user owns unless git's
``safe.directory`` lists it; but it reads that setting from the default files only (not from
the file ``GIT_CONFIG_GLOBAL`` names, say), and checks again each repository it opens, the
local namespace's own one inside ``.git`` too, which no ``safe.directory`` entry names.
``owner_unchecked`` opens one repository without that check, for a caller that knows git's
rule holds: ``git_accepts`` asks git itself.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

from gitstore._spawn import spawn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


NOT_OWNED = "is not owned by current user"  # libgit2's words


@contextmanager
def owner_unchecked() -> Iterator[None]:
    """Within the block, repositories open without libgit2's check of who owns them; the
    setting is put back after. For one open whose owner is known to be fine."""
    import pygit2
    from pygit2.enums import Option

    kept = pygit2.option(Option.GET_OWNER_VALIDATION)
    pygit2.option(Option.SET_OWNER_VALIDATION, 0)
    try:
        yield
    finally:
        pygit2.option(Option.SET_OWNER_VALIDATION, kept)


def git_accepts(folder: str, git_dir: str) -> bool:
    """Whether git itself works in the repository whose git folder is ``git_dir``, found from
    ``folder`` (its work tree, or that folder when it has none) as a person's git command finds
    it: another user's repository only once ``safe.directory`` lists it, in any file or variable
    git reads it from."""
    try:
        code, out = spawn(["git", "-C", folder, "rev-parse", "--absolute-git-dir"], _env())()
    except OSError:  # no git: nothing says the repository is safe
        return False
    found = out.decode("utf-8", "surrogateescape").strip()
    try:
        return code == 0 and os.path.samefile(found, git_dir)
    except OSError:
        return False


def _env() -> dict[str, str]:
    """The environment for asking git: none of the ``GIT_*`` variables that point it at another
    repository (git exports them into its hooks); those that say which configuration it reads
    (``GIT_CONFIG_*``) stay."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k.startswith("GIT_CONFIG_")}


__all__ = ["NOT_OWNED", "git_accepts", "owner_unchecked"]
