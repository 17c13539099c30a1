"""Regular expressions compiled the first time a text needs them, not when gitstore starts.

The scanner holds some hundred and fifty patterns; compiling them all took some 20 ms of every
process that imports it, a capture hook's included, though most texts reach only a few: the
orders addressed to AI readers are looked for only where a text names AI readers, a credential
word's value checks run only where there is a credential word. A :class:`Pattern` stands where
``re.compile(source, flags)`` stood and behaves as the compiled pattern does; the first use of
any of its methods compiles it once, after which each method is the compiled pattern's own.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class Pattern:
    """``re.compile(pattern, flags)``, compiled on first use; ``pattern`` is there at once,
    unless ``prepare`` is given: then ``pattern`` is ``prepare(pattern)``, worked out the first
    time it is asked for (a source that takes milliseconds to build, such as the patterns whose
    letters are written as the scanner reads them, costs nothing to a process that never uses
    it)."""

    def __init__(self, pattern: str, flags: int = 0, prepare: Callable[[str], str] | None = None) -> None:
        if prepare is None:
            self.pattern = pattern
        else:
            self._source, self._prepare = pattern, prepare
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name == "pattern":  # only where a ``prepare`` was given
            self.pattern = self._prepare(self._source)
            return self.pattern
        compiled = re.compile(self.pattern, self._flags)
        for method in _METHODS:  # the compiled pattern's own methods from now on
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy.Pattern({self.pattern!r})"


__all__ = ["Pattern"]
