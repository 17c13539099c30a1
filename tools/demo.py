"""The demo: gitstore end to end on a sample repository in a temporary folder.

Run with ``make demo``. Each step prints the command it runs and what it printed, so the demo
doubles as a tour of the CLI. It only ever touches its own temporary folder.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

from gitstore.records.contracts import contracts_dir

IDENTITY = {
    "GIT_AUTHOR_NAME": "Demo Reviewer",
    "GIT_AUTHOR_EMAIL": "reviewer@example.com",
    "GIT_COMMITTER_NAME": "Demo Reviewer",
    "GIT_COMMITTER_EMAIL": "reviewer@example.com",
}


WIKI = {
    "index.md": '---\nokf_version: "0.2"\n---\n\n# Pages\n\n* [Quickstart](quickstart.md) - Start here.\n'
                "* [Reliability](reliability.md) - Retries and backoff in the client.\n",
    "quickstart.md": "---\ntype: Guide\ntitle: Quickstart\ndescription: Start here.\n---\n\n# Quickstart\n\n"
                     "For retries and backoff read [reliability](reliability.md).\n",
    "reliability.md": "---\ntype: Guide\ntitle: Reliability\ndescription: Retries and backoff in the client.\n---\n\n"
                      "# Reliability\n\n## Retries\n\nFailed calls are retried (src/retry.py).\n\n"
                      "## Timeouts\n\nEvery call has a timeout.\n",
}


class Demo:
    """Runs commands in the sample repository and narrates them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.repo = root / "widgets"
        self.env = {**os.environ, **IDENTITY, "HOME": str(root / "home")}

    def say(self, text: str) -> None:
        print(f"\n== {text}")

    def run(self, args: Sequence[str], *, stdin: bytes | None = None, expect: int = 0,
            quiet: bool = False) -> str:
        shown = shlex.join(args)
        if not quiet:
            print(f"$ {shown}")
        done = subprocess.run(
            list(args), cwd=self.repo, env=self.env, input=stdin, capture_output=True
        )
        out = (done.stdout + done.stderr).decode("utf-8", "replace").rstrip()
        if out and not quiet:
            print("\n".join("  " + line for line in out.splitlines()[:40]))
        if done.returncode != expect:
            raise SystemExit(f"demo step failed (exit {done.returncode}, expected {expect}): {shown}")
        return done.stdout.decode("utf-8", "replace")

    def gitstore(self, *args: str, stdin: bytes | None = None, expect: int = 0, quiet: bool = False) -> str:
        return self.run(["gitstore", *args], stdin=stdin, expect=expect, quiet=quiet)


def _sample_repository(demo: Demo) -> None:
    (demo.root / "home").mkdir()
    demo.repo.mkdir()
    demo.run(["git", "init", "-q", "-b", "main"])
    demo.run(["git", "remote", "add", "origin", "https://github.com/acme/widgets.git"])
    (demo.repo / "src").mkdir()
    (demo.repo / "src" / "retry.py").write_text("def retry(call, attempts=3):\n    ...\n")
    for name, text in WIKI.items():
        (demo.repo / "okf" / "wiki").mkdir(parents=True, exist_ok=True)
        (demo.repo / "okf" / "wiki" / name).write_text(text)
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
    lines = [json.dumps(json.loads((examples / f"{k}.json").read_text())) for k in ("episode", "event")]
    (demo.repo / "okf" / ".memory" / "inbox" / "sample.jsonl").write_text("\n".join(lines) + "\n")
    demo.gitstore("records", "add", "okf/.memory/inbox/sample.jsonl")
    demo.gitstore("records", "list")
    demo.say("Plain git can walk it: one commit per atomic append, order in the message")
    writer = json.loads((demo.repo / "okf" / ".memory" / "config.json").read_text())["writer"]
    demo.run(["git", "log", "--format=%B", f"refs/memory/v1/records/shared/{writer}"])
    demo.run(["git", "status", "--short"])
    demo.gitstore("verify")
    demo.gitstore("status")


def _session(demo: Demo) -> Path:
    """A small Claude Code session, as its SessionEnd hook would point to."""
    start = datetime.now(timezone.utc) + timedelta(seconds=2)
    turns = [
        ("user", "The retry test is flaky; fix it. My key is AKIAIOSFODNN7EXAMPLQ, don't share it."),
        ("assistant", "Added full jitter to src/retry.py and ran the tests: all pass."),
    ]
    lines = [json.dumps({"type": role, "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n else None,
                         "sessionId": "demo-session-1", "timestamp": (start + timedelta(seconds=n)).isoformat(),
                         "cwd": str(demo.repo), "version": "1.0.98", "gitBranch": "main",
                         "message": {"role": role, "content": text}}) for n, (role, text) in enumerate(turns)]
    path = demo.root / "session.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _reviews(demo: Demo) -> Path:
    """A complete REST snapshot of one pull request's review comments, from two reviewers."""
    def comment(cid: int, user: int, body: str, day: int) -> dict[str, object]:
        return {"id": cid, "user": {"id": user, "login": "someone", "avatar_url": "https://example.com/a.png"},
                "body": body, "path": "src/retry.py", "line": 2, "created_at": f"2026-11-{day:02d}T10:00:00Z",
                "updated_at": f"2026-11-{day:02d}T10:00:00Z", "commit_id": "0" * 40, "in_reply_to_id": None}
    snapshot = {
        "format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": 12,
        "head": {"ref": "fix-retry", "sha": "0" * 40},
        "responses": [
            {"collection": "pull-comments", "page": 1, "link": "", "body": [
                comment(501, 1001, "Retries need jitter, or every client retries at once.", 20),
                comment(502, 1002, "Please add jitter to this backoff too.", 21)]},
            {"collection": "reviews", "page": 1, "link": "", "body": []},
            {"collection": "issue-comments", "page": 1, "link": "", "body": []},
        ],
    }
    path = demo.root / "reviews.json"
    path.write_text(json.dumps(snapshot, indent=2))
    return path


def _capture(demo: Demo) -> None:
    demo.say("Capture: a Claude Code session ends; its hook records an envelope, a receipt, an episode")
    payload = json.dumps({"session_id": "demo-session-1", "transcript_path": str(_session(demo)),
                          "hook_event_name": "SessionEnd", "cwd": str(demo.repo)})
    demo.gitstore("capture", "--harness", "claude-code", stdin=payload.encode())
    demo.say("The secret in that session never reached the store")
    objects = demo.run(["git", "cat-file", "--batch-all-objects", "--batch-check"])
    leaked = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=demo.repo,
                            capture_output=True).stdout.count(b"AKIAIOSFODNN7EXAMPLQ")
    print(f"  {len(objects.splitlines())} objects, occurrences of the key: {leaked}")
    demo.say("Review comments from a pull request: one episode per thread")
    demo.gitstore("import", "reviews", str(_reviews(demo)), "--by", "github:9")


PROMPT = "The retry loop in src/retry.py hammers the API after an outage; make it back off."


def _agent_prompt(demo: Demo, session: str) -> None:
    """Run the context hook Claude Code runs on UserPromptSubmit, as Claude Code runs it."""
    settings = json.loads((demo.repo / ".claude" / "settings.local.json").read_text())
    command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    payload = {"session_id": session, "transcript_path": str(demo.root / f"{session}.jsonl"), "cwd": str(demo.repo),
               "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": PROMPT}
    print(f"$ echo '<UserPromptSubmit: {PROMPT}>' | {command}")
    done = subprocess.run(command, shell=True, cwd=demo.repo, env=demo.env, input=json.dumps(payload).encode(),
                          capture_output=True)
    if not done.stdout.strip():
        print("  (nothing: the agent gets no learning)")
        return
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    print("  the agent's context gains:")
    print("\n".join("    " + line for line in context.splitlines()))


def _review_loop(demo: Demo) -> None:
    demo.say("Consent: the team lets review comments teach agents")
    grant = demo.gitstore("grant", "--purpose", "review", "--purpose", "instruction", "--source", "review-thread",
                          "--from", "2026-01-01T00:00:00.000000Z", "--by", "github:9").split()[-1]
    refs = []
    for item in json.loads(demo.gitstore("records", "list", "--kind", "event", "--json", quiet=True)):
        record = json.loads(demo.gitstore("records", "show", item["digest"], "--json", quiet=True))
        if record.get("payload", {}).get("sourceId", "").startswith("github:comment:50"):
            refs += ["--evidence", f"{record['episode']}:{record['id']}"]
    demo.say("A proposal citing both threads (two reviewers, one pull request)")
    proposal = json.loads(demo.gitstore(
        "propose", "--title", "Retries use jittered backoff", "--text",
        "Every retry loop uses exponential backoff with full jitter (see src/retry.py).",
        "--category", "convention", "--target", "src/retry.py", *refs, "--by", "github:9", "--json"))
    demo.gitstore("show", proposal["id"])
    demo.say("An agent's context before the learning is accepted (the hook Claude Code runs on each prompt)")
    demo.gitstore("hooks", "install", "--harness", "claude-code")
    _agent_prompt(demo, "agent-before")
    demo.say("A person accepts exactly what they reviewed")
    demo.gitstore("accept", proposal["id"], "--review-digest", proposal["reviewDigest"], "--by", "github:9")
    demo.gitstore("learnings", "--active")
    demo.say("The same prompt after: the agent is told, with provenance, and only once per session")
    _agent_prompt(demo, "agent-after")
    _agent_prompt(demo, "agent-after")
    demo.gitstore("deliveries")
    demo.say("Recall, the preview of what an agent would receive, and AGENTS.md's managed section")
    demo.gitstore("recall", "how should retries back off?")
    demo.gitstore("context", "--prompt", "how should retries back off?")
    demo.gitstore("publish")
    print((demo.repo / "AGENTS.md").read_text().rstrip())
    demo.gitstore("publish")
    demo.gitstore("publish", "--rollback")
    _promote(demo, proposal["id"])
    demo.say("Withdrawing consent takes effect at once")
    demo.gitstore("withdraw", grant, "--purpose", "instruction", "--reason", "demo", "--by", "github:9")
    demo.gitstore("learnings", "--active")
    _agent_prompt(demo, "agent-withdrawn")
    demo.say("A reviewer asks for their comment to be removed: the text goes, every digest stays valid")
    demo.gitstore("redact", "--comment", "github:comment:501", "--reason", "asked by the author", "--by", "github:9")
    demo.gitstore("gc")
    demo.gitstore("verify")
    demo.gitstore("audit")


def _promote(demo: Demo, learning_id: str) -> None:
    demo.say("Promotion: the accepted learning becomes one reviewable commit on its own branch")
    demo.gitstore("promote", learning_id, "--by", "github:9")
    branch = f"memory/promote/{learning_id}"
    demo.run(["git", "log", "--stat", "--format=%B", "-1", branch])
    demo.run(["git", "diff", "main", branch])
    demo.say("The gates pass it: the promotion gate over the branch, the wiki gate on its page")
    demo.run(["gitstore-promotion", "--from-ref", "main", "--to-ref", branch])
    demo.run(["git", "checkout", "-q", branch])
    demo.run(["gitstore-okf", "okf/wiki/reliability.md"])
    demo.say("An edit of the promoted text no longer matches what a person accepted")
    page = demo.repo / "okf" / "wiki" / "reliability.md"
    page.write_text(page.read_text().replace("full jitter", "no jitter"))
    demo.run(["git", "commit", "-q", "-a", "-m", "Reword the claim"])
    demo.run(["gitstore-promotion", "--from-ref", "main", "--to-ref", "HEAD"], expect=1)
    demo.run(["git", "checkout", "-q", "main"])


STEPS = [_contracts, _store, _capture, _review_loop]


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
