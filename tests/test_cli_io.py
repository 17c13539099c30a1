"""The command line's input helpers."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from gitstore.cli._io import read_lines


@given(st.binary(max_size=60).map(lambda b: b.replace(b"x", b"\n")), st.integers(1, 9))
def test_read_lines_splits_as_split_does_whatever_the_block_size(data: bytes, block: int) -> None:
    expected = data.split(b"\n")
    if expected[-1] == b"":
        expected.pop()  # a final newline ends the last line; it does not start another
    assert list(read_lines(io.BytesIO(data), block)) == expected
