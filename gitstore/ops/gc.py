"""Housekeeping: erase what memory removed, so removed text leaves the provider's storage.

The provider's ``gc`` erases removed payloads, payloads no stored record names (left by
appends that were killed) and superseded copies of them, and nothing else: with git, never a
reflog outside ``refs/memory/``, a stash, a reset-away commit or a dangling object of the
user's (see ``gitstore.providers._gc_git``). It refuses, as every write does, while a policy
record is damaged: which payloads are still named cannot be told from damaged records.
"""

from __future__ import annotations

from gitstore.errors import Refused
from gitstore.providers import GcReport
from gitstore.store import Store


def gc(store: Store) -> GcReport:
    """Run the provider's gc (its appends wait meanwhile)."""
    if "gc" not in store.manifest.capabilities:
        raise Refused(f"provider {store.manifest.name} offers no gc")
    store.check_policy()
    return store.provider.gc()  # type: ignore[attr-defined, no-any-return]
