"""Tolerant parsers for coding-agent transcripts: Claude Code, Codex CLI, Gemini CLI, OpenCode.

Pure parsing, no storage: ``parse_transcript(path)`` reads a session file and returns a frozen
``Transcript`` (turns, tool calls, files touched, commands, test runs, and a count of every
record as parsed, unknown or malformed). Unknown record types and malformed records are
skipped and counted, never fatal; a file that cannot be read or is no transcript at all
raises ``gitstore.errors.InvalidInput`` with a one-line message naming it. Texts and lists
are bounded by ``Limits``. The same file always parses to an equal Transcript.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from pathlib import Path

from gitstore.errors import InvalidInput
from gitstore.capture.transcripts._model import DEFAULT_LIMITS, HARNESSES, ROLES, Counts, Limits, ToolCall, Transcript, Turn
from gitstore.capture.transcripts._read import SQLITE_HEADER, read_head, require_file

# The parser of each harness, a module of this package imported when a transcript of that
# harness is read: a capture hook reads one harness's transcript and imports one parser.
_PARSERS = {"claude-code": "claude", "codex": "codex", "gemini-cli": "gemini", "opencode": "opencode"}


def _parser(harness: str) -> Callable[[Path, Limits], Transcript]:
    """The parse function for ``harness``'s transcripts; InvalidInput for a harness we do not read."""
    module = _PARSERS.get(harness)
    if module is None:
        raise InvalidInput(f"unknown harness {harness!r}; expected one of {', '.join(HARNESSES)}")
    parse: Callable[[Path, Limits], Transcript] = import_module(f"{__name__}.{module}").parse
    return parse


def detect_harness(path: Path | str) -> str:
    """``claude-code``, ``codex``, ``gemini-cli`` or ``opencode``, from the file's content."""
    from gitstore.capture.transcripts._detect import detect  # it imports the Codex, Gemini CLI and OpenCode parsers

    return detect(Path(path), DEFAULT_LIMITS)


def parse_transcript(path: Path | str, harness: str | None = None, *, limits: Limits | None = None,
                     session: str | None = None) -> Transcript:
    """Parse the transcript at ``path``, detecting its harness when ``harness`` is None.

    For OpenCode, ``path`` is the session file (``storage/session/<project>/<id>.json``) or
    OpenCode's database (``opencode.db``), of which ``session`` names the session to read (it
    may be left out when the database holds one session only). A file of one session's
    transcript ignores ``session``.
    """
    path = Path(path)
    limits = limits or DEFAULT_LIMITS
    if harness is None:
        from gitstore.capture.transcripts._detect import detect

        harness = detect(path, limits)
    parser = _parser(harness)
    require_file(path)
    if harness == "opencode" and read_head(path, len(SQLITE_HEADER)) == SQLITE_HEADER:
        from gitstore.capture.transcripts import opencode_db  # sqlite3, only for OpenCode's database

        return opencode_db.parse(path, session, limits)
    return parser(path, limits)


__all__ = [
    "DEFAULT_LIMITS",
    "HARNESSES",
    "ROLES",
    "Counts",
    "Limits",
    "ToolCall",
    "Transcript",
    "Turn",
    "detect_harness",
    "parse_transcript",
]
