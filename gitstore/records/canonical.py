"""Strict JSON parsing and RFC 8785 canonical form (not public: use ``gitstore`` names).

Two canonicalizers give identical bytes:

- the reference, ``rfc8785.dumps``, used for anything holding a float and for objects whose
  keys contain characters outside the Basic Multilingual Plane (RFC 8785 sorts keys by UTF-16
  code units, which differs from code point order only there);
- the fast path, ``orjson`` with sorted keys, used for everything else. Property tests in
  ``tests/test_canonical.py`` prove the two byte-identical on the inputs it accepts.

Parsing refuses what I-JSON (RFC 7493) forbids: repeated member names, lone surrogates,
non-finite numbers and integers beyond 2^53 in magnitude.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import orjson

from gitstore import _jsontext
from gitstore.errors import CanonicalizationError

MAX_SAFE_INTEGER = 2**53 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise CanonicalizationError(f"duplicate member name {key!r}")
            seen.add(key)
    return obj


def _refuse_constant(name: str) -> Any:
    raise CanonicalizationError(f"non-finite number {name} is not JSON")


_MAX_INTEGER_DIGITS = len(str(MAX_SAFE_INTEGER))


def _parse_int(text: str) -> int:
    """An integer literal; one too long to be I-JSON is refused before it is converted (Python
    refuses to convert more than 4,300 digits, and converting is quadratic below that)."""
    digits = len(text) - text.startswith("-")
    if digits > _MAX_INTEGER_DIGITS:
        raise CanonicalizationError(f"not I-JSON: an integer of {digits} digits is beyond 2^53")
    return int(text)


def parse_json(text: str | bytes, *, allow_floats: bool = True, check: bool = True) -> Any:
    """Parse one JSON text strictly, refusing anything I-JSON forbids.

    ``check=False`` leaves the walk over the value (lone surrogates, integers beyond 2^53,
    floats) to a later check of the whole value, such as the store's ``check_record``; what
    only the text shows (repeated member names, a byte order mark) is refused either way.
    """
    value = _parse_compact(text) if type(text) is bytes else _NOT_COMPACT
    if value is _NOT_COMPACT:
        value = _parse_strict(text)
    if check:
        check_ijson(value, allow_floats=allow_floats)
    return value


_NOT_COMPACT = object()


def _parse_compact(text: bytes) -> Any:
    """The value of ``text`` when ``text`` is exactly orjson's compact form of it, else
    ``_NOT_COMPACT``. Such a text is one JSON value with no repeated member name (orjson keeps
    one of them, so its form would be shorter), no byte order mark, and nothing after it: the
    strict parser would read the same value, several times slower (most JSON Lines files are
    written this way)."""
    try:
        value = orjson.loads(text)
        if orjson.dumps(value) == text:
            return value
    except (orjson.JSONDecodeError, TypeError, ValueError):
        pass
    return _NOT_COMPACT


def _parse_strict(text: str | bytes) -> Any:
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CanonicalizationError(f"input is not UTF-8 (byte {exc.start})") from None
    if text.startswith("\ufeff"):
        raise CanonicalizationError("input starts with a byte order mark")
    try:
        return _jsontext.loads(text, object_pairs_hook=_refuse_duplicates, parse_constant=_refuse_constant,
                          parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        raise CanonicalizationError(
            f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise CanonicalizationError("not I-JSON: values nested too deeply") from None


def check_ijson(value: Any, *, allow_floats: bool = True) -> bool:
    """Raise unless ``value`` is I-JSON; return whether the fast canonicalizer may serve it."""
    try:
        return _scan(value, allow_floats)
    except _Refuse:
        pass
    except RecursionError:
        raise CanonicalizationError("not I-JSON: values nested too deeply") from None
    _check(value, "$", allow_floats)  # the same walk with paths, to name what is wrong
    raise CanonicalizationError("value is not I-JSON")  # pragma: no cover - _check raised


class _Refuse(Exception):
    """Raised by ``_scan`` at the first value ``_check`` refuses."""


def _scan(value: Any, allow_floats: bool) -> bool:
    """``_check`` without building a path for every value: it accepts and refuses the same
    values and returns the same answer; leaves are checked in line, one call per container."""
    kind = type(value)
    if kind is dict:
        fast = True
        for key, item in value.items():
            if type(key) is not str:
                raise _Refuse
            if not key.isascii():
                if _SURROGATE.search(key):
                    raise _Refuse
                if _ASTRAL.search(key):
                    fast = False
            sub = type(item)
            if sub is str:
                if not item.isascii() and _SURROGATE.search(item):
                    raise _Refuse
            elif sub is int:
                if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                    raise _Refuse
            elif item is None or sub is bool:
                pass
            elif not _scan(item, allow_floats):
                fast = False
        return fast
    if kind is list:
        fast = True
        for item in value:
            sub = type(item)
            if sub is str:
                if not item.isascii() and _SURROGATE.search(item):
                    raise _Refuse
            elif sub is int:
                if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                    raise _Refuse
            elif item is None or sub is bool:
                pass
            elif not _scan(item, allow_floats):
                fast = False
        return fast
    if kind is str:
        if not value.isascii() and _SURROGATE.search(value):
            raise _Refuse
        return True
    if kind is int:
        if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            raise _Refuse
        return True
    if kind is float:
        if not allow_floats or value != value or value in (float("inf"), float("-inf")):
            raise _Refuse
        return False
    if value is None or kind is bool:
        return True
    raise _Refuse


def _check(value: Any, path: str, allow_floats: bool) -> bool:
    kind = type(value)
    if kind is str:
        if not value.isascii() and _SURROGATE.search(value):
            raise CanonicalizationError(f"lone surrogate in string at {path}")
        return True
    if kind is dict:
        fast = True
        for key, item in value.items():
            if type(key) is not str:
                raise CanonicalizationError(f"member name at {path} is not a string")
            if not key.isascii():
                if _SURROGATE.search(key):
                    raise CanonicalizationError(f"lone surrogate in member name at {path}")
                if _ASTRAL.search(key):
                    fast = False
            if not _check(item, f"{path}.{key}", allow_floats):
                fast = False
        return fast
    if kind is list:
        fast = True
        for index, item in enumerate(value):
            if not _check(item, f"{path}[{index}]", allow_floats):
                fast = False
        return fast
    if kind is int:
        if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            raise CanonicalizationError(f"integer at {path} is beyond 2^53 (I-JSON)")
        return True
    if kind is float:
        if not allow_floats:
            raise CanonicalizationError(f"number at {path} is not an integer; records carry no floats")
        if value != value or value in (float("inf"), float("-inf")):
            raise CanonicalizationError(f"non-finite number at {path}")
        return False
    if value is None or kind is bool:
        return True
    raise CanonicalizationError(f"value at {path} of type {kind.__name__} is not JSON")


def canonicalize_reference(value: Any) -> bytes:
    """RFC 8785 canonical bytes through the reference implementation."""
    check_ijson(value)
    return _reference(value)


def _reference(value: Any) -> bytes:
    import rfc8785  # imported on first use: most records never need it

    try:
        return rfc8785.dumps(value)
    except rfc8785.CanonicalizationError as exc:
        raise CanonicalizationError(f"cannot canonicalize: {exc}") from None
    except RecursionError:
        raise CanonicalizationError("not I-JSON: values nested too deeply") from None


def canonicalize(value: Any) -> bytes:
    """RFC 8785 canonical bytes, through the fast path wherever it is proven equal."""
    return canonicalize_checked(value, check_ijson(value))


def canonicalize_checked(value: Any, fast: bool) -> bytes:
    """``canonicalize`` for a value already checked: ``fast`` is what ``check_ijson`` returned
    for it or for a value holding it (a part of a value without floats or astral member names
    has none either), so the value is not walked again."""
    if fast:
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except TypeError:  # nested past orjson's 254 levels: the reference takes what it can
            pass
    return _reference(value)


def sha256_digest(data: bytes) -> str:
    """The ``sha256:<hex>`` form gitstore uses for every digest."""
    return "sha256:" + hashlib.sha256(data).hexdigest()
