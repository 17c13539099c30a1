"""The promoted block: how a learning's text sits in a wiki page or a skill, bound to the store.

A promotion writes the accepted text between a marker and a citation line::

    <!-- gitstore:promoted lrn_<32 hex> sha256:<contentDigest> -->
    Every retry loop uses exponential backoff with full jitter.
    Cited: `src/retry.py@82db174c...`; `lrn_<32 hex>@sha256:<contentDigest>`.

The marker is an HTML comment, invisible when the page is rendered; it names the learning and the
contentDigest of the version promoted, so the gates can find every promoted claim, check that it
carries a citation a reader can follow, and compare its text with the accepted learning. A
citation is one of: ``path@commit`` (a file at a commit), ``lrn_<id>@sha256:<digest>`` (the
learning itself, shown by ``gitstore show``), a command in backticks followed by ``exited N``
(a test and its result), or ``<URL> (accessed YYYY-MM-DD)``.
"""

from __future__ import annotations

import re
from collections import namedtuple

MARKER = re.compile(r"^<!-- gitstore:promoted (lrn_[0-9a-f]{32}) (sha256:[0-9a-f]{64}) -->$")
MARKER_START = "<!-- gitstore:promoted"
CITED = "Cited: "
CONTINUED = "text directly after the Cited: line, with no blank line between, reads as part of the promoted block of"
_SOURCE = re.compile(r"^`(?P<path>[^`@\s][^`@]*)@(?P<commit>[0-9a-f]{7,64})`$")
_LEARNING = re.compile(r"^`(?P<id>lrn_[0-9a-f]{32})@(?P<digest>sha256:[0-9a-f]{64})`$")
_TEST = re.compile(r"^(?P<fence>`+) ?(?P<command>.+?) ?(?P=fence) exited (?P<code>-?[0-9]{1,3})$")
_URL = re.compile(r"^<(?P<url>https?://[^>\s]+)> \(accessed (?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})\)$")


class Citation(namedtuple("Citation", "kind ref")):
    """One citation of a promoted block: its ``kind`` (source, learning, test or url, as in the
    packet contract) and its ``ref``."""

    __slots__ = ()


class Block(namedtuple("Block", "line learning content_digest statement citations cited_line unreadable continued",
                       defaults=((),))):
    """A promoted block found in a text: ``line`` (1-based, of its marker), the ``learning`` and
    ``content_digest`` its marker names, the ``statement`` it holds, its ``citations``, the line
    of its ``Cited:`` line (``cited_line``, None when it has none), the citation items that
    follow no known form (``unreadable``) and the lines that continue its paragraph after the
    ``Cited:`` line (``continued``): with no blank line between, a reader and an agent read them
    as part of the promoted paragraph, so they are part of the block."""

    __slots__ = ()


def code_span(text: str) -> str:
    """``text`` as a markdown code span, with enough backticks to hold any it contains."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_citation(citation: Citation) -> str:
    """One citation as it is written on a ``Cited:`` line."""
    if citation.kind == "test":
        command, _, code = citation.ref.rpartition(" -> exit ")
        return f"{code_span(command)} exited {code}"
    if citation.kind == "url":
        url, _, date = citation.ref.partition(" accessed ")
        return f"<{url}> (accessed {date})"
    return f"`{citation.ref}`"


def marker(learning: str, content_digest: str) -> str:
    """The marker line opening the block of ``learning`` (no line break)."""
    return f"<!-- gitstore:promoted {learning} {content_digest} -->"


def render(learning: str, content_digest: str, statement: str, citations: list[Citation]) -> str:
    """The block's lines (no surrounding blank lines), ending with a newline."""
    cited = "; ".join(render_citation(c) for c in citations)
    return f"{marker(learning, content_digest)}\n{statement}\n{CITED}{cited}.\n"


def parse_citations(line: str) -> tuple[list[Citation], list[str]]:
    """The citations of a ``Cited:`` line, and the items that follow no known form."""
    body = line[len(CITED):].rstrip()
    body = body[:-1] if body.endswith(".") else body
    found: list[Citation] = []
    unreadable: list[str] = []
    for item in (part.strip() for part in _split_items(body)):
        citation = _citation(item)
        if citation is None:
            unreadable.append(item)
        else:
            found.append(citation)
    return found, unreadable


def _split_items(body: str) -> list[str]:
    """Split on ``; `` outside code spans (a command may hold a semicolon)."""
    if "``" not in body and all(part.count("`") % 2 == 0 for part in body.split("; ")):
        return [item for item in body.split("; ") if item.strip()]
    items, current, fence, i = [], [], "", 0
    while i < len(body):
        run = re.match(r"`+", body[i:])
        if run:
            ticks = run.group(0)
            fence = "" if fence == ticks else (fence or ticks)
            current.append(ticks)
            i += len(ticks)
            continue
        if not fence and body.startswith("; ", i):
            items.append("".join(current))
            current = []
            i += 2
            continue
        current.append(body[i])
        i += 1
    items.append("".join(current))
    return [item for item in items if item.strip()]


def _citation(item: str) -> Citation | None:
    if match := _LEARNING.match(item):
        return Citation("learning", f"{match['id']}@{match['digest']}")
    if match := _TEST.match(item):
        return Citation("test", f"{match['command']} -> exit {match['code']}")
    if match := _URL.match(item):
        return Citation("url", f"{match['url']} accessed {match['date']}")
    if match := _SOURCE.match(item):
        return Citation("source", f"{match['path']}@{match['commit']}")
    return None


# A fence as CommonMark reads one: three or more backticks or tildes, indented at most three
# spaces; after backticks, an info string holding no backtick (three backticks, then a`b, is text).
_FENCE = re.compile(r"^ {0,3}(`{3,}(?=[^`]*$)|~{3,})")
# A heading as CommonMark reads one: one to six ``#`` followed by a space, a tab or nothing.
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")


def is_blank(line: str) -> bool:
    """Whether ``line`` (without its line ending) is blank as CommonMark reads it: empty, or
    only spaces and tabs. Other whitespace (a no-break space, U+2000 to U+200A, an ideographic
    space, a form feed) is text to a renderer: a line of it ends no paragraph, and the text
    after it renders in the paragraph before."""
    return not line.strip(" \t")


def _outside_code(lines: list[str]) -> list[int]:
    """Indexes of the lines outside fenced code blocks (an example of a block is not one)."""
    found, fence = [], ""
    for index, line in enumerate(lines):
        match = _FENCE.match(line) if "`" in line or "~" in line else None
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = ""
        elif match:
            fence = match.group(1)
        else:
            found.append(index)
    return found


def find(text: str) -> list[Block]:
    """Every promoted block in a text, in order, wherever its marker sits: inside fenced code
    too, and after a fence that never closes. Agents read the file as it is, not as it renders,
    so a fence hides nothing from them; an example of the block writes placeholders
    (``lrn_<id>``), which are no marker."""
    if MARKER_START not in text:
        return []
    lines = text.split("\n")
    blocks = []
    for index, line in enumerate(lines):
        if line.startswith(MARKER_START):
            match = MARKER.match(line.rstrip("\r"))
            if match:
                blocks.append(_block(lines, index, match.group(1), match.group(2)))
    return blocks


def _block(lines: list[str], index: int, learning: str, digest: str) -> Block:
    statement: list[str] = []
    for number in range(index + 1, len(lines)):
        line = lines[number].rstrip("\r")
        if line.startswith(CITED):
            citations, unreadable = parse_citations(line)
            return Block(index + 1, learning, digest, "\n".join(statement), tuple(citations),
                         number + 1, tuple(unreadable), _continued(lines, number + 1))
        if is_blank(line) or MARKER.match(line):
            break
        statement.append(line)
    return Block(index + 1, learning, digest, "\n".join(statement), (), None, ())


def _continued(lines: list[str], start: int) -> tuple[str, ...]:
    """The lines from ``start`` that continue the paragraph a ``Cited:`` line ends: up to a
    blank line (``is_blank``), the end of the text, a marker, a heading or a fence, as
    CommonMark reads them. Anything else a renderer would start a block of its own with (a list,
    a quote) is read as continuing it: stricter than a renderer, never looser."""
    found = []
    for number in range(start, len(lines)):  # never a copy of the rest: a page of many blocks reads each once
        line = lines[number].rstrip("\r")
        if is_blank(line) or line.startswith(MARKER_START) or _HEADING.match(line) or _FENCE.match(line):
            break
        found.append(line)
    return tuple(found)


def markers_without_shape(text: str) -> list[int]:
    """Lines (1-based) that start like a marker but do not follow its form (outside code), and
    lines anywhere, fenced code included, that hold a full marker (``holds_marker``) yet are not
    one as promote writes it (indented, inside other text, spaced or spelled otherwise)."""
    if MARKER_START not in text and not might_hold_marker(text):
        return []
    lines = text.split("\n")
    outside = set(_outside_code(lines))
    return [n + 1 for n, line in enumerate(lines)
            if not MARKER.match(line.rstrip("\r"))
            and ((n in outside and line.lstrip().startswith(MARKER_START)) or holds_marker(line))]


# What a full marker holds, however it is spelled: its id, 32 hexadecimal digits once HTML
# entities, hidden characters, compatibility forms, look-alike letters, spaces and punctuation are
# read through. Read as UTF-8 bytes: a run that holds 32 hexadecimal digits or bytes of other
# characters, with ASCII spaces and punctuation between (and `x`, as in a hexadecimal entity's
# `&#x61;`), and that no other ASCII letter breaks, nor a CJK ideograph or Hangul syllable (their
# lead bytes E5-E9, EB, EC: letters that are no digit). No character, nor entity, reads as more
# hexadecimal digits than it has bytes counted (full-width `０` has 3, `½` 2, `⑽` 3; `&#48;` 2,
# `&#x30;` 2), so a marker however spelled holds such a run, and most prose none. The promotion
# gate hands the same pattern to `git log -G` (git reads it byte by byte, in the C locale).
_COUNTED = b"0-9A-Fa-f\x80-\xe4\xea\xed-\xff"  # the bytes a run counts
_BETWEEN = b"^0-9A-WYZa-wyz\x80-\xff"  # the bytes it may hold between them
HINT = b"([" + _COUNTED + b"][" + _BETWEEN + b"]*){32}"
# A named entity stands for a character its name does not spell (`&sup2;` a `2`, `&aopf;` a
# mathematical `a`), and its letters break a run: what git is handed lets through every line
# holding one too, and ``might_hold_marker`` reads such a line with its entities decoded.
GIT_HINT = HINT + b"|&[A-Za-z][A-Za-z0-9]{1,31};"
_FULL = re.compile(r"gitstorepromotedlrn[0-9a-f]{32}sha256[0-9a-f]{64}")


def _runs() -> tuple[bytes, bytes]:
    """``HINT`` as a translation of bytes: each byte a run counts becomes ``x``, each it may
    hold between them is deleted, and any other (a letter that is no digit, a lead byte of CJK
    or Hangul) becomes ``|``. Text holds a match of ``HINT`` exactly when its translation holds
    32 ``x`` in a row: searching for that is linear in the text and done in C, where the pattern
    starts again at every byte that counts (a fifth of a wiki page's time in the OKF gate)."""
    counted, between = re.compile(b"[" + _COUNTED + b"]"), re.compile(b"[" + _BETWEEN + b"]")
    table = bytes(0x78 if counted.match(bytes((b,))) else 0x7C for b in range(256))
    return table, bytes(b for b in range(256) if between.match(bytes((b,))))


_RUN_TABLE, _RUN_GAPS = _runs()
_RUN = b"x" * 32


def might_hold_marker(text: str) -> bool:
    """Whether ``text`` may hold a full marker (``HINT`` matches its UTF-8 bytes, as written or
    with its HTML entities decoded): when not, ``holds_marker`` is False for each of its lines,
    and nothing need be normalized."""
    if _RUN in text.encode("utf-8", "surrogatepass").translate(_RUN_TABLE, _RUN_GAPS):
        return True
    if "&" not in text:
        return False
    import html

    decoded = html.unescape(text)
    return decoded != text and _RUN in decoded.encode("utf-8", "surrogatepass").translate(_RUN_TABLE, _RUN_GAPS)


def holds_marker(line: str) -> bool:
    """Whether ``line`` holds a full marker (a real-looking learning id and digest), read as a
    reader would: hidden characters dropped, compatibility forms and look-alike letters made
    plain, case, spaces and punctuation ignored. A documentation example with placeholders
    (``lrn_<id> sha256:<digest>``) holds none."""
    if not might_hold_marker(line):
        return False
    from gitstore.safety.hidden import as_read

    return bool(_FULL.search(as_read(line)))


def shown_name(part: str, value: str) -> str:
    """A name any clone that can push chose (a decider's person id, part ``decision.by``; an
    evidence pin's branch, ``pin.branch``) as a promotion writes it, in a brief, a page, a
    commit message or a pull request, and as promote prints it: screened as listings screen it
    (withheld, saying why, where the scanner quarantines it; a secret redacted), on one line."""
    from gitstore._shown import one_line
    from gitstore.queries.learnings import screened_name

    return one_line(screened_name(part, value)[0])
