"""Commands memory must not hand an agent to follow.

- ``untrusted-checkout`` (redacted): a workflow run on ``pull_request_target`` has the base
  repository's token and secrets; checking out the pull request's head in it runs the fork's
  code with them (a "pwn request"). The head ref after the checkout's ``ref:`` goes, the rest
  of the workflow stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gitstore.safety.spans import Hit, Text

_PR_TARGET = re.compile(r"(?m)^[ \t]*(?:on:[ \t]*\[?(?:[\w-]+[ \t]*,[ \t]*)*|-[ \t]*)?pull_request_target\b")
_CHECKOUT = re.compile(r"\buses:[ \t]*[\"']?actions/checkout@")
_HEAD_REF = re.compile(
    r"\$\{\{[ \t]*(?:github\.event\.pull_request\.head\.(?:sha|ref)|github\.head_ref)[ \t]*\}\}"
)


def untrusted_checkout_hits(text: Text) -> Iterator[Hit]:
    """The head ref a pull_request_target workflow checks out, after ``ref:``."""
    raw = text.raw
    if "pull_request_target" not in raw or not _PR_TARGET.search(raw) or not _CHECKOUT.search(raw):
        return
    for m in _HEAD_REF.finditer(raw):
        line_start = raw.rfind("\n", 0, m.start()) + 1
        if re.match(r"[ \t]*ref:[ \t]*[\"']?$", raw[line_start : m.start()]):
            yield Hit(m.start(), m.end(), "untrusted-checkout", 1)


__all__ = ["untrusted_checkout_hits"]
