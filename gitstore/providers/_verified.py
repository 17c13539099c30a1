"""Results of checks made on git objects, remembered so each is made once.

A git object never changes (its id is the hash of its bytes), so what a check found about it
stays true for as long as what it was checked *against* stays the same: a commit's signature
verified under one ``allowed_signers`` file. (Record bytes checked against one version of the
contracts are remembered in bulk in the same folder, by ``_known``: millions of them, known by
their SHA-256 rather than by a git object id, and trusted only while the refs they were read
from only advanced.) Each result is kept under ``(object id, context)``, the context naming everything
else the result depends on; a different context is a different key, so nothing stale is ever
served, and contexts no longer asked for are dropped when the file is written again.

One JSON file per kind of check, ``.git/gitstore/verified/<kind>.json``:
``{"<context>": {"<object id>": <result>}}``, written atomically; a lost race between two
processes only means a check is made again. A costly kind (``shared``: signatures, each an
ssh-keygen run) is shared by every ``Verified`` of its file within one process (``_FOUND``),
saved or not yet: a store opened afresh (a sync opens several, each as the records just
admitted leave it) never runs a check again that an earlier one in the same process made,
whenever that one writes the file.
"""

from __future__ import annotations

import json
import os
from contextlib import suppress
from pathlib import Path
from typing import Any

from gitstore import _jsontext

FOLDER = "verified"
KEEP_CONTEXTS = 8  # contexts kept per kind: the current ones and a few recent ones
_FOUND: dict[Path, dict[str, dict[str, Any]]] = {}  # by file: what this process read or found


class Verified:
    """Remembered results of one kind of check."""

    def __init__(self, state: Path, kind: str, *, shared: bool = False) -> None:
        self.path = state / FOLDER / f"{kind}.json"
        self._shared = shared
        self._data: dict[str, dict[str, Any]] | None = None
        self._used: dict[str, None] = {}
        self._changed = False

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._data is None:
            try:
                data = _jsontext.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
            read = {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}
            if not self._shared:
                self._data = read
                return read
            found = _FOUND.setdefault(self.path, {})
            for context, results in read.items():  # what other processes found, added to this one's
                known = found.setdefault(context, {})
                for oid, result in results.items():
                    known.setdefault(oid, result)
            self._data = found
        return self._data

    def get(self, oid: str, context: str) -> Any | None:
        """What the check found for ``oid`` under ``context``, or None when never checked."""
        self._used[context] = None
        return self._load().get(context, {}).get(oid)

    def put(self, oid: str, context: str, result: Any) -> None:
        """Remember a result (JSON-serialisable, not None)."""
        self._used[context] = None
        self._load().setdefault(context, {})[oid] = result
        self._changed = True

    def save(self) -> None:
        """Write the results if any changed, keeping the contexts used most recently."""
        if not self._changed or self._data is None:
            return
        recent = list(self._used) + [c for c in self._data if c not in self._used]
        kept = {c: self._data[c] for c in recent[:KEEP_CONTEXTS] if c in self._data}
        for context in [c for c in self._data if c not in kept] if self._shared else []:
            del self._data[context]  # the process forgets them too
        temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}")
        try:
            self.path.parent.mkdir(exist_ok=True)
            temporary.write_text(json.dumps(kept, sort_keys=True, separators=(",", ":")), encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError:  # read-only, or no folder to be had: check again next time
            with suppress(OSError):
                temporary.unlink(missing_ok=True)
        self._changed = False


__all__ = ["FOLDER", "Verified"]
