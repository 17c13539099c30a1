"""The one place a Transcript is assembled: every parser feeds a Builder, record by record.

The Builder counts records, keeps the first session metadata it is given, caps texts and
lists as ``Limits`` says, matches tool results to their calls, and freezes the result.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gitstore.errors import InvalidInput
from gitstore.capture.transcripts import _tools
from gitstore.capture.transcripts._model import Counts, Limits, ToolCall, Transcript, Turn
from gitstore.capture.bounds import cut, truncation_note
from gitstore.capture.transcripts._read import iso_time

_VERSION_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-+_")


class Call:
    """A tool call being assembled; results, exit codes and rejections arrive later."""

    __slots__ = ("name", "command", "paths", "test", "exit_code", "ok", "rejected", "outcome", "escalated", "done",
                 "reads", "running", "source")

    def __init__(self, name: str, command: str | None, paths: list[str]) -> None:
        self.name = name
        self.command = command
        self.paths = paths
        self.test = bool(command) and _tools.is_test_command(command or "")
        self.exit_code: int | None = None
        self.ok: bool | None = None
        self.rejected = False
        self.outcome: bool | None = None  # what a test run's output said
        self.escalated = False
        self.done = False
        self.reads: str | None = None  # the command whose output this call reads (a background one's)
        self.running = False  # its command was left running in the background: its result says only that
        self.source: Call | None = None  # the call whose background process this one reads, known by its id

    def freeze(self) -> ToolCall:
        return ToolCall(self.name, self.command, self.exit_code, self.ok, self.rejected)

    def passed(self) -> bool | None:
        if self.exit_code is not None:
            return self.exit_code == 0
        return self.outcome if self.outcome is not None else self.ok


class Draft:
    """A turn being assembled."""

    __slots__ = ("role", "parts", "size", "overflow", "at", "key", "calls", "merge", "stored", "answers")

    def __init__(self, role: str, at: str | None, key: str, merge: object) -> None:
        self.role = role
        self.parts: list[str] = []
        self.size = 0
        self.overflow = 0
        self.at = at
        self.key = key
        self.calls: list[Call] = []
        self.merge = merge
        self.stored = False
        self.answers: list[tuple[int, str]] = []  # where each output starts, the command it answers

    def freeze(self) -> Turn:
        text = "".join(self.parts)
        if self.overflow:
            text += truncation_note(self.overflow)
        answers = tuple(self.answers) if any(command for _, command in self.answers) else ()
        return Turn(self.role, text, self.at, tuple(c.freeze() for c in self.calls), self.key, self.overflow > 0,
                    answers)

    def empty(self) -> bool:
        return not self.size and not self.overflow and not self.calls


class Builder:
    """Accumulates one transcript; see the module docstring."""

    def __init__(self, harness: str, source: Path, limits: Limits) -> None:
        self.harness = harness
        self.source = source
        self.limits = limits
        self.recognized = False
        self.total = self.parsed_count = self.unknown_count = self.malformed_count = 0
        self.unknown_seen: dict[str, None] = {}
        self.meta: dict[str, str] = {}
        self.versions: dict[str, None] = {}
        self.first_at: str | None = None
        self.last_at: str | None = None
        self.drafts: list[Draft] = []
        self.keys: set[str] = set()
        self.suffixes: dict[str, int] = {}
        self.last: Draft | None = None
        self.dropped = 0
        self.text_kept = 0
        self.calls: list[Call] = []
        self.pending: dict[str, Call] = {}
        self.anonymous: deque[Call] = deque()
        self.mark = 0  # where in ``calls`` the current exchange began (a parser may move it)
        self.background: dict[str, Call] = {}  # a background process's id: the call that started it
        self.last_background: Call | None = None
        self.typed: str | None = None  # the command the person last ran in the harness's shell mode

    # -- accounting ---------------------------------------------------------------------------

    def parsed(self) -> None:
        self.total += 1
        self.parsed_count += 1
        self.recognized = True

    def unknown(self, kind: Any, recognized: bool = False) -> None:
        """A well-formed record of a type this parser does not know; ``recognized`` says its
        envelope is still the harness's own (so the file is a transcript)."""
        self.total += 1
        self.unknown_count += 1
        self.recognized = self.recognized or recognized
        name = kind[:64] if isinstance(kind, str) and kind else "(untyped)"
        if name not in self.unknown_seen and len(self.unknown_seen) < self.limits.max_unknown_types:
            self.unknown_seen[name] = None

    def malformed(self) -> None:
        self.total += 1
        self.malformed_count += 1

    # -- session metadata: the first good value wins -------------------------------------------

    def set(self, field: str, value: Any) -> None:
        if field in self.meta or not isinstance(value, str):
            return
        value = value.strip()
        if value:
            self.meta[field] = value[: self.limits.max_field]

    def version(self, value: Any) -> None:
        if not isinstance(value, str) or not 0 < len(value) <= 40 or not value[0].isdigit():
            return
        if not set(value) <= _VERSION_CHARS:
            return
        if value not in self.versions and len(self.versions) < self.limits.max_versions:
            self.versions[value] = None
        self.set("version", value)

    def time(self, value: Any) -> str | None:
        """Normalize an ISO time and widen the session's span with it."""
        at = iso_time(value)
        if at is not None:
            self.span(at)
        return at

    def span(self, at: str | None) -> None:
        if at is None:
            return
        if self.first_at is None or at < self.first_at:
            self.first_at = at
        if self.last_at is None or at > self.last_at:
            self.last_at = at

    # -- turns --------------------------------------------------------------------------------

    def turn(self, role: str, at: str | None, key: str, merge: object = None) -> Draft:
        """A new turn, or the previous one when both carry the same non-None ``merge`` token."""
        last = self.last
        if merge is not None and last is not None and last.merge == merge and last.role == role:
            return last
        stored = len(self.drafts) < self.limits.max_turns
        draft = Draft(role, at, self._unique(key) if stored else key[:200], merge)
        self.last = draft
        if stored:
            self.drafts.append(draft)
            draft.stored = True
        else:
            self.dropped += 1
        return draft

    def _unique(self, key: str) -> str:
        """``key``, or ``key#N`` with the first free N when a kept turn already has it."""
        key = key[:200] or "turn"
        if key in self.keys:
            suffix = self.suffixes.get(key, 2)
            while f"{key}#{suffix}" in self.keys:
                suffix += 1
            self.suffixes[key] = suffix + 1
            key = f"{key}#{suffix}"
        self.keys.add(key)
        return key

    def add_text(self, draft: Draft, text: str, separator: str = "\n\n", overflow: int = 0) -> None:
        """Append to a turn's text within the limits; ``overflow`` counts characters the
        caller already cut from ``text``."""
        draft.overflow += overflow
        if not text:
            return
        piece = separator + text if draft.parts else text
        ceiling = self.limits.max_text if self.text_kept < self.limits.max_total_text else self.limits.tail_text
        room = max(0, ceiling - draft.size)
        if len(piece) > room:
            kept = cut(piece, room)  # never part of a word: the scanner sees the text later
            draft.overflow += len(piece) - len(kept)
            piece = kept
        if piece:
            draft.parts.append(piece)
            draft.size += len(piece)
            self.text_kept += len(piece)

    def add_output(self, draft: Draft, call: Call | None, output: str, separator: str = "\n",
                   command: str | None = None) -> None:
        """Append a tool call's OUTPUT to DRAFT, the turn holding results, and note where it
        starts in the turn's text and the shell command it answers (``Turn.answers``): each
        output is read with its own command alone, wherever it stands among the others. The
        command is CALL's, the one whose output CALL reads (``reading``), else COMMAND (one
        the person ran, whose output the harness records apart from any call)."""
        start = draft.size + (len(separator) if draft.parts else 0)
        self.add_text(draft, output, separator)
        if call is not None:
            command = call.command or call.reads
        if draft.size > start:  # none of it kept past the turn's limit: nothing to read
            draft.answers.append((start, command or ""))

    def drop_if_empty(self, draft: Draft) -> None:
        """Forget a turn that ended up with no text and no tool calls."""
        if not draft.empty():
            return
        if draft.stored and self.drafts and self.drafts[-1] is draft:
            self.drafts.pop()
            draft.stored = False
        elif not draft.stored:
            self.dropped -= 1
        if self.last is draft:
            self.last = self.drafts[-1] if self.drafts else None

    # -- tool calls ---------------------------------------------------------------------------

    def call(self, draft: Draft, name: Any, args: Any, call_id: Any = None) -> Call | None:
        """Record a tool call on ``draft``; shell commands and edited files come from ``args``."""
        name = name.strip()[:100] if isinstance(name, str) and name.strip() else "unknown"
        args = args if isinstance(args, Mapping) else {}
        command: str | None = None
        paths: list[str] = []
        if _tools.is_shell(name):
            command = _tools.shell_command(args, self.limits.max_command)
            patch = _tools.shell_patch(command) if command else None
            if patch is not None:
                command, paths = None, _tools.patch_paths(patch)
        elif _tools.is_edit(name):
            paths = _tools.edit_paths(args)
        if len(self.calls) >= self.limits.max_calls:
            return None
        made = Call(name, command, [p[: self.limits.max_field] for p in paths[:64]])
        self.calls.append(made)
        draft.calls.append(made)
        if isinstance(call_id, str) and call_id:
            self.pending[call_id] = made
        else:
            self.anonymous.append(made)
        return made

    def started(self, call: Call | None, process: Any = None) -> None:
        """CALL, a shell call, left its command running in the background as PROCESS (the id or
        output file the harness named it by; None before the harness said which): a call that
        later reads that process's output (``reading``) reads it with this command. The result
        CALL got says the command started, not how it ends: a test left running has passed or
        failed only once a call reading its process reports its exit (``result``)."""
        if call is None or not call.command:
            return
        if not call.rejected:
            call.running = True
            call.ok = call.exit_code = call.outcome = None
        self.last_background = call
        key = _process_key(process)
        if key is not None and (key in self.background or len(self.background) < self.limits.max_calls):
            self.background[key] = call

    def reading(self, call: Call | None, process: Any, guess: bool = True) -> None:
        """CALL reads the output of the background PROCESS (``BashOutput``, ``write_stdin``): its
        output answers the command that started PROCESS, not CALL, which runs none. A process
        never seen started is, when GUESS, the last one started: its output is then read with
        a command that may not be its own, which can only redact more."""
        if call is None or call.command:
            return
        key = _process_key(process)
        found = self.background.get(key) if key is not None else None
        source = found if found is not None or not guess else self.last_background
        call.reads = source.command if source is not None else None
        call.source = found

    def find(self, call_id: Any) -> Call | None:
        """The call a result answers: by id, else the oldest call without an id or a result."""
        if isinstance(call_id, str) and call_id:
            return self.pending.get(call_id)
        while self.anonymous:
            candidate = self.anonymous.popleft()
            if not candidate.done:
                return candidate
        return None

    def result(
        self,
        call: Call | None,
        *,
        ok: bool | None = None,
        exit_code: int | None = None,
        output: str = "",
        rejected: bool = False,
    ) -> None:
        """Apply a tool result to its call: exit code, success, rejection, a test's outcome. The
        result of a call that left its command running says only that it started; an exit code
        in the result of a call reading that process (known by its id) is the command's."""
        if call is None:
            return
        source = call.source
        if source is not None and exit_code is not None and not rejected and not source.rejected:
            source.exit_code, source.ok = exit_code, exit_code == 0
            if source.test and output:
                source.outcome = _tools.outcome_in_output(output)
        if call.running and not rejected:
            call.done = True
            return
        call.done = True
        if exit_code is not None:
            call.exit_code = exit_code
        if call.rejected and not rejected:  # output after an inferred rejection: it ran
            call.ok = None
        call.rejected = rejected
        if rejected:
            call.ok = False
        elif ok is not None:
            call.ok = ok
        elif call.exit_code is not None:
            call.ok = call.exit_code == 0
        if call.test and output:
            call.outcome = _tools.outcome_in_output(output)

    def pending_call(self, call_id: Any) -> Call | None:
        return self.pending.get(call_id) if isinstance(call_id, str) else None

    def unanswered(self, since: int = 0) -> list[Call]:
        return [c for c in self.calls[since:] if not c.done]

    def touch(self, path: Any) -> None:
        """A file the session changed, known other than from a tool call's arguments."""
        if isinstance(path, str) and path.strip() and len(self.calls) < self.limits.max_calls:
            marker = Call("", None, [path.strip()[: self.limits.max_field]])
            marker.done = True
            self.calls.append(marker)

    # -- result -------------------------------------------------------------------------------

    def finish(self, subagents: Iterable[str] = (), subagents_left_out: int = 0) -> Transcript:
        if not self.recognized:
            raise InvalidInput(f"{self.source}: no {self.harness} transcript records found")
        files, commands, tests = self._aggregates()
        meta = self.meta
        return Transcript(
            harness=self.harness,
            session=meta.get("session"),
            version=meta.get("version"),
            cwd=meta.get("cwd"),
            branch=meta.get("branch"),
            started_at=self.first_at,
            ended_at=self.last_at,
            turns=tuple(d.freeze() for d in self.drafts),
            files_touched=files,
            commands=commands,
            tests=tests,
            counts=Counts(self.total, self.parsed_count, self.unknown_count, self.malformed_count),
            schema_versions=tuple(self.versions),
            unknown_types=tuple(self.unknown_seen),
            turns_dropped=self.dropped,
            subagents=tuple(subagents),
            subagents_left_out=subagents_left_out,
        )

    def _aggregates(self) -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, bool], ...]]:
        cap = self.limits.max_items
        files: dict[str, None] = {}
        commands: dict[str, None] = {}
        tests: list[tuple[str, bool]] = []
        cwd = self.meta.get("cwd")
        for call in self.calls:
            if call.rejected:
                continue
            if call.command:
                if len(commands) < cap:
                    commands.setdefault(call.command, None)
                passed = call.passed() if call.test else None
                if passed is not None and len(tests) < cap:
                    tests.append((call.command, passed))
            if call.ok is not False:
                for path in call.paths:
                    if len(files) < cap:
                        files.setdefault(relative(path, cwd), None)
        return tuple(files), tuple(commands), tuple(tests)


def _process_key(process: Any) -> str | None:
    """A background process's id as a key: a string or a whole number, the same either way."""
    if isinstance(process, bool):
        return None
    if isinstance(process, int):
        return str(process)
    return (process.strip()[:1000] or None) if isinstance(process, str) else None


def relative(path: str, cwd: str | None) -> str:
    """``path`` relative to ``cwd`` when it lies under it, else as given (minus a leading ./)."""
    if cwd:
        base = cwd.rstrip("/\\")
        for sep in ("/", "\\"):
            if base and path.startswith(base + sep) and len(path) > len(base) + 1:
                return path[len(base) + 1:]
    return path[2:] if path.startswith("./") and len(path) > 2 else path
