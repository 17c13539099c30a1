"""JSON for the agent hook without the ``json`` module, whose import (and that of ``re``, which
it pulls in) is a fifth of a hook's start-up.

Reading goes through SQLite's JSON functions (the hook has SQLite loaded for recall anyway):
``json_valid`` accepts exactly RFC 8259 text, and ``json_tree`` walks it; writing goes through
the C string encoder ``json`` itself uses (``_json.encode_basestring``), keys sorted on request.
Both are checked against the standard library's ``json`` and the reference canonicaliser in
the tests. SQLite cannot hold a NUL inside a string, nor give back one holding half a UTF-16
pair (a lone surrogate, ``\\ud83d``: what JavaScript writes for a cut emoji), so the rare text
escaping either is read by ``json``. An error never quotes the text (a hook's input holds the
user's prompt, secrets included, and errors go to a log).
"""

from __future__ import annotations

from gitstore import _jsontext
from gitstore.deliver.db import sqlite

try:
    from _json import encode_basestring as _quote
except ImportError:  # pragma: no cover - other Python builds
    from json.encoder import py_encode_basestring as _quote  # type: ignore[assignment]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_ATOMS = {"true": True, "false": False, "null": None}


def loads(text: str | bytes) -> Any:
    """The value of a JSON text; raises ValueError when it is not valid JSON."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"not UTF-8 ({exc.reason})") from None
    if "\\u0000" in text:  # SQLite's C strings end at NUL: the rare text holding one goes to json
        return _loads_json(text)
    db = sqlite.connect(":memory:")  # one per call: costs microseconds, and is never shared between threads
    try:
        if not db.execute("SELECT json_valid(?)", (text,)).fetchone()[0]:
            raise ValueError("not valid JSON")
        rows = db.execute("SELECT id, parent, key, type, atom FROM json_tree(?)", (text,)).fetchall()
    except sqlite.Error:  # a lone surrogate (``\\ud83d``) is valid JSON SQLite cannot give back as text
        return _loads_json(text)
    finally:
        db.close()
    nodes: dict[int, Any] = {}
    root: Any = None
    for node, parent, key, kind, atom in rows:
        value = {} if kind == "object" else [] if kind == "array" else _ATOMS.get(kind, atom)
        nodes[node] = value
        if parent is None:
            root = value
        elif isinstance(nodes[parent], list):
            nodes[parent].append(value)
        else:
            nodes[parent][key] = value
    return root


def _loads_json(text: str) -> Any:
    """``text`` read by ``json``, its error named by kind and place only: its message may quote
    the text, and a hook's input holds the user's prompt."""
    try:
        return _jsontext.loads(text)
    except ValueError as exc:
        raise ValueError(f"not valid JSON ({type(exc).__name__})") from None


def dumps(value: Any, sort_keys: bool = False) -> str:
    """Compact JSON text (no spaces, non-ASCII kept) of strings, integers, booleans, None,
    lists and objects."""
    if isinstance(value, str):
        return _quote(value)  # type: ignore[no-any-return]
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(dumps(v, sort_keys) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value) if sort_keys else list(value)
        return "{" + ",".join(_quote(k) + ":" + dumps(value[k], sort_keys) for k in keys) + "}"
    raise TypeError(f"cannot write {type(value).__name__} as JSON here")
