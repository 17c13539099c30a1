"""Independence of the evidence a dream counts: one reviewer, one review or one writer must not
make a theme recur across pull requests, threads or people it was never raised in."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import dream_world as w

ASK = "Retries need jittered backoff, otherwise every client hammers the API at once."
OWN = "Back off with jitter before retrying; a fixed delay caused the thundering herd."


@pytest.mark.parametrize("again", [
    pytest.param(ASK, id="pasted"),
    pytest.param(ASK.upper(), id="upper-case"),
    pytest.param(ASK.replace(",", "").replace(".", "!"), id="punctuation"),
    pytest.param(ASK.replace("jittered", "jit\u200btered"), id="zero-width"),
    pytest.param(ASK.replace("the API", "th\u0435 API"), id="look-alike-letter"),
    pytest.param(ASK.replace("every", "each"), id="a-word-swapped"),
    pytest.param(ASK.replace("at once", "all at once"), id="a-word-added"),
])
def test_one_reviewer_pasting_a_remark_on_another_pull_request_adds_no_change(tmp_path: Path, again: str) -> None:
    """A reviewer pasting their own remark on a second pull request, as it was or with a word
    swapped, is one origin: the second pull request is no second change where the theme was
    raised, so with a second reviewer on the first one only the theme fails the changes gate."""
    ctx = w.repo(tmp_path)
    w.comment(ctx, 10, "github:101", ASK, 0)
    w.comment(ctx, 11, "github:101", again, 10)
    w.comment(ctx, 10, "github:102", OWN, 20)
    report = w.run(ctx)
    assert report.proposed == []
    [verdict] = report.rejected
    assert verdict["reasons"] == ["1 pull requests or branches (needs 2)"]
    assert verdict["signals"]["origins"] == 2 and verdict["signals"]["copies"] == 1
