"""The demo: gitstore end to end on a sample repository in a temporary folder.

Run with ``make demo``. Each step prints the command it runs and what it printed, so the demo
doubles as a tour of the CLI. It only ever touches its own temporary folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from .contracts import contracts_dir

IDENTITY = {
    "GIT_AUTHOR_NAME": "Demo Reviewer",
    "GIT_AUTHOR_EMAIL": "reviewer@example.com",
    "GIT_COMMITTER_NAME": "Demo Reviewer",
    "GIT_COMMITTER_EMAIL": "reviewer@example.com",
}


class Demo:
    """Runs commands in the sample repository and narrates them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.repo = root / "widgets"
        self.env = {**os.environ, **IDENTITY, "HOME": str(root / "home")}

    def say(self, text: str) -> None:
        print(f"\n== {text}")

    def run(self, args: Sequence[str], *, stdin: bytes | None = None, expect: int = 0) -> str:
        shown = " ".join(args)
        print(f"$ {shown}")
        done = subprocess.run(
            list(args), cwd=self.repo, env=self.env, input=stdin, capture_output=True
        )
        out = (done.stdout + done.stderr).decode("utf-8", "replace").rstrip()
        if out:
            print("\n".join("  " + line for line in out.splitlines()[:40]))
        if done.returncode != expect:
            raise SystemExit(f"demo step failed (exit {done.returncode}, expected {expect}): {shown}")
        return done.stdout.decode("utf-8", "replace")

    def gitstore(self, *args: str, stdin: bytes | None = None, expect: int = 0) -> str:
        return self.run(["gitstore", *args], stdin=stdin, expect=expect)


def _sample_repository(demo: Demo) -> None:
    (demo.root / "home").mkdir()
    demo.repo.mkdir()
    demo.run(["git", "init", "-q", "-b", "main"])
    demo.run(["git", "remote", "add", "origin", "https://github.com/acme/widgets.git"])
    (demo.repo / "src").mkdir()
    (demo.repo / "src" / "retry.py").write_text("def retry(call, attempts=3):\n    ...\n")
    demo.run(["git", "add", "."])
    demo.run(["git", "commit", "-q", "-m", "A sample project"])


def _contracts(demo: Demo) -> None:
    demo.say("Contracts: every record is canonical JSON (RFC 8785) with a sha256 digest")
    demo.gitstore("canonical", "-", stdin=b'{"b": 2, "a": "\\u00e9", "c": [true, null]}')
    print()
    examples = contracts_dir() / "examples"
    shutil.copy(examples / "valid" / "grant.json", demo.repo / "grant.json")
    demo.gitstore("digest", "grant.json")
    demo.gitstore("validate", "grant.json")
    tampered = json.loads((demo.repo / "grant.json").read_text())
    tampered["purposes"].append("training")
    (demo.repo / "tampered.json").write_text(json.dumps(tampered, indent=2))
    demo.say("A record changed after sealing is refused (exit 1), naming the problem")
    demo.gitstore("validate", "tampered.json", expect=1)
    demo.gitstore("digest", "-", stdin=b'{"schema": "gitstore.grant/v1", "by": 1, "by": 2}', expect=1)


def _store(demo: Demo) -> None:
    demo.say("The store: records in dedicated git refs, never in the work tree")
    demo.gitstore("init")
    examples = contracts_dir() / "examples" / "valid"
    lines = [json.dumps(json.loads((examples / f"{k}.json").read_text())) for k in ("grant", "episode", "event")]
    (demo.repo / "okf" / ".memory" / "inbox" / "sample.jsonl").write_text("\n".join(lines) + "\n")
    demo.gitstore("records", "add", "okf/.memory/inbox/sample.jsonl")
    demo.gitstore("records", "list")
    demo.say("Plain git can walk it: one commit per atomic append, order in the message")
    writer = json.loads((demo.repo / "okf" / ".memory" / "config.json").read_text())["writer"]
    demo.run(["git", "log", "--format=%B", f"refs/memory/v1/records/shared/{writer}"])
    demo.run(["git", "status", "--short"])
    demo.gitstore("verify")
    demo.gitstore("status")


STEPS = [_contracts, _store]


def main() -> int:
    if shutil.which("gitstore") is None:
        os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    with tempfile.TemporaryDirectory(prefix="gitstore-demo-") as folder:
        demo = Demo(Path(folder))
        demo.say(f"A sample repository in {demo.repo}")
        _sample_repository(demo)
        for step in STEPS:
            step(demo)
    print("\nDemo finished: everything above ran for real in a temporary folder, now removed.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
