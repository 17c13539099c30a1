"""Times: gitstore's one form, and the dates and times a person types, stored in that form."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gitstore.errors import InvalidInput
from gitstore.records.times import parse_time, time_or_age, user_time

from .cli import fails, ok


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("2026-01-01", "2026-01-01T00:00:00.000000Z"),
        ("2026-01-01T10:00Z", "2026-01-01T10:00:00.000000Z"),
        ("2026-01-01T10:00:30z", "2026-01-01T10:00:30.000000Z"),
        ("2026-01-01T12:00+02:00", "2026-01-01T10:00:00.000000Z"),
        ("2026-01-01T10:00:00.5Z", "2026-01-01T10:00:00.500000Z"),
        ("2026-01-01T10:00:00.000000Z", "2026-01-01T10:00:00.000000Z"),
        (" 2026-01-01 ", "2026-01-01T00:00:00.000000Z"),
    ],
)
def test_a_person_types_a_date_or_a_time_with_a_zone(typed: str, stored: str) -> None:
    assert user_time(typed) == stored
    parse_time(user_time(typed))


@pytest.mark.parametrize("typed", ["2026-02-30", "2026-01-01T10:00", "yesterday", "2026-13-01T00:00Z", ""])
def test_anything_else_is_refused_naming_the_forms(typed: str) -> None:
    with pytest.raises(InvalidInput, match=r"is not a date \(2026-01-01\) or a time with a zone"):
        user_time(typed)


@pytest.mark.parametrize(("typed", "stored"), [
    ("12h", "2026-03-14T22:30:00.000000Z"), ("3d", "2026-03-12T10:30:00.000000Z"),
    ("2w", "2026-03-01T10:30:00.000000Z"), ("2026-03-01", "2026-03-01T00:00:00.000000Z"),
])
def test_since_takes_an_age_in_hours_days_or_weeks_before_now_or_a_time(typed: str, stored: str) -> None:
    """What --since's help names (import github, dream, ci init): 12h, 3d, 2w, or a time."""
    assert time_or_age(typed, datetime(2026, 3, 15, 10, 30, tzinfo=timezone.utc)) == stored


def test_grant_stores_what_was_typed_in_gitstores_form(repo: Path) -> None:
    import json

    ok("init", cwd=repo)
    grant = json.loads(ok("grant", "--purpose", "review", "--from", "2026-01-01", "--until", "2026-06-30T18:00+02:00",
                          "--by", "github:9", "--json", cwd=repo))
    assert (grant["from"], grant["until"]) == ("2026-01-01T00:00:00.000000Z", "2026-06-30T16:00:00.000000Z")
    assert "time '2026-01-01T10:00' is not a date" in fails(2, "grant", "--purpose", "review", "--from",
                                                          "2026-01-01T10:00", "--by", "github:9", cwd=repo)


@settings(max_examples=500, deadline=None)
@given(st.tuples(st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32), st.integers(0, 24),
                 st.integers(0, 60), st.integers(0, 60), st.integers(0, 999999)))
# every kind of year's 29 February, and the last day of each kind of month, whatever the draw
@example((2024, 2, 29, 0, 0, 0, 0))
@example((2023, 2, 29, 0, 0, 0, 0))
@example((1900, 2, 29, 12, 0, 0, 0))
@example((2000, 2, 29, 23, 59, 59, 999999))
@example((2100, 2, 29, 0, 0, 0, 0))
@example((2026, 4, 31, 0, 0, 0, 0))
@example((2026, 12, 31, 23, 59, 59, 999999))
@example((2026, 2, 28, 24, 0, 0, 0))
def test_a_time_parses_as_strptime_reads_its_one_format(parts: tuple[int, ...]) -> None:
    """The same answer as ``strptime`` with gitstore's format, on every string of the shape and
    near it: real calendar dates (leap years too) pass, the rest are refused."""
    year, month, day, hour, minute, second, micro = parts
    text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{micro:06d}Z"
    try:
        expected = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    except ValueError:
        expected = None
    if expected is None or year == 0:  # year 0000 is outside the contracts' pattern
        with pytest.raises(InvalidInput):
            parse_time(text)
    else:
        assert parse_time(text) == expected and parse_time(text).tzinfo is timezone.utc


@pytest.mark.parametrize("text", ["2024-02-29T00:00:00.000000Z", "2000-02-29T23:59:59.999999Z", "0001-01-01T00:00:00.000000Z"])
def test_leap_days_and_the_first_year_are_times(text: str) -> None:
    assert parse_time(text).isoformat().startswith(text[:19])


@pytest.mark.parametrize("text", ["2023-02-29T00:00:00.000000Z", "1900-02-29T00:00:00.000000Z", "2026-04-31T00:00:00.000000Z",
                                  "2026-01-01T00:00:00.000000+00:00", "2026-01-01 00:00:00.000000Z", "2026-01-01T00:00:00Z"])
def test_other_days_and_forms_are_refused(text: str) -> None:
    with pytest.raises(InvalidInput):
        parse_time(text)


@pytest.mark.parametrize(("typed", "stored"), [
    ("0001-01-01", "0001-01-01T00:00:00.000000Z"), ("0500-06-01T10:00Z", "0500-06-01T10:00:00.000000Z"),
    ("9999-12-31T23:59+00:00", "9999-12-31T23:59:00.000000Z"),
])
def test_years_before_1000_are_written_with_four_digits(typed: str, stored: str) -> None:
    """``%Y`` writes year 500 as ``500`` on Linux: a time no contract accepts, and out of text order."""
    assert user_time(typed) == stored and parse_time(stored)


@pytest.mark.parametrize("typed", ["9999-12-31T23:00-05:00", "0001-01-01T00:00+01:00"])
def test_a_time_outside_the_years_0001_to_9999_in_utc_is_refused_in_one_line(typed: str, repo: Path) -> None:
    from gitstore.records.times import normalize_time

    with pytest.raises(InvalidInput, match="not between the years 0001 and 9999 in UTC"):
        user_time(typed)
    with pytest.raises(InvalidInput, match="not between the years 0001 and 9999 in UTC"):
        normalize_time(typed)  # what capture and imports read: a bad time is skipped or refused, never a crash
    with pytest.raises(InvalidInput, match="not between the years"):
        time_or_age(typed)
    with pytest.raises(InvalidInput, match="reaches before the year 0001"):
        time_or_age("99999w", datetime(100, 1, 1, tzinfo=timezone.utc))
    ok("init", cwd=repo)
    assert "not between the years 0001 and 9999" in fails(2, "grant", "--purpose", "review", "--from", typed,
                                                          "--by", "github:9", cwd=repo)


@pytest.mark.parametrize("age", ["3000000w", "999999999w", "99999999999999999999999999d", "1" * 5000 + "h"])
def test_an_age_reaching_before_the_year_0001_says_so(age: str) -> None:
    """An age of more digits than five was told it is neither a time nor an age."""
    with pytest.raises(InvalidInput, match="reaches before the year 0001"):
        time_or_age(age)


@pytest.mark.parametrize("typed", ["2026-03-01T10:00:00.1234567Z", "2026-03-01T10:00:00,123456789+02:00"])
def test_a_typed_time_finer_than_microseconds_is_refused_not_cut(typed: str, repo: Path) -> None:
    """gitstore keeps six fractional digits: a grant from a time cut short would cover what was
    written before the time typed. Times harnesses write keep their first six (``normalize_time``)."""
    from gitstore.records.times import normalize_time

    digits = len(typed.split(":")[2][3:].split("Z")[0].split("+")[0])
    for read in (user_time, time_or_age):
        with pytest.raises(InvalidInput, match=f"has {digits} fractional digits: gitstore keeps 6"):
            read(typed)
    assert normalize_time(typed).endswith(".123456Z")
    assert user_time("2026-03-01T10:00:00.123456Z") == "2026-03-01T10:00:00.123456Z"
    ok("init", cwd=repo)
    for option in ("--from", "--until"):
        refused = fails(2, "grant", "--purpose", "review", option, typed, "--by", "github:9", cwd=repo)
        assert f"'{option}'" in refused and "fractional digits" in refused, refused
    assert "fractional digits" in fails(2, "dream", "--since", typed, "--dry-run", cwd=repo)
    assert ok("audit", "--json", cwd=repo).strip() == "[]"  # nothing stored
