"""``gitstore dream`` on the command line: the report, --json, --explain, exit codes, and the loop
from import to dream to accept that the quickstart shows."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gitstore.cli import COMMANDS, main
from gitstore.providers.git import records_ref

from . import dream_world as w
from .cli import gitstore


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ctx = w.repo(tmp_path)
    w.jitter_theme(ctx)
    monkeypatch.chdir(ctx.workspace.root)
    return ctx.workspace.root


def test_dream_prints_the_report_and_json(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dream", "--dry-run", "--by", "github:9"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dream complete (dry run): updated, 1 would propose, 0 held back, 0 rejected")
    assert "window: complete" in out
    assert main(["dream", "--json", "--by", "github:9"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "complete" and data["proposed"][0]["theme"] == "backoff-jitter-retry"
    assert main(["dream", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["result"] == "no-update"


def test_window_and_tidy_options(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dream", "--json", "--dry-run", "--no-tidy", "--since", "2026-03-02T10:15:00Z"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["consolidators"] == ["recurrence"] and data["view"]["evidence"] == 1
    assert data["since"] == "2026-03-02T10:15:00.000000Z"


def test_explain(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dream", "--explain", "backoff-jitter-retry"]) == 0
    out = capsys.readouterr().out
    assert "explain backoff-jitter-retry:" in out and "theme backoff-jitter-retry: proposed" in out
    assert out.count("asks-for") == 3


def _memory(root: Path) -> tuple[str, list[str]]:
    """Every memory ref (personal ones too) and every file under okf/.memory/: what a dream could write."""
    refs = "".join(subprocess.run(["git", "for-each-ref"], cwd=where, capture_output=True, text=True, check=True).stdout
                   for where in (root, root / ".git" / "gitstore" / "local") if where.exists())
    return refs, sorted(str(p.relative_to(root)) for p in (root / "okf" / ".memory").rglob("*"))


def test_explain_is_a_dry_run_that_stores_nothing(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--explain's help says it is a dry run: no labels, proposals or report are kept."""
    before = _memory(repo)
    assert main(["dream", "--explain", "jitter", "--by", "github:9", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dryRun"] is True and report["proposed"][0]["theme"] == "backoff-jitter-retry"
    assert _memory(repo) == before
    assert main(["dream", "--by", "github:9"]) == 0
    assert _memory(repo) != before, "the same dream without --explain stores its proposal"


@pytest.mark.parametrize("args, code, message", [
    (["dream", "--since", "yesterday"], 2, "'--since': 'yesterday' is neither a time"),
    (["dream", "--labeler", "oracle"], 2, "unknown labeler 'oracle'"),
    (["dream", "--consolidator", "oracle"], 2, "unknown consolidator 'oracle'"),
    (["dream", "--purpose", "marketing"], 2, "unknown purpose 'marketing'"),
    (["learnings", "--purpose", "marketing"], 2, "unknown purpose 'marketing' (one of review, instruction,"),
    (["learnings", "--active", "--purpose", "bogus"], 2, "unknown purpose 'bogus'"),
    (["show", "lrn_" + "0" * 32, "--purpose", "bogus"], 2, "unknown purpose 'bogus'"),
    (["episodes", "--source", "bogus"], 2, "unknown source 'bogus' (one of review-thread, agent-session, manual)"),
])
def test_bad_options_are_one_line_errors(repo: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                         code: int, message: str) -> None:
    assert main(args) == code
    err = capsys.readouterr().err
    assert err.startswith("gitstore: error: ") and message in err and err.count("\n") == 1


def test_outside_a_store_the_dream_is_blocked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["dream", "--by", "github:9"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("gitstore: error: dream blocked: no readable store:") and err.count("\n") == 1
    assert main(["dream", "--by", "github:9", "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and json.loads(err)["code"] == 2 and err.count("\n") == 1


@pytest.mark.parametrize("damage,code,why", [
    ("not set up", 2, "dream blocked: no readable store: gitstore is not set up in "),
    ("records ref at a tree", 3, "dream blocked: the store cannot be read: refs/memory/v1/records/shared/"),
])
def test_a_blocked_dream_under_json_is_an_error_with_nothing_on_stdout(tmp_path: Path, damage: str, code: int,
                                                                       why: str) -> None:
    """A --json reader gets one JSON document on standard output, or none and the error."""
    if damage == "not set up":
        root = tmp_path / "widgets"
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    else:
        ctx = w.repo(tmp_path)
        w.jitter_theme(ctx)
        root = ctx.workspace.root
        ref = records_ref("shared", ctx.workspace.config.writer)
        tree = subprocess.run(["git", "rev-parse", f"{ref}^{{tree}}"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
        subprocess.run(["git", "update-ref", ref, tree], cwd=root, check=True)
    done = gitstore("dream", "--json", "--by", "github:9", cwd=root)
    assert (done.returncode, done.stdout) == (code, ""), done.stdout
    assert done.stderr.count("\n") == 1 and json.loads(done.stderr)["code"] == code
    assert json.loads(done.stderr)["error"].startswith(why), done.stderr
    text = gitstore("dream", "--by", "github:9", cwd=root)
    assert (text.returncode, text.stdout, text.stderr) == (code, "", f"gitstore: error: {json.loads(done.stderr)['error']}\n")


def test_a_degraded_dream_exits_one(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gitstore.ops.setup import init

    config = repo / "okf" / ".memory" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "dream": {"labeler": "command"}}))
    init(repo, accept_changes=True)
    assert main(["dream", "--by", "github:9"]) == 1
    assert capsys.readouterr().out.startswith("dream degraded")


def test_a_labeler_named_that_cannot_run_is_one_line_with_exit_one(repo: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dream", "--labeler", "command", "--by", "github:9"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == ("gitstore: error: dream blocked: labeler command unavailable: no program "
                                 "configured (dream.labelers.command.argv in okf/.memory/config.json)\n"), err


def test_the_summary_in_the_command_table_is_the_help_s_first_line() -> None:
    from gitstore.cli.dream import dream

    assert COMMANDS["dream"] == ("dream", (dream.__doc__ or "").splitlines()[0])


def _snapshot(pr: int, comments: list[tuple[int, int, str]]) -> dict:  # type: ignore[type-arg]
    body = [{"id": cid, "user": {"id": user, "login": f"u{user}"}, "body": text, "path": "src/retry.py", "line": 3,
             "created_at": f"2026-03-0{pr % 9 + 1}T10:00:00Z", "updated_at": f"2026-03-0{pr % 9 + 1}T10:00:00Z",
             "in_reply_to_id": None, "commit_id": f"{pr:040x}"} for cid, user, text in comments]
    return {"format": "gitstore.github-snapshot/1", "repository": "acme/widgets", "pullRequest": pr,
            "head": {"ref": f"feature/{pr}", "sha": f"{pr:040x}"},
            "responses": [{"collection": "pull-comments", "page": 1, "link": "", "body": body},
                          {"collection": "reviews", "page": 1, "link": "", "body": []},
                          {"collection": "issue-comments", "page": 1, "link": "", "body": []}]}


def test_the_loop_from_import_to_dream_to_accept(tmp_path: Path) -> None:
    from .world import ready_repo

    root = ready_repo(tmp_path / "widgets").workspace.root

    def gitstore(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "gitstore", *args], cwd=root, capture_output=True, text=True)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    for n, (_, _, text) in enumerate(w.JITTER):
        pr, cid, user = 12 + n, 501 + n, 1001 + n
        path = tmp_path / f"pr-{pr}.json"
        path.write_text(json.dumps(_snapshot(pr, [(cid, user, text)])))
        gitstore("import", "reviews", str(path), "--by", "github:9")
    gitstore("grant", "--purpose", "instruction", "--source", "review-thread", "--from", "2026-01-01T00:00:00.000000Z",
             "--by", "github:9")
    report = json.loads(gitstore("dream", "--by", "github:9", "--json"))
    [proposal] = report["proposed"]
    shown = gitstore("show", proposal["id"])
    assert proposal["reviewDigest"] in shown and "audience project" in shown
    gitstore("accept", proposal["id"], "--review-digest", proposal["reviewDigest"], "--by", "github:9")
    active = json.loads(gitstore("learnings", "--active", "--json"))
    assert [row["id"] for row in active] == [proposal["id"]]
    assert "memory already holds every theme" in gitstore("dream", "--by", "github:9")


def test_status_shows_the_dream_settings_and_a_bad_one(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status"]) == 0
    assert "dream.labeler = lexical; dream.consolidator = recurrence" in capsys.readouterr().out
    config = json.loads((repo / "okf" / ".memory" / "config.json").read_text())
    config["dream"] = {"labeller": "lexical"}
    (repo / "okf" / ".memory" / "config.json").write_text(json.dumps(config))
    assert main(["status"]) == 0
    assert "dream has an unknown field 'labeller'" in capsys.readouterr().out
    assert main(["dream"]) == 1
    assert "dream has an unknown field 'labeller'" in capsys.readouterr().err


def _limited(limit: int) -> None:
    """In a child process: files may grow to ``limit`` bytes, as on a disk about to fill."""
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def test_a_report_the_disk_cannot_hold_is_named_and_left_neither_half_written_nor_as_a_temporary(repo: Path) -> None:
    assert main(["dream", "--by", "github:9"]) == 0
    reports = repo / "okf" / ".memory" / "dreams"
    before = {p.name: p.read_bytes() for p in reports.iterdir()}
    done = subprocess.run([sys.executable, "-m", "gitstore", "dream", "--by", "github:9", "--json"], cwd=repo,
                          capture_output=True, text=True, preexec_fn=lambda: _limited(1024), timeout=120)
    assert done.returncode == 1 and done.stdout == "", done.stderr
    error = json.loads(done.stderr)["error"]
    assert error.startswith("File too large (") and f"{reports}{'/'}" in error and error.endswith("-instruction.json)")
    assert {p.name: p.read_bytes() for p in reports.iterdir()} == before


def test_explain_says_why_when_no_evidence_may_serve_the_purpose(repo: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Before any grant permits a purpose, --explain said nothing of the theme asked about."""
    assert main(["dream", "--explain", "jitter", "--purpose", "analytics"]) == 0
    out = capsys.readouterr().out
    assert "explain jitter:\n  no theme can form: no evidence may serve analytics (" in out, out
    assert main(["dream", "--explain", "jitter", "--purpose", "analytics", "--json"]) == 0
    explained = json.loads(capsys.readouterr().out)["explain"]
    assert explained["asked"] == "jitter" and explained["themes"] == []
    assert explained["note"].startswith("no theme can form: no evidence may serve analytics")
