"""Install, remove and check gitstore's hooks (capture and context) in each harness's own configuration.

Installing merges one entry into the harness's file and leaves everything else as it was:
other settings, other hooks, their order, layout and comments. It is idempotent (a second
install writes nothing), marks the entry as gitstore's so uninstalling removes exactly it, and
refuses a file it cannot parse, leaving it untouched. Uninstalling what install added gives the
original bytes back; a file install created is removed again, with the folders it made for it
(``gitstore.capture.undo`` keeps what install changed). A file changed since install keeps
everything but gitstore's entry, and is never removed.

The entries run ``<python> -m gitstore.capture.agent_hook <harness>`` (capture) and ``<python> -m
gitstore.deliver.hook <harness>`` (context: accepted learnings for the agent) with the
interpreter gitstore runs in, so they keep working when gitstore is installed from a wheel
(nothing points into a source tree).

A hook captures only in repositories gitstore is set up in. Installing into a repository's own
settings (project scope) sets gitstore up there first when it is not; ``status`` never calls a
hook working when it would capture nothing.

``status`` dry-runs a hook's command, but a settings file can come with a clone, naming any
program next to ``-m gitstore.capture.agent_hook``. So the dry run starts only gitstore's own hook
modules, and only with the interpreter gitstore runs in or one ``hooks install`` wrote into that
very file (the ledger says so), never a relative path or one inside the work tree; any other
interpreter is checked for being an executable file and reported as not checked.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

from gitstore._files import leads_out
from gitstore.capture import undo
from gitstore.capture.harnesses import HARNESSES, Harness, HookCommand, python_of
from gitstore.capture.harnesses._command import CONTEXT_MODULE, MODULE, module_of
from gitstore.capture.switched import read_config as _read
from gitstore.config import CONFIG_NAME, STATE_DIR
from gitstore.errors import GitstoreError, InvalidInput, Refused, UsageError

SCOPES = ("project", "user")
CHECK_SECONDS = 20.0
HOOK_MODULES = (MODULE, CONTEXT_MODULE)
NOT_CHECKED = "not checked: "


class Report(NamedTuple):
    """What install or uninstall did to one harness's configuration."""

    harness: str
    scope: str
    path: Path
    action: str  # installed, updated, unchanged, removed, absent
    notes: tuple[str, ...] = ()
    next: tuple[str, ...] = ()  # what the user still has to do in the harness before the hook runs

    def to_json(self) -> dict[str, Any]:
        return {"harness": self.harness, "scope": self.scope, "path": str(self.path),
                "action": self.action, "notes": list(self.notes), "next": list(self.next)}


class HookStatus(NamedTuple):
    """Whether gitstore's hook is in one harness's configuration, and whether it would run."""

    harness: str
    scope: str
    path: Path
    installed: bool
    commands: tuple[str, ...] = ()
    works: bool | None = None  # None when not installed, or when its interpreter was not dry-run
    problems: tuple[str, ...] = ()
    todo: tuple[str, ...] = ()  # what fixes the problems, each once, in their order
    # that the harness's latest capture here stored no session, and why (``gitstore.capture.outcomes``)
    stored_nothing: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"harness": self.harness, "scope": self.scope, "path": str(self.path),
                "installed": self.installed, "commands": list(self.commands), "works": self.works,
                "problems": list(self.problems), "todo": list(self.todo), "storedNothing": self.stored_nothing}


def harness_named(name: str) -> Harness:
    try:
        return HARNESSES[name]
    except KeyError:
        raise UsageError(f"unknown harness {name!r} (one of {', '.join(HARNESSES)})") from None


def _target(harness: Harness, scope: str, repo_root: Path | None, home: Path) -> Path:
    if scope not in SCOPES:
        raise UsageError(f"unknown scope {scope!r} (one of {', '.join(SCOPES)})")
    if scope not in harness.scopes:
        raise UsageError(f"{harness.name} has no {scope} scope: {harness.refusals.get(scope, 'not offered')}")
    path = harness.path(scope, repo_root, home)
    if scope == "project" and repo_root is not None and path.is_relative_to(repo_root):
        link = leads_out(repo_root, path)
        if link is not None:  # a commit can make .claude a link to ~/.claude: the project's entry would go there
            raise Refused(f"{link.relative_to(repo_root).as_posix()} is a link to {os.readlink(link)}, outside the "
                          "repository; the project's hooks live in its own files, never through a link leading "
                          "out: make it a file (or folder) of its own; left untouched")
    return path


def install(harness: str, scope: str, repo_root: Path | None, home: Path, *,
            python: str | None = None) -> Report:
    """Merge gitstore's hook into the harness's configuration for ``scope`` (one install or
    uninstall at a time: ``undo.one_at_a_time``)."""
    adapter = harness_named(harness)
    path = _target(adapter, scope, repo_root, home)
    if not home.is_dir():  # the user scope's files and the undo ledger live there: never made up
        raise Refused(f"the home folder {home} does not exist (HOME names it): set HOME to yours; nothing was installed")
    with undo.one_at_a_time(home):
        return _install(adapter, scope, repo_root, home, path, python)


def _install(adapter: Harness, scope: str, repo_root: Path | None, home: Path, path: Path,
             python: str | None) -> Report:
    current = _read(path)
    hook = HookCommand(os.path.abspath(python or sys.executable), adapter.harness)
    new = _in_file(path, lambda: adapter.merged(current, hook))
    notes = tuple(_in_file(path, lambda: adapter.notes(new))) + _switched_off(adapter, repo_root, home, path)
    set_up_now = _set_up(scope, repo_root)
    notes += set_up_now
    unloaded = adapter.unloaded(scope, repo_root, home)
    notes += (f"{unloaded[0]}: {unloaded[1]}",) if unloaded else ()
    todo = (adapter.review[1],) if adapter.review else ()
    if new == current:
        return Report(adapter.name, scope, path, "unchanged", _kept_out(scope, repo_root, path) + notes, todo)
    previous = _previous(adapter, home, path, current)
    try:  # first: a file written, uninstalling must be able to give the original back
        kept = undo.remember(home, adapter.name, path, previous, new, hook.python)
    except OSError as exc:
        raise Refused(f"cannot record the install in {home / undo.LEDGER} ({exc.strerror or exc}), which "
                      f"`gitstore hooks uninstall` needs to give {path} back: the hook was not installed"
                      + "".join(f" ({done})" for done in set_up_now)) from None
    try:
        _write(path, new)
    except BaseException:
        undo.put_back(home, kept)  # nothing was written: the ledger records nothing either
        raise
    return Report(adapter.name, scope, path, "installed" if current is None else "updated",
                  _kept_out(scope, repo_root, path) + notes, todo)


def _previous(adapter: Harness, home: Path, path: Path, current: str | None) -> undo.Before | None:
    """What uninstalling should give back: no file (and the folders about to be made for it), the
    text before the first install, or None when the file holds gitstore's entry from an install
    whose original is not known."""
    if current is None:
        return undo.Before(None, tuple(_missing_folders(path)))
    known = undo.before(home, adapter.name, path, current)
    if known is not None:
        return known
    return None if adapter.commands(current) else undo.Before(current, ())


def _missing_folders(path: Path) -> list[Path]:
    folder, missing = Path(os.path.realpath(path)).parent, []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return missing


def set_up(repo_root: Path) -> bool:
    """Whether gitstore is set up in the repository (a hook captures there)."""
    return (repo_root / STATE_DIR / CONFIG_NAME).is_file()


NOT_SET_UP = "gitstore is not set up in this repository: nothing is captured here until `gitstore init` runs"
SWITCHED_ON = ("if hooks should run here, remove the setting that switches them off ({where}); "
               "`gitstore hooks install` never overrides it")


def _set_up(scope: str, repo_root: Path | None) -> tuple[str, ...]:
    """A project-scope hook sets gitstore up in its repository; a user-scope one says when the
    repository it was installed from captures nothing yet."""
    if repo_root is None or set_up(repo_root):
        return ()
    if scope != "project":
        return (NOT_SET_UP,)
    from gitstore.ops.setup import init

    report = init(repo_root)
    return (f"set gitstore up in {report.root} (writer {report.writer}), as `gitstore init` does",)


def _switched_off(adapter: Harness, repo_root: Path | None, home: Path, path: Path) -> tuple[str, ...]:
    """The harness's settings switch its hooks off from another file than PATH (whose own notes
    say so already)."""
    off = adapter.switched_off(repo_root, home)
    return (f"hooks are switched off ({off})",) if off and not off.endswith(f" in {path}") else ()


EXCLUDE_NOTE = "# gitstore: a harness's hook settings naming this machine's Python, never committed"


def _kept_out(scope: str, repo_root: Path | None, path: Path) -> tuple[str, ...]:
    """A project file carrying this machine's interpreter path is kept out of commits: git is
    told to ignore it in .git/info/exclude (this clone's own, never the tracked .gitignore),
    unless git ignores it already. One git tracks stays tracked (its other settings may be the
    team's): that, and a ``!`` rule that keeps it from being ignored, are named instead."""
    if scope != "project" or repo_root is None:
        return ()
    import pygit2

    from gitstore.scope import _git_folder

    try:
        relative = path.relative_to(repo_root).as_posix()
        repo = pygit2.Repository(str(repo_root))
        if repo.path_is_ignored(relative):
            return ()
        tracked = relative in repo.index
    except (ValueError, pygit2.GitError):
        return ()
    machine = "its hook names a Python on this machine: other clones run their own `gitstore hooks install`"
    if tracked:
        return (f"{relative} is tracked by git, and {machine}; a commit of it shares this machine's path",)
    exclude = _git_folder(repo) / "info" / "exclude"
    rule = "/" + relative
    try:
        existing = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
        if rule not in existing.splitlines():
            exclude.parent.mkdir(parents=True, exist_ok=True)
            with exclude.open("a", encoding="utf-8") as out:
                out.write(("\n" if existing and not existing.endswith("\n") else "") + f"{EXCLUDE_NOTE}\n{rule}\n")
        ignored = pygit2.Repository(str(repo_root)).path_is_ignored(relative)
    except (OSError, UnicodeDecodeError, pygit2.GitError) as exc:
        return (f"{relative} is not ignored by git, and {machine}; could not add {rule} to {exclude} ({exc})",)
    if not ignored:
        return (f"{relative} is not ignored by git even with {rule} in {exclude} (a `!` rule keeps it), and "
                f"{machine}",)
    return (f"{relative} names a Python on this machine: git ignores it through {rule} in {exclude} "
            "(this clone's own ignore rules); other clones run their own `gitstore hooks install`",)


def uninstall(harness: str, scope: str, repo_root: Path | None, home: Path) -> Report:
    """Take gitstore's hook out of the harness's configuration for ``scope``."""
    adapter = harness_named(harness)
    path = _target(adapter, scope, repo_root, home)
    with undo.one_at_a_time(home):
        return _uninstall(adapter, scope, repo_root, home, path)


def _uninstall(adapter: Harness, scope: str, repo_root: Path | None, home: Path, path: Path) -> Report:
    current = _read(path)
    previous = None if current is None else undo.before(home, adapter.name, path, current)
    made = undo.created(home, path)
    new = None if current is None else (
        previous.text if previous is not None else _in_file(path, lambda: adapter.stripped(current)))
    if current is None or new == current:
        return Report(adapter.name, scope, path, "absent", _forgotten(home, adapter.name, path))
    if previous is None and made is not None and new == _nothing(adapter):
        new = None  # install created the file, and stripping the last entry leaves nothing in it
    if new is None:  # install created the file: where a link (the user's dotfiles) leads, the link kept
        Path(os.path.realpath(path)).unlink()
        _prune(previous.folders if previous is not None else made or ())
    else:
        _write(path, new)
    # last: a file that could not be written keeps what gives its original back
    return Report(adapter.name, scope, path, "removed", _forgotten(home, adapter.name, path))


def _forgotten(home: Path, harness: str, path: Path) -> tuple[str, ...]:
    """Forget the install of ``path`` in the undo ledger, once its file is as uninstall leaves it;
    a ledger that cannot be written is said (its entry gives nothing back any more: the file
    holds no hook of gitstore's)."""
    try:
        undo.forget(home, harness, path)
    except OSError as exc:
        return (f"could not update {home / undo.LEDGER} ({exc.strerror or exc}): its entry for {path} stays, "
                "harmless (the file holds no gitstore hook now)",)
    return ()


def _nothing(adapter: Harness) -> str | None:
    """What stripping gitstore's entries leaves of a file install created for the harness alone."""
    return adapter.stripped(adapter.merged(None, HookCommand(os.path.abspath(sys.executable), adapter.harness)))


def status(repo_root: Path | None, home: Path, *, check: bool = True) -> list[HookStatus]:
    """For every harness and scope (project ones only inside a repository): is it installed, works it."""
    results = []
    checked: dict[str, str | None] = {}
    for adapter in HARNESSES.values():
        for scope in adapter.scopes:
            if scope == "project" and repo_root is None:
                continue
            results.append(_status_of(adapter, scope, repo_root, home, checked if check else None))
    return results


def _status_of(adapter: Harness, scope: str, repo_root: Path | None, home: Path,
               checked: dict[str, str | None] | None) -> HookStatus:
    path = adapter.path(scope, repo_root, home)
    try:
        current = _read(path)
        if current is None:
            return HookStatus(adapter.name, scope, path, False)
        commands = adapter.commands(current)
        notes = adapter.notes(current)
    except InvalidInput as exc:
        return HookStatus(adapter.name, scope, path, False, works=False, problems=(f"cannot parse: {exc}",),
                          todo=(f"repair {path} by hand (gitstore leaves a file it cannot parse untouched)",))
    if not commands:
        return HookStatus(adapter.name, scope, path, False)
    shown = tuple(c if isinstance(c, str) else " ".join(c) for c in commands)
    why = adapter.switched_off(repo_root, home)
    here = why if why and why.endswith(f" in {path}") else str(path)
    found = [(note, SWITCHED_ON.format(where=here)) for note in notes]
    found += [(off, SWITCHED_ON.format(where=why)) for off in _switched_off(adapter, repo_root, home, path)]
    written = undo.interpreter(home, adapter.name, path, current)
    unloaded = adapter.unloaded(scope, repo_root, home)
    if unloaded and written is None:
        unloaded = (unloaded[0], _read_first(path, unloaded[1]))
    found += [unloaded] if unloaded else []
    altered = adapter.altered(current)
    if altered:
        found.append((altered, f"gitstore hooks install --harness {adapter.name} --scope {scope}"))
    if repo_root is not None and not set_up(repo_root):
        found.append((NOT_SET_UP, "gitstore init"))
    reinstall = f"gitstore hooks install --harness {adapter.name} --scope {scope}"
    for command in commands:
        problem = _problem_of(python_of(command), module_of(command), checked, repo_root, written)
        found += [(problem, reinstall)] if problem else []
    found += [adapter.review] if adapter.review else []
    problems = tuple(dict.fromkeys(problem for problem, _ in found))
    todo = tuple(dict.fromkeys(fix for _, fix in found))
    unproven = (NOT_CHECKED, *([adapter.review[0]] if adapter.review else []))
    works = None if problems and all(p.startswith(unproven) for p in problems) else not problems
    return HookStatus(adapter.name, scope, path, True, shown, works, problems, todo)


def _read_first(path: Path, trust: str) -> str:
    """The advice to trust a folder, for settings ``hooks install`` did not write (a clone
    committed them, or they were changed since): trusting the folder runs every hook and setting
    in the file, not only gitstore's, so the file is read first."""
    return (f"{path} was not written by this user's `gitstore hooks install` (a clone may have committed it): "
            f"read all of it before you {trust}")


def _problem_of(python: str | None, module: str | None, checked: dict[str, str | None] | None,
                repo_root: Path | None, written: str | None) -> str | None:
    """Why the installed command would not run (or was not checked), or None when it would."""
    if not python:
        return "the command names no program"
    if module not in HOOK_MODULES:
        return f"it runs {module or 'no module'}, not a hook of gitstore's ({' or '.join(HOOK_MODULES)})"
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        return f"{python} is not an executable file"
    if checked is None:
        return None
    why = _unchecked(python, repo_root, written)
    if why:
        return NOT_CHECKED + why
    key = f"{python}\0{module}"
    if key not in checked:
        checked[key] = dry_run(python, module)
    return checked[key]


def _unchecked(python: str, repo_root: Path | None, written: str | None) -> str | None:
    """Why the dry run must not start PYTHON (None when it may). The file naming it can come with
    a clone: only the interpreter gitstore runs in, or the one ``hooks install`` wrote into this
    very file (``written``), is started, and never one from the work tree (a committed link to
    the system Python, next to a committed ``pyvenv.cfg``, would run the repository's own code)."""
    running = os.path.abspath(sys.executable)
    if not os.path.isabs(python):
        return f"{python} is a relative path, which a clone's settings can point at a program of its own"
    if python == running:
        return None  # the very program running this check
    if repo_root is not None and _inside(Path(python), repo_root):
        return f"{python} is inside the work tree, where a clone can put any program"
    if python == written or _same_file(python, running):
        return None
    return f"{python} is neither the Python gitstore runs in nor one `gitstore hooks install` wrote into this file"


def _inside(path: Path, repo_root: Path) -> bool:
    root = Path(os.path.realpath(repo_root))
    return any(p.is_relative_to(root) or p.is_relative_to(repo_root)
               for p in (Path(os.path.abspath(path)), Path(os.path.realpath(path))))


def _same_file(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def dry_run(python: str, module: str = MODULE) -> str | None:
    """Run ``python -m <module> --check`` (the capture or the context hook): None when it is ready."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    try:
        done = subprocess.run([python, "-P", "-m", module, "--check"], capture_output=True, text=True,
                              timeout=CHECK_SECONDS, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"the dry run took longer than {CHECK_SECONDS:g} s"
    except OSError as exc:
        return f"cannot run {python}: {exc.strerror}"
    if done.returncode == 0:
        return None
    lines = done.stderr.strip().splitlines()
    return lines[-1].removeprefix(f"{module}: ") if lines else f"the dry run exited with {done.returncode}"


# -- files ----------------------------------------------------------------------------------

def _in_file(path: Path, action: Any) -> Any:
    """Run an adapter step; its refusals name the file and say it was left as it was."""
    try:
        return action()
    except UsageError:
        raise
    except GitstoreError as exc:
        raise type(exc)(f"{path}: {exc}; left untouched") from None


def _write(path: Path, text: str) -> None:
    """Replace the file atomically, through a symbolic link if it is one, keeping its mode."""
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask()
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".gitstore", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(text.encode("utf-8"))
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _prune(folders: tuple[Path, ...]) -> None:
    """Remove the folders install made for a file it created, deepest first, while empty."""
    for folder in sorted(folders, key=lambda f: len(f.parts), reverse=True):
        try:
            folder.rmdir()
        except OSError:
            return
