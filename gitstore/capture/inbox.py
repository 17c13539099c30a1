"""A folder of review material imported as it fills: REST snapshots and webhook deliveries.

A webhook receiver (or a job saving ``gitstore.github-snapshot/1`` files) drops ``*.json`` files
into a folder; each call imports what is new there and remembers it locally (a ledger of the
canonical digests it imported, kept to the files still present), so the folder is never
changed and nothing is imported twice. Files whose name starts with a dot are left alone (a
receiver writes there first, then renames).

- Each REST snapshot is one import; one whose digest the store already holds is skipped, unless
  deleted text is to be removed and the snapshot shows a comment stored with its text deleted (the
  same pages fetched again, after a comment written between the fetches was deleted at its source).
- New webhook deliveries are imported together, one import per repository they name; when
  they cannot be, the files whose deliveries fail on their own are reported, the rest imported.
- A file that cannot be read, parsed or imported is reported and retried next time; the others go on.
  One refused for giving a time in the future (``FromTheFuture``) is refused alike on every pass
  until the clock passes it: it is named once, with how to clear it (delete it), and then counted
  quietly (``refused``) while its bytes stay the same; the ledger remembers it by their digest.
- A folder inside ``okf/.memory/`` (this clone's, ignored by git) that does not exist yet is
  made, and holds nothing yet; a missing folder anywhere else is an error (a wrong path).
- In a folder inside ``okf/.memory/``, a file git tracks came
  with a commit, not from this clone's receiver: it is reported and never imported, or anyone
  who can land a commit could put review comments under any name into every clone's memory.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitstore import _jsontext
from gitstore._files import first_link, replace_file
from gitstore.capture.reviews import BuiltImport, FromTheFuture, KnownReviews, build_import, load_snapshot, removes_deleted, snapshot_digest, store_import
from gitstore.capture.saved import exclusive
from gitstore.config import STATE_DIR, tracked_under
from gitstore.errors import InvalidInput, Refused, in_one_line
from gitstore.context import Context
from gitstore.records.canonical import canonicalize


@dataclass
class FolderReport:
    """What one pass over the folder did."""

    imports: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    already: int = 0
    refused: list[str] = field(default_factory=list)  # named by an earlier pass as from the future

    @property
    def incomplete(self) -> list[dict[str, Any]]:
        return [i for i in self.imports if i["source"] == "github-rest" and not i["complete"]]

    def to_json(self) -> dict[str, Any]:
        return {"imports": self.imports, "problems": self.problems, "alreadyImported": self.already,
                "refusedBefore": self.refused}


def stored_snapshots(ctx: Context) -> set[str]:
    """The snapshot digests of every import the store holds."""
    return {i.record["snapshot"] for i in ctx.store.items(["import"])}


def import_folder(ctx: Context, folder: Path, by: str, ledger: Path, *, remove_deleted: bool = False) -> FolderReport:
    """Import what is new in ``folder``; ``ledger`` remembers what was. The pass holds the
    snapshots' lock, as every review import does (see ``import_reviews``)."""
    with exclusive(ctx.workspace.state):
        return _import_folder(ctx, folder, by, ledger, remove_deleted)


def _import_folder(ctx: Context, folder: Path, by: str, ledger: Path, remove_deleted: bool) -> FolderReport:
    state, at = ctx.workspace.state.absolute(), folder.absolute()
    if at.is_relative_to(state) and (link := first_link(state, at.relative_to(state).as_posix())) is not None:
        raise Refused(f"{link} is a link (to {os.readlink(link)}): a commit can put one in {STATE_DIR.as_posix()}/, "
                      "which is this clone's alone, to have files it committed elsewhere imported; not imported")
    if at.is_relative_to(state) and ".." not in at.relative_to(state).parts and not os.path.lexists(at):
        try:  # the clone's own inbox, not made yet: nothing has arrived
            at.mkdir(parents=True)
        except OSError as exc:
            raise InvalidInput(f"{folder}: cannot make this folder of review snapshots: {exc.strerror}") from None
        return FolderReport()
    if not folder.is_dir():
        raise InvalidInput(f"{folder}: no such folder of review snapshots or webhook deliveries")
    known, named = _read_ledger(ledger)
    refused: dict[str, str] = {}  # the files from the future still here, by the digest of their bytes
    report = FolderReport()
    present: dict[str, str] = {}
    deliveries: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    stored = stored_snapshots(ctx)
    reviews = _Reviews(ctx)
    committed = _committed(ctx, folder)
    for path in _files(folder):
        name = path.relative_to(folder).as_posix()
        if path.resolve() in committed:
            report.problems.append(f"{name}: git tracks it, so a commit put it in {STATE_DIR.as_posix()}/, which is "
                                   "this clone's alone: not imported (`git rm --cached` it, and commit that)")
            continue
        try:
            source, data, canonical = load_snapshot(path)
        except FromTheFuture as exc:
            try:
                raw = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:
                raw = None
            if raw is not None and raw in named:
                report.refused.append(name)
            else:
                report.problems.append(f"{name}: {in_one_line(exc)}; delete {name} to clear it (named once)")
            if raw is not None:
                refused[raw] = name
            continue
        except Exception as exc:  # one file that cannot be read stops no other
            report.problems.append(f"{name}: {in_one_line(exc)}")
            continue
        digest = snapshot_digest(source, data, canonical)
        present[digest] = name
        if (digest in known or (source == "github-rest" and digest in stored)) \
                and not (remove_deleted and isinstance(data, dict) and _removes(reviews, data)):
            report.already += 1
            known[digest] = name
            continue
        if source == "github-rest":
            if _import(reviews, report, [name], source, data, canonical, by, remove_deleted):
                known[digest] = name
        else:
            for payload in data:
                assert isinstance(payload, dict)  # load_snapshot checked every delivery
                repository = payload.get("repository")
                full = repository.get("full_name") if isinstance(repository, dict) else None
                deliveries.setdefault(str(full), []).append((digest, payload))
    failed: set[str] = set()
    for repository, items in sorted(deliveries.items()):
        failed |= _import_deliveries(reviews, report, items, present, by, remove_deleted)
    # a file counts as imported once every delivery in it was (a file may name two repositories)
    known.update({d: present[d] for items in deliveries.values() for d, _ in items if d not in failed})
    _write_ledger(ledger, {d: n for d, n in known.items() if d in present}, refused)
    return report


class _Reviews:
    """The imports of one pass: what the store holds is read at the first and kept up to date."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.known: KnownReviews | None = None

    def load(self) -> KnownReviews:
        if self.known is None:
            self.known = KnownReviews.load(self.ctx)
        return self.known


def _removes(reviews: _Reviews, snapshot: dict[str, Any]) -> bool:
    """Whether a REST snapshot imported already would now remove deleted text (the same pages
    fetched again after a comment written between the fetches was deleted). One that cannot be
    judged is imported again, which reports why."""
    try:
        return removes_deleted(reviews.load(), snapshot)
    except Exception:
        return True


def _import(reviews: _Reviews, report: FolderReport, names: list[str], source: str, data: Any, canonical: bytes,
            by: str, remove_deleted: bool) -> bool:
    try:
        built = build_import(reviews.ctx, source, data, canonical, by, remove_deleted=remove_deleted,
                             known=reviews.load())
    except Exception as exc:  # one import that fails stops no other
        report.problems.append(f"{', '.join(names)}: {in_one_line(exc)}")
        return False
    return _store(report, names, built)


def _store(report: FolderReport, names: list[str], built: BuiltImport) -> bool:
    try:
        done = store_import(built)
    except Exception as exc:
        report.problems.append(f"{', '.join(names)}: {in_one_line(exc)}")
        return False
    report.imports.append({"files": names, "source": built.record["source"], **done.to_json()})
    return True


def _import_deliveries(reviews: _Reviews, report: FolderReport, items: list[tuple[str, dict[str, Any]]],
                       present: dict[str, str], by: str, remove_deleted: bool) -> set[str]:
    """Import one repository's new deliveries together (in the order things happened, across
    files); the digests of the files not imported. When they cannot be imported together, the
    files whose deliveries cannot be imported on their own are reported by name and left for
    next time, and the others are imported: one malformed delivery would otherwise hold back
    every delivery beside it, pass after pass."""
    everything = {d for d, _ in items}
    names = sorted({present[d] for d in everything})
    try:
        built = _built(reviews, items, by, remove_deleted)
    except Exception as exc:
        bad = _failing(reviews, items, by, remove_deleted)
        if not bad:  # only together do they fail: said of them all
            report.problems.append(f"{', '.join(names)}: {in_one_line(exc)}")
            return everything
        report.problems.extend(f"{present[d]}: {why}" for d, why in sorted(bad.items(), key=lambda b: present[b[0]]))
        rest = [(d, p) for d, p in items if d not in bad]
        payloads = [p for _, p in rest]
        kept = sorted({present[d] for d, _ in rest})
        if rest and _import(reviews, report, kept, "github-webhook", payloads, canonicalize(payloads), by, remove_deleted):
            return set(bad)
        return everything
    return set() if _store(report, names, built) else everything


def _built(reviews: _Reviews, items: list[tuple[str, dict[str, Any]]], by: str, remove_deleted: bool) -> BuiltImport:
    payloads = [p for _, p in items]
    return build_import(reviews.ctx, "github-webhook", payloads, canonicalize(payloads), by,
                        remove_deleted=remove_deleted, known=reviews.load())


def _failing(reviews: _Reviews, items: list[tuple[str, dict[str, Any]]], by: str,
             remove_deleted: bool) -> dict[str, str]:
    """The files (by digest) whose deliveries cannot be imported on their own, and why: each
    built alone, nothing stored."""
    files: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for digest, payload in items:
        files.setdefault(digest, []).append((digest, payload))
    bad = {}
    for digest, mine in files.items():
        try:
            _built(reviews, mine, by, remove_deleted)
        except Exception as exc:
            bad[digest] = in_one_line(exc)
    return bad


def _committed(ctx: Context, folder: Path) -> set[Path]:
    """The files git tracks in ``folder`` when it is inside this clone's state folder. Tracked,
    not merely bytes git has: the team may keep the same material committed elsewhere on
    purpose, and a receiver may drop a copy of it here."""
    state, where = ctx.workspace.state.resolve(), folder.resolve()
    if where != state and state not in where.parents:
        return set()
    root = ctx.workspace.root
    return {(root / path).resolve() for path in tracked_under(root, where)}


def _files(folder: Path) -> list[Path]:
    found = []
    for path in sorted(folder.rglob("*.json")):
        parts = path.relative_to(folder).parts
        if not any(p.startswith(".") for p in parts) and path.is_file():
            found.append(path)
    return found


def _read_ledger(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The files imported (by canonical digest) and those named as from the future (by the
    digest of their bytes); a damaged ledger only means re-reading (imports skip what is
    stored) and naming a refused file once more."""
    try:
        data = _jsontext.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}, {}
    found = []
    for key in ("files", "refused"):
        part = data.get(key) if isinstance(data, dict) else None
        found.append({k: v for k, v in part.items() if isinstance(v, str)} if isinstance(part, dict) else {})
    return found[0], found[1]


def _write_ledger(path: Path, files: dict[str, str], refused: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {"files": dict(sorted(files.items()))}
    if refused:
        data["refused"] = dict(sorted(refused.items()))
    replace_file(path, json.dumps(data, indent=1) + "\n")
