"""Evidence references: they must resolve to stored events inside the episode they name, and
what they state (pin, time, author) must be what storage says."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from gitstore.errors import Refused
from gitstore.rules.consent import Verdict, decide
from gitstore.rules.view import View


def rebuild(view: View, episode_id: str, event_ids: list[str]) -> dict[str, Any]:
    """The evidence reference storage supports for these events; refuses what does not resolve."""
    episode = view.episodes.get(episode_id)
    if episode is None:
        stray = view.strays.get(episode_id)
        if stray is not None:
            raise Refused(f"evidence names episode {episode_id}, a personal session kept shared ({stray}), "
                          "which gitstore never writes: it is never used")
        raise Refused(f"evidence names episode {episode_id}, which is not stored in this scope")
    if not event_ids:
        raise Refused(f"evidence in episode {episode_id} names no events")
    events = []
    for event_id in event_ids:
        event = view.events.get(event_id)
        if event is None:
            raise Refused(f"evidence names event {event_id}, which is not stored")
        if event["episode"] != episode_id:
            raise Refused(f"event {event_id} belongs to episode {event['episode']}, not {episode_id}")
        events.append(event)
    authors = {e["author"] for e in events}
    if len(authors) != 1:
        raise Refused(f"one evidence reference cites one author; {episode_id} cites {len(authors)}")
    return {
        "episode": episode_id,
        "events": list(dict.fromkeys(event_ids)),
        "at": min(e["at"] for e in events),
        "author": authors.pop(),
        "pin": episode["pin"],
    }


def check_stated(view: View, stated: dict[str, Any]) -> dict[str, Any]:
    """Refuse a reference whose pin, time or author differ from what storage says."""
    rebuilt = rebuild(view, stated["episode"], stated["events"])
    for field in ("pin", "at", "author"):
        if field in stated and stated[field] != rebuilt[field]:
            raise Refused(
                f"evidence in {stated['episode']} states {field} {stated[field]!r}, "
                f"but storage says {rebuilt[field]!r}"
            )
    return rebuilt


def refs_serve(view: View, refs: list[dict[str, Any]], purpose: str) -> Verdict:
    """Do all these references still resolve and may every cited event serve ``purpose``?"""
    grants: list[str] = []
    for ref in refs:
        try:
            rebuilt = rebuild(view, ref["episode"], ref["events"])
        except Refused as exc:
            return Verdict(False, reason=str(exc), cause="missing")
        if rebuilt != ref:
            return Verdict(False, reason=f"evidence in {ref['episode']} no longer matches storage", cause="missing")
        for event_id in ref["events"]:
            verdict = decide(view, event_id, purpose)
            if not verdict.ok:
                return verdict
            grants.extend(verdict.grants)
    return Verdict(True, tuple(dict.fromkeys(grants)))


# Head branch names many pull requests share without being one change: a fork's default branch,
# and the ``patch-N`` (``USER-patch-N``) branches GitHub's web editor makes in a fork.
SHARED_BRANCHES = re.compile(
    r"(?:main|master|develop|development|dev|trunk|default|stable|staging|production|prod|release"
    r"|gh-pages|(?:[\w.-]+-)?patch-\d+)",
    re.IGNORECASE,
)


def pull_heads(pins: Iterable[Mapping[str, Any]]) -> dict[int, str]:
    """Each pull request's head branch, as the review PINS of it name it: GitHub gives a pull
    request one head branch, so one whose pins name two (anyone who can push can store a thread
    claiming any branch for any pull request) has none to go by. The names every fork has
    (:data:`SHARED_BRANCHES`) name no head."""
    named: dict[int, set[str]] = defaultdict(set)
    for pin in pins:
        if pin.get("pullRequest") is not None:
            branch = pin.get("branch")
            named[pin["pullRequest"]].update([branch] if branch and not SHARED_BRANCHES.fullmatch(branch) else [])
    return {number: next(iter(branches)) for number, branches in named.items() if len(branches) == 1}


def one_change(pins: Iterable[Mapping[str, Any]], commits: bool = True
               ) -> tuple[dict[int, tuple[int, ...]], dict[str, int]]:
    """Which pull requests the review PINS name are one change: those with one head branch
    (``pull_heads``) or (with COMMITS) sharing a commit a review saw (and, through them, any pull
    request sharing one with those). A pull
    request closed and opened again from the same branch (GitHub numbers it anew), from that
    branch pushed again after a force-push, from a fork's branch of the same name or from the
    same commits on a renamed branch is the same work under review, not a second change.
    Returns each pull request's change (the pull requests of it, in order), and each head
    branch's change by its first pull request. The groups depend on the pins alone, never on
    their order. A pin names no head repository, so the names every fork has or GitHub gives a
    change made in its editor (``main``, ``master``, ``develop``, ``patch-1``,
    ``alice-patch-2``: :data:`SHARED_BRANCHES`) join no pull requests: two forks' pull requests
    from ``main`` are two changes unless they share a commit. A branch name of its own used
    again for later work is one change with the earlier: counted short, never twice. A pull
    request whose pins name two head branches joins by neither: a thread claiming another pull
    request's branch makes no two changes one (it can part a pull request from the one it was
    opened again as, which any writer could as well by storing evidence of its own)."""
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        root = node
        while parent.setdefault(root, root) != root:
            root = parent[root]
        while parent[node] != root:
            parent[node], node = root, parent[node]
        return root

    def join(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    pinned = [pin for pin in pins if pin.get("pullRequest") is not None]
    heads = pull_heads(pinned)
    numbers: set[int] = set()
    for pin in pinned:
        pull = f"pr:{pin['pullRequest']}"
        numbers.add(pin["pullRequest"])
        find(pull)
        if pin["pullRequest"] in heads:
            join(pull, f"branch:{heads[pin['pullRequest']]}")
        if commits and pin.get("commit"):
            join(pull, f"commit:{pin['commit']}")
    groups: dict[str, list[int]] = defaultdict(list)
    for number in sorted(numbers):
        groups[find(f"pr:{number}")].append(number)
    changes = {n: group for group in map(tuple, groups.values()) for n in group}
    branches = {node[7:]: groups[find(node)][0] for node in list(parent) if node.startswith("branch:")}
    return changes, branches
