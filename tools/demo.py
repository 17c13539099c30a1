"""The demo: gitstore end to end on a sample repository in a temporary folder.

Run with ``make demo`` (``make demo KEEP=1`` keeps the folder so you can go on by hand). The
story is told in stages, one function each, in ``STAGES``: contracts, the store, capture of an
agent session, import of review comments, browsing the evidence, consent, review, what an agent
receives before and after a person accepts, recall and AGENTS.md, promotion into the wiki,
sharing through a remote, forgetting, housekeeping and the loop. A new stage of the product adds
its function to ``STAGES`` where it belongs in the story.

Each step prints the command it runs, quoted so it can be pasted into a shell in the sample
repository, and everything the command printed (a long output says how many lines it left out).
It only ever touches its own folder.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from gitstore.records.contracts import contracts_dir

IDENTITY = {
    "GIT_AUTHOR_NAME": "Demo Reviewer",
    "GIT_AUTHOR_EMAIL": "reviewer@example.com",
    "GIT_COMMITTER_NAME": "Demo Reviewer",
    "GIT_COMMITTER_EMAIL": "reviewer@example.com",
}
SHOWN_LINES = 40
REVIEWER = "github:9"
PROMPT = "The retry loop in src/retry.py hammers the API after an outage; make it back off."
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
    """Runs commands in the sample repository, narrates them, and carries what stages found."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.repo = root / "widgets"
        self.env = {**os.environ, **IDENTITY, "HOME": str(root / "home")}
        self.found: dict[str, Any] = {}  # what one stage leaves for the next (ids, digests)

    def say(self, title: str, story: str = "") -> None:
        print(f"\n== {title}")
        if story:
            print(f"   {story}")

    def run(self, args: Sequence[str], *, stdin: bytes | None = None, expect: int = 0,
            quiet: bool = False, cwd: Path | None = None) -> str:
        shown = shlex.join(args)
        if not quiet:  # a command with input is printed as a here-document, so it pastes as it is
            text = stdin.decode("utf-8", "replace").rstrip("\n") if stdin is not None else None
            print(f"$ {shown}" + (f" <<'EOF'\n{text}\nEOF" if text is not None else ""))
        done = subprocess.run(list(args), cwd=cwd or self.repo, env=self.env, input=stdin, capture_output=True)
        out = (done.stdout + done.stderr).decode("utf-8", "replace").rstrip()
        if out and not quiet:
            lines = out.splitlines()
            print("\n".join("  " + line for line in lines[:SHOWN_LINES]))
            if len(lines) > SHOWN_LINES:
                print(f"  [{len(lines) - SHOWN_LINES} more lines; run the command to see them all]")
        if done.returncode != expect:
            raise SystemExit(f"demo step failed (exit {done.returncode}, expected {expect}): {shown}")
        return done.stdout.decode("utf-8", "replace")

    def gitstore(self, *args: str, stdin: bytes | None = None, expect: int = 0, quiet: bool = False,
                 cwd: Path | None = None) -> str:
        return self.run(["gitstore", *args], stdin=stdin, expect=expect, quiet=quiet, cwd=cwd)


# -- the sample repository and its material -------------------------------------------------------

def sample_repository(demo: Demo) -> None:
    (demo.root / "home").mkdir()
    demo.repo.mkdir()
    demo.run(["git", "init", "-q", "-b", "main"])
    demo.run(["git", "remote", "add", "origin", "https://github.com/acme/widgets.git"])
    (demo.repo / "src").mkdir()
    (demo.repo / "src" / "retry.py").write_text("def retry(call, attempts=3):\n    ...\n")
    (demo.repo / "okf" / "wiki").mkdir(parents=True)
    for name, text in WIKI.items():
        (demo.repo / "okf" / "wiki" / name).write_text(text)
    demo.run(["git", "add", "."])
    demo.run(["git", "commit", "-q", "-m", "A sample project"])


def session_file(demo: Demo) -> Path:
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


def review_snapshot(demo: Demo, pr: int = 12, comments: Sequence[tuple[int, int, str, int]] = (
        (501, 1001, "Retries need jitter, or every client retries at once.", 20),
        (502, 1002, "Please add jitter to this backoff too.", 21)), path: str = "src/retry.py") -> Path:
    """A complete REST snapshot of one pull request's review comments (two reviewers by default)."""
    head = f"{pr:040x}"  # each pull request's own head commit: pull requests sharing one are one change

    def comment(cid: int, user: int, body: str, day: int) -> dict[str, object]:
        return {"id": cid, "user": {"id": user, "login": "someone", "avatar_url": "https://example.com/a.png"},
                "body": body, "path": path, "line": 2, "created_at": f"2026-11-{day:02d}T10:00:00Z",
                "updated_at": f"2026-11-{day:02d}T10:00:00Z", "commit_id": head, "in_reply_to_id": None}
    snapshot = {
        "format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": pr,
        "head": {"ref": f"fix-{pr}", "sha": head},
        "responses": [
            {"collection": "pull-comments", "page": 1, "link": "", "body": [comment(*c) for c in comments]},
            {"collection": "reviews", "page": 1, "link": "", "body": []},
            {"collection": "issue-comments", "page": 1, "link": "", "body": []},
        ],
    }
    file = demo.root / ("reviews.json" if pr == 12 else f"reviews-{pr}.json")
    file.write_text(json.dumps(snapshot, indent=2))
    return file


# -- the stages ----------------------------------------------------------------------------------

def contracts(demo: Demo) -> None:
    demo.say("Contracts", "every record is canonical JSON (RFC 8785) with a sha256 digest")
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
    (demo.repo / "grant.json").unlink()
    (demo.repo / "tampered.json").unlink()


def store(demo: Demo) -> None:
    demo.say("The store", "records live in dedicated git refs of the repository, never in the work tree")
    demo.gitstore("init")
    demo.gitstore("doctor")


def capture(demo: Demo) -> None:
    demo.say("Capture", "a Claude Code session ends; its hook records an envelope, a receipt and an episode")
    payload = json.dumps({"session_id": "demo-session-1", "transcript_path": str(session_file(demo)),
                          "hook_event_name": "SessionEnd", "cwd": str(demo.repo)})
    demo.gitstore("capture", "--harness", "claude-code", stdin=payload.encode())
    demo.say("The secret in that session never reached the store")
    objects = demo.run(["git", "cat-file", "--batch-all-objects", "--batch-check"], quiet=True)
    leaked = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=demo.repo,
                            capture_output=True).stdout.count(b"AKIAIOSFODNN7EXAMPLQ")
    print(f"  {len(objects.splitlines())} objects in the repository, occurrences of the key: {leaked}")
    demo.say("A file that is no transcript is refused, and nothing is stored")
    (demo.root / "notes.txt").write_text("just some notes\n")
    demo.gitstore("import", "transcript", str(demo.root / "notes.txt"), expect=1)


def import_reviews(demo: Demo) -> None:
    demo.say("Import", "review comments from a pull request: one episode per thread, people as ids")
    demo.gitstore("import", "reviews", str(review_snapshot(demo)), "--by", REVIEWER)


def browse(demo: Demo) -> None:
    demo.say("Evidence", "what is stored, with its text and the ids a proposal cites")
    demo.gitstore("episodes")
    hits = json.loads(demo.gitstore("episodes", "--grep", "jitter", "--json", quiet=True))
    demo.found["evidence"] = [match["evidence"] for episode in hits for match in episode["matches"]
                              if episode["source"]["kind"] == "review-thread"]
    demo.gitstore("episodes", "--grep", "jitter")
    demo.gitstore("evidence", hits[0]["id"])


def consent(demo: Demo) -> None:
    demo.say("Consent", "the team lets review comments teach agents; nothing serves a purpose without it")
    grant = demo.gitstore("grant", "--purpose", "review", "--purpose", "instruction", "--source", "review-thread",
                          "--from", "2026-01-01", "--by", REVIEWER).split()[-1]
    demo.found["grant"] = grant
    demo.gitstore("grants")


def review(demo: Demo) -> None:
    demo.say("Review", "a proposal citing both threads (two reviewers, one pull request); a person decides")
    refs = [arg for ref in demo.found["evidence"] for arg in ("--evidence", ref)]
    printed = demo.gitstore(
        "propose", "--title", "Retries use jittered backoff", "--text",
        "Every retry loop uses exponential backoff with full jitter (see src/retry.py).",
        "--category", "convention", "--target", "src/retry.py", *refs, "--by", REVIEWER).split()
    learning, review_digest = printed[1], printed[printed.index("reviewDigest") + 1]
    demo.found["learning"] = learning
    demo.gitstore("show", learning)
    demo.say("An agent's context before the learning is accepted", "the hook Claude Code runs on each prompt")
    demo.gitstore("hooks", "install", "--harness", "claude-code")
    agent_prompt(demo, "agent-before")
    demo.say("A person accepts exactly what they reviewed (the reviewDigest show printed)")
    demo.gitstore("accept", learning, "--review-digest", review_digest, "--by", REVIEWER)


def dream(demo: Demo) -> None:
    demo.say("Dreaming", "two more pull requests, two more reviewers, one rule in their own words: "
             "gitstore proposes it by itself")
    for pr, cid, user, text, day in (
            (13, 601, 1003, "Log the request id with every error so failures can be traced across services.", 22),
            (14, 701, 1004, "Every error log line should carry the request id.", 24)):
        demo.gitstore("import", "reviews", str(review_snapshot(demo, pr, [(cid, user, text, day)], "src/api.py")),
                      "--by", REVIEWER)
    demo.gitstore("dream", "--by", REVIEWER)
    proposal = json.loads(demo.gitstore("proposals", "--json", quiet=True))[0]
    demo.gitstore("show", proposal["id"])
    demo.say("A person accepts what the dream proposed; dreaming again proposes nothing new, and --explain "
             "says why a theme was or was not proposed")
    demo.gitstore("accept", proposal["id"], "--review-digest", proposal["reviewDigest"], "--by", REVIEWER)
    demo.gitstore("dream", "--by", REVIEWER)
    demo.gitstore("dream", "--explain", "jitter", "--by", REVIEWER)


def in_force(demo: Demo) -> None:
    demo.say("What agents receive", "the learnings in force for instruction; the same prompt now tells the agent, "
             "with provenance, and only once per session")
    demo.gitstore("learnings", "--active")
    agent_prompt(demo, "agent-after")
    agent_prompt(demo, "agent-after")
    demo.gitstore("deliveries")


def recall(demo: Demo) -> None:
    demo.say("Recall", "the preview of what an agent would receive, and AGENTS.md's managed section")
    demo.gitstore("recall", "how should retries back off?")
    demo.gitstore("context", "--prompt", "how should retries back off?")
    demo.gitstore("publish")
    print((demo.repo / "AGENTS.md").read_text().rstrip())
    demo.gitstore("publish")
    demo.gitstore("publish", "--rollback")


def promote(demo: Demo) -> None:
    learning = demo.found["learning"]
    demo.say("Promotion", "the accepted learning becomes one reviewable commit on its own branch")
    demo.gitstore("promote", learning, "--by", REVIEWER)
    branch = f"memory/promote/{learning}"
    demo.run(["git", "log", "--stat", "--format=%B", "-1", branch])
    demo.run(["git", "diff", "main", branch])
    demo.say("The gates pass it: the promotion gate over the branch, the wiki gate on its page")
    demo.run(["gitstore-promotion", "--from-ref", "main", "--to-ref", branch])
    demo.run(["git", "checkout", "-q", branch])
    demo.run(["gitstore-okf", "okf/wiki/reliability.md"])
    demo.say("Provenance", "as a pull request's job summary shows it: the learning, its digests, the gate's verdict")
    demo.gitstore("provenance", f"main..{branch}")
    demo.say("An edit of the promoted text no longer matches what a person accepted")
    page = demo.repo / "okf" / "wiki" / "reliability.md"
    page.write_text(page.read_text().replace("full jitter", "no jitter"))
    demo.run(["git", "commit", "-q", "-a", "-m", "Reword the claim"])
    demo.run(["gitstore-promotion", "--from-ref", "main", "--to-ref", "HEAD"], expect=1)
    demo.gitstore("provenance", "main..HEAD", expect=1)
    demo.run(["git", "checkout", "-q", "main"])


def sync(demo: Demo) -> None:
    demo.say("Sharing memory through the team's own remote", "a bare repository stands in for it; "
             "sync pushes this writer's shared refs (personal sessions never leave the machine)")
    remote = demo.root / "team.git"
    demo.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)])
    demo.run(["git", "remote", "add", "origin", "https://github.com/acme/widgets.git"], cwd=remote)  # its scope
    demo.run(["git", "remote", "add", "team", str(remote)])
    demo.run(["git", "push", "-q", "team", "main"])
    demo.gitstore("sync", "team")
    demo.run(["git", "for-each-ref", "--format=%(refname)", "refs/memory/"], cwd=remote)
    demo.say("A teammate's clone", "sync fetches every writer's memory, verifies it before use, and says "
             "which learnings changed; without a policy the acceptance counts on its own clone only, so the "
             "teammate sees the learning as a proposal to review")
    teammate = demo.root / "teammate"
    demo.run(["git", "clone", "-q", str(remote), str(teammate)])
    demo.gitstore("init", cwd=teammate)
    demo.gitstore("sync", cwd=teammate)
    demo.gitstore("learnings", cwd=teammate)
    demo.gitstore("sync", cwd=teammate)


def loop(demo: Demo) -> None:
    from gitstore.sync.steps import STEPS as LOOP_STEPS

    demo.say("The loop without a daemon", "the team configures its steps; cron, a hook or CI runs `gitstore tick`")
    inbox = demo.repo / "okf" / ".memory" / "inbox" / "reviews"
    inbox.mkdir(parents=True, exist_ok=True)
    shutil.copy(demo.root / "reviews.json", inbox / "pr-12.json")
    config = demo.repo / "okf" / ".memory" / "config.json"
    steps = {"reviews": {"folder": "okf/.memory/inbox/reviews"}, "dream": {}, "publish": {"every": "1d"},
             "sync": {"remote": "team"}}
    config.write_text(json.dumps({**json.loads(config.read_text()), "loop": {"by": REVIEWER, "steps": steps}},
                                 indent=2))
    demo.gitstore("init", "--accept-changes")  # the team's own edit: a tick runs no loop init has not taken
    absent = any(not LOOP_STEPS[name].available() for name in steps)  # said as unavailable: exit 1
    demo.gitstore("tick", expect=1 if absent else 0)
    demo.say("A second tick a moment later", "nothing is due")
    demo.gitstore("tick", expect=1 if absent else 0)
    demo.gitstore("status")
    demo.say("On GitHub", "the scheduled memory workflow and the pull-request gates")
    # what the workflows install, said outright: the PyPI name gitstore is another project's
    demo.gitstore("ci", "init", "--install", "git+https://github.com/acme/gitstore@v0.1.0")


def agent_prompt(demo: Demo, session: str) -> None:
    """Run the context hook Claude Code runs on UserPromptSubmit, as Claude Code runs it."""
    settings = json.loads((demo.repo / ".claude" / "settings.local.json").read_text())
    command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    payload = json.dumps({"session_id": session, "transcript_path": str(demo.root / f"{session}.jsonl"),
                          "cwd": str(demo.repo), "permission_mode": "default",
                          "hook_event_name": "UserPromptSubmit", "prompt": PROMPT})
    print(f"$ {command} <<'EOF'\n{payload}\nEOF")
    done = subprocess.run(command, shell=True, cwd=demo.repo, env=demo.env, input=payload.encode(),
                          capture_output=True)
    if not done.stdout.strip():
        print("  (nothing: the agent gets no learning)")
        return
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    print("  the agent's context gains:")
    print("\n".join("    " + line for line in context.splitlines()))


def forget(demo: Demo) -> None:
    demo.say("Withdrawing consent takes effect at once", "and show says why the learning is no longer in force")
    demo.gitstore("withdraw", demo.found["grant"], "--purpose", "instruction", "--reason", "demo", "--by", REVIEWER)
    demo.gitstore("learnings", "--active")
    agent_prompt(demo, "agent-withdrawn")
    demo.gitstore("show", demo.found["learning"])
    demo.say("A reviewer asks for their comment to be removed", "the text goes; every digest stays valid")
    demo.gitstore("redact", "--comment", "github:comment:501", "--reason", "asked by the author", "--by", REVIEWER)
    demo.gitstore("gc")


def housekeeping(demo: Demo) -> None:
    demo.say("Housekeeping", "verify every record and ref; the audit trail of everything people decided")
    demo.gitstore("verify")
    demo.gitstore("audit")
    demo.gitstore("status")
    demo.say("Plain git can walk it", "one commit per atomic append, its order in the message; no record is in the "
             "work tree (the one new folder is the harness settings `hooks install` wrote)")
    demo.run(["git", "for-each-ref", "--format=%(refname)", "refs/memory/"])
    writer = json.loads((demo.repo / "okf" / ".memory" / "config.json").read_text())["writer"]
    demo.run(["git", "log", "-1", "--format=%B", f"refs/memory/v1/records/shared/{writer}"])
    demo.run(["git", "status", "--short"])


STAGES: list[tuple[str, Callable[[Demo], None]]] = [
    ("contracts", contracts),
    ("store", store),
    ("capture", capture),
    ("import", import_reviews),
    ("evidence", browse),
    ("consent", consent),
    ("review", review),
    ("dream", dream),
    ("in force", in_force),
    ("recall", recall),
    ("promote", promote),
    ("sync", sync),
    ("forget", forget),
    ("housekeeping", housekeeping),
    ("loop", loop),
]


def main() -> int:
    if shutil.which("gitstore") is None:
        os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    keep = os.environ.get("KEEP", "") not in ("", "0")
    folder = Path(tempfile.mkdtemp(prefix="gitstore-demo-"))
    try:
        demo = Demo(folder)
        demo.say(f"A sample repository in {demo.repo}",
                 f"to go on by hand: cd {shlex.quote(str(demo.repo))} && export HOME={shlex.quote(str(folder / 'home'))}")
        sample_repository(demo)
        for _, stage in STAGES:
            stage(demo)
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
    if keep:
        print(f"\nDemo finished; everything above ran for real in {folder}, kept (KEEP=1).")
        print(f"  cd {shlex.quote(str(demo.repo))} && export HOME={shlex.quote(str(folder / 'home'))}")
    else:
        print("\nDemo finished: everything above ran for real in a temporary folder, now removed "
              "(`make demo KEEP=1` keeps it).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
