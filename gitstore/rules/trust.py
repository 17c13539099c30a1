"""Who may decide: which decisions, grants, withdrawals and redactions count.

The command line cannot authenticate anyone, so a record's ``by`` is only a claim. What
counts depends on the store's trust mode (``TrustMode``, from the provider):

- **single-user** (no policy in the repository's default branch): only this clone's own
  appends carry authority. Decisions, grants, withdrawals and redactions fetched from another
  clone are never used (``gitstore verify`` names each one): a remote can no more decide for
  this clone than a stranger can.
- **policy**: an authority record counts only when its append is a commit signed with a key the
  policy lists for the person the record names (the decision's ``by``), made under a policy
  revision in the default branch's history that let that person take the action (one naming
  another revision, or none, is judged by the current policy alone), and the current policy
  still lists that key for them and lets them take it. This clone's own
  unsigned decisions count for nothing either: every clone computes the same verdicts.
- **broken** (a policy that cannot be used): no authority record counts until it is fixed.

Records of the local namespace (personal sessions, and learnings drawn from them) never leave
this clone: they are always its own and always count. The auto-safe gate steps only on such
learnings (its evidence is a session of this clone), so its steps on a shared learning never
count, in any mode, whoever signed them: none of the gate's checks ran for them. Providers that keep one clone's memory
in a file (sqlite, jsonl, memory) are single-user, everything in them its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gitstore.providers import Attestation, TrustMode
from gitstore.records.identity import AUTO_SAFE
from gitstore.records.policy import actor_of, required_actions

SHARED_GATE = ("the auto-safe gate steps only on a learning whose evidence is a session of the clone that ran it, "
               "kept on that machine: a shared step is no run of it, whoever signed it (a person accepts)")
SINGLE_USER = ("fetched from another clone ({where}); in a repository without a policy only this clone's "
               "own decisions, grants, withdrawals and redactions count (`gitstore policy init` sets one up)")


NOT_COUNTED = "not counted under the policy: "
OUTSIDE_POLICY = ("names no policy revision: made where none was in force, it claims nothing under one, and counts "
                  "once made again, signed")
NO_AUTHORITY = "carries no authority: "  # how every reason a record is not used is worded before its cause


def not_counted(reason: str) -> bool:
    """Whether a reason a record is not used is only that it carries no authority, its record
    intact: it came from another clone of a repository without a policy, or, under a policy,
    its append is unsigned (made before the policy, say), signed with a key the policy does not
    or no longer lists, or by a person it does not let take that action. No damage, nor a
    forgery (``gitstore verify`` names it without failing). A signature that does not verify
    (unless its key made it, in an append naming no policy revision, at a time the policy's line
    for the key does not allow), or that verifies for someone else than the person the record
    names in an append naming the policy revision it was made under, is not among them.
    The cause is read where it starts, right after ``NO_AUTHORITY``, never from text a record
    or a ref name could hold."""
    at = reason.find(NO_AUTHORITY)
    return at >= 0 and reason.startswith((SINGLE_USER.split("{", 1)[0], NOT_COUNTED), at + len(NO_AUTHORITY))


def problem(mode: TrustMode, attestation: Attestation, namespace: str, actor: str | None,
            required: frozenset[str]) -> str | None:
    """Why a record needing ``required`` actions, which says ``actor`` took them, does not
    count (None: it counts)."""
    if not required or namespace == "local":
        return None
    if actor == AUTO_SAFE:
        return SHARED_GATE
    if mode.mode == "broken":
        return f"the policy cannot be used ({mode.problem}); no decision counts until it is fixed"
    if mode.mode != "policy":
        return None if attestation.own else SINGLE_USER.format(where=attestation.where or "a fetched ref")
    if attestation.problem is not None:
        because = f"its append {attestation.append[:12]} ({attestation.where}) {attestation.problem}"
        return NOT_COUNTED + because if attestation.unauthorized_only else because
    actions = attestation.actions(actor or "")
    signers = ", ".join(who for who, _ in attestation.signers) or "nobody the policy lists"
    if actions is None:
        because = f"it says {actor} decided, but its append {attestation.append[:12]} is signed by {signers}"
        # made where no policy was in force (a clone alone, its git signing every commit, names its person
        # as user.email has it; the policy may name them otherwise): no claim under the policy, no forgery
        return NOT_COUNTED + because + f" (it {OUTSIDE_POLICY})" if attestation.outside_policy else because
    missing = sorted(required - actions)
    if missing:
        return f"{NOT_COUNTED}the policy does not let {actor} {' or '.join(missing)}"
    return None


def may_decide(mode: TrustMode, attestation: Attestation, namespace: str, person: str) -> bool:
    """Whether ``person`` may decide (accept or reject) by an append: what makes a record that
    needs no authority, such as a proposal written by hand, a word of someone who decides. The
    same rule as for a decision: under a policy, the append is signed by them with a key it lists
    and it lets them accept or reject; without one, the append is this clone's own."""
    return any(problem(mode, attestation, namespace, person, frozenset({action})) is None
               for action in ("accept", "reject"))


def record_problem(mode: TrustMode, attest: Callable[[str], Attestation], record: dict[str, Any],
                   namespace: str, append: str, extends: bool = False) -> str | None:
    """``problem`` for one stored record (``extends``: a learning version that only adds
    ``supersedes`` to an accepted one)."""
    required = required_actions(record, extends)
    if not required or namespace == "local":
        return None
    return problem(mode, attest(append), namespace, actor_of(record), required)


def refusal(mode: TrustMode, signing_as: tuple[tuple[str, frozenset[str]], ...], hint: str,
            records: list[dict[str, Any]], removals: list[dict[str, Any]], extends: Callable[[dict[str, Any]], bool]) -> str | None:
    """Why an append of ``records`` (and redaction ``removals``' notes) to the shared namespace
    would carry no authority under the policy, said before anything is written (None: fine)."""
    if any(actor_of(r) == AUTO_SAFE for r in records):
        return SHARED_GATE
    if mode.mode == "broken":
        return f"the policy cannot be used ({mode.problem}); fix it before deciding"
    if mode.mode != "policy":
        return None
    wanted = [(actor_of(r), required_actions(r, extends(r))) for r in records]
    wanted += [(str(n.get("by")), frozenset({"redact"})) for n in removals]
    wanted = [(actor, needed) for actor, needed in wanted if needed]
    if wanted and not signing_as:
        return f"this repository has a policy ({mode.branch}): its decisions are signed commits, and {hint}"
    who = dict(signing_as)
    for actor, needed in wanted:
        if actor not in who:
            return (f"this clone signs as {', '.join(who)}, but the record says {actor} decided "
                    f"(--by {next(iter(who))})")
        missing = sorted(needed - who[actor])
        if missing:
            return f"the policy ({mode.branch}) does not let {actor} {' or '.join(missing)}"
    return None


def note_problem(mode: TrustMode, attestation: Attestation | None, note: dict[str, Any]) -> str | None:
    """Why a redaction note does not count (None: it does). ``attestation`` is None for a note
    this clone kept in its own payload snapshot, as older versions did: it counts without a
    policy, where only this clone's own removals count anyway; under a policy it is unsigned,
    and whoever can push may write a snapshot a runner takes up as its own (``init --writer``),
    so it counts no more than any unsigned removal."""
    if attestation is None:
        if mode.mode == "broken":
            return f"the policy cannot be used ({mode.problem}); no decision counts until it is fixed"
        return (NOT_COUNTED + "it is kept in this clone's payload snapshot, as older versions kept notes, "
                "and no signed append lists it") if mode.mode == "policy" else None
    return problem(mode, attestation, attestation.namespace, str(note.get("by")), frozenset({"redact"}))


__all__ = ["NOT_COUNTED", "SINGLE_USER", "may_decide", "not_counted", "note_problem", "problem", "record_problem", "refusal"]
