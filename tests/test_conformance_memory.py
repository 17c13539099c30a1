"""The conformance suite against the memory provider."""

from __future__ import annotations

from pathlib import Path

from gitstore.conformance import ProviderConformance
from gitstore.providers.memory import MemoryProvider

_shared: dict[Path, MemoryProvider] = {}


class TestMemoryConformance(ProviderConformance):
    durable = False

    def make(self, location: Path, writer: str = "w1") -> MemoryProvider:
        # two handles on one location share storage, as two processes share a file
        return _shared.setdefault(location, MemoryProvider(writer))
