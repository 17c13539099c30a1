"""Importing jsonschema-rs without Python's e-mail package.

jsonschema-rs's extension module records how it was built, and at import turns the build's
time stamp (RFC 2822: ``Thu, 12 Nov 2026 07:50:16 +0000``) into a ``datetime`` by calling
``email.utils.parsedate_to_datetime``. Importing ``email.utils`` brings in ``socket``,
``selectors``, ``calendar``, ``locale`` and the e-mail charsets and encoders: about as much
again as the extension itself (10 of 22 ms on a 2-core machine), in every process that checks
a record against its schema, the capture hook's worker among them, for a time stamp gitstore
never reads.

``load()`` imports jsonschema-rs with a stand-in for ``email.utils`` in ``sys.modules``: its
``parsedate_to_datetime`` reads that one fixed form (day name, day, month name, year, time,
numeric zone) and gives the same ``datetime`` the real function does; any other text, and
anything else asked of the stand-in, goes to the real module, imported at that moment. Once
jsonschema-rs is imported the stand-in is taken out, so ``import email.utils`` gets the real
module. A process that imported either already imports jsonschema-rs as usual.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from types import ModuleType
    from typing import Any

_UTILS = "email.utils"
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_DAYS = ("Mon,", "Tue,", "Wed,", "Thu,", "Fri,", "Sat,", "Sun,")


def load() -> None:
    """Import jsonschema-rs now, without ``email.utils`` (see above)."""
    stand_in = None
    if "jsonschema_rs" not in sys.modules and _UTILS not in sys.modules:
        stand_in = sys.modules[_UTILS] = _stand_in()
    try:
        __import__("jsonschema_rs")
    finally:
        if stand_in is not None and sys.modules.get(_UTILS) is stand_in:
            del sys.modules[_UTILS]


def parsedate_to_datetime(text: str) -> datetime:
    """``email.utils.parsedate_to_datetime`` for ``Thu, 12 Nov 2026 07:50:16 +0000``; the real
    function for any other form (two-digit years, ``-0000`` for an unknown zone, names or
    comments for zones, missing seconds)."""
    parts = text.split(" ") if isinstance(text, str) else ()
    if len(parts) == 6 and parts[0] in _DAYS and parts[2] in _MONTHS:
        day, year, clock, zone = parts[1], parts[3], parts[4].split(":"), parts[5]
        digits = day + year + "".join(clock) + zone[1:]
        if (len(day) in (1, 2) and len(year) == 4 and year[0] != "0" and len(clock) == 3
                and all(len(p) == 2 for p in clock) and len(zone) == 5 and zone[0] in "+-" and zone != "-0000"
                and digits.isascii() and digits.isdigit()):
            from datetime import datetime, timedelta, timezone

            offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:]))
            try:
                return datetime(int(year), _MONTHS.index(parts[2]) + 1, int(day), int(clock[0]), int(clock[1]),
                                int(clock[2]), tzinfo=timezone(-offset if zone[0] == "-" else offset))
            except ValueError:
                pass  # out of range: the real function says so in its own words
    parsed: datetime = _real().parsedate_to_datetime(text)
    return parsed


def _real() -> ModuleType:
    module = sys.modules.get(_UTILS)
    if module is not None and getattr(module, "__gitstore_stand_in__", False):
        del sys.modules[_UTILS]
    import importlib

    return importlib.import_module(_UTILS)


def _stand_in() -> ModuleType:
    from types import ModuleType

    module = ModuleType(_UTILS, "Stands in for email.utils while jsonschema-rs is imported (gitstore._jsonrs).")

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):  # what the import system asks of any module (``__path__``)
            raise AttributeError(name)
        return getattr(_real(), name)

    module.__gitstore_stand_in__ = True  # type: ignore[attr-defined]
    module.parsedate_to_datetime = parsedate_to_datetime  # type: ignore[attr-defined]
    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    return module
