"""gitstore's pre-commit gates as a CI's local hooks, from the one manifest that defines them.

``.pre-commit-hooks.yaml`` (shipped in the package as ``gitstore/_precommit/hooks.yaml``) is
what a repository uses when it names gitstore as a hook repository. A CI job that installed
gitstore with pip already has each gate as a console script, so its configuration runs the
same hooks as ``repo: local`` with ``language: system``: nothing to clone, and the gates are
the installed version's. Every other field (files, types, stages, ...) is the manifest's own.
"""

from __future__ import annotations

import io
from importlib import resources
from pathlib import Path
from typing import Any

from gitstore.errors import IntegrityError


def manifest_path() -> Path:
    """The hooks manifest: inside the installed package, or the source checkout."""
    packaged = resources.files("gitstore") / "_precommit" / "hooks.yaml"
    if packaged.is_file():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml"


def manifest() -> list[dict[str, Any]]:
    """The hooks the manifest defines."""
    from ruamel.yaml import YAML

    path = manifest_path()
    try:
        hooks = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise IntegrityError(f"{path}: gitstore's hooks manifest cannot be read ({exc.strerror})") from None
    if not isinstance(hooks, list) or not all(isinstance(h, dict) and "id" in h and "entry" in h for h in hooks):
        raise IntegrityError(f"{path}: not a pre-commit hooks manifest")
    return hooks


def local_hooks() -> str:
    """A pre-commit configuration running every gate as a local system hook (YAML text)."""
    from ruamel.yaml import YAML

    hooks = [{**hook, "language": "system"} for hook in manifest()]
    out = io.StringIO()
    yaml = YAML()
    yaml.default_flow_style = None
    yaml.width = 4096
    yaml.dump({"repos": [{"repo": "local", "hooks": hooks}]}, out)
    return out.getvalue()
