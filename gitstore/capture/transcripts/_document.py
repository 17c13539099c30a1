"""A large JSON document read value by value, its text decoded a chunk at a time, never whole.

Gemini CLI keeps a session as one JSON document that grows with the session. Read whole, its
text cost several times the file: Python holds four bytes a character of a text once one of its
characters (an emoji) is past U+FFFF. Here the file is decoded as it is read (invalid UTF-8 as
U+FFFD, as a decode of the whole file has it), and each value is decoded by Python's ``json``
where it starts, as ``JSONDecoder.raw_decode`` decodes it in the whole text: what is held is a
chunk of text and the value being read.
"""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path
from typing import Any, BinaryIO

from gitstore.capture.transcripts._read import BAD, too_large
from gitstore.errors import InvalidInput

CHUNK = 1 << 18  # bytes read at a time
_DECODE = json.JSONDecoder().raw_decode
_STRUCTURE = re.compile(r'[\[\]{}"]')
_IN_STRING = re.compile(r'[^"\\]*+(?:\\.[^"\\]*+)*+', re.S)  # possessive: no backtracking stack
_SCALAR_END = re.compile(r'[ \t\r\n,\[\]{}"]')
_OPENING = {"]": ord("["), "}": ord("{")}
_OTHER_KIND = -1
_LOOKAHEAD = 3  # what a number's decoding looks at past its end (".5", "e+5"): there, or the end
# A pattern ``Text.find`` takes: a quoted name of at most NAME_CHARS characters, then whitespace, a
# colon and whitespace, of at most GAP_CHARS characters, before what it looks for
NAME_CHARS = 64
GAP_CHARS = 1 << 20
_GAP = re.compile(r"\s*(?::\s*)?")
SKIPPED = object()  # a value ``Text.value(skip=True)`` could not decode, read past (nested too deep)


class Text:
    """The text of a document from ``pos`` on; read further as it is needed."""

    def __init__(self, path: Path, handle: BinaryIO, limit: int) -> None:
        self.path, self.handle, self.limit = path, handle, limit
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.size = 0
        self.done = False  # the file is read to its end
        self.text = ""
        self.pos = 0
        self.searched = 0  # characters ``find`` searched, counted (tests check it grows with the text)

    def piece(self) -> str | None:
        """The next chunk's text, or None once the file is read to its end. A document over
        ``limit`` bytes is refused, however far it was read."""
        while not self.done:
            try:
                chunk = self.handle.read(CHUNK)
            except OSError as exc:
                raise InvalidInput(f"{self.path}: cannot read ({exc.strerror or exc})") from None
            self.size += len(chunk)
            if self.size > self.limit:
                raise too_large(self.path, self.limit)
            if not chunk:
                self.done = True
                return self.decoder.decode(b"", final=True) or None
            piece: str = self.decoder.decode(chunk)
            if piece:
                return piece
        return None

    def more(self) -> bool:
        """Add the next chunk's text, leaving out what is before ``pos``; False at the end."""
        piece = self.piece()
        if piece is None:
            return False
        self.text, self.pos = self.text[self.pos:] + piece, 0
        return True

    def find(self, pattern: re.Pattern[str]) -> str | None:
        """The text before PATTERN's first match, with ``pos`` after the match; None when there
        is none. PATTERN is a quoted name and no other quote (``"messages"\\s*:\\s*\\[``; see
        ``NAME_CHARS``), so a match a chunk's end cuts starts at one of the last two quotes read,
        and only the tail of the text read that could still start one is searched again with the
        next chunk (``_could_start``): each character is searched about once, however long the
        text before the match runs without a quote."""
        before: list[str] = []
        window = self.text[self.pos:]
        while (found := pattern.search(window)) is None:
            self.searched += len(window)
            piece = self.piece()
            if piece is None:
                return None
            keep = _could_start(window)
            before.append(window[:keep])
            window = window[keep:] + piece
        before.append(window[: found.start()])
        self.text, self.pos = window, found.end()
        return "".join(before)

    def skip(self, pattern: re.Pattern[str]) -> str | None:
        """Move ``pos`` past PATTERN's match there (a run of separators); the character after
        it, or None at the end of the document."""
        while True:
            self.pos = pattern.match(self.text, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.more():
                return None

    def value(self, skip: bool = False) -> Any:
        """The JSON value at ``pos`` (not at the end) as ``raw_decode`` reads it in the whole
        text, with ``pos`` after it; BAD when there is none, and the text is then read no further.
        With SKIP, an object, array or string that cannot be decoded though its extent closes
        (nested deeper than the decoder goes, a bad escape or literal inside it) is ``SKIPPED``,
        with ``pos`` after it, so what follows it is still read; so is a bad literal (``nul``),
        with ``pos`` at the ``,`` or ``]`` after it that ends the array's member.

        Decoded where it lies when the text at hand holds it and what decoding it looked at past
        it; else read on to where it ends first (``_Extent``), holding no more than it."""
        if not self.done and len(self.text) - self.pos < CHUNK:
            self.more()
        try:
            value, end = _DECODE(self.text, self.pos)
        except (ValueError, RecursionError):
            if self.done and not skip:
                return BAD
        else:
            if end + _LOOKAHEAD <= len(self.text) or self.done:
                self.pos = end
                return value
        return self._read_on(skip)

    def _read_on(self, skip: bool = False) -> Any:
        """``value`` when the value may go on past the text at hand (or, with SKIP, when it
        cannot be decoded): its extent is read, then decoded once."""
        extent = _Extent(self.text[self.pos])
        pieces: list[str] = []
        piece, start = self.text, self.pos
        while (end := extent.scan(piece, start)) is None:
            pieces.append(piece[start:])
            following = self.piece()
            if following is None:  # the document ends inside the value
                if not extent.scalar:
                    return BAD  # an object, array or string never closed
                piece, start, end = "", 0, 0
                break
            piece, start = following, 0
        if end == _OTHER_KIND:
            return BAD
        pieces.append(piece[start:end])
        text = "".join(pieces)
        try:
            value, used = _DECODE(text, 0)
        except (ValueError, RecursionError):
            if not skip:
                return BAD
            if extent.scalar:  # a bad literal (``nul``): what follows it up to the next member
                return self._skip_member(piece, end)
            self.text, self.pos = piece[end:], 0
            return SKIPPED
        self.text, self.pos = text[used:] + piece[end:], 0
        return value

    def _skip_member(self, piece: str, start: int) -> Any:
        """``SKIPPED``, with ``pos`` at the ``,`` or ``]`` that ends the array's member at START
        in PIECE (a bad literal and whatever follows it, brackets and strings counted as
        ``_Extent`` counts them); BAD when the document ends first or a bracket does not match."""
        rest = _Rest()
        while (end := rest.scan(piece, start)) is None:
            following = self.piece()
            if following is None:
                return BAD
            piece, start = following, 0
        if end == _OTHER_KIND:
            return BAD
        self.text, self.pos = piece[end:], 0
        return SKIPPED

    def step(self) -> None:
        """Move ``pos`` past the character there."""
        self.pos += 1

    def prepend(self, text: str) -> None:
        """Put TEXT before ``pos``, to be read first."""
        self.text, self.pos = text + self.text[self.pos:], 0

    def blank(self) -> bool:
        """Whether the rest of the document is whitespace (``str.isspace``), or nothing."""
        rest: str | None = self.text[self.pos:]
        while rest is not None:
            if rest.strip():
                return False
            rest = self.piece()
        return True


class _Extent:
    """Where a JSON value ends, found a piece of text at a time: the closing bracket that brings
    its nesting back to none, or the closing quote of a string, brackets and quotes counting
    only outside strings (where a backslash escapes the next character); the first delimiter
    after a number or a literal. A valid value ends there and nowhere else, and no value can
    have a closing bracket of the other kind nor end inside a string or bracket: so decoding
    what the extent holds gives what decoding the whole text gives."""

    def __init__(self, first: str) -> None:
        self.scalar = first not in '{["'
        self.nesting = bytearray()  # the brackets open, one byte each
        self.in_string = False
        self.escaped = False  # the last piece ended with a backslash in a string

    def scan(self, text: str, start: int) -> int | None:
        """The index in TEXT just past the value's end, ``_OTHER_KIND`` when a closing bracket
        does not match, None when the value goes on past TEXT."""
        if self.scalar:
            found = _SCALAR_END.search(text, start)
            return None if found is None else found.start()
        position = start
        while True:
            if self.in_string:
                after = self._string(text, position)
                if after is None or not self.nesting:
                    return after
                position = after
            found = _STRUCTURE.search(text, position)
            if found is None:
                return None
            position, mark = found.end(), found.group()
            if mark == '"':
                self.in_string = True
            elif mark in "[{":
                self.nesting.append(ord(mark))
            elif not self.nesting or self.nesting.pop() != _OPENING[mark]:
                return _OTHER_KIND
            elif not self.nesting:
                return position

    def _string(self, text: str, position: int) -> int | None:
        """Past the string's closing quote in TEXT, or None when the string goes on past it."""
        if self.escaped:
            if position >= len(text):
                return None
            position, self.escaped = position + 1, False
        end = _IN_STRING.match(text, position).end()  # type: ignore[union-attr]
        if end == len(text):
            return None
        if text[end] == "\\":  # the text ends between a backslash and what it escapes
            self.escaped = True
            return None
        self.in_string = False
        return end + 1


class _Rest(_Extent):
    """Where the rest of an array's member ends: at the ``,`` or ``]`` outside strings and
    brackets (never past it)."""

    _MARKS = re.compile(r'[\[\]{}",]')

    def __init__(self) -> None:
        super().__init__("")

    def scan(self, text: str, start: int) -> int | None:
        position = start
        while True:
            if self.in_string:
                after = self._string(text, position)
                if after is None:
                    return None
                position = after
            found = self._MARKS.search(text, position)
            if found is None:
                return None
            mark = found.group()
            if not self.nesting and mark in ",]":
                return found.start()
            position = found.end()
            if mark == '"':
                self.in_string = True
            elif mark == ",":
                continue
            elif mark in "[{":
                self.nesting.append(ord(mark))
            elif not self.nesting or self.nesting.pop() != _OPENING[mark]:
                return _OTHER_KIND


def _could_start(text: str) -> int:
    """Where the shortest tail of TEXT starts that could still begin a match of a pattern
    ``Text.find`` takes once more text follows: the second quote from the end when what follows
    the last is whitespace and a colon (at most ``GAP_CHARS``) and a name of at most
    ``NAME_CHARS`` characters lies between the two; else the last quote when at most
    ``NAME_CHARS`` characters follow it; else the end (no tail)."""
    last = text.rfind('"')
    if last < 0:
        return len(text)
    after = len(text) - last - 1
    if after <= GAP_CHARS and _GAP.fullmatch(text, last + 1):
        before = text.rfind('"', max(0, last - NAME_CHARS - 1), last)
        if before >= 0:
            return before
    return last if after <= NAME_CHARS else len(text)
