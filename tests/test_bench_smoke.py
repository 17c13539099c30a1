"""Smoke tests of the benchmarks: ``python -m bench NAME --quick`` runs and reports its goal line.

Timings are never asserted: benchmark machines are noisy, and the goal is reported, not enforced.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

RATIO_LINE = re.compile(
    r"^contracts: fast \d+ rec/s, reference \d+ rec/s, ratio \d+(\.\d+)?x \(goal >= 10x\): "
    r"(goal met|GOAL NOT MET)$",
    re.MULTILINE,
)

STRONG_LINE = re.compile(
    r"^contracts: fast \d+ rec/s, strongest baseline \(json.loads \+ jsonschema-rs \+ rfc8785\) \d+ rec/s,"
    r" ratio [\d.]+x \(cpu [\d.]+x; goal >= 1x\): (goal met|GOAL NOT MET)(; gitstore is slower than the baseline)?$",
    re.MULTILINE,
)

CAPTURE_LINE = re.compile(
    r"^capture: hook hand-off to its background worker \d+ ms, bare \d+ ms, ratio [\d.]+x \(what the agent waits"
    r" for; reported, no goal\)\n"
    r"capture: end to end, hook start until the records are stored \(background worker\) \d+ ms, bare \d+ ms,"
    r" ratio [\d.]+x \(goal <= 12x\): (goal met|GOAL NOT MET)\n"
    r"capture: end to end inline \(GITSTORE_HOOK_INLINE=1, one process\) \d+ ms, bare \d+ ms, ratio [\d.]+x"
    r" \(goal <= 12x\): (goal met|GOAL NOT MET)$",
    re.MULTILINE,
)

RULES_LINES = re.compile(
    r"^answer: \d+ active for instruction, \d+ expected: correct$.*"
    r"^rules: active \d+\.\d+s, listing \d+\.\d+s, ratio \d+\.\d+x \(cpu \d+\.\d+x; goal <= 3x\): "
    r"(goal met|GOAL NOT MET)$",
    re.MULTILINE | re.DOTALL,
)

READ_LINES = [
    re.compile(p, re.MULTILINE)
    for p in (
        r"^rules: records list --json \(a fresh process\) over \d+ records: cpu [\d.]+s, [\d.]+ us per record"
        r" \(goal <= 30 us\): (goal met|GOAL NOT MET); checking every record again and walking every folder"
        r" \(memory of checked bytes and kept folder maps dropped\) [\d.]+ us per record$",
        r"^rules: learnings --active --purpose instruction --json \(a fresh process\) cpu [\d.]+s, records list"
        r" cpu [\d.]+s, ratio [\d.]+x \(goal <= 3x\): (goal met|GOAL NOT MET)$",
        r"^rules: learnings --active peak memory over \d+ records \d+ MB \(records list \d+ MB\)"
        r" \(goal < 300 MB\): (goal met|GOAL NOT MET)$",
        r"^target in_force_view\(store\) \+ evaluate\('instruction'\) \(what `learnings --active` computes\):"
        r" median [\d.]+s",
        r"^beside them \(no goal\): active\(View.load\(store\), 'instruction'\), the whole store's view with"
        r" every payload: median [\d.]+s, [\d.]+x the listing$",
    )
]

SAFETY_LINES = re.compile(
    r"^safety: (fake-leaks precision [\d.]+%, recall [\d.]+%; ordinary session and review texts quarantined"
    r" \d+ of \d+|skipped \(no test material at .*\))$.*"
    r"^safety: worst input \([\w -]+\) \d+ ms/MB, prose \d+ ms/MB, ratio [\d.]+x \(goal <= 10x\): "
    r"(goal met|GOAL NOT MET)$",
    re.MULTILINE | re.DOTALL,
)

_VERDICT = r"\(goal [<>]=? [\d.]+(x| MB)\): (goal met|GOAL NOT MET)$"
_SHORT = r"(; gitstore is slower than [\w -]+)?"
_AGAINST = r"\(goal [<>]=? [\d.]+x\): (goal met|GOAL NOT MET)" + _SHORT
_FAST = r"git fast-import \(compression and deltas off: the same uncompressed work\)"
STORE_LINES = [
    re.compile(p, re.MULTILINE)
    for p in (
        r"^store: bulk records add of \d+ events \(with payloads\) \d+ rec/s, " + _FAST + " writing the"
        r" same record and payload blobs \d+ rec/s, ratio [\d.]+x " + _AGAINST + "$",
        r"^store: bulk records add of \d+ events \(with payloads\) \d+ rec/s, " + _FAST + " writing the"
        r" record blobs only \d+ rec/s, ratio [\d.]+x " + _AGAINST + "$",
        r"^store: bulk Store.append of \d+ events with payloads \d+ rec/s, [\d.]+x fast-import writing the"
        r" same blobs \(reported, no goal\)$",
        r"^store: bulk Store.append of \d+ events without payloads \d+ rec/s, [\d.]+x fast-import writing"
        r" the same blobs \(reported, no goal\)$",
        r"^store: verify \d+ records \d+ rec/s, bare loop \d+ rec/s, ratio [\d.]+x " + _VERDICT,
        r"^store: single append median at \d+ records [\d.]+ ms, at \d+ records [\d.]+ ms, ratio [\d.]+x "
        + _VERDICT,
        r"^store: single append median [\d.]+ ms, naive git [\d.]+ ms, ratio [\d.]+x " + _AGAINST
        + r" \(in-process: no start-up counted\)$",
        r"^store: single append through the CLI \(gitstore records add, process start to exit\) median [\d.]+ ms,"
        r" naive git \(4 git processes\) [\d.]+ ms, ratio [\d.]+x " + _AGAINST + "$",
        r"^store: single append median in a repository with \d+ refs of its own \(packed, as git gc leaves them\)"
        r" [\d.]+ ms, in one with none [\d.]+ ms, ratio [\d.]+x " + _VERDICT,
        r"^store: verify peak memory over 1000000 records: skipped \(--quick\)$",
        r"^store: provider git: \d+ appends/s \(median\), \d+ reads/s$",
        r"^store: provider sqlite: \d+ appends/s \(median\), \d+ reads/s$",
        r"^store: provider jsonl: \d+ appends/s \(median\), \d+ reads/s$",
    )
]


RECALL_LINES = [
    re.compile(p, re.MULTILINE)
    for p in (
        r"^hook / bare: [\d.]+x median, [\d.]+x best, [\d.]+x CPU \(goal <= 4x: (met|NOT met)\)$",
        r"^hook among 25000 refs / bare: [\d.]+x median, [\d.]+x the hook without them \(goal <= 4x: (met|NOT met)\)$",
        r"^recall / records list: [\d.]+x$",
        r"^recall quality: \d+/\d+ = [\d.]+% of labelled queries have their learning in the top 3 "
        r"\(goal >= 90%: (met|NOT met)\); by language: .*zh \d+/\d+$",
    )
]


PROMOTE_LINES = [
    re.compile(p, re.MULTILINE)
    for p in (
        r"^promote: gates over \d+ pages and \d+ skills [\d.]+s, pre-commit run of a no-op hook over the same "
        r"files [\d.]+s, ratio [\d.]+x \(cpu [\d.]+x; goal <= 3x\): (goal met|GOAL NOT MET)$",
        r"^promote: against three no-op hooks \(one per gate\) [\d.]+s, ratio [\d.]+x \(cpu [\d.]+x; reported, "
        r"no goal\)$",
        r"^promote: each gate alone through pre-commit: gitstore-okf [\d.]+s \(cpu [\d.]+s\), gitstore-skills "
        r"[\d.]+s \(cpu [\d.]+s\), gitstore-scan [\d.]+s \(cpu [\d.]+s\) \(reported, no goal\)$",
    )
]


CLI_LINES = [
    re.compile(p, re.MULTILINE)
    for p in (
        r"^cli: start-up gitstore --version \d+ ms, python3 -c pass \d+ ms, ratio [\d.]+x " + _VERDICT,
        r"^cli: start-up gitstore --help \d+ ms, python3 -c pass \d+ ms, ratio [\d.]+x " + _VERDICT,
        *(rf"^cli: {name} on \d+ records \(a team's mix\) [\d.]+ s \(best [\d.]+ s, cpu [\d.]+ s\), library [\d.]+ s "
          r"\(cpu [\d.]+ s\), ratio [\d.]+x \(goal <= 0.3 s\): (goal met|GOAL NOT MET)$"
          for name in ("status", "learnings", "show")),
    )
]


@pytest.fixture(autouse=True)
def _one_pycache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The processes a benchmark measures cache their bytecode in one folder of this run shared
    by every benchmark (and every worker), not one folder each: each compiles nothing again."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    monkeypatch.setenv("GITSTORE_BENCH_PYCACHE", str(shared / "bench-pycache"))


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def reports(lines: list[re.Pattern[str]], *args: str) -> str:
    """Run a benchmark; it succeeds and prints every line. Its output."""
    done = bench(*args)
    assert done.returncode == 0, done.stdout + done.stderr
    for line in lines:
        assert line.search(done.stdout), (line.pattern, done.stdout)
    return done.stdout


DECISIONS_LINES = [
    re.compile(rf"^decisions: {re.escape(action)} at 500 learnings cpu [\d.]+ ms, at 50 [\d.]+ ms, ratio [\d.]+x "
               r"\(goal <= 2x\): (goal met|GOAL NOT MET)$", re.MULTILINE)
    for action in ("accept", "retire", "reject", "propose", "accept+check", "propose+check", "accept replacing")
]


def test_decisions_quick_prints_a_ratio_line_per_decision() -> None:
    reports(DECISIONS_LINES, "decisions", "--quick")


def test_contracts_quick_prints_a_ratio_line() -> None:
    done = bench("contracts", "--quick")
    assert done.returncode == 0, done.stdout + done.stderr
    assert RATIO_LINE.search(done.stdout), done.stdout
    assert STRONG_LINE.search(done.stdout), done.stdout


def test_capture_quick_prints_a_ratio_line() -> None:
    done = bench("capture", "--quick")
    assert done.returncode == 0, done.stdout + done.stderr
    assert CAPTURE_LINE.search(done.stdout), done.stdout


def test_rules_quick_gives_the_right_answer_and_a_ratio_line() -> None:
    # 700 learnings: among their 21 replacements, one loses a race (the model must agree)
    reports([RULES_LINES, *READ_LINES], "rules", "--quick", "--", "--learnings", "700", "--events", "2100", "--repeat", "1")


def test_safety_quick_prints_its_figures_and_a_ratio_line() -> None:
    done = bench("safety", "--quick", "--", "--size", "50000")
    assert done.returncode == 0, done.stdout + done.stderr
    assert SAFETY_LINES.search(done.stdout), done.stdout


@pytest.mark.slow
def test_store_quick_reports_every_target() -> None:
    reports(STORE_LINES, "store", "--quick")


def test_recall_quick_reports_the_hook_recall_and_quality() -> None:
    reports(RECALL_LINES, "recall", "--quick", "--", "--repeat", "1")


def test_promote_quick_reports_the_gates_against_pre_commit() -> None:
    reports(PROMOTE_LINES, "promote", "--quick")


GC_LINES = [
    re.compile(r"^gc: ours \d+\.\d+s, before \d+\.\d+s, ratio \d+\.\d+x \(lower is faster\)$", re.MULTILINE),
    re.compile(r"^gitstore gc: .* stashes kept 2 of 2$", re.MULTILINE),
    re.compile(r"^append: fresh handle, nothing checked yet .* later/provider \d+\.\d+x$", re.MULTILINE),
]


def test_gc_quick_reports_the_ratio_and_keeps_the_stashes() -> None:
    reports(GC_LINES, "gc", "--quick")


def test_runner_lists_benchmarks_and_refuses_unknown_names() -> None:
    listed = bench("--list")
    assert listed.returncode == 0, listed.stderr
    assert "contracts" in listed.stdout.split()
    unknown = bench("no-such-benchmark")
    assert unknown.returncode == 2
    assert "unknown benchmark no-such-benchmark" in unknown.stderr


def test_cli_quick_reports_start_up_and_every_command() -> None:
    reports(CLI_LINES, "cli", "--quick")


DREAM_LINES = [
    re.compile(p, re.MULTILINE)
    for p in (
        r"^dream quality: precision [\d.]+ \(\d+ of \d+ proposals\) \(goal >= 0.95\): (goal met|GOAL NOT MET)$",
        r"^dream quality: recall [\d.]+ \(\d+ of \d+ planted themes\) \(goal >= 0.9\): (goal met|GOAL NOT MET)$",
        r"^dream quality: decoys rejected \d+ of \d+ \(goal 100%\): (goal met|GOAL NOT MET)$",
        r"^dream quality: contested held back \d+ of \d+ \(goal 100%\): (goal met|GOAL NOT MET)$",
        r"^dream quality: injections in proposals \d+, secrets in proposals \d+ .*\(goal 0\): (goal met|GOAL NOT MET)$",
        r"^dream quality: audience accuracy [\d.]+ \(\d+ of \d+\) \(goal >= 0.9\): (goal met|GOAL NOT MET)$",
        r"^dream cost: answer: \d+ proposals for \d+ planted themes, a second dream proposes \d+: correct$",
        r"^dream cost: dream over \d+ events and \d+ labels \(\d+ records\) cpu [\d.]+s, listing the same records "
        r"cpu [\d.]+s, ratio [\d.]+x \(wall [\d.]+s against [\d.]+s, [\d.]+x; goal <= 5x\): (goal met|GOAL NOT MET)$",
        r"^dream cost: peak memory of a dream \d+ MB, of a listing \d+ MB \(reported, no goal\)$",
    )
]


def test_dream_quick_reports_every_goal() -> None:
    reports(DREAM_LINES, "dream", "--quick")


TRUST_LINES = [
    re.compile(r"^trust: read after fetching \d+ new of \d+ appends \d+ ms, with nothing new \d+ ms, first read \d+ ms;"
               r" the fetch's share of the first read's verifying -?[\d.]+x, its share of the appends [\d.]+ "
               r"\(goal <= 2x its share\): (goal met|GOAL NOT MET)$", re.MULTILINE),
    re.compile(r"^trust: learnings of a fresh clone under a policy, \d+ signed appends: first read \d+ ms \([\d.]+x\), "
               r"signatures remembered \d+ ms, without a policy \d+ ms, ratio [\d.]+x " + _VERDICT, re.MULTILINE),
    re.compile(r"^trust: verify under the policy, signatures remembered \d+ ms, the same records without a policy"
               r" \d+ ms, ratio [\d.]+x " + _VERDICT, re.MULTILINE),
]


def test_trust_quick_reports_admission_and_signatures() -> None:
    reports(TRUST_LINES, "trust", "--quick")


SYNC_LINES = [
    re.compile(r"^sync: sync of \d+ new records [\d.]+s, git fetch \+ gitstore verify [\d.]+s, ratio [\d.]+x "
               r"\(cpu [\d.]+x; goal <= 1.5x\): (goal met|GOAL NOT MET)$", re.MULTILINE),
    re.compile(r"^sync: no-op sync \d+ ms, no-op git fetch \d+ ms, ratio [\d.]+x \(cpu [\d.]+x; goal <= 2x\): "
               r"(goal met|GOAL NOT MET)$", re.MULTILINE),
    *(re.compile(rf"^sync: among many writers, {what} cpu [\d.]+s with \d+ writers, [\d.]+s with \d+, ratio"
                 r" [\d.]+x \(goal <= [\d.]+x, linear in writers; load average [\d. ]+ -> [\d. ]+\): "
                 r"(goal met|GOAL NOT MET)$", re.MULTILINE)
      for what in ("a fresh clone's first sync", "its verify after")),
]


def test_sync_quick_reports_both_ratios() -> None:
    reports(SYNC_LINES, "sync", "--quick")


SCALE_LINES = [
    # the baseline (the first chunk into an empty store, and its verify) is run first and last
    re.compile(r"^scale: bulk appends \d+ -> \d+ records \(.*\): cpu [\d.]+ s in all,"
               r" first [\d.]+ s \([\d.]+ and [\d.]+\) \(chunks [\d., ]+\), ratio [\d.]+x " + _VERDICT, re.MULTILINE),
    re.compile(r"^scale: verify \d+ -> \d+ records \(.*\): cpu [\d.]+ s \([\d.]+ and [\d.]+\) -> [\d.]+ s,"
               r" ratio [\d.]+x \(goal <= [\d.]+x\): (goal met|GOAL NOT MET); peak RSS \d+ MB -> \d+ MB$",
               re.MULTILINE),
    # the strongest baseline a user could pick for the same growth, run first and last too
    re.compile(r"^scale: bulk appends against " + _FAST + r" growing a repository the same way \(.*\):"
               r" fast-import cpu [\d.]+ s in all, first [\d.]+ s \([\d.]+ and [\d.]+\) \(chunks [\d., ]+\),"
               r" its ratio [\d.]+x; gitstore [\d.]+x fast-import's records per cpu second over the growth "
               + _AGAINST + "$", re.MULTILINE),
]


def test_scale_quick_reports_appends_and_verify_growth() -> None:
    reports(SCALE_LINES, "scale", "--quick", "--", "--chunk", "300")


SETTLE_LINES = [
    re.compile(rf"^settle: learning histories with sibling revisions {how}: 1 sibling \d+ ms; 10 [\d.]+x, 20 [\d.]+x,"
               r" 40 [\d.]+x \(reported, no goal\)$", re.MULTILINE)
    for how in ("in one append", "one append each")
]


def test_settle_quick_reports_sibling_costs_and_settles_them_right() -> None:
    reports(SETTLE_LINES, "settle", "--quick")


def test_history_quick_prints_the_ratio_of_a_range_twice_as_long() -> None:
    reports([re.compile(r"^history: twice the commits cost [\d.]+x the CPU \(goal <= 2.5x\): (goal met|GOAL NOT MET)$",
                        re.MULTILINE)], "history", "--quick")


@pytest.mark.parametrize("bench", ["bench.bench_scale", "bench.bench_store"])
def test_a_workdir_that_is_no_folder_is_named_in_one_line(bench: str, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", bench, "--quick", "--workdir", str(tmp_path / "missing")],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].endswith(f"error: --workdir {tmp_path / 'missing'} is not a folder")
