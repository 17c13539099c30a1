"""What gitstore writes where GitHub renders it (a pull request's description, a job summary, a
title, a commit message) shows anyone's words and acts on none of them: a review comment's
``fixes #1`` closes no issue, its ``@acme/sec`` notifies no one, its links, images and HTML do
not render."""

from __future__ import annotations

from typing import Any

import pytest

from gitstore._github_text import block, code, plain

AUDIT = "Every error log line should carry the request id (fixes #1) @acme/sec"
LINKED = "Every error log line should carry the request id [runbook](https://evil.example/x)."
IMAGE = "Log the request id ![x](https://evil.example/p.png) <img src=https://evil.example/q> <b>now</b>"
REFERS = "Resolves acme/widgets#12, closes GH-3, fixed https://github.com/acme/widgets/issues/4 cc @octocat"
HOSTILE = (AUDIT, LINKED, IMAGE, REFERS, "ticks ``` and ` and ```` inside | a pipe")


def acted_on(markdown: str) -> list[str]:
    """What of ``markdown`` GitHub would act on or render as the writer chose: text outside code
    holding a mention, ``#N``, ``GH-N`` or a URL, and every link, image and piece of HTML."""
    import re

    markdown_it = pytest.importorskip("markdown_it")
    found: list[str] = []
    acts = re.compile(r"(?<![\w`])@\w|#\d|\bGH-\d|\w://", re.IGNORECASE)

    def walk(tokens: Any) -> None:
        for token in tokens:
            if token.type in ("html_inline", "html_block", "link_open", "image"):
                found.append(f"{token.type}: {token.content or token.attrs}")
            elif token.type == "text" and acts.search(token.content):
                found.append(f"text: {token.content}")
            walk(token.children or [])

    walk(markdown_it.MarkdownIt("commonmark").enable("table").parse(markdown))
    return found


@pytest.mark.parametrize("text", HOSTILE)
def test_code_and_block_show_the_text_as_written_and_nothing_acts(text: str) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    span = code(text)
    assert acted_on(f"Proposed: {span}.") == []
    inline = [t for t in markdown_it.MarkdownIt("commonmark").parse(span) if t.type == "inline"][0]
    assert [c.type for c in inline.children] == ["code_inline"] and inline.children[0].content == text
    fenced = block(f"{text}\nsecond line\n```\nthird")
    assert acted_on(f"## Learning\n\n{fenced}\n\nafter") == []
    fence = [t for t in markdown_it.MarkdownIt("commonmark").parse(fenced) if t.type == "fence"]
    assert len(fence) == 1 and fence[0].content == f"{text}\nsecond line\n```\nthird\n"


@pytest.mark.parametrize("text", HOSTILE)
def test_plain_text_for_titles_and_commit_messages_refers_to_nothing(text: str) -> None:
    """A title and a commit message are plain text to GitHub: in a commit that reaches the
    default branch a closing keyword before #1 closes issue 1, and a mention in a title links."""
    import re

    line = plain(text + "\nsecond line")
    assert "\n" not in line and line.endswith(" second line")
    assert not re.search(r"(?<![\w`])@\w|#\d|\bGH-\d|\w://", line, re.IGNORECASE), line
    assert [w for w in re.split(r"[\s@#:-]+", line) if w] == [w for w in re.split(r"[\s@#:-]+", text + " second line") if w]


def test_the_audit_title_loses_only_what_github_acts_on() -> None:
    assert plain(AUDIT) == "Every error log line should carry the request id (fixes # 1) @ acme/sec"
    assert plain("mail r@example.com about it") == "mail r@example.com about it", "an address is no mention"
