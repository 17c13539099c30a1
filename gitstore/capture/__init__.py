"""Capture: the hook a harness runs, envelopes and receipts, transcripts, review import (from
snapshots, a folder as it fills, or the GitHub REST API), and the installation of harness hooks. Importing this package loads nothing else: the agent hook starts
fast."""


__all__ = ["agent_hook", "bounds", "disabled", "github", "harnesses", "hookfields", "hookinput", "hooklog", "inbox", "install", "normalize",
           "outcomes", "readahead", "reviews", "saved", "screening", "sessions", "switched", "transcripts", "undo"]  # the public modules (tests/test_public_api.py keeps the list whole)
