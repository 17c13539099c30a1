"""Markup that hides words from a person reading a text rendered, while an agent reads them all.

GitHub, like every Markdown renderer, shows nothing of an HTML comment: the words of a review
comment's ``<!-- ... -->`` are invisible to the reviewers who read the thread, yet they are in the
raw text gitstore captures, and would reach a learning, a published file, an agent. A comment
holding words is quarantined (``hidden-markup``), unless it is code: a code span or a fenced
block shows it as it is. An empty comment hides nothing, and gitstore's own markers (a promoted
block's, the managed section's) hold ids and digests only.

Only free text is judged here: a repository file's comments (``scan(text, path=...)``) are its
authors' own. The text is read once, in order: code spans are matched as CommonMark matches
them (a run of backticks closes at the next run of the same length in the same paragraph).
"""

from __future__ import annotations

import bisect
import re

_OPEN, _CLOSE = "<!--", "-->"
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)$", re.M)
_BLANK = re.compile(r"\n[ \t]*\r?\n")
_TICKS = re.compile(r"`+")
_OWN = re.compile(r" gitstore:(?:promoted lrn_[0-9a-f]{32} sha256:[0-9a-f]{64}"
                  r"|learnings:begin(?: sha256:[0-9a-f]{64})?|learnings:end) ")


def hidden_markup_count(text: str) -> int:
    """How many HTML comments outside code in ``text`` hold words (see the module's docstring)."""
    if _OPEN not in text:
        return 0
    code = _code(text)
    starts = [start for start, _ in code]
    count, at = 0, text.find(_OPEN)
    while at >= 0:
        i = bisect.bisect_right(starts, at) - 1
        if i >= 0 and at < code[i][1]:  # shown as code: look past it
            at = text.find(_OPEN, code[i][1])
            continue
        end = text.find(_CLOSE, at + len(_OPEN))
        inner = text[at + len(_OPEN):end if end >= 0 else len(text)]
        if inner.strip() and not _OWN.fullmatch(inner):
            count += 1
        if end < 0:
            break
        at = text.find(_OPEN, end + len(_CLOSE))
    return count


def _code(text: str) -> list[tuple[int, int]]:
    """Where ``text`` shows as code, in order: fenced blocks (an unclosed one runs to the end)
    and, in the prose between them, code spans."""
    found: list[tuple[int, int]] = []
    prose = 0
    opened: tuple[int, str] | None = None
    for fence in _FENCE.finditer(text):
        run = fence.group(1)
        if opened is None:
            if run[0] == "`" and "`" in fence.group(2):
                continue  # not a fence: an info string may not hold a backtick
            found.extend(_spans(text, prose, fence.start()))
            opened = (fence.start(), run)
        elif run[0] == opened[1][0] and len(run) >= len(opened[1]) and not fence.group(2).strip():
            found.append((opened[0], fence.end()))
            prose, opened = fence.end(), None
    if opened is not None:
        found.append((opened[0], len(text)))
    else:
        found.extend(_spans(text, prose, len(text)))
    return found


def _spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The code spans of ``text[start:end]``, paragraph by paragraph: a run of backticks opens
    one that the next run of the same length closes; a run left unclosed is text."""
    found = []
    for paragraph_start, paragraph_end in _paragraphs(text, start, end):
        runs = [(m.start(), m.end()) for m in _TICKS.finditer(text, paragraph_start, paragraph_end)]
        closing: list[int | None] = [None] * len(runs)
        seen: dict[int, int] = {}
        for i in range(len(runs) - 1, -1, -1):  # each run's next run of its length
            length = runs[i][1] - runs[i][0]
            closing[i] = seen.get(length)
            seen[length] = i
        i = 0
        while i < len(runs):
            j = closing[i]
            if j is None:
                i += 1
                continue
            found.append((runs[i][0], runs[j][1]))
            i = j + 1
    return found


def _paragraphs(text: str, start: int, end: int) -> list[tuple[int, int]]:
    found, at = [], start
    for blank in _BLANK.finditer(text, start, end):
        found.append((at, blank.start()))
        at = blank.end()
    found.append((at, end))
    return found


__all__ = ["hidden_markup_count"]
