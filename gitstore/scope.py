"""Repository identity: the scope every record belongs to, and the worktree key.

The scope is ``host/owner/name`` from the origin remote with credentials, scheme, port and a
trailing ``.git`` stripped, lowercased host, so the same owner/name on two hosts never shares
records. Scopes are compared by ``same_scope``, never ``==``: on hosts naming repositories
without regard to case, two spellings of one repository are one scope. A repository without
an origin gets ``local/<16 hex>`` from the path of its common git folder when gitstore is set
up there; the repository's own git configuration keeps the scope memory was set up under
(``keep_scope``), so a local scope stays when the folder moves, and a change of origin since
can be named (``scope_and_kept``). An origin that is a path on this machine where no
repository is any longer (moved or deleted) gives no scope: the kept one stands in, since it
is the scope the memory is pinned to, and the move is named (``scope_kept_gone``).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shlex
from pathlib import Path

import pygit2

from gitstore._gitconfig import NOT_OWNED, git_accepts, owner_unchecked
from gitstore.errors import (BareRepository, GitstoreError, InvalidInput, NotARepository, NotOwnedRepository,
                             RemoteGone, UnsupportedRepository)

KEPT = "gitstore.scope"  # the scope memory was set up under (``keep_scope``)
_LOCAL_SCOPE = re.compile(r"local/[0-9a-f]{16}")
_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)\Z")
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?(\[[^\]]+\]|[^:/]+)(?::\d+)?/(.+)\Z", re.I)
_SEGMENT = re.compile(r"^[A-Za-z0-9._-]{1,100}\Z")
_UNRESERVED_ESCAPE = re.compile(r"%(3[0-9]|4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|2[DE]|5F|7E)", re.I)
_REFUSED = re.compile(r"path '(.+)' " + re.escape(NOT_OWNED))


class _SeveralRepositories(InvalidInput):
    """A remote whose URLs name different repositories (``_remote_scope``)."""


def scope_from_url(url: str) -> str:
    """``host/owner/name`` from a remote URL (https, ssh, scp-like, git), refusing others."""
    url = url.strip()
    match = _URL.match(url) or (None if "://" in url else _SCP.match(url))
    if not match:
        raise InvalidInput(f"remote URL {_redact(url)!r} names no host and repository")
    host = match.group(1).lower().strip("[]")
    host = host[:-1] if host.endswith(".") else host  # ``github.com.``: the same name, rooted
    path = match.group(2).strip("/")
    if re.match(r"https?://", url, re.I):  # an HTTP path's escaped letter is that letter (RFC 3986, 6.2.2.2)
        path = _UNRESERVED_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), path)
    if path.endswith(".git"):
        path = path[:-4]
    segments = [s for s in path.split("/") if s]
    if len(segments) < 2 or not all(_SEGMENT.match(s) and s not in (".", "..") for s in segments):
        raise InvalidInput(f"remote URL {_redact(url)!r} has no owner/name path")
    return "/".join([host, *segments])


# Hosts whose owner/name paths are case-insensitive (``Acme/Widgets`` and ``acme/widgets`` are one
# repository), each with the other names its operator serves the same repositories under:
# GitHub, GitLab.com and Bitbucket Cloud. A self-hosted server's host says nothing of how it
# names repositories (GitHub Enterprise Server, a GitLab instance and a plain git server over ssh
# look alike, and on the last two folders differing in case are two repositories), so no other
# host is folded; GitHub Enterprise Cloud's own hosts (``TENANT.ghe.com``) are, and Azure DevOps'
# (``_azure_key``).
_CASELESS_HOSTS = {"github.com": "github.com", "www.github.com": "github.com", "ssh.github.com": "github.com",
                   "gitlab.com": "gitlab.com", "www.gitlab.com": "gitlab.com", "altssh.gitlab.com": "gitlab.com",
                   "bitbucket.org": "bitbucket.org", "www.bitbucket.org": "bitbucket.org",
                   "altssh.bitbucket.org": "bitbucket.org"}
_TENANT = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.ghe\.com")
_AZURE_SSH = ("ssh.dev.azure.com", "vs-ssh.visualstudio.com")
_AZURE_OLD = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.visualstudio\.com")
_ASCII_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@functools.lru_cache(maxsize=256)  # asked of every record read, of a few distinct scopes
def scope_key(scope: str) -> str:
    """What two spellings of one repository's scope have in common: on a host whose owner/name
    paths are case-insensitive (``_CASELESS_HOSTS``), its canonical name and the path in lower
    case (ASCII letters only: no other character folds into one a scope may hold); any other
    scope is its own key. Records keep the scope they were stored under, so scopes are compared
    by this key, never rewritten."""
    host, slash, path = scope.partition("/")
    azure = _azure_key(host, path.split("/"))
    if azure is not None:
        return azure
    canonical = _CASELESS_HOSTS.get(host) or (host if _TENANT.fullmatch(host) else None)
    if canonical is None or not slash:
        return scope
    return f"{canonical}/{path.translate(_ASCII_UPPER)}"


def _azure_key(host: str, parts: list[str]) -> str | None:
    """``dev.azure.com/org/project/repo`` in lower case for a repository of Azure DevOps, which
    names them without regard to case and serves each under four spellings: https
    ``dev.azure.com/ORG/PROJECT/_git/REPO`` (``ORG/_git/REPO`` where the project is named as the
    repository), ssh ``ssh.dev.azure.com:v3/ORG/PROJECT/REPO``, and the older
    ``ORG.visualstudio.com/[DefaultCollection/]PROJECT/_git/REPO`` and
    ``vs-ssh.visualstudio.com:v3/ORG/PROJECT/REPO``; None for any other scope."""
    lower = [part.translate(_ASCII_UPPER) for part in parts]
    if host in _AZURE_SSH and len(lower) == 4 and lower[0] == "v3":
        named = lower[1:]
    elif host == "dev.azure.com" and len(lower) in (3, 4) and lower[-2] == "_git":
        named = [lower[0], lower[1] if len(lower) == 4 else lower[2], lower[-1]]
    elif _AZURE_OLD.fullmatch(host) and host not in _AZURE_SSH:
        rest = lower[1:] if lower[:1] == ["defaultcollection"] else lower
        if len(rest) not in (2, 3) or rest[-2] != "_git":
            return None
        named = [host.split(".", 1)[0], rest[0] if len(rest) == 3 else rest[1], rest[-1]]
    else:
        return None
    return "/".join(["dev.azure.com", *named])


def same_scope(one: object, other: object) -> bool:
    """Whether two scopes are one repository's (``scope_key``): where scopes meet (a record and the
    store's, a fetched record and this clone's, a remote's and origin's), never by ``==``. A
    function of the two strings alone, so every clone reaches the same verdict."""
    return isinstance(one, str) and isinstance(other, str) and (one == other or scope_key(one) == scope_key(other))


FORMER_FILE = ".gitstore/scope.json"  # the scopes this repository had before, on its default branch
FORMER_SCHEMA = "gitstore.scope/v1"
_MAX_FORMER = 20  # scopes one declaration may name
_MAX_FORMER_BYTES = 16384


class Scope(str):
    """A repository's scope with the scopes its default branch declares it had before
    (``FORMER_FILE``: renamed, or moved to another owner or host): records of those are this
    repository's to read (``admits``), never to write; new records get the scope itself. The
    string is the scope: wherever it is stored, shown or compared by ``same_scope``, it is the
    current one alone. Given ``repo`` instead of ``formerly``, the declaration is read from its
    default branch when first asked for (a capture that meets no record of another scope never
    reads it)."""

    _formerly: tuple[str, ...] | None
    _repo: pygit2.Repository | None
    _keys: frozenset[str] | None

    def __new__(cls, scope: str, formerly: tuple[str, ...] | None = None,
                repo: pygit2.Repository | None = None) -> Scope:
        made = super().__new__(cls, scope)
        made._formerly = tuple(formerly) if formerly is not None else None if repo is not None else ()
        made._repo, made._keys = repo, None
        return made

    @property
    def formerly(self) -> tuple[str, ...]:
        if self._formerly is None:
            self._formerly = declared_former(self._repo, str(self))[0] if self._repo is not None else ()
            self._repo = None
        return self._formerly

    @property
    def former_keys(self) -> frozenset[str]:
        """The former scopes' ``scope_key``s: what a record's scope is looked up by."""
        if self._keys is None:
            self._keys = frozenset(scope_key(old) for old in self.formerly)
        return self._keys

    def __reduce__(self) -> tuple[type, tuple[str, tuple[str, ...]]]:
        return Scope, (str(self), self.formerly)

    def __copy__(self) -> Scope:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Scope:
        return self


def admits(scope: str | None, record_scope: object) -> bool:
    """Whether a record of ``record_scope`` is this repository's to read and admit: its scope
    (``same_scope``), or one its default branch declares it had before (``Scope.formerly``). Where
    a record is written, ``same_scope`` alone decides."""
    if scope is None:
        return True
    return same_scope(record_scope, scope) or (isinstance(scope, Scope) and isinstance(record_scope, str)
                                                and scope_key(record_scope) in scope.former_keys)


def formerly(scope: str | None) -> tuple[str, ...]:
    """The former scopes ``scope`` carries (``Scope``); none for a plain string."""
    return getattr(scope, "formerly", ())


def scope_label(scope: str) -> str:
    """What a verdict reached under ``scope`` is kept under: the scope, and the former scopes it
    admitted, so a verdict reached before a declaration changed is reached again."""
    old = formerly(scope)
    return str(scope) if not old else f"{scope} formerly {' '.join(sorted(old))}"


def declared_former(repo: pygit2.Repository, scope: str) -> tuple[tuple[str, ...], str | None]:
    """The scopes the default branch (as ``gitstore.providers._policy_git`` finds it, where the
    policy is read) declares this repository had before, in ``FORMER_FILE``, and why the file
    there cannot be used (None: it is usable, or not there). Every clone that fetched the same
    default branch reads the same. A local scope is never one: it names a folder on some machine,
    whose records never leave it, and a shared file must not pull them in; nor is the current
    scope, or a string that is no scope."""
    named, problem = _declared(repo)
    kept: list[str] = []
    for old in named:
        if not same_scope(old, scope) and old not in kept:
            kept.append(old)
    return tuple(kept), problem


def declares_itself(repo: pygit2.Repository, scope: str) -> bool:
    """Whether the default branch declares ``scope``, this clone's, a former scope of the
    repository (``declared_former`` leaves it out): origin names the repository by a name or
    place it had before (a clone of its old URL, which the forge still serves), so what the team
    stores since, under its current scope, is not read here, and what this clone stores goes
    under the old one."""
    return any(same_scope(old, scope) for old in _declared(repo)[0])


def _declared(repo: pygit2.Repository) -> tuple[list[str], str | None]:
    """Every scope ``FORMER_FILE`` on the default branch names, and why it cannot be used (none
    of them then)."""
    from gitstore.providers._policy_git import Oversized, _file, default_branch

    branch = default_branch(repo)
    if branch is None:
        return [], None
    try:
        data = _file(repo, repo.references[branch].peel(pygit2.Commit).tree, FORMER_FILE, _MAX_FORMER_BYTES)
    except Oversized:  # told by its header, never read: a commit can hold a file of any size there
        return [], f"{FORMER_FILE} on {branch} is over {_MAX_FORMER_BYTES} bytes: no former scope is read"
    except (KeyError, ValueError, pygit2.GitError) as exc:
        return [], f"{FORMER_FILE} on {branch} cannot be read: {exc}"
    if data is None:
        return [], None
    named, problem = named_former(data, f"{FORMER_FILE} on {branch}")
    return named or [], problem


def named_former(data: bytes, where: str) -> tuple[list[str] | None, str | None]:
    """The scopes a declaration's bytes (``FORMER_FILE``, read from ``where``) name, as they
    stand, or None and why none of them is read: the file is read whole or not at all."""
    from gitstore import _jsontext

    if len(data) > _MAX_FORMER_BYTES:
        return None, f"{where} is over {_MAX_FORMER_BYTES} bytes: no former scope is read"
    try:
        found = _jsontext.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None, f"{where} is not JSON: no former scope is read"
    named = found.get("formerly") if isinstance(found, dict) else None
    if not isinstance(found, dict) or found.get("schema") != FORMER_SCHEMA or not isinstance(named, list) \
            or set(found) - {"schema", "formerly"}:
        return None, (f"{where} is not {{\"schema\": \"{FORMER_SCHEMA}\", \"formerly\": [SCOPE, ...]}}: no former "
                      "scope is read")
    if len(named) > _MAX_FORMER:
        return None, f"{where} names {len(named)} scopes, over the {_MAX_FORMER} it may: no former scope is read"
    for old in named:
        if isinstance(old, str) and old.startswith("local/"):
            return None, (f"{where} names {old[:40]}, a local scope: its records never leave the machine that "
                          "stored them, and no shared file makes them this repository's: no former scope is read")
        if not isinstance(old, str) or not _is_scope(old):
            return None, f"{where} names {str(old)[:80]!r}, which is no host/owner/name scope: no former scope is read"
    return list(named), None


def _is_scope(text: str) -> bool:
    """Whether ``text`` is a scope as ``scope_from_url`` makes one (``host/owner/name``)."""
    segments = text.split("/")
    return (len(segments) >= 3 and all(_SEGMENT.match(s) and s not in (".", "..") for s in segments)
            and segments[0] == segments[0].lower())


def named_scope(text: str) -> str:
    """The hosted scope ``text`` names: a remote URL, read as ``scope_from_url`` reads origin's,
    or a scope (``host/owner/name``), made one the same way (its host in lower case, a
    trailing ``.git`` or ``/`` dropped), so either spelling gives the scope records hold. A
    local scope is refused, naming why (no shared file declares one), as is anything else."""
    given = text.strip()
    if given.startswith("local/"):
        raise InvalidInput(f"{given[:40]} is a local scope: its records never leave the machine that stored them, "
                           "and no shared file makes them another repository's")
    try:
        found = scope_from_url(given if "://" in given or _SCP.match(given) else f"https://{given}")
    except InvalidInput:
        found = None
    if found is None or not _is_scope(found):
        raise InvalidInput(f"{_redact(given)[:200]!r} is no scope (host/owner/name, as `gitstore status` shows one) "
                           "nor the URL of a hosted repository")
    return found


def former_todo(old: str) -> str:
    """The commands that declare ``old`` a scope this repository had before (``FORMER_FILE``,
    written by ``gitstore scope formerly``), to be merged into the default branch by the team's
    review."""
    return (f"if this repository was renamed or moved from {old}, declare it on the default branch: "
            f"`{declare_former(old)}`, merged into the default branch and pushed as the policy is, then "
            "`gitstore sync` in each clone")


def origin_todo(scope: str, found: str | None = None) -> str:
    """What mends a clone whose origin names the repository by ``scope``, a former scope the
    default branch declares (``declares_itself``); ``found``: the scope of memory found there,
    likely the repository's current one."""
    likely = f" (the memory found there is of {found})" if found else ""
    return (f"origin names {scope}, which the default branch declares a former scope of this repository: point "
            f"origin at the repository's current URL{likely} and take its scope: "
            "`git remote set-url origin NEW-URL && gitstore init`, then `gitstore sync`")


_OTHER_SCOPE = re.compile(r"is of scope '([^'\s]{1,300})', not this repository's")


def other_scope_in(why: str, scope: str | None) -> str | None:
    """The scope a refusal ``why`` names a record of, when it is a scope of a hosted repository
    other than ``scope``, this clone's (``_verify_git``'s "is of scope 'OLD', not this
    repository's"): memory of what may be this repository under another name or host, which its
    writer cannot mend. None otherwise."""
    found = _OTHER_SCOPE.search(why)
    if found is None or scope is None or not _is_scope(found.group(1)) or found.group(1).startswith("local/"):
        return None
    return found.group(1) if not same_scope(found.group(1), scope) else None


def renamed_todo(repo: pygit2.Repository, scope: str | None, why: str) -> str | None:
    """What reads memory a refusal ``why`` names as of another hosted scope (``other_scope_in``),
    as a rename or move leaves it: when the default branch declares this clone's own scope a
    former one (a clone of the old URL), pointing origin at the current URL (``origin_todo``);
    otherwise declaring that scope a former one (``former_todo``). None for any other refusal."""
    old = other_scope_in(why, scope)
    if old is None or scope is None:
        return None
    if alias_of(old, scope):
        return alias_todo(old)
    return origin_todo(scope, old) if declares_itself(repo, scope) else former_todo(old)


def global_host(host: str) -> bool:
    """Whether ``host`` is a name every machine reads alike (a forge of ``_CASELESS_HOSTS``,
    GitHub Enterprise Cloud's ``TENANT.ghe.com``, Azure DevOps' ssh hosts): what an ssh alias
    is read as (``through_ssh``), and never itself asked of ssh."""
    return host in _CASELESS_HOSTS or host in _AZURE_SSH or _TENANT.fullmatch(host) is not None


def alias_of(old: str, scope: str) -> bool:
    """Whether ``old`` may be ``scope``, a forge's (``_CASELESS_HOSTS``, ...), as a clone whose
    origin names its host through an ssh alias (``Host github-work`` / ``HostName github.com``)
    took it before gitstore read ssh's configuration (``through_ssh``): the same owner/name
    under a host that is no global name and has no dot (an alias, not a server's name)."""
    old_host, _, old_path = old.partition("/")
    host, _, path = scope.partition("/")
    return ("." not in old_host and old_host != "local" and not global_host(old_host) and global_host(host)
            and same_scope(f"{host}/{old_path}", scope))


def alias_todo(old: str) -> str:
    """What mends memory stored under ``old``, an ssh alias's scope (``alias_of``): nothing was
    renamed, but what was stored under it is this repository's memory all the same, which a
    sync holds quarantined in every clone until the default branch declares it a former scope."""
    host = old.partition("/")[0]
    return (f"{old} looks like this repository spelled through an ssh host alias ({host}, in a clone's ssh "
            "configuration), as gitstore took origin's scope before it read ssh's: nothing was renamed, but what was "
            "stored under it is this repository's memory, which every clone reads once the default branch declares "
            f"it: `{declare_former(old)}`, merged into the default branch and pushed as the policy is; in the clone "
            f"whose origin names {host}, `gitstore init` then takes this scope, and `gitstore sync` in each clone")


def declare_former(old: str) -> str:
    """The command line that declares ``old`` a former scope in the work tree and commits that
    file alone (from any folder of the work tree)."""
    return (f"gitstore scope formerly {shlex.quote(old)} && git add {shlex.quote(':/' + FORMER_FILE)} && "
            f"git commit -m {shlex.quote(f'Declare the former scope {old}')} -- {shlex.quote(':/' + FORMER_FILE)}")


def spelled_alike(scope: str) -> bool:
    """Whether every record of ``scope`` holds it spelled as it is here: a provider may then find
    them by the exact string, and otherwise is asked for every scope's (``same_scope`` sorts)."""
    host = scope.partition("/")[0]
    return not (host in _CASELESS_HOSTS or _TENANT.fullmatch(host) or host == "dev.azure.com"
                or host in _AZURE_SSH or _AZURE_OLD.fullmatch(host))


def _redact(url: str) -> str:
    return re.sub(r"//[^@/]*@", "//", url)


def scope_note(repo: pygit2.Repository) -> tuple[str, str] | None:
    """What to tell a person whose repository has remotes but none named origin, and the command
    that mends it: the scope is local, so its memory is shared with no clone, and memory stored
    now stays under that scope once a remote is named origin. None otherwise."""
    names = [name for name in repo.remotes.names() if name]
    if not names or "origin" in names:
        return None
    return (f"no remote is named origin (remotes: {', '.join(names)}): this clone's memory has a local scope, "
            "shared with no other clone; name the team's remote origin before memory is stored",
            f"git remote rename {shlex.quote(names[0])} origin && gitstore init")


# What a command run in a folder deleted (or moved) since the shell entered it is told: the
# operating system answers "No such file or directory" naming no file.
FOLDER_GONE = "the current folder no longer exists (deleted or moved since the shell entered it): cd into the repository again"


def open_repository(start: str | Path = ".") -> pygit2.Repository:
    """The git repository containing ``start``, refusing bare repositories. Opened from
    ``start``, not from the git folder found: a clone made with ``--separate-git-dir`` has a
    ``.git`` file naming its git folder, which names no work tree back, so opened from there
    its work tree would be taken for the folder above the git folder."""
    found = pygit2.discover_repository(str(start))
    if found is None:
        try:
            where = Path(start).resolve()
        except FileNotFoundError:  # the folder the command runs in was deleted (or moved) after the shell went there
            raise NotARepository(FOLDER_GONE) from None
        raise NotARepository(f"{where} is not inside a git repository")
    repo = open_git(start, found)
    if repo.is_bare or repo.workdir is None:
        raise BareRepository(f"{found} is a bare repository; gitstore needs a work tree")
    return repo


def open_git(path: str | Path, named: str | Path | None = None) -> pygit2.Repository:
    """The git repository at ``path``, or NotARepository saying why the library cannot open it:
    one with SHA-256 object ids (``git init --object-format=sha256``; the store names objects by
    their 20-byte ids), one whose format extensions it does not know, one another user owns
    that git itself refuses (``not_owned``), or no repository at all; ``named`` is what the
    error calls it (the git folder found, where ``path`` is a folder of its work tree)."""
    try:
        return pygit2.Repository(str(path))
    except pygit2.GitError as exc:
        if NOT_OWNED not in str(exc):
            raise _unsupported(named or path, exc) from None
    with owner_unchecked():  # libgit2 reads safe.directory from its default files only: git decides
        try:
            repo = pygit2.Repository(str(path))
        except pygit2.GitError as exc:
            raise _unsupported(named or path, exc) from None
    folder = (repo.workdir or repo.path).rstrip("/") or "/"
    if not git_accepts(folder, repo.path):
        raise not_owned(folder)
    return repo


def not_owned(folder: str) -> NotOwnedRepository:
    """The error for a repository in ``folder`` (its work tree, or its git folder when it has
    none) that another user owns and git refuses, with git's own command that trusts it."""
    todo = f"git config --global --add safe.directory {shlex.quote(folder)}"
    return NotOwnedRepository(f"{folder} is owned by another user, and git works in it only once its "
                              f"safe.directory lists it: `{todo}` trusts it", todo)


def owner_refusal(exc: Exception) -> NotOwnedRepository | None:
    """``not_owned`` for libgit2's refusal ``exc`` of a repository another user owns, met where
    the repository was opened without ``open_git``; None for any other error."""
    found = _REFUSED.search(" ".join(str(exc).split()))
    return not_owned(found.group(1)) if found is not None else None


def _unsupported(path: str | Path, exc: pygit2.GitError) -> UnsupportedRepository:
    reason = " ".join(str(exc).split())
    if "object format" in reason and "sha256" in reason:
        return UnsupportedRepository(f"{path} uses SHA-256 object ids; gitstore works in repositories with "
                                     "SHA-1 ids (git's default)")
    return UnsupportedRepository(f"{path} cannot be opened as a git repository: {reason}")


def repository_scope(repo: pygit2.Repository, _depth: int = 0, _answers: Path | None = None) -> str:
    """The scope of a repository: its origin remote, else a local scope from its git folder.

    An origin that is a path on this machine (a clone of a local repository) takes that
    repository's scope, so clones exchanging refs share one scope (``_answers``: where the
    clone leading here keeps ssh's answers, ``url_scope``).
    """
    common = _git_folder(repo)
    try:
        found = _origin_scope(repo, _depth, _answers)
    except RemoteGone:
        kept = _kept_in(common)
        if kept is None:
            raise
        return kept  # origin moved or deleted: the scope its memory was set up under stands in
    if found is not None:
        return found
    return _local_scope(common, _kept_in(common))


def scope_and_kept(repo: pygit2.Repository) -> tuple[str, str | None]:
    """The repository's scope, and the scope ``gitstore init`` set its memory up under
    (``keep_scope``; None when none is kept), the configuration file read once."""
    scope, kept, _ = scope_kept_gone(repo)
    return scope, kept


def scope_kept_gone(repo: pygit2.Repository) -> tuple[str, str | None, RemoteGone | None]:
    """``scope_and_kept``, and what stands for an origin that is a path where no repository is
    any longer (moved or deleted; None otherwise), whose scope cannot be read: the kept scope is
    then the repository's, the one its memory is pinned to, so reads and writes go on while the
    person is told (``RemoteGone.todo`` points origin at where the repository is now). Without a
    kept scope there is none to go on with: ``RemoteGone`` is raised."""
    common = _git_folder(repo)
    kept = _kept_in(common)
    try:
        found = _origin_scope(repo, 0)
    except RemoteGone as gone:
        if kept is None:
            raise
        if kept.startswith("local/"):  # origin's chain ended in a repository without one: its path gave the scope
            keep = f"git -C NEW-PATH config {KEPT} {kept}"
            gone = RemoteGone(gone.about, f"{gone.todo} && {keep}", "points it at where that repository is now, "
                              f"and keeps there the local scope its old path gave it, {kept}, which its clones take")
        return kept, kept, gone
    return (found if found is not None else _local_scope(common, kept)), kept, None


def _origin_scope(repo: pygit2.Repository, depth: int, answers: Path | None = None) -> str | None:
    """The scope origin names, or None without an origin."""
    return _remote_scope(repo, "origin", depth, answers)


def remote_scope(repo: pygit2.Repository, remote: str) -> str | None:
    """The scope the remote named ``remote`` stands for, as origin's gives a clone its scope:
    the scope of each clone whose origin it is, so the only scope its clones admit records of
    (None when it has no URL)."""
    return _remote_scope(repo, remote, 0)


def _remote_scope(repo: pygit2.Repository, remote: str, depth: int, answers: Path | None = None) -> str | None:
    try:
        url = repo.remotes[remote].url
    except (KeyError, pygit2.GitError):  # none by that name, or one git refuses (``_gitdirs.remotes``)
        url = None
    if not url:
        return None
    found = url_scope(repo, remote, url, depth, answers)
    urls = _urls_of(repo, remote)
    if len(urls) > 1 and not all(_url_names(repo, remote, other, depth, found, answers) for other in urls):
        shown = ", ".join(_redact(other) for other in urls[:3])
        raise _SeveralRepositories(f"{remote} has {len(urls)} URLs naming different repositories ({shown}): git "
                                   "fetches from the first and pushes to each, so no one scope is its own; `git "
                                   f"remote set-url --delete {shlex.quote(remote)} URL` leaves one")
    return found


def _url_names(repo: pygit2.Repository, remote: str, url: str, depth: int, scope: str,
               answers: Path | None = None) -> bool:
    """Whether ``url``, one of the remote's, stands for ``scope`` (False when it gives none)."""
    try:
        return same_scope(url_scope(repo, remote, url, depth, answers), scope)
    except (GitstoreError, pygit2.GitError, OSError):
        return False


def _urls_of(repo: pygit2.Repository, remote: str) -> list[str]:
    """Every ``remote.NAME.url`` (git fetches from the first and pushes to each; the library reads
    the last, rewritten by ``insteadOf``)."""
    try:
        return [url for url in repo.config.get_multivar(f"remote.{remote}.url") if url]
    except (ValueError, pygit2.GitError):
        return []


def url_scope(repo: pygit2.Repository, remote: str, url: str, depth: int = 0, answers: Path | None = None) -> str:
    """The scope ``url``, one of the remote ``remote``'s (its URL, or a URL a push to it goes
    to), stands for, as ``remote_scope`` reads it. ssh's answers (``through_ssh``) are kept in
    the repository's gitstore folder, else in ``answers``, the folder of the clone whose origin
    led here: a local repository gitstore is not set up in has none, and the clone's commands
    and hooks, each deriving the scope, would each ask ssh again."""
    own = _git_folder(repo) / "gitstore"
    answers = own if answers is None or own.is_dir() else answers
    local = _local_path(url, Path(repo.workdir or repo.path))
    if local is None:
        return through_ssh(repo, url, scope_from_url(url), answers)
    found = pygit2.discover_repository(str(local)) if local.exists() else None
    if found is None:
        where = Path(repo.workdir or repo.path)
        todo = (f"git remote set-url {shlex.quote(remote)} NEW-PATH" if depth == 0 else
                f"git -C {shlex.quote(str(where))} remote set-url {shlex.quote(remote)} NEW-PATH")
        raise RemoteGone(f"{remote} {url!r}{'' if depth == 0 else f' of {where}'} is a path but not a git "
                         "repository (moved or deleted?)", todo)
    if depth > 8:  # clones whose origins lead back to one another have no scope to share
        raise InvalidInput(f"{remote} {url!r} leads through more than 8 local clones or back to itself: "
                           "point one of them at a hosted remote")
    return repository_scope(pygit2.Repository(found), depth + 1, answers)


_SSH_URL = re.compile(r"^(?:ssh|git\+ssh|ssh\+git)://(?:([^@/]*)@)?", re.I)
_LOGIN = re.compile(r"[A-Za-z0-9._-]{1,64}")


def through_ssh(repo: pygit2.Repository, url: str, scope: str, answers: Path | None = None) -> str:
    """``scope``, ``url``'s (``scope_from_url``), with the host an ssh or scp-like URL names
    replaced by the one ssh's configuration resolves it to, where that is a forge's
    (``_sshhost.resolved``: ``git@github-work:acme/widgets`` through ``Host github-work`` /
    ``HostName github.com`` is ``github.com/acme/widgets``); any other URL's as it is. The
    answers are kept in ``answers`` (by default the repository's gitstore folder)."""
    host, _, path = scope.partition("/")
    url = url.strip()
    if "://" in url:
        found = _SSH_URL.match(url)
        if found is None:
            return scope
        login = found.group(1)
    else:
        before = url.split(":", 1)[0]
        login = before.rsplit("@", 1)[0] if "@" in before else None
    if global_host(host):  # a forge's own name: ssh is not asked
        return scope
    from gitstore._sshhost import resolved

    name = resolved(repo, host, login if login and _LOGIN.fullmatch(login) else None,
                    answers if answers is not None else _git_folder(repo) / "gitstore")
    return f"{name}/{path}" if name != host and global_host(name) else scope


def stands_for(repo: pygit2.Repository, remote: str, scope: str) -> bool | None:
    """Whether the remote named ``remote`` stands for ``scope``, this clone's (``remote_scope``):
    origin always does (it gives the clone its scope, or the one kept when it moved); another
    remote does when its own scope is this one (the team's repository under another name or
    URL), and a contributor's fork, another repository, does not. None when that cannot be
    told (a path that is gone, clones leading back to one another)."""
    if remote == "origin":
        return True
    try:
        if not same_scope(remote_scope(repo, remote), scope):
            return False
    except _SeveralRepositories:
        return False  # one of them another
    except (GitstoreError, pygit2.GitError, OSError):
        return None
    ours, theirs = _home_user(_url_of(repo, "origin")), _home_user(_url_of(repo, remote))
    return ours is None or theirs is None or ours == theirs  # two users' home folders: two repositories


def stood_for(repo: pygit2.Repository, remote: str) -> str:
    """What the remote named ``remote`` stands for, as a person is told it (``remote_scope``,
    and whose home folder its path starts from when ``_home_user`` names one)."""
    user = _home_user(_url_of(repo, remote))
    try:
        found = remote_scope(repo, remote)
    except _SeveralRepositories:
        return "several repositories (" + ", ".join(_redact(url) for url in _urls_of(repo, remote)[:3]) + ")"
    return f"{found}{'' if user is None else f' in the home folder of {user}'}"


def _url_of(repo: pygit2.Repository, remote: str) -> str:
    try:
        return repo.remotes[remote].url or ""
    except KeyError:
        return ""


def _home_user(url: str) -> str | None:
    """The user whose home folder the path of a scp-like URL starts from (``bob@host:acme/widgets``),
    on a host that is no forge (``_CASELESS_HOSTS``, where every user is ``git`` and a path names
    a repository, not a folder); None otherwise. The scope leaves the user out, so the same path
    in two users' home folders is two repositories of one scope: ``stands_for`` tells them apart."""
    url = url.strip()
    match = None if "://" in url else _SCP.match(url)
    login = url.split(":", 1)[0]
    if match is None or match.group(2).startswith("/") or "@" not in login:
        return None
    host = match.group(1).lower()
    return None if not spelled_alike(f"{host}/") else login.split("@", 1)[0]


def origin_of(repo: pygit2.Repository) -> tuple[str | None, Path | None]:
    """Where a repository's scope comes from: its origin's URL (credentials left out; None
    without an origin) and, when origin is a path on this machine whose chain of origins ends
    in a repository with none (whose local scope the clone takes), that repository's folder."""
    try:
        url = repo.remotes["origin"].url
    except KeyError:
        url = None
    if not url:
        return None, None
    here, end = repo, None
    for _ in range(9):  # as deep as ``_remote_scope`` follows
        try:
            next_url = here.remotes["origin"].url
        except KeyError:
            next_url = None
        local = _local_path(next_url, Path(here.workdir or here.path)) if next_url else None
        if local is None:
            return _redact(url), end if not next_url else None
        found = pygit2.discover_repository(str(local)) if local.exists() else None
        if found is None:
            return _redact(url), None
        here = pygit2.Repository(found)
        end = Path(here.workdir or here.path)
    return _redact(url), None


def _local_scope(common: Path, kept: str | None) -> str:
    """The scope of a repository without origin, whose common git folder is ``common``: the one
    kept, once memory was set up (the repository moved since: its memory did not), else one
    from the folder's path."""
    if kept is not None and _LOCAL_SCOPE.fullmatch(kept):
        return kept
    if common.name != ".git" and (common.parent / ".git").is_file():
        common = common.parent
    return "local/" + hashlib.sha256(os.fsencode(common)).hexdigest()[:16]  # the path's bytes, whatever they are


def keep_scope(repo: pygit2.Repository, scope: str) -> None:
    """Record ``scope`` as the one this repository's memory is kept under, in the repository's
    own configuration file (``gitstore.scope``). A local scope is then the repository's
    wherever its folder moves: it came from the folder's path when first kept. Raises OSError
    or ``pygit2.GitError`` when the file cannot be written."""
    pygit2.Config(str(_git_folder(repo) / "config"))[KEPT] = scope


def forget_scope(repo: pygit2.Repository) -> None:
    """Remove the kept scope (``keep_scope``), when there is one."""
    try:
        del pygit2.Config(str(_git_folder(repo) / "config"))[KEPT]
    except (KeyError, ValueError, OSError, pygit2.GitError):
        pass


def _git_folder(repo: pygit2.Repository) -> Path:
    """The git folder every worktree of ``repo`` shares (its own, for a submodule)."""
    common = Path(repo.path).resolve()
    pointer = common / "commondir"  # a linked worktree shares its main repository's
    if pointer.is_file():
        common = (common / pointer.read_text().strip()).resolve()
    return common


def _kept_in(folder: Path) -> str | None:
    """``gitstore.scope`` of the configuration file in ``folder``: that file alone, never the
    user's or the system's, which every repository reads."""
    try:
        value = pygit2.Config(str(folder / "config"))[KEPT]
    except (KeyError, ValueError, OSError, pygit2.GitError):
        return None
    if not isinstance(value, str) or value.startswith("local/") and not _LOCAL_SCOPE.fullmatch(value):
        return None  # not a scope gitstore keeps (a hand's edit): the next command keeps the right one
    return value


def _local_path(url: str, base: Path) -> Path | None:
    if url.startswith("file://"):
        return Path(url[len("file://"):])
    if "://" in url or _SCP.match(url):
        return None
    return (base / url).resolve()


def worktree_key(repo: pygit2.Repository) -> str | None:
    """An opaque key for a linked worktree, or None for the main one."""
    gitdir = Path(repo.path).resolve()
    if gitdir.parent.name != "worktrees":  # a linked worktree's git folder is .git/worktrees/<name>
        return None
    return hashlib.sha256(os.fsencode(Path(repo.workdir).resolve())).hexdigest()[:16]
