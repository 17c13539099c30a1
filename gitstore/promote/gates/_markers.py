"""A promoted block's marker enters a file only as ``gitstore promote`` writes it.

Promote writes a promoted block's marker (``<!-- gitstore:promoted lrn_<id> sha256:<digest> -->``)
only in ``okf/wiki/`` and ``.agents/skills/``, as a line of its own. Anywhere else, or spelled
otherwise (indented, inside other text, in capitals, spaced, in look-alike letters), a full
marker (a real-looking id and digest, ``blocks.holds_marker``) was written by hand, and an agent
reading the file takes the text after it for text a person accepted. So the promotion gate reads
the lines a commit adds to text files (``EXTENSIONS``: Markdown, MDX, Cursor's ``.mdc`` rules,
``.txt``, reStructuredText, AsciiDoc, HTML, Org; and ``NAMES``, prose files without an extension
such as ``README``, ``CONTRIBUTING`` or ``NOTES``) and refuses each that holds a full marker,
with two exceptions: a marker line as promote writes it in the wiki or the skills (the gate
judges its block, ``promotion.block_problems``), and the files agents read by themselves
(``_published`` refuses every imitation there, a marker's included). Source code that holds the
marker in a string is no such file.

Only added lines are read, and git finds them: one ``git log -G`` over the range (or one
``git diff --cached`` for the commit being made) names the commits whose changes may hold an id
(``blocks.GIT_HINT``: 32 hexadecimal digits, or bytes of characters that may read as digits, such
as full-width ones or HTML entities, with spaces and punctuation between, or a named entity, which
may stand for a digit; git reads it byte by byte, in the C locale, so that no locale hides a
character from it), and prints only their changed lines, every file
read as text (a NUL byte or a ``-diff`` attribute does not hide one). A merge adds the lines
that are in none of its parents (git's combined diff).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence
from pathlib import Path

from gitstore.promote import blocks
from gitstore.promote.gates._common import Finding, git
from gitstore.promote.gates._published import read_by_agents
from gitstore.promote.standing import in_block_folders

# the prose formats agents read as text: Markdown and MDX, Cursor's rules, plain text,
# reStructuredText, AsciiDoc, HTML (a comment hides nothing from an agent reading the source), Org
EXTENSIONS = ("md", "mdx", "markdown", "mdc", "txt", "rst", "adoc", "asciidoc", "html", "htm", "org")
# prose files named by custom without an extension; a pathspec cannot say "any name without a
# dot" without naming every file, which would diff every change of every commit in the range
NAMES = ("README", "CONTRIBUTING", "HACKING", "INSTALL", "NOTES", "NEWS", "CHANGES", "CHANGELOG", "TODO",
         "AUTHORS")
PATHSPECS = (*(f":(glob,icase)**/*.{ext}" for ext in EXTENSIONS), *(f":(glob,icase)**/{name}" for name in NAMES))
# what ``blocks.holds_marker`` needs first, read byte by byte (``blocks.HINT``): an id, whatever
# the characters it is written in (full-width digits too) and the punctuation between them
_HINT = blocks.GIT_HINT.decode("utf-8", "surrogateescape")  # as git is handed it: the same bytes
# every file as text (``--text``): a NUL byte or a ``-diff`` attribute would have git print
# "Binary files differ" for a file agents read as text all the same
_DIFF = ("--no-color", "--no-ext-diff", "--no-textconv", "--no-relative", "--src-prefix=a/", "--dst-prefix=b/",
         "--no-renames", "--text", "-U0")
_COMMIT = re.compile(rb"^\x01", re.MULTILINE)  # no line of a patch starts with it (each has its prefix)
_HUNK = re.compile(r"^(@+) .*?\+(\d+)(?:,\d+)? @+")

Added = tuple[str, int, str]  # (path, line, text) of a line a commit adds


def in_range(root: Path, spec: Sequence[str]) -> dict[str, list[Added]]:
    """commit -> the lines it adds to text files that may hold a full marker, for the commits
    of ``spec`` (``git rev-list`` arguments) whose changes hold one."""
    done = git("-c", "core.quotePath=false", "log", "--format=%x01%H", "--full-history", "-p", "--cc", *_DIFF,
               "-G", _HINT, *spec, "--", *PATHSPECS, cwd=root, c_locale=True)
    found: dict[str, list[Added]] = {}
    for chunk in _COMMIT.split(done.stdout)[1:]:
        sha, _, patch = chunk.partition(b"\n")
        lines = added_lines(patch)
        if lines:
            found[sha.decode()] = lines
    return found


def pending(root: Path, bases: Sequence[str]) -> list[Added]:
    """The lines the index being committed adds against each of ``bases`` (none: against
    nothing, the first commit): a line a merge brings from one of the commits it merges is
    not its own."""
    common: list[Added] | None = None
    for base in bases or [""]:
        done = git("-c", "core.quotePath=false", "diff", "--cached", *_DIFF, "-G", _HINT,
                   *([base] if base else []), "--", *PATHSPECS, cwd=root, keep_index=True, c_locale=True)
        lines = added_lines(done.stdout)
        if common is None:
            common = lines
        else:
            texts = {(path, text) for path, _, text in lines}
            common = [line for line in common if (line[0], line[2]) in texts]
    return common or []


def added_lines(patch: bytes) -> list[Added]:
    """The lines a patch (``-U0``, plain or combined) adds, with their numbers in the new file:
    in a combined diff, those added against every parent."""
    found: list[Added] = []
    path, width, number, in_hunk = "", 1, 0, False
    for raw in patch.decode("utf-8", "replace").split("\n"):
        if raw.startswith("diff "):
            path, in_hunk = "", False
        elif not in_hunk and raw.startswith("+++ "):
            path = _path(raw[4:])
        elif raw.startswith("@") and (hunk := _HUNK.match(raw)):
            width, number, in_hunk = len(hunk.group(1)) - 1, int(hunk.group(2)), True
        elif in_hunk and path:
            prefix = raw[:width]
            if "-" in prefix or raw.startswith("\\"):
                continue
            if prefix == "+" * width:
                found.append((path, number, raw[width:]))
            number += 1
    return found


def _path(raw: str) -> str:
    """The new file's path on a ``+++`` line: git ends a name holding a space with a tab, and
    quotes one holding a control character, a quote or a backslash."""
    raw = raw[:-1] if raw.endswith("\t") else raw
    if raw.startswith('"') and raw.endswith('"'):
        raw = codecs.escape_decode(raw[1:-1].encode("utf-8"))[0].decode("utf-8", "replace")
    return raw[2:] if raw.startswith("b/") else ""  # /dev/null: a deleted file adds nothing


def problems(lines: Sequence[Added], how: str) -> list[Finding]:
    """One finding for each added line that holds a full marker where promote writes none
    (see the module's documentation); ``how`` says which commit added it."""
    found = []
    for path, number, text in lines:
        if read_by_agents(path) or not blocks.holds_marker(text):
            continue
        if in_block_folders(path):
            if blocks.MARKER.match(text.rstrip("\r")):
                continue  # a block: its learning's standing is judged with it
            what = ("holds a promoted block's marker that is not a line of its own as promote writes it "
                    "(<!-- gitstore:promoted lrn_<id> sha256:<digest> -->)")
        else:
            what = "holds a promoted block's marker, which promote writes only in okf/wiki/ and .agents/skills/"
        found.append(Finding(path, number, f"{what}; agents reading the file take what follows it for text a "
                                           f"person accepted; {how}, and only `gitstore promote` writes one"))
    return found
