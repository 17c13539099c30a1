"""Dreaming: gitstore proposes learnings by itself from themes that recur across independent
evidence, and people decide.

``gitstore.dream.run.dream`` runs one bounded pass: the frozen view (``view``), a labeler
(``labelers``), the consolidators (``consolidators``: recurrence, then tidy), the re-checks of
what they return (``checks``), the audience of each proposal (``audience``), and the report
(``report``). Proposals are written through ``gitstore.ops``. See okf/wiki/dreaming.md.
"""

__all__ = [  # the public modules (tests/test_public_api.py keeps the list whole)
    "audience", "checks", "consolidators", "cues", "labelers", "plugins", "report", "run", "settings", "terms",
    "view",
]
