"""Writing the team's policy files in the work tree (``gitstore policy init`` and ``add``).

The policy is code: these commands only edit ``.gitstore/policy.json`` and
``.gitstore/allowed_signers`` in the work tree, checked as the store will read them; the person
commits them on a branch and the team reviews and merges them into the default branch, where
the store reads them (see ``gitstore.records.policy``). Nothing else is touched.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitstore._files import first_link, replace_file
from gitstore.config import Workspace
from gitstore.errors import InvalidInput, Refused, UsageError
from gitstore.records.inputs import read_file
from gitstore.records.policy import (
    ACTIONS, POLICY_FILE, SIGNERS_FILE, Policy, PolicyError, canonical, fingerprint, key_fault, parse, parse_people,
    parse_signers, policy_text,
)

DECIDING = ("accept", "reject", "retire", "supersede", "merge", "withdraw", "grant", "redact")
NEXT = ("commit .gitstore/ on a branch, have it reviewed and merged into the default branch; each "
        "reviewer signs with git's SSH signing (git config gpg.format ssh; git config user.signingkey KEY.pub)")
BEFORE = ("decisions, grants, withdrawals and redactions made before it (unsigned) stop counting once it is merged: "
          "make them again, signed (`gitstore verify` names each one as not counted)")


@dataclass
class PolicyChange:
    """What a policy command wrote, and what the person does next."""

    files: list[str] = field(default_factory=list)
    people: dict[str, list[str]] = field(default_factory=dict)
    next: str = NEXT

    def to_json(self) -> dict[str, Any]:
        return {"files": self.files, "people": self.people, "next": self.next}


SIGNERS_HEAD = "# principals namespaces=\"git\" key-type key (ssh-keygen(1), ALLOWED SIGNERS)\n"


def init(workspace: Workspace, person: str, key: str | None, actions: list[str] | None = None) -> PolicyChange:
    """Start a policy naming ``person`` (every deciding action unless ``actions``) with their
    public key (``key``: a .pub file, or None for the one git's user.signingkey names). Refused,
    it writes nothing, so the same command works once the cause is fixed."""
    root = workspace.root
    if (root / POLICY_FILE).exists() or (root / SIGNERS_FILE).exists():
        raise Refused(f"{POLICY_FILE} is there already: add people with `gitstore policy add`")
    change = _change(workspace, {}, SIGNERS_HEAD, person, key, actions)
    change.next = f"{change.next}; {BEFORE}"
    return change


def add(workspace: Workspace, person: str, key: str | None, actions: list[str] | None = None) -> PolicyChange:
    """Let ``person`` take ``actions`` (default: every deciding action), with ``key``."""
    root = workspace.root
    try:
        people = {p: sorted(a) for p, a in parse_people(_read(root / POLICY_FILE)).items()}
        found = _read(root / SIGNERS_FILE)
        parse_signers(found)  # refuses bytes that are no UTF-8, naming the file, before they are decoded
        signers = found.decode("utf-8")
    except PolicyError as exc:
        raise InvalidInput(str(exc)) from None
    return _change(workspace, people, signers, person, key, actions)


def _change(workspace: Workspace, people: dict[str, list[str]], signers: str, person: str, key: str | None,
            actions: list[str] | None) -> PolicyChange:
    """Give ``person`` ``actions`` in ``people`` and ``signers``, check the result as the store
    will read it, and only then write both files (each replaced whole)."""
    chosen = list(dict.fromkeys(actions or DECIDING))
    unknown = [a for a in chosen if a not in ACTIONS]
    if unknown:
        raise UsageError(f"unknown action {unknown[0]!r} (one of {', '.join(ACTIONS)})")
    people = {**people, person: chosen}
    public = _public_key(workspace, key)
    others = [p for p in _listed_for(signers, public) if p != person]
    if others:  # a signature by it could not say which of them decided
        raise Refused(f"the key {fingerprint(public)} is already listed for {', '.join(others)}: "
                      f"each person signs with a key of their own, so {person} needs another key")
    if not _signs_now(signers, person, public):  # not listed for them, or only on lines not valid now
        signers += ("" if signers.endswith("\n") or not signers else "\n") + f'{person} namespaces="git" {public}\n'
    text = policy_text(people)
    try:
        parse(text.encode(), signers.encode())  # as the store will read it
    except PolicyError as exc:
        raise InvalidInput(str(exc)) from None
    root = workspace.root
    for name in (POLICY_FILE, SIGNERS_FILE):
        link = first_link(root, name)
        if link is not None:  # a commit can make .gitstore a link: the policy would be written wherever it points
            raise Refused(f"{link.relative_to(root).as_posix()} is a link (to {os.readlink(link)}); the policy is "
                          "written to the work tree's own files, never through a link: make it a file (or folder) "
                          "of its own")
    (root / POLICY_FILE).parent.mkdir(exist_ok=True)
    _replace(root / POLICY_FILE, text)
    _replace(root / SIGNERS_FILE, signers)
    return PolicyChange([POLICY_FILE, SIGNERS_FILE], {p: people[p] for p in sorted(people)}, _next(workspace))


def _listed_for(signers: str, public: str) -> list[str]:
    """The people ``signers`` (allowed_signers, parsed already) lists key ``public`` for."""
    return list(Policy({}, parse_signers(signers.encode())).listed_for(public)) if signers.strip() else []


def _signs_now(signers: str, person: str, public: str) -> bool:
    """Whether ``signers`` (allowed_signers, parsed already) lists key ``public`` for ``person``
    on a line valid now: a line kept with a passed valid-before (a key retired) lets it sign
    nothing, so adding the person with it again lists it anew."""
    from gitstore.providers._signing import signed_now

    return bool(signers.strip()) and Policy({}, parse_signers(signers.encode())).valid_for(person, public, signed_now())


def _next(workspace: Workspace) -> str:
    """What makes the files count; where this clone finds no default branch to read them from,
    that too, with the commands that name it."""
    from gitstore.providers._policy_git import default_branch, no_default_branch

    if default_branch(workspace.repo) is not None:
        return NEXT
    why, todo = no_default_branch(workspace.repo)
    return f"{NEXT}; but {why}, so no policy is read here until one is named: {todo}"


def _replace(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all: a temporary file of this process beside it (never a
    link a commit put at a fixed name), then renamed over it."""
    replace_file(path, text)


def _read(path: Path) -> bytes:
    if not path.exists():
        raise Refused(f"{path.name} is missing: start a policy with `gitstore policy init`")
    return read_file(path, 1 << 20)


def _public_key(workspace: Workspace, key: str | None) -> str:
    """The public key (``type base64``) from a .pub file, or from git's user.signingkey; one
    that does not read as a key is refused: listed, it would sign for nobody."""
    if key is None:
        from gitstore.providers._signing import signer

        found, hint = signer(workspace.repo)
        public = found.public() if found is not None else None
        if public is None:
            raise Refused(f"say which key with --key KEY.pub, or {hint or 'give user.signingkey as a .pub file'}")
        return _readable(public, "user.signingkey")
    try:
        text = read_file(key, 64 << 10).decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{key}: not an SSH public key (the .pub file): not UTF-8") from None
    return _readable(text, key)


def _readable(text: str, where: str) -> str:
    """``type base64`` from the start of ``text`` (a .pub file's line), if it is a key."""
    parts = text.split()
    if len(parts) < 2 or not parts[0].startswith(("ssh-", "ecdsa-", "sk-")):
        raise InvalidInput(f"{where}: not an SSH public key (the .pub file)")
    fault = key_fault(parts[0], parts[1])
    if fault is not None:
        raise InvalidInput(f"{where}: not an SSH public key: {fault}")
    return canonical(f"{parts[0]} {parts[1]}")  # one key is written one way: compared and listed alike


__all__ = ["DECIDING", "PolicyChange", "add", "init"]
