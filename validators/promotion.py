"""gitstore-promotion: a commit with Gitstore-* trailers is exactly the promotion it claims.

A thin entry point for pre-commit (see .pre-commit-hooks.yaml); the gate is
``gitstore.promote.gates.promotion``. Installed as ``gitstore_validators.promotion``.
"""

from __future__ import annotations

import sys

from gitstore.promote.gates.promotion import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
