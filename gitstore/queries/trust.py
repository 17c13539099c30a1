"""Who may decide in this repository, as a person asks it: ``gitstore policy show``, and the
trust lines of ``status`` and ``doctor``. Reads the policy on the default branch and git's
signing configuration, no record."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gitstore.config import Workspace
from gitstore.errors import InvalidInput
from gitstore.records.inputs import read_regular

SET_UP = ("a team sets one up with `gitstore policy init` (then `gitstore policy add` for each reviewer), "
          "commits .gitstore/ on a branch and merges it into the default branch, and each reviewer "
          "signs with git's SSH signing (git config gpg.format ssh; git config user.signingkey KEY.pub)")


@dataclass
class TrustReport:
    """The trust mode, where the policy was read, who may do what, and how this clone signs."""

    mode: str
    explanation: str
    branch: str | None = None
    revision: str | None = None
    problem: str | None = None
    people: dict[str, list[str]] = field(default_factory=dict)
    keyless: list[str] = field(default_factory=list)
    signs_as: dict[str, list[str]] = field(default_factory=dict)
    signing: str = ""
    pending: list[str] = field(default_factory=list)  # policy files the work tree changes, not yet in force
    unreadable: list[dict[str, Any]] = field(default_factory=list)  # listed keys that sign for nobody: whose, why

    def to_json(self) -> dict[str, Any]:
        return {"mode": self.mode, "explanation": self.explanation, "branch": self.branch,
                "revision": self.revision, "problem": self.problem, "people": self.people,
                "keyless": self.keyless, "unreadableKeys": self.unreadable, "signsAs": self.signs_as, "signing": self.signing or None,
                "pending": self.pending}


def trust(workspace: Workspace) -> TrustReport:
    """How this clone decides what counts (see ``gitstore.rules.trust``)."""
    if workspace.config.provider != "git":
        return TrustReport("single-user", f"the {workspace.config.provider} provider keeps this clone's memory only: "
                                          "every decision in it is this clone's own, and counts")
    from gitstore.providers._policy_git import current

    state = current(workspace.repo)
    found = _trust(workspace, state)
    found.pending = pending(workspace, state.commit)
    return found


def _trust(workspace: Workspace, state: Any) -> TrustReport:
    """The report for the git provider's policy ``state`` (``_policy_git.PolicyState``)."""
    from gitstore.providers._gitdirs import state_dir
    from gitstore.providers._trust_git import Trust

    if state.mode == "single-user":
        from gitstore.providers._policy_git import no_default_branch

        where = (f"no policy on the default branch ({state.branch})" if state.branch else
                 f"{no_default_branch(workspace.repo)[0]}, so no policy is read")
        return TrustReport("single-user", where
                           + ": only this clone's own decisions, grants, withdrawals and redactions count; "
                           "fetched ones are named by `gitstore verify` and never used. " + SET_UP[0].upper() + SET_UP[1:],
                           state.branch, state.commit)
    if state.mode == "broken":
        return TrustReport("broken", f"the policy on {state.branch} cannot be used: no decision counts until it "
                                     "is fixed and merged", state.branch, state.commit, state.problem)
    assert state.policy is not None
    who, hint = Trust(workspace.repo, state_dir(workspace.repo)).signing_as()
    return TrustReport(
        "policy", f"decisions count on every clone when signed by a key {state.branch} lists for the person "
                  "who made them, and the policy lets them take that action",
        state.branch, state.commit, None,
        {p: _ordered(a) for p, a in sorted(state.policy.people.items())}, state.policy.keyless(),
        {p: _ordered(a) for p, a in who}, hint, unreadable=_unreadable(state.policy))


def _unreadable(policy: Any) -> list[dict[str, Any]]:
    """Each key the policy lists that does not read as one (ssh-keygen passes over its line)
    or that it lists for more than one person: it signs for nobody, and the rest of the
    policy stands."""
    from gitstore.records.policy import fingerprint, key_fault

    found: list[dict[str, Any]] = []
    for key in policy.keys:
        fault = key_fault(key.key_type, key.key)
        if fault is not None:
            found.append({"principals": list(key.principals), "key": f"{key.key_type} {key.key[:16]}...",
                          "problem": fault})
    for public, people in sorted(policy.shared_keys().items()):  # a signature cannot say which of them decided
        found.append({"principals": list(people), "key": fingerprint(public),
                      "problem": "it is listed for more than one person, and a signature by it cannot say which "
                                 "of them decided: give each person a key of their own", "shared": True})
    return found


def pending(workspace: Workspace, revision: str | None) -> list[str]:
    """The policy files the work tree holds with other bytes than the default branch's tip at
    ``revision`` (written by ``policy init`` or ``add``, or edited, and not yet merged there):
    they count only once that branch holds them. A file over the bytes a policy file may hold
    (``MAX_FILE``) is one of them, refused once that many are read, never read whole: the
    default branch's is refused by its size."""
    from gitstore.providers._policy_git import files_at
    from gitstore.records.policy import MAX_FILE, POLICY_FILE, SIGNERS_FILE

    found = []
    for path, there in zip((POLICY_FILE, SIGNERS_FILE), files_at(workspace.repo, revision)):
        try:  # read up to the bytes a policy file may hold, as the default branch's are
            here = read_regular(workspace.root / path, MAX_FILE)  # a FIFO: passed over, never waited on
        except OSError:
            continue
        except InvalidInput:  # too big: refused once MAX_FILE bytes are read, and never the default branch's
            here = None
        if here is None or here != there:
            found.append(path)
    return found


def _ordered(actions: frozenset[str]) -> list[str]:
    from gitstore.records.policy import ACTIONS

    return [a for a in ACTIONS if a in actions]


__all__ = ["SET_UP", "TrustReport", "trust"]
