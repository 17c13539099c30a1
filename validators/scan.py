"""gitstore-scan: the safety scanner on the text files about to be committed.

A thin entry point for pre-commit (see .pre-commit-hooks.yaml); the gate is
``gitstore.promote.gates.scan``. Installed as ``gitstore_validators.scan``.
"""

from __future__ import annotations

import sys

from gitstore.promote.gates._common import exit_now
from gitstore.promote.gates.scan import main as gate

__all__ = ["main"]


def main() -> int:
    """The console script: the gate, then the process ends at once (see ``exit_now``)."""
    return exit_now(gate())


if __name__ == "__main__":
    sys.exit(main())
