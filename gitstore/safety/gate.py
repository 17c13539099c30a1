"""Text that people or plug-ins hand the store is untrusted: quarantine refuses it, secrets are
redacted before anything is stored."""

from __future__ import annotations

from gitstore.errors import Refused


def screen_text(text: str, what: str) -> str:
    """The text with secrets redacted; refuses hidden characters or injected instructions."""
    from gitstore.safety.scanner import default_scanner

    result = default_scanner().scan(text)
    if result.quarantined:
        kinds = ", ".join(sorted({f.kind for f in result.findings if f.action == "quarantine"}))
        raise Refused(f"{what} was quarantined by the safety scanner ({kinds}); nothing was stored")
    return result.text
