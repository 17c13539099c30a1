"""The last answer of a labeler that answers the same evidence the same way, kept by its input.

A dream labels every piece of evidence the purpose may use, and the lexical labeler reads the
whole corpus each time (a theme depends on every text): on a store of 100,000 events that is
about half of a dream. Its answer is a function of the evidence given, in order, and of the
labeler itself (its options and its code), so a dream given the same evidence as the last one
takes that dream's answer instead of working it out again.

The key is the SHA-256 of the labeler's own description (``repeatable``: its options, and a
digest of the code that decides its answer) and of every piece of evidence, every field, in
the order given. One answer per labeler is kept, in ``okf/.memory/dreams/`` (local, git-ignored
and disposable, as the reports beside it): losing it, or any doubt about it (a file that does
not parse, another key, bytes git has, which a commit put there), costs one labelling. An
answer with problems is not kept; a dry run keeps nothing. Labels read back are checked as any
labeler's are (``run._label_problem``) before they are taken: one that fails is doubt too, and
the dream labels again.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from gitstore.dream.labelers import Label, LabelRun, Labeler

FORMAT = b"gitstore label memo 1\n"


def key(labeler: Labeler, items: Sequence[Any]) -> str | None:
    """The key of a labeling of ``items``, or None when the labeler is not repeatable."""
    describe = getattr(labeler, "repeatable", None)
    if describe is None:
        return None
    described = describe()
    if described is None:
        return None
    digest = hashlib.sha256(FORMAT)
    try:
        digest.update(orjson.dumps(described))
        digest.update(orjson.dumps(list(items), default=tuple))  # evidence: named tuples of plain values
    except TypeError:  # something it cannot spell out: no key, so no memo
        return None
    return digest.hexdigest()


def path(folder: Path, labeler: Labeler) -> Path:
    return folder / f"labels-{labeler.name}.json"


def recall(where: Path, wanted: str, came_through_git: Callable[[Path, bytes], bool]) -> LabelRun | None:
    """The run kept under key ``wanted``, or None. Bytes ``came_through_git`` says a commit or a
    checkout brought are not this clone's answer: anyone who can land a commit could write labels
    for the evidence everyone's store holds."""
    try:
        raw = where.read_bytes()
        if came_through_git(where, raw):
            return None
        kept = orjson.loads(raw)  # malformed JSON or UTF-8: a ValueError
        if not isinstance(kept, dict) or kept.get("key") != wanted:
            return None
        labels = [Label(event, theme, category, polarity, tuple((int(a), int(b)) for a, b in spans), labeler)
                  for event, theme, category, polarity, spans, labeler in kept["labels"]]
        usage = kept["usage"]
        if (not isinstance(usage, dict) or not all(type(n) is int for n in usage.values())
                or not all(isinstance(x, str) for lab in labels for x in (lab.event, lab.theme))):
            return None
        return LabelRun(labels, usage=usage)
    except (OSError, ValueError, TypeError, KeyError):
        return None


def keep(where: Path, wanted: str, run: LabelRun) -> None:
    """Keep ``run`` under key ``wanted`` (replacing the one kept), unless it had problems or
    judged evidence without a label (a run that is not the labels alone)."""
    if run.problems or run.judged:
        return
    data = {"key": wanted, "usage": run.usage,
            "labels": [[lab.event, lab.theme, lab.category, lab.polarity, [list(s) for s in lab.spans], lab.labeler]
                       for lab in run.labels]}
    where.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".labels-", dir=where.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(orjson.dumps(data))
        os.replace(temporary, where)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
