"""The CI's pre-commit configuration (``.github/gitstore-pre-commit.yaml``): every gate of the
hooks manifest as a local system hook, run by the real pre-commit framework as the gates
workflow runs it, passing a promotion commit and failing a forged one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

from gitstore.ops.promote import promote
from gitstore.sync.ci import GATES, GATES_CONFIG, Options, gates_config, gates_workflow
from gitstore.sync.hooks import manifest

from .promotion_world import PERSON, accepted_learning, git, wiki_repo
from .test_promote_provenance import forge


def test_every_gate_of_the_manifest_is_a_local_system_hook() -> None:
    config = YAML(typ="safe").load(gates_config())
    [repo] = config["repos"]
    assert repo["repo"] == "local"
    assert [h["id"] for h in repo["hooks"]] == [h["id"] for h in manifest()]
    for ours, theirs in zip(repo["hooks"], manifest()):
        assert ours == {**theirs, "language": "system"}
        assert "manual" in ours.get("stages", ["manual"]), "the gates workflow runs the manual stage"


def _gates_step(root: Path, base: str, head: str) -> subprocess.CompletedProcess[str]:
    script = YAML(typ="safe").load(gates_workflow(Options("git+https://github.com/acme/gitstore@v0.1.0"), True, True))["jobs"]["gates"]["steps"]
    run = next(s["run"] for s in script if s.get("name", "").startswith("Gates"))
    env = {**os.environ, "BASE_SHA": base, "HEAD_SHA": head, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["bash", "-e", "-c", run], cwd=root, env=env, capture_output=True, text=True)


def test_the_gates_step_passes_a_promotion_and_fails_a_forgery(tmp_path: Path) -> None:
    ctx = wiki_repo(tmp_path / "widgets")
    learning = accepted_learning(ctx)
    result = promote(ctx, learning["id"], PERSON)
    root = ctx.workspace.root
    base = git(root, "rev-parse", "main").strip()
    (root / GATES_CONFIG).parent.mkdir(parents=True, exist_ok=True)
    (root / GATES_CONFIG).write_text(gates_config())
    git(root, "checkout", "-q", result.branch)
    passed = _gates_step(root, base, result.commit)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "gitstore promotion commits" in passed.stdout and "Passed" in passed.stdout
    git(root, "checkout", "-q", "main")
    forged = forge(root, result.branch, learning)
    git(root, "checkout", "-q", "forged")
    failed = _gates_step(root, base, forged)
    assert failed.returncode == 1
    assert "differs from the packet's contentDigest" in failed.stdout
    assert GATES.name == "gitstore-gates.yml"
