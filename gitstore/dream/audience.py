"""Audience: who a learning is for, with a one-line rationale stored on it.

- ``project``: only when the evidence is reproducible from the repository alone (its files,
  tests, reviews of its changes), with no dependence on one machine or person;
- ``user-tooling``: the evidence depends on a credential, an agent harness's behaviour or local
  tooling (or on a home path or machine, said by several people): it helps people set up
  their tools, never the project's wiki;
- ``personal``: one person's machine, home path or tools, or only one person's agent sessions.

Any environment-specific trace in the statement or in any supporting evidence forces
``user-tooling`` or ``personal``: a load-bearing claim about one machine must not read as a
fact about the project.
"""

from __future__ import annotations

from collections.abc import Sequence

from gitstore.dream import cues, terms
from gitstore.dream.view import Evidence
from gitstore.records import vocabulary

AUDIENCES = vocabulary.AUDIENCES


def classify(items: Sequence[Evidence], statement: str) -> tuple[str, str]:
    """The audience for a learning stating ``statement`` on this supporting evidence, and why."""
    people = {e.person for e in items if e.person}
    traces: dict[str, str] = {}
    for text in (statement, *(e.text for e in items)):
        for what, audience in cues.environment(terms.masked(text).lower()):
            traces.setdefault(what, audience)
    if items and all(e.source == "agent-session" for e in items) and len(people) <= 1:
        return "personal", "Only one person's agent sessions support it; personal sessions stay on this machine."
    personal = [what for what, audience in traces.items() if audience == "personal"]
    if personal and len(people) <= 1:
        return "personal", f"It depends on {_list(personal)}, and only one person says so."
    if traces:
        return "user-tooling", (
            f"It depends on {_list(sorted(traces))}, not on the repository alone, so it is for "
            f"people's tooling and never for the project's wiki."
        )
    paths = sorted({e.path for e in items if e.path})
    about = f"its files ({', '.join(paths[:3])}{', ...' if len(paths) > 3 else ''})" if paths else "its code"
    return "project", (
        f"Reproducible from the repository alone: the evidence is about {about}, with no home path, "
        f"machine, personal tool, credential or agent harness in it."
    )


def _list(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
