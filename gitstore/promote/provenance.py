"""``gitstore provenance BASE..HEAD``: where a change's promoted learnings come from.

For each commit of the range that carries ``Gitstore-*`` trailers: the learning it promotes
(its title from the store, screened as ``gitstore learnings`` shows titles), its contentDigest, reviewDigest and packet, and whether it
verifies, judged by the promotion gate itself (``gitstore.promote.gates.promotion``): the
packet is in the store and names the same learning and digests, the learning is accepted and
in force, the commit changes only its route's file and that file is exactly what promote
writes from the commit's parent. A commit without trailers that adds or changes a promoted
block (a merge: one none of its parents holds) is listed too, and does not verify. Nothing is
judged twice in two ways: a commit verifies here exactly when the gate passes it.

A CI run prints it into the pull request's job summary (``--markdown``); it reads the memory
refs the run fetched, with or without ``gitstore init``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitstore._github_text import code
from gitstore.errors import Refused, UsageError
from gitstore.promote.branch import TRAILERS, trailers
from gitstore.promote.gates._common import git
from gitstore.promote.gates.promotion import Memory, judge_range


@dataclass
class Promoted:
    """One promotion commit and its verdict."""

    commit: str
    subject: str
    values: dict[str, str]
    title: str | None
    problems: list[str] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "subject": self.subject, "learning": self.values.get("Gitstore-Learning"),
                "title": self.title, "contentDigest": self.values.get("Gitstore-Content-Digest"),
                "reviewDigest": self.values.get("Gitstore-Review-Digest"), "packet": self.values.get("Gitstore-Packet"),
                "verified": self.verified, "problems": self.problems}


@dataclass
class Provenance:
    """Every promotion commit of a range."""

    range: str
    commits: list[Promoted]

    @property
    def verified(self) -> bool:
        return all(c.verified for c in self.commits)

    def to_json(self) -> dict[str, Any]:
        return {"range": self.range, "verified": self.verified, "commits": [c.to_json() for c in self.commits]}

    def render(self) -> list[str]:
        if not self.commits:
            return [f"no promotion commits in {self.range}"]
        lines = []
        for c in self.commits:
            lines += [f"{c.commit[:12]} {c.subject}",
                      f"  learning {c.values.get('Gitstore-Learning', '-')}" + (f' "{c.title}"' if c.title else ""),
                      f"  content  {c.values.get('Gitstore-Content-Digest', '-')}",
                      f"  review   {c.values.get('Gitstore-Review-Digest', '-')}",
                      f"  packet   {c.values.get('Gitstore-Packet', '-')}",
                      "  verified" if c.verified else "  DOES NOT VERIFY:"]
            lines += [f"    {p}" for p in c.problems]
        good = sum(c.verified for c in self.commits)
        lines.append(f"{len(self.commits)} promotion commit(s) in {self.range}: {good} verified, "
                     f"{len(self.commits) - good} not")
        return lines

    def markdown(self) -> str:
        lines = ["### Promoted learnings", ""]
        if not self.commits:
            return "\n".join([*lines, f"No promotion commits in `{self.range}`.", ""])
        lines += ["| commit | learning | contentDigest | packet | verifies |", "|---|---|---|---|---|"]
        for c in self.commits:  # what a commit supplies is code, so a row has these five cells and its verdict
            title = f" {code(c.title, cell=True)}" if c.title else ""  # anyone's words: shown, never acted on
            lines.append(f"| `{c.commit[:12]}` | {code(c.values.get('Gitstore-Learning'), cell=True)}{title} | "
                         f"{code(_short(c.values.get('Gitstore-Content-Digest')), cell=True)} | "
                         f"{code(_short(c.values.get('Gitstore-Packet')), cell=True)} | "
                         f"{'yes' if c.verified else '**no**'} |")
        problems = [f"- `{c.commit[:12]}`: {code(p)}" for c in self.commits for p in c.problems]
        if problems:
            lines += ["", "**Does not verify:**", "", *problems]
        return "\n".join([*lines, ""])


def _short(digest: str | None) -> str:
    return (digest or "-")[:19]


def split_range(spec: str) -> tuple[str | None, str]:
    """``BASE..HEAD`` (or ``HEAD``: its commits on no remote) into its two ends."""
    if "..." in spec:
        raise UsageError(f"{spec!r}: give a range BASE..HEAD (two dots), not a symmetric difference")
    start, dots, end = spec.partition("..")
    if not dots:
        return None, spec or "HEAD"
    if not start:
        raise UsageError(f"{spec!r}: the range has no base")
    return start, end or "HEAD"


def provenance(root: Path, spec: str) -> Provenance:
    """The promotion commits of ``spec`` with their learnings, digests and verdicts."""
    from gitstore.queries.learnings import screened

    start, end = split_range(spec)
    if "HEAD" in (start, end) and _unborn(root):
        raise Refused("the repository has no commit yet: provenance reads the promotion commits made on top of one")
    cache: list[Memory] = []

    def memory() -> Memory:
        if not cache:
            cache.append(Memory.load(root))
        return cache[0]

    found = []
    for judged in judge_range(root, start, end, memory):
        values = {name: places[0][1] for name, places in trailers(judged.message).items() if name in TRAILERS}
        title = memory().names.get(values.get("Gitstore-Learning", ""))  # the title it is named by
        if title is not None:  # as `gitstore learnings` shows it: any clone could have written it
            title = screened("title", title)[0]
        subject = judged.message.strip().split("\n", 1)[0]
        found.append(Promoted(judged.sha, subject, values, title, [str(f) for f in judged.findings]))
    return Provenance(spec, found)


def _unborn(root: Path) -> bool:
    """Whether HEAD names a branch that has no commit yet (as in a repository just made)."""
    return (git("rev-parse", "--verify", "--quiet", "HEAD", cwd=root, check=False).returncode != 0
            and git("symbolic-ref", "--quiet", "HEAD", cwd=root, check=False).returncode == 0)
