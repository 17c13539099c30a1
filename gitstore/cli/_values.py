"""Values typed on the command line, checked as the command line is parsed.

A value a person typed as an argument or option that is empty or malformed (an id of the wrong
shape, a time, age or number that does not parse, a word not in its list, text holding a byte
that is not UTF-8) is a usage error:
exit 2, one line naming the option or argument and the value, before anything is read or
written. A well-formed value the store then refuses (an id it holds nothing for, a rule's
refusal) is exit 1, as is malformed content read from a file or standard input; those checks
stay with the library.

Each check takes one value and returns why it is wrong, or None. ``checked`` makes a parameter's
callback of checks: the framework calls it with the value (each value of a repeated option),
and its error names the parameter. The value reaches the command as typed.

Every text value is checked to be UTF-8 (``utf8``) as it is converted (``gitstore.cli._app``), for
every parameter at once, so an option added later is covered too; only a parameter naming a file
(one checked with ``path``) takes any bytes, as file names may hold them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import typer

from gitstore.records.vocabulary import unknown

Check = Callable[[str], "str | None"]

_LEARNING_ID = re.compile(r"lrn_[0-9a-f]{32}")
_DIGEST_PREFIX = re.compile(r"[0-9a-f]{8,64}")
_SOURCE_ID = re.compile(r"\S{1,200}")  # an event's sourceId (event.schema.json)


def checked(*checks: Check) -> Callable[[Any], Any]:
    """A parameter's callback running ``checks`` on each value typed (None: not given)."""

    def callback(value: Any) -> Any:
        for one in value if isinstance(value, (list, tuple)) else (value,):
            for check in checks:
                why = None if one is None else check(str(one))
                if why is not None:
                    raise typer.BadParameter(why)
        return value

    callback.names_files = path in checks  # type: ignore[attr-defined]
    return callback


def names_files(callback: Any) -> bool:
    """Whether a parameter with this callback names a file (its value may hold any bytes)."""
    return bool(getattr(callback, "names_files", False))


def utf8(value: str) -> str | None:
    """Text, as UTF-8 holds it. A byte of the command line that is not UTF-8 reaches Python as a
    lone surrogate; no record may hold one, and a command printing it would print nonsense."""
    if not any("\ud800" <= c <= "\udfff" for c in value):
        return None
    try:
        raw = value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no byte stands for (given in-process)
        raw = value.encode("utf-8", "backslashreplace")
    typed = repr(raw)[1:]  # the bytes as typed: 'n\xff'
    if len(typed) > 80:
        typed = typed[:40] + "..."
    return f"{typed} is not UTF-8 text"


def filled(value: str) -> str | None:
    """Not empty (nor only blanks): an empty value says nothing; leave the option out instead."""
    return None if value.strip() else f"{value!r} is empty"


def at_most(limit: int) -> Check:
    """At most ``limit`` characters: what the record's contract holds."""

    def check(value: str) -> str | None:
        if len(value) <= limit:
            return None
        return f"{value[:40]!r}"[:-1] + f"... is {len(value)} characters long; at most {limit} are kept"

    return check


_RELATIVE = re.compile(r"(?!/)(?!.*(?:^|/)\.\.?(?:/|$))[^\x00-\x1f\\]{1,400}")


def relative_path(value: str) -> str | None:
    """A path inside the repository, as git writes it: relative, with ``/``, no ``.`` or ``..``."""
    if _RELATIVE.fullmatch(value):
        return None
    return f"{value!r} is not a path inside the repository (relative, with /, no . or .. parts, at most 400 characters)"


def path(value: str) -> str | None:
    """A file name: an empty one names no file (it would read as the current folder)."""
    return None if value else "'' names no file"


def learning_id(value: str) -> str | None:
    """A learning id: ``lrn_`` and 32 hex digits."""
    if _LEARNING_ID.fullmatch(value):
        return None
    return f"{value!r} is not a learning id (lrn_ and 32 hex digits; `gitstore learnings` lists them)"


def grant_prefix(value: str) -> str | None:
    """A grant's digest, or a prefix of it of at least 8 hex digits (so an empty one picks none)."""
    if _DIGEST_PREFIX.fullmatch(value.removeprefix("sha256:")):
        return None
    return f"{value!r} is not a grant digest or a prefix of at least 8 lowercase hex digits"


def digest_prefix(value: str) -> str | None:
    """A record's digest, or a prefix of it of at least 8 hex digits (and at most 64)."""
    if _DIGEST_PREFIX.fullmatch(value.removeprefix("sha256:")):
        return None
    return f"{_shown(value)} is not a digest or a prefix of at least 8 lowercase hex digits"


def source_id(value: str) -> str | None:
    """An id at a comment's origin (``github:comment:123``), as an event's contract holds one:
    no blanks, at most 200 characters. Any origin may name its comments: the shape is all."""
    if _SOURCE_ID.fullmatch(value):
        return None
    return f"{_shown(value)} is not a comment's source id (such as github:comment:123: no blanks, at most 200 characters)"


_EPISODE_PREFIX = re.compile(r"ep_[0-9a-f]{1,32}")


def episode_prefix(value: str) -> str | None:
    """An episode id (``ep_`` and 32 hex digits), or a prefix of one with at least one digit."""
    if _EPISODE_PREFIX.fullmatch(value):
        return None
    return f"{_shown(value)} is not an episode id or a prefix of one (ep_<hex>; `gitstore episodes` lists them)"


def _shown(value: str) -> str:
    """A value given on the command line as an error names it: whole up to 80 characters, else
    its first 40 and an ellipsis (a line, not a screen of it)."""
    return repr(value) if len(value) <= 80 else repr(value[:40])[:-1] + "..."


def scope_name(value: str) -> str | None:
    """A hosted repository's scope (``host/owner/name``) or its remote URL. A local scope
    (``local/...``) is well-formed: the library refuses it, naming why no file may declare one."""
    from gitstore.errors import InvalidInput
    from gitstore.scope import named_scope

    if value.strip().startswith("local/"):
        return None
    try:
        named_scope(value)
    except InvalidInput as exc:
        return str(exc)
    return None


def one_of(what: str, names: tuple[str, ...]) -> Check:
    """A word of ``names`` (``what`` names the list in the error)."""
    return lambda value: unknown(what, value, names)


def time(value: str) -> str | None:
    """A time: a date (midnight UTC) or a time with a zone."""
    from gitstore.errors import InvalidInput
    from gitstore.records.times import user_time

    try:
        user_time(value)
    except InvalidInput as exc:
        return str(exc)
    return None


def time_or_age(value: str) -> str | None:
    """A time, or an age before now (``12h``, ``3d``, ``2w``)."""
    from gitstore.errors import InvalidInput
    from gitstore.records import times

    try:
        times.time_or_age(value)
    except InvalidInput as exc:
        return str(exc)
    return None


def learning_argument(help: str = "The learning (lrn_...).") -> Any:
    """The LEARNING_ID argument of a command about one learning."""
    return typer.Argument(..., metavar="LEARNING_ID", help=help, callback=checked(learning_id))
