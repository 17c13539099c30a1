"""gitstore-okf: the wiki's OKF rules, promoted claims' citations, the tooling overlay, pages no one edits by hand.

A thin entry point for pre-commit (see .pre-commit-hooks.yaml); the gate is
``gitstore.promote.gates.wiki``. Installed as ``gitstore_validators.okf``.
"""

from __future__ import annotations

import sys

from gitstore.promote.gates.wiki import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
