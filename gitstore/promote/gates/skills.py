"""``gitstore-skills``: the Agent Skills specification's rules on ``SKILL.md`` files.

Each ``SKILL.md`` passed is checked as the skill of its folder: front matter with only the
specification's keys, a valid ``name`` equal to the folder's name, a ``description`` of 1 to
1024 characters, and well-formed optional fields (``gitstore.promote.skills``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gitstore.promote.gates._common import files_only, Finding, parser, report, run
from gitstore.promote.skills import FILE_NAME, check_skill

PROG = "gitstore-skills"


def check(files: Sequence[str]) -> list[Finding]:
    """The rule each SKILL.md among ``files`` breaks, one finding per rule."""
    findings = []
    for name in files:
        path = Path(name)
        if path.name != FILE_NAME:
            continue
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            findings.append(Finding(name, 1, "not UTF-8 text"))
            continue
        except OSError as exc:
            findings.append(Finding(name, 1, f"cannot read ({exc.strerror})"))
            continue
        folder = path.resolve().parent.name
        findings += [Finding(name, line, problem) for line, problem in check_skill(folder, text)]
    return findings


def main(argv: Sequence[str] | None = None) -> int:
    files = files_only(argv)
    if files is None:
        files = parser(PROG, __doc__.splitlines()[0]).parse_args(argv).files
    return run(PROG, lambda: report(check(files)))
