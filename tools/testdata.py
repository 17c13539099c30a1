"""Where the third-party test material is: ``$GITSTORE_TESTDATA``, else ``shared/testdata``
beside the checkout (``../shared/testdata`` from the project root).

The material (RFC 8785 vectors, agent transcripts, review payloads, fake-secret corpora, ...) is
not part of the repository. A fresh clone has none of it: tests that need it skip, all with the
one reason ``MISSING``, and benchmarks that need it say so instead of failing. CI has it and runs
everything.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "GITSTORE_TESTDATA"
ROOT = Path(__file__).resolve().parent.parent


def testdata_root() -> Path:
    """The folder the material is looked for in (it may not exist)."""
    chosen = os.environ.get(ENV)
    return Path(chosen).expanduser().resolve() if chosen else ROOT.parent / "shared" / "testdata"


def available() -> bool:
    """Whether the material is there at all."""
    return testdata_root().is_dir()


MISSING = (
    f"third-party test material not found in {testdata_root()} "
    f"(set {ENV} to its folder to run these tests)"
)
