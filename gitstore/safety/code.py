"""Where a Markdown text shows as code: what a reader sees there is shown as it is, not acted on.

A finder that judges markup (a hidden comment, a script link) looks past what a renderer shows
as code: fenced blocks (an unclosed one runs to the end of the text) and, in the prose between
them, code spans, matched as CommonMark matches them (a run of backticks closes at the next run
of the same length in the same paragraph). The text is read once, in order; the spans are worked
out only when a finder has something to judge. Indented code blocks are found apart
(:func:`indented_code`), for the finders a doubt about them leaves on the safe side.
"""

from __future__ import annotations

import bisect
import re

from gitstore.safety import lazy

_FENCE = lazy.Pattern(r"^ {0,3}(`{3,}|~{3,})([^\n]*)$", re.M)
_BLANK = lazy.Pattern(r"\n[ \t]*\r?\n")
_TICKS = lazy.Pattern(r"`+")
_PAIR = lazy.Pattern(r"`[^`]*`")  # a span between two lone backticks
# an indented code block: lines four spaces or a tab in, over blank lines, up to a line less
# indented; at the start of the text, or after a blank line that follows a line of prose at the
# margin (a line opening no list item, whose paragraph the same lines may be part of)
_INDENT = r"(?: {4}| {0,3}\t)"
_AT_MARGIN = r"(?![-+*](?:[ \t]|\r?$)|\d{1,9}[.)](?:[ \t]|\r?$))\S[^\n]*+\n(?:[ \t]*+\r?\n)+"
_INDENTED = lazy.Pattern(
    rf"(?:\A|^{_AT_MARGIN})(?P<code>{_INDENT}[^\n]*+(?:\n(?:[ \t]*+(?=\r?\n|\Z)|{_INDENT})[^\n]*+)*+)", re.M)


class Code:
    """The stretches of a text shown as code, in order, never overlapping."""

    def __init__(self, text: str) -> None:
        self.spans = _code(text)
        self._starts = [start for start, _ in self.spans]

    def end_around(self, at: int) -> int | None:
        """The end of the stretch of code that position AT is in, or None when it is in prose."""
        i = bisect.bisect_right(self._starts, at) - 1
        if i >= 0 and at < self.spans[i][1]:
            return self.spans[i][1]
        return None


def indented_code(text: str) -> list[tuple[int, int]]:
    """Where ``text`` shows as an indented code block, in order: lines four spaces or a tab in,
    at the start or after a blank line that follows a line of prose at the margin.

    Read on the safe side of the doubt for a finder that looks for uses, not for hidden words:
    after a list item, or after an indented line (maybe inside an item or a quote), the same
    lines may be a paragraph of the item, so they are not counted as code. That is why these
    blocks are not among :class:`Code`'s, which finders of hidden markup look past."""
    if "    " not in text and "\t" not in text:
        return []
    return [m.span("code") for m in _INDENTED.finditer(text)]


def code_stretches(text: str) -> list[tuple[int, int]]:
    """Every stretch of ``text`` that shows as code, fenced, inline or indented (:class:`Code`
    and :func:`indented_code`), in order and never overlapping: for a reader that leaves all
    of what is shown as code as written."""
    stretches: list[tuple[int, int]] = []
    at = 0
    for start, end in sorted([*Code(text).spans, *indented_code(text)]):
        start = max(start, at)
        if end > start:
            stretches.append((start, end))
            at = end
    return stretches


def _code(text: str) -> list[tuple[int, int]]:
    """Where ``text`` shows as code, in order: fenced blocks (an unclosed one runs to the end)
    and, in the prose between them, code spans."""
    found: list[tuple[int, int]] = []
    if "`" not in text and "~" not in text:
        return found
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
    one that the next run of the same length closes; a run left unclosed is text. Outside a
    span, a backslash makes the backtick after it a plain one (``\\```): the run opens with the
    backticks after it, if any. Inside one, a backslash is only a character."""
    found: list[tuple[int, int]] = []
    for paragraph_start, paragraph_end in _paragraphs(text, start, end):
        escapes = text.find("\\`", paragraph_start, paragraph_end) >= 0
        if escapes or text.find("``", paragraph_start, paragraph_end) >= 0:
            found.extend(_runs_spans(text, paragraph_start, paragraph_end, escapes))
        else:
            found.extend(_single_spans(text, paragraph_start, paragraph_end))
    return found


def _single_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The code spans of a paragraph whose every run is one backtick, none escaped: each closes
    the one before it (one search, not a look at each run)."""
    return list(map(re.Match.span, _PAIR.finditer(text, start, end)))


def _runs_spans(text: str, start: int, end: int, escapes: bool) -> list[tuple[int, int]]:
    """The code spans of a paragraph whose runs may be longer than one backtick, or escaped."""
    found = []
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text, start, end)]
    closing: list[int | None] = [None] * len(runs)
    seen: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):  # each run's next run of its length
        length = runs[i][1] - runs[i][0]
        closing[i] = seen.get(length)
        seen[length] = i
    at_length: dict[int, list[int]] = {}  # the runs of each length, in order (for escaped ones)
    i = 0
    while i < len(runs):
        s, j = runs[i][0], closing[i]
        if escapes and _escaped(text, s, start):
            s += 1
            j = _next_of_length(runs, at_length, i, runs[i][1] - s)
        if j is None:
            i += 1
            continue
        found.append((s, runs[j][1]))
        i = j + 1
    return found


def _next_of_length(runs: list[tuple[int, int]], at_length: dict[int, list[int]], i: int,
                    length: int) -> int | None:
    """The first run after run ``i`` that is ``length`` backticks long (none for 0)."""
    if length == 0:
        return None
    if not at_length:
        for k, (s, e) in enumerate(runs):
            at_length.setdefault(e - s, []).append(k)
    later = at_length.get(length, [])
    k = bisect.bisect_right(later, i)
    return later[k] if k < len(later) else None


def _escaped(text: str, at: int, start: int) -> bool:
    """Whether an odd number of backslashes stands right before ``text[at]`` (from ``start``)."""
    before = at
    while before > start and text[before - 1] == "\\":
        before -= 1
    return (at - before) % 2 == 1


def _paragraphs(text: str, start: int, end: int) -> list[tuple[int, int]]:
    found, at = [], start
    for blank in _BLANK.finditer(text, start, end):
        found.append((at, blank.start()))
        at = blank.end()
    found.append((at, end))
    return found


__all__ = ["Code", "code_stretches", "indented_code"]
