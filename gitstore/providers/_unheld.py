"""Appends another writer saw that this clone does not hold: a writer's history on the remote lost some.

Each records commit names, in ``Seen`` headers, the tips of other writers its writer had seen
(``gitstore.providers._causal``). A writer can only have seen another's append because the
remote held it (or a plain fetch brought it from there): appends travel through the remote
alone, and records refs only move forward there when every writer pushes. So when a fetched
writer's admitted history names as seen an append of writer W that no history read here holds,
W's history on the remote lost appends someone saw: rewound (a ``git push --force`` to an older
commit) or deleted and made again. A clone that admitted those appends before keeps them
(sync quarantines the rewound ref), but a clone that never read them (a fresh clone) reads W's
history without them, and the records they held (a withdrawal, a redaction, a retirement among
them) count for nothing here until W's next sync pushes its history back.

Only what can tell is counted. The seers are fetched histories only: this clone's own appends
name what it admitted, which it keeps. W must have a history read here (a writer whose ref this
clone never fetched may sync with another remote only), none of it held in quarantine or left out
of reads (its admitted history stays behind what others saw there, or is not read at all: each is
named for what it is), and be neither this clone's writer nor an id it wrote as before (their
appends may never have left this clone). Anyone with push access can write a ``Seen`` naming a
made-up commit and raise this: a nuisance only, for they can delete refs anyway; it decides
nothing, and nothing is quarantined on it. It is raised for good, too, where the appends named
were never the writer's own history on the remote: a fork pushed on the writer's ref that another
clone appended on while it was up, and appends a copied clone made under an id it left
(``init --new-writer``), which its new id's appends name as seen though only their carried
copies reach the team.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import NamedTuple, Protocol


class _Header(Protocol):
    @property
    def seen(self) -> tuple[tuple[str, str], ...]: ...


class Unheld(NamedTuple):
    """A writer whose history here lacks ``commits`` that the writers ``seen_by`` had seen."""

    writer: str
    commits: tuple[str, ...]
    seen_by: tuple[str, ...]


def unheld(histories: Iterable[tuple[str, bool, Sequence[tuple[_Header, object]]]],
           skip: Collection[str]) -> list[Unheld]:
    """``histories``: each history read here as (its writer, whether fetched, its appends as
    (header, commit id)). The writers of them (none of ``skip``) whose appends fetched histories
    name as seen and no history here holds, by writer."""
    held: set[str] = set()
    readers: set[str] = set()
    seers: list[tuple[str, Sequence[tuple[_Header, object]]]] = []
    for writer, fetched, history in histories:
        readers.add(writer)
        held.update(str(oid) for _, oid in history)
        if fetched:
            seers.append((writer, history))
    lacking: dict[str, tuple[set[str], set[str]]] = {}
    for seer, history in seers:
        for header, _ in history:
            for writer, commit in header.seen:
                if commit not in held and writer in readers and writer not in skip and writer != seer:
                    commits, by = lacking.setdefault(writer, (set(), set()))
                    commits.add(commit)
                    by.add(seer)
    return [Unheld(writer, tuple(sorted(commits)), tuple(sorted(by)))
            for writer, (commits, by) in sorted(lacking.items())]


SHOWN_SEERS = 10


def unheld_line(found: Unheld, shown: str, seers: Sequence[str]) -> str:
    """One line saying what ``found`` means (``shown``, ``seers``: the writer ids as shown),
    naming the first ``SHOWN_SEERS`` seers and how many more: anyone who can push may make
    thousands of writers whose appends name a commit of ``found.writer``."""
    more = f" and {len(seers) - SHOWN_SEERS} more" if len(seers) > SHOWN_SEERS else ""
    return (f"writer {shown}: its history as fetched here lacks {len(found.commits)} append(s) that writer(s) "
            f"{', '.join(seers[:SHOWN_SEERS])}{more} saw: its history on the remote lost appends (moved back, or deleted and made "
            f"again); the records they held (a withdrawal, a redaction, a retirement among them) are not read "
            f"here until a sync brings them (writer {shown}'s next sync does, when they are its own)")


__all__ = ["Unheld", "unheld", "unheld_line"]
