"""People and bots as stable ids. The CLI cannot authenticate anyone: it records identities
as asserted (``--by``, defaulting to ``git:<user.email>`` from git config)."""

from __future__ import annotations

import os
import re
import unicodedata

from gitstore._gitconfig import value as git_setting
from gitstore.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pygit2

# no lone surrogate: a byte that is not UTF-8 on the command line arrives as one, and an id is
# written as UTF-8 (records, policy files), which cannot carry it
PERSON = re.compile(r"^[a-z][a-z0-9-]{0,31}:[^\s\ud800-\udfff]{1,160}\Z")
AUTO_SAFE = "bot:gitstore-auto-safe"


def person(by: str | None, repo: pygit2.Repository | None = None, given_as: str = "--by") -> str:
    """A person id from ``--by`` (or what ``given_as`` names, in errors) or from git config;
    refuses bots and malformed ids, quoting the value as it was typed."""
    typed = _from_git_config(repo) if by is None else by
    found = typed if ":" in typed else f"git:{typed}"
    if not PERSON.match(found) or any(unicodedata.category(c) in ("Cc", "Cf") for c in found):
        # the schema takes any character but a blank, so records another clone wrote may hold
        # control and format characters (shown screened); an id typed here never does
        raise UsageError(f"{given_as} {typed!r} is not a person id like github:583231 or git:alice@example.com")
    if found.startswith("bot:"):
        raise UsageError(f"{given_as} {typed!r} names a bot; decisions need a person")
    return found


def _from_git_config(repo: pygit2.Repository | None) -> str:
    """The author email git itself would use: GIT_AUTHOR_EMAIL, user.email (from every file
    and variable git reads it from), then EMAIL."""
    candidates = [os.environ.get("GIT_AUTHOR_EMAIL"), git_setting(repo, "user.email"), os.environ.get("EMAIL")]
    for value in candidates:
        if value and value.strip():
            return "git:" + "".join(value.split())
    raise UsageError("no --by given and git config has no user.email: say who decides with --by")


def is_person(value: str) -> bool:
    """True for a person id (not a bot)."""
    return bool(PERSON.match(value)) and not value.startswith("bot:")


__all__ = ["AUTO_SAFE", "is_person", "person"]
