"""gitstore: a git-native memory for coding agents and the people who review them.

Names are imported on first use, so ``python -m gitstore.hook`` (run by harness hooks) starts
without loading the contracts, validators or git bindings it may not need.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ._version import __version__  # noqa: F401 - re-exported

_EXPORTS = {
    "canonicalize": "._canonical", "canonicalize_reference": "._canonical", "parse_json": "._canonical",
    "sha256_digest": "._canonical",
    "format_time": "._time", "normalize_time": "._time", "parse_time": "._time",
    "KINDS": ".contracts", "check_record": ".contracts", "content_digest": ".contracts",
    "digest_of": ".contracts", "kind_of": ".contracts", "load_record": ".contracts",
    "payload_digest": ".contracts", "review_digest": ".contracts", "seal": ".contracts",
    "CanonicalizationError": ".errors", "ConflictError": ".errors", "ContractError": ".errors",
    "GitstoreError": ".errors", "IntegrityError": ".errors", "InvalidInput": ".errors",
    "NotARepository": ".errors", "Refused": ".errors", "UsageError": ".errors",
}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gitstore' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
