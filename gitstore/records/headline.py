"""A short title for a learning, made from its text: deterministic, never cut inside a word.

A title is what a person listing learnings reads first, and what a promotion's commit subject
and pull request name. Made from a text, it is the text's first sentence when that fits,
without its full stop; otherwise that sentence cut at its last clause break that fits (a comma,
semicolon, colon, dash or opening bracket), or failing one, at its last whole word that fits, and then it ends
with an ellipsis, so a reader knows there is more. One word longer than the whole limit (a long
link) is the only thing ever cut inside.
"""

from __future__ import annotations

import re
from typing import Any

LIMIT = 80  # characters of a title made from a text
ELLIPSIS = "…"
MIN_WORDS = 3  # a clause of fewer words says too little to stand as a title
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")
_CLAUSE_BREAK = re.compile(r"\s*(?:[,;:](?=\s)|\s[-\u2013\u2014](?=\s)|\u2014|\s[(\[])")
_TRAILING = " ,;:-\u2013\u2014"


def headline(text: str, limit: int = LIMIT) -> str:
    """The title ``text`` gives within ``limit`` characters (an ellipsis counted)."""
    flat = " ".join(text.split())
    end = _SENTENCE_END.search(flat)
    sentence = flat[:end.start()] if end else flat
    sentence = sentence.rstrip(_TRAILING) or flat
    if len(sentence) <= limit:
        return sentence
    keep = limit - len(ELLIPSIS)  # characters before the ellipsis
    near = sentence[:keep + 2]  # a break just past them still ends a clause within them
    breaks = [m.start() for m in _CLAUSE_BREAK.finditer(near)
              if m.start() <= keep and len(near[:m.start()].split()) >= MIN_WORDS]
    if breaks:
        return near[:breaks[-1]].rstrip(_TRAILING) + ELLIPSIS
    space = sentence.rfind(" ", 0, keep + 1)
    if space > 0:
        return sentence[:space].rstrip(_TRAILING) + ELLIPSIS
    return sentence[:keep] + ELLIPSIS


# Line breaks as Python's ``str.splitlines`` knows them (a CR LF pair one break).
_LINE_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
SHOWN_BREAK = "\u2424"  # how a line break is shown where text must stay on one line, as listings show it


def one_line(title: str) -> str:
    """TITLE with each line break shown as ``␤``: proposing refuses a title holding one, but a
    record added whole may hold one, and a title is written where a line break starts a line of
    its own (a skill's or a page's heading, a commit's subject); shown, the break is still seen."""
    return _LINE_BREAKS.sub(SHOWN_BREAK, title) if _LINE_BREAKS.search(title) else title


def title_for(content: Any, proposed_text: str) -> str:
    """The title to name a learning by: its own (on one line: ``one_line``), or, once a person
    edited its text at accept (accepting changes the text alone, so the title stays as
    proposed), the headline of the text they accepted, so nothing names a learning by words its
    edit corrected. ``proposed_text`` is the text of the learning's first version (revisions
    never change it)."""
    return one_line(str(content["title"])) if content["text"] == proposed_text else headline(content["text"])


def name_of(history: Any) -> str:
    """``title_for`` the current version of a learning's ``history`` (its versions in chain
    order, the first its proposal, whose text is the one proposed)."""
    return title_for(history.current["content"], history.chain[0].record["content"]["text"])
