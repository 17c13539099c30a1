"""Text that people or plug-ins hand the store is untrusted: quarantine refuses it, secrets are
redacted before anything is stored."""

from __future__ import annotations

from typing import Any

from gitstore.errors import Refused


def screen_text(text: str, what: str) -> str:
    """The text with secrets redacted; refuses hidden characters or injected instructions."""
    from gitstore.safety.scanner import default_scanner

    result = default_scanner().scan(text)
    if result.quarantined:
        kinds = ", ".join(sorted({f.kind for f in result.findings if f.action == "quarantine"}))
        raise Refused(f"{what} was quarantined by the safety scanner ({kinds}); nothing was stored")
    return result.text


def read_together(version: dict[str, Any]) -> str:
    """What a learning version says, its parts joined as ``gitstore show`` prints them to a
    reviewer: a hail in the title and the order in the text pass the scanner one at a time and
    are read as one."""
    content = version["content"]
    return "\n\n".join([content["title"], content["text"], version["audienceRationale"], version["rationale"],
                        ", ".join(version["targets"])])


def screen_together(version: dict[str, Any], what: str = "the title, text, rationales and targets") -> None:
    """Refuses a learning version whose parts, each passing alone, are quarantined read together
    (:func:`read_together`); nothing is stored."""
    from gitstore.safety.scanner import default_scanner

    result = default_scanner().scan(read_together(version))
    if result.quarantined:
        kinds = ", ".join(sorted({f.kind for f in result.findings if f.action == "quarantine"}))
        raise Refused(f"{what} read together were quarantined by the safety scanner ({kinds}); nothing was stored")
