"""JSON text read with the standard library, never a ``RecursionError``.

``json.loads`` recurses once per nested array or object, so ``[`` repeated 100,000 times (a
committed policy, a harness's settings file, a hook's input) raises ``RecursionError``, which
no ``except ValueError`` around a parse catches: a traceback instead of the one line naming the
file. :func:`loads` turns it into the ``json.JSONDecodeError`` (a ``ValueError``) every caller
already handles. Standard library only, and loaded lightly (the hooks import it at start-up:
``json`` only when a text is read, ``typing`` never).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def loads(text: str | bytes, **options: Any) -> Any:
    """``json.loads(text, **options)``; a value nested too deeply to read is a ``JSONDecodeError``."""
    import json

    try:
        return json.loads(text, **options)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply to read", text if isinstance(text, str) else "", 0) from None


__all__ = ["loads"]
