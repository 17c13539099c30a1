"""``.continual-learning/index.json``: the continual-learning index, kept by its own contract.

The file is a JSON object whose ``entries`` array holds objects with ``fact``,
``source_session``, ``date`` (``YYYY-MM-DD``) and ``category`` (decision, convention,
constraint, resolved-problem, project-knowledge). Entries gitstore writes also name their
learning (``learning``) and its ``contentDigest``, so gitstore knows which entries are its own.
Everything else in the file (other keys, other tools' entries, their order) is kept.

The contract (from the continual-learning job this index comes from):

- the index is read before anything is written; an index that cannot be read or is not of this
  shape is a **blocked** result naming it, and nothing at all is written;
- a fact already recorded (the same text, by any writer) is not added again;
- an entry gitstore wrote that someone has since changed is a **conflict**: it is left exactly
  as it is and reported, never overwritten; the same for one whose learning is no longer in
  force but which was edited;
- entries of learnings no longer in force that nobody changed are removed;
- when nothing changes, the result says so (no update) and the file is not touched.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from gitstore import _jsontext
from gitstore.records.vocabulary import CATEGORIES

PATH = ".continual-learning/index.json"
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")


class Blocked(Exception):
    """The index cannot be used as a baseline; the message names it and why."""


@dataclass(frozen=True)
class Fact:
    """What gitstore would record for one learning in force."""

    learning: str
    content_digest: str
    fact: str
    source_session: str
    date: str
    category: str
    earlier: tuple[str, ...] = ()  # what an earlier publish wrote for this version (``title: text``), never recorded

    def entry(self) -> dict[str, Any]:
        return {"fact": self.fact, "source_session": self.source_session, "date": self.date,
                "category": self.category, "learning": self.learning, "contentDigest": self.content_digest}


@dataclass
class Merge:
    """The index after merging, and what changed."""

    data: dict[str, Any]
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)  # facts another writer recorded first
    conflicts: list[str] = field(default_factory=list)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise ValueError(f"member name {repeated[0]!r} appears twice")
    return dict(pairs)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is too large to be read")
    return value


def load(raw: bytes | None) -> dict[str, Any]:
    """The parsed index (an empty one for a missing file); raises Blocked naming the problem.
    A publish writes the index back with every other tool's entry in it, so only JSON it can
    write back as read is taken: not ``NaN`` or ``Infinity`` (no JSON, which Python's reader
    takes), nor a number too large for a float (read as infinity, written as ``Infinity``), nor
    a string holding half of a UTF-16 pair (``\\ud800`` alone: no Unicode text, which UTF-8 cannot
    write)."""
    if raw is None:
        return {"entries": []}
    try:
        data = _jsontext.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicates,
                               parse_constant=_no_constant, parse_float=_finite)
    except (UnicodeDecodeError, ValueError) as exc:
        raise Blocked(f"{PATH} is not valid JSON ({exc})") from None
    try:
        dump(data)
    except UnicodeEncodeError:
        raise Blocked(f"{PATH} holds a string with half of a UTF-16 pair (an escape such as \\ud83d alone), "
                      "which is no Unicode text and cannot be written back") from None
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise Blocked(f"{PATH} is not a JSON object with an 'entries' array")
    for number, entry in enumerate(data["entries"], start=1):
        problem = _entry_problem(entry)
        if problem:
            raise Blocked(f"{PATH}: entry {number} {problem}")
    return data


def _entry_problem(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return "is not a JSON object"
    for key in ("fact", "source_session", "date", "category"):
        if not isinstance(entry.get(key), str):
            return f"has no {key} string"
    if entry["category"] not in CATEGORIES:
        return f"has an unknown category {entry['category']!r}"
    if not _DATE.match(entry["date"]):
        return f"has a date {entry['date']!r} that is not YYYY-MM-DD"
    return None


def dump(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _same(text: str) -> str:
    return " ".join(text.casefold().split())


def merge(data: dict[str, Any], facts: list[Fact], written: dict[str, set[str]]) -> Merge:
    """``data`` with ``facts`` recorded. ``written`` maps a learning id to the fact texts gitstore
    would have written for any of its versions: an entry of ours whose text is none of them was
    changed by someone."""
    wanted = {f.learning: f for f in facts}
    result = Merge({**data, "entries": []})
    kept_ids: set[str] = set()
    for entry in data["entries"]:
        learning = entry.get("learning")
        if not isinstance(learning, str):
            result.data["entries"].append(entry)
            continue
        ours_untouched = entry["fact"] in written.get(learning, set())
        fact = wanted.get(learning)
        if learning in kept_ids:
            result.removed.append(learning)  # a second entry of one learning: keep the first
        elif fact is None and ours_untouched:
            result.removed.append(learning)
        elif not ours_untouched:
            result.conflicts.append(f"{PATH}: the entry of {learning} was changed by hand; left as it is")
            result.data["entries"].append(entry)
            kept_ids.add(learning)
        else:
            new = fact.entry()
            if new != entry:
                result.updated.append(learning)
            result.data["entries"].append(new)
            kept_ids.add(learning)
    recorded = {_same(e["fact"]) for e in result.data["entries"]}
    for fact in facts:
        if fact.learning in kept_ids:
            continue
        if _same(fact.fact) in recorded:
            result.already.append(fact.learning)
            continue
        result.data["entries"].append(fact.entry())
        recorded.add(_same(fact.fact))
        result.added.append(fact.learning)
    return result


def without(data: dict[str, Any], keep: set[str], written: dict[str, set[str]]) -> Merge:
    """``data`` without gitstore's entries of learnings not in ``keep`` (no longer published),
    every other entry as it is: nothing is added or updated. An entry of ours changed by hand
    is a conflict, left as it is. ``written`` as for ``merge``."""
    result = Merge({**data, "entries": []})
    for entry in data["entries"]:
        learning = entry.get("learning")
        if not isinstance(learning, str) or learning in keep:
            result.data["entries"].append(entry)
        elif entry["fact"] in written.get(learning, set()):
            result.removed.append(learning)
        else:
            result.conflicts.append(f"{PATH}: the entry of {learning} was changed by hand; left as it is")
            result.data["entries"].append(entry)
    return result
