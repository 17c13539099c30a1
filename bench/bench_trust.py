"""trust: what verifying fetched memory and checking signatures cost a read, in the same run.

Admission. A peer writes ``--commits`` appends (default 2,000) on its writer ref; a clone
fetches them with plain git. Timed, from fresh handles: the first read (every fetched commit
verified before use), a read with nothing new (nothing verified), and a read after the peer
wrote ``--new`` more appends (default 100) and the clone fetched them (only those verified).
Goal: the work a read does after a fetch grows with what the fetch brought: (read after the
fetch - read with nothing new) <= 2 x (new / all) x (first read - read with nothing new).

Signatures. A team with a policy: one reviewer signs ``--decisions`` acceptances (default 40)
and the grant; a fresh clone reads its learnings. Timed: the first read (one ``ssh-keygen -Y
verify`` per signed append), the next reads (results remembered under .git/gitstore/verified/),
and the same read of the same records as the clone's own, without a policy (the same rules,
no signature to check). Goal: a read with every signature remembered costs at most 1.5x the
read without a policy. Nothing is asserted; exit code 0. ``--quick``: small sizes.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from gitstore.conformance import _records as R
from gitstore.conformance import batch
from gitstore.providers.git import GitProvider
from gitstore.store import Store

NAME = "trust"
GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost", "GIT_CONFIG_NOSYSTEM": "1"}
FETCH = "refs/memory/v1/records/shared/*:refs/memory/v1/remotes/origin/records/shared/*"


def git(cwd: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | GIT_ENV
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout.decode().strip()


def timed(step: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def median(step: Callable[[], object], rounds: int) -> float:
    return statistics.median(timed(step) for _ in range(rounds))


def _read(repo: Path) -> int:
    return sum(1 for _ in Store(GitProvider(repo, "wmine"), R.SCOPE).items())


def admission(tmp: Path, commits: int, new: int, rounds: int) -> tuple[float, float, float]:
    """(first read, read with nothing new, read after fetching ``new`` appends), seconds."""
    peer = tmp / "peer"
    git(tmp, "init", "-q", str(peer))
    writer = GitProvider(peer, "wpeer")
    for n in range(commits):
        writer.append(batch(R.grant(f"a{n}")))
    mine = tmp / "mine"
    git(tmp, "clone", "-q", "--no-checkout", str(peer), str(mine))
    git(mine, "config", "--add", "remote.origin.fetch", FETCH)
    git(mine, "fetch", "-q", "origin")
    first = timed(lambda: _read(mine))
    nothing = median(lambda: _read(mine), rounds)
    after = []
    for r in range(rounds):
        for n in range(new):
            writer.append(batch(R.grant(f"b{r}-{n}")))
        git(mine, "fetch", "-q", "origin")
        after.append(timed(lambda: _read(mine)))
    return first, nothing, statistics.median(after)


def team(tmp: Path, decisions: int) -> Path:
    """A shared remote with a policy and a reviewer's signed grant and acceptances; returns a
    fresh clone of it, its memory fetched."""
    from gitstore.context import Context
    from gitstore.ops import consent
    from gitstore.ops import learning as ops
    from gitstore.ops.setup import init
    from gitstore.records.policy import POLICY_FILE, SIGNERS_FILE, policy_text

    bare, root = tmp / "remote.git", tmp / "alice"
    git(tmp, "init", "-q", "--bare", "-b", "main", str(bare))
    git(bare, "remote", "add", "origin", "https://github.com/acme/widgets.git")  # the scope of every clone
    git(tmp, "init", "-q", "-b", "main", str(root))
    git(root, "remote", "add", "origin", str(bare))
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp / "key")], check=True)
    (root / "README.md").write_text("# widgets\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "root")  # the default branch before it had a policy
    (root / ".gitstore").mkdir()
    (root / POLICY_FILE).write_text(policy_text({"github:9": ["accept", "grant"]}))
    public = " ".join((tmp / "key.pub").read_text().split()[:2])
    (root / SIGNERS_FILE).write_text(f'github:9 namespaces="git" {public}\n')
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Who may decide")
    git(root, "push", "-q", "origin", "main")
    git(root, "config", "gpg.format", "ssh")
    git(root, "config", "user.signingkey", str(tmp / "key"))
    init(root)
    alice = Context.open(root)
    consent.grant(alice, "github:9", ["instruction"], ["review-thread"], "2026-01-01", None, None)
    events = [R.event(f"e{i}", seq=i) for i in range(decisions)]
    alice.store.append([R.episode(), *events])
    for i, event in enumerate(events):
        draft = ops.Draft(title=f"Rule {i}", text=f"Rule {i}.", category="convention",
                          evidence=[{"episode": event["episode"], "events": [event["id"]]}], counterevidence=[])
        proposal = ops.propose(alice, draft, "github:9")
        ops.accept(alice, proposal["id"], proposal["reviewDigest"], "github:9")
    git(root, "push", "-q", "origin", "refs/memory/v1/records/shared/*:refs/memory/v1/records/shared/*",
        "+refs/memory/v1/payloads/shared/*:refs/memory/v1/payloads/shared/*")
    reader = tmp / "reader"
    git(tmp, "clone", "-q", str(bare), str(reader))
    init(reader)
    git(reader, "fetch", "-q", "origin")
    return reader


def signatures(tmp: Path, decisions: int, rounds: int) -> tuple[float, float, float, int, float, float]:
    """(first read, read with signatures remembered, read without a policy) of a fresh clone's
    learnings, seconds, how many signed appends the first read checked, and verify with the
    signatures remembered and without a policy."""
    from gitstore.context import Context
    from gitstore.queries.verify import verify
    from gitstore.rules.active import evaluate

    def check() -> None:
        assert verify(Context.open(reader).store).ok

    reader = team(tmp, decisions)

    def judge() -> None:
        statuses = evaluate(Context.open(reader).view(), "instruction")
        assert sum(s.usable for s in statuses.values()) == decisions
        gc.collect()  # what the read checked is written, as when its process ends

    first = timed(judge)
    remembered_file = json.loads((reader / ".git" / "gitstore" / "verified" / "signatures.json").read_text())
    checked = sum(len(found) for found in remembered_file.values())
    remembered = median(judge, rounds)
    verified = median(check, rounds)
    # the same records read as this clone's own, without a policy: the same rules, no signatures
    # (each ref's history made and acknowledged here, as a clone's own appends are: ``_tips``)
    from gitstore.providers._tips import note_made, tips_log

    for name in git(reader, "for-each-ref", "--format=%(refname)", "refs/memory/v1/remotes/origin/").split():
        own = name.replace("refs/memory/v1/remotes/origin/", "refs/memory/v1/")
        tip = git(reader, "rev-parse", name).strip()
        git(reader, "update-ref", own, tip)
        git(reader, "update-ref", "-d", name)
        if "/records/" in own:
            note_made(reader / ".git" / "gitstore", own, None, tip)
            with open(tips_log(reader / ".git" / "gitstore", own), "a", encoding="ascii") as log:
                log.write(f"{tip}\n")
    git(reader, "update-ref", "refs/remotes/origin/main", git(reader, "rev-parse", "origin/main~1"))
    without = median(judge, rounds)
    plain = median(check, rounds)
    return first, remembered, without, checked, verified, plain


def verdict(ok: bool) -> str:
    return "goal met" if ok else "GOAL NOT MET"


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m bench {NAME}", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--new", type=int, default=100)
    parser.add_argument("--decisions", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(list(argv))
    if args.quick:
        args.commits, args.new, args.decisions, args.rounds = 50, 5, 2, 1
    with tempfile.TemporaryDirectory(prefix="gitstore-bench-trust-") as folder:
        tmp = Path(folder)
        (tmp / "a").mkdir()
        first, nothing, after = admission(tmp / "a", args.commits, args.new, args.rounds)
        share = args.new / args.commits
        extra, whole = after - nothing, first - nothing
        ratio = extra / whole if whole > 0 else 0.0
        print(f"{NAME}: read after fetching {args.new} new of {args.commits + args.new} appends "
              f"{after * 1000:.0f} ms, with nothing new {nothing * 1000:.0f} ms, first read "
              f"{first * 1000:.0f} ms; the fetch's share of the first read's verifying {ratio:.3f}x, "
              f"its share of the appends {share:.3f} (goal <= 2x its share): {verdict(ratio <= 2 * share)}")
        (tmp / "s").mkdir()
        first, remembered, without, checked, verified, plain = signatures(tmp / "s", args.decisions, args.rounds)
        cached = remembered / without if without > 0 else 0.0
        print(f"{NAME}: learnings of a fresh clone under a policy, {checked} signed appends: first read "
              f"{first * 1000:.0f} ms ({first / without:.1f}x), signatures remembered {remembered * 1000:.0f} ms, "
              f"without a policy {without * 1000:.0f} ms, ratio {cached:.2f}x (goal <= 1.5x): "
              f"{verdict(cached <= 1.5)}")
        ratio = verified / plain if plain > 0 else 0.0
        print(f"{NAME}: verify under the policy, signatures remembered {verified * 1000:.0f} ms, the same "
              f"records without a policy {plain * 1000:.0f} ms, ratio {ratio:.2f}x (goal <= 1.5x): "
              f"{verdict(ratio <= 1.5)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(os.sys.argv[1:]))
