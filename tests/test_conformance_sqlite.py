"""The conformance suite against the sqlite provider."""

from __future__ import annotations

from pathlib import Path

from gitstore.conformance import ProviderConformance
from gitstore.providers.sqlite import SqliteProvider


class TestSqliteConformance(ProviderConformance):
    def make(self, location: Path, writer: str = "w1") -> SqliteProvider:
        return SqliteProvider(location / "store.sqlite", writer)
