"""``gitstore mcp``: a read-only MCP server (tools recall and show) on standard input and output."""

from __future__ import annotations

import os
import signal
import sys
import threading

import typer

from gitstore.deliver.mcp import serve


def mcp() -> None:
    """Serve recall and show over MCP on standard input and output (read-only; needs the mcp package)."""
    # blocked before any thread starts, so every thread the SDK starts inherits it: the signal
    # waits for the one thread that takes it, whichever thread the kernel hands it to
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    served = threading.Event()
    waiting = threading.Thread(target=_interrupted, args=(served,), name="gitstore-ctrl-c", daemon=True)
    waiting.start()
    try:
        serve()
    finally:  # a caller in the same process (a test) and what it starts later see Ctrl-C as before,
        served.set()  # and no thread of the server's is left waiting for it: a signal of its own
        if waiting.ident is not None:  # wakes it, and it ends without a word
            signal.pthread_kill(waiting.ident, signal.SIGINT)
        waiting.join()
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _interrupted(served: threading.Event) -> None:
    """Ctrl-C ends the server at once. Left to the event loop, it only cancels the main task,
    which the SDK's tasks can take for a cancellation of their own and go on serving (until
    input ends), and at exit the interpreter waits for the SDK's worker threads. A handler of
    Python's runs only once the main thread runs Python again: when the kernel gave the signal
    to a worker thread while the main one slept in the event loop's wait, nothing woke it, and
    the server went on. So one thread waits for the signal itself. The server writes nothing
    but whole answers, each flushed as it is written, and holds nothing to put away: it ends
    here, with the line and exit code of any interrupted command.

    It waits with ``sigwait``, which returns only a signal taken. A wait with a timeout, looking
    up now and then whether the server ended first, ended the server when the process was
    stopped and continued (Ctrl-Z and ``fg``, a debugger, a frozen container): the kernel ends
    such a wait early, and once its time was up Python returned what the call never wrote, read
    as a signal. The server ending first (a caller in the same process) wakes it with a SIGINT
    sent to this thread alone."""
    signal.sigwait({signal.SIGINT})
    if served.is_set():
        return
    sys.stderr.write("gitstore: error: interrupted\n")
    sys.stderr.flush()
    os._exit(130)


def register(app: typer.Typer) -> None:
    app.command()(mcp)
