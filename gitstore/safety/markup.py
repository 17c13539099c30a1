"""Markup that hides words from a person reading a text rendered, while an agent reads them all.

GitHub, like every Markdown renderer, shows nothing of an HTML comment: the words of a review
comment's ``<!-- ... -->`` are invisible to the reviewers who read the thread, yet they are in the
raw text gitstore captures, and would reach a learning, a published file, an agent. The same
holds for the other raw HTML a renderer passes on and a browser hides: a processing instruction
(``<? ... ?>``), a CDATA section and a declaration (``<!DOCTYPE ...>``). One holding words is
quarantined (``hidden-markup``), unless it is code: a code span or a fenced block shows it as it
is. An empty comment hides nothing, and gitstore's own markers (a promoted
block's, the managed section's) hold ids and digests only.

Only free text is judged here: a repository file's comments (``scan(text, path=...)``) are its
authors' own. What shows as code is found by :mod:`~gitstore.safety.code`.
"""

from __future__ import annotations

import re

from gitstore.safety.code import Code

# What a renderer passes on as raw HTML that a browser shows nothing of: a comment, a
# processing instruction, a CDATA section and a declaration (CommonMark's kinds of raw HTML
# besides tags); each opener, and what closes it.
_OPEN = re.compile(r"<!--|<\?|<!\[CDATA\[|<![A-Za-z]")
_CLOSES = {"<!--": "-->", "<?": "?>", "<![CDATA[": "]]>"}
_OWN = re.compile(r" gitstore:(?:promoted lrn_[0-9a-f]{32} sha256:[0-9a-f]{64}"
                  r"|learnings:begin(?: sha256:[0-9a-f]{64})?|learnings:end) ")


def hidden_markup_count(text: str) -> int:
    """How many HTML comments, processing instructions, CDATA sections and declarations
    outside code in ``text`` hold words (see the module's docstring)."""
    if "<!" not in text and "<?" not in text:
        return 0
    code = Code(text)
    count, found, unclosed = 0, _OPEN.search(text), set()
    while found is not None:
        at = found.start()
        if (past := code.end_around(at)) is not None:  # shown as code: look past it
            found = _OPEN.search(text, past)
            continue
        opener = found.group()
        close = _CLOSES.get(opener, ">")
        inner_start = found.end() if opener in _CLOSES else at + 2  # a declaration's name is a word of it
        end = -1 if close in unclosed else text.find(close, inner_start)
        if end < 0 and opener != "<!--":  # only a comment left open hides the rest; the others are text then
            unclosed.add(close)  # nothing later closes one either: never looked for again
            found = _OPEN.search(text, found.end())
            continue
        inner = text[inner_start:end if end >= 0 else len(text)]
        if inner.strip() and not (opener == "<!--" and _OWN.fullmatch(inner)):
            count += 1
        if end < 0:
            break
        found = _OPEN.search(text, end + len(close))
    return count


__all__ = ["hidden_markup_count"]
