"""The command every harness hook runs: ``python -m gitstore.capture.agent_hook HARNESS [PAYLOAD]``.

It reads the hook's JSON payload (standard input, at most 1 MiB, or the last argument, which is
how Codex's ``notify`` passes it) and hands it to the capture library,
``gitstore.capture.sessions.capture_from_hook(harness, payload, cwd)``. It never blocks or breaks the
agent: it exits 0 whatever happens, writes nothing to standard output (harnesses read it), and
gives up after a wall-clock limit. What went wrong goes as one line to
``<repository>/okf/.memory/logs/hooks.log``, or to ``gitstore-hooks.log`` in the temporary folder
outside a gitstore repository.

It starts fast: only the standard library's small modules are imported before the capture
library, which is imported late and inside the guard.

Environment:

- ``GITSTORE_HOOK_TARGET=module:function`` calls another function instead of the capture library
  (tests use it to stand in a function that fails or hangs).
- ``GITSTORE_HOOK_TIMEOUT`` is the wall-clock limit in seconds (default 10).

``python -m gitstore.capture.agent_hook --check`` is the dry run ``gitstore hooks status`` uses: it imports the
capture entry point and checks that it takes ``(harness, payload, cwd)``; it exits 0 when ready,
else 1 with the reason on standard error.
"""

from __future__ import annotations

import json
import os
import sys
import threading

from gitstore.capture.hooklog import log as _log, state_dir as _state_dir

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from typing import Any

from gitstore.records.vocabulary import HARNESSES

MAX_PAYLOAD = 1 << 20
READ_SECONDS = 3.0
DEFAULT_TIMEOUT = 10.0
TARGET_ENV = "GITSTORE_HOOK_TARGET"
TIMEOUT_ENV = "GITSTORE_HOOK_TIMEOUT"
DEFAULT_TARGET = "gitstore.capture.sessions:capture_from_hook"


class HookProblem(Exception):
    """Something the log should say, in one line."""


INLINE_ENV = "GITSTORE_HOOK_INLINE"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["--check"]:
        return check()
    if args[:1] == ["--worker"]:
        return worker(args[1:])
    harness = args[0] if args else ""
    cwd = os.getcwd() if os.path.isdir(".") else "/"
    _silence_stdout()
    try:
        cwd = _run(harness, args[1:], cwd)
    except HookProblem as exc:
        _log(cwd, harness, str(exc))
    except BaseException as exc:  # noqa: BLE001 - the agent must never see a failure
        _log(cwd, harness, f"hook failed: {type(exc).__name__}: {exc}")
    return 0


def _run(harness: str, rest: list[str], cwd: str) -> str:
    if harness not in HARNESSES:
        raise HookProblem(f"unknown harness {harness!r} (one of {', '.join(HARNESSES)})")
    raw = rest[-1].encode("utf-8", "surrogateescape") if rest else _read_stdin()
    payload = _parse(raw)
    if isinstance(payload.get("cwd"), str) and os.path.isdir(payload["cwd"]):
        cwd = payload["cwd"]
    if os.environ.get(INLINE_ENV):
        _call_guarded(harness, payload, cwd)
    else:
        _detach(harness, payload, cwd)
    return cwd


def _detach(harness: str, payload: dict[str, Any], cwd: str) -> None:
    """Hand the payload to a background worker and return at once: the agent never waits.

    The payload is spooled to ``okf/.memory/inbox/`` (git-ignored) when the repository has it,
    else to the temporary folder; the worker deletes the spool file once it has read it.
    """
    import subprocess
    import tempfile

    folder = _state_dir(cwd)
    inbox = os.path.join(folder, "inbox") if folder else tempfile.gettempdir()
    os.makedirs(inbox, exist_ok=True)
    fd, spool = tempfile.mkstemp(prefix=f"hook-{harness}-", suffix=".json", dir=inbox)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({"harness": harness, "payload": payload, "cwd": cwd}, out)
    subprocess.Popen(
        [sys.executable, "-P", "-m", "gitstore.capture.agent_hook", "--worker", spool], cwd=cwd,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, close_fds=True,
    )


def worker(args: list[str]) -> int:
    """The background half: read the spooled payload, capture under the time limit, log."""
    _silence_stdout()
    spool = args[0] if args else ""
    cwd, harness = os.getcwd(), ""
    try:
        with open(spool, encoding="utf-8") as handle:
            job = json.load(handle)
        os.unlink(spool)
        harness, cwd = job["harness"], job["cwd"]
        _call_guarded(harness, job["payload"], cwd)
    except HookProblem as exc:
        _log(cwd, harness, str(exc))
    except BaseException as exc:  # noqa: BLE001 - a worker failure is logged, never raised
        _log(cwd, harness, f"hook failed: {type(exc).__name__}: {exc}")
    return 0


def _parse(raw: bytes) -> dict[str, Any]:
    if not raw.strip():
        raise HookProblem("no payload")
    if len(raw) > MAX_PAYLOAD:
        raise HookProblem(f"payload over {MAX_PAYLOAD} bytes; not captured")
    try:
        payload = json.loads(raw)
    except ValueError as exc:
        raise HookProblem(f"payload is not JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise HookProblem("payload is not a JSON object")
    return payload


def _read_stdin() -> bytes:
    """At most MAX_PAYLOAD + 1 bytes, until end of input, a complete JSON document, or the time limit.

    Some harnesses leave standard input open after writing the payload, so a complete JSON
    document ends the read as well as end of input does.
    """
    stream = sys.stdin
    if stream is None or stream.closed or stream.isatty():
        return b""
    chunks: list[bytes] = []
    done = threading.Event()

    def pump() -> None:
        size = 0
        try:
            fd = stream.fileno()
            while size <= MAX_PAYLOAD:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if chunk.rstrip().endswith(b"}") and _complete(b"".join(chunks)):
                    break
        except (OSError, ValueError):
            pass
        finally:
            done.set()

    threading.Thread(target=pump, daemon=True).start()
    done.wait(READ_SECONDS)
    return b"".join(chunks)


def _complete(data: bytes) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def _target() -> Any:
    spec = os.environ.get(TARGET_ENV) or DEFAULT_TARGET
    module_name, _, name = spec.partition(":")
    if not module_name or not name:
        raise HookProblem(f"{TARGET_ENV} must be module:function, not {spec!r}")
    import importlib

    function = getattr(importlib.import_module(module_name), name)
    if not callable(function):
        raise HookProblem(f"{spec} is not callable")
    return function


def _timeout() -> float:
    try:
        value = float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT))
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


def _call_guarded(harness: str, payload: dict[str, Any], cwd: str) -> None:
    """Import and call the capture function in a thread; abandon it after the time limit."""
    outcome: list[BaseException | None] = []

    def work() -> None:
        try:
            try:
                function = _target()
            except HookProblem:
                raise
            except BaseException as exc:  # noqa: BLE001
                raise HookProblem(f"capture unavailable: {type(exc).__name__}: {exc}") from None
            function(harness, payload, cwd)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001
            outcome.append(exc)

    limit = _timeout()
    worker = threading.Thread(target=work, name="gitstore-capture", daemon=True)
    worker.start()
    worker.join(limit)
    if worker.is_alive():
        _log(cwd, harness, f"capture took longer than {limit:g} s; abandoned")
        os._exit(0)  # the capture thread may hold locks; do not wait for interpreter shutdown
    error = outcome[0] if outcome else None
    if isinstance(error, HookProblem):
        raise error
    if error is not None:
        raise HookProblem(f"capture failed: {type(error).__name__}: {error}")


def _silence_stdout() -> None:
    """Point standard output (the descriptor, so child processes too) at the null device."""
    try:
        sys.stdout.flush()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except (OSError, ValueError, AttributeError):
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115


def check() -> int:
    """The dry run: is the capture entry point importable and callable as (harness, payload, cwd)?"""
    try:
        function = _target()
        import inspect

        inspect.signature(function).bind("claude-code", {}, ".")
    except TypeError as exc:
        print(f"gitstore.capture.agent_hook: the capture entry point does not take (harness, payload, cwd): {exc}",
              file=sys.stderr)
        return 1
    except BaseException as exc:  # noqa: BLE001
        print(f"gitstore.capture.agent_hook: capture entry point unavailable: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
