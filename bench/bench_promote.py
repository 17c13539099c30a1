"""The pre-commit gates against pre-commit itself.

The goal: the gates over a wiki of 1,000 pages and 200 skills cost at most 3x ``pre-commit run``
of a no-op hook over the same files.

Input, built once per run in a temporary git repository (the same bytes for the same sizes):
``okf/wiki/`` with a quickstart and ``--pages`` pages (default 1,000) in folders of 50, each
folder with its generated ``index.md``; each page has OKF front matter (type, title,
description, tags, generated, sources), three sections, links to two other pages (one to a
heading), a footnote, and every tenth a promoted claim with its citation; ``.agents/skills/``
with ``--skills`` skills (default 200) whose ``SKILL.md`` follows the Agent Skills rules.

Both sides run ``pre-commit run --all-files`` in fresh processes, interleaved, ``--repeat``
times (medians reported):

- baseline: one hook whose entry is ``true`` over the wiki and skills files;
- target: gitstore's file gates (``gitstore-okf``, ``gitstore-skills``, ``gitstore-scan``)
  as ``.pre-commit-hooks.yaml`` declares them, run from this environment's console scripts.

A second line compares with three no-op hooks (one per gate), and a third shows each gate alone.
Every process caches its bytecode in a temporary ``PYTHONPYCACHEPREFIX`` (filled by the warm-up
round), with ``PYTHONDONTWRITEBYTECODE`` dropped: a hook repository pre-commit installs has its
``.pyc`` files, so a gate that compiled its modules at every start would be charged for work no
user's gate does (this environment sets ``PYTHONDONTWRITEBYTECODE``, and gitstore is installed
editable here). Both sides run with the same environment.
Exit code 0 whatever the ratio; 1 when a gate finds anything in the (valid) input.
``python -m bench promote --quick`` is a smoke test with 20 pages and 5 skills, timed once (the run that
checks the gates pass, no warm-up before it).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ruamel.yaml import YAML

from bench._process import pycache_prefix
from gitstore.promote.okf import render_index_page

ROOT = Path(__file__).resolve().parents[1]
GATES = ("gitstore-okf", "gitstore-skills", "gitstore-scan")
FILES = r"^(okf/wiki/|\.agents/skills/)"
GOAL = 3.0
FOLDER = 50
TOPICS = ("retries", "storage", "capture", "review", "recall", "promotion", "sync", "safety", "consent", "audit")


def _page(n: int, pages: int, source: str) -> str:
    topic = TOPICS[n % len(TOPICS)]
    other, third = (n + 1) % pages, (n + 7) % pages
    promoted = ""
    if n % 10 == 0:
        digest = f"{n:064x}"
        promoted = (f"\n<!-- gitstore:promoted lrn_{n:032x} sha256:{digest} -->\n"
                    f"Every {topic} step in page {n} is retried with full jitter.\n"
                    f"Cited: `src/{topic}.py@{source}`; `lrn_{n:032x}@sha256:{digest}`.\n")
    return (
        f"---\ntype: Guide\ntitle: {topic.title()} note {n}\n"
        f"description: How {topic} works in part {n} of the system.\n"
        f"tags: [{topic}, part-{n % 7}]\n"
        f"generated: {{ by: process:bench, at: 2026-06-30T14:00:00Z }}\n"
        f"sources:\n  - id: src\n    resource: https://example.com/{topic}/{n}\n    title: Notes on {topic}\n---\n\n"
        f"# {topic.title()} note {n}\n\n## Overview\n\n"
        f"This page explains how {topic} behaves in part {n}, with its limits and defaults.[^src] "
        f"See [the next note]({_link(n, other)}) and [its details]({_link(n, third)}#details).\n\n"
        f"## Details\n\nThe {topic} path keeps a bounded queue, retries twice, and reports every failure.\n"
        f"{promoted}\n## Limits\n\n- at most {n % 100 + 1} items\n- at most one writer per ref\n\n"
        f"[^src]: Notes on {topic}\n"
    )


def _path(n: int) -> str:
    return f"part-{n // FOLDER:03d}/note-{n:04d}.md"


def _link(n: int, target: int) -> str:
    here, there = _path(n).split("/"), _path(target).split("/")
    return there[1] if here[0] == there[0] else f"../{there[0]}/{there[1]}"


def _skill(n: int) -> str:
    return (f"---\nname: skill-{n:03d}\ndescription: Runs step {n} of the release checklist and reports what "
            f"it changed. Use when releasing.\nlicense: MIT\n---\n\n# Skill {n}\n\n1. Run the tests.\n2. Tag.\n")


def build(root: Path, pages: int, skills: int) -> None:
    """The sources the promoted claims cite, committed; then the wiki and the skills, committed."""
    (root / "src").mkdir(parents=True, exist_ok=True)
    for topic in TOPICS:
        (root / "src" / f"{topic}.py").write_text(f"def {topic}():\n    pass\n", encoding="utf-8")
    _git(root, "add", "src")
    _git(root, "commit", "-q", "-m", "bench sources")
    source = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, check=True, capture_output=True,
                            text=True).stdout.strip()
    wiki = root / "okf" / "wiki"
    for n in range(pages):
        path = wiki / _path(n)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_page(n, pages, source), encoding="utf-8")
    (wiki / "quickstart.md").write_text("---\ntype: Guide\ntitle: Quickstart\ndescription: Start here.\n---\n\n"
                                        "# Quickstart\n\nStart with [the first note](part-000/note-0000.md).\n")
    for folder in [wiki, *sorted(p for p in wiki.iterdir() if p.is_dir())]:
        (folder / "index.md").write_text(render_index_page(wiki, folder), encoding="utf-8")
    for n in range(skills):
        path = root / ".agents" / "skills" / f"skill-{n:03d}" / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(_skill(n), encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "bench wiki")


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
           "GIT_AUTHOR_DATE": "2026-06-30T14:00:00Z", "GIT_COMMITTER_DATE": "2026-06-30T14:00:00Z"}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _hooks() -> list[dict[str, object]]:
    """The file gates as .pre-commit-hooks.yaml declares them, run from this environment."""
    declared = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    bin_dir = Path(sys.executable).parent
    hooks = []
    for hook in declared:
        if hook["id"] in GATES:
            local = {k: v for k, v in hook.items() if k not in ("description", "stages")}
            local.update(language="system", entry=str(bin_dir / hook["entry"]))
            hooks.append(local)
    return hooks


def _config(path: Path, hooks: list[dict[str, object]]) -> None:
    YAML().dump({"repos": [{"repo": "local", "hooks": hooks}]}, path)


def _noop(index: int) -> dict[str, object]:
    return {"id": f"noop-{index}", "name": f"no-op {index}", "entry": "true", "language": "system", "files": FILES}


def _run(root: Path, config: Path, home: Path) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """(wall seconds, CPU seconds of pre-commit and every process it ran, the outcome)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never", PYTHONPYCACHEPREFIX=pycache_prefix(home / "pycache"))
    command = [sys.executable, "-m", "pre_commit", "run", "--all-files", "--config", str(config)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done


def _verdict(ratio: float) -> str:
    return "goal met" if ratio <= GOAL else "GOAL NOT MET"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench promote")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--pages", type=int, default=None)
    parser.add_argument("--skills", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=None)
    args = parser.parse_args(argv)
    pages = args.pages or (20 if args.quick else 1000)
    skills = args.skills or (5 if args.quick else 200)
    repeat = args.repeat or (1 if args.quick else 7)
    folder = Path(tempfile.mkdtemp(prefix="gitstore-bench-promote-"))
    try:
        return _measure(folder, pages, skills, repeat, warm=not args.quick)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _measure(folder: Path, pages: int, skills: int, repeat: int, warm: bool = True) -> int:
    """Time each configuration ``repeat`` times; unless ``warm``, the first run (which checks the
    gates pass the valid input) is one of them instead of a warm-up."""
    root, home = folder / "repo", folder / "pre-commit-home"
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    build(root, pages, skills)
    configs = {"gates": folder / "gates.yaml", "noop": folder / "noop.yaml", "noop3": folder / "noop3.yaml"}
    _config(configs["gates"], _hooks())
    _config(configs["noop"], [_noop(0)])
    _config(configs["noop3"], [_noop(i) for i in range(3)])
    for gate in _hooks():
        configs[str(gate["id"])] = folder / f"{gate['id']}.yaml"
        _config(configs[str(gate["id"])], [gate])
    walls: dict[str, list[float]] = {name: [] for name in configs}
    cpus: dict[str, list[float]] = {name: [] for name in configs}
    for name, config in configs.items():  # warm up, and check the gates pass the valid input
        wall, cpu, done = _run(root, config, home)
        if done.returncode != 0:
            print(f"promote: {name} failed on valid input:\n{done.stdout}{done.stderr}", file=sys.stderr)
            return 1
        if not warm:
            walls[name].append(wall)
            cpus[name].append(cpu)
    for _ in range(repeat if warm else repeat - 1):
        for name, config in configs.items():
            wall, cpu, _ = _run(root, config, home)
            walls[name].append(wall)
            cpus[name].append(cpu)
    median = {name: statistics.median(values) for name, values in walls.items()}
    cpu = {name: statistics.median(values) for name, values in cpus.items()}
    ratio = median["gates"] / median["noop"]
    cpu_ratio = cpu["gates"] / cpu["noop"]
    print(f"promote: gates over {pages} pages and {skills} skills {median['gates']:.3f}s, pre-commit run of a "
          f"no-op hook over the same files {median['noop']:.3f}s, ratio {ratio:.2f}x (cpu {cpu_ratio:.2f}x; "
          f"goal <= {GOAL:g}x): {_verdict(ratio)}")
    print(f"promote: against three no-op hooks (one per gate) {median['noop3']:.3f}s, ratio "
          f"{median['gates'] / median['noop3']:.2f}x (cpu {cpu['gates'] / cpu['noop3']:.2f}x; reported, no goal)")
    alone = ", ".join(f"{gate} {median[gate]:.3f}s (cpu {cpu[gate]:.3f}s)" for gate in GATES)
    print(f"promote: each gate alone through pre-commit: {alone} (reported, no goal)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
