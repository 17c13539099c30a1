"""The GitHub snapshots ``gitstore import github`` saves, and removing redacted text from them.

Each snapshot is saved under ``okf/.memory/inbox/github/`` (``inbox``) unless ``--out`` names
another folder, one file per pull request, rewritten in one rename (``save``). ``redact`` empties
a comment's text in every snapshot saved there (``scrub_saved``), and ``import github`` empties
the comments already redacted in what it fetches before it saves or imports it (``scrub``): text
removed from memory does not stay on disk or come back through a later import. Ids and times
stay, so re-importing a scrubbed snapshot finds those versions stored and adds nothing.

This module reads snapshot files itself, not through the review importer, which redacts the
comments a GitHub deletion removed: it sits below both.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gitstore.errors import GitstoreError
from gitstore.records.canonical import canonicalize, parse_json
from gitstore.records.inputs import read_file

FORMAT = "gitstore.github-snapshot/1"
MAX_SNAPSHOT_BYTES = 256 << 20  # one snapshot or webhook delivery file
TEXTS = ("body", "body_text", "body_html")  # where GitHub puts a comment's words


def inbox(state: Path) -> Path:
    """Where ``import github`` saves its snapshots by default."""
    return state / "inbox" / "github"


def save(path: Path, data: bytes) -> None:
    """Write a snapshot in one rename: a reader never sees half of it."""
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_bytes(data + b"\n")
    os.replace(tmp, path)


def _source_id(collection: Any, item: dict[str, Any]) -> str:
    """The source id the review importer gives the comment ``item`` (a review's body is a comment
    of its own)."""
    return f"github:comment:{'review-' if collection == 'reviews' else ''}{item.get('id')}"


def scrub(snapshot: dict[str, Any], source_ids: set[str]) -> bool:
    """Empty the text of the comments named by ``source_ids`` in a snapshot, keeping every id and
    time (re-importing it finds those versions stored and adds nothing); True if any text went."""
    changed = False
    for response in snapshot.get("responses", []):
        body = response.get("body") if isinstance(response, dict) else None
        for item in body if isinstance(body, list) else []:
            if isinstance(item, dict) and _source_id(response.get("collection"), item) in source_ids:
                for key in TEXTS:
                    if isinstance(item.get(key), str) and item[key]:
                        item[key], changed = "", True
    return changed


def scrub_saved(folder: Path, source_ids: set[str]) -> list[Path]:
    """``scrub`` every snapshot saved in ``folder``, each rewritten in one rename; the files
    rewritten. A file that is not a readable snapshot is left as it is."""
    done = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = parse_json(read_file(path, MAX_SNAPSHOT_BYTES))
        except (GitstoreError, OSError):
            continue
        if isinstance(data, dict) and data.get("format") == FORMAT and scrub(data, source_ids):
            save(path, canonicalize(data))
            done.append(path)
    return done


__all__ = ["FORMAT", "MAX_SNAPSHOT_BYTES", "TEXTS", "inbox", "save", "scrub", "scrub_saved"]
