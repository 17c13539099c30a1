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


def unscreened(version: dict[str, Any]) -> str | None:
    """Why a learning version written elsewhere (``gitstore records add``) holds text proposing
    would not have stored as it is: a part (title, text, rationales, targets) the safety scanner
    quarantines or redacts something in, or parts it quarantines read together; None when
    screening would leave every part as written. A sealed record cannot be redacted without
    changing the digests that name it, so such a record is refused, never rewritten."""
    from gitstore.safety.scanner import default_scanner

    scanner = default_scanner()
    content = version.get("content")
    targets = version.get("targets")
    parts: list[tuple[str, Any]] = [
        ("title", content.get("title") if isinstance(content, dict) else None),
        ("text", content.get("text") if isinstance(content, dict) else None),
        ("rationale", version.get("rationale")), ("audience rationale", version.get("audienceRationale")),
        *(("target", t) for t in (targets if isinstance(targets, list) else [])),
    ]
    for what, text in parts:
        if not isinstance(text, str):
            continue  # the store's schema check names it
        result = scanner.scan(text)
        if result.quarantined or result.text != text:
            action = "quarantines" if result.quarantined else "redacts"
            kinds = ", ".join(sorted({f.kind for f in result.findings if f.action != "warn"}))
            return f"the safety scanner {action} {kinds} in its {what}"
    try:
        together = read_together(version)
    except (KeyError, TypeError, AttributeError):
        return None  # the store's schema check names what is missing
    result = scanner.scan(together)
    if result.quarantined:
        kinds = ", ".join(sorted({f.kind for f in result.findings if f.action == "quarantine"}))
        return f"the safety scanner quarantines {kinds} in its title, text, rationales and targets read together"
    return None
