"""``verify``: the provider's check of every stored byte, then the rules' check of what the
records say together: fetched refs left out (quarantined), decisions written without their
audit entry, decisions, grants, withdrawals and redactions that carry no authority (fetched
without a policy, unsigned, or signed by someone the policy does not allow), learning versions
that are no lifecycle step (decisions among them), histories with no proposal to start from, and shared
learnings whose evidence or history other clones never receive, personal sessions' episodes
found in the shared namespace, and events and episodes whose
id two records claim that disagree on what it says. Every such finding is never
used by reads; verify names them so someone can act (decide again, fix the policy, propose
again from shared evidence)."""

from __future__ import annotations

from typing import Any

from gitstore.errors import GitstoreError
from gitstore.providers import Problem, VerifyReport
from gitstore.rules.consent import disagreeing, disputed
from gitstore.rules.namespaces import misplaced
from gitstore.rules.trust import not_counted
from gitstore.rules.view import View
from gitstore.store import Store


def verify(store: Store) -> VerifyReport:
    """Every problem the provider finds, and every rule finding on the records it holds. A
    record that is intact and only carries no authority (another clone's decision without a
    policy; under one, an unsigned append such as a decision made before it, or a key the policy
    does not or no longer lists) is a notice: never used, but no damage, and nothing a person
    could repair but by deciding again (``gitstore.rules.trust.not_counted``)."""
    found = store.verify()
    report = VerifyReport(found.records, found.refs, list(found.problems), list(getattr(found, "notices", [])))
    try:  # what reads use: everything but quarantined refs (own damage fails here, named above)
        view = View.of(store.scope, store.items(), store)
    except GitstoreError as exc:
        if report.ok:
            report.problems.append(Problem("store", str(exc)))
        return report
    report.problems.extend(store.left_out())
    for digest, why in view.ignored.items():
        kind = why.split(" ", 1)[0]  # the reason names the record: "learning ...", "grant ...", "withdrawal ..."
        finding = Problem(f"{'decision' if kind == 'learning' else kind} {digest}", why)
        (report.notices if not_counted(why) else report.problems).append(finding)
    for note in store.ignored_notes():
        (report.notices if not_counted(note.message) else report.problems).append(note)
    for rid in sorted(view.rivals):
        if rid in view.episodes:
            kept, rival, what = view.episodes[rid], disputed(view, view.episodes[rid]), "episode"
        else:
            kept, rival, what = view.events[rid], disagreeing(view, view.events[rid]), "event"
        if rival is not None:
            report.problems.append(Problem(f"{what} {rid}", f"{rival['digest']} claims its id and disagrees "
                                           f"with {kept['digest']} on what it says; it serves no purpose"))
    for lid, history in sorted(view.histories().items()):
        for item, why in history.broken:
            report.problems.append(Problem(f"learning {lid}", f"{why}; {_ignored_step(item.record)}"))
        if history.problem is not None and not history.broken:
            report.problems.append(Problem(f"learning {lid}", f"{history.problem}; it is never used"))
        placed = misplaced(view, history)
        if placed:
            report.problems.append(Problem(f"learning {lid}", f"{placed}; it is never used"))
    return report


def _ignored_step(record: dict[str, Any]) -> str:
    """What it means that a version no lifecycle step allows is ignored."""
    if "decision" in record:
        return ("so this decision is never used: the learning stays at the version before it, where a "
                "person may decide again")
    return "no decision made it, so it breaks nothing, and it is never used"
