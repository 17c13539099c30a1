"""Local configuration and state under ``okf/.memory/`` (git-ignored, never committed).

``okf/.memory/config.json`` holds this clone's writer id and provider choice, written by
``gitstore init``. Values are read strictly: an unknown field or a bad value is an error that
names it, never silently ignored.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygit2

from gitstore.errors import InvalidInput, NotARepository, Refused
from gitstore.scope import open_repository, repository_scope

STATE_DIR = Path("okf") / ".memory"
CONFIG_NAME = "config.json"
PROVIDERS = ("git", "sqlite", "jsonl", "memory")
# sections other modules read strictly themselves: automation (rules/autosafe.py), capture
# (capture/sessions.py), delivery (deliver/limits.py)
_FIELDS = {"writer": str, "provider": str, "automation": object, "capture": object, "delivery": object}


@dataclass(frozen=True)
class Config:
    """This clone's settings."""

    writer: str
    provider: str = "git"

    def to_json(self) -> dict[str, Any]:
        return {"writer": self.writer, "provider": self.provider}


@dataclass(frozen=True)
class Workspace:
    """A repository gitstore runs in: its root, state folder, scope and configuration."""

    repo: pygit2.Repository
    root: Path
    state: Path
    scope: str
    config: Config

    @classmethod
    def find(cls, start: str | Path = ".") -> Workspace:
        """The workspace containing ``start``; refuses a repository ``gitstore init`` never set up."""
        repo = open_repository(start)
        root = Path(repo.workdir).resolve()
        state = root / STATE_DIR
        path = state / CONFIG_NAME
        if not path.is_file():
            raise NotARepository(f"gitstore is not set up in {root}: run `gitstore init` first")
        return cls(repo, root, state, repository_scope(repo), read_config(path))


def read_config(path: Path) -> Config:
    """Parse config.json strictly."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"{path}: cannot read configuration ({exc})") from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{path}: configuration must be a JSON object")
    for key, value in data.items():
        if key not in _FIELDS:
            raise InvalidInput(f"{path}: unknown field {key!r}")
        if _FIELDS[key] is not object and not isinstance(value, _FIELDS[key]):
            raise InvalidInput(f"{path}: field {key!r} must be a {_FIELDS[key].__name__}")
    if "writer" not in data:
        raise InvalidInput(f"{path}: no writer id")
    if data.get("provider", "git") not in PROVIDERS:
        raise InvalidInput(f"{path}: unknown provider {data['provider']!r} (one of {', '.join(PROVIDERS)})")
    return Config(writer=data["writer"], provider=data.get("provider", "git"))


def write_config(path: Path, config: Config) -> None:
    """Write config.json atomically."""
    tmp = path.with_suffix(".tmp")
    data = config.to_json()
    if path.exists():  # keep sections other modules own (automation)
        try:
            existing = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            existing = {}
        data = {**existing, **data} if isinstance(existing, dict) else data
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def new_writer_id() -> str:
    """A fresh writer id for a clone."""
    return "w" + secrets.token_hex(6)


def git_ignores(root: Path, path: Path) -> bool:
    """Whether git ignores ``path`` (following links), as real git decides."""
    real = path.resolve()
    try:
        rel = real.relative_to(root.resolve())
    except ValueError:
        return False
    probe = str(rel / "probe") if real.is_dir() or not real.exists() else str(rel)
    done = subprocess.run(
        ["git", "check-ignore", "-q", "--no-index", probe], cwd=root, capture_output=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k.startswith("GIT_CONFIG")},
    )
    return done.returncode == 0


def ensure_ignored(repo: pygit2.Repository, root: Path, folder: Path) -> bool:
    """Make git ignore ``folder`` through .git/info/exclude; True if a rule was added."""
    if git_ignores(root, folder):
        return False
    exclude = Path(repo.path) / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    rule = "/" + folder.resolve().relative_to(root.resolve()).as_posix() + "/"
    existing = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    with exclude.open("a", encoding="utf-8") as out:
        if existing and not existing.endswith("\n"):
            out.write("\n")
        out.write(f"# gitstore: local memory state, never committed\n{rule}\n")
    if not git_ignores(root, folder):
        raise Refused(f"{folder} is still not ignored by git after adding {rule} to {exclude}")
    return True
