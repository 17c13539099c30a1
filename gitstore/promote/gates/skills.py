"""``gitstore-skills``: the Agent Skills specification's rules on ``SKILL.md`` files.

Each ``SKILL.md`` passed is checked as the skill of its folder: front matter with only the
specification's keys, a valid ``name`` equal to the folder's name, a ``description`` of 1 to
1024 characters, and well-formed optional fields (``gitstore.promote.skills``). A ``SKILL.md``
or a file under ``.agents/skills/`` (in any case) that is a symbolic link (or anything but a regular file) is
refused: a skill is the file itself.

A description over 1024 characters is printed as a warning and passes (harnesses load such
skills, and vendors publish them); ``--strict`` makes it fail, as it does for every skill
gitstore promotes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gitstore.promote.gates._common import files_only, Finding, not_regular, parser, report, run
from gitstore.promote.skills import FILE_NAME, skill_problems

PROG = "gitstore-skills"
SKILLS = ".agents/skills"


def check(files: Sequence[str]) -> tuple[list[Finding], list[Finding]]:
    """The rules each SKILL.md among ``files`` breaks, one finding per rule; apart from them,
    the ones harnesses tolerate (printed as warnings)."""
    findings: list[Finding] = []
    warnings: list[Finding] = []
    for name in files:
        path = Path(name)
        refused = not_regular(name, name) if path.name == FILE_NAME or _in_skills(name) else None
        if refused is not None:
            findings.append(refused)
            continue
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
        problems, advice = skill_problems(folder, text)
        findings += [Finding(name, line, problem) for line, problem in problems]
        warnings += [Finding(name, line, f"warning: {problem}") for line, problem in advice]
    return findings, warnings


def _in_skills(name: str) -> bool:
    """Whether ``name`` is under ``.agents/skills/``, spelled in any case (a checkout that
    ignores case puts ``.agents/Skills/x`` among the skills)."""
    return f"/{SKILLS}/" in f"/{Path(name).as_posix()}".casefold()


def main(argv: Sequence[str] | None = None) -> int:
    files, strict = files_only(argv), False
    if files is None:
        options = parser(PROG, __doc__.splitlines()[0])
        options.add_argument("--strict", action="store_true",
                             help="fail on what is otherwise a warning (a description over 1024 characters)")
        parsed = options.parse_args(argv)
        files, strict = parsed.files, parsed.strict

    def gate() -> int:
        failing, warnings = check(files)
        if strict:
            return report(failing + [w._replace(message=w.message.removeprefix("warning: ")) for w in warnings])
        for warning in warnings:
            print(warning)
        return report(failing)

    return run(PROG, gate)
