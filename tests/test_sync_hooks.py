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


def _older_config() -> str:
    """The configuration an older ``gitstore ci init`` wrote (before the file gates ran on every
    commit: no ``always_run`` on gitstore-okf, gitstore-skills, gitstore-scan; the wiki's pages
    by type, the skills' names case-sensitively), with a person's own comment, exclude and hook."""
    older = gates_config()
    for hook in ("gitstore-okf", "gitstore-skills", "gitstore-scan"):
        start = older.index(f"  - id: {hook}\n")
        at = older.index("    always_run: true\n", start)
        older = older[:at] + older[at + len("    always_run: true\n"):]
    older = older.replace("types_or: [file, symlink]", "types_or: [markdown, symlink]", 1)
    older = older.replace(r"files: (?i)(^|/)SKILL\.md$", r"files: (^|/)SKILL\.md$")
    older = older.replace("  - id: gitstore-scan\n", "  # ours: vendored code is scanned upstream\n"
                                                     "  - id: gitstore-scan\n    exclude: ^vendor/  # theirs\n")
    assert older.count("always_run") == 2 and "markdown" in older and "(?i)" not in older, older
    return older + "- repo: local\n  hooks:\n  - id: lint\n    name: lint\n    entry: make lint\n    language: system\n"


def test_ci_init_brings_an_older_configs_gitstore_hooks_up_to_date_in_place(tmp_path: Path) -> None:
    """An older ``gitstore ci init`` wrote gitstore's hooks without ``always_run``: a second run
    updates each in place (a differing file is otherwise refused), keeping the person's comment,
    exclude and hook, and the doctor names that command until then."""
    from gitstore.queries.doctor import Report, _gates_config
    from gitstore.sync.ci import init_ci

    older = _older_config()
    (tmp_path / GATES_CONFIG).parent.mkdir(parents=True)
    (tmp_path / GATES_CONFIG).write_text(older)
    before = Report()
    _gates_config(before, tmp_path)
    [warning] = before.checks
    assert "gitstore-okf (types_or, always_run); gitstore-skills (files, always_run); gitstore-scan (always_run)" \
        in warning.detail, warning.detail
    assert warning.todo.startswith("`gitstore ci init`"), warning.todo
    report = init_ci(tmp_path, Options("git+https://github.com/acme/gitstore@v0.1.0"))
    assert {"path": GATES_CONFIG.as_posix(), "action": "updated"} in report.files
    text = (tmp_path / GATES_CONFIG).read_text()
    for kept in ("# ours: vendored code is scanned upstream\n", "exclude: ^vendor/  # theirs\n",
                 "- repo: local\n  hooks:\n  - id: lint\n    name: lint\n    entry: make lint\n    language: system\n",
                 "# gitstore's gates for pre-commit"):
        assert kept in text, text
    hooks = {h["id"]: h for repo in YAML(typ="safe").load(text)["repos"] for h in repo["hooks"]}
    for theirs in manifest():
        assert {k: v for k, v in hooks[theirs["id"]].items() if k != "exclude"} == {**theirs, "language": "system"}
    after = Report()
    _gates_config(after, tmp_path)
    assert after.checks == []
    assert init_ci(tmp_path, Options("git+https://github.com/acme/gitstore@v0.1.0")).files[-1]["action"] == "unchanged"


def test_an_older_configs_wiki_gate_skips_a_deleted_page_until_ci_init_runs_again(tmp_path: Path) -> None:
    """With an older configuration pre-commit skips gitstore-okf when a change deletes a page (it
    passes no deleted path), so deleting INSTRUCTIONS.md passed; after ``gitstore ci init`` the
    gate runs and refuses it."""
    from gitstore.sync.ci import init_ci

    root = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(root))
    (root / "okf/wiki").mkdir(parents=True)
    (root / "okf/wiki/INSTRUCTIONS.md").write_text("# Instructions\n")
    (root / GATES_CONFIG).parent.mkdir(parents=True)
    (root / GATES_CONFIG).write_text(_older_config())
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "wiki")
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "rm", "-q", "okf/wiki/INSTRUCTIONS.md")
    git(root, "commit", "-q", "-m", "no instructions")
    head = git(root, "rev-parse", "HEAD").strip()
    skipped = _gates_step(root, base, head)
    assert "gitstore OKF wiki" in skipped.stdout and "(no files to check)Skipped" in skipped.stdout, skipped.stdout
    init_ci(root, Options("git+https://github.com/acme/gitstore@v0.1.0"))
    git(root, "commit", "-q", "-m", "gates: up to date", "--", GATES_CONFIG.as_posix())
    refused = _gates_step(root, base, head)
    assert refused.returncode == 1
    assert "okf/wiki/INSTRUCTIONS.md:1: INSTRUCTIONS.md is preserved byte for byte and may not be deleted" \
        in refused.stdout, refused.stdout
