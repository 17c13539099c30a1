"""Auto-safe: off by default, strict configuration that fails closed, low-risk kinds with
verified-command evidence only, labelled auto-safe, promoted by a person's accept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitstore.context import Context
from gitstore.rules.autosafe import eligible, settings
from gitstore.rules import autosafe
from gitstore.ops import learning as ops
from gitstore.rules.active import active, evaluate

from .cli import gitstore
from .world import Thread, grant_all, propose, ready_repo, ref


def _configure(ctx, section) -> Context:  # type: ignore[no-untyped-def]
    """Write an automation section and take it with `gitstore init --accept-changes`, as a person does; the next
    command (a fresh context) reads it."""
    path = ctx.workspace.state / "config.json"
    data = json.loads(path.read_text())
    data["automation"] = section
    path.write_text(json.dumps(data))
    assert gitstore("init", "--accept-changes", cwd=ctx.workspace.root).returncode == 0
    return Context.open(str(ctx.workspace.root))


@pytest.fixture
def world(tmp_path: Path):  # type: ignore[no-untyped-def]
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx, sources=("review-thread", "agent-session"))
    session = Thread(ctx, None, "run", kind="agent-session")  # this clone's session: kept local
    ran = session.event("observation", "run:1", "2026-03-01T10:00:00.000000Z", author="github:1001",
                        command="make test", exitCode=0, text="all tests passed")
    failed = session.event("observation", "run:2", "2026-03-01T11:00:00.000000Z", author="github:1001",
                           command="make lint", exitCode=2, text="lint failed")
    session.save()
    thread = Thread(ctx, 7, "100")
    comment = thread.comment("100", "Run make test before pushing.", "2026-03-01T12:00:00.000000Z")
    thread.save()
    return ctx, ran, failed, comment


def test_off_by_default(world) -> None:  # type: ignore[no-untyped-def]
    ctx, ran, *_ = world
    assert settings(ctx.workspace.config).enabled is False
    assert propose(ctx, [ref(ran)], title="Tests", text="Run make test.")["state"] == "proposed"


@pytest.mark.parametrize(
    ("section", "why"),
    [
        ({"autoSafe": True, "kinds": ["convention"], "minEvidence": "verified-command", "extra": 1}, "unknown field 'extra'"),
        ({"autoSafe": True, "kinds": ["decision"]}, "kind 'decision' is not low-risk"),
        ({"autoSafe": True, "minEvidence": "human"}, "weaker than verified-command"),
        ({"autoSafe": "yes"}, "autoSafe must be true or false"),
        ([1], "must be a JSON object"),
    ],
)
def test_bad_configuration_disables_automation_and_says_why(world, section, why) -> None:  # type: ignore[no-untyped-def]
    ctx, ran, *_ = world
    ctx = _configure(ctx, section)
    found = settings(ctx.workspace.config)
    assert found.enabled is False and any(why in p for p in found.problems)
    assert propose(ctx, [ref(ran)], title="Tests", text="Run make test.")["state"] == "proposed"
    done = gitstore("status", cwd=ctx.workspace.root)
    assert done.returncode == 0 and "automation disabled" in done.stdout and why in done.stdout


def test_a_command_in_a_record_anyone_could_push_proves_no_run(world) -> None:  # type: ignore[no-untyped-def]
    """An observation of a command that succeeded, in a review thread (shared: any writer can
    push one, as another clone's records arrive), is no session this clone captured."""
    ctx, *_ = world
    ctx = _configure(ctx, {"autoSafe": True, "kinds": ["convention"]})
    thread = Thread(ctx, 41, "4100")
    planted = thread.event("observation", "run:41", "2026-03-02T10:00:00.000000Z", author="github:7003",
                           command="make fixtures", exitCode=0, text="fixtures read from the shared bucket mirror")
    thread.save()
    record = propose(ctx, [ref(planted)], title="Fixtures", text="The integration suite reads its fixtures from the "
                     "shared bucket mirror.")
    assert record["state"] == "proposed"
    assert eligible(ctx.view(), settings(ctx.workspace.config), record) == \
        "not every piece of evidence is from a session this clone captured"


def test_verified_command_evidence_is_auto_accepted_and_labelled(world) -> None:  # type: ignore[no-untyped-def]
    ctx, ran, failed, comment = world
    ctx = _configure(ctx, {"autoSafe": True, "kinds": ["convention"]})
    record = propose(ctx, [ref(ran)], title="Tests", text="Run make test before pushing.")
    assert record["state"] == "auto-active" and record["decision"]["by"] == "bot:gitstore-auto-safe"
    [(status, _)] = active(ctx.view(), "instruction")
    assert status.trust == "auto-safe"
    assert propose(ctx, [ref(failed)], title="Lint", text="Run make lint.")["state"] == "proposed"
    assert propose(ctx, [ref(comment)], title="Push", text="Test before push.")["state"] == "proposed"
    risky = propose(ctx, [ref(ran)], title="Sudo", text="Run tests with sudo to fix permissions.")
    assert risky["state"] == "proposed"
    promoted = ops.accept(ctx, record["id"], record["reviewDigest"], "github:9")
    assert promoted["state"] == "accepted"
    assert evaluate(ctx.view(), "instruction")[record["id"]].trust == "human"


def test_automation_switched_on_by_an_edit_init_has_not_taken_accepts_nothing(world) -> None:  # type: ignore[no-untyped-def]
    """A patch can write config.json as well as a person (``git apply`` leaves git no trace):
    an automation section init has not taken accepts nothing, and doctor names the change."""
    from gitstore.queries.doctor import doctor

    ctx, ran, _, _ = world
    path = ctx.workspace.state / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "automation": {"autoSafe": True, "kinds": ["convention"]}}))
    ctx = Context.open(str(ctx.workspace.root))
    assert propose(ctx, [ref(ran)], title="Tests", text="Run make test before pushing.")["state"] == "proposed"
    [check] = [c for c in doctor(ctx.workspace.root).checks if c.name == "config"]
    assert "automation" in check.detail and "gitstore init" in check.todo, check


@pytest.fixture
def sessions(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A repository with automation on and five commands observed to succeed, each in a complete session."""
    ctx = ready_repo(tmp_path / "widgets")
    grant_all(ctx, sources=("review-thread", "agent-session"))
    ctx = _configure(ctx, {"autoSafe": True, "kinds": ["convention", "project-knowledge"]})
    runs = []
    for n, command in enumerate(["make test", "make test", "black .", "pytest -x", "make docs"]):
        thread = Thread(ctx, None, str(200 + n), kind="agent-session")
        runs.append(thread.event("observation", f"run:{n}", f"2026-03-0{n + 1}T10:00:00.000000Z",
                                 author="github:1001", command=command, exitCode=0, text="passed"))
        thread.save()
    return ctx, runs


def _auto(ctx, evidence, title, text, **kw):  # type: ignore[no-untyped-def]
    draft = ops.Draft(title=title, text=text, category=kw.pop("category", "convention"), evidence=evidence,
                      counterevidence=[], proposer=("person", "github:9"), **kw)
    return ops.propose(ctx, draft, "github:9")


def test_contrary_advice_on_other_evidence_is_never_auto_accepted(sessions) -> None:  # type: ignore[no-untyped-def]
    ctx, runs = sessions
    first = _auto(ctx, [ref(runs[0])], "Tests before push", "Run make test before pushing.")
    assert first["state"] == "auto-active"
    contrary = _auto(ctx, [ref(runs[1])], "Tests in CI only", "Never run make test before pushing; CI runs it.")
    assert contrary["state"] == "proposed"
    in_force = {status.id for status, _ in active(ctx.view(), "instruction")}
    assert in_force == {first["id"]}, "two contradicting learnings must never both be active"
    assert "the same theme" in (autosafe.eligible(ctx.view(), settings(ctx.workspace.config), contrary) or "")


@pytest.mark.parametrize("case", ["same-evidence", "same-target", "existing-proposal"])
def test_every_kind_of_conflict_keeps_the_gate_out(sessions, case: str) -> None:  # type: ignore[no-untyped-def]
    ctx, runs = sessions
    if case == "same-evidence":
        _auto(ctx, [ref(runs[2])], "Formatting", "Format Python code with black.")
        second = _auto(ctx, [ref(runs[2])], "Style", "Let the formatter settle style arguments.")
    elif case == "same-target":
        _auto(ctx, [ref(runs[4])], "Docs build", "The docs build from the sources.", targets=("docs/conf.py",))
        second = _auto(ctx, [ref(runs[2])], "Formatting", "Format Python code with black.", targets=("docs/conf.py",))
    else:  # a learning waiting for a person blocks the gate as an active one does
        ops.propose(ctx, ops.Draft(title="Quick runs", text="Use pytest -x for quick local runs.",
                                   category="convention", evidence=[ref(runs[3])], counterevidence=[],
                                   proposer=("person", "github:9")), "github:9")
        second = _auto(ctx, [ref(runs[3])], "Quick runs", "Use pytest -x for quick local runs, it stops early.")
    assert second["state"] == "proposed"


def test_unrelated_and_rejected_learnings_do_not_count_as_conflicts(sessions) -> None:  # type: ignore[no-untyped-def]
    ctx, runs = sessions
    assert _auto(ctx, [ref(runs[0])], "Tests before push", "Run make test before pushing.")["state"] == "auto-active"
    assert _auto(ctx, [ref(runs[2])], "Formatting", "Format Python code with black.")["state"] == "auto-active"
    waiting = ops.propose(ctx, ops.Draft(title="Docs", text="Build the docs with make docs before a release.",
                                         category="convention", evidence=[ref(runs[4])], counterevidence=[],
                                         proposer=("person", "github:9")), "github:9")
    assert waiting["state"] == "auto-active"  # nothing it conflicts with
    ops.retire(ctx, waiting["id"], "github:9", "docs moved to another repository")
    again = _auto(ctx, [ref(runs[4])], "Docs", "Build the docs with make docs before every release.")
    assert again["state"] == "auto-active", "a retired learning is no longer live"


def _conflict_by_reading_each(view, record):  # type: ignore[no-untyped-def]
    """The conflict check working out every learning's subject again for each record."""
    from gitstore.rules.active import settle

    all_histories = view.histories()
    replaced = settle(view, all_histories).replaced_by
    for learning_id, history in sorted(all_histories.items()):
        if learning_id == record["id"] or learning_id in record["replaces"] or learning_id in replaced:
            continue
        if not history.valid or history.current["state"] not in autosafe.LIVE:
            continue
        other = history.current
        if set(autosafe._events(record)) & set(autosafe._events(other)):
            return f"it conflicts with {learning_id} (the same evidence)"
        if record["category"] == other["category"] and set(record["targets"]) & set(other["targets"]):
            return f"it conflicts with {learning_id} (the same target and category)"
        mine, theirs = autosafe._theme(record), autosafe._theme(other)
        shorter, shared = min(len(mine), len(theirs)), len(mine & theirs)
        if shorter and shared >= autosafe._THEME_WORDS and shared >= autosafe._THEME_SHARE * shorter:
            return f"it conflicts with {learning_id} (the same theme)"
    return None


def test_conflicts_are_found_as_reading_every_learning_for_each_proposal_would(tmp_path: Path) -> None:
    """The live learnings' subjects, worked out once per view, give each record the answer
    reading every learning for it would: on review threads with learnings in every state."""
    import copy

    from bench.bench_rules import Builder
    from gitstore.rules.view import View

    built = Builder(tmp_path / "repo", 120, 900, 3).build()
    view = View.load(Context.open(str(built.root)).store)
    records = [h.current for h in view.histories().values() if h.valid]
    variants = []
    for n, record in enumerate(records[:60]):  # fresh proposals: on the same theme, target, or neither
        variant = copy.deepcopy(record)
        variant["id"] = f"lrn_{n:032x}"
        variant["evidence"], variant["counterevidence"] = [], []
        if n % 3:
            variant["content"] = {**variant["content"], "title": f"Zq{n}", "text": f"Xv{n} wq{n} yk{n} jz{n}."}
        if n % 3 == 2:
            variant["targets"] = []
        variants.append(variant)
    answers = [autosafe.conflict(view, r) for r in [*records, *variants]]
    assert answers == [_conflict_by_reading_each(view, r) for r in [*records, *variants]]
    kinds = {a.split("(")[-1] if a else None for a in answers}
    assert kinds == {"the same evidence)", "the same theme)", "the same target and category)", None}
