"""Text that people or plug-ins hand the store is untrusted: quarantine refuses it, secrets are
redacted before anything is stored."""

from __future__ import annotations

import functools
from typing import Any

from gitstore.errors import Refused
from gitstore.records.headline import headline
from gitstore.safety import lazy


def screen_text(text: str, what: str) -> str:
    """The text with secrets redacted; refuses hidden characters or injected instructions."""
    from gitstore.safety.scanner import default_scanner

    result = default_scanner().scan(text)
    if result.quarantined:
        kinds = ", ".join(sorted({f.kind for f in result.findings if f.action == "quarantine"}))
        raise Refused(f"{what} was quarantined by the safety scanner ({kinds}); nothing was stored")
    return result.text


def without_secrets(text: str) -> str:
    """The text with the secrets and home paths the safety scanner finds redacted, the rest as
    written: for free text a person types beside a record (a reason, a note), which shared
    records keep for good and every read screens again (so what the scanner quarantines is
    withheld where it is shown, not refused here)."""
    from gitstore.safety.scanner import default_scanner

    return default_scanner().scan(text).text


def read_together(version: dict[str, Any]) -> str:
    """What a learning version says, its parts joined as ``gitstore show`` prints them to a
    reviewer: a hail in the title and the order in the text pass the scanner one at a time and
    are read as one."""
    content = version["content"]
    return "\n\n".join([content["title"], content["text"], version["audienceRationale"], version["rationale"],
                        ", ".join(version["targets"])])


def screen_together(version: dict[str, Any], what: str = "the title, text, rationales and targets",
                    named: str | None = None) -> None:
    """Refuses a learning version whose parts, each passing alone, are quarantined read together
    (:func:`read_together`), or whose title and text, each screened already, hold a secret read
    as one line, ``title: text`` (a title naming a password over a bare value in the text): a
    credential only together, which delivery withholds and a promotion would write side by
    side, is no more stored in memory every clone shares than one in a single part; nothing is
    stored. ``named``: the title the version goes by when not its own (``title_for``: a text
    edited at accept goes by its headline)."""
    from gitstore.safety.scanner import default_scanner

    scanner = default_scanner()
    result = scanner.scan(read_together(version))
    if result.quarantined:
        kinds = ", ".join(sorted({f.kind for f in result.findings if f.action == "quarantine"}))
        raise Refused(f"{what} read together were quarantined by the safety scanner ({kinds}); nothing was stored")
    content = version["content"]
    found = _secret_in_line(scanner, content["title"] if named is None else named, content["text"])
    if found:
        raise Refused(f"the title and text read as one line, as agents would get them, hold what the safety scanner "
                      f"takes for a secret ({found}); nothing was stored: word them so neither completes the other")


def unscreened(version: dict[str, Any]) -> str | None:
    """Why a learning version written elsewhere (``gitstore records add``) holds text proposing
    would not have stored as it is: a part (title, text, rationales, targets) the safety scanner
    quarantines or redacts something in, parts it quarantines read together, or a title and
    text it takes for a secret read as one line (``screen_together``); None when
    screening would leave every part as written. A sealed record cannot be redacted without
    changing the digests that name it, so such a record is refused, never rewritten."""
    from gitstore.safety.scanner import default_scanner

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
        found = _changes(text)
        if found is not None:
            return f"the safety scanner {found} in its {what}"
    try:
        together = read_together(version)
    except (KeyError, TypeError, AttributeError):
        return None  # the store's schema check names what is missing
    scanner = default_scanner()
    result = scanner.scan(together)
    if result.quarantined:
        kinds = ", ".join(sorted({f.kind for f in result.findings if f.action == "quarantine"}))
        return f"the safety scanner quarantines {kinds} in its title, text, rationales and targets read together"
    content = version["content"]
    decision = version.get("decision")
    edited = isinstance(decision, dict) and decision.get("edited") is True  # goes by its text's headline
    found = _secret_in_line(scanner, headline(content["text"]) if edited else content["title"], content["text"])
    if found:
        return f"the safety scanner takes its title and text read as one line for a secret ({found})"
    return None


def _secret_in_line(scanner: Any, title: str, text: str) -> str | None:
    """The kinds of secret the scanner redacts in a learning's TITLE and TEXT read as one line,
    ``title: text``, as agents would get them; None when it finds none. (What it quarantines
    there is no stored secret: a headline cut from an edited text can read as an order the whole
    text is not, and delivery withholds the learning, as accept warns.)"""
    from gitstore.safety.scanner import REDACT

    line = scanner.scan(f"{title.strip()}: {text.strip()}")
    return ", ".join(sorted({f.kind for f in line.findings if f.action == REDACT})) or None


# strings made by gitstore's formats, in which the scanner finds nothing (a digest, a record id,
# a time, a schema name): not scanned, a third of a record's strings at 30 µs each
_FORMATTED = lazy.Pattern(r"sha256:[0-9a-f]{64}|[a-z]{1,12}_[0-9a-f]{32}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z"
                          r"|gitstore\.[a-z]{1,20}/v\d{1,3}")


def unscreened_record(record: dict[str, Any]) -> str | None:
    """:func:`unscreened` for any record ``gitstore records add`` takes: a learning's parts
    (alone and read together), then every string of the record, as ``gitstore records show``
    screens them (an episode's title, a proposer's or decider's id): where the safety scanner
    quarantines or redacts something, why; None when it would leave every string as written.
    An event is taken as sealed: its text, most of a bulk import's bytes, is screened where it
    is read (evidence, show, dream), and scanning every event's text here would cost a bulk
    append three times its time (1.3 s to 4.5 s of CPU for 20,000 events)."""
    if record.get("schema") == "gitstore.event/v1":
        return None
    done: set[str] = set()
    if record.get("schema") == "gitstore.learning/v1":
        why = unscreened(record)
        if why is not None:
            return why
        content, targets = record.get("content"), record.get("targets")
        done.update(v for v in (*(content.values() if isinstance(content, dict) else ()), record.get("rationale"),
                                record.get("audienceRationale"), *(targets if isinstance(targets, list) else ()))
                    if isinstance(v, str))
    plain = _FORMATTED.fullmatch
    stack: list[tuple[Any, str]] = [(record, "")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            stack.extend((inner, f"{where}.{key}" if where else str(key)) for key, inner in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((inner, f"{where}[{n}]") for n, inner in reversed(list(enumerate(value))))
        elif isinstance(value, str) and value and value not in done and not plain(value):
            found = _changed(value) if len(value) <= 200 else _changes(value)
            if found is not None:
                return f"the safety scanner {found} in its {where}"
    return None


@functools.lru_cache(maxsize=4096)
def _changed(text: str) -> str | None:
    """:func:`_changes`, once for a short string however many records repeat it (a person's
    id, a kind, a branch name)."""
    return _changes(text)


def _changes(text: str) -> str | None:
    """What the safety scanner would do to ``text`` (``quarantines KINDS``, ``redacts KINDS``),
    or None when it leaves it as written."""
    from gitstore.safety.scanner import default_scanner

    result = default_scanner().scan(text)
    if not result.quarantined and result.text == text:
        return None
    action = "quarantines" if result.quarantined else "redacts"
    return f"{action} {', '.join(sorted({f.kind for f in result.findings if f.action != 'warn'}))}"
