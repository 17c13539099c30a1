"""The parsed form of a harness transcript: turns, tool calls, and what the session did.

Everything here is frozen and made of tuples, strings, numbers and booleans, so two parses of
the same file compare equal and a Transcript can be handed on without copying.
"""

from __future__ import annotations

from typing import NamedTuple

from gitstore.records.vocabulary import HARNESSES, ROLES  # noqa: F401 - the transcripts package re-exports them


class ToolCall(NamedTuple):
    """One tool call the agent made, with what its result said when the transcript has one.

    ``command`` is the shell command when the tool runs one. ``ok`` is None when no result
    was recorded. ``rejected`` is True when the person declined or aborted the call (then
    ``ok`` is False and the call never ran).
    """

    name: str
    command: str | None = None
    exit_code: int | None = None
    ok: bool | None = None
    rejected: bool = False


class Turn(NamedTuple):
    """One message of the conversation.

    ``role`` is user, assistant, system (harness notes, injected context, API errors), tool
    (the output of tool calls, which the harnesses send back as a message) or summary
    (compaction summaries). ``key`` is a stable id from the source (a uuid, message id or
    ``line:N``), unique within the transcript. ``truncated`` says the text was cut to the
    limit; the text then ends with a ``[gitstore: ... truncated]`` note. ``answers`` names, for
    each tool output a turn's text holds, where in the text it starts and the shell command it
    answers (``""`` for a call that ran none); it is empty when no output answers a command.
    What an output is may show only beside its command (a token ``heroku auth:token`` prints
    alone on a line), so the scanner reads each output with its own command before it; the
    commands are never stored with the text.
    """

    role: str
    text: str
    at: str | None
    tools: tuple[ToolCall, ...]
    key: str
    truncated: bool = False
    answers: tuple[tuple[int, str], ...] = ()


class Counts(NamedTuple):
    """Every record of the source, once: ``total == parsed + unknown + malformed``.

    A record is a non-blank line of a JSONL file, a message of a single-JSON file, or a
    message or part file of an OpenCode session (plus the session file itself).
    """

    total: int
    parsed: int
    unknown: int
    malformed: int


class Transcript(NamedTuple):
    """A harness session reduced to what gitstore builds episodes from.

    ``subagents`` are the transcripts of the subagents the session spawned, at most
    ``Limits.max_items`` of them; ``subagents_left_out`` counts the ones past that.
    ``source`` is the sha256 (``sha256:<hex>``) and size of what was read when the session is
    a part of its file (one session of OpenCode's database), None when it is the whole file.
    ``rewritten`` says the harness rewrites its messages in place (Gemini CLI adds streamed
    text and later tool calls to a message it wrote), so a later read of the same session may
    find a turn of the same key holding more.
    """

    harness: str
    session: str | None
    version: str | None
    cwd: str | None
    branch: str | None
    started_at: str | None
    ended_at: str | None
    turns: tuple[Turn, ...]
    files_touched: tuple[str, ...]
    commands: tuple[str, ...]
    tests: tuple[tuple[str, bool], ...]
    counts: Counts
    schema_versions: tuple[str, ...]
    unknown_types: tuple[str, ...]
    turns_dropped: int = 0
    subagents: tuple[str, ...] = ()
    subagents_left_out: int = 0
    source: tuple[str, int] | None = None
    rewritten: bool = False


class Limits(NamedTuple):
    """Bounds on what a parse keeps, so memory stays bounded whatever the input.

    A turn's text keeps ``max_text`` characters; once ``max_total_text`` characters are kept
    across turns, later turns keep ``tail_text``. Turns past ``max_turns`` are counted in
    ``Transcript.turns_dropped`` (their tool calls still count toward commands, files and
    tests until ``max_calls``). A line longer than ``max_line_bytes`` is malformed; a
    single-JSON file larger than ``max_json_bytes`` is refused; one larger than
    ``stream_json_bytes`` is read message by message rather than decoded whole.
    """

    max_text: int = 20_000
    max_total_text: int = 16_000_000
    tail_text: int = 1_000
    max_turns: int = 20_000
    max_calls: int = 50_000
    max_items: int = 2_000
    max_command: int = 2_000
    max_field: int = 1_000
    max_unknown_types: int = 32
    max_versions: int = 32
    max_line_bytes: int = 64 * 1024 * 1024
    max_json_bytes: int = 256 * 1024 * 1024
    stream_json_bytes: int = 4 * 1024 * 1024
    max_files: int = 100_000


DEFAULT_LIMITS = Limits()
