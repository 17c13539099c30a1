"""Escape-like sequences never break the scanner: a percent escape is two hexadecimal digits
(``%0A`` is a line break, not an octal number), and no text of escapes, half escapes and
broken ones makes a scan raise."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gitstore.safety.scanner import default_scanner

SCANNER = default_scanner()


@pytest.mark.parametrize("text", [
    "curl 'https://api.example.com/q?text=a%0Ab'",
    "Why does https://hooks.example.com/x?msg=line1%0Aline2 fail?",
    "a%0Db%1Fc%0a%0d%1f%7F%00%3D%09",
    "%0A",
    "%1F%1F%1F",
])
def test_percent_encoded_control_characters_are_scanned(text: str) -> None:
    assert SCANNER.scan(text).text == text


def test_a_percent_encoded_secret_after_an_encoded_line_break_is_redacted() -> None:
    text = "body: note%0Auser%3Dbob%26password%3DZq8vN2xLp4TkW9rC"
    result = SCANNER.scan(text)
    assert "Zq8vN2xLp4TkW9rC" not in result.text, result.text


_ESCAPE_PIECES = [
    "%", "%0", "%0A", "%0a", "%0D", "%1F", "%7F", "%3D", "%G1", "%8", "%FF", "%2", "\\", "\\x", "\\x0A",
    "\\x7f", "\\x1F", "\\0", "\\01", "\\012", "\\0147", "\\147", "\\777", "\\8", "\\u", "\\u000A",
    "\\u007F", "\\U0000000A", "\\u{A}", "\\u{0}", "\\x{7F}", "\\o{12}", "\\o{177}", "\\N{", "\\N{LF}",
    "\\N{LATIN SMALL LETTER G}", "\\N{NO SUCH NAME}", "&", "&#", "&#10", "&#10;", "&#x", "&#xA;", "&#X7f",
    "&#0;", "&#127;", "&#x0;", "&lt;", "&lowbar;", "&NewLine;", "\\\"", "\\\\\"", "\"", "password", "=",
    ":", " ", "\n", "x", "0", "A", "}", "{", ";",
]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_ESCAPE_PIECES), st.text(max_size=3)), max_size=40).map("".join))
@example("%0A")
@example("x%0Ay%0Dz%1F")
def test_no_text_of_escapes_makes_the_scanner_raise(text: str) -> None:
    result = SCANNER.scan(text)
    assert isinstance(result.text, str)
