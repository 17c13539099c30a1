"""gitstore: a git-native memory for coding agents and the people who review them.

Names are imported on first use, so ``python -m gitstore.capture.agent_hook`` (run by harness hooks) starts
without loading the contracts, validators or git bindings it may not need.

The public API: the record layer (canonical form, digests, contracts, times), the errors, and
``Context.open()`` with the ``Store`` it opens. Each stage is a package with its own
``__all__``: ``gitstore.queries`` reads, ``gitstore.ops`` writes, ``gitstore.rules`` decides.
"""

from __future__ import annotations

from gitstore._version import __version__  # noqa: F401 - re-exported

TYPE_CHECKING = False  # typing costs milliseconds at start-up, and hooks start often
if TYPE_CHECKING:
    from typing import Any

_EXPORTS = {
    "canonicalize": ".records.canonical", "canonicalize_reference": ".records.canonical", "parse_json": ".records.canonical",
    "sha256_digest": ".records.canonical",
    "format_time": ".records.times", "normalize_time": ".records.times", "parse_time": ".records.times",
    "KINDS": ".records.contracts", "check_record": ".records.contracts", "content_digest": ".records.contracts",
    "digest_of": ".records.contracts", "kind_of": ".records.contracts", "load_record": ".records.contracts",
    "payload_digest": ".records.contracts", "review_digest": ".records.contracts", "seal": ".records.contracts",
    "AlreadyDone": ".errors", "CanonicalizationError": ".errors", "ConflictError": ".errors", "ContractError": ".errors",
    "GitstoreError": ".errors", "Incomplete": ".errors", "IntegrityError": ".errors", "InvalidInput": ".errors",
    "NotARepository": ".errors", "NotAuthorised": ".errors", "Refused": ".errors", "UsageError": ".errors",
    "Context": ".context", "Workspace": ".config", "Store": ".store", "Item": ".store",
    "Provider": ".providers", "Manifest": ".providers", "open_provider": ".providers",
}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gitstore' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
