"""``gitstore-skills``: the Agent Skills specification's rules on ``SKILL.md`` files.

Each ``SKILL.md`` passed is checked as the skill of its folder: front matter with only the
specification's keys, a valid ``name`` equal to the folder's name, a ``description`` of 1 to
1024 characters, and well-formed optional fields (``gitstore.promote.skills``). A ``SKILL.md``
or a file under ``.agents/skills/`` (in any case) that is a symbolic link (or anything but a regular file) is
refused: a skill is the file itself. No link of a ``SKILL.md`` leads out of its repository
(``okf.links_leaving``: ``../../../home/me/.ssh/id_rsa``, ``/etc/passwd``, ``file:///...``): an
agent loading the skill follows it to what no gate reads.

Each file is judged as the change holds it (``_common.CommittedFiles``): at pre-push and in a
run over a range, the blob of the range's tip (``PRE_COMMIT_TO_REF``), so a skill committed
without the hooks and fixed only in the work tree or the index is judged as it is pushed; at a
commit, the index being committed; run by hand, the work tree. At pre-push and over a range
the files the range adds or changes that the work tree lacks (a ``git mv`` or ``git rm`` staged,
not committed), which pre-commit never passes, are judged too (``_common.files_of_change``).

A description over 1024 characters is printed as a warning and passes (harnesses load such
skills, and vendors publish them); ``--strict`` makes it fail, as it does for every skill
gitstore promotes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from gitstore.promote.gates._common import (
    CommittedFiles, files_of_change, files_only, Finding, not_regular, parser, relative, report, run, top_level,
)
PROG = "gitstore-skills"
FILE_NAME = "SKILL.md"  # gitstore.promote.skills.FILE_NAME; that module (YAML) loads when a skill is read
SKILLS = ".agents/skills"


def check(files: Sequence[str], root: Path | None = None) -> tuple[list[Finding], list[Finding]]:
    """The rules each SKILL.md among ``files`` breaks, one finding per rule; apart from them,
    the ones harnesses tolerate (printed as warnings). Each is read as the change holds it
    (``CommittedFiles``: at pre-push the range's tip, at a commit the index; by hand, or
    without ``root``, the work tree)."""
    findings: list[Finding] = []
    warnings: list[Finding] = []
    if not files:
        return findings, warnings  # the hook runs on every commit (``always_run``): most pass no skill
    from gitstore.promote.skills import skill_problems

    held = CommittedFiles(root, [relative(name, root) for name in files]) if root is not None else None
    repository: list[Path | None] = [root] if root is not None else []  # run by hand: the current folder's
    try:
        for name in files:
            path = Path(name)
            if not _a_skill(name) and not _in_skills(name):
                continue
            data = _read(name, held, root, findings)
            if data is None:
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                findings.append(Finding(name, 1, "not UTF-8 text"))
                continue
            folder = path.resolve().parent.name
            problems, advice = skill_problems(folder, text)
            findings += [Finding(name, line, problem) for line, problem in problems]
            if not repository:
                repository.append(_here())
            findings += _links_leaving(name, text, repository[0])
            warnings += [Finding(name, line, f"warning: {problem}") for line, problem in advice]
    finally:
        if held is not None:
            held.close()
    return findings, warnings


def _read(name: str, held: CommittedFiles | None, root: Path | None, findings: list[Finding]) -> bytes | None:
    """The bytes of the ``SKILL.md`` ``name`` as the change holds it, None when it is no skill to
    judge: not a regular file (a finding), not in the change, or under ``.agents/skills/`` but
    not named ``SKILL.md`` (a regular file there needs no reading)."""
    if held is None or held.held is None:
        refused = not_regular(name, name)
        if refused is not None:
            findings.append(refused)
            return None
        if not _a_skill(name):
            return None
        try:
            return Path(name).read_bytes()
        except OSError as exc:
            findings.append(Finding(name, 1, f"cannot read ({exc.strerror})"))
            return None
    assert root is not None
    entry = held.entry(relative(name, root))
    if entry is None:
        return None  # not committed, nor pushed
    if entry[0] not in ("100644", "100755"):
        what = "a symbolic link" if entry[0] == "120000" else "not a regular file"
        findings.append(Finding(name, 1, f"{what}: pages and skills must be regular files of the repository"))
        return None
    return held.read(entry[1]) if _a_skill(name) else None


def _links_leaving(name: str, text: str, root: Path | None) -> list[Finding]:
    """A finding for each link of the skill ``name`` leading out of the repository ``root``
    (none: no repository is around): an agent loading the skill follows it to
    what no gate reads (``okf.skill_links_leaving``). A skill outside that repository is not judged so."""
    if root is None:
        return []
    where, top = os.path.realpath(name), os.path.realpath(root)
    if not where.startswith(top + os.sep):
        return []
    from gitstore.promote.okf import page_of, skill_links_leaving

    return [Finding(name, line, problem) for line, problem in skill_links_leaving(page_of(where, text), top)]


def _here() -> Path | None:
    """The repository around the current folder, None outside one."""
    from gitstore.errors import GitstoreError

    try:
        return top_level()
    except GitstoreError:
        return None


def _a_skill(name: str) -> bool:
    """Whether ``name`` is a skill's file to judge: a ``SKILL.md`` anywhere, and in a folder
    harnesses load skills from (``_published.SKILL_ROOTS``, in any folder and case) one spelled
    in another case too (``skill.md``): a checkout that ignores case, on macOS or Windows, opens
    it as the ``SKILL.md`` a harness asks for."""
    base = Path(name).name
    if base == FILE_NAME or base.casefold() != FILE_NAME.casefold():
        return base == FILE_NAME
    from gitstore.promote.gates._published import SKILL_ROOTS  # loaded for a name spelled so only

    folded = f"/{Path(name).as_posix()}".casefold()
    return any(f"/{root}" in folded for root in SKILL_ROOTS)


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
        root = top_level() if CommittedFiles.in_a_hook() else None
        failing, warnings = check(files_of_change(files, root, PROG) if root is not None else files, root)
        if strict:
            return report(failing + [w._replace(message=w.message.removeprefix("warning: ")) for w in warnings])
        for warning in warnings:
            print(warning)
        return report(failing)

    from gitstore.promote.gates._pushed import with_others

    return run(PROG, with_others(PROG, gate, __name__))
