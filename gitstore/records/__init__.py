"""The record layer every stage shares: contracts, canonical form, digests, times and ids."""

__all__ = ["authority", "canonical", "contracts", "headline", "identity", "ids", "inputs", "policy", "times", "vocabulary"]  # the public modules (tests/test_public_api.py keeps the list whole)
