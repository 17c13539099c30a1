"""Providers: built-ins in a dict, third-party ones by the ``gitstore.providers`` entry point."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from pathlib import Path

from gitstore.errors import Refused, UsageError
from gitstore.providers._base import (
    NAMESPACES,
    OPTIONAL_CAPABILITIES,
    REQUIRED_CAPABILITIES,
    AppendResult,
    AttestingProvider,
    Attestation,
    Batch,
    CausalProvider,
    CollectingProvider,
    Entry,
    GcReport,
    Manifest,
    PausingProvider,
    Problem,
    Provider,
    QuarantiningProvider,
    RedactingProvider,
    RememberingProvider,
    Removal,
    SnapshotProvider,
    Stored,
    Stream,
    StreamingProvider,
    StreamReadingProvider,
    TrustMode,
    BytesMemoryProvider,
    VerifyReport,
    missing_capabilities,
)

# name -> (module, class, how the location is derived from the state folder)
BUILTIN: dict[str, tuple[str, str]] = {
    "git": ("gitstore.providers.git", "GitProvider"),
    "sqlite": ("gitstore.providers.sqlite", "SqliteProvider"),
    "jsonl": ("gitstore.providers.jsonl", "JsonlProvider"),
    "memory": ("gitstore.providers.memory", "MemoryProvider"),
}


def provider_factory(name: str) -> Callable[..., Provider]:
    """The class (or factory) that builds provider ``name``."""
    if name in BUILTIN:
        module, attr = BUILTIN[name]
        return getattr(import_module(module), attr)  # type: ignore[no-any-return]
    from importlib.metadata import entry_points  # only for providers other packages bring

    for found in entry_points(group="gitstore.providers"):
        if found.name == name:
            return found.load()  # type: ignore[no-any-return]
    raise UsageError(f"unknown provider {name!r}")


def open_provider(name: str, root: Path, state: Path, writer: str) -> Provider:
    """Open the configured provider for a repository and check its manifest."""
    factory = provider_factory(name)
    if name == "git":
        provider = factory(root, writer)
    elif name == "sqlite":
        provider = factory(state / "store.sqlite", writer)
    elif name == "jsonl":
        provider = factory(state / "jsonl", writer)
    elif name == "memory":
        provider = factory(writer)
    else:
        provider = factory(root=root, state=state, writer=writer)
    require_capabilities(provider)
    return provider


def require_capabilities(provider: Provider) -> Manifest:
    """Refuse a provider whose manifest lacks a required capability."""
    manifest = provider.manifest()
    missing = missing_capabilities(manifest)
    if missing:
        raise Refused(f"provider {manifest.name!r} lacks required capabilities: {', '.join(missing)}")
    return manifest


__all__ = [
    "BUILTIN",
    "NAMESPACES",
    "OPTIONAL_CAPABILITIES",
    "REQUIRED_CAPABILITIES",
    "AppendResult",
    "AttestingProvider",
    "Attestation",
    "Batch",
    "CausalProvider",
    "CollectingProvider",
    "Entry",
    "GcReport",
    "Manifest",
    "PausingProvider",
    "Problem",
    "Provider",
    "QuarantiningProvider",
    "RedactingProvider",
    "RememberingProvider",
    "Removal",
    "SnapshotProvider",
    "Stored",
    "Stream",
    "StreamingProvider",
    "StreamReadingProvider",
    "TrustMode",
    "BytesMemoryProvider",
    "VerifyReport",
    "missing_capabilities",
    "open_provider",
    "provider_factory",
    "require_capabilities",
]
