"""The procedural route: a skill at ``.agents/skills/<name>/SKILL.md`` (the Agent Skills format).

The name comes from the title the learning is named by (``gitstore.records.headline.title_for``:
its own, or, once a person edited its text at accept, the headline of the accepted text), as
lowercase words joined by hyphens, at most 64 characters (a title in another script ends in a
digest of it, ``skill_name``), and is the folder's name; the same
title is the heading. The front matter holds only the specification's keys: ``name``, a
``description`` (that title and the text's first sentence, at most 1024 characters)
and ``metadata`` binding the skill to the learning it came from. The body holds the promoted
block and where the procedure was learned.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gitstore.promote import blocks
from gitstore.promote.skills import DESCRIPTION_MAX, FILE_NAME, skill_name

SKILLS = ".agents/skills"


def path_for(title: str) -> str:
    """Where the skill of a learning named ``title`` goes."""
    return f"{SKILLS}/{skill_name(title)}/{FILE_NAME}"


def description(learning: dict[str, Any], title: str) -> str:
    """What the skill does and when to use it: the title, then the text's first sentence."""
    title = " ".join(title.split()).rstrip(".")
    text = " ".join(learning["content"]["text"].split())
    sentence = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    value = f"{title}. {sentence}" if sentence and sentence.rstrip(".") != title else f"{title}."
    if len(value) > DESCRIPTION_MAX:
        value = value[: DESCRIPTION_MAX - 1].rsplit(" ", 1)[0] + "…"
    return value


def render(learning: dict[str, Any], title: str, citations: list[blocks.Citation], contexts: list[str]) -> str:
    """The SKILL.md text of ``learning``, named ``title`` (``gitstore.records.headline.title_for``)."""
    name = skill_name(title)
    front = [
        "---",
        f"name: {name}",
        f"description: {json.dumps(description(learning, title), ensure_ascii=False)}",
        "metadata:",
        f"  gitstore-learning: {learning['id']}",
        f"  gitstore-content-digest: \"{learning['contentDigest']}\"",
        "---",
    ]
    block = blocks.render(learning["id"], learning["contentDigest"], learning["content"]["text"], citations)
    learned = [f"- {context}" for context in contexts]
    body = [f"# {title}", "", block.rstrip("\n"), "", "## Where this was learned", "",
            f"Accepted by {blocks.shown_name('decision.by', learning['decision']['by'])} from evidence in "
            f"{len(contexts)} contexts:", "", *learned]
    return "\n".join(front + [""] + body) + "\n"
