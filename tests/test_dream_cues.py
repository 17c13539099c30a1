"""Cues: who a text speaks to, and what in it depends on one machine, person or credential.
The dream matches them against lowercased text with quotes and code masked."""

from __future__ import annotations

import pytest

from gitstore.dream import cues
from gitstore.dream.audience import classify

from .test_dream_lexical import piece


@pytest.mark.parametrize(("text", "what"), [
    ("put the key in the .env file", "a credential"),
    ("keep it in .netrc so curl finds it", "a credential"),
    ("source it from .zshrc first", "one person's tools"),
    ("(.bashrc) sets the path", "one person's tools"),
])
def test_a_dotfile_named_alone_is_an_environment_trace(text: str, what: str) -> None:
    assert what in [found for found, _ in cues.environment(text)]


@pytest.mark.parametrize("text", ["the build.env file is generated", "read settings.profile from the bundle"])
def test_a_file_that_only_ends_like_a_dotfile_is_not(text: str) -> None:
    assert cues.environment(text) == []


def test_a_learning_about_the_env_file_is_for_people_s_tooling() -> None:
    text = "Put the deploy key in the .env file before running the e2e tests."
    audience, why = classify([piece(1, text), piece(2, text)], text)
    assert audience == "user-tooling" and "a credential" in why
