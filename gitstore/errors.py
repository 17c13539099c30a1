"""One exception root for gitstore, with narrow subclasses.

Every error carries the exit code the CLI maps it to:

- 1: the input was refused or invalid (bad JSON, a record failing its contract, a rule refusal),
  or an import ended incomplete (its source unreachable, pages missing);
- 2: the command was used wrongly (missing argument, outside a repository);
- 3: stored data failed an integrity check (digest mismatch, damaged ref, torn batch).

One rule tells 1 from 2 for a value: a value typed as an argument or option that is empty or
malformed (an id of the wrong shape, a time, age or number that does not parse, a word not in
its list) is a ``UsageError``, 2, checked as the command line is parsed
(``gitstore.cli._values``); content read from a file or standard input that is malformed, and a
well-formed value the store refuses (an id it holds nothing for, a rule's refusal), is 1.

Messages are one line and name the record, file or value at fault.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

TYPE_CHECKING = False  # typing costs the pre-commit gates, which import this module first, milliseconds
if TYPE_CHECKING:
    from typing import Any


class GitstoreError(Exception):
    """Root of every error gitstore raises on purpose."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))

    @property
    def message(self) -> str:
        return str(self)


class InvalidInput(GitstoreError):
    """Input is not acceptable: malformed JSON, duplicate members, bad times, bad fields."""


class RemoteGone(InvalidInput):
    """A remote whose URL is a path on this machine where no git repository is any longer (the
    repository there was moved or deleted); ``todo`` is git's own command that points the remote
    at where it is now (``does`` says what it does); ``about`` is the message without it."""

    def __init__(self, about: str, todo: str, does: str = "points it at where that repository is now") -> None:
        super().__init__(f"{about}: `{todo}` {does}")
        self.about, self.todo, self.does = " ".join(about.split()), todo, does


class CanonicalizationError(InvalidInput):
    """A value cannot be put in RFC 8785 / I-JSON canonical form."""


class ContractError(InvalidInput):
    """A record does not satisfy its v1 contract (schema, version, digest)."""


class Refused(GitstoreError):
    """A rule of the store refused the operation (consent, lifecycle, scope)."""


class ForeignConfig(Refused):
    """``okf/.memory/config.json`` holds bytes git has as an object: a commit, a checkout or
    ``git add`` brought them, so its writer id and settings are another clone's (see
    ``gitstore.config.foreign``); ``gitstore init`` gives the clone its own."""


class Unaccepted(Refused):
    """Fields of ``okf/.memory/config.json`` that choose what runs unasked (a labeler, the loop,
    the capture mode, a consolidator) changed since this clone's ``gitstore init`` last took the
    file: nothing they name runs until ``gitstore init --accept-changes`` takes it. ``fields``
    names them (``capture.mode``), for a line that may not quote the message (the hook log's)."""

    def __init__(self, message: str, fields: Sequence[str]) -> None:
        super().__init__(message)
        self.fields = tuple(fields)


class Unignored(Refused):
    """Git does not ignore ``okf/.memory/`` (a ``!`` rule of a .gitignore a commit brought): a
    capture writes nothing there, and the hooks keep their jobs and log in the clone's git
    folder meanwhile (``gitstore.capture.hooklog.away``)."""


class NotAuthorised(Refused):
    """The team's policy would not let this append count: who signs, or what they may do."""


class AlreadyDone(Refused):
    """What the operation would record is recorded already (a run killed after its append, run
    again; or another clone's): nothing is written twice, and a command may still finish the
    steps that follow the record, such as bringing published files up to date. ``recorded``
    holds the records that made it so, for a command to tell a run of its own among them
    (``gitstore.ops.unfinished.once``)."""

    def __init__(self, message: str, recorded: Sequence[Mapping[str, Any]] = ()) -> None:
        super().__init__(message)
        self.recorded = tuple(recorded)


class UsageError(GitstoreError):
    """The command was used wrongly."""

    exit_code = 2


class NotARepository(UsageError):
    """A command that needs a git repository ran outside one."""


class UnsupportedRepository(NotARepository):
    """A git repository the library cannot open (SHA-256 object ids, an unknown format extension)."""


class NotOwnedRepository(UnsupportedRepository):
    """A repository another user owns that git itself refuses to work in (its ``safe.directory``
    does not list it); ``todo`` is git's own command that lists it."""

    def __init__(self, message: str, todo: str) -> None:
        super().__init__(message)
        self.todo = todo


class BareRepository(NotARepository):
    """A bare git repository: gitstore needs a work tree."""


class IntegrityError(GitstoreError):
    """Stored data is damaged: a digest, layout, ref or history check failed."""

    exit_code = 3


class Incomplete(GitstoreError):
    """A command ended without everything it asked for (an import's source unreachable, pages
    missing; a promotion's push or pull request not made); what it did store is kept."""


class ConflictError(GitstoreError):
    """A compare-and-swap lost its race more times than the retry budget allows."""


def in_one_line(exc: Exception) -> str:
    """What went wrong, in one line: gitstore's own error as it says it, any other with its type
    (where one item failing is reported and the next one tried, rather than a traceback)."""
    if isinstance(exc, GitstoreError):
        return str(exc)
    return " ".join(f"{type(exc).__name__}: {exc}".split())[:400]


__all__ = [
    "AlreadyDone",
    "CanonicalizationError",
    "ConflictError",
    "ContractError",
    "GitstoreError",
    "Incomplete",
    "IntegrityError",
    "InvalidInput",
    "NotARepository",
    "NotAuthorised",
    "Refused",
    "UsageError",
]
