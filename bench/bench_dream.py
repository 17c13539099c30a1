"""Dream quality on a labelled corpus, and what a dream costs against listing the same records.

**Quality.** For each seed, ``bench.dream_corpus`` writes GitHub REST review snapshots and Claude
Code / Codex sessions with planted truths; they go through the real importers (``gitstore
import reviews`` and ``import transcript`` in transcript mode) into a fresh repository with a
grant for ``instruction``, and ``gitstore dream`` runs once with its defaults. Each proposal is
mapped to the planted theme most of its evidence comes from (by comment id and session). Printed
against their goals, over every seed together:

- precision (proposals that are planted true themes, each once) >= 0.95;
- recall (planted true themes proposed) >= 0.9;
- decoys rejected (a copy pasted five times, one person in their own words, a quoted comment):
  100%;
- contested themes held back (and never proposed): 100%;
- injections and secrets in any proposal: 0 (the planted override texts, the instruction
  addressed to AI agents, the access key);
- audience accuracy (proposed themes and the personal machine advice) >= 0.9;
- the replayed session counted once (the theme's threads exclude the copy).

**Cost.** ``--events`` events (100,000) over review threads of 1 to 6 comments, written directly as
sealed records; about one comment in ten belongs to one of 60 recurring themes (so a dream
stores about 10,000 labels), the rest is text drawn from a Zipf vocabulary. Timed in this
process, fresh store each run, medians of ``--repeat``:

- baseline: listing the same records (``list(store.items())``, what ``gitstore records list`` does);
- target: ``gitstore dream`` over the store once the first dream has stored its labels (the
  library call: view, labelling, consolidation, tidy, the checks, the report; nothing new to
  write), goal <= 5x. The goal is judged on CPU time, interleaved runs, medians: this machine is
  shared, and waiting for a core is no cost of the dream; wall time is printed beside it. Given
  the evidence the last dream labelled, the lexical labeler's answer is the last one, kept by
  its input (``gitstore.dream.labelers.memo``), so this dream reads, takes and consolidates,
  but does not label;
- reported: the first dream (which writes the labels and proposals); a dream after one new
  comment, which labels every text again (a theme depends on the whole corpus); and the peak
  memory of a dream and of a listing, each in a fresh process (its own VmHWM: a child of this
  process reported this process's peak through ``ru_maxrss``, so both lines printed the same
  number).

Measured on 2 shared cores (2026-12-02), before the label memo: a dream 23.99 s of CPU against
a listing's 2.92 s, 8.2x (the goal not met: the listing had got 1.85x faster with kept folder
maps and remembered checks, see ``bench rules``); after the labeler stopped holding a tuple
per word and payloads were read out of the mapped packs, 17.99 s against 2.54 s, 7.07x; with
the memo, 9.38 s against 2.50 s, 3.75x (goal met), and a dream after one new comment 17.57 s,
7.04x. Peak memory: a dream 701 MB (819 MB before), a listing 422 MB.

Exit code 0 whatever the ratios (machines are noisy); 1 when a quality goal is missed or the cost
corpus's planted themes are not all proposed. ``--quick`` runs one seed and 1,000 events over 15
themes (each theme still in half a dozen comments or so; fewer themes than that left some
unproposed).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from bench import dream_corpus

ORIGIN = "https://github.com/acme/widgets.git"
BY = "github:9"
GOALS = {"precision": 0.95, "recall": 0.9, "audience": 0.9, "cost": 5.0}
ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}


def ready_repo(path: Path) -> Any:
    from gitstore.context import Context
    from gitstore.ops.setup import init

    path.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **ENV}
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True, env=env)
    subprocess.run(["git", "remote", "add", "origin", ORIGIN], cwd=path, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "root"], cwd=path, check=True, env=env)
    init(path)
    return Context.open(str(path))


# -- quality -------------------------------------------------------------------------------------

def dream_on_corpus(root: Path, seed: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    """Write the corpus for ``seed``, import it, dream once: (truth, report, event -> origin key)."""
    from gitstore.capture.reviews import import_reviews
    from gitstore.capture.sessions import import_transcript
    from gitstore.dream.run import Request, dream
    from gitstore.ops import consent

    truth = dream_corpus.write(root / "corpus", seed)
    ctx = ready_repo(root / "widgets")
    consent.grant(ctx, BY, ["instruction", "review"], ["review-thread", "agent-session"],
                  dream_corpus.GRANT_FROM, None, None)
    for path in sorted((root / "corpus" / "reviews").glob("*.json")):
        import_reviews(ctx, path, BY)
    for path in sorted((root / "corpus" / "sessions").glob("*.jsonl")):
        import_transcript(ctx, path, mode="transcript")
    report = dream(root / "widgets", Request(by=BY), notify=lambda _: None)
    return truth, report.to_json(), _planted_keys(ctx)


def _planted_keys(ctx: Any) -> dict[str, str]:
    """Event id -> ``comment:<id>`` or ``session:<stem>``: how the truth names its evidence."""
    view = ctx.view()
    keys = {}
    for event in view.events.values():
        episode = view.episodes[event["episode"]]
        source = (event.get("payload") or {}).get("sourceId", "")
        if source.startswith("github:comment:"):
            keys[event["id"]] = "comment:" + source.rsplit(":", 1)[1]
        elif episode["source"]["kind"] == "agent-session":
            ref = episode["source"]["ref"]
            stem = ref.removeprefix("file:").removesuffix(".jsonl").removesuffix("-session").removeprefix("rollout-")
            keys[event["id"]] = "session:" + stem
    return keys


def _theme_of(refs: list[dict[str, Any]], owner: dict[str, str]) -> str | None:
    votes = Counter(owner.get(keys) for r in refs for keys in r["events"])
    votes.pop(None, None)
    return votes.most_common(1)[0][0] if votes else None


def evaluate(truth: dict[str, Any], report: dict[str, Any], keys: dict[str, str]) -> dict[str, Any]:
    """Counts for one seed (summed over seeds by ``main``)."""
    owner: dict[str, str] = {}
    for name, theme in truth["themes"].items():
        for comment in theme.get("comments", []):
            owner[f"comment:{comment}"] = name
        for stem in theme.get("sessions", []):
            owner[f"session:{stem}"] = name
    by_event = {event: owner.get(key) for event, key in keys.items()}
    proposed = [(_theme_of(p["evidence"], by_event), p) for p in report["proposed"]]
    held = {_theme_of(v["evidence"], by_event) for v in report["heldBack"]}
    verdicts = [(_theme_of(v["evidence"], by_event), v) for v in report["rejected"] + report["heldBack"]]
    kinds = {name: theme["kind"] for name, theme in truth["themes"].items()}
    wanted = [n for n, k in kinds.items() if k in ("true", "replay")]
    hits = {name for name, _ in proposed if name in wanted}
    counts = Counter(name for name, _ in proposed)
    true_positives = len(hits)
    false_positives = len(proposed) - true_positives
    texts = [" ".join(str(p[f]) for f in ("title", "text", "audienceRationale")) + " " + json.dumps(p["evidence"])
             for _, p in proposed]
    every_text = json.dumps(report)
    audience_total = audience_right = 0
    for name, p in proposed:
        expected = truth["themes"].get(name or "", {}).get("audience")
        if expected and counts[name] >= 1:
            audience_total += 1
            audience_right += p["audience"] == expected
    for name, v in verdicts:
        expected = truth["themes"].get(name or "", {}).get("audience")
        if expected == "personal":
            audience_total += 1
            audience_right += v.get("audience") == "personal"
    replay = truth["replay"]
    replayed = [p["signals"].get("threads") for name, p in proposed if name == replay["theme"]]
    return {
        "proposals": len(proposed), "truePositives": true_positives, "falsePositives": false_positives,
        "wanted": len(wanted), "found": len(hits),
        "decoys": sum(1 for k in kinds.values() if k == "decoy"),
        "decoysRejected": sum(1 for n, k in kinds.items() if k == "decoy" and n not in counts),
        "contested": sum(1 for k in kinds.values() if k == "contested"),
        "contestedHeld": sum(1 for n, k in kinds.items() if k == "contested" and n in held and n not in counts),
        "injections": sum(1 for t in texts for marker in truth["injections"] if marker in t.lower()),
        "secrets": sum(1 for t in texts for secret in truth["secrets"] if secret in t),
        "secretsAnywhere": sum(every_text.count(secret) for secret in truth["secrets"]),
        "audienceTotal": audience_total, "audienceRight": audience_right,
        "replayOnce": int(replayed == [replay["threads"]]), "status": report["status"],
    }


def quality(seeds: list[int]) -> tuple[list[str], bool]:
    totals: Counter[str] = Counter()
    statuses = []
    for seed in seeds:
        with tempfile.TemporaryDirectory(prefix="gitstore-bench-dream-") as folder:
            truth, report, keys = dream_on_corpus(Path(folder), seed)
        found = evaluate(truth, report, keys)
        statuses.append(found.pop("status"))
        totals.update(found)
    precision = totals["truePositives"] / max(1, totals["proposals"])
    recall = totals["found"] / max(1, totals["wanted"])
    audience = totals["audienceRight"] / max(1, totals["audienceTotal"])
    checks = [
        (f"precision {precision:.3f} ({totals['truePositives']} of {totals['proposals']} proposals)",
         f"goal >= {GOALS['precision']}", precision >= GOALS["precision"]),
        (f"recall {recall:.3f} ({totals['found']} of {totals['wanted']} planted themes)",
         f"goal >= {GOALS['recall']}", recall >= GOALS["recall"]),
        (f"decoys rejected {totals['decoysRejected']} of {totals['decoys']}", "goal 100%",
         totals["decoysRejected"] == totals["decoys"]),
        (f"contested held back {totals['contestedHeld']} of {totals['contested']}", "goal 100%",
         totals["contestedHeld"] == totals["contested"]),
        (f"injections in proposals {totals['injections']}, secrets in proposals {totals['secrets']} "
         f"(secrets anywhere in the reports {totals['secretsAnywhere']})", "goal 0",
         totals["injections"] == 0 and totals["secrets"] == 0 and totals["secretsAnywhere"] == 0),
        (f"audience accuracy {audience:.3f} ({totals['audienceRight']} of {totals['audienceTotal']})",
         f"goal >= {GOALS['audience']}", audience >= GOALS["audience"]),
        (f"replayed session counted once in {totals['replayOnce']} of {len(seeds)} seeds", "goal all",
         totals["replayOnce"] == len(seeds)),
    ]
    lines = [f"dream quality: {len(seeds)} seeds, dreams {', '.join(sorted(set(statuses)))}"]
    lines += [f"dream quality: {what} ({goal}): {'goal met' if ok else 'GOAL NOT MET'}" for what, goal, ok in checks]
    return lines, all(ok for _, _, ok in checks)


# -- cost ----------------------------------------------------------------------------------------

THEMES = 40
QUICK_THEMES = 15  # with --quick's 1,000 events: each theme still recurs in several threads
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
FILLER = "the a this that we it is to of for in on and should when with".split()


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))


def write_cost_store(root: Path, events: int, seed: int = 7, themes: int = THEMES) -> dict[str, int]:
    """A store of ``events`` events over review threads, written directly in large appends."""
    import gitstore
    from gitstore.ops import consent
    from gitstore.records.ids import episode_id, event_id

    rng = random.Random(seed)
    ctx = ready_repo(root)
    consent.grant(ctx, BY, ["instruction"], ["review-thread"], "2025-01-01T00:00:00.000000Z", None, None)
    vocabulary = list(dict.fromkeys(_word(rng) for _ in range(8000)))
    weights = [1 / (rank + 1) ** 1.1 for rank in range(len(vocabulary))]
    cores = [[_word(rng) + "x" for _ in range(3)] for _ in range(themes)]
    people = [f"github:{n}" for n in rng.sample(range(1000, 999_999), 300)]
    pending: list[dict[str, Any]] = []
    made = Counter[str]()
    clock = datetime(2025, 3, 1, tzinfo=timezone.utc)
    comment_id = 10_000_000
    while made["events"] < events:
        pr = rng.randint(1, max(20, events // 60))
        comment_id += 1
        source = {"kind": "review-thread", "origin": "github", "ref": f"github:comment:{comment_id}"}
        ep = episode_id(ctx.scope, source)
        clock += timedelta(minutes=rng.randint(1, 30))
        pending.append(gitstore.seal({
            "schema": "gitstore.episode/v1", "scope": ctx.scope, "id": ep, "source": source,
            "pin": {"repository": ctx.scope, "pullRequest": pr, "branch": f"feature/{pr}", "commit": None},
            "title": None, "startedAt": gitstore.format_time(clock), "capture": "complete", "mode": "review",
            "grants": []}))
        for seq in range(min(rng.randint(1, 6), events - made["events"])):
            if rng.random() < 0.1:
                core = cores[rng.randrange(themes)]
                words = rng.sample(FILLER, 3) + core + rng.choices(vocabulary, weights, k=rng.randint(2, 5))
                made["themed"] += 1
            else:
                words = rng.choices(vocabulary, weights, k=rng.randint(8, 20)) + rng.sample(FILLER, 4)
            rng.shuffle(words)
            at = gitstore.format_time(clock + timedelta(seconds=seq * 40))
            pending.append(gitstore.seal({
                "schema": "gitstore.event/v1", "scope": ctx.scope, "id": event_id(ep, f"comment:{comment_id}:{seq}"),
                "episode": ep, "type": "comment", "seq": seq, "at": at, "author": rng.choice(people),
                "parentEventId": None, "payload": {"text": " ".join(words).capitalize() + ".",
                                                   "sourceId": f"github:comment:{comment_id}-{seq}",
                                                   "path": f"src/m{rng.randint(1, 40)}/f{rng.randint(1, 30)}.py"}}))
            made["events"] += 1
        if len(pending) >= 20_000:
            ctx.store.append(pending)
            pending = []
    if pending:
        ctx.store.append(pending)
    return dict(made)


def add_comment(root: Path) -> None:
    """One more review comment, in a thread of its own: evidence the last dream did not see."""
    import gitstore
    from gitstore.context import Context
    from gitstore.records.ids import episode_id, event_id

    ctx = Context.open(str(root))
    source = {"kind": "review-thread", "origin": "github", "ref": "github:comment:99999999"}
    ep = episode_id(ctx.scope, source)
    at = "2030-01-01T00:00:00.000000Z"
    ctx.store.append([
        gitstore.seal({"schema": "gitstore.episode/v1", "scope": ctx.scope, "id": ep, "source": source,
                       "pin": {"repository": ctx.scope, "pullRequest": 1, "branch": "feature/1", "commit": None},
                       "title": None, "startedAt": at, "capture": "complete", "mode": "review", "grants": []}),
        gitstore.seal({"schema": "gitstore.event/v1", "scope": ctx.scope, "id": event_id(ep, "comment:99999999:0"),
                       "episode": ep, "type": "comment", "seq": 0, "at": at, "author": "github:4242",
                       "parentEventId": None, "payload": {"text": "One more comment nobody has labelled yet.",
                                                          "sourceId": "github:comment:99999999-0",
                                                          "path": "src/m1/f1.py"}})])


def _timed(step: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = step()
    return time.perf_counter() - started, value


def _both(step: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall and CPU seconds of one step, and what it returned."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = step()
    return time.perf_counter() - wall, time.process_time() - cpu, value


def _peak(root: Path, code: str) -> float:
    """Peak resident memory (MB) of a fresh process running ``code`` in the repository: its own
    VmHWM. Not ``ru_maxrss``: a child started from this process (by vfork) keeps this process's
    peak as its own across exec, so after a dream in this process every child reported it."""
    probe = (f"import os; os.chdir({str(root)!r}); {code}; "
             "print(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parent.parent)
    return int(done.stdout.strip().splitlines()[-1]) / 1024


def cost(events: int, repeat: int, themes: int = THEMES) -> tuple[list[str], bool]:
    from gitstore.dream.run import Request, dream
    from gitstore.context import Context

    folder = Path(tempfile.mkdtemp(prefix="gitstore-bench-dream-cost-"))
    try:
        root = folder / "widgets"
        made = write_cost_store(root, events, themes=themes)
        request = Request(by=BY)
        first, report = _timed(lambda: dream(root, request, notify=lambda _: None))
        labels = report.labeler.get("new", 0)
        proposals = len(report.proposed)
        listing, dreaming = [], []
        for _ in range(repeat):
            listing.append(_both(lambda: list(Context.open(str(root)).store.items()))[:2])
            *seconds, again = _both(lambda: dream(root, request, notify=lambda _: None))
            dreaming.append(tuple(seconds))
        wall = statistics.median(d[0] for d in dreaming) / statistics.median(x[0] for x in listing)
        ratio = statistics.median(d[1] for d in dreaming) / statistics.median(x[1] for x in listing)
        records = sum(1 for _ in Context.open(str(root)).store.items())
        dream_mb = _peak(root, "from gitstore.dream.run import Request, dream; dream('.', Request(by='github:9'), notify=lambda _: None)")
        list_mb = _peak(root, "from gitstore.context import Context; list(Context.open('.').store.items())")
        add_comment(root)
        relabel = _both(lambda: dream(root, request, notify=lambda _: None))[1]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    ok = ratio <= GOALS["cost"]
    right = proposals == themes and not again.proposed
    lines = [
        f"dream cost: answer: {proposals} proposals for {themes} planted themes, a second dream proposes "
        f"{len(again.proposed)}: {'correct' if right else 'WRONG'}",
        f"dream cost: dream over {made['events']} events and {labels} labels ({records} records) cpu "
        f"{statistics.median(d[1] for d in dreaming):.2f}s, listing the same records cpu "
        f"{statistics.median(x[1] for x in listing):.2f}s, ratio {ratio:.2f}x (wall "
        f"{statistics.median(d[0] for d in dreaming):.2f}s against {statistics.median(x[0] for x in listing):.2f}s, "
        f"{wall:.2f}x; goal <= {GOALS['cost']:g}x): {'goal met' if ok else 'GOAL NOT MET'}",
        f"dream cost: first dream (labelling and writing {labels} labels and {proposals} proposals) {first:.2f}s "
        f"(reported, no goal)",
        f"dream cost: a dream after one new comment (every text labelled again) cpu {relabel:.2f}s, "
        f"{relabel / statistics.median(x[1] for x in listing):.2f}x the listing (reported, no goal)",
        f"dream cost: peak memory of a dream {dream_mb:.0f} MB, of a listing {list_mb:.0f} MB (reported, no goal)",
    ]
    return lines, right


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench dream", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one seed and 1,000 events over 15 themes")
    parser.add_argument("--seeds", type=int, default=5, help="quality corpora (default 5)")
    parser.add_argument("--events", type=int, default=100_000, help="events of the cost store (default 100,000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each (default 3)")
    args = parser.parse_args(argv)
    seeds = [1] if args.quick else list(range(1, args.seeds + 1))
    events = min(args.events, 1_000) if args.quick else args.events
    lines, good = quality(seeds)
    for line in lines:
        print(line, flush=True)
    lines, right = cost(events, 1 if args.quick else args.repeat, QUICK_THEMES if args.quick else THEMES)
    for line in lines:
        print(line, flush=True)
    return 0 if good and right else 1


if __name__ == "__main__":
    sys.exit(main())
