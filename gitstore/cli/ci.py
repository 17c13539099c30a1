"""``gitstore ci``: the GitHub Actions workflows that run the loop and the gates."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from gitstore import _jsontext
from gitstore.cli._io import JSON_OPTION, emit_json, read_input
from gitstore.cli._values import checked, path, time_or_age
from gitstore.errors import InvalidInput
from gitstore.sync.ci import (DEFAULT_CRON, DEFAULT_SINCE, DEFAULT_WRITER, GATES, Options, gates_policy, init_ci,
                              report_body)

ci_app = typer.Typer(help="Write the GitHub Actions workflows: the scheduled memory loop and the pull-request gates.",
                     no_args_is_help=True)


@ci_app.command("init")
def init(
    install: Optional[str] = typer.Option(None, "--install", help="What the workflows pip-install: a git+https, git+ssh or https URL, or a path in the checkout, e.g. git+https://github.com/OWNER/gitstore@TAG (default: the git URL and commit this gitstore was installed from; never a name a package index resolves: the PyPI name gitstore is another project's)."),
    writer: str = typer.Option(DEFAULT_WRITER, "--writer", help="The memory workflow's writer id, kept across runs."),
    cron: str = typer.Option(DEFAULT_CRON, "--cron", help="When the memory workflow runs (UTC cron)."),
    since: str = typer.Option(DEFAULT_SINCE, "--since", help="Pull requests updated within this age are imported each run.",
                       callback=checked(time_or_age)),
    force: bool = typer.Option(False, "--force", help="Replace workflow files that differ from what would be written."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Write .github/workflows/gitstore-memory.yml (scheduled loop) and gitstore-gates.yml (pull requests)."""
    from gitstore.scope import open_repository

    repo = open_repository(".")
    root = Path(repo.workdir)
    options = Options(install, writer, cron, since)
    report = init_ci(root, options, force)
    if any(f["path"] == GATES.as_posix() for f in report.files):
        report.policy = gates_policy(repo)
    if as_json:
        emit_json(report.to_json())
        return
    for entry in report.files:
        typer.echo(f"{entry['action']:<9} {entry['path']}")
    for part in report.left_out:
        typer.echo(f"left out: {part}")
    if report.policy is not None:
        typer.echo(f"warning: {report.policy['warning']}")
        typer.echo(f"next: {report.policy['next']}")
    typer.echo("next: commit them; for the gates to run on the memory pull request, give the workflow an App "
               "token (see the comment at the top of gitstore-memory.yml)")


@ci_app.command("report")
def report(
    dream_json: str = typer.Argument(..., metavar="DREAM_JSON", help="A dream's report (gitstore dream --json), or - for standard input.",
                                    callback=checked(path)),
) -> None:
    """Print the memory pull request's description (Markdown) from a dream's JSON report."""
    try:
        data = _jsontext.loads(read_input(dream_json, 64 << 20))
    except ValueError as exc:
        if "nested too deeply" in str(exc):
            raise InvalidInput(f"{dream_json}: not a dream report (gitstore dream --json): values nested too "
                               "deeply") from None
        raise InvalidInput(f"{dream_json}: not JSON (gitstore dream --json writes it)") from None
    try:
        body = report_body(data)
    except InvalidInput as exc:  # JSON, but not shaped as a report: named with the file, as the errors above
        raise InvalidInput(f"{dream_json}: {exc}") from None
    typer.echo(body, nl=False)


def register(app: typer.Typer) -> None:
    app.add_typer(ci_app, name="ci")
