"""What a forger with push access to the shared remote writes, for the trust and sync tests:
a record like an honest grant, a decision step with no review behind it, a redaction note put
into a payload snapshot, records whose bytes a contract never allowed; and the victim's memory
they aim at."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pygit2

from gitstore.context import Context
from gitstore.ops import learning as ops
from gitstore.providers.git import note_path, payloads_ref
from gitstore.records.contracts import seal

from .world import Thread, accepted, grant_all, propose, ref

ALICE = "github:9"


def grant_like(scope: str) -> dict[str, Any]:
    """A grant as an honest clone would write it, in ``scope``."""
    return seal({"schema": "gitstore.grant/v1", "scope": scope, "purposes": ["review"], "sources": ["review-thread"],
                 "from": "2026-01-01T00:00:00.000000Z", "until": None, "by": ALICE,
                 "at": "2026-04-01T00:00:00.000000Z", "note": "honest"})


def decision_step(prior: dict[str, Any], state: str, by: str, review_digest: str | None = None) -> dict[str, Any]:
    """The next version of ``prior`` in ``state``, decided by ``by`` quoting ``review_digest``
    (by default the one ``prior`` showed): written without the operation that checks it."""
    record = ops._next(prior)
    record["state"] = state
    record["decision"] = {"by": by, "reviewDigest": review_digest or prior["reviewDigest"], "edited": False,
                          "reason": None}
    return seal(record)


def snapshot_note(root: Path, writer: str, payload_digest: str, note: bytes) -> None:
    """Put a note into a payload snapshot as older versions kept them: notes/aa/bb/hex.json."""
    repo = pygit2.Repository(str(root))
    ref = payloads_ref("shared", writer)
    base = repo[repo.references[ref].target].tree if ref in repo.references else None
    index = pygit2.Index()
    if base is not None:
        index.read_tree(base)
    index.add(pygit2.IndexEntry(note_path(payload_digest), repo.create_blob(note), pygit2.GIT_FILEMODE_BLOB))
    signature = pygit2.Signature("gitstore", "gitstore@localhost")
    commit = repo.create_commit(None, signature, signature, "gitstore: payloads\n", index.write_tree(repo), [])
    repo.references.create(ref, commit, force=True)
    assert json.loads(note)


def victim_memory(alice: Context) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """What the attacks aim at, written on alice's clone: a grant, three review comments of one
    thread, a learning accepted from the first, and a proposal citing the second."""
    grant = grant_all(alice)
    thread = Thread(alice, 7, "100")
    comments = [thread.comment(str(100 + i), f"point {i}: keep retries bounded", f"2026-03-0{i + 1}T10:00:00.000000Z")
                for i in range(3)]
    thread.save()
    learning = accepted(alice, propose(alice, [ref(comments[0])], title="Bounded retries", text="Bound retries."))
    pending = propose(alice, [ref(comments[1])], title="Jitter", text="Use jitter.")
    return grant, comments, learning, pending


def grafted(root: Path, ref_name: str, signed: str, committer_time: str) -> str:
    """Move ``ref_name`` to its tip made again with the ``gpgsig`` header of the commit
    ``signed`` (someone else's signed append) and a committer time of ``committer_time``, as
    anyone can write a commit's bytes; returns the new commit's id."""
    import re
    import subprocess

    def raw(commit: str) -> str:
        return subprocess.run(["git", "cat-file", "commit", commit], cwd=root, check=True, capture_output=True,
                              text=True).stdout

    signature = re.search(r"^gpgsig .*?-----END SSH SIGNATURE-----\n", raw(signed), re.S | re.M)
    assert signature is not None, signed
    head, _, message = raw(ref_name).partition("\n\n")
    head = re.sub(r"^(committer .*) -?\d+ ([+-]\d{4})$", rf"\1 {committer_time} \2", head, flags=re.M)
    commit = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin", "--literally"], cwd=root,
                            input=f"{head}\n{signature.group(0)}\n{message}", check=True, capture_output=True,
                            text=True).stdout.strip()
    subprocess.run(["git", "update-ref", ref_name, commit], cwd=root, check=True)
    return commit
