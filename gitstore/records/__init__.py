"""The record layer every stage shares: contracts, canonical form, digests, times and ids."""
