"""A repository with a small OKF wiki, source files and accepted learnings, for the promotion
and gate tests: written through the library and real git, like a team would."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from gitstore.ops import learning as ops
from gitstore.context import Context

from .world import REVIEWER, Thread, _ready, grant_all, ready_repo, ref

PERSON = "github:9"
WIKI_FILES = {
    "src/retry.py": "def retry(call, attempts=3):\n    delay = backoff(attempts)\n    return call()\n",
    "src/store.py": "class Store:\n    def append(self, records):\n        return records\n",
    "okf/wiki/index.md": (
        '---\nokf_version: "0.2"\n---\n\n# Pages\n\n'
        "* [Quickstart](quickstart.md) - Start here.\n"
        "* [Reliability](reliability.md) - Retries, timeouts and backoff in the client.\n"
        "* [Storage](storage.md) - Where records are kept and how they are written.\n"
    ),
    "okf/wiki/quickstart.md": (
        "---\ntype: Guide\ntitle: Quickstart\ndescription: Start here.\n---\n\n# Quickstart\n\n"
        "For retries, timeouts and backoff read [reliability](reliability.md).\n\n"
        "For records, appends and the database read [storage](storage.md).\n"
    ),
    "okf/wiki/reliability.md": (
        "---\ntype: Guide\ntitle: Reliability\ndescription: Retries, timeouts and backoff in the client.\n---\n\n"
        "# Reliability\n\n## Retries\n\nThe client retries failed calls (src/retry.py).\n\n"
        "## Timeouts\n\nEvery call has a timeout.\n"
    ),
    "okf/wiki/storage.md": (
        "---\ntype: Guide\ntitle: Storage\ndescription: Where records are kept and how they are written.\n---\n\n"
        "# Storage\n\n## Appends\n\nRecords are appended in batches (src/store.py).\n"
    ),
    "okf/wiki/INSTRUCTIONS.md": "---\ntype: Instructions\n---\n\nKeep every page short. Cite sources.\n",
}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def commit_files(root: Path, files: dict[str, str], message: str = "wiki and sources") -> str:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git(root, "add", "--", *files)
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def wiki_repo(path: Path, files: dict[str, str] | None = None) -> Context:
    """A repository set up for gitstore with the wiki and sources committed and a grant (the
    one with ``WIKI_FILES`` alone a copy of one built once: ``templates``)."""
    from .templates import copy

    if files is None and not path.exists():
        copy(("wiki",), path, _wiki)
        return Context.open(str(path))
    ctx = ready_repo(path)
    commit_files(path, dict(WIKI_FILES, **(files or {})))
    grant_all(ctx)
    return ctx


def _wiki(path: Path) -> None:
    """What ``wiki_repo`` copies: built from scratch (a repository of its own, its own writer)."""
    _ready(path, "https://github.com/acme/widgets.git", "git")
    ctx = Context.open(str(path))
    commit_files(path, WIKI_FILES)
    grant_all(ctx)


class Evidence:
    """Review comments in threads of distinct pull requests, to cite as evidence."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.count = 0

    def comments(self, texts: list[str], prs: list[int] | None = None) -> list[dict[str, Any]]:
        refs = []
        for index, text in enumerate(texts):
            self.count += 1
            pr = (prs or list(range(1, len(texts) + 1)))[index]
            thread = Thread(self.ctx, pr, f"{self.count:04d}")
            day = 1 + self.count % 27
            comment = thread.comment(f"{self.count:04d}", text, f"2026-03-{day:02d}T10:00:00.000000Z",
                                     author=f"github:{1000 + self.count}" if index else REVIEWER)
            thread.save()
            refs.append(ref(comment))
        return refs


def accepted_learning(ctx: Context, *, title: str = "Retries use jitter",
                      text: str = "Every retry loop in src/retry.py uses exponential backoff with full jitter.",
                      targets: tuple[str, ...] = ("src/retry.py",), memory: str = "semantic",
                      audience: str = "project", category: str = "convention",
                      evidence: list[dict[str, Any]] | None = None, replaces: tuple[str, ...] = (),
                      accept: bool = True) -> dict[str, Any]:
    """Propose a learning citing two review threads (or ``evidence``) and accept it."""
    refs = evidence if evidence is not None else Evidence(ctx).comments(
        ["Retries need full jitter.", "Add jitter to this backoff too."])
    draft = ops.Draft(title=title, text=text, category=category, evidence=refs, counterevidence=[],
                      memory=memory, audience=audience, targets=targets, replaces=replaces,
                      audience_rationale="Evidence is this repository's reviews.", proposer=("person", PERSON))
    record = ops.propose(ctx, draft, PERSON)
    return ops.accept(ctx, record["id"], record["reviewDigest"], PERSON) if accept else record
