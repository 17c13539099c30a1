"""Pushing a promotion branch and opening its pull request with the GitHub CLI.

Both run the real tools (``git push``, ``gh``) and report what happened in one sentence; when
either does not happen (the remote refuses the branch, ``gh`` is not installed or not signed
in), the sentence says so and what to run instead, and the promotion itself still stands (its
commit and packet are already written).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitstore._github_text import block, code, plain
from gitstore.promote.blocks import shown_name
from gitstore.promote.packet import evidence_by_origin
from gitstore.promote._git import git_env


@dataclass(frozen=True)
class Outcome:
    """What a step did: ``done`` when it succeeded, and a sentence saying what happened."""

    done: bool
    message: str
    url: str | None = None


def push(root: Path, branch: str, remote: str = "origin", memory: Outcome | None = None) -> Outcome:
    """``git push REMOTE refs/heads/BRANCH``, never forced; ``memory`` is what sharing the
    memory refs before it did (its sentence joins the report)."""
    spec = f"refs/heads/{branch}:refs/heads/{branch}"
    shared = f" (memory shared first: {memory.message})" if memory is not None else ""
    local = _local_state(root, branch, remote)
    if local is not None:
        commit, path = local
        return Outcome(False, f"{branch} was not pushed: its commit {commit[:12]} adds {path}, personal memory of "
                              f"this machine (okf/.memory/ is this clone's local state: the delivery ledger of what "
                              f"agents were given, its configuration, caches), which the push would publish: rewrite "
                              f"the branch's history (git rebase -i {commit[:12]}^, then drop or edit that commit), "
                              f"keep the folder ignored (no !/okf/.memory/ rule in a .gitignore), then push it again "
                              f"with promote --push{shared}")
    done = subprocess.run(["git", "push", "--porcelain", remote, spec], cwd=root, env=git_env(),
                          capture_output=True, text=True)
    if done.returncode != 0 and _rejected(done.stdout):
        return Outcome(False, f"{branch} was not pushed: {remote} has a branch of that name already (another "
                              f"clone's promotion of this learning?), which a push never replaces: review that one "
                              f"(`git fetch {remote} {branch}`), or delete it there (`git push {remote} --delete "
                              f"{branch}`) and push this one again with promote --push{shared}")
    if done.returncode != 0:
        why = " ".join((done.stderr or done.stdout).split())[:300]
        return Outcome(False, f"{branch} was not pushed: git push {remote} {branch} failed: {why}{shared}; once "
                              f"that is fixed, push it again with promote --push")
    return Outcome(True, f"pushed {branch} to {remote}{shared}")


def _local_state(root: Path, branch: str, remote: str) -> tuple[str, str] | None:
    """(commit, path) of the oldest commit the push of ``branch`` would send (one no ref of
    ``remote`` this clone fetched reaches) that adds or changes a file under ``okf/.memory/``,
    in any case, as the ``gitstore-scan`` gate refuses it: a ``.gitignore`` un-ignoring the
    folder has ``git add -A`` commit this clone's state; None when none does (or git cannot tell:
    the push then says what is wrong)."""
    done = subprocess.run(["git", "log", "--reverse", "--format=%x01%H", "--name-only", "--no-renames",
                           "--diff-filter=d", "-z", f"refs/heads/{branch}", "--not", f"--remotes={remote}", "--",
                           ":(icase)okf/.memory"], cwd=root, env=git_env(), capture_output=True)
    if done.returncode != 0:
        return None
    commit = ""
    for token in done.stdout.split(b"\0"):
        token = token.lstrip(b"\n")
        if token.startswith(b"\x01"):
            commit = token[1:].decode()
        elif token and commit:
            return commit, token.decode("utf-8", "surrogateescape")
    return None


def _rejected(porcelain: str) -> bool:
    """Whether ``git push --porcelain`` says the remote refused the ref as not a fast-forward of
    its own (a line flagged ``!`` with ``[rejected]``): the remote has another branch there."""
    return any(line.startswith("!\t") and "[rejected]" in line for line in porcelain.splitlines())


def body(packet: dict[str, Any], learning: dict[str, Any], warnings: Mapping[str, str] | None = None,
         name: str | None = None) -> str:
    """The pull request's description: the learning, its evidence by origin, the route, the
    checks that passed (one with a warning, what it warns of), and the citations. What anyone's
    words may be in (the learning's name and text, a pin's branch, a person id, a page's section
    named in a reason, a citation, a warning quoting words) is written as code
    (``gitstore._github_text``): GitHub shows it and acts on none of it, so a review comment's
    ``@team`` notifies no one and its ``fixes #1`` closes no issue when the pull request merges."""
    evidence = "\n".join(f"- {code(line)}" for line in evidence_by_origin(learning))
    reasons = "\n".join(f"- {code(r, limit=300)}" for r in packet["rubric"]["reasons"])
    warned = warnings or {}
    checks = "\n".join(f"- {c['name']}: " + (f"warned: {code(warned[c['name']], limit=2000)}" if c["name"] in warned
                                             else "passed")
                       for c in packet["checks"] if c["ok"])
    cited = "\n".join(f"- {code(c['kind'])} {code(c['ref'], limit=500)}" for c in packet["citations"])
    return (
        f"## Learning\n\n**{code(name or learning['content']['title'])}** ({code(learning['id'])})\n\n"
        f"{block(learning['content']['text'])}\n\n"
        f"Accepted by {code(shown_name('decision.by', learning['decision']['by']))}; {code(learning['category'])}, "
        f"audience {code(learning['audience'])}.\n\n"
        f"## Evidence by origin\n\n{evidence}\n\n"
        f"## Route\n\n{code(packet['route'])} into {code(packet['target'])} (the rubric chose "
        f"{code(packet['rubric']['route'])}):\n\n"
        f"{reasons}\n\n## Checks passed\n\n{checks}\n\n## Citations\n\n{cited}\n\n"
        f"Packet {code(packet['digest'])}; contentDigest {code(packet['contentDigest'])}; "
        f"reviewDigest {code(packet['reviewDigest'])}.\n"
    )


def title(name: str) -> str:
    """The pull request's title, which GitHub reads as plain text: the learning's name with
    nothing in it that mentions, references or links (``gitstore._github_text.plain``)."""
    return plain(f"Promote: {name}")


def open_pull_request(root: Path, branch: str, base: str | None, title: str, text: str) -> Outcome:
    """Open a pull request for ``branch`` with ``gh pr create``, when gh is installed and signed in."""
    gh = shutil.which("gh")
    if gh is None:
        return Outcome(False, f"no pull request: the GitHub CLI (gh) is not installed; open one for {branch} "
                              "by hand, or install gh and run `gh pr create --head " + branch + "`")
    status = subprocess.run([gh, "auth", "status"], cwd=root, env=git_env(), capture_output=True, text=True)
    if status.returncode != 0:
        return Outcome(False, f"no pull request: gh is not signed in (run `gh auth login`, then "
                              f"`gh pr create --head {branch}`)")
    command = [gh, "pr", "create", "--head", branch, "--title", title, "--body-file", "-"]
    if base:
        command += ["--base", base]
    done = subprocess.run(command, cwd=root, env=git_env(), input=text, capture_output=True, text=True)
    if done.returncode != 0:
        why = " ".join((done.stderr or done.stdout).split())[:300]
        return Outcome(False, f"no pull request: gh pr create failed: {why}; the branch is pushed: open one for "
                              f"{branch} by hand, or run `gh pr create --head {branch}`")
    url = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else None
    return Outcome(True, f"opened a pull request for {branch}" + (f": {url}" if url else ""), url)
