"""The safety scanner (hidden text, injected instructions, secrets, home paths) and the gate that
screens text handed to the store."""

__all__ = ["gate", "scanner"]  # the public modules (tests/test_public_api.py keeps the list whole)
