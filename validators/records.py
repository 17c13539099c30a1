"""gitstore-records: verify the memory refs before they are pushed.

A thin entry point for pre-commit (see .pre-commit-hooks.yaml); the gate is
``gitstore.promote.gates.records``. Installed as ``gitstore_validators.records``.
"""

from __future__ import annotations

import sys

from gitstore.promote.gates.records import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
