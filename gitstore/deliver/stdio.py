"""Standard input and output for ``gitstore mcp``, one message at most ``MAX_MESSAGE`` bytes.

MCP over stdio sends one JSON-RPC message a line. The SDK's own transport reads a line however
long it grows, so a client sending one endless line without a newline would have the server
hold all of it. This transport reads standard input in chunks and keeps at most
``MAX_MESSAGE`` bytes of a line (4 MiB, the body the SDK accepts over HTTP): a longer one is
answered at once with a JSON-RPC error (``id`` null, since its id was never read, code
``-32600``, invalid request), the rest of it is read and dropped up to its newline, and the
server goes on with the next message. One line on standard error says so too.

A line the SDK cannot read as one JSON-RPC message, which it would pass over without a word,
is answered as JSON-RPC 2.0 asks and dropped: one that is not JSON it can parse (a syntax
error, a lone surrogate, brackets nested too deep) with a parse error (``-32700``, ``id``
null), one it parses that is no message (a batch, a number, an object missing its fields) with
an invalid request (``-32600``, the ``id`` it holds, else null). So is a request whose id is
no string or integer (a fraction, null, true, an object; ``id`` null in the answer), which the
SDK reads as a notification and never answers. A blank line is dropped.

At most ``MAX_UNANSWERED`` requests read wait for their answer: no more is read until one
is answered, so a client's flood waits in its pipe, not in the server's memory
(``Unanswered.room``). The end of standard input reaches the SDK only once every request read
before it has its answer (``Unanswered``): at the end of its input the SDK ends the session and cancels what it
is still serving, so a client that writes its requests and closes its end would get few of
their answers, or none.

As the SDK does, standard input is read from a duplicate while descriptor 0 points at the null
device, so a child process (git) reads nothing of the client's messages; the SDK's transport
serves standard output and the JSON-RPC framing.
"""

from __future__ import annotations

import fcntl
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

MAX_MESSAGE = 4 * 1024 * 1024  # bytes of one message, its newline not counted
MAX_UNANSWERED = 16  # requests read and not answered yet: no more is read until one is answered
_CHUNK = 64 * 1024
INVALID_REQUEST = -32600
PARSE_ERROR = -32700


def too_long() -> str:
    """What a message over the limit is answered with."""
    return (f"message over {MAX_MESSAGE} bytes ({MAX_MESSAGE // (1024 * 1024)} MiB), the most gitstore mcp reads "
            "of one: dropped up to its newline")


Fault = tuple[int, str, str | int | None]  # a JSON-RPC error to answer: code, message, id


def read_message(line: str) -> tuple[Any, Fault | None]:
    """The JSON-RPC message the SDK reads ``line`` as, and None; or None and why the SDK cannot
    read it as one message, as an error to answer (code, message, id)."""
    import json

    import pydantic
    from mcp import types

    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except pydantic.ValidationError as exc:
        errors = exc.errors(include_url=False, include_context=False, include_input=False)
        if any(error["type"] == "json_invalid" for error in errors):
            return None, (PARSE_ERROR, f"parse error: {errors[0]['msg'][:200]}", None)
    else:
        if _odd_id(line, message):
            return None, (INVALID_REQUEST, "invalid request: an id that is no string or integer", None)
        return message, None
    try:
        found = json.loads(line)  # JSON the SDK parsed: for the id it holds
    except (ValueError, RecursionError):
        found = None
    ident = found.get("id") if isinstance(found, dict) else None
    ident = ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None
    what = "an object" if isinstance(found, dict) else "a batch" if isinstance(found, list) else "not an object"
    return None, (INVALID_REQUEST, f"invalid request: {what} that is no JSON-RPC message gitstore mcp reads", ident)


def _odd_id(line: str, message: Any) -> bool:
    """Whether the SDK took a message with an id it does not read as one (a fraction, null,
    true, an object) for a notification, dropping the id: it would pass the request over
    unanswered, and the client would wait for an answer that never comes."""
    import json

    from mcp import types

    if not isinstance(message, types.JSONRPCNotification):
        return False
    try:
        found = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(found, dict) and "id" in found


class Lines:
    """The lines of a file descriptor, each at most ``limit`` bytes, as text (UTF-8, bad bytes
    replaced, as the SDK reads them); a longer line is reported to ``refuse`` and skipped. Given
    ``judge`` (``read_message``), a line it finds fault with is reported to ``reject`` (with the
    error to answer) and skipped, and so is a blank line, silently; the message of any other is
    reported to ``seen``, once ``room``, when given, lets it through. The end comes once
    ``settle``, when given, returns."""

    def __init__(self, fd: int, limit: int = MAX_MESSAGE, chunk: int = _CHUNK) -> None:
        self.fd, self.limit, self.chunk = fd, limit, chunk
        self.held = bytearray()  # the line being read, never more than ``limit`` bytes
        self.skipping = False  # inside a line over the limit: drop up to its newline
        self.ready: list[str | None] = []  # the lines read, in order; None for one refused
        self.ended = False
        self.refuse: Any = None  # async callable, set once the answer can be written
        self.judge: Any = None  # callable: a line's message and None, or None and why it is none
        self.reject: Any = None  # async callable taking what ``judge`` found
        self.seen: Any = None  # callable taking the message of a line passed on
        self.settle: Any = None  # async callable: what the end of input waits for
        self.room: Any = None  # async callable taking a message: returns once it may be passed on

    def __aiter__(self) -> Lines:
        return self

    async def __anext__(self) -> str:
        while True:
            while not self.ready:
                if self.ended:
                    if self.settle is not None:
                        await self.settle()
                    raise StopAsyncIteration
                self._take(await _read(self.fd, self.chunk))
            line = self.ready.pop(0)
            if line is None:
                if self.refuse is not None:
                    await self.refuse()
                continue
            if self.judge is None:
                return line
            if not line.strip():
                continue
            message, fault = self.judge(line)
            if fault is None:
                if self.room is not None:
                    await self.room(message)
                if self.seen is not None:
                    self.seen(message)
                return line
            if self.reject is not None:
                await self.reject(*fault)

    def _take(self, chunk: bytes) -> None:
        """Split ``chunk`` (empty: the end) into ``ready`` lines."""
        if not chunk:
            self.ended = True
            if self.held and not self.skipping:
                self.ready.append(self.held.decode("utf-8", "replace"))
            self.held.clear()
            return
        *whole, rest = chunk.split(b"\n")
        for part in whole:
            if not self.skipping:
                too_long = len(self.held) + len(part) > self.limit
                self.ready.append(None if too_long else (self.held + part).decode("utf-8", "replace"))
            self.held.clear()
            self.skipping = False
        if not self.skipping and len(self.held) + len(rest) > self.limit:
            self.skipping = True
            self.ready.append(None)
            self.held.clear()
        elif not self.skipping:
            self.held += rest


class Unanswered:
    """The requests read from the client and not answered yet. At the end of its input the SDK
    ends the session and cancels the requests it is still serving: they go unanswered (one not
    started yet leaves not even an error), so a client that writes its requests and closes its
    end would get few of their answers or none. The end of input is passed on only once every
    request read has its answer; a request the client cancelled is answered by no one, so it is
    not waited for (ids as the SDK matches them: ``"7"`` is ``7``)."""

    def __init__(self) -> None:
        import anyio

        self.waiting: dict[str | int, int] = {}  # id -> requests of it not answered yet
        self.changed = anyio.Event()

    def read(self, message: Any) -> None:
        """Note a message passed on to the SDK: a request waits for its answer."""
        from mcp import types

        if isinstance(message, types.JSONRPCRequest):
            key = _request_key(message.id)
            self.waiting[key] = self.waiting.get(key, 0) + 1
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            cancelled = (message.params or {}).get("requestId")
            if isinstance(cancelled, (str, int)) and not isinstance(cancelled, bool):
                self.waiting.pop(_request_key(cancelled), None)
                self._wake()

    def answered(self, ident: str | int) -> None:
        """Note an answer the SDK wrote to the request ``ident``."""
        key = _request_key(ident)
        left = self.waiting.pop(key, 0) - 1
        if left > 0:
            self.waiting[key] = left
        self._wake()

    async def room(self, message: Any) -> None:
        """Return once a request may be passed on: fewer than ``MAX_UNANSWERED`` read are waiting
        for their answer. The SDK serves each request it reads as a task of its own, at once: a
        client writing requests faster than they are answered (or reading none of the answers)
        had the server hold every one, tens of thousands of them in hundreds of megabytes.
        Waiting here, the server reads no more, and the client's writes wait as the pipe fills."""
        from mcp import types

        if isinstance(message, types.JSONRPCRequest):
            while sum(self.waiting.values()) >= MAX_UNANSWERED:
                await self.changed.wait()

    async def settled(self) -> None:
        """Return once every request read has its answer."""
        while self.waiting:
            await self.changed.wait()

    def _wake(self) -> None:
        import anyio

        self.changed.set()
        self.changed = anyio.Event()


def _request_key(ident: str | int) -> str | int:
    """A request id as the SDK matches ids: a string holding an integer is that integer."""
    from mcp.shared.dispatcher import coerce_request_id

    return coerce_request_id(ident)


class _Counted:
    """The SDK's write stream, telling ``answered`` of each answer (result or error) it writes."""

    def __init__(self, inner: Any, answered: Any) -> None:
        self.inner, self.answered = inner, answered

    async def send(self, item: Any) -> None:
        from mcp import types

        await self.inner.send(item)
        message = item.message
        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)) and message.id is not None:
            self.answered(message.id)

    def close(self) -> None:
        self.inner.close()

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> _Counted:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


async def _read(fd: int, size: int) -> bytes:
    """At most ``size`` bytes of ``fd``, read once it has some (or its end), in the event loop:
    waiting is cancelled at once (Ctrl-C ends the server), where a read waiting in a worker
    thread would hold the process's exit until input came. A file the loop cannot watch (a
    regular file, the null device) is one whose read never waits."""
    import anyio

    try:
        await anyio.wait_readable(fd)
    except OSError:
        pass
    return os.read(fd, size)


@contextmanager
def _claimed_stdin() -> Iterator[int]:
    """A duplicate of descriptor 0, which points at the null device meanwhile."""
    wire = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        yield wire
    finally:
        os.dup2(wire, 0)
        os.close(wire)


@asynccontextmanager
async def bounded_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio transport (read and write streams) with standard input read by ``Lines``."""
    import anyio
    from mcp import types
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    with _claimed_stdin() as wire:
        lines = Lines(wire)
        async with stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]
            async def answer(code: int, message: str, ident: str | int | None) -> None:
                error = types.JSONRPCError(jsonrpc="2.0", id=ident, error=types.ErrorData(code=code, message=message))
                try:
                    await write.send(SessionMessage(error))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass  # the server is ending

            async def refuse() -> None:
                print(f"gitstore mcp: refused a {too_long()}", file=sys.stderr, flush=True)
                await answer(INVALID_REQUEST, too_long(), None)

            unanswered = Unanswered()
            lines.refuse, lines.judge, lines.reject = refuse, read_message, answer
            lines.seen, lines.settle, lines.room = unanswered.read, unanswered.settled, unanswered.room
            yield read, _Counted(write, unanswered.answered)  # errors of ours above answer no request read
