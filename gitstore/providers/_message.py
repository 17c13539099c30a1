"""The records commit message: an append's place in store order and the records it stored.

A summary line, then headers (``Gitstore-Format``, ``Clock``, ``Writer``, ``Namespace``, and
``Policy``, ``Seen`` and ``Removes`` where they apply), then one line per record in position
order: ``<digest> <kind> <stream>``. Parsing refuses anything off format.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Container, Iterable, Iterator
from typing import NamedTuple, Protocol

from gitstore.providers._names import WRITER_PATTERN

FORMAT = "1"
SIGNATURE_NAME = "gitstore"  # author and committer of every memory commit: only its time varies
SIGNATURE_EMAIL = "gitstore@localhost"
# A Clock header holds at most 15 digits: an append never writes a larger clock, which its own
# reads would refuse.
LAST_CLOCK = 10**15 - 1
# An append names each other writer's tip it saw that its earlier appends had not named: at most
# one per records ref it read (a writer's shared and local refs, each remote's copy), for a team of
# a few hundred writers. A pushed message of 200,000 made every clone's sync and read 20x slower
# (each named commit is looked up); more than this is damage, refused before any is parsed.
MAX_SEEN = 4096


class Line(Protocol):
    """What a record line says of a record."""

    @property
    def digest(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def stream(self) -> str: ...


class Append(NamedTuple):
    """An append commit's header without its record lines: its place in store order, what it
    had seen and removed, the policy it was signed under, and the kinds of the records it
    stored. Histories keep these, not a tuple per record (lines are parsed again when read)."""

    clock: int
    writer: str
    namespace: str
    kinds: frozenset[str]
    removes: tuple[str, ...] = ()
    seen_text: str = ""  # its Seen headers' values, checked, each ``<writer> <commit>`` and a newline
    policy: str | None = None

    @property
    def seen(self) -> tuple[tuple[str, str], ...]:
        """(writer, commit) of the other writers' tips it had seen, in header order: split when
        asked, as only causal order and verify follow them (a read of a team of a thousand
        writers meets half a million)."""
        return tuple(_SEEN_VALUE.findall(self.seen_text))


class Header(NamedTuple):
    """The parsed head of a records commit message."""

    clock: int
    writer: str
    namespace: str
    lines: tuple[tuple[str, str, str], ...]  # (digest, kind, stream) in position order
    removes: tuple[str, ...] = ()  # payload digests this append removed, with notes in its tree
    seen: tuple[tuple[str, str], ...] = ()  # (writer, commit) of other writers' tips it had seen
    policy: str | None = None  # the policy commit a signed append was made under


def format_message(clock: int, writer: str, namespace: str, entries: Iterable[Line],
                   removes: Iterable[str] = (), seen: Iterable[tuple[str, str]] = (),
                   policy: str | None = None) -> str:
    """The records commit message: a summary, headers, then one line per record. ValueError
    for a clock a message cannot hold (``parse_message`` would refuse it)."""
    if not 0 < clock <= LAST_CLOCK:
        raise ValueError(f"clock {clock} is past the {len(str(LAST_CLOCK))} digits a Clock header holds")
    entries = list(entries)
    lines = [
        f"gitstore: append {len(entries)} record{'s' if len(entries) != 1 else ''}",
        "",
        f"Gitstore-Format: {FORMAT}",
        f"Clock: {clock}",
        f"Writer: {writer}",
        f"Namespace: {namespace}",
        *([f"Policy: {policy}"] if policy else []),
        *(f"Seen: {w} {commit}" for w, commit in seen),
        *(f"Removes: {digest}" for digest in removes),
        "",
    ]
    lines.extend(f"{e.digest} {e.kind} {e.stream}" for e in entries)
    return "\n".join(lines) + "\n"


_REPEATED = ("Removes", "Seen")
_COMMIT = re.compile(r"^[0-9a-f]{40}\Z")
_LINE = re.compile(r"^(sha256:[0-9a-f]{64}) ([a-z]+) (\S{1,200})\Z")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}\Z")
_RECORD = re.compile(r"(sha256:[0-9a-f]{64}) ([a-z]+) ([^\s]{1,200})\n")
_BLOCK = re.compile(r"(?:sha256:[0-9a-f]{64} [a-z]+ [^\s]{1,200}\n)+")
_KIND = re.compile(r" ([a-z]+) ")  # in a record line only the kind has a space on each side


class Committed(Protocol):
    """What ``message_of`` reads of a commit (a ``pygit2.Commit``)."""

    @property
    def message_encoding(self) -> str | None: ...

    @property
    def raw_message(self) -> bytes: ...


def message_of(commit: Committed) -> str:
    """COMMIT's message as an append is read: its bytes as UTF-8, which every append writes,
    naming no other encoding. ``ValueError`` otherwise, as for a message that is no append's:
    a commit whose ``encoding`` header names a codec Python lacks makes pygit2's decoding raise
    ``LookupError`` (anyone who can push can write one), and one naming a codec it has would be
    read one way here and another by git."""
    encoding = commit.message_encoding
    if encoding is not None:
        raise ValueError(f"commit names the encoding {encoding[:40]!r}: an append is UTF-8 and names none")
    try:
        return commit.raw_message.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"commit message is not UTF-8 (byte {exc.start})") from None


def parse_message(message: str) -> Header:
    """Parse a records commit message, refusing anything off format."""
    clock, fields, removes, seen, policy, block = _parse_head(message)
    lines = _RECORD.findall(block)
    # matches never overlap, so they cover the whole block exactly when their lengths add up to it
    if not lines or sum(len(d) + len(k) + len(s) + 3 for d, k, s in lines) != len(block):
        _refuse_block(block)
    return Header(clock, fields.get("Writer", ""), fields.get("Namespace", ""), tuple(lines), removes,
                  tuple(_SEEN_VALUE.findall(seen)), policy)


def record_lines(message: str) -> Iterator[tuple[str, str, str]]:
    """A records commit message's record lines (digest, kind, stream) in position order, one at
    a time, from a message whose format was checked (``parse_order``): each line is then its
    three fields and two spaces, so it is cut at those, not matched again (a read passes over
    a bulk append's every line, once per kind it reads). A line that is not three fields
    raises ValueError."""
    text, start, stop = _block_in(message)
    find = text.find
    end = find("\n", start, stop)
    while end >= 0:
        yield _fields(text[start:end])
        start, end = end + 1, find("\n", end + 1, stop)


def record_lines_of(message: str, streams: Container[str]) -> Iterator[tuple[int, str, str, str]]:
    """(position, digest, kind, stream) of each record line of one of ``streams``, in position
    order, from a message whose format was checked (``parse_order``): a read of many streams
    (a learning's cited episodes) passes over every line of the appends that hold any, and
    cuts only those it keeps into fields, the others told by their last field alone. A line
    kept that is not three fields raises ValueError."""
    text, start, stop = _block_in(message)
    find, rfind = text.find, text.rfind
    position, end = 0, find("\n", start, stop)
    while end >= 0:
        at = rfind(" ", start, end)
        if at >= 0 and text[at + 1:end] in streams:
            yield position, *_fields(text[start:end])
        position += 1
        start, end = end + 1, find("\n", end + 1, stop)


def record_lines_holding(message: str, marks: Iterable[str]) -> Iterator[tuple[int, str, str, str]]:
    """(position, digest, kind, stream) of each record line holding one of ``marks`` (such as
    ``" event "`` or ``" <stream>\\n"``), in position order, from a message whose format was
    checked (``parse_order``), as ``record_lines`` gives them: found by searching the block (in
    C), not by going through its every line (a read of one stream passes over a bulk append of
    thousands). The caller keeps only the lines it wants among these: a mark finds every line
    that holds it, and may find more. A line that is not three fields raises ValueError."""
    text, first, stop = _block_in(message)
    find = text.find
    position, counted, last = 0, first, -1
    for start in heapq.merge(*(_line_starts(text, mark, first, stop) for mark in marks)):
        if start == last:  # a line holding two marks, or one twice
            continue
        position += text.count("\n", counted, start)
        counted = last = start
        yield position, *_fields(text[start:find("\n", start, stop)])


def _line_starts(text: str, mark: str, first: int, stop: int) -> Iterator[int]:
    """Where each line of ``text[first:stop]`` holding ``mark`` starts, in order, one at a
    time (a read holds a line at a time, not a list of every line found)."""
    if not mark:
        raise ValueError("an empty mark finds every line")
    find, rfind = text.find, text.rfind
    at = find(mark, first, stop)
    while at >= 0:
        before = rfind("\n", first, at)
        yield first if before < 0 else before + 1
        at = find(mark, at + 1, stop)


def _fields(line: str) -> tuple[str, str, str]:
    fields = line.split(" ")
    if len(fields) != 3:
        raise ValueError(f"bad record line {line[:80]!r}")
    return fields[0], fields[1], fields[2]


def _block_in(message: str) -> tuple[str, int, int]:
    """``_split``'s record block as ``text[start:stop]``: the message itself, not a copy of
    its block (a bulk append's is megabytes, read once per pass), when the block's last line
    ends in a newline of the message."""
    at = message.find("\n\n")
    at = -1 if at < 0 else message.find("\n\n", at + 2)
    if at < 0:
        return "\n", 0, 1
    start, stop = at + 2, len(message)
    if message.endswith("\n\n"):
        stop = len(message.rstrip("\n"))  # a copy, only for a message ending in blank lines
    elif message.endswith("\n"):
        stop -= 1
    if stop <= start:
        return "\n", 0, 1
    if stop < len(message):
        return message, start, stop + 1
    return message[start:] + "\n", 0, len(message) - start + 1


def parse_order(message: str) -> Append:
    """A records commit message's header and record kinds, refusing anything off format as
    ``parse_message`` does, without a tuple per record line."""
    clock, fields, removes, seen, policy, block = _parse_head(message)
    if not _BLOCK.fullmatch(block):
        _refuse_block(block)
    return Append(clock, fields.get("Writer", ""), fields.get("Namespace", ""), frozenset(_KIND.findall(block)),
                  removes, seen, policy)


def _parse_head(message: str) -> tuple[int, dict[str, str], tuple[str, ...], str, str | None, str]:
    """The clock, header fields, removed payloads, Seen headers (their values, each ending in a
    newline), policy and record block of a commit message."""
    whole, headers, block = _split(message)
    if not whole:
        raise ValueError("commit message is not a gitstore append")
    seen_count = headers.count("\nSeen: ") + headers.startswith("Seen: ")
    if seen_count > MAX_SEEN:
        raise ValueError(f"{seen_count} Seen headers, over the {MAX_SEEN} an append may carry (one for each "
                         "other writer's tip it had seen)")
    seen, rest = _seen_headers(headers, seen_count)
    pairs = [line.split(": ", 1) for line in rest.splitlines() if ": " in line]
    fields = {key: value for key, value in pairs if key not in _REPEATED}
    removes = tuple(value for key, value in pairs if key == "Removes")
    if seen is None:
        seen = seen_text(_seen_lines([value for key, value in pairs if key == "Seen"]))
    policy = fields.get("Policy")
    if policy is not None and not _COMMIT.match(policy):
        raise ValueError(f"bad Policy {policy[:80]!r}")
    if fields.get("Gitstore-Format") != FORMAT:
        raise ValueError(f"unknown Gitstore-Format {fields.get('Gitstore-Format')!r}")
    clock = fields.get("Clock", "")
    if not (clock.isascii() and clock.isdigit()) or len(clock) > len(str(LAST_CLOCK)):  # str.isdigit takes "٣" too
        raise ValueError(f"bad Clock {clock!r}")
    bad = [r for r in removes if not _DIGEST.match(r)]
    if bad or len(set(removes)) != len(removes):
        raise ValueError(f"bad Removes {(bad or removes)[0][:80]!r}")
    return int(clock), fields, removes, seen, policy, block


def _split(message: str) -> tuple[bool, str, str]:
    """Whether a message has a summary, headers and a record block, each after a blank line;
    its headers; and its record block, ending in one newline."""
    _, sep, body = message.partition("\n\n")
    headers, sep2, records = body.partition("\n\n")
    return bool(sep and sep2), headers, records.rstrip("\n") + "\n"


def _refuse_block(block: str) -> None:
    for raw in block.splitlines():
        if not _LINE.match(raw):
            raise ValueError(f"bad record line {raw[:80]!r}")
    raise ValueError("append commit lists no records, one per line")


# Seen values joined, each ``<writer> <commit>`` and a newline: what ``_seen_line`` accepts, read in C
_SEEN_VALUE = re.compile(r"([a-z0-9][a-z0-9-]{0,63}) ([0-9a-f]{40})\n")
# ``Seen`` header lines of that shape, one after another
_SEEN_RUN = re.compile(r"(?:Seen: [a-z0-9][a-z0-9-]{0,63} [0-9a-f]{40}\n)+")
# What ``str.splitlines`` also takes for a line's end, in ASCII text
_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e")


def seen_text(pairs: Iterable[tuple[str, str]]) -> str:
    """``Append.seen_text`` of these (writer, commit) pairs."""
    return "".join(f"{writer} {commit}\n" for writer, commit in pairs)


def _seen_headers(headers: str, count: int) -> tuple[str | None, str]:
    """The values of the ``count`` Seen headers and the other headers, taken out with string
    methods when the Seen headers are well formed and follow one another, as appends write
    them (each of a team's appends names about as many tips as there are writers, and every
    read parses every append's); (None, headers) otherwise, to be split line by line and the
    first header off format named."""
    if not headers.isascii() or any(mark in headers for mark in _OTHER_BREAKS):
        return None, headers  # lines other than a newline's: the line-by-line reading decides
    if not count:
        return "", headers
    text = headers + "\n"
    start = 0 if text.startswith("Seen: ") else text.find("\nSeen: ") + 1
    end = text.index("\n", text.rindex("Seen: ")) + 1
    if not _SEEN_RUN.fullmatch(text, start, end) or text.count("\n", start, end) != count:
        return None, headers
    # the run's lines start "Seen: " and nothing else in them holds a colon
    return text[start:end].replace("Seen: ", ""), text[:start] + text[end:]


def _seen_lines(values: list[str]) -> tuple[tuple[str, str], ...]:
    """The ``Seen`` headers' values, each checked as ``_seen_line`` checks it. A team's appends
    each name the tips their writer had seen, so every read parses about as many of these as
    there are writers, for every append: matched in one pass, not one by one in Python."""
    if not values:
        return ()
    joined = "\n".join(values) + "\n"
    found = _SEEN_VALUE.findall(joined)
    # matches never overlap and each ends at a value's end: they are the values exactly when
    # their lengths add up to the whole
    if sum(len(writer) + 42 for writer, _ in found) == len(joined):
        return tuple(found)
    return tuple(_seen_line(value) for value in values)  # names the first that is off format


def _seen_line(value: str) -> tuple[str, str]:
    """One ``Seen: <writer> <commit>`` header's value."""
    writer, _, commit = value.partition(" ")
    if not WRITER_PATTERN.match(writer) or not _COMMIT.match(commit):
        raise ValueError(f"bad Seen {value[:80]!r}")
    return writer, commit
