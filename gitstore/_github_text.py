"""Text gitstore writes where GitHub renders it and acts on it.

A learning's title and text, a review comment's words, an evidence pin's branch: anyone who
could comment or push wrote them. Written word for word into a pull request's description, a
job summary or a title, GitHub would act on them: ``@team`` notifies the team, a closing
keyword before ``#N`` closes issue N when the pull request merges (in a commit message, when
the commit reaches the default branch), ``#N`` and ``GH-N`` link and cross-reference, and
markdown links, images and HTML render as the writer chose. So such text is written in a form
GitHub shows and does not act on:

- ``code``: a value on one line, as a code span between runs of backticks longer than any it
  holds (no backtick of its own ends the span; in a table cell its pipes escaped, since GFM ends
  a cell at an unescaped pipe even inside a code span);
- ``block``: quoted prose, lines kept, as a fenced code block whose fence is longer than any
  run of backticks inside;
- ``plain``: a title or a commit message line, which GitHub reads as plain text: on one line,
  each mention, ``#N``, ``GH-N`` and URL scheme broken by a space so nothing refers to anything.

Control characters and bidirectional controls are shown as their pictures or codes
(``gitstore._shown.shown``) in all three.
"""

from __future__ import annotations

import re

from gitstore._shown import shown

_TICKS = re.compile(r"`+")
_MENTION = re.compile(r"(?<![A-Za-z0-9_`])@(?=[A-Za-z0-9_])")  # @user, @org/team (not an address)
_NUMBERED = re.compile(r"(#|\bGH-)(?=\d)", re.IGNORECASE)  # #N, owner/repo#N, GH-N
_SCHEME = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*):(?=//)")  # https://github.com/o/r/issues/N
_LIMIT = 200


def _longest_ticks(text: str) -> int:
    return max(map(len, _TICKS.findall(text)), default=0)


def code(value: str | None, *, cell: bool = False, limit: int = _LIMIT) -> str:
    """``value`` (``-`` for none) as one code span on one line, cut to ``limit`` characters; in a
    table ``cell``, its pipes escaped."""
    text = shown(" ".join((value or "-").split()))[:limit] or "-"
    fence = "`" * (_longest_ticks(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return fence + pad + (text.replace("|", "\\|") if cell else text) + pad + fence


def block(text: str, info: str = "text") -> str:
    """``text`` as a fenced code block (its lines kept, no newline after the closing fence)."""
    body = shown(text).rstrip("\n")
    fence = "`" * max(3, _longest_ticks(body) + 1)
    return f"{fence}{info}\n{body}\n{fence}"


def plain(text: str) -> str:
    """``text`` for a title or a commit message line: one line, with nothing GitHub would turn
    into a mention, an issue reference (so no closing keyword closes anything) or a link."""
    line = shown(" ".join(text.split()))
    line = _MENTION.sub("@ ", line)
    line = _NUMBERED.sub(lambda m: m.group(1) + " ", line)
    return _SCHEME.sub(lambda m: m.group(1) + " :", line)
