"""Finding a labeler or consolidator by name: a built-in, else a package's entry point.

A plug-in's entry point names a factory, called with the built-in factories of its kind (so it
can build on one without importing gitstore) and its options from configuration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from types import MappingProxyType
from typing import Any

from gitstore.errors import UsageError


def build(kind: str, name: str, builtins: Mapping[str, Callable[..., Any]], options: Mapping[str, Any] | None) -> Any:
    """The ``kind`` (labeler, consolidator) called ``name``, built with its options; refuses an
    unknown name. Its entry point group is ``gitstore.<kind>s``."""
    factory = builtins.get(name)
    if factory is None:
        for found in entry_points(group=f"gitstore.{kind}s"):
            if found.name == name:
                factory = found.load()
                break
    if factory is None:
        known = ", ".join(sorted(builtins))
        raise UsageError(f"unknown {kind} {name!r} (built in: {known}; others come from the gitstore.{kind}s entry point)")
    return factory(builtins, MappingProxyType(dict(options or {})))
