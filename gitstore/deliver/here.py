"""Delivery for the commands (``recall``, ``context``, the MCP server): the repository here, its
index made current first (built inline when the store moved; in memory where the cache folder
cannot be written, as in a checkout mounted read-only), refusals as gitstore errors.

Unlike the agent hook, these may take the time to rebuild. Like it, they scan what they return
once more, as it is handed out (on one line, shortened where recall bounds it), with the safety scanner (the index
holds only scanned text; this is the second look); what fails is named as unsafe.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from gitstore.deliver import build, surfaces
from gitstore.deliver.context import Answer, answer
from gitstore.deliver.index import Candidate, Damaged, Index
from gitstore.deliver.index import path as idx_path
from gitstore.deliver.ledger import now as clock
from gitstore.deliver.limits import Inert
from gitstore.deliver.place import Place, check_trusted, locate
from gitstore.deliver.recall import Recall, delivered, item_of, recall, scanner_verdict
from gitstore.errors import GitstoreError, IntegrityError, Refused, UsageError

T = TypeVar("T")


def place_here(start: str = ".") -> Place:
    """The trusted repository containing ``start``, or a gitstore error saying why not."""
    from gitstore.config import Workspace

    workspace = Workspace.find(start)  # not a repository / not set up / unreadable config
    try:
        return locate(str(workspace.root))
    except Inert as exc:
        raise Refused(str(exc)) from None


def current_index(place: Place) -> Index:
    """The index for the store's current state, built now if needed (in memory where the cache
    folder cannot be written); refuses where delivery is inert, before anything is written."""
    try:
        check_trusted(place)
    except Inert as exc:
        raise Refused(str(exc)) from None
    for _ in range(3):
        try:
            found = build.current(place)
        except Inert as exc:  # a link on the way to the index: nothing is written through it
            raise Refused(str(exc)) from None
        if found is not None:
            inert = found.meta.get("inert")
            if inert:
                found.close()
                raise Refused(inert)
            return found
    raise IntegrityError("recall's index went stale three times while it was being read; try again")


def read_index(place: Place, read: Callable[[Index], T]) -> T:
    """What ``read`` takes from the current index (``current_index``). An index SQLite cannot
    read through (damaged: ``Damaged``) is removed and built again, once; one built again that
    still cannot be read is named in one line."""
    for attempt in range(2):
        index = current_index(place)
        try:
            return read(index)
        except Damaged as exc:
            if not exc.damaged:  # an I/O error, a lock: the file may be sound, and stays
                raise GitstoreError(f"{exc}: {idx_path(place)}") from None
            if attempt:
                raise IntegrityError(f"{exc}, even as built again: {idx_path(place)} (a disposable cache) "
                                     "was removed; try again") from None
            exc.discard()
        finally:
            index.close()
    raise AssertionError("unreachable")


def recall_here(query: str, start: str = ".", now: str | None = None, harness: str | None = None) -> Recall:
    """``gitstore recall QUERY``: the bounded, re-scanned answer for the repository here. Given
    the agent's ``harness``, it leaves out what that harness's hook leaves out (``for_harness``)."""
    if not query.strip():
        raise UsageError("recall needs a query: what the agent is about to do")
    check_harness(harness)
    place = place_here(start)
    return read_index(place, lambda index: recall(index, query, now or clock(), place.limits,
                                                  for_harness(index, harness), scanner_verdict()))


def show_here(learning_id: str, start: str = ".", now: str | None = None, harness: str | None = None) -> dict[str, Any]:
    """One learning in force by id, as recall's item (re-scanned, on one line) but whole: its
    accepted text alone, not shortened to the recall limits, since it answers for one learning
    named already (the line ``gitstore publish`` wrote cites it, text and all). As it would hand
    it to ``harness``'s agent: never one about another harness."""
    check_harness(harness)
    place = place_here(start)

    def read(index: Index) -> tuple[Candidate | None, bool]:
        found = index.learning(learning_id, now or clock())
        return found, found is not None and found.digest in for_harness(index, harness)

    found, elsewhere = read_index(place, read)
    if found is None:
        raise Refused(f"{named(learning_id)} is not a learning agents may be given now "
                      "(unknown, not in force for instruction, or left out as unsafe)")
    if elsewhere:
        raise Refused(f"{learning_id} is advice about another agent harness than {harness}, "
                      "whose agent would follow it to no end")
    item = item_of(found)
    if not scanner_verdict()(delivered(item)):
        raise Refused(f"{learning_id} fails the safety scan as it would be handed out")
    return item


def check_harness(harness: str | None) -> None:
    """Refuse a harness name no hook answers for (a usage error naming the ones there are)."""
    if harness is not None and harness not in surfaces.SURFACES:
        raise UsageError(f"no agent harness {harness!r} (one of {', '.join(surfaces.SURFACES)})")


def for_harness(index: Index, harness: str | None) -> frozenset[str]:
    """The digests to leave out for ``harness``'s agent, as its hook does: the user-tooling
    learnings about another harness (``Index.for_other_harnesses``); none when the harness is
    not known, since advice about any harness may then be the reader's own."""
    return index.for_other_harnesses(harness) if harness is not None else frozenset()


NAMED_CHARS = 48  # of an id an error names: a learning id is 36


def named(learning_id: str) -> str:
    """An id as a client sent it, for an error: its first ``NAMED_CHARS`` characters on one line,
    control characters shown as their pictures (a client sends whatever it likes, megabytes of
    it, and the error is also logged)."""
    from gitstore._shown import one_line, shown

    cut = learning_id[:NAMED_CHARS] + ("…" if len(learning_id) > NAMED_CHARS else "")
    return shown(one_line(cut))


@dataclass
class Preview:
    """What a harness's agent would receive now, byte for byte, and the limits that applied."""

    harness: str
    event: str
    session: str
    answer: Answer
    payload: dict[str, Any] = field(default_factory=dict)

    @property
    def output(self) -> str:
        return self.answer.output or ""

    def to_json(self) -> dict[str, Any]:
        found = self.answer.recall
        return {"harness": self.harness, "event": self.event, "session": self.session,
                "output": self.output, "delivered": self.answer.output is not None,
                "reason": self.answer.reason, "context": self.answer.context,
                "recall": found.to_json() if found else None, "payload": self.payload}


def preview(harness: str, prompt: str | None = None, session: str | None = None,
            source: str = "startup", start: str = ".", now: str | None = None) -> Preview:
    """``gitstore context``: run the context hook's answer without writing anything."""
    surface = surfaces.SURFACES.get(harness)
    if surface is None:
        raise UsageError(f"no context hook for harness {harness!r} (one of {', '.join(surfaces.SURFACES)})")
    place = place_here(start)
    kind = surfaces.PROMPT if prompt is not None else surfaces.START
    if kind not in surface.events.values():
        raise UsageError(f"{harness} has no session-start context; give --prompt")
    event = surface.event_of(kind)
    payload: dict[str, Any] = {"hook_event_name": event, "session_id": session or "gitstore-context-preview",
                               "cwd": place.root}
    if prompt is not None:
        payload["prompt"] = prompt
    else:
        payload["source"] = source
    result = read_index(place, lambda index: answer(place, harness, payload, now or clock(), lambda wait: index,
                                                     write=False))
    if result.unread is not None:  # the hook delivers nothing meanwhile; what it would deliver is shown all the same
        from gitstore import notices

        notices.note(f"{result.unread}; until then the context hook delivers nothing, and this shows what it "
                     "would deliver to a session given nothing yet")
    return Preview(harness, event, payload["session_id"], result, payload)
