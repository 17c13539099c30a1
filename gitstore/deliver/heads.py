"""The fingerprint of everything recall's index is built from, read without git bindings (but
for a git configuration that includes other files: see ``_configured_default``).

The index is a disposable cache: it is used only while its fingerprint equals the one computed
now, and rebuilt from the store otherwise. The fingerprint is one text made of

- a secret of this clone (``<git common dir>/gitstore/delivery.salt``, made on the first build):
  an index a repository ships in its files can never match it;
- the index format and gitstore's version (a new scanner or scorer rebuilds);
- the bytes of ``okf/.memory/config.json`` (provider, writer, delivery settings), and a digest
  of the settings of git's configuration the store's reading depends on (``settings_read``):
  origin's, the URL rewrites applied to it and the scope kept (which give the scope the store
  reads records of), the signature checks' program, the repository's format, and the files
  they include; a setting nothing reads (``user.name``, another remote, a branch's upstream)
  changes nothing agents are given, and rebuilds nothing;
- the team's policy in force: the default branch the store reads it from (origin's HEAD, else
  ``init.defaultBranch``, read from git's configuration files, or asked as the store reads it
  when one includes another or a ``GIT_CONFIG_*`` variable points git elsewhere, else main or
  master) and the ids of
  ``.gitstore/policy.json`` and ``.gitstore/allowed_signers`` in its tip (a person the policy
  no longer allows takes their decisions out of force, with no ref of memory moving), and of
  ``.gitstore/scope.json`` (the former scopes whose records the store reads). The ids
  are asked of git (one ``git ls-tree``) only when the branch's tip moved since they were last
  asked (``<git common dir>/gitstore/policy.ids``), so a branch moving without touching the
  policy rebuilds nothing; and, asked then too, the tip since which the branch has only moved
  forward (``git merge-base --is-ancestor``): a history made again (a force push of the same
  files) can leave out the policy revision a decision names, which takes the decision out of
  force with no policy file and no ref of memory moving;
- for the ``git`` provider, every ref under ``refs/memory/`` with its target (those a sync
  fetched into ``refs/memory/sync/`` aside: they are not memory), loose and packed,
  in the common git folder and in any git folder gitstore keeps under it (refs kept in a
  reftable: the list of its tables); for the ``sqlite`` and ``jsonl`` providers, the size and
  modification time of their files.

Time is not in it: validity dates are kept in the index and compared with the clock at query
time. Any other change to the records moves a ref (or a file), so it rebuilds, except after a
capture that adds nothing the index depends on (``gitstore.deliver.carry``).
"""

from __future__ import annotations

import os
from stat import S_ISREG

from gitstore._files import replace_file
from gitstore._gitconfig import overridden
from gitstore._gitrefs import loose_refs, packed_under
from gitstore._version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

    from gitstore.deliver.place import Place

FORMAT = "recall-index/16"  # 4: a learning's line kept as scanned on one line; 5: naming no learning as a citation;
# 6: look-alike words marked; 7: paths as path terms; 8: learnings looked up by audience;
# 9: paths as people write them (lines, backslashes, links, names without an extension);
# 10: only files the field names without an extension give their word; 11: a learning's line is its text alone;
# 12: a learning scored by the title it is named by (an edited one's, its accepted text's headline);
# 13: the repository's git configuration (its scope) and its declared former scopes in the fingerprint;
# 14: only the settings of git's configuration the store's reading depends on, from every file it reads;
# 15: a personal session's episode found in the shared namespace is no evidence;
# 16: a bracket holding the words of a delivered item's provenance read as the text's own (``quoted:``)
HEAD_LINES = 5  # a state's lines before the storage's: format, version, salt, config, policy
SALT_NAME = "delivery.salt"
REFS = "refs/memory/"
INCOMING = REFS + "sync/"  # where a sync fetches before it verifies: never read as memory, and
# kept between syncs (as many refs as the fetched writers'), so not read at every prompt either


def salt_path(place: Place) -> str:
    return os.path.join(place.common, "gitstore", SALT_NAME)


SALT_BYTES = 32


def read_salt(place: Place) -> str | None:
    """This clone's secret, in hex; None where there is none, or anything but a file stands in
    its place, which is never waited on (a FIFO's read waits for a writer: every prompt was held
    to the hook's time limit, and `gitstore recall` for good)."""
    try:
        fd = os.open(salt_path(place), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, 4 * SALT_BYTES).hex()
    except OSError:
        return None
    finally:
        os.close(fd)


def make_salt(place: Place) -> None:
    """Create this clone's secret if it has none (only the index build does). Where anything
    else stands in its place (a folder, a FIFO), no index could ever be keyed: it is named, with
    what mends it, in a gitstore error (every build failed with a traceback)."""
    path = salt_path(place)
    if os.path.exists(path):
        if not os.path.isfile(path):
            from gitstore.errors import GitstoreError

            error = GitstoreError(f"{path}: something other than a file stands where this clone's delivery secret "
                                  "belongs; delete it, and the next delivery makes a new one")
            error.loggable = True  # type: ignore[attr-defined] # a path gitstore made: the hook's log says it
            raise error
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    replace_file(path, os.urandom(SALT_BYTES), 0o600)


def _loose(folder: str, prefix: str, found: list[str]) -> None:
    for name, content in loose_refs(folder, prefix, skip=(INCOMING,)):
        found.append(f"{name} unreadable" if content is None else
                     f"{name} {content.strip().decode('ascii', 'replace')}")


def _read_packed(gitdir: str, read: dict[str, bytes]) -> bytes:
    """``gitdir``'s ``packed-refs`` (empty when there is none), read once per state: a big
    repository packs 1.5 MB of refs, and both the policy's line and the storage's look in it."""
    if gitdir not in read:
        try:
            with open(os.path.join(gitdir, "packed-refs"), "rb") as handle:
                read[gitdir] = handle.read()
        except OSError:
            read[gitdir] = b""
    return read[gitdir]


def _packed(gitdir: str, found: list[str], read: dict[str, bytes]) -> None:
    data = _read_packed(gitdir, read)
    for oid, name in packed_under(data, REFS):
        if not name.startswith(INCOMING.encode()):
            found.append(f"packed {oid.decode()} {name.decode('ascii', 'replace')}")


def _reftable(gitdir: str, found: list[str]) -> None:
    """Refs kept in a reftable (git 2.45 on) have no files to read one by one: the list of its
    tables, which git writes again whenever a ref moves, stands for all of them."""
    try:
        with open(os.path.join(gitdir, "reftable", "tables.list"), "rb") as handle:
            found.append("reftable " + " ".join(handle.read().decode("ascii", "replace").split()))
    except OSError:
        return


def _git_refs(gitdir: str, read: dict[str, bytes] | None = None) -> list[str]:
    found: list[str] = []
    _reftable(gitdir, found)
    _packed(gitdir, found, {} if read is None else read)
    _loose(os.path.join(gitdir, *REFS.strip("/").split("/")), REFS, found)
    return sorted(found)


def _git_folders(place: Place) -> list[str]:
    folders = [place.common]
    own = os.path.join(place.common, "gitstore")
    try:
        entries = sorted(os.scandir(own), key=lambda e: e.name)
    except OSError:
        return folders
    folders += [e.path for e in entries if e.is_dir(follow_symlinks=False)
                and os.path.exists(os.path.join(e.path, "HEAD"))]
    return folders


def _files(folder: str) -> list[str]:
    stamps = []
    for base, _dirs, names in os.walk(folder):
        for name in sorted(names):
            path = os.path.join(base, name)
            try:
                stat = os.stat(path)
            except OSError:
                continue
            stamps.append(f"{os.path.relpath(path, folder)} {stat.st_size} {stat.st_mtime_ns}")
    return sorted(stamps)


_POLICY_IDS = "policy.ids"
# gitstore.records.policy's, and the former scopes the store reads records of (gitstore.scope.FORMER_FILE)
_POLICY_FILES = (".gitstore/policy.json", ".gitstore/allowed_signers", ".gitstore/scope.json")


def _target(common: str, name: str, read: dict[str, bytes]) -> str | None:
    """The target of ref ``name`` (an id, or ``ref: <name>`` for a symbolic one), loose or packed."""
    try:
        with open(os.path.join(common, *name.split("/")), "rb") as handle:
            return handle.read(4096).strip().decode("ascii", "replace")
    except OSError:
        pass
    for oid, found in packed_under(_read_packed(common, read), name):
        if found == name.encode():
            return oid.decode()
    return None


def _config_files(common: str) -> list[str]:
    """The files git's configuration is read from, lowest precedence first, as libgit2 reads
    them: the system's, the user's (XDG, then ``~/.gitconfig``), the repository's."""
    home = os.environ.get("HOME") or os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return ["/etc/gitconfig", os.path.join(xdg, "git", "config"), os.path.join(home, ".gitconfig"),
            os.path.join(common, "config")]


def _config_texts(common: str) -> list[str]:
    """The text of each configuration file there is, lowest precedence first."""
    texts = []
    for path in _config_files(common):
        try:
            with open(path, "rb") as handle:
                texts.append(handle.read(1 << 20).decode("utf-8", "replace"))
        except OSError:
            continue
    return texts


# The sections of git's configuration the store's reading depends on: origin's (its URLs give the
# scope, ``gitstore.scope``), the URL rewrites the git library applies to them (``url.<base>.
# insteadOf``, in any file), gitstore's own (``gitstore.scope``, the scope kept), the signature
# checks' (``gpg.ssh.program``), the repository's format and work tree (``core``,
# ``extensions``), and the files included (``include``, ``includeIf``), whose lines are read too.
_READ_SECTIONS = frozenset({"url", "gitstore", "gpg", "core", "extensions", "include", "includeif"})
_READ_REMOTE = "origin"
_MAX_INCLUDES = 10  # as deep as git follows included files


def settings_read(place: Place) -> str:
    """The digest of the lines of git's configuration files (``_config_files``, the work tree's
    own ``config.worktree`` and every file they include) in the sections the store's reading
    depends on (``_READ_SECTIONS``, and origin's), each file named: an edit of any other setting
    (``git config user.name``, ``git remote add``, ``git push -u`` naming a branch's upstream)
    keeps the index. Read as text, without a git library, and generously: a header it cannot
    read counts as such a section, a line continued after one counts too, and an included file
    counts whatever the condition it is included under (and, under ``onbranch:``, so does the
    branch checked out, which turns it on or off). An origin that is a path on this
    machine gives the scope of the repository there (``gitstore.scope.url_scope``): its
    folder and its own configuration count too, and so on along the chain."""
    kept: list[str] = []
    origins: list[str] = []
    for path in (*_config_files(place.common), os.path.join(place.gitdir, "config.worktree")):
        _lines_read(path, kept, 0, origins)
    _origins_read(origins, place.root, kept, 0)
    if any(line.lower().startswith('[includeif "onbranch:') for line in kept):  # it reads as the branch checked out
        try:
            with open(os.path.join(place.gitdir, "HEAD"), "rb") as handle:
                kept.append("HEAD " + handle.read(4096).decode("utf-8", "surrogateescape").strip())
        except OSError:
            pass
    return sha256_hex("\n".join(kept).encode("utf-8", "surrogateescape"))


_MAX_ORIGINS = 8  # clones whose origins are paths, followed as deep as the store follows them


def _origins_read(urls: list[str], base: str, kept: list[str], depth: int) -> None:
    """Add to ``kept``, for each of origin's URLs ``urls`` (of a repository whose work tree, or
    git folder when it has none, is ``base``) that is a path on this machine, the repository
    found there and the lines of its configuration the scope depends on, its origin's too."""
    for url in urls:
        local = _local_path(url, base)
        if local is None:
            continue
        found = _repository_at(local)
        kept.append(f"origin {local} {found[0] if found else 'none'}")
        if found is None or depth >= _MAX_ORIGINS:
            continue
        gitdir, common, there = found
        more: list[str] = []
        for path in (os.path.join(common, "config"), os.path.join(gitdir, "config.worktree")):
            _lines_read(path, kept, 0, more)
        _origins_read(more, there, kept, depth + 1)


def _local_path(url: str, base: str) -> str | None:
    """The folder a remote URL names on this machine (``gitstore.scope._local_path``), or None
    for a URL naming another host (with a scheme, or scp-like: ``host:path``)."""
    if url.startswith("file://"):
        return url[len("file://"):]
    colon = url.find(":")
    if "://" in url or (colon > 0 and "/" not in url[:colon] and not url.startswith("//", colon + 1)):
        return None
    return os.path.realpath(os.path.join(base, url))


def _repository_at(path: str) -> tuple[str, str, str] | None:
    """(git folder, common git folder, work tree or the git folder when it has none) of the
    repository holding ``path``, as git discovers it (from there up), or None."""
    from gitstore.deliver.limits import Inert
    from gitstore.deliver.place import git_folders

    if not os.path.exists(path):
        return None
    here = path
    while True:
        try:
            if os.path.isfile(os.path.join(here, "HEAD")) and os.path.isdir(os.path.join(here, "objects")):
                return (*git_folders(here, here), here)
            dotgit = os.path.join(here, ".git")
            if os.path.exists(dotgit):
                return (*git_folders(here, dotgit), here)
        except (Inert, OSError):
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _lines_read(path: str, kept: list[str], depth: int, origins: list[str]) -> None:
    """Add to ``kept`` the lines of the configuration file ``path`` in the sections the store's
    reading depends on, and those of the files it includes; to ``origins``, origin's URLs."""
    try:
        with open(path, "rb") as handle:
            text = handle.read(1 << 20).decode("utf-8", "surrogateescape")
    except OSError:
        return
    start = len(kept)
    section: tuple[str, str | None] | None = None
    read = continued = False
    for raw in text.splitlines():
        line = raw.strip()
        if continued:  # the value of a kept line goes on (a backslash ended it)
            kept.append(line)
            continued = _continues(line)
            continue
        body = line
        if line.startswith("["):
            found = _section(line)
            section = None if found is None else found[:2]
            body = "" if found is None else found[2].strip()
            read = found is None or found[0] in _READ_SECTIONS or found[:2] == ("remote", _READ_REMOTE)
        if not read or not line or line[0] in "#;":
            continue
        kept.append(line)
        continued = _continues(line)
        if section == ("remote", _READ_REMOTE) and (url := _value(body, "url")) is not None:
            origins.append(url)
        included = _value(body, "path") if section is not None and section[0] in ("include", "includeif") else None
        if included is not None and depth < _MAX_INCLUDES:
            _lines_read(_include_path(included, path), kept, depth + 1, origins)
    if len(kept) > start:  # named only when it holds such lines: a file of other settings alone is none
        kept.insert(start, f"file {path}")


def _section(line: str) -> tuple[str, str | None, str] | None:
    """(name in lower case, subsection or None, what follows on the line) of a section header
    (``[remote "origin"]``, or ``[remote.origin]`` as git once wrote it); None when it is none
    git would read."""
    at = 1
    while at < len(line) and (line[at].isalnum() or line[at] in "-."):
        at += 1
    name = line[1:at].lower()
    if line[at:at + 1] == "]":
        section, dot, sub = name.partition(".")
        return section, (sub if dot else None), line[at + 1:]
    rest = line[at:].lstrip()
    if not name or not rest.startswith('"'):
        return None
    chars: list[str] = []
    at = 1
    while at < len(rest) and rest[at] != '"':
        at += rest[at] == "\\"  # an escaped character stands for itself
        chars.append(rest[at:at + 1])
        at += 1
    if rest[at + 1:at + 2] != "]":
        return None
    return name, "".join(chars), rest[at + 2:]


def _continues(line: str) -> bool:
    """Whether a line's value goes on to the next line (it ends in an odd run of backslashes)."""
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _value(body: str, name: str) -> str | None:
    """The value a ``name = VALUE`` line sets (``path`` of an include section: the file it
    names), else None."""
    key, eq, value = body.partition("=")
    if not eq or key.strip().lower() != name:
        return None
    value = value.strip()
    if value.startswith('"'):
        value = value[1:].split('"', 1)[0]
    else:
        value = value.split("#", 1)[0].split(";", 1)[0].strip()
    return value or None


def _include_path(named: str, including: str) -> str:
    """The file an include names, as git finds it: ``~/`` in the home folder, a relative path
    beside the file including it."""
    if named.startswith("~/"):
        named = os.path.join(os.environ.get("HOME") or os.path.expanduser("~"), named[2:])
    return os.path.join(os.path.dirname(including), named)


def _includes(text: str) -> bool:
    """Whether a configuration file names other files to read (``[include]``, ``[includeIf
    ...]``): their settings count too, under conditions only a git library checks as the store's
    does."""
    return any(line.lstrip().lower().startswith("[include") for line in text.splitlines())


def _default_read(text: str, found: str | None) -> str | None:
    """``init.defaultBranch`` as one file sets it, else ``found`` (what earlier files set)."""
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section, _, rest = line[1:].partition("]")
            section = section.strip().lower()
            line = rest.strip()
        if section != "init" or "=" not in line or line[0] in "#;":
            continue
        key, _, value = line.partition("=")
        if key.strip().lower() == "defaultbranch":
            value = value.split("#", 1)[0].split(";", 1)[0].strip().strip('"')
            found = value or found
    return found


def _default_asked(gitdir: str) -> str | None:
    """``init.defaultBranch`` as the store reads it (``gitstore._gitconfig``), included files
    and their conditions too: asked only of a configuration that includes others or that git's
    variables point elsewhere, since loading the library costs more than a prompt's whole fast
    path."""
    import pygit2

    from gitstore._gitconfig import value

    try:
        return value(pygit2.Repository(gitdir), "init.defaultBranch")
    except pygit2.GitError:
        return None


def _configured_default(common: str, gitdir: str | None = None) -> str | None:
    """``init.defaultBranch`` as the configuration files set it (the last one wins): the branch
    the store reads the policy from when origin names none. Plain files are read here; when one
    includes another, or a variable such as ``GIT_CONFIG_GLOBAL`` names other files, the store's
    reading is asked, opening ``gitdir`` (this work tree's git folder, as the store opens it) so
    that conditions on the folder or branch hold alike."""
    if overridden():
        return _default_asked(gitdir or common)
    texts = _config_texts(common)
    if any(_includes(text) for text in texts):
        return _default_asked(gitdir or common)
    found = None
    for text in texts:
        found = _default_read(text, found)
    return found


def _default_tip(common: str, read: dict[str, bytes], gitdir: str | None = None) -> tuple[str, str] | None:
    """(branch, tip id) of the default branch the policy is read from, as
    ``gitstore.providers._policy_git.default_branch`` finds it: origin's HEAD, else the branch
    ``init.defaultBranch`` names, else main, else master."""
    try:  # a symbolic ref is never packed
        with open(os.path.join(common, "refs", "remotes", "origin", "HEAD"), "rb") as handle:
            head = handle.read(4096).strip().decode("ascii", "replace")
    except OSError:
        head = None
    names = [head[5:]] if head and head.startswith("ref: ") else []
    tip = _target(common, names[0], read) if names else None
    if tip and not tip.startswith("ref: "):
        return names[0], tip
    configured = _configured_default(common, gitdir)
    names = [f"refs/heads/{configured}"] if configured else []
    for name in (*names, "refs/heads/main", "refs/heads/master"):
        tip = _target(common, name, read)
        if tip and not tip.startswith("ref: "):
            return name, tip
    return None


def _git(common: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    """Run git on the common folder, reading commits as the store reads them (no replacements)."""
    import subprocess

    return subprocess.run(["git", f"--git-dir={common}", *args], capture_output=True, stdin=subprocess.DEVNULL,
                          env={**os.environ, "GIT_NO_REPLACE_OBJECTS": "1"})


def _kept(cache: str) -> tuple[str, str, str] | None:
    """(tip, base, ids) as last asked (see ``policy``), or None when nothing usable was kept."""
    try:
        with open(cache, "rb") as handle:
            parts = handle.read().decode("ascii").split("\n", 2)
    except (OSError, UnicodeDecodeError):
        return None
    return (parts[0], parts[1], parts[2]) if len(parts) == 3 else None


def _base(common: str, kept: tuple[str, str, str] | None, tip: str) -> str:
    """The tip the branch's history has only been added to since: the kept one when the branch
    moved forward from the tip last asked, else the new tip (a history made again, or nothing
    kept). Whether a decision's policy revision is in the branch's history can only change
    from yes to no when this changes."""
    if kept is None:
        return tip
    old_tip, base, _ids = kept
    forward = _git(common, "merge-base", "--is-ancestor", old_tip, tip).returncode == 0
    return base if forward else tip


def policy(place: Place, read: dict[str, bytes] | None = None) -> str:
    """The fingerprint's line for the policy in force (see the module's docstring)."""
    found = _default_tip(place.common, {} if read is None else read, place.gitdir)
    if found is None:
        return "policy none"
    branch, tip = found
    cache = os.path.join(place.common, "gitstore", _POLICY_IDS)
    kept = _kept(cache)
    if kept is not None and kept[0] == tip:
        return f"policy {branch} since {kept[1]} {kept[2]}"
    base = _base(place.common, kept, tip)
    done = _git(place.common, "ls-tree", "-z", tip, "--", *_POLICY_FILES)
    ids = (" ".join(sorted(entry.decode("utf-8", "replace") for entry in done.stdout.split(b"\0") if entry))
           if done.returncode == 0 else f"unreadable {tip}")  # kept too: asked again once the tip moves
    try:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        replace_file(cache, f"{tip}\n{base}\n{ids}")
    except OSError:
        pass
    return f"policy {branch} since {base} {ids}"


def storage(place: Place, read: dict[str, bytes] | None = None) -> list[str]:
    """What identifies the current state of the configured provider's records."""
    if place.provider == "git":
        read = {} if read is None else read
        return [f"{folder}\n" + "\n".join(_git_refs(folder, read)) for folder in _git_folders(place)]
    if place.provider == "sqlite":
        base = os.path.join(place.state, "store.sqlite")
        return [line for suffix in ("", "-wal") for line in _files_of(base + suffix)]
    if place.provider == "jsonl":
        return _files(os.path.join(place.state, "jsonl"))
    return []  # the memory provider keeps nothing between processes: no index can match it


def _files_of(path: str) -> list[str]:
    try:
        stat = os.stat(path)
    except OSError:
        return []
    return [f"{os.path.basename(path)} {stat.st_size} {stat.st_mtime_ns}"]


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex (the C module straight away: hashlib costs start-up time)."""
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - other Python builds
        from hashlib import sha256
    return sha256(data).hexdigest()  # type: ignore[no-any-return]


def state(place: Place, salt: str | None = None) -> list[str] | None:
    """The fingerprint's text, line by line (see the module's docstring), or None when it
    cannot be known (no salt yet, memory provider). Given ``salt``, that secret stands for the
    clone's (a process keys what it keeps for itself alone, where the clone has none)."""
    salt = salt or read_salt(place)
    if salt is None or place.provider == "memory":
        return None
    try:
        with open(os.path.join(place.state, "config.json"), "rb") as handle:
            config = handle.read().hex()
    except OSError:
        return None
    config += " " + settings_read(place)  # origin's URL and the scope kept give the scope the store reads
    read: dict[str, bytes] = {}  # packed-refs, by git folder
    return [FORMAT, __version__, salt, config, policy(place, read), *storage(place, read)]


def digest(lines: list[str] | None) -> str | None:
    """The fingerprint of a ``state`` (the secret in it never leaves the git folder)."""
    if lines is None:
        return None
    return "sha256:" + sha256_hex("\n".join(lines).encode("utf-8", "surrogateescape"))


def fingerprint(place: Place) -> str | None:
    """The digest of the current fingerprint, or None when it cannot be known."""
    return digest(state(place))


def git_refs(lines: list[str]) -> dict[tuple[str, str], str]:
    """(git folder, ref name) -> target of every ref in a ``state`` of the git provider, a
    loose ref standing over a packed one of the same name, as git reads them."""
    found: dict[tuple[str, str], str] = {}
    for block in lines[HEAD_LINES:]:
        folder, _, body = block.partition("\n")
        loose = {}
        for line in body.split("\n") if body else ():
            if line.startswith("packed "):
                target, _, name = line[7:].partition(" ")
                found.setdefault((folder, name), target)
            else:
                name, _, target = line.partition(" ")
                loose[(folder, name)] = target
        found.update(loose)
    return found
