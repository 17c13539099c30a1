"""Commands memory must not hand an agent to follow.

- ``pipe-to-shell`` (quarantined in memory text; a warning in a file's content, where an
  installer's README documents its one-liner for people): a download run as code without being
  looked at. A
  downloader (``curl``, ``wget``, PowerShell's ``iwr``/``irm``/``Invoke-WebRequest``/
  ``Invoke-RestMethod``/``Net.WebClient``) given something to fetch (a URL, a host name or a
  variable), piped into a shell (``sh``, ``bash``, ``zsh``..., through ``sudo`` or ``env``),
  into an interpreter reading its program from the pipe (``python``, ``python3 -``, ``perl``,
  ``ruby``, ``node``, ``php``) or into ``iex``/``Invoke-Expression``, possibly through ``tee``,
  ``base64 -d`` or a decompressor; or run by ``bash <(curl ...)``, ``source <(wget ...)``,
  ``sh -c "$(curl ...)"``, ``eval "$(curl ...)"``, ``iex (iwr ...)``. A text that carries one
  hands the reading agent a way to run code nobody reviewed (an installer's own README
  included: memory keeps the lesson, not the command). Downloads saved, inspected, or piped
  into a formatter or an unpacker (``| jq``, ``| python -m json.tool``, ``| tar xz``,
  ``| gpg --dearmor``), and talk about the pattern ("don't pipe curl into sh", ``curl | sh``
  with nothing to fetch) are left alone. Matched on the text as read
  (:attr:`~gitstore.safety.spans.Text.reading`), so case, spacing, line continuations, markdown
  and look-alike letters do not hide one.
- ``untrusted-checkout`` (redacted): a workflow run on ``pull_request_target`` has the base
  repository's token and secrets; checking out the pull request's head in it runs the fork's
  code with them (a "pwn request"). The head ref after the checkout's ``ref:`` goes, the rest
  of the workflow stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gitstore.safety import lazy
from gitstore.safety.spans import Hit, Text, starts_word

# Matched on the text as read (lower case). A downloader, its arguments up to the end of the
# command (a backslash continues the line), one of which names what to fetch.
_DOWNLOADER = lazy.Pattern(r"(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b")
_DOWNLOADER_WORDS = ("curl", "wget", "iwr", "irm", "invoke-")  # one of them is in every match
_ARGUMENTS = lazy.Pattern(r"(?:[^|;&\n\\]|\\\r?\n|\\.){0,400}")
_TARGET = lazy.Pattern(r"(?<![\w+.-])[a-z][a-z0-9+.-]*://|\$\{?\w|(?<![\w-])[\w-]+\.[a-z]{2,}\b")
_PIPE = r"\|[ \t]*(?:\\\r?\n[ \t]*)?"
# Stages a download may pass through on its way to the shell.
_THROUGH = (
    rf"(?:(?:tee|cat|gunzip|zcat|xz\s+-d|gzip\s+-d|bzip2\s+-d|base64\s+(?:-d|--decode)|tr\s)"
    rf"[^|;&\n]{{0,120}}{_PIPE})*"
)
_SUDO = r"(?:sudo(?:\s+-[a-z]+)*\s+)?(?:env(?:\s+[a-z_][a-z0-9_]*=\S*)*\s+)?(?:/usr(?:/local)?)?(?:/bin/)?"
_SHELL = r"(?:ba|z|k|c|tc|da|fi|a|yash|mk)?sh\b(?![\w.-]*\.\w)(?!\s+[\w./-]+\.(?:sh|bash|zsh)\b)"
# An interpreter reads its program from the pipe when given no script ("python", "python3 -").
_INTERPRETER = r"(?:python[0-9.]*|perl|ruby|node|php)(?:\s+-)?(?=[ \t]*(?:$|[;&|)`'\"\n]))"
_EXPRESSION = r"(?:iex|invoke-expression)\b"
_INTO_SHELL = lazy.Pattern(rf"{_PIPE}{_THROUGH}{_SUDO}(?:{_SHELL}|{_INTERPRETER}|{_EXPRESSION})", re.MULTILINE)
_RUN_DOWNLOADED = tuple(
    lazy.Pattern(p)
    for p in (
        # iex (iwr ...), iex ((new-object net.webclient).downloadstring(...))
        r"(?:iex|invoke-expression)\s*+\(*+\s*+(?:iwr|irm|invoke-webrequest|invoke-restmethod|"
        r"new-object\s+(?:system\.)?net\.webclient)\b",
        r"(?:new-object\s+(?:system\.)?net\.webclient\s*+\)?+\s*+\.\s*+downloadstring[^|\n]{0,300}"
        rf"{_PIPE}{_EXPRESSION})",
    )
)
# A download run as a file or a string, looked for only when the text substitutes something.
_SUBSTITUTED = {
    # bash <(curl ...), source <(wget ...), . <(curl ...)
    "<(": lazy.Pattern(r"(?<![\w.-])(?:(?:ba|z|k|da)?sh|source|\.)\s+(?:-\S+\s+)*<\(\s*(?:curl|wget)\b"),
    # sh -c "$(curl ...)", eval "$(wget ...)", python -c "$(curl ...)"
    "$(": lazy.Pattern(
        r"(?<![\w.-])(?:(?:(?:ba|z|k|da)?sh|python[0-9.]*|perl|ruby|node)\s+-c|eval)\s+[\"']?\$\(\s*(?:curl|wget)\b"
    ),
}


def downloaders(reading: str) -> Iterator[re.Match[str]]:
    """Where the text names a downloader (``_DOWNLOADER``)."""
    if any(w in reading for w in _DOWNLOADER_WORDS):
        yield from _DOWNLOADER.finditer(reading)


def pipe_to_shell_count(text: Text) -> int:
    """How many downloads the text runs as code without a look."""
    reading = text.reading
    count, covered = 0, 0
    for m in downloaders(reading):
        if m.start() < covered or not starts_word(reading, m.start()):
            continue
        arguments = _ARGUMENTS.match(reading, m.end())
        covered = arguments.end()  # each character is looked at as part of one command only
        if _TARGET.search(reading, m.end(), covered) and _INTO_SHELL.match(reading, covered):
            count += 1
    count += sum(1 for pattern in _RUN_DOWNLOADED for m in pattern.finditer(reading)
                 if starts_word(reading, m.start()))
    for mark, pattern in _SUBSTITUTED.items():
        if mark in reading:
            count += sum(1 for _ in pattern.finditer(reading))
    return count

_PR_TARGET = lazy.Pattern(r"(?m)^[ \t]*(?:on:[ \t]*\[?(?:[\w-]+[ \t]*,[ \t]*)*|-[ \t]*)?pull_request_target\b")
_CHECKOUT = lazy.Pattern(r"\buses:[ \t]*[\"']?actions/checkout@")
_HEAD_REF = lazy.Pattern(
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


__all__ = ["pipe_to_shell_count", "untrusted_checkout_hits"]
