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


# Values earlier manifests gave a filter a person may set too: such a value is gitstore's, and is
# brought up to date; any other is the person's choice, and kept.
_FORMER = {("gitstore-skills", "files"): (r"(^|/)SKILL\.md$", r"(^|/)SKILL\.md$|^\.agents/skills/")}
_FILTERS = ("files", "exclude")
WORDING = ("name", "description")  # what a hook is called: out of date, it changes no run


def refreshed(text: str) -> tuple[str, dict[str, list[str]]] | None:
    """A pre-commit configuration's text with gitstore's local hooks brought up to date in
    place, and for each hook id the keys that changed; None when it is not a configuration
    (no YAML mapping with ``repos``). gitstore's hooks are the ``repo: local`` entries whose
    ``id`` and ``entry`` are a gate's of the manifest: each key the manifest gives takes its
    value (``language: system``), but a filter the person set (``files`` other than what a
    manifest once said); every other key, hook, repository and comment is kept as written
    (ruamel.yaml's round trip, with the file's own indentation)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.util import load_yaml_guess_indent

    try:
        data, indent, dash = load_yaml_guess_indent(text)
    except Exception:  # any YAML the parser refuses: not a configuration gitstore can update
        return None
    if not isinstance(data, CommentedMap) or not isinstance(data.get("repos"), list):
        return None
    wanted = {hook["id"]: {**hook, "language": "system"} for hook in manifest()}
    changed: dict[str, list[str]] = {}
    for repo in data["repos"]:
        if not isinstance(repo, dict) or repo.get("repo") != "local" or not isinstance(repo.get("hooks"), list):
            continue
        for hook in repo["hooks"]:
            want = wanted.get(hook.get("id")) if isinstance(hook, CommentedMap) else None
            if want is None or hook.get("entry") != want["entry"]:
                continue  # a hook of the person's own
            for key, value in want.items():
                if hook.get(key) == value and key in hook:
                    continue
                if key in _FILTERS and key in hook and hook[key] not in _FORMER.get((want["id"], key), ()):
                    continue
                if isinstance(value, list):
                    value = CommentedSeq(value)
                    value.fa.set_flow_style()
                _put(hook, key, value, list(want))
                changed.setdefault(want["id"], []).append(key)
    if not changed:
        return text, {}
    yaml = YAML()
    yaml.width = 4096
    dash = dash or 0
    yaml.indent(mapping=indent or 2, sequence=max(indent or 2, dash + 2), offset=dash)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue(), changed


def _put(hook: Any, key: str, value: Any, order: list[str]) -> None:
    """Set ``key`` in ``hook``; a key it lacks goes before the first key the manifest lists
    after it, so the entry reads in the manifest's order."""
    if key in hook:
        hook[key] = value
        return
    later = order[order.index(key) + 1:]
    keys = list(hook)
    at = next((keys.index(k) for k in later if k in hook), len(keys))
    hook.insert(at, key, value)


def outdated(changed: dict[str, list[str]]) -> dict[str, list[str]]:
    """Of ``refreshed``'s changes, those a run goes by (not a hook's name or description)."""
    return {hook: keys for hook, keys in ((h, [k for k in ks if k not in WORDING]) for h, ks in changed.items()) if keys}
