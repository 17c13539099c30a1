"""A section of a Markdown file that gitstore owns, between two HTML comment markers.

```
<!-- gitstore:learnings:begin sha256:<digest of the body> -->
...body...
<!-- gitstore:learnings:end -->
```

Everything outside the markers is never touched: the file is the text before the begin marker,
the section, and the text after the end marker, byte for byte. A file without a section gets
one at its end, after exactly one blank line. The begin marker carries the digest of the body
gitstore wrote, so a hand edit inside the section is noticed (and treated as a conflict, not
overwritten). Comments are invisible in rendered Markdown; agents read the raw text.

A marker line inside a fenced code block (CommonMark: a line of three or more backticks or
tildes, indented at most three spaces, up to a line of the same character at least as long)
is an example, not a marker: a team documenting the format shows the markers so. Only a block
that closes counts: one left open would, as CommonMark reads it, hide the rest of the file,
the section too, so its marker lines are counted as markers (and refused when that breaks the
section). So are those of a block holding a begin marker that carries a digest: only gitstore
writes one, so that is its section, whatever made this reader take the lines around it for a
fence (an HTML comment or a list item holding a fence line, which CommonMark does not read so).

A byte order mark at the file's start (Notepad saves UTF-8 with one) is no part of its first
line: a marker line there is still one, and the mark stays where it is.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from gitstore.errors import InvalidInput

BOM = "\ufeff"
BEGIN = "<!-- gitstore:learnings:begin"
END = "<!-- gitstore:learnings:end -->"
_BEGIN_LINE = re.compile(r"<!-- gitstore:learnings:begin(?: (sha256:[0-9a-f]{64}))? -->[ \t]*\r?$", re.M)
_END_LINE = re.compile(r"<!-- gitstore:learnings:end -->[ \t]*\r?$", re.M)  # each matched from a line's start


def body_digest(body: str) -> str:
    """The digest a begin marker carries: of the body with its line endings as LF, so a checkout
    that turns them into CRLF (``core.autocrlf``, Git for Windows' default) keeps it."""
    return "sha256:" + hashlib.sha256(body.replace("\r\n", "\n").encode("utf-8")).hexdigest()


def _raw_digest(body: str) -> str:
    return "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Split:
    """A file cut around its section: before + section + after == the file."""

    before: str
    body: str | None  # None when the file has no section
    digest: str | None  # the digest the begin marker states
    after: str
    newline: str
    section: str = ""  # the section as the file holds it, markers included

    @property
    def edited(self) -> bool:
        """Whether the body differs from what gitstore wrote (the marker's digest), its line
        endings aside: the digest of its lines joined by LF, or, as an earlier version wrote it
        into a CRLF file, by CRLF."""
        if self.body is None:
            return False
        lf = self.body.replace("\r\n", "\n")
        return self.digest not in (body_digest(lf), _raw_digest(lf.replace("\n", "\r\n")), _raw_digest(self.body))


_FENCE = re.compile(r"^ {0,3}(`{3,}(?=[^`]*$)|~{3,})")  # an opening fence: a backtick one's info holds no backtick
_CLOSING = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")


def markers(text: str) -> tuple[list[re.Match[str]], list[re.Match[str]]]:
    """The begin and the end marker lines of ``text``, but those inside a fenced code block
    that closes (see the module's documentation)."""
    begins: list[re.Match[str]] = []
    ends: list[re.Match[str]] = []
    fence: str | None = None  # the opening fence of the block the line is in
    held: tuple[list[re.Match[str]], list[re.Match[str]]] = ([], [])  # marker lines of that block
    start = 1 if text.startswith(BOM) else 0  # a byte order mark an editor put first is not the line's
    for line in text[start:].split("\n"):
        read = line.rstrip("\r")
        found = begins, ends
        if fence is None:
            opening = _FENCE.match(read)
            if opening:
                fence, held = opening.group(1), ([], [])
        else:
            closing = _CLOSING.match(read)
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= len(fence):
                fence = None
                if any(match.group(1) for match in held[0]):  # a section gitstore wrote: its marker lines count
                    begins, ends = begins + held[0], ends + held[1]
            else:
                found = held
        for kind, pattern in zip(found, (_BEGIN_LINE, _END_LINE)):
            match = pattern.match(text, start, start + len(line))
            if match:
                kind.append(match)
        start += len(line) + 1
    if fence is not None:  # never closed: its marker lines count (all after those found)
        begins, ends = begins + held[0], ends + held[1]
    return begins, ends


def split(text: str, name: str) -> Split:
    """Cut ``text`` around its section; refuses a file with a broken or repeated section."""
    newline = "\r\n" if "\r\n" in text else "\n"
    begins, ends = markers(text)
    if not begins and not ends:
        return Split(text, None, None, "", newline)
    if len(begins) != 1 or len(ends) != 1 or ends[0].start() < begins[0].end():
        raise InvalidInput(f"{name}: the gitstore section's markers are broken or repeated; fix them by hand")
    begin, end = begins[0], ends[0]
    body_start = text.find("\n", begin.start()) + 1
    stop = text.find("\n", end.start())
    stop = len(text) if stop < 0 else stop + 1
    return Split(text[:begin.start()], text[body_start:end.start()], begin.group(1), text[stop:], newline,
                 text[begin.start():stop])


def render(body: str, newline: str) -> str:
    """The whole section (markers included) for ``body`` (lines joined by ``\\n``)."""
    body = body.replace("\n", newline)
    return f"{BEGIN} {body_digest(body)} -->{newline}{body}{END}{newline}"


def place(parts: Split, body: str) -> str:
    """The file with its section holding ``body``: in place, or appended after a blank line. A
    section that already holds it, as gitstore wrote it, stays byte for byte (its marker too,
    whose digest an earlier version took over CRLF endings)."""
    section = render(body, parts.newline)
    if parts.body is not None:
        if parts.body == body.replace("\n", parts.newline) and not parts.edited:
            return parts.before + parts.section + parts.after
        return parts.before + section + parts.after
    before = parts.before
    if before and not before.endswith(parts.newline):
        before += parts.newline
    if before.strip():
        before += parts.newline
    return before + section
