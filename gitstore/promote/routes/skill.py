"""The procedural route: a skill at ``.agents/skills/<name>/SKILL.md`` (the Agent Skills format).

The name comes from the learning's title (lowercase words joined by hyphens, at most 64
characters) and is the folder's name. The front matter holds only the specification's keys:
``name``, a ``description`` (the title and the text's first sentence, at most 1024 characters)
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


def path_for(learning: dict[str, Any]) -> str:
    """Where the skill of a learning goes."""
    return f"{SKILLS}/{skill_name(learning['content']['title'])}/{FILE_NAME}"


def description(learning: dict[str, Any]) -> str:
    """What the skill does and when to use it: the title, then the text's first sentence."""
    title = " ".join(learning["content"]["title"].split()).rstrip(".")
    text = " ".join(learning["content"]["text"].split())
    sentence = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    value = f"{title}. {sentence}" if sentence and sentence.rstrip(".") != title else f"{title}."
    if len(value) > DESCRIPTION_MAX:
        value = value[: DESCRIPTION_MAX - 1].rsplit(" ", 1)[0] + "…"
    return value


def render(learning: dict[str, Any], citations: list[blocks.Citation], contexts: list[str]) -> str:
    """The SKILL.md text."""
    name = skill_name(learning["content"]["title"])
    front = [
        "---",
        f"name: {name}",
        f"description: {json.dumps(description(learning), ensure_ascii=False)}",
        "metadata:",
        f"  gitstore-learning: {learning['id']}",
        f"  gitstore-content-digest: \"{learning['contentDigest']}\"",
        "---",
    ]
    block = blocks.render(learning["id"], learning["contentDigest"], learning["content"]["text"], citations)
    learned = [f"- {context}" for context in contexts]
    body = [f"# {learning['content']['title']}", "", block.rstrip("\n"), "", "## Where this was learned", "",
            f"Accepted by {learning['decision']['by']} from evidence in {len(contexts)} contexts:", "", *learned]
    return "\n".join(front + [""] + body) + "\n"
