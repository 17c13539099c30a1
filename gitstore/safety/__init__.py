"""The safety scanner (hidden text, injected instructions, secrets, home paths) and the gate that
screens text handed to the store."""
