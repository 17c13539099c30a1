"""gitstore-okf: the wiki's OKF rules, promoted claims' citations, the tooling overlay, pages no one edits by hand.

A thin entry point for pre-commit (see .pre-commit-hooks.yaml); the gate is
``gitstore.promote.gates.wiki``. Installed as ``gitstore_validators.okf``.
"""

from __future__ import annotations

import sys

from gitstore.promote.gates._common import exit_now
from gitstore.promote.gates.wiki import main as gate

__all__ = ["main"]


def main() -> int:
    """The console script: the gate, then the process ends at once (see ``exit_now``)."""
    return exit_now(gate())


if __name__ == "__main__":
    sys.exit(main())
