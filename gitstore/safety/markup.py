"""Markup that hides words from a person reading a text rendered, while an agent reads them all.

GitHub, like every Markdown renderer, shows nothing of an HTML comment: the words of a review
comment's ``<!-- ... -->`` are invisible to the reviewers who read the thread, yet they are in the
raw text gitstore captures, and would reach a learning, a published file, an agent. A comment
holding words is quarantined (``hidden-markup``), unless it is code: a code span or a fenced
block shows it as it is. An empty comment hides nothing, and gitstore's own markers (a promoted
block's, the managed section's) hold ids and digests only.

Only free text is judged here: a repository file's comments (``scan(text, path=...)``) are its
authors' own. What shows as code is found by :mod:`~gitstore.safety.code`.
"""

from __future__ import annotations

import re

from gitstore.safety.code import Code

_OPEN, _CLOSE = "<!--", "-->"
_OWN = re.compile(r" gitstore:(?:promoted lrn_[0-9a-f]{32} sha256:[0-9a-f]{64}"
                  r"|learnings:begin(?: sha256:[0-9a-f]{64})?|learnings:end) ")


def hidden_markup_count(text: str) -> int:
    """How many HTML comments outside code in ``text`` hold words (see the module's docstring)."""
    if _OPEN not in text:
        return 0
    code = Code(text)
    count, at = 0, text.find(_OPEN)
    while at >= 0:
        if (past := code.end_around(at)) is not None:  # shown as code: look past it
            at = text.find(_OPEN, past)
            continue
        end = text.find(_CLOSE, at + len(_OPEN))
        inner = text[at + len(_OPEN):end if end >= 0 else len(text)]
        if inner.strip() and not _OWN.fullmatch(inner):
            count += 1
        if end < 0:
            break
        at = text.find(_OPEN, end + len(_CLOSE))
    return count


__all__ = ["hidden_markup_count"]
