"""``gitstore audit``: the audit trail, in store order."""

from __future__ import annotations

from typing import Any

from gitstore.context import Context


def audit(ctx: Context) -> list[dict[str, Any]]:
    """Every audit entry of this scope: grants, withdrawals, decisions, exports, redactions..."""
    return [item.record for item in ctx.store.items(["audit"])]


__all__ = ["audit"]
