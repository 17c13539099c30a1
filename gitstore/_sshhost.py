"""The host an ssh remote's URL reaches, as ssh's own configuration resolves it.

A person with two accounts on one forge names a ``Host`` alias in ``~/.ssh/config`` (``Host
github-work`` with ``HostName github.com``) and clones ``git@github-work:acme/widgets.git``:
the host as written is a name on this machine alone, and the scope it gives would split the
team's memory from every clone spelling origin ``git@github.com:...``. ``resolved`` asks ssh
what it reaches (``ssh -G``, which prints the configuration a connection would use, and
connects nowhere): its ``hostname``. The scope takes it when, and only when, that is one of the
hosts whose names mean the same on every machine (``scope.global_host``: the forges of
``scope._CASELESS_HOSTS``, GitHub Enterprise Cloud's ``TENANT.ghe.com`` and Azure DevOps'
ssh hosts), and never asks ssh about one of those. Any other name is kept as written: a
team-wide alias of a self-hosted server keeps the scope its clones share, whatever its hostname.

ssh is run as git would run it (``GIT_SSH_COMMAND``, then ``core.sshCommand``, then
``GIT_SSH``, else ``ssh``), when that is plain ssh (a program named ``ssh``) with options ssh
itself reads (``_ARGS``, ``_FLAGS``): ``-F FILE`` chooses the configuration file as it does
for git. Any other command (a wrapper script, ``plink``, shell syntax) is not understood, and
the host stays as written; so does a host with no ssh to ask, an ssh that fails or takes over
``TIMEOUT`` seconds, unless it answered before (below): its last answer then stands, so a
configuration file caught half edited, or a loaded machine, does not flip the scope a capture
stores under. Never an error.

Scope is derived by every command and by hooks at every prompt, so the answer is kept in
``<common git folder>/gitstore/ssh-hosts.json`` (``CACHE``), keyed by the command and the host,
with the stat of what the answer was read from (``_watched``): the configuration files ssh
starts from (the file ``-F`` names, else the user's ``~/.ssh/config`` and
``/etc/ssh/ssh_config``), there or not, and the files they ``Include`` as ssh itself reports
reading them (``-v``: ``Include`` takes globs, ``~``, paths relative to ``~/.ssh`` or
``/etc/ssh``, and, in newer ssh, ``%`` tokens and variables, so it is not read again here),
with the folders holding those and the nearest folder there is of an ``Include`` that matched
nothing, so that a file added to or removed from ``config.d/`` counts too, and a file ssh
refused for its permissions (its change time counts: ``chmod`` mends it). A warm command costs
those stats (up to ``_MAX_WATCHED``; past them, or where ssh's log cuts a path, the answer is
not kept) and a small read. The
cache is written in one rename; a damaged one is ignored and written again.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pygit2

CACHE = "ssh-hosts.json"
TIMEOUT = 1.0  # seconds ``ssh -G`` may take; past it the host stays as written
_SCHEMA = "gitstore.ssh-hosts/v2"  # v1 kept the stat of the main files alone: asked again
_MAX_ENTRIES = 64
_MAX_WATCHED = 256  # paths an answer is kept by; ssh itself includes up to 16 deep, and globs
_ARGS = frozenset("Fiopl")  # options taking a value: passed on to ``ssh -G`` as given
_FLAGS = frozenset("46AaCKkqTtvXxYy")  # options ssh takes alone, none of them ending it (as -V would)
_SHELL = re.compile(r"[$`;|&<>(){}*?\[\]!#\n\\]")  # git runs the command through a shell: not read here
_SYSTEM_CONFIG = "/etc/ssh/ssh_config"
_READING = re.compile(r"^debug\d: Reading configuration data (.+)$")
_REFUSED = re.compile(r"^Bad owner or permissions on (.+)$")  # a file others may write: ssh stops
_SHOWN_CHARS = 200  # of a path ssh's log names it read, past which it is cut
_UNMATCHED = re.compile(r"^debug\d: .+ line \d+: include (.+) matched no files$")
_GLOB = re.compile(r"[*?\[]")
# Answers this process had to keep in memory, as the folder to keep them in is not made yet
# (``gitstore init`` derives the scope before it makes the folder): checked as a kept one is.
_HELD: dict[str, object] = {}


def resolved(repo: pygit2.Repository, host: str, login: str | None, state: Path) -> str:
    """The host ``login@host`` (an ssh remote's) reaches, as ssh's configuration names it;
    ``host`` as written where ssh is not asked or does not answer; the answers kept in
    ``state``, gitstore's folder of the repository's common git folder, or of the clone whose
    local origin the repository is when it has none (``scope.url_scope``). Which answers count
    is the caller's to say (``scope.through_ssh``: a forge's name only)."""
    if not host or host.startswith("-") or (login or "").startswith("-"):
        return host
    options = _ssh_options(repo)
    if options is None:
        return host
    program, args = options
    destination = f"{login}@{host}" if login else host
    key = "\0".join([program, *args, destination])
    cache = _cache_path(state)
    entries = _read(cache) if cache is not None else {}
    found = entries.get(key, _HELD.get(key))
    kept = found if isinstance(found, dict) else {}
    before = kept.get("hostname") if isinstance(kept.get("hostname"), str) else None
    if before is not None and _unchanged(kept.get("watched")):
        name = before
    else:
        start = _watched(args, "") or []  # before ssh reads them: an edit meanwhile is seen next time
        name, log = _ask(program, args, destination)
        if not name and before:  # ssh failed or was slow where it answered before (a file half edited, a
            name = before        # loaded machine): its last answer stands, so the scope does not flip; asked again
        elif name is None:  # no ssh, or it took too long: asked again next time, the host as written meanwhile
            return host
        else:
            read = _watched(args, log)
            entries.pop(key, None)
            _HELD.pop(key, None)
            if read is not None:  # else not known: asked again next time
                entries[key] = {"watched": [*start, *read[len(start):]], "hostname": name}
            if cache is not None:
                _write(cache, dict(list(entries.items())[-_MAX_ENTRIES:]))
            elif key in entries:
                _HELD[key] = entries[key]
    return name or host


def _ssh_options(repo: pygit2.Repository) -> tuple[str, list[str]] | None:
    """The ssh program git runs for this repository and the options it gives it, or None when
    that is not plain ssh with options ``_ARGS`` and ``_FLAGS`` hold."""
    from gitstore._gitconfig import value
    from gitstore.errors import GitstoreError

    command = os.environ.get("GIT_SSH_COMMAND")
    if command is None:
        try:
            command = value(repo, "core.sshCommand")
        except GitstoreError:  # a setting that is no UTF-8: nothing understood
            return None
    if command is None:
        program = os.environ.get("GIT_SSH") or "ssh"
        return (program, []) if os.path.basename(program) == "ssh" else None
    if _SHELL.search(command):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or os.path.basename(words[0]) != "ssh":
        return None
    args, rest = [], words[1:]
    while rest:
        word = rest.pop(0)
        if len(word) < 2 or word[0] != "-":
            return None
        for at, letter in enumerate(word[1:], 1):
            if letter in _FLAGS:
                args.append(f"-{letter}")
                continue
            if letter not in _ARGS:
                return None
            given = word[at + 1:] or (rest.pop(0) if rest else None)
            if given is None:
                return None
            args.extend([f"-{letter}", os.path.expanduser(given) if letter in "Fi" else given])
            break
    return os.path.expanduser(words[0]), args


def _watched(args: list[str], log: str) -> list[list[object]] | None:
    """Each path an answer of ssh's with ``args`` was read from, once, with its stat
    (``_stat``): the configuration files ssh starts from, there or not, and what its ``-v``
    ``log`` says it read besides: each file it included and the folder holding it (a file
    added to a glob's folder counts), a file it refused for its permissions, and, for an
    ``Include`` that matched nothing, the nearest folder there is on the way to it (a glob past
    a folder that is there, ``*/config``, is watched no deeper). None when that is not known:
    a path the log cuts, or more than ``_MAX_WATCHED``."""
    named = [args[n + 1] for n in range(len(args) - 1) if args[n] == "-F"]
    start = named[-1:] or [os.path.join(_home(), ".ssh", "config"), _SYSTEM_CONFIG]
    paths = list(start)
    for line in log.splitlines():
        reading, unmatched = _READING.match(line), _UNMATCHED.match(line)
        refused = _REFUSED.match(line)
        if reading and reading.group(1) not in start:
            path = reading.group(1)
            if len(path) >= _SHOWN_CHARS:
                return None
            paths.extend([path, os.path.dirname(path) or "."])
        elif refused:
            paths.append(refused.group(1))
        elif unmatched:
            parts = os.path.expanduser(unmatched.group(1)).split(os.sep)
            fixed = os.sep.join(parts[:next((n for n, part in enumerate(parts) if _GLOB.search(part)),
                                            len(parts))])
            folder = os.path.dirname(fixed) or "."
            while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
                folder = os.path.dirname(folder)
            paths.append(folder)
    found = dict.fromkeys(paths)
    return [[path, _stat(path)] for path in found] if len(found) <= _MAX_WATCHED else None


def _unchanged(watched: object) -> bool:
    """Whether every path ``watched`` (as ``_watched`` gave it) has the stat it had."""
    if not isinstance(watched, list) or not watched:
        return False
    for entry in watched:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
            return False
        if _stat(entry[0]) != entry[1]:
            return False
    return True


def _stat(path: str) -> list[int] | None:
    """The size, modification time, inode and change time of ``path`` (``chmod`` moves the
    last: ssh refuses a file others may write), None when it is not there."""
    try:
        seen = os.stat(path)
    except (OSError, ValueError):
        return None
    return [seen.st_size, seen.st_mtime_ns, seen.st_ino, seen.st_ctime_ns]


def _home() -> str:
    """The folder ssh reads ``~/.ssh/config`` from: the user's home in the password database,
    never ``$HOME``."""
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):
        return os.path.expanduser("~")


def _ask(program: str, args: list[str], destination: str) -> tuple[str | None, str]:
    """``hostname`` as ``ssh -G`` prints it for ``destination``, lower case and without a
    trailing dot; "" when ssh answered without one (it failed: the host stays as written, and
    that is kept); None when there is no ssh or it took over ``TIMEOUT`` seconds. With it, ssh's
    ``-v`` log, which says what files it read (``_watched``)."""
    import signal
    import subprocess

    asked = [word for word in args if word != "-y"]  # -y: ssh would log to syslog, and not here
    try:
        child = subprocess.Popen([program, "-G", *asked, "-v", destination], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError:
        return None, ""
    try:
        out, log = child.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(child.pid, signal.SIGKILL)  # what a ``Match exec`` started too
        except OSError:
            pass
        child.communicate()
        return None, ""
    said = log.decode("utf-8", "surrogateescape")
    if child.returncode != 0:
        return "", said
    for line in out.decode("utf-8", "replace").splitlines():
        name, _, rest = line.partition(" ")
        if name.lower() == "hostname":
            found = rest.strip().lower()
            return found[:-1] if found.endswith(".") else found, said
    return "", said


def keep_held(state: Path) -> None:
    """Keep in ``state``, a folder just made, the answers this process held for want of it."""
    if _HELD and (cache := _cache_path(state)) is not None:
        _write(cache, dict(list({**_read(cache), **_HELD}.items())[-_MAX_ENTRIES:]))
        _HELD.clear()


def _cache_path(state: Path) -> Path | None:
    """Where the answers are kept: in gitstore's folder ``state`` of a common git folder, once
    there is one (``gitstore init`` makes it); None before, and nothing is kept."""
    return state / CACHE if state.is_dir() else None


def _read(path: Path) -> dict[str, object]:
    try:
        found = json.loads(path.read_bytes())
    except (OSError, ValueError):  # none yet, or damaged: written again
        return {}
    if not isinstance(found, dict) or found.get("schema") != _SCHEMA or not isinstance(found.get("hosts"), dict):
        return {}
    return dict(found["hosts"])


def _write(path: Path, entries: dict[str, object]) -> None:
    from gitstore._files import replace_file

    try:
        replace_file(path, json.dumps({"schema": _SCHEMA, "hosts": entries}, sort_keys=False), 0o600)
    except OSError:  # a read-only git folder: asked again next time
        pass
