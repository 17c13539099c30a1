"""How much recall may return, and how it is counted.

The ceilings are absolute: 3 items, 400 characters per item and 1,200 characters in all,
counted on the canonical serialisation (RFC 8785) of each item and of the item array. The
``delivery`` section of ``okf/.memory/config.json`` may lower them, never raise them; it is read
strictly, and anything it cannot read (an unknown field, a wrong type, a value above a ceiling)
makes delivery inert rather than falling back to defaults, so a typo can never widen it:

```json
{"delivery": {"enabled": true, "maxItems": 3, "maxItemChars": 400, "maxTotalChars": 1200}}
```

Items hold only strings and integers, for which RFC 8785 is sorted keys, no spaces, and JSON's
own string escapes: ``canonical`` writes that with ``gitstore.deliver.jsonlite`` (a test proves
it equal to the reference canonicaliser), so the agent hook never loads the contract layer.
"""

from __future__ import annotations

from gitstore.deliver.jsonlite import dumps

TYPE_CHECKING = False  # the agent hook imports this module: no typing, no dataclasses at run time
if TYPE_CHECKING:
    from typing import Any

MAX_ITEMS = 3
MAX_ITEM_CHARS = 400
MAX_TOTAL_CHARS = 1200
HARNESS_STRING_LIMIT = 10_000  # Claude Code's cap on one additionalContext string; the lowest documented

_FIELDS = {"enabled": bool, "maxItems": int, "maxItemChars": int, "maxTotalChars": int}
_CEILINGS = {"maxItems": MAX_ITEMS, "maxItemChars": MAX_ITEM_CHARS, "maxTotalChars": MAX_TOTAL_CHARS}


class Inert(Exception):
    """Delivery must do nothing here; the message says why."""


class Untrusted(Inert):
    """This checkout's gitstore state came with the repository: delivery does nothing here, and
    a hook logs nothing either (its log is in that state folder)."""


class Limits:
    """The limits in force: the ceilings, or lower ones from configuration."""

    __slots__ = ("max_items", "max_item_chars", "max_total_chars")

    def __init__(self, max_items: int = MAX_ITEMS, max_item_chars: int = MAX_ITEM_CHARS,
                 max_total_chars: int = MAX_TOTAL_CHARS) -> None:
        self.max_items = min(max_items, MAX_ITEMS)
        self.max_item_chars = min(max_item_chars, MAX_ITEM_CHARS)
        self.max_total_chars = min(max_total_chars, MAX_TOTAL_CHARS)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Limits) and self.to_json() == other.to_json()

    def to_json(self) -> dict[str, int]:
        return {"maxItems": self.max_items, "maxItemChars": self.max_item_chars,
                "maxTotalChars": self.max_total_chars,
                "ceilings": {"maxItems": MAX_ITEMS, "maxItemChars": MAX_ITEM_CHARS,
                             "maxTotalChars": MAX_TOTAL_CHARS}}


def canonical(value: Any) -> str:
    """RFC 8785 text of a value made of strings, integers, lists and objects."""
    return dumps(value, sort_keys=True)


def read_limits(config: dict[str, Any]) -> Limits:
    """The limits a parsed ``config.json`` sets; raises Inert when delivery is off or unreadable.
    The reasons quote no text of the file's (a log line would carry it, and a commit can supply
    the file): only gitstore's own field names, and an integer it checked."""
    section = config.get("delivery", {})
    if not isinstance(section, dict):
        raise Inert("config.json: 'delivery' must be a JSON object; delivery is off until it is fixed")
    values: dict[str, Any] = {}
    for key, value in section.items():
        expected = _FIELDS.get(key)
        if expected is None:
            raise Inert("config.json: the delivery section has a field gitstore does not know; "
                        "delivery is off until it is fixed")
        if type(value) is not expected:
            raise Inert(f"config.json: delivery.{key} must be {expected.__name__}; delivery is off until it is fixed")
        values[key] = value
    if values.get("enabled") is False:
        raise Inert("delivery is switched off (delivery.enabled is false in config.json)")
    for key, ceiling in _CEILINGS.items():
        if key in values and not 1 <= values[key] <= ceiling:
            raise Inert(f"config.json: delivery.{key} is {values[key]}, outside 1..{ceiling} (a hard ceiling); "
                        "delivery is off until it is fixed")
    return Limits(values.get("maxItems", MAX_ITEMS), values.get("maxItemChars", MAX_ITEM_CHARS),
                  values.get("maxTotalChars", MAX_TOTAL_CHARS))
