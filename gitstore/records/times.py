"""UTC times with six fractional digits and ``Z``, so text order is time order, on real
calendar dates: ``2026-02-31`` has the shape and is still refused, by :func:`parse_time` and by
both contract validators (:func:`is_time`, the ``date-time`` format of the ``time``
definition)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from gitstore.errors import InvalidInput

# The contracts' ``time`` pattern (``defs.schema.json``): years 0001 to 9999, each part bounded.
TIME_PATTERN = (
    r"^([0-9]{3}[1-9]|[0-9]{2}[1-9]0|[0-9][1-9]00|[1-9]000)-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{6}Z$"
)
_TIME = re.compile(TIME_PATTERN)


def format_time(moment: datetime) -> str:
    """Format an aware datetime as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` in UTC."""
    if moment.tzinfo is None:
        raise InvalidInput(f"time {moment.isoformat()} has no time zone")
    try:
        utc = moment.astimezone(timezone.utc)
    except OverflowError:  # 9999-12-31T23:00-05:00 is in year 10000 in UTC
        raise InvalidInput(f"time {moment.isoformat()} is not between the years 0001 and 9999 in UTC") from None
    return f"{utc.year:04d}-{utc:%m-%dT%H:%M:%S.%f}Z"  # %Y does not pad years before 1000 everywhere


def is_time(text: object) -> bool:
    """Whether TEXT is a gitstore time on a real calendar date (the contracts' ``date-time``
    format; anything that is not a string is left to the other rules)."""
    if not isinstance(text, str):
        return True
    try:
        parse_time(text)
    except InvalidInput:
        return False
    return True


def parse_time(text: str) -> datetime:
    """Parse a gitstore time, refusing any other precision or zone."""
    if not isinstance(text, str) or not _TIME.match(text):
        raise InvalidInput(
            f"time {text!r} is not UTC with six fractional digits (YYYY-MM-DDTHH:MM:SS.ffffffZ)"
        )
    try:  # the shape is checked: what is left is the calendar (``strptime`` is 50 times slower)
        return datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInput(f"time {text!r} is not a calendar date") from None


def normalize_time(text: str) -> str:
    """Turn any ISO 8601 time with a zone (as harnesses and GitHub write them) into ours."""
    if not isinstance(text, str):
        raise InvalidInput(f"time {text!r} is not a string")
    candidate = text.strip()
    if candidate.endswith(("Z", "z")):
        candidate = candidate[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(candidate)
    except ValueError:
        raise InvalidInput(f"time {text!r} is not ISO 8601") from None
    if moment.tzinfo is None:
        raise InvalidInput(f"time {text!r} has no time zone")
    return format_time(moment)


_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
_FRACTION = re.compile(r":[0-9]{2}[.,]([0-9]+)")  # the digits after a time's seconds
FRACTION_DIGITS = 6
_TOO_FINE = "fractional digits"


def user_time(text: str) -> str:
    """A time a person typed, in gitstore form: a date (``2026-01-01``, midnight UTC), a time
    with a zone (``2026-01-01T10:00Z``, ``2026-01-01T12:00+02:00``), or gitstore's own form.
    More than six fractional digits are refused: gitstore keeps microseconds, and a time cut
    short is not the time typed (a grant from ``...00.1234567Z`` would cover the 0.7 us before
    it). Times harnesses and GitHub write (``normalize_time``) keep their first six."""
    candidate = text.strip() if isinstance(text, str) else text
    if isinstance(candidate, str) and _DATE.match(candidate):
        candidate += "T00:00:00Z"
    fraction = _FRACTION.search(candidate) if isinstance(candidate, str) else None
    if fraction is not None and len(fraction.group(1)) > FRACTION_DIGITS:
        raise InvalidInput(f"time {text!r} has {len(fraction.group(1))} {_TOO_FINE}: gitstore keeps "
                           f"{FRACTION_DIGITS} (microseconds); give at most {FRACTION_DIGITS}")
    try:
        return normalize_time(candidate)
    except InvalidInput as exc:
        if "between the years" in str(exc):
            raise InvalidInput(f"time {text!r} is not between the years 0001 and 9999 in UTC") from None
        raise InvalidInput(
            f"time {text!r} is not a date (2026-01-01) or a time with a zone (2026-01-01T10:00Z)"
        ) from None


def now() -> str:
    """The current time in gitstore form."""
    return format_time(datetime.now(timezone.utc))


_AGE = re.compile(r"^(\d+)([hdw])\Z")


def time_or_age(value: str, moment: datetime | None = None) -> str:
    """``--since``: an age before now (``12h``, ``3d``, ``2w``), else a time as ``user_time``
    reads it."""
    age = _AGE.match(value.strip())
    if age:
        if len(age.group(1)) > 12:  # past any date, and past what int() reads of a string
            raise InvalidInput(f"{value!r} reaches before the year 0001")
        hours = int(age.group(1)) * {"h": 1, "d": 24, "w": 168}[age.group(2)]
        try:
            return format_time((moment or datetime.now(timezone.utc)) - timedelta(hours=hours))
        except (OverflowError, ValueError):
            raise InvalidInput(f"{value!r} reaches before the year 0001") from None
    try:
        return user_time(value)
    except InvalidInput as exc:
        if "between the years" in str(exc) or _TOO_FINE in str(exc):
            raise
        raise InvalidInput(f"{value!r} is neither a time (2026-03-01, 2026-03-01T10:00Z) nor an age (12h, 3d, 2w)") from None
