"""Kept for code written before ``gitstore.context``: the one ``Context`` and the time helper.

New code imports ``Context`` from ``gitstore.context`` and ``now`` from ``gitstore.records.times``.
"""

from __future__ import annotations

from gitstore.context import Context
from gitstore.records.times import now

__all__ = ["Context", "now"]
