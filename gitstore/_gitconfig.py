"""Reading git's configuration as git itself reads it, and git's rule on repositories another
user owns.

libgit2 reads the system, XDG, global, repository and worktree files where git finds them by
default, and nothing else: it knows none of the variables that point git at other files for a
run or add settings to it (``GIT_CONFIG_GLOBAL``, ``GIT_CONFIG_SYSTEM``, ``GIT_CONFIG_NOSYSTEM``,
``GIT_CONFIG_COUNT`` with its ``GIT_CONFIG_KEY_<n>`` and ``GIT_CONFIG_VALUE_<n>``, and
``GIT_CONFIG_PARAMETERS``, which ``git -c`` hands the commands it runs). While none is set,
libgit2 answers as git would and no program runs: the common path costs what it did. Once one
is, git itself is asked, once per repository opened (``git config --list``), so the email,
signing key and default branch gitstore reads are the ones git would use.

libgit2 also refuses, as git does, to open a repository another user owns unless git's
``safe.directory`` lists it; but it reads that setting from the default files only (not from
the file ``GIT_CONFIG_GLOBAL`` names, say), and checks again each repository it opens, the
local namespace's own one inside ``.git`` too, which no ``safe.directory`` entry names.
``owner_unchecked`` opens one repository without that check, for a caller that knows git's
rule holds: ``git_accepts`` asks git itself.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from weakref import WeakKeyDictionary

from gitstore._spawn import spawn
from gitstore.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    import pygit2

OVERRIDES = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_COUNT",
             "GIT_CONFIG_PARAMETERS")
_TRUE = ("true", "yes", "on", "1")
# How git reaches an ssh remote (a person's own key or account for the team's): kept wherever
# gitstore runs git without the variables git exports into hooks.
SSH_VARIABLES = ("GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT")
# ... and how it reaches any remote: the ssh ones, the program that asks for a password (an
# editor's terminal sets GIT_ASKPASS to its own), whether it may ask on the terminal, the
# certificates and proxy of an https remote (a company's own certificate authority), the
# protocols a person allows: git(1)'s variables for the transport, none of them naming a repository.
TRANSPORT_VARIABLES = (
    *SSH_VARIABLES, "GIT_ASKPASS", "GIT_TERMINAL_PROMPT", "GIT_ALLOW_PROTOCOL", "GIT_PROTOCOL_FROM_USER",
    "GIT_PROXY_COMMAND", "GIT_SSL_NO_VERIFY", "GIT_SSL_CERT", "GIT_SSL_KEY", "GIT_SSL_CERT_PASSWORD_PROTECTED",
    "GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_SSL_VERSION", "GIT_SSL_CIPHER_LIST", "GIT_HTTP_PROXY_AUTHMETHOD",
    "GIT_PROXY_SSL_CERT", "GIT_PROXY_SSL_KEY", "GIT_PROXY_SSL_CERT_PASSWORD_PROTECTED", "GIT_PROXY_SSL_CAINFO",
    "GIT_HTTP_LOW_SPEED_LIMIT", "GIT_HTTP_LOW_SPEED_TIME", "GIT_HTTP_MAX_REQUESTS", "GIT_HTTP_USER_AGENT",
)
_asked: WeakKeyDictionary[pygit2.Repository, dict[str, str | None]] = WeakKeyDictionary()


def overridden() -> bool:
    """Whether a variable libgit2 does not know changes what git's configuration holds."""
    return any(name in os.environ for name in OVERRIDES)


def value(repo: pygit2.Repository | None, name: str) -> str | None:
    """The value git gives ``name`` (such as ``user.email``) in ``repo`` (None: outside any
    repository), or None when it has none."""
    if not overridden():
        return _from_library(repo, name)
    settings = _settings(repo)
    if settings is None:  # no git to ask: read it as without the variables
        return _from_library(repo, name)
    found = settings.get(_key(name))
    if found is not None:
        try:
            found.encode("utf-8")
        except UnicodeEncodeError:  # a byte git listed that is no UTF-8 (kept as a surrogate)
            raise _not_utf8(name) from None
    return found


def flag(repo: pygit2.Repository, name: str) -> bool:
    """Whether git takes the boolean ``name`` (such as ``commit.gpgsign``) as true in ``repo``;
    false when it is not set or is no boolean."""
    if not overridden():
        import pygit2

        try:
            return bool(repo.config.get_bool(name))
        except (KeyError, ValueError, pygit2.GitError):
            return False
    settings = _settings(repo)
    if settings is None:
        return False
    key = _key(name)
    if key not in settings:
        return False
    found = settings[key]
    return found is None or found.strip().lower() in _TRUE  # a name without ``=`` is true to git


def _from_library(repo: pygit2.Repository | None, name: str) -> str | None:
    import pygit2

    config = repo.config if repo is not None else pygit2.Config.get_global_config()
    try:
        found = config[name]
    except (KeyError, pygit2.GitError):
        return None
    except UnicodeDecodeError:
        raise _not_utf8(name) from None
    return str(found) if found is not None else None


def _not_utf8(name: str) -> UsageError:
    return UsageError(f"git's setting {name} is not UTF-8 text: set it again as UTF-8 "
                      f"(git config {name} VALUE) or remove it (git config --unset {name})")


def _settings(repo: pygit2.Repository | None) -> dict[str, str | None] | None:
    """Every setting git reads in ``repo``, the last value of each (as ``git config --get`` takes
    it), asked once per repository object; None when git could not list them."""
    if repo is not None and repo in _asked:
        return _asked[repo]
    git_dir = repo.path if repo is not None else os.devnull  # no repository: no local file
    try:
        code, out = spawn(["git", f"--git-dir={git_dir}", "config", "--list", "-z"], _env())()
    except OSError:  # no git to ask
        return None
    if code != 0:
        raise UsageError(f"git cannot read its configuration ({_why(git_dir)}), so neither git nor gitstore "
                         "runs here: mend the file it names (or the GIT_CONFIG_* variable pointing at it)")
    found: dict[str, str | None] = {}
    for entry in out.split(b"\0"):
        if entry:
            key, newline, text = entry.decode("utf-8", "surrogateescape").partition("\n")
            found[key] = text if newline else None  # no value: a bare name, true to git
    if repo is not None:
        _asked[repo] = found
    return found


def _why(git_dir: str) -> str:
    """Git's own words on why it cannot list its configuration (asked again, its errors kept:
    a rare path, so the common one spawns with them thrown away)."""
    import subprocess

    done = subprocess.run(["git", f"--git-dir={git_dir}", "config", "--list", "-z"], env=_env(),
                          capture_output=True, stdin=subprocess.DEVNULL)
    lines = [line for line in done.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[0].strip() if lines else f"git exited {done.returncode}"


def _key(name: str) -> str:
    """``name`` as git lists it: section and variable in lower case, a subsection as written."""
    section, _, rest = name.partition(".")
    middle, _, last = rest.rpartition(".")
    return ".".join(part for part in (section.lower(), middle, last.lower()) if part)


def remotes(repo: pygit2.Repository) -> dict[str, pygit2.Remote]:
    """The remotes configured for ``repo`` that git can use, by name. A section written by hand
    under a name git refuses (``[remote "a b"]``: ``git remote add`` would not make it, and
    ``git fetch 'a b'`` takes it for a path) is listed by ``git remote`` but loads as no
    remote: iterating all of them would fail on it, and it fetches no memory, so it is left out."""
    import pygit2

    found = {}
    for name in repo.remotes.names():
        if not name:
            continue
        try:
            found[name] = repo.remotes[name]
        except (KeyError, pygit2.GitError):  # pygit2.InvalidSpecError: a name git refuses
            continue
    return found


# -- another user's repository --------------------------------------------------------------------

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
    (``GIT_CONFIG_*``) stay. ``GIT_CONFIG`` goes: ``git config`` alone reads it, as the one
    file to list."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k.startswith("GIT_CONFIG_")}


__all__ = ["NOT_OWNED", "OVERRIDES", "SSH_VARIABLES", "TRANSPORT_VARIABLES", "flag", "git_accepts", "overridden", "owner_unchecked", "value"]
