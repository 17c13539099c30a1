"""Route 0: a page of the local tooling overlay ``okf/wiki/tooling/``.

The overlay holds what one person learned about their own tools. git ignores it, so it stays
on this machine; no committed index lists it; and each of its pages has exactly one outgoing
link, to the project knowledge it relates to.
"""

from __future__ import annotations

import re
from posixpath import relpath
from typing import Any

from gitstore.promote import blocks
from gitstore.promote.okf import escape_entry_text
from gitstore.promote.routing import OVERLAY, WIKI
from gitstore.promote.skills import skill_name

FOLDER = f"{WIKI}/{OVERLAY}"


def path_for(name: str) -> str:
    """Where the overlay page of a learning named ``name`` goes (``gitstore.records.headline.title_for``)."""
    return f"{FOLDER}/{skill_name(name)}.md"


def render(learning: dict[str, Any], name: str, link: tuple[str, str], at: str) -> str:
    """The page of ``learning``, titled ``name`` (``gitstore.records.headline.title_for``): front
    matter, the promoted block, and its one link (title, repository path)."""
    title, target = link
    href = relpath(target, FOLDER)
    first = re.split(r"(?<=[.!?])\s", " ".join(learning["content"]["text"].split()), maxsplit=1)[0]
    citation = [blocks.Citation("learning", f"{learning['id']}@{learning['contentDigest']}")]
    block = blocks.render(learning["id"], learning["contentDigest"], learning["content"]["text"], citation)
    stamp = at.replace(".000000Z", "Z") if at.endswith(".000000Z") else at
    return (
        "---\n"
        "type: Tooling Note\n"
        f"title: {_yaml_text(name)}\n"
        f"description: {_yaml_text(first)}\n"
        "tags: [tooling]\n"
        f"generated: {{ by: process:gitstore-promote, at: {stamp} }}\n"
        "---\n\n"
        f"# {name}\n\n"
        f"{block}\n"
        f"Related project knowledge: [{escape_entry_text(title)}]({href}).\n"  # one link, whatever the title holds
    )


def _yaml_text(value: str) -> str:
    import json

    return json.dumps(" ".join(value.split()), ensure_ascii=False)
