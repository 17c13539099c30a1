"""The store's rules, decided at read time from the records alone: consent, evidence,
learning histories, supersession and which learnings are active. Every clone holding the same
shared records reaches the same verdicts (see okf/wiki/rules.md)."""

__all__ = ["active", "autosafe", "consent", "evidence", "lifecycle", "namespaces", "summaries", "trust", "view"]  # the public modules (tests/test_public_api.py keeps the list whole)
