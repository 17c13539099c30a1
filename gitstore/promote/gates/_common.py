"""What every gate shares: findings, argument parsing, git, the base revision, the store."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from gitstore import _jsontext
from gitstore._shown import one_line, shown
from gitstore.promote.findings import Finding as Finding  # the gates' findings, named here for them
from gitstore.errors import GitstoreError
from gitstore.promote._git import git_env

TYPE_CHECKING = False
if TYPE_CHECKING:  # argparse, subprocess and the store load only when a gate needs them
    import argparse
    import subprocess
    from typing import Any, NoReturn

    from gitstore.store import Store

ZERO = "0" * 40
LINK, SUBMODULE, FOLDER = "120000", "160000", "040000"  # git's modes for them


class Listing:
    """Every path a commit (or the index) holds, with its git mode (``100644``, ``120000``:
    a symbolic link, ``160000``: a submodule); a folder is one some path lies in."""

    def __init__(self, modes: dict[str, str]) -> None:
        self.modes = modes
        self._folders: set[str] | None = None

    def mode(self, path: str) -> str | None:
        """``path``'s mode, ``FOLDER`` for a folder, None when the tree holds no such path."""
        held = self.modes.get(path)
        if held is None:
            if self._folders is None:
                self._folders = {held[:i] for held in self.modes for i, c in enumerate(held) if c == "/"}
            return FOLDER if path in self._folders else None
        return held
PARALLEL_FROM = 300  # files; below this, starting workers costs more than it saves


def report(findings: Iterable[Finding], out: Callable[[str], None] = print) -> int:
    """Print the findings (each once, in order); 1 when there was any, else 0."""
    seen = sorted(set(findings))
    for finding in seen:
        out(str(finding))
    return 1 if seen else 0


def parser(prog: str, description: str) -> argparse.ArgumentParser:
    """A gate's argument parser: a usage error is one line, ``PROG: error: ...``, exit 2."""
    import argparse

    class OneLine(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            self.exit(2, f"{self.prog}: error: {one_line(message)} (`{self.prog} --help` lists the options)\n")

    found = OneLine(prog=prog, description=description.replace("``", ""))
    found.add_argument("files", nargs="*", help="files to check (pre-commit passes them)")
    return found


def files_only(argv: Sequence[str] | None) -> list[str] | None:
    """The arguments when they are only file names (how pre-commit calls a gate: after ``--``,
    the manifest's ``args``, whatever they look like), else None (the full parser reads them).
    A gate called so loads no argument parser."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--"]:
        return args[1:]
    return None if any(a.startswith("-") for a in args) else args


def run(prog: str, gate: Callable[[], int]) -> int:
    """Run a gate; an error it cannot turn into findings is one line and exit 1. A gate that
    judges a push's range is ``_pushed.with_others(gate)``, run again for each ref pre-commit did
    not hand it."""
    try:
        return gate()
    except GitstoreError as exc:
        print(f"{prog}: error: {shown(one_line(str(exc)))}", file=sys.stderr)  # it may name a file
        return 1
    except BrokenPipeError:  # its findings piped into `head` and the like: the reader is gone
        return 1
    except Exception as exc:
        import subprocess

        if not isinstance(exc, subprocess.CalledProcessError):
            raise
        why = " ".join((exc.stderr or b"").decode("utf-8", "replace").split())[:300]
        print(f"{prog}: error: {' '.join(map(str, exc.cmd[:3]))} failed: {why}", file=sys.stderr)
        return 1


def exit_now(code: int) -> NoReturn:
    """End a gate's process once its findings are out, without tearing the interpreter down:
    freeing every page, node and pattern it read costs a short-lived gate a tenth of its time.
    Only for gates that leave nothing to close (they read, print and exit)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: the reader is gone
            code = code or 1
    os._exit(code)


def git(*args: str, cwd: Path | None = None, keep_index: bool = False, check: bool = True,
        data: bytes | None = None, c_locale: bool = False) -> subprocess.CompletedProcess[bytes]:
    """Run real git. ``keep_index`` keeps GIT_INDEX_FILE, which git sets for a commit's hooks
    to the index being committed; ``c_locale`` has git read a regular expression byte by byte,
    whatever the user's locale."""
    import subprocess

    env = git_env()
    if c_locale:
        env["LC_ALL"] = "C"
    if keep_index and "GIT_INDEX_FILE" in os.environ:
        env["GIT_INDEX_FILE"] = os.environ["GIT_INDEX_FILE"]
    return subprocess.run(["git", *args], cwd=cwd, env=env, input=data, capture_output=True, check=check)


def git_later(*args: str, keep_index: bool = False) -> Callable[[], tuple[int, bytes]]:
    """Start real git (without the cost of loading ``subprocess``: ``gitstore._spawn``); the
    function returned waits for it and gives its exit code and standard output. Its errors are
    dropped. ``keep_index`` as for ``git``."""
    from gitstore._spawn import spawn

    env = git_env()
    if keep_index and "GIT_INDEX_FILE" in os.environ:
        env["GIT_INDEX_FILE"] = os.environ["GIT_INDEX_FILE"]
    return spawn(["git", *args], env)


def top_level(start: Path | None = None) -> Path:
    """The work tree root of the repository around the current folder (pre-commit runs hooks
    from it, so a ``.git`` here answers without asking git)."""
    try:
        here = Path(start or os.getcwd())
    except FileNotFoundError:
        from gitstore.errors import NotARepository
        from gitstore.scope import FOLDER_GONE

        raise NotARepository(FOLDER_GONE) from None
    if (here / ".git").exists():
        return here
    done = git("rev-parse", "--show-toplevel", cwd=start, check=False)
    if done.returncode != 0:
        from gitstore.errors import NotARepository

        raise NotARepository("not inside a git work tree")
    return Path(done.stdout.decode().strip())


def base_revision(explicit: str | None, root: Path) -> str | None:
    """The revision changes are judged against: ``--base``, else the pre-push or CI range's
    start (``PRE_COMMIT_FROM_REF``), else HEAD (which has no commit before the first one)."""
    for candidate in (explicit, os.environ.get("PRE_COMMIT_FROM_REF")):
        if candidate and candidate != ZERO:
            done = git("rev-parse", "--verify", "--quiet", f"{candidate}^{{commit}}", cwd=root, check=False)
            if done.returncode == 0:
                return done.stdout.decode().strip()
            if candidate == explicit:
                from gitstore.errors import InvalidInput

                raise InvalidInput(f"--base {explicit}: no such commit")
    return "HEAD"


def committed_paths(root: Path, paths: Sequence[str]) -> Callable[[], set[str]]:
    """The paths of the files under ``paths`` that the change leaves: in the tree of the range's
    tip (``PRE_COMMIT_TO_REF``: at pre-push, or a run over a range), else in the index (the one
    being committed, at a commit). Never the work tree, which may hold files the change deletes
    (``git rm --cached``: pre-commit does not stash untracked files). git starts at once, as in
    ``tree_entries``."""
    tip = CommittedFiles.tip()
    where = os.fspath(root)
    if tip and tip != ZERO:
        answer = git_later("-C", where, "ls-tree", "-r", "-z", "--name-only", "--full-tree", tip, "--", *paths)
    else:
        answer = git_later("-C", where, "ls-files", "-z", "--", *paths, keep_index=True)

    def paths_left() -> set[str]:
        code, out = answer()
        if code != 0 and tip and tip != ZERO:
            from gitstore.errors import InvalidInput

            raise InvalidInput(f"PRE_COMMIT_TO_REF {tip}: no such commit")
        if code != 0:
            raise GitstoreError(f"the index cannot be read (git ls-files exited {code})")
        return {path.decode("utf-8", "surrogateescape") for path in out.split(b"\0") if path}

    return paths_left


def revision_named(variable: str) -> str | None:
    """The revision the environment variable ``variable`` names (pre-commit's ``PRE_COMMIT_*_REF``
    and ``PRE_COMMIT_LOCAL_BRANCH``), if set. One that begins with ``-`` names none: git would
    read it as an option (``--output=FILE`` has ``git diff`` and ``git log`` write a file)."""
    value = os.environ.get(variable)
    if value and value.startswith("-"):
        from gitstore.errors import InvalidInput

        raise InvalidInput(f"{variable} {value}: no such commit (a revision never begins with -)")
    return value


def range_of_change() -> tuple[str, str] | None:
    """(start, tip) of the range a run over a range judges (``PRE_COMMIT_FROM_REF`` and
    ``PRE_COMMIT_TO_REF``: at pre-push, or ``pre-commit run --from-ref --to-ref``), else None."""
    start, tip = revision_named("PRE_COMMIT_FROM_REF"), revision_named("PRE_COMMIT_TO_REF")
    if not start or not tip or ZERO in (start, tip):
        return None
    return start, tip


def pushed_whole() -> str | None:
    """The local ref a push sends with its whole history (the first push of a history the remote
    holds nothing of): pre-commit then runs the hooks on every file, named from the work tree,
    and sets no range, only the ref (``PRE_COMMIT_LOCAL_BRANCH``, and the remote only at
    pre-push). Its tree is what is pushed; None at any other run."""
    if os.environ.get("PRE_COMMIT_FROM_REF") or not os.environ.get("PRE_COMMIT_REMOTE_NAME"):
        return None
    local = revision_named("PRE_COMMIT_LOCAL_BRANCH")
    return local if local and local != ZERO else None


def on_the_remote(root: Path) -> list[str]:
    """``git rev-list`` arguments naming what the remote a push goes to holds, as far as this
    clone knows: its remote-tracking refs (``--remotes=NAME``, ``PRE_COMMIT_REMOTE_NAME``), and
    for a push by URL (``git push https://host/team/repo topic``, where git names the remote by
    its URL) those of every configured remote whose ``url`` or ``pushurl`` is that URL: git sends
    none of what the remote advertises, and without them its whole history was judged (minutes
    over a long one), a secret removed and pushed long ago refusing the push. Empty but at
    pre-push."""
    remote = os.environ.get("PRE_COMMIT_REMOTE_NAME")
    if not remote:
        return []
    names = [remote]
    urls = {remote, os.environ.get("PRE_COMMIT_REMOTE_URL") or remote}
    done = git("config", "-z", "--get-regexp", r"^remote\..*\.(push)?url$", cwd=root, check=False)
    for entry in done.stdout.split(b"\0"):
        key, _, value = entry.decode("utf-8", "surrogateescape").partition("\n")
        if value in urls:
            names.append(key[len("remote."):key.rindex(".")])
    return [f"--remotes={name}" for name in dict.fromkeys(names)]


def files_of_change(files: Sequence[str], root: Path, hook: str | None = None) -> list[str]:
    """The files a gate judges: those pre-commit passed and, in a run over a range, every file
    the range adds or changes (``git diff --name-only START...TIP``, as pre-commit lists them, a
    rename or a copy as the file it makes) that the work tree holds no file or link at. pre-commit
    drops such a name before handing the rest to a hook, yet the tip holds the file and the push
    sends it (a ``git rm`` or ``git mv`` staged and not committed). A file the work tree holds
    is judged only when pre-commit passed it, so a hook's ``exclude`` still counts, and a file
    the gate finds itself passes the filters pre-commit would have applied to it
    (``hook_filter``: the configuration's and the ``hook``'s ``files`` and ``exclude``). Names
    are paths from the repository's root, as pre-commit passes them (it runs hooks from there).
    A push of a whole history (``pushed_whole``) adds every file of the ref pushed that the work
    tree lacks."""
    span, whole = range_of_change(), pushed_whole()
    if span is None and whole is None:
        return list(files)
    if span is not None:
        start, tip = span
        listing: tuple[str, ...] = ("diff", "--name-only", "--no-ext-diff", "--no-renames", "--diff-filter=d", "-z")
        done = git(*listing, f"{start}...{tip}", cwd=root, check=False)
        if done.returncode != 0:  # no merge base (unrelated histories): the two trees compared
            done = git(*listing, start, tip, cwd=root, check=False)
        what = f"the range {start}..{tip} cannot be compared: no such commit"
    else:
        done = git("ls-tree", "-r", "-z", "--name-only", "--full-tree", str(whole), cwd=root, check=False)
        what = f"PRE_COMMIT_LOCAL_BRANCH {whole}: no such commit"
    if done.returncode != 0:
        from gitstore.errors import InvalidInput

        raise InvalidInput(what)
    found, here, extra = list(files), Path(os.getcwd()), []
    for path in done.stdout.split(b"\0"):
        if not path:
            continue
        name = path.decode("utf-8", "surrogateescape")
        where = os.path.join(root, name)
        if not os.path.islink(where) and not os.path.isfile(where):
            extra.append(name)
    taken = hook_filter(hook, root) if extra and hook else None
    found += [name if here == root else os.path.join(root, name) for name in extra if taken is None or taken(name)]
    return found


PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"  # pre-commit's default --config


def hook_filter(hook: str, root: Path) -> Callable[[str], bool] | None:
    """Whether pre-commit would pass a file (a path from the repository's root) to the gate
    ``hook`` (its id, or for a local hook the command its ``entry`` runs): the configuration's
    ``files`` and ``exclude``, then the hook's, as ``pre-commit run`` applies them before a hook
    sees a name, a hook repository's defaults being this gitstore's manifest (the hook runs from
    it). The configuration is the one the run uses: the ``--config`` of the pre-commit process
    that started the gate (at pre-push, the one ``pre-commit install`` wrote into the hook),
    read from the repository's root. None, and no file left out, when there is no such process,
    no such configuration or no such hook in it. Types are not judged: a file the work tree
    lacks has no type ``identify`` could tell, and every gate takes every file and link."""
    import re

    config = _run_config(root)
    if config is None:
        return None
    try:
        from ruamel.yaml import YAML

        with open(config, encoding="utf-8") as handle:
            data = YAML(typ="safe").load(handle)
        top = (re.compile(data.get("files") or ""), re.compile(data.get("exclude") or "^$"))
        hooks = [(re.compile(h.get("files", d.get("files")) or ""), re.compile(h.get("exclude", d.get("exclude")) or "^$"))
                 for h, d in _configured(data, hook)]
    except Exception:  # pre-commit itself refuses a configuration it cannot read or a pattern that is no regex
        return None
    if not hooks:
        return None
    return lambda name: (bool(top[0].search(name)) and not top[1].search(name)
                         and any(files.search(name) and not exclude.search(name) for files, exclude in hooks))


def _configured(data: dict[str, Any], hook: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each entry of the configuration that runs the gate ``hook``, with its defaults: a hook
    repository's entry named ``hook`` (its defaults, this gitstore's manifest), a local one
    named so or whose ``entry`` runs the command ``hook`` (no defaults)."""
    found = []
    for repo in data.get("repos") or []:
        local = repo.get("repo") == "local"
        for entry in repo.get("hooks") or []:
            command = os.path.basename(str(entry.get("entry") or "").split(" ", 1)[0])
            if entry.get("id") == hook or (local and command == hook):
                found.append((entry, {} if local else _manifest_hook(hook)))
    return found


def _manifest_hook(hook: str) -> dict[str, Any]:
    from gitstore.sync.hooks import manifest

    return next((h for h in manifest() if h["id"] == hook), {})


def _run_config(root: Path) -> Path | None:
    """The configuration file of the pre-commit run that started this gate: the nearest of its
    parent processes (a shell or wrapper may stand between) that is pre-commit."""
    pid = os.getppid()
    for _ in range(4):
        argv, parent = _process(pid)
        if argv is None:
            return None
        config = _config_argument(argv)
        if config is not None:
            if not config:
                return None
            path = Path(config) if os.path.isabs(config) else root / config  # pre-commit runs from the root
            return path if path.is_file() else None
        if parent is None or parent <= 1:
            return None
        pid = parent
    return None


def _config_argument(argv: Sequence[str]) -> str | None:
    """The ``--config`` of pre-commit's command line ``argv`` (its default when not given), or
    None when ``argv`` is not pre-commit's; empty for ``try-repo``, whose configuration is a
    temporary one of its own."""
    at = next((i for i, arg in enumerate(argv[:3]) if os.path.basename(arg) in ("pre-commit", "pre_commit")
               or arg in ("-mpre_commit", "pre_commit")), None)
    if at is None:
        return None
    if "try-repo" in argv[at + 1:at + 2]:
        return ""
    for i, arg in enumerate(argv[at + 1:], start=at + 1):
        if arg == "--":
            break
        if arg in ("-c", "--config") and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--config="):
            return arg[len("--config="):]
    return PRE_COMMIT_CONFIG


def _process(pid: int) -> tuple[list[str] | None, int | None]:
    """(command line, parent's id) of the process ``pid``: from /proc, else from ``ps``."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            argv = [a.decode("utf-8", "surrogateescape") for a in handle.read().split(b"\0") if a]
        with open(f"/proc/{pid}/stat", "rb") as handle:
            parent = int(handle.read().rsplit(b")", 1)[1].split()[1])
        return argv, parent
    except (OSError, ValueError, IndexError):
        pass
    import subprocess

    try:
        done = subprocess.run(["ps", "-o", "ppid=", "-o", "args=", "-p", str(pid)], capture_output=True, check=False)
    except OSError:
        return None, None
    fields = done.stdout.decode("utf-8", "surrogateescape").split()
    if done.returncode != 0 or len(fields) < 2 or not fields[0].isdigit():
        return None, None
    return fields[1:], int(fields[0])


def entries(root: Path, revision: str | None, paths: Sequence[str] | None = None,
            keep_index: bool = False) -> dict[str, tuple[str, str]] | None:
    """path -> (git mode, object id) of every file, link and submodule ``revision`` holds (a
    commit or a tree; None or empty: the index, the one being committed with ``keep_index``),
    under ``paths`` only when given; None when git cannot list them (no such revision)."""
    where = ("--", *paths) if paths is not None else ()
    command = ("ls-tree", "-r", "-z", "--full-tree", revision, *where) if revision else ("ls-files", "-s", "-z", *where)
    done = git("--literal-pathspecs", *command, cwd=root, keep_index=keep_index, check=False)
    if done.returncode != 0:
        return None
    found = {}
    for entry in done.stdout.split(b"\0"):
        meta, tab, path = entry.partition(b"\t")
        parts = meta.split()
        if not tab or len(parts) != 3 or (not revision and parts[2] != b"0"):  # ls-files: a conflict's stages
            continue
        found[path.decode("utf-8", "surrogateescape")] = (parts[0].decode(), parts[2 if revision else 1].decode())
    return found  # ls-tree: mode type id; ls-files: mode id stage


class CommittedFiles:
    """Some files as the change being judged holds them, never as the work tree does: at
    pre-push and in a run over a range, the tree of the range's tip (``PRE_COMMIT_TO_REF``); at
    a commit, the index git is committing (``GIT_INDEX_FILE``, which git sets for a commit's
    hooks). A commit made without the hooks and fixed in the work tree alone is pushed as it
    was committed, and a ``git commit -a`` or ``git commit PATH`` commits a temporary index.
    ``held`` is None for a run by hand (neither set): the work tree is the change then.
    Each file is one git mode and object id (``entry``), its bytes read on demand through one
    ``git cat-file --batch`` (``read``), so a gate holds one file at a time."""

    def __init__(self, root: Path, paths: Sequence[str]) -> None:
        self.root = root
        self.held: dict[str, tuple[str, str]] | None = None
        self._batch: subprocess.Popen[bytes] | None = None
        tip = self.tip()
        if not tip and not self.in_a_hook():
            return
        if not paths:
            self.held = {}
            return
        held = entries(root, tip, paths, keep_index=True)
        if held is None:
            from gitstore.errors import InvalidInput

            raise InvalidInput(f"PRE_COMMIT_TO_REF {tip}: no such commit" if tip else "the index cannot be read")
        self.held = held

    @staticmethod
    def tip() -> str | None:
        """The range's tip a run over a range judges (``PRE_COMMIT_TO_REF``), or the ref a push
    sends whole (``pushed_whole``), if any."""
        tip = revision_named("PRE_COMMIT_TO_REF")
        if tip and tip != ZERO:
            return tip
        return pushed_whole()

    @classmethod
    def in_a_hook(cls) -> bool:
        """Whether the change is in git, not in the work tree: a range's tip, or a commit's index."""
        return bool(cls.tip()) or "GIT_INDEX_FILE" in os.environ

    def entry(self, path: str) -> tuple[str, str] | None:
        """(git mode, object id) of ``path`` in the change; None when the change does not hold
        it (it is not committed, nor pushed)."""
        return self.held.get(path) if self.held is not None else None

    def read(self, oid: str) -> bytes:
        """The bytes of the blob ``oid``."""
        import subprocess

        if self._batch is None:
            self._batch = subprocess.Popen(["git", "cat-file", "--batch"], cwd=self.root, env=git_env(),
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self._batch.stdin is not None and self._batch.stdout is not None
        self._batch.stdin.write(f"{oid}\n".encode())
        self._batch.stdin.flush()
        header = self._batch.stdout.readline().split()
        if len(header) != 3:
            raise GitstoreError(f"git cat-file cannot read the object {oid}")
        data = self._batch.stdout.read(int(header[2]) + 1)
        return data[:-1]

    def close(self) -> None:
        if self._batch is not None:
            if self._batch.stdin is not None:
                self._batch.stdin.close()
            self._batch.wait()
            self._batch = None


def blob_id(data: bytes, length: int) -> str:
    """git's object id of a blob holding ``data`` (SHA-1, or SHA-256 for a 64-digit id)."""
    import hashlib

    digest = hashlib.sha256 if length == 64 else hashlib.sha1
    return digest(b"blob %d\0" % len(data) + data).hexdigest()


def tree_entries(root: Path, revision: str, paths: Sequence[str]) -> Callable[[], dict[str, str] | None]:
    """path -> blob id of the files under ``paths`` at ``revision``, None when there is no such
    revision (HEAD before the first commit): git starts at once, and the function returned
    waits for its answer, so a gate checks its files meanwhile."""
    answer = git_later("-C", os.fspath(root), "ls-tree", "-r", "-z", "--full-tree", revision, "--", *paths)
    return lambda: _entries(*answer())


def _entries(code: int, out: bytes) -> dict[str, str] | None:
    if code != 0:
        return None
    found = {}
    for entry in out.split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == b"blob":
            found[path.decode("utf-8", "surrogateescape")] = parts[2].decode()  # a name as the file system spells it
    return found


def blobs(root: Path, ids: Sequence[str]) -> dict[str, bytes]:
    """The contents of git objects (blobs, commits), read with one ``git cat-file --batch``."""
    if not ids:
        return {}
    done = git("cat-file", "--batch", cwd=root, data="".join(f"{i}\n" for i in ids).encode())
    out, found, at = done.stdout, {}, 0
    for oid in ids:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        size = int(header[2])
        found[oid] = out[end + 1:end + 1 + size]
        at = end + 1 + size + 1
    return found


_BASES: dict[Path, str] = {}  # a repository root -> its absolute path (the folder does not move)


def relative(path: str, root: Path) -> str:
    """A file named on the command line (relative to the current folder, as pre-commit passes
    them from the repository root), as a path from the repository root."""
    absolute = os.path.abspath(path)
    base = _BASES.get(root) or _BASES.setdefault(root, os.path.abspath(root))
    if absolute.startswith(base + os.sep):
        return absolute[len(base) + 1:].replace(os.sep, "/")
    real, real_base = os.path.realpath(path), os.path.realpath(root)
    if real.startswith(real_base + os.sep):
        return real[len(real_base) + 1:].replace(os.sep, "/")
    return Path(path).as_posix()


def not_regular(path: str, rel: str) -> Finding | None:
    """A finding when ``path`` is a symbolic link or anything else but a regular file: a page or
    skill is read as the file itself, and a link would have the gates read or skip another."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None  # gone: nothing to read
    if stat.S_ISREG(mode):
        return None
    what = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
    return Finding(rel, 1, f"{what}: pages and skills must be regular files of the repository")


def read_store(root: Path) -> Store:
    """The repository's store, for reading: this clone's configuration when ``gitstore init``
    ran here, else the git provider over whatever memory refs the clone holds (a CI checkout).
    Such a checkout is no one's clone, whatever names its refs were fetched under (a mirror
    fetch puts every writer's refs where a clone keeps its own): no decision in it is its own,
    so it counts decisions only under the team's policy, signed by someone it lets decide. So
    is a checkout whose config.json a commit brought: its writer is whoever committed it."""
    from gitstore.config import CONFIG_NAME, STATE_DIR
    from gitstore.context import Context
    from gitstore.errors import ForeignConfig
    from gitstore.providers.git import GitProvider
    from gitstore.scope import Scope, declared_former, open_repository, repository_scope
    from gitstore.store import Store

    if (root / STATE_DIR / CONFIG_NAME).is_file():
        try:
            return Context.open(str(root)).store
        except ForeignConfig:
            pass
    repo = open_repository(root)
    scope = repository_scope(repo)
    return Store(GitProvider(root, "gate", owns_refs=False), Scope(scope, declared_former(repo, scope)[0]))


def in_parallel(items: Sequence[str], work: Callable[[Sequence[str]], list], rebuild: Callable[[list], object],
                *, by_bytes: bool = False, weights: Callable[[Sequence[str]], Sequence[int]] | None = None) -> list:
    """``work`` over the items, split across workers forked after the gate's imports when there
    are many items and several cores: a gate runs as one process (``require_serial``), so its
    start-up is paid once and its whole-repository checks run once. Each worker gets a run of
    the items in their order: as many items each, or with ``by_bytes`` (items that are files
    of any size, from the current folder) or ``weights`` (the bytes of each item, asked only
    when the items are split) about as many bytes each (``_shares``). Each
    worker's rows come back as JSON and are made whole again by ``rebuild``; a worker that
    fails has its share done here."""
    workers = min(os.cpu_count() or 1, 4, len(items) // max(PARALLEL_FROM // 2, 1) or 1)
    if workers < 2 or len(items) < PARALLEL_FROM or not hasattr(os, "fork"):
        return work(items)
    if weights is not None:
        chunks = _shares(items, workers, weights(items))
    else:
        chunks = _shares(items, workers) if by_bytes else _even(items, workers)
    children = [_fork(work, chunk) for chunk in chunks[1:]]
    rows = work(chunks[0])
    for (pid, read_end), chunk in zip(children, chunks[1:]):
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
        if status == 0 and data:
            rows += [rebuild(row) for row in _jsontext.loads(data)]
        else:
            rows += work(chunk)
    return rows


def _shares(items: Sequence[str], workers: int, weights: Sequence[int] | None = None) -> list[Sequence[str]]:
    """``items`` cut into ``workers`` runs in their order, each about as many bytes as the next
    (each item a file's path from the current folder, one that cannot be read weighing nothing;
    or each as many bytes as ``weights`` says):
    a scan's work grows with the bytes it reads, and the last worker to finish decides when the
    gate does (over the bench's wiki and skills, count-even halves took 63 and 75 ms). Where none
    can be read, as many items each."""
    sizes = list(weights) if weights is not None else []
    for item in items if weights is None else ():
        try:
            sizes.append(os.lstat(item).st_size)
        except (OSError, ValueError):
            sizes.append(0)
    total = sum(sizes)
    if not total:
        return _even(items, workers)
    cuts, seen, share = [0], 0, 1  # each run ends at the item boundary nearest its share of the bytes
    for i, weight in enumerate(sizes):
        before, seen = seen, seen + weight
        while share < workers and seen * workers >= total * share:
            target = total * share / workers
            cuts.append(i if target - before < seen - target else i + 1)
            share += 1
    cuts.append(len(items))
    return [items[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]


def _even(items: Sequence[str], workers: int) -> list[Sequence[str]]:
    """``items`` cut into runs in their order, as many items each (the last may hold fewer)."""
    size = -(-len(items) // workers)
    return [items[i:i + size] for i in range(0, len(items), size)]


def _fork(work: Callable[[Sequence[str]], list], chunk: Sequence[str]) -> tuple[int, int]:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: its rows go to the pipe, then it leaves without cleanup
        os.close(read_end)
        code = 0
        try:
            import json

            data = json.dumps(work(chunk)).encode()
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(data)
        except BaseException:
            code = 1
        os._exit(code)
    os.close(write_end)
    return pid, read_end
