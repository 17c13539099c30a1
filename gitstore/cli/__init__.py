"""The gitstore command line: parse, call one library function, render.

Every command lives in a module of its own and is named in ``COMMANDS`` with its one-line
summary. A run imports only the module of the command it runs, so start-up costs what that
command needs: ``--version``, the top-level ``--help`` and the completion of command names are
answered from this table without loading the command framework at all (``_app`` loads it).
``main`` is the only place errors become exit codes: 0 ok, 1 refused or invalid input, 2 usage,
3 integrity failure, 130 interrupted. Every error is one line on standard error (JSON,
``{"error": ..., "code": ...}``, when ``--json`` was given).

What a command prints is shown to a person, never obeyed by their terminal: text from memory
(a review comment, a record fetched from another clone, which no capture screened) may hold
escape sequences that hide or rewrite what a reviewer reads, or set their clipboard. While a
command runs, each control character it writes (but tab and newline), and each bidirectional
override, is written as its picture or code (``gitstore._shown``); JSON holds none raw, so
machine output means the same.
"""

from __future__ import annotations

import sys

from gitstore._version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: --version and --help start fast
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

PROG = "gitstore"
SUMMARY = "A git-native memory for coding agents and the people who review them."

# command -> (module that registers it, one-line summary shown by `gitstore --help`).
# Kept in the order the help lists them; a test checks each summary against the command's help.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("init", "Set gitstore up here: writer id, scope (kept in .git/config), git-ignored okf/.memory/, config, fetch refspecs."),
    "status": ("status", "Show this repository's scope, writer, provider, memory refs and effective configuration."),
    "doctor": ("doctor", "Check the set-up: scope, init, provider, other clones' memory left out, who may decide, whether the gates workflow has a policy to read, capture hooks, hook errors, sessions the hooks gave up on, refspecs, a partial clone's filter, what a push sends, published files, promoted blocks, wiki and skill files that differ only in case, saved GitHub snapshots, commands killed midway, memory refs a killed process left locked."),
    "policy": ("policy", "Who may decide: show the policy in force; write its files (init, add)."),
    "scope": ("scope", "This repository's scope: show it and the former scopes declared; declare one after a rename or move (formerly)."),
    "hooks": ("hooks", "Install, remove and check the harness capture hooks."),
    "capture": ("capture", "Read a harness hook's JSON from standard input and capture the session."),
    "import": ("import_", "Backfill memory from transcripts, review snapshots and GitHub pull requests."),
    "episodes": ("episodes", "List the evidence episodes (review threads, agent sessions); --grep searches their text."),
    "evidence": ("evidence", "Show one episode's events with their text and the EPISODE:EVENT ids propose takes."),
    "scan": ("scan", "Scan files for hidden characters, prompt injection, secrets and home paths."),
    "grant": ("grant", "Grant: evidence from these sources, written in this range, may serve these purposes."),
    "withdraw": ("withdraw", "Withdraw a grant at once; lists the exports it had allowed and updates published files."),
    "grants": ("grants", "List the grants, the purposes each still permits, and their withdrawals."),
    "dream": ("dream", "Propose learnings from themes that recur across independent evidence; a person decides."),
    "propose": ("propose", "Propose a learning by hand, citing stored evidence (a person decides later)."),
    "proposals": ("proposals", "List proposals waiting for a person."),
    "show": ("show", "Show a learning as a reviewer sees it: its evidence, whether it is in force, the reviewDigest."),
    "accept": ("accept", "Accept a proposal you reviewed (optionally edited); agents get it from now on."),
    "reject": ("reject", "Reject a proposal you reviewed."),
    "retire": ("retire", "Retire an accepted learning: agents stop getting it (published files are updated, promoted blocks named)."),
    "merge": ("merge", "Propose one learning replacing several; a person accepts it like any proposal."),
    "learnings": ("learnings", "List learnings with their standing for a purpose (default: instruction)."),
    "history": ("history", "Every version of a learning: identifiers, states and digests."),
    "recall": ("recall", "Recall the accepted learnings most relevant to a query (at most 3, each its accepted text with provenance, bounded on its canonical JSON), or one by --id, whole."),
    "context": ("context", "Print exactly what an agent would receive now (byte for byte), with the limits that applied."),
    "deliveries": ("deliveries", "Show which learnings each agent session received, with the session's captures."),
    "mcp": ("mcp", "Serve recall and show over MCP on standard input and output (read-only; needs the mcp package)."),
    "publish": ("publish", "Write accepted project learnings into AGENTS.md's managed section and the continual-learning index."),
    "promote": ("promote", "Promote an accepted learning into the wiki or skills, as one reviewable commit on its own branch."),
    "wiki": ("wiki", "The OKF wiki promote edits: start okf/wiki/ (init), regenerate its index.md (index)."),
    "provenance": ("provenance", "List the promotion commits of a range with their learnings and digests, and whether they verify."),
    "sync": ("sync", "Fetch every writer's shared memory, verify it before use, then push this writer's own."),
    "tick": ("tick", "Run the loop's configured steps that are due (reviews, github, dream, publish, sync), each bounded in time."),
    "ci": ("ci", "Write the GitHub Actions workflows: the scheduled memory loop and the pull-request gates."),
    "export": ("export", "Export learnings in force for a purpose; records every item and the grants behind it."),
    "redact": ("redact", "Remove the text of every version of a comment and of every label on it."),
    "audit": ("audit", "Every grant, withdrawal, decision, retirement, export and redaction, in order."),
    "purge": ("purge", "Remove every memory ref and okf/.memory/ of this clone. Asks you to type the repository name."),
    "records": ("records", "Add, list and show records."),
    "verify": ("verify", "Check every record and ref (layout, order, bytes, contracts, digests), then decisions and namespaces."),
    "gc": ("gc", "Erase removed payloads and what killed appends left (never the user's reflogs or objects)."),
    "canonical": ("canonical", "Print the RFC 8785 canonical form of one JSON text (no trailing newline)."),
    "digest": ("digest", "Validate one record and print its sha256: digest per its kind's rules."),
    "validate": ("validate", "Check records against their contracts: schema, version, I-JSON and digests."),
    "completion": ("completion", "Print the shell completion script for bash, zsh or fish."),
}

EXIT_INTERRUPTED = 130
COMPLETE = "__complete"  # what the shell completion scripts run: `gitstore __complete CWORD WORDS...`


def top_help() -> str:
    """``gitstore --help``: the commands and their summaries, from ``COMMANDS``."""
    width = max(map(len, COMMANDS))
    lines = [f"Usage: {PROG} [OPTIONS] COMMAND [ARGS]...", "", SUMMARY, "", "Options:",
             "  --version   Print the version and exit.", "  -h, --help  Show this message and exit.",
             "", "Commands:"]
    lines += [f"  {name:<{width}}  {summary}" for name, (_, summary) in COMMANDS.items()]
    lines += ["", f"Run `{PROG} COMMAND --help` for a command's options."]
    return "\n".join(lines)


def _command_of(args: Sequence[str]) -> str | None:
    """The command a command line names (its first word that is not an option)."""
    for arg in args:
        if not arg.startswith("-"):
            return arg
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit code instead of raising."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return _run(args)
    except BrokenPipeError:  # --help or --version into a closed pipe
        return _stdout_closed()
    except OSError as exc:  # --help, --version or a group's help written where nothing can be (a full disk)
        _stdout_closed()  # what is still buffered goes nowhere: the last flush must not fail again
        where = f" ({exc.filename})" if exc.filename else ""
        _error(f"{exc.strerror or exc}{where}", 1, as_json="--json" in args)
        return 1
    except KeyboardInterrupt:
        _error("interrupted", EXIT_INTERRUPTED, as_json="--json" in args)
        return EXIT_INTERRUPTED


def _run(args: list[str]) -> int:
    if args[:1] == [COMPLETE]:
        from gitstore.cli._complete import answer

        return answer(args[1:])
    command = _command_of(args)
    if command is None:
        if "--version" in args:
            print(f"{PROG} {__version__}")
            return 0
        if not args or any(a in ("-h", "--help") for a in args):
            print(top_help())
            return 0
    elif "--version" in args[:args.index(command)] and not {"-h", "--help"} & set(args[:args.index(command)]):
        # `gitstore --version status`: the framework would say --version is no option of status
        _error(f"--version takes no command: run `{PROG} --version` alone", 2, as_json="--json" in args)
        return 2
    elif command not in COMMANDS:
        _error(f"no such command {command!r}; run `{PROG} --help` for the list", 2, as_json="--json" in args)
        return 2
    elif any(a in ("-h", "--help") for a in args[:args.index(command)]):
        # `gitstore --help status`: the command's help, as git answers it (the framework would print
        # a help of gitstore listing the one command it loaded)
        args = [a for a in args if a not in ("-h", "--help")] + ["--help"]
    return _dispatch(command, args)


def _dispatch(command: str | None, args: list[str]) -> int:
    from gitstore import notices

    as_json = "--json" in args
    notices.take()  # a command run in-process after another starts afresh
    out, err, given = sys.stdout, sys.stderr, sys.stdin
    # A stream the caller closed (`>&-`, `<&-`) is None here: output to one goes nowhere, as the
    # caller chose, and a command that reads a closed input says so in one line.
    sys.stdout, sys.stderr = _Shown(out or _nowhere()), _Shown(err or _nowhere())
    if given is None:
        sys.stdin = _ClosedInput()
    try:
        return _dispatched(command, args, as_json)
    finally:
        for line in notices.take():
            _warn(line, as_json)
        sys.stdout, sys.stderr, sys.stdin = out, err, given


def _nowhere() -> Any:
    import os

    return open(os.devnull, "w", encoding="utf-8")


class _ClosedInput:
    """Standard input the caller closed: reading it is an error naming it, never a traceback."""

    @property
    def buffer(self) -> _ClosedInput:
        return self

    def isatty(self) -> bool:
        return False

    def _closed(self, *_: Any) -> Any:
        from gitstore.errors import InvalidInput

        raise InvalidInput("standard input is closed: give the input in a file, or on a pipe")

    read = readline = readinto = read1 = readlines = fileno = __iter__ = __next__ = _closed


class _Shown:
    """A text stream writing what it is given as ``gitstore._shown.shown`` shows it: control
    characters as their pictures. Everything else is the stream's own."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: Any) -> int:
        if isinstance(text, str):
            from gitstore._shown import shown

            self._stream.write(shown(text))
            return len(text)
        return int(self._stream.write(text))  # bytes too: the command framework asks with b""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _dispatched(command: str | None, args: list[str], as_json: bool) -> int:
    # Loaded before the try, whose handlers name them: a Ctrl-C while they load reaches main's
    # handler as an interrupt, not this one's as a name not yet bound.
    from typer._click.exceptions import ClickException, NoArgsIsHelpError
    from typer.exceptions import Abort, Exit

    from gitstore.cli._app import run
    from gitstore.errors import GitstoreError

    try:
        result = run(command, args)
    except Exit as exc:
        return exc.exit_code
    except Abort:
        _error("interrupted", EXIT_INTERRUPTED, as_json)
        return EXIT_INTERRUPTED
    except NoArgsIsHelpError as exc:  # `gitstore records`: the group's help
        print(exc.format_message())
        return 0
    except ClickException as exc:
        _error(_usage_message(exc), exc.exit_code, as_json)
        return exc.exit_code
    except GitstoreError as exc:
        _error(str(exc), exc.exit_code, as_json)
        return exc.exit_code
    except BrokenPipeError:
        return _stdout_closed()
    except SystemExit as exc:  # the framework ends a run whose output pipe closed with exit 1
        if isinstance(exc.__context__, BrokenPipeError):
            return _stdout_closed()
        raise
    except OSError as exc:  # the disk filled, a file vanished: say so; nothing half-written shows
        where = f" ({exc.filename})" if exc.filename else ""
        _error(f"{exc.strerror or exc}{where}", 1, as_json)
        return 1
    except Exception as exc:  # git could not read its own objects where no check expected it
        if type(exc).__module__.lstrip("_") != "pygit2":
            raise
        from gitstore.scope import owner_refusal

        refused = owner_refusal(exc)  # another user's repository: no damage, git's rule to follow
        if refused is not None:
            _error(str(refused), refused.exit_code, as_json)
            return refused.exit_code
        _error(f"git: {' '.join(str(exc).split())}; run `gitstore verify`", 3, as_json)
        return 3
    if result == EXIT_INTERRUPTED:  # the framework turns Ctrl-C into this code, silently
        _error("interrupted", EXIT_INTERRUPTED, as_json)
    return result if isinstance(result, int) else 0


def _usage_message(exc: Any) -> str:
    """A click usage error as one line, naming the command it concerns."""
    message = " ".join(exc.format_message().split())
    context = getattr(exc, "ctx", None)
    if context is not None and context.command_path != PROG:
        return f"{context.command_path.removeprefix(PROG + ' ')}: {message}"
    return message


def _warn(message: str, as_json: bool) -> None:
    if as_json:
        import json

        print(json_safe(json.dumps({"warning": message}, ensure_ascii=False)), file=sys.stderr)
    else:
        print(f"{PROG}: warning: {message}", file=sys.stderr)


def _stdout_closed() -> int:
    """The reader of standard output went away (``gitstore ... | head``): end quietly with 0, as
    the command meant to, and send what is still buffered nowhere, so the interpreter's last
    flush does not fail again and turn the exit into 120 with a message."""
    import os

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a file (run in-process)
        return 0
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
    return 0


def json_safe(text: str) -> str:
    """JSON text with each lone surrogate (a byte of a file name that is not UTF-8, as Python
    reads it) written as its ``\\uXXXX`` escape: the text stays valid UTF-8, one JSON document."""
    if not any("\ud800" <= c <= "\udfff" for c in text):
        return text
    return "".join(f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" else c for c in text)


LONG_WORD = 200  # characters without a space an error line repeats whole, at most


def _error(message: str, code: int, as_json: bool) -> None:
    if len(message) > LONG_WORD:
        message = _shortened(message)
    if as_json:
        import json

        print(json_safe(json.dumps({"error": message, "code": code}, ensure_ascii=False)), file=sys.stderr)
    else:
        print(f"{PROG}: error: {message}", file=sys.stderr)


def _shortened(message: str) -> str:
    """MESSAGE with each run of more than ``LONG_WORD`` characters without a space (a value
    given on the command line, repeated in the error about it: 131,000 characters once) cut to
    its start and its end, joined by an ellipsis."""
    import re

    return re.sub(r"\S{%d,}" % (LONG_WORD + 1), lambda m: f"{m[0][:LONG_WORD - 40]}…{m[0][-20:]}", message)


def _unencodable(error: UnicodeError) -> tuple[str | bytes, int]:
    """How standard output and standard error write a character their encoding lacks: a file
    name's byte that is not UTF-8 (a lone surrogate, as Python reads it) as that byte, as ls
    and git print it (in an error too: ``fatal: pathspec 'x\\377'`` holds the byte itself), so a
    name reads the same in a report and in an error about it; any other (a CJK file name, a
    captured "…" on a Latin-1 or Windows-1252 terminal) as its ``\\uXXXX`` escape, never a
    traceback. Under --json such a character only stands inside a string, where the escape
    reads as the character itself."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    char = error.object[error.start]
    if "\udc80" <= char <= "\udcff":
        return bytes([ord(char) - 0xDC00]), error.start + 1
    return char.encode("ascii", "backslashreplace").decode("ascii"), error.start + 1


def run() -> None:
    """Console-script entry point."""
    from gitstore._collector import starting
    from gitstore._libgit2 import install

    starting()  # until the command's modules are loaded (``_app.run``)
    install()  # this process never makes a TLS connection through libgit2: skip the CA bundle
    import codecs

    codecs.register_error("gitstore-output", _unencodable)  # see _unencodable
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="gitstore-output")  # type: ignore[union-attr]
        except (AttributeError, ValueError):  # not a text file (replaced), or closed
            pass
    code = main()
    try:
        if sys.stdout is not None:  # None: the caller closed it
            sys.stdout.flush()  # output still buffered meets a closed pipe here, not at shutdown
    except BrokenPipeError:
        _stdout_closed()
    except OSError as exc:  # a full disk: the output is not all there, which the exit code says
        _stdout_closed()
        _error(f"standard output: {exc.strerror or exc}", 1, as_json="--json" in sys.argv[1:])
        code = code or 1
    sys.exit(code)


__all__ = ["COMMANDS", "json_safe", "main", "run", "top_help"]
