"""gitstore imports jsonschema-rs without ``email.utils`` and leaves ``sys.modules`` as it was
(``gitstore._jsonrs``): the stand-in's date parser answers as the real one does, and a process
that imports ``email.utils`` afterwards gets the real module."""

from __future__ import annotations

import email.utils
import json
import random
import subprocess
import sys
import textwrap

import pytest

from gitstore._jsonrs import parsedate_to_datetime

REPORT = textwrap.dedent("""
    import json, sys
    had_utils = "email.utils" in sys.modules
    {before}
    import jsonschema_rs
    loaded = "email.utils" in sys.modules
    built = jsonschema_rs.jsonschema_rs.__build__["info-time"]
    valid = jsonschema_rs.validator_for({{"type": "string", "format": "date-time"}}, validate_formats=True)
    import email.utils
    print(json.dumps({{"had": had_utils, "loaded": loaded, "built": built.isoformat(), "tz": str(built.tzinfo),
                      "real": hasattr(email.utils, "formataddr") and not hasattr(email.utils, "__gitstore_stand_in__"),
                      "checks": [valid.is_valid("2026-12-08T01:00:00Z"), valid.is_valid("yesterday")]}}))
""")


def _report(before: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", REPORT.format(before=before)], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.splitlines()[-1])


def _outcome(parse: object, text: str) -> tuple[object, ...]:
    try:
        found = parse(text)  # type: ignore[operator]
    except Exception as error:  # the real function's own errors must come back the same
        return ("error", type(error))
    return ("ok", found, found.utcoffset())


@pytest.mark.parametrize("text", [
    "Thu, 12 Nov 2026 07:50:16 +0000",  # the form jsonschema-rs's build stamp takes
    "Mon, 1 Jan 2024 00:00:00 +0530",
    "Sun, 31 Dec 1999 23:59:59 -1200",
    "Tue, 29 Feb 2028 12:00:00 +0100",
    "Tue, 30 Feb 2028 12:00:00 +0100",  # no such day
    "Thu, 12 Nov 26 07:50:16 +0000",  # two-digit year: the real function's window
    "Thu, 12 Nov 0069 07:50:16 +0000",
    "Thu, 12 Nov 2026 07:50:16 -0000",  # an unknown zone: a naive datetime
    "Thu, 12 Nov 2026 07:50:16 GMT",
    "Thu, 12 Nov 2026 07:50 +0000",
    "Thu, 12 nov 2026 07:50:16 +0000",
    "Thu,  12 Nov 2026 07:50:16 +0000",
    "12 Nov 2026 07:50:16 +0000",
    "Thu, 12 Nov 2026 24:00:00 +0000",
    "Thu, ٣ Nov 2026 07:50:16 +0000",  # a digit outside ASCII
    "not a date",
    "",
])
def test_the_stand_in_parses_as_email_utils_does(text: str) -> None:
    assert _outcome(parsedate_to_datetime, text) == _outcome(email.utils.parsedate_to_datetime, text)


def test_the_stand_in_agrees_on_generated_stamps() -> None:
    rng = random.Random(8785)
    for _ in range(3000):
        text = " ".join([
            rng.choice(["Mon,", "Sat,", "Xyz,"]), str(rng.randint(0, 32)).zfill(rng.choice([1, 2])),
            rng.choice(["Jan", "Jun", "Dec", "Foo"]), str(rng.randint(0, 9999)).zfill(4),
            ":".join(f"{rng.randint(0, 61):02d}" for _ in range(3)),
            rng.choice("+-") + f"{rng.randint(0, 2400):04d}"])
        assert _outcome(parsedate_to_datetime, text) == _outcome(email.utils.parsedate_to_datetime, text), text


def test_load_skips_email_utils_and_puts_sys_modules_back() -> None:
    found = _report("from gitstore._jsonrs import load; load()")
    plain = _report("")
    assert not found["had"] and not found["loaded"]  # jsonschema-rs was imported without the e-mail modules
    assert plain["loaded"]  # (a plain import loads them)
    assert found["built"] == plain["built"] and found["tz"] == plain["tz"]  # the same build stamp either way
    assert found["real"] and found["checks"] == plain["checks"] == [True, False]


def test_a_process_that_imported_email_utils_first_keeps_it() -> None:
    found = _report("import email.utils\nkept = email.utils\nfrom gitstore._jsonrs import load; load()\n"
                    "assert sys.modules['email.utils'] is kept")
    assert found["loaded"] and found["real"]
