"""``gitstore scan``: run the safety scanner over files and report what it found.

Each file is scanned as the content of its path: inside a repository, its path from the
repository's root, with that repository's ``.gitstore-allow`` list (found from the file's own
folder, wherever the scan runs) (secrets and home paths
only: a quarantine is never allowed, and its line says so). A line pinned to a value
(``PATH:KIND:LINE sha256=DIGEST``) clears that value alone; one without a pin clears what sits on
its line, there being no base to judge it against here (the ``gitstore-scan`` gate judges it
against HEAD or the range's base). The report names kinds and
counts only, never the material found. Exit 1 when any file is quarantined, else 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2
import typer

from gitstore._shown import one_line
from gitstore.errors import InvalidInput
from gitstore.safety.files import NOT_ALLOWED, Allowlist
from gitstore.safety.scanner import QUARANTINE, ConservativeScanner, ScanResult
from gitstore.cli._io import JSON_OPTION, emit_json, read_input
from gitstore.cli._values import checked, path

MAX_SCAN_BYTES = 64 << 20  # one file: the scanner is linear, but a file this large is no source text


def _read_text(name: str) -> str:
    """FILE as UTF-8 text; anything else is refused with a one-line error."""
    data = read_input(name, MAX_SCAN_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{name}: not UTF-8 text (byte {exc.start})") from None


def _root(name: str) -> Path | None:
    """The work tree of the repository holding FILE (the current folder's for standard input),
    if any: a file is scanned with its own repository's allow list, wherever the scan runs."""
    found = pygit2.discover_repository("." if name == "-" else str(Path(name).resolve().parent))
    if not found:
        return None
    try:
        workdir = pygit2.Repository(found).workdir
    except pygit2.GitError:  # a format the library cannot open (SHA-256 ids): git itself says where
        import subprocess

        done = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                              cwd=None if name == "-" else Path(name).resolve().parent)
        workdir = done.stdout.strip() if done.returncode == 0 else None
    return Path(workdir).resolve() if workdir else None


def _allowlist(root: Path | None) -> Allowlist:
    """The repository's ``.gitstore-allow``, or an empty list."""
    return Allowlist.read(root)


def _place(name: str, root: Path | None) -> str | None:
    """The path the scanner is told a file has: from the repository's root when the file is
    in it, else as given; none for standard input."""
    if name == "-":
        return None
    real = Path(name).resolve()
    if root is not None and real.is_relative_to(root):
        return real.relative_to(root).as_posix()
    return real.as_posix()


def _lines(name: str, result: ScanResult) -> list[str]:
    if not result.findings:
        return [f"{name}: clean"]
    return [f"{name}: {f.action} {f.kind} x{f.count}" + (f" ({NOT_ALLOWED})" if f.action == QUARANTINE else "")
            for f in result.findings]


def scan(
    files: list[str] = typer.Argument(..., metavar="FILE", help="Files to scan, or - for standard input.", callback=checked(path)),
    as_json: bool = JSON_OPTION,
) -> None:
    """Scan files for hidden characters, prompt injection, secrets and home paths."""
    texts = [(name, _read_text(name)) for name in files]
    scanners: dict[Path | None, ConservativeScanner] = {}
    results = []
    for name, text in texts:
        root = _root(name)
        if root not in scanners:
            scanners[root] = ConservativeScanner(_allowlist(root))
        results.append((name, scanners[root].scan(text, path=_place(name, root))))
    quarantined = any(result.quarantined for _, result in results)
    if as_json:
        report: list[dict[str, Any]] = [{"file": name, **r.report()} for name, r in results]
        emit_json({"ok": not quarantined, "files": report})
    else:
        for name, result in results:
            for line in _lines(one_line(name), result):  # one line each, whatever the name holds
                typer.echo(line)
    if quarantined:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(scan)
