"""The conformance suite against the jsonl provider."""

from __future__ import annotations

from pathlib import Path

from gitstore.conformance import ProviderConformance
from gitstore.providers.jsonl import JsonlProvider


class TestJsonlConformance(ProviderConformance):
    def make(self, location: Path, writer: str = "w1") -> JsonlProvider:
        return JsonlProvider(location / "jsonl", writer)
