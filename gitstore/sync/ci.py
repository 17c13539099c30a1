"""``gitstore ci init``: the GitHub Actions workflows that run the loop and the gates.

Two files under ``.github/workflows/``:

- ``gitstore-memory.yml``, on a schedule and on demand: fetch the memory refs (a checkout
  brings one commit of one branch and no ``refs/memory/``), set up this workflow's own writer,
  verify, import the pull requests' review comments through the REST API with the workflow's
  token, dream, push the memory refs, and open or update one pull request with the dream
  report when there are new proposals;
- ``gitstore-gates.yml``, on every pull request: the same fetch, gitstore's pre-commit gates
  over the pull request's commits, and a provenance summary of its promotion commits.

Both first name the repository's default branch as ``origin/HEAD``, which a checkout leaves
unset: the team's policy is read there (for a pull request, a checkout has no branch at all).

Steps for stages this version of gitstore does not have are left out, each replaced by a
comment saying so, and listed in the report: the files never call a command that does not
exist. The files are plain YAML with comments; a file that differs from what would be written
is kept unless ``force``, but for ``.github/gitstore-pre-commit.yaml``, whose gitstore hooks are
brought up to date in place, the rest of it kept (``gitstore.sync.hooks.refreshed``).

What the workflows install is said with ``--install``, or derived from how this gitstore was
installed when that names it exactly: a VCS URL and commit (PEP 610's ``direct_url.json``).
Never the bare PyPI name ``gitstore``: that name belongs to an unrelated project, and the
memory workflow runs with ``contents: write``. So ``--install`` takes what pip fetches from a
place it names, never a name a package index resolves: a ``git+https``, ``git+ssh`` or ``https``
URL (alone, or as ``NAME @ URL``), or a path inside the checkout (``.``, ``./dist/...``). A
requirement by name (``gitstore``, ``gitstore==0.1``, any other), a pip option (``--index-url``
...), a path outside the checkout and a URL fetched without authentication of its server
(``http``, ``git://``) are refused, and so is anything but printable ASCII, and a URL holding a
credential (the files are committed): a secret's expression (``${{ secrets.NAME }}``) stands
in for one.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitstore import _jsontext
from gitstore._files import leads_out, replace_file
from gitstore._github_text import code
from gitstore._version import __version__
from gitstore.errors import InvalidInput, Refused, UsageError
from gitstore.records.inputs import read_regular
from gitstore.sync.steps import STEPS

WORKFLOWS = Path(".github") / "workflows"
MEMORY = WORKFLOWS / "gitstore-memory.yml"
GATES = WORKFLOWS / "gitstore-gates.yml"
GATES_CONFIG = Path(".github") / "gitstore-pre-commit.yaml"
DEFAULT_WRITER = "ci-github"
DEFAULT_CRON = "17 4 * * *"
DEFAULT_SINCE = "3d"
BRANCH = "gitstore/memory"
BOT_NAME = "github-actions[bot]"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"

# the stages each optional part needs (their absence leaves the part out, said in the file)
NEEDS = {"dream": STEPS["dream"].needs, "sync": STEPS["sync"].needs, "gates": "gitstore_validators",
         "provenance": "gitstore.promote.branch"}


def have(part: str) -> bool:
    """Whether this gitstore has the stage a part of the workflows needs."""
    try:
        return importlib.util.find_spec(NEEDS[part]) is not None
    except ImportError:
        return False


@dataclass(frozen=True)
class Options:
    """What a team chooses when writing the workflows."""

    install: str | None = None  # None: derived by ``default_install``, or refused
    writer: str = DEFAULT_WRITER
    cron: str = DEFAULT_CRON
    since: str = DEFAULT_SINCE


@dataclass
class CiReport:
    """Which files were written or kept, and which parts were left out and why."""

    files: list[dict[str, str]] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    policy: dict[str, Any] | None = None  # ``gates_policy``: why the gates would fail, and what to do

    def to_json(self) -> dict[str, Any]:
        return {"files": self.files, "leftOut": self.left_out, "policy": self.policy}


# -- the shared steps -----------------------------------------------------------------------------

def _fetch_step() -> str:
    from gitstore.providers._names import fetch_refspecs

    specs = " \\\n            ".join(f"'{s}'" for s in fetch_refspecs("origin"))
    return f"""\
      # actions/checkout fetches one commit of one branch: the memory refs come only when asked
      # for, with the refspecs `gitstore init` gives every clone (records fast-forward only),
      # whole (a checkout given a filter: would leave out the objects memory is made of).
      - name: Fetch the memory refs
        env:
@GIT_AUTH@        run: |
          git fetch --no-tags --no-filter origin \\
            {specs}
"""


# Named from what GitHub says the default branch is, and fetched, never taken from the commit
# checked out: a pull request's author would then write the policy its own gates are read under.
_DEFAULT_BRANCH_STEP = """\
      # gitstore reads the team's policy from the default branch, as origin/HEAD names it: a
      # checkout sets no origin/HEAD (and, for a pull request, checks out no branch at all).
      - name: Name the default branch (the policy is read there)
        env:
@GIT_AUTH@        run: |
          : "${DEFAULT_BRANCH:?GitHub named no default branch for this repository}"
          git fetch --no-tags origin "+refs/heads/$DEFAULT_BRANCH:refs/remotes/origin/$DEFAULT_BRANCH"
          git remote set-head origin "$DEFAULT_BRANCH"
"""


EXAMPLE_INSTALL = f"git+https://github.com/OWNER/gitstore@v{__version__}"


def default_install(dist: importlib.metadata.Distribution | None = None) -> str:
    """What pip installs in CI to get this very gitstore: the VCS URL and commit it was
    installed from (``direct_url.json``, PEP 610). Anything else (an editable or local folder,
    an index, unknown) is refused: the PyPI name ``gitstore`` is another project's."""
    try:
        dist = dist or importlib.metadata.distribution("gitstore")
        origin = _jsontext.loads(dist.read_text("direct_url.json") or "null")
    except (importlib.metadata.PackageNotFoundError, ValueError):
        origin = None
    spec = _vcs_spec(origin) if isinstance(origin, dict) else None
    if spec is None:
        raise UsageError(f"say what the workflows install with --install SPEC (e.g. {EXAMPLE_INSTALL}): this "
                         "gitstore was not installed from a git URL at a commit, and the PyPI name gitstore "
                         "is another project's")
    return spec


def _vcs_spec(origin: dict[str, Any]) -> str | None:
    """``git+URL@COMMIT`` from a ``direct_url.json`` naming a commit of a remote repository."""
    from urllib.parse import urlsplit

    url, vcs = origin.get("url"), origin.get("vcs_info")
    if not isinstance(url, str) or not isinstance(vcs, dict):
        return None
    kind, commit = vcs.get("vcs"), vcs.get("commit_id")
    parts = urlsplit(url)
    if kind != "git" or not isinstance(commit, str) or parts.scheme not in ("https", "ssh") or parts.password:
        return None
    subdirectory = origin.get("subdirectory")
    return f"git+{url}@{commit}" + (f"#subdirectory={subdirectory}" if isinstance(subdirectory, str) else "")


def resolved(options: Options) -> Options:
    """The options with what to install said: given, or derived by ``default_install``."""
    if options.install is not None:
        return options
    spec = default_install()
    _check_install(spec)
    return Options(spec, options.writer, options.cron, options.since)


def _install_step(options: Options) -> str:
    return f"""\
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install gitstore
        run: python -m pip install '{resolved(options).install}'
"""


# -- the token, for the steps that fetch or push ---------------------------------------------------

MEMORY_TOKEN = "${{ steps.app.outputs.token || github.token }}"
GIT_TOKEN = "GITSTORE_GIT_TOKEN"
# a credential helper git runs with "get" (then "store" or "erase"): it answers with the token
# this step's environment holds, for the server the workflow runs on, and nothing else
CREDENTIAL_HELPER = (f'!f() {{ if [ "$1" = get ]; then echo username=x-access-token; '
                     f'echo "password=${GIT_TOKEN}"; fi; }}; f')


def git_auth(token: str) -> str:
    """The ``env:`` lines that let git (run by the step or by gitstore) use ``token`` in one
    step: the checkouts keep no token (``persist-credentials: false``), so no other step, the
    dream's labeler above all, finds one in ``.git/config`` or its environment."""
    return (f"          {GIT_TOKEN}: {token}\n"
            "          GIT_CONFIG_COUNT: \"1\"\n"
            "          GIT_CONFIG_KEY_0: credential.${{ github.server_url }}.helper\n"
            f"          GIT_CONFIG_VALUE_0: '{CREDENTIAL_HELPER}'\n")


# -- gitstore-memory.yml --------------------------------------------------------------------------

_MEMORY_HEAD = """\
# gitstore: the memory loop, on a schedule and on demand (Actions > gitstore memory > Run workflow).
#
# Written by `gitstore ci init` (gitstore @VERSION@); edit it freely, or run
# `gitstore ci init --force` to write it again. Each run fetches the memory refs, verifies
# them, imports the pull requests' review comments through the GitHub REST API with this
# workflow's token, dreams, pushes the memory refs it wrote (as the writer @WRITER@, one ref
# across runs), and opens or updates one pull request (branch @BRANCH@) with the dream report
# when there are new proposals. People decide proposals with `gitstore show` / `accept` /
# `reject` on their own clones; the memory travels through this repository's refs.
#
# Tokens. Pull requests opened with the default GITHUB_TOKEN trigger no other workflows
# (GitHub's rule against recursive runs), so the gates of gitstore-gates.yml would not run on
# the memory pull request, and GitHub refuses to let GITHUB_TOKEN open pull requests at all
# unless Settings > Actions > General > "Allow GitHub Actions to create and approve pull
# requests" is on. To have the gates run, use a GitHub App's token instead: create an App with
# read and write access to contents and pull requests, install it on this repository, store
# its id as the Actions variable GITSTORE_APP_ID and its private key as the secret
# GITSTORE_APP_PRIVATE_KEY. The "App token" step then mints a token for each run and the steps
# below that need one use it; without the variable, they use GITHUB_TOKEN. Only those steps
# (fetching, importing, pushing, opening the pull request) are given the token, each in its own
# environment: the checkout keeps none (persist-credentials: false), so the dream, whose
# labeler may be a model's CLI reading anyone's review comments, finds none.
name: gitstore memory

on:
  schedule:
    - cron: "@CRON@"
  workflow_dispatch:
    inputs:
      since:
        description: Import pull requests updated since a date (2026-03-01) or an age (3d)
        required: false
        default: "@SINCE@"

permissions:
  contents: write        # push the memory refs and the report branch
  pull-requests: write   # open or update the memory pull request

defaults:
  run:
    shell: bash  # bash -eo pipefail: a command failing in a pipe fails its step

concurrency:
  group: gitstore-memory  # one run at a time: the writer's ref moves fast-forward only
  cancel-in-progress: false

jobs:
  memory:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    env:
      GITSTORE_WRITER: @WRITER@
      SINCE: ${{ inputs.since || '@SINCE@' }}
      # a scheduled run's event names no repository; it runs on the default branch
      DEFAULT_BRANCH: ${{ github.event.repository.default_branch || github.ref_name }}
    steps:
      - name: App token (optional; see the comment at the top)
        id: app
        if: vars.GITSTORE_APP_ID != ''
        uses: actions/create-github-app-token@v1
        with:
          app-id: ${{ vars.GITSTORE_APP_ID }}
          private-key: ${{ secrets.GITSTORE_APP_PRIVATE_KEY }}
          # this repository alone (no owner or repositories named), and only what the job does
          permission-contents: write
          permission-pull-requests: write
      # the checkout keeps no token in .git/config: the dream's labeler (a model's CLI reading
      # anyone's review comments) runs in this folder; each step that fetches or pushes is
      # handed the token in its own environment (GIT_CONFIG_*: a credential helper reading it)
      - uses: actions/checkout@v4
        with:
          token: ${{ steps.app.outputs.token || github.token }}
          persist-credentials: false
"""

_SETUP = """\
      # This workflow writes as one writer across runs: its own refs come back from the remote
      # into the local namespace (and only there), so each run appends fast-forward to them.
      - name: Set up gitstore as this workflow's writer
        id: setup
        run: |
          git config user.name '@BOT_NAME@'
          git config user.email '@BOT_EMAIL@'
          # the records history; `gitstore init --writer` takes the payload snapshot up after
          # checking it (each payload matching its digest), and names one it leaves out
          fetched="refs/memory/v1/remotes/origin/records/shared/$GITSTORE_WRITER"
          if git rev-parse -q --verify "$fetched" >/dev/null; then
            git update-ref "refs/memory/v1/records/shared/$GITSTORE_WRITER" "$fetched"
            git update-ref -d "$fetched"
          fi
          gitstore init --writer "$GITSTORE_WRITER"
          gitstore verify
      - name: Import the pull requests' review comments
        id: import
        env:
          GITHUB_TOKEN: ${{ steps.app.outputs.token || github.token }}
        run: gitstore import github --repo "$GITHUB_REPOSITORY" --since "$SINCE"
"""

_DREAM = """\
      - name: Dream
        id: dream
        # --json: the report on standard output (exit 1 when degraded), or, when the dream is
        # blocked, nothing there and its error on standard error; either way the job goes on.
        run: |
          code=0
          gitstore dream --json > "$RUNNER_TEMP/dream.json" || code=$?
          if [ ! -s "$RUNNER_TEMP/dream.json" ]; then
            echo "::warning::the dream did not run (exit $code; its error is above)"
            echo "proposed=0" >> "$GITHUB_OUTPUT"
          else
            [ "$code" = 0 ] || echo "::warning::the dream did not complete (exit $code): $(jq -r .status "$RUNNER_TEMP/dream.json")"
            echo "proposed=$(jq '.proposed | length' "$RUNNER_TEMP/dream.json")" >> "$GITHUB_OUTPUT"
          fi
"""

_NO_DREAM = """\
      # Dream: left out, this version of gitstore has no dream stage (gitstore.dream); after an
      # upgrade, `gitstore ci init --force` adds it and the memory pull request.
"""

_PUSH_GIT = """\
      # Records move fast-forward only; a payload snapshot is a parentless commit, replaced whole.
      - name: Push the memory refs
        if: ${{ !cancelled() && steps.setup.outcome == 'success' }}
        env:
@GIT_AUTH@        run: |
          specs=()
          for kind in records payloads; do
            ref="refs/memory/v1/$kind/shared/$GITSTORE_WRITER"
            plus=""; [ "$kind" = payloads ] && plus="+"
            if git rev-parse -q --verify "$ref" >/dev/null; then specs+=("$plus$ref:$ref"); fi
          done
          if [ ${#specs[@]} -gt 0 ]; then git push --no-verify origin "${specs[@]}"; else echo "nothing written"; fi
"""

_PUSH_SYNC = """\
      - name: Sync the memory refs
        if: ${{ !cancelled() && steps.setup.outcome == 'success' }}
        env:
@GIT_AUTH@        run: gitstore sync origin
"""

_PULL_REQUEST = """\
      # only on the default branch: a run dispatched on another branch has that branch checked
      # out, and the pull request would carry its commits, unreviewed, into the default branch
      - name: Open or update the memory pull request
        if: >-
          github.ref_name == env.DEFAULT_BRANCH
          && steps.dream.outputs.proposed != '' && steps.dream.outputs.proposed != '0'
        env:
          GH_TOKEN: ${{ steps.app.outputs.token || github.token }}
          PROPOSED: ${{ steps.dream.outputs.proposed }}
@GIT_AUTH@        run: |
          gitstore ci report "$RUNNER_TEMP/dream.json" > "$RUNNER_TEMP/body.md"
          title="gitstore: $PROPOSED new proposal(s) waiting for review"
          git switch -C '@BRANCH@'
          gitstore publish || true    # learnings accepted since: AGENTS.md's section and the index
          # commit what publish writes and nothing else: `init --writer` rewrites a tracked config.json
          for file in @PUBLISHED@; do
            if [ -e "$file" ]; then git add -- "$file"; fi
          done
          git commit -q --allow-empty -m "$title" -m "The dream report is in the pull request's description."
          git push --force origin 'HEAD:refs/heads/@BRANCH@'
          if [ "$(gh pr view '@BRANCH@' --json state -q .state 2>/dev/null)" = OPEN ]; then
            gh pr edit '@BRANCH@' --title "$title" --body-file "$RUNNER_TEMP/body.md"
          else
            gh pr create --head '@BRANCH@' --base "$DEFAULT_BRANCH" --title "$title" --body-file "$RUNNER_TEMP/body.md"
          fi
"""


_SETUP_SYNC = """\
      - name: Set up gitstore as this workflow's writer, and sync
        id: setup
        env:
@GIT_AUTH@        run: |
          git config user.name '@BOT_NAME@'
          git config user.email '@BOT_EMAIL@'
          gitstore init --writer "$GITSTORE_WRITER"
          gitstore sync origin
"""


def memory_workflow(options: Options, dream: bool, sync: bool) -> str:
    """The text of ``gitstore-memory.yml``; with ``gitstore sync``, it fetches, verifies and
    pushes, and the git commands that stand in for it are left out."""
    setup = _SETUP_SYNC + _SETUP[_SETUP.index("      - name: Import"):] if sync else _fetch_step() + _SETUP
    parts = [_MEMORY_HEAD, _install_step(options), _DEFAULT_BRANCH_STEP, setup, _DREAM if dream else _NO_DREAM,
             _PUSH_SYNC if sync else _PUSH_GIT]
    if dream:
        parts.append(_PULL_REQUEST)
    return _fill("".join(parts).replace("@GIT_AUTH@", git_auth(MEMORY_TOKEN)), options)


# -- gitstore-gates.yml ---------------------------------------------------------------------------

_GATES_HEAD = """\
# gitstore: the gates on every pull request, and where its promoted learnings come from.
#
# Written by `gitstore ci init` (gitstore @VERSION@). The gates are gitstore's pre-commit
# hooks (configured in .github/gitstore-pre-commit.yaml), run over the pull request's
# commits: records, promotion commits, the OKF wiki, Agent Skills and the safety scan. They
# read the repository's memory, so the memory refs are fetched first. A pull request opened
# with the default GITHUB_TOKEN does not start this workflow (see gitstore-memory.yml).
# A pull request runs this file and the gates' configuration as it has them, so it can edit
# them to switch its own gates off: have .github/ reviewed by its owners (CODEOWNERS).
name: gitstore gates

on:
  pull_request:

permissions:
  contents: read

defaults:
  run:
    shell: bash  # bash -eo pipefail: provenance failing in its pipe to the summary fails the step

jobs:
  gates:
    runs-on: ubuntu-latest
    timeout-minutes: 20
    env:
      BASE_SHA: ${{ github.event.pull_request.base.sha }}
      HEAD_SHA: ${{ github.event.pull_request.head.sha }}
      DEFAULT_BRANCH: ${{ github.event.repository.default_branch }}
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0  # every commit of the pull request, and its base
          persist-credentials: false  # the gates run the pull request's code: no token in .git/config
"""

_GATES_RUN = """\
      - name: Gates (pre-commit with gitstore's hooks)
        run: >-
          pre-commit run --config @GATES_CONFIG@ --hook-stage manual
          --from-ref "$BASE_SHA" --to-ref "$HEAD_SHA" --show-diff-on-failure --color never
"""

_NO_GATES = """\
      # Gates: left out, this version of gitstore has no pre-commit gates (gitstore_validators).
"""

_PROVENANCE = """\
      - name: Provenance of promoted learnings
        if: ${{ !cancelled() }}
        run: gitstore provenance "$BASE_SHA..$HEAD_SHA" --markdown | tee -a "$GITHUB_STEP_SUMMARY"
"""

_NO_PROVENANCE = """\
      # Provenance: left out, this version of gitstore has no promotion stage (gitstore.promote).
"""


def gates_workflow(options: Options, gates: bool, provenance: bool) -> str:
    """The text of ``gitstore-gates.yml``."""
    parts = [_GATES_HEAD, _install_step(options), _DEFAULT_BRANCH_STEP, _fetch_step(), _GATES_RUN if gates else _NO_GATES,
             _PROVENANCE if provenance else _NO_PROVENANCE]
    return _fill("".join(parts).replace("@GIT_AUTH@", git_auth("${{ github.token }}")), options)


def gates_config() -> str:
    """``.github/gitstore-pre-commit.yaml``: gitstore's hooks as local hooks over the console
    scripts the workflow installed (no hook repository to clone)."""
    from gitstore.sync.hooks import local_hooks

    return ("# gitstore's gates for pre-commit, run by .github/workflows/gitstore-gates.yml with the\n"
            "# gitstore it installed. Written by `gitstore ci init`.\n" + local_hooks())


def _fill(text: str, options: Options) -> str:
    import shlex

    from gitstore.deliver.publish import WRITES

    values = {"@PUBLISHED@": " ".join(shlex.quote(path) for path in WRITES), "@VERSION@": __version__, "@WRITER@": options.writer, "@CRON@": options.cron, "@SINCE@": options.since,
              "@BRANCH@": BRANCH, "@BOT_NAME@": BOT_NAME, "@BOT_EMAIL@": BOT_EMAIL,
              "@GATES_CONFIG@": GATES_CONFIG.as_posix()}
    for key, value in values.items():
        text = text.replace(key, value)
    return text


# -- writing --------------------------------------------------------------------------------------

def check(options: Options) -> None:
    """Refuse options that would make a broken workflow."""
    from gitstore.providers.git import WRITER_PATTERN
    from gitstore.records.times import time_or_age

    if not WRITER_PATTERN.match(options.writer):
        raise UsageError(f"--writer {options.writer!r} must be lowercase letters, digits and dashes")
    fault = cron_fault(options.cron)
    if fault is not None:
        raise UsageError(f"--cron {options.cron!r}: {fault}")
    try:
        time_or_age(options.since)
    except InvalidInput as exc:
        raise UsageError(f"--since {exc}") from None
    if options.install is not None:
        _check_install(options.install)


_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_DAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")
# each field of a cron line as GitHub reads it: its name, its range, the names it takes (first = lowest)
_CRON_FIELDS = (("minute", 0, 59, ()), ("hour", 0, 23, ()), ("day of the month", 1, 31, ()),
                ("month", 1, 12, _MONTHS), ("day of the week", 0, 6, _DAYS))
_CRON_ITEM = re.compile(r"(?:\*|(\w+)(?:-(\w+))?)(?:/([0-9]+))?")


def cron_fault(cron: str) -> str | None:
    """Why GitHub would refuse ``cron`` as a schedule, or None. GitHub reads POSIX cron: five
    fields, each ``*``, a value or a range, with an optional ``/step`` after ``*`` or a range,
    or a list of them; months may be JAN-DEC and days of the week SUN-SAT. A workflow with a
    cron it refuses is never scheduled, and says so only on GitHub; nor is one whose cron never
    fires (``_never_fault``), and nothing says so at all."""
    fields = [f for f in cron.split(" ") if f]
    if len(fields) != 5 or any(c.isspace() and c != " " for c in cron):
        return "is not five cron fields such as '17 4 * * *'"
    for text, (name, low, high, names) in zip(fields, _CRON_FIELDS):
        if not all(_cron_item(item, low, high, names) for item in text.split(",")):
            spelled = f"{low}-{high}" + (f" or {names[0]}-{names[-1]}" if names else "")
            return f"{name} {text!r} is not {spelled} (a value, a range, * or a list, with an optional /step)"
    return _never_fault(fields)


_MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)  # February has a 29th in leap years


def _never_fault(fields: list[str]) -> str | None:
    """Why a well-formed cron never fires, or None: every day of the month it names lies beyond
    every month it names (``31 2``: February has no 31st). Where the day of the week is named
    too, cron runs on either day, so it fires on those weekdays."""
    if fields[4] != "*":
        return None
    days = _cron_values(fields[2], 1, 31, ())
    months = _cron_values(fields[3], 1, 12, _MONTHS)
    longest = max((_MONTH_DAYS[month - 1] for month in months), default=31)
    if min(days, default=1) <= longest:
        return None
    return (f"day of the month {fields[2]!r} never comes in month {fields[3]!r} (at most {longest} days), "
            "so the workflow would never run")


def _cron_values(text: str, low: int, high: int, names: tuple[str, ...]) -> set[int]:
    """The values a cron field names (one ``_cron_item`` has read: each item well formed)."""
    values: set[int] = set()
    for item in text.split(","):
        found = _CRON_ITEM.fullmatch(item)
        first, last, step = found.groups() if found else (None, None, None)
        start = _cron_value(first, low, names) if first else low
        end = _cron_value(last or first, low, names) if first else high
        if start is not None and end is not None:
            values.update(range(start, end + 1, int(step or 1)))
    return values


def _cron_item(item: str, low: int, high: int, names: tuple[str, ...]) -> bool:
    """Whether one item of a cron field's list reads: ``*``, ``N`` or ``N-M``, then ``/STEP``."""
    found = _CRON_ITEM.fullmatch(item)
    if found is None:
        return False
    first, last, step = found.groups()
    if step is not None and (int(step) == 0 or (first is not None and last is None)):
        return False  # a step of nothing, or after a single value (5/15), which cron does not take
    if first is None:
        return True
    start, end = _cron_value(first, low, names), _cron_value(last or first, low, names)
    return start is not None and end is not None and low <= start <= end <= high


def _cron_value(text: str, low: int, names: tuple[str, ...]) -> int | None:
    """A number, or a name's number (``names`` start at the field's lowest value)."""
    if text.isdigit() and text.isascii():
        return int(text)
    return names.index(text.upper()) + low if text.upper() in names else None


_DIRECT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[^\]]*\])?\s*@\s*(\S.*)")  # PEP 508's NAME @ URL
_FETCHED = ("git+https", "git+ssh", "https")  # what pip fetches over a channel that authenticates its server


def _check_install(spec: str) -> None:
    """Refuse what the workflows must not install (the module's documentation says what may)."""
    if not spec.strip() or any(c in spec for c in "'\n\\"):
        raise UsageError(f"--install {spec!r} must be one pip requirement (no quotes)")
    if not (spec.isascii() and spec.isprintable()):  # the workflow is written as UTF-8; a URL is ASCII
        raise UsageError(f"--install {spec!r} must be printable ASCII: percent-encode anything else in the URL")
    spec = spec.strip()
    if spec.startswith("-"):
        raise UsageError(f"--install {spec!r} is an option of pip, not what to install: name a git URL at a tag "
                         f"or commit, e.g. {EXAMPLE_INSTALL}")
    direct = _DIRECT.fullmatch(spec)
    where = direct.group(1) if direct else spec
    if where == "." or where.startswith(("./", "../", "/")):
        if where == "." or (where.startswith("./") and "/../" not in f"{where}/"):
            return  # the checked-out repository's own files
        raise UsageError(f"--install {spec!r} names a path outside the checkout, which a runner does not have: "
                         f"name a git URL at a tag or commit, e.g. {EXAMPLE_INSTALL}")
    scheme = where.split("://", 1)[0].lower() if "://" in where else ""
    if scheme in _FETCHED:
        _refuse_credential(spec, where, scheme)
        return
    if scheme:
        raise UsageError(f"--install {spec!r}: pip would fetch it over {scheme}, which does not authenticate the "
                         "server; use https or ssh")
    raise UsageError(f"--install {spec!r} names what a package index resolves, where the name gitstore is another "
                     f"project's: name a git URL at a tag or commit, e.g. {EXAMPLE_INSTALL}")


_EXPRESSION = re.compile(r"\$\{\{[^{}]*\}\}")  # an Actions expression (a secret), which the runner fills in


def _refuse_credential(spec: str, url: str, scheme: str) -> None:
    """Refuse a URL holding a credential: a password, or over https a user name alone (a token
    goes there as well). The workflows are committed and pushed: what the URL holds would be
    published with them. An Actions expression in its place (``${{ secrets.NAME }}``) is filled
    in by the runner, and the file holds only its name."""
    authority = url.split("://", 1)[1].split("/", 1)[0]
    if "@" not in authority:
        return
    user, _, password = authority.rpartition("@")[0].partition(":")
    secret = password or (user if scheme.endswith("https") else "")  # over ssh a user name alone is an account
    if secret and not _EXPRESSION.fullmatch(secret):
        shown = spec.replace(authority.rpartition("@")[0], "...", 1)
        raise UsageError(f"--install {shown!r}: the URL holds a credential, and the workflows are committed: it "
                         "would be published with them; name a secret the runner fills in instead, e.g. "
                         "git+https://x-access-token:${{ secrets.GITSTORE_INSTALL_TOKEN }}@github.com/OWNER/gitstore@TAG")


def planned(options: Options) -> tuple[dict[Path, str], list[str]]:
    """The files to write and the parts left out, for this version of gitstore."""
    check(options)
    options = resolved(options)
    dream, sync, gates, provenance = (have(p) for p in ("dream", "sync", "gates", "provenance"))
    files = {MEMORY: memory_workflow(options, dream, sync)}
    left_out = []
    if not dream:
        left_out.append("dream and the memory pull request: this gitstore has no dream stage")
    if not sync:
        left_out.append("gitstore sync: the memory refs are fetched and pushed with git")
    if gates or provenance:
        files[GATES] = gates_workflow(options, gates, provenance)
    else:
        left_out.append("the pull-request workflow: this gitstore has neither gates nor provenance")
    if gates:
        files[GATES_CONFIG] = gates_config()
    elif provenance:
        left_out.append("the gates: this gitstore has no pre-commit gates")
    return files, left_out


def init_ci(root: Path, options: Options, force: bool = False) -> CiReport:
    """Write the workflows under ``root``; a file that differs is kept unless ``force``. The
    gates' configuration, where one is there, has gitstore's hooks brought up to date in place
    (``refreshed_config``) instead, whatever else it holds, even when a workflow that differs
    is kept: an older ``gitstore ci init`` wrote hooks that skip what the gates must judge."""
    files, left_out = planned(options)
    for path in files:
        _refuse_link_out(root, root / path)
    refreshed = refreshed_config(root) if GATES_CONFIG in files else None
    if refreshed is not None:
        files[GATES_CONFIG] = refreshed[0]
    differing = [p for p, text in files.items()
                 if _found(root / p, text) == "replaced" and (refreshed is None or p != GATES_CONFIG)]
    if differing and not force:
        names = ", ".join(p.as_posix() for p in differing)
        updated = ""
        if refreshed is not None and refreshed[1]:
            replace_file(root / GATES_CONFIG, refreshed[0])
            updated = f" ({GATES_CONFIG.as_posix()}: gitstore's hooks brought up to date in place)"
        raise Refused(f"{names} differ from what gitstore would write (edited?); --force replaces them{updated}")
    report = CiReport(left_out=left_out)
    for path, text in files.items():
        target = root / path
        action = _found(target, text)
        if action != "unchanged":
            target.parent.mkdir(parents=True, exist_ok=True)
            replace_file(target, text)
        if action == "replaced" and refreshed is not None and path == GATES_CONFIG:
            action = "updated"
        report.files.append({"path": path.as_posix(), "action": action})
    return report


def refreshed_config(root: Path) -> tuple[str, dict[str, list[str]]] | None:
    """The gates' configuration under ``root`` with gitstore's hooks brought up to date in place,
    and which keys of which hook changed (``hooks.refreshed``); None where there is none, or it
    is no configuration to update (not UTF-8 YAML with ``repos``: --force replaces it)."""
    from gitstore.sync.hooks import refreshed

    try:
        text = read_regular(root / GATES_CONFIG).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return refreshed(text)


GATES_NEED_POLICY = (
    "the gates workflow runs on a checkout that is no one's clone, where a decision counts only when signed by "
    "a person the default branch's policy names: without one, every promotion pull request fails its gates "
    "(\"not an accepted learning in force\"), even one `gitstore provenance` verifies on its author's clone")


def gates_policy(repo: Any) -> dict[str, Any] | None:
    """Whether the gates workflow can pass a promotion here: None when the default branch holds a
    usable team policy; else ``{"mode", "branch", "warning", "next"}``, the warning saying what
    is missing and why the gates need it, ``next`` what to do. The gates read the policy on the
    default branch only (a pull request's author never writes the policy its gates read), so a
    policy in the work tree, not yet committed there, does not count."""
    from gitstore.providers._policy_git import current, no_default_branch
    from gitstore.records.policy import FOLDER

    state = current(repo)
    if state.mode == "policy":
        return None
    branch = state.branch
    name = (branch.split("/", 3)[-1] if branch and branch.startswith("refs/remotes/")
            else branch[len("refs/heads/"):] if branch else "the default branch")
    merge = f"commit {FOLDER}/ and merge it into {name}"
    if state.mode == "broken":
        warning = f"the team policy on {name} cannot be used ({state.problem}); {GATES_NEED_POLICY}"
        todo = f"fix {FOLDER}/ as `gitstore policy show` says, then {merge}"
    else:
        where = f"on {name}" if branch else f"here ({no_default_branch(repo)[0]})"
        warning = f"no team policy {where} ({FOLDER}/policy.json and allowed_signers); {GATES_NEED_POLICY}"
        todo = (f"`gitstore policy init` (then `gitstore policy add` for each reviewer), {merge}; then accept "
                "the promoted learnings again, signed (decisions made before a policy count on their own clone "
                "only)")
    return {"mode": state.mode, "branch": branch, "warning": warning, "next": todo}


def _refuse_link_out(root: Path, path: Path) -> None:
    """A commit can make ``.github`` a link to a folder of the user's elsewhere: the workflows
    are written in the repository's own files only."""
    link = leads_out(root, path)
    if link is not None:
        raise Refused(f"{link.relative_to(root).as_posix()} is a link to {os.readlink(link)}, outside the repository; "
                      "the workflows are written in the repository's own files, never through a link leading out: "
                      "make it a folder (or file) of its own; left untouched")


def _found(path: Path, text: str) -> str:
    """What writing ``text`` at ``path`` does: ``created``, ``unchanged``, or ``replaced`` where
    anything else is there (other text, bytes that are not UTF-8, a FIFO, never waited on)."""
    try:
        return "unchanged" if read_regular(path) == text.encode("utf-8") else "replaced"
    except FileNotFoundError:
        return "created"
    except OSError:
        return "replaced"


# -- the memory pull request's description --------------------------------------------------------

SHOWN = 30


def report_body(dream: Any) -> str:
    """The memory pull request's description from a dream's ``--json`` report."""
    _check_report(dream)
    proposed = dream["proposed"]
    lines = ["## New proposals waiting for review", "",
             f"Dream {_cell(dream.get('status', '?'), cell=False)}: {len(proposed)} new proposal(s), "
             f"{len(dream.get('heldBack') or [])} theme(s) held back as contested and "
             f"{len(dream.get('rejected') or [])} rejected.", ""]
    if proposed:
        lines += ["| proposal | title | category | audience | independent origins | replaces |",
                  "|---|---|---|---|---|---|"]
        for entry in proposed[:SHOWN]:
            origins = (entry.get("signals") or {}).get("origins")
            cells = [_cell(entry.get("id", "?")), _cell(entry.get("title")), _cell(entry.get("category")),
                     _cell(entry.get("audience")), "?" if origins is None else _cell(origins), _replaced(entry.get("replaces"))]
            lines.append("| " + " | ".join(cells) + " |")
        if len(proposed) > SHOWN:
            lines.append(f"\n... and {len(proposed) - SHOWN} more (`gitstore proposals`).")
        lines.append("")
        if any(entry.get("replaces") for entry in proposed):
            lines += ["Accepting a proposal that replaces learnings takes them out of force (`gitstore show ID` "
                      "names them with their titles).", ""]
    missing = (dream.get("completeness") or {}).get("missing") or []
    if missing:
        lines += [f"**The dream saw an incomplete window:** {'; '.join(_cell(m, cell=False) for m in missing[:5])}.", ""]
    lines += ["### Deciding", "",
              "Proposals are decided by people on their own clones, never by merging this pull request:", "",
              "```sh", "git fetch origin            # brings the memory refs (gitstore init added them)",
              "gitstore proposals", "gitstore show ID            # what a reviewer sees, with the reviewDigest",
              "gitstore accept ID --review-digest sha256:...   # or reject", _share_line(),
              "```", "",
              "This branch carries what `gitstore publish` wrote for learnings accepted so far "
              "(AGENTS.md's managed section and the continual-learning index); the next run updates it.", ""]
    return "\n".join(lines)


def _share_line() -> str:
    if have("sync"):
        return "gitstore sync               # shares the decision"
    return "git push origin 'refs/memory/v1/records/shared/*:refs/memory/v1/records/shared/*'   # shares it"


def _check_report(dream: Any) -> None:
    """Refuse what is not shaped like a dream's report, naming the first part that is not."""
    def refuse(why: str) -> InvalidInput:
        return InvalidInput(f"not a dream report (gitstore dream --json): {why}")

    if not isinstance(dream, dict) or not isinstance(dream.get("proposed"), list):
        raise refuse("no list of proposals")
    for key in ("heldBack", "rejected"):
        if not isinstance(dream.get(key, []), (list, type(None))):
            raise refuse(f"'{key}' is not a list")
    completeness = dream.get("completeness", {})
    if not isinstance(completeness, (dict, type(None))) \
            or not isinstance((completeness or {}).get("missing", []), (list, type(None))):
        raise refuse("'completeness' is not an object with a list 'missing'")
    for number, entry in enumerate(dream["proposed"], 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("signals", {}), (dict, type(None))):
            raise refuse(f"proposal {number} is not an object with an object 'signals'")


def _scalar(value: Any) -> str:
    """A value as text; a list or object (never what a report holds there) as ``?``."""
    return "?" if isinstance(value, (list, dict)) else str(value)


def _replaced(ids: Any) -> str:
    """The learnings a proposal replaces, as code; ``-`` for none, ``?`` for what is no list of ids."""
    if not ids:
        return "-"
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        return "?"
    return ", ".join(code(i, cell=True, limit=40) for i in ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


def _cell(value: Any, cell: bool = True) -> str:
    """A value of the report (a title anyone's comments led to, an id, a word) for the pull
    request's description: as code, so GitHub shows it and acts on none of it (no mention, no
    issue it closes, no link or image); ``-`` for none, ``?`` for a list or object."""
    if value is None or isinstance(value, (list, dict)):
        return "-" if value is None else "?"
    return code(str(value), cell=cell, limit=120)
