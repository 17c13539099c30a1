"""The environment gitstore runs git in (no pygit2 here, so the file gates start fast)."""

from __future__ import annotations

import os

_IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")


def git_env() -> dict[str, str]:
    """The environment for running git ourselves: git's hook variables removed (they point at
    the repository and index of the hook that is running), configuration, identity and how git
    reaches a remote (``TRANSPORT_VARIABLES``) kept."""
    from gitstore._gitconfig import TRANSPORT_VARIABLES

    return {k: v for k, v in os.environ.items()
            if not k.startswith("GIT_") or k.startswith("GIT_CONFIG") or k in _IDENTITY or k in TRANSPORT_VARIABLES}
