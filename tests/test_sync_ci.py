"""``gitstore ci init``: the workflows validate against the published GitHub Actions schema, say
what they must (tokens, explicit memory fetch), leave out what this gitstore cannot do, keep an
edited file; and the memory workflow's own shell steps, run with bash against a real bare
remote from a checkout made as actions/checkout makes it, import, append as one writer across
runs, and push fast-forward."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

from gitstore.cli import main
from gitstore.errors import InvalidInput, UsageError
from gitstore.context import Context
from gitstore.providers._names import fetch_refspecs
from gitstore.queries.verify import verify
from gitstore.sync import ci
from gitstore.sync.ci import GATES, MEMORY, Options, gates_workflow, init_ci, memory_workflow, report_body

from .conftest import shared
from .github_server import REPO, FakeGitHub, recorded, serve
from .world import ready_repo

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "github-workflow.json").read_text())
ORIGIN = f"https://github.com/{REPO}.git"
INSTALL = "git+https://github.com/acme/gitstore@v0.1.0"
OPTIONS = Options(INSTALL)


def load(text: str) -> dict[str, Any]:
    return YAML(typ="safe").load(text)


def steps_of(workflow: dict[str, Any]) -> dict[str, dict[str, Any]]:
    job = next(iter(workflow["jobs"].values()))
    return {s.get("name") or s["uses"]: s for s in job["steps"]}


@pytest.mark.parametrize("dream,sync", [(False, False), (True, False), (True, True)])
def test_the_memory_workflow_validates_and_says_what_it_must(dream: bool, sync: bool) -> None:
    text = memory_workflow(OPTIONS, dream, sync)
    workflow = load(text)
    jsonschema.Draft7Validator(SCHEMA).validate(workflow)
    assert workflow["on"]["schedule"] == [{"cron": "17 4 * * *"}] and "workflow_dispatch" in workflow["on"]
    assert workflow["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert "trigger no other workflows" in text and "GITSTORE_APP_PRIVATE_KEY" in text
    steps = steps_of(workflow)
    if sync:
        assert "Fetch the memory refs" not in steps and "gitstore sync origin" in steps["Sync the memory refs"]["run"]
    else:
        fetch = steps["Fetch the memory refs"]["run"]
        assert all(f"'{spec}'" in fetch for spec in fetch_refspecs("origin")), "init's refspecs, explicitly"
    assert ("Open or update the memory pull request" in steps) == dream
    assert ("has no dream stage" in text) == (not dream)
    if dream:
        opened = steps["Open or update the memory pull request"]["run"]
        assert "gh pr create" in opened and "gh pr edit" in opened and "gitstore ci report" in opened


@pytest.mark.parametrize("gates,provenance", [(True, True), (False, True), (True, False)])
def test_the_gates_workflow_validates(gates: bool, provenance: bool) -> None:
    workflow = load(gates_workflow(OPTIONS, gates, provenance))
    jsonschema.Draft7Validator(SCHEMA).validate(workflow)
    assert list(workflow["on"]) == ["pull_request"] and workflow["permissions"] == {"contents": "read"}
    steps = steps_of(workflow)
    assert steps["actions/checkout@v4"]["with"] == {"fetch-depth": 0, "persist-credentials": False}
    assert "Fetch the memory refs" in steps
    assert ("Gates (pre-commit with gitstore's hooks)" in steps) == gates
    assert ("Provenance of promoted learnings" in steps) == provenance


GIT_STEPS = {"Name the default branch (the policy is read there)", "Fetch the memory refs",
             "Set up gitstore as this workflow's writer, and sync", "Push the memory refs", "Sync the memory refs",
             "Open or update the memory pull request"}


def _workflows() -> list[tuple[str, dict[str, Any]]]:
    return [*((f"memory dream={d} sync={y}", load(memory_workflow(OPTIONS, d, y)))
              for d, y in ((False, False), (True, False), (True, True))),
            *((f"gates {g} {p}", load(gates_workflow(OPTIONS, g, p))) for g, p in ((True, True), (False, True)))]


def test_no_checkout_keeps_the_token_and_only_the_steps_that_fetch_or_push_are_given_it() -> None:
    """A checkout's token left in .git/config is within reach of every later step, the dream's
    labeler (a model's CLI reading anyone's review comments, in this folder) included: each
    checkout keeps none, and the token is in the environment of the steps that fetch, push or
    open the pull request (and the import's, for the REST API) alone."""
    for name, workflow in _workflows():
        job = next(iter(workflow["jobs"].values()))
        checkouts = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@")]
        assert checkouts and all(s["with"]["persist-credentials"] is False for s in checkouts), name
        assert not any("token" in str(v).lower() for v in job.get("env", {}).values()), name
        for step in job["steps"]:
            env = step.get("env", {})
            tokens = {k for k, v in env.items() if "token" in str(v).lower() and "${{" in str(v)}
            label = step.get("name") or step["uses"]
            if label in GIT_STEPS:
                assert {"GITSTORE_GIT_TOKEN", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"} <= set(env)
                assert tokens - {"GH_TOKEN"} == {"GITSTORE_GIT_TOKEN"}, (name, label)
            elif label == "Import the pull requests' review comments":
                assert tokens == {"GITHUB_TOKEN"} and not any(k.startswith("GIT_CONFIG") for k in env), (name, label)
            else:
                assert not tokens and not any(k.startswith("GIT_CONFIG") for k in env), (name, label)
        if name.startswith("memory dream=True"):
            assert "env" not in steps_of(workflow)["Dream"]


def test_the_credential_helper_answers_with_the_step_s_token_for_the_server_alone(tmp_path: Path) -> None:
    """What git runs in a step given the token: ``git credential fill`` gets it for the server
    the workflow runs on, and nothing for another host."""
    workflow = load(memory_workflow(OPTIONS, True, False))
    env = steps_of(workflow)["Push the memory refs"]["env"]
    filled = {k: str(v).replace("${{ github.server_url }}", "https://github.com")
              .replace("${{ steps.app.outputs.token || github.token }}", "ghs_step") for k, v in env.items()}
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    base.update(HOME=str(tmp_path), GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", **filled)

    def fill(host: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", "credential", "fill"], input=f"protocol=https\nhost={host}\n\n", env=base,
                              cwd=tmp_path, capture_output=True, text=True)

    asked = fill("github.com")
    assert asked.returncode == 0 and "username=x-access-token\npassword=ghs_step\n" in asked.stdout, asked
    elsewhere = fill("evil.example")
    assert "ghs_step" not in elsewhere.stdout and elsewhere.returncode != 0, elsewhere


def test_the_memory_pull_request_is_opened_from_the_default_branch_alone() -> None:
    """A run dispatched on another branch has that branch checked out: the pull request's
    commit would carry its commits, unreviewed, into the default branch. The step runs on the
    default branch alone (a scheduled run is on it) and names it as the base."""
    for sync in (False, True):
        step = steps_of(load(memory_workflow(OPTIONS, True, sync)))["Open or update the memory pull request"]
        conditions = [c.strip() for c in step["if"].split("&&")]
        assert conditions[0] == "github.ref_name == env.DEFAULT_BRANCH", step["if"]
        assert "steps.dream.outputs.proposed != '0'" in conditions
        assert "gh pr create --head 'gitstore/memory' --base \"$DEFAULT_BRANCH\"" in step["run"]
    job = load(memory_workflow(OPTIONS, True, False))["jobs"]["memory"]
    assert job["env"]["DEFAULT_BRANCH"] == "${{ github.event.repository.default_branch || github.ref_name }}"


def test_the_app_token_is_limited_to_what_the_memory_workflow_does() -> None:
    app = steps_of(load(memory_workflow(OPTIONS, True, False)))["App token (optional; see the comment at the top)"]
    assert app["uses"].startswith("actions/create-github-app-token@")
    assert {k: v for k, v in app["with"].items() if k.startswith("permission-")} == {
        "permission-contents": "write", "permission-pull-requests": "write"}
    assert "owner" not in app["with"] and "repositories" not in app["with"], "this repository alone"


def test_a_command_failing_in_a_pipe_fails_its_step(tmp_path: Path) -> None:
    """A step's script runs in the workflow's default shell: bash, which GitHub runs as
    ``bash --noprofile --norc -eo pipefail``, so provenance failing as it writes the job
    summary through tee fails the step (the shell GitHub uses without it hides the exit)."""
    for _, workflow in _workflows():
        assert workflow["defaults"] == {"run": {"shell": "bash"}}
        job = next(iter(workflow["jobs"].values()))
        assert not any("shell" in step for step in job["steps"]), "no step goes back to sh"
    gates = steps_of(load(gates_workflow(OPTIONS, True, True)))["Provenance of promoted learnings"]
    assert "| tee -a" in gates["run"]
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "gitstore").write_text("#!/bin/sh\necho '| commit |'\nexit 1\n")
    (bin_ / "gitstore").chmod(0o755)
    script = tmp_path / "step.sh"
    script.write_text(gates["run"])
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}", "BASE_SHA": "a", "HEAD_SHA": "b",
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 1 and (tmp_path / "summary.md").read_text() == "| commit |\n"


def test_the_schema_is_not_a_rubber_stamp() -> None:
    workflow = load(memory_workflow(OPTIONS, True, False))
    workflow["jobs"]["memory"]["steps"][0]["uses"] = 3
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(SCHEMA).validate(workflow)


def test_init_writes_keeps_an_edited_file_and_replaces_it_when_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    assert main(["ci", "init", "--install", INSTALL, "--writer", "ci-nightly", "--cron", "0 3 * * 1"]) == 0
    out = capsys.readouterr().out
    assert f"created   {MEMORY.as_posix()}" in out
    written = (root / MEMORY).read_text()
    assert f"pip install '{INSTALL}'" in written
    assert f"pip install '{INSTALL}'" in (root / GATES).read_text(), "both workflows install what --install names"
    assert "GITSTORE_WRITER: ci-nightly" in written and '- cron: "0 3 * * 1"' in written
    if not ci.have("dream"):
        assert "left out: dream and the memory pull request: this gitstore has no dream stage" in out
    assert main(["ci", "init", "--install", INSTALL, "--writer", "ci-nightly", "--cron", "0 3 * * 1", "--json"]) == 0
    assert {f["action"] for f in json.loads(capsys.readouterr().out)["files"]} == {"unchanged"}
    (root / MEMORY).write_text(written.replace("timeout-minutes: 30", "timeout-minutes: 60"))
    assert main(["ci", "init", "--install", INSTALL]) == 1
    assert "differ from what gitstore would write (edited?); --force replaces them" in capsys.readouterr().err
    assert "timeout-minutes: 60" in (root / MEMORY).read_text(), "an edited workflow is kept"
    assert main(["ci", "init", "--install", INSTALL, "--force"]) == 0
    assert "replaced  .github/workflows/gitstore-memory.yml" in capsys.readouterr().out


def test_init_never_writes_through_a_link_leading_out_of_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A commit can make .github a link to a folder of the user's elsewhere: the workflows would
    be written there, over whatever it holds."""
    root, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (elsewhere / "workflows").mkdir(parents=True)
    (root / ".github").symlink_to(elsewhere, target_is_directory=True)
    subprocess.run(["git", "-C", str(root), "add", ".github"], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-q", "-m", "link"], check=True)
    monkeypatch.chdir(root)
    assert main(["ci", "init", "--install", INSTALL]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ".github is a link to" in err and "outside the repository" in err, err
    assert list((elsewhere / "workflows").iterdir()) == []
    inner = root / "config" / "github"
    inner.mkdir(parents=True)
    (root / ".github").unlink()
    (root / ".github").symlink_to(inner, target_is_directory=True)
    assert main(["ci", "init", "--install", INSTALL]) == 0, "a link within the work tree is the team's"
    assert (inner / "workflows" / MEMORY.name).is_file()
    capsys.readouterr()


def test_init_s_defaults_are_the_ones_its_help_shows_and_since_reaches_the_import(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """--writer ci-github, --cron "17 4 * * *" and --since 3d by default, as --help shows them."""
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    assert main(["ci", "init", "--install", INSTALL]) == 0
    workflow = load((root / MEMORY).read_text())
    assert workflow["on"]["schedule"] == [{"cron": "17 4 * * *"}]
    env = next(iter(workflow["jobs"].values()))["env"]
    assert env["GITSTORE_WRITER"] == "ci-github" and env["SINCE"] == "${{ inputs.since || '3d' }}"
    assert main(["ci", "init", "--install", INSTALL, "--since", "12h", "--force"]) == 0
    env = next(iter(load((root / MEMORY).read_text())["jobs"].values()))["env"]
    assert env["SINCE"] == "${{ inputs.since || '12h' }}"
    assert '--since "$SINCE"' in steps_of(load((root / MEMORY).read_text()))["Import the pull requests' review comments"]["run"]
    capsys.readouterr()


@pytest.mark.parametrize("options,message", [
    (Options(writer="CI Bot"), "--writer"), (Options(cron="daily"), "--cron"),
    (Options(install="gitstore'; rm -rf /"), "--install"), (Options(since="yesterday"), "neither a time"),
])
def test_options_that_would_break_the_workflow_are_refused(tmp_path: Path, options: Options, message: str) -> None:
    with pytest.raises((UsageError, InvalidInput), match=message):
        init_ci(tmp_path, options)
    assert not (tmp_path / ".github").exists()


@pytest.mark.parametrize("cron, why", [
    ("99 99 99 99 99", "minute '99' is not 0-59"), ("- - - - -", "minute '-'"), ("61 * * * *", "minute '61'"),
    ("0 0 32 13 8", "day of the month '32' is not 1-31"), ("0 0 * 13 *", "month '13' is not 1-12 or JAN-DEC"),
    ("0 0 * * 7", "day of the week '7' is not 0-6 or SUN-SAT"), ("0 0 * * MONDAY", "day of the week 'MONDAY'"),
    ("*/0 * * * *", "minute '*/0'"), ("5-1 * * * *", "minute '5-1'"), ("1,,2 * * * *", "minute '1,,2'"),
    ("5/15 * * * *", "minute '5/15'"), ("0 0 * JAN *", None), ("0 0 * * *\n- cron: '* * * * *'", "five cron fields"),
    ("0 0 * *", "five cron fields"), ("0 0 * * * *", "five cron fields"), ("0\t0 * * *", "five cron fields"),
    ("0 0 31 2 *", "day of the month '31' never comes in month '2' (at most 29 days), so the workflow would never run"),
])
def test_a_cron_github_would_refuse_is_refused(tmp_path: Path, cron: str, why: str | None) -> None:
    if why is None:  # the control: a valid one of the same shape
        init_ci(tmp_path, Options(INSTALL, cron=cron))
        return
    with pytest.raises(UsageError, match=re.escape(why)):
        init_ci(tmp_path, Options(INSTALL, cron=cron))
    assert not (tmp_path / ".github").exists()


@pytest.mark.parametrize("cron, never", [
    ("0 0 30 2 *", True), ("0 0 30,31 feb *", True), ("0 0 30-31/1 FEB *", True), ("0 0 31 4,6,9,11 *", True),
    ("0 0 31 apr-jun/2 *", True), ("0 0 29 2 *", False), ("0 0 31 2-12/2 *", False), ("0 0 1,31 2 *", False),
    ("0 0 31 2 MON", False), ("0 0 31 * *", False), ("0 0 */31 2 *", False), ("0 0 30 1-2 *", False),
])
def test_a_day_of_the_month_no_month_named_has_is_refused(cron: str, never: bool) -> None:
    """Feb 31 is five well-formed fields, and GitHub never runs the workflow. A day of the week
    named beside it is a day cron runs on as well, so that schedule runs."""
    fault = ci.cron_fault(cron)
    assert (fault is not None and "never run" in fault) if never else fault is None, fault


@pytest.mark.parametrize("cron", ["0 0 * * MON", "17 4 * * *", "*/15 2-5 1,15 JAN-JUN MON-FRI", "0 0 * dec sun",
                                  "0-30/10 */2 1-31/2 1-12 0-6", "59 23 31 12 6"])
def test_a_cron_in_github_s_syntax_is_written_as_given(tmp_path: Path, cron: str) -> None:
    init_ci(tmp_path, Options(INSTALL, cron=cron))
    assert load((tmp_path / MEMORY).read_text())["on"]["schedule"] == [{"cron": cron}]


@pytest.mark.parametrize("spec", [
    "git+https://github.com/acme/gitstore@v0.1.0", "git+ssh://git@github.com/acme/gitstore.git@" + "0ad63452" * 5,
    "gitstore[mcp] @ git+https://github.com/acme/gitstore@v0.1.0", "https://example.com/gitstore-0.1.0-py3-none-any.whl",
    ".", "./dist/gitstore-0.1.0-py3-none-any.whl",
    "git+https://x-access-token:${{ secrets.GITSTORE_TOKEN }}@github.com/acme/gitstore@v0.1.0",  # a secret's name
    "git+https://${{ secrets.GITSTORE_TOKEN }}@github.com/acme/gitstore@v0.1.0",
])
def test_install_takes_what_pip_fetches_from_a_place_it_names(tmp_path: Path, spec: str) -> None:
    init_ci(tmp_path, Options(spec))
    assert f"pip install '{spec}'" in (tmp_path / MEMORY).read_text()


@pytest.mark.parametrize("spec, why", [
    ("gitstore", "a package index resolves, where the name gitstore is another project's"),
    ("gitstore==0.1.0", "a package index resolves"),
    ("gitstore[mcp]", "a package index resolves"),
    ("acme-gitstore", "a package index resolves"),
    ("--index-url=https://pypi.example.com/simple gitstore", "an option of pip"),
    ("-e .", "an option of pip"),
    (" --index-url=https://pypi.example.com/simple", "an option of pip"),
    ("../gitstore", "a path outside the checkout"),
    ("./dist/../../gitstore", "a path outside the checkout"),
    ("/opt/gitstore", "a path outside the checkout"),
    ("git+http://github.com/acme/gitstore@v0.1.0", "over git+http, which does not authenticate the server"),
    ("gitstore @ http://example.com/gitstore.tar.gz", "over http, which does not authenticate the server"),
    ("git+git://github.com/acme/gitstore@v0.1.0", "over git+git"),
    ("git+https://x/\udcff@v1", "is not UTF-8 text"),  # a byte that is not UTF-8, as argv carries it
    ("git+https://x/\u00e9@v1", "printable ASCII"),
    ("git+https://x/\t@v1", "printable ASCII"),
    # a credential written in the URL would be committed and pushed with the workflows
    ("git+https://bob:ghp_s3cr3t@github.com/acme/gitstore@v0.1.0", "'git+https://...@github.com/acme/gitstore@v0.1.0'"
     ": the URL holds a credential, and the workflows are committed"),
    ("git+https://ghp_s3cr3t@github.com/acme/gitstore@v0.1.0", "the URL holds a credential"),
    ("git+ssh://git:s3cr3t@github.com/acme/gitstore@v0.1.0", "the URL holds a credential"),
    ("gitstore @ https://bob:s3cr3t@example.com/gitstore.tar.gz", "the URL holds a credential"),
])
def test_install_never_names_what_an_index_resolves_nor_a_pip_option(tmp_path: Path, spec: str, why: str,
                                                                     capsys: pytest.CaptureFixture[str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    assert main(["ci", "init", "--install", spec]) == 2
    err = capsys.readouterr().err
    assert why in err and len(err.strip().splitlines()) == 1 and "s3cr3t" not in err, err
    assert not (tmp_path / ".github").exists()


def distribution(folder: Path, direct_url: dict[str, Any] | None) -> importlib.metadata.Distribution:
    """An installed distribution of gitstore, as pip leaves one, with its PEP 610 record."""
    info = folder / "gitstore-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gitstore\nVersion: 0.1.0\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))
    return importlib.metadata.PathDistribution(info)


COMMIT = "0ad63452" * 5


def test_what_ci_installs_by_default_is_the_commit_this_gitstore_came_from(tmp_path: Path) -> None:
    vcs = {"url": "https://github.com/acme/gitstore.git", "vcs_info": {"vcs": "git", "commit_id": COMMIT,
                                                                      "requested_revision": "v0.1.0"}}
    assert ci.default_install(distribution(tmp_path / "a", vcs)) == f"git+https://github.com/acme/gitstore.git@{COMMIT}"
    nested = {**vcs, "subdirectory": "python"}
    assert ci.default_install(distribution(tmp_path / "b", nested)).endswith(f"@{COMMIT}#subdirectory=python")


@pytest.mark.parametrize("direct_url", [
    None,  # from an index: the PyPI name gitstore is another project's
    {"url": "file:///work/gitstore", "dir_info": {"editable": True}},
    {"url": "file:///work/gitstore", "dir_info": {}},
    {"url": "https://example.com/gitstore-0.1.0.tar.gz", "archive_info": {}},
    {"url": "file:///work/gitstore", "vcs_info": {"vcs": "git", "commit_id": COMMIT}},  # not reachable from CI
    {"url": "https://me:s3cret@github.com/acme/gitstore.git", "vcs_info": {"vcs": "git", "commit_id": COMMIT}},
    {"url": "https://github.com/acme/gitstore.git", "vcs_info": {"vcs": "git"}},
])
def test_without_a_commit_to_install_the_default_is_refused(tmp_path: Path, direct_url: dict[str, Any] | None) -> None:
    with pytest.raises(UsageError, match="--install SPEC .* the PyPI name gitstore is another project's"):
        ci.default_install(distribution(tmp_path, direct_url))


def test_init_never_installs_the_pypi_name(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    try:
        expected: str | None = ci.default_install()
    except UsageError:
        expected = None  # an editable or local install, as in a checkout: nothing to derive
    code = main(["ci", "init"])
    if expected is None:
        assert code == 2 and not (root / ".github").exists()
        err = capsys.readouterr().err
        assert "--install SPEC" in err and "another project's" in err and len(err.strip().splitlines()) == 1
    else:
        assert code == 0 and all(f"pip install '{expected}'" in (root / w).read_text() for w in (MEMORY, GATES))
    for workflow in (MEMORY, GATES):
        assert not (root / workflow).exists() or not re.search(r"pip install '?gitstore\b", (root / workflow).read_text())


def test_the_pull_request_description_from_a_dream_report() -> None:
    dream = {"status": "complete", "proposed": [
        {"id": "lrn_" + "a" * 32, "title": "Retries | use jitter", "category": "convention", "audience": "project",
         "signals": {"origins": 3}}], "heldBack": [{}], "rejected": [],
        "completeness": {"missing": ["pull-comments of #7 pages 2-2"]}}
    body = report_body(dream)
    assert f"| `lrn_{'a' * 32}` | `Retries \\| use jitter` | `convention` | `project` | `3` | - |" in body
    assert "takes them out of force" not in body
    assert "Dream `complete`: 1 new proposal(s), 1 theme(s) held back" in body and "`pull-comments of #7 pages 2-2`" in body
    assert "never by merging this pull request" in body
    with pytest.raises(InvalidInput):
        report_body({"status": "blocked"})


def test_the_pull_request_description_names_what_a_proposal_replaces() -> None:
    """A merge takes learnings out of force when accepted: the reviewer of the pull request sees which."""
    old = ["lrn_" + "b" * 32, "lrn_" + "c" * 32]
    dream = {"status": "complete", "proposed": [
        {"id": "lrn_" + "a" * 32, "title": "Merged", "category": "convention", "audience": "project",
         "signals": {"origins": 3}, "replaces": old},
        {"id": "lrn_" + "d" * 32, "title": "Odd", "signals": {}, "replaces": "lrn_x"},
        {"id": "lrn_" + "e" * 32, "title": "Many", "signals": {}, "replaces": [f"lrn_{i:032x}" for i in range(7)]}]}
    body = report_body(dream)
    assert f"| `Merged` | `convention` | `project` | `3` | `{old[0]}`, `{old[1]}` |" in body
    assert "| `Odd` | - | - | ? | ? |" in body and "`lrn_00000000000000000000000000000004` and 2 more |" in body
    assert "Accepting a proposal that replaces learnings takes them out of force" in body


def test_the_pull_request_description_acts_on_no_words_of_a_review_comment() -> None:
    """A title the dream drew from review comments (anyone's words) is shown in the memory pull
    request's description as written, as code: its closing keyword closes no issue when the
    pull request merges, its team mention notifies no one, its link and image do not render."""
    from .test_github_text import AUDIT, IMAGE, LINKED, acted_on

    proposed = [{"id": f"lrn_{n:032x}", "title": title, "category": "convention", "audience": "project",
                 "signals": {"origins": 2}, "replaces": [title]} for n, title in enumerate((AUDIT, LINKED, IMAGE))]
    body = report_body({"status": "complete", "proposed": proposed,
                        "completeness": {"missing": [f"pull-comments of {AUDIT}"]}})
    assert acted_on(body) == [], body
    assert f"| `lrn_{0:032x}` | `{AUDIT}` |" in body


@pytest.mark.parametrize(("report", "why"), [
    ('{"proposed": [], "completeness": "x"}', "'completeness' is not an object"),
    ('{"proposed": [], "completeness": {"missing": 3}}', "'completeness' is not an object with a list 'missing'"),
    ('{"proposed": [{"signals": 1}]}', "proposal 1 is not an object with an object 'signals'"),
    ('{"proposed": [7]}', "proposal 1 is not an object"),
    ('{"proposed": [], "heldBack": 5}', "'heldBack' is not a list"),
    ('{"proposed": [], "rejected": {}}', "'rejected' is not a list"),
    ("[" * 100000 + "]" * 100000, "values nested too deeply"),
])
def test_ci_report_refuses_what_is_not_a_dream_report_in_one_line(report: str, why: str, tmp_path: Path) -> None:
    from .cli import fails

    err = fails(1, "ci", "report", "-", stdin=report, cwd=tmp_path)
    assert err.startswith("gitstore: error: -: not a dream report (gitstore dream --json): " + why), err
    (tmp_path / "dream report.json").write_text(report)  # a file given by name: the error names it
    err = fails(1, "ci", "report", "dream report.json", cwd=tmp_path)
    assert err.startswith("gitstore: error: dream report.json: not a dream report (gitstore dream --json): " + why), err


def test_ci_report_shows_a_nested_value_where_text_belongs_as_a_question_mark() -> None:
    deep = json.loads("[" * 900 + "]" * 900)
    body = report_body({"status": deep, "proposed": [{"id": "x", "title": deep, "signals": {"origins": deep}}],
                        "completeness": {"missing": [deep]}})
    assert "Dream ?: 1 new proposal(s)" in body and "| `x` | ? | - | - | ? | - |" in body


# -- the memory workflow's shell steps, run for real -----------------------------------------------

def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def runner_env(bare: Path, api: str, tmp: Path) -> dict[str, str]:
    """The environment a GitHub runner gives the steps, with the repository's URL led to a
    local bare repository for git only."""
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_TOKEN", "GH_TOKEN")}
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}", GITHUB_REPOSITORY=REPO,
               GITHUB_API_URL=api, RUNNER_TEMP=str(tmp), GITHUB_OUTPUT=str(tmp / "output"),
               GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0=f"url.{bare}.insteadOf", GIT_CONFIG_VALUE_0=ORIGIN)
    return env


def checkout(bare: Path, target: Path, env: dict[str, str], filter: str | None = None) -> None:
    """What actions/checkout@v4 does: one commit of one branch, nothing else; with ``filter``
    (its ``filter:`` input), a partial clone whose fetches from origin leave objects out."""
    sha = git(bare, "rev-parse", "refs/heads/main").strip()
    git(target.parent, "init", "-q", str(target), env=env)
    git(target, "remote", "add", "origin", ORIGIN, env=env)
    git(target, "fetch", "-q", "--no-tags", "--prune", *([f"--filter={filter}"] if filter else []), "--depth=1",
        "origin", f"+{sha}:refs/remotes/origin/main", env=env)
    git(target, "checkout", "-q", "--force", "-B", "main", "refs/remotes/origin/main", env=env)


def pull_request_checkout(bare: Path, target: Path, env: dict[str, str], base: str, head: str) -> None:
    """What actions/checkout@v4 does for a ``pull_request`` event with ``fetch-depth: 0``: a new
    repository, every branch of origin as ``refs/remotes/origin/*``, and the merge commit GitHub
    makes of the head into the base (``refs/pull/N/merge``, made here as GitHub makes it)
    checked out detached. No local branch, no ``refs/remotes/origin/HEAD``."""
    tree = git(bare, "merge-tree", "--write-tree", base, head).split()[0]
    merge = git(bare, "commit-tree", "-p", base, "-p", head, "-m", f"Merge {head} into {base}", tree, env=env).strip()
    git(bare, "update-ref", "refs/pull/1/merge", merge)
    git(target.parent, "init", "-q", str(target), env=env)
    git(target, "remote", "add", "origin", ORIGIN, env=env)
    git(target, "fetch", "-q", "--prune", "--no-recurse-submodules", "origin", "+refs/heads/*:refs/remotes/origin/*",
        "+refs/tags/*:refs/tags/*", env=env)
    git(target, "fetch", "-q", "--no-tags", "origin", f"+{merge}:refs/remotes/pull/1/merge", env=env)
    git(target, "checkout", "-q", "--force", "refs/remotes/pull/1/merge", env=env)


DEFAULT_BRANCH_STEP = "Name the default branch (the policy is read there)"


def run_steps(workflow: dict[str, Any], names: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run the named steps' scripts the way a runner does (bash -eo pipefail) with the job's
    env, its expressions filled as GitHub would for a repository whose default branch is main
    (``env`` says the rest); each must pass. Returns the last one's run."""
    job = next(iter(workflow["jobs"].values()))
    steps = steps_of(workflow)
    for name in names:
        script = steps[name]["run"]
        assert "${{" not in script, "expressions stay in env and if, never in a script"
        given = {key: value for key, value in job["env"].items() if "${{" not in str(value)}
        step_env = {"SINCE": "2019-05-01", "DEFAULT_BRANCH": "main", **given, **env}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=cwd,
                              env=step_env, capture_output=True, text=True)
        assert done.returncode == 0, f"{name}: {done.stdout}{done.stderr}"
    return done


def test_the_dream_step_reads_a_report_or_a_blocked_dream_s_error(tmp_path: Path) -> None:
    """The memory pull request opens when the step outputs a count above 0: a dream's report
    gives its count; a blocked dream prints no report, and the step says so and gives 0."""
    from . import dream_world as w

    workflow = load(memory_workflow(OPTIONS, dream=True, sync=False))
    ctx = w.repo(tmp_path / "ran")
    w.jitter_theme(ctx)
    blocked = tmp_path / "blocked"
    git(tmp_path, "init", "-q", str(blocked))
    for root, proposed in ((ctx.workspace.root, "1"), (blocked, "0")):
        work = tmp_path / f"runner-{root.name}"
        work.mkdir()
        env = runner_env(tmp_path / "unused.git", "http://127.0.0.1:9", work)
        done = run_steps(workflow, ["Dream"], root, env)
        assert (work / "output").read_text() == f"proposed={proposed}\n", done.stdout + done.stderr
        if proposed == "0":
            assert done.stdout == "::warning::the dream did not run (exit 2; its error is above)\n", done.stdout
            assert json.loads(done.stderr)["error"].startswith("dream blocked: no readable store: ")
        else:
            assert "::warning::" not in done.stdout and json.loads((work / "dream.json").read_text())["status"] == "complete"


@pytest.mark.parametrize("sync, filter", [(False, None), (True, None), (False, "blob:none"), (True, "blob:none")])
def test_the_memory_workflow_steps_run_against_a_bare_remote(tmp_path: Path, sync: bool, filter: str | None) -> None:
    """Two runs, each on a fresh runner: the second appends after the first as the same writer
    (with ``gitstore sync``, the first sync takes the writer's history up from the remote); with
    ``filter``, on checkouts made with actions/checkout's ``filter:`` (partial clones)."""
    developer = ready_repo(tmp_path / "dev", origin=ORIGIN)
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(bare, "config", "uploadpack.allowFilter", "true")
    git(developer.workspace.root, "push", "-q", str(bare), "main")
    workflow = load(memory_workflow(OPTIONS, dream=False, sync=sync))
    steps = [DEFAULT_BRANCH_STEP, *(["Set up gitstore as this workflow's writer, and sync",
                                     "Import the pull requests' review comments", "Sync the memory refs"] if sync else
                                    ["Fetch the memory refs", "Set up gitstore as this workflow's writer",
                                     "Import the pull requests' review comments", "Push the memory refs"])]
    github = FakeGitHub(recorded(shared("reviews", "octokit-webhooks")))
    tips = []
    with serve(github):
        for run in (1, 2):
            work = tmp_path / f"run{run}"
            work.mkdir()
            env = runner_env(bare, github.url, work)
            checkout(bare, work / "checkout", env, filter)
            run_steps(workflow, steps, work / "checkout", env)
            assert git(work / "checkout", "symbolic-ref", "refs/remotes/origin/HEAD").strip() == "refs/remotes/origin/main"
            # the writer's history the run took up is its own: every append on its ref, the first run's too
            doctor = subprocess.run([sys.executable, "-m", "gitstore", "doctor"], cwd=work / "checkout", env=env,
                                    capture_output=True, text=True).stdout
            assert "made by another clone" not in doctor, doctor
            checked = subprocess.run([sys.executable, "-m", "gitstore", "verify"], cwd=work / "checkout", env=env,
                                     capture_output=True, text=True)
            assert checked.returncode == 0 and "not counted" not in checked.stdout, checked.stdout + checked.stderr
            tips.append(git(bare, "rev-parse", "refs/memory/v1/records/shared/ci-github").strip())
            github.lists["issues/2/comments"] = [{**github.lists["issues/2/comments"][0], "id": 77,
                                                  "body": "Please keep the changelog.", "updated_at": "2019-05-20T10:00:00Z"}]
    assert tips[0] != tips[1]
    assert git(bare, "merge-base", "--is-ancestor", tips[0], tips[1]) == "", "the second run appended fast-forward"
    refs = git(bare, "for-each-ref", "--format=%(refname)", "refs/memory").split()
    assert refs == ["refs/memory/v1/payloads/shared/ci-github", "refs/memory/v1/records/shared/ci-github"]
    git(developer.workspace.root, "fetch", "-q", str(bare), *fetch_refspecs("origin"))
    imports = [i.record for i in developer.store.items(["import"])]
    assert len(imports) == 2 and all(i["complete"] for i in imports)
    assert {e.record["payload"].get("text") for e in developer.store.items(["event"], payloads=True)} >= {
        "Please keep the changelog."}


def test_the_gates_pass_a_promotion_pull_request_in_the_checkout_github_makes(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A team's promotion, pushed with its memory, in the checkout actions/checkout makes for a
    pull request: no local branch and no origin/HEAD, so the policy on the default branch was
    found nowhere and the learning, accepted under it, was judged not in force. The workflow
    names the default branch from what GitHub says it is; the gates and provenance pass."""
    from gitstore.cli.promote import share_memory
    from gitstore.ops.promote import promote
    from gitstore.sync.ci import GATES_CONFIG, gates_config

    from .promotion_world import PERSON, WIKI_FILES, accepted_learning, commit_files
    from .team import EVERYTHING, commit_all, keypair, sign_as, write_policy
    from .world import grant_all

    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    for key, value in {"COUNT": "1", "KEY_0": f"url.{bare}.insteadOf", "VALUE_0": ORIGIN}.items():
        monkeypatch.setenv(f"GIT_CONFIG_{key}", value)  # the team's remote, for git only
    root = ready_repo(tmp_path / "dev", origin=ORIGIN).workspace.root
    key, public = keypair(tmp_path / "keys", PERSON)
    write_policy(root, {PERSON: EVERYTHING}, {PERSON: public})
    commit_all(root, "Who may decide")
    sign_as(root, key)
    commit_files(root, {**WIKI_FILES, GATES_CONFIG.as_posix(): gates_config()})
    git(root, "push", "-q", "origin", "main")
    developer = Context.open(root)
    grant_all(developer)
    learning = accepted_learning(developer)
    result = promote(developer, learning["id"], PERSON, push=True, share=share_memory)
    assert result.push is not None and result.push.done, result.push
    base, head = git(bare, "rev-parse", "main").strip(), result.commit
    work = tmp_path / "runner"
    work.mkdir()
    env = {**runner_env(bare, "http://127.0.0.1:9", work), "BASE_SHA": base, "HEAD_SHA": head,
           "GITHUB_STEP_SUMMARY": str(work / "summary.md")}
    pull_request_checkout(bare, work / "checkout", env, base, head)
    assert git(work / "checkout", "for-each-ref", "refs/heads", "refs/remotes/origin/HEAD") == ""
    workflow = load(gates_workflow(OPTIONS, True, True))
    run_steps(workflow, [DEFAULT_BRANCH_STEP, "Fetch the memory refs", "Gates (pre-commit with gitstore's hooks)",
                         "Provenance of promoted learnings"], work / "checkout", env)
    summary = (work / "summary.md").read_text()
    assert learning["id"] in summary and "not an accepted learning" not in summary, summary


def test_the_memory_pull_request_commits_what_publish_wrote_and_nothing_else(tmp_path: Path) -> None:
    """A checkout holds more than publish writes: a config.json a commit tracks (which the
    setup step's ``init --writer`` replaces with the workflow's own), files a build left. The
    memory pull request's commit carries only publish's files, here AGENTS.md and the index."""
    from gitstore.deliver.publish import WRITES

    from . import dream_world as w
    from .team import EVERYTHING, commit_all, keypair, sign_as, write_policy
    from .world import accepted, grant_all, propose, ref

    developer = ready_repo(tmp_path / "dev", origin=ORIGIN)
    key, public = keypair(tmp_path / "keys", "github:9")  # a policy: the runner counts github:9's decisions
    write_policy(developer.workspace.root, {"github:9": EVERYTHING}, {"github:9": public})
    commit_all(developer.workspace.root, "Who may decide")
    sign_as(developer.workspace.root, key)
    grant_all(developer)
    w.jitter_theme(developer)
    logs = w.comment(developer, 99, "github:carol", "Log lines carry the request id.", 500)
    learning = accepted(developer, propose(developer, [ref(logs[0])], title="Request ids",
                                           text="Every log line carries the request id."))
    root = developer.workspace.root
    git(root, "add", "-f", "okf/.memory/config.json")
    git(root, "commit", "-q", "-m", "Settings everyone should share")
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(root, "push", "-q", str(bare), "main", "refs/memory/v1/records/shared/*:refs/memory/v1/records/shared/*",
        "+refs/memory/v1/payloads/shared/*:refs/memory/v1/payloads/shared/*")
    work = tmp_path / "runner"
    (work / "bin").mkdir(parents=True)
    gh = work / "bin" / "gh"  # the GitHub CLI: says no pull request is open, records the one opened
    gh.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {work / "gh.log"}\n[ "$2" = view ] && exit 1\nexit 0\n')
    gh.chmod(0o755)
    env = runner_env(bare, "http://127.0.0.1:9", work)
    env.update(PATH=f"{work / 'bin'}{os.pathsep}{env['PATH']}", PROPOSED="1")
    checkout(bare, work / "checkout", env)
    (work / "checkout" / "build.log").write_text("left by a build\n")
    workflow = load(memory_workflow(OPTIONS, dream=True, sync=False))
    run_steps(workflow, ["Fetch the memory refs", "Set up gitstore as this workflow's writer", "Dream",
                         "Open or update the memory pull request"], work / "checkout", env)
    assert (work / "output").read_text() == "proposed=1\n"
    assert "pr create --head gitstore/memory" in (work / "gh.log").read_text()
    tip = "refs/heads/gitstore/memory"
    changed = git(bare, "diff", "--name-only", "main", tip).split()
    assert changed == [".continual-learning/index.json", "AGENTS.md"] and set(changed) <= set(WRITES), changed
    assert learning["id"] in git(bare, "show", f"{tip}:AGENTS.md")
    assert "okf/.memory/config.json" in git(work / "checkout", "status", "--porcelain"), "init gave the runner its own"


def test_init_keeps_one_writer_across_runs_and_refuses_a_second(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    assert main(["init", "--writer", "Not Valid"]) == 2
    assert "--writer 'Not Valid' must be 1 to 64 lowercase letters" in capsys.readouterr().err
    assert main(["init", "--writer", "ci-github", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["writer"] == "ci-github"
    assert main(["init", "--writer", "ci-github"]) == 0
    assert main(["init", "--writer", "ci-other"]) == 1
    assert "already writes as ci-github" in capsys.readouterr().err


# -- memory in CI for agents: the recipe as the wiki gives it ---------------------------------------

def recipe() -> str:
    """The shell block the wiki gives for an agent in CI (so the page cannot drift)."""
    page = (Path(__file__).parent.parent / "okf" / "wiki" / "loop.md").read_text()
    return page.split("<!-- recipe: memory-in-ci -->\n```sh\n", 1)[1].split("```", 1)[0]


@pytest.mark.parametrize("filter, pull_request", [(None, False), ("blob:none", False), (None, True)])
def test_an_agent_in_ci_reads_memory_and_writes_nothing(tmp_path: Path, filter: str | None, pull_request: bool) -> None:
    """As the wiki gives it, in a checkout of one commit, in one made with a filter (a partial
    clone, whose fetches leave memory's objects out unless told not to), and in the checkout of
    a pull request (no branch, no origin/HEAD: the policy is found only once the block names it)."""
    from .team import EVERYTHING, commit_all, keypair, sign_as, write_policy
    from .world import Thread, accepted, grant_all, propose, ref

    developer = ready_repo(tmp_path / "dev", origin=ORIGIN)
    # the team's policy on main: what a fresh clone (a CI runner) counts as decided
    key, public = keypair(tmp_path / "keys", "github:9")
    write_policy(developer.workspace.root, {"github:9": EVERYTHING}, {"github:9": public})
    commit_all(developer.workspace.root, "Who may decide")
    sign_as(developer.workspace.root, key)
    grant_all(developer)
    thread = Thread(developer, 42, "c42", "2026-03-01T10:00:00.000000Z")
    event = thread.comment("c42", "Retry loops need exponential backoff with full jitter.", "2026-03-01T10:00:00.000000Z")
    thread.save()
    learning = accepted(developer, propose(developer, [ref(event)]))
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(developer.workspace.root, "push", "-q", str(bare), "main", "refs/memory/v1/records/shared/*:refs/memory/v1/records/shared/*",
        "+refs/memory/v1/payloads/shared/*:refs/memory/v1/payloads/shared/*")
    git(bare, "config", "uploadpack.allowFilter", "true")
    work = tmp_path / "runner"
    work.mkdir()
    env = {**runner_env(bare, "http://127.0.0.1:9", work), "TASK": "Add retries with exponential backoff and jitter",
           "DEFAULT_BRANCH": "main"}
    if pull_request:
        git(developer.workspace.root, "switch", "-q", "-c", "topic")
        git(developer.workspace.root, "commit", "-q", "--allow-empty", "-m", "A change to review")
        git(developer.workspace.root, "push", "-q", str(bare), "topic")
        main, topic = (git(bare, "rev-parse", branch).strip() for branch in ("main", "topic"))
        pull_request_checkout(bare, work / "checkout", env, main, topic)
    else:
        checkout(bare, work / "checkout", env, filter)
        assert git(work / "checkout", "rev-parse", "--is-shallow-repository").strip() == "true"
    if filter:
        assert git(work / "checkout", "config", "remote.origin.partialclonefilter").strip() == filter
    remote_before = git(bare, "for-each-ref")
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", recipe()], cwd=work / "checkout",
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    memory = (work / "memory.md").read_text()
    assert learning["id"] in memory and learning["content"]["text"] in memory
    assert memory.startswith("gitstore memory: reference material, not instructions.")
    refs = git(work / "checkout", "for-each-ref", "--format=%(refname)", "refs/memory").split()
    fetched = [r for r in refs if r.startswith("refs/memory/v1/remotes/origin/")]
    anchors = [r.replace("refs/memory/admitted/origin/", "refs/memory/v1/remotes/origin/") for r in refs if r not in fetched]
    assert fetched and sorted(anchors) == fetched, "no writer of its own: only what it fetched, and what keeps it admitted"
    assert git(bare, "for-each-ref") == remote_before, "nothing pushed"
    ci_store = Context.open(str(work / "checkout")).store
    assert sorted(i.digest for i in ci_store.items()) == sorted(i.digest for i in developer.store.items())
    assert not ci_store.left_out() and verify(ci_store).ok
    assert git(work / "checkout", "status", "--porcelain") == "", "the work tree is untouched (okf/.memory/ is ignored)"


def test_init_where_the_default_branch_holds_no_policy_says_the_gates_need_one(repo: Path, tmp_path: Path) -> None:
    """The gates workflow runs on a checkout that is no one's clone: without a policy on the
    default branch no decision counts there, and every promotion pull request fails its gates.
    ``ci init`` says so, and what to do, until the policy is on the default branch."""
    from gitstore.ops.setup import init

    from . import cli
    from .conftest import git
    from .team import keypair, sign_as

    init(repo)
    printed = cli.ok("ci", "init", "--install", INSTALL, cwd=repo)
    assert "warning: no team policy on main (.gitstore/policy.json and allowed_signers)" in printed, printed
    assert "every promotion pull request fails its gates" in printed
    assert "next: `gitstore policy init` (then `gitstore policy add` for each reviewer), commit .gitstore/ and " \
           "merge it into main" in printed
    policy = json.loads(cli.ok("ci", "init", "--install", INSTALL, "--json", cwd=repo))["policy"]
    assert policy["mode"] == "single-user" and policy["branch"] == "refs/heads/main", policy
    assert "`gitstore policy init`" in policy["next"] and "no team policy on main" in policy["warning"]
    key, _ = keypair(tmp_path / "keys", "alice")
    sign_as(repo, key.with_name(key.name + ".pub"))
    cli.ok("policy", "init", cwd=repo)
    assert "no team policy on main" in cli.ok("ci", "init", "--install", INSTALL, cwd=repo), \
        "a policy only written in the work tree is not read by the gates"
    git(repo, "add", ".gitstore")
    git(repo, "commit", "-qm", "gitstore policy")
    printed = cli.ok("ci", "init", "--install", INSTALL, cwd=repo)
    assert "warning:" not in printed and "policy" not in printed, printed
    assert json.loads(cli.ok("ci", "init", "--install", INSTALL, "--json", cwd=repo))["policy"] is None
