"""The GitHub snapshots ``gitstore import github`` saves, and removing redacted text from them.

Each snapshot is saved under ``okf/.memory/inbox/github/`` (``inbox``) unless ``--out`` names
another folder, one file per pull request named for it (``file_name``), rewritten in one rename
(``save``). A folder ``--out`` named is remembered in ``okf/.memory/github-snapshot-folders.jsonl``
(``remember``; local, like all of ``okf/.memory/``). ``redact`` empties a comment's text in every
snapshot saved in the inbox and in each remembered folder still there, forgetting those that are
gone (``scrub_everywhere``; a file that cannot be written is named, and the others are still
scrubbed), and ``import github`` empties the comments already redacted in what it fetches
before it saves or imports it (``scrub``): text removed from memory does not stay on disk or
come back through a later import. Ids and times stay, so re-importing a scrubbed snapshot
finds those versions stored and adds nothing. Only the snapshots gitstore wrote are touched: a
``*.json`` file of this format under the name ``file_name`` gives its content; any other file
in those folders is left as it is.

Which redactions the snapshots here reflect is noted in ``okf/.memory/github-snapshots-scrubbed.json``
(``applied``, ``mark_applied``: the payload digests whose removal was applied to every saved
snapshot), so a redaction that arrives from another clone is applied once, and again only when
applying it failed.

An import decides which comments it leaves without text when it starts and saves snapshots
until it ends; a scrub (``redact``, or a redaction ``sync`` brought) that ran meanwhile would
miss what the import saved after it, and note the redaction applied all the same. Both hold
``okf/.memory/github-snapshots.lock`` (``exclusive``) while they decide and write, so a scrub
waits for an import under way and then finds every file it saved, and an import that starts
after a scrub knows the redaction. Every review import holds it (``import reviews``, a folder's
pass), so two imports of the same material never both build on a store without the other's.
So do ``export`` and a removal writing export files again (``gitstore.ops.redact``): two
removals read and wrote one export file each without the other's change, and an export that
read the evidence before a removal was stored recorded its file after that removal had looked
for the exports to write again.

This module reads snapshot files itself, not through the review importer, which redacts the
comments a GitHub deletion removed: it sits below both.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitstore import _jsontext
from gitstore._files import discard, held, replace_file
from gitstore.errors import GitstoreError
from gitstore.records.canonical import canonicalize, parse_json
from gitstore.records.inputs import read_file

FORMAT = "gitstore.github-snapshot/1"
MAX_SNAPSHOT_BYTES = 256 << 20  # one snapshot or webhook delivery file
TEXTS = ("body", "body_text", "body_html")  # where GitHub puts a comment's words
FOLDERS = "github-snapshot-folders.jsonl"  # in the state folder: the other folders snapshots went to
APPLIED = "github-snapshots-scrubbed.json"  # in the state folder: the removed payloads applied to them
LOCK = "github-snapshots.lock"  # in the state folder: held by an import saving snapshots and by a scrub


_HOLDING = threading.local()  # the state folders whose lock this thread holds


@contextmanager
def exclusive(state: Path) -> Iterator[None]:
    """Hold the snapshots' lock while an import decides what it leaves out, saves and stores,
    or a scrub reads, rewrites and notes. A thread holding it already goes on (an import that
    removes the text of deleted comments scrubs under the lock it holds): a second ``flock``
    of the same process would wait for itself."""
    state.mkdir(parents=True, exist_ok=True)
    key = str(state.resolve())
    holding: set[str] = _HOLDING.__dict__.setdefault("folders", set())
    if key in holding:
        yield
        return
    with held(state / LOCK):
        holding.add(key)
        try:
            yield
        finally:
            holding.discard(key)


def inbox(state: Path) -> Path:
    """Where ``import github`` saves its snapshots by default."""
    return state / "inbox" / "github"


def file_name(repository: str, pull: int) -> str:
    """The name ``import github`` saves a pull request's snapshot under."""
    return f"{repository.replace('/', '--')}--pr-{pull}.json"


def save(path: Path, data: bytes) -> None:
    """Write a snapshot in one rename: a reader never sees half of it."""
    tmp = path.with_name("." + path.name + ".tmp")  # one name: the snapshots' lock holds writers apart
    try:
        tmp.write_bytes(data + b"\n")
        os.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise


def _source_id(collection: Any, item: dict[str, Any]) -> str:
    """The source id the review importer gives the comment ``item`` (a review's body is a comment
    of its own)."""
    return f"github:comment:{'review-' if collection == 'reviews' else ''}{item.get('id')}"


def _comments(snapshot: dict[str, Any], source_ids: set[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The comments of a snapshot ``source_ids`` names, each with its source id."""
    responses = snapshot.get("responses")
    for response in responses if isinstance(responses, list) else []:
        body = response.get("body") if isinstance(response, dict) else None
        for item in body if isinstance(body, list) else []:
            if isinstance(item, dict) and (found := _source_id(response.get("collection"), item)) in source_ids:
                yield found, item


def scrub(snapshot: dict[str, Any], source_ids: set[str]) -> bool:
    """Empty the text of the comments named by ``source_ids`` in a snapshot, keeping every id and
    time (re-importing it finds those versions stored and adds nothing); True if any text went."""
    changed = False
    for _, item in _comments(snapshot, source_ids):
        for key in TEXTS:
            if isinstance(item.get(key), str) and item[key]:
                item[key], changed = "", True
    return changed


def holding(state: Path, source_ids: set[str]) -> dict[Path, list[str]]:
    """The snapshots saved in the inbox and in the remembered folders still there that hold text
    of comments ``source_ids`` names, and which (read only: what ``scrub_everywhere`` would
    rewrite)."""
    found: dict[Path, list[str]] = {}
    for folder in dict.fromkeys([inbox(state), *remembered(state)]):
        for path, data in _saved_in(folder):
            held = {sid for sid, item in _comments(data, source_ids)
                    if any(isinstance(item.get(key), str) and item[key] for key in TEXTS)}
            if held:
                found[path] = sorted(held)
    return found


def _written_here(path: Path, data: Any) -> bool:
    """Whether ``data``, read from ``path``, is a snapshot as ``import github`` saves it: this
    format, under the name its repository and pull request give."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return False
    repository, pull = data.get("repository"), data.get("pullRequest")
    return isinstance(repository, str) and type(pull) is int and path.name == file_name(repository, pull)


def scrub_saved(folder: Path, source_ids: set[str], failed: list[tuple[Path, str]] | None = None) -> list[Path]:
    """``scrub`` every snapshot ``import github`` saved in ``folder``, each rewritten in one
    rename; the files rewritten. Any other file is left as it is. A snapshot that cannot be
    rewritten is added to ``failed`` with why, and the next one is scrubbed all the same (without
    ``failed``, the error is raised)."""
    done = []
    for path, data in _saved_in(folder):
        if scrub(data, source_ids):
            try:
                save(path, canonicalize(data))
            except OSError as exc:
                if failed is None:
                    raise
                failed.append((path, exc.strerror or str(exc)))
                continue
            done.append(path)
    return done


def _saved_in(folder: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every snapshot ``import github`` saved in ``folder``, read; other files are passed over."""
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = parse_json(read_file(path, MAX_SNAPSHOT_BYTES))
        except (GitstoreError, OSError):
            continue
        if _written_here(path, data):
            yield path, data


def saved_anywhere(state: Path) -> bool:
    """Whether the inbox or a remembered folder holds a ``*.json`` file (a snapshot, maybe)."""
    return any(next(folder.glob("*.json"), None) is not None
               for folder in [inbox(state), *remembered(state)] if folder.is_dir())


def remember(state: Path, folder: Path) -> None:
    """Note a folder other than the inbox that snapshots are saved into, so ``redact`` finds
    them there too. One line is appended, so two imports at once lose neither folder (after
    a line a crash cut short, on a line of its own)."""
    folder = folder.resolve()
    text = _ledger(state)
    if folder == inbox(state).resolve() or folder in _folders(text):
        return
    state.mkdir(parents=True, exist_ok=True)
    with open(state / FOLDERS, "a", encoding="utf-8") as ledger:
        ledger.write(("\n" if text and not text.endswith("\n") else "") + json.dumps(str(folder)) + "\n")


def remembered(state: Path) -> list[Path]:
    """The folders ``remember`` noted, once each, in the order they were; a line that cannot
    be read (cut short by a crash) is passed over."""
    return _folders(_ledger(state))


def _ledger(state: Path) -> str:
    try:
        return (state / FOLDERS).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""  # a damaged list only means searching the inbox alone


def _folders(text: str) -> list[Path]:
    found = []
    for line in text.splitlines():
        try:
            value = _jsontext.loads(line)
        except ValueError:
            continue
        if isinstance(value, str) and "\0" not in value and Path(value).is_absolute():
            found.append(Path(value))
    return list(dict.fromkeys(found))


@dataclass
class Scrubbed:
    """What ``scrub_everywhere`` did: the snapshots rewritten, the remembered folders gone
    (forgotten now), and the snapshots that could not be rewritten, with why (they keep the
    text)."""

    files: list[Path] = field(default_factory=list)
    gone: list[Path] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)


@dataclass
class Applied:
    """A ``Scrubbed`` as a report names it (``redact``, ``sync``, ``gc``): the snapshots rewritten,
    the remembered folders forgotten (gone), the files that could not be rewritten, with why,
    and the export files written again (``gitstore export --with-evidence``: no snapshot)."""

    scrubbed: list[str] = field(default_factory=list)
    forgotten: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    exports: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, done: Scrubbed, root: Path, exports: list[Path] | None = None) -> Applied:
        return cls([shown(p, root) for p in done.files], [shown(f, root) for f in done.gone],
                   [(shown(p, root), why) for p, why in done.failed], [shown(p, root) for p in exports or ()])

    @property
    def rewritten(self) -> bool:
        """Whether any file lost text memory removed."""
        return bool(self.scrubbed or self.exports)

    def lines(self, then: str) -> list[str]:
        """One line per file rewritten, forgotten or not rewritten (``then``: what tries again)."""
        return [*(f"removed redacted text from the saved GitHub snapshot {p}" for p in self.scrubbed),
                *(f"rewrote the export {p} with the redaction note in place of the text" for p in self.exports),
                *(f"could not remove redacted text from {p}: {why} (it keeps the text; {then})"
                  for p, why in self.failed),
                *(f"forgot the snapshot folder {f}: it is gone" for f in self.forgotten)]

    def to_json(self) -> dict[str, Any]:
        return {"snapshotsScrubbed": self.scrubbed, "snapshotFoldersGone": self.forgotten,
                "snapshotsNotScrubbed": [{"path": p, "problem": why} for p, why in self.failed],
                "exportsRewritten": self.exports}


def shown(path: Path, root: Path) -> str:
    """A path as a report names it: from the repository's root when inside it."""
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def scrub_everywhere(state: Path, source_ids: set[str]) -> Scrubbed:
    """``scrub_saved`` in the inbox and in every remembered folder still there; a remembered
    folder that is gone is forgotten. A file that cannot be written is named in ``failed``,
    never raised: the other snapshots are scrubbed all the same."""
    folders = remembered(state)
    done = Scrubbed(gone=[f for f in folders if not f.is_dir()])
    if done.gone:
        try:
            _keep(state, [f for f in folders if f not in done.gone])
        except OSError as exc:  # forgotten next time: searching a folder that is gone finds nothing
            done.failed.append((state / FOLDERS, exc.strerror or str(exc)))
    for folder in dict.fromkeys([inbox(state), *(f for f in folders if f not in done.gone)]):
        done.files.extend(scrub_saved(folder, source_ids, done.failed))
    return done


def _keep(state: Path, folders: list[Path]) -> None:
    """Rewrite the list of remembered folders, in one rename."""
    replace_file(state / FOLDERS, "".join(json.dumps(str(f)) + "\n" for f in folders))


def applied(state: Path) -> set[str]:
    """The payload digests whose removal every saved snapshot reflects (``mark_applied``); a
    list that cannot be read is empty (the snapshots are only scrubbed again), and so is one
    whose bytes git has: a commit put it there, and a list naming every comment's payload would
    keep each later redaction's text in the snapshots here, unnoticed."""
    from gitstore.config import git_has

    try:
        raw = (state / APPLIED).read_bytes()
        found = _jsontext.loads(raw) if not git_has(state)(state / APPLIED, raw) else []
    except (OSError, ValueError):
        return set()
    return {d for d in found if isinstance(d, str)} if isinstance(found, list) else set()


def mark_applied(state: Path, digests: set[str]) -> None:
    """Add ``digests`` to ``applied``, in one rename. Two writers at once may lose one's
    digests: that only means scrubbing again, never skipping a redaction."""
    known = applied(state)
    if digests <= known:
        return
    replace_file(state / APPLIED, json.dumps(sorted(known | digests), indent=0) + "\n")


__all__ = ["APPLIED", "Applied", "FOLDERS", "FORMAT", "MAX_SNAPSHOT_BYTES", "TEXTS", "Scrubbed", "applied", "file_name",
           "holding", "inbox", "mark_applied", "remember", "remembered", "save", "saved_anywhere", "scrub",
           "scrub_everywhere", "scrub_saved", "shown"]
