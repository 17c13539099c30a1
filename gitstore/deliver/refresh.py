"""Taking what left force out of the files ``gitstore publish`` wrote, after a withdrawal, a
redaction or a retirement.

Each published file only loses: the lines of its section and the entries of the index that
name a learning a publish would no longer write go (a line that says what several learnings
say keeps citing those still written), and every other byte stays as it was, but for the
header of a section it rewrites: one an earlier version wrote (``EARLIER_HEADER``), which sent
agents where a learning's accepted text is not, becomes the header publish writes now. Nothing
else is added or updated: a learning accepted since the last publish, or a newer text of one, reaches the
committed files when a person runs ``gitstore publish``, never as a side effect of taking
another learning out of force.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gitstore.deliver import clindex, sections, snapshots
from gitstore.deliver.publish import (EARLIER_HEADER, HEADER, LEFT_OUT, NONE_IN_FORCE, Baseline, Line, edited_by_hand, left_out_note,
                                      files_lock, named, not_written, published_files, section_line, select,
                                      unfinished_operation, write_changes)
from gitstore.errors import InvalidInput


@dataclass
class Refresh:
    """What bringing already published files up to date did: the files rewritten, the snapshot
    that lets ``--rollback`` undo it, and why some published file could not be brought up to
    date (it then still lists what it listed: stale until ``gitstore publish`` succeeds)."""

    files: list[str] = field(default_factory=list)
    snapshot: str | None = None
    stale: list[str] = field(default_factory=list)
    # path -> the learnings out of force whose ids the text outside the file's section holds:
    # agents read it all the same, and only a hand edit takes it out
    outside: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"files": self.files, "snapshot": self.snapshot, "stale": self.stale, "outside": self.outside}


def refresh(ctx: Any) -> Refresh:
    """After learnings left force, take them out of the files a publish already wrote. Only
    files that hold gitstore's section (or entries) are touched; their prior state is saved for
    ``gitstore publish --rollback`` as a publish saves it. A file that cannot be rewritten (a
    section edited by hand, an unreadable index, an entry of gitstore's changed by hand) is
    named in ``stale``."""
    with files_lock(ctx.workspace.state):  # the files read and written, as no publish rewrites them meanwhile
        return _refresh(ctx)


def _refresh(ctx: Any) -> Refresh:
    from gitstore.queries._views import in_force_view

    root, state = ctx.workspace.root, ctx.workspace.state
    baseline, published, blocked = published_files(root)
    if baseline is None or not published:
        return Refresh(stale=blocked)
    selection = select(in_force_view(ctx.store)[0])
    texts = {fact.learning: fact.fact for fact in selection.facts}
    done = Refresh(outside=not_written(baseline, published, selection)[1])
    changes = _sections(baseline, published, texts, done.stale)
    if clindex.PATH in published:
        changes += _index(baseline, set(texts), selection.written, done.stale)
    busy = unfinished_operation(ctx.workspace.repo) if changes else None
    if busy is not None:
        done.stale.append(f"{busy}: nothing was written (`gitstore publish` once it is done)")
        return done
    if changes:
        done.snapshot = write_changes(root, state, changes)
        done.files = [c.path for c in changes]
    return done


def _sections(baseline: Baseline, published: set[str], texts: Mapping[str, str],
              stale: list[str]) -> list[snapshots.Change]:
    """The published Markdown files that change, each without what left force."""
    changes = []
    for target in baseline.targets:
        before = baseline.files[target.path]
        if target.path not in published or before is None:
            continue
        try:
            after = without(target.path, before, texts)
        except InvalidInput as exc:  # broken or repeated markers
            stale.append(str(exc))
            continue
        if after is None:
            stale.append(edited_by_hand(target.path))
        elif after != before:
            changes.append(snapshots.Change(target.path, before, after))
    return changes


def without(path: str, before: bytes, texts: Mapping[str, str]) -> bytes | None:
    """The file ``path`` whose section no longer names a learning publish would not write now;
    ``texts``: what publish writes, by learning id. ``before`` itself when nothing goes; None
    when the section was edited by hand (what it says is no longer gitstore's to rewrite).
    A section left with no learning says none is in force only when none is."""
    parts = sections.split(before.decode("utf-8"), path)
    if parts.body is None:
        return before
    if parts.edited:
        return None
    rows = parts.body.replace(parts.newline, "\n").split("\n")
    kept = [row for row in (_row(row, texts) for row in rows) if row is not None]
    if kept == rows:
        return before
    kept = [HEADER[2] if row in EARLIER_HEADER else row for row in kept]  # rewritten: its header as publish's now
    if not texts and not any(_names_learnings(row) for row in kept):
        kept.insert(len(kept) - 1 if kept and kept[-1] == "" else len(kept), NONE_IN_FORCE)
    return sections.place(parts, "\n".join(kept)).encode("utf-8")


def _names_learnings(row: str) -> bool:
    said = section_line(row)
    return bool(said and said[1]) or left_out_note(row) is not None


def _row(row: str, texts: Mapping[str, str]) -> str | None:
    """``row`` without the learnings publish would no longer write: as it is, citing fewer, or
    None when it cites none of them any more."""
    note = left_out_note(row)
    if note is not None:
        return _note(row, note, texts)
    said = section_line(row)
    if not said or not said[1]:
        return row
    text, ids = said
    still = tuple(i for i in ids if i in texts)
    if still == ids:
        return row
    return Line(text, still, (0, 0, still[0])).render() if still else None


def _note(row: str, note: tuple[int, tuple[str, ...], int], texts: Mapping[str, str]) -> str | None:
    """The line saying what was left out, without the learnings publish would no longer write.
    One that names the first ``NAMED`` and counts the rest stays as it is: which of the rest
    would take a place is not known, and it gives agents no learning's text."""
    count, ids, more = note
    still = [i for i in ids if i in texts]
    if len(still) == len(ids) or more:
        return row
    if not still:
        return None
    lines = len({" ".join(texts[i].casefold().split()) for i in still})  # identical texts share a line
    return LEFT_OUT.format(count=min(count, lines), ids=named(still))


def _index(baseline: Baseline, keep: set[str], written: dict[str, set[str]],
           stale: list[str]) -> list[snapshots.Change]:
    """The index, when it changes, without gitstore's entries of learnings no longer written."""
    kept = clindex.without(baseline.index_data, keep, written)
    stale += kept.conflicts
    if not kept.removed:
        return []
    return [snapshots.Change(clindex.PATH, baseline.index, clindex.dump(kept.data))]
