"""The refs a push sends besides the one pre-commit hands the gates.

git gives a pre-push hook every ref it pushes, one line each on standard input; pre-commit reads
them all and runs the hooks on the first with commits the remote lacks (``PRE_COMMIT_FROM_REF``,
``PRE_COMMIT_TO_REF``, ``PRE_COMMIT_LOCAL_BRANCH``), so ``git push origin a b``, ``--all``,
``--tags`` or ``--mirror`` sent every other ref unjudged. Standard input is gone by the time a
gate runs; the command line of the ``git push`` that started the hook is not: a gate at pre-push
reads it (the nearest ``git`` among its parent processes, past pre-commit), works out the refs
it names from the repository (each refspec's source, ``--all``, ``--tags``, ``--mirror``, and,
with none, the remote's ``push`` refspecs or ``push.default=matching``), and runs itself again
once for each other ref with commits the remote lacks, over the range pre-commit would have
given it. A ``git push`` of one ref (the common case: ``git push``, ``git push -u origin topic``)
costs nothing more. A command line that cannot be read as ``git push`` (an option this reader
does not know) has every local branch and tag with commits the remote lacks judged: the push
may send any of them. Where no ``git`` process is found among the parents (no ``/proc`` and no
``ps``), the first ref alone is judged, as pre-commit does.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from gitstore.promote.gates._common import _process, git, hook_filter, on_the_remote, top_level

AGAIN = "GITSTORE_GATE_PUSHED_REF"  # set for a gate run again for another ref: it looks no further
_RANGE = ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "PRE_COMMIT_ORIGIN", "PRE_COMMIT_SOURCE")
_UNKNOWN = object()

# git's options that take their value as the next argument, before the command and after ``push``
_GLOBAL_VALUED = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}
# ``git push``'s long options (git 2.39 to 2.47): name -> whether it takes a value (True: required,
# possibly as the next argument; None: optional, only after ``=``; False: none)
_PUSH_LONG: dict[str, bool | None] = {
    "verbose": False, "quiet": False, "repo": True, "all": False, "branches": False, "mirror": False,
    "delete": False, "tags": False, "dry-run": False, "porcelain": False, "force": False,
    "force-with-lease": None, "force-if-includes": False, "recurse-submodules": True, "thin": False,
    "receive-pack": True, "exec": True, "set-upstream": False, "progress": False, "prune": False,
    "no-verify": False, "verify": False, "follow-tags": False, "signed": None, "atomic": False,
    "push-option": True, "ipv4": False, "ipv6": False,
}
_PUSH_SHORT_VALUED = {"o"}
_PUSH_SHORT = set("vqdnfu46")


class Pushed(NamedTuple):
    """A ref the push sends (its name as the command line or git gives it) and its commit."""

    name: str
    commit: str


class Push(NamedTuple):
    """What a ``git push`` command line asks for."""

    refspecs: list[str]
    all: bool = False
    tags: bool = False
    mirror: bool = False
    delete: bool = False


def read_push(argv: Sequence[str]) -> Push | None | object:
    """The push ``argv`` (a ``git`` process's command line) asks for; None when it is no ``git
    push``; ``_UNKNOWN`` when it is one this reader cannot follow (an option it does not know)."""
    if not argv or os.path.basename(argv[0]) not in ("git", "git.exe"):
        return None
    at = 1
    while at < len(argv) and argv[at].startswith("-"):  # git's own options, before the command
        at += 2 if argv[at] in _GLOBAL_VALUED else 1
    if at >= len(argv):
        return None
    command, rest = argv[at], list(argv[at + 1:])
    if command != "push":
        alias = git("config", "--get", f"alias.{command}", check=False).stdout.decode("utf-8", "replace").split()
        if not alias or alias[0] != "push":
            return None
        rest = alias[1:] + rest
    return _push_arguments(rest)


def _push_arguments(args: list[str]) -> Push | object:
    flags: dict[str, bool] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            positional += args[i:]
            break
        if arg.startswith("--"):
            name, eq, _ = arg[2:].partition("=")
            known = _long_option(name)
            if known is None:
                return _UNKNOWN
            if _PUSH_LONG.get(known) is True and not eq:  # its value is the next argument
                i += 1
            flags[known] = True
            continue
        if arg.startswith("-") and arg != "-":
            for j, letter in enumerate(arg[1:], start=1):
                if letter in _PUSH_SHORT_VALUED:
                    if j == len(arg) - 1:
                        i += 1
                    break
                if letter not in _PUSH_SHORT:
                    return _UNKNOWN
                if letter == "d":
                    flags["delete"] = True
            continue
        positional.append(arg)
    refspecs = positional[1:]  # the first is the repository (``--repo`` only stands in for a missing one)
    spelled = []
    k = 0
    while k < len(refspecs):  # ``tag NAME`` is ``refs/tags/NAME:refs/tags/NAME``
        if refspecs[k] == "tag" and k + 1 < len(refspecs):
            spelled.append(f"refs/tags/{refspecs[k + 1]}")
            k += 2
            continue
        spelled.append(refspecs[k])
        k += 1
    return Push(spelled, all=flags.get("all", False) or flags.get("branches", False),
                tags=flags.get("tags", False), mirror=flags.get("mirror", False), delete=flags.get("delete", False))


def _long_option(name: str) -> str | None:
    """The long option ``name`` spells, git accepting any unambiguous beginning of one."""
    names = list(_PUSH_LONG) + [f"no-{n}" for n in _PUSH_LONG if n not in ("no-verify", "verify")]
    if name in names:
        return name
    found = [n for n in names if n.startswith(name)] if name else []
    return found[0] if len(found) == 1 else None


def _git_push(limit: int = 8) -> list[str] | None:
    """The command line of the ``git`` process among this gate's parents (the push that runs the
    hook: pre-commit's hook script is its child), None when none is found."""
    pid = os.getppid()
    for _ in range(limit):
        argv, parent = _process(pid)
        if argv is None:
            return None
        if argv and os.path.basename(argv[0]) in ("git", "git.exe"):
            return argv
        if parent is None or parent <= 1:
            return None
        pid = parent
    return None


def _refs(root: Path) -> list[tuple[str, str]]:
    """(name, commit) of every local ref naming a commit, a tag peeled to its commit."""
    done = git("for-each-ref", "--format=%(refname)%00%(objectname)%00%(objecttype)%00%(*objectname)%00%(*objecttype)",
               cwd=root, check=False)
    found = []
    for line in done.stdout.decode("utf-8", "surrogateescape").splitlines():
        name, oid, kind, peeled, peeled_kind = (line.split("\0") + [""] * 5)[:5]
        if kind == "commit":
            found.append((name, oid))
        elif kind == "tag" and peeled_kind == "commit":
            found.append((name, peeled))
    return found


def _commit_of(root: Path, source: str) -> str | None:
    if not source or source.startswith("-"):
        return None
    done = git("rev-parse", "--verify", "--quiet", f"{source}^{{commit}}", cwd=root, check=False)
    return done.stdout.decode().strip() if done.returncode == 0 else None


def _sources(root: Path, refspecs: Sequence[str], refs: Callable[[], list[tuple[str, str]]]) -> list[Pushed]:
    found = []
    for spec in refspecs:
        spec = spec.removeprefix("+")
        if spec.startswith("^"):  # a negative refspec sends nothing
            continue
        source = spec.split(":", 1)[0]
        if "*" in source:
            head, _, tail = source.partition("*")
            pattern = re.compile(re.escape(head) + ".*" + re.escape(tail) + r"\Z")
            found += [Pushed(name, oid) for name, oid in refs() if pattern.match(name)]
            continue
        commit = _commit_of(root, source)
        if commit is not None:
            found.append(Pushed(source, commit))
    return found


def _config(root: Path, *args: str) -> list[str]:
    return git("config", *args, cwd=root, check=False).stdout.decode("utf-8", "replace").split()


def pushed_refs(root: Path, push: Push | object, remote: str) -> list[Pushed]:
    """The refs the push sends (those it deletes send nothing), as far as git's command line and
    the repository tell; every local branch and tag for a command line not understood. Empty
    for a push of one ref by name, which is pre-commit's (no git asked)."""
    listed: list[list[tuple[str, str]]] = []

    def refs() -> list[tuple[str, str]]:  # memory's are the records gate's, never project commits
        if not listed:
            listed.append([(name, oid) for name, oid in _refs(root) if not name.startswith("refs/memory/")])
        return listed[0]

    if not isinstance(push, Push):
        return [Pushed(n, o) for n, o in refs() if n.startswith(("refs/heads/", "refs/tags/"))]
    if push.delete or (len(push.refspecs) == 1 and "*" not in push.refspecs[0] and not (push.all or push.tags
                                                                                       or push.mirror)):
        return []
    if push.mirror or (not push.refspecs and not push.all and not push.tags
                       and _config(root, "--get", f"remote.{remote}.mirror") == ["true"]):
        return [Pushed(n, o) for n, o in refs()]
    found = _sources(root, push.refspecs, refs)
    if push.all:
        found += [Pushed(n, o) for n, o in refs() if n.startswith("refs/heads/")]
    if push.tags:
        found += [Pushed(n, o) for n, o in refs() if n.startswith("refs/tags/")]
    if push.refspecs or push.all or push.tags:
        return found
    configured = _config(root, "--get-all", f"remote.{remote}.push")
    if configured:
        return _sources(root, configured, refs)
    if _config(root, "--get", "push.default") == ["matching"]:  # the branches the remote holds by that name
        tracking = f"refs/remotes/{remote}/"
        held = {n[len(tracking):] for n, _ in refs() if n.startswith(tracking)}
        return [Pushed(n, o) for n, o in refs() if n.startswith("refs/heads/") and n[len("refs/heads/"):] in held]
    return []  # the current branch alone: pre-commit's


def _unsent(root: Path, commits: set[str], held: Sequence[str]) -> set[str]:
    """Those of ``commits`` the remote's refs (``held``: ``on_the_remote``) do not reach, asked of
    git once (``--all`` of a hundred branches the remote holds costs one call, not a hundred)."""
    if not commits:
        return set()
    done = git("rev-list", "--no-walk", "--stdin", "--not", *held, cwd=root, check=False,
               data="".join(f"{c}\n" for c in sorted(commits)).encode())
    if done.returncode != 0:
        return commits
    return set(done.stdout.decode().split()) & commits


def _range(root: Path, commit: str, held: Sequence[str]) -> tuple[str | None, bool] | None:
    """What pre-commit gives the hooks for a ref at ``commit`` whose commits the remote may lack:
    (the parent of the first commit the remote's refs do not reach, False), or (None, True) when
    that first commit is a root (the push sends the whole history), or None when the remote's
    refs reach every commit (nothing new is sent)."""
    done = git("rev-list", commit, "--topo-order", "--reverse", "--not", *held, cwd=root, check=False)
    first = done.stdout.split(b"\n", 1)[0].decode().strip()
    if done.returncode != 0 or not first:
        return None
    parent = git("rev-parse", "--verify", "--quiet", f"{first}^", cwd=root, check=False)
    if parent.returncode != 0:
        return None, True
    return parent.stdout.decode().strip(), False


def _files(root: Path, start: str | None, tip: str, hook: str) -> list[str]:
    """The names pre-commit would pass the gate ``hook`` for the range (the whole tree when
    ``start`` is None): changed there, held by the work tree, through the configuration's and
    the hook's ``files`` and ``exclude``."""
    if start is None:
        done = git("ls-tree", "-r", "-z", "--name-only", "--full-tree", tip, cwd=root, check=False)
    else:
        listing = ("diff", "--name-only", "--no-ext-diff", "-z")
        done = git(*listing, f"{start}...{tip}", cwd=root, check=False)
        if done.returncode != 0:
            done = git(*listing, start, tip, cwd=root, check=False)
    names = [n.decode("utf-8", "surrogateescape") for n in done.stdout.split(b"\0") if n]
    taken = hook_filter(hook, root)
    return [n for n in names if os.path.lexists(os.path.join(root, n)) and (taken is None or taken(n))]


def others(root: Path) -> list[tuple[str, dict[str, str]]]:
    """For each other ref this push sends with commits the remote lacks: its name and the
    environment a gate runs with for it, as pre-commit would have set it. Empty but at pre-push."""
    remote = os.environ.get("PRE_COMMIT_REMOTE_NAME")
    if not remote or os.environ.get(AGAIN):
        return []
    argv = _git_push()
    if argv is None:
        return []
    push = read_push(argv)
    if push is None:
        return []
    pushed = pushed_refs(root, push, remote)
    if not pushed:
        return []
    judged = _commit_of(root, os.environ.get("PRE_COMMIT_TO_REF") or os.environ.get("PRE_COMMIT_LOCAL_BRANCH", ""))
    seen = {judged}
    held = on_the_remote(root)
    new = _unsent(root, {ref.commit for ref in pushed} - seen, held)
    found = []
    for ref in pushed:
        if ref.commit in seen or ref.commit not in new:
            continue
        seen.add(ref.commit)
        span = _range(root, ref.commit, held)
        if span is None:
            continue
        start, whole = span
        env = {k: v for k, v in os.environ.items() if k not in _RANGE}
        env.update({AGAIN: ref.name, "PRE_COMMIT_LOCAL_BRANCH": ref.commit if whole else ref.name,
                    "PRE_COMMIT_REMOTE_BRANCH": ref.name})
        if not whole and start is not None:
            env.update({"PRE_COMMIT_FROM_REF": start, "PRE_COMMIT_TO_REF": ref.commit,
                        "PRE_COMMIT_ORIGIN": start, "PRE_COMMIT_SOURCE": ref.commit})
        found.append((ref.name, env))
    return found


def with_others(prog: str, gate: Callable[[], int], module: str) -> Callable[[], int]:
    """``gate``, and at pre-push the gate ``prog`` (``module``'s ``main``) run again for each
    other ref the push sends (``judge_others``)."""

    def judged() -> int:
        code = gate()
        if os.environ.get("PRE_COMMIT_REMOTE_NAME"):
            code |= judge_others(prog, module, top_level())
        return code

    return judged


def judge_others(prog: str, module: str, root: Path) -> int:
    """Run the gate ``prog`` (its module's ``main``) again for each other ref the push sends; what
    each finds follows a line naming the ref on standard error (pre-commit shows both streams as
    one, and standard output stays one finding a line). 1 when any found something."""
    import subprocess

    code = 0
    for name, env in others(root):
        start, tip = env.get("PRE_COMMIT_FROM_REF"), env.get("PRE_COMMIT_TO_REF") or env["PRE_COMMIT_LOCAL_BRANCH"]
        files = "\0".join(_files(root, start, tip, prog)).encode("utf-8", "surrogateescape")
        read = ("import sys\nfrom {} import main\nnames = sys.stdin.buffer.read().split(b'\\0')\n"
                "sys.exit(main(['--', *(n.decode('utf-8', 'surrogateescape') for n in names if n)]))")
        done = subprocess.run([sys.executable, "-c", read.format(module)], cwd=root, env=env, input=files,
                              capture_output=True)
        if done.returncode != 0 or done.stdout.strip() or done.stderr.strip():
            sys.stdout.flush()
            from gitstore._shown import shown, visible

            print(f"{prog}: {shown(visible(name))}, which this push sends too:", file=sys.stderr, flush=True)
            for stream, out in ((sys.stdout, done.stdout), (sys.stderr, done.stderr)):
                stream.buffer.write(out)
                stream.flush()
        code |= 1 if done.returncode != 0 else 0
    return code


__all__ = ["AGAIN", "Push", "Pushed", "judge_others", "others", "pushed_refs", "read_push"]
