"""Times: gitstore's one form, and the dates and times a person types, stored in that form."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitstore.errors import InvalidInput
from gitstore.records.times import parse_time, user_time

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


def test_grant_stores_what_was_typed_in_gitstores_form(repo: Path) -> None:
    import json

    ok("init", cwd=repo)
    grant = json.loads(ok("grant", "--purpose", "review", "--from", "2026-01-01", "--until", "2026-06-30T18:00+02:00",
                          "--by", "github:9", "--json", cwd=repo))
    assert (grant["from"], grant["until"]) == ("2026-01-01T00:00:00.000000Z", "2026-06-30T16:00:00.000000Z")
    assert "time '2026-01-01T10:00' is not a date" in fails(1, "grant", "--purpose", "review", "--from",
                                                          "2026-01-01T10:00", "--by", "github:9", cwd=repo)
