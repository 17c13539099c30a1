"""``gitstore hooks``: install, remove and check the harness capture hooks."""

from __future__ import annotations

from pathlib import Path

import typer

from gitstore.cli._complete import words
from gitstore.errors import BareRepository, NotARepository, UnsupportedRepository
from gitstore.capture.harnesses import HARNESSES
from gitstore.capture.disabled import checked_status
from gitstore.capture.install import NOT_SET_UP, SCOPES, HookStatus, Report, install, uninstall
from gitstore.capture.outcomes import TODO as STORED_NOTHING_TODO
from gitstore.scope import open_repository
from gitstore.cli._io import JSON_OPTION, emit_json
from gitstore.cli._values import checked, one_of

# the state of a hook only its harness can vouch for (Codex's /hooks trust, which gitstore cannot read)
TRUST_UNREAD = "installed; trust not readable"

hooks_app = typer.Typer(help="Install, remove and check the harness capture hooks.", no_args_is_help=True)

_USER_ONLY = "".join(f" ({name}: --scope user only)" for name, h in HARNESSES.items() if "project" not in h.scopes)
HARNESS_OPTION = typer.Option(..., "--harness", metavar="HARNESS", autocompletion=words(HARNESSES), help=f"The coding agent: {', '.join(HARNESSES)}{_USER_ONLY}.",
                              callback=checked(one_of("harness", tuple(HARNESSES))))
SCOPE_OPTION = typer.Option(
    "project", "--scope", metavar="SCOPE", autocompletion=words(SCOPES), help="project (this repository's harness settings) or user (under $HOME).",
    callback=checked(one_of("scope", tuple(SCOPES)))
)


def _roots(scope: str) -> tuple[Path | None, Path]:
    """The repository root (required in project scope; None outside one in user scope) and the
    home folder."""
    return (_repository() if scope != "project" else Path(open_repository(".").workdir).resolve()), Path.home()


def _repository() -> Path | None:
    return _around()[0]


def _around() -> tuple[Path | None, str]:
    """The root of the repository around the current folder, or None and why there is none."""
    try:
        return Path(open_repository(".").workdir).resolve(), ""
    except (UnsupportedRepository, BareRepository) as exc:  # a repository gitstore cannot use: say why
        return None, str(exc)
    except NotARepository:
        return None, "not in a git repository"


def _show(report: Report, as_json: bool) -> None:
    if as_json:
        emit_json(report.to_json())
        return
    typer.echo(f"{report.action} {report.harness} ({report.scope}) {report.path}")
    for note in report.notes:
        typer.echo(f"  note: {note}")
    for step in report.next:
        typer.echo(f"  next: {step}")


@hooks_app.command("install")
def install_(harness: str = HARNESS_OPTION, scope: str = SCOPE_OPTION, as_json: bool = JSON_OPTION) -> None:
    """Add gitstore's capture hook to a harness's configuration (idempotent)."""
    _show(install(harness, scope, *_roots(scope)), as_json)


@hooks_app.command("uninstall")
def uninstall_(harness: str = HARNESS_OPTION, scope: str = SCOPE_OPTION, as_json: bool = JSON_OPTION) -> None:
    """Remove gitstore's capture hook from a harness's configuration, and nothing else."""
    _show(uninstall(harness, scope, *_roots(scope)), as_json)


@hooks_app.command("status")
def status_(as_json: bool = JSON_OPTION) -> None:
    """For each harness and scope: installed or not, the file, and whether the hook would capture."""
    repo_root, outside = _around()
    checked = checked_status(repo_root, Path.home())
    if as_json:
        emit_json({"repository": str(repo_root) if repo_root else None, "hooks": [r.to_json() for r in checked.rows],
                   "recordedHooksDisabled": list(checked.recorded)})
        return
    if repo_root is None:
        typer.echo(f"({outside}: project scopes not shown)")
    for row in checked.rows:
        typer.echo(f"{row.harness:<13} {row.scope:<8} {_state(row):<14} {row.path}")
        for problem in row.problems:
            typer.echo(f"  {problem}")
        for fix in row.todo:
            typer.echo(f"  to do: {fix}")
        if row.stored_nothing and row.works is not False:
            typer.echo(f"  {row.stored_nothing}")
            typer.echo(f"  to do: {STORED_NOTHING_TODO}")
    for harness in checked.recorded:
        typer.echo(f"recorded a hooks-disabled receipt for {harness}: its sessions are not captured")


def _state(row: HookStatus) -> str:
    if not row.installed:
        return "broken" if row.problems else "not installed"
    if row.problems == (NOT_SET_UP,):
        return "idle here"
    if row.works is None:
        review = HARNESSES[row.harness].review
        # the harness alone knows whether its user trusted the hook (Codex's /hooks): say what is known
        return TRUST_UNREAD if review and review[0] in row.problems else "not checked"
    if row.works and row.stored_nothing:
        return "stores nothing"  # it runs, and its latest capture stored no session
    return "works" if row.works else "does not work"


def register(app: typer.Typer) -> None:
    app.add_typer(hooks_app, name="hooks")
