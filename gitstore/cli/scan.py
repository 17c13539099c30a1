"""``gitstore scan``: run the safety scanner over files and report what it found.

The report names kinds and counts only, never the material found. Exit 1 when any file is
quarantined, else 0.
"""

from __future__ import annotations

from typing import Any

import typer

from ..errors import InvalidInput
from ..safety import ScanResult, default_scanner
from ._io import JSON_OPTION, emit_json, read_input


def _read_text(name: str) -> str:
    """FILE as UTF-8 text; anything else is refused with a one-line error."""
    data = read_input(name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{name}: not UTF-8 text (byte {exc.start})") from None


def _lines(name: str, result: ScanResult) -> list[str]:
    if not result.findings:
        return [f"{name}: clean"]
    return [f"{name}: {f.action} {f.kind} x{f.count}" for f in result.findings]


def scan(
    files: list[str] = typer.Argument(..., help="Files to scan, or - for standard input."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Scan files for hidden characters, prompt injection, secrets and home paths."""
    texts = [(name, _read_text(name)) for name in files]
    scanner = default_scanner()
    results = [(name, scanner.scan(text)) for name, text in texts]
    quarantined = any(result.quarantined for _, result in results)
    if as_json:
        report: list[dict[str, Any]] = [{"file": name, **r.report()} for name, r in results]
        emit_json({"ok": not quarantined, "files": report})
    else:
        for name, result in results:
            for line in _lines(name, result):
                typer.echo(line)
    if quarantined:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(scan)
