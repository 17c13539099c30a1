"""Who signed each append of a git store, under the team's policy.

Under a policy (``gitstore.providers._policy_git``), an append counts for a person when:

1. its commit is signed (``gpgsig``) with an SSH key;
2. the policy revision it names (``Policy: <commit>``) is in the default branch's history as
   this clone sees it, so nobody signs under a policy that was never merged; an append naming
   none, one naming a revision this clone does not hold (a shallow clone, a revision not fetched
   yet), or one naming a revision not in that history (never merged, or left out when the
   branch was rewritten) is judged by the current policy alone, which steps 4 and 5 apply
   anyway: whether a clone holds the commit named must not change its verdict;
3. the signature verifies (``ssh-keygen -Y verify -n git``, at the commit's time) against that
   revision's ``allowed_signers``, which lists the key for the person: ssh-keygen is asked about
   each person the policy lists with the key, and the signature counts for those it verifies for;
4. the current policy still lists that key for them, valid at the commit's time: removing a key
   (or a person) from the policy withdraws every decision it signed, past ones included; to
   retire a key whose holder is trusted without that, keep its line with ``valid-before`` (its
   signer states each commit's time: a key that may be in other hands is removed);
5. the actions the person may take are those both revisions allow;
6. neither revision lists the key for more than one person: which of them signed, the signature
   cannot say, so it counts for none of them (a problem ``gitstore verify`` names).

Signature checks are the costly part (one ``ssh-keygen`` run for each person listed with the key): each commit's is made once
and remembered (``_verified``, kind ``signatures``) under the allowed_signers bytes it was
checked against and the program that checked it (``gpg.ssh.program``), with every time read
as UTC (``CHECKED_AS``). The rest is looked up in parsed policies, once per revision.
"""

from __future__ import annotations

import hashlib
import time
import weakref
from pathlib import Path
from typing import Any

import pygit2

from gitstore._gitconfig import value as git_setting
from gitstore.providers._base import NO_LONGER_LISTED, OUTSIDE_VALIDITY, UNSIGNED, Attestation, TrustMode
from gitstore.providers._policy_git import PolicyState, Revision, at, current, in_history
from gitstore.providers._signing import (
    SignatureProblem, check, made_with, signature_of, signed_at, signed_now, signer, signing_key,
)
from gitstore.providers._verified import Verified
from gitstore.records.policy import SHARED_KEY, Policy, canonical


# how results are remembered: the allowed_signers checked against, its times and the commit's
# read as UTC, and ssh-keygen asked about each person listed with the key (results remembered
# when times were read as local, or when one person's verdict stood for all, are checked again)
CHECKED_AS = "allowed_signers-utc-each:"
SAVE_EVERY = 64  # signatures checked between two writes of what was found (and at exit)
SAVE_SECONDS = 0.5
NOBODY_FOR_KEY = "the policy lists nobody for the key user.signingkey names"


class Trust:
    """The policy in force for one repository and the signers of its appends."""

    def __init__(self, repo: pygit2.Repository, state: Path) -> None:
        self.repo = repo
        self._state: PolicyState | None = None
        self._revisions: dict[str, Revision] = {}
        self._merged: dict[str, bool] = {}
        self._checked = Verified(state, "signatures", shared=True)
        self._unsaved = 0
        self._saved_at = time.monotonic()
        weakref.finalize(self, self._checked.save)  # what a run checked last is kept too

    @property
    def state(self) -> PolicyState:
        if self._state is None:
            self._state = current(self.repo)
        return self._state

    def mode(self) -> TrustMode:
        state = self.state
        return TrustMode(state.mode, state.commit, state.branch, state.problem)

    def signers(self, commit: pygit2.Commit, policy_commit: str | None
                ) -> tuple[tuple[tuple[str, frozenset[str]], ...], str | None]:
        """The people whose signature on ``commit`` counts, with what they may do, or why none."""
        state = self.state
        if state.policy is None or state.commit is None:
            return (), "is judged without a usable policy"
        if signature_of(commit) is None:  # claims nobody: which revision it names does not matter
            return (), UNSIGNED
        revision_id = policy_commit or state.commit
        if revision_id not in self.repo or not self._in_default(state.commit, revision_id):
            # a revision this clone does not hold (a shallow clone, one not fetched yet) or that is not in the
            # default branch's history (never merged, or left out when the branch was rewritten): the current
            # one decides alone, as for an append naming none. Whether a clone holds that commit (a clone made
            # after a rewrite never does) must not change its verdict
            revision_id = state.commit
        revision = self._revision(revision_id)
        if revision.policy is None:
            return (), f"names policy revision {revision_id[:12]}, which holds no usable policy"
        try:
            key, principals = self._verified(commit, revision)
        except SignatureProblem as exc:
            if policy_commit is None and self._made_by_its_key(commit):  # only the policy's times refuse it
                return (), f"{OUTSIDE_VALIDITY}: {exc}"
            return (), f"carries no valid signature: {exc}"
        shared = revision.policy.shared_keys().get(key) or state.policy.shared_keys().get(key)
        if shared:  # which of them decided, the signature cannot say
            return (), f"{SHARED_KEY} ({', '.join(shared)}): it counts for none of them"
        return _still_allowed(state.policy, revision.policy, key, principals, commit)

    def _verified(self, commit: pygit2.Commit, revision: Revision) -> tuple[str, tuple[str, ...]]:
        """The key a commit is signed with and the people it verified for, under ``revision``'s
        allowed_signers (checked once, then remembered)."""
        program = _program(self.repo)
        # the program is part of what was checked: a verdict of one that could not check (a signing-only
        # wrapper named in gpg.ssh.program, say) is never the answer once another is configured
        context = CHECKED_AS + hashlib.sha256(program.encode("utf-8") + b"\0" + revision.signers).hexdigest()[:32]
        oid = str(commit.id)
        known = self._checked.get(oid, context)
        if isinstance(known, dict):
            if known.get("problem"):
                raise SignatureProblem(str(known["problem"]))
            return canonical(str(known["key"])), tuple(known["principals"])  # kept as an older version read it
        result: dict[str, Any]
        try:
            found = signature_of(commit)
            if found is None:
                raise SignatureProblem("it is not signed")
            key = signing_key(found[0])
            assert revision.policy is not None
            principals = [p for k in revision.policy.keys if k.public == key for p in k.principals]
            checked = check(program, commit, revision.signers, principals)
            result = {"key": checked.key, "principals": list(checked.principals)}
        except SignatureProblem as exc:
            result = {"problem": str(exc)}
        self._checked.put(oid, context, result)
        self._unsaved += 1
        if self._unsaved >= SAVE_EVERY or time.monotonic() - self._saved_at > SAVE_SECONDS:
            self._checked.save()
            self._unsaved, self._saved_at = 0, time.monotonic()
        if result.get("problem"):
            raise SignatureProblem(result["problem"])
        return result["key"], tuple(result["principals"])

    def _made_by_its_key(self, commit: pygit2.Commit) -> bool:
        """Whether the key a commit's signature names made it, at the commit's time, whatever
        the policy lists (``made_with``; checked once, then remembered)."""
        program = _program(self.repo)
        context = "made-with:" + hashlib.sha256(program.encode("utf-8")).hexdigest()[:32]
        oid = str(commit.id)
        known = self._checked.get(oid, context)
        if not isinstance(known, bool):
            try:
                made_with(program, commit)
                known = True
            except SignatureProblem:
                known = False
            self._checked.put(oid, context, known)
        return known

    def _revision(self, commit_id: str) -> Revision:
        found = self._revisions.get(commit_id)
        if found is None:
            try:
                found = at(self.repo, self.repo[commit_id].peel(pygit2.Commit))
            except (KeyError, ValueError, pygit2.GitError) as exc:
                found = Revision(problem=f"cannot read {commit_id}: {exc}")
            self._revisions[commit_id] = found
        return found

    def _in_default(self, tip: str, commit_id: str) -> bool:
        found = self._merged.get(commit_id)
        if found is None:
            found = self._merged[commit_id] = in_history(self.repo, tip, commit_id)
        return found

    def signing_as(self) -> tuple[tuple[tuple[str, frozenset[str]], ...], str]:
        """Who this clone's signing key signs for under the current policy (see
        ``AttestingProvider.signing_as``)."""
        who, hint = signer(self.repo)
        if who is None:
            return (), hint
        key = who.public()
        if key is None:
            return (), f"the public key of user.signingkey ({who.key}) cannot be read: give the .pub file"
        policy = self.state.policy
        if policy is None:
            return (), "there is no usable policy"
        shared = policy.shared_keys().get(key)
        if shared:
            return (), (f"the policy lists the key user.signingkey names for more than one person "
                        f"({', '.join(shared)}): it signs for none of them")
        listed = policy.listed_for(key)
        if not listed:
            return (), f"{NOBODY_FOR_KEY} ({key[:32]}...)"
        now = signed_now()  # the time the append will be signed at
        found = tuple((p, policy.actions(p)) for p in listed if policy.valid_for(p, key, now))
        if not found:  # a signature now would not verify: the append would be damage on every clone
            line = policy.holds(listed[0], key)
            assert line is not None  # listed, for one person (a key shared is refused above)
            window = ", ".join(f"{name} {value}" for name, value in (("valid-after", line.valid_after),
                                                                     ("valid-before", line.valid_before)) if value)
            return (), (f"the key user.signingkey names is not valid now ({window} in its line for "
                        f"{', '.join(listed)}): sign with a key the policy lists as valid now")
        return found, ""


def _still_allowed(now: Policy, then: Policy, key: str, principals: tuple[str, ...], commit: pygit2.Commit
                   ) -> tuple[tuple[tuple[str, frozenset[str]], ...], str | None]:
    """The people a verified signature counts for: listed with that key by the current policy
    too, valid at the commit's time, with the actions both revisions allow."""
    when = signed_at(commit)  # checked already: a commit whose time is no date never verifies
    found = []
    for person in principals:
        if now.valid_for(person, key, when):
            found.append((person, then.actions(person) & now.actions(person)))
    if not found:
        return (), f"{NO_LONGER_LISTED} {', '.join(principals)}"
    return tuple(found), None


def _program(repo: pygit2.Repository) -> str:
    return git_setting(repo, "gpg.ssh.program") or "ssh-keygen"


def attestation(base: Attestation, trust: Trust, commit: pygit2.Commit, policy_commit: str | None) -> Attestation:
    """``base`` (who holds the append) completed with its signers under the policy."""
    signers, problem = trust.signers(commit, policy_commit)
    return Attestation(base.append, base.own, base.where, signers, problem, base.namespace, policy_commit is None)


__all__ = ["NOBODY_FOR_KEY", "Trust", "attestation"]
