"""SQLite for the agent hook: the C module straight away (``sqlite3``'s own import adds
``datetime`` and friends, milliseconds a hook pays on every prompt)."""

from __future__ import annotations

try:
    import _sqlite3 as sqlite
except ImportError:  # pragma: no cover - other Python builds
    import sqlite3 as sqlite  # type: ignore[no-redef]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Error = sqlite.Error
OperationalError = sqlite.OperationalError  # cannot open, read-only, locked: not damage
DatabaseError = sqlite.DatabaseError  # what damage (SQLITE_CORRUPT, SQLITE_NOTADB) raises, itself


def uri_path(file: str) -> str:
    """A file name as the path of a ``file:`` URI."""
    return file.replace("%", "%25").replace("?", "%3f").replace("#", "%23")


def connect(file: str, *, readonly: bool = False, immutable: bool = False, timeout: float = 5.0) -> Any:
    """A connection in autocommit mode (transactions are begun explicitly)."""
    if readonly:
        flags = "mode=ro&immutable=1" if immutable else "mode=ro"
        return sqlite.connect(f"file:{uri_path(file)}?{flags}", uri=True, timeout=timeout, isolation_level=None)
    return sqlite.connect(file, timeout=timeout, isolation_level=None)
