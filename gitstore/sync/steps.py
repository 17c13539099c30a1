"""The steps a tick can run, registered by name in ``STEPS``, each one function.

A step function takes a ``Call`` (the repository root, its options as checked by
``gitstore.sync.settings``, who it acts as, and when it last succeeded), runs one stage through
its library function, and returns an ``Outcome``:

- ``ok``: it did something; ``no-update``: there was nothing to do;
- ``degraded``: it ran but saw or did only part of its work (an import missing pages, a dream
  that could not label): never reported as success;
- ``failed``: it could not run, and says why.

A step needs its stage's module (``needs``); when that is not installed in this version of
gitstore, the tick reports the step ``unavailable`` instead of running it or skipping it
silently. ``python -m gitstore.sync.steps`` runs one step in a process of its own (the tick
starts it, bounds it in time, and reads the one JSON line it prints).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitstore import _jsontext
from gitstore.errors import GitstoreError, InvalidInput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitstore.context import Context

OK, NO_UPDATE, DEGRADED, FAILED = "ok", "no-update", "degraded", "failed"
TIMED_OUT, UNAVAILABLE, NOT_DUE = "timed-out", "unavailable", "not-due"
SUCCESS = (OK, NO_UPDATE, NOT_DUE)


@dataclass(frozen=True)
class Outcome:
    """What one step did, in one line, with details for ``--json``."""

    status: str
    line: str
    detail: dict[str, Any] = field(default_factory=dict)
    waited: bool = False  # it waited for something of the user's (a rebase): still due at the next tick

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "line": self.line, "detail": self.detail, "waited": self.waited}


@dataclass(frozen=True)
class Call:
    """What a step is run with."""

    root: Path
    options: dict[str, Any] = field(default_factory=dict)
    by: str | None = None
    last_ok: str | None = None  # when its last successful run started: where incremental work resumes

    def to_json(self) -> dict[str, Any]:
        return {"root": str(self.root), "options": self.options, "by": self.by, "lastOk": self.last_ok}


Run = Callable[[Call], Outcome]


@dataclass(frozen=True)
class Step:
    """A step: what it runs, what it needs, its options and its default interval and bound."""

    name: str
    summary: str
    needs: str
    run: Run
    every: int
    timeout: int
    options: dict[str, type] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    check: Callable[[dict[str, Any], str], None] = lambda options, where: None

    def available(self) -> bool:
        """Whether the stage this step runs is installed."""
        try:
            return importlib.util.find_spec(self.needs) is not None
        except ImportError:
            return False


def _person(ctx: Context, by: str | None) -> str:
    """Who the loop acts as: ``loop.by``, else as a command would (``Context.person``)."""
    try:
        return ctx.person(by)
    except GitstoreError as exc:
        raise InvalidInput(f"{exc} (or set loop.by in okf/.memory/config.json)") from None


def _folder(root: Path, value: str) -> Path:
    path = Path(value)
    return path if path.is_absolute() else root / path


# -- the steps ------------------------------------------------------------------------------------

def reviews(call: Call) -> Outcome:
    """Import what is new in a folder of review snapshots or webhook deliveries."""
    from gitstore.capture.inbox import import_folder
    from gitstore.context import Context

    ctx = Context.open(str(call.root))
    report = import_folder(ctx, _folder(call.root, call.options["folder"]), _person(ctx, call.by),
                           ctx.workspace.state / "loop" / "reviews-imported.json",
                           remove_deleted=call.options.get("removeDeleted", False))
    events = sum(i["events"] for i in report.imports)
    line = f"{len(report.imports)} import(s), {events} new event(s), {report.already} file(s) already imported"
    if report.refused:  # named, with how to clear them, by the pass that first found them
        line += f", {len(report.refused)} file(s) from the future refused before ({', '.join(report.refused[:3])})"
    if report.problems or report.incomplete:
        missing = [f"{', '.join(i['files'])} missing pages" for i in report.incomplete]
        return Outcome(DEGRADED, f"{line}; " + "; ".join([*report.problems, *missing])[:400], report.to_json())
    return Outcome(OK if report.imports else NO_UPDATE, line, report.to_json())


def _since(call: Call) -> str:
    """Pull requests updated since ``since`` when configured; else since an hour before the last
    successful run started (updates in between are not missed); else the last week."""
    from datetime import timedelta

    from gitstore.records.times import format_time, parse_time, time_or_age

    if "since" in call.options:
        return time_or_age(call.options["since"])
    if call.last_ok:
        return format_time(parse_time(call.last_ok) - timedelta(hours=1))
    return time_or_age("7d")


def github(call: Call) -> Outcome:
    """Fetch and import pull requests' review comments through the GitHub REST API."""
    from gitstore.capture.github import import_github, token_from_environment
    from gitstore.context import Context

    ctx = Context.open(str(call.root))
    report = import_github(ctx, call.options["repo"], _person(ctx, call.by), since=_since(call),
                           api=call.options.get("apiUrl"), token=token_from_environment())
    imported = [p for p in report.pulls if p.outcome == "imported"]
    line = (f"{len(report.pulls)} pull request(s) read, {len(imported)} imported, "
            f"{report.requests} request(s)")
    problems = [*report.listing, *(f"#{p.pull}: {q}" for p in report.pulls for q in p.problems)]
    if not report.complete or problems:
        return Outcome(DEGRADED, f"{line}; incomplete: " + "; ".join(problems)[:400], report.to_json())
    return Outcome(OK if imported else NO_UPDATE, line, report.to_json())


def dream(call: Call) -> Outcome:
    """Propose learnings from recurring themes (``gitstore dream``)."""
    from gitstore.context import Context
    from gitstore.dream.run import Request, dream as run_dream  # type: ignore[import-not-found, unused-ignore]
    from gitstore.records.times import time_or_age

    since = time_or_age(call.options["since"]) if "since" in call.options else None
    by = _person(Context.open(str(call.root)), call.by)
    report = run_dream(call.root, Request(by=by, since=since), notify=lambda text: None)
    data = report.to_json()
    line = f"dream {report.status}: {report.result}, {len(report.proposed)} proposed, {len(report.held_back)} held back"
    if report.status == "blocked":
        return Outcome(FAILED, line + "; " + "; ".join(report.why), data)
    if report.status != "complete":
        todo = report.completeness.get("todo") or []
        return Outcome(DEGRADED, line + ("; " + "; ".join(report.why) if report.why else "")
                       + (f"; to complete the window: {'; '.join(todo)}" if todo else ""), data)
    return Outcome(OK if report.result == "updated" else NO_UPDATE, line, data)


def publish(call: Call) -> Outcome:
    """Write accepted learnings into AGENTS.md's managed section and the continual-learning index."""
    from gitstore.deliver.publish import publish as do_publish

    result = do_publish(str(call.root), claude=call.options.get("claude", False),
                        copilot=call.options.get("copilot", False))
    data = result.to_json()
    line = f"{result.status}: {result.reason}"
    if result.status == "blocked" and result.waits:  # the user's rebase or merge first: tried again next tick
        return Outcome(DEGRADED, line, data, waited=True)
    if result.status == "blocked":
        return Outcome(FAILED, line, data)
    if result.conflicts or result.warnings:
        return Outcome(DEGRADED, f"{line}; " + "; ".join([*result.conflicts, *result.warnings])[:400], data)
    return Outcome(OK if result.status == "published" else NO_UPDATE, line, data)


SYNC_MODULE = "gitstore.sync.remote"


def sync(call: Call) -> Outcome:
    """Fetch, verify and push the shared memory refs (``gitstore sync``)."""
    module = importlib.import_module(SYNC_MODULE)
    report = module.sync(str(call.root), call.options.get("remote", "origin"))
    data = report.to_json()
    status = {"ok": OK, "no-update": NO_UPDATE, "degraded": DEGRADED}.get(data.get("status"), FAILED)
    return Outcome(status, str(data.get("line") or data.get("status")), data)


def _check_github(options: dict[str, Any], where: str) -> None:
    import re

    if not re.fullmatch(r"[A-Za-z0-9._-]{1,100}/[A-Za-z0-9._-]{1,100}", options["repo"]):
        raise InvalidInput(f"{where}.repo must be OWNER/NAME")
    if "since" in options:
        from gitstore.records.times import time_or_age

        time_or_age(options["since"])


STEPS: dict[str, Step] = {
    "reviews": Step("reviews", "import review snapshots and webhook deliveries from a folder",
                    "gitstore.capture.inbox", reviews, every=15 * 60, timeout=5 * 60,
                    options={"folder": str, "removeDeleted": bool}, required=("folder",)),
    "github": Step("github", "import pull requests' review comments through the GitHub REST API",
                   "gitstore.capture.github", github, every=3600, timeout=10 * 60,
                   options={"repo": str, "since": str, "apiUrl": str}, required=("repo",), check=_check_github),
    "dream": Step("dream", "propose learnings from recurring themes", "gitstore.dream.run", dream,
                  every=86400, timeout=15 * 60, options={"since": str}),
    "publish": Step("publish", "write AGENTS.md's managed section and the continual-learning index",
                    "gitstore.deliver.publish", publish, every=86400, timeout=2 * 60,
                    options={"claude": bool, "copilot": bool}),
    "sync": Step("sync", "fetch, verify and push the shared memory refs", SYNC_MODULE, sync,
                 every=15 * 60, timeout=10 * 60, options={"remote": str}),
}


def main(argv: list[str] | None = None) -> int:
    """Run one step: ``{"step", "root", "options", "by", "lastOk"}`` on standard input, one JSON line out."""
    try:
        request = _jsontext.loads(sys.stdin.read())
        step = STEPS[request["step"]]
        outcome = step.run(Call(Path(request["root"]), request["options"], request.get("by"), request.get("lastOk")))
    except GitstoreError as exc:
        outcome = Outcome(FAILED, str(exc))
    except Exception as exc:  # a stage's bug fails its step, reported in one line, not the tick
        outcome = Outcome(FAILED, f"{type(exc).__name__}: {exc}"[:400])
    sys.stdout.write(json.dumps(outcome.to_json(), ensure_ascii=False, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
