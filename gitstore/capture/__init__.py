"""Capture: the hook a harness runs, envelopes and receipts, transcripts, review import, and the
installation of harness hooks. Importing this package loads nothing else: the agent hook starts
fast."""
