"""The route selection rubric: deterministic, applied in order, its reasons kept in the packet.

1. ``personal`` learnings are never promoted.
2. ``user-tooling`` goes to the local overlay (route 0, ``overlay``).
   A learning kept in the local namespace (it cites a personal session, or its history is
   local) is at most a staged brief: no commit holds its words or what its sessions ran.
3. ``procedural`` memory becomes a skill (``skill``) when its evidence spans several contexts
   (pull requests, else branches, else sessions); from one context it is only a staged brief.
4. ``semantic`` project knowledge is a direct edit of its owning page (route 1,
   ``direct-edit``) when it is narrow: one paragraph of plain text of at most
   ``NARROW_CHARS`` characters, replacing no other learning, owned by exactly one page.
   Anything broader or structural (a new page, several pages, a replacement, structured or long
   text) is a staged update (route 2, ``staged-update``) for a producer run.

A person may ask for a stricter route than the rubric's, never a looser one: strictness grows
from an edit of canon (``direct-edit``, ``skill``) to a staged brief that edits nothing
(``staged-update``) to a page that stays on this machine (``overlay``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gitstore.errors import Refused
from gitstore.promote.blocks import CITED, MARKER_START, shown_name
from gitstore.promote.routing import Routing
from gitstore.rules.evidence import one_change

ROUTES = ("overlay", "direct-edit", "staged-update", "skill")
NUMBERS = {"0": "overlay", "1": "direct-edit", "2": "staged-update", "procedural": "skill"}
STRICTNESS = {"direct-edit": 0, "skill": 0, "staged-update": 1, "overlay": 2}
NARROW_CHARS = 600
MIN_CONTEXTS = 2
_STRUCTURE = re.compile(r"^\s*(?:#|[-*+]\s|\d+[.)]\s|>|\||```|~~~|<)|\n\s*\n", re.MULTILINE)


@dataclass(frozen=True)
class Verdict:
    """The rubric's route and the reasons, in the order the rules applied."""

    route: str
    reasons: tuple[str, ...]


def contexts(learning: dict[str, Any]) -> set[str]:
    """The distinct contexts its evidence comes from: a pull request, else a branch, else a
    session or thread."""
    found = set()
    for ref in learning["evidence"]:
        pin = ref["pin"]
        if pin["pullRequest"]:
            found.add(f"pull request #{pin['pullRequest']}")
        elif pin["branch"]:
            found.add(f"branch {shown_name('pin.branch', pin['branch'])}")
        else:
            found.add(f"episode {ref['episode']}")
    return found


def structure_of(text: str) -> str | None:
    """Why a text is not one paragraph of plain text (None when it is)."""
    if _STRUCTURE.search(text):
        return "it is structured (several paragraphs, headings, lists, tables, code or markup)"
    if MARKER_START in text or any(line.startswith(CITED) for line in text.split("\n")):
        return "it holds gitstore's own block syntax"
    return None


def choose(learning: dict[str, Any], routing: Routing | None, *, local: bool = False) -> Verdict:
    """The rubric's route for an accepted learning (``routing``: the wiki's owner, when the
    learning is semantic project knowledge; ``local``: the learning is kept in the local
    namespace, its evidence or history personal)."""
    audience, memory = learning["audience"], learning["memory"]
    if audience == "personal":
        raise Refused(f"{learning['id']} is personal: personal learnings are never promoted")
    if audience == "user-tooling":
        return Verdict("overlay", ("audience user-tooling: the local tooling overlay (route 0)",))
    if local:
        return Verdict("staged-update", (
            "its evidence or history is personal (kept on this machine): nothing of it goes into a commit, "
            "and no other clone could check its citations: a staged brief instead (route 2)",))
    if memory == "procedural":
        return _procedural(learning)
    return _semantic(learning, routing)


def distinct(learning: dict[str, Any]) -> int:
    """How many of its contexts are distinct: pull requests sharing a head branch or a commit
    (one closed and opened again from its branch, or from its commits on a renamed one) are one
    change (``rules.evidence.one_change``), and a branch one of them was opened from is that
    change too: one context however many numbers GitHub gave it."""
    joined, heads = one_change(ref["pin"] for ref in learning["evidence"])
    found: set[tuple[str, Any]] = set()
    for ref in learning["evidence"]:
        pin = ref["pin"]
        if pin["pullRequest"]:
            found.add(("change", joined[pin["pullRequest"]][0]))
        elif pin["branch"]:
            found.add(("change", heads[pin["branch"]]) if pin["branch"] in heads else ("branch", pin["branch"]))
        else:
            found.add(("episode", ref["episode"]))
    return len(found)


def _procedural(learning: dict[str, Any]) -> Verdict:
    found = sorted(contexts(learning))
    count = distinct(learning)
    seen = ", ".join(found) + ("" if count == len(found) else
                               "; pull requests sharing a head branch or commit, and their branches, are one change")
    if count >= MIN_CONTEXTS:
        return Verdict("skill", (f"procedural memory seen in {count} contexts ({seen}): a skill",))
    return Verdict("staged-update", (
        f"procedural memory seen in {count} context ({seen}); a skill needs "
        f"{MIN_CONTEXTS}: a staged brief instead (route 2)",))


def _semantic(learning: dict[str, Any], routing: Routing | None) -> Verdict:
    text = learning["content"]["text"]
    first = "audience project, semantic memory: the wiki"
    broad = structure_of(text)
    if broad:
        return Verdict("staged-update", (first, f"broad: {broad} (route 2)"))
    if len(text) > NARROW_CHARS:
        return Verdict("staged-update", (first, f"broad: {len(text)} characters, more than {NARROW_CHARS} (route 2)"))
    if learning["replaces"]:
        return Verdict("staged-update", (first, f"structural: it replaces {', '.join(learning['replaces'])} (route 2)"))
    if routing is None or routing.owner is None:
        why = routing.problem if routing else "no wiki to route through"
        return Verdict("staged-update", (first, f"structural: {why} (route 2)"))
    owner = routing.owner
    where = f"{owner.page}, section {owner.section!r}" if owner.section else f"{owner.page}, at its end"
    return Verdict("direct-edit", (first, f"narrow: one paragraph of {len(text)} characters",
                                   f"owned by {where}: {'; '.join(owner.reasons[:-1]) or 'routing'} (route 1)"))


def route_name(value: str) -> str:
    """A route as named on the command line (0, 1, 2, procedural, or its name) -> its name."""
    name = NUMBERS.get(value, value)
    if name not in ROUTES:
        raise Refused(f"unknown route {value!r}: one of 0 (overlay), 1 (direct-edit), 2 (staged-update), "
                      "procedural (skill)")
    return name


def apply_request(verdict: Verdict, requested: str | None) -> str:
    """The route to take: the rubric's, or a stricter one a person asked for."""
    if requested is None or requested == verdict.route:
        return verdict.route
    if STRICTNESS[requested] <= STRICTNESS[verdict.route]:
        raise Refused(f"--route {spelled(requested)} is not stricter than the rubric's {spelled(verdict.route)}: "
                      f"a person may only ask for a stricter route ({_stricter(verdict.route)})")
    return requested


def spelled(route: str) -> str:
    """A route with both spellings `--route` takes, as its help gives them: ``procedural (skill)``,
    ``1 (direct-edit)``; whichever one the person typed is named."""
    return next((f"{alias} ({name})" for alias, name in NUMBERS.items() if name == route), route)


def _stricter(route: str) -> str:
    options = [spelled(r) for r in ROUTES if STRICTNESS[r] > STRICTNESS[route]]
    return "stricter: " + ", ".join(options) if options else "none is stricter"
