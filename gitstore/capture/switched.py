"""Which harnesses with gitstore's hook installed have hooks switched off by their own settings.

Read only, and without the store: ``gitstore.capture.disabled`` records what this finds, and a
capture's transcript reader (``gitstore.capture.readahead``), which imports no git bindings,
asks it ahead of the capture's append so that the capture need not.
"""

from __future__ import annotations

from pathlib import Path

from gitstore.capture.harnesses import HARNESSES, Harness
from gitstore.errors import InvalidInput
from gitstore.records.inputs import read_regular


def switched_off(repo_root: Path | None, home: Path) -> dict[str, str]:
    """Harness -> why, for each harness with gitstore's hook installed whose settings switch
    hooks off."""
    found = {}
    for adapter in HARNESSES.values():
        if installed(adapter, repo_root, home):
            why = adapter.switched_off(repo_root, home)
            if why:
                found[adapter.harness] = why
    return found


def installed(adapter: Harness, repo_root: Path | None, home: Path) -> bool:
    """Whether gitstore's hook is in the harness's configuration, in either scope."""
    for scope in adapter.scopes:
        if scope == "project" and repo_root is None:
            continue
        try:
            current = read_config(adapter.path(scope, repo_root, home))
            if current is not None and adapter.commands(current):
                return True
        except InvalidInput:
            continue
    return False


def read_config(path: Path) -> str | None:
    """A harness's configuration file as text; None when there is none. ``InvalidInput`` when
    it is a folder, cannot be read, or is not UTF-8."""
    try:
        data = read_regular(path)  # a FIFO is refused, never waited on
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise InvalidInput(f"{path}: is a directory") from None
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}: not UTF-8 text; left untouched") from None
